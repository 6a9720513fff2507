/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Tests for what a run says was taken: a tool result posted back later
 * (agentic-loop-result) is acknowledged only once the run has stored it
 * (prs_callback_registry_deliver_stored (), prs-run.c), and a person's
 * decision on a waiting call only once it is stored; both say that they
 * were not when another program kept the database busy. A run driven by
 * tests/scripted-provider.py and a scripted n8n webhook that answers
 * "Workflow was started" (tests/lib). */
#include "config.h"

#include <string.h>

#include "prs-discovery.h"
#include "prs-error.h"
#include "prs-store-insights.h"
#include "prs-json.h"
#include "prs-providers.h"
#include "prs-run.h"
#include "prs-runner.h"
#include "prs-secrets.h"
#include "prs-store.h"
#include "prs-test-util.h"

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
  char                *conversation_id;
} Fixture;

/* What the sender of a result heard */
typedef struct
{
  const char *dir;
  gboolean    told;
  GError     *error;
  char       *call_id;
  char       *status_seen;   /* the call's status another connection read when told */
  gboolean    result_seen;   /* … and whether its result message was there */
} Sender;

static void
fixture_setup (Fixture       *fixture,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) tools = g_ptr_array_new_with_free_func ((GDestroyNotify) prs_tool_free);
  g_autoptr(PrsRunEnv) env = NULL;
  g_autofree char *hook_url = NULL;
  g_autofree char *provider_url = NULL;
  PrsTool *tool = prs_tool_new ();

  fixture->dir = g_dir_make_tmp ("prs-test-run-callback-XXXXXX", &error);
  g_assert_no_error (error);
  fixture->hook = prs_test_hook_start (FALSE);
  /* n8n's answer of a "Respond: Immediately" workflow; with "sync", the
   * workflow's own result (nobody posts one back) */
  g_free (fixture->hook->answer);
  fixture->hook->answer = g_strdup (g_strcmp0 (data, "sync") == 0 ? "{\"filed\":true}"
                                                                   : "{\"message\":\"Workflow was started\"}");
  hook_url = prs_test_hook_url (fixture->hook);

  env = prs_test_run_env_new (fixture->dir, "https://127.0.0.1:1/api/ai/agentic-loop-result", &fixture->store,
                              &fixture->secrets, &fixture->providers, &fixture->registry);
  fixture->runner = prs_runner_new (env);
  g_assert_true (prs_store_set_setting (fixture->store, PRS_SETTING_N8N_URL, hook_url, &error));

  tool->name = g_strdup ("file_mail");
  tool->description = g_strdup ("Files a mail.");
  tool->workflow_id = g_strdup ("wf-file");
  tool->webhook_path = g_strdup ("file");
  tool->webhook_method = g_strdup ("POST");
  tool->response_mode = g_strdup (g_strcmp0 (data, "sync") == 0 ? "lastNode" : "onReceived");
  tool->webhook_node_name = g_strdup ("Webhook");
  tool->webhook_id = g_strdup ("hook-file");
  g_ptr_array_add (tools, tool);
  g_assert_true (prs_store_save_discovery (fixture->store, tools, NULL, 1000, &error));
  /* With "ask" the call waits for a person */
  if (g_strcmp0 (data, "ask") != 0)
    g_assert_true (prs_store_add_approval_rule (fixture->store, "file_mail", NULL, NULL, "approve", NULL,
                                                &error));
  g_assert_true (prs_store_resolve_conversation (fixture->store, "inbox", &fixture->conversation_id, NULL, &error));
  g_assert_no_error (error);

  /* With "reply" the model answers at once, with no tool call; with
   * "slow-reply" a second later */
  if (g_strcmp0 (data, "reply") == 0)
    fixture->provider = prs_test_provider_start ("{'kind':'openai','turns':[{'response':{'text':'Done.'}}]}");
  else if (g_strcmp0 (data, "slow-reply") == 0)
    fixture->provider = prs_test_provider_start ("{'kind':'openai','turns':[{'response':{'text':'Done.',"
                                                 "'stream':false,'initial_delay':1.0}}]}");
  else
    fixture->provider = prs_test_provider_start ("{'kind':'openai','turns':["
                                                 "{'response':{'tool_calls':[{'id':'call_1','name':'file_mail',"
                                                 "'arguments':{}}]}},"
                                                 "{'response':{'text':'Filed.'}}]}");
  provider_url = prs_test_provider_base_url (fixture->provider, "openai");
  prs_providers_add (fixture->providers, "openai", "Scripted", provider_url, "model-a", 0, "sk-test", NULL,
                     &error);
  g_assert_no_error (error);
}

static void
fixture_teardown (Fixture       *fixture,
                  gconstpointer  data)
{
  g_clear_object (&fixture->runner);
  g_clear_object (&fixture->registry);
  g_clear_object (&fixture->providers);
  g_clear_object (&fixture->secrets);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_clear_object (&fixture->store);
  prs_test_hook_stop (fixture->hook);
  prs_test_provider_stop (fixture->provider);
  g_free (fixture->conversation_id);
  prs_test_remove_tree (fixture->dir);
  g_free (fixture->dir);
}

/* Starts a run whose model proposes a call of the tool */
static PrsRun *
start_run (Fixture *fixture)
{
  return prs_test_start_inference (fixture->runner, fixture->store, fixture->conversation_id, NULL,
                                   "File the mail.", NULL, NULL);
}

/* … approved by a rule: waits until the workflow was started; the call's
 * envelope (its id and callback secret) */
