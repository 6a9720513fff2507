/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-inbound-prompt.c: a workflow's prompt, folded (prs-inbound-prompt.h).
 *
 * The prompt shows FOLD_LINES lines (and at most MAX_CHARS characters) so
 * that one long request does not fill the list; one cut so gets "Show All",
 * which lays the whole text out only when pressed, and "Show Less" back.
 * Whether the fold cuts depends on the width: 300 characters are three
 * lines in a wide window and nine at a phone's 360 px. Counting characters
 * left a short prompt cut with no way to read the rest, so a
 * GtkCustomLayout asks, for each width it is measured at, how many lines
 * the prompt wraps to there (a PangoLayout of the label's font, at most
 * MAX_CHARS characters), and gives the button room only then: the height
 * asked for is the height drawn, and nothing waits for a second frame. */
#include "config.h"

#include <glib/gi18n.h>

#include "prs-inbound-prompt.h"

#define FOLD_LINES 4
#define MAX_CHARS  600
#define SPACING    2   /* between the prompt and the button, as the box had */

struct _PrsInboundPrompt
{
  GtkWidget  parent_instance;

  GtkWidget *label;
  GtkWidget *button;
  char      *prompt;
  gboolean   all;
  gboolean   long_anyway;   /* cut whatever the width: more lines or characters */
  gboolean   has_show_all;
};

G_DEFINE_FINAL_TYPE (PrsInboundPrompt, prs_inbound_prompt, GTK_TYPE_WIDGET)

/* Whether @prompt is cut in the first lines whatever the window's width */
static gboolean
prompt_is_long (const char *prompt)
{
  guint lines = 1;

  for (const char *p = prompt; *p != '\0'; p++)
    lines += *p == '\n';
  return lines > FOLD_LINES || g_utf8_strlen (prompt, -1) > MAX_CHARS;
}

/* Whether the prompt, laid out as the label lays it out at @width, takes
 * more than FOLD_LINES lines: whether the label ellipsizes it there. The
 * label has no padding of its own, so its text is as wide as the label.
 * About 0.1 ms of CPU for 300 characters, once per width measured. */
static gboolean
wraps_past_fold (PrsInboundPrompt *self,
                 int               width)
{
  g_autoptr(PangoLayout) layout = NULL;

  if (self->long_anyway)
    return TRUE;
  if (width <= 0)
    return FALSE;
  layout = gtk_widget_create_pango_layout (self->label, self->prompt);
  pango_layout_set_wrap (layout, PANGO_WRAP_WORD_CHAR);
  pango_layout_set_width (layout, width * PANGO_SCALE);
  pango_layout_set_height (layout, -FOLD_LINES);
  pango_layout_set_ellipsize (layout, PANGO_ELLIPSIZE_END);
  return pango_layout_is_ellipsized (layout);
}

static void
show_prompt (PrsInboundPrompt *self)
{
  GtkLabel *label = GTK_LABEL (self->label);

  if (!self->all && g_utf8_strlen (self->prompt, -1) > MAX_CHARS)
    {
      g_autofree char *cut = g_utf8_substring (self->prompt, 0, MAX_CHARS - 1);
      g_autofree char *shown = g_strconcat (cut, "…", NULL);

      gtk_label_set_text (label, shown);
    }
  else
    gtk_label_set_text (label, self->prompt);
  gtk_label_set_lines (label, self->all ? -1 : FOLD_LINES);
  gtk_label_set_ellipsize (label, self->all ? PANGO_ELLIPSIZE_NONE : PANGO_ELLIPSIZE_END);
}

static void
on_show_all_clicked (GtkButton        *button,
                     PrsInboundPrompt *self)
{
  self->all = !self->all;
  show_prompt (self);
  gtk_button_set_label (button, self->all ? _("Show Less") : _("Show All"));
  gtk_widget_set_tooltip_text (GTK_WIDGET (button), self->all ? _("Show the first lines of the prompt")
                                                              : _("Show the whole prompt"));
  gtk_accessible_update_state (GTK_ACCESSIBLE (button), GTK_ACCESSIBLE_STATE_EXPANDED, self->all, -1);
}

static GtkSizeRequestMode
prompt_request_mode (GtkWidget *widget)
{
  return GTK_SIZE_REQUEST_HEIGHT_FOR_WIDTH;
}

/* The button's width counts whether or not it shows: a width cannot
 * depend on the width */
static void
measure_width (PrsInboundPrompt *self,
               int              *minimum,
               int              *natural)
{
  int label_min, label_nat, button_min, button_nat;

  gtk_widget_measure (self->label, GTK_ORIENTATION_HORIZONTAL, -1, &label_min, &label_nat, NULL, NULL);
  gtk_widget_measure (self->button, GTK_ORIENTATION_HORIZONTAL, -1, &button_min, &button_nat, NULL, NULL);
  *minimum = MAX (label_min, button_min);
  *natural = MAX (label_nat, button_nat);
}

static void
prompt_measure (GtkWidget      *widget,
                GtkOrientation  orientation,
                int             for_size,
                int            *minimum,
                int            *natural,
                int            *minimum_baseline,
                int            *natural_baseline)
{
  PrsInboundPrompt *self = PRS_INBOUND_PROMPT (widget);
  int unused, button_min, button_nat;

  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    {
      measure_width (self, minimum, natural);
      return;
    }
  if (for_size < 0)
    measure_width (self, &unused, &for_size);
  gtk_widget_measure (self->label, orientation, for_size, minimum, natural, NULL, NULL);
  if (wraps_past_fold (self, for_size))
    {
      gtk_widget_measure (self->button, orientation, -1, &button_min, &button_nat, NULL, NULL);
      *minimum += SPACING + button_min;
      *natural += SPACING + button_nat;
    }
}

