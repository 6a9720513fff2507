/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Tests for prs-tool-call.c against a scripted webhook: a SoupServer on
 * 127.0.0.1 that records what it receives and answers like n8n 1.123's
 * webhook extractors, or misbehaves on purpose. */
#include <string.h>

#include <libsoup/soup.h>

#include "prs-error.h"
#include "prs-tool-call.h"

#define AUTH_NAME  "X-Webhook-Token"
#define AUTH_VALUE "hook-secret-Zq7xW"

typedef struct
{
  SoupServer *server;
  guint       port;
  char       *base_url;

  /* The scripted answer. */
  guint       status;
  char       *content_type;
  char       *body;
  gboolean    never_answer;

  /* What arrived. */
  guint       requests;
  char       *raw_path;       /* still escaped */
  char       *received_type;
  char       *received_auth;
  JsonNode   *received_body;
  GPtrArray  *paused;         /* SoupServerMessage* never answered */
} Webhook;

static Webhook hook;

static void
on_request (SoupServer        *server,
            SoupServerMessage *msg,
            const char        *path,
            GHashTable        *query,
            gpointer           user_data)
{
  SoupMessageHeaders *headers = soup_server_message_get_request_headers (msg);
  SoupMessageBody *body = soup_server_message_get_request_body (msg);
  g_autoptr(GBytes) bytes = soup_message_body_flatten (body);
  g_autoptr(JsonParser) parser = json_parser_new ();

  hook.requests++;
  g_free (hook.raw_path);
  hook.raw_path = g_strdup (g_uri_get_path (soup_server_message_get_uri (msg)));
  g_free (hook.received_type);
  hook.received_type = g_strdup (soup_message_headers_get_content_type (headers, NULL));
  g_free (hook.received_auth);
  hook.received_auth = g_strdup (soup_message_headers_get_one (headers, AUTH_NAME));
  g_clear_pointer (&hook.received_body, json_node_unref);
  if (json_parser_load_from_data (parser, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes), NULL))
    hook.received_body = json_node_ref (json_parser_get_root (parser));

  if (hook.never_answer)
    {
      soup_server_message_pause (msg);
      g_ptr_array_add (hook.paused, g_object_ref (msg));
      return;
    }

  soup_server_message_set_status (msg, hook.status, NULL);
  if (hook.body != NULL && hook.content_type == NULL)
    soup_message_body_append (soup_server_message_get_response_body (msg), SOUP_MEMORY_COPY,
                              hook.body, strlen (hook.body));
  else if (hook.body != NULL)
    soup_server_message_set_response (msg, hook.content_type, SOUP_MEMORY_COPY,
                                      hook.body, strlen (hook.body));
}

static void
hook_start (guint port)
{
  g_autoptr(GError) error = NULL;
  GSList *uris;

  hook.server = soup_server_new (NULL, NULL);
  soup_server_add_handler (hook.server, NULL, on_request, NULL, NULL);
  g_assert_true (soup_server_listen_local (hook.server, port, SOUP_SERVER_LISTEN_IPV4_ONLY, &error));
  g_assert_no_error (error);
  uris = soup_server_get_uris (hook.server);
  hook.port = g_uri_get_port (uris->data);
  g_slist_free_full (uris, (GDestroyNotify) g_uri_unref);
  g_free (hook.base_url);
  hook.base_url = g_strdup_printf ("http://127.0.0.1:%u", hook.port);
}

static void
hook_stop (void)
{
  if (hook.server != NULL)
    soup_server_disconnect (hook.server);
  g_clear_object (&hook.server);
}

static void
hook_reset (void)
{
  hook_stop ();
  g_clear_pointer (&hook.content_type, g_free);
  g_clear_pointer (&hook.body, g_free);
  g_clear_pointer (&hook.raw_path, g_free);
  g_clear_pointer (&hook.received_type, g_free);
  g_clear_pointer (&hook.received_auth, g_free);
  g_clear_pointer (&hook.received_body, json_node_unref);
  g_clear_pointer (&hook.paused, g_ptr_array_unref);
  g_clear_pointer (&hook.base_url, g_free);
  memset (&hook, 0, sizeof hook);
  hook.paused = g_ptr_array_new_with_free_func (g_object_unref);
  hook.status = 200;
  hook.content_type = g_strdup ("application/json");
  hook.body = g_strdup ("{\"ok\":true}");
}

static void
hook_answer (guint       status,
             const char *content_type,
             const char *body)
{
  hook.status = status;
  g_free (hook.content_type);
  hook.content_type = g_strdup (content_type);
  g_free (hook.body);
  hook.body = g_strdup (body);
}

static PrsTool *
make_tool (gboolean with_webhook_id)
{
  PrsTool *tool = prs_tool_new ();

  tool->name = g_strdup ("get_weather");
  tool->workflow_id = g_strdup ("W1abc");
  tool->webhook_path = g_strdup ("weather");
  tool->webhook_method = g_strdup ("POST");
  tool->response_mode = g_strdup ("lastNode");
  tool->webhook_node_name = g_strdup ("Webhook Items (v2)");
  tool->webhook_id = with_webhook_id ? g_strdup ("5f0c2a0e-0d4c-4b7e-9d61-1c1b0f5e2a11") : NULL;
  return tool;
}

static PrsToolCallRequest *
make_request (gboolean with_webhook_id)
{
  g_autoptr(PrsTool) tool = make_tool (with_webhook_id);
  PrsToolCallRequest *req = prs_tool_call_request_new (tool, hook.base_url);

  req->timeout_seconds = 10;
  return req;
}

static void
on_done (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  PrsToolCallResult **out = user_data;
  g_autoptr(GError) error = NULL;

  *out = prs_tool_call_run_finish (result, &error);
  g_assert_no_error (error);
  g_assert_nonnull (*out);
}

