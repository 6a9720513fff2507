/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-agents-page.c: the agents, one row each (name, description, id); the
 * row opens the editor, its menu duplicates, exports or deletes after
 * asking. The default agent's menu has no Delete. Everything goes through
 * the store; the page re-reads it after each change. */
#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#include "prs-agent-file.h"
#include "prs-agents-page.h"
#include "prs-control-chars.h"
#include "prs-dialogs.h"
#include "prs-error.h"
#include "prs-heading.h"
#include "prs-store-schedules.h"

struct _PrsAgentsPage
{
  GtkWidget            parent_instance;

  PrsService          *service;
  GPtrArray           *rows;          /* rows added to agents_group */
  GHashTable          *rows_by_id;    /* id → row (unowned) */
  PrsAgentEditor      *editor;        /* weak */

  AdwPreferencesGroup *agents_group;
  GtkWidget           *heading;
  GtkWidget           *title_label;
};

/* The description keeps at least this width beside the buttons; below
 * it, at a phone's width, the buttons go under it */
#define HEADING_TEXT_WIDTH 240

G_DEFINE_FINAL_TYPE (PrsAgentsPage, prs_agents_page, GTK_TYPE_WIDGET)

static PrsStore *
store (PrsAgentsPage *self)
{
  return prs_service_get_store (self->service);
}

static void
toast (PrsAgentsPage *self,
       const char    *text)
{
  gtk_widget_activate_action (GTK_WIDGET (self), "win.show-toast", "s", text);
}

static GtkWindow *
parent_window (PrsAgentsPage *self)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));

  return GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL;
}

static void
show_error_dialog (PrsAgentsPage *self,
                   const char    *heading,
                   const char    *body)
{
  GtkWidget *dialog = adw_message_dialog_new (parent_window (self), heading, body);

  adw_message_dialog_add_response (ADW_MESSAGE_DIALOG (dialog), "close", _("_Close"));
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "close");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "close");
  gtk_window_present (GTK_WINDOW (dialog));
}

/* ---- rows ---- */

/* A name longer than this may not fit two lines of a narrow window: the
 * row's tooltip shows it whole. */
#define AGENT_NAME_TOOLTIP_CHARS 40
/* The name and description keep at least this width beside the id; below
 * it, at a phone's width, the id goes under them, as a line of its own */
#define ROW_TEXT_WIDTH 200

static GtkWidget *
row_label (const char *text,
           const char *css_class)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_xalign (GTK_LABEL (label), 0.0);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  /* At most two lines, ending in "…"; a name that long is read in full
   * in the tooltip (and in the editor) */
  gtk_label_set_lines (GTK_LABEL (label), 2);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
  gtk_widget_add_css_class (label, css_class);
  return label;
}

/* The agent's id, in the words of workflows; cut in the middle when the
 * row is narrower than it, whole in its tooltip and for assistive
 * technology */
static GtkWidget *
id_label_new (const char *agent_id)
{
  GtkWidget *label = gtk_label_new (agent_id);
  g_autofree char *tooltip = NULL;

  gtk_label_set_xalign (GTK_LABEL (label), 0.0);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_MIDDLE);
  gtk_widget_set_valign (label, GTK_ALIGN_CENTER);
  gtk_widget_add_css_class (label, "agent-id");
  gtk_widget_add_css_class (label, "caption");
  gtk_widget_add_css_class (label, "dim-label");
  /* Translators: %s is an agent's id, such as executive-assistant-email-agent */
  tooltip = g_strdup_printf (_("%s: the agent’s id, as workflows name it (agentId)"), agent_id);
  gtk_widget_set_tooltip_text (label, tooltip);
  gtk_accessible_update_property (GTK_ACCESSIBLE (label), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, tooltip, -1);
  return label;
}

/* ⋮: Duplicate, Export… and, for any agent but the default one, Delete…
 * (confirmed: delete_activated), as GNOME's lists keep a destructive
 * action out of a row's line of buttons */
