/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-window-conversations.c: keeping conversations in order, from the
 * sidebar (docs/conversations.md): New Conversation and Rename, their
 * names checked as they are typed; each row's menu (right click, the Menu
 * key, Shift+F10) to rename, pin, archive, export and delete; the keyboard
 * (F2, Delete); a selection mode to delete several; Undo for a while after
 * each deletion; archived conversations on request; searching everything
 * (Ctrl+K or Ctrl+F anywhere) and opening a hit at its message. */
#include "config.h"

#include <glib/gi18n.h>

#include "prs-control-chars.h"
#include "prs-conversation-row.h"
#include "prs-dialogs.h"
#include "prs-list-focus.h"
#include "prs-thread.h"
#include "prs-window-private.h"

static void _prs_window_export (PrsWindow       *self,
                                PrsConversation *conversation,
                                PrsExportFormat  format);

/* ---- finding conversations ---- */

static PrsConversation *
find (PrsWindow  *self,
      const char *conversation_id)
{
  return prs_conversation_list_find (_prs_window_conversations (self), conversation_id, NULL);
}

static gboolean
in_selection_mode (PrsWindow *self)
{
  return gtk_list_view_get_model (self->conversation_list) == GTK_SELECTION_MODEL (self->multi_selection);
}

/* The row the keyboard is on in the sidebar, or NULL */
static PrsConversationRow *
focused_row (PrsWindow *self)
{
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (self));

  if (focus == NULL || !gtk_widget_is_ancestor (focus, GTK_WIDGET (self->conversation_list)))
    return NULL;
  /* The list item itself, or something in the row */
  for (GtkWidget *w = focus; w != NULL && w != GTK_WIDGET (self->conversation_list); w = gtk_widget_get_parent (w))
    {
      if (PRS_IS_CONVERSATION_ROW (w))
        return PRS_CONVERSATION_ROW (w);
      if (gtk_widget_get_first_child (w) != NULL && PRS_IS_CONVERSATION_ROW (gtk_widget_get_first_child (w)))
        return PRS_CONVERSATION_ROW (gtk_widget_get_first_child (w));
    }
  return NULL;
}

/* ---- deleting, with Undo ---- */

static void
on_toast_dismissed (AdwToast  *toast,
                    PrsWindow *self)
{
  GStrv ids = g_object_get_data (G_OBJECT (toast), "ids");
  g_autoptr(GPtrArray) final = g_ptr_array_new ();

  /* Undo is no longer offered: what was not undone is deleted for good */
  for (guint i = 0; ids != NULL && ids[i] != NULL; i++)
    if (self->pending_deletions != NULL && g_hash_table_remove (self->pending_deletions, ids[i]))
      g_ptr_array_add (final, ids[i]);
  g_ptr_array_add (final, NULL);
  if (final->len > 1 && self->service != NULL)
    prs_service_finish_deletions (self->service, (const char * const *) final->pdata);
}

static void
delete_conversations (PrsWindow          *self,
                      const char * const *borrowed)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *title = NULL;
  /* The list lets go of the conversations, and of the ids they own */
  g_auto(GStrv) ids = g_strdupv ((char **) borrowed);
  PrsRunner *runner = prs_service_get_runner (self->service);
  guint n = g_strv_length (ids);
  AdwToast *toast;

  if (n == 0)
    return;
  if (n == 1 && find (self, ids[0]) != NULL)
    {
      /* A title starts as its slug, which may hold control characters */
      g_autofree char *name = prs_text_blank_controls (prs_conversation_get_title (find (self, ids[0])), -1, FALSE);

      /* Translators: a toast after deleting one conversation; %s is its title */
      title = g_strdup_printf (_("“%s” deleted"), name);
    }
  else
    title = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u conversation deleted", "%u conversations deleted", n), n);

  /* A run answering there stops: nothing it writes would be kept */
  for (guint i = 0; runner != NULL && ids[i] != NULL; i++)
    {
      PrsRun *run = prs_runner_get_conversation_run (runner, ids[i]);

      /* Refused (the database busy), the deletion below is too, and says so */
      if (run != NULL && !prs_run_is_finished (run))
        prs_runner_cancel (runner, prs_run_get_id (run), NULL);
    }
  if (!prs_conversation_list_delete (_prs_window_conversations (self), (const char * const *) ids, &error))
    {
      prs_window_show_toast (self, error->message);
      return;
    }
  for (guint i = 0; ids[i] != NULL; i++)
    g_hash_table_add (self->pending_deletions, g_strdup (ids[i]));

  toast = prs_dialogs_new_toast (title);
  adw_toast_set_button_label (toast, _("_Undo"));
  adw_toast_set_action_name (toast, "win.undo-delete");
  adw_toast_set_action_target_value (toast, g_variant_new_strv ((const char * const *) ids, -1));
  adw_toast_set_priority (toast, ADW_TOAST_PRIORITY_HIGH);
  g_object_set_data_full (G_OBJECT (toast), "ids", g_steal_pointer (&ids), (GDestroyNotify) g_strfreev);
  g_signal_connect_object (toast, "dismissed", G_CALLBACK (on_toast_dismissed), self, 0);
  adw_toast_overlay_add_toast (self->toast_overlay, toast);
  _prs_window_update_sidebar_page (self);
}

