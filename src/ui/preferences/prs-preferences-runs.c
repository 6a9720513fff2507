/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-preferences-runs.c: the Agent Runs page of Preferences: inference
 * settings, timeouts, and the approval rules (each shown with a Remove
 * button; Add opens the rule form as a subpage). */
#include "config.h"

#include <string.h>
#include <glib/gi18n.h>

#include "prs-json.h"
#include "prs-preferences-window-private.h"

static void
on_rule_remove_clicked (GtkButton            *button,
                        PrsPreferencesWindow *self)
{
  g_autoptr(GError) error = NULL;
  gint64 id = *(gint64 *) g_object_get_data (G_OBJECT (button), "rule-id");

  if (!prs_store_remove_approval_rule (prs_service_get_store (self->service), id, &error))
    prs_preferences_toast (self, error->message);
  prs_preferences_reload_rules (self);
}

void
prs_preferences_reload_rules (PrsPreferencesWindow *self)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonArray) rules = prs_store_list_approval_rules (prs_service_get_store (self->service), &error);

  for (guint i = 0; i < self->rule_rows->len; i++)
    adw_preferences_group_remove (self->rules_group, g_ptr_array_index (self->rule_rows, i));
  g_ptr_array_set_size (self->rule_rows, 0);

  if (rules == NULL)
    {
      prs_preferences_toast (self, error->message);
      return;
    }

  for (guint i = 0; i < json_array_get_length (rules); i++)
    {
      JsonObject *rule = json_array_get_object_element (rules, i);
      const char *tool = prs_json_object_get_string (rule, "tool");
      const char *agent = prs_json_object_get_string (rule, "agentId");
      const char *conversation = prs_json_object_get_string (rule, "conversationSlug");
      gboolean approve = g_strcmp0 (prs_json_object_get_string (rule, "action"), "approve") == 0;
      g_autofree char *title = NULL;
      g_autofree char *subtitle = NULL;
      gint64 *id = g_new (gint64, 1);
      GtkWidget *row, *button;

      *id = json_object_get_int_member_with_default (rule, "id", 0);
      title = approve
        ? g_strdup_printf (_("Approve %s"), tool != NULL ? tool : _("every tool"))
        : g_strdup_printf (_("Deny %s"), tool != NULL ? tool : _("every tool"));
      /* Translators: the agent and conversation a rule applies to */
      subtitle = g_strdup_printf (_("Agent: %s · Conversation: %s"), agent != NULL ? agent : _("any"),
                                  conversation != NULL ? conversation : _("any"));
      row = prs_preferences_action_row (title, subtitle);
      gtk_widget_set_name (row, "rule-row");
      button = prs_preferences_icon_button ("user-trash-symbolic", _("Remove Rule"), "rule-remove");
      g_object_set_data_full (G_OBJECT (button), "rule-id", id, g_free);
      g_signal_connect (button, "clicked", G_CALLBACK (on_rule_remove_clicked), self);
      adw_action_row_add_suffix (ADW_ACTION_ROW (row), button);
      adw_preferences_group_add (self->rules_group, row);
      g_ptr_array_add (self->rule_rows, row);
    }

  if (json_array_get_length (rules) == 0)
    {
      GtkWidget *row = prs_preferences_action_row (_("No rules"), _("Every tool call asks for approval."));

      adw_preferences_group_add (self->rules_group, row);
      g_ptr_array_add (self->rule_rows, row);
    }
}

/* The chosen value of a picker; NULL for "Any" (position 0). */
static const char *
picked (AdwComboRow *row)
{
  GStrv values = g_object_get_data (G_OBJECT (row), "values");
  guint i = adw_combo_row_get_selected (row);

  if (values == NULL || i == 0 || i == GTK_INVALID_LIST_POSITION || i > g_strv_length (values))
    return NULL;
  return values[i - 1];
}

static void
on_rule_save_clicked (PrsPreferencesWindow *self)
{
  g_autoptr(GError) error = NULL;
  const char *action = adw_combo_row_get_selected (self->rule_action) == 0 ? "approve" : "deny";

  if (!prs_store_add_approval_rule (prs_service_get_store (self->service), picked (self->rule_tool),
                                    picked (self->rule_agent), picked (self->rule_conversation), action,
                                    NULL, &error))
    {
      prs_preferences_toast (self, error->message);
      return;
    }
  prs_preferences_reload_rules (self);
  adw_preferences_window_close_subpage (ADW_PREFERENCES_WINDOW (self));
}

/* A picker: "Any" then @labels; @values (same order) are what is stored. */
static AdwComboRow *
picker_row (const char *title,
            const char *name,
            const char *any,
            GPtrArray  *labels,
            GPtrArray  *values)
{
  AdwComboRow *row = ADW_COMBO_ROW (adw_combo_row_new ());
  GtkStringList *list = gtk_string_list_new (NULL);

  if (any != NULL)
    gtk_string_list_append (list, any);
  for (guint i = 0; labels != NULL && i < labels->len; i++)
    gtk_string_list_append (list, g_ptr_array_index (labels, i));
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  adw_combo_row_set_model (row, G_LIST_MODEL (list));
  g_object_unref (list);
  gtk_widget_set_name (GTK_WIDGET (row), name);
  if (values != NULL)
    {
      GPtrArray *copy = g_ptr_array_new ();

      for (guint i = 0; i < values->len; i++)
        g_ptr_array_add (copy, g_strdup (g_ptr_array_index (values, i)));
      g_ptr_array_add (copy, NULL);
      g_object_set_data_full (G_OBJECT (row), "values", g_ptr_array_free (copy, FALSE), (GDestroyNotify) g_strfreev);
    }
  return row;
}

