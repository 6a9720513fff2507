/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-store-migrations.c: the numbered schema migrations (docs/storage.md).
 * Each step is tested from the database of the previous version in
 * tests/core/test-store.c. */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <sqlite3.h>

#include "prs-store-internal.h"

/* ---- Migrations ---------------------------------------------------------- */

/* Each step runs in its own BEGIN IMMEDIATE transaction and ends by setting
 * user_version to its number. Never edit a released step: add one. */
typedef struct
{
  int         version;
  const char *sql;
  /* The step rebuilds a table others reference (SQLite's documented way to
   * change a table's constraints): foreign keys are off while it runs, so
   * that dropping the old table cascades nothing, and every reference is
   * checked before the step commits. */
  gboolean    rebuilds;
  /* Counts the rows the step copies or scans (NULL: it changes the schema
   * alone), read before the first step: the step's share of a migration's
   * progress (docs/storage.md "Migrations") */
  const char *rows_sql;
  /* … when that table is not there yet (a pending step before makes it),
   * about as many, counted in what it will be made of */
  const char *rows_estimate_sql;
} PrsMigration;

#define COUNT_MESSAGES "SELECT count (*) FROM messages"
#define COUNT_RUNS "SELECT count (*) FROM runs"

/* What the search index holds of each message (migration 9, made again
 * with the table in 14) */
#define MESSAGE_SEARCH_SOURCE \
  "CREATE VIEW message_search_source (message_rowid, body, tools, context) AS" \
  "  SELECT m.rowid, m.content," \
  "    CASE WHEN m.kind = 'tool-call' AND json_valid (m.extra_json) THEN" \
  "      COALESCE (json_extract (m.extra_json, '$.name'), '') || ' ' ||" \
  "      COALESCE ((SELECT group_concat (value, ' ') FROM json_tree (" \
  "                   CASE WHEN json_valid (m.extra_json) THEN m.extra_json ELSE '{}' END, '$.arguments')" \
  "                 WHERE type IN ('text', 'integer', 'real')), '')" \
  "    END," \
  "    CASE WHEN m.kind = 'inbound' AND json_valid (m.context_json) THEN" \
  "      (SELECT group_concat (value, ' ') FROM json_tree (" \
  "         CASE WHEN json_valid (m.context_json) THEN m.context_json ELSE 'null' END)" \
  "       WHERE type IN ('text', 'integer', 'real'))" \
  "    END" \
  "  FROM messages m;"

/* The messages table as migration 9 made it (with @dedup_unique " UNIQUE")
 * and 14 made it again, as messages_new */
#define MESSAGES_TABLE(dedup_unique) \
  "CREATE TABLE messages_new (" \
  "  rowid           INTEGER PRIMARY KEY," \
  "  id              TEXT NOT NULL UNIQUE," \
  "  conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE," \
  "  seq             INTEGER NOT NULL," \
  "  kind            TEXT NOT NULL," \
  "  content         TEXT," \
  "  status          TEXT," \
  "  agent_id        TEXT," \
  "  context_json    TEXT," \
  "  execution_json  TEXT," \
  "  dedup_key       TEXT" dedup_unique "," \
  "  extra_json      TEXT," \
  "  created_at      TEXT NOT NULL," \
  "  superseded_at   TEXT," \
  "  UNIQUE (conversation_id, seq)" \
  ");"

