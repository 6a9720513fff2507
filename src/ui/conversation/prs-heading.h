/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-heading.h: a heading: an optional icon (a GtkImage), a title and a
 * badge (a tool card's name and status; a page's title and description
 * and its buttons). The badge sits at the end of the title's line when
 * both fit there, and under the title otherwise, so that a narrow card
 * breaks neither the title nor the badge (docs/conversations.md "The
 * window"). Its children, in order, from a .ui file. A badge whose valign
 * is GTK_ALIGN_CENTER sits in the middle of the title's lines beside it. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define PRS_TYPE_HEADING (prs_heading_get_type ())
G_DECLARE_FINAL_TYPE (PrsHeading, prs_heading, PRS, HEADING, GtkWidget)

/* TRUE when the badge was last given the title's line */
gboolean prs_heading_badge_beside    (PrsHeading *self);
/* The width the title needs beside the badge, when less than its natural
 * width: a wrapping paragraph may wrap beside buttons, down to @width.
 * -1 (the default): its natural width, for a name that must not break. */
void     prs_heading_set_title_width (PrsHeading *self,
                                      int         width);

G_END_DECLS
