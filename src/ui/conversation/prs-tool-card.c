/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-tool-card.c: one tool call. Holds no business logic: its actions emit
 * signals with the (possibly edited) arguments. */
#include "config.h"

#include <string.h>
#include <glib/gi18n.h>

#include "prs-heading.h"
#include "prs-json.h"
#include "prs-text.h"
#include "prs-tool-card.h"

/* A result preview longer than this is cut (the full result is stored). */
#define RESULT_PREVIEW_MAX_CHARS 4000

struct _PrsToolCard
{
  GtkWidget    parent_instance;

  char        *status;
  JsonObject  *arguments;
  JsonObject  *provenance;
  GPtrArray   *entries;      /* GtkEntry per argument while editing */
  gboolean     editing;

  GtkWidget   *box;
  GtkWidget   *actions_box;
  GtkWidget   *args_grid;
  GtkWidget   *edit_button;
  GtkWidget   *error_label;
  GtkWidget   *name_label;
  GtkWidget   *no_args_label;
  GtkWidget   *progress_bar;
  GtkWidget   *result_expander;
  GtkWidget   *result_label;
  GtkWidget   *retry_button;
  GtkWidget   *server_label;
  GtkWidget   *status_label;
};

G_DEFINE_FINAL_TYPE (PrsToolCard, prs_tool_card, GTK_TYPE_WIDGET)

