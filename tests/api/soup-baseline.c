/* SPDX-License-Identifier: GPL-3.0-or-later */
/* soup-baseline.c: the "before" of tests/api/HARDENING.md — a plain
 * libsoup HTTPS server (soup_server_listen_local, the token checked in the
 * handler) with the same command line as `prosponsive --headless`, so
 * test-api-hardening.py --report-only can measure it. Not a test. */
#include "config.h"

#include <libsoup/soup.h>

#include "prs-tls.h"

static void
handler (SoupServer        *server,
         SoupServerMessage *msg,
         const char        *path,
         GHashTable        *query,
         gpointer           user_data)
{
  const char *auth = soup_message_headers_get_one (soup_server_message_get_request_headers (msg),
                                                   "Authorization");
  static const char ok[] = "{\"status\":\"ok\",\"version\":\"baseline\"}";
  static const char denied[] = "{\"success\":false,\"error\":\"Authentication required.\",\"code\":\"unauthorized\"}";

  if (g_strcmp0 (path, "/api/health") == 0)
    {
      soup_server_message_set_status (msg, 200, NULL);
      soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_STATIC, ok, sizeof ok - 1);
    }
  else if (auth == NULL)
    {
      soup_server_message_set_status (msg, 401, NULL);
      soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_STATIC, denied, sizeof denied - 1);
    }
  else
    {
      soup_server_message_set_status (msg, 200, NULL);
      soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_STATIC,
                                        "{\"success\":true}", 16);
    }
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *data_dir = NULL;
  int port = 0;
  gboolean headless = FALSE;
  GOptionEntry entries[] = {
    { "headless", 0, 0, G_OPTION_ARG_NONE, &headless, "ignored", NULL },
    { "data-dir", 0, 0, G_OPTION_ARG_FILENAME, &data_dir, "data folder", "DIR" },
    { "port", 0, 0, G_OPTION_ARG_INT, &port, "port", "PORT" },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new (NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(GTlsCertificate) certificate = NULL;
  g_autoptr(SoupServer) server = NULL;
  g_autoptr(GMainLoop) loop = NULL;

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error) || data_dir == NULL || port <= 0)
    {
      g_printerr ("usage: soup-baseline --data-dir DIR --port N\n");
      return 2;
    }

  g_mkdir_with_parents (data_dir, 0700);
  certificate = prs_tls_ensure_certificate (data_dir, &error);
  if (certificate == NULL)
    {
      g_printerr ("%s\n", error->message);
      return 1;
    }

  server = soup_server_new ("tls-certificate", certificate, NULL);
  soup_server_add_handler (server, NULL, handler, NULL, NULL);
  if (!soup_server_listen_local (server, (guint) port, SOUP_SERVER_LISTEN_HTTPS, &error))
    {
      g_printerr ("%s\n", error->message);
      return 1;
    }

  loop = g_main_loop_new (NULL, FALSE);
  g_main_loop_run (loop);
  return 0;
}
