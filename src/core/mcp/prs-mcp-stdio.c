/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-mcp-stdio.c: MCP over a child process's stdin and stdout
 * (prs-mcp-stdio.h). Each started process is one Run; callbacks of a Run
 * that is no longer current are ignored, so a restart never mixes the
 * output of two processes. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>
#include <glib/gi18n-lib.h>

#include "prs-error.h"
#include "prs-event-stream.h"
#include "prs-http-request.h"
#include "prs-mcp-stdio.h"
#include "prs-mcp-tool.h"

#define READ_CHUNK       65536
/* Bytes of stderr kept for error messages. */
#define STDERR_KEEP      8192
/* After closing stdin: SIGTERM at once, SIGKILL if still running after this. */
#define KILL_GRACE_MS    2000
#define DIAGNOSTIC_LINES 5

typedef struct
{
  gatomicrefcount  ref;
  GSubprocess     *process;
  GCancellable    *cancellable;
  PrsEventStream  *lines;
  GError          *fatal;      /* why we stopped reading, when it was our decision */
  gboolean         exited;
  gboolean         stdout_done;
  struct _PrsMcpStdio *owner;  /* not a reference: cleared when the transport lets the run go */
} Run;

struct _PrsMcpStdio
{
  PrsMcpTransport  parent_instance;

  char            *command;
  char           **args;
  char           **env;

  Run             *run;
  GQueue           writes;     /* GTask*, the head being written */
  GString         *stderr_tail;
};

G_DEFINE_FINAL_TYPE (PrsMcpStdio, prs_mcp_stdio, PRS_TYPE_MCP_TRANSPORT)

static Run *
run_ref (Run *run)
{
  g_atomic_ref_count_inc (&run->ref);
  return run;
}

static void
run_unref (Run *run)
{
  if (!g_atomic_ref_count_dec (&run->ref))
    return;
  g_clear_object (&run->process);
  g_clear_object (&run->cancellable);
  g_clear_pointer (&run->lines, prs_event_stream_free);
  g_clear_error (&run->fatal);
  g_free (run);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Run, run_unref)

/* ---- Ending a process ---- */

static void
signal_group (GSubprocess *process,
              int          signum)
{
  const char *id = g_subprocess_get_identifier (process);
  gint64 pid = id != NULL ? g_ascii_strtoll (id, NULL, 10) : 0;

  /* The server runs in its own process group (see child_setup), so what
   * it started goes with it. */
  if (pid > 1)
    kill (-(pid_t) pid, signum);
}

static gboolean
kill_late (gpointer data)
{
  GSubprocess *process = data;

  if (g_subprocess_get_identifier (process) != NULL)
    signal_group (process, SIGKILL);
  return G_SOURCE_REMOVE;
}

static void
end_process (Run *run)
{
  GOutputStream *in = g_subprocess_get_stdin_pipe (run->process);

  g_output_stream_close (in, NULL, NULL);
  if (g_subprocess_get_identifier (run->process) == NULL)
    return;
  signal_group (run->process, SIGTERM);
  g_timeout_add_full (G_PRIORITY_DEFAULT, KILL_GRACE_MS, kill_late,
                      g_object_ref (run->process), g_object_unref);
}

/* Reads the next chunk of one of @run's pipes; the read owns @run. */
static void
read_more (GInputStream        *stream,
           Run                 *run,
           GAsyncReadyCallback  callback)
{
  g_input_stream_read_bytes_async (stream, READ_CHUNK, G_PRIORITY_DEFAULT, run->cancellable, callback, run);
}

/* ---- stderr ---- */

static void
keep_stderr (PrsMcpStdio *self,
             const char  *data,
             gsize        len)
{
  g_string_append_len (self->stderr_tail, data, len);
  if (self->stderr_tail->len > STDERR_KEEP)
    g_string_erase (self->stderr_tail, 0, self->stderr_tail->len - STDERR_KEEP);
}

