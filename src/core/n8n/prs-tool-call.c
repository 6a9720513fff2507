/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-tool-call.c: calling an n8n workflow's webhook as a tool (docs/workflows.md).
 *
 * One call is one SoupSession of its own (parallel calls to one n8n do
 * not queue behind each other) and up to four attempts, each a
 * PrsHttpRequest with the call's deadline: a
 * connection that fails before the request was written (refused, DNS, TLS
 * handshake) is retried after 1, 2 and 3 s; anything after that is never
 * retried, because the workflow may already have acted. The answer is read
 * up to a size cap and classified: a workflow's JSON, a workflow's own
 * failure ({success:false} or a string error), "Workflow was started"
 * (the result comes later through PrsCallbackRegistry), an empty body, a 404
 * (the webhook is gone), other statuses.
 *
 * The Header Auth value is only ever handed to libsoup: no log line or
 * message contains it. */
#include "config.h"

#include <string.h>
#include <glib/gi18n-lib.h>

#include "prs-error.h"
#include "prs-http-request.h"
#include "prs-json.h"
#include "prs-random.h"
#include "prs-tool-call.h"
#include "prs-tool-call-private.h"

#define MAX_RESPONSE_SIZE   ((gsize) 32 * 1024 * 1024)
#define MAX_RETRIES         3
#define MAX_QUOTED_MESSAGE  500   /* characters of n8n's own error message kept */

#define WORKFLOW_STARTED    "Workflow was started"
#define EMPTY_ANSWER        "the workflow returned nothing (did it fail before its Respond to Webhook node?)"
#define NOT_REGISTERED      "webhook not registered (is the workflow still published?)"

static const guint default_retry_delays_ms[MAX_RETRIES] = { 1000, 2000, 3000 };
static guint retry_delays_ms[MAX_RETRIES] = { 1000, 2000, 3000 };

/* ====================================================================== */
/* Request                                                                */
/* ====================================================================== */

PrsToolCallRequest *
prs_tool_call_request_new (const PrsTool *tool,
                           const char    *n8n_base_url)
{
  g_autoptr(GError) error = NULL;
  PrsToolCallRequest *req;

  g_return_val_if_fail (tool != NULL, NULL);
  g_return_val_if_fail (n8n_base_url != NULL, NULL);

  req = g_new0 (PrsToolCallRequest, 1);
  req->tool = prs_tool_copy (tool);
  req->n8n_base_url = g_strdup (n8n_base_url);
  req->tool_name = g_strdup (tool->name);
  req->workflow_id = g_strdup (tool->workflow_id);
  req->tool_call_id = g_uuid_string_random ();
  req->callback_secret = prs_random_token (&error);
  if (req->callback_secret == NULL)
    g_message ("No callback secret for tool call %s (%s): a result it posts back will be refused",
               req->tool_call_id, error->message);

  return req;
}

PrsToolCallRequest *
prs_tool_call_request_copy (const PrsToolCallRequest *req)
{
  PrsToolCallRequest *copy;

  g_return_val_if_fail (req != NULL, NULL);

  copy = g_new0 (PrsToolCallRequest, 1);
  copy->tool = req->tool != NULL ? prs_tool_copy (req->tool) : NULL;
  copy->n8n_base_url = g_strdup (req->n8n_base_url);
  copy->auth_header_name = g_strdup (req->auth_header_name);
  copy->auth_header_value = g_strdup (req->auth_header_value);
  copy->arguments = req->arguments != NULL ? json_object_ref (req->arguments) : NULL;
  copy->tool_name = g_strdup (req->tool_name);
  copy->tool_call_id = g_strdup (req->tool_call_id);
  copy->workflow_id = g_strdup (req->workflow_id);
  copy->conversation_id = g_strdup (req->conversation_id);
  copy->agent_id = g_strdup (req->agent_id);
  copy->callback_url = g_strdup (req->callback_url);
  copy->callback_secret = g_strdup (req->callback_secret);
  copy->execution = g_strdup (req->execution);
  copy->timeout_seconds = req->timeout_seconds;
  copy->callback_registry = req->callback_registry != NULL ? g_object_ref (req->callback_registry) : NULL;

  return copy;
}

