/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-api-connections.c: the local API's connections, on the API thread
 * (HACKING.md, docs/api.md).
 *
 * libsoup 3.2.3 is not hardened for untrusted clients (notes/platform.md),
 * so the server owns the accept loop and every connection's life:
 *
 *   accept → caps (total, per peer) → wait for a complete first TLS record,
 *   5 s → TLS handshake (at most MAX_HANDSHAKES at once, 5 s) →
 *   soup_server_accept_iostream() into the current libsoup server
 *   (prs-api-generations.c) → per-request deadline (30 s from the start of
 *   a request to its handler, 30 s to write the answer), 10 s idle between
 *   kept-alive requests, at most MAX_REQUESTS_PER_CONN requests →
 *   shutdown, then close the fd ourselves if libsoup does not.
 *
 * Idle sockets therefore never hold a thread-pool thread in a handshake,
 * half-sent requests are cut off, and no fd outlives its deadline even where
 * libsoup 3.2.3 forgets a connection. The early handler rejects before the
 * body is read and stops libsoup accumulating it. */
#include "config.h"

#include <errno.h>
#include <malloc.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <glib/gstdio.h>
#include <gio/gunixsocketaddress.h>
#include <glib/gi18n-lib.h>

#include "prs-api-framing.h"
#include "prs-api-server-private.h"
#include "prs-api-stream.h"
#include "prs-error.h"

#define MAX_CONNECTIONS          256
#define MAX_CONNECTIONS_PER_PEER 32    /* other than loopback, which only has the total */
#define MAX_HANDSHAKES           4     /* the shared GLib thread pool has about ten threads */
#define FIRST_RECORD_TIMEOUT_US  (5 * G_USEC_PER_SEC)
#define HANDSHAKE_TIMEOUT_US     (5 * G_USEC_PER_SEC)
#define REQUEST_TIMEOUT_US       (20 * G_USEC_PER_SEC)
#define BODY_TIMEOUT_US          (10 * G_USEC_PER_SEC)
#define RESPONSE_TIMEOUT_US      (30 * G_USEC_PER_SEC)
#define IDLE_TIMEOUT_US          (10 * G_USEC_PER_SEC)
#define CLOSE_GRACE_US           (1 * G_USEC_PER_SEC)
#define SWEEP_INTERVAL_MS        250
/* After a burst, once no connection has been open this long, the memory
 * freed by TLS sessions and requests goes back to the system (a trim
 * costs well under a millisecond; at 2 s a client pausing between bursts
 * seldom saw it) */
#define TRIM_AFTER_IDLE_US       (1 * G_USEC_PER_SEC)
#define PEEK_POLL_MS             20
#define MAX_REQUESTS_PER_CONN    1000

static void conn_close        (Conn *conn);
static void conn_destroy      (Conn *conn);
static void start_handshake   (Conn *conn);

/* ---- connections ---- */

static char *
address_to_peer (GSocketAddress *address,
                 gboolean       *loopback)
{
  GInetAddress *inet;

  *loopback = FALSE;
  if (!G_IS_INET_SOCKET_ADDRESS (address))
    return g_strdup ("?");

  inet = g_inet_socket_address_get_address (G_INET_SOCKET_ADDRESS (address));
  *loopback = g_inet_address_get_is_loopback (inet);
  return g_inet_address_to_string (inet);
}

static guint
peer_count (ApiThread  *t,
            const char *peer)
{
  return GPOINTER_TO_UINT (g_hash_table_lookup (t->peer_counts, peer));
}

static void
peer_count_add (ApiThread  *t,
                const char *peer,
                int         delta)
{
  guint count = peer_count (t, peer);

  count = (guint) ((int) count + delta);
  if (count == 0)
    g_hash_table_remove (t->peer_counts, peer);
  else
    g_hash_table_replace (t->peer_counts, g_strdup (peer), GUINT_TO_POINTER (count));
}

static void
conn_clear_wait_source (Conn *conn)
{
  if (conn->wait_source != NULL)
    {
      g_source_destroy (conn->wait_source);
      g_clear_pointer (&conn->wait_source, g_source_unref);
    }
}

/* Forgets the connection: the fd is closed unless libsoup still holds it
 * and has not had its grace period yet (the caller decides). */
