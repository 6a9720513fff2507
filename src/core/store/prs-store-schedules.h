/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-store-schedules.h: the store's scheduled prompts (docs/schedules.md;
 * src/core/sched/ reckons when they are due and fires them). */
#pragma once

#include "prs-store.h"

G_BEGIN_DECLS

/* One scheduled prompt. Times that decide when it is due are unix seconds. */
typedef struct
{
  char     *id;
  char     *name;               /* unique, ignoring case */
  char     *conversation_slug;  /* the conversation, made on the first run when missing */
  char     *conversation_id;    /* once it exists; NULL before */
  char     *agent_id;
  char     *prompt;
  char     *context_json;       /* the Request Context (a JSON object), or NULL */
  char     *recurrence_json;    /* prs-recurrence.h */
  gboolean  enabled;
  char     *missed;             /* PRS_SCHEDULE_MISSED_*: what a run missed while nothing ran becomes */
  gint64    base_at;            /* nothing before it is due: saved or turned on then */
  gint64    last_fired_at;      /* the due time handled last; 0: none */
  gint64    run_requested_at;   /* a Run Now that prosponsive-ctl asked for; 0: none */
  char     *problem;            /* why it was turned off (its agent or conversation went), or NULL */
  char     *created_at;         /* ISO 8601 UTC */
  char     *updated_at;
} PrsScheduleRow;

#define PRS_SCHEDULE_MISSED_RUN   "run"
#define PRS_SCHEDULE_MISSED_SKIP  "skip"

void            prs_schedule_row_free            (PrsScheduleRow *row);
PrsScheduleRow *prs_schedule_row_copy            (const PrsScheduleRow *row);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrsScheduleRow, prs_schedule_row_free)

/* PrsScheduleRow*, by name. */
GPtrArray      *prs_store_list_schedules         (PrsStore    *self,
                                                  GError     **error);
/* By id, or else by name (ignoring case); NULL without an error when there
 * is none. */
PrsScheduleRow *prs_store_lookup_schedule        (PrsStore    *self,
                                                  const char  *id_or_name,
                                                  GError     **error);
/* Inserts @row (a new UUID id unless row->id is set). A name in use fails
 * with PRS_ERROR_EXISTS. last_fired_at and run_requested_at start empty. */
gboolean        prs_store_add_schedule           (PrsStore              *self,
                                                  const PrsScheduleRow  *row,
                                                  char                 **out_id,
                                                  GError               **error);
/* Replaces what a person edits of row->id: name, conversation, agent,
 * prompt, Request Context, recurrence, enabled, missed, base_at, problem.
 * PRS_ERROR_NOT_FOUND when it is gone, PRS_ERROR_EXISTS for a name in use. */
gboolean        prs_store_update_schedule        (PrsStore              *self,
                                                  const PrsScheduleRow  *row,
                                                  GError               **error);
/* Turning on sets base_at to @base_at and clears the problem. */
gboolean        prs_store_set_schedule_enabled   (PrsStore    *self,
                                                  const char  *id,
                                                  gboolean     enabled,
                                                  gint64       base_at,
                                                  GError     **error);
/* PRS_ERROR_NOT_FOUND when there is no such schedule. Its messages stay. */
gboolean        prs_store_remove_schedule        (PrsStore    *self,
                                                  const char  *id,
                                                  GError     **error);

/* Run Now from another program (prosponsive-ctl): the running service
 * sees run_requested_at and answers it once. */
gboolean        prs_store_request_schedule_run   (PrsStore    *self,
                                                  const char  *id,
                                                  gint64       requested_at,
                                                  GError     **error);
/* Takes the request back when nobody answered it: *@out_withdrawn is FALSE
 * when the service took it first. */
gboolean        prs_store_withdraw_schedule_run  (PrsStore    *self,
                                                  const char  *id,
                                                  gint64       requested_at,
                                                  gboolean    *out_withdrawn,
                                                  GError     **error);

/* What handling a due time (or a Run Now) is, in schedule_fires.kind */
#define PRS_SCHEDULE_FIRE_DUE          "due"          /* on time */
#define PRS_SCHEDULE_FIRE_MISSED_RUN   "missed-run"   /* missed while nothing ran: run once now */
#define PRS_SCHEDULE_FIRE_MISSED_SKIP  "missed-skip"  /* missed while nothing ran: skipped */
#define PRS_SCHEDULE_FIRE_MANUAL       "manual"       /* Run Now */
#define PRS_SCHEDULE_FIRE_FAILED       "failed"       /* its agent or conversation is gone */

typedef struct
{
  const char             *schedule_id;
  const char             *kind;              /* PRS_SCHEDULE_FIRE_* */
  gint64                  due_at;            /* manual: the time it was asked for */
  gint64                  run_requested_at;  /* manual from prosponsive-ctl: the request answered; else 0 */
  const char             *conversation_id;   /* stored with the schedule when set */
  const PrsMessageInsert *notice;            /* a notice first, or NULL */
  const PrsMessageInsert *message;           /* the prompt, or NULL */
  const char             *problem;           /* turns the schedule off with this reason, or NULL */
} PrsScheduleFire;

/* Handles one due time in one BEGIN IMMEDIATE transaction: the notice and
 * the prompt messages, the schedule_fires row (with the prompt's id) and the
 * schedule's last_fired_at (all but manual). *@out_fired is FALSE, and
 * nothing is written, when it was handled already: a due time not after
 * base_at and last_fired_at, a schedule turned off or gone, a request that
 * is no longer there. Message ids may be NULL. */
gboolean        prs_store_fire_schedule          (PrsStore               *self,
                                                  const PrsScheduleFire  *fire,
                                                  gboolean               *out_fired,
                                                  char                  **out_notice_id,
                                                  char                  **out_message_id,
                                                  GError                **error);
/* The ids of prompt messages that were fired but whose run never began
 * (the program stopped between the two): still pending, no run. */
GPtrArray      *prs_store_list_unstarted_schedule_messages (PrsStore  *self,
                                                  GError     **error);

G_END_DECLS
