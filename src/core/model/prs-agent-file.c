/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-agent-file.c: agents as Markdown with YAML front matter, read through
 * libyaml (the event API: each node keeps its line for error messages, and
 * aliases are refused rather than expanded). Writing is in
 * prs-agent-file-write.c. */
#include "config.h"

#include <string.h>
#include <yaml.h>
#include <glib/gi18n-lib.h>

#include "prs-agent-file.h"
#include "prs-agent-file-private.h"
#include "prs-error.h"
#include "prs-json.h"

/* Nesting of the front matter; deeper is refused (and never recursed). */
#define MAX_YAML_DEPTH 32

/* ---- Reading YAML into a small tree -------------------------------------- */

typedef enum
{
  YNODE_SCALAR,
  YNODE_SEQUENCE,
  YNODE_MAPPING,
} YNodeKind;

typedef struct
{
  YNodeKind  kind;
  guint      line;        /* in the file, 1-based */
  char      *value;       /* SCALAR */
  gboolean   plain;       /* SCALAR: unquoted and untagged, so typed by its text */
  GPtrArray *children;    /* SEQUENCE: items; MAPPING: key, value, key, value… */
} YNode;

static void
ynode_free (YNode *node)
{
  if (node == NULL)
    return;

  g_free (node->value);
  g_clear_pointer (&node->children, g_ptr_array_unref);
  g_free (node);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (YNode, ynode_free)

static YNode *
ynode_new (YNodeKind kind,
           guint     line)
{
  YNode *node = g_new0 (YNode, 1);

  node->kind = kind;
  node->line = line;
  if (kind != YNODE_SCALAR)
    node->children = g_ptr_array_new_with_free_func ((GDestroyNotify) ynode_free);
  return node;
}

static const char *
kind_noun (YNodeKind kind)
{
  switch (kind)
    {
    case YNODE_SEQUENCE:
      return _("a list");
    case YNODE_MAPPING:
      return _("a mapping");
    case YNODE_SCALAR:
    default:
      return _("a single value");
    }
}

/* The YAML parser's own error, at its line in the file. */
static void
set_syntax_error (const yaml_parser_t  *parser,
                  guint                 first_line,
                  GError              **error)
{
  guint error_line = first_line + (guint) parser->problem_mark.line;

  if (parser->context != NULL)
    g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                 _("Line %u: the front matter is not valid YAML: %s %s."),
                 error_line, parser->problem, parser->context);
  else
    g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                 _("Line %u: the front matter is not valid YAML: %s."),
                 error_line, parser->problem != NULL ? parser->problem : _("syntax error"));
}

static YNode *
scalar_node_new (const yaml_event_t  *event,
                 guint                line,
                 GError             **error)
{
  YNode *node = ynode_new (YNODE_SCALAR, line);

  node->value = g_strndup ((const char *) event->data.scalar.value, event->data.scalar.length);
  node->plain = event->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
                event->data.scalar.tag == NULL;
  if (strlen (node->value) != event->data.scalar.length)
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                   _("Line %u: the front matter contains a NUL character."), line);
      ynode_free (node);
      return NULL;
    }

  return node;
}

/* What one event means for the tree being read: a new node (*@out_node),
 * the end of the innermost container (popped from @stack), the end of the
 * stream (*@out_done). FALSE with @error for what agent files refuse. */
static gboolean
read_event (const yaml_event_t  *event,
            guint                line,
            GPtrArray           *stack,
            guint               *documents,
            YNode              **out_node,
            gboolean            *out_done,
            GError             **error)
{
  *out_node = NULL;

  switch (event->type)
    {
    case YAML_STREAM_END_EVENT:
      *out_done = TRUE;
      return TRUE;

    case YAML_DOCUMENT_START_EVENT:
      if (++*documents > 1)
        {
          g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                       _("Line %u: the front matter holds more than one YAML document."), line);
          return FALSE;
        }
      return TRUE;

    case YAML_ALIAS_EVENT:
      g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                   _("Line %u: YAML aliases (*%s) are not supported in agent files."),
                   line, (const char *) event->data.alias.anchor);
      return FALSE;

    case YAML_SCALAR_EVENT:
      *out_node = scalar_node_new (event, line, error);
      return *out_node != NULL;

    case YAML_SEQUENCE_START_EVENT:
    case YAML_MAPPING_START_EVENT:
      if (stack->len >= MAX_YAML_DEPTH)
        {
          g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                       _("Line %u: the front matter is nested more than %u levels deep."),
                       line, MAX_YAML_DEPTH);
          return FALSE;
        }
      *out_node = ynode_new (event->type == YAML_SEQUENCE_START_EVENT ? YNODE_SEQUENCE : YNODE_MAPPING,
                             line);
      return TRUE;

    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT:
      g_ptr_array_remove_index (stack, stack->len - 1);
      return TRUE;

    case YAML_NO_EVENT:
    case YAML_STREAM_START_EVENT:
    case YAML_DOCUMENT_END_EVENT:
    default:
      return TRUE;
    }
}