static void
conn_destroy (Conn *conn)
{
  ApiThread *t = conn->thread;

  g_assert (!conn->handshake_pending);

  conn_clear_wait_source (conn);
  g_queue_unlink (&t->conns, &conn->link);
  g_queue_remove (&t->handshake_queue, conn);
  if (conn->remote != NULL)
    {
      if (g_hash_table_lookup (t->conns_by_remote, conn->remote) == conn)
        g_hash_table_remove (t->conns_by_remote, conn->remote);
    }
  peer_count_add (t, conn->peer, -1);
  prs_api_generation_forget (conn);

  if (conn->socket != NULL && !g_socket_is_closed (conn->socket))
    g_socket_close (conn->socket, NULL);

  g_clear_object (&conn->cancellable);
  g_clear_object (&conn->stream);
  g_clear_object (&conn->tls);
  g_clear_object (&conn->reader);
  g_clear_object (&conn->connection);
  g_clear_object (&conn->socket);
  g_clear_object (&conn->remote);
  g_clear_object (&conn->local);
  g_free (conn->peer);
  g_free (conn);
}

static void
conn_close (Conn *conn)
{
  switch (conn->state)
    {
    case CONN_WAITING:
    case CONN_QUEUED:
      conn_destroy (conn);
      break;

    case CONN_HANDSHAKING:
      /* The handshake's callback destroys it */
      conn->state = CONN_CLOSING;
      g_cancellable_cancel (conn->cancellable);
      g_socket_shutdown (conn->socket, TRUE, TRUE, NULL);
      break;

    case CONN_HTTP:
      /* libsoup sees EOF on its next read and lets go; if it has no read
       * pending (3.2.3's keep-alive leak), the sweep closes the fd. */
      conn->state = CONN_CLOSING;
      conn->close_deadline = g_get_monotonic_time () + CLOSE_GRACE_US;
      g_socket_shutdown (conn->socket, TRUE, TRUE, NULL);
      break;

    case CONN_CLOSING:
    default:
      break;
    }
}

/* The client closed an idle keep-alive connection. libsoup 3.2.3 misses
 * this after a request with a body (CLOSE-WAIT forever), and when the
 * client reset it (CLOSE: a client that closes with an answer unread, as
 * load generators do when they stop); the kernel knows. */
static gboolean
peer_has_closed (Conn *conn)
{
  struct tcp_info info;
  socklen_t len = sizeof info;

  if (getsockopt (g_socket_get_fd (conn->socket), IPPROTO_TCP, TCP_INFO, &info, &len) != 0)
    return FALSE;

  return info.tcpi_state == TCP_CLOSE_WAIT || info.tcpi_state == TCP_CLOSE;
}

/* Destroys @conn if nothing will use it again: libsoup closed it, its
 * grace after a shutdown is over, or the client closed it between two
 * requests (libsoup 3.2.3 never lets go of that one: the leak that
 * prs-api-generations.c bounds; closing the fd now frees the fd, and the
 * slot under MAX_CONNECTIONS). */
static gboolean
conn_reap (Conn   *conn,
           gint64  now)
{
  if (conn->handshake_pending)
    return FALSE;

  if (((conn->state == CONN_HTTP || conn->state == CONN_CLOSING) && g_socket_is_closed (conn->socket)) ||
      (conn->state == CONN_CLOSING && now > conn->close_deadline) ||
      (conn->state == CONN_HTTP && conn->between_requests && peer_has_closed (conn)))
    {
      conn_destroy (conn);
      return TRUE;
    }

  return FALSE;
}

static void
reap_all (ApiThread *t,
          gint64     now)
{
  GList *l = t->conns.head;

  while (l != NULL)
    {
      Conn *conn = l->data;

      l = l->next;
      conn_reap (conn, now);
    }
}

