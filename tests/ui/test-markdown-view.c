/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-markdown-view.c: a reply's Markdown as widgets under a real X server
 * (Xvfb): every block and span md4c reads, links only on allowed schemes,
 * no image fetched; a 1 MiB reply shown as plain text at once. */
#include "config.h"

#include "prs-launcher.h"
#include "prs-markdown-view.h"
#include "prs-ui-test-util.h"

static void
test_markdown (void)
{
  GtkWidget *window = gtk_window_new ();
  GtkWidget *view = prs_markdown_view_new ("# Title\n\n"
                                           "Some *em*, **strong** and `code` & more.\n\n"
                                           "- one\n- two\n\n"
                                           "3. three\n4. four\n\n"
                                           "```\nx = 1 < 2\n```\n\n"
                                           "| A | B |\n|---|---|\n| 1 | 2 |\n\n"
                                           "[site](https://example.org) and [bad](javascript:alert(1)) "
                                           "![a chart](https://example.org/chart.png)");
  GtkWidget *code;

  gtk_window_set_child (GTK_WINDOW (window), view);
  gtk_window_present (GTK_WINDOW (window));
  prs_test_wait_frames (window, 1);

  g_assert_true (prs_markdown_view_is_rendered (PRS_MARKDOWN_VIEW (view)));
  g_assert_nonnull (prs_test_find_label (view, "Title"));
  g_assert_true (gtk_widget_has_css_class (prs_test_find_label (view, "Title"), "title-3"));
  g_assert_nonnull (prs_test_find_widget (view, GTK_TYPE_LABEL, prs_test_label_markup_contains, (gpointer) "<i>em</i>"));
  g_assert_nonnull (prs_test_find_widget (view, GTK_TYPE_LABEL, prs_test_label_markup_contains, (gpointer) "<b>strong</b>"));
  g_assert_nonnull (prs_test_find_widget (view, GTK_TYPE_LABEL, prs_test_label_markup_contains, (gpointer) "<tt>code</tt> &amp; more"));
  g_assert_nonnull (prs_test_find_label (view, "•"));
  g_assert_nonnull (prs_test_find_label (view, "4."));
  code = prs_test_find_label (view, "x = 1 < 2");
  g_assert_nonnull (code);
  g_assert_true (gtk_widget_has_css_class (code, "monospace"));
  g_assert_true (prs_test_label_adds_no_hyphens (code));
  g_assert_nonnull (prs_test_find_widget (view, GTK_TYPE_GRID, NULL, NULL));
  g_assert_nonnull (prs_test_find_label (view, "B"));
  g_assert_nonnull (prs_test_find_widget (view, GTK_TYPE_LABEL, prs_test_label_markup_contains,
                                          (gpointer) "<a href=\"https://example.org\">site</a>"));
  /* Schemes off the allowlist are not links; images are their alt text. */
  g_assert_null (prs_test_find_widget (view, GTK_TYPE_LABEL, prs_test_label_markup_contains, (gpointer) "javascript"));
  g_assert_nonnull (prs_test_find_widget (view, GTK_TYPE_LABEL, prs_test_label_markup_contains, (gpointer) "<i>[a chart]</i>"));
  g_assert_null (prs_test_find_widget (view, GTK_TYPE_PICTURE, NULL, NULL));
  g_assert_null (prs_test_find_widget (view, GTK_TYPE_IMAGE, NULL, NULL));

  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_markdown_huge (void)
{
  GString *text = g_string_new (NULL);
  GtkWidget *window = gtk_window_new ();
  GtkWidget *view;
  gint64 started;

  while (text->len < 1024 * 1024)
    g_string_append (text, "A line of a very long reply with **bold** words and https://example.org/ links.\n");

  started = g_get_monotonic_time ();
  view = prs_markdown_view_new (text->str);
  gtk_window_set_child (GTK_WINDOW (window), view);
  gtk_window_present (GTK_WINDOW (window));
  prs_test_wait_frames (window, 1);
  g_test_message ("1 MiB reply: first frame after %.1f ms", (g_get_monotonic_time () - started) / 1000.0);

  g_assert_false (prs_markdown_view_is_rendered (PRS_MARKDOWN_VIEW (view)));
  g_assert_nonnull (prs_test_find_widget (view, GTK_TYPE_TEXT_VIEW, NULL, NULL));
  g_assert_null (prs_test_find_widget (view, GTK_TYPE_LABEL, NULL, NULL));

  gtk_window_destroy (GTK_WINDOW (window));
  g_string_free (text, TRUE);
}

/* ---- a link no app opens ---- */

static void
on_show_toast (GSimpleAction *action,
               GVariant      *parameter,
               gpointer       data)
{
  char **toast = data;

  g_free (*toast);
  *toast = g_variant_dup_string (parameter, NULL);
}

static gboolean
is_set (gpointer data)
{
  return *(char **) data != NULL;
}

/* No app handles the scheme (GTK 4.8 without a portal asks
 * g_app_info_launch_default_for_uri): the window's toast says so, naming
 * the link's kind, and no GTK dialog opens */
static void
test_link_no_app (void)
{
  GtkWidget *window = gtk_window_new ();
  GtkWidget *label = gtk_label_new ("A link");
  g_autoptr(GSimpleActionGroup) group = g_simple_action_group_new ();
  g_autoptr(GSimpleAction) action = g_simple_action_new ("show-toast", G_VARIANT_TYPE_STRING);
  g_autofree char *toast = NULL;
  GListModel *toplevels = gtk_window_get_toplevels ();
  guint n_toplevels;

  g_signal_connect (action, "activate", G_CALLBACK (on_show_toast), &toast);
  g_action_map_add_action (G_ACTION_MAP (group), G_ACTION (action));
  gtk_widget_insert_action_group (window, "win", G_ACTION_GROUP (group));
  gtk_window_set_child (GTK_WINDOW (window), label);
  gtk_window_present (GTK_WINDOW (window));
  prs_test_wait_frames (window, 1);
  n_toplevels = g_list_model_get_n_items (toplevels);

  g_unsetenv ("PRS_TEST_LAUNCH_LOG");
  prs_launcher_open_uri (label, "prs-no-app-opens-this:inbox");
  g_assert_true (prs_test_wait_until (is_set, &toast));
  g_assert_cmpstr (toast, ==, "No app is set up to open “prs-no-app-opens-this:” links.");
  prs_test_wait_frames (window, 2);
  g_assert_cmpuint (g_list_model_get_n_items (toplevels), ==, n_toplevels);

  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  gtk_init ();
  adw_init ();

  g_test_add_func ("/ui/markdown/render", test_markdown);
  g_test_add_func ("/ui/markdown/huge", test_markdown_huge);
  g_test_add_func ("/ui/markdown/link-no-app", test_link_no_app);

  return g_test_run ();
}
