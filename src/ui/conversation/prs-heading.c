/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-heading.c: an optional icon, a title and a badge (prs-heading.h).
 *
 * A box would keep the three on one line: at a phone's width the badge
 * took half the card, and a tool's name broke in the middle of a word
 * ("email_move_t" / "o_folder"), the one thing a person must read to
 * approve it. A GtkCustomLayout places them instead: the badge moves
 * under the title's start when the title's natural width (or the width
 * set for a title that wraps) does not leave it room. */
#include "config.h"

#include "prs-heading.h"

#define SPACING 8      /* between the icon, the title and the badge, as the box had */
#define ROW_SPACING 4  /* between the title and a badge under it */

struct _PrsHeading
{
  GtkWidget  parent_instance;
  gboolean   beside;
  int        title_width;   /* -1: the title's natural width */
};

G_DEFINE_FINAL_TYPE (PrsHeading, prs_heading, GTK_TYPE_WIDGET)

typedef struct
{
  GtkWidget *icon, *title, *badge;   /* NULL when absent or hidden */
  int        title_width;            /* prs_heading_set_title_width () */
} Parts;

static Parts
parts_of (GtkWidget *widget)
{
  GtkWidget *child = gtk_widget_get_first_child (widget);
  GtkWidget *found[3] = { NULL, NULL, NULL };
  Parts parts;

  /* No image first: no icon */
  for (guint i = child != NULL && GTK_IS_IMAGE (child) ? 0 : 1;
       i < G_N_ELEMENTS (found) && child != NULL; i++, child = gtk_widget_get_next_sibling (child))
    found[i] = gtk_widget_should_layout (child) ? child : NULL;
  parts.icon = found[0];
  parts.title = found[1];
  parts.badge = found[2];
  parts.title_width = PRS_HEADING (widget)->title_width;
  return parts;
}

static void
measure_child (GtkWidget      *child,
               GtkOrientation  orientation,
               int             for_size,
               int            *minimum,
               int            *natural)
{
  *minimum = *natural = 0;
  if (child != NULL)
    gtk_widget_measure (child, orientation, for_size, minimum, natural, NULL, NULL);
}

/* The icon's width and the spacing after it */
static int
lead_width (const Parts *parts)
{
  int minimum, natural;

  if (parts->icon == NULL)
    return 0;
  measure_child (parts->icon, GTK_ORIENTATION_HORIZONTAL, -1, &minimum, &natural);
  return natural + SPACING;
}

/* Whether the badge fits on the title's line at @width; @title_width is
 * then what the title is given */
static gboolean
badge_fits (const Parts *parts,
            int          width,
            int         *title_width)
{
  int lead = lead_width (parts), title_min, title_nat, badge_min, badge_nat;

  measure_child (parts->title, GTK_ORIENTATION_HORIZONTAL, -1, &title_min, &title_nat);
  measure_child (parts->badge, GTK_ORIENTATION_HORIZONTAL, -1, &badge_min, &badge_nat);
  if (parts->badge == NULL)
    {
      *title_width = MAX (width - lead, title_min);
      return TRUE;
    }
  if (parts->title_width >= 0)
    title_nat = MAX (MIN (title_nat, parts->title_width), title_min);
  if (lead + title_nat + SPACING + badge_nat <= width)
    {
      *title_width = width - lead - SPACING - badge_nat;
      return TRUE;
    }
  *title_width = MAX (width - lead, title_min);
  return FALSE;
}

static GtkSizeRequestMode
heading_request_mode (GtkWidget *widget)
{
  return GTK_SIZE_REQUEST_HEIGHT_FOR_WIDTH;
}

static void
measure_width (const Parts *parts,
               int         *minimum,
               int         *natural)
{
  int lead = lead_width (parts), title_min, title_nat, badge_min, badge_nat;

  measure_child (parts->title, GTK_ORIENTATION_HORIZONTAL, -1, &title_min, &title_nat);
  measure_child (parts->badge, GTK_ORIENTATION_HORIZONTAL, -1, &badge_min, &badge_nat);
  /* The badge can always go under the title */
  *minimum = lead + MAX (title_min, badge_min);
  *natural = lead + title_nat + (parts->badge != NULL ? SPACING + badge_nat : 0);
}

