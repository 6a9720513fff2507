/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-field-picker.c: the Request Context field picker. The core's
 * PrsContextFieldList is filtered (path or sample contains the search text)
 * and sorted by how well the path matches, so typing a field's name puts
 * that field first; Enter in the search entry takes the selected row, Down
 * moves into the list, and typing in the list goes back to the search. */
#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#include "prs-context-field-list.h"
#include "prs-field-picker.h"

struct _PrsFieldPicker
{
  GtkPopover          parent_instance;

  GListModel         *fields;
  GtkFilterListModel *filtered;
  GtkSortListModel   *sorted;
  GtkSingleSelection *selection;
  GtkCustomFilter    *filter;
  GtkCustomSorter    *sorter;
  char               *query;     /* casefolded search text, "" for none */
  char               *current;

  AdwStatusPage      *empty_page;
  GtkListView        *list_view;
  GtkSearchEntry     *search_entry;
  GtkStack           *stack;
};

G_DEFINE_FINAL_TYPE (PrsFieldPicker, prs_field_picker, GTK_TYPE_POPOVER)

enum {
  FIELD_CHOSEN,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* ---- matching ---- */

static gboolean
contains_folded (const char *haystack,
                 const char *needle)
{
  g_autofree char *folded = g_utf8_casefold (haystack != NULL ? haystack : "", -1);

  return strstr (folded, needle) != NULL;
}

/* 0 exact path, 1 path prefix, 2 path contains, 3 sample contains, 4 none. */
static int
match_rank (PrsFieldPicker      *self,
            PrsContextFieldItem *item)
{
  g_autofree char *path = NULL;

  if (self->query[0] == '\0')
    return 0;

  path = g_utf8_casefold (prs_context_field_item_get_path (item), -1);
  if (strcmp (path, self->query) == 0)
    return 0;
  if (g_str_has_prefix (path, self->query))
    return 1;
  if (strstr (path, self->query) != NULL)
    return 2;
  if (contains_folded (prs_context_field_item_get_sample (item), self->query))
    return 3;
  return 4;
}

static gboolean
filter_item (gpointer item,
             gpointer user_data)
{
  return match_rank (user_data, item) < 4;
}

static int
sort_items (gconstpointer a,
            gconstpointer b,
            gpointer      user_data)
{
  PrsFieldPicker *self = user_data;
  PrsContextFieldItem *ia = (PrsContextFieldItem *) a;
  PrsContextFieldItem *ib = (PrsContextFieldItem *) b;
  int ra = match_rank (self, ia);
  int rb = match_rank (self, ib);

  if (ra != rb)
    return ra < rb ? GTK_ORDERING_SMALLER : GTK_ORDERING_LARGER;
  /* Shorter paths first among equals: "uid" before "message.uid". */
  if (strlen (prs_context_field_item_get_path (ia)) != strlen (prs_context_field_item_get_path (ib)))
    return strlen (prs_context_field_item_get_path (ia)) < strlen (prs_context_field_item_get_path (ib))
           ? GTK_ORDERING_SMALLER : GTK_ORDERING_LARGER;
  return gtk_ordering_from_cmpfunc (g_strcmp0 (prs_context_field_item_get_path (ia),
                                               prs_context_field_item_get_path (ib)));
}

static void
update_page (PrsFieldPicker *self)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->selection));
  gboolean any = self->fields != NULL && g_list_model_get_n_items (self->fields) > 0;

  if (n > 0)
    {
      gtk_stack_set_visible_child_name (self->stack, "list");
      return;
    }

  if (any)
    {
      adw_status_page_set_icon_name (self->empty_page, "system-search-symbolic");
      adw_status_page_set_title (self->empty_page, _("No Matching Fields"));
      adw_status_page_set_description (self->empty_page, _("Try part of a path, such as “uid”, or a sample value."));
    }
  else
    {
      adw_status_page_set_icon_name (self->empty_page, "mail-unread-symbolic");
      adw_status_page_set_title (self->empty_page, _("No Fields Yet"));
      adw_status_page_set_description (self->empty_page,
                                       _("Fields appear here once a workflow sends a message with Request Context."));
    }
  gtk_stack_set_visible_child_name (self->stack, "empty");
}