static GtkWidget *
menu_button_new (const char *agent_id,
                 const char *name)
{
  GtkWidget *button = gtk_menu_button_new ();
  g_autoptr(GMenu) menu = g_menu_new ();
  g_autoptr(GMenu) danger = g_menu_new ();
  g_autoptr(GMenuItem) item = NULL;
  g_autofree char *label = NULL;

  item = g_menu_item_new (_("_Duplicate"), NULL);
  g_menu_item_set_action_and_target (item, "agents.duplicate", "s", agent_id);
  g_menu_append_item (menu, item);
  g_clear_object (&item);
  item = g_menu_item_new (_("_Export…"), NULL);
  g_menu_item_set_action_and_target (item, "agents.export", "s", agent_id);
  g_menu_append_item (menu, item);
  g_clear_object (&item);
  if (g_strcmp0 (agent_id, PRS_AGENT_DEFAULT_ID) != 0)
    {
      item = g_menu_item_new (_("_Delete…"), NULL);
      g_menu_item_set_action_and_target (item, "agents.delete", "s", agent_id);
      g_menu_append_item (danger, item);
      g_menu_append_section (menu, NULL, G_MENU_MODEL (danger));
    }
  gtk_menu_button_set_menu_model (GTK_MENU_BUTTON (button), G_MENU_MODEL (menu));
  gtk_menu_button_set_icon_name (GTK_MENU_BUTTON (button), "view-more-symbolic");
  gtk_widget_set_valign (button, GTK_ALIGN_CENTER);
  gtk_widget_add_css_class (button, "flat");
  gtk_widget_set_tooltip_text (button, _("More"));
  /* Translators: %s is an agent's name */
  label = g_strdup_printf (_("More for %s"), name);
  gtk_accessible_update_property (GTK_ACCESSIBLE (button), GTK_ACCESSIBLE_PROPERTY_LABEL, label, -1);
  return button;
}

/* A row as an AdwActionRow draws one (its CSS nodes: box.header, box.title,
 * label.title, label.subtitle), but the name and description are a
 * PrsHeading's title and the id its badge: beside them in a wide window,
 * under them at a phone's width, where beside them it left the
 * description a column of two words and the id "execut…-agent" */
static GtkWidget *
agent_row_new (const PrsAgent *agent)
{
  GtkWidget *row = adw_preferences_row_new ();
  GtkWidget *header = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
  GtkWidget *heading = g_object_new (PRS_TYPE_HEADING, NULL);
  GtkWidget *text = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *title, *subtitle, *menu_button;
  /* Agents stored before names were limited (docs/agents.md) may hold
   * control characters, which would show as boxes or redraw nothing
   * useful: shown as spaces. */
  g_autofree char *name = prs_text_blank_controls (agent->name, -1, FALSE);
  g_autofree char *description = prs_text_blank_controls (agent->description, -1, FALSE);

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), name);
  if (g_utf8_strlen (name, -1) > AGENT_NAME_TOOLTIP_CHARS)
    gtk_widget_set_tooltip_text (row, name);
  gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), TRUE);
  gtk_actionable_set_action_name (GTK_ACTIONABLE (row), "agents.edit");
  gtk_actionable_set_action_target (GTK_ACTIONABLE (row), "s", agent->id);
  gtk_widget_add_css_class (row, "agent-row");

  title = row_label (name, "title");
  subtitle = row_label (description[0] != '\0' ? description : _("No description"), "subtitle");
  gtk_widget_add_css_class (text, "title");
  gtk_box_append (GTK_BOX (text), title);
  gtk_box_append (GTK_BOX (text), subtitle);
  gtk_widget_set_parent (text, heading);
  gtk_widget_set_parent (id_label_new (agent->id), heading);
  prs_heading_set_title_width (PRS_HEADING (heading), ROW_TEXT_WIDTH);
  gtk_widget_set_hexpand (heading, TRUE);
  gtk_widget_add_css_class (heading, "agent-heading");

  menu_button = menu_button_new (agent->id, name);
  gtk_widget_add_css_class (header, "header");
  gtk_widget_set_valign (header, GTK_ALIGN_CENTER);
  gtk_box_append (GTK_BOX (header), heading);
  gtk_box_append (GTK_BOX (header), menu_button);
  gtk_box_append (GTK_BOX (header), gtk_image_new_from_icon_name ("go-next-symbolic"));
  gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row), header);
  /* As AdwActionRow: named by its title, described by its subtitle */
  gtk_accessible_update_relation (GTK_ACCESSIBLE (row),
                                  GTK_ACCESSIBLE_RELATION_LABELLED_BY, title, NULL,
                                  GTK_ACCESSIBLE_RELATION_DESCRIBED_BY, subtitle, NULL,
                                  -1);
  g_object_set_data (G_OBJECT (row), "menu-button", menu_button);
  return row;
}

