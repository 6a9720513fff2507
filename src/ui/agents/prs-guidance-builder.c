/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-guidance-builder.c: one row per parameter of the chosen tool with a
 * source drop-down (its items in PrsGuidanceSource order) and, by source,
 * the field button (with its PrsFieldPicker) and the fallback, or the
 * constant's entry. Every change is written to the agent's guidance at
 * once, then the preview is rebuilt from it with prs_guidance_build_text ()
 * — the same function runs and exports use, so the preview cannot drift.
 *
 * A source that still lacks its value (a context field not chosen yet, an
 * empty constant) writes nothing: "Let the AI decide" until it is complete.
 * Entries that end up with no parameter are dropped, so reverting every
 * choice gives back the agent as it was. */
#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#include "prs-field-picker.h"
#include "prs-guidance-builder.h"
#include "prs-guidance.h"
#include "prs-json.h"

typedef struct
{
  PrsGuidanceBuilder *builder;          /* unowned */
  char               *param;
  const PrsParam     *tool_param;       /* borrowed from builder->tools; NULL when gone */
  PrsGuidanceSource   pending;          /* the drop-down's source while incomplete */

  GtkWidget          *row;
  GtkDropDown        *source;
  GtkWidget          *details;          /* GtkStack: context | constant */
  GtkWidget          *details_revealer;
  GtkMenuButton      *field_button;
  PrsFieldPicker     *picker;
  GtkDropDown        *if_missing;
  GtkEditable        *constant;
  GtkWidget          *constant_hint;
  gboolean            updating;
  gboolean            popup_on_map;
} ParamRow;

struct _PrsGuidanceBuilder
{
  GtkWidget      parent_instance;

  GPtrArray     *tools;           /* PrsTool*, borrowed array (ref) */
  GListModel    *fields;
  GPtrArray     *guidance;        /* PrsToolGuidance*, the agent's (ref) */
  GStrv          allowed;         /* NULL: all */
  GPtrArray     *choices;         /* char* tool names, as in tool_drop_down */
  char          *selected;
  GPtrArray     *rows;            /* ParamRow* */
  char          *preview;
  gboolean       updating;

  GtkButton     *copy_button;
  GtkLabel      *empty_label;
  GtkButton     *forget_button;
  GtkListBox    *params_list;
  GtkStack      *params_stack;
  GtkLabel      *preview_label;
  GtkStack      *preview_stack;
  GtkDropDown   *tool_drop_down;
  AdwActionRow  *tool_row;
  AdwActionRow  *warning_row;
};

G_DEFINE_FINAL_TYPE (PrsGuidanceBuilder, prs_guidance_builder, GTK_TYPE_WIDGET)

