/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Tests for prs-scheduler.c and prs-schedule.c with a manual clock (no test
 * sleeps for a due time): firing once per due time, catch-up after
 * downtime (run once, or skip), daylight saving in Europe/Berlin through
 * the scheduler, clock jumps, Run Now in the app and from another program
 * (the stamp it writes after each change), a fired prompt whose run never
 * began, a schedule whose agent or conversation was deleted, and the run
 * itself answered by the scripted provider (tests/lib). */
#include "config.h"

#include <sqlite3.h>
#include <string.h>

#include "prs-error.h"
#include "prs-json.h"
#include "prs-providers.h"
#include "prs-scheduler.h"
#include "prs-secrets.h"
#include "prs-test-util.h"

#define MINUTE (G_GINT64_CONSTANT (60) * G_USEC_PER_SEC)
#define HOUR   (60 * MINUTE)
#define DAY    (24 * HOUR)

typedef struct
{
  char                *dir;
  PrsStore            *store;
  PrsSecrets          *secrets;
  PrsProviders        *providers;
  PrsCallbackRegistry *registry;
  PrsRunner           *runner;
  PrsClock            *clock;
  PrsScheduler        *scheduler;
  PrsTestProvider     *provider;
  guint                added;     /* message-added said */
  guint                changed;   /* changed said */
} Fixture;

static gint64
utc (int y, int m, int d, int h, int mi)
{
  g_autoptr(GDateTime) dt = g_date_time_new_utc (y, m, d, h, mi, 0);

  return g_date_time_to_unix (dt);
}

static void
on_added (PrsScheduler *scheduler,
          const char   *conversation_id,
          const char   *message_id,
          Fixture      *fixture)
{
  fixture->added++;
}

static void
on_changed (PrsScheduler *scheduler,
            Fixture      *fixture)
{
  fixture->changed++;
}

/* The scheduler, as a program starting would make it */
static void
start_scheduler (Fixture *fixture)
{
  fixture->scheduler = prs_scheduler_new (fixture->store, fixture->runner, fixture->clock);
  g_signal_connect (fixture->scheduler, "message-added", G_CALLBACK (on_added), fixture);
  g_signal_connect (fixture->scheduler, "changed", G_CALLBACK (on_changed), fixture);
  prs_scheduler_start (fixture->scheduler);
}

/* The program stops: nothing watches the clock any more */
static void
stop_scheduler (Fixture *fixture)
{
  g_assert_finalize_object (g_steal_pointer (&fixture->scheduler));
}

static void
fixture_setup (Fixture       *fixture,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GTimeZone) tz = g_time_zone_new_identifier ("Europe/Berlin");
  g_autoptr(PrsRunEnv) env = NULL;

  fixture->dir = g_dir_make_tmp ("prs-test-scheduler-XXXXXX", &error);
  g_assert_no_error (error);
  env = prs_test_run_env_new (fixture->dir, "https://127.0.0.1:1/api/ai/agentic-loop-result", &fixture->store,
                              &fixture->secrets, &fixture->providers, &fixture->registry);
  fixture->runner = prs_runner_new (env);
  /* Monday 5 January 2026, 08:00 UTC (09:00 in Berlin) */
  fixture->clock = prs_clock_new_manual (tz, utc (2026, 1, 5, 8, 0) * G_USEC_PER_SEC);
  start_scheduler (fixture);
}

