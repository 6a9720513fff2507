/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-agent-file-write.c: an agent as Markdown with YAML front matter,
 * written with libyaml's emitter (strings quoted whenever reading them
 * back could change them). Reading is in prs-agent-file.c. */
#include "config.h"

#include <string.h>
#include <yaml.h>
#include <glib/gi18n-lib.h>

#include "prs-agent-file.h"
#include "prs-agent-file-private.h"
#include "prs-json.h"
#include "prs-error.h"

typedef struct
{
  yaml_emitter_t emitter;
  gboolean       failed;
} Writer;

static int
write_to_string (void          *data,
                 unsigned char *buffer,
                 size_t         size)
{
  g_string_append_len (data, (const char *) buffer, size);
  return 1;
}

static void
emit (Writer       *w,
      yaml_event_t *event)
{
  if (w->failed)
    {
      yaml_event_delete (event);
      return;
    }
  if (!yaml_emitter_emit (&w->emitter, event))
    w->failed = TRUE;
}

/* Plain only when reading it back surely gives the same string. */
static gboolean
plain_is_safe (const char *s)
{
  static const char * const words[] = {
    "y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO",
    "on", "On", "ON", "off", "Off", "OFF", NULL
  };
  g_autoptr(JsonNode) resolved = NULL;

  if (!g_regex_match_simple ("^[A-Za-z_/][A-Za-z0-9 _./@-]*$", s, G_REGEX_DOLLAR_ENDONLY, 0) || g_str_has_suffix (s, " ") ||
      g_strv_contains (words, s))
    return FALSE;

  resolved = prs_agent_file_resolve_plain (s);
  return JSON_NODE_HOLDS_VALUE (resolved) && json_node_get_value_type (resolved) == G_TYPE_STRING;
}

static void
emit_raw_scalar (Writer           *w,
                 const char       *text,
                 yaml_scalar_style_t style)
{
  yaml_event_t event;

  if (!yaml_scalar_event_initialize (&event, NULL, NULL, (yaml_char_t *) text, strlen (text),
                                     1, 1, style))
    {
      w->failed = TRUE;
      return;
    }
  emit (w, &event);
}

static void
emit_string (Writer     *w,
             const char *text)
{
  emit_raw_scalar (w, text, plain_is_safe (text) ? YAML_PLAIN_SCALAR_STYLE
                                                 : YAML_DOUBLE_QUOTED_SCALAR_STYLE);
}

static void
begin_mapping (Writer *w)
{
  yaml_event_t event;

  yaml_mapping_start_event_initialize (&event, NULL, NULL, 1, YAML_BLOCK_MAPPING_STYLE);
  emit (w, &event);
}

static void
end_mapping (Writer *w)
{
  yaml_event_t event;

  yaml_mapping_end_event_initialize (&event);
  emit (w, &event);
}

static void
begin_sequence (Writer *w)
{
  yaml_event_t event;

  yaml_sequence_start_event_initialize (&event, NULL, NULL, 1, YAML_BLOCK_SEQUENCE_STYLE);
  emit (w, &event);
}

static void
end_sequence (Writer *w)
{
  yaml_event_t event;

  yaml_sequence_end_event_initialize (&event);
  emit (w, &event);
}

/* Recursion: one level per nesting level of @node, which came from a
 * bounded parse (front matter or the store). */
static void
emit_json (Writer   *w,
           JsonNode *node)
{
  switch (JSON_NODE_TYPE (node))
    {
    case JSON_NODE_OBJECT:
      {
        JsonObject *object = json_node_get_object (node);
        g_autoptr(GList) members = json_object_get_members (object);

        begin_mapping (w);
        for (GList *l = members; l != NULL; l = l->next)
          {
            emit_string (w, l->data);
            emit_json (w, json_object_get_member (object, l->data));
          }
        end_mapping (w);
      }
      break;

    case JSON_NODE_ARRAY:
      {
        JsonArray *array = json_node_get_array (node);

        begin_sequence (w);
        for (guint i = 0; i < json_array_get_length (array); i++)
          emit_json (w, json_array_get_element (array, i));
        end_sequence (w);
      }
      break;

    case JSON_NODE_VALUE:
      if (json_node_get_value_type (node) == G_TYPE_STRING)
        emit_string (w, json_node_get_string (node));
      else
        {
          g_autoptr(GString) text = g_string_new (NULL);

          prs_json_append (text, node, PRS_JSON_COMPACT, G_MAXSIZE);
          /* A double stays a double when read back. */
          if (json_node_get_value_type (node) == G_TYPE_DOUBLE && strpbrk (text->str, ".eE") == NULL)
            g_string_append (text, ".0");
          emit_raw_scalar (w, text->str, YAML_PLAIN_SCALAR_STYLE);
        }
      break;

    case JSON_NODE_NULL:
    default:
      emit_raw_scalar (w, "null", YAML_PLAIN_SCALAR_STYLE);
      break;
    }
}

