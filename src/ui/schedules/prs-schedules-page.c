/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-schedules-page.c: the scheduled prompts, one row each: what it runs
 * and when next (or why it is off), its switch, Run Now and Delete; the
 * row opens the editor. Everything goes through PrsScheduler; the page
 * reads the store again whenever the scheduler says something changed. */
#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#include "prs-dialogs.h"
#include "prs-schedules-page.h"

struct _PrsSchedulesPage
{
  GtkWidget            parent_instance;

  PrsService          *service;
  GPtrArray           *rows;          /* rows added to schedules_group */
  GHashTable          *rows_by_id;    /* id → row (unowned) */
  PrsScheduleEditor   *editor;        /* weak */
  guint                reload_id;     /* a reload soon: never inside a row's own signal */

  GtkWidget           *empty_row;
  AdwPreferencesGroup *schedules_group;
};

G_DEFINE_FINAL_TYPE (PrsSchedulesPage, prs_schedules_page, GTK_TYPE_WIDGET)

static PrsScheduler *
scheduler (PrsSchedulesPage *self)
{
  return prs_service_get_scheduler (self->service);
}

static void
toast (PrsSchedulesPage *self,
       const char       *text)
{
  gtk_widget_activate_action (GTK_WIDGET (self), "win.show-toast", "s", text);
}

static GtkWindow *
parent_window (PrsSchedulesPage *self)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));

  return GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL;
}

/* ---- rows ---- */

/* "Weekdays at 07:30", "Next: Mon 2 Mar 2026, 07:30 CET", and where it runs */
static char *
describe (const PrsScheduleRow *row,
          GTimeZone            *tz,
          const char           *agent_name)
{
  PrsRecurrence recurrence;
  g_autofree char *when = NULL;
  g_autofree char *next_text = NULL;
  gint64 next;

  when = prs_recurrence_parse (row->recurrence_json, &recurrence, NULL) ? prs_recurrence_describe (&recurrence, tz)
                                                                         : g_strdup ("?");
  if (!row->enabled)
    next_text = g_strdup (_("Off: it runs only with Run Now"));
  else if (prs_schedule_next_due (row, tz, &next))
    {
      g_autofree char *at = prs_schedule_format_time (next, tz);

      /* Translators: %s is a date and time */
      next_text = g_strdup_printf (_("Next: %s"), at);
    }
  else
    next_text = g_strdup (_("No run to come"));
  /* Translators: when it runs, whether or when next, a conversation's name, an agent's name; one a line */
  return g_strdup_printf (_("%s\n%s\nIn “%s”, by %s"), when, next_text, row->conversation_slug, agent_name);
}

static void reload_soon (PrsSchedulesPage *self);

static void
on_switch_active (GtkSwitch        *toggle,
                  GParamSpec       *pspec,
                  PrsSchedulesPage *self)
{
  const char *id = g_object_get_data (G_OBJECT (toggle), "schedule-id");
  g_autoptr(GError) error = NULL;

  if (!prs_scheduler_set_enabled (scheduler (self), id, gtk_switch_get_active (toggle), &error))
    {
      toast (self, error->message);
      /* The switch shows what is stored again */
      reload_soon (self);
    }
}

static GtkWidget *
icon_button (const char *icon,
             const char *tooltip,
             const char *label,
             const char *action,
             const char *id)
{
  GtkWidget *button = gtk_button_new_from_icon_name (icon);

  gtk_widget_set_valign (button, GTK_ALIGN_CENTER);
  gtk_widget_add_css_class (button, "flat");
  gtk_widget_set_tooltip_text (button, tooltip);
  gtk_accessible_update_property (GTK_ACCESSIBLE (button), GTK_ACCESSIBLE_PROPERTY_LABEL, label, -1);
  gtk_actionable_set_action_name (GTK_ACTIONABLE (button), action);
  gtk_actionable_set_action_target (GTK_ACTIONABLE (button), "s", id);
  return button;
}