enum
{
  PROP_0,
  PROP_EDITING,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum
{
  SIGNAL_APPROVE,
  SIGNAL_DENY,
  SIGNAL_APPROVE_ALL,
  SIGNAL_RETRY,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

GtkWidget *
prs_tool_card_new (void)
{
  return g_object_new (PRS_TYPE_TOOL_CARD, NULL);
}

static char *
describe_provenance (PrsToolCard *self,
                     const char  *argument)
{
  JsonNode *node = self->provenance != NULL ? json_object_get_member (self->provenance, argument) : NULL;
  const char *source = NULL;
  const char *field = NULL;
  g_autofree char *owned_source = NULL;

  if (node != NULL && JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObject *object = json_node_get_object (node);

      source = json_object_get_string_member_with_default (object, "source", NULL);
      field = json_object_get_string_member_with_default (object, "field", NULL);
    }
  else if (node != NULL && JSON_NODE_HOLDS_VALUE (node) &&
           json_node_get_value_type (node) == G_TYPE_STRING)
    {
      const char *text = json_node_get_string (node);
      const char *colon = strchr (text, ':');

      if (colon != NULL)
        {
          owned_source = g_strndup (text, colon - text);
          source = owned_source;
          field = colon + 1;
        }
      else
        source = text;
    }

  if (g_strcmp0 (source, "context") == 0 && field != NULL && field[0] != '\0')
    /* Translators: where a tool argument's value came from; %s is a field path */
    return g_strdup_printf (_("from Request Context “%s”"), field);
  if (g_strcmp0 (source, "context") == 0)
    return g_strdup (_("from Request Context"));
  if (g_strcmp0 (source, "constant") == 0)
    return g_strdup (_("constant"));
  if (g_strcmp0 (source, "user") == 0)
    return g_strdup (_("edited by you"));
  /* The guidance's fallback when the Request Context lacks its field */
  if (g_strcmp0 (source, "default") == 0)
    return g_strdup (_("the tool’s default"));
  return g_strdup (_("from the model"));
}

static void
rebuild_arguments (PrsToolCard *self)
{
  GtkWidget *child;
  GList *members = NULL;
  int row = 0;

  while ((child = gtk_widget_get_first_child (self->args_grid)) != NULL)
    gtk_grid_remove (GTK_GRID (self->args_grid), child);
  g_ptr_array_set_size (self->entries, 0);

  if (self->arguments != NULL)
    members = json_object_get_members (self->arguments);

  for (GList *l = members; l != NULL; l = l->next, row++)
    {
      const char *name = l->data;
      g_autofree char *text = prs_json_to_display_string (json_object_get_member (self->arguments, name), FALSE);
      g_autofree char *origin = describe_provenance (self, name);
      g_autoptr(PangoAttrList) attrs = pango_attr_list_new ();
      GtkWidget *key = gtk_label_new (name);
      GtkWidget *value;
      GtkWidget *origin_label = gtk_label_new (origin);

      pango_attr_list_insert (attrs, pango_attr_weight_new (PANGO_WEIGHT_BOLD));
      gtk_label_set_attributes (GTK_LABEL (key), attrs);
      gtk_label_set_xalign (GTK_LABEL (key), 0.0);

      if (self->editing)
        {
          value = gtk_entry_new ();
          gtk_editable_set_text (GTK_EDITABLE (value), text);
          gtk_accessible_update_property (GTK_ACCESSIBLE (value),
                                          GTK_ACCESSIBLE_PROPERTY_LABEL, name, -1);
          g_object_set_data_full (G_OBJECT (value), "argument", g_strdup (name), g_free);
          g_ptr_array_add (self->entries, value);
        }
      else
        {
          if (g_utf8_strlen (text, -1) > RESULT_PREVIEW_MAX_CHARS)
            {
              char *end = g_utf8_offset_to_pointer (text, RESULT_PREVIEW_MAX_CHARS);
              *end = '\0';
            }
          value = gtk_label_new (text);
          gtk_label_set_xalign (GTK_LABEL (value), 0.0);
          gtk_label_set_wrap (GTK_LABEL (value), TRUE);
          gtk_label_set_wrap_mode (GTK_LABEL (value), PANGO_WRAP_WORD_CHAR);
          prs_text_label_no_hyphens (GTK_LABEL (value));
          gtk_label_set_selectable (GTK_LABEL (value), TRUE);
          gtk_widget_set_can_focus (value, FALSE);
        }
      gtk_widget_set_hexpand (value, TRUE);
      gtk_widget_add_css_class (value, "tool-argument-value");

      gtk_label_set_xalign (GTK_LABEL (origin_label), 0.0);
      gtk_label_set_wrap (GTK_LABEL (origin_label), TRUE);
      gtk_widget_add_css_class (origin_label, "dim-label");
      gtk_widget_add_css_class (origin_label, "caption");
      gtk_widget_add_css_class (origin_label, "tool-provenance");

      /* Where the value came from sits under it: narrow windows have no
       * room for a third column. */
      {
        GtkWidget *cell = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);

        gtk_widget_set_hexpand (cell, TRUE);
        gtk_box_append (GTK_BOX (cell), value);
        gtk_box_append (GTK_BOX (cell), origin_label);
        gtk_widget_set_valign (key, GTK_ALIGN_START);
        gtk_grid_attach (GTK_GRID (self->args_grid), key, 0, row, 1, 1);
        gtk_grid_attach (GTK_GRID (self->args_grid), cell, 1, row, 1, 1);
      }
    }

  gtk_widget_set_visible (self->no_args_label, row == 0);
  g_list_free (members);
}

static const char *
status_text (const char *status,
             const char **css)
{
  *css = "dim-label";
  if (g_strcmp0 (status, "proposed") == 0)
    {
      *css = "accent";
      return _("Waiting for Approval");
    }
  /* Approved calls start at once; the word shows only for that moment */
  if (g_strcmp0 (status, "approved") == 0)
    return _("Approved");
  if (g_strcmp0 (status, "running") == 0)
    return _("Running…");
  if (g_strcmp0 (status, "succeeded") == 0)
    {
      *css = "success";
      return _("Succeeded");
    }
  if (g_strcmp0 (status, "failed") == 0)
    {
      *css = "error";
      return _("Failed");
    }
  if (g_strcmp0 (status, "denied") == 0)
    {
      *css = "warning";
      return _("Denied");
    }
  if (g_strcmp0 (status, "interrupted") == 0)
    {
      *css = "warning";
      return _("Interrupted");
    }
  /* An MCP client's call withdrawn by its client, or a call Stop cut short */
  if (g_strcmp0 (status, "cancelled") == 0)
    return _("Cancelled");
  return status != NULL ? status : "";
}

static void
update_status (PrsToolCard *self)
{
  static const char *classes[] = { "accent", "success", "error", "warning", "dim-label" };
  const char *css;
  const char *text = status_text (self->status, &css);
  gboolean proposed = g_strcmp0 (self->status, "proposed") == 0;
  gboolean retryable = g_strcmp0 (self->status, "failed") == 0 ||
                       g_strcmp0 (self->status, "interrupted") == 0;

  for (guint i = 0; i < G_N_ELEMENTS (classes); i++)
    gtk_widget_remove_css_class (self->status_label, classes[i]);
  gtk_widget_add_css_class (self->status_label, css);
  gtk_label_set_text (GTK_LABEL (self->status_label), text);

  gtk_widget_set_visible (self->actions_box, proposed);
  gtk_widget_set_visible (self->retry_button, retryable);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "tool-card.approve", proposed);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "tool-card.deny", proposed);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "tool-card.approve-all", proposed);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "tool-card.edit", proposed);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "tool-card.retry", retryable);

  if (proposed)
    gtk_widget_add_css_class (GTK_WIDGET (self), "proposed");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (self), "proposed");
}