static void
emit_guidance (Writer    *w,
               GPtrArray *guidance)
{
  begin_mapping (w);
  for (guint i = 0; i < guidance->len; i++)
    {
      const PrsToolGuidance *tool = g_ptr_array_index (guidance, i);

      emit_string (w, tool->tool);
      begin_mapping (w);
      for (guint j = 0; j < tool->params->len; j++)
        {
          const PrsParamGuidance *param = g_ptr_array_index (tool->params, j);

          emit_string (w, param->param);
          begin_mapping (w);
          emit_string (w, "source");
          emit_string (w, prs_guidance_source_to_string (param->source));
          if (param->source == PRS_GUIDANCE_SOURCE_CONTEXT)
            {
              emit_string (w, "field");
              emit_string (w, param->field != NULL ? param->field : "");
              emit_string (w, "ifMissing");
              emit_string (w, prs_guidance_if_missing_to_string (param->if_missing));
            }
          else if (param->source == PRS_GUIDANCE_SOURCE_CONSTANT)
            {
              g_autoptr(JsonNode) null_value = json_node_new (JSON_NODE_NULL);

              emit_string (w, "value");
              emit_json (w, param->value != NULL ? param->value : null_value);
            }
          end_mapping (w);
        }
      end_mapping (w);
    }
  end_mapping (w);
}

char *
prs_agent_file_write (const PrsAgent  *agent,
                      GPtrArray       *tools,
                      GError         **error)
{
  Writer w = { 0 };
  yaml_event_t event;
  g_autoptr(GString) yaml = g_string_new (NULL);
  g_autofree char *guidance_text = NULL;
  g_autoptr(GList) extra = NULL;
  GString *out;

  g_return_val_if_fail (agent != NULL, NULL);

  if (!yaml_emitter_initialize (&w.emitter))
    {
      g_set_error_literal (error, PRS_ERROR, PRS_ERROR_FAILED, _("Could not start the YAML writer."));
      return NULL;
    }
  yaml_emitter_set_output (&w.emitter, write_to_string, yaml);
  yaml_emitter_set_unicode (&w.emitter, 1);
  yaml_emitter_set_width (&w.emitter, -1);
  yaml_emitter_set_indent (&w.emitter, 2);
  yaml_emitter_set_break (&w.emitter, YAML_LN_BREAK);

  yaml_stream_start_event_initialize (&event, YAML_UTF8_ENCODING);
  emit (&w, &event);
  yaml_document_start_event_initialize (&event, NULL, NULL, NULL, 1);
  emit (&w, &event);

  begin_mapping (&w);
  emit_string (&w, "id");
  emit_string (&w, agent->id);
  emit_string (&w, "name");
  emit_string (&w, agent->name);
  if (agent->description != NULL && agent->description[0] != '\0')
    {
      emit_string (&w, "description");
      emit_string (&w, agent->description);
    }
  emit_string (&w, "allowedTools");
  if (agent->allowed_tools == NULL)
    emit_string (&w, "all");
  else
    {
      begin_sequence (&w);
      for (guint i = 0; agent->allowed_tools[i] != NULL; i++)
        emit_string (&w, agent->allowed_tools[i]);
      end_sequence (&w);
    }
  if (agent->guidance->len > 0)
    {
      emit_string (&w, "toolParameterGuidance");
      emit_guidance (&w, agent->guidance);
    }
  extra = json_object_get_members (agent->extra);
  for (GList *l = extra; l != NULL; l = l->next)
    {
      emit_string (&w, l->data);
      emit_json (&w, json_object_get_member (agent->extra, l->data));
    }
  end_mapping (&w);

  yaml_document_end_event_initialize (&event, 1);
  emit (&w, &event);
  yaml_stream_end_event_initialize (&event);
  emit (&w, &event);

  if (w.failed)
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_FAILED, _("Could not write the agent “%s”: %s."),
                   agent->id, w.emitter.problem != NULL ? w.emitter.problem : _("YAML error"));
      yaml_emitter_delete (&w.emitter);
      return NULL;
    }
  yaml_emitter_delete (&w.emitter);

  out = g_string_new ("---\n");
  g_string_append (out, yaml->str);
  if (out->str[out->len - 1] != '\n')
    g_string_append_c (out, '\n');
  g_string_append (out, "---\n");

  if (agent->system_prompt != NULL && agent->system_prompt[0] != '\0')
    {
      g_string_append_c (out, '\n');
      g_string_append (out, agent->system_prompt);
      g_string_append_c (out, '\n');
    }

  guidance_text = prs_guidance_build_text (agent->guidance, tools);
  if (guidance_text[0] != '\0')
    {
      g_string_append_c (out, '\n');
      g_string_append (out, guidance_text);
    }

  return g_string_free (out, FALSE);
}
