/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-store.c: the SQLite store's connection: opening (files checked, WAL,
 * the migrations of prs-store-migrations.c), the statement cache, errors in
 * words, transactions, and the process-wide "disk full" state. Every SQL
 * statement of the application lives in this folder, prepared once per
 * connection and run with bound parameters; the queries are split by
 * domain over prs-store-<domain>.c. */
#include "config.h"

#include <errno.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "prs-error.h"
#include "prs-paths.h"
#include "prs-store-internal.h"
#include "prs-store-private.h"

#define BUSY_TIMEOUT_MS PRS_STORE_BUSY_TIMEOUT_MS
/* SQLite's wal_autocheckpoint */
#define WAL_CHECKPOINT_PAGES 1000
/* How often the checkpoint thread copies one WAL before a commit does */
#define CHECKPOINT_ASIDE_PASSES 4

G_DEFINE_FINAL_TYPE (PrsStore, prs_store, G_TYPE_OBJECT)

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

/* ---- Commits on the disk ------------------------------------------------ */

/* The commits of this process's connections to one database file are
 * numbered while each holds SQLite's write lock (every transaction that
 * commits began with BEGIN IMMEDIATE), so the numbers are the order of the
 * WAL. A synced commit that wrote frames has SQLite sync the WAL, and with
 * it every frame before its own: every commit numbered up to its own is
 * then on the disk. An unsynced one (PRS_STORE_SYNC_LATER) waits for the
 * next such commit, or for prs_store_sync (). */
typedef struct _PrsStoreDisk
{
  dev_t   dev;
  ino_t   ino;
  guint   refs;
  guint64 numbered;   /* the last number given */
  guint64 done;       /* every commit up to this number has returned */
  guint64 on_disk;    /* … and up to this one is on the disk */

  /* The checkpoints, on a thread of their own (below) */
  char     *path;
  GThread  *checkpointer;
  GCond     wake;
  gboolean  checkpoint_due;
  gboolean  checkpoint_running;   /* due or running on the thread */
  guint     aside_passes;         /* the thread's checkpoints of this WAL */
  gboolean  stopping;
  gboolean  inline_checkpoints;   /* no thread could be had: the committer's */
} PrsStoreDisk;

static GMutex disk_lock;
static GPtrArray *disks;   /* PrsStoreDisk*, while a connection has it */

/* The state of @path's file (by device and inode: two spellings of one
 * path are one file) */
static PrsStoreDisk *
disk_ref (const char *path)
{
  GStatBuf st;
  PrsStoreDisk *disk = NULL;

  if (g_stat (path, &st) != 0)
    memset (&st, 0, sizeof st);
  g_mutex_lock (&disk_lock);
  if (disks == NULL)
    disks = g_ptr_array_new ();
  for (guint i = 0; i < disks->len && disk == NULL; i++)
    {
      PrsStoreDisk *candidate = g_ptr_array_index (disks, i);

      if (candidate->dev == st.st_dev && candidate->ino == st.st_ino)
        disk = candidate;
    }
  if (disk == NULL)
    {
      disk = g_new0 (PrsStoreDisk, 1);
      disk->dev = st.st_dev;
      disk->ino = st.st_ino;
      disk->path = g_strdup (path);
      g_cond_init (&disk->wake);
      g_ptr_array_add (disks, disk);
    }
  disk->refs++;
  g_mutex_unlock (&disk_lock);
  return disk;
}

/* With the last connection the checkpoint thread goes: a checkpoint it
 * runs is finished first */
static void
disk_unref (PrsStoreDisk *disk)
{
  GThread *checkpointer = NULL;

  g_mutex_lock (&disk_lock);
  if (--disk->refs > 0)
    {
      g_mutex_unlock (&disk_lock);
      return;
    }
  g_ptr_array_remove_fast (disks, disk);
  checkpointer = g_steal_pointer (&disk->checkpointer);
  disk->stopping = TRUE;
  g_cond_signal (&disk->wake);
  g_mutex_unlock (&disk_lock);

  if (checkpointer != NULL)
    g_thread_join (checkpointer);
  g_cond_clear (&disk->wake);
  g_free (disk->path);
  g_free (disk);
}

/* Before COMMIT, with the write lock held */
static guint64
disk_number_commit (PrsStoreDisk *disk)
{
  guint64 number;

  g_mutex_lock (&disk_lock);
  number = ++disk->numbered;
  g_mutex_unlock (&disk_lock);
  return number;
}

