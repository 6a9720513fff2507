/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-scheduler.h: fires scheduled prompts in the running service
 * (docs/schedules.md). One clock alarm waits for the next due time across
 * all schedules; it is set again after every change, when the wall clock
 * jumps (PrsClock::jumped) and when another program (prosponsive-ctl)
 * changed the database. A due time is handled in one transaction with the
 * messages it makes (prs_store_fire_schedule ()), then the prompt's run
 * starts through the runner like any inbound request's.
 *
 * Signals (main thread):
 *   message-added (conversation_id, message_id)  it stored a message
 *   changed ()   schedules were added, edited, removed or fired
 */
#pragma once

#include "prs-clock.h"
#include "prs-runner.h"
#include "prs-schedule.h"

G_BEGIN_DECLS

#define PRS_TYPE_SCHEDULER (prs_scheduler_get_type ())
G_DECLARE_FINAL_TYPE (PrsScheduler, prs_scheduler, PRS, SCHEDULER, GObject)

PrsScheduler *prs_scheduler_new         (PrsStore        *store,
                                         PrsRunner       *runner,
                                         PrsClock        *clock);
/* Starts the runs of prompts fired before a stop whose run never began,
 * handles what is due (what was missed: by each schedule's missed policy),
 * sets the alarm and watches the database. Call before prs_runner_resume ()
 * (which would mark those prompts interrupted). */
void          prs_scheduler_start       (PrsScheduler    *self);
void          prs_scheduler_stop        (PrsScheduler    *self);

PrsClock     *prs_scheduler_get_clock   (PrsScheduler    *self);
PrsStore     *prs_scheduler_get_store   (PrsScheduler    *self);

/* Checks (prs_schedule_prepare ()) and stores @row: a new schedule when
 * row->id is NULL (*@out_id its id), else an edit of row->id. */
gboolean      prs_scheduler_save        (PrsScheduler    *self,
                                         PrsScheduleRow  *row,
                                         char           **out_id,
                                         GError         **error);
gboolean      prs_scheduler_set_enabled (PrsScheduler    *self,
                                         const char      *id,
                                         gboolean         enabled,
                                         GError         **error);
gboolean      prs_scheduler_remove      (PrsScheduler    *self,
                                         const char      *id,
                                         GError         **error);
/* Runs the schedule's prompt now (its due times stay as they are). */
gboolean      prs_scheduler_run_now     (PrsScheduler    *self,
                                         const char      *id,
                                         GError         **error);
/* Looks at the store again: what is due fires, the alarm is set again. */
void          prs_scheduler_reload      (PrsScheduler    *self);

G_END_DECLS