static PrsToolCallResult *
run_call (PrsToolCallRequest *req)
{
  PrsToolCallResult *result = NULL;

  prs_tool_call_run_async (req, NULL, on_done, &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  return result;
}

static PrsToolCallResult *
call_with_answer (guint       status,
                  const char *content_type,
                  const char *body)
{
  g_autoptr(PrsToolCallRequest) req = NULL;

  hook_reset ();
  hook_answer (status, content_type, body);
  hook_start (0);
  req = make_request (TRUE);
  return run_call (req);
}

static char *
result_text (PrsToolCallResult *result)
{
  return result->result != NULL ? json_to_string (result->result, FALSE) : NULL;
}

/* ---------------------------------------------------------------- envelope */

static void
test_envelope (void)
{
  g_autoptr(PrsToolCallRequest) req = NULL;
  g_autoptr(PrsToolCallResult) result = NULL;
  g_autoptr(JsonObject) args = json_object_new ();
  g_autoptr(JsonArray) list = json_array_new ();
  JsonObject *body, *parameters, *envelope;
  g_autofree char *callback_url = NULL;
  g_autoptr(PrsToolCallRequest) other = NULL;

  hook_reset ();
  hook_start (0);

  json_object_set_string_member (args, "x", "hello");
  json_object_set_int_member (args, "count", 3);
  json_array_add_string_element (list, "a");
  json_object_set_array_member (args, "tags", g_steal_pointer (&list));
  json_object_set_string_member (args, "parameters", "an argument of that name");
  json_object_set_string_member (args, "prosponsive", "an argument of that name too");

  req = make_request (TRUE);
  req->arguments = json_object_ref (args);
  req->auth_header_name = g_strdup (AUTH_NAME);
  req->auth_header_value = g_strdup (AUTH_VALUE);
  g_free (req->tool_call_id);
  req->tool_call_id = g_strdup ("call-123");
  req->conversation_id = g_strdup ("conv-1");
  req->agent_id = g_strdup ("prosponsive");
  req->callback_url = g_strdup ("https://127.0.0.1:8443/api/ai/agentic-loop-result");
  req->execution = NULL;

  result = run_call (req);
  g_assert_cmpint (result->status, ==, PRS_TOOL_CALL_SUCCEEDED);
  g_assert_cmpuint (result->http_status, ==, 200);
  g_assert_cmpuint (result->attempts, ==, 1);
  g_assert_cmpuint (hook.requests, ==, 1);

  g_assert_cmpstr (hook.received_type, ==, "application/json");
  g_assert_cmpstr (hook.received_auth, ==, AUTH_VALUE);
  g_assert_nonnull (hook.received_body);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (hook.received_body));
  body = json_node_get_object (hook.received_body);

  /* Top level: the arguments, then the envelope's two members. */
  g_assert_cmpuint (json_object_get_size (body), ==, 5);
  g_assert_cmpstr (json_object_get_string_member (body, "x"), ==, "hello");
  g_assert_cmpint (json_object_get_int_member (body, "count"), ==, 3);
  g_assert_cmpstr (json_array_get_string_element (json_object_get_array_member (body, "tags"), 0), ==, "a");

  /* "parameters": the same arguments, all of them. */
  parameters = json_object_get_object_member (body, "parameters");
  g_assert_nonnull (parameters);
  g_assert_cmpuint (json_object_get_size (parameters), ==, 5);
  g_assert_cmpstr (json_object_get_string_member (parameters, "x"), ==, "hello");
  g_assert_cmpint (json_object_get_int_member (parameters, "count"), ==, 3);
  g_assert_cmpstr (json_object_get_string_member (parameters, "parameters"), ==, "an argument of that name");
  g_assert_cmpstr (json_object_get_string_member (parameters, "prosponsive"), ==, "an argument of that name too");

  envelope = json_object_get_object_member (body, "prosponsive");
  g_assert_nonnull (envelope);
  g_assert_cmpuint (json_object_get_size (envelope), ==, 8);
  g_assert_cmpstr (json_object_get_string_member (envelope, "toolName"), ==, "get_weather");
  g_assert_cmpstr (json_object_get_string_member (envelope, "toolCallId"), ==, "call-123");
  g_assert_cmpstr (json_object_get_string_member (envelope, "workflowId"), ==, "W1abc");
  g_assert_cmpstr (json_object_get_string_member (envelope, "conversationId"), ==, "conv-1");
  g_assert_cmpstr (json_object_get_string_member (envelope, "agentId"), ==, "prosponsive");
  /* The call's secret: 256 random bits, in the envelope and in the URL the
   * workflow posts its result to */
  g_assert_cmpuint (strlen (req->callback_secret), ==, 43);
  g_assert_cmpuint (strspn (req->callback_secret, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                            "0123456789-_"), ==, 43);
  g_assert_cmpstr (json_object_get_string_member (envelope, "callbackSecret"), ==, req->callback_secret);
  callback_url = g_strconcat ("https://127.0.0.1:8443/api/ai/agentic-loop-result?callbackSecret=",
                              req->callback_secret, NULL);
  g_assert_cmpstr (json_object_get_string_member (envelope, "callbackUrl"), ==, callback_url);
  other = make_request (TRUE);
  g_assert_cmpstr (other->callback_secret, !=, req->callback_secret);
  g_assert_true (json_object_has_member (envelope, "execution"));
  g_assert_true (json_object_get_null_member (envelope, "execution"));
}

static void
test_no_arguments (void)
{
  g_autoptr(PrsToolCallRequest) req = NULL;
  g_autoptr(PrsToolCallResult) result = NULL;
  JsonObject *body;
  const char *id;

  hook_reset ();
  hook_start (0);
  req = make_request (TRUE);
  result = run_call (req);
  g_assert_cmpint (result->status, ==, PRS_TOOL_CALL_SUCCEEDED);
  g_assert_null (hook.received_auth);

  body = json_node_get_object (hook.received_body);
  g_assert_cmpuint (json_object_get_size (body), ==, 2);
  g_assert_cmpuint (json_object_get_size (json_object_get_object_member (body, "parameters")), ==, 0);
  /* A random UUID when the caller sets none. */
  id = json_object_get_string_member (json_object_get_object_member (body, "prosponsive"), "toolCallId");
  g_assert_true (g_uuid_string_is_valid (id));
}

/* ---------------------------------------------------------------- URL forms */

/* SoupServer hands handlers the path decoded once, so the request line is
 * read off the socket by a bare HTTP/1.1 server here. */
static char *raw_request_line;

static gboolean
on_raw_run (GThreadedSocketService *service,
            GSocketConnection      *connection,
            GObject                *source_object,
            gpointer                user_data)
{
  GInputStream *in = g_io_stream_get_input_stream (G_IO_STREAM (connection));
  GOutputStream *out = g_io_stream_get_output_stream (G_IO_STREAM (connection));
  g_autoptr(GDataInputStream) data = g_data_input_stream_new (in);
  static const char answer[] = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                               "Content-Length: 11\r\nConnection: close\r\n\r\n{\"ok\":true}";
  char *line;

  g_filter_input_stream_set_close_base_stream (G_FILTER_INPUT_STREAM (data), FALSE);
  line = g_data_input_stream_read_line (data, NULL, NULL, NULL);
  g_atomic_pointer_set (&raw_request_line, line);
  /* Headers up to the empty line; the body is not needed. */
  while (TRUE)
    {
      g_autofree char *header = g_data_input_stream_read_line (data, NULL, NULL, NULL);

      if (header == NULL || header[0] == '\r' || header[0] == '\0')
        break;
    }
  g_output_stream_write_all (out, answer, strlen (answer), NULL, NULL, NULL);
  g_io_stream_close (G_IO_STREAM (connection), NULL, NULL);
  return TRUE;
}

