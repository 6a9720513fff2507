/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-n8n-setup.c: the credential and the example workflows that first-run
 * setup creates on the user's n8n. The token goes to n8n and nowhere else:
 * not into a message, not into a log line. */
#include "config.h"

#include <string.h>
#include <glib/gi18n-lib.h>

#include "prs-error.h"
#include "prs-json.h"
#include "prs-n8n-setup.h"

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

static char *
replace_all (const char *text,
             const char *from,
             const char *to)
{
  g_auto(GStrv) parts = g_strsplit (text, from, -1);

  return g_strjoinv (to, parts);
}

JsonObject *
prs_n8n_setup_prepare_example (const char  *template_json,
                               const char  *api_base_url,
                               const char  *credential_id,
                               gboolean     ignore_tls_errors,
                               GError     **error)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(JsonNode) base_node = NULL;
  g_autofree char *base_json = NULL;
  g_autofree char *base_inner = NULL;
  g_autofree char *text = NULL;
  JsonObject *workflow;
  JsonNode *root;
  JsonNode *nodes;

  g_return_val_if_fail (template_json != NULL, NULL);
  g_return_val_if_fail (api_base_url != NULL, NULL);

  /* The URL goes into JSON strings: escape it as JSON, without its quotes. */
  base_node = json_node_new (JSON_NODE_VALUE);
  json_node_set_string (base_node, api_base_url);
  base_json = prs_json_to_string (base_node, FALSE);
  base_inner = g_strndup (base_json + 1, strlen (base_json) - 2);
  text = replace_all (template_json, "__API_BASE__", base_inner);

  if (!json_parser_load_from_data (parser, text, -1, error))
    return NULL;
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error_literal (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                           "The example workflow is not a JSON object.");
      return NULL;
    }
  workflow = json_node_get_object (root);

  nodes = json_object_get_member (workflow, "nodes");
  if (nodes != NULL && JSON_NODE_HOLDS_ARRAY (nodes))
    {
      JsonArray *array = json_node_get_array (nodes);

      for (guint i = 0; i < json_array_get_length (array); i++)
        {
          JsonNode *element = json_array_get_element (array, i);
          JsonObject *node;
          JsonObject *credentials;
          JsonObject *header;

          if (!JSON_NODE_HOLDS_OBJECT (element))
            continue;
          node = json_node_get_object (element);

          if (g_strcmp0 (json_object_get_string_member_with_default (node, "type", ""),
                         "n8n-nodes-base.httpRequest") == 0 &&
              json_object_has_member (node, "parameters"))
            {
              JsonObject *parameters = json_object_get_object_member (node, "parameters");
              JsonObject *options;

              if (!json_object_has_member (parameters, "options"))
                json_object_set_object_member (parameters, "options", json_object_new ());
              options = json_object_get_object_member (parameters, "options");
              json_object_set_boolean_member (options, "allowUnauthorizedCerts", ignore_tls_errors);
            }

          if (!json_object_has_member (node, "credentials"))
            continue;
          credentials = json_object_get_object_member (node, "credentials");
          if (credentials == NULL || !json_object_has_member (credentials, "httpHeaderAuth"))
            continue;
          header = json_object_get_object_member (credentials, "httpHeaderAuth");
          if (header == NULL)
            continue;
          json_object_set_string_member (header, "name", PRS_N8N_API_CREDENTIAL_NAME);
          if (credential_id != NULL)
            json_object_set_string_member (header, "id", credential_id);
          else
            json_object_set_null_member (header, "id");   /* n8n resolves it by name */
        }
    }

  return prs_n8n_client_strip_workflow (workflow);
}

gboolean
prs_n8n_setup_needs_user_credential (JsonObject *workflow)
{
  JsonArray *nodes;

  g_return_val_if_fail (workflow != NULL, FALSE);

  if (!json_object_has_member (workflow, "nodes"))
    return FALSE;
  nodes = json_object_get_array_member (workflow, "nodes");
  for (guint i = 0; nodes != NULL && i < json_array_get_length (nodes); i++)
    {
      JsonNode *element = json_array_get_element (nodes, i);
      JsonObject *credentials;
      g_autoptr(GList) types = NULL;

      if (!JSON_NODE_HOLDS_OBJECT (element) ||
          !json_object_has_member (json_node_get_object (element), "credentials"))
        continue;
      credentials = json_object_get_object_member (json_node_get_object (element), "credentials");
      if (credentials == NULL)
        continue;
      types = json_object_get_members (credentials);
      for (GList *l = types; l != NULL; l = l->next)
        if (g_strcmp0 (l->data, "httpHeaderAuth") != 0)
          return TRUE;
    }
  return FALSE;
}

