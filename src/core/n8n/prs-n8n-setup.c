/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-n8n-setup.c: the credential and the example workflows that setup
 * creates on the user's n8n. The token goes to n8n and nowhere else: not
 * into a message, not into a log line; the store keeps only a SHA-256 of
 * it, to notice a rotation. The IMAP password goes into n8n's IMAP
 * credential and into the move example's "IMAP Account" node (the one
 * place its Code node can read), nowhere else. */
#include "config.h"

#include <string.h>
#include <glib/gi18n-lib.h>

#include "prs-discovery.h"
#include "prs-error.h"
#include "prs-json.h"
#include "prs-n8n-setup.h"

/* The GResource compiled from prs-n8n-examples.gresource.xml */
GResource *prs_n8n_examples_get_resource (void);

static const char * const example_files[] = {
  "hello-world.json", "imap-new-email.json", "email-move-to-folder.json", NULL
};

/* The client for @url and @key (NULL: none stored), or the error */
static PrsN8nClient *
client_for (const char  *url,
            char        *key,
            const char  *not_configured,
            GError      *key_error,
            GError     **error)
{
  PrsN8nClient *client;

  if (key == NULL)
    {
      if (key_error != NULL)
        g_propagate_error (error, g_error_copy (key_error));
      else
        g_set_error_literal (error, PRS_ERROR, PRS_ERROR_NOT_CONFIGURED, not_configured);
      return NULL;
    }
  client = prs_n8n_client_new (url, key);
  memset (key, 0, strlen (key));
  return client;
}

static char *
dup_url (PrsStore *store)
{
  char *url = store != NULL ? prs_store_dup_setting (store, PRS_SETTING_N8N_URL) : NULL;

  if (url != NULL && url[0] == '\0')
    g_clear_pointer (&url, g_free);
  return url;
}

PrsN8nClient *
prs_n8n_setup_dup_client (PrsStore    *store,
                          PrsSecrets  *secrets,
                          const char  *not_configured,
                          GError     **error)
{
  g_autofree char *url = NULL;
  g_autofree char *key = NULL;
  g_autoptr(GError) key_error = NULL;

  g_return_val_if_fail (PRS_IS_SECRETS (secrets), NULL);
  g_return_val_if_fail (not_configured != NULL, NULL);

  if ((url = dup_url (store)) == NULL)
    {
      g_set_error_literal (error, PRS_ERROR, PRS_ERROR_NOT_CONFIGURED, not_configured);
      return NULL;
    }
  key = prs_secrets_lookup_sync (secrets, PRS_SECRET_N8N_API_KEY, NULL, &key_error);
  return client_for (url, key, not_configured, key_error, error);
}

typedef struct
{
  char *url;
  char *not_configured;
} ClientData;

static void
client_data_free (gpointer data)
{
  ClientData *client = data;

  g_free (client->url);
  g_free (client->not_configured);
  g_free (client);
}

static void
on_client_key (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  ClientData *data = g_task_get_task_data (task);
  g_autoptr(GError) key_error = NULL;
  g_autofree char *key = prs_secrets_lookup_finish (PRS_SECRETS (source), result, &key_error);
  GError *error = NULL;
  PrsN8nClient *client = client_for (data->url, key, data->not_configured, key_error, &error);

  if (client == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, client, g_object_unref);
}

void
prs_n8n_setup_dup_client_async (PrsStore            *store,
                                PrsSecrets          *secrets,
                                const char          *not_configured,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  ClientData *data;

  g_return_if_fail (PRS_IS_SECRETS (secrets));
  g_return_if_fail (not_configured != NULL);

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, prs_n8n_setup_dup_client_async);
  data = g_new0 (ClientData, 1);
  data->not_configured = g_strdup (not_configured);
  g_task_set_task_data (task, data, client_data_free);
  if ((data->url = dup_url (store)) == NULL)
    {
      g_task_return_new_error (task, PRS_ERROR, PRS_ERROR_NOT_CONFIGURED, "%s", not_configured);
      return;
    }
  prs_secrets_lookup_async (secrets, PRS_SECRET_N8N_API_KEY, cancellable, on_client_key, g_steal_pointer (&task));
}

