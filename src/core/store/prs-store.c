/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-store.c: the SQLite store. Every SQL statement of the application is
 * here: the connection setup, the numbered migrations, and the queries, each
 * prepared once per connection and run with bound parameters. */
#include "config.h"

#include <errno.h>
#include <sqlite3.h>
#include <glib/gi18n-lib.h>

#include "prs-error.h"
#include "prs-json.h"
#include "prs-paths.h"
#include "prs-store-internal.h"
#include "prs-store-private.h"

#define DB_FILE_NAME    "prosponsive.db"
#define BUSY_TIMEOUT_MS PRS_STORE_BUSY_TIMEOUT_MS

G_DEFINE_FINAL_TYPE (PrsStore, prs_store, G_TYPE_OBJECT)

/* ---- Migrations ---------------------------------------------------------- */

/* Each step runs in its own BEGIN IMMEDIATE transaction and ends by setting
 * user_version to its number. Never edit a released step: add one. */
typedef struct
{
  int         version;
  const char *sql;
} PrsMigration;

static const PrsMigration migrations[] = {
  { 1,
    "CREATE TABLE settings ("
    "  key   TEXT PRIMARY KEY,"
    "  value TEXT NOT NULL"
    ");"
    "CREATE TABLE tools ("
    "  name              TEXT PRIMARY KEY,"
    "  workflow_id       TEXT NOT NULL,"
    "  webhook_path      TEXT,"
    "  webhook_method    TEXT,"
    "  response_mode     TEXT,"
    "  webhook_id        TEXT,"
    "  webhook_node_name TEXT,"
    "  created_at        TEXT,"
    "  tool_json         TEXT NOT NULL,"
    "  schema_json       TEXT NOT NULL,"
    "  discovered_at     INTEGER NOT NULL"
    ");"
    "CREATE INDEX tools_workflow_id ON tools (workflow_id);"
    "CREATE TABLE workflow_checks ("
    "  workflow_id    TEXT PRIMARY KEY,"
    "  workflow_name  TEXT,"
    "  discoverable   INTEGER NOT NULL DEFAULT 0,"
    "  tool_name      TEXT,"
    "  checklist_json TEXT NOT NULL,"
    "  position       INTEGER NOT NULL"
    ");"
    "CREATE TABLE discovery_state ("
    "  id           INTEGER PRIMARY KEY CHECK (id = 1),"
    "  last_attempt INTEGER,"
    "  last_success INTEGER,"
    "  last_error   TEXT"
    ");"
    "PRAGMA user_version = 1;" },

  { 2,
    "CREATE TABLE conversations ("
    "  id            TEXT PRIMARY KEY,"
    "  slug          TEXT NOT NULL UNIQUE,"
    "  title         TEXT NOT NULL,"
    "  default_agent TEXT,"
    "  unread_count  INTEGER NOT NULL DEFAULT 0,"
    "  message_count INTEGER NOT NULL DEFAULT 0,"
    "  created_at    TEXT NOT NULL,"
    "  updated_at    TEXT NOT NULL"
    ");"
    "CREATE INDEX conversations_updated_at ON conversations (updated_at);"
    "CREATE TABLE messages ("
    "  id              TEXT PRIMARY KEY,"
    "  conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,"
    "  seq             INTEGER NOT NULL,"
    "  kind            TEXT NOT NULL,"
    "  content         TEXT,"
    "  status          TEXT,"
    "  agent_id        TEXT,"
    "  context_json    TEXT,"
    "  execution_json  TEXT,"
    "  dedup_key       TEXT UNIQUE,"
    "  extra_json      TEXT,"
    "  created_at      TEXT NOT NULL,"
    "  UNIQUE (conversation_id, seq)"
    ");"
    "CREATE INDEX messages_agent_id ON messages (agent_id) WHERE agent_id IS NOT NULL;"
    "CREATE INDEX messages_status ON messages (status) WHERE status IS NOT NULL;"
    "PRAGMA user_version = 2;" },

  { 3,
    /* AI providers (keys live in the keyring, never here). */
    "CREATE TABLE providers ("
    "  id         TEXT PRIMARY KEY,"
    "  name       TEXT NOT NULL UNIQUE,"
    "  kind       TEXT NOT NULL CHECK (kind IN ('openai', 'ollama', 'anthropic', 'gemini')),"
    "  base_url   TEXT,"
    "  model      TEXT NOT NULL,"
    "  enabled    INTEGER NOT NULL DEFAULT 1,"
    "  priority   INTEGER NOT NULL DEFAULT 0,"
    "  created_at TEXT NOT NULL"
    ");"
    /* Agents: allowed_tools is a JSON array of tool names, NULL for all;
     * guidance_json is tool → parameter → source; extra_json keeps front
     * matter keys this version does not know. */
    "CREATE TABLE agents ("
    "  id            TEXT PRIMARY KEY,"
    "  name          TEXT NOT NULL,"
    "  description   TEXT NOT NULL DEFAULT '',"
    "  system_prompt TEXT NOT NULL DEFAULT '',"
    "  allowed_tools TEXT,"
    "  guidance_json TEXT NOT NULL DEFAULT '{}',"
    "  extra_json    TEXT,"
    "  created_at    TEXT NOT NULL,"
    "  updated_at    TEXT NOT NULL"
    ");"
    "INSERT INTO agents (id, name, description, system_prompt, created_at, updated_at) VALUES ("
    "  'prosponsive', 'Prosponsive', 'The default agent: every tool, no special instructions.',"
    "  'You are Prosponsive, a helpful assistant on the user''s desktop. Use the available tools when they help, and say plainly what you did.',"
    "  strftime ('%Y-%m-%dT%H:%M:%fZ', 'now'), strftime ('%Y-%m-%dT%H:%M:%fZ', 'now'));"
    /* Auto-approval rules: NULL matches anything. */
    "CREATE TABLE approval_rules ("
    "  id                INTEGER PRIMARY KEY AUTOINCREMENT,"
    "  tool              TEXT,"
    "  agent_id          TEXT,"
    "  conversation_slug TEXT,"
    "  action            TEXT NOT NULL CHECK (action IN ('approve', 'deny')),"
    "  created_at        TEXT NOT NULL"
    ");"
    /* Request Context field discovery (docs/conversations.md), cumulative per conversation. */
    "CREATE TABLE context_fields ("
    "  conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,"
    "  path            TEXT NOT NULL,"
    "  type            TEXT NOT NULL,"
    "  sample          TEXT,"
    "  workflow_id     TEXT,"
    "  message_id      TEXT,"
    "  seen_count      INTEGER NOT NULL DEFAULT 1,"
    "  first_seen      TEXT NOT NULL,"
    "  last_seen       TEXT NOT NULL,"
    "  PRIMARY KEY (conversation_id, path)"
    ");"
    "PRAGMA user_version = 3;" },

  { 4,
    /* Agent runs (docs/runs.md): each step is stored, so a restart loses nothing.
     * The transcript is what the model saw and said in the run. */
    "CREATE TABLE runs ("
    "  id                   TEXT PRIMARY KEY,"
    "  conversation_id      TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,"
    "  agent_id             TEXT NOT NULL,"
    "  origin               TEXT NOT NULL CHECK (origin IN ('chat', 'inference', 'agent-inference')),"
    "  trigger_message_id   TEXT,"
    "  status               TEXT NOT NULL,"
    "  context_json         TEXT,"
    "  execution_json       TEXT,"
    "  options_json         TEXT,"
    "  transcript_json      TEXT NOT NULL DEFAULT '[]',"
    "  assistant_message_id TEXT,"
    "  stop_reason          TEXT,"
    "  error                TEXT,"
    "  round                INTEGER NOT NULL DEFAULT 0,"
    "  created_at           TEXT NOT NULL,"
    "  updated_at           TEXT NOT NULL"
    ");"
    "CREATE INDEX runs_status ON runs (status);"
    "CREATE INDEX runs_trigger ON runs (trigger_message_id) WHERE trigger_message_id IS NOT NULL;"
    "CREATE TABLE tool_calls ("
    "  id                TEXT PRIMARY KEY,"
    "  run_id            TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,"
    "  message_id        TEXT NOT NULL,"
    "  result_message_id TEXT,"
    "  round             INTEGER NOT NULL,"
    "  position          INTEGER NOT NULL,"
    "  provider_call_id  TEXT,"
    "  name              TEXT NOT NULL,"
    "  arguments_json    TEXT NOT NULL,"
    "  status            TEXT NOT NULL,"
    "  result_text       TEXT,"
    "  created_at        TEXT NOT NULL,"
    "  updated_at        TEXT NOT NULL"
    ");"
    "CREATE INDEX tool_calls_run ON tool_calls (run_id, round, position);"
    "CREATE INDEX tool_calls_message ON tool_calls (message_id);"
    "PRAGMA user_version = 4;" },

  { 5,
    /* Duplicate keys of inference requests are scoped to route,
     * conversation and agent (prs-api-idempotency.h); before, one
     * conversation's idempotencyKey answered another's request. Each
     * stored key keeps its meaning, in its own scope only. */
    "UPDATE messages SET dedup_key = substr (dedup_key, 1, 5)"
    "  || COALESCE (CASE WHEN json_valid (extra_json) THEN json_extract (extra_json, '$.route') END,"
    "               'agent-inference')"
    "  || ':' || conversation_id || ':' || COALESCE (agent_id, '') || ':' || substr (dedup_key, 6)"
    " WHERE substr (dedup_key, 1, 5) IN ('idem:', 'exec:');"
    "PRAGMA user_version = 5;" },

  { 6,
    /* MCP servers the user added (src/core/mcp/). Secrets are not here:
     * header values and the env values marked secret live in the keyring;
     * headers_json and secret_env_json only name them. */
    "CREATE TABLE mcp_servers ("
    "  id              TEXT PRIMARY KEY,"
    /* Unique ignoring case: the name starts its tools' names, and some
     * providers compare those ignoring case */
    "  name            TEXT NOT NULL UNIQUE COLLATE NOCASE,"
    "  transport       TEXT NOT NULL CHECK (transport IN ('stdio', 'http')),"
    "  command         TEXT,"
    "  args_json       TEXT NOT NULL DEFAULT '[]',"
    "  env_json        TEXT NOT NULL DEFAULT '[]',"
    "  secret_env_json TEXT NOT NULL DEFAULT '[]',"
    "  url             TEXT,"
    "  headers_json    TEXT NOT NULL DEFAULT '[]',"
    "  enabled         INTEGER NOT NULL DEFAULT 1,"
    "  shared          INTEGER NOT NULL DEFAULT 0,"
    "  created_at      TEXT NOT NULL,"
    "  CHECK ((transport = 'stdio' AND command IS NOT NULL AND url IS NULL) OR"
    "         (transport = 'http' AND url IS NOT NULL AND command IS NULL))"
    ");"
    "PRAGMA user_version = 6;" },

  /* Insights (docs/insights.md): model calls, tool call start times, the
   * daily totals and the triggers that keep them; the SQL is long and
   * lives beside its queries */
  { 7, prs_store_insights_schema },
};

