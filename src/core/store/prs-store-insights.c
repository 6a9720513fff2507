/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-store-insights.c: the store's side of Insights (docs/insights.md).
 *
 * A period's figures must come back in well under a frame's worth of
 * waiting even over a million runs, and no index makes a GROUP BY over a
 * million rows that fast. So the schema (prs_store_insights_schema, one
 * migration) keeps daily totals per provider and model, agent and tool,
 * and each time in two-significant-digit buckets per day and overall,
 * and triggers update them in the same statement as the row they count:
 * a run, a model call, a tool call's insert and status changes. A crash
 * can never leave a count without its row or a row without its count,
 * and no write path of the app has to remember them. A period then reads
 * at most its days' totals (a few thousand rows) and its buckets. */
#include "config.h"

#include <string.h>
#include <glib/gi18n-lib.h>

#include "prs-store-insights.h"
#include "prs-store-internal.h"

/* A period's chart covers at most this many days (figures: everything) */
#define MAX_CHART_DAYS 3660

/* ---- the schema --------------------------------------------------------- */

/* The local day of a row's UTC time, as the process's time zone says */
#define LOCAL_DAY(column) "date (" column ", 'localtime')"

/* A time kept to two significant digits (exact below 100 ms), rounded
 * half up. Rounding never reorders times, so a percentile of the kept
 * times is the real percentile, kept to two digits. */
#define KEEP_2_DIGITS \
  "CASE WHEN ms < 100 THEN ms" \
  " WHEN ms < 1000 THEN (ms + 5) / 10 * 10" \
  " WHEN ms < 10000 THEN (ms + 50) / 100 * 100" \
  " WHEN ms < 100000 THEN (ms + 500) / 1000 * 1000" \
  " WHEN ms < 1000000 THEN (ms + 5000) / 10000 * 10000" \
  " WHEN ms < 10000000 THEN (ms + 50000) / 100000 * 100000" \
  " WHEN ms < 100000000 THEN (ms + 500000) / 1000000 * 1000000" \
  " WHEN ms < 1000000000 THEN (ms + 5000000) / 10000000 * 10000000" \
  " ELSE (ms + 50000000) / 100000000 * 100000000 END"

/* One time into its bucket of its day and its overall bucket; nothing
 * when @ms_expr is NULL or negative (a clock set back) or @cond fails */
#define RECORD_TIME(day_expr, kind, subject, model, ms_expr, cond) \
  "INSERT INTO insight_latency_days (day, kind, subject, model, ms, n)" \
  " SELECT " day_expr ", '" kind "', " subject ", " model ", " KEEP_2_DIGITS ", 1" \
  " FROM (SELECT " ms_expr " AS ms) WHERE ms >= 0 AND " cond \
  " ON CONFLICT (day, kind, subject, model, ms) DO UPDATE SET n = n + 1;" \
  "INSERT INTO insight_latency_all (kind, subject, model, ms, n)" \
  " SELECT '" kind "', " subject ", " model ", " KEEP_2_DIGITS ", 1" \
  " FROM (SELECT " ms_expr " AS ms) WHERE ms >= 0 AND " cond \
  " ON CONFLICT (kind, subject, model, ms) DO UPDATE SET n = n + 1;"

/* A tool call's time from running to its result, in milliseconds */
#define TOOL_CALL_MS \
  "CAST (round ((julianday (new.updated_at) - julianday (new.started_at)) * 86400000.0) AS INTEGER)"

#define SETTLED "('succeeded', 'failed')"

/* The tables a model call's row and its times go to, named @name, with
 * @check (a CHECK of the outcome or the kind): made by the step that
 * brought Insights, and again by the one that wrote those checks as ORs */
#define MODEL_CALLS_TABLE(name, check) \
  "CREATE TABLE " name " (" \
  "  id             INTEGER PRIMARY KEY," \
  "  run_id         TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE," \
  "  agent_id       TEXT NOT NULL," \
  "  provider_id    TEXT NOT NULL," \
  "  provider_name  TEXT NOT NULL," \
  "  model          TEXT NOT NULL," \
  "  outcome        TEXT NOT NULL " check "," \
  "  first_token_ms INTEGER," \
  "  total_ms       INTEGER," \
  "  input_tokens   INTEGER NOT NULL DEFAULT 0," \
  "  output_tokens  INTEGER NOT NULL DEFAULT 0," \
  "  created_at     TEXT NOT NULL" \
  ");"
#define LATENCY_DAYS_TABLE(name, check) \
  "CREATE TABLE " name " (" \
  "  day     TEXT NOT NULL," \
  "  kind    TEXT NOT NULL " check "," \
  "  subject TEXT NOT NULL,"   /* a provider's id, or a tool */ \
  "  model   TEXT NOT NULL,"   /* '' for a tool */ \
  "  ms      INTEGER NOT NULL," \
  "  n       INTEGER NOT NULL," \
  "  PRIMARY KEY (day, kind, subject, model, ms)" \
  ") WITHOUT ROWID;"
