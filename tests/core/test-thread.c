/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Tests for prs-thread.h: a main-thread object used from another thread,
 * and an owned object used outside its owner's thread, stop the program in
 * debug builds (each case runs in a subprocess that is expected to abort),
 * while the same calls on the right thread go through. */
#include <glib/gstdio.h>

#include "prs-conversation-list.h"
#include "prs-search-list.h"
#include "prs-service.h"
#include "prs-settings.h"
#include "prs-store.h"
#include "prs-test-util.h"
#include "prs-thread.h"

static gboolean
skip_without_checks (void)
{
  if (PRS_ENABLE_THREAD_CHECKS)
    return FALSE;
  g_test_skip ("Thread checks are compiled out of builds without debug information");
  return TRUE;
}

/* Runs @func (@data) on a new thread and waits for it */
static void
run_on_other_thread (GThreadFunc func,
                     gpointer    data)
{
  GThread *thread = g_thread_new ("not-main", func, data);

  g_thread_join (thread);
}

static gpointer
is_main_on_other_thread (gpointer data)
{
  return GINT_TO_POINTER (PRS_IS_MAIN_THREAD ());
}

static void
test_main_thread_recorded (void)
{
  GThread *thread;

  g_assert_true (PRS_IS_MAIN_THREAD ());
  thread = g_thread_new ("not-main", is_main_on_other_thread, NULL);
  g_assert_false (GPOINTER_TO_INT (g_thread_join (thread)));
}

/* ---- PrsSettings ---- */

static gpointer
read_settings (gpointer data)
{
  PrsSettings *settings = data;

  prs_settings_get_temperature (settings);
  return NULL;
}

static void
test_settings_main_thread (void)
{
  g_autoptr(PrsSettings) settings = NULL;

  if (skip_without_checks ())
    return;

  if (g_test_subprocess ())
    {
      settings = prs_settings_new ();
      /* On the main thread: fine */
      prs_settings_get_temperature (settings);
      run_on_other_thread (read_settings, settings);
      return;
    }

  g_test_trap_subprocess (NULL, 0, 0);
  g_test_trap_assert_failed ();
  g_test_trap_assert_stderr ("*assertion failed*PRS_IS_MAIN_THREAD*");
}

/* ---- PrsConversationList (a model the window binds to) ---- */

static gpointer
count_conversations (gpointer data)
{
  g_list_model_get_n_items (G_LIST_MODEL (data));
  return NULL;
}

static void
test_conversation_list_main_thread (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *path = NULL;
  g_autoptr(PrsStore) store = NULL;
  g_autoptr(PrsConversationList) list = NULL;

  if (skip_without_checks ())
    return;

  if (!g_test_subprocess ())
    {
      g_test_trap_subprocess (NULL, 0, 0);
      g_test_trap_assert_failed ();
      g_test_trap_assert_stderr ("*assertion failed*PRS_IS_MAIN_THREAD*");
      return;
    }

  dir = g_dir_make_tmp ("prs-test-thread-XXXXXX", &error);
  g_assert_no_error (error);
  path = g_build_filename (dir, "prosponsive.db", NULL);
  store = prs_store_new_for_path (path, &error);
  g_assert_no_error (error);
  list = prs_conversation_list_new (store);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (list)), ==, 0);

  /* The abort leaves the folder behind: remove it first */
  prs_test_remove_tree (dir);
  run_on_other_thread (count_conversations, list);
}

/* ---- PrsService ---- */

static gpointer
make_service (gpointer data)
{
  g_autoptr(PrsService) service = prs_service_new (data, 0);

  return NULL;
}

static void
test_service_main_thread (void)
{
  if (skip_without_checks ())
    return;

  if (g_test_subprocess ())
    {
      run_on_other_thread (make_service, (gpointer) "/nonexistent/prs-test-thread");
      return;
    }

  g_test_trap_subprocess (NULL, 0, 0);
  g_test_trap_assert_failed ();
  g_test_trap_assert_stderr ("*assertion failed*PRS_IS_MAIN_THREAD*");
}

/* ---- PrsThreadOwner (the API thread's objects) ---- */

typedef struct
{
  PrsThreadOwner owner;
  guint          uses;
} Owned;

static void
owned_use (Owned *owned)
{
  PRS_ASSERT_OWNER (&owned->owner);
  owned->uses++;
}

static gpointer
claim_and_use (gpointer data)
{
  Owned *owned = data;

  prs_thread_owner_claim (&owned->owner);
  owned_use (owned);
  return NULL;
}

static void
test_owner (void)
{
  Owned owned = { { NULL }, 0 };

  if (skip_without_checks ())
    return;

  if (g_test_subprocess ())
    {
      /* Unclaimed: anyone; claimed by another thread: its owner alone */
      owned_use (&owned);
      run_on_other_thread (claim_and_use, &owned);
      g_assert_cmpuint (owned.uses, ==, 2);
      owned_use (&owned);
      return;
    }

  g_test_trap_subprocess (NULL, 0, 0);
  g_test_trap_assert_failed ();
  g_test_trap_assert_stderr ("*assertion failed*prs_thread_owner_is_current*");
}

/* The owner may hand the object over by claiming it again */
static void
test_owner_handed_over (void)
{
  Owned owned = { { NULL }, 0 };

  run_on_other_thread (claim_and_use, &owned);
  g_assert_false (prs_thread_owner_is_current (&owned.owner));
  prs_thread_owner_claim (&owned.owner);
  g_assert_true (prs_thread_owner_is_current (&owned.owner));
  owned_use (&owned);
  g_assert_cmpuint (owned.uses, ==, 2);
}

/* ---- worker tasks: their source object let go where it was made ---- */

