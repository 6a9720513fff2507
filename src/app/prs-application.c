/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-application.c: the application with its window. `prosponsive
 * --headless` runs the same service without GTK (prs-app-options.c).
 * With the default data folder the application is unique on the session bus; with --data-dir (or PROSPONSIVE_DATA_DIR) it
 * runs on its own and the data folder's lock keeps it to one instance. */
#include "config.h"

#include <glib/gi18n.h>

#include "prs-app-options.h"
#include "prs-application.h"
#include "prs-window.h"

struct _PrsApplication
{
  AdwApplication  parent_instance;

  PrsService     *service;
  PrsAppOptions   options;
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

  return prs_app_options_read (app, options, &self->options);
}

static void
prs_application_startup (GApplication *app)
{
  PrsApplication *self = PRS_APPLICATION (app);
  g_autoptr(GError) error = NULL;

  G_APPLICATION_CLASS (prs_application_parent_class)->startup (app);

  self->service = prs_service_new (self->options.data_dir, self->options.port);
  if (!prs_service_start (self->service, &error))
    {
      g_printerr ("prosponsive: %s\n", error->message);
      self->exit_status = EXIT_FAILURE;
      g_clear_object (&self->service);
      return;
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

static void
about_activated (GSimpleAction *action,
                 GVariant      *parameter,
                 gpointer       user_data)
{
  GtkApplication *app = GTK_APPLICATION (user_data);
  static const char *developers[] = { "The Prosponsive contributors", NULL };
  GtkWidget *about;

  about = g_object_new (ADW_TYPE_ABOUT_WINDOW,
                        "transient-for", gtk_application_get_active_window (app),
                        "application-name", _("Prosponsive"),
                        "application-icon", APP_ID,
                        "version", PACKAGE_VERSION,
                        "comments", _("Chat with AI agents that use your n8n workflows as tools"),
                        "developers", developers,
                        "license-type", GTK_LICENSE_GPL_3_0,
                        /* Translators: put your names here, one a line */
                        "translator-credits", _("translator-credits"),
                        NULL);
  gtk_window_present (GTK_WINDOW (about));
}

static const GActionEntry app_actions[] = {
  { "quit", quit_activated },
  { "about", about_activated },
};

static void
prs_application_finalize (GObject *object)
{
  PrsApplication *self = PRS_APPLICATION (object);

  g_clear_object (&self->service);
  prs_app_options_clear (&self->options);

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
  static const char *quit_accels[] = { "<Control>q", NULL };

  prs_app_options_add (G_APPLICATION (self));
  g_action_map_add_action_entries (G_ACTION_MAP (self), app_actions, G_N_ELEMENTS (app_actions), self);
  gtk_application_set_accels_for_action (GTK_APPLICATION (self), "app.quit", quit_accels);
}

int
prs_application_get_exit_status (PrsApplication *self)
{
  g_return_val_if_fail (PRS_IS_APPLICATION (self), EXIT_FAILURE);

  return self->exit_status;
}
