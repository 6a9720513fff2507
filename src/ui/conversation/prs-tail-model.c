/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-tail-model.c: the part of a conversation's messages the list view is
 * given (prs-conversation-view.c says why). */
#include "config.h"

#include "prs-tail-model.h"

static void prs_tail_model_model_init (GListModelInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (PrsTailModel, prs_tail_model, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL, prs_tail_model_model_init))

static GType
prs_tail_model_get_item_type (GListModel *model)
{
  return g_list_model_get_item_type (PRS_TAIL_MODEL (model)->base);
}

static guint
prs_tail_model_get_n_items (GListModel *model)
{
  return PRS_TAIL_MODEL (model)->n_items;
}

static gpointer
prs_tail_model_get_item (GListModel *model,
                         guint       position)
{
  PrsTailModel *self = PRS_TAIL_MODEL (model);

  if (position >= self->n_items)
    return NULL;
  return g_list_model_get_item (self->base, self->hidden + position);
}

static void
prs_tail_model_model_init (GListModelInterface *iface)
{
  iface->get_item_type = prs_tail_model_get_item_type;
  iface->get_n_items = prs_tail_model_get_n_items;
  iface->get_item = prs_tail_model_get_item;
}

static void
on_base_items_changed (GListModel   *base,
                       guint         position,
                       guint         removed,
                       guint         added,
                       PrsTailModel *self)
{
  guint old_n = self->n_items;
  guint n = g_list_model_get_n_items (base);

  if (self->hidden_tail > 0 && position >= self->hidden + self->n_items &&
      self->hidden_tail + added >= removed)
    {
      /* Below what is shown (new messages while an older one is open) */
      self->hidden_tail = self->hidden_tail + added - removed;
    }
  else if (position >= self->hidden && position + removed <= self->hidden + self->n_items)
    {
      self->n_items = n - self->hidden - self->hidden_tail;
      g_list_model_items_changed (G_LIST_MODEL (self), position - self->hidden, removed, added);
    }
  else if (position + removed <= self->hidden && removed == added)
    {
      /* Replaced where nothing is shown yet */
    }
  else
    {
      /* Anything else (the list shrank): everything, shown */
      self->hidden = 0;
      self->hidden_tail = 0;
      self->n_items = n;
      g_list_model_items_changed (G_LIST_MODEL (self), 0, old_n, n);
    }
}

static void
prs_tail_model_dispose (GObject *object)
{
  PrsTailModel *self = PRS_TAIL_MODEL (object);

  if (self->base != NULL)
    g_signal_handlers_disconnect_by_func (self->base, on_base_items_changed, self);
  g_clear_object (&self->base);

  G_OBJECT_CLASS (prs_tail_model_parent_class)->dispose (object);
}

static void
prs_tail_model_class_init (PrsTailModelClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = prs_tail_model_dispose;
}

static void
prs_tail_model_init (PrsTailModel *self)
{
}

/* Shows @shown items of @base from @first on (the last @shown when @first
 * is G_MAXUINT; all of them when it has fewer). */
PrsTailModel *
prs_tail_model_new (GListModel *base,
                    guint       first,
                    guint       shown)
{
  PrsTailModel *self = g_object_new (PRS_TYPE_TAIL_MODEL, NULL);
  guint n = g_list_model_get_n_items (base);

  self->base = g_object_ref (base);
  if (first == G_MAXUINT || first + shown >= n)
    {
      self->hidden = n > shown ? n - shown : 0;
      if (first != G_MAXUINT)
        self->hidden = MIN (self->hidden, first);
    }
  else
    {
      self->hidden = first;
      self->hidden_tail = n - first - shown;
    }
  self->n_items = n - self->hidden - self->hidden_tail;
  g_signal_connect (base, "items-changed", G_CALLBACK (on_base_items_changed), self);
  return self;
}

/* Shows up to @count more of the newer items, below the others. */
void
prs_tail_model_reveal_below (PrsTailModel *self,
                             guint         count)
{
  count = MIN (count, self->hidden_tail);
  if (count == 0)
    return;
  self->hidden_tail -= count;
  self->n_items += count;
  g_list_model_items_changed (G_LIST_MODEL (self), self->n_items - count, 0, count);
}

/* Shows up to @count more of the older items, above the others. */
void
prs_tail_model_reveal (PrsTailModel *self,
                       guint         count)
{
  count = MIN (count, self->hidden);
  if (count == 0)
    return;
  self->hidden -= count;
  self->n_items += count;
  g_list_model_items_changed (G_LIST_MODEL (self), 0, 0, count);
}

