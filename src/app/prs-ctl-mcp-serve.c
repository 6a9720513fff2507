/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-ctl-mcp-serve.c: `prosponsive-ctl mcp serve` (docs/mcp.md), an MCP
 * server on standard input and output for other MCP clients (Claude Code,
 * Zed, another agent): newline-delimited JSON-RPC 2.0, only protocol on
 * standard output, diagnostics on standard error. It offers what the
 * running Prosponsive offers MCP clients, and calls through it: every call
 * is decided in the app (a rule, or a person), and while it waits the
 * client hears progress. The service is reached through the local API
 * with its token (docs/api.md), trusting only the certificate of the data
 * folder. Also `mcp approve|deny CALL`, the same decision through the API. */
#include "config.h"

#include <string.h>

#include <gio/gunixinputstream.h>
#include <gio/gunixoutputstream.h>
#include <glib/gi18n.h>

#include "prs-ctl.h"
#include "prs-ctl-api.h"
#include "prs-ctl-mcp-serve.h"
#include "prs-http-request.h"
#include "prs-json.h"
#include "prs-mcp-client.h"
#include "prs-mcp-message.h"

/* A client's message: as large as ours to servers may be */
#define MAX_LINE          PRS_MCP_DEFAULT_MAX_MESSAGE
#define MAX_DEPTH         64
/* How long the service holds a look at a call's state that has nothing
 * new (docs/api.md): a change is heard at once, and while nothing changes
 * the client still hears progress this often, so it knows to wait */
#define WAIT_SECONDS      5
/* A service that answers at once though nothing changed (one older than
 * this program) is asked again after this, not in a busy loop */
#define RETRY_MS          500
#define DEFAULT_TIMEOUT   600

typedef struct
{
  GMainLoop       *loop;
  PrsCtlApi        api;
  guint            approval_timeout;
  GInputStream    *input;
  GOutputStream   *output;
  GString         *buffer;
  guint            in_flight;
  GPtrArray       *calls;        /* ClientCall*, not owned: the client's calls under way */
  gboolean         input_done;
  gboolean         said_down;
} Serve;

/* One API exchange: its answer's status and JSON, or an error in words */
typedef void (*ApiDone) (Serve      *serve,
                         guint       status,
                         JsonObject *answer,
                         GError     *error,
                         gpointer    data);

typedef struct
{
  Serve    *serve;
  ApiDone   done;
  gpointer  data;
} ApiCall;

/* ---- standard output: protocol only ---- */

static void
send_message (Serve      *serve,
              JsonObject *message)
{
  g_autoptr(GBytes) bytes = prs_mcp_message_serialize (message);
  g_autoptr(GError) error = NULL;

  json_object_unref (message);
  if (!g_output_stream_write_all (serve->output, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes),
                                  NULL, NULL, &error) ||
      !g_output_stream_write_all (serve->output, "\n", 1, NULL, NULL, &error) ||
      !g_output_stream_flush (serve->output, NULL, &error))
    {
      /* The client is gone: nobody to answer */
      g_printerr (_("mcp serve: could not write to standard output: %s\n"), error->message);
      g_main_loop_quit (serve->loop);
    }
}

static void
send_error (Serve      *serve,
            JsonNode   *id,
            int         code,
            const char *text)
{
  send_message (serve, prs_mcp_message_new_error (id, code, text));
}

/* ---- the local API ---- */

static void
on_api_answer (guint       status,
               JsonObject *answer,
               GError     *error,
               gpointer    data)
{
  ApiCall *call = data;

  call->done (call->serve, status, answer, error, call->data);
  g_free (call);
}

/* @method @path with @body (taken; NULL: none) */
static void
api_request (Serve      *serve,
             const char *method,
             const char *path,
             JsonObject *body,
             ApiDone     done,
             gpointer    data)
{
  ApiCall *call = g_new0 (ApiCall, 1);

  call->serve = serve;
  call->done = done;
  call->data = data;
  prs_ctl_api_request (&serve->api, method, path, body, on_api_answer, call);
}