static JsonObject *
start_call (Fixture  *fixture,
            PrsRun  **out_run)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) body = NULL;
  g_autoptr(PrsRun) run = start_run (fixture);
  const char *call_id;

  while (fixture->hook->bodies->len == 0)
    g_main_context_iteration (NULL, TRUE);
  body = prs_json_parse_bounded (g_ptr_array_index (fixture->hook->bodies, 0),
                                 strlen (g_ptr_array_index (fixture->hook->bodies, 0)), 64, &error);
  g_assert_no_error (error);
  call_id = json_object_get_string_member (json_object_get_object_member (json_node_get_object (body),
                                                                          "prosponsive"), "toolCallId");
  /* The call waits for its result once its webhook answered */
  while (!prs_callback_registry_is_expected (fixture->registry, call_id))
    g_main_context_iteration (NULL, TRUE);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  if (out_run != NULL)
    *out_run = g_steal_pointer (&run);
  return json_object_ref (json_object_get_object_member (json_node_get_object (body), "prosponsive"));
}

static void
on_stored (const GError *error,
           guint64       commit,
           gpointer      data)
{
  Sender *sender = data;
  g_autoptr(GError) open_error = NULL;
  g_autoptr(PrsStore) other = prs_store_new (sender->dir, &open_error);
  g_autoptr(PrsToolCallRow) call = NULL;

  g_assert_no_error (open_error);
  g_assert_false (sender->told);
  sender->told = TRUE;
  sender->error = error != NULL ? g_error_copy (error) : NULL;
  /* What another program finds at the moment the sender hears of it */
  call = prs_store_lookup_tool_call (other, sender->call_id, NULL);
  sender->status_seen = call != NULL ? g_strdup (call->status) : NULL;
  sender->result_seen = call != NULL && call->result_message_id != NULL;
}

static PrsCallbackDelivery
post_result (Fixture    *fixture,
             JsonObject *envelope,
             Sender     *sender)
{
  g_autoptr(JsonNode) result = json_from_string ("{\"filed\":true}", NULL);

  sender->dir = fixture->dir;
  sender->call_id = g_strdup (json_object_get_string_member (envelope, "toolCallId"));
  return prs_callback_registry_deliver_stored (fixture->registry, sender->call_id,
                                               json_object_get_string_member (envelope, "callbackSecret"),
                                               TRUE, result, NULL, NULL, on_stored, sender);
}

static void
sender_clear (Sender *sender)
{
  g_clear_error (&sender->error);
  g_free (sender->call_id);
  g_free (sender->status_seen);
}

/* Posts the call's result and waits until its sender hears that it was
 * stored — @not_yet: not before the run stored it — and that another
 * connection then finds it */
static void
post_until_stored (Fixture    *fixture,
                   JsonObject *envelope,
                   gboolean    not_yet)
{
  Sender sender = { 0 };

  g_assert_cmpint (post_result (fixture, envelope, &sender), ==, PRS_CALLBACK_DELIVERED);
  if (not_yet)
    g_assert_false (sender.told);
  while (!sender.told)
    g_main_context_iteration (NULL, TRUE);
  g_assert_no_error (sender.error);
  g_assert_cmpstr (sender.status_seen, ==, "succeeded");
  g_assert_true (sender.result_seen);
  sender_clear (&sender);
}

static void
test_told_once_stored (Fixture       *fixture,
                       gconstpointer  data)
{
  g_autoptr(JsonObject) envelope = start_call (fixture, NULL);

  post_until_stored (fixture, envelope, TRUE);
}

/* Another program writes past the busy timeout: nothing of the result
 * can be stored, and its sender hears so. The result is not used: the run
 * waits for it as before, and the same result posted again once the
 * database is free is taken, stored, and the run goes on with it
 * (docs/api.md) */
static void
test_told_when_busy (Fixture       *fixture,
                              gconstpointer  data)
{
  g_autoptr(PrsRun) run = NULL;
  g_autoptr(JsonObject) envelope = start_call (fixture, &run);
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsStore) holder = prs_store_new (fixture->dir, &error);
  g_autoptr(JsonArray) asked = NULL;
  g_autoptr(PrsToolCallRow) call = NULL;
  Sender sender = { 0 };

  g_assert_true (prs_store_batch_begin (holder, PRS_STORE_SYNC_NOW, &error));
  g_assert_cmpint (post_result (fixture, envelope, &sender), ==, PRS_CALLBACK_DELIVERED);
  while (!sender.told)
    g_main_context_iteration (NULL, TRUE);
  g_assert_true (prs_store_batch_end (holder, &error));
  g_assert_error (sender.error, PRS_ERROR, PRS_ERROR_STORE_BUSY);
  g_assert_false (sender.result_seen);
  sender_clear (&sender);

  /* The run did not go on with it: the model was not asked again, and the
   * call still waits for its result, under the same id and secret */
  while (g_main_context_iteration (NULL, FALSE))
    ;
  asked = prs_test_provider_requests (fixture->provider);
  g_assert_cmpuint (json_array_get_length (asked), ==, 1);
  g_assert_cmpstr (prs_run_get_status (run), ==, "running");
  call = prs_store_lookup_tool_call (fixture->store, json_object_get_string_member (envelope, "toolCallId"), NULL);
  g_assert_cmpstr (call->status, ==, "running");
  g_assert_null (call->result_message_id);

  post_until_stored (fixture, envelope, FALSE);
  while (!prs_run_is_finished (run))
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpstr (prs_run_get_status (run), ==, "completed");
}

/* The proposed call's tool-call message, once the run waits for a person */
static char *
wait_for_proposal (Fixture *fixture,
                   PrsRun  *run)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) calls = NULL;

  while (g_strcmp0 (prs_run_get_status (run), "awaiting_approval") != 0)
    g_main_context_iteration (NULL, TRUE);
  calls = prs_store_list_tool_calls (fixture->store, prs_run_get_id (run), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (calls->len, ==, 1);
  return g_strdup (((PrsToolCallRow *) g_ptr_array_index (calls, 0))->message_id);
}