#define LATENCY_ALL_TABLE(name, check) \
  "CREATE TABLE " name " (" \
  "  kind    TEXT NOT NULL " check "," \
  "  subject TEXT NOT NULL," \
  "  model   TEXT NOT NULL," \
  "  ms      INTEGER NOT NULL," \
  "  n       INTEGER NOT NULL," \
  "  PRIMARY KEY (kind, subject, model, ms)" \
  ") WITHOUT ROWID;"

/* The triggers that count: made by the step that brought Insights, and
 * again by the one that made the tables they are on or write anew */
#define RUN_TRIGGER \
  "CREATE TRIGGER insights_run AFTER INSERT ON runs BEGIN" \
  "  INSERT INTO insight_agent_days (day, agent_id, runs)" \
  "  VALUES (" LOCAL_DAY ("new.created_at") ", new.agent_id, 1)" \
  "  ON CONFLICT (day, agent_id) DO UPDATE SET runs = runs + 1;" \
  "END;"

#define MODEL_CALL_TRIGGER \
  "CREATE TRIGGER insights_model_call AFTER INSERT ON model_calls BEGIN" \
  "  INSERT INTO insight_model_days (day, provider_id, model, provider_name, runs, calls," \
  "                                  failures, failovers, input_tokens, output_tokens)" \
  "  VALUES (" LOCAL_DAY ("new.created_at") ", new.provider_id, new.model, new.provider_name," \
  "          NOT EXISTS (SELECT 1 FROM model_calls m WHERE m.run_id = new.run_id" \
  "                      AND m.provider_id = new.provider_id AND m.model = new.model AND m.id < new.id)," \
  "          1, new.outcome <> 'answered', new.outcome = 'failed-over'," \
  "          new.input_tokens, new.output_tokens)" \
  "  ON CONFLICT (day, provider_id, model) DO UPDATE SET provider_name = excluded.provider_name," \
  "    runs = runs + excluded.runs, calls = calls + 1, failures = failures + excluded.failures," \
  "    failovers = failovers + excluded.failovers, input_tokens = input_tokens + excluded.input_tokens," \
  "    output_tokens = output_tokens + excluded.output_tokens;" \
  "  INSERT INTO insight_agent_days (day, agent_id, input_tokens, output_tokens)" \
  "  VALUES (" LOCAL_DAY ("new.created_at") ", new.agent_id, new.input_tokens, new.output_tokens)" \
  "  ON CONFLICT (day, agent_id) DO UPDATE SET input_tokens = input_tokens + excluded.input_tokens," \
  "    output_tokens = output_tokens + excluded.output_tokens;" \
  RECORD_TIME (LOCAL_DAY ("new.created_at"), "first-token", "new.provider_id", "new.model", \
               "new.first_token_ms", "new.outcome = 'answered'") \
  RECORD_TIME (LOCAL_DAY ("new.created_at"), "total", "new.provider_id", "new.model", \
               "new.total_ms", "new.outcome = 'answered'") \
  "END;"

/* A tool call is proposed (or, imported, already further on) */
#define TOOL_CALL_TRIGGER \
  "CREATE TRIGGER insights_tool_call AFTER INSERT ON tool_calls BEGIN" \
  "  INSERT INTO insight_tool_days (day, tool, calls, decided, approved, settled, succeeded)" \
  "  VALUES (" LOCAL_DAY ("new.created_at") ", new.name, 1, new.status <> 'proposed'," \
  "          new.status NOT IN ('proposed', 'denied'), new.status IN " SETTLED "," \
  "          new.status = 'succeeded')" \
  "  ON CONFLICT (day, tool) DO UPDATE SET calls = calls + 1, decided = decided + excluded.decided," \
  "    approved = approved + excluded.approved, settled = settled + excluded.settled," \
  "    succeeded = succeeded + excluded.succeeded;" \
  RECORD_TIME (LOCAL_DAY ("new.created_at"), "tool", "new.name", "''", TOOL_CALL_MS, \
               "new.status IN " SETTLED) \
  "END;"

/* It ran and ended (its time from running to the result) */
#define TOOL_CALL_SETTLED_TRIGGER \
  "CREATE TRIGGER insights_tool_call_settled AFTER UPDATE OF status ON tool_calls" \
  "  WHEN new.status IN " SETTLED " AND old.status NOT IN " SETTLED " BEGIN" \
  "  INSERT INTO insight_tool_days (day, tool, settled, succeeded)" \
  "  VALUES (" LOCAL_DAY ("new.created_at") ", new.name, 1, new.status = 'succeeded')" \
  "  ON CONFLICT (day, tool) DO UPDATE SET settled = settled + 1," \
  "    succeeded = succeeded + excluded.succeeded;" \
  RECORD_TIME (LOCAL_DAY ("new.created_at"), "tool", "new.name", "''", TOOL_CALL_MS, "1") \
  "END;"

