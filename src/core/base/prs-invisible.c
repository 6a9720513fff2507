/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-invisible.c: removing invisible characters (prs-invisible.h). */
#include "config.h"

#include <string.h>

#include "prs-invisible.h"

static gboolean
is_invisible (gunichar c)
{
  return (c >= 0xE0000 && c <= 0xE007F) ||
         (c >= 0x200B && c <= 0x200D) ||
         c == 0x2060 || c == 0xFEFF;
}

char *
prs_strip_invisible (const char *text)
{
  g_autofree char *valid = NULL;
  GString *out;

  if (text == NULL)
    return NULL;
  if (!g_utf8_validate (text, -1, NULL))
    text = valid = g_utf8_make_valid (text, -1);

  out = g_string_sized_new (strlen (text));
  for (const char *p = text; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (!is_invisible (c))
        g_string_append_unichar (out, c);
    }
  return g_string_free (out, FALSE);
}

JsonNode *
prs_strip_invisible_json (JsonNode *node)
{
  if (node == NULL)
    return NULL;

  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObject *object = json_node_get_object (node);
      g_autoptr(JsonObject) cleaned = json_object_new ();
      GList *members = json_object_get_members (object);

      for (GList *l = members; l != NULL; l = l->next)
        {
          g_autofree char *key = prs_strip_invisible (l->data);

          json_object_set_member (cleaned, key,
                                  prs_strip_invisible_json (json_object_get_member (object, l->data)));
        }
      g_list_free (members);
      return json_node_init_object (json_node_alloc (), cleaned);
    }
  if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *array = json_node_get_array (node);
      g_autoptr(JsonArray) cleaned = json_array_sized_new (json_array_get_length (array));

      for (guint i = 0; i < json_array_get_length (array); i++)
        json_array_add_element (cleaned, prs_strip_invisible_json (json_array_get_element (array, i)));
      return json_node_init_array (json_node_alloc (), cleaned);
    }
  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    {
      g_autofree char *clean = prs_strip_invisible (json_node_get_string (node));

      return json_node_init_string (json_node_alloc (), clean);
    }
  return json_node_copy (node);
}
