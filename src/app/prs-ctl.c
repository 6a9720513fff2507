/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-ctl.c: prosponsive-ctl, the core's functions for workflow authors and
 * scripts (docs/ctl.md). Exit codes: 0 success, 1 a negative answer or a
 * failed operation, 2 bad usage or unreadable input, 75 (EX_TEMPFAIL) the
 * database stayed busy: try again. */
#include "config.h"

#include <locale.h>
#include <stdio.h>
#include <string.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <gio/gunixinputstream.h>

#include "prs-api-token.h"
#include "prs-checklist.h"
#include "prs-control-chars.h"
#include "prs-ctl.h"
#include "prs-ctl-api.h"
#include "prs-discovery.h"
#include "prs-error.h"
#include "prs-http-request.h"
#include "prs-json.h"
#include "prs-mcp-catalog.h"
#include "prs-paths.h"
#include "prs-secrets.h"
#include "prs-store.h"
#include "prs-tls.h"
#include "prs-workflow.h"

#define EXIT_NEGATIVE PRS_CTL_EXIT_NEGATIVE
#define EXIT_USAGE    PRS_CTL_EXIT_USAGE


typedef PrsCtl Ctl;

void
prs_ctl_print_json (JsonNode *node)
{
  g_autofree char *text = prs_json_to_string (node, TRUE);

  g_print ("%s\n", text);
}

int
prs_ctl_exit_status (const GError *error)
{
  return g_error_matches (error, PRS_ERROR, PRS_ERROR_STORE_BUSY) ? PRS_CTL_EXIT_BUSY : EXIT_NEGATIVE;
}

int
prs_ctl_fail (const GError *error)
{
  g_printerr ("%s\n", error->message);
  return prs_ctl_exit_status (error);
}

int
prs_ctl_usage_error (GOptionContext *context,
                     const char     *message)
{
  g_autofree char *help = g_option_context_get_help (context, TRUE, NULL);

  g_printerr ("%s\n\n%s", message, help);
  return EXIT_USAGE;
}

gboolean
prs_ctl_read_input (const char  *path,
                    gsize        max_bytes,
                    char       **out_contents,
                    gsize       *out_length,
                    GError     **error)
{
  g_autoptr(GInputStream) in = NULL;
  g_autoptr(GByteArray) buffer = g_byte_array_new ();
  guint8 chunk[65536];
  gssize n;

  if (path == NULL || g_str_equal (path, "-"))
    in = g_unix_input_stream_new (0, FALSE);
  else
    {
      g_autoptr(GFile) file = g_file_new_for_commandline_arg (path);

      in = G_INPUT_STREAM (g_file_read (file, NULL, error));
      if (in == NULL)
        return FALSE;
    }

  while ((n = g_input_stream_read (in, chunk, sizeof chunk, NULL, error)) > 0)
    {
      if (buffer->len + (gsize) n > max_bytes)
        {
          g_autofree char *size = g_format_size_full (max_bytes, G_FORMAT_SIZE_IEC_UNITS);

          /* Translators: %s is a size such as "4.0 MiB" */
          g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                       _("The input is larger than %s."), size);
          return FALSE;
        }
      g_byte_array_append (buffer, chunk, n);
    }
  if (n < 0)
    return FALSE;

  *out_length = buffer->len;
  g_byte_array_append (buffer, (const guint8 *) "", 1);
  *out_contents = (char *) g_byte_array_free (g_steal_pointer (&buffer), FALSE);

  return TRUE;
}

static void
say_updating (double   fraction,
              gpointer user_data)
{
  gboolean *said = user_data;

  if (*said)
    return;
  *said = TRUE;
  g_printerr ("%s\n", _("Updating the database…"));
}

PrsStore *
prs_ctl_open_store (PrsCtl  *ctl,
                    GError **error)
{
  gboolean said = FALSE;

  return prs_store_new_with_progress (ctl->data_dir, say_updating, &said, error);
}