const char prs_store_insights_schema[] =
  /* One row per attempt at a model: the one that answered, and each that
   * failed before it (failover) or instead of it. Times are NULL when not
   * measured: a call without streamed text has no first token. */
  MODEL_CALLS_TABLE ("model_calls", "CHECK (outcome IN ('answered', 'failed', 'failed-over'))")
  "CREATE INDEX model_calls_run ON model_calls (run_id, provider_id, model);"
  /* When the current execution of a tool call began (a trigger sets it) */
  "ALTER TABLE tool_calls ADD COLUMN started_at TEXT;"

  /* The daily totals, by the local day of the row they count (a tool
   * call's figures all count on the day it was proposed) */
  "CREATE TABLE insight_model_days ("
  "  day           TEXT NOT NULL,"
  "  provider_id   TEXT NOT NULL,"
  "  model         TEXT NOT NULL,"
  "  provider_name TEXT NOT NULL,"
  "  runs          INTEGER NOT NULL DEFAULT 0,"
  "  calls         INTEGER NOT NULL DEFAULT 0,"
  "  failures      INTEGER NOT NULL DEFAULT 0,"
  "  failovers     INTEGER NOT NULL DEFAULT 0,"
  "  input_tokens  INTEGER NOT NULL DEFAULT 0,"
  "  output_tokens INTEGER NOT NULL DEFAULT 0,"
  "  PRIMARY KEY (day, provider_id, model)"
  ") WITHOUT ROWID;"
  "CREATE TABLE insight_agent_days ("
  "  day           TEXT NOT NULL,"
  "  agent_id      TEXT NOT NULL,"
  "  runs          INTEGER NOT NULL DEFAULT 0,"
  "  input_tokens  INTEGER NOT NULL DEFAULT 0,"
  "  output_tokens INTEGER NOT NULL DEFAULT 0,"
  "  PRIMARY KEY (day, agent_id)"
  ") WITHOUT ROWID;"
  "CREATE TABLE insight_tool_days ("
  "  day       TEXT NOT NULL,"
  "  tool      TEXT NOT NULL,"
  "  calls     INTEGER NOT NULL DEFAULT 0,"
  "  decided   INTEGER NOT NULL DEFAULT 0,"
  "  approved  INTEGER NOT NULL DEFAULT 0,"
  "  settled   INTEGER NOT NULL DEFAULT 0,"
  "  succeeded INTEGER NOT NULL DEFAULT 0,"
  "  PRIMARY KEY (day, tool)"
  ") WITHOUT ROWID;"
  /* How many times fell in each two-digit bucket: per day for the
   * periods, and overall for "all" (summing every day's buckets would
   * cost as many rows as days) */
  LATENCY_DAYS_TABLE ("insight_latency_days", "CHECK (kind IN ('first-token', 'total', 'tool'))")
  LATENCY_ALL_TABLE ("insight_latency_all", "CHECK (kind IN ('first-token', 'total', 'tool'))")

  RUN_TRIGGER

  MODEL_CALL_TRIGGER

  TOOL_CALL_TRIGGER
  /* A person, a rule or the agent's tool list decided */
  "CREATE TRIGGER insights_tool_call_decided AFTER UPDATE OF status ON tool_calls"
  "  WHEN old.status = 'proposed' AND new.status <> 'proposed' BEGIN"
  "  INSERT INTO insight_tool_days (day, tool, decided, approved)"
  "  VALUES (" LOCAL_DAY ("new.created_at") ", new.name, 1, new.status <> 'denied')"
  "  ON CONFLICT (day, tool) DO UPDATE SET decided = decided + 1,"
  "    approved = approved + excluded.approved;"
  "END;"
  /* An execution begins when the call runs; approved again (a retry),
   * it has not begun yet */
  "CREATE TRIGGER insights_tool_call_started AFTER UPDATE OF status ON tool_calls"
  "  WHEN new.status IN ('approved', 'running') AND old.status IS NOT new.status BEGIN"
  "  UPDATE tool_calls SET started_at = CASE WHEN new.status = 'running' THEN new.updated_at END"
  "   WHERE id = new.id;"
  "END;"
  TOOL_CALL_SETTLED_TRIGGER

  /* What was stored before: runs, their answered model calls out of the
   * transcripts (no times, no failures: they were not kept), and the tool
   * calls' counts (no times) */
  "INSERT INTO insight_agent_days (day, agent_id, runs)"
  "  SELECT " LOCAL_DAY ("created_at") ", agent_id, COUNT (*) FROM runs GROUP BY 1, 2;"
  "INSERT INTO model_calls (run_id, agent_id, provider_id, provider_name, model, outcome,"
  "                         input_tokens, output_tokens, created_at)"
  "  SELECT r.id, r.agent_id, COALESCE (json_extract (e.value, '$.providerId'), ''),"
  "         COALESCE (json_extract (e.value, '$.providerName'), ''),"
  "         COALESCE (json_extract (e.value, '$.model'), ''), 'answered',"
  "         COALESCE (json_extract (e.value, '$.inputTokens'), 0),"
  "         COALESCE (json_extract (e.value, '$.outputTokens'), 0), r.created_at"
  "  FROM runs r, json_each (CASE WHEN json_valid (r.transcript_json) THEN r.transcript_json ELSE '[]' END) e"
  "  WHERE json_type (e.value) = 'object' AND json_extract (e.value, '$.role') = 'assistant'"
  "  ORDER BY r.rowid, e.id;"
  "INSERT INTO insight_tool_days (day, tool, calls, decided, approved, settled, succeeded)"
  "  SELECT " LOCAL_DAY ("created_at") ", name, COUNT (*), SUM (status <> 'proposed'),"
  "         SUM (status NOT IN ('proposed', 'denied')), SUM (status IN " SETTLED "),"
  "         SUM (status = 'succeeded')"
  "  FROM tool_calls GROUP BY 1, 2;"
  /* This step's number in prs-store.c's list */
  "PRAGMA user_version = 8;";