/* A new message into the search index, in the transaction that writes it */
#define MESSAGE_SEARCH_INSERT \
  "CREATE TRIGGER messages_search_insert AFTER INSERT ON messages BEGIN" \
  "  INSERT INTO message_search (rowid, body, tools, context)" \
  "    SELECT message_rowid, body, tools, context FROM message_search_source" \
  "    WHERE message_rowid = new.rowid;" \
  "END;"

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
    "PRAGMA user_version = 5;",
    FALSE, COUNT_MESSAGES },

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

  { 7,
    /* Scheduled prompts (docs/schedules.md; prs-store-schedules.c). Times
     * that decide when a schedule is due are unix seconds: base_at, before
     * which nothing is due (when it was saved or turned on), and
     * last_fired_at, the due time handled last. schedule_fires records each
     * due time handled, in the same transaction as last_fired_at and the
     * messages it made, so that none is handled twice. */
    "CREATE TABLE schedules ("
    "  id                TEXT PRIMARY KEY,"
    "  name              TEXT NOT NULL UNIQUE COLLATE NOCASE,"
    "  conversation_slug TEXT NOT NULL,"
    "  conversation_id   TEXT,"
    "  agent_id          TEXT NOT NULL,"
    "  prompt            TEXT NOT NULL,"
    "  context_json      TEXT,"
    "  recurrence_json   TEXT NOT NULL,"
    "  enabled           INTEGER NOT NULL DEFAULT 1,"
    "  missed            TEXT NOT NULL DEFAULT 'run' CHECK (missed IN ('run', 'skip')),"
    "  base_at           INTEGER NOT NULL,"
    "  last_fired_at     INTEGER,"
    "  run_requested_at  INTEGER,"
    "  problem           TEXT,"
    "  created_at        TEXT NOT NULL,"
    "  updated_at        TEXT NOT NULL"
    ");"
    "CREATE TABLE schedule_fires ("
    "  id          INTEGER PRIMARY KEY AUTOINCREMENT,"
    "  schedule_id TEXT NOT NULL REFERENCES schedules (id) ON DELETE CASCADE,"
    "  due_at      INTEGER NOT NULL,"
    "  kind        TEXT NOT NULL CHECK (kind IN ('due', 'missed-run', 'missed-skip', 'manual', 'failed')),"
    "  message_id  TEXT,"
    "  fired_at    TEXT NOT NULL"
    ");"
    /* A due time is handled once; Run Now may run at any time */
    "CREATE UNIQUE INDEX schedule_fires_due ON schedule_fires (schedule_id, due_at) WHERE kind != 'manual';"
    "CREATE INDEX schedule_fires_message ON schedule_fires (message_id) WHERE message_id IS NOT NULL;"
    "PRAGMA user_version = 7;" },

  /* Insights (docs/insights.md): model calls, tool call start times, the
   * daily totals and the triggers that keep them; the SQL is long and
   * lives beside its queries */
  { 8, prs_store_insights_schema, FALSE,
    /* It reads every run's transcript and tool call */
    "SELECT (SELECT count (*) FROM runs) + (SELECT count (*) FROM tool_calls)" },

  { 9,
    /* Conversations can be pinned, archived and deleted (docs/conversations.md).
     * A deletion is first a mark (deleted_at) while it can be undone, then
     * final (purge), then the row goes with everything that references it.
     * A slug is unique among the conversations that are not deleted, so a
     * workflow resolving it meanwhile starts a fresh one. */
    "CREATE TABLE conversations_new ("
    "  id            TEXT PRIMARY KEY,"
    "  slug          TEXT NOT NULL,"
    "  title         TEXT NOT NULL,"
    "  default_agent TEXT,"
    "  unread_count  INTEGER NOT NULL DEFAULT 0,"
    "  message_count INTEGER NOT NULL DEFAULT 0,"
    "  created_at    TEXT NOT NULL,"
    "  updated_at    TEXT NOT NULL,"
    "  pinned        INTEGER NOT NULL DEFAULT 0 CHECK (pinned IN (0, 1)),"
    "  archived      INTEGER NOT NULL DEFAULT 0 CHECK (archived IN (0, 1)),"
    "  deleted_at    TEXT,"
    "  purge         INTEGER NOT NULL DEFAULT 0 CHECK (purge IN (0, 1))"
    ");"
    "INSERT INTO conversations_new (id, slug, title, default_agent, unread_count, message_count,"
    "                               created_at, updated_at)"
    "  SELECT id, slug, title, default_agent, unread_count, message_count, created_at, updated_at"
    "  FROM conversations;"
    "DROP TABLE conversations;"
    "ALTER TABLE conversations_new RENAME TO conversations;"
    "CREATE UNIQUE INDEX conversations_slug ON conversations (slug) WHERE deleted_at IS NULL;"
    "CREATE INDEX conversations_updated_at ON conversations (updated_at);"
    /* Messages get an integer key of their own: the search index refers to
     * rows by it, and SQLite may renumber the hidden rowid of a table
     * without one (VACUUM). superseded_at marks an answer (or a question)
     * replaced by Regenerate or Edit and Resend: kept, shown folded, left
     * out of the history a model sees. */
    MESSAGES_TABLE (" UNIQUE")
    "INSERT INTO messages_new (rowid, id, conversation_id, seq, kind, content, status, agent_id,"
    "                          context_json, execution_json, dedup_key, extra_json, created_at)"
    "  SELECT rowid, id, conversation_id, seq, kind, content, status, agent_id,"
    "         context_json, execution_json, dedup_key, extra_json, created_at"
    "  FROM messages ORDER BY rowid;"
    "DROP TABLE messages;"
    "ALTER TABLE messages_new RENAME TO messages;"
    "CREATE INDEX messages_agent_id ON messages (agent_id) WHERE agent_id IS NOT NULL;"
    "CREATE INDEX messages_status ON messages (status) WHERE status IS NOT NULL;"
    /* Search (docs/conversations.md): what each message is found by. Its
     * text; a tool call's name and argument values; an inbound message's
     * Request Context values (the run's replies carry the same context:
     * indexed once, where it came in). JSON the store did not check is
     * read as nothing rather than failing the write. */
    MESSAGE_SEARCH_SOURCE
    /* Its own copy of the text: a row leaves the index by its rowid alone,
     * whatever the message became */
    "CREATE VIRTUAL TABLE message_search USING fts5 ("
    "  body, tools, context, tokenize = 'unicode61 remove_diacritics 2');"
    "INSERT INTO message_search (message_search, rank) VALUES ('rank', 'bm25(1.0, 0.75, 0.5)');"
    /* Its words: what a word being typed may become (snippets of prefix searches) */
    "CREATE VIRTUAL TABLE message_search_terms USING fts5vocab (message_search, 'row');"
    "INSERT INTO message_search (rowid, body, tools, context)"
    "  SELECT message_rowid, body, tools, context FROM message_search_source;"
    /* Kept in the transaction of every write, whichever code writes */
    MESSAGE_SEARCH_INSERT
    "CREATE TRIGGER messages_search_update AFTER UPDATE OF kind, content, extra_json, context_json"
    "  ON messages BEGIN"
    "  DELETE FROM message_search WHERE rowid = old.rowid;"
    "  INSERT INTO message_search (rowid, body, tools, context)"
    "    SELECT message_rowid, body, tools, context FROM message_search_source"
    "    WHERE message_rowid = new.rowid;"
    "END;"
    "CREATE TRIGGER messages_search_delete AFTER DELETE ON messages BEGIN"
    "  DELETE FROM message_search WHERE rowid = old.rowid;"
    "END;"
    "PRAGMA user_version = 9;",
    TRUE, COUNT_MESSAGES },

  { 10,
    /* The tools each MCP server listed last (docs/mcp.md), so that they
     * can be offered, listed and checked while the server is not
     * connected (at start, while it restarts, when prosponsive-ctl asks).
     * tool_json is prs_mcp_tool_to_json's; exposed_name, the name models
     * see, is repeated for lookups. A server's tools go with it. */
    "CREATE TABLE mcp_tools ("
    "  server_id    TEXT NOT NULL REFERENCES mcp_servers (id) ON DELETE CASCADE,"
    "  position     INTEGER NOT NULL,"
    "  name         TEXT NOT NULL,"
    "  exposed_name TEXT NOT NULL,"
    "  tool_json    TEXT NOT NULL,"
    "  PRIMARY KEY (server_id, name)"
    ");"
    "CREATE INDEX mcp_tools_exposed_name ON mcp_tools (exposed_name);"
    /* When the server's tools were last listed (unix seconds), NULL for never */
    "ALTER TABLE mcp_servers ADD COLUMN tools_listed_at INTEGER;"
    "PRAGMA user_version = 10;" },

  { 11,
    /* Runs may be an MCP client's call (docs/mcp.md: `mcp serve`), origin
     * 'mcp-client'. SQLite cannot change a CHECK in place, so runs is
     * made again (foreign keys off while the step runs: tool_calls and
     * model_calls keep their rows), with its indexes and the trigger by
     * which Insights counts runs (as migration 8 made it). */
    PRS_STORE_REMAKE_RUNS ("CHECK (origin IN ('chat', 'inference', 'agent-inference', 'mcp-client'))")
    "CREATE TRIGGER insights_run AFTER INSERT ON runs BEGIN"
    "  INSERT INTO insight_agent_days (day, agent_id, runs)"
    "  VALUES (date (new.created_at, 'localtime'), new.agent_id, 1)"
    "  ON CONFLICT (day, agent_id) DO UPDATE SET runs = runs + 1;"
    "END;"
    "PRAGMA user_version = 11;",
    TRUE, COUNT_RUNS },

  { 12,
    /* The conversation list's order (prs-store-conversations.c), so the
     * window's start reads its 1,000 rows in order instead of sorting them */
    "CREATE INDEX conversations_order ON conversations"
    "  (pinned DESC, archived, updated_at DESC, created_at DESC, id) WHERE deleted_at IS NULL;"
    "PRAGMA user_version = 12;" },

  /* Insights' tables and runs with checks that fill no temporary table on
   * every row a model call writes (prs-store-insights.c) */
  { 13, prs_store_insights_checks_schema, TRUE,
    "SELECT (SELECT count (*) FROM runs) + (SELECT count (*) FROM model_calls)",
    /* Before 8, the runs twice: 8 makes a model call of each answer in a
     * run's transcript */
    "SELECT 2 * count (*) FROM runs" },

  { 14,
    /* Fewer pages written per message and per run (docs/storage.md):
     * every commit writes each b-tree it touches as at least one whole
     * page. No query reads conversations by updated_at alone (the list
     * reads conversations_order); only running or waiting runs are
     * looked up by status, so only they are indexed. */
    "DROP INDEX conversations_updated_at;"
    "DROP INDEX runs_status;"
    "CREATE INDEX runs_active ON runs (status) WHERE status IN ('running', 'awaiting_approval');"
    /* The search index reads a message's words from the message itself
     * (the view message_search_source: what migration 9 indexed) instead
     * of keeping a copy of them, a table more written by every message.
     * The index is the same: its pages are taken over as they are, since
     * the copy held what the view gives (the triggers fired on every
     * column the view reads). A row now leaves the index with the words
     * the message has before it changes or goes: the triggers that take
     * it out run BEFORE the write, while the view still reads them.
     * (FTS5's 'rebuild' cannot read this view — SQLite 3.40 refuses a
     * table-valued function such as json_tree in that statement —: an
     * index made again is filled with INSERT … SELECT from the view.)
     * Index pages of 2,000 bytes instead of 4,050: two fit in a page of
     * the database, so adding a commit's small segment seldom makes
     * SQLite rebalance the full pages around it (3.2 pages of the index
     * written per commit instead of 1.8-2.4, measured); searches read as
     * fast. */
    "DROP TRIGGER messages_search_insert;"
    "DROP TRIGGER messages_search_update;"
    "DROP TRIGGER messages_search_delete;"
    "DROP TABLE message_search_terms;"
    "CREATE VIRTUAL TABLE message_search_new USING fts5 ("
    "  body, tools, context, content = 'message_search_source', content_rowid = 'message_rowid',"
    "  tokenize = 'unicode61 remove_diacritics 2');"
    "DELETE FROM message_search_new_data;"
    "INSERT INTO message_search_new_data (id, block) SELECT id, block FROM message_search_data;"
    "INSERT INTO message_search_new_idx (segid, term, pgno) SELECT segid, term, pgno FROM message_search_idx;"
    "INSERT INTO message_search_new_docsize (id, sz) SELECT id, sz FROM message_search_docsize;"
    "DELETE FROM message_search_new_config;"
    "INSERT INTO message_search_new_config (k, v) SELECT k, v FROM message_search_config;"
    "DROP TABLE message_search;"
    "ALTER TABLE message_search_new RENAME TO message_search;"
    "CREATE VIRTUAL TABLE message_search_terms USING fts5vocab (message_search, 'row');"
    "INSERT INTO message_search (message_search, rank) VALUES ('pgsz', 2000);"
    /* Messages made again (the rows and their rowids as they are) for one
     * index: a UNIQUE column keeps an entry for every NULL, so every
     * message without a duplicate key (every reply) wrote a page of
     * dedup_key's index; a partial unique index holds only the keys. No
     * query reads messages by agent_id; only pending requests are looked
     * up by status (a start's recovery, the schedules' runs), so only
     * they are indexed. */
    MESSAGES_TABLE ("")
    "INSERT INTO messages_new (rowid, id, conversation_id, seq, kind, content, status, agent_id,"
    "                          context_json, execution_json, dedup_key, extra_json, created_at,"
    "                          superseded_at)"
    "  SELECT rowid, id, conversation_id, seq, kind, content, status, agent_id,"
    "         context_json, execution_json, dedup_key, extra_json, created_at, superseded_at"
    "  FROM messages ORDER BY rowid;"
    "DROP VIEW message_search_source;"
    "DROP TABLE messages;"
    "ALTER TABLE messages_new RENAME TO messages;"
    "CREATE UNIQUE INDEX messages_dedup_key ON messages (dedup_key) WHERE dedup_key IS NOT NULL;"
    "CREATE INDEX messages_pending ON messages (status) WHERE status = 'pending';"
    MESSAGE_SEARCH_SOURCE
    MESSAGE_SEARCH_INSERT
    "CREATE TRIGGER messages_search_unindex BEFORE UPDATE OF kind, content, extra_json, context_json"
    "  ON messages BEGIN"
    "  DELETE FROM message_search WHERE rowid = old.rowid;"
    "END;"
    "CREATE TRIGGER messages_search_update AFTER UPDATE OF kind, content, extra_json, context_json"
    "  ON messages BEGIN"
    "  INSERT INTO message_search (rowid, body, tools, context)"
    "    SELECT message_rowid, body, tools, context FROM message_search_source"
    "    WHERE message_rowid = new.rowid;"
    "END;"
    "CREATE TRIGGER messages_search_delete BEFORE DELETE ON messages BEGIN"
    "  DELETE FROM message_search WHERE rowid = old.rowid;"
    "END;"
    "PRAGMA user_version = 14;",
    TRUE, COUNT_MESSAGES },

  /* What the person wrote in a conversation and has not sent
   * (prs-store-drafts.c says why a table of its own) */
  { 15,
    "CREATE TABLE drafts ("
    "  conversation_id TEXT PRIMARY KEY REFERENCES conversations (id) ON DELETE CASCADE,"
    "  text            TEXT NOT NULL,"
    "  updated_at      TEXT NOT NULL"
    ") WITHOUT ROWID;"
    "PRAGMA user_version = 15;" },
};

