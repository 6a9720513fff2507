/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-api-inference.c: POST /api/ai/agent-inference and /api/ai/inference.
 * The request is checked whole; its duplicate key decides whether it is a
 * retry (the first answer), a reused idempotencyKey (409) or new; a new
 * one's conversation and agent are looked up on the main thread, and its
 * inbound message is committed there before any run starts; the answer
 * waits for the run to rest, or the wait to end. Whichever thread looks,
 * the answers come in one order: 400, 404, the first answer or 409, 429. */
#include "config.h"

#include <string.h>

#include "prs-api-idempotency.h"
#include "prs-api-routes-private.h"
#include "prs-control-chars.h"
#include "prs-error.h"
#include "prs-json.h"
#include "prs-run.h"

#define MAX_CONTEXT_BYTES     (256 * 1024)
#define MAX_IDEMPOTENCY_CHARS 1024

#define NO_PROVIDER_MESSAGE \
  "No AI provider is configured; the message was stored and can be retried from Prosponsive."

/* One inference request, checked. Strings point into @body. */
typedef struct
{
  gboolean    with_history;
  JsonNode   *body;
  const char *prompt;
  const char *conversation_id;
  const char *agent_id;
  const char *idempotency_key;
  const char *system_prompt;
  JsonNode   *context;
  double      temperature;       /* -1: not given */
  guint       max_tokens;        /* 0: not given */
  char       *workflow_id;
  char       *execution_id;
  char       *context_json;
  char       *execution_json;
  char       *dedup_key;
} Inference;

static void
inference_clear (Inference *inference)
{
  g_clear_pointer (&inference->body, json_node_unref);
  g_clear_pointer (&inference->workflow_id, g_free);
  g_clear_pointer (&inference->execution_id, g_free);
  g_clear_pointer (&inference->context_json, g_free);
  g_clear_pointer (&inference->execution_json, g_free);
  g_clear_pointer (&inference->dedup_key, g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Inference, inference_clear)

static const char *
route_name (const Inference *inference)
{
  return inference->with_history ? "inference" : "agent-inference";
}

static PrsApiRequestIdentity
identity_of (const Inference *inference)
{
  PrsApiRequestIdentity identity = { 0 };

  identity.route = route_name (inference);
  identity.conversation_id = inference->conversation_id;
  identity.agent_id = inference->agent_id;
  identity.idempotency_key = inference->idempotency_key;
  identity.workflow_id = inference->workflow_id;
  identity.execution_id = inference->execution_id;
  identity.prompt = inference->prompt;
  identity.context = inference->context;
  return identity;
}

/* ---- checking the request ---- */

static guint
node_depth (JsonNode *node)
{
  guint max_child = 0;

  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObjectIter iter;
      JsonNode *child;

      json_object_iter_init (&iter, json_node_get_object (node));
      while (json_object_iter_next (&iter, NULL, &child))
        {
          guint d = node_depth (child);   /* once: MAX () evaluates twice */

          max_child = MAX (max_child, d);
        }
      return max_child + 1;
    }
  if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *array = json_node_get_array (node);

      for (guint i = 0; i < json_array_get_length (array); i++)
        {
          guint d = node_depth (json_array_get_element (array, i));

          max_child = MAX (max_child, d);
        }
      return max_child + 1;
    }
  return 0;
}

/* execution.workflowId / executionId: strings, or integers (n8n gives both) */
static gboolean
get_execution_id (SoupServerMessage *msg,
                  JsonObject        *execution,
                  const char        *name,
                  const char        *display_name,
                  char             **out)
{
  JsonNode *node = json_object_get_member (execution, name);

  *out = NULL;
  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return TRUE;
  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    {
      const char *value = json_node_get_string (node);

      if (value[0] == '\0')
        return TRUE;
      if (g_utf8_strlen (value, -1) > PRS_API_MAX_ID_CHARS)
        return prs_api_field_error (msg, display_name, "must be at most 256 characters");
      *out = g_strdup (value);
      return TRUE;
    }
  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_INT64)
    {
      *out = g_strdup_printf ("%" G_GINT64_FORMAT, json_node_get_int (node));
      return TRUE;
    }

  return prs_api_field_error (msg, display_name, "must be a string");
}

