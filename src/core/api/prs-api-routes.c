/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-api-routes.c: the endpoints of SPEC §9. Every input is validated
 * before it is used; every error answer names what was wrong. */
#include "config.h"

#include <string.h>

#include "prs-api-guard.h"
#include "prs-api-routes.h"
#include "prs-error.h"
#include "prs-run.h"

#define MAX_SLUG_CHARS        200
#define MAX_CONTEXT_BYTES     (256 * 1024)
#define MAX_CONTEXT_DEPTH     32
/* Nesting allowed in a whole body: the context's 32 plus the envelope */
#define MAX_BODY_DEPTH        (MAX_CONTEXT_DEPTH + 8)
#define MAX_ID_CHARS          256
#define MAX_IDEMPOTENCY_CHARS 1024
#define DEFAULT_PAGE          50
#define MAX_PAGE              500
#define RETRY_AFTER_SECONDS   "5"

#define NO_PROVIDER_MESSAGE \
  "No AI provider is configured; the message was stored and can be retried from Prosponsive."

/* ---- answers ---- */

void
prs_api_respond_json (SoupServerMessage *msg,
                      guint              status,
                      JsonNode          *node)
{
  gsize len = 0;
  char *data;
  g_autoptr(JsonGenerator) generator = json_generator_new ();

  json_generator_set_root (generator, node);
  data = json_generator_to_data (generator, &len);
  json_node_unref (node);

  soup_server_message_set_status (msg, status, NULL);
  soup_message_headers_replace (soup_server_message_get_response_headers (msg),
                                "Cache-Control", "no-store");
  soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_TAKE, data, len);
}

static JsonObject *
error_object (const char *code,
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

  json_node_take_object (node, error_object (code, message));
  prs_api_respond_json (msg, status, node);
}

static gboolean
field_error (SoupServerMessage *msg,
             const char        *field,
             const char        *requirement)
{
  g_autofree char *message = g_strdup_printf ("The field “%s” %s.", field, requirement);

  prs_api_respond_error (msg, SOUP_STATUS_BAD_REQUEST, "invalid-field", message);
  return FALSE;
}

static void
internal_error (SoupServerMessage *msg,
                GError            *error)
{
  g_message ("API request failed: %s", error != NULL ? error->message : "unknown error");
  if (g_error_matches (error, PRS_ERROR, PRS_ERROR_STORE_FULL))
    {
      prs_api_respond_error (msg, SOUP_STATUS_INSUFFICIENT_STORAGE, "storage-full",
                             "The disk holding Prosponsive's data is full; nothing was stored. "
                             "Free some space and retry.");
      return;
    }
  if (g_error_matches (error, PRS_ERROR, PRS_ERROR_STORE_BUSY))
    {
      /* prosponsive-ctl (or another program) held the database: a retry works */
      soup_message_headers_replace (soup_server_message_get_response_headers (msg), "Retry-After", "1");
      prs_api_respond_error (msg, SOUP_STATUS_SERVICE_UNAVAILABLE, "storage-busy",
                             "Prosponsive's database was busy; nothing was stored. Retry in a moment.");
      return;
    }
  prs_api_respond_error (msg, SOUP_STATUS_INTERNAL_SERVER_ERROR, "internal-error",
                         "The request could not be completed.");
}

/* ---- request bodies ---- */

/* Nesting depth of a JSON text, strings skipped. Runs before parsing so a
 * deeply nested body never reaches json-glib's recursive parser. */
static guint
scan_depth (const char *data,
            gsize       len)
{
  guint depth = 0, max_depth = 0;
  gboolean in_string = FALSE;

  for (gsize i = 0; i < len; i++)
    {
      char c = data[i];

      if (in_string)
        {
          if (c == '\\')
            i++;
          else if (c == '"')
            in_string = FALSE;
        }
      else if (c == '"')
        in_string = TRUE;
      else if (c == '{' || c == '[')
        {
          if (++depth > max_depth)
            max_depth = depth;
          if (max_depth > MAX_BODY_DEPTH)
            return max_depth;
        }
      else if ((c == '}' || c == ']') && depth > 0)
        depth--;
    }

  return max_depth;
}

/* Returns the body's top-level object, or NULL after answering 415/400. */
static JsonNode *
parse_json_body (SoupServerMessage *msg)
{
  SoupMessageHeaders *headers = soup_server_message_get_request_headers (msg);
  const char *content_type = soup_message_headers_get_content_type (headers, NULL);
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(JsonParser) parser = NULL;
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
  if (!g_utf8_validate (data, (gssize) len, NULL))
    {
      prs_api_respond_error (msg, SOUP_STATUS_BAD_REQUEST, "invalid-utf8",
                             "The request body is not valid UTF-8.");
      return NULL;
    }
  if (scan_depth (data, len) > MAX_BODY_DEPTH)
    {
      prs_api_respond_error (msg, SOUP_STATUS_BAD_REQUEST, "invalid-json",
                             "The request body is nested too deeply.");
      return NULL;
    }

  parser = json_parser_new_immutable ();
  if (!json_parser_load_from_data (parser, data, (gssize) len, &error))
    {
      prs_api_respond_error (msg, SOUP_STATUS_BAD_REQUEST, "invalid-json",
                             "The request body is not valid JSON.");
      return NULL;
    }
  if (!JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    {
      prs_api_respond_error (msg, SOUP_STATUS_BAD_REQUEST, "invalid-json",
                             "The request body must be a JSON object.");
      return NULL;
    }

  return json_node_ref (json_parser_get_root (parser));
}

/* An optional or required string member; NULL in *out when absent. */
static gboolean
get_string (SoupServerMessage *msg,
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
        return field_error (msg, display_name, "is required and must be a string");
      return TRUE;
    }
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    return field_error (msg, display_name, "must be a string");

  value = json_node_get_string (node);
  if (non_empty && value[0] == '\0')
    return field_error (msg, display_name, "must not be empty");
  if (max_chars > 0 && g_utf8_strlen (value, -1) > (glong) max_chars)
    {
      g_autofree char *requirement = g_strdup_printf ("must be at most %u characters", max_chars);
      return field_error (msg, display_name, requirement);
    }

  *out = value;
  return TRUE;
}

