/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-tools-page.c: the Tools page. Rows are rebuilt from the store after
 * every discovery; the status row says when discovery last ran and why it
 * failed, with a spinner while it runs. The MCP servers' part is
 * prs-tools-page-mcp.c. */
#include "config.h"

#include <glib/gi18n.h>

#include "prs-checklist.h"
#include "prs-json.h"
#include "prs-launcher.h"
#include "prs-tools-page-private.h"

G_DEFINE_FINAL_TYPE (PrsToolsPage, prs_tools_page, ADW_TYPE_BIN)

void
prs_tools_page_add_row (PrsToolsPage        *self,
                        AdwPreferencesGroup *group,
                        GtkWidget           *row)
{
  adw_preferences_group_add (group, row);
  g_ptr_array_add (self->rows, row);
  g_ptr_array_add (self->rows, group);
}

static void
clear_rows (PrsToolsPage *self)
{
  for (guint i = 0; i + 1 < self->rows->len; i += 2)
    adw_preferences_group_remove (g_ptr_array_index (self->rows, i + 1), g_ptr_array_index (self->rows, i));
  g_ptr_array_set_size (self->rows, 0);
}

GtkWidget *
prs_tools_page_text_row (const char *title,
                         const char *subtitle)
{
  GtkWidget *row = adw_action_row_new ();

  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  if (subtitle != NULL)
    adw_action_row_set_subtitle (ADW_ACTION_ROW (row), subtitle);
  return row;
}

static GtkWidget *
status_icon (const char *status)
{
  GtkWidget *icon;

  if (g_strcmp0 (status, "pass") == 0)
    {
      icon = gtk_image_new_from_icon_name ("emblem-ok-symbolic");
      gtk_widget_add_css_class (icon, "success");
      gtk_accessible_update_property (GTK_ACCESSIBLE (icon), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Passed"), -1);
    }
  else if (g_strcmp0 (status, "warn") == 0)
    {
      icon = gtk_image_new_from_icon_name ("dialog-warning-symbolic");
      gtk_widget_add_css_class (icon, "warning");
      gtk_accessible_update_property (GTK_ACCESSIBLE (icon), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Warning"), -1);
    }
  else
    {
      icon = gtk_image_new_from_icon_name ("dialog-error-symbolic");
      gtk_widget_add_css_class (icon, "error");
      gtk_accessible_update_property (GTK_ACCESSIBLE (icon), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Failed"), -1);
    }
  return icon;
}

static char *
dup_n8n_url (PrsToolsPage *self)
{
  g_autofree char *url = prs_store_dup_setting (prs_service_get_store (self->service), PRS_SETTING_N8N_URL);

  if (url == NULL || url[0] == '\0')
    return NULL;
  while (g_str_has_suffix (url, "/"))
    url[strlen (url) - 1] = '\0';
  return g_steal_pointer (&url);
}

static void
on_open_clicked (GtkButton    *button,
                 PrsToolsPage *self)
{
  const char *uri = g_object_get_data (G_OBJECT (button), "uri");

  if (uri != NULL)
    prs_launcher_open_uri (GTK_WIDGET (self), uri);
}

static GtkWidget *
open_button (PrsToolsPage *self,
             const char   *n8n_url,
             const char   *workflow_id)
{
  GtkWidget *button = gtk_button_new_with_label (_("Open in n8n"));
  g_autofree char *escaped = g_uri_escape_string (workflow_id, NULL, FALSE);

  gtk_widget_set_valign (button, GTK_ALIGN_CENTER);
  gtk_widget_set_name (button, "open-in-n8n");
  gtk_widget_set_tooltip_text (button, _("Open the workflow in the n8n editor"));
  g_object_set_data_full (G_OBJECT (button), "uri",
                          g_strconcat (n8n_url, "/workflow/", escaped, NULL), g_free);
  g_signal_connect (button, "clicked", G_CALLBACK (on_open_clicked), self);
  gtk_widget_set_sensitive (button, n8n_url != NULL);
  return button;
}

char *
prs_tools_page_describe_param (const PrsParam *param)
{
  const char *type = prs_param_type_to_string (param->type);

  if (param->required)
    /* Translators: a tool parameter: its type, then its description */
    return g_strdup_printf (_("%s · required — %s"), type, param->description);
  if (param->default_value != NULL)
    {
      g_autofree char *value = prs_json_to_display_string (param->default_value, FALSE);

      /* Translators: a tool parameter: its type, its default value, its description */
      return g_strdup_printf (_("%s · optional, default %s — %s"), type, value, param->description);
    }
  /* Translators: a tool parameter: its type, then its description */
  return g_strdup_printf (_("%s · optional — %s"), type, param->description);
}

static GtkWidget *
tool_row (PrsToolsPage  *self,
          const PrsTool *tool,
          const char    *n8n_url)
{
  GtkWidget *expander = adw_expander_row_new ();
  g_autofree char *webhook = NULL;
  g_autofree char *result = NULL;
  GtkWidget *row;

  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (expander), FALSE);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (expander), tool->name);
  adw_expander_row_set_subtitle (ADW_EXPANDER_ROW (expander), tool->description);
  gtk_widget_set_name (expander, "tool-row");

  /* The description is the row's subtitle, whole (it wraps) */
  if (tool->params == NULL || tool->params->len == 0)
    adw_expander_row_add_row (ADW_EXPANDER_ROW (expander),
                              prs_tools_page_text_row (_("Parameters"), _("None: the tool is called without arguments")));
  for (guint i = 0; tool->params != NULL && i < tool->params->len; i++)
    {
      const PrsParam *param = g_ptr_array_index (tool->params, i);
      g_autofree char *subtitle = prs_tools_page_describe_param (param);

      row = prs_tools_page_text_row (param->name, subtitle);
      gtk_widget_add_css_class (row, "monospace-title");
      adw_expander_row_add_row (ADW_EXPANDER_ROW (expander), row);
    }

  /* Translators: HTTP method, then the webhook's path */
  webhook = g_strdup_printf (_("%s /webhook/%s"),
                             tool->webhook_method != NULL ? tool->webhook_method : "POST",
                             tool->webhook_path != NULL ? tool->webhook_path : "");
  adw_expander_row_add_row (ADW_EXPANDER_ROW (expander), prs_tools_page_text_row (_("Webhook"), webhook));
  result = prs_checklist_describe_response_mode (tool->response_mode != NULL ? tool->response_mode : "onReceived");
  adw_expander_row_add_row (ADW_EXPANDER_ROW (expander), prs_tools_page_text_row (_("Result"), result));

  row = prs_tools_page_text_row (_("Workflow"), tool->workflow_name);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), open_button (self, n8n_url, tool->workflow_id));
  adw_expander_row_add_row (ADW_EXPANDER_ROW (expander), row);
  return expander;
}