static void
wait_idle (Fixture *fixture)
{
  gint64 deadline = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;

  while (g_main_context_iteration (NULL, FALSE))
    ;
  while (!prs_runner_is_idle (fixture->runner) && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_assert_true (prs_runner_is_idle (fixture->runner));
}

static void
fixture_teardown (Fixture       *fixture,
                  gconstpointer  data)
{
  wait_idle (fixture);
  g_clear_object (&fixture->scheduler);
  g_clear_object (&fixture->runner);
  g_clear_object (&fixture->registry);
  g_clear_object (&fixture->providers);
  g_clear_object (&fixture->secrets);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_clear_object (&fixture->clock);
  g_clear_object (&fixture->store);
  g_clear_pointer (&fixture->provider, prs_test_provider_stop);
  prs_test_remove_tree (fixture->dir);
  g_free (fixture->dir);
}

static char *
add_schedule (Fixture    *fixture,
              const char *name,
              const char *agent_id,
              const char *recurrence_json,
              const char *missed)
{
  g_autoptr(GError) error = NULL;
  PrsScheduleRow row = { 0 };
  char *id = NULL;

  row.name = g_strdup (name);
  row.conversation_slug = g_strdup ("Morning");
  row.agent_id = g_strdup (agent_id);
  row.prompt = g_strdup ("What is on today?");
  row.context_json = g_strdup ("{ \"team\": \"ops\" }");
  row.recurrence_json = g_strdup (recurrence_json);
  row.enabled = TRUE;
  row.missed = g_strdup (missed);
  g_assert_true (prs_scheduler_save (fixture->scheduler, &row, &id, &error));
  g_assert_no_error (error);
  g_free (row.name);
  g_free (row.conversation_slug);
  g_free (row.conversation_id);
  g_free (row.agent_id);
  g_free (row.prompt);
  g_free (row.context_json);
  g_free (row.recurrence_json);
  g_free (row.missed);
  g_free (row.problem);
  return id;
}

/* Messages of the "Morning" conversation of @kind, in order */
static GPtrArray *
messages_of (Fixture    *fixture,
             const char *kind)
{
  g_autofree char *id = NULL;
  g_autoptr(JsonArray) all = NULL;
  GPtrArray *found = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);

  g_assert_true (prs_store_lookup_conversation_slug (fixture->store, "Morning", &id, NULL));
  if (id == NULL)
    return found;
  all = prs_store_list_messages (fixture->store, id, 0, 1000, NULL);
  for (guint i = 0; i < json_array_get_length (all); i++)
    {
      JsonObject *message = json_array_get_object_element (all, i);

      if (g_strcmp0 (json_object_get_string_member (message, "kind"), kind) == 0)
        g_ptr_array_add (found, json_object_ref (message));
    }
  return found;
}

static const char *
extra_string (JsonObject *message,
              const char *name)
{
  JsonNode *extra = json_object_get_member (message, "extra");

  return extra != NULL && JSON_NODE_HOLDS_OBJECT (extra)
         ? json_object_get_string_member_with_default (json_node_get_object (extra), name, NULL) : NULL;
}

static gint64
sql_count (Fixture    *fixture,
           const char *sql)
{
  sqlite3 *db = NULL;
  sqlite3_stmt *stmt = NULL;
  gint64 result = -1;

  g_assert_cmpint (sqlite3_open_v2 (prs_store_get_path (fixture->store), &db, SQLITE_OPEN_READWRITE, NULL), ==,
                   SQLITE_OK);
  sqlite3_busy_timeout (db, 5000);
  g_assert_cmpint (sqlite3_prepare_v2 (db, sql, -1, &stmt, NULL), ==, SQLITE_OK);
  if (sqlite3_step (stmt) == SQLITE_ROW)
    result = sqlite3_column_int64 (stmt, 0);
  sqlite3_finalize (stmt);
  sqlite3_close (db);
  return result;
}

static PrsScheduleRow *
lookup (Fixture    *fixture,
        const char *id)
{
  PrsScheduleRow *row = prs_store_lookup_schedule (fixture->store, id, NULL);

  g_assert_nonnull (row);
  return row;
}

/* ---- firing ---- */

static void
test_every_fires_once (Fixture       *fixture,
                       gconstpointer  data)
{
  g_autofree char *id = add_schedule (fixture, "Briefing", "prosponsive", "{\"kind\":\"every\",\"minutes\":30}", "run");
  g_autoptr(GPtrArray) prompts = NULL;
  g_autoptr(PrsScheduleRow) row = NULL;
  g_autoptr(PrsRunRow) run = NULL;
  JsonObject *prompt;

  /* One alarm, at the next due time */
  g_assert_cmpint (prs_clock_get_alarm (fixture->clock), ==, (utc (2026, 1, 5, 8, 30)) * G_USEC_PER_SEC);
  prs_clock_advance (fixture->clock, 29 * MINUTE);
  prompts = messages_of (fixture, "inbound");
  g_assert_cmpuint (prompts->len, ==, 0);

  prs_clock_advance (fixture->clock, MINUTE);
  g_clear_pointer (&prompts, g_ptr_array_unref);
  prompts = messages_of (fixture, "inbound");
  g_assert_cmpuint (prompts->len, ==, 1);
  prompt = g_ptr_array_index (prompts, 0);
  g_assert_cmpstr (json_object_get_string_member (prompt, "content"), ==, "What is on today?");
  g_assert_cmpstr (extra_string (prompt, "origin"), ==, "schedule");
  g_assert_cmpstr (extra_string (prompt, "scheduleName"), ==, "Briefing");
  g_assert_cmpstr (extra_string (prompt, "dueAt"), ==, "2026-01-05T08:30:00Z");
  g_assert_cmpstr (extra_string (prompt, "fire"), ==, "due");
  /* Its run: an agent-inference run on the prompt, with the Request Context */
  run = prs_store_lookup_run_by_trigger (fixture->store, json_object_get_string_member (prompt, "id"), NULL);
  g_assert_nonnull (run);
  g_assert_cmpstr (run->origin, ==, "agent-inference");
  g_assert_cmpstr (run->context_json, ==, "{\"team\":\"ops\"}");
  wait_idle (fixture);

  /* Many due times pass, each once */
  prs_clock_advance (fixture->clock, 5 * HOUR);
  g_clear_pointer (&prompts, g_ptr_array_unref);
  prompts = messages_of (fixture, "inbound");
  g_assert_cmpuint (prompts->len, ==, 11);
  g_assert_cmpint (sql_count (fixture, "SELECT count(*) FROM schedule_fires WHERE kind = 'due'"), ==, 11);
  g_assert_cmpint (sql_count (fixture, "SELECT count(*) FROM runs"), ==, 11);
  row = lookup (fixture, id);
  g_assert_cmpint (row->last_fired_at, ==, utc (2026, 1, 5, 13, 30));
  g_assert_cmpuint (fixture->added, ==, 11);
}

