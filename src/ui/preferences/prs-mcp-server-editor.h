/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-mcp-server-editor.h: the form of one MCP server (docs/mcp.md): a
 * name; a program (command, arguments, environment, each variable secret
 * or not) or an address (URL, headers, whose values are secret); shared
 * with MCP clients or not; Test with what was entered. Secrets go to the
 * keyring and are never shown again: a secret left empty while editing
 * keeps its value. */
#pragma once

#include <adwaita.h>

#include "prs-service.h"

G_BEGIN_DECLS

#define PRS_TYPE_MCP_SERVER_EDITOR (prs_mcp_server_editor_get_type ())
G_DECLARE_FINAL_TYPE (PrsMcpServerEditor, prs_mcp_server_editor, PRS, MCP_SERVER_EDITOR, AdwBin)

GtkWidget  *prs_mcp_server_editor_new   (PrsService         *service);
/* Fills the form from @row (editing it), or empties it for a new server
 * (@row NULL). */
void        prs_mcp_server_editor_load  (PrsMcpServerEditor *self,
                                         const PrsMcpServerRow *row);
/* Connects once with what was entered; the result shows in the form. */
void        prs_mcp_server_editor_test  (PrsMcpServerEditor *self);
/* Adds or updates the server (secrets to the keyring); its connection
 * follows. */
gboolean    prs_mcp_server_editor_save  (PrsMcpServerEditor *self,
                                         GError            **error);

/* What a Test found (prs_mcp_hub_test_finish ()'s object), in words. */
char       *prs_mcp_server_editor_describe_test (JsonObject *info);

G_END_DECLS