static gboolean
get_object (SoupServerMessage *msg,
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
        return field_error (msg, display_name, "is required and must be an object");
      return TRUE;
    }
  if (!JSON_NODE_HOLDS_OBJECT (node))
    return field_error (msg, display_name, "must be an object");

  *out = node;
  return TRUE;
}

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
          guint d = node_depth (child);

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

/* ---- canonical JSON (for duplicate detection) ---- */

static void
canonical_string (GString    *out,
                  const char *s)
{
  g_string_append_c (out, '"');
  for (const char *p = s; *p != '\0'; p++)
    {
      guchar c = (guchar) *p;

      if (c == '"' || c == '\\')
        {
          g_string_append_c (out, '\\');
          g_string_append_c (out, (char) c);
        }
      else if (c < 0x20)
        g_string_append_printf (out, "\\u%04x", c);
      else
        g_string_append_c (out, (char) c);
    }
  g_string_append_c (out, '"');
}

static int
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

/* Keys sorted, no whitespace, numbers as parsed: two requests that differ
 * only in key order or spacing are the same request. */
static void
canonical_json (GString  *out,
                JsonNode *node)
{
  switch (json_node_get_node_type (node))
    {
    case JSON_NODE_OBJECT:
      {
        JsonObject *object = json_node_get_object (node);
        g_autoptr(GPtrArray) keys = g_ptr_array_new ();
        JsonObjectIter iter;
        const char *key;

        json_object_iter_init (&iter, object);
        while (json_object_iter_next (&iter, &key, NULL))
          g_ptr_array_add (keys, (gpointer) key);
        g_ptr_array_sort (keys, compare_strings);

        g_string_append_c (out, '{');
        for (guint i = 0; i < keys->len; i++)
          {
            if (i > 0)
              g_string_append_c (out, ',');
            canonical_string (out, keys->pdata[i]);
            g_string_append_c (out, ':');
            canonical_json (out, json_object_get_member (object, keys->pdata[i]));
          }
        g_string_append_c (out, '}');
      }
      break;

    case JSON_NODE_ARRAY:
      {
        JsonArray *array = json_node_get_array (node);

        g_string_append_c (out, '[');
        for (guint i = 0; i < json_array_get_length (array); i++)
          {
            if (i > 0)
              g_string_append_c (out, ',');
            canonical_json (out, json_array_get_element (array, i));
          }
        g_string_append_c (out, ']');
      }
      break;

    case JSON_NODE_VALUE:
      switch (json_node_get_value_type (node))
        {
        case G_TYPE_STRING:
          canonical_string (out, json_node_get_string (node));
          break;
        case G_TYPE_BOOLEAN:
          g_string_append (out, json_node_get_boolean (node) ? "true" : "false");
          break;
        case G_TYPE_INT64:
          g_string_append_printf (out, "%" G_GINT64_FORMAT, json_node_get_int (node));
          break;
        case G_TYPE_DOUBLE:
          {
            char buffer[G_ASCII_DTOSTR_BUF_SIZE];

            g_string_append (out, g_ascii_dtostr (buffer, sizeof buffer,
                                                  json_node_get_double (node)));
          }
          break;
        default:
          g_string_append (out, "null");
          break;
        }
      break;

    case JSON_NODE_NULL:
    default:
      g_string_append (out, "null");
      break;
    }
}

static char *
to_json_string (JsonNode *node)
{
  g_autoptr(JsonGenerator) generator = json_generator_new ();

  json_generator_set_root (generator, node);
  return json_generator_to_data (generator, NULL);
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
      internal_error (msg, error);
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
      internal_error (msg, error);
      return FALSE;
    }
  /* Another process created it meanwhile: nothing new after all */
  if (!*out_created)
    prs_rate_limit_give_back (&routes->new_conversations);
  return TRUE;
}

