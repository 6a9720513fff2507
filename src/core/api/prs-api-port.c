/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-api-port.c: the published API port (prs-api-port.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "prs-api-port.h"
#include "prs-paths.h"

/* "65535\n" with room to spare */
#define PORT_MAX_SIZE 16

/* Written whole (a new private file renamed over the name: a link there is
 * replaced, never followed) but not synced: prs-atomic-file's two syncs
 * cost ~9 ms on the start of every launch, and the file needs no
 * durability — after a crash it is stale whatever it holds. The service
 * withdrew any earlier one, so GLib makes no sync (ONLY_EXISTING). */
gboolean
prs_api_port_publish (const char  *data_dir,
                      guint        port,
                      GError     **error)
{
  g_autofree char *path = g_build_filename (data_dir, PRS_API_PORT_FILE, NULL);
  g_autofree char *line = g_strdup_printf ("%u\n", port);

  g_return_val_if_fail (port > 0 && port <= G_MAXUINT16, FALSE);

  return g_file_set_contents_full (path, line, -1,
                                   G_FILE_SET_CONTENTS_CONSISTENT | G_FILE_SET_CONTENTS_ONLY_EXISTING,
                                   0600, error);
}

void
prs_api_port_withdraw (const char *data_dir)
{
  g_autofree char *path = g_build_filename (data_dir, PRS_API_PORT_FILE, NULL);

  if (unlink (path) != 0 && errno != ENOENT)
    g_message ("Could not remove %s: %s", path, g_strerror (errno));
}

/* Whether a service holds the data folder's instance lock. A shared lock
 * that can be had means nobody holds it; it is let go at once. */
static gboolean
instance_running (const char *data_dir)
{
  g_autofree char *path = g_build_filename (data_dir, PRS_INSTANCE_LOCK_FILE, NULL);
  int fd = prs_paths_open_file (path, O_RDONLY, NULL);
  gboolean held;

  if (fd < 0)
    return FALSE;
  held = flock (fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  close (fd);
  return held;
}

guint
prs_api_port_read (const char *data_dir)
{
  g_autofree char *path = g_build_filename (data_dir, PRS_API_PORT_FILE, NULL);
  g_autofree char *contents = NULL;
  guint64 port;

  g_return_val_if_fail (data_dir != NULL, 0);

  if (!prs_paths_read_file (path, PORT_MAX_SIZE, &contents, NULL, NULL))
    return 0;
  g_strchomp (contents);
  if (!g_ascii_string_to_unsigned (contents, 10, 1, G_MAXUINT16, &port, NULL))
    {
      g_message ("%s does not hold a port; ignored", path);
      return 0;
    }
  /* What a crashed service left says nothing */
  if (!instance_running (data_dir))
    return 0;
  return (guint) port;
}
