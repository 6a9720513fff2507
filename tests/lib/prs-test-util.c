/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-test-util.c: the scripted provider, the scripted webhook,
 * conversations, HTTPS to the local API, free ports and folder removal for
 * every test program. */
#include "config.h"

#include <string.h>
#include <signal.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include <sqlite3.h>
#include <glib/gstdio.h>

#include "prs-json.h"
#include "prs-store-internal.h"
#include "prs-test-util.h"

/* ---- the scripted provider ---- */

/* The real interpreter, asked once (pyenv shims are slow). */
static const char *
python (void)
{
  static char *path = NULL;

  if (path == NULL)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GSubprocess) process = NULL;
      g_autofree char *out = NULL;

      process = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE, &error,
                                  "python3", "-c", "import sys; print(sys.executable)", NULL);
      g_assert_no_error (error);
      g_subprocess_communicate_utf8 (process, NULL, NULL, &out, NULL, &error);
      g_assert_no_error (error);
      path = g_strstrip (g_steal_pointer (&out));
      g_assert_true (g_file_test (path, G_FILE_TEST_IS_EXECUTABLE));
    }
  return path;
}

/* tests/scripted-provider.py from G_TEST_SRCDIR: tests/ or one of its
 * folders. */
static char *
server_path (void)
{
  char *path = g_test_build_filename (G_TEST_DIST, "scripted-provider.py", NULL);

  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_free (path);
      path = g_test_build_filename (G_TEST_DIST, "..", "scripted-provider.py", NULL);
    }
  return path;
}

/* A failed assertion aborts the test: the server must not outlive it. */
static void
die_with_parent (gpointer data)
{
#ifdef __linux__
  prctl (PR_SET_PDEATHSIG, SIGTERM);
#endif
}

PrsTestProvider *
prs_test_provider_start (const char *script)
{
  PrsTestProvider *provider = g_new0 (PrsTestProvider, 1);
  g_autoptr(GError) error = NULL;
  g_autofree char *json = g_strdup (script);
  g_autofree char *script_path = NULL;
  g_autofree char *server = server_path ();
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GDataInputStream) out = NULL;
  g_autofree char *line = NULL;

  g_strdelimit (json, "'", '"');
  provider->dir = g_dir_make_tmp ("prs-test-provider-XXXXXX", &error);
  g_assert_no_error (error);
  script_path = g_build_filename (provider->dir, "script.json", NULL);
  provider->log_path = g_build_filename (provider->dir, "log.json", NULL);
  g_file_set_contents (script_path, json, -1, &error);
  g_assert_no_error (error);

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE);
  g_subprocess_launcher_set_child_setup (launcher, die_with_parent, NULL, NULL);
  provider->process = g_subprocess_launcher_spawn (launcher, &error,
                                                   python (), server, "--script", script_path,
                                                   "--log", provider->log_path, NULL);
  g_assert_no_error (error);

  /* The server's first line is its port. */
  out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (provider->process));
  line = g_data_input_stream_read_line (out, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (line);
  provider->port = (guint16) g_ascii_strtoull (line, NULL, 10);
  g_assert_cmpuint (provider->port, >, 0);
  provider->root = g_strdup_printf ("http://127.0.0.1:%u", provider->port);
  return provider;
}

void
prs_test_provider_stop (PrsTestProvider *provider)
{
  g_subprocess_force_exit (provider->process);
  g_subprocess_wait (provider->process, NULL, NULL);
  g_object_unref (provider->process);
  prs_test_remove_tree (provider->dir);
  g_free (provider->dir);
  g_free (provider->log_path);
  g_free (provider->root);
  g_free (provider);
}

char *
prs_test_provider_base_url (PrsTestProvider *provider,
                            const char      *kind)
{
  if (g_str_equal (kind, "openai"))
    return g_strconcat (provider->root, "/v1", NULL);
  return g_strdup (provider->root);
}