int
prs_agents_page_reload (PrsAgentsPage  *self,
                        GError        **error)
{
  g_autoptr(GPtrArray) agents = NULL;

  g_return_val_if_fail (PRS_IS_AGENTS_PAGE (self), -1);
  g_return_val_if_fail (self->service != NULL, -1);

  agents = prs_store_list_agents (store (self), error);
  if (agents == NULL)
    return -1;

  for (guint i = 0; i < self->rows->len; i++)
    adw_preferences_group_remove (self->agents_group, g_ptr_array_index (self->rows, i));
  g_ptr_array_set_size (self->rows, 0);
  g_hash_table_remove_all (self->rows_by_id);

  for (guint i = 0; i < agents->len; i++)
    {
      const PrsAgent *agent = g_ptr_array_index (agents, i);
      GtkWidget *row = agent_row_new (agent);

      adw_preferences_group_add (self->agents_group, row);
      g_ptr_array_add (self->rows, row);
      g_hash_table_insert (self->rows_by_id, g_strdup (agent->id), row);
    }
  return (int) agents->len;
}

static void
reload_or_toast (PrsAgentsPage *self)
{
  g_autoptr(GError) error = NULL;

  if (prs_agents_page_reload (self, &error) < 0)
    toast (self, error->message);
}

GtkWidget *
prs_agents_page_get_row (PrsAgentsPage *self,
                         const char    *agent_id)
{
  g_return_val_if_fail (PRS_IS_AGENTS_PAGE (self), NULL);
  return g_hash_table_lookup (self->rows_by_id, agent_id);
}

/* ---- editing ---- */

static void
on_editor_saved (PrsAgentEditor *editor,
                 const char     *agent_id,
                 PrsAgentsPage  *self)
{
  g_autofree char *text = NULL;

  reload_or_toast (self);
  /* Translators: %s is an agent's id */
  text = g_strdup_printf (_("Saved “%s”"), agent_id);
  toast (self, text);
}

PrsAgentEditor *
prs_agents_page_edit (PrsAgentsPage *self,
                      const char    *agent_id)
{
  g_autoptr(GError) error = NULL;
  PrsAgentEditor *editor;

  g_return_val_if_fail (PRS_IS_AGENTS_PAGE (self), NULL);
  g_return_val_if_fail (self->service != NULL, NULL);

  if (self->editor != NULL)
    {
      /* One editor at a time; it is modal anyway. */
      gtk_window_present (GTK_WINDOW (self->editor));
      return self->editor;
    }

  editor = prs_agent_editor_new (parent_window (self), self->service, agent_id, &error);
  if (editor == NULL)
    {
      toast (self, error->message);
      return NULL;
    }
  self->editor = editor;
  g_object_add_weak_pointer (G_OBJECT (editor), (gpointer *) &self->editor);
  g_signal_connect_object (editor, "saved", G_CALLBACK (on_editor_saved), self, 0);
  gtk_window_present (GTK_WINDOW (editor));
  return editor;
}

