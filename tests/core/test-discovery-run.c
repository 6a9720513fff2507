/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Tests for a discovery run and its schedule against a scripted n8n
 * (SoupServer on 127.0.0.1): tools are stored; a rejected key or an n8n
 * that went away is recorded and keeps the previous tools. The real n8n is
 * exercised by the n8n suite. */
#include <string.h>
#include <libsoup/soup.h>

#include "prs-discovery.h"
#include "prs-error.h"
#include "prs-test-util.h"

#define API_KEY "scripted-key"

typedef struct
{
  SoupServer   *server;
  char         *base_url;
  char         *data_dir;
  PrsStore     *store;
  PrsSecrets   *secrets;
  PrsDiscovery *discovery;
  gboolean      reject;
  gboolean      huge;     /* also list w5 (too large to read) and w6 (too many parameters) */
  GBytes       *huge_body;
  guint         lists;
} Fixture;

#define HOOK(path) \
  "{\"name\":\"Webhook\",\"type\":\"n8n-nodes-base.webhook\",\"webhookId\":\"id-" path "\"," \
  "\"parameters\":{\"httpMethod\":\"POST\",\"path\":\"" path "\",\"responseMode\":\"lastNode\"}}"

static const char *
workflow_json (const char *id,
               gboolean    full)
{
  if (g_str_equal (id, "w1"))
    return full ? "{\"id\":\"w1\",\"name\":\"Email Move To Folder\",\"active\":true,\"description\":\"Moves an email.\","
                  "\"createdAt\":\"2026-01-01T00:00:00.000Z\",\"nodes\":[" HOOK ("move") ","
                  "{\"name\":\"Code\",\"type\":\"n8n-nodes-base.code\",\"parameters\":{\"jsCode\":\"const uid = body.uid;\"}}]}"
                : "{\"id\":\"w1\",\"name\":\"Email Move To Folder\",\"active\":true,\"nodes\":[]}";
  if (g_str_equal (id, "w2"))
    return "{\"id\":\"w2\",\"name\":\"Hello\",\"active\":true,\"createdAt\":\"2026-01-02T00:00:00.000Z\",\"nodes\":[" HOOK ("hello") "]}";
  if (g_str_equal (id, "w3"))
    return "{\"id\":\"w3\",\"name\":\"Scheduled Only\",\"active\":true,\"nodes\":[]}";
  if (g_str_equal (id, "w4"))
    return "{\"id\":\"w4\",\"name\":\"Archived\",\"active\":true,\"isArchived\":true,\"nodes\":[" HOOK ("archived") "]}";

  return NULL;
}

/* A workflow whose Code node reads more parameters than a tool takes */
static const char *
many_params_json (void)
{
  static char *json;

  if (json == NULL)
    {
      GString *code = g_string_new (NULL);
      g_autoptr(JsonNode) node = json_node_new (JSON_NODE_VALUE);
      g_autofree char *quoted = NULL;

      for (guint i = 0; i < PRS_TOOL_MAX_PARAMS + 44; i++)
        g_string_append_printf (code, "const v%u = body.p%u;\n", i, i);
      json_node_set_string (node, code->str);
      quoted = json_to_string (node, FALSE);
      json = g_strdup_printf ("{\"id\":\"w6\",\"name\":\"Many Inputs\",\"active\":true,\"nodes\":[" HOOK ("many") ","
                              "{\"name\":\"Code\",\"type\":\"n8n-nodes-base.code\",\"parameters\":{\"jsCode\":%s}}]}",
                              quoted);
      g_string_free (code, TRUE);
    }
  return json;
}

/* More than any limit ever read from n8n before (64 MiB), as n8n would
 * send a workflow whose Code node holds a generated file */