char *
prs_mcp_stdio_dup_stderr (PrsMcpStdio *self,
                          guint        max_lines)
{
  g_autofree char *valid = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(GPtrArray) kept = g_ptr_array_new ();
  g_autofree char *joined = NULL;
  guint n;

  g_return_val_if_fail (PRS_IS_MCP_STDIO (self), NULL);

  valid = g_utf8_make_valid (self->stderr_tail->str, self->stderr_tail->len);
  lines = g_strsplit (valid, "\n", -1);
  n = g_strv_length (lines);
  for (guint i = n; i > 0 && kept->len < max_lines; i--)
    {
      g_strstrip (lines[i - 1]);
      if (lines[i - 1][0] != '\0')
        g_ptr_array_insert (kept, 0, lines[i - 1]);
    }
  if (kept->len == 0)
    return NULL;
  g_ptr_array_add (kept, NULL);
  joined = g_strjoinv ("\n", (char **) kept->pdata);
  return prs_http_clean_lines (joined, STDERR_KEEP);
}

GPid
prs_mcp_stdio_get_pid (PrsMcpStdio *self)
{
  const char *id;

  g_return_val_if_fail (PRS_IS_MCP_STDIO (self), 0);

  if (self->run == NULL || (id = g_subprocess_get_identifier (self->run->process)) == NULL)
    return 0;
  return (GPid) g_ascii_strtoll (id, NULL, 10);
}

static char *
dup_diagnostics (PrsMcpTransport *transport)
{
  return prs_mcp_stdio_dup_stderr (PRS_MCP_STDIO (transport), DIAGNOSTIC_LINES);
}

static void
on_stderr_read (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(Run) run = user_data;
  g_autoptr(GBytes) chunk = g_input_stream_read_bytes_finish (G_INPUT_STREAM (source), result, NULL);
  PrsMcpStdio *self;

  if (chunk == NULL || g_bytes_get_size (chunk) == 0)
    return;
  self = run->owner;
  if (self != NULL)
    keep_stderr (self, g_bytes_get_data (chunk, NULL), g_bytes_get_size (chunk));
  read_more (G_INPUT_STREAM (source), g_steal_pointer (&run), on_stderr_read);
}

/* ---- The end of a run ---- */

static void
describe_exit (PrsMcpStdio  *self,
               Run          *run,
               GError      **error)
{
  g_autofree char *tail = prs_mcp_stdio_dup_stderr (self, DIAGNOSTIC_LINES);
  g_autofree char *how = NULL;

  if (g_subprocess_get_if_signaled (run->process))
    /* Translators: %d is a signal number such as 9 */
    how = g_strdup_printf (_("The server stopped: it was killed by signal %d."),
                           g_subprocess_get_term_sig (run->process));
  else
    /* Translators: %d is a process exit code such as 1 */
    how = g_strdup_printf (_("The server stopped: it exited with code %d."),
                           g_subprocess_get_exit_status (run->process));

  if (tail != NULL)
    /* Translators: the first %s says how the server stopped; the second is what it wrote to stderr */
    g_set_error (error, PRS_ERROR, PRS_ERROR_MCP_UNAVAILABLE, _("%s Its last words:\n%s"), how, tail);
  else
    g_set_error_literal (error, PRS_ERROR, PRS_ERROR_MCP_UNAVAILABLE, how);
}

static void
fail_writes (PrsMcpStdio  *self,
             const GError *error)
{
  GTask *task;

  while ((task = g_queue_pop_head (&self->writes)) != NULL)
    {
      g_task_return_error (task, g_error_copy (error));
      g_object_unref (task);
    }
}

/* Once the process has exited and its stdout is read to the end (an
 * answer written just before exiting is delivered first). */
static void
maybe_finish_run (PrsMcpStdio *self_ref,
                  Run         *run)
{
  g_autoptr(PrsMcpStdio) self = self_ref;   /* a handler of "closed" may drop the last other one */
  g_autoptr(GError) error = NULL;

  if (!run->exited || !run->stdout_done || self->run != run)
    return;

  if (run->fatal != NULL)
    error = g_error_copy (run->fatal);
  else
    describe_exit (self, run, &error);

  run->owner = NULL;
  g_clear_pointer (&self->run, run_unref);
  fail_writes (self, error);
  g_debug ("MCP stdio server %s ended: %s", self->command, error->message);
  prs_mcp_transport_emit_closed (PRS_MCP_TRANSPORT (self), error);
}