int
prs_store_get_latest_version (void)
{
  return migrations[G_N_ELEMENTS (migrations) - 1].version;
}

gboolean
prs_store_read_user_version (PrsStore  *self,
                             int       *out_version,
                             GError   **error)
{
  g_autoptr(PrsStmt) stmt = prs_store_prepare_cached (self, "PRAGMA user_version", error);

  if (stmt == NULL)
    return FALSE;
  if (prs_store_step_row (self, stmt, N_("Could not read the database version"), error) != 1)
    {
      if (error != NULL && *error == NULL)
        g_set_error_literal (error, PRS_ERROR, PRS_ERROR_STORE,
                             _("Could not read the database version"));
      return FALSE;
    }

  *out_version = sqlite3_column_int (stmt, 0);
  return TRUE;
}

/* After a rebuilding step, inside its transaction: every foreign key
 * still finds its row. */
static gboolean
check_foreign_keys (PrsStore  *self,
                    int        version,
                    GError   **error)
{
  sqlite3_stmt *stmt = NULL;
  int rc;

  if (sqlite3_prepare_v2 (self->db, "PRAGMA foreign_key_check", -1, &stmt, NULL) != SQLITE_OK)
    {
      prs_store_set_error (self, error, N_("Could not check the database"));
      return FALSE;
    }
  rc = sqlite3_step (stmt);
  if (rc == SQLITE_ROW)
    g_set_error (error, PRS_ERROR, PRS_ERROR_STORE,
                 /* Translators: the database's file, the version, then two tables' names (SQL, kept as they are) */
                 _("Could not upgrade the database “%s” to version %d: a row of %s refers to a "
                   "missing row of %s"), self->path, version,
                 (const char *) sqlite3_column_text (stmt, 0), (const char *) sqlite3_column_text (stmt, 2));
  else if (rc != SQLITE_DONE)
    prs_store_set_error (self, error, N_("Could not check the database"));
  sqlite3_finalize (stmt);
  return rc == SQLITE_DONE;
}

