/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-run-history.c: the history a chat or /api/ai/inference run sends
 * (docs/runs.md, what the model is given): the whole conversation by
 * default, trimmed to the model's context window oldest first, a tool call
 * never apart from its result, and the history-depth cap. The model is the
 * scripted Anthropic-style provider of tests/lib; each request's body is
 * read back as the provider got it. */
#include "config.h"

#include <string.h>

#include "prs-json.h"
#include "prs-runner.h"
#include "prs-test-util.h"

#define PAIRS 20
#define FILLER_BYTES 3000

typedef struct
{
  char            *dir;
  PrsStore        *store;
  PrsSecrets      *secrets;
  PrsProviders    *providers;
  PrsRunner       *runner;
  PrsTestProvider *provider;
  char            *conversation_id;
  guint            requests;
} Fixture;

static void
insert (Fixture    *fixture,
        const char *kind,
        const char *content,
        const char *extra_json,
        char      **out_id)
{
  g_autoptr(GError) error = NULL;
  PrsMessageInsert message = { 0 };

  message.conversation_id = fixture->conversation_id;
  message.kind = kind;
  message.content = content;
  message.status = "completed";
  message.extra_json = extra_json;
  g_assert_true (prs_store_insert_message (fixture->store, &message, out_id, NULL, &error));
  g_assert_no_error (error);
}

/* PAIRS questions and answers of FILLER_BYTES each (about 1,000 tokens),
 * the agent calling a tool while answering question 5 and question 12
 * (the second call's result is large), then the question the run answers */
static void
fill_conversation (Fixture *fixture)
{
  g_autofree char *filler = g_strnfill (FILLER_BYTES, 'x');

  for (guint i = 0; i < PAIRS; i++)
    {
      g_autofree char *question = g_strdup_printf ("question %u %s", i, filler);
      g_autofree char *answer = g_strdup_printf ("answer %u %s", i, filler);

      insert (fixture, "user", question, NULL, NULL);
      if (i == 5 || i == 12)
        {
          g_autofree char *call_message = NULL;
          g_autofree char *call = g_strdup_printf ("{\"name\":\"get_weather\",\"toolCallId\":\"call-%u\","
                                                   "\"arguments\":{\"city\":\"Paris\"}}", i);
          g_autofree char *result_extra = NULL;
          g_autofree char *result = g_strdup_printf ("{\"weather\":\"sunny %u\",\"pad\":\"%s\"}", i,
                                                     i == 12 ? filler : "");

          insert (fixture, "tool-call", "get_weather", call, &call_message);
          result_extra = g_strdup_printf ("{\"toolCallMessageId\":\"%s\"}", call_message);
          insert (fixture, "tool-result", result, result_extra, NULL);
        }
      insert (fixture, "assistant", answer, NULL, NULL);
      insert (fixture, "notice", "A notice is never history.", NULL, NULL);
    }
  insert (fixture, "user", "What did I ask first?", NULL, NULL);
}

static void
fixture_setup (Fixture       *fixture,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsRunEnv) env = NULL;
  g_autoptr(GString) script = g_string_new ("{'kind':'anthropic','turns':[");
  g_autofree char *url = NULL;

  for (guint i = 0; i < 16; i++)
    g_string_append_printf (script, "%s{'response':{'text':'You asked question 0.'}}", i > 0 ? "," : "");
  g_string_append (script, "]}");
  fixture->dir = g_dir_make_tmp ("prs-test-history-XXXXXX", &error);
  g_assert_no_error (error);
  env = prs_test_run_env_new (fixture->dir, NULL, &fixture->store, &fixture->secrets, &fixture->providers, NULL);
  fixture->runner = prs_runner_new (env);
  fixture->provider = prs_test_provider_start (script->str);
  url = prs_test_provider_base_url (fixture->provider, "anthropic");
  prs_providers_add (fixture->providers, "anthropic", "Scripted", url, "model-a", 0, "sk-test-Zq7xW", NULL, &error);
  g_assert_no_error (error);
  g_assert_true (prs_store_resolve_conversation (fixture->store, "history", &fixture->conversation_id, NULL, &error));
  g_assert_no_error (error);
  fill_conversation (fixture);
}

static void
fixture_teardown (Fixture       *fixture,
                  gconstpointer  data)
{
  g_clear_object (&fixture->runner);
  g_clear_object (&fixture->providers);
  g_clear_object (&fixture->secrets);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_clear_object (&fixture->store);
  g_clear_pointer (&fixture->provider, prs_test_provider_stop);
  prs_test_remove_tree (fixture->dir);
  g_free (fixture->dir);
  g_free (fixture->conversation_id);
}

static void
on_rest (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  JsonNode **answer = user_data;
  g_autoptr(GError) error = NULL;

  *answer = prs_run_wait_rest_finish (PRS_RUN (source), result, NULL, &error);
  g_assert_no_error (error);
}

/* Runs a chat with @limits; the messages the provider was sent */
static JsonArray *
chat (Fixture            *fixture,
      const PrsRunLimits *limits)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsRun) run = NULL;
  g_autoptr(JsonNode) answer = NULL;
  g_autoptr(JsonObject) request = NULL;
  JsonObject *body;

  prs_runner_set_limits (fixture->runner, limits);
  run = prs_runner_start_chat (fixture->runner, fixture->conversation_id, NULL, &error);
  g_assert_no_error (error);
  prs_run_wait_rest_async (run, NULL, on_rest, &answer);
  while (answer == NULL)
    g_main_context_iteration (NULL, TRUE);
  json_array_unref (prs_test_provider_requests (fixture->provider));
  request = prs_test_provider_request (fixture->provider, fixture->requests++);
  body = json_object_get_object_member (request, "body");
  return json_array_ref (json_object_get_array_member (body, "messages"));
}

