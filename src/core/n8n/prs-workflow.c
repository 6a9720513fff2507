/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-workflow.c: reading an n8n workflow out of untrusted JSON. */
#include "config.h"

#include <glib/gi18n-lib.h>

#include <string.h>

#include "prs-error.h"
#include "prs-json.h"
#include "prs-workflow.h"

static void
prs_workflow_node_clear (PrsWorkflowNode *node)
{
  g_free (node->webhook_id);
  g_clear_pointer (&node->parameters, json_object_unref);
  g_clear_pointer (&node->object, json_object_unref);
}

void
prs_workflow_free (PrsWorkflow *workflow)
{
  if (workflow == NULL)
    return;

  g_free (workflow->id);
  g_free (workflow->name);
  g_free (workflow->description);
  g_free (workflow->created_at);
  g_clear_pointer (&workflow->nodes, g_array_unref);
  g_free (workflow);
}

static char *
dup_trimmed_non_empty (const char *str)
{
  g_autofree char *copy = NULL;

  if (str == NULL)
    return NULL;

  copy = g_strstrip (g_strdup (str));
  if (copy[0] == '\0')
    return NULL;

  return g_steal_pointer (&copy);
}

/* n8n ids are strings; some exports carry numbers. */
static char *
dup_id (JsonObject *object)
{
  JsonNode *node = json_object_get_member (object, "id");

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return NULL;

  if (json_node_get_value_type (node) == G_TYPE_STRING)
    return dup_trimmed_non_empty (json_node_get_string (node));
  if (json_node_get_value_type (node) == G_TYPE_INT64)
    return g_strdup_printf ("%" G_GINT64_FORMAT, json_node_get_int (node));

  return NULL;
}

/* Told apart once, when the workflow is read: every rule asks by kind */
static PrsNodeKind
node_kind (const char *type)
{
  static const struct { const char *type; PrsNodeKind kind; } kinds[] = {
    { PRS_NODE_WEBHOOK, PRS_NODE_KIND_WEBHOOK },
    { PRS_NODE_CODE, PRS_NODE_KIND_CODE },
    { PRS_NODE_FUNCTION, PRS_NODE_KIND_FUNCTION },
    { PRS_NODE_STICKY_NOTE, PRS_NODE_KIND_STICKY_NOTE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (kinds); i++)
    if (strcmp (type, kinds[i].type) == 0)
      return kinds[i].kind;

  return PRS_NODE_KIND_OTHER;
}

PrsWorkflow *
prs_workflow_new_from_json (JsonNode  *node,
                            GError   **error)
{
  g_autoptr(PrsWorkflow) workflow = NULL;
  JsonObject *object;
  JsonNode *nodes_node;
  JsonNode *active_node;
  JsonArray *nodes;
  const char *name;

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error_literal (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                           _("This is not an n8n workflow: the JSON is not an object."));
      return NULL;
    }

  object = json_node_get_object (node);
  nodes_node = json_object_get_member (object, "nodes");
  if (nodes_node == NULL || !JSON_NODE_HOLDS_ARRAY (nodes_node))
    {
      g_set_error_literal (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                           _("This is not an n8n workflow: it has no “nodes” list."));
      return NULL;
    }

  workflow = g_new0 (PrsWorkflow, 1);
  nodes = json_node_get_array (nodes_node);
  /* One array of structs: a workflow's nodes cost one allocation */
  workflow->nodes = g_array_sized_new (FALSE, TRUE, sizeof (PrsWorkflowNode), json_array_get_length (nodes));
  g_array_set_clear_func (workflow->nodes, (GDestroyNotify) prs_workflow_node_clear);
  workflow->id = dup_id (object);
  name = prs_json_object_get_string (object, "name");
  workflow->name = g_strdup (name != NULL ? name : "");
  workflow->created_at = g_strdup (prs_json_object_get_string (object, "createdAt"));
  workflow->archived = prs_json_object_get_bool (object, "isArchived", FALSE);

  active_node = json_object_get_member (object, "active");
  if (active_node != NULL && JSON_NODE_HOLDS_VALUE (active_node) &&
      json_node_get_value_type (active_node) == G_TYPE_BOOLEAN)
    workflow->active = json_node_get_boolean (active_node) ? PRS_ACTIVE_YES : PRS_ACTIVE_NO;
  else
    workflow->active = PRS_ACTIVE_UNKNOWN;

  /* docs/workflows.md: the top-level description (n8n 1.123), else the places other
   * n8n versions keep it. */
  workflow->description = dup_trimmed_non_empty (prs_json_object_get_string (object, "description"));
  if (workflow->description == NULL)
    workflow->description = dup_trimmed_non_empty (
      prs_json_object_get_string (prs_json_object_get_object (object, "settings"), "description"));
  if (workflow->description == NULL)
    workflow->description = dup_trimmed_non_empty (
      prs_json_object_get_string (prs_json_object_get_object (object, "meta"), "description"));

  for (guint i = 0; i < json_array_get_length (nodes); i++)
    {
      JsonNode *element = json_array_get_element (nodes, i);
      JsonObject *parameters;
      PrsWorkflowNode wn = { 0, };
      const char *s;

      if (!JSON_NODE_HOLDS_OBJECT (element))
        continue;

      wn.object = json_object_ref (json_node_get_object (element));
      s = prs_json_object_get_string (wn.object, "name");
      wn.name = s != NULL ? s : "";
      s = prs_json_object_get_string (wn.object, "type");
      wn.type = s != NULL ? s : "";
      wn.kind = node_kind (wn.type);
      wn.disabled = prs_json_object_get_bool (wn.object, "disabled", FALSE);
      wn.webhook_id = dup_trimmed_non_empty (prs_json_object_get_string (wn.object, "webhookId"));
      parameters = prs_json_object_get_object (wn.object, "parameters");
      wn.parameters = parameters != NULL ? json_object_ref (parameters) : json_object_new ();
      g_array_append_val (workflow->nodes, wn);
    }

  return g_steal_pointer (&workflow);
}

