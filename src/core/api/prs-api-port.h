/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-api-port.h: the port the running service's API listens on, published
 * in DATA_DIR/api-port (a decimal number and a newline, 0600, written whole,
 * not synced) so that prosponsive-ctl finds a service started
 * with --port (docs/ctl.md). The file is current only while the data
 * folder's instance lock is held: the service removes what a crash left
 * once it holds the lock, and a reader ignores the file when nobody holds
 * it. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define PRS_API_PORT_FILE      "api-port"
/* The one-instance-per-data-folder lock (flock) the service holds */
#define PRS_INSTANCE_LOCK_FILE "instance.lock"

/* The service, holding the lock, once the API listens on @port */
gboolean  prs_api_port_publish  (const char  *data_dir,
                                 guint        port,
                                 GError     **error);
/* The service: before the API starts (a crash's file), and at its stop */
void      prs_api_port_withdraw (const char  *data_dir);
/* The published port of the service running with @data_dir, or 0 when
 * none is published, the file is not a port, or no service holds the
 * lock. Never takes the lock for longer than the check. */
guint     prs_api_port_read     (const char  *data_dir);

G_END_DECLS
