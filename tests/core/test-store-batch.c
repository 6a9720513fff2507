/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-store-batch.c: several writes as one transaction
 * (prs_store_batch_begin/end): nothing is visible to another connection
 * before the end, a failed write inside undoes itself alone, batches nest,
 * a batch that syncs later sets synchronous=NORMAL for itself only, and
 * such a commit counts as on the disk once a synced commit that wrote
 * followed it on any connection to the same file, or prs_store_sync ()
 * synced it. What undoes one write of a transaction stays in memory (no
 * temporary file made and deleted per write), except while a conversation
 * is deleted outside a batch. */
#include "config.h"

#include "prs-error.h"
#include "prs-store.h"
#include "prs-store-private.h"
#include "prs-test-util.h"

typedef struct
{
  char *dir;
} Fixture;

static void
fixture_setup (Fixture       *fixture,
               gconstpointer  user_data)
{
  g_autoptr(GError) error = NULL;

  fixture->dir = g_dir_make_tmp ("prs-test-store-batch-XXXXXX", &error);
  g_assert_no_error (error);
}

static void
fixture_teardown (Fixture       *fixture,
                  gconstpointer  user_data)
{
  prs_test_remove_tree (fixture->dir);
  g_free (fixture->dir);
}

static guint
count (PrsStore   *store,
       const char *conversation_id)
{
  g_autoptr(GError) error = NULL;
  guint n = 0;

  g_assert_true (prs_store_count_messages (store, conversation_id, &n, NULL, NULL, &error));
  g_assert_no_error (error);
  return n;
}

static gboolean
insert (PrsStore    *store,
        const char  *conversation_id,
        const char  *dedup_key,
        GError     **error)
{
  PrsMessageInsert message = { 0 };
  g_autofree char *id = NULL;

  message.conversation_id = conversation_id;
  message.kind = "notice";
  message.content = "Hello";
  message.dedup_key = dedup_key;
  return prs_store_insert_message (store, &message, &id, NULL, error);
}

