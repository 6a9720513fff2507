/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-agent-editor.c: edits a working copy of one agent. Every widget
 * writes into the copy as it changes; "modified" compares the copy with
 * the agent as stored (their JSON, timestamps aside), so undoing an edit by
 * hand makes the editor unmodified again. The id of a new agent follows its
 * name until the user types an id. */
#include "config.h"

#include <string.h>
#include <glib/gi18n.h>

#include "prs-agent-editor.h"
#include "prs-context-field-list.h"
#include "prs-dialogs.h"
#include "prs-guidance-builder.h"
#include "prs-json.h"

struct _PrsAgentEditor
{
  AdwWindow            parent_instance;

  PrsService          *service;
  PrsAgent            *working;
  char                *stored_id;        /* NULL until a new agent is saved */
  char                *stored_print;     /* the stored agent's fingerprint */
  GStrv                other_ids;        /* the other agents' ids */
  GPtrArray           *tools;            /* discovered PrsTool* */
  PrsContextFieldList *fields;
  GPtrArray           *explicit_tools;   /* char*, the list when "All Tools" is off */
  GPtrArray           *tool_rows;        /* rows added to tools_group */
  GHashTable          *tool_checks;      /* tool name → GtkCheckButton (unowned) */
  char                *problem;
  gboolean             id_touched;
  gboolean             loading;
  gboolean             close_confirmed;

  GtkSwitch           *all_tools_switch;
  AdwActionRow        *all_tools_row;
  AdwEntryRow         *description_row;
  PrsGuidanceBuilder  *guidance_builder;
  GtkImage            *id_error_icon;
  GtkLabel            *id_message;
  AdwEntryRow         *id_row;
  AdwEntryRow         *name_row;
  GtkTextView         *prompt_view;
  GtkButton           *save_button;
  AdwToastOverlay     *toast_overlay;
  AdwPreferencesGroup *tools_group;
  AdwWindowTitle      *window_title;
};

G_DEFINE_FINAL_TYPE (PrsAgentEditor, prs_agent_editor, ADW_TYPE_WINDOW)

enum {
  SAVED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void build_tool_rows (PrsAgentEditor *self);

/* ---- state ---- */

static char *
fingerprint (const PrsAgent *agent)
{
  g_autoptr(PrsAgent) copy = prs_agent_copy (agent);
  g_autoptr(JsonNode) node = NULL;

  g_clear_pointer (&copy->created_at, g_free);
  g_clear_pointer (&copy->updated_at, g_free);
  node = prs_agent_to_json (copy);
  return prs_json_to_string (node, FALSE);
}

gboolean
prs_agent_editor_get_modified (PrsAgentEditor *self)
{
  g_autofree char *print = NULL;

  g_return_val_if_fail (PRS_IS_AGENT_EDITOR (self), FALSE);

  /* A new agent is compared with the blank one it opened as */
  print = fingerprint (self->working);
  return g_strcmp0 (print, self->stored_print) != 0;
}

const char *
prs_agent_editor_get_problem (PrsAgentEditor *self)
{
  g_return_val_if_fail (PRS_IS_AGENT_EDITOR (self), NULL);
  return self->problem;
}

static char *
find_id_problem (PrsAgentEditor *self,
                 const char     *id)
{
  if (id[0] == '\0')
    return g_strdup (_("The agent needs an id."));
  if (!prs_agent_id_is_valid (id))
    return g_strdup (_("Use lowercase letters, digits and “-” only, starting with a letter or digit, at most 64 characters."));
  if (self->other_ids != NULL && g_strv_contains ((const char * const *) self->other_ids, id))
    /* Translators: %s is an agent id */
    return g_strdup_printf (_("Another agent already uses the id “%s”."), id);
  return NULL;
}

static void
update_state (PrsAgentEditor *self)
{
  g_autofree char *id_problem = find_id_problem (self, self->working->id);
  g_autofree char *name = g_strstrip (g_strdup (self->working->name));
  gboolean name_blank = name[0] == '\0';
  gboolean modified = prs_agent_editor_get_modified (self);
  const char *title;

  g_clear_pointer (&self->problem, g_free);
  if (id_problem != NULL)
    self->problem = g_strdup (id_problem);
  else if (name_blank)
    self->problem = g_strdup (_("The agent needs a name."));

  /* A new agent opens without an id: that is not an error to show
   * before the person typed anything (Save stays off and says why) */
  if (id_problem != NULL && (self->stored_id != NULL || modified))
    {
      gtk_widget_add_css_class (GTK_WIDGET (self->id_row), "error");
      gtk_widget_remove_css_class (GTK_WIDGET (self->id_message), "dim-label");
      gtk_widget_add_css_class (GTK_WIDGET (self->id_message), "error");
      gtk_label_set_text (self->id_message, id_problem);
      gtk_widget_set_tooltip_text (GTK_WIDGET (self->id_error_icon), id_problem);
      gtk_widget_set_visible (GTK_WIDGET (self->id_error_icon), TRUE);
    }
  else
    {
      gtk_widget_remove_css_class (GTK_WIDGET (self->id_row), "error");
      gtk_widget_remove_css_class (GTK_WIDGET (self->id_message), "error");
      gtk_widget_add_css_class (GTK_WIDGET (self->id_message), "dim-label");
      gtk_label_set_text (self->id_message,
                          g_strcmp0 (self->stored_id, PRS_AGENT_DEFAULT_ID) == 0
                          ? _("The default agent answers when nothing else is chosen; its id stays “prosponsive”.")
                          : _("Workflows call the agent by its id (agentId): lowercase letters, digits and “-”."));
      gtk_widget_set_visible (GTK_WIDGET (self->id_error_icon), FALSE);
    }

  if (name_blank && !self->loading && self->stored_id != NULL)
    gtk_widget_add_css_class (GTK_WIDGET (self->name_row), "error");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (self->name_row), "error");