static GBytes *
huge_workflow_body (void)
{
  const char *head = "{\"id\":\"w5\",\"name\":\"Generated Monster\",\"active\":true,\"nodes\":[" HOOK ("monster") ","
                     "{\"name\":\"Code\",\"type\":\"n8n-nodes-base.code\",\"parameters\":{\"jsCode\":\"";
  const char *tail = "\"}}]}";
  gsize fill = (gsize) 65 * 1024 * 1024;
  GString *body = g_string_sized_new (fill + 1024);

  g_string_append (body, head);
  for (gsize i = 0; i < fill / 16; i++)
    g_string_append (body, "body.x ?? 1;    ");
  g_string_append (body, tail);
  return g_string_free_to_bytes (body);
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
  const char *key = soup_message_headers_get_one (headers, "X-N8N-API-KEY");
  const char *body = NULL;

  if (fixture->reject || g_strcmp0 (key, API_KEY) != 0)
    {
      soup_server_message_set_status (msg, 401, NULL);
      soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_STATIC,
                                        "{\"message\":\"unauthorized\"}", 26);
      return;
    }

  if (g_str_equal (path, "/api/v1/workflows"))
    {
      fixture->lists++;
      body = fixture->huge
        ? "{\"data\":[{\"id\":\"w1\",\"name\":\"Email Move To Folder\",\"active\":true,\"nodes\":[]},"
          "{\"id\":\"w5\",\"name\":\"Generated Monster\",\"active\":true,\"nodes\":[]},"
          "{\"id\":\"w6\",\"name\":\"Many Inputs\",\"active\":true,\"nodes\":[]},"
          "{\"id\":\"w2\",\"name\":\"Hello\",\"active\":true,\"nodes\":[]}],\"nextCursor\":null}"
        : "{\"data\":[{\"id\":\"w1\",\"name\":\"Email Move To Folder\",\"active\":true,\"nodes\":[]},"
          "{\"id\":\"w2\",\"name\":\"Hello\",\"active\":true,\"nodes\":[]},"
          "{\"id\":\"w3\",\"name\":\"Scheduled Only\",\"active\":true,\"nodes\":[]},"
          "{\"id\":\"w4\",\"name\":\"Archived\",\"active\":true,\"isArchived\":true,\"nodes\":[]},"
          "{\"id\":\"gone\",\"name\":\"Deleted since\",\"active\":true,\"nodes\":[]}],\"nextCursor\":null}";
    }
  else if (g_str_equal (path, "/api/v1/workflows/w5") && fixture->huge)
    {
      soup_server_message_set_status (msg, 200, NULL);
      soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_STATIC,
                                        g_bytes_get_data (fixture->huge_body, NULL),
                                        g_bytes_get_size (fixture->huge_body));
      return;
    }
  else if (g_str_equal (path, "/api/v1/workflows/w6") && fixture->huge)
    body = many_params_json ();
  else if (g_str_has_prefix (path, "/api/v1/workflows/"))
    body = workflow_json (path + strlen ("/api/v1/workflows/"), TRUE);

  if (body == NULL)
    {
      soup_server_message_set_status (msg, 404, NULL);
      soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_STATIC,
                                        "{\"message\":\"Not Found\"}", 23);
      return;
    }

  soup_server_message_set_status (msg, 200, NULL);
  soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_STATIC, body, strlen (body));
}

static void
fixture_set_up (Fixture       *fixture,
                gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  GSList *uris;

  fixture->server = soup_server_new (NULL, NULL);
  soup_server_add_handler (fixture->server, NULL, on_request, fixture, NULL);
  soup_server_listen_local (fixture->server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error);
  g_assert_no_error (error);
  uris = soup_server_get_uris (fixture->server);
  fixture->base_url = g_uri_to_string (uris->data);
  g_slist_free_full (uris, (GDestroyNotify) g_uri_unref);

  fixture->data_dir = g_dir_make_tmp ("prs-discovery-run-XXXXXX", &error);
  g_assert_no_error (error);
  fixture->store = prs_store_new (fixture->data_dir, &error);
  g_assert_no_error (error);
  fixture->secrets = prs_secrets_new (fixture->data_dir);
  fixture->discovery = prs_discovery_new (fixture->store, fixture->secrets);
}

