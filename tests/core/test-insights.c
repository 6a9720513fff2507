/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Tests for Insights (prs-insights.c, prs-store-insights.c): the figures
 * of a seeded store with known answers — percentiles by nearest rank,
 * times kept to two digits, rates, failovers, retries, local-day periods
 * across a daylight-saving change — and the migration from the previous
 * schema version. Rows are written with SQL as the app writes them (an
 * insert, then status updates), so the triggers under test do the
 * counting. The process runs in Europe/Berlin time (main). */
#include "config.h"

#include <sqlite3.h>

#include "prs-agent.h"
#include "prs-insights.h"
#include "prs-json.h"
#include "prs-store-insights.h"
#include "prs-test-util.h"

/* The schema version whose migration brought Insights (prs-store-migrations.c) */
#define INSIGHTS_VERSION 8
/* The one that wrote the checks of the tables a model call writes as ORs */
#define CHECKS_VERSION   13

typedef struct
{
  char     *dir;
  PrsStore *store;
  char     *conversation_id;
} Fixture;

static void
fixture_setup (Fixture       *fixture,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  fixture->dir = g_dir_make_tmp ("prs-test-insights-XXXXXX", &error);
  g_assert_no_error (error);
  fixture->store = prs_store_new (fixture->dir, &error);
  g_assert_no_error (error);
  g_assert_true (prs_store_resolve_conversation (fixture->store, "inbox", &fixture->conversation_id, NULL, &error));
  g_assert_no_error (error);
}

static void
fixture_teardown (Fixture       *fixture,
                  gconstpointer  data)
{
  g_clear_object (&fixture->store);
  prs_test_remove_tree (fixture->dir);
  g_free (fixture->dir);
  g_free (fixture->conversation_id);
}

/* ---- seeding, as the app writes ---- */

static void
add_run (Fixture    *fixture,
         const char *id,
         const char *agent_id,
         const char *created_at)
{
  g_autofree char *sql =
    g_strdup_printf ("INSERT INTO runs (id, conversation_id, agent_id, origin, status, created_at, updated_at)"
                     " VALUES ('%s', '%s', '%s', 'chat', 'completed', '%s', '%s')",
                     id, fixture->conversation_id, agent_id, created_at, created_at);

  prs_test_store_exec (fixture->store, sql);
}

static void
add_model_call (Fixture    *fixture,
                const char *run_id,
                const char *agent_id,
                const char *provider,
                const char *model,
                const char *outcome,
                gint64      first_token_ms,
                gint64      total_ms,
                gint64      input_tokens,
                gint64      output_tokens,
                const char *created_at)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *provider_id = g_strdup_printf ("id-%s", provider);
  PrsModelCallInsert call = { run_id, agent_id, provider_id, provider, model, outcome,
                              first_token_ms, total_ms, input_tokens, output_tokens, created_at };

  g_assert_true (prs_store_add_model_calls (fixture->store, &call, 1, &error));
  g_assert_no_error (error);
}

/* A tool call proposed at @created_at */
static void
propose (Fixture    *fixture,
         const char *id,
         const char *run_id,
         const char *tool,
         const char *created_at)
{
  g_autofree char *sql =
    g_strdup_printf ("INSERT INTO tool_calls (id, run_id, message_id, round, position, name, arguments_json,"
                     " status, created_at, updated_at) VALUES ('%s', '%s', 'm-%s', 1, 0, '%s', '{}',"
                     " 'proposed', '%s', '%s')",
                     id, run_id, id, tool, created_at, created_at);

  prs_test_store_exec (fixture->store, sql);
}

/* Its status saved at @at, the way prs_store_save_tool_call does (an
 * upsert that updates) */
static void
set_status (Fixture    *fixture,
            const char *id,
            const char *status,
            const char *at)
{
  g_autofree char *sql =
    g_strdup_printf ("INSERT INTO tool_calls (id, run_id, message_id, round, position, name, arguments_json,"
                     " status, created_at, updated_at) SELECT id, run_id, message_id, round, position, name,"
                     " arguments_json, '%s', created_at, '%s' FROM tool_calls WHERE id = '%s'"
                     " ON CONFLICT (id) DO UPDATE SET status = excluded.status, updated_at = excluded.updated_at",
                     status, at, id);

  prs_test_store_exec (fixture->store, sql);
}

/* A call that ran from @started to @ended (times on 2026-03-20, UTC) */
static void
run_call (Fixture    *fixture,
          const char *id,
          const char *run_id,
          const char *tool,
          const char *started,
          const char *ended,
          const char *outcome)
{
  g_autofree char *at = g_strdup_printf ("2026-03-20T%s", started);
  g_autofree char *end = g_strdup_printf ("2026-03-20T%s", ended);

  propose (fixture, id, run_id, tool, "2026-03-20T09:00:00.000Z");
  set_status (fixture, id, "approved", "2026-03-20T09:00:01.000Z");
  set_status (fixture, id, "running", at);
  set_status (fixture, id, "running", at);   /* saved again while it waits for its callback */
  set_status (fixture, id, outcome, end);
}

