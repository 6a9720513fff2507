/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-api-control.h: the control key (docs/api.md#deciding-tool-calls):
 * 256 random bits kept through PrsSecrets (the keyring; its fallback file
 * when no Secret Service answers, docs/storage.md), made by the service on
 * its first start. The routes that list and decide waiting tool calls need
 * it besides the bearer token: the token is shared with n8n workflows, and
 * a workflow must not approve its own side effects; the key is read only
 * by the local user's prosponsive-ctl and sent in PRS_API_CONTROL_HEADER.
 * In the keyring, a workflow that reads the user's files cannot read it. */
#pragma once

#include <gio/gio.h>

#include "prs-secrets.h"

G_BEGIN_DECLS

/* Where versions before the keyring kept the key: moved into PrsSecrets on
 * the first start of this one, then removed */
#define PRS_API_CONTROL_FILE   "control-key"
#define PRS_API_CONTROL_HEADER "X-Prosponsive-Control"

/* The key, made and stored when there is none yet, or moved from
 * PRS_API_CONTROL_FILE (the service's API thread: blocks on the keyring
 * unless @cancellable is cancelled). */
gboolean  prs_api_control_ensure   (PrsSecrets    *secrets,
                                    const char    *data_dir,
                                    char         **out_key,
                                    GCancellable  *cancellable,
                                    GError       **error);
/* The key as it is (prosponsive-ctl; blocks on the keyring):
 * G_IO_ERROR_NOT_FOUND when the service never made it. */
gboolean  prs_api_control_read     (PrsSecrets    *secrets,
                                    char         **out_key,
                                    GError       **error);
/* Whether @path is one that needs the key */
gboolean  prs_api_control_required (const char  *path);

G_END_DECLS
