/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-mcp-test-util.c: helpers of the mcp suite (prs-mcp-test-util.h). */
#include "config.h"

#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>
#include <glib/gstdio.h>

#include "prs-mcp-http.h"
#include "prs-mcp-stdio.h"
#include "prs-mcp-test-util.h"
#include "prs-test-util.h"

char *
prs_mcp_test_everything_entry (void)
{
  const char *peers = g_getenv ("PRS_MCP_PEERS");
  char *entry;

  g_assert_nonnull (peers);
  entry = g_build_filename (peers, "node_modules", "@modelcontextprotocol", "server-everything", "dist",
                            "index.js", NULL);
  g_assert_true (g_file_test (entry, G_FILE_TEST_EXISTS));
  return entry;
}

PrsMcpClient *
prs_mcp_test_everything_stdio (void)
{
  g_autofree char *entry = prs_mcp_test_everything_entry ();
  const char *args[] = { entry, "stdio", NULL };
  g_autoptr(PrsMcpTransport) transport = prs_mcp_stdio_new ("node", args, NULL);

  return prs_mcp_client_new ("everything", transport);
}

static char *
hostile_script (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "hostile-server.py", NULL);

  /* The servers run in the home folder */
  return g_canonicalize_filename (path, NULL);
}

static char *
make_log_path (void)
{
  g_autoptr(GError) error = NULL;
  char *path = NULL;
  int fd = g_file_open_tmp ("prs-mcp-log-XXXXXX.jsonl", &path, &error);

  g_assert_no_error (error);
  close (fd);
  return path;
}

PrsMcpClient *
prs_mcp_test_hostile_stdio (const char  *mode,
                            char       **out_log)
{
  g_autofree char *script = hostile_script ();
  g_autofree char *log = make_log_path ();
  const char *args[] = { script, "--mode", mode, "--log", log, NULL };
  g_autoptr(PrsMcpTransport) transport = prs_mcp_stdio_new ("python3", args, NULL);
  g_autofree char *name = g_strdup_printf ("hostile-%s", mode);

  if (out_log != NULL)
    *out_log = g_steal_pointer (&log);
  else
    g_unlink (log);
  return prs_mcp_client_new (name, transport);
}

GPtrArray *
prs_mcp_test_read_log (const char *path)
{
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  GPtrArray *objects = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);

  if (!g_file_get_contents (path, &text, NULL, NULL))
    return objects;
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      JsonNode *node;

      if (lines[i][0] == '\0')
        continue;
      node = json_from_string (lines[i], NULL);
      g_assert_nonnull (node);
      g_ptr_array_add (objects, node);
    }
  return objects;
}

static void
die_with_parent (gpointer data)
{
  prctl (PR_SET_PDEATHSIG, SIGKILL);
}

/* What the server prints after it is ready is read and dropped, so that
 * it never blocks on (or dies of) a full or closed pipe. */
static void
on_drained (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(GBytes) bytes = g_input_stream_read_bytes_finish (G_INPUT_STREAM (source), result, NULL);

  if (bytes != NULL && g_bytes_get_size (bytes) > 0)
    g_input_stream_read_bytes_async (G_INPUT_STREAM (source), 65536, G_PRIORITY_DEFAULT, NULL, on_drained, NULL);
}

static PrsMcpTestServer *
start_server (const char * const *argv,
              const char         *port_env,
              gboolean            port_on_stdout)
{
  PrsMcpTestServer *server = g_new0 (PrsMcpTestServer, 1);
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GDataInputStream) out = NULL;
  g_autoptr(GError) error = NULL;

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_MERGE);
  g_subprocess_launcher_set_child_setup (launcher, die_with_parent, NULL, NULL);
  if (port_env != NULL)
    {
      g_autofree char *port = NULL;

      server->port = prs_test_free_port ();
      port = g_strdup_printf ("%u", server->port);
      g_subprocess_launcher_setenv (launcher, port_env, port, TRUE);
    }
  server->process = g_subprocess_launcher_spawnv (launcher, argv, &error);
  g_assert_no_error (error);

  /* Ready once it says so: hostile-server.py prints its port first,
   * server-everything says it is listening */
  out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (server->process));
  for (;;)
    {
      g_autofree char *line = g_data_input_stream_read_line (out, NULL, NULL, &error);

      g_assert_no_error (error);
      g_assert_nonnull (line);
      if (port_on_stdout)
        {
          server->port = (guint) g_ascii_strtoull (line, NULL, 10);
          break;
        }
      if (strstr (line, "listening on port") != NULL)
        break;
    }
  g_assert_cmpuint (server->port, >, 0);
  g_input_stream_read_bytes_async (G_INPUT_STREAM (out), 65536, G_PRIORITY_DEFAULT, NULL, on_drained, NULL);
  server->url = g_strdup_printf ("http://127.0.0.1:%u/mcp", server->port);
  return server;
}