static void
refilter (PrsFieldPicker *self)
{
  const char *text = gtk_editable_get_text (GTK_EDITABLE (self->search_entry));
  g_autofree char *stripped = g_strstrip (g_strdup (text));

  g_free (self->query);
  self->query = g_utf8_casefold (stripped, -1);
  gtk_filter_changed (GTK_FILTER (self->filter), GTK_FILTER_CHANGE_DIFFERENT);
  gtk_sorter_changed (GTK_SORTER (self->sorter), GTK_SORTER_CHANGE_DIFFERENT);
  if (g_list_model_get_n_items (G_LIST_MODEL (self->selection)) > 0)
    gtk_single_selection_set_selected (self->selection, 0);
  update_page (self);
}

static void
on_search_changed (GtkEditable    *entry,
                   PrsFieldPicker *self)
{
  refilter (self);
}

/* ---- choosing ---- */

static void
choose_position (PrsFieldPicker *self,
                 guint           position)
{
  g_autoptr(PrsContextFieldItem) item = g_list_model_get_item (G_LIST_MODEL (self->selection), position);
  g_autofree char *path = NULL;

  if (item == NULL)
    return;
  path = g_strdup (prs_context_field_item_get_path (item));
  gtk_popover_popdown (GTK_POPOVER (self));
  g_signal_emit (self, signals[FIELD_CHOSEN], 0, path);
}

static void
on_list_activate (GtkListView    *list,
                  guint           position,
                  PrsFieldPicker *self)
{
  choose_position (self, position);
}

static void
on_search_activate (GtkSearchEntry *entry,
                    PrsFieldPicker *self)
{
  guint selected = gtk_single_selection_get_selected (self->selection);

  if (selected != GTK_INVALID_LIST_POSITION)
    choose_position (self, selected);
}

static void
on_stop_search (GtkSearchEntry *entry,
                PrsFieldPicker *self)
{
  gtk_popover_popdown (GTK_POPOVER (self));
}

static void
move_selection (PrsFieldPicker *self,
                int             delta)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->selection));
  guint selected = gtk_single_selection_get_selected (self->selection);

  if (n == 0)
    return;
  if (selected == GTK_INVALID_LIST_POSITION)
    selected = 0;
  else if (delta < 0)
    selected = selected > 0 ? selected - 1 : 0;
  else
    selected = MIN (selected + 1, n - 1);
  gtk_single_selection_set_selected (self->selection, selected);
}

static void
on_next_match (GtkSearchEntry *entry,
               PrsFieldPicker *self)
{
  move_selection (self, 1);
}

static void
on_previous_match (GtkSearchEntry *entry,
                   PrsFieldPicker *self)
{
  move_selection (self, -1);
}

static gboolean
on_entry_key_pressed (GtkEventControllerKey *controller,
                      guint                  keyval,
                      guint                  keycode,
                      GdkModifierType        state,
                      PrsFieldPicker        *self)
{
  if ((keyval == GDK_KEY_Down || keyval == GDK_KEY_KP_Down) &&
      g_list_model_get_n_items (G_LIST_MODEL (self->selection)) > 0)
    {
      gtk_widget_child_focus (GTK_WIDGET (self->list_view), GTK_DIR_TAB_FORWARD);
      return TRUE;
    }
  return FALSE;
}

/* ---- rows ---- */