static gboolean
run_migration_step (PrsStore            *self,
                    const PrsMigration  *migration,
                    GError             **error)
{
  char *errmsg = NULL;
  int current;

  if (!prs_store_begin_immediate (self, error))
    return FALSE;

  /* Another connection may have migrated while this one waited for the lock. */
  if (!prs_store_read_user_version (self, &current, error))
    goto fail;
  if (current >= migration->version)
    return prs_store_commit (self, error);
  if (current != migration->version - 1)
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_STORE,
                   _("The database “%s” is at schema version %d, expected %d."),
                   self->path, current, migration->version - 1);
      goto fail;
    }

  if (sqlite3_exec (self->db, migration->sql, NULL, NULL, &errmsg) != SQLITE_OK)
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_STORE,
                   _("Could not upgrade the database “%s” to version %d: %s"),
                   self->path, migration->version,
                   errmsg != NULL ? errmsg : sqlite3_errmsg (self->db));
      sqlite3_free (errmsg);
      goto fail;
    }

  if (!prs_store_read_user_version (self, &current, error))
    goto fail;
  g_assert (current == migration->version);
  if (migration->rebuilds && !check_foreign_keys (self, migration->version, error))
    goto fail;

  return prs_store_commit (self, error);

fail:
  prs_store_rollback (self);
  return FALSE;
}