static void
heading_measure (GtkWidget      *widget,
                 GtkOrientation  orientation,
                 int             for_size,
                 int            *minimum,
                 int            *natural,
                 int            *minimum_baseline,
                 int            *natural_baseline)
{
  Parts parts = parts_of (widget);
  int title_width, icon_min, icon_nat, title_min, title_nat, badge_min, badge_nat;
  gboolean beside;

  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    {
      measure_width (&parts, minimum, natural);
      return;
    }
  if (for_size < 0)
    measure_width (&parts, &icon_min, &for_size);
  beside = badge_fits (&parts, for_size, &title_width);
  measure_child (parts.icon, orientation, -1, &icon_min, &icon_nat);
  measure_child (parts.title, orientation, title_width, &title_min, &title_nat);
  measure_child (parts.badge, orientation, -1, &badge_min, &badge_nat);
  if (beside)
    {
      *minimum = MAX (MAX (icon_min, title_min), badge_min);
      *natural = MAX (MAX (icon_nat, title_nat), badge_nat);
    }
  else
    {
      *minimum = MAX (icon_min, title_min) + ROW_SPACING + badge_min;
      *natural = MAX (icon_nat, title_nat) + ROW_SPACING + badge_nat;
    }
}

/* @child at @x (from the start of the reading direction) */
static void
place (GtkWidget *child,
       int        widget_width,
       int        x,
       int        y,
       int        width,
       int        height)
{
  if (child == NULL)
    return;
  if (gtk_widget_get_direction (child) == GTK_TEXT_DIR_RTL)
    x = widget_width - x - width;
  gtk_widget_size_allocate (child, &(GtkAllocation) { x, y, width, height }, -1);
}

static void
heading_allocate (GtkWidget *widget,
                  int        width,
                  int        height,
                  int        baseline)
{
  PrsHeading *self = PRS_HEADING (widget);
  Parts parts = parts_of (widget);
  int lead = lead_width (&parts), title_width, row, unused, icon_h, title_h, badge_w, badge_h;

  self->beside = badge_fits (&parts, width, &title_width);
  measure_child (parts.icon, GTK_ORIENTATION_VERTICAL, -1, &unused, &icon_h);
  measure_child (parts.title, GTK_ORIENTATION_VERTICAL, title_width, &unused, &title_h);
  measure_child (parts.badge, GTK_ORIENTATION_HORIZONTAL, -1, &unused, &badge_w);
  measure_child (parts.badge, GTK_ORIENTATION_VERTICAL, -1, &unused, &badge_h);
  row = MAX (icon_h, title_h);

  /* The icon beside the title's lines, the badge at the top of its place
   * (beside them, in their middle when its valign says so: an agent's id
   * at the end of its row, as a row's suffix) */
  place (parts.icon, width, 0, 0, MAX (lead - SPACING, 0), row);
  place (parts.title, width, lead, 0, title_width, row);
  if (self->beside)
    place (parts.badge, width, width - badge_w,
           gtk_widget_get_valign (parts.badge) == GTK_ALIGN_CENTER ? MAX ((row - badge_h) / 2, 0) : 0,
           badge_w, badge_h);
  else
    place (parts.badge, width, lead, row + ROW_SPACING, MIN (badge_w, MAX (width - lead, 0)), badge_h);
}

static void
prs_heading_dispose (GObject *object)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (object))) != NULL)
    gtk_widget_unparent (child);
  G_OBJECT_CLASS (prs_heading_parent_class)->dispose (object);
}

static void
prs_heading_class_init (PrsHeadingClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = prs_heading_dispose;
  /* As the box it replaces */
  gtk_widget_class_set_accessible_role (GTK_WIDGET_CLASS (klass), GTK_ACCESSIBLE_ROLE_GROUP);
}

static void
prs_heading_init (PrsHeading *self)
{
  self->beside = TRUE;
  self->title_width = -1;
  gtk_widget_set_layout_manager (GTK_WIDGET (self),
                                 gtk_custom_layout_new (heading_request_mode, heading_measure, heading_allocate));
}

gboolean
prs_heading_badge_beside (PrsHeading *self)
{
  g_return_val_if_fail (PRS_IS_HEADING (self), FALSE);

  return self->beside;
}

void
prs_heading_set_title_width (PrsHeading *self,
                             int         width)
{
  g_return_if_fail (PRS_IS_HEADING (self));

  if (self->title_width == width)
    return;
  self->title_width = width;
  gtk_widget_queue_resize (GTK_WIDGET (self));
}