static PrsInsights *
read_at (Fixture           *fixture,
         PrsInsightsPeriod  period,
         const char        *now_iso)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GTimeZone) tz = g_time_zone_new_local ();
  g_autoptr(GDateTime) now = g_date_time_new_from_iso8601 (now_iso, tz);
  PrsInsights *insights;

  g_assert_nonnull (now);
  insights = prs_store_read_insights (fixture->store, period, now, &error);
  g_assert_no_error (error);
  g_assert_nonnull (insights);
  return insights;
}

static PrsInsightsModel *
find_model (PrsInsights *insights,
            const char  *provider,
            const char  *model)
{
  for (guint i = 0; i < insights->models->len; i++)
    {
      PrsInsightsModel *row = g_ptr_array_index (insights->models, i);

      if (g_strcmp0 (row->provider_name, provider) == 0 && g_strcmp0 (row->model, model) == 0)
        return row;
    }
  g_error ("no figures for %s / %s", provider, model);
  return NULL;
}

static PrsInsightsTool *
find_tool (PrsInsights *insights,
           const char  *name)
{
  for (guint i = 0; i < insights->tools->len; i++)
    if (g_strcmp0 (((PrsInsightsTool *) g_ptr_array_index (insights->tools, i))->tool, name) == 0)
      return g_ptr_array_index (insights->tools, i);
  g_error ("no figures for tool %s", name);
  return NULL;
}

/* ---- percentiles ---- */

static void
test_percentiles (void)
{
  gint64 ms[100];
  guint64 counts[100];
  PrsInsightsLatency latency;

  for (guint i = 0; i < 100; i++)
    {
      ms[i] = i + 1;
      counts[i] = 1;
    }
  prs_insights_latency_from_buckets (ms, counts, 100, &latency);
  g_assert_cmpint (latency.p50_ms, ==, 50);
  g_assert_cmpint (latency.p95_ms, ==, 95);
  g_assert_cmpuint (latency.timed, ==, 100);

  /* Nearest rank: of 1 2 3 4, the 50th percentile is 2, the 95th 4 */
  prs_insights_latency_from_buckets (ms, counts, 4, &latency);
  g_assert_cmpint (latency.p50_ms, ==, 2);
  g_assert_cmpint (latency.p95_ms, ==, 4);

  /* Counts weigh: 19 times 10 ms and once 900 ms → p95 is 10, not 900 */
  ms[0] = 10;
  counts[0] = 19;
  ms[1] = 900;
  counts[1] = 1;
  prs_insights_latency_from_buckets (ms, counts, 2, &latency);
  g_assert_cmpint (latency.p50_ms, ==, 10);
  g_assert_cmpint (latency.p95_ms, ==, 10);
  counts[0] = 18;
  prs_insights_latency_from_buckets (ms, counts, 2, &latency);
  g_assert_cmpint (latency.p95_ms, ==, 900);

  prs_insights_latency_from_buckets (ms, counts, 0, &latency);
  g_assert_cmpint (latency.p50_ms, ==, PRS_INSIGHTS_UNKNOWN);
  g_assert_cmpint (latency.p95_ms, ==, PRS_INSIGHTS_UNKNOWN);
  g_assert_cmpuint (latency.timed, ==, 0);
}

