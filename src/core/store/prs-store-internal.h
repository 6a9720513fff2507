/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-store-internal.h: what the store's own files share. The store is one
 * module split by domain (prs-store.c: the connection, statements and
 * transactions; prs-store-migrations.c: the schema; prs-store-<domain>.c:
 * settings, discovery, conversations and messages, agents, providers, runs,
 * context fields, backup); only those files include this header. */
#pragma once

#include <sqlite3.h>

#include "prs-error.h"
#include "prs-store.h"
#include "prs-thread.h"

G_BEGIN_DECLS

/* The database's name in the data folder (docs/storage.md) */
#define PRS_STORE_DB_FILE_NAME "prosponsive.db"

struct _PrsStore
{
  GObject     parent_instance;

  char       *path;
  sqlite3    *db;
  /* The thread whose connection this is (one connection per thread): every
   * public function asserts it in debug builds. */
  PrsThreadOwner owner;
  /* SQL text → sqlite3_stmt*. The keys are the string literals of this file. */
  GHashTable *statements;
  /* prs_store_batch_begin () nesting; while > 0 each write's own
   * transaction is a savepoint of the batch's */
  guint       batch_depth;
  gboolean    batch_unsynced;
  gboolean    step_open;
  /* The database file's commits in this process, shared by its
   * connections (prs-store.c) */
  struct _PrsStoreDisk *disk;
  guint64     last_commit;
  gboolean    commit_wrote;   /* set by the WAL hook during a COMMIT */
  gboolean    journal_on_disk; /* in prs_store_begin_large ()'s transaction */
  gboolean    no_wait;         /* in prs_store_begin_immediate_once () */
};

/* The database file's name and those SQLite keeps beside it, appended to
 * the database's path: "", "-wal", "-shm", "-journal", then NULL. */
extern const char * const prs_store_file_suffixes[];

/* runs made again as runs_new with @origin_check (the CHECK of its
 * origin), its rows copied, the old table dropped and the new one named
 * runs, with its indexes: migrations 11 and 13 (foreign keys off while they
 * run, so the rows that refer to runs stay) */
#define PRS_STORE_REMAKE_RUNS(origin_check) \
  "CREATE TABLE runs_new (" \
  "  id                   TEXT PRIMARY KEY," \
  "  conversation_id      TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE," \
  "  agent_id             TEXT NOT NULL," \
  "  origin               TEXT NOT NULL " origin_check "," \
  "  trigger_message_id   TEXT," \
  "  status               TEXT NOT NULL," \
  "  context_json         TEXT," \
  "  execution_json       TEXT," \
  "  options_json         TEXT," \
  "  transcript_json      TEXT NOT NULL DEFAULT '[]'," \
  "  assistant_message_id TEXT," \
  "  stop_reason          TEXT," \
  "  error                TEXT," \
  "  round                INTEGER NOT NULL DEFAULT 0," \
  "  created_at           TEXT NOT NULL," \
  "  updated_at           TEXT NOT NULL" \
  ");" \
  "INSERT INTO runs_new SELECT * FROM runs;" \
  "DROP TABLE runs;" \
  "ALTER TABLE runs_new RENAME TO runs;" \
  "CREATE INDEX runs_status ON runs (status);" \
  "CREATE INDEX runs_trigger ON runs (trigger_message_id) WHERE trigger_message_id IS NOT NULL;"

/* The migration of Insights' tables and triggers, and the one that made
 * the tables a model call writes again with checks that need no temporary
 * table (prs-store-insights.c) */
extern const char prs_store_insights_schema[];
extern const char prs_store_insights_checks_schema[];

/* How long a connection waits for another (in this process or another:
 * the app, prosponsive-ctl) that is writing. */
#define PRS_STORE_BUSY_TIMEOUT_MS 5000

/* A cached statement, borrowed from the store: the autoptr cleanup resets it
 * (ending its implicit read transaction) and clears its bindings. */
typedef sqlite3_stmt PrsStmt;

void          prs_stmt_release            (PrsStmt      *stmt);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrsStmt, prs_stmt_release)

/* @sql must be a string literal: its address is the cache key. */
PrsStmt      *prs_store_prepare_cached    (PrsStore     *self,
                                           const char   *sql,
                                           GError      **error);
