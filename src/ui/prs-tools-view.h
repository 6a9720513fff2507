/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-tools-view.h: the discovered tools, as a simple list (the full Tools
 * page replaces it). */
#pragma once

#include <gtk/gtk.h>

#include "prs-store.h"

G_BEGIN_DECLS

#define PRS_TYPE_TOOLS_VIEW (prs_tools_view_get_type ())
G_DECLARE_FINAL_TYPE (PrsToolsView, prs_tools_view, PRS, TOOLS_VIEW, GtkWidget)

/* Reads the tools again; returns how many there are, or -1 with @error. */
int prs_tools_view_reload (PrsToolsView  *self,
                           PrsStore      *store,
                           GError       **error);

G_END_DECLS
