/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-mcp-hub.h: every MCP server the user configured, connected
 * (docs/mcp.md). The service holds one: it connects each server switched on
 * when it starts, without blocking (the keyring is read on a worker thread,
 * connections are asynchronous), follows additions, edits, removals and
 * on/off, keeps each server's tools in the store (prs-mcp-catalog.h) as
 * they are listed, and is the one place a tool is called by the name models
 * know. Main thread (asserted). */
#pragma once

#include "prs-mcp-client.h"
#include "prs-mcp-servers.h"
#include "prs-tool.h"

G_BEGIN_DECLS

/* ---- One server, as the window shows it ---- */

#define PRS_TYPE_MCP_SERVER_ITEM (prs_mcp_server_item_get_type ())
G_DECLARE_FINAL_TYPE (PrsMcpServerItem, prs_mcp_server_item, PRS, MCP_SERVER_ITEM, GObject)

typedef enum
{
  PRS_MCP_SERVER_OFF,          /* switched off */
  PRS_MCP_SERVER_CONNECTING,   /* starting, or reading its secrets */
  PRS_MCP_SERVER_CONNECTED,
  PRS_MCP_SERVER_RESTARTING,   /* it stopped; it starts again after a pause */
  PRS_MCP_SERVER_FAILED,       /* it could not start or be reached; the next call tries again */
} PrsMcpServerState;

/* The server's stored row (secrets are never in it). */
const PrsMcpServerRow *prs_mcp_server_item_get_row         (PrsMcpServerItem *self);
const char            *prs_mcp_server_item_get_id          (PrsMcpServerItem *self);
const char            *prs_mcp_server_item_get_name        (PrsMcpServerItem *self);
PrsMcpServerState      prs_mcp_server_item_get_state       (PrsMcpServerItem *self);
/* What went wrong last (the stderr tail of a stdio server included), or
 * NULL. */
const char            *prs_mcp_server_item_get_error       (PrsMcpServerItem *self);
/* Seconds until a restarting server starts again; 0 otherwise. */
guint                  prs_mcp_server_item_get_restart_in  (PrsMcpServerItem *self);
/* The tools it listed (while connected), or 0. */
guint                  prs_mcp_server_item_get_n_tools     (PrsMcpServerItem *self);
/* The state in a sentence: "Connected: 12 tools", "Starts again in 4 s: …". */
char                  *prs_mcp_server_item_dup_status      (PrsMcpServerItem *self);
/* The client while the server is on; NULL otherwise. */
PrsMcpClient          *prs_mcp_server_item_get_client      (PrsMcpServerItem *self);

/* ---- The servers ---- */

#define PRS_TYPE_MCP_HUB (prs_mcp_hub_get_type ())
G_DECLARE_FINAL_TYPE (PrsMcpHub, prs_mcp_hub, PRS, MCP_HUB, GObject)

/* Nothing connects before prs_mcp_hub_start (). */
PrsMcpHub  *prs_mcp_hub_new              (PrsMcpServers       *servers,
                                          PrsStore            *store);
/* Deadlines in milliseconds for the clients made from now on (0 keeps the
 * default; prs_mcp_client_set_timeouts ()). */
void        prs_mcp_hub_set_timeouts     (PrsMcpHub           *self,
                                          guint                initialize_ms,
                                          guint                request_ms,
                                          guint                call_ms);
/* Reads the servers and connects every one switched on, in the
 * background. */
void        prs_mcp_hub_start            (PrsMcpHub           *self);
/* Closes every connection (stdio servers stop). */
void        prs_mcp_hub_stop             (PrsMcpHub           *self);
/* Reads the servers again: new ones connect, removed ones close, changed
 * ones (or ones switched on or off) connect anew; the others are left
 * alone. Cheap when nothing changed. */
void        prs_mcp_hub_reload           (PrsMcpHub           *self);
/* The n8n tools' names, after each discovery: no MCP tool takes one
 * (prs_mcp_client_set_reserved_names ()). */
void        prs_mcp_hub_set_n8n_names    (PrsMcpHub           *self,
                                          const char * const  *names);

/* PrsMcpServerItem, by name; "items-changed" when servers come and go,
 * each item's "notify::status" when its state changes. */
GListModel *prs_mcp_hub_get_servers      (PrsMcpHub           *self);
PrsMcpServerItem *prs_mcp_hub_find_server (PrsMcpHub          *self,
                                           const char         *id_or_name);

/* The tools of the servers switched on as PrsTool* (prs-mcp-catalog.h),
 * also those of servers not connected now. */
GPtrArray  *prs_mcp_hub_list_tools       (PrsMcpHub           *self,
                                          GError             **error);
/* The tool models know as @exposed_name, of a server switched on, or NULL. */
PrsTool    *prs_mcp_hub_lookup_tool      (PrsMcpHub           *self,
                                          const char          *exposed_name);

/* Calls the tool models know as @exposed_name (connecting its server if
 * needed): the result is prs_mcp_call_result_to_json ()'s; errors as
 * prs_mcp_client_call_tool_async () has them, and PRS_ERROR_NOT_FOUND for a
 * tool no server switched on lists. */
void        prs_mcp_hub_call_tool_async  (PrsMcpHub           *self,
                                          const char          *exposed_name,
                                          JsonObject          *arguments,
                                          PrsMcpProgressFunc   progress_func,
                                          gpointer             progress_data,
                                          GDestroyNotify       progress_destroy,
                                          GCancellable        *cancellable,
                                          GAsyncReadyCallback  callback,
                                          gpointer             user_data);
JsonNode   *prs_mcp_hub_call_tool_finish (PrsMcpHub           *self,
                                          GAsyncResult        *result,
                                          GError             **error);

/* Connects to @row once, as it is (values as for
 * prs_mcp_servers_create_client_async ()), and closes again: finishes with
 * {serverInfo, protocolVersion, tools: N, truncated, instructions?}. */
void        prs_mcp_hub_test_async       (PrsMcpHub              *self,
                                          const PrsMcpServerRow  *row,
                                          const char * const     *header_values,
                                          const char * const     *secret_env_values,
                                          GCancellable           *cancellable,
                                          GAsyncReadyCallback     callback,
                                          gpointer                user_data);
JsonObject *prs_mcp_hub_test_finish      (PrsMcpHub              *self,
                                          GAsyncResult           *result,
                                          GError                **error);

/* Changes to the servers, each followed by what it means for the
 * connections (values as for prs_mcp_servers_update ()). */
gboolean    prs_mcp_hub_add_server       (PrsMcpHub              *self,
                                          const PrsMcpServerRow  *row,
                                          const char * const     *header_values,
                                          const char * const     *secret_env_values,
                                          char                  **out_id,
                                          GError                **error);
gboolean    prs_mcp_hub_update_server    (PrsMcpHub              *self,
                                          const PrsMcpServerRow  *row,
                                          const char * const     *header_values,
                                          const char * const     *secret_env_values,
                                          GError                **error);
gboolean    prs_mcp_hub_remove_server    (PrsMcpHub              *self,
                                          const char             *id,
                                          GError                **error);
gboolean    prs_mcp_hub_set_enabled      (PrsMcpHub              *self,
                                          const char             *id,
                                          gboolean                enabled,
                                          GError                **error);
gboolean    prs_mcp_hub_set_shared       (PrsMcpHub              *self,
                                          const char             *id,
                                          gboolean                shared,
                                          GError                **error);

G_END_DECLS