static void
test_decision_when_busy (Fixture       *fixture,
                         gconstpointer  data)
{
  g_autoptr(PrsRun) run = start_run (fixture);
  g_autofree char *message_id = wait_for_proposal (fixture, run);
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) busy = NULL;
  g_autoptr(PrsStore) holder = prs_store_new (fixture->dir, &error);
  g_autoptr(PrsToolCallRow) call = NULL;

  /* Another program writes past the busy timeout: the decision is not
   * taken, and says so */
  g_assert_true (prs_store_batch_begin (holder, PRS_STORE_SYNC_NOW, &error));
  g_assert_false (prs_runner_deny (fixture->runner, message_id, &busy));
  g_assert_true (prs_store_batch_end (holder, &error));
  g_assert_error (busy, PRS_ERROR, PRS_ERROR_STORE_BUSY);

  /* The call still waits: decided again, it is */
  g_assert_true (prs_runner_deny (fixture->runner, message_id, &error));
  g_assert_no_error (error);
  call = prs_store_lookup_tool_call (fixture->store, message_id, NULL);
  g_assert_nonnull (call);
  g_assert_cmpstr (call->status, ==, "denied");
}

/* The busy timeout (5 s) and a margin: another program that lets go this
 * long after a write began waiting lets that write through */
#define LETS_GO_MS 6500

/* Another program lets go of the database after the decision found it
 * busy: nothing of the decision is stored then, one write after another
 * (the call stays proposed, as the answer says) */
static void
test_decision_whole_when_busy (Fixture       *fixture,
                               gconstpointer  data)
{
  g_autoptr(PrsRun) run = start_run (fixture);
  g_autofree char *message_id = wait_for_proposal (fixture, run);
  g_autoptr(GError) busy = NULL;
  g_autoptr(PrsToolCallRow) call = NULL;
  GThread *holder = prs_test_sql_hold (prs_store_get_path (fixture->store), LETS_GO_MS);

  g_assert_false (prs_runner_deny (fixture->runner, message_id, &busy));
  g_thread_join (holder);
  g_assert_error (busy, PRS_ERROR, PRS_ERROR_STORE_BUSY);
  call = prs_store_lookup_tool_call (fixture->store, message_id, NULL);
  g_assert_cmpstr (call->status, ==, "proposed");
  g_assert_cmpstr (prs_run_get_status (run), ==, "awaiting_approval");
}

typedef struct
{
  gboolean  told;
  GError   *error;
} Waiter;

static void
on_rest (GObject      *source,
         GAsyncResult *result,
         gpointer      data)
{
  Waiter *waiter = data;
  g_autoptr(JsonNode) answer = prs_run_wait_rest_finish (PRS_RUN (source), result, NULL, &waiter->error);

  waiter->told = TRUE;
}

/* Runs the main context until *@flag, or @seconds passed */
static void
iterate_until (gboolean *flag,
               guint     seconds)
{
  gint64 deadline = g_get_monotonic_time () + seconds * G_TIME_SPAN_SECOND;

  while (!*flag && g_get_monotonic_time () < deadline)
    if (!g_main_context_iteration (NULL, FALSE))
      g_usleep (1000);
}

/* A workflow's own result (nobody posts it back) that finds the database
 * busy: nothing of it is stored, whoever waits for the run hears why, and
 * the run keeps it and stores it whole once the database is free — the
 * tool is not called again */
static void
test_result_kept_when_busy (Fixture       *fixture,
                            gconstpointer  data)
{
  g_autoptr(PrsRun) run = start_run (fixture);
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsStore) holder = prs_store_new (fixture->dir, &error);
  g_autoptr(GPtrArray) calls = NULL;
  Waiter waiter = { 0 };
  gboolean finished = FALSE;

  while (fixture->hook->bodies->len == 0)
    g_main_context_iteration (NULL, TRUE);
  /* Taken before the workflow's answer is read */
  g_assert_true (prs_store_batch_begin (holder, PRS_STORE_SYNC_NOW, &error));
  prs_run_wait_rest_async (run, NULL, on_rest, &waiter);
  iterate_until (&waiter.told, 30);
  g_assert_true (waiter.told);
  g_assert_error (waiter.error, PRS_ERROR, PRS_ERROR_STORE_BUSY);
  g_assert_true (prs_store_batch_end (holder, &error));
  g_clear_error (&waiter.error);

  calls = prs_store_list_tool_calls (fixture->store, prs_run_get_id (run), &error);
  g_assert_cmpuint (calls->len, ==, 1);
  g_assert_cmpstr (((PrsToolCallRow *) g_ptr_array_index (calls, 0))->status, ==, "running");
  g_clear_pointer (&calls, g_ptr_array_unref);

  while (!finished)
    {
      iterate_until (&finished, 1);
      finished = prs_run_is_finished (run);
    }
  g_assert_cmpstr (prs_run_get_status (run), ==, "completed");
  calls = prs_store_list_tool_calls (fixture->store, prs_run_get_id (run), &error);
  g_assert_cmpstr (((PrsToolCallRow *) g_ptr_array_index (calls, 0))->status, ==, "succeeded");
  g_assert_nonnull (((PrsToolCallRow *) g_ptr_array_index (calls, 0))->result_message_id);
  g_assert_cmpuint (fixture->hook->bodies->len, ==, 1);
}

/* What a listener of the run's messages heard, and whether another
 * program found each message then */
typedef struct
{
  PrsStore   *store;     /* the run's own connection */
  const char *dir;
  guint       results;   /* tool-result messages said to be added */
  guint       found;     /* … of those, stored when said */
} Listener;

