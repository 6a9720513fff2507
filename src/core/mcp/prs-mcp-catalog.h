/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-mcp-catalog.h: the MCP tools as agents see them (docs/mcp.md): the
 * tools each server listed last, kept in the store (so they are there at
 * start, while a server restarts, and for prosponsive-ctl), turned into
 * PrsTools that are offered, approved, guided and bound like n8n tools.
 * Text from a server is data: its description and schema lose invisible
 * characters on the way. */
#pragma once

#include "prs-mcp-tool.h"
#include "prs-store.h"
#include "prs-tool.h"

G_BEGIN_DECLS

/* @tool (named) of the server @server_name (@server_id) as a PrsTool. */
PrsTool   *prs_mcp_catalog_tool_new (const PrsMcpTool  *tool,
                                     const char        *server_name,
                                     const char        *server_id);

/* Keeps @tools (PrsMcpTool*, named) as the server's last listing. */
gboolean   prs_mcp_catalog_save     (PrsStore          *store,
                                     const char        *server_id,
                                     GPtrArray         *tools,
                                     GError           **error);

/* PrsTool* of every server (@enabled_only: of the servers switched on),
 * by server name, then in each server's order. */
GPtrArray *prs_mcp_catalog_list     (PrsStore          *store,
                                     gboolean           enabled_only,
                                     GError           **error);

/* The tool of a server switched on that models know as @exposed_name, or
 * NULL. */
PrsTool   *prs_mcp_catalog_lookup   (PrsStore          *store,
                                     const char        *exposed_name);

G_END_DECLS
