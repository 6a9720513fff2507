/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Tests for agent runs (prs-run.c, prs-runner.c, prs-store-runs.c): runs
 * driven end to end by tests/scripted-provider.py (each provider's wire
 * protocol, streaming) and a scripted n8n webhook (a SoupServer), both
 * from tests/lib: approvals, rules, loop limits, failover, restarts,
 * binding, hygiene, and a run made and heard without a runner. */
#include "config.h"

#include <string.h>

#include "prs-discovery.h"
#include "prs-error.h"
#include "prs-json.h"
#include "prs-providers.h"
#include "prs-run.h"
#include "prs-runner.h"
#include "prs-secrets.h"
#include "prs-store.h"
#include "prs-store-insights.h"
#include "prs-test-util.h"

#define KEY "sk-test-Zq7xW"
#define TAG_A "\xf3\xa0\x81\x81"     /* U+E0041 */
#define ZWSP  "\xe2\x80\x8b"         /* U+200B */

/* ---- The scripted provider and n8n webhook (tests/lib) ------------------ */

/* The JSON body of request @index, as text (no request broke the protocol) */
static char *
request_body (PrsTestProvider *server,
              guint            index)
{
  g_autoptr(JsonObject) request = NULL;

  json_array_unref (prs_test_provider_requests (server));
  request = prs_test_provider_request (server, index);
  return prs_json_to_string (json_object_get_member (request, "body"), FALSE);
}

/* ---- Fixture ------------------------------------------------------------- */

typedef struct
{
  char                *dir;
  PrsStore            *store;
  PrsSecrets          *secrets;
  PrsProviders        *providers;
  PrsCallbackRegistry *registry;
  PrsRunner           *runner;
  PrsTestHook         *hook;
  PrsTestProvider     *provider;
  PrsTestProvider     *provider2;
  char                *conversation_id;
  GPtrArray           *snapshots;   /* assistant texts seen on message-changed */
  guint                approvals_needed;
} Fixture;

static void
on_message_changed (PrsRunner  *runner,
                    const char *conversation_id,
                    const char *message_id,
                    Fixture    *fixture)
{
  g_autoptr(JsonNode) message = prs_store_get_message (fixture->store, message_id, NULL);
  JsonObject *object = json_node_get_object (message);

  if (g_strcmp0 (json_object_get_string_member (object, "kind"), "assistant") == 0)
    g_ptr_array_add (fixture->snapshots,
                     g_strdup_printf ("%s|%s", json_object_get_string_member (object, "status"),
                                      json_object_get_string_member_with_default (object, "content", "")));
}

static void
on_approval_needed (PrsRunner  *runner,
                    const char *conversation_id,
                    const char *message_id,
                    const char *tool_name,
                    Fixture    *fixture)
{
  fixture->approvals_needed++;
}

static void
open_runner (Fixture *fixture)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *url = prs_test_hook_url (fixture->hook);
  g_autoptr(PrsRunEnv) env = prs_test_run_env_new (fixture->dir, "https://127.0.0.1:1/api/ai/agentic-loop-result",
                                                    &fixture->store, &fixture->secrets, &fixture->providers,
                                                    &fixture->registry);

  fixture->runner = prs_runner_new (env);
  g_signal_connect (fixture->runner, "message-changed", G_CALLBACK (on_message_changed), fixture);
  g_signal_connect (fixture->runner, "approval-needed", G_CALLBACK (on_approval_needed), fixture);
  g_assert_true (prs_store_set_setting (fixture->store, PRS_SETTING_N8N_URL, url, &error));
}

static void
close_runner (Fixture *fixture)
{
  g_clear_object (&fixture->runner);
  g_clear_object (&fixture->registry);
  g_clear_object (&fixture->providers);
  g_clear_object (&fixture->secrets);
  /* Let cancelled calls finish before the store goes */
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_clear_object (&fixture->store);
}

static PrsTool *
make_tool (const char *name,
           const char *path)
{
  PrsTool *tool = prs_tool_new ();

  tool->name = g_strdup (name);
  tool->description = g_strdup ("Looks something up.");
  tool->workflow_id = g_strdup_printf ("wf-%s", name);
  tool->webhook_path = g_strdup (path);
  tool->webhook_method = g_strdup ("POST");
  tool->response_mode = g_strdup ("responseNode");
  tool->webhook_node_name = g_strdup ("Webhook");
  tool->webhook_id = g_strdup_printf ("hook-%s", name);
  g_ptr_array_add (tool->params, prs_param_new ("city", PRS_PARAM_STRING, TRUE, NULL));
  g_ptr_array_add (tool->params, prs_param_new ("unit", PRS_PARAM_STRING, FALSE, NULL));
  return tool;
}

static void
fixture_setup (Fixture       *fixture,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) tools = g_ptr_array_new_with_free_func ((GDestroyNotify) prs_tool_free);

  fixture->dir = g_dir_make_tmp ("prs-test-runs-XXXXXX", &error);
  g_assert_no_error (error);
  fixture->hook = prs_test_hook_start (FALSE);
  fixture->snapshots = g_ptr_array_new_with_free_func (g_free);
  open_runner (fixture);

  g_ptr_array_add (tools, make_tool ("get_weather", "weather"));
  g_ptr_array_add (tools, make_tool ("send_mail", "mail"));
  g_assert_true (prs_store_save_discovery (fixture->store, tools, NULL, 1000, &error));
  g_assert_no_error (error);
  g_assert_true (prs_store_resolve_conversation (fixture->store, "inbox", &fixture->conversation_id, NULL, &error));
  g_assert_no_error (error);
}

static void
fixture_teardown (Fixture       *fixture,
                  gconstpointer  data)
{
  g_autofree char *db_dir = g_strdup (fixture->dir);

  close_runner (fixture);
  prs_test_hook_stop (fixture->hook);
  g_clear_pointer (&fixture->provider, prs_test_provider_stop);
  g_clear_pointer (&fixture->provider2, prs_test_provider_stop);
  g_ptr_array_unref (fixture->snapshots);
  g_free (fixture->conversation_id);
  /* The data folder: the database, its WAL and the secrets file */
  prs_test_remove_tree (db_dir);
  g_free (fixture->dir);
}

static void
add_provider (Fixture         *fixture,
              const char      *kind,
              const char      *name,
              PrsTestProvider *server,
              int              priority)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *url = prs_test_provider_base_url (server, kind);

  prs_providers_add (fixture->providers, kind, name, url,
                     "model-a", priority, KEY, NULL, &error);
  g_assert_no_error (error);
}

static void
use_script (Fixture    *fixture,
            const char *kind,
            const char *script)
{
  fixture->provider = prs_test_provider_start (script);
  add_provider (fixture, kind, "Scripted", fixture->provider, 0);
}

