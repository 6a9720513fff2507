/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-run.c: one agent run (docs/runs.md) — the GObject, its state machine
 * and its model call; the prompt, the tool round, the answer and the
 * record have their own files (prs-run-private.h). The run's state is its
 * stored row:
 * the transcript (what the model saw and said) and the tool calls of the
 * current round decide the next step, so the same code goes on after a
 * restart:
 *
 *   last transcript entry      tool calls of the round        next step
 *   user / tool results        —                              call the model
 *   assistant with tool calls  some approved                  run them
 *                              some proposed / interrupted    rest: a person decides
 *                              all settled                    results → the model
 *   assistant, no tool calls   —                              completed
 */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "prs-error.h"
#include "prs-invisible.h"
#include "prs-json.h"
#include "prs-providers.h"
#include "prs-run-private.h"
#include "prs-thread.h"

#define FLUSH_INTERVAL_MS 250
/* A reply's first text waits this long to be stored: a reply complete by
 * then (a model that answers at once, in however many reads, also on a
 * busy machine) is stored once, completed, in the transaction that ends
 * the run; a window that shows it streaming shows it within 100 ms, and
 * every 250 ms after that */
#define FIRST_FLUSH_MS    100
/* A model call's end that could not be stored is stored again this long
 * after, the wait doubling up to the most (docs/storage.md) */
#define END_RETRY_FIRST_MS 1000
#define END_RETRY_MAX_MS   30000

G_DEFINE_FINAL_TYPE (PrsRun, prs_run, G_TYPE_OBJECT)

static void advance (PrsRun *self);

/* ---- the model ---- */

/* The streamed reply so far: the message is stored at the first flush,
 * then updated */
static void
flush_stream (PrsRun *self)
{
  g_clear_handle_id (&self->flush_id, g_source_remove);
  if (self->stream_text == NULL)
    return;
  self->last_flush = g_get_monotonic_time ();
  /* The database busy: the text so far waits for the next flush, or the
   * call's end, which stores it all */
  if (!_prs_run_batch_begin (self, PRS_STORE_SYNC_LATER))
    {
      _prs_run_batch_end (self);
      return;
    }
  if (self->stream_message_id == NULL)
    {
      g_autoptr(JsonObject) extra = json_object_new ();

      /* The message and the run that points at it, together */
      self->stream_message_id = _prs_run_insert_message (self, "assistant", self->stream_text->str,
                                                         "streaming", extra);
      g_free (self->row->assistant_message_id);
      self->row->assistant_message_id = g_strdup (self->stream_message_id);
      _prs_run_save (self);
      _prs_run_batch_end (self);
      return;
    }
  _prs_run_update_message (self, self->stream_message_id, NULL, self->stream_text->str, NULL);
  _prs_run_batch_end (self);
}

static gboolean
on_flush_timeout (gpointer data)
{
  PrsRun *self = data;

  self->flush_id = 0;
  flush_stream (self);
  return G_SOURCE_REMOVE;
}

static void
on_delta (const char *text,
          gpointer    user_data)
{
  PrsRun *self = user_data;

  if (self->detached || self->stream_text == NULL)
    return;

  if (self->first_token == 0)
    self->first_token = g_get_monotonic_time ();
  g_string_append (self->stream_text, text);
  if (self->stream_message_id == NULL)
    {
      if (self->flush_id == 0)
        self->flush_id = g_timeout_add (FIRST_FLUSH_MS, on_flush_timeout, self);
      return;
    }
  /* Saved at most every 250 ms, and always 250 ms after the last piece */
  if (g_get_monotonic_time () - self->last_flush >= FLUSH_INTERVAL_MS * 1000)
    flush_stream (self);
  else if (self->flush_id == 0)
    self->flush_id = g_timeout_add (FLUSH_INTERVAL_MS, on_flush_timeout, self);
}

static JsonObject *
assistant_extra (PrsChatResponse *response)
{
  JsonObject *extra = json_object_new ();
  JsonObject *usage = json_object_new ();
  JsonObject *provider = json_object_new ();

  json_object_set_string_member (provider, "id", response->provider_id);
  json_object_set_string_member (provider, "name", response->provider_name);
  json_object_set_object_member (extra, "provider", provider);
  json_object_set_string_member (extra, "providerName", response->provider_name);
  json_object_set_string_member (extra, "model", response->model);
  json_object_set_int_member (usage, "inputTokens", response->input_tokens);
  json_object_set_int_member (usage, "outputTokens", response->output_tokens);
  json_object_set_object_member (extra, "usage", usage);
  json_object_set_string_member (extra, "stopReason", response->stop_reason);
  return extra;
}

static void
model_failed (PrsRun *self,
              GError *error)
{
  gboolean no_provider = g_error_matches (error, PRS_ERROR, PRS_ERROR_NOT_CONFIGURED);
  g_autofree char *notice = NULL;

  if (self->stream_message_id != NULL)
    {
      g_autoptr(JsonObject) extra = json_object_new ();

      json_object_set_string_member (extra, "error", error->message);
      _prs_run_update_message (self, self->stream_message_id, "failed", self->stream_text->str, extra);
    }

  /* An inbound message without any provider is marked failed itself */
  if (!no_provider || g_strcmp0 (self->row->origin, PRS_RUN_ORIGIN_CHAT) == 0)
    {
      notice = g_strdup_printf (_("The agent could not answer: %s"), error->message);
      _prs_run_add_notice (self, notice);
    }
  _prs_run_finish (self, PRS_RUN_FAILED, no_provider ? "no-provider" : "provider-error", error->message);
}

