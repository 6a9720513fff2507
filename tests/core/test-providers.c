/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Tests for the AI providers (prs-provider*.c), the event stream parser and
 * the configured set with failover (prs-providers.c). Every provider talks
 * to tests/scripted-provider.py, which speaks each kind's wire protocol and
 * checks the requests the way the real APIs do; it runs as a subprocess on
 * a free loopback port. */
#include "config.h"

#include <string.h>

#include "prs-error.h"
#include "prs-event-stream.h"
#include "prs-json.h"
#include "prs-provider.h"
#include "prs-providers.h"
#include "prs-secrets.h"
#include "prs-store.h"
#include "prs-test-util.h"

#define KEY "sk-test-Zq7xW"

/* ---- The scripted server (tests/lib) ----------------------------------- */

static PrsProvider *
make_provider (const char      *kind,
               PrsTestProvider *server)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *url = prs_test_provider_base_url (server, kind);
  PrsProvider *provider;

  provider = prs_provider_new (kind, url, "model-a", KEY, &error);
  g_assert_no_error (error);
  return provider;
}

/* ---- Running calls ------------------------------------------------------ */

typedef struct
{
  GMainLoop       *loop;
  PrsChatResponse *response;
  GPtrArray       *models;
  GError          *error;
  GPtrArray       *deltas;
  guint            retry_after;
  gboolean         streamed;
} Wait;

static void
wait_clear (Wait *wait)
{
  g_clear_pointer (&wait->loop, g_main_loop_unref);
  g_clear_pointer (&wait->response, prs_chat_response_free);
  g_clear_pointer (&wait->models, g_ptr_array_unref);
  g_clear_error (&wait->error);
  g_clear_pointer (&wait->deltas, g_ptr_array_unref);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Wait, wait_clear)

static void
on_delta (const char *text,
          gpointer    user_data)
{
  Wait *wait = user_data;

  g_ptr_array_add (wait->deltas, g_strdup (text));
}

static void
on_chat (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  Wait *wait = user_data;

  wait->response = prs_provider_chat_finish (PRS_PROVIDER (source), result, &wait->error);
  wait->retry_after = prs_provider_get_retry_after (result);
  wait->streamed = prs_provider_get_streamed_text (result);
  g_main_loop_quit (wait->loop);
}

static void
on_models (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  Wait *wait = user_data;

  wait->models = prs_provider_list_models_finish (PRS_PROVIDER (source), result, &wait->error);
  wait->retry_after = prs_provider_get_retry_after (result);
  g_main_loop_quit (wait->loop);
}

static void
wait_init (Wait *wait)
{
  wait->loop = g_main_loop_new (NULL, FALSE);
  wait->deltas = g_ptr_array_new_with_free_func (g_free);
}

static void
chat (PrsProvider    *provider,
      PrsChatRequest *request,
      Wait           *wait)
{
  wait_init (wait);
  prs_provider_chat_async (provider, request, on_delta, wait, NULL, NULL, on_chat, wait);
  g_main_loop_run (wait->loop);
}

static void
list_models (PrsProvider *provider,
             Wait        *wait)
{
  wait_init (wait);
  prs_provider_list_models_async (provider, NULL, on_models, wait);
  g_main_loop_run (wait->loop);
}

static JsonNode *
parse (const char *json)
{
  g_autofree char *text = g_strdup (json);
  g_autoptr(GError) error = NULL;
  JsonNode *node;

  g_strdelimit (text, "'", '"');
  node = prs_json_parse_bounded (text, strlen (text), 64, &error);
  g_assert_no_error (error);
  return node;
}

static PrsChatRequest *
simple_request (gboolean stream)
{
  PrsChatRequest *request = prs_chat_request_new ();

  request->system_prompt = g_strdup ("You are terse.");
  request->stream = stream;
  request->max_tokens = 256;
  request->temperature = 0.5;
  prs_chat_request_add_user (request, "Say hello");
  return request;
}

static void
add_weather_tool (PrsChatRequest *request)
{
  /* "default" and "additionalProperties" are JSON Schema that Gemini refuses. */
  g_autoptr(JsonNode) schema = parse ("{'type':'object','additionalProperties':false,"
                                      "'properties':{'city':{'type':'string','description':'City',"
                                      "'default':'Paris'},'days':{'type':['integer','null']},"
                                      "'opts':{'type':'object','properties':{}}},"
                                      "'required':['city','ghost']}");

  prs_chat_request_add_tool (request, "get_weather", "The weather for a city", schema);
}

static char *
script_for (const char *kind,
            const char *turns)
{
  return g_strdup_printf ("{'kind':'%s','turns':[%s]}", kind, turns);
}

/* ---- Text, streaming ---------------------------------------------------- */

static void
check_auth_header (const char *kind,
                   JsonObject *request)
{
  JsonObject *headers = json_object_get_object_member (request, "headers");

  if (g_str_equal (kind, "openai"))
    g_assert_cmpstr (json_object_get_string_member (headers, "authorization"), ==, "Bearer " KEY);
  else if (g_str_equal (kind, "anthropic"))
    {
      g_assert_cmpstr (json_object_get_string_member (headers, "x-api-key"), ==, KEY);
      g_assert_cmpstr (json_object_get_string_member (headers, "anthropic-version"), ==, "2023-06-01");
    }
  else if (g_str_equal (kind, "gemini"))
    g_assert_cmpstr (json_object_get_string_member (headers, "x-goog-api-key"), ==, KEY);
}

