/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-api-routes.c: the endpoints of docs/api.md. Every input is validated
 * before it is used; every error answer names what was wrong. */
#include "config.h"

#include <string.h>

#include "prs-api-guard.h"
#include "prs-api-routes.h"
#include "prs-api-routes-private.h"
#include "prs-error.h"
#include "prs-json.h"
#include "prs-run.h"

#define MAX_SLUG_CHARS        200
/* Nesting allowed in a whole body: the context's 32 plus the envelope */
#define MAX_BODY_DEPTH        (PRS_API_MAX_CONTEXT_DEPTH + 8)
#define DEFAULT_PAGE          50
#define MAX_PAGE              500

/* ---- answers ---- */

void
prs_api_respond_text (SoupServerMessage *msg,
                      guint              status,
                      GString           *json)
{
  gsize len = json->len;

  soup_server_message_set_status (msg, status, NULL);
  soup_message_headers_replace (soup_server_message_get_response_headers (msg),
                                "Cache-Control", "no-store");
  soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_TAKE,
                                    g_string_free (json, FALSE), len);
}

void
prs_api_respond_json (SoupServerMessage *msg,
                      guint              status,
                      JsonNode          *node)
{
  GString *json = g_string_new (NULL);

  prs_json_append (json, node, PRS_JSON_COMPACT, G_MAXSIZE);
  json_node_unref (node);
  prs_api_respond_text (msg, status, json);
}

JsonObject *
prs_api_error_object (const char *code,
                      const char *message)
{
  JsonObject *object = json_object_new ();

  json_object_set_boolean_member (object, "success", FALSE);
  json_object_set_string_member (object, "error", message);
  json_object_set_string_member (object, "code", code);
  return object;
}

void
prs_api_respond_error (SoupServerMessage *msg,
                       guint              status,
                       const char        *code,
                       const char        *message)
{
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);

  json_node_take_object (node, prs_api_error_object (code, message));
  prs_api_respond_json (msg, status, node);
}

gboolean
prs_api_field_error (SoupServerMessage *msg,
                     const char        *field,
                     const char        *requirement)
{
  g_autofree char *message = g_strdup_printf ("The field “%s” %s.", field, requirement);

  prs_api_respond_error (msg, SOUP_STATUS_BAD_REQUEST, "invalid-field", message);
  return FALSE;
}

gboolean
prs_api_is_store_error (const GError *error)
{
  return error != NULL && error->domain == PRS_ERROR &&
         (error->code == PRS_ERROR_STORE || error->code == PRS_ERROR_STORE_BUSY ||
          error->code == PRS_ERROR_STORE_FULL);
}

void
prs_api_internal_error (SoupServerMessage *msg,
                        GError            *error)
{
  g_message ("API request failed: %s", error != NULL ? error->message : "unknown error");
  if (g_error_matches (error, PRS_ERROR, PRS_ERROR_STORE_FULL))
    {
      prs_api_respond_error (msg, SOUP_STATUS_INSUFFICIENT_STORAGE, "storage-full",
                             "The disk holding Prosponsive's data is full; the request was not completed. "
                             "Free some space and retry.");
      return;
    }
  if (g_error_matches (error, PRS_ERROR, PRS_ERROR_STORE_BUSY))
    {
      /* prosponsive-ctl (or another program) held the database: a retry works */
      soup_message_headers_replace (soup_server_message_get_response_headers (msg), "Retry-After", "1");
      prs_api_respond_error (msg, SOUP_STATUS_SERVICE_UNAVAILABLE, "storage-busy",
                             "Prosponsive's database was busy; the request was not completed. Retry in a moment.");
      return;
    }
  prs_api_respond_error (msg, SOUP_STATUS_INTERNAL_SERVER_ERROR, "internal-error",
                         "The request could not be completed.");
}

/* ---- request bodies ---- */

/* Returns the body's top-level object, or NULL after answering 415/400.
 * Every route's body comes through here: strict JSON only (prs-json.h). */