/* @node (taken) into the innermost open container, or as the root. */
static void
attach_node (GPtrArray  *stack,
             YNode     **root,
             YNode      *node)
{
  if (stack->len > 0)
    g_ptr_array_add (((YNode *) g_ptr_array_index (stack, stack->len - 1))->children, node);
  else if (*root == NULL)
    *root = node;
  else
    {
      ynode_free (node);  /* cannot happen: one document, one root */
      return;
    }

  if (node->kind != YNODE_SCALAR)
    g_ptr_array_add (stack, node);
}

/* @first_line: the file line of the YAML text's first line. */
static YNode *
parse_yaml (const char  *yaml,
            gsize        len,
            guint        first_line,
            GError     **error)
{
  yaml_parser_t parser;
  g_autoptr(GPtrArray) stack = g_ptr_array_new ();
  YNode *root = NULL;
  gboolean done = FALSE;
  guint documents = 0;

  if (!yaml_parser_initialize (&parser))
    {
      g_set_error_literal (error, PRS_ERROR, PRS_ERROR_FAILED, _("Could not start the YAML parser."));
      return NULL;
    }
  yaml_parser_set_input_string (&parser, (const unsigned char *) yaml, len);

  while (!done)
    {
      yaml_event_t event;
      YNode *node;
      gboolean ok;

      if (!yaml_parser_parse (&parser, &event))
        {
          set_syntax_error (&parser, first_line, error);
          goto fail;
        }

      ok = read_event (&event, first_line + (guint) event.start_mark.line, stack, &documents,
                       &node, &done, error);
      yaml_event_delete (&event);
      if (!ok)
        goto fail;
      if (node != NULL)
        attach_node (stack, &root, node);
    }

  yaml_parser_delete (&parser);
  return root;

fail:
  yaml_parser_delete (&parser);
  ynode_free (root);
  return NULL;
}

/* ---- YAML values as JSON ------------------------------------------------- */

static gboolean
matches (const char *pattern,
         const char *text)
{
  return g_regex_match_simple (pattern, text, G_REGEX_DOLLAR_ENDONLY, 0);
}

/* The JSON value of a plain scalar (YAML 1.2 core schema, minus the forms
 * JSON cannot hold: .inf, .nan, hex and octal stay strings). */
JsonNode *
prs_agent_file_resolve_plain (const char *text)
{
  JsonNode *node;

  if (text[0] == '\0' || g_str_equal (text, "~") || g_str_equal (text, "null") ||
      g_str_equal (text, "Null") || g_str_equal (text, "NULL"))
    return json_node_new (JSON_NODE_NULL);

  node = json_node_new (JSON_NODE_VALUE);
  if (g_str_equal (text, "true") || g_str_equal (text, "True") || g_str_equal (text, "TRUE"))
    json_node_set_boolean (node, TRUE);
  else if (g_str_equal (text, "false") || g_str_equal (text, "False") || g_str_equal (text, "FALSE"))
    json_node_set_boolean (node, FALSE);
  else if (matches ("^[-+]?[0-9]+$", text))
    {
      gint64 value;

      if (g_ascii_string_to_signed (text[0] == '+' ? text + 1 : text, 10, G_MININT64, G_MAXINT64,
                                    &value, NULL))
        json_node_set_int (node, value);
      else
        json_node_set_double (node, g_ascii_strtod (text, NULL));
    }
  else if (matches ("^[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?$", text))
    json_node_set_double (node, g_ascii_strtod (text, NULL));
  else
    json_node_set_string (node, text);

  return node;
}