int
prs_store_get_latest_version (void)
{
  return migrations[G_N_ELEMENTS (migrations) - 1].version;
}

/* ---- Statements ---------------------------------------------------------- */

void
prs_stmt_release (PrsStmt *stmt)
{
  sqlite3_reset (stmt);
  sqlite3_clear_bindings (stmt);
}

static void
stmt_finalize (gpointer data)
{
  sqlite3_finalize (data);
}

/* ---- The disk being full, for the whole process ---- */

/* Any connection (main thread, API thread) that hits a full disk sets it;
 * the next successful commit clears it. A handler on one main context
 * hears each change (PrsService: the window's banner). */
static gint storage_full;
static GMutex full_handler_lock;
static GMainContext *full_handler_context;
static GSourceFunc full_handler_func;
static GObject *full_handler_data;     /* not a reference; each source holds one */

static void
storage_full_changed (void)
{
  g_mutex_lock (&full_handler_lock);
  if (full_handler_func != NULL)
    {
      /* Always later, never inside the failing write's own stack */
      GSource *source = g_idle_source_new ();

      g_source_set_priority (source, G_PRIORITY_DEFAULT);
      g_source_set_callback (source, full_handler_func, g_object_ref (full_handler_data), g_object_unref);
      g_source_set_static_name (source, "[prosponsive] storage full");
      g_source_attach (source, full_handler_context);
      g_source_unref (source);
    }
  g_mutex_unlock (&full_handler_lock);
}

gboolean
prs_store_is_storage_full (void)
{
  return g_atomic_int_get (&storage_full) != 0;
}

void
prs_store_set_storage_full_handler (GMainContext *context,
                                    GSourceFunc   func,
                                    GObject      *data)
{
  g_return_if_fail (G_IS_OBJECT (data));

  g_mutex_lock (&full_handler_lock);
  g_clear_pointer (&full_handler_context, g_main_context_unref);
  full_handler_context = context != NULL ? g_main_context_ref (context) : NULL;
  full_handler_func = func;
  full_handler_data = data;
  g_mutex_unlock (&full_handler_lock);
}

void
prs_store_clear_storage_full_handler (GObject *data)
{
  g_mutex_lock (&full_handler_lock);
  if (full_handler_data == data)
    {
      g_clear_pointer (&full_handler_context, g_main_context_unref);
      full_handler_func = NULL;
      full_handler_data = NULL;
    }
  g_mutex_unlock (&full_handler_lock);
}

/* Every connection waits BUSY_TIMEOUT_MS for another (in this process or
 * another: the app, prosponsive-ctl) to finish writing; past that, the
 * person reading the error must learn what happened and that trying again
 * is the answer. */
void
prs_store_set_busy_error (PrsStore  *self,
                          GError   **error)
{
  g_set_error (error, PRS_ERROR, PRS_ERROR_STORE_BUSY,
               _("The database “%s” stayed in use by another program (Prosponsive or "
                 "prosponsive-ctl) for more than %d seconds. Try again in a moment."),
               self->path, BUSY_TIMEOUT_MS / 1000);
}

void
prs_store_set_error (PrsStore    *self,
                  GError     **error,
                  const char  *what)
{
  /* A full disk is its own code: the API answers 507 and the window says
   * so, instead of "internal error" */
  gboolean full = (sqlite3_extended_errcode (self->db) & 0xff) == SQLITE_FULL ||
                  sqlite3_system_errno (self->db) == ENOSPC ||
                  sqlite3_system_errno (self->db) == EDQUOT;

  if ((sqlite3_extended_errcode (self->db) & 0xff) == SQLITE_BUSY)
    {
      prs_store_set_busy_error (self, error);
      return;
    }

  g_set_error (error, PRS_ERROR, full ? PRS_ERROR_STORE_FULL : PRS_ERROR_STORE, "%s: %s",
               what, sqlite3_errmsg (self->db));
  if (full && g_atomic_int_compare_and_exchange (&storage_full, 0, 1))
    storage_full_changed ();
}

PrsStmt *
prs_store_prepare_cached (PrsStore    *self,
               const char  *sql,
               GError     **error)
{
  sqlite3_stmt *stmt = g_hash_table_lookup (self->statements, sql);

  if (stmt == NULL)
    {
      if (sqlite3_prepare_v3 (self->db, sql, -1, SQLITE_PREPARE_PERSISTENT,
                              &stmt, NULL) != SQLITE_OK)
        {
          prs_store_set_error (self, error, "Could not prepare a database query");
          return NULL;
        }
      g_hash_table_insert (self->statements, (gpointer) sql, stmt);
    }

  return stmt;
}

void
prs_store_bind_text (sqlite3_stmt *stmt,
           int           index,
           const char   *value)
{
  if (value != NULL)
    sqlite3_bind_text (stmt, index, value, -1, SQLITE_TRANSIENT);
  else
    sqlite3_bind_null (stmt, index);
}

const char *
prs_store_column_text (sqlite3_stmt *stmt,
             int           column)
{
  return (const char *) sqlite3_column_text (stmt, column);
}

/* Steps a statement that returns no row. */
gboolean
prs_store_step_done (PrsStore      *self,
           sqlite3_stmt  *stmt,
           const char    *what,
           GError       **error)
{
  int rc = sqlite3_step (stmt);

  if (rc == SQLITE_DONE || rc == SQLITE_ROW)
    return TRUE;

  prs_store_set_error (self, error, what);
  return FALSE;
}

