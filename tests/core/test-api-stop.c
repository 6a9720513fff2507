/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-api-stop.c: the service stops in bounded time while an HTTPS
 * request to its API, made from the main context as Preferences' Check
 * Health makes it, is in its TLS handshake: stopped from inside the
 * client's accept-certificate handler (the client's handshake thread waits
 * for the main thread; the server's handshake is cancelled and shut down,
 * and the stop waits for its callback, which frees the connection), and
 * stopped outside any dispatch at each point of the handshake, with the
 * request cancelled first or not (a Preferences window closing before the
 * service stops). Freed memory is filled (M_PERTURB, as meson's
 * MALLOC_PERTURB_ does), so that a stop reading a freed connection waits
 * for ever; a watchdog turns that into a failure instead of a suite
 * blocked until its timeout (HACKING.md, the local API's stop). */
#include "config.h"

#include <libsoup/soup.h>
#include <malloc.h>

#include "prs-service.h"
#include "prs-test-util.h"

#define STOP_BOUND_US (3 * G_USEC_PER_SEC)

typedef struct
{
  char       *dir;
  PrsService *service;
  gint64      stop_took;
  gboolean    done;
} Fixture;

/* The start of the stop being watched (monotonic µs; 0: none) */
static GMutex watch_lock;
static gint64 watched_stop;

static gpointer
watchdog (gpointer data)
{
  for (;;)
    {
      gint64 started;

      g_mutex_lock (&watch_lock);
      started = watched_stop;
      g_mutex_unlock (&watch_lock);
      if (started != 0 && g_get_monotonic_time () - started > 4 * STOP_BOUND_US)
        g_error ("The service's stop has not returned after %d s", (int) (4 * STOP_BOUND_US / G_USEC_PER_SEC));
      g_usleep (G_USEC_PER_SEC / 10);
    }
  return NULL;
}

static void
watch_stop (gint64 started)
{
  g_mutex_lock (&watch_lock);
  watched_stop = started;
  g_mutex_unlock (&watch_lock);
}

/* Stops the service and records how long that took; the watchdog aborts
 * the test (a failure, not a suite blocked until its timeout) when the
 * stop never returns */
static void
stop_service (Fixture *f)
{
  gint64 start = g_get_monotonic_time ();

  watch_stop (start);
  prs_service_stop (f->service);
  watch_stop (0);
  f->stop_took = g_get_monotonic_time () - start;
}

/* A service holds its data folder's lock until it is finalized, and what
 * its stop left queued (a callback holding it) may run a little later on a
 * busy machine: the next one starts once the last is gone, as a restarted
 * app does */
static void
start_service (Fixture *f)
{
  g_autoptr(GError) error = NULL;
  gpointer last = f->service;
  gint64 until = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  gboolean started;

  if (last != NULL)
    g_object_add_weak_pointer (G_OBJECT (last), &last);
  g_clear_object (&f->service);
  while (last != NULL && g_get_monotonic_time () < until)
    if (!g_main_context_iteration (NULL, FALSE))
      g_usleep (G_USEC_PER_SEC / 1000);
  g_assert_null (last);

  f->service = prs_service_new (f->dir, prs_test_free_port ());
  started = prs_service_start (f->service, &error);
  g_assert_no_error (error);
  g_assert_true (started);
}

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  f->dir = g_dir_make_tmp ("prs-api-stop-XXXXXX", &error);
  g_assert_no_error (error);
  start_service (f);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  g_clear_object (&f->service);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  prs_test_remove_tree (f->dir);
  g_free (f->dir);
}

static void
on_answer (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  Fixture *f = user_data;
  g_autoptr(GBytes) body = soup_session_send_and_read_finish (SOUP_SESSION (source), result, NULL);

  f->done = TRUE;
}

static SoupMessage *
health_message (Fixture *f)
{
  g_autofree char *url = g_strdup_printf ("https://127.0.0.1:%u/api/health", prs_service_get_port (f->service));

  return soup_message_new (SOUP_METHOD_GET, url);
}

/* ---- stopped from the client's accept-certificate ---- */

static gboolean
stop_while_accepting (SoupMessage          *msg,
                      GTlsCertificate      *certificate,
                      GTlsCertificateFlags  errors,
                      Fixture              *f)
{
  stop_service (f);
  return TRUE;
}

static void
test_stop_in_accept_certificate (Fixture       *f,
                                 gconstpointer  data)
{
  g_autoptr(SoupSession) session = soup_session_new_with_options ("timeout", 10, NULL);
  g_autoptr(SoupMessage) msg = health_message (f);

  g_signal_connect (msg, "accept-certificate", G_CALLBACK (stop_while_accepting), f);
  soup_session_send_and_read_async (session, msg, G_PRIORITY_DEFAULT, NULL, on_answer, f);
  while (!f->done)
    g_main_context_iteration (NULL, TRUE);

  g_assert_cmpint (f->stop_took, >, 0);
  g_assert_cmpint (f->stop_took, <, STOP_BOUND_US);
}

/* ---- stopped outside any dispatch, at each point of the handshake ---- */

static gboolean
accept_any (SoupMessage          *msg,
            GTlsCertificate      *certificate,
            GTlsCertificateFlags  errors,
            gpointer              data)
{
  return TRUE;
}

static void
test_stop_mid_handshake (Fixture       *f,
                         gconstpointer  data)
{
  gboolean cancel_first = GPOINTER_TO_INT (data);

  /* The main context runs for 0, 1, 2… ms, then the service stops while
   * nothing dispatches on it: the client's handshake thread finds the main
   * context unowned, or waits for it */
  for (guint ms = 0; ms < 24; ms++)
    {
      g_autoptr(SoupSession) session = soup_session_new_with_options ("timeout", 10, NULL);
      g_autoptr(SoupMessage) msg = health_message (f);
      g_autoptr(GCancellable) cancellable = g_cancellable_new ();
      gint64 until = g_get_monotonic_time () + ms * 1000;

      f->done = FALSE;
      g_signal_connect (msg, "accept-certificate", G_CALLBACK (accept_any), NULL);
      soup_session_send_and_read_async (session, msg, G_PRIORITY_DEFAULT, cancellable, on_answer, f);
      while (g_get_monotonic_time () < until)
        g_main_context_iteration (NULL, FALSE);
      if (cancel_first)
        g_cancellable_cancel (cancellable);

      stop_service (f);
      g_assert_cmpint (f->stop_took, <, STOP_BOUND_US);

      while (!f->done)
        g_main_context_iteration (NULL, TRUE);
      start_service (f);
    }
  stop_service (f);
}

int
main (int    argc,
      char **argv)
{
  /* A freed connection's bytes are never left as they were */
  mallopt (M_PERTURB, 0x5a);
  g_test_init (&argc, &argv, NULL);
  g_thread_unref (g_thread_new ("watchdog", watchdog, NULL));

  g_test_add ("/api-stop/in-accept-certificate", Fixture, NULL,
              fixture_setup, test_stop_in_accept_certificate, fixture_teardown);
  g_test_add ("/api-stop/mid-handshake", Fixture, GINT_TO_POINTER (FALSE),
              fixture_setup, test_stop_mid_handshake, fixture_teardown);
  g_test_add ("/api-stop/mid-handshake-cancelled", Fixture, GINT_TO_POINTER (TRUE),
              fixture_setup, test_stop_mid_handshake, fixture_teardown);

  return g_test_run ();
}