static void
handle_resolve (PrsApiRoutes      *routes,
                SoupServerMessage *msg)
{
  g_autoptr(JsonNode) body = parse_json_body (msg);
  g_autofree char *slug = NULL;
  g_autofree char *conversation_id = NULL;
  const char *raw_slug;
  gboolean created = FALSE;
  JsonObject *object;
  JsonNode *node;

  if (body == NULL)
    return;
  if (!get_string (msg, json_node_get_object (body), "slug", "slug", TRUE, FALSE, 0, &raw_slug))
    return;

  slug = g_strstrip (g_strdup (raw_slug));
  if (slug[0] == '\0')
    {
      field_error (msg, "slug", "must not be empty");
      return;
    }
  if (g_utf8_strlen (slug, -1) > MAX_SLUG_CHARS)
    {
      field_error (msg, "slug", "must be at most 200 characters");
      return;
    }
  if (g_str_has_prefix (slug, "slug:"))
    {
      field_error (msg, "slug", "must not start with “slug:”");
      return;
    }

  if (!resolve_limited (routes, msg, slug, &conversation_id, &created))
    return;

  if (created && routes->conversation_created != NULL)
    routes->conversation_created (routes->notify_data, conversation_id);

  object = json_object_new ();
  json_object_set_boolean_member (object, "success", TRUE);
  json_object_set_string_member (object, "conversationId", conversation_id);
  json_object_set_string_member (object, "slug", slug);
  node = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (node, object);
  prs_api_respond_json (msg, SOUP_STATUS_OK, node);
}

/* Replays the stored answer of the message carrying @dedup_key. A message
 * whose run never began because Prosponsive stopped first (marked
 * "interrupted" at the next start) has no answer to replay: when @orphan
 * is given, that stored message is returned there instead, with FALSE, so
 * that this request answers it (nothing acted for it yet, and no one heard
 * back). */
static gboolean
replay_duplicate_or_orphan (PrsApiRoutes      *routes,
                            SoupServerMessage *msg,
                            const char        *dedup_key,
                            JsonNode         **orphan)
{
  g_autofree char *message_id = prs_store_find_message_by_dedup_key (routes->store, dedup_key);
  g_autoptr(JsonNode) message = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *answer;
  JsonNode *extra;
  JsonNode *node;
  guint status = SOUP_STATUS_SERVICE_UNAVAILABLE;

  if (message_id == NULL)
    return FALSE;

  /* The run it started answers for it: its state now, one run only */
  node = prs_run_build_answer (routes->store, message_id, &status);
  if (node != NULL)
    {
      prs_api_respond_json (msg, status, node);
      return TRUE;
    }
  status = SOUP_STATUS_SERVICE_UNAVAILABLE;

  message = prs_store_get_message (routes->store, message_id, &error);
  if (message == NULL || !JSON_NODE_HOLDS_OBJECT (message))
    return FALSE;

  extra = json_object_get_member (json_node_get_object (message), "extra");
  if (orphan != NULL && extra != NULL && JSON_NODE_HOLDS_OBJECT (extra) &&
      g_strcmp0 (json_object_get_string_member_with_default (json_node_get_object (message), "status", ""),
                 "failed") == 0 &&
      g_strcmp0 (json_object_get_string_member_with_default (json_node_get_object (extra), "reason", ""),
                 PRS_INBOUND_REASON_INTERRUPTED) == 0)
    {
      *orphan = g_steal_pointer (&message);
      return FALSE;
    }
  if (extra != NULL && JSON_NODE_HOLDS_OBJECT (extra) &&
      json_object_has_member (json_node_get_object (extra), "answer") &&
      JSON_NODE_HOLDS_OBJECT (json_object_get_member (json_node_get_object (extra), "answer")))
    {
      JsonObject *extra_object = json_node_get_object (extra);

      answer = json_object_ref (json_object_get_object_member (extra_object, "answer"));
      status = (guint) json_object_get_int_member_with_default (extra_object, "httpStatus",
                                                                SOUP_STATUS_SERVICE_UNAVAILABLE);
    }
  else
    {
      /* Stored by a build that kept no answer: it can only have failed */
      answer = error_object ("no-provider", NO_PROVIDER_MESSAGE);
    }

  json_object_set_string_member (answer, "messageId", message_id);
  node = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (node, answer);
  prs_api_respond_json (msg, status, node);
  return TRUE;
}

static gboolean
replay_duplicate (PrsApiRoutes      *routes,
                  SoupServerMessage *msg,
                  const char        *dedup_key)
{
  return replay_duplicate_or_orphan (routes, msg, dedup_key, NULL);
}

static char *
compute_dedup_key (const char *idempotency_key,
                   const char *workflow_id,
                   const char *execution_id,
                   const char *prompt,
                   JsonNode   *context)
{
  g_autoptr(GString) canonical = NULL;
  g_autoptr(GChecksum) checksum = NULL;

  if (idempotency_key != NULL)
    return g_strconcat ("idem:", idempotency_key, NULL);

  /* Without execution ids there is no way to tell a retry from a new call */
  if (workflow_id == NULL || execution_id == NULL)
    return NULL;

  canonical = g_string_new (NULL);
  if (context != NULL)
    canonical_json (canonical, context);
  else
    g_string_append (canonical, "null");

  /* Each part with its length: no two different tuples hash alike */
  checksum = g_checksum_new (G_CHECKSUM_SHA256);
#define ADD_PART(s, n) G_STMT_START { \
    char len_buf[24]; \
    g_snprintf (len_buf, sizeof len_buf, "%" G_GSIZE_FORMAT ":", (gsize) (n)); \
    g_checksum_update (checksum, (const guchar *) len_buf, -1); \
    g_checksum_update (checksum, (const guchar *) (s), (gssize) (n)); \
  } G_STMT_END
  ADD_PART (workflow_id, strlen (workflow_id));
  ADD_PART (execution_id, strlen (execution_id));
  ADD_PART (prompt, strlen (prompt));
  ADD_PART (canonical->str, canonical->len);
