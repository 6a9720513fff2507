/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-mcp-server-editor.c: one MCP server's form (prs-mcp-server-editor.h).
 * Rows of arguments, variables and headers are added and removed in
 * place; "Test" connects with exactly what was entered (secrets left empty
 * while editing come from the keyring), so a wrong command, address or
 * header shows the server's own reason before anything is saved. */
#include "config.h"

#include <string.h>
#include <glib/gi18n.h>

#include "prs-error.h"
#include "prs-mcp-server-editor.h"

/* A variable or a header: its name, its value, whether the value is secret
 * (headers' always are) and the name whose secret the keyring keeps */
typedef struct
{
  GtkWidget      *row;
  GtkEntry       *name;
  GtkEntry       *value;
  GtkCheckButton *secret;      /* NULL for headers */
  char           *kept_name;   /* editing: the stored secret's name; NULL otherwise */
} PairRow;

struct _PrsMcpServerEditor
{
  AdwBin               parent_instance;

  PrsService          *service;
  char                *editing_id;     /* NULL for a new server */
  gboolean             editing_enabled;
  GCancellable        *cancellable;

  AdwEntryRow         *name_row;
  AdwComboRow         *transport_row;
  GtkSwitch           *shared_switch;
  AdwPreferencesGroup *program_group;
  AdwEntryRow         *command_row;
  AdwPreferencesGroup *args_group;
  AdwPreferencesGroup *env_group;
  AdwPreferencesGroup *address_group;
  AdwEntryRow         *url_row;
  AdwPreferencesGroup *headers_group;
  AdwActionRow        *test_row;
  GtkButton           *test_button;
  GtkSpinner          *test_spinner;

  GPtrArray           *arg_rows;       /* AdwEntryRow* */
  GPtrArray           *env_rows;       /* PairRow* */
  GPtrArray           *header_rows;    /* PairRow* */
};

G_DEFINE_FINAL_TYPE (PrsMcpServerEditor, prs_mcp_server_editor, ADW_TYPE_BIN)

static void
pair_row_free (PairRow *pair)
{
  g_free (pair->kept_name);
  g_free (pair);
}

static gboolean
is_http (PrsMcpServerEditor *self)
{
  return adw_combo_row_get_selected (self->transport_row) == 1;
}

static char *
entry_text (GtkEditable *editable)
{
  return g_strstrip (g_strdup (gtk_editable_get_text (editable)));
}

/* ---- Rows that come and go ---- */

static void
on_remove_arg (GtkButton          *button,
               PrsMcpServerEditor *self)
{
  GtkWidget *row = g_object_get_data (G_OBJECT (button), "prs-row");

  g_ptr_array_remove (self->arg_rows, row);
  adw_preferences_group_remove (self->args_group, row);
}

static GtkWidget *
remove_button (const char *tooltip,
               gpointer    row,
               GCallback   callback,
               gpointer    self)
{
  GtkWidget *button = gtk_button_new_from_icon_name ("user-trash-symbolic");

  gtk_widget_set_valign (button, GTK_ALIGN_CENTER);
  gtk_widget_add_css_class (button, "flat");
  gtk_widget_set_tooltip_text (button, tooltip);
  gtk_accessible_update_property (GTK_ACCESSIBLE (button), GTK_ACCESSIBLE_PROPERTY_LABEL, tooltip, -1);
  g_object_set_data (G_OBJECT (button), "prs-row", row);
  g_signal_connect (button, "clicked", callback, self);
  return button;
}

static void
add_arg_row (PrsMcpServerEditor *self,
             const char         *value)
{
  GtkWidget *row = adw_entry_row_new ();

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), _("Argument"));
  gtk_editable_set_text (GTK_EDITABLE (row), value != NULL ? value : "");
  gtk_widget_set_name (row, "mcp-argument");
  adw_entry_row_add_suffix (ADW_ENTRY_ROW (row),
                            remove_button (_("Remove Argument"), row, G_CALLBACK (on_remove_arg), self));
  adw_preferences_group_add (self->args_group, row);
  g_ptr_array_add (self->arg_rows, row);
}

static void
on_remove_pair (GtkButton          *button,
                PrsMcpServerEditor *self)
{
  PairRow *pair = g_object_get_data (G_OBJECT (button), "prs-row");
  gboolean header = pair->secret == NULL;

  adw_preferences_group_remove (header ? self->headers_group : self->env_group, pair->row);
  g_ptr_array_remove (header ? self->header_rows : self->env_rows, pair);
}

