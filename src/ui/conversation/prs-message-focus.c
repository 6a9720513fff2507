/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-message-focus.c: Tab through the controls of the messages on screen.
 *
 * GTK 4.8's list view (gtk_list_base_focus) moves Tab from item to item,
 * to the first control of each: the others of a message (an approval
 * card's buttons, a reply's links, the Request Context expanders) are
 * never reached, an item without controls ends the list, and focus coming
 * into the list lands on the item focused last or on the first one,
 * wherever the list is scrolled (GTK 4.12's tab-behavior fixes the first;
 * 4.8 has nothing). The conversation view moves Tab itself with this:
 * every control of the rows on screen in order, like any GNOME pane, and
 * nothing outside the rows the list view already made — it keeps about two
 * hundred, so this costs nothing at 100,000 messages. Up and Down move
 * from row to row, to the first control of each (on_arrow_pressed says why
 * the list view's own arrows cannot); what a click focuses is the list
 * view's own. */
#include "config.h"

#include "prs-message-focus.h"

typedef struct
{
  GtkWidget *item;
  float      y;
} Item;

static int
compare_items (gconstpointer a,
               gconstpointer b)
{
  const Item *ia = a, *ib = b;

  return (ia->y > ib->y) - (ia->y < ib->y);
}

/* The list's items (its children, which hold the rows) at least partly
 * inside @viewport, top to bottom (all it keeps, on screen or not, when
 * @kept): the list view allocates the rows it keeps above and below the
 * screen too. */
static GArray *
list_items (GtkWidget *list,
            GtkWidget *viewport,
            gboolean   kept)
{
  GArray *items = g_array_new (FALSE, FALSE, sizeof (Item));
  int height = gtk_widget_get_height (viewport);

  for (GtkWidget *child = gtk_widget_get_first_child (list); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      graphene_rect_t bounds;
      Item item = { child, 0 };

      if (!gtk_widget_get_mapped (child) || !gtk_widget_compute_bounds (child, viewport, &bounds))
        continue;
      if (!kept && (bounds.origin.y + bounds.size.height <= 0 || bounds.origin.y >= height))
        continue;
      item.y = bounds.origin.y;
      g_array_append_val (items, item);
    }
  g_array_sort (items, compare_items);
  return items;
}

/* Scrolls @list so that @focus, a control in one of its rows, is wholly
 * on screen (or its top, when it is taller than the screen). A row that
 * fits is already scrolled into view by the list view when focus enters
 * it; a taller one (a long reply) may have its control below the edge. */
static void
reveal (GtkWidget *list,
        GtkWidget *viewport,
        GtkWidget *focus)
{
  GtkAdjustment *adjustment = gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (list));
  int height = gtk_widget_get_height (viewport);
  graphene_rect_t bounds;
  double delta = 0;

  if (adjustment == NULL || focus == NULL || !gtk_widget_compute_bounds (focus, viewport, &bounds))
    return;
  if (bounds.origin.y < 0)
    delta = bounds.origin.y;
  else if (bounds.origin.y + bounds.size.height > height)
    delta = MIN (bounds.origin.y + bounds.size.height - height, bounds.origin.y);
  if (delta != 0)
    gtk_adjustment_set_value (adjustment, gtk_adjustment_get_value (adjustment) + delta);
}

static void
on_link_text_leave (GtkEventControllerFocus *controller,
                    gpointer                 data)
{
  gtk_widget_set_focusable (gtk_event_controller_get_widget (GTK_EVENT_CONTROLLER (controller)), FALSE);
}

/* Text with links (selectable labels that can-focus, prs-text.c) is not
 * focusable, so that a click on it leaves the focus where it is; while Tab
 * passes through its message it is, and it stops being so when the focus
 * leaves it. */
