/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-provider-openai.c: OpenAI-compatible Chat Completions — OpenAI, Groq,
 * Mistral, OpenRouter, LM Studio, vLLM, llama.cpp server.
 *
 * The base URL ends at the API root that holds /chat/completions and
 * /models (https://api.openai.com/v1, http://localhost:1234/v1).
 * Streaming asks for usage (stream_options.include_usage), which arrives in
 * a last chunk with no choices; tool calls arrive in pieces keyed by index
 * and are joined here; "[DONE]" ends the stream. The output limit is sent
 * as max_tokens, the field every compatible server understands. */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "prs-error.h"
#include "prs-json.h"
#include "prs-provider-openai.h"
#include "prs-http-provider-private.h"

struct _PrsProviderOpenai
{
  PrsHttpProvider parent_instance;
};

G_DEFINE_FINAL_TYPE (PrsProviderOpenai, prs_provider_openai, PRS_TYPE_HTTP_PROVIDER)

/* A tool call being assembled from stream chunks. */
typedef struct
{
  char    *id;
  char    *name;
  GString *arguments;
} PartialCall;

static void
partial_call_free (gpointer data)
{
  PartialCall *call = data;

  g_free (call->id);
  g_free (call->name);
  g_string_free (call->arguments, TRUE);
  g_free (call);
}

/* ---- Requests ----------------------------------------------------------- */

/* An assistant turn's calls, with their arguments as JSON text. */
static void
add_tool_calls (JsonBuilder *b,
                GPtrArray   *calls)
{
  json_builder_set_member_name (b, "tool_calls");
  json_builder_begin_array (b);
  for (guint i = 0; i < calls->len; i++)
    {
      PrsToolCall *call = g_ptr_array_index (calls, i);
      g_autoptr(JsonNode) args = json_node_init_object (json_node_alloc (), call->arguments);
      g_autofree char *args_text = prs_json_to_string (args, FALSE);

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "id");
      json_builder_add_string_value (b, call->id);
      json_builder_set_member_name (b, "type");
      json_builder_add_string_value (b, "function");
      json_builder_set_member_name (b, "function");
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "name");
      json_builder_add_string_value (b, call->name);
      json_builder_set_member_name (b, "arguments");
      json_builder_add_string_value (b, args_text);
      json_builder_end_object (b);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
}

static void
add_message (JsonBuilder    *b,
             PrsChatMessage *message)
{
  json_builder_begin_object (b);
  switch (message->role)
    {
    case PRS_CHAT_ROLE_USER:
      json_builder_set_member_name (b, "role");
      json_builder_add_string_value (b, "user");
      json_builder_set_member_name (b, "content");
      json_builder_add_string_value (b, message->text != NULL ? message->text : "");
      break;

    case PRS_CHAT_ROLE_ASSISTANT:
      json_builder_set_member_name (b, "role");
      json_builder_add_string_value (b, "assistant");
      json_builder_set_member_name (b, "content");
      if (message->text != NULL && message->text[0] != '\0')
        json_builder_add_string_value (b, message->text);
      else
        json_builder_add_null_value (b);
      if (message->tool_calls->len > 0)
        add_tool_calls (b, message->tool_calls);
      break;

    case PRS_CHAT_ROLE_TOOL:
      json_builder_set_member_name (b, "role");
      json_builder_add_string_value (b, "tool");
      json_builder_set_member_name (b, "tool_call_id");
      json_builder_add_string_value (b, message->tool_call_id);
      json_builder_set_member_name (b, "content");
      json_builder_add_string_value (b, message->text != NULL ? message->text : "");
      break;

    default:
      g_assert_not_reached ();
    }
  json_builder_end_object (b);
}

static JsonNode *
build_chat_body (PrsChatRequest *request,
                 const char     *model)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "model");
  json_builder_add_string_value (b, model);

  json_builder_set_member_name (b, "messages");
  json_builder_begin_array (b);
  if (request->system_prompt != NULL && request->system_prompt[0] != '\0')
    {
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "role");
      json_builder_add_string_value (b, "system");
      json_builder_set_member_name (b, "content");
      json_builder_add_string_value (b, request->system_prompt);
      json_builder_end_object (b);
    }
  for (guint i = 0; i < request->messages->len; i++)
    add_message (b, g_ptr_array_index (request->messages, i));
  json_builder_end_array (b);

  if (request->tools->len > 0)
    {
      json_builder_set_member_name (b, "tools");
      prs_json_builder_add_function_tools (b, request->tools);
    }

  json_builder_set_member_name (b, "max_tokens");
  json_builder_add_int_value (b, request->max_tokens > 0 ? request->max_tokens : PRS_CHAT_DEFAULT_MAX_TOKENS);
  if (request->temperature >= 0)
    {
      json_builder_set_member_name (b, "temperature");
      json_builder_add_double_value (b, request->temperature);
    }

  json_builder_set_member_name (b, "stream");
  json_builder_add_boolean_value (b, request->stream);
  if (request->stream)
    {
      json_builder_set_member_name (b, "stream_options");
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "include_usage");
      json_builder_add_boolean_value (b, TRUE);
      json_builder_end_object (b);
    }
  json_builder_end_object (b);

  return json_builder_get_root (b);
}