/* The store's "no data in FOLDER", and what to do about it */
static void
propagate_not_found (GError **error,
                     GError  *local)
{
  if (g_error_matches (local, PRS_ERROR, PRS_ERROR_NOT_FOUND))
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_NOT_FOUND, "%s %s", local->message,
                   _("Check --data-dir, or start Prosponsive once to create it."));
      g_error_free (local);
    }
  else
    g_propagate_error (error, local);
}

gboolean
prs_ctl_check_existing_data (PrsCtl  *ctl,
                             GError **error)
{
  GError *local = NULL;

  if (prs_store_check_existing (ctl->data_dir, &local))
    return TRUE;
  propagate_not_found (error, local);
  return FALSE;
}

PrsStore *
prs_ctl_open_existing_store (PrsCtl  *ctl,
                             GError **error)
{
  GError *local = NULL;
  gboolean said = FALSE;
  PrsStore *store = prs_store_new_existing (ctl->data_dir, say_updating, &said, &local);

  if (store == NULL)
    propagate_not_found (error, local);
  return store;
}

/* ---------------------------------------------------------------- check-workflow */

static void
print_tool_text (const PrsTool *tool)
{
  g_print (_("Tool: %s\n"), tool->name);
  g_print (_("Description (%s): %s\n"),
           prs_description_source_to_string (tool->description_source), tool->description);
  if (tool->webhook_path != NULL)
    g_print (_("Webhook: %s /%s (response mode %s)\n"),
             tool->webhook_method, tool->webhook_path, tool->response_mode);

  if (tool->params->len == 0)
    g_print (_("Parameters: none\n"));
  else
    g_print (_("Parameters:\n"));

  for (guint i = 0; i < tool->params->len; i++)
    {
      const PrsParam *param = g_ptr_array_index (tool->params, i);
      g_autofree char *def = NULL;

      if (param->default_value != NULL)
        def = prs_json_to_string (param->default_value, FALSE);

      g_print ("  %s (%s%s%s%s) — %s\n", param->name,
               prs_param_type_to_string (param->type),
               param->required ? _(", required") : "",
               def != NULL ? _(", default ") : "",
               def != NULL ? def : "",
               param->description);
    }
}

static int
cmd_check_workflow (Ctl   *ctl,
                    int    argc,
                    char **argv)
{
  gboolean json = FALSE;
  GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print the result as JSON"), NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new (_("FILE.json — check an exported workflow, offline"));
  g_autoptr(GError) error = NULL;
  g_autofree char *contents = NULL;
  gsize length = 0;
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(PrsWorkflow) workflow = NULL;
  g_autoptr(PrsAnalysis) analysis = NULL;
  g_autoptr(JsonNode) checks = NULL;

  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return prs_ctl_usage_error (context, error->message);
  if (argc != 2)
    return prs_ctl_usage_error (context, _("check-workflow takes exactly one file."));

  if (!prs_ctl_read_input (argv[1], PRS_WORKFLOW_MAX_BYTES, &contents, &length, &error))
    {
      g_printerr (_("Could not read “%s”: %s\n"), argv[1], error->message);
      return EXIT_USAGE;
    }

  root = prs_json_parse_bounded (contents, length, PRS_JSON_DEFAULT_MAX_DEPTH, &error);
  if (root != NULL)
    workflow = prs_workflow_new_from_json (root, &error);
  if (workflow == NULL)
    {
      g_printerr (_("“%s” is not an n8n workflow: %s\n"), argv[1], error->message);
      return EXIT_USAGE;
    }

  analysis = prs_analysis_new (g_steal_pointer (&workflow));
  checks = prs_analysis_build_checks (analysis);

  if (json)
    {
      g_autoptr(JsonObject) object = json_object_new ();
      g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);

      json_object_set_boolean_member (object, "discoverable", analysis->discoverable);
      json_object_set_member (object, "tool", prs_tool_to_json (analysis->tool));
      json_object_set_member (object, "checks", json_node_ref (checks));
      json_node_set_object (node, object);
      prs_ctl_print_json (node);
    }
  else
    {
      JsonArray *array = json_node_get_array (checks);

      g_print (_("Workflow “%s”\n"), analysis->workflow->name);
      for (guint i = 0; i < json_array_get_length (array); i++)
        {
          JsonObject *check = json_array_get_object_element (array, i);
          const char *status = json_object_get_string_member (check, "status");
          const char *mark = g_str_equal (status, "pass") ? "✔" : g_str_equal (status, "warn") ? "⚠" : "✘";

          g_print ("  %s %-13s %s\n", mark, json_object_get_string_member (check, "id"),
                   json_object_get_string_member (check, "message"));
        }
      g_print ("\n");
      print_tool_text (analysis->tool);
      g_print ("\n%s\n", analysis->discoverable ? _("Prosponsive discovers this workflow as a tool.")
                                                : _("Prosponsive does not discover this workflow as a tool."));
    }

  return analysis->discoverable ? EXIT_SUCCESS : EXIT_NEGATIVE;
}