#undef ADD_PART

  return g_strconcat ("exec:", g_checksum_get_string (checksum), NULL);
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
      if (g_utf8_strlen (value, -1) > MAX_ID_CHARS)
        return field_error (msg, display_name, "must be at most 256 characters");
      *out = g_strdup (value);
      return TRUE;
    }
  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_INT64)
    {
      *out = g_strdup_printf ("%" G_GINT64_FORMAT, json_node_get_int (node));
      return TRUE;
    }

  return field_error (msg, display_name, "must be a string");
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
  GSource           *timeout;
  gboolean           answered;
  gboolean           gone;
} Deferred;

typedef struct
{
  JsonNode *node;
  guint     status;
} DeferredAnswer;

static void
deferred_answer_free (gpointer data)
{
  DeferredAnswer *answer = data;

  g_clear_pointer (&answer->node, json_node_unref);
  g_free (answer);
}

static void
deferred_clear (Deferred *deferred)
{
  if (deferred->timeout != NULL)
    {
      g_source_destroy (deferred->timeout);
      g_clear_pointer (&deferred->timeout, g_source_unref);
    }
  if (deferred->msg != NULL)
    g_signal_handlers_disconnect_by_data (deferred->msg, deferred);
  g_clear_object (&deferred->msg);
  g_clear_pointer (&deferred->message_id, g_free);
}

static void
deferred_unref (Deferred *deferred)
{
  g_rc_box_release_full (deferred, (GDestroyNotify) deferred_clear);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Deferred, deferred_unref)

static void
deferred_respond (Deferred *deferred,
                  guint     status,
                  JsonNode *node)
{
  if (deferred->answered || deferred->gone)
    {
      json_node_unref (node);
      return;
    }
  deferred->answered = TRUE;
  prs_api_respond_json (deferred->msg, status, node);
  soup_server_message_unpause (deferred->msg);
  if (deferred->timeout != NULL)
    {
      g_source_destroy (deferred->timeout);
      g_clear_pointer (&deferred->timeout, g_source_unref);
    }
}

static void
on_deferred_gone (SoupServerMessage *msg,
                  Deferred          *deferred)
{
  deferred->gone = TRUE;
}

static void
on_deferred_done (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(Deferred) deferred = user_data;
  DeferredAnswer *answer = g_task_propagate_pointer (G_TASK (result), NULL);

  if (answer == NULL)
    return;
  deferred_respond (deferred, answer->status, g_steal_pointer (&answer->node));
  deferred_answer_free (answer);
}

static gboolean
on_deferred_timeout (gpointer user_data)
{
  Deferred *deferred = user_data;
  guint status = SOUP_STATUS_ACCEPTED;
  JsonNode *node = prs_run_build_answer (deferred->routes->store, deferred->message_id, &status);

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
  deferred_respond (deferred, status, node);
  return G_SOURCE_REMOVE;
}

/* Pauses @msg and returns a GTask whose pointer result (a DeferredAnswer)
 * answers it; with @wait_seconds > 0 the wait ends then. */
static GTask *
defer (PrsApiRoutes      *routes,
       SoupServerMessage *msg,
       const char        *message_id,
       guint              wait_seconds)
{
  Deferred *deferred = g_rc_box_new0 (Deferred);
  GTask *task;

  deferred->routes = routes;
  deferred->msg = g_object_ref (msg);
  deferred->message_id = g_strdup (message_id);
  g_signal_connect (msg, "disconnected", G_CALLBACK (on_deferred_gone), deferred);
  g_signal_connect (msg, "finished", G_CALLBACK (on_deferred_gone), deferred);
  soup_server_message_pause (msg);

  if (wait_seconds > 0)
    {
      deferred->timeout = g_timeout_source_new_seconds (wait_seconds);
      g_source_set_callback (deferred->timeout, on_deferred_timeout,
                             g_rc_box_acquire (deferred), (GDestroyNotify) deferred_unref);
      g_source_attach (deferred->timeout, g_main_context_get_thread_default ());
    }
  routes->deferred_seconds = (wait_seconds > 0 ? wait_seconds : 30) + 15;

  /* On the API thread's context: the callback runs here, whichever thread
   * returns the task */
  task = g_task_new (NULL, NULL, on_deferred_done, deferred);
  return task;
}

static void
task_return_answer (GTask    *task,
                    guint     status,
                    JsonNode *node)
{
  DeferredAnswer *answer = g_new0 (DeferredAnswer, 1);

  answer->status = status;
  answer->node = node;
  g_task_return_pointer (task, answer, deferred_answer_free);
}

/* ---- agent runs on the main thread ---- */

