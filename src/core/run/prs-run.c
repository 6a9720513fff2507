/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-run.c: one agent run (docs/runs.md). The run's state is its stored row:
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
#include "prs-json.h"
#include "prs-providers.h"
#include "prs-run-private.h"

#define FLUSH_INTERVAL_MS 250

G_DEFINE_FINAL_TYPE (PrsRun, prs_run, G_TYPE_OBJECT)

/* ---- JSON ---- */

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

char *
_prs_run_object_to_string (JsonObject *object)
{
  g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), object);

  return prs_json_to_string (node, FALSE);
}

/* ---- persistence ---- */

gboolean
_prs_run_detached (PrsRun *self)
{
  return self->runner == NULL;
}

PrsStore *
_prs_run_store (PrsRun *self)
{
  return prs_runner_get_store (self->runner);
}

/* Saves the run; with @trigger_status, also its trigger message's status
 * (one transaction) and says so to the views. */
static void
save_with_trigger (PrsRun     *self,
                   const char *trigger_status)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = json_node_init_array (json_node_alloc (), self->transcript);

  if (_prs_run_detached (self))
    return;
  g_free (self->row->transcript_json);
  self->row->transcript_json = prs_json_to_string (node, FALSE);
  if (!prs_store_save_run_and_trigger (_prs_run_store (self), self->row, trigger_status, &error))
    g_message ("Could not save agent run %s: %s", self->row->id, error->message);
  else if (trigger_status != NULL && self->row->trigger_message_id != NULL)
    prs_runner_emit_message_changed (self->runner, self->row->conversation_id,
                                     self->row->trigger_message_id);
}

void
_prs_run_save (PrsRun *self)
{
  save_with_trigger (self, NULL);
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

  if (extra != NULL)
    {
      json_object_set_string_member (extra, "runId", self->row->id);
      extra_json = _prs_run_object_to_string (extra);
    }

  insert.conversation_id = self->row->conversation_id;
  insert.kind = kind;
  insert.content = content;
  insert.status = status;
  insert.agent_id = g_strcmp0 (kind, "notice") != 0 ? self->row->agent_id : NULL;
  /* The Request Context goes with every assistant message of the run (docs/conversations.md) */
  insert.context_json = assistant ? self->row->context_json : NULL;
  insert.extra_json = extra_json;

  if (!prs_store_insert_message (_prs_run_store (self), &insert, &message_id, NULL, &error))
    {
      g_message ("Could not store a %s message of run %s: %s", kind, self->row->id, error->message);
      return NULL;
    }
  prs_runner_emit_message_added (self->runner, self->row->conversation_id, message_id);
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

  if (message_id == NULL || _prs_run_detached (self))
    return;
  if (extra != NULL)
    {
      json_object_set_string_member (extra, "runId", self->row->id);
      extra_json = _prs_run_object_to_string (extra);
    }
  if (!prs_store_update_message (_prs_run_store (self), message_id, status, content, extra_json, &error))
    g_message ("Could not update message %s: %s", message_id, error->message);
  else
    prs_runner_emit_message_changed (self->runner, self->row->conversation_id, message_id);
}

void
_prs_run_add_notice (PrsRun     *self,
                     const char *text)
{
  g_autofree char *id = _prs_run_insert_message (self, "notice", text, NULL, json_object_new ());

  (void) id;
}

/* ---- resting ---- */

gboolean
prs_run_is_finished (PrsRun *self)
{
  g_return_val_if_fail (PRS_IS_RUN (self), TRUE);

  return g_strcmp0 (self->row->status, PRS_RUN_COMPLETED) == 0 ||
         g_strcmp0 (self->row->status, PRS_RUN_FAILED) == 0 ||
         g_strcmp0 (self->row->status, PRS_RUN_CANCELLED) == 0;
}

gboolean
prs_run_is_resting (PrsRun *self)
{
  g_return_val_if_fail (PRS_IS_RUN (self), TRUE);

  return prs_run_is_finished (self) ||
         g_strcmp0 (self->row->status, PRS_RUN_AWAITING_APPROVAL) == 0;
}