static void
test_catch_up (Fixture       *fixture,
               gconstpointer  data)
{
  const char *missed = data;
  gboolean skip = g_str_equal (missed, "skip");
  g_autofree char *id = add_schedule (fixture, "Briefing", "prosponsive",
                                      "{\"kind\":\"daily\",\"time\":\"07:30\",\"days\":[\"mon\",\"tue\",\"wed\",\"thu\",\"fri\"]}",
                                      missed);
  g_autoptr(GPtrArray) prompts = NULL;
  g_autoptr(GPtrArray) notices = NULL;
  g_autoptr(PrsScheduleRow) row = NULL;
  const char *text;

  /* Nothing runs from Monday 09:00 to Thursday 12:00 */
  stop_scheduler (fixture);
  prs_clock_advance (fixture->clock, 3 * DAY + 3 * HOUR);
  start_scheduler (fixture);

  notices = messages_of (fixture, "notice");
  prompts = messages_of (fixture, "inbound");
  g_assert_cmpuint (notices->len, ==, 1);
  g_assert_cmpuint (prompts->len, ==, skip ? 0 : 1);
  text = json_object_get_string_member (g_ptr_array_index (notices, 0), "content");
  /* Tuesday to Thursday at 07:30 were missed */
  g_assert_nonnull (strstr (text, "“Briefing” was due from Tue 6 Jan 2026, 07:30 CET to Thu 8 Jan 2026, 07:30 CET"));
  g_assert_nonnull (strstr (text, skip ? "Those runs were skipped" : "It runs once now"));
  g_assert_cmpint (sql_count (fixture, "SELECT count(*) FROM schedule_fires"), ==, 1);
  row = lookup (fixture, id);
  g_assert_cmpint (row->last_fired_at, ==, utc (2026, 1, 8, 6, 30));
  if (!skip)
    g_assert_cmpstr (extra_string (g_ptr_array_index (prompts, 0), "fire"), ==, "missed-run");

  /* Starting again changes nothing */
  wait_idle (fixture);
  stop_scheduler (fixture);
  start_scheduler (fixture);
  g_assert_cmpint (sql_count (fixture, "SELECT count(*) FROM messages WHERE kind IN ('notice', 'inbound')"), ==,
                   skip ? 1 : 2);

  /* The next one is on time again: Friday 07:30 */
  prs_clock_advance (fixture->clock, DAY);
  g_clear_pointer (&prompts, g_ptr_array_unref);
  prompts = messages_of (fixture, "inbound");
  g_assert_cmpuint (prompts->len, ==, skip ? 1 : 2);
  g_assert_cmpstr (extra_string (g_ptr_array_index (prompts, prompts->len - 1), "dueAt"), ==, "2026-01-09T06:30:00Z");
}

/* One due time missed, found late at start: a notice that names it */
static void
test_catch_up_single (Fixture       *fixture,
                      gconstpointer  data)
{
  g_autofree char *id = add_schedule (fixture, "Report", "prosponsive",
                                      "{\"kind\":\"monthly\",\"day\":31,\"time\":\"09:00\"}", "run");
  g_autoptr(GPtrArray) notices = NULL;

  stop_scheduler (fixture);
  /* 31 January 09:00 passes while nothing runs; starting at 10:00 */
  prs_clock_advance (fixture->clock, utc (2026, 1, 31, 9, 0) * G_USEC_PER_SEC - prs_clock_get_now (fixture->clock));
  prs_clock_advance (fixture->clock, HOUR);
  start_scheduler (fixture);
  notices = messages_of (fixture, "notice");
  g_assert_cmpuint (notices->len, ==, 1);
  g_assert_cmpstr (json_object_get_string_member (g_ptr_array_index (notices, 0), "content"), ==,
                   "“Report” was due at Sat 31 Jan 2026, 09:00 CET, while Prosponsive was not running or the "
                   "computer slept. It runs now.");
  /* February has 28 days: the next is its last */
  g_assert_cmpint (prs_clock_get_alarm (fixture->clock), ==, utc (2026, 2, 28, 8, 0) * G_USEC_PER_SEC);
}

