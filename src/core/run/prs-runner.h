/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-runner.h: schedules agent runs (prs-run.h) on the main thread, and
 * does nothing else: at most PRS_RUNNER_MAX_ACTIVE runs work at once
 * (in-app runs beyond that wait their turn; the API answers 429), approvals
 * and retries are routed to their run, and unfinished runs are picked up
 * again after a restart. Its runs' message-added, message-changed and
 * approval-needed (and workflow-gone) are forwarded as its own, with the
 * message-added of the API calls' inbound messages it stores, so that the
 * app listens in one place; run-changed (PrsRun *) says a run started working, rested or
 * ended. Everything here belongs to the main thread, except the functions
 * marked thread-safe. */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "prs-run.h"

G_BEGIN_DECLS

#define PRS_RUNNER_MAX_ACTIVE          4

#define PRS_TYPE_RUNNER (prs_runner_get_type ())
G_DECLARE_FINAL_TYPE (PrsRunner, prs_runner, PRS, RUNNER, GObject)

/* Runs are made with @env (its store also answers which run a tool call
 * belongs to, and what to resume). */
PrsRunner  *prs_runner_new                   (PrsRunEnv           *env);
/* The limits of the runs started from now on (settings changed); runs
 * under way keep theirs. */
void        prs_runner_set_limits            (PrsRunner           *self,
                                              const PrsRunLimits  *limits);

/* Thread-safe. Takes one of the PRS_RUNNER_MAX_ACTIVE slots for a run that
 * is about to start (the API thread's 429 decision); FALSE when all are
 * taken. Hand it to prs_runner_start (reserved = TRUE), or give it back. */
gboolean    prs_runner_try_reserve           (PrsRunner  *self);
void        prs_runner_release_reservation   (PrsRunner  *self);
/* Thread-safe: runs working now (not resting), reservations included. */
guint       prs_runner_get_n_active          (PrsRunner  *self);

/* Starts a run (a new reference). @reserved: a slot was taken with prs_runner_try_reserve.
 * Without one, the run waits for a free slot. Fails with
 * PRS_ERROR_NOT_FOUND for an unknown conversation or agent. */
PrsRun     *prs_runner_start                 (PrsRunner            *self,
                                              const PrsRunOptions  *options,
                                              gboolean              reserved,
                                              GError              **error);
/* An API call's inbound message (docs/api.md), stored on the runs' own
 * store before its run starts: the message and its conversation's agent
 * (a conversation without one takes @message->agent_id) in one commit that
 * does not wait for the disk; whoever tells of it first makes sure that
 * commit, *@out_commit, is on the disk (prs_store_sync ()). Emits
 * message-added. Fails as prs_store_insert_message () does (a dedup key
 * already stored: PRS_ERROR_INVALID_INPUT). */
gboolean    prs_runner_add_inbound           (PrsRunner               *self,
                                              const PrsMessageInsert  *message,
                                              guint64                 *out_commit,
                                              GError                 **error);
/* An in-app chat run on the conversation's latest user message (a new
 * reference). */
PrsRun     *prs_runner_start_chat            (PrsRunner   *self,
                                              const char  *conversation_id,
                                              const char  *agent_id,
                                              GError     **error);
/* Loads the unfinished runs of the store: pending approvals stay pending,
 * calls that were running become "interrupted" (Retry), model calls that
 * were cut are made again. Call once, at start. */
void        prs_runner_resume                (PrsRunner  *self);

PrsRun     *prs_runner_lookup_run            (PrsRunner  *self,
                                              const char *run_id);
/* The latest unfinished run of a conversation, or NULL. */
PrsRun     *prs_runner_get_conversation_run  (PrsRunner  *self,
                                              const char *conversation_id);

/* Tool call actions, by the tool-call message's id (or the call's id).
 * @arguments_json: the edited arguments (a JSON object), or NULL to keep
 * them. approve-all approves every proposed call of the same turn. */
gboolean    prs_runner_approve               (PrsRunner   *self,
                                              const char  *message_id,
                                              const char  *arguments_json,
                                              GError     **error);
gboolean    prs_runner_approve_all           (PrsRunner   *self,
                                              const char  *message_id,
                                              const char  *arguments_json,
                                              GError     **error);
gboolean    prs_runner_deny                  (PrsRunner   *self,
                                              const char  *message_id,
                                              GError     **error);
/* What new runs are made with (not a new reference). */
PrsRunEnv  *prs_runner_get_env               (PrsRunner   *self);
/* An MCP client's call nobody decided within @seconds: denied as timed out
 * (prs_run_expire_call). */
gboolean    prs_runner_expire_call           (PrsRunner   *self,
                                              const char  *message_id,
                                              guint        seconds,
                                              GError     **error);
/* The calls of @run_id (an MCP client's) still waiting for a person in
 * @delay seconds are expired then, saying they waited @timeout seconds;
 * @delay 0: now. prs_runner_resume does the same for such runs after a
 * restart, with what is left of their time. */
void        prs_runner_expire_calls_after    (PrsRunner   *self,
                                              const char  *run_id,
                                              guint        timeout,
                                              guint        delay);
/* An MCP client's call the client cancelled while it waited for a person
 * (prs_run_withdraw_call). */
gboolean    prs_runner_withdraw_call         (PrsRunner   *self,
                                              const char  *message_id,
                                              GError     **error);
gboolean    prs_runner_retry                 (PrsRunner   *self,
                                              const char  *message_id,
                                              GError     **error);
/* Starts a new run for an inbound message whose run failed (docs/api.md: kept,
 * marked failed, retryable from the UI), with the conversation, agent,
 * origin, Request Context and execution of its last run (or, without one,
 * the message's own, and the default agent). The message is "pending"
 * until the run rests. Fails with PRS_ERROR_NOT_FOUND for an unknown
 * message and PRS_ERROR_INVALID_INPUT when it is not a failed inbound one. */
PrsRun     *prs_runner_retry_inbound         (PrsRunner   *self,
                                              const char  *message_id,
                                              GError     **error);
/* The UI's tool-action words: approve, approve-all, deny, edit (= approve
 * with arguments), retry, retry-inbound (prs_runner_retry_inbound). */
gboolean    prs_runner_tool_action           (PrsRunner   *self,
                                              const char  *message_id,
                                              const char  *action,
                                              const char  *arguments_json,
                                              GError     **error);
/* Stops a run: its model call and tool calls are cancelled. FALSE when
 * the run waited and its end could not be stored (prs_run_cancel ()): a
 * queued run stays queued. TRUE for a run that is not there (any more). */
gboolean    prs_runner_cancel                (PrsRunner   *self,
                                              const char  *run_id,
                                              GError     **error);

/* Waits until no run is active (tests, shutdown). */
gboolean    prs_runner_is_idle               (PrsRunner  *self);

G_END_DECLS