static void
edit_activated (GtkWidget  *widget,
                const char *action_name,
                GVariant   *parameter)
{
  prs_agents_page_edit (PRS_AGENTS_PAGE (widget), g_variant_get_string (parameter, NULL));
}

static void
new_activated (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  prs_agents_page_edit (PRS_AGENTS_PAGE (widget), NULL);
}

static void
duplicate_activated (GtkWidget  *widget,
                     const char *action_name,
                     GVariant   *parameter)
{
  PrsAgentsPage *self = PRS_AGENTS_PAGE (widget);
  g_autoptr(GError) error = NULL;
  g_autofree char *copy_id = prs_store_duplicate_agent (store (self), g_variant_get_string (parameter, NULL), &error);

  if (copy_id == NULL)
    {
      toast (self, error->message);
      return;
    }
  reload_or_toast (self);
  /* A copy is made to be changed: open it. */
  prs_agents_page_edit (self, copy_id);
}

/* ---- deleting ---- */

static void
on_delete_response (AdwMessageDialog *dialog,
                    const char       *response,
                    PrsAgentsPage    *self)
{
  const char *agent_id = g_object_get_data (G_OBJECT (dialog), "agent-id");
  const char *name = g_object_get_data (G_OBJECT (dialog), "agent-name");
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  if (g_strcmp0 (response, "delete") != 0)
    return;

  if (!prs_store_delete_agent (store (self), agent_id, &error))
    {
      toast (self, error->message);
      return;
    }
  reload_or_toast (self);
  /* Translators: %s is an agent's name */
  text = g_strdup_printf (_("Deleted “%s”"), name);
  toast (self, text);
}

/* What deleting @agent_id does beyond the agent: its conversations move to
 * the default agent, and the schedules that are on and use it are turned
 * off at their next time (docs/schedules.md), so they are named here */
static char *
delete_body (PrsAgentsPage *self,
             const char    *agent_id)
{
  g_autoptr(GPtrArray) schedules = prs_store_list_schedules (store (self), NULL);
  g_autoptr(GString) names = g_string_new (NULL);
  guint count = 0;

  for (guint i = 0; schedules != NULL && i < schedules->len; i++)
    {
      PrsScheduleRow *row = g_ptr_array_index (schedules, i);

      if (!row->enabled || g_strcmp0 (row->agent_id, agent_id) != 0)
        continue;
      g_string_append_printf (names, count++ == 0 ? "“%s”" : ", “%s”", row->name);
    }
  if (count == 0)
    return g_strdup (_("Conversations that use this agent switch to the default agent. Export it first to keep a copy."));
  /* Translators: %s is one or more schedules' names, each in quotes */
  return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                       "Conversations that use this agent switch to the default agent, and its schedule %s will be turned off. Export it first to keep a copy.",
                                       "Conversations that use this agent switch to the default agent, and its schedules %s will be turned off. Export it first to keep a copy.",
                                       count),
                          names->str);
}