/* /api/ai/inference: context.activeAgentId, systemPrompt, temperature, maxTokens */
static gboolean
check_history_fields (SoupServerMessage *msg,
                      JsonObject        *object,
                      Inference         *inference)
{
  JsonNode *member;

  if (!prs_api_get_object (msg, object, "context", "context", TRUE, &inference->context) ||
      !prs_api_get_string (msg, json_node_get_object (inference->context), "activeAgentId",
                           "context.activeAgentId", TRUE, TRUE, PRS_API_MAX_ID_CHARS, &inference->agent_id) ||
      !prs_api_get_string (msg, object, "systemPrompt", "systemPrompt", FALSE, FALSE, 0,
                           &inference->system_prompt))
    return FALSE;

  member = json_object_get_member (object, "temperature");
  if (member != NULL && !JSON_NODE_HOLDS_NULL (member))
    {
      GType type = JSON_NODE_HOLDS_VALUE (member) ? json_node_get_value_type (member) : G_TYPE_INVALID;

      if (type != G_TYPE_DOUBLE && type != G_TYPE_INT64)
        return prs_api_field_error (msg, "temperature", "must be a number");
      inference->temperature = type == G_TYPE_DOUBLE ? json_node_get_double (member)
                                                     : (double) json_node_get_int (member);
      if (inference->temperature < 0.0 || inference->temperature > 2.0)
        return prs_api_field_error (msg, "temperature", "must be between 0 and 2");
    }

  member = json_object_get_member (object, "maxTokens");
  if (member != NULL && !JSON_NODE_HOLDS_NULL (member))
    {
      if (!JSON_NODE_HOLDS_VALUE (member) || json_node_get_value_type (member) != G_TYPE_INT64)
        return prs_api_field_error (msg, "maxTokens", "must be an integer");
      if (json_node_get_int (member) < 1 || json_node_get_int (member) > 1000000)
        return prs_api_field_error (msg, "maxTokens", "must be between 1 and 1000000");
      inference->max_tokens = (guint) json_node_get_int (member);
    }

  return TRUE;
}

/* execution, normalized to {workflowId, executionId} as strings or null */
static gboolean
check_execution (SoupServerMessage *msg,
                 JsonObject        *object,
                 Inference         *inference)
{
  g_autoptr(JsonObject) normalized = NULL;
  g_autoptr(JsonNode) node = NULL;
  JsonNode *execution;

  if (!prs_api_get_object (msg, object, "execution", "execution", FALSE, &execution))
    return FALSE;
  if (execution == NULL)
    return TRUE;

  if (!get_execution_id (msg, json_node_get_object (execution), "workflowId", "execution.workflowId",
                         &inference->workflow_id) ||
      !get_execution_id (msg, json_node_get_object (execution), "executionId", "execution.executionId",
                         &inference->execution_id))
    return FALSE;

  normalized = json_object_new ();
  if (inference->workflow_id != NULL)
    json_object_set_string_member (normalized, "workflowId", inference->workflow_id);
  else
    json_object_set_null_member (normalized, "workflowId");
  if (inference->execution_id != NULL)
    json_object_set_string_member (normalized, "executionId", inference->execution_id);
  else
    json_object_set_null_member (normalized, "executionId");
  node = json_node_init_object (json_node_alloc (), normalized);
  inference->execution_json = prs_json_to_string (node, FALSE);
  return TRUE;
}

