/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Tests for prs-recurrence.c and prs-schedule.c's times: every kind of
 * recurrence, weekdays, month ends, daylight saving in real zones (both
 * directions, and a zone whose winter time is its "daylight" one), the
 * stored JSON read strictly, and what people type. */
#include "config.h"

#include "prs-error.h"
#include "prs-recurrence.h"
#include "prs-schedule.h"

static gint64
utc (int y, int m, int d, int h, int mi)
{
  g_autoptr(GDateTime) dt = g_date_time_new_utc (y, m, d, h, mi, 0);

  return g_date_time_to_unix (dt);
}

static GTimeZone *
zone (const char *id)
{
  GTimeZone *tz = g_time_zone_new_identifier (id);

  g_assert_nonnull (tz);
  return tz;
}

static gint64
next (const PrsRecurrence *r, gint64 anchor, gint64 after, GTimeZone *tz)
{
  gint64 out = 0;

  g_assert_true (prs_recurrence_next (r, anchor, after, tz, &out));
  g_assert_cmpint (out, >, after);
  return out;
}

static void
test_once (void)
{
  g_autoptr(GTimeZone) tz = zone ("Europe/Berlin");
  PrsRecurrence r = { .kind = PRS_RECURRENCE_ONCE, .at = utc (2026, 5, 1, 7, 0) };
  gint64 out = 0;

  g_assert_cmpint (next (&r, 0, utc (2026, 4, 1, 0, 0), tz), ==, utc (2026, 5, 1, 7, 0));
  /* Strictly after: at its own time it is done */
  g_assert_false (prs_recurrence_next (&r, 0, utc (2026, 5, 1, 7, 0), tz, &out));
  g_assert_true (prs_recurrence_last (&r, 0, utc (2026, 6, 1, 0, 0), tz, &out));
  g_assert_cmpint (out, ==, utc (2026, 5, 1, 7, 0));
  g_assert_false (prs_recurrence_last (&r, 0, utc (2026, 4, 30, 0, 0), tz, &out));
  /* Not after the anchor: not due */
  g_assert_false (prs_recurrence_last (&r, utc (2026, 5, 2, 0, 0), utc (2026, 6, 1, 0, 0), tz, &out));
}

static void
test_every (void)
{
  g_autoptr(GTimeZone) tz = zone ("Europe/Berlin");
  PrsRecurrence r = { .kind = PRS_RECURRENCE_EVERY, .minutes = 30 };
  gint64 anchor = utc (2026, 1, 10, 9, 7);
  gint64 out = 0;

  /* Counted from the anchor: anchor + 30 min, + 60 min, … */
  g_assert_cmpint (next (&r, anchor, anchor, tz), ==, anchor + 1800);
  g_assert_cmpint (next (&r, anchor, anchor + 1799, tz), ==, anchor + 1800);
  g_assert_cmpint (next (&r, anchor, anchor + 1800, tz), ==, anchor + 3600);
  g_assert_cmpint (next (&r, anchor, anchor + 10 * 1800 + 5, tz), ==, anchor + 11 * 1800);
  g_assert_true (prs_recurrence_last (&r, anchor, anchor + 10 * 1800 + 5, tz, &out));
  g_assert_cmpint (out, ==, anchor + 10 * 1800);
  g_assert_false (prs_recurrence_last (&r, anchor, anchor + 1799, tz, &out));

  /* Hours are real time across the spring change: 01:00 CET + 2 h is 04:00 CEST */
  r.minutes = 120;
  anchor = utc (2026, 3, 29, 0, 0);
  g_assert_cmpint (next (&r, anchor, anchor, tz), ==, utc (2026, 3, 29, 2, 0));
}

static void
test_daily_weekdays (void)
{
  g_autoptr(GTimeZone) tz = zone ("Europe/Berlin");
  /* Monday and Wednesday at 07:30 */
  PrsRecurrence r = { .kind = PRS_RECURRENCE_DAILY, .hour = 7, .minute = 30, .weekdays = 1 | 4 };
  gint64 out = 0;

  /* 2026-01-06 is a Tuesday; 07:30 CET is 06:30 UTC */
  g_assert_cmpint (next (&r, 0, utc (2026, 1, 6, 12, 0), tz), ==, utc (2026, 1, 7, 6, 30));
  g_assert_cmpint (next (&r, 0, utc (2026, 1, 7, 6, 30), tz), ==, utc (2026, 1, 12, 6, 30));
  /* The same day, before the time */
  g_assert_cmpint (next (&r, 0, utc (2026, 1, 12, 6, 29), tz), ==, utc (2026, 1, 12, 6, 30));
  g_assert_true (prs_recurrence_last (&r, 0, utc (2026, 1, 11, 23, 0), tz, &out));
  g_assert_cmpint (out, ==, utc (2026, 1, 7, 6, 30));

  /* Every day, in summer time (07:30 CEST is 05:30 UTC) */
  r.weekdays = PRS_WEEKDAYS_ALL;
  g_assert_cmpint (next (&r, 0, utc (2026, 7, 1, 6, 0), tz), ==, utc (2026, 7, 2, 5, 30));
}