/* ---------------------------------------------------------------- n8n set */

char *
prs_ctl_read_stdin_secret (const char  *missing,
                           GError     **error)
{
  g_autoptr(GInputStream) in = g_unix_input_stream_new (0, FALSE);
  g_autoptr(GByteArray) buffer = g_byte_array_new ();
  guint8 chunk[4096];
  gssize n;
  char *secret;

  while ((n = g_input_stream_read (in, chunk, sizeof chunk, NULL, error)) > 0)
    {
      g_byte_array_append (buffer, chunk, n);
      if (buffer->len > 64 * 1024)
        {
          memset (buffer->data, 0, buffer->len);
          memset (chunk, 0, sizeof chunk);
          g_set_error_literal (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                               _("The key on standard input is longer than 64 KiB."));
          return NULL;
        }
    }
  /* Nothing of a key stays behind in memory we give back */
  memset (chunk, 0, sizeof chunk);
  if (n < 0)
    {
      memset (buffer->data, 0, buffer->len);
      return NULL;
    }

  g_byte_array_append (buffer, (const guint8 *) "", 1);
  secret = g_strstrip ((char *) g_byte_array_free (g_steal_pointer (&buffer), FALSE));
  if (secret[0] == '\0' || !g_utf8_validate (secret, -1, NULL))
    {
      memset (secret, 0, strlen (secret));
      g_free (secret);
      g_set_error_literal (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT, missing);
      return NULL;
    }

  return secret;
}

static gboolean
validate_n8n_url (const char  *url,
                  GError     **error)
{
  g_autoptr(GUri) uri = g_uri_parse (url, G_URI_FLAGS_NONE, NULL);
  const char *scheme = uri != NULL ? g_uri_get_scheme (uri) : NULL;

  if (uri == NULL || (g_strcmp0 (scheme, "http") != 0 && g_strcmp0 (scheme, "https") != 0) ||
      g_uri_get_host (uri) == NULL || g_uri_get_host (uri)[0] == '\0')
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                   _("“%s” is not an http:// or https:// address of an n8n instance."), url);
      return FALSE;
    }

  return TRUE;
}

/* n8n webhook-auth --header NAME --value-stdin | --clear: the Header Auth
 * that tool webhooks expect (docs/workflows.md). The name goes to the store, the
 * value to the keyring. */