static JsonArray *
read_log (PrsTestProvider *provider)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  gsize len;
  g_autoptr(JsonNode) root = NULL;

  if (!g_file_get_contents (provider->log_path, &text, &len, NULL))
    return json_array_new ();
  root = prs_json_parse_bounded (text, len, 256, &error);
  g_assert_no_error (error);
  return json_array_ref (json_object_get_array_member (json_node_get_object (root), "requests"));
}

static void
assert_no_violation (JsonObject *request)
{
  if (json_array_get_length (json_object_get_array_member (request, "violations")) > 0)
    {
      g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), request);
      g_autofree char *dump = prs_json_to_string (node, TRUE);

      g_error ("a request broke the protocol: %s", dump);
    }
}

JsonArray *
prs_test_provider_requests (PrsTestProvider *provider)
{
  JsonArray *requests = read_log (provider);

  for (guint i = 0; i < json_array_get_length (requests); i++)
    assert_no_violation (json_array_get_object_element (requests, i));
  return requests;
}

JsonObject *
prs_test_provider_request (PrsTestProvider *provider,
                           guint            index)
{
  g_autoptr(JsonArray) requests = read_log (provider);
  JsonObject *request;

  g_assert_cmpuint (json_array_get_length (requests), >, index);
  request = json_array_get_object_element (requests, index);
  assert_no_violation (request);
  return json_object_ref (request);
}

/* ---- the scripted n8n webhook ---- */

static void
hook_handler (SoupServer        *soup,
              SoupServerMessage *msg,
              const char        *path,
              GHashTable        *query,
              gpointer           user_data)
{
  PrsTestHook *hook = user_data;
  SoupMessageBody *body = soup_server_message_get_request_body (msg);
  g_autoptr(GBytes) bytes = NULL;

  if (hook->only_webhooks && !g_str_has_prefix (path, "/webhook/"))
    {
      soup_server_message_set_status (msg, 404, NULL);
      return;
    }
  bytes = soup_message_body_flatten (body);
  g_ptr_array_add (hook->bodies, g_strndup (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes)));
  g_ptr_array_add (hook->paths, g_strdup (path));
  g_free (hook->auth);
  hook->auth = g_strdup (soup_message_headers_get_one (soup_server_message_get_request_headers (msg),
                                                       "X-Prosponsive-Key"));
  if (hook->hang)
    {
      soup_server_message_pause (msg);
      g_ptr_array_add (hook->held, g_object_ref (msg));
      return;
    }
  soup_server_message_set_status (msg, 200, NULL);
  soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_COPY,
                                    hook->answer, strlen (hook->answer));
}

PrsTestHook *
prs_test_hook_start (gboolean only_webhooks)
{
  PrsTestHook *hook = g_new0 (PrsTestHook, 1);
  g_autoptr(GError) error = NULL;
  GSList *uris;

  hook->soup = soup_server_new (NULL, NULL);
  hook->only_webhooks = only_webhooks;
  hook->bodies = g_ptr_array_new_with_free_func (g_free);
  hook->paths = g_ptr_array_new_with_free_func (g_free);
  hook->held = g_ptr_array_new_with_free_func (g_object_unref);
  hook->answer = g_strdup ("{\"forecast\":\"sunny-data\",\"temperature\":21}");
  soup_server_add_handler (hook->soup, NULL, hook_handler, hook, NULL);
  soup_server_listen_local (hook->soup, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error);
  g_assert_no_error (error);
  uris = soup_server_get_uris (hook->soup);
  hook->port = g_uri_get_port (uris->data);
  g_slist_free_full (uris, (GDestroyNotify) g_uri_unref);
  return hook;
}

