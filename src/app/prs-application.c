/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-application.c: the application. `prosponsive --headless` runs the same
 * service with no window. With the default data folder the application is
 * unique on the session bus; with --data-dir (or PROSPONSIVE_DATA_DIR) it
 * runs on its own and the data folder's lock keeps it to one instance. */
#include "config.h"

#include <glib/gi18n.h>

#include "prs-application.h"
#include "prs-window.h"

struct _PrsApplication
{
  AdwApplication  parent_instance;

  PrsService     *service;
  char           *data_dir;
  guint           port;
  gboolean        headless;
  int             exit_status;
};

G_DEFINE_FINAL_TYPE (PrsApplication, prs_application, ADW_TYPE_APPLICATION)

PrsApplication *
prs_application_new (void)
{
  return g_object_new (PRS_TYPE_APPLICATION,
                       "application-id", APP_ID,
                       "flags", G_APPLICATION_DEFAULT_FLAGS,
                       "resource-base-path", RESOURCE_PREFIX,
                       NULL);
}

PrsService *
prs_application_get_service (PrsApplication *self)
{
  g_return_val_if_fail (PRS_IS_APPLICATION (self), NULL);

  return self->service;
}

static int
prs_application_handle_local_options (GApplication *app,
                                      GVariantDict *options)
{
  PrsApplication *self = PRS_APPLICATION (app);
  const char *env = g_getenv ("PROSPONSIVE_DATA_DIR");
  gint32 port = 0;

  if (g_variant_dict_lookup (options, "version", "b", NULL))
    {
      g_print ("prosponsive %s\n", PACKAGE_VERSION);
      return EXIT_SUCCESS;
    }

  g_variant_dict_lookup (options, "data-dir", "^ay", &self->data_dir);
  g_variant_dict_lookup (options, "headless", "b", &self->headless);
  if (g_variant_dict_lookup (options, "port", "i", &port))
    {
      if (port < 1 || port > 65535)
        {
          g_printerr (_("The port must be between 1 and 65535.\n"));
          return EXIT_FAILURE;
        }
      self->port = (guint) port;
    }

  if (self->data_dir != NULL || (env != NULL && env[0] != '\0'))
    g_application_set_flags (app, g_application_get_flags (app) | G_APPLICATION_NON_UNIQUE);

  return -1;
}

static void
prs_application_startup (GApplication *app)
{
  PrsApplication *self = PRS_APPLICATION (app);
  g_autoptr(GError) error = NULL;

  G_APPLICATION_CLASS (prs_application_parent_class)->startup (app);

  self->service = prs_service_new (self->data_dir, self->port);
  if (!prs_service_start (self->service, &error))
    {
      g_printerr ("prosponsive: %s\n", error->message);
      self->exit_status = EXIT_FAILURE;
      g_clear_object (&self->service);
      return;
    }

  if (self->headless)
    {
      /* No window will ever hold the application: hold it for the service. */
      g_application_hold (app);
      g_print (_("Prosponsive is running without a window (data folder %s, port %u).\n"),
               prs_service_get_data_dir (self->service), prs_service_get_port (self->service));
    }
}

static void
prs_application_activate (GApplication *app)
{
  PrsApplication *self = PRS_APPLICATION (app);
  GtkWindow *window;

  if (self->service == NULL)
    {
      g_application_quit (app);
      return;
    }

  if (self->headless)
    return;

  window = gtk_application_get_active_window (GTK_APPLICATION (app));
  if (window == NULL)
    window = GTK_WINDOW (prs_window_new (self, self->service));

  gtk_window_present (window);
}

static void
prs_application_shutdown (GApplication *app)
{
  PrsApplication *self = PRS_APPLICATION (app);

  if (self->service != NULL)
    prs_service_stop (self->service);

  G_APPLICATION_CLASS (prs_application_parent_class)->shutdown (app);
}

static void
quit_activated (GSimpleAction *action,
                GVariant      *parameter,
                gpointer       user_data)
{
  g_application_quit (G_APPLICATION (user_data));
}

static const GActionEntry app_actions[] = {
  { "quit", quit_activated },
};

static void
prs_application_finalize (GObject *object)
{
  PrsApplication *self = PRS_APPLICATION (object);

  g_clear_object (&self->service);
  g_free (self->data_dir);

  G_OBJECT_CLASS (prs_application_parent_class)->finalize (object);
}

static void
prs_application_class_init (PrsApplicationClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);

  object_class->finalize = prs_application_finalize;

  app_class->handle_local_options = prs_application_handle_local_options;
  app_class->startup = prs_application_startup;
  app_class->activate = prs_application_activate;
  app_class->shutdown = prs_application_shutdown;
}

static void
prs_application_init (PrsApplication *self)
{
  static const GOptionEntry entries[] = {
    { "headless", 0, 0, G_OPTION_ARG_NONE, NULL, N_("Run the service without a window"), NULL },
    { "data-dir", 0, 0, G_OPTION_ARG_FILENAME, NULL, N_("Use DIR as the data folder"), N_("DIR") },
    { "port", 0, 0, G_OPTION_ARG_INT, NULL, N_("Serve the local API on PORT (default 3100)"), N_("PORT") },
    { "version", 0, 0, G_OPTION_ARG_NONE, NULL, N_("Print the version and exit"), NULL },
    { NULL }
  };
  static const char *quit_accels[] = { "<Control>q", NULL };

  g_application_add_main_option_entries (G_APPLICATION (self), entries);
  g_action_map_add_action_entries (G_ACTION_MAP (self), app_actions, G_N_ELEMENTS (app_actions), self);
  gtk_application_set_accels_for_action (GTK_APPLICATION (self), "app.quit", quit_accels);
}

int
prs_application_get_exit_status (PrsApplication *self)
{
  g_return_val_if_fail (PRS_IS_APPLICATION (self), EXIT_FAILURE);

  return self->exit_status;
}