static gboolean
sweep (gpointer data)
{
  ApiThread *t = data;
  gint64 now = g_get_monotonic_time ();
  GList *l = t->conns.head;

  PRS_ASSERT_OWNER (&t->owner);

  while (l != NULL)
    {
      Conn *conn = l->data;

      l = l->next;
      if (conn->handshake_pending)
        {
          if (conn->state == CONN_HANDSHAKING && conn->deadline != 0 && now > conn->deadline)
            conn_close (conn);
        }
      else if (!conn_reap (conn, now) &&
               conn->state != CONN_CLOSING && conn->deadline != 0 && now > conn->deadline)
        conn_close (conn);
    }
  prs_api_generations_sweep (t);

  /* glibc keeps what a burst of connections freed (the thread pool's
   * arenas: ~5 MB after 20,000 TLS connections); hand it back when idle */
  if (t->conns.length > 0)
    t->idle_since = 0;
  else if (t->idle_since == 0)
    t->idle_since = now;
  else if (t->conns_since_trim > 0 && now - t->idle_since >= TRIM_AFTER_IDLE_US)
    {
      malloc_trim (0);
      t->conns_since_trim = 0;
    }

  return G_SOURCE_CONTINUE;
}

/* The oldest connection that has not started a request, to make room */
static gboolean
evict_one (ApiThread *t)
{
  for (GList *l = t->conns.head; l != NULL; l = l->next)
    {
      Conn *conn = l->data;

      if (conn->state == CONN_WAITING || conn->state == CONN_QUEUED ||
          (conn->state == CONN_HTTP && conn->between_requests))
        {
          conn_close (conn);
          return TRUE;
        }
    }

  return FALSE;
}

static void
on_handshake_done (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  Conn *conn = user_data;
  ApiThread *t = conn->thread;
  g_autoptr(GError) error = NULL;
  SoupServer *soup;
  gboolean ok;

  ok = g_tls_connection_handshake_finish (G_TLS_CONNECTION (source), result, &error);
  conn->handshake_pending = FALSE;
  t->handshakes_running--;

  /* Hand the slot to the next waiting connection */
  while (t->handshakes_running < MAX_HANDSHAKES && t->handshake_queue.length > 0)
    start_handshake (g_queue_pop_head (&t->handshake_queue));

  if (!ok || conn->state != CONN_HANDSHAKING)
    {
      g_debug ("TLS handshake with %s failed: %s", conn->peer,
               error != NULL ? error->message : "timed out");
      conn_destroy (conn);
      return;
    }

  conn->state = CONN_HTTP;
  conn->deadline = g_get_monotonic_time () + REQUEST_TIMEOUT_US;
  g_hash_table_insert (t->conns_by_remote, conn->remote, conn);

  soup = prs_api_generation_adopt (t, conn);
  conn->stream = prs_api_stream_new (conn->tls);
  if (!soup_server_accept_iostream (soup, conn->stream, conn->local, conn->remote, &error))
    {
      g_debug ("Could not serve %s: %s", conn->peer, error->message);
      conn_destroy (conn);
    }
}

static void
start_handshake (Conn *conn)
{
  ApiThread *t = conn->thread;
  static const char * const protocols[] = { "http/1.1", NULL };
  g_autoptr(GError) error = NULL;

  if (t->handshakes_running >= MAX_HANDSHAKES)
    {
      conn->state = CONN_QUEUED;
      g_queue_push_tail (&t->handshake_queue, conn);
      return;
    }

  conn->connection = g_socket_connection_factory_create_connection (conn->socket);
  conn->reader = prs_api_stream_wrap_socket (G_IO_STREAM (conn->connection));
  /* "database" set explicitly to NULL at construction: there are no client
   * certificates to check, and otherwise glib-networking loads the system
   * trust store for every connection (twice 217 KB parsed, ~4 MB of RSS,
   * ~40 ms: measured in tests/api/HARDENING.md). libsoup does the same. */
  conn->tls = g_initable_new (g_tls_backend_get_server_connection_type (g_tls_backend_get_default ()),
                              NULL, &error,
                              "base-io-stream", conn->reader,
                              "certificate", t->certificate,
                              "database", NULL,
                              "authentication-mode", G_TLS_AUTHENTICATION_NONE,
                              "require-close-notify", FALSE,
                              NULL);
  if (conn->tls == NULL)
    {
      g_debug ("Could not start TLS: %s", error->message);
      conn_destroy (conn);
      return;
    }
  g_tls_connection_set_advertised_protocols (G_TLS_CONNECTION (conn->tls), protocols);

  conn->state = CONN_HANDSHAKING;
  conn->deadline = g_get_monotonic_time () + HANDSHAKE_TIMEOUT_US;
  conn->cancellable = g_cancellable_new ();
  conn->handshake_pending = TRUE;
  t->handshakes_running++;
  g_tls_connection_handshake_async (G_TLS_CONNECTION (conn->tls), G_PRIORITY_DEFAULT,
                                    conn->cancellable, on_handshake_done, conn);
}

