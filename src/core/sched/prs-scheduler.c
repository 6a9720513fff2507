/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-scheduler.c: fires scheduled prompts (prs-scheduler.h). Everything
 * is read from the store each time the scheduler looks (a handful of rows),
 * so what another program changed counts at once and nothing here can grow
 * stale. */
#include "config.h"

#include <signal.h>
#include <glib/gi18n-lib.h>

#include "prs-error.h"
#include "prs-json.h"
#include "prs-scheduler.h"
#include "prs-thread.h"

/* After a failed write (a busy or full disk), look again this much later */
#define RETRY_SECONDS 30

struct _PrsScheduler
{
  GObject        parent_instance;

  PrsStore      *store;
  PrsRunner     *runner;
  PrsClock      *clock;

  GFileMonitor  *monitor;        /* the stamp of other programs' changes */
  gint64         data_version;   /* the store's, when the scheduler last looked */
  char          *fingerprint;    /* the schedules as "changed" last said */
  gboolean       started;
  gboolean       processing;
  gboolean       again;          /* asked to look while looking */
  gboolean       failed;         /* a write failed: look again in RETRY_SECONDS */
};

G_DEFINE_FINAL_TYPE (PrsScheduler, prs_scheduler, G_TYPE_OBJECT)

enum
{
  SIGNAL_MESSAGE_ADDED,
  SIGNAL_MESSAGE_CHANGED,
  SIGNAL_CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void process (PrsScheduler *self);

/* The reliability suite kills the program at each step of firing (debug
 * builds only): PROSPONSIVE_TEST_CRASH_AT=before-fire|fired|run-started
 * sends this process SIGKILL when it gets there */
static void
test_crash_point (const char *step)
{
#if PRS_ENABLE_TEST_HOOKS
  if (g_strcmp0 (g_getenv ("PROSPONSIVE_TEST_CRASH_AT"), step) == 0)
    raise (SIGKILL);
#else
  (void) step;
#endif
}

PrsScheduler *
prs_scheduler_new (PrsStore  *store,
                   PrsRunner *runner,
                   PrsClock  *clock)
{
  PrsScheduler *self;

  g_return_val_if_fail (PRS_IS_STORE (store), NULL);
  g_return_val_if_fail (PRS_IS_RUNNER (runner), NULL);
  g_return_val_if_fail (PRS_IS_CLOCK (clock), NULL);
  PRS_ASSERT_MAIN_THREAD ();

  self = g_object_new (PRS_TYPE_SCHEDULER, NULL);
  self->store = g_object_ref (store);
  self->runner = g_object_ref (runner);
  self->clock = g_object_ref (clock);
  return self;
}

PrsClock *
prs_scheduler_get_clock (PrsScheduler *self)
{
  g_return_val_if_fail (PRS_IS_SCHEDULER (self), NULL);
  return self->clock;
}

PrsStore *
prs_scheduler_get_store (PrsScheduler *self)
{
  g_return_val_if_fail (PRS_IS_SCHEDULER (self), NULL);
  return self->store;
}

static GTimeZone *
tz (PrsScheduler *self)
{
  return prs_clock_get_timezone (self->clock);
}

/* ---- runs ---- */

/* The run of a fired prompt: an agent-inference run, as for a workflow's
 * request (docs/runs.md), so approvals, rules, guidance and binding are
 * those of any run */
static void
start_run (PrsScheduler *self,
           JsonObject   *message)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsRun) run = NULL;
  g_autofree char *context = NULL;
  PrsRunOptions options = { 0 };
  JsonNode *node = json_object_get_member (message, "context");

  if (node != NULL && !JSON_NODE_HOLDS_NULL (node))
    context = prs_json_to_string (node, FALSE);
  options.origin = PRS_RUN_ORIGIN_AGENT_INFERENCE;
  options.conversation_id = json_object_get_string_member_with_default (message, "conversationId", NULL);
  options.agent_id = json_object_get_string_member_with_default (message, "agentId", NULL);
  options.trigger_message_id = json_object_get_string_member_with_default (message, "id", NULL);
  options.context_json = context;
  options.temperature = -1;

  run = prs_runner_start (self->runner, &options, FALSE, &error);
  if (run == NULL)
    {
      /* Kept, and retryable in its conversation like a failed request */
      g_message ("A scheduled prompt could not start: %s", error->message);
      if (prs_store_update_message (self->store, options.trigger_message_id, "failed", NULL, NULL, NULL))
        g_signal_emit (self, signals[SIGNAL_MESSAGE_CHANGED], 0, options.conversation_id,
                       options.trigger_message_id);
    }
}