static void
on_message_added (PrsRun     *run,
                  const char *conversation_id,
                  const char *message_id,
                  gpointer    data)
{
  Listener *listener = data;
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsStore) other = prs_store_new (listener->dir, &error);
  g_autoptr(JsonNode) own = prs_store_get_message (listener->store, message_id, NULL);
  g_autoptr(JsonNode) stored = NULL;

  g_assert_no_error (error);
  if (own == NULL ||
      g_strcmp0 (json_object_get_string_member (json_node_get_object (own), "kind"), "tool-result") != 0)
    return;
  listener->results++;
  stored = prs_store_get_message (other, message_id, NULL);
  if (stored != NULL)
    listener->found++;
}

/* A message is said once it is stored: a listener that hears of the
 * posted result finds it from another connection */
static void
test_result_said_once_stored (Fixture       *fixture,
                              gconstpointer  data)
{
  g_autoptr(PrsRun) run = NULL;
  g_autoptr(JsonObject) envelope = start_call (fixture, &run);
  Listener listener = { fixture->store, fixture->dir, 0, 0 };

  g_signal_connect (run, "message-added", G_CALLBACK (on_message_added), &listener);
  post_until_stored (fixture, envelope, TRUE);
  g_assert_cmpuint (listener.results, ==, 1);
  g_assert_cmpuint (listener.found, ==, 1);
}

/* A batch undone (a write of it failed) says nothing of the messages it
 * wrote first: the result's message was written, the call's new state was
 * refused, and no window ever shows that result */
static void
test_undone_result_not_said (Fixture       *fixture,
                             gconstpointer  data)
{
  g_autoptr(PrsRun) run = NULL;
  g_autoptr(JsonObject) envelope = start_call (fixture, &run);
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsStore) other = prs_store_new (fixture->dir, &error);
  g_autoptr(PrsToolCallRow) call = NULL;
  Listener listener = { fixture->store, fixture->dir, 0, 0 };
  Sender sender = { 0 };

  prs_test_store_exec (other, "CREATE TRIGGER refuse_result BEFORE UPDATE ON tool_calls"
                              " WHEN NEW.status = 'succeeded'"
                              " BEGIN SELECT RAISE (ABORT, 'refused by the test'); END");
  g_signal_connect (run, "message-added", G_CALLBACK (on_message_added), &listener);
  g_assert_cmpint (post_result (fixture, envelope, &sender), ==, PRS_CALLBACK_DELIVERED);
  while (!sender.told)
    g_main_context_iteration (NULL, TRUE);
  g_assert_nonnull (sender.error);
  g_assert_false (sender.result_seen);
  sender_clear (&sender);
  g_assert_cmpuint (listener.results, ==, 0);
  call = prs_store_lookup_tool_call (fixture->store, json_object_get_string_member (envelope, "toolCallId"), NULL);
  g_assert_cmpstr (call->status, ==, "running");
}

/* A run stored when it starts (a reply asked for in the window) that
 * cannot be: it does not start, and whoever asked hears why */
static void
test_start_refused_when_busy (Fixture       *fixture,
                              gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsStore) holder = prs_store_new (fixture->dir, &error);
  g_autoptr(PrsRun) run = NULL;
  g_autoptr(GError) busy = NULL;
  g_autoptr(GPtrArray) runs = NULL;
  PrsMessageInsert message = { .conversation_id = fixture->conversation_id, .kind = "user", .content = "Hello." };

  g_assert_true (prs_store_insert_message (fixture->store, &message, NULL, NULL, &error));
  g_assert_true (prs_store_batch_begin (holder, PRS_STORE_SYNC_NOW, &error));
  run = prs_runner_start_chat (fixture->runner, fixture->conversation_id, NULL, &busy);
  g_assert_true (prs_store_batch_end (holder, &error));
  g_assert_null (run);
  g_assert_error (busy, PRS_ERROR, PRS_ERROR_STORE_BUSY);
  g_assert_true (prs_runner_is_idle (fixture->runner));
}

/* Stop, pressed while another program holds the database: refused,
 * saying so, and @run waits as it is stored (@waiting); pressed again once
 * the database is free, it ends the run */
static void
stop_refused_then_stopped (Fixture    *fixture,
                           PrsRun     *run,
                           const char *waiting)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) busy = NULL;
  g_autoptr(PrsStore) holder = prs_store_new (fixture->dir, &error);
  g_autoptr(PrsRunRow) row = NULL;

  g_assert_true (prs_store_batch_begin (holder, PRS_STORE_SYNC_NOW, &error));
  g_assert_false (prs_runner_cancel (fixture->runner, prs_run_get_id (run), &busy));
  g_assert_true (prs_store_batch_end (holder, &error));
  g_assert_error (busy, PRS_ERROR, PRS_ERROR_STORE_BUSY);
  g_assert_cmpstr (prs_run_get_status (run), ==, waiting);
  g_assert_true (prs_runner_lookup_run (fixture->runner, prs_run_get_id (run)) == run);
  row = prs_store_lookup_run (fixture->store, prs_run_get_id (run), &error);
  g_assert_cmpstr (row->status, ==, waiting);
  g_clear_pointer (&row, prs_run_row_free);

  g_assert_true (prs_runner_cancel (fixture->runner, prs_run_get_id (run), &error));
  g_assert_no_error (error);
  g_assert_cmpstr (prs_run_get_status (run), ==, "cancelled");
  row = prs_store_lookup_run (fixture->store, prs_run_get_id (run), &error);
  g_assert_cmpstr (row->status, ==, "cancelled");
}