static void
undo_delete_activated (GtkWidget  *widget,
                       const char *action_name,
                       GVariant   *parameter)
{
  PrsWindow *self = PRS_WINDOW (widget);
  g_autoptr(GError) error = NULL;
  g_autofree const char **ids = g_variant_get_strv (parameter, NULL);
  g_autoptr(GPtrArray) restore = g_ptr_array_new ();

  for (guint i = 0; ids[i] != NULL; i++)
    if (g_hash_table_remove (self->pending_deletions, ids[i]))
      g_ptr_array_add (restore, (gpointer) ids[i]);
  g_ptr_array_add (restore, NULL);
  if (restore->len > 1 &&
      !prs_conversation_list_restore (_prs_window_conversations (self), (const char * const *) restore->pdata, &error))
    prs_window_show_toast (self, error->message);
  else if (restore->len == 2)
    prs_window_select_conversation (self, g_ptr_array_index (restore, 0));
  _prs_window_update_sidebar_page (self);
}

static void
delete_one (PrsWindow       *self,
            PrsConversation *conversation)
{
  const char *ids[] = { prs_conversation_get_id (conversation), NULL };

  delete_conversations (self, ids);
}

/* ---- selection mode ---- */

static void
update_selection_label (PrsWindow *self)
{
  g_autoptr(GtkBitset) selected = gtk_selection_model_get_selection (GTK_SELECTION_MODEL (self->multi_selection));
  guint n = (guint) gtk_bitset_get_size (selected);
  g_autofree char *text = n == 0 ? g_strdup (_("Select conversations"))
                                 : g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u selected", "%u selected", n), n);

  gtk_label_set_text (self->selection_label, text);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.delete-selected", n > 0);
}

static void
set_selection_mode (PrsWindow *self,
                    gboolean   on)
{
  GAction *action = g_action_map_lookup_action (G_ACTION_MAP (self), "select-conversations");

  if (on == in_selection_mode (self))
    return;
  if (on)
    {
      gtk_selection_model_unselect_all (GTK_SELECTION_MODEL (self->multi_selection));
      gtk_list_view_set_model (self->conversation_list, GTK_SELECTION_MODEL (self->multi_selection));
      gtk_search_bar_set_search_mode (self->search_bar, FALSE);
    }
  else
    gtk_list_view_set_model (self->conversation_list, GTK_SELECTION_MODEL (self->selection));
  gtk_list_view_set_single_click_activate (self->conversation_list, FALSE);
  gtk_action_bar_set_revealed (self->selection_bar, on);
  g_simple_action_set_state (G_SIMPLE_ACTION (action), g_variant_new_boolean (on));
  update_selection_label (self);
}

static void
select_conversations_changed (GSimpleAction *action,
                              GVariant      *value,
                              gpointer       user_data)
{
  set_selection_mode (PRS_WINDOW (user_data), g_variant_get_boolean (value));
}

static void
select_conversations_activated (GSimpleAction *action,
                                GVariant      *parameter,
                                gpointer       user_data)
{
  PrsWindow *self = PRS_WINDOW (user_data);

  set_selection_mode (self, !in_selection_mode (self));
}

static void
delete_selected_activated (GtkWidget  *widget,
                           const char *action_name,
                           GVariant   *parameter)
{
  PrsWindow *self = PRS_WINDOW (widget);
  g_autoptr(GtkBitset) selected = gtk_selection_model_get_selection (GTK_SELECTION_MODEL (self->multi_selection));
  g_autoptr(GPtrArray) ids = g_ptr_array_new_with_free_func (g_free);
  GtkBitsetIter iter;
  guint position;

  for (gboolean more = gtk_bitset_iter_init_first (&iter, selected, &position); more;
       more = gtk_bitset_iter_next (&iter, &position))
    {
      g_autoptr(PrsConversation) conversation = g_list_model_get_item (G_LIST_MODEL (self->multi_selection), position);

      g_ptr_array_add (ids, g_strdup (prs_conversation_get_id (conversation)));
    }
  g_ptr_array_add (ids, NULL);
  set_selection_mode (self, FALSE);
  delete_conversations (self, (const char * const *) ids->pdata);
}

static void
on_item_selected (GtkListItem *item,
                  GParamSpec  *pspec,
                  PrsWindow   *self)
{
  GtkWidget *row = gtk_list_item_get_child (item);

  if (row != NULL)
    prs_conversation_row_set_selection (PRS_CONVERSATION_ROW (row), in_selection_mode (self),
                                        gtk_list_item_get_selected (item));
}

void
_prs_window_bind_conversation_row (PrsWindow   *self,
                                   GtkListItem *item)
{
  on_item_selected (item, NULL, self);
}

/* ---- each row's menu ---- */

static gboolean
unparent_menu (gpointer data)
{
  GtkWidget *popover = data;

  /* Its row may have gone meanwhile (Delete, Archive): the row's dispose
   * took the popover along */
  if (gtk_widget_get_parent (popover) != NULL)
    gtk_widget_unparent (popover);
  return G_SOURCE_REMOVE;
}

static void
on_menu_closed (GtkPopover *popover,
                gpointer    user_data)
{
  /* After the item's action ran; the reference keeps the popover alive
   * until then, whatever happens to its row */
  g_idle_add_full (G_PRIORITY_DEFAULT_IDLE, unparent_menu, g_object_ref (popover), g_object_unref);
}

static void
add_item (GMenu      *menu,
          const char *label,
          const char *action,
          const char *id)
{
  g_autoptr(GMenuItem) item = g_menu_item_new (label, NULL);

  g_menu_item_set_action_and_target_value (item, action, g_variant_new_string (id));
  g_menu_append_item (menu, item);
}