/* The body, field by field; FALSE after answering 4xx */
static gboolean
check_fields (SoupServerMessage *msg,
              Inference         *inference)
{
  JsonObject *object = json_node_get_object (inference->body);

  if (!prs_api_get_string (msg, object, "prompt", "prompt", TRUE, TRUE, 0, &inference->prompt))
    return FALSE;
  /* White space alone asks the agent nothing: refused as a blank slug is
   * (docs/api.md); a prompt with words keeps its white space as sent */
  if (prs_text_is_blank (inference->prompt))
    return prs_api_field_error (msg, "prompt", "must not be empty");
  if (!prs_api_get_string (msg, object, "conversationId", "conversationId", TRUE, TRUE,
                           PRS_API_MAX_ID_CHARS, &inference->conversation_id))
    return FALSE;

  if (inference->with_history)
    {
      if (!check_history_fields (msg, object, inference))
        return FALSE;
    }
  else if (!prs_api_get_string (msg, object, "agentId", "agentId", TRUE, TRUE, PRS_API_MAX_ID_CHARS,
                                &inference->agent_id) ||
           !prs_api_get_object (msg, object, "context", "context", FALSE, &inference->context))
    return FALSE;

  if (!check_execution (msg, object, inference) ||
      !prs_api_get_string (msg, object, "idempotencyKey", "idempotencyKey", FALSE, TRUE,
                           MAX_IDEMPOTENCY_CHARS, &inference->idempotency_key))
    return FALSE;

  if (inference->context != NULL)
    {
      if (node_depth (inference->context) > PRS_API_MAX_CONTEXT_DEPTH)
        return prs_api_field_error (msg, "context", "is nested deeper than 32 levels");
      inference->context_json = prs_json_to_string (inference->context, FALSE);
      if (strlen (inference->context_json) > MAX_CONTEXT_BYTES)
        return prs_api_field_error (msg, "context", "is larger than 256 KiB");
    }

  return TRUE;
}

/* The conversation and the agent, read through @store (either thread's):
 * NULL when both exist (the agent in @out_agent, when given), else the 404
 * to answer with */
static JsonObject *
missing_answer (PrsStore        *store,
                const Inference *inference,
                PrsAgent       **out_agent)
{
  g_autoptr(PrsAgent) agent = NULL;

  if (!prs_store_has_conversation (store, inference->conversation_id))
    return prs_api_error_object ("conversation-not-found",
                                 "There is no conversation with this conversationId.");

  agent = prs_store_lookup_agent (store, inference->agent_id, NULL);
  if (agent == NULL)
    return prs_api_error_object ("agent-not-found",
                                 inference->with_history ? "There is no agent with this context.activeAgentId."
                                                         : "There is no agent with this agentId.");
  if (out_agent != NULL)
    *out_agent = g_steal_pointer (&agent);
  return NULL;
}

/* On the API thread: the conversation and the agent; FALSE after answering */
static gboolean
check_exists (PrsApiRoutes      *routes,
              SoupServerMessage *msg,
              const Inference   *inference)
{
  JsonObject *missing = missing_answer (routes->store, inference, NULL);

  if (missing == NULL)
    return TRUE;
  prs_api_respond_json (msg, SOUP_STATUS_NOT_FOUND, json_node_init_object (json_node_alloc (), missing));
  json_object_unref (missing);
  return FALSE;
}

/* ---- duplicates ---- */

/* A reused idempotencyKey whose request says something else: 409, so that
 * a workflow bug (one key for every email) is seen instead of answered
 * with another email's reply. */
static JsonNode *
key_reused_answer (const char *message_id)
{
  JsonObject *object = prs_api_error_object ("idempotency-key-reused",
                                             "This idempotencyKey was already used in this conversation for a "
                                             "request with a different prompt or context; nothing was stored. "
                                             "Use a new key for a new request (a retry must repeat the prompt "
                                             "and context exactly; only execution may change).");

  json_object_set_string_member (object, "messageId", message_id);
  return json_node_init_object (json_node_alloc (), object);
}

/* The answer stored with an inbound message whose request was answered
 * without a run (or before its run began), with its status */
