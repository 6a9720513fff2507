/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-atomic-file.h: a file written whole or not at all. What is written
 * goes to a new private file beside the destination (O_EXCL: never an
 * existing file or link), which is synced and renamed over the destination
 * only when complete; a destination that is a symbolic link or not a
 * regular file is refused, never followed. An interrupted write leaves the
 * destination as it was. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

typedef struct _PrsAtomicFile PrsAtomicFile;

/* Checks @path (nothing there, or a regular file) and makes the new file,
 * 0600. */
PrsAtomicFile *prs_atomic_file_new        (const char     *path,
                                           GError        **error);
/* Where to write (owned by @self). */
GOutputStream *prs_atomic_file_get_stream (PrsAtomicFile  *self);
/* The new file's name, for writers that open it by name (SQLite); the
 * stream is closed first. */
const char    *prs_atomic_file_get_temp_path (PrsAtomicFile *self);
/* Flushed, synced, renamed over the destination, the folder synced. */
gboolean       prs_atomic_file_commit     (PrsAtomicFile  *self,
                                           GError        **error);
/* Without a commit the new file is removed. */
void           prs_atomic_file_free       (PrsAtomicFile  *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrsAtomicFile, prs_atomic_file_free)

G_END_DECLS