void
prs_test_hook_stop (PrsTestHook *hook)
{
  for (guint i = 0; i < hook->held->len; i++)
    {
      SoupServerMessage *msg = g_ptr_array_index (hook->held, i);

      soup_server_message_set_status (msg, 500, NULL);
      soup_server_message_unpause (msg);
    }
  soup_server_disconnect (hook->soup);
  g_object_unref (hook->soup);
  g_ptr_array_unref (hook->bodies);
  g_ptr_array_unref (hook->paths);
  g_ptr_array_unref (hook->held);
  g_free (hook->answer);
  g_free (hook->auth);
  g_free (hook);
}

char *
prs_test_hook_url (PrsTestHook *hook)
{
  return g_strdup_printf ("http://127.0.0.1:%u", hook->port);
}

/* ---- runs ---- */

PrsRunEnv *
prs_test_run_env_new (const char           *dir,
                      const char           *callback_url,
                      PrsStore            **store,
                      PrsSecrets          **secrets,
                      PrsProviders        **providers,
                      PrsCallbackRegistry **registry)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsStore) own_store = prs_store_new (dir, &error);
  g_autoptr(PrsSecrets) own_secrets = NULL;
  g_autoptr(PrsProviders) own_providers = NULL;
  g_autoptr(PrsCallbackRegistry) own_registry = prs_callback_registry_new ();
  PrsRunLimits limits;
  PrsRunEnv *env;

  g_assert_no_error (error);
  own_secrets = prs_secrets_new (dir);
  own_providers = prs_providers_new (own_store, own_secrets);
  prs_run_limits_init (&limits);
  env = prs_run_env_new (own_store, own_providers, own_secrets, own_registry, callback_url, &limits);
  if (store != NULL)
    *store = g_steal_pointer (&own_store);
  if (secrets != NULL)
    *secrets = g_steal_pointer (&own_secrets);
  if (providers != NULL)
    *providers = g_steal_pointer (&own_providers);
  if (registry != NULL)
    *registry = g_steal_pointer (&own_registry);
  return env;
}

PrsRun *
prs_test_start_inference (PrsRunner   *runner,
                          PrsStore    *store,
                          const char  *conversation_id,
                          const char  *agent_id,
                          const char  *prompt,
                          const char  *context_json,
                          char       **message_id)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *id = NULL;
  PrsMessageInsert insert = { 0 };
  PrsRunOptions options = { 0 };
  PrsRun *run;

  insert.conversation_id = conversation_id;
  insert.kind = "inbound";
  insert.content = prompt;
  insert.status = "pending";
  insert.context_json = context_json;
  g_assert_true (prs_store_insert_message (store, &insert, &id, NULL, &error));
  g_assert_no_error (error);
  options.origin = PRS_RUN_ORIGIN_AGENT_INFERENCE;
  options.conversation_id = conversation_id;
  options.agent_id = agent_id;
  options.trigger_message_id = id;
  options.context_json = context_json;
  options.temperature = -1;
  run = prs_runner_start (runner, &options, FALSE, &error);
  g_assert_no_error (error);
  g_assert_nonnull (run);
  if (message_id != NULL)
    *message_id = g_steal_pointer (&id);
  return run;
}

typedef struct
{
  JsonNode *answer;
  guint     status;
  gboolean  done;
} Rest;

static void
on_rest (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  Rest *rest = user_data;
  g_autoptr(GError) error = NULL;

  rest->answer = prs_run_wait_rest_finish (PRS_RUN (source), result, &rest->status, &error);
  g_assert_no_error (error);
  rest->done = TRUE;
}

JsonObject *
prs_test_wait_rest (PrsRun *run,
                    guint  *out_status)
{
  Rest rest = { 0 };
  JsonObject *answer;

  prs_run_wait_rest_async (run, NULL, on_rest, &rest);
  while (!rest.done)
    g_main_context_iteration (NULL, TRUE);
  g_assert_nonnull (rest.answer);
  answer = json_object_ref (json_node_get_object (rest.answer));
  json_node_unref (rest.answer);
  if (out_status != NULL)
    *out_status = rest.status;
  return answer;
}