static char *
messages_text (JsonArray *messages)
{
  g_autoptr(JsonNode) node = json_node_init_array (json_node_alloc (), messages);

  return prs_json_to_string (node, FALSE);
}

/* Every tool_use has its tool_result and the other way round; the first
 * message is the person's, the last the question asked */
static void
assert_well_formed (JsonArray *messages)
{
  g_autoptr(GHashTable) uses = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GHashTable) results = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  guint length = json_array_get_length (messages);
  g_autofree char *last = NULL;

  g_assert_cmpuint (length, >, 0);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (messages, 0), "role"), ==, "user");
  last = prs_json_to_string (json_array_get_element (messages, length - 1), FALSE);
  g_assert_nonnull (strstr (last, "What did I ask first?"));
  for (guint i = 0; i < length; i++)
    {
      JsonNode *content = json_object_get_member (json_array_get_object_element (messages, i), "content");

      for (guint j = 0; JSON_NODE_HOLDS_ARRAY (content) && j < json_array_get_length (json_node_get_array (content)); j++)
        {
          JsonObject *block = json_array_get_object_element (json_node_get_array (content), j);
          const char *type = json_object_get_string_member (block, "type");

          if (g_strcmp0 (type, "tool_use") == 0)
            g_hash_table_add (uses, g_strdup (json_object_get_string_member (block, "id")));
          else if (g_strcmp0 (type, "tool_result") == 0)
            g_hash_table_add (results, g_strdup (json_object_get_string_member (block, "tool_use_id")));
        }
    }
  g_assert_cmpuint (g_hash_table_size (uses), ==, g_hash_table_size (results));
  {
    GHashTableIter iter;
    gpointer id;

    g_hash_table_iter_init (&iter, uses);
    while (g_hash_table_iter_next (&iter, &id, NULL))
      g_assert_true (g_hash_table_contains (results, id));
  }
}

/* No cap by default: all 20 exchanges (more than the old 20 messages) and
 * both tool calls with their results; notices left out */
static void
test_whole (Fixture       *fixture,
            gconstpointer  data)
{
  g_autoptr(JsonArray) messages = NULL;
  g_autofree char *text = NULL;
  PrsRunLimits limits;

  prs_run_limits_init (&limits);
  g_assert_cmpuint (limits.history_depth, ==, 0);
  limits.context_tokens = 200000;
  messages = chat (fixture, &limits);
  assert_well_formed (messages);
  text = messages_text (messages);
  g_assert_nonnull (strstr (text, "question 0 "));
  g_assert_nonnull (strstr (text, "answer 19 "));
  g_assert_nonnull (strstr (text, "call-5"));
  g_assert_nonnull (strstr (text, "sunny 5"));
  g_assert_nonnull (strstr (text, "call-12"));
  g_assert_null (strstr (text, "A notice is never history."));
}

/* Smaller and smaller windows: the oldest go first, what is sent always
 * fits, and a call and its result stay together */
static void
test_window (Fixture       *fixture,
             gconstpointer  data)
{
  guint previous = G_MAXUINT;
  PrsRunLimits limits;

  prs_run_limits_init (&limits);
  limits.max_tokens = 256;
  for (guint window = 40000; window >= 4000; window -= 3000)
    {
      g_autoptr(JsonArray) messages = NULL;
      g_autofree char *text = NULL;

      limits.context_tokens = window;
      messages = chat (fixture, &limits);
      assert_well_formed (messages);
      text = messages_text (messages);
      /* What was sent fits the window as the run counts (3 bytes a token) */
      g_assert_cmpuint (strlen (text) / 3, <, window);
      g_assert_cmpuint (strlen (text), <=, previous);
      previous = strlen (text);
      if (window < 30000)
        g_assert_null (strstr (text, "question 0 "));
      if (window >= 7000)
        g_assert_nonnull (strstr (text, "answer 19 "));
      /* The call and its large result: both or neither */
      g_assert_true ((strstr (text, "call-12") != NULL) == (strstr (text, "sunny 12") != NULL));
    }
  /* The smallest window (about 3,700 tokens for history) keeps the last
   * exchange only: question 19 and answer 19 */
  g_assert_cmpuint (previous, >, 2 * FILLER_BYTES);
  g_assert_cmpuint (previous, <, 3 * FILLER_BYTES);
}

/* The depth cap: the last four turns and no more */
static void
test_depth (Fixture       *fixture,
            gconstpointer  data)
{
  g_autoptr(JsonArray) messages = NULL;
  g_autofree char *text = NULL;
  PrsRunLimits limits;

  prs_run_limits_init (&limits);
  limits.history_depth = 4;
  limits.context_tokens = 200000;
  messages = chat (fixture, &limits);
  assert_well_formed (messages);
  text = messages_text (messages);
  g_assert_nonnull (strstr (text, "question 18 "));
  g_assert_nonnull (strstr (text, "answer 19 "));
  g_assert_null (strstr (text, "answer 17 "));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add ("/prs/run-history/whole", Fixture, NULL, fixture_setup, test_whole, fixture_teardown);
  g_test_add ("/prs/run-history/window", Fixture, NULL, fixture_setup, test_window, fixture_teardown);
  g_test_add ("/prs/run-history/depth", Fixture, NULL, fixture_setup, test_depth, fixture_teardown);
  return g_test_run ();
}
