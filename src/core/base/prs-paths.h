/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-paths.h: where the data folder is, and how its files are opened. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

char     *prs_paths_resolve_data_dir (const char  *explicit_dir);
/* Creates the folder (0700) if needed. Refuses (PRS_ERROR_UNSAFE_PATH) a
 * folder that belongs to another user or lies under a folder everyone may
 * change; makes one of the user's own that others may read or write 0700,
 * and logs that it did. */
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
/* @path with its folder named by its real name (realpath: no link, no
 * "..") and its last part as it is, for SQLite's SQLITE_OPEN_NOFOLLOW,
 * which refuses a link anywhere in a name; NULL with errno set when the
 * folder cannot be resolved. */
char     *prs_paths_real_folder_of   (const char  *path);
/* Opens a file of the data folder (never one of the database's) without
 * following a link (O_NOFOLLOW) and checks what was opened as above, with
 * fstat; with O_CREAT it is created 0600. Returns the descriptor, or -1
 * with G_FILE_ERROR (G_FILE_ERROR_NOENT when missing) or
 * PRS_ERROR_UNSAFE_PATH. */
int       prs_paths_open_file        (const char  *path,
                                      int          flags,
                                      GError     **error);
/* The whole of such a file, up to @max_bytes, NUL-terminated. */
gboolean  prs_paths_read_file        (const char  *path,
                                      gsize        max_bytes,
                                      char       **out_contents,
                                      gsize       *out_length,
                                      GError     **error);

G_END_DECLS
