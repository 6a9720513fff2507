/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-markdown-view.c: a reply's Markdown as widgets under a real X server
 * (Xvfb): every block and span md4c reads, links only on allowed schemes,
 * no image fetched; a 1 MiB reply shown as plain text at once; a long
 * reply in a real conversation laid out and as tall as its text; a list
 * item's text beside its bullet, wrapped in the rest of the width; a long
 * reply's labels measured at a few widths, never searched for a width; a
 * conversation of long replies opens at its last reply with few of them
 * laid out for the first frame, and the older ones are there above. */
#include "config.h"

#include <string.h>

#include <adwaita.h>

#include "prs-conversation-view.h"
#include "prs-launcher.h"
#include "prs-message-row.h"
#include "prs-markdown-view.h"
#include "prs-text.h"
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

static gboolean
label_longer_than (GtkWidget *widget,
                   gpointer   data)
{
  return strlen (gtk_label_get_label (GTK_LABEL (widget))) > GPOINTER_TO_SIZE (data);
}

/* One paragraph past the label bound is that paragraph as plain text; the
 * rest of the reply stays Markdown, and no label holds more than the bound */
static void
test_markdown_long_block (void)
{
  GString *text = g_string_new ("# Title\n\n");
  GtkWidget *window = gtk_window_new ();
  GtkWidget *view;

  while (text->len < PRS_TEXT_LABEL_MAX_BYTES + 2048)
    g_string_append (text, "One paragraph that goes on and on with no break at all. ");
  g_string_append (text, "\n\n- one\n- **two**\n");
  view = prs_markdown_view_new (text->str);
  gtk_window_set_child (GTK_WINDOW (window), view);
  gtk_window_present (GTK_WINDOW (window));
  prs_test_wait_frames (window, 1);

  g_assert_true (prs_markdown_view_is_rendered (PRS_MARKDOWN_VIEW (view)));
  g_assert_true (gtk_widget_has_css_class (prs_test_find_label (view, "Title"), "md-heading"));
  g_assert_nonnull (prs_test_find_widget (view, GTK_TYPE_LABEL, prs_test_label_markup_contains, (gpointer) "<b>two</b>"));
  g_assert_nonnull (prs_test_find_widget (view, GTK_TYPE_TEXT_VIEW, NULL, NULL));
  g_assert_null (prs_test_find_widget (view, GTK_TYPE_LABEL, label_longer_than,
                                       GSIZE_TO_POINTER (PRS_TEXT_LABEL_MAX_BYTES)));

  gtk_window_destroy (GTK_WINDOW (window));
  g_string_free (text, TRUE);
}

/* ---- a long reply in a real conversation ---- */

typedef struct
{
  char       *data_dir;
  PrsService *service;
  PrsWindow  *window;
} Conversation;

/* A data folder with a conversation @slug whose one reply is @reply, its
 * service started and its window shown at 1000 × 700 on it. */
static void
conversation_open_asked (Conversation *c,
                         const char   *slug,
                         const char   *asked,
                         const char   *reply)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsStore) store = NULL;
  g_autofree char *id = NULL;
  PrsMessageInsert question = { 0 }, answer = { 0 };

  c->data_dir = g_dir_make_tmp ("prs-ui-long-reply-XXXXXX", &error);
  g_assert_no_error (error);
  store = prs_store_new (c->data_dir, &error);
  g_assert_no_error (error);
  id = prs_test_resolve_conversation (store, slug);
  question.conversation_id = answer.conversation_id = id;
  question.kind = "user";
  question.content = asked;
  answer.kind = "assistant";
  answer.agent_id = "prosponsive";
  answer.status = "completed";
  answer.content = reply;
  g_assert_true (prs_store_insert_message (store, &question, NULL, NULL, &error));
  g_assert_true (prs_store_insert_message (store, &answer, NULL, NULL, &error));
  g_assert_no_error (error);
  g_clear_object (&store);

  c->service = prs_service_new (c->data_dir, prs_test_free_port ());
  g_assert_true (prs_service_start (c->service, &error));
  g_assert_no_error (error);
  c->window = g_object_ref_sink (prs_window_new (NULL, c->service));
  gtk_window_set_default_size (GTK_WINDOW (c->window), 1000, 700);
  gtk_window_present (GTK_WINDOW (c->window));
  prs_test_wait_frames (GTK_WIDGET (c->window), 3);
  prs_window_select_conversation (c->window, id);
}

static void
conversation_open (Conversation *c,
                   const char   *slug,
                   const char   *reply)
{
  conversation_open_asked (c, slug, "Write the long report, please.", reply);
}

