/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-provider.c: the provider interface, the request and response types,
 * and the HTTP exchange engine the four implementations share.
 *
 * The engine sends one JSON request with libsoup, never follows redirects
 * (the API key would travel along), and turns every failure into one of the
 * PRS_ERROR_PROVIDER_* codes with a sentence naming the provider and what to
 * do. Keys never appear in messages or logs. */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "prs-error.h"
#include "prs-json.h"
#include "prs-provider.h"
#include "prs-provider-anthropic.h"
#include "prs-provider-gemini.h"
#include "prs-provider-ollama.h"
#include "prs-provider-openai.h"
#include "prs-provider-private.h"

#define READ_CHUNK_SIZE     ((gsize) 64 * 1024)
#define MAX_JSON_BODY       ((guint64) 64 * 1024 * 1024)
#define MAX_ERROR_BODY      ((guint64) 64 * 1024)
#define MAX_STREAM_BYTES    ((guint64) 256 * 1024 * 1024)
#define MAX_QUOTED_MESSAGE  300   /* characters of a provider's own message */
#define MAX_RETRY_AFTER     86400

/* ---- Tool calls, requests, responses ----------------------------------- */

PrsToolCall *
prs_tool_call_new (const char *id,
                   const char *name,
                   JsonObject *arguments)
{
  PrsToolCall *call = g_new0 (PrsToolCall, 1);

  call->id = g_strdup (id);
  call->name = g_strdup (name);
  call->arguments = arguments != NULL ? json_object_ref (arguments) : json_object_new ();
  return call;
}

PrsToolCall *
prs_tool_call_copy (const PrsToolCall *call)
{
  g_return_val_if_fail (call != NULL, NULL);

  return prs_tool_call_new (call->id, call->name, call->arguments);
}

void
prs_tool_call_free (PrsToolCall *call)
{
  if (call == NULL)
    return;

  g_free (call->id);
  g_free (call->name);
  g_clear_pointer (&call->arguments, json_object_unref);
  g_free (call);
}

static void
chat_message_free (gpointer data)
{
  PrsChatMessage *message = data;

  g_free (message->text);
  g_ptr_array_unref (message->tool_calls);
  g_free (message->tool_call_id);
  g_free (message->tool_name);
  g_free (message);
}

static void
chat_tool_free (gpointer data)
{
  PrsChatTool *tool = data;

  g_free (tool->name);
  g_free (tool->description);
  g_clear_pointer (&tool->input_schema, json_node_unref);
  g_free (tool);
}

static void
chat_request_clear (gpointer data)
{
  PrsChatRequest *request = data;

  g_free (request->model);
  g_free (request->system_prompt);
  g_ptr_array_unref (request->messages);
  g_ptr_array_unref (request->tools);
}

PrsChatRequest *
prs_chat_request_new (void)
{
  PrsChatRequest *request = g_atomic_rc_box_new0 (PrsChatRequest);

  request->messages = g_ptr_array_new_with_free_func (chat_message_free);
  request->tools = g_ptr_array_new_with_free_func (chat_tool_free);
  request->temperature = -1;
  return request;
}

PrsChatRequest *
prs_chat_request_ref (PrsChatRequest *request)
{
  g_return_val_if_fail (request != NULL, NULL);

  return g_atomic_rc_box_acquire (request);
}

void
prs_chat_request_unref (PrsChatRequest *request)
{
  if (request != NULL)
    g_atomic_rc_box_release_full (request, chat_request_clear);
}

static PrsChatMessage *
add_message (PrsChatRequest *request,
             PrsChatRole     role,
             const char     *text)
{
  PrsChatMessage *message = g_new0 (PrsChatMessage, 1);

  message->role = role;
  message->text = g_strdup (text);
  message->tool_calls = g_ptr_array_new_with_free_func ((GDestroyNotify) prs_tool_call_free);
  g_ptr_array_add (request->messages, message);
  return message;
}

void
prs_chat_request_add_user (PrsChatRequest *request,
                           const char     *text)
{
  g_return_if_fail (request != NULL);

  add_message (request, PRS_CHAT_ROLE_USER, text);
}

void
prs_chat_request_add_assistant (PrsChatRequest *request,
                                const char     *text,
                                GPtrArray      *tool_calls)
{
  PrsChatMessage *message;

  g_return_if_fail (request != NULL);

  message = add_message (request, PRS_CHAT_ROLE_ASSISTANT, text);
  for (guint i = 0; tool_calls != NULL && i < tool_calls->len; i++)
    g_ptr_array_add (message->tool_calls, prs_tool_call_copy (g_ptr_array_index (tool_calls, i)));
}

void
prs_chat_request_add_tool_result (PrsChatRequest *request,
                                  const char     *tool_call_id,
                                  const char     *tool_name,
                                  const char     *text)
{
  PrsChatMessage *message;

  g_return_if_fail (request != NULL);
  g_return_if_fail (tool_call_id != NULL);

  message = add_message (request, PRS_CHAT_ROLE_TOOL, text);
  message->tool_call_id = g_strdup (tool_call_id);
  message->tool_name = g_strdup (tool_name);
}