/* Rounds of each test: GLib's worker drops its task after the caller's
 * callback did in an eighth of the rounds to most of them, with the load
 * (2.74, two cores): 400 rounds of a plain g_task_run_in_thread () see it */
#define TASK_ROUNDS 400

typedef struct
{
  guint finalized;
  guint on_other_thread;
} Released;

static void
on_released (gpointer  data,
             GObject  *where_the_object_was)
{
  Released *released = data;

  /* The source object's dispose runs where its last reference goes */
  if (!PRS_IS_MAIN_THREAD ())
    g_atomic_int_inc (&released->on_other_thread);
  g_atomic_int_inc (&released->finalized);
}

static void
nothing_in_thread (GTask        *task,
                   gpointer      source,
                   gpointer      task_data,
                   GCancellable *cancellable)
{
  g_task_return_boolean (task, TRUE);
}

static void
on_nothing_done (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  gboolean *done = user_data;

  g_assert_true (g_task_propagate_boolean (G_TASK (result), NULL));
  *done = TRUE;
}

/* Iterates the main context until @released counts @n finalized objects:
 * their last holds may still be on their way here from a worker */
static void
wait_released (Released *released,
               guint     n)
{
  gint64 deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;

  while ((guint) g_atomic_int_get (&released->finalized) < n)
    {
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      if (!g_main_context_iteration (NULL, FALSE))
        g_usleep (100);
    }
}

/* The caller lets go of the source while the task runs, as a window closed
 * during an export does: the task's reference is then the last */
static void
test_task_source_released_on_caller (void)
{
  Released released = { 0, 0 };

  for (guint i = 0; i < TASK_ROUNDS; i++)
    {
      GObject *source = g_object_new (G_TYPE_OBJECT, NULL);
      gboolean done = FALSE;
      GTask *task = g_task_new (source, NULL, on_nothing_done, &done);

      g_object_weak_ref (source, on_released, &released);
      g_object_unref (source);
      prs_task_run_in_thread (task, nothing_in_thread);
      g_object_unref (task);
      while (!done)
        g_main_context_iteration (NULL, TRUE);
      wait_released (&released, i + 1);
    }
  g_assert_cmpuint (g_atomic_int_get (&released.on_other_thread), ==, 0);
}

static void
on_searching (PrsSearchList *list,
              GParamSpec    *pspec,
              gboolean      *answered)
{
  if (!prs_search_list_get_searching (list))
    *answered = TRUE;
}

/* The same through a caller: the search panel lets its list go while a
 * search runs; the list's dispose removes a source of the main context */
static void
test_search_list_released_on_main (PrsTestStoreDir *fixture,
                                   gconstpointer    data)
{
  g_autoptr(PrsStore) store = prs_test_store_dir_open (fixture);
  Released released = { 0, 0 };

  for (guint i = 0; i < TASK_ROUNDS; i++)
    {
      PrsSearchList *list = prs_search_list_new (fixture->db_path);
      gboolean answered = FALSE;

      g_object_weak_ref (G_OBJECT (list), on_released, &released);
      prs_search_list_set_query (list, "nothing", 0);
      g_assert_true (prs_search_list_get_searching (list));
      g_signal_connect (list, "notify::searching", G_CALLBACK (on_searching), &answered);
      g_object_unref (list);
      /* Waiting in the poll, as the window does: woken the moment the
       * worker queues the answer, so the answer is heard while the worker
       * may still hold the task */
      while (!answered)
        g_main_context_iteration (NULL, TRUE);
      wait_released (&released, i + 1);
    }
  g_assert_cmpuint (g_atomic_int_get (&released.on_other_thread), ==, 0);
}

/* ---- the window's thread asks for a short time slice ---- */

static gpointer
slice_of_new_thread (gpointer data)
{
  return GSIZE_TO_POINTER ((gsize) prs_test_thread_slice_ns ());
}

static gpointer
request_short_slice (gpointer data)
{
  guint64 before = prs_test_thread_slice_ns ();
  guint64 after;
  GThread *child;

  g_assert_true (prs_thread_request_short_slice ());
  after = prs_test_thread_slice_ns ();
  /* Shorter than the kernel's default (0.75 ms at the least) */
  g_assert_cmpuint (after, <, before);
  g_assert_cmpuint (after, <, 750000);
  /* A thread it starts afterwards has the default again */
  child = g_thread_new ("child", slice_of_new_thread, NULL);
  g_assert_cmpuint (GPOINTER_TO_SIZE (g_thread_join (child)), ==, before);
  return NULL;
}

static void
test_short_slice (void)
{
  if (prs_test_thread_slice_ns () == 0)
    {
      g_test_skip ("This kernel has no time slice per thread (Linux < 6.12)");
      return;
    }
  /* On a thread of its own: the slice stays with the thread that asked */
  run_on_other_thread (request_short_slice, NULL);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/prs/thread/main-thread-recorded", test_main_thread_recorded);
  g_test_add_func ("/prs/thread/settings-main-thread-only", test_settings_main_thread);
  g_test_add_func ("/prs/thread/conversation-list-main-thread-only", test_conversation_list_main_thread);
  g_test_add_func ("/prs/thread/service-main-thread-only", test_service_main_thread);
  g_test_add_func ("/prs/thread/owner-only", test_owner);
  g_test_add_func ("/prs/thread/owner-handed-over", test_owner_handed_over);
  g_test_add_func ("/prs/thread/task-source-released-on-caller", test_task_source_released_on_caller);
  g_test_add_func ("/prs/thread/short-slice", test_short_slice);
  g_test_add ("/prs/thread/search-list-released-on-main", PrsTestStoreDir, NULL,
              prs_test_store_dir_setup, test_search_list_released_on_main, prs_test_store_dir_teardown);

  return g_test_run ();
}
