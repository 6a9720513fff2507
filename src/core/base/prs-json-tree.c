/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-json-tree.c: the half of prs-json (prs-json.h) that works on trees:
 * type-checked reads of untrusted objects, whose json-glib getters convert
 * between types and warn, and the small builders and parsers of single
 * members and texts on top of prs-json.c's parser and writer. */
#include "config.h"

#include <string.h>

#include "prs-json.h"

const char *
prs_json_object_get_string (JsonObject *object,
                            const char *member)
{
  JsonNode *node;

  if (object == NULL)
    return NULL;

  node = json_object_get_member (object, member);
  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) ||
      json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;

  return json_node_get_string (node);
}

gboolean
prs_json_object_get_bool (JsonObject *object,
                          const char *member,
                          gboolean    default_value)
{
  JsonNode *node;

  if (object == NULL)
    return default_value;

  node = json_object_get_member (object, member);
  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) ||
      json_node_get_value_type (node) != G_TYPE_BOOLEAN)
    return default_value;

  return json_node_get_boolean (node);
}

JsonObject *
prs_json_object_get_object (JsonObject *object,
                            const char *member)
{
  JsonNode *node;

  if (object == NULL)
    return NULL;

  node = json_object_get_member (object, member);
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return NULL;

  return json_node_get_object (node);
}

JsonObject *
prs_json_node_get_object (JsonNode *node)
{
  return node != NULL && JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
}

JsonArray *
prs_json_object_get_array (JsonObject *object,
                           const char *member)
{
  JsonNode *node = object != NULL ? json_object_get_member (object, member) : NULL;

  return node != NULL && JSON_NODE_HOLDS_ARRAY (node) ? json_node_get_array (node) : NULL;
}

gint64
prs_json_object_get_int (JsonObject *object,
                         const char *member,
                         gint64      default_value)
{
  JsonNode *node = object != NULL ? json_object_get_member (object, member) : NULL;
  GType type;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return default_value;
  type = json_node_get_value_type (node);
  if (type == G_TYPE_INT64)
    return json_node_get_int (node);
  /* A count some peers write as 12.0 */
  if (type == G_TYPE_DOUBLE)
    {
      double value = json_node_get_double (node);

      if (value >= 0 && value < 9e15)
        return (gint64) value;
    }
  return default_value;
}

JsonObject *
prs_json_object_from_text (const char *text,
                           gsize       len)
{
  g_autoptr(JsonNode) node = NULL;

  if (text == NULL)
    return NULL;
  node = prs_json_parse_bounded (text, len, PRS_JSON_DEFAULT_MAX_DEPTH, NULL);
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return NULL;
  return json_object_ref (json_node_get_object (node));
}

JsonNode *
prs_json_value_from_text (const char *text)
{
  JsonNode *node;

  if (text == NULL)
    text = "";
  node = prs_json_parse_bounded (text, strlen (text), PRS_JSON_DEFAULT_MAX_DEPTH, NULL);
  if (node == NULL)
    {
      node = json_node_new (JSON_NODE_VALUE);
      json_node_set_string (node, text);
    }
  return node;
}

char *
prs_json_object_to_string (JsonObject *object,
                           gboolean    pretty)
{
  g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), object);

  return prs_json_to_string (node, pretty);
}

void
prs_json_builder_add_string_member (JsonBuilder *builder,
                                    const char  *member,
                                    const char  *value)
{
  json_builder_set_member_name (builder, member);
  if (value != NULL)
    json_builder_add_string_value (builder, value);
  else
    json_builder_add_null_value (builder);
}
