/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Tests for the store's files (prs-store.c opening, prs-store-backup.c):
 * the locks SQLite holds survive a second connection in the same process,
 * another process's connection coming and going leaves the WAL in place,
 * the files are private whatever the umask, planted links and other users'
 * files are refused, a busy database says so, a backup is consistent, and
 * the WAL is checkpointed on a thread of its own, staying near 1,000
 * pages, and SQLite keeps no memory statistics once told so. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>
#include <glib/gstdio.h>

#include "prs-error.h"
#include "prs-store.h"
#include "prs-test-util.h"

typedef PrsTestStoreDir Fixture;

static PrsStore *
open_store (Fixture *fixture)
{
  g_autoptr(GError) error = NULL;
  PrsStore *store = prs_store_new (fixture->dir, &error);

  g_assert_no_error (error);
  g_assert_nonnull (store);
  return store;
}

static guint
file_mode (const char *path)
{
  GStatBuf st;

  g_assert_cmpint (g_lstat (path, &st), ==, 0);
  return st.st_mode & 0777;
}

/* SQLite's SHARED lock on a database file is a read lock on the bytes
 * from PENDING_BYTE + 2 (0x40000002) on (its os.h): a WAL connection holds
 * one while it is open. */
#define SHARED_FIRST 0x40000002u

/* Whether this process holds a POSIX lock covering SQLite's first SHARED
 * byte of @path's inode, read from /proc/locks (the kernel's own list:
 * what SQLite believes it holds does not count). Asking for that byte, not
 * counting lines: the kernel merges a process's adjacent ranges, and the
 * checkpoint thread's connection takes and drops locks of its own at any
 * moment, so the number of lines changes without any lock being lost. */
static gboolean
holds_shared_lock (const char *path)
{
  g_autofree char *contents = NULL;
  g_auto(GStrv) lines = NULL;
  g_autofree char *suffix = NULL;
  GStatBuf st;
  gboolean held = FALSE;

  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_assert_true (g_file_get_contents ("/proc/locks", &contents, NULL, NULL));
  suffix = g_strdup_printf (":%lu", (unsigned long) st.st_ino);

  lines = g_strsplit (contents, "\n", -1);
  for (guint i = 0; lines[i] != NULL && !held; i++)
    {
      g_auto(GStrv) fields = g_strsplit_set (lines[i], " ", -1);
      GPtrArray *words = g_ptr_array_new ();

      for (guint j = 0; fields[j] != NULL; j++)
        if (fields[j][0] != '\0')
          g_ptr_array_add (words, fields[j]);

      /* "2: POSIX  ADVISORY  READ 14250 fe:00:10952962 1073741826 1073742335";
       * blocked waiters ("1: -> POSIX …") are not held locks; "EOF" is an
       * end past every byte */
      if (words->len >= 8 && g_str_equal (words->pdata[1], "POSIX") &&
          g_ascii_strtoll (words->pdata[4], NULL, 10) == getpid () &&
          g_str_has_suffix (words->pdata[5], suffix))
        {
          guint64 start = g_ascii_strtoull (words->pdata[6], NULL, 10);
          gboolean to_end = g_str_equal (words->pdata[7], "EOF");
          guint64 end = to_end ? G_MAXUINT64 : g_ascii_strtoull (words->pdata[7], NULL, 10);

          held = start <= SHARED_FIRST && SHARED_FIRST <= end;
        }
      g_ptr_array_unref (words);
    }

  return held;
}

/* Another process opens the database, reads @key and closes it again (the
 * way a prosponsive-ctl verb does); returns what it read ("" when there is
 * no such row). A new program, not a fork: SQLite's per-process lock
 * bookkeeping must not be inherited. */
static char *
read_setting_in_other_process (const char *db_path,
                               const char *key)
{
  const char *argv[] = {
    "python3", "-c",
    "import sqlite3, sys\n"
    "db = sqlite3.connect(sys.argv[1], timeout=5)\n"
    "row = db.execute('SELECT value FROM settings WHERE key = ?', (sys.argv[2],)).fetchone()\n"
    "print(row[0] if row else '', end='')\n"
    "db.close()\n",
    db_path, key, NULL
  };
  g_autoptr(GError) error = NULL;
  char *out = NULL;
  int status = -1;

  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL,
                               &out, NULL, &status, &error));
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, &error));
  g_assert_no_error (error);
  return out;
}