static void
test_text (gconstpointer data)
{
  const char *kind = data;
  g_autofree char *script = script_for (kind, "{'response':{'text':'Hello there, friend.','usage':{'input':12,'output':5},'model':'model-a-2025'}}");
  g_autoptr(PrsTestProvider) server = prs_test_provider_start (script);
  g_autoptr(PrsProvider) provider = make_provider (kind, server);
  g_autoptr(PrsChatRequest) request = simple_request (FALSE);
  g_auto(Wait) wait = { 0 };
  g_autoptr(JsonObject) logged = NULL;
  JsonObject *body;

  chat (provider, request, &wait);
  g_assert_no_error (wait.error);
  g_assert_cmpstr (wait.response->text, ==, "Hello there, friend.");
  g_assert_cmpstr (wait.response->stop_reason, ==, PRS_STOP_END);
  g_assert_nonnull (wait.response->raw_stop_reason);
  g_assert_cmpint (wait.response->input_tokens, ==, 12);
  g_assert_cmpint (wait.response->output_tokens, ==, 5);
  g_assert_cmpstr (wait.response->model, ==, "model-a-2025");
  g_assert_cmpuint (wait.response->tool_calls->len, ==, 0);

  logged = prs_test_provider_request (server, 0);
  check_auth_header (kind, logged);
  g_assert_false (json_object_get_boolean_member (logged, "stream"));
  body = json_object_get_object_member (logged, "body");
  if (g_str_equal (kind, "anthropic"))
    {
      g_assert_cmpstr (json_object_get_string_member (body, "system"), ==, "You are terse.");
      g_assert_cmpint (json_object_get_int_member (body, "max_tokens"), ==, 256);
    }
  else if (g_str_equal (kind, "gemini"))
    {
      g_assert_true (json_object_has_member (body, "systemInstruction"));
      g_assert_cmpstr (json_object_get_string_member (logged, "path"), ==,
                       "/v1beta/models/model-a:generateContent");
    }
  else if (g_str_equal (kind, "ollama"))
    g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (body, "options"), "num_predict"), ==, 256);
  else
    g_assert_cmpint (json_object_get_int_member (body, "max_tokens"), ==, 256);
}

static void
test_stream (gconstpointer data)
{
  const char *kind = data;
  g_autofree char *script = script_for (kind, "{'response':{'chunks':['Hel','lo, ','wor','ld','!'],'usage':{'input':7,'output':3}}}");
  g_autoptr(PrsTestProvider) server = prs_test_provider_start (script);
  g_autoptr(PrsProvider) provider = make_provider (kind, server);
  g_autoptr(PrsChatRequest) request = simple_request (TRUE);
  g_auto(Wait) wait = { 0 };
  g_autoptr(JsonObject) logged = NULL;
  const char *expected[] = { "Hel", "lo, ", "wor", "ld", "!" };

  chat (provider, request, &wait);
  g_assert_no_error (wait.error);
  g_assert_cmpstr (wait.response->text, ==, "Hello, world!");
  g_assert_cmpstr (wait.response->stop_reason, ==, PRS_STOP_END);
  g_assert_cmpint (wait.response->input_tokens, ==, 7);
  g_assert_cmpint (wait.response->output_tokens, ==, 3);
  g_assert_cmpstr (wait.response->model, ==, "model-a");

  /* Every piece, in order, as it arrived. */
  g_assert_cmpuint (wait.deltas->len, ==, G_N_ELEMENTS (expected));
  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    g_assert_cmpstr (g_ptr_array_index (wait.deltas, i), ==, expected[i]);
  g_assert_true (wait.streamed);

  logged = prs_test_provider_request (server, 0);
  g_assert_true (json_object_get_boolean_member (logged, "stream"));
  if (g_str_equal (kind, "openai"))
    {
      JsonObject *options = json_object_get_object_member (json_object_get_object_member (logged, "body"),
                                                            "stream_options");

      g_assert_true (json_object_get_boolean_member (options, "include_usage"));
    }
  if (g_str_equal (kind, "gemini"))
    g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (logged, "query"), "alt"), ==, "sse");
}

/* ---- Tool calls ---------------------------------------------------------- */

static void
check_weather_call (PrsChatResponse *response,
                    const char      *expected_id)
{
  PrsToolCall *call;

  g_assert_cmpuint (response->tool_calls->len, ==, 2);
  call = g_ptr_array_index (response->tool_calls, 0);
  g_assert_cmpstr (call->name, ==, "get_weather");
  g_assert_cmpstr (json_object_get_string_member (call->arguments, "city"), ==, "Paris");
  g_assert_cmpint (json_object_get_int_member (call->arguments, "days"), ==, 3);
  if (expected_id != NULL)
    g_assert_cmpstr (call->id, ==, expected_id);
  else
    g_assert_true (call->id != NULL && call->id[0] != '\0');

  call = g_ptr_array_index (response->tool_calls, 1);
  g_assert_cmpstr (call->name, ==, "get_time");
  g_assert_cmpuint (json_object_get_size (call->arguments), ==, 0);
  g_assert_cmpstr (response->stop_reason, ==, PRS_STOP_TOOL_CALLS);
}