static void
test_dst (Fixture       *fixture,
          gconstpointer  data)
{
  gboolean autumn = GPOINTER_TO_INT (data);
  g_autofree char *id = NULL;
  g_autoptr(GPtrArray) prompts = NULL;

  prs_clock_jump (fixture->clock, (autumn ? utc (2026, 10, 24, 12, 0) : utc (2026, 3, 28, 12, 0)) * G_USEC_PER_SEC);
  id = add_schedule (fixture, "Night", "prosponsive",
                     "{\"kind\":\"daily\",\"time\":\"02:30\",\"days\":[\"mon\",\"tue\",\"wed\",\"thu\",\"fri\",\"sat\",\"sun\"]}",
                     "run");
  /* Two days, the alarm ringing at each due time */
  prs_clock_advance (fixture->clock, 2 * DAY);
  prompts = messages_of (fixture, "inbound");
  g_assert_cmpuint (prompts->len, ==, 2);
  /* Autumn: the first 02:30 (CEST) only; spring: 02:30 does not exist, so 03:00 CEST */
  g_assert_cmpstr (extra_string (g_ptr_array_index (prompts, 0), "dueAt"), ==,
                   autumn ? "2026-10-25T00:30:00Z" : "2026-03-29T01:00:00Z");
  g_assert_cmpstr (extra_string (g_ptr_array_index (prompts, 1), "dueAt"), ==,
                   autumn ? "2026-10-26T01:30:00Z" : "2026-03-30T00:30:00Z");
  g_assert_cmpstr (extra_string (g_ptr_array_index (prompts, 0), "fire"), ==, "due");
}

static void
test_clock_jump (Fixture       *fixture,
                 gconstpointer  data)
{
  g_autofree char *id = add_schedule (fixture, "Hourly", "prosponsive", "{\"kind\":\"every\",\"minutes\":60}", "run");
  g_autoptr(GPtrArray) prompts = NULL;
  g_autoptr(GPtrArray) notices = NULL;

  /* The computer slept five hours: the alarm did not ring, the clock jumped */
  prs_clock_jump (fixture->clock, prs_clock_get_now (fixture->clock) + 5 * HOUR + 10 * MINUTE);
  prompts = messages_of (fixture, "inbound");
  notices = messages_of (fixture, "notice");
  g_assert_cmpuint (prompts->len, ==, 1);
  g_assert_cmpuint (notices->len, ==, 1);
  g_assert_cmpstr (extra_string (g_ptr_array_index (prompts, 0), "dueAt"), ==, "2026-01-05T13:00:00Z");

  /* Set back an hour: what ran does not run again */
  prs_clock_jump (fixture->clock, prs_clock_get_now (fixture->clock) - HOUR);
  prs_clock_advance (fixture->clock, 50 * MINUTE);
  g_clear_pointer (&prompts, g_ptr_array_unref);
  prompts = messages_of (fixture, "inbound");
  g_assert_cmpuint (prompts->len, ==, 1);
  prs_clock_advance (fixture->clock, HOUR);
  g_clear_pointer (&prompts, g_ptr_array_unref);
  prompts = messages_of (fixture, "inbound");
  g_assert_cmpuint (prompts->len, ==, 2);
  g_assert_cmpstr (extra_string (g_ptr_array_index (prompts, 1), "dueAt"), ==, "2026-01-05T14:00:00Z");
}

/* ---- what went away ---- */

