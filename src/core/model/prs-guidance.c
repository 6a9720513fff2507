/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-guidance.c: Tool Parameter Guidance (docs/agents.md). The text block is
 * produced to the letter of the spec, since agents files of the Electron
 * product carry it pasted; the binding fills arguments in code so that a
 * mapped value never depends on the model copying it right. */
#include "config.h"

#include <string.h>
#include <glib/gi18n-lib.h>

#include "prs-context.h"
#include "prs-error.h"
#include "prs-guidance.h"
#include "prs-json.h"

static const char * const source_names[] = {
  [PRS_GUIDANCE_SOURCE_CONTEXT] = "context",
  [PRS_GUIDANCE_SOURCE_CONSTANT] = "constant",
  [PRS_GUIDANCE_SOURCE_ASK] = "ask",
  [PRS_GUIDANCE_SOURCE_MODEL] = "model",
};

static const char * const if_missing_names[] = {
  [PRS_GUIDANCE_IF_MISSING_ASK] = "ask",
  [PRS_GUIDANCE_IF_MISSING_DEFAULT] = "default",
};

const char *
prs_guidance_source_to_string (PrsGuidanceSource source)
{
  g_return_val_if_fail (source <= PRS_GUIDANCE_SOURCE_MODEL, "model");

  return source_names[source];
}

gboolean
prs_guidance_source_from_string (const char        *str,
                                 PrsGuidanceSource *out_source)
{
  g_return_val_if_fail (out_source != NULL, FALSE);

  for (guint i = 0; str != NULL && i < G_N_ELEMENTS (source_names); i++)
    {
      if (g_str_equal (str, source_names[i]))
        {
          *out_source = i;
          return TRUE;
        }
    }
  return FALSE;
}

const char *
prs_guidance_if_missing_to_string (PrsGuidanceIfMissing if_missing)
{
  g_return_val_if_fail (if_missing <= PRS_GUIDANCE_IF_MISSING_DEFAULT, "ask");

  return if_missing_names[if_missing];
}

gboolean
prs_guidance_if_missing_from_string (const char           *str,
                                     PrsGuidanceIfMissing *out_if_missing)
{
  g_return_val_if_fail (out_if_missing != NULL, FALSE);

  for (guint i = 0; str != NULL && i < G_N_ELEMENTS (if_missing_names); i++)
    {
      if (g_str_equal (str, if_missing_names[i]))
        {
          *out_if_missing = i;
          return TRUE;
        }
    }
  return FALSE;
}

/* ---- Values -------------------------------------------------------------- */

static PrsParamGuidance *
param_guidance_new (const char        *param,
                    PrsGuidanceSource  source)
{
  PrsParamGuidance *guidance;

  g_return_val_if_fail (param != NULL, NULL);

  guidance = g_new0 (PrsParamGuidance, 1);
  guidance->param = g_strdup (param);
  guidance->source = source;
  return guidance;
}

PrsParamGuidance *
prs_param_guidance_new_context (const char           *param,
                                const char           *field,
                                PrsGuidanceIfMissing  if_missing)
{
  PrsParamGuidance *guidance = param_guidance_new (param, PRS_GUIDANCE_SOURCE_CONTEXT);

  guidance->field = g_strdup (field);
  guidance->if_missing = if_missing;
  return guidance;
}

PrsParamGuidance *
prs_param_guidance_new_constant (const char *param,
                                 JsonNode   *value)
{
  PrsParamGuidance *guidance = param_guidance_new (param, PRS_GUIDANCE_SOURCE_CONSTANT);

  guidance->value = value != NULL ? json_node_copy (value) : json_node_new (JSON_NODE_NULL);
  return guidance;
}

PrsParamGuidance *
prs_param_guidance_new_ask (const char *param)
{
  return param_guidance_new (param, PRS_GUIDANCE_SOURCE_ASK);
}

PrsParamGuidance *
prs_param_guidance_new_model (const char *param)
{
  return param_guidance_new (param, PRS_GUIDANCE_SOURCE_MODEL);
}

PrsParamGuidance *
prs_param_guidance_copy (const PrsParamGuidance *guidance)
{
  PrsParamGuidance *copy;

  g_return_val_if_fail (guidance != NULL, NULL);

  copy = param_guidance_new (guidance->param, guidance->source);
  copy->field = g_strdup (guidance->field);
  copy->if_missing = guidance->if_missing;
  copy->value = guidance->value != NULL ? json_node_copy (guidance->value) : NULL;
  return copy;
}