static void
wake_waiters (PrsRun *self)
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

/* The run stops working: it ended or waits for a person. */
static void
rest (PrsRun     *self,
      const char *status)
{
  const char *trigger_status;

  g_free (self->row->status);
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
  save_with_trigger (self, trigger_status);

  if (!_prs_run_detached (self))
    prs_runner_run_rested (self->runner, self);
  wake_waiters (self);
}

void
_prs_run_finish (PrsRun     *self,
                 const char *status,
                 const char *stop_reason,
                 const char *error)
{
  g_free (self->row->stop_reason);
  self->row->stop_reason = g_strdup (stop_reason);
  g_free (self->row->error);
  self->row->error = g_strdup (error);
  rest (self, status);
}

void
_prs_run_set_working (PrsRun *self)
{
  if (!self->has_slot && !_prs_run_detached (self))
    prs_runner_run_wakes (self->runner, self);
  if (g_strcmp0 (self->row->status, PRS_RUN_RUNNING) != 0)
    {
      g_free (self->row->status);
      self->row->status = g_strdup (PRS_RUN_RUNNING);
      /* The run and its request change together, in one transaction */
      save_with_trigger (self, g_strcmp0 (self->row->origin, PRS_RUN_ORIGIN_CHAT) == 0 ? NULL : "running");
    }
}

void
prs_run_wait_rest_async (PrsRun              *self,
                         GCancellable        *cancellable,
                         GAsyncReadyCallback  callback,
                         gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (PRS_IS_RUN (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, prs_run_wait_rest_async);
  if (prs_run_is_resting (self) || _prs_run_detached (self))
    {
      g_task_return_boolean (task, TRUE);
      return;
    }
  self->waiters = g_list_append (self->waiters, g_steal_pointer (&task));
}

JsonNode *
prs_run_wait_rest_finish (PrsRun        *self,
                          GAsyncResult  *result,
                          guint         *out_http_status,
                          GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  if (!g_task_propagate_boolean (G_TASK (result), error))
    return NULL;
  if (_prs_run_detached (self))
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_FAILED, _("Prosponsive is stopping."));
      return NULL;
    }
  return prs_run_build_answer (_prs_run_store (self), self->row->trigger_message_id, out_http_status);
}

/* ---- the model ---- */

static void
flush_stream (PrsRun *self)
{
  g_clear_handle_id (&self->flush_id, g_source_remove);
  if (self->stream_message_id == NULL || self->stream_text == NULL)
    return;
  self->last_flush = g_get_monotonic_time ();
  _prs_run_update_message (self, self->stream_message_id, NULL, self->stream_text->str, NULL);
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

  if (_prs_run_detached (self) || self->stream_text == NULL)
    return;

  g_string_append (self->stream_text, text);
  if (self->stream_message_id == NULL)
    {
      g_autoptr(JsonObject) extra = json_object_new ();

      self->stream_message_id = _prs_run_insert_message (self, "assistant", self->stream_text->str,
                                                         "streaming", extra);
      self->last_flush = g_get_monotonic_time ();
      g_free (self->row->assistant_message_id);
      self->row->assistant_message_id = g_strdup (self->stream_message_id);
      _prs_run_save (self);
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

static void
on_model_done (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(PrsRun) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsChatResponse) response = NULL;
  g_autoptr(JsonObject) entry = NULL;

  response = prs_providers_chat_finish (PRS_PROVIDERS (source), result, &error);
  self->model_in_flight = FALSE;
  g_clear_handle_id (&self->flush_id, g_source_remove);
  if (_prs_run_detached (self))
    return;

  if (response == NULL)
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          if (self->stream_message_id != NULL)
            _prs_run_update_message (self, self->stream_message_id, "stopped", self->stream_text->str, NULL);
          clear_stream (self);
          _prs_run_finish (self, PRS_RUN_CANCELLED, "cancelled", NULL);
          return;
        }
      model_failed (self, error);
      clear_stream (self);
      return;
    }

  /* The assistant message: the streamed one, or a new one when there is text */
  {
    g_autoptr(JsonObject) extra = assistant_extra (response);
    const char *text = response->text[0] != '\0' ? response->text
                       : (self->stream_text != NULL ? self->stream_text->str : "");

    if (self->stream_message_id != NULL)
      _prs_run_update_message (self, self->stream_message_id, "completed", text, extra);
    else if (text[0] != '\0' || response->tool_calls->len == 0)
      {
        g_autofree char *id = _prs_run_insert_message (self, "assistant", text, "completed", extra);

        g_free (self->row->assistant_message_id);
        self->row->assistant_message_id = g_steal_pointer (&id);
      }
  }
  clear_stream (self);

  entry = json_object_new ();
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
  json_array_add_object_element (self->transcript, g_steal_pointer (&entry));

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
  self->stream_text = g_string_new (NULL);
  prs_providers_chat_async (prs_runner_get_providers (self->runner), request,
                            on_delta, g_object_ref (self), g_object_unref,
                            self->cancellable, on_model_done, g_object_ref (self));
}