/* A request of the client is answered: once its input ended and nothing
 * is left to answer, serve ends */
static void
done_one (Serve *serve)
{
  serve->in_flight--;
  if (serve->input_done && serve->in_flight == 0)
    g_main_loop_quit (serve->loop);
}

/* ---- tools/list ---- */

static JsonObject *
client_tool (JsonObject *tool)
{
  JsonObject *out = json_object_new ();
  JsonObject *schema = prs_json_object_get_object (tool, "inputSchema");

  json_object_set_string_member (out, "name", prs_json_object_get_string (tool, "name"));
  json_object_set_string_member (out, "description", prs_json_object_get_string (tool, "description"));
  json_object_set_object_member (out, "inputSchema", schema != NULL ? json_object_ref (schema) : json_object_new ());
  return out;
}

static void
on_tools (Serve      *serve,
          guint       status,
          JsonObject *answer,
          GError     *error,
          gpointer    data)
{
  g_autoptr(JsonNode) id = data;
  JsonArray *tools = answer != NULL ? prs_json_object_get_array (answer, "tools") : NULL;
  JsonArray *out;
  JsonObject *result;

  done_one (serve);
  if (status != SOUP_STATUS_OK || tools == NULL)
    {
      g_autofree char *why = prs_ctl_api_describe_refusal (status, answer, error);

      g_printerr ("mcp serve: %s\n", why);
      send_error (serve, id, PRS_MCP_RPC_INTERNAL_ERROR, why);
      return;
    }
  out = json_array_new ();
  for (guint i = 0; i < json_array_get_length (tools); i++)
    {
      JsonNode *tool = json_array_get_element (tools, i);

      if (JSON_NODE_HOLDS_OBJECT (tool) && prs_json_object_get_string (json_node_get_object (tool), "name") != NULL)
        json_array_add_object_element (out, client_tool (json_node_get_object (tool)));
    }
  result = json_object_new ();
  json_object_set_array_member (result, "tools", out);
  send_message (serve, prs_mcp_message_new_result (id, result));
}

/* ---- tools/call ---- */

typedef struct
{
  Serve    *serve;
  JsonNode *id;
  JsonNode *progress_token;   /* NULL: the client wants no progress */
  char     *call_id;
  char     *revision;    /* of the last state heard (docs/api.md) */
  double    progress;
  gint64    asked;       /* when the look under way was sent */
  guint     poll_id;     /* a pause before the next look */
  guint     exchanges;   /* API requests under way for it */
  gboolean  cancelled;   /* by the client: it gets no answer */
} ClientCall;

static void
client_call_free (ClientCall *call)
{
  Serve *serve = call->serve;

  g_ptr_array_remove (serve->calls, call);
  g_clear_handle_id (&call->poll_id, g_source_remove);
  g_clear_pointer (&call->id, json_node_unref);
  g_clear_pointer (&call->progress_token, json_node_unref);
  g_free (call->call_id);
  g_free (call->revision);
  g_free (call);
  done_one (serve);
}

/* A result the client's model reads: the tool's failure in words */
static void
finish_with_text (ClientCall *call,
                  const char *text,
                  gboolean    is_error)
{
  JsonObject *result = json_object_new ();
  JsonArray *content = json_array_new ();
  JsonObject *item = json_object_new ();

  json_object_set_string_member (item, "type", "text");
  json_object_set_string_member (item, "text", text);
  json_array_add_object_element (content, item);
  json_object_set_array_member (result, "content", content);
  json_object_set_boolean_member (result, "isError", is_error);
  send_message (call->serve, prs_mcp_message_new_result (call->id, result));
  client_call_free (call);
}

/* An MCP tool's result keeps its text and structured content; an n8n
 * tool's JSON is given as text, and as structured content when an object */
