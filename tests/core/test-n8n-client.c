/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Tests for prs-n8n-client.c against a scripted n8n: a SoupServer on
 * 127.0.0.1 that answers like n8n 1.123's public API, or misbehaves on
 * purpose. */
#include <string.h>

#include <libsoup/soup.h>

#include "prs-error.h"
#include "prs-n8n-client.h"
#include "prs-n8n-client-private.h"
#include "prs-test-util.h"

#define API_KEY "test-key-Zq7xW"

typedef enum
{
  MODE_PAGES,
  MODE_UNAUTHORIZED,
  MODE_FORBIDDEN,
  MODE_NOT_FOUND,
  MODE_HTML,
  MODE_DATA_NOT_ARRAY,
  MODE_WORKFLOW,
  MODE_CURSOR_LOOP,
  MODE_SERVER_ERROR,
  MODE_REDIRECT,
  MODE_LARGE,
  MODE_LARGE_CHUNKED,
} Mode;

typedef struct
{
  SoupServer *server;
  char       *base_url;
  Mode        mode;

  guint       requests;
  GPtrArray  *queries;     /* the raw query of each request, "" when none */
  GPtrArray  *cursors;     /* the decoded cursor of each request, "" when none */
  char       *api_key;     /* X-N8N-API-KEY of the last request */
  char       *accept;      /* Accept of the last request */
  char       *path;        /* the (still escaped) path of the last request */
  char       *limit;
  char       *active;
} Fixture;

static void
respond (SoupServerMessage *msg,
         guint              status,
         const char        *content_type,
         const char        *body)
{
  soup_server_message_set_status (msg, status, NULL);
  soup_server_message_set_response (msg, content_type, SOUP_MEMORY_COPY, body, strlen (body));
}

static void
respond_pages (Fixture           *fixture,
               SoupServerMessage *msg,
               const char        *cursor)
{
  if (cursor == NULL)
    respond (msg, 200, "application/json",
             "{\"data\":[{\"id\":\"w1\",\"name\":\"One\"},{\"id\":\"w2\",\"name\":\"Two\"}],"
             "\"nextCursor\":\"eyJsaW1pdCI6MjUwLCJvZmZzZXQiOjJ9\"}");
  else if (g_str_equal (cursor, "eyJsaW1pdCI6MjUwLCJvZmZzZXQiOjJ9"))
    /* A cursor that needs escaping in a query. */
    respond (msg, 200, "application/json",
             "{\"data\":[{\"id\":\"w3\",\"name\":\"Three\"}],\"nextCursor\":\"a+b/c=&d\"}");
  else if (g_str_equal (cursor, "a+b/c=&d"))
    respond (msg, 200, "application/json",
             "{\"data\":[{\"id\":\"w4\",\"name\":\"Four\"},{\"id\":\"w5\",\"name\":\"Five\"}],"
             "\"nextCursor\":null}");
  else
    respond (msg, 400, "application/json", "{\"message\":\"bad cursor\"}");
}