static void
test_agent_deleted (Fixture       *fixture,
                    gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsAgent) agent = prs_agent_new ("helper", "Helper");
  g_autofree char *id = NULL;
  g_autoptr(PrsScheduleRow) row = NULL;
  g_autoptr(GPtrArray) notices = NULL;
  g_autoptr(GPtrArray) prompts = NULL;
  JsonObject *notice;

  g_assert_true (prs_store_save_agent (fixture->store, agent, NULL, &error));
  g_assert_no_error (error);
  id = add_schedule (fixture, "Briefing", "helper", "{\"kind\":\"every\",\"minutes\":30}", "run");
  g_assert_true (prs_store_delete_agent (fixture->store, "helper", &error));

  prs_clock_advance (fixture->clock, HOUR);
  notices = messages_of (fixture, "notice");
  prompts = messages_of (fixture, "inbound");
  /* Said once in the conversation; then it is off and nothing more comes */
  g_assert_cmpuint (notices->len, ==, 1);
  g_assert_cmpuint (prompts->len, ==, 0);
  notice = g_ptr_array_index (notices, 0);
  g_assert_cmpstr (json_object_get_string_member (notice, "status"), ==, "failed");
  g_assert_cmpstr (json_object_get_string_member (notice, "content"), ==,
                   "“Briefing” could not run at Mon 5 Jan 2026, 09:30 CET and is turned off. "
                   "Its agent “helper” no longer exists. Choose another agent to turn it on again.");
  row = lookup (fixture, id);
  g_assert_false (row->enabled);
  g_assert_nonnull (strstr (row->problem, "“helper”"));
  /* Nothing lost: the prompt and its context are kept */
  g_assert_cmpstr (row->prompt, ==, "What is on today?");
  g_assert_cmpstr (row->context_json, ==, "{\"team\":\"ops\"}");
  g_assert_cmpint (prs_clock_get_alarm (fixture->clock), ==, G_MAXINT64);

  /* Another agent and on again: it runs */
  g_free (row->agent_id);
  row->agent_id = g_strdup ("prosponsive");
  row->enabled = TRUE;
  g_assert_true (prs_scheduler_save (fixture->scheduler, row, NULL, &error));
  g_assert_no_error (error);
  g_clear_pointer (&row, prs_schedule_row_free);
  row = lookup (fixture, id);
  g_assert_null (row->problem);
  prs_clock_advance (fixture->clock, 30 * MINUTE);
  g_clear_pointer (&prompts, g_ptr_array_unref);
  prompts = messages_of (fixture, "inbound");
  g_assert_cmpuint (prompts->len, ==, 1);
}

/* An agent given a new id keeps its schedules: they run with it */
static void
test_agent_renamed (Fixture       *fixture,
                    gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsAgent) agent = prs_agent_new ("helper", "Helper");
  g_autoptr(PrsAgent) renamed = prs_agent_new ("briefer", "Helper");
  g_autofree char *id = NULL;
  g_autoptr(PrsScheduleRow) row = NULL;
  g_autoptr(GPtrArray) notices = NULL;
  g_autoptr(GPtrArray) prompts = NULL;

  g_assert_true (prs_store_save_agent (fixture->store, agent, NULL, &error));
  g_assert_no_error (error);
  id = add_schedule (fixture, "Briefing", "helper", "{\"kind\":\"every\",\"minutes\":30}", "run");
  g_assert_true (prs_store_save_agent (fixture->store, renamed, "helper", &error));
  g_assert_no_error (error);
  row = lookup (fixture, id);
  g_assert_cmpstr (row->agent_id, ==, "briefer");

  prs_clock_advance (fixture->clock, HOUR);
  notices = messages_of (fixture, "notice");
  prompts = messages_of (fixture, "inbound");
  g_assert_cmpuint (notices->len, ==, 0);
  g_assert_cmpuint (prompts->len, >=, 1);
  g_clear_pointer (&row, prs_schedule_row_free);
  row = lookup (fixture, id);
  g_assert_true (row->enabled);
  g_assert_null (row->problem);
}

static void
test_conversation_deleted (Fixture       *fixture,
                           gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *id = add_schedule (fixture, "Briefing", "prosponsive", "{\"kind\":\"every\",\"minutes\":30}", "run");
  g_autoptr(PrsScheduleRow) row = NULL;
  g_autoptr(GPtrArray) prompts = NULL;

  /* The first run makes the conversation */
  prs_clock_advance (fixture->clock, 30 * MINUTE);
  prompts = messages_of (fixture, "inbound");
  g_assert_cmpuint (prompts->len, ==, 1);
  wait_idle (fixture);
  row = lookup (fixture, id);
  g_assert_nonnull (row->conversation_id);

  /* Deleted (by whatever deletes conversations): not made again behind the user's back */
  g_assert_cmpint (sql_count (fixture, "DELETE FROM conversations WHERE slug = 'Morning' RETURNING 1"), ==, 1);
  prs_clock_advance (fixture->clock, 30 * MINUTE);
  g_clear_pointer (&row, prs_schedule_row_free);
  row = lookup (fixture, id);
  g_assert_false (row->enabled);
  g_assert_cmpstr (row->problem, ==, "Its conversation “Morning” was deleted. Choose a conversation to turn it on again.");
  g_assert_cmpint (sql_count (fixture, "SELECT count(*) FROM conversations"), ==, 0);
  g_assert_cmpint (sql_count (fixture, "SELECT count(*) FROM schedule_fires WHERE kind = 'failed'"), ==, 1);
  g_assert_cmpstr (row->prompt, ==, "What is on today?");
  /* Run Now says why it cannot */
  g_assert_false (prs_scheduler_run_now (fixture->scheduler, id, &error));
  g_assert_error (error, PRS_ERROR, PRS_ERROR_NOT_FOUND);
}