  title = name_blank ? (self->stored_id == NULL ? _("New Agent") : _("Edit Agent")) : self->working->name;
  adw_window_title_set_title (self->window_title, title);
  adw_window_title_set_subtitle (self->window_title,
                                 self->stored_id == NULL ? _("Not saved yet")
                                 : modified ? _("Unsaved changes") : "");

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "editor.save", modified && self->problem == NULL);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->save_button), self->problem);
}

/* ---- the fields ---- */

static void
on_name_changed (GtkEditable    *editable,
                 PrsAgentEditor *self)
{
  if (self->loading)
    return;

  g_free (self->working->name);
  self->working->name = g_strdup (gtk_editable_get_text (editable));

  /* A new agent's id follows its name until the user sets one. */
  if (self->stored_id == NULL && !self->id_touched)
    {
      g_autofree char *base = prs_agent_make_id (self->working->name);
      g_autofree char *id = g_strdup (base);

      for (guint n = 2; self->other_ids != NULL && g_strv_contains ((const char * const *) self->other_ids, id); n++)
        {
          g_free (id);
          id = g_strdup_printf ("%s-%u", base, n);
        }
      self->loading = TRUE;
      gtk_editable_set_text (GTK_EDITABLE (self->id_row), self->working->name[0] != '\0' ? id : "");
      self->loading = FALSE;
      g_free (self->working->id);
      self->working->id = g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->id_row)));
    }
  update_state (self);
}

static void
on_id_changed (GtkEditable    *editable,
               PrsAgentEditor *self)
{
  if (self->loading)
    return;

  self->id_touched = TRUE;
  g_free (self->working->id);
  self->working->id = g_strdup (gtk_editable_get_text (editable));
  update_state (self);
}

static void
on_description_changed (GtkEditable    *editable,
                        PrsAgentEditor *self)
{
  if (self->loading)
    return;

  g_free (self->working->description);
  self->working->description = g_strdup (gtk_editable_get_text (editable));
  update_state (self);
}

static void
on_prompt_changed (GtkTextBuffer  *buffer,
                   PrsAgentEditor *self)
{
  GtkTextIter start, end;

  if (self->loading)
    return;

  gtk_text_buffer_get_bounds (buffer, &start, &end);
  g_free (self->working->system_prompt);
  self->working->system_prompt = gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
  update_state (self);
}

static void
on_guidance_changed (PrsGuidanceBuilder *builder,
                     PrsAgentEditor     *self)
{
  update_state (self);
}

/* ---- allowed tools ---- */