static char *
insert_inbound (Fixture    *fixture,
                const char *prompt,
                const char *context_json)
{
  g_autoptr(GError) error = NULL;
  PrsMessageInsert insert = { 0 };
  char *id = NULL;

  insert.conversation_id = fixture->conversation_id;
  insert.kind = "inbound";
  insert.content = prompt;
  insert.status = "pending";
  insert.context_json = context_json;
  g_assert_true (prs_store_insert_message (fixture->store, &insert, &id, NULL, &error));
  g_assert_no_error (error);
  return id;
}

static PrsRun *
start_run (Fixture    *fixture,
           const char *prompt,
           const char *context_json,
           char      **out_message_id)
{
  return prs_test_start_inference (fixture->runner, fixture->store, fixture->conversation_id, NULL, prompt,
                                   context_json, out_message_id);
}

static const char *
call_id_at (JsonObject *answer,
            guint       index)
{
  JsonArray *calls = json_object_get_array_member (answer, "toolCalls");

  g_assert_cmpuint (json_array_get_length (calls), >, index);
  return json_object_get_string_member (json_array_get_object_element (calls, index), "id");
}

static const char *
call_status_at (JsonObject *answer,
                guint       index)
{
  JsonArray *calls = json_object_get_array_member (answer, "toolCalls");

  g_assert_cmpuint (json_array_get_length (calls), >, index);
  return json_object_get_string_member (json_array_get_object_element (calls, index), "status");
}

/* The stored messages of the conversation, as "kind:status" lines */
static char *
message_kinds (Fixture *fixture)
{
  g_autoptr(JsonArray) messages = prs_store_list_messages (fixture->store, fixture->conversation_id, 0, 100, NULL);
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < json_array_get_length (messages); i++)
    {
      JsonObject *message = json_array_get_object_element (messages, i);

      g_string_append_printf (out, "%s%s:%s", i > 0 ? " " : "",
                              json_object_get_string_member (message, "kind"),
                              json_object_get_string_member_with_default (message, "status", "-"));
    }
  return g_string_free (out, FALSE);
}

/* The figures of everything (docs/insights.md): "today" could turn at midnight under the test */
static PrsInsights *
insights_all (Fixture *fixture)
{
  g_autoptr(GError) error = NULL;
  PrsInsights *insights = prs_store_read_insights (fixture->store, PRS_INSIGHTS_ALL, NULL, &error);

  g_assert_no_error (error);
  return insights;
}

#define WEATHER_CALL(city) "{'id':'call_1','name':'get_weather','arguments':{'city':'" city "'}}"

/* ---- approve, per protocol, streaming ----------------------------------- */

static void
test_approve (Fixture       *fixture,
              gconstpointer  data)
{
  const char *kind = data;
  g_autofree char *script = g_strdup_printf (
    "{'kind':'%s','turns':["
    "{'response':{'text':'Let me look.','tool_calls':[" WEATHER_CALL ("Paris") "],'usage':{'input':10,'output':4}}},"
    "{'response':{'chunks':['It is ','sunny ','in Paris.'],'delay':0.3,'usage':{'input':20,'output':6}}},"
    "{'response':{'text':'Still sunny.'}}]}",
    kind);
  g_autoptr(PrsRun) run = NULL;
  g_autoptr(PrsRun) chat = NULL;
  g_autofree char *history = NULL;
  PrsMessageInsert follow_up = { 0 };
  g_autoptr(JsonObject) answer = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *body = NULL;
  g_autofree char *kinds = NULL;
  gboolean partial = FALSE;

  use_script (fixture, kind, script);
  run = start_run (fixture, "Weather in Paris?", NULL, NULL);

  answer = prs_test_wait_rest (run, NULL);
  g_assert_cmpstr (json_object_get_string_member (answer, "status"), ==, "awaiting_approval");
  g_assert_cmpstr (call_status_at (answer, 0), ==, "proposed");
  g_assert_cmpuint (fixture->approvals_needed, ==, 1);
  g_assert_cmpuint (fixture->hook->bodies->len, ==, 0);

  g_assert_true (prs_runner_approve (fixture->runner, call_id_at (answer, 0), NULL, &error));
  g_assert_no_error (error);
  g_clear_pointer (&answer, json_object_unref);
  answer = prs_test_wait_rest (run, NULL);

  g_assert_cmpstr (json_object_get_string_member (answer, "status"), ==, "completed");
  g_assert_cmpstr (json_object_get_string_member (answer, "content"), ==, "It is sunny in Paris.");
  g_assert_cmpstr (call_status_at (answer, 0), ==, "succeeded");
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (answer, "usage"), "inputTokens"), ==, 30);
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (answer, "provider"), "name"), ==, "Scripted");

  /* The webhook got the arguments and the envelope */
  g_assert_cmpuint (fixture->hook->bodies->len, ==, 1);
  g_assert_nonnull (strstr (g_ptr_array_index (fixture->hook->bodies, 0), "\"city\":\"Paris\""));
  g_assert_nonnull (strstr (g_ptr_array_index (fixture->hook->bodies, 0), call_id_at (answer, 0)));
  g_assert_cmpstr (g_ptr_array_index (fixture->hook->paths, 0), ==, "/webhook/weather");

  /* The model got the result; the tools were offered; the context was not there */
  body = request_body (fixture->provider, 1);
  g_assert_nonnull (strstr (body, "sunny-data"));
  g_assert_nonnull (strstr (body, "get_weather"));

  /* Streamed text was stored as it came, then completed */
  for (guint i = 0; i < fixture->snapshots->len; i++)
    if (g_str_has_prefix (g_ptr_array_index (fixture->snapshots, i), "streaming|It is"))
      partial = TRUE;
  g_assert_true (partial);

  kinds = message_kinds (fixture);
  g_assert_cmpstr (kinds, ==,
                   "inbound:completed assistant:completed tool-call:succeeded tool-result:succeeded assistant:completed");

  /* A chat after it sends the call and its result as history, in a form
   * this provider's protocol accepts (docs/runs.md) */
  follow_up.conversation_id = fixture->conversation_id;
  follow_up.kind = "user";
  follow_up.content = "And tomorrow?";
  g_assert_true (prs_store_insert_message (fixture->store, &follow_up, NULL, NULL, &error));
  chat = prs_runner_start_chat (fixture->runner, fixture->conversation_id, NULL, &error);
  g_assert_no_error (error);
  g_clear_pointer (&answer, json_object_unref);
  answer = prs_test_wait_rest (chat, NULL);
  g_assert_cmpstr (json_object_get_string_member (answer, "content"), ==, "Still sunny.");
  history = request_body (fixture->provider, 2);
  g_assert_nonnull (strstr (history, "Weather in Paris?"));
  g_assert_nonnull (strstr (history, "sunny-data"));
  g_assert_nonnull (strstr (history, "It is sunny in Paris."));
  g_assert_nonnull (strstr (history, "And tomorrow?"));
}

/* ---- deny, edit, approve all --------------------------------------------- */

