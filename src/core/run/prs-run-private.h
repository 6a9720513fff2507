/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-run-private.h: the run's struct and what its files share:
 * prs-run.c (the state machine), prs-run-prompt.c (the prompt and the
 * history), prs-run-tools.c (the tool round) and prs-run-answer.c (the
 * API's answer). Nothing outside run/ includes it. */
#pragma once

#include "prs-agent.h"
#include "prs-provider.h"
#include "prs-run.h"
#include "prs-tool-call.h"

G_BEGIN_DECLS

/* What storing a model call's end changes of the run in memory before its
 * transaction is committed, to put back when it is not: the run then
 * keeps the answer and stores it again later (prs-run.c, store_model_end).
 * The strings are the run's own, taken, not copied: nothing is allocated
 * for an end whose commit works */
typedef struct
{
  guint     transcript_length;
  int       round;
  gboolean  start_waiting;        /* the run's row waited to be stored with it */
  gboolean  message_replaced;     /* … the row's reply message was replaced: */
  char     *assistant_message_id; /* the one before */
  gboolean  transcript_replaced;  /* … the row's stored transcript text was: */
  char     *transcript_json;      /* the one before */
  gboolean  rested;               /* the end rests the run: said once committed */
  gboolean  finished;             /* … and changed its stop reason and error */
  char     *was[3];               /* … the row's status, stop reason, error before */
} PrsRunEndUndo;

struct _PrsRun
{
  GObject       parent_instance;

  PrsRunEnv    *env;
  PrsRunRow    *row;
  PrsAgent     *agent;
  JsonObject   *context;       /* cleaned; may be NULL */
  JsonArray    *transcript;
  char         *slug;
  GCancellable *cancellable;
  GList        *waiters;       /* GTask* */
  GHashTable   *executing;     /* tool call ids with a call in flight */
  gboolean      detached;      /* nothing is written or emitted any more */
  gboolean      working;       /* between prs_run_begin () or PrsRun::working and a rest */
  gboolean      check_tools;   /* a new run: say at its first begin which tools it lacks */
  gboolean      model_in_flight;
  gboolean      cancel_requested;
  gboolean      batch_open;    /* its writes go into one store batch (prs-run-record.c) */
  gboolean      row_later;     /* … whose first write of the row takes a waiting start */
  gboolean      batch_lost;    /* a batch could not begin: nothing is written until its end */
  GError       *unsaved;       /* the first write of that batch (or lost one) that failed */
  /* What the open batch wrote, said to the views once it is committed
   * (Announcement*, prs-run-record.c) */
  GPtrArray    *announcements;
  GError       *rest_unsaved;  /* the last rest was not stored: its answer is this error */
  guint         start_save_id; /* a new run's row waits to be stored (prs-run-record.c) */
  /* A finished model call's attempts, recorded once the row they refer to
   * is written in the call's transaction (borrowed, prs-run-record.c) */
  GPtrArray    *held_attempts;
  PrsChatResponse *held_response;
  gboolean      held_cancelled;
  /* A model call whose end could not begin to be stored (the database
   * busy): kept, and stored again later (prs-run.c); one of the
   * answer and the error is set while it is kept */
  PrsChatResponse *end_response;
  GError       *end_error;
  GPtrArray    *end_attempts;
  PrsRunEndUndo *end_undo;     /* while such an end's transaction is open */
  /* … and so are the results of calls that nobody posted back
   * (KeptResult*, prs-run.c) */
  GPtrArray    *kept_results;
  guint         end_retry_id;
  guint         end_retry_ms;

  /* The reply streaming now */
  GString      *stream_text;
  char         *stream_message_id;
  gint64        last_flush;
  guint         flush_id;
  gint64        model_started;   /* monotonic µs: the model call went out */
  gint64        first_token;     /* … its first text came; 0 before */
  gint64        model_ended;     /* … its answer or failure came (not when stored) */
};

/* The files of a run, each calling only those below it:
 *   prs-run.c          the GObject, the state machine, the model call
 *   prs-run-prompt.c   what is sent to the model
 *   prs-run-tools.c    the tool round, the hygiene
 *   prs-run-answer.c   the API's answer, from the store or the run, and
 *                      waiting for a rest to give it
 *   prs-run-record.c   what the run writes, and the signals that say so */

/* prs-run-record.c */
void        _prs_run_install_signals  (GObjectClass *klass);
JsonNode   *_prs_run_parse_stored     (const char   *text);
JsonObject *_prs_run_parse_object     (const char   *text);
void        _prs_run_emit_message_changed (PrsRun     *self,
                                           const char *message_id);
void        _prs_run_emit_approval_needed (PrsRun     *self,
                                           const char *message_id,
                                           const char *tool_name);
void        _prs_run_emit_workflow_gone (PrsRun     *self,
                                         const char *tool_name);
void        _prs_run_save             (PrsRun       *self);
/* A new run's row is stored with its first write, or 250 ms later,
 * whichever comes first */
void        _prs_run_defer_start      (PrsRun       *self);
void        _prs_run_save_start       (PrsRun       *self);
/* FALSE when the batch could not begin (the database busy, full):
 * nothing is written until _prs_run_batch_end (), and the caller keeps
 * what it was to store, or refuses, with self->unsaved (docs/storage.md) */
gboolean    _prs_run_batch_begin      (PrsRun       *self,
                                       PrsStoreSync  sync);
/* The same, but a start still waiting goes into the batch's first write
 * of the row, not a write of its own before it */
gboolean    _prs_run_batch_begin_row_later (PrsRun       *self,
                                            PrsStoreSync  sync);
/* TRUE when the run writes nothing now: detached, or in a batch that
 * could not begin */
gboolean    _prs_run_writes_refused   (PrsRun       *self);
/* A write failed: inside a batch, the batch's state is not all stored
 * (and the rest that ends it answers with @error) */
void        _prs_run_note_unsaved     (PrsRun       *self,
                                       const GError *error);
/* FALSE when the batch open was not committed */
gboolean    _prs_run_batch_end        (PrsRun       *self);
/* Ends the batch: committed when every write of it worked, else nothing
 * of it is stored. TRUE when it was committed */
gboolean    _prs_run_batch_end_whole  (PrsRun       *self);
char       *_prs_run_insert_message   (PrsRun       *self,
                                       const char   *kind,
                                       const char   *content,
                                       const char   *status,
                                       JsonObject   *extra);
void        _prs_run_update_message   (PrsRun       *self,
                                       const char   *message_id,
                                       const char   *status,
                                       const char   *content,
                                       JsonObject   *extra);
void        _prs_run_add_notice       (PrsRun       *self,
                                       const char   *text);
/* Every attempt of a finished model call (@attempts, of
 * prs_providers_get_attempts) for Insights; @response is the answer or
 * NULL. Held (both borrowed) until the batch next writes the run's row,
 * which they refer to; _prs_run_record_held_model_calls () records them
 * if nothing has, before the batch ends */
void        _prs_run_hold_model_calls (PrsRun          *self,
                                       GPtrArray       *attempts,
                                       PrsChatResponse *response,
                                       gboolean         cancelled);
void        _prs_run_record_held_model_calls (PrsRun      *self);
/* Adds to an answer's extra data how the model call went: timing
 * {firstTokenMs, totalMs}, and failover [{providerId, providerName,
 * error}] for the providers that failed before one answered (@attempts:
 * PrsProviderAttempt*, may be NULL). */
void        _prs_run_note_model_call  (PrsRun       *self,
                                       JsonObject   *extra,
                                       GPtrArray    *attempts);
void        _prs_run_wake_waiters     (PrsRun       *self);
void        _prs_run_rest             (PrsRun       *self,
                                       const char   *status);
/* The model call's end rested the run (@undo) in a transaction now
 * ended: with @said, the rest is said (its answer @refused, the error
 * that kept part of it from being stored, or NULL); else the row's
 * status, stop reason and error are put back */
void        _prs_run_end_rest         (PrsRun        *self,
                                       PrsRunEndUndo *undo,
                                       gboolean       said,
                                       const GError  *refused);
void        _prs_run_finish           (PrsRun       *self,
                                       const char   *status,
                                       const char   *stop_reason,
                                       const char   *error);
void        _prs_run_set_working      (PrsRun       *self);
JsonObject *_prs_run_last_entry       (PrsRun       *self);

/* prs-run-tools.c */
/* The most tools a model is offered at once (OpenAI's limit; others allow
 * more, no model chooses well among more): the rest are left out, and the
 * run says so. */
#define PRS_RUN_MAX_TOOLS 128

GPtrArray  *_prs_run_allowed_tools    (PrsRun          *self);
void        _prs_run_say_missing_tools (PrsRun         *self);
JsonObject *_prs_run_call_extra       (PrsRun          *self,
                                       PrsToolCallRow  *call,
                                       JsonObject      *provenance);
void        _prs_run_save_call        (PrsRun          *self,
                                       PrsToolCallRow  *call,
                                       const char      *status,
                                       JsonObject      *extra);
void        _prs_run_propose_calls    (PrsRun          *self,
                                       PrsChatResponse *response);
gboolean    _prs_run_decide_call      (PrsRun          *self,
                                       const char      *message_id,
                                       const char      *action,
                                       const char      *arguments_json,
                                       gboolean         whole_turn,
                                       GError         **error);
gboolean    _prs_run_expire_call      (PrsRun          *self,
                                       const char      *message_id,
                                       guint            seconds,
                                       GError         **error);
gboolean    _prs_run_withdraw_call    (PrsRun          *self,
                                       const char      *message_id,
                                       GError         **error);
void        _prs_run_interrupt_calls  (PrsRun          *self);
/* An MCP client's call, not an agent's (PRS_RUN_ORIGIN_MCP_CLIENT) */
gboolean    _prs_run_is_mcp_client    (PrsRun          *self);
/* Runs an approved call; answers, from the main loop, with its result,
 * or NULL once the run is detached */
void        _prs_run_call_tool_async  (PrsRun              *self,
                                       PrsToolCallRow      *call,
                                       GAsyncReadyCallback  callback,
                                       gpointer             user_data);
/* Waits again for the result of the running call @call_id, posted back
 * but not stored; answers as _prs_run_call_tool_async () does */
void        _prs_run_await_result_async (PrsRun              *self,
                                         const char          *call_id,
                                         GAsyncReadyCallback  callback,
                                         gpointer             user_data);
PrsToolCallResult *_prs_run_call_tool_finish (PrsRun        *self,
                                              GAsyncResult  *result,
                                              char         **out_call_id);
/* FALSE when the call is not stored (nothing was written for it) */
gboolean    _prs_run_settle_call      (PrsRun            *self,
                                       const char        *call_id,
                                       PrsToolCallResult *result);
void        _prs_run_feed_results     (PrsRun          *self,
                                       GPtrArray       *calls);

/* prs-run-prompt.c */
PrsChatRequest *_prs_run_build_request    (PrsRun     *self);
void            _prs_run_start_transcript (PrsRun     *self,
                                           gboolean    with_history,
                                           const char *trigger_content);

G_END_DECLS