typedef struct
{
  PrsRunner *runner;
  GTask     *task;
  char      *origin;
  char      *conversation_id;
  char      *agent_id;
  char      *message_id;
  char      *context_json;
  char      *execution_json;
  char      *system_prompt;
  double     temperature;
  guint      max_tokens;
} RunStart;

static void
run_start_free (RunStart *start)
{
  g_clear_object (&start->runner);
  g_clear_object (&start->task);
  g_free (start->origin);
  g_free (start->conversation_id);
  g_free (start->agent_id);
  g_free (start->message_id);
  g_free (start->context_json);
  g_free (start->execution_json);
  g_free (start->system_prompt);
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

  if (node == NULL)
    {
      JsonObject *object = error_object ("internal-error", error != NULL ? error->message : "The run was lost.");

      node = json_node_init_object (json_node_alloc (), object);
      json_object_unref (object);
      status = SOUP_STATUS_INTERNAL_SERVER_ERROR;
    }
  task_return_answer (start->task, status, node);
  run_start_free (start);
}

/* On the main thread */
static gboolean
start_run_on_main (gpointer user_data)
{
  RunStart *start = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsRun) run = NULL;
  PrsRunOptions options = { 0 };

  options.origin = start->origin;
  options.conversation_id = start->conversation_id;
  options.agent_id = start->agent_id;
  options.trigger_message_id = start->message_id;
  options.context_json = start->context_json;
  options.execution_json = start->execution_json;
  options.system_prompt = start->system_prompt;
  options.temperature = start->temperature;
  options.max_tokens = start->max_tokens;

  run = prs_runner_start (start->runner, &options, TRUE, &error);
  if (run == NULL)
    {
      gboolean not_found = g_error_matches (error, PRS_ERROR, PRS_ERROR_NOT_FOUND);
      JsonObject *object = error_object (not_found ? "not-found" : "internal-error", error->message);

      json_object_set_string_member (object, "messageId", start->message_id);
      task_return_answer (start->task, not_found ? SOUP_STATUS_NOT_FOUND : SOUP_STATUS_INTERNAL_SERVER_ERROR,
                          json_node_init_object (json_node_alloc (), object));
      json_object_unref (object);
      run_start_free (start);
      return G_SOURCE_REMOVE;
    }

  prs_run_wait_rest_async (run, NULL, on_run_rests, start);
  return G_SOURCE_REMOVE;
}

static gboolean
provider_info_on_main (gpointer user_data)
{
  GTask *task = user_data;
  PrsRunner *runner = g_task_get_task_data (task);

  task_return_answer (task, SOUP_STATUS_OK, prs_providers_build_info (prs_runner_get_providers (runner)));
  g_object_unref (task);
  return G_SOURCE_REMOVE;
}

/* Inference with agent runs: store the inbound message, hand the run to
 * the main thread, answer when it rests or after the wait (SPEC §9). */
static void
handle_inference_run (PrsApiRoutes      *routes,
                      SoupServerMessage *msg,
                      gboolean           with_history,
                      JsonObject        *body,
                      const char        *prompt,
                      const char        *conversation_id,
                      const char        *agent_id,
                      const char        *context_json,
                      const char        *execution_json,
                      const char        *dedup_key,
                      const char        *orphan_id)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *message_id = NULL;
  g_autofree char *extra_json = NULL;
  PrsMessageInsert insert = { 0 };
  RunStart *start;
  JsonNode *member;

  if (!prs_runner_try_reserve (routes->runner))
    {
      soup_message_headers_replace (soup_server_message_get_response_headers (msg),
                                    "Retry-After", RETRY_AFTER_SECONDS);
      prs_api_respond_error (msg, 429, "too-many-runs",
                             "More than 4 agent runs are in progress; retry later.");
      return;
    }

  {
    /* Until the run exists, a duplicate hears that it is running */
    g_autoptr(JsonObject) extra = json_object_new ();
    g_autoptr(JsonObject) answer = json_object_new ();
    g_autoptr(JsonNode) extra_node = NULL;

    json_object_set_boolean_member (answer, "success", TRUE);
    json_object_set_string_member (answer, "status", "running");
    json_object_set_int_member (extra, "httpStatus", SOUP_STATUS_ACCEPTED);
    json_object_set_string_member (extra, "route", with_history ? "inference" : "agent-inference");
    json_object_set_object_member (extra, "answer", json_object_ref (answer));
    extra_node = json_node_init_object (json_node_alloc (), extra);
    extra_json = to_json_string (extra_node);
  }

  insert.conversation_id = conversation_id;
  insert.kind = "inbound";
  insert.content = prompt;
  insert.status = "pending";
  insert.agent_id = agent_id;
  insert.context_json = context_json;
  insert.execution_json = execution_json;
  insert.dedup_key = dedup_key;
  insert.extra_json = extra_json;

  if (orphan_id != NULL)
    {
      /* Answer the stored message whose run never began */
      if (!prs_store_update_message (routes->store, orphan_id, "pending", NULL, extra_json, &error))
        {
          prs_runner_release_reservation (routes->runner);
          internal_error (msg, error);
          return;
        }
      message_id = g_strdup (orphan_id);
    }
  else if (!prs_store_insert_message (routes->store, &insert, &message_id, NULL, &error))
    {
      prs_runner_release_reservation (routes->runner);
      if (dedup_key != NULL && g_error_matches (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT) &&
          replay_duplicate (routes, msg, dedup_key))
        return;
      internal_error (msg, error);
      return;
    }

  if (routes->message_added != NULL && orphan_id == NULL)
    routes->message_added (routes->notify_data, conversation_id, message_id);

  start = g_new0 (RunStart, 1);
  start->runner = g_object_ref (routes->runner);
  start->origin = g_strdup (with_history ? PRS_RUN_ORIGIN_INFERENCE : PRS_RUN_ORIGIN_AGENT_INFERENCE);
  start->conversation_id = g_strdup (conversation_id);
  start->agent_id = g_strdup (agent_id);
  start->message_id = g_strdup (message_id);
  start->context_json = g_strdup (context_json);
  start->execution_json = g_strdup (execution_json);
  start->temperature = -1;
  if (with_history)
    {
      const char *system_prompt = NULL;

      if (json_object_has_member (body, "systemPrompt") &&
          JSON_NODE_HOLDS_VALUE (json_object_get_member (body, "systemPrompt")))
        system_prompt = json_object_get_string_member (body, "systemPrompt");
      start->system_prompt = g_strdup (system_prompt);
      member = json_object_get_member (body, "temperature");
      if (member != NULL && JSON_NODE_HOLDS_VALUE (member))
        start->temperature = json_node_get_value_type (member) == G_TYPE_DOUBLE
                             ? json_node_get_double (member) : (double) json_node_get_int (member);
      member = json_object_get_member (body, "maxTokens");
      if (member != NULL && JSON_NODE_HOLDS_VALUE (member))
        start->max_tokens = (guint) json_node_get_int (member);
    }
  start->task = defer (routes, msg, message_id, routes->wait_seconds);
  g_main_context_invoke (routes->main_context, start_run_on_main, start);
}

