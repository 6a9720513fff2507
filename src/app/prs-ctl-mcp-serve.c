/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-ctl-mcp-serve.c: `prosponsive-ctl mcp serve` (docs/mcp.md), an MCP
 * server on standard input and output for other MCP clients (Claude Code,
 * Zed, another agent): newline-delimited JSON-RPC 2.0, only protocol on
 * standard output, diagnostics on standard error. It offers what the
 * running Prosponsive offers MCP clients, and calls through it: every call
 * is decided in the app (a rule, or a person), and while it waits the
 * client hears progress. The service is reached through the local API
 * with its token (docs/api.md), trusting only the certificate of the data
 * folder. Also `mcp approve|deny CALL`, the same decision through the API.
 * What the client sends is read and answered in prs-mcp-serve.c; this file
 * keeps what needs the service or the standard streams. */
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
#include "prs-mcp-serve.h"

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
  PrsMcpServe     *mcp;
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
write_line (GBytes   *line,
            gpointer  user_data)
{
  Serve *serve = user_data;
  g_autoptr(GError) error = NULL;

  if (!g_output_stream_write_all (serve->output, g_bytes_get_data (line, NULL), g_bytes_get_size (line),
                                  NULL, NULL, &error) ||
      !g_output_stream_write_all (serve->output, "\n", 1, NULL, NULL, &error) ||
      !g_output_stream_flush (serve->output, NULL, &error))
    {
      /* The client is gone: nobody to answer */
      g_printerr (_("mcp serve: could not write to standard output: %s\n"), error->message);
      g_main_loop_quit (serve->loop);
    }
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

static void
on_tools (Serve      *serve,
          guint       status,
          JsonObject *answer,
          GError     *error,
          gpointer    data)
{
  g_autoptr(JsonNode) id = data;
  JsonArray *tools = answer != NULL ? prs_json_object_get_array (answer, "tools") : NULL;

  done_one (serve);
  if (status != SOUP_STATUS_OK || tools == NULL)
    {
      g_autofree char *why = prs_ctl_api_describe_refusal (status, answer, error);

      g_printerr ("mcp serve: %s\n", why);
      prs_mcp_serve_send_error (serve->mcp, id, PRS_MCP_RPC_INTERNAL_ERROR, why);
      return;
    }
  prs_mcp_serve_send_tools (serve->mcp, id, tools);
}

static void
list_tools (JsonNode *id,
            gpointer  user_data)
{
  Serve *serve = user_data;

  serve->in_flight++;
  api_request (serve, SOUP_METHOD_GET, "/api/mcp/tools", NULL, on_tools, json_node_copy (id));
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
  prs_mcp_serve_send_text_result (call->serve->mcp, call->id, text, is_error);
  client_call_free (call);
}

static void
finish_with_result (ClientCall *call,
                    JsonNode   *value)
{
  prs_mcp_serve_send_tool_result (call->serve->mcp, call->id, value);
  client_call_free (call);
}

static void
send_progress (ClientCall *call,
               const char *message,
               JsonObject *tool_progress)
{
  JsonNode *told = tool_progress != NULL ? json_object_get_member (tool_progress, "progress") : NULL;
  GType type = told != NULL && JSON_NODE_HOLDS_VALUE (told) ? json_node_get_value_type (told) : G_TYPE_INVALID;

  if (call->progress_token == NULL)
    return;
  /* Each notification says more than the last (the protocol asks it); the
   * tool's own figure only when it is a number (the answer is not trusted
   * to be of the shape asked for) */
  call->progress += 1;
  if ((type == G_TYPE_DOUBLE || type == G_TYPE_INT64) && json_node_get_double (told) > call->progress)
    call->progress = json_node_get_double (told);
  prs_mcp_serve_send_progress (call->serve->mcp, call->progress_token, call->progress, message);
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
cancel_request (JsonNode *request_id,
                gpointer  user_data)
{
  Serve *serve = user_data;

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
      prs_mcp_serve_send_error (serve->mcp, call->id, PRS_MCP_RPC_INVALID_PARAMS,
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
call_tool (JsonNode   *id,
           const char *name,
           JsonObject *arguments,
           JsonNode   *progress_token,
           gpointer    user_data)
{
  Serve *serve = user_data;
  ClientCall *call = g_new0 (ClientCall, 1);
  JsonObject *body = json_object_new ();

  call->serve = serve;
  call->id = json_node_copy (id);
  g_ptr_array_add (serve->calls, call);
  if (progress_token != NULL)
    call->progress_token = json_node_copy (progress_token);
  json_object_set_string_member (body, "name", name);
  if (arguments != NULL)
    json_object_set_object_member (body, "arguments", json_object_ref (arguments));
  json_object_set_int_member (body, "approvalTimeoutSeconds", serve->approval_timeout);
  serve->in_flight++;
  api_request (serve, SOUP_METHOD_POST, "/api/mcp/tools/call", body, on_call_started, call);
}

/* ---- standard input ---- */

static void read_more (Serve *serve);

static void
on_read (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  Serve *serve = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = g_input_stream_read_bytes_finish (G_INPUT_STREAM (source), result, &error);

  if (bytes == NULL || g_bytes_get_size (bytes) == 0)
    {
      /* The client closed its end: finish the calls under way, then stop */
      prs_mcp_serve_finish (serve->mcp);
      serve->input_done = TRUE;
      if (serve->in_flight == 0)
        g_main_loop_quit (serve->loop);
      return;
    }
  prs_mcp_serve_feed (serve->mcp, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));
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
  g_clear_pointer (&serve->mcp, prs_mcp_serve_free);
  g_clear_pointer (&serve->calls, g_ptr_array_unref);
}

static int
run_serve (PrsCtl *ctl,
           guint   port,
           guint   approval_timeout)
{
  static const PrsMcpServeBackend backend = { write_line, list_tools, call_tool, cancel_request };
  Serve serve = { 0 };

  if (!prs_ctl_api_open (ctl, &serve.api, port, FALSE))
    {
      serve_clear (&serve);
      return PRS_CTL_EXIT_NEGATIVE;
    }
  serve.approval_timeout = approval_timeout;
  serve.loop = g_main_loop_new (NULL, FALSE);
  serve.mcp = prs_mcp_serve_new (&backend, &serve);
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