static void
run_tool_calls (const char *kind,
                gboolean    stream)
{
  gboolean has_ids = g_str_equal (kind, "openai") || g_str_equal (kind, "anthropic");
  g_autofree char *turn = g_strdup_printf (
    "{'response':{'text':'Let me check.','argument_chunks':5,'usage':{'input':30,'output':20},"
    "'tool_calls':[{%s'name':'get_weather','arguments':{'city':'Paris','days':3}},"
    "{%s'name':'get_time','arguments':{}}]}}",
    has_ids ? "'id':'call_w1'," : "", has_ids ? "'id':'call_t2'," : "");
  g_autofree char *script = script_for (kind, turn);
  g_autoptr(PrsTestProvider) server = prs_test_provider_start (script);
  g_autoptr(PrsProvider) provider = make_provider (kind, server);
  g_autoptr(PrsChatRequest) request = simple_request (stream);
  g_auto(Wait) wait = { 0 };
  g_autoptr(JsonObject) logged = NULL;
  g_autoptr(JsonNode) body_node = NULL;
  g_autofree char *body = NULL;

  add_weather_tool (request);
  chat (provider, request, &wait);
  g_assert_no_error (wait.error);
  g_assert_cmpstr (wait.response->text, ==, "Let me check.");
  check_weather_call (wait.response, has_ids ? "call_w1" : NULL);
  g_assert_cmpint (wait.response->input_tokens, ==, 30);
  g_assert_cmpint (wait.response->output_tokens, ==, 20);

  /* The tools went out in the kind's own shape (and passed its checks). */
  logged = prs_test_provider_request (server, 0);
  body_node = json_node_init_object (json_node_alloc (), json_object_get_object_member (logged, "body"));
  body = prs_json_to_string (body_node, FALSE);
  if (g_str_equal (kind, "gemini"))
    {
      g_assert_nonnull (strstr (body, "\"functionDeclarations\""));
      g_assert_null (strstr (body, "\"default\""));
      g_assert_null (strstr (body, "additionalProperties"));
      g_assert_nonnull (strstr (body, "\"nullable\":true"));
    }
  else if (g_str_equal (kind, "anthropic"))
    g_assert_nonnull (strstr (body, "\"input_schema\""));
  else
    g_assert_nonnull (strstr (body, "\"type\":\"function\""));
}

static void
test_tools (gconstpointer data)
{
  run_tool_calls (data, FALSE);
}

static void
test_tools_stream (gconstpointer data)
{
  run_tool_calls (data, TRUE);
}

/* A whole tool round: the history with the call and its result must be
 * accepted by the kind's rules (alternation, ids, shapes). */
static void
test_tool_round (gconstpointer data)
{
  const char *kind = data;
  g_autofree char *script = script_for (kind, "{'response':{'text':'It is sunny in Paris.'}}");
  g_autoptr(PrsTestProvider) server = prs_test_provider_start (script);
  g_autoptr(PrsProvider) provider = make_provider (kind, server);
  g_autoptr(PrsChatRequest) request = simple_request (TRUE);
  g_autoptr(GPtrArray) calls = g_ptr_array_new_with_free_func ((GDestroyNotify) prs_tool_call_free);
  g_autoptr(JsonNode) args = parse ("{'city':'Paris'}");
  g_auto(Wait) wait = { 0 };
  g_autoptr(JsonObject) logged = NULL;

  add_weather_tool (request);
  g_ptr_array_add (calls, prs_tool_call_new ("call_9", "get_weather", json_node_get_object (args)));
  g_ptr_array_add (calls, prs_tool_call_new ("call_10", "get_time", NULL));
  prs_chat_request_add_assistant (request, "Checking.", calls);
  prs_chat_request_add_tool_result (request, "call_9", "get_weather", "{\"sky\":\"sunny\"}");
  prs_chat_request_add_tool_result (request, "call_10", "get_time", "12:00");
  prs_chat_request_add_user (request, "And now?");

  chat (provider, request, &wait);
  g_assert_no_error (wait.error);
  g_assert_cmpstr (wait.response->text, ==, "It is sunny in Paris.");
  logged = prs_test_provider_request (server, 0);
}

/* ---- Errors -------------------------------------------------------------- */

static void
run_error (const char *kind,
           const char *response,
           gboolean    stream,
           int         code)
{
  g_autofree char *turn = g_strdup_printf ("{'response':%s}", response);
  g_autofree char *script = script_for (kind, turn);
  g_autoptr(PrsTestProvider) server = prs_test_provider_start (script);
  g_autoptr(PrsProvider) provider = make_provider (kind, server);
  g_autoptr(PrsChatRequest) request = simple_request (stream);
  g_auto(Wait) wait = { 0 };

  chat (provider, request, &wait);
  g_assert_error (wait.error, PRS_ERROR, code);
  g_assert_null (wait.response);
  /* The message names the provider, and never the key. */
  g_assert_nonnull (strstr (wait.error->message, "127.0.0.1"));
  g_assert_null (strstr (wait.error->message, KEY));
  g_test_message ("%s: %s", kind, wait.error->message);
  if (code == PRS_ERROR_PROVIDER_RATE_LIMITED)
    {
      g_assert_cmpuint (wait.retry_after, ==, 7);
      g_assert_nonnull (strstr (wait.error->message, "7 seconds"));
    }
}

static void
test_auth_error (gconstpointer data)
{
  run_error (data, "{'status':401,'message':'Incorrect API key provided'}", FALSE, PRS_ERROR_PROVIDER_AUTH);
  run_error (data, "{'status':403,'message':'Forbidden'}", TRUE, PRS_ERROR_PROVIDER_AUTH);
  if (g_str_equal (data, "gemini"))
    run_error (data, "{'status':400,'reason':'API_KEY_INVALID','message':'API key not valid.'}", FALSE,
               PRS_ERROR_PROVIDER_AUTH);
}

static void
test_rate_limit (gconstpointer data)
{
  run_error (data, "{'status':429,'message':'Slow down','retry_after':'7'}", TRUE, PRS_ERROR_PROVIDER_RATE_LIMITED);
}

static void
test_server_error (gconstpointer data)
{
  run_error (data, "{'status':500,'message':'Internal trouble'}", FALSE, PRS_ERROR_PROVIDER_SERVER);
  run_error (data, "{'status':503,'message':'Unavailable'}", TRUE, PRS_ERROR_PROVIDER_SERVER);
}

static void
test_unknown_model (gconstpointer data)
{
  run_error (data, "{'status':404,'message':'model not found: model-a'}", FALSE, PRS_ERROR_PROVIDER_UNKNOWN_MODEL);
}

