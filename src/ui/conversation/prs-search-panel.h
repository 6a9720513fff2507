/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-search-panel.h: search results in the sidebar (docs/conversations.md):
 * each hit as its conversation and a snippet with the match in bold, best
 * first. The window's search entry sets the query; choosing a hit says
 * which message to open. */
#pragma once

#include <gtk/gtk.h>

#include "prs-search-list.h"
#include "prs-service.h"

G_BEGIN_DECLS

#define PRS_TYPE_SEARCH_PANEL (prs_search_panel_get_type ())
G_DECLARE_FINAL_TYPE (PrsSearchPanel, prs_search_panel, PRS, SEARCH_PANEL, GtkWidget)

void           prs_search_panel_set_service    (PrsSearchPanel *self,
                                                PrsService     *service);
/* Looks @text up a moment after the last change ("" shows the hint). */
void           prs_search_panel_set_query      (PrsSearchPanel *self,
                                                const char     *text);
/* Enter in the entry: the best hit is chosen. */
void           prs_search_panel_activate_first (PrsSearchPanel *self);
/* Down in the entry: the keyboard goes to the hits. */
gboolean       prs_search_panel_focus_results  (PrsSearchPanel *self);
PrsSearchList *prs_search_panel_get_results    (PrsSearchPanel *self);

G_END_DECLS