PrsN8nClient *
prs_n8n_setup_dup_client_finish (GAsyncResult  *result,
                                 GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* ---- the "Prosponsive API" credential ---- */

void
prs_n8n_setup_create_credential_async (PrsN8nClient        *client,
                                       const char          *token,
                                       GCancellable        *cancellable,
                                       GAsyncReadyCallback  callback,
                                       gpointer             user_data)
{
  g_autoptr(JsonObject) data = json_object_new ();
  g_autofree char *value = NULL;

  g_return_if_fail (PRS_IS_N8N_CLIENT (client));
  g_return_if_fail (token != NULL);

  value = g_strconcat ("Bearer ", token, NULL);
  json_object_set_string_member (data, "name", "Authorization");
  json_object_set_string_member (data, "value", value);
  memset (value, 0, strlen (value));
  prs_n8n_client_create_credential_async (client, PRS_N8N_API_CREDENTIAL_NAME, "httpHeaderAuth",
                                          data, cancellable, callback, user_data);
}

char *
prs_n8n_setup_create_credential_finish (PrsN8nClient  *client,
                                        GAsyncResult  *result,
                                        GError       **error)
{
  return prs_n8n_client_create_credential_finish (client, result, error);
}

static char *
token_digest (const char *token)
{
  return g_compute_checksum_for_string (G_CHECKSUM_SHA256, token, -1);
}

PrsCredentialState
prs_n8n_setup_credential_state (PrsStore    *store,
                                const char  *token,
                                char       **out_id)
{
  g_autofree char *id = NULL;
  g_autofree char *recorded = NULL;
  g_autofree char *digest = NULL;
  PrsCredentialState state;

  g_return_val_if_fail (store != NULL, PRS_CREDENTIAL_NONE);
  g_return_val_if_fail (token != NULL, PRS_CREDENTIAL_NONE);

  id = prs_store_dup_setting (store, PRS_SETTING_N8N_CREDENTIAL_ID);
  if (id == NULL || id[0] == '\0')
    state = PRS_CREDENTIAL_NONE;
  else
    {
      /* A credential recorded without its token's digest (an older
       * version made it) may hold anything: replacing it is harmless. */
      recorded = prs_store_dup_setting (store, PRS_SETTING_N8N_CREDENTIAL_TOKEN);
      digest = token_digest (token);
      state = g_strcmp0 (recorded, digest) == 0 ? PRS_CREDENTIAL_CURRENT : PRS_CREDENTIAL_STALE;
    }
  if (out_id != NULL)
    *out_id = state == PRS_CREDENTIAL_NONE ? NULL : g_steal_pointer (&id);
  return state;
}

gboolean
prs_n8n_setup_remember_credential (PrsStore    *store,
                                   const char  *id,
                                   const char  *token,
                                   GError     **error)
{
  g_autofree char *digest = NULL;

  g_return_val_if_fail (store != NULL, FALSE);
  g_return_val_if_fail (id != NULL && token != NULL, FALSE);

  digest = token_digest (token);
  return prs_store_set_setting (store, PRS_SETTING_N8N_CREDENTIAL_ID, id, error) &&
         prs_store_set_setting (store, PRS_SETTING_N8N_CREDENTIAL_TOKEN, digest, error);
}

static void
workflow_ref_free (PrsWorkflowRef *ref)
{
  g_free (ref->id);
  g_free (ref->name);
  g_free (ref);
}

void
prs_credential_replacement_free (PrsCredentialReplacement *replacement)
{
  if (replacement == NULL)
    return;
  g_free (replacement->id);
  g_clear_pointer (&replacement->repointed, g_ptr_array_unref);
  g_free (replacement->problem);
  g_free (replacement);
}

/* The credential references of @workflow's nodes that name @id, as the
 * objects to change ({id, name} of each node's credentials). */
static GPtrArray *
credential_refs (JsonObject *workflow,
                 const char *id)
{
  GPtrArray *refs = g_ptr_array_new ();
  JsonNode *nodes = json_object_get_member (workflow, "nodes");
  JsonArray *array;

  if (nodes == NULL || !JSON_NODE_HOLDS_ARRAY (nodes))
    return refs;
  array = json_node_get_array (nodes);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *element = json_array_get_element (array, i);
      JsonNode *credentials;
      g_autoptr(GList) types = NULL;

      if (!JSON_NODE_HOLDS_OBJECT (element))
        continue;
      credentials = json_object_get_member (json_node_get_object (element), "credentials");
      if (credentials == NULL || !JSON_NODE_HOLDS_OBJECT (credentials))
        continue;
      types = json_object_get_members (json_node_get_object (credentials));
      for (GList *l = types; l != NULL; l = l->next)
        {
          JsonNode *ref = json_object_get_member (json_node_get_object (credentials), l->data);

          if (ref != NULL && JSON_NODE_HOLDS_OBJECT (ref) &&
              g_strcmp0 (json_object_get_string_member_with_default (json_node_get_object (ref), "id", NULL),
                         id) == 0)
            g_ptr_array_add (refs, json_node_get_object (ref));
        }
    }
  return refs;
}

