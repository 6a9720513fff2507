/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-api-control.h: the control key (docs/api.md#deciding-tool-calls):
 * 256 random bits in DATA_DIR/control-key (0600, checked like every file
 * of the data folder, docs/storage.md), made by the service on its first
 * start. The routes that list and decide waiting tool calls need it
 * besides the bearer token: the token is shared with n8n workflows, and a
 * workflow must not approve its own side effects; the key is read only by
 * the local user's prosponsive-ctl and sent in PRS_API_CONTROL_HEADER. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define PRS_API_CONTROL_FILE   "control-key"
#define PRS_API_CONTROL_HEADER "X-Prosponsive-Control"

/* The key, made and written when there is none yet (the service). */
gboolean  prs_api_control_ensure   (const char  *data_dir,
                                    char       **out_key,
                                    GError     **error);
/* The key as it is (prosponsive-ctl): G_FILE_ERROR_NOENT when the service
 * never ran with @data_dir. */
gboolean  prs_api_control_read     (const char  *data_dir,
                                    char       **out_key,
                                    GError     **error);
/* Whether @path is one that needs the key */
gboolean  prs_api_control_required (const char  *path);

G_END_DECLS