static void
on_request (SoupServer        *server,
            SoupServerMessage *msg,
            const char        *path,
            GHashTable        *query,
            gpointer           user_data)
{
  Fixture *fixture = user_data;
  SoupMessageHeaders *headers = soup_server_message_get_request_headers (msg);
  GUri *uri = soup_server_message_get_uri (msg);
  const char *cursor = query != NULL ? g_hash_table_lookup (query, "cursor") : NULL;
  const char *raw_query = g_uri_get_query (uri);

  fixture->requests++;
  g_ptr_array_add (fixture->queries, g_strdup (raw_query != NULL ? raw_query : ""));
  g_ptr_array_add (fixture->cursors, g_strdup (cursor != NULL ? cursor : ""));
  g_free (fixture->api_key);
  fixture->api_key = g_strdup (soup_message_headers_get_one (headers, "X-N8N-API-KEY"));
  g_free (fixture->accept);
  fixture->accept = g_strdup (soup_message_headers_get_one (headers, "Accept"));
  g_free (fixture->path);
  fixture->path = g_strdup (g_uri_get_path (uri));
  g_free (fixture->limit);
  fixture->limit = g_strdup (query != NULL ? g_hash_table_lookup (query, "limit") : NULL);
  g_free (fixture->active);
  fixture->active = g_strdup (query != NULL ? g_hash_table_lookup (query, "active") : NULL);

  switch (fixture->mode)
    {
    case MODE_PAGES:
      respond_pages (fixture, msg, cursor);
      break;
    case MODE_UNAUTHORIZED:
      respond (msg, 401, "application/json", "{\"message\":\"unauthorized\"}");
      break;
    case MODE_FORBIDDEN:
      respond (msg, 403, "application/json", "{\"message\":\"Forbidden\"}");
      break;
    case MODE_NOT_FOUND:
      respond (msg, 404, "text/html; charset=utf-8",
               "<!DOCTYPE html><html><body><pre>Cannot GET /api/v1/workflows</pre></body></html>");
      break;
    case MODE_HTML:
      respond (msg, 200, "text/html", "<!DOCTYPE html><html><body>Welcome to nginx!</body></html>");
      break;
    case MODE_DATA_NOT_ARRAY:
      respond (msg, 200, "application/json", "{\"data\":{\"id\":\"w1\"},\"nextCursor\":null}");
      break;
    case MODE_WORKFLOW:
      if (g_str_equal (path, "/api/v1/workflows/AbC123xyz"))
        respond (msg, 200, "application/json",
                 "{\"id\":\"AbC123xyz\",\"name\":\"Search Jira Issues\",\"active\":true,"
                 "\"description\":\"Searches Jira with JQL.\",\"nodes\":[],\"connections\":{}}");
      else
        respond (msg, 404, "application/json", "{\"message\":\"Not Found\"}");
      break;
    case MODE_CURSOR_LOOP:
      respond (msg, 200, "application/json", "{\"data\":[{\"id\":\"w1\"}],\"nextCursor\":\"same\"}");
      break;
    case MODE_SERVER_ERROR:
      respond (msg, 500, "application/json", "{\"message\":\"Database is locked\"}");
      break;
    case MODE_REDIRECT:
      soup_message_headers_replace (soup_server_message_get_response_headers (msg),
                                    "Location", "https://127.0.0.1:1/api/v1/workflows");
      soup_server_message_set_status (msg, 301, NULL);
      break;
    case MODE_LARGE:
    case MODE_LARGE_CHUNKED:
      {
        g_autofree char *filler = g_strnfill (8192, 'x');
        g_autofree char *body = g_strdup_printf ("{\"data\":[],\"filler\":\"%s\"}", filler);

        if (fixture->mode == MODE_LARGE)
          {
            respond (msg, 200, "application/json", body);
          }
        else
          {
            SoupMessageBody *response = soup_server_message_get_response_body (msg);

            soup_message_headers_set_encoding (soup_server_message_get_response_headers (msg),
                                               SOUP_ENCODING_CHUNKED);
            soup_message_headers_set_content_type (soup_server_message_get_response_headers (msg),
                                                   "application/json", NULL);
            /* The same document, in several chunks. */
            for (gsize off = 0, len = strlen (body); off < len; off += 2000)
              soup_message_body_append (response, SOUP_MEMORY_COPY, body + off, MIN (2000, len - off));
            soup_message_body_complete (response);
            soup_server_message_set_status (msg, 200, NULL);
          }
      }
      break;
    default:
      g_assert_not_reached ();
    }
}

static void
fixture_set_up (Fixture       *fixture,
                gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  GSList *uris;

  fixture->queries = g_ptr_array_new_with_free_func (g_free);
  fixture->cursors = g_ptr_array_new_with_free_func (g_free);
  fixture->server = soup_server_new (NULL, NULL);
  soup_server_add_handler (fixture->server, NULL, on_request, fixture, NULL);
  soup_server_listen_local (fixture->server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error);
  g_assert_no_error (error);

  uris = soup_server_get_uris (fixture->server);
  g_assert_nonnull (uris);
  fixture->base_url = g_strdup_printf ("http://127.0.0.1:%d", g_uri_get_port (uris->data));
  g_slist_free_full (uris, (GDestroyNotify) g_uri_unref);
}