/* ---- the store ---- */

char *
prs_test_resolve_conversation (PrsStore   *store,
                               const char *slug)
{
  g_autoptr(GError) error = NULL;
  char *id = NULL;

  g_assert_true (prs_store_resolve_conversation (store, slug, &id, NULL, &error));
  g_assert_no_error (error);
  return id;
}

void
prs_test_store_exec (PrsStore   *store,
                     const char *sql)
{
  char *message = NULL;

  if (sqlite3_exec (store->db, sql, NULL, NULL, &message) != SQLITE_OK)
    g_error ("%s: %s", sql, message);
}

static sqlite3 *
sql_open (const char *db_path)
{
  sqlite3 *db = NULL;

  g_assert_cmpint (sqlite3_open_v2 (db_path, &db, SQLITE_OPEN_READWRITE, NULL), ==, SQLITE_OK);
  sqlite3_busy_timeout (db, 5000);
  return db;
}

char *
prs_test_sql_conversation (const char *db_path,
                           const char *slug)
{
  sqlite3 *db = sql_open (db_path);
  sqlite3_stmt *stmt = NULL;
  char *id = g_uuid_string_random ();

  g_assert_cmpint (sqlite3_prepare_v2 (db, "INSERT INTO conversations (id, slug, title, created_at, updated_at)"
                                           " VALUES (?1, ?2, ?2, '2026-01-01T00:00:00.000Z',"
                                           " '2026-01-01T00:00:00.000Z')",
                                       -1, &stmt, NULL), ==, SQLITE_OK);
  sqlite3_bind_text (stmt, 1, id, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text (stmt, 2, slug, -1, SQLITE_TRANSIENT);
  g_assert_cmpint (sqlite3_step (stmt), ==, SQLITE_DONE);
  sqlite3_finalize (stmt);
  sqlite3_close (db);
  return id;
}

char *
prs_test_sql_old_history (const char *db_path,
                          int         version,
                          const char *slug,
                          guint       n)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsStore) store = prs_store_new_at_version (db_path, version, &error);
  g_autofree char *sql = NULL;
  char *id;
  sqlite3 *db;

  g_assert_no_error (error);
  g_clear_object (&store);
  id = prs_test_sql_conversation (db_path, slug);
  sql = g_strdup_printf (
    "WITH RECURSIVE n (i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < %u)"
    " INSERT INTO messages (id, conversation_id, seq, kind, content, created_at)"
    " SELECT 'm' || i, '%s', i, CASE i %% 2 WHEN 1 THEN 'user' ELSE 'assistant' END,"
    "  'Message ' || i || ': the hangar door report for flight ' || (i * 7919 %% 10007) ||"
    "  ' lists the parts checked, the crew on duty and what the next shift should look at first.'"
    "  || ' Inspection ' || hex (randomblob (8)) || ' passed; torque values within limits, seals'"
    "  || ' replaced on the left gear, the logbook signed and the spare wheel returned to stores.',"
    "  strftime ('%%Y-%%m-%%dT%%H:%%M:%%fZ', '2026-01-01', '+' || i || ' seconds')"
    " FROM n;"
    "UPDATE conversations SET message_count = %u WHERE id = '%s';",
    n, id, n, id);
  db = sql_open (db_path);
  g_assert_cmpint (sqlite3_exec (db, "BEGIN", NULL, NULL, NULL), ==, SQLITE_OK);
  if (sqlite3_exec (db, sql, NULL, NULL, NULL) != SQLITE_OK)
    g_error ("Could not seed the history: %s", sqlite3_errmsg (db));
  g_assert_cmpint (sqlite3_exec (db, "COMMIT", NULL, NULL, NULL), ==, SQLITE_OK);
  sqlite3_close (db);
  return id;
}

