/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-tools-page-mcp.c: the MCP servers on the Tools page — a group per
 * server with its state (connected, the error with its last words,
 * starting again in N seconds, off) and its tools with their parameters
 * and schemas, as the server listed them last (docs/mcp.md). */
#include "config.h"

#include <glib/gi18n.h>

#include "prs-json.h"
#include "prs-mcp-catalog.h"
#include "prs-tools-page-private.h"

/* A schema longer than this is cut on the page (it is offered whole). */
#define SCHEMA_PREVIEW_MAX_CHARS 4000
/* Tools shown of a server before "Show All": a server may list a thousand,
 * and each row costs the window a few milliseconds to make */
#define TOOLS_SHOWN_FIRST 50

static void
on_add_clicked (GtkButton    *button,
                PrsToolsPage *self)
{
  gtk_widget_activate_action (GTK_WIDGET (self), "win.preferences-page", "s", "mcp");
}

static GtkWidget *
state_icon (PrsMcpServerState state)
{
  const char *icon_name = "emblem-ok-symbolic";
  const char *css = "success";
  const char *label = _("Connected");
  GtkWidget *icon;

  switch (state)
    {
    case PRS_MCP_SERVER_CONNECTING:
      icon = gtk_spinner_new ();
      gtk_spinner_start (GTK_SPINNER (icon));
      gtk_accessible_update_property (GTK_ACCESSIBLE (icon), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Connecting"), -1);
      return icon;
    case PRS_MCP_SERVER_RESTARTING:
      icon_name = "view-refresh-symbolic";
      css = "warning";
      label = _("Starting again");
      break;
    case PRS_MCP_SERVER_FAILED:
      icon_name = "dialog-error-symbolic";
      css = "error";
      label = _("Failed");
      break;
    case PRS_MCP_SERVER_OFF:
      icon_name = "system-shutdown-symbolic";
      css = "dim-label";
      label = _("Off");
      break;
    case PRS_MCP_SERVER_CONNECTED:
    default:
      break;
    }
  icon = gtk_image_new_from_icon_name (icon_name);
  gtk_widget_add_css_class (icon, css);
  gtk_accessible_update_property (GTK_ACCESSIBLE (icon), GTK_ACCESSIBLE_PROPERTY_LABEL, label, -1);
  return icon;
}

/* Shows @item's state on @row, in place: the tools around it keep how
 * the person left them (expanded or not) while a countdown runs */
static void
update_state_row (GtkWidget        *row,
                  PrsMcpServerItem *item)
{
  g_autofree char *status = prs_mcp_server_item_dup_status (item);
  GtkWidget *old_icon = g_object_get_data (G_OBJECT (row), "prs-state-icon");
  GtkWidget *icon = state_icon (prs_mcp_server_item_get_state (item));

  if (prs_mcp_server_item_get_state (item) == PRS_MCP_SERVER_OFF)
    adw_action_row_set_subtitle (ADW_ACTION_ROW (row), _("Off: its tools are not offered to agents."));
  else
    adw_action_row_set_subtitle (ADW_ACTION_ROW (row), status);
  if (old_icon != NULL)
    adw_action_row_remove (ADW_ACTION_ROW (row), old_icon);
  adw_action_row_add_prefix (ADW_ACTION_ROW (row), icon);
  g_object_set_data (G_OBJECT (row), "prs-state-icon", icon);
}

static GtkWidget *
state_row (PrsMcpServerItem *item)
{
  GtkWidget *row = prs_tools_page_text_row (_("State"), NULL);

  gtk_widget_set_name (row, "mcp-server-state");
  update_state_row (row, item);
  return row;
}

/* The schema as the model gets it, under its title (an expander in an
 * expander would show its parent's arrow) */
static GtkWidget *
schema_row (const PrsTool *tool)
{
  g_autoptr(JsonNode) schema = prs_tool_build_input_schema (tool);
  g_autofree char *text = prs_json_to_string (schema, TRUE);
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  GtkWidget *title = gtk_label_new (_("Input Schema"));
  GtkWidget *label;

  if (g_utf8_strlen (text, -1) > SCHEMA_PREVIEW_MAX_CHARS)
    {
      char *end = g_utf8_offset_to_pointer (text, SCHEMA_PREVIEW_MAX_CHARS);

      *end = '\0';
    }
  label = gtk_label_new (text);
  gtk_label_set_xalign (GTK_LABEL (title), 0.0);
  gtk_label_set_xalign (GTK_LABEL (label), 0.0);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  gtk_widget_add_css_class (label, "monospace");
  gtk_widget_add_css_class (label, "caption");
  gtk_widget_set_margin_top (box, 10);
  gtk_widget_set_margin_bottom (box, 10);
  gtk_widget_set_margin_start (box, 12);
  gtk_widget_set_margin_end (box, 12);
  gtk_box_append (GTK_BOX (box), title);
  gtk_box_append (GTK_BOX (box), label);
  gtk_widget_set_name (box, "mcp-tool-schema");
  return box;
}

static void
fill_tool_row (GtkWidget     *expander,
               const PrsTool *tool)
{
  GtkWidget *row;

  adw_expander_row_add_row (ADW_EXPANDER_ROW (expander),
                            prs_tools_page_text_row (_("Description"),
                                                     tool->description[0] != '\0' ? tool->description
                                                                                  : _("The server gives none.")));
  adw_expander_row_add_row (ADW_EXPANDER_ROW (expander), prs_tools_page_text_row (_("On the Server"), tool->mcp_tool));
  if (tool->mcp_name_note != NULL)
    {
      row = prs_tools_page_text_row (_("Renamed"), tool->mcp_name_note);
      gtk_widget_set_name (row, "mcp-tool-renamed");
      adw_expander_row_add_row (ADW_EXPANDER_ROW (expander), row);
    }
  if (tool->params->len == 0)
    adw_expander_row_add_row (ADW_EXPANDER_ROW (expander),
                              prs_tools_page_text_row (_("Parameters"), _("None: the tool is called without arguments")));
  for (guint i = 0; i < tool->params->len; i++)
    {
      const PrsParam *param = g_ptr_array_index (tool->params, i);
      g_autofree char *subtitle = prs_tools_page_describe_param (param);

      row = prs_tools_page_text_row (param->name, subtitle);
      gtk_widget_add_css_class (row, "monospace-title");
      adw_expander_row_add_row (ADW_EXPANDER_ROW (expander), row);
    }
  adw_expander_row_add_row (ADW_EXPANDER_ROW (expander), schema_row (tool));
}

/* What a tool row holds is made when it is first opened: a server may
 * list a thousand tools */
static void
on_tool_expanded (GtkWidget  *expander,
                  GParamSpec *pspec,
                  gpointer    data)
{
  PrsTool *tool = g_object_get_data (G_OBJECT (expander), "prs-tool");

  if (tool == NULL || !adw_expander_row_get_expanded (ADW_EXPANDER_ROW (expander)))
    return;
  fill_tool_row (expander, tool);
  g_object_set_data (G_OBJECT (expander), "prs-tool", NULL);
}

static GtkWidget *
tool_row (const PrsTool *tool)
{
  GtkWidget *expander = adw_expander_row_new ();

  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (expander), FALSE);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (expander), tool->name);
  adw_expander_row_set_subtitle (ADW_EXPANDER_ROW (expander), tool->description);
  gtk_widget_set_name (expander, "mcp-tool-row");
  g_object_set_data_full (G_OBJECT (expander), "prs-tool", prs_tool_copy (tool), (GDestroyNotify) prs_tool_free);
  g_signal_connect (expander, "notify::expanded", G_CALLBACK (on_tool_expanded), NULL);
  return expander;
}

