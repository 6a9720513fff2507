/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-tools-view.c: the discovered tools, one row each. */
#include "config.h"

#include <adwaita.h>

#include "prs-tools-view.h"

struct _PrsToolsView
{
  GtkWidget            parent_instance;

  GPtrArray           *rows;

  GtkStack            *stack;
  AdwPreferencesGroup *tools_group;
};

G_DEFINE_FINAL_TYPE (PrsToolsView, prs_tools_view, GTK_TYPE_WIDGET)

int
prs_tools_view_reload (PrsToolsView  *self,
                       PrsStore      *store,
                       GError       **error)
{
  g_autoptr(GPtrArray) tools = NULL;

  g_return_val_if_fail (PRS_IS_TOOLS_VIEW (self), -1);

  for (guint i = 0; i < self->rows->len; i++)
    adw_preferences_group_remove (self->tools_group, g_ptr_array_index (self->rows, i));
  g_ptr_array_set_size (self->rows, 0);

  tools = prs_store_list_tools (store, error);
  if (tools == NULL)
    return -1;

  for (guint i = 0; i < tools->len; i++)
    {
      const PrsTool *tool = g_ptr_array_index (tools, i);
      GtkWidget *row = adw_action_row_new ();

      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), tool->name);
      adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
      adw_action_row_set_subtitle (ADW_ACTION_ROW (row), tool->description);
      adw_action_row_set_subtitle_lines (ADW_ACTION_ROW (row), 2);
      adw_preferences_group_add (self->tools_group, row);
      g_ptr_array_add (self->rows, row);
    }

  gtk_stack_set_visible_child_name (self->stack, tools->len > 0 ? "tools" : "empty");
  return (int) tools->len;
}

static void
prs_tools_view_dispose (GObject *object)
{
  PrsToolsView *self = PRS_TOOLS_VIEW (object);
  GtkWidget *child;

  gtk_widget_dispose_template (GTK_WIDGET (self), PRS_TYPE_TOOLS_VIEW);
  /* The template's unnamed top child too. */
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  g_clear_pointer (&self->rows, g_ptr_array_unref);

  G_OBJECT_CLASS (prs_tools_view_parent_class)->dispose (object);
}

static void
prs_tools_view_class_init (PrsToolsViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = prs_tools_view_dispose;

  gtk_widget_class_set_template_from_resource (widget_class, RESOURCE_PREFIX "/ui/prs-tools-view.ui");
  gtk_widget_class_bind_template_child (widget_class, PrsToolsView, stack);
  gtk_widget_class_bind_template_child (widget_class, PrsToolsView, tools_group);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
}

static void
prs_tools_view_init (PrsToolsView *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->rows = g_ptr_array_new ();
}