/* ---- the loop ---- */

JsonObject *
_prs_run_last_entry (PrsRun *self)
{
  guint n = json_array_get_length (self->transcript);

  return n > 0 ? json_array_get_object_element (self->transcript, n - 1) : NULL;
}

void
_prs_run_advance (PrsRun *self)
{
  JsonObject *last;
  const char *role;

  if (_prs_run_detached (self) || prs_run_is_finished (self))
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
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GPtrArray) all = prs_store_list_tool_calls (_prs_run_store (self), self->row->id, &error);
      g_autoptr(GPtrArray) calls = g_ptr_array_new ();
      gboolean working = FALSE, waiting = FALSE;

      if (all == NULL)
        {
          _prs_run_finish (self, PRS_RUN_FAILED, "store-error", error->message);
          return;
        }
      for (guint i = 0; i < all->len; i++)
        {
          PrsToolCallRow *call = g_ptr_array_index (all, i);

          if (call->round == self->row->round)
            g_ptr_array_add (calls, call);
        }

      for (guint i = 0; i < calls->len; i++)
        {
          PrsToolCallRow *call = g_ptr_array_index (calls, i);

          if (g_strcmp0 (call->status, "approved") == 0)
            {
              _prs_run_call_tool (self, call);
              working = TRUE;
            }
          else if (g_strcmp0 (call->status, "running") == 0)
            working = TRUE;
          else if (g_strcmp0 (call->status, "proposed") == 0 ||
                   g_strcmp0 (call->status, "interrupted") == 0)
            waiting = TRUE;
        }

      if (_prs_run_detached (self) || prs_run_is_finished (self))
        return;
      /* call_tool may have settled a call (and advanced) already */
      if (working)
        {
          _prs_run_set_working (self);
          return;
        }
      if (waiting)
        {
          if (g_strcmp0 (self->row->status, PRS_RUN_AWAITING_APPROVAL) != 0 || self->has_slot)
            rest (self, PRS_RUN_AWAITING_APPROVAL);
          return;
        }

      _prs_run_feed_results (self, calls);
      call_model (self);
      return;
    }

  if (strcmp (role, "user") == 0 || strcmp (role, "tool") == 0)
    {
      call_model (self);
      return;
    }

  _prs_run_finish (self, PRS_RUN_COMPLETED,
                   last != NULL ? json_object_get_string_member_with_default (last, "stopReason", NULL) : NULL,
                   NULL);
}

/* ---- decisions ---- */

void
prs_run_cancel (PrsRun *self)
{
  g_return_if_fail (PRS_IS_RUN (self));

  if (prs_run_is_finished (self))
    return;
  self->cancel_requested = TRUE;
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  /* Nothing in flight (waiting for a person): it ends here */
  if (!self->model_in_flight && g_hash_table_size (self->executing) == 0)
    _prs_run_finish (self, PRS_RUN_CANCELLED, "cancelled", NULL);
}

void
prs_run_detach (PrsRun *self)
{
  self->runner = NULL;
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_handle_id (&self->flush_id, g_source_remove);
  wake_waiters (self);
}

gboolean
prs_run_has_slot (PrsRun *self)
{
  return self->has_slot;
}