static void
start_run_of (PrsScheduler *self,
              const char   *message_id)
{
  g_autoptr(JsonNode) message = prs_store_get_message (self->store, message_id, NULL);

  if (message != NULL && JSON_NODE_HOLDS_OBJECT (message))
    start_run (self, json_node_get_object (message));
}

/* Prompts fired before the program stopped whose run never began */
static void
start_unstarted (PrsScheduler *self)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) ids = prs_store_list_unstarted_schedule_messages (self->store, &error);

  if (ids == NULL)
    {
      g_message ("Could not read the scheduled prompts waiting for a run: %s", error->message);
      return;
    }
  for (guint i = 0; i < ids->len; i++)
    start_run_of (self, g_ptr_array_index (ids, i));
}

/* ---- firing ---- */

/* One due time being handled, and the memory its parts point into */
typedef struct
{
  PrsScheduleFire   fire;
  PrsMessageInsert  notice;
  PrsMessageInsert  message;
  char             *conversation_id;
  char             *notice_text;
  char             *notice_extra;
  char             *message_extra;
  char             *dedup_key;
  char             *problem;
} Firing;

static void
firing_clear (Firing *firing)
{
  g_free (firing->conversation_id);
  g_free (firing->notice_text);
  g_free (firing->notice_extra);
  g_free (firing->message_extra);
  g_free (firing->dedup_key);
  g_free (firing->problem);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Firing, firing_clear)

static char *
extra_json (const PrsScheduleRow *row,
            const char           *kind,
            gint64                due)
{
  g_autoptr(JsonObject) extra = json_object_new ();
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
  g_autoptr(GDateTime) at = g_date_time_new_from_unix_utc (due);
  g_autofree char *text = g_date_time_format (at, "%Y-%m-%dT%H:%M:%SZ");

  json_object_set_string_member (extra, "origin", "schedule");
  json_object_set_string_member (extra, "scheduleId", row->id);
  json_object_set_string_member (extra, "scheduleName", row->name);
  json_object_set_string_member (extra, "dueAt", text);
  json_object_set_string_member (extra, "fire", kind);
  json_node_set_object (node, extra);
  return prs_json_to_string (node, FALSE);
}

/* What the conversation says about a due time missed while nothing ran */
static char *
missed_text (PrsScheduler         *self,
             const PrsScheduleRow *row,
             gboolean              skipped,
             gint64                due,
             gint64                first)
{
  g_autofree char *last = prs_schedule_format_time (due, tz (self));
  g_autofree char *since = prs_schedule_format_time (first, tz (self));

  if (first == due)
    return g_strdup_printf (skipped
                            /* Translators: a schedule's name, then a date and time */
                            ? _("“%s” was due at %s, while Prosponsive was not running or the computer slept. "
                                "It was skipped, as the schedule asks.")
                            /* Translators: a schedule's name, then a date and time */
                            : _("“%s” was due at %s, while Prosponsive was not running or the computer slept. "
                                "It runs now."),
                            row->name, last);
  return g_strdup_printf (skipped
                          /* Translators: a schedule's name, then two dates and times */
                          ? _("“%s” was due from %s to %s, while Prosponsive was not running or the computer slept. "
                              "Those runs were skipped, as the schedule asks.")
                          /* Translators: a schedule's name, then two dates and times */
                          : _("“%s” was due from %s to %s, while Prosponsive was not running or the computer slept. "
                              "It runs once now."),
                          row->name, since, last);
}