static char *
request_line_for (PrsToolCallRequest *req)
{
  g_autoptr(GSocketService) service = g_threaded_socket_service_new (2);
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) address = g_inet_socket_address_new (loopback, 0);
  g_autoptr(GSocketAddress) bound = NULL;
  g_autoptr(PrsToolCallResult) result = NULL;
  g_autoptr(GError) error = NULL;
  char *line;

  g_assert_true (g_socket_listener_add_address (G_SOCKET_LISTENER (service), address,
                                                G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP,
                                                NULL, &bound, &error));
  g_assert_no_error (error);
  g_signal_connect (service, "run", G_CALLBACK (on_raw_run), NULL);
  g_socket_service_start (service);

  g_free (req->n8n_base_url);
  req->n8n_base_url = g_strdup_printf ("http://127.0.0.1:%u/",
                                       g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound)));
  result = run_call (req);
  g_assert_cmpint (result->status, ==, PRS_TOOL_CALL_SUCCEEDED);
  g_socket_service_stop (service);
  g_socket_listener_close (G_SOCKET_LISTENER (service));

  line = g_atomic_pointer_get (&raw_request_line);
  g_atomic_pointer_set (&raw_request_line, NULL);
  g_assert_nonnull (line);
  g_strchomp (line);
  return line;
}

static void
test_url_forms (void)
{
  g_autoptr(PrsToolCallRequest) req = NULL;
  g_autoptr(PrsToolCallRequest) req2 = NULL;
  g_autoptr(PrsTool) tool = make_tool (TRUE);
  g_autofree char *line = NULL;
  g_autofree char *line2 = NULL;
  g_autofree char *url = NULL;

  hook_reset ();
  hook_start (0);

  req = make_request (TRUE);
  line = request_line_for (req);
  g_assert_cmpstr (line, ==, "POST /webhook/weather HTTP/1.1");

  /* No webhookId: n8n's form, the node name lower-cased and encoded twice
   * (encodeURIComponent keeps the parentheses, the second pass does not). */
  req2 = make_request (FALSE);
  line2 = request_line_for (req2);
  g_assert_cmpstr (line2, ==, "POST /webhook/W1abc/webhook%2520items%2520%28v2%29/weather HTTP/1.1");

  /* Paths: slashes trimmed, escaped once; empty → the webhookId. */
  g_free (tool->webhook_path);
  tool->webhook_path = g_strdup ("/my path/sub/");
  url = prs_tool_dup_webhook_url (tool, "http://n8n:5678/");
  g_assert_cmpstr (url, ==, "http://n8n:5678/webhook/my%20path/sub");
  g_clear_pointer (&url, g_free);
  g_free (tool->webhook_path);
  tool->webhook_path = g_strdup ("");
  url = prs_tool_dup_webhook_url (tool, "http://n8n:5678");
  g_assert_cmpstr (url, ==, "http://n8n:5678/webhook/5f0c2a0e-0d4c-4b7e-9d61-1c1b0f5e2a11");
  g_clear_pointer (&url, g_free);
  g_free (tool->webhook_path);
  tool->webhook_path = g_strdup ("user/:id");
  url = prs_tool_dup_webhook_url (tool, "http://n8n:5678");
  g_assert_cmpstr (url, ==, "http://n8n:5678/webhook/5f0c2a0e-0d4c-4b7e-9d61-1c1b0f5e2a11/user/%3Aid");
}

/* ---------------------------------------------------------------- answers */

static void
test_answer_json_object (void)
{
  g_autoptr(PrsToolCallResult) result = call_with_answer (200, "application/json",
                                                          "{\"temp\":21.5,\"city\":\"Zürich\"}");
  g_autofree char *text = result_text (result);
  g_autofree char *model = prs_tool_call_result_for_model (result);

  g_assert_cmpint (result->status, ==, PRS_TOOL_CALL_SUCCEEDED);
  g_assert_cmpstr (text, ==, "{\"temp\":21.5,\"city\":\"Zürich\"}");
  g_assert_cmpstr (model, ==, "{\"temp\":21.5,\"city\":\"Zürich\"}");
  g_assert_false (result->rediscover);
  g_assert_null (result->error);
}

static void
test_answer_json_array (void)
{
  g_autoptr(PrsToolCallResult) result = call_with_answer (200, "application/json",
                                                          "[{\"i\":0},{\"i\":1}]");
  g_autofree char *text = result_text (result);

  g_assert_cmpint (result->status, ==, PRS_TOOL_CALL_SUCCEEDED);
  g_assert_cmpstr (text, ==, "[{\"i\":0},{\"i\":1}]");
}

static void
test_answer_success_false (void)
{
  g_autoptr(PrsToolCallResult) result = call_with_answer (200, "application/json",
                                                          "{\"success\":false,\"error\":\"no such city\"}");
  g_autofree char *model = prs_tool_call_result_for_model (result);

  g_assert_cmpint (result->status, ==, PRS_TOOL_CALL_FAILED);
  g_assert_cmpint (result->error_code, ==, PRS_ERROR_FAILED);
  g_assert_cmpstr (result->error, ==, "no such city");
  g_assert_cmpstr (model, ==, "{\"success\":false,\"error\":\"no such city\"}");
}

