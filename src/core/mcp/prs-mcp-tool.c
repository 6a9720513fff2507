/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-mcp-tool.c: MCP tools and tools/call results (prs-mcp-tool.h). */
#include "config.h"

#include <string.h>
#include <glib/gi18n-lib.h>

#include "prs-error.h"
#include "prs-http-request.h"
#include "prs-json.h"
#include "prs-mcp-tool.h"

/* An isError text longer than this is cut in the error message. */
#define ERROR_TEXT_MAX 4096

static const char *
optional_string (JsonObject *object,
                 const char *member)
{
  JsonNode *node = json_object_get_member (object, member);

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (node);
}

static JsonNode *
optional_object (JsonObject *object,
                 const char *member)
{
  JsonNode *node = json_object_get_member (object, member);

  return node != NULL && JSON_NODE_HOLDS_OBJECT (node) ? json_node_copy (node) : NULL;
}

static gboolean
name_is_acceptable (const char *name)
{
  if (name == NULL || name[0] == '\0' || !g_utf8_validate (name, -1, NULL) ||
      g_utf8_strlen (name, -1) > PRS_MCP_TOOL_SERVER_NAME_MAX)
    return FALSE;
  /* No control character: C0, DEL and C1 (U+009B is a terminal's CSI) */
  for (const char *p = name; *p != '\0'; p = g_utf8_next_char (p))
    {
      if (g_unichar_iscntrl (g_utf8_get_char (p)))
        return FALSE;
    }
  return TRUE;
}

PrsMcpTool *
prs_mcp_tool_new_from_json (JsonObject  *object,
                            GError     **error)
{
  g_autoptr(PrsMcpTool) tool = g_new0 (PrsMcpTool, 1);
  const char *name = optional_string (object, "name");
  const char *title = optional_string (object, "title");

  if (!name_is_acceptable (name))
    {
      g_set_error_literal (error, PRS_ERROR, PRS_ERROR_MCP_PROTOCOL,
                           _("The server listed a tool without a usable name."));
      return NULL;
    }

  tool->name = g_strdup (name);
  if (title == NULL && json_object_has_member (object, "annotations"))
    {
      JsonNode *annotations = json_object_get_member (object, "annotations");

      if (JSON_NODE_HOLDS_OBJECT (annotations))
        title = optional_string (json_node_get_object (annotations), "title");
    }
  if (title != NULL)
    tool->title = prs_http_clean_text (title, 200);
  tool->description = prs_http_clean_lines (optional_string (object, "description"),
                                            PRS_MCP_TOOL_DESCRIPTION_MAX);
  if (tool->description == NULL)
    tool->description = g_strdup ("");

  /* The spec requires an object schema; a server that sends none still has
   * a usable tool, one without parameters. */
  tool->input_schema = optional_object (object, "inputSchema");
  if (tool->input_schema == NULL)
    tool->input_schema = json_from_string ("{\"type\":\"object\",\"properties\":{}}", NULL);
  tool->output_schema = optional_object (object, "outputSchema");
  tool->annotations = optional_object (object, "annotations");

  return g_steal_pointer (&tool);
}

PrsMcpTool *
prs_mcp_tool_copy (const PrsMcpTool *tool)
{
  PrsMcpTool *copy = g_new0 (PrsMcpTool, 1);

  copy->name = g_strdup (tool->name);
  copy->title = g_strdup (tool->title);
  copy->description = g_strdup (tool->description);
  copy->input_schema = json_node_copy (tool->input_schema);
  copy->output_schema = tool->output_schema != NULL ? json_node_copy (tool->output_schema) : NULL;
  copy->annotations = tool->annotations != NULL ? json_node_copy (tool->annotations) : NULL;
  copy->exposed_name = g_strdup (tool->exposed_name);
  copy->name_note = g_strdup (tool->name_note);
  return copy;
}

void
prs_mcp_tool_free (PrsMcpTool *tool)
{
  if (tool == NULL)
    return;
  g_free (tool->name);
  g_free (tool->title);
  g_free (tool->description);
  g_clear_pointer (&tool->input_schema, json_node_unref);
  g_clear_pointer (&tool->output_schema, json_node_unref);
  g_clear_pointer (&tool->annotations, json_node_unref);
  g_free (tool->exposed_name);
  g_free (tool->name_note);
  g_free (tool);
}

JsonNode *
prs_mcp_tool_to_json (const PrsMcpTool *tool)
{
  JsonObject *object = json_object_new ();
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);

  json_object_set_string_member (object, "name", tool->name);
  if (tool->exposed_name != NULL)
    json_object_set_string_member (object, "exposedName", tool->exposed_name);
  if (tool->title != NULL)
    json_object_set_string_member (object, "title", tool->title);
  json_object_set_string_member (object, "description", tool->description);
  json_object_set_member (object, "inputSchema", json_node_copy (tool->input_schema));
  if (tool->output_schema != NULL)
    json_object_set_member (object, "outputSchema", json_node_copy (tool->output_schema));
  if (tool->annotations != NULL)
    json_object_set_member (object, "annotations", json_node_copy (tool->annotations));
  if (tool->name_note != NULL)
    json_object_set_string_member (object, "nameNote", tool->name_note);
  json_node_take_object (node, object);
  return node;
}