static void
test_malformed (gconstpointer data)
{
  run_error (data, "{'chunks':['a','b','c'],'malformed_after':1}", TRUE, PRS_ERROR_PROVIDER_BAD_RESPONSE);
  run_error (data, "{'text':'abc','malformed_after':1}", FALSE, PRS_ERROR_PROVIDER_BAD_RESPONSE);
  run_error (data, "{'raw':{'status':200,'headers':{'Content-Type':'text/html'},'body':'<html>hi</html>'}}",
             FALSE, PRS_ERROR_PROVIDER_BAD_RESPONSE);
}

static void
test_truncated (gconstpointer data)
{
  run_error (data, "{'chunks':['a','b','c'],'truncate':true}", TRUE, PRS_ERROR_PROVIDER_BAD_RESPONSE);
}

static void
test_stream_error (gconstpointer data)
{
  run_error (data, "{'chunks':['a','b'],'stream_error':{'type':'overloaded_error','message':'Overloaded'}}",
             TRUE, PRS_ERROR_PROVIDER_SERVER);
}

/* Chunks 0.4 s apart with a 1 s idle timeout: a slow stream that keeps
 * moving completes; a server silent for longer than the timeout fails. */
static void
test_slow_stream (gconstpointer data)
{
  const char *kind = data;
  g_autofree char *script = script_for (kind, "{'response':{'chunks':['one ','two ','three ','four'],'delay':0.4}},"
                                              "{'response':{'text':'late','initial_delay':1.8}}");
  g_autoptr(PrsTestProvider) server = prs_test_provider_start (script);
  g_autoptr(PrsProvider) provider = make_provider (kind, server);
  g_autoptr(PrsChatRequest) request = simple_request (TRUE);
  g_auto(Wait) wait = { 0 };
  g_auto(Wait) late = { 0 };

  prs_provider_set_timeout (provider, 1);
  chat (provider, request, &wait);
  g_assert_no_error (wait.error);
  g_assert_cmpstr (wait.response->text, ==, "one two three four");
  g_assert_cmpuint (wait.deltas->len, ==, 4);

  chat (provider, request, &late);
  g_assert_error (late.error, PRS_ERROR, PRS_ERROR_PROVIDER_UNREACHABLE);
}

static void
test_models (gconstpointer data)
{
  const char *kind = data;
  g_autofree char *script = script_for (kind, "{'response':{'models':[{'id':'m-one','name':'Model One'},{'id':'m-two','name':'Model Two'}]}},"
                                              "{'response':{'status':401}}");
  g_autoptr(PrsTestProvider) server = prs_test_provider_start (script);
  g_autoptr(PrsProvider) provider = make_provider (kind, server);
  g_auto(Wait) wait = { 0 };
  g_auto(Wait) denied = { 0 };
  g_autoptr(JsonObject) logged = NULL;
  PrsModelInfo *info;

  list_models (provider, &wait);
  g_assert_no_error (wait.error);
  g_assert_cmpuint (wait.models->len, ==, 2);
  info = g_ptr_array_index (wait.models, 0);
  g_assert_cmpstr (info->id, ==, "m-one");
  if (g_str_equal (kind, "anthropic") || g_str_equal (kind, "gemini"))
    g_assert_cmpstr (info->name, ==, "Model One");
  info = g_ptr_array_index (wait.models, 1);
  g_assert_cmpstr (info->id, ==, "m-two");
  logged = prs_test_provider_request (server, 0);
  check_auth_header (kind, logged);

  list_models (provider, &denied);
  g_assert_error (denied.error, PRS_ERROR, PRS_ERROR_PROVIDER_AUTH);
}

static void
test_unreachable (gconstpointer data)
{
  const char *kind = data;
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsProvider) provider = NULL;
  g_autoptr(PrsChatRequest) request = simple_request (TRUE);
  g_autofree char *url = NULL;
  g_auto(Wait) wait = { 0 };
  g_auto(Wait) models = { 0 };

  /* A port that was free a moment ago and is closed again. */
  url = g_strdup_printf ("http://127.0.0.1:%u%s", prs_test_free_port (),
                         g_str_equal (kind, "openai") ? "/v1" : "");

  provider = prs_provider_new (kind, url, "model-a", KEY, &error);
  g_assert_no_error (error);
  chat (provider, request, &wait);
  g_assert_error (wait.error, PRS_ERROR, PRS_ERROR_PROVIDER_UNREACHABLE);
  g_assert_nonnull (strstr (wait.error->message, "refused"));
  list_models (provider, &models);
  g_assert_error (models.error, PRS_ERROR, PRS_ERROR_PROVIDER_UNREACHABLE);
}