static void
test_words (void)
{
  struct { gint64 ms; const char *text; } durations[] = {
    { -1, "—" }, { 0, "0 ms" }, { 340, "340 ms" }, { 1200, "1.2 s" }, { 45000, "45 s" },
    { 150000, "2.5 min" }, { 3600000, "60 min" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (durations); i++)
    {
      g_autofree char *text = prs_insights_format_duration (durations[i].ms);

      g_assert_cmpstr (text, ==, durations[i].text);
    }
  {
    g_autofree char *none = prs_insights_format_rate (0, 0);
    g_autofree char *most = prs_insights_format_rate (996, 1000);
    g_autofree char *all = prs_insights_format_rate (7, 7);
    g_autofree char *third = prs_insights_format_rate (1, 3);

    g_assert_cmpstr (none, ==, "—");
    g_assert_cmpstr (most, ==, "99%");   /* never "100%" with a failure */
    g_assert_cmpstr (all, ==, "100%");
    g_assert_cmpstr (third, ==, "33%");
  }
}

/* ---- a seeded store ---- */

static void
seed_models (Fixture *fixture)
{
  const char *at = "2026-03-20T10:00:00.000Z";

  add_run (fixture, "run-1", "mail", at);
  add_run (fixture, "run-2", "mail", at);
  add_run (fixture, "run-3", "mail", at);
  add_run (fixture, "run-4", "research", at);
  /* run-1: two rounds, both answered by Cloud / big */
  add_model_call (fixture, "run-1", "mail", "Cloud", "big", "answered", 200, 1000, 100, 10, at);
  add_model_call (fixture, "run-1", "mail", "Cloud", "big", "answered", 300, 2000, 50, 5, at);
  /* run-2: Cloud failed, Local answered (a failover) */
  add_model_call (fixture, "run-2", "mail", "Cloud", "big", "failed-over", -1, 120, 0, 0, at);
  add_model_call (fixture, "run-2", "mail", "Local", "small", "answered", 80, 900, 40, 4, at);
  /* run-3: Cloud failed and nobody was next */
  add_model_call (fixture, "run-3", "mail", "Cloud", "big", "failed", -1, 30000, 0, 0, at);
  /* run-4: tool calls only, no text streamed: a total time, no first token */
  add_model_call (fixture, "run-4", "research", "Local", "small", "answered", -1, 1234, 7, 3, at);
}

static void
test_models_and_agents (Fixture       *fixture,
                        gconstpointer  data)
{
  g_autoptr(PrsInsights) insights = NULL;
  PrsInsightsModel *cloud, *local;
  PrsInsightsAgent *agent;

  seed_models (fixture);
  insights = read_at (fixture, PRS_INSIGHTS_7_DAYS, "2026-03-22T12:00:00");

  g_assert_cmpuint (insights->models->len, ==, 2);
  cloud = find_model (insights, "Cloud", "big");
  /* Most calls first */
  g_assert_true (g_ptr_array_index (insights->models, 0) == cloud);
  g_assert_cmpuint (cloud->runs, ==, 3);
  g_assert_cmpuint (cloud->calls, ==, 4);
  g_assert_cmpuint (cloud->failures, ==, 2);
  g_assert_cmpuint (cloud->failovers, ==, 1);
  g_assert_cmpuint (cloud->input_tokens, ==, 150);
  g_assert_cmpuint (cloud->output_tokens, ==, 15);
  /* Answered calls only: 200 and 300 ms to the first token, 1.0 and 2.0 s in all */
  g_assert_cmpint (cloud->first_token.p50_ms, ==, 200);
  g_assert_cmpint (cloud->first_token.p95_ms, ==, 300);
  g_assert_cmpint (cloud->total.p50_ms, ==, 1000);
  g_assert_cmpint (cloud->total.p95_ms, ==, 2000);
  g_assert_cmpuint (cloud->total.timed, ==, 2);

  local = find_model (insights, "Local", "small");
  g_assert_cmpuint (local->runs, ==, 2);
  g_assert_cmpuint (local->calls, ==, 2);
  g_assert_cmpuint (local->failures, ==, 0);
  g_assert_cmpint (local->first_token.p50_ms, ==, 80);
  g_assert_cmpint (local->first_token.p95_ms, ==, 80);
  g_assert_cmpuint (local->first_token.timed, ==, 1);
  /* 900 and 1234 → kept as 1200 */
  g_assert_cmpint (local->total.p50_ms, ==, 900);
  g_assert_cmpint (local->total.p95_ms, ==, 1200);

  g_assert_cmpuint (insights->agents->len, ==, 2);
  agent = g_ptr_array_index (insights->agents, 0);
  g_assert_cmpstr (agent->agent_id, ==, "mail");
  g_assert_cmpstr (agent->agent_name, ==, "mail");   /* no such agent: its id */
  g_assert_cmpuint (agent->runs, ==, 3);
  g_assert_cmpuint (agent->input_tokens, ==, 190);
  g_assert_cmpuint (agent->output_tokens, ==, 19);
  agent = g_ptr_array_index (insights->agents, 1);
  g_assert_cmpstr (agent->agent_id, ==, "research");
  g_assert_cmpuint (agent->runs, ==, 1);
  g_assert_cmpuint (agent->input_tokens, ==, 7);
}

/* A provider renamed, an agent that exists: their names now */
static void
test_names (Fixture       *fixture,
            gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsAgent) agent = prs_agent_new ("mail", "Mail Assistant");
  g_autoptr(PrsInsights) insights = NULL;

  seed_models (fixture);
  prs_test_store_exec (fixture->store,
                       "INSERT INTO providers (id, name, kind, model, created_at)"
                       " VALUES ('id-Cloud', 'Cloud (renamed)', 'openai', 'big', '2026-01-01T00:00:00.000Z')");
  g_assert_true (prs_store_save_agent (fixture->store, agent, NULL, &error));
  g_assert_no_error (error);
  insights = read_at (fixture, PRS_INSIGHTS_ALL, "2026-03-22T12:00:00");
  g_assert_cmpuint (find_model (insights, "Cloud (renamed)", "big")->calls, ==, 4);
  g_assert_cmpstr (((PrsInsightsAgent *) g_ptr_array_index (insights->agents, 0))->agent_name, ==, "Mail Assistant");
}