void
prs_param_guidance_free (PrsParamGuidance *guidance)
{
  if (guidance == NULL)
    return;

  g_free (guidance->param);
  g_free (guidance->field);
  g_clear_pointer (&guidance->value, json_node_unref);
  g_free (guidance);
}

PrsToolGuidance *
prs_tool_guidance_new (const char *tool)
{
  PrsToolGuidance *guidance;

  g_return_val_if_fail (tool != NULL, NULL);

  guidance = g_new0 (PrsToolGuidance, 1);
  guidance->tool = g_strdup (tool);
  guidance->params = g_ptr_array_new_with_free_func ((GDestroyNotify) prs_param_guidance_free);
  return guidance;
}

PrsToolGuidance *
prs_tool_guidance_copy (const PrsToolGuidance *guidance)
{
  PrsToolGuidance *copy;

  g_return_val_if_fail (guidance != NULL, NULL);

  copy = prs_tool_guidance_new (guidance->tool);
  for (guint i = 0; i < guidance->params->len; i++)
    g_ptr_array_add (copy->params, prs_param_guidance_copy (g_ptr_array_index (guidance->params, i)));
  return copy;
}

void
prs_tool_guidance_free (PrsToolGuidance *guidance)
{
  if (guidance == NULL)
    return;

  g_free (guidance->tool);
  g_ptr_array_unref (guidance->params);
  g_free (guidance);
}

void
prs_tool_guidance_set_param (PrsToolGuidance  *guidance,
                             PrsParamGuidance *param)
{
  g_return_if_fail (guidance != NULL);
  g_return_if_fail (param != NULL);

  for (guint i = 0; i < guidance->params->len; i++)
    {
      PrsParamGuidance *old = g_ptr_array_index (guidance->params, i);

      if (g_str_equal (old->param, param->param))
        {
          guidance->params->pdata[i] = param;
          prs_param_guidance_free (old);
          return;
        }
    }
  g_ptr_array_add (guidance->params, param);
}

const PrsParamGuidance *
prs_tool_guidance_find_param (const PrsToolGuidance *guidance,
                              const char            *param)
{
  g_return_val_if_fail (guidance != NULL, NULL);

  for (guint i = 0; param != NULL && i < guidance->params->len; i++)
    {
      const PrsParamGuidance *entry = g_ptr_array_index (guidance->params, i);

      if (g_str_equal (entry->param, param))
        return entry;
    }
  return NULL;
}

GPtrArray *
prs_guidance_new (void)
{
  return g_ptr_array_new_with_free_func ((GDestroyNotify) prs_tool_guidance_free);
}

GPtrArray *
prs_guidance_copy (GPtrArray *guidance)
{
  GPtrArray *copy = prs_guidance_new ();

  for (guint i = 0; guidance != NULL && i < guidance->len; i++)
    g_ptr_array_add (copy, prs_tool_guidance_copy (g_ptr_array_index (guidance, i)));
  return copy;
}

PrsToolGuidance *
prs_guidance_find_tool (GPtrArray  *guidance,
                        const char *tool)
{
  for (guint i = 0; guidance != NULL && tool != NULL && i < guidance->len; i++)
    {
      PrsToolGuidance *entry = g_ptr_array_index (guidance, i);

      if (g_str_equal (entry->tool, tool))
        return entry;
    }
  return NULL;
}

PrsToolGuidance *
prs_guidance_ensure_tool (GPtrArray  *guidance,
                          const char *tool)
{
  PrsToolGuidance *entry;

  g_return_val_if_fail (guidance != NULL, NULL);
  g_return_val_if_fail (tool != NULL, NULL);

  entry = prs_guidance_find_tool (guidance, tool);
  if (entry == NULL)
    {
      entry = prs_tool_guidance_new (tool);
      g_ptr_array_add (guidance, entry);
    }
  return entry;
}

/* ---- JSON ---------------------------------------------------------------- */

