/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-tail-model.h: a window on a list model, growing at both ends: what
 * the conversation's list view shows of its messages while older (or,
 * opened at a message, newer) ones are still hidden. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define PRS_TYPE_TAIL_MODEL (prs_tail_model_get_type ())
G_DECLARE_FINAL_TYPE (PrsTailModel, prs_tail_model, PRS, TAIL_MODEL, GObject)

/* The fields are read by the view that owns it; only the functions below
 * change them. */
struct _PrsTailModel
{
  GObject     parent_instance;

  GListModel *base;
  guint       hidden;       /* leading items of base not shown */
  guint       hidden_tail;  /* trailing items not shown (opened at an older message) */
  guint       n_items;      /* shown: base's count - hidden - hidden_tail */
};

PrsTailModel *prs_tail_model_new          (GListModel   *base,
                                           guint         first,
                                           guint         shown);
void          prs_tail_model_reveal       (PrsTailModel *self,
                                           guint         count);
void          prs_tail_model_reveal_below (PrsTailModel *self,
                                           guint         count);

G_END_DECLS