static gboolean
ynode_to_json (YNode      *ynode,
               JsonNode  **out,
               GError    **error)
{
  switch (ynode->kind)
    {
    case YNODE_SCALAR:
      if (ynode->plain)
        *out = prs_agent_file_resolve_plain (ynode->value);
      else
        {
          *out = json_node_new (JSON_NODE_VALUE);
          json_node_set_string (*out, ynode->value);
        }
      return TRUE;

    case YNODE_SEQUENCE:
      {
        g_autoptr(JsonArray) array = json_array_new ();

        for (guint i = 0; i < ynode->children->len; i++)
          {
            JsonNode *element = NULL;

            if (!ynode_to_json (g_ptr_array_index (ynode->children, i), &element, error))
              return FALSE;
            json_array_add_element (array, element);
          }
        *out = json_node_new (JSON_NODE_ARRAY);
        json_node_set_array (*out, array);
        return TRUE;
      }

    case YNODE_MAPPING:
    default:
      {
        g_autoptr(JsonObject) object = json_object_new ();

        for (guint i = 0; i + 1 < ynode->children->len; i += 2)
          {
            YNode *key = g_ptr_array_index (ynode->children, i);
            JsonNode *value = NULL;

            if (key->kind != YNODE_SCALAR)
              {
                g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                             _("Line %u: a key must be a single value, not %s."),
                             key->line, kind_noun (key->kind));
                return FALSE;
              }
            if (json_object_has_member (object, key->value))
              {
                g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                             _("Line %u: the key “%s” appears twice."), key->line, key->value);
                return FALSE;
              }
            if (!ynode_to_json (g_ptr_array_index (ynode->children, i + 1), &value, error))
              return FALSE;
            json_object_set_member (object, key->value, value);
          }
        *out = json_node_new (JSON_NODE_OBJECT);
        json_node_set_object (*out, object);
        return TRUE;
      }
    }
}

static gboolean
is_null (YNode *node)
{
  g_autoptr(JsonNode) value = NULL;

  if (node->kind != YNODE_SCALAR || !node->plain)
    return FALSE;
  value = prs_agent_file_resolve_plain (node->value);
  return JSON_NODE_HOLDS_NULL (value);
}

/* The text of a scalar whatever it resolves to ("" for null), or an error
 * naming @key. */
static gboolean
scalar_text (YNode       *value,
             const char  *key,
             char       **out,
             GError     **error)
{
  if (value->kind != YNODE_SCALAR)
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                   _("Line %u: “%s” must be text, not %s."), value->line, key, kind_noun (value->kind));
      return FALSE;
    }

  *out = g_strdup (is_null (value) ? "" : value->value);
  return TRUE;
}

/* ---- Front matter -------------------------------------------------------- */

static gboolean
read_allowed_tools (PrsAgent  *agent,
                    YNode     *value,
                    GError   **error)
{
  g_autoptr(GPtrArray) names = NULL;
  g_autoptr(GHashTable) seen = NULL;

  if (is_null (value))
    return TRUE;

  if (value->kind == YNODE_SCALAR && g_str_equal (value->value, "all"))
    return TRUE;

  if (value->kind != YNODE_SEQUENCE)
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                   _("Line %u: “allowedTools” must be a list of tool names, or “all”."), value->line);
      return FALSE;
    }

  if (value->children->len > PRS_AGENT_FILE_MAX_TOOLS)
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                   _("Line %u: “allowedTools” lists %u tools; an agent may list at most %u."),
                   value->line, value->children->len, PRS_AGENT_FILE_MAX_TOOLS);
      return FALSE;
    }

  names = g_ptr_array_new_with_free_func (g_free);
  seen = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; i < value->children->len; i++)
    {
      YNode *item = g_ptr_array_index (value->children, i);

      if (item->kind != YNODE_SCALAR || is_null (item) || item->value[0] == '\0')
        {
          g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                       _("Line %u: every entry of “allowedTools” must be a tool name."), item->line);
          return FALSE;
        }
      /* A repeated name counts once */
      if (g_hash_table_add (seen, item->value))
        g_ptr_array_add (names, g_strdup (item->value));
    }

  g_ptr_array_add (names, NULL);
  agent->allowed_tools = (GStrv) g_ptr_array_steal (names, NULL);
  return TRUE;
}