typedef struct
{
  PrsN8nClient             *client;
  char                     *old_id;
  GPtrArray                *users;       /* JsonObject*: the workflows that use the old credential */
  guint                     next;
  PrsCredentialReplacement *replacement;
} ReplaceData;

static void
replace_data_free (ReplaceData *data)
{
  g_clear_object (&data->client);
  g_free (data->old_id);
  g_clear_pointer (&data->users, g_ptr_array_unref);
  prs_credential_replacement_free (data->replacement);
  g_free (data);
}

static void
replace_done (GTask *task)
{
  ReplaceData *data = g_task_get_task_data (task);

  g_task_return_pointer (task, g_steal_pointer (&data->replacement),
                         (GDestroyNotify) prs_credential_replacement_free);
  g_object_unref (task);
}

static void
on_old_deleted (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  GTask *task = user_data;
  ReplaceData *data = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;

  /* Already deleted in n8n by the user: just as good */
  data->replacement->old_deleted =
    prs_n8n_client_delete_credential_finish (PRS_N8N_CLIENT (source), result, &error) ||
    g_error_matches (error, PRS_ERROR, PRS_ERROR_N8N_NOT_FOUND);
  if (!data->replacement->old_deleted)
    data->replacement->problem = g_strdup (error->message);
  replace_done (task);
}

static void repoint_next (GTask *task);

static void
on_repointed (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  GTask *task = user_data;
  ReplaceData *data = g_task_get_task_data (task);
  JsonObject *workflow = g_ptr_array_index (data->users, data->next - 1);
  g_autoptr(JsonObject) answer = NULL;
  g_autoptr(GError) error = NULL;
  PrsWorkflowRef *ref;

  answer = prs_n8n_client_update_workflow_finish (PRS_N8N_CLIENT (source), result, &error);
  if (answer == NULL)
    {
      /* Translators: the first %s is a workflow's name, the second n8n's explanation */
      data->replacement->problem = g_strdup_printf (_("n8n did not let “%s” use the new credential: %s"),
                                                    json_object_get_string_member_with_default (workflow, "name", ""),
                                                    error->message);
      replace_done (task);
      return;
    }
  ref = g_new0 (PrsWorkflowRef, 1);
  ref->id = g_strdup (json_object_get_string_member_with_default (workflow, "id", ""));
  ref->name = g_strdup (json_object_get_string_member_with_default (workflow, "name", ""));
  g_ptr_array_add (data->replacement->repointed, ref);
  repoint_next (task);
}

static void
repoint_next (GTask *task)
{
  ReplaceData *data = g_task_get_task_data (task);
  JsonObject *workflow;
  g_autoptr(GPtrArray) refs = NULL;

  if (data->next >= data->users->len)
    {
      prs_n8n_client_delete_credential_async (data->client, data->old_id, g_task_get_cancellable (task),
                                              on_old_deleted, task);
      return;
    }
  workflow = g_ptr_array_index (data->users, data->next++);
  refs = credential_refs (workflow, data->old_id);
  for (guint i = 0; i < refs->len; i++)
    json_object_set_string_member (g_ptr_array_index (refs, i), "id", data->replacement->id);
  prs_n8n_client_update_workflow_async (data->client,
                                        json_object_get_string_member_with_default (workflow, "id", ""),
                                        workflow, g_task_get_cancellable (task), on_repointed, task);
}

static void
on_users_listed (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  GTask *task = user_data;
  ReplaceData *data = g_task_get_task_data (task);
  g_autoptr(GPtrArray) workflows = NULL;
  g_autoptr(GError) error = NULL;

  workflows = prs_n8n_client_list_workflows_finish (PRS_N8N_CLIENT (source), result, &error);
  if (workflows == NULL)
    {
      data->replacement->problem = g_strdup (error->message);
      replace_done (task);
      return;
    }
  data->users = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  for (guint i = 0; i < workflows->len; i++)
    {
      JsonObject *workflow = g_ptr_array_index (workflows, i);
      g_autoptr(GPtrArray) refs = credential_refs (workflow, data->old_id);

      /* n8n refuses changes to archived workflows; it points them to a
       * credential of the same name itself when they are saved again */
      if (refs->len > 0 && !json_object_get_boolean_member_with_default (workflow, "isArchived", FALSE))
        g_ptr_array_add (data->users, json_object_ref (workflow));
    }
  repoint_next (task);
}