/* Where the messages go: the conversation the schedule names, made on the
 * first run. FALSE when the store failed; *@out_gone when a conversation
 * it had was deleted */
static gboolean
find_conversation (PrsScheduler         *self,
                   const PrsScheduleRow *row,
                   char                **out_id,
                   gboolean             *out_gone)
{
  g_autoptr(GError) error = NULL;

  *out_gone = FALSE;
  if (row->conversation_id != NULL)
    {
      *out_gone = !prs_store_has_conversation (self->store, row->conversation_id);
      *out_id = *out_gone ? NULL : g_strdup (row->conversation_id);
      return TRUE;
    }
  if (!prs_store_resolve_conversation (self->store, row->conversation_slug, out_id, NULL, &error))
    {
      g_message ("Could not open the conversation “%s” of a schedule: %s", row->conversation_slug, error->message);
      return FALSE;
    }
  return TRUE;
}

/* Fills @firing's texts for @kind; FALSE when the store failed */
static gboolean
compose (PrsScheduler         *self,
         const PrsScheduleRow *row,
         Firing               *firing)
{
  const char *kind = firing->fire.kind;
  gboolean runs = g_strcmp0 (kind, PRS_SCHEDULE_FIRE_MISSED_SKIP) != 0;
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsAgent) agent = NULL;
  g_autofree char *when = prs_schedule_format_time (firing->fire.due_at, tz (self));
  gboolean gone = FALSE;

  if (!find_conversation (self, row, &firing->conversation_id, &gone))
    return FALSE;
  if (gone)
    {
      /* Nowhere to say it but the schedule itself */
      /* Translators: %s is a conversation's name */
      firing->problem = g_strdup_printf (_("Its conversation “%s” was deleted. Choose a conversation to turn it on again."),
                                         row->conversation_slug);
      g_message ("Schedule “%s” is turned off: its conversation was deleted", row->name);
      return TRUE;
    }
  firing->fire.conversation_id = firing->conversation_id;
  firing->notice.conversation_id = firing->conversation_id;
  firing->notice.kind = "notice";
  firing->notice_extra = extra_json (row, kind, firing->fire.due_at);
  firing->notice.extra_json = firing->notice_extra;

  if (runs && (agent = prs_store_lookup_agent (self->store, row->agent_id, &error)) == NULL)
    {
      if (!g_error_matches (error, PRS_ERROR, PRS_ERROR_NOT_FOUND))
        return FALSE;
      /* Translators: an agent's id */
      firing->problem = g_strdup_printf (_("Its agent “%s” no longer exists. Choose another agent to turn it on again."),
                                         row->agent_id);
      /* Translators: a schedule's name, a date and time, then what is wrong */
      firing->notice_text = g_strdup_printf (_("“%s” could not run at %s and is turned off. %s"),
                                             row->name, when, firing->problem);
      firing->notice.status = "failed";
      return TRUE;
    }
  return TRUE;
}

/* The prompt's message: inbound-like, origin schedule (docs/schedules.md) */
static void
compose_prompt (const PrsScheduleRow *row,
                Firing               *firing)
{
  firing->message_extra = extra_json (row, firing->fire.kind, firing->fire.due_at);
  if (g_strcmp0 (firing->fire.kind, PRS_SCHEDULE_FIRE_MANUAL) != 0)
    firing->dedup_key = g_strdup_printf ("schedule:%s:%" G_GINT64_FORMAT, row->id, firing->fire.due_at);
  firing->message.conversation_id = firing->conversation_id;
  firing->message.kind = "inbound";
  firing->message.content = row->prompt;
  firing->message.status = "pending";
  firing->message.agent_id = row->agent_id;
  firing->message.context_json = row->context_json;
  firing->message.dedup_key = firing->dedup_key;
  firing->message.extra_json = firing->message_extra;
  firing->fire.message = &firing->message;
}