/* The rest of a server's tools, TOOLS_SHOWN_FIRST at a time, one batch per
 * main loop turn so the window keeps drawing */
typedef struct
{
  GtkWidget *group;     /* weak: it goes with the page */
  GtkWidget *more_row;
  GPtrArray *tools;     /* PrsTool* still to show */
  guint      next;
} MoreTools;

static void
more_tools_free (MoreTools *more)
{
  g_clear_weak_pointer (&more->group);
  g_ptr_array_unref (more->tools);
  g_free (more);
}

static gboolean
on_more_tools (gpointer data)
{
  MoreTools *more = data;

  /* The page was made anew meanwhile */
  if (more->group == NULL)
    return G_SOURCE_REMOVE;
  for (guint n = 0; n < TOOLS_SHOWN_FIRST && more->next < more->tools->len; n++, more->next++)
    adw_preferences_group_add (ADW_PREFERENCES_GROUP (more->group),
                               tool_row (g_ptr_array_index (more->tools, more->next)));
  return more->next < more->tools->len;
}

static void
on_show_all_clicked (GtkButton *button,
                     gpointer   data)
{
  /* From now on the batches' own: the button goes with its row */
  MoreTools *more = g_object_steal_data (G_OBJECT (button), "prs-more-tools");

  adw_preferences_group_remove (ADW_PREFERENCES_GROUP (more->group), more->more_row);
  g_idle_add_full (G_PRIORITY_LOW, on_more_tools, more, (GDestroyNotify) more_tools_free);
}

