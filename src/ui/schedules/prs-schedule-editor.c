/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-schedule-editor.c: edits one scheduled prompt. The widgets are read
 * into a PrsScheduleRow whenever one changes; the preview is what
 * prs_schedule_preview () says of that row, so it shows exactly what the
 * scheduler will do. "Modified" compares a fingerprint of the widgets with
 * the one taken when the schedule was loaded. */
#include "config.h"

#include <glib/gi18n.h>

#include "prs-dialogs.h"
#include "prs-json.h"
#include "prs-schedule-editor.h"

struct _PrsScheduleEditor
{
  AdwWindow            parent_instance;

  PrsService          *service;
  PrsScheduleRow      *stored;          /* NULL until a new schedule is saved */
  GPtrArray           *agent_ids;       /* char*, in agent_row's order */
  char                *missing_agent;   /* the stored agent id that no agent has, or NULL */
  char                *initial_print;
  char                *problem;
  GPtrArray           *preview_rows;    /* AdwActionRow*, PRS_SCHEDULE_EDITOR_PREVIEW of them */
  GtkWidget           *preview_message;
  GtkToggleButton     *day_buttons[7];
  gboolean             loading;
  gboolean             close_confirmed;

  AdwComboRow         *agent_row;
  AdwEntryRow         *at_row;
  GtkTextView         *context_view;
  GtkLabel            *context_message;
  AdwEntryRow         *conversation_row;
  AdwActionRow        *day_row;
  GtkSpinButton       *day_spin;
  AdwActionRow        *days_row;
  GtkBox              *days_box;
  AdwActionRow        *every_row;
  GtkSpinButton       *every_spin;
  GtkDropDown         *every_unit;
  GtkSwitch           *enabled_switch;
  AdwComboRow         *kind_row;
  AdwComboRow         *missed_row;
  AdwEntryRow         *name_row;
  AdwPreferencesGroup *preview_group;
  GtkTextView         *prompt_view;
  GtkButton           *save_button;
  AdwEntryRow         *time_row;
  AdwToastOverlay     *toast_overlay;
};

G_DEFINE_FINAL_TYPE (PrsScheduleEditor, prs_schedule_editor, ADW_TYPE_WINDOW)

enum {
  SAVED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static PrsClock *
editor_clock (PrsScheduleEditor *self)
{
  return prs_scheduler_get_clock (prs_service_get_scheduler (self->service));
}

static char *
buffer_text (GtkTextView *view)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (view);
  GtkTextIter start, end;

  gtk_text_buffer_get_bounds (buffer, &start, &end);
  return gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
}

/* ---- the widgets read into a schedule ---- */

static guint
chosen_days (PrsScheduleEditor *self)
{
  guint weekdays = 0;

  for (guint d = 0; d < 7; d++)
    if (gtk_toggle_button_get_active (self->day_buttons[d]))
      weekdays |= 1u << d;
  return weekdays;
}

/* The recurrence the "When" rows say; FALSE with a sentence when they do
 * not say one yet */
static gboolean
read_recurrence (PrsScheduleEditor  *self,
                 PrsRecurrence      *out,
                 GError            **error)
{
  const char *time = gtk_editable_get_text (GTK_EDITABLE (self->time_row));

  memset (out, 0, sizeof *out);
  out->kind = (PrsRecurrenceKind) adw_combo_row_get_selected (self->kind_row);
  switch (out->kind)
    {
    case PRS_RECURRENCE_ONCE:
      {
        g_autofree char *at = g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->at_row))));

        /* "2026-03-01 09:00" as people write it */
        if (strlen (at) > 10 && at[10] == ' ')
          at[10] = 'T';
        return prs_recurrence_parse_at (at, prs_clock_get_timezone (editor_clock (self)), &out->at, error);
      }
    case PRS_RECURRENCE_EVERY:
      out->minutes = (guint) gtk_spin_button_get_value_as_int (self->every_spin) *
                     (gtk_drop_down_get_selected (self->every_unit) == 1 ? 60 : 1);
      return prs_recurrence_check (out, error);
    case PRS_RECURRENCE_DAILY:
      out->weekdays = chosen_days (self);
      return prs_recurrence_parse_time (time, &out->hour, &out->minute, error) && prs_recurrence_check (out, error);
    case PRS_RECURRENCE_MONTHLY:
    default:
      out->kind = PRS_RECURRENCE_MONTHLY;
      out->day = (guint) gtk_spin_button_get_value_as_int (self->day_spin);
      return prs_recurrence_parse_time (time, &out->hour, &out->minute, error) && prs_recurrence_check (out, error);
    }
}