/* The parameters of one tool's guidance (@params, a mapping) into @tool */
static gboolean
read_tool_guidance (PrsToolGuidance  *tool,
                    YNode            *tool_key,
                    YNode            *params,
                    GError          **error)
{
  for (guint j = 0; j + 1 < params->children->len; j += 2)
    {
      YNode *param_key = g_ptr_array_index (params->children, j);
      YNode *entry = g_ptr_array_index (params->children, j + 1);
      g_autoptr(JsonNode) entry_json = NULL;
      g_autoptr(JsonObject) wrap_params = json_object_new ();
      g_autoptr(JsonObject) wrap_tools = json_object_new ();
      g_autoptr(JsonNode) wrap = json_node_new (JSON_NODE_OBJECT);
      g_autoptr(GPtrArray) parsed = NULL;
      g_autoptr(GError) local_error = NULL;
      PrsToolGuidance *parsed_tool;

      if (param_key->kind != YNODE_SCALAR || param_key->value[0] == '\0')
        {
          g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                       _("Line %u: a parameter name must be a single value."), param_key->line);
          return FALSE;
        }
      if (prs_tool_guidance_find_param (tool, param_key->value) != NULL)
        {
          g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                       _("Line %u: the key “%s” appears twice."), param_key->line, param_key->value);
          return FALSE;
        }
      if (entry->kind != YNODE_MAPPING)
        {
          g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                       _("Line %u: the guidance for “%s” of “%s” must be a mapping with a “source”."),
                       entry->line, param_key->value, tool_key->value);
          return FALSE;
        }
      if (!ynode_to_json (entry, &entry_json, error))
        return FALSE;

      json_object_set_member (wrap_params, param_key->value, g_steal_pointer (&entry_json));
      json_object_set_object_member (wrap_tools, tool_key->value, json_object_ref (wrap_params));
      json_node_set_object (wrap, wrap_tools);
      parsed = prs_guidance_new_from_json (wrap, &local_error);
      if (parsed == NULL)
        {
          g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                       _("Line %u: %s."), entry->line, local_error->message);
          return FALSE;
        }
      parsed_tool = g_ptr_array_index (parsed, 0);
      prs_tool_guidance_set_param (tool, g_ptr_array_steal_index (parsed_tool->params, 0));
    }

  return TRUE;
}

static gboolean
read_guidance (PrsAgent  *agent,
               YNode     *value,
               GError   **error)
{
  g_autoptr(GHashTable) seen_tools = NULL;

  if (is_null (value))
    return TRUE;

  if (value->kind != YNODE_MAPPING)
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                   _("Line %u: “toolParameterGuidance” must map tool names to their parameters."),
                   value->line);
      return FALSE;
    }

  if (value->children->len / 2 > PRS_AGENT_FILE_MAX_TOOLS)
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                   _("Line %u: “toolParameterGuidance” names %u tools; an agent may have guidance for at most %u."),
                   value->line, value->children->len / 2, PRS_AGENT_FILE_MAX_TOOLS);
      return FALSE;
    }

  /* Names seen, so that a repeated key is found without a scan each */
  seen_tools = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; i + 1 < value->children->len; i += 2)
    {
      YNode *tool_key = g_ptr_array_index (value->children, i);
      YNode *params = g_ptr_array_index (value->children, i + 1);
      PrsToolGuidance *tool;

      if (tool_key->kind != YNODE_SCALAR || tool_key->value[0] == '\0')
        {
          g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                       _("Line %u: a tool name must be a single value."), tool_key->line);
          return FALSE;
        }
      if (!g_hash_table_add (seen_tools, tool_key->value))
        {
          g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                       _("Line %u: the key “%s” appears twice."), tool_key->line, tool_key->value);
          return FALSE;
        }
      if (is_null (params))
        continue;
      if (params->kind != YNODE_MAPPING)
        {
          g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                       _("Line %u: the guidance for the tool “%s” must map parameter names to their sources."),
                       params->line, tool_key->value);
          return FALSE;
        }

      if (params->children->len / 2 > PRS_TOOL_MAX_PARAMS)
        {
          g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                       _("Line %u: the guidance for the tool “%s” names %u parameters; a tool takes at most %u."),
                       params->line, tool_key->value, params->children->len / 2, PRS_TOOL_MAX_PARAMS);
          return FALSE;
        }

      /* New, as the hash says: appended without prs_guidance_ensure_tool's scan */
      tool = prs_tool_guidance_new (tool_key->value);
      g_ptr_array_add (agent->guidance, tool);
      if (!read_tool_guidance (tool, tool_key, params, error))
        return FALSE;
    }

  return TRUE;
}

