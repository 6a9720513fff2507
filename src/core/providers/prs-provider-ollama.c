/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-provider-ollama.c: Ollama's native chat API (POST /api/chat).
 *
 * "stream" is always sent, since Ollama streams unless told not to; a
 * stream is NDJSON, one object per line, the last with "done": true and the
 * token counts (prompt_eval_count, eval_count). Tool calls come whole, with
 * arguments as an object and usually no id: one is made up here. Options
 * carry the output limit (num_predict) and the temperature. */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "prs-error.h"
#include "prs-json.h"
#include "prs-provider-ollama.h"
#include "prs-http-provider-private.h"

struct _PrsProviderOllama
{
  PrsHttpProvider parent_instance;
};

G_DEFINE_FINAL_TYPE (PrsProviderOllama, prs_provider_ollama, PRS_TYPE_HTTP_PROVIDER)

/* ---- Requests ----------------------------------------------------------- */

static void
add_text_message (JsonBuilder *b,
                  const char  *role,
                  const char  *text)
{
  json_builder_set_member_name (b, "role");
  json_builder_add_string_value (b, role);
  json_builder_set_member_name (b, "content");
  json_builder_add_string_value (b, text != NULL ? text : "");
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
      add_text_message (b, "system", request->system_prompt);
      json_builder_end_object (b);
    }
  for (guint i = 0; i < request->messages->len; i++)
    {
      PrsChatMessage *message = g_ptr_array_index (request->messages, i);

      json_builder_begin_object (b);
      switch (message->role)
        {
        case PRS_CHAT_ROLE_USER:
          add_text_message (b, "user", message->text);
          break;

        case PRS_CHAT_ROLE_ASSISTANT:
          add_text_message (b, "assistant", message->text);
          if (message->tool_calls->len > 0)
            {
              json_builder_set_member_name (b, "tool_calls");
              json_builder_begin_array (b);
              for (guint j = 0; j < message->tool_calls->len; j++)
                {
                  PrsToolCall *call = g_ptr_array_index (message->tool_calls, j);
                  JsonNode *args = json_node_init_object (json_node_alloc (), call->arguments);

                  json_builder_begin_object (b);
                  json_builder_set_member_name (b, "function");
                  json_builder_begin_object (b);
                  json_builder_set_member_name (b, "name");
                  json_builder_add_string_value (b, call->name);
                  json_builder_set_member_name (b, "arguments");
                  json_builder_add_value (b, args);
                  json_builder_end_object (b);
                  json_builder_end_object (b);
                }
              json_builder_end_array (b);
            }
          break;

        case PRS_CHAT_ROLE_TOOL:
          add_text_message (b, "tool", message->text);
          if (message->tool_name != NULL)
            {
              json_builder_set_member_name (b, "tool_name");
              json_builder_add_string_value (b, message->tool_name);
            }
          break;

        default:
          g_assert_not_reached ();
        }
      json_builder_end_object (b);
    }
  json_builder_end_array (b);

  if (request->tools->len > 0)
    {
      json_builder_set_member_name (b, "tools");
      prs_json_builder_add_function_tools (b, request->tools);
    }

  json_builder_set_member_name (b, "stream");
  json_builder_add_boolean_value (b, request->stream);

  json_builder_set_member_name (b, "options");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "num_predict");
  json_builder_add_int_value (b, request->max_tokens > 0 ? request->max_tokens : PRS_CHAT_DEFAULT_MAX_TOKENS);
  if (request->temperature >= 0)
    {
      json_builder_set_member_name (b, "temperature");
      json_builder_add_double_value (b, request->temperature);
    }
  json_builder_end_object (b);

  json_builder_end_object (b);

  return json_builder_get_root (b);
}

/* ---- Answers ------------------------------------------------------------ */

static const char *
normalise_stop (const char *reason)
{
  if (reason == NULL)
    return PRS_STOP_END;  /* older versions say nothing but "done" */
  if (g_str_equal (reason, "stop"))
    return PRS_STOP_END;
  if (g_str_equal (reason, "length"))
    return PRS_STOP_MAX_TOKENS;
  return PRS_STOP_OTHER;
}

