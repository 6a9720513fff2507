/* SPDX-License-Identifier: GPL-3.0-or-later */
/* bench-ui: drives the real window (PrsService + PrsWindow, the app's own
 * code) over a data folder made by seed-conversation, for bench/run:
 *
 *   bench-ui idle  DIR PORT            RSS after the first frame
 *   bench-ui open  DIR PORT SLUG STEPS select SLUG (the app prints "TRACE
 *                                      first-frame <ms>" itself, with
 *                                      PROSPONSIVE_TRACE_FRAMES=1), then
 *                                      scroll from the bottom to the top
 *                                      in STEPS jumps, a frame each; RSS
 *                                      after opening and after scrolling,
 *                                      the CPU time to the first frame, and
 *                                      of the longest frame in the second
 *                                      after it
 *   bench-ui jump  DIR PORT SLUG SEQ   open SLUG at its message SEQ (a search
 *                                      hit: "TRACE first-frame <ms>" as for
 *                                      open), then whether that message's
 *                                      row is on screen, highlighted
 *   bench-ui scroll DIR PORT SLUG PX   open SLUG, go to its top, then scroll
 *                                      down PX pixels a frame to the bottom
 *                                      as a wheel does: the wall and main
 *                                      thread CPU time of each such frame
 *                                      (rows bound and laid out as they come
 *                                      into view), p50 / p99 / max
 *   bench-ui gaps  DIR PORT SLUG SECS  the longest gap between painted
 *                                      frames over SECS while redrawing
 *                                      every frame (bench/run drives the
 *                                      window's own API server with wrk
 *                                      meanwhile, or not, for the baseline)
 *   bench-ui startup DIR PORT          "FIRST-FRAME <monotonic µs>" at the
 *                                      window's first painted frame
 *   bench-ui pixel DIR PORT SLUG CALLS shows SLUG, then prints "PAINTED
 *                                      <monotonic µs>" at the first frame
 *                                      painted after each new completed
 *                                      reply reached the list (bench/run
 *                                      makes the agent-inference calls)
 *
 * Output: "KEY value" lines. Frames are waited for on the frame clock,
 * never with sleeps. */
#include <stdio.h>
#include <stdlib.h>

#include <adwaita.h>

#include "bench-thread-clock.h"
#include "prs-conversation-view.h"
#include "prs-message-row.h"
#include "prs-service.h"
#include "prs-window.h"

static long
rss_kb (void)
{
  g_autofree char *status = NULL;
  const char *line;

  if (!g_file_get_contents ("/proc/self/status", &status, NULL, NULL))
    return -1;
  line = strstr (status, "VmRSS:");
  return line != NULL ? strtol (line + 6, NULL, 10) : -1;
}

typedef struct
{
  guint  count;
  gint64 first;      /* when the first of them was painted */
} Frames;

static void
on_after_paint (GdkFrameClock *clock,
                Frames        *frames)
{
  if (frames->count++ == 0)
    frames->first = g_get_monotonic_time ();
}

/* Waits for @n painted frames; returns the monotonic time of the first */
static gint64
wait_frames (GtkWidget *widget,
             guint      n)
{
  GdkFrameClock *clock;
  Frames frames = { 0, 0 };
  gulong id;

  while ((clock = gtk_widget_get_frame_clock (widget)) == NULL)
    g_main_context_iteration (NULL, TRUE);

  id = g_signal_connect (clock, "after-paint", G_CALLBACK (on_after_paint), &frames);
  while (frames.count < n)
    {
      gtk_widget_queue_draw (widget);
      g_main_context_iteration (NULL, TRUE);
    }
  g_signal_handler_disconnect (clock, id);
  return frames.first;
}

/* Lets pending idles (model updates, page loads) run, bounded */
static void
drain (void)
{
  for (guint i = 0; i < 1000 && g_main_context_pending (NULL); i++)
    g_main_context_iteration (NULL, FALSE);
}

typedef struct
{
  gint64  last;
  gint64  longest;
  gint64  last_cpu;      /* this thread's CPU time at the last frame, µs */
  gint64  longest_cpu;   /* …and what it spent within the longest gap */
  gint64  last_wait;     /* its time runnable but waiting for a core, µs */
  gint64  longest_wait;
  gint64  longest_at;    /* the longest gap's start, monotonic µs */
  GArray *gaps;
  GString *long_gaps;    /* "GAP-LONG" lines, for a system trace's clock */
} Gaps;

