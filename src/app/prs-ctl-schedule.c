/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-ctl-schedule.c: `prosponsive-ctl schedule add|list|run|enable|disable
 * |remove` — scheduled prompts (docs/schedules.md) from the command line.
 * The running service sees what this writes because every change is
 * followed by prs_schedule_announce_change (), the stamp it watches; `run`
 * asks it with a flag on the schedule's row and waits a few seconds for it
 * to be taken, then takes the request back and says plainly that nothing
 * runs Prosponsive. */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <glib/gi18n.h>

#include "prs-clock.h"
#include "prs-ctl.h"
#include "prs-error.h"
#include "prs-json.h"
#include "prs-schedule.h"

/* How long `schedule run` waits for the running service to take the request */
#define RUN_WAIT_SECONDS 5

typedef struct
{
  char     *name;
  char     *conversation;
  char     *agent;
  char     *prompt;
  char     *at;
  char     *every;
  char     *daily;
  char     *days;
  gint      monthly;
  char     *time;
  char     *context_file;
  char     *missed;
  gboolean  json;
} Options;

static void
options_clear (Options *options)
{
  g_free (options->name);
  g_free (options->conversation);
  g_free (options->agent);
  g_free (options->prompt);
  g_free (options->at);
  g_free (options->every);
  g_free (options->daily);
  g_free (options->days);
  g_free (options->time);
  g_free (options->context_file);
  g_free (options->missed);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Options, options_clear)

/* Bad values a person typed: exit 2; the store's answers: 1 or 75 */
static int
fail_input (const GError *error)
{
  if (g_error_matches (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT) ||
      g_error_matches (error, PRS_ERROR, PRS_ERROR_TOO_LARGE))
    {
      g_printerr ("%s\n", error->message);
      return PRS_CTL_EXIT_USAGE;
    }
  return prs_ctl_fail (error);
}

static gboolean
invalid (GError    **error,
         const char *message)
{
  g_set_error_literal (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT, message);
  return FALSE;
}

static char *
format_unix (gint64     t,
             GTimeZone *tz)
{
  return prs_schedule_format_time (t, tz);
}

static char *
iso_utc (gint64 t)
{
  g_autoptr(GDateTime) dt = g_date_time_new_from_unix_utc (t);

  return g_date_time_format (dt, "%Y-%m-%dT%H:%M:%SZ");
}

/* The recurrence the options name: exactly one of --at, --every, --daily,
 * --monthly */
static gboolean
recurrence_from_options (const Options  *options,
                         GTimeZone      *tz,
                         PrsRecurrence  *out,
                         GError        **error)
{
  guint given = (options->at != NULL) + (options->every != NULL) + (options->daily != NULL) + (options->monthly >= 0);

  memset (out, 0, sizeof *out);
  if (given != 1)
    return invalid (error, _("Say when, once: --at, --every, --daily or --monthly."));
  if ((options->days != NULL && options->daily == NULL) || (options->time != NULL && options->monthly < 0))
    return invalid (error, _("--days goes with --daily, --time with --monthly."));
  if (options->at != NULL)
    {
      out->kind = PRS_RECURRENCE_ONCE;
      return prs_recurrence_parse_at (options->at, tz, &out->at, error);
    }
  if (options->every != NULL)
    {
      out->kind = PRS_RECURRENCE_EVERY;
      return prs_recurrence_parse_every (options->every, &out->minutes, error);
    }
  if (options->daily != NULL)
    {
      out->kind = PRS_RECURRENCE_DAILY;
      out->weekdays = PRS_WEEKDAYS_ALL;
      return prs_recurrence_parse_time (options->daily, &out->hour, &out->minute, error) &&
             (options->days == NULL || prs_recurrence_parse_days (options->days, &out->weekdays, error));
    }
  out->kind = PRS_RECURRENCE_MONTHLY;
  out->day = (guint) options->monthly;
  if (options->time == NULL)
    return invalid (error, _("--monthly needs --time HH:MM."));
  return prs_recurrence_parse_time (options->time, &out->hour, &out->minute, error) &&
         prs_recurrence_check (out, error);
}

static void
print_next (const PrsScheduleRow *row,
            GTimeZone            *tz)
{
  g_autofree char *when = NULL;
  gint64 next;

  if (!row->enabled)
    g_print (_("It is off.\n"));
  else if (prs_schedule_next_due (row, tz, &next))
    {
      when = format_unix (next, tz);
      /* Translators: %s is a date and time */
      g_print (_("Next run: %s.\n"), when);
    }
  else
    g_print (_("It has no run to come.\n"));
}