/* One object, whole (non-streaming) or one line of a stream. */
static gboolean
read_part (PrsExchange  *ex,
           JsonObject   *root,
           GError      **error)
{
  JsonObject *message = prs_json_object_get_object (root, "message");
  JsonArray *calls = prs_json_object_get_array (message, "tool_calls");
  const char *err = prs_json_object_get_string (root, "error");
  const char *model = prs_json_object_get_string (root, "model");

  if (err != NULL)
    return prs_exchange_stream_error (ex, error, NULL, err);

  if (model != NULL && model[0] != '\0' && ex->response->model == NULL)
    ex->response->model = g_strdup (model);

  prs_exchange_add_text (ex, prs_json_object_get_string (message, "content"));

  for (guint i = 0; calls != NULL && i < json_array_get_length (calls); i++)
    {
      JsonObject *call = prs_json_node_get_object (json_array_get_element (calls, i));
      JsonObject *function = prs_json_object_get_object (call, "function");
      const char *name = prs_json_object_get_string (function, "name");
      JsonNode *args = function != NULL ? json_object_get_member (function, "arguments") : NULL;
      g_autoptr(JsonObject) arguments = NULL;
      g_autofree char *id = g_strdup (prs_json_object_get_string (call, "id"));

      if (name == NULL || name[0] == '\0')
        return prs_exchange_bad_response (ex, error, _("a tool call without a name"));

      /* The API gives an object; some models' templates yield a string. */
      if (args == NULL || JSON_NODE_HOLDS_NULL (args))
        arguments = json_object_new ();
      else if (JSON_NODE_HOLDS_OBJECT (args))
        arguments = json_object_ref (json_node_get_object (args));
      else if (json_node_get_value_type (args) == G_TYPE_STRING)
        arguments = prs_json_object_from_text (json_node_get_string (args), strlen (json_node_get_string (args)));
      if (arguments == NULL)
        {
          g_autofree char *what = g_strdup_printf (_("the arguments of the tool call “%s” are not a JSON object"), name);

          return prs_exchange_bad_response (ex, error, what);
        }

      if (id == NULL || id[0] == '\0')
        {
          g_free (id);
          id = prs_provider_make_call_id ();
        }
      g_ptr_array_add (ex->response->tool_calls, prs_tool_call_new (id, name, arguments));
    }

  if (prs_json_object_get_bool (root, "done", FALSE))
    {
      const char *reason = prs_json_object_get_string (root, "done_reason");

      ex->complete = TRUE;
      prs_chat_response_set_stop (ex->response, normalise_stop (reason), reason);
      ex->response->input_tokens = prs_json_object_get_int (root, "prompt_eval_count", 0);
      ex->response->output_tokens = prs_json_object_get_int (root, "eval_count", 0);
    }

  return TRUE;
}

static gboolean
chat_on_json (PrsExchange  *ex,
              JsonNode     *root,
              GError      **error)
{
  if (!read_part (ex, json_node_get_object (root), error))
    return FALSE;
  if (!ex->complete)
    return prs_exchange_bad_response (ex, error, _("the answer is not marked done"));
  return TRUE;
}

static gboolean
chat_on_event (PrsExchange  *ex,
               const char   *event,
               const char   *data,
               gsize         len,
               GError      **error)
{
  g_autoptr(JsonNode) node = NULL;

  if (ex->complete)
    return TRUE;

  node = prs_exchange_parse (ex, data, len, error);
  return node != NULL && read_part (ex, json_node_get_object (node), error);
}

static gboolean
chat_on_end (PrsExchange  *ex,
             GError      **error)
{
  if (!ex->complete)
    return prs_exchange_bad_response (ex, error, _("the stream ended before the answer was complete"));
  return TRUE;
}

