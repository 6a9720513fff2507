/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-mcp-serve.h: the server side of MCP as `prosponsive-ctl mcp serve`
 * speaks it to other MCP clients (docs/mcp.md#using-prosponsive-from-other-mcp-clients):
 * the client's bytes, in chunks of any size, become lines, each line a
 * checked JSON-RPC 2.0 message, and each request an answer or a call of
 * the backend. What needs the service or the standard streams is the
 * backend's (src/app/prs-ctl-mcp-serve.c); the answers' shapes are here,
 * so that tests/fuzz/fuzz-mcp-serve.c runs all of this with a backend of
 * its own. */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

typedef struct _PrsMcpServe PrsMcpServe;

/* The ids handed to the backend are a string or a number, as the client
 * sent them; the backend copies what it keeps. */
typedef struct
{
  /* One message to write: one line of JSON, without its newline */
  void (*write)      (GBytes     *line,
                      gpointer    user_data);
  /* tools/list: answered later with prs_mcp_serve_send_tools() or
   * prs_mcp_serve_send_error() */
  void (*list_tools) (JsonNode   *id,
                      gpointer    user_data);
  /* tools/call of the tool @name, with @arguments (NULL when the client
   * gave none) and @progress_token (NULL: the client wants no progress) */
  void (*call_tool)  (JsonNode   *id,
                      const char *name,
                      JsonObject *arguments,
                      JsonNode   *progress_token,
                      gpointer    user_data);
  /* notifications/cancelled for the client's request @request_id, which
   * may be unknown or answered already */
  void (*cancel)     (JsonNode   *request_id,
                      gpointer    user_data);
} PrsMcpServeBackend;

PrsMcpServe *prs_mcp_serve_new           (const PrsMcpServeBackend *backend,
                                          gpointer                  user_data);
void         prs_mcp_serve_free          (PrsMcpServe              *self);
/* The longest message accepted, without its line break (default
 * PRS_MCP_DEFAULT_MAX_MESSAGE); a longer one is answered with a parse
 * error and none of it is read as a message. */
void         prs_mcp_serve_set_max_line  (PrsMcpServe              *self,
                                          gsize                     max_line);

/* @len bytes from the client; every line they end is handled at once */
void         prs_mcp_serve_feed          (PrsMcpServe              *self,
                                          const char               *data,
                                          gsize                     len);
/* The client closed its end: a last line without a line break is handled */
void         prs_mcp_serve_finish        (PrsMcpServe              *self);

/* Answers. @id NULL: null (an answer to a message whose id is unknown). */
void         prs_mcp_serve_send_error    (PrsMcpServe              *self,
                                          JsonNode                 *id,
                                          int                       code,
                                          const char               *text);
/* The service's tools (docs/api.md) as the client sees them: name,
 * description and input schema; an entry without a name is left out */
void         prs_mcp_serve_send_tools    (PrsMcpServe              *self,
                                          JsonNode                 *id,
                                          JsonArray                *tools);
/* A tools/call result that is only @text, marked as the tool's failure
 * when @is_error */
void         prs_mcp_serve_send_text_result (PrsMcpServe           *self,
                                             JsonNode              *id,
                                             const char            *text,
                                             gboolean               is_error);
/* A tools/call result from the service's @value (NULL: null) */
void         prs_mcp_serve_send_tool_result (PrsMcpServe           *self,
                                             JsonNode              *id,
                                             JsonNode              *value);
/* notifications/progress for @token; @message may be NULL */
void         prs_mcp_serve_send_progress (PrsMcpServe              *self,
                                          JsonNode                 *token,
                                          double                    progress,
                                          const char               *message);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrsMcpServe, prs_mcp_serve_free)

G_END_DECLS