static void
fixture_tear_down (Fixture       *fixture,
                   gconstpointer  data)
{
  soup_server_disconnect (fixture->server);
  g_clear_object (&fixture->server);
  g_clear_pointer (&fixture->queries, g_ptr_array_unref);
  g_clear_pointer (&fixture->cursors, g_ptr_array_unref);
  g_free (fixture->base_url);
  g_free (fixture->api_key);
  g_free (fixture->accept);
  g_free (fixture->path);
  g_free (fixture->limit);
  g_free (fixture->active);
}

/* Synchronous wrappers: run the default main context until the answer. */

static void
on_result (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  GAsyncResult **out = user_data;

  *out = g_object_ref (result);
}

static GPtrArray *
list_workflows (PrsN8nClient  *client,
                gboolean       active_only,
                GCancellable  *cancellable,
                GError       **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  prs_n8n_client_list_workflows_async (client, active_only, cancellable, on_result, &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  return prs_n8n_client_list_workflows_finish (client, result, error);
}

static JsonObject *
get_workflow (PrsN8nClient  *client,
              const char    *id,
              GError       **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  prs_n8n_client_get_workflow_async (client, id, NULL, on_result, &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  return prs_n8n_client_get_workflow_finish (client, result, error);
}

static void
assert_message_mentions (const GError *error,
                         const char   *needle)
{
  g_assert_nonnull (error);
  if (strstr (error->message, needle) == NULL)
    g_error ("“%s” does not mention “%s”", error->message, needle);
}

/* Every error names where it went and never shows the key. */
static void
assert_good_message (const GError *error,
                     const char   *base_url)
{
  assert_message_mentions (error, base_url);
  g_assert_null (strstr (error->message, API_KEY));
}

static PrsN8nClient *
client_for (Fixture *fixture,
            Mode     mode)
{
  fixture->mode = mode;
  return prs_n8n_client_new (fixture->base_url, API_KEY);
}

static void
test_normalize (void)
{
  static const struct { const char *in; const char *out; } good[] = {
    { "http://127.0.0.1:5678", "http://127.0.0.1:5678" },
    { "  http://127.0.0.1:5678/  ", "http://127.0.0.1:5678" },
    { "HTTP://localhost:5678//", "http://localhost:5678" },
    { "https://n8n.example.org/api/v1/", "https://n8n.example.org" },
    { "https://example.org/n8n/", "https://example.org/n8n" },
    { "https://example.org/n8n/API/V1", "https://example.org/n8n" },
    { "http://[::1]:5678/", "http://[::1]:5678" },
  };
  static const char *bad[] = {
    "", "   ", "127.0.0.1:5678", "ftp://127.0.0.1/", "file:///etc/passwd",
    "http://", "http://127.0.0.1:5678/?x=1", "http://127.0.0.1:5678/#top",
    "http://user:pw@127.0.0.1:5678", "http://127.0.0.1:5678/a\nb", "not a url",
  };

  for (guint i = 0; i < G_N_ELEMENTS (good); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *got = prs_n8n_client_normalize_base_url (good[i].in, &error);

      g_assert_no_error (error);
      g_assert_cmpstr (got, ==, good[i].out);
    }

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *got = prs_n8n_client_normalize_base_url (bad[i], &error);

      g_assert_null (got);
      g_assert_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT);
      g_assert_null (strstr (error->message, "pw@"));
    }
}

