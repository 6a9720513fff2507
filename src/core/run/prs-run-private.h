/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-run-private.h: the run's struct and what its files share:
 * prs-run.c (the state machine), prs-run-prompt.c (the prompt and the
 * history), prs-run-tools.c (the tool round) and prs-run-answer.c (the
 * API's answer). Nothing outside run/ includes it. */
#pragma once

#include "prs-agent.h"
#include "prs-provider.h"
#include "prs-run.h"
#include "prs-runner.h"

G_BEGIN_DECLS

struct _PrsRun
{
  GObject       parent_instance;

  PrsRunner    *runner;        /* not a reference: the runner owns its runs; NULL once detached */
  PrsRunRow    *row;
  PrsAgent     *agent;
  JsonObject   *context;       /* cleaned; may be NULL */
  JsonArray    *transcript;
  char         *slug;
  GCancellable *cancellable;
  GList        *waiters;       /* GTask* */
  GHashTable   *executing;     /* tool call ids with a call in flight */
  gboolean      has_slot;
  gboolean      model_in_flight;
  gboolean      cancel_requested;

  /* The reply streaming now */
  GString      *stream_text;
  char         *stream_message_id;
  gint64        last_flush;
  guint         flush_id;
};

/* prs-run.c: stored JSON, persistence, the loop */
JsonNode   *_prs_run_parse_stored     (const char  *text);
JsonObject *_prs_run_parse_object     (const char  *text);
char       *_prs_run_object_to_string (JsonObject  *object);
gboolean    _prs_run_detached         (PrsRun      *self);
PrsStore   *_prs_run_store            (PrsRun      *self);
void        _prs_run_save             (PrsRun      *self);
char       *_prs_run_insert_message   (PrsRun      *self,
                                       const char  *kind,
                                       const char  *content,
                                       const char  *status,
                                       JsonObject  *extra);
void        _prs_run_update_message   (PrsRun      *self,
                                       const char  *message_id,
                                       const char  *status,
                                       const char  *content,
                                       JsonObject  *extra);
void        _prs_run_add_notice       (PrsRun      *self,
                                       const char  *text);
void        _prs_run_finish           (PrsRun      *self,
                                       const char  *status,
                                       const char  *stop_reason,
                                       const char  *error);
void        _prs_run_set_working      (PrsRun      *self);
JsonObject *_prs_run_last_entry       (PrsRun      *self);
void        _prs_run_advance          (PrsRun      *self);

/* prs-run-prompt.c */
GPtrArray      *_prs_run_allowed_tools (PrsRun    *self);
PrsChatRequest *_prs_run_build_request (PrsRun    *self);
void            _prs_run_add_history   (PrsRun    *self,
                                        JsonArray *transcript,
                                        guint      depth);

/* prs-run-tools.c */
JsonObject *_prs_run_call_extra       (PrsRun          *self,
                                       PrsToolCallRow  *call,
                                       JsonObject      *provenance);
void        _prs_run_save_call        (PrsRun          *self,
                                       PrsToolCallRow  *call,
                                       const char      *status,
                                       JsonObject      *extra);
void        _prs_run_propose_calls    (PrsRun          *self,
                                       PrsChatResponse *response);
void        _prs_run_call_tool        (PrsRun          *self,
                                       PrsToolCallRow  *call);
void        _prs_run_feed_results     (PrsRun          *self,
                                       GPtrArray       *calls);

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