enum {
  CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void rebuild_rows (PrsGuidanceBuilder *self);

/* ---- constants ---- */

JsonNode *
prs_guidance_builder_parse_constant (const char *text)
{
  JsonNode *node;

  if (text == NULL || text[0] == '\0')
    return NULL;

  node = prs_json_parse_bounded (text, strlen (text), PRS_JSON_DEFAULT_MAX_DEPTH, NULL);
  if (node != NULL)
    return node;

  node = json_node_new (JSON_NODE_VALUE);
  json_node_set_string (node, text);
  return node;
}

char *
prs_guidance_builder_format_constant (JsonNode *value)
{
  g_autoptr(JsonNode) back = NULL;
  char *json;

  if (value == NULL)
    return g_strdup ("null");

  json = prs_json_to_string (value, FALSE);
  if (JSON_NODE_HOLDS_VALUE (value) && json_node_get_value_type (value) == G_TYPE_STRING)
    {
      /* A string is shown bare unless it would read back as something else
       * ("42", "true", "\"x\"") or as nothing (""). */
      const char *text = json_node_get_string (value);

      back = prs_guidance_builder_parse_constant (text);
      if (back != NULL && json_node_equal (back, value))
        {
          g_free (json);
          return g_strdup (text);
        }
    }
  return json;
}

/* ---- the model ---- */

static const PrsTool *
find_tool (PrsGuidanceBuilder *self,
           const char         *name)
{
  for (guint i = 0; self->tools != NULL && i < self->tools->len; i++)
    {
      const PrsTool *tool = g_ptr_array_index (self->tools, i);

      if (g_strcmp0 (tool->name, name) == 0)
        return tool;
    }
  return NULL;
}

static gboolean
is_allowed (PrsGuidanceBuilder *self,
            const char         *name)
{
  return self->allowed == NULL || g_strv_contains ((const char * const *) self->allowed, name);
}

static void
drop_empty_tools (PrsGuidanceBuilder *self)
{
  for (guint i = self->guidance->len; i > 0; i--)
    {
      PrsToolGuidance *entry = g_ptr_array_index (self->guidance, i - 1);

      if (entry->params->len == 0)
        g_ptr_array_remove_index (self->guidance, i - 1);
    }
}

static void
remove_param (PrsGuidanceBuilder *self,
              const char         *tool,
              const char         *param)
{
  PrsToolGuidance *entry = prs_guidance_find_tool (self->guidance, tool);

  if (entry == NULL)
    return;
  for (guint i = 0; i < entry->params->len; i++)
    {
      const PrsParamGuidance *p = g_ptr_array_index (entry->params, i);

      if (g_strcmp0 (p->param, param) == 0)
        {
          g_ptr_array_remove_index (entry->params, i);
          break;
        }
    }
}

static void
update_preview (PrsGuidanceBuilder *self)
{
  g_free (self->preview);
  self->preview = prs_guidance_build_text (self->guidance, self->tools);
  gtk_label_set_text (self->preview_label, self->preview);
  gtk_stack_set_visible_child_name (self->preview_stack, self->preview[0] != '\0' ? "text" : "empty");
  gtk_widget_set_sensitive (GTK_WIDGET (self->copy_button), self->preview[0] != '\0');
}

static void
emit_changed (PrsGuidanceBuilder *self)
{
  drop_empty_tools (self);
  update_preview (self);
  g_signal_emit (self, signals[CHANGED], 0);
}

/* ---- one parameter ---- */

static const PrsParamGuidance *
row_guidance (ParamRow *row)
{
  PrsToolGuidance *entry = prs_guidance_find_tool (row->builder->guidance, row->builder->selected);

  return entry != NULL ? prs_tool_guidance_find_param (entry, row->param) : NULL;
}

static void
update_field_button (ParamRow   *row,
                     const char *field)
{
  if (field != NULL)
    {
      gtk_menu_button_set_label (row->field_button, field);
      gtk_widget_remove_css_class (GTK_WIDGET (row->field_button), "suggested-action");
      gtk_widget_add_css_class (GTK_WIDGET (row->field_button), "field-button");
    }
  else
    {
      gtk_menu_button_set_label (row->field_button, _("Choose a Field…"));
      gtk_widget_add_css_class (GTK_WIDGET (row->field_button), "suggested-action");
      gtk_widget_remove_css_class (GTK_WIDGET (row->field_button), "field-button");
    }
  prs_field_picker_set_current (row->picker, field);
}

/* Shows the row's widgets for @source (and the stored values). */
static void
show_source (ParamRow          *row,
             PrsGuidanceSource  source)
{
  const PrsParamGuidance *guidance = row_guidance (row);

  row->updating = TRUE;
  gtk_drop_down_set_selected (row->source, source);
  switch (source)
    {
    case PRS_GUIDANCE_SOURCE_CONTEXT:
      gtk_stack_set_visible_child_name (GTK_STACK (row->details), "context");
      update_field_button (row, guidance != NULL && guidance->source == source ? guidance->field : NULL);
      if (guidance != NULL && guidance->source == source)
        gtk_drop_down_set_selected (row->if_missing, guidance->if_missing);
      break;
    case PRS_GUIDANCE_SOURCE_CONSTANT:
      gtk_stack_set_visible_child_name (GTK_STACK (row->details), "constant");
      if (guidance != NULL && guidance->source == source)
        {
          g_autofree char *text = prs_guidance_builder_format_constant (guidance->value);

          if (g_strcmp0 (gtk_editable_get_text (row->constant), text) != 0)
            gtk_editable_set_text (row->constant, text);
        }
      break;
    case PRS_GUIDANCE_SOURCE_ASK:
    case PRS_GUIDANCE_SOURCE_MODEL:
    default:
      break;
    }
  gtk_revealer_set_reveal_child (GTK_REVEALER (row->details_revealer),
                                 source == PRS_GUIDANCE_SOURCE_CONTEXT || source == PRS_GUIDANCE_SOURCE_CONSTANT);
  row->updating = FALSE;
}

/* Writes the row's state into the guidance. */
static void
store_row (ParamRow *row)
{
  PrsGuidanceBuilder *self = row->builder;
  PrsGuidanceSource source = gtk_drop_down_get_selected (row->source);
  PrsParamGuidance *param = NULL;

  switch (source)
    {
    case PRS_GUIDANCE_SOURCE_CONTEXT:
      {
        const PrsParamGuidance *current = row_guidance (row);
        const char *field = NULL;

        if (current != NULL && current->source == PRS_GUIDANCE_SOURCE_CONTEXT)
          field = current->field;
        if (field != NULL)
          param = prs_param_guidance_new_context (row->param, field, gtk_drop_down_get_selected (row->if_missing));
      }
      break;
    case PRS_GUIDANCE_SOURCE_CONSTANT:
      {
        g_autoptr(JsonNode) value = prs_guidance_builder_parse_constant (gtk_editable_get_text (row->constant));

        if (value != NULL)
          param = prs_param_guidance_new_constant (row->param, value);
      }
      break;
    case PRS_GUIDANCE_SOURCE_ASK:
      param = prs_param_guidance_new_ask (row->param);
      break;
    case PRS_GUIDANCE_SOURCE_MODEL:
    default:
      break;
    }

  if (param != NULL)
    prs_tool_guidance_set_param (prs_guidance_ensure_tool (self->guidance, self->selected), param);
  else
    remove_param (self, self->selected, row->param);
  emit_changed (self);
}

static void
update_constant_hint (ParamRow *row)
{
  g_autoptr(JsonNode) value = prs_guidance_builder_parse_constant (gtk_editable_get_text (row->constant));
  g_autofree char *json = NULL;
  g_autofree char *hint = NULL;

  if (value == NULL)
    {
      gtk_label_set_text (GTK_LABEL (row->constant_hint),
                          _("Valid JSON is used as JSON (42, true, [1, 2], \"text\"); anything else as text."));
      return;
    }
  json = prs_json_to_string (value, FALSE);
  if (JSON_NODE_HOLDS_VALUE (value) && json_node_get_value_type (value) == G_TYPE_STRING)
    /* Translators: %s is the constant as JSON, e.g. "Archive" with its quotes */
    hint = g_strdup_printf (_("Used as the text %s."), json);
  else
    /* Translators: %s is the constant as JSON, e.g. 42 or true */
    hint = g_strdup_printf (_("Used as the JSON value %s."), json);
  gtk_label_set_text (GTK_LABEL (row->constant_hint), hint);
}

/* Scrolls the editor so that @widget is in sight; TRUE when it moved.
 * (A popover anchored outside the screen has no monitor on X11.) */
static gboolean
scroll_into_view (GtkWidget *widget)
{
  GtkWidget *scrolled = gtk_widget_get_ancestor (widget, GTK_TYPE_SCROLLED_WINDOW);
  GtkWidget *viewport;
  GtkAdjustment *adjustment;
  graphene_rect_t bounds;
  double value, page, margin = 12;

  if (scrolled == NULL || (viewport = gtk_scrolled_window_get_child (GTK_SCROLLED_WINDOW (scrolled))) == NULL ||
      !gtk_widget_compute_bounds (widget, viewport, &bounds))
    return FALSE;

  adjustment = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scrolled));
  value = gtk_adjustment_get_value (adjustment);
  page = gtk_adjustment_get_page_size (adjustment);
  if (bounds.origin.y < 0)
    gtk_adjustment_set_value (adjustment, value + bounds.origin.y - margin);
  else if (bounds.origin.y + bounds.size.height + margin > page)
    gtk_adjustment_set_value (adjustment, value + bounds.origin.y + bounds.size.height + margin - page);
  return gtk_adjustment_get_value (adjustment) != value;
}