static int
cmd_n8n_webhook_auth (Ctl   *ctl,
                      int    argc,
                      char **argv)
{
  g_autofree char *header = NULL;
  gboolean value_stdin = FALSE;
  gboolean clear = FALSE;
  GOptionEntry entries[] = {
    { "header", 0, 0, G_OPTION_ARG_STRING, &header, N_("The header n8n's Header Auth credential checks, e.g. X-Prosponsive-Key"), N_("NAME") },
    { "value-stdin", 0, 0, G_OPTION_ARG_NONE, &value_stdin, N_("Read the header's value from standard input"), NULL },
    { "clear", 0, 0, G_OPTION_ARG_NONE, &clear, N_("Stop sending a Header Auth to tool webhooks"), NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new (_("webhook-auth — the Header Auth sent to tool webhooks"));
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsStore) store = NULL;
  g_autoptr(PrsSecrets) secrets = NULL;
  g_autofree char *value = NULL;

  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return prs_ctl_usage_error (context, error->message);
  if (argc != 2 || (!clear && (header == NULL || !value_stdin)) || (clear && (header != NULL || value_stdin)))
    return prs_ctl_usage_error (context, _("Use “n8n webhook-auth --header NAME --value-stdin” or “n8n webhook-auth --clear”."));
  if (header != NULL && !prs_http_is_header_name (header))
    {
      g_printerr (_("“%s” is not a valid HTTP header name.\n"), header);
      return EXIT_USAGE;
    }
  if (value_stdin && (value = prs_ctl_read_stdin_secret (_("No header value arrived on standard input."), &error)) == NULL)
    {
      g_printerr ("%s\n", error->message);
      return EXIT_USAGE;
    }

  if ((store = prs_ctl_open_store (ctl, &error)) == NULL ||
      !prs_store_set_setting (store, PRS_SETTING_WEBHOOK_AUTH_HEADER, header, &error))
    return prs_ctl_fail (error);

  secrets = prs_secrets_new (ctl->data_dir);
  if (clear ? !prs_secrets_clear_sync (secrets, PRS_SECRET_WEBHOOK_AUTH, NULL, &error)
            : !prs_secrets_store_sync (secrets, PRS_SECRET_WEBHOOK_AUTH, _("Prosponsive: n8n webhook Header Auth"),
                                       value, NULL, &error))
    {
      if (value != NULL)
        memset (value, 0, strlen (value));
      return prs_ctl_fail (error);
    }
  if (value != NULL)
    memset (value, 0, strlen (value));

  if (clear)
    g_print (_("Tool webhooks are called without a Header Auth.\n"));
  else
    g_print (_("Tool webhooks are called with the header “%s”; its value is in the keyring.\n"), header);

  return EXIT_SUCCESS;
}

static int
cmd_n8n (Ctl   *ctl,
         int    argc,
         char **argv)
{
  g_autofree char *url = NULL;
  gboolean key_stdin = FALSE;
  GOptionEntry entries[] = {
    { "url", 0, 0, G_OPTION_ARG_STRING, &url, N_("The n8n instance's address, e.g. http://127.0.0.1:5678"), N_("URL") },
    { "api-key-stdin", 0, 0, G_OPTION_ARG_NONE, &key_stdin, N_("Read the n8n API key from standard input"), NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new (_("set — connect to an n8n instance"));
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsStore) store = NULL;
  g_autoptr(PrsSecrets) secrets = NULL;
  g_autofree char *key = NULL;

  if (argc >= 2 && g_strcmp0 (argv[1], "webhook-auth") == 0)
    return cmd_n8n_webhook_auth (ctl, argc, argv);
  if (argc >= 2 && g_strcmp0 (argv[1], "setup") == 0)
    return prs_ctl_cmd_n8n_setup (ctl, argc, argv);

  /* The other verbs parse options of their own: named here, so that
   * `n8n --help` leads to them */
  g_option_context_set_summary (context, _("Also “n8n webhook-auth” and “n8n setup”, each with its own --help."));
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return prs_ctl_usage_error (context, error->message);
  if (argc != 2 || g_strcmp0 (argv[1], "set") != 0)
    return prs_ctl_usage_error (context, _("Use “n8n set --url URL --api-key-stdin”."));
  if (url == NULL && !key_stdin)
    return prs_ctl_usage_error (context, _("Give --url, --api-key-stdin, or both."));

  if (url != NULL && !validate_n8n_url (url, &error))
    {
      g_printerr ("%s\n", error->message);
      return EXIT_USAGE;
    }

  if (key_stdin && (key = prs_ctl_read_stdin_secret (_("No API key arrived on standard input."), &error)) == NULL)
    {
      g_printerr ("%s\n", error->message);
      return EXIT_USAGE;
    }

  if ((store = prs_ctl_open_store (ctl, &error)) == NULL)
    return prs_ctl_fail (error);

  if (url != NULL && !prs_store_set_setting (store, PRS_SETTING_N8N_URL, url, &error))
    return prs_ctl_fail (error);

  if (key != NULL)
    {
      secrets = prs_secrets_new (ctl->data_dir);
      if (!prs_secrets_store_sync (secrets, PRS_SECRET_N8N_API_KEY, _("Prosponsive: n8n API key"),
                                   key, NULL, &error))
        {
          memset (key, 0, strlen (key));
          g_printerr (_("Could not store the API key: %s\n"), error->message);
          return EXIT_NEGATIVE;
        }
      memset (key, 0, strlen (key));
    }

  if (url != NULL)
    g_print (_("n8n: %s\n"), url);
  if (key != NULL)
    g_print ("%s\n", prs_secrets_is_using_fallback (secrets)
                     ? _("The API key is stored in a file readable only by you (no keyring answered).")
                     : _("The API key is stored in the keyring."));

  return EXIT_SUCCESS;
}

/* ---------------------------------------------------------------- discover, tools */

static void
print_tools (GPtrArray *tools,
             gboolean   json)
{
  if (json)
    {
      g_autoptr(JsonArray) array = json_array_new ();
      g_autoptr(JsonNode) node = json_node_new (JSON_NODE_ARRAY);

      for (guint i = 0; i < tools->len; i++)
        json_array_add_element (array, prs_tool_to_json (g_ptr_array_index (tools, i)));
      json_node_set_array (node, array);
      prs_ctl_print_json (node);
      return;
    }

  if (tools->len == 0)
    g_print (_("No tools.\n"));

  for (guint i = 0; i < tools->len; i++)
    {
      const PrsTool *tool = g_ptr_array_index (tools, i);

      if (prs_tool_is_mcp (tool))
        /* Translators: a tool's name, its description, then the MCP server that lists it */
        g_print (_("%s — %s (MCP server “%s”)\n"), tool->name, tool->description, tool->mcp_server);
      else
        g_print ("%s — %s\n", tool->name, tool->description);
    }
}

typedef struct
{
  GMainLoop *loop;
  GPtrArray *tools;
  GError    *error;
} DiscoverWait;

static void
discover_cb (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  DiscoverWait *wait = user_data;

  wait->tools = prs_discovery_run_finish (PRS_DISCOVERY (source), result, &wait->error);
  g_main_loop_quit (wait->loop);
}

static int
cmd_discover (Ctl   *ctl,
              int    argc,
              char **argv)
{
  gboolean json = FALSE;
  GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print the tools as JSON"), NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new (_("— discover tools on the configured n8n now"));
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsStore) store = NULL;
  g_autoptr(PrsSecrets) secrets = NULL;
  g_autoptr(PrsDiscovery) discovery = NULL;
  g_autoptr(GMainLoop) loop = NULL;
  DiscoverWait wait = { 0 };

  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return prs_ctl_usage_error (context, error->message);
  if (argc != 1)
    return prs_ctl_usage_error (context, _("discover takes no arguments."));

  /* Without a database there is no n8n set up to ask */
  if ((store = prs_ctl_open_existing_store (ctl, &error)) == NULL)
    return prs_ctl_fail (error);

  secrets = prs_secrets_new (ctl->data_dir);
  discovery = prs_discovery_new (store, secrets);
  loop = g_main_loop_new (NULL, FALSE);
  wait.loop = loop;
  prs_discovery_run_async (discovery, NULL, discover_cb, &wait);
  g_main_loop_run (loop);

  if (wait.tools == NULL)
    {
      int status = prs_ctl_exit_status (wait.error);

      g_printerr (_("Discovery failed: %s\n"), wait.error->message);
      g_printerr (_("The tools found before are kept.\n"));
      g_clear_error (&wait.error);
      return status;
    }

  print_tools (wait.tools, json);
  g_ptr_array_unref (wait.tools);

  return EXIT_SUCCESS;
}

static int
cmd_tools (Ctl   *ctl,
           int    argc,
           char **argv)
{
  gboolean json = FALSE;
  GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print the tools as JSON"), NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new (_("— the stored tools"));
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsStore) store = NULL;
  g_autoptr(GPtrArray) tools = NULL;
  g_autoptr(GPtrArray) mcp = NULL;

  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return prs_ctl_usage_error (context, error->message);
  if (argc != 1)
    return prs_ctl_usage_error (context, _("tools takes no arguments."));

  /* The MCP servers' as each listed them last (docs/mcp.md), of the
   * servers switched on: the tools agents can use */
  if ((store = prs_ctl_open_existing_store (ctl, &error)) == NULL ||
      (tools = prs_store_list_tools (store, &error)) == NULL ||
      (mcp = prs_mcp_catalog_list (store, TRUE, &error)) == NULL)
    return prs_ctl_fail (error);
  for (guint i = 0; i < mcp->len; i++)
    g_ptr_array_add (tools, g_steal_pointer (&g_ptr_array_index (mcp, i)));

  print_tools (tools, json);

  if (!json)
    {
      gint64 last_attempt = 0, last_success = 0;
      g_autofree char *last_error = NULL;

      prs_store_get_discovery_status (store, &last_attempt, &last_success, &last_error);
      if (last_attempt == 0)
        g_print (_("\nDiscovery has not run yet.\n"));
      else if (last_error != NULL && last_attempt > last_success)
        g_print (_("\nThe last discovery failed: %s\n"), last_error);
    }

  return EXIT_SUCCESS;
}