static void
handle_inference (PrsApiRoutes      *routes,
                  SoupServerMessage *msg,
                  gboolean           with_history)
{
  g_autoptr(JsonNode) body = parse_json_body (msg);
  g_autoptr(GError) error = NULL;
  g_autofree char *workflow_id = NULL;
  g_autofree char *execution_id = NULL;
  g_autofree char *context_json = NULL;
  g_autofree char *execution_json = NULL;
  g_autofree char *dedup_key = NULL;
  g_autoptr(JsonNode) orphan = NULL;
  g_autofree char *message_id = NULL;
  g_autofree char *extra_json = NULL;
  const char *prompt, *conversation_id, *agent_id = NULL, *idempotency_key;
  const char *unused;
  JsonObject *object;
  JsonNode *context = NULL, *execution = NULL;
  JsonObject *answer;
  JsonNode *node;
  PrsMessageInsert insert = { 0 };

  if (body == NULL)
    return;
  object = json_node_get_object (body);

  if (!get_string (msg, object, "prompt", "prompt", TRUE, TRUE, 0, &prompt) ||
      !get_string (msg, object, "conversationId", "conversationId", TRUE, TRUE, MAX_ID_CHARS,
                   &conversation_id))
    return;

  if (with_history)
    {
      JsonNode *member;

      if (!get_object (msg, object, "context", "context", TRUE, &context) ||
          !get_string (msg, json_node_get_object (context), "activeAgentId",
                       "context.activeAgentId", TRUE, TRUE, MAX_ID_CHARS, &agent_id) ||
          !get_string (msg, object, "systemPrompt", "systemPrompt", FALSE, FALSE, 0, &unused))
        return;

      member = json_object_get_member (object, "temperature");
      if (member != NULL && !JSON_NODE_HOLDS_NULL (member))
        {
          GType type = JSON_NODE_HOLDS_VALUE (member) ? json_node_get_value_type (member) : G_TYPE_INVALID;
          double t;

          if (type != G_TYPE_DOUBLE && type != G_TYPE_INT64)
            {
              field_error (msg, "temperature", "must be a number");
              return;
            }
          t = type == G_TYPE_DOUBLE ? json_node_get_double (member) : (double) json_node_get_int (member);
          if (t < 0.0 || t > 2.0)
            {
              field_error (msg, "temperature", "must be between 0 and 2");
              return;
            }
        }

      member = json_object_get_member (object, "maxTokens");
      if (member != NULL && !JSON_NODE_HOLDS_NULL (member))
        {
          if (!JSON_NODE_HOLDS_VALUE (member) || json_node_get_value_type (member) != G_TYPE_INT64)
            {
              field_error (msg, "maxTokens", "must be an integer");
              return;
            }
          if (json_node_get_int (member) < 1 || json_node_get_int (member) > 1000000)
            {
              field_error (msg, "maxTokens", "must be between 1 and 1000000");
              return;
            }
        }
    }
  else
    {
      if (!get_string (msg, object, "agentId", "agentId", TRUE, TRUE, MAX_ID_CHARS, &agent_id) ||
          !get_object (msg, object, "context", "context", FALSE, &context))
        return;
    }

  if (!get_object (msg, object, "execution", "execution", FALSE, &execution) ||
      !get_string (msg, object, "idempotencyKey", "idempotencyKey", FALSE, TRUE,
                   MAX_IDEMPOTENCY_CHARS, &idempotency_key))
    return;

  if (execution != NULL)
    {
      JsonObject *exec_object = json_node_get_object (execution);
      g_autoptr(JsonBuilder) builder = json_builder_new ();
      g_autoptr(JsonNode) normalized = NULL;

      if (!get_execution_id (msg, exec_object, "workflowId", "execution.workflowId", &workflow_id) ||
          !get_execution_id (msg, exec_object, "executionId", "execution.executionId", &execution_id))
        return;

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "workflowId");
      if (workflow_id != NULL)
        json_builder_add_string_value (builder, workflow_id);
      else
        json_builder_add_null_value (builder);
      json_builder_set_member_name (builder, "executionId");
      if (execution_id != NULL)
        json_builder_add_string_value (builder, execution_id);
      else
        json_builder_add_null_value (builder);
      json_builder_end_object (builder);
      normalized = json_builder_get_root (builder);
      execution_json = to_json_string (normalized);
    }

  if (context != NULL)
    {
      if (node_depth (context) > MAX_CONTEXT_DEPTH)
        {
          field_error (msg, "context", "is nested deeper than 32 levels");
          return;
        }
      context_json = to_json_string (context);
      if (strlen (context_json) > MAX_CONTEXT_BYTES)
        {
          field_error (msg, "context", "is larger than 256 KiB");
          return;
        }
    }

  if (!prs_store_has_conversation (routes->store, conversation_id))
    {
      prs_api_respond_error (msg, SOUP_STATUS_NOT_FOUND, "conversation-not-found",
                             "There is no conversation with this conversationId.");
      return;
    }

  {
    g_autoptr(PrsAgent) agent = prs_store_lookup_agent (routes->store, agent_id, NULL);

    if (agent == NULL)
      {
        prs_api_respond_error (msg, SOUP_STATUS_NOT_FOUND, "agent-not-found",
                               with_history ? "There is no agent with this context.activeAgentId."
                                            : "There is no agent with this agentId.");
        return;
      }
  }

  dedup_key = compute_dedup_key (idempotency_key, workflow_id, execution_id, prompt, context);
  if (dedup_key != NULL &&
      replay_duplicate_or_orphan (routes, msg, dedup_key, routes->runner != NULL ? &orphan : NULL))
    return;

  if (orphan != NULL)
    {
      /* The first request's message, exactly as it was stored */
      JsonObject *first = json_node_get_object (orphan);
      g_autofree char *stored_context = NULL;
      g_autofree char *stored_execution = NULL;

      if ((node = json_object_get_member (first, "context")) != NULL && !JSON_NODE_HOLDS_NULL (node))
        stored_context = to_json_string (node);
      if ((node = json_object_get_member (first, "execution")) != NULL && !JSON_NODE_HOLDS_NULL (node))
        stored_execution = to_json_string (node);
      handle_inference_run (routes, msg, with_history, object,
                            json_object_get_string_member_with_default (first, "content", prompt),
                            json_object_get_string_member_with_default (first, "conversationId", conversation_id),
                            json_object_get_string_member_with_default (first, "agentId", agent_id),
                            stored_context, stored_execution, dedup_key,
                            json_object_get_string_member (first, "id"));
      return;
    }

  if (routes->runner != NULL)
    {
      handle_inference_run (routes, msg, with_history, object, prompt, conversation_id, agent_id,
                            context_json, execution_json, dedup_key, NULL);
      return;
    }

  if (routes->running_inferences >= PRS_API_MAX_CONCURRENT_RUNS)
    {
      soup_message_headers_replace (soup_server_message_get_response_headers (msg),
                                    "Retry-After", RETRY_AFTER_SECONDS);
      prs_api_respond_error (msg, 429, "too-many-runs",
                             "More than 4 agent runs are in progress; retry later.");
      return;
    }
  routes->running_inferences++;

  /* No provider exists yet (issue 4 adds them): the specified answer is a
   * stored, failed inbound message and a 503 that says why. */
  answer = error_object ("no-provider", NO_PROVIDER_MESSAGE);
  {
    g_autoptr(JsonObject) extra = json_object_new ();
    JsonNode *extra_node = json_node_new (JSON_NODE_OBJECT);

    json_object_set_int_member (extra, "httpStatus", SOUP_STATUS_SERVICE_UNAVAILABLE);
    json_object_set_string_member (extra, "reason", "no-provider");
    json_object_set_string_member (extra, "route", with_history ? "inference" : "agent-inference");
    json_object_set_object_member (extra, "answer", json_object_ref (answer));
    json_node_set_object (extra_node, extra);
    extra_json = to_json_string (extra_node);
    json_node_unref (extra_node);
  }

  insert.conversation_id = conversation_id;
  insert.kind = "inbound";
  insert.content = prompt;
  insert.status = "failed";
  insert.agent_id = agent_id;
  insert.context_json = context_json;
  insert.execution_json = execution_json;
  insert.dedup_key = dedup_key;
  insert.extra_json = extra_json;

  if (!prs_store_insert_message (routes->store, &insert, &message_id, NULL, &error))
    {
      routes->running_inferences--;
      json_object_unref (answer);
      /* Lost a race with an identical request on another connection */
      if (dedup_key != NULL && g_error_matches (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT) &&
          replay_duplicate (routes, msg, dedup_key))
        return;
      internal_error (msg, error);
      return;
    }
  routes->running_inferences--;

  if (routes->message_added != NULL)
    routes->message_added (routes->notify_data, conversation_id, message_id);

  json_object_set_string_member (answer, "messageId", message_id);
  node = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (node, answer);
  prs_api_respond_json (msg, SOUP_STATUS_SERVICE_UNAVAILABLE, node);
}

