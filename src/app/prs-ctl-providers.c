/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-ctl-providers.c: `prosponsive-ctl provider add|list|set-key|remove|test` —
 * the AI providers from the command line (headless servers, tests). Keys are
 * read from standard input only and go to the keyring; nothing here prints
 * one. */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <glib/gi18n.h>

#include "prs-ctl.h"
#include "prs-error.h"
#include "prs-providers.h"
#include "prs-secrets.h"
#include "prs-store.h"

/* The store for @create, `add`, made on first use; for the other verbs
 * the data folder must hold it (prs_ctl_open_existing_store) */
static gboolean
open_providers (PrsCtl         *ctl,
                gboolean        create,
                PrsStore      **out_store,
                PrsProviders  **out_providers,
                GError        **error)
{
  g_autoptr(PrsSecrets) secrets = NULL;

  *out_store = create ? prs_ctl_open_store (ctl, error) : prs_ctl_open_existing_store (ctl, error);
  if (*out_store == NULL)
    return FALSE;
  secrets = prs_secrets_new (ctl->data_dir);
  *out_providers = prs_providers_new (*out_store, secrets);
  return TRUE;
}

/* ---------------------------------------------------------------- add */

static int
provider_add (PrsCtl          *ctl,
              GOptionContext  *context,
              const char      *kind,
              const char      *name,
              const char      *base_url,
              const char      *model,
              int              priority,
              gboolean         key_stdin)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsStore) store = NULL;
  g_autoptr(PrsProviders) providers = NULL;
  g_autofree char *key = NULL;
  g_autofree char *id = NULL;
  gboolean ok;

  if (kind == NULL || name == NULL || model == NULL)
    return prs_ctl_usage_error (context, _("provider add needs --kind, --name and --model."));
  if (!prs_provider_kind_is_valid (kind))
    return prs_ctl_usage_error (context, _("--kind must be openai, ollama, anthropic or gemini."));

  if (key_stdin && (key = prs_ctl_read_stdin_secret (_("No API key arrived on standard input."), &error)) == NULL)
    {
      g_printerr ("%s\n", error->message);
      return PRS_CTL_EXIT_USAGE;
    }
  if (key == NULL && prs_provider_kind_needs_key (kind))
    g_printerr (_("Note: %s providers need an API key; give it with --api-key-stdin, "
                  "or later with “provider set-key NAME”.\n"),
                prs_provider_kind_get_label (kind));

  if (!open_providers (ctl, TRUE, &store, &providers, &error))
    return prs_ctl_fail (error);

  ok = prs_providers_add (providers, kind, name, base_url, model, priority, key, &id, &error);
  if (key != NULL)
    memset (key, 0, strlen (key));
  if (!ok)
    {
      g_printerr (_("Could not add the provider: %s\n"), error->message);
      return g_error_matches (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT) ? PRS_CTL_EXIT_USAGE
                                                                          : prs_ctl_exit_status (error);
    }

  g_print (_("Added the %s provider “%s” (%s), model %s.\n"),
           prs_provider_kind_get_label (kind), name, id, model);
  return EXIT_SUCCESS;
}

/* ---------------------------------------------------------------- list */

static int
provider_list (PrsCtl   *ctl,
               gboolean  json)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsStore) store = NULL;
  g_autoptr(PrsProviders) providers = NULL;
  g_autoptr(GPtrArray) rows = NULL;
  g_autoptr(JsonArray) array = json_array_new ();

  if (!open_providers (ctl, FALSE, &store, &providers, &error) ||
      (rows = prs_store_list_providers (store, &error)) == NULL)
    return prs_ctl_fail (error);

  if (!json && rows->len == 0)
    g_print (_("No AI providers. Add one with “provider add”.\n"));

  for (guint i = 0; i < rows->len; i++)
    {
      PrsProviderRow *row = g_ptr_array_index (rows, i);
      g_autofree char *key = prs_providers_dup_key (providers, row->id);
      gboolean has_key = key != NULL;
      const char *base_url = row->base_url != NULL ? row->base_url
                                                   : prs_provider_kind_default_base_url (row->kind);

      if (key != NULL)
        memset (key, 0, strlen (key));

      if (json)
        {
          JsonObject *object = json_object_new ();

          json_object_set_string_member (object, "id", row->id);
          json_object_set_string_member (object, "name", row->name);
          json_object_set_string_member (object, "kind", row->kind);
          json_object_set_string_member (object, "baseUrl", base_url);
          json_object_set_string_member (object, "model", row->model);
          json_object_set_boolean_member (object, "enabled", row->enabled);
          json_object_set_int_member (object, "priority", row->priority);
          json_object_set_boolean_member (object, "hasKey", has_key);
          json_object_set_boolean_member (object, "isLocal", prs_provider_url_is_local (base_url));
          json_object_set_string_member (object, "createdAt", row->created_at);
          json_array_add_object_element (array, object);
        }
      else
        {
          const char *key_state = has_key ? _("key stored")
                                  : prs_provider_kind_needs_key (row->kind) ? _("no key stored")
                                  : _("no key needed");

          g_print ("%d. %s — %s, %s, model %s (%s%s)\n", row->priority, row->name,
                   prs_provider_kind_get_label (row->kind), base_url, row->model, key_state,
                   row->enabled ? "" : _(", disabled"));
        }
    }

  if (json)
    {
      g_autoptr(JsonNode) node = json_node_new (JSON_NODE_ARRAY);

      json_node_set_array (node, array);
      prs_ctl_print_json (node);
    }
  return EXIT_SUCCESS;
}