static void
test_deny (Fixture       *fixture,
           gconstpointer  data)
{
  g_autoptr(PrsRun) run = NULL;
  g_autoptr(JsonObject) answer = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *body = NULL;

  use_script (fixture, "anthropic",
              "{'kind':'anthropic','turns':["
              "{'response':{'tool_calls':[" WEATHER_CALL ("Paris") "]}},"
              "{'response':{'text':'Understood, I will not check.'}}]}");
  run = start_run (fixture, "Weather?", NULL, NULL);
  answer = prs_test_wait_rest (run, NULL);
  g_assert_true (prs_runner_deny (fixture->runner, call_id_at (answer, 0), &error));
  g_assert_no_error (error);
  g_clear_pointer (&answer, json_object_unref);
  answer = prs_test_wait_rest (run, NULL);

  g_assert_cmpstr (json_object_get_string_member (answer, "status"), ==, "completed");
  g_assert_cmpstr (call_status_at (answer, 0), ==, "denied");
  g_assert_cmpuint (fixture->hook->bodies->len, ==, 0);
  body = request_body (fixture->provider, 1);
  g_assert_nonnull (strstr (body, "denied"));

  /* A decided call cannot be decided again */
  g_assert_false (prs_runner_approve (fixture->runner, call_id_at (answer, 0), NULL, &error));
  g_assert_nonnull (error);
}

static void
test_edit (Fixture       *fixture,
           gconstpointer  data)
{
  g_autoptr(PrsRun) run = NULL;
  g_autoptr(JsonObject) answer = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsToolCallRow) call = NULL;
  g_autoptr(JsonNode) message = NULL;
  JsonObject *extra;

  use_script (fixture, "ollama",
              "{'kind':'ollama','turns':["
              "{'response':{'tool_calls':[" WEATHER_CALL ("Paris") "]}},"
              "{'response':{'text':'Berlin is cloudy.'}}]}");
  run = start_run (fixture, "Weather?", NULL, NULL);
  answer = prs_test_wait_rest (run, NULL);
  g_assert_false (prs_runner_approve (fixture->runner, call_id_at (answer, 0), "[1]", &error));
  g_clear_error (&error);
  g_assert_true (prs_runner_tool_action (fixture->runner, call_id_at (answer, 0), "edit",
                                         "{\"city\":\"Berlin\"}", &error));
  g_assert_no_error (error);
  g_clear_pointer (&answer, json_object_unref);
  answer = prs_test_wait_rest (run, NULL);

  g_assert_cmpstr (json_object_get_string_member (answer, "status"), ==, "completed");
  g_assert_nonnull (strstr (g_ptr_array_index (fixture->hook->bodies, 0), "\"city\":\"Berlin\""));
  call = prs_store_lookup_tool_call (fixture->store, call_id_at (answer, 0), NULL);
  message = prs_store_get_message (fixture->store, call->message_id, NULL);
  extra = json_object_get_object_member (json_node_get_object (message), "extra");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (extra, "provenance"), "city"),
                   ==, "user");
}

static void
test_approve_all (Fixture       *fixture,
                  gconstpointer  data)
{
  g_autoptr(PrsRun) run = NULL;
  g_autoptr(JsonObject) answer = NULL;
  g_autoptr(GError) error = NULL;

  use_script (fixture, "gemini",
              "{'kind':'gemini','turns':["
              "{'response':{'tool_calls':[{'name':'get_weather','arguments':{'city':'Paris'}},"
              "{'name':'send_mail','arguments':{'city':'Rome'}}]}},"
              "{'response':{'text':'Done both.'}}]}");
  run = start_run (fixture, "Do both", NULL, NULL);
  answer = prs_test_wait_rest (run, NULL);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (answer, "toolCalls")), ==, 2);
  g_assert_true (prs_runner_approve_all (fixture->runner, call_id_at (answer, 0), NULL, &error));
  g_assert_no_error (error);
  g_clear_pointer (&answer, json_object_unref);
  answer = prs_test_wait_rest (run, NULL);

  g_assert_cmpstr (json_object_get_string_member (answer, "status"), ==, "completed");
  g_assert_cmpstr (call_status_at (answer, 0), ==, "succeeded");
  g_assert_cmpstr (call_status_at (answer, 1), ==, "succeeded");
  g_assert_cmpuint (fixture->hook->bodies->len, ==, 2);
}

/* ---- rules ----------------------------------------------------------------- */

static void
test_rules (Fixture       *fixture,
            gconstpointer  data)
{
  g_autoptr(PrsRun) run = NULL;
  g_autoptr(JsonObject) answer = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *a = NULL, *b = NULL, *c = NULL, *d = NULL;

  /* Most specific wins; deny wins a tie */
  g_assert_true (prs_store_add_approval_rule (fixture->store, NULL, "prosponsive", NULL, "approve", NULL, &error));
  g_assert_true (prs_store_add_approval_rule (fixture->store, "send_mail", "prosponsive", NULL, "deny", NULL, &error));
  g_assert_true (prs_store_add_approval_rule (fixture->store, "get_weather", NULL, "inbox", "approve", NULL, &error));
  g_assert_true (prs_store_add_approval_rule (fixture->store, "get_weather", NULL, "other", "approve", NULL, &error));
  g_assert_true (prs_store_add_approval_rule (fixture->store, "get_weather", NULL, "other", "deny", NULL, &error));
  g_assert_no_error (error);
  a = prs_store_match_approval_rule (fixture->store, "send_mail", "prosponsive", "inbox");
  b = prs_store_match_approval_rule (fixture->store, "get_weather", "prosponsive", "inbox");
  c = prs_store_match_approval_rule (fixture->store, "get_weather", "someone", "other");
  d = prs_store_match_approval_rule (fixture->store, "get_weather", "someone", "third");
  g_assert_cmpstr (a, ==, "deny");
  g_assert_cmpstr (b, ==, "approve");
  g_assert_cmpstr (c, ==, "deny");
  g_assert_null (d);

  /* In a run: one call approved by a rule runs, one denied by a rule does not */
  use_script (fixture, "openai",
              "{'kind':'openai','turns':["
              "{'response':{'tool_calls':[" WEATHER_CALL ("Paris") ","
              "{'id':'call_2','name':'send_mail','arguments':{'city':'Rome'}}]}},"
              "{'response':{'text':'Weather checked, mail not sent.'}}]}");
  run = start_run (fixture, "Go", NULL, NULL);
  answer = prs_test_wait_rest (run, NULL);
  g_assert_cmpstr (json_object_get_string_member (answer, "status"), ==, "completed");
  g_assert_cmpstr (call_status_at (answer, 0), ==, "succeeded");
  g_assert_cmpstr (call_status_at (answer, 1), ==, "denied");
  g_assert_cmpuint (fixture->hook->bodies->len, ==, 1);
  g_assert_cmpuint (fixture->approvals_needed, ==, 0);

  /* What Insights counts of it: the rules decided both, one ran; two
   * answers, one with text */
  {
    g_autoptr(PrsInsights) insights = insights_all (fixture);
    PrsInsightsTool *weather = g_ptr_array_index (insights->tools, 0);
    PrsInsightsTool *mail = g_ptr_array_index (insights->tools, 1);
    PrsInsightsModel *model = g_ptr_array_index (insights->models, 0);

    g_assert_cmpstr (weather->tool, ==, "get_weather");
    g_assert_cmpuint (weather->decided, ==, 1);
    g_assert_cmpuint (weather->approved, ==, 1);
    g_assert_cmpuint (weather->succeeded, ==, 1);
    g_assert_cmpuint (weather->duration.timed, ==, 1);
    g_assert_cmpstr (mail->tool, ==, "send_mail");
    g_assert_cmpuint (mail->decided, ==, 1);
    g_assert_cmpuint (mail->approved, ==, 0);
    g_assert_cmpuint (mail->settled, ==, 0);
    g_assert_cmpstr (model->model, ==, "model-a");
    g_assert_cmpuint (model->runs, ==, 1);
    g_assert_cmpuint (model->calls, ==, 2);
    g_assert_cmpuint (model->first_token.timed, ==, 1);
    g_assert_cmpuint (model->total.timed, ==, 2);
  }
}

