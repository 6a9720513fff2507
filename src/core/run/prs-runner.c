/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-runner.c: schedules agent runs on the main thread. A run holds one of
 * PRS_RUNNER_MAX_ACTIVE slots while it works (calls the model or a tool)
 * and gives it back when it rests; the API thread takes slots ahead with
 * prs_runner_try_reserve (an atomic counter), in-app runs queue for one. */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "prs-error.h"
#include "prs-json.h"
#include "prs-run-private.h"
#include "prs-runner.h"
#include "prs-thread.h"

/* A waiting call whose time is up but whose end could not be stored is
 * ended again this long after */
#define EXPIRY_RETRY_S 1

struct _PrsRunner
{
  GObject              parent_instance;

  PrsRunEnv           *env;         /* what new runs are made with */

  GHashTable          *runs;        /* id → PrsRun*: runs not finished */
  GHashTable          *slotted;     /* PrsRun*: the runs that hold a slot */
  GQueue               queue;       /* PrsRun* waiting for a slot (a reference each) */
  gint                 busy;        /* atomic: slots taken (runs working + reservations) */
};

G_DEFINE_FINAL_TYPE (PrsRunner, prs_runner, G_TYPE_OBJECT)

enum
{
  SIGNAL_MESSAGE_ADDED,
  SIGNAL_MESSAGE_CHANGED,
  SIGNAL_APPROVAL_NEEDED,
  SIGNAL_RUN_CHANGED,
  SIGNAL_WORKFLOW_GONE,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

PrsRunner *
prs_runner_new (PrsRunEnv *env)
{
  PrsRunner *self;

  g_return_val_if_fail (env != NULL, NULL);
  PRS_ASSERT_MAIN_THREAD ();

  self = g_object_new (PRS_TYPE_RUNNER, NULL);
  self->env = prs_run_env_ref (env);
  return self;
}

void
prs_runner_set_limits (PrsRunner          *self,
                       const PrsRunLimits *limits)
{
  PrsRunEnv *env;

  g_return_if_fail (PRS_IS_RUNNER (self));
  g_return_if_fail (limits != NULL);
  PRS_ASSERT_MAIN_THREAD ();

  env = prs_run_env_new_with_limits (self->env, limits);
  prs_run_env_unref (self->env);
  self->env = env;
}

/* ---- slots ---- */

/* The three functions below are the only ones the API thread calls, and
 * touch nothing but the atomic counter: no PRS_ASSERT_MAIN_THREAD here, on
 * purpose (the API answers 429 without a hop to the main thread). */

gboolean
prs_runner_try_reserve (PrsRunner *self)
{
  g_return_val_if_fail (PRS_IS_RUNNER (self), FALSE);

  for (;;)
    {
      gint busy = g_atomic_int_get (&self->busy);

      if (busy >= PRS_RUNNER_MAX_ACTIVE)
        return FALSE;
      if (g_atomic_int_compare_and_exchange (&self->busy, busy, busy + 1))
        return TRUE;
    }
}

void
prs_runner_release_reservation (PrsRunner *self)
{
  g_return_if_fail (PRS_IS_RUNNER (self));
  g_atomic_int_add (&self->busy, -1);
}

guint
prs_runner_get_n_active (PrsRunner *self)
{
  g_return_val_if_fail (PRS_IS_RUNNER (self), 0);
  return (guint) MAX (g_atomic_int_get (&self->busy), 0);
}

static void
start_queued (PrsRunner *self)
{
  while (self->queue.length > 0 && prs_runner_try_reserve (self))
    {
      g_autoptr(PrsRun) run = g_queue_pop_head (&self->queue);

      g_hash_table_add (self->slotted, run);
      prs_run_begin (run);
    }
}

/* ---- what runs say ---- */

static void
on_run_message_added (PrsRun     *run,
                      const char *conversation_id,
                      const char *message_id,
                      PrsRunner  *self)
{
  g_signal_emit (self, signals[SIGNAL_MESSAGE_ADDED], 0, conversation_id, message_id);
}

static void
on_run_message_changed (PrsRun     *run,
                        const char *conversation_id,
                        const char *message_id,
                        PrsRunner  *self)
{
  g_signal_emit (self, signals[SIGNAL_MESSAGE_CHANGED], 0, conversation_id, message_id);
}

static void
on_run_approval_needed (PrsRun     *run,
                        const char *conversation_id,
                        const char *message_id,
                        const char *tool_name,
                        PrsRunner  *self)
{
  g_signal_emit (self, signals[SIGNAL_APPROVAL_NEEDED], 0, conversation_id, message_id, tool_name);
}

static void
on_run_workflow_gone (PrsRun     *run,
                      const char *tool_name,
                      PrsRunner  *self)
{
  g_signal_emit (self, signals[SIGNAL_WORKFLOW_GONE], 0, tool_name);
}

static void
on_run_working (PrsRun    *run,
                PrsRunner *self)
{
  /* An admitted run goes on even when the slots are full: a person
   * approved it and is waiting for it */
  if (g_hash_table_add (self->slotted, run))
    g_atomic_int_inc (&self->busy);
  g_signal_emit (self, signals[SIGNAL_RUN_CHANGED], 0, run);
}

static void
on_run_rested (PrsRun    *run,
               PrsRunner *self)
{
  if (g_hash_table_remove (self->slotted, run))
    g_atomic_int_add (&self->busy, -1);
  g_signal_emit (self, signals[SIGNAL_RUN_CHANGED], 0, run);
  if (prs_run_is_finished (run))
    {
      g_signal_handlers_disconnect_by_data (run, self);
      g_hash_table_remove (self->runs, prs_run_get_id (run));
    }
  start_queued (self);
}

/* The runner owns @run from now on and hears what it says */
static void
adopt (PrsRunner *self,
       PrsRun    *run)
{
  g_hash_table_insert (self->runs, g_strdup (prs_run_get_id (run)), g_object_ref (run));
  g_signal_connect (run, "message-added", G_CALLBACK (on_run_message_added), self);
  g_signal_connect (run, "message-changed", G_CALLBACK (on_run_message_changed), self);
  g_signal_connect (run, "approval-needed", G_CALLBACK (on_run_approval_needed), self);
  g_signal_connect (run, "working", G_CALLBACK (on_run_working), self);
  g_signal_connect (run, "rested", G_CALLBACK (on_run_rested), self);
  g_signal_connect (run, "workflow-gone", G_CALLBACK (on_run_workflow_gone), self);
}

/* ---- runs ---- */

PrsRun *
prs_runner_start (PrsRunner            *self,
                  const PrsRunOptions  *options,
                  gboolean              reserved,
                  GError              **error)
{
  g_autoptr(PrsRun) run = NULL;

  g_return_val_if_fail (PRS_IS_RUNNER (self), NULL);
  g_return_val_if_fail (options != NULL && options->conversation_id != NULL, NULL);
  PRS_ASSERT_MAIN_THREAD ();

  run = prs_run_new (self->env, options, error);
  if (run == NULL)
    {
      if (reserved)
        prs_runner_release_reservation (self);
      return NULL;
    }

  adopt (self, run);
  if (reserved || prs_runner_try_reserve (self))
    {
      g_hash_table_add (self->slotted, run);
      prs_run_begin (run);
    }
  else
    g_queue_push_tail (&self->queue, g_object_ref (run));

  return g_steal_pointer (&run);
}

gboolean
prs_runner_add_inbound (PrsRunner               *self,
                        const PrsMessageInsert  *message,
                        guint64                 *out_commit,
                        GError                 **error)
{
  PrsStore *store;
  g_autofree char *message_id = NULL;
  g_autoptr(GError) agent_error = NULL;

  g_return_val_if_fail (PRS_IS_RUNNER (self), FALSE);
  g_return_val_if_fail (message != NULL && message->conversation_id != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);
  PRS_ASSERT_MAIN_THREAD ();

  /* On the connection the run goes on writing with: a commit by another
   * connection would make this one read its pages again (docs/storage.md) */
  store = self->env->store;
  if (!prs_store_batch_begin (store, PRS_STORE_SYNC_LATER, error))
    return FALSE;
  if (!prs_store_insert_message (store, message, &message_id, NULL, error))
    {
      prs_store_batch_end (store, NULL);
      return FALSE;
    }
  /* A conversation without an agent takes the one its first inbound run
   * names (docs/conversations.md): replies in the window use it too */
  if (message->agent_id != NULL &&
      !prs_store_adopt_conversation_agent (store, message->conversation_id, message->agent_id, NULL,
                                           &agent_error))
    g_message ("Could not set the agent of conversation %s: %s", message->conversation_id,
               agent_error->message);
  if (!prs_store_batch_end (store, error))
    return FALSE;

  *out_commit = prs_store_get_last_commit (store);
  g_signal_emit (self, signals[SIGNAL_MESSAGE_ADDED], 0, message->conversation_id, message_id);
  return TRUE;
}

PrsRun *
prs_runner_start_chat (PrsRunner   *self,
                       const char  *conversation_id,
                       const char  *agent_id,
                       GError     **error)
{
  g_autoptr(JsonArray) messages = NULL;
  guint count = 0;
  const char *trigger = NULL;
  PrsRunOptions options = { 0 };

  g_return_val_if_fail (PRS_IS_RUNNER (self), NULL);
  PRS_ASSERT_MAIN_THREAD ();

  if (!prs_store_count_messages (self->env->store, conversation_id, &count, NULL, NULL, error))
    return NULL;
  messages = prs_store_list_messages_at (self->env->store, conversation_id, count > 20 ? count - 20 : 0, 20, error);
  if (messages == NULL)
    return NULL;
  for (guint i = json_array_get_length (messages); i > 0; i--)
    {
      JsonObject *message = json_array_get_object_element (messages, i - 1);

      if (g_strcmp0 (json_object_get_string_member_with_default (message, "kind", ""), "user") == 0 &&
          json_object_get_string_member_with_default (message, "supersededAt", NULL) == NULL)
        {
          trigger = json_object_get_string_member (message, "id");
          if (agent_id == NULL)
            agent_id = json_object_get_string_member_with_default (message, "agentId", NULL);
          break;
        }
    }
  if (trigger == NULL)
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_NOT_FOUND, _("There is no message to answer."));
      return NULL;
    }

  options.origin = PRS_RUN_ORIGIN_CHAT;
  options.conversation_id = conversation_id;
  options.agent_id = agent_id;
  options.trigger_message_id = trigger;
  options.temperature = -1;
  return prs_runner_start (self, &options, FALSE, error);
}

