/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-ctl-mcp.c: `prosponsive-ctl mcp add|list|test|remove` — the MCP
 * servers from the command line (`test` keeps the tools it lists, as the
 * app does). Header values and secret environment
 * values arrive on standard input only and go to the keyring; nothing here
 * prints one. */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <glib/gi18n.h>

#include "prs-ctl.h"
#include "prs-ctl-mcp-serve.h"
#include "prs-error.h"
#include "prs-mcp-catalog.h"
#include "prs-mcp-servers.h"
#include "prs-secrets.h"
#include "prs-store.h"

#define MAX_STDIN_SIZE (64 * 1024)
/* How much of a tool's description `mcp test` prints. */
#define DESCRIPTION_CHARS 200

/* The store for @create, `add`, made on first use; for the other verbs
 * the data folder must hold it (prs_ctl_open_existing_store) */
static gboolean
open_servers (PrsCtl         *ctl,
              gboolean        create,
              PrsStore      **out_store,
              PrsMcpServers **out_servers,
              GError        **error)
{
  g_autoptr(PrsSecrets) secrets = NULL;

  *out_store = create ? prs_ctl_open_store (ctl, error) : prs_ctl_open_existing_store (ctl, error);
  if (*out_store == NULL)
    return FALSE;
  secrets = prs_secrets_new (ctl->data_dir);
  *out_servers = prs_mcp_servers_new (*out_store, secrets);
  return TRUE;
}

/* ---------------------------------------------------------------- add */

/* Standard input as lines of NAME<separator>value: names into @names,
 * values into @values. */
static gboolean
read_secret_lines (char          separator,
                   GStrvBuilder *names,
                   GStrvBuilder *values,
                   GError      **error)
{
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  gsize len = 0;
  guint n = 0;

  if (!prs_ctl_read_input (NULL, MAX_STDIN_SIZE, &text, &len, error))
    return FALSE;
  lines = g_strsplit (text, "\n", -1);
  memset (text, 0, len);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      char *line = g_strstrip (lines[i]);
      char *sep = strchr (line, separator);

      if (line[0] == '\0')
        continue;
      if (sep == NULL || sep == line || !g_utf8_validate (line, -1, NULL))
        {
          g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                       separator == ':' ? _("Line %u of standard input is not “Name: value”.")
                                        : _("Line %u of standard input is not “NAME=value”."), i + 1);
          return FALSE;
        }
      *sep = '\0';
      g_strv_builder_add (names, g_strstrip (line));
      g_strv_builder_add (values, g_strstrip (sep + 1));
      memset (sep + 1, 0, strlen (sep + 1));
      n++;
    }
  if (n == 0)
    {
      g_set_error_literal (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT, _("Nothing arrived on standard input."));
      return FALSE;
    }
  return TRUE;
}

static void
wipe_strv (char **strv)
{
  for (guint i = 0; strv != NULL && strv[i] != NULL; i++)
    memset (strv[i], 0, strlen (strv[i]));
}

typedef struct
{
  char     *name;
  char     *command;
  char    **args;
  char    **env;
  char     *url;
  gboolean  header_stdin;
  gboolean  env_stdin;
  gboolean  disabled;
  gboolean  shared;
} AddOptions;