static gboolean
webhook_accepts_post (JsonObject *parameters)
{
  JsonNode *method = json_object_get_member (parameters, "httpMethod");

  /* Absent means GET in n8n. */
  if (method == NULL)
    return FALSE;

  if (JSON_NODE_HOLDS_VALUE (method) && json_node_get_value_type (method) == G_TYPE_STRING)
    return g_strcmp0 (json_node_get_string (method), "POST") == 0;

  if (JSON_NODE_HOLDS_ARRAY (method) &&
      prs_json_object_get_bool (parameters, "multipleMethods", FALSE))
    {
      JsonArray *methods = json_node_get_array (method);

      for (guint i = 0; i < json_array_get_length (methods); i++)
        {
          JsonNode *m = json_array_get_element (methods, i);

          if (JSON_NODE_HOLDS_VALUE (m) && json_node_get_value_type (m) == G_TYPE_STRING &&
              g_strcmp0 (json_node_get_string (m), "POST") == 0)
            return TRUE;
        }
    }

  return FALSE;
}

const PrsWorkflowNode *
prs_workflow_find_entry_webhook (const PrsWorkflow *workflow)
{
  g_return_val_if_fail (workflow != NULL, NULL);

  for (guint i = 0; i < workflow->nodes->len; i++)
    {
      const PrsWorkflowNode *node = &g_array_index (workflow->nodes, PrsWorkflowNode, i);
      const char *path;

      if (node->disabled || node->kind != PRS_NODE_KIND_WEBHOOK)
        continue;

      path = prs_json_object_get_string (node->parameters, "path");
      if (path == NULL || path[strspn (path, " \t\r\n")] == '\0')
        continue;

      if (webhook_accepts_post (node->parameters))
        return node;
    }

  return NULL;
}
