/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-http-provider.c: PrsHttpProvider, the half the four providers share:
 * their configuration, the PrsProvider calls they answer alike, and the
 * exchange that carries each call over one PrsHttpRequest.
 *
 * An exchange sends one JSON request (the engine never follows redirects:
 * the API key would travel along) and turns every failure into one of the
 * PRS_ERROR_PROVIDER_* codes with a sentence naming the provider and what to
 * do; a status is read with the backend's own reading of its error body.
 * Keys never appear in messages or logs. */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "prs-error.h"
#include "prs-json.h"
#include "prs-http-provider.h"
#include "prs-http-provider-private.h"

#define MAX_JSON_BODY       ((gsize) 64 * 1024 * 1024)
#define MAX_ERROR_BODY      ((gsize) 64 * 1024)
#define MAX_STREAM_BYTES    ((gsize) 256 * 1024 * 1024)
#define MAX_QUOTED_MESSAGE  300   /* characters of a provider's own message */
#define MAX_RETRY_AFTER     86400

/* ---- Shared configuration ----------------------------------------------- */

PrsProviderConfig *
prs_provider_config_new (const char *kind,
                         const char *base_url,
                         const char *model,
                         const char *api_key)
{
  PrsProviderConfig *config = g_new0 (PrsProviderConfig, 1);
  g_autofree char *key = g_strstrip (g_strdup (api_key != NULL ? api_key : ""));

  config->kind = kind;
  config->base_url = g_strdup (base_url);
  config->model = g_strdup (model != NULL ? model : "");
  config->api_key = key[0] != '\0' ? g_steal_pointer (&key) : NULL;
  config->timeout = PRS_PROVIDER_DEFAULT_TIMEOUT;
  config->session = prs_http_session_new_for (config->timeout, base_url);
  return config;
}

void
prs_provider_config_free (PrsProviderConfig *config)
{
  if (config == NULL)
    return;

  g_clear_object (&config->session);
  if (config->api_key != NULL)
    memset (config->api_key, 0, strlen (config->api_key));
  g_free (config->api_key);
  g_free (config->base_url);
  g_free (config->model);
  g_free (config);
}

void
prs_provider_config_set_timeout (PrsProviderConfig *config,
                                 guint              seconds)
{
  config->timeout = seconds;
  soup_session_set_timeout (config->session, seconds);
}

/* ---- PrsHttpProvider: the common half of the four providers --------------- */

typedef struct
{
  PrsProviderConfig *config;
} PrsHttpProviderPrivate;

static void prs_http_provider_iface_init (PrsProviderInterface *iface);

G_DEFINE_ABSTRACT_TYPE_WITH_CODE (PrsHttpProvider, prs_http_provider, G_TYPE_OBJECT,
                                  G_ADD_PRIVATE (PrsHttpProvider)
                                  G_IMPLEMENT_INTERFACE (PRS_TYPE_PROVIDER, prs_http_provider_iface_init))

PrsProviderConfig *
prs_http_provider_get_config (gpointer self)
{
  PrsHttpProviderPrivate *priv = prs_http_provider_get_instance_private (PRS_HTTP_PROVIDER (self));

  return priv->config;
}

void
prs_http_provider_set_config (gpointer           self,
                              PrsProviderConfig *config)
{
  PrsHttpProviderPrivate *priv = prs_http_provider_get_instance_private (PRS_HTTP_PROVIDER (self));

  g_return_if_fail (priv->config == NULL);

  priv->config = config;
}

static const char *
http_provider_get_kind (PrsProvider *provider)
{
  return prs_http_provider_get_config (provider)->kind;
}

static const char *
http_provider_get_base_url (PrsProvider *provider)
{
  return prs_http_provider_get_config (provider)->base_url;
}

static const char *
http_provider_get_model (PrsProvider *provider)
{
  return prs_http_provider_get_config (provider)->model;
}

static void
http_provider_set_timeout (PrsProvider *provider,
                           guint        seconds)
{
  prs_provider_config_set_timeout (prs_http_provider_get_config (provider), seconds);
}

