/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-recurrence.c: due times of a schedule (prs-recurrence.h), reckoned
 * with GDateTime/GTimeZone: the calendar is walked in local dates, and each
 * candidate wall time becomes an instant by the daylight-saving rules of
 * prs_recurrence_local_instant (). */
#include "config.h"

#include <string.h>
#include <glib/gi18n-lib.h>

#include "prs-error.h"
#include "prs-json.h"
#include "prs-recurrence.h"

static const char * const day_names[] = { "mon", "tue", "wed", "thu", "fri", "sat", "sun" };

/* ---- instants and local dates ---- */

gint64
prs_recurrence_local_instant (GTimeZone *tz,
                              int        year,
                              int        month,
                              int        day,
                              int        hour,
                              int        minute)
{
  g_autoptr(GDateTime) wall = g_date_time_new_utc (year, month, day, hour, minute, 0);
  gint64 daylight, standard;
  int interval;

  g_return_val_if_fail (tz != NULL && wall != NULL, 0);

  /* Adjusted forward out of a gap (to the moment the clock jumps to); a
   * time that occurs twice has two readings, and the earlier one counts.
   * Both readings are taken because some zones (Europe/Dublin) call their
   * winter time the daylight one. */
  daylight = g_date_time_to_unix (wall);
  interval = g_time_zone_adjust_time (tz, G_TIME_TYPE_DAYLIGHT, &daylight);
  daylight -= g_time_zone_get_offset (tz, MAX (interval, 0));
  standard = g_date_time_to_unix (wall);
  interval = g_time_zone_adjust_time (tz, G_TIME_TYPE_STANDARD, &standard);
  standard -= g_time_zone_get_offset (tz, MAX (interval, 0));
  return MIN (daylight, standard);
}

/* The local date of @t */
static void
local_date (gint64     t,
            GTimeZone *tz,
            GDate     *date)
{
  g_autoptr(GDateTime) utc = g_date_time_new_from_unix_utc (t);
  g_autoptr(GDateTime) local = g_date_time_to_timezone (utc, tz);
  int y, m, d;

  g_date_time_get_ymd (local, &y, &m, &d);
  g_date_clear (date, 1);
  g_date_set_dmy (date, (GDateDay) d, (GDateMonth) m, (GDateYear) y);
}

static gint64
instant_on (const PrsRecurrence *self,
            const GDate         *date,
            GTimeZone           *tz)
{
  return prs_recurrence_local_instant (tz, g_date_get_year (date), g_date_get_month (date),
                                       g_date_get_day (date), (int) self->hour, (int) self->minute);
}

static gboolean
is_chosen_day (const PrsRecurrence *self,
               const GDate         *date)
{
  return (self->weekdays & (1u << (g_date_get_weekday (date) - 1))) != 0;
}

/* Day @day of the month of @date, or its last day when it is shorter */
static void
month_day (const PrsRecurrence *self,
           GDate               *date)
{
  guint8 days = g_date_get_days_in_month (g_date_get_month (date), g_date_get_year (date));

  g_date_set_day (date, (GDateDay) MIN (self->day, days));
}

/* ---- due times ---- */

gboolean
prs_recurrence_next (const PrsRecurrence *self,
                     gint64               anchor,
                     gint64               after,
                     GTimeZone           *tz,
                     gint64              *out)
{
  GDate date;
  gint64 t;

  g_return_val_if_fail (self != NULL && tz != NULL && out != NULL, FALSE);

  switch (self->kind)
    {
    case PRS_RECURRENCE_ONCE:
      *out = self->at;
      return self->at > after;

    case PRS_RECURRENCE_EVERY:
      {
        gint64 step = (gint64) self->minutes * 60;

        if (step <= 0)
          return FALSE;
        *out = after < anchor + step ? anchor + step : anchor + ((after - anchor) / step + 1) * step;
        return TRUE;
      }

    case PRS_RECURRENCE_DAILY:
      local_date (after, tz, &date);
      /* A week and a day: a chosen weekday comes, even past a skipped date */
      for (guint i = 0; i < 9 && self->weekdays != 0; i++, g_date_add_days (&date, 1))
        if (is_chosen_day (self, &date) && (t = instant_on (self, &date, tz)) > after)
          {
            *out = t;
            return TRUE;
          }
      return FALSE;

    case PRS_RECURRENCE_MONTHLY:
      local_date (after, tz, &date);
      g_date_set_day (&date, 1);
      for (guint i = 0; i < 14; i++, g_date_add_months (&date, 1))
        {
          GDate day = date;

          month_day (self, &day);
          if ((t = instant_on (self, &day, tz)) > after)
            {
              *out = t;
              return TRUE;
            }
        }
      return FALSE;

    default:
      return FALSE;
    }
}

