/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-mcp-catalog.c: MCP tools as PrsTools, kept in the store
 * (prs-mcp-catalog.h). */
#include "config.h"

#include <string.h>

#include "prs-invisible.h"
#include "prs-json.h"
#include "prs-mcp-catalog.h"

PrsTool *
prs_mcp_catalog_tool_new (const PrsMcpTool *tool,
                          const char       *server_name,
                          const char       *server_id)
{
  PrsTool *out;
  g_autoptr(JsonNode) schema = NULL;

  g_return_val_if_fail (tool != NULL && tool->exposed_name != NULL, NULL);
  g_return_val_if_fail (server_name != NULL, NULL);

  out = prs_tool_new ();
  g_clear_pointer (&out->webhook_method, g_free);
  out->name = g_strdup (tool->exposed_name);
  out->description = prs_strip_invisible (tool->description);
  out->mcp_server = g_strdup (server_name);
  out->mcp_server_id = g_strdup (server_id);
  out->mcp_tool = g_strdup (tool->name);
  out->mcp_name_note = g_strdup (tool->name_note);
  schema = prs_strip_invisible_json (tool->input_schema);
  prs_tool_set_input_schema (out, schema);
  return out;
}

gboolean
prs_mcp_catalog_save (PrsStore    *store,
                      const char  *server_id,
                      GPtrArray   *tools,
                      GError     **error)
{
  g_autoptr(JsonArray) array = json_array_new ();

  g_return_val_if_fail (PRS_IS_STORE (store), FALSE);
  g_return_val_if_fail (server_id != NULL && tools != NULL, FALSE);

  for (guint i = 0; i < tools->len; i++)
    {
      const PrsMcpTool *tool = g_ptr_array_index (tools, i);

      if (tool->exposed_name != NULL)
        json_array_add_element (array, prs_mcp_tool_to_json (tool));
    }
  return prs_store_save_mcp_tools (store, server_id, array, g_get_real_time () / G_USEC_PER_SEC, error);
}

/* One element of prs_store_list_mcp_tools () as a PrsTool, NULL when it is
 * not in the form this file wrote */
static PrsTool *
tool_from_entry (JsonObject *entry)
{
  JsonNode *node = json_object_get_member (entry, "tool");
  g_autoptr(PrsMcpTool) tool = NULL;
  JsonObject *object;

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return NULL;
  object = json_node_get_object (node);
  tool = prs_mcp_tool_new_from_json (object, NULL);
  if (tool == NULL || prs_json_object_get_string (object, "exposedName") == NULL)
    return NULL;
  tool->exposed_name = g_strdup (prs_json_object_get_string (object, "exposedName"));
  tool->name_note = g_strdup (prs_json_object_get_string (object, "nameNote"));
  return prs_mcp_catalog_tool_new (tool, json_object_get_string_member (entry, "serverName"),
                                   json_object_get_string_member (entry, "serverId"));
}

GPtrArray *
prs_mcp_catalog_list (PrsStore  *store,
                      gboolean   enabled_only,
                      GError   **error)
{
  g_autoptr(JsonArray) entries = NULL;
  GPtrArray *tools;

  g_return_val_if_fail (PRS_IS_STORE (store), NULL);

  entries = prs_store_list_mcp_tools (store, NULL, error);
  if (entries == NULL)
    return NULL;
  tools = g_ptr_array_new_with_free_func ((GDestroyNotify) prs_tool_free);
  for (guint i = 0; i < json_array_get_length (entries); i++)
    {
      JsonObject *entry = json_array_get_object_element (entries, i);
      PrsTool *tool;

      if (enabled_only && !json_object_get_boolean_member (entry, "enabled"))
        continue;
      tool = tool_from_entry (entry);
      if (tool != NULL)
        g_ptr_array_add (tools, tool);
    }
  return tools;
}

PrsTool *
prs_mcp_catalog_lookup (PrsStore   *store,
                        const char *exposed_name)
{
  g_autoptr(GPtrArray) tools = NULL;
  g_autoptr(GError) error = NULL;

  g_return_val_if_fail (PRS_IS_STORE (store), NULL);

  if (exposed_name == NULL || strstr (exposed_name, "__") == NULL)
    return NULL;
  tools = prs_mcp_catalog_list (store, TRUE, &error);
  if (tools == NULL)
    {
      g_message ("Could not read the MCP tools: %s", error->message);
      return NULL;
    }
  for (guint i = 0; i < tools->len; i++)
    {
      PrsTool *tool = g_ptr_array_index (tools, i);

      if (g_strcmp0 (tool->name, exposed_name) == 0)
        return g_ptr_array_steal_index (tools, i);
    }
  return NULL;
}