static void resume_expiry (PrsRunner       *self,
                           const PrsRunRow *row);

static void
store_start (gpointer key,
             gpointer value,
             gpointer user_data)
{
  prs_run_store_start (PRS_RUN (value));
}

void
prs_runner_resume (PrsRunner *self)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) rows = NULL;

  g_return_if_fail (PRS_IS_RUNNER (self));
  PRS_ASSERT_MAIN_THREAD ();

  /* Runs started already (a schedule's, at start) are told from those */
  g_hash_table_foreach (self->runs, store_start, NULL);
  /* Requests stored before a crash whose runs never began: failed, with a
   * Retry in the conversation, until their workflow sends them again */
  if (prs_store_interrupt_orphan_inbound (self->env->store,
                                          "{\"success\":false,\"code\":\"" PRS_INBOUND_REASON_INTERRUPTED "\","
                                          "\"error\":\"Prosponsive stopped before it answered this request; "
                                          "send it again or retry it in Prosponsive.\"}",
                                          _("Prosponsive stopped before it answered this request. Retry it, or let the workflow send it again."),
                                          &error) < 0)
    {
      g_message ("Could not mark the unanswered requests: %s", error->message);
      g_clear_error (&error);
    }

  rows = prs_store_list_unfinished_runs (self->env->store, &error);
  if (rows == NULL)
    {
      g_message ("Could not read the unfinished agent runs: %s", error->message);
      return;
    }

  /* Take the rows: each run owns its own */
  g_ptr_array_set_free_func (rows, NULL);
  for (guint i = 0; i < rows->len; i++)
    {
      PrsRunRow *row = g_ptr_array_index (rows, i);
      g_autoptr(GError) local_error = NULL;
      g_autoptr(PrsRun) run = NULL;

      if (g_hash_table_contains (self->runs, row->id))
        {
          prs_run_row_free (row);
          continue;
        }
      run = prs_run_new_for_resume (self->env, row, &local_error);
      if (run == NULL)
        {
          g_message ("Agent run %s cannot go on: %s", row->id, local_error->message);
          row->status = (g_free (row->status), g_strdup (PRS_RUN_FAILED));
          row->error = (g_free (row->error), g_strdup (local_error->message));
          prs_store_save_run (self->env->store, row, NULL);
          prs_run_row_free (row);
          continue;
        }
      adopt (self, run);
      prs_run_resume_after_restart (run);
      resume_expiry (self, row);
    }
}