gboolean
prs_recurrence_last (const PrsRecurrence *self,
                     gint64               anchor,
                     gint64               at_or_before,
                     GTimeZone           *tz,
                     gint64              *out)
{
  GDate date;
  gint64 t = G_MININT64;

  g_return_val_if_fail (self != NULL && tz != NULL && out != NULL, FALSE);

  switch (self->kind)
    {
    case PRS_RECURRENCE_ONCE:
      t = self->at <= at_or_before ? self->at : G_MININT64;
      break;

    case PRS_RECURRENCE_EVERY:
      {
        gint64 step = (gint64) self->minutes * 60;

        if (step > 0 && at_or_before >= anchor + step)
          t = anchor + ((at_or_before - anchor) / step) * step;
        break;
      }

    case PRS_RECURRENCE_DAILY:
      local_date (at_or_before, tz, &date);
      for (guint i = 0; i < 9 && self->weekdays != 0 && g_date_get_julian (&date) > 1;
           i++, g_date_subtract_days (&date, 1))
        {
          gint64 candidate;

          if (is_chosen_day (self, &date) && (candidate = instant_on (self, &date, tz)) <= at_or_before)
            {
              t = candidate;
              break;
            }
        }
      break;

    case PRS_RECURRENCE_MONTHLY:
      local_date (at_or_before, tz, &date);
      g_date_set_day (&date, 1);
      for (guint i = 0; i < 14 && g_date_get_year (&date) > 1; i++, g_date_subtract_months (&date, 1))
        {
          GDate day = date;

          gint64 candidate;

          month_day (self, &day);
          if ((candidate = instant_on (self, &day, tz)) <= at_or_before)
            {
              t = candidate;
              break;
            }
        }
      break;

    default:
      break;
    }

  if (t == G_MININT64 || t <= anchor)
    return FALSE;
  *out = t;
  return TRUE;
}

/* ---- what people type ---- */

static gboolean
invalid (GError    **error,
         const char *format,
         ...) G_GNUC_PRINTF (2, 3);

static gboolean
invalid (GError    **error,
         const char *format,
         ...)
{
  va_list args;
  g_autofree char *message = NULL;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error_literal (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT, message);
  return FALSE;
}

gboolean
prs_recurrence_parse_time (const char  *text,
                           guint       *out_hour,
                           guint       *out_minute,
                           GError     **error)
{
  g_return_val_if_fail (out_hour != NULL && out_minute != NULL, FALSE);

  /* H:MM or HH:MM, nothing else */
  if (text != NULL && g_regex_match_simple ("^[0-9]{1,2}:[0-9]{2}$", text, 0, 0))
    {
      guint hour = (guint) g_ascii_strtoull (text, NULL, 10);
      guint minute = (guint) g_ascii_strtoull (strchr (text, ':') + 1, NULL, 10);

      if (hour < 24 && minute < 60)
        {
          *out_hour = hour;
          *out_minute = minute;
          return TRUE;
        }
    }
  /* Translators: %s is what was typed */
  return invalid (error, _("“%s” is not a time of day: use HH:MM, from 00:00 to 23:59."), text != NULL ? text : "");
}

gboolean
prs_recurrence_parse_days (const char  *text,
                           guint       *out_weekdays,
                           GError     **error)
{
  g_auto(GStrv) parts = NULL;
  guint weekdays = 0;

  g_return_val_if_fail (out_weekdays != NULL, FALSE);

  if (text == NULL || text[0] == '\0')
    return invalid (error, _("Name at least one day: mon, tue, wed, thu, fri, sat, sun."));
  if (g_ascii_strcasecmp (text, "all") == 0)
    weekdays = PRS_WEEKDAYS_ALL;
  else if (g_ascii_strcasecmp (text, "weekdays") == 0)
    weekdays = PRS_WEEKDAYS_WORKDAYS;
  else if (g_ascii_strcasecmp (text, "weekend") == 0)
    weekdays = PRS_WEEKDAYS_ALL & ~PRS_WEEKDAYS_WORKDAYS;
  else
    {
      parts = g_strsplit (text, ",", -1);
      for (guint i = 0; parts[i] != NULL; i++)
        {
          guint bit = G_N_ELEMENTS (day_names);

          for (guint d = 0; d < G_N_ELEMENTS (day_names); d++)
            if (g_ascii_strcasecmp (g_strstrip (parts[i]), day_names[d]) == 0)
              bit = d;
          if (bit == G_N_ELEMENTS (day_names))
            /* Translators: %s is what was typed; the day names are typed as they are */
            return invalid (error, _("“%s” is not a day: use mon, tue, wed, thu, fri, sat or sun."), parts[i]);
          weekdays |= 1u << bit;
        }
    }
  *out_weekdays = weekdays;
  return TRUE;
}