static void
finish_with_result (ClientCall *call,
                    JsonNode   *value)
{
  JsonObject *object = value != NULL && JSON_NODE_HOLDS_OBJECT (value) ? json_node_get_object (value) : NULL;
  const char *text = object != NULL ? prs_json_object_get_string (object, "text") : NULL;
  JsonObject *structured = object != NULL ? prs_json_object_get_object (object, "structured") : NULL;
  g_autofree char *json = NULL;
  JsonObject *result = json_object_new ();
  JsonArray *content = json_array_new ();
  JsonObject *item = json_object_new ();

  if (text == NULL)
    {
      json = value != NULL ? prs_json_to_string (value, FALSE) : g_strdup ("null");
      text = json;
      if (object != NULL)
        structured = object;
    }
  json_object_set_string_member (item, "type", "text");
  json_object_set_string_member (item, "text", text);
  json_array_add_object_element (content, item);
  json_object_set_array_member (result, "content", content);
  if (structured != NULL)
    json_object_set_object_member (result, "structuredContent", json_object_ref (structured));
  json_object_set_boolean_member (result, "isError", FALSE);
  send_message (call->serve, prs_mcp_message_new_result (call->id, result));
  client_call_free (call);
}

static void
send_progress (ClientCall *call,
               const char *message,
               JsonObject *tool_progress)
{
  JsonObject *params;

  if (call->progress_token == NULL)
    return;
  params = json_object_new ();
  /* Each notification says more than the last (the protocol asks it) */
  call->progress += 1;
  if (tool_progress != NULL && json_object_has_member (tool_progress, "progress") &&
      json_object_get_double_member (tool_progress, "progress") > call->progress)
    call->progress = json_object_get_double_member (tool_progress, "progress");
  json_object_set_member (params, "progressToken", json_node_copy (call->progress_token));
  json_object_set_double_member (params, "progress", call->progress);
  if (message != NULL)
    json_object_set_string_member (params, "message", message);
  send_message (call->serve, prs_mcp_message_new_notification ("notifications/progress", params));
}

static void poll_call (ClientCall *call);

static gboolean
on_poll_timeout (gpointer data)
{
  ClientCall *call = data;

  call->poll_id = 0;
  poll_call (call);
  return G_SOURCE_REMOVE;
}

/* ---- notifications/cancelled ---- */

static void
on_cancel_answer (Serve      *serve,
                  guint       status,
                  JsonObject *answer,
                  GError     *error,
                  gpointer    data)
{
  ClientCall *call = data;

  if (status == SOUP_STATUS_OK)
    g_printerr (_("mcp serve: the client cancelled call %s; Prosponsive stopped it.\n"), call->call_id);
  else
    {
      g_autofree char *why = prs_ctl_api_describe_refusal (status, answer, error);

      g_printerr (_("mcp serve: the client cancelled call %s, but Prosponsive could not stop it: %s\n"),
                  call->call_id, why);
    }
  call->exchanges--;
  if (call->exchanges == 0)
    client_call_free (call);
}

/* Tells the service; the client hears nothing more of the call (a
 * cancelled request gets no answer) */
static void
send_cancel (ClientCall *call)
{
  g_autofree char *escaped = NULL;
  g_autofree char *path = NULL;

  if (call->call_id == NULL)
    {
      client_call_free (call);
      return;
    }
  escaped = g_uri_escape_string (call->call_id, NULL, FALSE);
  path = g_strconcat ("/api/mcp/tools/calls/", escaped, "/cancel", NULL);
  call->exchanges++;
  api_request (call->serve, SOUP_METHOD_POST, path, json_object_new (), on_cancel_answer, call);
}

/* The client's notifications/cancelled for one of its requests: the
 * service is told at once, also while a look at the call's state waits
 * there (its answer is then dropped); a call whose start is under way is
 * cancelled when the service says which it is. Unknown or finished
 * requests are ignored, as the protocol asks. */
static void
cancel_request (Serve      *serve,
                JsonObject *params)
{
  JsonNode *request_id = params != NULL ? json_object_get_member (params, "requestId") : NULL;

  if (request_id == NULL || !JSON_NODE_HOLDS_VALUE (request_id))
    return;
  for (guint i = 0; i < serve->calls->len; i++)
    {
      ClientCall *call = g_ptr_array_index (serve->calls, i);

      if (call->cancelled || !json_node_equal (call->id, request_id))
        continue;
      call->cancelled = TRUE;
      g_clear_handle_id (&call->poll_id, g_source_remove);
      if (call->call_id != NULL)
        send_cancel (call);
      return;
    }
}

