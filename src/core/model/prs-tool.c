/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-tool.c: a discovered tool, its JSON Schema and its public JSON form. */
#include "config.h"

#include <glib/gi18n-lib.h>

#include <string.h>
#include <libsoup/soup.h>

#include "prs-error.h"
#include "prs-json.h"
#include "prs-tool.h"

PrsTool *
prs_tool_new (void)
{
  PrsTool *tool = g_new0 (PrsTool, 1);

  tool->params = g_ptr_array_new_with_free_func ((GDestroyNotify) prs_param_free);
  tool->webhook_method = g_strdup ("POST");

  return tool;
}

PrsTool *
prs_tool_copy (const PrsTool *tool)
{
  PrsTool *copy;

  g_return_val_if_fail (tool != NULL, NULL);

  copy = prs_tool_new ();
  g_free (copy->webhook_method);

  copy->name = g_strdup (tool->name);
  copy->description = g_strdup (tool->description);
  copy->description_source = tool->description_source;
  copy->workflow_id = g_strdup (tool->workflow_id);
  copy->workflow_name = g_strdup (tool->workflow_name);
  copy->created_at = g_strdup (tool->created_at);
  copy->webhook_path = g_strdup (tool->webhook_path);
  copy->webhook_method = g_strdup (tool->webhook_method);
  copy->response_mode = g_strdup (tool->response_mode);
  copy->webhook_id = g_strdup (tool->webhook_id);
  copy->webhook_node_name = g_strdup (tool->webhook_node_name);
  copy->discovered_at = tool->discovered_at;
  copy->mcp_server = g_strdup (tool->mcp_server);
  copy->mcp_server_id = g_strdup (tool->mcp_server_id);
  copy->mcp_tool = g_strdup (tool->mcp_tool);
  copy->mcp_name_note = g_strdup (tool->mcp_name_note);
  copy->input_schema = tool->input_schema != NULL ? json_node_copy (tool->input_schema) : NULL;

  for (guint i = 0; i < tool->params->len; i++)
    g_ptr_array_add (copy->params, prs_param_copy (g_ptr_array_index (tool->params, i)));

  return copy;
}

void
prs_tool_free (PrsTool *tool)
{
  if (tool == NULL)
    return;

  g_free (tool->name);
  g_free (tool->description);
  g_free (tool->workflow_id);
  g_free (tool->workflow_name);
  g_free (tool->created_at);
  g_free (tool->webhook_path);
  g_free (tool->webhook_method);
  g_free (tool->response_mode);
  g_free (tool->webhook_id);
  g_free (tool->webhook_node_name);
  g_clear_pointer (&tool->params, g_ptr_array_unref);
  g_free (tool->mcp_server);
  g_free (tool->mcp_server_id);
  g_free (tool->mcp_tool);
  g_free (tool->mcp_name_note);
  g_clear_pointer (&tool->input_schema, json_node_unref);
  g_free (tool);
}

static const char * const source_names[] = {
  [PRS_DESCRIPTION_WORKFLOW] = "workflow",
  [PRS_DESCRIPTION_STICKY_NOTE] = "sticky-note",
  [PRS_DESCRIPTION_GENERATED] = "generated",
};

const char *
prs_description_source_to_string (PrsDescriptionSource source)
{
  g_return_val_if_fail (source <= PRS_DESCRIPTION_GENERATED, "generated");

  return source_names[source];
}

gboolean
prs_description_source_from_string (const char           *str,
                                    PrsDescriptionSource *out_source)
{
  for (guint i = 0; i < G_N_ELEMENTS (source_names); i++)
    {
      if (g_strcmp0 (str, source_names[i]) == 0)
        {
          *out_source = (PrsDescriptionSource) i;
          return TRUE;
        }
    }

  return FALSE;
}

