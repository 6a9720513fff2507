/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-mcp-servers.h: the MCP servers the user configured: their rows in
 * the store (prs-store-mcp.c) with their secrets in the keyring, checked
 * before they are saved, and turned into clients. */
#pragma once

#include "prs-mcp-client.h"
#include "prs-secrets.h"
#include "prs-store.h"

G_BEGIN_DECLS

#define PRS_TYPE_MCP_SERVERS (prs_mcp_servers_get_type ())
G_DECLARE_FINAL_TYPE (PrsMcpServers, prs_mcp_servers, PRS, MCP_SERVERS, GObject)

PrsMcpServers *prs_mcp_servers_new           (PrsStore               *store,
                                              PrsSecrets             *secrets);

/* Checks what the store cannot: an http(s) address with a host, header
 * names (not the ones the transport sets itself), environment variable
 * names. PRS_ERROR_INVALID_INPUT with a sentence. */
gboolean       prs_mcp_server_row_validate   (const PrsMcpServerRow  *row,
                                              GError                **error);

/* How @row runs, for people: "Program · npx -y server" or
 * "Streamable HTTP · https://…". */
char          *prs_mcp_server_row_describe   (const PrsMcpServerRow  *row);

/* Adds @row. @header_values holds a value for each of row->header_names,
 * @secret_env_values one for each of row->secret_env, in the same order;
 * they go to the keyring, never to the store. */
gboolean       prs_mcp_servers_add           (PrsMcpServers          *self,
                                              const PrsMcpServerRow  *row,
                                              const char * const     *header_values,
                                              const char * const     *secret_env_values,
                                              char                  **out_id,
                                              GError                **error);
/* Saves @row (by row->id) and its secrets. @header_values and
 * @secret_env_values hold an entry for each of the row's names, in the same
 * order (either may be NULL): a NULL entry keeps the value the keyring has
 * for that name. Secrets of names no longer listed go. */
gboolean       prs_mcp_servers_update        (PrsMcpServers          *self,
                                              const PrsMcpServerRow  *row,
                                              const char * const     *header_values,
                                              const char * const     *secret_env_values,
                                              GError                **error);
/* Removes the server named or numbered @id_or_name and its secrets. */
gboolean       prs_mcp_servers_remove        (PrsMcpServers          *self,
                                              const char             *id_or_name,
                                              GError                **error);

/* A client for @row with its secrets from the keyring (not yet connected).
 * @reserved are the names of the n8n tools (prs_mcp_client_set_reserved_names). */
PrsMcpClient  *prs_mcp_servers_create_client (PrsMcpServers          *self,
                                              const PrsMcpServerRow  *row,
                                              const char * const     *reserved,
                                              GError                **error);
/* The same without blocking the caller: the keyring is read on a worker
 * thread and the client made on the caller's context. Values given in
 * @header_values and @secret_env_values (as for prs_mcp_servers_update ();
 * NULL entries and arrays: the keyring's, under row->id) are used as they
 * are, so a server can be tried before it is saved. */
void           prs_mcp_servers_create_client_async  (PrsMcpServers          *self,
                                                     const PrsMcpServerRow  *row,
                                                     const char * const     *header_values,
                                                     const char * const     *secret_env_values,
                                                     const char * const     *reserved,
                                                     GCancellable           *cancellable,
                                                     GAsyncReadyCallback     callback,
                                                     gpointer                user_data);
PrsMcpClient  *prs_mcp_servers_create_client_finish (PrsMcpServers          *self,
                                                     GAsyncResult           *result,
                                                     GError                **error);

G_END_DECLS