gboolean
prs_recurrence_parse_every (const char  *text,
                            guint       *out_minutes,
                            GError     **error)
{
  gsize n = text != NULL ? strlen (text) : 0;
  guint64 value = 0;
  char *end = NULL;

  g_return_val_if_fail (out_minutes != NULL, FALSE);

  if (n >= 2 && n < 12 && g_ascii_isdigit (text[0]) && (text[n - 1] == 'm' || text[n - 1] == 'h'))
    {
      value = g_ascii_strtoull (text, &end, 10);
      if (end == text + n - 1 && value > 0)
        {
          value *= text[n - 1] == 'h' ? 60 : 1;
          if (value <= PRS_RECURRENCE_MAX_MINUTES)
            {
              *out_minutes = (guint) value;
              return TRUE;
            }
        }
    }
  /* Translators: %s is what was typed */
  return invalid (error, _("“%s” is not an interval: use minutes or hours, such as 30m or 2h, up to a year."),
                  text != NULL ? text : "");
}

gboolean
prs_recurrence_parse_at (const char  *text,
                         GTimeZone   *tz,
                         gint64      *out,
                         GError     **error)
{
  g_autoptr(GDateTime) dt = NULL;

  g_return_val_if_fail (tz != NULL && out != NULL, FALSE);

  if (text != NULL && g_regex_match_simple ("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}"
                                             "(:[0-9]{2}(\\.[0-9]+)?)?(Z|[+-][0-9]{2}(:?[0-9]{2})?)?$", text, 0, 0))
    {
      /* GLib wants the seconds; people leave them out */
      g_autofree char *full = text[16] == ':' ? g_strdup (text) : g_strdup_printf ("%.16s:00%s", text, text + 16);

      dt = g_date_time_new_from_iso8601 (full, tz);
    }
  if (dt == NULL)
    /* Translators: %s is what was typed */
    return invalid (error, _("“%s” is not a date and time: use YYYY-MM-DDTHH:MM, such as 2026-03-01T09:00."),
                    text != NULL ? text : "");
  *out = g_date_time_to_unix (dt);
  return TRUE;
}

/* ---- the stored form ---- */

gboolean
prs_recurrence_check (const PrsRecurrence  *self,
                      GError              **error)
{
  g_return_val_if_fail (self != NULL, FALSE);

  switch (self->kind)
    {
    case PRS_RECURRENCE_ONCE:
      if (self->at <= 0 || self->at > G_GINT64_CONSTANT (253402300799))
        return invalid (error, _("The time to run is not a date between 1970 and 9999."));
      return TRUE;
    case PRS_RECURRENCE_EVERY:
      if (self->minutes < 1 || self->minutes > PRS_RECURRENCE_MAX_MINUTES)
        return invalid (error, _("The interval must be between one minute and a year."));
      return TRUE;
    case PRS_RECURRENCE_DAILY:
    case PRS_RECURRENCE_MONTHLY:
      if (self->hour > 23 || self->minute > 59)
        return invalid (error, _("The time of day must be between 00:00 and 23:59."));
      if (self->kind == PRS_RECURRENCE_DAILY && (self->weekdays == 0 || (self->weekdays & ~PRS_WEEKDAYS_ALL) != 0))
        return invalid (error, _("Choose at least one day of the week."));
      if (self->kind == PRS_RECURRENCE_MONTHLY && (self->day < 1 || self->day > 31))
        return invalid (error, _("The day of the month must be between 1 and 31."));
      return TRUE;
    default:
      return invalid (error, _("The schedule has no kind of recurrence."));
    }
}

/* Only the members of @allowed (NULL-terminated) */
static gboolean
members_are (JsonObject          *object,
             const char * const  *allowed)
{
  g_autoptr(GList) names = json_object_get_members (object);

  for (GList *l = names; l != NULL; l = l->next)
    if (!g_strv_contains (allowed, l->data))
      return FALSE;
  for (guint i = 0; allowed[i] != NULL; i++)
    if (!json_object_has_member (object, allowed[i]))
      return FALSE;
  return TRUE;
}