static int
mcp_add (PrsCtl         *ctl,
         GOptionContext *context,
         AddOptions     *options)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsStore) store = NULL;
  g_autoptr(PrsMcpServers) servers = NULL;
  g_autoptr(GStrvBuilder) names = g_strv_builder_new ();
  g_autoptr(GStrvBuilder) values = g_strv_builder_new ();
  g_auto(GStrv) secret_names = NULL;
  g_auto(GStrv) secret_values = NULL;
  g_autofree char *id = NULL;
  gboolean http = options->url != NULL;
  PrsMcpServerRow row = { 0 };
  gboolean ok;

  if (options->name == NULL || (options->command == NULL) == (options->url == NULL))
    return prs_ctl_usage_error (context, _("mcp add needs --name and either --command or --url."));
  if ((http && (options->args != NULL || options->env != NULL || options->env_stdin)) ||
      (!http && options->header_stdin))
    return prs_ctl_usage_error (context, _("--arg, --env and --env-stdin go with --command; --header-stdin goes with --url."));

  if ((options->header_stdin || options->env_stdin) &&
      !read_secret_lines (options->header_stdin ? ':' : '=', names, values, &error))
    {
      g_printerr ("%s\n", error->message);
      return PRS_CTL_EXIT_USAGE;
    }
  secret_names = g_strv_builder_end (names);
  secret_values = g_strv_builder_end (values);

  row.name = options->name;
  row.transport = (char *) (http ? "http" : "stdio");
  row.command = options->command;
  row.args = options->args;
  row.env = options->env;
  row.url = options->url;
  row.header_names = http ? secret_names : NULL;
  row.secret_env = http ? NULL : secret_names;
  row.enabled = !options->disabled;
  row.shared = options->shared;

  if (!open_servers (ctl, TRUE, &store, &servers, &error))
    {
      g_printerr ("%s\n", error->message);
      return PRS_CTL_EXIT_NEGATIVE;
    }
  ok = prs_mcp_servers_add (servers, &row,
                            http ? (const char * const *) secret_values : NULL,
                            http ? NULL : (const char * const *) secret_values, &id, &error);
  wipe_strv (secret_values);
  if (!ok)
    {
      g_printerr (_("Could not add the MCP server: %s\n"), error->message);
      return g_error_matches (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT) ? PRS_CTL_EXIT_USAGE
                                                                          : PRS_CTL_EXIT_NEGATIVE;
    }

  g_print (_("Added the MCP server “%s” (%s). Try it with “prosponsive-ctl mcp test %s”.\n"),
           options->name, id, options->name);
  return EXIT_SUCCESS;
}

/* ---------------------------------------------------------------- list */

static JsonNode *
strv_node (char **strv)
{
  JsonArray *array = json_array_new ();
  JsonNode *node = json_node_new (JSON_NODE_ARRAY);

  for (guint i = 0; strv != NULL && strv[i] != NULL; i++)
    json_array_add_string_element (array, strv[i]);
  json_node_take_array (node, array);
  return node;
}

static JsonObject *
row_to_json (const PrsMcpServerRow *row)
{
  JsonObject *object = json_object_new ();

  json_object_set_string_member (object, "id", row->id);
  json_object_set_string_member (object, "name", row->name);
  json_object_set_string_member (object, "transport", row->transport);
  if (row->command != NULL)
    {
      json_object_set_string_member (object, "command", row->command);
      json_object_set_member (object, "args", strv_node (row->args));
      json_object_set_member (object, "env", strv_node (row->env));
      /* Names only: the values are in the keyring */
      json_object_set_member (object, "secretEnv", strv_node (row->secret_env));
    }
  if (row->url != NULL)
    {
      json_object_set_string_member (object, "url", row->url);
      json_object_set_member (object, "headers", strv_node (row->header_names));
    }
  json_object_set_boolean_member (object, "enabled", row->enabled);
  json_object_set_boolean_member (object, "shared", row->shared);
  json_object_set_string_member (object, "createdAt", row->created_at);
  return object;
}

static char *
describe_row (const PrsMcpServerRow *row)
{
  g_autofree char *args = row->args != NULL ? g_strjoinv (" ", row->args) : g_strdup ("");

  if (row->url != NULL)
    return g_strdup_printf ("HTTP %s", row->url);
  return g_strdup_printf ("stdio: %s%s%s", row->command, args[0] != '\0' ? " " : "", args);
}

static int
mcp_list (PrsCtl   *ctl,
          gboolean  json)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsStore) store = prs_ctl_open_existing_store (ctl, &error);
  g_autoptr(GPtrArray) rows = store != NULL ? prs_store_list_mcp_servers (store, &error) : NULL;
  g_autoptr(JsonArray) array = json_array_new ();

  if (rows == NULL)
    {
      g_printerr ("%s\n", error->message);
      return PRS_CTL_EXIT_NEGATIVE;
    }
  if (!json && rows->len == 0)
    g_print (_("No MCP servers. Add one with “mcp add”.\n"));

  for (guint i = 0; i < rows->len; i++)
    {
      PrsMcpServerRow *row = g_ptr_array_index (rows, i);
      g_autofree char *what = describe_row (row);
      g_autofree char *secrets = NULL;

      if (json)
        {
          json_array_add_object_element (array, row_to_json (row));
          continue;
        }
      secrets = g_strjoinv (", ", row->url != NULL ? row->header_names : row->secret_env);
      g_print ("%s — %s%s%s\n", row->name, what, row->enabled ? "" : _(", disabled"),
               row->shared ? _(", shared with MCP clients") : "");
      if (secrets[0] != '\0')
        /* Translators: %s is a list of header or environment variable names */
        g_print (_("  secrets in the keyring: %s\n"), secrets);
    }

  if (json)
    {
      g_autoptr(JsonNode) node = json_node_new (JSON_NODE_ARRAY);

      json_node_set_array (node, array);
      prs_ctl_print_json (node);
    }
  return EXIT_SUCCESS;
}

