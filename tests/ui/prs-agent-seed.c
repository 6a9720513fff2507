/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-agent-seed.c: seeding for the agent editor's tests and screenshots. */
#include "config.h"

#include "prs-agent-seed.h"

static void
describe (PrsParam   *param,
          const char *description)
{
  g_free (param->description);
  param->description = g_strdup (description);
}

static PrsTool *
tool_new (const char *name,
          const char *description,
          const char *workflow_id,
          const char *workflow_name)
{
  PrsTool *tool = prs_tool_new ();

  tool->name = g_strdup (name);
  tool->description = g_strdup (description);
  tool->description_source = PRS_DESCRIPTION_STICKY_NOTE;
  tool->workflow_id = g_strdup (workflow_id);
  tool->workflow_name = g_strdup (workflow_name);
  tool->created_at = g_strdup ("2024-05-01T10:00:00.000Z");
  tool->webhook_path = g_strdup (name);
  tool->webhook_method = g_strdup ("POST");
  tool->response_mode = g_strdup ("lastNode");
  tool->webhook_node_name = g_strdup ("Webhook");
  return tool;
}

static PrsParam *
param_new (const char *name,
           PrsParamType type,
           gboolean    required,
           const char *default_json,
           const char *description)
{
  g_autoptr(JsonNode) def = default_json != NULL ? json_from_string (default_json, NULL) : NULL;
  PrsParam *param = prs_param_new (name, type, required, def);

  describe (param, description);
  return param;
}

PrsTool *
prs_agent_seed_move_tool (void)
{
  PrsTool *tool = tool_new ("email_move_to_folder", PRS_SEED_MOVE_DESCRIPTION,
                            "wf-move", "Email: move to folder");

  g_ptr_array_add (tool->params, param_new ("uid", PRS_PARAM_STRING, TRUE, NULL,
                                            "The IMAP UID of the message"));
  g_ptr_array_add (tool->params, param_new ("mailbox", PRS_PARAM_STRING, FALSE, "\"INBOX\"",
                                            "The folder the message is in now"));
  g_ptr_array_add (tool->params, param_new ("destination", PRS_PARAM_STRING, TRUE, NULL,
                                            "The folder to move it to"));
  return tool;
}

void
prs_agent_seed_tools (PrsStore *store)
{
  g_autoptr(GPtrArray) tools = g_ptr_array_new_with_free_func ((GDestroyNotify) prs_tool_free);
  g_autoptr(GError) error = NULL;
  PrsTool *tool;

  g_ptr_array_add (tools, prs_agent_seed_move_tool ());

  tool = tool_new ("email_search", "Search the mailbox and return matching messages.",
                   "wf-search", "Email: search");
  g_ptr_array_add (tool->params, param_new ("query", PRS_PARAM_STRING, TRUE, NULL, "What to look for"));
  g_ptr_array_add (tool->params, param_new ("maxResults", PRS_PARAM_NUMBER, FALSE, "10",
                                            "The most messages to return"));
  g_ptr_array_add (tools, tool);

  tool = tool_new ("jira_create_issue", "Create a Jira issue in a project.",
                   "wf-jira", "Jira: create issue");
  g_ptr_array_add (tool->params, param_new ("project", PRS_PARAM_STRING, TRUE, NULL, "The project key"));
  g_ptr_array_add (tool->params, param_new ("summary", PRS_PARAM_STRING, TRUE, NULL, "One line"));
  g_ptr_array_add (tools, tool);

  if (!prs_store_save_discovery (store, tools, NULL, g_get_real_time () / G_USEC_PER_SEC, &error))
    g_error ("%s", error->message);
}

char *
prs_agent_seed_inbox (PrsStore *store)
{
  g_autoptr(GError) error = NULL;
  PrsMessageInsert m = { 0 };
  char *id = NULL;

  if (!prs_store_resolve_conversation (store, "email-inbox", &id, NULL, &error) ||
      !prs_store_rename_conversation (store, id, "Email Inbox", &error))
    g_error ("%s", error->message);

  m.conversation_id = id;
  m.kind = "inbound";
  m.content = "New email from ann@example.org: Re: Q3 Planning";
  m.context_json = "{\"uid\":\"4711\",\"mailbox\":\"INBOX\",\"from\":\"Ann Example <ann@example.org>\","
                   "\"subject\":\"Re: Q3 Planning\",\"receivedAt\":\"2024-09-12T09:41:00Z\","
                   "\"message\":{\"uid\":\"4711\",\"flags\":[\"\\\\Seen\"]},"
                   "\"openLink\":{\"url\":\"https://outlook.office.com/mail/inbox/id/AAMkAGI2\",\"label\":\"Open in Outlook\"}}";
  m.execution_json = "{\"workflowId\":\"wf-email-triage\",\"executionId\":\"48213\"}";
  if (!prs_store_insert_message (store, &m, NULL, NULL, &error))
    g_error ("%s", error->message);
  return id;
}

void
prs_agent_seed_agents (PrsStore *store)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsAgent) agent = prs_agent_new ("executive-assistant-email-agent", "Executive Assistant");
  const char *allowed[] = { "email_move_to_folder", "email_search", "calendar_lookup", NULL };
  PrsToolGuidance *slack;

  g_free (agent->description);
  agent->description = g_strdup ("Triage of incoming mail: files, flags and drafts replies");
  g_free (agent->system_prompt);
  agent->system_prompt = g_strdup ("You are an executive assistant. For every new email, summarise it in two lines, "
                                   "then propose where to file it.\n\nNever delete mail.");
  agent->allowed_tools = g_strdupv ((GStrv) allowed);
  slack = prs_guidance_ensure_tool (agent->guidance, "slack_notify");
  prs_tool_guidance_set_param (slack, prs_param_guidance_new_ask ("channel"));
  if (!prs_store_save_agent (store, agent, NULL, &error))
    g_error ("%s", error->message);
}

PrsTool *
prs_agent_seed_weather_tool (void)
{
  PrsTool *tool = prs_tool_new ();

  tool->name = g_strdup ("get_weather");
  tool->description = g_strdup ("Looks the weather up.");
  tool->workflow_id = g_strdup ("wf-get_weather");
  tool->webhook_path = g_strdup ("weather");
  tool->webhook_method = g_strdup ("POST");
  tool->response_mode = g_strdup ("responseNode");
  tool->webhook_node_name = g_strdup ("Webhook");
  tool->webhook_id = g_strdup ("hook-get_weather");
  g_ptr_array_add (tool->params, prs_param_new ("city", PRS_PARAM_STRING, TRUE, NULL));
  g_ptr_array_add (tool->params, prs_param_new ("unit", PRS_PARAM_STRING, FALSE, NULL));
  return tool;
}

void
prs_agent_seed_weather_agent (PrsStore *store)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) tools = g_ptr_array_new_with_free_func ((GDestroyNotify) prs_tool_free);
  g_autoptr(PrsAgent) agent = prs_agent_new ("weather-agent", "Weather Agent");

  g_ptr_array_add (tools, prs_agent_seed_weather_tool ());
  agent->allowed_tools = g_strsplit ("get_weather", ",", -1);
  if (!prs_store_save_discovery (store, tools, NULL, 1000, &error) ||
      !prs_store_save_agent (store, agent, NULL, &error))
    g_error ("%s", error->message);
}