void
prs_preferences_on_add_rule_clicked (PrsPreferencesWindow *self)
{
  PrsStore *store = prs_service_get_store (self->service);
  g_autoptr(GPtrArray) tools = prs_store_list_tools (store, NULL);
  g_autoptr(GPtrArray) agents = prs_store_list_agents (store, NULL);
  g_autoptr(JsonArray) conversations = prs_store_list_conversations (store, NULL);
  g_autoptr(GPtrArray) labels = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) values = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) actions = g_ptr_array_new ();
  GtkWidget *group = adw_preferences_group_new ();

  adw_preferences_group_set_description (ADW_PREFERENCES_GROUP (group),
                                         _("The rule applies to calls that match every choice below."));

  for (guint i = 0; tools != NULL && i < tools->len; i++)
    {
      const PrsTool *tool = g_ptr_array_index (tools, i);

      g_ptr_array_add (labels, g_strdup (tool->name));
      g_ptr_array_add (values, g_strdup (tool->name));
    }
  self->rule_tool = picker_row (_("Tool"), "rule-tool", _("Any tool"), labels, values);
  g_ptr_array_set_size (labels, 0);
  g_ptr_array_set_size (values, 0);

  for (guint i = 0; agents != NULL && i < agents->len; i++)
    {
      const PrsAgent *agent = g_ptr_array_index (agents, i);

      g_ptr_array_add (labels, g_strdup (agent->name));
      g_ptr_array_add (values, g_strdup (agent->id));
    }
  self->rule_agent = picker_row (_("Agent"), "rule-agent", _("Any agent"), labels, values);
  g_ptr_array_set_size (labels, 0);
  g_ptr_array_set_size (values, 0);

  for (guint i = 0; conversations != NULL && i < json_array_get_length (conversations); i++)
    {
      JsonObject *conversation = json_array_get_object_element (conversations, i);

      g_ptr_array_add (labels, g_strdup (json_object_get_string_member_with_default (conversation, "title", "")));
      g_ptr_array_add (values, g_strdup (json_object_get_string_member_with_default (conversation, "slug", "")));
    }
  self->rule_conversation = picker_row (_("Conversation"), "rule-conversation", _("Any conversation"), labels, values);

  g_ptr_array_add (actions, _("Approve automatically"));
  g_ptr_array_add (actions, _("Deny automatically"));
  self->rule_action = picker_row (_("Action"), "rule-action", NULL, actions, NULL);

  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), GTK_WIDGET (self->rule_tool));
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), GTK_WIDGET (self->rule_agent));
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), GTK_WIDGET (self->rule_conversation));
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), GTK_WIDGET (self->rule_action));

  adw_preferences_window_present_subpage (ADW_PREFERENCES_WINDOW (self),
                                          prs_preferences_subpage_new (self, _("Add Rule"), _("_Add"), "rule-save",
                                                                       G_CALLBACK (on_rule_save_clicked), group));
}

void
prs_preferences_build_runs (PrsPreferencesWindow *self)
{
  adw_preferences_group_add (self->inference_group,
                             prs_preferences_spin_row (self, _("Maximum Output Tokens"), _("The most tokens a model may write in one reply"),
                                                       "max-output-tokens", 16, 1048576, 256, 0));
  adw_preferences_group_add (self->inference_group,
                             prs_preferences_spin_row (self, _("Temperature"), _("Lower is more predictable, higher more varied"),
                                                       "temperature", 0, 2, 0.1, 1));
  adw_preferences_group_add (self->inference_group,
                             prs_preferences_spin_row (self, _("History Depth"), _("At most this many earlier messages with in-app chat and inference; 0: the whole conversation"),
                                                       "history-depth", 0, 1000, 1, 0));
  adw_preferences_group_add (self->inference_group,
                             prs_preferences_spin_row (self, _("Maximum Tool Rounds"), _("Tool call rounds before a run stops"),
                                                       "max-tool-rounds", 1, 100, 1, 0));
  adw_preferences_group_add (self->timeouts_group,
                             prs_preferences_spin_row (self, _("AI Provider"), _("Seconds before failing over to the next provider"),
                                                       "inference-timeout", 5, 3600, 5, 0));
  adw_preferences_group_add (self->timeouts_group,
                             prs_preferences_spin_row (self, _("Tool Call"), _("Seconds to wait for a workflow; never retried"),
                                                       "tool-call-timeout", 5, 3600, 5, 0));
  adw_preferences_group_add (self->timeouts_group,
                             prs_preferences_spin_row (self, _("Callback"), _("Seconds to wait for a workflow that answered “Workflow was started”"),
                                                       "callback-timeout", 10, 86400, 10, 0));

  prs_preferences_reload_rules (self);
}