static void
set_link_text_focusable (GtkWidget *widget,
                         gboolean   focusable)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      if (!GTK_IS_LABEL (child))
        set_link_text_focusable (child, focusable);
      else if (gtk_widget_get_can_focus (child) && gtk_label_get_selectable (GTK_LABEL (child)) &&
               (focusable || !gtk_widget_has_focus (child)))
        {
          if (focusable && g_object_get_data (G_OBJECT (child), "prs-link-text") == NULL)
            {
              GtkEventController *controller = gtk_event_controller_focus_new ();

              g_signal_connect (controller, "leave", G_CALLBACK (on_link_text_leave), NULL);
              gtk_widget_add_controller (child, controller);
              g_object_set_data (G_OBJECT (child), "prs-link-text", controller);
            }
          gtk_widget_set_focusable (child, focusable);
        }
    }
}

/* Focus moved within @item (a row of the list), its text with links a
 * stop on the way */
static gboolean
item_focus (GtkWidget        *item,
            GtkDirectionType  direction)
{
  gboolean moved;

  set_link_text_focusable (item, TRUE);
  moved = gtk_widget_child_focus (item, direction);
  set_link_text_focusable (item, FALSE);
  return moved;
}

/* Text with links (the only text that takes the focus: prs-text.c) is
 * selected whole when Tab reaches it (gtk-label-select-on-focus), and from
 * a whole selection the next Tab leaves it: its links could not be
 * reached. The focus goes on to its first link instead (going back, its
 * last), and Tab moves from link to link. A link at the very start is
 * where the cursor already is. Going back, GTK moves only to a link that
 * ends before the cursor, so from the end of the text a link that ends it
 * would be skipped: the cursor goes to the last link by stepping forward
 * from the start, as Tab does, until no link follows. */
static void
settle_on_link (GtkWidget        *focus,
                GtkDirectionType  direction)
{
  GtkLabel *label;

  if (!GTK_IS_LABEL (focus) || !gtk_label_get_selection_bounds (GTK_LABEL (focus), NULL, NULL))
    return;
  label = GTK_LABEL (focus);
  gtk_label_select_region (label, 0, 0);
  if (direction == GTK_DIR_TAB_FORWARD)
    {
      if (!g_str_has_prefix (gtk_label_get_label (label), "<a "))
        gtk_widget_child_focus (focus, direction);
    }
  else
    {
      while (gtk_widget_child_focus (focus, GTK_DIR_TAB_FORWARD))
        ;
    }
}

static GtkWidget *
focus_of (GtkWidget *widget)
{
  GtkRoot *root = gtk_widget_get_root (widget);

  return root != NULL ? gtk_root_get_focus (root) : NULL;
}

/* Where the focus went in a row: onto a link of its text, and in view */
static gboolean
focused (GtkWidget        *list,
         GtkWidget        *viewport,
         GtkDirectionType  direction)
{
  settle_on_link (focus_of (list), direction);
  reveal (list, viewport, focus_of (list));
  return TRUE;
}

/* One step through the controls of the rows on screen; FALSE past the
 * first or last of them */
static gboolean
move_in_list (GtkWidget        *list,
              GtkDirectionType  direction)
{
  GtkWidget *viewport = gtk_widget_get_parent (list);
  GtkWidget *focus = focus_of (list);
  g_autoptr(GArray) items = list_items (list, viewport, FALSE);
  int step = direction == GTK_DIR_TAB_FORWARD ? 1 : -1;
  int i = step > 0 ? 0 : (int) items->len - 1;

  /* From the row the focus is in, when it is on screen; from the top (or
   * the bottom, going back) when the focus comes from elsewhere or its row
   * was scrolled away */
  for (guint k = 0; focus != NULL && k < items->len; k++)
    {
      GtkWidget *item = g_array_index (items, Item, k).item;

      if (gtk_widget_is_ancestor (focus, item))
        {
          if (item_focus (item, direction))
            return focused (list, viewport, direction);
          i = (int) k + step;
          break;
        }
    }

  for (; i >= 0 && i < (int) items->len; i += step)
    {
      if (item_focus (g_array_index (items, Item, i).item, direction))
        return focused (list, viewport, direction);
    }
  return FALSE;
}

