/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-mcp-message.h: JSON-RPC 2.0 messages as MCP writes them, for both
 * sides: the client (prs-mcp-rpc.c) and `prosponsive-ctl mcp serve`
 * (docs/mcp.md). One message is one JSON object on one line. */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* JSON-RPC 2.0's error codes */
#define PRS_MCP_RPC_PARSE_ERROR      -32700
#define PRS_MCP_RPC_INVALID_REQUEST  -32600
#define PRS_MCP_RPC_METHOD_NOT_FOUND -32601
#define PRS_MCP_RPC_INVALID_PARAMS   -32602
#define PRS_MCP_RPC_INTERNAL_ERROR   -32603

/* {"jsonrpc":"2.0","id":@id,"result":@result}; takes @result */
JsonObject *prs_mcp_message_new_result       (JsonNode   *id,
                                              JsonObject *result);
/* {"jsonrpc":"2.0","id":@id,"error":{"code","message"}}; @id NULL: null */
JsonObject *prs_mcp_message_new_error        (JsonNode   *id,
                                              int         code,
                                              const char *message);
/* {"jsonrpc":"2.0","method":@method,"params":@params}; takes @params,
 * which may be NULL */
JsonObject *prs_mcp_message_new_notification (const char *method,
                                              JsonObject *params);
/* The message's one line of JSON, without the newline */
GBytes     *prs_mcp_message_serialize        (JsonObject *message);
/* A message, or a batch of them (an array) */
GBytes     *prs_mcp_message_serialize_node   (JsonNode   *node);

/* The revision to answer an initialize asking for @requested: the same
 * when it is one we speak (prs_mcp_supported_versions), else our latest. */
const char *prs_mcp_message_negotiate_version (const char *requested);

G_END_DECLS