/* ---------------------------------------------------------------- backup */

static int
cmd_backup (Ctl   *ctl,
            int    argc,
            char **argv)
{
  GOptionEntry entries[] = {
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new (_("FILE — a consistent copy of the database, also while Prosponsive runs"));
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsStore) store = NULL;
  g_autofree char *size = NULL;
  GStatBuf st;

  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_option_context_set_description (context,
    _("The copy holds the conversations and their messages, agent runs and tool calls, agents, "
      "the tools found, AI providers, approval rules and settings. It does not hold the secrets, "
      "which stay in the keyring (or in secrets.json when no keyring answers): the n8n API key, "
      "provider keys, the local API token and the webhook Header Auth value; nor the local API's "
      "certificate.\n\n"
      "To restore: make a new folder, copy FILE into it as prosponsive.db, and start "
      "“prosponsive --data-dir FOLDER”. Give the n8n API key and provider keys again there; "
      "a new API token and certificate are made, so update n8n's “Prosponsive API” credential.\n\n"
      "FILE is written readable only by you; an existing file is replaced, a symbolic link is "
      "refused."));
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return prs_ctl_usage_error (context, error->message);
  if (argc != 2)
    return prs_ctl_usage_error (context, _("backup takes exactly one file."));

  if ((store = prs_ctl_open_existing_store (ctl, &error)) == NULL ||
      !prs_store_backup (store, argv[1], &error))
    return prs_ctl_fail (error);

  size = g_stat (argv[1], &st) == 0 ? g_format_size (st.st_size) : g_strdup ("?");
  /* Translators: the first %s is a file name, the second a size such as "1.2 MB" */
  g_print (_("Backed up the database to “%s” (%s).\n"), argv[1], size);
  return EXIT_SUCCESS;
}

