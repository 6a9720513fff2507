/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-run-test-util.c: the scripted provider, the scripted webhook and API
 * posts for the ui tests of agent runs (as in tests/core/test-runs.c). */
#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "prs-api-token.h"
#include "prs-json.h"
#include "prs-run-test-util.h"
#include "prs-ui-test-util.h"

/* ---- the scripted provider ---- */

static char *
find_python (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GSubprocess) process = NULL;
  char *out = NULL;

  process = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE, &error,
                              "python3", "-c", "import sys; print(sys.executable)", NULL);
  g_assert_no_error (error);
  g_subprocess_communicate_utf8 (process, NULL, NULL, &out, NULL, &error);
  g_assert_no_error (error);
  return g_strstrip (out);
}

PrsTestProvider *
prs_test_provider_start (const char *script)
{
  PrsTestProvider *provider = g_new0 (PrsTestProvider, 1);
  g_autoptr(GError) error = NULL;
  g_autofree char *python = find_python ();
  g_autofree char *json = g_strdup (script);
  g_autofree char *script_path = NULL;
  g_autofree char *server_path = g_test_build_filename (G_TEST_DIST, "..", "scripted-provider.py", NULL);
  g_autoptr(GDataInputStream) out = NULL;
  g_autofree char *line = NULL;

  g_strdelimit (json, "'", '"');
  provider->dir = g_dir_make_tmp ("prs-ui-provider-XXXXXX", &error);
  g_assert_no_error (error);
  script_path = g_build_filename (provider->dir, "script.json", NULL);
  provider->log_path = g_build_filename (provider->dir, "log.json", NULL);
  g_file_set_contents (script_path, json, -1, &error);
  g_assert_no_error (error);

  provider->process = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE, &error,
                                        python, server_path, "--script", script_path,
                                        "--log", provider->log_path, NULL);
  g_assert_no_error (error);
  out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (provider->process));
  line = g_data_input_stream_read_line (out, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (line);
  provider->root = g_strdup_printf ("http://127.0.0.1:%s", line);
  return provider;
}

static void
remove_dir (const char *dir)
{
  g_autoptr(GDir) handle = g_dir_open (dir, 0, NULL);
  const char *name;

  while (handle != NULL && (name = g_dir_read_name (handle)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);

      g_unlink (path);
    }
  g_rmdir (dir);
}

void
prs_test_provider_stop (PrsTestProvider *provider)
{
  g_subprocess_force_exit (provider->process);
  g_subprocess_wait (provider->process, NULL, NULL);
  g_object_unref (provider->process);
  remove_dir (provider->dir);
  g_free (provider->dir);
  g_free (provider->log_path);
  g_free (provider->root);
  g_free (provider);
}

char *
prs_test_provider_base_url (PrsTestProvider *provider,
                            const char      *kind)
{
  if (g_str_equal (kind, "openai"))
    return g_strconcat (provider->root, "/v1", NULL);
  return g_strdup (provider->root);
}

JsonArray *
prs_test_provider_requests (PrsTestProvider *provider)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  gsize len;
  g_autoptr(JsonNode) root = NULL;
  JsonArray *requests;

  if (!g_file_get_contents (provider->log_path, &text, &len, NULL))
    return json_array_new ();
  root = prs_json_parse_bounded (text, len, 256, &error);
  g_assert_no_error (error);
  requests = json_object_get_array_member (json_node_get_object (root), "requests");
  for (guint i = 0; i < json_array_get_length (requests); i++)
    {
      JsonObject *request = json_array_get_object_element (requests, i);

      if (json_array_get_length (json_object_get_array_member (request, "violations")) > 0)
        {
          g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), request);
          g_autofree char *dump = prs_json_to_string (node, TRUE);

          g_error ("a request broke the protocol: %s", dump);
        }
    }
  return json_array_ref (requests);
}

/* ---- the scripted webhook ---- */

static void
hook_handler (SoupServer        *soup,
              SoupServerMessage *msg,
              const char        *path,
              GHashTable        *query,
              gpointer           user_data)
{
  PrsTestHook *hook = user_data;
  SoupMessageBody *body = soup_server_message_get_request_body (msg);
  g_autoptr(GBytes) bytes = NULL;

  if (!g_str_has_prefix (path, "/webhook/"))
    {
      soup_server_message_set_status (msg, 404, NULL);
      return;
    }
  bytes = soup_message_body_flatten (body);
  g_ptr_array_add (hook->bodies, g_strndup (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes)));
  g_ptr_array_add (hook->paths, g_strdup (path));
  soup_server_message_set_status (msg, 200, NULL);
  soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_COPY,
                                    hook->answer, strlen (hook->answer));
}