/* A Stop while the run waits for a person, when its end cannot be
 * stored: the run waits as it is stored, and the window, which reads the
 * run, shows that; a Stop asked again once the database is free ends it */
static void
test_stop_refused_when_busy (Fixture       *fixture,
                             gconstpointer  data)
{
  g_autoptr(PrsRun) run = start_run (fixture);
  g_autofree char *message_id = wait_for_proposal (fixture, run);

  stop_refused_then_stopped (fixture, run, "awaiting_approval");
}

/* A Stop of a run that waits for a slot (four others work), when its end
 * cannot be stored: the run waits for its slot as it is stored, and
 * whoever pressed Stop hears why; a Stop asked again ends it */
static void
test_stop_queued_refused_when_busy (Fixture       *fixture,
                                    gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsRun) run = NULL;
  g_autoptr(JsonArray) requests = NULL;
  PrsMessageInsert message = { .conversation_id = fixture->conversation_id, .kind = "user", .content = "Hello." };
  guint reserved = 0;

  while (prs_runner_try_reserve (fixture->runner))
    reserved++;
  g_assert_true (prs_store_insert_message (fixture->store, &message, NULL, NULL, &error));
  run = prs_runner_start_chat (fixture->runner, fixture->conversation_id, NULL, &error);
  g_assert_no_error (error);
  stop_refused_then_stopped (fixture, run, "running");
  while (reserved-- > 0)
    prs_runner_release_reservation (fixture->runner);
  /* Never begun: the model was not asked */
  while (g_main_context_iteration (NULL, FALSE))
    ;
  requests = prs_test_provider_requests (fixture->provider);
  g_assert_cmpuint (json_array_get_length (requests), ==, 0);
}

/* Every commit of a transaction that inserts into @table (the rows for
 * which @when holds) fails, as a disk that fills at the commit would: a
 * deferred foreign key, which SQLite checks only at COMMIT, refuses it
 * (and the transaction is rolled back whole) */
static void
refuse_commits (Fixture    *fixture,
                const char *table,
                const char *when)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsStore) other = prs_store_new (fixture->dir, &error);
  g_autofree char *trigger = g_strdup_printf ("CREATE TRIGGER refuse_commit AFTER INSERT ON %s %s"
                                              " BEGIN INSERT INTO refused VALUES (1); END", table, when);

  g_assert_no_error (error);
  prs_test_store_exec (other, "CREATE TABLE refusal (id INTEGER PRIMARY KEY)");
  prs_test_store_exec (other, "CREATE TABLE refused (refusal INTEGER REFERENCES refusal (id)"
                              " DEFERRABLE INITIALLY DEFERRED)");
  prs_test_store_exec (other, trigger);
}

static void
allow_commits (Fixture *fixture)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsStore) other = prs_store_new (fixture->dir, &error);

  g_assert_no_error (error);
  prs_test_store_exec (other, "DROP TRIGGER refuse_commit");
}

/* Waits until whoever waits for @run's rest is told; the error told */
static GError *
wait_told (PrsRun *run)
{
  Waiter waiter = { 0 };

  prs_run_wait_rest_async (run, NULL, on_rest, &waiter);
  iterate_until (&waiter.told, 30);
  g_assert_true (waiter.told);
  return waiter.error;
}

static void
set_flag (gpointer data)
{
  *(gboolean *) data = TRUE;
}

/* Runs the main context for @ms milliseconds */
static void
iterate_for (guint ms)
{
  gboolean done = FALSE;

  g_timeout_add_once (ms, set_flag, &done);
  iterate_until (&done, ms / 1000 + 5);
}

static void
wait_finished (PrsRun *run)
{
  gboolean finished = FALSE;

  while (!finished)
    {
      iterate_until (&finished, 1);
      finished = prs_run_is_finished (run);
    }
}

/* How many assistant entries @row's stored transcript has */
static guint
count_replies (PrsRunRow *row)
{
  g_autoptr(JsonNode) node = json_from_string (row->transcript_json, NULL);
  JsonArray *array = json_node_get_array (node);
  guint n = 0;

  for (guint i = 0; i < json_array_get_length (array); i++)
    if (g_strcmp0 (json_object_get_string_member (json_array_get_object_element (array, i), "role"),
                   "assistant") == 0)
      n++;
  return n;
}

/* Starts a run whose commits that insert into @table (@when) fail:
 * whoever waits for it hears why, and it still runs */
static PrsRun *
start_not_committed (Fixture    *fixture,
                     const char *table,
                     const char *when)
{
  g_autoptr(GError) told = NULL;
  PrsRun *run;

  refuse_commits (fixture, table, when);
  run = start_run (fixture);
  told = wait_told (run);
  g_assert_nonnull (told);
  g_assert_nonnull (strstr (told->message, "FOREIGN KEY"));
  g_assert_cmpstr (prs_run_get_status (run), ==, "running");
  g_assert_true (prs_runner_lookup_run (fixture->runner, prs_run_get_id (run)) == run);
  return run;
}

/* … then lets the commits work: the run ends, completed, the model asked
 * @asked times in all; its tool calls */
static GPtrArray *
finish_committed (Fixture *fixture,
                  PrsRun  *run,
                  guint    asked)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonArray) requests = NULL;
  GPtrArray *calls;

  allow_commits (fixture);
  wait_finished (run);
  g_assert_cmpstr (prs_run_get_status (run), ==, "completed");
  requests = prs_test_provider_requests (fixture->provider);
  g_assert_cmpuint (json_array_get_length (requests), ==, asked);
  calls = prs_store_list_tool_calls (fixture->store, prs_run_get_id (run), &error);
  g_assert_no_error (error);
  return calls;
}

