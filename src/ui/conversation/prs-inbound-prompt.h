/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-inbound-prompt.h: a workflow's prompt in the conversation, folded to
 * its first lines, with "Show All" under it when the fold cuts it at the
 * width it is given (docs/conversations.md "Messages"). */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define PRS_TYPE_INBOUND_PROMPT (prs_inbound_prompt_get_type ())
G_DECLARE_FINAL_TYPE (PrsInboundPrompt, prs_inbound_prompt, PRS, INBOUND_PROMPT, GtkWidget)

GtkWidget *prs_inbound_prompt_new          (const char       *prompt);
/* Whether "Show All" (or "Show Less") was given room at the last allocation */
gboolean   prs_inbound_prompt_has_show_all (PrsInboundPrompt *self);

G_END_DECLS