static const PrsTool *
find_tool (PrsAgentEditor *self,
           const char     *name)
{
  for (guint i = 0; i < self->tools->len; i++)
    {
      const PrsTool *tool = g_ptr_array_index (self->tools, i);

      if (g_strcmp0 (tool->name, name) == 0)
        return tool;
    }
  return NULL;
}

static gboolean
explicit_has (PrsAgentEditor *self,
              const char     *name,
              guint          *index)
{
  return g_ptr_array_find_with_equal_func (self->explicit_tools, name, g_str_equal, index);
}

/* The agent's allowed tools from the switch and the explicit list. */
static void
write_allowed_tools (PrsAgentEditor *self)
{
  g_strfreev (self->working->allowed_tools);
  self->working->allowed_tools = NULL;
  if (!gtk_switch_get_active (self->all_tools_switch))
    {
      GStrvBuilder *builder = g_strv_builder_new ();

      for (guint i = 0; i < self->explicit_tools->len; i++)
        g_strv_builder_add (builder, g_ptr_array_index (self->explicit_tools, i));
      self->working->allowed_tools = g_strv_builder_end (builder);
      g_strv_builder_unref (builder);
    }
  prs_guidance_builder_set_allowed_tools (self->guidance_builder,
                                          (const char * const *) self->working->allowed_tools);
}

static void
on_tool_toggled (GtkCheckButton *check,
                 PrsAgentEditor *self)
{
  const char *name = g_object_get_data (G_OBJECT (check), "tool");
  guint index;

  if (self->loading || gtk_switch_get_active (self->all_tools_switch))
    return;

  if (gtk_check_button_get_active (check) && !explicit_has (self, name, NULL))
    g_ptr_array_add (self->explicit_tools, g_strdup (name));
  else if (!gtk_check_button_get_active (check) && explicit_has (self, name, &index))
    g_ptr_array_remove_index (self->explicit_tools, index);
  write_allowed_tools (self);
  update_state (self);
}

static void
on_remove_missing_clicked (GtkButton      *button,
                           PrsAgentEditor *self)
{
  const char *name = g_object_get_data (G_OBJECT (button), "tool");
  guint index;

  if (explicit_has (self, name, &index))
    g_ptr_array_remove_index (self->explicit_tools, index);
  write_allowed_tools (self);
  build_tool_rows (self);
  update_state (self);
}

static void
sync_tool_checks (PrsAgentEditor *self)
{
  gboolean all = gtk_switch_get_active (self->all_tools_switch);
  GHashTableIter iter;
  gpointer name, check;

  self->loading = TRUE;
  g_hash_table_iter_init (&iter, self->tool_checks);
  while (g_hash_table_iter_next (&iter, &name, &check))
    {
      gtk_check_button_set_active (check, all || explicit_has (self, name, NULL));
      gtk_widget_set_sensitive (gtk_widget_get_parent (gtk_widget_get_parent (gtk_widget_get_parent (check))), !all);
    }
  self->loading = FALSE;

  for (guint i = 0; i < self->tool_rows->len; i++)
    {
      GtkWidget *row = g_ptr_array_index (self->tool_rows, i);

      if (g_object_get_data (G_OBJECT (row), "missing") != NULL)
        gtk_widget_set_visible (row, !all);
    }
}

static void
on_all_tools_active (GtkSwitch      *all_switch,
                     GParamSpec     *pspec,
                     PrsAgentEditor *self)
{
  if (self->loading)
    return;
  write_allowed_tools (self);
  sync_tool_checks (self);
  update_state (self);
}

static GtkWidget *
tool_check_row (PrsAgentEditor *self,
                const PrsTool  *tool)
{
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *check = gtk_check_button_new ();

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), tool->name);
  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), tool->description != NULL ? tool->description : "");
  adw_action_row_set_subtitle_lines (ADW_ACTION_ROW (row), 2);
  gtk_widget_set_valign (check, GTK_ALIGN_CENTER);
  g_object_set_data_full (G_OBJECT (check), "tool", g_strdup (tool->name), g_free);
  gtk_accessible_update_property (GTK_ACCESSIBLE (check), GTK_ACCESSIBLE_PROPERTY_LABEL, tool->name, -1);
  adw_action_row_add_prefix (ADW_ACTION_ROW (row), check);
  adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), check);
  g_signal_connect (check, "toggled", G_CALLBACK (on_tool_toggled), self);
  g_hash_table_insert (self->tool_checks, g_strdup (tool->name), check);
  return row;
}