static gboolean on_first_bytes (GSocket      *socket,
                                GIOCondition  condition,
                                gpointer      user_data);

static gboolean
on_peek_timer (gpointer user_data)
{
  return on_first_bytes (NULL, G_IO_IN, user_data);
}

/* The handshake only starts once the whole first TLS record (the
 * ClientHello) is here, so it never waits for it on a pool thread. */
static gboolean
on_first_bytes (GSocket      *socket,
                GIOCondition  condition,
                gpointer      user_data)
{
  Conn *conn = user_data;
  ApiThread *t = conn->thread;
  int fd = g_socket_get_fd (conn->socket);
  gssize n;
  gsize needed;

  n = recv (fd, t->peek_buffer, 5, MSG_PEEK | MSG_DONTWAIT);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
    return G_SOURCE_CONTINUE;
  if (n <= 0 || t->peek_buffer[0] != 0x16)
    {
      /* EOF, an error, or not TLS */
      g_clear_pointer (&conn->wait_source, g_source_unref);
      conn_destroy (conn);
      return G_SOURCE_REMOVE;
    }

  needed = 5;
  if (n == 5)
    {
      needed += ((gsize) t->peek_buffer[3] << 8) | t->peek_buffer[4];
      if (needed > sizeof t->peek_buffer)
        needed = sizeof t->peek_buffer;
      n = recv (fd, t->peek_buffer, needed, MSG_PEEK | MSG_DONTWAIT);
    }

  if (n < (gssize) needed)
    {
      /* Part of a record: the data stays readable, so poll on a timer
       * instead of spinning; the sweep enforces the deadline. */
      if (socket != NULL)
        {
          GSource *timer = g_timeout_source_new (PEEK_POLL_MS);

          g_source_set_callback (timer, on_peek_timer, conn, NULL);
          g_source_attach (timer, t->context);
          g_clear_pointer (&conn->wait_source, g_source_unref);
          conn->wait_source = timer;
          return G_SOURCE_REMOVE;
        }
      return G_SOURCE_CONTINUE;
    }

  g_clear_pointer (&conn->wait_source, g_source_unref);
  start_handshake (conn);
  return G_SOURCE_REMOVE;
}

static void
admit (ApiThread *t,
       GSocket   *socket)
{
  g_autoptr(GSocketAddress) remote = g_socket_get_remote_address (socket, NULL);
  g_autoptr(GSocketAddress) local = g_socket_get_local_address (socket, NULL);
  gboolean loopback = FALSE;
  g_autofree char *peer = NULL;
  Conn *conn;

  if (remote == NULL || local == NULL)
    {
      g_socket_close (socket, NULL);
      return;
    }

  peer = address_to_peer (remote, &loopback);
  /* Loopback always; with LAN listening on, the allowlisted sources too.
   * Anything else is closed here, before a byte of TLS. */
  if (!loopback &&
      !(t->lan && prs_api_allowlist_allows_socket_address (t->allowlist, remote)))
    {
      g_debug ("Refusing a connection from %s (not an allowed source)", peer);
      g_socket_close (socket, NULL);
      return;
    }

  /* Connections that ended since the last sweep first, then the oldest
   * that has not started a request */
  if (t->conns.length >= MAX_CONNECTIONS)
    reap_all (t, g_get_monotonic_time ());
  if (t->conns.length >= MAX_CONNECTIONS && !evict_one (t))
    {
      g_debug ("Connection limit reached; refusing %s", peer);
      g_socket_close (socket, NULL);
      return;
    }
  if (!loopback && peer_count (t, peer) >= MAX_CONNECTIONS_PER_PEER)
    {
      g_socket_close (socket, NULL);
      return;
    }

  /* The handshake's flights are written apart: without this, Nagle and
   * delayed ACKs add ~40 ms to each handshake (an answer is one write:
   * prs-api-stream.c) */
  g_socket_set_option (socket, IPPROTO_TCP, TCP_NODELAY, 1, NULL);

  conn = g_new0 (Conn, 1);
  conn->thread = t;
  conn->link.data = conn;
  conn->state = CONN_WAITING;
  conn->socket = g_object_ref (socket);
  conn->remote = g_steal_pointer (&remote);
  conn->local = g_steal_pointer (&local);
  conn->peer = g_steal_pointer (&peer);
  conn->loopback = loopback;
  conn->deadline = g_get_monotonic_time () + FIRST_RECORD_TIMEOUT_US;
  g_queue_push_tail_link (&t->conns, &conn->link);
  t->conns_since_trim++;
  peer_count_add (t, conn->peer, 1);

  conn->wait_source = g_socket_create_source (socket, G_IO_IN | G_IO_HUP | G_IO_ERR, NULL);
  g_source_set_callback (conn->wait_source, G_SOURCE_FUNC (on_first_bytes), conn, NULL);
  g_source_attach (conn->wait_source, t->context);
}