static gboolean
popup_after_layout (GtkWidget     *widget,
                    GdkFrameClock *clock,
                    gpointer       data)
{
  /* The first tick is before the scrolled layout, the second after it. */
  if (g_object_get_data (G_OBJECT (widget), "prs-popup-tick") == NULL)
    {
      g_object_set_data (G_OBJECT (widget), "prs-popup-tick", GINT_TO_POINTER (1));
      return G_SOURCE_CONTINUE;
    }
  g_object_set_data (G_OBJECT (widget), "prs-popup-tick", NULL);
  if (gtk_widget_get_mapped (widget))
    gtk_menu_button_popup (GTK_MENU_BUTTON (widget));
  return G_SOURCE_REMOVE;
}

static gboolean
popup_picker_idle (gpointer data)
{
  GtkMenuButton *button = data;

  if (!gtk_widget_get_mapped (GTK_WIDGET (button)))
    return G_SOURCE_REMOVE;
  if (scroll_into_view (GTK_WIDGET (button)))
    gtk_widget_add_tick_callback (GTK_WIDGET (button), popup_after_layout, NULL, NULL);
  else
    gtk_menu_button_popup (button);
  return G_SOURCE_REMOVE;
}

static void
popup_picker_soon (GtkMenuButton *button)
{
  g_idle_add_full (G_PRIORITY_DEFAULT_IDLE, popup_picker_idle, g_object_ref (button), g_object_unref);
}

/* The field button shows once the row's details are revealed: pop the
 * picker up then. */
static void
on_field_button_map (GtkWidget *button,
                     ParamRow  *row)
{
  if (row->popup_on_map)
    {
      row->popup_on_map = FALSE;
      popup_picker_soon (row->field_button);
    }
}

static void
on_source_selected (GtkDropDown *drop_down,
                    GParamSpec  *pspec,
                    ParamRow    *row)
{
  PrsGuidanceSource source = gtk_drop_down_get_selected (drop_down);
  const PrsParamGuidance *current;

  if (row->updating)
    return;

  row->pending = source;
  show_source (row, source);
  store_row (row);

  /* Choosing "Request Context field" goes on to choosing the field. */
  current = row_guidance (row);
  if (source == PRS_GUIDANCE_SOURCE_CONTEXT && current == NULL)
    {
      if (gtk_widget_get_mapped (GTK_WIDGET (row->field_button)))
        popup_picker_soon (row->field_button);
      else
        row->popup_on_map = TRUE;
    }
  else
    row->popup_on_map = FALSE;
}

static void
on_field_chosen (PrsFieldPicker *picker,
                 const char     *path,
                 ParamRow       *row)
{
  PrsGuidanceBuilder *self = row->builder;
  PrsParamGuidance *param;

  param = prs_param_guidance_new_context (row->param, path, gtk_drop_down_get_selected (row->if_missing));
  prs_tool_guidance_set_param (prs_guidance_ensure_tool (self->guidance, self->selected), param);
  show_source (row, PRS_GUIDANCE_SOURCE_CONTEXT);
  emit_changed (self);
}

static void
on_if_missing_selected (GtkDropDown *drop_down,
                        GParamSpec  *pspec,
                        ParamRow    *row)
{
  if (!row->updating)
    store_row (row);
}

static void
on_constant_changed (GtkEditable *editable,
                     ParamRow    *row)
{
  update_constant_hint (row);
  if (!row->updating)
    store_row (row);
}

static void
param_row_free (ParamRow *row)
{
  g_free (row->param);
  g_free (row);
}