static void
on_secret_toggled (GtkCheckButton *check,
                   PairRow        *pair)
{
  gtk_entry_set_visibility (pair->value, !gtk_check_button_get_active (check));
}

/* A variable (@header FALSE) or a header row; @kept: editing, a secret is
 * stored under @name */
static void
add_pair_row (PrsMcpServerEditor *self,
              gboolean            header,
              const char         *name,
              const char         *value,
              gboolean            secret,
              gboolean            kept)
{
  PairRow *pair = g_new0 (PairRow, 1);
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);

  pair->row = adw_preferences_row_new ();
  pair->name = GTK_ENTRY (gtk_entry_new ());
  pair->value = GTK_ENTRY (gtk_entry_new ());
  pair->kept_name = kept ? g_strdup (name) : NULL;
  gtk_widget_set_name (pair->row, header ? "mcp-header" : "mcp-variable");
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (pair->row), header ? _("Header") : _("Variable"));
  gtk_editable_set_text (GTK_EDITABLE (pair->name), name != NULL ? name : "");
  gtk_editable_set_text (GTK_EDITABLE (pair->value), value != NULL ? value : "");
  gtk_entry_set_placeholder_text (pair->name, header ? _("Name, such as Authorization") : _("NAME"));
  gtk_entry_set_placeholder_text (pair->value, kept ? _("Unchanged (kept in the keyring)") : _("Value"));
  gtk_accessible_update_property (GTK_ACCESSIBLE (pair->name), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  header ? _("Header name") : _("Variable name"), -1);
  gtk_accessible_update_property (GTK_ACCESSIBLE (pair->value), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  header ? _("Header value") : _("Variable value"), -1);
  gtk_widget_set_hexpand (GTK_WIDGET (pair->value), TRUE);
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (pair->name));
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (pair->value));
  gtk_entry_set_input_purpose (pair->value, GTK_INPUT_PURPOSE_PASSWORD);
  gtk_entry_set_visibility (pair->value, !secret);
  if (!header)
    {
      pair->secret = GTK_CHECK_BUTTON (gtk_check_button_new_with_mnemonic (_("_Secret")));
      gtk_widget_set_tooltip_text (GTK_WIDGET (pair->secret), _("Keep the value in the keyring and never show it"));
      gtk_check_button_set_active (pair->secret, secret);
      g_signal_connect (pair->secret, "toggled", G_CALLBACK (on_secret_toggled), pair);
      gtk_box_append (GTK_BOX (box), GTK_WIDGET (pair->secret));
    }
  gtk_box_append (GTK_BOX (box), remove_button (header ? _("Remove Header") : _("Remove Variable"), pair,
                                                G_CALLBACK (on_remove_pair), self));
  gtk_widget_set_margin_top (box, 6);
  gtk_widget_set_margin_bottom (box, 6);
  gtk_widget_set_margin_start (box, 12);
  gtk_widget_set_margin_end (box, 6);
  gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (pair->row), box);
  gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (pair->row), FALSE);
  adw_preferences_group_add (header ? self->headers_group : self->env_group, pair->row);
  g_ptr_array_add (header ? self->header_rows : self->env_rows, pair);
}

static void
clear_rows (PrsMcpServerEditor *self)
{
  for (guint i = 0; i < self->arg_rows->len; i++)
    adw_preferences_group_remove (self->args_group, g_ptr_array_index (self->arg_rows, i));
  for (guint i = 0; i < self->env_rows->len; i++)
    adw_preferences_group_remove (self->env_group, ((PairRow *) g_ptr_array_index (self->env_rows, i))->row);
  for (guint i = 0; i < self->header_rows->len; i++)
    adw_preferences_group_remove (self->headers_group, ((PairRow *) g_ptr_array_index (self->header_rows, i))->row);
  g_ptr_array_set_size (self->arg_rows, 0);
  g_ptr_array_set_size (self->env_rows, 0);
  g_ptr_array_set_size (self->header_rows, 0);
}

static void
on_add_arg (PrsMcpServerEditor *self)
{
  add_arg_row (self, NULL);
  gtk_widget_grab_focus (g_ptr_array_index (self->arg_rows, self->arg_rows->len - 1));
}

static void
on_add_variable (PrsMcpServerEditor *self)
{
  add_pair_row (self, FALSE, NULL, NULL, FALSE, FALSE);
  gtk_widget_grab_focus (GTK_WIDGET (((PairRow *) g_ptr_array_index (self->env_rows, self->env_rows->len - 1))->name));
}

