/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-api-server-private.h: the API thread's state, shared by the server
 * (prs-api-server.c: the object, the thread and its lifecycle) and the
 * connections (prs-api-connections.c: the accept loop, each connection's
 * caps and deadlines, the libsoup hooks). Everything here is touched on
 * the API thread only. */
#pragma once

#include <libsoup/soup.h>

#include "prs-api-allowlist.h"
#include "prs-api-guard.h"
#include "prs-api-routes.h"
#include "prs-api-server.h"
#include "prs-thread.h"
#include "prs-secrets.h"
#include "prs-store.h"

G_BEGIN_DECLS

#define TLS_RECORD_MAX           (16384 + 2048 + 5)

typedef struct _ApiThread ApiThread;

typedef enum
{
  CONN_WAITING,      /* accepted; waiting for the ClientHello */
  CONN_QUEUED,       /* ClientHello here; waiting for a handshake slot */
  CONN_HANDSHAKING,
  CONN_HTTP,         /* handed to libsoup */
  CONN_CLOSING,      /* shut down; waiting for whoever holds it to let go */
} ConnState;

typedef struct
{
  ApiThread         *thread;
  GList              link;
  ConnState          state;
  GSocket           *socket;
  GSocketConnection *connection;
  GIOStream         *tls;
  GSocketAddress    *remote;
  GSocketAddress    *local;
  char              *peer;
  gboolean           loopback;
  GSource           *wait_source;
  GCancellable      *cancellable;
  gint64             deadline;        /* monotonic µs; 0: none */
  gint64             close_deadline;
  gboolean           handshake_pending;
  guint              requests;
  gsize              body_bytes;
  gboolean           rejected;
  gboolean           between_requests;  /* answered; no new headers yet */
} Conn;

typedef struct
{
  ApiThread *thread;
  GSocket   *socket;
  GSource   *source;
} Listener;

/* The API thread's alone: made, used and freed there. Its owner is
 * claimed first thing in thread_main (), and every callback the thread's
 * main loop dispatches checks it in debug builds. */
struct _ApiThread
{
  PrsThreadOwner   owner;
  PrsApiServer    *server;      /* outlives the thread: stop() joins it */
  gboolean         lan;         /* the server's settings, fixed while the thread runs */
  PrsApiAllowlist *allowlist;
  GMainContext    *context;
  GMainLoop       *loop;
  PrsStore        *store;
  PrsSecrets      *secrets;
  PrsApiGuard     *guard;
  guint            token_retry_id;   /* the token could not be read: tried again */
  PrsApiRoutes     routes;
  GTlsCertificate *certificate;
  SoupServer      *soup;
  GPtrArray       *listeners;
  GQueue           conns;              /* oldest first */
  GQueue           handshake_queue;    /* Conn* waiting for a slot */
  guint            handshakes_running;
  GHashTable      *conns_by_remote;    /* GSocketAddress* → Conn* */
  GHashTable      *peer_counts;        /* peer address → count */
  GSource         *sweep_source;
  guint            conns_since_trim;
  gint64           idle_since;
  gboolean         keep_alive;
  guint8           peek_buffer[TLS_RECORD_MAX];
};

/* Listens on @t's addresses (loopback, or every address with LAN
 * listening on) at @port, with libsoup behind the accept loop; FALSE with
 * @error when the port cannot be had. */
gboolean prs_api_connections_start (ApiThread  *t,
                                    guint       port,
                                    GError    **error);
/* Stops listening, closes every connection and drops libsoup; safe after
 * a start that failed or never ran. */
void     prs_api_connections_stop  (ApiThread  *t);

G_END_DECLS