PrsTestHook *
prs_test_hook_start (void)
{
  PrsTestHook *hook = g_new0 (PrsTestHook, 1);
  g_autoptr(GError) error = NULL;
  GSList *uris;

  hook->soup = soup_server_new (NULL, NULL);
  hook->bodies = g_ptr_array_new_with_free_func (g_free);
  hook->paths = g_ptr_array_new_with_free_func (g_free);
  hook->answer = g_strdup ("{\"forecast\":\"sunny-data\",\"temperature\":21}");
  soup_server_add_handler (hook->soup, NULL, hook_handler, hook, NULL);
  soup_server_listen_local (hook->soup, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error);
  g_assert_no_error (error);
  uris = soup_server_get_uris (hook->soup);
  hook->port = g_uri_get_port (uris->data);
  g_slist_free_full (uris, (GDestroyNotify) g_uri_unref);
  return hook;
}

void
prs_test_hook_stop (PrsTestHook *hook)
{
  soup_server_disconnect (hook->soup);
  g_object_unref (hook->soup);
  g_ptr_array_unref (hook->bodies);
  g_ptr_array_unref (hook->paths);
  g_free (hook->answer);
  g_free (hook);
}

char *
prs_test_hook_url (PrsTestHook *hook)
{
  return g_strdup_printf ("http://127.0.0.1:%u", hook->port);
}

/* ---- the HTTPS API ---- */

static gboolean
accept_any_certificate (SoupMessage          *msg,
                        GTlsCertificate      *certificate,
                        GTlsCertificateFlags  errors,
                        gpointer              user_data)
{
  return TRUE;
}

typedef struct
{
  gboolean  done;
  guint     status;
  GBytes   *body;
} Reply;

static void
on_sent (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  Reply *reply = user_data;
  g_autoptr(GError) error = NULL;

  reply->body = soup_session_send_and_read_finish (SOUP_SESSION (source), result, &error);
  g_assert_no_error (error);
  reply->status = soup_message_get_status (soup_session_get_async_result_message (SOUP_SESSION (source), result));
  reply->done = TRUE;
}

guint
prs_test_api_post (PrsSecrets  *secrets,
                   const char  *data_dir,
                   guint        port,
                   const char  *path,
                   const char  *body_json,
                   JsonObject **out_answer)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *token = NULL;
  g_autofree char *url = g_strdup_printf ("https://127.0.0.1:%u%s", port, path);
  g_autofree char *bearer = NULL;
  g_autoptr(SoupSession) session = soup_session_new ();
  g_autoptr(SoupMessage) msg = soup_message_new ("POST", url);
  g_autoptr(GBytes) body = g_bytes_new (body_json, strlen (body_json));
  Reply reply = { 0 };

  g_assert_true (prs_api_token_ensure (secrets, data_dir, &token, &error));
  g_assert_no_error (error);
  bearer = g_strdup_printf ("Bearer %s", token);
  g_signal_connect (msg, "accept-certificate", G_CALLBACK (accept_any_certificate), NULL);
  soup_message_headers_append (soup_message_get_request_headers (msg), "Authorization", bearer);
  soup_message_set_request_body_from_bytes (msg, "application/json", body);
  soup_session_send_and_read_async (session, msg, G_PRIORITY_DEFAULT, NULL, on_sent, &reply);
  while (!reply.done)
    g_main_context_iteration (NULL, TRUE);

  if (out_answer != NULL)
    {
      g_autoptr(JsonNode) node = NULL;
      gsize len = 0;
      const char *data = g_bytes_get_data (reply.body, &len);

      *out_answer = NULL;
      if (len > 0 && (node = prs_json_parse_bounded (data, len, 64, NULL)) != NULL &&
          JSON_NODE_HOLDS_OBJECT (node))
        *out_answer = json_object_ref (json_node_get_object (node));
    }
  g_bytes_unref (reply.body);
  return reply.status;
}