void
prs_tool_call_request_free (PrsToolCallRequest *req)
{
  if (req == NULL)
    return;

  g_clear_pointer (&req->tool, prs_tool_free);
  g_free (req->n8n_base_url);
  g_free (req->auth_header_name);
  if (req->auth_header_value != NULL)
    memset (req->auth_header_value, 0, strlen (req->auth_header_value));
  g_free (req->auth_header_value);
  g_clear_pointer (&req->arguments, json_object_unref);
  g_free (req->tool_name);
  g_free (req->tool_call_id);
  g_free (req->workflow_id);
  g_free (req->conversation_id);
  g_free (req->agent_id);
  g_free (req->callback_url);
  if (req->callback_secret != NULL)
    memset (req->callback_secret, 0, strlen (req->callback_secret));
  g_free (req->callback_secret);
  g_free (req->execution);
  g_clear_object (&req->callback_registry);
  g_free (req);
}

static void
set_string_or_null (JsonObject *object,
                    const char *name,
                    const char *value)
{
  if (value != NULL)
    json_object_set_string_member (object, name, value);
  else
    json_object_set_null_member (object, name);
}

JsonNode *
prs_tool_call_request_build_body (const PrsToolCallRequest *req)
{
  g_autoptr(JsonObject) body = json_object_new ();
  g_autoptr(JsonObject) parameters = json_object_new ();
  g_autoptr(JsonObject) envelope = json_object_new ();
  JsonNode *root;

  g_return_val_if_fail (req != NULL, NULL);

  if (req->arguments != NULL)
    {
      JsonObjectIter iter;
      const char *name;
      JsonNode *value;

      json_object_iter_init (&iter, req->arguments);
      while (json_object_iter_next (&iter, &name, &value))
        {
          json_object_set_member (parameters, name, json_node_copy (value));
          /* The envelope's own members are set below and win. */
          if (!g_str_equal (name, "parameters") && !g_str_equal (name, "prosponsive"))
            json_object_set_member (body, name, json_node_copy (value));
        }
    }

  set_string_or_null (envelope, "toolName", req->tool_name);
  set_string_or_null (envelope, "toolCallId", req->tool_call_id);
  set_string_or_null (envelope, "workflowId", req->workflow_id);
  set_string_or_null (envelope, "conversationId", req->conversation_id);
  set_string_or_null (envelope, "agentId", req->agent_id);
  if (req->callback_url != NULL && req->callback_secret != NULL)
    {
      /* The secret rides in the URL as well, so a workflow that posts its
       * result to callbackUrl unchanged needs to do nothing more */
      g_autofree char *url = g_strdup_printf ("%s%scallbackSecret=%s", req->callback_url,
                                              strchr (req->callback_url, '?') != NULL ? "&" : "?",
                                              req->callback_secret);

      json_object_set_string_member (envelope, "callbackUrl", url);
    }
  else
    set_string_or_null (envelope, "callbackUrl", req->callback_url);
  set_string_or_null (envelope, "callbackSecret", req->callback_secret);
  set_string_or_null (envelope, "execution", req->execution);

  json_object_set_object_member (body, "parameters", g_steal_pointer (&parameters));
  json_object_set_object_member (body, "prosponsive", g_steal_pointer (&envelope));

  root = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (root, g_steal_pointer (&body));
  return root;
}

/* ====================================================================== */
/* Classifying an answer                                                  */
/* ====================================================================== */

/* The message of {"success": false, …}: "error" as a string, or as an
 * object's "message", else "message", else a generic sentence. */
static char *
dup_workflow_error (JsonObject *object)
{
  JsonNode *error = json_object_get_member (object, "error");
  const char *message;

  if (error != NULL && json_node_get_value_type (error) == G_TYPE_STRING)
    return g_strdup (json_node_get_string (error));

  if (error != NULL && JSON_NODE_HOLDS_OBJECT (error))
    {
      message = prs_json_object_get_string (json_node_get_object (error), "message");
      if (message != NULL)
        return g_strdup (message);
      return prs_json_to_string (error, FALSE);
    }

  message = prs_json_object_get_string (object, "message");
  if (message != NULL)
    return g_strdup (message);

  return g_strdup ("the workflow reported a failure (\"success\": false) without an error message");
}