/* After COMMIT returned; @synced: it wrote frames and SQLite synced them */
static void
disk_commit_returned (PrsStoreDisk *disk,
                      guint64       number,
                      gboolean      synced)
{
  g_mutex_lock (&disk_lock);
  disk->done = MAX (disk->done, number);
  if (synced)
    disk->on_disk = MAX (disk->on_disk, number);
  g_mutex_unlock (&disk_lock);
}

/* ---- Checkpoints --------------------------------------------------------- */

/* SQLite's own WAL hook (replaced by ours, below) checkpoints in the thread
 * of the commit that took the WAL past 1,000 pages: that commit waited for
 * a few milliseconds of copying pages to the database file and syncing it,
 * every few dozen API calls. That passive checkpoint runs here instead, on a
 * thread of its own with a connection of its own (a connection belongs to
 * one thread), woken by that commit. A checkpoint never waits for a writer
 * or a reader, and the WAL starts again from its beginning only at a write
 * that finds all of it copied: commits made while the thread copied are
 * left, and the thread copies again when the next of them tells it (mostly
 * a few pages and the two syncs), until a copy finds no commit in its way.
 * Under a steady stream of calls that might never happen: after four copies
 * of one WAL the next commit past 1,000 pages copies what is left itself, as
 * SQLite did, and the next write after it starts the WAL again: it stays
 * near 1,000 pages. */
static gboolean check_database_files (const char  *db_path,
                                      GError     **error);

static sqlite3 *
checkpoint_open (const char *path)
{
  g_autoptr(GError) error = NULL;
  sqlite3 *db = NULL;

  if (!check_database_files (path, &error))
    {
      g_message ("Checkpoints of the database “%s” stay with its writers: %s", path, error->message);
      return NULL;
    }
  /* Only SQLite opens the files: see store_open () on POSIX locks */
  if (sqlite3_open_v2 (path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW, NULL) != SQLITE_OK ||
      sqlite3_exec (db, "PRAGMA synchronous = FULL", NULL, NULL, NULL) != SQLITE_OK)
    {
      g_message ("Checkpoints of the database “%s” stay with its writers: %s", path,
                 db != NULL ? sqlite3_errmsg (db) : "out of memory");
      sqlite3_close (db);
      return NULL;
    }
  return db;
}