static gboolean
run_migration (PrsStore            *self,
               const PrsMigration  *migration,
               GError             **error)
{
  gboolean ok;

  /* Only outside a transaction does this pragma take effect */
  if (migration->rebuilds &&
      sqlite3_exec (self->db, "PRAGMA foreign_keys = OFF", NULL, NULL, NULL) != SQLITE_OK)
    {
      prs_store_set_error (self, error, N_("Could not upgrade the database"));
      return FALSE;
    }
  ok = run_migration_step (self, migration, error);
  if (migration->rebuilds &&
      sqlite3_exec (self->db, "PRAGMA foreign_keys = ON", NULL, NULL, NULL) != SQLITE_OK && ok)
    {
      prs_store_set_error (self, error, N_("Could not upgrade the database"));
      return FALSE;
    }
  return ok;
}

/* ---- Progress ------------------------------------------------------------ */

/* A migration's progress (docs/storage.md "Migrations"). Each pending step
 * weighs the rows it copies or scans, counted before the first step (a
 * count reads one b-tree: milliseconds for a million rows; a table an
 * earlier pending step makes is estimated from what it is made of), plus
 * one for its schema changes. Within a step, SQLite's progress handler
 * counts the virtual machine instructions run against what its rows take;
 * the step's share stops short of its end until it commits, so the
 * fraction only grows and reaches 1.0 with the last commit. */

