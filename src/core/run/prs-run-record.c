/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-run-record.c: what a run writes and what it says. Its row (status,
 * transcript) and its messages go to the store, and each change is
 * announced by the run's signals, which are installed here. Every other
 * file of the run writes through these, so that nothing is stored that is
 * not announced, and nothing once the run is detached. */
#include "config.h"

#include <string.h>

#include "prs-json.h"
#include "prs-providers.h"
#include "prs-run-private.h"
#include "prs-store-insights.h"
#include "prs-thread.h"

enum
{
  SIGNAL_MESSAGE_ADDED,
  SIGNAL_MESSAGE_CHANGED,
  SIGNAL_APPROVAL_NEEDED,
  SIGNAL_WORKING,
  SIGNAL_RESTED,
  SIGNAL_WORKFLOW_GONE,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

void
_prs_run_install_signals (GObjectClass *klass)
{
  /**
   * PrsRun::message-added:
   * @conversation_id: the run's conversation
   * @message_id: a message the run stored (a reply, a tool call, a result, a notice)
   */
  signals[SIGNAL_MESSAGE_ADDED] =
    g_signal_new ("message-added", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_STRING);
  /**
   * PrsRun::message-changed:
   * @conversation_id: the run's conversation
   * @message_id: a message whose status, text or extra data the run changed
   *   (its trigger message among them)
   */
  signals[SIGNAL_MESSAGE_CHANGED] =
    g_signal_new ("message-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_STRING);
  /**
   * PrsRun::approval-needed:
   * @conversation_id: the run's conversation
   * @message_id: the tool-call message that waits for a person
   * @tool_name: the tool
   */
  signals[SIGNAL_APPROVAL_NEEDED] =
    g_signal_new ("approval-needed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 3, G_TYPE_STRING, G_TYPE_STRING, G_TYPE_STRING);
  /**
   * PrsRun::working:
   *
   * The run works again on its own, after it rested or was resumed: a
   * person decided, a call is retried. Not emitted by prs_run_begin (),
   * whose caller knows.
   */
  signals[SIGNAL_WORKING] =
    g_signal_new ("working", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  /**
   * PrsRun::rested:
   *
   * The run stopped working: it waits for a person, or it ended
   * (prs_run_is_finished ()). Its waiters are woken after the handlers.
   */
  signals[SIGNAL_RESTED] =
    g_signal_new ("rested", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  /**
   * PrsRun::workflow-gone:
   * @tool_name: the tool whose webhook n8n does not know any more (404)
   *
   * Whoever owns discovery runs it again, so the tool stops being offered.
   */
  signals[SIGNAL_WORKFLOW_GONE] =
    g_signal_new ("workflow-gone", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
}

/* ---- stored JSON ---- */

/* Stored JSON text (a row's column), to read, not to change: NULL when
 * absent or not JSON */
JsonNode *
_prs_run_parse_stored (const char *text)
{
  if (text == NULL)
    return NULL;
  return prs_json_parse_bounded (text, strlen (text), PRS_JSON_DEFAULT_MAX_DEPTH, NULL);
}

/* …and when it must be an object (options, arguments, execution) */
JsonObject *
_prs_run_parse_object (const char *text)
{
  g_autoptr(JsonNode) node = _prs_run_parse_stored (text);

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return NULL;
  return json_object_ref (json_node_get_object (node));
}

/* ---- the row and the messages ---- */

/* A message the run wrote, said to the views (and the runner) once it is
 * stored: inside a batch, once the batch is committed, and never when it
 * is not — a window shows no message the database does not hold
 * (docs/storage.md) */
typedef struct
{
  guint  signal;
  char  *message_id;
  char  *tool_name;   /* approval-needed */
} Announcement;

static void
announcement_free (Announcement *announcement)
{
  g_free (announcement->message_id);
  g_free (announcement->tool_name);
  g_free (announcement);
}

static void
announce (PrsRun     *self,
          guint       signal,
          const char *message_id,
          const char *tool_name)
{
  Announcement *announcement;

  if (self->detached)
    return;
  if (!self->batch_open)
    {
      if (signal == SIGNAL_APPROVAL_NEEDED)
        g_signal_emit (self, signals[signal], 0, self->row->conversation_id, message_id, tool_name);
      else
        g_signal_emit (self, signals[signal], 0, self->row->conversation_id, message_id);
      return;
    }
  if (self->announcements == NULL)
    self->announcements = g_ptr_array_new_with_free_func ((GDestroyNotify) announcement_free);
  announcement = g_new0 (Announcement, 1);
  announcement->signal = signal;
  announcement->message_id = g_strdup (message_id);
  announcement->tool_name = g_strdup (tool_name);
  g_ptr_array_add (self->announcements, announcement);
}

/* The batch ended: said when it was committed, dropped when it was not */
static void
announce_batch (PrsRun   *self,
                gboolean  committed)
{
  g_autoptr(GPtrArray) announcements = g_steal_pointer (&self->announcements);

  for (guint i = 0; committed && announcements != NULL && i < announcements->len; i++)
    {
      Announcement *announcement = g_ptr_array_index (announcements, i);

      announce (self, announcement->signal, announcement->message_id, announcement->tool_name);
    }
}

void
_prs_run_emit_message_changed (PrsRun     *self,
                               const char *message_id)
{
  announce (self, SIGNAL_MESSAGE_CHANGED, message_id, NULL);
}

void
_prs_run_emit_approval_needed (PrsRun     *self,
                               const char *message_id,
                               const char *tool_name)
{
  announce (self, SIGNAL_APPROVAL_NEEDED, message_id, tool_name);
}

void
_prs_run_emit_workflow_gone (PrsRun     *self,
                             const char *tool_name)
{
  if (!self->detached)
    g_signal_emit (self, signals[SIGNAL_WORKFLOW_GONE], 0, tool_name);
}

/* Saves the run; with @trigger_status, also its trigger message's status
 * (one transaction) and says so to the views. */
static gboolean
save_with_trigger (PrsRun      *self,
                   const char  *trigger_status,
                   GError     **out_error)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = NULL;

  if (self->detached)
    return TRUE;
  if (_prs_run_writes_refused (self))
    {
      g_propagate_error (out_error, g_error_copy (self->unsaved));
      return FALSE;
    }
  node = json_node_init_array (json_node_alloc (), self->transcript);
  /* The whole row: a start still waiting is in it */
  g_clear_handle_id (&self->start_save_id, g_source_remove);
  /* A model call's end keeps the text before, to put back when its
   * transaction is not committed */
  if (self->end_undo != NULL && !self->end_undo->transcript_replaced)
    {
      self->end_undo->transcript_replaced = TRUE;
      self->end_undo->transcript_json = g_steal_pointer (&self->row->transcript_json);
    }
  g_free (self->row->transcript_json);
  self->row->transcript_json = prs_json_to_string (node, FALSE);
  if (!prs_store_save_run_and_trigger (self->env->store, self->row, trigger_status, &error))
    {
      g_message ("Could not save agent run %s: %s", self->row->id, error->message);
      _prs_run_note_unsaved (self, error);
      g_propagate_error (out_error, g_steal_pointer (&error));
      return FALSE;
    }
  /* The model calls refer to the row, now written */
  _prs_run_record_held_model_calls (self);
  if (trigger_status != NULL && self->row->trigger_message_id != NULL)
    _prs_run_emit_message_changed (self, self->row->trigger_message_id);
  return TRUE;
}

void
_prs_run_save (PrsRun *self)
{
  save_with_trigger (self, NULL, NULL);
}

static void store_start_now (PrsRun *self);

static gboolean
on_save_start (gpointer data)
{
  PrsRun *self = data;

  self->start_save_id = 0;
  store_start_now (self);
  return G_SOURCE_REMOVE;
}

/* A new run's row need not cost a transaction of its own before its model
 * is asked: it goes into the run's first write — with a model that answers
 * at once, the transaction that ends the run — or, when the model is still
 * thinking LAZY_START_MS later, into one of its own (as the reply's first
 * text does, prs-run.c). Either way it is stored before anything that
 * refers to it (tool calls, model calls) */
#define LAZY_START_MS 250
/* … and when the database was busy, tried again this long after (each try
 * waits the busy timeout first) */
#define START_RETRY_MS 1000

void
_prs_run_defer_start (PrsRun *self)
{
  g_return_if_fail (self->start_save_id == 0);

  self->start_save_id = g_timeout_add (LAZY_START_MS, on_save_start, self);
}

static gboolean batch_begin (PrsRun       *self,
                             PrsStoreSync  sync,
                             gboolean      row_later);

/* The waiting row in a transaction of its own; when that cannot begin,
 * it waits again (a write that refers to it takes it first) */
static void
store_start_now (PrsRun *self)
{
  /* Told to no one yet: the commit that ends the run takes it to the disk */
  if (batch_begin (self, PRS_STORE_SYNC_LATER, FALSE))
    _prs_run_save (self);
  else
    self->start_save_id = g_timeout_add (START_RETRY_MS, on_save_start, self);
  _prs_run_batch_end (self);
}

/* The row now, if it still waits (before a write that refers to it) */
void
_prs_run_save_start (PrsRun *self)
{
  if (self->start_save_id == 0 || _prs_run_writes_refused (self))
    return;
  if (self->batch_open)
    {
      _prs_run_save (self);
      return;
    }
  g_clear_handle_id (&self->start_save_id, g_source_remove);
  store_start_now (self);
}

/* The writes until _prs_run_batch_end () (or the run rests) are one
 * transaction: a reply, the transcript and the run's state change
 * together, and one commit is one wait for the disk. PRS_STORE_SYNC_LATER
 * for progress nobody is answered about (docs/storage.md). */
static gboolean
batch_begin (PrsRun       *self,
             PrsStoreSync  sync,
             gboolean      row_later)
{
  g_autoptr(GError) error = NULL;

  /* Nested: part of the batch open, or of the one that could not begin */
  if (self->batch_open || self->detached)
    return TRUE;
  if (self->batch_lost)
    return FALSE;
  g_clear_error (&self->unsaved);
  if (!prs_store_batch_begin (self->env->store, sync, &error))
    {
      g_message ("Could not save agent run %s: %s", self->row->id, error->message);
      /* Nothing of it is written one by one: the other program may let go
       * partway, and part of what belongs together would be stored */
      self->batch_lost = TRUE;
      self->unsaved = g_steal_pointer (&error);
      return FALSE;
    }
  self->batch_open = TRUE;
  self->row_later = row_later;
  return TRUE;
}

gboolean
_prs_run_writes_refused (PrsRun *self)
{
  return self->detached || self->batch_lost;
}

/* A write of the run failed: what its batch (or the batch that could not
 * begin) was to store together is not all stored */
void
_prs_run_note_unsaved (PrsRun       *self,
                       const GError *error)
{
  if ((self->batch_open || self->batch_lost) && self->unsaved == NULL)
    self->unsaved = g_error_copy (error);
}

gboolean
_prs_run_batch_begin (PrsRun       *self,
                      PrsStoreSync  sync)
{
  if (!batch_begin (self, sync, FALSE))
    return FALSE;
  _prs_run_save_start (self);
  return TRUE;
}

/* The messages the batch writes before the row refer to it by id only:
 * in one transaction, they are never stored without it */
gboolean
_prs_run_batch_begin_row_later (PrsRun       *self,
                                PrsStoreSync  sync)
{
  return batch_begin (self, sync, TRUE);
}

gboolean
_prs_run_batch_end (PrsRun *self)
{
  g_autoptr(GError) error = NULL;
  gboolean committed;

  self->batch_lost = FALSE;
  if (!self->batch_open)
    return TRUE;
  self->row_later = FALSE;
  committed = prs_store_batch_end (self->env->store, &error);
  if (!committed)
    {
      g_message ("Could not save agent run %s: %s", self->row->id, error->message);
      _prs_run_note_unsaved (self, error);
    }
  self->batch_open = FALSE;
  announce_batch (self, committed);
  return committed;
}

gboolean
_prs_run_batch_end_whole (PrsRun *self)
{
  if (self->batch_open && self->unsaved != NULL)
    {
      g_message ("Nothing of that write of agent run %s was stored", self->row->id);
      prs_store_batch_abandon (self->env->store);
      self->batch_open = FALSE;
      self->row_later = FALSE;
      announce_batch (self, FALSE);
    }
  _prs_run_batch_end (self);
  return self->unsaved == NULL;
}

char *
_prs_run_insert_message (PrsRun     *self,
                         const char *kind,
                         const char *content,
                         const char *status,
                         JsonObject *extra)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *extra_json = NULL;
  char *message_id = NULL;
  PrsMessageInsert insert = { 0 };
  gboolean assistant = g_strcmp0 (kind, "assistant") == 0;

  if (_prs_run_writes_refused (self))
    return NULL;
  if (!self->row_later)
    _prs_run_save_start (self);
  if (extra != NULL)
    {
      json_object_set_string_member (extra, "runId", self->row->id);
      extra_json = prs_json_object_to_string (extra, FALSE);
    }

  insert.conversation_id = self->row->conversation_id;
  insert.kind = kind;
  insert.content = content;
  insert.status = status;
  insert.agent_id = g_strcmp0 (kind, "notice") != 0 ? self->row->agent_id : NULL;
  /* The Request Context goes with every assistant message of the run (docs/conversations.md) */
  insert.context_json = assistant ? self->row->context_json : NULL;
  insert.extra_json = extra_json;
  /* The extra data is ours (above); a context the run was handed is
   * checked as before */
  insert.json_from_writer = insert.context_json == NULL;

  if (!prs_store_insert_message (self->env->store, &insert, &message_id, NULL, &error))
    {
      g_message ("Could not store a %s message of run %s: %s", kind, self->row->id, error->message);
      _prs_run_note_unsaved (self, error);
      return NULL;
    }
  announce (self, SIGNAL_MESSAGE_ADDED, message_id, NULL);
  return message_id;
}

void
_prs_run_update_message (PrsRun     *self,
                         const char *message_id,
                         const char *status,
                         const char *content,
                         JsonObject *extra)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *extra_json = NULL;

  if (message_id == NULL || _prs_run_writes_refused (self))
    return;
  if (!self->row_later)
    _prs_run_save_start (self);
  if (extra != NULL)
    {
      json_object_set_string_member (extra, "runId", self->row->id);
      extra_json = prs_json_object_to_string (extra, FALSE);
    }
  if (!prs_store_update_message (self->env->store, message_id, status, content, extra_json, &error))
    {
      g_message ("Could not update message %s: %s", message_id, error->message);
      _prs_run_note_unsaved (self, error);
    }
  else
    _prs_run_emit_message_changed (self, message_id);
}

void
_prs_run_add_notice (PrsRun     *self,
                     const char *text)
{
  g_autofree char *id = _prs_run_insert_message (self, "notice", text, NULL, json_object_new ());

  (void) id;
}

/* ---- what a model call cost ---- */

static gint64
elapsed_ms (gint64 from_us,
            gint64 to_us)
{
  return from_us != 0 && to_us >= from_us ? (to_us - from_us) / 1000 : -1;
}

static void
record_model_calls (PrsRun          *self,
                    GPtrArray       *attempts,
                    PrsChatResponse *response,
                    gboolean         cancelled)
{
  g_autofree PrsModelCallInsert *calls = g_new0 (PrsModelCallInsert, MAX (attempts->len, 1));
  g_autoptr(GError) error = NULL;
  /* An end kept until the database took it (docs/storage.md) counts when
   * the model answered, not when it was stored: on that day in Insights */
  g_autofree char *ended_at = self->end_retry_ms == 0 ? NULL
    : prs_store_time_iso8601 (g_get_real_time () - (g_get_monotonic_time () - self->model_ended));

  for (guint i = 0; i < attempts->len; i++)
    {
      PrsProviderAttempt *attempt = g_ptr_array_index (attempts, i);
      PrsModelCallInsert *call = &calls[i];
      /* A cancelled call's own attempt is not listed: each listed failure
       * was followed by another attempt */
      gboolean last = i + 1 == attempts->len && !cancelled;

      call->run_id = self->row->id;
      call->agent_id = self->row->agent_id;
      call->provider_id = attempt->provider_id;
      call->provider_name = attempt->provider_name;
      call->model = attempt->model;
      call->first_token_ms = attempt->first_text_us != 0
                             ? elapsed_ms (attempt->started_us, attempt->first_text_us) : -1;
      call->total_ms = elapsed_ms (attempt->started_us, attempt->finished_us);
      call->created_at = ended_at;
      if (attempt->error == NULL)
        {
          call->outcome = PRS_MODEL_CALL_ANSWERED;
          call->input_tokens = response != NULL ? response->input_tokens : 0;
          call->output_tokens = response != NULL ? response->output_tokens : 0;
        }
      else
        call->outcome = last ? PRS_MODEL_CALL_FAILED : PRS_MODEL_CALL_FAILED_OVER;
    }
  if (!prs_store_add_model_calls (self->env->store, calls, attempts->len, &error))
    {
      g_message ("Could not record the model calls of run %s: %s", self->row->id, error->message);
      _prs_run_note_unsaved (self, error);
    }
}

void
_prs_run_hold_model_calls (PrsRun          *self,
                           GPtrArray       *attempts,
                           PrsChatResponse *response,
                           gboolean         cancelled)
{
  self->held_attempts = attempts;
  self->held_response = response;
  self->held_cancelled = cancelled;
}

void
_prs_run_record_held_model_calls (PrsRun *self)
{
  GPtrArray *attempts = g_steal_pointer (&self->held_attempts);
  PrsChatResponse *response = g_steal_pointer (&self->held_response);

  if (attempts == NULL || _prs_run_writes_refused (self))
    return;
  /* Nothing wrote the row yet: a start still waiting first */
  if (self->start_save_id != 0)
    {
      _prs_run_hold_model_calls (self, attempts, response, self->held_cancelled);
      _prs_run_save_start (self);
      return;
    }
  record_model_calls (self, attempts, response, self->held_cancelled);
}

void
_prs_run_note_model_call (PrsRun     *self,
                          JsonObject *extra,
                          GPtrArray  *attempts)
{
  /* The model's own time: an end stored later (kept while the database
   * refused it, docs/storage.md) does not count the wait */
  gint64 end = self->model_ended;
  JsonObject *timing = json_object_new ();
  JsonArray *failover = json_array_new ();

  /* Without a streamed piece, the whole answer came at once */
  json_object_set_int_member (timing, "firstTokenMs",
                              ((self->first_token != 0 ? self->first_token : end) - self->model_started) / 1000);
  json_object_set_int_member (timing, "totalMs", (end - self->model_started) / 1000);
  json_object_set_object_member (extra, "timing", timing);

  for (guint i = 0; attempts != NULL && i < attempts->len; i++)
    {
      PrsProviderAttempt *attempt = g_ptr_array_index (attempts, i);
      JsonObject *failed;

      if (attempt->error == NULL)
        continue;
      failed = json_object_new ();
      json_object_set_string_member (failed, "providerId", attempt->provider_id);
      json_object_set_string_member (failed, "providerName", attempt->provider_name);
      json_object_set_string_member (failed, "error", attempt->error->message);
      json_array_add_object_element (failover, failed);
    }
  if (json_array_get_length (failover) > 0)
    json_object_set_array_member (extra, "failover", failover);
  else
    json_array_unref (failover);
}

/* ---- working and resting ---- */

gboolean
prs_run_is_finished (PrsRun *self)
{
  g_return_val_if_fail (PRS_IS_RUN (self), TRUE);
  PRS_ASSERT_MAIN_THREAD ();

  return g_strcmp0 (self->row->status, PRS_RUN_COMPLETED) == 0 ||
         g_strcmp0 (self->row->status, PRS_RUN_FAILED) == 0 ||
         g_strcmp0 (self->row->status, PRS_RUN_CANCELLED) == 0;
}

gboolean
prs_run_is_resting (PrsRun *self)
{
  g_return_val_if_fail (PRS_IS_RUN (self), TRUE);
  PRS_ASSERT_MAIN_THREAD ();

  return prs_run_is_finished (self) ||
         g_strcmp0 (self->row->status, PRS_RUN_AWAITING_APPROVAL) == 0;
}

void
_prs_run_wake_waiters (PrsRun *self)
{
  GList *waiters = g_steal_pointer (&self->waiters);

  for (GList *l = waiters; l != NULL; l = l->next)
    {
      GTask *task = l->data;

      g_task_return_boolean (task, TRUE);
      g_object_unref (task);
    }
  g_list_free (waiters);
}

/* The rest is heard: by the runner (which forgets a finished run), then
 * by whoever waits for it */
static void
say_rested (PrsRun *self)
{
  /* A handler may drop its reference (the runner forgets a finished run) */
  g_autoptr(PrsRun) keep = g_object_ref (self);

  self->working = FALSE;
  if (!self->detached)
    g_signal_emit (self, signals[SIGNAL_RESTED], 0);
  _prs_run_wake_waiters (self);
}

/* A rest inside a model call's end: stored with it, and said only once
 * that is committed (_prs_run_end_rest); @was_status and @was are taken */
static void
rest_with_end (PrsRun      *self,
               const char  *trigger_status,
               char       **was_status,
               char        *was[2])
{
  PrsRunEndUndo *undo = self->end_undo;

  if (!undo->rested)
    {
      undo->rested = TRUE;
      undo->was[0] = g_steal_pointer (was_status);
      /* _prs_run_finish () changed these too */
      undo->finished = was != NULL;
      if (was != NULL)
        {
          undo->was[1] = g_steal_pointer (&was[0]);
          undo->was[2] = g_steal_pointer (&was[1]);
        }
    }
  if (was != NULL)
    {
      g_free (was[0]);
      g_free (was[1]);
    }
  g_free (*was_status);
  *was_status = NULL;
  save_with_trigger (self, trigger_status, NULL);
}

void
_prs_run_end_rest (PrsRun        *self,
                   PrsRunEndUndo *undo,
                   gboolean       said,
                   const GError  *refused)
{
  if (!undo->rested)
    return;
  if (said)
    {
      g_clear_error (&self->rest_unsaved);
      if (refused != NULL)
        self->rest_unsaved = g_error_copy (refused);
      for (guint i = 0; i < G_N_ELEMENTS (undo->was); i++)
        g_clear_pointer (&undo->was[i], g_free);
      say_rested (self);
      return;
    }
  g_free (self->row->status);
  self->row->status = g_steal_pointer (&undo->was[0]);
  if (undo->finished)
    {
      g_free (self->row->stop_reason);
      self->row->stop_reason = g_steal_pointer (&undo->was[1]);
      g_free (self->row->error);
      self->row->error = g_steal_pointer (&undo->was[2]);
    }
  undo->rested = FALSE;
}

/* The run stops working: it ended or waits for a person. @was: what the
 * row's stop reason and error were before _prs_run_finish () changed
 * them (taken), NULL when they were not */
static void
rest (PrsRun     *self,
      const char *status,
      char       *was[2])
{
  /* A handler may drop its reference (the runner forgets a finished run) */
  g_autoptr(PrsRun) keep = g_object_ref (self);
  g_autoptr(GError) error = NULL;
  /* Its writes were to be one transaction (a batch began, or could not) */
  gboolean grouped = self->batch_open || self->batch_lost;
  g_autofree char *was_status = g_steal_pointer (&self->row->status);
  const char *trigger_status;
  gboolean stored;

  self->row->status = g_strdup (status);

  if (g_strcmp0 (status, PRS_RUN_COMPLETED) == 0)
    trigger_status = "completed";
  else if (g_strcmp0 (status, PRS_RUN_AWAITING_APPROVAL) == 0)
    trigger_status = "awaiting_approval";
  else
    trigger_status = "failed";
  /* The run and its request change together (a chat run's user message
   * keeps its own status) */
  if (g_strcmp0 (self->row->origin, PRS_RUN_ORIGIN_CHAT) == 0)
    trigger_status = NULL;
  if (self->end_undo != NULL)
    {
      rest_with_end (self, trigger_status, &was_status, was);
      return;
    }
  g_clear_error (&self->rest_unsaved);
  stored = save_with_trigger (self, trigger_status, &error);
  /* On the disk before anyone hears of the rest (the API answers then) */
  stored = _prs_run_batch_end (self) && stored;
  /* … or, when it could not be stored, what is heard is that failure, not
   * a state the database does not hold */
  if (grouped && self->unsaved != NULL)
    self->rest_unsaved = g_error_copy (self->unsaved);
  else if (error != NULL)
    self->rest_unsaved = g_steal_pointer (&error);
  /* A run that waited — for a person, or for a slot (a Stop while it
   * waits) — and could not store its end waits as it is stored: what the
   * window shows, and what a Stop asked again changes (docs/storage.md) */
  if (!stored && (g_strcmp0 (was_status, PRS_RUN_AWAITING_APPROVAL) == 0 || !self->working))
    {
      g_free (self->row->status);
      self->row->status = g_steal_pointer (&was_status);
      if (was != NULL)
        {
          g_free (self->row->stop_reason);
          self->row->stop_reason = g_steal_pointer (&was[0]);
          g_free (self->row->error);
          self->row->error = g_steal_pointer (&was[1]);
        }
    }
  if (was != NULL)
    {
      g_free (was[0]);
      g_free (was[1]);
    }
  say_rested (self);
}

void
_prs_run_rest (PrsRun     *self,
               const char *status)
{
  rest (self, status, NULL);
}

void
_prs_run_finish (PrsRun     *self,
                 const char *status,
                 const char *stop_reason,
                 const char *error)
{
  char *was[2] = { g_steal_pointer (&self->row->stop_reason), g_steal_pointer (&self->row->error) };

  self->row->stop_reason = g_strdup (stop_reason);
  self->row->error = g_strdup (error);
  rest (self, status, was);
}

/* The run works (calls the model or a tool). Said after the status is
 * stored, so that a handler reads "running" */
void
_prs_run_set_working (PrsRun *self)
{
  if (g_strcmp0 (self->row->status, PRS_RUN_RUNNING) != 0)
    {
      g_free (self->row->status);
      self->row->status = g_strdup (PRS_RUN_RUNNING);
      /* The run and its request change together, in one transaction */
      save_with_trigger (self, g_strcmp0 (self->row->origin, PRS_RUN_ORIGIN_CHAT) == 0 ? NULL : "running", NULL);
    }
  if (!self->working && !self->detached)
    {
      self->working = TRUE;
      g_signal_emit (self, signals[SIGNAL_WORKING], 0);
    }
}

JsonObject *
_prs_run_last_entry (PrsRun *self)
{
  guint n = json_array_get_length (self->transcript);

  return n > 0 ? json_array_get_object_element (self->transcript, n - 1) : NULL;
}