static void
on_add_header (PrsMcpServerEditor *self)
{
  add_pair_row (self, TRUE, NULL, NULL, TRUE, FALSE);
  gtk_widget_grab_focus (GTK_WIDGET (((PairRow *) g_ptr_array_index (self->header_rows,
                                                                     self->header_rows->len - 1))->name));
}

static void
on_transport_changed (PrsMcpServerEditor *self)
{
  gboolean http = is_http (self);

  gtk_widget_set_visible (GTK_WIDGET (self->program_group), !http);
  gtk_widget_set_visible (GTK_WIDGET (self->args_group), !http);
  gtk_widget_set_visible (GTK_WIDGET (self->env_group), !http);
  gtk_widget_set_visible (GTK_WIDGET (self->address_group), http);
  gtk_widget_set_visible (GTK_WIDGET (self->headers_group), http);
}

/* ---- What the form says ---- */

typedef struct
{
  PrsMcpServerRow *row;
  GPtrArray       *header_values;   /* char*, NULL entries: keep the keyring's */
  GPtrArray       *env_values;
} Form;

static void
form_free (Form *form)
{
  prs_mcp_server_row_free (form->row);
  g_ptr_array_unref (form->header_values);
  g_ptr_array_unref (form->env_values);
  g_free (form);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC (Form, form_free)

static void
wipe_free (char *value)
{
  if (value != NULL)
    memset (value, 0, strlen (value));
  g_free (value);
}

/* A secret's value: what was typed, else (editing, the same name) NULL for
 * the keyring's; a new name without a value is the layer below's to refuse */
static char *
secret_value (PairRow    *pair,
              const char *name)
{
  const char *text = gtk_editable_get_text (GTK_EDITABLE (pair->value));

  if (text[0] == '\0' && pair->kept_name != NULL && g_strcmp0 (pair->kept_name, name) == 0)
    return NULL;
  return g_strdup (text);
}

static void
collect_pairs (GPtrArray    *pairs,
               GStrvBuilder *plain,
               GStrvBuilder *secret_names,
               GPtrArray    *secret_values)
{
  for (guint i = 0; i < pairs->len; i++)
    {
      PairRow *pair = g_ptr_array_index (pairs, i);
      g_autofree char *name = entry_text (GTK_EDITABLE (pair->name));

      if (name[0] == '\0')
        continue;
      if (pair->secret != NULL && !gtk_check_button_get_active (pair->secret))
        {
          g_autofree char *entry = g_strconcat (name, "=", gtk_editable_get_text (GTK_EDITABLE (pair->value)), NULL);

          g_strv_builder_add (plain, entry);
          continue;
        }
      g_strv_builder_add (secret_names, name);
      g_ptr_array_add (secret_values, secret_value (pair, name));
    }
}

static Form *
read_form (PrsMcpServerEditor *self)
{
  Form *form = g_new0 (Form, 1);
  PrsMcpServerRow *row = g_new0 (PrsMcpServerRow, 1);
  g_autoptr(GStrvBuilder) args = g_strv_builder_new ();
  g_autoptr(GStrvBuilder) env = g_strv_builder_new ();
  g_autoptr(GStrvBuilder) secret_env = g_strv_builder_new ();
  g_autoptr(GStrvBuilder) headers = g_strv_builder_new ();
  g_autoptr(GStrvBuilder) header_plain = g_strv_builder_new ();

  form->row = row;
  form->header_values = g_ptr_array_new_with_free_func ((GDestroyNotify) wipe_free);
  form->env_values = g_ptr_array_new_with_free_func ((GDestroyNotify) wipe_free);
  row->id = g_strdup (self->editing_id);
  row->name = entry_text (GTK_EDITABLE (self->name_row));
  row->transport = g_strdup (is_http (self) ? "http" : "stdio");
  row->enabled = self->editing_id == NULL || self->editing_enabled;
  row->shared = gtk_switch_get_active (self->shared_switch);
  if (is_http (self))
    {
      row->url = entry_text (GTK_EDITABLE (self->url_row));
      collect_pairs (self->header_rows, header_plain, headers, form->header_values);
    }
  else
    {
      row->command = entry_text (GTK_EDITABLE (self->command_row));
      for (guint i = 0; i < self->arg_rows->len; i++)
        {
          const char *text = gtk_editable_get_text (g_ptr_array_index (self->arg_rows, i));

          if (text[0] != '\0')
            g_strv_builder_add (args, text);
        }
      collect_pairs (self->env_rows, env, secret_env, form->env_values);
    }
  row->args = g_strv_builder_end (args);
  row->env = g_strv_builder_end (env);
  row->secret_env = g_strv_builder_end (secret_env);
  row->header_names = g_strv_builder_end (headers);
  /* The values' arrays end like the names' */
  g_ptr_array_add (form->header_values, NULL);
  g_ptr_array_add (form->env_values, NULL);
  if (row->url != NULL && row->url[0] == '\0')
    g_clear_pointer (&row->url, g_free);
  if (row->command != NULL && row->command[0] == '\0')
    g_clear_pointer (&row->command, g_free);
  return form;
}

/* ---- Test and save ---- */

static void
set_test_state (PrsMcpServerEditor *self,
                gboolean            running,
                const char         *message)
{
  gtk_spinner_set_spinning (self->test_spinner, running);
  gtk_widget_set_visible (GTK_WIDGET (self->test_spinner), running);
  gtk_widget_set_sensitive (GTK_WIDGET (self->test_button), !running);
  adw_action_row_set_subtitle (self->test_row, message);
}

char *
prs_mcp_server_editor_describe_test (JsonObject *info)
{
  JsonObject *server = json_object_get_object_member (info, "serverInfo");
  gint64 n = json_object_get_int_member (info, "tools");
  const char *name = json_object_get_string_member_with_default (server, "name", "?");
  const char *version = json_object_get_string_member_with_default (server, "version", "");
  const char *revision = json_object_get_string_member (info, "protocolVersion");

  /* A server need not say its version (the odd one's is no text): a
   * sentence of its own then, not the one with an empty part, which
   * showed a double space */
  if (*version == '\0')
    /* Translators: the server's name as it reports it (it gave no version), its MCP revision, then "12 tools" */
    return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "Connected to %s (MCP revision %s): %d tool.",
                                         "Connected to %s (MCP revision %s): %d tools.", n),
                            name, revision, (int) n);
  /* Translators: the server's name and version as it reports them, its MCP revision, then "12 tools" */
  return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "Connected to %s %s (MCP revision %s): %d tool.",
                                       "Connected to %s %s (MCP revision %s): %d tools.", n),
                          name, version, revision, (int) n);
}

