/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-n8n-client.c: the n8n public REST API over PrsHttpRequest.
 *
 * Every request carries the X-N8N-API-KEY header: GETs for discovery, and
 * the few POSTs of first-run setup (a credential, example workflows,
 * activation). The answer body is read up to a size cap (a misconfigured
 * URL can point at anything, including an endless stream), then parsed with
 * json-glib. Failures become PRS_ERROR codes whose messages name the n8n URL
 * and say what to do in n8n's terms; the API key itself never appears in a
 * message or a log line. */
#include "config.h"

#include <glib/gi18n-lib.h>

#include <string.h>

#include "prs-error.h"
#include "prs-http-request.h"
#include "prs-json.h"
#include "prs-n8n-client.h"
#include "prs-n8n-client-private.h"
#include "prs-n8n-client-internal.h"
#include "prs-workflow.h"

#define DEFAULT_TIMEOUT_SECONDS   10
#define DEFAULT_MAX_RESPONSE_SIZE ((gsize) 64 * 1024 * 1024)
#define PAGE_LIMIT                250
#define MAX_PAGES                 10000
#define MAX_QUOTED_MESSAGE        300  /* characters of n8n's own message kept */

struct _PrsN8nClient
{
  GObject      parent_instance;

  char        *base_url;        /* canonical, or the raw input when invalid */
  char        *api_key;
  GError      *config_error;    /* why requests cannot be made, or NULL */

  SoupSession *session;
  guint        timeout;
  gsize        max_response_size;
};

G_DEFINE_FINAL_TYPE (PrsN8nClient, prs_n8n_client, G_TYPE_OBJECT)

/* What a request is for; it chooses the hint of a 404. */
typedef enum
{
  REQUEST_LIST,
  REQUEST_WORKFLOW,
  REQUEST_WRITE,      /* creating or activating: other scopes */
} RequestKind;

typedef struct
{
  RequestKind     kind;
  gsize           max_size;     /* the largest answer read */
  char           *path;         /* without the query, for messages */
  PrsHttpRequest *http;
} Request;

static void
request_free (gpointer data)
{
  Request *req = data;

  g_clear_object (&req->http);
  g_free (req->path);
  g_free (req);
}

static void
prs_n8n_client_finalize (GObject *object)
{
  PrsN8nClient *self = PRS_N8N_CLIENT (object);

  g_clear_object (&self->session);
  if (self->api_key != NULL)
    memset (self->api_key, 0, strlen (self->api_key));
  g_clear_pointer (&self->api_key, g_free);
  g_clear_pointer (&self->base_url, g_free);
  g_clear_error (&self->config_error);

  G_OBJECT_CLASS (prs_n8n_client_parent_class)->finalize (object);
}

static void
prs_n8n_client_class_init (PrsN8nClientClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = prs_n8n_client_finalize;
}

static void
prs_n8n_client_init (PrsN8nClient *self)
{
  self->timeout = DEFAULT_TIMEOUT_SECONDS;
  self->max_response_size = DEFAULT_MAX_RESPONSE_SIZE;
  self->session = prs_http_session_new (self->timeout);
}

static gboolean
str_has_suffix_ascii_nocase (const char *str,
                             const char *suffix)
{
  gsize len = strlen (str);
  gsize suffix_len = strlen (suffix);

  return len >= suffix_len && g_ascii_strcasecmp (str + len - suffix_len, suffix) == 0;
}

static void
strip_trailing_slashes (char *path)
{
  gsize len = strlen (path);

  while (len > 0 && path[len - 1] == '/')
    path[--len] = '\0';
}