static void
test_answer_error_variants (void)
{
  PrsToolCallResult *result;

  /* A string "error" alone is a failure. */
  result = call_with_answer (200, "application/json", "{\"error\":\"quota exceeded\"}");
  g_assert_cmpint (result->status, ==, PRS_TOOL_CALL_FAILED);
  g_assert_cmpstr (result->error, ==, "quota exceeded");
  prs_tool_call_result_free (result);

  /* success:false with an error object, or with only a message. */
  result = call_with_answer (200, "application/json",
                             "{\"success\":false,\"error\":{\"message\":\"bad input\",\"code\":7}}");
  g_assert_cmpint (result->status, ==, PRS_TOOL_CALL_FAILED);
  g_assert_cmpstr (result->error, ==, "bad input");
  prs_tool_call_result_free (result);

  result = call_with_answer (200, "application/json", "{\"success\":false}");
  g_assert_cmpint (result->status, ==, PRS_TOOL_CALL_FAILED);
  g_assert_nonnull (strstr (result->error, "success"));
  prs_tool_call_result_free (result);

  /* A string "error" is a failure even beside "success": true (the
   * guide's error object sets both), and a non-string error is data. */
  result = call_with_answer (200, "application/json", "{\"success\":true,\"error\":\"none\"}");
  g_assert_cmpint (result->status, ==, PRS_TOOL_CALL_FAILED);
  g_assert_cmpstr (result->error, ==, "none");
  prs_tool_call_result_free (result);

  result = call_with_answer (200, "application/json", "{\"error\":\"disk full\",\"success\":true,\"rows\":[1]}");
  g_assert_cmpint (result->status, ==, PRS_TOOL_CALL_FAILED);
  g_assert_cmpstr (result->error, ==, "disk full");
  prs_tool_call_result_free (result);

  result = call_with_answer (200, "application/json", "{\"success\":true,\"error\":{\"message\":\"x\"}}");
  g_assert_cmpint (result->status, ==, PRS_TOOL_CALL_SUCCEEDED);
  prs_tool_call_result_free (result);

  result = call_with_answer (200, "application/json", "{\"error\":null,\"rows\":[]}");
  g_assert_cmpint (result->status, ==, PRS_TOOL_CALL_SUCCEEDED);
  prs_tool_call_result_free (result);
}

static void
test_answer_workflow_started (void)
{
  g_autoptr(PrsToolCallResult) result = call_with_answer (200, "application/json",
                                                          "{\"message\":\"Workflow was started\"}");

  g_assert_cmpint (result->status, ==, PRS_TOOL_CALL_WAITING_CALLBACK);
  g_assert_null (result->error);
}

static void
test_answer_empty (void)
{
  PrsToolCallResult *result;

  result = call_with_answer (200, "application/json", NULL);
  g_assert_cmpint (result->status, ==, PRS_TOOL_CALL_FAILED);
  g_assert_cmpstr (result->error, ==,
                   "the workflow returned nothing (did it fail before its Respond to Webhook node?)");
  g_assert_false (result->rediscover);
  prs_tool_call_result_free (result);

  result = call_with_answer (200, "text/plain", "  \n");
  g_assert_cmpint (result->status, ==, PRS_TOOL_CALL_FAILED);
  g_assert_cmpstr (result->error, ==,
                   "the workflow returned nothing (did it fail before its Respond to Webhook node?)");
  prs_tool_call_result_free (result);
}

static void
test_answer_text (void)
{
  g_autoptr(PrsToolCallResult) result = call_with_answer (200, "text/plain", "It is sunny in Zürich.");
  g_autofree char *model = prs_tool_call_result_for_model (result);

  g_assert_cmpint (result->status, ==, PRS_TOOL_CALL_SUCCEEDED);
  g_assert_true (JSON_NODE_HOLDS_VALUE (result->result));
  g_assert_cmpstr (json_node_get_string (result->result), ==, "It is sunny in Zürich.");
  g_assert_cmpstr (model, ==, "\"It is sunny in Zürich.\"");
}

/* A result JSON cannot keep exactly reaches the model as its text, never
 * changed (json-glib read the id as -1 and cut the string at \u0000) */
static void
test_answer_exact (void)
{
  static const char *inexact = "{\"id\":123456789012345678901234567890,\"note\":\"a\\u0000b\"}";
  g_autoptr(PrsToolCallResult) result = call_with_answer (200, "application/json", inexact);
  g_autoptr(PrsToolCallResult) exact = NULL;
  g_autofree char *model = NULL;

  g_assert_cmpint (result->status, ==, PRS_TOOL_CALL_SUCCEEDED);
  g_assert_true (JSON_NODE_HOLDS_VALUE (result->result));
  g_assert_cmpstr (json_node_get_string (result->result), ==, inexact);

  exact = call_with_answer (200, "application/json", "{\"score\":0.1,\"big\":18446744073709552000}");
  model = prs_tool_call_result_for_model (exact);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (exact->result));
  g_assert_cmpstr (model, ==, "{\"score\":0.1,\"big\":1.8446744073709552e+19}");
}

static void
test_answer_not_found (void)
{
  g_autoptr(PrsToolCallResult) result =
    call_with_answer (404, "application/json",
                      "{\"code\":404,\"message\":\"The requested webhook \\\"POST weather\\\" is not registered.\","
                      "\"hint\":\"The workflow must be active for a production URL to run successfully.\"}");

  g_assert_cmpint (result->status, ==, PRS_TOOL_CALL_FAILED);
  g_assert_cmpint (result->error_code, ==, PRS_ERROR_N8N_NOT_FOUND);
  g_assert_cmpstr (result->error, ==, "webhook not registered (is the workflow still published?)");
  g_assert_true (result->rediscover);
  g_assert_cmpuint (result->http_status, ==, 404);
  g_assert_cmpuint (result->attempts, ==, 1);
}

static void
test_answer_server_error (void)
{
  PrsToolCallResult *result;

  result = call_with_answer (500, "application/json", "{\"message\":\"Error in workflow\"}");
  g_assert_cmpint (result->status, ==, PRS_TOOL_CALL_FAILED);
  g_assert_cmpint (result->error_code, ==, PRS_ERROR_N8N_HTTP);
  g_assert_cmpstr (result->error, ==, "Error in workflow");
  g_assert_false (result->rediscover);
  g_assert_cmpuint (result->http_status, ==, 500);
  g_assert_cmpuint (hook.requests, ==, 1);
  prs_tool_call_result_free (result);

  /* No n8n message: the status text. */
  result = call_with_answer (502, "text/html", "<html>bad gateway</html>");
  g_assert_cmpint (result->status, ==, PRS_TOOL_CALL_FAILED);
  g_assert_cmpstr (result->error, ==, "502 Bad Gateway");
  prs_tool_call_result_free (result);

  /* Header Auth refused: n8n says so in plain text, without a Content-Type. */
  result = call_with_answer (403, NULL, "Authorization data is wrong!");
  g_assert_cmpstr (result->error, ==, "Authorization data is wrong!");
  g_assert_cmpuint (result->http_status, ==, 403);
  prs_tool_call_result_free (result);
}

static void
test_bad_auth_header (void)
{
  g_autoptr(PrsToolCallRequest) req = NULL;
  g_autoptr(PrsToolCallResult) result = NULL;

  hook_reset ();
  hook_start (0);
  req = make_request (TRUE);
  req->auth_header_name = g_strdup (AUTH_NAME);
  req->auth_header_value = g_strdup (AUTH_VALUE "\r\nX-Evil: 1");
  result = run_call (req);
  g_assert_cmpint (result->status, ==, PRS_TOOL_CALL_FAILED);
  g_assert_cmpint (result->error_code, ==, PRS_ERROR_INVALID_INPUT);
  g_assert_null (strstr (result->error, AUTH_VALUE));
  g_assert_cmpuint (hook.requests, ==, 0);
}