static void
on_tested (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  PrsMcpServerEditor *self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) info = prs_mcp_hub_test_finish (PRS_MCP_HUB (source), result, &error);
  g_autofree char *text = NULL;

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  text = info != NULL ? prs_mcp_server_editor_describe_test (info) : g_strdup (error->message);
  set_test_state (self, FALSE, text);
}

void
prs_mcp_server_editor_test (PrsMcpServerEditor *self)
{
  g_autoptr(Form) form = NULL;

  g_return_if_fail (PRS_IS_MCP_SERVER_EDITOR (self));

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->cancellable = g_cancellable_new ();
  form = read_form (self);
  if (form->row->name[0] == '\0')
    {
      g_free (form->row->name);
      form->row->name = g_strdup (_("New server"));
    }
  set_test_state (self, TRUE, _("Connecting…"));
  prs_mcp_hub_test_async (prs_service_get_mcp_hub (self->service), form->row,
                          (const char * const *) form->header_values->pdata,
                          (const char * const *) form->env_values->pdata,
                          self->cancellable, on_tested, self);
}

gboolean
prs_mcp_server_editor_save (PrsMcpServerEditor  *self,
                            GError             **error)
{
  g_autoptr(Form) form = NULL;
  PrsMcpHub *hub;

  g_return_val_if_fail (PRS_IS_MCP_SERVER_EDITOR (self), FALSE);

  form = read_form (self);
  hub = prs_service_get_mcp_hub (self->service);
  if (self->editing_id != NULL)
    return prs_mcp_hub_update_server (hub, form->row, (const char * const *) form->header_values->pdata,
                                      (const char * const *) form->env_values->pdata, error);
  return prs_mcp_hub_add_server (hub, form->row, (const char * const *) form->header_values->pdata,
                                 (const char * const *) form->env_values->pdata, NULL, error);
}