static GMenu *
row_menu (PrsConversation *conversation)
{
  GMenu *menu = g_menu_new ();
  g_autoptr(GMenu) keep = g_menu_new ();
  g_autoptr(GMenu) out = g_menu_new ();
  g_autoptr(GMenu) gone = g_menu_new ();
  const char *id = prs_conversation_get_id (conversation);

  add_item (keep, _("_Rename…"), "win.conversation-rename", id);
  add_item (keep, prs_conversation_get_pinned (conversation) ? _("Un_pin") : _("_Pin"), "win.conversation-pin", id);
  add_item (keep, prs_conversation_get_archived (conversation) ? _("Un_archive") : _("_Archive"),
            "win.conversation-archive", id);
  add_item (out, _("Export as _Markdown…"), "win.conversation-export-markdown", id);
  add_item (out, _("Export as _JSON…"), "win.conversation-export-json", id);
  add_item (gone, _("_Delete"), "win.conversation-delete", id);
  g_menu_append_section (menu, NULL, G_MENU_MODEL (keep));
  g_menu_append_section (menu, NULL, G_MENU_MODEL (out));
  g_menu_append_section (menu, NULL, G_MENU_MODEL (gone));
  return menu;
}

static void
on_menu_requested (PrsConversationRow *row,
                   double              x,
                   double              y,
                   PrsWindow          *self)
{
  g_autoptr(GMenu) menu = row_menu (prs_conversation_row_get_conversation (row));
  GtkWidget *popover = gtk_popover_menu_new_from_model (G_MENU_MODEL (menu));
  GdkRectangle at = { (int) x, (int) y, 1, 1 };

  gtk_widget_set_parent (popover, GTK_WIDGET (row));
  gtk_popover_set_pointing_to (GTK_POPOVER (popover), &at);
  gtk_popover_set_has_arrow (GTK_POPOVER (popover), FALSE);
  gtk_widget_set_halign (popover, GTK_ALIGN_START);
  gtk_widget_add_css_class (popover, "conversation-menu");
  g_signal_connect (popover, "closed", G_CALLBACK (on_menu_closed), NULL);
  gtk_popover_popup (GTK_POPOVER (popover));
}

void
_prs_window_setup_conversation_row (PrsWindow   *self,
                                    GtkListItem *item,
                                    GtkWidget   *row)
{
  g_signal_connect_object (row, "menu-requested", G_CALLBACK (on_menu_requested), self, 0);
  g_signal_connect_object (item, "notify::selected", G_CALLBACK (on_item_selected), self, 0);
}

/* The row actions: a conversation id as target */
static void
conversation_activated (GtkWidget  *widget,
                        const char *action_name,
                        GVariant   *parameter)
{
  PrsWindow *self = PRS_WINDOW (widget);
  PrsConversation *conversation = find (self, g_variant_get_string (parameter, NULL));
  g_autoptr(GError) error = NULL;
  gboolean ok = TRUE;

  if (conversation == NULL)
    return;
  if (g_str_equal (action_name, "win.conversation-rename"))
    _prs_window_rename (self, conversation);
  else if (g_str_equal (action_name, "win.conversation-pin"))
    ok = prs_conversation_list_set_pinned (_prs_window_conversations (self), conversation,
                                           !prs_conversation_get_pinned (conversation), &error);
  else if (g_str_equal (action_name, "win.conversation-archive"))
    ok = prs_conversation_list_set_archived (_prs_window_conversations (self), conversation,
                                             !prs_conversation_get_archived (conversation), &error);
  else if (g_str_equal (action_name, "win.conversation-delete"))
    delete_one (self, conversation);
  else
    _prs_window_export (self, conversation,
                        g_str_equal (action_name, "win.conversation-export-json") ? PRS_EXPORT_JSON
                                                                                    : PRS_EXPORT_MARKDOWN);
  if (!ok)
    prs_window_show_toast (self, error->message);
  _prs_window_update_sidebar_page (self);
}

/* ---- the shown conversation (the header's menu) ---- */

static void
shown_activated (GtkWidget  *widget,
                 const char *action_name,
                 GVariant   *parameter)
{
  PrsWindow *self = PRS_WINDOW (widget);

  if (self->shown == NULL)
    return;
  if (g_str_equal (action_name, "win.delete-conversation"))
    delete_one (self, self->shown);
  else
    _prs_window_export (self, self->shown,
                        g_str_equal (action_name, "win.export-json") ? PRS_EXPORT_JSON : PRS_EXPORT_MARKDOWN);
}

static void
flag_changed (GSimpleAction *action,
              GVariant      *value,
              gpointer       user_data)
{
  PrsWindow *self = PRS_WINDOW (user_data);
  g_autoptr(GError) error = NULL;
  gboolean on = g_variant_get_boolean (value);
  gboolean ok;

  if (self->shown == NULL)
    return;
  if (g_str_equal (g_action_get_name (G_ACTION (action)), "pin-conversation"))
    ok = prs_conversation_list_set_pinned (_prs_window_conversations (self), self->shown, on, &error);
  else
    ok = prs_conversation_list_set_archived (_prs_window_conversations (self), self->shown, on, &error);
  if (!ok)
    prs_window_show_toast (self, error->message);
  _prs_window_conversations_update_actions (self);
  _prs_window_update_sidebar_page (self);
}

void
_prs_window_conversations_update_actions (PrsWindow *self)
{
  GAction *pin = g_action_map_lookup_action (G_ACTION_MAP (self), "pin-conversation");
  GAction *archive = g_action_map_lookup_action (G_ACTION_MAP (self), "archive-conversation");

  if (pin == NULL || archive == NULL)
    return;
  g_simple_action_set_enabled (G_SIMPLE_ACTION (pin), self->shown != NULL);
  g_simple_action_set_enabled (G_SIMPLE_ACTION (archive), self->shown != NULL);
  g_simple_action_set_state (G_SIMPLE_ACTION (pin),
                             g_variant_new_boolean (self->shown != NULL && prs_conversation_get_pinned (self->shown)));
  g_simple_action_set_state (G_SIMPLE_ACTION (archive),
                             g_variant_new_boolean (self->shown != NULL && prs_conversation_get_archived (self->shown)));
}