static gboolean
read_id (PrsAgent  *agent,
         YNode     *value,
         GError   **error)
{
  g_autofree char *id = NULL;

  if (!scalar_text (value, "id", &id, error))
    return FALSE;
  if (!prs_agent_id_is_valid (id))
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                   _("Line %u: “%s” is not a valid agent id: use 1 to 64 lowercase letters, "
                     "digits and hyphens, starting with a letter or digit."),
                   value->line, id);
      return FALSE;
    }

  g_free (agent->id);
  agent->id = g_steal_pointer (&id);
  return TRUE;
}

static gboolean
read_name (PrsAgent  *agent,
           YNode     *value,
           GError   **error)
{
  g_autofree char *name = NULL;

  if (!scalar_text (value, "name", &name, error))
    return FALSE;
  g_strstrip (name);
  if (name[0] == '\0')
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                   _("Line %u: “name” is empty."), value->line);
      return FALSE;
    }

  g_free (agent->name);
  agent->name = g_steal_pointer (&name);
  return TRUE;
}

/* One key of the front matter into @agent; the keys this version does not
 * know are kept as JSON, so that writing the agent back keeps them. */
static gboolean
read_member (PrsAgent    *agent,
             const char  *key,
             YNode       *value,
             gboolean    *out_has_guidance,
             GError     **error)
{
  if (g_str_equal (key, "id"))
    return read_id (agent, value, error);

  if (g_str_equal (key, "name"))
    return read_name (agent, value, error);

  if (g_str_equal (key, "description"))
    {
      g_free (agent->description);
      agent->description = NULL;
      return scalar_text (value, key, &agent->description, error);
    }

  if (g_str_equal (key, "allowedTools"))
    return read_allowed_tools (agent, value, error);

  if (g_str_equal (key, "toolParameterGuidance"))
    {
      if (!read_guidance (agent, value, error))
        return FALSE;
      *out_has_guidance = TRUE;
      return TRUE;
    }

  {
    JsonNode *json = NULL;

    if (!ynode_to_json (value, &json, error))
      return FALSE;
    json_object_set_member (agent->extra, key, json);
    return TRUE;
  }
}

/* TRUE when @key reads as a misspelt "allowedTools" (allowed_tools,
 * allowed-tools, AllowedTools, tools, alowedTools…): kept as an unknown
 * key, it would leave the agent allowed every tool (docs/agents.md). */
static gboolean
is_allowed_tools_near_miss (const char *key)
{
  static const char * const words[] = { "allowedtools", "allowedtool", "allowtools", "allowtool",
                                        "toolsallowed", "tools", "tool", NULL };
  static const char target[] = "allowedtools";
  g_autoptr(GString) folded = g_string_new (NULL);
  guint row[sizeof target];
  gsize n;

  /* Case, "_", "-", spaces and dots folded away */
  for (const char *p = key; *p != '\0' && folded->len <= 2 * sizeof target; p++)
    if (g_ascii_isalnum (*p))
      g_string_append_c (folded, g_ascii_tolower (*p));
  if (g_strv_contains (words, folded->str))
    return TRUE;

  /* Else at most two letters off "allowedtools" (Levenshtein, one row) */
  n = folded->len;
  if (n + 2 < sizeof target - 1 || n > sizeof target + 1)
    return FALSE;
  for (guint j = 0; j < sizeof target; j++)
    row[j] = j;
  for (gsize i = 1; i <= n; i++)
    {
      guint diagonal = row[0];

      row[0] = i;
      for (guint j = 1; j < sizeof target; j++)
        {
          guint above = row[j];

          row[j] = MIN (MIN (row[j] + 1, row[j - 1] + 1),
                        diagonal + (folded->str[i - 1] == target[j - 1] ? 0 : 1));
          diagonal = above;
        }
    }
  return row[sizeof target - 1] <= 2;
}

