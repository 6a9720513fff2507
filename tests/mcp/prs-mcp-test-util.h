/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-mcp-test-util.h: what the mcp suite's programs share: the real
 * peers installed by install-mcp-peers.sh, the hostile servers of
 * hostile-server.py, and waiting for a client's async calls. */
#pragma once

#include "prs-mcp-client.h"

G_BEGIN_DECLS

/* node's path to server-everything's entry point (PRS_MCP_PEERS). */
char         *prs_mcp_test_everything_entry (void);
/* A stdio client for server-everything. */
PrsMcpClient *prs_mcp_test_everything_stdio (void);

/* A server started for the test, killed by prs_mcp_test_server_stop. */
typedef struct
{
  GSubprocess *process;
  guint        port;
  char        *url;
  char        *log_path;
} PrsMcpTestServer;

/* server-everything in streamableHttp mode on a free port. */
PrsMcpTestServer *prs_mcp_test_everything_http (void);
/* hostile-server.py --http --mode @mode. */
PrsMcpTestServer *prs_mcp_test_hostile_http    (const char       *mode);
void              prs_mcp_test_server_stop     (PrsMcpTestServer *server);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrsMcpTestServer, prs_mcp_test_server_stop)

/* A stdio client for hostile-server.py --mode @mode, logging what it
 * receives to a new file whose path goes to @out_log (may be NULL). */
PrsMcpClient *prs_mcp_test_hostile_stdio   (const char      *mode,
                                            char           **out_log);
/* The JSON objects a hostile server logged, one per line. */
GPtrArray    *prs_mcp_test_read_log        (const char      *path);

gboolean      prs_mcp_test_connect         (PrsMcpClient    *client,
                                            GError         **error);
/* Counts progress notifications in *@out_progress when not NULL. */
JsonNode     *prs_mcp_test_call            (PrsMcpClient    *client,
                                            const char      *tool,
                                            const char      *arguments_json,
                                            GCancellable    *cancellable,
                                            guint           *out_progress,
                                            GError         **error);
GPtrArray    *prs_mcp_test_list            (PrsMcpClient    *client,
                                            GError         **error);
/* A GAsyncReadyCallback that keeps the result in *(GAsyncResult **) @data
 * (a reference). */
void          prs_mcp_test_async_done      (GObject         *source,
                                            GAsyncResult    *result,
                                            gpointer         data);
/* Runs the main loop until @done is TRUE or @timeout_ms passed. */
gboolean      prs_mcp_test_wait_until      (gboolean       (*done) (gpointer data),
                                            gpointer         data,
                                            guint            timeout_ms);

G_END_DECLS