static int
schedule_add (PrsCtl        *ctl,
              const Options *options)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsClock) clock = prs_clock_new_from_environment ();
  g_autoptr(PrsStore) store = NULL;
  g_autofree char *context = NULL;
  g_autofree char *description = NULL;
  g_autoptr(PrsScheduleRow) row = g_new0 (PrsScheduleRow, 1);
  PrsRecurrence recurrence;
  gsize length = 0;

  if (!recurrence_from_options (options, prs_clock_get_timezone (clock), &recurrence, &error))
    return fail_input (error);
  if (options->context_file != NULL &&
      !prs_ctl_read_input (options->context_file, PRS_SCHEDULE_MAX_CONTEXT_BYTES, &context, &length, &error))
    {
      g_printerr (_("Could not read “%s”: %s\n"), options->context_file, error->message);
      return PRS_CTL_EXIT_USAGE;
    }

  row->name = g_strdup (options->name);
  row->conversation_slug = g_strdup (options->conversation);
  row->agent_id = g_strdup (options->agent);
  row->prompt = g_strdup (options->prompt);
  row->context_json = g_steal_pointer (&context);
  row->recurrence_json = prs_recurrence_to_json (&recurrence);
  row->enabled = TRUE;
  row->missed = g_strdup (options->missed != NULL ? options->missed : PRS_SCHEDULE_MISSED_RUN);

  if ((store = prs_ctl_open_store (ctl, &error)) == NULL)
    return prs_ctl_fail (error);
  if (!prs_schedule_prepare (row, NULL, store, prs_clock_get_now_seconds (clock), &error))
    return fail_input (error);
  if (!prs_store_add_schedule (store, row, NULL, &error))
    return prs_ctl_fail (error);
  prs_schedule_announce_change (store);

  description = prs_recurrence_describe (&recurrence, prs_clock_get_timezone (clock));
  /* Translators: a schedule's name, when it runs, a conversation's name, an agent's id */
  g_print (_("Added “%s”: %s, in “%s”, by agent “%s”.\n"), row->name, description, row->conversation_slug,
           row->agent_id);
  print_next (row, prs_clock_get_timezone (clock));
  return EXIT_SUCCESS;
}

/* ---- list ---- */

static JsonNode *
row_to_json (const PrsScheduleRow *row,
             GTimeZone            *tz)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) recurrence = prs_json_parse_bounded (row->recurrence_json, strlen (row->recurrence_json), 8, NULL);
  g_autoptr(JsonNode) context = NULL;
  g_autofree char *next_text = NULL;
  g_autofree char *last_text = NULL;
  gint64 next;

  if (row->context_json != NULL)
    context = prs_json_parse_bounded (row->context_json, strlen (row->context_json), PRS_JSON_DEFAULT_MAX_DEPTH, NULL);
  if (row->enabled && prs_schedule_next_due (row, tz, &next))
    next_text = iso_utc (next);
  if (row->last_fired_at != 0)
    last_text = iso_utc (row->last_fired_at);

#define ADD_STRING(key, value) \
  json_builder_set_member_name (builder, key); \
  if ((value) != NULL) json_builder_add_string_value (builder, value); else json_builder_add_null_value (builder);
#define ADD_NODE(key, node) \
  json_builder_set_member_name (builder, key); \
  if ((node) != NULL) json_builder_add_value (builder, json_node_ref (node)); else json_builder_add_null_value (builder);

  json_builder_begin_object (builder);
  ADD_STRING ("id", row->id);
  ADD_STRING ("name", row->name);
  ADD_STRING ("conversation", row->conversation_slug);
  ADD_STRING ("agent", row->agent_id);
  ADD_STRING ("prompt", row->prompt);
  ADD_NODE ("context", context);
  ADD_NODE ("recurrence", recurrence);
  json_builder_set_member_name (builder, "enabled");
  json_builder_add_boolean_value (builder, row->enabled);
  ADD_STRING ("missed", row->missed);
  ADD_STRING ("nextFireAt", next_text);
  ADD_STRING ("lastFiredAt", last_text);
  ADD_STRING ("problem", row->problem);
  ADD_STRING ("createdAt", row->created_at);
  json_builder_end_object (builder);
#undef ADD_STRING
#undef ADD_NODE
  return json_builder_get_root (builder);
}

static void
print_row (const PrsScheduleRow *row,
           GTimeZone            *tz)
{
  PrsRecurrence recurrence;
  g_autofree char *description = NULL;

  description = prs_recurrence_parse (row->recurrence_json, &recurrence, NULL)
                ? prs_recurrence_describe (&recurrence, tz) : g_strdup ("?");
  /* Translators: a schedule's name and whether it is on */
  g_print ("%s (%s)\n", row->name, row->enabled ? _("on") : _("off"));
  /* Translators: when it runs, then a conversation's name and an agent's id */
  g_print (_("  %s, in “%s”, by agent “%s”\n"), description, row->conversation_slug, row->agent_id);
  if (row->problem != NULL)
    g_print ("  %s\n", row->problem);
  g_print ("  ");
  print_next (row, tz);
}