static char *
describe_param (const PrsParam *param)
{
  GString *meta = g_string_new (prs_param_type_to_string (param->type));

  if (param->required)
    g_string_append_printf (meta, " · %s", _("required"));
  if (param->default_value != NULL)
    {
      g_autofree char *json = prs_json_to_string (param->default_value, FALSE);

      /* Translators: %s is a parameter's default value as JSON */
      g_string_append (meta, " · ");
      g_string_append_printf (meta, _("default %s"), json);
    }
  return g_string_free (meta, FALSE);
}

static GtkWidget *
labelled (const char *text,
          GtkWidget  *mnemonic_widget)
{
  GtkWidget *label = gtk_label_new_with_mnemonic (text);

  gtk_label_set_mnemonic_widget (GTK_LABEL (label), mnemonic_widget);
  gtk_widget_add_css_class (label, "dim-label");
  return label;
}

/* The choices of "If missing": ask, then the tool's default or leaving it out. */
static GtkStringList *
missing_items_new (const PrsParam *tool_param)
{
  GtkStringList *items = gtk_string_list_new (NULL);

  gtk_string_list_append (items, _("Ask the user"));
  if (tool_param != NULL && tool_param->default_value != NULL)
    {
      g_autofree char *json = prs_json_to_string (tool_param->default_value, FALSE);
      /* Translators: %s is the tool's default value as JSON */
      g_autofree char *text = g_strdup_printf (_("Use the default (%s)"), json);

      gtk_string_list_append (items, text);
    }
  else
    gtk_string_list_append (items, _("Leave it out"));
  return items;
}

/* The parameter's name, what the tool says of it, and its description. */
static GtkWidget *
param_titles_new (const char     *name,
                  const PrsParam *tool_param,
                  gboolean        discovered)
{
  GtkWidget *titles = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  GtkWidget *title, *subtitle;
  g_autofree char *meta = NULL;

  gtk_widget_set_hexpand (titles, TRUE);
  gtk_widget_set_valign (titles, GTK_ALIGN_CENTER);

  title = gtk_label_new (name);
  gtk_label_set_xalign (GTK_LABEL (title), 0);
  gtk_label_set_selectable (GTK_LABEL (title), FALSE);
  gtk_widget_add_css_class (title, "param-name");
  gtk_box_append (GTK_BOX (titles), title);

  if (tool_param != NULL)
    meta = describe_param (tool_param);
  else if (discovered)
    meta = g_strdup (_("No longer a parameter of this tool"));
  else
    meta = g_strdup (_("Kept from the agent file"));
  subtitle = gtk_label_new (meta);
  gtk_label_set_xalign (GTK_LABEL (subtitle), 0);
  gtk_label_set_wrap (GTK_LABEL (subtitle), TRUE);
  gtk_widget_add_css_class (subtitle, "caption");
  gtk_widget_add_css_class (subtitle, "dim-label");
  if (tool_param == NULL && discovered)
    gtk_widget_add_css_class (subtitle, "warning");
  gtk_box_append (GTK_BOX (titles), subtitle);

  if (tool_param != NULL && tool_param->description != NULL && tool_param->description[0] != '\0')
    {
      GtkWidget *description = gtk_label_new (tool_param->description);

      gtk_label_set_xalign (GTK_LABEL (description), 0);
      gtk_label_set_wrap (GTK_LABEL (description), TRUE);
      gtk_widget_add_css_class (description, "param-description");
      gtk_box_append (GTK_BOX (titles), description);
    }

  return titles;
}

/* One child of the details' flow box: @label beside @widget, the child
 * itself not in the focus chain (Tab goes to @widget) */
static void
append_pair (GtkFlowBox *box,
             GtkWidget  *label,
             GtkWidget  *widget)
{
  GtkWidget *pair = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);

  gtk_box_append (GTK_BOX (pair), label);
  gtk_box_append (GTK_BOX (pair), widget);
  gtk_flow_box_append (box, pair);
  gtk_widget_set_focusable (gtk_widget_get_parent (pair), FALSE);
}

/* The details of a Request Context source: the field and its fallback,
 * side by side, or one above the other where they do not fit (a phone:
 * docs/conversations.md "The window"). */
static GtkWidget *
context_details_new (PrsGuidanceBuilder *self,
                     ParamRow           *row)
{
  g_autoptr(GtkStringList) missing_items = missing_items_new (row->tool_param);
  GtkWidget *context_box = gtk_flow_box_new ();
  GtkPopover *picker;

  gtk_widget_add_css_class (context_box, "param-details");
  gtk_flow_box_set_selection_mode (GTK_FLOW_BOX (context_box), GTK_SELECTION_NONE);
  gtk_flow_box_set_max_children_per_line (GTK_FLOW_BOX (context_box), 2);
  gtk_flow_box_set_column_spacing (GTK_FLOW_BOX (context_box), 12);
  gtk_flow_box_set_row_spacing (GTK_FLOW_BOX (context_box), 6);
  row->field_button = GTK_MENU_BUTTON (gtk_menu_button_new ());
  picker = GTK_POPOVER (prs_field_picker_new ());
  row->picker = PRS_FIELD_PICKER (picker);
  prs_field_picker_set_model (row->picker, self->fields);
  gtk_menu_button_set_popover (row->field_button, GTK_WIDGET (picker));
  gtk_menu_button_set_always_show_arrow (row->field_button, TRUE);
  gtk_widget_set_tooltip_text (GTK_WIDGET (row->field_button), _("Choose the Request Context field"));
  append_pair (GTK_FLOW_BOX (context_box), labelled (_("_Field"), GTK_WIDGET (row->field_button)),
               GTK_WIDGET (row->field_button));

  row->if_missing = GTK_DROP_DOWN (gtk_drop_down_new (G_LIST_MODEL (g_object_ref (missing_items)), NULL));
  append_pair (GTK_FLOW_BOX (context_box), labelled (_("If _missing"), GTK_WIDGET (row->if_missing)),
               GTK_WIDGET (row->if_missing));
  return context_box;
}

