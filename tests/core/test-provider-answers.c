/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-provider-answers: answers of each backend read without a socket
 * (prs_exchange_new_detached()), for the shapes a hostile or broken provider
 * sends that the scripted provider cannot (tests/fuzz/fuzz-provider-stream.c
 * found them; its seeds keep the inputs). docs/providers.md#streaming. */
#include <string.h>

#include "prs-error.h"
#include "prs-http-provider-private.h"
#include "prs-http-request.h"

static const PrsExchangeOps *
ops_for (const char *kind)
{
  if (g_str_equal (kind, "openai"))
    return prs_provider_openai_get_chat_ops ();
  if (g_str_equal (kind, "anthropic"))
    return prs_provider_anthropic_get_chat_ops ();
  if (g_str_equal (kind, "gemini"))
    return prs_provider_gemini_get_chat_ops ();
  return prs_provider_ollama_get_chat_ops ();
}

/* Reads @body as @kind's answer on @wire, fed in pieces of @chunk bytes. */
static PrsChatResponse *
answer (const char  *kind,
        PrsWire      wire,
        gsize        chunk,
        const char  *body,
        GError     **error)
{
  PrsProviderConfig *config = prs_provider_config_new (kind, "https://provider.example", "m", NULL);
  PrsExchange *ex = prs_exchange_new_detached (config, ops_for (kind), wire, "m", NULL, NULL);
  gsize len = strlen (body);
  gboolean fed = TRUE;
  PrsChatResponse *response = NULL;

  for (gsize at = 0; wire != PRS_WIRE_JSON && fed && at < len; at += chunk)
    fed = prs_exchange_feed (ex, body + at, MIN (chunk, len - at), error);
  if (fed)
    response = prs_exchange_finish (ex, body, len, "application/json", error);
  prs_exchange_free (ex);
  prs_provider_config_free (config);
  return response;
}

/* Usage is added up over a run: a count below zero must not subtract. */
static void
test_negative_usage (void)
{
  static const struct
  {
    const char *kind;
    PrsWire     wire;
    const char *body;
  } cases[] = {
    { "openai", PRS_WIRE_JSON,
      "{\"choices\":[{\"message\":{\"content\":\"hi\"},\"finish_reason\":\"stop\"}],"
      "\"usage\":{\"prompt_tokens\":-7,\"completion_tokens\":-3}}" },
    { "anthropic", PRS_WIRE_SSE,
      "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":-7}}}\n\n"
      "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,"
      "\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"
      "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
      "\"delta\":{\"type\":\"text_delta\",\"text\":\"hi\"}}\n\n"
      "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
      "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},"
      "\"usage\":{\"output_tokens\":-3}}\n\n"
      "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n" },
    { "gemini", PRS_WIRE_JSON,
      "{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"hi\"}]},\"finishReason\":\"STOP\"}],"
      "\"usageMetadata\":{\"promptTokenCount\":-7,\"candidatesTokenCount\":-3}}" },
    { "ollama", PRS_WIRE_NDJSON,
      "{\"message\":{\"content\":\"hi\"},\"done\":false}\n"
      "{\"message\":{\"content\":\"\"},\"done\":true,\"done_reason\":\"stop\","
      "\"prompt_eval_count\":-7,\"eval_count\":-3}\n" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(PrsChatResponse) response = answer (cases[i].kind, cases[i].wire, 5, cases[i].body, &error);

      g_test_message ("%s", cases[i].kind);
      g_assert_no_error (error);
      g_assert_cmpstr (response->text, ==, "hi");
      g_assert_cmpint (response->input_tokens, ==, 0);
      g_assert_cmpint (response->output_tokens, ==, 0);
    }
}

static void
assert_no_control_chars (const char *text)
{
  for (const char *p = text; *p != '\0'; p++)
    g_assert_false (g_ascii_iscntrl (*p));
}

/* Error messages are shown and logged: what the provider sent is quoted
 * without its control characters, also when a parser or a tool name quotes
 * it (docs/providers.md). */