/* SQLite calls the progress handler every this many instructions: a few
 * hundred times a second, so a cancelled migration stops at once */
#define PROGRESS_INSTRUCTIONS 1000
/* About how many instructions a step runs for each row it counts:
 * migration 14 ran 67 a message (20,000 messages of 300 bytes with their
 * search index, tests/core/test-store-migrate.c's history), the time
 * following them within a tenth but for the index's pages copied whole
 * (a quarter of the time, few instructions) and the commit */
#define INSTRUCTIONS_PER_ROW 70.0
/* Where a step's share stops until it commits */
#define STEP_SHARE_BEFORE_COMMIT 0.95
/* Reported only when it grew by this much (at most a thousand reports) */
#define PROGRESS_GRAIN 0.001
/* While another program holds the write lock, a watched migration looks
 * for a cancel this often (SQLite's own wait, sqlite3_busy_timeout (),
 * sleeps up to 100 ms at a time and never looks), for as long in all */
#define BUSY_POLL_MS 10
#define BUSY_POLLS (PRS_STORE_BUSY_TIMEOUT_MS / BUSY_POLL_MS)

typedef struct
{
  const PrsStoreMigrateWatch *watch;
  double  total;              /* the pending steps' weights */
  double  done;               /* the weights of the steps committed */
  double  step_weight;
  double  step_instructions;  /* what the running step is expected to run */
  guint64 ticks;              /* progress handler calls in the running step */
  double  reported;
} Progress;

static void
progress_report (Progress *progress,
                 double    fraction)
{
  if (fraction <= progress->reported ||
      (fraction < 1.0 && fraction < progress->reported + PROGRESS_GRAIN))
    return;
  progress->reported = fraction;
  if (progress->watch->func != NULL)
    progress->watch->func (fraction, progress->watch->data);
}

static int
on_sqlite_progress (void *data)
{
  Progress *progress = data;
  double within;

  /* Non-zero interrupts the statement: the step's transaction is undone */
  if (g_cancellable_is_cancelled (progress->watch->cancellable))
    return 1;
  progress->ticks++;
  if (progress->step_instructions <= 0)
    return 0;
  within = MIN (progress->ticks * (double) PROGRESS_INSTRUCTIONS / progress->step_instructions,
                STEP_SHARE_BEFORE_COMMIT);
  progress_report (progress, (progress->done + within * progress->step_weight) / progress->total);
  return 0;
}

/* SQLite's busy handler of a watched migration: the progress handler does
 * not run while SQLite waits for a lock, so Quit (or SIGTERM) would wait
 * for the whole busy timeout; zero gives up the wait, and the step's
 * statement fails (then G_IO_ERROR_CANCELLED, prs_store_migrate_async) */
static int
on_busy_unless_cancelled (void *data,
                          int   count)
{
  const PrsStoreMigrateWatch *watch = data;

  if (g_cancellable_is_cancelled (watch->cancellable) || count >= BUSY_POLLS)
    return 0;
  g_usleep (BUSY_POLL_MS * G_TIME_SPAN_MILLISECOND);
  return 1;
}

/* The rows @migration copies or scans. Before a pending step that makes
 * its table, they are not there to count, but what it is made of is
 * (rows_estimate_sql); else they are none yet (it is made empty). */