static char *
describe_origin (PrsContextFieldItem *item)
{
  const char * const *conversations = prs_context_field_item_get_conversations (item);
  const char * const *workflows = prs_context_field_item_get_workflows (item);
  guint n_conversations = g_strv_length ((GStrv) conversations);
  guint n_workflows = g_strv_length ((GStrv) workflows);
  g_autofree char *where = NULL;
  g_autofree char *from = NULL;

  if (n_conversations == 1)
    where = g_strdup (conversations[0]);
  else if (n_conversations > 1)
    /* Translators: the first conversation a field was seen in, and how many more */
    where = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s and %u other", "%s and %u others",
                                          n_conversations - 1),
                             conversations[0], n_conversations - 1);

  if (n_workflows == 1)
    /* Translators: %s is an n8n workflow id */
    from = g_strdup_printf (_("workflow %s"), workflows[0]);
  else if (n_workflows > 1)
    from = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u workflow", "%u workflows", n_workflows),
                            n_workflows);

  if (where != NULL && from != NULL)
    /* Translators: where a field was seen: "Email Inbox · workflow wf-456" */
    return g_strdup_printf (_("%s · %s"), where, from);
  if (where != NULL)
    return g_steal_pointer (&where);
  if (from != NULL)
    return g_steal_pointer (&from);
  return g_strdup (_("Origin unknown"));
}

static void
setup_row (GtkSignalListItemFactory *factory,
           GtkListItem              *list_item,
           gpointer                  user_data)
{
  GtkWidget *grid = gtk_grid_new ();
  GtkWidget *path = gtk_label_new (NULL);
  GtkWidget *type = gtk_label_new (NULL);
  GtkWidget *check = gtk_image_new_from_icon_name ("object-select-symbolic");
  GtkWidget *sample = gtk_label_new (NULL);
  GtkWidget *origin = gtk_label_new (NULL);

  gtk_grid_set_column_spacing (GTK_GRID (grid), 8);
  gtk_grid_set_row_spacing (GTK_GRID (grid), 2);
  gtk_widget_add_css_class (grid, "field-row");

  gtk_label_set_xalign (GTK_LABEL (path), 0);
  gtk_label_set_ellipsize (GTK_LABEL (path), PANGO_ELLIPSIZE_MIDDLE);
  gtk_widget_set_hexpand (path, TRUE);
  gtk_widget_add_css_class (path, "field-path");

  gtk_widget_add_css_class (type, "field-type");
  gtk_widget_add_css_class (type, "caption");
  gtk_widget_set_valign (type, GTK_ALIGN_CENTER);

  gtk_widget_add_css_class (check, "accent");

  gtk_label_set_xalign (GTK_LABEL (sample), 0);
  gtk_label_set_ellipsize (GTK_LABEL (sample), PANGO_ELLIPSIZE_END);
  gtk_label_set_single_line_mode (GTK_LABEL (sample), TRUE);
  gtk_widget_add_css_class (sample, "field-sample");

  gtk_label_set_xalign (GTK_LABEL (origin), 0);
  gtk_label_set_ellipsize (GTK_LABEL (origin), PANGO_ELLIPSIZE_END);
  gtk_widget_add_css_class (origin, "caption");
  gtk_widget_add_css_class (origin, "dim-label");

  gtk_grid_attach (GTK_GRID (grid), path, 0, 0, 1, 1);
  gtk_grid_attach (GTK_GRID (grid), type, 1, 0, 1, 1);
  gtk_grid_attach (GTK_GRID (grid), check, 2, 0, 1, 1);
  gtk_grid_attach (GTK_GRID (grid), sample, 0, 1, 3, 1);
  gtk_grid_attach (GTK_GRID (grid), origin, 0, 2, 3, 1);

  g_object_set_data (G_OBJECT (grid), "path", path);
  g_object_set_data (G_OBJECT (grid), "type", type);
  g_object_set_data (G_OBJECT (grid), "check", check);
  g_object_set_data (G_OBJECT (grid), "sample", sample);
  g_object_set_data (G_OBJECT (grid), "origin", origin);
  gtk_list_item_set_child (list_item, grid);
}