static gboolean
read_front_matter (PrsAgent  *agent,
                   YNode     *root,
                   guint      first_line,
                   gboolean  *out_has_guidance,
                   GError   **error)
{
  g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  YNode *near_miss = NULL;

  *out_has_guidance = FALSE;

  if (root == NULL || is_null (root))
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                   _("Line %u: the front matter is empty; it needs at least an “id”."), first_line);
      return FALSE;
    }
  if (root->kind != YNODE_MAPPING)
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                   _("Line %u: the front matter must be a mapping of keys (id, name, …), not %s."),
                   root->line, kind_noun (root->kind));
      return FALSE;
    }

  for (guint i = 0; i + 1 < root->children->len; i += 2)
    {
      YNode *key_node = g_ptr_array_index (root->children, i);
      YNode *value = g_ptr_array_index (root->children, i + 1);
      const char *key;

      if (key_node->kind != YNODE_SCALAR)
        {
          g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                       _("Line %u: a key must be a single value, not %s."),
                       key_node->line, kind_noun (key_node->kind));
          return FALSE;
        }
      key = key_node->value;
      if (g_hash_table_contains (seen, key))
        {
          g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                       _("Line %u: the key “%s” appears twice."), key_node->line, key);
          return FALSE;
        }
      g_hash_table_add (seen, (gpointer) key);
      if (near_miss == NULL && !g_str_equal (key, "allowedTools") && is_allowed_tools_near_miss (key))
        near_miss = key_node;

      if (!read_member (agent, key, value, out_has_guidance, error))
        return FALSE;
    }

  if (near_miss != NULL && !g_hash_table_contains (seen, "allowedTools"))
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                   /* Translators: %s is a key such as allowed_tools; keep “allowedTools” as it is */
                   _("Line %u: “%s” is not a key Prosponsive reads; the tools an agent may use are "
                     "listed under “allowedTools”. Without it the agent may use every tool."),
                   near_miss->line, near_miss->value);
      return FALSE;
    }

  if (!g_hash_table_contains (seen, "id"))
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                   _("Line %u: the front matter has no “id”."), root->line);
      return FALSE;
    }
  if (!g_hash_table_contains (seen, "name"))
    {
      g_free (agent->name);
      agent->name = g_strdup (agent->id);
    }

  return TRUE;
}

/* ---- The generated guidance section -------------------------------------- */

#define CONTEXT_PREFIX     "Use the \""
#define CONTEXT_MIDDLE     "\" value from the Request Context. If missing, "
#define IF_MISSING_ASK     "ask the user."
#define IF_MISSING_OMIT    "leave it out."
#define IF_MISSING_DEFAULT "use the default ("
#define ASK_LINE           "Ask the user for this value before calling the tool."

/* One "- **P**: …" line back into guidance, or NULL when it is not one. */
static PrsParamGuidance *
parse_guidance_line (const char *line)
{
  const char *rest;
  const char *name_end;
  g_autofree char *param = NULL;

  if (!g_str_has_prefix (line, "- **"))
    return NULL;
  name_end = strstr (line + 4, "**: ");
  if (name_end == NULL || name_end == line + 4)
    return NULL;
  param = g_strndup (line + 4, name_end - (line + 4));
  rest = name_end + 4;

  if (g_str_equal (rest, ASK_LINE))
    return prs_param_guidance_new_ask (param);

  if (g_str_has_prefix (rest, "Always use ") && g_str_has_suffix (rest, "."))
    {
      gsize len = strlen (rest) - strlen ("Always use ") - 1;
      g_autofree char *text = g_strndup (rest + strlen ("Always use "), len);
      g_autoptr(JsonNode) value = prs_json_parse_bounded (text, len, PRS_JSON_DEFAULT_MAX_DEPTH, NULL);

      if (value == NULL)
        return NULL;
      return prs_param_guidance_new_constant (param, value);
    }

  if (g_str_has_prefix (rest, CONTEXT_PREFIX))
    {
      const char *field = rest + strlen (CONTEXT_PREFIX);
      const char *middle = strstr (field, CONTEXT_MIDDLE);
      const char *tail;
      g_autofree char *field_text = NULL;

      if (middle == NULL || middle == field)
        return NULL;
      field_text = g_strndup (field, middle - field);
      tail = middle + strlen (CONTEXT_MIDDLE);

      if (g_str_equal (tail, IF_MISSING_ASK))
        return prs_param_guidance_new_context (param, field_text, PRS_GUIDANCE_IF_MISSING_ASK);
      if (g_str_equal (tail, IF_MISSING_OMIT) ||
          (g_str_has_prefix (tail, IF_MISSING_DEFAULT) && g_str_has_suffix (tail, ").")))
        return prs_param_guidance_new_context (param, field_text, PRS_GUIDANCE_IF_MISSING_DEFAULT);
    }

  return NULL;
}

static gboolean
is_heading (const char *line)
{
  return g_str_has_prefix (line, "# ") || g_str_has_prefix (line, "## ");
}

/* Lines [start, *out_end) form a generated guidance section: read it into
 * a new guidance, or NULL when any line is not one it would have. */
