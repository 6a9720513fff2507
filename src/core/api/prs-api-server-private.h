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
typedef struct _ApiGeneration ApiGeneration;   /* prs-api-generations.c */

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
  GIOStream         *reader;            /* the connection, read a record at a time */
  GIOStream         *tls;
  GIOStream         *stream;            /* what libsoup gets: prs-api-stream.c */
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
  gboolean           screened;          /* this request went through the early handler */
  gboolean           between_requests;  /* answered; no new headers yet */
  ApiGeneration     *generation;        /* the libsoup server serving it */
  gboolean           keep_alive;        /* FALSE: every answer closes it */
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
  ApiGeneration   *generation;         /* takes new connections; NULL until one comes */
  GQueue           generations;        /* every generation alive, the current one too */
  GSocket         *unreachable;        /* a listener of libsoup's own: see prs-api-generations.c */
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
/* Connects the API's hooks and handlers to a new libsoup server */
void     prs_api_connections_attach (ApiThread  *t,
                                     SoupServer *soup);

/* prs-api-generations.c: the libsoup servers behind the accept loop.
 * start: FALSE when keep-alive is off (no listener could be made). adopt:
 * the server that serves @conn from now on. forget: @conn has ended.
 * keeps_alive: whether @conn's next answer may keep it open. sweep: frees
 * the generations nothing uses any more (from the sweep timer, never
 * from inside a libsoup callback). stop: frees them all. */
gboolean    prs_api_generations_start      (ApiThread *t);
SoupServer *prs_api_generation_adopt       (ApiThread *t,
                                            Conn      *conn);
void        prs_api_generation_forget      (Conn      *conn);
gboolean    prs_api_generation_keeps_alive (Conn      *conn);
void        prs_api_generations_sweep      (ApiThread *t);
void        prs_api_generations_stop       (ApiThread *t);

G_END_DECLS