static void
on_replacement_created (GObject      *source,
                        GAsyncResult *result,
                        gpointer      user_data)
{
  GTask *task = user_data;
  ReplaceData *data = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  char *id = prs_n8n_setup_create_credential_finish (PRS_N8N_CLIENT (source), result, &error);

  if (id == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      g_object_unref (task);
      return;
    }
  data->replacement->id = id;
  prs_n8n_client_list_workflows_async (data->client, FALSE, g_task_get_cancellable (task),
                                       on_users_listed, task);
}

void
prs_n8n_setup_replace_credential_async (PrsN8nClient        *client,
                                        const char          *old_id,
                                        const char          *token,
                                        GCancellable        *cancellable,
                                        GAsyncReadyCallback  callback,
                                        gpointer             user_data)
{
  GTask *task;
  ReplaceData *data;

  g_return_if_fail (PRS_IS_N8N_CLIENT (client));
  g_return_if_fail (old_id != NULL && token != NULL);

  task = g_task_new (client, cancellable, callback, user_data);
  g_task_set_source_tag (task, prs_n8n_setup_replace_credential_async);
  data = g_new0 (ReplaceData, 1);
  data->client = g_object_ref (client);
  data->old_id = g_strdup (old_id);
  data->replacement = g_new0 (PrsCredentialReplacement, 1);
  data->replacement->repointed = g_ptr_array_new_with_free_func ((GDestroyNotify) workflow_ref_free);
  g_task_set_task_data (task, data, (GDestroyNotify) replace_data_free);

  prs_n8n_setup_create_credential_async (client, token, cancellable, on_replacement_created, task);
}

PrsCredentialReplacement *
prs_n8n_setup_replace_credential_finish (PrsN8nClient  *client,
                                         GAsyncResult  *result,
                                         GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, client), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* ---- the example workflows ---- */

void
prs_example_result_free (PrsExampleResult *result)
{
  if (result == NULL)
    return;
  g_free (result->name);
  g_free (result->id);
  g_free (result->message);
  g_free (result);
}

GStrv
prs_n8n_setup_load_examples (GError **error)
{
  g_autoptr(GPtrArray) templates = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; example_files[i] != NULL; i++)
    {
      g_autofree char *path = g_strconcat (RESOURCE_PREFIX "/workflows/", example_files[i], NULL);
      g_autoptr(GBytes) bytes = g_resource_lookup_data (prs_n8n_examples_get_resource (), path,
                                                        G_RESOURCE_LOOKUP_FLAGS_NONE, error);

      if (bytes == NULL)
        return NULL;
      g_ptr_array_add (templates, g_strndup (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes)));
    }
  g_ptr_array_add (templates, NULL);
  return (GStrv) g_ptr_array_free (g_steal_pointer (&templates), FALSE);
}

static char *
replace_all (const char *text,
             const char *from,
             const char *to)
{
  g_auto(GStrv) parts = g_strsplit (text, from, -1);

  return g_strjoinv (to, parts);
}

/* @value as it goes inside a JSON string: escaped, without its quotes */
static char *
json_string_inner (const char *value)
{
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_VALUE);
  g_autofree char *quoted = NULL;

  json_node_set_string (node, value);
  quoted = prs_json_to_string (node, FALSE);
  return g_strndup (quoted + 1, strlen (quoted) - 2);
}

static JsonArray *
workflow_nodes (JsonObject *workflow)
{
  JsonNode *nodes = json_object_get_member (workflow, "nodes");

  return nodes != NULL && JSON_NODE_HOLDS_ARRAY (nodes) ? json_node_get_array (nodes) : NULL;
}

/* The member @name of @object when it is an object, else NULL */
static JsonObject *
object_member (JsonObject *object,
               const char *name)
{
  JsonNode *member = object != NULL ? json_object_get_member (object, name) : NULL;

  return member != NULL && JSON_NODE_HOLDS_OBJECT (member) ? json_node_get_object (member) : NULL;
}

/* The assignments of the "IMAP Account" node (an "Edit Fields" node), or
 * NULL when the workflow has none */
static JsonArray *
imap_account_fields (JsonObject *workflow)
{
  JsonArray *nodes = workflow_nodes (workflow);

  for (guint i = 0; nodes != NULL && i < json_array_get_length (nodes); i++)
    {
      JsonNode *element = json_array_get_element (nodes, i);
      JsonObject *node = JSON_NODE_HOLDS_OBJECT (element) ? json_node_get_object (element) : NULL;
      JsonObject *assignments;
      JsonNode *fields;

      if (node == NULL ||
          g_strcmp0 (json_object_get_string_member_with_default (node, "name", ""), PRS_N8N_IMAP_ACCOUNT_NODE) != 0 ||
          g_strcmp0 (json_object_get_string_member_with_default (node, "type", ""), "n8n-nodes-base.set") != 0)
        continue;
      assignments = object_member (object_member (node, "parameters"), "assignments");
      fields = assignments != NULL ? json_object_get_member (assignments, "assignments") : NULL;
      return fields != NULL && JSON_NODE_HOLDS_ARRAY (fields) ? json_node_get_array (fields) : NULL;
    }
  return NULL;
}

