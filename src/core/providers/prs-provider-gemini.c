/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-provider-gemini.c: Google Gemini (POST /v1beta/models/{model}
 * :generateContent, or :streamGenerateContent?alt=sse), key in the
 * x-goog-api-key header.
 *
 * Turns are "user" and "model" with parts; tool results are functionResponse
 * parts in a user turn, whose "response" must be an object: a result that is
 * not a JSON object is wrapped as {"result": value}. Gemini gives calls no
 * ids (or ids of its own), so missing ones are made up here.
 *
 * Function declarations take an OpenAPI subset of JSON Schema, and Gemini
 * refuses a request with a key outside it ("default", "additionalProperties",
 * "$schema", "examples", …). Decision: schemas are rewritten to a whitelist
 * — type, format, description, nullable, enum (strings only), properties,
 * required (only names that exist), items, anyOf, minItems, maxItems,
 * minimum, maximum, minLength, maxLength, pattern, title — a type list such
 * as ["string", "null"] becomes the type plus nullable, and an object with
 * no properties loses its empty "properties" (refused too); a tool without
 * parameters is declared without "parameters". Nothing a model needs to
 * call the tool is lost; defaults are applied by n8n and by binding. */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "prs-error.h"
#include "prs-json.h"
#include "prs-provider-gemini.h"
#include "prs-http-provider-private.h"

#define MAX_SCHEMA_DEPTH 32

struct _PrsProviderGemini
{
  PrsHttpProvider parent_instance;
};

G_DEFINE_FINAL_TYPE (PrsProviderGemini, prs_provider_gemini, PRS_TYPE_HTTP_PROVIDER)

/* ---- Schemas ------------------------------------------------------------ */

static JsonObject *clean_schema (JsonObject *schema,
                                 guint       depth);

static JsonNode *
clean_schema_node (JsonNode *node,
                   guint     depth)
{
  JsonNode *out;
  JsonObject *clean;

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return NULL;
  clean = clean_schema (json_node_get_object (node), depth + 1);
  out = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (out, clean);
  return out;
}

/* "type": a name, or a list such as ["string", "null"]: the first name
 * that is not "null", and nullable when "null" is one of them. */
static void
clean_type (JsonObject *schema,
            JsonObject *out)
{
  JsonNode *type = json_object_get_member (schema, "type");
  JsonArray *types;

  if (type != NULL && json_node_get_value_type (type) == G_TYPE_STRING)
    {
      json_object_set_string_member (out, "type", json_node_get_string (type));
      return;
    }
  if (type == NULL || !JSON_NODE_HOLDS_ARRAY (type))
    return;

  types = json_node_get_array (type);
  for (guint i = 0; i < json_array_get_length (types); i++)
    {
      JsonNode *element = json_array_get_element (types, i);
      const char *name = json_node_get_value_type (element) == G_TYPE_STRING
                         ? json_node_get_string (element) : NULL;

      if (g_strcmp0 (name, "null") == 0)
        json_object_set_boolean_member (out, "nullable", TRUE);
      else if (name != NULL && !json_object_has_member (out, "type"))
        json_object_set_string_member (out, "type", name);
    }
}

/* "enum" is kept only when every value is a string. */
static void
clean_enum (JsonObject *schema,
            JsonObject *out)
{
  JsonArray *list = prs_json_object_get_array (schema, "enum");
  gboolean all_strings = TRUE;

  if (list == NULL || json_array_get_length (list) == 0)
    return;
  for (guint i = 0; i < json_array_get_length (list); i++)
    all_strings = all_strings && json_node_get_value_type (json_array_get_element (list, i)) == G_TYPE_STRING;
  if (all_strings)
    json_object_set_member (out, "enum", json_node_copy (json_object_get_member (schema, "enum")));
}

