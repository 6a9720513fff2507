/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-mcp-stdio.h: the stdio transport. The server is a child process
 * started without a shell (argv as given, the program looked up in PATH),
 * with a small inherited environment plus what the user set; messages are
 * lines of JSON on its stdin and stdout; its stderr is kept, bounded, for
 * error messages. */
#pragma once

#include "prs-mcp-transport.h"

G_BEGIN_DECLS

#define PRS_TYPE_MCP_STDIO (prs_mcp_stdio_get_type ())
G_DECLARE_FINAL_TYPE (PrsMcpStdio, prs_mcp_stdio, PRS, MCP_STDIO, PrsMcpTransport)

/* @env holds "NAME=value" strings set on top of the inherited HOME, LOGNAME,
 * PATH, SHELL, TERM, USER, LANG, TMPDIR and XDG_RUNTIME_DIR (nothing else of
 * Prosponsive's environment reaches the server). */
PrsMcpTransport *prs_mcp_stdio_new        (const char         *command,
                                           const char * const *args,
                                           const char * const *env);

/* The last @max_lines lines the server wrote to stderr (and stray
 * non-JSON lines it wrote to stdout), control characters removed; NULL
 * when there are none. */
char            *prs_mcp_stdio_dup_stderr (PrsMcpStdio        *self,
                                           guint               max_lines);

/* The process id of the running server, 0 when none (tests). */
GPid             prs_mcp_stdio_get_pid    (PrsMcpStdio        *self);

G_END_DECLS