static gboolean
is_blank (const guint8 *data,
          gsize         len)
{
  for (gsize i = 0; i < len; i++)
    {
      if (!g_ascii_isspace (data[i]))
        return FALSE;
    }
  return TRUE;
}

static PrsToolCallResult *
classify_success (const guint8 *data,
                  gsize         len)
{
  g_autoptr(JsonNode) root = NULL;

  if (len == 0 || is_blank (data, len))
    return prs_tool_call_result_new_failure (PRS_ERROR_N8N_BAD_RESPONSE, EMPTY_ANSWER);

  /* Strict, so a result is never changed on its way (a 30-digit id read
   * as -1, a string cut at \u0000): what JSON cannot keep exactly goes to
   * the model as the text it is */
  root = prs_json_parse_strict ((const char *) data, len, PRS_JSON_DEFAULT_MAX_DEPTH, NULL);
  if (root == NULL)
    {
      /* Text from a Respond to Webhook node: the model gets it as a string.
       * Bytes that are not text (a binary response) are only described. */
      g_autoptr(JsonNode) text = json_node_new (JSON_NODE_VALUE);

      if (g_utf8_validate ((const char *) data, len, NULL))
        {
          g_autofree char *copy = g_strndup ((const char *) data, len);

          json_node_set_string (text, copy);
        }
      else
        {
          g_autofree char *note = g_strdup_printf ("[the workflow answered with %" G_GSIZE_FORMAT
                                                   " bytes of binary data]", len);

          json_node_set_string (text, note);
        }
      return prs_tool_call_result_new_success (text);
    }

  if (JSON_NODE_HOLDS_OBJECT (root))
    {
      JsonObject *object = json_node_get_object (root);
      JsonNode *success = json_object_get_member (object, "success");
      gboolean said_failure = FALSE;
      const char *message = prs_json_object_get_string (object, "message");

      if (success != NULL && json_node_get_value_type (success) == G_TYPE_BOOLEAN)
        said_failure = !json_node_get_boolean (success);

      if (json_object_get_size (object) == 1 && g_strcmp0 (message, WORKFLOW_STARTED) == 0)
        {
          PrsToolCallResult *res = prs_tool_call_result_new_success (root);

          res->status = PRS_TOOL_CALL_WAITING_CALLBACK;
          return res;
        }

      /* A string "error" means failure, whatever "success" says: the
       * workflow reported a problem (docs/workflows.md, "Answers") */
      if (said_failure || prs_json_object_get_string (object, "error") != NULL)
        {
          g_autofree char *error = dup_workflow_error (object);

          return prs_tool_call_result_new_failure (PRS_ERROR_FAILED, error);
        }
    }

  return prs_tool_call_result_new_success (root);
}

static PrsToolCallResult *
classify (guint         status,
          const char   *reason,
          const char   *content_type,
          const guint8 *data,
          gsize         len)
{
  g_autofree char *message = NULL;

  if (SOUP_STATUS_IS_SUCCESSFUL (status))
    return classify_success (data, len);

  if (status == SOUP_STATUS_NOT_FOUND)
    {
      PrsToolCallResult *res = prs_tool_call_result_new_failure (PRS_ERROR_N8N_NOT_FOUND, NOT_REGISTERED);

      res->rediscover = TRUE;
      return res;
    }

  /* n8n's errors are {"message": "…"} ("Error in workflow", "Authorization
   * data is wrong!", …). */
  if (len > 0)
    {
      g_autoptr(JsonNode) root = prs_json_parse_bounded ((const char *) data, len,
                                                         PRS_JSON_DEFAULT_MAX_DEPTH, NULL);
      const char *said = NULL;

      if (root != NULL && JSON_NODE_HOLDS_OBJECT (root))
        said = prs_json_object_get_string (json_node_get_object (root), "message");
      if (said != NULL)
        message = prs_http_clean_text (said, MAX_QUOTED_MESSAGE);
      else if (root == NULL && (content_type == NULL || g_str_equal (content_type, "text/plain")) &&
               data[0] != '<' && g_utf8_validate ((const char *) data, len, NULL))
        {
          /* Some answers are plain text, e.g. Header Auth's 403
           * "Authorization data is wrong!" (n8n sends no Content-Type). */
          g_autofree char *text = g_strndup ((const char *) data, len);

          message = prs_http_clean_text (text, MAX_QUOTED_MESSAGE);
        }
    }

  if (message != NULL && *message != '\0')
    return prs_tool_call_result_new_failure_printf (PRS_ERROR_N8N_HTTP, "%s", message);

  return prs_tool_call_result_new_failure_printf (PRS_ERROR_N8N_HTTP, "%u %s", status, reason);
}

