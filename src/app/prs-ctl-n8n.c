/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-ctl-n8n.c: `prosponsive-ctl n8n setup [--examples]`, what the
 * first-run window does on n8n, for a server without a window
 * (docs/email-assistant.md): the "Prosponsive API" credential with the
 * current token (created, reused, or replaced after a rotation, since n8n's
 * API cannot change a credential) and the example workflows; and what
 * `token --rotate` says about that credential. */
#include "config.h"

#include <string.h>
#include <glib/gi18n.h>

#include "prs-api-token.h"
#include "prs-ctl.h"
#include "prs-error.h"
#include "prs-n8n-setup.h"
#include "prs-paths.h"
#include "prs-secrets.h"
#include "prs-store.h"

#define DEFAULT_API_URL "https://127.0.0.1:3100"

typedef struct
{
  char     *api_url;
  char     *agent_id;
  char     *imap_host;
  int       imap_port;
  char     *imap_user;
  gboolean  imap_password_stdin;
  gboolean  examples;
  gboolean  ignore_tls_errors;
  gboolean  json;
} SetupArgs;

/* What was done to the "Prosponsive API" credential */
typedef struct
{
  const char               *action;       /* created, reused, replaced */
  char                     *id;
  char                     *old_id;
  PrsCredentialReplacement *replacement;
} CredentialOutcome;

/* ---------------------------------------------------------------- waiting */

static void
on_done (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  GAsyncResult **out = user_data;

  *out = g_object_ref (result);
}

/* Runs the default main context until the operation that was handed
 * on_done and @slot has finished */
static GAsyncResult *
wait_for (GAsyncResult **slot)
{
  while (*slot == NULL)
    g_main_context_iteration (NULL, TRUE);
  return *slot;
}

/* ---------------------------------------------------------------- the credential */

static gboolean
settle_credential (PrsN8nClient       *client,
                   PrsStore           *store,
                   const char         *token,
                   CredentialOutcome  *outcome,
                   GError            **error)
{
  g_autoptr(GAsyncResult) result = NULL;
  PrsCredentialState state = prs_n8n_setup_credential_state (store, token, &outcome->old_id);

  if (state == PRS_CREDENTIAL_CURRENT)
    {
      outcome->action = "reused";
      outcome->id = g_steal_pointer (&outcome->old_id);
      return TRUE;
    }
  if (state == PRS_CREDENTIAL_NONE)
    {
      outcome->action = "created";
      prs_n8n_setup_create_credential_async (client, token, NULL, on_done, &result);
      outcome->id = prs_n8n_setup_create_credential_finish (client, wait_for (&result), error);
    }
  else
    {
      outcome->action = "replaced";
      prs_n8n_setup_replace_credential_async (client, outcome->old_id, token, NULL, on_done, &result);
      outcome->replacement = prs_n8n_setup_replace_credential_finish (client, wait_for (&result), error);
      if (outcome->replacement != NULL)
        outcome->id = g_strdup (outcome->replacement->id);
    }
  return outcome->id != NULL && prs_n8n_setup_remember_credential (store, outcome->id, token, error);
}

static void
print_credential (const CredentialOutcome *outcome)
{
  const PrsCredentialReplacement *replacement = outcome->replacement;

  if (g_str_equal (outcome->action, "reused"))
    g_print (_("The credential “%s” in n8n (id %s) holds the current token: reused.\n"),
             PRS_N8N_API_CREDENTIAL_NAME, outcome->id);
  else if (g_str_equal (outcome->action, "created"))
    g_print (_("Created the credential “%s” in n8n (id %s) with the current token.\n"),
             PRS_N8N_API_CREDENTIAL_NAME, outcome->id);
  if (replacement == NULL)
    return;

  g_print (_("The credential “%s” in n8n (id %s) held another token, and n8n's API cannot change a "
             "credential: a new one (id %s) holds the current token.\n"),
           PRS_N8N_API_CREDENTIAL_NAME, outcome->old_id, outcome->id);
  for (guint i = 0; i < replacement->repointed->len; i++)
    {
      const PrsWorkflowRef *ref = g_ptr_array_index (replacement->repointed, i);

      g_print (_("  “%s” (id %s) now uses the new one.\n"), ref->name, ref->id);
    }
  if (replacement->old_deleted)
    g_print (_("The old credential is deleted.\n"));
  else
    /* Translators: %s says why (n8n's words) */
    g_print (_("The old credential is kept: %s\n"), replacement->problem);
}