/* The details of a constant source: the value and a hint about its type. */
static GtkWidget *
constant_details_new (ParamRow *row)
{
  GtkWidget *constant_box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);

  gtk_widget_add_css_class (constant_box, "param-details");
  row->constant = GTK_EDITABLE (gtk_entry_new ());
  gtk_entry_set_placeholder_text (GTK_ENTRY (row->constant), _("Value"));
  gtk_accessible_update_property (GTK_ACCESSIBLE (row->constant), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Constant value"), -1);
  gtk_widget_set_hexpand (GTK_WIDGET (row->constant), TRUE);
  gtk_box_append (GTK_BOX (constant_box), GTK_WIDGET (row->constant));
  row->constant_hint = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (row->constant_hint), 0);
  gtk_label_set_wrap (GTK_LABEL (row->constant_hint), TRUE);
  gtk_widget_add_css_class (row->constant_hint, "caption");
  gtk_widget_add_css_class (row->constant_hint, "dim-label");
  gtk_box_append (GTK_BOX (constant_box), row->constant_hint);
  return constant_box;
}

static ParamRow *
param_row_new (PrsGuidanceBuilder *self,
               const char         *name,
               const PrsParam     *tool_param,
               gboolean            discovered)
{
  static const char * const sources[] = {
    N_("Request Context field"),
    N_("Constant value"),
    N_("Ask the user"),
    N_("Let the AI decide"),
    NULL
  };
  ParamRow *row = g_new0 (ParamRow, 1);
  g_autoptr(GtkStringList) source_items = gtk_string_list_new (NULL);
  g_autofree char *accessible = NULL;
  GtkWidget *box, *head, *stack;
  const PrsParamGuidance *guidance;

  row->builder = self;
  row->param = g_strdup (name);
  row->tool_param = tool_param;

  for (guint i = 0; sources[i] != NULL; i++)
    gtk_string_list_append (source_items, _(sources[i]));

  row->row = gtk_list_box_row_new ();
  gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row->row), FALSE);
  gtk_widget_add_css_class (row->row, "param-row");

  box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row->row), box);

  head = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  gtk_box_append (GTK_BOX (box), head);
  gtk_box_append (GTK_BOX (head), param_titles_new (name, tool_param, discovered));

  row->source = GTK_DROP_DOWN (gtk_drop_down_new (G_LIST_MODEL (g_object_ref (source_items)), NULL));
  gtk_widget_set_valign (GTK_WIDGET (row->source), GTK_ALIGN_START);
  /* Translators: the accessible name of a parameter's source drop-down */
  accessible = g_strdup_printf (_("Source of %s"), name);
  gtk_accessible_update_property (GTK_ACCESSIBLE (row->source), GTK_ACCESSIBLE_PROPERTY_LABEL, accessible, -1);
  gtk_box_append (GTK_BOX (head), GTK_WIDGET (row->source));

  /* The details: the field and its fallback, or the constant. */
  stack = gtk_stack_new ();
  /* Sized by the page shown: the constant's wrapping hint, measured on a
   * hidden page, asked for its whole text on one line */
  gtk_stack_set_hhomogeneous (GTK_STACK (stack), FALSE);
  gtk_stack_set_vhomogeneous (GTK_STACK (stack), FALSE);
  gtk_stack_set_interpolate_size (GTK_STACK (stack), TRUE);
  row->details = stack;
  row->details_revealer = gtk_revealer_new ();
  gtk_revealer_set_child (GTK_REVEALER (row->details_revealer), stack);
  gtk_revealer_set_transition_type (GTK_REVEALER (row->details_revealer), GTK_REVEALER_TRANSITION_TYPE_SLIDE_DOWN);
  gtk_box_append (GTK_BOX (box), row->details_revealer);
  gtk_stack_add_named (GTK_STACK (stack), context_details_new (self, row), "context");
  gtk_stack_add_named (GTK_STACK (stack), constant_details_new (row), "constant");
  update_constant_hint (row);

  guidance = row_guidance (row);
  row->pending = guidance != NULL ? guidance->source : PRS_GUIDANCE_SOURCE_MODEL;
  show_source (row, row->pending);
  /* No transition for the state it opens with. */
  gtk_revealer_set_transition_duration (GTK_REVEALER (row->details_revealer), 0);
  gtk_revealer_set_reveal_child (GTK_REVEALER (row->details_revealer),
                                 row->pending == PRS_GUIDANCE_SOURCE_CONTEXT ||
                                 row->pending == PRS_GUIDANCE_SOURCE_CONSTANT);
  gtk_revealer_set_transition_duration (GTK_REVEALER (row->details_revealer), 150);

  g_signal_connect (row->source, "notify::selected", G_CALLBACK (on_source_selected), row);
  g_signal_connect (row->if_missing, "notify::selected", G_CALLBACK (on_if_missing_selected), row);
  g_signal_connect (row->constant, "changed", G_CALLBACK (on_constant_changed), row);
  g_signal_connect (row->picker, "field-chosen", G_CALLBACK (on_field_chosen), row);
  g_signal_connect (row->field_button, "map", G_CALLBACK (on_field_button_map), row);

  return row;
}

