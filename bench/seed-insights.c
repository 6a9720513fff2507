/* SPDX-License-Identifier: GPL-3.0-or-later */
/* seed-insights: a data folder with N agent runs over the last DAYS days,
 * each with its model calls and two tool calls, for the insights benchmark
 * (bench/run) and for looking at the Insights page.
 *
 *   seed-insights N DIR [--days DAYS] [--seed S]
 *
 * Rows go in through the store's connection in ONE transaction, as the app
 * writes them (the runs, each attempt at a model, each tool call with its
 * final status and start time), so the store's triggers build the daily
 * totals exactly as they do for the app. Deterministic for a given seed:
 * times and tokens follow log-normal-ish spreads, 3 % of runs fail over,
 * 1 % fail; 85 % of tool calls succeed, 7 % fail, 5 % are denied, 3 % wait. */
#include <stdlib.h>

#include "prs-store.h"
#include "prs-store-insights.h"
#include "prs-store-internal.h"

static const char * const agents[] = { "prosponsive", "email-assistant", "researcher", "scheduler" };
static const struct { const char *id, *name, *model; } models[] = {
  { "p-openai", "OpenAI", "gpt-4o" },
  { "p-anthropic", "Anthropic", "claude-sonnet-4" },
  { "p-ollama", "Ollama", "qwen2.5:14b" },
  { "p-groq", "Groq", "llama-3.3-70b" },
  { "p-mistral", "Mistral", "mistral-large" },
};
static const char * const tools[] = {
  "email_move_to_folder", "search_jira_issues", "get_weather", "create_calendar_event",
  "send_slack_message", "summarize_inbox", "lookup_contact", "create_invoice", "update_crm_deal",
  "fetch_rss_digest", "translate_text", "book_meeting_room", "archive_newsletter", "create_ticket",
  "query_database", "post_to_mastodon", "download_report", "resize_image", "check_uptime", "backup_notes",
};
#define N_TOOLS G_N_ELEMENTS (tools)

typedef struct
{
  PrsStore *store;
  GRand    *rand;
  char     *conversation_id;
  gint64    first_day_unix;   /* local midnight of the first day, UTC seconds */
  guint     days;
} Seeder;

/* A log-normal-ish time around @median ms: a quantile of a log-normal
 * spread (sigma about 0.7), jittered */
static gint64
spread (Seeder *seeder,
        double  median)
{
  static const double quantiles[] = { 0.25, 0.35, 0.45, 0.55, 0.65, 0.75, 0.85, 0.95,
                                      1.05, 1.15, 1.3, 1.5, 1.8, 2.2, 2.8, 4.0 };
  double factor = quantiles[g_rand_int_range (seeder->rand, 0, G_N_ELEMENTS (quantiles))];

  return (gint64) (median * factor * g_rand_double_range (seeder->rand, 0.9, 1.1));
}

static char *
iso_at (gint64 unix_ms)
{
  g_autoptr(GDateTime) time = g_date_time_new_from_unix_utc (unix_ms / 1000);
  g_autofree char *seconds = g_date_time_format (time, "%Y-%m-%dT%H:%M:%S");

  return g_strdup_printf ("%s.%03dZ", seconds, (int) (unix_ms % 1000));
}

static gboolean
insert_run (Seeder      *seeder,
            const char  *id,
            const char  *agent,
            const char  *at,
            GError     **error)
{
  g_autoptr(PrsStmt) stmt =
    prs_store_prepare_cached (seeder->store,
                              "INSERT INTO runs (id, conversation_id, agent_id, origin, status,"
                              " created_at, updated_at) VALUES (?1, ?2, ?3, 'agent-inference', 'completed', ?4, ?4)",
                              error);

  if (stmt == NULL)
    return FALSE;
  prs_store_bind_text (stmt, 1, id);
  prs_store_bind_text (stmt, 2, seeder->conversation_id);
  prs_store_bind_text (stmt, 3, agent);
  prs_store_bind_text (stmt, 4, at);
  return prs_store_step_done (seeder->store, stmt, "Could not insert a run", error);
}