/* ---------------------------------------------------------------- remove */

static int
mcp_remove (PrsCtl     *ctl,
            const char *name)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsStore) store = NULL;
  g_autoptr(PrsMcpServers) servers = NULL;

  if (!open_servers (ctl, FALSE, &store, &servers, &error) || !prs_mcp_servers_remove (servers, name, &error))
    {
      g_printerr ("%s\n", error->message);
      return PRS_CTL_EXIT_NEGATIVE;
    }
  g_print (_("Removed the MCP server “%s” and its secrets.\n"), name);
  return EXIT_SUCCESS;
}

/* ---------------------------------------------------------------- test */

typedef struct
{
  GMainLoop    *loop;
  GAsyncResult *result;
} Wait;

static void
on_connected (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  Wait *wait = user_data;

  wait->result = g_object_ref (result);
  g_main_loop_quit (wait->loop);
}

/* "text (string, required), count (integer)" from an input schema. */
static char *
summarize_schema (JsonNode *schema)
{
  g_autoptr(GString) out = g_string_new (NULL);
  JsonObject *object = json_node_get_object (schema);
  JsonObject *properties = NULL;
  JsonArray *required = NULL;
  g_autoptr(GList) names = NULL;

  if (json_object_has_member (object, "properties") &&
      JSON_NODE_HOLDS_OBJECT (json_object_get_member (object, "properties")))
    properties = json_object_get_object_member (object, "properties");
  if (json_object_has_member (object, "required") &&
      JSON_NODE_HOLDS_ARRAY (json_object_get_member (object, "required")))
    required = json_object_get_array_member (object, "required");
  if (properties == NULL)
    return g_strdup (_("none"));

  names = json_object_get_members (properties);
  for (GList *l = names; l != NULL; l = l->next)
    {
      JsonNode *property = json_object_get_member (properties, l->data);
      const char *type = NULL;
      gboolean is_required = FALSE;

      if (JSON_NODE_HOLDS_OBJECT (property))
        type = json_object_get_string_member_with_default (json_node_get_object (property), "type", NULL);
      for (guint i = 0; required != NULL && i < json_array_get_length (required); i++)
        is_required = is_required || g_strcmp0 (json_array_get_string_element (required, i), l->data) == 0;
      g_string_append_printf (out, "%s%s (%s%s)", out->len > 0 ? ", " : "", (char *) l->data,
                              type != NULL ? type : "any", is_required ? _(", required") : "");
    }
  return out->len > 0 ? g_string_free (g_steal_pointer (&out), FALSE) : g_strdup (_("none"));
}

static void
print_test_text (PrsMcpClient *client)
{
  JsonObject *info = json_node_get_object (prs_mcp_client_get_server_info (client));
  GPtrArray *tools = prs_mcp_client_get_tools (client);
  const char *instructions = prs_mcp_client_get_instructions (client);

  /* Translators: the server's name and version as it reports them, then the protocol revision */
  g_print (_("Connected to %s %s (MCP revision %s).\n"),
           json_object_get_string_member_with_default (info, "name", "?"),
           json_object_get_string_member_with_default (info, "version", "?"),
           prs_mcp_client_get_protocol_version (client));
  if (instructions != NULL)
    /* Translators: %u is a number of characters */
    g_print (_("It sends instructions (%u characters), which no model is shown.\n"),
             (guint) g_utf8_strlen (instructions, -1));
  g_print (g_dngettext (GETTEXT_PACKAGE, "%u tool:\n", "%u tools:\n", tools->len), tools->len);
  for (guint i = 0; i < tools->len; i++)
    {
      const PrsMcpTool *tool = g_ptr_array_index (tools, i);
      g_autofree char *params = summarize_schema (tool->input_schema);
      g_autofree char *description = g_utf8_substring (tool->description, 0,
                                                       MIN (g_utf8_strlen (tool->description, -1), DESCRIPTION_CHARS));

      g_print ("  %s — %s\n", tool->exposed_name, description);
      /* Translators: %s is the tool's name on its server, then a list of parameters */
      g_print (_("    on the server: “%s”; parameters: %s\n"), tool->name, params);
      if (tool->name_note != NULL)
        /* Translators: %s says why the name has a suffix */
        g_print (_("    renamed: %s\n"), tool->name_note);
    }
  if (prs_mcp_client_get_tools_truncated (client))
    g_print (_("The server lists more tools; only the first %u are used.\n"), PRS_MCP_MAX_TOOLS);
}