static void
show_archived_changed (GSimpleAction *action,
                       GVariant      *value,
                       gpointer       user_data)
{
  PrsWindow *self = PRS_WINDOW (user_data);
  g_autoptr(GError) error = NULL;

  if (!prs_conversation_list_set_show_archived (_prs_window_conversations (self), g_variant_get_boolean (value),
                                                &error))
    prs_window_show_toast (self, error->message);
  g_simple_action_set_state (action, value);
  _prs_window_update_sidebar_page (self);
}

/* ---- the sidebar's keys ---- */

static gboolean
sidebar_key (GtkWidget *widget,
             GVariant  *args,
             gpointer   user_data)
{
  PrsWindow *self = PRS_WINDOW (user_data);
  const char *what = g_variant_get_string (args, NULL);
  PrsConversationRow *row = focused_row (self);
  PrsConversation *conversation = row != NULL ? prs_conversation_row_get_conversation (row) : NULL;

  if (g_str_equal (what, "delete"))
    {
      if (in_selection_mode (self))
        gtk_widget_activate_action (GTK_WIDGET (self), "win.delete-selected", NULL);
      else if (conversation != NULL)
        delete_one (self, conversation);
    }
  else if (g_str_equal (what, "menu") && row != NULL)
    prs_conversation_row_request_menu (row, -1, -1);
  else if (g_str_equal (what, "rename") && conversation != NULL)
    _prs_window_rename (self, conversation);
  else if (g_str_equal (what, "select-all") && in_selection_mode (self))
    gtk_selection_model_select_all (GTK_SELECTION_MODEL (self->multi_selection));
  else if (g_str_equal (what, "leave") && in_selection_mode (self))
    set_selection_mode (self, FALSE);
  else
    return FALSE;
  return TRUE;
}

static void
add_sidebar_key (GtkShortcutController *controller,
                 PrsWindow             *self,
                 const char            *accelerator,
                 const char            *what)
{
  GtkShortcut *shortcut = gtk_shortcut_new (gtk_shortcut_trigger_parse_string (accelerator),
                                            gtk_callback_action_new (sidebar_key, self, NULL));

  gtk_shortcut_set_arguments (shortcut, g_variant_new_string (what));
  gtk_shortcut_controller_add_shortcut (controller, shortcut);
}

static void
add_sidebar_keys (PrsWindow *self)
{
  GtkEventController *controller = gtk_shortcut_controller_new ();
  GtkShortcutController *keys = GTK_SHORTCUT_CONTROLLER (controller);

  add_sidebar_key (keys, self, "Delete", "delete");
  add_sidebar_key (keys, self, "KP_Delete", "delete");
  add_sidebar_key (keys, self, "Menu", "menu");
  add_sidebar_key (keys, self, "<Shift>F10", "menu");
  add_sidebar_key (keys, self, "F2", "rename");
  add_sidebar_key (keys, self, "<Control>a", "select-all");
  add_sidebar_key (keys, self, "Escape", "leave");
  gtk_widget_add_controller (GTK_WIDGET (self->conversation_list), controller);
  /* Tab leaves the list in one step, for what follows it (prs-list-focus.c) */
  prs_list_focus_tab_leaves (GTK_WIDGET (self->conversation_list));
}

/* ---- search ---- */

static void
search_activated (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *parameter)
{
  PrsWindow *self = PRS_WINDOW (widget);

  set_selection_mode (self, FALSE);
  if (adw_leaflet_get_folded (self->leaflet))
    adw_leaflet_navigate (self->leaflet, ADW_NAVIGATION_DIRECTION_BACK);
  gtk_search_bar_set_search_mode (self->search_bar, TRUE);
  gtk_widget_grab_focus (GTK_WIDGET (self->search_entry));
}

static void
on_search_mode (GtkSearchBar *bar,
                GParamSpec   *pspec,
                PrsWindow    *self)
{
  if (!gtk_search_bar_get_search_mode (bar))
    gtk_editable_set_text (GTK_EDITABLE (self->search_entry), "");
  _prs_window_update_sidebar_page (self);
}

static void
on_search_changed (GtkSearchEntry *entry,
                   PrsWindow      *self)
{
  prs_search_panel_set_query (_prs_window_search_panel (self), gtk_editable_get_text (GTK_EDITABLE (entry)));
}

static void
on_search_activate (GtkSearchEntry *entry,
                    PrsWindow      *self)
{
  /* What was typed last is looked up first */
  prs_search_panel_set_query (_prs_window_search_panel (self), gtk_editable_get_text (GTK_EDITABLE (entry)));
  prs_search_panel_activate_first (self->search_panel);
}

static void
on_search_down (GtkSearchEntry *entry,
                PrsWindow      *self)
{
  prs_search_panel_focus_results (_prs_window_search_panel (self));
}

/* Down in the entry goes to the first hit, as in GNOME's search pages
 * (GtkSearchEntry binds only Ctrl+G, next-match, to that) */
static gboolean
search_entry_down (GtkWidget *widget,
                   GVariant  *args,
                   gpointer   user_data)
{
  return prs_search_panel_focus_results (_prs_window_search_panel (PRS_WINDOW (user_data)));
}