void
prs_mcp_server_editor_load (PrsMcpServerEditor    *self,
                            const PrsMcpServerRow *row)
{
  g_return_if_fail (PRS_IS_MCP_SERVER_EDITOR (self));

  clear_rows (self);
  g_clear_pointer (&self->editing_id, g_free);
  self->editing_id = row != NULL ? g_strdup (row->id) : NULL;
  self->editing_enabled = row == NULL || row->enabled;
  gtk_editable_set_text (GTK_EDITABLE (self->name_row), row != NULL ? row->name : "");
  adw_combo_row_set_selected (self->transport_row, row != NULL && g_strcmp0 (row->transport, "http") == 0);
  gtk_switch_set_active (self->shared_switch, row != NULL && row->shared);
  gtk_editable_set_text (GTK_EDITABLE (self->command_row), row != NULL && row->command != NULL ? row->command : "");
  gtk_editable_set_text (GTK_EDITABLE (self->url_row), row != NULL && row->url != NULL ? row->url : "");
  for (guint i = 0; row != NULL && row->args != NULL && row->args[i] != NULL; i++)
    add_arg_row (self, row->args[i]);
  for (guint i = 0; row != NULL && row->env != NULL && row->env[i] != NULL; i++)
    {
      const char *eq = strchr (row->env[i], '=');
      g_autofree char *name = eq != NULL ? g_strndup (row->env[i], eq - row->env[i]) : g_strdup (row->env[i]);

      add_pair_row (self, FALSE, name, eq != NULL ? eq + 1 : "", FALSE, FALSE);
    }
  for (guint i = 0; row != NULL && row->secret_env != NULL && row->secret_env[i] != NULL; i++)
    add_pair_row (self, FALSE, row->secret_env[i], NULL, TRUE, TRUE);
  for (guint i = 0; row != NULL && row->header_names != NULL && row->header_names[i] != NULL; i++)
    add_pair_row (self, TRUE, row->header_names[i], NULL, TRUE, TRUE);
  on_transport_changed (self);
  set_test_state (self, FALSE, _("Connects once with what is entered above, and says what the server offers."));
}

/* ---- The form ---- */

static AdwPreferencesGroup *
add_group (PrsMcpServerEditor *self,
           GtkBox             *box,
           const char         *title,
           const char         *description,
           const char         *add_label,
           const char         *add_name,
           GCallback           add)
{
  GtkWidget *group = adw_preferences_group_new ();

  adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (group), title);
  if (description != NULL)
    adw_preferences_group_set_description (ADW_PREFERENCES_GROUP (group), description);
  if (add_label != NULL)
    {
      GtkWidget *button = gtk_button_new_with_mnemonic (add_label);

      gtk_widget_add_css_class (button, "flat");
      gtk_widget_set_valign (button, GTK_ALIGN_CENTER);
      gtk_widget_set_name (button, add_name);
      g_signal_connect_swapped (button, "clicked", add, self);
      adw_preferences_group_set_header_suffix (ADW_PREFERENCES_GROUP (group), button);
    }
  gtk_box_append (box, group);
  return ADW_PREFERENCES_GROUP (group);
}

static void
build_server_group (PrsMcpServerEditor *self,
                    GtkBox             *box)
{
  AdwPreferencesGroup *group = add_group (self, box, _("Server"), NULL, NULL, NULL, NULL);
  g_autoptr(GtkStringList) transports = gtk_string_list_new ((const char *[]) {
    _("Program (stdio)"), _("Address (Streamable HTTP)"), NULL });
  GtkWidget *row;

  row = adw_entry_row_new ();
  self->name_row = ADW_ENTRY_ROW (row);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), _("Name (it starts its tools’ names)"));
  gtk_widget_set_name (row, "mcp-name");
  adw_preferences_group_add (group, row);

  row = adw_combo_row_new ();
  self->transport_row = ADW_COMBO_ROW (row);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), _("Runs as"));
  adw_combo_row_set_model (ADW_COMBO_ROW (row), G_LIST_MODEL (transports));
  gtk_widget_set_name (row, "mcp-transport");
  g_signal_connect_swapped (row, "notify::selected", G_CALLBACK (on_transport_changed), self);
  adw_preferences_group_add (group, row);

  row = adw_action_row_new ();
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), _("Shared with MCP Clients"));
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row),
                               _("Other programs that use Prosponsive as an MCP server may call its tools, with "
                                 "approval."));
  self->shared_switch = GTK_SWITCH (gtk_switch_new ());
  gtk_widget_set_valign (GTK_WIDGET (self->shared_switch), GTK_ALIGN_CENTER);
  gtk_widget_set_name (GTK_WIDGET (self->shared_switch), "mcp-shared");
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), GTK_WIDGET (self->shared_switch));
  adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), GTK_WIDGET (self->shared_switch));
  adw_preferences_group_add (group, row);
}