/* @what, here and in the helpers below, is a phrase marked for translation
 * (the N_ macro) where it is written, "Could not save the message":
 * translated only when an error is set, since the helpers run for every
 * statement. */
void          prs_store_set_error         (PrsStore     *self,
                                           GError      **error,
                                           const char   *what);
/* PRS_ERROR_STORE_BUSY, in words a person understands (prs-store-busy.c). */
void          prs_store_set_busy_error    (PrsStore     *self,
                                           GError      **error);
void          prs_store_bind_text         (sqlite3_stmt *stmt,
                                           int           index,
                                           const char   *value);
const char   *prs_store_column_text       (sqlite3_stmt *stmt,
                                           int           column);
/* Steps a statement that returns no row. */
gboolean      prs_store_step_done         (PrsStore     *self,
                                           sqlite3_stmt *stmt,
                                           const char   *what,
                                           GError      **error);
/* 1 for a row, 0 at the end, -1 on error. */
int           prs_store_step_row          (PrsStore     *self,
                                           sqlite3_stmt *stmt,
                                           const char   *what,
                                           GError      **error);
gboolean      prs_store_exec_cached       (PrsStore     *self,
                                           const char   *sql,
                                           const char   *what,
                                           GError      **error);
/* Now, as the store writes times: "2026-11-29T23:30:42.123Z" (UTC); fixed
 * width (milliseconds, Z), so that the text sorts as the time does. */
char         *prs_store_now_iso8601       (void);
/* Reads the current row of @stmt into a new object, or NULL with @error. */
typedef gpointer (*PrsStoreReadRow) (sqlite3_stmt  *stmt,
                                     GError       **error);
/* Every row of @stmt through @read, in an array that frees its items with
 * @free_func; NULL with @error (@what says what was being read). */
GPtrArray    *prs_store_collect_rows      (PrsStore        *self,
                                           sqlite3_stmt    *stmt,
                                           const char      *what,
                                           PrsStoreReadRow  read,
                                           GDestroyNotify   free_func,
                                           GError         **error);
/* Runs @sql, a DELETE of the row whose id is ?1 = @id, in its own
 * transaction (prs_store_begin_large: what it takes with it by cascade may
 * be large); *@out_found says whether there was one. @sql must be a string
 * literal (the statement cache's key). */
gboolean      prs_store_delete_one        (PrsStore     *self,
                                           const char   *sql,
                                           const char   *id,
                                           const char   *what,
                                           gboolean     *out_found,
                                           GError      **error);
/* Runs one UPDATE of a conversation, bound as (?1 = id, ?2 = @value unless
 * NULL), in its own transaction; NOT_FOUND when no row matched.
 * (prs-store-messages.c) */
gboolean      prs_store_update_conversation (PrsStore   *self,
                                           const char   *sql,
                                           const char   *conversation_id,
                                           const char   *value,
                                           GError      **error);
/* PRAGMA user_version: the schema version the database is at. */
gboolean      prs_store_read_user_version (PrsStore     *self,
                                           int          *out_version,
                                           GError      **error);
/* Who hears how far a migration has come, on the migrating thread (@func
 * may be NULL: nobody); cancelling @cancellable (may be NULL) stops it
 * between steps or within one (whose transaction is then undone). */
typedef struct
{
  PrsStoreProgressFunc  func;
  gpointer              data;
  GCancellable         *cancellable;
} PrsStoreMigrateWatch;

/* Brings a database at @version up to @target_version, one numbered
 * migration at a time (prs-store-migrations.c), telling @watch (may be
 * NULL) how far it has come unless the database is new (@version 0). */
gboolean      prs_store_migrate           (PrsStore                    *self,
                                           int                          version,
                                           int                          target_version,
                                           const PrsStoreMigrateWatch  *watch,
                                           GError                     **error);
/* Whether a step after @version up to @target_version copies or scans
 * rows (the ones that take time on a long history); the others change
 * the schema alone. */
gboolean      prs_store_migrations_copy_rows (int                       version,
                                           int                          target_version);
/* Opens the database of @data_dir (prs_store_new ()), migrating it with
 * @watch (may be NULL) watching; with @out_outdated, a database an older
 * version wrote is left as it is (prs_store_new_unless_outdated ()),
 * unless its pending steps change the schema alone. */