void
prs_tool_card_set_call (PrsToolCard *self,
                        const char  *tool_name,
                        JsonObject  *arguments,
                        JsonObject  *provenance,
                        const char  *status,
                        JsonNode    *result,
                        const char  *error)
{
  g_return_if_fail (PRS_IS_TOOL_CARD (self));

  gtk_label_set_text (GTK_LABEL (self->name_label), tool_name != NULL ? tool_name : _("Unknown tool"));

  g_clear_pointer (&self->arguments, json_object_unref);
  g_clear_pointer (&self->provenance, json_object_unref);
  if (arguments != NULL)
    self->arguments = json_object_ref (arguments);
  if (provenance != NULL)
    self->provenance = json_object_ref (provenance);

  g_free (self->status);
  self->status = g_strdup (status);
  if (self->editing && g_strcmp0 (status, "proposed") != 0)
    {
      self->editing = FALSE;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_EDITING]);
    }

  rebuild_arguments (self);
  update_status (self);

  gtk_label_set_text (GTK_LABEL (self->error_label), error != NULL ? error : "");
  gtk_widget_set_visible (self->error_label, error != NULL && error[0] != '\0');
  /* A call someone stopped or withdrew did not go wrong: its reason reads
   * as a note, not in the colour of a failure */
  if (g_strcmp0 (status, "cancelled") == 0)
    {
      gtk_widget_remove_css_class (self->error_label, "error");
      gtk_widget_add_css_class (self->error_label, "dim-label");
    }
  else
    {
      gtk_widget_remove_css_class (self->error_label, "dim-label");
      gtk_widget_add_css_class (self->error_label, "error");
    }

  if (result != NULL)
    {
      g_autofree char *text = prs_json_to_display_string (result, TRUE);

      if (g_utf8_strlen (text, -1) > RESULT_PREVIEW_MAX_CHARS)
        {
          char *end = g_utf8_offset_to_pointer (text, RESULT_PREVIEW_MAX_CHARS - 1);
          g_autofree char *cut = g_strndup (text, end - text);

          g_free (text);
          text = g_strconcat (cut, "…", NULL);
        }
      gtk_label_set_text (GTK_LABEL (self->result_label), text);
    }
  gtk_widget_set_visible (self->result_expander, result != NULL);
}

void
prs_tool_card_set_server (PrsToolCard *self,
                          const char  *server)
{
  g_autofree char *text = NULL;

  g_return_if_fail (PRS_IS_TOOL_CARD (self));

  if (server != NULL)
    /* Translators: under a tool call's name; %s is the name of an MCP server */
    text = g_strdup_printf (_("A tool of the MCP server “%s”"), server);
  gtk_label_set_text (GTK_LABEL (self->server_label), text != NULL ? text : "");
  gtk_widget_set_visible (self->server_label, text != NULL);
}