/* ---- locks ---------------------------------------------------------------- */

/* The app opens one connection per thread. Opening the second must not take
 * away the first one's locks (closing any descriptor of the file would). */
static void
test_second_connection_keeps_locks (Fixture       *fixture,
                                    gconstpointer  user_data)
{
  g_autoptr(PrsStore) main_store = open_store (fixture);
  g_autoptr(PrsStore) api_store = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_true (prs_store_set_setting (main_store, "k", "v", &error));
  g_assert_no_error (error);
  g_assert_true (holds_shared_lock (fixture->db_path));

  api_store = open_store (fixture);
  g_assert_true (holds_shared_lock (fixture->db_path));

  g_clear_object (&api_store);
  g_assert_true (holds_shared_lock (fixture->db_path));
}

/* Two connections here, a third process coming and going: the WAL keeps
 * its name, and what this process commits afterwards is what the next
 * process reads. */
static void
test_other_process_sees_writes (Fixture       *fixture,
                                gconstpointer  user_data)
{
  g_autoptr(PrsStore) main_store = open_store (fixture);
  g_autoptr(PrsStore) api_store = open_store (fixture);
  g_autofree char *wal = g_strconcat (fixture->db_path, "-wal", NULL);
  g_autofree char *shm = g_strconcat (fixture->db_path, "-shm", NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;

  g_assert_true (prs_store_set_setting (api_store, "k", "one", &error));
  g_assert_no_error (error);
  first = read_setting_in_other_process (fixture->db_path, "k");
  g_assert_cmpstr (first, ==, "one");

  g_assert_true (g_file_test (wal, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (shm, G_FILE_TEST_EXISTS));

  g_assert_true (prs_store_set_setting (main_store, "k", "two", &error));
  g_assert_no_error (error);
  second = read_setting_in_other_process (fixture->db_path, "k");
  g_assert_cmpstr (second, ==, "two");
}

/* ---- checkpoints ----------------------------------------------------------- */

static gboolean
has_thread (const char *name)
{
  g_autoptr(GDir) tasks = g_dir_open ("/proc/self/task", 0, NULL);
  const char *task;
  gboolean found = FALSE;

  g_assert_nonnull (tasks);
  while (!found && (task = g_dir_read_name (tasks)) != NULL)
    {
      g_autofree char *path = g_build_filename ("/proc/self/task", task, "comm", NULL);
      g_autofree char *comm = NULL;

      if (g_file_get_contents (path, &comm, NULL, NULL))
        found = g_str_equal (g_strstrip (comm), name);
    }
  return found;
}

static void
test_checkpoint_aside (Fixture       *fixture,
                       gconstpointer  user_data)
{
  g_autoptr(PrsStore) store = open_store (fixture);
  g_autofree char *wal = g_strconcat (fixture->db_path, "-wal", NULL);
  g_autofree char *value = g_strnfill (5 * 4096, 'x');
  g_autoptr(GError) error = NULL;
  goffset largest = 0;

  g_assert_false (has_thread ("prs-checkpoint"));
  /* ~6 pages a commit, 6,000 in all: without checkpoints the WAL would
   * hold them all */
  for (guint i = 0; i < 1000; i++)
    {
      GStatBuf st;

      value[0] = 'a' + i % 26;
      g_assert_true (prs_store_set_setting (store, "k", value, &error));
      g_assert_no_error (error);
      g_assert_cmpint (g_stat (wal, &st), ==, 0);
      largest = MAX (largest, st.st_size);
    }
  g_assert_true (has_thread ("prs-checkpoint"));
  g_assert_cmpint (largest, <, 3000 * (4096 + 24));
  g_assert_cmpint (largest, >, 1000 * (4096 + 24));

  /* The thread goes with the last connection */
  g_clear_object (&store);
  g_assert_false (has_thread ("prs-checkpoint"));
}

/* ---- modes ---------------------------------------------------------------- */

static void
test_private_whatever_the_umask (Fixture       *fixture,
                                 gconstpointer  user_data)
{
  g_autofree char *wal = g_strconcat (fixture->db_path, "-wal", NULL);
  g_autofree char *shm = g_strconcat (fixture->db_path, "-shm", NULL);
  g_autoptr(PrsStore) store = NULL;
  g_autoptr(GError) error = NULL;
  mode_t old = umask (0);

  store = open_store (fixture);
  umask (old);
  g_assert_true (prs_store_set_setting (store, "k", "v", &error));
  g_assert_no_error (error);

  g_assert_cmpuint (file_mode (fixture->db_path), ==, 0600);
  g_assert_cmpuint (file_mode (wal), ==, 0600);
  g_assert_cmpuint (file_mode (shm), ==, 0600);
}

/* ---- planted files ---------------------------------------------------------- */

static void
assert_unsafe (const GError *error,
               const char   *path)
{
  g_assert_error (error, PRS_ERROR, PRS_ERROR_UNSAFE_PATH);
  g_assert_nonnull (strstr (error->message, path));
}

/* A link planted as prosponsive.db (or beside it) is never followed: the
 * file it points to is neither opened nor changed. */
static void
test_planted_links_refused (Fixture       *fixture,
                            gconstpointer  user_data)
{
  static const char * const suffixes[] = { "", "-wal", "-journal" };
  g_autofree char *target = g_build_filename (fixture->dir, "someone-elses.db", NULL);

  g_assert_cmpint (g_chmod (fixture->dir, 0700), ==, 0);
  g_object_unref (open_store (fixture));

  for (guint i = 0; i < G_N_ELEMENTS (suffixes); i++)
    {
      g_autofree char *path = g_strconcat (fixture->db_path, suffixes[i], NULL);
      g_autofree char *moved = g_strconcat (path, ".moved", NULL);
      g_autofree char *contents = NULL;
      g_autoptr(GError) error = NULL;
      PrsStore *store;

      g_assert_true (g_file_set_contents (target, "not a database", -1, NULL));
      if (g_file_test (path, G_FILE_TEST_EXISTS))
        g_assert_cmpint (g_rename (path, moved), ==, 0);
      g_assert_cmpint (symlink (target, path), ==, 0);

      store = prs_store_new (fixture->dir, &error);
      g_assert_null (store);
      assert_unsafe (error, path);
      g_assert_true (g_file_get_contents (target, &contents, NULL, NULL));
      g_assert_cmpstr (contents, ==, "not a database");

      g_assert_cmpint (g_unlink (path), ==, 0);
      if (g_file_test (moved, G_FILE_TEST_EXISTS))
        g_assert_cmpint (g_rename (moved, path), ==, 0);
    }
}

/* A link ABOVE the data folder is the person's own layout (a home folder
 * that is a link, as /home is on Fedora Silverblue): the database opens
 * through it, and a backup is written through one, while a link planted
 * as the database itself is still refused (above) */
static void
test_linked_folder_opens (Fixture       *fixture,
                          gconstpointer  user_data)
{
  g_autofree char *real = g_build_filename (fixture->dir, "real", NULL);
  g_autofree char *link = g_build_filename (fixture->dir, "home", NULL);
  g_autofree char *data_dir = g_build_filename (link, "data", NULL);
  g_autofree char *copy = g_build_filename (link, "backup.db", NULL);
  g_autofree char *real_copy = g_build_filename (real, "backup.db", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsStore) store = NULL;
  g_autofree char *id = NULL, *slug = NULL;

  g_assert_cmpint (g_chmod (fixture->dir, 0700), ==, 0);
  g_assert_cmpint (g_mkdir (real, 0700), ==, 0);
  g_assert_cmpint (symlink (real, link), ==, 0);

  store = prs_store_new (data_dir, &error);
  g_assert_no_error (error);
  g_assert_nonnull (store);
  id = prs_test_resolve_conversation (store, "inbox");
  g_assert_true (prs_store_backup (store, copy, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_test (real_copy, G_FILE_TEST_IS_REGULAR));
  {
    g_autofree char *sql = g_strdup_printf ("SELECT slug FROM conversations WHERE id = '%s'", id);

    slug = prs_test_sql_query (real_copy, sql);
  }
  g_assert_cmpstr (slug, ==, "inbox");
}

/* A WAL another user left beside the database would be replayed into it */
static void
test_foreign_wal_refused (Fixture       *fixture,
                          gconstpointer  user_data)
{
  g_autofree char *wal = g_strconcat (fixture->db_path, "-wal", NULL);
  g_autoptr(GError) error = NULL;
  PrsStore *store;

  if (geteuid () != 0)
    {
      g_test_skip ("making a file another user's needs root");
      return;
    }

  g_object_unref (open_store (fixture));
  g_assert_true (g_file_set_contents (wal, "", 0, NULL));
  g_assert_cmpint (chown (wal, 65534, 65534), ==, 0);

  store = prs_store_new (fixture->dir, &error);
  g_assert_null (store);
  assert_unsafe (error, wal);
}

/* ---- busy ------------------------------------------------------------------- */

/* Another connection keeps a write transaction open past the busy timeout:
 * the writer waited, then says so in words, with its own code. */
static void
test_busy_says_so (Fixture       *fixture,
                   gconstpointer  user_data)
{
  g_autoptr(PrsStore) store = open_store (fixture);
  g_autoptr(GError) error = NULL;
  sqlite3 *other = NULL;
  gint64 start;

  g_assert_cmpint (sqlite3_open_v2 (fixture->db_path, &other, SQLITE_OPEN_READWRITE, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_exec (other, "BEGIN IMMEDIATE", NULL, NULL, NULL), ==, SQLITE_OK);

  start = g_get_monotonic_time ();
  g_assert_false (prs_store_set_setting (store, "k", "v", &error));
  g_assert_cmpint (g_get_monotonic_time () - start, >=, 4 * G_USEC_PER_SEC);
  g_assert_error (error, PRS_ERROR, PRS_ERROR_STORE_BUSY);
  g_assert_nonnull (strstr (error->message, fixture->db_path));
  g_assert_nonnull (strstr (error->message, "Try again"));
  g_clear_error (&error);

  /* Reading is not held up by a writer (WAL) */
  g_assert_null (prs_store_dup_setting (store, "k"));

  g_assert_cmpint (sqlite3_exec (other, "COMMIT", NULL, NULL, NULL), ==, SQLITE_OK);
  sqlite3_close (other);
  g_assert_true (prs_store_set_setting (store, "k", "v", &error));
  g_assert_no_error (error);
}

/* The programs turn SQLite's memory statistics off before their first
 * connection (each allocation took a process-wide lock to count them):
 * with the store's writes, SQLite then counts nothing. In a process of its
 * own, where SQLite has not started yet. */
static void
test_no_memory_statistics (Fixture       *fixture,
                           gconstpointer  user_data)
{
  if (g_test_subprocess ())
    {
      g_autoptr(PrsStore) store = NULL;
      g_autoptr(GError) error = NULL;

      prs_store_configure_library ();
      store = open_store (fixture);
      g_assert_true (prs_store_set_setting (store, "k", "v", &error));
      g_assert_no_error (error);
      g_assert_cmpint (sqlite3_memory_used (), ==, 0);
      return;
    }

  /* Counted otherwise: the check above can fail */
  {
    g_autoptr(PrsStore) store = open_store (fixture);

    g_assert_cmpint (sqlite3_memory_used (), >, 0);
  }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add ("/prs/store-files/" path, Fixture, NULL, prs_test_store_dir_setup, func, prs_test_store_dir_teardown)

  ADD ("locks/second-connection", test_second_connection_keeps_locks);
  ADD ("locks/other-process-sees-writes", test_other_process_sees_writes);
  ADD ("wal/checkpoint-aside", test_checkpoint_aside);
  ADD ("modes/private-whatever-the-umask", test_private_whatever_the_umask);
  ADD ("busy/says-so", test_busy_says_so);
  ADD ("planted/links-refused", test_planted_links_refused);
  ADD ("planted/linked-folder-opens", test_linked_folder_opens);
  ADD ("planted/foreign-wal-refused", test_foreign_wal_refused);
  ADD ("library/no-memory-statistics", test_no_memory_statistics);

#undef ADD

  return g_test_run ();
}