static void
test_batch (Fixture       *fixture,
            gconstpointer  user_data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsStore) store = prs_store_new (fixture->dir, &error);
  g_autoptr(PrsStore) other = prs_store_new (fixture->dir, &error);
  g_autofree char *id = prs_test_resolve_conversation (store, "Batch");
  g_autofree char *sync = NULL;

  g_assert_no_error (error);
  g_assert_true (prs_store_batch_begin (store, PRS_STORE_SYNC_LATER, &error));
  g_assert_no_error (error);
  sync = prs_store_dup_pragma (store, "synchronous", &error);
  g_assert_cmpstr (sync, ==, "1");    /* NORMAL, for this batch */
  g_clear_pointer (&sync, g_free);

  g_assert_true (insert (store, id, "one", &error));
  g_assert_no_error (error);
  /* A duplicate key fails and undoes only itself */
  g_assert_false (insert (store, id, "one", &error));
  g_assert_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT);
  g_clear_error (&error);

  /* Nested: committed with the outer one */
  g_assert_true (prs_store_batch_begin (store, PRS_STORE_SYNC_NOW, &error));
  g_assert_true (insert (store, id, "two", &error));
  g_assert_true (prs_store_batch_end (store, &error));
  g_assert_no_error (error);

  /* The writer reads its own writes; no one else before the end */
  g_assert_cmpuint (count (store, id), ==, 2);
  g_assert_cmpuint (count (other, id), ==, 0);

  g_assert_true (prs_store_batch_end (store, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (count (other, id), ==, 2);
  sync = prs_store_dup_pragma (store, "synchronous", &error);
  g_assert_cmpstr (sync, ==, "2");    /* FULL again */

  /* Outside a batch each write commits at once */
  g_assert_true (insert (store, id, "three", &error));
  g_assert_cmpuint (count (other, id), ==, 3);
}

/* A SYNC_LATER batch of one insert on @store: its commit's number */
static guint64
insert_unsynced (PrsStore   *store,
                 const char *conversation_id)
{
  g_autoptr(GError) error = NULL;
  guint64 commit;

  g_assert_true (prs_store_batch_begin (store, PRS_STORE_SYNC_LATER, &error));
  g_assert_true (insert (store, conversation_id, NULL, &error));
  g_assert_true (prs_store_batch_end (store, &error));
  g_assert_no_error (error);
  commit = prs_store_get_last_commit (store);
  g_assert_cmpuint (commit, >, 0);
  return commit;
}

/* Whether prs_store_sync () had to sync for @commit */
static gboolean
had_to_sync (PrsStore *store,
             guint64   commit)
{
  g_autoptr(GError) error = NULL;
  gboolean synced = FALSE;

  g_assert_true (prs_store_sync (store, commit, &synced, &error));
  g_assert_no_error (error);
  return synced;
}

static void
test_sync_later (Fixture       *fixture,
                 gconstpointer  user_data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir2 = g_build_filename (fixture->dir, "elsewhere", NULL);
  g_autoptr(PrsStore) store = prs_store_new (fixture->dir, &error);
  g_autoptr(PrsStore) other = prs_store_new (fixture->dir, &error);
  g_autoptr(PrsStore) elsewhere = prs_store_new (dir2, &error);
  g_autofree char *id = prs_test_resolve_conversation (store, "Sync");
  g_autofree char *id2 = prs_test_resolve_conversation (elsewhere, "Sync");
  guint64 commit, before;

  g_assert_no_error (error);

  /* Synced by the call, once */
  commit = insert_unsynced (store, id);
  g_assert_true (had_to_sync (store, commit));
  g_assert_false (had_to_sync (store, commit));

  /* Taken to the disk by the next synced commit of another connection */
  commit = insert_unsynced (store, id);
  g_assert_true (insert (other, id, NULL, &error));
  g_assert_no_error (error);
  g_assert_false (had_to_sync (store, commit));

  /* …but not by one that wrote nothing (SQLite syncs nothing then), nor
   * by an unsynced one, nor by one on another file */
  commit = insert_unsynced (store, id);
  g_assert_true (prs_store_batch_begin (other, PRS_STORE_SYNC_NOW, &error));
  g_assert_true (prs_store_batch_end (other, &error));
  g_assert_no_error (error);
  insert_unsynced (other, id);
  g_assert_true (insert (elsewhere, id2, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (had_to_sync (store, commit));

  /* Syncing every commit so far covers those of the other connection */
  before = prs_store_get_last_commit (store);
  commit = insert_unsynced (other, id);
  g_assert_cmpuint (commit, >, before);
  g_assert_true (had_to_sync (store, PRS_STORE_ALL_COMMITS));
  g_assert_false (had_to_sync (other, commit));
  g_assert_false (had_to_sync (other, PRS_STORE_ALL_COMMITS));
}

/* Whether this process has one of SQLite's temporary files open (unlinked
 * at once, they are still seen among its descriptors) */
static gboolean
has_temporary_file (void)
{
  g_autoptr(GDir) fds = g_dir_open ("/proc/self/fd", 0, NULL);
  const char *name;
  gboolean found = FALSE;

  g_assert_nonnull (fds);
  while (!found && (name = g_dir_read_name (fds)) != NULL)
    {
      g_autofree char *fd = g_build_filename ("/proc/self/fd", name, NULL);
      g_autofree char *target = g_file_read_link (fd, NULL);

      found = target != NULL && strstr (target, "etilqs_") != NULL;
    }
  return found;
}

static void
assert_journal_in_memory (PrsStore *store)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *temp_store = prs_store_dup_pragma (store, "temp_store", &error);

  g_assert_no_error (error);
  g_assert_cmpstr (temp_store, ==, "2");
}

static void
test_journal_in_memory (Fixture       *fixture,
                        gconstpointer  user_data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsStore) store = prs_store_new (fixture->dir, &error);
  g_autofree char *kept = prs_test_resolve_conversation (store, "Kept");
  g_autofree char *gone = prs_test_resolve_conversation (store, "Gone");
  g_autofree char *text = g_strnfill (3000, 'a');

  g_assert_no_error (error);
  assert_journal_in_memory (store);
  /* ~200 pages of messages, every one of them changed by one savepoint:
   * 800 KiB of journal, where SQLite's own limit for memory is 64 KiB */
  for (guint i = 0; i < 200; i++)
    {
      PrsMessageInsert message = { 0 };
      g_autofree char *id = NULL;

      message.conversation_id = gone;
      message.kind = "notice";
      message.content = text;
      g_assert_true (prs_store_insert_message (store, &message, &id, NULL, &error));
      g_assert_no_error (error);
    }
  g_assert_false (has_temporary_file ());
  g_assert_true (prs_store_batch_begin (store, PRS_STORE_SYNC_LATER, &error));
  g_assert_true (insert (store, kept, NULL, &error));
  g_assert_true (prs_store_delete_conversation (store, gone, &error));
  g_assert_no_error (error);
  g_assert_false (has_temporary_file ());
  g_assert_true (prs_store_batch_end (store, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (count (store, kept), ==, 1);

  /* A conversation deleted on its own keeps its journal on the disk, and
   * the connection goes back to memory after it */
  g_assert_true (prs_store_delete_conversation (store, kept, &error));
  g_assert_no_error (error);
  assert_journal_in_memory (store);
  g_assert_false (prs_store_delete_conversation (store, kept, &error));
  g_assert_error (error, PRS_ERROR, PRS_ERROR_NOT_FOUND);
  assert_journal_in_memory (store);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add ("/store/batch", Fixture, NULL, fixture_setup, test_batch, fixture_teardown);
  g_test_add ("/store/batch/sync-later", Fixture, NULL, fixture_setup, test_sync_later, fixture_teardown);
  g_test_add ("/store/batch/journal-in-memory", Fixture, NULL, fixture_setup, test_journal_in_memory,
              fixture_teardown);
  return g_test_run ();
}