PrsRun *
prs_runner_lookup_run (PrsRunner  *self,
                       const char *run_id)
{
  g_return_val_if_fail (PRS_IS_RUNNER (self), NULL);
  PRS_ASSERT_MAIN_THREAD ();
  return run_id != NULL ? g_hash_table_lookup (self->runs, run_id) : NULL;
}

PrsRun *
prs_runner_get_conversation_run (PrsRunner  *self,
                                 const char *conversation_id)
{
  GHashTableIter iter;
  gpointer value;
  PrsRun *found = NULL;

  g_return_val_if_fail (PRS_IS_RUNNER (self), NULL);
  PRS_ASSERT_MAIN_THREAD ();

  g_hash_table_iter_init (&iter, self->runs);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    if (g_strcmp0 (prs_run_get_conversation_id (value), conversation_id) == 0 &&
        !prs_run_is_finished (value))
      found = value;
  return found;
}

static PrsRun *
run_of_call (PrsRunner   *self,
             const char  *message_id,
             GError     **error)
{
  g_autoptr(PrsToolCallRow) call = prs_store_lookup_tool_call (self->env->store, message_id, error);
  PrsRun *run;

  if (call == NULL)
    {
      if (error != NULL && *error == NULL)
        g_set_error (error, PRS_ERROR, PRS_ERROR_NOT_FOUND, _("There is no such tool call."));
      return NULL;
    }
  run = g_hash_table_lookup (self->runs, call->run_id);
  if (run == NULL)
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT, _("The agent run of this tool call has ended."));
      return NULL;
    }
  return run;
}