/* ---------------------------------------------------------------- retries, timeouts */

static gboolean
start_hook_later (gpointer user_data)
{
  hook_start (GPOINTER_TO_UINT (user_data));
  return G_SOURCE_REMOVE;
}

static void
test_retry_refused (void)
{
  g_autoptr(PrsToolCallRequest) req = NULL;
  g_autoptr(PrsToolCallResult) result = NULL;
  gint64 start;
  guint port;

  /* A port nobody listens on any more. */
  hook_reset ();
  hook_start (0);
  req = make_request (TRUE);
  port = hook.port;
  hook_stop ();

  /* Attempts at 0 s and 1 s are refused; the one at 3 s finds the server. */
  g_timeout_add (1500, start_hook_later, GUINT_TO_POINTER (port));
  start = g_get_monotonic_time ();
  result = run_call (req);
  g_assert_cmpint (result->status, ==, PRS_TOOL_CALL_SUCCEEDED);
  g_assert_cmpuint (result->attempts, ==, 3);
  g_assert_cmpuint (hook.requests, ==, 1);
  g_assert_cmpint (g_get_monotonic_time () - start, >=, 2900 * 1000);
}

static void
test_retry_gives_up (void)
{
  static const guint fast[] = { 10, 20, 30 };
  g_autoptr(PrsToolCallRequest) req = NULL;
  g_autoptr(PrsToolCallResult) result = NULL;

  hook_reset ();
  hook_start (0);
  req = make_request (TRUE);
  hook_stop ();

  prs_tool_call_set_retry_delays_for_testing (fast);
  result = run_call (req);
  prs_tool_call_set_retry_delays_for_testing (NULL);

  g_assert_cmpint (result->status, ==, PRS_TOOL_CALL_FAILED);
  g_assert_cmpint (result->error_code, ==, PRS_ERROR_N8N_UNREACHABLE);
  g_assert_cmpuint (result->attempts, ==, 4);
  g_assert_cmpuint (result->http_status, ==, 0);
  g_assert_nonnull (strstr (result->error, "connection refused"));
}

static void
test_timeout_not_retried (void)
{
  g_autoptr(PrsToolCallRequest) req = NULL;
  g_autoptr(PrsToolCallResult) result = NULL;
  gint64 start;

  hook_reset ();
  hook.never_answer = TRUE;
  hook_start (0);
  req = make_request (TRUE);
  req->timeout_seconds = 1;

  start = g_get_monotonic_time ();
  result = run_call (req);
  g_assert_cmpint (result->status, ==, PRS_TOOL_CALL_FAILED);
  g_assert_cmpint (result->error_code, ==, PRS_ERROR_TIMEOUT);
  g_assert_cmpstr (result->error, ==, "timed out after 1 s; the workflow may still have run");
  g_assert_cmpuint (result->attempts, ==, 1);
  g_assert_cmpint (g_get_monotonic_time () - start, <, 5 * G_USEC_PER_SEC);

  /* Give a retry, had there been one, the time to arrive. */
  start = g_get_monotonic_time ();
  while (g_get_monotonic_time () - start < 1500 * 1000)
    {
      g_main_context_iteration (NULL, FALSE);
      g_usleep (10 * 1000);
    }
  g_assert_cmpuint (hook.requests, ==, 1);
}

static void
on_cancelled_done (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  GError **out = user_data;
  PrsToolCallResult *res = prs_tool_call_run_finish (result, out);

  g_assert_null (res);
  g_assert_nonnull (*out);
}

static void
test_cancel (void)
{
  g_autoptr(PrsToolCallRequest) req = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(PrsCallbackRegistry) registry = prs_callback_registry_new ();
  GError *error = NULL;

  hook_reset ();
  hook.never_answer = TRUE;
  hook_start (0);
  req = make_request (TRUE);
  req->callback_registry = g_object_ref (registry);

  prs_tool_call_run_async (req, cancellable, on_cancelled_done, &error);
  while (hook.requests == 0)
    g_main_context_iteration (NULL, TRUE);
  g_assert_true (prs_callback_registry_is_expected (registry, req->tool_call_id));
  g_cancellable_cancel (cancellable);
  while (error == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&error);
  g_assert_false (prs_callback_registry_is_expected (registry, req->tool_call_id));
}

/* ---------------------------------------------------------------- the 64 KiB cut */

static void
test_cut_for_model (void)
{
  g_autoptr(GString) big = g_string_new ("{\"text\":\"");
  g_autoptr(PrsToolCallResult) result = NULL;
  g_autofree char *model = NULL;
  g_autofree char *expected_note = NULL;
  g_autofree char *small = NULL;
  const char *note;
  gsize shown;
  gsize total;

  /* 200 KiB of 1-, 2-, 3- and 4-byte characters. */
  while (big->len < 200 * 1024)
    g_string_append (big, "aé€😀");
  g_string_append (big, "\"}");
  total = big->len;

  result = call_with_answer (200, "application/json", big->str);
  g_assert_cmpint (result->status, ==, PRS_TOOL_CALL_SUCCEEDED);
  model = prs_tool_call_result_for_model (result);

  note = strstr (model, "\n[result truncated: ");
  g_assert_nonnull (note);
  shown = note - model;
  g_assert_cmpuint (shown, <=, 64 * 1024);
  g_assert_cmpuint (shown, >, 64 * 1024 - 4);
  g_assert_true (g_utf8_validate (model, -1, NULL));
  g_assert_cmpint (strncmp (model, big->str, shown), ==, 0);
  expected_note = g_strdup_printf ("\n[result truncated: %" G_GSIZE_FORMAT " bytes, showing the first %"
                                   G_GSIZE_FORMAT "]", total, shown);
  g_assert_cmpstr (note, ==, expected_note);

  /* The boundary itself. */
  small = prs_tool_call_cut_for_model ("aé", 2);
  g_assert_cmpstr (small, ==, "a\n[result truncated: 3 bytes, showing the first 1]");
  g_clear_pointer (&small, g_free);
  small = prs_tool_call_cut_for_model ("aé", 3);
  g_assert_cmpstr (small, ==, "aé");
}

/* ---------------------------------------------------------------- callback registry */

typedef struct
{
  PrsCallbackRegistry *registry;
  char                *id;
  char                *secret;
  gboolean             delivered;
} DeliverJob;