static void
delete_activated (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *parameter)
{
  PrsAgentsPage *self = PRS_AGENTS_PAGE (widget);
  const char *agent_id = g_variant_get_string (parameter, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsAgent) agent = NULL;
  g_autofree char *heading = NULL;
  g_autofree char *name = NULL;
  g_autofree char *body = NULL;
  GtkWidget *dialog;

  if (g_strcmp0 (agent_id, PRS_AGENT_DEFAULT_ID) == 0)
    {
      toast (self, _("The default agent cannot be deleted"));
      return;
    }
  agent = prs_store_lookup_agent (store (self), agent_id, &error);
  if (agent == NULL)
    {
      toast (self, error->message);
      return;
    }

  name = prs_text_blank_controls (agent->name, -1, FALSE);
  /* Translators: %s is an agent's name */
  heading = g_strdup_printf (_("Delete “%s”?"), name);
  body = delete_body (self, agent->id);
  dialog = GTK_WIDGET (prs_dialogs_new_delete (parent_window (self), heading, body));
  g_object_set_data_full (G_OBJECT (dialog), "agent-id", g_strdup (agent->id), g_free);
  g_object_set_data_full (G_OBJECT (dialog), "agent-name", g_steal_pointer (&name), g_free);
  g_signal_connect_object (dialog, "response", G_CALLBACK (on_delete_response), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}

/* ---- import ---- */

static void confirm_replace (PrsAgentsPage *self,
                             PrsAgent      *agent);

/* Saves @agent under its id; an id that exists is only replaced when
 * @replace, otherwise the person is asked first (the check and the write
 * are one transaction in the store, so nothing slips in between). */
static void
store_imported (PrsAgentsPage *self,
                PrsAgent      *agent,
                gboolean       replace)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  if (!prs_store_import_agent (store (self), agent, replace, NULL, &error))
    {
      if (g_error_matches (error, PRS_ERROR, PRS_ERROR_EXISTS))
        confirm_replace (self, agent);
      else
        show_error_dialog (self, _("Could Not Import the Agent"), error->message);
      return;
    }
  reload_or_toast (self);
  /* Translators: %s is an agent's name */
  text = g_strdup_printf (_("Imported “%s”"), agent->name);
  toast (self, text);
}

static void
on_replace_response (AdwMessageDialog *dialog,
                     const char       *response,
                     PrsAgentsPage    *self)
{
  PrsAgent *agent = g_object_get_data (G_OBJECT (dialog), "agent");

  if (g_strcmp0 (response, "replace") == 0)
    store_imported (self, agent, TRUE);
  else if (g_strcmp0 (response, "keep") == 0)
    {
      g_autofree char *base = g_strdup (agent->id);
      g_autoptr(PrsAgent) existing = NULL;

      /* The first free id of ID-2, ID-3, … (within the length limit). */
      for (guint n = 2; ; n++)
        {
          g_autofree char *suffix = g_strdup_printf ("-%u", n);
          g_autofree char *prefix = g_strndup (base, PRS_AGENT_ID_MAX_LEN - strlen (suffix));

          g_free (agent->id);
          agent->id = g_strconcat (prefix, suffix, NULL);
          g_clear_pointer (&existing, prs_agent_free);
          existing = prs_store_lookup_agent (store (self), agent->id, NULL);
          if (existing == NULL)
            break;
        }
      store_imported (self, agent, FALSE);
    }
}

/* "Replace “Name”?" for an imported @agent whose id exists; takes a copy */
static void
confirm_replace (PrsAgentsPage *self,
                 PrsAgent      *agent)
{
  g_autoptr(PrsAgent) existing = prs_store_lookup_agent (store (self), agent->id, NULL);
  g_autofree char *heading = NULL;
  g_autofree char *body = NULL;
  GtkWidget *dialog;

  /* Translators: %s is an agent's name */
  heading = g_strdup_printf (_("Replace “%s”?"), existing != NULL ? existing->name : agent->id);
  if (g_strcmp0 (agent->id, PRS_AGENT_DEFAULT_ID) == 0)
    body = g_strdup (_("This is the default agent. Replacing it changes its name, description, prompt, "
                       "tools and guidance; its id stays, so conversations keep using it. Or keep both "
                       "under a new id."));
  else
    /* Translators: %s is an agent id */
    body = g_strdup_printf (_("An agent with the id “%s” exists. Replace it with the imported agent, or keep both under a new id."),
                            agent->id);

  dialog = adw_message_dialog_new (parent_window (self), heading, body);
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog),
                                    "cancel", _("_Cancel"),
                                    "keep", _("_Keep Both"),
                                    "replace", _("_Replace"),
                                    NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "replace", ADW_RESPONSE_DESTRUCTIVE);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "keep");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  g_object_set_data_full (G_OBJECT (dialog), "agent", prs_agent_copy (agent), (GDestroyNotify) prs_agent_free);
  g_signal_connect_object (dialog, "response", G_CALLBACK (on_replace_response), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}

