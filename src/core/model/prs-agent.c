/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-agent.c: agents (docs/agents.md): the struct, id rules and the effective
 * system prompt. */
#include "config.h"

#include <string.h>
#include <glib/gi18n-lib.h>

#include "prs-agent.h"
#include "prs-control-chars.h"
#include "prs-error.h"

PrsAgent *
prs_agent_new (const char *id,
               const char *name)
{
  PrsAgent *agent = g_new0 (PrsAgent, 1);

  agent->id = g_strdup (id);
  agent->name = g_strdup (name);
  agent->description = g_strdup ("");
  agent->system_prompt = g_strdup ("");
  agent->guidance = prs_guidance_new ();
  agent->extra = json_object_new ();
  return agent;
}

PrsAgent *
prs_agent_copy (const PrsAgent *agent)
{
  PrsAgent *copy;
  g_autoptr(GList) members = NULL;

  g_return_val_if_fail (agent != NULL, NULL);

  copy = prs_agent_new (agent->id, agent->name);
  g_free (copy->description);
  copy->description = g_strdup (agent->description);
  g_free (copy->system_prompt);
  copy->system_prompt = g_strdup (agent->system_prompt);
  copy->allowed_tools = g_strdupv (agent->allowed_tools);
  g_ptr_array_unref (copy->guidance);
  copy->guidance = prs_guidance_copy (agent->guidance);
  members = json_object_get_members (agent->extra);
  for (GList *l = members; l != NULL; l = l->next)
    json_object_set_member (copy->extra, l->data,
                            json_node_copy (json_object_get_member (agent->extra, l->data)));
  copy->created_at = g_strdup (agent->created_at);
  copy->updated_at = g_strdup (agent->updated_at);
  return copy;
}

void
prs_agent_free (PrsAgent *agent)
{
  if (agent == NULL)
    return;

  g_free (agent->id);
  g_free (agent->name);
  g_free (agent->description);
  g_free (agent->system_prompt);
  g_strfreev (agent->allowed_tools);
  g_clear_pointer (&agent->guidance, g_ptr_array_unref);
  g_clear_pointer (&agent->extra, json_object_unref);
  g_free (agent->created_at);
  g_free (agent->updated_at);
  g_free (agent);
}

gboolean
prs_agent_id_is_valid (const char *id)
{
  gsize len;

  if (id == NULL)
    return FALSE;

  len = strlen (id);
  if (len == 0 || len > PRS_AGENT_ID_MAX_LEN || id[0] == '-')
    return FALSE;

  for (gsize i = 0; i < len; i++)
    {
      if (!g_ascii_islower (id[i]) && !g_ascii_isdigit (id[i]) && id[i] != '-')
        return FALSE;
    }
  return TRUE;
}

char *
prs_agent_make_id (const char *name)
{
  g_autoptr(GString) id = g_string_new (NULL);
  g_autofree char *ascii = NULL;

  if (name != NULL)
    ascii = g_str_to_ascii (name, "C");

  for (const char *p = ascii; p != NULL && *p != '\0' && id->len < PRS_AGENT_ID_MAX_LEN; p++)
    {
      if (g_ascii_isalnum (*p))
        g_string_append_c (id, g_ascii_tolower (*p));
      else if (id->len > 0 && id->str[id->len - 1] != '-')
        g_string_append_c (id, '-');
    }
  while (id->len > 0 && id->str[id->len - 1] == '-')
    g_string_truncate (id, id->len - 1);

  if (id->len == 0)
    return g_strdup ("agent");
  return g_strdup (id->str);
}

gboolean
prs_agent_validate (const PrsAgent  *agent,
                    GError         **error)
{
  g_return_val_if_fail (agent != NULL, FALSE);

  if (!prs_agent_id_is_valid (agent->id))
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                   _("“%s” is not a valid agent id: use 1 to 64 lowercase letters, digits and "
                     "hyphens, starting with a letter or digit."),
                   agent->id != NULL ? agent->id : "");
      return FALSE;
    }

  if (agent->name == NULL || g_utf8_strlen (agent->name, -1) == 0 ||
      strspn (agent->name, " \t\r\n") == strlen (agent->name))
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                   _("The agent “%s” needs a name."), agent->id);
      return FALSE;
    }

  /* A name is shown on the Agents page, in menus and in what ctl prints, on
   * one line a person picks an agent from: as a conversation's title
   * (docs/conversations.md), control characters there could redraw it. */
  if (!prs_text_is_one_line (agent->name) || g_utf8_strlen (agent->name, -1) > PRS_AGENT_MAX_NAME_CHARS)
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                   /* Translators: %s is an agent's id, %d a number of characters such as 200 */
                   _("The name of the agent “%s” must be one line of at most %d characters, without "
                     "control characters."), agent->id, PRS_AGENT_MAX_NAME_CHARS);
      return FALSE;
    }

  for (guint i = 0; agent->allowed_tools != NULL && agent->allowed_tools[i] != NULL; i++)
    {
      if (agent->allowed_tools[i][0] == '\0')
        {
          g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                       _("The agent “%s” allows a tool with an empty name."), agent->id);
          return FALSE;
        }
    }

  return TRUE;
}

gboolean
prs_agent_allows_tool (const PrsAgent *agent,
                       const char     *tool)
{
  g_return_val_if_fail (agent != NULL, FALSE);

  if (tool == NULL)
    return FALSE;
  if (agent->allowed_tools == NULL)
    return TRUE;
  return g_strv_contains ((const char * const *) agent->allowed_tools, tool);
}

char *
prs_agent_build_effective_prompt (const PrsAgent *agent,
                                  GPtrArray      *tools)
{
  g_autofree char *guidance = NULL;

  g_return_val_if_fail (agent != NULL, NULL);

  guidance = prs_guidance_build_text (agent->guidance, tools);
  if (guidance[0] == '\0')
    return g_strdup (agent->system_prompt);
  if (agent->system_prompt[0] == '\0')
    return g_steal_pointer (&guidance);
  return g_strconcat (agent->system_prompt, "\n\n", guidance, NULL);
}

JsonNode *
prs_agent_to_json (const PrsAgent *agent)
{
  g_autoptr(JsonObject) object = json_object_new ();
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);

  g_return_val_if_fail (agent != NULL, NULL);

  json_object_set_string_member (object, "id", agent->id);
  json_object_set_string_member (object, "name", agent->name);
  json_object_set_string_member (object, "description", agent->description);
  json_object_set_string_member (object, "systemPrompt", agent->system_prompt);
  if (agent->allowed_tools == NULL)
    json_object_set_string_member (object, "allowedTools", "all");
  else
    {
      JsonArray *tools = json_array_new ();

      for (guint i = 0; agent->allowed_tools[i] != NULL; i++)
        json_array_add_string_element (tools, agent->allowed_tools[i]);
      json_object_set_array_member (object, "allowedTools", tools);
    }
  json_object_set_member (object, "toolParameterGuidance", prs_guidance_to_json (agent->guidance));
  json_object_set_object_member (object, "extra", json_object_ref (agent->extra));
  if (agent->created_at != NULL)
    json_object_set_string_member (object, "createdAt", agent->created_at);
  if (agent->updated_at != NULL)
    json_object_set_string_member (object, "updatedAt", agent->updated_at);

  json_node_set_object (node, object);
  return node;
}