static void
conversation_close (Conversation *c)
{
  gtk_window_destroy (GTK_WINDOW (c->window));
  g_clear_object (&c->window);
  prs_service_stop (c->service);
  g_clear_object (&c->service);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  prs_test_remove_tree (c->data_dir);
  g_free (c->data_dir);
}

static gboolean
has_markdown_view (gpointer data)
{
  Conversation *c = data;

  return prs_test_find_widget (GTK_WIDGET (c->window), PRS_TYPE_MARKDOWN_VIEW, NULL, NULL) != NULL;
}

static gboolean
label_shows (GtkWidget *widget,
             gpointer   data)
{
  return strstr (gtk_label_get_text (GTK_LABEL (widget)), data) != NULL;
}

static int
line_height (GtkWidget *widget)
{
  PangoFontMetrics *metrics = pango_context_get_metrics (gtk_widget_get_pango_context (widget), NULL, NULL);
  int height = PANGO_PIXELS (pango_font_metrics_get_height (metrics));

  pango_font_metrics_unref (metrics);
  return height;
}

/* The audit's reply: 20 KB of Markdown (about 3,000 words) is laid out as
 * Markdown, not shown as its source, and its widget is as tall as its text
 * needs, not two lines in a box */
static void
test_long_reply (void)
{
  g_autofree char *report = prs_test_long_report (20 * 1024);
  Conversation c = { 0 };
  GtkWidget *view, *heading;
  int width, needed;

  g_assert_cmpuint (strlen (report), >, PRS_TEXT_LABEL_MAX_BYTES * 2);
  conversation_open (&c, "long-report", report);
  g_assert_true (prs_test_wait_until (has_markdown_view, &c));
  prs_test_wait_frames (GTK_WIDGET (c.window), 3);
  view = prs_test_find_widget (GTK_WIDGET (c.window), PRS_TYPE_MARKDOWN_VIEW, NULL, NULL);

  g_assert_true (prs_markdown_view_is_rendered (PRS_MARKDOWN_VIEW (view)));
  heading = prs_test_find_label (view, "Long report");
  g_assert_nonnull (heading);
  g_assert_true (gtk_widget_has_css_class (heading, "md-heading"));
  g_assert_nonnull (prs_test_find_label (view, "Part 1"));
  g_assert_nonnull (prs_test_find_widget (view, GTK_TYPE_LABEL, prs_test_label_markup_contains,
                                          (gpointer) "<b>Section 0.</b>"));
  g_assert_null (prs_test_find_widget (view, GTK_TYPE_LABEL, label_shows, (gpointer) "##"));
  g_assert_null (prs_test_find_widget (view, GTK_TYPE_LABEL, label_shows, (gpointer) "**"));
  g_assert_null (prs_test_find_widget (view, GTK_TYPE_TEXT_VIEW, NULL, NULL));

  width = gtk_widget_get_width (view);
  gtk_widget_measure (view, GTK_ORIENTATION_VERTICAL, width, &needed, NULL, NULL, NULL);
  g_test_message ("20 KB reply: %d px wide, %d px tall, needs %d px (a line is %d px)",
                  width, gtk_widget_get_height (view), needed, line_height (view));
  g_assert_cmpint (gtk_widget_get_height (view), >=, needed);
  /* 20 KB of prose is hundreds of lines at any width the window allows */
  g_assert_cmpint (gtk_widget_get_height (view), >=, 100 * line_height (view));

  conversation_close (&c);
}

/* Past the Markdown bound a reply is plain text in a scrolled view of a
 * useful height with its scroll bar shown, not a box two lines tall */
