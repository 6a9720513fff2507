/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-mcp-message.c: JSON-RPC 2.0 messages (prs-mcp-message.h). */
#include "config.h"

#include <string.h>

#include "prs-json.h"
#include "prs-mcp-client.h"
#include "prs-mcp-message.h"

static JsonObject *
envelope (void)
{
  JsonObject *object = json_object_new ();

  json_object_set_string_member (object, "jsonrpc", "2.0");
  return object;
}

JsonObject *
prs_mcp_message_new_result (JsonNode   *id,
                            JsonObject *result)
{
  JsonObject *object = envelope ();

  json_object_set_member (object, "id", id != NULL ? json_node_copy (id) : json_node_new (JSON_NODE_NULL));
  json_object_set_object_member (object, "result", result != NULL ? result : json_object_new ());
  return object;
}

JsonObject *
prs_mcp_message_new_error (JsonNode   *id,
                           int         code,
                           const char *message)
{
  JsonObject *object = envelope ();
  JsonObject *error = json_object_new ();

  json_object_set_member (object, "id", id != NULL ? json_node_copy (id) : json_node_new (JSON_NODE_NULL));
  json_object_set_int_member (error, "code", code);
  json_object_set_string_member (error, "message", message);
  json_object_set_object_member (object, "error", error);
  return object;
}

JsonObject *
prs_mcp_message_new_notification (const char *method,
                                  JsonObject *params)
{
  JsonObject *object = envelope ();

  json_object_set_string_member (object, "method", method);
  if (params != NULL)
    json_object_set_object_member (object, "params", params);
  return object;
}

GBytes *
prs_mcp_message_serialize (JsonObject *message)
{
  g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), message);

  return prs_mcp_message_serialize_node (node);
}

GBytes *
prs_mcp_message_serialize_node (JsonNode *node)
{
  char *text = prs_json_to_string (node, FALSE);

  return g_bytes_new_take (text, strlen (text));
}

const char *
prs_mcp_message_negotiate_version (const char *requested)
{
  if (requested != NULL && g_strv_contains (prs_mcp_supported_versions, requested))
    return requested;
  return PRS_MCP_PROTOCOL_VERSION;
}
