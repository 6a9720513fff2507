/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz-provider-stream: what an AI provider answers a chat (docs/api.md,
 * docs/providers in HACKING.md), through the real event-stream parser
 * (prs-event-stream.c) and the real chat ops of each backend, by way of a
 * detached exchange (prs_exchange_new_detached() in
 * prs-http-provider-private.h): the same code a socket's bytes reach.
 *
 * The first byte picks the backend (bits 0-1: OpenAI, Anthropic, Gemini,
 * Ollama), the wire (bits 2-3: one JSON document, an SSE stream, an NDJSON
 * stream, an error answer's body), for an error the status (bits 4-6) and
 * for a JSON document whether it comes without a content type (bit 7: read
 * as a server that is not the provider, e.g. an HTML page, would be) and
 * whether it answers the model list instead of a chat (bit 4); for an error
 * with bit 7, the body up to its first NUL is the answer's Retry-After
 * header instead; the second byte is the chunk size (0: all at once). The
 * rest is the body.
 *
 * Oracles: a response has valid UTF-8 text equal to its streamed deltas
 * joined, tool calls with a name and an object of arguments, a normalised
 * stop reason and non-negative usage; a model list has ids that are UTF-8
 * without control characters and UTF-8 names; a Retry-After is at most the
 * cap, and a plain number is read as itself; a failure is a PRS_ERROR with
 * a message in words (valid UTF-8, no control characters). */
#include <string.h>

#include "prs-error.h"
#include "prs-http-provider-private.h"
#include "prs-http-request.h"

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

static const char * const kinds[] = { "openai", "anthropic", "gemini", "ollama" };
static const guint statuses[] = { 400, 401, 403, 404, 408, 429, 500, 503 };

static const PrsExchangeOps *
chat_ops (guint kind)
{
  switch (kind)
    {
    case 0: return prs_provider_openai_get_chat_ops ();
    case 1: return prs_provider_anthropic_get_chat_ops ();
    case 2: return prs_provider_gemini_get_chat_ops ();
    default: return prs_provider_ollama_get_chat_ops ();
    }
}

static const PrsExchangeOps *
models_ops (guint kind)
{
  switch (kind)
    {
    case 0: return prs_provider_openai_get_models_ops ();
    case 1: return prs_provider_anthropic_get_models_ops ();
    case 2: return prs_provider_gemini_get_models_ops ();
    default: return prs_provider_ollama_get_models_ops ();
    }
}

static void
on_delta (const char *text,
          gpointer    user_data)
{
  g_assert_true (g_utf8_validate (text, -1, NULL));
  g_string_append (user_data, text);
}

static void
check_error (const GError *error)
{
  g_assert_nonnull (error);
  g_assert_true (error->domain == PRS_ERROR);
  g_assert_true (g_utf8_validate (error->message, -1, NULL));
  g_assert_true (strlen (error->message) > 10);
  for (const char *p = error->message; *p != '\0'; p++)
    g_assert_false (g_ascii_iscntrl (*p));
}

static void
check_response (PrsChatResponse *response,
                GString         *deltas)
{
  g_assert_true (g_utf8_validate (response->text, -1, NULL));
  g_assert_cmpstr (response->text, ==, deltas->str);
  g_assert_true (response->model == NULL || g_utf8_validate (response->model, -1, NULL));
  g_assert_cmpint (response->input_tokens, >=, 0);
  g_assert_cmpint (response->output_tokens, >=, 0);
  g_assert_true (g_strv_contains ((const char *[]) { PRS_STOP_END, PRS_STOP_TOOL_CALLS,
                                                     PRS_STOP_MAX_TOKENS, PRS_STOP_OTHER, NULL },
                                  response->stop_reason));
  g_assert_true (response->raw_stop_reason == NULL ||
                 g_utf8_validate (response->raw_stop_reason, -1, NULL));
  for (guint i = 0; i < response->tool_calls->len; i++)
    {
      PrsToolCall *call = g_ptr_array_index (response->tool_calls, i);

      g_assert_true (call->name != NULL && call->name[0] != '\0');
      g_assert_true (g_utf8_validate (call->name, -1, NULL));
      g_assert_true (call->id != NULL && g_utf8_validate (call->id, -1, NULL));
      g_assert_nonnull (call->arguments);
    }
}

static void
run (PrsProviderConfig    *config,
     const PrsExchangeOps *ops,
     PrsWire               wire,
     gsize                 chunk,
     const char           *type,
     const char           *body,
     gsize                 len)
{
  g_autoptr(GString) deltas = g_string_new (NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsChatResponse) response = NULL;
  PrsExchange *ex = prs_exchange_new_detached (config, ops, wire, "model", on_delta, deltas);
  gboolean fed = TRUE;

  for (gsize at = 0; wire != PRS_WIRE_JSON && fed && at < len; at += chunk)
    fed = prs_exchange_feed (ex, body + at, MIN (chunk, len - at), &error);
  if (fed)
    response = prs_exchange_finish (ex, body, len, type, &error);
  if (response != NULL)
    {
      g_assert_null (error);
      check_response (response, deltas);
    }
  else
    check_error (error);
  prs_exchange_free (ex);
}

static void
run_models (PrsProviderConfig    *config,
            const PrsExchangeOps *ops,
            const char           *type,
            const char           *body,
            gsize                 len)
{
  g_autoptr(GError) error = NULL;
  PrsExchange *ex = prs_exchange_new_detached (config, ops, PRS_WIRE_JSON, NULL, NULL, NULL);
  g_autoptr(GPtrArray) models = prs_exchange_finish_models (ex, body, len, type, &error);

  prs_exchange_free (ex);
  if (models == NULL)
    {
      check_error (error);
      return;
    }
  g_assert_null (error);
  for (guint i = 0; i < models->len; i++)
    {
      PrsModelInfo *info = g_ptr_array_index (models, i);

      g_assert_true (info->id[0] != '\0' && g_utf8_validate (info->id, -1, NULL));
      for (const char *p = info->id; *p != '\0'; p++)
        g_assert_false (g_ascii_iscntrl (*p));
      g_assert_true (info->name != NULL && g_utf8_validate (info->name, -1, NULL));
    }
}

#define MAX_RETRY_AFTER 3600

static void
run_retry_after (const char *body,
                 gsize       len)
{
  g_autofree char *value = g_strndup (body, len);
  guint seconds = prs_http_parse_retry_after (value, MAX_RETRY_AFTER);
  const char *digits = value;

  /* The white space the parser skips: g_ascii_isspace's, which has no \v */
  while (g_ascii_isspace (*digits))
    digits++;

  g_assert_cmpuint (seconds, <=, MAX_RETRY_AFTER);
  /* A plain number of up to four digits is the number itself. */
  if (digits[0] != '\0' && strspn (digits, "0123456789") == strlen (digits) && strlen (digits) <= 4)
    g_assert_cmpuint (seconds, ==, MIN (g_ascii_strtoull (digits, NULL, 10), MAX_RETRY_AFTER));
}

int
LLVMFuzzerTestOneInput (const guint8 *data,
                        size_t        size)
{
  static PrsProviderConfig *configs[G_N_ELEMENTS (kinds)];
  guint kind, wire;
  gsize chunk;
  const char *body;
  gsize len;

  if (size < 2)
    return 0;

  kind = data[0] & 3;
  wire = (data[0] >> 2) & 3;
  chunk = data[1] != 0 ? data[1] : size;
  body = (const char *) data + 2;
  len = size - 2;

  /* One configuration per kind for the whole run: each holds a session */
  if (configs[kind] == NULL)
    configs[kind] = prs_provider_config_new (kinds[kind], "https://provider.example", "model", NULL);

  if (wire == 3 && (data[0] & 0x80) != 0)
    {
      run_retry_after (body, len);
      return 0;
    }
  if (wire == 0 && (data[0] & 0x10) != 0)
    {
      run_models (configs[kind], models_ops (kind), (data[0] & 0x80) != 0 ? NULL : "application/json",
                  body, len);
      return 0;
    }
  if (wire == 3)
    {
      PrsExchange *ex = prs_exchange_new_detached (configs[kind], chat_ops (kind), PRS_WIRE_JSON,
                                                   "model", NULL, NULL);
      g_autoptr(GError) error = prs_exchange_status_error (ex, statuses[(data[0] >> 4) & 7],
                                                           len > 0 ? body : NULL, len);

      check_error (error);
      prs_exchange_free (ex);
      return 0;
    }
  run (configs[kind], chat_ops (kind), (PrsWire) wire, chunk,
       (data[0] & 0x80) != 0 ? NULL : "application/json", body, len);
  return 0;
}