static gboolean
insert_tool_call (Seeder      *seeder,
                  const char  *run_id,
                  guint        position,
                  gint64       at_ms,
                  GError     **error)
{
  g_autoptr(PrsStmt) stmt =
    prs_store_prepare_cached (seeder->store,
                              "INSERT INTO tool_calls (id, run_id, message_id, round, position, name,"
                              " arguments_json, status, created_at, updated_at, started_at)"
                              " VALUES (?1 || '-' || ?2, ?1, 'm-' || ?1 || '-' || ?2, 1, ?2, ?3, '{}', ?4, ?5, ?6, ?7)",
                              error);
  guint kind = g_rand_int_range (seeder->rand, 0, 100);
  const char *status = kind < 85 ? "succeeded" : kind < 92 ? "failed" : kind < 97 ? "denied" : "proposed";
  double u = g_rand_double (seeder->rand);
  /* A few tools are called most */
  guint tool = MIN ((guint) (N_TOOLS * u * u), N_TOOLS - 1);
  const char *name = tools[tool];
  g_autofree char *created = iso_at (at_ms);
  gint64 start_ms = at_ms + spread (seeder, 4000);
  g_autofree char *started = iso_at (start_ms);
  g_autofree char *ended = iso_at (start_ms + spread (seeder, 300.0 + 150.0 * tool));
  gboolean ran = kind < 92;

  if (stmt == NULL)
    return FALSE;
  prs_store_bind_text (stmt, 1, run_id);
  sqlite3_bind_int (stmt, 2, (int) position);
  prs_store_bind_text (stmt, 3, name);
  prs_store_bind_text (stmt, 4, status);
  prs_store_bind_text (stmt, 5, created);
  prs_store_bind_text (stmt, 6, ran ? ended : created);
  prs_store_bind_text (stmt, 7, ran ? started : NULL);
  return prs_store_step_done (seeder->store, stmt, "Could not insert a tool call", error);
}

/* As prs_store_add_model_calls writes it, inside the seeder's transaction */
static gboolean
insert_model_call (Seeder                   *seeder,
                   const PrsModelCallInsert *call,
                   GError                  **error)
{
  g_autoptr(PrsStmt) stmt =
    prs_store_prepare_cached (seeder->store,
                              "INSERT INTO model_calls (run_id, agent_id, provider_id, provider_name,"
                              " model, outcome, first_token_ms, total_ms, input_tokens, output_tokens,"
                              " created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
                              error);

  if (stmt == NULL)
    return FALSE;
  prs_store_bind_text (stmt, 1, call->run_id);
  prs_store_bind_text (stmt, 2, call->agent_id);
  prs_store_bind_text (stmt, 3, call->provider_id);
  prs_store_bind_text (stmt, 4, call->provider_name);
  prs_store_bind_text (stmt, 5, call->model);
  prs_store_bind_text (stmt, 6, call->outcome);
  if (call->first_token_ms >= 0)
    sqlite3_bind_int64 (stmt, 7, call->first_token_ms);
  sqlite3_bind_int64 (stmt, 8, call->total_ms);
  sqlite3_bind_int64 (stmt, 9, call->input_tokens);
  sqlite3_bind_int64 (stmt, 10, call->output_tokens);
  prs_store_bind_text (stmt, 11, call->created_at);
  return prs_store_step_done (seeder->store, stmt, "Could not insert a model call", error);
}

static gboolean
seed_run (Seeder      *seeder,
          guint64      index,
          guint64      n_runs,
          GError     **error)
{
  /* Evenly over the days, each at a random second of its day */
  gint64 day = (gint64) (index * seeder->days / n_runs);
  gint64 at_ms = (seeder->first_day_unix + day * 86400 + g_rand_int_range (seeder->rand, 0, 86400)) * 1000;
  g_autofree char *at = iso_at (at_ms);
  char id[32];
  const char *agent = agents[g_rand_int_range (seeder->rand, 0, G_N_ELEMENTS (agents))];
  guint pick = g_rand_int_range (seeder->rand, 0, G_N_ELEMENTS (models));
  guint chance = g_rand_int_range (seeder->rand, 0, 100);
  PrsModelCallInsert calls[2] = { { 0 } };
  guint n_calls = 0;

  g_snprintf (id, sizeof id, "r%09" G_GUINT64_FORMAT, index);
  if (!insert_run (seeder, id, agent, at, error))
    return FALSE;

  if (chance < 3)
    {
      guint other = (pick + 1) % G_N_ELEMENTS (models);
      PrsModelCallInsert failed = { id, agent, models[other].id, models[other].name, models[other].model,
                                    PRS_MODEL_CALL_FAILED_OVER, -1, spread (seeder, 800), 0, 0, at };

      calls[n_calls++] = failed;
    }
  {
    gint64 first_token = spread (seeder, 400.0 + 200.0 * pick);
    PrsModelCallInsert call = { id, agent, models[pick].id, models[pick].name, models[pick].model,
                                chance == 99 ? PRS_MODEL_CALL_FAILED : PRS_MODEL_CALL_ANSWERED,
                                chance == 99 ? -1 : first_token,
                                first_token + spread (seeder, 2500), spread (seeder, 1800), spread (seeder, 220), at };

    calls[n_calls++] = call;
  }
  for (guint i = 0; i < n_calls; i++)
    if (!insert_model_call (seeder, &calls[i], error))
      return FALSE;

  return insert_tool_call (seeder, id, 0, at_ms, error) &&
         insert_tool_call (seeder, id, 1, at_ms, error);
}