static JsonObject *
account_field (JsonArray  *fields,
               const char *name)
{
  for (guint i = 0; fields != NULL && i < json_array_get_length (fields); i++)
    {
      JsonNode *element = json_array_get_element (fields, i);

      if (JSON_NODE_HOLDS_OBJECT (element) &&
          g_strcmp0 (json_object_get_string_member_with_default (json_node_get_object (element), "name", ""),
                     name) == 0)
        return json_node_get_object (element);
    }
  return NULL;
}

static void
fill_imap_account (JsonObject           *workflow,
                   const PrsImapAccount *account)
{
  JsonArray *fields = imap_account_fields (workflow);
  JsonObject *field;

  if (fields == NULL)
    return;
  if ((field = account_field (fields, "host")) != NULL)
    json_object_set_string_member (field, "value", account->host);
  if ((field = account_field (fields, "port")) != NULL)
    json_object_set_int_member (field, "value", account->port);
  if ((field = account_field (fields, "tls")) != NULL)
    json_object_set_boolean_member (field, "value", TRUE);
  if ((field = account_field (fields, "user")) != NULL)
    json_object_set_string_member (field, "value", account->user);
  if ((field = account_field (fields, "password")) != NULL)
    json_object_set_string_member (field, "value", account->password);
}

/* One node of a template: the HTTP Request nodes' TLS option and the
 * credential references */
static void
prepare_node (JsonObject              *node,
              const PrsExampleOptions *options,
              const char              *imap_credential_id)
{
  JsonObject *credentials;
  JsonObject *ref;

  if (g_strcmp0 (json_object_get_string_member_with_default (node, "type", ""),
                 "n8n-nodes-base.httpRequest") == 0 && object_member (node, "parameters") != NULL)
    {
      JsonObject *parameters = object_member (node, "parameters");

      if (object_member (parameters, "options") == NULL)
        json_object_set_object_member (parameters, "options", json_object_new ());
      json_object_set_boolean_member (object_member (parameters, "options"), "allowUnauthorizedCerts",
                                      options->ignore_tls_errors);
    }

  credentials = object_member (node, "credentials");
  if ((ref = object_member (credentials, "httpHeaderAuth")) != NULL)
    {
      json_object_set_string_member (ref, "name", PRS_N8N_API_CREDENTIAL_NAME);
      if (options->credential_id != NULL)
        json_object_set_string_member (ref, "id", options->credential_id);
      else
        json_object_set_null_member (ref, "id");   /* n8n resolves it by name */
    }
  if ((ref = object_member (credentials, "imap")) != NULL && imap_credential_id != NULL)
    {
      json_object_set_string_member (ref, "name", PRS_N8N_IMAP_CREDENTIAL_NAME);
      json_object_set_string_member (ref, "id", imap_credential_id);
    }
}

JsonObject *
prs_n8n_setup_prepare_example (const char               *template_json,
                               const PrsExampleOptions  *options,
                               const char               *imap_credential_id,
                               GError                  **error)
{
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *base_inner = NULL;
  g_autofree char *agent_inner = NULL;
  g_autofree char *with_base = NULL;
  g_autofree char *text = NULL;
  JsonObject *workflow;
  JsonArray *nodes;

  g_return_val_if_fail (template_json != NULL, NULL);
  g_return_val_if_fail (options != NULL && options->api_base_url != NULL, NULL);

  base_inner = json_string_inner (options->api_base_url);
  with_base = replace_all (template_json, "__API_BASE__", base_inner);
  /* Inside a JavaScript string of an expression: agent ids are [a-z0-9-] */
  agent_inner = json_string_inner (options->agent_id != NULL ? options->agent_id : "prosponsive");
  text = replace_all (with_base, "__AGENT_ID__", agent_inner);

  root = prs_json_parse_bounded (text, strlen (text), PRS_JSON_DEFAULT_MAX_DEPTH, error);
  if (root == NULL)
    return NULL;
  if (!JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error_literal (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                           _("The example workflow is not a JSON object."));
      return NULL;
    }
  workflow = json_node_get_object (root);

  nodes = workflow_nodes (workflow);
  for (guint i = 0; nodes != NULL && i < json_array_get_length (nodes); i++)
    {
      JsonNode *element = json_array_get_element (nodes, i);

      if (JSON_NODE_HOLDS_OBJECT (element))
        prepare_node (json_node_get_object (element), options, imap_credential_id);
    }
  if (options->imap_account != NULL)
    fill_imap_account (workflow, options->imap_account);

  return prs_n8n_client_strip_workflow (workflow);
}