static void
test_monthly_ends (void)
{
  g_autoptr(GTimeZone) tz = zone ("Europe/Berlin");
  PrsRecurrence r = { .kind = PRS_RECURRENCE_MONTHLY, .day = 31, .hour = 9, .minute = 0 };
  gint64 t = utc (2026, 1, 1, 0, 0);
  static const int days[] = { 31, 28, 31, 30, 31, 30 };
  gint64 out = 0;

  /* Day 31 is each month's last day when it is shorter */
  for (guint i = 0; i < G_N_ELEMENTS (days); i++)
    {
      g_autoptr(GDateTime) at = NULL;
      g_autoptr(GDateTime) local = NULL;

      t = next (&r, 0, t, tz);
      at = g_date_time_new_from_unix_utc (t);
      local = g_date_time_to_timezone (at, tz);
      g_assert_cmpint (g_date_time_get_month (local), ==, (int) i + 1);
      g_assert_cmpint (g_date_time_get_day_of_month (local), ==, days[i]);
      g_assert_cmpint (g_date_time_get_hour (local), ==, 9);
    }
  /* A leap year's February */
  g_assert_cmpint (next (&r, 0, utc (2028, 2, 1, 0, 0), tz), ==, utc (2028, 2, 29, 8, 0));
  /* Day 1, and the last one before a time */
  r.day = 1;
  g_assert_cmpint (next (&r, 0, utc (2026, 12, 1, 8, 0), tz), ==, utc (2027, 1, 1, 8, 0));
  g_assert_true (prs_recurrence_last (&r, 0, utc (2026, 12, 1, 7, 59), tz, &out));
  g_assert_cmpint (out, ==, utc (2026, 11, 1, 8, 0));
}

static void
test_dst_spring (void)
{
  g_autoptr(GTimeZone) tz = zone ("Europe/Berlin");
  PrsRecurrence r = { .kind = PRS_RECURRENCE_DAILY, .hour = 2, .minute = 30, .weekdays = PRS_WEEKDAYS_ALL };
  gint64 t;

  /* 2026-03-29: the clock jumps from 02:00 CET to 03:00 CEST; 02:30 does
   * not exist and is due at 03:00 CEST (01:00 UTC), once */
  t = next (&r, 0, utc (2026, 3, 28, 12, 0), tz);
  g_assert_cmpint (t, ==, utc (2026, 3, 29, 1, 0));
  t = next (&r, 0, t, tz);
  g_assert_cmpint (t, ==, utc (2026, 3, 30, 0, 30));
  /* The day before, in winter time */
  g_assert_cmpint (next (&r, 0, utc (2026, 3, 27, 12, 0), tz), ==, utc (2026, 3, 28, 1, 30));
}

static void
test_dst_autumn (void)
{
  g_autoptr(GTimeZone) berlin = zone ("Europe/Berlin");
  g_autoptr(GTimeZone) dublin = zone ("Europe/Dublin");
  PrsRecurrence r = { .kind = PRS_RECURRENCE_DAILY, .hour = 2, .minute = 30, .weekdays = PRS_WEEKDAYS_ALL };
  gint64 t;

  /* 2026-10-25: 03:00 CEST becomes 02:00 CET; 02:30 happens twice and is
   * due the first time (00:30 UTC) only */
  t = next (&r, 0, utc (2026, 10, 24, 12, 0), berlin);
  g_assert_cmpint (t, ==, utc (2026, 10, 25, 0, 30));
  t = next (&r, 0, t, berlin);
  g_assert_cmpint (t, ==, utc (2026, 10, 26, 1, 30));
  /* From inside the repeated hour, the second 02:30 is not due either */
  g_assert_cmpint (next (&r, 0, utc (2026, 10, 25, 1, 15), berlin), ==, utc (2026, 10, 26, 1, 30));

  /* Dublin calls its winter time the daylight one: still the first 01:30 */
  r.hour = 1;
  g_assert_cmpint (next (&r, 0, utc (2026, 10, 24, 12, 0), dublin), ==, utc (2026, 10, 25, 0, 30));
  g_assert_cmpint (prs_recurrence_local_instant (dublin, 2026, 3, 29, 1, 30), ==, utc (2026, 3, 29, 1, 0));
}

