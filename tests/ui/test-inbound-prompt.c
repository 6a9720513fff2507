/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-inbound-prompt.c: a workflow's prompt in the conversation
 * (docs/conversations.md). A long one shows its first lines; "Show All"
 * (a button, reached with the keyboard, saying whether it is expanded)
 * shows the whole text, laid out only then, and "Show Less" folds it again;
 * the message menu's Copy Text copies all of it. Whether it is cut is
 * decided by the lines it wraps to at the width it has: a short prompt
 * gets "Show All" in a narrow window and not in a wide one, and has it
 * exactly when the label ellipsizes. In a real window under Xvfb, 360 and
 * 1280 wide. */
#include "config.h"

#include <adwaita.h>

#include "prs-inbound-prompt.h"
#include "prs-message-row.h"
#include "prs-ui-test-util.h"

static gboolean
button_says (GtkWidget *widget,
             gpointer   data)
{
  return g_strcmp0 (gtk_button_get_label (GTK_BUTTON (widget)), data) == 0;
}

static GtkWidget *
find_button (GtkWidget  *root,
             const char *label)
{
  return prs_test_find_widget (root, GTK_TYPE_BUTTON, button_says, (gpointer) label);
}

static gboolean
label_is_prompt (GtkWidget *widget,
                 gpointer   data)
{
  return gtk_widget_has_css_class (widget, "inbound-prompt");
}

/* The height @row asks for at the width it has */
static int
row_height (GtkWidget *row)
{
  int height = 0;

  gtk_widget_measure (row, GTK_ORIENTATION_VERTICAL, gtk_widget_get_width (row), NULL, &height, NULL, NULL);
  return height;
}

/* Whether the prompt's "Show All" shows: room given, drawn */
static gboolean
shows_show_all (GtkWidget *row)
{
  GtkWidget *prompt = prs_test_find_widget (row, PRS_TYPE_INBOUND_PROMPT, NULL, NULL);
  GtkWidget *button = find_button (row, "Show All");

  if (button == NULL)
    button = find_button (row, "Show Less");
  g_assert_nonnull (prompt);
  g_assert_nonnull (button);
  g_assert_cmpint (gtk_widget_get_mapped (button), ==, prs_inbound_prompt_has_show_all (PRS_INBOUND_PROMPT (prompt)));
  return gtk_widget_get_mapped (button);
}

/* Whether the prompt's label cut its text with an ellipsis */
static gboolean
label_is_cut (GtkWidget *row)
{
  GtkWidget *label = prs_test_find_widget (row, GTK_TYPE_LABEL, label_is_prompt, NULL);

  g_assert_nonnull (label);
  return pango_layout_is_ellipsized (gtk_label_get_layout (GTK_LABEL (label)));
}

static GtkWidget *
show_inbound (GtkWindow  *window,
              const char *prompt)
{
  g_autoptr(JsonObject) object = json_object_new ();
  g_autoptr(PrsMessage) message = NULL;
  GtkWidget *row = prs_message_row_new ();

  json_object_set_string_member (object, "id", "m1");
  json_object_set_string_member (object, "conversationId", "c1");
  json_object_set_string_member (object, "kind", "inbound");
  json_object_set_string_member (object, "content", prompt);
  json_object_set_string_member (object, "status", "completed");
  json_object_set_string_member (object, "createdAt", "2026-12-04T05:00:00Z");
  message = prs_message_new_from_json (object);
  prs_message_row_set_message (PRS_MESSAGE_ROW (row), message, NULL, 0);
  gtk_window_set_child (window, row);
  prs_test_wait_frames (GTK_WIDGET (window), 3);
  return row;
}

static void
check_long_prompt (int width)
{
  GtkWindow *window = GTK_WINDOW (gtk_window_new ());
  g_autoptr(GString) prompt = g_string_new (NULL);
  g_autofree char *copied = NULL;
  g_autofree char *name = NULL;
  GtkWidget *row, *label, *button;
  int folded;

  for (guint i = 0; i < 300; i++)
    g_string_append_printf (prompt, "word%u ", i);
  g_string_append (prompt, "THE-END");

  gtk_window_set_default_size (window, width, 700);
  gtk_window_present (window);
  row = show_inbound (window, prompt->str);
  label = prs_test_find_widget (row, GTK_TYPE_LABEL, label_is_prompt, NULL);
  g_assert_nonnull (label);
  g_assert_cmpint (gtk_label_get_lines (GTK_LABEL (label)), ==, 4);
  g_assert_null (strstr (gtk_label_get_text (GTK_LABEL (label)), "THE-END"));
  folded = row_height (row);

  button = find_button (row, "Show All");
  g_assert_nonnull (button);
  g_assert_true (gtk_widget_get_focusable (button));
  g_assert_true (shows_show_all (row));
  name = g_strdup_printf ("inbound-prompt-%d-folded", width);
  prs_test_screenshot (GTK_WIDGET (window), name);

  /* Enter on the focused button, as a person at the keyboard */
  gtk_widget_grab_focus (button);
  prs_test_press_keys (button, "Return");
  prs_test_wait_frames (GTK_WIDGET (window), 3);
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (label)), ==, prompt->str);
  g_assert_cmpint (gtk_label_get_lines (GTK_LABEL (label)), ==, -1);
  g_assert_cmpstr (gtk_button_get_label (GTK_BUTTON (button)), ==, "Show Less");
  g_test_message ("%d wide: %d px folded, %d px shown whole", width, folded, row_height (row));
  g_assert_cmpint (row_height (row), >, folded);
  g_free (name);
  name = g_strdup_printf ("inbound-prompt-%d-all", width);
  prs_test_screenshot (GTK_WIDGET (window), name);

  prs_test_click (button);
  prs_test_wait_frames (GTK_WIDGET (window), 3);
  g_assert_cmpint (gtk_label_get_lines (GTK_LABEL (label)), ==, 4);
  g_assert_cmpstr (gtk_button_get_label (GTK_BUTTON (button)), ==, "Show All");
  g_assert_cmpint (row_height (row), ==, folded);

  /* The message menu is there, and Copy Text takes the whole prompt */
  g_assert_nonnull (prs_message_row_get_actions_button (PRS_MESSAGE_ROW (row)));
  copied = prs_message_row_dup_text (prs_message_row_get_message (PRS_MESSAGE_ROW (row)), FALSE);
  g_assert_nonnull (strstr (copied, "THE-END"));

  gtk_window_destroy (window);
}