/* Whether a node refers to a credential of the user's that has no id yet:
 * one that is not "Prosponsive API" */
static gboolean
lacks_user_credential (JsonObject *node)
{
  JsonObject *credentials = object_member (node, "credentials");
  g_autoptr(GList) types = NULL;

  if (credentials == NULL)
    return FALSE;
  types = json_object_get_members (credentials);
  for (GList *l = types; l != NULL; l = l->next)
    {
      JsonObject *ref = object_member (credentials, l->data);

      if (g_strcmp0 (l->data, "httpHeaderAuth") != 0 &&
          (ref == NULL || json_object_get_string_member_with_default (ref, "id", NULL) == NULL))
        return TRUE;
    }
  return FALSE;
}

static gboolean
lacks_imap_account (JsonObject *workflow)
{
  JsonArray *fields = imap_account_fields (workflow);
  const char * const needed[] = { "host", "user", "password", NULL };

  if (fields == NULL)
    return FALSE;
  for (guint i = 0; needed[i] != NULL; i++)
    {
      JsonObject *field = account_field (fields, needed[i]);

      if (field == NULL || json_object_get_string_member_with_default (field, "value", "")[0] == '\0')
        return TRUE;
    }
  return FALSE;
}

gboolean
prs_n8n_setup_needs_user_credential (JsonObject *workflow)
{
  JsonArray *nodes;

  g_return_val_if_fail (workflow != NULL, FALSE);

  nodes = workflow_nodes (workflow);
  for (guint i = 0; nodes != NULL && i < json_array_get_length (nodes); i++)
    {
      JsonNode *element = json_array_get_element (nodes, i);

      if (JSON_NODE_HOLDS_OBJECT (element) && lacks_user_credential (json_node_get_object (element)))
        return TRUE;
    }
  return lacks_imap_account (workflow);
}

/* Whether @workflow refers to an IMAP credential (the trigger) */
static gboolean
uses_imap_credential (JsonObject *workflow)
{
  JsonArray *nodes = workflow_nodes (workflow);

  for (guint i = 0; nodes != NULL && i < json_array_get_length (nodes); i++)
    {
      JsonNode *element = json_array_get_element (nodes, i);

      if (JSON_NODE_HOLDS_OBJECT (element) &&
          object_member (object_member (json_node_get_object (element), "credentials"), "imap") != NULL)
        return TRUE;
    }
  return FALSE;
}

/* ---- import ---- */

typedef struct
{
  PrsN8nClient     *client;
  GStrv             templates;
  char             *api_base_url;
  char             *credential_id;
  char             *agent_id;
  gboolean          ignore_tls_errors;
  PrsImapAccount   *account;         /* a copy; NULL without one */
  char             *imap_credential_id;
  char             *imap_problem;    /* why the IMAP credential was not created */
  GHashTable       *existing;        /* name → JsonObject* of the workflows in n8n */
  guint             next;
  GPtrArray        *results;         /* PrsExampleResult* */
  JsonObject       *current;         /* the prepared workflow being created */
} ImportData;

static void
free_account (PrsImapAccount *account)
{
  if (account == NULL)
    return;
  g_free ((char *) account->host);
  g_free ((char *) account->user);
  if (account->password != NULL)
    memset ((char *) account->password, 0, strlen (account->password));
  g_free ((char *) account->password);
  g_free (account);
}

static void
import_data_free (ImportData *data)
{
  g_clear_object (&data->client);
  g_strfreev (data->templates);
  g_free (data->api_base_url);
  g_free (data->credential_id);
  g_free (data->agent_id);
  free_account (data->account);
  g_free (data->imap_credential_id);
  g_free (data->imap_problem);
  g_clear_pointer (&data->existing, g_hash_table_unref);
  g_clear_pointer (&data->results, g_ptr_array_unref);
  g_clear_pointer (&data->current, json_object_unref);
  g_free (data);
}

static void import_next (GTask *task);
static void import_current (GTask *task);

static PrsExampleResult *
current_result (ImportData *data)
{
  return g_ptr_array_index (data->results, data->results->len - 1);
}