static char *
error_message (JsonNode *body,
               gboolean *model_not_found,
               gboolean *bad_key)
{
  const char *message = prs_json_object_get_string (prs_json_node_get_object (body), "error");

  *bad_key = FALSE;
  *model_not_found = message != NULL && strstr (message, "not found") != NULL &&
                     strstr (message, "model") != NULL;
  return g_strdup (message);
}

static const PrsExchangeOps chat_ops = {
  chat_on_json,
  chat_on_event,
  chat_on_end,
  error_message,
  NULL,
};

static gboolean
models_on_json (PrsExchange  *ex,
                JsonNode     *root,
                GError      **error)
{
  JsonArray *models = prs_json_object_get_array (json_node_get_object (root), "models");

  if (models == NULL)
    return prs_exchange_bad_response (ex, error, _("no list of models (models)"));

  for (guint i = 0; i < json_array_get_length (models); i++)
    {
      JsonObject *model = prs_json_node_get_object (json_array_get_element (models, i));
      const char *id = prs_json_object_get_string (model, "model");
      const char *name = prs_json_object_get_string (model, "name");

      prs_exchange_add_model (ex, id != NULL && id[0] != '\0' ? id : name, name);
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
prs_provider_ollama_get_chat_ops (void)
{
  return &chat_ops;
}

const PrsExchangeOps *
prs_provider_ollama_get_models_ops (void)
{
  return &models_ops;
}

/* ---- PrsProvider -------------------------------------------------------- */

static void
ollama_chat_async (PrsProvider         *provider,
                   PrsChatRequest      *request,
                   PrsChatDeltaFunc     delta_func,
                   gpointer             delta_data,
                   GDestroyNotify       delta_destroy,
                   GCancellable        *cancellable,
                   GAsyncReadyCallback  callback,
                   gpointer             user_data)
{
  PrsProviderOllama *self = PRS_PROVIDER_OLLAMA (provider);
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);
  const char *model = request->model != NULL ? request->model : prs_http_provider_get_config (self)->model;
  g_autoptr(JsonNode) body = NULL;
  PrsExchange *ex;

  g_task_set_source_tag (task, ollama_chat_async);

  body = build_chat_body (request, model);
  ex = prs_exchange_new (prs_http_provider_get_config (self), task, &chat_ops,
                         request->stream ? PRS_WIRE_NDJSON : PRS_WIRE_JSON,
                         "POST", "/api/chat", body);
  prs_exchange_set_chat (ex, model, delta_func, delta_data, delta_destroy);
  /* Ollama needs no key; one is sent when set, for servers behind a proxy */
  prs_exchange_set_bearer (ex);
  prs_exchange_send (ex);
}

static void
ollama_list_models_async (PrsProvider         *provider,
                          GCancellable        *cancellable,
                          GAsyncReadyCallback  callback,
                          gpointer             user_data)
{
  PrsProviderOllama *self = PRS_PROVIDER_OLLAMA (provider);
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);
  PrsExchange *ex;

  g_task_set_source_tag (task, ollama_list_models_async);
  ex = prs_exchange_new (prs_http_provider_get_config (self), task, &models_ops, PRS_WIRE_JSON, "GET", "/api/tags", NULL);
  prs_exchange_set_bearer (ex);
  prs_exchange_send (ex);
}

static void
prs_provider_ollama_class_init (PrsProviderOllamaClass *klass)
{
  PrsHttpProviderClass *http_class = PRS_HTTP_PROVIDER_CLASS (klass);

  http_class->chat_async = ollama_chat_async;
  http_class->list_models_async = ollama_list_models_async;
}

static void
prs_provider_ollama_init (PrsProviderOllama *self)
{
}

PrsProvider *
prs_provider_ollama_new (const char *base_url,
                         const char *model,
                         const char *api_key)
{
  PrsProviderOllama *self = g_object_new (PRS_TYPE_PROVIDER_OLLAMA, NULL);

  prs_http_provider_set_config (PRS_HTTP_PROVIDER (self), prs_provider_config_new ("ollama", base_url, model, api_key));
  return PRS_PROVIDER (self);
}