/* How many assistant messages @fixture's conversation holds */
static guint
count_reply_messages (Fixture *fixture)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonArray) messages = prs_store_list_messages (fixture->store, fixture->conversation_id, 0, 100, &error);
  guint replies = 0;

  g_assert_no_error (error);
  for (guint i = 0; i < json_array_get_length (messages); i++)
    if (g_strcmp0 (json_object_get_string_member (json_array_get_object_element (messages, i), "kind"),
                   "assistant") == 0)
      replies++;
  return replies;
}

/* The commit that ends a run with the model's plain reply fails (here a
 * deferred foreign key; the disk filling at the commit does the same):
 * whoever waits hears why at once, nothing of it is stored, and the run
 * has not ended: it keeps the reply and stores it again later, while it
 * runs, without asking the model again — after another failed try, once
 * the commit works. Then the request's answer is that reply, completed,
 * stored once (docs/storage.md) */
static void
test_reply_kept_when_not_committed (Fixture       *fixture,
                                    gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsRun) run = start_not_committed (fixture, "messages", "WHEN NEW.kind = 'assistant'");
  g_autoptr(PrsRunRow) row = prs_store_lookup_run (fixture->store, prs_run_get_id (run), NULL);
  g_autoptr(GPtrArray) calls = NULL;
  g_autoptr(JsonNode) answer = NULL;
  guint status = 0;

  /* Its row, written before the end or not, says it still runs */
  g_assert_true (row == NULL || g_strcmp0 (row->status, "running") == 0);
  g_clear_pointer (&row, prs_run_row_free);
  /* The first try again (1 s later) fails too; the next (2 s after it) works */
  iterate_for (1500);
  g_assert_cmpstr (prs_run_get_status (run), ==, "running");
  calls = finish_committed (fixture, run, 1);
  g_assert_cmpuint (calls->len, ==, 0);

  row = prs_store_lookup_run (fixture->store, prs_run_get_id (run), &error);
  g_assert_no_error (error);
  g_assert_cmpstr (row->status, ==, "completed");
  g_assert_cmpuint (count_replies (row), ==, 1);
  answer = prs_run_build_answer (fixture->store, prs_run_get_trigger_message_id (run), &status);
  g_assert_cmpuint (status, ==, 200);
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (answer), "status"), ==, "completed");
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (answer), "content"), ==, "Done.");
  g_assert_cmpuint (count_reply_messages (fixture), ==, 1);
}

/* The model proposed a call whose commit failed: nothing may act on a
 * call that is not stored, and the model is not asked again as if it had
 * been made. The run keeps the answer and stores it again later; once
 * that works, the call runs (once) and the run goes on */
static void
test_proposal_kept_when_not_committed (Fixture       *fixture,
                                       gconstpointer  data)
{
  g_autoptr(PrsRun) run = start_not_committed (fixture, "tool_calls", "");
  g_autoptr(GPtrArray) calls = prs_store_list_tool_calls (fixture->store, prs_run_get_id (run), NULL);

  g_assert_cmpuint (fixture->hook->bodies->len, ==, 0);
  g_assert_cmpuint (calls->len, ==, 0);
  g_clear_pointer (&calls, g_ptr_array_unref);

  calls = finish_committed (fixture, run, 2);
  g_assert_cmpuint (fixture->hook->bodies->len, ==, 1);
  g_assert_cmpuint (calls->len, ==, 1);
  g_assert_cmpstr (((PrsToolCallRow *) g_ptr_array_index (calls, 0))->status, ==, "succeeded");
}

/* A workflow's own result (nobody posts it back) whose commit fails:
 * nothing of it is stored, whoever waits hears why, the call still runs
 * as stored, and the run keeps the result and stores it once it can —
 * the tool is not called again */
static void
test_result_kept_when_not_committed (Fixture       *fixture,
                                     gconstpointer  data)
{
  g_autoptr(PrsRun) run = start_not_committed (fixture, "messages", "WHEN NEW.kind = 'tool-result'");
  g_autoptr(GPtrArray) calls = prs_store_list_tool_calls (fixture->store, prs_run_get_id (run), NULL);

  g_assert_cmpuint (calls->len, ==, 1);
  g_assert_cmpstr (((PrsToolCallRow *) g_ptr_array_index (calls, 0))->status, ==, "running");
  g_assert_null (((PrsToolCallRow *) g_ptr_array_index (calls, 0))->result_message_id);
  g_clear_pointer (&calls, g_ptr_array_unref);

  calls = finish_committed (fixture, run, 2);
  g_assert_cmpstr (((PrsToolCallRow *) g_ptr_array_index (calls, 0))->status, ==, "succeeded");
  g_assert_nonnull (((PrsToolCallRow *) g_ptr_array_index (calls, 0))->result_message_id);
  g_assert_cmpuint (fixture->hook->bodies->len, ==, 1);
}

/* The run's conversation is deleted (prosponsive-ctl conversation
 * delete) while its model answers: the end's writes are refused, and
 * would be at every try, so the run ends saying why instead of keeping
 * an answer it can never store */
static void
test_end_refused_for_good (Fixture       *fixture,
                           gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsStore) other = prs_store_new (fixture->dir, &error);
  g_autoptr(PrsRun) run = start_run (fixture);
  g_autoptr(GError) told = NULL;
  g_autofree char *sql = g_strdup_printf ("DELETE FROM conversations WHERE id = '%s'", fixture->conversation_id);

  g_assert_no_error (error);
  prs_test_store_exec (other, sql);
  told = wait_told (run);
  g_assert_nonnull (told);
  g_assert_true (prs_run_is_finished (run));
  g_assert_null (prs_runner_lookup_run (fixture->runner, prs_run_get_id (run)));
}