/* 1 for a row, 0 at the end, -1 on error. */
int
prs_store_step_row (PrsStore      *self,
          sqlite3_stmt  *stmt,
          const char    *what,
          GError       **error)
{
  int rc = sqlite3_step (stmt);

  if (rc == SQLITE_ROW)
    return 1;
  if (rc == SQLITE_DONE)
    return 0;

  prs_store_set_error (self, error, what);
  return -1;
}

gboolean
prs_store_exec_cached (PrsStore    *self,
             const char  *sql,
             const char  *what,
             GError     **error)
{
  g_autoptr(PrsStmt) stmt = prs_store_prepare_cached (self, sql, error);

  return stmt != NULL && prs_store_step_done (self, stmt, what, error);
}

/* ---- Transactions -------------------------------------------------------- */

gboolean
prs_store_begin_immediate (PrsStore  *self,
                 GError   **error)
{
  return prs_store_exec_cached (self, "BEGIN IMMEDIATE",
                      "Could not start writing to the database", error);
}

void
prs_store_rollback (PrsStore *self)
{
  if (!sqlite3_get_autocommit (self->db))
    {
      g_autoptr(PrsStmt) stmt = prs_store_prepare_cached (self, "ROLLBACK", NULL);

      if (stmt != NULL)
        sqlite3_step (stmt);
    }
}

gboolean
prs_store_commit (PrsStore  *self,
        GError   **error)
{
  if (!prs_store_exec_cached (self, "COMMIT", "Could not save to the database", error))
    {
      prs_store_rollback (self);
      return FALSE;
    }

  /* A write went through: there is room again */
  if (g_atomic_int_get (&storage_full) && g_atomic_int_compare_and_exchange (&storage_full, 1, 0))
    storage_full_changed ();
  return TRUE;
}

gboolean
prs_store_delete_one (PrsStore    *self,
                      const char  *sql,
                      const char  *id,
                      const char  *what,
                      gboolean    *out_found,
                      GError     **error)
{
  g_autoptr(PrsStmt) stmt = NULL;

  if (!prs_store_begin_immediate (self, error))
    return FALSE;
  stmt = prs_store_prepare_cached (self, sql, error);
  if (stmt != NULL)
    prs_store_bind_text (stmt, 1, id);
  if (stmt == NULL || !prs_store_step_done (self, stmt, what, error))
    {
      g_clear_pointer (&stmt, prs_stmt_release);
      prs_store_rollback (self);
      return FALSE;
    }
  *out_found = sqlite3_changes (self->db) > 0;
  g_clear_pointer (&stmt, prs_stmt_release);
  return prs_store_commit (self, error);
}

/* ---- Opening ------------------------------------------------------------- */

static void
prs_store_finalize (GObject *object)
{
  PrsStore *self = (PrsStore *) object;

  /* The statements go before the connection they belong to. */
  g_clear_pointer (&self->statements, g_hash_table_unref);
  g_clear_pointer (&self->db, sqlite3_close);
  g_clear_pointer (&self->path, g_free);

  G_OBJECT_CLASS (prs_store_parent_class)->finalize (object);
}

static void
prs_store_class_init (PrsStoreClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = prs_store_finalize;
}

static void
prs_store_init (PrsStore *self)
{
  self->statements = g_hash_table_new_full (g_str_hash, g_str_equal,
                                            NULL, stmt_finalize);
}

static gboolean
read_user_version (PrsStore  *self,
                   int       *out_version,
                   GError   **error)
{
  g_autoptr(PrsStmt) stmt = prs_store_prepare_cached (self, "PRAGMA user_version", error);

  if (stmt == NULL)
    return FALSE;
  if (prs_store_step_row (self, stmt, "Could not read the database version", error) != 1)
    {
      if (error != NULL && *error == NULL)
        g_set_error_literal (error, PRS_ERROR, PRS_ERROR_STORE,
                             "Could not read the database version");
      return FALSE;
    }

  *out_version = sqlite3_column_int (stmt, 0);
  return TRUE;
}

/* WAL needs a moment of exclusive access when a new file is first switched,
 * which another connection opening at the same time may hold; the busy
 * handler does not cover every path there, so retry for a while. */
static gboolean
enable_wal (PrsStore  *self,
            GError   **error)
{
  gint64 deadline = g_get_monotonic_time () + BUSY_TIMEOUT_MS * G_TIME_SPAN_MILLISECOND;

  for (;;)
    {
      sqlite3_stmt *stmt = NULL;
      g_autofree char *mode = NULL;
      int rc;

      rc = sqlite3_prepare_v2 (self->db, "PRAGMA journal_mode = WAL", -1, &stmt, NULL);
      if (rc == SQLITE_OK)
        {
          rc = sqlite3_step (stmt);
          if (rc == SQLITE_ROW)
            mode = g_strdup (prs_store_column_text (stmt, 0));
        }

      if (rc == SQLITE_ROW)
        {
          sqlite3_finalize (stmt);
          if (g_ascii_strcasecmp (mode != NULL ? mode : "", "wal") != 0)
            {
              g_set_error (error, PRS_ERROR, PRS_ERROR_STORE,
                           "The database “%s” cannot use write-ahead logging (journal mode %s)",
                           self->path, mode != NULL ? mode : "unknown");
              return FALSE;
            }
          return TRUE;
        }

      if ((rc & 0xff) == SQLITE_BUSY && g_get_monotonic_time () < deadline)
        {
          sqlite3_finalize (stmt);
          g_usleep (10 * G_TIME_SPAN_MILLISECOND);
          continue;
        }

      if ((rc & 0xff) == SQLITE_BUSY)
        prs_store_set_busy_error (self, error);
      else
        g_set_error (error, PRS_ERROR, PRS_ERROR_STORE,
                     "Could not open the database “%s”: %s",
                     self->path, sqlite3_errmsg (self->db));
      sqlite3_finalize (stmt);
      return FALSE;
    }
}

static gboolean
run_migration (PrsStore            *self,
               const PrsMigration  *migration,
               GError             **error)
{
  char *errmsg = NULL;
  int current;

  if (!prs_store_begin_immediate (self, error))
    return FALSE;

  /* Another connection may have migrated while this one waited for the lock. */
  if (!read_user_version (self, &current, error))
    goto fail;
  if (current >= migration->version)
    return prs_store_commit (self, error);
  if (current != migration->version - 1)
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_STORE,
                   "The database “%s” is at schema version %d, expected %d",
                   self->path, current, migration->version - 1);
      goto fail;
    }

  if (sqlite3_exec (self->db, migration->sql, NULL, NULL, &errmsg) != SQLITE_OK)
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_STORE,
                   "Could not upgrade the database “%s” to version %d: %s",
                   self->path, migration->version,
                   errmsg != NULL ? errmsg : sqlite3_errmsg (self->db));
      sqlite3_free (errmsg);
      goto fail;
    }

  if (!read_user_version (self, &current, error))
    goto fail;
  g_assert (current == migration->version);

  return prs_store_commit (self, error);

fail:
  prs_store_rollback (self);
  return FALSE;
}

const char * const prs_store_file_suffixes[] = { "", "-wal", "-shm", "-journal", NULL };

/* The database and the files SQLite keeps beside it: each is checked by
 * name only (see prs_paths_check_file) before SQLite opens it. A planted
 * -wal or -journal would be replayed into the database. */
static gboolean
check_database_files (const char  *db_path,
                      GError     **error)
{
  for (guint i = 0; prs_store_file_suffixes[i] != NULL; i++)
    {
      g_autofree char *path = g_strconcat (db_path, prs_store_file_suffixes[i], NULL);

      if (!prs_paths_check_file (path, error))
        return FALSE;
    }

  return TRUE;
}