void
prs_tool_card_set_progress (PrsToolCard *self,
                            double       progress,
                            double       total,
                            const char  *message)
{
  GtkProgressBar *bar;
  g_autofree char *text = NULL;

  g_return_if_fail (PRS_IS_TOOL_CARD (self));

  bar = GTK_PROGRESS_BAR (self->progress_bar);
  /* Only while it runs: a settled call's last progress says nothing */
  if (progress < 0 || g_strcmp0 (self->status, "running") != 0)
    {
      gtk_widget_set_visible (self->progress_bar, FALSE);
      return;
    }
  if (total > 0)
    {
      gtk_progress_bar_set_fraction (bar, CLAMP (progress / total, 0.0, 1.0));
      /* Translators: a tool's progress, such as "2 of 4" */
      text = g_strdup_printf (_("%g of %g"), progress, total);
    }
  else
    {
      gtk_progress_bar_pulse (bar);
      text = g_strdup_printf ("%g", progress);
    }
  /* The server's words say more than numbers; the bar shows how far */
  if (message != NULL && message[0] != '\0')
    {
      g_free (text);
      text = g_strdup (message);
    }
  gtk_progress_bar_set_text (bar, text);
  gtk_widget_set_visible (self->progress_bar, TRUE);
}

const char *
prs_tool_card_get_status (PrsToolCard *self)
{
  g_return_val_if_fail (PRS_IS_TOOL_CARD (self), NULL);
  return self->status;
}

char *
prs_tool_card_dup_arguments (PrsToolCard *self)
{
  g_autoptr(JsonObject) edited = NULL;
  g_autoptr(JsonNode) root = NULL;

  g_return_val_if_fail (PRS_IS_TOOL_CARD (self), NULL);

  edited = json_object_new ();
  if (self->arguments != NULL)
    {
      GList *members = json_object_get_members (self->arguments);

      for (GList *l = members; l != NULL; l = l->next)
        json_object_set_member (edited, l->data,
                                json_node_copy (json_object_get_member (self->arguments, l->data)));
      g_list_free (members);
    }

  /* An edited value keeps the type of the original: strings stay strings,
   * anything else is read as JSON (and kept as text when it is not). */
  for (guint i = 0; i < self->entries->len; i++)
    {
      GtkEditable *entry = g_ptr_array_index (self->entries, i);
      const char *name = g_object_get_data (G_OBJECT (entry), "argument");
      const char *text = gtk_editable_get_text (entry);
      JsonNode *original = json_object_get_member (edited, name);
      JsonNode *value = NULL;

      if (original == NULL || !JSON_NODE_HOLDS_VALUE (original) ||
          json_node_get_value_type (original) != G_TYPE_STRING)
        value = prs_json_parse_mutable (text, strlen (text), PRS_JSON_DEFAULT_MAX_DEPTH, NULL);
      if (value == NULL)
        {
          value = json_node_new (JSON_NODE_VALUE);
          json_node_set_string (value, text);
        }
      json_object_set_member (edited, name, value);
    }

  root = json_node_new (JSON_NODE_OBJECT);
  json_node_set_object (root, edited);
  return prs_json_to_string (root, FALSE);
}

static void
approve_activated (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *parameter)
{
  PrsToolCard *self = PRS_TOOL_CARD (widget);
  g_autofree char *arguments = prs_tool_card_dup_arguments (self);

  g_signal_emit (self, signals[SIGNAL_APPROVE], 0, arguments);
}

static void
approve_all_activated (GtkWidget  *widget,
                       const char *action_name,
                       GVariant   *parameter)
{
  PrsToolCard *self = PRS_TOOL_CARD (widget);
  g_autofree char *arguments = prs_tool_card_dup_arguments (self);

  g_signal_emit (self, signals[SIGNAL_APPROVE_ALL], 0, arguments);
}

static void
deny_activated (GtkWidget  *widget,
                const char *action_name,
                GVariant   *parameter)
{
  g_signal_emit (widget, signals[SIGNAL_DENY], 0);
}

static void
retry_activated (GtkWidget  *widget,
                 const char *action_name,
                 GVariant   *parameter)
{
  g_signal_emit (widget, signals[SIGNAL_RETRY], 0);
}

