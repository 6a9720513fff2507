/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-conversation-list.h: the conversations as a GListModel of
 * PrsConversation, pinned first, then newest first. PrsService owns one and updates it, row by
 * row, when the API server (or the app) creates conversations and adds
 * messages. Main thread only, like every model the window binds to
 * (asserted in debug builds, HACKING.md "Threads"). */
#pragma once

#include <gio/gio.h>

#include "prs-conversation.h"
#include "prs-store.h"

G_BEGIN_DECLS

#define PRS_TYPE_CONVERSATION_LIST (prs_conversation_list_get_type ())
G_DECLARE_FINAL_TYPE (PrsConversationList, prs_conversation_list, PRS, CONVERSATION_LIST, GObject)

PrsConversationList *prs_conversation_list_new       (PrsStore             *store);

/* Reads the conversations again (one query). Objects are kept (and
 * notify) for ids that stay; items-changed covers only the range that
 * really changed, as one signal, so a selection follows its item when it
 * moves to the top. */
gboolean         prs_conversation_list_reload        (PrsConversationList  *self,
                                                      GError              **error);
/* Reads them again only if another connection (prosponsive-ctl, the API
 * thread) wrote to the store since they were last read in full: what the
 * window does whenever it becomes active. */
gboolean         prs_conversation_list_refresh       (PrsConversationList  *self,
                                                      GError              **error);
/* Reads the one row of @conversation_id now and moves, adds or removes its
 * item: at most one items-changed, for the range it moved across. */
gboolean         prs_conversation_list_update        (PrsConversationList  *self,
                                                      const char           *conversation_id,
                                                      GError              **error);
/* Notes that @conversation_id changed in the store (a new conversation, a
 * message); the list follows once per main loop turn, before the next
 * frame is painted, with one items-changed for all that was queued. */
void             prs_conversation_list_queue_update  (PrsConversationList  *self,
                                                      const char           *conversation_id);
/* Applies what is queued now (tests, and callers about to look an id up). */
gboolean         prs_conversation_list_flush         (PrsConversationList  *self,
                                                      GError              **error);
/* Borrowed, or NULL; queued changes are not looked at. @position may be
 * NULL. O(log n). */
PrsConversation *prs_conversation_list_find          (PrsConversationList  *self,
                                                      const char           *conversation_id,
                                                      guint                *position);

/* Store operations that also refresh the model at once. */
gboolean         prs_conversation_list_rename        (PrsConversationList  *self,
                                                      PrsConversation      *conversation,
                                                      const char           *title,
                                                      GError              **error);
gboolean         prs_conversation_list_set_pinned    (PrsConversationList  *self,
                                                      PrsConversation      *conversation,
                                                      gboolean              pinned,
                                                      GError              **error);
gboolean         prs_conversation_list_set_archived  (PrsConversationList  *self,
                                                      PrsConversation      *conversation,
                                                      gboolean              archived,
                                                      GError              **error);
/* Marks the conversations of @ids deleted (prs_store_mark_conversation_deleted:
 * Undo can restore them) and takes them out, with one items-changed. */
gboolean         prs_conversation_list_delete        (PrsConversationList  *self,
                                                      const char * const   *ids,
                                                      GError              **error);
/* Undo of prs_conversation_list_delete (): back in the store and the list
 * (a conversation a workflow started meanwhile under the slug is merged in
 * and leaves the list). */
gboolean         prs_conversation_list_restore       (PrsConversationList  *self,
                                                      const char * const   *ids,
                                                      GError              **error);
/* Archived conversations are items only while shown (the "show-archived"
 * property, FALSE at first); they come last. */
gboolean         prs_conversation_list_set_show_archived (PrsConversationList *self,
                                                      gboolean              show,
                                                      GError              **error);
gboolean         prs_conversation_list_get_show_archived (PrsConversationList *self);
gboolean         prs_conversation_list_mark_read     (PrsConversationList  *self,
                                                      PrsConversation      *conversation,
                                                      GError              **error);
/* Resolves @slug (creating the conversation when it is new); returns it,
 * borrowed from the list. */
PrsConversation *prs_conversation_list_resolve       (PrsConversationList  *self,
                                                      const char           *slug,
                                                      GError              **error);

G_END_DECLS