static GtkWidget *
schedule_row_new (PrsSchedulesPage     *self,
                  const PrsScheduleRow *schedule,
                  const char           *agent_name)
{
  GTimeZone *tz = prs_clock_get_timezone (prs_scheduler_get_clock (scheduler (self)));
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *toggle = gtk_switch_new ();
  g_autofree char *subtitle = describe (schedule, tz, agent_name);
  g_autofree char *switch_label = NULL;
  g_autofree char *run_label = NULL;
  g_autofree char *delete_label = NULL;

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), schedule->name);
  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), schedule->problem != NULL ? schedule->problem : subtitle);
  adw_action_row_set_subtitle_lines (ADW_ACTION_ROW (row), 3);
  if (schedule->problem != NULL)
    gtk_widget_add_css_class (row, "schedule-problem");
  gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), TRUE);
  gtk_actionable_set_action_name (GTK_ACTIONABLE (row), "schedules.edit");
  gtk_actionable_set_action_target (GTK_ACTIONABLE (row), "s", schedule->id);

  gtk_switch_set_active (GTK_SWITCH (toggle), schedule->enabled);
  gtk_widget_set_valign (toggle, GTK_ALIGN_CENTER);
  gtk_widget_set_tooltip_text (toggle, _("Runs on schedule"));
  /* Translators: %s is a schedule's name */
  switch_label = g_strdup_printf (_("Run “%s” on schedule"), schedule->name);
  gtk_accessible_update_property (GTK_ACCESSIBLE (toggle), GTK_ACCESSIBLE_PROPERTY_LABEL, switch_label, -1);
  g_object_set_data_full (G_OBJECT (toggle), "schedule-id", g_strdup (schedule->id), g_free);
  g_signal_connect_object (toggle, "notify::active", G_CALLBACK (on_switch_active), self, 0);
  g_object_set_data (G_OBJECT (row), "switch", toggle);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), toggle);

  /* Translators: %s is a schedule's name */
  run_label = g_strdup_printf (_("Run “%s” now"), schedule->name);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), icon_button ("media-playback-start-symbolic", _("Run Now"),
                                                                run_label, "schedules.run", schedule->id));
  /* Translators: %s is a schedule's name */
  delete_label = g_strdup_printf (_("Delete “%s”"), schedule->name);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), icon_button ("user-trash-symbolic", _("Delete"),
                                                                delete_label, "schedules.delete", schedule->id));
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), gtk_image_new_from_icon_name ("go-next-symbolic"));
  return row;
}

/* Agent id → name, for the rows */
static GHashTable *
agent_names (PrsSchedulesPage *self)
{
  g_autoptr(GPtrArray) agents = prs_store_list_agents (prs_service_get_store (self->service), NULL);
  GHashTable *names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);

  for (guint i = 0; agents != NULL && i < agents->len; i++)
    {
      const PrsAgent *agent = g_ptr_array_index (agents, i);

      g_hash_table_insert (names, g_strdup (agent->id), g_strdup (agent->name));
    }
  return names;
}

int
prs_schedules_page_reload (PrsSchedulesPage  *self,
                           GError           **error)
{
  g_autoptr(GPtrArray) schedules = NULL;
  g_autoptr(GHashTable) names = NULL;

  g_return_val_if_fail (PRS_IS_SCHEDULES_PAGE (self), -1);
  g_return_val_if_fail (self->service != NULL, -1);

  schedules = prs_store_list_schedules (prs_service_get_store (self->service), error);
  if (schedules == NULL)
    return -1;
  names = agent_names (self);

  for (guint i = 0; i < self->rows->len; i++)
    adw_preferences_group_remove (self->schedules_group, g_ptr_array_index (self->rows, i));
  g_ptr_array_set_size (self->rows, 0);
  g_hash_table_remove_all (self->rows_by_id);

  for (guint i = 0; i < schedules->len; i++)
    {
      const PrsScheduleRow *schedule = g_ptr_array_index (schedules, i);
      const char *agent = g_hash_table_lookup (names, schedule->agent_id);
      GtkWidget *row = schedule_row_new (self, schedule, agent != NULL ? agent : schedule->agent_id);

      adw_preferences_group_add (self->schedules_group, row);
      g_ptr_array_add (self->rows, row);
      g_hash_table_insert (self->rows_by_id, g_strdup (schedule->id), row);
    }
  gtk_widget_set_visible (self->empty_row, schedules->len == 0);
  return (int) schedules->len;
}