void
prs_chat_request_add_tool (PrsChatRequest *request,
                           const char     *name,
                           const char     *description,
                           JsonNode       *input_schema)
{
  PrsChatTool *tool;

  g_return_if_fail (request != NULL);
  g_return_if_fail (name != NULL);

  tool = g_new0 (PrsChatTool, 1);
  tool->name = g_strdup (name);
  tool->description = g_strdup (description != NULL ? description : "");
  if (input_schema != NULL)
    tool->input_schema = json_node_ref (input_schema);
  g_ptr_array_add (request->tools, tool);
}

PrsChatResponse *
prs_chat_response_new (void)
{
  PrsChatResponse *response = g_new0 (PrsChatResponse, 1);

  response->text = g_strdup ("");
  response->tool_calls = g_ptr_array_new_with_free_func ((GDestroyNotify) prs_tool_call_free);
  return response;
}

void
prs_chat_response_free (PrsChatResponse *response)
{
  if (response == NULL)
    return;

  g_free (response->text);
  g_ptr_array_unref (response->tool_calls);
  g_free (response->stop_reason);
  g_free (response->raw_stop_reason);
  g_free (response->model);
  g_free (response->provider_id);
  g_free (response->provider_name);
  g_free (response);
}

void
prs_chat_response_set_stop (PrsChatResponse *response,
                            const char      *normalised,
                            const char      *raw)
{
  g_free (response->stop_reason);
  response->stop_reason = g_strdup (normalised);
  g_free (response->raw_stop_reason);
  response->raw_stop_reason = g_strdup (raw);
}

PrsModelInfo *
prs_model_info_new (const char *id,
                    const char *name)
{
  PrsModelInfo *info = g_new0 (PrsModelInfo, 1);

  info->id = g_strdup (id);
  info->name = g_strdup (name != NULL && name[0] != '\0' ? name : id);
  return info;
}

void
prs_model_info_free (PrsModelInfo *info)
{
  if (info == NULL)
    return;

  g_free (info->id);
  g_free (info->name);
  g_free (info);
}

/* ---- The interface ----------------------------------------------------- */

G_DEFINE_INTERFACE (PrsProvider, prs_provider, G_TYPE_OBJECT)

static void
prs_provider_default_init (PrsProviderInterface *iface)
{
}

const char *
prs_provider_get_kind (PrsProvider *self)
{
  g_return_val_if_fail (PRS_IS_PROVIDER (self), NULL);

  return PRS_PROVIDER_GET_IFACE (self)->get_kind (self);
}

const char *
prs_provider_get_base_url (PrsProvider *self)
{
  g_return_val_if_fail (PRS_IS_PROVIDER (self), NULL);

  return PRS_PROVIDER_GET_IFACE (self)->get_base_url (self);
}

const char *
prs_provider_get_model (PrsProvider *self)
{
  g_return_val_if_fail (PRS_IS_PROVIDER (self), NULL);

  return PRS_PROVIDER_GET_IFACE (self)->get_model (self);
}

void
prs_provider_set_timeout (PrsProvider *self,
                          guint        seconds)
{
  g_return_if_fail (PRS_IS_PROVIDER (self));
  g_return_if_fail (seconds > 0);

  PRS_PROVIDER_GET_IFACE (self)->set_timeout (self, seconds);
}

void
prs_provider_chat_async (PrsProvider         *self,
                         PrsChatRequest      *request,
                         PrsChatDeltaFunc     delta_func,
                         gpointer             delta_data,
                         GDestroyNotify       delta_destroy,
                         GCancellable        *cancellable,
                         GAsyncReadyCallback  callback,
                         gpointer             user_data)
{
  g_return_if_fail (PRS_IS_PROVIDER (self));
  g_return_if_fail (request != NULL);
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  PRS_PROVIDER_GET_IFACE (self)->chat_async (self, request, delta_func, delta_data, delta_destroy,
                                             cancellable, callback, user_data);
}