JsonNode *
prs_guidance_to_json (GPtrArray *guidance)
{
  g_autoptr(JsonObject) tools = json_object_new ();
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);

  for (guint i = 0; guidance != NULL && i < guidance->len; i++)
    {
      const PrsToolGuidance *tool = g_ptr_array_index (guidance, i);
      JsonObject *params = json_object_new ();

      for (guint j = 0; j < tool->params->len; j++)
        {
          const PrsParamGuidance *param = g_ptr_array_index (tool->params, j);
          JsonObject *entry = json_object_new ();

          json_object_set_string_member (entry, "source", prs_guidance_source_to_string (param->source));
          if (param->source == PRS_GUIDANCE_SOURCE_CONTEXT)
            {
              json_object_set_string_member (entry, "field", param->field != NULL ? param->field : "");
              json_object_set_string_member (entry, "ifMissing",
                                             prs_guidance_if_missing_to_string (param->if_missing));
            }
          else if (param->source == PRS_GUIDANCE_SOURCE_CONSTANT)
            json_object_set_member (entry, "value",
                                    param->value != NULL ? json_node_copy (param->value)
                                                         : json_node_new (JSON_NODE_NULL));
          json_object_set_object_member (params, param->param, entry);
        }
      json_object_set_object_member (tools, tool->tool, params);
    }

  json_node_set_object (node, tools);
  return node;
}

static PrsParamGuidance *
param_guidance_from_json (const char  *tool,
                          const char  *param,
                          JsonNode    *node,
                          GError     **error)
{
  JsonObject *entry;
  const char *source_name;
  PrsGuidanceSource source;
  g_autoptr(GList) members = NULL;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                   _("The guidance for “%s” of “%s” is not an object"), param, tool);
      return NULL;
    }
  entry = json_node_get_object (node);

  members = json_object_get_members (entry);
  for (GList *l = members; l != NULL; l = l->next)
    {
      if (!g_str_equal (l->data, "source") && !g_str_equal (l->data, "field") &&
          !g_str_equal (l->data, "value") && !g_str_equal (l->data, "ifMissing"))
        {
          g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                       _("The guidance for “%s” of “%s” has an unknown key “%s”"),
                       param, tool, (const char *) l->data);
          return NULL;
        }
    }

  source_name = prs_json_object_get_string (entry, "source");
  if (!prs_guidance_source_from_string (source_name, &source))
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                   _("The source for “%s” of “%s” must be context, constant, ask or model"),
                   param, tool);
      return NULL;
    }

  switch (source)
    {
    case PRS_GUIDANCE_SOURCE_CONTEXT:
      {
        const char *field = prs_json_object_get_string (entry, "field");
        const char *if_missing_name = prs_json_object_get_string (entry, "ifMissing");
        PrsGuidanceIfMissing if_missing = PRS_GUIDANCE_IF_MISSING_ASK;

        if (field == NULL || field[0] == '\0')
          {
            g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                         _("“%s” of “%s” comes from the Request Context but names no field"),
                         param, tool);
            return NULL;
          }
        if (json_object_has_member (entry, "ifMissing") &&
            !prs_guidance_if_missing_from_string (if_missing_name, &if_missing))
          {
            g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                         _("ifMissing for “%s” of “%s” must be ask or default"), param, tool);
            return NULL;
          }
        return prs_param_guidance_new_context (param, field, if_missing);
      }

    case PRS_GUIDANCE_SOURCE_CONSTANT:
      if (!json_object_has_member (entry, "value"))
        {
          g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                       _("“%s” of “%s” is a constant but has no value"), param, tool);
          return NULL;
        }
      return prs_param_guidance_new_constant (param, json_object_get_member (entry, "value"));

    case PRS_GUIDANCE_SOURCE_ASK:
      return prs_param_guidance_new_ask (param);

    case PRS_GUIDANCE_SOURCE_MODEL:
    default:
      return prs_param_guidance_new_model (param);
    }
}