void
prs_agents_page_import_file (PrsAgentsPage *self,
                             GFile         *file)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsAgent) agent = NULL;

  g_return_if_fail (PRS_IS_AGENTS_PAGE (self));
  g_return_if_fail (G_IS_FILE (file));

  /* Read no more than an agent file may hold */
  agent = prs_agent_file_load (file, &error);
  if (agent == NULL)
    {
      g_autofree char *basename = g_file_get_basename (file);
      /* Translators: %s is a file name */
      g_autofree char *heading = g_strdup_printf (_("Could Not Import “%s”"), basename);

      show_error_dialog (self, heading, error->message);
      return;
    }

  store_imported (self, agent, FALSE);
}

static void
on_import_chosen (GtkNativeDialog *chooser,
                  int              response,
                  PrsAgentsPage   *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chooser));

      if (file != NULL)
        prs_agents_page_import_file (self, file);
    }
  gtk_native_dialog_destroy (chooser);
  g_object_unref (chooser);
  g_object_unref (self);
}

static GtkFileFilter *
markdown_filter (void)
{
  GtkFileFilter *filter = gtk_file_filter_new ();

  gtk_file_filter_set_name (filter, _("Agent files (Markdown)"));
  gtk_file_filter_add_pattern (filter, "*.md");
  gtk_file_filter_add_pattern (filter, "*.markdown");
  gtk_file_filter_add_mime_type (filter, "text/markdown");
  return filter;
}

static void
import_activated (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *parameter)
{
  PrsAgentsPage *self = PRS_AGENTS_PAGE (widget);
  GtkFileChooserNative *chooser;
  g_autoptr(GtkFileFilter) filter = markdown_filter ();

  chooser = gtk_file_chooser_native_new (_("Import Agent"), parent_window (self),
                                         GTK_FILE_CHOOSER_ACTION_OPEN, _("_Import"), _("_Cancel"));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (chooser), TRUE);
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (chooser), filter);
  g_signal_connect (chooser, "response", G_CALLBACK (on_import_chosen), g_object_ref (self));
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

/* ---- export ---- */

gboolean
prs_agents_page_export_file (PrsAgentsPage  *self,
                             const char     *agent_id,
                             GFile          *file,
                             GError        **error)
{
  g_autoptr(PrsAgent) agent = NULL;
  g_autoptr(GPtrArray) tools = NULL;
  g_autoptr(GError) tools_error = NULL;
  g_autofree char *text = NULL;

  g_return_val_if_fail (PRS_IS_AGENTS_PAGE (self), FALSE);
  g_return_val_if_fail (G_IS_FILE (file), FALSE);

  agent = prs_store_lookup_agent (store (self), agent_id, error);
  if (agent == NULL)
    return FALSE;
  tools = prs_store_list_tools (store (self), &tools_error);
  if (tools == NULL)
    g_message ("Exporting without the tools' descriptions: %s", tools_error->message);
  text = prs_agent_file_write (agent, tools, error);
  if (text == NULL)
    return FALSE;
  return g_file_replace_contents (file, text, strlen (text), NULL, FALSE,
                                  G_FILE_CREATE_REPLACE_DESTINATION, NULL, NULL, error);
}

static void
on_export_chosen (GtkNativeDialog *chooser,
                  int              response,
                  PrsAgentsPage   *self)
{
  const char *agent_id = g_object_get_data (G_OBJECT (chooser), "agent-id");

  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chooser));
      g_autoptr(GError) error = NULL;

      if (file != NULL && !prs_agents_page_export_file (self, agent_id, file, &error))
        show_error_dialog (self, _("Could Not Export the Agent"), error->message);
      else if (file != NULL)
        {
          g_autofree char *basename = g_file_get_basename (file);
          /* Translators: %s is a file name */
          g_autofree char *text = g_strdup_printf (_("Exported to “%s”"), basename);

          toast (self, text);
        }
    }
  gtk_native_dialog_destroy (chooser);
  g_object_unref (chooser);
  g_object_unref (self);
}

