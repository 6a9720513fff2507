/* SPDX-License-Identifier: GPL-3.0-or-later */
/* bench-insights: how long the Insights figures of each period take to
 * read (prs_store_read_insights, what the page and the ctl call) from a
 * data folder that bench/seed-insights filled, beside the baseline of one
 * SELECT COUNT (*) over the runs and over the tool calls, on the same
 * connection. Medians of ROUNDS reads after two to warm the cache.
 *
 *   bench-insights DIR [--rounds ROUNDS]
 *
 * Prints "COUNT <table> <rows> <ms>", "PERIOD <period> <ms>" and "OPEN <ms>"
 * (a new connection and the "all" figures, as the page's worker thread). */
#include <stdlib.h>

#include "prs-store.h"
#include "prs-store-insights.h"
#include "prs-store-internal.h"

static int
compare_doubles (gconstpointer a,
                 gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

static double
median (double *times,
        guint   n)
{
  qsort (times, n, sizeof *times, (int (*) (const void *, const void *)) compare_doubles);
  return n % 2 == 1 ? times[n / 2] : (times[n / 2 - 1] + times[n / 2]) / 2;
}

static gint64
count_rows (PrsStore   *store,
            const char *sql)
{
  sqlite3_stmt *stmt = NULL;
  gint64 rows = -1;

  if (sqlite3_prepare_v2 (store->db, sql, -1, &stmt, NULL) == SQLITE_OK &&
      sqlite3_step (stmt) == SQLITE_ROW)
    rows = sqlite3_column_int64 (stmt, 0);
  sqlite3_finalize (stmt);
  return rows;
}

static void
bench_count (PrsStore   *store,
             const char *table,
             const char *sql,
             guint       rounds)
{
  g_autofree double *times = g_new0 (double, rounds);
  gint64 rows = 0;

  for (guint i = 0; i < rounds + 2; i++)
    {
      gint64 start = g_get_monotonic_time ();

      rows = count_rows (store, sql);
      if (i >= 2)
        times[i - 2] = (g_get_monotonic_time () - start) / 1000.0;
    }
  g_print ("COUNT %s %" G_GINT64_FORMAT " %.3f\n", table, rows, median (times, rounds));
}

static gboolean
bench_period (PrsStore           *store,
              PrsInsightsPeriod   period,
              guint               rounds,
              GError            **error)
{
  g_autofree double *times = g_new0 (double, rounds);

  for (guint i = 0; i < rounds + 2; i++)
    {
      gint64 start = g_get_monotonic_time ();
      g_autoptr(PrsInsights) insights = prs_store_read_insights (store, period, NULL, error);

      if (insights == NULL)
        return FALSE;
      if (i >= 2)
        times[i - 2] = (g_get_monotonic_time () - start) / 1000.0;
    }
  g_print ("PERIOD %s %.3f\n", prs_insights_period_to_string (period), median (times, rounds));
  return TRUE;
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsStore) store = NULL;
  int rounds = 15;
  GOptionEntry entries[] = {
    { "rounds", 0, 0, G_OPTION_ARG_INT, &rounds, "Timed reads of each", "ROUNDS" },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("DIR");

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error) || argc != 2 || rounds < 1)
    {
      g_printerr ("usage: bench-insights DIR [--rounds ROUNDS]\n");
      return 2;
    }

  store = prs_store_new (argv[1], &error);
  if (store == NULL)
    goto fail;
  bench_count (store, "runs", "SELECT COUNT (*) FROM runs", (guint) rounds);
  bench_count (store, "tool_calls", "SELECT COUNT (*) FROM tool_calls", (guint) rounds);
  for (PrsInsightsPeriod period = PRS_INSIGHTS_TODAY; period <= PRS_INSIGHTS_ALL; period++)
    if (!bench_period (store, period, (guint) rounds, &error))
      goto fail;

  {
    g_autofree double *times = g_new0 (double, rounds);

    for (int i = 0; i < rounds; i++)
      {
        gint64 start = g_get_monotonic_time ();
        g_autoptr(PrsStore) other = prs_store_new (argv[1], &error);
        g_autoptr(PrsInsights) insights = other != NULL
                                          ? prs_store_read_insights (other, PRS_INSIGHTS_ALL, NULL, &error) : NULL;

        if (insights == NULL)
          goto fail;
        times[i] = (g_get_monotonic_time () - start) / 1000.0;
      }
    g_print ("OPEN %.3f\n", median (times, (guint) rounds));
  }
  return 0;

fail:
  g_printerr ("bench-insights: %s\n", error->message);
  return 1;
}