/* Handles one due time of @row (@first: the first one missed, when several
 * were); FALSE when the store failed */
static gboolean
fire (PrsScheduler         *self,
      const PrsScheduleRow *row,
      const char           *kind,
      gint64                due,
      gint64                first,
      gint64                request)
{
  g_auto(Firing) firing = { { 0 } };
  g_autoptr(GError) error = NULL;
  g_autofree char *notice_id = NULL;
  g_autofree char *message_id = NULL;
  gboolean fired = FALSE;

  firing.fire.schedule_id = row->id;
  firing.fire.kind = kind;
  firing.fire.due_at = due;
  firing.fire.run_requested_at = request;
  if (!compose (self, row, &firing))
    return FALSE;

  if (firing.problem != NULL)
    {
      firing.fire.problem = firing.problem;
      if (g_strcmp0 (kind, PRS_SCHEDULE_FIRE_MANUAL) != 0)
        firing.fire.kind = PRS_SCHEDULE_FIRE_FAILED;
    }
  else if (g_strcmp0 (kind, PRS_SCHEDULE_FIRE_MISSED_RUN) == 0 || g_strcmp0 (kind, PRS_SCHEDULE_FIRE_MISSED_SKIP) == 0)
    firing.notice_text = missed_text (self, row, g_str_equal (kind, PRS_SCHEDULE_FIRE_MISSED_SKIP), due, first);
  if (firing.problem == NULL && g_strcmp0 (kind, PRS_SCHEDULE_FIRE_MISSED_SKIP) != 0)
    compose_prompt (row, &firing);
  if (firing.notice_text != NULL)
    {
      firing.notice.content = firing.notice_text;
      firing.fire.notice = &firing.notice;
    }

  test_crash_point ("before-fire");
  if (!prs_store_fire_schedule (self->store, &firing.fire, &fired, &notice_id, &message_id, &error))
    {
      g_message ("Could not run the schedule “%s”: %s", row->name, error->message);
      return FALSE;
    }
  if (!fired)
    return TRUE;
  if (notice_id != NULL)
    g_signal_emit (self, signals[SIGNAL_MESSAGE_ADDED], 0, firing.conversation_id, notice_id);
  if (message_id != NULL)
    {
      g_signal_emit (self, signals[SIGNAL_MESSAGE_ADDED], 0, firing.conversation_id, message_id);
      test_crash_point ("fired");
      start_run_of (self, message_id);
      test_crash_point ("run-started");
    }
  return TRUE;
}

/* What is due of @row at @now */
static gboolean
handle_row (PrsScheduler         *self,
            const PrsScheduleRow *row,
            gint64                now)
{
  PrsRecurrence recurrence;
  gint64 first, latest;

  /* A Run Now asked by another program; the request is in microseconds */
  if (row->run_requested_at != 0 &&
      !fire (self, row, PRS_SCHEDULE_FIRE_MANUAL, now, now, row->run_requested_at))
    return FALSE;
  if (!row->enabled || !prs_recurrence_parse (row->recurrence_json, &recurrence, NULL))
    return TRUE;
  if (!prs_recurrence_next (&recurrence, row->base_at, MAX (row->base_at, row->last_fired_at), tz (self), &first) ||
      first > now)
    return TRUE;
  if (!prs_recurrence_last (&recurrence, row->base_at, now, tz (self), &latest))
    latest = first;

  if (latest == first && now - first <= PRS_SCHEDULE_GRACE_SECONDS)
    return fire (self, row, PRS_SCHEDULE_FIRE_DUE, first, first, 0);
  return fire (self, row,
               g_strcmp0 (row->missed, PRS_SCHEDULE_MISSED_SKIP) == 0 ? PRS_SCHEDULE_FIRE_MISSED_SKIP
                                                                      : PRS_SCHEDULE_FIRE_MISSED_RUN,
               latest, first, 0);
}

/* ---- the alarm ---- */