PrsChatResponse *
prs_provider_chat_finish (PrsProvider   *self,
                          GAsyncResult  *result,
                          GError       **error)
{
  g_return_val_if_fail (PRS_IS_PROVIDER (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return PRS_PROVIDER_GET_IFACE (self)->chat_finish (self, result, error);
}

void
prs_provider_list_models_async (PrsProvider         *self,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data)
{
  g_return_if_fail (PRS_IS_PROVIDER (self));
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  PRS_PROVIDER_GET_IFACE (self)->list_models_async (self, cancellable, callback, user_data);
}

GPtrArray *
prs_provider_list_models_finish (PrsProvider   *self,
                                 GAsyncResult  *result,
                                 GError       **error)
{
  g_return_val_if_fail (PRS_IS_PROVIDER (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return PRS_PROVIDER_GET_IFACE (self)->list_models_finish (self, result, error);
}

guint
prs_provider_get_retry_after (GAsyncResult *result)
{
  PrsExchange *ex;

  g_return_val_if_fail (G_IS_TASK (result), 0);

  ex = g_task_get_task_data (G_TASK (result));
  return ex != NULL ? ex->retry_after : 0;
}

gboolean
prs_provider_get_streamed_text (GAsyncResult *result)
{
  PrsExchange *ex;

  g_return_val_if_fail (G_IS_TASK (result), FALSE);

  ex = g_task_get_task_data (G_TASK (result));
  return ex != NULL && ex->streamed_text;
}

/* ---- Kinds -------------------------------------------------------------- */

typedef struct
{
  const char *kind;
  const char *label;
  const char *default_base_url;
  gboolean    needs_key;
} KindInfo;

static const KindInfo kinds[] = {
  { "openai", N_("OpenAI-compatible"), "https://api.openai.com/v1", TRUE },
  { "ollama", N_("Ollama"), "http://localhost:11434", FALSE },
  { "anthropic", N_("Anthropic"), "https://api.anthropic.com", TRUE },
  { "gemini", N_("Google Gemini"), "https://generativelanguage.googleapis.com", TRUE },
};

static const KindInfo *
lookup_kind (const char *kind)
{
  for (guint i = 0; kind != NULL && i < G_N_ELEMENTS (kinds); i++)
    {
      if (g_str_equal (kinds[i].kind, kind))
        return &kinds[i];
    }
  return NULL;
}

gboolean
prs_provider_kind_is_valid (const char *kind)
{
  return lookup_kind (kind) != NULL;
}

const char *
prs_provider_kind_default_base_url (const char *kind)
{
  const KindInfo *info = lookup_kind (kind);

  return info != NULL ? info->default_base_url : NULL;
}

const char *
prs_provider_kind_get_label (const char *kind)
{
  const KindInfo *info = lookup_kind (kind);

  return info != NULL ? _(info->label) : kind;
}

gboolean
prs_provider_kind_needs_key (const char *kind)
{
  const KindInfo *info = lookup_kind (kind);

  return info != NULL && info->needs_key;
}

gboolean
prs_provider_url_is_local (const char *base_url)
{
  g_autoptr(GUri) uri = NULL;
  g_autoptr(GInetAddress) address = NULL;
  g_autofree char *host = NULL;

  if (base_url == NULL)
    return FALSE;
  uri = g_uri_parse (base_url, G_URI_FLAGS_NONE, NULL);
  if (uri == NULL || g_uri_get_host (uri) == NULL)
    return FALSE;

  host = g_ascii_strdown (g_uri_get_host (uri), -1);
  if (g_str_equal (host, "localhost") || g_str_has_suffix (host, ".localhost"))
    return TRUE;

  address = g_inet_address_new_from_string (host);
  return address != NULL && g_inet_address_get_is_loopback (address);
}

static gboolean
has_control_chars (const char *str)
{
  for (const char *p = str; *p != '\0'; p++)
    {
      if ((guchar) *p < 0x20 || (guchar) *p == 0x7f)
        return TRUE;
    }
  return FALSE;
}

static void
strip_api_suffix (char       *url,
                  const char *suffix)
{
  gsize len = strlen (url);

  if (suffix != NULL && len > strlen (suffix) &&
      g_ascii_strcasecmp (url + len - strlen (suffix), suffix) == 0)
    url[len - strlen (suffix)] = '\0';
  while (url[0] != '\0' && url[strlen (url) - 1] == '/')
    url[strlen (url) - 1] = '\0';
}

PrsProvider *
prs_provider_new (const char  *kind,
                  const char  *base_url,
                  const char  *model,
                  const char  *api_key,
                  GError     **error)
{
  const KindInfo *info = lookup_kind (kind);
  g_autofree char *url = NULL;
  g_autoptr(GUri) uri = NULL;
  const char *scheme;

  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (info == NULL)
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                   _("“%s” is not a provider kind; use openai, ollama, anthropic or gemini."),
                   kind != NULL ? kind : "");
      return NULL;
    }

  url = g_strstrip (g_strdup (base_url != NULL && base_url[0] != '\0' ? base_url : info->default_base_url));
  while (url[0] != '\0' && url[strlen (url) - 1] == '/')
    url[strlen (url) - 1] = '\0';

  /* People paste the API root of the documentation; the paths add it. */
  strip_api_suffix (url, g_str_equal (kind, "anthropic") ? "/v1"
                         : g_str_equal (kind, "gemini") ? "/v1beta"
                         : g_str_equal (kind, "ollama") ? "/api" : NULL);

  uri = g_uri_parse (url, G_URI_FLAGS_ENCODED, NULL);
  scheme = uri != NULL ? g_uri_get_scheme (uri) : NULL;
  if (uri == NULL || has_control_chars (url) ||
      (g_ascii_strcasecmp (scheme, "http") != 0 && g_ascii_strcasecmp (scheme, "https") != 0) ||
      g_uri_get_host (uri) == NULL || g_uri_get_host (uri)[0] == '\0' ||
      g_uri_get_query (uri) != NULL || g_uri_get_fragment (uri) != NULL)
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                   _("“%s” is not a usable base URL: give an http:// or https:// address "
                     "without a query, for example %s."), url, info->default_base_url);
      return NULL;
    }
  if (g_uri_get_userinfo (uri) != NULL)
    {
      g_set_error_literal (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                           _("The base URL must not contain a user name or password; "
                             "give the API key separately."));
      return NULL;
    }

  if (api_key != NULL && has_control_chars (api_key))
    {
      g_set_error_literal (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                           _("The API key contains line breaks or control characters. "
                             "Paste it again as a single line."));
      return NULL;
    }

  if (g_str_equal (kind, "openai"))
    return prs_provider_openai_new (url, model, api_key);
  if (g_str_equal (kind, "ollama"))
    return prs_provider_ollama_new (url, model, api_key);
  if (g_str_equal (kind, "anthropic"))
    return prs_provider_anthropic_new (url, model, api_key);
  return prs_provider_gemini_new (url, model, api_key);
}