static void
test_cancel (void)
{
  g_autoptr(PrsTestProvider) server = prs_test_provider_start ("{'kind':'openai','turns':[{'response':{'chunks':['a','b','c','d'],'delay':0.3}}]}");
  g_autoptr(PrsProvider) provider = make_provider ("openai", server);
  g_autoptr(PrsChatRequest) request = simple_request (TRUE);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_auto(Wait) wait = { 0 };

  wait_init (&wait);
  prs_provider_chat_async (provider, request, on_delta, &wait, NULL, cancellable, on_chat, &wait);
  g_timeout_add_once (500, (GSourceOnceFunc) g_cancellable_cancel, cancellable);
  g_main_loop_run (wait.loop);
  g_assert_error (wait.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
}

static void
test_new_validation (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsProvider) provider = NULL;

  g_assert_null (prs_provider_new ("bedrock", NULL, "m", NULL, &error));
  g_assert_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT);
  g_clear_error (&error);
  g_assert_null (prs_provider_new ("openai", "ftp://example.com", "m", NULL, &error));
  g_assert_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT);
  g_clear_error (&error);
  g_assert_null (prs_provider_new ("openai", NULL, "m", "key\nwith break", &error));
  g_assert_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT);
  g_clear_error (&error);

  provider = prs_provider_new ("anthropic", "https://api.anthropic.com/v1/", "m", NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (prs_provider_get_base_url (provider), ==, "https://api.anthropic.com");
  g_clear_object (&provider);
  provider = prs_provider_new ("ollama", NULL, "llama3", NULL, &error);
  g_assert_cmpstr (prs_provider_get_base_url (provider), ==, "http://localhost:11434");
  g_assert_cmpstr (prs_provider_get_kind (provider), ==, "ollama");

  g_assert_true (prs_provider_url_is_local ("http://localhost:11434"));
  g_assert_true (prs_provider_url_is_local ("http://127.0.0.2:1234/v1"));
  g_assert_true (prs_provider_url_is_local ("http://[::1]:8080"));
  g_assert_false (prs_provider_url_is_local ("https://api.openai.com/v1"));
  g_assert_false (prs_provider_url_is_local ("http://192.168.1.5:11434"));
}

/* ---- The event stream parser -------------------------------------------- */

typedef struct
{
  GPtrArray *events;   /* "event|data|id" */
  guint      fail_at;  /* fail on this event (1-based), 0 never */
} Collected;

static gboolean
collect (const char  *event,
         const char  *data,
         gsize        len,
         const char  *id,
         gpointer     user_data,
         GError     **error)
{
  Collected *collected = user_data;

  g_assert_cmpuint (strlen (data), ==, len);
  g_ptr_array_add (collected->events, g_strdup_printf ("%s|%s|%s", event, data, id != NULL ? id : "-"));
  if (collected->fail_at != 0 && collected->events->len == collected->fail_at)
    {
      g_set_error_literal (error, PRS_ERROR, PRS_ERROR_PROVIDER_BAD_RESPONSE, "stop");
      return FALSE;
    }
  return TRUE;
}

/* Feeds @input in pieces of @step bytes. */
static GPtrArray *
parse_stream (PrsEventStreamFormat  format,
              const char           *input,
              gsize                 step)
{
  Collected collected = { g_ptr_array_new_with_free_func (g_free), 0 };
  g_autoptr(PrsEventStream) stream = prs_event_stream_new (format, 0, collect, &collected);
  g_autoptr(GError) error = NULL;
  gsize len = strlen (input);

  for (gsize i = 0; i < len; i += step)
    {
      prs_event_stream_feed (stream, input + i, MIN (step, len - i), &error);
      g_assert_no_error (error);
    }
  prs_event_stream_finish (stream, &error);
  g_assert_no_error (error);
  return collected.events;
}

static void
assert_events (GPtrArray  *events,
               const char *const *expected)
{
  guint n = g_strv_length ((char **) expected);

  g_assert_cmpuint (events->len, ==, n);
  for (guint i = 0; i < n; i++)
    g_assert_cmpstr (g_ptr_array_index (events, i), ==, expected[i]);
}

static void
test_sse (void)
{
  static const char input[] =
    "\xEF\xBB\xBF: a comment\n"
    "data: one\n\n"
    "event: custom\r\n"
    "data: first line\r\n"
    "data:second line\r\n"
    "id: 42\r\n"
    "retry: 1000\r\n"
    "\r\n"
    "data\rdata:  two spaces\r\r"
    "event: empty\n\n"       /* no data: not dispatched */
    "data: {\"x\":1}\n\n"
    "data: cut off at the end";
  const char *const expected[] = {
    "message|one|-",
    "custom|first line\nsecond line|42",
    "message|\n two spaces|42",
    "message|{\"x\":1}|42",
    NULL,
  };

  /* The same events whatever the chunking, CRLF split included. */
  for (gsize step = 1; step <= sizeof input; step++)
    {
      g_autoptr(GPtrArray) events = parse_stream (PRS_EVENT_STREAM_SSE, input, step);

      assert_events (events, expected);
    }
}

static void
test_ndjson (void)
{
  static const char input[] = "{\"a\":1}\n\n  \r\n{\"b\":2}\r\n{\"c\":3}  ";
  const char *const expected[] = { "line|{\"a\":1}|-", "line|{\"b\":2}|-", "line|{\"c\":3}|-", NULL };

  for (gsize step = 1; step <= sizeof input; step++)
    {
      g_autoptr(GPtrArray) events = parse_stream (PRS_EVENT_STREAM_NDJSON, input, step);

      assert_events (events, expected);
    }
}

static void
test_event_stream_limits (void)
{
  Collected collected = { g_ptr_array_new_with_free_func (g_free), 0 };
  g_autoptr(PrsEventStream) stream = prs_event_stream_new (PRS_EVENT_STREAM_SSE, 16, collect, &collected);
  g_autoptr(PrsEventStream) multi = NULL;
  g_autoptr(PrsEventStream) failing = NULL;
  g_autoptr(GError) error = NULL;

  /* A line longer than the limit, even in small pieces. */
  g_assert_true (prs_event_stream_feed (stream, "data: 0123456", 13, &error));
  g_assert_false (prs_event_stream_feed (stream, "789abcdef", 9, &error));
  g_assert_error (error, PRS_ERROR, PRS_ERROR_PROVIDER_BAD_RESPONSE);
  g_clear_error (&error);
  /* Once failed, always failed. */
  g_assert_false (prs_event_stream_feed (stream, "\n\n", 2, &error));
  g_assert_error (error, PRS_ERROR, PRS_ERROR_PROVIDER_BAD_RESPONSE);
  g_clear_error (&error);

  /* Many short data lines adding up past the limit. */
  multi = prs_event_stream_new (PRS_EVENT_STREAM_SSE, 16, collect, &collected);
  g_assert_true (prs_event_stream_feed (multi, "data: 12345\ndata: 12345\n", 24, &error));
  g_assert_false (prs_event_stream_feed (multi, "data: 12345\n", 12, &error));
  g_assert_error (error, PRS_ERROR, PRS_ERROR_PROVIDER_BAD_RESPONSE);
  g_clear_error (&error);

  /* A callback's error stops the stream. */
  g_ptr_array_set_size (collected.events, 0);
  collected.fail_at = 2;
  failing = prs_event_stream_new (PRS_EVENT_STREAM_NDJSON, 0, collect, &collected);
  g_assert_false (prs_event_stream_feed (failing, "1\n2\n3\n", 6, &error));
  g_assert_error (error, PRS_ERROR, PRS_ERROR_PROVIDER_BAD_RESPONSE);
  g_assert_cmpuint (collected.events->len, ==, 2);
  g_ptr_array_unref (collected.events);
}

