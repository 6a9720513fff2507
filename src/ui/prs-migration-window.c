/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-migration-window.c: the window a person sees while an older
 * version's database is migrated (docs/storage.md "Migrations"): at once,
 * before the service starts, so a long migration never looks like an
 * application that did not start. The application replaces it with the
 * main window when the migration is done. */
#include "config.h"

#include <glib/gi18n.h>

#include "prs-migration-window.h"
#include "prs-window-state.h"

struct _PrsMigrationWindow
{
  AdwApplicationWindow  parent_instance;

  AdwStatusPage        *status_page;
  GtkProgressBar       *progress_bar;
  GtkButton            *quit_button;
};

G_DEFINE_FINAL_TYPE (PrsMigrationWindow, prs_migration_window, ADW_TYPE_APPLICATION_WINDOW)

/* Stopping is quitting: there is nothing else to do until it is done */
static gboolean
prs_migration_window_close_request (GtkWindow *window)
{
  gtk_widget_activate_action (GTK_WIDGET (window), "app.quit", NULL);
  return TRUE;
}

static void
prs_migration_window_class_init (PrsMigrationWindowClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GtkWindowClass *window_class = GTK_WINDOW_CLASS (klass);

  window_class->close_request = prs_migration_window_close_request;

  gtk_widget_class_set_template_from_resource (widget_class, RESOURCE_PREFIX "/ui/prs-migration-window.ui");
  gtk_widget_class_bind_template_child (widget_class, PrsMigrationWindow, progress_bar);
  gtk_widget_class_bind_template_child (widget_class, PrsMigrationWindow, quit_button);
  gtk_widget_class_bind_template_child (widget_class, PrsMigrationWindow, status_page);
}

static void
prs_migration_window_init (PrsMigrationWindow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  prs_migration_window_set_fraction (self, 0.0);
}

PrsMigrationWindow *
prs_migration_window_new (GtkApplication *application,
                          PrsSettings    *settings)
{
  PrsMigrationWindow *self;

  g_return_val_if_fail (GTK_IS_APPLICATION (application), NULL);
  g_return_val_if_fail (PRS_IS_SETTINGS (settings), NULL);

  self = g_object_new (PRS_TYPE_MIGRATION_WINDOW, "application", application, NULL);
  prs_window_state_bind (GTK_WINDOW (self), settings);
  return self;
}

void
prs_migration_window_set_fraction (PrsMigrationWindow *self,
                                   double              fraction)
{
  g_autofree char *text = NULL;

  g_return_if_fail (PRS_IS_MIGRATION_WINDOW (self));

  fraction = CLAMP (fraction, 0.0, 1.0);
  gtk_progress_bar_set_fraction (self->progress_bar, fraction);
  /* Translators: how far the update has come; %d is a percentage, %% the sign */
  text = g_strdup_printf (_("%d %%"), (int) (fraction * 100));
  gtk_progress_bar_set_text (self->progress_bar, text);
}

void
prs_migration_window_show_error (PrsMigrationWindow *self,
                                 const GError       *error)
{
  g_autofree char *description = NULL;

  g_return_if_fail (PRS_IS_MIGRATION_WINDOW (self));
  g_return_if_fail (error != NULL);

  adw_status_page_set_icon_name (self->status_page, "dialog-error-symbolic");
  adw_status_page_set_title (self->status_page, _("Your Conversations Could Not Be Updated"));
  /* Translators: %s is why, as the database said it */
  description = g_markup_printf_escaped (_("Nothing in your conversations is lost, but this version "
                                           "cannot open them until the update succeeds.\n\n%s"),
                                         error->message);
  adw_status_page_set_description (self->status_page, description);
  gtk_widget_set_visible (GTK_WIDGET (self->progress_bar), FALSE);
  gtk_widget_set_visible (GTK_WIDGET (self->quit_button), TRUE);
  gtk_widget_grab_focus (GTK_WIDGET (self->quit_button));
}
