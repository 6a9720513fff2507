/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-kv-grid.c: a key-value block of a reply. Keys are set as plain text
 * with a bold weight attribute (never markup: a key is data) and the
 * "kv-key" style class. */
#include "config.h"

#include "prs-kv-grid.h"
#include "prs-layout.h"
#include "prs-text.h"

struct _PrsKvGrid
{
  GtkWidget  parent_instance;

  GtkWidget *grid;
  guint      n_rows;
};

G_DEFINE_FINAL_TYPE (PrsKvGrid, prs_kv_grid, GTK_TYPE_WIDGET)

gboolean
prs_kv_grid_label_is_bold (GtkLabel *label)
{
  PangoAttrList *attrs;
  g_autoptr(PangoAttrIterator) iter = NULL;
  PangoAttribute *attr;

  g_return_val_if_fail (GTK_IS_LABEL (label), FALSE);

  attrs = gtk_label_get_attributes (label);
  if (attrs == NULL)
    return FALSE;

  iter = pango_attr_list_get_iterator (attrs);
  attr = pango_attr_iterator_get (iter, PANGO_ATTR_WEIGHT);
  return attr != NULL && ((PangoAttrInt *) attr)->value >= PANGO_WEIGHT_BOLD;
}

GtkWidget *
prs_kv_grid_new (GArray *rows)
{
  PrsKvGrid *self = g_object_new (PRS_TYPE_KV_GRID, NULL);

  g_return_val_if_fail (rows != NULL, GTK_WIDGET (self));

  for (guint i = 0; i < rows->len; i++)
    {
      const PrsLayoutRow *row = &g_array_index (rows, PrsLayoutRow, i);
      g_autoptr(PangoAttrList) attrs = pango_attr_list_new ();
      GtkWidget *key = gtk_label_new (row->key);
      GtkWidget *value = prs_text_new (row->value, TRUE);

      pango_attr_list_insert (attrs, pango_attr_weight_new (PANGO_WEIGHT_BOLD));
      gtk_label_set_attributes (GTK_LABEL (key), attrs);
      gtk_label_set_xalign (GTK_LABEL (key), 0.0);
      gtk_label_set_yalign (GTK_LABEL (key), 0.0);
      gtk_label_set_selectable (GTK_LABEL (key), TRUE);
      gtk_widget_set_can_focus (key, FALSE);
      gtk_widget_set_valign (key, GTK_ALIGN_START);
      gtk_widget_add_css_class (key, "kv-key");

      gtk_widget_set_hexpand (value, TRUE);
      gtk_widget_set_valign (value, GTK_ALIGN_START);
      gtk_widget_add_css_class (value, "kv-value");

      gtk_grid_attach (GTK_GRID (self->grid), key, 0, i, 1, 1);
      gtk_grid_attach (GTK_GRID (self->grid), value, 1, i, 1, 1);
      self->n_rows++;
    }

  return GTK_WIDGET (self);
}

guint
prs_kv_grid_get_n_rows (PrsKvGrid *self)
{
  g_return_val_if_fail (PRS_IS_KV_GRID (self), 0);
  return self->n_rows;
}

GtkWidget *
prs_kv_grid_get_key_label (PrsKvGrid *self,
                           guint      row)
{
  g_return_val_if_fail (PRS_IS_KV_GRID (self), NULL);
  return gtk_grid_get_child_at (GTK_GRID (self->grid), 0, row);
}

GtkWidget *
prs_kv_grid_get_value_widget (PrsKvGrid *self,
                              guint      row)
{
  g_return_val_if_fail (PRS_IS_KV_GRID (self), NULL);
  return gtk_grid_get_child_at (GTK_GRID (self->grid), 1, row);
}

static void
prs_kv_grid_dispose (GObject *object)
{
  PrsKvGrid *self = PRS_KV_GRID (object);

  g_clear_pointer (&self->grid, gtk_widget_unparent);

  G_OBJECT_CLASS (prs_kv_grid_parent_class)->dispose (object);
}

static void
prs_kv_grid_class_init (PrsKvGridClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = prs_kv_grid_dispose;

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "kvgrid");
}

static void
prs_kv_grid_init (PrsKvGrid *self)
{
  self->grid = gtk_grid_new ();
  gtk_grid_set_column_spacing (GTK_GRID (self->grid), 18);
  gtk_grid_set_row_spacing (GTK_GRID (self->grid), 6);
  gtk_widget_set_parent (self->grid, GTK_WIDGET (self));
}