static void
test_tools (Fixture       *fixture,
            gconstpointer  data)
{
  g_autoptr(PrsInsights) insights = NULL;
  PrsInsightsTool *mail, *search;

  add_run (fixture, "run-1", "mail", "2026-03-20T09:00:00.000Z");
  run_call (fixture, "c1", "run-1", "send_mail", "10:00:00.000Z", "10:00:00.500Z", "succeeded");
  run_call (fixture, "c2", "run-1", "send_mail", "10:00:00.000Z", "10:00:01.500Z", "failed");
  propose (fixture, "c3", "run-1", "send_mail", "2026-03-20T09:00:00.000Z");
  set_status (fixture, "c3", "denied", "2026-03-20T09:00:05.000Z");
  propose (fixture, "c4", "run-1", "send_mail", "2026-03-20T09:00:00.000Z");   /* waits for a person */
  /* Retried after a failure: a second execution, its own time (2 s, not
   * counted from the first start) */
  run_call (fixture, "c5", "run-1", "search", "10:00:00.000Z", "10:00:04.000Z", "failed");
  set_status (fixture, "c5", "approved", "2026-03-20T11:00:00.000Z");
  set_status (fixture, "c5", "running", "2026-03-20T11:00:00.000Z");
  set_status (fixture, "c5", "succeeded", "2026-03-20T11:00:02.000Z");
  /* Retried after a failure that came before it ran: no time of its own */
  propose (fixture, "c6", "run-1", "search", "2026-03-20T09:00:00.000Z");
  set_status (fixture, "c6", "approved", "2026-03-20T09:00:01.000Z");
  set_status (fixture, "c6", "failed", "2026-03-20T09:00:01.100Z");

  insights = read_at (fixture, PRS_INSIGHTS_30_DAYS, "2026-03-22T12:00:00");
  g_assert_cmpuint (insights->tools->len, ==, 2);
  mail = find_tool (insights, "send_mail");
  g_assert_true (g_ptr_array_index (insights->tools, 0) == mail);
  g_assert_cmpuint (mail->calls, ==, 4);
  g_assert_cmpuint (mail->decided, ==, 3);
  g_assert_cmpuint (mail->approved, ==, 2);
  g_assert_cmpuint (mail->settled, ==, 2);
  g_assert_cmpuint (mail->succeeded, ==, 1);
  g_assert_cmpint (mail->duration.p50_ms, ==, 500);
  g_assert_cmpint (mail->duration.p95_ms, ==, 1500);

  search = find_tool (insights, "search");
  g_assert_cmpuint (search->calls, ==, 2);
  g_assert_cmpuint (search->decided, ==, 2);
  g_assert_cmpuint (search->approved, ==, 2);
  g_assert_cmpuint (search->settled, ==, 3);
  g_assert_cmpuint (search->succeeded, ==, 1);
  g_assert_cmpuint (search->duration.timed, ==, 2);
  g_assert_cmpint (search->duration.p50_ms, ==, 2000);
  g_assert_cmpint (search->duration.p95_ms, ==, 4000);

  {
    g_autoptr(JsonNode) json = prs_insights_to_json (insights);
    JsonObject *tool = json_array_get_object_element (
      json_object_get_array_member (json_node_get_object (json), "tools"), 0);

    g_assert_cmpfloat_with_epsilon (json_object_get_double_member (tool, "approvalRate"), 0.6667, 1e-9);
    g_assert_cmpfloat_with_epsilon (json_object_get_double_member (tool, "successRate"), 0.5, 1e-9);
    g_assert_cmpint (json_object_get_int_member (tool, "durationP95Ms"), ==, 1500);
  }
}

/* Each time is kept to two significant digits, so p50 and p95 are the
 * nearest-rank percentiles of the real times, rounded to two digits */
static void
test_two_digits (Fixture       *fixture,
                 gconstpointer  data)
{
  /* (real time, kept time) */
  static const struct { gint64 ms, kept; } times[] = {
    { 0, 0 }, { 99, 99 }, { 100, 100 }, { 104, 100 }, { 105, 110 }, { 999, 1000 },
    { 1234, 1200 }, { 1250, 1300 }, { 98765, 99000 }, { 123456, 120000 }, { 7654321, 7700000 },
  };

  add_run (fixture, "run-1", "mail", "2026-03-20T09:00:00.000Z");
  for (guint i = 0; i < G_N_ELEMENTS (times); i++)
    {
      g_autofree char *run = g_strdup_printf ("run-%u", i + 10);
      g_autoptr(PrsInsights) insights = NULL;
      g_autofree char *provider = g_strdup_printf ("P%u", i);

      add_run (fixture, run, "mail", "2026-03-20T09:00:00.000Z");
      add_model_call (fixture, run, "mail", provider, "m", "answered", times[i].ms, times[i].ms, 1, 1,
                      "2026-03-20T09:00:00.000Z");
      insights = read_at (fixture, PRS_INSIGHTS_7_DAYS, "2026-03-22T12:00:00");
      g_assert_cmpint (find_model (insights, provider, "m")->total.p50_ms, ==, times[i].kept);
      g_clear_pointer (&insights, prs_insights_free);
      insights = read_at (fixture, PRS_INSIGHTS_ALL, "2026-03-22T12:00:00");
      g_assert_cmpint (find_model (insights, provider, "m")->first_token.p95_ms, ==, times[i].kept);
    }
}

/* 1..200 ms, once each, in a shuffled order: p50 = 100, p95 = 190 */
static void
test_many_times (Fixture       *fixture,
                 gconstpointer  data)
{
  g_autoptr(PrsInsights) week = NULL;
  g_autoptr(PrsInsights) all = NULL;
  PrsModelCallInsert calls[200];
  g_autoptr(GError) error = NULL;

  add_run (fixture, "run-1", "mail", "2026-03-20T09:00:00.000Z");
  for (guint i = 0; i < 200; i++)
    {
      PrsModelCallInsert call = { "run-1", "mail", "id-X", "X", "m", "answered", -1,
                                  (gint64) ((i * 73) % 200) + 1, 0, 0,
                                  i % 2 == 0 ? "2026-03-20T09:00:00.000Z" : "2026-03-21T09:00:00.000Z" };

      calls[i] = call;
    }
  g_assert_true (prs_store_add_model_calls (fixture->store, calls, 200, &error));
  g_assert_no_error (error);
  week = read_at (fixture, PRS_INSIGHTS_7_DAYS, "2026-03-22T12:00:00");
  all = read_at (fixture, PRS_INSIGHTS_ALL, "2026-03-22T12:00:00");
  g_assert_cmpint (find_model (week, "X", "m")->total.p50_ms, ==, 100);
  g_assert_cmpint (find_model (week, "X", "m")->total.p95_ms, ==, 190);
  g_assert_cmpint (find_model (all, "X", "m")->total.p50_ms, ==, 100);
  g_assert_cmpint (find_model (all, "X", "m")->total.p95_ms, ==, 190);
  g_assert_cmpuint (find_model (week, "X", "m")->runs, ==, 1);
  g_assert_cmpuint (find_model (week, "X", "m")->calls, ==, 200);
}