static void
handle_provider_info (PrsApiRoutes      *routes,
                      SoupServerMessage *msg)
{
  JsonObject *object;
  JsonNode *node;

  if (routes->runner != NULL)
    {
      /* PrsProviders lives on the main thread */
      GTask *task = defer (routes, msg, NULL, 0);

      g_task_set_task_data (task, g_object_ref (routes->runner), g_object_unref);
      g_main_context_invoke (routes->main_context, provider_info_on_main, task);
      return;
    }

  object = json_object_new ();
  node = json_node_new (JSON_NODE_OBJECT);

  /* No providers exist yet: say so, never invent one */
  json_object_set_boolean_member (object, "success", TRUE);
  json_object_set_null_member (object, "activeProvider");
  json_object_set_array_member (object, "availableProviders", json_array_new ());
  json_node_take_object (node, object);
  prs_api_respond_json (msg, SOUP_STATUS_OK, node);
}

static void
handle_loop_result (PrsApiRoutes      *routes,
                    SoupServerMessage *msg)
{
  g_autoptr(JsonNode) body = parse_json_body (msg);
  JsonObject *object;
  JsonNode *success;
  const char *tool_call_id, *error_text;

  if (body == NULL)
    return;
  object = json_node_get_object (body);

  if (!get_string (msg, object, "toolCallId", "toolCallId", TRUE, TRUE, MAX_ID_CHARS, &tool_call_id))
    return;
  success = json_object_get_member (object, "success");
  if (success == NULL || !JSON_NODE_HOLDS_VALUE (success) ||
      json_node_get_value_type (success) != G_TYPE_BOOLEAN)
    {
      field_error (msg, "success", "is required and must be a boolean");
      return;
    }
  if (!get_string (msg, object, "error", "error", FALSE, FALSE, 0, &error_text))
    return;

  if (routes->registry != NULL &&
      prs_callback_registry_deliver (routes->registry, tool_call_id, json_node_get_boolean (success),
                                     json_object_get_member (object, "result"), error_text))
    {
      JsonObject *answer = json_object_new ();

      json_object_set_boolean_member (answer, "success", TRUE);
      json_object_set_string_member (answer, "toolCallId", tool_call_id);
      prs_api_respond_json (msg, SOUP_STATUS_OK, json_node_init_object (json_node_alloc (), answer));
      json_object_unref (answer);
      return;
    }

  prs_api_respond_error (msg, SOUP_STATUS_NOT_FOUND, "tool-call-not-found",
                         "No tool call with this toolCallId is waiting for a result.");
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
      internal_error (msg, error);
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
      internal_error (msg, error);
      return;
    }

  node = json_node_new (JSON_NODE_ARRAY);
  json_node_take_array (node, array);
  prs_api_respond_json (msg, SOUP_STATUS_OK, node);
}