/* What the client hears while the call is not done yet; then the next
 * look. @changed: the state is not the one heard before. */
static void
say_pending (ClientCall *call,
             const char *state,
             JsonObject *answer,
             gboolean    changed)
{
  JsonObject *progress = prs_json_object_get_object (answer, "progress");
  const char *tool_message = progress != NULL ? prs_json_object_get_string (progress, "message") : NULL;
  g_autofree char *message = NULL;

  if (g_strcmp0 (state, "awaiting_approval") == 0)
    message = g_strdup (_("Waiting for a person to approve the call in Prosponsive…"));
  else if (tool_message != NULL)
    message = prs_http_clean_text (tool_message, 1000);
  else
    message = g_strdup (g_strcmp0 (state, "queued") == 0 ? _("Waiting for a free slot in Prosponsive…")
                                                          : _("The tool is running…"));
  send_progress (call, message, progress);
  if (!changed && g_get_monotonic_time () - call->asked < (WAIT_SECONDS - 1) * G_USEC_PER_SEC)
    call->poll_id = g_timeout_add (RETRY_MS, on_poll_timeout, call);
  else
    poll_call (call);
}

static void
on_call_state (Serve      *serve,
               guint       status,
               JsonObject *answer,
               GError     *error,
               gpointer    data)
{
  ClientCall *call = data;
  const char *state = answer != NULL ? prs_json_object_get_string (answer, "status") : NULL;
  const char *said = answer != NULL ? prs_json_object_get_string (answer, "error") : NULL;
  g_autofree char *text = NULL;

  call->exchanges--;
  if (call->cancelled)
    {
      /* The service was told already; nothing is said to the client */
      if (call->exchanges == 0)
        client_call_free (call);
    }
  else if (status != SOUP_STATUS_OK || state == NULL)
    {
      text = prs_ctl_api_describe_refusal (status, answer, error);
      g_printerr ("mcp serve: %s\n", text);
      finish_with_text (call, text, TRUE);
    }
  else if (g_strcmp0 (state, "succeeded") == 0)
    finish_with_result (call, json_object_get_member (answer, "result"));
  else if (g_strcmp0 (state, "denied") == 0)
    {
      text = g_strdup_printf (_("The call was denied in Prosponsive: %s"), said != NULL ? said : "");
      finish_with_text (call, text, TRUE);
    }
  else if (g_strcmp0 (state, "timed_out") == 0)
    {
      text = g_strdup_printf (_("The call timed out in Prosponsive: %s"), said != NULL ? said : "");
      finish_with_text (call, text, TRUE);
    }
  else if (g_strcmp0 (state, "failed") == 0)
    {
      text = g_strdup_printf (_("The tool failed: %s"), said != NULL ? said : _("no reason was given"));
      finish_with_text (call, text, TRUE);
    }
  else if (g_strcmp0 (state, "cancelled") == 0)
    {
      /* Stopped in Prosponsive (the client's own cancel is handled above) */
      text = g_strdup_printf (_("The call was cancelled in Prosponsive: %s"), said != NULL ? said : "");
      finish_with_text (call, text, TRUE);
    }
  else
    {
      const char *revision = prs_json_object_get_string (answer, "revision");
      gboolean changed = g_strcmp0 (revision, call->revision) != 0;

      g_free (call->revision);
      call->revision = g_strdup (revision);
      say_pending (call, state, answer, changed);
    }
}

/* The call's state: at once the first time, then held by the service
 * until it differs from the last one heard (a long poll, docs/api.md) */