static GtkWidget *
more_row (GtkWidget *group,
          GPtrArray *rest)
{
  g_autofree char *title = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u more tool", "%u more tools",
                                                         rest->len), rest->len);
  GtkWidget *row = prs_tools_page_text_row (title, NULL);
  GtkWidget *button = gtk_button_new_with_mnemonic (_("Show _All"));
  MoreTools *more = g_new0 (MoreTools, 1);

  g_set_weak_pointer (&more->group, group);
  more->more_row = row;
  more->tools = g_ptr_array_ref (rest);
  gtk_widget_set_valign (button, GTK_ALIGN_CENTER);
  gtk_widget_set_name (button, "mcp-show-all-tools");
  g_object_set_data_full (G_OBJECT (button), "prs-more-tools", more, (GDestroyNotify) more_tools_free);
  g_signal_connect (button, "clicked", G_CALLBACK (on_show_all_clicked), NULL);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), button);
  return row;
}

/* One server: its state, then its tools as it listed them last */
static GtkWidget *
server_group (PrsMcpServerItem *item,
              GPtrArray        *tools)
{
  const PrsMcpServerRow *row = prs_mcp_server_item_get_row (item);
  GtkWidget *group = adw_preferences_group_new ();
  g_autofree char *title = NULL;
  g_autofree char *description = prs_mcp_server_row_describe (row);
  g_autoptr(GPtrArray) rest = g_ptr_array_new_with_free_func ((GDestroyNotify) prs_tool_free);
  GtkWidget *state;
  guint n = 0;

  /* Translators: a group on the Tools page; %s is the name the user gave an MCP server */
  title = g_strdup_printf (_("MCP Server “%s”"), row->name);
  adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (group), title);
  adw_preferences_group_set_description (ADW_PREFERENCES_GROUP (group), description);
  gtk_widget_set_name (group, "mcp-server-group");
  state = state_row (item);
  g_object_set_data (G_OBJECT (group), "prs-state-row", state);
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), state);

  for (guint i = 0; i < tools->len; i++)
    {
      const PrsTool *tool = g_ptr_array_index (tools, i);

      if (g_strcmp0 (tool->mcp_server_id, row->id) != 0)
        continue;
      if (n++ < TOOLS_SHOWN_FIRST)
        adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), tool_row (tool));
      else
        g_ptr_array_add (rest, prs_tool_copy (tool));
    }
  if (rest->len > 0)
    adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), more_row (group, rest));
  if (n == 0)
    adw_preferences_group_add (ADW_PREFERENCES_GROUP (group),
                               prs_tools_page_text_row (_("No tools listed yet"),
                                                        _("Its tools appear here once it has been reached.")));
  return group;
}

