/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-paths.h: where the data folder is. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

char     *prs_paths_resolve_data_dir (const char  *explicit_dir);
gboolean  prs_paths_ensure_data_dir  (const char  *data_dir,
                                      GError     **error);

G_END_DECLS