/* ---- Answers ------------------------------------------------------------ */

static const char *
normalise_stop (const char *reason)
{
  if (reason == NULL)
    return PRS_STOP_OTHER;
  if (g_str_equal (reason, "stop"))
    return PRS_STOP_END;
  if (g_str_equal (reason, "tool_calls") || g_str_equal (reason, "function_call"))
    return PRS_STOP_TOOL_CALLS;
  if (g_str_equal (reason, "length"))
    return PRS_STOP_MAX_TOKENS;
  return PRS_STOP_OTHER;
}

static void
read_usage (PrsExchange *ex,
            JsonObject  *root)
{
  JsonObject *usage = prs_json_object_get_object (root, "usage");

  if (usage == NULL)
    return;
  ex->response->input_tokens = prs_json_object_get_int (usage, "prompt_tokens", ex->response->input_tokens);
  ex->response->output_tokens = prs_json_object_get_int (usage, "completion_tokens", ex->response->output_tokens);
}

static void
read_model (PrsExchange *ex,
            JsonObject  *root)
{
  const char *model = prs_json_object_get_string (root, "model");

  if (model != NULL && model[0] != '\0' && ex->response->model == NULL)
    ex->response->model = g_strdup (model);
}

/* Some servers (OpenRouter) answer 200 with {"error": {…}}. */
static gboolean
check_error_object (PrsExchange  *ex,
                    JsonObject   *root,
                    GError      **error)
{
  JsonObject *err = prs_json_object_get_object (root, "error");

  if (err == NULL)
    return TRUE;
  return prs_exchange_stream_error (ex, error,
                                    prs_json_object_get_string (err, "type") != NULL
                                    ? prs_json_object_get_string (err, "type")
                                    : prs_json_object_get_string (err, "code"),
                                    prs_json_object_get_string (err, "message"));
}

static gboolean
add_tool_call (PrsExchange  *ex,
               const char   *id,
               const char   *name,
               const char   *arguments,
               GError      **error)
{
  g_autoptr(JsonObject) args = NULL;
  g_autofree char *made_id = NULL;

  if (name == NULL || name[0] == '\0')
    return prs_exchange_bad_response (ex, error, _("a tool call without a name"));

  if (arguments == NULL || arguments[0] == '\0')
    args = json_object_new ();
  else if ((args = prs_json_object_from_text (arguments, strlen (arguments))) == NULL)
    {
      g_autofree char *what = g_strdup_printf (_("the arguments of the tool call “%s” are not a JSON object"), name);

      return prs_exchange_bad_response (ex, error, what);
    }

  if (id == NULL || id[0] == '\0')
    id = made_id = prs_provider_make_call_id ();
  g_ptr_array_add (ex->response->tool_calls, prs_tool_call_new (id, name, args));
  return TRUE;
}

static gboolean
chat_on_json (PrsExchange  *ex,
              JsonNode     *root_node,
              GError      **error)
{
  JsonObject *root = json_node_get_object (root_node);
  JsonArray *choices;
  JsonObject *choice;
  JsonObject *message;
  JsonArray *calls;
  const char *content;

  if (!check_error_object (ex, root, error))
    return FALSE;

  choices = prs_json_object_get_array (root, "choices");
  if (choices == NULL || json_array_get_length (choices) == 0 ||
      (choice = prs_json_node_get_object (json_array_get_element (choices, 0))) == NULL ||
      (message = prs_json_object_get_object (choice, "message")) == NULL)
    return prs_exchange_bad_response (ex, error, _("no choices[0].message"));

  content = prs_json_object_get_string (message, "content");
  prs_exchange_add_text (ex, content);

  calls = prs_json_object_get_array (message, "tool_calls");
  for (guint i = 0; calls != NULL && i < json_array_get_length (calls); i++)
    {
      JsonObject *call = prs_json_node_get_object (json_array_get_element (calls, i));
      JsonObject *function = prs_json_object_get_object (call, "function");

      if (!add_tool_call (ex, prs_json_object_get_string (call, "id"),
                          prs_json_object_get_string (function, "name"),
                          prs_json_object_get_string (function, "arguments"), error))
        return FALSE;
    }

  prs_chat_response_set_stop (ex->response,
                              normalise_stop (prs_json_object_get_string (choice, "finish_reason")),
                              prs_json_object_get_string (choice, "finish_reason"));
  read_usage (ex, root);
  read_model (ex, root);
  return TRUE;
}

