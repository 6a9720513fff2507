/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-store-batch.c: several writes as one transaction
 * (prs_store_batch_begin/end): nothing is visible to another connection
 * before the end, a failed write inside undoes itself alone, batches nest,
 * and a batch that syncs later sets synchronous=NORMAL for itself only. */
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

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add ("/store/batch", Fixture, NULL, fixture_setup, test_batch, fixture_teardown);
  return g_test_run ();
}