/* "properties", each cleaned, and "required" cut to the names kept. */
static void
clean_properties (JsonObject *schema,
                  JsonObject *out,
                  guint       depth)
{
  JsonObject *properties = prs_json_object_get_object (schema, "properties");
  JsonArray *required = prs_json_object_get_array (schema, "required");
  g_autoptr(GList) names = NULL;
  JsonObject *clean;
  JsonArray *kept;

  if (properties == NULL || json_object_get_size (properties) == 0)
    return;

  clean = json_object_new ();
  names = json_object_get_members (properties);
  for (GList *l = names; l != NULL; l = l->next)
    {
      JsonNode *child = clean_schema_node (json_object_get_member (properties, l->data), depth);

      if (child != NULL)
        json_object_set_member (clean, l->data, child);
    }
  json_object_set_object_member (out, "properties", clean);

  if (required == NULL)
    return;
  kept = json_array_new ();
  for (guint i = 0; i < json_array_get_length (required); i++)
    {
      JsonNode *element = json_array_get_element (required, i);

      if (json_node_get_value_type (element) == G_TYPE_STRING &&
          json_object_has_member (clean, json_node_get_string (element)))
        json_array_add_string_element (kept, json_node_get_string (element));
    }
  if (json_array_get_length (kept) > 0)
    json_object_set_array_member (out, "required", kept);
  else
    json_array_unref (kept);
}

static JsonObject *
clean_schema (JsonObject *schema,
              guint       depth)
{
  static const char * const copied[] = {
    "format", "description", "nullable", "title", "pattern",
    "minItems", "maxItems", "minimum", "maximum", "minLength", "maxLength",
  };
  JsonObject *out = json_object_new ();
  JsonArray *list;

  if (depth > MAX_SCHEMA_DEPTH)
    return out;

  clean_type (schema, out);
  for (guint i = 0; i < G_N_ELEMENTS (copied); i++)
    {
      JsonNode *value = json_object_get_member (schema, copied[i]);

      if (value != NULL && JSON_NODE_HOLDS_VALUE (value))
        json_object_set_member (out, copied[i], json_node_copy (value));
    }
  clean_enum (schema, out);
  clean_properties (schema, out, depth);

  if (json_object_get_member (schema, "items") != NULL)
    {
      JsonNode *items = clean_schema_node (json_object_get_member (schema, "items"), depth);

      if (items != NULL)
        json_object_set_member (out, "items", items);
    }

  list = prs_json_object_get_array (schema, "anyOf");
  if (list != NULL && json_array_get_length (list) > 0)
    {
      JsonArray *clean = json_array_new ();

      for (guint i = 0; i < json_array_get_length (list); i++)
        {
          JsonNode *child = clean_schema_node (json_array_get_element (list, i), depth);

          if (child != NULL)
            json_array_add_element (clean, child);
        }
      json_object_set_array_member (out, "anyOf", clean);
    }

  return out;
}

/* ---- Requests ----------------------------------------------------------- */

static void
flush_turn (JsonArray  *contents,
            const char *role,
            JsonArray **parts)
{
  JsonObject *content;

  if (*parts == NULL)
    return;
  if (json_array_get_length (*parts) == 0)
    {
      g_clear_pointer (parts, json_array_unref);
      return;
    }

  content = json_object_new ();
  json_object_set_string_member (content, "role", role);
  json_object_set_array_member (content, "parts", g_steal_pointer (parts));
  json_array_add_object_element (contents, content);
}

static void
add_text_part (JsonArray  *parts,
               const char *text)
{
  JsonObject *part;

  if (text == NULL || text[0] == '\0')
    return;
  part = json_object_new ();
  json_object_set_string_member (part, "text", text);
  json_array_add_object_element (parts, part);
}

static JsonObject *
function_response (PrsChatMessage *message)
{
  JsonObject *response = json_object_new ();
  JsonObject *part = json_object_new ();
  g_autoptr(JsonNode) value = prs_json_value_from_text (message->text);

  json_object_set_string_member (response, "name", message->tool_name != NULL ? message->tool_name : "");
  if (JSON_NODE_HOLDS_OBJECT (value))
    json_object_set_member (response, "response", json_node_ref (value));
  else
    {
      JsonObject *wrapped = json_object_new ();

      json_object_set_member (wrapped, "result", json_node_ref (value));
      json_object_set_object_member (response, "response", wrapped);
    }
  json_object_set_object_member (part, "functionResponse", response);
  return part;
}

/* [{functionDeclarations: [{name, description, parameters}]}], the
 * parameters cleaned (see the top of this file), and left out when the
 * tool has none. */