/* ---------------------------------------------------------------- token */

static int
cmd_token (Ctl   *ctl,
           int    argc,
           char **argv)
{
  gboolean rotate = FALSE;
  GOptionEntry entries[] = {
    { "rotate", 0, 0, G_OPTION_ARG_NONE, &rotate, N_("Replace the token; the old one stops working at once"), NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new (_("— print the local API's token"));
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsSecrets) secrets = NULL;
  g_autofree char *token = NULL;
  gboolean ok;

  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return prs_ctl_usage_error (context, error->message);
  if (argc != 1)
    return prs_ctl_usage_error (context, _("token takes no arguments."));

  if (!prs_paths_ensure_data_dir (ctl->data_dir, &error))
    return prs_ctl_fail (error);

  secrets = prs_secrets_new (ctl->data_dir);
  if (rotate)
    ok = prs_api_token_rotate (secrets, ctl->data_dir, &token, &error);
  else
    ok = prs_api_token_ensure (secrets, ctl->data_dir, &token, &error);

  if (!ok)
    return prs_ctl_fail (error);

  g_print ("%s\n", token);
  memset (token, 0, strlen (token));
  if (rotate)
    prs_ctl_n8n_note_rotation (ctl);

  return EXIT_SUCCESS;
}

/* ---------------------------------------------------------------- control-key */

/* For curl and scripts of the same user (docs/api.md#deciding-tool-calls):
 * the key is read where the service keeps it, never made here */
static int
cmd_control_key (Ctl   *ctl,
                 int    argc,
                 char **argv)
{
  g_autoptr(GOptionContext) context =
    g_option_context_new (_("— print the control key that deciding tool calls through the local API needs"));
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsSecrets) secrets = NULL;
  g_autofree char *key = NULL;

  if (!g_option_context_parse (context, &argc, &argv, &error))
    return prs_ctl_usage_error (context, error->message);
  if (argc != 1)
    return prs_ctl_usage_error (context, _("control-key takes no arguments."));

  secrets = prs_secrets_new (ctl->data_dir);
  if (!prs_ctl_api_read_control_key (ctl, secrets, &key))
    return EXIT_FAILURE;
  g_print ("%s\n", key);
  memset (key, 0, strlen (key));
  return EXIT_SUCCESS;
}