gboolean
prs_message_focus_move (GtkWidget * const *parts,
                        guint              n_parts,
                        GtkDirectionType   direction)
{
  GtkWidget *focus;
  int step = direction == GTK_DIR_TAB_FORWARD ? 1 : -1;
  int i = step > 0 ? 0 : (int) n_parts - 1;

  g_return_val_if_fail (n_parts > 0 && GTK_IS_LIST_VIEW (parts[0]), FALSE);
  g_return_val_if_fail (direction == GTK_DIR_TAB_FORWARD || direction == GTK_DIR_TAB_BACKWARD, FALSE);

  /* Start in the part that has the focus, if one has */
  focus = focus_of (parts[0]);
  for (guint k = 0; focus != NULL && k < n_parts; k++)
    {
      if (parts[k] != NULL && (focus == parts[k] || gtk_widget_is_ancestor (focus, parts[k])))
        {
          i = (int) k;
          break;
        }
    }

  for (; i >= 0 && i < (int) n_parts; i += step)
    {
      if (parts[i] == NULL || !gtk_widget_get_mapped (parts[i]))
        continue;
      if (i == 0 ? move_in_list (parts[0], direction) : gtk_widget_child_focus (parts[i], direction))
        return TRUE;
    }
  return FALSE;
}

/* Up and Down: GTK 4.8's list view gives the focus to the item next to
 * the focused one (gtk_widget_grab_focus), which our rows refuse: a row
 * is not focusable itself, only its controls are, and grab_focus does not
 * look into children. So the arrows went nowhere. They move to the first
 * control of the nearest row in their direction that has one, passing a
 * row with none (a tool's answer shows nothing: its result is on its
 * call's card). Text and a row's menus keep their own arrows. FALSE
 * leaves the key to the focused widget and the list view (the focus is
 * not on a control of a row the list keeps, or no row past it has one). */
static gboolean
on_arrow_pressed (GtkEventControllerKey *controller,
                  guint                  keyval,
                  guint                  keycode,
                  GdkModifierType        state,
                  gpointer               data)
{
  GtkWidget *list = gtk_event_controller_get_widget (GTK_EVENT_CONTROLLER (controller));
  GtkWidget *viewport = gtk_widget_get_parent (list);
  GtkWidget *focus = focus_of (list);
  g_autoptr(GArray) items = NULL;
  int step, i = -1;

  if ((state & gtk_accelerator_get_default_mod_mask ()) != 0 || focus == NULL)
    return FALSE;
  /* The arrows of what has them itself: a menu or popover of a row (its
   * own surface), text (the Request Context, a link's label) */
  if (gtk_widget_get_native (focus) != gtk_widget_get_native (list) ||
      GTK_IS_TEXT_VIEW (focus) || GTK_IS_EDITABLE (focus) || GTK_IS_LABEL (focus))
    return FALSE;
  if (keyval == GDK_KEY_Down || keyval == GDK_KEY_KP_Down)
    step = 1;
  else if (keyval == GDK_KEY_Up || keyval == GDK_KEY_KP_Up)
    step = -1;
  else
    return FALSE;

  items = list_items (list, viewport, TRUE);
  for (guint k = 0; k < items->len && i < 0; k++)
    if (gtk_widget_is_ancestor (focus, g_array_index (items, Item, k).item))
      i = (int) k;
  if (i < 0)
    return FALSE;
  for (i += step; i >= 0 && i < (int) items->len; i += step)
    {
      if (gtk_widget_child_focus (g_array_index (items, Item, i).item, GTK_DIR_TAB_FORWARD))
        {
          reveal (list, viewport, focus_of (list));
          return TRUE;
        }
    }
  return FALSE;
}

void
prs_message_focus_add_arrows (GtkListView *list)
{
  GtkEventController *controller = gtk_event_controller_key_new ();

  g_return_if_fail (GTK_IS_LIST_VIEW (list));

  /* Before the list view's own bindings (the bubble phase) */
  gtk_event_controller_set_propagation_phase (controller, GTK_PHASE_CAPTURE);
  g_signal_connect (controller, "key-pressed", G_CALLBACK (on_arrow_pressed), NULL);
  gtk_widget_add_controller (GTK_WIDGET (list), controller);
}