static GtkWidget *
workflow_row (PrsToolsPage *self,
              JsonObject   *checklist,
              const char   *n8n_url)
{
  GtkWidget *expander = adw_expander_row_new ();
  const char *name = json_object_get_string_member_with_default (checklist, "workflowName", "");
  const char *id = json_object_get_string_member_with_default (checklist, "workflowId", "");
  gboolean discoverable = json_object_get_boolean_member_with_default (checklist, "discoverable", FALSE);
  const char *tool_name = NULL;
  const char *first_fail = NULL;
  const char *worst = "pass";
  g_autofree char *subtitle = NULL;
  JsonArray *checks = NULL;
  GtkWidget *button;

  if (json_object_has_member (checklist, "toolName") &&
      !json_object_get_null_member (checklist, "toolName"))
    tool_name = json_object_get_string_member (checklist, "toolName");
  if (json_object_has_member (checklist, "checks"))
    checks = json_object_get_array_member (checklist, "checks");

  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (expander), FALSE);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (expander), name[0] != '\0' ? name : id);
  gtk_widget_set_name (expander, "workflow-row");

  for (guint i = 0; checks != NULL && i < json_array_get_length (checks); i++)
    {
      JsonObject *check = json_array_get_object_element (checks, i);
      const char *status = json_object_get_string_member_with_default (check, "status", "fail");
      const char *message = json_object_get_string_member_with_default (check, "message", "");
      GtkWidget *row = prs_tools_page_text_row (message, NULL);

      adw_action_row_add_prefix (ADW_ACTION_ROW (row), status_icon (status));
      gtk_widget_add_css_class (row, "check-row");
      adw_expander_row_add_row (ADW_EXPANDER_ROW (expander), row);
      if (g_str_equal (status, "fail") && first_fail == NULL)
        first_fail = message;
      if (g_str_equal (status, "fail") || (g_str_equal (status, "warn") && g_str_equal (worst, "pass")))
        worst = status;
    }

  if (discoverable)
    /* Translators: %s is a tool name */
    subtitle = g_strdup_printf (_("Tool “%s”"), tool_name != NULL ? tool_name : "");
  else if (first_fail != NULL)
    /* Translators: %s says which requirement is missing */
    subtitle = g_strdup_printf (_("Not a tool: %s"), first_fail);
  else
    subtitle = g_strdup (_("Not a tool"));
  adw_expander_row_set_subtitle (ADW_EXPANDER_ROW (expander), subtitle);
  adw_expander_row_add_prefix (ADW_EXPANDER_ROW (expander), status_icon (discoverable ? worst : "fail"));

  button = open_button (self, n8n_url, id);
  gtk_widget_add_css_class (button, "flat");
  adw_expander_row_add_action (ADW_EXPANDER_ROW (expander), button);
  return expander;
}