char *
prs_n8n_client_normalize_base_url (const char  *base_url,
                                   GError     **error)
{
  const char *example = _("for example http://127.0.0.1:5678");
  g_autofree char *trimmed = NULL;
  g_autofree char *scheme = NULL;
  g_autofree char *path = NULL;
  g_autoptr(GUri) uri = NULL;
  const char *host;

  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  trimmed = g_strstrip (g_strdup (base_url != NULL ? base_url : ""));
  if (*trimmed == '\0')
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                   _("The n8n URL is empty. Enter the address of your n8n instance, %s."), example);
      return NULL;
    }

  uri = g_uri_parse (trimmed, G_URI_FLAGS_ENCODED, NULL);
  if (uri == NULL || prs_http_has_control_chars (trimmed))
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                   _("“%s” is not a valid URL. Enter the address of your n8n instance, %s."),
                   trimmed, example);
      return NULL;
    }

  scheme = g_ascii_strdown (g_uri_get_scheme (uri), -1);
  if (g_strcmp0 (scheme, "http") != 0 && g_strcmp0 (scheme, "https") != 0)
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                   _("The n8n URL must start with http:// or https://, not %s:. "
                   "Enter the address of your n8n instance, %s."), scheme, example);
      return NULL;
    }

  /* Not echoed: it would print the password. */
  if (g_uri_get_userinfo (uri) != NULL)
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                   _("The n8n URL must not contain a user name or password; "
                   "n8n’s API is authorised with an API key instead."));
      return NULL;
    }

  host = g_uri_get_host (uri);
  if (host == NULL || *host == '\0')
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                   _("The n8n URL “%s” has no host name. Enter the address of your n8n instance, %s."),
                   trimmed, example);
      return NULL;
    }

  if (g_uri_get_query (uri) != NULL || g_uri_get_fragment (uri) != NULL)
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                   _("The n8n URL “%s” must not contain a query (?…) or a fragment (#…). "
                   "Enter the address of your n8n instance, %s."), trimmed, example);
      return NULL;
    }

  /* People paste the API root they saw in the n8n docs; the client adds it. */
  path = g_strdup (g_uri_get_path (uri));
  strip_trailing_slashes (path);
  if (str_has_suffix_ascii_nocase (path, "/api/v1"))
    {
      path[strlen (path) - strlen ("/api/v1")] = '\0';
      strip_trailing_slashes (path);
    }

  return g_uri_join (G_URI_FLAGS_ENCODED, scheme, NULL, host, g_uri_get_port (uri),
                     path, NULL, NULL);
}

PrsN8nClient *
prs_n8n_client_new (const char *base_url,
                    const char *api_key)
{
  PrsN8nClient *self = g_object_new (PRS_TYPE_N8N_CLIENT, NULL);
  g_autoptr(GError) error = NULL;

  self->base_url = prs_n8n_client_normalize_base_url (base_url, &error);
  if (self->base_url == NULL)
    {
      self->base_url = g_strdup (base_url != NULL ? base_url : "");
      self->config_error = g_steal_pointer (&error);
    }

  self->api_key = g_strstrip (g_strdup (api_key != NULL ? api_key : ""));
  /* libsoup warns about (and prints) header values with line breaks; the key
   * must never reach a log, so refuse it here. */
  if (self->config_error == NULL && prs_http_has_control_chars (self->api_key))
    self->config_error = g_error_new (PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                                      _("The n8n API key contains line breaks or control "
                                      "characters. Paste the key again as a single line."));

  return self;
}

const char *
prs_n8n_client_get_base_url (PrsN8nClient *self)
{
  g_return_val_if_fail (PRS_IS_N8N_CLIENT (self), NULL);

  return self->base_url;
}

guint
prs_n8n_client_get_timeout (PrsN8nClient *self)
{
  g_return_val_if_fail (PRS_IS_N8N_CLIENT (self), 0);

  return self->timeout;
}

void
prs_n8n_client_set_timeout (PrsN8nClient *self,
                            guint         seconds)
{
  g_return_if_fail (PRS_IS_N8N_CLIENT (self));
  g_return_if_fail (seconds > 0);

  self->timeout = seconds;
  soup_session_set_timeout (self->session, seconds);
}

void
prs_n8n_client_set_max_response_size (PrsN8nClient *self,
                                      gsize         max_size)
{
  g_return_if_fail (PRS_IS_N8N_CLIENT (self));
  g_return_if_fail (max_size > 0);

  self->max_response_size = max_size;
}

/* Errors ---------------------------------------------------------------- */

/* n8n's errors are {"message": "…"}; anything else yields NULL. The text is
 * cut and stripped of control characters before it is shown to a person. */