PrsMcpTestServer *
prs_mcp_test_everything_http (void)
{
  g_autofree char *entry = prs_mcp_test_everything_entry ();
  const char *argv[] = { "node", entry, "streamableHttp", NULL };

  return start_server (argv, "PORT", FALSE);
}

PrsMcpTestServer *
prs_mcp_test_hostile_http (const char *mode)
{
  g_autofree char *script = hostile_script ();
  g_autofree char *log = make_log_path ();
  const char *argv[] = { "python3", script, "--http", "--mode", mode, "--log", log, NULL };
  PrsMcpTestServer *server = start_server (argv, NULL, TRUE);

  server->log_path = g_steal_pointer (&log);
  return server;
}

void
prs_mcp_test_server_stop (PrsMcpTestServer *server)
{
  g_subprocess_force_exit (server->process);
  g_subprocess_wait (server->process, NULL, NULL);
  g_object_unref (server->process);
  if (server->log_path != NULL)
    g_unlink (server->log_path);
  g_free (server->log_path);
  g_free (server->url);
  g_free (server);
}

/* ---- Waiting ---- */

typedef struct
{
  GMainLoop    *loop;
  GAsyncResult *result;
  guint         progress;
} Wait;

static void
on_done (GObject      *source,
         GAsyncResult *result,
         gpointer      data)
{
  Wait *wait = data;

  wait->result = g_object_ref (result);
  g_main_loop_quit (wait->loop);
}

static void
on_progress (double      progress,
             double      total,
             const char *message,
             gpointer    data)
{
  Wait *wait = data;

  g_assert_cmpfloat (progress, >, 0);
  wait->progress++;
}

gboolean
prs_mcp_test_connect (PrsMcpClient  *client,
                      GError       **error)
{
  Wait wait = { g_main_loop_new (NULL, FALSE), NULL, 0 };
  gboolean ok;

  prs_mcp_client_connect_async (client, NULL, on_done, &wait);
  g_main_loop_run (wait.loop);
  ok = prs_mcp_client_connect_finish (client, wait.result, error);
  g_object_unref (wait.result);
  g_main_loop_unref (wait.loop);
  return ok;
}

JsonNode *
prs_mcp_test_call (PrsMcpClient  *client,
                   const char    *tool,
                   const char    *arguments_json,
                   GCancellable  *cancellable,
                   guint         *out_progress,
                   GError       **error)
{
  Wait wait = { g_main_loop_new (NULL, FALSE), NULL, 0 };
  g_autoptr(JsonNode) arguments = json_from_string (arguments_json != NULL ? arguments_json : "{}", NULL);
  JsonNode *node;

  g_assert_nonnull (arguments);
  prs_mcp_client_call_tool_async (client, tool, json_node_get_object (arguments),
                                  on_progress, &wait, NULL, cancellable, on_done, &wait);
  g_main_loop_run (wait.loop);
  node = prs_mcp_client_call_tool_finish (client, wait.result, error);
  if (out_progress != NULL)
    *out_progress = wait.progress;
  g_object_unref (wait.result);
  g_main_loop_unref (wait.loop);
  return node;
}

GPtrArray *
prs_mcp_test_list (PrsMcpClient  *client,
                   GError       **error)
{
  Wait wait = { g_main_loop_new (NULL, FALSE), NULL, 0 };
  GPtrArray *tools;

  prs_mcp_client_list_tools_async (client, NULL, on_done, &wait);
  g_main_loop_run (wait.loop);
  tools = prs_mcp_client_list_tools_finish (client, wait.result, error);
  g_object_unref (wait.result);
  g_main_loop_unref (wait.loop);
  return tools;
}

static gboolean
on_wait_timeout (gpointer data)
{
  g_main_loop_quit (data);
  return G_SOURCE_REMOVE;
}

gboolean
prs_mcp_test_wait_until (gboolean (*done) (gpointer data),
                         gpointer   data,
                         guint      timeout_ms)
{
  gint64 end = g_get_monotonic_time () + (gint64) timeout_ms * 1000;

  while (!done (data))
    {
      g_autoptr(GMainLoop) loop = NULL;

      if (g_get_monotonic_time () >= end)
        return FALSE;
      loop = g_main_loop_new (NULL, FALSE);
      g_timeout_add (20, on_wait_timeout, loop);
      g_main_loop_run (loop);
    }
  return TRUE;
}

void
prs_mcp_test_async_done (GObject      *source,
                         GAsyncResult *result,
                         gpointer      data)
{
  *(GAsyncResult **) data = g_object_ref (result);
}