/* A row to save: every field as the widgets say (the scheduler checks it) */
static PrsScheduleRow *
read_row (PrsScheduleEditor *self,
          PrsRecurrence     *recurrence)
{
  PrsScheduleRow *row = self->stored != NULL ? prs_schedule_row_copy (self->stored) : g_new0 (PrsScheduleRow, 1);
  guint agent = adw_combo_row_get_selected (self->agent_row);

  g_free (row->name);
  row->name = g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->name_row)));
  g_free (row->conversation_slug);
  row->conversation_slug = g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->conversation_row)));
  g_free (row->agent_id);
  row->agent_id = agent < self->agent_ids->len ? g_strdup (g_ptr_array_index (self->agent_ids, agent)) : NULL;
  g_free (row->prompt);
  row->prompt = buffer_text (self->prompt_view);
  g_free (row->context_json);
  row->context_json = buffer_text (self->context_view);
  g_free (row->recurrence_json);
  row->recurrence_json = prs_recurrence_to_json (recurrence);
  row->enabled = gtk_switch_get_active (self->enabled_switch);
  g_free (row->missed);
  row->missed = g_strdup (adw_combo_row_get_selected (self->missed_row) == 1 ? PRS_SCHEDULE_MISSED_SKIP
                                                                            : PRS_SCHEDULE_MISSED_RUN);
  return row;
}

static char *
fingerprint (PrsScheduleEditor *self)
{
  g_autofree char *prompt = buffer_text (self->prompt_view);
  g_autofree char *context = buffer_text (self->context_view);

  return g_strdup_printf ("%s\x1f%s\x1f%u\x1f%s\x1f%s\x1f%u\x1f%s\x1f%d\x1f%u\x1f%s\x1f%u\x1f%d\x1f%u\x1f%d",
                          gtk_editable_get_text (GTK_EDITABLE (self->name_row)),
                          gtk_editable_get_text (GTK_EDITABLE (self->conversation_row)),
                          adw_combo_row_get_selected (self->agent_row), prompt, context,
                          adw_combo_row_get_selected (self->kind_row),
                          gtk_editable_get_text (GTK_EDITABLE (self->at_row)),
                          gtk_spin_button_get_value_as_int (self->every_spin),
                          gtk_drop_down_get_selected (self->every_unit),
                          gtk_editable_get_text (GTK_EDITABLE (self->time_row)), chosen_days (self),
                          gtk_spin_button_get_value_as_int (self->day_spin),
                          adw_combo_row_get_selected (self->missed_row), gtk_switch_get_active (self->enabled_switch));
}

gboolean
prs_schedule_editor_get_modified (PrsScheduleEditor *self)
{
  g_autofree char *print = NULL;

  g_return_val_if_fail (PRS_IS_SCHEDULE_EDITOR (self), FALSE);

  print = fingerprint (self);
  return g_strcmp0 (print, self->initial_print) != 0;
}

const char *
prs_schedule_editor_get_problem (PrsScheduleEditor *self)
{
  g_return_val_if_fail (PRS_IS_SCHEDULE_EDITOR (self), NULL);
  return self->problem;
}

/* ---- what shows ---- */

static void
show_kind_rows (PrsScheduleEditor *self)
{
  PrsRecurrenceKind kind = (PrsRecurrenceKind) adw_combo_row_get_selected (self->kind_row);

  gtk_widget_set_visible (GTK_WIDGET (self->at_row), kind == PRS_RECURRENCE_ONCE);
  gtk_widget_set_visible (GTK_WIDGET (self->every_row), kind == PRS_RECURRENCE_EVERY);
  gtk_widget_set_visible (GTK_WIDGET (self->time_row), kind == PRS_RECURRENCE_DAILY || kind == PRS_RECURRENCE_MONTHLY);
  gtk_widget_set_visible (GTK_WIDGET (self->days_row), kind == PRS_RECURRENCE_DAILY);
  gtk_widget_set_visible (GTK_WIDGET (self->day_row), kind == PRS_RECURRENCE_MONTHLY);
}