static void
clear_stream (PrsRun *self)
{
  g_clear_handle_id (&self->flush_id, g_source_remove);
  if (self->stream_text != NULL)
    g_string_free (g_steal_pointer (&self->stream_text), TRUE);
  g_clear_pointer (&self->stream_message_id, g_free);
}

/* The assistant message: the streamed one, or a new one when there is text */
static void
store_reply (PrsRun          *self,
             PrsChatResponse *response,
             GPtrArray       *attempts)
{
  g_autoptr(JsonObject) extra = assistant_extra (response);
  const char *text = response->text[0] != '\0' ? response->text
                     : (self->stream_text != NULL ? self->stream_text->str : "");

  _prs_run_note_model_call (self, extra, attempts);

  if (self->stream_message_id != NULL)
    _prs_run_update_message (self, self->stream_message_id, "completed", text, extra);
  else if (text[0] != '\0' || response->tool_calls->len == 0)
    {
      g_autofree char *id = _prs_run_insert_message (self, "assistant", text, "completed", extra);

      /* Put back when the end's transaction is not committed */
      g_assert (self->end_undo != NULL && !self->end_undo->message_replaced);
      self->end_undo->message_replaced = TRUE;
      self->end_undo->assistant_message_id = g_steal_pointer (&self->row->assistant_message_id);
      self->row->assistant_message_id = g_steal_pointer (&id);
    }
}

/* What the model said, as the transcript keeps it */
static JsonObject *
transcript_entry (PrsChatResponse *response)
{
  JsonObject *entry = json_object_new ();

  json_object_set_string_member (entry, "role", "assistant");
  json_object_set_string_member (entry, "text", response->text);
  json_object_set_string_member (entry, "model", response->model);
  json_object_set_string_member (entry, "providerId", response->provider_id);
  json_object_set_string_member (entry, "providerName", response->provider_name);
  json_object_set_string_member (entry, "stopReason", response->stop_reason);
  json_object_set_int_member (entry, "inputTokens", response->input_tokens);
  json_object_set_int_member (entry, "outputTokens", response->output_tokens);
  if (response->tool_calls->len > 0)
    {
      JsonArray *calls = json_array_new ();

      for (guint i = 0; i < response->tool_calls->len; i++)
        {
          PrsToolCall *call = g_ptr_array_index (response->tool_calls, i);
          JsonObject *object = json_object_new ();

          json_object_set_string_member (object, "id", call->id);
          json_object_set_string_member (object, "name", call->name);
          json_object_set_object_member (object, "arguments", json_object_ref (call->arguments));
          json_array_add_object_element (calls, object);
        }
      json_object_set_array_member (entry, "toolCalls", calls);
    }
  return entry;
}

static void after_model (PrsRun          *self,
                         PrsChatResponse *response,
                         GError          *error,
                         GPtrArray       *attempts);
static void store_model_end (PrsRun *self);

static void
on_model_done (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(PrsRun) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsChatResponse) response = NULL;
  g_autoptr(GPtrArray) attempts = prs_providers_get_attempts (result);

  response = prs_providers_chat_finish (PRS_PROVIDERS (source), result, &error);
  self->model_ended = g_get_monotonic_time ();
  g_clear_handle_id (&self->flush_id, g_source_remove);
  if (self->detached)
    {
      self->model_in_flight = FALSE;
      return;
    }
  self->end_response = g_steal_pointer (&response);
  self->end_error = g_steal_pointer (&error);
  self->end_attempts = g_steal_pointer (&attempts);
  store_model_end (self);
}

static void store_results (PrsRun *self);

static gboolean
on_end_retry (gpointer data)
{
  /* Resting, the run may lose its runner's reference */
  g_autoptr(PrsRun) self = g_object_ref (data);

  self->end_retry_id = 0;
  /* A model's answer (or its failure) kept, else kept tool results */
  if (self->end_response != NULL || self->end_error != NULL)
    store_model_end (self);
  else
    store_results (self);
  return G_SOURCE_REMOVE;
}

/* The end of the model call, or the results of calls nobody posted back,
 * could not be stored (the transaction could not begin, or its commit
 * failed): nothing of them is, and the run stays as stored, working.
 * Whoever waits for its rest hears why now (503 storage-busy, 507
 * storage-full); the run keeps what it has and stores it again 1 s later,
 * then 2, 4 … at most 30 s apart, while Prosponsive runs — the model or
 * the tool is not asked again (docs/storage.md). Stopped meanwhile, the
 * next start takes the run up as after a crash */