static JsonNode *
credential_json (const CredentialOutcome *outcome)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  const PrsCredentialReplacement *replacement = outcome->replacement;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "name");
  json_builder_add_string_value (builder, PRS_N8N_API_CREDENTIAL_NAME);
  json_builder_set_member_name (builder, "id");
  json_builder_add_string_value (builder, outcome->id);
  json_builder_set_member_name (builder, "action");
  json_builder_add_string_value (builder, outcome->action);
  if (replacement != NULL)
    {
      json_builder_set_member_name (builder, "oldId");
      json_builder_add_string_value (builder, outcome->old_id);
      json_builder_set_member_name (builder, "oldDeleted");
      json_builder_add_boolean_value (builder, replacement->old_deleted);
      json_builder_set_member_name (builder, "problem");
      if (replacement->problem != NULL)
        json_builder_add_string_value (builder, replacement->problem);
      else
        json_builder_add_null_value (builder);
      json_builder_set_member_name (builder, "repointed");
      json_builder_begin_array (builder);
      for (guint i = 0; i < replacement->repointed->len; i++)
        {
          const PrsWorkflowRef *ref = g_ptr_array_index (replacement->repointed, i);

          json_builder_begin_object (builder);
          json_builder_set_member_name (builder, "id");
          json_builder_add_string_value (builder, ref->id);
          json_builder_set_member_name (builder, "name");
          json_builder_add_string_value (builder, ref->name);
          json_builder_end_object (builder);
        }
      json_builder_end_array (builder);
    }
  json_builder_end_object (builder);
  return json_builder_get_root (builder);
}

/* ---------------------------------------------------------------- the examples */

static GPtrArray *
import_examples (PrsN8nClient             *client,
                 const PrsExampleOptions  *options,
                 char                    **out_imap_id,
                 GError                  **error)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_auto(GStrv) templates = prs_n8n_setup_load_examples (error);

  if (templates == NULL)
    return NULL;
  prs_n8n_setup_import_examples_async (client, (const char * const *) templates, options, NULL,
                                       on_done, &result);
  return prs_n8n_setup_import_examples_finish (client, wait_for (&result), out_imap_id, error);
}

static const char *
example_action (const PrsExampleResult *example)
{
  return example->existed ? "existing" : example->id == NULL ? "failed" : "imported";
}

static void
print_examples (GPtrArray            *results,
                const char           *imap_id,
                const PrsImapAccount *account,
                gboolean              ignore_tls_errors)
{
  if (imap_id != NULL)
    /* Translators: the credential's name, its id, the user name, the IMAP server and its port */
    g_print (_("Created the credential “%s” in n8n (id %s) for %s at %s:%u.\n"),
             PRS_N8N_IMAP_CREDENTIAL_NAME, imap_id, account->user, account->host, account->port);
  for (guint i = 0; i < results->len; i++)
    {
      const PrsExampleResult *example = g_ptr_array_index (results, i);

      if (example->id == NULL)
        /* Translators: a workflow's name, then why (n8n's words) */
        g_print (_("“%s”: not imported: %s\n"), example->name, example->message);
      else if (example->message == NULL)
        g_print (_("“%s” (id %s): imported and published.\n"), example->name, example->id);
      else
        /* Translators: a workflow's name, its id, then what happened */
        g_print (_("“%s” (id %s): %s\n"), example->name, example->id, example->message);
    }
  if (!ignore_tls_errors)
    g_print (_("The examples call Prosponsive over HTTPS: n8n must trust its certificate. Start n8n with "
               "NODE_EXTRA_CA_CERTS set to a file that holds what “prosponsive-ctl cert --pem” prints "
               "(or run setup with --ignore-tls-errors).\n"));
}