/* The run of the call, held while it decides (a decision may end it) */
static PrsRun *
hold_run_of_call (PrsRunner   *self,
                  const char  *message_id,
                  GError     **error)
{
  PrsRun *run;

  g_return_val_if_fail (PRS_IS_RUNNER (self), NULL);
  g_return_val_if_fail (message_id != NULL, NULL);
  PRS_ASSERT_MAIN_THREAD ();

  run = run_of_call (self, message_id, error);
  return run != NULL ? g_object_ref (run) : NULL;
}

static gboolean
decide (PrsRunner   *self,
        const char  *message_id,
        const char  *action,
        const char  *arguments_json,
        gboolean     whole_turn,
        GError     **error)
{
  g_autoptr(PrsRun) run = hold_run_of_call (self, message_id, error);

  return run != NULL && prs_run_decide (run, message_id, action, arguments_json, whole_turn, error);
}

gboolean
prs_runner_approve (PrsRunner   *self,
                    const char  *message_id,
                    const char  *arguments_json,
                    GError     **error)
{
  return decide (self, message_id, "approve", arguments_json, FALSE, error);
}

gboolean
prs_runner_approve_all (PrsRunner   *self,
                        const char  *message_id,
                        const char  *arguments_json,
                        GError     **error)
{
  return decide (self, message_id, "approve", arguments_json, TRUE, error);
}