static void
bind_row (GtkSignalListItemFactory *factory,
          GtkListItem              *list_item,
          PrsFieldPicker           *self)
{
  PrsContextFieldItem *item = gtk_list_item_get_item (list_item);
  GtkWidget *grid = gtk_list_item_get_child (list_item);
  const char *sample = prs_context_field_item_get_sample (item);
  g_autofree char *origin = describe_origin (item);
  g_autofree char *accessible = NULL;

  gtk_label_set_text (g_object_get_data (G_OBJECT (grid), "path"), prs_context_field_item_get_path (item));
  gtk_label_set_text (g_object_get_data (G_OBJECT (grid), "type"), prs_context_field_item_get_field_type (item));
  gtk_label_set_text (g_object_get_data (G_OBJECT (grid), "sample"), sample[0] != '\0' ? sample : "—");
  gtk_label_set_text (g_object_get_data (G_OBJECT (grid), "origin"), origin);
  gtk_widget_set_visible (g_object_get_data (G_OBJECT (grid), "check"),
                          g_strcmp0 (self->current, prs_context_field_item_get_path (item)) == 0);
  gtk_widget_set_tooltip_text (g_object_get_data (G_OBJECT (grid), "sample"), sample);

  /* Translators: the accessible name of a field row: path, type, sample */
  accessible = g_strdup_printf (_("%s, %s, sample %s"), prs_context_field_item_get_path (item),
                                prs_context_field_item_get_field_type (item), sample);
  gtk_accessible_update_property (GTK_ACCESSIBLE (grid), GTK_ACCESSIBLE_PROPERTY_LABEL, accessible, -1);
}

/* ---- public ---- */

GtkWidget *
prs_field_picker_new (void)
{
  return g_object_new (PRS_TYPE_FIELD_PICKER, NULL);
}

void
prs_field_picker_set_model (PrsFieldPicker *self,
                            GListModel     *fields)
{
  g_return_if_fail (PRS_IS_FIELD_PICKER (self));
  g_return_if_fail (fields == NULL || G_IS_LIST_MODEL (fields));

  if (self->fields != NULL)
    g_signal_handlers_disconnect_by_func (self->fields, update_page, self);
  g_set_object (&self->fields, fields);
  gtk_filter_list_model_set_model (self->filtered, fields);
  if (fields != NULL)
    g_signal_connect_object (fields, "items-changed", G_CALLBACK (update_page), self, G_CONNECT_SWAPPED);
  refilter (self);
}

void
prs_field_picker_set_current (PrsFieldPicker *self,
                              const char     *path)
{
  g_return_if_fail (PRS_IS_FIELD_PICKER (self));

  if (g_strcmp0 (self->current, path) == 0)
    return;
  g_free (self->current);
  self->current = g_strdup (path);
  /* Rebind the rows for the check mark: the items are the same objects,
   * so only a reset of the model makes the list view bind them again. */
  gtk_filter_list_model_set_model (self->filtered, NULL);
  gtk_filter_list_model_set_model (self->filtered, self->fields);
  refilter (self);
}

GtkEditable *
prs_field_picker_get_search_entry (PrsFieldPicker *self)
{
  g_return_val_if_fail (PRS_IS_FIELD_PICKER (self), NULL);
  return GTK_EDITABLE (self->search_entry);
}

GtkListView *
prs_field_picker_get_list_view (PrsFieldPicker *self)
{
  g_return_val_if_fail (PRS_IS_FIELD_PICKER (self), NULL);
  return self->list_view;
}

/* ---- life ---- */

/* 380 px wide (its .ui), or less than its window: on a 360 px phone a
 * wider popover went past the screen's edge (docs/conversations.md "The
 * window") */
static void
prs_field_picker_show (GtkWidget *widget)
{
  GtkWidget *root = GTK_WIDGET (gtk_widget_get_root (widget));
  GtkWidget *box = gtk_popover_get_child (GTK_POPOVER (widget));

  if (root != NULL && box != NULL && gtk_widget_get_width (root) > 0)
    gtk_widget_set_size_request (box, CLAMP (gtk_widget_get_width (root) - 48, 240, 380), -1);
  GTK_WIDGET_CLASS (prs_field_picker_parent_class)->show (widget);
}

static void
prs_field_picker_map (GtkWidget *widget)
{
  PrsFieldPicker *self = PRS_FIELD_PICKER (widget);

  GTK_WIDGET_CLASS (prs_field_picker_parent_class)->map (widget);
  gtk_editable_select_region (GTK_EDITABLE (self->search_entry), 0, -1);
  gtk_widget_grab_focus (GTK_WIDGET (self->search_entry));
}