static void
http_provider_chat_async (PrsProvider         *provider,
                          PrsChatRequest      *request,
                          PrsChatDeltaFunc     delta_func,
                          gpointer             delta_data,
                          GDestroyNotify       delta_destroy,
                          GCancellable        *cancellable,
                          GAsyncReadyCallback  callback,
                          gpointer             user_data)
{
  PRS_HTTP_PROVIDER_GET_CLASS (provider)->chat_async (provider, request, delta_func, delta_data,
                                                      delta_destroy, cancellable, callback, user_data);
}

static PrsChatResponse *
http_provider_chat_finish (PrsProvider   *provider,
                           GAsyncResult  *result,
                           GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, provider), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
http_provider_list_models_async (PrsProvider         *provider,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  PRS_HTTP_PROVIDER_GET_CLASS (provider)->list_models_async (provider, cancellable, callback, user_data);
}

static GPtrArray *
http_provider_list_models_finish (PrsProvider   *provider,
                                  GAsyncResult  *result,
                                  GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, provider), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

static guint
http_provider_get_retry_after (PrsProvider  *provider,
                               GAsyncResult *result)
{
  PrsExchange *ex;

  g_return_val_if_fail (G_IS_TASK (result), 0);

  ex = g_task_get_task_data (G_TASK (result));
  return ex != NULL ? ex->retry_after : 0;
}

static gboolean
http_provider_get_streamed_text (PrsProvider  *provider,
                                 GAsyncResult *result)
{
  PrsExchange *ex;

  g_return_val_if_fail (G_IS_TASK (result), FALSE);

  ex = g_task_get_task_data (G_TASK (result));
  return ex != NULL && ex->streamed_text;
}

static void
prs_http_provider_iface_init (PrsProviderInterface *iface)
{
  iface->get_kind = http_provider_get_kind;
  iface->get_base_url = http_provider_get_base_url;
  iface->get_model = http_provider_get_model;
  iface->set_timeout = http_provider_set_timeout;
  iface->chat_async = http_provider_chat_async;
  iface->chat_finish = http_provider_chat_finish;
  iface->list_models_async = http_provider_list_models_async;
  iface->list_models_finish = http_provider_list_models_finish;
  iface->get_retry_after = http_provider_get_retry_after;
  iface->get_streamed_text = http_provider_get_streamed_text;
}

static void
prs_http_provider_finalize (GObject *object)
{
  PrsHttpProviderPrivate *priv = prs_http_provider_get_instance_private (PRS_HTTP_PROVIDER (object));

  g_clear_pointer (&priv->config, prs_provider_config_free);

  G_OBJECT_CLASS (prs_http_provider_parent_class)->finalize (object);
}

static void
prs_http_provider_class_init (PrsHttpProviderClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = prs_http_provider_finalize;
}

static void
prs_http_provider_init (PrsHttpProvider *self)
{
}

/* ---- JSON helpers ------------------------------------------------------- */

char *
prs_provider_make_call_id (void)
{
  g_autofree char *uuid = g_uuid_string_random ();
  GString *id = g_string_new ("call_");

  for (const char *p = uuid; *p != '\0'; p++)
    {
      if (*p != '-')
        g_string_append_c (id, *p);
    }
  return g_string_free (id, FALSE);
}

void
prs_json_builder_add_function_tools (JsonBuilder *b,
                                     GPtrArray   *tools)
{
  json_builder_begin_array (b);
  for (guint i = 0; i < tools->len; i++)
    {
      PrsChatTool *tool = g_ptr_array_index (tools, i);

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "type");
      json_builder_add_string_value (b, "function");
      json_builder_set_member_name (b, "function");
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "name");
      json_builder_add_string_value (b, tool->name);
      json_builder_set_member_name (b, "description");
      json_builder_add_string_value (b, tool->description);
      json_builder_set_member_name (b, "parameters");
      json_builder_add_value (b, prs_chat_tool_dup_schema (tool));
      json_builder_end_object (b);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
}

JsonNode *
prs_chat_tool_dup_schema (PrsChatTool *tool)
{
  g_autoptr(JsonObject) object = NULL;
  JsonNode *node;

  if (tool->input_schema != NULL && JSON_NODE_HOLDS_OBJECT (tool->input_schema))
    return json_node_copy (tool->input_schema);

  object = json_object_new ();
  json_object_set_string_member (object, "type", "object");
  json_object_set_object_member (object, "properties", json_object_new ());
  node = json_node_new (JSON_NODE_OBJECT);
  json_node_set_object (node, object);
  return node;
}