/* ---- tools/call results ---- */

static void
copy_string_member (JsonObject *to,
                    JsonObject *from,
                    const char *member)
{
  const char *value = optional_string (from, member);

  if (value != NULL)
    json_object_set_string_member (to, member, value);
}

/* What the model learns of a non-text block: its kind and size, never
 * base64 it could not use and that would fill its context. */
static JsonObject *
describe_block (JsonObject *block,
                const char *type)
{
  JsonObject *out = json_object_new ();
  const char *data = optional_string (block, "data");
  JsonObject *resource = NULL;

  json_object_set_string_member (out, "type", type);
  copy_string_member (out, block, "mimeType");
  copy_string_member (out, block, "uri");
  copy_string_member (out, block, "name");
  if (data != NULL)
    json_object_set_int_member (out, "bytes", (gint64) (strlen (data) / 4 * 3));

  if (json_object_has_member (block, "resource") &&
      JSON_NODE_HOLDS_OBJECT (json_object_get_member (block, "resource")))
    resource = json_object_get_object_member (block, "resource");
  if (resource != NULL)
    {
      const char *blob = optional_string (resource, "blob");

      copy_string_member (out, resource, "uri");
      copy_string_member (out, resource, "mimeType");
      copy_string_member (out, resource, "text");
      if (blob != NULL)
        json_object_set_int_member (out, "bytes", (gint64) (strlen (blob) / 4 * 3));
    }
  return out;
}

/* TRUE when @text is the JSON serialization of @structured, as servers
 * are asked to send for older clients: saying it twice helps nobody. */
static gboolean
text_repeats (const char *text,
              JsonNode   *structured)
{
  g_autoptr(JsonNode) parsed = NULL;

  if (structured == NULL)
    return FALSE;
  /* The server's text: untrusted, so parsed with a depth limit */
  parsed = prs_json_parse_strict (text, strlen (text), 128, NULL);
  return parsed != NULL && json_node_equal (parsed, structured);
}

static char *
join_text (JsonArray   *content,
           JsonArray  **out_attachments)
{
  GString *text = g_string_new (NULL);
  guint n = content != NULL ? json_array_get_length (content) : 0;

  *out_attachments = json_array_new ();
  for (guint i = 0; i < n; i++)
    {
      JsonNode *element = json_array_get_element (content, i);
      JsonObject *block;
      const char *type;

      if (!JSON_NODE_HOLDS_OBJECT (element))
        continue;
      block = json_node_get_object (element);
      type = optional_string (block, "type");
      if (type == NULL)
        continue;
      if (g_str_equal (type, "text") && optional_string (block, "text") != NULL)
        {
          if (text->len > 0)
            g_string_append (text, "\n\n");
          g_string_append (text, optional_string (block, "text"));
        }
      else
        json_array_add_object_element (*out_attachments, describe_block (block, type));
    }
  return g_string_free (text, FALSE);
}

JsonNode *
prs_mcp_call_result_to_json (JsonObject  *result,
                             GError     **error)
{
  JsonNode *content = json_object_get_member (result, "content");
  g_autoptr(JsonNode) structured = optional_object (result, "structuredContent");
  g_autoptr(JsonArray) attachments = NULL;
  g_autofree char *text = NULL;
  JsonObject *out;
  JsonNode *node;

  text = join_text (content != NULL && JSON_NODE_HOLDS_ARRAY (content) ? json_node_get_array (content) : NULL,
                    &attachments);

  if (json_object_has_member (result, "isError") &&
      JSON_NODE_HOLDS_VALUE (json_object_get_member (result, "isError")) &&
      json_object_get_boolean_member (result, "isError"))
    {
      g_autofree char *said = prs_http_clean_lines (text, ERROR_TEXT_MAX);

      if (said == NULL && structured != NULL)
        said = prs_json_to_string (structured, FALSE);
      g_set_error_literal (error, PRS_ERROR, PRS_ERROR_MCP_TOOL_FAILED,
                           said != NULL && said[0] != '\0' ? said : _("The tool failed without saying why."));
      return NULL;
    }

  out = json_object_new ();
  if (!text_repeats (text, structured) && (text[0] != '\0' || structured == NULL))
    json_object_set_string_member (out, "text", text);
  if (structured != NULL)
    json_object_set_member (out, "structured", g_steal_pointer (&structured));
  if (json_array_get_length (attachments) > 0)
    json_object_set_array_member (out, "attachments", g_steal_pointer (&attachments));

  node = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (node, out);
  return node;
}