static void
prs_field_picker_dispose (GObject *object)
{
  PrsFieldPicker *self = PRS_FIELD_PICKER (object);

  if (self->list_view != NULL)
    gtk_list_view_set_model (self->list_view, NULL);
  gtk_widget_dispose_template (GTK_WIDGET (self), PRS_TYPE_FIELD_PICKER);
  g_clear_object (&self->selection);
  self->sorted = NULL;
  self->filtered = NULL;
  self->filter = NULL;
  self->sorter = NULL;
  g_clear_object (&self->fields);

  G_OBJECT_CLASS (prs_field_picker_parent_class)->dispose (object);
}

static void
prs_field_picker_finalize (GObject *object)
{
  PrsFieldPicker *self = PRS_FIELD_PICKER (object);

  g_free (self->query);
  g_free (self->current);

  G_OBJECT_CLASS (prs_field_picker_parent_class)->finalize (object);
}

static void
prs_field_picker_class_init (PrsFieldPickerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = prs_field_picker_dispose;
  object_class->finalize = prs_field_picker_finalize;
  widget_class->show = prs_field_picker_show;
  widget_class->map = prs_field_picker_map;

  /**
   * PrsFieldPicker::field-chosen:
   * @path: the chosen field's path
   */
  signals[FIELD_CHOSEN] =
    g_signal_new ("field-chosen", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);

  gtk_widget_class_set_template_from_resource (widget_class, RESOURCE_PREFIX "/ui/prs-field-picker.ui");
  gtk_widget_class_bind_template_child (widget_class, PrsFieldPicker, empty_page);
  gtk_widget_class_bind_template_child (widget_class, PrsFieldPicker, list_view);
  gtk_widget_class_bind_template_child (widget_class, PrsFieldPicker, search_entry);
  gtk_widget_class_bind_template_child (widget_class, PrsFieldPicker, stack);
  gtk_widget_class_bind_template_callback (widget_class, on_list_activate);
  gtk_widget_class_bind_template_callback (widget_class, on_next_match);
  gtk_widget_class_bind_template_callback (widget_class, on_previous_match);
  gtk_widget_class_bind_template_callback (widget_class, on_search_activate);
  gtk_widget_class_bind_template_callback (widget_class, on_search_changed);
  gtk_widget_class_bind_template_callback (widget_class, on_stop_search);
}

static void
prs_field_picker_init (PrsFieldPicker *self)
{
  GtkListItemFactory *factory;
  GtkEventController *keys;

  self->query = g_strdup ("");
  gtk_widget_init_template (GTK_WIDGET (self));

  self->filter = gtk_custom_filter_new (filter_item, self, NULL);
  self->sorter = gtk_custom_sorter_new (sort_items, self, NULL);
  self->filtered = gtk_filter_list_model_new (NULL, GTK_FILTER (self->filter));
  self->sorted = gtk_sort_list_model_new (G_LIST_MODEL (self->filtered), GTK_SORTER (self->sorter));
  self->selection = gtk_single_selection_new (G_LIST_MODEL (self->sorted));
  gtk_single_selection_set_autoselect (self->selection, TRUE);
  gtk_list_view_set_model (self->list_view, GTK_SELECTION_MODEL (self->selection));

  factory = gtk_signal_list_item_factory_new ();
  g_signal_connect (factory, "setup", G_CALLBACK (setup_row), NULL);
  g_signal_connect (factory, "bind", G_CALLBACK (bind_row), self);
  gtk_list_view_set_factory (self->list_view, factory);
  g_object_unref (factory);

  keys = gtk_event_controller_key_new ();
  g_signal_connect (keys, "key-pressed", G_CALLBACK (on_entry_key_pressed), self);
  gtk_widget_add_controller (GTK_WIDGET (self->search_entry), keys);
  gtk_search_entry_set_key_capture_widget (self->search_entry, GTK_WIDGET (self->list_view));

  update_page (self);
}