/* ---- the tool webhooks' Header Auth (docs/workflows.md) ------------------------------- */

static void
test_webhook_auth (Fixture       *fixture,
                   gconstpointer  data)
{
  g_autoptr(PrsRun) first = NULL;
  g_autoptr(PrsRun) second = NULL;
  g_autoptr(JsonObject) answer = NULL;
  g_autoptr(JsonObject) answer2 = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_true (prs_store_add_approval_rule (fixture->store, "get_weather", NULL, NULL, "approve", NULL, &error));
  g_assert_true (prs_store_set_setting (fixture->store, PRS_SETTING_WEBHOOK_AUTH_HEADER, "X-Prosponsive-Key", &error));
  g_assert_true (prs_secrets_store_sync (fixture->secrets, PRS_SECRET_WEBHOOK_AUTH, "test", "s3cret-value", NULL, &error));
  g_assert_no_error (error);

  use_script (fixture, "openai",
              "{'kind':'openai','turns':["
              "{'response':{'tool_calls':[" WEATHER_CALL ("Paris") "]}},"
              "{'response':{'text':'Done.'}},"
              "{'response':{'tool_calls':[" WEATHER_CALL ("Rome") "]}},"
              "{'response':{'text':'Done again.'}}]}");
  first = start_run (fixture, "Go", NULL, NULL);
  answer = prs_test_wait_rest (first, NULL);
  g_assert_cmpstr (call_status_at (answer, 0), ==, "succeeded");
  g_assert_cmpstr (fixture->hook->auth, ==, "s3cret-value");

  /* Without a header name nothing is sent, even with a value stored */
  g_assert_true (prs_store_set_setting (fixture->store, PRS_SETTING_WEBHOOK_AUTH_HEADER, NULL, &error));
  second = start_run (fixture, "Again", NULL, NULL);
  answer2 = prs_test_wait_rest (second, NULL);
  g_assert_cmpstr (call_status_at (answer2, 0), ==, "succeeded");
  g_assert_null (fixture->hook->auth);
}

/* A tool the agent may not use is denied where calls run: a rule that
 * approves the tool for every agent does not open it to this one */
static void
test_tool_not_allowed (Fixture       *fixture,
                       gconstpointer  data)
{
  g_autoptr(PrsAgent) agent = prs_agent_new ("mail-only", "Mail Only");
  g_autoptr(PrsRun) run = NULL;
  g_autoptr(JsonObject) answer = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsToolCallRow) call = NULL;
  PrsRunOptions options = { 0 };
  g_autofree char *message_id = NULL;

  agent->allowed_tools = g_strsplit ("send_mail", ",", -1);
  g_assert_true (prs_store_save_agent (fixture->store, agent, NULL, &error));
  g_assert_true (prs_store_add_approval_rule (fixture->store, "get_weather", NULL, NULL, "approve", NULL, &error));
  g_assert_no_error (error);
  use_script (fixture, "openai",
              "{'kind':'openai','turns':["
              "{'response':{'tool_calls':[" WEATHER_CALL ("Paris") "]}},"
              "{'response':{'text':'I may not.'}}]}");

  message_id = insert_inbound (fixture, "Weather?", NULL);
  options.origin = PRS_RUN_ORIGIN_AGENT_INFERENCE;
  options.conversation_id = fixture->conversation_id;
  options.agent_id = "mail-only";
  options.trigger_message_id = message_id;
  options.temperature = -1;
  run = prs_runner_start (fixture->runner, &options, FALSE, &error);
  g_assert_no_error (error);
  answer = prs_test_wait_rest (run, NULL);

  g_assert_cmpstr (json_object_get_string_member (answer, "status"), ==, "completed");
  g_assert_cmpstr (call_status_at (answer, 0), ==, "denied");
  g_assert_cmpuint (fixture->hook->bodies->len, ==, 0);
  call = prs_store_lookup_tool_call (fixture->store, call_id_at (answer, 0), NULL);
  g_assert_nonnull (call);
  g_assert_nonnull (strstr (call->result_text, "may not use the tool"));
  /* The model was told */
  g_assert_nonnull (strstr (request_body (fixture->provider, 1), "may not use the tool"));
}

/* ---- loop limits ------------------------------------------------------------ */

static void
test_max_rounds (Fixture       *fixture,
                 gconstpointer  data)
{
  g_autoptr(PrsRun) run = NULL;
  g_autoptr(JsonObject) answer = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *kinds = NULL;
  PrsRunLimits limits;

  prs_run_limits_init (&limits);
  limits.max_rounds = 2;
  prs_runner_set_limits (fixture->runner, &limits);
  g_assert_true (prs_store_add_approval_rule (fixture->store, "get_weather", NULL, NULL, "approve", NULL, &error));
  use_script (fixture, "openai",
              "{'kind':'openai','turns':["
              "{'response':{'tool_calls':[" WEATHER_CALL ("A") "]}},"
              "{'response':{'tool_calls':[" WEATHER_CALL ("B") "]}},"
              "{'response':{'tool_calls':[" WEATHER_CALL ("C") "]}}]}");
  run = start_run (fixture, "Loop", NULL, NULL);
  answer = prs_test_wait_rest (run, NULL);
  g_assert_cmpstr (json_object_get_string_member (answer, "status"), ==, "completed");
  g_assert_cmpstr (json_object_get_string_member (answer, "stopReason"), ==, "max_tool_rounds");
  g_assert_cmpuint (fixture->hook->bodies->len, ==, 2);
  kinds = message_kinds (fixture);
  g_assert_true (g_str_has_suffix (kinds, "notice:-"));
}