static void
fixture_tear_down (Fixture       *fixture,
                   gconstpointer  data)
{
  g_clear_object (&fixture->discovery);
  g_clear_object (&fixture->secrets);
  g_clear_object (&fixture->store);
  if (fixture->server != NULL)
    soup_server_disconnect (fixture->server);
  g_clear_object (&fixture->server);
  g_clear_pointer (&fixture->huge_body, g_bytes_unref);
  prs_test_remove_tree (fixture->data_dir);
  g_free (fixture->data_dir);
  g_free (fixture->base_url);
}

static void
configure (Fixture *fixture)
{
  g_autoptr(GError) error = NULL;

  prs_store_set_setting (fixture->store, PRS_SETTING_N8N_URL, fixture->base_url, &error);
  g_assert_no_error (error);
  prs_secrets_store_sync (fixture->secrets, PRS_SECRET_N8N_API_KEY, "n8n", API_KEY, NULL, &error);
  g_assert_no_error (error);
}

static void
run_done (GObject      *source,
          GAsyncResult *result,
          gpointer      user_data)
{
  GAsyncResult **out = user_data;

  *out = g_object_ref (result);
}

static GPtrArray *
run (Fixture  *fixture,
     GError  **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  prs_discovery_run_async (fixture->discovery, NULL, run_done, &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);

  return prs_discovery_run_finish (fixture->discovery, result, error);
}

static void
test_run_stores_tools (Fixture       *fixture,
                       gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) tools = NULL;
  g_autoptr(GPtrArray) stored = NULL;
  g_autoptr(JsonArray) checks = NULL;
  gint64 attempt = 0, success = 0;
  g_autofree char *last_error = NULL;
  PrsTool *tool;

  configure (fixture);
  tools = run (fixture, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (tools->len, ==, 2);

  stored = prs_store_list_tools (fixture->store, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (stored->len, ==, 2);
  tool = g_ptr_array_index (stored, 0);
  g_assert_cmpstr (tool->name, ==, "email_move_to_folder");
  /* The description only the per-workflow GET carries. */
  g_assert_cmpstr (tool->description, ==, "Moves an email.");
  g_assert_cmpstr (tool->webhook_id, ==, "id-move");
  g_assert_cmpuint (tool->params->len, ==, 1);
  g_assert_cmpuint (tool->discovered_at, >, 0);
  tool = g_ptr_array_index (stored, 1);
  g_assert_cmpstr (tool->name, ==, "hello");

  /* Every workflow seen but the archived one and the deleted one has a checklist. */
  checks = prs_store_list_workflow_checks (fixture->store, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (json_array_get_length (checks), ==, 3);

  prs_store_get_discovery_status (fixture->store, &attempt, &success, &last_error);
  g_assert_cmpint (attempt, >, 0);
  g_assert_cmpint (success, ==, attempt);
}

static void
assert_tools_kept (Fixture *fixture)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) stored = prs_store_list_tools (fixture->store, &error);

  g_assert_no_error (error);
  g_assert_cmpuint (stored->len, ==, 2);
}

static void
test_failures_keep_tools (Fixture       *fixture,
                          gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) tools = NULL;
  g_autofree char *last_error = NULL;
  gint64 attempt = 0, success = 0;

  configure (fixture);
  tools = run (fixture, &error);
  g_assert_no_error (error);
  g_clear_pointer (&tools, g_ptr_array_unref);

  /* The key is rejected. */
  fixture->reject = TRUE;
  tools = run (fixture, &error);
  g_assert_null (tools);
  g_assert_error (error, PRS_ERROR, PRS_ERROR_N8N_UNAUTHORIZED);
  g_clear_error (&error);
  assert_tools_kept (fixture);
  prs_store_get_discovery_status (fixture->store, &attempt, &success, &last_error);
  g_assert_cmpint (attempt, >=, success);
  g_assert_nonnull (strstr (last_error, "key"));
  g_assert_cmpint (prs_store_get_discovery_failure (fixture->store), ==, PRS_DISCOVERY_FAILURE_KEY_REFUSED);
  g_clear_pointer (&last_error, g_free);

  /* n8n is gone. */
  soup_server_disconnect (fixture->server);
  g_clear_object (&fixture->server);
  tools = run (fixture, &error);
  g_assert_null (tools);
  g_assert_error (error, PRS_ERROR, PRS_ERROR_N8N_UNREACHABLE);
  g_clear_error (&error);
  assert_tools_kept (fixture);
  prs_store_get_discovery_status (fixture->store, NULL, NULL, &last_error);
  g_assert_nonnull (last_error);
  g_assert_cmpint (prs_store_get_discovery_failure (fixture->store), ==, PRS_DISCOVERY_FAILURE_UNREACHABLE);
}

