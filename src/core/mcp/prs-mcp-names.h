/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-mcp-names.h: the names models see for MCP tools. Every provider
 * accepts ^[a-zA-Z0-9_-]{1,64}$; the names must be unique among all tools
 * offered (MCP tools of every server and n8n tools) and must not change
 * across restarts, because agents' allowed tools, approval rules and
 * guidance refer to them. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define PRS_MCP_TOOL_NAME_MAX 64
/* Hex digits of the stable suffix added on a lossy or colliding name. */
#define PRS_MCP_TOOL_NAME_SUFFIX 6

/* "<server>__<tool>": in each part every character outside [A-Za-z0-9_-]
 * becomes "_", runs of "_" become one and none stay at either end, so the
 * double "__" only ever separates the two parts: tools of different servers
 * (whose names are unique, ignoring case) never share a name, and n8n tool
 * names (which never hold "__") are never taken. "mcp_" goes in front when
 * the first character is not a letter. When that changed something (a
 * character replaced, the text cut to 64) or @suffix_digits > 0, "_" and
 * the first @suffix_digits (at least PRS_MCP_TOOL_NAME_SUFFIX) hex digits of
 * SHA-256 (server NUL tool) end the name, the rest cut so the whole stays
 * within 64 characters. The same input always gives the same name. */
char     *prs_mcp_tool_name_build    (const char  *server_name,
                                      const char  *tool_name,
                                      guint        suffix_digits);

/* TRUE when @name is a valid name for every provider. */
gboolean  prs_mcp_tool_name_is_valid (const char  *name);

/* One tool to name. prs_mcp_assign_tool_names() fills the last two. */
typedef struct
{
  char *server_name;
  char *tool_name;
  char *exposed_name;
  char *note;          /* why the name has a suffix, for people; NULL when it has none */
} PrsMcpNameEntry;

PrsMcpNameEntry *prs_mcp_name_entry_new  (const char      *server_name,
                                          const char      *tool_name);
void             prs_mcp_name_entry_free (PrsMcpNameEntry *entry);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrsMcpNameEntry, prs_mcp_name_entry_free)

/* Gives every entry of @entries (PrsMcpNameEntry*) its exposed name: the
 * plain form of prs_mcp_tool_name_build() unless it is the name of an n8n
 * tool in @reserved or of another entry (compared ignoring case, as some
 * providers do: one server may list "Echo" and "echo"); then every entry
 * that shares it gets the hash suffix, so the result does not depend on the
 * order of @entries, and n8n tools keep their names. */
void             prs_mcp_assign_tool_names (GPtrArray          *entries,
                                            const char * const *reserved);

G_END_DECLS