/* ====================================================================== */
/* The call                                                               */
/* ====================================================================== */

typedef struct
{
  PrsToolCallRequest *req;
  char               *url;
  GBytes             *body;
  guint               timeout;

  SoupSession        *session;
  PrsHttpRequest     *http;              /* this attempt's */
  guint               attempts;
  GSource            *retry_source;
} Call;

static void
call_free (gpointer data)
{
  Call *call = data;

  prs_tool_call_clear_source (&call->retry_source);
  g_clear_object (&call->http);
  g_clear_object (&call->session);
  g_clear_pointer (&call->body, g_bytes_unref);
  g_clear_pointer (&call->req, prs_tool_call_request_free);
  g_free (call->url);
  g_free (call);
}

static void start_attempt (GTask *task);

/* Ends the call with @res (takes it). */
static void
call_return (GTask             *task,
             PrsToolCallResult *res)
{
  Call *call = g_task_get_task_data (task);

  res->attempts = call->attempts;
  res->url = g_strdup (call->url);
  if (call->http != NULL && res->http_status == 0)
    res->http_status = prs_http_request_get_status (call->http);

  if (call->req->callback_registry != NULL && res->status != PRS_TOOL_CALL_WAITING_CALLBACK)
    prs_callback_registry_forget (call->req->callback_registry, call->req->tool_call_id);

  g_debug ("tool call %s: %s after %u attempt(s)%s%s", call->req->tool_call_id,
           prs_tool_call_status_to_string (res->status), res->attempts,
           res->error != NULL ? ": " : "", res->error != NULL ? res->error : "");

  g_task_return_pointer (task, res, (GDestroyNotify) prs_tool_call_result_free);
}

static void
call_return_cancelled (GTask *task)
{
  Call *call = g_task_get_task_data (task);

  if (call->req->callback_registry != NULL)
    prs_callback_registry_forget (call->req->callback_registry, call->req->tool_call_id);
  g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED, "The tool call was cancelled");
}

/* Whether the call's deadline passed (a connection the system timed out
 * before it is a broken one, as for any other cause). */
static gboolean
timed_out (Call *call)
{
  return prs_http_request_get_failure (call->http) == PRS_HTTP_FAILURE_TIMEOUT &&
         prs_http_request_get_timeout (call->http) > 0;
}

/* Failures to connect: nothing of the request left, so a retry is safe. */
static gboolean
failed_to_connect (Call *call)
{
  switch (prs_http_request_get_failure (call->http))
    {
    case PRS_HTTP_FAILURE_REFUSED:
    case PRS_HTTP_FAILURE_DNS:
    case PRS_HTTP_FAILURE_TLS:
    case PRS_HTTP_FAILURE_UNREACHABLE:
    case PRS_HTTP_FAILURE_CONNECT:
      return !prs_http_request_get_sent (call->http);
    default:
      return FALSE;
    }
}