/* A short text that changes when a schedule does */
static char *
fingerprint (GPtrArray *rows)
{
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < rows->len; i++)
    {
      const PrsScheduleRow *row = g_ptr_array_index (rows, i);

      g_string_append_printf (out, "%s|%s|%d|%" G_GINT64_FORMAT "|%" G_GINT64_FORMAT "|%s|%s\n", row->id,
                              row->updated_at, row->enabled, row->last_fired_at, row->run_requested_at,
                              row->problem != NULL ? row->problem : "", row->conversation_id != NULL ? "c" : "");
    }
  return g_string_free (out, FALSE);
}

/* The alarm at the earliest due time to come; says "changed" when the
 * schedules are not what it said last */
static void
arm (PrsScheduler *self,
     GPtrArray    *rows)
{
  gint64 now = prs_clock_get_now_seconds (self->clock);
  gint64 next = G_MAXINT64;
  g_autofree char *print = NULL;

  for (guint i = 0; rows != NULL && i < rows->len; i++)
    {
      const PrsScheduleRow *row = g_ptr_array_index (rows, i);
      gint64 due;

      if (row->enabled && prs_schedule_next_due (row, tz (self), &due))
        next = MIN (next, due);
    }
  /* Still due after a failed write: not at once again, but soon */
  if (self->failed || rows == NULL || next <= now)
    next = MIN (next <= now ? G_MAXINT64 : next, now + RETRY_SECONDS);
  prs_clock_set_alarm (self->clock, next == G_MAXINT64 ? G_MAXINT64 : next * G_USEC_PER_SEC);

  if (rows == NULL)
    return;
  print = fingerprint (rows);
  if (g_strcmp0 (print, self->fingerprint) != 0)
    {
      g_free (self->fingerprint);
      self->fingerprint = g_steal_pointer (&print);
      g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
    }
}

static GPtrArray *
list_rows (PrsScheduler *self)
{
  g_autoptr(GError) error = NULL;
  GPtrArray *rows = prs_store_list_schedules (self->store, &error);

  if (rows == NULL)
    g_message ("Could not read the schedules: %s", error->message);
  return rows;
}

static void
process (PrsScheduler *self)
{
  g_autoptr(GPtrArray) rows = NULL;

  if (self->processing)
    {
      self->again = TRUE;
      return;
    }
  self->processing = TRUE;
  do
    {
      gint64 now = prs_clock_get_now_seconds (self->clock);

      self->again = FALSE;
      self->failed = FALSE;
      g_clear_pointer (&rows, g_ptr_array_unref);
      rows = list_rows (self);
      for (guint i = 0; rows != NULL && i < rows->len; i++)
        if (!handle_row (self, g_ptr_array_index (rows, i), now))
          self->failed = TRUE;
    }
  while (self->again);
  self->processing = FALSE;

  /* What firing changed, read back */
  g_clear_pointer (&rows, g_ptr_array_unref);
  rows = list_rows (self);
  arm (self, rows);
  self->data_version = prs_store_get_data_version (self->store);
}

static void
on_alarm (PrsClock     *clock,
          PrsScheduler *self)
{
  process (self);
}

static void
on_jumped (PrsClock     *clock,
           PrsScheduler *self)
{
  process (self);
}

/* Another program said it changed the schedules: look only when the
 * database changed since the scheduler last did */
static void
on_changes_stamp (GFileMonitor      *monitor,
                  GFile             *file,
                  GFile             *other,
                  GFileMonitorEvent  event,
                  PrsScheduler      *self)
{
  if (prs_store_get_data_version (self->store) != self->data_version)
    process (self);
}

/* Watches the stamp prosponsive-ctl writes after it changed a schedule
 * (prs_schedule_announce_change ()), in a folder of its own: inotify
 * watches a file's folder, and a watch on the database's folder would
 * queue an event for every write of every commit of this program. The
 * folder is made here, so that GLib never falls back to watching its
 * parent while it is missing. */