static void
test_invalid_config (void)
{
  g_autoptr(PrsN8nClient) client = prs_n8n_client_new ("ftp://127.0.0.1:5678", API_KEY);
  g_autoptr(PrsN8nClient) bad_key = prs_n8n_client_new ("http://127.0.0.1:1", "abc\ndef");
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) items = NULL;
  g_autoptr(JsonObject) workflow = NULL;

  g_assert_cmpstr (prs_n8n_client_get_base_url (client), ==, "ftp://127.0.0.1:5678");
  g_assert_cmpuint (prs_n8n_client_get_timeout (client), ==, 10);

  items = list_workflows (client, TRUE, NULL, &error);
  g_assert_null (items);
  g_assert_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT);
  assert_message_mentions (error, "http://");
  g_clear_error (&error);

  workflow = get_workflow (bad_key, "x", &error);
  g_assert_null (workflow);
  g_assert_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT);
  g_assert_null (strstr (error->message, "abc"));
}

static void
test_paging (Fixture       *fixture,
             gconstpointer  data)
{
  g_autoptr(PrsN8nClient) client = NULL;
  g_autoptr(GPtrArray) items = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *with_slash = g_strconcat (fixture->base_url, "/", NULL);
  static const char *ids[] = { "w1", "w2", "w3", "w4", "w5" };

  fixture->mode = MODE_PAGES;
  client = prs_n8n_client_new (with_slash, API_KEY);
  g_assert_cmpstr (prs_n8n_client_get_base_url (client), ==, fixture->base_url);

  items = list_workflows (client, TRUE, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (items);
  g_assert_cmpuint (items->len, ==, G_N_ELEMENTS (ids));
  for (guint i = 0; i < items->len; i++)
    g_assert_cmpstr (json_object_get_string_member (items->pdata[i], "id"), ==, ids[i]);

  g_assert_cmpuint (fixture->requests, ==, 3);
  g_assert_cmpstr (fixture->path, ==, "/api/v1/workflows");
  g_assert_cmpstr (fixture->api_key, ==, API_KEY);
  g_assert_cmpstr (fixture->accept, ==, "application/json");
  g_assert_cmpstr (fixture->limit, ==, "250");
  g_assert_cmpstr (fixture->active, ==, "true");
  g_assert_cmpstr (fixture->queries->pdata[0], ==, "active=true&excludePinnedData=true&limit=250");
  g_assert_cmpstr (fixture->cursors->pdata[0], ==, "");
  g_assert_cmpstr (fixture->cursors->pdata[1], ==, "eyJsaW1pdCI6MjUwLCJvZmZzZXQiOjJ9");
  g_assert_cmpstr (fixture->cursors->pdata[2], ==, "a+b/c=&d");
  g_assert_cmpstr (fixture->queries->pdata[2], ==, "active=true&excludePinnedData=true&limit=250&cursor=a%2Bb%2Fc%3D%26d");

  /* All workflows: no active parameter at all. */
  g_clear_pointer (&items, g_ptr_array_unref);
  items = list_workflows (client, FALSE, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (items->len, ==, 5);
  g_assert_cmpstr (fixture->queries->pdata[3], ==, "excludePinnedData=true&limit=250");
  g_assert_null (fixture->active);

  g_clear_pointer (&items, g_ptr_array_unref);
  g_assert_finalize_object (g_steal_pointer (&client));
}

static void
test_unauthorized (Fixture       *fixture,
                   gconstpointer  data)
{
  g_autoptr(PrsN8nClient) client = client_for (fixture, MODE_UNAUTHORIZED);
  g_autoptr(GPtrArray) items = NULL;
  g_autoptr(GError) error = NULL;

  items = list_workflows (client, TRUE, NULL, &error);
  g_assert_null (items);
  g_assert_error (error, PRS_ERROR, PRS_ERROR_N8N_UNAUTHORIZED);
  assert_good_message (error, fixture->base_url);
  assert_message_mentions (error, "rejected the API key (401");
  assert_message_mentions (error, "“unauthorized”");
  assert_message_mentions (error, "Settings → n8n API");
  g_test_message ("401: %s", error->message);
  g_clear_error (&error);

  fixture->mode = MODE_FORBIDDEN;
  items = list_workflows (client, TRUE, NULL, &error);
  g_assert_error (error, PRS_ERROR, PRS_ERROR_N8N_UNAUTHORIZED);
  assert_good_message (error, fixture->base_url);
  assert_message_mentions (error, "403");
  assert_message_mentions (error, "scopes");
}

static void
test_not_found (Fixture       *fixture,
                gconstpointer  data)
{
  g_autoptr(PrsN8nClient) client = client_for (fixture, MODE_NOT_FOUND);
  g_autoptr(GPtrArray) items = NULL;
  g_autoptr(GError) error = NULL;

  items = list_workflows (client, TRUE, NULL, &error);
  g_assert_null (items);
  g_assert_error (error, PRS_ERROR, PRS_ERROR_N8N_NOT_FOUND);
  assert_good_message (error, fixture->base_url);
  assert_message_mentions (error, "may not be an n8n instance");
  assert_message_mentions (error, "public API is disabled");
  g_test_message ("404: %s", error->message);
}

static void
test_html (Fixture       *fixture,
           gconstpointer  data)
{
  g_autoptr(PrsN8nClient) client = client_for (fixture, MODE_HTML);
  g_autoptr(GPtrArray) items = NULL;
  g_autoptr(JsonObject) workflow = NULL;
  g_autoptr(GError) error = NULL;

  items = list_workflows (client, TRUE, NULL, &error);
  g_assert_null (items);
  g_assert_error (error, PRS_ERROR, PRS_ERROR_N8N_BAD_RESPONSE);
  assert_good_message (error, fixture->base_url);
  assert_message_mentions (error, "not JSON");
  assert_message_mentions (error, "text/html");
  g_test_message ("HTML: %s", error->message);
  g_clear_error (&error);

  workflow = get_workflow (client, "AbC123xyz", &error);
  g_assert_null (workflow);
  g_assert_error (error, PRS_ERROR, PRS_ERROR_N8N_BAD_RESPONSE);
}

static void
test_data_not_array (Fixture       *fixture,
                     gconstpointer  data)
{
  g_autoptr(PrsN8nClient) client = client_for (fixture, MODE_DATA_NOT_ARRAY);
  g_autoptr(GPtrArray) items = NULL;
  g_autoptr(GError) error = NULL;

  items = list_workflows (client, TRUE, NULL, &error);
  g_assert_null (items);
  g_assert_error (error, PRS_ERROR, PRS_ERROR_N8N_BAD_RESPONSE);
  assert_good_message (error, fixture->base_url);
  assert_message_mentions (error, "“data” is not an array");
}

static void
test_get_workflow (Fixture       *fixture,
                   gconstpointer  data)
{
  g_autoptr(PrsN8nClient) client = client_for (fixture, MODE_WORKFLOW);
  g_autoptr(JsonObject) workflow = NULL;
  g_autoptr(GError) error = NULL;

  workflow = get_workflow (client, "AbC123xyz", &error);
  g_assert_no_error (error);
  g_assert_nonnull (workflow);
  g_assert_cmpstr (json_object_get_string_member (workflow, "id"), ==, "AbC123xyz");
  g_assert_cmpstr (json_object_get_string_member (workflow, "description"), ==,
                   "Searches Jira with JQL.");
  g_assert_cmpstr (fixture->api_key, ==, API_KEY);
  g_assert_cmpstr (fixture->queries->pdata[0], ==, "");
  g_clear_pointer (&workflow, json_object_unref);

  /* The id is escaped (SoupServer shows the path decoded again). */
  workflow = get_workflow (client, "gone/1 x", &error);
  g_assert_null (workflow);
  g_assert_cmpstr (fixture->path, ==, "/api/v1/workflows/gone/1 x");
  g_assert_error (error, PRS_ERROR, PRS_ERROR_N8N_NOT_FOUND);
  assert_good_message (error, fixture->base_url);
  assert_message_mentions (error, "“Not Found”");
  g_clear_error (&error);

  workflow = get_workflow (client, "", &error);
  g_assert_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT);
  g_assert_cmpuint (fixture->requests, ==, 2);
}

static void
test_cursor_loop (Fixture       *fixture,
                  gconstpointer  data)
{
  g_autoptr(PrsN8nClient) client = client_for (fixture, MODE_CURSOR_LOOP);
  g_autoptr(GPtrArray) items = NULL;
  g_autoptr(GError) error = NULL;

  items = list_workflows (client, TRUE, NULL, &error);
  g_assert_null (items);
  g_assert_error (error, PRS_ERROR, PRS_ERROR_N8N_BAD_RESPONSE);
  assert_good_message (error, fixture->base_url);
  assert_message_mentions (error, "same page cursor twice");
  g_assert_cmpuint (fixture->requests, ==, 2);
}

static void
test_other_status (Fixture       *fixture,
                   gconstpointer  data)
{
  g_autoptr(PrsN8nClient) client = client_for (fixture, MODE_SERVER_ERROR);
  g_autoptr(GPtrArray) items = NULL;
  g_autoptr(GError) error = NULL;

  items = list_workflows (client, TRUE, NULL, &error);
  g_assert_error (error, PRS_ERROR, PRS_ERROR_N8N_HTTP);
  assert_good_message (error, fixture->base_url);
  assert_message_mentions (error, "500");
  assert_message_mentions (error, "“Database is locked”");
  g_clear_error (&error);

  /* Redirects are reported, not followed (the key would travel along). */
  fixture->mode = MODE_REDIRECT;
  items = list_workflows (client, TRUE, NULL, &error);
  g_assert_error (error, PRS_ERROR, PRS_ERROR_N8N_HTTP);
  assert_good_message (error, fixture->base_url);
  assert_message_mentions (error, "https://127.0.0.1:1/api/v1/workflows");
  g_assert_cmpuint (fixture->requests, ==, 2);
}

static void
test_too_large (Fixture       *fixture,
                gconstpointer  data)
{
  g_autoptr(PrsN8nClient) client = client_for (fixture, MODE_LARGE);
  g_autoptr(GPtrArray) items = NULL;
  g_autoptr(GError) error = NULL;

  prs_n8n_client_set_max_response_size (client, 4096);

  items = list_workflows (client, TRUE, NULL, &error);
  g_assert_null (items);
  g_assert_error (error, PRS_ERROR, PRS_ERROR_TOO_LARGE);
  assert_good_message (error, fixture->base_url);
  assert_message_mentions (error, "larger than");
  g_clear_error (&error);

  fixture->mode = MODE_LARGE_CHUNKED;
  items = list_workflows (client, TRUE, NULL, &error);
  g_assert_null (items);
  g_assert_error (error, PRS_ERROR, PRS_ERROR_TOO_LARGE);
  assert_message_mentions (error, "larger than");
  g_clear_error (&error);

  /* The client is still usable afterwards, and a big enough cap passes. */
  prs_n8n_client_set_max_response_size (client, 64 * 1024);
  items = list_workflows (client, TRUE, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (items->len, ==, 0);
  g_clear_pointer (&items, g_ptr_array_unref);

  fixture->mode = MODE_PAGES;
  items = list_workflows (client, TRUE, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (items->len, ==, 5);
}

static void
test_connection_refused (void)
{
  g_autofree char *url = g_strdup_printf ("http://127.0.0.1:%u", prs_test_free_port ());
  g_autoptr(PrsN8nClient) client = prs_n8n_client_new (url, API_KEY);
  g_autoptr(GPtrArray) items = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *expected = NULL;

  items = list_workflows (client, TRUE, NULL, &error);
  g_assert_null (items);
  g_assert_error (error, PRS_ERROR, PRS_ERROR_N8N_UNREACHABLE);
  expected = g_strdup_printf ("Could not connect to n8n at %s: connection refused. Is n8n running?",
                              url);
  g_assert_cmpstr (error->message, ==, expected);
}

/* A socket that listens but never accepts: the kernel completes the TCP
 * handshake and takes the request, and no answer ever comes. */
static GSocket *
silent_listener (char **out_url)
{
  guint port;
  g_autoptr(GSocket) socket = prs_test_bind_loopback (&port);
  g_autoptr(GError) error = NULL;

  g_socket_listen (socket, &error);
  g_assert_no_error (error);
  *out_url = g_strdup_printf ("http://127.0.0.1:%u", port);
  return g_steal_pointer (&socket);
}

static void
test_timeout (void)
{
  g_autofree char *url = NULL;
  g_autoptr(GSocket) listener = silent_listener (&url);
  g_autoptr(PrsN8nClient) client = prs_n8n_client_new (url, API_KEY);
  g_autoptr(GPtrArray) items = NULL;
  g_autoptr(GError) error = NULL;
  gint64 start;

  prs_n8n_client_set_timeout (client, 1);
  g_assert_cmpuint (prs_n8n_client_get_timeout (client), ==, 1);

  start = g_get_monotonic_time ();
  items = list_workflows (client, TRUE, NULL, &error);
  g_assert_null (items);
  g_assert_error (error, PRS_ERROR, PRS_ERROR_TIMEOUT);
  assert_good_message (error, url);
  assert_message_mentions (error, "within 1 seconds");
  g_assert_cmpint (g_get_monotonic_time () - start, <, 5 * G_USEC_PER_SEC);
}

static gboolean
cancel_later (gpointer data)
{
  g_cancellable_cancel (G_CANCELLABLE (data));
  return G_SOURCE_REMOVE;
}

static void
test_cancel (void)
{
  g_autofree char *url = NULL;
  g_autoptr(GSocket) listener = silent_listener (&url);
  g_autoptr(PrsN8nClient) client = prs_n8n_client_new (url, API_KEY);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GPtrArray) items = NULL;
  g_autoptr(GError) error = NULL;

  /* While waiting for an answer that never comes. */
  g_timeout_add (100, cancel_later, cancellable);
  items = list_workflows (client, TRUE, cancellable, &error);
  g_assert_null (items);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&error);

  /* Already cancelled. */
  items = list_workflows (client, TRUE, cancellable, &error);
  g_assert_null (items);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/prs/n8n-client/normalize", test_normalize);
  g_test_add_func ("/prs/n8n-client/invalid-config", test_invalid_config);
  g_test_add ("/prs/n8n-client/paging", Fixture, NULL, fixture_set_up, test_paging, fixture_tear_down);
  g_test_add ("/prs/n8n-client/unauthorized", Fixture, NULL, fixture_set_up, test_unauthorized,
              fixture_tear_down);
  g_test_add ("/prs/n8n-client/not-found", Fixture, NULL, fixture_set_up, test_not_found,
              fixture_tear_down);
  g_test_add ("/prs/n8n-client/html", Fixture, NULL, fixture_set_up, test_html, fixture_tear_down);
  g_test_add ("/prs/n8n-client/data-not-array", Fixture, NULL, fixture_set_up, test_data_not_array,
              fixture_tear_down);
  g_test_add ("/prs/n8n-client/get-workflow", Fixture, NULL, fixture_set_up, test_get_workflow,
              fixture_tear_down);
  g_test_add ("/prs/n8n-client/cursor-loop", Fixture, NULL, fixture_set_up, test_cursor_loop,
              fixture_tear_down);
  g_test_add ("/prs/n8n-client/other-status", Fixture, NULL, fixture_set_up, test_other_status,
              fixture_tear_down);
  g_test_add ("/prs/n8n-client/too-large", Fixture, NULL, fixture_set_up, test_too_large,
              fixture_tear_down);
  g_test_add_func ("/prs/n8n-client/connection-refused", test_connection_refused);
  g_test_add_func ("/prs/n8n-client/timeout", test_timeout);
  g_test_add_func ("/prs/n8n-client/cancel", test_cancel);

  return g_test_run ();
}