/* ---- The configured set: failover ----------------------------------------- */

typedef struct
{
  char         *data_dir;
  PrsStore     *store;
  PrsSecrets   *secrets;
  PrsProviders *providers;
} Config;

static void
config_init (Config *config)
{
  g_autoptr(GError) error = NULL;

  config->data_dir = g_dir_make_tmp ("prs-providers-XXXXXX", &error);
  g_assert_no_error (error);
  config->store = prs_store_new (config->data_dir, &error);
  g_assert_no_error (error);
  config->secrets = prs_secrets_new (config->data_dir);
  config->providers = prs_providers_new (config->store, config->secrets);
}

static void
config_clear (Config *config)
{
  g_autofree char *command = NULL;

  g_clear_object (&config->providers);
  g_clear_object (&config->secrets);
  g_clear_object (&config->store);
  if (config->data_dir != NULL)
    {
      command = g_strdup_printf ("rm -rf '%s'", config->data_dir);
      g_assert_true (g_spawn_command_line_sync (command, NULL, NULL, NULL, NULL));
    }
  g_clear_pointer (&config->data_dir, g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Config, config_clear)

static char *
add_provider (Config     *config,
              const char *kind,
              const char *name,
              const char *base_url,
              int         priority,
              const char *key)
{
  g_autoptr(GError) error = NULL;
  char *id = NULL;

  g_assert_true (prs_providers_add (config->providers, kind, name, base_url, "model-a", priority,
                                    key, &id, &error));
  g_assert_no_error (error);
  return id;
}

typedef struct
{
  GMainLoop       *loop;
  PrsChatResponse *response;
  GError          *error;
  GPtrArray       *attempts;
} FailoverWait;

static void
on_providers_chat (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  FailoverWait *wait = user_data;

  wait->response = prs_providers_chat_finish (PRS_PROVIDERS (source), result, &wait->error);
  wait->attempts = prs_providers_get_attempts (result);
  g_main_loop_quit (wait->loop);
}

static void
failover_chat (Config         *config,
               PrsChatRequest *request,
               FailoverWait   *wait)
{
  wait->loop = g_main_loop_new (NULL, FALSE);
  prs_providers_chat_async (config->providers, request, NULL, NULL, NULL, NULL, on_providers_chat, wait);
  g_main_loop_run (wait->loop);
  g_main_loop_unref (wait->loop);
}

static void
failover_wait_clear (FailoverWait *wait)
{
  g_clear_pointer (&wait->response, prs_chat_response_free);
  g_clear_error (&wait->error);
  g_clear_pointer (&wait->attempts, g_ptr_array_unref);
}

static void
test_failover_server_error (void)
{
  g_autoptr(PrsTestProvider) a = prs_test_provider_start ("{'kind':'openai','turns':[{'response':{'status':500}}]}");
  g_autoptr(PrsTestProvider) b = prs_test_provider_start ("{'kind':'anthropic','turns':[{'response':{'text':'From B.'}}]}");
  g_auto(Config) config = { 0 };
  g_autofree char *a_url = prs_test_provider_base_url (a, "openai");
  g_autofree char *a_id = NULL;
  g_autofree char *b_id = NULL;
  g_autoptr(PrsChatRequest) request = simple_request (TRUE);
  FailoverWait wait = { 0 };
  g_autoptr(JsonObject) logged = NULL;

  config_init (&config);
  a_id = add_provider (&config, "openai", "Provider A", a_url, 1, "key-a");
  b_id = add_provider (&config, "anthropic", "Provider B", b->root, 2, "key-b");

  failover_chat (&config, request, &wait);
  g_assert_no_error (wait.error);
  g_assert_cmpstr (wait.response->text, ==, "From B.");
  g_assert_cmpstr (wait.response->provider_id, ==, b_id);
  g_assert_cmpstr (wait.response->provider_name, ==, "Provider B");
  g_assert_cmpuint (wait.attempts->len, ==, 2);

  /* Each provider got its own key from the secrets. */
  logged = prs_test_provider_request (b, 0);
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (logged, "headers"), "x-api-key"),
                   ==, "key-b");
  failover_wait_clear (&wait);
}

/* A provider is kept between chats with its connection while nothing it
 * was made from changes; a new key (the keyring's) or URL makes a new one */
static gint64
peer_port (PrsTestProvider *server,
           guint            index)
{
  g_autoptr(JsonObject) logged = prs_test_provider_request (server, index);

  return json_object_get_int_member (logged, "peer_port");
}

static const char *
logged_key (PrsTestProvider *server,
            guint            index,
            JsonObject     **logged)
{
  *logged = prs_test_provider_request (server, index);
  return json_object_get_string_member (json_object_get_object_member (*logged, "headers"), "authorization");
}

