/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-markdown-view.c: a reply's Markdown as widgets under a real X server
 * (Xvfb): every block and span md4c reads, links only on allowed schemes,
 * no image fetched; a 1 MiB reply shown as plain text at once. */
#include "config.h"

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

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  gtk_init ();
  adw_init ();

  g_test_add_func ("/ui/markdown/render", test_markdown);
  g_test_add_func ("/ui/markdown/huge", test_markdown_huge);

  return g_test_run ();
}