/* A gap over the target's bound (33 ms) gets a line of its own: its start
 * on the monotonic clock (perf record -k mono shares it), what the window
 * ran and how long it waited for a core within it */
#define GAP_LONG_US 33000

static void
on_gap_paint (GdkFrameClock *clock,
              Gaps          *gaps)
{
  gint64 now = g_get_monotonic_time ();
  gint64 cpu = bench_thread_cpu_us ();
  gint64 wait = bench_thread_wait_us ();

  if (gaps->last != 0)
    {
      double gap = (now - gaps->last) / 1000.0;

      g_array_append_val (gaps->gaps, gap);
      if (now - gaps->last > gaps->longest)
        {
          gaps->longest = now - gaps->last;
          gaps->longest_cpu = cpu - gaps->last_cpu;
          gaps->longest_wait = wait - gaps->last_wait;
          gaps->longest_at = gaps->last;
        }
      if (now - gaps->last > GAP_LONG_US)
        g_string_append_printf (gaps->long_gaps, "GAP-LONG %" G_GINT64_FORMAT " %.2f %.2f %.2f\n",
                                gaps->last, gap, (cpu - gaps->last_cpu) / 1000.0,
                                (wait - gaps->last_wait) / 1000.0);
    }
  gaps->last = now;
  gaps->last_cpu = cpu;
  gaps->last_wait = wait;
}

static gboolean
redraw_every_frame (GtkWidget     *widget,
                    GdkFrameClock *clock,
                    gpointer       data)
{
  gtk_widget_queue_draw (widget);
  return G_SOURCE_CONTINUE;
}

static int
compare_doubles (gconstpointer a,
                 gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

static gboolean
on_timeout (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

static GtkAdjustment *
message_adjustment (PrsWindow *window)
{
  GtkWidget *list = GTK_WIDGET (prs_conversation_view_get_list_view (prs_window_get_conversation_view (window)));

  return gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (list));
}

static const char *
find_conversation_id (PrsService *service,
                      const char *slug)
{
  GListModel *model = G_LIST_MODEL (prs_service_get_conversations (service));

  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr(PrsConversation) conversation = g_list_model_get_item (model, i);

      if (g_strcmp0 (prs_conversation_get_slug (conversation), slug) == 0)
        return g_intern_string (prs_conversation_get_id (conversation));
    }
  return NULL;
}

static void
run_open (PrsWindow  *window,
          const char *conversation_id,
          guint       steps)
{
  GtkAdjustment *adj;
  gint64 longest = 0;
  long before;

  /* The app's own trace prints "TRACE first-frame <ms>" after this */
  g_print ("ACTION select\n");
  fflush (stdout);
  longest = bench_thread_cpu_us ();
  prs_window_select_conversation (window, conversation_id);
  wait_frames (GTK_WIDGET (window), 1);
  /* The first frame's CPU time: on a loaded machine its wall time (the
   * TRACE line) also counts the waits for a core */
  g_print ("OPEN-CPU %.2f\n", (bench_thread_cpu_us () - longest) / 1000.0);
  longest = 0;
  /* The frames of the second after the first: the longest one's CPU time
   * (older rows revealed and laid out above the shown ones) */
  for (gint64 end = g_get_monotonic_time () + G_USEC_PER_SEC; g_get_monotonic_time () < end;)
    {
      gint64 started = bench_thread_cpu_us ();

      wait_frames (GTK_WIDGET (window), 1);
      longest = MAX (longest, bench_thread_cpu_us () - started);
    }
  g_print ("AFTER-OPEN-CPU-MAX %.2f\n", longest / 1000.0);
  wait_frames (GTK_WIDGET (window), 8);
  drain ();
  wait_frames (GTK_WIDGET (window), 2);
  before = rss_kb ();
  g_print ("RSS-OPEN %ld\n", before);
  g_print ("ITEMS %u\n", g_list_model_get_n_items (G_LIST_MODEL (prs_conversation_view_get_messages (prs_window_get_conversation_view (window)))));

  adj = message_adjustment (window);
  for (guint i = 1; i <= steps; i++)
    {
      double upper = gtk_adjustment_get_upper (adj) - gtk_adjustment_get_page_size (adj);

      gtk_adjustment_set_value (adj, upper * (1.0 - (double) i / steps));
      wait_frames (GTK_WIDGET (window), 1);
    }
  /* The list's height estimate moves as rows are measured: settle at the top */
  for (guint i = 0; i < 20 && gtk_adjustment_get_value (adj) > 0; i++)
    {
      gtk_adjustment_set_value (adj, 0);
      wait_frames (GTK_WIDGET (window), 1);
    }
  drain ();
  wait_frames (GTK_WIDGET (window), 2);
  g_print ("TOP %.0f\n", gtk_adjustment_get_value (adj));
  g_print ("RSS-SCROLLED %ld\n", rss_kb ());
}