static JsonNode *
stored_answer (JsonNode   *message,
               const char *message_id,
               guint      *status)
{
  JsonNode *extra = json_object_get_member (json_node_get_object (message), "extra");
  JsonObject *answer;

  *status = SOUP_STATUS_SERVICE_UNAVAILABLE;
  if (extra != NULL && JSON_NODE_HOLDS_OBJECT (extra) &&
      json_object_has_member (json_node_get_object (extra), "answer") &&
      JSON_NODE_HOLDS_OBJECT (json_object_get_member (json_node_get_object (extra), "answer")))
    {
      JsonObject *extra_object = json_node_get_object (extra);

      answer = json_object_ref (json_object_get_object_member (extra_object, "answer"));
      *status = (guint) json_object_get_int_member_with_default (extra_object, "httpStatus",
                                                                 SOUP_STATUS_SERVICE_UNAVAILABLE);
    }
  else
    {
      /* Stored by a build that kept no answer: it can only have failed */
      answer = prs_api_error_object ("no-provider", NO_PROVIDER_MESSAGE);
    }

  json_object_set_string_member (answer, "messageId", message_id);
  return json_node_init_object (json_node_alloc (), answer);
}

static gboolean
is_orphan (JsonNode *message)
{
  JsonObject *object = json_node_get_object (message);
  JsonNode *extra = json_object_get_member (object, "extra");

  return extra != NULL && JSON_NODE_HOLDS_OBJECT (extra) &&
         g_strcmp0 (json_object_get_string_member_with_default (object, "status", ""), "failed") == 0 &&
         g_strcmp0 (json_object_get_string_member_with_default (json_node_get_object (extra), "reason", ""),
                    PRS_INBOUND_REASON_INTERRUPTED) == 0;
}

/* What a request hears whose duplicate key a stored message carries
 * (@known_id when the caller found it, else looked up here), read through
 * @store (either thread's): that message's stored answer,
 * or 409 when the request reuses an idempotencyKey for something else;
 * NULL when no message carries it. A message whose run never began because
 * Prosponsive stopped first (marked "interrupted" at the next start) has no
 * answer to replay: when @orphan is given, that stored message is returned
 * there instead (and NULL), so that this request answers it (nothing acted
 * for it yet, and no one heard back). */
static JsonNode *
duplicate_answer (PrsStore        *store,
                  const Inference *inference,
                  const char      *known_id,
                  guint           *status,
                  JsonNode       **orphan)
{
  g_autofree char *found_id = known_id == NULL ? prs_store_find_message_by_dedup_key (store, inference->dedup_key)
                                               : NULL;
  const char *message_id = known_id != NULL ? known_id : found_id;
  PrsApiRequestIdentity identity = identity_of (inference);
  g_autoptr(JsonNode) message = NULL;
  JsonNode *node;

  if (message_id == NULL)
    return NULL;

  message = prs_store_get_message (store, message_id, NULL);
  if (message == NULL || !JSON_NODE_HOLDS_OBJECT (message))
    return NULL;
  if (prs_api_dedup_key_is_idempotency (inference->dedup_key) &&
      !prs_api_request_matches_message (&identity, message))
    {
      *status = SOUP_STATUS_CONFLICT;
      return key_reused_answer (message_id);
    }

  /* The run it started answers for it: its state now, one run only */
  node = prs_run_build_answer (store, message_id, status);
  if (node == NULL && orphan != NULL && is_orphan (message))
    {
      *orphan = g_steal_pointer (&message);
      return NULL;
    }
  if (node == NULL)
    node = stored_answer (message, message_id, status);
  return node;
}

/* On the API thread: answers a duplicate of the stored message
 * @message_id (TRUE), or finds an orphan */
static gboolean
replay_duplicate_or_orphan (PrsApiRoutes      *routes,
                            SoupServerMessage *msg,
                            const Inference   *inference,
                            const char        *message_id,
                            JsonNode         **orphan)
{
  g_autoptr(GError) error = NULL;
  guint status = SOUP_STATUS_SERVICE_UNAVAILABLE;
  JsonNode *node = duplicate_answer (routes->store, inference, message_id, &status, orphan);

  if (node == NULL)
    return FALSE;
  /* The first request may still be waiting for its model, its message
   * committed but not yet synced: on the disk before this one hears of it */
  if (!prs_store_sync (routes->store, PRS_STORE_ALL_COMMITS, NULL, &error))
    {
      json_node_unref (node);
      prs_api_internal_error (msg, error);
      return TRUE;
    }
  prs_api_respond_json (msg, status, node);
  return TRUE;
}

