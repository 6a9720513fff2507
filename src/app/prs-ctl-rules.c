/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-ctl-rules.c: `prosponsive-ctl rule add|list|remove` — the
 * auto-approval rules of agent runs (docs/runs.md): a tool call that a rule
 * matches is approved or denied without asking. */
#include "config.h"

#include <stdio.h>
#include <glib/gi18n.h>

#include "prs-ctl.h"
#include "prs-error.h"
#include "prs-mcp-catalog.h"
#include "prs-store.h"

static const char *
or_any (const char *value)
{
  /* Translators: an empty field of an auto-approval rule, which matches everything */
  return value != NULL ? value : _("any");
}

/* A rule may name a tool before it is discovered (rules are set up before
 * the first start, an MCP server may be off), so an unknown name is kept;
 * but a typo would make a rule that never matches, so the person is told
 * (docs/runs.md "Approval rules") */
static void
warn_unknown_tool (PrsStore   *store,
                   const char *tool)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsTool) n8n_tool = prs_store_lookup_tool (store, tool, &error);
  g_autoptr(PrsTool) mcp_tool = NULL;

  if (n8n_tool != NULL || !g_error_matches (error, PRS_ERROR, PRS_ERROR_NOT_FOUND))
    return;
  mcp_tool = prs_mcp_catalog_lookup (store, tool);
  if (mcp_tool != NULL)
    return;
  g_printerr (_("No discovered tool is named “%s” (“prosponsive-ctl tools” lists them): "
                "the rule is kept, and applies once a tool of that name is discovered.\n"),
              tool);
}

static int
rule_add (PrsCtl         *ctl,
          GOptionContext *context,
          const char     *tool,
          const char     *agent,
          const char     *conversation,
          const char     *action)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsStore) store = NULL;
  gint64 id = 0;
  g_autofree char *id_text = NULL;

  if (tool == NULL && agent == NULL && conversation == NULL)
    return prs_ctl_usage_error (context, _("A rule needs --tool, --agent or --conversation."));
  if (g_strcmp0 (action, "approve") != 0 && g_strcmp0 (action, "deny") != 0)
    return prs_ctl_usage_error (context, _("--action is approve or deny."));

  store = prs_ctl_open_store (ctl, &error);
  if (store == NULL || !prs_store_add_approval_rule (store, tool, agent, conversation, action, &id, &error))
    return prs_ctl_fail (error);
  id_text = g_strdup_printf ("%" G_GINT64_FORMAT, id);
  /* Translators: the rule's number, approve or deny, then the tool, agent and conversation */
  g_print (_("Rule %s: %s calls of tool %s by agent %s in conversation %s\n"),
           id_text, action, or_any (tool), or_any (agent), or_any (conversation));
  if (tool != NULL)
    warn_unknown_tool (store, tool);
  return 0;
}

static int
rule_list (PrsCtl   *ctl,
           gboolean  json)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsStore) store = prs_ctl_open_existing_store (ctl, &error);
  g_autoptr(JsonArray) rules = NULL;

  if (store != NULL)
    rules = prs_store_list_approval_rules (store, &error);
  if (rules == NULL)
    return prs_ctl_fail (error);

  if (json)
    {
      JsonNode *node = json_node_init_array (json_node_alloc (), rules);

      prs_ctl_print_json (node);
      json_node_unref (node);
      return 0;
    }

  if (json_array_get_length (rules) == 0)
    g_print ("%s\n", _("No auto-approval rules: every tool call asks first."));
  for (guint i = 0; i < json_array_get_length (rules); i++)
    {
      JsonObject *rule = json_array_get_object_element (rules, i);

      g_print ("%-4" G_GINT64_FORMAT " %-8s tool=%s agent=%s conversation=%s\n",
               json_object_get_int_member (rule, "id"),
               json_object_get_string_member (rule, "action"),
               or_any (json_object_get_string_member_with_default (rule, "tool", NULL)),
               or_any (json_object_get_string_member_with_default (rule, "agentId", NULL)),
               or_any (json_object_get_string_member_with_default (rule, "conversationSlug", NULL)));
    }
  return 0;
}

static int
rule_remove (PrsCtl         *ctl,
             GOptionContext *context,
             const char     *id_text)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsStore) store = NULL;
  guint64 id;

  if (!g_ascii_string_to_unsigned (id_text, 10, 1, G_MAXINT64, &id, NULL))
    return prs_ctl_usage_error (context, _("A rule is removed by its number (see “rule list”)."));

  store = prs_ctl_open_existing_store (ctl, &error);
  if (store == NULL || !prs_store_remove_approval_rule (store, (gint64) id, &error))
    return prs_ctl_fail (error);
  g_print (_("Rule %s removed\n"), id_text);
  return 0;
}

int
prs_ctl_cmd_rule (PrsCtl  *ctl,
                  int      argc,
                  char   **argv)
{
  g_autofree char *tool = NULL;
  g_autofree char *agent = NULL;
  g_autofree char *conversation = NULL;
  g_autofree char *action = NULL;
  gboolean json = FALSE;
  GOptionEntry entries[] = {
    { "tool", 0, 0, G_OPTION_ARG_STRING, &tool, N_("add: the tool (default: any)"), N_("TOOL") },
    { "agent", 0, 0, G_OPTION_ARG_STRING, &agent, N_("add: the agent's id (default: any)"), N_("AGENT") },
    { "conversation", 0, 0, G_OPTION_ARG_STRING, &conversation, N_("add: the conversation's slug (default: any)"), N_("SLUG") },
    { "action", 0, 0, G_OPTION_ARG_STRING, &action, N_("add: approve or deny"), N_("ACTION") },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("list: print JSON"), NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context =
    g_option_context_new (_("add|list|remove ID — auto-approval rules for tool calls"));
  g_autoptr(GError) error = NULL;
  const char *verb;

  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return prs_ctl_usage_error (context, error->message);
  if (argc < 2)
    return prs_ctl_usage_error (context, _("Say what to do: add, list or remove."));

  verb = argv[1];
  if (g_str_equal (verb, "add") && argc == 2)
    return rule_add (ctl, context, tool, agent, conversation, action);
  if (g_str_equal (verb, "list") && argc == 2)
    return rule_list (ctl, json);
  if (g_str_equal (verb, "remove") && argc == 3)
    return rule_remove (ctl, context, argv[2]);

  return prs_ctl_usage_error (context, _("Use “rule add --tool T [--agent A] [--conversation SLUG] "
                                         "--action approve|deny”, “rule list [--json]” or “rule remove ID”."));
}
