/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-paths.h: where the data folder is, and how its files are checked. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

char     *prs_paths_resolve_data_dir (const char  *explicit_dir);
gboolean  prs_paths_ensure_data_dir  (const char  *data_dir,
                                      GError     **error);
/* Checks a file of the data folder by its name alone, opening no
 * descriptor (the only safe way for the database's files: closing a
 * descriptor drops the POSIX locks SQLite holds on the file). A missing
 * file is fine; a symbolic link, anything but a regular file, another
 * user's file or one with hard links is refused (PRS_ERROR_UNSAFE_PATH);
 * one others may read or write is made 0600. */
gboolean  prs_paths_check_file       (const char  *path,
                                      GError     **error);
G_END_DECLS