static void
print_percentiles (const char *name,
                   GArray     *values)
{
  g_array_sort (values, compare_doubles);
  if (values->len == 0)
    return;
  g_print ("%s-P50 %.2f\n", name, g_array_index (values, double, values->len / 2));
  g_print ("%s-P99 %.2f\n", name, g_array_index (values, double, values->len * 99 / 100));
  g_print ("%s-MAX %.2f\n", name, g_array_index (values, double, values->len - 1));
}

static void
run_scroll (PrsWindow  *window,
            const char *conversation_id,
            double      px)
{
  g_autoptr(GArray) wall = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) cpu = g_array_new (FALSE, FALSE, sizeof (double));
  GtkAdjustment *adj;
  double longest = 0, longest_at = 0;

  prs_window_select_conversation (window, conversation_id);
  wait_frames (GTK_WIDGET (window), 8);
  drain ();
  adj = message_adjustment (window);
  /* The list's height estimate moves as rows are measured: settle at the top */
  for (guint i = 0; i < 50 && gtk_adjustment_get_value (adj) > 0; i++)
    {
      gtk_adjustment_set_value (adj, 0);
      wait_frames (GTK_WIDGET (window), 1);
    }
  drain ();
  wait_frames (GTK_WIDGET (window), 2);

  for (guint i = 0; i < 20000; i++)
    {
      double value = gtk_adjustment_get_value (adj);
      double bottom = gtk_adjustment_get_upper (adj) - gtk_adjustment_get_page_size (adj);
      gint64 started = g_get_monotonic_time (), started_cpu = bench_thread_cpu_us ();
      double ms;

      if (value >= bottom - 0.5)
        break;
      gtk_adjustment_set_value (adj, MIN (value + px, bottom));
      wait_frames (GTK_WIDGET (window), 1);
      ms = (g_get_monotonic_time () - started) / 1000.0;
      g_array_append_val (wall, ms);
      ms = (bench_thread_cpu_us () - started_cpu) / 1000.0;
      if (cpu->len == 0 || ms > longest)
        {
          longest = ms;
          longest_at = value;
        }
      g_array_append_val (cpu, ms);
    }
  g_print ("ITEMS %u\n", g_list_model_get_n_items (G_LIST_MODEL (prs_conversation_view_get_messages (prs_window_get_conversation_view (window)))));
  g_print ("HEIGHT %.0f\n", gtk_adjustment_get_upper (adj));
  g_print ("FRAMES %u\n", wall->len);
  print_percentiles ("WALL", wall);
  print_percentiles ("CPU", cpu);
  g_print ("CPU-MAX-AT %.0f\n", longest_at);
}

/* Opens CONVERSATION at message SEQ (a search hit): says whether the
 * message is on screen and highlighted, and how many pages were read */
static void
run_jump (PrsWindow  *window,
          const char *conversation_id,
          const char *seq)
{
  /* seed-conversation's ids: CONVERSATION-SEQ */
  g_autofree char *message_id = g_strdup_printf ("%s-%s", conversation_id, seq);
  GtkWidget *list = GTK_WIDGET (prs_conversation_view_get_list_view (prs_window_get_conversation_view (window)));
  gboolean on_screen = FALSE;

  g_print ("ACTION select\n");
  fflush (stdout);
  prs_window_open_conversation_at (window, conversation_id, message_id);
  wait_frames (GTK_WIDGET (window), 8);
  drain ();
  for (GtkWidget *item = gtk_widget_get_first_child (list); item != NULL; item = gtk_widget_get_next_sibling (item))
    {
      GtkWidget *row = gtk_widget_get_first_child (item);
      graphene_point_t point;

      if (row != NULL && PRS_IS_MESSAGE_ROW (row) && prs_message_row_get_message (PRS_MESSAGE_ROW (row)) != NULL &&
          g_strcmp0 (prs_message_get_id (prs_message_row_get_message (PRS_MESSAGE_ROW (row))), message_id) == 0 &&
          gtk_widget_has_css_class (row, "highlighted") &&
          gtk_widget_compute_point (row, list, &GRAPHENE_POINT_INIT (0, 0), &point) &&
          point.y >= -1 && point.y < gtk_widget_get_height (list))
        on_screen = TRUE;
    }
  g_print ("HIT-ON-SCREEN %d\n", on_screen);
  g_print ("PAGES %u\n", prs_message_list_get_n_page_loads (prs_conversation_view_get_messages (prs_window_get_conversation_view (window))));

}