static void
print_test_json (PrsMcpClient *client)
{
  g_autoptr(JsonObject) object = json_object_new ();
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
  JsonArray *tools = json_array_new ();
  GPtrArray *list = prs_mcp_client_get_tools (client);

  for (guint i = 0; i < list->len; i++)
    json_array_add_element (tools, prs_mcp_tool_to_json (g_ptr_array_index (list, i)));
  json_object_set_member (object, "serverInfo", json_node_copy (prs_mcp_client_get_server_info (client)));
  json_object_set_string_member (object, "protocolVersion", prs_mcp_client_get_protocol_version (client));
  if (prs_mcp_client_get_instructions (client) != NULL)
    json_object_set_string_member (object, "instructions", prs_mcp_client_get_instructions (client));
  json_object_set_array_member (object, "tools", tools);
  json_object_set_boolean_member (object, "truncated", prs_mcp_client_get_tools_truncated (client));
  json_node_set_object (node, object);
  prs_ctl_print_json (node);
}

/* The names of the stored n8n tools: an MCP tool never takes one. */
static char **
n8n_tool_names (PrsStore *store)
{
  g_autoptr(GPtrArray) tools = prs_store_list_tools (store, NULL);
  g_autoptr(GStrvBuilder) names = g_strv_builder_new ();

  for (guint i = 0; tools != NULL && i < tools->len; i++)
    g_strv_builder_add (names, ((PrsTool *) g_ptr_array_index (tools, i))->name);
  return g_strv_builder_end (names);
}

static int
mcp_test (PrsCtl     *ctl,
          const char *name,
          gboolean    json)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsStore) store = NULL;
  g_autoptr(PrsMcpServers) servers = NULL;
  g_autoptr(PrsMcpServerRow) row = NULL;
  g_autoptr(PrsMcpClient) client = NULL;
  g_auto(GStrv) reserved = NULL;
  g_autofree char *what = NULL;
  Wait wait = { NULL, NULL };
  int status = EXIT_SUCCESS;

  if (!open_servers (ctl, FALSE, &store, &servers, &error) ||
      (row = prs_store_lookup_mcp_server (store, name, &error)) == NULL)
    {
      g_printerr ("%s\n", error != NULL ? error->message : _("There is no such MCP server."));
      return PRS_CTL_EXIT_NEGATIVE;
    }
  reserved = n8n_tool_names (store);
  client = prs_mcp_servers_create_client (servers, row, (const char * const *) reserved, &error);
  if (client == NULL)
    {
      g_printerr ("%s\n", error->message);
      return PRS_CTL_EXIT_NEGATIVE;
    }
  prs_mcp_client_set_auto_restart (client, FALSE);

  what = describe_row (row);
  if (!json)
    g_print (_("Testing the MCP server “%s” (%s)…\n"), row->name, what);

  wait.loop = g_main_loop_new (NULL, FALSE);
  prs_mcp_client_connect_async (client, NULL, on_connected, &wait);
  g_main_loop_run (wait.loop);
  if (!prs_mcp_client_connect_finish (client, wait.result, &error))
    {
      g_printerr ("%s\n", error->message);
      status = PRS_CTL_EXIT_NEGATIVE;
    }
  else
    {
      /* Kept as listed, as the app keeps them: `tools` shows them, and
       * agents may use them before the app has connected */
      if (!prs_mcp_catalog_save (store, row->id, prs_mcp_client_get_tools (client), &error))
        {
          g_printerr (_("Could not keep the server's tools: %s\n"), error->message);
          g_clear_error (&error);
        }
      if (json)
        print_test_json (client);
      else
        print_test_text (client);
    }

  prs_mcp_client_close (client);
  g_object_unref (wait.result);
  g_main_loop_unref (wait.loop);
  return status;
}