static GPtrArray *
parse_guidance_section (char  **lines,
                        guint   start,
                        guint   n,
                        guint  *out_end)
{
  g_autoptr(GPtrArray) guidance = prs_guidance_new ();
  g_autoptr(GHashTable) tools = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  PrsToolGuidance *tool = NULL;
  enum { AFTER_WHEN, AFTER_PURPOSE, IN_LINES, NONE } state = NONE;
  guint i;

  for (i = start + 1; i < n && !is_heading (lines[i]); i++)
    {
      const char *line = lines[i];

      if (line[0] == '\0')
        {
          if (state == AFTER_WHEN || state == AFTER_PURPOSE)
            return NULL;
          continue;
        }

      if (g_str_has_prefix (line, "When using the **") && g_str_has_suffix (line, "** tool:"))
        {
          gsize len = strlen (line) - strlen ("When using the **") - strlen ("** tool:");
          g_autofree char *name = NULL;

          if (state == AFTER_WHEN || state == AFTER_PURPOSE || (gssize) len <= 0)
            return NULL;
          name = g_strndup (line + strlen ("When using the **"), len);
          tool = g_hash_table_lookup (tools, name);
          if (tool == NULL)
            {
              /* More tools than a file may name: not generated text */
              if (guidance->len >= PRS_AGENT_FILE_MAX_TOOLS)
                return NULL;
              tool = prs_tool_guidance_new (name);
              g_ptr_array_add (guidance, tool);
              g_hash_table_insert (tools, g_steal_pointer (&name), tool);
            }
          state = AFTER_WHEN;
        }
      else if (g_str_has_prefix (line, "Purpose: ") && state == AFTER_WHEN)
        state = AFTER_PURPOSE;
      else if (g_str_equal (line, "Parameter sources:") &&
               (state == AFTER_WHEN || state == AFTER_PURPOSE))
        state = IN_LINES;
      else if (state == IN_LINES)
        {
          PrsParamGuidance *param;

          /* prs_tool_guidance_set_param scans the tool's parameters: kept
           * linear by the limit */
          if (tool->params->len >= PRS_TOOL_MAX_PARAMS)
            return NULL;
          param = parse_guidance_line (line);
          if (param == NULL)
            return NULL;
          prs_tool_guidance_set_param (tool, param);
        }
      else
        return NULL;
    }

  if (state == AFTER_WHEN || state == AFTER_PURPOSE)
    return NULL;

  *out_end = i;
  return g_steal_pointer (&guidance);
}

/* The system prompt: @body without its generated guidance section, blank
 * lines at the start and white space at the end dropped. The section's
 * guidance goes to @out_guidance (may be NULL). */
static char *
split_body (const char  *body,
            GPtrArray  **out_guidance)
{
  g_auto(GStrv) lines = g_strsplit (body, "\n", -1);
  guint n = g_strv_length (lines);
  g_autoptr(GString) prompt = g_string_new (NULL);
  guint skip_start = n;
  guint skip_end = n;
  const char *p;

  for (guint i = n; i-- > 0;)
    {
      g_autofree char *trimmed = g_strchomp (g_strdup (lines[i]));
      guint end = 0;
      GPtrArray *guidance;

      if (!g_str_equal (trimmed, PRS_GUIDANCE_HEADING))
        continue;
      guidance = parse_guidance_section (lines, i, n, &end);
      if (guidance == NULL)
        continue;

      skip_start = i;
      skip_end = end;
      if (out_guidance != NULL)
        *out_guidance = guidance;
      else
        g_ptr_array_unref (guidance);
      break;
    }

  for (guint i = 0; i < n; i++)
    {
      if (i >= skip_start && i < skip_end)
        continue;
      g_string_append (prompt, lines[i]);
      g_string_append_c (prompt, '\n');
    }

  g_strchomp (prompt->str);
  for (p = prompt->str; *p == '\n' || *p == ' ' || *p == '\t'; p++)
    {
      /* Only whole blank lines go: the first line may start indented. */
    }
  while (p > prompt->str && p[-1] != '\n')
    p--;
  return g_strdup (p);
}

static void
set_too_large (guint64   size,
               GError  **error)
{
  g_autofree char *formatted = g_format_size_full (size, G_FORMAT_SIZE_IEC_UNITS);
  g_autofree char *limit = g_format_size_full (PRS_AGENT_FILE_MAX_BYTES, G_FORMAT_SIZE_IEC_UNITS);

  /* Translators: the first %s is the file's size, the second the limit, both such as "1.0 MiB" */
  g_set_error (error, PRS_ERROR, PRS_ERROR_TOO_LARGE,
               _("The file is %s; an agent file may be at most %s."), formatted, limit);
}

