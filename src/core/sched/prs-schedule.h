/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-schedule.h: one scheduled prompt (docs/schedules.md) as the store
 * keeps it (PrsScheduleRow), checked before it is saved and asked when it
 * is due next. The editor, prosponsive-ctl and the scheduler use these, so
 * a schedule means the same everywhere. */
#pragma once

#include "prs-recurrence.h"
#include "prs-store-schedules.h"

G_BEGIN_DECLS

#define PRS_SCHEDULE_MAX_NAME_CHARS      100
/* As many characters as the API takes for a slug (docs/api.md) */
#define PRS_SCHEDULE_MAX_SLUG_CHARS      200
#define PRS_SCHEDULE_MAX_PROMPT_BYTES    (256 * 1024)
#define PRS_SCHEDULE_MAX_CONTEXT_BYTES   (64 * 1024)
/* A due time noticed later than this (seconds) was missed: the computer
 * slept, or nothing ran */
#define PRS_SCHEDULE_GRACE_SECONDS       120

/* Where another program says that it changed the schedules: a stamp file
 * in a folder of its own beside the database (docs/storage.md), so that
 * the running service watches a folder nothing else writes to, not the
 * database's (every commit would wake the watch) */
#define PRS_SCHEDULE_CHANGES_DIR         "changes"
#define PRS_SCHEDULE_CHANGES_FILE        "schedules"

/* The stamp's path for the database of @store; its folder is made (0700)
 * when @ensure_folder. NULL when it cannot be made (@error set). */
char      *prs_schedule_changes_path   (PrsStore              *store,
                                        gboolean               ensure_folder,
                                        GError               **error);
/* Tells a running service that the schedules of @store changed: writes the
 * stamp (0600). Call it after the change is committed. A stamp that cannot
 * be written is logged only: the change is stored, and the service sees it
 * when it looks next. */
void       prs_schedule_announce_change (PrsStore             *store);

/* Checks @row and makes it ready to store, against @stored (the row as it
 * is stored now, or NULL for a new one) at @now (unix seconds): name and
 * slug trimmed and in range, the agent existing in @store, a prompt, the
 * Request Context one strict JSON object, the recurrence valid (a "once"
 * still to come), missed "run" or "skip". It also sets base_at (now for a
 * new schedule, a changed recurrence or one turned on; else the stored
 * one), the conversation's id (when a conversation has the slug) and clears
 * the problem of one turned on. PRS_ERROR_INVALID_INPUT (or
 * PRS_ERROR_NOT_FOUND for the agent) with a sentence for people. */
gboolean   prs_schedule_prepare        (PrsScheduleRow        *row,
                                        const PrsScheduleRow  *stored,
                                        PrsStore              *store,
                                        gint64                 now,
                                        GError               **error);
/* Turns @stored on, checked again as prs_schedule_prepare () does (its
 * agent may be gone, its "once" passed): from @now on it is due. */
gboolean   prs_schedule_turn_on        (PrsStore              *store,
                                        const PrsScheduleRow  *stored,
                                        gint64                 now,
                                        GError               **error);
/* @text as a Request Context: NULL or blank is none (*@out_json NULL);
 * otherwise one strict JSON object, compact in *@out_json. */
gboolean   prs_schedule_check_context  (const char            *text,
                                        char                 **out_json,
                                        GError               **error);

/* The first due time after what @row handled (base_at, last_fired_at), in
 * @tz, whether or not it is on; FALSE when there is none (a "once" that
 * ran) or the recurrence cannot be read. */
gboolean   prs_schedule_next_due       (const PrsScheduleRow  *row,
                                        GTimeZone             *tz,
                                        gint64                *out);
/* Up to @n due times after @after, counting "every" from @anchor; the
 * number found. */
guint      prs_schedule_preview        (const PrsRecurrence   *recurrence,
                                        gint64                 anchor,
                                        gint64                 after,
                                        GTimeZone             *tz,
                                        gint64                *out,
                                        guint                  n);
/* "Mon 2 Mar 2026, 07:30 CET": a time as schedules show it (translated
 * format), with the zone's abbreviation, so the hour repeated or skipped by
 * daylight saving reads right. */
char      *prs_schedule_format_time    (gint64                 t,
                                        GTimeZone             *tz);

G_END_DECLS