/* ---- the tool ---- */

static void
clear_rows (PrsGuidanceBuilder *self)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->params_list))) != NULL)
    gtk_list_box_remove (self->params_list, child);
  g_ptr_array_set_size (self->rows, 0);
}

static void
rebuild_rows (PrsGuidanceBuilder *self)
{
  const PrsTool *tool;
  PrsToolGuidance *entry;
  gboolean allowed;

  clear_rows (self);

  if (self->selected == NULL)
    {
      adw_action_row_set_subtitle (self->tool_row, "");
      gtk_widget_set_visible (GTK_WIDGET (self->warning_row), FALSE);
      gtk_label_set_text (self->empty_label,
                          self->tools == NULL || self->tools->len == 0
                          ? _("No tools are discovered yet. Once n8n workflows are published as tools, their parameters can be given sources here.")
                          : _("This agent may not use any tool. Allow tools above to give their parameters sources."));
      gtk_stack_set_visible_child_name (self->params_stack, "empty");
      return;
    }

  tool = find_tool (self, self->selected);
  entry = prs_guidance_find_tool (self->guidance, self->selected);
  allowed = is_allowed (self, self->selected);

  adw_action_row_set_subtitle (self->tool_row, tool != NULL ? tool->description : "");

  if (tool == NULL || !allowed)
    {
      g_autofree char *text = NULL;

      if (tool == NULL)
        /* Translators: %s is a tool name */
        text = g_strdup_printf (_("“%s” is not discovered now. Its guidance is kept, and exported without its Purpose line, until you remove it."),
                                self->selected);
      else
        text = g_strdup_printf (_("This agent may not call “%s”. Its guidance is kept until you remove it or allow the tool."),
                                self->selected);
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->warning_row),
                                     tool == NULL ? _("Tool Not Discovered") : _("Tool Not Allowed"));
      adw_action_row_set_subtitle (self->warning_row, text);
      gtk_widget_set_visible (GTK_WIDGET (self->forget_button), entry != NULL);
      gtk_widget_set_visible (GTK_WIDGET (self->warning_row), TRUE);
    }
  else
    gtk_widget_set_visible (GTK_WIDGET (self->warning_row), FALSE);

  /* The tool's parameters in its order, then the guidance's others. */
  for (guint i = 0; tool != NULL && i < tool->params->len; i++)
    {
      const PrsParam *param = g_ptr_array_index (tool->params, i);
      ParamRow *row = param_row_new (self, param->name, param, TRUE);

      g_ptr_array_add (self->rows, row);
      gtk_list_box_append (self->params_list, row->row);
    }
  for (guint i = 0; entry != NULL && i < entry->params->len; i++)
    {
      const PrsParamGuidance *param = g_ptr_array_index (entry->params, i);
      gboolean known = FALSE;

      for (guint j = 0; j < self->rows->len && !known; j++)
        known = g_strcmp0 (((ParamRow *) g_ptr_array_index (self->rows, j))->param, param->param) == 0;
      if (!known)
        {
          ParamRow *row = param_row_new (self, param->param, NULL, tool != NULL);

          g_ptr_array_add (self->rows, row);
          gtk_list_box_append (self->params_list, row->row);
        }
    }

  if (self->rows->len == 0)
    {
      gtk_label_set_text (self->empty_label, _("This tool takes no parameters."));
      gtk_stack_set_visible_child_name (self->params_stack, "empty");
    }
  else
    gtk_stack_set_visible_child_name (self->params_stack, "params");
}

static void
add_choice (PrsGuidanceBuilder *self,
            GtkStringList      *labels,
            const char         *name)
{
  g_autofree char *label = NULL;
  const PrsTool *tool;

  for (guint i = 0; i < self->choices->len; i++)
    if (g_strcmp0 (g_ptr_array_index (self->choices, i), name) == 0)
      return;

  tool = find_tool (self, name);
  if (tool == NULL)
    /* Translators: a tool in the drop-down that n8n does not offer now */
    label = g_strdup_printf (_("%s (not discovered)"), name);
  else if (!is_allowed (self, name))
    /* Translators: a tool with guidance that the agent may not call */
    label = g_strdup_printf (_("%s (not allowed)"), name);
  else if (prs_tool_is_mcp (tool))
    /* Translators: a tool in the drop-down; %s is the name of the MCP server that lists it */
    label = g_strdup_printf (_("%s (MCP server “%s”)"), name, tool->mcp_server);
  else
    label = g_strdup (name);
  g_ptr_array_add (self->choices, g_strdup (name));
  gtk_string_list_append (labels, label);
}