static gboolean
on_incoming (GSocket      *socket,
             GIOCondition  condition,
             gpointer      user_data)
{
  Listener *listener = user_data;

  PRS_ASSERT_OWNER (&listener->thread->owner);

  /* A bounded batch per wake-up, so a flood cannot starve requests */
  for (guint i = 0; i < 64; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GSocket) accepted = g_socket_accept (socket, NULL, &error);

      if (accepted == NULL)
        {
          if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK))
            g_debug ("accept() failed: %s", error->message);
          break;
        }
      admit (listener->thread, accepted);
    }

  return G_SOURCE_CONTINUE;
}

/* ---- libsoup hooks ---- */

static Conn *
conn_for_message (ApiThread         *t,
                  SoupServerMessage *msg)
{
  GSocketAddress *remote = soup_server_message_get_remote_address (msg);

  return remote != NULL ? g_hash_table_lookup (t->conns_by_remote, remote) : NULL;
}

static void
on_got_chunk (SoupServerMessage *msg,
              GBytes            *chunk,
              gpointer           user_data)
{
  ApiThread *t = user_data;
  Conn *conn = conn_for_message (t, msg);

  if (conn == NULL || conn->rejected)
    return;

  conn->body_bytes += g_bytes_get_size (chunk);
  if (conn->body_bytes > PRS_API_MAX_BODY)
    {
      PrsApiRejection too_large = { SOUP_STATUS_REQUEST_ENTITY_TOO_LARGE, "body-too-large",
                                    "The request body is larger than 1 MiB." };

      conn->rejected = TRUE;
      prs_api_guard_reject (msg, &too_large);
    }
}

/* request-finished and request-aborted: the answer is written (or never
 * will be) */
static void
on_request_done (SoupServer        *soup,
                 SoupServerMessage *msg,
                 gpointer           user_data)
{
  ApiThread *t = user_data;
  Conn *conn = conn_for_message (t, msg);

  if (conn != NULL && conn->state == CONN_HTTP)
    {
      conn->deadline = g_get_monotonic_time () + IDLE_TIMEOUT_US;
      conn->between_requests = TRUE;
    }
}

static void
on_request_started (SoupServer        *soup,
                    SoupServerMessage *msg,
                    gpointer           user_data)
{
  ApiThread *t = user_data;
  Conn *conn = conn_for_message (t, msg);

  /* Until the early handler has checked this request, its answer closes
   * the connection: libsoup refuses some requests itself before any
   * handler runs (an http:// target over TLS, a path with ".."), and
   * those skipped the framing checks */
  soup_message_headers_replace (soup_server_message_get_response_headers (msg), "Connection", "close");

  if (conn == NULL)
    return;

  conn->requests++;
  conn->body_bytes = 0;
  conn->rejected = FALSE;
  /* A kept-alive connection's next request has begun: not idle, even if
   * the client closes its side after sending it */
  conn->between_requests = FALSE;
  /* The headers of a first request within 20 s; on a kept-alive
   * connection the idle deadline (10 s) covers them. The body then has
   * 10 s more: no request takes longer than 30 s to arrive. */
  if (conn->state == CONN_HTTP && conn->requests == 1)
    conn->deadline = g_get_monotonic_time () + REQUEST_TIMEOUT_US;
}