static void
test_long_reply_plain (void)
{
  g_autofree char *report = prs_test_long_report (PRS_MARKDOWN_VIEW_MAX_BYTES + 1024);
  Conversation c = { 0 };
  GtkWidget *view, *scrolled, *bar;

  conversation_open (&c, "longer-report", report);
  g_assert_true (prs_test_wait_until (has_markdown_view, &c));
  prs_test_wait_frames (GTK_WIDGET (c.window), 3);
  view = prs_test_find_widget (GTK_WIDGET (c.window), PRS_TYPE_MARKDOWN_VIEW, NULL, NULL);

  g_assert_false (prs_markdown_view_is_rendered (PRS_MARKDOWN_VIEW (view)));
  scrolled = prs_test_find_widget (view, GTK_TYPE_SCROLLED_WINDOW, NULL, NULL);
  g_assert_nonnull (scrolled);
  g_test_message ("plain reply: %d px tall (a line is %d px)", gtk_widget_get_height (scrolled),
                  line_height (scrolled));
  g_assert_cmpint (gtk_widget_get_height (scrolled), >=, PRS_TEXT_VIEW_HEIGHT);
  g_assert_cmpint (gtk_widget_get_height (scrolled), >=, 20 * line_height (scrolled));
  bar = gtk_scrolled_window_get_vscrollbar (GTK_SCROLLED_WINDOW (scrolled));
  g_assert_true (gtk_widget_get_mapped (bar));
  g_assert_cmpint (gtk_widget_get_width (bar), >, 0);

  conversation_close (&c);
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

/* A list item's text takes the width beside its bullet and wraps there
 * (the item lays the two out itself: prs-markdown-view.c) */
static void
test_list_item (void)
{
  GtkWidget *window = gtk_window_new ();
  GtkWidget *view = prs_markdown_view_new ("- A list item long enough to wrap over a few lines in a narrow "
                                           "window, as items of a long reply do on a phone\n- two\n");
  GtkWidget *bullet, *text;
  graphene_rect_t b, t, row;

  gtk_window_set_default_size (GTK_WINDOW (window), 240, 200);
  gtk_window_set_child (GTK_WINDOW (window), view);
  gtk_window_present (GTK_WINDOW (window));
  prs_test_wait_frames (window, 2);

  bullet = prs_test_find_label (view, "•");
  text = prs_test_find_widget (view, GTK_TYPE_LABEL, label_shows, (gpointer) "A list item long");
  g_assert_nonnull (bullet);
  g_assert_nonnull (text);
  g_assert_true (gtk_widget_compute_bounds (bullet, view, &b));
  g_assert_true (gtk_widget_compute_bounds (text, view, &t));
  g_assert_true (gtk_widget_compute_bounds (gtk_widget_get_parent (text), view, &row));
  g_assert_cmpfloat (b.origin.x + b.size.width, <=, t.origin.x);
  g_assert_cmpfloat_with_epsilon (b.origin.y, t.origin.y, 0.5);
  g_assert_cmpfloat_with_epsilon (t.origin.x + t.size.width, row.origin.x + row.size.width, 0.5);
  /* Wrapped, and as tall as its lines */
  g_assert_cmpfloat (t.size.height, >=, 3 * line_height (text));
  g_assert_cmpfloat (row.size.height, >=, t.size.height);

  gtk_window_destroy (GTK_WINDOW (window));
}

/* ---- how often a reply's text is laid out ---- */

typedef void (*MeasureFunc) (GtkWidget *, GtkOrientation, int, int *, int *, int *, int *);

static MeasureFunc label_measure;
static GHashTable *wrapping_labels;
static guint label_heights, label_widths_for_height;

/* GtkLabel's own measure, counted: each call is a Pango layout of its text
 * that GTK's size cache did not have */
static void
counting_label_measure (GtkWidget      *widget,
                        GtkOrientation  orientation,
                        int             for_size,
                        int            *minimum,
                        int            *natural,
                        int            *minimum_baseline,
                        int            *natural_baseline)
{
  if (gtk_label_get_wrap (GTK_LABEL (widget)))
    {
      g_hash_table_add (wrapping_labels, widget);
      if (orientation == GTK_ORIENTATION_VERTICAL)
        label_heights++;
      else if (for_size >= 0)
        label_widths_for_height++;
    }
  label_measure (widget, orientation, for_size, minimum, natural, minimum_baseline, natural_baseline);
}

/* A 20 KB reply opened in a conversation: its labels are measured for
 * their height at a few widths (the list's measure, the width shown), never
 * for a width at a height. GTK 4.8's boxes asked a reply's bubble for its
 * width at a height and searched it over a dozen widths, laying every label
 * out at each (docs/conversations.md "Long replies", prs-message-row.c) */
static void
test_long_reply_measured (void)
{
  g_autofree char *report = prs_test_long_report (20 * 1024);
  GtkWidgetClass *klass = g_type_class_ref (GTK_TYPE_LABEL);
  Conversation c = { 0 };
  guint labels;

  wrapping_labels = g_hash_table_new (NULL, NULL);
  label_measure = klass->measure;
  klass->measure = counting_label_measure;
  conversation_open (&c, "measured-report", report);
  g_assert_true (prs_test_wait_until (has_markdown_view, &c));
  prs_test_wait_frames (GTK_WIDGET (c.window), 3);
  klass->measure = label_measure;

  labels = g_hash_table_size (wrapping_labels);
  g_test_message ("%u wrapping labels: %u heights, %u widths for a height measured",
                  labels, label_heights, label_widths_for_height);
  g_assert_cmpuint (labels, >=, 50);
  g_assert_cmpuint (label_widths_for_height, ==, 0);
  g_assert_cmpuint (label_heights, <=, 3 * labels);

  conversation_close (&c);
  g_clear_pointer (&wrapping_labels, g_hash_table_unref);
  g_type_class_unref (klass);
}

/* ---- the person's own messages ---- */

static gboolean
is_bubble_text (GtkWidget *widget,
                gpointer   data)
{
  GtkWidget *bubble = gtk_widget_get_ancestor (widget, GTK_TYPE_BOX);

  return gtk_label_get_wrap (GTK_LABEL (widget)) && bubble != NULL &&
         gtk_widget_has_css_class (bubble, "user") && label_shows (widget, data);
}

/* A person's message of 6 KB (a label: under PRS_TEXT_LABEL_MAX_BYTES)
 * finds its minimum width at a dozen characters, as a reply's blocks do,
 * not at 0 pixels, where Pango breaks it at every character, a line each
 * (docs/conversations.md "Long replies"); a short one keeps its natural
 * width, its text's, so that its bubble is no wider than its words */
static void
test_person_message_min_width (void)
{
  g_autoptr(GString) asked = g_string_new ("Here are my notes.");
  Conversation c = { 0 };
  GtkWidget *label, *short_label;
  g_autoptr(PangoLayout) layout = NULL;
  int minimum, natural, text_width;
  gint64 started;

  while (asked->len < 6 * 1024)
    g_string_append (asked, " The parcel left the warehouse on Monday and has been in transit since.");
  conversation_open_asked (&c, "long-question", asked->str, "Thanks!");
  g_assert_true (prs_test_wait_until (has_markdown_view, &c));
  prs_test_wait_frames (GTK_WIDGET (c.window), 3);

  label = prs_test_find_widget (GTK_WIDGET (c.window), GTK_TYPE_LABEL, is_bubble_text, (gpointer) "Here are my notes.");
  g_assert_nonnull (label);
  g_assert_cmpint (gtk_label_get_width_chars (GTK_LABEL (label)), ==, PRS_TEXT_MIN_CHARS);
  started = g_get_monotonic_time ();
  gtk_widget_measure (label, GTK_ORIENTATION_HORIZONTAL, -1, &minimum, &natural, NULL, NULL);
  g_test_message ("minimum width %d px, natural %d px, in %.2f ms (cached)", minimum, natural,
                  (g_get_monotonic_time () - started) / 1000.0);
  g_assert_cmpint (minimum, >=, 5 * PRS_TEXT_MIN_CHARS);
  conversation_close (&c);

  conversation_open_asked (&c, "short-question", "Thanks, and hi", "Thanks!");
  g_assert_true (prs_test_wait_until (has_markdown_view, &c));
  prs_test_wait_frames (GTK_WIDGET (c.window), 3);
  short_label = prs_test_find_widget (GTK_WIDGET (c.window), GTK_TYPE_LABEL, is_bubble_text, (gpointer) "Thanks, and hi");
  g_assert_nonnull (short_label);
  g_assert_cmpint (gtk_label_get_width_chars (GTK_LABEL (short_label)), ==, -1);
  layout = gtk_widget_create_pango_layout (short_label, "Thanks, and hi");
  pango_layout_get_pixel_size (layout, &text_width, NULL);
  gtk_widget_measure (short_label, GTK_ORIENTATION_HORIZONTAL, -1, &minimum, &natural, NULL, NULL);
  g_assert_cmpint (natural, ==, text_width);
  conversation_close (&c);
}

/* ---- a conversation of long replies ---- */

#define LONG_PAIRS 10

/* Message rows under @widget showing a message of more than @bytes */
static guint
count_rows (GtkWidget *widget,
            gsize      bytes)
{
  guint count = 0;

  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      PrsMessage *message;

      if (!PRS_IS_MESSAGE_ROW (child))
        {
          count += count_rows (child, bytes);
          continue;
        }
      message = prs_message_row_get_message (PRS_MESSAGE_ROW (child));
      if (message != NULL &&
          strlen (prs_message_get_content (message)) > bytes)
        count++;
    }
  return count;
}