static gboolean
add_conversation (Seeder  *seeder,
                  GError **error)
{
  g_autoptr(PrsStmt) stmt = NULL;
  g_autofree char *now = prs_store_now_iso8601 ();

  seeder->conversation_id = g_uuid_string_random ();
  stmt = prs_store_prepare_cached (seeder->store,
                                   "INSERT INTO conversations (id, slug, title, created_at, updated_at)"
                                   " VALUES (?1, 'insights', 'Insights', ?2, ?2)", error);
  if (stmt == NULL)
    return FALSE;
  prs_store_bind_text (stmt, 1, seeder->conversation_id);
  prs_store_bind_text (stmt, 2, now);
  return prs_store_step_done (seeder->store, stmt, "Could not create a conversation", error);
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GError) error = NULL;
  Seeder seeder = { 0 };
  int days = 365, seed = 17;
  guint64 n;
  GOptionEntry entries[] = {
    { "days", 0, 0, G_OPTION_ARG_INT, &days, "Spread the runs over the last DAYS days", "DAYS" },
    { "seed", 0, 0, G_OPTION_ARG_INT, &seed, "Random seed", "S" },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("N DIR");
  gint64 started = g_get_monotonic_time ();

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error) || argc != 3 || days < 1 ||
      !g_ascii_string_to_unsigned (argv[1], 10, 1, 100000000, &n, NULL))
    {
      g_printerr ("usage: seed-insights N DIR [--days DAYS] [--seed S]%s%s\n",
                  error != NULL ? ": " : "", error != NULL ? error->message : "");
      return 2;
    }
  if (g_mkdir_with_parents (argv[2], 0700) != 0)
    {
      g_printerr ("seed-insights: cannot create %s\n", argv[2]);
      return 1;
    }

  {
    g_autoptr(GDateTime) now = g_date_time_new_now_local ();
    g_autoptr(GDateTime) today = g_date_time_new_local (g_date_time_get_year (now), g_date_time_get_month (now),
                                                        g_date_time_get_day_of_month (now), 0, 0, 0);
    g_autoptr(GDateTime) first = g_date_time_add_days (today, 1 - days);

    seeder.first_day_unix = g_date_time_to_unix (first);
    seeder.days = (guint) days;
  }
  seeder.rand = g_rand_new_with_seed ((guint32) seed);
  seeder.store = prs_store_new (argv[2], &error);
  if (seeder.store == NULL)
    goto fail;
  /* Seeding speed, not durability: room for the indexes being written,
   * and the statement journals the triggers' statements need in memory
   * (in /var/tmp they were three quarters of the seeding time) */
  sqlite3_exec (seeder.store->db, "PRAGMA cache_size = -262144; PRAGMA temp_store = MEMORY", NULL, NULL, NULL);
  if (!prs_store_begin_immediate (seeder.store, &error))
    goto fail;
  if (!add_conversation (&seeder, &error))
    goto rollback;
  for (guint64 i = 0; i < n; i++)
    if (!seed_run (&seeder, i, n, &error))
      goto rollback;
  if (!prs_store_commit (seeder.store, &error))
    goto fail;

  g_printerr ("seed-insights: %" G_GUINT64_FORMAT " runs, %" G_GUINT64_FORMAT " tool calls over %d days in %.1f s\n",
              n, 2 * n, days, (g_get_monotonic_time () - started) / 1e6);
  g_clear_object (&seeder.store);
  g_rand_free (seeder.rand);
  g_free (seeder.conversation_id);
  return 0;

rollback:
  prs_store_rollback (seeder.store);
fail:
  g_printerr ("seed-insights: %s\n", error->message);
  return 1;
}