static char *
dup_n8n_message (GBytes *body)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  const char *data;
  gsize len;
  JsonNode *root;
  JsonNode *member;

  data = body != NULL ? g_bytes_get_data (body, &len) : NULL;
  if (data == NULL || len == 0 || !json_parser_load_from_data (parser, data, len, NULL))
    return NULL;

  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return NULL;
  member = json_object_get_member (json_node_get_object (root), "message");
  if (member == NULL || json_node_get_value_type (member) != G_TYPE_STRING)
    return NULL;
  return prs_http_clean_text (json_node_get_string (member), MAX_QUOTED_MESSAGE);
}

static GError *
status_error (PrsN8nClient *self,
              Request      *req)
{
  guint status = prs_http_request_get_status (req->http);
  const char *reason = prs_http_request_get_reason (req->http);
  const char *base = self->base_url;
  g_autofree char *message = dup_n8n_message (prs_http_request_get_body (req->http));
  g_autofree char *said = NULL;

  said = message != NULL ? g_strdup_printf (": “%s”", message) : g_strdup ("");

  if (status == SOUP_STATUS_UNAUTHORIZED)
    return g_error_new (PRS_ERROR, PRS_ERROR_N8N_UNAUTHORIZED,
                        _("n8n at %s rejected the API key (%u %s%s). "
                        "Create a new key in n8n under Settings → n8n API."),
                        base, status, reason, said);

  if (status == SOUP_STATUS_FORBIDDEN && req->kind == REQUEST_WRITE)
    return g_error_new (PRS_ERROR, PRS_ERROR_N8N_UNAUTHORIZED,
                        _("n8n at %s refused %s (%u %s%s). The API key may lack the scope "
                        "for it (credential:create, credential:delete, workflow:list, workflow:create, "
                        "workflow:update, workflow:activate). "
                        "Create a key with these scopes in n8n under Settings → n8n API."),
                        base, req->path, status, reason, said);

  if (status == SOUP_STATUS_FORBIDDEN)
    return g_error_new (PRS_ERROR, PRS_ERROR_N8N_UNAUTHORIZED,
                        _("n8n at %s rejected the API key (%u %s%s). The key may lack the "
                        "workflow:list and workflow:read scopes. Create a new key in n8n "
                        "under Settings → n8n API."),
                        base, status, reason, said);

  if (status == SOUP_STATUS_NOT_FOUND && req->kind == REQUEST_WORKFLOW && message != NULL)
    return g_error_new (PRS_ERROR, PRS_ERROR_N8N_NOT_FOUND,
                        _("n8n at %s has no workflow at %s (%u %s%s). It may have been deleted."),
                        base, req->path, status, reason, said);

  if (status == SOUP_STATUS_NOT_FOUND)
    return g_error_new (PRS_ERROR, PRS_ERROR_N8N_NOT_FOUND,
                        _("n8n at %s answered %u %s for %s. The URL may not be an n8n instance, "
                        "or its public API is disabled (N8N_PUBLIC_API_DISABLED)."),
                        base, status, reason, req->path);

  if (SOUP_STATUS_IS_REDIRECTION (status))
    {
      const char *location = prs_http_request_get_response_header (req->http, "Location");

      /* Redirects are not followed: the API key would go along to wherever
       * they point. */
      if (location != NULL)
        return g_error_new (PRS_ERROR, PRS_ERROR_N8N_HTTP,
                            _("n8n at %s redirected the request (%u %s) to %s. "
                            "Use the address n8n redirects to as the n8n URL."),
                            base, status, reason, location);
      return g_error_new (PRS_ERROR, PRS_ERROR_N8N_HTTP,
                          _("n8n at %s answered with a redirect (%u %s). "
                          "Use the address n8n redirects to as the n8n URL."),
                          base, status, reason);
    }

  return g_error_new (PRS_ERROR, PRS_ERROR_N8N_HTTP,
                      _("n8n at %s answered %u %s for %s%s."),
                      base, status, reason, req->path, said);
}