static gboolean
at_bottom (GtkAdjustment *adj)
{
  return gtk_adjustment_get_value (adj) >=
         gtk_adjustment_get_upper (adj) - gtk_adjustment_get_page_size (adj) - 1;
}

/* Twenty messages, ten of them 20 KiB replies (docs/conversations.md "Long
 * replies"): the first frame after selecting the conversation shows its
 * last reply, at the bottom, and lays out one or two long replies, not the
 * screenful of rows a short conversation gets (each reply is many screens
 * tall; every one laid out before the first frame kept the window frozen
 * for seconds). The others are revealed above it while it stays at the
 * bottom, and scrolling up reaches the first question. */
static void
test_long_replies_open (void)
{
  g_autofree char *report = prs_test_long_report (20 * 1024);
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsStore) store = NULL;
  g_autofree char *id = NULL;
  Conversation c = { 0 };
  GtkListView *list;
  GtkAdjustment *adj;
  GListModel *shown;
  guint frames;

  c.data_dir = g_dir_make_tmp ("prs-ui-long-replies-XXXXXX", &error);
  g_assert_no_error (error);
  store = prs_store_new (c.data_dir, &error);
  g_assert_no_error (error);
  id = prs_test_resolve_conversation (store, "long-replies");
  for (guint i = 0; i < LONG_PAIRS; i++)
    {
      g_autofree char *question = g_strdup_printf ("Question %u: the report again, please.", i + 1);
      g_autofree char *answer = g_strdup_printf ("# Answer %u\n\n%s", i + 1, report);
      PrsMessageInsert message = { .conversation_id = id, .kind = "user", .content = question };

      g_assert_true (prs_store_insert_message (store, &message, NULL, NULL, &error));
      message.kind = "assistant";
      message.agent_id = "prosponsive";
      message.status = "completed";
      message.content = answer;
      g_assert_true (prs_store_insert_message (store, &message, NULL, NULL, &error));
      g_assert_no_error (error);
    }
  g_clear_object (&store);
  c.service = prs_service_new (c.data_dir, prs_test_free_port ());
  g_assert_true (prs_service_start (c.service, &error));
  g_assert_no_error (error);
  c.window = g_object_ref_sink (prs_window_new (NULL, c.service));
  gtk_window_set_default_size (GTK_WINDOW (c.window), 1000, 700);
  gtk_window_present (GTK_WINDOW (c.window));
  prs_test_wait_frames (GTK_WIDGET (c.window), 3);
  list = prs_conversation_view_get_list_view (prs_window_get_conversation_view (c.window));
  adj = gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (list));

  prs_window_select_conversation (c.window, id);
  prs_test_wait_frames (GTK_WIDGET (c.window), 1);
  g_test_message ("first frame: %u long replies laid out", count_rows (GTK_WIDGET (list), 8192));
  g_assert_cmpuint (count_rows (GTK_WIDGET (list), 8192), >=, 1);
  g_assert_cmpuint (count_rows (GTK_WIDGET (list), 8192), <=, 2);
  g_assert_true (at_bottom (adj));
  g_assert_nonnull (prs_test_find_label (GTK_WIDGET (list), "Answer 10"));

  /* The rest comes above it, and the view stays at the bottom */
  shown = G_LIST_MODEL (gtk_list_view_get_model (list));
  for (frames = 0; frames < 200 && g_list_model_get_n_items (shown) < 2 * LONG_PAIRS; frames++)
    prs_test_wait_frames (GTK_WIDGET (c.window), 1);
  prs_test_wait_frames (GTK_WIDGET (c.window), 2);
  g_assert_cmpuint (g_list_model_get_n_items (shown), ==, 2 * LONG_PAIRS);
  g_assert_true (at_bottom (adj));

  /* Up to the first question (the list's height estimate moves as rows
   * are measured on the way) */
  for (frames = 0; frames < 200 && prs_test_find_widget (GTK_WIDGET (list), GTK_TYPE_LABEL, label_shows, (gpointer) "Question 1:") == NULL; frames++)
    {
      gtk_adjustment_set_value (adj, MAX (gtk_adjustment_get_value (adj) - 3000, 0));
      prs_test_wait_frames (GTK_WIDGET (c.window), 1);
    }
  g_assert_nonnull (prs_test_find_widget (GTK_WIDGET (list), GTK_TYPE_LABEL, label_shows, (gpointer) "Question 1:"));
  g_assert_nonnull (prs_test_find_label (GTK_WIDGET (list), "Answer 1"));

  conversation_close (&c);
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
  g_test_add_func ("/ui/markdown/long-block", test_markdown_long_block);
  g_test_add_func ("/ui/markdown/link-no-app", test_link_no_app);
  g_test_add_func ("/ui/markdown/long-reply", test_long_reply);
  g_test_add_func ("/ui/markdown/long-reply-plain", test_long_reply_plain);
  g_test_add_func ("/ui/markdown/long-reply-measured", test_long_reply_measured);
  g_test_add_func ("/ui/markdown/person-message-min-width", test_person_message_min_width);
  g_test_add_func ("/ui/markdown/list-item", test_list_item);
  g_test_add_func ("/ui/markdown/long-replies-open", test_long_replies_open);

  return g_test_run ();
}