JsonNode *
prs_tool_build_input_schema (const PrsTool *tool)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();

  g_return_val_if_fail (tool != NULL, NULL);

  if (tool->input_schema != NULL)
    return json_node_copy (tool->input_schema);

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "type");
  json_builder_add_string_value (builder, "object");

  json_builder_set_member_name (builder, "properties");
  json_builder_begin_object (builder);
  for (guint i = 0; i < tool->params->len; i++)
    {
      const PrsParam *param = g_ptr_array_index (tool->params, i);

      json_builder_set_member_name (builder, param->name);
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "type");
      json_builder_add_string_value (builder, prs_param_type_to_string (param->type));
      json_builder_set_member_name (builder, "description");
      json_builder_add_string_value (builder, param->description);
      if (param->default_value != NULL)
        {
          json_builder_set_member_name (builder, "default");
          json_builder_add_value (builder, json_node_copy (param->default_value));
        }
      if (param->type == PRS_PARAM_ARRAY)
        {
          json_builder_set_member_name (builder, "items");
          json_builder_begin_object (builder);
          json_builder_end_object (builder);
        }
      json_builder_end_object (builder);
    }
  json_builder_end_object (builder);

  json_builder_set_member_name (builder, "required");
  json_builder_begin_array (builder);
  for (guint i = 0; i < tool->params->len; i++)
    {
      const PrsParam *param = g_ptr_array_index (tool->params, i);

      if (param->required)
        json_builder_add_string_value (builder, param->name);
    }
  json_builder_end_array (builder);

  json_builder_end_object (builder);

  return json_builder_get_root (builder);
}

gboolean
prs_tool_is_mcp (const PrsTool *tool)
{
  g_return_val_if_fail (tool != NULL, FALSE);

  return tool->mcp_server != NULL;
}

static PrsParamType
schema_type (JsonObject *property)
{
  JsonNode *type = json_object_get_member (property, "type");
  PrsParamType out = PRS_PARAM_STRING;

  if (type == NULL || !JSON_NODE_HOLDS_VALUE (type) || json_node_get_value_type (type) != G_TYPE_STRING)
    return PRS_PARAM_STRING;
  if (g_str_equal (json_node_get_string (type), "integer"))
    return PRS_PARAM_NUMBER;
  prs_param_type_from_string (json_node_get_string (type), &out);
  return out;
}

void
prs_tool_set_input_schema (PrsTool  *tool,
                           JsonNode *schema)
{
  JsonObject *object;
  JsonObject *properties = NULL;
  JsonArray *required = NULL;
  GList *members;
  guint n = 0;

  g_return_if_fail (tool != NULL);
  g_return_if_fail (schema != NULL && JSON_NODE_HOLDS_OBJECT (schema));

  g_clear_pointer (&tool->input_schema, json_node_unref);
  tool->input_schema = json_node_copy (schema);
  g_ptr_array_set_size (tool->params, 0);

  object = json_node_get_object (tool->input_schema);
  if (json_object_has_member (object, "properties") &&
      JSON_NODE_HOLDS_OBJECT (json_object_get_member (object, "properties")))
    properties = json_object_get_object_member (object, "properties");
  if (json_object_has_member (object, "required") &&
      JSON_NODE_HOLDS_ARRAY (json_object_get_member (object, "required")))
    required = json_object_get_array_member (object, "required");
  if (properties == NULL)
    return;

  members = json_object_get_members (properties);
  for (GList *l = members; l != NULL && n < PRS_TOOL_MAX_PARAMS; l = l->next, n++)
    {
      JsonNode *node = json_object_get_member (properties, l->data);
      JsonObject *property = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
      const char *description = property != NULL ? prs_json_object_get_string (property, "description") : NULL;
      gboolean is_required = FALSE;
      PrsParam *param;

      for (guint i = 0; required != NULL && i < json_array_get_length (required); i++)
        {
          JsonNode *element = json_array_get_element (required, i);

          is_required = is_required || (JSON_NODE_HOLDS_VALUE (element) &&
                                        json_node_get_value_type (element) == G_TYPE_STRING &&
                                        g_strcmp0 (json_node_get_string (element), l->data) == 0);
        }
      param = prs_param_new (l->data, property != NULL ? schema_type (property) : PRS_PARAM_STRING, is_required,
                             property != NULL ? json_object_get_member (property, "default") : NULL);
      if (description != NULL && description[0] != '\0')
        {
          g_free (param->description);
          param->description = g_strdup (description);
        }
      g_ptr_array_add (tool->params, param);
    }
  g_list_free (members);
}