static void
build (PrsMcpServerEditor *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 24);
  GtkWidget *row, *button;

  build_server_group (self, GTK_BOX (box));

  self->program_group = add_group (self, GTK_BOX (box), _("Program"),
                                   _("Started without a shell; a name without a folder is looked up in PATH."),
                                   NULL, NULL, NULL);
  row = adw_entry_row_new ();
  self->command_row = ADW_ENTRY_ROW (row);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), _("Command, such as npx or node"));
  gtk_widget_set_name (row, "mcp-command");
  adw_preferences_group_add (self->program_group, row);
  self->args_group = add_group (self, GTK_BOX (box), _("Arguments"), _("One per row, given to it as they are."),
                                _("Add _Argument"), "mcp-add-argument", G_CALLBACK (on_add_arg));
  self->env_group = add_group (self, GTK_BOX (box), _("Environment"),
                               _("Variables set for it (it gets no other of Prosponsive’s). Secret values go to "
                                 "the keyring."),
                               _("Add _Variable"), "mcp-add-variable", G_CALLBACK (on_add_variable));

  self->address_group = add_group (self, GTK_BOX (box), _("Address"), NULL, NULL, NULL, NULL);
  row = adw_entry_row_new ();
  self->url_row = ADW_ENTRY_ROW (row);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), _("URL, such as https://example.org/mcp"));
  adw_entry_row_set_input_purpose (ADW_ENTRY_ROW (row), GTK_INPUT_PURPOSE_URL);
  gtk_widget_set_name (row, "mcp-url");
  adw_preferences_group_add (self->address_group, row);
  self->headers_group = add_group (self, GTK_BOX (box), _("Headers"),
                                   _("Sent with every request, such as an Authorization or an API key; their "
                                     "values go to the keyring."),
                                   _("Add _Header"), "mcp-add-header", G_CALLBACK (on_add_header));

  row = adw_action_row_new ();
  self->test_row = ADW_ACTION_ROW (row);
  /* Its subtitle is the server's name or error, never markup */
  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), _("Test"));
  adw_action_row_set_subtitle_lines (ADW_ACTION_ROW (row), 0);
  gtk_widget_set_name (row, "mcp-test");
  self->test_spinner = GTK_SPINNER (gtk_spinner_new ());
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), GTK_WIDGET (self->test_spinner));
  button = gtk_button_new_with_mnemonic (_("_Test"));
  self->test_button = GTK_BUTTON (button);
  gtk_widget_set_valign (button, GTK_ALIGN_CENTER);
  gtk_widget_set_name (button, "mcp-test-button");
  g_signal_connect_swapped (button, "clicked", G_CALLBACK (prs_mcp_server_editor_test), self);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), button);
  adw_preferences_group_add (add_group (self, GTK_BOX (box), _("Connection"), NULL, NULL, NULL, NULL), row);

  adw_bin_set_child (ADW_BIN (self), box);
}

static void
prs_mcp_server_editor_dispose (GObject *object)
{
  PrsMcpServerEditor *self = PRS_MCP_SERVER_EDITOR (object);

  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->service);

  G_OBJECT_CLASS (prs_mcp_server_editor_parent_class)->dispose (object);
}

static void
prs_mcp_server_editor_finalize (GObject *object)
{
  PrsMcpServerEditor *self = PRS_MCP_SERVER_EDITOR (object);

  g_free (self->editing_id);
  g_ptr_array_unref (self->arg_rows);
  g_ptr_array_unref (self->env_rows);
  g_ptr_array_unref (self->header_rows);

  G_OBJECT_CLASS (prs_mcp_server_editor_parent_class)->finalize (object);
}

static void
prs_mcp_server_editor_class_init (PrsMcpServerEditorClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = prs_mcp_server_editor_dispose;
  object_class->finalize = prs_mcp_server_editor_finalize;
}

static void
prs_mcp_server_editor_init (PrsMcpServerEditor *self)
{
  self->arg_rows = g_ptr_array_new ();
  self->env_rows = g_ptr_array_new_with_free_func ((GDestroyNotify) pair_row_free);
  self->header_rows = g_ptr_array_new_with_free_func ((GDestroyNotify) pair_row_free);
  build (self);
}

GtkWidget *
prs_mcp_server_editor_new (PrsService *service)
{
  PrsMcpServerEditor *self;

  g_return_val_if_fail (PRS_IS_SERVICE (service), NULL);

  self = g_object_new (PRS_TYPE_MCP_SERVER_EDITOR, NULL);
  self->service = g_object_ref (service);
  prs_mcp_server_editor_load (self, NULL);
  return GTK_WIDGET (self);
}
