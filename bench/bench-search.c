/* SPDX-License-Identifier: GPL-3.0-or-later */
/* bench-search: search over a data folder made by seed-conversation, for
 * bench/run:
 *
 *   bench-search DIR WORDS LIKE ROUNDS
 *
 * prints "SEARCH <median ms> <hits>" for prs_store_search (WORDS, 50 hits:
 * the FTS5 index, ranked), and "LIKE <median ms> <hits>" for the baseline a
 * store without an index would run: the messages whose text contains LIKE,
 * newest first, 50 of them. Both on the same connection, warmed once. */
#include <stdlib.h>

#include "prs-store.h"
#include "prs-store-internal.h"

static int
compare_doubles (gconstpointer a,
                 gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

static double
median (GArray *times)
{
  g_array_sort (times, compare_doubles);
  return g_array_index (times, double, times->len / 2);
}

static guint
like_scan (PrsStore   *store,
           const char *pattern)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsStmt) stmt = prs_store_prepare_cached (store,
                                                      "SELECT m.id FROM messages m"
                                                      " JOIN conversations c ON c.id = m.conversation_id"
                                                      " AND c.deleted_at IS NULL"
                                                      " WHERE m.content LIKE ?1 ORDER BY m.rowid DESC LIMIT 50",
                                                      &error);
  g_autofree char *like = g_strdup_printf ("%%%s%%", pattern);
  guint n = 0;

  g_assert_nonnull (stmt);
  prs_store_bind_text (stmt, 1, like);
  while (prs_store_step_row (store, stmt, "like", NULL) == 1)
    n++;
  return n;
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsStore) store = NULL;
  g_autoptr(GArray) fts = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) like = g_array_new (FALSE, FALSE, sizeof (double));
  guint rounds, fts_hits = 0, like_hits = 0;

  if (argc != 5)
    {
      g_printerr ("usage: bench-search DIR WORDS LIKE ROUNDS\n");
      return 2;
    }
  rounds = (guint) g_ascii_strtoull (argv[4], NULL, 10);
  store = prs_store_new (argv[1], &error);
  if (store == NULL)
    {
      g_printerr ("bench-search: %s\n", error->message);
      return 1;
    }

  for (guint i = 0; i <= rounds; i++)
    {
      gint64 t0 = g_get_monotonic_time ();
      g_autoptr(GPtrArray) hits = prs_store_search (store, argv[2], 50, NULL, &error);
      double ms = (g_get_monotonic_time () - t0) / 1000.0;

      g_assert_nonnull (hits);
      fts_hits = hits->len;
      if (i > 0)   /* the first warms the cache */
        g_array_append_val (fts, ms);

      t0 = g_get_monotonic_time ();
      like_hits = like_scan (store, argv[3]);
      ms = (g_get_monotonic_time () - t0) / 1000.0;
      if (i > 0)
        g_array_append_val (like, ms);
    }

  g_print ("SEARCH %.3f %u\n", median (fts), fts_hits);
  g_print ("LIKE %.3f %u\n", median (like), like_hits);
  return 0;
}