static const char *
string_member (JsonObject *object,
               const char *name)
{
  JsonNode *node = json_object_get_member (object, name);

  return node != NULL && JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING
         ? json_node_get_string (node) : NULL;
}

static gint64
int_member (JsonObject *object,
            const char *name)
{
  JsonNode *node = json_object_get_member (object, name);

  return node != NULL && JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_INT64
         ? json_node_get_int (node) : -1;
}

static gboolean
days_from_json (JsonNode *node,
                guint    *out)
{
  JsonArray *array;

  if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node))
    return FALSE;
  array = json_node_get_array (node);
  *out = 0;
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *element = json_array_get_element (array, i);
      guint bit = G_N_ELEMENTS (day_names);

      if (!JSON_NODE_HOLDS_VALUE (element) || json_node_get_value_type (element) != G_TYPE_STRING)
        return FALSE;
      for (guint d = 0; d < G_N_ELEMENTS (day_names); d++)
        if (g_strcmp0 (json_node_get_string (element), day_names[d]) == 0)
          bit = d;
      if (bit == G_N_ELEMENTS (day_names) || (*out & (1u << bit)) != 0)
        return FALSE;
      *out |= 1u << bit;
    }
  return TRUE;
}

static gboolean
from_object (JsonObject    *object,
             PrsRecurrence *out)
{
  static const char * const once[] = { "kind", "at", NULL };
  static const char * const every[] = { "kind", "minutes", NULL };
  static const char * const daily[] = { "kind", "time", "days", NULL };
  static const char * const monthly[] = { "kind", "day", "time", NULL };
  const char *kind = string_member (object, "kind");
  g_autoptr(GTimeZone) utc = g_time_zone_new_utc ();
  g_autoptr(GDateTime) at = NULL;

  memset (out, 0, sizeof *out);
  if (g_strcmp0 (kind, "once") == 0 && members_are (object, once))
    {
      out->kind = PRS_RECURRENCE_ONCE;
      /* Written by us with Z; an offset is also read right */
      if (string_member (object, "at") == NULL ||
          (at = g_date_time_new_from_iso8601 (string_member (object, "at"), utc)) == NULL)
        return FALSE;
      out->at = g_date_time_to_unix (at);
      return TRUE;
    }
  if (g_strcmp0 (kind, "every") == 0 && members_are (object, every))
    {
      gint64 minutes = int_member (object, "minutes");

      out->kind = PRS_RECURRENCE_EVERY;
      out->minutes = minutes > 0 && minutes <= PRS_RECURRENCE_MAX_MINUTES ? (guint) minutes : 0;
      return out->minutes > 0;
    }
  if ((g_strcmp0 (kind, "daily") == 0 && members_are (object, daily)) ||
      (g_strcmp0 (kind, "monthly") == 0 && members_are (object, monthly)))
    {
      gint64 day;

      out->kind = g_str_equal (kind, "daily") ? PRS_RECURRENCE_DAILY : PRS_RECURRENCE_MONTHLY;
      if (!prs_recurrence_parse_time (string_member (object, "time"), &out->hour, &out->minute, NULL))
        return FALSE;
      if (out->kind == PRS_RECURRENCE_DAILY)
        return days_from_json (json_object_get_member (object, "days"), &out->weekdays);
      day = int_member (object, "day");
      out->day = day >= 1 && day <= 31 ? (guint) day : 0;
      return out->day > 0;
    }
  return FALSE;
}

gboolean
prs_recurrence_parse (const char     *json,
                      PrsRecurrence  *out,
                      GError        **error)
{
  g_autoptr(JsonNode) node = NULL;

  g_return_val_if_fail (out != NULL, FALSE);

  if (json != NULL)
    node = prs_json_parse_strict (json, strlen (json), 4, NULL);
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node) || !from_object (json_node_get_object (node), out) ||
      !prs_recurrence_check (out, NULL))
    return invalid (error, _("The schedule’s recurrence is not one Prosponsive knows."));
  return TRUE;
}