static void
on_process_exited (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(Run) run = user_data;

  g_subprocess_wait_finish (G_SUBPROCESS (source), result, NULL);
  run->exited = TRUE;
  if (run->owner != NULL)
    maybe_finish_run (g_object_ref (run->owner), run);
}

/* Our own reason to stop a process (its output broke the rules): it is
 * ended, and the run ends with @error instead of its exit status. */
static void
abandon_run (PrsMcpStdio *self,
             Run         *run,
             GError      *error)
{
  if (run->fatal == NULL)
    run->fatal = error;
  else
    g_error_free (error);
  run->stdout_done = TRUE;
  g_cancellable_cancel (run->cancellable);
  end_process (run);
}

/* ---- stdout ---- */

static gboolean
on_line (const char  *event,
         const char  *data,
         gsize        len,
         const char  *id,
         gpointer     user_data,
         GError     **error)
{
  PrsMcpStdio *self = user_data;

  /* A banner or log line is kept with stderr and skipped; a broken
   * message ends the run */
  if (!prs_mcp_transport_line_is_message (data))
    {
      keep_stderr (self, data, len);
      keep_stderr (self, "\n", 1);
      return TRUE;
    }
  return prs_mcp_transport_deliver (PRS_MCP_TRANSPORT (self), data, len, error);
}

static void
on_stdout_read (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(Run) run = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) chunk = g_input_stream_read_bytes_finish (G_INPUT_STREAM (source), result, &error);
  PrsMcpStdio *self = run->owner;

  if (self == NULL || self->run != run || run->stdout_done)
    return;

  if (chunk == NULL || g_bytes_get_size (chunk) == 0)
    {
      run->stdout_done = TRUE;
      maybe_finish_run (g_object_ref (self), run);
      return;
    }

  if (!prs_event_stream_feed (run->lines, g_bytes_get_data (chunk, NULL), g_bytes_get_size (chunk), &error))
    {
      prs_mcp_transport_word_stream_error (PRS_MCP_TRANSPORT (self), &error);
      abandon_run (self, run, g_steal_pointer (&error));
      maybe_finish_run (g_object_ref (self), run);
      return;
    }

  read_more (G_INPUT_STREAM (source), g_steal_pointer (&run), on_stdout_read);
}

/* ---- Starting ---- */

static void
child_setup (gpointer data)
{
  /* Its own process group, so closing ends everything it started; and it
   * is told to stop when Prosponsive dies without closing it. */
  setpgid (0, 0);
  prctl (PR_SET_PDEATHSIG, SIGTERM);
}

static char **
build_environ (const char * const *user_env)
{
  static const char * const inherited[] = {
    "HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "TMPDIR", "XDG_RUNTIME_DIR",
  };
  char **envp = g_new0 (char *, 1);

  for (guint i = 0; i < G_N_ELEMENTS (inherited); i++)
    {
      const char *value = g_getenv (inherited[i]);

      if (value != NULL)
        envp = g_environ_setenv (envp, inherited[i], value, TRUE);
    }
  for (guint i = 0; user_env != NULL && user_env[i] != NULL; i++)
    {
      const char *eq = strchr (user_env[i], '=');
      g_autofree char *name = NULL;

      if (eq == NULL || eq == user_env[i])
        continue;
      name = g_strndup (user_env[i], eq - user_env[i]);
      envp = g_environ_setenv (envp, name, eq + 1, TRUE);
    }
  return envp;
}

static void
describe_spawn_error (const char  *command,
                      char       **envp,
                      GError      *spawn_error,
                      GError     **error)
{
  if (g_error_matches (spawn_error, G_SPAWN_ERROR, G_SPAWN_ERROR_NOENT))
    {
      const char *path = g_environ_getenv (envp, "PATH");

      /* Translators: %s is a command such as "npx"; the second %s is a list of folders */
      g_set_error (error, PRS_ERROR, PRS_ERROR_MCP_UNAVAILABLE,
                   _("The command “%s” was not found. Is it installed? (Searched: %s)"),
                   command, path != NULL ? path : "");
    }
  else if (g_error_matches (spawn_error, G_SPAWN_ERROR, G_SPAWN_ERROR_ACCES) ||
           g_error_matches (spawn_error, G_SPAWN_ERROR, G_SPAWN_ERROR_PERM))
    g_set_error (error, PRS_ERROR, PRS_ERROR_MCP_UNAVAILABLE,
                 _("The command “%s” could not be run: permission denied."), command);
  else
    /* Translators: %s is a command, the second %s the system's reason */
    g_set_error (error, PRS_ERROR, PRS_ERROR_MCP_UNAVAILABLE,
                 _("The command “%s” could not be started: %s"), command, spawn_error->message);
}