static void
on_tool_selected (GtkDropDown        *drop_down,
                  GParamSpec         *pspec,
                  PrsGuidanceBuilder *self)
{
  guint selected = gtk_drop_down_get_selected (drop_down);

  if (self->updating)
    return;
  g_free (self->selected);
  self->selected = selected < self->choices->len ? g_strdup (g_ptr_array_index (self->choices, selected)) : NULL;
  rebuild_rows (self);
}

static void
refresh_choices (PrsGuidanceBuilder *self)
{
  g_autoptr(GtkStringList) labels = gtk_string_list_new (NULL);
  g_autofree char *keep = g_strdup (self->selected);
  guint position = GTK_INVALID_LIST_POSITION;

  g_ptr_array_set_size (self->choices, 0);
  if (self->allowed == NULL)
    for (guint i = 0; self->tools != NULL && i < self->tools->len; i++)
      add_choice (self, labels, ((const PrsTool *) g_ptr_array_index (self->tools, i))->name);
  else
    for (guint i = 0; self->allowed[i] != NULL; i++)
      add_choice (self, labels, self->allowed[i]);
  for (guint i = 0; self->guidance != NULL && i < self->guidance->len; i++)
    add_choice (self, labels, ((const PrsToolGuidance *) g_ptr_array_index (self->guidance, i))->tool);

  for (guint i = 0; i < self->choices->len && keep != NULL; i++)
    if (g_strcmp0 (g_ptr_array_index (self->choices, i), keep) == 0)
      position = i;
  /* Open on the first tool that has guidance, else the first tool. */
  for (guint i = 0; i < self->choices->len && position == GTK_INVALID_LIST_POSITION; i++)
    if (prs_guidance_find_tool (self->guidance, g_ptr_array_index (self->choices, i)) != NULL)
      position = i;
  if (position == GTK_INVALID_LIST_POSITION && self->choices->len > 0)
    position = 0;

  self->updating = TRUE;
  gtk_drop_down_set_model (self->tool_drop_down, G_LIST_MODEL (labels));
  gtk_drop_down_set_selected (self->tool_drop_down, position);
  self->updating = FALSE;
  gtk_widget_set_sensitive (GTK_WIDGET (self->tool_drop_down), self->choices->len > 0);

  g_free (self->selected);
  self->selected = position != GTK_INVALID_LIST_POSITION ? g_strdup (g_ptr_array_index (self->choices, position)) : NULL;
  rebuild_rows (self);
}

/* ---- callbacks ---- */

static void
on_forget_clicked (PrsGuidanceBuilder *self)
{
  for (guint i = 0; self->selected != NULL && i < self->guidance->len; i++)
    if (g_strcmp0 (((PrsToolGuidance *) g_ptr_array_index (self->guidance, i))->tool, self->selected) == 0)
      {
        g_ptr_array_remove_index (self->guidance, i);
        break;
      }
  g_clear_pointer (&self->selected, g_free);
  refresh_choices (self);
  emit_changed (self);
}

static void
on_copy_clicked (PrsGuidanceBuilder *self)
{
  gdk_clipboard_set_text (gtk_widget_get_clipboard (GTK_WIDGET (self)), self->preview);
  gtk_widget_activate_action (GTK_WIDGET (self), "win.show-toast", "s", _("Guidance copied"));
}

/* ---- public ---- */

void
prs_guidance_builder_setup (PrsGuidanceBuilder *self,
                            GPtrArray          *tools,
                            GListModel         *fields,
                            GPtrArray          *guidance,
                            const char * const *allowed_tools)
{
  g_return_if_fail (PRS_IS_GUIDANCE_BUILDER (self));
  g_return_if_fail (guidance != NULL);

  clear_rows (self);
  g_clear_pointer (&self->tools, g_ptr_array_unref);
  g_clear_pointer (&self->guidance, g_ptr_array_unref);
  self->tools = tools != NULL ? g_ptr_array_ref (tools) : NULL;
  self->guidance = g_ptr_array_ref (guidance);
  g_set_object (&self->fields, fields);
  g_strfreev (self->allowed);
  self->allowed = g_strdupv ((GStrv) allowed_tools);
  g_clear_pointer (&self->selected, g_free);

  refresh_choices (self);
  update_preview (self);
}

void
prs_guidance_builder_set_allowed_tools (PrsGuidanceBuilder *self,
                                        const char * const *allowed_tools)
{
  g_return_if_fail (PRS_IS_GUIDANCE_BUILDER (self));

  g_strfreev (self->allowed);
  self->allowed = g_strdupv ((GStrv) allowed_tools);
  if (self->guidance != NULL)
    refresh_choices (self);
}

gboolean
prs_guidance_builder_select_tool (PrsGuidanceBuilder *self,
                                  const char         *tool)
{
  g_return_val_if_fail (PRS_IS_GUIDANCE_BUILDER (self), FALSE);

  for (guint i = 0; i < self->choices->len; i++)
    if (g_strcmp0 (g_ptr_array_index (self->choices, i), tool) == 0)
      {
        if (gtk_drop_down_get_selected (self->tool_drop_down) == i)
          return TRUE;
        gtk_drop_down_set_selected (self->tool_drop_down, i);
        return TRUE;
      }
  return FALSE;
}

const char *
prs_guidance_builder_get_selected_tool (PrsGuidanceBuilder *self)
{
  g_return_val_if_fail (PRS_IS_GUIDANCE_BUILDER (self), NULL);
  return self->selected;
}