static gpointer
deliver_thread (gpointer data)
{
  DeliverJob *job = data;
  g_autoptr(JsonNode) node = json_from_string ("{\"forecast\":\"rain\"}", NULL);

  g_usleep (100 * 1000);
  job->delivered = prs_callback_registry_deliver (job->registry, job->id, job->secret, TRUE, node, NULL,
                                                  NULL) == PRS_CALLBACK_DELIVERED;
  return NULL;
}

typedef struct
{
  PrsToolCallResult *result;
  GError            *error;
  GThread           *thread;
  gboolean           done;
} WaitOutcome;

static void
on_waited (GObject      *source,
           GAsyncResult *res,
           gpointer      user_data)
{
  WaitOutcome *out = user_data;

  out->result = prs_callback_registry_wait_finish (PRS_CALLBACK_REGISTRY (source), res, &out->error);
  out->thread = g_thread_self ();
  out->done = TRUE;
}

static void
wait_for (WaitOutcome *out)
{
  while (!out->done)
    g_main_context_iteration (NULL, TRUE);
}

static void
test_registry_deliver_from_thread (void)
{
  g_autoptr(PrsCallbackRegistry) registry = prs_callback_registry_new ();
  DeliverJob job = { registry, (char *) "call-async-1", (char *) "s3cret", FALSE };
  WaitOutcome out = { 0 };
  g_autofree char *text = NULL;
  GThread *thread;

  prs_callback_registry_expect (registry, job.id, job.secret);
  prs_callback_registry_wait_async (registry, job.id, 30, NULL, on_waited, &out);
  thread = g_thread_new ("deliver", deliver_thread, &job);
  wait_for (&out);
  g_thread_join (thread);

  g_assert_true (job.delivered);
  g_assert_no_error (out.error);
  g_assert_true (out.thread == g_thread_self ());
  g_assert_cmpint (out.result->status, ==, PRS_TOOL_CALL_SUCCEEDED);
  text = json_to_string (out.result->result, FALSE);
  g_assert_cmpstr (text, ==, "{\"forecast\":\"rain\"}");
  prs_tool_call_result_free (out.result);

  /* The id is gone now: a second delivery is refused. */
  g_assert_cmpint (prs_callback_registry_deliver (registry, job.id, job.secret, TRUE, NULL, NULL, NULL), ==,
                   PRS_CALLBACK_UNKNOWN);
  g_assert_false (prs_callback_registry_is_expected (registry, job.id));
}

static void
test_registry_unknown_and_early (void)
{
  g_autoptr(PrsCallbackRegistry) registry = prs_callback_registry_new ();
  WaitOutcome out = { 0 };

  g_assert_cmpint (prs_callback_registry_deliver (registry, "nobody", "s", TRUE, NULL, NULL, NULL), ==,
                   PRS_CALLBACK_UNKNOWN);
  g_assert_cmpint (prs_callback_registry_deliver (registry, NULL, "s", TRUE, NULL, NULL, NULL), ==,
                   PRS_CALLBACK_UNKNOWN);

  /* A result that arrives before the wait starts is kept for it. */
  prs_callback_registry_expect (registry, "early", "s1");
  g_assert_cmpint (prs_callback_registry_deliver (registry, "early", "s1", FALSE, NULL, "the city is unknown",
                                                  NULL), ==, PRS_CALLBACK_DELIVERED);
  g_assert_cmpint (prs_callback_registry_deliver (registry, "early", "s1", TRUE, NULL, NULL, NULL), ==,
                   PRS_CALLBACK_UNKNOWN);
  prs_callback_registry_wait_async (registry, "early", 30, NULL, on_waited, &out);
  wait_for (&out);
  g_assert_no_error (out.error);
  g_assert_cmpint (out.result->status, ==, PRS_TOOL_CALL_FAILED);
  g_assert_cmpstr (out.result->error, ==, "the city is unknown");
  prs_tool_call_result_free (out.result);

  /* Forgotten ids are unknown again. */
  prs_callback_registry_expect (registry, "later", "s2");
  prs_callback_registry_forget (registry, "later");
  g_assert_cmpint (prs_callback_registry_deliver (registry, "later", "s2", TRUE, NULL, NULL, NULL), ==,
                   PRS_CALLBACK_UNKNOWN);
}

static void
test_registry_timeout (void)
{
  g_autoptr(PrsCallbackRegistry) registry = prs_callback_registry_new ();
  WaitOutcome out = { 0 };
  WaitOutcome second = { 0 };

  prs_callback_registry_wait_async (registry, "slow", 1, NULL, on_waited, &out);
  prs_callback_registry_wait_async (registry, "slow", 1, NULL, on_waited, &second);
  wait_for (&second);
  g_assert_error (second.error, G_IO_ERROR, G_IO_ERROR_EXISTS);
  g_clear_error (&second.error);

  wait_for (&out);
  g_assert_no_error (out.error);
  g_assert_cmpint (out.result->status, ==, PRS_TOOL_CALL_FAILED);
  g_assert_cmpint (out.result->error_code, ==, PRS_ERROR_TIMEOUT);
  g_assert_nonnull (strstr (out.result->error, "within 1 s"));
  prs_tool_call_result_free (out.result);

  /* Too late: refused. */
  g_assert_cmpint (prs_callback_registry_deliver (registry, "slow", "s", TRUE, NULL, NULL, NULL), ==,
                   PRS_CALLBACK_UNKNOWN);
}

static void
test_registry_cancel (void)
{
  g_autoptr(PrsCallbackRegistry) registry = prs_callback_registry_new ();
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  WaitOutcome out = { 0 };

  prs_callback_registry_wait_async (registry, "c", 30, cancellable, on_waited, &out);
  g_cancellable_cancel (cancellable);
  wait_for (&out);
  g_assert_error (out.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&out.error);
  g_assert_cmpint (prs_callback_registry_deliver (registry, "c", "s", TRUE, NULL, NULL, NULL), ==,
                   PRS_CALLBACK_UNKNOWN);
}

/* Only the secret the webhook was told delivers a result; a missing one
 * counts nothing, a wrong one counts */