static void
show_preview (PrsScheduleEditor   *self,
              const PrsRecurrence *recurrence,
              const char          *message)
{
  gint64 times[PRS_SCHEDULE_EDITOR_PREVIEW];
  gint64 now = prs_clock_get_now_seconds (editor_clock (self));
  GTimeZone *tz = prs_clock_get_timezone (editor_clock (self));
  g_autofree char *recurrence_json = recurrence != NULL ? prs_recurrence_to_json (recurrence) : NULL;
  gint64 anchor = now;
  guint found = 0;

  /* An unchanged "every" keeps counting from when it was saved */
  if (self->stored != NULL && g_strcmp0 (recurrence_json, self->stored->recurrence_json) == 0)
    anchor = self->stored->base_at;
  if (recurrence != NULL && message == NULL)
    found = prs_schedule_preview (recurrence, anchor, now, tz, times, PRS_SCHEDULE_EDITOR_PREVIEW);
  if (recurrence != NULL && message == NULL && found == 0)
    message = _("The time to run has passed; choose a time to come.");

  for (guint i = 0; i < self->preview_rows->len; i++)
    {
      GtkWidget *row = g_ptr_array_index (self->preview_rows, i);

      gtk_widget_set_visible (row, i < found);
      if (i < found)
        {
          g_autofree char *when = prs_schedule_format_time (times[i], tz);

          adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), when);
        }
    }
  gtk_widget_set_visible (self->preview_message, message != NULL);
  if (message != NULL)
    adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->preview_message), message);
  adw_preferences_group_set_description (self->preview_group,
                                         gtk_switch_get_active (self->enabled_switch) ? NULL
                                         : _("It is off: these are the times it would run."));
}

/* Says what is missing, the Request Context's error under it, and the
 * preview */
static void
update_state (PrsScheduleEditor *self)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) context_error = NULL;
  g_autofree char *context = buffer_text (self->context_view);
  g_autofree char *compact = NULL;
  g_autofree char *name = g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->name_row))));
  g_autofree char *slug = g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->conversation_row))));
  g_autofree char *prompt = g_strstrip (buffer_text (self->prompt_view));
  PrsRecurrence recurrence;
  gboolean valid;
  g_autofree char *agent_problem = NULL;
  guint agent = adw_combo_row_get_selected (self->agent_row);

  if (self->loading)
    return;
  /* Said where the agent is chosen, not only when Save is refused */
  if (self->missing_agent != NULL && agent < self->agent_ids->len &&
      g_str_equal (g_ptr_array_index (self->agent_ids, agent), self->missing_agent))
    /* Translators: %s is the id of an agent that was deleted */
    agent_problem = g_strdup_printf (_("The agent “%s” no longer exists. Choose another agent."), self->missing_agent);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (self->agent_row), agent_problem != NULL ? agent_problem : "");
  if (agent_problem != NULL)
    gtk_widget_add_css_class (GTK_WIDGET (self->agent_row), "error");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (self->agent_row), "error");
  show_kind_rows (self);
  valid = read_recurrence (self, &recurrence, &error);
  show_preview (self, valid ? &recurrence : NULL, valid ? NULL : error->message);

  prs_schedule_check_context (context, &compact, &context_error);
  gtk_widget_set_visible (GTK_WIDGET (self->context_message), context_error != NULL);
  if (context_error != NULL)
    gtk_label_set_text (self->context_message, context_error->message);

  g_clear_pointer (&self->problem, g_free);
  if (name[0] == '\0')
    self->problem = g_strdup (_("The schedule needs a name."));
  else if (slug[0] == '\0')
    self->problem = g_strdup (_("The schedule needs a conversation."));
  else if (agent_problem != NULL)
    self->problem = g_steal_pointer (&agent_problem);
  else if (prompt[0] == '\0')
    self->problem = g_strdup (_("The schedule needs a prompt."));
  else if (!valid)
    self->problem = g_strdup (error->message);
  else if (context_error != NULL)
    self->problem = g_strdup (context_error->message);
  /* A stored schedule saves only what changed */
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "editor.save",
                                 self->problem == NULL && (self->stored == NULL || prs_schedule_editor_get_modified (self)));
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->save_button), self->problem);
}