void
prs_run_set_has_slot (PrsRun   *self,
                      gboolean  has_slot)
{
  self->has_slot = has_slot;
}

/* ---- making runs ---- */

static gboolean
load_common (PrsRun  *self,
             GError **error)
{
  g_autoptr(JsonNode) transcript = NULL;
  g_autoptr(JsonNode) context = NULL;

  self->agent = prs_store_lookup_agent (_prs_run_store (self), self->row->agent_id, error);
  if (self->agent == NULL)
    return FALSE;

  context = _prs_run_parse_stored (self->row->context_json);
  if (context != NULL && JSON_NODE_HOLDS_OBJECT (context))
    {
      /* Invisible characters never reach the model */
      g_autoptr(JsonNode) clean = prs_run_strip_invisible_json (context);

      self->context = json_object_ref (json_node_get_object (clean));
    }

  /* Our own text, and a tree the run goes on writing to */
  if (self->row->transcript_json != NULL)
    transcript = json_from_string (self->row->transcript_json, NULL);
  if (transcript != NULL && JSON_NODE_HOLDS_ARRAY (transcript))
    self->transcript = json_array_ref (json_node_get_array (transcript));
  else
    self->transcript = json_array_new ();

  self->slug = prs_store_dup_conversation_slug (_prs_run_store (self), self->row->conversation_id);
  return TRUE;
}

PrsRun *
prs_run_new_for_start (PrsRunner            *runner,
                       const PrsRunOptions  *options,
                       GError              **error)
{
  g_autoptr(PrsRun) self = g_object_new (PRS_TYPE_RUN, NULL);
  g_autoptr(JsonNode) trigger = NULL;
  g_autoptr(JsonObject) run_options = json_object_new ();
  g_autoptr(GPtrArray) tools = NULL;
  JsonObject *prompt;
  const char *prompt_text;
  g_autofree char *clean_prompt = NULL;
  gboolean with_history;

  self->runner = runner;
  self->row = g_new0 (PrsRunRow, 1);
  self->row->id = g_uuid_string_random ();
  self->row->conversation_id = g_strdup (options->conversation_id);
  self->row->agent_id = g_strdup (options->agent_id != NULL ? options->agent_id : PRS_AGENT_DEFAULT_ID);
  self->row->origin = g_strdup (options->origin);
  self->row->trigger_message_id = g_strdup (options->trigger_message_id);
  self->row->status = g_strdup (PRS_RUN_RUNNING);
  self->row->context_json = g_strdup (options->context_json);
  self->row->execution_json = g_strdup (options->execution_json);
  self->row->transcript_json = g_strdup ("[]");

  if (!prs_store_has_conversation (_prs_run_store (self), options->conversation_id))
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_NOT_FOUND, _("There is no such conversation."));
      return NULL;
    }
  if (!load_common (self, error))
    return NULL;

  if (options->system_prompt != NULL)
    json_object_set_string_member (run_options, "systemPrompt", options->system_prompt);
  if (options->temperature >= 0)
    json_object_set_double_member (run_options, "temperature", options->temperature);
  if (options->max_tokens > 0)
    json_object_set_int_member (run_options, "maxTokens", options->max_tokens);
  self->row->options_json = _prs_run_object_to_string (run_options);

  trigger = prs_store_get_message (_prs_run_store (self), options->trigger_message_id, NULL);
  prompt_text = trigger != NULL
                ? json_object_get_string_member_with_default (json_node_get_object (trigger), "content", "")
                : "";

  with_history = g_strcmp0 (options->origin, PRS_RUN_ORIGIN_AGENT_INFERENCE) != 0;
  if (with_history)
    _prs_run_add_history (self, self->transcript, prs_runner_get_history_depth (runner));

  clean_prompt = prs_run_strip_invisible (prompt_text);
  prompt = json_object_new ();
  json_object_set_string_member (prompt, "role", "user");
  json_object_set_string_member (prompt, "text", clean_prompt);
  json_array_add_object_element (self->transcript, prompt);

  _prs_run_save (self);

  /* An allowed tool that is not discovered is said, not fatal */
  if (self->agent->allowed_tools != NULL)
    {
      tools = _prs_run_allowed_tools (self);
      for (guint i = 0; self->agent->allowed_tools[i] != NULL; i++)
        {
          gboolean found = FALSE;

          for (guint j = 0; j < tools->len; j++)
            found = found || g_strcmp0 (((PrsTool *) g_ptr_array_index (tools, j))->name,
                                        self->agent->allowed_tools[i]) == 0;
          if (!found)
            {
              g_autofree char *notice =
                g_strdup_printf (_("The agent’s tool “%s” is not discovered on n8n; the agent runs without it."),
                                 self->agent->allowed_tools[i]);

              _prs_run_add_notice (self, notice);
            }
        }
    }

  return g_steal_pointer (&self);
}