static void
test_providers_kept (void)
{
  g_autoptr(PrsTestProvider) a = prs_test_provider_start ("{'kind':'openai','repeat_last':true,"
                                                          "'turns':[{'response':{'text':'Hi.'}}]}");
  g_auto(Config) config = { 0 };
  g_autofree char *url = prs_test_provider_base_url (a, "openai");
  g_autofree char *id = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) first = NULL;
  g_autoptr(JsonObject) third = NULL;
  g_autoptr(PrsProviderRow) row = NULL;

  config_init (&config);
  id = add_provider (&config, "openai", "Provider A", url, 1, "key-a");

  for (guint i = 0; i < 3; i++)
    {
      g_autoptr(PrsChatRequest) request = simple_request (TRUE);
      FailoverWait wait = { 0 };

      /* The third chat after the key changed in the keyring */
      if (i == 2)
        {
          g_autofree char *secret = g_strconcat (PRS_SECRET_PROVIDER_KEY_PREFIX, id, NULL);

          g_assert_true (prs_secrets_store_sync (config.secrets, secret, "Provider A", "key-b", NULL, &error));
          g_assert_no_error (error);
        }
      failover_chat (&config, request, &wait);
      g_assert_no_error (wait.error);
      g_assert_cmpstr (wait.response->text, ==, "Hi.");
      failover_wait_clear (&wait);
    }

  /* One connection for the first two; the new key on a new one */
  g_assert_cmpint (peer_port (a, 0), ==, peer_port (a, 1));
  g_assert_cmpstr (logged_key (a, 0, &first), ==, "Bearer key-a");
  g_assert_cmpstr (logged_key (a, 2, &third), ==, "Bearer key-b");
  g_assert_cmpint (peer_port (a, 2), !=, peer_port (a, 1));

  /* A changed model is a new provider too */
  row = prs_store_lookup_provider (config.store, id, &error);
  g_assert_no_error (error);
  g_free (row->model);
  row->model = g_strdup ("model-b");
  g_assert_true (prs_providers_update (config.providers, row, NULL, &error));
  g_assert_no_error (error);
  {
    g_autoptr(PrsChatRequest) request = simple_request (FALSE);
    FailoverWait wait = { 0 };

    failover_chat (&config, request, &wait);
    g_assert_no_error (wait.error);
    failover_wait_clear (&wait);
  }
  g_assert_cmpint (peer_port (a, 3), !=, peer_port (a, 2));
}

/* Decision: a rejected key is a failure of that provider, so the run
 * moves on to the next one; the attempts say why A was skipped. */
