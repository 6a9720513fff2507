/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-n8n-client-write.c: what setup writes to n8n through its public API:
 * a credential (created or deleted), a workflow (stripped to what n8n 1.123
 * accepts, created or updated), its activation. Requests go through
 * prs-n8n-client.c. */
#include "config.h"

#include <glib/gi18n-lib.h>

#include <string.h>
#include <libsoup/soup.h>

#include "prs-error.h"
#include "prs-n8n-client.h"
#include "prs-n8n-client-internal.h"

/* PREFIX/ID followed by @suffix, the id escaped as a path segment */
static char *
id_path (const char *prefix,
         const char *id,
         const char *suffix)
{
  g_autofree char *escaped = g_uri_escape_string (id, NULL, FALSE);

  return g_strconcat (prefix, "/", escaped, suffix, NULL);
}

void
prs_n8n_client_create_credential_async (PrsN8nClient        *self,
                                        const char          *name,
                                        const char          *type,
                                        JsonObject          *data,
                                        GCancellable        *cancellable,
                                        GAsyncReadyCallback  callback,
                                        gpointer             user_data)
{
  g_autoptr(JsonObject) body = json_object_new ();
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);

  g_return_if_fail (PRS_IS_N8N_CLIENT (self));
  g_return_if_fail (name != NULL && type != NULL && data != NULL);

  json_object_set_string_member (body, "name", name);
  json_object_set_string_member (body, "type", type);
  json_object_set_object_member (body, "data", json_object_ref (data));
  json_node_set_object (node, body);
  prs_n8n_client_post_async (self, prs_n8n_client_create_credential_async, "/api/v1/credentials", node,
              cancellable, callback, user_data);
}

char *
prs_n8n_client_create_credential_finish (PrsN8nClient  *self,
                                         GAsyncResult  *result,
                                         GError       **error)
{
  g_autoptr(JsonObject) answer = prs_n8n_client_post_finish (self, prs_n8n_client_create_credential_async,
                                              result, error);
  const char *id;

  if (answer == NULL)
    return NULL;
  id = json_object_get_string_member_with_default (answer, "id", NULL);
  if (id == NULL || *id == '\0')
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_N8N_BAD_RESPONSE,
                   _("n8n at %s created the credential but did not say its id."), prs_n8n_client_get_base_url (self));
      return NULL;
    }
  return g_strdup (id);
}

/* What POST /api/v1/workflows accepts (n8n 1.123: additionalProperties is
 * false on the workflow and on each node; read-only fields are refused). */
static const char * const workflow_fields[] = { "name", "nodes", "connections", "settings", NULL };
static const char * const node_fields[] = {
  "id", "name", "webhookId", "disabled", "notesInFlow", "notes", "type", "typeVersion",
  "executeOnce", "alwaysOutputData", "retryOnFail", "maxTries", "waitBetweenTries",
  "onError", "position", "parameters", "credentials", NULL
};
static const char * const settings_fields[] = {
  "saveExecutionProgress", "saveManualExecutions", "saveDataErrorExecution",
  "saveDataSuccessExecution", "executionTimeout", "errorWorkflow", "timezone",
  "executionOrder", "callerPolicy", "callerIds", "timeSavedPerExecution", "availableInMCP", NULL
};

static JsonObject *
copy_fields (JsonObject         *from,
             const char * const *fields)
{
  JsonObject *to = json_object_new ();

  for (guint i = 0; fields[i] != NULL; i++)
    {
      JsonNode *member = json_object_get_member (from, fields[i]);

      if (member != NULL)
        json_object_set_member (to, fields[i], json_node_copy (member));
    }
  return to;
}

JsonObject *
prs_n8n_client_strip_workflow (JsonObject *workflow)
{
  JsonObject *out;
  JsonNode *nodes;
  JsonNode *settings;

  g_return_val_if_fail (workflow != NULL, NULL);

  out = copy_fields (workflow, workflow_fields);
  nodes = json_object_get_member (workflow, "nodes");
  if (nodes != NULL && JSON_NODE_HOLDS_ARRAY (nodes))
    {
      JsonArray *in = json_node_get_array (nodes);
      JsonArray *stripped = json_array_new ();

      for (guint i = 0; i < json_array_get_length (in); i++)
        {
          JsonNode *node = json_array_get_element (in, i);

          if (JSON_NODE_HOLDS_OBJECT (node))
            json_array_add_object_element (stripped, copy_fields (json_node_get_object (node), node_fields));
        }
      json_object_set_array_member (out, "nodes", stripped);
    }
  else
    json_object_set_array_member (out, "nodes", json_array_new ());

  if (!json_object_has_member (out, "connections"))
    json_object_set_object_member (out, "connections", json_object_new ());

  settings = json_object_get_member (workflow, "settings");
  json_object_set_object_member (out, "settings",
                                 settings != NULL && JSON_NODE_HOLDS_OBJECT (settings)
                                   ? copy_fields (json_node_get_object (settings), settings_fields)
                                   : json_object_new ());
  return out;
}