static void
poll_call (ClientCall *call)
{
  g_autofree char *escaped = g_uri_escape_string (call->call_id, NULL, FALSE);
  g_autofree char *path = NULL;

  if (call->revision == NULL)
    path = g_strconcat ("/api/mcp/tools/calls/", escaped, NULL);
  else
    {
      g_autofree char *revision = g_uri_escape_string (call->revision, NULL, FALSE);

      path = g_strdup_printf ("/api/mcp/tools/calls/%s?wait=%d&revision=%s", escaped, WAIT_SECONDS, revision);
    }
  call->asked = g_get_monotonic_time ();
  call->exchanges++;
  api_request (call->serve, SOUP_METHOD_GET, path, NULL, on_call_state, call);
}

static void
on_call_started (Serve      *serve,
                 guint       status,
                 JsonObject *answer,
                 GError     *error,
                 gpointer    data)
{
  ClientCall *call = data;
  const char *call_id = answer != NULL ? prs_json_object_get_string (answer, "callId") : NULL;

  if (call->cancelled)
    {
      /* Cancelled before the service said which call it is */
      call->call_id = status == SOUP_STATUS_ACCEPTED ? g_strdup (call_id) : NULL;
      send_cancel (call);
      return;
    }
  if (status == SOUP_STATUS_NOT_FOUND && error == NULL)
    {
      send_error (serve, call->id, PRS_MCP_RPC_INVALID_PARAMS,
                  _("No tool of this name is offered to MCP clients by Prosponsive."));
      client_call_free (call);
      return;
    }
  if (status != SOUP_STATUS_ACCEPTED || call_id == NULL)
    {
      g_autofree char *why = prs_ctl_api_describe_refusal (status, answer, error);

      g_printerr ("mcp serve: %s\n", why);
      finish_with_text (call, why, TRUE);
      return;
    }
  call->call_id = g_strdup (call_id);
  g_printerr (_("mcp serve: call %s started; it shows in the “MCP clients” conversation.\n"), call_id);
  poll_call (call);
}

static void
start_call (Serve      *serve,
            JsonNode   *id,
            JsonObject *params)
{
  const char *name = params != NULL ? prs_json_object_get_string (params, "name") : NULL;
  JsonNode *arguments = params != NULL ? json_object_get_member (params, "arguments") : NULL;
  JsonObject *meta = params != NULL ? prs_json_object_get_object (params, "_meta") : NULL;
  JsonNode *token = meta != NULL ? json_object_get_member (meta, "progressToken") : NULL;
  JsonObject *body;
  ClientCall *call;

  if (name == NULL || (arguments != NULL && !JSON_NODE_HOLDS_OBJECT (arguments) && !JSON_NODE_HOLDS_NULL (arguments)))
    {
      send_error (serve, id, PRS_MCP_RPC_INVALID_PARAMS,
                  _("tools/call needs a tool name (a string) and arguments as an object."));
      return;
    }
  call = g_new0 (ClientCall, 1);
  call->serve = serve;
  call->id = json_node_copy (id);
  g_ptr_array_add (serve->calls, call);
  if (token != NULL && JSON_NODE_HOLDS_VALUE (token))
    call->progress_token = json_node_copy (token);
  body = json_object_new ();
  json_object_set_string_member (body, "name", name);
  if (arguments != NULL && JSON_NODE_HOLDS_OBJECT (arguments))
    json_object_set_object_member (body, "arguments", json_object_ref (json_node_get_object (arguments)));
  json_object_set_int_member (body, "approvalTimeoutSeconds", serve->approval_timeout);
  serve->in_flight++;
  api_request (serve, SOUP_METHOD_POST, "/api/mcp/tools/call", body, on_call_started, call);
}

/* ---- the client's messages ---- */