/* A server's rows are made when it is first opened: a server may list a
 * thousand tools */
static void
on_server_expanded (GtkWidget      *expander,
                    GParamSpec     *pspec,
                    PrsAgentEditor *self)
{
  GPtrArray *tools = g_object_get_data (G_OBJECT (expander), "prs-tools");

  if (!adw_expander_row_get_expanded (ADW_EXPANDER_ROW (expander)) ||
      g_object_get_data (G_OBJECT (expander), "prs-filled") != NULL)
    return;
  g_object_set_data (G_OBJECT (expander), "prs-filled", GINT_TO_POINTER (TRUE));
  for (guint i = 0; i < tools->len; i++)
    adw_expander_row_add_row (ADW_EXPANDER_ROW (expander), tool_check_row (self, g_ptr_array_index (tools, i)));
  sync_tool_checks (self);
}

/* The expander of @tool's server: @current when it is that server's, else
 * a new one (the tools come by server) */
static GtkWidget *
server_expander (PrsAgentEditor *self,
                 const PrsTool  *tool,
                 GtkWidget      *current)
{
  GtkWidget *expander;
  g_autofree char *title = NULL;

  if (current != NULL && g_strcmp0 (g_object_get_data (G_OBJECT (current), "server-id"), tool->mcp_server_id) == 0)
    return current;
  expander = adw_expander_row_new ();
  /* Translators: a group of tools in the agent editor; %s is the name of an MCP server */
  title = g_strdup_printf (_("MCP Server “%s”"), tool->mcp_server);
  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (expander), FALSE);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (expander), title);
  gtk_widget_set_name (expander, "mcp-server-tools");
  g_object_set_data_full (G_OBJECT (expander), "server-id", g_strdup (tool->mcp_server_id), g_free);
  /* Borrowed from self->tools, which lives as long as the editor */
  g_object_set_data_full (G_OBJECT (expander), "prs-tools", g_ptr_array_new (), (GDestroyNotify) g_ptr_array_unref);
  g_signal_connect (expander, "notify::expanded", G_CALLBACK (on_server_expanded), self);
  adw_preferences_group_add (self->tools_group, expander);
  g_ptr_array_add (self->tool_rows, expander);
  return expander;
}