static void
update_status (PrsToolsPage *self)
{
  guint n_tools = self->n_tools;
  guint n_workflows = self->n_workflows;
  PrsDiscovery *discovery = prs_service_get_discovery (self->service);
  gboolean running = discovery != NULL && prs_discovery_get_running (discovery);
  gint64 last_attempt = 0, last_success = 0;
  g_autofree char *last_error = NULL;
  g_autofree char *subtitle = NULL;

  prs_store_get_discovery_status (prs_service_get_store (self->service), &last_attempt, &last_success, &last_error);

  gtk_spinner_set_spinning (self->status_spinner, running);
  gtk_stack_set_visible_child_name (self->status_icon_stack, running ? "spinner" : "icon");
  gtk_widget_set_sensitive (GTK_WIDGET (self->refresh_button), !running);
  gtk_widget_remove_css_class (GTK_WIDGET (self->status_icon), "success");
  gtk_widget_remove_css_class (GTK_WIDGET (self->status_icon), "error");
  gtk_widget_remove_css_class (GTK_WIDGET (self->status_icon), "dim-label");

  if (running)
    subtitle = g_strdup (_("Reading the workflows from n8n…"));
  else if (last_attempt == 0)
    {
      subtitle = g_strdup (_("Not run yet"));
      gtk_image_set_from_icon_name (self->status_icon, "content-loading-symbolic");
      gtk_widget_add_css_class (GTK_WIDGET (self->status_icon), "dim-label");
    }
  else if (last_error != NULL && last_attempt > last_success)
    {
      g_autoptr(GDateTime) when = g_date_time_new_from_unix_local (last_attempt);
      g_autofree char *time = g_date_time_format (when, "%X");

      /* Translators: %s is a time, then the reason discovery failed */
      subtitle = g_strdup_printf (_("Failed at %s: %s The tools found before are kept."), time, last_error);
      gtk_image_set_from_icon_name (self->status_icon, "dialog-error-symbolic");
      gtk_widget_add_css_class (GTK_WIDGET (self->status_icon), "error");
    }
  else
    {
      g_autoptr(GDateTime) when = g_date_time_new_from_unix_local (last_success);
      g_autofree char *time = g_date_time_format (when, "%X");
      g_autofree char *tools = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u tool", "%u tools", n_tools), n_tools);
      g_autofree char *workflows = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u published workflow",
                                                                 "%u published workflows", n_workflows),
                                                    n_workflows);

      /* Translators: "Last run at 21:03: 3 tools from 5 published workflows" */
      subtitle = g_strdup_printf (_("Last run at %s: %s from %s"), time, tools, workflows);
      gtk_image_set_from_icon_name (self->status_icon, "emblem-ok-symbolic");
      gtk_widget_add_css_class (GTK_WIDGET (self->status_icon), "success");
    }
  adw_action_row_set_subtitle (self->status_row, subtitle);
}

int
prs_tools_page_reload (PrsToolsPage  *self,
                       GError       **error)
{
  g_autoptr(GPtrArray) tools = NULL;
  g_autoptr(JsonArray) checklists = NULL;
  g_autofree char *n8n_url = NULL;
  PrsStore *store;

  g_return_val_if_fail (PRS_IS_TOOLS_PAGE (self), -1);
  g_return_val_if_fail (self->service != NULL, -1);

  store = prs_service_get_store (self->service);
  clear_rows (self);

  tools = prs_store_list_tools (store, error);
  if (tools == NULL)
    return -1;
  checklists = prs_store_list_workflow_checks (store, error);
  if (checklists == NULL)
    return -1;

  n8n_url = dup_n8n_url (self);
  for (guint i = 0; i < tools->len; i++)
    prs_tools_page_add_row (self, self->tools_group, tool_row (self, g_ptr_array_index (tools, i), n8n_url));
  if (tools->len == 0)
    prs_tools_page_add_row (self, self->tools_group,
             prs_tools_page_text_row (_("No tools yet"),
                       n8n_url == NULL
                         ? _("Connect n8n in Preferences. Published workflows with a POST Webhook trigger then appear here.")
                         : _("Publish a workflow with a POST Webhook trigger in n8n, then refresh. The checklist below says what each workflow lacks.")));

  for (guint i = 0; i < json_array_get_length (checklists); i++)
    prs_tools_page_add_row (self, self->workflows_group,
             workflow_row (self, json_array_get_object_element (checklists, i), n8n_url));
  if (json_array_get_length (checklists) == 0)
    prs_tools_page_add_row (self, self->workflows_group,
             prs_tools_page_text_row (_("No published workflows seen"), _("Discovery reads the published (active) workflows of your n8n.")));

  self->n_tools = tools->len;
  self->n_workflows = json_array_get_length (checklists);
  update_status (self);
  /* Servers added with prosponsive-ctl meanwhile appear (and connect) */
  if (prs_service_get_mcp_hub (self->service) != NULL)
    prs_mcp_hub_reload (prs_service_get_mcp_hub (self->service));
  return (int) tools->len;
}