static PrsStore *
store_open (const char  *db_path,
            int          target_version,
            GError     **error)
{
  g_autoptr(PrsStore) self = NULL;
  int version;

  if (!check_database_files (db_path, error))
    return NULL;

  self = g_object_new (PRS_TYPE_STORE, NULL);
  self->path = g_strdup (db_path);

  /* Only SQLite ever opens the database's files. POSIX locks belong to the
   * process and the file, not to a descriptor: closing any descriptor of
   * the file would silently drop every lock this process's connections
   * hold, and another process would then checkpoint and delete the WAL
   * under them. */
  if (sqlite3_open_v2 (db_path, &self->db,
                       SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOFOLLOW,
                       NULL) != SQLITE_OK)
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_STORE,
                   "Could not open the database “%s”: %s", db_path,
                   self->db != NULL ? sqlite3_errmsg (self->db) : "out of memory");
      return NULL;
    }

  /* SQLite makes a new file 0644 & ~umask: made 0600 by name before the first byte
   * is written; SQLite then gives the -wal and -shm files its mode. */
  if (!prs_paths_check_file (db_path, error))
    return NULL;

  sqlite3_extended_result_codes (self->db, 1);
  sqlite3_busy_timeout (self->db, BUSY_TIMEOUT_MS);

  if (!enable_wal (self, error))
    return NULL;

  if (sqlite3_exec (self->db,
                    "PRAGMA synchronous = FULL;"
                    "PRAGMA foreign_keys = ON;",
                    NULL, NULL, NULL) != SQLITE_OK)
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_STORE,
                   "Could not set up the database “%s”: %s",
                   db_path, sqlite3_errmsg (self->db));
      return NULL;
    }

  if (!read_user_version (self, &version, error))
    return NULL;

  if (version > prs_store_get_latest_version ())
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_STORE,
                   "The database “%s” was written by a newer version of Prosponsive "
                   "(schema version %d; this one knows up to %d)",
                   db_path, version, prs_store_get_latest_version ());
      return NULL;
    }

  for (guint i = 0; i < G_N_ELEMENTS (migrations); i++)
    {
      if (migrations[i].version <= version)
        continue;
      if (migrations[i].version > target_version)
        break;
      if (!run_migration (self, &migrations[i], error))
        return NULL;
    }

  return g_steal_pointer (&self);
}

PrsStore *
prs_store_new (const char  *data_dir,
               GError     **error)
{
  g_autofree char *path = NULL;

  g_return_val_if_fail (data_dir != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!prs_paths_ensure_data_dir (data_dir, error))
    return NULL;

  path = g_build_filename (data_dir, DB_FILE_NAME, NULL);
  return store_open (path, prs_store_get_latest_version (), error);
}

PrsStore *
prs_store_new_for_path (const char  *db_path,
                        GError     **error)
{
  g_return_val_if_fail (db_path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return store_open (db_path, prs_store_get_latest_version (), error);
}

PrsStore *
prs_store_new_at_version (const char  *db_path,
                          int          version,
                          GError     **error)
{
  g_return_val_if_fail (db_path != NULL, NULL);
  g_return_val_if_fail (version >= 0, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return store_open (db_path, version, error);
}

int
prs_store_get_schema_version (PrsStore *self)
{
  int version = -1;

  g_return_val_if_fail (PRS_IS_STORE (self), -1);

  if (!read_user_version (self, &version, NULL))
    return -1;

  return version;
}

const char *
prs_store_get_path (PrsStore *self)
{
  g_return_val_if_fail (PRS_IS_STORE (self), NULL);

  return self->path;
}

char *
prs_store_dup_pragma (PrsStore    *self,
                      const char  *name,
                      GError     **error)
{
  static const struct { const char *name; const char *sql; } pragmas[] = {
    { "journal_mode", "PRAGMA journal_mode" },
    { "synchronous", "PRAGMA synchronous" },
    { "foreign_keys", "PRAGMA foreign_keys" },
    { "busy_timeout", "PRAGMA busy_timeout" },
    { "user_version", "PRAGMA user_version" },
  };

  g_return_val_if_fail (PRS_IS_STORE (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (pragmas); i++)
    {
      g_autoptr(PrsStmt) stmt = NULL;

      if (g_strcmp0 (pragmas[i].name, name) != 0)
        continue;

      stmt = prs_store_prepare_cached (self, pragmas[i].sql, error);
      if (stmt == NULL)
        return NULL;
      if (prs_store_step_row (self, stmt, "Could not read a database setting", error) != 1)
        return NULL;
      return g_strdup (prs_store_column_text (stmt, 0));
    }

  g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
               "“%s” is not a database setting the store reports", name);
  return NULL;
}

/* ---- Settings ------------------------------------------------------------ */

char *
prs_store_dup_setting (PrsStore   *self,
                       const char *key)
{
  g_autoptr(PrsStmt) stmt = NULL;

  g_return_val_if_fail (PRS_IS_STORE (self), NULL);
  g_return_val_if_fail (key != NULL, NULL);

  stmt = prs_store_prepare_cached (self, "SELECT value FROM settings WHERE key = ?1", NULL);
  if (stmt == NULL)
    return NULL;

  prs_store_bind_text (stmt, 1, key);
  if (prs_store_step_row (self, stmt, "Could not read a setting", NULL) != 1)
    return NULL;

  return g_strdup (prs_store_column_text (stmt, 0));
}

gboolean
prs_store_set_setting (PrsStore    *self,
                       const char  *key,
                       const char  *value,
                       GError     **error)
{
  g_autoptr(PrsStmt) stmt = NULL;

  g_return_val_if_fail (PRS_IS_STORE (self), FALSE);
  g_return_val_if_fail (key != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!prs_store_begin_immediate (self, error))
    return FALSE;

  if (value != NULL)
    stmt = prs_store_prepare_cached (self,
                          "INSERT INTO settings (key, value) VALUES (?1, ?2) "
                          "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                          error);
  else
    stmt = prs_store_prepare_cached (self, "DELETE FROM settings WHERE key = ?1", error);
  if (stmt == NULL)
    goto fail;

  prs_store_bind_text (stmt, 1, key);
  if (value != NULL)
    prs_store_bind_text (stmt, 2, value);
  if (!prs_store_step_done (self, stmt, "Could not save a setting", error))
    goto fail;

  return prs_store_commit (self, error);

fail:
  prs_store_rollback (self);
  return FALSE;
}

/* ---- Discovery ----------------------------------------------------------- */

static gboolean
insert_tool (PrsStore       *self,
             const PrsTool  *tool,
             gint64          when,
             GError        **error)
{
  g_autoptr(PrsStmt) stmt = NULL;
  g_autoptr(JsonNode) tool_node = NULL;
  g_autoptr(JsonNode) schema_node = NULL;
  g_autofree char *tool_json = NULL;
  g_autofree char *schema_json = NULL;

  if (tool == NULL || tool->name == NULL || tool->workflow_id == NULL ||
      tool->webhook_path == NULL)
    {
      g_set_error_literal (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                           "A discovered tool lacks its name, workflow or webhook path");
      return FALSE;
    }

  tool_node = prs_tool_to_json (tool);
  schema_node = prs_tool_build_input_schema (tool);
  tool_json = prs_json_to_string (tool_node, FALSE);
  schema_json = prs_json_to_string (schema_node, FALSE);

  stmt = prs_store_prepare_cached (self,
                        "INSERT INTO tools (name, workflow_id, webhook_path, webhook_method,"
                        " response_mode, webhook_id, webhook_node_name, created_at,"
                        " tool_json, schema_json, discovered_at)"
                        " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
                        error);
  if (stmt == NULL)
    return FALSE;

  prs_store_bind_text (stmt, 1, tool->name);
  prs_store_bind_text (stmt, 2, tool->workflow_id);
  prs_store_bind_text (stmt, 3, tool->webhook_path);
  prs_store_bind_text (stmt, 4, tool->webhook_method);
  prs_store_bind_text (stmt, 5, tool->response_mode);
  prs_store_bind_text (stmt, 6, tool->webhook_id);
  prs_store_bind_text (stmt, 7, tool->webhook_node_name);
  prs_store_bind_text (stmt, 8, tool->created_at);
  prs_store_bind_text (stmt, 9, tool_json);
  prs_store_bind_text (stmt, 10, schema_json);
  sqlite3_bind_int64 (stmt, 11, when);

  if (sqlite3_step (stmt) != SQLITE_DONE)
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_STORE,
                   "Could not save the tool “%s”: %s",
                   tool->name, sqlite3_errmsg (self->db));
      return FALSE;
    }

  return TRUE;
}

static const char *
object_get_string_or_null (JsonObject *object,
                           const char *member)
{
  JsonNode *node = json_object_get_member (object, member);

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) ||
      json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;

  return json_node_get_string (node);
}