static void
reload_or_toast (PrsSchedulesPage *self)
{
  g_autoptr(GError) error = NULL;

  if (prs_schedules_page_reload (self, &error) < 0)
    toast (self, error->message);
}

GtkWidget *
prs_schedules_page_get_row (PrsSchedulesPage *self,
                            const char       *schedule_id)
{
  g_return_val_if_fail (PRS_IS_SCHEDULES_PAGE (self), NULL);
  return g_hash_table_lookup (self->rows_by_id, schedule_id);
}

/* ---- editing ---- */

PrsScheduleEditor *
prs_schedules_page_edit (PrsSchedulesPage *self,
                         const char       *schedule_id,
                         const char       *slug,
                         const char       *agent_id)
{
  g_autoptr(GError) error = NULL;
  PrsScheduleEditor *editor;

  g_return_val_if_fail (PRS_IS_SCHEDULES_PAGE (self), NULL);
  g_return_val_if_fail (self->service != NULL, NULL);

  if (self->editor != NULL)
    {
      /* One editor at a time; it is modal anyway */
      gtk_window_present (GTK_WINDOW (self->editor));
      return self->editor;
    }
  editor = prs_schedule_editor_new (parent_window (self), self->service, schedule_id, slug, agent_id, &error);
  if (editor == NULL)
    {
      toast (self, error->message);
      return NULL;
    }
  self->editor = editor;
  g_object_add_weak_pointer (G_OBJECT (editor), (gpointer *) &self->editor);
  gtk_window_present (GTK_WINDOW (editor));
  return editor;
}

static void
new_activated (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  prs_schedules_page_edit (PRS_SCHEDULES_PAGE (widget), NULL, NULL, NULL);
}

static void
edit_activated (GtkWidget  *widget,
                const char *action_name,
                GVariant   *parameter)
{
  prs_schedules_page_edit (PRS_SCHEDULES_PAGE (widget), g_variant_get_string (parameter, NULL), NULL, NULL);
}

static void
run_activated (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  PrsSchedulesPage *self = PRS_SCHEDULES_PAGE (widget);
  const char *id = g_variant_get_string (parameter, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsScheduleRow) row = NULL;
  g_autofree char *text = NULL;

  if (!prs_scheduler_run_now (scheduler (self), id, &error))
    {
      toast (self, error->message);
      return;
    }
  row = prs_store_lookup_schedule (prs_service_get_store (self->service), id, NULL);
  if (row != NULL)
    {
      /* Translators: a schedule's name, then a conversation's name */
      text = g_strdup_printf (_("“%s” runs now in “%s”"), row->name, row->conversation_slug);
      toast (self, text);
    }
}

/* ---- deleting ---- */

static void
on_delete_response (AdwMessageDialog *dialog,
                    const char       *response,
                    PrsSchedulesPage *self)
{
  const char *id = g_object_get_data (G_OBJECT (dialog), "schedule-id");
  const char *name = g_object_get_data (G_OBJECT (dialog), "schedule-name");
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  if (g_strcmp0 (response, "delete") != 0)
    return;
  if (!prs_scheduler_remove (scheduler (self), id, &error))
    {
      toast (self, error->message);
      return;
    }
  reload_or_toast (self);
  /* Translators: %s is a schedule's name */
  text = g_strdup_printf (_("Deleted “%s”"), name);
  toast (self, text);
}