/* ---- Errors ------------------------------------------------------------- */

static const char *
label (PrsExchange *ex)
{
  return prs_provider_kind_get_label (ex->config->kind);
}

/* A failed status with its error body (@data may be NULL); a 429's
 * Retry-After is read into ex->retry_after before. */
static GError *
describe_status (PrsExchange *ex,
                 guint        status,
                 const char  *reason,
                 const char  *data,
                 gsize        len)
{
  g_autoptr(JsonNode) body = NULL;
  g_autofree char *raw_message = NULL;
  g_autofree char *message = NULL;
  g_autofree char *said = NULL;
  gboolean model_not_found = FALSE;
  gboolean bad_key = FALSE;

  if (data != NULL && len > 0)
    body = prs_json_parse_bounded (data, len, PRS_JSON_DEFAULT_MAX_DEPTH, NULL);
  raw_message = ex->ops->error_message (body, &model_not_found, &bad_key);
  message = prs_http_clean_text (raw_message, MAX_QUOTED_MESSAGE);
  said = message != NULL ? g_strdup_printf (": “%s”", message) : g_strdup ("");

  if (status == 401 || status == 403 || bad_key)
    return g_error_new (PRS_ERROR, PRS_ERROR_PROVIDER_AUTH,
                        _("%s at %s rejected the API key (%u %s%s). "
                          "Check the key stored for this provider."),
                        label (ex), ex->config->base_url, status, reason, said);

  if (status == 429)
    {
      if (ex->retry_after > 0)
        return g_error_new (PRS_ERROR, PRS_ERROR_PROVIDER_RATE_LIMITED,
                            g_dngettext (GETTEXT_PACKAGE,
                                         "%s at %s is limiting requests (%u %s%s). "
                                         "Try again in %u second.",
                                         "%s at %s is limiting requests (%u %s%s). "
                                         "Try again in %u seconds.",
                                         ex->retry_after),
                            label (ex), ex->config->base_url, status, reason, said,
                            ex->retry_after);
      return g_error_new (PRS_ERROR, PRS_ERROR_PROVIDER_RATE_LIMITED,
                          _("%s at %s is limiting requests (%u %s%s). Try again later."),
                          label (ex), ex->config->base_url, status, reason, said);
    }

  if (status >= 500 || status == 408)
    return g_error_new (PRS_ERROR, PRS_ERROR_PROVIDER_SERVER,
                        _("%s at %s had a server error (%u %s%s). Try again later."),
                        label (ex), ex->config->base_url, status, reason, said);

  if (ex->is_chat && (model_not_found || status == 404))
    return g_error_new (PRS_ERROR, PRS_ERROR_PROVIDER_UNKNOWN_MODEL,
                        _("%s at %s does not know the model “%s” (%u %s%s). "
                          "Choose a model from the provider’s list, and check the base URL."),
                        label (ex), ex->config->base_url, ex->model, status, reason, said);

  if (SOUP_STATUS_IS_REDIRECTION (status))
    return g_error_new (PRS_ERROR, PRS_ERROR_PROVIDER_REJECTED,
                        _("%s at %s answered with a redirect (%u %s). "
                          "Use the address it redirects to as the base URL."),
                        label (ex), ex->config->base_url, status, reason);

  if (status == 404)
    return g_error_new (PRS_ERROR, PRS_ERROR_PROVIDER_REJECTED,
                        _("%s at %s has no such endpoint (%u %s%s). Check the base URL."),
                        label (ex), ex->config->base_url, status, reason, said);

  return g_error_new (PRS_ERROR, PRS_ERROR_PROVIDER_REJECTED,
                      _("%s at %s refused the request (%u %s%s)."),
                      label (ex), ex->config->base_url, status, reason, said);
}

static GError *
status_error (PrsExchange *ex)
{
  guint status = prs_http_request_get_status (ex->request);
  GBytes *bytes = prs_http_request_get_body (ex->request);

  if (status == 429)
    ex->retry_after = prs_http_request_get_retry_after (ex->request, MAX_RETRY_AFTER);
  return describe_status (ex, status, prs_http_request_get_reason (ex->request),
                          bytes != NULL ? g_bytes_get_data (bytes, NULL) : NULL,
                          bytes != NULL ? g_bytes_get_size (bytes) : 0);
}