static void
build_tool_rows (PrsAgentEditor *self)
{
  GtkWidget *server = NULL;

  for (guint i = 0; i < self->tool_rows->len; i++)
    adw_preferences_group_remove (self->tools_group, g_ptr_array_index (self->tool_rows, i));
  g_ptr_array_set_size (self->tool_rows, 0);
  g_hash_table_remove_all (self->tool_checks);

  for (guint i = 0; i < self->tools->len; i++)
    {
      const PrsTool *tool = g_ptr_array_index (self->tools, i);
      GtkWidget *row;

      /* An MCP server's tools together, under the server */
      if (prs_tool_is_mcp (tool))
        {
          server = server_expander (self, tool, server);
          g_ptr_array_add (g_object_get_data (G_OBJECT (server), "prs-tools"), (gpointer) tool);
          continue;
        }
      row = tool_check_row (self, tool);
      adw_preferences_group_add (self->tools_group, row);
      g_ptr_array_add (self->tool_rows, row);
    }

  for (guint i = 0; i < self->tool_rows->len; i++)
    {
      GPtrArray *tools = g_object_get_data (g_ptr_array_index (self->tool_rows, i), "prs-tools");
      g_autofree char *count = NULL;

      if (tools == NULL)
        continue;
      count = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u tool", "%u tools", tools->len), tools->len);
      adw_expander_row_set_subtitle (g_ptr_array_index (self->tool_rows, i), count);
    }

  if (self->tools->len == 0)
    {
      GtkWidget *row = adw_action_row_new ();

      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), _("No tools discovered yet"));
      adw_action_row_set_subtitle (ADW_ACTION_ROW (row),
                                   _("Published n8n workflows with a POST Webhook trigger, and the tools of MCP "
                                     "servers, appear here."));
      gtk_widget_add_css_class (row, "dim-label");
      adw_preferences_group_add (self->tools_group, row);
      g_ptr_array_add (self->tool_rows, row);
    }

  /* Allowed tools that n8n does not offer now: kept, and said so. */
  for (guint i = 0; i < self->explicit_tools->len; i++)
    {
      const char *name = g_ptr_array_index (self->explicit_tools, i);
      GtkWidget *row, *icon, *button;

      if (find_tool (self, name) != NULL)
        continue;

      row = adw_action_row_new ();
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), name);
      adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
      /* MCP tools' names, and no n8n tool's, hold "__" (docs/mcp.md) */
      adw_action_row_set_subtitle (ADW_ACTION_ROW (row),
                                   strstr (name, "__") != NULL
                                   ? _("Allowed, but no MCP server that is switched on lists it now: runs cannot call it until one does.")
                                   : _("Allowed, but not discovered now: runs cannot call it until its workflow is published again."));
      adw_action_row_set_subtitle_lines (ADW_ACTION_ROW (row), 3);
      gtk_widget_add_css_class (row, "missing-tool");
      icon = gtk_image_new_from_icon_name ("dialog-warning-symbolic");
      gtk_widget_add_css_class (icon, "warning");
      gtk_accessible_update_property (GTK_ACCESSIBLE (icon), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Warning"), -1);
      adw_action_row_add_prefix (ADW_ACTION_ROW (row), icon);
      button = gtk_button_new_with_mnemonic (_("_Remove"));
      gtk_widget_set_valign (button, GTK_ALIGN_CENTER);
      /* Translators: %s is a tool name */
      {
        g_autofree char *tooltip = g_strdup_printf (_("Stop allowing “%s”"), name);

        gtk_widget_set_tooltip_text (button, tooltip);
      }
      g_object_set_data_full (G_OBJECT (button), "tool", g_strdup (name), g_free);
      g_signal_connect (button, "clicked", G_CALLBACK (on_remove_missing_clicked), self);
      adw_action_row_add_suffix (ADW_ACTION_ROW (row), button);
      g_object_set_data (G_OBJECT (row), "missing", GINT_TO_POINTER (TRUE));
      adw_preferences_group_add (self->tools_group, row);
      g_ptr_array_add (self->tool_rows, row);
    }

  sync_tool_checks (self);
}

/* ---- loading ---- */

static void
load_agent (PrsAgentEditor *self)
{
  self->loading = TRUE;

  gtk_editable_set_text (GTK_EDITABLE (self->name_row), self->working->name);
  gtk_editable_set_text (GTK_EDITABLE (self->id_row), self->working->id);
  gtk_editable_set_text (GTK_EDITABLE (self->description_row), self->working->description);
  gtk_text_buffer_set_text (gtk_text_view_get_buffer (self->prompt_view), self->working->system_prompt, -1);
  gtk_widget_set_sensitive (GTK_WIDGET (self->id_row), g_strcmp0 (self->stored_id, PRS_AGENT_DEFAULT_ID) != 0);

  g_ptr_array_set_size (self->explicit_tools, 0);
  if (self->working->allowed_tools != NULL)
    for (guint i = 0; self->working->allowed_tools[i] != NULL; i++)
      g_ptr_array_add (self->explicit_tools, g_strdup (self->working->allowed_tools[i]));
  else
    for (guint i = 0; i < self->tools->len; i++)
      g_ptr_array_add (self->explicit_tools, g_strdup (((const PrsTool *) g_ptr_array_index (self->tools, i))->name));
  gtk_switch_set_active (self->all_tools_switch, self->working->allowed_tools == NULL);

  self->loading = FALSE;

  build_tool_rows (self);
  prs_guidance_builder_setup (self->guidance_builder, self->tools, G_LIST_MODEL (self->fields),
                              self->working->guidance,
                              (const char * const *) self->working->allowed_tools);
  update_state (self);
}