static double
count_rows (PrsStore           *self,
            const PrsMigration *migration)
{
  const char *sql[] = { migration->rows_sql, migration->rows_estimate_sql };
  double rows = 0;

  for (guint i = 0; i < G_N_ELEMENTS (sql) && sql[i] != NULL; i++)
    {
      sqlite3_stmt *stmt = NULL;
      gboolean counted = sqlite3_prepare_v2 (self->db, sql[i], -1, &stmt, NULL) == SQLITE_OK &&
                         sqlite3_step (stmt) == SQLITE_ROW;

      if (counted)
        rows = MAX (sqlite3_column_int64 (stmt, 0), 0);
      sqlite3_finalize (stmt);
      if (counted)
        break;
    }
  return rows;
}

static gboolean
is_pending (const PrsMigration *migration,
            int                 version,
            int                 target_version)
{
  return migration->version > version && migration->version <= target_version;
}

gboolean
prs_store_migrations_copy_rows (int version,
                                int target_version)
{
  for (guint i = 0; i < G_N_ELEMENTS (migrations); i++)
    if (is_pending (&migrations[i], version, target_version) && migrations[i].rows_sql != NULL)
      return TRUE;
  return FALSE;
}

/* Runs every migration after @version up to @target_version. */
gboolean
prs_store_migrate (PrsStore                    *self,
                   int                          version,
                   int                          target_version,
                   const PrsStoreMigrateWatch  *watch,
                   GError                     **error)
{
  double weights[G_N_ELEMENTS (migrations)] = { 0 };
  Progress progress = { watch, 0, 0, 0, 0, 0, -1.0 };
  gboolean ok = TRUE;
  gboolean watched;

  /* A new database (version 0) holds nothing to copy, and steps that
   * change the schema alone take milliseconds: made without a word */
  watched = watch != NULL && version > 0 && prs_store_migrations_copy_rows (version, target_version);

  for (guint i = 0; watched && i < G_N_ELEMENTS (migrations); i++)
    if (is_pending (&migrations[i], version, target_version))
      {
        weights[i] = 1 + count_rows (self, &migrations[i]);
        progress.total += weights[i];
      }
  if (watch != NULL && watch->cancellable != NULL)
    sqlite3_busy_handler (self->db, on_busy_unless_cancelled, (gpointer) watch);
  if (progress.total > 0)
    {
      progress_report (&progress, 0.0);
      sqlite3_progress_handler (self->db, PROGRESS_INSTRUCTIONS, on_sqlite_progress, &progress);
    }

  for (guint i = 0; ok && i < G_N_ELEMENTS (migrations); i++)
    {
      if (!is_pending (&migrations[i], version, target_version))
        continue;
      if (watch != NULL && g_cancellable_set_error_if_cancelled (watch->cancellable, error))
        {
          ok = FALSE;
          break;
        }
      progress.step_weight = weights[i];
      progress.step_instructions = (weights[i] - 1) * INSTRUCTIONS_PER_ROW;
      progress.ticks = 0;
      ok = run_migration (self, &migrations[i], error);
      progress.done += weights[i];
      if (ok && progress.total > 0)
        progress_report (&progress, MIN (progress.done / progress.total, 1.0));
    }

  if (progress.total > 0)
    {
      sqlite3_progress_handler (self->db, 0, NULL, NULL);
      if (ok)
        progress_report (&progress, 1.0);
    }
  if (watch != NULL && watch->cancellable != NULL)
    sqlite3_busy_timeout (self->db, PRS_STORE_BUSY_TIMEOUT_MS);
  return ok;
}

/* ---- On a worker thread -------------------------------------------------- */

/* Where the worker's reports go: the caller's context and function, shared
 * by the sources on their way. Its count is atomic: the worker takes a
 * hold for each source while the caller's context lets them go. One
 * source at most is pending and gives the latest fraction when it runs,
 * so a fast migration never floods the caller's loop (its frames wait
 * behind sources of default priority). */
typedef struct
{
  GMainContext         *context;
  PrsStoreProgressFunc  func;
  gpointer              data;
  GDestroyNotify        notify;
  GMutex                lock;
  double                latest;   /* under lock */
  gboolean              pending;  /* under lock: a source is on its way */
} ProgressTarget;

static void
progress_target_clear (gpointer data)
{
  ProgressTarget *target = data;

  if (target->notify != NULL)
    target->notify (target->data);
  g_main_context_unref (target->context);
  g_mutex_clear (&target->lock);
}

static void
progress_target_release (gpointer data)
{
  g_atomic_rc_box_release_full (data, progress_target_clear);
}

