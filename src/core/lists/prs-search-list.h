/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-search-list.h: search results as a GListModel of PrsSearchItem,
 * best first (prs_store_search). A query is looked up in a worker thread,
 * with a store connection of its own, a moment after the last change of
 * the text, and a newer query cancels the one under way: typing never
 * waits for the database. Main thread only (asserted in debug builds). */
#pragma once

#include <gio/gio.h>

#include "prs-store.h"

G_BEGIN_DECLS

/* The hits a search keeps */
#define PRS_SEARCH_LIST_LIMIT 100

#define PRS_TYPE_SEARCH_ITEM (prs_search_item_get_type ())
G_DECLARE_FINAL_TYPE (PrsSearchItem, prs_search_item, PRS, SEARCH_ITEM, GObject)

/* Borrowed from the item */
const PrsSearchHit *prs_search_item_get_hit (PrsSearchItem *self);

#define PRS_TYPE_SEARCH_LIST (prs_search_list_get_type ())
G_DECLARE_FINAL_TYPE (PrsSearchList, prs_search_list, PRS, SEARCH_LIST, GObject)

/* Searches the database @db_path (prs_store_get_path of the app's store). */
PrsSearchList *prs_search_list_new          (const char    *db_path);
/* Looks @text up after @delay_ms (0: at once); "" empties the list. */
void           prs_search_list_set_query    (PrsSearchList *self,
                                             const char    *text,
                                             guint          delay_ms);
const char    *prs_search_list_get_query    (PrsSearchList *self);
/* Whether a lookup is pending or under way (the "searching" property) */
gboolean       prs_search_list_get_searching (PrsSearchList *self);
/* The query the items answer ("" before any) */
const char    *prs_search_list_get_answered (PrsSearchList *self);

G_END_DECLS
