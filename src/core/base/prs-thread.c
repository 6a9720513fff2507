/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-thread.c: the main thread, recorded before main () runs, so that
 * every program and test links the same check without calling anything;
 * worker tasks that let their source object go where it was made. */
#include "prs-thread.h"

static GThread *main_thread;

/* Constructors run on the thread that loads the program, before main () */
__attribute__ ((constructor)) static void
record_main_thread (void)
{
  main_thread = g_thread_self ();
}

GThread *
prs_thread_get_main (void)
{
  return main_thread;
}

/* The source object's extra reference, held until the task is gone */
typedef struct
{
  GObject      *source;
  GThread      *caller;
  GMainContext *context;   /* the task's */
} SourceHold;

static void
source_hold_free (gpointer data)
{
  SourceHold *hold = data;

  g_object_unref (hold->source);
  g_main_context_unref (hold->context);
  g_free (hold);
}

static gboolean
source_hold_release (gpointer data)
{
  return G_SOURCE_REMOVE;   /* the destroy notify lets go */
}

/* Data set on the task: GObject frees it at the very end of the task's
 * finalize, after GTask's own finalize dropped the source (a weak
 * reference is told in dispose, before that: the caller's context could
 * let go first, and the task's reference be the last again) */
static void
on_task_gone (gpointer data)
{
  SourceHold *hold = data;
  GSource *idle;

  if (g_thread_self () == hold->caller || g_main_context_is_owner (hold->context))
    {
      source_hold_free (hold);
      return;
    }
  /* On the worker: an idle of the caller's context lets go there. Not
   * g_main_context_invoke (): from a thread without a context of its own
   * it runs the function at once, here, when nobody iterates the default
   * context at that moment. */
  idle = g_idle_source_new ();
  g_source_set_priority (idle, G_PRIORITY_DEFAULT);
  g_source_set_static_name (idle, "[prosponsive] task source released");
  g_source_set_callback (idle, source_hold_release, hold, source_hold_free);
  g_source_attach (idle, hold->context);
  g_source_unref (idle);
}

void
prs_task_run_in_thread (GTask           *task,
                        GTaskThreadFunc  func)
{
  GObject *source;

  g_return_if_fail (G_IS_TASK (task));

  source = g_task_get_source_object (task);
  if (source != NULL)
    {
      SourceHold *hold = g_new0 (SourceHold, 1);

      hold->source = g_object_ref (source);
      hold->caller = g_thread_self ();
      hold->context = g_main_context_ref (g_task_get_context (task));
      g_object_set_data_full (G_OBJECT (task), "prs-task-source-hold", hold, on_task_gone);
    }
  g_task_run_in_thread (task, func);
}
