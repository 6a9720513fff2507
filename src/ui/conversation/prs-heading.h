/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-heading.h: a card's heading: an icon, a title and a badge (a tool
 * card's name and status). The badge sits at the end of the title's line
 * when both fit there, and under the title otherwise, so that a narrow
 * card breaks neither the title nor the badge (docs/conversations.md
 * "The window"). Its children, in order, from a .ui file. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define PRS_TYPE_HEADING (prs_heading_get_type ())
G_DECLARE_FINAL_TYPE (PrsHeading, prs_heading, PRS, HEADING, GtkWidget)

/* TRUE when the badge was last given the title's line */
gboolean prs_heading_badge_beside (PrsHeading *self);

G_END_DECLS