gboolean
prs_runner_deny (PrsRunner   *self,
                 const char  *message_id,
                 GError     **error)
{
  return decide (self, message_id, "deny", NULL, FALSE, error);
}

PrsRunEnv *
prs_runner_get_env (PrsRunner *self)
{
  g_return_val_if_fail (PRS_IS_RUNNER (self), NULL);
  PRS_ASSERT_MAIN_THREAD ();
  return self->env;
}

gboolean
prs_runner_expire_call (PrsRunner   *self,
                        const char  *message_id,
                        guint        seconds,
                        GError     **error)
{
  g_autoptr(PrsRun) run = hold_run_of_call (self, message_id, error);

  return run != NULL && prs_run_expire_call (run, message_id, seconds, error);
}

typedef struct
{
  PrsRunner *runner;
  char      *run_id;
  guint      timeout;
} Expiry;

static void
expiry_free (Expiry *expiry)
{
  g_object_unref (expiry->runner);
  g_free (expiry->run_id);
  g_free (expiry);
}

/* The time for a person is up: a call still proposed is denied as timed
 * out (docs/mcp.md); one decided meanwhile is left as it is */
static gboolean
on_expiry (gpointer user_data)
{
  Expiry *expiry = user_data;
  g_autoptr(GPtrArray) calls = prs_store_list_tool_calls (expiry->runner->env->store, expiry->run_id, NULL);
  gboolean again = FALSE;

  for (guint i = 0; calls != NULL && i < calls->len; i++)
    {
      PrsToolCallRow *call = g_ptr_array_index (calls, i);
      g_autoptr(GError) error = NULL;

      if (g_strcmp0 (call->status, "proposed") == 0 &&
          !prs_runner_expire_call (expiry->runner, call->id, expiry->timeout, &error))
        {
          g_message ("Could not end the waiting tool call %s: %s", call->id, error->message);
          /* Nothing was stored (the database busy, full): nothing else
           * would ever end it, so it is tried again */
          again = again || g_error_matches (error, PRS_ERROR, PRS_ERROR_STORE_BUSY) ||
                  g_error_matches (error, PRS_ERROR, PRS_ERROR_STORE_FULL);
        }
    }
  if (again)
    prs_runner_expire_calls_after (expiry->runner, expiry->run_id, expiry->timeout, EXPIRY_RETRY_S);
  return G_SOURCE_REMOVE;
}

void
prs_runner_expire_calls_after (PrsRunner  *self,
                               const char *run_id,
                               guint       timeout,
                               guint       delay)
{
  Expiry *expiry;

  g_return_if_fail (PRS_IS_RUNNER (self));
  g_return_if_fail (run_id != NULL);
  PRS_ASSERT_MAIN_THREAD ();

  expiry = g_new0 (Expiry, 1);
  expiry->runner = g_object_ref (self);
  expiry->run_id = g_strdup (run_id);
  expiry->timeout = timeout;
  if (delay == 0)
    {
      on_expiry (expiry);
      expiry_free (expiry);
      return;
    }
  g_timeout_add_seconds_full (G_PRIORITY_DEFAULT, delay, on_expiry, expiry, (GDestroyNotify) expiry_free);
}

/* After a restart, an MCP client's call waiting for a person gets what is
 * left of its time from the run's start (the time given when it was asked
 * for, or the default for runs that did not keep one); none left: it
 * expires now. Nothing else would ever end it. */