static void
on_info (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

static void
test_failover_auth (void)
{
  g_autoptr(PrsTestProvider) a = prs_test_provider_start ("{'kind':'gemini','repeat_last':true,'turns':[{'response':{'status':401}}]}");
  g_autoptr(PrsTestProvider) b = prs_test_provider_start ("{'kind':'ollama','turns':[{'response':{'text':'From B.'}}]}");
  g_auto(Config) config = { 0 };
  g_autofree char *a_id = NULL;
  g_autofree char *b_id = NULL;
  g_autoptr(PrsChatRequest) request = simple_request (FALSE);
  g_autoptr(JsonNode) info = NULL;
  g_autofree char *info_text = NULL;
  FailoverWait wait = { 0 };
  PrsProviderAttempt *attempt;

  config_init (&config);
  a_id = add_provider (&config, "gemini", "Provider A", a->root, 1, "key-a");
  b_id = add_provider (&config, "ollama", "Provider B", b->root, 2, NULL);

  failover_chat (&config, request, &wait);
  g_assert_no_error (wait.error);
  g_assert_cmpstr (wait.response->text, ==, "From B.");
  g_assert_cmpstr (wait.response->provider_name, ==, "Provider B");
  attempt = g_ptr_array_index (wait.attempts, 0);
  g_assert_cmpstr (attempt->provider_id, ==, a_id);
  g_assert_error (attempt->error, PRS_ERROR, PRS_ERROR_PROVIDER_AUTH);

  /* provider-info: B is local, A shows its error; no key anywhere. */
  {
    GAsyncResult *result = NULL;

    prs_providers_build_info_async (config.providers, NULL, on_info, &result);
    while (result == NULL)
      g_main_context_iteration (NULL, TRUE);
    info = prs_providers_build_info_finish (config.providers, result);
    g_object_unref (result);
  }
  info_text = prs_json_to_string (info, FALSE);
  g_assert_nonnull (strstr (info_text, "\"hasKey\":true"));
  g_test_message ("%s", info_text);
  g_assert_null (strstr (info_text, "key-a"));
  g_assert_nonnull (strstr (info_text, "\"isLocal\":true"));
  g_assert_nonnull (strstr (info_text, "\"success\":true"));
  failover_wait_clear (&wait);
}

static void
test_failover_all_fail (void)
{
  g_autoptr(PrsTestProvider) a = prs_test_provider_start ("{'kind':'openai','turns':[{'response':{'status':429,'retry_after':'3'}}]}");
  g_auto(Config) config = { 0 };
  g_autofree char *a_url = prs_test_provider_base_url (a, "openai");
  g_autofree char *a_id = NULL;
  g_autofree char *b_id = NULL;
  g_autofree char *c_id = NULL;
  g_autoptr(PrsChatRequest) request = simple_request (FALSE);
  FailoverWait wait = { 0 };
  PrsProviderAttempt *attempt;
  g_autoptr(GError) error = NULL;

  config_init (&config);
  a_id = add_provider (&config, "openai", "A", a_url, 1, "key-a");
  /* Unreachable: nothing listens on port 9 of loopback. */
  b_id = add_provider (&config, "ollama", "B", "http://127.0.0.1:9", 2, NULL);
  /* Disabled: skipped. */
  c_id = add_provider (&config, "ollama", "C", "http://127.0.0.1:9", 3, NULL);
  g_assert_true (prs_providers_set_enabled (config.providers, "C", FALSE, &error));
  g_assert_no_error (error);

  failover_chat (&config, request, &wait);
  g_assert_error (wait.error, PRS_ERROR, PRS_ERROR_PROVIDER_UNREACHABLE);
  g_assert_nonnull (strstr (wait.error->message, "A"));
  g_assert_cmpuint (wait.attempts->len, ==, 2);
  attempt = g_ptr_array_index (wait.attempts, 0);
  g_assert_error (attempt->error, PRS_ERROR, PRS_ERROR_PROVIDER_RATE_LIMITED);
  g_assert_cmpuint (attempt->retry_after, ==, 3);
  failover_wait_clear (&wait);
}

static void
test_failover_none (void)
{
  g_auto(Config) config = { 0 };
  g_autoptr(PrsChatRequest) request = simple_request (FALSE);
  FailoverWait wait = { 0 };

  config_init (&config);
  failover_chat (&config, request, &wait);
  g_assert_error (wait.error, PRS_ERROR, PRS_ERROR_NOT_CONFIGURED);
  failover_wait_clear (&wait);
}

static void
test_store_providers (void)
{
  g_auto(Config) config = { 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) rows = NULL;
  g_autofree char *a_id = NULL;
  g_autofree char *b_id = NULL;
  g_autofree char *key = NULL;
  char *dup_id = NULL;
  PrsProviderRow *row;

  config_init (&config);
  b_id = add_provider (&config, "anthropic", "Second", NULL, 5, "key-b");
  a_id = add_provider (&config, "openai", "First", NULL, 1, "key-a");

  /* Names are unique. */
  g_assert_false (prs_providers_add (config.providers, "ollama", "First", NULL, "m", 0, NULL, &dup_id, &error));
  g_assert_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT);
  g_clear_error (&error);
  /* Keys are checked before anything is stored. */
  g_assert_false (prs_providers_add (config.providers, "mystery", "X", NULL, "m", 0, NULL, &dup_id, &error));
  g_assert_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT);
  g_clear_error (&error);

  rows = prs_store_list_providers (config.store, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (rows->len, ==, 2);
  row = g_ptr_array_index (rows, 0);
  g_assert_cmpstr (row->name, ==, "First");
  g_assert_cmpstr (row->kind, ==, "openai");
  g_assert_null (row->base_url);
  g_assert_true (row->enabled);
  row = g_ptr_array_index (rows, 1);
  g_assert_cmpstr (row->name, ==, "Second");
  g_assert_cmpint (row->priority, ==, 5);

  key = prs_providers_dup_key (config.providers, a_id);
  g_assert_cmpstr (key, ==, "key-a");

  g_assert_true (prs_providers_remove (config.providers, "First", &error));
  g_assert_no_error (error);
  g_clear_pointer (&key, g_free);
  key = prs_providers_dup_key (config.providers, a_id);
  g_assert_null (key);
  g_assert_false (prs_providers_remove (config.providers, "First", &error));
  g_assert_error (error, PRS_ERROR, PRS_ERROR_NOT_FOUND);
}

/* ---- main ---------------------------------------------------------------- */

static void
add_kind_test (const char *kind,
               const char *name,
               GTestDataFunc func)
{
  g_autofree char *path = g_strdup_printf ("/prs/provider/%s/%s", kind, name);

  g_test_add_data_func (path, kind, func);
}

int
main (int   argc,
      char *argv[])
{
  static const char *const kinds[] = { "openai", "ollama", "anthropic", "gemini" };

  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/prs/event-stream/sse", test_sse);
  g_test_add_func ("/prs/event-stream/ndjson", test_ndjson);
  g_test_add_func ("/prs/event-stream/limits", test_event_stream_limits);
  g_test_add_func ("/prs/provider/new", test_new_validation);
  g_test_add_func ("/prs/provider/cancel", test_cancel);

  for (guint i = 0; i < G_N_ELEMENTS (kinds); i++)
    {
      add_kind_test (kinds[i], "text", test_text);
      add_kind_test (kinds[i], "stream", test_stream);
      add_kind_test (kinds[i], "tools", test_tools);
      add_kind_test (kinds[i], "tools-stream", test_tools_stream);
      add_kind_test (kinds[i], "tool-round", test_tool_round);
      add_kind_test (kinds[i], "auth-error", test_auth_error);
      add_kind_test (kinds[i], "rate-limit", test_rate_limit);
      add_kind_test (kinds[i], "server-error", test_server_error);
      add_kind_test (kinds[i], "unknown-model", test_unknown_model);
      add_kind_test (kinds[i], "malformed", test_malformed);
      add_kind_test (kinds[i], "truncated", test_truncated);
      add_kind_test (kinds[i], "stream-error", test_stream_error);
      add_kind_test (kinds[i], "slow-stream", test_slow_stream);
      add_kind_test (kinds[i], "models", test_models);
      add_kind_test (kinds[i], "unreachable", test_unreachable);
    }

  g_test_add_func ("/prs/providers/store", test_store_providers);
  g_test_add_func ("/prs/providers/failover/server-error", test_failover_server_error);
  g_test_add_func ("/prs/providers/kept", test_providers_kept);
  g_test_add_func ("/prs/providers/failover/auth", test_failover_auth);
  g_test_add_func ("/prs/providers/failover/all-fail", test_failover_all_fail);
  g_test_add_func ("/prs/providers/failover/none", test_failover_none);

  return g_test_run ();
}