JsonNode *
prs_api_parse_body (SoupServerMessage *msg)
{
  SoupMessageHeaders *headers = soup_server_message_get_request_headers (msg);
  const char *content_type = soup_message_headers_get_content_type (headers, NULL);
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GError) error = NULL;
  const char *data;
  gsize len = 0;

  if (content_type == NULL || g_ascii_strcasecmp (content_type, "application/json") != 0)
    {
      prs_api_respond_error (msg, SOUP_STATUS_UNSUPPORTED_MEDIA_TYPE, "unsupported-media-type",
                             "The request body must be JSON (Content-Type: application/json).");
      return NULL;
    }

  bytes = soup_message_body_flatten (soup_server_message_get_request_body (msg));
  data = g_bytes_get_data (bytes, &len);

  if (len > PRS_API_MAX_BODY)
    {
      prs_api_respond_error (msg, SOUP_STATUS_REQUEST_ENTITY_TOO_LARGE, "body-too-large",
                             "The request body is larger than 1 MiB.");
      return NULL;
    }
  if (len == 0 || data == NULL)
    {
      prs_api_respond_error (msg, SOUP_STATUS_BAD_REQUEST, "invalid-json",
                             "The request body is empty; a JSON object is expected.");
      return NULL;
    }

  if (!g_utf8_validate_len (data, len, NULL))
    {
      prs_api_respond_error (msg, SOUP_STATUS_BAD_REQUEST, "invalid-utf8",
                             "The request body is not valid UTF-8.");
      return NULL;
    }

  root = prs_json_parse_strict (data, len, MAX_BODY_DEPTH, &error);
  if (root == NULL)
    {
      g_autofree char *message = g_strdup_printf ("The request body is not strict JSON: %s.",
                                                  error->message);

      prs_api_respond_error (msg, SOUP_STATUS_BAD_REQUEST, "invalid-json", message);
      return NULL;
    }
  if (!JSON_NODE_HOLDS_OBJECT (root))
    {
      prs_api_respond_error (msg, SOUP_STATUS_BAD_REQUEST, "invalid-json",
                             "The request body must be a JSON object.");
      return NULL;
    }

  return g_steal_pointer (&root);
}

/* An optional or required string member; NULL in *out when absent. */
gboolean
prs_api_get_string (SoupServerMessage *msg,
                    JsonObject        *object,
                    const char        *name,
                    const char        *display_name,
                    gboolean           required,
                    gboolean           non_empty,
                    guint              max_chars,
                    const char       **out)
{
  JsonNode *node = json_object_get_member (object, name);
  const char *value;

  *out = NULL;
  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    {
      if (required)
        return prs_api_field_error (msg, display_name, "is required and must be a string");
      return TRUE;
    }
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    return prs_api_field_error (msg, display_name, "must be a string");

  value = json_node_get_string (node);
  if (non_empty && value[0] == '\0')
    return prs_api_field_error (msg, display_name, "must not be empty");
  if (max_chars > 0 && g_utf8_strlen (value, -1) > (glong) max_chars)
    {
      g_autofree char *requirement = g_strdup_printf ("must be at most %u characters", max_chars);
      return prs_api_field_error (msg, display_name, requirement);
    }

  *out = value;
  return TRUE;
}

gboolean
prs_api_get_object (SoupServerMessage *msg,
                    JsonObject        *object,
                    const char        *name,
                    const char        *display_name,
                    gboolean           required,
                    JsonNode         **out)
{
  JsonNode *node = json_object_get_member (object, name);

  *out = NULL;
  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    {
      if (required)
        return prs_api_field_error (msg, display_name, "is required and must be an object");
      return TRUE;
    }
  if (!JSON_NODE_HOLDS_OBJECT (node))
    return prs_api_field_error (msg, display_name, "must be an object");

  *out = node;
  return TRUE;
}

/* ---- routes ---- */

static void
handle_health (SoupServerMessage *msg)
{
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);
  JsonObject *object = json_object_new ();

  json_object_set_string_member (object, "status", "ok");
  json_object_set_string_member (object, "version", PACKAGE_VERSION);
  json_node_take_object (node, object);
  prs_api_respond_json (msg, SOUP_STATUS_OK, node);
}

/* Resolves @slug; a new conversation takes a token of the client's
 * allowance first (an existing slug never does), and without one the
 * answer is 429 with Retry-After. FALSE when @msg was answered. */