static void
on_changed (PrsScheduleEditor *self)
{
  update_state (self);
}

/* ---- loading ---- */

static void
load_agents (PrsScheduleEditor *self,
             const char        *selected)
{
  g_autoptr(GPtrArray) agents = prs_store_list_agents (prs_service_get_store (self->service), NULL);
  g_autoptr(GtkStringList) names = gtk_string_list_new (NULL);
  guint position = 0;
  gboolean found = FALSE;

  for (guint i = 0; agents != NULL && i < agents->len; i++)
    {
      const PrsAgent *agent = g_ptr_array_index (agents, i);

      gtk_string_list_append (names, agent->name);
      g_ptr_array_add (self->agent_ids, g_strdup (agent->id));
      if (g_strcmp0 (agent->id, selected) == 0)
        {
          position = i;
          found = TRUE;
        }
    }
  /* An agent that is gone is shown as it is, so that saving says why */
  if (!found && selected != NULL)
    {
      /* Translators: %s is the id of an agent that was deleted */
      g_autofree char *missing = g_strdup_printf (_("%s (missing)"), selected);

      gtk_string_list_append (names, missing);
      g_ptr_array_add (self->agent_ids, g_strdup (selected));
      g_free (self->missing_agent);
      self->missing_agent = g_strdup (selected);
      position = self->agent_ids->len - 1;
    }
  adw_combo_row_set_model (self->agent_row, G_LIST_MODEL (names));
  adw_combo_row_set_selected (self->agent_row, position);
}

static void
load_recurrence (PrsScheduleEditor   *self,
                 const PrsRecurrence *recurrence)
{
  GTimeZone *tz = prs_clock_get_timezone (editor_clock (self));
  g_autoptr(GDateTime) at = NULL;
  g_autoptr(GDateTime) local = NULL;
  g_autofree char *at_text = NULL;
  g_autofree char *time = g_strdup_printf ("%02u:%02u", recurrence->hour, recurrence->minute);

  adw_combo_row_set_selected (self->kind_row, recurrence->kind);
  if (recurrence->kind == PRS_RECURRENCE_ONCE)
    at = g_date_time_new_from_unix_utc (recurrence->at);
  else
    {
      /* A new "once" starts tomorrow at nine */
      g_autoptr(GDateTime) now = g_date_time_new_from_unix_utc (prs_clock_get_now_seconds (editor_clock (self)));
      g_autoptr(GDateTime) today = g_date_time_to_timezone (now, tz);
      g_autoptr(GDateTime) tomorrow = g_date_time_add_days (today, 1);

      at = g_date_time_new (tz, g_date_time_get_year (tomorrow), g_date_time_get_month (tomorrow),
                            g_date_time_get_day_of_month (tomorrow), 9, 0, 0);
    }
  local = g_date_time_to_timezone (at, tz);
  at_text = g_date_time_format (local, "%Y-%m-%d %H:%M");
  gtk_editable_set_text (GTK_EDITABLE (self->at_row), at_text);
  if (recurrence->kind == PRS_RECURRENCE_EVERY)
    {
      gboolean hours = recurrence->minutes % 60 == 0;

      gtk_drop_down_set_selected (self->every_unit, hours ? 1 : 0);
      gtk_spin_button_set_value (self->every_spin, hours ? recurrence->minutes / 60 : recurrence->minutes);
    }
  gtk_editable_set_text (GTK_EDITABLE (self->time_row), time);
  for (guint d = 0; d < 7; d++)
    gtk_toggle_button_set_active (self->day_buttons[d], (recurrence->weekdays & (1u << d)) != 0);
  if (recurrence->kind == PRS_RECURRENCE_MONTHLY)
    gtk_spin_button_set_value (self->day_spin, recurrence->day);
}