gboolean
prs_exchange_bad_response (PrsExchange  *ex,
                           GError      **error,
                           const char   *what)
{
  /* @what may quote the provider: a parser's message shows the byte it
   * stopped at, a tool call's name is the provider's (docs/providers.md:
   * control characters removed) */
  g_autofree char *clean = prs_http_clean_text (what, MAX_QUOTED_MESSAGE);

  g_set_error (error, PRS_ERROR, PRS_ERROR_PROVIDER_BAD_RESPONSE,
               _("%s at %s sent an answer Prosponsive cannot read: %s."),
               label (ex), ex->config->base_url, clean != NULL ? clean : _("no details"));
  return FALSE;
}

gboolean
prs_exchange_stream_error (PrsExchange  *ex,
                           GError      **error,
                           const char   *type,
                           const char   *message)
{
  g_autofree char *clean = prs_http_clean_text (message, MAX_QUOTED_MESSAGE);
  g_autofree char *clean_type = prs_http_clean_text (type, MAX_QUOTED_MESSAGE);
  int code = PRS_ERROR_PROVIDER_SERVER;

  if (type != NULL && (strstr (type, "rate_limit") != NULL || strstr (type, "RESOURCE_EXHAUSTED") != NULL))
    code = PRS_ERROR_PROVIDER_RATE_LIMITED;
  else if (type != NULL && (strstr (type, "authentication") != NULL || strstr (type, "permission") != NULL))
    code = PRS_ERROR_PROVIDER_AUTH;
  else if (type != NULL && strstr (type, "not_found") != NULL)
    code = PRS_ERROR_PROVIDER_UNKNOWN_MODEL;

  g_set_error (error, PRS_ERROR, code,
               _("%s at %s reported an error during the answer (%s: “%s”)."),
               label (ex), ex->config->base_url,
               clean_type != NULL ? clean_type : _("error"),
               clean != NULL ? clean : _("no details"));
  return FALSE;
}

JsonNode *
prs_exchange_parse (PrsExchange  *ex,
                    const char   *data,
                    gsize         len,
                    GError      **error)
{
  g_autoptr(GError) local_error = NULL;
  JsonNode *node = prs_json_parse_bounded (data, len, PRS_JSON_DEFAULT_MAX_DEPTH, &local_error);

  if (node == NULL)
    {
      prs_exchange_bad_response (ex, error, local_error->message);
      return NULL;
    }
  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      json_node_unref (node);
      prs_exchange_bad_response (ex, error, _("a JSON value that is not an object"));
      return NULL;
    }
  return node;
}

/* ---- The exchange ------------------------------------------------------- */

static void
exchange_free (gpointer data)
{
  PrsExchange *ex = data;

  g_clear_object (&ex->request);
  g_clear_pointer (&ex->parser, prs_event_stream_free);
  g_clear_pointer (&ex->response, prs_chat_response_free);
  if (ex->text != NULL)
    g_string_free (ex->text, TRUE);
  g_clear_pointer (&ex->models, g_ptr_array_unref);
  if (ex->impl_destroy != NULL)
    ex->impl_destroy (ex->impl_data);
  if (ex->delta_destroy != NULL)
    ex->delta_destroy (ex->delta_data);
  g_free (ex->model);
  g_free (ex);
}

static gboolean
on_stream_event (const char  *event,
                 const char  *data,
                 gsize        len,
                 const char  *id,
                 gpointer     user_data,
                 GError     **error)
{
  PrsExchange *ex = user_data;

  return ex->ops->on_event (ex, event, data, len, error);
}

static gboolean
on_chunk (const char  *data,
          gsize        len,
          gpointer     user_data,
          GError     **error)
{
  PrsExchange *ex = user_data;

  return prs_event_stream_feed (ex->parser, data, len, error);
}

static void
start_stream (PrsExchange *ex)
{
  ex->parser = prs_event_stream_new (ex->wire == PRS_WIRE_SSE ? PRS_EVENT_STREAM_SSE
                                                              : PRS_EVENT_STREAM_NDJSON,
                                     PRS_EVENT_STREAM_DEFAULT_MAX_LINE,
                                     on_stream_event, ex);
}