static void
test_long_prompt (void)
{
  check_long_prompt (360);
  check_long_prompt (1280);
}

/* A prompt of many short lines is cut by lines, not characters */
static void
test_many_lines (void)
{
  GtkWindow *window = GTK_WINDOW (gtk_window_new ());
  GtkWidget *row;

  gtk_window_set_default_size (window, 1280, 700);
  gtk_window_present (window);
  row = show_inbound (window, "one\ntwo\nthree\nfour\nfive\nsix");
  g_assert_true (shows_show_all (row));

  row = show_inbound (window, "A short request from a workflow.");
  g_assert_false (shows_show_all (row));
  gtk_window_destroy (window);
}

/* 300 characters on one line: three lines wide, nine at 360 px. The same
 * row, its window resized, decides again; Show All then shows it whole */
static void
test_short_wraps (void)
{
  GtkWindow *window = GTK_WINDOW (gtk_window_new ());
  g_autoptr(GString) prompt = g_string_new (NULL);
  GtkWidget *row, *label, *button;
  int folded;

  while (prompt->len < 290)
    g_string_append (prompt, "Please file the invoice. ");
  g_string_append (prompt, "THE-END");
  g_assert_cmpint (g_utf8_strlen (prompt->str, -1), <, 600);

  gtk_window_set_default_size (window, 1280, 700);
  gtk_window_present (window);
  row = show_inbound (window, prompt->str);
  g_assert_false (shows_show_all (row));
  g_assert_false (label_is_cut (row));

  gtk_window_set_default_size (window, 360, 700);
  prs_test_wait_frames (GTK_WIDGET (window), 4);
  g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (window)), ==, 360);
  g_assert_true (label_is_cut (row));
  g_assert_true (shows_show_all (row));
  prs_test_screenshot (GTK_WIDGET (window), "inbound-prompt-short-360-folded");
  folded = row_height (row);

  button = find_button (row, "Show All");
  prs_test_click (button);
  prs_test_wait_frames (GTK_WIDGET (window), 3);
  label = prs_test_find_widget (row, GTK_TYPE_LABEL, label_is_prompt, NULL);
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (label)), ==, prompt->str);
  g_assert_false (label_is_cut (row));
  g_assert_true (shows_show_all (row));
  g_assert_cmpstr (gtk_button_get_label (GTK_BUTTON (button)), ==, "Show Less");
  g_assert_cmpint (row_height (row), >, folded);
  prs_test_screenshot (GTK_WIDGET (window), "inbound-prompt-short-360-all");
  gtk_window_destroy (window);
}

/* Prompts of every length up to the cut, at both widths: the button shows
 * exactly when the label ellipsizes, so none is cut without it and none
 * has it for nothing */
static void
test_button_iff_cut (void)
{
  const int widths[] = { 360, 1280 };

  for (guint w = 0; w < G_N_ELEMENTS (widths); w++)
    {
      GtkWindow *window = GTK_WINDOW (gtk_window_new ());
      guint with = 0, without = 0;

      gtk_window_set_default_size (window, widths[w], 700);
      gtk_window_present (window);
      for (guint chars = 60; chars <= 600; chars += 45)
        {
          g_autoptr(GString) prompt = g_string_new (NULL);
          GtkWidget *row;

          while (prompt->len + 6 <= chars)
            g_string_append (prompt, "words ");
          row = show_inbound (window, prompt->str);
          g_assert_cmpint (shows_show_all (row), ==, label_is_cut (row));
          if (shows_show_all (row))
            with++;
          else
            without++;
        }
      g_test_message ("%d wide: %u prompts with Show All, %u without", widths[w], with, without);
      /* Both cases happen at each width, so the check above compares something */
      g_assert_cmpuint (with, >, 0);
      g_assert_cmpuint (without, >, 0);
      gtk_window_destroy (window);
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  gtk_init ();
  adw_init ();

  g_test_add_func ("/ui/inbound-prompt/long", test_long_prompt);
  g_test_add_func ("/ui/inbound-prompt/many-lines", test_many_lines);
  g_test_add_func ("/ui/inbound-prompt/short-wraps", test_short_wraps);
  g_test_add_func ("/ui/inbound-prompt/button-iff-cut", test_button_iff_cut);
  return g_test_run ();
}