static void
store_later (PrsRun       *self,
             const GError *error)
{
  GList *waiters = g_steal_pointer (&self->waiters);

  self->end_retry_ms = self->end_retry_ms == 0 ? END_RETRY_FIRST_MS : MIN (self->end_retry_ms * 2, END_RETRY_MAX_MS);
  g_message ("Agent run %s keeps what it could not store and stores it again in %u ms", self->row->id,
             self->end_retry_ms);
  self->end_retry_id = g_timeout_add (self->end_retry_ms, on_end_retry, self);
  for (GList *l = waiters; l != NULL; l = l->next)
    {
      g_task_return_error (l->data, g_error_copy (error));
      g_object_unref (l->data);
    }
  g_list_free (waiters);
}

/* The model call's end was not committed: nothing of it is stored, and
 * the run is put back as it was before it, the model still answering as
 * far as it knows */
static void
put_back_end (PrsRun        *self,
              PrsRunEndUndo *undo)
{
  guint n;

  while ((n = json_array_get_length (self->transcript)) > undo->transcript_length)
    json_array_remove_element (self->transcript, n - 1);
  self->row->round = undo->round;
  if (undo->message_replaced)
    {
      g_free (self->row->assistant_message_id);
      self->row->assistant_message_id = g_steal_pointer (&undo->assistant_message_id);
    }
  if (undo->transcript_replaced)
    {
      g_free (self->row->transcript_json);
      self->row->transcript_json = g_steal_pointer (&undo->transcript_json);
    }
  _prs_run_end_rest (self, undo, FALSE, NULL);
  /* Its row, when it waited to go with this end, is stored on its own again */
  if (undo->start_waiting && self->start_save_id == 0)
    _prs_run_defer_start (self);
  self->held_attempts = NULL;
  self->held_response = NULL;
  self->model_in_flight = TRUE;
}

/* A write of the batch open was refused for a reason that trying again
 * would meet again (the run's conversation deleted meanwhile), not for
 * lack of room or time: what it was to store is not kept for later */
static gboolean
refused_for_good (PrsRun *self)
{
  return self->unsaved != NULL && !g_error_matches (self->unsaved, PRS_ERROR, PRS_ERROR_STORE_FULL) &&
         !g_error_matches (self->unsaved, PRS_ERROR, PRS_ERROR_STORE_BUSY);
}

/* The model call's end is over, stored or not: nothing of it is kept */
static void
forget_end (PrsRun        *self,
            PrsRunEndUndo *undo)
{
  g_clear_pointer (&self->end_response, prs_chat_response_free);
  g_clear_error (&self->end_error);
  g_clear_pointer (&self->end_attempts, g_ptr_array_unref);
  g_clear_pointer (&undo->assistant_message_id, g_free);
  g_clear_pointer (&undo->transcript_json, g_free);
  /* A Stop stores it before its next try (prs_run_cancel) */
  g_clear_handle_id (&self->end_retry_id, g_source_remove);
  self->end_retry_ms = 0;
  clear_stream (self);
}

/* … not stored, for good: what of it was written is committed, and the
 * run ends saying why — a rest it made answers with the error, and
 * proposed calls the database does not hold are not made, nor is the
 * model asked again as if they had been */
static void
end_refused (PrsRun        *self,
             PrsRunEndUndo *undo)
{
  g_autoptr(GError) refused = g_error_copy (self->unsaved);

  _prs_run_batch_end (self);
  forget_end (self, undo);
  if (undo->rested)
    _prs_run_end_rest (self, undo, TRUE, refused);
  else
    _prs_run_finish (self, PRS_RUN_FAILED, "store-error", refused->message);
}

/* Writes the kept end of the model call — or, @stopped, a Stop in its
 * place: the run ends cancelled as a Stop during the call ends it
 * (after_model), so an answer that waited is dropped (a reply that was
 * streaming is kept as far as it came, marked stopped) and a person told
 * that the run stopped never sees it complete later; what the call cost
 * is recorded as it was (docs/runs.md#limits). FALSE when nothing of it
 * is stored (self->unsaved says why): the end is still kept, and the run
 * as it was before it */
static gboolean
write_model_end (PrsRun   *self,
                 gboolean  stopped)
{
  PrsRunEndUndo undo = { 0 };
  g_autoptr(GError) stop = NULL;

  /* What the call cost (Insights), the reply, the transcript and what the
   * run does next: one transaction, on the disk before the run rests or
   * goes on. The model calls refer to the run's row: they follow its
   * write, and a start still waiting goes into that write (the row written
   * once, not inserted and then updated) */
  if (!_prs_run_batch_begin_row_later (self, PRS_STORE_SYNC_NOW))
    {
      _prs_run_batch_end (self);
      return FALSE;
    }
  undo.transcript_length = json_array_get_length (self->transcript);
  undo.round = self->row->round;
  undo.start_waiting = self->start_save_id != 0;
  self->end_undo = &undo;
  self->model_in_flight = FALSE;
  _prs_run_hold_model_calls (self, self->end_attempts, self->end_response,
                             g_error_matches (self->end_error, G_IO_ERROR, G_IO_ERROR_CANCELLED));
  if (stopped)
    stop = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED, "stopped"); /* matched, never shown */
  after_model (self, stopped ? NULL : self->end_response, stopped ? stop : self->end_error, self->end_attempts);
  _prs_run_record_held_model_calls (self);
  self->end_undo = NULL;
  if (refused_for_good (self))
    {
      end_refused (self, &undo);
      return TRUE;
    }
  /* Not all stored (the commit failed: the disk full, an I/O error): none
   * of it is, and the run keeps the answer and stores it later, as when
   * the transaction could not begin (docs/storage.md) */
  if (!_prs_run_batch_end_whole (self))
    {
      put_back_end (self, &undo);
      return FALSE;
    }
  forget_end (self, &undo);
  /* A call's side effects begin only once it is stored as proposed */
  if (undo.rested)
    _prs_run_end_rest (self, &undo, TRUE, NULL);
  else
    advance (self);
  return TRUE;
}