PrsRun *
prs_run_new_for_resume (PrsRunner  *runner,
                        PrsRunRow  *row,
                        GError    **error)
{
  g_autoptr(PrsRun) self = g_object_new (PRS_TYPE_RUN, NULL);

  self->runner = runner;
  self->row = row;
  if (!load_common (self, error))
    {
      self->row = NULL;
      return NULL;
    }
  return g_steal_pointer (&self);
}

void
prs_run_begin (PrsRun *self)
{
  _prs_run_advance (self);
}

void
prs_run_resume_after_restart (PrsRun *self)
{
  g_autoptr(GPtrArray) calls = prs_store_list_tool_calls (_prs_run_store (self), self->row->id, NULL);
  JsonObject *last = _prs_run_last_entry (self);

  /* A call that was running may have acted: never run it again unasked */
  for (guint i = 0; calls != NULL && i < calls->len; i++)
    {
      PrsToolCallRow *call = g_ptr_array_index (calls, i);

      if (g_strcmp0 (call->status, "running") == 0 || g_strcmp0 (call->status, "approved") == 0)
        {
          g_autoptr(JsonObject) extra = _prs_run_call_extra (self, call, NULL);

          json_object_remove_member (extra, "waitingForCallback");
          json_object_set_string_member (extra, "error", _("Prosponsive stopped while this call ran; it may or may not have acted."));
          _prs_run_save_call (self, call, "interrupted", extra);
        }
    }

  /* A reply that was streaming is kept as it was, and asked for again */
  if (last != NULL && g_strcmp0 (json_object_get_string_member_with_default (last, "role", ""), "assistant") != 0 &&
      self->row->assistant_message_id != NULL)
    {
      g_autoptr(JsonNode) message = prs_store_get_message (_prs_run_store (self), self->row->assistant_message_id, NULL);

      if (message != NULL &&
          g_strcmp0 (json_object_get_string_member_with_default (json_node_get_object (message), "status", ""),
                     "streaming") == 0)
        _prs_run_update_message (self, self->row->assistant_message_id, "interrupted", NULL, NULL);
    }

  /* Resting until someone decides; the run holds no slot */
  g_free (self->row->status);
  self->row->status = g_strdup (PRS_RUN_AWAITING_APPROVAL);
  _prs_run_save (self);
  _prs_run_advance (self);
}

/* ---- accessors ---- */

const char *
prs_run_get_id (PrsRun *self)
{
  g_return_val_if_fail (PRS_IS_RUN (self), NULL);
  return self->row->id;
}

const char *
prs_run_get_status (PrsRun *self)
{
  g_return_val_if_fail (PRS_IS_RUN (self), NULL);
  return self->row->status;
}

const char *
prs_run_get_conversation_id (PrsRun *self)
{
  g_return_val_if_fail (PRS_IS_RUN (self), NULL);
  return self->row->conversation_id;
}

const char *
prs_run_get_trigger_message_id (PrsRun *self)
{
  g_return_val_if_fail (PRS_IS_RUN (self), NULL);
  return self->row->trigger_message_id;
}

/* ---- GObject ---- */

static void
prs_run_dispose (GObject *object)
{
  PrsRun *self = PRS_RUN (object);

  g_clear_handle_id (&self->flush_id, g_source_remove);
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
}

static void
prs_run_init (PrsRun *self)
{
  self->executing = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
}