PrsAgent *
prs_agent_file_load (GFile   *file,
                     GError **error)
{
  g_autoptr(GFileInputStream) in = NULL;
  g_autoptr(GFileInfo) info = NULL;
  g_autofree char *contents = NULL;
  gsize length = 0;

  g_return_val_if_fail (G_IS_FILE (file), NULL);

  in = g_file_read (file, NULL, error);
  if (in == NULL)
    return NULL;
  info = g_file_input_stream_query_info (in, G_FILE_ATTRIBUTE_STANDARD_SIZE, NULL, NULL);
  if (info != NULL && g_file_info_get_size (info) > (goffset) PRS_AGENT_FILE_MAX_BYTES)
    {
      set_too_large (g_file_info_get_size (info), error);
      return NULL;
    }

  /* One byte more than allowed tells a file that grew (or a pipe) apart */
  contents = g_malloc (PRS_AGENT_FILE_MAX_BYTES + 1);
  if (!g_input_stream_read_all (G_INPUT_STREAM (in), contents, PRS_AGENT_FILE_MAX_BYTES + 1,
                                &length, NULL, error))
    return NULL;
  if (length > PRS_AGENT_FILE_MAX_BYTES)
    {
      set_too_large (length, error);
      return NULL;
    }
  return prs_agent_file_parse (contents, length, error);
}

PrsAgent *
prs_agent_file_parse (const char  *text,
                      gssize       length,
                      GError     **error)
{
  g_autoptr(PrsAgent) agent = prs_agent_new (NULL, NULL);
  g_autoptr(GString) normal = NULL;
  g_autoptr(YNode) root = NULL;
  g_autoptr(GPtrArray) body_guidance = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(GString) yaml = g_string_new (NULL);
  g_autoptr(GString) body = g_string_new (NULL);
  g_autoptr(GError) local_error = NULL;
  gboolean has_guidance = FALSE;
  guint n;
  guint close = 0;

  g_return_val_if_fail (text != NULL, NULL);

  if (length < 0)
    length = strlen (text);
  if ((gsize) length > PRS_AGENT_FILE_MAX_BYTES)
    {
      set_too_large (length, error);
      return NULL;
    }
  if (!g_utf8_validate (text, length, NULL))
    {
      g_set_error_literal (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                           _("The agent file is not UTF-8 text."));
      return NULL;
    }

  normal = g_string_new_len (text, length);
  if (g_str_has_prefix (normal->str, "\xEF\xBB\xBF"))
    g_string_erase (normal, 0, 3);
  g_string_replace (normal, "\r\n", "\n", 0);

  lines = g_strsplit (normal->str, "\n", -1);
  n = g_strv_length (lines);

  if (n == 0 || !g_str_equal (g_strchomp (lines[0]), "---"))
    {
      g_set_error_literal (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                           _("Line 1: an agent file starts with YAML front matter: a line “---”, "
                             "the keys, and another “---”."));
      return NULL;
    }

  for (guint i = 1; i < n && close == 0; i++)
    {
      g_autofree char *trimmed = g_strchomp (g_strdup (lines[i]));

      if (g_str_equal (trimmed, "---") || g_str_equal (trimmed, "..."))
        close = i;
    }
  if (close == 0)
    {
      g_set_error_literal (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                           _("Line 1: the front matter is never closed: add a line “---” after its keys."));
      return NULL;
    }

  for (guint i = 1; i < close; i++)
    {
      g_string_append (yaml, lines[i]);
      g_string_append_c (yaml, '\n');
    }
  for (guint i = close + 1; i < n; i++)
    {
      g_string_append (body, lines[i]);
      if (i + 1 < n)
        g_string_append_c (body, '\n');
    }

  root = parse_yaml (yaml->str, yaml->len, 2, &local_error);
  if (local_error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&local_error));
      return NULL;
    }
  if (!read_front_matter (agent, root, 2, &has_guidance, error))
    return NULL;

  g_free (agent->system_prompt);
  agent->system_prompt = split_body (body->str, &body_guidance);
  if (!has_guidance && body_guidance != NULL)
    {
      g_ptr_array_unref (agent->guidance);
      agent->guidance = g_steal_pointer (&body_guidance);
    }

  return g_steal_pointer (&agent);
}
