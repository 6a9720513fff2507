/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-mcp-transport.h: how JSON-RPC messages travel to and from one MCP
 * server. Two transports derive from it: stdio (a child process,
 * newline-delimited messages) and Streamable HTTP (a POST per message,
 * answered with JSON or an event stream). A transport frames and parses;
 * PrsMcpClient gives the messages their meaning. */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* The largest message accepted from a server, unless set otherwise. */
#define PRS_MCP_DEFAULT_MAX_MESSAGE ((gsize) 4 * 1024 * 1024)

#define PRS_TYPE_MCP_TRANSPORT (prs_mcp_transport_get_type ())
G_DECLARE_DERIVABLE_TYPE (PrsMcpTransport, prs_mcp_transport, PRS, MCP_TRANSPORT, GObject)

struct _PrsMcpTransportClass
{
  GObjectClass parent_class;

  /* Starts the connection (stdio: spawns the server; again after it
   * stopped). */
  void      (*open_async)      (PrsMcpTransport      *self,
                                GCancellable         *cancellable,
                                GAsyncReadyCallback   callback,
                                gpointer              user_data);
  gboolean  (*open_finish)     (PrsMcpTransport      *self,
                                GAsyncResult         *result,
                                GError              **error);
  /* Sends one serialized message. Finishes once it is handed over; when
   * the transport answers inline (HTTP), once every message of the answer
   * has been emitted. */
  void      (*send_async)      (PrsMcpTransport      *self,
                                GBytes               *message,
                                GCancellable         *cancellable,
                                GAsyncReadyCallback   callback,
                                gpointer              user_data);
  gboolean  (*send_finish)     (PrsMcpTransport      *self,
                                GAsyncResult         *result,
                                GError              **error);
  /* The session is initialized: listen for what the server sends on its
   * own (HTTP: a GET event stream). Optional. */
  void      (*listen)          (PrsMcpTransport      *self);
  /* Ends the connection; "closed" is not emitted for it. */
  void      (*close)           (PrsMcpTransport      *self);
  /* What the server said on the side (stdio: the last lines of stderr),
   * for error messages; NULL when nothing. */
  char     *(*dup_diagnostics) (PrsMcpTransport      *self);

  /* TRUE when answers to a request come back within its send (HTTP). */
  gboolean    answers_inline;
};

void      prs_mcp_transport_open_async   (PrsMcpTransport      *self,
                                          GCancellable         *cancellable,
                                          GAsyncReadyCallback   callback,
                                          gpointer              user_data);
gboolean  prs_mcp_transport_open_finish  (PrsMcpTransport      *self,
                                          GAsyncResult         *result,
                                          GError              **error);
void      prs_mcp_transport_send_async   (PrsMcpTransport      *self,
                                          GBytes               *message,
                                          GCancellable         *cancellable,
                                          GAsyncReadyCallback   callback,
                                          gpointer              user_data);
gboolean  prs_mcp_transport_send_finish  (PrsMcpTransport      *self,
                                          GAsyncResult         *result,
                                          GError              **error);
void      prs_mcp_transport_listen       (PrsMcpTransport      *self);
void      prs_mcp_transport_close        (PrsMcpTransport      *self);
char     *prs_mcp_transport_dup_diagnostics (PrsMcpTransport   *self);
gboolean  prs_mcp_transport_answers_inline  (PrsMcpTransport   *self);

/* The revision agreed in initialize; HTTP sends it as MCP-Protocol-Version. */
void        prs_mcp_transport_set_protocol_version (PrsMcpTransport *self,
                                                    const char      *version);
const char *prs_mcp_transport_get_protocol_version (PrsMcpTransport *self);
gsize       prs_mcp_transport_get_max_message      (PrsMcpTransport *self);
void        prs_mcp_transport_set_max_message      (PrsMcpTransport *self,
                                                    gsize            max_bytes);

/* For transports: parses @len bytes of one message, or of a batch (an
 * array, which revision 2025-03-26 allowed), strictly and with a depth
 * limit, and emits "message" for each object in it. Fails with
 * PRS_ERROR_MCP_PROTOCOL in words a person understands. */
gboolean  prs_mcp_transport_deliver      (PrsMcpTransport      *self,
                                          const char           *data,
                                          gsize                 len,
                                          GError              **error);
/* The framing rules, kept apart from the I/O so they can be tested on
 * their own (tests/fuzz/fuzz-mcp-message.c).
 * stdio: whether a line of the server's stdout is a message. Servers that
 * print a banner or log lines to stdout are common: a line that does not
 * start like JSON (after blanks) is one of those, and is not delivered. */
gboolean  prs_mcp_transport_line_is_message (const char         *line);
/* Streamable HTTP: one event of an event stream (a PrsEventFunc of
 * prs-event-stream.h, @user_data the transport): a "message" event (or one
 * of no type) with data is delivered; others only prime a reconnection. */
gboolean  prs_mcp_transport_deliver_event   (const char         *event,
                                             const char         *data,
                                             gsize               len,
                                             const char         *id,
                                             gpointer            user_data,
                                             GError            **error);
/* For transports: the connection ended by itself (the process stopped…);
 * emits "closed" with @error saying why. */
void      prs_mcp_transport_emit_closed  (PrsMcpTransport      *self,
                                          const GError         *error);
/* The message text shown for a size limit: "larger than 4 MiB". */
char     *prs_mcp_transport_describe_limit (PrsMcpTransport    *self);
/* For transports: a line or event over the limit, as prs-event-stream
 * reports it, becomes PRS_ERROR_MCP_PROTOCOL in these words; other errors
 * stay as they are. */
void      prs_mcp_transport_word_stream_error (PrsMcpTransport  *self,
                                               GError          **error);

G_END_DECLS