static void
store_model_end (PrsRun *self)
{
  g_autoptr(GError) unsaved = NULL;

  if (write_model_end (self, FALSE))
    return;
  unsaved = g_error_copy (self->unsaved);
  store_later (self, unsaved);
}

/* What the model's answer (or its failure) makes of the run, written in
 * the end's transaction; the run rests or goes on once that is committed
 * (store_model_end) */
static void
after_model (PrsRun          *self,
             PrsChatResponse *response,
             GError          *error,
             GPtrArray       *attempts)
{
  if (response == NULL)
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          if (self->stream_message_id != NULL)
            _prs_run_update_message (self, self->stream_message_id, "stopped", self->stream_text->str, NULL);
          _prs_run_finish (self, PRS_RUN_CANCELLED, "cancelled", NULL);
          return;
        }
      model_failed (self, error);
      return;
    }

  store_reply (self, response, attempts);
  json_array_add_object_element (self->transcript, transcript_entry (response));

  if (response->tool_calls->len == 0)
    {
      _prs_run_finish (self, PRS_RUN_COMPLETED, response->stop_reason, NULL);
      return;
    }
  _prs_run_propose_calls (self, response);
}

static void
call_model (PrsRun *self)
{
  g_autoptr(PrsChatRequest) request = NULL;

  if (self->model_in_flight)
    return;
  _prs_run_set_working (self);
  if (self->cancellable == NULL || g_cancellable_is_cancelled (self->cancellable))
    {
      g_clear_object (&self->cancellable);
      self->cancellable = g_cancellable_new ();
    }

  request = _prs_run_build_request (self);
  self->model_in_flight = TRUE;
  self->model_started = g_get_monotonic_time ();
  self->first_token = 0;
  self->stream_text = g_string_new (NULL);
  prs_providers_chat_async (self->env->providers, request,
                            on_delta, g_object_ref (self), g_object_unref,
                            self->cancellable, on_model_done, g_object_ref (self));
}

/* ---- the loop ---- */

/* Settles a call with a result posted back later, in the batch begun:
 * all of it stored, or nothing (the call then still runs, as stored).
 * Ends the batch. FALSE when the call is not there (any more) */
static gboolean
settle_whole (PrsRun            *self,
              const char        *call_id,
              PrsToolCallResult *outcome)
{
  /* The batch could not begin: nothing is written one by one */
  if (self->unsaved != NULL)
    {
      _prs_run_batch_end (self);
      return TRUE;
    }
  if (!_prs_run_settle_call (self, call_id, outcome))
    {
      _prs_run_batch_end (self);
      return FALSE;
    }
  /* Not committed, its card heard nothing of it (prs-run-record.c) */
  _prs_run_batch_end_whole (self);
  return TRUE;
}

/* A call's result that nobody posted back, kept until it is stored */
typedef struct
{
  char              *call_id;
  PrsToolCallResult *outcome;
} KeptResult;

static void
kept_result_free (KeptResult *kept)
{
  g_free (kept->call_id);
  prs_tool_call_result_free (kept->outcome);
  g_free (kept);
}

/* The kept results and each call's new state: one transaction, on the disk
 * before the run goes on with them; when it cannot begin, or is not
 * committed, they are kept and stored later (store_later) */
static void
store_results (PrsRun *self)
{
  if (self->kept_results == NULL || self->kept_results->len == 0)
    return;
  if (!_prs_run_batch_begin (self, PRS_STORE_SYNC_NOW))
    {
      g_autoptr(GError) unsaved = g_error_copy (self->unsaved);

      _prs_run_batch_end (self);
      store_later (self, unsaved);
      return;
    }
  for (guint i = 0; i < self->kept_results->len; i++)
    {
      KeptResult *result = g_ptr_array_index (self->kept_results, i);

      _prs_run_settle_call (self, result->call_id, result->outcome);
    }
  /* Not all stored (the commit failed): none of it is, the calls still
   * run as stored, and their results are kept for the next try — unless a
   * write was refused for good: then what worked is stored, as it is */
  if (refused_for_good (self))
    _prs_run_batch_end (self);
  else if (!_prs_run_batch_end_whole (self))
    {
      for (guint i = 0; i < self->kept_results->len; i++)
        g_hash_table_add (self->executing,
                          g_strdup (((KeptResult *) g_ptr_array_index (self->kept_results, i))->call_id));
      store_later (self, self->unsaved);
      return;
    }
  g_clear_pointer (&self->kept_results, g_ptr_array_unref);
  self->end_retry_ms = 0;
  advance (self);
}