/* ---- Run Now ---- */

static void
test_run_now (Fixture       *fixture,
              gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *id = add_schedule (fixture, "Briefing", "prosponsive",
                                      "{\"kind\":\"daily\",\"time\":\"07:30\",\"days\":[\"mon\"]}", "run");
  g_autoptr(PrsScheduleRow) row = NULL;
  g_autoptr(GPtrArray) prompts = NULL;
  gint64 alarm = prs_clock_get_alarm (fixture->clock);

  g_assert_true (prs_scheduler_run_now (fixture->scheduler, id, &error));
  g_assert_no_error (error);
  g_assert_true (prs_scheduler_run_now (fixture->scheduler, "briefing", &error));
  prompts = messages_of (fixture, "inbound");
  g_assert_cmpuint (prompts->len, ==, 2);
  g_assert_cmpstr (extra_string (g_ptr_array_index (prompts, 0), "fire"), ==, "manual");
  /* The due times are as they were */
  row = lookup (fixture, id);
  g_assert_cmpint (row->last_fired_at, ==, 0);
  g_assert_cmpint (prs_clock_get_alarm (fixture->clock), ==, alarm);
  g_assert_false (prs_scheduler_run_now (fixture->scheduler, "nothing", &error));
  g_assert_error (error, PRS_ERROR, PRS_ERROR_NOT_FOUND);
}

static gboolean
on_timeout (gpointer user_data)
{
  *(gboolean *) user_data = TRUE;
  return G_SOURCE_REMOVE;
}

static void
fill_other (PrsScheduleRow *row,
            gint64          now)
{
  row->name = (char *) "Quarterly";
  row->conversation_slug = (char *) "Morning";
  row->agent_id = (char *) "prosponsive";
  row->prompt = (char *) "Anything new?";
  row->recurrence_json = (char *) "{\"kind\":\"every\",\"minutes\":15}";
  row->enabled = TRUE;
  row->missed = (char *) "run";
  row->base_at = now;
}

/* prosponsive-ctl's Run Now: another connection asks and writes the stamp
 * as prosponsive-ctl does; the scheduler sees it and answers once */
static void
test_run_requested_elsewhere (Fixture       *fixture,
                              gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *id = add_schedule (fixture, "Briefing", "prosponsive", "{\"kind\":\"every\",\"minutes\":600}", "run");
  g_autoptr(PrsStore) other = prs_store_new (fixture->dir, &error);
  g_autoptr(GPtrArray) prompts = NULL;
  g_autoptr(PrsScheduleRow) row = NULL;
  PrsScheduleRow added = { 0 };
  gboolean timed_out = FALSE, withdrawn = TRUE;
  guint timeout = g_timeout_add_seconds (20, on_timeout, &timed_out);

  g_assert_true (prs_store_request_schedule_run (other, id, 42, &error));
  g_assert_no_error (error);
  prs_schedule_announce_change (other);
  do
    {
      g_main_context_iteration (NULL, TRUE);
      g_clear_pointer (&row, prs_schedule_row_free);
      row = lookup (fixture, id);
    }
  while (row->run_requested_at != 0 && !timed_out);
  g_assert_false (timed_out);
  g_source_remove (timeout);

  prompts = messages_of (fixture, "inbound");
  g_assert_cmpuint (prompts->len, ==, 1);
  g_assert_true (prs_store_withdraw_schedule_run (other, id, 42, &withdrawn, &error));
  g_assert_false (withdrawn);
  g_assert_cmpint (prs_clock_get_alarm (fixture->clock), ==, utc (2026, 1, 5, 18, 0) * G_USEC_PER_SEC);

  /* A schedule the other program adds counts at once: the alarm moves */
  fill_other (&added, prs_clock_get_now_seconds (fixture->clock));
  g_assert_true (prs_store_add_schedule (other, &added, NULL, &error));
  g_assert_no_error (error);
  prs_schedule_announce_change (other);
  timed_out = FALSE;
  timeout = g_timeout_add_seconds (20, on_timeout, &timed_out);
  while (prs_clock_get_alarm (fixture->clock) != utc (2026, 1, 5, 8, 15) * G_USEC_PER_SEC && !timed_out)
    g_main_context_iteration (NULL, TRUE);
  g_assert_false (timed_out);
  g_source_remove (timeout);
}

/* The program stopped after firing, before the run began: starting again
 * begins it, once; resuming the runner does not mark it interrupted */
