/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-tool-invoke.h: every tool agents can be offered, and calling one by
 * the name models know through one entry point — an n8n workflow (its
 * webhook, and its callback when it answers later; docs/workflows.md) or a
 * tool of an MCP server (docs/mcp.md). A run's tool round calls tools this
 * way; so does anything else that calls a tool for someone (`mcp serve`).
 * Whoever calls decides first whether the call may run (the agent's tools,
 * rules, a person): nothing here asks. Main thread. */
#pragma once

#include "prs-run-env.h"

G_BEGIN_DECLS

/* How a call is getting on. */
typedef struct
{
  gboolean    waiting;    /* an n8n workflow started: its result comes by its callback */
  double      progress;   /* an MCP server's progress; < 0 when it said none */
  double      total;      /* < 0 when unknown */
  const char *message;    /* the server's words; may be NULL */
} PrsToolProgress;

typedef void (*PrsToolProgressFunc) (const PrsToolProgress *progress,
                                     gpointer               user_data);

typedef struct
{
  const char *tool_name;        /* the name models know */
  JsonObject *arguments;        /* may be NULL: {} */
  const char *tool_call_id;     /* an n8n tool's toolCallId (its callback's key); NULL: a new one */
  const char *conversation_id;  /* an n8n tool's envelope; may be NULL */
  const char *agent_id;         /* may be NULL */
  const char *execution_id;     /* may be NULL */
} PrsToolInvocation;

/* Every tool that can be offered: the n8n tools (by name), then the MCP
 * tools of the servers switched on (by server). PrsTool*. */
GPtrArray         *prs_tool_list_all      (PrsRunEnv                *env,
                                           GError                  **error);
/* The tool called @name, or NULL. */
PrsTool           *prs_tool_lookup        (PrsRunEnv                *env,
                                           const char               *name);

/* What `mcp serve` offers other MCP clients (docs/mcp.md): the n8n tools
 * and the tools of the MCP servers the user shared (and switched on);
 * nothing else. PrsTool*. */
GPtrArray         *prs_tool_list_exposed  (PrsRunEnv                *env,
                                           GError                  **error);
/* TRUE when the tool called @name is among them. */
gboolean           prs_tool_is_exposed    (PrsRunEnv                *env,
                                           const char               *name);

/* Calls the tool. Finishes with what it came to, never "waiting": a
 * workflow that answers later is waited for (up to the callback timeout),
 * and @progress_func hears that it is waited for. A tool that is not there,
 * an MCP server that fails, an isError result, the deadline: each is a
 * failure in a sentence. Cancelling @cancellable stops the call (an MCP
 * server is sent notifications/cancelled) and finishes with a failure that
 * says so. */
void               prs_tool_invoke_async  (PrsRunEnv                *env,
                                           const PrsToolInvocation  *invocation,
                                           PrsToolProgressFunc       progress_func,
                                           gpointer                  progress_data,
                                           GDestroyNotify            progress_destroy,
                                           GCancellable             *cancellable,
                                           GAsyncReadyCallback       callback,
                                           gpointer                  user_data);
/* Waits again for the result of the n8n call @tool_call_id, whose result
 * posted back could not be stored (prs_tool_call_result_waits_again ()):
 * the callback registry waits for it as before. Finishes as
 * prs_tool_invoke_async () does (prs_tool_invoke_finish ()). */
void               prs_tool_invoke_await_result_async (PrsRunEnv           *env,
                                                       const char          *tool_call_id,
                                                       GCancellable        *cancellable,
                                                       GAsyncReadyCallback  callback,
                                                       gpointer             user_data);
PrsToolCallResult *prs_tool_invoke_finish (GAsyncResult             *result);

G_END_DECLS