GPtrArray *
prs_guidance_new_from_json (JsonNode  *node,
                            GError   **error)
{
  g_autoptr(GPtrArray) guidance = prs_guidance_new ();
  g_autoptr(GList) tools = NULL;
  JsonObject *object;

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return g_steal_pointer (&guidance);

  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error_literal (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                           _("The tool parameter guidance is not an object of tools"));
      return NULL;
    }
  object = json_node_get_object (node);

  tools = json_object_get_members (object);
  for (GList *l = tools; l != NULL; l = l->next)
    {
      const char *tool_name = l->data;
      JsonNode *params_node = json_object_get_member (object, tool_name);
      PrsToolGuidance *tool;
      g_autoptr(GList) params = NULL;

      if (JSON_NODE_HOLDS_NULL (params_node))
        continue;
      if (!JSON_NODE_HOLDS_OBJECT (params_node))
        {
          g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                       _("The guidance for the tool “%s” is not an object of parameters"), tool_name);
          return NULL;
        }

      tool = prs_guidance_ensure_tool (guidance, tool_name);
      params = json_object_get_members (json_node_get_object (params_node));
      for (GList *p = params; p != NULL; p = p->next)
        {
          PrsParamGuidance *param;

          param = param_guidance_from_json (tool_name, p->data,
                                            json_object_get_member (json_node_get_object (params_node), p->data),
                                            error);
          if (param == NULL)
            return NULL;
          prs_tool_guidance_set_param (tool, param);
        }
    }

  return g_steal_pointer (&guidance);
}

/* ---- Text ---------------------------------------------------------------- */

char *
prs_guidance_build_line (const PrsParamGuidance *param,
                         const PrsParam         *tool_param)
{
  g_return_val_if_fail (param != NULL, NULL);

  switch (param->source)
    {
    case PRS_GUIDANCE_SOURCE_CONTEXT:
      if (param->if_missing == PRS_GUIDANCE_IF_MISSING_ASK)
        return g_strdup_printf ("- **%s**: Use the \"%s\" value from the Request Context."
                                " If missing, ask the user.", param->param, param->field);
      if (tool_param != NULL && tool_param->default_value != NULL)
        {
          g_autofree char *def = prs_json_to_string (tool_param->default_value, FALSE);

          return g_strdup_printf ("- **%s**: Use the \"%s\" value from the Request Context."
                                  " If missing, use the default (%s).", param->param, param->field, def);
        }
      return g_strdup_printf ("- **%s**: Use the \"%s\" value from the Request Context."
                              " If missing, leave it out.", param->param, param->field);

    case PRS_GUIDANCE_SOURCE_CONSTANT:
      {
        g_autofree char *value = prs_json_to_string (param->value, FALSE);

        return g_strdup_printf ("- **%s**: Always use %s.", param->param, value);
      }

    case PRS_GUIDANCE_SOURCE_ASK:
      return g_strdup_printf ("- **%s**: Ask the user for this value before calling the tool.",
                              param->param);

    case PRS_GUIDANCE_SOURCE_MODEL:
    default:
      return NULL;
    }
}

static const PrsParam *
find_tool_param (const PrsTool *tool,
                 const char    *name)
{
  for (guint i = 0; tool != NULL && tool->params != NULL && i < tool->params->len; i++)
    {
      const PrsParam *param = g_ptr_array_index (tool->params, i);

      if (g_str_equal (param->name, name))
        return param;
    }
  return NULL;
}

static void
append_line (GString                *lines,
             const PrsParamGuidance *param,
             const PrsParam         *tool_param)
{
  g_autofree char *line = prs_guidance_build_line (param, tool_param);

  if (line != NULL)
    {
      g_string_append (lines, line);
      g_string_append_c (lines, '\n');
    }
}

/* @text on one line: runs of white space (line breaks too) become one
 * space, so the block keeps one line per item and reads back. */
static char *
one_line (const char *text)
{
  g_autoptr(GString) out = g_string_new (NULL);
  gboolean space = FALSE;

  for (const char *p = text; *p != '\0'; p++)
    {
      if (g_ascii_isspace (*p))
        space = out->len > 0;
      else
        {
          if (space)
            g_string_append_c (out, ' ');
          space = FALSE;
          g_string_append_c (out, *p);
        }
    }
  return g_strdup (out->str);
}

