/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-api-generations.c: keep-alive without libsoup 3.2.3's leak
 * (tests/api/HARDENING.md, "Keep-alive").
 *
 * libsoup 3.2.3 keeps a kept-alive connection that the client closes in
 * its server's client list for good (~24 KB each); no public API reaches
 * it, but soup_server_disconnect () frees every connection a server still
 * lists. So the accept loop hands connections to a *generation*: a
 * SoupServer that takes at most GENERATION_CONNECTIONS connections. Then
 * a new generation takes the next ones, and the old one retires: every
 * answer it still gives closes its connection (Connection: close, which
 * libsoup follows without leaking), its idle connections end at their idle
 * deadline, and once it has no connection left open and no request alive
 * it is disconnected and freed, with whatever it leaked. A generation that
 * takes new connections is freed the same way when all of them have gone.
 *
 * What stays leaked is therefore bounded by the connections of the
 * generations alive: at most MAX_GENERATIONS × GENERATION_CONNECTIONS,
 * whatever the number of connections over a day. When every slot is
 * pinned (requests that wait for a long agent run), new connections are
 * still served, without keep-alive, until a generation drains.
 *
 * On libsoup ≥ 3.3 nothing leaks, and the same code runs: a generation
 * switch costs a new SoupServer, no client notices. */
#include "config.h"

#include <errno.h>
#include <unistd.h>
#include <glib/gstdio.h>
#include <gio/gunixsocketaddress.h>

#include "prs-api-server-private.h"

/* Measured in tests/api/HARDENING.md: leaked memory ~24 KB per connection
 * on 3.2.3, a switch ~60 µs of CPU */
#define GENERATION_CONNECTIONS 32
#define MAX_GENERATIONS        8

struct _ApiGeneration
{
  SoupServer *soup;         /* NULL once disconnected */
  GList       link;         /* in ApiThread.generations */
  guint       handed;       /* connections accepted so far */
  guint       open;         /* of those, still open (their Conn alive) */
  int         in_flight;    /* atomic: started messages not yet freed */
  gboolean    retiring;     /* takes no new connections; answers close */
};

static GQuark
message_quark (void)
{
  return g_quark_from_static_string ("prs-api-generation");
}

static void
generation_release (gpointer data)
{
  g_atomic_rc_box_release (data);
}

/* A message holds its generation until it is freed: a request still being
 * read, handled (an agent run can take minutes) or written keeps its
 * server alive, whoever frees the message, on whichever thread */
static void
message_released (gpointer data)
{
  ApiGeneration *generation = data;

  g_atomic_int_add (&generation->in_flight, -1);
  generation_release (generation);
}

static void
on_request_started (SoupServer        *soup,
                    SoupServerMessage *msg,
                    gpointer           user_data)
{
  ApiGeneration *generation = user_data;

  g_atomic_int_inc (&generation->in_flight);
  g_object_set_qdata_full (G_OBJECT (msg), message_quark (),
                           g_atomic_rc_box_acquire (generation), message_released);
}

/* libsoup 3.2.3 keeps a connection alive only while its server has a
 * listener of its own (soup-server.c, request_finished), and ours are not
 * libsoup's. Each generation gets one nobody can reach: a duplicate of a
 * Unix socket that listens on a path unlinked at once. */
static gboolean
make_unreachable_socket (ApiThread  *t,
                         GError    **error)
{
  g_autofree char *dir = g_dir_make_tmp ("prs-api-XXXXXX", error);
  g_autofree char *path = NULL;
  g_autoptr(GSocketAddress) address = NULL;
  g_autoptr(GSocket) socket = NULL;
  gboolean ok;

  if (dir == NULL)
    return FALSE;

  path = g_build_filename (dir, "s", NULL);
  address = g_unix_socket_address_new (path);
  socket = g_socket_new (G_SOCKET_FAMILY_UNIX, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_DEFAULT, error);
  ok = socket != NULL && g_socket_bind (socket, address, FALSE, error) && g_socket_listen (socket, error);
  g_unlink (path);
  g_rmdir (dir);
  if (ok)
    t->unreachable = g_steal_pointer (&socket);
  return ok;
}