static gboolean
start_process (PrsMcpStdio  *self,
               GError      **error)
{
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_auto(GStrv) envp = build_environ ((const char * const *) self->env);
  g_autoptr(GError) spawn_error = NULL;
  g_autoptr(GSubprocess) process = NULL;
  Run *run;

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                                        G_SUBPROCESS_FLAGS_STDERR_PIPE |
                                        G_SUBPROCESS_FLAGS_SEARCH_PATH_FROM_ENVP);
  g_subprocess_launcher_set_environ (launcher, envp);
  g_subprocess_launcher_set_cwd (launcher, g_get_home_dir ());
  g_subprocess_launcher_set_child_setup (launcher, child_setup, NULL, NULL);

  g_ptr_array_add (argv, self->command);
  for (guint i = 0; self->args != NULL && self->args[i] != NULL; i++)
    g_ptr_array_add (argv, self->args[i]);
  g_ptr_array_add (argv, NULL);

  process = g_subprocess_launcher_spawnv (launcher, (const char * const *) argv->pdata, &spawn_error);
  if (process == NULL)
    {
      describe_spawn_error (self->command, envp, spawn_error, error);
      return FALSE;
    }

  g_string_truncate (self->stderr_tail, 0);
  run = g_new0 (Run, 1);
  g_atomic_ref_count_init (&run->ref);
  run->process = g_steal_pointer (&process);
  run->cancellable = g_cancellable_new ();
  run->owner = self;
  run->lines = prs_event_stream_new (PRS_EVENT_STREAM_NDJSON,
                                     prs_mcp_transport_get_max_message (PRS_MCP_TRANSPORT (self)),
                                     on_line, self);
  self->run = run;

  read_more (g_subprocess_get_stdout_pipe (run->process), run_ref (run), on_stdout_read);
  read_more (g_subprocess_get_stderr_pipe (run->process), run_ref (run), on_stderr_read);
  g_subprocess_wait_async (run->process, NULL, on_process_exited, run_ref (run));
  g_debug ("MCP stdio server %s started (pid %s)", self->command,
           g_subprocess_get_identifier (run->process));
  return TRUE;
}

/* Lets the current run go: its callbacks are ignored from now on, its
 * process ended. */
static void
drop_run (PrsMcpStdio *self)
{
  Run *run = g_steal_pointer (&self->run);

  if (run == NULL)
    return;
  run->owner = NULL;
  g_cancellable_cancel (run->cancellable);
  end_process (run);
  run_unref (run);
}

static void
open_async (PrsMcpTransport     *transport,
            GCancellable        *cancellable,
            GAsyncReadyCallback  callback,
            gpointer             user_data)
{
  PrsMcpStdio *self = PRS_MCP_STDIO (transport);
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);
  GError *error = NULL;

  g_task_set_source_tag (task, open_async);
  drop_run (self);
  if (!start_process (self, &error))
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

static gboolean
task_finish (PrsMcpTransport  *transport,
             GAsyncResult     *result,
             GError          **error)
{
  return g_task_propagate_boolean (G_TASK (result), error);
}

/* ---- Writing ---- */

static void write_next (PrsMcpStdio *self);

static void
on_written (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  PrsMcpStdio *self = g_task_get_source_object (task);
  g_autoptr(GError) error = NULL;

  /* The head of the queue was this task, unless the run ended meanwhile
   * (fail_writes emptied the queue and answered it). */
  if (g_queue_peek_head (&self->writes) != task)
    return;
  g_queue_pop_head (&self->writes);
  g_object_unref (task);   /* the queue's reference */

  if (!g_output_stream_write_all_finish (G_OUTPUT_STREAM (source), result, NULL, &error))
    {
      g_prefix_error_literal (&error, _("Could not write to the server: "));
      g_task_return_error (task, g_steal_pointer (&error));
    }
  else
    g_task_return_boolean (task, TRUE);
  write_next (self);
}