static gboolean
deliver_progress (gpointer data)
{
  ProgressTarget *target = data;
  double fraction;

  g_mutex_lock (&target->lock);
  fraction = target->latest;
  target->pending = FALSE;
  g_mutex_unlock (&target->lock);
  target->func (fraction, target->data);
  return G_SOURCE_REMOVE;
}

/* On the worker. An idle source of the caller's context, not
 * g_main_context_invoke (): that runs the function on the worker itself
 * whenever it can acquire a context nobody iterates at that moment. Of
 * default priority, as the task's end is: the last report comes first. */
static void
post_progress (double   fraction,
               gpointer user_data)
{
  ProgressTarget *target = user_data;
  g_autoptr(GSource) source = NULL;

  g_mutex_lock (&target->lock);
  target->latest = fraction;
  if (!target->pending)
    {
      target->pending = TRUE;
      source = g_idle_source_new ();
      g_source_set_priority (source, G_PRIORITY_DEFAULT);
      g_source_set_callback (source, deliver_progress, g_atomic_rc_box_acquire (target), progress_target_release);
      g_source_set_static_name (source, "[prosponsive] migration progress");
    }
  g_mutex_unlock (&target->lock);
  if (source != NULL)
    g_source_attach (source, target->context);
}

typedef struct
{
  char           *data_dir;
  ProgressTarget *target;   /* NULL: nobody listens */
} MigrateData;

static gboolean
do_nothing (gpointer data)
{
  return G_SOURCE_REMOVE;
}

/* The worker's hold on the target, let go on the caller's context after
 * the reports posted before it, so that @progress_notify runs there. Of
 * default priority and posted before the task returns: it runs before the
 * task's callback, so a caller that stops iterating there (quits) has
 * heard @progress_notify all the same. */
static void
release_on_caller (ProgressTarget *target)
{
  g_autoptr(GSource) source = g_idle_source_new ();

  g_source_set_priority (source, G_PRIORITY_DEFAULT);
  g_source_set_callback (source, do_nothing, target, progress_target_release);
  g_source_set_static_name (source, "[prosponsive] migration progress end");
  g_source_attach (source, target->context);
}

static void
migrate_data_free (gpointer data)
{
  MigrateData *migrate = data;

  g_free (migrate->data_dir);
  if (migrate->target != NULL)
    release_on_caller (migrate->target);
  g_free (migrate);
}

static void
migrate_in_thread (GTask        *task,
                   gpointer      source_object,
                   gpointer      task_data,
                   GCancellable *cancellable)
{
  MigrateData *migrate = task_data;
  /* Watched even when nobody listens: the watch is what stops it when
   * @cancellable is cancelled */
  PrsStoreMigrateWatch watch = { migrate->target != NULL ? post_progress : NULL, migrate->target, cancellable };
  g_autoptr(PrsStore) store = NULL;
  g_autoptr(GError) error = NULL;

  /* This thread's connection, closed on this thread before the task returns */
  store = prs_store_open_watched (migrate->data_dir, NULL, &watch, &error);
  if (store == NULL && g_cancellable_is_cancelled (cancellable))
    {
      /* Whatever SQLite said of the statement it was told to stop */
      g_clear_error (&error);
      g_cancellable_set_error_if_cancelled (cancellable, &error);
    }
  g_clear_object (&store);
  if (migrate->target != NULL)
    release_on_caller (g_steal_pointer (&migrate->target));
  if (error != NULL)
    g_task_return_error (task, g_steal_pointer (&error));
  else
    g_task_return_boolean (task, TRUE);
}

void
prs_store_migrate_async (const char            *data_dir,
                         PrsStoreProgressFunc   progress,
                         gpointer               progress_data,
                         GDestroyNotify         progress_notify,
                         GCancellable          *cancellable,
                         GAsyncReadyCallback    callback,
                         gpointer               user_data)
{
  g_autoptr(GTask) task = NULL;
  MigrateData *migrate;

  g_return_if_fail (data_dir != NULL);

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, prs_store_migrate_async);
  migrate = g_new0 (MigrateData, 1);
  migrate->data_dir = g_strdup (data_dir);
  if (progress != NULL)
    {
      migrate->target = g_atomic_rc_box_new0 (ProgressTarget);
      migrate->target->context = g_main_context_ref_thread_default ();
      migrate->target->func = progress;
      migrate->target->data = progress_data;
      migrate->target->notify = progress_notify;
      g_mutex_init (&migrate->target->lock);
    }
  g_task_set_task_data (task, migrate, migrate_data_free);
  prs_task_run_in_thread (task, migrate_in_thread);
}

gboolean
prs_store_migrate_finish (GAsyncResult  *result,
                          GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}