static void
load (PrsScheduleEditor *self,
      const char        *slug,
      const char        *agent_id)
{
  const PrsScheduleRow *row = self->stored;
  PrsRecurrence recurrence = { .kind = PRS_RECURRENCE_DAILY, .hour = 8, .weekdays = PRS_WEEKDAYS_WORKDAYS };

  self->loading = TRUE;
  if (row != NULL)
    {
      g_autoptr(JsonNode) context = NULL;
      g_autofree char *pretty = NULL;

      prs_recurrence_parse (row->recurrence_json, &recurrence, NULL);
      gtk_editable_set_text (GTK_EDITABLE (self->name_row), row->name);
      slug = row->conversation_slug;
      agent_id = row->agent_id;
      gtk_text_buffer_set_text (gtk_text_view_get_buffer (self->prompt_view), row->prompt, -1);
      if (row->context_json != NULL &&
          (context = prs_json_parse_bounded (row->context_json, strlen (row->context_json),
                                             PRS_JSON_DEFAULT_MAX_DEPTH, NULL)) != NULL)
        pretty = prs_json_to_string (context, TRUE);
      gtk_text_buffer_set_text (gtk_text_view_get_buffer (self->context_view), pretty != NULL ? pretty : "", -1);
      gtk_switch_set_active (self->enabled_switch, row->enabled);
      adw_combo_row_set_selected (self->missed_row, g_strcmp0 (row->missed, PRS_SCHEDULE_MISSED_SKIP) == 0);
    }
  gtk_editable_set_text (GTK_EDITABLE (self->conversation_row), slug != NULL ? slug : "");
  load_agents (self, agent_id != NULL ? agent_id : PRS_AGENT_DEFAULT_ID);
  load_recurrence (self, &recurrence);
  self->loading = FALSE;

  g_free (self->initial_print);
  self->initial_print = fingerprint (self);
  update_state (self);
}

PrsScheduleEditor *
prs_schedule_editor_new (GtkWindow   *parent,
                         PrsService  *service,
                         const char  *schedule_id,
                         const char  *slug,
                         const char  *agent_id,
                         GError     **error)
{
  PrsScheduleEditor *self;
  PrsScheduleRow *stored = NULL;

  g_return_val_if_fail (parent == NULL || GTK_IS_WINDOW (parent), NULL);
  g_return_val_if_fail (PRS_IS_SERVICE (service) && prs_service_get_scheduler (service) != NULL, NULL);

  if (schedule_id != NULL)
    {
      g_autoptr(GError) local_error = NULL;

      stored = prs_store_lookup_schedule (prs_service_get_store (service), schedule_id, &local_error);
      if (stored == NULL)
        {
          if (local_error != NULL)
            g_propagate_error (error, g_steal_pointer (&local_error));
          else
            g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, _("There is no schedule “%s” any more."), schedule_id);
          return NULL;
        }
    }

  /* Owned by GTK's list of toplevels, like any window */
  self = g_object_new (PRS_TYPE_SCHEDULE_EDITOR, "transient-for", parent, NULL);
  self->service = g_object_ref (service);
  self->stored = stored;
  load (self, slug, agent_id);
  gtk_window_set_title (GTK_WINDOW (self), stored != NULL ? _("Edit Schedule") : _("New Schedule"));
  gtk_widget_grab_focus (GTK_WIDGET (self->name_row));
  return self;
}

GStrv
prs_schedule_editor_dup_preview (PrsScheduleEditor *self)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  g_return_val_if_fail (PRS_IS_SCHEDULE_EDITOR (self), NULL);

  for (guint i = 0; i < self->preview_rows->len; i++)
    {
      GtkWidget *row = g_ptr_array_index (self->preview_rows, i);

      if (gtk_widget_get_visible (row))
        g_strv_builder_add (builder, adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row)));
    }
  return g_strv_builder_end (builder);
}

/* ---- saving and closing ---- */

