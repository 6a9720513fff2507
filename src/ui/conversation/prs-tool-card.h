/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-tool-card.h: one tool call in an assistant turn (docs/runs.md): the tool,
 * every argument with where it came from, the live status, the result, and
 * the actions tool-card.approve, .deny, .edit, .approve-all and .retry. The
 * actions only emit signals; the run engine acts on them. */
#pragma once

#include <gtk/gtk.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define PRS_TYPE_TOOL_CARD (prs_tool_card_get_type ())
G_DECLARE_FINAL_TYPE (PrsToolCard, prs_tool_card, PRS, TOOL_CARD, GtkWidget)

GtkWidget  *prs_tool_card_new            (void);

/* @arguments: the call's arguments (an object, may be NULL);
 * @provenance: argument name → "model" | "constant" | "user" | "context" |
 *   "context:FIELD" | {"source": …, "field": …} (may be NULL: the model);
 * @status: proposed, running, succeeded, failed, denied, interrupted or
 * cancelled (an MCP client withdrew its call);
 * @result: what the tool returned (may be NULL); @error: may be NULL. */
void        prs_tool_card_set_call       (PrsToolCard *self,
                                          const char  *tool_name,
                                          JsonObject  *arguments,
                                          JsonObject  *provenance,
                                          const char  *status,
                                          JsonNode    *result,
                                          const char  *error);
/* The MCP server whose tool it is (NULL: an n8n workflow). */
void        prs_tool_card_set_server     (PrsToolCard *self,
                                          const char  *server);
/* A running call's progress as its server reports it: @total < 0 when
 * unknown, @progress < 0 for none (hidden); shown only while running. Call
 * after prs_tool_card_set_call (). */
void        prs_tool_card_set_progress   (PrsToolCard *self,
                                          double       progress,
                                          double       total,
                                          const char  *message);
const char *prs_tool_card_get_status     (PrsToolCard *self);
/* The arguments as they would be approved now (edits included), as JSON. */
char       *prs_tool_card_dup_arguments  (PrsToolCard *self);

G_END_DECLS