static void
export_activated (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *parameter)
{
  PrsAgentsPage *self = PRS_AGENTS_PAGE (widget);
  const char *agent_id = g_variant_get_string (parameter, NULL);
  g_autofree char *name = g_strdup_printf ("%s.md", agent_id);
  g_autoptr(GtkFileFilter) filter = markdown_filter ();
  GtkFileChooserNative *chooser;

  chooser = gtk_file_chooser_native_new (_("Export Agent"), parent_window (self),
                                         GTK_FILE_CHOOSER_ACTION_SAVE, _("_Export"), _("_Cancel"));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (chooser), TRUE);
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (chooser), name);
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (chooser), filter);
  g_object_set_data_full (G_OBJECT (chooser), "agent-id", g_strdup (agent_id), g_free);
  g_signal_connect (chooser, "response", G_CALLBACK (on_export_chosen), g_object_ref (self));
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

/* ---- life ---- */

void
prs_agents_page_set_service (PrsAgentsPage *self,
                             PrsService    *service)
{
  g_return_if_fail (PRS_IS_AGENTS_PAGE (self));
  g_return_if_fail (PRS_IS_SERVICE (service));

  g_set_object (&self->service, service);
}

static void
prs_agents_page_dispose (GObject *object)
{
  PrsAgentsPage *self = PRS_AGENTS_PAGE (object);
  GtkWidget *child;

  if (self->editor != NULL)
    {
      g_object_remove_weak_pointer (G_OBJECT (self->editor), (gpointer *) &self->editor);
      self->editor = NULL;
    }
  gtk_widget_dispose_template (GTK_WIDGET (self), PRS_TYPE_AGENTS_PAGE);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  g_clear_pointer (&self->rows, g_ptr_array_unref);
  g_clear_pointer (&self->rows_by_id, g_hash_table_unref);
  g_clear_object (&self->service);

  G_OBJECT_CLASS (prs_agents_page_parent_class)->dispose (object);
}

static void
prs_agents_page_class_init (PrsAgentsPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = prs_agents_page_dispose;

  gtk_widget_class_set_template_from_resource (widget_class, RESOURCE_PREFIX "/ui/prs-agents-page.ui");
  gtk_widget_class_bind_template_child (widget_class, PrsAgentsPage, agents_group);
  gtk_widget_class_bind_template_child (widget_class, PrsAgentsPage, heading);
  gtk_widget_class_bind_template_child (widget_class, PrsAgentsPage, title_label);

  gtk_widget_class_install_action (widget_class, "agents.new", NULL, new_activated);
  gtk_widget_class_install_action (widget_class, "agents.import", NULL, import_activated);
  gtk_widget_class_install_action (widget_class, "agents.edit", "s", edit_activated);
  gtk_widget_class_install_action (widget_class, "agents.duplicate", "s", duplicate_activated);
  gtk_widget_class_install_action (widget_class, "agents.export", "s", export_activated);
  gtk_widget_class_install_action (widget_class, "agents.delete", "s", delete_activated);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);

  g_type_ensure (PRS_TYPE_HEADING);
}

static void
prs_agents_page_init (PrsAgentsPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  prs_heading_set_title_width (PRS_HEADING (self->heading), HEADING_TEXT_WIDTH);
  /* The group's own title is empty (the heading shows it): the list is
   * named by the heading's */
  gtk_accessible_update_relation (GTK_ACCESSIBLE (self->agents_group), GTK_ACCESSIBLE_RELATION_LABELLED_BY,
                                  self->title_label, NULL, -1);

  self->rows = g_ptr_array_new ();
  self->rows_by_id = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
}