gboolean
prs_schedule_editor_save (PrsScheduleEditor  *self,
                          GError            **error)
{
  g_autoptr(PrsScheduleRow) row = NULL;
  g_autofree char *id = NULL;
  PrsRecurrence recurrence;

  g_return_val_if_fail (PRS_IS_SCHEDULE_EDITOR (self), FALSE);

  update_state (self);
  if (self->problem != NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, self->problem);
      return FALSE;
    }
  if (!read_recurrence (self, &recurrence, error))
    return FALSE;
  row = read_row (self, &recurrence);
  if (!prs_scheduler_save (prs_service_get_scheduler (self->service), row, &id, error))
    return FALSE;

  g_clear_pointer (&self->stored, prs_schedule_row_free);
  self->stored = prs_store_lookup_schedule (prs_service_get_store (self->service), id, NULL);
  g_free (self->initial_print);
  self->initial_print = fingerprint (self);
  update_state (self);
  g_signal_emit (self, signals[SAVED], 0, id);
  return TRUE;
}

static void
save_activated (GtkWidget  *widget,
                const char *action_name,
                GVariant   *parameter)
{
  PrsScheduleEditor *self = PRS_SCHEDULE_EDITOR (widget);
  g_autoptr(GError) error = NULL;

  if (!prs_schedule_editor_save (self, &error))
    {
      adw_toast_overlay_add_toast (self->toast_overlay, prs_dialogs_new_toast (error->message));
      return;
    }
  self->close_confirmed = TRUE;
  gtk_window_close (GTK_WINDOW (self));
}

static void
cancel_activated (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *parameter)
{
  gtk_window_close (GTK_WINDOW (widget));
}

static gboolean
save_from_dialog (GtkWindow  *window,
                  GError    **error)
{
  return prs_schedule_editor_save (PRS_SCHEDULE_EDITOR (window), error);
}

static gboolean
prs_schedule_editor_close_request (GtkWindow *window)
{
  PrsScheduleEditor *self = PRS_SCHEDULE_EDITOR (window);

  if (self->close_confirmed || !prs_schedule_editor_get_modified (self))
    return GTK_WINDOW_CLASS (prs_schedule_editor_parent_class)->close_request (window);

  prs_dialogs_ask_discard (window,
                           self->stored == NULL ? _("The new schedule is not saved yet.")
                                                : _("The changes to this schedule are not saved."),
                           self->problem == NULL ? save_from_dialog : NULL, self->toast_overlay);
  return TRUE;
}

/* ---- accessors ---- */

GtkEditable *
prs_schedule_editor_get_name_entry (PrsScheduleEditor *self)
{
  g_return_val_if_fail (PRS_IS_SCHEDULE_EDITOR (self), NULL);
  return GTK_EDITABLE (self->name_row);
}

GtkEditable *
prs_schedule_editor_get_conversation_entry (PrsScheduleEditor *self)
{
  g_return_val_if_fail (PRS_IS_SCHEDULE_EDITOR (self), NULL);
  return GTK_EDITABLE (self->conversation_row);
}

GtkEditable *
prs_schedule_editor_get_time_entry (PrsScheduleEditor *self)
{
  g_return_val_if_fail (PRS_IS_SCHEDULE_EDITOR (self), NULL);
  return GTK_EDITABLE (self->time_row);
}

GtkEditable *
prs_schedule_editor_get_at_entry (PrsScheduleEditor *self)
{
  g_return_val_if_fail (PRS_IS_SCHEDULE_EDITOR (self), NULL);
  return GTK_EDITABLE (self->at_row);
}

GtkTextBuffer *
prs_schedule_editor_get_prompt_buffer (PrsScheduleEditor *self)
{
  g_return_val_if_fail (PRS_IS_SCHEDULE_EDITOR (self), NULL);
  return gtk_text_view_get_buffer (self->prompt_view);
}

GtkTextBuffer *
prs_schedule_editor_get_context_buffer (PrsScheduleEditor *self)
{
  g_return_val_if_fail (PRS_IS_SCHEDULE_EDITOR (self), NULL);
  return gtk_text_view_get_buffer (self->context_view);
}

AdwComboRow *
prs_schedule_editor_get_agent_row (PrsScheduleEditor *self)
{
  g_return_val_if_fail (PRS_IS_SCHEDULE_EDITOR (self), NULL);
  return self->agent_row;
}

AdwComboRow *
prs_schedule_editor_get_kind_row (PrsScheduleEditor *self)
{
  g_return_val_if_fail (PRS_IS_SCHEDULE_EDITOR (self), NULL);
  return self->kind_row;
}