static void
prompt_allocate (GtkWidget *widget,
                 int        width,
                 int        height,
                 int        baseline)
{
  PrsInboundPrompt *self = PRS_INBOUND_PROMPT (widget);
  gboolean show_all = wraps_past_fold (self, width);
  int unused, label_h, button_w, button_h = 0, x = 0;

  /* A child the layout hides, as GtkStack hides its pages: not drawn,
   * not focused, not read out */
  if (show_all != self->has_show_all)
    {
      gtk_widget_set_child_visible (self->button, show_all);
      gtk_accessible_update_state (GTK_ACCESSIBLE (self->button), GTK_ACCESSIBLE_STATE_HIDDEN, !show_all, -1);
      self->has_show_all = show_all;
    }
  if (show_all)
    gtk_widget_measure (self->button, GTK_ORIENTATION_VERTICAL, -1, &unused, &button_h, NULL, NULL);
  label_h = show_all ? MAX (height - SPACING - button_h, 0) : height;
  gtk_widget_size_allocate (self->label, &(GtkAllocation) { 0, 0, width, label_h }, -1);
  if (!show_all)
    return;
  gtk_widget_measure (self->button, GTK_ORIENTATION_HORIZONTAL, -1, &unused, &button_w, NULL, NULL);
  button_w = MIN (button_w, width);
  if (gtk_widget_get_direction (widget) == GTK_TEXT_DIR_RTL)
    x = width - button_w;
  gtk_widget_size_allocate (self->button, &(GtkAllocation) { x, label_h + SPACING, button_w, button_h }, -1);
}

static void
prs_inbound_prompt_dispose (GObject *object)
{
  PrsInboundPrompt *self = PRS_INBOUND_PROMPT (object);

  g_clear_pointer (&self->label, gtk_widget_unparent);
  g_clear_pointer (&self->button, gtk_widget_unparent);
  G_OBJECT_CLASS (prs_inbound_prompt_parent_class)->dispose (object);
}

static void
prs_inbound_prompt_finalize (GObject *object)
{
  PrsInboundPrompt *self = PRS_INBOUND_PROMPT (object);

  g_free (self->prompt);
  G_OBJECT_CLASS (prs_inbound_prompt_parent_class)->finalize (object);
}

static void
prs_inbound_prompt_class_init (PrsInboundPromptClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = prs_inbound_prompt_dispose;
  object_class->finalize = prs_inbound_prompt_finalize;
  /* As the box it replaces */
  gtk_widget_class_set_accessible_role (GTK_WIDGET_CLASS (klass), GTK_ACCESSIBLE_ROLE_GROUP);
}

static void
prs_inbound_prompt_init (PrsInboundPrompt *self)
{
  gtk_widget_set_layout_manager (GTK_WIDGET (self),
                                 gtk_custom_layout_new (prompt_request_mode, prompt_measure, prompt_allocate));

  self->label = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (self->label), 0.0);
  gtk_label_set_wrap (GTK_LABEL (self->label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (self->label), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_selectable (GTK_LABEL (self->label), TRUE);
  gtk_widget_set_can_focus (self->label, FALSE);
  gtk_widget_add_css_class (self->label, "inbound-prompt");
  gtk_widget_set_parent (self->label, GTK_WIDGET (self));

  self->button = gtk_button_new_with_label (_("Show All"));
  gtk_widget_add_css_class (self->button, "flat");
  gtk_widget_add_css_class (self->button, "small");
  gtk_widget_add_css_class (self->button, "inbound-show-all");
  gtk_widget_set_tooltip_text (self->button, _("Show the whole prompt"));
  gtk_accessible_update_state (GTK_ACCESSIBLE (self->button), GTK_ACCESSIBLE_STATE_EXPANDED, FALSE, -1);
  gtk_accessible_update_relation (GTK_ACCESSIBLE (self->button),
                                  GTK_ACCESSIBLE_RELATION_CONTROLS, self->label, NULL, -1);
  g_signal_connect_object (self->button, "clicked", G_CALLBACK (on_show_all_clicked), self, 0);
  gtk_accessible_update_state (GTK_ACCESSIBLE (self->button), GTK_ACCESSIBLE_STATE_HIDDEN, TRUE, -1);
  gtk_widget_set_child_visible (self->button, FALSE);
  gtk_widget_set_parent (self->button, GTK_WIDGET (self));
}

GtkWidget *
prs_inbound_prompt_new (const char *prompt)
{
  PrsInboundPrompt *self;

  g_return_val_if_fail (prompt != NULL, NULL);

  self = g_object_new (PRS_TYPE_INBOUND_PROMPT, NULL);
  self->prompt = g_strdup (prompt);
  self->long_anyway = prompt_is_long (prompt);
  show_prompt (self);
  return GTK_WIDGET (self);
}

gboolean
prs_inbound_prompt_has_show_all (PrsInboundPrompt *self)
{
  g_return_val_if_fail (PRS_IS_INBOUND_PROMPT (self), FALSE);

  return self->has_show_all;
}