static void
write_next (PrsMcpStdio *self)
{
  GTask *task = g_queue_peek_head (&self->writes);
  GBytes *line;

  if (task == NULL || self->run == NULL || g_task_get_task_data (task) == NULL)
    return;
  line = g_task_get_task_data (task);
  g_output_stream_write_all_async (g_subprocess_get_stdin_pipe (self->run->process),
                                   g_bytes_get_data (line, NULL), g_bytes_get_size (line),
                                   G_PRIORITY_DEFAULT, NULL, on_written, g_object_ref (task));
}

static void
send_async (PrsMcpTransport     *transport,
            GBytes              *message,
            GCancellable        *cancellable,
            GAsyncReadyCallback  callback,
            gpointer             user_data)
{
  PrsMcpStdio *self = PRS_MCP_STDIO (transport);
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  g_autoptr(GByteArray) line = g_byte_array_sized_new (g_bytes_get_size (message) + 1);
  gboolean idle = g_queue_is_empty (&self->writes);

  g_task_set_source_tag (task, send_async);
  if (self->run == NULL)
    {
      g_task_return_new_error (task, PRS_ERROR, PRS_ERROR_MCP_UNAVAILABLE, "%s",
                               _("The server is not running."));
      g_object_unref (task);
      return;
    }

  g_byte_array_append (line, g_bytes_get_data (message, NULL), g_bytes_get_size (message));
  g_byte_array_append (line, (const guint8 *) "\n", 1);
  g_task_set_task_data (task, g_byte_array_free_to_bytes (g_steal_pointer (&line)),
                        (GDestroyNotify) g_bytes_unref);
  g_queue_push_tail (&self->writes, task);
  if (idle)
    write_next (self);
}

static void
close_transport (PrsMcpTransport *transport)
{
  PrsMcpStdio *self = PRS_MCP_STDIO (transport);
  g_autoptr(GError) error = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CLOSED,
                                                 _("The connection to the server was closed."));

  drop_run (self);
  fail_writes (self, error);
}

/* ---- The object ---- */

static void
prs_mcp_stdio_dispose (GObject *object)
{
  close_transport (PRS_MCP_TRANSPORT (object));

  G_OBJECT_CLASS (prs_mcp_stdio_parent_class)->dispose (object);
}

static void
prs_mcp_stdio_finalize (GObject *object)
{
  PrsMcpStdio *self = PRS_MCP_STDIO (object);

  g_free (self->command);
  g_strfreev (self->args);
  g_strfreev (self->env);
  g_string_free (self->stderr_tail, TRUE);

  G_OBJECT_CLASS (prs_mcp_stdio_parent_class)->finalize (object);
}

static void
prs_mcp_stdio_class_init (PrsMcpStdioClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  PrsMcpTransportClass *transport_class = PRS_MCP_TRANSPORT_CLASS (klass);

  /* Writing to a server that just died must be an error, not SIGPIPE
   * ending Prosponsive (GLib does the same for sockets). */
  signal (SIGPIPE, SIG_IGN);

  object_class->dispose = prs_mcp_stdio_dispose;
  object_class->finalize = prs_mcp_stdio_finalize;

  transport_class->open_async = open_async;
  transport_class->open_finish = task_finish;
  transport_class->send_async = send_async;
  transport_class->send_finish = task_finish;
  transport_class->close = close_transport;
  transport_class->dup_diagnostics = dup_diagnostics;
  transport_class->answers_inline = FALSE;
}

static void
prs_mcp_stdio_init (PrsMcpStdio *self)
{
  g_queue_init (&self->writes);
  self->stderr_tail = g_string_new (NULL);
}

PrsMcpTransport *
prs_mcp_stdio_new (const char         *command,
                   const char * const *args,
                   const char * const *env)
{
  PrsMcpStdio *self;

  g_return_val_if_fail (command != NULL && command[0] != '\0', NULL);

  self = g_object_new (PRS_TYPE_MCP_STDIO, NULL);
  self->command = g_strdup (command);
  self->args = g_strdupv ((char **) args);
  self->env = g_strdupv ((char **) env);
  return PRS_MCP_TRANSPORT (self);
}