static void
early_handler (SoupServer        *soup,
               SoupServerMessage *msg,
               const char        *path,
               GHashTable        *query,
               gpointer           user_data)
{
  ApiThread *t = user_data;
  Conn *conn = conn_for_message (t, msg);
  PrsApiRejection rejection;

  PRS_ASSERT_OWNER (&t->owner);

  if (conn != NULL)
    {
      conn->between_requests = FALSE;
      conn->deadline = g_get_monotonic_time () + BODY_TIMEOUT_US;
    }

  /* Framing first: the end of a badly framed request is unknown */
  if (conn != NULL && !prs_api_framing_check (msg, &rejection))
    {
      conn->rejected = TRUE;
      prs_api_framing_reject (msg, conn->stream, &rejection);
      conn_close (conn);
      return;
    }

  if (!prs_api_guard_check (t->guard, msg, path, &rejection))
    {
      if (conn != NULL)
        conn->rejected = TRUE;
      prs_api_guard_reject (msg, &rejection);
      return;
    }

  /* A chunked body has no declared size for the guard: counted as it
   * comes (Content-Length bodies were checked above) */
  if (soup_message_headers_get_encoding (soup_server_message_get_request_headers (msg)) == SOUP_ENCODING_CHUNKED)
    g_signal_connect (msg, "got-chunk", G_CALLBACK (on_got_chunk), t);

  /* Framing and the guard ran on this request, whichever request of its
   * connection it is; kept alive, the next one goes through both again */
  if (conn != NULL && prs_api_generation_keeps_alive (conn) && conn->requests < MAX_REQUESTS_PER_CONN)
    soup_message_headers_remove (soup_server_message_get_response_headers (msg), "Connection");
}

static void
request_handler (SoupServer        *soup,
                 SoupServerMessage *msg,
                 const char        *path,
                 GHashTable        *query,
                 gpointer           user_data)
{
  ApiThread *t = user_data;
  Conn *conn = conn_for_message (t, msg);

  PRS_ASSERT_OWNER (&t->owner);

  t->routes.deferred_seconds = 0;
  prs_api_routes_handle (&t->routes, msg, path, query);

  /* The answer must be written within its own deadline; a paused one
   * (an agent run) has its wait on top */
  if (conn != NULL && conn->state == CONN_HTTP)
    conn->deadline = g_get_monotonic_time () + RESPONSE_TIMEOUT_US +
                     (gint64) t->routes.deferred_seconds * G_USEC_PER_SEC;
  t->routes.deferred_seconds = 0;
}

void
prs_api_connections_attach (ApiThread  *t,
                            SoupServer *soup)
{
  g_signal_connect (soup, "request-started", G_CALLBACK (on_request_started), t);
  g_signal_connect (soup, "request-finished", G_CALLBACK (on_request_done), t);
  g_signal_connect (soup, "request-aborted", G_CALLBACK (on_request_done), t);
  soup_server_add_early_handler (soup, NULL, early_handler, t, NULL);
  soup_server_add_handler (soup, NULL, request_handler, t, NULL);
}

static Listener *
listen_on (ApiThread    *t,
           const char   *address_text,
           guint         port,
           GError      **error)
{
  g_autoptr(GInetAddress) address = g_inet_address_new_from_string (address_text);
  g_autoptr(GSocketAddress) socket_address = g_inet_socket_address_new (address, (guint16) port);
  g_autoptr(GSocket) socket = NULL;
  g_autoptr(GError) local_error = NULL;
  Listener *listener;

  socket = g_socket_new (g_inet_address_get_family (address), G_SOCKET_TYPE_STREAM,
                         G_SOCKET_PROTOCOL_TCP, error);
  if (socket == NULL)
    return NULL;

  if (g_inet_address_get_family (address) == G_SOCKET_FAMILY_IPV6)
    g_socket_set_option (socket, IPPROTO_IPV6, IPV6_V6ONLY, 1, NULL);

  if (!g_socket_bind (socket, socket_address, TRUE, &local_error))
    {
      if (g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_ADDRESS_IN_USE))
        /* Translators: %u is a TCP port, %s an IP address */
        g_set_error (error, PRS_ERROR, PRS_ERROR_FAILED,
                     _("Port %u is already in use on %s: is another Prosponsive running, "
                       "or another program using it?"), port, address_text);
      else
        g_propagate_error (error, g_steal_pointer (&local_error));
      return NULL;
    }

  g_socket_set_listen_backlog (socket, 256);
  if (!g_socket_listen (socket, error))
    return NULL;
  g_socket_set_blocking (socket, FALSE);

  listener = g_new0 (Listener, 1);
  listener->thread = t;
  listener->socket = g_steal_pointer (&socket);
  listener->source = g_socket_create_source (listener->socket, G_IO_IN, NULL);
  g_source_set_callback (listener->source, G_SOURCE_FUNC (on_incoming), listener, NULL);
  g_source_attach (listener->source, t->context);
  return listener;
}

