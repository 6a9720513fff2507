/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-app-options.c: the command line that the window (prosponsive) and
 * the service without a window (prosponsive-service) share. */
#include "config.h"

#include <glib/gi18n.h>

#include "prs-app-options.h"

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