char *
prs_recurrence_to_json (const PrsRecurrence *self)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *time = NULL;

  g_return_val_if_fail (self != NULL, NULL);

  time = g_strdup_printf ("%02u:%02u", self->hour, self->minute);
  json_builder_begin_object (builder);
  switch (self->kind)
    {
    case PRS_RECURRENCE_ONCE:
      {
        g_autoptr(GDateTime) at = g_date_time_new_from_unix_utc (self->at);
        g_autofree char *text = g_date_time_format (at, "%Y-%m-%dT%H:%M:%SZ");

        json_builder_set_member_name (builder, "kind");
        json_builder_add_string_value (builder, "once");
        json_builder_set_member_name (builder, "at");
        json_builder_add_string_value (builder, text);
        break;
      }
    case PRS_RECURRENCE_EVERY:
      json_builder_set_member_name (builder, "kind");
      json_builder_add_string_value (builder, "every");
      json_builder_set_member_name (builder, "minutes");
      json_builder_add_int_value (builder, self->minutes);
      break;
    case PRS_RECURRENCE_DAILY:
      json_builder_set_member_name (builder, "kind");
      json_builder_add_string_value (builder, "daily");
      json_builder_set_member_name (builder, "time");
      json_builder_add_string_value (builder, time);
      json_builder_set_member_name (builder, "days");
      json_builder_begin_array (builder);
      for (guint d = 0; d < G_N_ELEMENTS (day_names); d++)
        if (self->weekdays & (1u << d))
          json_builder_add_string_value (builder, day_names[d]);
      json_builder_end_array (builder);
      break;
    case PRS_RECURRENCE_MONTHLY:
    default:
      json_builder_set_member_name (builder, "kind");
      json_builder_add_string_value (builder, "monthly");
      json_builder_set_member_name (builder, "day");
      json_builder_add_int_value (builder, self->day);
      json_builder_set_member_name (builder, "time");
      json_builder_add_string_value (builder, time);
      break;
    }
  json_builder_end_object (builder);
  root = json_builder_get_root (builder);
  return prs_json_to_string (root, FALSE);
}

/* ---- what people read ---- */

/* The abbreviated names of the chosen days, in the locale's words */
static char *
describe_days (guint weekdays)
{
  g_autoptr(GString) out = g_string_new (NULL);
  /* 2024-01-01 was a Monday */
  g_autoptr(GDateTime) monday = g_date_time_new_utc (2024, 1, 1, 12, 0, 0);

  for (guint d = 0; d < 7; d++)
    if (weekdays & (1u << d))
      {
        g_autoptr(GDateTime) day = g_date_time_add_days (monday, (int) d);
        g_autofree char *name = g_date_time_format (day, "%a");

        if (out->len > 0)
          /* Translators: between the names of days in a list ("Mon, Wed, Fri") */
          g_string_append (out, _(", "));
        g_string_append (out, name);
      }
  return g_string_free (g_steal_pointer (&out), FALSE);
}

char *
prs_recurrence_describe (const PrsRecurrence *self,
                         GTimeZone           *tz)
{
  g_autofree char *time = NULL;
  g_autofree char *days = NULL;

  g_return_val_if_fail (self != NULL && tz != NULL, NULL);

  time = g_strdup_printf ("%02u:%02u", self->hour, self->minute);
  switch (self->kind)
    {
    case PRS_RECURRENCE_ONCE:
      {
        g_autoptr(GDateTime) utc = g_date_time_new_from_unix_utc (self->at);
        g_autoptr(GDateTime) local = g_date_time_to_timezone (utc, tz);
        /* Translators: a date and time in g_date_time_format () form, as in "Mon 2 Mar 2026, 07:30" */
        g_autofree char *when = g_date_time_format (local, _("%a %-d %b %Y, %H:%M"));

        /* Translators: %s is a date and time */
        return g_strdup_printf (_("Once, on %s"), when);
      }
    case PRS_RECURRENCE_EVERY:
      if (self->minutes % 60 == 0)
        return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "Every hour", "Every %u hours", self->minutes / 60),
                                self->minutes / 60);
      return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "Every minute", "Every %u minutes", self->minutes),
                              self->minutes);
    case PRS_RECURRENCE_DAILY:
      if (self->weekdays == PRS_WEEKDAYS_ALL)
        /* Translators: %s is a time of day (07:30) */
        return g_strdup_printf (_("Every day at %s"), time);
      if (self->weekdays == PRS_WEEKDAYS_WORKDAYS)
        /* Translators: Monday to Friday; %s is a time of day */
        return g_strdup_printf (_("Weekdays at %s"), time);
      days = describe_days (self->weekdays);
      /* Translators: the first %s lists days ("Mon, Wed"), the second is a time of day */
      return g_strdup_printf (C_("days at a time", "%s at %s"), days, time);
    case PRS_RECURRENCE_MONTHLY:
    default:
      if (self->day > 28)
        /* Translators: %u is a day of the month (29–31), %s a time of day */
        return g_strdup_printf (_("Monthly on day %u (or the month’s last day) at %s"), self->day, time);
      /* Translators: %u is a day of the month, %s a time of day */
      return g_strdup_printf (_("Monthly on day %u at %s"), self->day, time);
    }
}