/* ---- Shared configuration ----------------------------------------------- */

PrsHttp *
prs_http_new (const char *kind,
              const char *base_url,
              const char *model,
              const char *api_key)
{
  PrsHttp *http = g_new0 (PrsHttp, 1);
  g_autofree char *key = g_strstrip (g_strdup (api_key != NULL ? api_key : ""));

  http->kind = kind;
  http->base_url = g_strdup (base_url);
  http->model = g_strdup (model != NULL ? model : "");
  http->api_key = key[0] != '\0' ? g_steal_pointer (&key) : NULL;
  http->timeout = PRS_PROVIDER_DEFAULT_TIMEOUT;
  http->session = soup_session_new_with_options ("user-agent", "Prosponsive/" PACKAGE_VERSION,
                                                 "timeout", http->timeout,
                                                 NULL);
  return http;
}

void
prs_http_free (PrsHttp *http)
{
  if (http == NULL)
    return;

  g_clear_object (&http->session);
  if (http->api_key != NULL)
    memset (http->api_key, 0, strlen (http->api_key));
  g_free (http->api_key);
  g_free (http->base_url);
  g_free (http->model);
  g_free (http);
}

void
prs_http_set_timeout (PrsHttp *http,
                      guint    seconds)
{
  http->timeout = seconds;
  soup_session_set_timeout (http->session, seconds);
}

/* ---- PrsHttpProvider: the common half of the four providers --------------- */

typedef struct
{
  PrsHttp *http;
} PrsHttpProviderPrivate;

static void prs_http_provider_iface_init (PrsProviderInterface *iface);

G_DEFINE_ABSTRACT_TYPE_WITH_CODE (PrsHttpProvider, prs_http_provider, G_TYPE_OBJECT,
                                  G_ADD_PRIVATE (PrsHttpProvider)
                                  G_IMPLEMENT_INTERFACE (PRS_TYPE_PROVIDER, prs_http_provider_iface_init))

PrsHttp *
prs_http_provider_get_http (gpointer self)
{
  PrsHttpProviderPrivate *priv = prs_http_provider_get_instance_private (PRS_HTTP_PROVIDER (self));

  return priv->http;
}

void
prs_http_provider_set_http (PrsHttpProvider *self,
                            PrsHttp         *http)
{
  PrsHttpProviderPrivate *priv = prs_http_provider_get_instance_private (self);

  g_return_if_fail (priv->http == NULL);

  priv->http = http;
}

static const char *
http_provider_get_kind (PrsProvider *provider)
{
  return prs_http_provider_get_http (provider)->kind;
}

static const char *
http_provider_get_base_url (PrsProvider *provider)
{
  return prs_http_provider_get_http (provider)->base_url;
}

static const char *
http_provider_get_model (PrsProvider *provider)
{
  return prs_http_provider_get_http (provider)->model;
}

static void
http_provider_set_timeout (PrsProvider *provider,
                           guint        seconds)
{
  prs_http_set_timeout (prs_http_provider_get_http (provider), seconds);
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
}