PrsStore     *prs_store_open_watched      (const char                  *data_dir,
                                           gboolean                    *out_outdated,
                                           const PrsStoreMigrateWatch  *watch,
                                           GError                     **error);
/* prs_store_insert_message () inside a transaction the caller began and
 * ends (several rows that must be written together); no field discovery. */
gboolean      prs_store_insert_message_locked (PrsStore                *self,
                                           const PrsMessageInsert  *message,
                                           char                   **out_message_id,
                                           gint64                  *out_seq,
                                           GError                 **error);
/* prs_store_set_draft () within the caller's transaction (the person's
 * message that sends the draft forgets it with NULL) */
gboolean      prs_store_write_draft       (PrsStore     *self,
                                           const char   *conversation_id,
                                           const char   *text,
                                           GError      **error);
/* Every write runs between these: BEGIN IMMEDIATE … COMMIT. */
/* prs_store_set_setting () within the caller's transaction */
gboolean      prs_store_write_setting     (PrsStore     *self,
                                           const char   *key,
                                           const char   *value,
                                           GError      **error);
gboolean      prs_store_begin_immediate   (PrsStore     *self,
                                           GError      **error);
/* BEGIN IMMEDIATE for a write that may change many rows at once (a
 * conversation deleted with its messages): its journal goes to a temporary
 * file past 64 KiB instead of memory (prs-store.c, temp_store). Ended by
 * prs_store_commit () or prs_store_rollback (); inside a batch, a savepoint
 * of its transaction as prs_store_begin_immediate (). */
gboolean      prs_store_begin_large       (PrsStore     *self,
                                           GError      **error);
/* prs_store_begin_immediate () that does not wait when another program
 * holds the database: PRS_ERROR_STORE_BUSY at once (prs-store-busy.c says
 * which writes do this and why). */
gboolean      prs_store_begin_immediate_once (PrsStore  *self,
                                           GError      **error);
void          prs_store_rollback          (PrsStore     *self);
gboolean      prs_store_commit            (PrsStore     *self,
                                           GError      **error);


/* ---- Search (prs-store-search.c, prs-store-search-substring.c) ---- */

/* How a reply's matches are marked while md4c reads it (U+E000, U+E001:
 * letters to Markdown, unlike control characters) */
#define PRS_SEARCH_MARKDOWN_MARK_START_UTF8 "\xee\x80\x80"
#define PRS_SEARCH_MARKDOWN_MARK_END_UTF8   "\xee\x80\x81"

/* The hit at @rowid, or NULL when its conversation is deleted */
PrsSearchHit *prs_store_search_read_hit   (PrsStore     *self,
                                           gint64        rowid,
                                           double        score,
                                           GError      **error);
/* Steps @stmt, whose column 0 is a message's rowid (and @rank_column its
 * rank, or -1 for none), into @hits and @rowids until @limit hits; a hit in
 * a deleted conversation is skipped. FALSE with @error set when a step or a
 * hit's read fails */
gboolean      prs_store_search_collect_hits (PrsStore     *self,
                                             PrsStmt      *stmt,
                                             guint         limit,
                                             int           rank_column,
                                             GPtrArray    *hits,
                                             GArray       *rowids,
                                             GError      **error);
/* A reply's snippet as a reader sees it: @highlighted, its whole text
 * with the matches marked as above, read by md4c and cut around the first
 * match; @snippet when no match shows */
char         *prs_search_reply_snippet    (const char   *highlighted,
                                           const char   *snippet);
/* The words of @text the index cannot find (written without spaces, or
 * emoji), NULL when there are none; *@out_words: the others, as plain
 * text for prs_search_plain_query */
GPtrArray    *prs_search_split_substrings (const char   *text,
                                           char        **out_words);
/* The messages that hold every one of @terms, and match @match (FTS5,
 * NULL for any), newest first, at most @limit PrsSearchHit* */
GPtrArray    *prs_store_search_substrings (PrsStore     *self,
                                           const char   *match,
                                           GPtrArray    *terms,
                                           guint         limit,
                                           GError      **error);

G_END_DECLS