static void
watch_changes (PrsScheduler *self)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = prs_schedule_changes_path (self->store, TRUE, &error);
  g_autoptr(GFile) file = NULL;

  if (path != NULL)
    {
      file = g_file_new_for_path (path);
      self->monitor = g_file_monitor_file (file, G_FILE_MONITOR_NONE, NULL, &error);
    }
  if (self->monitor == NULL)
    {
      g_message ("Schedules changed by prosponsive-ctl count when Prosponsive looks next: %s", error->message);
      return;
    }
  g_signal_connect_object (self->monitor, "changed", G_CALLBACK (on_changes_stamp), self, 0);
}

void
prs_scheduler_start (PrsScheduler *self)
{
  g_return_if_fail (PRS_IS_SCHEDULER (self));
  PRS_ASSERT_MAIN_THREAD ();

  if (self->started)
    return;
  self->started = TRUE;
  g_signal_connect_object (self->clock, "alarm", G_CALLBACK (on_alarm), self, 0);
  g_signal_connect_object (self->clock, "jumped", G_CALLBACK (on_jumped), self, 0);
  start_unstarted (self);
  watch_changes (self);
  process (self);
}

void
prs_scheduler_stop (PrsScheduler *self)
{
  g_return_if_fail (PRS_IS_SCHEDULER (self));
  PRS_ASSERT_MAIN_THREAD ();

  if (!self->started)
    return;
  self->started = FALSE;
  g_signal_handlers_disconnect_by_data (self->clock, self);
  prs_clock_set_alarm (self->clock, G_MAXINT64);
  if (self->monitor != NULL)
    g_file_monitor_cancel (self->monitor);
  g_clear_object (&self->monitor);
}

void
prs_scheduler_reload (PrsScheduler *self)
{
  g_return_if_fail (PRS_IS_SCHEDULER (self));
  PRS_ASSERT_MAIN_THREAD ();

  if (self->started)
    process (self);
  else
    g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
}

/* ---- changes made in this program ---- */

static PrsScheduleRow *
lookup_or_fail (PrsScheduler  *self,
                const char    *id,
                GError       **error)
{
  g_autoptr(GError) local_error = NULL;
  PrsScheduleRow *row = prs_store_lookup_schedule (self->store, id, &local_error);

  if (row == NULL)
    {
      if (local_error != NULL)
        g_propagate_error (error, g_steal_pointer (&local_error));
      else
        /* Translators: %s is a schedule's id or name */
        g_set_error (error, PRS_ERROR, PRS_ERROR_NOT_FOUND, _("There is no schedule “%s”."), id);
    }
  return row;
}

gboolean
prs_scheduler_save (PrsScheduler    *self,
                    PrsScheduleRow  *row,
                    char           **out_id,
                    GError         **error)
{
  g_autoptr(PrsScheduleRow) stored = NULL;
  g_autofree char *id = NULL;

  g_return_val_if_fail (PRS_IS_SCHEDULER (self), FALSE);
  g_return_val_if_fail (row != NULL, FALSE);
  PRS_ASSERT_MAIN_THREAD ();

  if (row->id != NULL)
    {
      stored = prs_store_lookup_schedule (self->store, row->id, error);
      if (stored == NULL)
        {
          if (error != NULL && *error == NULL)
            /* Translators: %s is a schedule's name */
            g_set_error (error, PRS_ERROR, PRS_ERROR_NOT_FOUND, _("There is no schedule “%s” any more."), row->name);
          return FALSE;
        }
    }
  if (!prs_schedule_prepare (row, stored, self->store, prs_clock_get_now_seconds (self->clock), error))
    return FALSE;
  if (stored != NULL ? !prs_store_update_schedule (self->store, row, error)
                     : !prs_store_add_schedule (self->store, row, &id, error))
    return FALSE;
  prs_scheduler_reload (self);
  if (out_id != NULL)
    *out_id = stored != NULL ? g_strdup (row->id) : g_steal_pointer (&id);
  return TRUE;
}