static GError *
not_json_error (PrsN8nClient *self,
                Request      *req,
                gsize         len)
{
  const char *content_type;

  if (len == 0)
    return g_error_new (PRS_ERROR, PRS_ERROR_N8N_BAD_RESPONSE,
                        _("n8n at %s answered with an empty body for %s. "
                        "Check that the URL points to n8n."), self->base_url, req->path);

  content_type = prs_http_request_get_content_type (req->http);
  return g_error_new (PRS_ERROR, PRS_ERROR_N8N_BAD_RESPONSE,
                      _("n8n at %s answered with something that is not JSON (%s) for %s. "
                      "Check that the URL points to n8n and not to another web page."),
                      self->base_url, content_type != NULL ? content_type : _("no content type"),
                      req->path);
}

static GError *
too_large_error (PrsN8nClient *self,
                 Request      *req)
{
  g_autofree char *limit = g_format_size_full (req->max_size, G_FORMAT_SIZE_IEC_UNITS);

  return g_error_new (PRS_ERROR, PRS_ERROR_TOO_LARGE,
                      _("n8n at %s sent an answer larger than %s for %s; Prosponsive does not "
                      "read answers that large. Check that the URL points to n8n."),
                      self->base_url, limit, req->path);
}

static GError *
transport_error (PrsN8nClient *self,
                 Request      *req,
                 const GError *error)
{
  const char *base = self->base_url;

  switch (prs_http_request_get_failure (req->http))
    {
    case PRS_HTTP_FAILURE_TIMEOUT:
      return g_error_new (PRS_ERROR, PRS_ERROR_TIMEOUT,
                          _("n8n at %s did not answer within %u seconds. "
                          "Is n8n running, and is it not overloaded?"), base, self->timeout);

    case PRS_HTTP_FAILURE_NOT_HTTP:
      return g_error_new (PRS_ERROR, PRS_ERROR_N8N_BAD_RESPONSE,
                          _("n8n at %s sent an answer that is not valid HTTP (%s). "
                          "Check that the URL points to n8n."), base, error->message);

    case PRS_HTTP_FAILURE_REFUSED:
      return g_error_new (PRS_ERROR, PRS_ERROR_N8N_UNREACHABLE,
                          _("Could not connect to n8n at %s: connection refused. Is n8n running?"),
                          base);

    case PRS_HTTP_FAILURE_DNS:
      return g_error_new (PRS_ERROR, PRS_ERROR_N8N_UNREACHABLE,
                          _("Could not connect to n8n at %s: the host name could not be "
                          "resolved (%s). Check the URL."), base, error->message);

    case PRS_HTTP_FAILURE_TLS:
      return g_error_new (PRS_ERROR, PRS_ERROR_N8N_UNREACHABLE,
                          _("Could not connect to n8n at %s: the secure (TLS) connection failed "
                          "(%s). Check that the URL starts with http:// or https:// as n8n "
                          "expects, and that its certificate is trusted."), base, error->message);

    case PRS_HTTP_FAILURE_UNREACHABLE:
      return g_error_new (PRS_ERROR, PRS_ERROR_N8N_UNREACHABLE,
                          _("Could not connect to n8n at %s: the host is unreachable (%s). "
                          "Check the URL and the network."), base, error->message);

    case PRS_HTTP_FAILURE_TOO_LARGE:
      return too_large_error (self, req);

    case PRS_HTTP_FAILURE_CANCELLED:
      return g_error_copy (error);

    case PRS_HTTP_FAILURE_NONE:
    case PRS_HTTP_FAILURE_BROKEN:
    case PRS_HTTP_FAILURE_CONNECT:
    case PRS_HTTP_FAILURE_OTHER:
    default:
      return g_error_new (PRS_ERROR, PRS_ERROR_N8N_UNREACHABLE,
                          _("Could not connect to n8n at %s: %s. Is n8n running?"),
                          base, error->message);
    }
}

static GError *
shape_error (PrsN8nClient *self,
             const char   *path,
             const char   *what)
{
  return g_error_new (PRS_ERROR, PRS_ERROR_N8N_BAD_RESPONSE,
                      _("n8n at %s answered %s with JSON of an unexpected shape: %s. "
                      "Check that the URL points to n8n 1.x."), self->base_url, path, what);
}

/* One request returning JSON --------------------------------------------- */