static void
on_hit_activated (PrsSearchPanel *panel,
                  const char     *conversation_id,
                  const char     *message_id,
                  PrsWindow      *self)
{
  g_autoptr(GError) error = NULL;

  /* A hit in an archived conversation opens it too */
  if (find (self, conversation_id) == NULL &&
      !prs_conversation_list_update (_prs_window_conversations (self), conversation_id, &error))
    g_message ("Could not read a conversation: %s", error->message);
  if (find (self, conversation_id) == NULL)
    {
      GAction *archived = g_action_map_lookup_action (G_ACTION_MAP (self), "show-archived");

      g_action_change_state (archived, g_variant_new_boolean (TRUE));
    }
  prs_window_open_conversation_at (self, conversation_id, message_id);
}

/* Added to the sidebar's stack when search is first used, not with the
 * window's template (a cost before the first frame for a panel most starts
 * never show: prs-window.c, page ()) */
PrsSearchPanel *
_prs_window_search_panel (PrsWindow *self)
{
  if (self->search_panel == NULL)
    {
      self->search_panel = g_object_new (PRS_TYPE_SEARCH_PANEL, NULL);
      gtk_stack_add_named (self->sidebar_stack, GTK_WIDGET (self->search_panel), "search");
      prs_search_panel_set_service (self->search_panel, self->service);
      g_signal_connect_object (self->search_panel, "hit-activated", G_CALLBACK (on_hit_activated), self, 0);
    }
  return self->search_panel;
}

static void
setup_search (PrsWindow *self)
{
  GtkEventController *down;

  g_object_bind_property (self->search_button, "active", self->search_bar, "search-mode-enabled",
                          G_BINDING_BIDIRECTIONAL | G_BINDING_SYNC_CREATE);
  gtk_search_bar_connect_entry (self->search_bar, GTK_EDITABLE (self->search_entry));
  g_signal_connect_object (self->search_bar, "notify::search-mode-enabled", G_CALLBACK (on_search_mode), self, 0);
  g_signal_connect_object (self->search_entry, "search-changed", G_CALLBACK (on_search_changed), self, 0);
  g_signal_connect_object (self->search_entry, "activate", G_CALLBACK (on_search_activate), self, 0);
  g_signal_connect_object (self->search_entry, "next-match", G_CALLBACK (on_search_down), self, 0);
  down = gtk_shortcut_controller_new ();
  gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (down),
                                        gtk_shortcut_new (gtk_shortcut_trigger_parse_string ("Down|KP_Down"),
                                                          gtk_callback_action_new (search_entry_down, self, NULL)));
  /* before the entry's text, whose Down moves its cursor */
  gtk_event_controller_set_propagation_phase (down, GTK_PHASE_CAPTURE);
  gtk_widget_add_controller (GTK_WIDGET (self->search_entry), down);
}

/* ---- export ---- */

typedef struct
{
  char            *db_path;
  char            *conversation_id;
  char            *path;
  PrsExportFormat  format;
} Export;

static void
export_free (Export *export)
{
  g_free (export->db_path);
  g_free (export->conversation_id);
  g_free (export->path);
  g_free (export);
}

/* A worker thread with a store connection of its own: a long conversation
 * takes a moment to write, and the window goes on meanwhile */
static void
export_thread (GTask        *task,
               gpointer      source,
               gpointer      task_data,
               GCancellable *cancellable)
{
  Export *export = task_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsStore) store = prs_store_new_for_path (export->db_path, &error);

  if (store == NULL ||
      !prs_store_export_conversation_to_file (store, export->conversation_id, export->format, export->path,
                                              cancellable, &error))
    g_task_return_error (task, g_steal_pointer (&error));
  else
    g_task_return_boolean (task, TRUE);
}

static void
on_exported (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  PrsWindow *self = PRS_WINDOW (source);
  Export *export = g_task_get_task_data (G_TASK (result));
  g_autoptr(GError) error = NULL;
  g_autofree char *name = g_filename_display_basename (export->path);
  g_autofree char *text = NULL;

  if (!g_task_propagate_boolean (G_TASK (result), &error))
    /* Translators: %s is why an export failed */
    text = g_strdup_printf (_("Could not export the conversation: %s"), error->message);
  else
    /* Translators: %s is a file name */
    text = g_strdup_printf (_("Exported to “%s”"), name);
  prs_window_show_toast (self, text);
}

static void
on_export_chosen (GtkNativeDialog *chooser,
                  int              response,
                  PrsWindow       *self)
{
  g_autoptr(GFile) file = response == GTK_RESPONSE_ACCEPT ? gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chooser))
                                                           : NULL;
  Export *export = g_object_get_data (G_OBJECT (chooser), "export");
  g_autoptr(GTask) task = NULL;

  if (file != NULL && g_file_peek_path (file) != NULL && self->service != NULL)
    {
      task = g_task_new (self, NULL, on_exported, NULL);
      g_task_set_source_tag (task, on_export_chosen);
      export->db_path = g_strdup (prs_store_get_path (prs_service_get_store (self->service)));
      export->path = g_file_get_path (file);
      g_task_set_task_data (task, g_steal_pointer (&export), (GDestroyNotify) export_free);
      g_object_steal_data (G_OBJECT (chooser), "export");
      prs_task_run_in_thread (task, export_thread);
    }
  gtk_native_dialog_destroy (chooser);
  g_object_unref (chooser);
}