static void
test_unstarted_after_stop (Fixture       *fixture,
                           gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *id = add_schedule (fixture, "Briefing", "prosponsive", "{\"kind\":\"every\",\"minutes\":600}", "run");
  g_autofree char *conversation = prs_test_resolve_conversation (fixture->store, "Morning");
  g_autofree char *message_id = NULL;
  g_autoptr(PrsRunRow) run = NULL;
  PrsScheduleFire fire = { 0 };
  PrsMessageInsert message = { 0 };
  gboolean fired = FALSE;

  stop_scheduler (fixture);
  message.conversation_id = conversation;
  message.kind = "inbound";
  message.content = "What is on today?";
  message.status = "pending";
  fire.schedule_id = id;
  fire.kind = PRS_SCHEDULE_FIRE_DUE;
  fire.due_at = utc (2026, 1, 5, 18, 0);
  fire.conversation_id = conversation;
  fire.message = &message;
  g_assert_true (prs_store_fire_schedule (fixture->store, &fire, &fired, NULL, &message_id, &error));
  g_assert_true (fired);

  start_scheduler (fixture);
  prs_runner_resume (fixture->runner);
  run = prs_store_lookup_run_by_trigger (fixture->store, message_id, NULL);
  g_assert_nonnull (run);
  wait_idle (fixture);
  stop_scheduler (fixture);
  start_scheduler (fixture);
  g_assert_cmpint (sql_count (fixture, "SELECT count(*) FROM runs"), ==, 1);
  g_assert_cmpint (sql_count (fixture, "SELECT count(*) FROM messages WHERE extra_json LIKE '%interrupted%'"), ==, 0);
}

/* ---- checks and the run itself ---- */

static void
test_checks (Fixture       *fixture,
             gconstpointer  data)
{
  static const struct { const char *field; const char *value; int code; } cases[] = {
    { "name", "  ", PRS_ERROR_INVALID_INPUT },
    { "name", "two\nlines", PRS_ERROR_INVALID_INPUT },
    { "slug", "slug:x", PRS_ERROR_INVALID_INPUT },
    { "slug", "", PRS_ERROR_INVALID_INPUT },
    { "agent", "nobody", PRS_ERROR_NOT_FOUND },
    { "prompt", " \n ", PRS_ERROR_INVALID_INPUT },
    { "context", "[1]", PRS_ERROR_INVALID_INPUT },
    { "context", "{\"a\":1,}", PRS_ERROR_INVALID_INPUT },
    { "context", "{'a':1}", PRS_ERROR_INVALID_INPUT },
    { "recurrence", "{\"kind\":\"once\",\"at\":\"2025-01-01T00:00:00Z\"}", PRS_ERROR_INVALID_INPUT },
    { "recurrence", "{\"kind\":\"every\",\"minutes\":0}", PRS_ERROR_INVALID_INPUT },
    { "missed", "later", PRS_ERROR_INVALID_INPUT },
  };
  g_autoptr(GError) error = NULL;
  g_autofree char *id = add_schedule (fixture, "Briefing", "prosponsive", "{\"kind\":\"every\",\"minutes\":30}", "run");

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      PrsScheduleRow row = { 0 };

      row.name = g_strdup ("Other");
      row.conversation_slug = g_strdup ("Morning");
      row.agent_id = g_strdup ("prosponsive");
      row.prompt = g_strdup ("Hi");
      row.recurrence_json = g_strdup ("{\"kind\":\"every\",\"minutes\":30}");
      row.missed = g_strdup ("run");
      row.enabled = TRUE;
#define SET(field_name, member) \
      if (g_str_equal (cases[i].field, field_name)) { g_free (row.member); row.member = g_strdup (cases[i].value); }
      SET ("name", name) SET ("slug", conversation_slug) SET ("agent", agent_id) SET ("prompt", prompt)
      SET ("context", context_json) SET ("recurrence", recurrence_json) SET ("missed", missed)
#undef SET
      g_assert_false (prs_scheduler_save (fixture->scheduler, &row, NULL, &error));
      g_assert_error (error, PRS_ERROR, cases[i].code);
      g_clear_error (&error);
      g_free (row.name);
      g_free (row.conversation_slug);
      g_free (row.agent_id);
      g_free (row.prompt);
      g_free (row.context_json);
      g_free (row.recurrence_json);
      g_free (row.missed);
      g_free (row.conversation_id);
      g_free (row.problem);
    }
  /* A name in use, ignoring case */
  {
    PrsScheduleRow row = { 0 };

    row.name = (char *) " briefing ";
    row.conversation_slug = (char *) "Morning";
    row.agent_id = (char *) "prosponsive";
    row.prompt = (char *) "Hi";
    row.recurrence_json = (char *) "{\"kind\":\"every\",\"minutes\":30}";
    row.missed = (char *) "run";
    row.name = g_strdup (row.name);
    row.conversation_slug = g_strdup (row.conversation_slug);
    g_assert_false (prs_scheduler_save (fixture->scheduler, &row, NULL, &error));
    g_assert_error (error, PRS_ERROR, PRS_ERROR_EXISTS);
    g_free (row.name);
    g_free (row.conversation_slug);
    g_free (row.context_json);
    g_free (row.conversation_id);
  }
}