/* ---------------------------------------------------------------- cert */

static int
cmd_cert (Ctl   *ctl,
          int    argc,
          char **argv)
{
  gboolean pem = FALSE;
  GOptionEntry entries[] = {
    { "pem", 0, 0, G_OPTION_ARG_NONE, &pem, N_("Print the certificate as PEM (for NODE_EXTRA_CA_CERTS)"), NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new (_("— the local API's certificate"));
  g_autoptr(GError) error = NULL;
  g_autoptr(GTlsCertificate) certificate = NULL;
  g_autofree char *text = NULL;

  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return prs_ctl_usage_error (context, error->message);
  if (argc != 1)
    return prs_ctl_usage_error (context, _("cert takes no arguments."));

  /* The same material the running service uses (made on first use). */
  if (!prs_paths_ensure_data_dir (ctl->data_dir, &error) ||
      (certificate = prs_tls_ensure_certificate (ctl->data_dir, &error)) == NULL)
    return prs_ctl_fail (error);

  text = pem ? prs_tls_dup_pem (certificate) : prs_tls_dup_fingerprint (certificate);
  g_print (pem ? "%s" : "%s\n", text);

  return EXIT_SUCCESS;
}

/* ---------------------------------------------------------------- main */

typedef struct
{
  const char *name;
  int (*run) (Ctl *ctl, int argc, char **argv);
  const char *summary;
} Command;

static const Command commands[] = {
  { "agent", prs_ctl_cmd_agent, N_("Import, export or list agents (agent import FILE.md, agent export ID, agent list)") },
  { "approvals", prs_ctl_cmd_approvals, N_("List the tool calls that wait for approval ([--json]), through the running Prosponsive") },
  { "approve", prs_ctl_cmd_approvals, N_("Approve a waiting tool call (approve CALL)") },
  { "backup", cmd_backup, N_("Write a consistent copy of the database to FILE, also while Prosponsive runs") },
  { "cert", cmd_cert, N_("Print the local API certificate's SHA-256 fingerprint (or --pem)") },
  { "check-workflow", cmd_check_workflow, N_("Check an exported workflow (FILE.json) offline") },
  { "control-key", cmd_control_key, N_("Print the control key that deciding tool calls through the local API needs") },
  { "conversation", prs_ctl_cmd_conversation, N_("The conversations (conversation list [--json], rename SLUG NEW, delete SLUG, archive SLUG, pin SLUG)") },
  { "deny", prs_ctl_cmd_approvals, N_("Deny a waiting tool call (deny CALL)") },
  { "discover", cmd_discover, N_("Discover tools on the configured n8n now") },
  { "export", prs_ctl_cmd_export, N_("Write a conversation as Markdown or JSON (export SLUG --format md|json [-o FILE])") },
  { "fields", prs_ctl_cmd_fields, N_("Print the Request Context field paths of a context object (FILE.json)") },
  { "insights", prs_ctl_cmd_insights, N_("Runs, tokens, times and failures per provider and model, agent and tool ([--since today|7d|30d|all] [--json])") },
  { "layout", prs_ctl_cmd_layout, N_("Print the display blocks of a reply text as JSON") },
  { "mcp", prs_ctl_cmd_mcp, N_("MCP servers whose tools agents can use (mcp add --name N --command CMD [--arg A]… | --url URL [--header-stdin]; mcp list, test NAME, remove NAME), and Prosponsive as an MCP server for other clients (mcp serve; mcp approve CALL, deny CALL)") },
  { "n8n", cmd_n8n, N_("Connect to an n8n instance (n8n set --url URL --api-key-stdin; n8n webhook-auth --header NAME --value-stdin; n8n setup [--examples])") },
  { "provider", prs_ctl_cmd_provider, N_("AI providers (provider add --kind K --name N --model M, provider list, set-key NAME, remove NAME, test NAME)") },
  { "rule", prs_ctl_cmd_rule, N_("Auto-approval rules for tool calls (rule add --tool T [--agent A] [--conversation SLUG] --action approve|deny, rule list, rule remove ID)") },
  { "schedule", prs_ctl_cmd_schedule, N_("Scheduled prompts (schedule add --name N --conversation SLUG --agent ID --prompt TEXT --daily 07:30 …; schedule list, run NAME, enable NAME, disable NAME, remove NAME)") },
  { "search", prs_ctl_cmd_search, N_("Find messages in every conversation (search QUERY [--json])") },
  { "token", cmd_token, N_("Print (or --rotate) the local API's token") },
  { "tools", cmd_tools, N_("List the stored tools") },
};

static char *
commands_summary (void)
{
  GString *out = g_string_new (_("Commands:"));

  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    g_string_append_printf (out, "\n  %-16s %s", commands[i].name, _(commands[i].summary));
  g_string_append_printf (out, "\n\n%s",
                          _("Exit status: 0 done, 1 a negative answer or a failed operation, 2 bad usage "
                            "or unreadable input, 75 the database stayed in use by another program "
                            "(try again in a moment)."));

  return g_string_free (out, FALSE);
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *data_dir = NULL;
  GOptionEntry entries[] = {
    { "data-dir", 0, 0, G_OPTION_ARG_FILENAME, &data_dir, N_("Use DIR as the data folder"), N_("DIR") },
    { NULL }
  };
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *summary = NULL;
  Ctl ctl = { 0 };
  int status;

  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);
  /* Everything ctl prints goes through g_print () and g_printerr (): text
   * that came from a workflow (a slug, a title, a tool call's arguments,
   * an agent's prompt) never writes a control character raw, so it cannot
   * redraw the lines a person approves from or write the clipboard. JSON
   * output has them escaped already. */
  prs_text_blank_printed ();

  context = g_option_context_new (_("COMMAND [OPTION…] — Prosponsive from the command line"));
  summary = commands_summary ();
  g_option_context_set_description (context, summary);
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  /* Options after the command belong to the command. */
  g_option_context_set_strict_posix (context, TRUE);

  if (!g_option_context_parse (context, &argc, &argv, &error))
    return prs_ctl_usage_error (context, error->message);
  if (argc < 2)
    return prs_ctl_usage_error (context, _("Name a command."));

  ctl.data_dir = prs_paths_resolve_data_dir (data_dir);

  status = -1;
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    {
      if (g_strcmp0 (argv[1], commands[i].name) == 0)
        {
          /* GOptionContext starts a usage line with the program's name:
           * a command's help and usage errors then name the command too
           * (g_set_prgname () may be called again since GLib 2.72) */
          g_autofree char *prgname = g_strdup_printf ("%s %s", g_get_prgname (), argv[1]);

          g_set_prgname (prgname);
          status = commands[i].run (&ctl, argc - 1, argv + 1);
          break;
        }
    }

  if (status == -1)
    {
      g_autofree char *message = g_strdup_printf (_("Unknown command “%s”."), argv[1]);

      status = prs_ctl_usage_error (context, message);
    }

  g_free (ctl.data_dir);

  return status;
}