/* A server asked to stream may still answer with one JSON document (some
 * OpenAI-compatible servers ignore "stream"); that is read as such. */
static void
on_headers (PrsHttpRequest *request,
            gpointer        user_data)
{
  PrsExchange *ex = user_data;

  if (!SOUP_STATUS_IS_SUCCESSFUL (prs_http_request_get_status (request)) || ex->wire == PRS_WIRE_JSON ||
      (ex->wire == PRS_WIRE_SSE && prs_http_request_has_content_type (request, "application/json")))
    return;

  start_stream (ex);
  prs_http_request_set_limits (request, MAX_STREAM_BYTES, MAX_ERROR_BODY);
  prs_http_request_stream_body (request, on_chunk, ex);
}

static PrsExchange *
exchange_alloc (PrsProviderConfig    *config,
                const PrsExchangeOps *ops,
                PrsWire               wire)
{
  PrsExchange *ex = g_new0 (PrsExchange, 1);

  ex->config = config;
  ex->ops = ops;
  ex->wire = wire;
  return ex;
}

PrsExchange *
prs_exchange_new (PrsProviderConfig    *config,
                  GTask                *task,
                  const PrsExchangeOps *ops,
                  PrsWire               wire,
                  const char           *method,
                  const char           *path,
                  JsonNode             *body)
{
  PrsExchange *ex = exchange_alloc (config, ops, wire);
  g_autofree char *url = g_strconcat (config->base_url, path, NULL);

  ex->task = task;

  ex->request = prs_http_request_new (config->session, method, url);
  g_assert (ex->request != NULL);  /* the base URL was validated */
  if (body != NULL)
    prs_http_request_set_json_body (ex->request, body);
  /* An error body is only read for its message: keep the start. */
  prs_http_request_set_limits (ex->request, MAX_JSON_BODY, MAX_ERROR_BODY);
  prs_http_request_set_headers_func (ex->request, on_headers, ex);
  /* libsoup sends a POST on a kept-alive connection only when told it may
   * be sent again (a connection the provider closed while idle is retried
   * on a new one): a chat changes nothing at the provider, so the session
   * the provider object keeps between chats reuses its connection instead
   * of connecting (and, over https, shaking hands) for each call */
  soup_message_add_flags (prs_http_request_get_message (ex->request), SOUP_MESSAGE_IDEMPOTENT);

  g_task_set_task_data (task, ex, exchange_free);
  return ex;
}

void
prs_exchange_set_chat (PrsExchange      *ex,
                       const char       *model,
                       PrsChatDeltaFunc  delta_func,
                       gpointer          delta_data,
                       GDestroyNotify    delta_destroy)
{
  ex->is_chat = TRUE;
  ex->model = g_strdup (model);
  ex->response = prs_chat_response_new ();
  ex->text = g_string_new (NULL);
  ex->delta_func = delta_func;
  ex->delta_data = delta_data;
  ex->delta_destroy = delta_destroy;
  if (ex->ops->chat_init != NULL)
    ex->ops->chat_init (ex);
}

void
prs_exchange_set_header (PrsExchange *ex,
                         const char  *name,
                         const char  *value)
{
  prs_http_request_set_header (ex->request, name, value);
}

void
prs_exchange_set_bearer (PrsExchange *ex)
{
  g_autofree char *value = NULL;

  if (ex->config->api_key == NULL)
    return;

  value = g_strconcat ("Bearer ", ex->config->api_key, NULL);
  prs_exchange_set_header (ex, "Authorization", value);
  memset (value, 0, strlen (value));
}

void
prs_exchange_add_text (PrsExchange *ex,
                       const char  *text)
{
  g_autofree char *valid = NULL;

  if (text == NULL || text[0] == '\0')
    return;
  /* json-glib reads an escaped lone surrogate into bytes that are not
   * UTF-8: what the window shows and the database keeps is text */
  if (!g_utf8_validate (text, -1, NULL))
    text = valid = g_utf8_make_valid (text, -1);

  g_string_append (ex->text, text);
  ex->streamed_text = TRUE;
  if (ex->delta_func != NULL)
    ex->delta_func (text, ex->delta_data);
}