/* The same check, of a column against three or more words, as ORs: with
 * IN, SQLite fills a temporary table with the words each time a statement
 * checks a row — seven times per agent-inference call (a model call's row
 * and its two times, each in two tables; the run's row twice), about 30 k
 * instructions each. Written as ORs, it checks the same without one. */
#define ONE_OF_3(column, a, b, c) \
  "CHECK (" column " = '" a "' OR " column " = '" b "' OR " column " = '" c "')"

/* The tables whose checks a model call's path runs, made again with those
 * checks as ORs (SQLite cannot change a CHECK in place; foreign keys are
 * off while the step runs, so model_calls and tool_calls keep their rows),
 * with their indexes and the triggers on them or writing them, as the
 * steps before made them. Every row stays as it was. */
const char prs_store_insights_checks_schema[] =
  "DROP TRIGGER insights_model_call;"
  "DROP TRIGGER insights_tool_call;"
  "DROP TRIGGER insights_tool_call_settled;"

  LATENCY_DAYS_TABLE ("insight_latency_days_new", ONE_OF_3 ("kind", "first-token", "total", "tool"))
  "INSERT INTO insight_latency_days_new SELECT * FROM insight_latency_days;"
  "DROP TABLE insight_latency_days;"
  "ALTER TABLE insight_latency_days_new RENAME TO insight_latency_days;"

  LATENCY_ALL_TABLE ("insight_latency_all_new", ONE_OF_3 ("kind", "first-token", "total", "tool"))
  "INSERT INTO insight_latency_all_new SELECT * FROM insight_latency_all;"
  "DROP TABLE insight_latency_all;"
  "ALTER TABLE insight_latency_all_new RENAME TO insight_latency_all;"

  PRS_STORE_REMAKE_RUNS ("CHECK (origin = 'chat' OR origin = 'inference'"
                         " OR origin = 'agent-inference' OR origin = 'mcp-client')")

  MODEL_CALLS_TABLE ("model_calls_new", ONE_OF_3 ("outcome", "answered", "failed", "failed-over"))
  "INSERT INTO model_calls_new SELECT * FROM model_calls;"
  "DROP TABLE model_calls;"
  "ALTER TABLE model_calls_new RENAME TO model_calls;"
  "CREATE INDEX model_calls_run ON model_calls (run_id, provider_id, model);"

  RUN_TRIGGER
  MODEL_CALL_TRIGGER
  TOOL_CALL_TRIGGER
  TOOL_CALL_SETTLED_TRIGGER
  /* This step's number in prs-store-migrations.c's list */
  "PRAGMA user_version = 13;";

/* ---- writing ------------------------------------------------------------ */

