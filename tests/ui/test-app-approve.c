/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-app-approve.c: the real PrsApplication (its sources are compiled in)
 * under Xvfb, with the scripted provider and webhook of tests/lib. A
 * workflow's inference call makes the agent propose a tool call; the
 * approval notification's Approve button activates app.approve-tool-call
 * with the tool-call message's id (prs-application.c), and activating that
 * action runs the call: the webhook gets it and the run goes on to the
 * answer. Waits are main-loop conditions, never sleeps. */
#include "config.h"

#include <string.h>

#include "prs-agent-seed.h"
#include "prs-application.h"
#include "prs-run-test-util.h"
#include "prs-ui-test-util.h"

#define KEY "sk-test-Zq7xW"

typedef struct
{
  PrsApplication  *app;
  char            *dir;
  guint            port;
  PrsTestHook     *hook;
  PrsTestProvider *provider;
  char            *conversation_id;
  char            *call_message_id;
  char            *call_status;
  char            *answer;
  guint            inference_status;
} Run;

/* The data folder the application opens: the tool, an agent allowed it,
 * the conversation, n8n at the scripted webhook, the scripted provider */
static void
prepare (Run *run)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsStore) store = NULL;
  g_autoptr(PrsSecrets) secrets = NULL;
  g_autoptr(PrsProviders) providers = NULL;
  g_autoptr(GPtrArray) tools = g_ptr_array_new_with_free_func ((GDestroyNotify) prs_tool_free);
  g_autoptr(PrsAgent) agent = prs_agent_new ("weather-agent", "Weather Agent");
  g_autofree char *hook_url = NULL;
  g_autofree char *provider_url = NULL;

  run->dir = g_dir_make_tmp ("prs-app-approve-XXXXXX", &error);
  g_assert_no_error (error);
  run->hook = prs_test_hook_start (TRUE);
  run->provider = prs_test_provider_start ("{'kind':'openai','turns':["
                                           "{'response':{'tool_calls':["
                                           "{'id':'call_1','name':'get_weather','arguments':{'city':'Paris'}}]}},"
                                           "{'response':{'text':'It is sunny in Paris.'}}]}");
  store = prs_store_new (run->dir, &error);
  g_assert_no_error (error);
  g_ptr_array_add (tools, prs_agent_seed_weather_tool ());
  g_assert_true (prs_store_save_discovery (store, tools, NULL, 1000, &error));
  agent->allowed_tools = g_strsplit ("get_weather", ",", -1);
  g_assert_true (prs_store_save_agent (store, agent, NULL, &error));
  g_assert_true (prs_store_resolve_conversation (store, "inbox", &run->conversation_id, NULL, &error));
  hook_url = prs_test_hook_url (run->hook);
  g_assert_true (prs_store_set_setting (store, PRS_SETTING_N8N_URL, hook_url, &error));
  g_assert_no_error (error);
  secrets = prs_secrets_new (run->dir);
  providers = prs_providers_new (store, secrets);
  provider_url = prs_test_provider_base_url (run->provider, "openai");
  g_assert_true (prs_providers_add (providers, "openai", "Scripted", provider_url, "model-a", 0, KEY, NULL, &error));
  g_assert_no_error (error);
}

/* The tool-call message of the conversation: its id and status */
static gboolean
read_call (Run *run)
{
  g_autoptr(PrsStore) store = prs_store_new (run->dir, NULL);
  g_autoptr(JsonArray) messages = store != NULL ? prs_store_list_messages (store, run->conversation_id, 0, 100, NULL) : NULL;

  for (guint i = 0; messages != NULL && i < json_array_get_length (messages); i++)
    {
      JsonObject *message = json_array_get_object_element (messages, i);
      const char *kind = json_object_get_string_member_with_default (message, "kind", "");

      if (g_str_equal (kind, "tool-call"))
        {
          g_free (run->call_message_id);
          run->call_message_id = g_strdup (json_object_get_string_member (message, "id"));
          g_free (run->call_status);
          run->call_status = g_strdup (json_object_get_string_member_with_default (message, "status", ""));
        }
      else if (g_str_equal (kind, "assistant") &&
               g_strcmp0 (json_object_get_string_member_with_default (message, "status", ""), "completed") == 0)
        {
          g_free (run->answer);
          run->answer = g_strdup (json_object_get_string_member_with_default (message, "content", ""));
        }
    }
  return run->call_message_id != NULL;
}

static gboolean
call_ran (gpointer data)
{
  Run *run = data;

  return read_call (run) && run->hook->bodies->len == 1 &&
         g_strcmp0 (run->call_status, "succeeded") == 0 && run->answer != NULL;
}

static gboolean
drive (gpointer data)
{
  Run *run = data;
  g_autoptr(PrsSecrets) secrets = prs_secrets_new (run->dir);
  g_autofree char *body = g_strdup_printf ("{\"prompt\":\"Weather in Paris?\",\"conversationId\":\"%s\","
                                           "\"agentId\":\"weather-agent\"}", run->conversation_id);

  /* A workflow asks; the agent proposes the call and the run rests */
  run->inference_status = prs_test_api_post (secrets, run->dir, run->port, "/api/ai/agent-inference", body, NULL);
  g_assert_true (read_call (run));
  g_assert_cmpstr (run->call_status, ==, "proposed");
  g_assert_cmpuint (run->hook->bodies->len, ==, 0);

  /* What the notification's Approve button does */
  g_assert_true (g_action_group_has_action (G_ACTION_GROUP (run->app), "approve-tool-call"));
  g_action_group_activate_action (G_ACTION_GROUP (run->app), "approve-tool-call",
                                  g_variant_new_string (run->call_message_id));
  g_assert_true (prs_test_wait_until (call_ran, run));

  g_action_group_activate_action (G_ACTION_GROUP (run->app), "quit", NULL);
  return G_SOURCE_REMOVE;
}

static void
test_notification_approve (void)
{
  Run run = { 0 };
  g_autofree char *port = NULL;

  prepare (&run);
  run.port = prs_test_free_port ();
  port = g_strdup_printf ("%u", run.port);
  {
    char *argv[] = { (char *) "prosponsive", (char *) "--data-dir", run.dir, (char *) "--port", port, NULL };

    run.app = prs_application_new ();
    g_assert_false (prs_test_run_app (G_APPLICATION (run.app), argv, drive, &run));
  }
  g_clear_object (&run.app);

  g_assert_cmpuint (run.inference_status, ==, 200);
  g_assert_cmpstr (run.call_status, ==, "succeeded");
  g_assert_nonnull (strstr (g_ptr_array_index (run.hook->bodies, 0), "\"city\":\"Paris\""));
  g_assert_cmpstr (run.answer, ==, "It is sunny in Paris.");

  prs_test_hook_stop (run.hook);
  prs_test_provider_stop (run.provider);
  prs_test_remove_tree (run.dir);
  g_free (run.dir);
  g_free (run.conversation_id);
  g_free (run.call_message_id);
  g_free (run.call_status);
  g_free (run.answer);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ui/app/notification-approve", test_notification_approve);
  return g_test_run ();
}