const char *
prs_guidance_builder_get_preview_text (PrsGuidanceBuilder *self)
{
  g_return_val_if_fail (PRS_IS_GUIDANCE_BUILDER (self), NULL);
  return self->preview != NULL ? self->preview : "";
}

static ParamRow *
find_row (PrsGuidanceBuilder *self,
          const char         *param)
{
  for (guint i = 0; i < self->rows->len; i++)
    {
      ParamRow *row = g_ptr_array_index (self->rows, i);

      if (g_strcmp0 (row->param, param) == 0)
        return row;
    }
  return NULL;
}

GtkDropDown *
prs_guidance_builder_get_source_drop_down (PrsGuidanceBuilder *self,
                                           const char         *param)
{
  ParamRow *row;

  g_return_val_if_fail (PRS_IS_GUIDANCE_BUILDER (self), NULL);
  row = find_row (self, param);
  return row != NULL ? row->source : NULL;
}

GtkMenuButton *
prs_guidance_builder_get_field_button (PrsGuidanceBuilder *self,
                                       const char         *param)
{
  ParamRow *row;

  g_return_val_if_fail (PRS_IS_GUIDANCE_BUILDER (self), NULL);
  row = find_row (self, param);
  return row != NULL ? row->field_button : NULL;
}

GtkDropDown *
prs_guidance_builder_get_if_missing_drop_down (PrsGuidanceBuilder *self,
                                               const char         *param)
{
  ParamRow *row;

  g_return_val_if_fail (PRS_IS_GUIDANCE_BUILDER (self), NULL);
  row = find_row (self, param);
  return row != NULL ? row->if_missing : NULL;
}

GtkEditable *
prs_guidance_builder_get_constant_entry (PrsGuidanceBuilder *self,
                                         const char         *param)
{
  ParamRow *row;

  g_return_val_if_fail (PRS_IS_GUIDANCE_BUILDER (self), NULL);
  row = find_row (self, param);
  return row != NULL ? row->constant : NULL;
}

/* ---- life ---- */

static void
prs_guidance_builder_dispose (GObject *object)
{
  PrsGuidanceBuilder *self = PRS_GUIDANCE_BUILDER (object);
  GtkWidget *child;

  if (self->params_list != NULL)
    clear_rows (self);
  gtk_widget_dispose_template (GTK_WIDGET (self), PRS_TYPE_GUIDANCE_BUILDER);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  g_clear_pointer (&self->tools, g_ptr_array_unref);
  g_clear_pointer (&self->guidance, g_ptr_array_unref);
  g_clear_object (&self->fields);

  G_OBJECT_CLASS (prs_guidance_builder_parent_class)->dispose (object);
}

static void
prs_guidance_builder_finalize (GObject *object)
{
  PrsGuidanceBuilder *self = PRS_GUIDANCE_BUILDER (object);

  g_clear_pointer (&self->rows, g_ptr_array_unref);
  g_clear_pointer (&self->choices, g_ptr_array_unref);
  g_strfreev (self->allowed);
  g_free (self->selected);
  g_free (self->preview);

  G_OBJECT_CLASS (prs_guidance_builder_parent_class)->finalize (object);
}

static void
prs_guidance_builder_class_init (PrsGuidanceBuilderClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = prs_guidance_builder_dispose;
  object_class->finalize = prs_guidance_builder_finalize;

  /**
   * PrsGuidanceBuilder::changed:
   *
   * The guidance array was edited.
   */
  signals[CHANGED] =
    g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);

  gtk_widget_class_set_template_from_resource (widget_class, RESOURCE_PREFIX "/ui/prs-guidance-builder.ui");
  gtk_widget_class_bind_template_child (widget_class, PrsGuidanceBuilder, copy_button);
  gtk_widget_class_bind_template_child (widget_class, PrsGuidanceBuilder, empty_label);
  gtk_widget_class_bind_template_child (widget_class, PrsGuidanceBuilder, forget_button);
  gtk_widget_class_bind_template_child (widget_class, PrsGuidanceBuilder, params_list);
  gtk_widget_class_bind_template_child (widget_class, PrsGuidanceBuilder, params_stack);
  gtk_widget_class_bind_template_child (widget_class, PrsGuidanceBuilder, preview_label);
  gtk_widget_class_bind_template_child (widget_class, PrsGuidanceBuilder, preview_stack);
  gtk_widget_class_bind_template_child (widget_class, PrsGuidanceBuilder, tool_drop_down);
  gtk_widget_class_bind_template_child (widget_class, PrsGuidanceBuilder, tool_row);
  gtk_widget_class_bind_template_child (widget_class, PrsGuidanceBuilder, warning_row);
  gtk_widget_class_bind_template_callback (widget_class, on_copy_clicked);
  gtk_widget_class_bind_template_callback (widget_class, on_forget_clicked);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
}

static void
prs_guidance_builder_init (PrsGuidanceBuilder *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  self->rows = g_ptr_array_new_with_free_func ((GDestroyNotify) param_row_free);
  self->choices = g_ptr_array_new_with_free_func (g_free);
  self->preview = g_strdup ("");
  g_signal_connect (self->tool_drop_down, "notify::selected", G_CALLBACK (on_tool_selected), self);
  update_preview (self);
  rebuild_rows (self);
}