/* ---------------------------------------------------------------- set-key */

/* A key for a provider that exists (added without one, or a key replaced):
 * read from standard input like add's, never from the command line where
 * other users' `ps` would see it (docs/providers.md "Configuring"). */
static int
provider_set_key (PrsCtl     *ctl,
                  const char *name)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsStore) store = NULL;
  g_autoptr(PrsProviders) providers = NULL;
  g_autoptr(PrsProviderRow) row = NULL;
  g_autofree char *key = NULL;
  gboolean ok;

  if ((key = prs_ctl_read_stdin_secret (_("No API key arrived on standard input."), &error)) == NULL)
    {
      g_printerr ("%s\n", error->message);
      return PRS_CTL_EXIT_USAGE;
    }

  if (!open_providers (ctl, FALSE, &store, &providers, &error) ||
      (row = prs_store_lookup_provider (store, name, &error)) == NULL)
    {
      memset (key, 0, strlen (key));
      if (error != NULL)
        return prs_ctl_fail (error);
      g_printerr ("%s\n", _("There is no such AI provider."));
      return PRS_CTL_EXIT_NEGATIVE;
    }

  ok = prs_providers_update (providers, row, key, &error);
  memset (key, 0, strlen (key));
  if (!ok)
    {
      g_printerr (_("Could not store the key: %s\n"), error->message);
      return g_error_matches (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT) ? PRS_CTL_EXIT_USAGE
                                                                          : prs_ctl_exit_status (error);
    }

  g_print (_("Stored the API key of the provider “%s”.\n"), row->name);
  return EXIT_SUCCESS;
}

/* ---------------------------------------------------------------- remove */

static int
provider_remove (PrsCtl     *ctl,
                 const char *name)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsStore) store = NULL;
  g_autoptr(PrsProviders) providers = NULL;

  if (!open_providers (ctl, FALSE, &store, &providers, &error) ||
      !prs_providers_remove (providers, name, &error))
    return prs_ctl_fail (error);

  g_print (_("Removed the provider “%s” and its key.\n"), name);
  return EXIT_SUCCESS;
}

/* ---------------------------------------------------------------- test */

typedef struct
{
  GMainLoop       *loop;
  GPtrArray       *models;
  PrsChatResponse *response;
  GError          *error;
} TestWait;

static void
on_test_models (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  TestWait *wait = user_data;

  wait->models = prs_providers_list_models_finish (PRS_PROVIDERS (source), result, &wait->error);
  g_main_loop_quit (wait->loop);
}

static void
on_test_chat (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  TestWait *wait = user_data;

  wait->response = prs_provider_chat_finish (PRS_PROVIDER (source), result, &wait->error);
  g_main_loop_quit (wait->loop);
}