void
prs_test_sql_old_runs (const char *db_path,
                       const char *conversation_id,
                       guint       n)
{
  g_autofree char *sql = g_strdup_printf (
    "WITH RECURSIVE n (i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < %u)"
    " INSERT INTO runs (id, conversation_id, agent_id, origin, status, transcript_json, created_at, updated_at)"
    " SELECT 'r' || i, '%s', 'prosponsive', 'chat', 'succeeded',"
    "  json_array (json_object ('role', 'user', 'content', 'Which parts were checked on flight ' || i || '?'),"
    "              json_object ('role', 'assistant', 'content', 'The left gear and its seals.',"
    "                           'providerId', 'p1', 'providerName', 'Provider', 'model', 'model-1',"
    "                           'inputTokens', 120, 'outputTokens', 30)),"
    "  strftime ('%%Y-%%m-%%dT%%H:%%M:%%fZ', '2026-01-01', '+' || i || ' seconds'),"
    "  strftime ('%%Y-%%m-%%dT%%H:%%M:%%fZ', '2026-01-01', '+' || i || ' seconds')"
    " FROM n;"
    "INSERT INTO tool_calls (id, run_id, message_id, round, position, name, arguments_json, status,"
    "                        created_at, updated_at)"
    " SELECT 't' || substr (id, 2), id, 'm1', 0, 0, 'lookup', '{}', 'succeeded', created_at, updated_at"
    " FROM runs;",
    n, conversation_id);
  sqlite3 *db = sql_open (db_path);

  if (sqlite3_exec (db, sql, NULL, NULL, NULL) != SQLITE_OK)
    g_error ("Could not seed the runs: %s", sqlite3_errmsg (db));
  sqlite3_close (db);
}

char *
prs_test_sql_message (const char             *db_path,
                      const PrsMessageInsert *message,
                      gint64                  seq)
{
  sqlite3 *db = sql_open (db_path);
  sqlite3_stmt *stmt = NULL;
  char *id = g_uuid_string_random ();
  const char *texts[] = { id, message->conversation_id, message->kind, message->content, message->status,
                          message->agent_id, message->context_json, message->execution_json,
                          message->dedup_key, message->extra_json };

  g_assert_cmpint (sqlite3_prepare_v2 (db, "INSERT INTO messages (id, conversation_id, kind, content, status,"
                                           " agent_id, context_json, execution_json, dedup_key, extra_json,"
                                           " seq, created_at)"
                                           " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11,"
                                           " '2026-01-01T00:00:00.000Z')",
                                       -1, &stmt, NULL), ==, SQLITE_OK);
  for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
    sqlite3_bind_text (stmt, i + 1, texts[i], -1, SQLITE_TRANSIENT);
  sqlite3_bind_int64 (stmt, 11, seq);
  g_assert_cmpint (sqlite3_step (stmt), ==, SQLITE_DONE);
  sqlite3_finalize (stmt);
  sqlite3_close (db);
  return id;
}

char *
prs_test_sql_query (const char *db_path,
                    const char *sql)
{
  sqlite3 *db = sql_open (db_path);
  sqlite3_stmt *stmt = NULL;
  char *result = NULL;
  int rc;

  g_assert_cmpint (sqlite3_prepare_v2 (db, sql, -1, &stmt, NULL), ==, SQLITE_OK);
  rc = sqlite3_step (stmt);
  g_assert_true (rc == SQLITE_ROW || rc == SQLITE_DONE);
  if (rc == SQLITE_ROW)
    result = g_strdup ((const char *) sqlite3_column_text (stmt, 0));
  sqlite3_finalize (stmt);
  sqlite3_close (db);
  return result;
}

/* Another program that writes: BEGIN IMMEDIATE on a connection of its
 * own, in a thread of its own, so that it lets go while the main thread
 * waits for the database */
typedef struct
{
  char     *db_path;
  guint     ms;
  gboolean  held;   /* atomic */
} Holder;

static void
holder_clear (gpointer data)
{
  g_free (((Holder *) data)->db_path);
}