GtkSpinButton *
prs_schedule_editor_get_every_spin (PrsScheduleEditor *self)
{
  g_return_val_if_fail (PRS_IS_SCHEDULE_EDITOR (self), NULL);
  return self->every_spin;
}

GtkToggleButton *
prs_schedule_editor_get_day_button (PrsScheduleEditor *self,
                                    guint              weekday)
{
  g_return_val_if_fail (PRS_IS_SCHEDULE_EDITOR (self), NULL);
  g_return_val_if_fail (weekday < 7, NULL);
  return self->day_buttons[weekday];
}

/* ---- life ---- */

/* Seven toggles named in the locale's words (2024-01-01 was a Monday) */
static void
build_day_buttons (PrsScheduleEditor *self)
{
  g_autoptr(GDateTime) monday = g_date_time_new_utc (2024, 1, 1, 12, 0, 0);

  for (guint d = 0; d < 7; d++)
    {
      g_autoptr(GDateTime) day = g_date_time_add_days (monday, (int) d);
      g_autofree char *short_name = g_date_time_format (day, "%a");
      g_autofree char *long_name = g_date_time_format (day, "%A");
      GtkWidget *button = gtk_toggle_button_new_with_label (short_name);

      gtk_widget_set_tooltip_text (button, long_name);
      gtk_accessible_update_property (GTK_ACCESSIBLE (button), GTK_ACCESSIBLE_PROPERTY_LABEL, long_name, -1);
      gtk_widget_add_css_class (button, "circular");
      gtk_widget_add_css_class (button, "day-toggle");
      gtk_box_append (self->days_box, button);
      self->day_buttons[d] = GTK_TOGGLE_BUTTON (button);
      g_signal_connect_swapped (button, "toggled", G_CALLBACK (on_changed), self);
    }
}

static void
build_preview_rows (PrsScheduleEditor *self)
{
  for (guint i = 0; i < PRS_SCHEDULE_EDITOR_PREVIEW; i++)
    {
      GtkWidget *row = adw_action_row_new ();

      adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
      adw_action_row_set_icon_name (ADW_ACTION_ROW (row), "alarm-symbolic");
      adw_preferences_group_add (self->preview_group, row);
      g_ptr_array_add (self->preview_rows, row);
    }
  self->preview_message = adw_action_row_new ();
  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (self->preview_message), FALSE);
  adw_action_row_set_icon_name (ADW_ACTION_ROW (self->preview_message), "dialog-warning-symbolic");
  adw_action_row_set_title_lines (ADW_ACTION_ROW (self->preview_message), 3);
  adw_preferences_group_add (self->preview_group, self->preview_message);
}

static void
prs_schedule_editor_dispose (GObject *object)
{
  PrsScheduleEditor *self = PRS_SCHEDULE_EDITOR (object);

  gtk_widget_dispose_template (GTK_WIDGET (self), PRS_TYPE_SCHEDULE_EDITOR);
  g_clear_object (&self->service);

  G_OBJECT_CLASS (prs_schedule_editor_parent_class)->dispose (object);
}

static void
prs_schedule_editor_finalize (GObject *object)
{
  PrsScheduleEditor *self = PRS_SCHEDULE_EDITOR (object);

  g_clear_pointer (&self->stored, prs_schedule_row_free);
  g_clear_pointer (&self->agent_ids, g_ptr_array_unref);
  g_clear_pointer (&self->preview_rows, g_ptr_array_unref);
  g_free (self->initial_print);
  g_free (self->problem);
  g_free (self->missing_agent);

  G_OBJECT_CLASS (prs_schedule_editor_parent_class)->finalize (object);
}