/* What a duplicate hears until the run exists: that it is running, in
 * the stored form of an answer ({"httpStatus", "route", "answer"}, read by
 * duplicate_answer ()), written as prs_json_to_string () writes it */
#define RUNNING_EXTRA(route) \
  "{\"httpStatus\":202,\"route\":\"" route "\",\"answer\":{\"success\":true,\"status\":\"running\"}}"

/* ---- agent runs on the main thread ---- */

/* A checked request on its way to the main thread, which stores its
 * inbound message on the runs' own connection (one connection writes per
 * call: docs/storage.md) and starts its run */
typedef struct
{
  PrsRunner *runner;
  GTask     *task;
  Inference  inference;     /* moved here whole: its strings point into its body */
  char      *message_id;
  const char *extra_json;   /* what a duplicate hears until the run exists (RUNNING_EXTRA) */
  guint64    commit;        /* the one that stored the inbound message on the main thread */
  gboolean   stored;        /* an orphan's, taken over on the API thread */
  gboolean   checked;       /* the conversation and the agent were found on the API thread
                             * (else the main thread looks first) */
  PrsAgent  *agent;         /* … found on the main thread: handed to the run */
} RunStart;

static void
run_start_free (RunStart *start)
{
  g_clear_object (&start->runner);
  g_clear_object (&start->task);
  inference_clear (&start->inference);
  g_free (start->message_id);
  g_clear_pointer (&start->agent, prs_agent_free);
  g_free (start);
}

static void
on_run_rests (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  RunStart *start = user_data;
  g_autoptr(GError) error = NULL;
  guint status = SOUP_STATUS_OK;
  JsonNode *node = prs_run_wait_rest_finish (PRS_RUN (source), result, &status, &error);

  /* The run's rest could not be stored: no answer tells of a state the
   * database does not hold; this one says what any failed write says
   * (503 storage-busy, 507 storage-full) */
  if (node == NULL && prs_api_is_store_error (error))
    {
      g_task_return_error (start->task, g_steal_pointer (&error));
      run_start_free (start);
      return;
    }
  if (node == NULL)
    {
      JsonObject *object = prs_api_error_object ("internal-error",
                                                 error != NULL ? error->message : "The run was lost.");

      node = json_node_init_object (json_node_alloc (), object);
      json_object_unref (object);
      status = SOUP_STATUS_INTERNAL_SERVER_ERROR;
    }
  prs_api_task_return_answer_after (start->task, status, node, start->commit);
  run_start_free (start);
}

/* On the main thread: the inbound message, committed before any provider
 * is asked, without waiting for the disk: nothing is said about it until
 * the answer, which waits until this commit is there
 * (prs_api_task_return_answer_after ()): the synced commit that ends the
 * run nearly always takes it along, one wait for the disk instead of two
 * (docs/storage.md). FALSE after answering. */
static gboolean
store_inbound (RunStart *start)
{
  const Inference *inference = &start->inference;
  PrsStore *store = prs_runner_get_env (start->runner)->store;
  g_autoptr(GError) error = NULL;
  PrsMessageInsert insert = { 0 };
  guint status = SOUP_STATUS_SERVICE_UNAVAILABLE;
  JsonNode *node;

  insert.id = start->message_id;
  insert.conversation_id = inference->conversation_id;
  insert.kind = "inbound";
  insert.content = inference->prompt;
  insert.status = "pending";
  insert.agent_id = inference->agent_id;
  insert.context_json = inference->context_json;
  insert.execution_json = inference->execution_json;
  insert.dedup_key = inference->dedup_key;
  insert.extra_json = start->extra_json;
  /* All three as prs_json_to_string () writes them (check_fields (),
   * RUNNING_EXTRA) */
  insert.json_from_writer = TRUE;

  if (prs_runner_add_inbound (start->runner, &insert, &start->commit, &error))
    return TRUE;

  /* An identical request got here first, after this one's look on the API
   * thread (the key's UNIQUE index refused this one): its answer */
  node = inference->dedup_key != NULL && g_error_matches (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT)
           ? duplicate_answer (store, inference, NULL, &status, NULL) : NULL;
  if (node != NULL)
    {
      g_debug ("An identical request was stored first in conversation %s: its answer is replayed",
               inference->conversation_id);
      prs_api_task_return_answer_after (start->task, status, node, prs_store_get_last_commit (store));
    }
  else
    g_task_return_error (start->task, g_steal_pointer (&error));
  return FALSE;
}