static void
method_not_allowed (SoupServerMessage *msg,
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
  if (end <= start || end - start > MAX_ID_CHARS || memchr (start, '/', (gsize) (end - start)) != NULL)
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

  if (strcmp (path, "/api/health") == 0)
    {
      if (is_get)
        handle_health (msg);
      else
        method_not_allowed (msg, "GET");
    }
  else if (strcmp (path, "/api/conversations/resolve") == 0)
    {
      if (is_post)
        handle_resolve (routes, msg);
      else
        method_not_allowed (msg, "POST");
    }
  else if (strcmp (path, "/api/ai/agent-inference") == 0 ||
           strcmp (path, "/api/ai/inference") == 0)
    {
      if (is_post)
        handle_inference (routes, msg, strcmp (path, "/api/ai/inference") == 0);
      else
        method_not_allowed (msg, "POST");
    }
  else if (strcmp (path, "/api/ai/provider-info") == 0)
    {
      if (is_get)
        handle_provider_info (routes, msg);
      else
        method_not_allowed (msg, "GET");
    }
  else if (strcmp (path, "/api/ai/agentic-loop-result") == 0)
    {
      if (is_post)
        handle_loop_result (routes, msg);
      else
        method_not_allowed (msg, "POST");
    }
  else if (strcmp (path, "/api/conversations") == 0)
    {
      if (is_get)
        handle_conversations (routes, msg);
      else
        method_not_allowed (msg, "GET");
    }
  else if ((conversation_id = match_messages_path (path)) != NULL)
    {
      if (is_get)
        handle_messages (routes, msg, conversation_id, query);
      else
        method_not_allowed (msg, "GET");
    }
  else
    {
      prs_api_respond_error (msg, SOUP_STATUS_NOT_FOUND, "not-found",
                             "There is no such route.");
    }
}