/* ---------------------------------------------------------------- mcp */

int
prs_ctl_cmd_mcp (PrsCtl  *ctl,
                 int      argc,
                 char   **argv)
{
  AddOptions add = { 0 };
  gboolean json = FALSE;
  GOptionEntry entries[] = {
    { "name", 0, 0, G_OPTION_ARG_STRING, &add.name, N_("add: a name for the server (it starts its tools' names)"), N_("NAME") },
    { "command", 0, 0, G_OPTION_ARG_STRING, &add.command, N_("add: the program that runs a stdio server (no shell)"), N_("CMD") },
    { "arg", 0, 0, G_OPTION_ARG_STRING_ARRAY, &add.args, N_("add: an argument of the command (repeat it; or put them after --)"), N_("ARG") },
    { "env", 0, 0, G_OPTION_ARG_STRING_ARRAY, &add.env, N_("add: an environment variable for the command (repeat it)"), N_("NAME=VALUE") },
    { "env-stdin", 0, 0, G_OPTION_ARG_NONE, &add.env_stdin, N_("add: read secret NAME=value lines from standard input (kept in the keyring)"), NULL },
    { "url", 0, 0, G_OPTION_ARG_STRING, &add.url, N_("add: the address of a Streamable HTTP server"), N_("URL") },
    { "header-stdin", 0, 0, G_OPTION_ARG_NONE, &add.header_stdin, N_("add: read “Name: value” header lines from standard input (kept in the keyring)"), NULL },
    { "disabled", 0, 0, G_OPTION_ARG_NONE, &add.disabled, N_("add: add it switched off"), NULL },
    { "shared", 0, 0, G_OPTION_ARG_NONE, &add.shared, N_("add: offer its tools to other MCP clients through “mcp serve”"), NULL },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("list, test: print JSON"), NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context =
    g_option_context_new (_("add|list|test NAME|remove NAME — the MCP servers whose tools agents can use"));
  g_autoptr(GError) error = NULL;
  g_autoptr(GStrvBuilder) args = g_strv_builder_new ();
  int status;
  int n = argc;

  /* Serving other MCP clients has options of its own */
  if (argc >= 2 && (g_str_equal (argv[1], "serve") || g_str_equal (argv[1], "approve") ||
                    g_str_equal (argv[1], "deny")))
    return prs_ctl_cmd_mcp_serve (ctl, argc, argv);

  g_option_context_set_summary (context, _("Also “mcp serve”, “mcp approve CALL” and “mcp deny CALL”, "
                                           "each with its own --help."));
  /* Everything after "--" is the command's own arguments */
  for (int i = 1; i < argc; i++)
    {
      if (g_str_equal (argv[i], "--"))
        {
          g_strv_builder_addv (args, (const char **) argv + i + 1);
          n = i;
          break;
        }
    }
  argv[n] = NULL;

  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  if (!g_option_context_parse (context, &n, &argv, &error))
    status = prs_ctl_usage_error (context, error->message);
  else if (n < 2)
    status = prs_ctl_usage_error (context, _("Say what to do: add, list, test or remove."));
  else if (g_str_equal (argv[1], "add") && n == 2)
    {
      if (add.args != NULL)
        g_strv_builder_addv (args, (const char **) add.args);
      g_strfreev (add.args);
      add.args = g_strv_builder_end (args);
      if (add.args[0] == NULL)
        g_clear_pointer (&add.args, g_strfreev);
      status = mcp_add (ctl, context, &add);
    }
  else if (g_str_equal (argv[1], "list") && n == 2)
    status = mcp_list (ctl, json);
  else if (g_str_equal (argv[1], "test") && n == 3)
    status = mcp_test (ctl, argv[2], json);
  else if (g_str_equal (argv[1], "remove") && n == 3)
    status = mcp_remove (ctl, argv[2]);
  else
    status = prs_ctl_usage_error (context, _("Use “mcp add …”, “mcp list [--json]”, “mcp test NAME [--json]” "
                                             "or “mcp remove NAME”."));

  g_free (add.name);
  g_free (add.command);
  g_strfreev (add.args);
  g_strfreev (add.env);
  g_free (add.url);
  return status;
}