static gpointer
hold (gpointer data)
{
  Holder *holder = data;
  sqlite3 *db = sql_open (holder->db_path);

  g_assert_cmpint (sqlite3_exec (db, "BEGIN IMMEDIATE", NULL, NULL, NULL), ==, SQLITE_OK);
  g_atomic_int_set (&holder->held, TRUE);
  g_usleep ((gulong) holder->ms * G_TIME_SPAN_MILLISECOND);
  g_assert_cmpint (sqlite3_exec (db, "COMMIT", NULL, NULL, NULL), ==, SQLITE_OK);
  sqlite3_close (db);
  g_atomic_rc_box_release_full (holder, holder_clear);
  return NULL;
}

GThread *
prs_test_sql_hold (const char *db_path,
                   guint       ms)
{
  Holder *holder = g_atomic_rc_box_new0 (Holder);
  GThread *thread;

  holder->db_path = g_strdup (db_path);
  holder->ms = ms;
  /* One reference for the thread, one for the wait here */
  thread = g_thread_new ("prs-test-holder", hold, g_atomic_rc_box_acquire (holder));
  while (!g_atomic_int_get (&holder->held))
    g_usleep (1000);
  g_atomic_rc_box_release_full (holder, holder_clear);
  return thread;
}

/* The other program is python3's sqlite3 module, a process of its own:
 * SQLite's locks are per process (POSIX), so only another process takes
 * them the way prosponsive-ctl, a person's sqlite3 shell or a backup tool
 * does. It says "held" once BEGIN IMMEDIATE returned, then waits for its
 * standard input to close or @ms to pass, and commits. */
GSubprocess *
prs_test_sql_hold_process (const char *db_path,
                           guint       ms)
{
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GDataInputStream) out = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *line = NULL;
  g_autofree char *wait = g_strdup_printf ("%u", ms);
  GSubprocess *process;

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE);
  g_subprocess_launcher_set_child_setup (launcher, die_with_parent, NULL, NULL);
  process = g_subprocess_launcher_spawn (launcher, &error, python (), "-c",
                                         "import select, sqlite3, sys\n"
                                         "db = sqlite3.connect(sys.argv[1], timeout=5, isolation_level=None)\n"
                                         "db.execute('BEGIN IMMEDIATE')\n"
                                         "print('held', flush=True)\n"
                                         "ms = int(sys.argv[2])\n"
                                         "select.select([sys.stdin], [], [], ms / 1000 if ms else None)\n"
                                         "db.execute('COMMIT')\n"
                                         "db.close()\n",
                                         db_path, wait, NULL);
  g_assert_no_error (error);
  out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (process));
  line = g_data_input_stream_read_line_utf8 (out, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (line, ==, "held");
  return process;
}

void
prs_test_sql_release_process (GSubprocess *holder)
{
  g_autoptr(GError) error = NULL;

  g_output_stream_close (g_subprocess_get_stdin_pipe (holder), NULL, NULL);
  g_assert_true (g_subprocess_wait_check (holder, NULL, &error));
  g_assert_no_error (error);
  g_object_unref (holder);
}

/* ---- HTTPS ---- */

static gboolean
accept_any_certificate (SoupMessage          *msg,
                        GTlsCertificate      *certificate,
                        GTlsCertificateFlags  errors,
                        gpointer              user_data)
{
  return TRUE;
}

typedef struct
{
  gboolean  done;
  gboolean  timed_out;
  GBytes   *body;
  GError   *error;
} Reply;

static void
on_sent (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  Reply *reply = user_data;

  reply->body = soup_session_send_and_read_finish (SOUP_SESSION (source), result, &reply->error);
  reply->done = TRUE;
}

static gboolean
on_timeout (gpointer data)
{
  ((Reply *) data)->timed_out = TRUE;
  return G_SOURCE_REMOVE;
}