static void
listener_free (gpointer data)
{
  Listener *listener = data;

  g_source_destroy (listener->source);
  g_source_unref (listener->source);
  g_socket_close (listener->socket, NULL);
  g_object_unref (listener->socket);
  g_free (listener);
}

/* ---- starting and stopping ---- */

gboolean
prs_api_connections_start (ApiThread  *t,
                           guint       port,
                           GError    **error)
{
  g_autoptr(GError) v6_error = NULL;
  Listener *listener;

  t->listeners = g_ptr_array_new_with_free_func (listener_free);
  t->conns_by_remote = g_hash_table_new (NULL, NULL);
  t->peer_counts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_queue_init (&t->conns);
  g_queue_init (&t->handshake_queue);

  prs_api_generations_start (t);

  /* LAN listening binds the wildcard addresses, which include loopback
   * (Linux refuses 127.0.0.1 and 0.0.0.0 on one port): admit() decides */
  listener = listen_on (t, t->lan ? "0.0.0.0" : "127.0.0.1", port, error);
  if (listener == NULL)
    return FALSE;
  g_ptr_array_add (t->listeners, listener);

  listener = listen_on (t, t->lan ? "::" : "::1", port, &v6_error);
  if (listener != NULL)
    g_ptr_array_add (t->listeners, listener);
  else if (g_error_matches (v6_error, PRS_ERROR, PRS_ERROR_FAILED))
    {
      g_propagate_error (error, g_steal_pointer (&v6_error));
      return FALSE;
    }
  else
    g_message ("Not listening on [%s]: %s", t->lan ? "::" : "::1", v6_error->message);

  t->sweep_source = g_timeout_source_new (SWEEP_INTERVAL_MS);
  g_source_set_callback (t->sweep_source, sweep, t, NULL);
  g_source_attach (t->sweep_source, t->context);

  return TRUE;
}

void
prs_api_connections_stop (ApiThread *t)
{
  if (t->sweep_source != NULL)
    {
      g_source_destroy (t->sweep_source);
      g_clear_pointer (&t->sweep_source, g_source_unref);
    }
  g_clear_pointer (&t->listeners, g_ptr_array_unref);

  /* Close every fd now. A connection in its handshake is the
   * handshake callback's to destroy: it is cancelled and shut down here
   * (glib-networking then ends the handshake at once, whatever the peer
   * does: its thread waits on the socket with the cancellable, and the
   * shutdown ends a read with EOF), and the wait below is on the
   * thread's count of running handshakes, never on the Conn, which the
   * callback frees (reading conn->handshake_pending after it ran read
   * freed memory: with MALLOC_PERTURB_, as meson's tests run, the stop
   * waited forever). Every other connection, the queued ones too, is
   * destroyed before the wait, so no callback starts another handshake. */
  for (GList *l = t->conns.head; l != NULL;)
    {
      Conn *conn = l->data;

      l = l->next;
      if (conn->handshake_pending)
        {
          conn->state = CONN_CLOSING;
          g_cancellable_cancel (conn->cancellable);
          g_socket_shutdown (conn->socket, TRUE, TRUE, NULL);
        }
      else
        conn_destroy (conn);
    }
  while (t->handshakes_running > 0)
    g_main_context_iteration (t->context, TRUE);
  g_assert (t->conns.length == 0);

  /* libsoup's objects go with their servers */
  prs_api_generations_stop (t);
  g_clear_pointer (&t->conns_by_remote, g_hash_table_unref);
  g_clear_pointer (&t->peer_counts, g_hash_table_unref);
}