/* n8n's tools, then the MCP servers' (of the servers switched on) */
static GPtrArray *
list_tools (PrsService *service)
{
  g_autoptr(GError) error = NULL;
  GPtrArray *tools = prs_store_list_tools (prs_service_get_store (service), &error);
  g_autoptr(GPtrArray) mcp = NULL;

  if (tools == NULL)
    {
      g_message ("Could not list the tools: %s", error->message);
      tools = g_ptr_array_new_with_free_func ((GDestroyNotify) prs_tool_free);
      g_clear_error (&error);
    }
  if (prs_service_get_mcp_hub (service) != NULL)
    mcp = prs_mcp_hub_list_tools (prs_service_get_mcp_hub (service), &error);
  if (mcp == NULL && error != NULL)
    g_message ("Could not list the MCP tools: %s", error->message);
  for (guint i = 0; mcp != NULL && i < mcp->len; i++)
    g_ptr_array_add (tools, g_steal_pointer (&g_ptr_array_index (mcp, i)));
  return tools;
}

static GStrv
list_other_ids (PrsStore    *store,
                const char  *own_id)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) agents = prs_store_list_agents (store, &error);
  GStrvBuilder *builder = g_strv_builder_new ();
  GStrv ids;

  if (agents == NULL)
    g_message ("Could not list the agents: %s", error->message);
  for (guint i = 0; agents != NULL && i < agents->len; i++)
    {
      const PrsAgent *agent = g_ptr_array_index (agents, i);

      if (g_strcmp0 (agent->id, own_id) != 0)
        g_strv_builder_add (builder, agent->id);
    }
  ids = g_strv_builder_end (builder);
  g_strv_builder_unref (builder);
  return ids;
}

PrsAgentEditor *
prs_agent_editor_new (GtkWindow   *parent,
                      PrsService  *service,
                      const char  *agent_id,
                      GError     **error)
{
  PrsAgentEditor *self;
  g_autoptr(GError) local_error = NULL;
  PrsStore *store;
  PrsAgent *agent;

  g_return_val_if_fail (parent == NULL || GTK_IS_WINDOW (parent), NULL);
  g_return_val_if_fail (PRS_IS_SERVICE (service), NULL);

  store = prs_service_get_store (service);
  if (agent_id != NULL)
    {
      agent = prs_store_lookup_agent (store, agent_id, error);
      if (agent == NULL)
        return NULL;
    }
  else
    agent = prs_agent_new ("", "");

  /* Owned by GTK's list of toplevels, like any window. */
  self = g_object_new (PRS_TYPE_AGENT_EDITOR, "transient-for", parent, NULL);
  self->service = g_object_ref (service);
  self->working = agent;
  self->stored_id = g_strdup (agent_id);
  self->stored_print = fingerprint (agent);
  self->other_ids = list_other_ids (store, agent_id);

  self->tools = list_tools (service);
  if (!prs_context_field_list_reload (self->fields, store, NULL, &local_error))
    g_message ("Could not list the Request Context fields: %s", local_error->message);

  load_agent (self);
  gtk_window_set_title (GTK_WINDOW (self), agent_id != NULL ? _("Edit Agent") : _("New Agent"));
  gtk_widget_grab_focus (GTK_WIDGET (self->name_row));
  return self;
}

const char *
prs_agent_editor_get_agent_id (PrsAgentEditor *self)
{
  g_return_val_if_fail (PRS_IS_AGENT_EDITOR (self), NULL);
  return self->stored_id;
}

/* ---- saving and closing ---- */

gboolean
prs_agent_editor_save (PrsAgentEditor  *self,
                       GError         **error)
{
  PrsStore *store;
  g_autoptr(PrsAgent) existing = NULL;

  g_return_val_if_fail (PRS_IS_AGENT_EDITOR (self), FALSE);

  update_state (self);
  if (self->problem != NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, self->problem);
      return FALSE;
    }

  store = prs_service_get_store (self->service);
  /* Someone may have taken the id since the editor opened. */
  if (g_strcmp0 (self->working->id, self->stored_id) != 0 &&
      (existing = prs_store_lookup_agent (store, self->working->id, NULL)) != NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS,
                   _("Another agent already uses the id “%s”."), self->working->id);
      return FALSE;
    }

  if (!prs_store_save_agent (store, self->working, self->stored_id, error))
    return FALSE;

  g_free (self->stored_id);
  self->stored_id = g_strdup (self->working->id);
  g_free (self->stored_print);
  self->stored_print = fingerprint (self->working);
  g_strfreev (self->other_ids);
  self->other_ids = list_other_ids (store, self->stored_id);
  update_state (self);

  g_signal_emit (self, signals[SAVED], 0, self->stored_id);
  return TRUE;
}