static void
run_gaps (PrsWindow  *window,
          const char *conversation_id,
          double      seconds)
{
  GdkFrameClock *clock;
  Gaps gaps = { 0, 0, 0, 0, 0, 0, 0, g_array_new (FALSE, FALSE, sizeof (double)), g_string_new (NULL) };
  gboolean done = FALSE;
  gulong paint_id;
  guint tick_id;

  prs_window_select_conversation (window, conversation_id);
  wait_frames (GTK_WIDGET (window), 8);
  clock = gtk_widget_get_frame_clock (GTK_WIDGET (window));
  tick_id = gtk_widget_add_tick_callback (GTK_WIDGET (window), redraw_every_frame, NULL, NULL);
  paint_id = g_signal_connect (clock, "after-paint", G_CALLBACK (on_gap_paint), &gaps);
  g_print ("READY\n");
  fflush (stdout);
  g_timeout_add ((guint) (seconds * 1000), on_timeout, &done);
  while (!done)
    g_main_context_iteration (NULL, TRUE);
  g_signal_handler_disconnect (clock, paint_id);
  gtk_widget_remove_tick_callback (GTK_WIDGET (window), tick_id);
  g_array_sort (gaps.gaps, compare_doubles);
  g_print ("FRAMES %u\n", gaps.gaps->len);
  if (gaps.gaps->len > 0)
    {
      g_print ("GAP-P50 %.2f\n", g_array_index (gaps.gaps, double, gaps.gaps->len / 2));
      g_print ("GAP-P99 %.2f\n", g_array_index (gaps.gaps, double, gaps.gaps->len * 99 / 100));
    }
  g_print ("GAP-MAX %.2f\n", gaps.longest / 1000.0);
  g_print ("GAP-MAX-CPU %.2f\n", gaps.longest_cpu / 1000.0);
  g_print ("GAP-MAX-WAIT %.2f\n", gaps.longest_wait / 1000.0);
  g_print ("GAP-MAX-AT %" G_GINT64_FORMAT "\n", gaps.longest_at);
  g_print ("%s", gaps.long_gaps->str);
  g_array_unref (gaps.gaps);
  g_string_free (gaps.long_gaps, TRUE);
}

/* ---- inbound-to-pixel: a reply painted in the open conversation ---- */

typedef struct
{
  GListModel *messages;
  GHashTable *seen;        /* ids of replies already reported */
  gboolean    pending;     /* a new completed reply waits for its frame */
  guint       painted;
} Pixel;

static void
on_messages_changed (GListModel *model,
                     guint       position,
                     guint       removed,
                     guint       added,
                     Pixel      *pixel)
{
  guint n = g_list_model_get_n_items (model);
  g_autoptr(PrsMessage) last = n > 0 ? g_list_model_get_item (model, n - 1) : NULL;

  if (last == NULL || g_strcmp0 (prs_message_get_kind (last), "assistant") != 0 ||
      g_strcmp0 (prs_message_get_status (last), "completed") != 0 ||
      g_hash_table_contains (pixel->seen, prs_message_get_id (last)))
    return;
  g_hash_table_add (pixel->seen, g_strdup (prs_message_get_id (last)));
  pixel->pending = TRUE;
}

/* The first frame painted after the reply reached the list's model */
static void
on_pixel_paint (GdkFrameClock *clock,
                Pixel         *pixel)
{
  if (!pixel->pending)
    return;
  pixel->pending = FALSE;
  pixel->painted++;
  g_print ("PAINTED %" G_GINT64_FORMAT "\n", g_get_monotonic_time ());
  fflush (stdout);
}