static gboolean
resolve_limited (PrsApiRoutes       *routes,
                 SoupServerMessage  *msg,
                 const char         *slug,
                 char              **out_id,
                 gboolean           *out_created)
{
  g_autoptr(GError) error = NULL;
  guint retry_after = 0;

  if (!prs_store_lookup_conversation_slug (routes->store, slug, out_id, &error))
    {
      prs_api_internal_error (msg, error);
      return FALSE;
    }
  if (*out_id != NULL)
    return TRUE;

  if (!prs_rate_limit_take (&routes->new_conversations, g_get_monotonic_time (), &retry_after))
    {
      g_autofree char *seconds = g_strdup_printf ("%u", retry_after);

      soup_message_headers_replace (soup_server_message_get_response_headers (msg),
                                    "Retry-After", seconds);
      prs_api_respond_error (msg, 429, "too-many-new-conversations",
                             "Too many new conversations were created in the last minute; "
                             "retry later, or resolve a conversation that exists.");
      return FALSE;
    }

  if (!prs_store_resolve_conversation (routes->store, slug, out_id, out_created, &error))
    {
      prs_rate_limit_give_back (&routes->new_conversations);
      prs_api_internal_error (msg, error);
      return FALSE;
    }
  /* Another process created it meanwhile: nothing new after all */
  if (!*out_created)
    prs_rate_limit_give_back (&routes->new_conversations);
  return TRUE;
}

/* The optional agentId of resolve: NULL, or an agent that exists (else
 * @msg was answered 404). FALSE when @msg was answered. */
static gboolean
resolve_agent (PrsApiRoutes       *routes,
               SoupServerMessage  *msg,
               JsonObject         *body,
               const char        **out_agent_id)
{
  g_autoptr(PrsAgent) agent = NULL;

  if (!prs_api_get_string (msg, body, "agentId", "agentId", FALSE, TRUE, PRS_API_MAX_ID_CHARS, out_agent_id))
    return FALSE;
  if (*out_agent_id == NULL)
    return TRUE;
  agent = prs_store_lookup_agent (routes->store, *out_agent_id, NULL);
  if (agent == NULL)
    {
      prs_api_respond_error (msg, SOUP_STATUS_NOT_FOUND, "agent-not-found",
                             "There is no agent with this agentId.");
      return FALSE;
    }
  return TRUE;
}

/* The conversation takes @agent_id when it has none yet; TRUE when it did */
static gboolean
adopt_agent (PrsApiRoutes *routes,
             const char   *conversation_id,
             const char   *agent_id)
{
  g_autoptr(GError) error = NULL;
  gboolean adopted = FALSE;

  if (agent_id != NULL &&
      !prs_store_adopt_conversation_agent (routes->store, conversation_id, agent_id, &adopted, &error))
    g_message ("Could not set the agent of conversation %s: %s", conversation_id, error->message);
  return adopted;
}

static void
handle_resolve (PrsApiRoutes      *routes,
                SoupServerMessage *msg)
{
  g_autoptr(JsonNode) body = prs_api_parse_body (msg);
  g_autofree char *slug = NULL;
  g_autofree char *conversation_id = NULL;
  const char *raw_slug;
  const char *agent_id = NULL;
  gboolean created = FALSE;
  gboolean adopted;
  GString *answer;

  if (body == NULL)
    return;
  if (!prs_api_get_string (msg, json_node_get_object (body), "slug", "slug", TRUE, FALSE, 0, &raw_slug))
    return;

  slug = g_strstrip (g_strdup (raw_slug));
  if (slug[0] == '\0')
    {
      prs_api_field_error (msg, "slug", "must not be empty");
      return;
    }
  if (g_utf8_strlen (slug, -1) > MAX_SLUG_CHARS)
    {
      prs_api_field_error (msg, "slug", "must be at most 200 characters");
      return;
    }
  if (g_str_has_prefix (slug, "slug:"))
    {
      prs_api_field_error (msg, "slug", "must not start with “slug:”");
      return;
    }
  /* Checked before anything is created */
  if (!resolve_agent (routes, msg, json_node_get_object (body), &agent_id))
    return;

  if (!resolve_limited (routes, msg, slug, &conversation_id, &created))
    return;
  adopted = adopt_agent (routes, conversation_id, agent_id);

  /* The sidebar reads the conversation again: new, or with its agent */
  if ((created || adopted) && routes->conversation_created != NULL)
    routes->conversation_created (routes->notify_data, conversation_id);

  /* The answer of the commonest call, written as text: the tree json-glib
   * would build first (an object, its hash table, three nodes) cost more
   * than the writing (bench/RESULTS.md, resolve-throughput profile) */
  answer = g_string_sized_new (128);
  g_string_append (answer, "{\"success\":true,\"conversationId\":");
  prs_json_append_string (answer, conversation_id);
  g_string_append (answer, ",\"slug\":");
  prs_json_append_string (answer, slug);
  g_string_append_c (answer, '}');
  prs_api_respond_text (msg, SOUP_STATUS_OK, answer);
}