static JsonNode *
examples_json (GPtrArray *results)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();

  json_builder_begin_array (builder);
  for (guint i = 0; i < results->len; i++)
    {
      const PrsExampleResult *example = g_ptr_array_index (results, i);

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "name");
      json_builder_add_string_value (builder, example->name);
      json_builder_set_member_name (builder, "id");
      if (example->id != NULL)
        json_builder_add_string_value (builder, example->id);
      else
        json_builder_add_null_value (builder);
      json_builder_set_member_name (builder, "action");
      json_builder_add_string_value (builder, example_action (example));
      json_builder_set_member_name (builder, "active");
      json_builder_add_boolean_value (builder, example->active);
      json_builder_set_member_name (builder, "message");
      if (example->message != NULL)
        json_builder_add_string_value (builder, example->message);
      else
        json_builder_add_null_value (builder);
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);
  return json_builder_get_root (builder);
}

static void
print_json (const CredentialOutcome *outcome,
            GPtrArray               *results,
            const char              *imap_id)
{
  g_autoptr(JsonObject) object = json_object_new ();
  g_autoptr(JsonNode) root = json_node_new (JSON_NODE_OBJECT);

  json_object_set_member (object, "credential", credential_json (outcome));
  if (results != NULL)
    {
      if (imap_id != NULL)
        {
          JsonObject *imap = json_object_new ();

          json_object_set_string_member (imap, "name", PRS_N8N_IMAP_CREDENTIAL_NAME);
          json_object_set_string_member (imap, "id", imap_id);
          json_object_set_object_member (object, "imapCredential", imap);
        }
      else
        json_object_set_null_member (object, "imapCredential");
      json_object_set_member (object, "workflows", examples_json (results));
    }
  json_node_set_object (root, object);
  prs_ctl_print_json (root);
}

/* ---------------------------------------------------------------- the command */

/* The checks that need no store, n8n or keyring; a message for the user,
 * or NULL */
static char *
check_args (const SetupArgs *args)
{
  gboolean any_imap = args->imap_host != NULL || args->imap_user != NULL || args->imap_password_stdin;
  g_autoptr(GUri) uri = g_uri_parse (args->api_url, G_URI_FLAGS_NONE, NULL);

  if (uri == NULL || g_strcmp0 (g_uri_get_scheme (uri), "https") != 0 ||
      g_uri_get_host (uri) == NULL || g_uri_get_host (uri)[0] == '\0' ||
      (g_uri_get_path (uri)[0] != '\0' && g_strcmp0 (g_uri_get_path (uri), "/") != 0))
    return g_strdup_printf (_("“%s” is not the https:// address of Prosponsive's API, e.g. %s."),
                            args->api_url, DEFAULT_API_URL);
  if (!args->examples && (any_imap || args->agent_id != NULL || args->ignore_tls_errors))
    return g_strdup (_("--agent, --ignore-tls-errors and the --imap options go with --examples."));
  if (any_imap && (args->imap_host == NULL || args->imap_user == NULL || !args->imap_password_stdin))
    return g_strdup (_("An IMAP account needs --imap-host, --imap-user and --imap-password-stdin."));
  if (args->imap_port < 1 || args->imap_port > 65535)
    return g_strdup (_("--imap-port must be between 1 and 65535."));
  if (args->imap_host != NULL && (args->imap_host[0] == '\0' || strpbrk (args->imap_host, " /:@") != NULL))
    return g_strdup_printf (_("“%s” is not a host name or address."), args->imap_host);
  return NULL;
}

static void
setup_args_clear (SetupArgs *args)
{
  g_free (args->api_url);
  g_free (args->agent_id);
  g_free (args->imap_host);
  g_free (args->imap_user);
}

/* Everything after the arguments: the token, n8n, the credential, the
 * examples, the report. */