static void
test_registry_secrets (void)
{
  g_autoptr(PrsCallbackRegistry) registry = prs_callback_registry_new ();
  g_autoptr(JsonNode) forged = json_from_string ("{\"forged\":true}", NULL);
  g_autoptr(JsonNode) genuine = json_from_string ("{\"forecast\":\"sun\"}", NULL);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  WaitOutcome out = { 0 };
  g_autofree char *text = NULL;
  guint left = 0;

  prs_callback_registry_expect (registry, "c1", "right-secret");
  prs_callback_registry_wait_async (registry, "c1", 30, NULL, on_waited, &out);

  g_assert_cmpint (prs_callback_registry_deliver (registry, "c1", NULL, TRUE, forged, NULL, &left), ==,
                   PRS_CALLBACK_SECRET_MISSING);
  g_assert_cmpuint (left, ==, PRS_CALLBACK_MAX_WRONG_SECRETS);
  g_assert_cmpint (prs_callback_registry_deliver (registry, "c1", "", TRUE, forged, NULL, &left), ==,
                   PRS_CALLBACK_SECRET_MISSING);
  g_assert_cmpint (prs_callback_registry_deliver (registry, "c1", "wrong", TRUE, forged, NULL, &left), ==,
                   PRS_CALLBACK_SECRET_WRONG);
  g_assert_cmpuint (left, ==, PRS_CALLBACK_MAX_WRONG_SECRETS - 1);
  /* A prefix, and the secret with more after it, are wrong too */
  g_assert_cmpint (prs_callback_registry_deliver (registry, "c1", "right", TRUE, forged, NULL, &left), ==,
                   PRS_CALLBACK_SECRET_WRONG);
  g_assert_cmpint (prs_callback_registry_deliver (registry, "c1", "right-secretX", TRUE, forged, NULL, &left), ==,
                   PRS_CALLBACK_SECRET_WRONG);
  g_assert_cmpuint (left, ==, PRS_CALLBACK_MAX_WRONG_SECRETS - 3);
  g_assert_false (out.done);

  g_assert_cmpint (prs_callback_registry_deliver (registry, "c1", "right-secret", TRUE, genuine, NULL, NULL), ==,
                   PRS_CALLBACK_DELIVERED);
  wait_for (&out);
  g_assert_cmpint (out.result->status, ==, PRS_TOOL_CALL_SUCCEEDED);
  text = json_to_string (out.result->result, FALSE);
  g_assert_cmpstr (text, ==, "{\"forecast\":\"sun\"}");
  prs_tool_call_result_free (out.result);

  /* An id waited for without being expected has no secret: nothing delivers */
  memset (&out, 0, sizeof out);
  prs_callback_registry_wait_async (registry, "c2", 30, cancellable, on_waited, &out);
  g_assert_cmpint (prs_callback_registry_deliver (registry, "c2", "anything", TRUE, forged, NULL, NULL), ==,
                   PRS_CALLBACK_UNKNOWN);
  g_cancellable_cancel (cancellable);
  wait_for (&out);
  g_assert_error (out.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&out.error);
}

/* What the sender of a result heard */
static void
on_told (const GError *error,
         guint64       commit,
         gpointer      data)
{
  GError **told = data;

  g_assert_null (*told);
  *told = error != NULL ? g_error_copy (error) : g_error_new_literal (PRS_ERROR, PRS_ERROR_FAILED, "stored");
}

/* A result that could not be stored (docs/api.md): the call waits again
 * as it did — the same secret, the count of wrong ones kept, its timeout
 * counted from the first wait — and takes the same result posted again */
static void
test_registry_unstored_waits_again (void)
{
  g_autoptr(PrsCallbackRegistry) registry = prs_callback_registry_new ();
  g_autoptr(JsonNode) genuine = json_from_string ("{\"forecast\":\"sun\"}", NULL);
  g_autoptr(GError) busy = g_error_new_literal (PRS_ERROR, PRS_ERROR_STORE_BUSY, "busy");
  g_autoptr(GError) told = NULL;
  WaitOutcome out = { 0 };
  gint64 started = g_get_monotonic_time ();
  guint left = 0;

  prs_callback_registry_expect (registry, "c", "right-secret");
  prs_callback_registry_wait_async (registry, "c", 2, NULL, on_waited, &out);
  g_assert_cmpint (prs_callback_registry_deliver (registry, "c", "wrong", TRUE, genuine, NULL, &left), ==,
                   PRS_CALLBACK_SECRET_WRONG);
  g_assert_cmpint (prs_callback_registry_deliver_stored (registry, "c", "right-secret", TRUE, genuine, NULL, NULL,
                                                         on_told, &told), ==, PRS_CALLBACK_DELIVERED);
  wait_for (&out);
  g_assert_cmpint (out.result->status, ==, PRS_TOOL_CALL_SUCCEEDED);
  /* Taken, not stored yet: nobody else can deliver */
  g_assert_cmpint (prs_callback_registry_deliver (registry, "c", "right-secret", TRUE, genuine, NULL, NULL), ==,
                   PRS_CALLBACK_UNKNOWN);

  /* Not stored: the call waits again before its sender hears why */
  prs_tool_call_result_stored (out.result, busy, 0);
  g_assert_error (told, PRS_ERROR, PRS_ERROR_STORE_BUSY);
  g_clear_error (&told);
  prs_tool_call_result_free (out.result);
  g_assert_true (prs_callback_registry_is_expected (registry, "c"));
  g_assert_cmpint (prs_callback_registry_deliver (registry, "c", "wrong", TRUE, genuine, NULL, &left), ==,
                   PRS_CALLBACK_SECRET_WRONG);
  g_assert_cmpuint (left, ==, PRS_CALLBACK_MAX_WRONG_SECRETS - 2);

  /* Posted again, it is taken, and its sender hears it stored */
  memset (&out, 0, sizeof out);
  g_assert_cmpint (prs_callback_registry_deliver_stored (registry, "c", "right-secret", TRUE, genuine, NULL, NULL,
                                                         on_told, &told), ==, PRS_CALLBACK_DELIVERED);
  prs_callback_registry_wait_async (registry, "c", 2, NULL, on_waited, &out);
  wait_for (&out);
  g_assert_cmpint (out.result->status, ==, PRS_TOOL_CALL_SUCCEEDED);
  prs_tool_call_result_stored (out.result, busy, 0);
  g_clear_error (&told);
  prs_tool_call_result_free (out.result);

  /* Waited for again, it times out 2 s after the first wait began, not
   * 2 s after this one */
  memset (&out, 0, sizeof out);
  g_usleep (G_USEC_PER_SEC);
  prs_callback_registry_wait_async (registry, "c", 2, NULL, on_waited, &out);
  wait_for (&out);
  g_assert_cmpint (out.result->error_code, ==, PRS_ERROR_TIMEOUT);
  g_assert_nonnull (strstr (out.result->error, "within 2 s"));
  g_assert_cmpint (g_get_monotonic_time () - started, <, 2900 * 1000);
  prs_tool_call_result_free (out.result);
  g_assert_false (prs_callback_registry_is_expected (registry, "c"));

  /* Stored: told so, and the call is over */
  prs_callback_registry_expect (registry, "d", "s");
  memset (&out, 0, sizeof out);
  prs_callback_registry_wait_async (registry, "d", 30, NULL, on_waited, &out);
  g_assert_cmpint (prs_callback_registry_deliver_stored (registry, "d", "s", TRUE, genuine, NULL, NULL,
                                                         on_told, &told), ==, PRS_CALLBACK_DELIVERED);
  wait_for (&out);
  prs_tool_call_result_stored (out.result, NULL, 7);
  g_assert_error (told, PRS_ERROR, PRS_ERROR_FAILED);
  prs_tool_call_result_free (out.result);
  g_assert_false (prs_callback_registry_is_expected (registry, "d"));
}