static gboolean
chat_on_event (PrsExchange  *ex,
               const char   *event,
               const char   *data,
               gsize         len,
               GError      **error)
{
  GPtrArray *partials = ex->impl_data;
  g_autoptr(JsonNode) node = NULL;
  JsonObject *root;
  JsonArray *choices;

  if (g_str_equal (data, "[DONE]"))
    {
      ex->complete = TRUE;
      return TRUE;
    }
  if (ex->complete)
    return TRUE;  /* nothing counts after [DONE] */

  node = prs_exchange_parse (ex, data, len, error);
  if (node == NULL)
    return FALSE;
  root = json_node_get_object (node);
  if (!check_error_object (ex, root, error))
    return FALSE;

  read_model (ex, root);
  read_usage (ex, root);

  choices = prs_json_object_get_array (root, "choices");
  for (guint i = 0; choices != NULL && i < json_array_get_length (choices); i++)
    {
      JsonObject *choice = prs_json_node_get_object (json_array_get_element (choices, i));
      JsonObject *delta = prs_json_object_get_object (choice, "delta");
      JsonArray *calls = prs_json_object_get_array (delta, "tool_calls");
      const char *finish = prs_json_object_get_string (choice, "finish_reason");

      /* One answer is asked for; other choices would be n > 1. */
      if (choice == NULL || prs_json_object_get_int (choice, "index", 0) != 0)
        continue;

      prs_exchange_add_text (ex, prs_json_object_get_string (delta, "content"));

      for (guint j = 0; calls != NULL && j < json_array_get_length (calls); j++)
        {
          JsonObject *call = prs_json_node_get_object (json_array_get_element (calls, j));
          JsonObject *function = prs_json_object_get_object (call, "function");
          gint64 index = prs_json_object_get_int (call, "index", j);
          const char *id = prs_json_object_get_string (call, "id");
          const char *name = prs_json_object_get_string (function, "name");
          const char *arguments = prs_json_object_get_string (function, "arguments");
          PartialCall *partial;

          if (call == NULL || index < 0 || index > 1024)
            return prs_exchange_bad_response (ex, error, _("a tool call piece without a valid index"));
          while (partials->len <= (guint) index)
            {
              partial = g_new0 (PartialCall, 1);
              partial->arguments = g_string_new (NULL);
              g_ptr_array_add (partials, partial);
            }
          partial = g_ptr_array_index (partials, index);
          if (id != NULL && id[0] != '\0' && partial->id == NULL)
            partial->id = g_strdup (id);
          if (name != NULL && name[0] != '\0' && partial->name == NULL)
            partial->name = g_strdup (name);
          if (arguments != NULL)
            g_string_append (partial->arguments, arguments);
        }

      if (finish != NULL)
        prs_chat_response_set_stop (ex->response, normalise_stop (finish), finish);
    }

  return TRUE;
}

static gboolean
chat_on_end (PrsExchange  *ex,
             GError      **error)
{
  GPtrArray *partials = ex->impl_data;

  /* Without [DONE], a finish_reason still shows the answer is whole. */
  if (!ex->complete && ex->response->raw_stop_reason == NULL)
    return prs_exchange_bad_response (ex, error, _("the stream ended before the answer was complete"));

  for (guint i = 0; i < partials->len; i++)
    {
      PartialCall *partial = g_ptr_array_index (partials, i);

      if (partial->name == NULL && partial->arguments->len == 0)
        continue;  /* an index that was skipped */
      if (!add_tool_call (ex, partial->id, partial->name, partial->arguments->str, error))
        return FALSE;
    }
  return TRUE;
}

