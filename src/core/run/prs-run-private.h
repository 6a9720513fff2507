/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-run-private.h: what PrsRun and PrsRunner share. */
#pragma once

#include "prs-run.h"
#include "prs-runner.h"

G_BEGIN_DECLS

/* prs-run.c, for the runner */
PrsRun   *prs_run_new_for_start   (PrsRunner            *runner,
                                   const PrsRunOptions  *options,
                                   GError              **error);
PrsRun   *prs_run_new_for_resume  (PrsRunner            *runner,
                                   PrsRunRow            *row,
                                   GError              **error);
/* The run holds a slot now and goes on (first call, or after a restart) */
void      prs_run_begin           (PrsRun               *self);
void      prs_run_resume_after_restart (PrsRun          *self);
gboolean  prs_run_decide          (PrsRun               *self,
                                   const char           *message_id,
                                   const char           *action,       /* approve, deny, retry */
                                   const char           *arguments_json,
                                   gboolean              whole_turn,
                                   GError              **error);
void      prs_run_cancel          (PrsRun               *self);
/* The runner is going away: no more writes, no more callbacks */
void      prs_run_detach          (PrsRun               *self);
gboolean  prs_run_has_slot        (PrsRun               *self);
void      prs_run_set_has_slot    (PrsRun               *self,
                                   gboolean              has_slot);

/* prs-runner.c, for runs */
void      prs_runner_emit_message_added   (PrsRunner  *self,
                                           const char *conversation_id,
                                           const char *message_id);
void      prs_runner_emit_message_changed (PrsRunner  *self,
                                           const char *conversation_id,
                                           const char *message_id);
void      prs_runner_emit_approval_needed (PrsRunner  *self,
                                           const char *conversation_id,
                                           const char *message_id,
                                           const char *tool_name);
/* A run stopped working (it rests or ended) / wants to work again */
void      prs_runner_run_rested           (PrsRunner  *self,
                                           PrsRun     *run);
void      prs_runner_run_wakes            (PrsRunner  *self,
                                           PrsRun     *run);

G_END_DECLS
