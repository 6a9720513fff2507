/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-message-list.h: one conversation's messages as a GListModel of
 * PrsMessage, paged from SQLite. It knows the count up front and loads
 * windows of rows when asked for them, keeping a bounded number of pages, so
 * a 100,000-message conversation opens at once and memory stays flat.
 * Main thread only (asserted in debug builds, HACKING.md "Threads"). */
#pragma once

#include <gio/gio.h>

#include "prs-message.h"
#include "prs-store.h"

G_BEGIN_DECLS

#define PRS_MESSAGE_LIST_PAGE_SIZE 100
#define PRS_MESSAGE_LIST_MAX_PAGES 10

#define PRS_TYPE_MESSAGE_LIST (prs_message_list_get_type ())
G_DECLARE_FINAL_TYPE (PrsMessageList, prs_message_list, PRS, MESSAGE_LIST, GObject)

PrsMessageList *prs_message_list_new               (PrsStore       *store,
                                                    const char     *conversation_id);
const char     *prs_message_list_get_conversation_id (PrsMessageList *self);

/* The store may have grown: counts again and appends what is new. */
void            prs_message_list_refresh           (PrsMessageList *self);
/* A stored message changed (status, streamed content): it is read again
 * and replaced in place. Unknown ids are ignored. */
void            prs_message_list_message_changed   (PrsMessageList *self,
                                                    const char     *message_id);

/* How many PrsMessage objects the cache holds now, and how many pages were
 * read in all (tests and benchmarks). */
guint           prs_message_list_get_n_cached      (PrsMessageList *self);
guint           prs_message_list_get_n_page_loads  (PrsMessageList *self);

G_END_DECLS
