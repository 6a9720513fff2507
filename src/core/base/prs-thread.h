/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-thread.h: which thread may touch what, checked in debug builds.
 *
 * Two threads matter (HACKING.md, "Threads"): the main thread, which owns
 * every GObject the window binds to, the runner and its runs; and the API
 * thread, which owns the HTTPS server, its SQLite connection and the
 * routes. Objects that belong to one of them say so with
 * PRS_ASSERT_MAIN_THREAD () or a PrsThreadOwner, the way GNOME Calendar
 * asserts GCAL_IS_MAIN_THREAD (). The checks compile to nothing when the
 * build has no debug information (meson's -Ddebug=false).
 */
#pragma once

#include "config.h"

#include <gio/gio.h>

G_BEGIN_DECLS

/* The thread that started the program (set before main () runs). */
GThread  *prs_thread_get_main (void);

#define PRS_IS_MAIN_THREAD() (g_thread_self () == prs_thread_get_main ())

/* An object owned by whichever thread first claims it. */
typedef struct
{
  GThread *thread;
} PrsThreadOwner;

/* Makes the calling thread the owner (again, when ownership is handed over
 * before the object is used, e.g. a connection opened on one thread for
 * another). */
static inline void
prs_thread_owner_claim (PrsThreadOwner *owner)
{
  owner->thread = g_thread_self ();
}

static inline gboolean
prs_thread_owner_is_current (const PrsThreadOwner *owner)
{
  return owner->thread == NULL || owner->thread == g_thread_self ();
}

#if PRS_ENABLE_THREAD_CHECKS
# define PRS_ASSERT_MAIN_THREAD() g_assert (PRS_IS_MAIN_THREAD ())
# define PRS_ASSERT_OWNER(owner)  g_assert (prs_thread_owner_is_current (owner))
#else
# define PRS_ASSERT_MAIN_THREAD() G_STMT_START { } G_STMT_END
# define PRS_ASSERT_OWNER(owner)  G_STMT_START { (void) (owner); } G_STMT_END
#endif

/* Asks the scheduler to pick the calling thread soon after it wakes, for a
 * thread that runs in short bursts and must not wait behind busy ones (the
 * window's, between frames): a short time slice (HACKING.md "Threads";
 * Linux ≥ 6.12, EEVDF; an earlier kernel ignores it). Threads it starts later keep the default.
 * FALSE when the kernel refused. */
gboolean  prs_thread_request_short_slice (void);

/* g_task_run_in_thread () whose source object is let go on the thread that
 * ran this, never on the worker. GLib's worker drops its own reference to
 * the task after queueing the callback, so often (an eighth of the time to
 * most of it, with the load: test-thread.c) the task's last reference, and
 * with it the source object's, goes on the worker (GTask's documentation,
 * "Thread-safety considerations"): an object of the main thread (a window,
 * a list model, the service) must not be disposed there. The task's data is
 * still freed wherever the task is: keep it to plain values and objects
 * any thread may release. Let go on the worker, the source waits for the
 * caller's context to run once more: a caller that stops iterating it (a
 * program quitting) keeps the source until exit. */
void      prs_task_run_in_thread (GTask           *task,
                                  GTaskThreadFunc  func);

G_END_DECLS