static gpointer
checkpoint_thread (gpointer data)
{
  PrsStoreDisk *disk = data;
  sqlite3 *db = checkpoint_open (disk->path);

  g_mutex_lock (&disk_lock);
  if (db == NULL)
    disk->inline_checkpoints = TRUE;
  disk->checkpoint_running = db != NULL && disk->checkpoint_running;
  while (db != NULL && !disk->stopping)
    {
      if (!disk->checkpoint_due)
        {
          g_cond_wait (&disk->wake, &disk_lock);
          continue;
        }
      disk->checkpoint_due = FALSE;
      g_mutex_unlock (&disk_lock);
      /* SQLITE_BUSY (another program checkpoints) leaves it to that one */
      sqlite3_wal_checkpoint_v2 (db, "main", SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
      g_mutex_lock (&disk_lock);
      disk->checkpoint_running = FALSE;
      disk->aside_passes++;
    }
  g_mutex_unlock (&disk_lock);
  sqlite3_close (db);
  return NULL;
}

/* After each commit that wrote: @pages, the WAL's size */
static void
disk_wal_committed (PrsStoreDisk *disk,
                    sqlite3      *db,
                    const char   *name,
                    int           pages)
{
  gboolean here = FALSE;

  g_mutex_lock (&disk_lock);
  if (pages < WAL_CHECKPOINT_PAGES)
    disk->aside_passes = 0;   /* started again */
  else if (disk->checkpoint_running)
    ;
  else if (disk->aside_passes >= CHECKPOINT_ASIDE_PASSES || disk->inline_checkpoints)
    here = TRUE;
  else
    {
      if (disk->checkpointer == NULL)
        disk->checkpointer = g_thread_try_new ("prs-checkpoint", checkpoint_thread, disk, NULL);
      disk->inline_checkpoints = disk->checkpointer == NULL;
      here = disk->inline_checkpoints;
      disk->checkpoint_due = disk->checkpoint_running = !here;
      g_cond_signal (&disk->wake);
    }
  g_mutex_unlock (&disk_lock);

  if (here)
    sqlite3_wal_checkpoint_v2 (db, name, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
}

/* SQLite calls it after each commit that wrote frames to the WAL */
static int
on_wal_commit (void       *data,
               sqlite3    *db,
               const char *name,
               int         pages)
{
  PrsStore *self = data;

  self->commit_wrote = TRUE;
  disk_wal_committed (self->disk, db, name, pages);
  return SQLITE_OK;
}

guint64
prs_store_get_last_commit (PrsStore *self)
{
  g_return_val_if_fail (PRS_IS_STORE (self), 0);
  PRS_ASSERT_OWNER (&self->owner);

  return self->last_commit;
}

gboolean
prs_store_sync (PrsStore  *self,
                guint64    commit,
                gboolean  *out_synced,
                GError   **error)
{
  sqlite3_file *wal = NULL;
  guint64 done;
  int rc;

  g_return_val_if_fail (PRS_IS_STORE (self), FALSE);
  PRS_ASSERT_OWNER (&self->owner);

  if (out_synced != NULL)
    *out_synced = FALSE;
  g_mutex_lock (&disk_lock);
  done = self->disk->done;
  /* Numbered, not only returned: this connection may already read what
   * another thread's commit wrote before that commit has returned */
  if (commit == PRS_STORE_ALL_COMMITS)
    commit = self->disk->numbered;
  if (self->disk->on_disk >= commit)
    {
      g_mutex_unlock (&disk_lock);
      return TRUE;
    }
  g_mutex_unlock (&disk_lock);

  /* The WAL file SQLite writes, synced as a synced commit would: every
   * commit that has returned is in it (or, checkpointed, synced in the
   * database file) */
  rc = sqlite3_file_control (self->db, "main", SQLITE_FCNTL_JOURNAL_POINTER, &wal);
  if (rc == SQLITE_OK && (wal == NULL || wal->pMethods == NULL))
    rc = SQLITE_NOTFOUND;
  if (rc == SQLITE_OK)
    rc = wal->pMethods->xSync (wal, SQLITE_SYNC_NORMAL);
  if (rc != SQLITE_OK)
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_STORE,
                   _("Could not save to the database: %s"), sqlite3_errstr (rc));
      return FALSE;
    }

  g_mutex_lock (&disk_lock);
  self->disk->on_disk = MAX (self->disk->on_disk, done);
  g_mutex_unlock (&disk_lock);
  if (out_synced != NULL)
    *out_synced = TRUE;
  return TRUE;
}

gint64
prs_store_get_data_version (PrsStore *self)
{
  g_autoptr(PrsStmt) stmt = NULL;

  g_return_val_if_fail (PRS_IS_STORE (self), -1);

  stmt = prs_store_prepare_cached (self, "PRAGMA data_version", NULL);
  if (stmt == NULL || prs_store_step_row (self, stmt, N_("Could not read the data version"), NULL) != 1)
    return -1;
  return sqlite3_column_int64 (stmt, 0);
}

/* SQLite says "database or disk is full" or, when the WAL cannot grow,
 * "disk I/O error": the system's errno tells which it was */
static gboolean
db_is_full (sqlite3 *db)
{
  return (sqlite3_extended_errcode (db) & 0xff) == SQLITE_FULL ||
         sqlite3_system_errno (db) == ENOSPC ||
         sqlite3_system_errno (db) == EDQUOT;
}

/* One sentence a person can act on, whatever the write was (the API
 * answers 507 and the window shows its banner: docs/storage.md) */
static void
set_full_error (PrsStore    *self,
                GError     **error,
                const char  *what)
{
  g_debug ("%s: %s", what, sqlite3_errmsg (self->db));
  g_set_error (error, PRS_ERROR, PRS_ERROR_STORE_FULL,
               _("The disk that holds Prosponsive’s data (%s) is full. Free some space, then try again."),
               self->path);
}