/* The last wrong secret allowed ends the call as failed, saying why; the
 * right secret is refused afterwards */
static void
test_registry_locked (void)
{
  g_autoptr(PrsCallbackRegistry) registry = prs_callback_registry_new ();
  WaitOutcome out = { 0 };
  WaitOutcome later = { 0 };

  prs_callback_registry_expect (registry, "c3", "right-secret");
  prs_callback_registry_wait_async (registry, "c3", 30, NULL, on_waited, &out);
  for (guint i = 1; i < PRS_CALLBACK_MAX_WRONG_SECRETS; i++)
    g_assert_cmpint (prs_callback_registry_deliver (registry, "c3", "guess", TRUE, NULL, NULL, NULL), ==,
                     PRS_CALLBACK_SECRET_WRONG);
  g_assert_cmpint (prs_callback_registry_deliver (registry, "c3", "guess", TRUE, NULL, NULL, NULL), ==,
                   PRS_CALLBACK_LOCKED);
  wait_for (&out);
  g_assert_cmpint (out.result->status, ==, PRS_TOOL_CALL_FAILED);
  g_assert_nonnull (strstr (out.result->error, "wrong callback secret"));
  g_assert_nonnull (strstr (out.result->error, "prosponsive.callbackUrl"));
  prs_tool_call_result_free (out.result);
  g_assert_cmpint (prs_callback_registry_deliver (registry, "c3", "right-secret", TRUE, NULL, NULL, NULL), ==,
                   PRS_CALLBACK_UNKNOWN);

  /* Locked before anyone waits: the waiter hears it */
  prs_callback_registry_expect (registry, "c4", "right-secret");
  for (guint i = 0; i < PRS_CALLBACK_MAX_WRONG_SECRETS; i++)
    prs_callback_registry_deliver (registry, "c4", "guess", TRUE, NULL, NULL, NULL);
  prs_callback_registry_wait_async (registry, "c4", 30, NULL, on_waited, &later);
  wait_for (&later);
  g_assert_cmpint (later.result->status, ==, PRS_TOOL_CALL_FAILED);
  prs_tool_call_result_free (later.result);
}

static void
test_call_with_registry (void)
{
  g_autoptr(PrsCallbackRegistry) registry = prs_callback_registry_new ();
  g_autoptr(PrsToolCallRequest) req = NULL;
  PrsToolCallResult *result;

  hook_reset ();
  hook_answer (200, "application/json", "{\"message\":\"Workflow was started\"}");
  hook_start (0);
  req = make_request (TRUE);
  req->callback_registry = g_object_ref (registry);

  result = run_call (req);
  g_assert_cmpint (result->status, ==, PRS_TOOL_CALL_WAITING_CALLBACK);
  g_assert_true (prs_callback_registry_is_expected (registry, req->tool_call_id));
  prs_tool_call_result_free (result);
  prs_callback_registry_forget (registry, req->tool_call_id);

  /* Any other answer: the id is not kept. */
  hook_answer (200, "application/json", "{\"done\":true}");
  result = run_call (req);
  g_assert_cmpint (result->status, ==, PRS_TOOL_CALL_SUCCEEDED);
  g_assert_false (prs_callback_registry_is_expected (registry, req->tool_call_id));
  prs_tool_call_result_free (result);
}

int
main (int   argc,
      char *argv[])
{
  int ret;

  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/prs/tool-call/envelope", test_envelope);
  g_test_add_func ("/prs/tool-call/no-arguments", test_no_arguments);
  g_test_add_func ("/prs/tool-call/url-forms", test_url_forms);
  g_test_add_func ("/prs/tool-call/answer/json-object", test_answer_json_object);
  g_test_add_func ("/prs/tool-call/answer/json-array", test_answer_json_array);
  g_test_add_func ("/prs/tool-call/answer/success-false", test_answer_success_false);
  g_test_add_func ("/prs/tool-call/answer/error-variants", test_answer_error_variants);
  g_test_add_func ("/prs/tool-call/answer/workflow-started", test_answer_workflow_started);
  g_test_add_func ("/prs/tool-call/answer/empty", test_answer_empty);
  g_test_add_func ("/prs/tool-call/answer/text", test_answer_text);
  g_test_add_func ("/prs/tool-call/answer/exact", test_answer_exact);
  g_test_add_func ("/prs/tool-call/answer/not-found", test_answer_not_found);
  g_test_add_func ("/prs/tool-call/answer/server-error", test_answer_server_error);
  g_test_add_func ("/prs/tool-call/bad-auth-header", test_bad_auth_header);
  g_test_add_func ("/prs/tool-call/retry-refused", test_retry_refused);
  g_test_add_func ("/prs/tool-call/retry-gives-up", test_retry_gives_up);
  g_test_add_func ("/prs/tool-call/timeout-not-retried", test_timeout_not_retried);
  g_test_add_func ("/prs/tool-call/cancel", test_cancel);
  g_test_add_func ("/prs/tool-call/cut-for-model", test_cut_for_model);
  g_test_add_func ("/prs/tool-call/registry/deliver-from-thread", test_registry_deliver_from_thread);
  g_test_add_func ("/prs/tool-call/registry/unknown-and-early", test_registry_unknown_and_early);
  g_test_add_func ("/prs/tool-call/registry/timeout", test_registry_timeout);
  g_test_add_func ("/prs/tool-call/registry/cancel", test_registry_cancel);
  g_test_add_func ("/prs/tool-call/registry/secrets", test_registry_secrets);
  g_test_add_func ("/prs/tool-call/registry/locked", test_registry_locked);
  g_test_add_func ("/prs/tool-call/registry/unstored-waits-again", test_registry_unstored_waits_again);
  g_test_add_func ("/prs/tool-call/with-registry", test_call_with_registry);

  ret = g_test_run ();
  hook_reset ();
  hook_stop ();
  g_clear_pointer (&hook.paused, g_ptr_array_unref);
  g_clear_pointer (&hook.content_type, g_free);
  g_clear_pointer (&hook.body, g_free);
  return ret;
}