static void
toast (PrsToolsPage *self,
       const char   *text)
{
  gtk_widget_activate_action (GTK_WIDGET (self), "win.show-toast", "s", text);
}

static void
on_discovery_finished (PrsDiscovery *discovery,
                       const GError *error,
                       PrsToolsPage *self)
{
  g_autoptr(GError) local_error = NULL;
  int n = prs_tools_page_reload (self, &local_error);

  if (n < 0)
    toast (self, local_error->message);

  if (self->refresh_requested)
    {
      g_autofree char *text = NULL;

      self->refresh_requested = FALSE;
      if (error != NULL)
        text = g_strdup_printf (_("Discovery failed: %s"), error->message);
      else if (n >= 0)
        text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "Found %d tool", "Found %d tools", n), n);
      if (text != NULL)
        toast (self, text);
    }
}

static void
on_discovery_running (PrsDiscovery *discovery,
                      GParamSpec   *pspec,
                      PrsToolsPage *self)
{
  update_status (self);
}

static void
refresh_done (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(GPtrArray) tools = prs_discovery_run_finish (PRS_DISCOVERY (source), result, NULL);
}

void
prs_tools_page_refresh (PrsToolsPage *self)
{
  PrsDiscovery *discovery;

  g_return_if_fail (PRS_IS_TOOLS_PAGE (self));
  g_return_if_fail (self->service != NULL);

  discovery = prs_service_get_discovery (self->service);
  self->refresh_requested = TRUE;
  if (!prs_discovery_get_running (discovery))
    prs_discovery_run_async (discovery, NULL, refresh_done, NULL);
}

static void
on_refresh_clicked (PrsToolsPage *self)
{
  prs_tools_page_refresh (self);
}

void
prs_tools_page_set_service (PrsToolsPage *self,
                            PrsService   *service)
{
  PrsDiscovery *discovery;

  g_return_if_fail (PRS_IS_TOOLS_PAGE (self));
  g_return_if_fail (PRS_IS_SERVICE (service));
  g_return_if_fail (self->service == NULL);

  self->service = g_object_ref (service);
  prs_tools_page_follow_mcp (self);
  prs_tools_page_reload_mcp (self);
  discovery = prs_service_get_discovery (service);
  g_signal_connect_object (discovery, "notify::running", G_CALLBACK (on_discovery_running), self, 0);
  g_signal_connect_object (discovery, "finished", G_CALLBACK (on_discovery_finished), self, 0);
}

static void
prs_tools_page_dispose (GObject *object)
{
  PrsToolsPage *self = PRS_TOOLS_PAGE (object);

  g_clear_handle_id (&self->mcp_rebuild_id, g_source_remove);
  if (self->mcp_items != NULL)
    prs_tools_page_clear_mcp (self);
  gtk_widget_dispose_template (GTK_WIDGET (self), PRS_TYPE_TOOLS_PAGE);
  g_clear_pointer (&self->rows, g_ptr_array_unref);
  g_clear_pointer (&self->mcp_groups, g_ptr_array_unref);
  g_clear_pointer (&self->mcp_items, g_ptr_array_unref);
  g_clear_object (&self->service);

  G_OBJECT_CLASS (prs_tools_page_parent_class)->dispose (object);
}

static void
prs_tools_page_class_init (PrsToolsPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = prs_tools_page_dispose;

  gtk_widget_class_set_template_from_resource (widget_class, RESOURCE_PREFIX "/ui/prs-tools-page.ui");
  gtk_widget_class_bind_template_child (widget_class, PrsToolsPage, mcp_box);
  gtk_widget_class_bind_template_child (widget_class, PrsToolsPage, refresh_button);
  gtk_widget_class_bind_template_child (widget_class, PrsToolsPage, status_icon);
  gtk_widget_class_bind_template_child (widget_class, PrsToolsPage, status_icon_stack);
  gtk_widget_class_bind_template_child (widget_class, PrsToolsPage, status_row);
  gtk_widget_class_bind_template_child (widget_class, PrsToolsPage, status_spinner);
  gtk_widget_class_bind_template_child (widget_class, PrsToolsPage, tools_group);
  gtk_widget_class_bind_template_child (widget_class, PrsToolsPage, workflows_group);
  gtk_widget_class_bind_template_callback (widget_class, on_refresh_clicked);
}

static void
prs_tools_page_init (PrsToolsPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->rows = g_ptr_array_new ();
  self->mcp_groups = g_ptr_array_new ();
  self->mcp_items = g_ptr_array_new_with_free_func (g_object_unref);
}