/* On the main thread, whose connection has the pages cached (it wrote
 * them): the conversation and the agent, which the run then takes instead
 * of reading both again; FALSE after answering 404 */
static gboolean
exists_on_main (RunStart *start)
{
  JsonObject *missing = missing_answer (prs_runner_get_env (start->runner)->store, &start->inference,
                                        &start->agent);

  if (missing == NULL)
    return TRUE;
  prs_api_task_return_answer (start->task, SOUP_STATUS_NOT_FOUND,
                              json_node_init_object (json_node_alloc (), missing));
  json_object_unref (missing);
  return FALSE;
}

static gboolean
start_run_on_main (gpointer user_data)
{
  RunStart *start = user_data;
  const Inference *inference = &start->inference;
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsRun) run = NULL;
  PrsRunOptions options = { 0 };

  if ((!start->checked && !exists_on_main (start)) ||
      (!start->stored && !store_inbound (start)))
    {
      prs_runner_release_reservation (start->runner);
      run_start_free (start);
      return G_SOURCE_REMOVE;
    }

  options.origin = inference->with_history ? PRS_RUN_ORIGIN_INFERENCE : PRS_RUN_ORIGIN_AGENT_INFERENCE;
  options.conversation_id = inference->conversation_id;
  options.agent_id = inference->agent_id;
  options.trigger_message_id = start->message_id;
  /* A first request's message keeps the content it was stored with */
  options.trigger_content = start->stored ? NULL : inference->prompt;
  options.agent = start->agent;
  options.context_json = inference->context_json;
  options.execution_json = inference->execution_json;
  options.system_prompt = inference->system_prompt;
  options.temperature = inference->temperature;
  options.max_tokens = inference->max_tokens;
  /* Its start goes with its first write: not a commit of its own before
   * the model is asked */
  options.store_lazily = TRUE;

  run = prs_runner_start (start->runner, &options, TRUE, &error);
  if (run == NULL)
    {
      gboolean not_found = g_error_matches (error, PRS_ERROR, PRS_ERROR_NOT_FOUND);
      JsonObject *object = prs_api_error_object (not_found ? "not-found" : "internal-error", error->message);

      json_object_set_string_member (object, "messageId", start->message_id);
      /* It names the stored message: on the disk first */
      prs_api_task_return_answer_after (start->task,
                                        not_found ? SOUP_STATUS_NOT_FOUND : SOUP_STATUS_INTERNAL_SERVER_ERROR,
                                        json_node_init_object (json_node_alloc (), object), start->commit);
      json_object_unref (object);
      run_start_free (start);
      return G_SOURCE_REMOVE;
    }

  prs_run_wait_rest_async (run, NULL, on_run_rests, start);
  return G_SOURCE_REMOVE;
}

/* The orphan's message, exactly as it was stored, taken over for this
 * request on this thread (two retries of it cannot both take it); FALSE
 * after answering */
static gboolean
take_over_orphan (PrsApiRoutes      *routes,
                  SoupServerMessage *msg,
                  RunStart          *start,
                  JsonNode          *orphan,
                  guint64           *commit)
{
  JsonObject *first = json_node_get_object (orphan);
  Inference *inference = &start->inference;
  g_autoptr(GError) error = NULL;
  JsonNode *node;

  start->message_id = g_strdup (json_object_get_string_member (first, "id"));
  g_clear_pointer (&inference->context_json, g_free);
  g_clear_pointer (&inference->execution_json, g_free);
  if ((node = json_object_get_member (first, "context")) != NULL && !JSON_NODE_HOLDS_NULL (node))
    inference->context_json = prs_json_to_string (node, FALSE);
  if ((node = json_object_get_member (first, "execution")) != NULL && !JSON_NODE_HOLDS_NULL (node))
    inference->execution_json = prs_json_to_string (node, FALSE);

  if (!prs_store_update_message (routes->store, start->message_id, "pending", NULL, start->extra_json, &error))
    {
      prs_api_internal_error (msg, error);
      return FALSE;
    }
  start->stored = TRUE;
  *commit = prs_store_get_last_commit (routes->store);
  return TRUE;
}