static void
prs_http_provider_finalize (GObject *object)
{
  PrsHttpProviderPrivate *priv = prs_http_provider_get_instance_private (PRS_HTTP_PROVIDER (object));

  g_clear_pointer (&priv->http, prs_http_free);

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

JsonObject *
prs_json_node_object (JsonNode *node)
{
  return node != NULL && JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
}

JsonObject *
prs_json_object_member (JsonObject *object,
                        const char *member)
{
  return object != NULL ? prs_json_node_object (json_object_get_member (object, member)) : NULL;
}

JsonArray *
prs_json_array_member (JsonObject *object,
                       const char *member)
{
  JsonNode *node = object != NULL ? json_object_get_member (object, member) : NULL;

  return node != NULL && JSON_NODE_HOLDS_ARRAY (node) ? json_node_get_array (node) : NULL;
}

const char *
prs_json_string_member (JsonObject *object,
                        const char *member)
{
  JsonNode *node = object != NULL ? json_object_get_member (object, member) : NULL;

  if (node == NULL || json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (node);
}

gint64
prs_json_int_member (JsonObject *object,
                     const char *member,
                     gint64      fallback)
{
  JsonNode *node = object != NULL ? json_object_get_member (object, member) : NULL;
  GType type;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return fallback;
  type = json_node_get_value_type (node);
  if (type == G_TYPE_INT64)
    return json_node_get_int (node);
  if (type == G_TYPE_DOUBLE)
    {
      double value = json_node_get_double (node);

      if (value >= 0 && value < 9e15)
        return (gint64) value;
    }
  return fallback;
}

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

JsonObject *
prs_json_object_from_text (const char *text,
                           gsize       len)
{
  g_autoptr(JsonNode) node = NULL;

  if (text == NULL)
    return NULL;
  node = prs_json_parse_bounded (text, len, PRS_JSON_DEFAULT_MAX_DEPTH, NULL);
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return NULL;
  return json_object_ref (json_node_get_object (node));
}

JsonNode *
prs_json_value_from_text (const char *text)
{
  JsonNode *node;

  if (text == NULL)
    text = "";
  node = prs_json_parse_bounded (text, strlen (text), PRS_JSON_DEFAULT_MAX_DEPTH, NULL);
  if (node == NULL)
    {
      node = json_node_new (JSON_NODE_VALUE);
      json_node_set_string (node, text);
    }
  return node;
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
  return prs_provider_kind_get_label (ex->http->kind);
}

/* A provider's own words, cut and without control characters. */
static char *
sanitize_message (const char *message)
{
  GString *out;
  const char *p;
  guint chars = 0;

  if (message == NULL || !g_utf8_validate (message, -1, NULL))
    return NULL;

  out = g_string_new (NULL);
  for (p = message; *p != '\0' && chars < MAX_QUOTED_MESSAGE; p = g_utf8_next_char (p), chars++)
    {
      gunichar c = g_utf8_get_char (p);

      g_string_append_unichar (out, g_unichar_iscntrl (c) ? ' ' : c);
    }
  if (*p != '\0')
    g_string_append (out, "…");
  g_strstrip (out->str);
  if (out->str[0] == '\0')
    {
      g_string_free (out, TRUE);
      return NULL;
    }
  return g_string_free (out, FALSE);
}

static guint
parse_retry_after (SoupMessage *msg)
{
  SoupMessageHeaders *headers = soup_message_get_response_headers (msg);
  const char *value = soup_message_headers_get_one (headers, "Retry-After");
  g_autoptr(GDateTime) when = NULL;
  g_autoptr(GDateTime) now = NULL;
  guint64 seconds;
  char *end = NULL;

  if (value == NULL)
    return 0;

  while (g_ascii_isspace (*value))
    value++;
  if (g_ascii_isdigit (*value))
    {
      seconds = g_ascii_strtoull (value, &end, 10);
      /* Some send fractions ("1.5"): round up. */
      if (end != NULL && *end == '.' && g_ascii_isdigit (end[1]))
        seconds++;
      return (guint) MIN (seconds, MAX_RETRY_AFTER);
    }

  when = soup_date_time_new_from_http_string (value);
  if (when == NULL)
    return 0;
  now = g_date_time_new_now_utc ();
  seconds = g_date_time_difference (when, now) > 0
            ? (g_date_time_difference (when, now) + G_TIME_SPAN_SECOND - 1) / G_TIME_SPAN_SECOND
            : 0;
  return (guint) MIN (seconds, MAX_RETRY_AFTER);
}

static GError *
status_error (PrsExchange *ex)
{
  guint status = soup_message_get_status (ex->msg);
  const char *reason = soup_message_get_reason_phrase (ex->msg);
  g_autoptr(JsonNode) body = NULL;
  g_autofree char *raw_message = NULL;
  g_autofree char *message = NULL;
  g_autofree char *said = NULL;
  gboolean model_not_found = FALSE;
  gboolean bad_key = FALSE;

  if (reason == NULL || reason[0] == '\0' || has_control_chars (reason))
    reason = soup_status_get_phrase (status);
  if (reason == NULL)
    reason = "";

  if (ex->body != NULL && ex->body->len > 0)
    body = prs_json_parse_bounded ((const char *) ex->body->data, ex->body->len,
                                   PRS_JSON_DEFAULT_MAX_DEPTH, NULL);
  raw_message = ex->ops->error_message (body, &model_not_found, &bad_key);
  message = sanitize_message (raw_message);
  said = message != NULL ? g_strdup_printf (": “%s”", message) : g_strdup ("");

  if (status == 401 || status == 403 || bad_key)
    return g_error_new (PRS_ERROR, PRS_ERROR_PROVIDER_AUTH,
                        _("%s at %s rejected the API key (%u %s%s). "
                          "Check the key stored for this provider."),
                        label (ex), ex->http->base_url, status, reason, said);

  if (status == 429)
    {
      ex->retry_after = parse_retry_after (ex->msg);
      if (ex->retry_after > 0)
        return g_error_new (PRS_ERROR, PRS_ERROR_PROVIDER_RATE_LIMITED,
                            g_dngettext (GETTEXT_PACKAGE,
                                         "%s at %s is limiting requests (%u %s%s). "
                                         "Try again in %u second.",
                                         "%s at %s is limiting requests (%u %s%s). "
                                         "Try again in %u seconds.",
                                         ex->retry_after),
                            label (ex), ex->http->base_url, status, reason, said,
                            ex->retry_after);
      return g_error_new (PRS_ERROR, PRS_ERROR_PROVIDER_RATE_LIMITED,
                          _("%s at %s is limiting requests (%u %s%s). Try again later."),
                          label (ex), ex->http->base_url, status, reason, said);
    }

  if (status >= 500 || status == 408)
    return g_error_new (PRS_ERROR, PRS_ERROR_PROVIDER_SERVER,
                        _("%s at %s had a server error (%u %s%s). Try again later."),
                        label (ex), ex->http->base_url, status, reason, said);

  if (ex->is_chat && (model_not_found || status == 404))
    return g_error_new (PRS_ERROR, PRS_ERROR_PROVIDER_UNKNOWN_MODEL,
                        _("%s at %s does not know the model “%s” (%u %s%s). "
                          "Choose a model from the provider’s list, and check the base URL."),
                        label (ex), ex->http->base_url, ex->model, status, reason, said);

  if (SOUP_STATUS_IS_REDIRECTION (status))
    return g_error_new (PRS_ERROR, PRS_ERROR_PROVIDER_REJECTED,
                        _("%s at %s answered with a redirect (%u %s). "
                          "Use the address it redirects to as the base URL."),
                        label (ex), ex->http->base_url, status, reason);

  if (status == 404)
    return g_error_new (PRS_ERROR, PRS_ERROR_PROVIDER_REJECTED,
                        _("%s at %s has no such endpoint (%u %s%s). Check the base URL."),
                        label (ex), ex->http->base_url, status, reason, said);

  return g_error_new (PRS_ERROR, PRS_ERROR_PROVIDER_REJECTED,
                      _("%s at %s refused the request (%u %s%s)."),
                      label (ex), ex->http->base_url, status, reason, said);
}

static GError *
transport_error (PrsExchange  *ex,
                 const GError *error)
{
  const char *base = ex->http->base_url;

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      /* Our own cancellable fired while the caller's did not: a bug. */
      return g_error_copy (error);
    }

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT))
    return g_error_new (PRS_ERROR, PRS_ERROR_PROVIDER_UNREACHABLE,
                        g_dngettext (GETTEXT_PACKAGE,
                                     "%s at %s did not answer within %u second. "
                                     "Is it running, and is it not overloaded?",
                                     "%s at %s did not answer within %u seconds. "
                                     "Is it running, and is it not overloaded?",
                                     ex->http->timeout),
                        label (ex), base, ex->http->timeout);

  if (error->domain == SOUP_SESSION_ERROR)
    return g_error_new (PRS_ERROR, PRS_ERROR_PROVIDER_BAD_RESPONSE,
                        _("%s at %s sent an answer that is not valid HTTP (%s). "
                          "Check the base URL."), label (ex), base, error->message);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CONNECTION_REFUSED))
    return g_error_new (PRS_ERROR, PRS_ERROR_PROVIDER_UNREACHABLE,
                        _("Could not connect to %s at %s: connection refused. Is it running?"),
                        label (ex), base);

  if (error->domain == G_RESOLVER_ERROR)
    return g_error_new (PRS_ERROR, PRS_ERROR_PROVIDER_UNREACHABLE,
                        _("Could not connect to %s at %s: the host name could not be "
                          "resolved (%s). Check the base URL and the network."),
                        label (ex), base, error->message);

  if (error->domain == G_TLS_ERROR)
    return g_error_new (PRS_ERROR, PRS_ERROR_PROVIDER_UNREACHABLE,
                        _("Could not connect to %s at %s: the secure (TLS) connection "
                          "failed (%s)."), label (ex), base, error->message);

  if (ex->stream != NULL)
    return g_error_new (PRS_ERROR, PRS_ERROR_PROVIDER_UNREACHABLE,
                        _("The connection to %s at %s broke off during the answer (%s)."),
                        label (ex), base, error->message);

  return g_error_new (PRS_ERROR, PRS_ERROR_PROVIDER_UNREACHABLE,
                      _("Could not connect to %s at %s: %s."),
                      label (ex), base, error->message);
}