void
prs_n8n_client_create_workflow_async (PrsN8nClient        *self,
                                      JsonObject          *workflow,
                                      GCancellable        *cancellable,
                                      GAsyncReadyCallback  callback,
                                      gpointer             user_data)
{
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);

  g_return_if_fail (PRS_IS_N8N_CLIENT (self));
  g_return_if_fail (workflow != NULL);

  json_node_take_object (node, prs_n8n_client_strip_workflow (workflow));
  prs_n8n_client_post_async (self, prs_n8n_client_create_workflow_async, WORKFLOWS_PATH, node,
              cancellable, callback, user_data);
}

JsonObject *
prs_n8n_client_create_workflow_finish (PrsN8nClient  *self,
                                       GAsyncResult  *result,
                                       GError       **error)
{
  return prs_n8n_client_post_finish (self, prs_n8n_client_create_workflow_async, result, error);
}

void
prs_n8n_client_activate_workflow_async (PrsN8nClient        *self,
                                        const char          *id,
                                        GCancellable        *cancellable,
                                        GAsyncReadyCallback  callback,
                                        gpointer             user_data)
{
  g_autofree char *path = NULL;

  g_return_if_fail (PRS_IS_N8N_CLIENT (self));
  g_return_if_fail (id != NULL && *id != '\0');

  path = id_path (WORKFLOWS_PATH, id, "/activate");
  prs_n8n_client_post_async (self, prs_n8n_client_activate_workflow_async, path, NULL,
              cancellable, callback, user_data);
}

gboolean
prs_n8n_client_activate_workflow_finish (PrsN8nClient  *self,
                                         GAsyncResult  *result,
                                         GError       **error)
{
  g_autoptr(JsonObject) answer = prs_n8n_client_post_finish (self, prs_n8n_client_activate_workflow_async,
                                              result, error);

  return answer != NULL;
}

void
prs_n8n_client_update_workflow_async (PrsN8nClient        *self,
                                      const char          *id,
                                      JsonObject          *workflow,
                                      GCancellable        *cancellable,
                                      GAsyncReadyCallback  callback,
                                      gpointer             user_data)
{
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
  g_autofree char *path = NULL;

  g_return_if_fail (PRS_IS_N8N_CLIENT (self));
  g_return_if_fail (id != NULL && *id != '\0');
  g_return_if_fail (workflow != NULL);

  path = id_path (WORKFLOWS_PATH, id, "");
  json_node_take_object (node, prs_n8n_client_strip_workflow (workflow));
  prs_n8n_client_write_async (self, prs_n8n_client_update_workflow_async, SOUP_METHOD_PUT, path, node,
                              cancellable, callback, user_data);
}

JsonObject *
prs_n8n_client_update_workflow_finish (PrsN8nClient  *self,
                                       GAsyncResult  *result,
                                       GError       **error)
{
  return prs_n8n_client_post_finish (self, prs_n8n_client_update_workflow_async, result, error);
}

void
prs_n8n_client_delete_credential_async (PrsN8nClient        *self,
                                        const char          *id,
                                        GCancellable        *cancellable,
                                        GAsyncReadyCallback  callback,
                                        gpointer             user_data)
{
  g_autofree char *path = NULL;

  g_return_if_fail (PRS_IS_N8N_CLIENT (self));
  g_return_if_fail (id != NULL && *id != '\0');

  path = id_path ("/api/v1/credentials", id, "");
  prs_n8n_client_write_async (self, prs_n8n_client_delete_credential_async, SOUP_METHOD_DELETE, path, NULL,
                              cancellable, callback, user_data);
}

gboolean
prs_n8n_client_delete_credential_finish (PrsN8nClient  *self,
                                         GAsyncResult  *result,
                                         GError       **error)
{
  g_autoptr(JsonObject) answer = prs_n8n_client_post_finish (self, prs_n8n_client_delete_credential_async,
                                                              result, error);

  return answer != NULL;
}
