/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-field-picker.h: a searchable popover over the discovered Request
 * Context fields (path, type, sample, origin); choosing one emits
 * PrsFieldPicker::field-chosen. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define PRS_TYPE_FIELD_PICKER (prs_field_picker_get_type ())
G_DECLARE_FINAL_TYPE (PrsFieldPicker, prs_field_picker, PRS, FIELD_PICKER, GtkPopover)

GtkWidget   *prs_field_picker_new             (void);
/* A GListModel of PrsContextFieldItem (prs-context-field-list.h). */
void         prs_field_picker_set_model       (PrsFieldPicker *self,
                                               GListModel     *fields);
/* The path shown as chosen (a check mark), NULL for none. */
void         prs_field_picker_set_current     (PrsFieldPicker *self,
                                               const char     *path);
GtkEditable *prs_field_picker_get_search_entry (PrsFieldPicker *self);
GtkListView *prs_field_picker_get_list_view   (PrsFieldPicker *self);

G_END_DECLS
