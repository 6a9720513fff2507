/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-conversation.h: one conversation as the window shows it (docs/conversations.md);
 * the items of PrsConversationList. */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

#define PRS_TYPE_CONVERSATION (prs_conversation_get_type ())
G_DECLARE_FINAL_TYPE (PrsConversation, prs_conversation, PRS, CONVERSATION, GObject)

/* One conversation's columns as the store reads them (the strings are
 * borrowed; created_at and updated_at are the store's text). */
typedef struct
{
  const char *id;
  const char *slug;
  const char *title;
  const char *default_agent;
  const char *created_at;
  const char *updated_at;
  gint64      message_count;
  gint64      unread_count;
  gboolean    pinned;
  gboolean    archived;
} PrsConversationFields;

/* A slug and a title have 1 to this many characters (docs/api.md) */
#define PRS_CONVERSATION_MAX_NAME_CHARS 200

/* The rules of a slug, already trimmed (docs/api.md "POST
 * /api/conversations/resolve"): not empty, at most
 * PRS_CONVERSATION_MAX_NAME_CHARS characters, not starting with "slug:".
 * FALSE with a sentence in @error. */
gboolean         prs_conversation_check_slug        (const char  *slug,
                                                     GError     **error);
/* For a title, already trimmed: not empty, one line of at most
 * PRS_CONVERSATION_MAX_NAME_CHARS characters without control characters
 * ("slug:" is allowed). */
gboolean         prs_conversation_check_title       (const char  *title,
                                                     GError     **error);

/* NULL when @fields has no id. */
PrsConversation *prs_conversation_new               (const PrsConversationFields *fields);
/* Takes the other fields (same id); notifies what changed. */
void             prs_conversation_update            (PrsConversation             *self,
                                                     const PrsConversationFields *fields);
/* @self's fields, borrowed from it (as prs_conversation_update takes them) */
void             prs_conversation_get_fields        (PrsConversation             *self,
                                                     PrsConversationFields       *fields);

/* The list's order, as the store sorts: pinned first, archived last, then
 * newest change first, then newest created, then by id. Negative when @a
 * comes first. */
int              prs_conversation_compare           (PrsConversation *a,
                                                     PrsConversation *b);

const char      *prs_conversation_get_id            (PrsConversation *self);
const char      *prs_conversation_get_slug          (PrsConversation *self);
const char      *prs_conversation_get_title         (PrsConversation *self);
const char      *prs_conversation_get_default_agent (PrsConversation *self);
guint            prs_conversation_get_unread_count  (PrsConversation *self);
guint            prs_conversation_get_message_count (PrsConversation *self);
gboolean         prs_conversation_get_pinned        (PrsConversation *self);
gboolean         prs_conversation_get_archived      (PrsConversation *self);
/* Local time of the last change (the last message), or NULL. */
GDateTime       *prs_conversation_get_updated_at    (PrsConversation *self);

G_END_DECLS