static void
_prs_window_export (PrsWindow       *self,
                    PrsConversation *conversation,
                    PrsExportFormat  format)
{
  gboolean json = format == PRS_EXPORT_JSON;
  GtkFileChooserNative *chooser =
    gtk_file_chooser_native_new (json ? _("Export as JSON") : _("Export as Markdown"), GTK_WINDOW (self),
                                 GTK_FILE_CHOOSER_ACTION_SAVE, _("_Export"), _("_Cancel"));
  g_autoptr(GtkFileFilter) filter = gtk_file_filter_new ();
  /* One line: a title that started as a slug may hold a line break */
  g_autofree char *name = prs_text_blank_controls (prs_conversation_get_title (conversation), -1, FALSE);
  g_autofree char *file_name = NULL;
  Export *export = g_new0 (Export, 1);

  /* A file name from the title, without what a file name cannot hold */
  g_strdelimit (name, "/\\:*?\"<>|", '-');
  file_name = g_strconcat (name, json ? ".json" : ".md", NULL);
  gtk_file_filter_set_name (filter, json ? _("JSON files") : _("Markdown files"));
  gtk_file_filter_add_suffix (filter, json ? "json" : "md");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (chooser), filter);
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (chooser), file_name);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (chooser), TRUE);

  export->conversation_id = g_strdup (prs_conversation_get_id (conversation));
  export->format = format;
  g_object_set_data_full (G_OBJECT (chooser), "export", export, (GDestroyNotify) export_free);
  g_signal_connect_object (chooser, "response", G_CALLBACK (on_export_chosen), self, 0);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

/* ---- Regenerate, Edit and Resend ---- */

static void
on_edit_response (AdwMessageDialog *dialog,
                  const char       *response,
                  PrsWindow        *self)
{
  GtkTextBuffer *buffer = g_object_get_data (G_OBJECT (dialog), "buffer");
  const char *conversation_id = g_object_get_data (G_OBJECT (dialog), "conversation-id");
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsRun) run = NULL;
  g_autofree char *text = NULL;
  GtkTextIter start, end;

  if (g_strcmp0 (response, "resend") != 0 || self->service == NULL)
    return;
  gtk_text_buffer_get_bounds (buffer, &start, &end);
  text = gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
  run = prs_service_edit_and_resend (self->service, conversation_id, text, &error);
  if (run == NULL)
    prs_window_show_toast (self, error->message);
  _prs_window_update_busy (self);
  prs_conversation_view_scroll_to_bottom (self->conversation_view);
}

static void
edit_message (PrsWindow  *self,
              const char *message_id)
{
  g_autoptr(JsonNode) message = prs_store_get_message (prs_service_get_store (self->service), message_id, NULL);
  JsonObject *object = message != NULL ? json_node_get_object (message) : NULL;
  GtkWidget *dialog, *scrolled, *view;

  if (object == NULL)
    return;
  dialog = adw_message_dialog_new (GTK_WINDOW (self), _("Edit and Resend"),
                                   _("Your message and its answer stay in the conversation, folded, above the new ones."));
  view = gtk_text_view_new ();
  gtk_text_view_set_wrap_mode (GTK_TEXT_VIEW (view), GTK_WRAP_WORD_CHAR);
  gtk_text_buffer_set_text (gtk_text_view_get_buffer (GTK_TEXT_VIEW (view)),
                            json_object_get_string_member_with_default (object, "content", ""), -1);
  gtk_accessible_update_property (GTK_ACCESSIBLE (view), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Message"), -1);
  gtk_widget_add_css_class (view, "edit-message");
  scrolled = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_min_content_height (GTK_SCROLLED_WINDOW (scrolled), 120);
  gtk_scrolled_window_set_max_content_height (GTK_SCROLLED_WINDOW (scrolled), 320);
  gtk_scrolled_window_set_propagate_natural_height (GTK_SCROLLED_WINDOW (scrolled), TRUE);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), view);
  gtk_widget_add_css_class (scrolled, "card");
  adw_message_dialog_set_extra_child (ADW_MESSAGE_DIALOG (dialog), scrolled);
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog), "cancel", _("_Cancel"), "resend", _("_Resend"), NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "resend", ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "resend");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  g_object_set_data (G_OBJECT (dialog), "buffer", gtk_text_view_get_buffer (GTK_TEXT_VIEW (view)));
  g_object_set_data_full (G_OBJECT (dialog), "conversation-id",
                          g_strdup (json_object_get_string_member_with_default (object, "conversationId", "")), g_free);
  g_signal_connect_object (dialog, "response", G_CALLBACK (on_edit_response), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
  gtk_widget_grab_focus (view);
}

void
_prs_window_on_message_action (PrsConversationView *view,
                               const char          *message_id,
                               const char          *action,
                               PrsWindow           *self)
{
  PrsConversation *conversation = prs_conversation_view_get_conversation (view);
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsRun) run = NULL;

  if (conversation == NULL || self->service == NULL)
    return;
  if (g_str_equal (action, "edit"))
    {
      edit_message (self, message_id);
      return;
    }
  run = prs_service_regenerate (self->service, prs_conversation_get_id (conversation), &error);
  if (run == NULL)
    prs_window_show_toast (self, error->message);
  _prs_window_update_busy (self);
  prs_conversation_view_scroll_to_bottom (view);
}

/* ---- naming: New Conversation and Rename ---- */

typedef gboolean (*NameCheck) (const char  *name,
                               GError     **error);

static char *
dialog_text (AdwMessageDialog *dialog)
{
  GtkEditable *entry = g_object_get_data (G_OBJECT (dialog), "entry");

  return g_strstrip (g_strdup (gtk_editable_get_text (entry)));
}

/* A name is checked as it is typed: the dialog's answer is insensitive
 * while it would be refused, and the sentence why stands under the entry,
 * so Enter never closes the dialog on a name that is thrown away */