static void
run_pixel (PrsWindow  *window,
           const char *conversation_id,
           guint       calls)
{
  Pixel pixel = { 0 };
  GdkFrameClock *clock;
  gulong paint_id, changed_id;

  prs_window_select_conversation (window, conversation_id);
  wait_frames (GTK_WIDGET (window), 8);
  drain ();
  wait_frames (GTK_WIDGET (window), 2);
  pixel.messages = G_LIST_MODEL (prs_conversation_view_get_messages (prs_window_get_conversation_view (window)));
  pixel.seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  clock = gtk_widget_get_frame_clock (GTK_WIDGET (window));
  changed_id = g_signal_connect (pixel.messages, "items-changed", G_CALLBACK (on_messages_changed), &pixel);
  paint_id = g_signal_connect (clock, "after-paint", G_CALLBACK (on_pixel_paint), &pixel);
  g_print ("READY\n");
  fflush (stdout);
  /* bench/run makes the calls; each reply is reported once it is painted */
  while (pixel.painted < calls)
    g_main_context_iteration (NULL, TRUE);
  g_signal_handler_disconnect (clock, paint_id);
  g_signal_handler_disconnect (pixel.messages, changed_id);
  g_hash_table_unref (pixel.seen);
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GError) error = NULL;
  gboolean outdated = FALSE;
  g_autoptr(PrsService) service = NULL;
  PrsWindow *window;
  const char *mode;
  const char *conversation_id = NULL;
  gboolean ok = TRUE;
  gint64 first_frame;

  if (argc < 4)
    {
      g_printerr ("usage: bench-ui idle|startup|open|jump|scroll|gaps|pixel DIR PORT [SLUG STEPS|SEQ|PX|SECS|CALLS]\n");
      return 2;
    }
  mode = argv[1];

  gtk_init ();
  adw_init ();

  service = prs_service_new (argv[2], (guint) g_ascii_strtoull (argv[3], NULL, 10));
  /* as the app starts its window's service: the database's version read
   * first (an up-to-date one is not migrated on a worker) */
  prs_service_set_windowed (service, TRUE);
  if (!prs_service_open (service, &outdated, &error) ||
      !prs_service_start (service, &error))
    {
      g_printerr ("bench-ui: %s\n", error->message);
      return 1;
    }

  window = prs_window_new (NULL, service);
  gtk_window_set_default_size (GTK_WINDOW (window), 1000, 700);
  gtk_window_present (GTK_WINDOW (window));
  /* startup: the window's first painted frame */
  first_frame = wait_frames (GTK_WIDGET (window), 3);
  if (g_str_equal (mode, "startup"))
    g_print ("FIRST-FRAME %" G_GINT64_FORMAT "\n", first_frame);
  drain ();
  wait_frames (GTK_WIDGET (window), 2);

  if (argc > 4)
    {
      conversation_id = find_conversation_id (service, argv[4]);
      if (conversation_id == NULL)
        {
          g_printerr ("bench-ui: no conversation %s\n", argv[4]);
          return 1;
        }
    }

  if (g_str_equal (mode, "idle"))
    g_print ("RSS %ld\n", rss_kb ());
  else if (g_str_equal (mode, "startup"))
    ;
  else if (conversation_id == NULL || argc <= 5)
    ok = FALSE;
  else if (g_str_equal (mode, "open"))
    run_open (window, conversation_id, (guint) g_ascii_strtoull (argv[5], NULL, 10));
  else if (g_str_equal (mode, "jump"))
    run_jump (window, conversation_id, argv[5]);
  else if (g_str_equal (mode, "scroll"))
    run_scroll (window, conversation_id, g_ascii_strtod (argv[5], NULL));
  else if (g_str_equal (mode, "gaps"))
    run_gaps (window, conversation_id, g_ascii_strtod (argv[5], NULL));
  else if (g_str_equal (mode, "pixel"))
    run_pixel (window, conversation_id, (guint) g_ascii_strtoull (argv[5], NULL, 10));
  else
    ok = FALSE;

  if (!ok)
    {
      g_printerr ("bench-ui: bad arguments\n");
      return 2;
    }

  fflush (stdout);
  gtk_window_destroy (GTK_WINDOW (window));
  prs_service_stop (service);
  return 0;
}