static void
on_answer (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  PrsN8nClient *self = g_task_get_source_object (task);
  Request *req = g_task_get_task_data (task);
  g_autoptr(JsonParser) parser = NULL;
  g_autoptr(GError) error = NULL;
  GBytes *body;
  const char *data;
  gsize len;

  if (!prs_http_request_send_finish (req->http, result, &error))
    {
      g_task_return_error (task, transport_error (self, req, error));
      return;
    }
  if (!SOUP_STATUS_IS_SUCCESSFUL (prs_http_request_get_status (req->http)))
    {
      g_task_return_error (task, status_error (self, req));
      return;
    }

  body = prs_http_request_get_body (req->http);
  data = g_bytes_get_data (body, &len);
  parser = json_parser_new ();
  if (len == 0 || !json_parser_load_from_data (parser, data, len, &error) ||
      json_parser_get_root (parser) == NULL)
    {
      g_task_return_error (task, not_json_error (self, req, len));
      return;
    }

  g_task_return_pointer (task, json_node_ref (json_parser_get_root (parser)),
                         (GDestroyNotify) json_node_unref);
}

/* @path_and_query is appended to the base URL; @path (no query) is what error
 * messages show; @body (may be NULL) is sent as JSON with @method. Finishes
 * with the parsed JSON root (a JsonNode). */
static void
request_json_async (PrsN8nClient        *self,
                    RequestKind          kind,
                    const char          *method,
                    const char          *path,
                    const char          *path_and_query,
                    JsonNode            *body,
                    GCancellable        *cancellable,
                    GAsyncReadyCallback  callback,
                    gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autofree char *url = NULL;
  Request *req;

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, request_json_async);

  if (self->config_error != NULL)
    {
      g_task_return_error (task, g_error_copy (self->config_error));
      return;
    }

  req = g_new0 (Request, 1);
  req->kind = kind;
  req->max_size = self->max_response_size;
  /* One workflow holds its nodes twice (as saved and as published): an
   * answer over twice the largest workflow is not read, so one huge
   * workflow costs discovery nothing but a checklist entry */
  if (kind == REQUEST_WORKFLOW)
    req->max_size = MIN (req->max_size, 2 * PRS_WORKFLOW_MAX_BYTES);
  req->path = g_strdup (path);
  g_task_set_task_data (task, req, request_free);

  url = g_strconcat (self->base_url, path_and_query, NULL);
  req->http = prs_http_request_new (self->session, method, url);
  if (req->http == NULL)
    {
      g_task_return_new_error (task, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                               _("Could not build a request URL from the n8n URL %s."),
                               self->base_url);
      return;
    }
  prs_http_request_set_limits (req->http, req->max_size, 0);
  prs_http_request_set_header (req->http, "Accept", "application/json");
  if (self->api_key[0] != '\0')
    prs_http_request_set_header (req->http, "X-N8N-API-KEY", self->api_key);
  if (body != NULL)
    prs_http_request_set_json_body (req->http, body);

  prs_http_request_send_async (req->http, cancellable, on_answer, g_steal_pointer (&task));
}

static void
get_json_async (PrsN8nClient        *self,
                RequestKind          kind,
                const char          *path,
                const char          *path_and_query,
                GCancellable        *cancellable,
                GAsyncReadyCallback  callback,
                gpointer             user_data)
{
  request_json_async (self, kind, SOUP_METHOD_GET, path, path_and_query, NULL,
                      cancellable, callback, user_data);
}

