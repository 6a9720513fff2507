/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-app-options.c: the shared command line, and the headless program:
 * the same service as the window, in a plain GApplication, so it needs no
 * display. */
#include "config.h"

#include <glib/gi18n.h>
#include <glib-unix.h>

#include "prs-app-options.h"
#include "prs-service.h"

void
prs_app_options_add (GApplication *app)
{
  static const GOptionEntry entries[] = {
    { "headless", 0, 0, G_OPTION_ARG_NONE, NULL, N_("Run the service without a window"), NULL },
    { "data-dir", 0, 0, G_OPTION_ARG_FILENAME, NULL, N_("Use DIR as the data folder"), N_("DIR") },
    { "port", 0, 0, G_OPTION_ARG_INT, NULL, N_("Serve the local API on PORT (default: the port set in Preferences, 3100)"), N_("PORT") },
    { "version", 0, 0, G_OPTION_ARG_NONE, NULL, N_("Print the version and exit"), NULL },
    { NULL }
  };

  g_application_add_main_option_entries (app, entries);
}

int
prs_app_options_read (GApplication  *app,
                      GVariantDict  *options,
                      PrsAppOptions *out)
{
  const char *env = g_getenv ("PROSPONSIVE_DATA_DIR");
  gint32 port = 0;

  if (g_variant_dict_lookup (options, "version", "b", NULL))
    {
      g_print ("prosponsive %s\n", PACKAGE_VERSION);
      return EXIT_SUCCESS;
    }

  g_variant_dict_lookup (options, "data-dir", "^ay", &out->data_dir);
  g_variant_dict_lookup (options, "headless", "b", &out->headless);
  if (g_variant_dict_lookup (options, "port", "i", &port))
    {
      if (port < 1 || port > 65535)
        {
          g_printerr (_("The port must be between 1 and 65535.\n"));
          return EXIT_FAILURE;
        }
      out->port = (guint) port;
    }

  if (out->data_dir != NULL || (env != NULL && env[0] != '\0'))
    g_application_set_flags (app, g_application_get_flags (app) | G_APPLICATION_NON_UNIQUE);

  return -1;
}

void
prs_app_options_clear (PrsAppOptions *options)
{
  g_clear_pointer (&options->data_dir, g_free);
}

/* ---------------------------------------------------------------- headless */

typedef struct
{
  PrsAppOptions  options;
  PrsService    *service;
  int            exit_status;
} Headless;

static int
headless_handle_local_options (GApplication *app,
                               GVariantDict *options,
                               Headless     *headless)
{
  return prs_app_options_read (app, options, &headless->options);
}

static gboolean
on_terminate (gpointer user_data)
{
  g_application_quit (G_APPLICATION (user_data));
  return G_SOURCE_CONTINUE;
}

static void
headless_startup (GApplication *app,
                  Headless     *headless)
{
  g_autoptr(GError) error = NULL;

  headless->service = prs_service_new (headless->options.data_dir, headless->options.port);
  if (!prs_service_start (headless->service, &error))
    {
      g_printerr ("prosponsive: %s\n", error->message);
      headless->exit_status = EXIT_FAILURE;
      g_clear_object (&headless->service);
      return;
    }

  /* No window will ever hold the application. SIGTERM and SIGINT end it
   * cleanly (connections closed, the store's last transaction done). */
  g_application_hold (app);
  g_unix_signal_add (SIGTERM, on_terminate, app);
  g_unix_signal_add (SIGINT, on_terminate, app);
  g_print (_("Prosponsive is running without a window (data folder %s, port %u).\n"),
           prs_service_get_data_dir (headless->service), prs_service_get_port (headless->service));
}

static void
headless_activate (GApplication *app,
                   Headless     *headless)
{
  if (headless->service == NULL)
    g_application_quit (app);
}

static void
headless_shutdown (GApplication *app,
                   Headless     *headless)
{
  if (headless->service != NULL)
    prs_service_stop (headless->service);
}

int
prs_headless_run (int    argc,
                  char **argv)
{
  g_autoptr(GApplication) app = NULL;
  Headless headless = { 0 };
  int status;

  app = g_application_new (APP_ID, G_APPLICATION_DEFAULT_FLAGS);
  prs_app_options_add (app);
  g_signal_connect (app, "handle-local-options", G_CALLBACK (headless_handle_local_options), &headless);
  g_signal_connect (app, "startup", G_CALLBACK (headless_startup), &headless);
  g_signal_connect (app, "activate", G_CALLBACK (headless_activate), &headless);
  g_signal_connect (app, "shutdown", G_CALLBACK (headless_shutdown), &headless);

  status = g_application_run (app, argc, argv);

  g_clear_object (&headless.service);
  prs_app_options_clear (&headless.options);

  return status != 0 ? status : headless.exit_status;
}