static GtkWidget *
empty_group (PrsToolsPage *self)
{
  GtkWidget *group = adw_preferences_group_new ();
  GtkWidget *row = prs_tools_page_text_row (_("No MCP servers"),
                                            _("Programs and services that speak the Model Context Protocol give "
                                              "agents more tools. Add one in Preferences."));
  GtkWidget *button = gtk_button_new_with_mnemonic (_("_Add Server…"));

  adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (group), _("MCP Servers"));
  gtk_widget_set_valign (button, GTK_ALIGN_CENTER);
  gtk_widget_set_name (button, "mcp-add-server");
  g_signal_connect (button, "clicked", G_CALLBACK (on_add_clicked), self);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), button);
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), row);
  return group;
}

static void on_item_status (PrsMcpServerItem *item, GParamSpec *pspec, PrsToolsPage *self);

void
prs_tools_page_clear_mcp (PrsToolsPage *self)
{
  for (guint i = 0; i < self->mcp_groups->len; i++)
    gtk_box_remove (self->mcp_box, g_ptr_array_index (self->mcp_groups, i));
  g_ptr_array_set_size (self->mcp_groups, 0);
  for (guint i = 0; i < self->mcp_items->len; i++)
    g_signal_handlers_disconnect_by_func (g_ptr_array_index (self->mcp_items, i), on_item_status, self);
  g_ptr_array_set_size (self->mcp_items, 0);
}

void
prs_tools_page_reload_mcp (PrsToolsPage *self)
{
  PrsMcpHub *hub = prs_service_get_mcp_hub (self->service);
  GListModel *servers = hub != NULL ? prs_mcp_hub_get_servers (hub) : NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) tools = prs_mcp_catalog_list (prs_service_get_store (self->service), FALSE, &error);
  guint n = servers != NULL ? g_list_model_get_n_items (servers) : 0;

  g_clear_handle_id (&self->mcp_rebuild_id, g_source_remove);
  prs_tools_page_clear_mcp (self);
  if (tools == NULL)
    {
      g_message ("Could not read the MCP tools: %s", error->message);
      tools = g_ptr_array_new ();
    }
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(PrsMcpServerItem) item = g_list_model_get_item (servers, i);
      GtkWidget *group = server_group (item, tools);

      gtk_box_append (self->mcp_box, group);
      g_ptr_array_add (self->mcp_groups, group);
      g_ptr_array_add (self->mcp_items, g_object_ref (item));
      g_signal_connect (item, "notify::status", G_CALLBACK (on_item_status), self);
    }
  if (n == 0)
    {
      GtkWidget *group = empty_group (self);

      gtk_box_append (self->mcp_box, group);
      g_ptr_array_add (self->mcp_groups, group);
    }
}

static gboolean
on_rebuild (gpointer data)
{
  PrsToolsPage *self = data;

  self->mcp_rebuild_id = 0;
  prs_tools_page_reload_mcp (self);
  return G_SOURCE_REMOVE;
}

/* Changes come in bursts (a server connects: its state, then its tools):
 * the page is rebuilt once for them */
static void
queue_rebuild (PrsToolsPage *self)
{
  /* Not once the page is going */
  if (self->mcp_rebuild_id == 0 && self->service != NULL && self->mcp_items != NULL)
    self->mcp_rebuild_id = g_idle_add (on_rebuild, self);
}

static void
on_item_status (PrsMcpServerItem *item,
                GParamSpec       *pspec,
                PrsToolsPage     *self)
{
  guint index;

  if (g_ptr_array_find (self->mcp_items, item, &index))
    update_state_row (g_object_get_data (g_ptr_array_index (self->mcp_groups, index), "prs-state-row"), item);
}

static void
on_servers_changed (GListModel   *servers,
                    guint         position,
                    guint         removed,
                    guint         added,
                    PrsToolsPage *self)
{
  queue_rebuild (self);
}

void
prs_tools_page_follow_mcp (PrsToolsPage *self)
{
  PrsMcpHub *hub = prs_service_get_mcp_hub (self->service);

  if (hub == NULL)
    return;
  g_signal_connect_object (hub, "tools-changed", G_CALLBACK (queue_rebuild), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (prs_mcp_hub_get_servers (hub), "items-changed", G_CALLBACK (on_servers_changed), self, 0);
}
