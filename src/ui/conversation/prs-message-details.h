/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-message-details.h: the parts of a message row that tell about the
 * message and act on it (prs-message-row builds them). */
#pragma once

#include <gtk/gtk.h>

#include "prs-message.h"

G_BEGIN_DECLS

/* Provider, model, tokens in and out, time to the first token and in
 * all, and the providers that failed first: a popover's content. */
GtkWidget *prs_message_details_new         (PrsMessage *message);
/* An icon button that shows it. */
GtkWidget *prs_message_details_button_new  (PrsMessage *message);
/* "NAME failed: WHY. OTHER answered instead.", or NULL without a failover. */
GtkWidget *prs_message_failover_notice_new (PrsMessage *message);
/* The message's menu: Copy Text, Copy as Markdown, and Regenerate / Edit
 * and Resend where they apply (the message-row.* actions). */
GtkWidget *prs_message_actions_button_new  (gboolean    can_regenerate,
                                            gboolean    can_edit);

G_END_DECLS