static char *
error_message (JsonNode *body,
               gboolean *model_not_found,
               gboolean *bad_key)
{
  JsonObject *root = prs_json_node_get_object (body);
  JsonObject *err = prs_json_object_get_object (root, "error");
  const char *code = prs_json_object_get_string (err, "code");
  const char *message = prs_json_object_get_string (err, "message");

  if (message == NULL)
    message = prs_json_object_get_string (root, "error");
  if (message == NULL)
    message = prs_json_object_get_string (root, "message");

  *model_not_found = g_strcmp0 (code, "model_not_found") == 0;
  *bad_key = g_strcmp0 (code, "invalid_api_key") == 0;
  return g_strdup (message);
}

static void
chat_init (PrsExchange *ex)
{
  ex->impl_data = g_ptr_array_new_with_free_func (partial_call_free);
  ex->impl_destroy = (GDestroyNotify) g_ptr_array_unref;
}

static const PrsExchangeOps chat_ops = {
  chat_on_json,
  chat_on_event,
  chat_on_end,
  error_message,
  chat_init,
};

static gboolean
models_on_json (PrsExchange  *ex,
                JsonNode     *root,
                GError      **error)
{
  JsonArray *data = prs_json_object_get_array (json_node_get_object (root), "data");

  if (data == NULL)
    return prs_exchange_bad_response (ex, error, _("no list of models (data)"));

  for (guint i = 0; i < json_array_get_length (data); i++)
    {
      JsonObject *model = prs_json_node_get_object (json_array_get_element (data, i));
      const char *id = prs_json_object_get_string (model, "id");

      prs_exchange_add_model (ex, id, prs_json_object_get_string (model, "name"));
    }
  return TRUE;
}

static const PrsExchangeOps models_ops = {
  models_on_json,
  NULL,
  NULL,
  error_message,
  NULL,
};

const PrsExchangeOps *
prs_provider_openai_get_chat_ops (void)
{
  return &chat_ops;
}

const PrsExchangeOps *
prs_provider_openai_get_models_ops (void)
{
  return &models_ops;
}

/* ---- PrsProvider -------------------------------------------------------- */

static void
openai_chat_async (PrsProvider         *provider,
                   PrsChatRequest      *request,
                   PrsChatDeltaFunc     delta_func,
                   gpointer             delta_data,
                   GDestroyNotify       delta_destroy,
                   GCancellable        *cancellable,
                   GAsyncReadyCallback  callback,
                   gpointer             user_data)
{
  PrsProviderOpenai *self = PRS_PROVIDER_OPENAI (provider);
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);
  const char *model = request->model != NULL ? request->model : prs_http_provider_get_config (self)->model;
  g_autoptr(JsonNode) body = NULL;
  PrsExchange *ex;

  g_task_set_source_tag (task, openai_chat_async);

  body = build_chat_body (request, model);
  ex = prs_exchange_new (prs_http_provider_get_config (self), task, &chat_ops,
                         request->stream ? PRS_WIRE_SSE : PRS_WIRE_JSON,
                         "POST", "/chat/completions", body);
  prs_exchange_set_chat (ex, model, delta_func, delta_data, delta_destroy);
  prs_exchange_set_bearer (ex);
  if (request->stream)
    prs_exchange_set_header (ex, "Accept", "text/event-stream");
  prs_exchange_send (ex);
}

static void
openai_list_models_async (PrsProvider         *provider,
                          GCancellable        *cancellable,
                          GAsyncReadyCallback  callback,
                          gpointer             user_data)
{
  PrsProviderOpenai *self = PRS_PROVIDER_OPENAI (provider);
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);
  PrsExchange *ex;

  g_task_set_source_tag (task, openai_list_models_async);
  ex = prs_exchange_new (prs_http_provider_get_config (self), task, &models_ops, PRS_WIRE_JSON, "GET", "/models", NULL);
  prs_exchange_set_bearer (ex);
  prs_exchange_send (ex);
}

static void
prs_provider_openai_class_init (PrsProviderOpenaiClass *klass)
{
  PrsHttpProviderClass *http_class = PRS_HTTP_PROVIDER_CLASS (klass);

  http_class->chat_async = openai_chat_async;
  http_class->list_models_async = openai_list_models_async;
}

static void
prs_provider_openai_init (PrsProviderOpenai *self)
{
}

PrsProvider *
prs_provider_openai_new (const char *base_url,
                         const char *model,
                         const char *api_key)
{
  PrsProviderOpenai *self = g_object_new (PRS_TYPE_PROVIDER_OPENAI, NULL);

  prs_http_provider_set_config (PRS_HTTP_PROVIDER (self), prs_provider_config_new ("openai", base_url, model, api_key));
  return PRS_PROVIDER (self);
}