static void
on_name_changed (GtkEditable      *entry,
                 AdwMessageDialog *dialog)
{
  NameCheck check = g_object_get_data (G_OBJECT (dialog), "check");
  GtkLabel *problem = g_object_get_data (G_OBJECT (dialog), "problem");
  const char *response_id = g_object_get_data (G_OBJECT (dialog), "response-id");
  g_autofree char *name = dialog_text (dialog);
  g_autoptr(GError) error = NULL;
  gboolean valid = name[0] != '\0' && (check == NULL || check (name, &error));

  adw_message_dialog_set_response_enabled (dialog, response_id, valid);
  gtk_label_set_text (problem, error != NULL ? error->message : "");
  gtk_widget_set_visible (GTK_WIDGET (problem), error != NULL);
  if (error != NULL)
    gtk_widget_add_css_class (GTK_WIDGET (entry), "error");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (entry), "error");
}

static AdwMessageDialog *
name_dialog_new (PrsWindow  *self,
                 const char *heading,
                 const char *body,
                 const char *text,
                 const char *response_id,
                 const char *response_label,
                 NameCheck   check)
{
  GtkWidget *dialog = adw_message_dialog_new (GTK_WINDOW (self), heading, body);
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  GtkWidget *entry = gtk_entry_new ();
  GtkWidget *problem = gtk_label_new (NULL);

  gtk_entry_set_activates_default (GTK_ENTRY (entry), TRUE);
  gtk_accessible_update_property (GTK_ACCESSIBLE (entry), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Name"), -1);
  gtk_label_set_wrap (GTK_LABEL (problem), TRUE);
  gtk_label_set_xalign (GTK_LABEL (problem), 0);
  gtk_widget_add_css_class (problem, "caption");
  gtk_widget_add_css_class (problem, "error");
  gtk_widget_set_visible (problem, FALSE);
  gtk_accessible_update_relation (GTK_ACCESSIBLE (entry), GTK_ACCESSIBLE_RELATION_DESCRIBED_BY, problem, NULL, -1);
  gtk_box_append (GTK_BOX (box), entry);
  gtk_box_append (GTK_BOX (box), problem);
  adw_message_dialog_set_extra_child (ADW_MESSAGE_DIALOG (dialog), box);
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog),
                                    "cancel", _("_Cancel"),
                                    response_id, response_label,
                                    NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), response_id,
                                              ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), response_id);
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  g_object_set_data (G_OBJECT (dialog), "entry", entry);
  g_object_set_data (G_OBJECT (dialog), "problem", problem);
  g_object_set_data (G_OBJECT (dialog), "check", check);
  g_object_set_data_full (G_OBJECT (dialog), "response-id", g_strdup (response_id), g_free);
  g_signal_connect_object (entry, "changed", G_CALLBACK (on_name_changed), dialog, 0);
  gtk_editable_set_text (GTK_EDITABLE (entry), text != NULL ? text : "");
  on_name_changed (GTK_EDITABLE (entry), ADW_MESSAGE_DIALOG (dialog));
  return ADW_MESSAGE_DIALOG (dialog);
}

static void
on_rename_response (AdwMessageDialog *dialog,
                    const char       *response,
                    PrsWindow        *self)
{
  g_autofree char *title = dialog_text (dialog);
  g_autoptr(GError) error = NULL;
  PrsConversation *conversation = g_object_get_data (G_OBJECT (dialog), "conversation");

  if (g_strcmp0 (response, "rename") != 0 || title[0] == '\0' || conversation == NULL)
    return;
  if (!prs_conversation_list_rename (_prs_window_conversations (self), conversation, title, &error))
    prs_window_show_toast (self, error->message);
}