static void
keep_result (PrsRun             *self,
             const char         *call_id,
             PrsToolCallResult  *outcome)
{
  KeptResult *kept = g_new0 (KeptResult, 1);

  kept->call_id = g_strdup (call_id);
  kept->outcome = outcome;
  if (self->kept_results == NULL)
    self->kept_results = g_ptr_array_new_with_free_func ((GDestroyNotify) kept_result_free);
  g_ptr_array_add (self->kept_results, kept);
}

static void
on_call_done (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  PrsRun *self = PRS_RUN (source);
  g_autofree char *call_id = NULL;
  g_autoptr(PrsToolCallResult) outcome = _prs_run_call_tool_finish (self, result, &call_id);
  g_autoptr(GError) unsaved = NULL;

  if (self->detached || outcome == NULL)
    return;
  if (outcome->stored_func == NULL)
    {
      keep_result (self, call_id, g_steal_pointer (&outcome));
      /* Waiting for a retry already: this one waits with the others */
      if (self->end_retry_id == 0)
        store_results (self);
      return;
    }
  /* The result and the call's new state: one transaction, on the disk
   * before a workflow that posted the result back hears that it was taken */
  _prs_run_batch_begin (self, PRS_STORE_SYNC_NOW);
  /* A call that is gone: its sender hears so as the result is freed */
  if (!settle_whole (self, call_id, outcome))
    {
      advance (self);
      return;
    }
  unsaved = self->unsaved != NULL ? g_error_copy (self->unsaved) : NULL;
  prs_tool_call_result_stored (outcome, unsaved, prs_store_get_last_commit (self->env->store));
  /* Not stored: the run does not go on with it; the call waits again (the
   * registry re-armed it before its sender heard why) and takes the same
   * result posted again (docs/api.md) */
  if (prs_tool_call_result_waits_again (unsaved))
    {
      _prs_run_await_result_async (self, call_id, on_call_done, NULL);
      return;
    }
  advance (self);
}

/* The calls of the current round */
static GPtrArray *
round_calls (PrsRun  *self,
             GError **error)
{
  GPtrArray *calls = prs_store_list_tool_calls (self->env->store, self->row->id, error);

  for (guint i = calls != NULL ? calls->len : 0; i > 0; i--)
    if (((PrsToolCallRow *) g_ptr_array_index (calls, i - 1))->round != self->row->round)
      g_ptr_array_remove_index (calls, i - 1);
  return calls;
}

/* The model proposed calls: run the approved ones, wait for a person, or,
 * once every call is settled, give the model the results */
static void
advance_round (PrsRun *self)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) calls = round_calls (self, &error);
  gboolean working = FALSE, waiting = FALSE;

  if (calls == NULL)
    {
      _prs_run_finish (self, PRS_RUN_FAILED, "store-error", error->message);
      return;
    }

  for (guint i = 0; i < calls->len; i++)
    {
      PrsToolCallRow *call = g_ptr_array_index (calls, i);

      if (g_strcmp0 (call->status, "approved") == 0)
        {
          _prs_run_call_tool_async (self, call, on_call_done, NULL);
          working = TRUE;
        }
      else if (g_strcmp0 (call->status, "running") == 0)
        working = TRUE;
      else if (g_strcmp0 (call->status, "proposed") == 0 ||
               g_strcmp0 (call->status, "interrupted") == 0)
        waiting = TRUE;
    }

  if (self->detached || prs_run_is_finished (self))
    return;
  if (working)
    {
      _prs_run_set_working (self);
      return;
    }
  if (waiting)
    {
      if (g_strcmp0 (self->row->status, PRS_RUN_AWAITING_APPROVAL) != 0 || self->working)
        _prs_run_rest (self, PRS_RUN_AWAITING_APPROVAL);
      return;
    }

  /* An MCP client has its result from the call itself: no model to tell */
  if (_prs_run_is_mcp_client (self))
    {
      _prs_run_finish (self, PRS_RUN_COMPLETED, "tool_call", NULL);
      return;
    }
  _prs_run_feed_results (self, calls);
  call_model (self);
}

static void
advance (PrsRun *self)
{
  JsonObject *last;
  const char *role;

  if (self->detached || prs_run_is_finished (self))
    return;
  if (self->cancel_requested)
    {
      if (g_hash_table_size (self->executing) == 0 && !self->model_in_flight)
        _prs_run_finish (self, PRS_RUN_CANCELLED, "cancelled", NULL);
      return;
    }

  last = _prs_run_last_entry (self);
  role = last != NULL ? json_object_get_string_member_with_default (last, "role", "") : "";

  if (strcmp (role, "assistant") == 0 && json_object_has_member (last, "toolCalls"))
    advance_round (self);
  else if (strcmp (role, "user") == 0 || strcmp (role, "tool") == 0)
    call_model (self);
  else
    _prs_run_finish (self, PRS_RUN_COMPLETED,
                     last != NULL ? json_object_get_string_member_with_default (last, "stopReason", NULL) : NULL,
                     NULL);
}

/* ---- decisions ---- */

/* A decision on waiting calls (a person's, a timer's, a client's: each
 * call it settles, its message and the run) is one transaction, on the
 * disk before whoever decided hears that it was taken. When it cannot
 * begin, nothing of it is written: @decide is not even asked */