static int
schedule_list (PrsCtl   *ctl,
               gboolean  json)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsClock) clock = prs_clock_new_from_environment ();
  g_autoptr(PrsStore) store = prs_ctl_open_existing_store (ctl, &error);
  g_autoptr(GPtrArray) rows = NULL;
  GTimeZone *tz = prs_clock_get_timezone (clock);

  if (store == NULL || (rows = prs_store_list_schedules (store, &error)) == NULL)
    return prs_ctl_fail (error);

  if (json)
    {
      g_autoptr(JsonArray) array = json_array_new ();
      g_autoptr(JsonNode) node = json_node_new (JSON_NODE_ARRAY);

      for (guint i = 0; i < rows->len; i++)
        json_array_add_element (array, row_to_json (g_ptr_array_index (rows, i), tz));
      json_node_set_array (node, array);
      prs_ctl_print_json (node);
      return EXIT_SUCCESS;
    }
  if (rows->len == 0)
    g_print ("%s\n", _("No schedules."));
  for (guint i = 0; i < rows->len; i++)
    print_row (g_ptr_array_index (rows, i), tz);
  return EXIT_SUCCESS;
}

/* ---- one schedule ---- */

static PrsScheduleRow *
find (PrsStore    *store,
      const char  *name,
      GError     **error)
{
  PrsScheduleRow *row = prs_store_lookup_schedule (store, name, error);

  if (row == NULL && (error == NULL || *error == NULL))
    /* Translators: %s is a schedule's name */
    g_set_error (error, PRS_ERROR, PRS_ERROR_NOT_FOUND, _("There is no schedule “%s”."), name);
  return row;
}

/* Asks the running service to run @row now and waits for it to be taken */
static int
schedule_run (PrsCtl     *ctl,
              PrsStore   *store,
              PrsScheduleRow *row)
{
  g_autoptr(GError) error = NULL;
  gint64 request = g_get_real_time ();
  gint64 deadline = g_get_monotonic_time () + RUN_WAIT_SECONDS * G_USEC_PER_SEC;
  gboolean withdrawn = FALSE;
  g_autoptr(PrsScheduleRow) taken = NULL;

  if (!prs_store_request_schedule_run (store, row->id, request, &error))
    return prs_ctl_fail (error);
  prs_schedule_announce_change (store);
  while (g_get_monotonic_time () < deadline)
    {
      g_autoptr(PrsScheduleRow) now = NULL;

      g_usleep (G_USEC_PER_SEC / 10);
      now = prs_store_lookup_schedule (store, row->id, NULL);
      if (now == NULL || now->run_requested_at != request)
        break;
    }
  if (!prs_store_withdraw_schedule_run (store, row->id, request, &withdrawn, &error))
    return prs_ctl_fail (error);
  if (withdrawn)
    {
      prs_schedule_announce_change (store);
      /* Translators: the first %s is a data folder, the second a schedule's name */
      g_printerr (_("Prosponsive is not running with the data folder “%s”, so “%s” did not run. "
                    "Start Prosponsive (or prosponsive --headless) and try again.\n"),
                  ctl->data_dir, row->name);
      return PRS_CTL_EXIT_NEGATIVE;
    }
  /* Taken, but its agent or conversation is gone: the service turned it off and said why */
  taken = prs_store_lookup_schedule (store, row->id, NULL);
  if (taken != NULL && !taken->enabled && taken->problem != NULL)
    {
      /* Translators: a schedule's name, then why it could not run */
      g_printerr (_("“%s” could not run: %s\n"), row->name, taken->problem);
      return PRS_CTL_EXIT_NEGATIVE;
    }
  /* Translators: a schedule's name, then a conversation's name */
  g_print (_("“%s” runs now in “%s”.\n"), row->name, row->conversation_slug);
  return EXIT_SUCCESS;
}

static int
schedule_enable (PrsCtl         *ctl,
                 PrsStore       *store,
                 PrsScheduleRow *stored)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsClock) clock = prs_clock_new_from_environment ();
  g_autoptr(PrsScheduleRow) row = NULL;

  /* Checked again: its agent may be gone, or its "once" passed */
  if (!prs_schedule_turn_on (store, stored, prs_clock_get_now_seconds (clock), &error))
    return fail_input (error);
  prs_schedule_announce_change (store);
  row = prs_store_lookup_schedule (store, stored->id, NULL);
  /* Translators: %s is a schedule's name */
  g_print (_("“%s” is on.\n"), stored->name);
  if (row != NULL)
    print_next (row, prs_clock_get_timezone (clock));
  return EXIT_SUCCESS;
}