gboolean
prs_exchange_bad_response (PrsExchange  *ex,
                           GError      **error,
                           const char   *what)
{
  g_set_error (error, PRS_ERROR, PRS_ERROR_PROVIDER_BAD_RESPONSE,
               _("%s at %s sent an answer Prosponsive cannot read: %s."),
               label (ex), ex->http->base_url, what);
  return FALSE;
}

gboolean
prs_exchange_stream_error (PrsExchange  *ex,
                           GError      **error,
                           const char   *type,
                           const char   *message)
{
  g_autofree char *clean = sanitize_message (message);
  g_autofree char *clean_type = sanitize_message (type);
  int code = PRS_ERROR_PROVIDER_SERVER;

  if (type != NULL && (strstr (type, "rate_limit") != NULL || strstr (type, "RESOURCE_EXHAUSTED") != NULL))
    code = PRS_ERROR_PROVIDER_RATE_LIMITED;
  else if (type != NULL && (strstr (type, "authentication") != NULL || strstr (type, "permission") != NULL))
    code = PRS_ERROR_PROVIDER_AUTH;
  else if (type != NULL && strstr (type, "not_found") != NULL)
    code = PRS_ERROR_PROVIDER_UNKNOWN_MODEL;

  g_set_error (error, PRS_ERROR, code,
               _("%s at %s reported an error during the answer (%s: “%s”)."),
               label (ex), ex->http->base_url,
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

  if (ex->outer != NULL && ex->outer_handler != 0)
    g_cancellable_disconnect (ex->outer, ex->outer_handler);
  g_clear_object (&ex->outer);
  g_clear_object (&ex->internal);
  g_clear_object (&ex->stream);
  g_clear_object (&ex->msg);
  g_clear_pointer (&ex->body, g_byte_array_unref);
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

static void
on_outer_cancelled (GCancellable *outer,
                    gpointer      user_data)
{
  g_cancellable_cancel (G_CANCELLABLE (user_data));
}

PrsExchange *
prs_exchange_new (PrsHttp              *http,
                  GTask                *task,
                  const PrsExchangeOps *ops,
                  PrsWire               wire,
                  const char           *method,
                  const char           *path,
                  JsonNode             *body)
{
  PrsExchange *ex = g_new0 (PrsExchange, 1);
  g_autofree char *url = g_strconcat (http->base_url, path, NULL);
  GCancellable *outer = g_task_get_cancellable (task);

  ex->http = http;
  ex->task = task;
  ex->ops = ops;
  ex->wire = wire;
  ex->internal = g_cancellable_new ();
  if (outer != NULL)
    {
      ex->outer = g_object_ref (outer);
      ex->outer_handler = g_cancellable_connect (outer, G_CALLBACK (on_outer_cancelled),
                                                 g_object_ref (ex->internal), g_object_unref);
    }

  ex->msg = soup_message_new (method, url);
  g_assert (ex->msg != NULL);  /* the base URL was validated */
  soup_message_add_flags (ex->msg, SOUP_MESSAGE_NO_REDIRECT);

  if (body != NULL)
    {
      g_autoptr(GBytes) bytes = NULL;
      char *text = prs_json_to_string (body, FALSE);

      bytes = g_bytes_new_take (text, strlen (text));
      soup_message_set_request_body_from_bytes (ex->msg, "application/json", bytes);
    }

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
}

void
prs_exchange_set_header (PrsExchange *ex,
                         const char  *name,
                         const char  *value)
{
  soup_message_headers_replace (soup_message_get_request_headers (ex->msg), name, value);
}

void
prs_exchange_set_bearer (PrsExchange *ex)
{
  g_autofree char *value = NULL;

  if (ex->http->api_key == NULL)
    return;

  value = g_strconcat ("Bearer ", ex->http->api_key, NULL);
  prs_exchange_set_header (ex, "Authorization", value);
  memset (value, 0, strlen (value));
}

void
prs_exchange_add_text (PrsExchange *ex,
                       const char  *text)
{
  if (text == NULL || text[0] == '\0')
    return;

  g_string_append (ex->text, text);
  ex->streamed_text = TRUE;
  if (ex->delta_func != NULL)
    ex->delta_func (text, ex->delta_data);
}

static void
return_result (GTask       *task,
               PrsExchange *ex)
{
  if (ex->is_chat)
    {
      PrsChatResponse *response = g_steal_pointer (&ex->response);

      g_free (response->text);
      response->text = g_string_free (g_steal_pointer (&ex->text), FALSE);
      if (response->model == NULL)
        response->model = g_strdup (ex->model);
      if (response->stop_reason == NULL)
        prs_chat_response_set_stop (response, PRS_STOP_OTHER, response->raw_stop_reason);
      /* Several providers say "stop" when they stopped to call tools. */
      if (response->tool_calls->len > 0 && g_str_equal (response->stop_reason, PRS_STOP_END))
        {
          g_free (response->stop_reason);
          response->stop_reason = g_strdup (PRS_STOP_TOOL_CALLS);
        }
      g_task_return_pointer (task, response, (GDestroyNotify) prs_chat_response_free);
    }
  else
    {
      GPtrArray *models = ex->models != NULL ? g_steal_pointer (&ex->models)
                                             : g_ptr_array_new_with_free_func ((GDestroyNotify) prs_model_info_free);

      g_task_return_pointer (task, models, (GDestroyNotify) g_ptr_array_unref);
    }
}

static void
fail (GTask  *task,
      GError *error)
{
  PrsExchange *ex = g_task_get_task_data (task);

  /* Drop the connection rather than drain what is left of the body. */
  g_cancellable_cancel (ex->internal);
  g_task_return_error (task, error);
}

static gboolean
content_type_is (SoupMessage *msg,
                 const char  *type)
{
  const char *content_type = soup_message_headers_get_content_type (soup_message_get_response_headers (msg),
                                                                    NULL);

  return content_type != NULL && g_ascii_strcasecmp (content_type, type) == 0;
}

static void
finish_body (GTask *task)
{
  PrsExchange *ex = g_task_get_task_data (task);
  guint status = soup_message_get_status (ex->msg);
  GError *error = NULL;

  g_clear_object (&ex->stream);

  if (!SOUP_STATUS_IS_SUCCESSFUL (status))
    {
      g_task_return_error (task, status_error (ex));
      return;
    }

  if (ex->parser != NULL)
    {
      if (!prs_event_stream_finish (ex->parser, &error) || !ex->ops->on_end (ex, &error))
        {
          g_task_return_error (task, error);
          return;
        }
    }
  else
    {
      g_autoptr(JsonNode) root = NULL;

      if (ex->body->len == 0)
        {
          prs_exchange_bad_response (ex, &error, _("an empty body"));
          g_task_return_error (task, error);
          return;
        }
      if (!content_type_is (ex->msg, "application/json") &&
          (ex->body->data[0] == '<' || !g_utf8_validate ((const char *) ex->body->data, ex->body->len, NULL)))
        {
          const char *type = soup_message_headers_get_content_type (soup_message_get_response_headers (ex->msg),
                                                                    NULL);
          g_autofree char *what = g_strdup_printf (_("an answer that is not JSON (%s); check the base URL"),
                                                   type != NULL && !has_control_chars (type)
                                                   ? type : _("no content type"));

          prs_exchange_bad_response (ex, &error, what);
          g_task_return_error (task, error);
          return;
        }
      root = prs_exchange_parse (ex, (const char *) ex->body->data, ex->body->len, &error);
      if (root == NULL || !ex->ops->on_json (ex, root, &error))
        {
          g_task_return_error (task, error);
          return;
        }
    }

  return_result (task, ex);
}

static void read_next_chunk (GTask *task);

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

static void
on_chunk_read (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  PrsExchange *ex = g_task_get_task_data (task);
  g_autoptr(GBytes) chunk = NULL;
  g_autoptr(GError) error = NULL;
  GError *parse_error = NULL;
  gsize len;

  chunk = g_input_stream_read_bytes_finish (G_INPUT_STREAM (source), result, &error);
  if (chunk == NULL)
    {
      if (g_cancellable_is_cancelled (g_task_get_cancellable (task)))
        g_task_return_error (task, g_steal_pointer (&error));
      else
        fail (task, transport_error (ex, error));
      return;
    }

  len = g_bytes_get_size (chunk);
  if (len == 0)
    {
      finish_body (task);
      return;
    }

  ex->received += len;
  if (ex->parser != NULL)
    {
      if (ex->received > MAX_STREAM_BYTES)
        {
          prs_exchange_bad_response (ex, &parse_error, _("the stream is too long"));
          fail (task, parse_error);
          return;
        }
      if (!prs_event_stream_feed (ex->parser, g_bytes_get_data (chunk, NULL), len, &parse_error))
        {
          fail (task, parse_error);
          return;
        }
    }
  else
    {
      guint64 cap = SOUP_STATUS_IS_SUCCESSFUL (soup_message_get_status (ex->msg))
                    ? MAX_JSON_BODY : MAX_ERROR_BODY;

      /* An error body is only read for its message: keep the start. */
      if (ex->received > cap)
        {
          if (!SOUP_STATUS_IS_SUCCESSFUL (soup_message_get_status (ex->msg)))
            {
              g_cancellable_cancel (ex->internal);
              g_clear_object (&ex->stream);
              g_task_return_error (task, status_error (ex));
              return;
            }
          prs_exchange_bad_response (ex, &parse_error, _("the answer is too large"));
          fail (task, parse_error);
          return;
        }
      g_byte_array_append (ex->body, g_bytes_get_data (chunk, NULL), len);
    }

  read_next_chunk (g_steal_pointer (&task));
}

static void
read_next_chunk (GTask *task)
{
  PrsExchange *ex = g_task_get_task_data (task);

  g_input_stream_read_bytes_async (ex->stream, READ_CHUNK_SIZE, G_PRIORITY_DEFAULT,
                                   ex->internal, on_chunk_read, task);
}

static void
on_sent (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  PrsExchange *ex = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  guint status;

  ex->stream = soup_session_send_finish (SOUP_SESSION (source), result, &error);
  if (ex->stream == NULL)
    {
      if (g_cancellable_is_cancelled (g_task_get_cancellable (task)))
        g_task_return_error (task, g_steal_pointer (&error));
      else
        g_task_return_error (task, transport_error (ex, error));
      return;
    }

  status = soup_message_get_status (ex->msg);
  g_debug ("%s: %s %s → %u", ex->http->kind, soup_message_get_method (ex->msg),
           g_uri_get_path (soup_message_get_uri (ex->msg)), status);

  ex->body = g_byte_array_new ();
  /* A server asked to stream may still answer with one JSON document (some
   * OpenAI-compatible servers ignore "stream"); read that as such. */
  if (SOUP_STATUS_IS_SUCCESSFUL (status) && ex->wire != PRS_WIRE_JSON &&
      !(ex->wire == PRS_WIRE_SSE && content_type_is (ex->msg, "application/json")))
    ex->parser = prs_event_stream_new (ex->wire == PRS_WIRE_SSE ? PRS_EVENT_STREAM_SSE
                                                                : PRS_EVENT_STREAM_NDJSON,
                                       PRS_EVENT_STREAM_DEFAULT_MAX_LINE,
                                       on_stream_event, ex);

  read_next_chunk (g_steal_pointer (&task));
}

void
prs_exchange_send (PrsExchange *ex)
{
  if (ex->is_chat && (ex->model == NULL || ex->model[0] == '\0'))
    {
      g_task_return_new_error (ex->task, PRS_ERROR, PRS_ERROR_NOT_CONFIGURED,
                               _("No model is set for %s at %s. Choose one from its model list."),
                               label (ex), ex->http->base_url);
      return;
    }

  soup_session_send_async (ex->http->session, ex->msg, G_PRIORITY_DEFAULT, ex->internal,
                           on_sent, g_object_ref (ex->task));
}