static PrsToolCallResult *
transport_failure (Call         *call,
                   const GError *error)
{
  PrsHttpFailure failure = prs_http_request_get_failure (call->http);
  gboolean sent = prs_http_request_get_sent (call->http);

  if (timed_out (call) && !sent)
    return prs_tool_call_result_new_failure_printf (PRS_ERROR_TIMEOUT,
                                                    _("could not connect to n8n at %s within %u s "
                                                    "(nothing was sent)"), call->req->n8n_base_url, call->timeout);

  if (timed_out (call))
    return prs_tool_call_result_new_failure_printf (PRS_ERROR_TIMEOUT,
                                                    _("timed out after %u s; the workflow may still have run"),
                                                    call->timeout);

  if (failure == PRS_HTTP_FAILURE_TOO_LARGE)
    return prs_tool_call_result_new_failure_printf (PRS_ERROR_N8N_BAD_RESPONSE,
                                                    _("the workflow's answer is larger than %u MiB"),
                                                    (guint) (MAX_RESPONSE_SIZE / (1024 * 1024)));

  if (failed_to_connect (call))
    {
      /* Whole sentences, one per cause, so that each language can order its words. */
      const char *url = call->req->n8n_base_url;

      if (failure == PRS_HTTP_FAILURE_REFUSED)
        return prs_tool_call_result_new_failure_printf (PRS_ERROR_N8N_UNREACHABLE,
                                                        _("could not connect to n8n (connection refused; is n8n running?) "
                                                          "at %s after %u attempts: %s"),
                                                        url, call->attempts, error->message);
      if (failure == PRS_HTTP_FAILURE_DNS)
        return prs_tool_call_result_new_failure_printf (PRS_ERROR_N8N_UNREACHABLE,
                                                        _("could not connect to n8n (its host name could not be resolved) "
                                                          "at %s after %u attempts: %s"),
                                                        url, call->attempts, error->message);
      if (failure == PRS_HTTP_FAILURE_TLS)
        return prs_tool_call_result_new_failure_printf (PRS_ERROR_N8N_UNREACHABLE,
                                                        _("could not connect to n8n (the TLS handshake failed) "
                                                          "at %s after %u attempts: %s"),
                                                        url, call->attempts, error->message);
      return prs_tool_call_result_new_failure_printf (PRS_ERROR_N8N_UNREACHABLE,
                                                      _("could not connect to n8n at %s after %u attempts: %s"),
                                                      url, call->attempts, error->message);
    }

  if (failure == PRS_HTTP_FAILURE_NOT_HTTP)
    return prs_tool_call_result_new_failure_printf (PRS_ERROR_N8N_BAD_RESPONSE,
                                                    _("n8n sent an answer that is not valid HTTP (%s); "
                                                    "the workflow may have run"), error->message);

  return prs_tool_call_result_new_failure_printf (PRS_ERROR_N8N_UNREACHABLE,
                                                  _("the connection to n8n broke (%s); the workflow may have run"),
                                                  error->message);
}

/* Both the retry pause and the caller's cancellation end here. */
static gboolean
on_retry_due (gpointer user_data)
{
  GTask *task = user_data;
  Call *call = g_task_get_task_data (task);
  GCancellable *cancellable = g_task_get_cancellable (task);

  prs_tool_call_clear_source (&call->retry_source);
  if (cancellable != NULL && g_cancellable_is_cancelled (cancellable))
    {
      call_return_cancelled (task);
      return G_SOURCE_REMOVE;
    }
  start_attempt (task);
  return G_SOURCE_REMOVE;
}

static void
schedule_retry (GTask *task)
{
  Call *call = g_task_get_task_data (task);
  GCancellable *cancellable = g_task_get_cancellable (task);

  call->retry_source = g_timeout_source_new (retry_delays_ms[call->attempts - 1]);
  if (cancellable != NULL)
    {
      GSource *cancel_source = g_cancellable_source_new (cancellable);

      g_source_set_dummy_callback (cancel_source);
      g_source_add_child_source (call->retry_source, cancel_source);
      g_source_unref (cancel_source);
    }
  g_source_set_callback (call->retry_source, on_retry_due, g_object_ref (task), g_object_unref);
  g_source_set_static_name (call->retry_source, "[prosponsive] tool call retry");
  g_source_attach (call->retry_source, g_task_get_context (task));
}

static void
on_answer (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Call *call = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  PrsToolCallResult *res;
  GBytes *body;

  if (!prs_http_request_send_finish (call->http, result, &error))
    {
      if (prs_http_request_get_failure (call->http) == PRS_HTTP_FAILURE_CANCELLED)
        call_return_cancelled (task);
      else if (failed_to_connect (call) && call->attempts <= MAX_RETRIES)
        {
          g_debug ("tool call %s: attempt %u could not connect (%s); retrying",
                   call->req->tool_call_id, call->attempts, error->message);
          schedule_retry (task);
        }
      else
        call_return (task, transport_failure (call, error));
      return;
    }

  body = prs_http_request_get_body (call->http);
  res = classify (prs_http_request_get_status (call->http), prs_http_request_get_reason (call->http),
                  prs_http_request_get_content_type (call->http),
                  g_bytes_get_data (body, NULL), g_bytes_get_size (body));
  res->http_status = prs_http_request_get_status (call->http);
  call_return (task, res);
}

