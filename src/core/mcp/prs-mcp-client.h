/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-mcp-client.h: one MCP server as Prosponsive uses it: the handshake
 * (initialize, protocol revision 2025-06-18, older ones accepted), its tools
 * (tools/list with every page, kept current on
 * notifications/tools/list_changed), and tool calls with progress,
 * cancellation and a deadline on every request. A stdio server that stops is
 * started again after 1 s, 2 s, 4 s … (at most a minute). Errors are
 * PRS_ERROR_MCP_* (prs-error.h), PRS_ERROR_TIMEOUT or G_IO_ERROR_CANCELLED,
 * in words a person understands, starting with the server's name. */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "prs-mcp-tool.h"
#include "prs-mcp-transport.h"

G_BEGIN_DECLS

/* The revision Prosponsive asks for, and every one it accepts in answer
 * (the spec lets a server answer with an older one it supports). */
#define PRS_MCP_PROTOCOL_VERSION "2025-06-18"
extern const char * const prs_mcp_supported_versions[];

/* At most this many tools are taken from one server (more are left out). */
#define PRS_MCP_MAX_TOOLS 1000
/* A tools/list that has not ended after this many pages is an error. */
#define PRS_MCP_MAX_LIST_PAGES 100

/* Default deadlines, in milliseconds. Progress notifications do not
 * extend a deadline: the spec allows it, but a server that reports
 * progress forever must still end. */
#define PRS_MCP_DEFAULT_INITIALIZE_TIMEOUT (30 * 1000)
#define PRS_MCP_DEFAULT_REQUEST_TIMEOUT    (60 * 1000)
#define PRS_MCP_DEFAULT_CALL_TIMEOUT       (10 * 60 * 1000)

typedef enum
{
  PRS_MCP_CLIENT_IDLE,         /* not connected yet, or closed */
  PRS_MCP_CLIENT_CONNECTING,
  PRS_MCP_CLIENT_READY,
  PRS_MCP_CLIENT_RESTARTING,   /* the server stopped; it is started again after a pause */
  PRS_MCP_CLIENT_FAILED,       /* the server stopped or could not start; the next request tries again */
} PrsMcpClientState;

#define PRS_TYPE_MCP_CLIENT (prs_mcp_client_get_type ())
G_DECLARE_FINAL_TYPE (PrsMcpClient, prs_mcp_client, PRS, MCP_CLIENT, GObject)

/* Takes a reference to @transport. */
PrsMcpClient      *prs_mcp_client_new                 (const char       *server_name,
                                                       PrsMcpTransport  *transport);

const char        *prs_mcp_client_get_server_name     (PrsMcpClient     *self);
PrsMcpTransport   *prs_mcp_client_get_transport       (PrsMcpClient     *self);
PrsMcpClientState  prs_mcp_client_get_state           (PrsMcpClient     *self);
/* Why the server last stopped or failed to start; NULL when it did not. */
const GError      *prs_mcp_client_get_last_error      (PrsMcpClient     *self);

/* Deadlines in milliseconds (0 keeps the default). */
void               prs_mcp_client_set_timeouts        (PrsMcpClient     *self,
                                                       guint             initialize_ms,
                                                       guint             request_ms,
                                                       guint             call_ms);
/* Whether a stdio server that stops is started again (default TRUE). */
void               prs_mcp_client_set_auto_restart    (PrsMcpClient     *self,
                                                       gboolean          auto_restart);
/* The first pause before a restart, in milliseconds (default 1000; it
 * doubles up to 60 s). */
void               prs_mcp_client_set_restart_delay   (PrsMcpClient     *self,
                                                       guint             first_ms);
/* While RESTARTING, the pause before the server starts again, in
 * milliseconds (for "starts again in 4 s"); 0 otherwise. */
guint              prs_mcp_client_get_restart_pause   (PrsMcpClient     *self);
/* Names models must not get (the n8n tools'): a tool whose name would be
 * one of them gets a suffix instead (prs-mcp-names.h). Tools listed
 * already are named again, and "tools-changed" says when a name changed. */
void               prs_mcp_client_set_reserved_names  (PrsMcpClient       *self,
                                                       const char * const *names);

/* Starts the server if needed, initializes and lists its tools. */
void               prs_mcp_client_connect_async       (PrsMcpClient        *self,
                                                       GCancellable        *cancellable,
                                                       GAsyncReadyCallback  callback,
                                                       gpointer             user_data);
gboolean           prs_mcp_client_connect_finish      (PrsMcpClient        *self,
                                                       GAsyncResult        *result,
                                                       GError             **error);
/* Ends the connection (and a stdio server); pending requests fail as
 * cancelled. The next request connects again. */
void               prs_mcp_client_close               (PrsMcpClient        *self);

/* After a connection: the revision agreed, the server's serverInfo
 * ({name?, version?, title?}: only those of them that are text, cleaned
 * of control characters) and its instructions (may be NULL). */
const char        *prs_mcp_client_get_protocol_version (PrsMcpClient       *self);
JsonNode          *prs_mcp_client_get_server_info     (PrsMcpClient        *self);
const char        *prs_mcp_client_get_instructions    (PrsMcpClient        *self);

/* The tools as last listed (PrsMcpTool*, owned by the client), named for
 * models; "tools-changed" says when they change. */
GPtrArray         *prs_mcp_client_get_tools           (PrsMcpClient        *self);
/* TRUE when the server listed more than PRS_MCP_MAX_TOOLS tools. */
gboolean           prs_mcp_client_get_tools_truncated (PrsMcpClient        *self);
/* The tool models know as @exposed_name, or NULL. */
const PrsMcpTool  *prs_mcp_client_find_tool           (PrsMcpClient        *self,
                                                       const char          *exposed_name);

/* Lists the tools again (every page); finishes with the new
 * prs_mcp_client_get_tools() array (a new reference). */
void               prs_mcp_client_list_tools_async    (PrsMcpClient        *self,
                                                       GCancellable        *cancellable,
                                                       GAsyncReadyCallback  callback,
                                                       gpointer             user_data);
GPtrArray         *prs_mcp_client_list_tools_finish   (PrsMcpClient        *self,
                                                       GAsyncResult        *result,
                                                       GError             **error);

/* @total is negative when the server did not say; @message may be NULL. */
typedef void (*PrsMcpProgressFunc) (double       progress,
                                    double       total,
                                    const char  *message,
                                    gpointer     user_data);

/* Calls the tool the server names @tool_name with @arguments (may be
 * NULL). Progress notifications go to @progress_func on the main context.
 * Cancelling @cancellable sends notifications/cancelled and finishes with
 * G_IO_ERROR_CANCELLED; so does the deadline, with PRS_ERROR_TIMEOUT. The
 * result is prs_mcp_call_result_to_json()'s; an isError result fails with
 * PRS_ERROR_MCP_TOOL_FAILED and the server's text. */
void               prs_mcp_client_call_tool_async     (PrsMcpClient        *self,
                                                       const char          *tool_name,
                                                       JsonObject          *arguments,
                                                       PrsMcpProgressFunc   progress_func,
                                                       gpointer             progress_data,
                                                       GDestroyNotify       progress_destroy,
                                                       GCancellable        *cancellable,
                                                       GAsyncReadyCallback  callback,
                                                       gpointer             user_data);
JsonNode          *prs_mcp_client_call_tool_finish    (PrsMcpClient        *self,
                                                       GAsyncResult        *result,
                                                       GError             **error);

G_END_DECLS