gboolean
prs_scheduler_set_enabled (PrsScheduler  *self,
                           const char    *id,
                           gboolean       enabled,
                           GError       **error)
{
  g_autoptr(PrsScheduleRow) stored = NULL;
  gint64 now;

  g_return_val_if_fail (PRS_IS_SCHEDULER (self), FALSE);
  PRS_ASSERT_MAIN_THREAD ();

  now = prs_clock_get_now_seconds (self->clock);
  if (enabled)
    {
      if ((stored = lookup_or_fail (self, id, error)) == NULL ||
          !prs_schedule_turn_on (self->store, stored, now, error))
        return FALSE;
    }
  else if (!prs_store_set_schedule_enabled (self->store, id, FALSE, now, error))
    return FALSE;
  prs_scheduler_reload (self);
  return TRUE;
}

gboolean
prs_scheduler_remove (PrsScheduler  *self,
                      const char    *id,
                      GError       **error)
{
  g_return_val_if_fail (PRS_IS_SCHEDULER (self), FALSE);
  PRS_ASSERT_MAIN_THREAD ();

  if (!prs_store_remove_schedule (self->store, id, error))
    return FALSE;
  prs_scheduler_reload (self);
  return TRUE;
}

gboolean
prs_scheduler_run_now (PrsScheduler  *self,
                       const char    *id,
                       GError       **error)
{
  g_autoptr(PrsScheduleRow) row = NULL;

  g_return_val_if_fail (PRS_IS_SCHEDULER (self), FALSE);
  PRS_ASSERT_MAIN_THREAD ();

  if ((row = lookup_or_fail (self, id, error)) == NULL)
    return FALSE;
  if (!fire (self, row, PRS_SCHEDULE_FIRE_MANUAL, prs_clock_get_now_seconds (self->clock), 0, 0))
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_STORE, _("The schedule could not run: the database could not be written."));
      return FALSE;
    }
  prs_scheduler_reload (self);

  /* Its agent or conversation was gone: it is off now, and says why */
  g_clear_pointer (&row, prs_schedule_row_free);
  row = prs_store_lookup_schedule (self->store, id, NULL);
  if (row != NULL && !row->enabled && row->problem != NULL)
    {
      g_set_error_literal (error, PRS_ERROR, PRS_ERROR_NOT_FOUND, row->problem);
      return FALSE;
    }
  return TRUE;
}

/* ---- GObject ---- */

static void
prs_scheduler_dispose (GObject *object)
{
  PrsScheduler *self = PRS_SCHEDULER (object);

  if (self->clock != NULL)
    prs_scheduler_stop (self);
  g_clear_object (&self->runner);
  g_clear_object (&self->clock);
  g_clear_object (&self->store);

  G_OBJECT_CLASS (prs_scheduler_parent_class)->dispose (object);
}

static void
prs_scheduler_finalize (GObject *object)
{
  PrsScheduler *self = PRS_SCHEDULER (object);

  g_free (self->fingerprint);

  G_OBJECT_CLASS (prs_scheduler_parent_class)->finalize (object);
}

static void
prs_scheduler_class_init (PrsSchedulerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = prs_scheduler_dispose;
  object_class->finalize = prs_scheduler_finalize;

  /**
   * PrsScheduler::message-added:
   * @conversation_id: the conversation
   * @message_id: a notice or a scheduled prompt it stored
   */
  signals[SIGNAL_MESSAGE_ADDED] =
    g_signal_new ("message-added", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_STRING);
  /**
   * PrsScheduler::message-changed:
   * @conversation_id: the conversation
   * @message_id: a scheduled prompt whose run could not start (now failed)
   */
  signals[SIGNAL_MESSAGE_CHANGED] =
    g_signal_new ("message-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_STRING);
  /**
   * PrsScheduler::changed:
   *
   * Schedules were added, edited, removed or fired (here or by another
   * program): lists of them read the store again.
   */
  signals[SIGNAL_CHANGED] =
    g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
prs_scheduler_init (PrsScheduler *self)
{
}