static gboolean
decision_begin (PrsRun *self)
{
  return _prs_run_batch_begin (self, PRS_STORE_SYNC_NOW);
}

/* … and ends: all of it stored, or nothing, and the call still waits as
 * it did, for a decision taken again (the error says why: busy, full) */
static gboolean
decision_end (PrsRun   *self,
              gboolean  decided,
              GError  **error)
{
  if (!decided)
    {
      _prs_run_batch_end (self);
      return FALSE;
    }
  if (!_prs_run_batch_end_whole (self))
    {
      g_propagate_error (error, g_error_copy (self->unsaved));
      return FALSE;
    }
  advance (self);
  return TRUE;
}

gboolean
prs_run_decide (PrsRun      *self,
                const char  *message_id,
                const char  *action,
                const char  *arguments_json,
                gboolean     whole_turn,
                GError     **error)
{
  gboolean decided;

  g_return_val_if_fail (PRS_IS_RUN (self), FALSE);
  g_return_val_if_fail (message_id != NULL && action != NULL, FALSE);
  PRS_ASSERT_MAIN_THREAD ();

  decided = !decision_begin (self) ||
            _prs_run_decide_call (self, message_id, action, arguments_json, whole_turn, error);
  return decision_end (self, decided, error);
}

gboolean
prs_run_expire_call (PrsRun      *self,
                     const char  *message_id,
                     guint        seconds,
                     GError     **error)
{
  g_return_val_if_fail (PRS_IS_RUN (self), FALSE);
  g_return_val_if_fail (message_id != NULL, FALSE);
  PRS_ASSERT_MAIN_THREAD ();

  return decision_end (self, !decision_begin (self) || _prs_run_expire_call (self, message_id, seconds, error),
                       error);
}

gboolean
prs_run_withdraw_call (PrsRun      *self,
                       const char  *message_id,
                       GError     **error)
{
  g_return_val_if_fail (PRS_IS_RUN (self), FALSE);
  g_return_val_if_fail (message_id != NULL, FALSE);
  PRS_ASSERT_MAIN_THREAD ();

  return decision_end (self, !decision_begin (self) || _prs_run_withdraw_call (self, message_id, error), error);
}

gboolean
prs_run_cancel (PrsRun  *self,
                GError **error)
{
  g_return_val_if_fail (PRS_IS_RUN (self), FALSE);
  PRS_ASSERT_MAIN_THREAD ();

  if (prs_run_is_finished (self))
    return TRUE;
  /* The model's end kept (not stored yet, docs/storage.md): the Stop is
   * stored in its place now, or refused as any Stop the database refuses
   * (below) — the end then stays kept, to be stored as it was */
  if (self->end_retry_id != 0 && (self->end_response != NULL || self->end_error != NULL))
    {
      if (write_model_end (self, TRUE))
        return TRUE;
      g_propagate_error (error, g_error_copy (self->unsaved));
      return FALSE;
    }
  self->cancel_requested = TRUE;
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  /* Nothing in flight (waiting for a person, or for a slot): it ends here */
  if (!self->model_in_flight && g_hash_table_size (self->executing) == 0)
    _prs_run_finish (self, PRS_RUN_CANCELLED, "cancelled", NULL);
  /* … or, when that could not be stored, waits as it is stored: a person's
   * decision then goes on with it, a Stop asked again ends it, and whoever
   * stopped it hears why it did not stop */
  if (!prs_run_is_finished (self) && !self->model_in_flight && g_hash_table_size (self->executing) == 0)
    {
      self->cancel_requested = FALSE;
      g_assert (self->rest_unsaved != NULL);
      g_propagate_error (error, g_error_copy (self->rest_unsaved));
      return FALSE;
    }
  return TRUE;
}

void
prs_run_detach (PrsRun *self)
{
  g_return_if_fail (PRS_IS_RUN (self));
  PRS_ASSERT_MAIN_THREAD ();

  self->detached = TRUE;
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_handle_id (&self->flush_id, g_source_remove);
  g_clear_handle_id (&self->end_retry_id, g_source_remove);
  _prs_run_wake_waiters (self);
}

/* ---- making runs ---- */

/* @agent: the run's agent as just read by the caller, or NULL */
static gboolean
load_common (PrsRun          *self,
             const PrsAgent  *agent,
             GError         **error)
{
  g_autoptr(JsonNode) transcript = NULL;
  g_autoptr(JsonNode) context = NULL;

  self->agent = agent != NULL ? prs_agent_copy (agent)
                              : prs_store_lookup_agent (self->env->store, self->row->agent_id, error);
  if (self->agent == NULL)
    return FALSE;

  context = _prs_run_parse_stored (self->row->context_json);
  if (context != NULL && JSON_NODE_HOLDS_OBJECT (context))
    {
      /* Invisible characters never reach the model */
      g_autoptr(JsonNode) clean = prs_strip_invisible_json (context);

      self->context = json_object_ref (json_node_get_object (clean));
    }

  /* Our own text, and a tree the run goes on writing to; a new run's
   * empty one needs no parser */
  if (self->row->transcript_json != NULL && strcmp (self->row->transcript_json, "[]") != 0)
    transcript = json_from_string (self->row->transcript_json, NULL);
  if (transcript != NULL && JSON_NODE_HOLDS_ARRAY (transcript))
    self->transcript = json_array_ref (json_node_get_array (transcript));
  else
    self->transcript = json_array_new ();

  self->slug = prs_store_dup_conversation_slug (self->env->store, self->row->conversation_id);
  return TRUE;
}