static void
test_repeated_call (Fixture       *fixture,
                    gconstpointer  data)
{
  g_autoptr(PrsRun) run = NULL;
  g_autoptr(JsonObject) answer = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_true (prs_store_add_approval_rule (fixture->store, "get_weather", NULL, NULL, "approve", NULL, &error));
  use_script (fixture, "openai",
              "{'kind':'openai','repeat_last':true,'turns':["
              "{'response':{'tool_calls':[" WEATHER_CALL ("Paris") "]}}]}");
  run = start_run (fixture, "Loop", NULL, NULL);
  answer = prs_test_wait_rest (run, NULL);
  g_assert_cmpstr (json_object_get_string_member (answer, "stopReason"), ==, "repeated_call");
  g_assert_cmpuint (fixture->hook->bodies->len, ==, 2);
}

/* A run keeps the limits it started with; the runner's new ones are for
 * the runs that start after them */
static void
test_limits_at_start (Fixture       *fixture,
                      gconstpointer  data)
{
  g_autoptr(PrsRun) first = NULL;
  g_autoptr(PrsRun) second = NULL;
  g_autoptr(JsonObject) answer = NULL;
  g_autoptr(GError) error = NULL;
  PrsRunLimits limits;

  prs_run_limits_init (&limits);
  limits.max_rounds = 1;
  prs_runner_set_limits (fixture->runner, &limits);
  use_script (fixture, "openai",
              "{'kind':'openai','turns':["
              "{'response':{'tool_calls':[" WEATHER_CALL ("Paris") "]}},"
              "{'response':{'tool_calls':[" WEATHER_CALL ("Lyon") "]}},"
              "{'response':{'tool_calls':[" WEATHER_CALL ("Rome") "]}},"
              "{'response':{'tool_calls':[" WEATHER_CALL ("Oslo") "]}},"
              "{'response':{'text':'Done.'}}]}");
  first = start_run (fixture, "One round", NULL, NULL);
  answer = prs_test_wait_rest (first, NULL);
  g_assert_cmpstr (json_object_get_string_member (answer, "status"), ==, "awaiting_approval");

  /* The settings change while the first run waits for a person */
  limits.max_rounds = 8;
  prs_runner_set_limits (fixture->runner, &limits);
  g_assert_true (prs_runner_approve (fixture->runner, call_id_at (answer, 0), NULL, &error));
  g_assert_no_error (error);
  g_clear_pointer (&answer, json_object_unref);
  answer = prs_test_wait_rest (first, NULL);
  g_assert_cmpstr (json_object_get_string_member (answer, "status"), ==, "completed");
  g_assert_cmpstr (json_object_get_string_member (answer, "stopReason"), ==, "max_tool_rounds");
  g_assert_cmpuint (fixture->hook->bodies->len, ==, 1);

  /* The next run gets the new limit: two rounds, then the answer */
  g_assert_true (prs_store_add_approval_rule (fixture->store, "get_weather", NULL, NULL, "approve", NULL, &error));
  second = start_run (fixture, "Two rounds", NULL, NULL);
  g_clear_pointer (&answer, json_object_unref);
  answer = prs_test_wait_rest (second, NULL);
  g_assert_cmpstr (json_object_get_string_member (answer, "status"), ==, "completed");
  g_assert_cmpstr (json_object_get_string_member (answer, "content"), ==, "Done.");
  g_assert_cmpuint (fixture->hook->bodies->len, ==, 3);
}

/* ---- a run on its own --------------------------------------------------- */

typedef struct
{
  GPtrArray *added;       /* message ids, in order */
  GPtrArray *approvals;   /* tool-call message ids */
  guint      changed;
  guint      working;
  guint      rested;
} Heard;

static void
on_run_added (PrsRun     *run,
              const char *conversation_id,
              const char *message_id,
              Heard      *heard)
{
  g_assert_cmpstr (conversation_id, ==, prs_run_get_conversation_id (run));
  g_ptr_array_add (heard->added, g_strdup (message_id));
}

static void
on_run_changed (PrsRun     *run,
                const char *conversation_id,
                const char *message_id,
                Heard      *heard)
{
  g_assert_cmpstr (conversation_id, ==, prs_run_get_conversation_id (run));
  heard->changed++;
}

static void
on_run_approval (PrsRun     *run,
                 const char *conversation_id,
                 const char *message_id,
                 const char *tool_name,
                 Heard      *heard)
{
  g_assert_cmpstr (tool_name, ==, "get_weather");
  g_ptr_array_add (heard->approvals, g_strdup (message_id));
}

/* The status is stored before either is said: a window that asks the run
 * whether it rests hears the truth */
static void
on_run_working (PrsRun *run,
                Heard  *heard)
{
  g_assert_false (prs_run_is_resting (run));
  heard->working++;
}

static void
on_run_rested (PrsRun *run,
               Heard  *heard)
{
  g_assert_true (prs_run_is_resting (run));
  heard->rested++;
}

/* Made from a PrsRunEnv, with no runner: everything the run stores is
 * announced by its own signals, and working/rested tell when it holds a
 * share of the work */