/* ---- answers from the main thread ---- */

/* A paused message waiting for the main thread (an agent run, provider
 * info). Whichever comes first answers it: the main thread's result, or
 * the wait's end (110 s) with the run's stored state. */
typedef struct
{
  PrsApiRoutes      *routes;       /* lives as long as the API thread */
  SoupServerMessage *msg;
  char              *message_id;   /* inference: the inbound message */
  guint64            commit;       /* … its commit when stored on this thread (0: the main
                                    * thread's answer names its own) */
  GCancellable      *cancellable;  /* the task's: cancelled when the client goes away */
  GSource           *timeout;
  gboolean           answered;
  gboolean           gone;
} Deferred;

typedef struct
{
  JsonNode *node;
  guint     status;
  guint64   commit;   /* on the disk before it leaves; 0: none */
} DeferredAnswer;

static void
deferred_answer_free (gpointer data)
{
  DeferredAnswer *answer = data;

  g_clear_pointer (&answer->node, json_node_unref);
  g_free (answer);
}

static void
deferred_stop_timeout (Deferred *deferred)
{
  if (deferred->timeout != NULL)
    {
      g_source_destroy (deferred->timeout);
      g_clear_pointer (&deferred->timeout, g_source_unref);
    }
}

static void
deferred_clear (Deferred *deferred)
{
  deferred_stop_timeout (deferred);
  if (deferred->msg != NULL)
    g_signal_handlers_disconnect_by_data (deferred->msg, deferred);
  g_clear_object (&deferred->msg);
  g_clear_object (&deferred->cancellable);
  g_clear_pointer (&deferred->message_id, g_free);
}

static void
deferred_unref (Deferred *deferred)
{
  g_rc_box_release_full (deferred, (GDestroyNotify) deferred_clear);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Deferred, deferred_unref)

/* Answers with @node (taken), or, when @node is NULL, with @failure (the
 * main thread's, prs_api_internal_error ()) */
static void
deferred_respond (Deferred *deferred,
                  guint     status,
                  JsonNode *node,
                  guint64   answer_commit,
                  GError   *failure)
{
  g_autoptr(GError) error = NULL;
  guint64 commit = MAX (deferred->commit, answer_commit);
  gboolean synced = FALSE;

  if (deferred->answered || deferred->gone)
    {
      g_clear_pointer (&node, json_node_unref);
      return;
    }
  deferred->answered = TRUE;
  /* The inbound message was committed without waiting for the disk: it is
   * there before anyone hears of it — nearly always already, by the synced
   * commit that ended its run (docs/storage.md) */
  if (commit != 0 && !prs_store_sync (deferred->routes->store, commit, &synced, &error))
    {
      g_clear_pointer (&node, json_node_unref);
      prs_api_internal_error (deferred->msg, error);
    }
  else if (node == NULL)
    prs_api_internal_error (deferred->msg, failure);
  else
    {
      if (synced)
        g_debug ("Synced the database before answering for message %s", deferred->message_id);
      prs_api_respond_json (deferred->msg, status, node);
    }
  soup_server_message_unpause (deferred->msg);
  deferred_stop_timeout (deferred);
}

static void
on_deferred_gone (SoupServerMessage *msg,
                  Deferred          *deferred)
{
  deferred->gone = TRUE;
  /* Whoever holds the task stops waiting for something to answer */
  g_cancellable_cancel (deferred->cancellable);
}