JsonNode *
prs_tool_to_json (const PrsTool *tool)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();

  g_return_val_if_fail (tool != NULL, NULL);

  json_builder_begin_object (builder);
  prs_json_builder_add_string_member (builder, "name", tool->name);
  prs_json_builder_add_string_member (builder, "description", tool->description);
  if (prs_tool_is_mcp (tool))
    {
      prs_json_builder_add_string_member (builder, "mcpServer", tool->mcp_server);
      prs_json_builder_add_string_member (builder, "mcpTool", tool->mcp_tool);
      if (tool->mcp_name_note != NULL)
        prs_json_builder_add_string_member (builder, "nameNote", tool->mcp_name_note);
    }
  else
    {
      prs_json_builder_add_string_member (builder, "descriptionSource",
                                          prs_description_source_to_string (tool->description_source));
      prs_json_builder_add_string_member (builder, "workflowId", tool->workflow_id);
      prs_json_builder_add_string_member (builder, "workflowName", tool->workflow_name);

      json_builder_set_member_name (builder, "webhook");
      json_builder_begin_object (builder);
      prs_json_builder_add_string_member (builder, "path", tool->webhook_path);
      prs_json_builder_add_string_member (builder, "method", tool->webhook_method);
      prs_json_builder_add_string_member (builder, "responseMode", tool->response_mode);
      json_builder_end_object (builder);
    }

  json_builder_set_member_name (builder, "parameters");
  json_builder_begin_array (builder);
  for (guint i = 0; i < tool->params->len; i++)
    {
      const PrsParam *param = g_ptr_array_index (tool->params, i);

      json_builder_begin_object (builder);
      prs_json_builder_add_string_member (builder, "name", param->name);
      prs_json_builder_add_string_member (builder, "type", prs_param_type_to_string (param->type));
      json_builder_set_member_name (builder, "required");
      json_builder_add_boolean_value (builder, param->required);
      prs_json_builder_add_string_member (builder, "description", param->description);
      if (param->default_value != NULL)
        {
          json_builder_set_member_name (builder, "default");
          json_builder_add_value (builder, json_node_copy (param->default_value));
        }
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);

  json_builder_set_member_name (builder, "inputSchema");
  json_builder_add_value (builder, prs_tool_build_input_schema (tool));

  json_builder_end_object (builder);

  return json_builder_get_root (builder);
}