/* ---- local days ---- */

static void
test_local_days (Fixture       *fixture,
                 gconstpointer  data)
{
  /* Berlin: CET (+1) until 2026-03-29 02:00, then CEST (+2) */
  static const char * const times[] = {
    "2026-03-28T22:59:59.999Z",   /* 23:59:59 on the 28th */
    "2026-03-28T23:00:00.000Z",   /* 00:00 on the 29th */
    "2026-03-29T21:59:59.999Z",   /* 23:59:59 on the 29th, summer time */
    "2026-03-29T22:00:00.000Z",   /* 00:00 on the 30th */
    "2026-02-28T12:00:00.000Z",   /* a month before */
  };
  g_autoptr(PrsInsights) today = NULL;
  g_autoptr(PrsInsights) week = NULL;
  g_autoptr(PrsInsights) month = NULL;
  g_autoptr(PrsInsights) all = NULL;
  PrsInsightsDay *day;

  for (guint i = 0; i < G_N_ELEMENTS (times); i++)
    {
      g_autofree char *run = g_strdup_printf ("run-%u", i);

      add_run (fixture, run, "mail", times[i]);
      add_model_call (fixture, run, "mail", "Cloud", "big", "answered", 10, 20, 100, 1, times[i]);
      propose (fixture, run, run, "search", times[i]);
    }

  today = read_at (fixture, PRS_INSIGHTS_TODAY, "2026-03-30T10:00:00");
  g_assert_cmpstr (today->first_day, ==, "2026-03-30");
  g_assert_cmpstr (today->last_day, ==, "2026-03-30");
  g_assert_cmpuint (find_model (today, "Cloud", "big")->calls, ==, 1);
  g_assert_cmpuint (((PrsInsightsAgent *) g_ptr_array_index (today->agents, 0))->runs, ==, 1);
  g_assert_cmpuint (find_tool (today, "search")->calls, ==, 1);
  g_assert_cmpuint (today->days->len, ==, 1);

  /* Seven calendar days back over the change: from the 24th */
  week = read_at (fixture, PRS_INSIGHTS_7_DAYS, "2026-03-30T10:00:00");
  g_assert_cmpstr (week->first_day, ==, "2026-03-24");
  g_assert_cmpuint (find_model (week, "Cloud", "big")->calls, ==, 4);
  g_assert_cmpuint (find_model (week, "Cloud", "big")->runs, ==, 4);
  g_assert_cmpuint (week->days->len, ==, 7);
  day = &g_array_index (week->days, PrsInsightsDay, 4);
  g_assert_cmpstr (day->day, ==, "2026-03-28");
  g_assert_cmpuint (day->model_calls, ==, 1);
  g_assert_cmpuint (day->tool_calls, ==, 1);
  g_assert_cmpuint (day->input_tokens, ==, 100);
  day = &g_array_index (week->days, PrsInsightsDay, 5);
  g_assert_cmpstr (day->day, ==, "2026-03-29");
  g_assert_cmpuint (day->model_calls, ==, 2);
  g_assert_cmpuint (day->tool_calls, ==, 2);
  g_assert_cmpuint (day->output_tokens, ==, 2);
  day = &g_array_index (week->days, PrsInsightsDay, 0);
  g_assert_cmpstr (day->day, ==, "2026-03-24");
  g_assert_cmpuint (day->model_calls, ==, 0);

  month = read_at (fixture, PRS_INSIGHTS_30_DAYS, "2026-03-30T10:00:00");
  g_assert_cmpstr (month->first_day, ==, "2026-03-01");
  g_assert_cmpuint (month->days->len, ==, 30);
  g_assert_cmpuint (find_tool (month, "search")->calls, ==, 4);

  /* All: from the first day with figures */
  all = read_at (fixture, PRS_INSIGHTS_ALL, "2026-03-30T10:00:00");
  g_assert_cmpstr (all->first_day, ==, "2026-02-28");
  g_assert_cmpuint (all->days->len, ==, 31);
  g_assert_cmpuint (find_model (all, "Cloud", "big")->calls, ==, 5);
}

static void
test_empty (Fixture       *fixture,
            gconstpointer  data)
{
  g_autoptr(PrsInsights) all = read_at (fixture, PRS_INSIGHTS_ALL, "2026-03-30T10:00:00");
  g_autoptr(PrsInsights) week = read_at (fixture, PRS_INSIGHTS_7_DAYS, "2026-03-30T10:00:00");
  g_autoptr(JsonNode) json = prs_insights_to_json (all);
  g_autofree char *text = prs_json_to_string (json, FALSE);

  g_assert_cmpuint (all->models->len + all->agents->len + all->tools->len, ==, 0);
  g_assert_null (all->first_day);
  g_assert_cmpuint (all->days->len, ==, 0);
  g_assert_cmpstr (text, ==,
                   "{\"period\":\"all\",\"from\":null,\"to\":\"2026-03-30\",\"models\":[],\"agents\":[],"
                   "\"tools\":[],\"days\":[]}");
  g_assert_cmpuint (week->days->len, ==, 7);
}