static void
resume_expiry (PrsRunner       *self,
               const PrsRunRow *row)
{
  g_autoptr(JsonObject) options = NULL;
  g_autoptr(GDateTime) started = NULL;
  g_autoptr(GDateTime) now = g_date_time_new_now_utc ();
  gint64 timeout = PRS_RUN_DEFAULT_APPROVAL_TIMEOUT;
  gint64 elapsed;

  if (g_strcmp0 (row->origin, PRS_RUN_ORIGIN_MCP_CLIENT) != 0)
    return;
  options = _prs_run_parse_object (row->options_json);
  if (options != NULL)
    timeout = json_object_get_int_member_with_default (options, "approvalTimeoutSeconds",
                                                       PRS_RUN_DEFAULT_APPROVAL_TIMEOUT);
  timeout = CLAMP (timeout, 1, G_MAXUINT);
  started = row->created_at != NULL ? g_date_time_new_from_iso8601 (row->created_at, NULL) : NULL;
  /* A start time that cannot be read (or lies ahead) restarts the clock */
  elapsed = started != NULL ? MAX (g_date_time_difference (now, started) / G_TIME_SPAN_SECOND, 0) : 0;
  prs_runner_expire_calls_after (self, row->id, (guint) timeout, (guint) MAX (timeout - elapsed, 0));
}

gboolean
prs_runner_withdraw_call (PrsRunner   *self,
                          const char  *message_id,
                          GError     **error)
{
  g_autoptr(PrsRun) run = hold_run_of_call (self, message_id, error);

  return run != NULL && prs_run_withdraw_call (run, message_id, error);
}

gboolean
prs_runner_retry (PrsRunner   *self,
                  const char  *message_id,
                  GError     **error)
{
  return decide (self, message_id, "retry", NULL, FALSE, error);
}

/* What a retry of an inbound message runs with, and the memory its
 * options point into */
typedef struct
{
  PrsRunOptions  options;
  JsonNode      *message;
  PrsRunRow     *last;          /* the message's last run, or NULL */
  JsonNode      *last_options;  /* its options_json, parsed */
  char          *context_json;
  char          *execution_json;
} Retry;

static void
retry_clear (Retry *retry)
{
  g_clear_pointer (&retry->message, json_node_unref);
  g_clear_pointer (&retry->last, prs_run_row_free);
  g_clear_pointer (&retry->last_options, json_node_unref);
  g_clear_pointer (&retry->context_json, g_free);
  g_clear_pointer (&retry->execution_json, g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Retry, retry_clear)

/* The stored message @message_id, when it is an inbound one whose answer
 * failed and no run answers it now */
static JsonNode *
retryable_inbound (PrsRunner   *self,
                   const char  *message_id,
                   GError     **error)
{
  g_autoptr(JsonNode) message = prs_store_get_message (self->env->store, message_id, NULL);
  JsonObject *object;
  GHashTableIter iter;
  gpointer value;

  if (message == NULL)
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_NOT_FOUND, _("There is no such message."));
      return NULL;
    }
  object = json_node_get_object (message);
  if (g_strcmp0 (json_object_get_string_member_with_default (object, "kind", NULL), "inbound") != 0 ||
      g_strcmp0 (json_object_get_string_member_with_default (object, "status", NULL), "failed") != 0)
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                   _("Only a request whose answer failed can be retried."));
      return NULL;
    }
  g_hash_table_iter_init (&iter, self->runs);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    if (g_strcmp0 (prs_run_get_trigger_message_id (value), message_id) == 0 && !prs_run_is_finished (value))
      {
        g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT, _("This request is being answered already."));
        return NULL;
      }
  return g_steal_pointer (&message);
}

/* The conversation, agent, origin, Request Context, execution and
 * options of the message's last run, or, without one, the message's own
 * and the default agent */