static PrsRunRow *
row_for (const PrsRunOptions *options)
{
  PrsRunRow *row = g_new0 (PrsRunRow, 1);
  g_autoptr(JsonObject) run_options = json_object_new ();

  row->id = g_uuid_string_random ();
  row->conversation_id = g_strdup (options->conversation_id);
  row->agent_id = g_strdup (options->agent_id != NULL ? options->agent_id : PRS_AGENT_DEFAULT_ID);
  row->origin = g_strdup (options->origin);
  row->trigger_message_id = g_strdup (options->trigger_message_id);
  row->status = g_strdup (PRS_RUN_RUNNING);
  row->context_json = g_strdup (options->context_json);
  row->execution_json = g_strdup (options->execution_json);
  row->transcript_json = g_strdup ("[]");

  if (options->system_prompt != NULL)
    json_object_set_string_member (run_options, "systemPrompt", options->system_prompt);
  if (options->temperature >= 0)
    json_object_set_double_member (run_options, "temperature", options->temperature);
  if (options->max_tokens > 0)
    json_object_set_int_member (run_options, "maxTokens", options->max_tokens);
  if (options->tool_name != NULL)
    {
      json_object_set_string_member (run_options, "toolName", options->tool_name);
      json_object_set_object_member (run_options, "arguments",
                                     options->arguments != NULL ? json_object_ref (options->arguments)
                                                                : json_object_new ());
      json_object_set_int_member (run_options, "approvalTimeoutSeconds",
                                  options->approval_timeout > 0 ? options->approval_timeout
                                                                : PRS_RUN_DEFAULT_APPROVAL_TIMEOUT);
    }
  row->options_json = prs_json_object_to_string (run_options, FALSE);
  return row;
}

PrsRun *
prs_run_new (PrsRunEnv            *env,
             const PrsRunOptions  *options,
             GError              **error)
{
  g_autoptr(PrsRun) self = NULL;

  g_return_val_if_fail (env != NULL, NULL);
  g_return_val_if_fail (options != NULL && options->conversation_id != NULL, NULL);
  PRS_ASSERT_MAIN_THREAD ();

  self = g_object_new (PRS_TYPE_RUN, NULL);
  self->env = prs_run_env_ref (env);
  self->row = row_for (options);

  if (options->agent == NULL && !prs_store_has_conversation (self->env->store, options->conversation_id))
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_NOT_FOUND, _("There is no such conversation."));
      return NULL;
    }
  if (!load_common (self, options->agent, error))
    return NULL;

  /* An MCP client's call has no transcript before its call, and no agent
   * whose tools matter */
  if (!_prs_run_is_mcp_client (self))
    _prs_run_start_transcript (self, g_strcmp0 (options->origin, PRS_RUN_ORIGIN_AGENT_INFERENCE) != 0,
                               options->trigger_content);
  /* An MCP client's call is proposed at once, referring to its row */
  if (!options->store_lazily || _prs_run_is_mcp_client (self))
    {
      /* Not stored, the run is not started: whoever asked hears why */
      if (_prs_run_batch_begin (self, PRS_STORE_SYNC_LATER))
        _prs_run_save (self);
      if (!_prs_run_batch_end_whole (self))
        {
          g_propagate_error (error, g_error_copy (self->unsaved));
          return NULL;
        }
    }
  else
    _prs_run_defer_start (self);
  /* Said once it begins, when someone listens */
  self->check_tools = !_prs_run_is_mcp_client (self);
  return g_steal_pointer (&self);
}

void
prs_run_store_start (PrsRun *self)
{
  g_return_if_fail (PRS_IS_RUN (self));
  PRS_ASSERT_MAIN_THREAD ();

  _prs_run_save_start (self);
}

PrsRun *
prs_run_new_for_resume (PrsRunEnv  *env,
                        PrsRunRow  *row,
                        GError    **error)
{
  g_autoptr(PrsRun) self = NULL;

  g_return_val_if_fail (env != NULL, NULL);
  g_return_val_if_fail (row != NULL, NULL);
  PRS_ASSERT_MAIN_THREAD ();

  self = g_object_new (PRS_TYPE_RUN, NULL);
  self->env = prs_run_env_ref (env);
  self->row = row;
  if (!load_common (self, NULL, error))
    {
      self->row = NULL;
      return NULL;
    }
  return g_steal_pointer (&self);
}