PrsTool *
prs_tool_new_from_json (JsonNode  *node,
                        GError   **error)
{
  g_autoptr(PrsTool) tool = NULL;
  g_autofree char *source = NULL;
  JsonObject *object;
  JsonObject *webhook;
  JsonArray *params;

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    goto invalid;

  object = json_node_get_object (node);
  tool = prs_tool_new ();
  g_clear_pointer (&tool->webhook_method, g_free);

  tool->name = g_strdup (prs_json_object_get_string (object, "name"));
  tool->description = g_strdup (prs_json_object_get_string (object, "description"));
  tool->workflow_id = g_strdup (prs_json_object_get_string (object, "workflowId"));
  tool->workflow_name = g_strdup (prs_json_object_get_string (object, "workflowName"));
  source = g_strdup (prs_json_object_get_string (object, "descriptionSource"));
  if (tool->name == NULL || tool->workflow_id == NULL ||
      !prs_description_source_from_string (source, &tool->description_source))
    goto invalid;

  if (!json_object_has_member (object, "webhook") ||
      !JSON_NODE_HOLDS_OBJECT (json_object_get_member (object, "webhook")))
    goto invalid;
  webhook = json_object_get_object_member (object, "webhook");
  tool->webhook_path = g_strdup (prs_json_object_get_string (webhook, "path"));
  tool->webhook_method = g_strdup (prs_json_object_get_string (webhook, "method"));
  tool->response_mode = g_strdup (prs_json_object_get_string (webhook, "responseMode"));
  if (tool->webhook_path == NULL)
    goto invalid;

  if (!json_object_has_member (object, "parameters") ||
      !JSON_NODE_HOLDS_ARRAY (json_object_get_member (object, "parameters")))
    goto invalid;
  params = json_object_get_array_member (object, "parameters");
  for (guint i = 0; i < json_array_get_length (params); i++)
    {
      JsonNode *element = json_array_get_element (params, i);
      JsonObject *p;
      g_autofree char *name = NULL;
      g_autofree char *type_name = NULL;
      PrsParamType type;
      PrsParam *param;

      if (!JSON_NODE_HOLDS_OBJECT (element))
        goto invalid;
      p = json_node_get_object (element);
      name = g_strdup (prs_json_object_get_string (p, "name"));
      type_name = g_strdup (prs_json_object_get_string (p, "type"));
      if (name == NULL || !prs_param_type_from_string (type_name, &type))
        goto invalid;

      param = prs_param_new (name, type,
                             json_object_get_boolean_member_with_default (p, "required", FALSE),
                             json_object_get_member (p, "default"));
      if (json_object_has_member (p, "description"))
        {
          g_autofree char *description = g_strdup (prs_json_object_get_string (p, "description"));

          if (description != NULL)
            {
              g_free (param->description);
              param->description = g_steal_pointer (&description);
            }
        }
      g_ptr_array_add (tool->params, param);
    }

  return g_steal_pointer (&tool);

invalid:
  g_set_error_literal (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                       _("The stored tool is not in the expected form."));
  return NULL;
}

char *
prs_tool_dup_webhook_url (const PrsTool *tool,
                          const char    *n8n_base_url)
{
  g_autofree char *base = NULL;
  g_autofree char *path = NULL;
  g_autofree char *escaped_path = NULL;
  char *start;
  gsize len;

  g_return_val_if_fail (tool != NULL, NULL);
  g_return_val_if_fail (n8n_base_url != NULL, NULL);

  base = g_strdup (n8n_base_url);
  len = strlen (base);
  while (len > 0 && base[len - 1] == '/')
    base[--len] = '\0';

  /* n8n drops the path's leading and trailing slashes, and decodes the
   * request path once before it looks the webhook up: the path is escaped
   * once (a space, "%" or "?" in it would otherwise break the URL). */
  path = g_strdup (tool->webhook_path != NULL ? tool->webhook_path : "");
  g_strstrip (path);
  start = path;
  while (*start == '/')
    start++;
  len = strlen (start);
  while (len > 0 && start[len - 1] == '/')
    start[--len] = '\0';
  escaped_path = g_uri_escape_string (start, "/", FALSE);

  if (tool->webhook_id != NULL && tool->webhook_id[0] != '\0')
    {
      /* An empty path is served on the webhookId; a path with :parameters
       * under it (n8n's getNodeWebhookPath). */
      if (*start == '\0')
        return g_strdup_printf ("%s/webhook/%s", base, tool->webhook_id);
      if (start[0] == ':' || strstr (start, "/:") != NULL)
        return g_strdup_printf ("%s/webhook/%s/%s", base, tool->webhook_id, escaped_path);
      return g_strdup_printf ("%s/webhook/%s", base, escaped_path);
    }
  else
    {
      /* n8n's own form for nodes without a webhookId: it stores
       * encodeURIComponent (lower-cased node name) and matches the request
       * path decoded once, so the name is encoded twice ("webhook%2520items",
       * checked against n8n 1.123 in tests/n8n/test-tool-calls.py). The
       * first pass must be exactly encodeURIComponent, which keeps !*'(). */
      g_autofree char *lower = g_utf8_strdown (tool->webhook_node_name ? tool->webhook_node_name : "", -1);
      g_autofree char *encoded = g_uri_escape_string (lower, "!*'()", FALSE);
      g_autofree char *encoded_twice = g_uri_escape_string (encoded, NULL, FALSE);

      return g_strdup_printf ("%s/webhook/%s/%s/%s", base, tool->workflow_id,
                              encoded_twice, escaped_path);
    }
}