static void
test_run_alone (Fixture       *fixture,
                gconstpointer  data)
{
  g_autoptr(PrsAgent) agent = prs_agent_new ("ghostly", "Ghostly");
  g_autoptr(PrsRunEnv) env = NULL;
  g_autoptr(PrsRun) run = NULL;
  g_autoptr(JsonObject) answer = NULL;
  g_autoptr(JsonArray) messages = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *message_id = NULL;
  Heard heard = { g_ptr_array_new_with_free_func (g_free), g_ptr_array_new_with_free_func (g_free), 0, 0, 0 };
  PrsRunOptions options = { 0 };
  PrsRunLimits limits;

  agent->allowed_tools = g_strsplit ("get_weather,ghost_tool", ",", -1);
  g_assert_true (prs_store_save_agent (fixture->store, agent, NULL, &error));
  g_assert_no_error (error);
  use_script (fixture, "anthropic",
              "{'kind':'anthropic','turns':["
              "{'response':{'text':'Checking.','tool_calls':[" WEATHER_CALL ("Paris") "]}},"
              "{'response':{'chunks':['Sunny ','in Paris.'],'delay':0.3}}]}");
  prs_run_limits_init (&limits);
  env = prs_run_env_new (fixture->store, fixture->providers, fixture->secrets, fixture->registry, NULL, &limits);

  message_id = insert_inbound (fixture, "Weather?", NULL);
  options.origin = PRS_RUN_ORIGIN_AGENT_INFERENCE;
  options.conversation_id = fixture->conversation_id;
  options.agent_id = "ghostly";
  options.trigger_message_id = message_id;
  options.temperature = -1;
  run = prs_run_new (env, &options, &error);
  g_assert_no_error (error);
  g_signal_connect (run, "message-added", G_CALLBACK (on_run_added), &heard);
  g_signal_connect (run, "message-changed", G_CALLBACK (on_run_changed), &heard);
  g_signal_connect (run, "approval-needed", G_CALLBACK (on_run_approval), &heard);
  g_signal_connect (run, "working", G_CALLBACK (on_run_working), &heard);
  g_signal_connect (run, "rested", G_CALLBACK (on_run_rested), &heard);
  g_assert_cmpuint (heard.added->len, ==, 0);

  prs_run_begin (run);
  answer = prs_test_wait_rest (run, NULL);
  g_assert_cmpstr (json_object_get_string_member (answer, "status"), ==, "awaiting_approval");
  g_assert_cmpuint (heard.approvals->len, ==, 1);
  g_assert_cmpuint (heard.working, ==, 0);
  g_assert_cmpuint (heard.rested, ==, 1);
  g_assert_cmpuint (fixture->approvals_needed, ==, 0);

  /* A person's decision: the run works again on its own, then ends */
  g_assert_true (prs_run_decide (run, g_ptr_array_index (heard.approvals, 0), "approve", NULL, FALSE, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (heard.working, ==, 1);
  g_clear_pointer (&answer, json_object_unref);
  answer = prs_test_wait_rest (run, NULL);
  g_assert_cmpstr (json_object_get_string_member (answer, "status"), ==, "completed");
  g_assert_cmpstr (json_object_get_string_member (answer, "content"), ==, "Sunny in Paris.");
  g_assert_cmpuint (heard.rested, ==, 2);
  g_assert_cmpuint (heard.working, ==, 1);
  g_assert_cmpuint (heard.changed, >=, 4);

  /* Every message the run stored was announced, in the order stored: the
   * notice for the tool that is not discovered, the first reply, the
   * call, its result, the last reply */
  messages = prs_store_list_messages (fixture->store, fixture->conversation_id, 0, 100, NULL);
  g_assert_cmpuint (json_array_get_length (messages), ==, heard.added->len + 1);
  for (guint i = 0; i < heard.added->len; i++)
    g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (messages, i + 1), "id"), ==,
                     g_ptr_array_index (heard.added, i));
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (messages, 1), "kind"), ==, "notice");
  g_assert_cmpuint (heard.added->len, ==, 5);

  prs_run_detach (run);
  g_ptr_array_unref (heard.added);
  g_ptr_array_unref (heard.approvals);
}

/* ---- failover, no provider ------------------------------------------------ */

static void
test_failover (Fixture       *fixture,
               gconstpointer  data)
{
  g_autoptr(PrsRun) run = NULL;
  g_autoptr(JsonObject) answer = NULL;
  g_autoptr(PrsInsights) insights = NULL;
  PrsInsightsModel *first, *second;
  g_autoptr(JsonArray) messages = NULL;
  JsonObject *extra = NULL, *timing;
  JsonArray *failover;

  fixture->provider = prs_test_provider_start ("{'kind':'openai','turns':[{'response':{'status':500,'message':'Boom'}}]}");
  /* The first piece 0.3 s after the request, the last 0.3 s after it */
  fixture->provider2 = prs_test_provider_start ("{'kind':'anthropic','turns':[{'response':{'text':'From the second.',"
                                                "'chunks':['From ','the second.'],'initial_delay':0.3,'delay':0.3,"
                                                "'usage':{'input':30,'output':4}}}]}");
  add_provider (fixture, "openai", "First", fixture->provider, 0);
  add_provider (fixture, "anthropic", "Second", fixture->provider2, 1);
  run = start_run (fixture, "Hi", NULL, NULL);
  answer = prs_test_wait_rest (run, NULL);
  g_assert_cmpstr (json_object_get_string_member (answer, "status"), ==, "completed");
  g_assert_cmpstr (json_object_get_string_member (answer, "content"), ==, "From the second.");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (answer, "provider"), "name"), ==, "Second");

  /* Each attempt counted where it belongs, the answer timed */
  insights = insights_all (fixture);
  g_assert_cmpuint (insights->models->len, ==, 2);
  first = g_ptr_array_index (insights->models, 0);
  second = g_ptr_array_index (insights->models, 1);
  if (g_strcmp0 (first->provider_name, "First") != 0)
    {
      PrsInsightsModel *swap = first;

      first = second;
      second = swap;
    }
  g_assert_cmpstr (first->provider_name, ==, "First");
  g_assert_cmpuint (first->failures, ==, 1);
  g_assert_cmpuint (first->failovers, ==, 1);
  g_assert_cmpuint (first->total.timed, ==, 0);
  g_assert_cmpuint (second->calls, ==, 1);
  g_assert_cmpuint (second->failures, ==, 0);
  g_assert_cmpuint (second->input_tokens, ==, 30);
  g_assert_cmpint (second->first_token.p50_ms, >=, 200);
  g_assert_cmpint (second->total.p50_ms, >=, second->first_token.p50_ms);
  /* The answer says which provider failed and why, and how long it took */
  messages = prs_store_list_messages (fixture->store, fixture->conversation_id, 0, 50, NULL);
  for (guint i = 0; i < json_array_get_length (messages); i++)
    if (g_strcmp0 (json_object_get_string_member (json_array_get_object_element (messages, i), "kind"), "assistant") == 0)
      extra = json_object_get_object_member (json_array_get_object_element (messages, i), "extra");
  g_assert_nonnull (extra);
  failover = json_object_get_array_member (extra, "failover");
  g_assert_cmpuint (json_array_get_length (failover), ==, 1);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (failover, 0), "providerName"), ==, "First");
  g_assert_nonnull (strstr (json_object_get_string_member (json_array_get_object_element (failover, 0), "error"), "Boom"));
  timing = json_object_get_object_member (extra, "timing");
  g_assert_cmpint (json_object_get_int_member (timing, "firstTokenMs"), >=, 300);
  g_assert_cmpint (json_object_get_int_member (timing, "totalMs"), >=,
                   json_object_get_int_member (timing, "firstTokenMs") + 250);
  g_assert_cmpstr (json_object_get_string_member (extra, "providerName"), ==, "Second");
}

static void
test_no_provider (Fixture       *fixture,
                  gconstpointer  data)
{
  g_autoptr(PrsRun) run = NULL;
  g_autoptr(JsonObject) answer = NULL;
  g_autofree char *message_id = NULL;
  g_autoptr(JsonNode) inbound = NULL;
  guint status = 0;

  run = start_run (fixture, "Hi", NULL, &message_id);
  answer = prs_test_wait_rest (run, &status);
  g_assert_cmpuint (status, ==, 503);
  g_assert_cmpstr (json_object_get_string_member (answer, "status"), ==, "failed");
  g_assert_cmpstr (json_object_get_string_member (answer, "code"), ==, "no-provider");
  inbound = prs_store_get_message (fixture->store, message_id, NULL);
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (inbound), "status"), ==, "failed");
}