/* ---- the migration ---- */

static void
test_migration (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("prs-test-insights-XXXXXX", &error);
  g_autofree char *path = g_build_filename (dir, "prosponsive.db", NULL);
  g_autofree char *conversation = NULL;
  g_autofree char *sql = NULL;
  g_autoptr(PrsStore) store = NULL;
  g_autoptr(PrsInsights) insights = NULL;
  PrsInsightsModel *model;
  PrsInsightsTool *tool;

  /* The previous version, with a run of two model answers and three tool calls */
  store = prs_store_new_at_version (path, INSIGHTS_VERSION - 1, &error);
  g_assert_no_error (error);
  /* Through SQL: the store's own writes follow the latest schema */
  conversation = prs_test_sql_conversation (path, "inbox");
  sql = g_strdup_printf (
    "INSERT INTO runs (id, conversation_id, agent_id, origin, status, transcript_json, created_at, updated_at)"
    " VALUES ('r1', '%s', 'mail', 'chat', 'completed', '[{\"role\":\"user\",\"text\":\"Hi\"},"
    "{\"role\":\"assistant\",\"providerId\":\"p1\",\"providerName\":\"Cloud\",\"model\":\"big\","
    "\"inputTokens\":100,\"outputTokens\":10},{\"role\":\"tool\"},"
    "{\"role\":\"assistant\",\"providerId\":\"p1\",\"providerName\":\"Cloud\",\"model\":\"big\","
    "\"inputTokens\":120,\"outputTokens\":20}]', '2026-03-20T09:00:00.000Z', '2026-03-20T09:00:00.000Z'),"
    " ('r2', '%s', 'mail', 'chat', 'failed', 'not json', '2026-03-20T09:00:00.000Z', '2026-03-20T09:00:00.000Z');"
    "INSERT INTO tool_calls (id, run_id, message_id, round, position, name, arguments_json, status,"
    " created_at, updated_at) VALUES"
    " ('t1', 'r1', 'm1', 1, 0, 'search', '{}', 'succeeded', '2026-03-20T09:00:00.000Z', '2026-03-20T09:00:01.000Z'),"
    " ('t2', 'r1', 'm2', 1, 1, 'search', '{}', 'denied', '2026-03-20T09:00:00.000Z', '2026-03-20T09:00:01.000Z'),"
    " ('t3', 'r1', 'm3', 1, 2, 'search', '{}', 'proposed', '2026-03-20T09:00:00.000Z', '2026-03-20T09:00:01.000Z');",
    conversation, conversation);
  prs_test_store_exec (store, sql);
  g_clear_object (&store);

  store = prs_store_new_for_path (path, &error);
  g_assert_no_error (error);
  g_assert_cmpint (prs_store_get_schema_version (store), ==, prs_store_get_latest_version ());
  {
    g_autoptr(GTimeZone) tz = g_time_zone_new_local ();
    g_autoptr(GDateTime) now = g_date_time_new (tz, 2026, 3, 22, 12, 0, 0);

    insights = prs_store_read_insights (store, PRS_INSIGHTS_ALL, now, &error);
  }
  g_assert_no_error (error);

  g_assert_cmpuint (insights->models->len, ==, 1);
  model = g_ptr_array_index (insights->models, 0);
  g_assert_cmpstr (model->provider_name, ==, "Cloud");
  g_assert_cmpuint (model->runs, ==, 1);
  g_assert_cmpuint (model->calls, ==, 2);
  g_assert_cmpuint (model->input_tokens, ==, 220);
  g_assert_cmpuint (model->output_tokens, ==, 30);
  /* Times were not kept before: unknown, not zero */
  g_assert_cmpint (model->total.p50_ms, ==, PRS_INSIGHTS_UNKNOWN);
  g_assert_cmpint (model->first_token.p95_ms, ==, PRS_INSIGHTS_UNKNOWN);
  g_assert_cmpuint (((PrsInsightsAgent *) g_ptr_array_index (insights->agents, 0))->runs, ==, 2);
  g_assert_cmpuint (((PrsInsightsAgent *) g_ptr_array_index (insights->agents, 0))->input_tokens, ==, 220);

  tool = g_ptr_array_index (insights->tools, 0);
  g_assert_cmpuint (tool->calls, ==, 3);
  g_assert_cmpuint (tool->decided, ==, 2);
  g_assert_cmpuint (tool->approved, ==, 1);
  g_assert_cmpuint (tool->settled, ==, 1);
  g_assert_cmpuint (tool->succeeded, ==, 1);
  g_assert_cmpint (tool->duration.p50_ms, ==, PRS_INSIGHTS_UNKNOWN);

  /* And what happens from now on is counted on top */
  prs_test_store_exec (store,
                       "UPDATE tool_calls SET status = 'approved', updated_at = '2026-03-21T10:00:00.000Z' WHERE id = 't3';"
                       "UPDATE tool_calls SET status = 'running', updated_at = '2026-03-21T10:00:00.000Z' WHERE id = 't3';"
                       "UPDATE tool_calls SET status = 'succeeded', updated_at = '2026-03-21T10:00:00.250Z' WHERE id = 't3';");
  g_clear_pointer (&insights, prs_insights_free);
  insights = prs_store_read_insights (store, PRS_INSIGHTS_ALL, NULL, &error);
  g_assert_no_error (error);
  tool = g_ptr_array_index (insights->tools, 0);
  g_assert_cmpuint (tool->decided, ==, 3);
  g_assert_cmpuint (tool->succeeded, ==, 2);
  g_assert_cmpint (tool->duration.p50_ms, ==, 250);

  g_clear_object (&store);
  prs_test_remove_tree (dir);
}

