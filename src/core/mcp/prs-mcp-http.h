/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-mcp-http.h: the Streamable HTTP transport. Every message is a POST
 * to one URL; the server answers a request with one JSON message or with
 * an event stream that carries progress notifications before the answer.
 * The Mcp-Session-Id the server gives in initialize is sent back on every
 * later request, with MCP-Protocol-Version. */
#pragma once

#include "prs-mcp-transport.h"

G_BEGIN_DECLS

#define PRS_TYPE_MCP_HTTP (prs_mcp_http_get_type ())
G_DECLARE_FINAL_TYPE (PrsMcpHttp, prs_mcp_http, PRS, MCP_HTTP, PrsMcpTransport)

/* @headers holds "Name: value" strings sent with every request (an
 * Authorization header, an API key…). */
PrsMcpTransport *prs_mcp_http_new            (const char         *url,
                                              const char * const *headers);
/* The session id the server gave, or NULL. */
const char      *prs_mcp_http_get_session_id (PrsMcpHttp         *self);

G_END_DECLS