gboolean
prs_store_add_model_calls (PrsStore                 *self,
                           const PrsModelCallInsert *calls,
                           guint                     n_calls,
                           GError                  **error)
{
  g_autofree char *now = prs_store_now_iso8601 ();

  g_return_val_if_fail (PRS_IS_STORE (self), FALSE);
  g_return_val_if_fail (calls != NULL || n_calls == 0, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (n_calls == 0)
    return TRUE;
  if (!prs_store_begin_immediate (self, error))
    return FALSE;

  for (guint i = 0; i < n_calls; i++)
    {
      const PrsModelCallInsert *call = &calls[i];
      g_autoptr(PrsStmt) stmt =
        prs_store_prepare_cached (self,
                                  "INSERT INTO model_calls (run_id, agent_id, provider_id, provider_name,"
                                  " model, outcome, first_token_ms, total_ms, input_tokens, output_tokens,"
                                  " created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
                                  error);

      if (stmt == NULL)
        goto fail;
      prs_store_bind_text (stmt, 1, call->run_id);
      prs_store_bind_text (stmt, 2, call->agent_id);
      prs_store_bind_text (stmt, 3, call->provider_id != NULL ? call->provider_id : "");
      prs_store_bind_text (stmt, 4, call->provider_name != NULL ? call->provider_name : "");
      prs_store_bind_text (stmt, 5, call->model != NULL ? call->model : "");
      prs_store_bind_text (stmt, 6, call->outcome);
      if (call->first_token_ms >= 0)
        sqlite3_bind_int64 (stmt, 7, call->first_token_ms);
      if (call->total_ms >= 0)
        sqlite3_bind_int64 (stmt, 8, call->total_ms);
      sqlite3_bind_int64 (stmt, 9, MAX (call->input_tokens, 0));
      sqlite3_bind_int64 (stmt, 10, MAX (call->output_tokens, 0));
      prs_store_bind_text (stmt, 11, call->created_at != NULL ? call->created_at : now);
      if (!prs_store_step_done (self, stmt, N_("Could not record a model call"), error))
        goto fail;
    }
  return prs_store_commit (self, error);

fail:
  prs_store_rollback (self);
  return FALSE;
}

/* ---- reading ------------------------------------------------------------ */

static char *
model_key (const char *provider_id,
           const char *model)
{
  return g_strconcat (provider_id, "\n", model, NULL);
}

static guint64
column_count (sqlite3_stmt *stmt,
              int           column)
{
  return (guint64) MAX (sqlite3_column_int64 (stmt, column), 0);
}

static gpointer
read_model (sqlite3_stmt  *stmt,
            GError       **error)
{
  PrsInsightsModel *model = g_new0 (PrsInsightsModel, 1);

  model->provider_id = g_strdup (prs_store_column_text (stmt, 0));
  model->model = g_strdup (prs_store_column_text (stmt, 1));
  model->provider_name = g_strdup (prs_store_column_text (stmt, 3));
  model->runs = column_count (stmt, 4);
  model->calls = column_count (stmt, 5);
  model->failures = column_count (stmt, 6);
  model->failovers = column_count (stmt, 7);
  model->input_tokens = column_count (stmt, 8);
  model->output_tokens = column_count (stmt, 9);
  model->first_token.p50_ms = model->first_token.p95_ms = PRS_INSIGHTS_UNKNOWN;
  model->total.p50_ms = model->total.p95_ms = PRS_INSIGHTS_UNKNOWN;
  return model;
}

static gpointer
read_agent (sqlite3_stmt  *stmt,
            GError       **error)
{
  PrsInsightsAgent *agent = g_new0 (PrsInsightsAgent, 1);

  agent->agent_id = g_strdup (prs_store_column_text (stmt, 0));
  agent->agent_name = g_strdup (prs_store_column_text (stmt, 1));
  agent->runs = column_count (stmt, 2);
  agent->input_tokens = column_count (stmt, 3);
  agent->output_tokens = column_count (stmt, 4);
  return agent;
}

static gpointer
read_tool (sqlite3_stmt  *stmt,
           GError       **error)
{
  PrsInsightsTool *tool = g_new0 (PrsInsightsTool, 1);

  tool->tool = g_strdup (prs_store_column_text (stmt, 0));
  tool->calls = column_count (stmt, 1);
  tool->decided = column_count (stmt, 2);
  tool->approved = column_count (stmt, 3);
  tool->settled = column_count (stmt, 4);
  tool->succeeded = column_count (stmt, 5);
  tool->duration.p50_ms = tool->duration.p95_ms = PRS_INSIGHTS_UNKNOWN;
  return tool;
}

/* The rows of @sql (a string literal; ?1 the period's first day) through
 * @read, added to @into (whose items @free_func frees) */
static gboolean
read_rows (PrsStore         *self,
           const char       *sql,
           const char       *first_day,
           const char       *what,
           PrsStoreReadRow   read,
           GDestroyNotify    free_func,
           GPtrArray        *into,
           GError          **error)
{
  g_autoptr(PrsStmt) stmt = prs_store_prepare_cached (self, sql, error);
  GPtrArray *rows;

  if (stmt == NULL)
    return FALSE;
  prs_store_bind_text (stmt, 1, first_day);
  rows = prs_store_collect_rows (self, stmt, what, read, free_func, error);
  if (rows == NULL)
    return FALSE;
  g_ptr_array_extend_and_steal (into, rows);
  return TRUE;
}

static gboolean
read_counts (PrsStore     *self,
             const char   *first_day,
             PrsInsights  *insights,
             GHashTable   *models,
             GHashTable   *tools,
             GError      **error)
{
  /* A provider's name: its name now, else the last it had in the period
   * (SQLite takes a bare column from the row of MAX) */
  if (!read_rows (self,
                  "SELECT d.provider_id, d.model, MAX (d.day), COALESCE (p.name, d.provider_name),"
                  " SUM (d.runs), SUM (d.calls), SUM (d.failures), SUM (d.failovers),"
                  " SUM (d.input_tokens), SUM (d.output_tokens)"
                  " FROM insight_model_days d LEFT JOIN providers p ON p.id = d.provider_id"
                  " WHERE d.day >= ?1 GROUP BY d.provider_id, d.model",
                  first_day, N_("Could not read the figures per model"), read_model,
                  prs_insights_model_free, insights->models, error) ||
      !read_rows (self,
                  "SELECT d.agent_id, COALESCE (a.name, d.agent_id), SUM (d.runs),"
                  " SUM (d.input_tokens), SUM (d.output_tokens)"
                  " FROM insight_agent_days d LEFT JOIN agents a ON a.id = d.agent_id"
                  " WHERE d.day >= ?1 GROUP BY d.agent_id",
                  first_day, N_("Could not read the figures per agent"), read_agent,
                  prs_insights_agent_free, insights->agents, error) ||
      !read_rows (self,
                  "SELECT tool, SUM (calls), SUM (decided), SUM (approved), SUM (settled),"
                  " SUM (succeeded) FROM insight_tool_days WHERE day >= ?1 GROUP BY tool",
                  first_day, N_("Could not read the figures per tool"), read_tool,
                  prs_insights_tool_free, insights->tools, error))
    return FALSE;

  for (guint i = 0; i < insights->models->len; i++)
    {
      PrsInsightsModel *model = g_ptr_array_index (insights->models, i);

      g_hash_table_insert (models, model_key (model->provider_id, model->model), model);
    }
  for (guint i = 0; i < insights->tools->len; i++)
    {
      PrsInsightsTool *tool = g_ptr_array_index (insights->tools, i);

      g_hash_table_insert (tools, model_key ("tool", tool->tool), tool);
    }
  return TRUE;
}

/* ---- percentiles ---- */

/* A kept time (two significant digits) as an index: 0–99 as they are,
 * then 90 two-digit mantissas (10–99) per power of ten */
#define N_BUCKETS (100 + 90 * 10)

static guint
bucket_of (gint64 ms)
{
  guint exponent = 0;

  if (ms < 100)
    return (guint) MAX (ms, 0);
  while (ms >= 100)
    {
      ms /= 10;
      exponent++;
    }
  return MIN (100 + (exponent - 1) * 90 + (guint) (ms - 10), N_BUCKETS - 1);
}

static gint64
time_of (guint bucket)
{
  gint64 ms;

  if (bucket < 100)
    return bucket;
  ms = (bucket - 100) % 90 + 10;
  for (guint exponent = (bucket - 100) / 90 + 1; exponent > 0; exponent--)
    ms *= 10;
  return ms;
}

/* The counts of one distribution: a kind of time of a model or a tool */
typedef struct
{
  char     kind[16];
  char    *subject;
  char    *model;
  guint64  counts[N_BUCKETS];
} Distribution;

static void
distribution_free (gpointer data)
{
  Distribution *distribution = data;

  g_free (distribution->subject);
  g_free (distribution->model);
  g_free (distribution);
}

static void
attach_latency (Distribution *distribution,
                GHashTable   *models,
                GHashTable   *tools)
{
  gint64 ms[N_BUCKETS];
  guint64 counts[N_BUCKETS];
  guint n = 0;
  PrsInsightsLatency latency;
  g_autofree char *key = NULL;

  for (guint i = 0; i < N_BUCKETS; i++)
    if (distribution->counts[i] > 0)
      {
        ms[n] = time_of (i);
        counts[n++] = distribution->counts[i];
      }
  prs_insights_latency_from_buckets (ms, counts, n, &latency);

  if (strcmp (distribution->kind, "tool") == 0)
    {
      PrsInsightsTool *tool;

      key = model_key ("tool", distribution->subject);
      tool = g_hash_table_lookup (tools, key);
      if (tool != NULL)
        tool->duration = latency;
    }
  else
    {
      PrsInsightsModel *model;

      key = model_key (distribution->subject, distribution->model);
      model = g_hash_table_lookup (models, key);
      if (model != NULL && strcmp (distribution->kind, "first-token") == 0)
        model->first_token = latency;
      else if (model != NULL)
        model->total = latency;
    }
}

static Distribution *
find_distribution (GHashTable *distributions,
                   const char *kind,
                   const char *subject,
                   const char *model)
{
  g_autofree char *key = g_strconcat (kind, "\n", subject, "\n", model, NULL);
  Distribution *distribution = g_hash_table_lookup (distributions, key);

  if (distribution == NULL)
    {
      distribution = g_new0 (Distribution, 1);
      g_strlcpy (distribution->kind, kind, sizeof distribution->kind);
      distribution->subject = g_strdup (subject);
      distribution->model = g_strdup (model);
      g_hash_table_insert (distributions, g_steal_pointer (&key), distribution);
    }
  return distribution;
}

/* The period's buckets, counted into one array per distribution: a scan
 * of its days' rows with no sort (a GROUP BY over 30 days' buckets sorted
 * ~75,000 rows, most of the time a period took). Rows come in key order
 * within each day, so the distribution changes seldom from row to row. */
static gboolean
read_latencies (PrsStore     *self,
                gboolean      all_time,
                const char   *first_day,
                GHashTable   *models,
                GHashTable   *tools,
                GError      **error)
{
  g_autoptr(PrsStmt) stmt = NULL;
  g_autoptr(GHashTable) distributions = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, distribution_free);
  Distribution *current = NULL;
  GHashTableIter iter;
  gpointer value;
  int rc;

  if (all_time)
    stmt = prs_store_prepare_cached (self, "SELECT kind, subject, model, ms, n FROM insight_latency_all", error);
  else
    stmt = prs_store_prepare_cached (self,
                                     "SELECT kind, subject, model, ms, n FROM insight_latency_days WHERE day >= ?1",
                                     error);
  if (stmt == NULL)
    return FALSE;
  if (!all_time)
    prs_store_bind_text (stmt, 1, first_day);
  while ((rc = prs_store_step_row (self, stmt, N_("Could not read the times"), error)) == 1)
    {
      const char *kind = prs_store_column_text (stmt, 0);
      const char *subject = prs_store_column_text (stmt, 1);
      const char *model = prs_store_column_text (stmt, 2);

      if (kind == NULL || subject == NULL || model == NULL)
        continue;
      if (current == NULL || strcmp (kind, current->kind) != 0 || strcmp (subject, current->subject) != 0 ||
          strcmp (model, current->model) != 0)
        current = find_distribution (distributions, kind, subject, model);
      current->counts[bucket_of (sqlite3_column_int64 (stmt, 3))] += column_count (stmt, 4);
    }
  if (rc < 0)
    return FALSE;

  g_hash_table_iter_init (&iter, distributions);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    attach_latency (value, models, tools);
  return TRUE;
}