/* How many temporary tables the statement @sql fills each time it runs
 * (SQLite's OpenEphemeral), on a connection of its own */
static guint
temporary_tables (const char *path,
                  const char *sql)
{
  g_autofree char *explain = g_strconcat ("EXPLAIN ", sql, NULL);
  sqlite3 *db = NULL;
  sqlite3_stmt *stmt = NULL;
  guint n = 0;

  /* Read-write: SQLite plans no checks for a connection that cannot write */
  g_assert_cmpint (sqlite3_open_v2 (path, &db, SQLITE_OPEN_READWRITE, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_prepare_v2 (db, explain, -1, &stmt, NULL), ==, SQLITE_OK);
  while (sqlite3_step (stmt) == SQLITE_ROW)
    if (g_strcmp0 ((const char *) sqlite3_column_text (stmt, 1), "OpenEphemeral") == 0)
      n++;
  sqlite3_finalize (stmt);
  sqlite3_close (db);
  return n;
}

/* What a model call's path inserts, as the store writes it */
#define MODEL_CALL_INSERT \
  "INSERT INTO model_calls (run_id, agent_id, provider_id, provider_name, model, outcome," \
  " first_token_ms, total_ms, input_tokens, output_tokens, created_at)" \
  " VALUES ('r1', 'mail', 'id-Cloud', 'Cloud', 'big', 'answered', 5, 7, 1, 1, '2026-03-21T10:00:00.000Z')"
#define RUN_INSERT \
  "INSERT INTO runs (id, conversation_id, agent_id, origin, status, created_at, updated_at)" \
  " VALUES ('r9', '%s', 'mail', 'agent-inference', 'completed', '2026-03-21T10:00:00.000Z'," \
  " '2026-03-21T10:00:00.000Z')"

/* Every figure Insights shows of @store, and every row it counts from */
static char *
figures (PrsStore   *store,
         const char *path)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsInsights) insights = prs_store_read_insights (store, PRS_INSIGHTS_ALL, NULL, &error);
  PrsInsightsModel *model;
  PrsInsightsTool *tool;
  g_autofree char *rows = prs_test_sql_query (path,
    "SELECT (SELECT group_concat (id || run_id || outcome || ifnull (total_ms, '-'), ',') FROM model_calls)"
    " || (SELECT group_concat (kind || subject || ms || n, ',') FROM insight_latency_all)"
    " || (SELECT group_concat (day || kind || subject || ms || n, ',') FROM insight_latency_days)"
    " || (SELECT group_concat (id || origin || status, ',') FROM runs)");

  g_assert_no_error (error);
  g_assert_cmpuint (insights->models->len, ==, 1);
  g_assert_cmpuint (insights->tools->len, ==, 1);
  model = g_ptr_array_index (insights->models, 0);
  tool = g_ptr_array_index (insights->tools, 0);
  return g_strdup_printf ("runs %" G_GUINT64_FORMAT " calls %" G_GUINT64_FORMAT " failovers %" G_GUINT64_FORMAT
                          " first %" G_GINT64_FORMAT " total %" G_GINT64_FORMAT " tool %" G_GUINT64_FORMAT
                          "/%" G_GUINT64_FORMAT " %" G_GINT64_FORMAT " agent runs %" G_GUINT64_FORMAT " | %s",
                          model->runs, model->calls, model->failovers, model->first_token.p50_ms,
                          model->total.p50_ms, tool->calls, tool->succeeded, tool->duration.p50_ms,
                          ((PrsInsightsAgent *) g_ptr_array_index (insights->agents, 0))->runs, rows);
}