static JsonNode *
get_json_finish (PrsN8nClient  *self,
                 GAsyncResult  *result,
                 GError       **error)
{
  g_assert (g_task_is_valid (result, self));
  g_assert (g_task_get_source_tag (G_TASK (result)) == request_json_async);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* List ------------------------------------------------------------------ */

typedef struct
{
  gboolean    active_only;
  GPtrArray  *items;         /* JsonObject* */
  GHashTable *seen_cursors;
  guint       pages;
} ListData;

static void
list_data_free (gpointer data)
{
  ListData *list = data;

  g_clear_pointer (&list->items, g_ptr_array_unref);
  g_clear_pointer (&list->seen_cursors, g_hash_table_unref);
  g_free (list);
}

static void on_page (GObject      *source,
                     GAsyncResult *result,
                     gpointer      user_data);

static void
fetch_page (GTask      *task,
            const char *cursor)
{
  PrsN8nClient *self = g_task_get_source_object (task);
  ListData *list = g_task_get_task_data (task);
  GString *path_and_query = g_string_new (WORKFLOWS_PATH "?");

  if (list->active_only)
    g_string_append (path_and_query, "active=true&");
  /* Pinned test data can be the bulk of a workflow, and discovery never
   * reads it */
  g_string_append (path_and_query, "excludePinnedData=true&");
  g_string_append_printf (path_and_query, "limit=%d", PAGE_LIMIT);
  if (cursor != NULL)
    {
      g_string_append (path_and_query, "&cursor=");
      g_string_append_uri_escaped (path_and_query, cursor, NULL, FALSE);
    }

  list->pages++;
  get_json_async (self, REQUEST_LIST, WORKFLOWS_PATH, path_and_query->str,
                  g_task_get_cancellable (task), on_page, task);
  g_string_free (path_and_query, TRUE);
}

static void
on_page (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  PrsN8nClient *self = PRS_N8N_CLIENT (source);
  ListData *list = g_task_get_task_data (task);
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *page;
  JsonNode *data;
  JsonNode *next;
  JsonArray *items;
  const char *cursor = NULL;

  root = get_json_finish (self, result, &error);
  if (root == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  if (!JSON_NODE_HOLDS_OBJECT (root))
    {
      g_task_return_error (task, shape_error (self, WORKFLOWS_PATH, _("the answer is not an object")));
      return;
    }
  page = json_node_get_object (root);

  data = json_object_get_member (page, "data");
  if (data == NULL || !JSON_NODE_HOLDS_ARRAY (data))
    {
      g_task_return_error (task, shape_error (self, WORKFLOWS_PATH,
                                              data == NULL ? _("“data” is missing")
                                                           : _("“data” is not an array")));
      return;
    }

  items = json_node_get_array (data);
  for (guint i = 0; i < json_array_get_length (items); i++)
    {
      JsonNode *item = json_array_get_element (items, i);

      if (!JSON_NODE_HOLDS_OBJECT (item))
        {
          g_task_return_error (task, shape_error (self, WORKFLOWS_PATH,
                                                  _("an element of “data” is not an object")));
          return;
        }
      g_ptr_array_add (list->items, json_object_ref (json_node_get_object (item)));
    }

  next = json_object_get_member (page, "nextCursor");
  if (next != NULL && !JSON_NODE_HOLDS_NULL (next))
    {
      if (json_node_get_value_type (next) != G_TYPE_STRING)
        {
          g_task_return_error (task, shape_error (self, WORKFLOWS_PATH,
                                                  _("“nextCursor” is not a string")));
          return;
        }
      cursor = json_node_get_string (next);
      if (*cursor == '\0')
        cursor = NULL;
    }

  if (cursor == NULL)
    {
      g_task_return_pointer (task, g_steal_pointer (&list->items),
                             (GDestroyNotify) g_ptr_array_unref);
      return;
    }

  /* n8n's cursor is an offset, so it never repeats; a server that repeats
   * one (or never stops) would otherwise be paged forever. */
  if (g_hash_table_contains (list->seen_cursors, cursor))
    {
      g_task_return_new_error (task, PRS_ERROR, PRS_ERROR_N8N_BAD_RESPONSE,
                               _("n8n at %s returned the same page cursor twice while listing "
                               "workflows (after %u pages); stopped to avoid an endless loop."),
                               self->base_url, list->pages);
      return;
    }
  if (list->pages >= MAX_PAGES)
    {
      g_task_return_new_error (task, PRS_ERROR, PRS_ERROR_N8N_BAD_RESPONSE,
                               _("n8n at %s still had more workflows after %u pages; stopped to "
                               "avoid an endless loop."), self->base_url, list->pages);
      return;
    }
  g_hash_table_add (list->seen_cursors, g_strdup (cursor));

  fetch_page (g_steal_pointer (&task), cursor);
}

void
prs_n8n_client_list_workflows_async (PrsN8nClient        *self,
                                     gboolean             active_only,
                                     GCancellable        *cancellable,
                                     GAsyncReadyCallback  callback,
                                     gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  ListData *list;

  g_return_if_fail (PRS_IS_N8N_CLIENT (self));
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, prs_n8n_client_list_workflows_async);

  list = g_new0 (ListData, 1);
  list->active_only = !!active_only;
  list->items = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  list->seen_cursors = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_task_set_task_data (task, list, list_data_free);

  fetch_page (g_steal_pointer (&task), NULL);
}

GPtrArray *
prs_n8n_client_list_workflows_finish (PrsN8nClient  *self,
                                      GAsyncResult  *result,
                                      GError       **error)
{
  g_return_val_if_fail (PRS_IS_N8N_CLIENT (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) ==
                        prs_n8n_client_list_workflows_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* One workflow ------------------------------------------------------------ */

static void
on_workflow (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  PrsN8nClient *self = PRS_N8N_CLIENT (source);
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GError) error = NULL;
  const char *path = g_task_get_task_data (task);

  root = get_json_finish (self, result, &error);
  if (root == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  if (!JSON_NODE_HOLDS_OBJECT (root))
    {
      g_task_return_error (task, shape_error (self, path, _("the answer is not an object")));
      return;
    }

  g_task_return_pointer (task, json_object_ref (json_node_get_object (root)),
                         (GDestroyNotify) json_object_unref);
}

void
prs_n8n_client_get_workflow_async (PrsN8nClient        *self,
                                   const char          *id,
                                   GCancellable        *cancellable,
                                   GAsyncReadyCallback  callback,
                                   gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autofree char *escaped = NULL;
  char *path;

  g_return_if_fail (PRS_IS_N8N_CLIENT (self));
  g_return_if_fail (id != NULL);
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, prs_n8n_client_get_workflow_async);

  if (*id == '\0')
    {
      g_task_return_new_error (task, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                               _("A workflow id is needed to read a workflow from n8n."));
      return;
    }

  escaped = g_uri_escape_string (id, NULL, FALSE);
  path = g_strconcat (WORKFLOWS_PATH "/", escaped, NULL);
  g_task_set_task_data (task, path, g_free);

  get_json_async (self, REQUEST_WORKFLOW, path, path, cancellable, on_workflow,
                  g_steal_pointer (&task));
}

JsonObject *
prs_n8n_client_get_workflow_finish (PrsN8nClient  *self,
                                    GAsyncResult  *result,
                                    GError       **error)
{
  g_return_val_if_fail (PRS_IS_N8N_CLIENT (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) ==
                        prs_n8n_client_get_workflow_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* Writes (first-run setup) ------------------------------------------------ */

static void
on_written (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  PrsN8nClient *self = PRS_N8N_CLIENT (source);
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GError) error = NULL;
  const char *path = g_task_get_task_data (task);

  root = get_json_finish (self, result, &error);
  if (root == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  if (!JSON_NODE_HOLDS_OBJECT (root))
    {
      g_task_return_error (task, shape_error (self, path, _("the answer is not an object")));
      return;
    }
  g_task_return_pointer (task, json_object_ref (json_node_get_object (root)),
                         (GDestroyNotify) json_object_unref);
}

void
prs_n8n_client_write_async (PrsN8nClient        *self,
                            gpointer             source_tag,
                            const char          *method,
                            const char          *path,
                            JsonNode            *body,
                            GCancellable        *cancellable,
                            GAsyncReadyCallback  callback,
                            gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);

  g_task_set_source_tag (task, source_tag);
  g_task_set_task_data (task, g_strdup (path), g_free);
  request_json_async (self, REQUEST_WRITE, method, path, path, body,
                      cancellable, on_written, g_steal_pointer (&task));
}

void
prs_n8n_client_post_async (PrsN8nClient        *self,
                           gpointer             source_tag,
                           const char          *path,
                           JsonNode            *body,
                           GCancellable        *cancellable,
                           GAsyncReadyCallback  callback,
                           gpointer             user_data)
{
  prs_n8n_client_write_async (self, source_tag, SOUP_METHOD_POST, path, body,
                              cancellable, callback, user_data);
}

JsonObject *
prs_n8n_client_post_finish (PrsN8nClient  *self,
                            gpointer       source_tag,
                            GAsyncResult  *result,
                            GError       **error)
{
  g_return_val_if_fail (PRS_IS_N8N_CLIENT (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == source_tag, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}