/* Hands the run to the main thread, which stores the inbound message
 * first; answers when it rests or after the wait. @orphan: the stored
 * message of an earlier request whose run never began; it runs as it was
 * stored. Unless @checked, the main thread answers 404 for a conversation
 * or an agent that does not exist (giving the run's slot back); when no
 * slot is free, this thread looks first, so that 404 still comes before
 * 429. */
static void
run_inference (PrsApiRoutes      *routes,
               SoupServerMessage *msg,
               Inference         *inference,
               JsonNode          *orphan,
               gboolean           checked)
{
  guint64 commit = 0;
  RunStart *start;

  if (!prs_runner_try_reserve (routes->runner))
    {
      if (!checked && !check_exists (routes, msg, inference))
        return;
      soup_message_headers_replace (soup_server_message_get_response_headers (msg),
                                    "Retry-After", PRS_API_RETRY_AFTER_SECONDS);
      prs_api_respond_error (msg, 429, "too-many-runs",
                             "More than 4 agent runs are in progress; retry later.");
      return;
    }

  start = g_new0 (RunStart, 1);
  start->extra_json = inference->with_history ? RUNNING_EXTRA ("inference") : RUNNING_EXTRA ("agent-inference");
  start->inference = *inference;
  start->checked = checked;
  memset (inference, 0, sizeof *inference);

  if (orphan != NULL && !take_over_orphan (routes, msg, start, orphan, &commit))
    {
      prs_runner_release_reservation (routes->runner);
      run_start_free (start);
      return;
    }
  /* Named here: the wait's end answers with it */
  if (start->message_id == NULL)
    start->message_id = g_uuid_string_random ();

  start->runner = g_object_ref (routes->runner);
  start->task = prs_api_defer_run (routes, msg, start->message_id, commit, routes->wait_seconds);
  g_main_context_invoke (routes->main_context, start_run_on_main, start);
}

/* The id of the stored message that carries the request's duplicate key,
 * or NULL (always without one). A new request, the usual case, goes to the
 * main thread unchecked: there the conversation and the agent are read
 * from pages its connection has in its cache (it wrote them), where on
 * this thread every read after the main thread's last commit found its
 * page cache dropped and read the pages again (bench/RESULTS.md). */
static char *
find_repeated (PrsApiRoutes    *routes,
               const Inference *inference)
{
  if (inference->dedup_key == NULL)
    return NULL;
  return prs_store_find_message_by_dedup_key (routes->store, inference->dedup_key);
}

void
prs_api_handle_inference (PrsApiRoutes      *routes,
                          SoupServerMessage *msg,
                          gboolean           with_history)
{
  g_auto(Inference) inference = { 0 };
  g_autoptr(JsonNode) orphan = NULL;
  g_autofree char *repeated_id = NULL;
  PrsApiRequestIdentity identity;

  inference.with_history = with_history;
  inference.temperature = -1;
  inference.body = prs_api_parse_body (msg);
  if (inference.body == NULL || !check_fields (msg, &inference))
    return;

  identity = identity_of (&inference);
  inference.dedup_key = prs_api_request_dedup_key (&identity);
  repeated_id = find_repeated (routes, &inference);
  if (repeated_id == NULL)
    {
      run_inference (routes, msg, &inference, NULL, FALSE);
      return;
    }

  /* A repeat: 404 before its first answer, as for a new request */
  if (!check_exists (routes, msg, &inference) ||
      replay_duplicate_or_orphan (routes, msg, &inference, repeated_id, &orphan))
    return;
  run_inference (routes, msg, &inference, orphan, TRUE);
}
