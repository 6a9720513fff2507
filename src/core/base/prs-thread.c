/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-thread.c: the main thread, recorded before main () runs, so that
 * every program and test links the same check without calling anything;
 * worker tasks that let their source object go where it was made. */
#include "prs-thread.h"

#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The kernel's struct sched_attr, its first version (sched_setattr(2));
 * <linux/sched/types.h> clashes with the C library's <sched.h> */
typedef struct
{
  guint32 size;
  guint32 sched_policy;
  guint64 sched_flags;
  gint32  sched_nice;
  guint32 sched_priority;
  guint64 sched_runtime;
  guint64 sched_deadline;
  guint64 sched_period;
} SchedAttr;

#define POLICY_NORMAL              0   /* SCHED_OTHER */
#define SCHED_FLAG_RESET_ON_FORK   0x01

/* The slice asked for by prs_thread_request_short_slice (): the kernel's
 * default is 0.75 ms × (1 + log2 (cores)), 1.4 ms on two cores; a frame's
 * own work between wake-ups is mostly shorter. EEVDF gives a thread of a
 * shorter slice an earlier virtual deadline, so once it is eligible it is
 * picked before threads of the default slice, and its wake-up may preempt
 * them; its share of the cores does not change. */
#define SHORT_SLICE_NS 300000

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

gboolean
prs_thread_request_short_slice (void)
{
  SchedAttr attr = { 0 };

  /* Keep the policy and nice value, change the slice only */
  if (syscall (SYS_sched_getattr, 0, &attr, sizeof attr, 0) != 0)
    return FALSE;
  if (attr.sched_policy != POLICY_NORMAL)
    return FALSE;
  attr.size = sizeof attr;
  attr.sched_runtime = SHORT_SLICE_NS;
  attr.sched_flags = SCHED_FLAG_RESET_ON_FORK;
  if (syscall (SYS_sched_setattr, 0, &attr, 0) != 0)
    {
      g_debug ("The window's thread keeps its time slice: %s", g_strerror (errno));
      return FALSE;
    }

  return TRUE;
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