static void
save_activated (GtkWidget  *widget,
                const char *action_name,
                GVariant   *parameter)
{
  PrsAgentEditor *self = PRS_AGENT_EDITOR (widget);
  g_autoptr(GError) error = NULL;

  if (!prs_agent_editor_save (self, &error))
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

static void
show_toast_activated (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *parameter)
{
  adw_toast_overlay_add_toast (PRS_AGENT_EDITOR (widget)->toast_overlay,
                               prs_dialogs_new_toast (g_variant_get_string (parameter, NULL)));
}

static gboolean
save_from_dialog (GtkWindow  *window,
                  GError    **error)
{
  return prs_agent_editor_save (PRS_AGENT_EDITOR (window), error);
}

static gboolean
prs_agent_editor_close_request (GtkWindow *window)
{
  PrsAgentEditor *self = PRS_AGENT_EDITOR (window);
  g_autofree char *body = NULL;

  if (self->close_confirmed || !prs_agent_editor_get_modified (self))
    return GTK_WINDOW_CLASS (prs_agent_editor_parent_class)->close_request (window);

  if (self->stored_id == NULL)
    body = g_strdup (_("The new agent is not saved yet."));
  else
    /* Translators: %s is the agent's name */
    body = g_strdup_printf (_("The changes to “%s” are not saved."), self->working->name);
  prs_dialogs_ask_discard (window, body, self->problem == NULL ? save_from_dialog : NULL, self->toast_overlay);
  return TRUE;
}

/* ---- accessors ---- */

GtkEditable *
prs_agent_editor_get_name_entry (PrsAgentEditor *self)
{
  g_return_val_if_fail (PRS_IS_AGENT_EDITOR (self), NULL);
  return GTK_EDITABLE (self->name_row);
}

GtkEditable *
prs_agent_editor_get_id_entry (PrsAgentEditor *self)
{
  g_return_val_if_fail (PRS_IS_AGENT_EDITOR (self), NULL);
  return GTK_EDITABLE (self->id_row);
}

GtkEditable *
prs_agent_editor_get_description_entry (PrsAgentEditor *self)
{
  g_return_val_if_fail (PRS_IS_AGENT_EDITOR (self), NULL);
  return GTK_EDITABLE (self->description_row);
}

GtkTextBuffer *
prs_agent_editor_get_prompt_buffer (PrsAgentEditor *self)
{
  g_return_val_if_fail (PRS_IS_AGENT_EDITOR (self), NULL);
  return gtk_text_view_get_buffer (self->prompt_view);
}

GtkSwitch *
prs_agent_editor_get_all_tools_switch (PrsAgentEditor *self)
{
  g_return_val_if_fail (PRS_IS_AGENT_EDITOR (self), NULL);
  return self->all_tools_switch;
}

GtkCheckButton *
prs_agent_editor_get_tool_check (PrsAgentEditor *self,
                                 const char     *tool)
{
  g_return_val_if_fail (PRS_IS_AGENT_EDITOR (self), NULL);
  return g_hash_table_lookup (self->tool_checks, tool);
}

GStrv
prs_agent_editor_dup_missing_tools (PrsAgentEditor *self)
{
  GStrvBuilder *builder;
  GStrv missing;

  g_return_val_if_fail (PRS_IS_AGENT_EDITOR (self), NULL);

  builder = g_strv_builder_new ();
  for (guint i = 0; i < self->explicit_tools->len; i++)
    if (find_tool (self, g_ptr_array_index (self->explicit_tools, i)) == NULL)
      g_strv_builder_add (builder, g_ptr_array_index (self->explicit_tools, i));
  missing = g_strv_builder_end (builder);
  g_strv_builder_unref (builder);
  return missing;
}

PrsGuidanceBuilder *
prs_agent_editor_get_guidance_builder (PrsAgentEditor *self)
{
  g_return_val_if_fail (PRS_IS_AGENT_EDITOR (self), NULL);
  return self->guidance_builder;
}

/* ---- life ---- */

static void
prs_agent_editor_dispose (GObject *object)
{
  PrsAgentEditor *self = PRS_AGENT_EDITOR (object);

  gtk_widget_dispose_template (GTK_WIDGET (self), PRS_TYPE_AGENT_EDITOR);
  g_clear_object (&self->fields);
  g_clear_object (&self->service);

  G_OBJECT_CLASS (prs_agent_editor_parent_class)->dispose (object);
}

static void
prs_agent_editor_finalize (GObject *object)
{
  PrsAgentEditor *self = PRS_AGENT_EDITOR (object);

  g_clear_pointer (&self->working, prs_agent_free);
  g_clear_pointer (&self->tools, g_ptr_array_unref);
  g_clear_pointer (&self->explicit_tools, g_ptr_array_unref);
  g_clear_pointer (&self->tool_rows, g_ptr_array_unref);
  g_clear_pointer (&self->tool_checks, g_hash_table_unref);
  g_strfreev (self->other_ids);
  g_free (self->stored_id);
  g_free (self->stored_print);
  g_free (self->problem);

  G_OBJECT_CLASS (prs_agent_editor_parent_class)->finalize (object);
}

static void
prs_agent_editor_class_init (PrsAgentEditorClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GtkWindowClass *window_class = GTK_WINDOW_CLASS (klass);

  object_class->dispose = prs_agent_editor_dispose;
  object_class->finalize = prs_agent_editor_finalize;
  window_class->close_request = prs_agent_editor_close_request;

  /**
   * PrsAgentEditor::saved:
   * @id: the agent's id as stored
   */
  signals[SAVED] =
    g_signal_new ("saved", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);

  gtk_widget_class_set_template_from_resource (widget_class, RESOURCE_PREFIX "/ui/prs-agent-editor.ui");
  gtk_widget_class_bind_template_child (widget_class, PrsAgentEditor, all_tools_row);
  gtk_widget_class_bind_template_child (widget_class, PrsAgentEditor, all_tools_switch);
  gtk_widget_class_bind_template_child (widget_class, PrsAgentEditor, description_row);
  gtk_widget_class_bind_template_child (widget_class, PrsAgentEditor, guidance_builder);
  gtk_widget_class_bind_template_child (widget_class, PrsAgentEditor, id_error_icon);
  gtk_widget_class_bind_template_child (widget_class, PrsAgentEditor, id_message);
  gtk_widget_class_bind_template_child (widget_class, PrsAgentEditor, id_row);
  gtk_widget_class_bind_template_child (widget_class, PrsAgentEditor, name_row);
  gtk_widget_class_bind_template_child (widget_class, PrsAgentEditor, prompt_view);
  gtk_widget_class_bind_template_child (widget_class, PrsAgentEditor, save_button);
  gtk_widget_class_bind_template_child (widget_class, PrsAgentEditor, toast_overlay);
  gtk_widget_class_bind_template_child (widget_class, PrsAgentEditor, tools_group);
  gtk_widget_class_bind_template_child (widget_class, PrsAgentEditor, window_title);

  gtk_widget_class_install_action (widget_class, "editor.save", NULL, save_activated);
  gtk_widget_class_install_action (widget_class, "editor.cancel", NULL, cancel_activated);
  gtk_widget_class_install_action (widget_class, "win.show-toast", "s", show_toast_activated);

  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_s, GDK_CONTROL_MASK, "editor.save", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "editor.cancel", NULL);

  g_type_ensure (PRS_TYPE_GUIDANCE_BUILDER);
}

static void
prs_agent_editor_init (PrsAgentEditor *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  self->fields = prs_context_field_list_new ();
  self->explicit_tools = g_ptr_array_new_with_free_func (g_free);
  self->tool_rows = g_ptr_array_new ();
  self->tool_checks = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  g_signal_connect (self->name_row, "changed", G_CALLBACK (on_name_changed), self);
  g_signal_connect (self->id_row, "changed", G_CALLBACK (on_id_changed), self);
  g_signal_connect (self->description_row, "changed", G_CALLBACK (on_description_changed), self);
  g_signal_connect (gtk_text_view_get_buffer (self->prompt_view), "changed", G_CALLBACK (on_prompt_changed), self);
  g_signal_connect (self->all_tools_switch, "notify::active", G_CALLBACK (on_all_tools_active), self);
  g_signal_connect (self->guidance_builder, "changed", G_CALLBACK (on_guidance_changed), self);
}