static JsonObject *
find_checklist (JsonArray  *checklists,
                const char *workflow_id)
{
  for (guint i = 0; i < json_array_get_length (checklists); i++)
    {
      JsonObject *checklist = json_array_get_object_element (checklists, i);

      if (g_strcmp0 (json_object_get_string_member (checklist, "workflowId"), workflow_id) == 0)
        return checklist;
    }
  return NULL;
}

static const char *
check_status (JsonObject *checklist,
              const char *id)
{
  JsonArray *checks = json_object_get_array_member (checklist, "checks");

  for (guint i = 0; i < json_array_get_length (checks); i++)
    {
      JsonObject *check = json_array_get_object_element (checks, i);

      if (g_str_equal (json_object_get_string_member (check, "id"), id))
        return json_object_get_string_member (check, "status");
    }
  return NULL;
}

/* A workflow too large to read, and one reading too many parameters, are
 * skipped with a checklist entry; the others are discovered. */
static void
test_huge_workflows_skipped (Fixture       *fixture,
                             gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) tools = NULL;
  g_autoptr(JsonArray) checklists = NULL;
  JsonObject *monster, *many;

  fixture->huge = TRUE;
  fixture->huge_body = huge_workflow_body ();
  configure (fixture);
  tools = run (fixture, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (tools->len, ==, 2);
  g_assert_cmpstr (((PrsTool *) g_ptr_array_index (tools, 0))->name, ==, "email_move_to_folder");
  g_assert_cmpstr (((PrsTool *) g_ptr_array_index (tools, 1))->name, ==, "hello");

  checklists = prs_store_list_workflow_checks (fixture->store, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (json_array_get_length (checklists), ==, 4);

  monster = find_checklist (checklists, "w5");
  g_assert_nonnull (monster);
  g_assert_cmpstr (json_object_get_string_member (monster, "workflowName"), ==, "Generated Monster");
  g_assert_false (json_object_get_boolean_member (monster, "discoverable"));
  g_assert_cmpstr (check_status (monster, "size"), ==, "fail");

  many = find_checklist (checklists, "w6");
  g_assert_nonnull (many);
  g_assert_false (json_object_get_boolean_member (many, "discoverable"));
  g_assert_cmpstr (check_status (many, "parameters"), ==, "fail");
  g_assert_cmpstr (check_status (many, "webhook"), ==, "pass");
}

static void
test_not_configured (Fixture       *fixture,
                     gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) tools = run (fixture, &error);

  g_assert_null (tools);
  g_assert_error (error, PRS_ERROR, PRS_ERROR_NOT_CONFIGURED);
  g_clear_error (&error);

  /* A URL but no key. */
  prs_store_set_setting (fixture->store, PRS_SETTING_N8N_URL, fixture->base_url, &error);
  g_assert_no_error (error);
  tools = run (fixture, &error);
  g_assert_null (tools);
  g_assert_error (error, PRS_ERROR, PRS_ERROR_NOT_CONFIGURED);
}

static gboolean
quit_loop (gpointer user_data)
{
  g_main_loop_quit (user_data);
  return G_SOURCE_REMOVE;
}

