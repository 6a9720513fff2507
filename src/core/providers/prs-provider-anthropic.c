/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-provider-anthropic.c: Anthropic Messages (POST /v1/messages,
 * anthropic-version 2023-06-01).
 *
 * The system prompt is a top-level field; messages alternate user and
 * assistant, so consecutive turns of one role are merged here (tool results
 * travel as tool_result blocks in a user turn, calls as tool_use blocks in an
 * assistant turn). A stream is SSE: message_start, then per content block
 * content_block_start / content_block_delta (text_delta, or input_json_delta
 * pieces of a tool call's input, joined here) / content_block_stop, then
 * message_delta (stop reason, output tokens) and message_stop; an "error"
 * event can arrive at any point. */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "prs-error.h"
#include "prs-json.h"
#include "prs-provider-anthropic.h"
#include "prs-http-provider-private.h"

#define ANTHROPIC_VERSION "2023-06-01"

struct _PrsProviderAnthropic
{
  PrsHttpProvider parent_instance;
};

G_DEFINE_FINAL_TYPE (PrsProviderAnthropic, prs_provider_anthropic, PRS_TYPE_HTTP_PROVIDER)

/* A content block of a stream, by index. */
typedef struct
{
  gboolean    is_tool_use;
  gboolean    stopped;
  char       *id;
  char       *name;
  JsonObject *start_input;
  GString    *input_json;
} Block;

static void
block_free (gpointer data)
{
  Block *block = data;

  if (block == NULL)
    return;
  g_free (block->id);
  g_free (block->name);
  g_clear_pointer (&block->start_input, json_object_unref);
  g_string_free (block->input_json, TRUE);
  g_free (block);
}

/* ---- Requests ----------------------------------------------------------- */

static void
flush_turn (JsonArray  *messages,
            const char *role,
            JsonArray **blocks)
{
  JsonObject *message;

  if (*blocks == NULL)
    return;
  if (json_array_get_length (*blocks) == 0)
    {
      g_clear_pointer (blocks, json_array_unref);
      return;
    }

  message = json_object_new ();
  json_object_set_string_member (message, "role", role);
  json_object_set_array_member (message, "content", g_steal_pointer (blocks));
  json_array_add_object_element (messages, message);
}

static void
add_text_block (JsonArray  *blocks,
                const char *text)
{
  JsonObject *block;

  /* The API refuses empty text blocks. */
  if (text == NULL || text[0] == '\0')
    return;
  block = json_object_new ();
  json_object_set_string_member (block, "type", "text");
  json_object_set_string_member (block, "text", text);
  json_array_add_object_element (blocks, block);
}

static JsonNode *
build_chat_body (PrsChatRequest *request,
                 const char     *model)
{
  g_autoptr(JsonObject) root = json_object_new ();
  JsonArray *messages = json_array_new ();
  JsonArray *blocks = NULL;
  const char *role = NULL;
  JsonNode *node;

  json_object_set_string_member (root, "model", model);
  json_object_set_int_member (root, "max_tokens",
                              request->max_tokens > 0 ? request->max_tokens : PRS_CHAT_DEFAULT_MAX_TOKENS);
  if (request->system_prompt != NULL && request->system_prompt[0] != '\0')
    json_object_set_string_member (root, "system", request->system_prompt);

  for (guint i = 0; i < request->messages->len; i++)
    {
      PrsChatMessage *message = g_ptr_array_index (request->messages, i);
      const char *message_role = message->role == PRS_CHAT_ROLE_ASSISTANT ? "assistant" : "user";

      if (role == NULL || !g_str_equal (role, message_role))
        {
          flush_turn (messages, role, &blocks);
          role = message_role;
          blocks = json_array_new ();
        }

      switch (message->role)
        {
        case PRS_CHAT_ROLE_USER:
          add_text_block (blocks, message->text);
          break;

        case PRS_CHAT_ROLE_ASSISTANT:
          add_text_block (blocks, message->text);
          for (guint j = 0; j < message->tool_calls->len; j++)
            {
              PrsToolCall *call = g_ptr_array_index (message->tool_calls, j);
              JsonObject *block = json_object_new ();

              json_object_set_string_member (block, "type", "tool_use");
              json_object_set_string_member (block, "id", call->id);
              json_object_set_string_member (block, "name", call->name);
              json_object_set_object_member (block, "input", json_object_ref (call->arguments));
              json_array_add_object_element (blocks, block);
            }
          break;

        case PRS_CHAT_ROLE_TOOL:
          {
            JsonObject *block = json_object_new ();

            json_object_set_string_member (block, "type", "tool_result");
            json_object_set_string_member (block, "tool_use_id", message->tool_call_id);
            json_object_set_string_member (block, "content", message->text != NULL ? message->text : "");
            json_array_add_object_element (blocks, block);
          }
          break;

        default:
          g_assert_not_reached ();
        }
    }
  flush_turn (messages, role, &blocks);
  json_object_set_array_member (root, "messages", messages);

  if (request->tools->len > 0)
    {
      JsonArray *tools = json_array_new ();

      for (guint i = 0; i < request->tools->len; i++)
        {
          PrsChatTool *tool = g_ptr_array_index (request->tools, i);
          JsonObject *object = json_object_new ();

          json_object_set_string_member (object, "name", tool->name);
          json_object_set_string_member (object, "description", tool->description);
          json_object_set_member (object, "input_schema", prs_chat_tool_dup_schema (tool));
          json_array_add_object_element (tools, object);
        }
      json_object_set_array_member (root, "tools", tools);
    }

  if (request->temperature >= 0)
    json_object_set_double_member (root, "temperature", MIN (request->temperature, 1.0));
  json_object_set_boolean_member (root, "stream", request->stream);

  node = json_node_new (JSON_NODE_OBJECT);
  json_node_set_object (node, root);
  return node;
}

/* ---- Answers ------------------------------------------------------------ */

static const char *
normalise_stop (const char *reason)
{
  if (reason == NULL)
    return PRS_STOP_OTHER;
  if (g_str_equal (reason, "end_turn") || g_str_equal (reason, "stop_sequence"))
    return PRS_STOP_END;
  if (g_str_equal (reason, "tool_use"))
    return PRS_STOP_TOOL_CALLS;
  if (g_str_equal (reason, "max_tokens"))
    return PRS_STOP_MAX_TOKENS;
  return PRS_STOP_OTHER;
}

/* Input tokens are split into fresh and cached ones; people want the sum. */
static void
read_usage (PrsExchange *ex,
            JsonObject  *usage)
{
  if (usage == NULL)
    return;

  if (json_object_has_member (usage, "input_tokens"))
    ex->response->input_tokens = prs_json_object_get_int (usage, "input_tokens", 0) +
                                 prs_json_object_get_int (usage, "cache_creation_input_tokens", 0) +
                                 prs_json_object_get_int (usage, "cache_read_input_tokens", 0);
  ex->response->output_tokens = prs_json_object_get_int (usage, "output_tokens", ex->response->output_tokens);
}

static void
read_model (PrsExchange *ex,
            JsonObject  *message)
{
  const char *model = prs_json_object_get_string (message, "model");

  if (model != NULL && model[0] != '\0' && ex->response->model == NULL)
    ex->response->model = g_strdup (model);
}

static gboolean
add_tool_use (PrsExchange  *ex,
              const char   *id,
              const char   *name,
              JsonObject   *input,
              GError      **error)
{
  g_autofree char *made_id = NULL;

  if (name == NULL || name[0] == '\0')
    return prs_exchange_bad_response (ex, error, _("a tool_use block without a name"));
  if (id == NULL || id[0] == '\0')
    id = made_id = prs_provider_make_call_id ();
  g_ptr_array_add (ex->response->tool_calls, prs_tool_call_new (id, name, input));
  return TRUE;
}

static gboolean
chat_on_json (PrsExchange  *ex,
              JsonNode     *root_node,
              GError      **error)
{
  JsonObject *root = json_node_get_object (root_node);
  JsonArray *content = prs_json_object_get_array (root, "content");
  const char *stop = prs_json_object_get_string (root, "stop_reason");

  if (g_strcmp0 (prs_json_object_get_string (root, "type"), "error") == 0)
    {
      JsonObject *err = prs_json_object_get_object (root, "error");

      return prs_exchange_stream_error (ex, error, prs_json_object_get_string (err, "type"),
                                        prs_json_object_get_string (err, "message"));
    }
  if (content == NULL)
    return prs_exchange_bad_response (ex, error, _("no content"));

  for (guint i = 0; i < json_array_get_length (content); i++)
    {
      JsonObject *block = prs_json_node_get_object (json_array_get_element (content, i));
      const char *type = prs_json_object_get_string (block, "type");

      if (g_strcmp0 (type, "text") == 0)
        prs_exchange_add_text (ex, prs_json_object_get_string (block, "text"));
      else if (g_strcmp0 (type, "tool_use") == 0)
        {
          JsonObject *input = prs_json_object_get_object (block, "input");

          if (!add_tool_use (ex, prs_json_object_get_string (block, "id"),
                             prs_json_object_get_string (block, "name"), input, error))
            return FALSE;
        }
      /* thinking and other blocks are not part of the answer */
    }

  prs_chat_response_set_stop (ex->response, normalise_stop (stop), stop);
  read_usage (ex, prs_json_object_get_object (root, "usage"));
  read_model (ex, root);
  return TRUE;
}

static Block *
get_block (PrsExchange  *ex,
           JsonObject   *data,
           GError      **error)
{
  GPtrArray *blocks = ex->impl_data;
  gint64 index = prs_json_object_get_int (data, "index", -1);
  Block *block;

  if (index < 0 || index >= (gint64) blocks->len ||
      (block = g_ptr_array_index (blocks, index)) == NULL)
    {
      prs_exchange_bad_response (ex, error, _("an event for a content block that was not started"));
      return NULL;
    }
  return block;
}

static gboolean
on_block_start (PrsExchange  *ex,
                JsonObject   *root,
                GError      **error)
{
  GPtrArray *blocks = ex->impl_data;
  JsonObject *content = prs_json_object_get_object (root, "content_block");
  gint64 index = prs_json_object_get_int (root, "index", -1);
  Block *block;

  if (content == NULL || index < 0 || index > 4096)
    return prs_exchange_bad_response (ex, error, _("a content block without a valid index"));
  while (blocks->len <= (guint) index)
    g_ptr_array_add (blocks, NULL);
  if (g_ptr_array_index (blocks, index) != NULL)
    return prs_exchange_bad_response (ex, error, _("a content block started twice"));

  block = g_new0 (Block, 1);
  block->input_json = g_string_new (NULL);
  block->is_tool_use = g_strcmp0 (prs_json_object_get_string (content, "type"), "tool_use") == 0;
  block->id = g_strdup (prs_json_object_get_string (content, "id"));
  block->name = g_strdup (prs_json_object_get_string (content, "name"));
  if (prs_json_object_get_object (content, "input") != NULL)
    block->start_input = json_object_ref (prs_json_object_get_object (content, "input"));
  g_ptr_array_index (blocks, index) = block;

  if (!block->is_tool_use)
    prs_exchange_add_text (ex, prs_json_object_get_string (content, "text"));
  return TRUE;
}

static gboolean
on_block_delta (PrsExchange  *ex,
                JsonObject   *root,
                GError      **error)
{
  Block *block = get_block (ex, root, error);
  JsonObject *delta = prs_json_object_get_object (root, "delta");
  const char *delta_type = prs_json_object_get_string (delta, "type");

  if (block == NULL)
    return FALSE;
  if (g_strcmp0 (delta_type, "text_delta") == 0)
    prs_exchange_add_text (ex, prs_json_object_get_string (delta, "text"));
  else if (g_strcmp0 (delta_type, "input_json_delta") == 0)
    {
      const char *partial = prs_json_object_get_string (delta, "partial_json");

      if (partial != NULL)
        g_string_append (block->input_json, partial);
    }
  /* thinking_delta, signature_delta, citations: not part of the answer */
  return TRUE;
}

/* A tool_use block's input is whole once the block stops. */
static gboolean
on_block_stop (PrsExchange  *ex,
               JsonObject   *root,
               GError      **error)
{
  Block *block = get_block (ex, root, error);

  if (block == NULL)
    return FALSE;
  if (block->is_tool_use && !block->stopped)
    {
      g_autoptr(JsonObject) input = NULL;

      if (block->input_json->len > 0)
        {
          input = prs_json_object_from_text (block->input_json->str, block->input_json->len);
          if (input == NULL)
            {
              g_autofree char *what = g_strdup_printf (_("the input of the tool call “%s” is not a JSON object"),
                                                       block->name != NULL ? block->name : "");

              return prs_exchange_bad_response (ex, error, what);
            }
        }
      else if (block->start_input != NULL)
        input = json_object_ref (block->start_input);

      if (!add_tool_use (ex, block->id, block->name, input, error))
        return FALSE;
    }
  block->stopped = TRUE;
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
  JsonObject *root;
  const char *type;

  if (ex->complete || g_str_equal (event, "ping"))
    return TRUE;

  node = prs_exchange_parse (ex, data, len, error);
  if (node == NULL)
    return FALSE;
  root = json_node_get_object (node);
  /* The data repeats the event's name as "type"; the data wins. */
  type = prs_json_object_get_string (root, "type");
  if (type == NULL)
    type = event;

  if (g_str_equal (type, "error"))
    {
      JsonObject *err = prs_json_object_get_object (root, "error");

      return prs_exchange_stream_error (ex, error, prs_json_object_get_string (err, "type"),
                                        prs_json_object_get_string (err, "message"));
    }

  if (g_str_equal (type, "message_start"))
    {
      JsonObject *message = prs_json_object_get_object (root, "message");

      read_model (ex, message);
      read_usage (ex, prs_json_object_get_object (message, "usage"));
    }
  else if (g_str_equal (type, "content_block_start"))
    return on_block_start (ex, root, error);
  else if (g_str_equal (type, "content_block_delta"))
    return on_block_delta (ex, root, error);
  else if (g_str_equal (type, "content_block_stop"))
    return on_block_stop (ex, root, error);
  else if (g_str_equal (type, "message_delta"))
    {
      JsonObject *delta = prs_json_object_get_object (root, "delta");
      const char *stop = prs_json_object_get_string (delta, "stop_reason");

      if (stop != NULL)
        prs_chat_response_set_stop (ex->response, normalise_stop (stop), stop);
      read_usage (ex, prs_json_object_get_object (root, "usage"));
    }
  else if (g_str_equal (type, "message_stop"))
    ex->complete = TRUE;
  /* Event types added later are ignored, as the API's versioning asks. */

  return TRUE;
}

static gboolean
chat_on_end (PrsExchange  *ex,
             GError      **error)
{
  if (!ex->complete)
    return prs_exchange_bad_response (ex, error, _("the stream ended before message_stop"));
  return TRUE;
}

static char *
error_message (JsonNode *body,
               gboolean *model_not_found,
               gboolean *bad_key)
{
  JsonObject *err = prs_json_object_get_object (prs_json_node_get_object (body), "error");
  const char *type = prs_json_object_get_string (err, "type");

  *model_not_found = g_strcmp0 (type, "not_found_error") == 0;
  *bad_key = g_strcmp0 (type, "authentication_error") == 0;
  return g_strdup (prs_json_object_get_string (err, "message"));
}

static void
chat_init (PrsExchange *ex)
{
  ex->impl_data = g_ptr_array_new_with_free_func (block_free);
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

      prs_exchange_add_model (ex, id, prs_json_object_get_string (model, "display_name"));
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
prs_provider_anthropic_get_chat_ops (void)
{
  return &chat_ops;
}

const PrsExchangeOps *
prs_provider_anthropic_get_models_ops (void)
{
  return &models_ops;
}

/* ---- PrsProvider -------------------------------------------------------- */

static void
add_headers (PrsProviderAnthropic *self,
             PrsExchange          *ex)
{
  if (prs_http_provider_get_config (self)->api_key != NULL)
    prs_exchange_set_header (ex, "x-api-key", prs_http_provider_get_config (self)->api_key);
  prs_exchange_set_header (ex, "anthropic-version", ANTHROPIC_VERSION);
}

static void
anthropic_chat_async (PrsProvider         *provider,
                      PrsChatRequest      *request,
                      PrsChatDeltaFunc     delta_func,
                      gpointer             delta_data,
                      GDestroyNotify       delta_destroy,
                      GCancellable        *cancellable,
                      GAsyncReadyCallback  callback,
                      gpointer             user_data)
{
  PrsProviderAnthropic *self = PRS_PROVIDER_ANTHROPIC (provider);
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);
  const char *model = request->model != NULL ? request->model : prs_http_provider_get_config (self)->model;
  g_autoptr(JsonNode) body = NULL;
  PrsExchange *ex;

  g_task_set_source_tag (task, anthropic_chat_async);

  body = build_chat_body (request, model);
  ex = prs_exchange_new (prs_http_provider_get_config (self), task, &chat_ops,
                         request->stream ? PRS_WIRE_SSE : PRS_WIRE_JSON,
                         "POST", "/v1/messages", body);
  prs_exchange_set_chat (ex, model, delta_func, delta_data, delta_destroy);
  add_headers (self, ex);
  if (request->stream)
    prs_exchange_set_header (ex, "Accept", "text/event-stream");
  prs_exchange_send (ex);
}

static void
anthropic_list_models_async (PrsProvider         *provider,
                             GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  PrsProviderAnthropic *self = PRS_PROVIDER_ANTHROPIC (provider);
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);
  PrsExchange *ex;

  g_task_set_source_tag (task, anthropic_list_models_async);
  ex = prs_exchange_new (prs_http_provider_get_config (self), task, &models_ops, PRS_WIRE_JSON, "GET",
                         "/v1/models?limit=1000", NULL);
  add_headers (self, ex);
  prs_exchange_send (ex);
}

static void
prs_provider_anthropic_class_init (PrsProviderAnthropicClass *klass)
{
  PrsHttpProviderClass *http_class = PRS_HTTP_PROVIDER_CLASS (klass);

  http_class->chat_async = anthropic_chat_async;
  http_class->list_models_async = anthropic_list_models_async;
}

static void
prs_provider_anthropic_init (PrsProviderAnthropic *self)
{
}

PrsProvider *
prs_provider_anthropic_new (const char *base_url,
                         const char *model,
                         const char *api_key)
{
  PrsProviderAnthropic *self = g_object_new (PRS_TYPE_PROVIDER_ANTHROPIC, NULL);

  prs_http_provider_set_config (PRS_HTTP_PROVIDER (self), prs_provider_config_new ("anthropic", base_url, model, api_key));
  return PRS_PROVIDER (self);
}