/* The call an MCP client asked for, proposed as a model's would be */
static void
propose_client_call (PrsRun *self)
{
  g_autoptr(JsonObject) options = _prs_run_parse_object (self->row->options_json);
  g_autoptr(PrsChatResponse) response = prs_chat_response_new ();
  const char *name = options != NULL ? json_object_get_string_member_with_default (options, "toolName", NULL) : NULL;
  JsonObject *arguments = NULL;

  if (options != NULL && json_object_has_member (options, "arguments") &&
      JSON_NODE_HOLDS_OBJECT (json_object_get_member (options, "arguments")))
    arguments = json_object_get_object_member (options, "arguments");
  if (name == NULL)
    {
      _prs_run_finish (self, PRS_RUN_FAILED, "store-error", _("The tool call asked for was not stored."));
      return;
    }
  g_ptr_array_add (response->tool_calls, prs_tool_call_new ("mcp-client-call", name, arguments));
  response->stop_reason = g_strdup ("tool_use");
  json_array_add_object_element (self->transcript, transcript_entry (response));
  _prs_run_propose_calls (self, response);
}

void
prs_run_begin (PrsRun *self)
{
  g_return_if_fail (PRS_IS_RUN (self));
  PRS_ASSERT_MAIN_THREAD ();

  if (self->check_tools)
    {
      self->check_tools = FALSE;
      _prs_run_say_missing_tools (self);
    }
  self->working = TRUE;
  /* An MCP client's call is proposed once, when it may start: its
   * approval-needed is heard by whoever scheduled the run */
  if (_prs_run_is_mcp_client (self) && self->row->round == 0)
    propose_client_call (self);
  advance (self);
}

void
prs_run_resume_after_restart (PrsRun *self)
{
  JsonObject *last;

  g_return_if_fail (PRS_IS_RUN (self));
  PRS_ASSERT_MAIN_THREAD ();

  _prs_run_interrupt_calls (self);
  last = _prs_run_last_entry (self);

  /* A reply that was streaming is kept as it was, and asked for again */
  if (last != NULL && g_strcmp0 (json_object_get_string_member_with_default (last, "role", ""), "assistant") != 0 &&
      self->row->assistant_message_id != NULL)
    {
      g_autoptr(JsonNode) message = prs_store_get_message (self->env->store, self->row->assistant_message_id, NULL);

      if (message != NULL &&
          g_strcmp0 (json_object_get_string_member_with_default (json_node_get_object (message), "status", ""),
                     "streaming") == 0)
        _prs_run_update_message (self, self->row->assistant_message_id, "interrupted", NULL, NULL);
    }

  /* Resting until someone decides; the run holds no slot */
  g_free (self->row->status);
  self->row->status = g_strdup (PRS_RUN_AWAITING_APPROVAL);
  _prs_run_save (self);
  advance (self);
}

/* ---- accessors ---- */

const char *
prs_run_get_id (PrsRun *self)
{
  g_return_val_if_fail (PRS_IS_RUN (self), NULL);
  PRS_ASSERT_MAIN_THREAD ();
  return self->row->id;
}

const char *
prs_run_get_status (PrsRun *self)
{
  g_return_val_if_fail (PRS_IS_RUN (self), NULL);
  PRS_ASSERT_MAIN_THREAD ();
  return self->row->status;
}

const char *
prs_run_get_conversation_id (PrsRun *self)
{
  g_return_val_if_fail (PRS_IS_RUN (self), NULL);
  PRS_ASSERT_MAIN_THREAD ();
  return self->row->conversation_id;
}

const char *
prs_run_get_trigger_message_id (PrsRun *self)
{
  g_return_val_if_fail (PRS_IS_RUN (self), NULL);
  PRS_ASSERT_MAIN_THREAD ();
  return self->row->trigger_message_id;
}

/* ---- GObject ---- */

static void
prs_run_dispose (GObject *object)
{
  PrsRun *self = PRS_RUN (object);

  g_clear_handle_id (&self->flush_id, g_source_remove);
  g_clear_handle_id (&self->start_save_id, g_source_remove);
  g_clear_handle_id (&self->end_retry_id, g_source_remove);
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);

  G_OBJECT_CLASS (prs_run_parent_class)->dispose (object);
}

static void
prs_run_finalize (GObject *object)
{
  PrsRun *self = PRS_RUN (object);

  g_assert (self->waiters == NULL);
  g_clear_pointer (&self->row, prs_run_row_free);
  g_clear_pointer (&self->agent, prs_agent_free);
  g_clear_pointer (&self->context, json_object_unref);
  g_clear_pointer (&self->transcript, json_array_unref);
  g_clear_pointer (&self->executing, g_hash_table_unref);
  g_clear_pointer (&self->end_response, prs_chat_response_free);
  g_clear_error (&self->end_error);
  g_clear_pointer (&self->end_attempts, g_ptr_array_unref);
  g_clear_pointer (&self->kept_results, g_ptr_array_unref);
  g_clear_pointer (&self->announcements, g_ptr_array_unref);
  g_clear_pointer (&self->env, prs_run_env_unref);
  g_clear_error (&self->unsaved);
  g_clear_error (&self->rest_unsaved);
  g_free (self->slug);
  if (self->stream_text != NULL)
    g_string_free (self->stream_text, TRUE);
  g_free (self->stream_message_id);

  G_OBJECT_CLASS (prs_run_parent_class)->finalize (object);
}

static void
prs_run_class_init (PrsRunClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = prs_run_dispose;
  object_class->finalize = prs_run_finalize;
  _prs_run_install_signals (object_class);
}

static void
prs_run_init (PrsRun *self)
{
  self->executing = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
}