/* A model id is shown in the agent editor, written into agent files and sent
 * back in requests and URLs: one that is not UTF-8, holds a control
 * character or is longer than any real model's name is left out rather than
 * repaired, since a repaired id would name a model the provider does not
 * have. The display name is only shown, so it is cleaned instead. */
#define MAX_MODEL_ID 256

void
prs_exchange_add_model (PrsExchange *ex,
                        const char  *id,
                        const char  *name)
{
  g_autofree char *valid_name = name != NULL ? g_utf8_make_valid (name, -1) : NULL;
  g_autofree char *clean_name = NULL;

  if (id == NULL || id[0] == '\0' || strlen (id) > MAX_MODEL_ID ||
      !g_utf8_validate (id, -1, NULL) || prs_http_has_control_chars (id))
    return;
  clean_name = prs_http_clean_text (valid_name, MAX_MODEL_ID);
  if (ex->models == NULL)
    ex->models = g_ptr_array_new_with_free_func ((GDestroyNotify) prs_model_info_free);
  g_ptr_array_add (ex->models, prs_model_info_new (id, clean_name));
}

/* The chat response once the answer is whole. */
static PrsChatResponse *
take_response (PrsExchange *ex)
{
  PrsChatResponse *response = g_steal_pointer (&ex->response);

  g_free (response->text);
  response->text = g_string_free (g_steal_pointer (&ex->text), FALSE);
  if (response->model == NULL)
    response->model = g_strdup (ex->model);
  /* A count below zero is no count (docs/providers.md#streaming): usage
   * is added up across a run's calls and would otherwise subtract. */
  response->input_tokens = MAX (response->input_tokens, 0);
  response->output_tokens = MAX (response->output_tokens, 0);
  if (response->stop_reason == NULL)
    prs_chat_response_set_stop (response, PRS_STOP_OTHER, response->raw_stop_reason);
  /* Several providers say "stop" when they stopped to call tools. */
  if (response->tool_calls->len > 0 && g_str_equal (response->stop_reason, PRS_STOP_END))
    {
      g_free (response->stop_reason);
      response->stop_reason = g_strdup (PRS_STOP_TOOL_CALLS);
    }
  return response;
}

static void
return_result (GTask       *task,
               PrsExchange *ex)
{
  if (ex->is_chat)
    g_task_return_pointer (task, take_response (ex), (GDestroyNotify) prs_chat_response_free);
  else
    {
      GPtrArray *models = ex->models != NULL ? g_steal_pointer (&ex->models)
                                             : g_ptr_array_new_with_free_func ((GDestroyNotify) prs_model_info_free);

      g_task_return_pointer (task, models, (GDestroyNotify) g_ptr_array_unref);
    }
}

/* A whole JSON answer; @type is its content type (may be NULL). */
static gboolean
finish_json (PrsExchange  *ex,
             const char   *data,
             gsize         len,
             const char   *type,
             GError      **error)
{
  g_autoptr(JsonNode) root = NULL;

  if (len == 0)
    return prs_exchange_bad_response (ex, error, _("an empty body"));
  if ((type == NULL || g_ascii_strcasecmp (type, "application/json") != 0) &&
      (data[0] == '<' || !g_utf8_validate (data, len, NULL)))
    {
      g_autofree char *what = g_strdup_printf (_("an answer that is not JSON (%s); check the base URL"),
                                               type != NULL ? type : _("no content type"));

      return prs_exchange_bad_response (ex, error, what);
    }
  root = prs_exchange_parse (ex, data, len, error);
  return root != NULL && ex->ops->on_json (ex, root, error);
}

/* The end of a stream: its last event, then the backend's check */
static gboolean
finish_stream (PrsExchange  *ex,
               GError      **error)
{
  return prs_event_stream_finish (ex->parser, error) && ex->ops->on_end (ex, error);
}

/* A whole JSON answer, or the end of a stream. */
static gboolean
finish_body (PrsExchange  *ex,
             GError      **error)
{
  GBytes *body;
  const char *data;
  gsize len;

  if (ex->parser != NULL)
    return finish_stream (ex, error);

  body = prs_http_request_get_body (ex->request);
  data = g_bytes_get_data (body, &len);
  return finish_json (ex, data, len, prs_http_request_get_content_type (ex->request), error);
}

