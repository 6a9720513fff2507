/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-recurrence.h: when a schedule is due (docs/schedules.md): once at a
 * time; every N minutes (real time, daylight saving or not); daily at a
 * local HH:MM on chosen weekdays; monthly on day N at a local HH:MM (the
 * month's last day when it is shorter). Times are unix seconds; wall times
 * are read in the time zone handed in.
 *
 * A wall time that daylight saving skips (02:30 when the clock jumps from
 * 02:00 to 03:00) is due at the moment the clock jumps to (03:00); one that
 * occurs twice (02:30 when the clock goes back from 03:00 to 02:00) is due
 * the first time only. */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

typedef enum
{
  PRS_RECURRENCE_ONCE,
  PRS_RECURRENCE_EVERY,
  PRS_RECURRENCE_DAILY,
  PRS_RECURRENCE_MONTHLY,
} PrsRecurrenceKind;

/* Bit (GDateWeekday - 1): Monday is bit 0, Sunday bit 6 */
#define PRS_WEEKDAYS_ALL        0x7f
#define PRS_WEEKDAYS_WORKDAYS   0x1f
/* "every": from one minute to a year */
#define PRS_RECURRENCE_MAX_MINUTES (366 * 24 * 60)

typedef struct
{
  PrsRecurrenceKind kind;
  gint64            at;         /* once: unix seconds */
  guint             minutes;    /* every */
  guint             hour;       /* daily, monthly: local wall time */
  guint             minute;
  guint             weekdays;   /* daily: PRS_WEEKDAYS_* bits, never 0 */
  guint             day;        /* monthly: 1…31 */
} PrsRecurrence;

/* The stored form, JSON (docs/schedules.md):
 *   {"kind":"once","at":"2026-03-01T08:00:00Z"}
 *   {"kind":"every","minutes":30}
 *   {"kind":"daily","time":"07:30","days":["mon","tue","wed","thu","fri"]}
 *   {"kind":"monthly","day":1,"time":"09:00"}
 * Parsed strictly (prs_json_parse_strict); unknown members are refused. */
gboolean    prs_recurrence_parse          (const char           *json,
                                           PrsRecurrence        *out,
                                           GError              **error);
char       *prs_recurrence_to_json        (const PrsRecurrence  *self);
/* Values in range; PRS_ERROR_INVALID_INPUT with a sentence otherwise. */
gboolean    prs_recurrence_check          (const PrsRecurrence  *self,
                                           GError              **error);

/* The first due time after @after (strictly), or FALSE when there is none
 * (a "once" that has passed). "every" counts from @anchor: anchor + N,
 * anchor + 2N, … */
gboolean    prs_recurrence_next           (const PrsRecurrence  *self,
                                           gint64                anchor,
                                           gint64                after,
                                           GTimeZone            *tz,
                                           gint64               *out);
/* The last due time at or before @at_or_before that is after @anchor, or
 * FALSE when there is none. */
gboolean    prs_recurrence_last           (const PrsRecurrence  *self,
                                           gint64                anchor,
                                           gint64                at_or_before,
                                           GTimeZone            *tz,
                                           gint64               *out);
/* The instant a local wall time names, by the rules above. */
gint64      prs_recurrence_local_instant  (GTimeZone            *tz,
                                           int                   year,
                                           int                   month,
                                           int                   day,
                                           int                   hour,
                                           int                   minute);

/* What people read: "Every day at 07:30", "Every 2 hours", … (translated). */
char       *prs_recurrence_describe       (const PrsRecurrence  *self,
                                           GTimeZone            *tz);

/* What people type (the ctl, the editor) */
/* "07:30" (00:00 … 23:59) */
gboolean    prs_recurrence_parse_time     (const char           *text,
                                           guint                *out_hour,
                                           guint                *out_minute,
                                           GError              **error);
/* "mon,tue,…" (also "weekdays", "weekend", "all") */
gboolean    prs_recurrence_parse_days     (const char           *text,
                                           guint                *out_weekdays,
                                           GError              **error);
/* "30m", "2h" */
gboolean    prs_recurrence_parse_every    (const char           *text,
                                           guint                *out_minutes,
                                           GError              **error);
/* "2026-03-01T09:00" (local), or with a UTC offset or Z */
gboolean    prs_recurrence_parse_at       (const char           *text,
                                           GTimeZone            *tz,
                                           gint64               *out,
                                           GError              **error);

G_END_DECLS