static int
schedule_one (PrsCtl     *ctl,
              const char *verb,
              const char *name)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsStore) store = prs_ctl_open_existing_store (ctl, &error);
  g_autoptr(PrsScheduleRow) row = NULL;

  if (store == NULL || (row = find (store, name, &error)) == NULL)
    return prs_ctl_fail (error);

  if (g_str_equal (verb, "run"))
    return schedule_run (ctl, store, row);
  if (g_str_equal (verb, "enable"))
    return schedule_enable (ctl, store, row);
  if (g_str_equal (verb, "disable"))
    {
      if (!prs_store_set_schedule_enabled (store, row->id, FALSE, 0, &error))
        return prs_ctl_fail (error);
      prs_schedule_announce_change (store);
      /* Translators: %s is a schedule's name */
      g_print (_("“%s” is off.\n"), row->name);
      return EXIT_SUCCESS;
    }
  if (!prs_store_remove_schedule (store, row->id, &error))
    return prs_ctl_fail (error);
  prs_schedule_announce_change (store);
  /* Translators: a schedule's name, then a conversation's name */
  g_print (_("Removed “%s”; its messages stay in “%s”.\n"), row->name, row->conversation_slug);
  return EXIT_SUCCESS;
}

int
prs_ctl_cmd_schedule (PrsCtl  *ctl,
                      int      argc,
                      char   **argv)
{
  g_auto(Options) options = { .monthly = -1 };
  GOptionEntry entries[] = {
    { "name", 0, 0, G_OPTION_ARG_STRING, &options.name, N_("add: the schedule's name"), N_("NAME") },
    { "conversation", 0, 0, G_OPTION_ARG_STRING, &options.conversation, N_("add: the conversation (made on the first run when missing)"), N_("SLUG") },
    { "agent", 0, 0, G_OPTION_ARG_STRING, &options.agent, N_("add: the agent's id"), N_("ID") },
    { "prompt", 0, 0, G_OPTION_ARG_STRING, &options.prompt, N_("add: what the agent is asked"), N_("TEXT") },
    { "at", 0, 0, G_OPTION_ARG_STRING, &options.at, N_("add: once, at this local time (2026-03-01T09:00)"), N_("TIME") },
    { "every", 0, 0, G_OPTION_ARG_STRING, &options.every, N_("add: every N minutes or hours (30m, 2h)"), N_("N") },
    { "daily", 0, 0, G_OPTION_ARG_STRING, &options.daily, N_("add: every day at HH:MM"), N_("HH:MM") },
    { "days", 0, 0, G_OPTION_ARG_STRING, &options.days, N_("add: with --daily, only these days (mon,tue,…)"), N_("DAYS") },
    { "monthly", 0, 0, G_OPTION_ARG_INT, &options.monthly, N_("add: every month on day N (a shorter month: its last day)"), N_("N") },
    { "time", 0, 0, G_OPTION_ARG_STRING, &options.time, N_("add: with --monthly, at HH:MM"), N_("HH:MM") },
    { "context-file", 0, 0, G_OPTION_ARG_FILENAME, &options.context_file, N_("add: the Request Context, a JSON object (- for standard input)"), N_("FILE") },
    { "missed", 0, 0, G_OPTION_ARG_STRING, &options.missed, N_("add: a run missed while Prosponsive was not running: run (once, at start) or skip"), N_("run|skip") },
    { "json", 0, 0, G_OPTION_ARG_NONE, &options.json, N_("list: print JSON"), NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context =
    g_option_context_new (_("add|list|run NAME|enable NAME|disable NAME|remove NAME — scheduled prompts"));
  g_autoptr(GError) error = NULL;
  const char *verb;

  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return prs_ctl_usage_error (context, error->message);
  if (argc < 2)
    return prs_ctl_usage_error (context, _("Say what to do: add, list, run, enable, disable or remove."));

  verb = argv[1];
  if (g_str_equal (verb, "add") && argc == 2)
    {
      if (options.name == NULL || options.conversation == NULL || options.agent == NULL || options.prompt == NULL)
        return prs_ctl_usage_error (context, _("A schedule needs --name, --conversation, --agent and --prompt."));
      return schedule_add (ctl, &options);
    }
  if (g_str_equal (verb, "list") && argc == 2)
    return schedule_list (ctl, options.json);
  if ((g_str_equal (verb, "run") || g_str_equal (verb, "enable") || g_str_equal (verb, "disable") ||
       g_str_equal (verb, "remove")) && argc == 3)
    return schedule_one (ctl, verb, argv[2]);

  return prs_ctl_usage_error (context, _("Use “schedule add --name N --conversation SLUG --agent ID --prompt TEXT "
                                         "(--at TIME | --every 30m | --daily 07:30 [--days mon,tue] | --monthly 1 "
                                         "--time 09:00) [--context-file F] [--missed run|skip]”, “schedule list "
                                         "[--json]”, or “schedule run|enable|disable|remove NAME”."));
}