/* ---- days ---- */

typedef struct
{
  char    day[11];
  guint64 model_calls, tool_calls, input_tokens, output_tokens;
} DayRow;

static gboolean
collect_days (PrsStore    *self,
              const char  *first_day,
              GHashTable  *rows,
              GError     **error)
{
  g_autoptr(PrsStmt) stmt = NULL;
  int rc;

  stmt = prs_store_prepare_cached (self,
                                   "SELECT day, SUM (calls), SUM (input_tokens), SUM (output_tokens), 0"
                                   " FROM insight_model_days WHERE day >= ?1 GROUP BY day"
                                   " UNION ALL"
                                   " SELECT day, 0, 0, 0, SUM (calls)"
                                   " FROM insight_tool_days WHERE day >= ?1 GROUP BY day",
                                   error);
  if (stmt == NULL)
    return FALSE;
  prs_store_bind_text (stmt, 1, first_day);
  while ((rc = prs_store_step_row (self, stmt, N_("Could not read the figures per day"),
                                   error)) == 1)
    {
      const char *day = prs_store_column_text (stmt, 0);
      DayRow *row;

      if (day == NULL || strlen (day) != 10)
        continue;
      row = g_hash_table_lookup (rows, day);
      if (row == NULL)
        {
          row = g_new0 (DayRow, 1);
          memcpy (row->day, day, 11);
          g_hash_table_insert (rows, row->day, row);
        }
      row->model_calls += column_count (stmt, 1);
      row->input_tokens += column_count (stmt, 2);
      row->output_tokens += column_count (stmt, 3);
      row->tool_calls += column_count (stmt, 4);
    }
  return rc == 0;
}