static void
on_deferred_done (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(Deferred) deferred = user_data;
  g_autoptr(GError) error = NULL;
  DeferredAnswer *answer = g_task_propagate_pointer (G_TASK (result), &error);

  if (answer != NULL)
    {
      deferred_respond (deferred, answer->status, g_steal_pointer (&answer->node), answer->commit, NULL);
      deferred_answer_free (answer);
    }
  else if (error != NULL && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    deferred_respond (deferred, 0, NULL, 0, error);
}

static gboolean on_deferred_timeout (gpointer user_data);

static void
deferred_arm_timeout (Deferred *deferred,
                      guint     seconds)
{
  deferred_stop_timeout (deferred);
  deferred->timeout = g_timeout_source_new_seconds (seconds);
  g_source_set_callback (deferred->timeout, on_deferred_timeout,
                         g_rc_box_acquire (deferred), (GDestroyNotify) deferred_unref);
  g_source_attach (deferred->timeout, g_main_context_get_thread_default ());
}

static gboolean
on_deferred_timeout (gpointer user_data)
{
  Deferred *deferred = user_data;
  guint status = SOUP_STATUS_ACCEPTED;
  g_autoptr(JsonNode) stored = NULL;
  JsonNode *node;

  /* The main thread has not stored the message yet (it was that busy):
   * nothing can be said of it before it is */
  if (deferred->commit == 0 &&
      (stored = prs_store_get_message (deferred->routes->store, deferred->message_id, NULL)) == NULL)
    {
      deferred_arm_timeout (deferred, 1);
      return G_SOURCE_REMOVE;
    }

  node = prs_run_build_answer (deferred->routes->store, deferred->message_id, &status);

  /* Still working: the caller gets what is stored now, with 202 */
  if (node == NULL)
    {
      JsonObject *object = json_object_new ();

      json_object_set_boolean_member (object, "success", TRUE);
      json_object_set_string_member (object, "messageId", deferred->message_id);
      json_object_set_string_member (object, "status", "running");
      node = json_node_init_object (json_node_alloc (), object);
      json_object_unref (object);
      status = SOUP_STATUS_ACCEPTED;
    }
  /* What was read here, whichever commit wrote it, is on the disk first */
  deferred_respond (deferred, status, node, PRS_STORE_ALL_COMMITS, NULL);
  return G_SOURCE_REMOVE;
}

/* Pauses @msg and returns a GTask whose pointer result (a DeferredAnswer)
 * answers it; with @wait_seconds > 0 the wait ends then. */
GTask *
prs_api_defer_run (PrsApiRoutes      *routes,
                   SoupServerMessage *msg,
                   const char        *message_id,
                   guint64            commit,
                   guint              wait_seconds)
{
  Deferred *deferred = g_rc_box_new0 (Deferred);
  GTask *task;

  deferred->routes = routes;
  deferred->msg = g_object_ref (msg);
  deferred->message_id = g_strdup (message_id);
  deferred->cancellable = g_cancellable_new ();
  g_signal_connect (msg, "disconnected", G_CALLBACK (on_deferred_gone), deferred);
  g_signal_connect (msg, "finished", G_CALLBACK (on_deferred_gone), deferred);
  soup_server_message_pause (msg);

  /* On the API thread's context: the callback runs here, whichever thread
   * returns the task */
  task = g_task_new (NULL, deferred->cancellable, on_deferred_done, deferred);
  deferred->commit = commit;
  if (message_id != NULL && wait_seconds > 0)
    deferred_arm_timeout (deferred, wait_seconds);
  routes->deferred_seconds = (wait_seconds > 0 ? wait_seconds : 30) + 15;
  return task;
}

GTask *
prs_api_defer (PrsApiRoutes      *routes,
               SoupServerMessage *msg)
{
  return prs_api_defer_run (routes, msg, NULL, 0, 0);
}

void
prs_api_task_return_answer_after (GTask    *task,
                                  guint     status,
                                  JsonNode *node,
                                  guint64   commit)
{
  DeferredAnswer *answer = g_new0 (DeferredAnswer, 1);

  answer->status = status;
  answer->node = node;
  answer->commit = commit;
  g_task_return_pointer (task, answer, deferred_answer_free);
}

void
prs_api_task_return_answer (GTask    *task,
                            guint     status,
                            JsonNode *node)
{
  prs_api_task_return_answer_after (task, status, node, 0);
}

static void
on_provider_info (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  GTask *task = user_data;

  prs_api_task_return_answer (task, SOUP_STATUS_OK,
                              prs_providers_build_info_finish (PRS_PROVIDERS (source), result));
  g_object_unref (task);
}

static gboolean
provider_info_on_main (gpointer user_data)
{
  GTask *task = user_data;
  PrsProviders *providers = g_task_get_task_data (task);

  /* Which providers have a key: asked without waiting on the keyring */
  prs_providers_build_info_async (providers, NULL, on_provider_info, task);
  return G_SOURCE_REMOVE;
}

static void
handle_provider_info (PrsApiRoutes      *routes,
                      SoupServerMessage *msg)
{
  /* PrsProviders lives on the main thread */
  GTask *task = prs_api_defer (routes, msg);

  g_task_set_task_data (task, g_object_ref (routes->providers), g_object_unref);
  g_main_context_invoke (routes->main_context, provider_info_on_main, task);
}

/* The answer to a delivery the registry did not take */
static JsonNode *
undelivered_answer (PrsCallbackDelivery  outcome,
                    guint                wrong_left,
                    guint               *status)
{
  g_autofree char *message = NULL;
  g_autoptr(JsonObject) object = NULL;

  *status = SOUP_STATUS_FORBIDDEN;
  switch (outcome)
    {
    case PRS_CALLBACK_SECRET_MISSING:
      object = prs_api_error_object ("callback-secret-missing",
                                     "This result has no callback secret. Post it to prosponsive.callbackUrl "
                                     "exactly as the webhook received it (the secret is its callbackSecret "
                                     "parameter), or send prosponsive.callbackSecret as “callbackSecret” in "
                                     "the body.");
      break;
    case PRS_CALLBACK_SECRET_WRONG:
      message = g_strdup_printf ("The callback secret is not this tool call's; %u more wrong secrets "
                                 "end the call. Post the result to prosponsive.callbackUrl exactly as "
                                 "the webhook received it.", wrong_left);
      object = prs_api_error_object ("callback-secret-wrong", message);
      break;
    case PRS_CALLBACK_LOCKED:
      object = prs_api_error_object ("callback-secret-locked",
                                     "Too many results came with a wrong callback secret: the tool call has "
                                     "ended as failed and takes no result any more.");
      break;
    case PRS_CALLBACK_UNKNOWN:
    case PRS_CALLBACK_DELIVERED:
    default:
      *status = SOUP_STATUS_NOT_FOUND;
      object = prs_api_error_object ("tool-call-not-found",
                                     "No tool call with this toolCallId is waiting for a result.");
      break;
    }
  return json_node_init_object (json_node_alloc (), object);
}

/* A delivered result, stored (or not) by the run that took it, on the
 * main thread: the answer leaves once it is on the disk */
static void
on_result_stored (const GError *error,
                  guint64       commit,
                  gpointer      data)
{
  GTask *task = data;
  JsonObject *answer;

  if (error == NULL)
    {
      answer = json_object_new ();
      json_object_set_boolean_member (answer, "success", TRUE);
      json_object_set_string_member (answer, "toolCallId", g_task_get_task_data (task));
      prs_api_task_return_answer_after (task, SOUP_STATUS_OK, json_node_init_object (json_node_alloc (), answer),
                                        commit);
      json_object_unref (answer);
    }
  /* The call ended before the result was stored: it waits for none */
  else if (g_error_matches (error, PRS_ERROR, PRS_ERROR_NOT_FOUND))
    {
      guint status;

      prs_api_task_return_answer (task, SOUP_STATUS_NOT_FOUND,
                                  undelivered_answer (PRS_CALLBACK_UNKNOWN, 0, &status));
    }
  else
    g_task_return_error (task, g_error_copy (error));
  g_object_unref (task);
}

/* The call's secret: the "callbackSecret" query parameter of the
 * callbackUrl the webhook received, or the same in the body */
static gboolean
get_callback_secret (SoupServerMessage  *msg,
                     JsonObject         *object,
                     GHashTable         *query,
                     const char        **out)
{
  const char *in_query = query != NULL ? g_hash_table_lookup (query, "callbackSecret") : NULL;
  const char *in_body;

  if (!prs_api_get_string (msg, object, "callbackSecret", "callbackSecret", FALSE, FALSE,
                           PRS_API_MAX_ID_CHARS, &in_body))
    return FALSE;
  if (in_body != NULL && in_query != NULL && strcmp (in_body, in_query) != 0)
    return prs_api_field_error (msg, "callbackSecret",
                                "differs from the callbackSecret of the URL (send one, or the same)");

  *out = in_body != NULL ? in_body : in_query;
  return TRUE;
}

static void
handle_loop_result (PrsApiRoutes      *routes,
                    SoupServerMessage *msg,
                    GHashTable        *query)
{
  g_autoptr(JsonNode) body = prs_api_parse_body (msg);
  PrsCallbackDelivery outcome;
  const char *tool_call_id, *error_text, *secret = NULL;
  guint wrong_left = 0;
  JsonObject *object;
  JsonNode *success;
  GTask *task;

  if (body == NULL)
    return;
  object = json_node_get_object (body);

  if (!prs_api_get_string (msg, object, "toolCallId", "toolCallId", TRUE, TRUE, PRS_API_MAX_ID_CHARS, &tool_call_id))
    return;
  success = json_object_get_member (object, "success");
  if (success == NULL || !JSON_NODE_HOLDS_VALUE (success) ||
      json_node_get_value_type (success) != G_TYPE_BOOLEAN)
    {
      prs_api_field_error (msg, "success", "is required and must be a boolean");
      return;
    }
  if (!prs_api_get_string (msg, object, "error", "error", FALSE, FALSE, 0, &error_text) ||
      !get_callback_secret (msg, object, query, &secret))
    return;

  /* Paused first: the run may store the result before this returns */
  task = prs_api_defer (routes, msg);
  g_task_set_task_data (task, g_strdup (tool_call_id), g_free);
  outcome = prs_callback_registry_deliver_stored (routes->registry, tool_call_id, secret,
                                                  json_node_get_boolean (success),
                                                  json_object_get_member (object, "result"), error_text,
                                                  &wrong_left, on_result_stored, g_object_ref (task));
  if (outcome != PRS_CALLBACK_DELIVERED)
    {
      guint status;
      JsonNode *node = undelivered_answer (outcome, wrong_left, &status);

      g_object_unref (task);   /* the reference on_result_stored would have had */
      prs_api_task_return_answer (task, status, node);
    }
  g_object_unref (task);
}

/* After a read, before its answer: what it found may have been committed
 * without waiting for the disk (an inference's inbound message, a run's
 * start, a reply streaming in: docs/storage.md), and an answer tells of
 * nothing that a power cut could still take back. Costs nothing when every
 * commit is on the disk already. FALSE after answering. */
gboolean
prs_api_sync_read (PrsApiRoutes      *routes,
                   SoupServerMessage *msg)
{
  g_autoptr(GError) error = NULL;
  gboolean synced = FALSE;

  if (!prs_store_sync (routes->store, PRS_STORE_ALL_COMMITS, &synced, &error))
    {
      prs_api_internal_error (msg, error);
      return FALSE;
    }
  if (synced)
    g_debug ("Synced the database before answering a read");
  return TRUE;
}

static void
handle_conversations (PrsApiRoutes      *routes,
                      SoupServerMessage *msg)
{
  g_autoptr(GError) error = NULL;
  JsonArray *array = prs_store_list_conversations (routes->store, &error);
  JsonNode *node;

  if (array == NULL)
    {
      prs_api_internal_error (msg, error);
      return;
    }
  if (!prs_api_sync_read (routes, msg))
    {
      json_array_unref (array);
      return;
    }

  node = json_node_new (JSON_NODE_ARRAY);
  json_node_take_array (node, array);
  prs_api_respond_json (msg, SOUP_STATUS_OK, node);
}

static gboolean
parse_query_number (SoupServerMessage *msg,
                    GHashTable        *query,
                    const char        *name,
                    gint64             min,
                    gint64             max,
                    gint64            *inout)
{
  const char *text = query != NULL ? g_hash_table_lookup (query, name) : NULL;
  guint64 value;

  if (text == NULL)
    return TRUE;
  /* Digits only: no sign, no spaces, no hex */
  for (const char *p = text; *p != '\0'; p++)
    if (!g_ascii_isdigit (*p))
      goto bad;
  if (text[0] == '\0' || strlen (text) > 19 ||
      !g_ascii_string_to_unsigned (text, 10, (guint64) min, (guint64) max, &value, NULL))
    goto bad;

  *inout = (gint64) value;
  return TRUE;

bad:
  {
    g_autofree char *message = g_strdup_printf ("The query parameter “%s” must be an integer "
                                                "from %" G_GINT64_FORMAT " to %" G_GINT64_FORMAT ".",
                                                name, min, max);
    prs_api_respond_error (msg, SOUP_STATUS_BAD_REQUEST, "invalid-field", message);
    return FALSE;
  }
}

static void
handle_messages (PrsApiRoutes      *routes,
                 SoupServerMessage *msg,
                 const char        *conversation_id,
                 GHashTable        *query)
{
  g_autoptr(GError) error = NULL;
  gint64 after = 0, limit = DEFAULT_PAGE;
  JsonArray *array;
  JsonNode *node;

  if (!parse_query_number (msg, query, "after", 0, G_MAXINT64, &after) ||
      !parse_query_number (msg, query, "limit", 1, MAX_PAGE, &limit))
    return;

  if (!prs_store_has_conversation (routes->store, conversation_id))
    {
      prs_api_respond_error (msg, SOUP_STATUS_NOT_FOUND, "conversation-not-found",
                             "There is no conversation with this id.");
      return;
    }

  array = prs_store_list_messages (routes->store, conversation_id, after, (guint) limit, &error);
  if (array == NULL)
    {
      prs_api_internal_error (msg, error);
      return;
    }
  if (!prs_api_sync_read (routes, msg))
    {
      json_array_unref (array);
      return;
    }

  node = json_node_new (JSON_NODE_ARRAY);
  json_node_take_array (node, array);
  prs_api_respond_json (msg, SOUP_STATUS_OK, node);
}

void
prs_api_method_not_allowed (SoupServerMessage *msg,
                            const char        *allowed)
{
  soup_message_headers_replace (soup_server_message_get_response_headers (msg),
                                "Allow", allowed);
  prs_api_respond_error (msg, SOUP_STATUS_METHOD_NOT_ALLOWED, "method-not-allowed",
                         "This method is not allowed on this route.");
}

/* "/api/conversations/{id}/messages" → a copy of {id}, or NULL */
static char *
match_messages_path (const char *path)
{
  const char *prefix = "/api/conversations/";
  const char *suffix = "/messages";
  const char *start, *end;

  if (!g_str_has_prefix (path, prefix) || !g_str_has_suffix (path, suffix))
    return NULL;

  start = path + strlen (prefix);
  end = path + strlen (path) - strlen (suffix);
  if (end <= start || end - start > PRS_API_MAX_ID_CHARS || memchr (start, '/', (gsize) (end - start)) != NULL)
    return NULL;

  return g_strndup (start, (gsize) (end - start));
}

void
prs_api_routes_handle (PrsApiRoutes      *routes,
                       SoupServerMessage *msg,
                       const char        *path,
                       GHashTable        *query)
{
  const char *method = soup_server_message_get_method (msg);
  gboolean is_get = strcmp (method, SOUP_METHOD_GET) == 0;
  gboolean is_post = strcmp (method, SOUP_METHOD_POST) == 0;
  g_autofree char *conversation_id = NULL;

  g_return_if_fail (routes != NULL);
  PRS_ASSERT_OWNER (&routes->owner);

  if (strcmp (path, "/api/health") == 0)
    {
      if (is_get)
        handle_health (msg);
      else
        prs_api_method_not_allowed (msg, "GET");
    }
  else if (strcmp (path, "/api/conversations/resolve") == 0)
    {
      if (is_post)
        handle_resolve (routes, msg);
      else
        prs_api_method_not_allowed (msg, "POST");
    }
  else if (strcmp (path, "/api/ai/agent-inference") == 0 ||
           strcmp (path, "/api/ai/inference") == 0)
    {
      if (is_post)
        prs_api_handle_inference (routes, msg, strcmp (path, "/api/ai/inference") == 0);
      else
        prs_api_method_not_allowed (msg, "POST");
    }
  else if (strcmp (path, "/api/ai/provider-info") == 0)
    {
      if (is_get)
        handle_provider_info (routes, msg);
      else
        prs_api_method_not_allowed (msg, "GET");
    }
  else if (strcmp (path, "/api/ai/agentic-loop-result") == 0)
    {
      if (is_post)
        handle_loop_result (routes, msg, query);
      else
        prs_api_method_not_allowed (msg, "POST");
    }
  else if (strcmp (path, "/api/conversations") == 0)
    {
      if (is_get)
        handle_conversations (routes, msg);
      else
        prs_api_method_not_allowed (msg, "GET");
    }
  else if ((conversation_id = match_messages_path (path)) != NULL)
    {
      if (is_get)
        handle_messages (routes, msg, conversation_id, query);
      else
        prs_api_method_not_allowed (msg, "GET");
    }
  else if (!prs_api_handle_mcp (routes, msg, path, query) &&
           !prs_api_handle_tool_calls (routes, msg, path, query))
    {
      prs_api_respond_error (msg, SOUP_STATUS_NOT_FOUND, "not-found",
                             "There is no such route.");
    }
}
