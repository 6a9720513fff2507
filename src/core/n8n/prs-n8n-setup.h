/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-n8n-setup.h: what first-run setup does on the user's n8n through its
 * public API: the "Prosponsive API" Header Auth credential that holds the
 * local API's token, and the example workflows (created, then published
 * where they can run without the user's own accounts). */
#pragma once

#include <gio/gio.h>

#include "prs-n8n-client.h"

G_BEGIN_DECLS

#define PRS_N8N_API_CREDENTIAL_NAME "Prosponsive API"

/* POST /api/v1/credentials {name: "Prosponsive API", type: "httpHeaderAuth",
 * data: {name: "Authorization", value: "Bearer TOKEN"}}; finishes with its
 * id. */
void       prs_n8n_setup_create_credential_async  (PrsN8nClient        *client,
                                                   const char          *token,
                                                   GCancellable        *cancellable,
                                                   GAsyncReadyCallback  callback,
                                                   gpointer             user_data);
char      *prs_n8n_setup_create_credential_finish (PrsN8nClient        *client,
                                                   GAsyncResult        *result,
                                                   GError             **error);

/* One example workflow after the import. */
typedef struct
{
  char     *name;
  char     *id;        /* NULL when n8n refused it */
  gboolean  active;
  char     *message;   /* what the user should know (why it is inactive, what to fill in); may be NULL */
} PrsExampleResult;

void prs_example_result_free (PrsExampleResult *result);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrsExampleResult, prs_example_result_free)

/* Turns an example workflow template (JSON text) into what n8n accepts:
 * "__API_BASE__" becomes @api_base_url, the "Prosponsive API" credential
 * references get @credential_id (or only the name, which n8n resolves, when
 * NULL), HTTP Request nodes get allowUnauthorizedCerts = @ignore_tls_errors,
 * and the fields n8n refuses are dropped. */
JsonObject *prs_n8n_setup_prepare_example (const char   *template_json,
                                           const char   *api_base_url,
                                           const char   *credential_id,
                                           gboolean      ignore_tls_errors,
                                           GError      **error);
/* Whether the workflow needs an account of the user's before it can be
 * published (a node with a credential other than "Prosponsive API"). */
gboolean    prs_n8n_setup_needs_user_credential (JsonObject *workflow);

/* Creates each template (JSON text) in n8n, in order, and publishes those
 * that need no account of the user's. One failure does not stop the
 * others. Finishes with PrsExampleResult*, one per template. */
void       prs_n8n_setup_import_examples_async  (PrsN8nClient        *client,
                                                 const char * const  *templates,
                                                 const char          *api_base_url,
                                                 const char          *credential_id,
                                                 gboolean             ignore_tls_errors,
                                                 GCancellable        *cancellable,
                                                 GAsyncReadyCallback  callback,
                                                 gpointer             user_data);
GPtrArray *prs_n8n_setup_import_examples_finish (PrsN8nClient        *client,
                                                 GAsyncResult        *result,
                                                 GError             **error);

G_END_DECLS
