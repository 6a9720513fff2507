/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-kv-grid.h: a key-value block of a reply (docs/layout.md): two columns, keys
 * bold, values wrapping and selectable with their URLs clickable. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define PRS_TYPE_KV_GRID (prs_kv_grid_get_type ())
G_DECLARE_FINAL_TYPE (PrsKvGrid, prs_kv_grid, PRS, KV_GRID, GtkWidget)

/* @rows: PrsLayoutRow (prs-layout.h). */
GtkWidget *prs_kv_grid_new            (GArray    *rows);
guint      prs_kv_grid_get_n_rows     (PrsKvGrid *self);
/* The key label of row @row (a GtkLabel), or NULL. */
GtkWidget *prs_kv_grid_get_key_label  (PrsKvGrid *self,
                                       guint      row);
/* The widget showing the value of row @row, or NULL. */
GtkWidget *prs_kv_grid_get_value_widget (PrsKvGrid *self,
                                       guint      row);
/* TRUE when @label's text is drawn bold through its attributes. */
gboolean   prs_kv_grid_label_is_bold  (GtkLabel  *label);

G_END_DECLS