static int
run_setup (PrsCtl          *ctl,
           const SetupArgs *args,
           char            *imap_password)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsStore) store = NULL;
  g_autoptr(PrsSecrets) secrets = NULL;
  g_autoptr(PrsN8nClient) client = NULL;
  g_autoptr(PrsAgent) agent = NULL;
  g_autoptr(GPtrArray) results = NULL;
  g_autofree char *token = NULL;
  g_autofree char *imap_id = NULL;
  g_autofree char *base_url = g_str_has_suffix (args->api_url, "/")
                               ? g_strndup (args->api_url, strlen (args->api_url) - 1)
                               : g_strdup (args->api_url);
  CredentialOutcome outcome = { 0 };
  PrsImapAccount account = { args->imap_host, (guint) args->imap_port, args->imap_user, imap_password };
  PrsExampleOptions options = { base_url, NULL, args->agent_id, args->ignore_tls_errors,
                                imap_password != NULL ? &account : NULL };
  gboolean ok;

  if (!prs_paths_ensure_data_dir (ctl->data_dir, &error) ||
      (store = prs_ctl_open_store (ctl, &error)) == NULL)
    return prs_ctl_fail (error);
  if (args->agent_id != NULL && (agent = prs_store_lookup_agent (store, args->agent_id, &error)) == NULL)
    {
      if (!g_error_matches (error, PRS_ERROR, PRS_ERROR_NOT_FOUND))
        return prs_ctl_fail (error);
      /* Translators: %s is an agent's id */
      g_printerr (_("There is no agent “%s”: import it first (prosponsive-ctl agent import FILE.md).\n"),
                  args->agent_id);
      return PRS_CTL_EXIT_NEGATIVE;
    }
  secrets = prs_secrets_new (ctl->data_dir);
  if (!prs_api_token_ensure (secrets, ctl->data_dir, &token, &error))
    return prs_ctl_fail (error);
  client = prs_n8n_setup_dup_client (store, secrets,
                                     _("Connect n8n first: prosponsive-ctl n8n set --url URL --api-key-stdin."),
                                     &error);
  if (client == NULL)
    return prs_ctl_fail (error);
  prs_n8n_client_set_timeout (client, 30);

  ok = settle_credential (client, store, token, &outcome, &error);
  memset (token, 0, strlen (token));
  if (!ok)
    {
      g_printerr (_("Could not set up the credential “%s”: %s\n"), PRS_N8N_API_CREDENTIAL_NAME, error->message);
      g_free (outcome.id);
      g_free (outcome.old_id);
      return prs_ctl_exit_status (error);
    }

  options.credential_id = outcome.id;
  if (args->examples && (results = import_examples (client, &options, &imap_id, &error)) == NULL)
    g_printerr (_("Could not import the example workflows: %s\n"), error->message);

  if (args->json)
    print_json (&outcome, results, imap_id);
  else
    {
      print_credential (&outcome);
      if (results != NULL)
        print_examples (results, imap_id, &account, args->ignore_tls_errors);
    }

  ok = (!args->examples || results != NULL) &&
       (outcome.replacement == NULL || outcome.replacement->problem == NULL);
  for (guint i = 0; results != NULL && i < results->len; i++)
    ok = ok && !((PrsExampleResult *) g_ptr_array_index (results, i))->failed;

  g_free (outcome.id);
  g_free (outcome.old_id);
  prs_credential_replacement_free (outcome.replacement);
  return ok ? EXIT_SUCCESS : PRS_CTL_EXIT_NEGATIVE;
}