static void
start_attempt (GTask *task)
{
  Call *call = g_task_get_task_data (task);

  call->attempts++;
  g_clear_object (&call->http);
  call->http = prs_http_request_new (call->session, SOUP_METHOD_POST, call->url);
  g_assert (call->http != NULL);   /* the URL was checked in run_async */
  prs_http_request_set_body (call->http, "application/json", call->body);
  prs_http_request_set_header (call->http, "Accept", "application/json, text/plain;q=0.9, */*;q=0.5");
  if (call->req->auth_header_name != NULL && call->req->auth_header_value != NULL)
    prs_http_request_set_header (call->http, call->req->auth_header_name, call->req->auth_header_value);
  prs_http_request_set_deadline (call->http, call->timeout);
  prs_http_request_set_limits (call->http, MAX_RESPONSE_SIZE, 0);

  prs_http_request_send_async (call->http, g_task_get_cancellable (task), on_answer,
                               g_object_ref (task));
}

static gboolean
is_header_value (const char *value)
{
  for (const char *p = value; *p != '\0'; p++)
    {
      if (((guchar) *p < 0x20 && *p != '\t') || (guchar) *p == 0x7f)
        return FALSE;
    }
  return TRUE;
}

void
prs_tool_call_run_async (const PrsToolCallRequest *req,
                         GCancellable             *cancellable,
                         GAsyncReadyCallback       callback,
                         gpointer                  user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GUri) uri = NULL;
  g_autoptr(JsonNode) body = NULL;
  char *body_text;
  Call *call;

  g_return_if_fail (req != NULL);
  g_return_if_fail (req->tool != NULL);
  g_return_if_fail (req->n8n_base_url != NULL);
  g_return_if_fail (req->tool_call_id != NULL);
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, prs_tool_call_run_async);

  call = g_new0 (Call, 1);
  call->req = prs_tool_call_request_copy (req);
  call->timeout = req->timeout_seconds > 0 ? req->timeout_seconds : PRS_TOOL_CALL_DEFAULT_TIMEOUT;
  call->url = prs_tool_dup_webhook_url (req->tool, req->n8n_base_url);
  g_task_set_task_data (task, call, call_free);

  uri = g_uri_parse (call->url, SOUP_HTTP_URI_FLAGS, NULL);
  if (uri == NULL ||
      (g_strcmp0 (g_uri_get_scheme (uri), "http") != 0 && g_strcmp0 (g_uri_get_scheme (uri), "https") != 0))
    {
      call_return (task, prs_tool_call_result_new_failure_printf (PRS_ERROR_INVALID_INPUT,
                                                                  _("the webhook URL %s is not a valid http(s) URL; "
                                                                  "check the n8n URL"), call->url));
      return;
    }

  if ((req->auth_header_name != NULL) != (req->auth_header_value != NULL) ||
      (req->auth_header_name != NULL &&
       (!prs_http_is_header_name (req->auth_header_name) || !is_header_value (req->auth_header_value))))
    {
      /* Neither the name nor the value is quoted: either may be a pasted secret. */
      call_return (task, prs_tool_call_result_new_failure (PRS_ERROR_INVALID_INPUT,
                                                           "the webhook's Header Auth credential is "
                                                           "not a valid HTTP header (a name and a "
                                                           "one-line value are needed)"));
      return;
    }

  body = prs_tool_call_request_build_body (req);
  body_text = prs_json_to_string (body, FALSE);
  call->body = g_bytes_new_take (body_text, strlen (body_text));

  /* The deadline of each attempt bounds it, however slowly bytes come. */
  call->session = prs_http_session_new_for (0, req->n8n_base_url);

  if (req->callback_registry != NULL)
    prs_callback_registry_expect (req->callback_registry, req->tool_call_id, req->callback_secret);

  start_attempt (task);
}

PrsToolCallResult *
prs_tool_call_run_finish (GAsyncResult  *result,
                          GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == prs_tool_call_run_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

void
prs_tool_call_set_retry_delays_for_testing (const guint *delays_ms)
{
  for (guint i = 0; i < MAX_RETRIES; i++)
    retry_delays_ms[i] = delays_ms != NULL ? delays_ms[i] : default_retry_delays_ms[i];
}