static JsonObject *
initialize_result (JsonObject *params)
{
  JsonObject *result = json_object_new ();
  JsonObject *capabilities = json_object_new ();
  JsonObject *tools = json_object_new ();
  JsonObject *info = json_object_new ();
  const char *asked = params != NULL ? prs_json_object_get_string (params, "protocolVersion") : NULL;

  json_object_set_string_member (result, "protocolVersion", prs_mcp_message_negotiate_version (asked));
  json_object_set_boolean_member (tools, "listChanged", FALSE);
  json_object_set_object_member (capabilities, "tools", tools);
  json_object_set_object_member (result, "capabilities", capabilities);
  json_object_set_string_member (info, "name", "prosponsive");
  json_object_set_string_member (info, "version", PACKAGE_VERSION);
  json_object_set_object_member (result, "serverInfo", info);
  json_object_set_string_member (result, "instructions",
                                 "Tools of the user's Prosponsive: n8n workflows and shared MCP servers. "
                                 "A call may wait until the user approves it in Prosponsive.");
  return result;
}

static void
handle_request (Serve      *serve,
                JsonNode   *id,
                const char *method,
                JsonObject *params)
{
  if (strcmp (method, "initialize") == 0)
    send_message (serve, prs_mcp_message_new_result (id, initialize_result (params)));
  else if (strcmp (method, "ping") == 0)
    send_message (serve, prs_mcp_message_new_result (id, NULL));
  else if (strcmp (method, "tools/list") == 0)
    {
      serve->in_flight++;
      api_request (serve, SOUP_METHOD_GET, "/api/mcp/tools", NULL, on_tools, json_node_copy (id));
    }
  else if (strcmp (method, "tools/call") == 0)
    start_call (serve, id, params);
  else
    {
      g_autofree char *text = g_strdup_printf ("Method not found: %s", method);

      send_error (serve, id, PRS_MCP_RPC_METHOD_NOT_FOUND, text);
    }
}

static void
handle_line (Serve      *serve,
             const char *line,
             gsize       len)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) root = NULL;
  JsonObject *object;
  JsonNode *id;
  const char *method;
  JsonNode *params;

  if (len == 0)
    return;
  root = prs_json_parse_strict (line, len, MAX_DEPTH, &error);
  if (root == NULL)
    {
      send_error (serve, NULL, PRS_MCP_RPC_PARSE_ERROR, "Parse error: a message must be one line of JSON.");
      return;
    }
  object = JSON_NODE_HOLDS_OBJECT (root) ? json_node_get_object (root) : NULL;
  id = object != NULL ? json_object_get_member (object, "id") : NULL;
  method = object != NULL ? prs_json_object_get_string (object, "method") : NULL;
  params = object != NULL ? json_object_get_member (object, "params") : NULL;
  if (object == NULL || g_strcmp0 (prs_json_object_get_string (object, "jsonrpc"), "2.0") != 0 ||
      (id != NULL && !JSON_NODE_HOLDS_VALUE (id)) || (params != NULL && !JSON_NODE_HOLDS_OBJECT (params)))
    {
      send_error (serve, id != NULL && JSON_NODE_HOLDS_VALUE (id) ? id : NULL, PRS_MCP_RPC_INVALID_REQUEST,
                  "Invalid Request: a JSON-RPC 2.0 object was expected.");
      return;
    }
  /* Notifications and answers need no answer; a cancelled request is
   * stopped in Prosponsive too */
  if (method != NULL && id == NULL && strcmp (method, "notifications/cancelled") == 0)
    cancel_request (serve, params != NULL ? json_node_get_object (params) : NULL);
  if (method == NULL || id == NULL)
    return;
  handle_request (serve, id, method, params != NULL ? json_node_get_object (params) : NULL);
}

static void read_more (Serve *serve);

static void
on_read (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  Serve *serve = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = g_input_stream_read_bytes_finish (G_INPUT_STREAM (source), result, &error);
  const char *newline;
  gsize start = 0;

  if (bytes == NULL || g_bytes_get_size (bytes) == 0)
    {
      /* The client closed its end: finish the calls under way, then stop */
      serve->input_done = TRUE;
      if (serve->in_flight == 0)
        g_main_loop_quit (serve->loop);
      return;
    }
  g_string_append_len (serve->buffer, g_bytes_get_data (bytes, NULL), (gssize) g_bytes_get_size (bytes));
  /* Every whole line, then what they took erased once: erased line by
   * line, a read of many short lines would move the rest each time */
  while ((newline = memchr (serve->buffer->str + start, '\n', serve->buffer->len - start)) != NULL)
    {
      const char *line = serve->buffer->str + start;
      gsize len = (gsize) (newline - line);

      handle_line (serve, line, len > 0 && newline[-1] == '\r' ? len - 1 : len);
      start += len + 1;
    }
  g_string_erase (serve->buffer, 0, (gssize) start);
  if (serve->buffer->len > MAX_LINE)
    {
      send_error (serve, NULL, PRS_MCP_RPC_PARSE_ERROR, "Parse error: a message is larger than 4 MiB.");
      g_string_truncate (serve->buffer, 0);
    }
  read_more (serve);
}