static gboolean
read_retry (PrsRunner   *self,
            const char  *message_id,
            Retry       *retry,
            GError     **error)
{
  PrsRunOptions *options = &retry->options;
  g_autoptr(GError) local_error = NULL;
  JsonObject *object, *stored = NULL;
  JsonNode *node;

  retry->message = retryable_inbound (self, message_id, error);
  if (retry->message == NULL)
    return FALSE;
  object = json_node_get_object (retry->message);
  retry->last = prs_store_lookup_run_by_trigger (self->env->store, message_id, &local_error);
  if (local_error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&local_error));
      return FALSE;
    }

  options->conversation_id = json_object_get_string_member_with_default (object, "conversationId", NULL);
  options->trigger_message_id = message_id;
  options->temperature = -1;
  if (retry->last != NULL)
    {
      options->origin = retry->last->origin;
      options->agent_id = retry->last->agent_id;
      options->context_json = retry->last->context_json;
      options->execution_json = retry->last->execution_json;
      if (retry->last->options_json != NULL)
        retry->last_options = prs_json_parse_bounded (retry->last->options_json, strlen (retry->last->options_json),
                                                      PRS_JSON_DEFAULT_MAX_DEPTH, NULL);
      if (retry->last_options != NULL && JSON_NODE_HOLDS_OBJECT (retry->last_options))
        stored = json_node_get_object (retry->last_options);
    }
  else
    {
      options->origin = PRS_RUN_ORIGIN_AGENT_INFERENCE;
      options->agent_id = json_object_get_string_member_with_default (object, "agentId", NULL);
      if ((node = json_object_get_member (object, "context")) != NULL && !JSON_NODE_HOLDS_NULL (node))
        options->context_json = retry->context_json = prs_json_to_string (node, FALSE);
      if ((node = json_object_get_member (object, "execution")) != NULL && !JSON_NODE_HOLDS_NULL (node))
        options->execution_json = retry->execution_json = prs_json_to_string (node, FALSE);
    }
  if (stored != NULL)
    {
      options->system_prompt = json_object_get_string_member_with_default (stored, "systemPrompt", NULL);
      if (json_object_has_member (stored, "temperature"))
        options->temperature = json_object_get_double_member (stored, "temperature");
      if (json_object_has_member (stored, "maxTokens"))
        options->max_tokens = (guint) json_object_get_int_member (stored, "maxTokens");
    }
  return TRUE;
}

PrsRun *
prs_runner_retry_inbound (PrsRunner   *self,
                          const char  *message_id,
                          GError     **error)
{
  g_auto(Retry) retry = { { 0 } };
  PrsRun *run;

  g_return_val_if_fail (PRS_IS_RUNNER (self), NULL);
  g_return_val_if_fail (message_id != NULL, NULL);
  PRS_ASSERT_MAIN_THREAD ();

  if (!read_retry (self, message_id, &retry, error))
    return NULL;

  if (!prs_store_update_message (self->env->store, message_id, "pending", NULL, NULL, error))
    return NULL;
  g_signal_emit (self, signals[SIGNAL_MESSAGE_CHANGED], 0, retry.options.conversation_id, message_id);

  run = prs_runner_start (self, &retry.options, FALSE, error);
  if (run == NULL)
    {
      /* Still retryable */
      prs_store_update_message (self->env->store, message_id, "failed", NULL, NULL, NULL);
      g_signal_emit (self, signals[SIGNAL_MESSAGE_CHANGED], 0, retry.options.conversation_id, message_id);
    }
  return run;
}

gboolean
prs_runner_tool_action (PrsRunner   *self,
                        const char  *message_id,
                        const char  *action,
                        const char  *arguments_json,
                        GError     **error)
{
  g_return_val_if_fail (action != NULL, FALSE);
  PRS_ASSERT_MAIN_THREAD ();

  if (g_str_equal (action, "approve") || g_str_equal (action, "edit"))
    return prs_runner_approve (self, message_id, arguments_json, error);
  if (g_str_equal (action, "approve-all"))
    return prs_runner_approve_all (self, message_id, arguments_json, error);
  if (g_str_equal (action, "deny"))
    return prs_runner_deny (self, message_id, error);
  if (g_str_equal (action, "retry"))
    return prs_runner_retry (self, message_id, error);
  if (g_str_equal (action, "retry-inbound"))
    {
      g_autoptr(PrsRun) run = prs_runner_retry_inbound (self, message_id, error);

      return run != NULL;
    }

  g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT, _("Unknown action “%s”."), action);
  return FALSE;
}