static int
provider_test (PrsCtl     *ctl,
               const char *name)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsStore) store = NULL;
  g_autoptr(PrsProviders) providers = NULL;
  g_autoptr(PrsProviderRow) row = NULL;
  g_autoptr(PrsProvider) provider = NULL;
  g_autoptr(PrsChatRequest) request = NULL;
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  TestWait models = { loop, NULL, NULL, NULL };
  TestWait chat = { loop, NULL, NULL, NULL };
  int status;

  if (!open_providers (ctl, FALSE, &store, &providers, &error))
    return prs_ctl_fail (error);
  row = prs_store_lookup_provider (store, name, &error);
  if (row == NULL)
    {
      if (error != NULL)
        return prs_ctl_fail (error);
      g_printerr ("%s\n", _("There is no such AI provider."));
      return PRS_CTL_EXIT_NEGATIVE;
    }

  g_print (_("Testing “%s” (%s, model %s)…\n"), row->name, prs_provider_kind_get_label (row->kind), row->model);

  prs_providers_list_models_async (providers, row->id, NULL, on_test_models, &models);
  g_main_loop_run (loop);
  if (models.models != NULL)
    {
      gboolean listed = FALSE;

      for (guint i = 0; i < models.models->len; i++)
        listed = listed || g_str_equal (((PrsModelInfo *) g_ptr_array_index (models.models, i))->id, row->model);
      g_print (g_dngettext (GETTEXT_PACKAGE, "Model list: %u model", "Model list: %u models", models.models->len),
               models.models->len);
      g_print ("%s\n", listed ? _(", including the configured one.") : _(", not including the configured one."));
      g_ptr_array_unref (models.models);
    }
  else
    {
      g_print (_("Model list failed: %s\n"), models.error->message);
      g_clear_error (&models.error);
    }

  provider = prs_providers_create (providers, row, &error);
  if (provider == NULL)
    {
      g_printerr (_("Chat failed: %s\n"), error->message);
      return PRS_CTL_EXIT_NEGATIVE;
    }

  request = prs_chat_request_new ();
  request->max_tokens = 16;
  prs_chat_request_add_user (request, "Reply with the single word OK.");
  prs_provider_chat_async (provider, request, NULL, NULL, NULL, NULL, on_test_chat, &chat);
  g_main_loop_run (loop);

  if (chat.response != NULL)
    {
      g_autofree char *tokens_in = g_strdup_printf ("%" G_GINT64_FORMAT, (gint64) chat.response->input_tokens);
      g_autofree char *tokens_out = g_strdup_printf ("%" G_GINT64_FORMAT, (gint64) chat.response->output_tokens);

      /* Translators: the model's answer, the model, and token counts */
      g_print (_("Chat works: “%s” (model %s, %s tokens in, %s out).\n"),
               chat.response->text, chat.response->model, tokens_in, tokens_out);
      prs_chat_response_free (chat.response);
      status = EXIT_SUCCESS;
    }
  else
    {
      g_printerr (_("Chat failed: %s\n"), chat.error->message);
      g_clear_error (&chat.error);
      status = PRS_CTL_EXIT_NEGATIVE;
    }

  return status;
}

/* ---------------------------------------------------------------- provider */

int
prs_ctl_cmd_provider (PrsCtl  *ctl,
                      int      argc,
                      char   **argv)
{
  g_autofree char *kind = NULL;
  g_autofree char *name = NULL;
  g_autofree char *base_url = NULL;
  g_autofree char *model = NULL;
  int priority = -1;
  gboolean key_stdin = FALSE;
  gboolean json = FALSE;
  GOptionEntry entries[] = {
    { "kind", 0, 0, G_OPTION_ARG_STRING, &kind, N_("add: openai, ollama, anthropic or gemini"), N_("KIND") },
    { "name", 0, 0, G_OPTION_ARG_STRING, &name, N_("add: a name for the provider"), N_("NAME") },
    { "base-url", 0, 0, G_OPTION_ARG_STRING, &base_url, N_("add: the API's address (default: the kind's own)"), N_("URL") },
    { "model", 0, 0, G_OPTION_ARG_STRING, &model, N_("add: the model to use"), N_("MODEL") },
    { "priority", 0, 0, G_OPTION_ARG_INT, &priority, N_("add: lower numbers are tried first (default: last)"), N_("N") },
    { "api-key-stdin", 0, 0, G_OPTION_ARG_NONE, &key_stdin, N_("add: read the API key from standard input"), NULL },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("list: print JSON"), NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context =
    g_option_context_new (_("add|list|set-key NAME|remove NAME|test NAME — the AI providers"));
  g_autoptr(GError) error = NULL;
  const char *action;

  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return prs_ctl_usage_error (context, error->message);
  if (argc < 2)
    return prs_ctl_usage_error (context, _("Say what to do: add, list, set-key, remove or test."));

  action = argv[1];
  if (g_str_equal (action, "add") && argc == 2)
    return provider_add (ctl, context, kind, name, base_url, model, priority, key_stdin);
  if (g_str_equal (action, "list") && argc == 2)
    return provider_list (ctl, json);
  if (g_str_equal (action, "set-key") && argc == 3)
    return provider_set_key (ctl, argv[2]);
  if (g_str_equal (action, "remove") && argc == 3)
    return provider_remove (ctl, argv[2]);
  if (g_str_equal (action, "test") && argc == 3)
    return provider_test (ctl, argv[2]);

  return prs_ctl_usage_error (context, _("Use “provider add …”, “provider list [--json]”, "
                                         "“provider set-key NAME” (the key on standard input), "
                                         "“provider remove NAME” or “provider test NAME”."));
}