static gboolean
insert_workflow_check (PrsStore    *self,
                       JsonNode    *node,
                       guint        position,
                       GError     **error)
{
  g_autoptr(PrsStmt) stmt = NULL;
  g_autofree char *checklist_json = NULL;
  JsonObject *object;
  const char *workflow_id;

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    goto invalid;
  object = json_node_get_object (node);
  workflow_id = object_get_string_or_null (object, "workflowId");
  if (workflow_id == NULL)
    goto invalid;

  checklist_json = prs_json_to_string (node, FALSE);

  stmt = prs_store_prepare_cached (self,
                        "INSERT INTO workflow_checks (workflow_id, workflow_name,"
                        " discoverable, tool_name, checklist_json, position)"
                        " VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                        error);
  if (stmt == NULL)
    return FALSE;

  prs_store_bind_text (stmt, 1, workflow_id);
  prs_store_bind_text (stmt, 2, object_get_string_or_null (object, "workflowName"));
  sqlite3_bind_int (stmt, 3,
                    json_object_get_boolean_member_with_default (object, "discoverable", FALSE));
  prs_store_bind_text (stmt, 4, object_get_string_or_null (object, "toolName"));
  prs_store_bind_text (stmt, 5, checklist_json);
  sqlite3_bind_int64 (stmt, 6, position);

  if (sqlite3_step (stmt) != SQLITE_DONE)
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_STORE,
                   "Could not save the checklist of workflow “%s”: %s",
                   workflow_id, sqlite3_errmsg (self->db));
      return FALSE;
    }

  return TRUE;

invalid:
  g_set_error_literal (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                       "A workflow checklist is not an object with a workflowId");
  return FALSE;
}

gboolean
prs_store_save_discovery (PrsStore   *self,
                          GPtrArray  *tools,
                          JsonArray  *checklists,
                          gint64      when,
                          GError    **error)
{
  g_autoptr(PrsStmt) stmt = NULL;

  g_return_val_if_fail (PRS_IS_STORE (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!prs_store_begin_immediate (self, error))
    return FALSE;

  if (!prs_store_exec_cached (self, "DELETE FROM tools", "Could not replace the tools", error))
    goto fail;
  for (guint i = 0; tools != NULL && i < tools->len; i++)
    if (!insert_tool (self, g_ptr_array_index (tools, i), when, error))
      goto fail;

  if (!prs_store_exec_cached (self, "DELETE FROM workflow_checks",
                    "Could not replace the workflow checklists", error))
    goto fail;
  for (guint i = 0; checklists != NULL && i < json_array_get_length (checklists); i++)
    if (!insert_workflow_check (self, json_array_get_element (checklists, i), i, error))
      goto fail;

  stmt = prs_store_prepare_cached (self,
                        "INSERT INTO discovery_state (id, last_attempt, last_success, last_error)"
                        " VALUES (1, ?1, ?1, NULL)"
                        " ON CONFLICT (id) DO UPDATE SET last_attempt = excluded.last_attempt,"
                        " last_success = excluded.last_success, last_error = NULL",
                        error);
  if (stmt == NULL)
    goto fail;
  sqlite3_bind_int64 (stmt, 1, when);
  if (!prs_store_step_done (self, stmt, "Could not record the discovery", error))
    goto fail;

  return prs_store_commit (self, error);

fail:
  prs_store_rollback (self);
  return FALSE;
}

gboolean
prs_store_record_discovery_failure (PrsStore    *self,
                                    const char  *message,
                                    gint64       when,
                                    GError     **error)
{
  g_autoptr(PrsStmt) stmt = NULL;

  g_return_val_if_fail (PRS_IS_STORE (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!prs_store_begin_immediate (self, error))
    return FALSE;

  stmt = prs_store_prepare_cached (self,
                        "INSERT INTO discovery_state (id, last_attempt, last_error)"
                        " VALUES (1, ?1, ?2)"
                        " ON CONFLICT (id) DO UPDATE SET last_attempt = excluded.last_attempt,"
                        " last_error = excluded.last_error",
                        error);
  if (stmt == NULL)
    goto fail;
  sqlite3_bind_int64 (stmt, 1, when);
  prs_store_bind_text (stmt, 2, message != NULL ? message : "Discovery failed");
  if (!prs_store_step_done (self, stmt, "Could not record the failed discovery", error))
    goto fail;

  return prs_store_commit (self, error);

fail:
  prs_store_rollback (self);
  return FALSE;
}

/* Columns: tool_json, webhook_id, webhook_node_name, created_at, discovered_at */
static PrsTool *
tool_from_row (sqlite3_stmt  *stmt,
               GError       **error)
{
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(GError) local_error = NULL;
  PrsTool *tool;

  node = json_from_string (prs_store_column_text (stmt, 0), &local_error);
  if (node == NULL)
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_STORE,
                   "A stored tool is damaged: %s",
                   local_error != NULL ? local_error->message : "empty");
      return NULL;
    }

  tool = prs_tool_new_from_json (node, error);
  if (tool == NULL)
    return NULL;

  tool->webhook_id = g_strdup (prs_store_column_text (stmt, 1));
  tool->webhook_node_name = g_strdup (prs_store_column_text (stmt, 2));
  tool->created_at = g_strdup (prs_store_column_text (stmt, 3));
  tool->discovered_at = sqlite3_column_int64 (stmt, 4);

  return tool;
}