/* Every day of the period, with its figures: from its first day (for
 * all, the first with figures, at most MAX_CHART_DAYS back) to today or
 * the last day with figures */
static void
fill_days (PrsInsights *insights,
           GHashTable  *rows,
           const char  *today)
{
  GHashTableIter iter;
  gpointer value;
  const char *first = insights->first_day;
  const char *last = today;

  g_hash_table_iter_init (&iter, rows);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      DayRow *row = value;

      if (first == NULL || strcmp (row->day, first) < 0)
        first = row->day;
      if (strcmp (row->day, last) > 0)
        last = row->day;
    }
  insights->last_day = g_strdup (last);
  if (first == NULL)
    return;
  if (insights->first_day == NULL)
    insights->first_day = g_strdup (first);

  g_clear_pointer (&insights->days, g_array_unref);
  insights->days = prs_insights_days_between (first, last);
  if (insights->days == NULL)
    insights->days = g_array_new (FALSE, TRUE, sizeof (PrsInsightsDay));
  if (insights->days->len > MAX_CHART_DAYS)
    g_array_remove_range (insights->days, 0, insights->days->len - MAX_CHART_DAYS);
  for (guint i = 0; i < insights->days->len; i++)
    {
      PrsInsightsDay *day = &g_array_index (insights->days, PrsInsightsDay, i);
      DayRow *row = g_hash_table_lookup (rows, day->day);

      if (row == NULL)
        continue;
      day->model_calls = row->model_calls;
      day->tool_calls = row->tool_calls;
      day->input_tokens = row->input_tokens;
      day->output_tokens = row->output_tokens;
    }
}