static void
delete_activated (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *parameter)
{
  PrsSchedulesPage *self = PRS_SCHEDULES_PAGE (widget);
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsScheduleRow) row = NULL;
  g_autofree char *heading = NULL;
  g_autofree char *body = NULL;
  AdwMessageDialog *dialog;

  row = prs_store_lookup_schedule (prs_service_get_store (self->service), g_variant_get_string (parameter, NULL),
                                   &error);
  if (row == NULL)
    {
      toast (self, error != NULL ? error->message : _("The schedule is gone already."));
      reload_or_toast (self);
      return;
    }
  /* Translators: %s is a schedule's name */
  heading = g_strdup_printf (_("Delete “%s”?"), row->name);
  /* Translators: %s is a conversation's name */
  body = g_strdup_printf (_("It will not run again. The messages it made stay in “%s”."), row->conversation_slug);
  dialog = prs_dialogs_new_delete (parent_window (self), heading, body);
  g_object_set_data_full (G_OBJECT (dialog), "schedule-id", g_strdup (row->id), g_free);
  g_object_set_data_full (G_OBJECT (dialog), "schedule-name", g_strdup (row->name), g_free);
  g_signal_connect_object (dialog, "response", G_CALLBACK (on_delete_response), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}

/* ---- life ---- */

static gboolean
on_reload_idle (gpointer data)
{
  PrsSchedulesPage *self = data;

  self->reload_id = 0;
  reload_or_toast (self);
  return G_SOURCE_REMOVE;
}

/* Rows are made again after the signal that changed them returns (a
 * switch must not go away inside its own notify) */
static void
reload_soon (PrsSchedulesPage *self)
{
  if (self->reload_id == 0)
    self->reload_id = g_idle_add_full (G_PRIORITY_HIGH_IDLE, on_reload_idle, self, NULL);
}

static void
on_schedules_changed (PrsScheduler     *scheduler,
                      PrsSchedulesPage *self)
{
  reload_soon (self);
}

void
prs_schedules_page_set_service (PrsSchedulesPage *self,
                                PrsService       *service)
{
  g_return_if_fail (PRS_IS_SCHEDULES_PAGE (self));
  g_return_if_fail (PRS_IS_SERVICE (service));

  g_set_object (&self->service, service);
  if (prs_service_get_scheduler (service) != NULL)
    g_signal_connect_object (prs_service_get_scheduler (service), "changed", G_CALLBACK (on_schedules_changed),
                             self, 0);
}

static void
prs_schedules_page_dispose (GObject *object)
{
  PrsSchedulesPage *self = PRS_SCHEDULES_PAGE (object);
  GtkWidget *child;

  if (self->editor != NULL)
    {
      g_object_remove_weak_pointer (G_OBJECT (self->editor), (gpointer *) &self->editor);
      self->editor = NULL;
    }
  g_clear_handle_id (&self->reload_id, g_source_remove);
  gtk_widget_dispose_template (GTK_WIDGET (self), PRS_TYPE_SCHEDULES_PAGE);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  g_clear_pointer (&self->rows, g_ptr_array_unref);
  g_clear_pointer (&self->rows_by_id, g_hash_table_unref);
  g_clear_object (&self->service);

  G_OBJECT_CLASS (prs_schedules_page_parent_class)->dispose (object);
}

static void
prs_schedules_page_class_init (PrsSchedulesPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = prs_schedules_page_dispose;

  gtk_widget_class_set_template_from_resource (widget_class, RESOURCE_PREFIX "/ui/prs-schedules-page.ui");
  gtk_widget_class_bind_template_child (widget_class, PrsSchedulesPage, empty_row);
  gtk_widget_class_bind_template_child (widget_class, PrsSchedulesPage, schedules_group);

  gtk_widget_class_install_action (widget_class, "schedules.new", NULL, new_activated);
  gtk_widget_class_install_action (widget_class, "schedules.edit", "s", edit_activated);
  gtk_widget_class_install_action (widget_class, "schedules.run", "s", run_activated);
  gtk_widget_class_install_action (widget_class, "schedules.delete", "s", delete_activated);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
}

static void
prs_schedules_page_init (PrsSchedulesPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  self->rows = g_ptr_array_new ();
  self->rows_by_id = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
}
