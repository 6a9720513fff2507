/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-window.c: the main window. For now it shows the discovered tools and
 * the state of discovery; conversations come with the chat window. */
#include "config.h"

#include <glib/gi18n.h>

#include "prs-window.h"

struct _PrsWindow
{
  AdwApplicationWindow  parent_instance;

  PrsService           *service;
  GPtrArray            *rows;

  AdwStatusPage        *empty_page;
  GtkSpinner           *spinner;
  GtkStack             *stack;
  AdwToastOverlay      *toast_overlay;
  AdwPreferencesGroup  *tools_group;
  AdwWindowTitle       *window_title;
};

G_DEFINE_FINAL_TYPE (PrsWindow, prs_window, ADW_TYPE_APPLICATION_WINDOW)

static void
reload_tools (PrsWindow *self)
{
  PrsStore *store = prs_service_get_store (self->service);
  g_autoptr(GPtrArray) tools = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *subtitle = NULL;
  g_autofree char *last_error = NULL;
  gint64 last_attempt = 0, last_success = 0;

  for (guint i = 0; i < self->rows->len; i++)
    adw_preferences_group_remove (self->tools_group, g_ptr_array_index (self->rows, i));
  g_ptr_array_set_size (self->rows, 0);

  tools = prs_store_list_tools (store, &error);
  if (tools == NULL)
    {
      adw_toast_overlay_add_toast (self->toast_overlay, adw_toast_new (error->message));
      return;
    }

  for (guint i = 0; i < tools->len; i++)
    {
      const PrsTool *tool = g_ptr_array_index (tools, i);
      GtkWidget *row = adw_action_row_new ();

      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), tool->name);
      adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
      adw_action_row_set_subtitle (ADW_ACTION_ROW (row), tool->description);
      adw_action_row_set_subtitle_lines (ADW_ACTION_ROW (row), 2);
      adw_preferences_group_add (self->tools_group, row);
      g_ptr_array_add (self->rows, row);
    }

  gtk_stack_set_visible_child_name (self->stack, tools->len > 0 ? "tools" : "empty");

  prs_store_get_discovery_status (store, &last_attempt, &last_success, &last_error);
  if (last_attempt > last_success && last_error != NULL)
    subtitle = g_strdup_printf (_("Discovery failed: %s"), last_error);
  else if (tools->len > 0)
    subtitle = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u tool", "%u tools", tools->len), tools->len);
  adw_window_title_set_subtitle (self->window_title, subtitle != NULL ? subtitle : "");
}

static void
on_discovery_running (PrsDiscovery *discovery,
                      GParamSpec   *pspec,
                      PrsWindow    *self)
{
  gboolean running = prs_discovery_get_running (discovery);

  gtk_spinner_set_spinning (self->spinner, running);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.refresh-tools", !running);
}

static void
on_discovery_finished (PrsDiscovery *discovery,
                       const GError *error,
                       PrsWindow    *self)
{
  reload_tools (self);
}

static void
refresh_done (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(PrsWindow) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) tools = prs_discovery_run_finish (PRS_DISCOVERY (source), result, &error);

  if (tools == NULL)
    adw_toast_overlay_add_toast (self->toast_overlay, adw_toast_new (error->message));
}

static void
refresh_tools_activated (GtkWidget  *widget,
                         const char *action_name,
                         GVariant   *parameter)
{
  PrsWindow *self = PRS_WINDOW (widget);
  PrsDiscovery *discovery = prs_service_get_discovery (self->service);

  if (!prs_discovery_get_running (discovery))
    prs_discovery_run_async (discovery, NULL, refresh_done, g_object_ref (self));
}

PrsWindow *
prs_window_new (gpointer    application,
                PrsService *service)
{
  PrsWindow *self;
  PrsDiscovery *discovery;

  g_return_val_if_fail (PRS_IS_SERVICE (service), NULL);

  self = g_object_new (PRS_TYPE_WINDOW, "application", application, NULL);
  self->service = g_object_ref (service);

  discovery = prs_service_get_discovery (service);
  g_signal_connect_object (discovery, "notify::running", G_CALLBACK (on_discovery_running), self, 0);
  g_signal_connect_object (discovery, "finished", G_CALLBACK (on_discovery_finished), self, 0);
  on_discovery_running (discovery, NULL, self);
  reload_tools (self);

  return self;
}

static void
prs_window_dispose (GObject *object)
{
  PrsWindow *self = PRS_WINDOW (object);

  gtk_widget_dispose_template (GTK_WIDGET (self), PRS_TYPE_WINDOW);
  g_clear_object (&self->service);
  g_clear_pointer (&self->rows, g_ptr_array_unref);

  G_OBJECT_CLASS (prs_window_parent_class)->dispose (object);
}

static void
prs_window_class_init (PrsWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = prs_window_dispose;

  gtk_widget_class_set_template_from_resource (widget_class, RESOURCE_PREFIX "/ui/prs-window.ui");
  gtk_widget_class_bind_template_child (widget_class, PrsWindow, empty_page);
  gtk_widget_class_bind_template_child (widget_class, PrsWindow, spinner);
  gtk_widget_class_bind_template_child (widget_class, PrsWindow, stack);
  gtk_widget_class_bind_template_child (widget_class, PrsWindow, toast_overlay);
  gtk_widget_class_bind_template_child (widget_class, PrsWindow, tools_group);
  gtk_widget_class_bind_template_child (widget_class, PrsWindow, window_title);

  gtk_widget_class_install_action (widget_class, "win.refresh-tools", NULL, refresh_tools_activated);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_r, GDK_CONTROL_MASK, "win.refresh-tools", NULL);
}

static void
prs_window_init (PrsWindow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->rows = g_ptr_array_new ();
}