/* A "once" that ran cannot be turned on again as it is, but can be edited */
static void
test_once_done (Fixture       *fixture,
                gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *id = add_schedule (fixture, "Reminder", "prosponsive",
                                      "{\"kind\":\"once\",\"at\":\"2026-01-05T09:00:00Z\"}", "run");
  g_autoptr(PrsScheduleRow) row = NULL;
  g_autoptr(GPtrArray) prompts = NULL;

  prs_clock_advance (fixture->clock, 2 * HOUR);
  prompts = messages_of (fixture, "inbound");
  g_assert_cmpuint (prompts->len, ==, 1);
  g_assert_cmpint (prs_clock_get_alarm (fixture->clock), ==, G_MAXINT64);

  row = lookup (fixture, id);
  g_free (row->prompt);
  row->prompt = g_strdup ("Call the bank.");
  g_assert_true (prs_scheduler_save (fixture->scheduler, row, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (prs_scheduler_set_enabled (fixture->scheduler, id, FALSE, &error));
  g_assert_false (prs_scheduler_set_enabled (fixture->scheduler, id, TRUE, &error));
  g_assert_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT);
}

static void
test_run_answers (Fixture       *fixture,
                  gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *id = NULL;
  g_autofree char *url = NULL;
  g_autoptr(GPtrArray) prompts = NULL;
  g_autoptr(GPtrArray) answers = NULL;
  g_autoptr(JsonArray) requests = NULL;
  g_autofree char *body = NULL;

  fixture->provider = prs_test_provider_start ("{'kind': 'openai', 'turns': [{'response': {'text': 'Good morning: three meetings.'}}]}");
  url = prs_test_provider_base_url (fixture->provider, "openai");
  prs_providers_add (fixture->providers, "openai", "Scripted", url, "model-a", 0, "sk-test", NULL, &error);
  g_assert_no_error (error);
  id = add_schedule (fixture, "Briefing", "prosponsive", "{\"kind\":\"every\",\"minutes\":30}", "run");

  prs_clock_advance (fixture->clock, 30 * MINUTE);
  wait_idle (fixture);
  answers = messages_of (fixture, "assistant");
  prompts = messages_of (fixture, "inbound");
  g_assert_cmpuint (answers->len, ==, 1);
  g_assert_cmpstr (json_object_get_string_member (g_ptr_array_index (answers, 0), "content"), ==,
                   "Good morning: three meetings.");
  g_assert_cmpstr (json_object_get_string_member (g_ptr_array_index (prompts, 0), "status"), ==, "completed");
  /* The model saw the prompt, and the Request Context as data */
  requests = prs_test_provider_requests (fixture->provider);
  g_assert_cmpuint (json_array_get_length (requests), ==, 1);
  body = prs_json_to_string (json_object_get_member (json_array_get_object_element (requests, 0), "body"), FALSE);
  g_assert_nonnull (strstr (body, "What is on today?"));
  g_assert_nonnull (strstr (body, "\\\"team\\\""));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func, data) \
  g_test_add ("/prs/scheduler/" path, Fixture, data, fixture_setup, func, fixture_teardown)

  ADD ("every-fires-once", test_every_fires_once, NULL);
  ADD ("catch-up-run", test_catch_up, "run");
  ADD ("catch-up-skip", test_catch_up, "skip");
  ADD ("catch-up-single", test_catch_up_single, NULL);
  ADD ("dst-spring", test_dst, GINT_TO_POINTER (FALSE));
  ADD ("dst-autumn", test_dst, GINT_TO_POINTER (TRUE));
  ADD ("clock-jump", test_clock_jump, NULL);
  ADD ("agent-deleted", test_agent_deleted, NULL);
  ADD ("agent-renamed", test_agent_renamed, NULL);
  ADD ("conversation-deleted", test_conversation_deleted, NULL);
  ADD ("run-now", test_run_now, NULL);
  ADD ("run-requested-elsewhere", test_run_requested_elsewhere, NULL);
  ADD ("unstarted-after-stop", test_unstarted_after_stop, NULL);
  ADD ("checks", test_checks, NULL);
  ADD ("once-done", test_once_done, NULL);
  ADD ("run-answers", test_run_answers, NULL);

#undef ADD

  return g_test_run ();
}