void
prs_store_set_error (PrsStore    *self,
                  GError     **error,
                  const char  *what)
{
  /* A full disk is its own code: the API answers 507 and the window says
   * so, instead of "internal error" */
  gboolean full = db_is_full (self->db);

  if ((sqlite3_extended_errcode (self->db) & 0xff) == SQLITE_BUSY)
    {
      prs_store_set_busy_error (self, error);
      return;
    }

  if (full)
    set_full_error (self, error, what);
  else
    /* Translators: what failed (“Could not save the message”), then SQLite's reason */
    g_set_error (error, PRS_ERROR, PRS_ERROR_STORE, _("%s: %s"), _(what), sqlite3_errmsg (self->db));
  if (full && g_atomic_int_compare_and_exchange (&storage_full, 0, 1))
    storage_full_changed ();
}

PrsStmt *
prs_store_prepare_cached (PrsStore    *self,
               const char  *sql,
               GError     **error)
{
  sqlite3_stmt *stmt;

  /* Every query passes here, also those of helpers without their own check */
  PRS_ASSERT_OWNER (&self->owner);

  stmt = g_hash_table_lookup (self->statements, sql);
  if (stmt == NULL)
    {
      if (sqlite3_prepare_v3 (self->db, sql, -1, SQLITE_PREPARE_PERSISTENT,
                              &stmt, NULL) != SQLITE_OK)
        {
          prs_store_set_error (self, error, N_("Could not prepare a database query"));
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

/* Each write's own transaction: BEGIN IMMEDIATE, or inside a batch a
 * savepoint of the batch's (a failed write then undoes itself alone) */
gboolean
prs_store_begin_immediate (PrsStore  *self,
                 GError   **error)
{
  if (self->batch_depth > 0)
    {
      if (!prs_store_exec_cached (self, "SAVEPOINT prs_write",
                                  N_("Could not start writing to the database"), error))
        return FALSE;
      self->step_open = TRUE;
      return TRUE;
    }
  return prs_store_exec_cached (self, "BEGIN IMMEDIATE",
                      N_("Could not start writing to the database"), error);
}

/* Where SQLite keeps what undoes one statement or savepoint of a
 * transaction (each write of a batch is a savepoint; an INSERT whose
 * triggers write is a statement of its own): past 64 KiB a temporary file
 * by default, made, unlinked and closed again, the journal copied to it a
 * kilobyte at a time. An inbound message whose search entry merged FTS5
 * segments passed that every few calls (bench/RESULTS.md). In memory, a
 * journal holds the pages a write changes: a few for everything but a
 * conversation deleted with its messages, which keeps the file
 * (prs_store_begin_large). Set between transactions only: SQLite decides
 * at BEGIN. SQLite's own size limit for memory (SQLITE_CONFIG_STMTJRNL_SPILL)
 * is not used: in 3.40 a journal that outgrows a limit over 128 KiB fails
 * with SQLITE_FULL. */
static gboolean
set_journal_in_memory (PrsStore  *self,
                       gboolean   in_memory,
                       GError   **error)
{
  return prs_store_exec_cached (self, in_memory ? "PRAGMA temp_store = MEMORY" : "PRAGMA temp_store = FILE",
                                N_("Could not set up the database"), error);
}

gboolean
prs_store_begin_large (PrsStore  *self,
                       GError   **error)
{
  /* Inside a batch SQLite has decided already */
  if (self->batch_depth > 0)
    return prs_store_begin_immediate (self, error);
  if (!set_journal_in_memory (self, FALSE, error))
    return FALSE;
  self->journal_on_disk = TRUE;
  if (prs_store_begin_immediate (self, error))
    return TRUE;
  self->journal_on_disk = FALSE;
  set_journal_in_memory (self, TRUE, NULL);
  return FALSE;
}

/* After the transaction of prs_store_begin_large () ended */
static void
end_large (PrsStore *self)
{
  if (self->journal_on_disk && sqlite3_get_autocommit (self->db))
    {
      self->journal_on_disk = FALSE;
      set_journal_in_memory (self, TRUE, NULL);
    }
}

void
prs_store_rollback (PrsStore *self)
{
  if (self->batch_depth > 0)
    {
      if (self->step_open)
        {
          self->step_open = FALSE;
          prs_store_exec_cached (self, "ROLLBACK TO prs_write", N_("Could not undo a write"), NULL);
          prs_store_exec_cached (self, "RELEASE prs_write", N_("Could not undo a write"), NULL);
        }
      return;
    }
  if (!sqlite3_get_autocommit (self->db))
    {
      g_autoptr(PrsStmt) stmt = prs_store_prepare_cached (self, "ROLLBACK", NULL);

      if (stmt != NULL)
        sqlite3_step (stmt);
    }
  end_large (self);
}

static gboolean
commit_transaction (PrsStore  *self,
                    GError   **error)
{
  guint64 number = disk_number_commit (self->disk);

  self->commit_wrote = FALSE;
  if (!prs_store_exec_cached (self, "COMMIT", N_("Could not save to the database"), error))
    {
      disk_commit_returned (self->disk, number, FALSE);
      prs_store_rollback (self);
      return FALSE;
    }
  disk_commit_returned (self->disk, number, self->commit_wrote && !self->batch_unsynced);
  self->last_commit = number;
  end_large (self);

  /* A write went through: there is room again */
  if (g_atomic_int_get (&storage_full) && g_atomic_int_compare_and_exchange (&storage_full, 1, 0))
    storage_full_changed ();
  return TRUE;
}

gboolean
prs_store_commit (PrsStore  *self,
        GError   **error)
{
  if (self->batch_depth > 0)
    {
      self->step_open = FALSE;
      if (!prs_store_exec_cached (self, "RELEASE prs_write", N_("Could not save to the database"), error))
        {
          prs_store_exec_cached (self, "ROLLBACK TO prs_write", N_("Could not undo a write"), NULL);
          prs_store_exec_cached (self, "RELEASE prs_write", N_("Could not undo a write"), NULL);
          return FALSE;
        }
      return TRUE;
    }
  return commit_transaction (self, error);
}

gboolean
prs_store_batch_begin (PrsStore      *self,
                       PrsStoreSync   sync,
                       GError       **error)
{
  g_return_val_if_fail (PRS_IS_STORE (self), FALSE);
  PRS_ASSERT_OWNER (&self->owner);

  if (self->batch_depth > 0)
    {
      self->batch_depth++;
      return TRUE;
    }
  /* Committed to the WAL without waiting for the disk: the next synced
   * commit on the database (SQLite writes the WAL in order) takes it there */
  self->batch_unsynced = sync == PRS_STORE_SYNC_LATER;
  if (self->batch_unsynced &&
      !prs_store_exec_cached (self, "PRAGMA synchronous = NORMAL", N_("Could not set up the database"), error))
    return FALSE;
  if (!prs_store_exec_cached (self, "BEGIN IMMEDIATE", N_("Could not start writing to the database"), error))
    {
      if (self->batch_unsynced)
        prs_store_exec_cached (self, "PRAGMA synchronous = FULL", N_("Could not set up the database"), NULL);
      return FALSE;
    }
  self->batch_depth = 1;
  return TRUE;
}

gboolean
prs_store_batch_end (PrsStore  *self,
                     GError   **error)
{
  gboolean ok;

  g_return_val_if_fail (PRS_IS_STORE (self), FALSE);
  PRS_ASSERT_OWNER (&self->owner);
  g_return_val_if_fail (self->batch_depth > 0, FALSE);

  if (--self->batch_depth > 0)
    return TRUE;
  ok = commit_transaction (self, error);
  if (self->batch_unsynced)
    {
      self->batch_unsynced = FALSE;
      prs_store_exec_cached (self, "PRAGMA synchronous = FULL", N_("Could not set up the database"), NULL);
    }
  return ok;
}

void
prs_store_batch_abandon (PrsStore *self)
{
  g_return_if_fail (PRS_IS_STORE (self));
  PRS_ASSERT_OWNER (&self->owner);
  g_return_if_fail (self->batch_depth == 1);

  self->batch_depth = 0;
  self->step_open = FALSE;
  prs_store_rollback (self);
  if (self->batch_unsynced)
    {
      self->batch_unsynced = FALSE;
      prs_store_exec_cached (self, "PRAGMA synchronous = FULL", N_("Could not set up the database"), NULL);
    }
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

  if (!prs_store_begin_large (self, error))
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

/* Nothing reads SQLite's memory statistics (sqlite3_memory_used ()), and
 * keeping them takes a lock for the whole process around each of SQLite's
 * allocations and frees, dozens for each row stored (bench/RESULTS.md) */
void
prs_store_configure_library (void)
{
  sqlite3_config (SQLITE_CONFIG_MEMSTATUS, 0);
}

static void
prs_store_finalize (GObject *object)
{
  PrsStore *self = (PrsStore *) object;

  /* The statements go before the connection they belong to. */
  g_clear_pointer (&self->statements, g_hash_table_unref);
  g_clear_pointer (&self->db, sqlite3_close);
  g_clear_pointer (&self->path, g_free);
  g_clear_pointer (&self->disk, disk_unref);

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
  /* Keyed by the literal's address, not its text: hashing the text of a
   * statement (hundreds of bytes) at each of the ~30 look-ups of an
   * agent-inference call cost more than the look-up itself
   * (bench/RESULTS.md). Two equal literals at two addresses only prepare
   * one statement twice. */
  self->statements = g_hash_table_new_full (g_direct_hash, g_direct_equal,
                                            NULL, stmt_finalize);
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
                           _("The database “%s” cannot use write-ahead logging (journal mode %s)."),
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
      else if (db_is_full (self->db))
        set_full_error (self, error, N_("Could not open the database"));
      else
        g_set_error (error, PRS_ERROR, PRS_ERROR_STORE,
                     _("Could not open the database “%s”: %s"),
                     self->path, sqlite3_errmsg (self->db));
      sqlite3_finalize (stmt);
      return FALSE;
    }
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

/* @given_path under its folder's real name, its files checked: NOFOLLOW refuses a link
 * anywhere in a name, and /home may be one (Fedora Silverblue); the file never is one */
static char *
real_db_path (const char  *given_path,
              GError     **error)
{
  g_autofree char *db_path = prs_paths_real_folder_of (given_path);

  int saved_errno = errno;

  if (db_path == NULL)
    g_set_error (error, PRS_ERROR, PRS_ERROR_STORE, _("Could not open the database “%s”: %s"),
                 given_path, g_strerror (saved_errno));
  if (db_path == NULL || !check_database_files (db_path, error))
    return NULL;
  return g_steal_pointer (&db_path);
}

/* With @out_outdated, a database an older version wrote (schema above 0,
 * below @target_version) whose pending steps copy or scan rows is closed
 * untouched; a new one (0) is made at once: it holds nothing to copy. */
static PrsStore *
store_open (const char                  *given_path,
            int                          target_version,
            gboolean                    *out_outdated,
            const PrsStoreMigrateWatch  *watch,
            GError                     **error)
{
  g_autoptr(PrsStore) self = NULL;
  g_autofree char *db_path = NULL;
  int version;

  db_path = real_db_path (given_path, error);
  if (db_path == NULL)
    return NULL;

  self = g_object_new (PRS_TYPE_STORE, NULL);
  self->path = g_strdup (db_path);
  prs_thread_owner_claim (&self->owner);

  /* Only SQLite ever opens the database's files. POSIX locks belong to the
   * process and the file, not to a descriptor: closing any descriptor of
   * the file would silently drop every lock this process's connections
   * hold, and another process would then checkpoint and delete the WAL
   * under them. */
  if (sqlite3_open_v2 (db_path, &self->db,
                       SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOFOLLOW,
                       NULL) != SQLITE_OK)
    {
      if (self->db != NULL && db_is_full (self->db))
        set_full_error (self, error, N_("Could not open the database"));
      else
        g_set_error (error, PRS_ERROR, PRS_ERROR_STORE,
                     _("Could not open the database “%s”: %s"), db_path,
                     self->db != NULL ? sqlite3_errmsg (self->db) : "out of memory");
      return NULL;
    }

  /* SQLite makes a new file 0644 & ~umask: made 0600 by name before the first byte
   * is written; SQLite then gives the -wal and -shm files its mode. */
  if (!prs_paths_check_file (db_path, error))
    return NULL;

  sqlite3_extended_result_codes (self->db, 1);
  /* What a write does while another program writes: prs-store-busy.c */
  sqlite3_busy_timeout (self->db, BUSY_TIMEOUT_MS);
  self->disk = disk_ref (db_path);
  sqlite3_wal_hook (self->db, on_wal_commit, self);

  if (!enable_wal (self, error))
    return NULL;

  if (sqlite3_exec (self->db,
                    "PRAGMA synchronous = FULL;"
                    "PRAGMA foreign_keys = ON;",
                    NULL, NULL, NULL) != SQLITE_OK)
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_STORE,
                   _("Could not set up the database “%s”: %s"),
                   db_path, sqlite3_errmsg (self->db));
      return NULL;
    }

  if (!prs_store_read_user_version (self, &version, error))
    return NULL;

  if (version > prs_store_get_latest_version ())
    {
      /* Reaches the "Cannot Start" dialog: what to do, in words */
      g_set_error (error, PRS_ERROR, PRS_ERROR_STORE,
                   _("The database “%s” was written by a newer version of Prosponsive (schema version "
                     "%d; this one knows up to %d). Start the newer version again, or restore a backup "
                     "this version made."),
                   db_path, version, prs_store_get_latest_version ());
      return NULL;
    }

  if (out_outdated != NULL)
    {
      /* Steps that change the schema alone take milliseconds: made at
       * once, as a new database is (docs/storage.md "Migrations") */
      *out_outdated = version > 0 && version < target_version &&
                      prs_store_migrations_copy_rows (version, target_version);
      if (*out_outdated)
        return NULL;
    }

  /* A migration may rewrite whole tables: its journals keep the file */
  if (!prs_store_migrate (self, version, target_version, watch, error) ||
      !set_journal_in_memory (self, TRUE, error))
    return NULL;

  return g_steal_pointer (&self);
}

PrsStore *
prs_store_open_watched (const char                  *data_dir,
                        gboolean                    *out_outdated,
                        const PrsStoreMigrateWatch  *watch,
                        GError                     **error)
{
  g_autofree char *path = NULL;

  if (!prs_paths_ensure_data_dir (data_dir, error))
    return NULL;

  path = g_build_filename (data_dir, PRS_STORE_DB_FILE_NAME, NULL);
  return store_open (path, prs_store_get_latest_version (), out_outdated, watch, error);
}

PrsStore *
prs_store_new (const char  *data_dir,
               GError     **error)
{
  g_return_val_if_fail (data_dir != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return prs_store_open_watched (data_dir, NULL, NULL, error);
}

PrsStore *
prs_store_new_with_progress (const char            *data_dir,
                             PrsStoreProgressFunc   progress,
                             gpointer               user_data,
                             GError               **error)
{
  PrsStoreMigrateWatch watch = { progress, user_data, NULL };

  g_return_val_if_fail (data_dir != NULL, NULL);
  g_return_val_if_fail (progress != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return prs_store_open_watched (data_dir, NULL, &watch, error);
}

PrsStore *
prs_store_new_unless_outdated (const char  *data_dir,
                               gboolean    *out_outdated,
                               GError     **error)
{
  g_return_val_if_fail (data_dir != NULL, NULL);
  g_return_val_if_fail (out_outdated != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  *out_outdated = FALSE;
  return prs_store_open_watched (data_dir, out_outdated, NULL, error);
}

PrsStore *
prs_store_new_for_path (const char  *db_path,
                        GError     **error)
{
  g_return_val_if_fail (db_path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return store_open (db_path, prs_store_get_latest_version (), NULL, NULL, error);
}

PrsStore *
prs_store_new_at_version (const char  *db_path,
                          int          version,
                          GError     **error)
{
  g_return_val_if_fail (db_path != NULL, NULL);
  g_return_val_if_fail (version >= 0, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return store_open (db_path, version, NULL, NULL, error);
}

int
prs_store_get_schema_version (PrsStore *self)
{
  int version = -1;

  g_return_val_if_fail (PRS_IS_STORE (self), -1);
  PRS_ASSERT_OWNER (&self->owner);

  if (!prs_store_read_user_version (self, &version, NULL))
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
    { "temp_store", "PRAGMA temp_store" },
  };

  g_return_val_if_fail (PRS_IS_STORE (self), NULL);
  PRS_ASSERT_OWNER (&self->owner);
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

/* ---- Reading rows --------------------------------------------------------- */

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
prs_store_time_iso8601 (gint64 real_us)
{
  g_autoptr(GDateTime) at = g_date_time_new_from_unix_utc (real_us / G_USEC_PER_SEC);
  g_autofree char *seconds = g_date_time_format (at, "%Y-%m-%dT%H:%M:%S");

  return g_strdup_printf ("%s.%03dZ", seconds, (int) (real_us % G_USEC_PER_SEC / 1000));
}

char *
prs_store_now_iso8601 (void)
{
  return prs_store_time_iso8601 (g_get_real_time ());
}