static void
test_migration_checks (Fixture       *fixture,
                       gconstpointer  user_data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_build_filename (fixture->dir, "checks.db", NULL);
  g_autofree char *conversation = NULL;
  g_autofree char *sql = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  g_autofree char *counted = NULL;
  g_autofree char *run_insert = NULL;
  g_autoptr(PrsStore) store = NULL;

  /* The previous version, written through its own triggers: a run, a
   * failover and the answer after it, a tool call that ran 250 ms */
  store = prs_store_new_at_version (path, CHECKS_VERSION - 1, &error);
  g_assert_no_error (error);
  conversation = prs_test_sql_conversation (path, "inbox");
  run_insert = g_strdup_printf (RUN_INSERT, conversation);
  sql = g_strdup_printf (
    "INSERT INTO runs (id, conversation_id, agent_id, origin, status, created_at, updated_at)"
    " VALUES ('r1', '%s', 'mail', 'agent-inference', 'completed', '2026-03-20T09:00:00.000Z',"
    " '2026-03-20T09:00:00.000Z');"
    "INSERT INTO model_calls (run_id, agent_id, provider_id, provider_name, model, outcome,"
    " first_token_ms, total_ms, input_tokens, output_tokens, created_at) VALUES"
    " ('r1', 'mail', 'id-Cloud', 'Cloud', 'big', 'failed-over', NULL, 40, 0, 0, '2026-03-20T09:00:00.000Z'),"
    " ('r1', 'mail', 'id-Cloud', 'Cloud', 'big', 'answered', 120, 1234, 100, 10, '2026-03-20T09:00:01.000Z');"
    "INSERT INTO tool_calls (id, run_id, message_id, round, position, name, arguments_json, status,"
    " created_at, updated_at) VALUES ('t1', 'r1', 'm1', 1, 0, 'search', '{}', 'proposed',"
    " '2026-03-20T09:00:00.000Z', '2026-03-20T09:00:00.000Z');"
    "UPDATE tool_calls SET status = 'running', updated_at = '2026-03-20T09:00:02.000Z' WHERE id = 't1';"
    "UPDATE tool_calls SET status = 'succeeded', updated_at = '2026-03-20T09:00:02.250Z' WHERE id = 't1';",
    conversation);
  prs_test_store_exec (store, sql);
  before = figures (store, path);
  /* What made every model call and run cost temporary tables */
  g_assert_cmpuint (temporary_tables (path, MODEL_CALL_INSERT), >, 0);
  g_assert_cmpuint (temporary_tables (path, run_insert), >, 0);
  g_clear_object (&store);

  store = prs_store_new_for_path (path, &error);
  g_assert_no_error (error);
  g_assert_cmpint (prs_store_get_schema_version (store), ==, prs_store_get_latest_version ());
  after = figures (store, path);
  g_assert_cmpstr (after, ==, before);
  g_assert_cmpuint (temporary_tables (path, MODEL_CALL_INSERT), ==, 0);
  g_assert_cmpuint (temporary_tables (path, run_insert), ==, 0);

  /* The checks still refuse what they refused */
  counted = prs_test_sql_query (path, "SELECT count (*) FROM sqlite_master WHERE sql LIKE '% IN (%'"
                                      " AND name IN ('runs', 'model_calls', 'insight_latency_days',"
                                      " 'insight_latency_all')");
  g_assert_cmpstr (counted, ==, "0");
  g_clear_pointer (&counted, g_free);
  {
    sqlite3 *db = NULL;

    g_assert_cmpint (sqlite3_open_v2 (path, &db, SQLITE_OPEN_READWRITE, NULL), ==, SQLITE_OK);
    g_assert_cmpint (sqlite3_exec (db, "UPDATE model_calls SET outcome = 'maybe'", NULL, NULL, NULL), ==,
                     SQLITE_CONSTRAINT);
    g_assert_cmpint (sqlite3_exec (db, "UPDATE runs SET origin = 'robot'", NULL, NULL, NULL), ==, SQLITE_CONSTRAINT);
    g_assert_cmpint (sqlite3_exec (db, "UPDATE insight_latency_all SET kind = 'slow'", NULL, NULL, NULL), ==,
                     SQLITE_CONSTRAINT);
    g_assert_cmpint (sqlite3_exec (db, "UPDATE insight_latency_days SET kind = 'slow'", NULL, NULL, NULL), ==,
                     SQLITE_CONSTRAINT);
    sqlite3_close (db);
  }

  /* And the triggers made again count on top: a run, a model call */
  prs_test_store_exec (store, run_insert);
  prs_test_store_exec (store, MODEL_CALL_INSERT);
  g_free (after);
  after = figures (store, path);
  g_assert_true (g_str_has_prefix (after, "runs 1 calls 3 failovers 1"));
  counted = prs_test_sql_query (path, "SELECT sum (runs) FROM insight_agent_days WHERE agent_id = 'mail'");
  g_assert_cmpstr (counted, ==, "2");
}

/* ---- in a worker thread ---- */

static void
on_read (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  PrsInsights **out = user_data;
  g_autoptr(GError) error = NULL;

  *out = prs_store_read_insights_finish (result, &error);
  g_assert_no_error (error);
}

static void
test_async (Fixture       *fixture,
            gconstpointer  data)
{
  PrsInsights *insights = NULL;

  seed_models (fixture);
  prs_store_read_insights_async (fixture->dir, PRS_INSIGHTS_ALL, NULL, on_read, &insights);
  while (insights == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpuint (insights->models->len, ==, 2);
  prs_insights_free (insights);
}

int
main (int    argc,
      char **argv)
{
  /* Before anything reads the time zone: local days are Berlin's */
  g_setenv ("TZ", "Europe/Berlin", TRUE);
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add ("/prs/insights/" path, Fixture, NULL, fixture_setup, func, fixture_teardown)

  g_test_add_func ("/prs/insights/percentiles", test_percentiles);
  g_test_add_func ("/prs/insights/words", test_words);
  ADD ("models-and-agents", test_models_and_agents);
  ADD ("names", test_names);
  ADD ("tools", test_tools);
  ADD ("two-digits", test_two_digits);
  ADD ("many-times", test_many_times);
  ADD ("local-days", test_local_days);
  ADD ("empty", test_empty);
  ADD ("async", test_async);
  g_test_add_func ("/prs/insights/migration", test_migration);
  ADD ("migration-checks", test_migration_checks);

#undef ADD

  return g_test_run ();
}
