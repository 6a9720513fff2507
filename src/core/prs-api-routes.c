/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-api-routes.c: the endpoints of SPEC §9. Every input is validated
 * before it is used; every error answer names what was wrong. */
#include "config.h"

#include <string.h>

#include "prs-api-guard.h"
#include "prs-api-routes.h"
#include "prs-error.h"

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

static void
handle_resolve (PrsApiRoutes      *routes,
                SoupServerMessage *msg)
{
  g_autoptr(JsonNode) body = parse_json_body (msg);
  g_autoptr(GError) error = NULL;
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

  if (!prs_store_resolve_conversation (routes->store, slug, &conversation_id, &created, &error))
    {
      internal_error (msg, error);
      return;
    }

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

/* Replays the stored answer of the message carrying @dedup_key. */
static gboolean
replay_duplicate (PrsApiRoutes      *routes,
                  SoupServerMessage *msg,
                  const char        *dedup_key)
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

  message = prs_store_get_message (routes->store, message_id, &error);
  if (message == NULL || !JSON_NODE_HOLDS_OBJECT (message))
    return FALSE;

  extra = json_object_get_member (json_node_get_object (message), "extra");
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

  dedup_key = compute_dedup_key (idempotency_key, workflow_id, execution_id, prompt, context);
  if (dedup_key != NULL && replay_duplicate (routes, msg, dedup_key))
    return;

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
handle_provider_info (SoupServerMessage *msg)
{
  JsonObject *object = json_object_new ();
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);

  /* No providers exist yet: say so, never invent one */
  json_object_set_boolean_member (object, "success", TRUE);
  json_object_set_null_member (object, "activeProvider");
  json_object_set_array_member (object, "availableProviders", json_array_new ());
  json_node_take_object (node, object);
  prs_api_respond_json (msg, SOUP_STATUS_OK, node);
}

static void
handle_loop_result (SoupServerMessage *msg)
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

  /* No run waits for a callback until agent runs exist (issue 5) */
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
        handle_provider_info (msg);
      else
        method_not_allowed (msg, "GET");
    }
  else if (strcmp (path, "/api/ai/agentic-loop-result") == 0)
    {
      if (is_post)
        handle_loop_result (msg);
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