static gboolean
add_unreachable_listener (ApiThread   *t,
                          SoupServer  *soup,
                          GError     **error)
{
  g_autoptr(GSocket) copy = NULL;
  int fd = dup (g_socket_get_fd (t->unreachable));

  if (fd < 0)
    {
      g_set_error_literal (error, G_IO_ERROR, g_io_error_from_errno (errno), g_strerror (errno));
      return FALSE;
    }
  copy = g_socket_new_from_fd (fd, error);
  if (copy == NULL)
    {
      close (fd);
      return FALSE;
    }
  /* libsoup closes its copy when the generation is disconnected */
  return soup_server_listen_socket (soup, copy, 0, error);
}

static ApiGeneration *
generation_new (ApiThread *t)
{
  ApiGeneration *generation = g_atomic_rc_box_new0 (ApiGeneration);
  g_autoptr(GError) error = NULL;

  generation->link.data = generation;
  generation->soup = soup_server_new ("server-header", "Prosponsive/" PACKAGE_VERSION " ", NULL);
  g_signal_connect (generation->soup, "request-started", G_CALLBACK (on_request_started), generation);
  prs_api_connections_attach (t, generation->soup);
  if (t->keep_alive && !add_unreachable_listener (t, generation->soup, &error))
    {
      g_message ("Keep-alive is off for the local API: %s", error->message);
      t->keep_alive = FALSE;
    }
  g_queue_push_tail_link (&t->generations, &generation->link);
  return generation;
}

static void
generation_free (ApiThread     *t,
                 ApiGeneration *generation)
{
  g_queue_unlink (&t->generations, &generation->link);
  if (t->generation == generation)
    t->generation = NULL;
  /* Frees every connection it still lists: the leaked ones too */
  soup_server_disconnect (generation->soup);
  g_clear_object (&generation->soup);
  generation_release (generation);
}

gboolean
prs_api_generations_start (ApiThread *t)
{
  g_autoptr(GError) error = NULL;

  g_queue_init (&t->generations);
  t->keep_alive = make_unreachable_socket (t, &error);
  if (!t->keep_alive)
    g_message ("Keep-alive is off for the local API: %s", error->message);
  return t->keep_alive;
}

SoupServer *
prs_api_generation_adopt (ApiThread *t,
                          Conn      *conn)
{
  ApiGeneration *generation = t->generation;

  gboolean pinned = FALSE;

  g_assert (conn->generation == NULL);

  if (generation != NULL && generation->handed >= GENERATION_CONNECTIONS)
    {
      if (t->generations.length < MAX_GENERATIONS)
        {
          generation->retiring = TRUE;
          generation = NULL;
        }
      else
        /* Every generation is pinned: serve without keep-alive, which
         * leaks nothing, until one drains */
        pinned = TRUE;
    }
  if (generation == NULL)
    t->generation = generation = generation_new (t);

  conn->keep_alive = t->keep_alive && !pinned;

  generation->handed++;
  generation->open++;
  conn->generation = generation;
  return generation->soup;
}

void
prs_api_generation_forget (Conn *conn)
{
  if (conn->generation != NULL)
    conn->generation->open--;
  conn->generation = NULL;
}

gboolean
prs_api_generation_keeps_alive (Conn *conn)
{
  return conn->keep_alive && conn->generation != NULL && !conn->generation->retiring;
}

void
prs_api_generations_sweep (ApiThread *t)
{
  GList *l = t->generations.head;

  while (l != NULL)
    {
      ApiGeneration *generation = l->data;

      l = l->next;
      if (generation->open == 0 && generation->handed > 0 &&
          g_atomic_int_get (&generation->in_flight) == 0)
        generation_free (t, generation);
    }
}

void
prs_api_generations_stop (ApiThread *t)
{
  while (t->generations.head != NULL)
    generation_free (t, t->generations.head->data);
  g_clear_object (&t->unreachable);
}
