/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-mcp-client-private.h: what the client's two files share:
 * prs-mcp-client.c (connecting, restarting, tools, calls) and
 * prs-mcp-rpc.c (JSON-RPC: ids, deadlines, cancellation, dispatch). */
#pragma once

#include "prs-mcp-client.h"

G_BEGIN_DECLS

struct _PrsMcpClient
{
  GObject             parent_instance;

  char               *server_name;
  PrsMcpTransport    *transport;
  gulong              message_handler;
  gulong              closed_handler;
  GMainContext       *context;

  PrsMcpClientState   state;
  GError             *last_error;
  GList              *connect_waiters;    /* GTask* of connect_async */

  guint               initialize_ms;
  guint               request_ms;
  guint               call_ms;
  gboolean            auto_restart;
  guint               first_restart_ms;
  guint               restart_ms;         /* the next pause */
  guint               waiting_ms;         /* the pause under way, 0 when none */
  GSource            *restart_source;
  gint64              ready_since;        /* monotonic µs */

  gint64              next_id;
  GHashTable         *pending;            /* gint64 id → PrsMcpRequest* */

  char               *protocol_version;
  JsonNode           *server_info;
  char               *instructions;
  GPtrArray          *tools;              /* PrsMcpTool* */
  gboolean            tools_truncated;
  char              **reserved;
  gboolean            listing;
  gboolean            relist;
};

typedef struct _PrsMcpRequest PrsMcpRequest;

/* prs-mcp-rpc.c */

/* Sends a request; finishes with the answer's "result" (a JsonNode, owned
 * by the caller) or an error. @params is taken (may be NULL). With
 * @progress_func, a progress token goes with it. With @notify_cancel, a
 * deadline or @cancellable sends notifications/cancelled. */
void      prs_mcp_rpc_request_async  (PrsMcpClient        *self,
                                      const char          *method,
                                      JsonObject          *params,
                                      guint                timeout_ms,
                                      gboolean             notify_cancel,
                                      PrsMcpProgressFunc   progress_func,
                                      gpointer             progress_data,
                                      GCancellable        *cancellable,
                                      GAsyncReadyCallback  callback,
                                      gpointer             user_data);
JsonNode *prs_mcp_rpc_request_finish (PrsMcpClient        *self,
                                      GAsyncResult        *result,
                                      GError             **error);
/* Sends a notification; nothing comes back. @params is taken. */
void      prs_mcp_rpc_notify         (PrsMcpClient        *self,
                                      const char          *method,
                                      JsonObject          *params);
/* Every pending request fails with @error. */
void      prs_mcp_rpc_fail_all       (PrsMcpClient        *self,
                                      const GError        *error);
/* The transport's "message" handler. */
void      prs_mcp_rpc_on_message     (PrsMcpTransport     *transport,
                                      JsonNode            *message,
                                      PrsMcpClient        *self);
void      prs_mcp_rpc_request_free   (PrsMcpRequest       *request);

/* prs-mcp-client.c, for prs-mcp-rpc.c */

/* The server said its tools changed. */
void      prs_mcp_client_tools_list_changed (PrsMcpClient *self);
/* A request could not reach a server that answers inline (HTTP): the
 * session is over, and the next request connects again. */
void      prs_mcp_client_connection_lost    (PrsMcpClient *self,
                                             const GError *error);

G_END_DECLS