static void
on_activated (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  ImportData *data = g_task_get_task_data (task);
  PrsExampleResult *example = current_result (data);
  g_autoptr(GError) error = NULL;

  if (prs_n8n_client_activate_workflow_finish (PRS_N8N_CLIENT (source), result, &error))
    example->active = TRUE;
  else
    {
      example->failed = TRUE;
      /* Translators: %s is n8n's own explanation */
      example->message = g_strdup_printf (_("Imported, but n8n could not publish it: %s"), error->message);
    }

  import_next (g_steal_pointer (&task));
}

/* Why an example stays inactive, in words */
static char *
inactive_reason (ImportData *data)
{
  if (data->imap_problem != NULL && uses_imap_credential (data->current))
    /* Translators: %s is n8n's own explanation */
    return g_strdup_printf (_("Imported inactive: n8n did not create the IMAP credential: %s"), data->imap_problem);
  if (lacks_imap_account (data->current))
    return g_strdup (_("Imported inactive: fill in your IMAP account in its “IMAP Account” node in n8n, "
                       "then publish it."));
  return g_strdup (_("Imported inactive: it needs one of your accounts. Open it in n8n, "
                     "choose the account in its trigger node, then publish it."));
}

static void
on_created (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  ImportData *data = g_task_get_task_data (task);
  PrsExampleResult *example = current_result (data);
  g_autoptr(JsonObject) created = NULL;
  g_autoptr(GError) error = NULL;
  GCancellable *cancellable;
  const char *id;

  created = prs_n8n_client_create_workflow_finish (PRS_N8N_CLIENT (source), result, &error);
  if (created == NULL)
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          g_task_return_error (task, g_steal_pointer (&error));
          return;
        }
      example->failed = TRUE;
      example->message = g_strdup (error->message);
      import_next (g_steal_pointer (&task));
      return;
    }

  id = json_object_get_string_member_with_default (created, "id", NULL);
  example->id = g_strdup (id);
  if (id == NULL)
    {
      example->failed = TRUE;
      example->message = g_strdup (_("n8n created it but did not say its id."));
      import_next (g_steal_pointer (&task));
      return;
    }

  if (prs_n8n_setup_needs_user_credential (data->current))
    {
      example->message = inactive_reason (data);
      import_next (g_steal_pointer (&task));
      return;
    }

  cancellable = g_task_get_cancellable (task);
  prs_n8n_client_activate_workflow_async (data->client, id, cancellable, on_activated, g_steal_pointer (&task));
}

static void
on_imap_credential_created (GObject      *source,
                            GAsyncResult *result,
                            gpointer      user_data)
{
  GTask *task = user_data;
  ImportData *data = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;

  data->imap_credential_id = prs_n8n_client_create_credential_finish (PRS_N8N_CLIENT (source), result, &error);
  if (data->imap_credential_id == NULL)
    data->imap_problem = g_strdup (error->message);
  import_current (task);
}

static void
create_imap_credential (GTask *task)
{
  ImportData *data = g_task_get_task_data (task);
  g_autoptr(JsonObject) credential = json_object_new ();

  json_object_set_string_member (credential, "host", data->account->host);
  json_object_set_int_member (credential, "port", data->account->port);
  json_object_set_boolean_member (credential, "secure", TRUE);
  json_object_set_boolean_member (credential, "allowUnauthorizedCerts", FALSE);
  json_object_set_string_member (credential, "user", data->account->user);
  json_object_set_string_member (credential, "password", data->account->password);
  prs_n8n_client_create_credential_async (data->client, PRS_N8N_IMAP_CREDENTIAL_NAME, "imap", credential,
                                          g_task_get_cancellable (task), on_imap_credential_created, task);
}

/* Prepares the template data->next - 1 (again, once the IMAP credential
 * exists) and creates it unless n8n has a workflow of that name */