char *
prs_guidance_build_tool_text (const PrsToolGuidance *guidance,
                              const PrsTool         *tool)
{
  g_autoptr(GString) lines = g_string_new (NULL);
  GString *out;

  g_return_val_if_fail (guidance != NULL, NULL);

  /* The tool's parameter order first, then what it no longer has. */
  for (guint i = 0; tool != NULL && tool->params != NULL && i < tool->params->len; i++)
    {
      const PrsParam *tool_param = g_ptr_array_index (tool->params, i);
      const PrsParamGuidance *param = prs_tool_guidance_find_param (guidance, tool_param->name);

      if (param != NULL)
        append_line (lines, param, tool_param);
    }
  for (guint i = 0; i < guidance->params->len; i++)
    {
      const PrsParamGuidance *param = g_ptr_array_index (guidance->params, i);

      if (tool == NULL || find_tool_param (tool, param->param) == NULL)
        append_line (lines, param, NULL);
    }

  if (lines->len == 0)
    return NULL;

  out = g_string_new (NULL);
  g_string_append_printf (out, "When using the **%s** tool:\n", guidance->tool);
  /* An MCP server's description is its data, never the system prompt's:
   * the model reads it with the tool, marked (docs/mcp.md) */
  if (tool != NULL && tool->description != NULL && !prs_tool_is_mcp (tool))
    {
      g_autofree char *purpose = one_line (tool->description);

      if (purpose[0] != '\0')
        g_string_append_printf (out, "Purpose: %s\n", purpose);
    }
  g_string_append (out, "Parameter sources:\n");
  g_string_append (out, lines->str);
  return g_string_free (out, FALSE);
}

static const PrsTool *
find_tool (GPtrArray  *tools,
           const char *name)
{
  for (guint i = 0; tools != NULL && i < tools->len; i++)
    {
      const PrsTool *tool = g_ptr_array_index (tools, i);

      if (g_strcmp0 (tool->name, name) == 0)
        return tool;
    }
  return NULL;
}

char *
prs_guidance_build_text (GPtrArray *guidance,
                         GPtrArray *tools)
{
  g_autoptr(GString) out = g_string_new (NULL);

  for (guint i = 0; guidance != NULL && i < guidance->len; i++)
    {
      const PrsToolGuidance *entry = g_ptr_array_index (guidance, i);
      g_autofree char *paragraph = prs_guidance_build_tool_text (entry, find_tool (tools, entry->tool));

      if (paragraph == NULL)
        continue;
      if (out->len == 0)
        g_string_append (out, PRS_GUIDANCE_HEADING "\n");
      else
        g_string_append_c (out, '\n');
      g_string_append (out, paragraph);
    }

  return g_strdup (out->str);
}

/* ---- Binding ------------------------------------------------------------- */

JsonObject *
prs_guidance_bind (const PrsToolGuidance  *guidance,
                   const PrsTool          *tool,
                   JsonObject             *context,
                   JsonObject             *model_arguments,
                   JsonObject            **out_provenance)
{
  JsonObject *arguments = json_object_new ();
  g_autoptr(JsonObject) provenance = json_object_new ();
  g_autoptr(GList) members = NULL;

  if (model_arguments != NULL)
    members = json_object_get_members (model_arguments);
  for (GList *l = members; l != NULL; l = l->next)
    {
      json_object_set_member (arguments, l->data,
                              json_node_copy (json_object_get_member (model_arguments, l->data)));
      json_object_set_string_member (provenance, l->data, "model");
    }

  for (guint i = 0; guidance != NULL && i < guidance->params->len; i++)
    {
      const PrsParamGuidance *param = g_ptr_array_index (guidance->params, i);

      switch (param->source)
        {
        case PRS_GUIDANCE_SOURCE_CONTEXT:
          {
            JsonNode *value = prs_context_lookup (context, param->field);

            if (value != NULL)
              {
                g_autofree char *origin = g_strconcat ("context:", param->field, NULL);

                json_object_set_member (arguments, param->param, json_node_copy (value));
                json_object_set_string_member (provenance, param->param, origin);
              }
            else if (param->if_missing == PRS_GUIDANCE_IF_MISSING_DEFAULT &&
                     !json_object_has_member (arguments, param->param))
              {
                const PrsParam *tool_param = find_tool_param (tool, param->param);

                if (tool_param != NULL && tool_param->default_value != NULL)
                  {
                    json_object_set_member (arguments, param->param,
                                            json_node_copy (tool_param->default_value));
                    json_object_set_string_member (provenance, param->param, "default");
                  }
              }
          }
          break;

        case PRS_GUIDANCE_SOURCE_CONSTANT:
          json_object_set_member (arguments, param->param,
                                  param->value != NULL ? json_node_copy (param->value)
                                                       : json_node_new (JSON_NODE_NULL));
          json_object_set_string_member (provenance, param->param, "constant");
          break;

        case PRS_GUIDANCE_SOURCE_ASK:
        case PRS_GUIDANCE_SOURCE_MODEL:
        default:
          break;
        }
    }

  if (out_provenance != NULL)
    *out_provenance = g_steal_pointer (&provenance);
  return arguments;
}