static JsonArray *
build_tools (GPtrArray *chat_tools)
{
  JsonArray *tools = json_array_new ();
  JsonObject *holder = json_object_new ();
  JsonArray *declarations = json_array_new ();

  for (guint i = 0; i < chat_tools->len; i++)
    {
      PrsChatTool *tool = g_ptr_array_index (chat_tools, i);
      JsonObject *declaration = json_object_new ();
      JsonObject *schema = prs_json_node_get_object (tool->input_schema);

      json_object_set_string_member (declaration, "name", tool->name);
      json_object_set_string_member (declaration, "description", tool->description);
      if (schema != NULL)
        {
          JsonObject *clean = clean_schema (schema, 0);

          if (json_object_has_member (clean, "properties"))
            json_object_set_object_member (declaration, "parameters", clean);
          else
            json_object_unref (clean);
        }
      json_array_add_object_element (declarations, declaration);
    }
  json_object_set_array_member (holder, "functionDeclarations", declarations);
  json_array_add_object_element (tools, holder);
  return tools;
}

static JsonNode *
build_chat_body (PrsChatRequest *request)
{
  g_autoptr(JsonObject) root = json_object_new ();
  JsonArray *contents = json_array_new ();
  JsonArray *parts = NULL;
  JsonObject *config;
  const char *role = NULL;
  JsonNode *node;

  if (request->system_prompt != NULL && request->system_prompt[0] != '\0')
    {
      JsonObject *instruction = json_object_new ();
      JsonArray *system_parts = json_array_new ();

      add_text_part (system_parts, request->system_prompt);
      json_object_set_array_member (instruction, "parts", system_parts);
      json_object_set_object_member (root, "systemInstruction", instruction);
    }

  for (guint i = 0; i < request->messages->len; i++)
    {
      PrsChatMessage *message = g_ptr_array_index (request->messages, i);
      const char *message_role = message->role == PRS_CHAT_ROLE_ASSISTANT ? "model" : "user";

      if (role == NULL || !g_str_equal (role, message_role))
        {
          flush_turn (contents, role, &parts);
          role = message_role;
          parts = json_array_new ();
        }

      switch (message->role)
        {
        case PRS_CHAT_ROLE_USER:
          add_text_part (parts, message->text);
          break;

        case PRS_CHAT_ROLE_ASSISTANT:
          add_text_part (parts, message->text);
          for (guint j = 0; j < message->tool_calls->len; j++)
            {
              PrsToolCall *call = g_ptr_array_index (message->tool_calls, j);
              JsonObject *part = json_object_new ();
              JsonObject *function = json_object_new ();

              json_object_set_string_member (function, "name", call->name);
              json_object_set_object_member (function, "args", json_object_ref (call->arguments));
              json_object_set_object_member (part, "functionCall", function);
              json_array_add_object_element (parts, part);
            }
          break;

        case PRS_CHAT_ROLE_TOOL:
          json_array_add_object_element (parts, function_response (message));
          break;

        default:
          g_assert_not_reached ();
        }
    }
  flush_turn (contents, role, &parts);
  json_object_set_array_member (root, "contents", contents);

  if (request->tools->len > 0)
    json_object_set_array_member (root, "tools", build_tools (request->tools));

  config = json_object_new ();
  json_object_set_int_member (config, "maxOutputTokens",
                              request->max_tokens > 0 ? request->max_tokens : PRS_CHAT_DEFAULT_MAX_TOKENS);
  if (request->temperature >= 0)
    json_object_set_double_member (config, "temperature", request->temperature);
  json_object_set_object_member (root, "generationConfig", config);

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
  if (g_str_equal (reason, "STOP"))
    return PRS_STOP_END;
  if (g_str_equal (reason, "MAX_TOKENS"))
    return PRS_STOP_MAX_TOKENS;
  return PRS_STOP_OTHER;
}