static void
import_current (GTask *task)
{
  ImportData *data = g_task_get_task_data (task);
  PrsExampleResult *example = current_result (data);
  g_autoptr(GError) error = NULL;
  PrsExampleOptions options = {
    data->api_base_url, data->credential_id, data->agent_id, data->ignore_tls_errors, data->account
  };
  JsonObject *existing;

  g_clear_pointer (&data->current, json_object_unref);
  data->current = prs_n8n_setup_prepare_example (data->templates[data->next - 1], &options,
                                                 data->imap_credential_id, &error);
  if (data->current == NULL)
    {
      example->name = g_strdup (_("Example workflow"));
      example->failed = TRUE;
      example->message = g_strdup (error->message);
      import_next (task);
      return;
    }
  g_free (example->name);
  example->name = g_strdup (json_object_get_string_member_with_default (data->current, "name", ""));

  existing = g_hash_table_lookup (data->existing, example->name);
  if (existing != NULL)
    {
      example->existed = TRUE;
      example->id = g_strdup (json_object_get_string_member_with_default (existing, "id", NULL));
      example->active = json_object_get_boolean_member_with_default (existing, "active", FALSE);
      example->message = g_strdup (_("Already in n8n: left as it is."));
      import_next (task);
      return;
    }

  if (data->account != NULL && data->imap_credential_id == NULL && data->imap_problem == NULL &&
      uses_imap_credential (data->current))
    {
      create_imap_credential (task);
      return;
    }

  prs_n8n_client_create_workflow_async (data->client, data->current, g_task_get_cancellable (task),
                                        on_created, task);
}

static void
import_next (GTask *task)
{
  ImportData *data = g_task_get_task_data (task);

  g_clear_pointer (&data->current, json_object_unref);
  if (data->templates[data->next] == NULL)
    {
      g_task_return_pointer (task, g_steal_pointer (&data->results), (GDestroyNotify) g_ptr_array_unref);
      g_object_unref (task);
      return;
    }
  data->next++;
  g_ptr_array_add (data->results, g_new0 (PrsExampleResult, 1));
  import_current (task);
}

static void
on_existing_listed (GObject      *source,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  GTask *task = user_data;
  ImportData *data = g_task_get_task_data (task);
  g_autoptr(GPtrArray) workflows = NULL;
  g_autoptr(GError) error = NULL;

  workflows = prs_n8n_client_list_workflows_finish (PRS_N8N_CLIENT (source), result, &error);
  if (workflows == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      g_object_unref (task);
      return;
    }
  for (guint i = 0; i < workflows->len; i++)
    {
      JsonObject *workflow = g_ptr_array_index (workflows, i);
      const char *name = json_object_get_string_member_with_default (workflow, "name", NULL);

      if (name != NULL && !json_object_get_boolean_member_with_default (workflow, "isArchived", FALSE) &&
          !g_hash_table_contains (data->existing, name))
        g_hash_table_insert (data->existing, g_strdup (name), json_object_ref (workflow));
    }
  import_next (task);
}

void
prs_n8n_setup_import_examples_async (PrsN8nClient             *client,
                                     const char * const       *templates,
                                     const PrsExampleOptions  *options,
                                     GCancellable             *cancellable,
                                     GAsyncReadyCallback       callback,
                                     gpointer                  user_data)
{
  GTask *task;
  ImportData *data;

  g_return_if_fail (PRS_IS_N8N_CLIENT (client));
  g_return_if_fail (templates != NULL);
  g_return_if_fail (options != NULL && options->api_base_url != NULL);

  task = g_task_new (client, cancellable, callback, user_data);
  g_task_set_source_tag (task, prs_n8n_setup_import_examples_async);
  data = g_new0 (ImportData, 1);
  data->client = g_object_ref (client);
  data->templates = g_strdupv ((char **) templates);
  data->api_base_url = g_strdup (options->api_base_url);
  data->credential_id = g_strdup (options->credential_id);
  data->agent_id = g_strdup (options->agent_id);
  data->ignore_tls_errors = options->ignore_tls_errors;
  if (options->imap_account != NULL)
    {
      data->account = g_new0 (PrsImapAccount, 1);
      data->account->host = g_strdup (options->imap_account->host);
      data->account->port = options->imap_account->port;
      data->account->user = g_strdup (options->imap_account->user);
      data->account->password = g_strdup (options->imap_account->password);
    }
  data->existing = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) json_object_unref);
  data->results = g_ptr_array_new_with_free_func ((GDestroyNotify) prs_example_result_free);
  g_task_set_task_data (task, data, (GDestroyNotify) import_data_free);

  prs_n8n_client_list_workflows_async (client, FALSE, cancellable, on_existing_listed, task);
}

GPtrArray *
prs_n8n_setup_import_examples_finish (PrsN8nClient  *client,
                                      GAsyncResult  *result,
                                      char         **out_imap_credential_id,
                                      GError       **error)
{
  GPtrArray *results;

  g_return_val_if_fail (g_task_is_valid (result, client), NULL);

  results = g_task_propagate_pointer (G_TASK (result), error);
  if (out_imap_credential_id != NULL)
    {
      ImportData *data = g_task_get_task_data (G_TASK (result));

      *out_imap_credential_id = results != NULL ? g_strdup (data->imap_credential_id) : NULL;
    }
  return results;
}