static void
test_json (void)
{
  static const char * const good[] = {
    "{\"kind\":\"once\",\"at\":\"2026-03-01T08:00:00Z\"}",
    "{\"kind\":\"every\",\"minutes\":30}",
    "{\"kind\":\"daily\",\"time\":\"07:30\",\"days\":[\"mon\",\"tue\",\"wed\",\"thu\",\"fri\"]}",
    "{\"kind\":\"monthly\",\"day\":31,\"time\":\"09:00\"}",
  };
  static const char * const bad[] = {
    "", "null", "[]", "{}", "{\"kind\":\"weekly\"}",
    "{\"kind\":\"every\",\"minutes\":0}",
    "{\"kind\":\"every\",\"minutes\":30.5}",
    "{\"kind\":\"every\",\"minutes\":\"30\"}",
    "{\"kind\":\"every\",\"minutes\":527041}",
    "{\"kind\":\"every\",\"minutes\":30,\"extra\":1}",
    "{\"kind\":\"daily\",\"time\":\"24:00\",\"days\":[\"mon\"]}",
    "{\"kind\":\"daily\",\"time\":\"7:5\",\"days\":[\"mon\"]}",
    "{\"kind\":\"daily\",\"time\":\"07:30\",\"days\":[]}",
    "{\"kind\":\"daily\",\"time\":\"07:30\",\"days\":[\"mon\",\"mon\"]}",
    "{\"kind\":\"daily\",\"time\":\"07:30\",\"days\":[\"Monday\"]}",
    "{\"kind\":\"daily\",\"time\":\"07:30\"}",
    "{\"kind\":\"monthly\",\"day\":32,\"time\":\"09:00\"}",
    "{\"kind\":\"monthly\",\"day\":0,\"time\":\"09:00\"}",
    "{\"kind\":\"once\",\"at\":\"tomorrow\"}",
    "{'kind':'every','minutes':30}",
    "{\"kind\":\"every\",\"minutes\":30,}",
    "{\"kind\":\"every\",\"kind\":\"every\",\"minutes\":30} x",
  };

  for (guint i = 0; i < G_N_ELEMENTS (good); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *again = NULL;
      PrsRecurrence r;

      g_assert_true (prs_recurrence_parse (good[i], &r, &error));
      g_assert_no_error (error);
      again = prs_recurrence_to_json (&r);
      g_assert_cmpstr (again, ==, good[i]);
    }
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) error = NULL;
      PrsRecurrence r;

      if (prs_recurrence_parse (bad[i], &r, &error))
        g_error ("accepted %s", bad[i]);
      g_assert_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT);
    }
}