static void
prs_tool_card_get_property (GObject    *object,
                            guint       prop_id,
                            GValue     *value,
                            GParamSpec *pspec)
{
  PrsToolCard *self = PRS_TOOL_CARD (object);

  switch (prop_id)
    {
    case PROP_EDITING:
      g_value_set_boolean (value, self->editing);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
prs_tool_card_set_property (GObject      *object,
                            guint         prop_id,
                            const GValue *value,
                            GParamSpec   *pspec)
{
  PrsToolCard *self = PRS_TOOL_CARD (object);

  switch (prop_id)
    {
    case PROP_EDITING:
      if (self->editing != g_value_get_boolean (value))
        {
          self->editing = g_value_get_boolean (value);
          rebuild_arguments (self);
          g_object_notify_by_pspec (object, pspec);
        }
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
prs_tool_card_dispose (GObject *object)
{
  PrsToolCard *self = PRS_TOOL_CARD (object);
  GtkWidget *child;

  gtk_widget_dispose_template (GTK_WIDGET (self), PRS_TYPE_TOOL_CARD);
  /* The template's unnamed top child too. */
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);

  G_OBJECT_CLASS (prs_tool_card_parent_class)->dispose (object);
}

static void
prs_tool_card_finalize (GObject *object)
{
  PrsToolCard *self = PRS_TOOL_CARD (object);

  g_free (self->status);
  g_clear_pointer (&self->arguments, json_object_unref);
  g_clear_pointer (&self->provenance, json_object_unref);
  g_clear_pointer (&self->entries, g_ptr_array_unref);

  G_OBJECT_CLASS (prs_tool_card_parent_class)->finalize (object);
}

static void
prs_tool_card_class_init (PrsToolCardClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = prs_tool_card_dispose;
  object_class->finalize = prs_tool_card_finalize;
  object_class->get_property = prs_tool_card_get_property;
  object_class->set_property = prs_tool_card_set_property;

  properties[PROP_EDITING] =
    g_param_spec_boolean ("editing", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * PrsToolCard::approve:
   * @arguments: the arguments to run with (JSON), edits included
   */
  signals[SIGNAL_APPROVE] =
    g_signal_new ("approve", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
  signals[SIGNAL_DENY] =
    g_signal_new ("deny", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  /**
   * PrsToolCard::approve-all:
   * @arguments: this card's arguments (JSON); the others' stay as proposed
   */
  signals[SIGNAL_APPROVE_ALL] =
    g_signal_new ("approve-all", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
  signals[SIGNAL_RETRY] =
    g_signal_new ("retry", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);

  gtk_widget_class_set_template_from_resource (widget_class, RESOURCE_PREFIX "/ui/prs-tool-card.ui");
  gtk_widget_class_bind_template_child (widget_class, PrsToolCard, actions_box);
  gtk_widget_class_bind_template_child (widget_class, PrsToolCard, args_grid);
  gtk_widget_class_bind_template_child (widget_class, PrsToolCard, box);
  gtk_widget_class_bind_template_child (widget_class, PrsToolCard, edit_button);
  gtk_widget_class_bind_template_child (widget_class, PrsToolCard, error_label);
  gtk_widget_class_bind_template_child (widget_class, PrsToolCard, name_label);
  gtk_widget_class_bind_template_child (widget_class, PrsToolCard, no_args_label);
  gtk_widget_class_bind_template_child (widget_class, PrsToolCard, progress_bar);
  gtk_widget_class_bind_template_child (widget_class, PrsToolCard, result_expander);
  gtk_widget_class_bind_template_child (widget_class, PrsToolCard, result_label);
  gtk_widget_class_bind_template_child (widget_class, PrsToolCard, retry_button);
  gtk_widget_class_bind_template_child (widget_class, PrsToolCard, server_label);
  gtk_widget_class_bind_template_child (widget_class, PrsToolCard, status_label);

  gtk_widget_class_install_action (widget_class, "tool-card.approve", NULL, approve_activated);
  gtk_widget_class_install_action (widget_class, "tool-card.deny", NULL, deny_activated);
  gtk_widget_class_install_action (widget_class, "tool-card.approve-all", NULL, approve_all_activated);
  gtk_widget_class_install_action (widget_class, "tool-card.retry", NULL, retry_activated);
  gtk_widget_class_install_property_action (widget_class, "tool-card.edit", "editing");

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "toolcard");
  g_type_ensure (PRS_TYPE_HEADING);
}

static void
prs_tool_card_init (PrsToolCard *self)
{
  self->entries = g_ptr_array_new ();
  gtk_widget_init_template (GTK_WIDGET (self));
  prs_text_label_no_hyphens (GTK_LABEL (self->name_label));
  prs_text_label_no_hyphens (GTK_LABEL (self->result_label));
  gtk_widget_add_css_class (GTK_WIDGET (self), "card");
  update_status (self);
}