static int
compare_models (gconstpointer a,
                gconstpointer b)
{
  const PrsInsightsModel *x = *(PrsInsightsModel * const *) a;
  const PrsInsightsModel *y = *(PrsInsightsModel * const *) b;
  int order;

  if (x->calls != y->calls)
    return x->calls > y->calls ? -1 : 1;
  order = g_utf8_collate (x->provider_name, y->provider_name);
  return order != 0 ? order : g_strcmp0 (x->model, y->model);
}

static int
compare_agents (gconstpointer a,
                gconstpointer b)
{
  const PrsInsightsAgent *x = *(PrsInsightsAgent * const *) a;
  const PrsInsightsAgent *y = *(PrsInsightsAgent * const *) b;

  if (x->runs != y->runs)
    return x->runs > y->runs ? -1 : 1;
  return g_strcmp0 (x->agent_id, y->agent_id);
}

static int
compare_tools (gconstpointer a,
               gconstpointer b)
{
  const PrsInsightsTool *x = *(PrsInsightsTool * const *) a;
  const PrsInsightsTool *y = *(PrsInsightsTool * const *) b;

  if (x->calls != y->calls)
    return x->calls > y->calls ? -1 : 1;
  return g_strcmp0 (x->tool, y->tool);
}

PrsInsights *
prs_store_read_insights (PrsStore           *self,
                         PrsInsightsPeriod   period,
                         GDateTime          *now,
                         GError            **error)
{
  g_autoptr(PrsInsights) insights = NULL;
  g_autoptr(GDateTime) local_now = NULL;
  g_autoptr(GHashTable) models = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GHashTable) tools = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GHashTable) days = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
  g_autofree char *first_day = NULL;
  g_autofree char *today = NULL;
  gboolean ok;

  g_return_val_if_fail (PRS_IS_STORE (self), NULL);
  g_return_val_if_fail (period <= PRS_INSIGHTS_ALL, NULL);

  local_now = now != NULL ? g_date_time_to_local (now) : g_date_time_new_now_local ();
  today = g_date_time_format (local_now, "%Y-%m-%d");
  first_day = prs_insights_period_first_day (period, local_now);
  insights = prs_insights_new (period);
  insights->first_day = g_strdup (first_day);

  /* One read transaction: every figure from the same moment */
  if (!prs_store_exec_cached (self, "BEGIN", N_("Could not read the figures"), error))
    return NULL;
  ok = read_counts (self, first_day != NULL ? first_day : "", insights, models, tools, error) &&
       read_latencies (self, first_day == NULL, first_day, models, tools, error) &&
       collect_days (self, first_day != NULL ? first_day : "", days, error);
  prs_store_rollback (self);
  if (!ok)
    return NULL;

  g_ptr_array_sort (insights->models, compare_models);
  g_ptr_array_sort (insights->agents, compare_agents);
  g_ptr_array_sort (insights->tools, compare_tools);
  fill_days (insights, days, today);
  return g_steal_pointer (&insights);
}

/* ---- in a worker thread ---- */

typedef struct
{
  char              *data_dir;
  PrsInsightsPeriod  period;
} ReadData;

static void
read_data_free (gpointer data)
{
  ReadData *read = data;

  g_free (read->data_dir);
  g_free (read);
}

static void
read_in_thread (GTask        *task,
                gpointer      source_object,
                gpointer      task_data,
                GCancellable *cancellable)
{
  ReadData *read = task_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsStore) store = prs_store_new (read->data_dir, &error);
  PrsInsights *insights = NULL;

  if (store != NULL)
    insights = prs_store_read_insights (store, read->period, NULL, &error);
  if (insights == NULL)
    g_task_return_error (task, g_steal_pointer (&error));
  else
    g_task_return_pointer (task, insights, (GDestroyNotify) prs_insights_free);
}

void
prs_store_read_insights_async (const char          *data_dir,
                               PrsInsightsPeriod    period,
                               GCancellable        *cancellable,
                               GAsyncReadyCallback  callback,
                               gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  ReadData *read;

  g_return_if_fail (data_dir != NULL);
  g_return_if_fail (period <= PRS_INSIGHTS_ALL);

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, prs_store_read_insights_async);
  g_task_set_return_on_cancel (task, TRUE);
  read = g_new0 (ReadData, 1);
  read->data_dir = g_strdup (data_dir);
  read->period = period;
  g_task_set_task_data (task, read, read_data_free);
  prs_task_run_in_thread (task, read_in_thread);
}

PrsInsights *
prs_store_read_insights_finish (GAsyncResult  *result,
                                GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}