gboolean
prs_runner_cancel (PrsRunner   *self,
                   const char  *run_id,
                   GError     **error)
{
  PrsRun *run;
  g_autoptr(PrsRun) keep = NULL;
  int queued;

  g_return_val_if_fail (PRS_IS_RUNNER (self), FALSE);
  PRS_ASSERT_MAIN_THREAD ();

  run = prs_runner_lookup_run (self, run_id);
  if (run == NULL)
    return TRUE;
  keep = g_object_ref (run);
  /* Out of the queue while it ends, so that the slot its rest frees does
   * not start it */
  queued = g_queue_index (&self->queue, run);
  if (queued >= 0)
    g_queue_pop_nth (&self->queue, queued);
  if (!prs_run_cancel (run, error))
    {
      /* Not stopped: it waits for its slot where it was */
      if (queued >= 0)
        g_queue_push_nth (&self->queue, run, queued);
      return FALSE;
    }
  if (queued >= 0)
    g_object_unref (run);
  return TRUE;
}

gboolean
prs_runner_is_idle (PrsRunner *self)
{
  GHashTableIter iter;
  gpointer value;

  g_return_val_if_fail (PRS_IS_RUNNER (self), TRUE);
  PRS_ASSERT_MAIN_THREAD ();

  g_hash_table_iter_init (&iter, self->runs);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    if (!prs_run_is_resting (value))
      return FALSE;
  return TRUE;
}

/* ---- GObject ---- */

static void
prs_runner_dispose (GObject *object)
{
  PrsRunner *self = PRS_RUNNER (object);

  if (self->runs != NULL)
    {
      GHashTableIter iter;
      gpointer value;

      /* Nothing is written from here on: what is stored is what a restart finds */
      g_hash_table_iter_init (&iter, self->runs);
      while (g_hash_table_iter_next (&iter, NULL, &value))
        {
          g_signal_handlers_disconnect_by_data (value, self);
          prs_run_detach (value);
        }
      g_clear_pointer (&self->runs, g_hash_table_unref);
    }
  g_clear_pointer (&self->slotted, g_hash_table_unref);
  g_queue_clear_full (&self->queue, g_object_unref);
  g_clear_pointer (&self->env, prs_run_env_unref);

  G_OBJECT_CLASS (prs_runner_parent_class)->dispose (object);
}

static void
prs_runner_class_init (PrsRunnerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = prs_runner_dispose;

  /**
   * PrsRunner::message-added:
   * @conversation_id: the conversation
   * @message_id: the message a run stored
   */
  signals[SIGNAL_MESSAGE_ADDED] =
    g_signal_new ("message-added", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_STRING);
  /**
   * PrsRunner::message-changed:
   * @conversation_id: the conversation
   * @message_id: a message whose status, text or extra data changed
   */
  signals[SIGNAL_MESSAGE_CHANGED] =
    g_signal_new ("message-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_STRING);
  /**
   * PrsRunner::approval-needed:
   * @conversation_id: the conversation
   * @message_id: the tool-call message that waits
   * @tool_name: the tool
   */
  signals[SIGNAL_APPROVAL_NEEDED] =
    g_signal_new ("approval-needed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 3, G_TYPE_STRING, G_TYPE_STRING, G_TYPE_STRING);
  /**
   * PrsRunner::run-changed:
   * @run: a run that started working, rested or ended
   */
  signals[SIGNAL_RUN_CHANGED] =
    g_signal_new ("run-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, PRS_TYPE_RUN);
  /**
   * PrsRunner::workflow-gone:
   * @tool_name: a tool whose webhook answered 404 in one of its runs
   */
  signals[SIGNAL_WORKFLOW_GONE] =
    g_signal_new ("workflow-gone", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
}

static void
prs_runner_init (PrsRunner *self)
{
  self->runs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_object_unref);
  self->slotted = g_hash_table_new (NULL, NULL);
  g_queue_init (&self->queue);
}