/* One GenerateContentResponse: the whole answer, or one chunk of it. */
static gboolean
read_response (PrsExchange  *ex,
               JsonObject   *root,
               GError      **error)
{
  JsonObject *err = prs_json_object_get_object (root, "error");
  JsonArray *candidates = prs_json_object_get_array (root, "candidates");
  JsonObject *candidate = NULL;
  JsonObject *usage = prs_json_object_get_object (root, "usageMetadata");
  JsonObject *feedback = prs_json_object_get_object (root, "promptFeedback");
  const char *model = prs_json_object_get_string (root, "modelVersion");
  const char *finish;
  JsonArray *parts;

  if (err != NULL)
    return prs_exchange_stream_error (ex, error, prs_json_object_get_string (err, "status"),
                                      prs_json_object_get_string (err, "message"));

  if (model != NULL && model[0] != '\0' && ex->response->model == NULL)
    ex->response->model = g_strdup (model);
  if (usage != NULL)
    {
      ex->response->input_tokens = prs_json_object_get_int (usage, "promptTokenCount", ex->response->input_tokens);
      ex->response->output_tokens = prs_json_object_get_int (usage, "candidatesTokenCount", 0) +
                                    prs_json_object_get_int (usage, "thoughtsTokenCount", 0);
    }

  if (candidates != NULL && json_array_get_length (candidates) > 0)
    candidate = prs_json_node_get_object (json_array_get_element (candidates, 0));
  if (candidate == NULL)
    {
      const char *blocked = prs_json_object_get_string (feedback, "blockReason");

      /* The prompt itself was blocked: an answer, with nothing in it. */
      if (blocked != NULL)
        {
          prs_chat_response_set_stop (ex->response, PRS_STOP_OTHER, blocked);
          ex->complete = TRUE;
          return TRUE;
        }
      /* A stream's last chunk may carry only usage. */
      if (usage != NULL && ex->seen_content)
        return TRUE;
      return prs_exchange_bad_response (ex, error, _("no candidates"));
    }
  ex->seen_content = TRUE;

  parts = prs_json_object_get_array (prs_json_object_get_object (candidate, "content"), "parts");
  for (guint i = 0; parts != NULL && i < json_array_get_length (parts); i++)
    {
      JsonObject *part = prs_json_node_get_object (json_array_get_element (parts, i));
      JsonObject *call = prs_json_object_get_object (part, "functionCall");

      if (part == NULL)
        continue;
      if (call != NULL)
        {
          const char *name = prs_json_object_get_string (call, "name");
          const char *id = prs_json_object_get_string (call, "id");
          JsonObject *args = prs_json_object_get_object (call, "args");
          g_autofree char *made_id = NULL;

          if (name == NULL || name[0] == '\0')
            return prs_exchange_bad_response (ex, error, _("a functionCall without a name"));
          if (id == NULL || id[0] == '\0')
            id = made_id = prs_provider_make_call_id ();
          g_ptr_array_add (ex->response->tool_calls, prs_tool_call_new (id, name, args));
        }
      else if (!prs_json_object_get_bool (part, "thought", FALSE))
        prs_exchange_add_text (ex, prs_json_object_get_string (part, "text"));
    }

  finish = prs_json_object_get_string (candidate, "finishReason");
  if (finish != NULL)
    {
      prs_chat_response_set_stop (ex->response, normalise_stop (finish), finish);
      ex->complete = TRUE;
    }
  return TRUE;
}

static gboolean
chat_on_json (PrsExchange  *ex,
              JsonNode     *root,
              GError      **error)
{
  return read_response (ex, json_node_get_object (root), error);
}

static gboolean
chat_on_event (PrsExchange  *ex,
               const char   *event,
               const char   *data,
               gsize         len,
               GError      **error)
{
  g_autoptr(JsonNode) node = prs_exchange_parse (ex, data, len, error);

  return node != NULL && read_response (ex, json_node_get_object (node), error);
}

static gboolean
chat_on_end (PrsExchange  *ex,
             GError      **error)
{
  if (!ex->complete)
    return prs_exchange_bad_response (ex, error, _("the stream ended before a finishReason"));
  return TRUE;
}

