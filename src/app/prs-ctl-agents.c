/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-ctl-agents.c: `prosponsive-ctl agent import|export|list` (agents as
 * Markdown with YAML front matter, docs/agents.md) and `prosponsive-ctl fields`
 * (the Request Context field paths of one context object, docs/conversations.md). */
#include "config.h"

#include <stdlib.h>
#include <glib/gi18n.h>

#include "prs-agent-file.h"
#include "prs-context.h"
#include "prs-ctl.h"
#include "prs-error.h"
#include "prs-json.h"
#include "prs-store.h"

#define MAX_CONTEXT_FILE (64 * 1024 * 1024)

/* ---------------------------------------------------------------- agent import */

/* An agent with the file's id exists and --replace was not given */
static int
refuse_existing (const PrsAgent *agent,
                 const GError   *error)
{
  if (g_strcmp0 (agent->id, PRS_AGENT_DEFAULT_ID) == 0)
    g_printerr ("%s %s\n", error->message,
                _("It is the default agent: with --replace its name, description, prompt, tools "
                  "and guidance are replaced, and its id stays, so conversations keep using it."));
  else
    g_printerr ("%s %s\n", error->message, _("Use --replace to replace it."));
  return PRS_CTL_EXIT_NEGATIVE;
}

static int
agent_import (PrsCtl  *ctl,
              int      argc,
              char   **argv)
{
  gboolean replace = FALSE;
  GOptionEntry entries[] = {
    { "replace", 0, 0, G_OPTION_ARG_NONE, &replace, N_("Replace an agent that has the same id"), NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new (_("import FILE.md — save an agent from a Markdown file"));
  g_autoptr(GError) error = NULL;
  g_autofree char *contents = NULL;
  gsize length = 0;
  g_autoptr(PrsAgent) agent = NULL;
  g_autoptr(PrsStore) store = NULL;
  g_autoptr(GList) extra = NULL;
  gboolean replaced = FALSE;

  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return prs_ctl_usage_error (context, error->message);
  if (argc != 2)
    return prs_ctl_usage_error (context, _("agent import takes exactly one file."));

  /* Never more than an agent file may hold: a huge file costs nothing */
  if (!prs_ctl_read_input (argv[1], PRS_AGENT_FILE_MAX_BYTES, &contents, &length, &error))
    {
      g_printerr (_("Could not read “%s”: %s\n"), argv[1], error->message);
      return PRS_CTL_EXIT_USAGE;
    }

  agent = prs_agent_file_parse (contents, length, &error);
  /* What the store would refuse is a file this command does not take (exit 2) */
  if (agent != NULL && !prs_agent_validate (agent, &error))
    g_clear_pointer (&agent, prs_agent_free);
  if (agent == NULL)
    {
      g_printerr (_("“%s” is not an agent file: %s\n"), argv[1], error->message);
      return PRS_CTL_EXIT_USAGE;
    }

  extra = json_object_get_members (agent->extra);
  if (extra != NULL)
    {
      g_autoptr(GString) keys = g_string_new (NULL);

      for (GList *l = extra; l != NULL; l = l->next)
        g_string_append_printf (keys, "%s%s", keys->len > 0 ? ", " : "", (const char *) l->data);
      g_printerr (_("Kept front matter keys that Prosponsive does not use: %s\n"), keys->str);
    }

  if ((store = prs_ctl_open_store (ctl, &error)) == NULL ||
      !prs_store_import_agent (store, agent, replace, &replaced, &error))
    {
      if (g_error_matches (error, PRS_ERROR, PRS_ERROR_EXISTS))
        return refuse_existing (agent, error);
      return prs_ctl_fail (error);
    }

  /* Translators: %s is an agent id */
  if (replaced)
    g_printerr (_("Replaced the agent “%s”.\n"), agent->id);
  g_print ("%s\n", agent->id);
  return EXIT_SUCCESS;
}

/* ---------------------------------------------------------------- agent export */

static int
agent_export (PrsCtl  *ctl,
              int      argc,
              char   **argv)
{
  GOptionEntry entries[] = {
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new (_("export ID — print an agent as a Markdown file"));
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsStore) store = NULL;
  g_autoptr(PrsAgent) agent = NULL;
  g_autoptr(GPtrArray) tools = NULL;
  g_autofree char *text = NULL;

  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return prs_ctl_usage_error (context, error->message);
  if (argc != 2)
    return prs_ctl_usage_error (context, _("agent export takes exactly one agent id."));

  if ((store = prs_ctl_open_existing_store (ctl, &error)) == NULL ||
      (agent = prs_store_lookup_agent (store, argv[1], &error)) == NULL ||
      (tools = prs_store_list_tools (store, &error)) == NULL ||
      (text = prs_agent_file_write (agent, tools, &error)) == NULL)
    return prs_ctl_fail (error);

  g_print ("%s", text);
  return EXIT_SUCCESS;
}

/* ---------------------------------------------------------------- agent list */

static int
agent_list (PrsCtl  *ctl,
            int      argc,
            char   **argv)
{
  gboolean json = FALSE;
  GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print the agents as JSON"), NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new (_("list — the stored agents"));
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsStore) store = NULL;
  g_autoptr(GPtrArray) agents = NULL;

  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return prs_ctl_usage_error (context, error->message);
  if (argc != 1)
    return prs_ctl_usage_error (context, _("agent list takes no arguments."));

  if ((store = prs_ctl_open_existing_store (ctl, &error)) == NULL ||
      (agents = prs_store_list_agents (store, &error)) == NULL)
    return prs_ctl_fail (error);

  if (json)
    {
      g_autoptr(JsonArray) array = json_array_new ();
      g_autoptr(JsonNode) node = json_node_new (JSON_NODE_ARRAY);

      for (guint i = 0; i < agents->len; i++)
        json_array_add_element (array, prs_agent_to_json (g_ptr_array_index (agents, i)));
      json_node_set_array (node, array);
      prs_ctl_print_json (node);
      return EXIT_SUCCESS;
    }

  for (guint i = 0; i < agents->len; i++)
    {
      const PrsAgent *agent = g_ptr_array_index (agents, i);

      g_print ("%s — %s\n", agent->id, agent->name);
    }
  return EXIT_SUCCESS;
}

/* `agent --help` is help like any command's (exit 0); anything else but a
 * verb is bad usage, with that help */
static int
agent_usage (int    argc,
             char **argv)
{
  g_autoptr(GOptionContext) context =
    g_option_context_new (_("import FILE.md | export ID | list — the agents"));
  g_autoptr(GError) error = NULL;

  if (!g_option_context_parse (context, &argc, &argv, &error))
    return prs_ctl_usage_error (context, error->message);
  return prs_ctl_usage_error (context, _("Use “agent import FILE.md”, “agent export ID” or “agent list [--json]”."));
}

int
prs_ctl_cmd_agent (PrsCtl  *ctl,
                   int      argc,
                   char   **argv)
{
  const char *sub = argc >= 2 ? argv[1] : NULL;

  if (g_strcmp0 (sub, "import") == 0)
    return agent_import (ctl, argc - 1, argv + 1);
  if (g_strcmp0 (sub, "export") == 0)
    return agent_export (ctl, argc - 1, argv + 1);
  if (g_strcmp0 (sub, "list") == 0)
    return agent_list (ctl, argc - 1, argv + 1);

  return agent_usage (argc, argv);
}

/* ---------------------------------------------------------------- fields */

int
prs_ctl_cmd_fields (PrsCtl  *ctl,
                    int      argc,
                    char   **argv)
{
  GOptionEntry entries[] = {
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new (_("FILE.json — the field paths of a Request Context object"));
  g_autoptr(GError) error = NULL;
  g_autofree char *contents = NULL;
  gsize length = 0;
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GPtrArray) fields = NULL;
  g_autoptr(JsonNode) json = NULL;

  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return prs_ctl_usage_error (context, error->message);
  if (argc != 2)
    return prs_ctl_usage_error (context, _("fields takes exactly one file."));

  if (!prs_ctl_read_input (argv[1], MAX_CONTEXT_FILE, &contents, &length, &error))
    {
      g_printerr (_("Could not read “%s”: %s\n"), argv[1], error->message);
      return PRS_CTL_EXIT_USAGE;
    }

  root = prs_json_parse_bounded (contents, length, PRS_JSON_DEFAULT_MAX_DEPTH, &error);
  if (root == NULL)
    {
      g_printerr (_("“%s” is not JSON: %s\n"), argv[1], error->message);
      return PRS_CTL_EXIT_USAGE;
    }
  if (!JSON_NODE_HOLDS_OBJECT (root))
    {
      g_printerr (_("“%s” is not a Request Context: it must be a JSON object.\n"), argv[1]);
      return PRS_CTL_EXIT_USAGE;
    }

  fields = prs_context_discover_fields (root);
  json = prs_context_fields_to_json (fields);
  prs_ctl_print_json (json);

  return EXIT_SUCCESS;
}