/* ---- restarts --------------------------------------------------------------- */

static void
test_restart_pending (Fixture       *fixture,
                      gconstpointer  data)
{
  g_autoptr(PrsRun) run = NULL;
  g_autoptr(JsonObject) answer = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *call_id = NULL;
  g_autofree char *message_id = NULL;
  guint status;

  fixture->provider = prs_test_provider_start ("{'kind':'openai','turns':["
                                    "{'response':{'tool_calls':[" WEATHER_CALL ("Paris") "]}},"
                                    "{'response':{'text':'Sunny, after the restart.'}}]}");
  add_provider (fixture, "openai", "Scripted", fixture->provider, 0);
  run = start_run (fixture, "Weather?", NULL, &message_id);
  answer = prs_test_wait_rest (run, NULL);
  call_id = g_strdup (call_id_at (answer, 0));
  g_clear_object (&run);
  g_clear_pointer (&answer, json_object_unref);

  /* "Quit": everything goes; the store keeps the run */
  close_runner (fixture);
  open_runner (fixture);
  prs_runner_resume (fixture->runner);

  {
    g_autoptr(JsonNode) stored = prs_run_build_answer (fixture->store, message_id, &status);

    g_assert_cmpuint (status, ==, 200);
    g_assert_cmpstr (json_object_get_string_member (json_node_get_object (stored), "status"), ==, "awaiting_approval");
  }
  run = g_object_ref (prs_runner_get_conversation_run (fixture->runner, fixture->conversation_id));
  g_assert_cmpstr (prs_run_get_status (run), ==, "awaiting_approval");

  g_assert_true (prs_runner_approve (fixture->runner, call_id, NULL, &error));
  g_assert_no_error (error);
  answer = prs_test_wait_rest (run, NULL);
  g_assert_cmpstr (json_object_get_string_member (answer, "status"), ==, "completed");
  g_assert_cmpstr (json_object_get_string_member (answer, "content"), ==, "Sunny, after the restart.");
}

static void
test_restart_interrupted (Fixture       *fixture,
                          gconstpointer  data)
{
  g_autoptr(PrsRun) run = NULL;
  g_autoptr(JsonObject) answer = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *message_id = NULL;
  g_autoptr(PrsToolCallRow) call = NULL;
  g_autoptr(JsonNode) call_message = NULL;

  g_assert_true (prs_store_add_approval_rule (fixture->store, "get_weather", NULL, NULL, "approve", NULL, &error));
  fixture->provider = prs_test_provider_start ("{'kind':'openai','turns':["
                                    "{'response':{'tool_calls':[" WEATHER_CALL ("Paris") "]}},"
                                    "{'response':{'text':'Retried and done.'}}]}");
  add_provider (fixture, "openai", "Scripted", fixture->provider, 0);
  fixture->hook->hang = TRUE;
  run = start_run (fixture, "Weather?", NULL, &message_id);
  while (fixture->hook->bodies->len == 0)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpstr (prs_run_get_status (run), ==, "running");
  g_clear_object (&run);

  close_runner (fixture);
  fixture->hook->hang = FALSE;
  open_runner (fixture);
  prs_runner_resume (fixture->runner);

  run = g_object_ref (prs_runner_get_conversation_run (fixture->runner, fixture->conversation_id));
  answer = prs_test_wait_rest (run, NULL);
  g_assert_cmpstr (json_object_get_string_member (answer, "status"), ==, "awaiting_approval");
  g_assert_cmpstr (call_status_at (answer, 0), ==, "interrupted");
  call = prs_store_lookup_tool_call (fixture->store, call_id_at (answer, 0), NULL);
  call_message = prs_store_get_message (fixture->store, call->message_id, NULL);
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (call_message), "status"), ==, "interrupted");

  g_assert_true (prs_runner_retry (fixture->runner, call->message_id, &error));
  g_assert_no_error (error);
  g_clear_pointer (&answer, json_object_unref);
  answer = prs_test_wait_rest (run, NULL);
  g_assert_cmpstr (json_object_get_string_member (answer, "status"), ==, "completed");
  g_assert_cmpuint (fixture->hook->bodies->len, ==, 2);
}

/* Stop while a workflow runs: its request is closed, and the call ends
 * cancelled — stopped, not failed — in the words an MCP tool's uses */
static void
test_stop_running_call (Fixture       *fixture,
                        gconstpointer  data)
{
  g_autoptr(PrsRun) run = NULL;
  g_autoptr(JsonObject) answer = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsToolCallRow) call = NULL;
  g_autoptr(JsonNode) call_message = NULL;
  JsonObject *message;

  g_assert_true (prs_store_add_approval_rule (fixture->store, "get_weather", NULL, NULL, "approve", NULL, &error));
  fixture->provider = prs_test_provider_start ("{'kind':'openai','turns':["
                                    "{'response':{'tool_calls':[" WEATHER_CALL ("Paris") "]}}]}");
  add_provider (fixture, "openai", "Scripted", fixture->provider, 0);
  fixture->hook->hang = TRUE;
  run = start_run (fixture, "Weather?", NULL, NULL);
  while (fixture->hook->bodies->len == 0)
    g_main_context_iteration (NULL, TRUE);
  g_assert_true (prs_runner_cancel (fixture->runner, prs_run_get_id (run), NULL));
  answer = prs_test_wait_rest (run, NULL);
  fixture->hook->hang = FALSE;

  g_assert_cmpstr (prs_run_get_status (run), ==, "cancelled");
  g_assert_cmpstr (call_status_at (answer, 0), ==, "cancelled");
  call = prs_store_lookup_tool_call (fixture->store, call_id_at (answer, 0), NULL);
  call_message = prs_store_get_message (fixture->store, call->message_id, NULL);
  message = json_node_get_object (call_message);
  g_assert_cmpstr (json_object_get_string_member (message, "status"), ==, "cancelled");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (message, "extra"), "error"), ==,
                   "The call was stopped.");
}

/* ---- binding, hygiene -------------------------------------------------- */