static void
read_more (Serve *serve)
{
  g_input_stream_read_bytes_async (serve->input, 64 * 1024, G_PRIORITY_DEFAULT, NULL, on_read, serve);
}

/* ---- the connection to the service ---- */

static void
serve_clear (Serve *serve)
{
  g_clear_pointer (&serve->loop, g_main_loop_unref);
  prs_ctl_api_clear (&serve->api);
  g_clear_object (&serve->input);
  g_clear_object (&serve->output);
  if (serve->buffer != NULL)
    g_string_free (serve->buffer, TRUE);
  g_clear_pointer (&serve->calls, g_ptr_array_unref);
}

static int
run_serve (PrsCtl *ctl,
           guint   port,
           guint   approval_timeout)
{
  Serve serve = { 0 };

  if (!prs_ctl_api_open (ctl, &serve.api, port, FALSE))
    {
      serve_clear (&serve);
      return PRS_CTL_EXIT_NEGATIVE;
    }
  serve.approval_timeout = approval_timeout;
  serve.loop = g_main_loop_new (NULL, FALSE);
  serve.buffer = g_string_new (NULL);
  serve.calls = g_ptr_array_new ();
  serve.input = g_unix_input_stream_new (STDIN_FILENO, FALSE);
  serve.output = g_unix_output_stream_new (STDOUT_FILENO, FALSE);
  g_printerr (_("mcp serve: offering the tools of Prosponsive at %s on standard input and output.\n"),
              serve.api.base_url);
  read_more (&serve);
  g_main_loop_run (serve.loop);
  serve_clear (&serve);
  return 0;
}

int
prs_ctl_cmd_mcp_serve (PrsCtl  *ctl,
                       int      argc,
                       char   **argv)
{
  int port = 0, timeout = DEFAULT_TIMEOUT;
  GOptionEntry entries[] = {
    { "port", 0, 0, G_OPTION_ARG_INT, &port, N_("The local API's port (default: the one the running Prosponsive published, else the one in the settings)"), N_("PORT") },
    { "approval-timeout", 0, 0, G_OPTION_ARG_INT, &timeout,
      N_("serve: seconds a call waits for a person before it times out (default 600)"), N_("SECONDS") },
    { NULL }
  };
  g_autoptr(GOptionContext) context =
    g_option_context_new (_("serve | approve CALL | deny CALL — offer Prosponsive's tools to other MCP clients"));
  g_autoptr(GError) error = NULL;

  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return prs_ctl_usage_error (context, error->message);
  if (port < 0 || port > 65535)
    return prs_ctl_usage_error (context, _("--port must be between 1 and 65535."));
  if (timeout < 1 || timeout > 86400)
    return prs_ctl_usage_error (context, _("--approval-timeout must be between 1 and 86400 seconds."));
  if (argc == 2 && g_str_equal (argv[1], "serve"))
    return run_serve (ctl, (guint) port, (guint) timeout);
  if (argc == 3 && (g_str_equal (argv[1], "approve") || g_str_equal (argv[1], "deny")))
    return prs_ctl_decide (ctl, (guint) port, argv[2], g_str_equal (argv[1], "approve"));
  return prs_ctl_usage_error (context, _("Use “mcp serve [--approval-timeout SECONDS]”, “mcp approve CALL” "
                                         "or “mcp deny CALL”."));
}
