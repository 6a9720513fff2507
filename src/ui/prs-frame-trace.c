/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-frame-trace.c: prints the time from an action to the frame clock's
 * next "after-paint" (PROSPONSIVE_TRACE_FRAMES=1). The benchmarks (bench/)
 * read these lines instead of sleeping. */
#include "config.h"

#include <stdio.h>

#include "prs-frame-trace.h"

typedef struct
{
  GtkWidget     *widget;      /* weak */
  const char    *what;
  gint64         started;
  GdkFrameClock *clock;
  gulong         paint_id;
  gulong         realize_id;
} Trace;

gboolean
prs_frame_trace_enabled (void)
{
  static gsize initialized = 0;
  static gboolean enabled = FALSE;

  if (g_once_init_enter (&initialized))
    {
      enabled = g_strcmp0 (g_getenv ("PROSPONSIVE_TRACE_FRAMES"), "1") == 0;
      g_once_init_leave (&initialized, 1);
    }

  return enabled;
}

static void
trace_free (Trace *trace)
{
  if (trace->clock != NULL)
    {
      g_signal_handler_disconnect (trace->clock, trace->paint_id);
      g_object_unref (trace->clock);
    }
  if (trace->widget != NULL)
    {
      g_clear_signal_handler (&trace->realize_id, trace->widget);
      g_object_remove_weak_pointer (G_OBJECT (trace->widget), (gpointer *) &trace->widget);
    }
  g_free (trace);
}

static void
on_after_paint (GdkFrameClock *clock,
                Trace         *trace)
{
  g_print ("TRACE %s %.2f\n", trace->what, (g_get_monotonic_time () - trace->started) / 1000.0);
  fflush (stdout);
  trace_free (trace);
}

static void
attach_clock (Trace *trace)
{
  GdkFrameClock *clock = gtk_widget_get_frame_clock (trace->widget);

  g_clear_signal_handler (&trace->realize_id, trace->widget);
  trace->clock = g_object_ref (clock);
  trace->paint_id = g_signal_connect (clock, "after-paint", G_CALLBACK (on_after_paint), trace);
  /* The action may not have damaged anything yet: make sure a frame comes */
  gtk_widget_queue_draw (trace->widget);
}

static void
on_realize (GtkWidget *widget,
            Trace     *trace)
{
  attach_clock (trace);
}

void
prs_frame_trace_begin (GtkWidget  *widget,
                       const char *what)
{
  Trace *trace;

  g_return_if_fail (GTK_IS_WIDGET (widget));

  if (!prs_frame_trace_enabled ())
    return;

  trace = g_new0 (Trace, 1);
  trace->widget = widget;
  trace->what = what;
  trace->started = g_get_monotonic_time ();
  g_object_add_weak_pointer (G_OBJECT (widget), (gpointer *) &trace->widget);

  if (gtk_widget_get_frame_clock (widget) != NULL)
    attach_clock (trace);
  else
    trace->realize_id = g_signal_connect (widget, "realize", G_CALLBACK (on_realize), trace);
}