guint
prs_test_https_send (SoupMessage  *msg,
                     guint         timeout_s,
                     GBytes      **out_body,
                     GError      **error)
{
  g_autoptr(SoupSession) session = soup_session_new ();
  Reply reply = { 0 };
  guint timeout = 0;

  g_signal_connect (msg, "accept-certificate", G_CALLBACK (accept_any_certificate), NULL);
  soup_session_send_and_read_async (session, msg, G_PRIORITY_DEFAULT, NULL, on_sent, &reply);
  if (timeout_s > 0)
    timeout = g_timeout_add_seconds (timeout_s, on_timeout, &reply);
  while (!reply.done && !reply.timed_out)
    g_main_context_iteration (NULL, TRUE);
  g_assert_true (reply.done);
  if (timeout != 0 && !reply.timed_out)
    g_source_remove (timeout);

  if (reply.error != NULL)
    g_propagate_error (error, reply.error);
  if (out_body != NULL)
    *out_body = reply.body;
  else
    g_clear_pointer (&reply.body, g_bytes_unref);
  return soup_message_get_status (msg);
}

/* ---- ports and folders ---- */

GSocket *
prs_test_bind_loopback (guint *out_port)
{
  g_autoptr(GSocket) socket = NULL;
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) address = g_inet_socket_address_new (loopback, 0);
  g_autoptr(GSocketAddress) bound = NULL;
  g_autoptr(GError) error = NULL;

  socket = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, &error);
  g_assert_no_error (error);
  g_socket_bind (socket, address, FALSE, &error);
  g_assert_no_error (error);
  bound = g_socket_get_local_address (socket, &error);
  g_assert_no_error (error);
  *out_port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound));
  return g_steal_pointer (&socket);
}

guint
prs_test_free_port (void)
{
  guint port;
  g_autoptr(GSocket) socket = prs_test_bind_loopback (&port);

  g_socket_close (socket, NULL);
  return port;
}

void
prs_test_remove_tree (const char *path)
{
  if (g_file_test (path, G_FILE_TEST_IS_DIR) && !g_file_test (path, G_FILE_TEST_IS_SYMLINK))
    {
      g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
      const char *name;

      while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
        {
          g_autofree char *child = g_build_filename (path, name, NULL);

          prs_test_remove_tree (child);
        }
      g_rmdir (path);
    }
  else
    g_unlink (path);
}

/* ---- a store in a folder of its own ---- */

void
prs_test_store_dir_setup (PrsTestStoreDir *fixture,
                          gconstpointer    data)
{
  g_autoptr(GError) error = NULL;
  /* g_test_init () names the program by its whole path */
  g_autofree char *program = g_path_get_basename (g_get_prgname ());
  g_autofree char *template = g_strdup_printf ("%s-XXXXXX", program);

  fixture->dir = g_dir_make_tmp (template, &error);
  g_assert_no_error (error);
  fixture->db_path = g_build_filename (fixture->dir, "prosponsive.db", NULL);
}

void
prs_test_store_dir_teardown (PrsTestStoreDir *fixture,
                             gconstpointer    data)
{
  prs_test_remove_tree (fixture->dir);
  g_free (fixture->dir);
  g_free (fixture->db_path);
}

PrsStore *
prs_test_store_dir_open (PrsTestStoreDir *fixture)
{
  g_autoptr(GError) error = NULL;
  PrsStore *store = prs_store_new_for_path (fixture->db_path, &error);

  g_assert_no_error (error);
  g_assert_nonnull (store);
  return store;
}

guint64
prs_test_thread_slice_ns (void)
{
  g_autofree char *text = NULL;
  const char *line;

  if (!g_file_get_contents ("/proc/thread-self/sched", &text, NULL, NULL))
    return 0;
  line = strstr (text, "\nse.slice ");
  if (line == NULL)
    return 0;
  line = strchr (line, ':');
  return line != NULL ? g_ascii_strtoull (line + 1, NULL, 10) : 0;
}