int
prs_ctl_cmd_n8n_setup (PrsCtl  *ctl,
                       int      argc,
                       char   **argv)
{
  SetupArgs args = { .imap_port = 993 };
  GOptionEntry entries[] = {
    { "examples", 0, 0, G_OPTION_ARG_NONE, &args.examples, N_("Also import the example workflows"), NULL },
    { "api-url", 0, 0, G_OPTION_ARG_STRING, &args.api_url, N_("The address n8n reaches Prosponsive's API at (default https://127.0.0.1:3100)"), N_("URL") },
    { "agent", 0, 0, G_OPTION_ARG_STRING, &args.agent_id, N_("The agent that answers new mail (default prosponsive)"), N_("ID") },
    { "ignore-tls-errors", 0, 0, G_OPTION_ARG_NONE, &args.ignore_tls_errors, N_("Let the examples' HTTP Request nodes accept any certificate"), NULL },
    { "imap-host", 0, 0, G_OPTION_ARG_STRING, &args.imap_host, N_("Your IMAP server (TLS), for the email examples"), N_("HOST") },
    { "imap-port", 0, 0, G_OPTION_ARG_INT, &args.imap_port, N_("Its port (default 993)"), N_("PORT") },
    { "imap-user", 0, 0, G_OPTION_ARG_STRING, &args.imap_user, N_("Your IMAP user name"), N_("USER") },
    { "imap-password-stdin", 0, 0, G_OPTION_ARG_NONE, &args.imap_password_stdin, N_("Read your IMAP password from standard input"), NULL },
    { "json", 0, 0, G_OPTION_ARG_NONE, &args.json, N_("Print what was done as JSON"), NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new (_("setup — the “Prosponsive API” credential in n8n, and the example workflows"));
  g_autoptr(GError) error = NULL;
  g_autofree char *problem = NULL;
  g_autofree char *password = NULL;
  int status;

  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_option_context_set_description (context,
    _("Creates the Header Auth credential “Prosponsive API” in n8n with the local API's token (or reuses "
      "the one it created while it holds the current token; after a token rotation it makes a new one, "
      "points the workflows that used the old one to it and deletes the old one, since n8n's API cannot "
      "change a credential). With --examples it imports the example workflows, unless n8n has workflows "
      "of their names, and publishes those that can run. With an IMAP account it also creates the n8n "
      "credential “IMAP account” for the email trigger and fills the account into the “IMAP Account” "
      "node of “Email Move To Folder” (a Code node cannot read n8n credentials, so that workflow holds "
      "the password)."));
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      status = prs_ctl_usage_error (context, error->message);
      setup_args_clear (&args);
      return status;
    }
  if (args.api_url == NULL)
    args.api_url = g_strdup (DEFAULT_API_URL);
  if (argc != 2)
    problem = g_strdup (_("n8n setup takes no arguments."));
  else
    problem = check_args (&args);
  if (problem != NULL)
    {
      status = prs_ctl_usage_error (context, problem);
      setup_args_clear (&args);
      return status;
    }
  if (args.imap_password_stdin &&
      (password = prs_ctl_read_stdin_secret (_("No password arrived on standard input."), &error)) == NULL)
    {
      g_printerr ("%s\n", error->message);
      setup_args_clear (&args);
      return PRS_CTL_EXIT_USAGE;
    }

  status = run_setup (ctl, &args, password);
  if (password != NULL)
    memset (password, 0, strlen (password));
  setup_args_clear (&args);
  return status;
}

/* ---------------------------------------------------------------- token --rotate */

void
prs_ctl_n8n_note_rotation (PrsCtl *ctl)
{
  g_autoptr(PrsStore) store = prs_ctl_open_existing_store (ctl, NULL);
  g_autofree char *id = store != NULL ? prs_store_dup_setting (store, PRS_SETTING_N8N_CREDENTIAL_ID) : NULL;

  if (id != NULL && id[0] != '\0')
    g_printerr (_("The credential “%s” in n8n (id %s) still holds the old token, and n8n's API cannot "
                  "change a credential. Run “prosponsive-ctl n8n setup”: it makes a new one, points the "
                  "workflows that used the old one to it and deletes the old one. Or paste the new token "
                  "into it in n8n (its Value is “Bearer ” and the token).\n"),
                PRS_N8N_API_CREDENTIAL_NAME, id);
  else
    g_printerr (_("Workflows that call Prosponsive need the new token in their “%s” credential in n8n "
                  "(its Value is “Bearer ” and the token); “prosponsive-ctl n8n setup” creates one.\n"),
                PRS_N8N_API_CREDENTIAL_NAME);
}
