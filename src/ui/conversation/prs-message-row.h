/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-message-row.h: one message of the conversation view, per kind
 * (docs/conversations.md): user bubbles on the right, assistant bubbles with the agent's
 * name and the reply's blocks (docs/layout.md), compact inbound rows with the
 * workflow and execution, notices, and tool cards. A message with a Request
 * Context shows it in an expander, and its openLink as an icon in the
 * bubble's top-right corner. */
#pragma once

#include <gtk/gtk.h>

#include "prs-message.h"

G_BEGIN_DECLS

#define PRS_TYPE_MESSAGE_ROW (prs_message_row_get_type ())
G_DECLARE_FINAL_TYPE (PrsMessageRow, prs_message_row, PRS, MESSAGE_ROW, GtkWidget)

typedef enum
{
  PRS_MESSAGE_ROW_CAN_REGENERATE = 1 << 0,   /* the last reply */
  PRS_MESSAGE_ROW_CAN_EDIT       = 1 << 1,   /* the person's last message */
} PrsMessageRowFlags;

GtkWidget  *prs_message_row_new                  (void);
/* @agent_name: the name to show for an assistant message (NULL: its id);
 * @flags: what the message's menu offers besides copying. A superseded
 * message is shown folded. */
void        prs_message_row_set_message          (PrsMessageRow      *self,
                                                  PrsMessage         *message,
                                                  const char         *agent_name,
                                                  PrsMessageRowFlags  flags);
/* The message a search opened the conversation at */
void        prs_message_row_set_highlighted      (PrsMessageRow *self,
                                                  gboolean       highlighted);
PrsMessage *prs_message_row_get_message          (PrsMessageRow *self);

/* Parts tests and the view look at; NULL when the message has none. */
GtkWidget  *prs_message_row_get_link_button      (PrsMessageRow *self);
GtkWidget  *prs_message_row_get_context_expander (PrsMessageRow *self);
GtkWidget  *prs_message_row_get_tool_card        (PrsMessageRow *self);
/* The Retry button of an inbound message whose run failed (docs/api.md). */
GtkWidget  *prs_message_row_get_retry_button     (PrsMessageRow *self);
/* A reply's details button and a message's menu button */
GtkWidget  *prs_message_row_get_details_button   (PrsMessageRow *self);
GtkWidget  *prs_message_row_get_actions_button   (PrsMessageRow *self);
/* What Copy Text (a reply's Markdown as plain text, its lines kept) and
 * Copy as Markdown (the text as stored) put on the clipboard. */
char       *prs_message_row_dup_text             (PrsMessage    *message,
                                                  gboolean       markdown);
/* The blocks of the reply, in order: PrsKvGrid and PrsMarkdownView. */
GPtrArray  *prs_message_row_get_blocks           (PrsMessageRow *self);

/* The pretty-printed Request Context as a row shows it: at most
 * @max_bytes (cut at a character boundary, with "…" added). */
char       *prs_message_row_format_context       (JsonNode      *context,
                                                  gsize          max_bytes);

G_END_DECLS