void
_prs_window_rename (PrsWindow       *self,
                    PrsConversation *conversation)
{
  /* Shown on one line: a slug keeps the API's rules and may hold control
   * characters, and a title starts as the slug. Offered so, the title
   * becomes one the rename takes (docs/conversations.md). */
  g_autofree char *slug = prs_text_blank_controls (prs_conversation_get_slug (conversation), -1, FALSE);
  g_autofree char *title = prs_text_blank_controls (prs_conversation_get_title (conversation), -1, FALSE);
  g_autofree char *body = NULL;
  AdwMessageDialog *dialog;

  /* Translators: %s is the conversation's slug */
  body = g_strdup_printf (_("Workflows keep finding it as “%s”."), slug);
  dialog = name_dialog_new (self, _("Rename Conversation"), body, title,
                            "rename", _("_Rename"), prs_conversation_check_title);
  g_object_set_data_full (G_OBJECT (dialog), "conversation", g_object_ref (conversation), g_object_unref);
  g_signal_connect_object (dialog, "response", G_CALLBACK (on_rename_response), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
rename_conversation_activated (GtkWidget  *widget,
                               const char *action_name,
                               GVariant   *parameter)
{
  PrsWindow *self = PRS_WINDOW (widget);

  if (self->shown != NULL)
    _prs_window_rename (self, self->shown);
}

/* The conversation listed whose title (what the sidebar shows) is @name,
 * for a name that is no conversation's slug */
static PrsConversation *
find_by_title (PrsWindow  *self,
               const char *name)
{
  GListModel *model = G_LIST_MODEL (_prs_window_conversations (self));
  guint n = g_list_model_get_n_items (model);

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(PrsConversation) conversation = g_list_model_get_item (model, i);

      if (g_strcmp0 (prs_conversation_get_title (conversation), name) == 0)
        return conversation;
    }
  return NULL;
}

/* An existing name opens that conversation: a slug first, as workflows
 * resolve it, then a title the sidebar shows — typing what one sees makes
 * no look-alike (docs/conversations.md "Keeping them in order"). Only the
 * window does the second: the API resolves slugs alone (SPEC) */
static void
on_new_response (AdwMessageDialog *dialog,
                 const char       *response,
                 PrsWindow        *self)
{
  g_autofree char *name = dialog_text (dialog);
  g_autofree char *slug_id = NULL;
  g_autoptr(GError) error = NULL;
  PrsConversation *conversation = NULL;

  if (g_strcmp0 (response, "create") != 0 || name[0] == '\0')
    return;

  if (!prs_store_lookup_conversation_slug (prs_service_get_store (self->service), name, &slug_id, &error))
    g_clear_error (&error);
  else if (slug_id == NULL)
    conversation = find_by_title (self, name);
  if (conversation == NULL)
    conversation = prs_conversation_list_resolve (_prs_window_conversations (self), name, &error);
  if (conversation == NULL)
    {
      prs_window_show_toast (self, error->message);
      return;
    }
  prs_window_select_conversation (self, prs_conversation_get_id (conversation));
  if (adw_leaflet_get_folded (self->leaflet))
    adw_leaflet_navigate (self->leaflet, ADW_NAVIGATION_DIRECTION_FORWARD);
  prs_composer_focus (prs_conversation_view_get_composer (self->conversation_view));
}

static void
new_conversation_activated (GtkWidget  *widget,
                            const char *action_name,
                            GVariant   *parameter)
{
  PrsWindow *self = PRS_WINDOW (widget);
  AdwMessageDialog *dialog = name_dialog_new (self, _("New Conversation"),
                                              _("Workflows reach a conversation by its name, so an existing name "
                                                "opens that conversation."),
                                              NULL, "create", _("C_reate"), NULL);

  g_signal_connect_object (dialog, "response", G_CALLBACK (on_new_response), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}

/* ---- life ---- */

/* prosponsive-ctl may have renamed, archived or deleted meanwhile (the
 * list was read at start: the first activation reads it again only if so) */
static void
on_active (PrsWindow  *self,
           GParamSpec *pspec,
           gpointer    user_data)
{
  g_autoptr(GError) error = NULL;

  if (!gtk_window_is_active (GTK_WINDOW (self)) || self->service == NULL)
    return;
  if (!prs_conversation_list_refresh (_prs_window_conversations (self), &error))
    g_message ("Could not read the conversations: %s", error->message);
  /* What arrived while the window was inactive is read once the person
   * is back at it, as showing the conversation reads it
   * (docs/conversations.md: the unread count) */
  if (g_strcmp0 (gtk_stack_get_visible_child_name (self->content_stack), "conversation") == 0)
    _prs_window_mark_shown_read (self);
}

static const GActionEntry window_actions[] = {
  { "select-conversations", select_conversations_activated, NULL, "false", select_conversations_changed },
  { "show-archived", NULL, NULL, "false", show_archived_changed },
  { "pin-conversation", NULL, NULL, "false", flag_changed },
  { "archive-conversation", NULL, NULL, "false", flag_changed },
};

void
_prs_window_conversations_class_init (GtkWidgetClass *widget_class)
{
  static const char * const row_actions[] = {
    "win.conversation-rename", "win.conversation-pin", "win.conversation-archive", "win.conversation-delete",
    "win.conversation-export-markdown", "win.conversation-export-json",
  };

  for (guint i = 0; i < G_N_ELEMENTS (row_actions); i++)
    gtk_widget_class_install_action (widget_class, row_actions[i], "s", conversation_activated);
  gtk_widget_class_install_action (widget_class, "win.new-conversation", NULL, new_conversation_activated);
  gtk_widget_class_install_action (widget_class, "win.rename-conversation", NULL, rename_conversation_activated);
  gtk_widget_class_install_action (widget_class, "win.delete-conversation", NULL, shown_activated);
  gtk_widget_class_install_action (widget_class, "win.export-markdown", NULL, shown_activated);
  gtk_widget_class_install_action (widget_class, "win.export-json", NULL, shown_activated);
  gtk_widget_class_install_action (widget_class, "win.delete-selected", NULL, delete_selected_activated);
  gtk_widget_class_install_action (widget_class, "win.undo-delete", "as", undo_delete_activated);
  gtk_widget_class_install_action (widget_class, "win.search", NULL, search_activated);

  /* Both anywhere in the window: the main menu shows one of them beside
   * Search Everything, and what a menu shows must work wherever it is
   * opened from */
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_k, GDK_CONTROL_MASK, "win.search", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_f, GDK_CONTROL_MASK, "win.search", NULL);
}

void
_prs_window_conversations_init (PrsWindow *self)
{
  self->pending_deletions = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_action_map_add_action_entries (G_ACTION_MAP (self), window_actions, G_N_ELEMENTS (window_actions), self);
  add_sidebar_keys (self);
  setup_search (self);
  g_signal_connect (self, "notify::is-active", G_CALLBACK (on_active), NULL);
}

void
_prs_window_conversations_start (PrsWindow *self)
{
  GListModel *model = G_LIST_MODEL (_prs_window_conversations (self));

  self->multi_selection = gtk_multi_selection_new (g_object_ref (model));
  g_signal_connect_object (self->multi_selection, "selection-changed", G_CALLBACK (update_selection_label), self,
                           G_CONNECT_SWAPPED);
  _prs_window_conversations_update_actions (self);
}

void
_prs_window_conversations_dispose (PrsWindow *self)
{
  g_autoptr(GPtrArray) ids = g_ptr_array_new ();
  GHashTableIter iter;
  gpointer key;

  if (self->pending_deletions == NULL || g_hash_table_size (self->pending_deletions) == 0)
    return;
  /* The window goes: Undo with it */
  g_hash_table_iter_init (&iter, self->pending_deletions);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    g_ptr_array_add (ids, key);
  g_ptr_array_add (ids, NULL);
  prs_service_finish_deletions (self->service, (const char * const *) ids->pdata);
  g_hash_table_remove_all (self->pending_deletions);
}