static void
prs_schedule_editor_class_init (PrsScheduleEditorClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GtkWindowClass *window_class = GTK_WINDOW_CLASS (klass);

  object_class->dispose = prs_schedule_editor_dispose;
  object_class->finalize = prs_schedule_editor_finalize;
  window_class->close_request = prs_schedule_editor_close_request;

  /**
   * PrsScheduleEditor::saved:
   * @id: the schedule's id
   */
  signals[SAVED] =
    g_signal_new ("saved", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);

  gtk_widget_class_set_template_from_resource (widget_class, RESOURCE_PREFIX "/ui/prs-schedule-editor.ui");
  gtk_widget_class_bind_template_child (widget_class, PrsScheduleEditor, agent_row);
  gtk_widget_class_bind_template_child (widget_class, PrsScheduleEditor, at_row);
  gtk_widget_class_bind_template_child (widget_class, PrsScheduleEditor, context_message);
  gtk_widget_class_bind_template_child (widget_class, PrsScheduleEditor, context_view);
  gtk_widget_class_bind_template_child (widget_class, PrsScheduleEditor, conversation_row);
  gtk_widget_class_bind_template_child (widget_class, PrsScheduleEditor, day_row);
  gtk_widget_class_bind_template_child (widget_class, PrsScheduleEditor, day_spin);
  gtk_widget_class_bind_template_child (widget_class, PrsScheduleEditor, days_box);
  gtk_widget_class_bind_template_child (widget_class, PrsScheduleEditor, days_row);
  gtk_widget_class_bind_template_child (widget_class, PrsScheduleEditor, enabled_switch);
  gtk_widget_class_bind_template_child (widget_class, PrsScheduleEditor, every_row);
  gtk_widget_class_bind_template_child (widget_class, PrsScheduleEditor, every_spin);
  gtk_widget_class_bind_template_child (widget_class, PrsScheduleEditor, every_unit);
  gtk_widget_class_bind_template_child (widget_class, PrsScheduleEditor, kind_row);
  gtk_widget_class_bind_template_child (widget_class, PrsScheduleEditor, missed_row);
  gtk_widget_class_bind_template_child (widget_class, PrsScheduleEditor, name_row);
  gtk_widget_class_bind_template_child (widget_class, PrsScheduleEditor, preview_group);
  gtk_widget_class_bind_template_child (widget_class, PrsScheduleEditor, prompt_view);
  gtk_widget_class_bind_template_child (widget_class, PrsScheduleEditor, save_button);
  gtk_widget_class_bind_template_child (widget_class, PrsScheduleEditor, time_row);
  gtk_widget_class_bind_template_child (widget_class, PrsScheduleEditor, toast_overlay);

  gtk_widget_class_install_action (widget_class, "editor.save", NULL, save_activated);
  gtk_widget_class_install_action (widget_class, "editor.cancel", NULL, cancel_activated);

  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_s, GDK_CONTROL_MASK, "editor.save", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "editor.cancel", NULL);
}

static void
prs_schedule_editor_init (PrsScheduleEditor *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  self->agent_ids = g_ptr_array_new_with_free_func (g_free);
  self->preview_rows = g_ptr_array_new ();
  build_day_buttons (self);
  build_preview_rows (self);

  g_signal_connect_swapped (self->name_row, "changed", G_CALLBACK (on_changed), self);
  g_signal_connect_swapped (self->conversation_row, "changed", G_CALLBACK (on_changed), self);
  g_signal_connect_swapped (self->at_row, "changed", G_CALLBACK (on_changed), self);
  g_signal_connect_swapped (self->time_row, "changed", G_CALLBACK (on_changed), self);
  g_signal_connect_swapped (gtk_text_view_get_buffer (self->prompt_view), "changed", G_CALLBACK (on_changed), self);
  g_signal_connect_swapped (gtk_text_view_get_buffer (self->context_view), "changed", G_CALLBACK (on_changed), self);
  g_signal_connect_swapped (self->kind_row, "notify::selected", G_CALLBACK (on_changed), self);
  g_signal_connect_swapped (self->agent_row, "notify::selected", G_CALLBACK (on_changed), self);
  g_signal_connect_swapped (self->missed_row, "notify::selected", G_CALLBACK (on_changed), self);
  g_signal_connect_swapped (self->every_unit, "notify::selected", G_CALLBACK (on_changed), self);
  g_signal_connect_swapped (self->every_spin, "value-changed", G_CALLBACK (on_changed), self);
  g_signal_connect_swapped (self->day_spin, "value-changed", G_CALLBACK (on_changed), self);
  g_signal_connect_swapped (self->enabled_switch, "notify::active", G_CALLBACK (on_changed), self);
}