/* Stop, pressed while @run keeps a model's answer it could not store:
 * accepted, and stored at once, whole — the run ends cancelled, not
 * completed when the answer is stored later; @let_write lets the database
 * write again (the kept end's next try would find it free) */
static void
stop_kept_end (Fixture *fixture,
               PrsRun  *run,
               void   (*let_write) (Fixture *fixture))
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsRunRow) row = NULL;
  g_autoptr(JsonNode) answer = NULL;
  JsonObject *object;
  guint status = 0;

  g_assert_true (prs_runner_cancel (fixture->runner, prs_run_get_id (run), &error));
  g_assert_no_error (error);
  g_assert_cmpstr (prs_run_get_status (run), ==, "cancelled");
  g_assert_null (prs_runner_lookup_run (fixture->runner, prs_run_get_id (run)));
  if (let_write != NULL)
    let_write (fixture);
  /* Past the kept end's next try */
  iterate_for (2500);
  g_assert_cmpstr (prs_run_get_status (run), ==, "cancelled");
  row = prs_store_lookup_run (fixture->store, prs_run_get_id (run), &error);
  g_assert_no_error (error);
  g_assert_cmpstr (row->status, ==, "cancelled");
  g_assert_cmpstr (row->stop_reason, ==, "cancelled");
  g_assert_cmpuint (count_replies (row), ==, 0);
  g_assert_cmpuint (count_reply_messages (fixture), ==, 0);
  /* The same request asked again hears what a stopped run answers */
  answer = prs_run_build_answer (fixture->store, prs_run_get_trigger_message_id (run), &status);
  object = json_node_get_object (answer);
  g_assert_cmpuint (status, ==, 200);
  g_assert_cmpstr (json_object_get_string_member (object, "status"), ==, "failed");
  g_assert_cmpstr (json_object_get_string_member (object, "code"), ==, "cancelled");
}

/* A plain reply kept after its commit failed, then Stop */
static void
test_stop_kept_reply (Fixture       *fixture,
                      gconstpointer  data)
{
  g_autoptr(PrsRun) run = start_not_committed (fixture, "messages", "WHEN NEW.kind = 'assistant'");
  g_autoptr(JsonArray) requests = NULL;

  stop_kept_end (fixture, run, allow_commits);
  requests = prs_test_provider_requests (fixture->provider);
  g_assert_cmpuint (json_array_get_length (requests), ==, 1);
}

/* Starts a run whose model answers a second later, when another program
 * holds the database: whoever waits for it hears so, and the run keeps
 * the answer, still running, once the database is free again */
static PrsRun *
start_kept_busy (Fixture *fixture)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsStore) holder = prs_store_new (fixture->dir, &error);
  g_autoptr(GError) told = NULL;
  PrsRun *run = start_run (fixture);

  g_assert_true (prs_store_batch_begin (holder, PRS_STORE_SYNC_NOW, &error));
  told = wait_told (run);
  g_assert_error (told, PRS_ERROR, PRS_ERROR_STORE_BUSY);
  g_assert_true (prs_store_batch_end (holder, &error));
  g_assert_cmpstr (prs_run_get_status (run), ==, "running");
  return run;
}

/* A plain reply kept after the database was busy when its end began,
 * then Stop once it is free */
static void
test_stop_kept_busy_reply (Fixture       *fixture,
                           gconstpointer  data)
{
  g_autoptr(PrsRun) run = start_kept_busy (fixture);

  stop_kept_end (fixture, run, NULL);
}

/* Proposed tool calls kept after their commit failed, then Stop: none
 * is stored, none runs */
static void
test_stop_kept_proposal (Fixture       *fixture,
                         gconstpointer  data)
{
  g_autoptr(PrsRun) run = start_not_committed (fixture, "tool_calls", "");
  g_autoptr(GPtrArray) calls = NULL;

  stop_kept_end (fixture, run, allow_commits);
  calls = prs_store_list_tool_calls (fixture->store, prs_run_get_id (run), NULL);
  g_assert_cmpuint (calls->len, ==, 0);
  g_assert_cmpuint (fixture->hook->bodies->len, ==, 0);
}

/* Stop while a reply is kept, refused too (another program holds the
 * database): refused as any Stop the database refuses, saying why, and
 * the run goes on as it was — it stores the reply once it can */
static void
test_stop_kept_refused (Fixture       *fixture,
                        gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) busy = NULL;
  g_autoptr(PrsStore) holder = prs_store_new (fixture->dir, &error);
  g_autoptr(PrsRun) run = start_not_committed (fixture, "messages", "WHEN NEW.kind = 'assistant'");
  g_autoptr(GPtrArray) calls = NULL;

  g_assert_true (prs_store_batch_begin (holder, PRS_STORE_SYNC_NOW, &error));
  g_assert_false (prs_runner_cancel (fixture->runner, prs_run_get_id (run), &busy));
  g_assert_true (prs_store_batch_end (holder, &error));
  g_assert_error (busy, PRS_ERROR, PRS_ERROR_STORE_BUSY);
  g_assert_cmpstr (prs_run_get_status (run), ==, "running");
  calls = finish_committed (fixture, run, 1);
  g_assert_cmpuint (count_reply_messages (fixture), ==, 1);
}

/* The reply's own timing, as its message keeps it */
static JsonObject *
reply_timing (Fixture *fixture)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonArray) messages = prs_store_list_messages (fixture->store, fixture->conversation_id, 0, 100, &error);

  g_assert_no_error (error);
  for (guint i = 0; i < json_array_get_length (messages); i++)
    {
      JsonObject *message = json_array_get_object_element (messages, i);

      if (g_strcmp0 (json_object_get_string_member (message, "kind"), "assistant") == 0)
        return json_object_ref (json_object_get_object_member (json_object_get_object_member (message, "extra"),
                                                               "timing"));
    }
  g_assert_not_reached ();
}