static void
test_binding_and_hygiene (Fixture       *fixture,
                          gconstpointer  data)
{
  g_autoptr(PrsAgent) agent = NULL;
  g_autoptr(PrsRun) run = NULL;
  g_autoptr(JsonObject) answer = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsToolCallRow) call = NULL;
  g_autoptr(JsonNode) message = NULL;
  g_autoptr(JsonNode) unit = json_node_init_string (json_node_alloc (), "metric");
  g_autoptr(JsonArray) requests = NULL;
  g_autofree char *first = NULL;
  g_autofree char *kinds = NULL;
  JsonObject *provenance;
  PrsToolGuidance *guidance;
  PrsRunOptions options = { 0 };
  g_autofree char *message_id = NULL;
  const char *context = "{\"location\":{\"city\":\"Ly" TAG_A "on\"},\"note\":\"ig" ZWSP "nore\"}";

  agent = prs_agent_new ("weather-agent", "Weather Agent");
  agent->allowed_tools = g_strsplit ("get_weather,ghost_tool", ",", -1);
  guidance = prs_guidance_ensure_tool (agent->guidance, "get_weather");
  prs_tool_guidance_set_param (guidance, prs_param_guidance_new_context ("city", "location.city",
                                                                          PRS_GUIDANCE_IF_MISSING_ASK));
  prs_tool_guidance_set_param (guidance, prs_param_guidance_new_constant ("unit", unit));
  g_assert_true (prs_store_save_agent (fixture->store, agent, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (prs_store_add_approval_rule (fixture->store, "get_weather", "weather-agent", NULL, "approve", NULL, &error));

  g_free (fixture->hook->answer);
  fixture->hook->answer = g_strdup ("{\"forecast\":\"rain" TAG_A ZWSP "y\"}");
  use_script (fixture, "openai",
              "{'kind':'openai','turns':["
              "{'response':{'tool_calls':[" WEATHER_CALL ("Paris") "]}},"
              "{'response':{'text':'Rainy in Lyon.'}}]}");

  message_id = insert_inbound (fixture, "Weather" ZWSP "?", context);
  options.origin = PRS_RUN_ORIGIN_AGENT_INFERENCE;
  options.conversation_id = fixture->conversation_id;
  options.agent_id = "weather-agent";
  options.trigger_message_id = message_id;
  options.context_json = context;
  options.temperature = -1;
  run = prs_runner_start (fixture->runner, &options, FALSE, &error);
  g_assert_no_error (error);
  answer = prs_test_wait_rest (run, NULL);
  g_assert_cmpstr (json_object_get_string_member (answer, "status"), ==, "completed");

  /* The context's value and the constant won over the model's arguments */
  g_assert_nonnull (strstr (g_ptr_array_index (fixture->hook->bodies, 0), "\"city\":\"Lyon\""));
  g_assert_nonnull (strstr (g_ptr_array_index (fixture->hook->bodies, 0), "\"unit\":\"metric\""));
  call = prs_store_lookup_tool_call (fixture->store, call_id_at (answer, 0), NULL);
  message = prs_store_get_message (fixture->store, call->message_id, NULL);
  provenance = json_object_get_object_member (json_object_get_object_member (json_node_get_object (message), "extra"),
                                              "provenance");
  g_assert_cmpstr (json_object_get_string_member (provenance, "city"), ==, "context:location.city");
  g_assert_cmpstr (json_object_get_string_member (provenance, "unit"), ==, "constant");

  /* The model never saw an invisible character; the context came as data */
  requests = prs_test_provider_requests (fixture->provider);
  for (guint i = 0; i < json_array_get_length (requests); i++)
    {
      g_autofree char *text = prs_json_to_string (json_object_get_member (json_array_get_object_element (requests, i),
                                                                          "body"), FALSE);

      g_assert_null (strstr (text, TAG_A));
      g_assert_null (strstr (text, ZWSP));
    }
  first = request_body (fixture->provider, 0);
  g_assert_nonnull (strstr (first, PRS_RUN_DATA_PREAMBLE));
  g_assert_nonnull (strstr (first, "```json"));
  g_assert_nonnull (strstr (first, "ignore"));
  g_assert_nonnull (strstr (request_body (fixture->provider, 1), "rainy"));

  /* The allowed tool that does not exist became a notice */
  kinds = message_kinds (fixture);
  g_assert_true (g_str_has_prefix (kinds, "inbound:completed notice:-"));
}

/* ---- chat with history ---------------------------------------------------- */

static void
test_chat_history (Fixture       *fixture,
                   gconstpointer  data)
{
  g_autoptr(PrsRun) run = NULL;
  g_autoptr(JsonObject) answer = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *body = NULL;
  const char *texts[][2] = { { "user", "My name is Ada." }, { "assistant", "Hello Ada." },
                             { "user", "What is my name?" } };

  use_script (fixture, "anthropic", "{'kind':'anthropic','turns':[{'response':{'text':'Ada.'}}]}");
  for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
    {
      PrsMessageInsert insert = { 0 };

      insert.conversation_id = fixture->conversation_id;
      insert.kind = texts[i][0];
      insert.content = texts[i][1];
      insert.status = g_str_equal (texts[i][0], "assistant") ? "completed" : NULL;
      g_assert_true (prs_store_insert_message (fixture->store, &insert, NULL, NULL, &error));
    }
  run = prs_runner_start_chat (fixture->runner, fixture->conversation_id, NULL, &error);
  g_assert_no_error (error);
  answer = prs_test_wait_rest (run, NULL);
  g_assert_cmpstr (json_object_get_string_member (answer, "content"), ==, "Ada.");
  body = request_body (fixture->provider, 0);
  g_assert_nonnull (strstr (body, "My name is Ada."));
  g_assert_nonnull (strstr (body, "Hello Ada."));
  g_assert_nonnull (strstr (body, "What is my name?"));
}

int
main (int   argc,
      char *argv[])
{
  static const char *kinds[] = { "openai", "ollama", "anthropic", "gemini" };

  g_test_init (&argc, &argv, NULL);
  prs_tool_call_set_retry_delays_for_testing ((const guint[]) { 10, 10, 10 });

#define ADD(path, func, data) \
  g_test_add ("/prs/runs/" path, Fixture, data, fixture_setup, func, fixture_teardown)

  for (guint i = 0; i < G_N_ELEMENTS (kinds); i++)
    {
      g_autofree char *path = g_strdup_printf ("/prs/runs/approve/%s", kinds[i]);

      g_test_add (path, Fixture, kinds[i], fixture_setup, test_approve, fixture_teardown);
    }
  ADD ("deny", test_deny, NULL);
  ADD ("edit", test_edit, NULL);
  ADD ("approve-all", test_approve_all, NULL);
  ADD ("rules", test_rules, NULL);
  ADD ("tool-not-allowed", test_tool_not_allowed, NULL);
  ADD ("max-rounds", test_max_rounds, NULL);
  ADD ("repeated-call", test_repeated_call, NULL);
  ADD ("limits-at-start", test_limits_at_start, NULL);
  ADD ("run-alone", test_run_alone, NULL);
  ADD ("failover", test_failover, NULL);
  ADD ("no-provider", test_no_provider, NULL);
  ADD ("restart/pending-approval", test_restart_pending, NULL);
  ADD ("restart/interrupted", test_restart_interrupted, NULL);
  ADD ("stop/running-call", test_stop_running_call, NULL);
  ADD ("binding-and-hygiene", test_binding_and_hygiene, NULL);
  ADD ("webhook-auth", test_webhook_auth, NULL);
  ADD ("chat-history", test_chat_history, NULL);

  return g_test_run ();
}