GPtrArray *
prs_store_list_tools (PrsStore  *self,
                      GError   **error)
{
  g_autoptr(PrsStmt) stmt = NULL;

  g_return_val_if_fail (PRS_IS_STORE (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  stmt = prs_store_prepare_cached (self,
                        "SELECT tool_json, webhook_id, webhook_node_name, created_at,"
                        " discovered_at FROM tools ORDER BY name",
                        error);
  if (stmt == NULL)
    return NULL;

  return prs_store_collect_rows (self, stmt, "Could not read the tools",
                                 (PrsStoreReadRow) tool_from_row, (GDestroyNotify) prs_tool_free, error);
}

PrsTool *
prs_store_lookup_tool (PrsStore    *self,
                       const char  *name,
                       GError     **error)
{
  g_autoptr(PrsStmt) stmt = NULL;
  int row;

  g_return_val_if_fail (PRS_IS_STORE (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  stmt = prs_store_prepare_cached (self,
                        "SELECT tool_json, webhook_id, webhook_node_name, created_at,"
                        " discovered_at FROM tools WHERE name = ?1",
                        error);
  if (stmt == NULL)
    return NULL;

  prs_store_bind_text (stmt, 1, name);
  row = prs_store_step_row (self, stmt, "Could not read a tool", error);
  if (row < 0)
    return NULL;
  if (row == 0)
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_NOT_FOUND,
                   "There is no tool named “%s”", name);
      return NULL;
    }

  return tool_from_row (stmt, error);
}

JsonArray *
prs_store_list_workflow_checks (PrsStore  *self,
                                GError   **error)
{
  g_autoptr(PrsStmt) stmt = NULL;
  g_autoptr(JsonArray) checks = NULL;
  int row;

  g_return_val_if_fail (PRS_IS_STORE (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  stmt = prs_store_prepare_cached (self,
                        "SELECT checklist_json FROM workflow_checks ORDER BY position",
                        error);
  if (stmt == NULL)
    return NULL;

  checks = json_array_new ();
  while ((row = prs_store_step_row (self, stmt, "Could not read the workflow checklists", error)) == 1)
    {
      g_autoptr(GError) local_error = NULL;
      JsonNode *node = json_from_string (prs_store_column_text (stmt, 0), &local_error);

      if (node == NULL)
        {
          g_set_error (error, PRS_ERROR, PRS_ERROR_STORE,
                       "A stored workflow checklist is damaged: %s",
                       local_error != NULL ? local_error->message : "empty");
          return NULL;
        }
      json_array_add_element (checks, node);
    }
  if (row < 0)
    return NULL;

  return g_steal_pointer (&checks);
}

void
prs_store_get_discovery_status (PrsStore  *self,
                                gint64    *last_attempt,
                                gint64    *last_success,
                                char     **last_error)
{
  g_autoptr(PrsStmt) stmt = NULL;

  if (last_attempt != NULL)
    *last_attempt = 0;
  if (last_success != NULL)
    *last_success = 0;
  if (last_error != NULL)
    *last_error = NULL;

  g_return_if_fail (PRS_IS_STORE (self));

  stmt = prs_store_prepare_cached (self,
                        "SELECT last_attempt, last_success, last_error"
                        " FROM discovery_state WHERE id = 1",
                        NULL);
  if (stmt == NULL || prs_store_step_row (self, stmt, "Could not read the discovery status", NULL) != 1)
    return;

  if (last_attempt != NULL)
    *last_attempt = sqlite3_column_int64 (stmt, 0);
  if (last_success != NULL)
    *last_success = sqlite3_column_int64 (stmt, 1);
  if (last_error != NULL)
    *last_error = g_strdup (prs_store_column_text (stmt, 2));
}

/* ---- Conversations and messages ------------------------------------------ */

GPtrArray *
prs_store_collect_rows (PrsStore         *self,
                        sqlite3_stmt     *stmt,
                        const char       *what,
                        PrsStoreReadRow   read,
                        GDestroyNotify    free_func,
                        GError          **error)
{
  g_autoptr(GPtrArray) items = g_ptr_array_new_with_free_func (free_func);
  int row;

  while ((row = prs_store_step_row (self, stmt, what, error)) == 1)
    {
      gpointer item = read (stmt, error);

      if (item == NULL)
        return NULL;
      g_ptr_array_add (items, item);
    }
  if (row < 0)
    return NULL;

  return g_steal_pointer (&items);
}

char *
prs_store_now_iso8601 (void)
{
  g_autoptr(GDateTime) now = g_date_time_new_now_utc ();
  g_autofree char *seconds = g_date_time_format (now, "%Y-%m-%dT%H:%M:%S");

  return g_strdup_printf ("%s.%03dZ", seconds, g_date_time_get_microsecond (now) / 1000);
}

static gboolean
lookup_conversation_by_slug (PrsStore    *self,
                             const char  *slug,
                             char       **out_id,
                             GError     **error)
{
  g_autoptr(PrsStmt) stmt = NULL;
  int row;

  stmt = prs_store_prepare_cached (self, "SELECT id FROM conversations WHERE slug = ?1", error);
  if (stmt == NULL)
    return FALSE;

  prs_store_bind_text (stmt, 1, slug);
  row = prs_store_step_row (self, stmt, "Could not look up a conversation", error);
  if (row < 0)
    return FALSE;

  *out_id = row == 1 ? g_strdup (prs_store_column_text (stmt, 0)) : NULL;
  return TRUE;
}

gboolean
prs_store_lookup_conversation_slug (PrsStore    *self,
                                    const char  *slug,
                                    char       **out_id,
                                    GError     **error)
{
  g_return_val_if_fail (PRS_IS_STORE (self), FALSE);
  g_return_val_if_fail (out_id != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  *out_id = NULL;
  if (slug == NULL)
    return TRUE;
  return lookup_conversation_by_slug (self, slug, out_id, error);
}

gboolean
prs_store_resolve_conversation (PrsStore    *self,
                                const char  *slug,
                                char       **out_id,
                                gboolean    *out_created,
                                GError     **error)
{
  g_autoptr(PrsStmt) stmt = NULL;
  g_autofree char *id = NULL;
  g_autofree char *now = NULL;

  g_return_val_if_fail (PRS_IS_STORE (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (slug == NULL || slug[0] == '\0')
    {
      g_set_error_literal (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                           "A conversation slug must not be empty");
      return FALSE;
    }

  /* Most calls name a conversation that exists: answer those without
   * taking the write lock. */
  if (!lookup_conversation_by_slug (self, slug, &id, error))
    return FALSE;

  if (id == NULL)
    {
      if (!prs_store_begin_immediate (self, error))
        return FALSE;

      /* Under the write lock nobody can insert the same slug in between. */
      if (!lookup_conversation_by_slug (self, slug, &id, error))
        goto fail;

      if (id != NULL)
        {
          if (!prs_store_commit (self, error))
            return FALSE;
        }
      else
        {
          id = g_uuid_string_random ();
          now = prs_store_now_iso8601 ();

          stmt = prs_store_prepare_cached (self,
                                "INSERT INTO conversations (id, slug, title, created_at, updated_at)"
                                " VALUES (?1, ?2, ?2, ?3, ?3)",
                                error);
          if (stmt == NULL)
            goto fail;
          prs_store_bind_text (stmt, 1, id);
          prs_store_bind_text (stmt, 2, slug);
          prs_store_bind_text (stmt, 3, now);
          if (!prs_store_step_done (self, stmt, "Could not create the conversation", error))
            goto fail;
          if (!prs_store_commit (self, error))
            return FALSE;

          if (out_created != NULL)
            *out_created = TRUE;
          if (out_id != NULL)
            *out_id = g_steal_pointer (&id);
          return TRUE;
        }
    }

  if (out_created != NULL)
    *out_created = FALSE;
  if (out_id != NULL)
    *out_id = g_steal_pointer (&id);
  return TRUE;

fail:
  prs_store_rollback (self);
  return FALSE;
}

gboolean
prs_store_has_conversation (PrsStore   *self,
                            const char *conversation_id)
{
  g_autoptr(PrsStmt) stmt = NULL;

  g_return_val_if_fail (PRS_IS_STORE (self), FALSE);

  if (conversation_id == NULL)
    return FALSE;

  stmt = prs_store_prepare_cached (self, "SELECT 1 FROM conversations WHERE id = ?1", NULL);
  if (stmt == NULL)
    return FALSE;

  prs_store_bind_text (stmt, 1, conversation_id);
  return prs_store_step_row (self, stmt, "Could not look up a conversation", NULL) == 1;
}

static void
add_string_member (JsonBuilder *builder,
                   const char  *member,
                   const char  *value)
{
  json_builder_set_member_name (builder, member);
  if (value != NULL)
    json_builder_add_string_value (builder, value);
  else
    json_builder_add_null_value (builder);
}

/* A stored JSON text as a value; null when absent (or, defensively, damaged). */
static void
add_json_member (JsonBuilder *builder,
                 const char  *member,
                 const char  *json)
{
  JsonNode *node = NULL;

  if (json != NULL)
    node = json_from_string (json, NULL);

  json_builder_set_member_name (builder, member);
  if (node != NULL)
    json_builder_add_value (builder, node);
  else
    json_builder_add_null_value (builder);
}

#define CONVERSATION_COLUMNS \
  "id, slug, title, message_count, unread_count, default_agent, created_at, updated_at"

/* One row selected with CONVERSATION_COLUMNS, as prs-conversation reads it */
static JsonNode *
conversation_row_to_json (sqlite3_stmt *stmt)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();

  json_builder_begin_object (builder);
  add_string_member (builder, "id", prs_store_column_text (stmt, 0));
  add_string_member (builder, "slug", prs_store_column_text (stmt, 1));
  add_string_member (builder, "title", prs_store_column_text (stmt, 2));
  json_builder_set_member_name (builder, "messageCount");
  json_builder_add_int_value (builder, sqlite3_column_int64 (stmt, 3));
  json_builder_set_member_name (builder, "unreadCount");
  json_builder_add_int_value (builder, sqlite3_column_int64 (stmt, 4));
  add_string_member (builder, "defaultAgent", prs_store_column_text (stmt, 5));
  add_string_member (builder, "createdAt", prs_store_column_text (stmt, 6));
  add_string_member (builder, "updatedAt", prs_store_column_text (stmt, 7));
  json_builder_end_object (builder);

  return json_builder_get_root (builder);
}

JsonArray *
prs_store_list_conversations (PrsStore  *self,
                              GError   **error)
{
  g_autoptr(PrsStmt) stmt = NULL;
  g_autoptr(JsonArray) conversations = NULL;
  int row;

  g_return_val_if_fail (PRS_IS_STORE (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  stmt = prs_store_prepare_cached (self,
                        "SELECT " CONVERSATION_COLUMNS " FROM conversations"
                        " ORDER BY updated_at DESC, created_at DESC, id",
                        error);
  if (stmt == NULL)
    return NULL;

  conversations = json_array_new ();
  while ((row = prs_store_step_row (self, stmt, "Could not read the conversations", error)) == 1)
    json_array_add_element (conversations, conversation_row_to_json (stmt));
  if (row < 0)
    return NULL;

  return g_steal_pointer (&conversations);
}

JsonObject *
prs_store_get_conversation (PrsStore    *self,
                            const char  *conversation_id,
                            GError     **error)
{
  g_autoptr(PrsStmt) stmt = NULL;
  g_autoptr(JsonNode) node = NULL;
  int row;

  g_return_val_if_fail (PRS_IS_STORE (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (conversation_id == NULL)
    return NULL;

  stmt = prs_store_prepare_cached (self,
                                   "SELECT " CONVERSATION_COLUMNS " FROM conversations WHERE id = ?1",
                                   error);
  if (stmt == NULL)
    return NULL;

  prs_store_bind_text (stmt, 1, conversation_id);
  row = prs_store_step_row (self, stmt, "Could not read a conversation", error);
  if (row != 1)
    return NULL;

  node = conversation_row_to_json (stmt);
  return json_object_ref (json_node_get_object (node));
}

/* Runs one UPDATE of a conversation, bound as (?1 = id, ?2 = value), in its
 * own transaction; NOT_FOUND when no row matched. */
static gboolean
update_conversation (PrsStore    *self,
                     const char  *sql,
                     const char  *conversation_id,
                     const char  *value,
                     GError     **error)
{
  g_autoptr(PrsStmt) stmt = NULL;

  if (!prs_store_begin_immediate (self, error))
    return FALSE;

  stmt = prs_store_prepare_cached (self, sql, error);
  if (stmt == NULL)
    goto fail;
  prs_store_bind_text (stmt, 1, conversation_id);
  if (value != NULL)
    prs_store_bind_text (stmt, 2, value);
  if (!prs_store_step_done (self, stmt, "Could not update the conversation", error))
    goto fail;
  if (sqlite3_changes (self->db) == 0)
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_NOT_FOUND,
                   "There is no conversation “%s”", conversation_id);
      goto fail;
    }

  return prs_store_commit (self, error);

fail:
  prs_store_rollback (self);
  return FALSE;
}

gboolean
prs_store_rename_conversation (PrsStore    *self,
                               const char  *conversation_id,
                               const char  *title,
                               GError     **error)
{
  g_return_val_if_fail (PRS_IS_STORE (self), FALSE);
  g_return_val_if_fail (conversation_id != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (title == NULL || title[0] == '\0')
    {
      g_set_error_literal (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                           "A conversation title must not be empty");
      return FALSE;
    }

  /* The slug stays: it is what workflows resolve. */
  return update_conversation (self, "UPDATE conversations SET title = ?2 WHERE id = ?1",
                              conversation_id, title, error);
}

gboolean
prs_store_set_conversation_default_agent (PrsStore    *self,
                                          const char  *conversation_id,
                                          const char  *agent_id,
                                          GError     **error)
{
  g_return_val_if_fail (PRS_IS_STORE (self), FALSE);
  g_return_val_if_fail (conversation_id != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (agent_id == NULL)
    return update_conversation (self,
                                "UPDATE conversations SET default_agent = NULL WHERE id = ?1",
                                conversation_id, NULL, error);

  return update_conversation (self,
                              "UPDATE conversations SET default_agent = ?2 WHERE id = ?1",
                              conversation_id, agent_id, error);
}

gboolean
prs_store_mark_conversation_read (PrsStore    *self,
                                  const char  *conversation_id,
                                  GError     **error)
{
  g_return_val_if_fail (PRS_IS_STORE (self), FALSE);
  g_return_val_if_fail (conversation_id != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return update_conversation (self, "UPDATE conversations SET unread_count = 0 WHERE id = ?1",
                              conversation_id, NULL, error);
}

/* JSON text handed in for storage must parse, so reading it back cannot fail. */
static gboolean
check_json_text (const char  *json,
                 const char  *field,
                 GError     **error)
{
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(GError) local_error = NULL;

  if (json == NULL)
    return TRUE;

  node = json_from_string (json, &local_error);
  if (node == NULL)
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                   "The %s of a message is not JSON: %s", field,
                   local_error != NULL ? local_error->message : "it is empty");
      return FALSE;
    }

  return TRUE;
}

static gboolean
dedup_key_exists (PrsStore    *self,
                  const char  *dedup_key,
                  gboolean    *out_exists,
                  GError     **error)
{
  g_autoptr(PrsStmt) stmt = NULL;
  int row;

  stmt = prs_store_prepare_cached (self, "SELECT 1 FROM messages WHERE dedup_key = ?1", error);
  if (stmt == NULL)
    return FALSE;

  prs_store_bind_text (stmt, 1, dedup_key);
  row = prs_store_step_row (self, stmt, "Could not look up a message", error);
  if (row < 0)
    return FALSE;

  *out_exists = row == 1;
  return TRUE;
}

gboolean
prs_store_insert_message (PrsStore                *self,
                          const PrsMessageInsert  *message,
                          char                   **out_message_id,
                          gint64                  *out_seq,
                          GError                 **error)
{
  g_autoptr(PrsStmt) seq_stmt = NULL;
  g_autoptr(PrsStmt) insert_stmt = NULL;
  g_autoptr(PrsStmt) bump_stmt = NULL;
  g_autofree char *id = NULL;
  g_autofree char *now = NULL;
  gboolean exists = FALSE;
  gint64 seq;

  g_return_val_if_fail (PRS_IS_STORE (self), FALSE);
  g_return_val_if_fail (message != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (message->conversation_id == NULL || message->kind == NULL || message->kind[0] == '\0')
    {
      g_set_error_literal (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                           "A message needs a conversation and a kind");
      return FALSE;
    }
  if (!check_json_text (message->context_json, "context", error) ||
      !check_json_text (message->execution_json, "execution", error) ||
      !check_json_text (message->extra_json, "extra data", error))
    return FALSE;

  if (!prs_store_begin_immediate (self, error))
    return FALSE;

  if (!prs_store_has_conversation (self, message->conversation_id))
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_NOT_FOUND,
                   "There is no conversation “%s”", message->conversation_id);
      goto fail;
    }

  if (message->dedup_key != NULL)
    {
      if (!dedup_key_exists (self, message->dedup_key, &exists, error))
        goto fail;
      if (exists)
        {
          g_set_error_literal (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                               "A message with the same duplicate key is already stored");
          goto fail;
        }
    }

  seq_stmt = prs_store_prepare_cached (self,
                            "SELECT COALESCE (MAX (seq), 0) + 1 FROM messages"
                            " WHERE conversation_id = ?1",
                            error);
  if (seq_stmt == NULL)
    goto fail;
  prs_store_bind_text (seq_stmt, 1, message->conversation_id);
  if (prs_store_step_row (self, seq_stmt, "Could not number the message", error) != 1)
    goto fail;
  seq = sqlite3_column_int64 (seq_stmt, 0);

  id = g_uuid_string_random ();
  now = prs_store_now_iso8601 ();

  insert_stmt = prs_store_prepare_cached (self,
                               "INSERT INTO messages (id, conversation_id, seq, kind, content,"
                               " status, agent_id, context_json, execution_json, dedup_key,"
                               " extra_json, created_at)"
                               " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
                               error);
  if (insert_stmt == NULL)
    goto fail;
  prs_store_bind_text (insert_stmt, 1, id);
  prs_store_bind_text (insert_stmt, 2, message->conversation_id);
  sqlite3_bind_int64 (insert_stmt, 3, seq);
  prs_store_bind_text (insert_stmt, 4, message->kind);
  prs_store_bind_text (insert_stmt, 5, message->content);
  prs_store_bind_text (insert_stmt, 6, message->status);
  prs_store_bind_text (insert_stmt, 7, message->agent_id);
  prs_store_bind_text (insert_stmt, 8, message->context_json);
  prs_store_bind_text (insert_stmt, 9, message->execution_json);
  prs_store_bind_text (insert_stmt, 10, message->dedup_key);
  prs_store_bind_text (insert_stmt, 11, message->extra_json);
  prs_store_bind_text (insert_stmt, 12, now);
  if (!prs_store_step_done (self, insert_stmt, "Could not save the message", error))
    goto fail;

  bump_stmt = prs_store_prepare_cached (self,
                             "UPDATE conversations SET message_count = message_count + 1,"
                             " unread_count = unread_count + 1, updated_at = ?2"
                             " WHERE id = ?1",
                             error);
  if (bump_stmt == NULL)
    goto fail;
  prs_store_bind_text (bump_stmt, 1, message->conversation_id);
  prs_store_bind_text (bump_stmt, 2, now);
  if (!prs_store_step_done (self, bump_stmt, "Could not update the conversation", error))
    goto fail;

  if (!prs_store_commit (self, error))
    return FALSE;

  /* Field discovery (docs/conversations.md), after the commit: it never costs the message. */
  if (message->context_json != NULL)
    prs_store_record_message_context (self, message->conversation_id, id,
                                      message->context_json, message->execution_json);

  if (out_message_id != NULL)
    *out_message_id = g_steal_pointer (&id);
  if (out_seq != NULL)
    *out_seq = seq;
  return TRUE;

fail:
  prs_store_rollback (self);
  return FALSE;
}

char *
prs_store_find_message_by_dedup_key (PrsStore   *self,
                                     const char *dedup_key)
{
  g_autoptr(PrsStmt) stmt = NULL;

  g_return_val_if_fail (PRS_IS_STORE (self), NULL);

  if (dedup_key == NULL)
    return NULL;

  stmt = prs_store_prepare_cached (self, "SELECT id FROM messages WHERE dedup_key = ?1", NULL);
  if (stmt == NULL)
    return NULL;

  prs_store_bind_text (stmt, 1, dedup_key);
  if (prs_store_step_row (self, stmt, "Could not look up a message", NULL) != 1)
    return NULL;

  return g_strdup (prs_store_column_text (stmt, 0));
}

gboolean
prs_store_update_message (PrsStore    *self,
                          const char  *message_id,
                          const char  *status,
                          const char  *content,
                          const char  *extra_json,
                          GError     **error)
{
  g_autoptr(PrsStmt) stmt = NULL;

  g_return_val_if_fail (PRS_IS_STORE (self), FALSE);
  g_return_val_if_fail (message_id != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!check_json_text (extra_json, "extra data", error))
    return FALSE;

  if (!prs_store_begin_immediate (self, error))
    return FALSE;

  stmt = prs_store_prepare_cached (self,
                        "UPDATE messages SET status = COALESCE (?2, status),"
                        " content = COALESCE (?3, content),"
                        " extra_json = COALESCE (?4, extra_json)"
                        " WHERE id = ?1",
                        error);
  if (stmt == NULL)
    goto fail;
  prs_store_bind_text (stmt, 1, message_id);
  prs_store_bind_text (stmt, 2, status);
  prs_store_bind_text (stmt, 3, content);
  prs_store_bind_text (stmt, 4, extra_json);
  if (!prs_store_step_done (self, stmt, "Could not update the message", error))
    goto fail;
  if (sqlite3_changes (self->db) == 0)
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_NOT_FOUND,
                   "There is no message “%s”", message_id);
      goto fail;
    }

  return prs_store_commit (self, error);

fail:
  prs_store_rollback (self);
  return FALSE;
}

gint
prs_store_interrupt_orphan_inbound (PrsStore    *self,
                                    const char  *answer_json,
                                    const char  *error_text,
                                    GError     **error)
{
  g_autoptr(PrsStmt) stmt = NULL;
  gint changed;

  g_return_val_if_fail (PRS_IS_STORE (self), -1);
  g_return_val_if_fail (answer_json != NULL, -1);
  g_return_val_if_fail (error == NULL || *error == NULL, -1);

  if (!prs_store_begin_immediate (self, error))
    return -1;

  /* Stored, acknowledged to no one, and no run ever began for it */
  stmt = prs_store_prepare_cached (self,
                        "UPDATE messages SET status = 'failed',"
                        " extra_json = json_set (COALESCE (extra_json, '{}'),"
                        "   '$.reason', '" PRS_INBOUND_REASON_INTERRUPTED "',"
                        "   '$.httpStatus', 503,"
                        "   '$.answer', json (?1),"
                        "   '$.error', ?2)"
                        " WHERE kind = 'inbound' AND status = 'pending'"
                        " AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.trigger_message_id = messages.id)",
                        error);
  if (stmt == NULL)
    goto fail;
  prs_store_bind_text (stmt, 1, answer_json);
  prs_store_bind_text (stmt, 2, error_text);
  if (!prs_store_step_done (self, stmt, "Could not mark the unanswered requests", error))
    goto fail;
  changed = sqlite3_changes (self->db);
  if (!prs_store_commit (self, error))
    return -1;
  return changed;

fail:
  prs_store_rollback (self);
  return -1;
}

#define MESSAGE_COLUMNS \
  "id, conversation_id, seq, kind, content, status, agent_id, context_json," \
  " execution_json, extra_json, created_at"

static JsonNode *
message_from_row (sqlite3_stmt *stmt)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();

  json_builder_begin_object (builder);
  add_string_member (builder, "id", prs_store_column_text (stmt, 0));
  add_string_member (builder, "conversationId", prs_store_column_text (stmt, 1));
  json_builder_set_member_name (builder, "seq");
  json_builder_add_int_value (builder, sqlite3_column_int64 (stmt, 2));
  add_string_member (builder, "kind", prs_store_column_text (stmt, 3));
  add_string_member (builder, "content", prs_store_column_text (stmt, 4));
  add_string_member (builder, "status", prs_store_column_text (stmt, 5));
  add_string_member (builder, "agentId", prs_store_column_text (stmt, 6));
  add_json_member (builder, "context", prs_store_column_text (stmt, 7));
  add_json_member (builder, "execution", prs_store_column_text (stmt, 8));
  add_json_member (builder, "extra", prs_store_column_text (stmt, 9));
  add_string_member (builder, "createdAt", prs_store_column_text (stmt, 10));
  json_builder_end_object (builder);

  return json_builder_get_root (builder);
}

JsonNode *
prs_store_get_message (PrsStore    *self,
                       const char  *message_id,
                       GError     **error)
{
  g_autoptr(PrsStmt) stmt = NULL;

  g_return_val_if_fail (PRS_IS_STORE (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (message_id == NULL)
    return NULL;

  stmt = prs_store_prepare_cached (self, "SELECT " MESSAGE_COLUMNS " FROM messages WHERE id = ?1", error);
  if (stmt == NULL)
    return NULL;

  prs_store_bind_text (stmt, 1, message_id);
  if (prs_store_step_row (self, stmt, "Could not read a message", error) != 1)
    return NULL;

  return message_from_row (stmt);
}

JsonArray *
prs_store_list_messages (PrsStore    *self,
                         const char  *conversation_id,
                         gint64       after_seq,
                         guint        limit,
                         GError     **error)
{
  g_autoptr(PrsStmt) stmt = NULL;
  g_autoptr(JsonArray) messages = NULL;
  int row;

  g_return_val_if_fail (PRS_IS_STORE (self), NULL);
  g_return_val_if_fail (conversation_id != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  stmt = prs_store_prepare_cached (self,
                        "SELECT " MESSAGE_COLUMNS " FROM messages"
                        " WHERE conversation_id = ?1 AND seq > ?2"
                        " ORDER BY seq LIMIT ?3",
                        error);
  if (stmt == NULL)
    return NULL;

  prs_store_bind_text (stmt, 1, conversation_id);
  sqlite3_bind_int64 (stmt, 2, after_seq);
  sqlite3_bind_int64 (stmt, 3, limit);

  messages = json_array_new ();
  while ((row = prs_store_step_row (self, stmt, "Could not read the messages", error)) == 1)
    json_array_add_element (messages, message_from_row (stmt));
  if (row < 0)
    return NULL;

  return g_steal_pointer (&messages);
}