static GError *
transport_error (PrsExchange *ex,
                 GError      *cause)
{
  GError *error = NULL;

  switch (prs_http_request_get_failure (ex->request))
    {
    case PRS_HTTP_FAILURE_NONE:        /* the parser's or the backend's */
    case PRS_HTTP_FAILURE_CANCELLED:
      return cause;

    case PRS_HTTP_FAILURE_TOO_LARGE:
      prs_exchange_bad_response (ex, &error, ex->parser != NULL ? _("the stream is too long")
                                                                : _("the answer is too large"));
      break;

    default:
      error = prs_http_request_describe_failure (ex->request, cause, label (ex), ex->config->base_url,
                                                 PRS_ERROR_PROVIDER_UNREACHABLE,
                                                 PRS_ERROR_PROVIDER_BAD_RESPONSE);
      break;
    }
  g_error_free (cause);
  return error;
}

static void
on_done (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  PrsExchange *ex = g_task_get_task_data (task);
  GError *error = NULL;

  if (!prs_http_request_send_finish (ex->request, result, &error))
    g_task_return_error (task, transport_error (ex, error));
  else if (!SOUP_STATUS_IS_SUCCESSFUL (prs_http_request_get_status (ex->request)))
    g_task_return_error (task, status_error (ex));
  else if (!finish_body (ex, &error))
    g_task_return_error (task, error);
  else
    return_result (task, ex);
}

void
prs_exchange_send (PrsExchange *ex)
{
  if (ex->is_chat && (ex->model == NULL || ex->model[0] == '\0'))
    {
      g_task_return_new_error (ex->task, PRS_ERROR, PRS_ERROR_NOT_CONFIGURED,
                               _("No model is set for %s at %s. Choose one from its model list."),
                               label (ex), ex->config->base_url);
      return;
    }

  prs_http_request_send_async (ex->request, g_task_get_cancellable (ex->task), on_done,
                               g_object_ref (ex->task));
}

/* ---- Without a socket --------------------------------------------------- */

/* The same exchange as prs_exchange_new() + prs_exchange_set_chat(), for the
 * tests and tests/fuzz/fuzz-provider-stream.c: the answer's bytes come from
 * the caller instead of a PrsHttpRequest, and go through the same parser and
 * the same backend ops. */
PrsExchange *
prs_exchange_new_detached (PrsProviderConfig    *config,
                           const PrsExchangeOps *ops,
                           PrsWire               wire,
                           const char           *model,
                           PrsChatDeltaFunc      delta_func,
                           gpointer              delta_data)
{
  PrsExchange *ex = exchange_alloc (config, ops, wire);

  if (model != NULL)
    prs_exchange_set_chat (ex, model, delta_func, delta_data, NULL);
  if (wire != PRS_WIRE_JSON)
    start_stream (ex);
  return ex;
}

gboolean
prs_exchange_feed (PrsExchange  *ex,
                   const char   *data,
                   gsize         len,
                   GError      **error)
{
  g_return_val_if_fail (ex->parser != NULL, FALSE);

  return prs_event_stream_feed (ex->parser, data, len, error);
}

PrsChatResponse *
prs_exchange_finish (PrsExchange  *ex,
                     const char   *body,
                     gsize         len,
                     const char   *type,
                     GError      **error)
{
  gboolean ok;

  if (ex->parser != NULL)
    ok = finish_stream (ex, error);
  else
    ok = finish_json (ex, body, len, type, error);
  return ok ? take_response (ex) : NULL;
}

GPtrArray *
prs_exchange_finish_models (PrsExchange  *ex,
                            const char   *body,
                            gsize         len,
                            const char   *type,
                            GError      **error)
{
  g_return_val_if_fail (!ex->is_chat && ex->parser == NULL, NULL);

  if (!finish_json (ex, body, len, type, error))
    return NULL;
  return ex->models != NULL ? g_steal_pointer (&ex->models)
                            : g_ptr_array_new_with_free_func ((GDestroyNotify) prs_model_info_free);
}

GError *
prs_exchange_status_error (PrsExchange *ex,
                           guint        status,
                           const char  *body,
                           gsize        len)
{
  return describe_status (ex, status, soup_status_get_phrase (status), body, len);
}

void
prs_exchange_free (PrsExchange *ex)
{
  exchange_free (ex);
}
