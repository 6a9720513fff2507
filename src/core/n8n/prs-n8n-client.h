/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-n8n-client.h: the n8n public REST API (X-N8N-API-KEY), asynchronous,
 * over libsoup. Errors are PRS_ERROR codes with sentences a person
 * understands. */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define PRS_TYPE_N8N_CLIENT (prs_n8n_client_get_type ())
G_DECLARE_FINAL_TYPE (PrsN8nClient, prs_n8n_client, PRS, N8N_CLIENT, GObject)

/* Checks a user-entered n8n URL and returns its canonical form: http or
 * https only, a host, no user name or password, no query or fragment;
 * surrounding spaces, trailing slashes and a pasted "/api/v1" suffix are
 * removed. Fails with PRS_ERROR_INVALID_INPUT. */
char         *prs_n8n_client_normalize_base_url    (const char          *base_url,
                                                    GError             **error);

/* @base_url is the instance's root, e.g. "http://127.0.0.1:5678" (a trailing
 * slash is tolerated). Requests time out after 10 s. An unusable URL or API
 * key is reported by each request as PRS_ERROR_INVALID_INPUT. */
PrsN8nClient *prs_n8n_client_new                   (const char          *base_url,
                                                    const char          *api_key);
const char   *prs_n8n_client_get_base_url          (PrsN8nClient        *self);
guint         prs_n8n_client_get_timeout           (PrsN8nClient        *self);
void          prs_n8n_client_set_timeout           (PrsN8nClient        *self,
                                                    guint                seconds);

/* GET /api/v1/workflows?active=true&limit=250, following nextCursor.
 * Finishes with every list item of every page (JsonObject* elements). */
void          prs_n8n_client_list_workflows_async  (PrsN8nClient        *self,
                                                    gboolean             active_only,
                                                    GCancellable        *cancellable,
                                                    GAsyncReadyCallback  callback,
                                                    gpointer             user_data);
GPtrArray    *prs_n8n_client_list_workflows_finish (PrsN8nClient        *self,
                                                    GAsyncResult        *result,
                                                    GError             **error);

/* GET /api/v1/workflows/{id}: the full workflow, with its description. */
void          prs_n8n_client_get_workflow_async    (PrsN8nClient        *self,
                                                    const char          *id,
                                                    GCancellable        *cancellable,
                                                    GAsyncReadyCallback  callback,
                                                    gpointer             user_data);
JsonObject   *prs_n8n_client_get_workflow_finish   (PrsN8nClient        *self,
                                                    GAsyncResult        *result,
                                                    GError             **error);

/* POST /api/v1/credentials {name, type, data}; finishes with the new
 * credential's id. n8n never sends the data back. */
void          prs_n8n_client_create_credential_async  (PrsN8nClient        *self,
                                                       const char          *name,
                                                       const char          *type,
                                                       JsonObject          *data,
                                                       GCancellable        *cancellable,
                                                       GAsyncReadyCallback  callback,
                                                       gpointer             user_data);
char         *prs_n8n_client_create_credential_finish (PrsN8nClient        *self,
                                                       GAsyncResult        *result,
                                                       GError             **error);

/* A copy of @workflow with only what POST /api/v1/workflows accepts: name,
 * nodes, connections and settings, each node and the settings cut to their
 * known fields (exports carry id, active, tags, description, pinData, meta,
 * versionId…, which n8n refuses). */
JsonObject   *prs_n8n_client_strip_workflow           (JsonObject          *workflow);
/* POST /api/v1/workflows with prs_n8n_client_strip_workflow (@workflow); the
 * new workflow is inactive. Finishes with n8n's answer (id, name, nodes…). */
void          prs_n8n_client_create_workflow_async    (PrsN8nClient        *self,
                                                       JsonObject          *workflow,
                                                       GCancellable        *cancellable,
                                                       GAsyncReadyCallback  callback,
                                                       gpointer             user_data);
JsonObject   *prs_n8n_client_create_workflow_finish   (PrsN8nClient        *self,
                                                       GAsyncResult        *result,
                                                       GError             **error);
/* POST /api/v1/workflows/{id}/activate. n8n refuses when a trigger cannot
 * start (an IMAP login that fails, a missing credential): the error carries
 * n8n's sentence. */
void          prs_n8n_client_activate_workflow_async  (PrsN8nClient        *self,
                                                       const char          *id,
                                                       GCancellable        *cancellable,
                                                       GAsyncReadyCallback  callback,
                                                       gpointer             user_data);
gboolean      prs_n8n_client_activate_workflow_finish (PrsN8nClient        *self,
                                                       GAsyncResult        *result,
                                                       GError             **error);

/* PUT /api/v1/workflows/{id} with prs_n8n_client_strip_workflow (@workflow):
 * its name, nodes, connections and settings are replaced; n8n keeps its
 * static data and publishes it again when it was published. Finishes with
 * n8n's answer. */
void          prs_n8n_client_update_workflow_async    (PrsN8nClient        *self,
                                                       const char          *id,
                                                       JsonObject          *workflow,
                                                       GCancellable        *cancellable,
                                                       GAsyncReadyCallback  callback,
                                                       gpointer             user_data);
JsonObject   *prs_n8n_client_update_workflow_finish   (PrsN8nClient        *self,
                                                       GAsyncResult        *result,
                                                       GError             **error);
/* DELETE /api/v1/credentials/{id}. n8n 1.123's public API cannot change a
 * credential, nor list or read one: deleting is all it offers besides
 * creating. */
void          prs_n8n_client_delete_credential_async  (PrsN8nClient        *self,
                                                       const char          *id,
                                                       GCancellable        *cancellable,
                                                       GAsyncReadyCallback  callback,
                                                       gpointer             user_data);
gboolean      prs_n8n_client_delete_credential_finish (PrsN8nClient        *self,
                                                       GAsyncResult        *result,
                                                       GError             **error);

G_END_DECLS