static void
test_schedule (Fixture       *fixture,
               gconstpointer  data)
{
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);

  configure (fixture);

  /* It runs at once, then every interval. */
  prs_discovery_set_schedule (fixture->discovery, 1);
  g_assert_cmpuint (prs_discovery_get_n_runs (fixture->discovery), ==, 1);
  g_timeout_add (3500, quit_loop, loop);
  g_main_loop_run (loop);
  g_assert_cmpuint (prs_discovery_get_n_runs (fixture->discovery), >=, 3);
  g_assert_cmpuint (fixture->lists, >=, 3);

  prs_discovery_set_schedule (fixture->discovery, 0);
  while (prs_discovery_get_running (fixture->discovery))
    g_main_context_iteration (NULL, TRUE);
  fixture->lists = 0;
  g_timeout_add (1500, quit_loop, loop);
  g_main_loop_run (loop);
  g_assert_cmpuint (fixture->lists, ==, 0);
  assert_tools_kept (fixture);
}

static void
wait_idle (Fixture *fixture)
{
  while (prs_discovery_get_running (fixture->discovery))
    g_main_context_iteration (NULL, TRUE);
  /* A run asked for while the last one ran starts from an idle callback */
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

static void
test_rediscovery_debounced (Fixture       *fixture,
                            gconstpointer  data)
{
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);

  configure (fixture);
  prs_discovery_set_rediscover_window (fixture->discovery, 1500);

  /* Three 404s of one turn: one discovery, started at once */
  prs_discovery_request_rediscovery (fixture->discovery);
  g_assert_cmpuint (prs_discovery_get_n_runs (fixture->discovery), ==, 1);
  g_assert_true (prs_discovery_get_running (fixture->discovery));
  prs_discovery_request_rediscovery (fixture->discovery);
  prs_discovery_request_rediscovery (fixture->discovery);
  wait_idle (fixture);
  prs_discovery_request_rediscovery (fixture->discovery);
  wait_idle (fixture);
  g_assert_cmpuint (prs_discovery_get_n_runs (fixture->discovery), ==, 1);
  g_assert_cmpuint (fixture->lists, ==, 1);
  assert_tools_kept (fixture);

  /* After the window, a new 404 makes a new discovery */
  g_timeout_add (1600, quit_loop, loop);
  g_main_loop_run (loop);
  prs_discovery_request_rediscovery (fixture->discovery);
  g_assert_cmpuint (prs_discovery_get_n_runs (fixture->discovery), ==, 2);
  wait_idle (fixture);
  g_assert_cmpuint (fixture->lists, ==, 2);

  /* Asked while another discovery (the schedule's) runs: one more follows
   * it, since that one may have listed the workflows too early */
  g_timeout_add (1600, quit_loop, loop);
  g_main_loop_run (loop);
  prs_discovery_set_schedule (fixture->discovery, 3600);
  g_assert_true (prs_discovery_get_running (fixture->discovery));
  prs_discovery_request_rediscovery (fixture->discovery);
  prs_discovery_request_rediscovery (fixture->discovery);
  g_assert_cmpuint (prs_discovery_get_n_runs (fixture->discovery), ==, 3);
  wait_idle (fixture);
  wait_idle (fixture);
  g_assert_cmpuint (prs_discovery_get_n_runs (fixture->discovery), ==, 4);
  g_assert_cmpuint (fixture->lists, ==, 4);
  prs_discovery_set_schedule (fixture->discovery, 0);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add ("/prs/discovery-run/stores-tools", Fixture, NULL,
              fixture_set_up, test_run_stores_tools, fixture_tear_down);
  g_test_add ("/prs/discovery-run/failures-keep-tools", Fixture, NULL,
              fixture_set_up, test_failures_keep_tools, fixture_tear_down);
  g_test_add ("/prs/discovery-run/huge-workflows-skipped", Fixture, NULL,
              fixture_set_up, test_huge_workflows_skipped, fixture_tear_down);
  g_test_add ("/prs/discovery-run/not-configured", Fixture, NULL,
              fixture_set_up, test_not_configured, fixture_tear_down);
  g_test_add ("/prs/discovery-run/schedule", Fixture, NULL,
              fixture_set_up, test_schedule, fixture_tear_down);
  g_test_add ("/prs/discovery-run/rediscovery-debounced", Fixture, NULL,
              fixture_set_up, test_rediscovery_debounced, fixture_tear_down);

  return g_test_run ();
}