static void
test_typed (void)
{
  g_autoptr(GTimeZone) tz = zone ("Europe/Berlin");
  guint hour = 0, minute = 0, days = 0, minutes = 0;
  gint64 at = 0;
  static const char * const bad_times[] = { "", "7", "24:00", "07:60", "07:5", "07:300", "a7:30", "07-30", " 07:30" };

  g_assert_true (prs_recurrence_parse_time ("07:30", &hour, &minute, NULL));
  g_assert_cmpuint (hour, ==, 7);
  g_assert_cmpuint (minute, ==, 30);
  g_assert_true (prs_recurrence_parse_time ("9:05", &hour, &minute, NULL));
  g_assert_cmpuint (hour, ==, 9);
  for (guint i = 0; i < G_N_ELEMENTS (bad_times); i++)
    g_assert_false (prs_recurrence_parse_time (bad_times[i], &hour, &minute, NULL));

  g_assert_true (prs_recurrence_parse_days ("mon,wed, Fri", &days, NULL));
  g_assert_cmpuint (days, ==, 1 | 4 | 16);
  g_assert_true (prs_recurrence_parse_days ("weekdays", &days, NULL));
  g_assert_cmpuint (days, ==, PRS_WEEKDAYS_WORKDAYS);
  g_assert_false (prs_recurrence_parse_days ("mon,funday", &days, NULL));
  g_assert_false (prs_recurrence_parse_days ("", &days, NULL));

  g_assert_true (prs_recurrence_parse_every ("30m", &minutes, NULL));
  g_assert_cmpuint (minutes, ==, 30);
  g_assert_true (prs_recurrence_parse_every ("2h", &minutes, NULL));
  g_assert_cmpuint (minutes, ==, 120);
  g_assert_false (prs_recurrence_parse_every ("0m", &minutes, NULL));
  g_assert_false (prs_recurrence_parse_every ("30", &minutes, NULL));
  g_assert_false (prs_recurrence_parse_every ("1.5h", &minutes, NULL));
  g_assert_false (prs_recurrence_parse_every ("9000h", &minutes, NULL));

  /* Local time without an offset; an offset or Z as given */
  g_assert_true (prs_recurrence_parse_at ("2026-03-01T09:00", tz, &at, NULL));
  g_assert_cmpint (at, ==, utc (2026, 3, 1, 8, 0));
  g_assert_true (prs_recurrence_parse_at ("2026-03-01T09:00:00Z", tz, &at, NULL));
  g_assert_cmpint (at, ==, utc (2026, 3, 1, 9, 0));
  g_assert_false (prs_recurrence_parse_at ("2026-03-01", tz, &at, NULL));
  g_assert_false (prs_recurrence_parse_at ("next monday", tz, &at, NULL));
}

static void
test_describe_and_preview (void)
{
  g_autoptr(GTimeZone) tz = zone ("Europe/Berlin");
  PrsRecurrence daily = { .kind = PRS_RECURRENCE_DAILY, .hour = 7, .minute = 30, .weekdays = PRS_WEEKDAYS_ALL };
  PrsRecurrence some = { .kind = PRS_RECURRENCE_DAILY, .hour = 7, .minute = 30, .weekdays = 1 | 16 };
  PrsRecurrence every = { .kind = PRS_RECURRENCE_EVERY, .minutes = 120 };
  PrsRecurrence monthly = { .kind = PRS_RECURRENCE_MONTHLY, .day = 31, .hour = 9 };
  g_autofree char *a = prs_recurrence_describe (&daily, tz);
  g_autofree char *b = prs_recurrence_describe (&some, tz);
  g_autofree char *c = prs_recurrence_describe (&every, tz);
  g_autofree char *d = prs_recurrence_describe (&monthly, tz);
  g_autofree char *when = prs_schedule_format_time (utc (2026, 10, 25, 0, 30), tz);
  g_autofree char *again = prs_schedule_format_time (utc (2026, 10, 25, 1, 30), tz);
  gint64 times[5];

  g_assert_cmpstr (a, ==, "Every day at 07:30");
  g_assert_cmpstr (b, ==, "Mon, Fri at 07:30");
  g_assert_cmpstr (c, ==, "Every 2 hours");
  g_assert_cmpstr (d, ==, "Monthly on day 31 (or the month’s last day) at 09:00");
  /* The zone tells the two 02:30s of the autumn change apart */
  g_assert_cmpstr (when, ==, "Sun 25 Oct 2026, 02:30 CEST");
  g_assert_cmpstr (again, ==, "Sun 25 Oct 2026, 02:30 CET");

  g_assert_cmpuint (prs_schedule_preview (&daily, 0, utc (2026, 1, 1, 0, 0), tz, times, 5), ==, 5);
  g_assert_cmpint (times[0], ==, utc (2026, 1, 1, 6, 30));
  g_assert_cmpint (times[4], ==, utc (2026, 1, 5, 6, 30));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/prs/recurrence/once", test_once);
  g_test_add_func ("/prs/recurrence/every", test_every);
  g_test_add_func ("/prs/recurrence/daily-weekdays", test_daily_weekdays);
  g_test_add_func ("/prs/recurrence/monthly-ends", test_monthly_ends);
  g_test_add_func ("/prs/recurrence/dst-spring", test_dst_spring);
  g_test_add_func ("/prs/recurrence/dst-autumn", test_dst_autumn);
  g_test_add_func ("/prs/recurrence/json", test_json);
  g_test_add_func ("/prs/recurrence/typed", test_typed);
  g_test_add_func ("/prs/recurrence/describe-preview", test_describe_and_preview);

  return g_test_run ();
}