/* ---- import ---- */

typedef struct
{
  PrsN8nClient *client;
  GStrv         templates;
  char         *api_base_url;
  char         *credential_id;
  gboolean      ignore_tls_errors;
  guint         next;
  GPtrArray    *results;       /* PrsExampleResult* */
  JsonObject   *current;       /* the prepared workflow being created */
} ImportData;

static void
import_data_free (ImportData *data)
{
  g_clear_object (&data->client);
  g_strfreev (data->templates);
  g_free (data->api_base_url);
  g_free (data->credential_id);
  g_clear_pointer (&data->results, g_ptr_array_unref);
  g_clear_pointer (&data->current, json_object_unref);
  g_free (data);
}

static void import_next (GTask *task);

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
    /* Translators: %s is n8n's own explanation */
    example->message = g_strdup_printf (_("Imported, but n8n could not publish it: %s"), error->message);

  import_next (g_steal_pointer (&task));
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
      example->message = g_strdup (error->message);
      import_next (g_steal_pointer (&task));
      return;
    }

  id = json_object_get_string_member_with_default (created, "id", NULL);
  example->id = g_strdup (id);
  if (id == NULL)
    {
      example->message = g_strdup (_("n8n created it but did not say its id."));
      import_next (g_steal_pointer (&task));
      return;
    }

  if (prs_n8n_setup_needs_user_credential (data->current))
    {
      example->message = g_strdup (_("Imported inactive: it needs one of your accounts. Open it in n8n, "
                                     "choose the account in its trigger node, then publish it."));
      import_next (g_steal_pointer (&task));
      return;
    }

  cancellable = g_task_get_cancellable (task);
  prs_n8n_client_activate_workflow_async (data->client, id, cancellable, on_activated, g_steal_pointer (&task));
}

static void
import_next (GTask *task)
{
  ImportData *data = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  PrsExampleResult *example;
  const char *template_json;

  g_clear_pointer (&data->current, json_object_unref);

  if (data->templates[data->next] == NULL)
    {
      g_task_return_pointer (task, g_steal_pointer (&data->results), (GDestroyNotify) g_ptr_array_unref);
      g_object_unref (task);
      return;
    }

  template_json = data->templates[data->next++];
  example = g_new0 (PrsExampleResult, 1);
  g_ptr_array_add (data->results, example);

  data->current = prs_n8n_setup_prepare_example (template_json, data->api_base_url,
                                                 data->credential_id, data->ignore_tls_errors, &error);
  if (data->current == NULL)
    {
      example->name = g_strdup (_("Example workflow"));
      example->message = g_strdup (error->message);
      import_next (task);
      return;
    }
  example->name = g_strdup (json_object_get_string_member_with_default (data->current, "name", ""));
  prs_n8n_client_create_workflow_async (data->client, data->current, g_task_get_cancellable (task),
                                        on_created, task);
}

void
prs_n8n_setup_import_examples_async (PrsN8nClient        *client,
                                     const char * const  *templates,
                                     const char          *api_base_url,
                                     const char          *credential_id,
                                     gboolean             ignore_tls_errors,
                                     GCancellable        *cancellable,
                                     GAsyncReadyCallback  callback,
                                     gpointer             user_data)
{
  GTask *task;
  ImportData *data;

  g_return_if_fail (PRS_IS_N8N_CLIENT (client));
  g_return_if_fail (templates != NULL);
  g_return_if_fail (api_base_url != NULL);

  task = g_task_new (client, cancellable, callback, user_data);
  g_task_set_source_tag (task, prs_n8n_setup_import_examples_async);
  data = g_new0 (ImportData, 1);
  data->client = g_object_ref (client);
  data->templates = g_strdupv ((char **) templates);
  data->api_base_url = g_strdup (api_base_url);
  data->credential_id = g_strdup (credential_id);
  data->ignore_tls_errors = ignore_tls_errors;
  data->results = g_ptr_array_new_with_free_func ((GDestroyNotify) prs_example_result_free);
  g_task_set_task_data (task, data, (GDestroyNotify) import_data_free);

  import_next (task);
}

GPtrArray *
prs_n8n_setup_import_examples_finish (PrsN8nClient  *client,
                                      GAsyncResult  *result,
                                      GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, client), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}