/* A reply kept while another program held the database (seconds: a busy
 * wait, then the back-off) and stored after: its time in Insights and in
 * its message is the model's (about a second), not the wait */
static void
test_kept_time_is_the_model_s (Fixture       *fixture,
                               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  gint64 held = g_get_monotonic_time ();
  g_autoptr(PrsRun) run = start_kept_busy (fixture);
  g_autoptr(JsonObject) timing = NULL;
  g_autoptr(PrsInsights) insights = NULL;
  g_autofree char *path = g_build_filename (fixture->dir, "prosponsive.db", NULL);
  g_autofree char *total_ms = NULL;
  g_autofree char *waited = NULL;
  PrsInsightsModel *model;

  wait_finished (run);
  g_assert_cmpstr (prs_run_get_status (run), ==, "completed");
  /* The end waited more than 3 s to be stored */
  g_assert_cmpint (g_get_monotonic_time () - held, >, 3 * G_TIME_SPAN_SECOND);

  /* … and counted when the model answered, not when it was stored */
  waited = prs_test_sql_query (path, "SELECT CAST ((julianday (m.created_at) - julianday (c.created_at)) * 86400000"
                                     " AS INTEGER) FROM model_calls c, messages m WHERE m.kind = 'assistant'");
  g_assert_cmpint (g_ascii_strtoll (waited, NULL, 10), >=, 3000);
  total_ms = prs_test_sql_query (path, "SELECT total_ms FROM model_calls");
  g_assert_cmpint (g_ascii_strtoll (total_ms, NULL, 10), >=, 1000);
  g_assert_cmpint (g_ascii_strtoll (total_ms, NULL, 10), <, 3000);
  insights = prs_store_read_insights (fixture->store, PRS_INSIGHTS_ALL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (insights->models->len, ==, 1);
  model = g_ptr_array_index (insights->models, 0);
  g_assert_cmpuint (model->total.timed, ==, 1);
  g_assert_cmpint (model->total.p50_ms, <, 3000);
  timing = reply_timing (fixture);
  g_assert_cmpint (json_object_get_int_member (timing, "totalMs"), >=, 1000);
  g_assert_cmpint (json_object_get_int_member (timing, "totalMs"), <, 3000);
  g_assert_cmpint (json_object_get_int_member (timing, "firstTokenMs"), <, 3000);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add ("/prs/run-acks/result-told-once-stored", Fixture, NULL, fixture_setup, test_told_once_stored,
              fixture_teardown);
  g_test_add ("/prs/run-acks/result-told-when-busy", Fixture, NULL, fixture_setup, test_told_when_busy,
              fixture_teardown);
  g_test_add ("/prs/run-acks/decision-when-busy", Fixture, "ask", fixture_setup, test_decision_when_busy,
              fixture_teardown);
  g_test_add ("/prs/run-acks/decision-whole-when-busy", Fixture, "ask", fixture_setup,
              test_decision_whole_when_busy, fixture_teardown);
  g_test_add ("/prs/run-acks/result-kept-when-busy", Fixture, "sync", fixture_setup, test_result_kept_when_busy,
              fixture_teardown);
  g_test_add ("/prs/run-acks/result-said-once-stored", Fixture, NULL, fixture_setup, test_result_said_once_stored,
              fixture_teardown);
  g_test_add ("/prs/run-acks/undone-result-not-said", Fixture, NULL, fixture_setup, test_undone_result_not_said,
              fixture_teardown);
  g_test_add ("/prs/run-acks/start-refused-when-busy", Fixture, "ask", fixture_setup,
              test_start_refused_when_busy, fixture_teardown);
  g_test_add ("/prs/run-acks/stop-refused-when-busy", Fixture, "ask", fixture_setup, test_stop_refused_when_busy,
              fixture_teardown);
  g_test_add ("/prs/run-acks/stop-queued-refused-when-busy", Fixture, NULL, fixture_setup,
              test_stop_queued_refused_when_busy, fixture_teardown);
  g_test_add ("/prs/run-kept/reply-kept-when-not-committed", Fixture, "reply", fixture_setup,
              test_reply_kept_when_not_committed, fixture_teardown);
  g_test_add ("/prs/run-kept/end-refused-for-good", Fixture, "slow-reply", fixture_setup,
              test_end_refused_for_good, fixture_teardown);
  g_test_add ("/prs/run-kept/proposal-kept-when-not-committed", Fixture, "sync", fixture_setup,
              test_proposal_kept_when_not_committed, fixture_teardown);
  g_test_add ("/prs/run-kept/result-kept-when-not-committed", Fixture, "sync", fixture_setup,
              test_result_kept_when_not_committed, fixture_teardown);
  g_test_add ("/prs/run-kept/stop-reply", Fixture, "reply", fixture_setup, test_stop_kept_reply,
              fixture_teardown);
  g_test_add ("/prs/run-kept/stop-busy-reply", Fixture, "slow-reply", fixture_setup,
              test_stop_kept_busy_reply, fixture_teardown);
  g_test_add ("/prs/run-kept/stop-proposal", Fixture, "sync", fixture_setup, test_stop_kept_proposal,
              fixture_teardown);
  g_test_add ("/prs/run-kept/stop-refused", Fixture, "reply", fixture_setup, test_stop_kept_refused,
              fixture_teardown);
  g_test_add ("/prs/run-kept/time-is-the-model-s", Fixture, "slow-reply", fixture_setup,
              test_kept_time_is_the_model_s, fixture_teardown);
  return g_test_run ();
}