static char *
error_message (JsonNode *body,
               gboolean *model_not_found,
               gboolean *bad_key)
{
  JsonObject *err = prs_json_object_get_object (prs_json_node_get_object (body), "error");
  JsonArray *details = prs_json_object_get_array (err, "details");
  const char *status = prs_json_object_get_string (err, "status");

  *model_not_found = g_strcmp0 (status, "NOT_FOUND") == 0;
  /* Gemini answers a bad key with 400 INVALID_ARGUMENT, reason API_KEY_INVALID. */
  *bad_key = g_strcmp0 (status, "UNAUTHENTICATED") == 0;
  for (guint i = 0; details != NULL && i < json_array_get_length (details); i++)
    {
      JsonObject *detail = prs_json_node_get_object (json_array_get_element (details, i));

      if (g_strcmp0 (prs_json_object_get_string (detail, "reason"), "API_KEY_INVALID") == 0)
        *bad_key = TRUE;
    }
  return g_strdup (prs_json_object_get_string (err, "message"));
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
      const char *name = prs_json_object_get_string (model, "name");
      JsonArray *methods = prs_json_object_get_array (model, "supportedGenerationMethods");
      gboolean generates = methods == NULL;

      for (guint j = 0; methods != NULL && j < json_array_get_length (methods); j++)
        {
          JsonNode *method = json_array_get_element (methods, j);

          generates = generates || (json_node_get_value_type (method) == G_TYPE_STRING &&
                                    g_str_equal (json_node_get_string (method), "generateContent"));
        }
      if (name == NULL || !generates)
        continue;
      if (g_str_has_prefix (name, "models/"))
        name += strlen ("models/");
      prs_exchange_add_model (ex, name, prs_json_object_get_string (model, "displayName"));
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
prs_provider_gemini_get_chat_ops (void)
{
  return &chat_ops;
}

const PrsExchangeOps *
prs_provider_gemini_get_models_ops (void)
{
  return &models_ops;
}

/* ---- PrsProvider -------------------------------------------------------- */

static void
add_headers (PrsProviderGemini *self,
             PrsExchange       *ex)
{
  if (prs_http_provider_get_config (self)->api_key != NULL)
    prs_exchange_set_header (ex, "x-goog-api-key", prs_http_provider_get_config (self)->api_key);
}

static void
gemini_chat_async (PrsProvider         *provider,
                   PrsChatRequest      *request,
                   PrsChatDeltaFunc     delta_func,
                   gpointer             delta_data,
                   GDestroyNotify       delta_destroy,
                   GCancellable        *cancellable,
                   GAsyncReadyCallback  callback,
                   gpointer             user_data)
{
  PrsProviderGemini *self = PRS_PROVIDER_GEMINI (provider);
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);
  const char *model = request->model != NULL ? request->model : prs_http_provider_get_config (self)->model;
  g_autoptr(JsonNode) body = NULL;
  g_autofree char *escaped = NULL;
  g_autofree char *path = NULL;
  PrsExchange *ex;

  g_task_set_source_tag (task, gemini_chat_async);

  if (g_str_has_prefix (model, "models/"))
    model += strlen ("models/");
  escaped = g_uri_escape_string (model, NULL, FALSE);
  path = g_strdup_printf ("/v1beta/models/%s:%s", escaped,
                          request->stream ? "streamGenerateContent?alt=sse" : "generateContent");

  body = build_chat_body (request);
  ex = prs_exchange_new (prs_http_provider_get_config (self), task, &chat_ops,
                         request->stream ? PRS_WIRE_SSE : PRS_WIRE_JSON,
                         "POST", path, body);
  prs_exchange_set_chat (ex, model, delta_func, delta_data, delta_destroy);
  add_headers (self, ex);
  prs_exchange_send (ex);
}

static void
gemini_list_models_async (PrsProvider         *provider,
                          GCancellable        *cancellable,
                          GAsyncReadyCallback  callback,
                          gpointer             user_data)
{
  PrsProviderGemini *self = PRS_PROVIDER_GEMINI (provider);
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);
  PrsExchange *ex;

  g_task_set_source_tag (task, gemini_list_models_async);
  ex = prs_exchange_new (prs_http_provider_get_config (self), task, &models_ops, PRS_WIRE_JSON, "GET",
                         "/v1beta/models?pageSize=1000", NULL);
  add_headers (self, ex);
  prs_exchange_send (ex);
}

static void
prs_provider_gemini_class_init (PrsProviderGeminiClass *klass)
{
  PrsHttpProviderClass *http_class = PRS_HTTP_PROVIDER_CLASS (klass);

  http_class->chat_async = gemini_chat_async;
  http_class->list_models_async = gemini_list_models_async;
}

static void
prs_provider_gemini_init (PrsProviderGemini *self)
{
}

PrsProvider *
prs_provider_gemini_new (const char *base_url,
                         const char *model,
                         const char *api_key)
{
  PrsProviderGemini *self = g_object_new (PRS_TYPE_PROVIDER_GEMINI, NULL);

  prs_http_provider_set_config (PRS_HTTP_PROVIDER (self), prs_provider_config_new ("gemini", base_url, model, api_key));
  return PRS_PROVIDER (self);
}