static void
test_bad_response_clean (void)
{
  static const struct
  {
    const char *kind;
    PrsWire     wire;
    const char *body;
  } cases[] = {
    /* json-glib's message names the character it stopped at */
    { "openai", PRS_WIRE_SSE, "data: {\"choices\":\x05\x1b[2J}\n\n" },
    { "ollama", PRS_WIRE_NDJSON, "{\"message\":\x07}\n" },
    /* the tool's name is the provider's */
    { "openai", PRS_WIRE_JSON,
      "{\"choices\":[{\"message\":{\"tool_calls\":[{\"id\":\"c\",\"function\":"
      "{\"name\":\"f\\u001b[2J\\u0007\",\"arguments\":\"[1]\"}}]},\"finish_reason\":\"tool_calls\"}]}" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(PrsChatResponse) response = answer (cases[i].kind, cases[i].wire, 3, cases[i].body, &error);

      g_assert_null (response);
      g_assert_error (error, PRS_ERROR, PRS_ERROR_PROVIDER_BAD_RESPONSE);
      g_test_message ("%s", error->message);
      assert_no_control_chars (error->message);
    }
}

/* A flag that is an object or an array is no flag: read as absent, with
 * no critical warning from json-glib (fatal in the tests). */
static void
test_flag_not_boolean (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsChatResponse) ollama = NULL;
  g_autoptr(PrsChatResponse) gemini = NULL;

  ollama = answer ("ollama", PRS_WIRE_NDJSON, 4,
                   "{\"message\":{\"content\":\"a\"},\"done\":[true]}\n"
                   "{\"message\":{\"content\":\"b\"},\"done\":true,\"done_reason\":\"stop\"}\n",
                   &error);
  g_assert_no_error (error);
  g_assert_cmpstr (ollama->text, ==, "ab");

  gemini = answer ("gemini", PRS_WIRE_JSON, 0,
                   "{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"hi\",\"thought\":{}}]},"
                   "\"finishReason\":\"STOP\"}]}",
                   &error);
  g_assert_no_error (error);
  g_assert_cmpstr (gemini->text, ==, "hi");
}

/* An escaped lone surrogate, which json-glib reads into bytes that are not
 * UTF-8, reaches neither the reply nor its streamed pieces as such: they
 * are replacement characters */
static void
test_lone_surrogate (void)
{
  g_autoptr(GError) error = NULL;
  PrsChatResponse *response = answer ("openai", PRS_WIRE_SSE, 7,
                                      "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok \\ud8300\"},"
                                      "\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n", &error);

  g_assert_no_error (error);
  g_assert_true (g_utf8_validate (response->text, -1, NULL));
  /* How many bytes json-glib made of it is its own; each is replaced */
  g_assert_true (g_str_has_prefix (response->text, "ok \xef\xbf\xbd"));
  prs_chat_response_free (response);
}

/* A model list's ids go into agent files, requests and URLs: one that is
 * not UTF-8 (an escaped lone surrogate), holds a control character or is
 * absurdly long is left out; a display name is cleaned */
static void
test_model_list_ids (void)
{
  g_autofree char *long_id = g_strnfill (300, 'm');
  g_autofree char *body = g_strdup_printf ("{\"data\":[{\"id\":\"bad \\ud8300\"},{\"id\":\"a\\nb\"},"
                                           "{\"id\":\"%s\"},{\"id\":42},"
                                           "{\"id\":\"good\",\"name\":\"Good\\tone \\ud8300\"}]}",
                                           long_id);
  PrsProviderConfig *config = prs_provider_config_new ("openai", "https://provider.example", "m", NULL);
  PrsExchange *ex = prs_exchange_new_detached (config, prs_provider_openai_get_models_ops (),
                                               PRS_WIRE_JSON, NULL, NULL, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) models = prs_exchange_finish_models (ex, body, strlen (body), "application/json", &error);
  PrsModelInfo *info;

  g_assert_no_error (error);
  g_assert_cmpuint (models->len, ==, 1);
  info = g_ptr_array_index (models, 0);
  g_assert_cmpstr (info->id, ==, "good");
  g_assert_true (g_utf8_validate (info->name, -1, NULL));
  g_assert_true (g_str_has_prefix (info->name, "Good one "));
  prs_exchange_free (ex);
  prs_provider_config_free (config);
}

static void
test_retry_after (void)
{
  g_autoptr(GDateTime) later = g_date_time_add_seconds (g_date_time_new_now_utc (), 90);
  g_autofree char *date = g_date_time_format (later, "%a, %d %b %Y %H:%M:%S GMT");
  guint seconds;

  g_assert_cmpuint (prs_http_parse_retry_after (NULL, 60), ==, 0);
  g_assert_cmpuint (prs_http_parse_retry_after ("  7", 60), ==, 7);
  g_assert_cmpuint (prs_http_parse_retry_after ("1.5", 60), ==, 2);
  g_assert_cmpuint (prs_http_parse_retry_after ("99999999999999999999999", 60), ==, 60);
  g_assert_cmpuint (prs_http_parse_retry_after ("soon", 60), ==, 0);
  g_assert_cmpuint (prs_http_parse_retry_after ("Wed, 21 Oct 2015 07:28:00 GMT", 60), ==, 0);
  seconds = prs_http_parse_retry_after (date, 3600);
  g_assert_cmpuint (seconds, >=, 85);
  g_assert_cmpuint (seconds, <=, 91);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/prs/provider-answers/negative-usage", test_negative_usage);
  g_test_add_func ("/prs/provider-answers/bad-response-clean", test_bad_response_clean);
  g_test_add_func ("/prs/provider-answers/flag-not-boolean", test_flag_not_boolean);
  g_test_add_func ("/prs/provider-answers/lone-surrogate", test_lone_surrogate);
  g_test_add_func ("/prs/provider-answers/model-list-ids", test_model_list_ids);
  g_test_add_func ("/prs/provider-answers/retry-after", test_retry_after);

  return g_test_run ();
}
