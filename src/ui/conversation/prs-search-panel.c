/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-search-panel.c: see prs-search-panel.h. The hits come from
 * PrsSearchList (looked up off the main thread); a row shows the
 * conversation, the message's time and the snippet, its match in bold
 * (FTS5's marks turned into escaped Pango markup). */
#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#include "prs-control-chars.h"
#include "prs-conversation-row.h"
#include "prs-list-focus.h"
#include "prs-search-panel.h"

/* Typing more than this often does not search more often */
#define SEARCH_DELAY_MS 150

struct _PrsSearchPanel
{
  GtkWidget           parent_instance;

  PrsSearchList      *results;
  GtkNoSelection     *selection;

  GtkListView        *list_view;
  GtkSpinner         *spinner;
  GtkStack           *stack;
};

G_DEFINE_FINAL_TYPE (PrsSearchPanel, prs_search_panel, GTK_TYPE_WIDGET)

enum
{
  SIGNAL_HIT_ACTIVATED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
update_page (PrsSearchPanel *self)
{
  guint n = self->results != NULL ? g_list_model_get_n_items (G_LIST_MODEL (self->results)) : 0;
  gboolean searching = self->results != NULL && prs_search_list_get_searching (self->results);
  const char *query = self->results != NULL ? prs_search_list_get_query (self->results) : "";
  const char *page;

  if (query[0] == '\0')
    page = "hint";
  else if (n > 0)
    page = "results";
  else if (searching)
    page = "searching";
  else
    page = "empty";
  gtk_spinner_set_spinning (self->spinner, g_str_equal (page, "searching"));
  gtk_stack_set_visible_child_name (self->stack, page);
}

static void
on_results_changed (PrsSearchPanel *self)
{
  update_page (self);
}

/* ---- rows ---- */

static void
setup_hit (GtkSignalListItemFactory *factory,
           GtkListItem              *item,
           gpointer                  user_data)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  GtkWidget *header = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *title = gtk_label_new (NULL);
  GtkWidget *time = gtk_label_new (NULL);
  GtkWidget *snippet = gtk_label_new (NULL);

  gtk_widget_set_margin_top (box, 6);
  gtk_widget_set_margin_bottom (box, 6);
  gtk_label_set_xalign (GTK_LABEL (title), 0.0);
  gtk_label_set_ellipsize (GTK_LABEL (title), PANGO_ELLIPSIZE_END);
  gtk_widget_set_hexpand (title, TRUE);
  gtk_widget_add_css_class (title, "heading");
  gtk_widget_add_css_class (time, "caption");
  gtk_widget_add_css_class (time, "dim-label");
  gtk_widget_add_css_class (time, "numeric");
  gtk_label_set_xalign (GTK_LABEL (snippet), 0.0);
  gtk_label_set_wrap (GTK_LABEL (snippet), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (snippet), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_lines (GTK_LABEL (snippet), 3);
  gtk_label_set_ellipsize (GTK_LABEL (snippet), PANGO_ELLIPSIZE_END);
  gtk_widget_add_css_class (snippet, "search-snippet");
  gtk_box_append (GTK_BOX (header), title);
  gtk_box_append (GTK_BOX (header), time);
  gtk_box_append (GTK_BOX (box), header);
  gtk_box_append (GTK_BOX (box), snippet);
  g_object_set_data (G_OBJECT (box), "title", title);
  g_object_set_data (G_OBJECT (box), "time", time);
  g_object_set_data (G_OBJECT (box), "snippet", snippet);
  g_object_set_data (G_OBJECT (box), "list-item", item);
  gtk_list_item_set_child (item, box);
}

static void
bind_hit (GtkSignalListItemFactory *factory,
          GtkListItem              *item,
          gpointer                  user_data)
{
  GtkWidget *box = gtk_list_item_get_child (item);
  const PrsSearchHit *hit = prs_search_item_get_hit (gtk_list_item_get_item (item));
  g_autofree char *markup = prs_search_snippet_to_markup (hit->snippet);
  g_autofree char *plain = prs_search_snippet_to_text (hit->snippet, NULL);
  g_autofree char *accessible = NULL;
  g_autofree char *time = NULL;
  g_autoptr(GDateTime) utc = hit->created_at != NULL ? g_date_time_new_from_iso8601 (hit->created_at, NULL) : NULL;
  g_autoptr(GDateTime) local = utc != NULL ? g_date_time_to_local (utc) : NULL;
  g_autoptr(GDateTime) now = g_date_time_new_now_local ();

  /* A title starts as its slug, which may hold control characters */
  g_autofree char *title = prs_text_blank_controls (hit->conversation_title != NULL ? hit->conversation_title : "", -1, FALSE);

  time = prs_conversation_row_format_time (local, now);
  gtk_label_set_text (g_object_get_data (G_OBJECT (box), "title"), title);
  gtk_label_set_text (g_object_get_data (G_OBJECT (box), "time"), time);
  gtk_label_set_markup (g_object_get_data (G_OBJECT (box), "snippet"), markup);
  /* Translators: a search hit read by a screen reader: conversation, time, the matching text */
  accessible = g_strdup_printf (_("%s, %s: %s"), title, time, plain);
  gtk_accessible_update_property (GTK_ACCESSIBLE (box), GTK_ACCESSIBLE_PROPERTY_LABEL, accessible, -1);
}

static void
emit_hit (PrsSearchPanel *self,
          guint           position)
{
  g_autoptr(PrsSearchItem) item = g_list_model_get_item (G_LIST_MODEL (self->results), position);
  const PrsSearchHit *hit;

  if (item == NULL)
    return;
  hit = prs_search_item_get_hit (item);
  g_signal_emit (self, signals[SIGNAL_HIT_ACTIVATED], 0, hit->conversation_id, hit->message_id);
}

static void
on_activate (GtkListView    *list,
             guint           position,
             PrsSearchPanel *self)
{
  emit_hit (self, position);
}

/* ---- API ---- */

void
prs_search_panel_set_service (PrsSearchPanel *self,
                              PrsService     *service)
{
  g_return_if_fail (PRS_IS_SEARCH_PANEL (self));
  g_return_if_fail (PRS_IS_SERVICE (service));

  if (self->results != NULL)
    g_signal_handlers_disconnect_by_data (self->results, self);
  g_clear_object (&self->results);
  self->results = prs_search_list_new (prs_store_get_path (prs_service_get_store (service)));
  g_signal_connect_object (self->results, "items-changed", G_CALLBACK (on_results_changed), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->results, "notify::searching", G_CALLBACK (on_results_changed), self,
                           G_CONNECT_SWAPPED);
  g_clear_object (&self->selection);
  self->selection = gtk_no_selection_new (g_object_ref (G_LIST_MODEL (self->results)));
  gtk_list_view_set_model (self->list_view, GTK_SELECTION_MODEL (self->selection));
  update_page (self);
}

void
prs_search_panel_set_query (PrsSearchPanel *self,
                            const char     *text)
{
  g_autofree char *query = g_strdup (text != NULL ? text : "");

  g_return_if_fail (PRS_IS_SEARCH_PANEL (self));
  g_return_if_fail (self->results != NULL);

  /* Leading white space means nothing; a trailing one ends a word */
  prs_search_list_set_query (self->results, g_strchug (query), SEARCH_DELAY_MS);
  update_page (self);
}

void
prs_search_panel_activate_first (PrsSearchPanel *self)
{
  g_return_if_fail (PRS_IS_SEARCH_PANEL (self));

  if (self->results != NULL && g_list_model_get_n_items (G_LIST_MODEL (self->results)) > 0)
    emit_hit (self, 0);
}

/* The list view focuses the row it had when the focus comes back to it
 * (and GTK 4.8 has no call to focus a position): the first hit's row is
 * looked for among the rows it made, after scrolling to the top, which
 * makes that row if it was not (list.scroll-to-item) */
gboolean
prs_search_panel_focus_results (PrsSearchPanel *self)
{
  GtkWidget *list;

  g_return_val_if_fail (PRS_IS_SEARCH_PANEL (self), FALSE);

  if (self->results == NULL || g_list_model_get_n_items (G_LIST_MODEL (self->results)) == 0)
    return FALSE;
  list = GTK_WIDGET (self->list_view);
  gtk_widget_activate_action (list, "list.scroll-to-item", "u", 0);
  for (GtkWidget *row = gtk_widget_get_first_child (list); row != NULL; row = gtk_widget_get_next_sibling (row))
    {
      GtkWidget *box = gtk_widget_get_first_child (row);
      GtkListItem *item = box != NULL ? g_object_get_data (G_OBJECT (box), "list-item") : NULL;

      if (item != NULL && gtk_list_item_get_position (item) == 0)
        return gtk_widget_grab_focus (row);
    }
  return gtk_widget_child_focus (list, GTK_DIR_TAB_FORWARD);
}

PrsSearchList *
prs_search_panel_get_results (PrsSearchPanel *self)
{
  g_return_val_if_fail (PRS_IS_SEARCH_PANEL (self), NULL);
  return self->results;
}

/* ---- GObject ---- */

static void
prs_search_panel_dispose (GObject *object)
{
  PrsSearchPanel *self = PRS_SEARCH_PANEL (object);
  GtkWidget *child;

  if (self->list_view != NULL)
    gtk_list_view_set_model (self->list_view, NULL);
  gtk_widget_dispose_template (GTK_WIDGET (self), PRS_TYPE_SEARCH_PANEL);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  g_clear_object (&self->selection);
  g_clear_object (&self->results);

  G_OBJECT_CLASS (prs_search_panel_parent_class)->dispose (object);
}

static void
prs_search_panel_class_init (PrsSearchPanelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = prs_search_panel_dispose;

  /**
   * PrsSearchPanel::hit-activated:
   * @conversation_id: the hit's conversation
   * @message_id: the message to open it at
   */
  signals[SIGNAL_HIT_ACTIVATED] =
    g_signal_new ("hit-activated", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_STRING);

  gtk_widget_class_set_template_from_resource (widget_class, RESOURCE_PREFIX "/ui/prs-search-panel.ui");
  gtk_widget_class_bind_template_child (widget_class, PrsSearchPanel, list_view);
  gtk_widget_class_bind_template_child (widget_class, PrsSearchPanel, spinner);
  gtk_widget_class_bind_template_child (widget_class, PrsSearchPanel, stack);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "searchpanel");
}

static void
prs_search_panel_init (PrsSearchPanel *self)
{
  GtkListItemFactory *factory;

  gtk_widget_init_template (GTK_WIDGET (self));

  factory = gtk_signal_list_item_factory_new ();
  g_signal_connect (factory, "setup", G_CALLBACK (setup_hit), NULL);
  g_signal_connect (factory, "bind", G_CALLBACK (bind_hit), NULL);
  gtk_list_view_set_factory (self->list_view, factory);
  g_object_unref (factory);
  g_signal_connect (self->list_view, "activate", G_CALLBACK (on_activate), self);
  /* With many hits, what follows the list stays in reach of Tab */
  prs_list_focus_tab_leaves (GTK_WIDGET (self->list_view));
  update_page (self);
}
