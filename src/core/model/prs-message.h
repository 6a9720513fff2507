/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-message.h: one stored message (docs/conversations.md), the items of PrsMessageList.
 * Immutable: a changed message is a new object at the same position. */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define PRS_TYPE_MESSAGE (prs_message_get_type ())
G_DECLARE_FINAL_TYPE (PrsMessage, prs_message, PRS, MESSAGE, GObject)

/* The kinds the store knows (prs-store.h). */
#define PRS_MESSAGE_KIND_USER        "user"
#define PRS_MESSAGE_KIND_ASSISTANT   "assistant"
#define PRS_MESSAGE_KIND_INBOUND     "inbound"
#define PRS_MESSAGE_KIND_TOOL_CALL   "tool-call"
#define PRS_MESSAGE_KIND_TOOL_RESULT "tool-result"
#define PRS_MESSAGE_KIND_NOTICE      "notice"

/* From one element of prs_store_list_messages () / prs_store_get_message ():
 * {id, conversationId, seq, kind, content, status, agentId, context,
 *  execution, extra, createdAt, supersededAt}. */
PrsMessage  *prs_message_new_from_json        (JsonObject *object);

const char  *prs_message_get_id               (PrsMessage *self);
const char  *prs_message_get_conversation_id  (PrsMessage *self);
gint64       prs_message_get_seq              (PrsMessage *self);
const char  *prs_message_get_kind             (PrsMessage *self);
gboolean     prs_message_is_kind              (PrsMessage *self,
                                               const char *kind);
const char  *prs_message_get_content          (PrsMessage *self);
const char  *prs_message_get_status           (PrsMessage *self);
const char  *prs_message_get_agent_id         (PrsMessage *self);
/* The Request Context (an object), or NULL. */
JsonObject  *prs_message_get_context          (PrsMessage *self);
/* The nodes as stored, or NULL when absent. */
JsonNode    *prs_message_get_context_node     (PrsMessage *self);
JsonNode    *prs_message_get_execution        (PrsMessage *self);
JsonNode    *prs_message_get_extra            (PrsMessage *self);
/* A string member of execution / extra, or NULL. */
const char  *prs_message_get_execution_string (PrsMessage *self,
                                               const char *member);
const char  *prs_message_get_extra_string     (PrsMessage *self,
                                               const char *member);
/* The message whose row shows @self: a tool's answer (tool-result) is on
 * its call's card (docs/conversations.md#messages), so its call; any
 * other message itself */
const char  *prs_message_get_shown_id         (PrsMessage *self);
/* Local time, or NULL. */
GDateTime   *prs_message_get_created_at       (PrsMessage *self);
/* When Regenerate or Edit and Resend replaced it (local time), or NULL
 * for a message that stands. */
GDateTime   *prs_message_get_superseded_at    (PrsMessage *self);

G_END_DECLS
