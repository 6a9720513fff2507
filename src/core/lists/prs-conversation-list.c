/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-conversation-list.c: the conversations, newest first, refreshed in
 * place from the store. There are tens or hundreds of conversations, so a
 * refresh reads them all (one indexed query) and reports the smallest
 * changed range. */
#include "config.h"

#include "prs-conversation-list.h"

struct _PrsConversationList
{
  GObject    parent_instance;

  PrsStore  *store;
  GPtrArray *items;   /* PrsConversation, newest first */
};

static void prs_conversation_list_model_init (GListModelInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (PrsConversationList, prs_conversation_list, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL,
                                                      prs_conversation_list_model_init))

static GType
prs_conversation_list_get_item_type (GListModel *model)
{
  return PRS_TYPE_CONVERSATION;
}

static guint
prs_conversation_list_get_n_items (GListModel *model)
{
  return PRS_CONVERSATION_LIST (model)->items->len;
}

static gpointer
prs_conversation_list_get_item (GListModel *model,
                                guint       position)
{
  PrsConversationList *self = PRS_CONVERSATION_LIST (model);

  if (position >= self->items->len)
    return NULL;
  return g_object_ref (g_ptr_array_index (self->items, position));
}

static void
prs_conversation_list_model_init (GListModelInterface *iface)
{
  iface->get_item_type = prs_conversation_list_get_item_type;
  iface->get_n_items = prs_conversation_list_get_n_items;
  iface->get_item = prs_conversation_list_get_item;
}

PrsConversationList *
prs_conversation_list_new (PrsStore *store)
{
  PrsConversationList *self;

  g_return_val_if_fail (PRS_IS_STORE (store), NULL);

  self = g_object_new (PRS_TYPE_CONVERSATION_LIST, NULL);
  self->store = g_object_ref (store);
  prs_conversation_list_reload (self, NULL);
  return self;
}

PrsConversation *
prs_conversation_list_find (PrsConversationList *self,
                            const char          *conversation_id,
                            guint               *position)
{
  g_return_val_if_fail (PRS_IS_CONVERSATION_LIST (self), NULL);

  if (conversation_id == NULL)
    return NULL;

  for (guint i = 0; i < self->items->len; i++)
    {
      PrsConversation *conversation = g_ptr_array_index (self->items, i);

      if (g_strcmp0 (prs_conversation_get_id (conversation), conversation_id) == 0)
        {
          if (position != NULL)
            *position = i;
          return conversation;
        }
    }

  return NULL;
}

gboolean
prs_conversation_list_reload (PrsConversationList  *self,
                              GError              **error)
{
  g_autoptr(JsonArray) rows = NULL;
  g_autoptr(GPtrArray) fresh = NULL;
  g_autoptr(GPtrArray) old = NULL;
  guint head = 0, tail = 0;
  guint old_len, new_len;

  g_return_val_if_fail (PRS_IS_CONVERSATION_LIST (self), FALSE);

  rows = prs_store_list_conversations (self->store, error);
  if (rows == NULL)
    return FALSE;

  fresh = g_ptr_array_new_full (json_array_get_length (rows), g_object_unref);
  for (guint i = 0; i < json_array_get_length (rows); i++)
    {
      JsonObject *object = json_array_get_object_element (rows, i);
      PrsConversation *conversation;

      if (object == NULL)
        continue;

      conversation = prs_conversation_list_find (self, json_object_get_string_member_with_default (object, "id", NULL), NULL);
      if (conversation != NULL)
        {
          g_ptr_array_add (fresh, g_object_ref (conversation));
          prs_conversation_update_from_json (conversation, object);
        }
      else if ((conversation = prs_conversation_new_from_json (object)) != NULL)
        g_ptr_array_add (fresh, conversation);
    }

  old = g_steal_pointer (&self->items);
  self->items = g_steal_pointer (&fresh);

  old_len = old->len;
  new_len = self->items->len;
  while (head < old_len && head < new_len &&
         g_ptr_array_index (old, head) == g_ptr_array_index (self->items, head))
    head++;
  while (tail < old_len - head && tail < new_len - head &&
         g_ptr_array_index (old, old_len - 1 - tail) == g_ptr_array_index (self->items, new_len - 1 - tail))
    tail++;

  if (head < old_len || head < new_len)
    g_list_model_items_changed (G_LIST_MODEL (self), head,
                                old_len - head - tail, new_len - head - tail);
  return TRUE;
}

gboolean
prs_conversation_list_rename (PrsConversationList  *self,
                              PrsConversation      *conversation,
                              const char           *title,
                              GError              **error)
{
  g_return_val_if_fail (PRS_IS_CONVERSATION_LIST (self), FALSE);
  g_return_val_if_fail (PRS_IS_CONVERSATION (conversation), FALSE);

  if (!prs_store_rename_conversation (self->store, prs_conversation_get_id (conversation), title, error))
    return FALSE;
  return prs_conversation_list_reload (self, error);
}

gboolean
prs_conversation_list_mark_read (PrsConversationList  *self,
                                 PrsConversation      *conversation,
                                 GError              **error)
{
  g_return_val_if_fail (PRS_IS_CONVERSATION_LIST (self), FALSE);
  g_return_val_if_fail (PRS_IS_CONVERSATION (conversation), FALSE);

  if (prs_conversation_get_unread_count (conversation) == 0)
    return TRUE;
  if (!prs_store_mark_conversation_read (self->store, prs_conversation_get_id (conversation), error))
    return FALSE;
  return prs_conversation_list_reload (self, error);
}

PrsConversation *
prs_conversation_list_resolve (PrsConversationList  *self,
                               const char           *slug,
                               GError              **error)
{
  g_autofree char *id = NULL;

  g_return_val_if_fail (PRS_IS_CONVERSATION_LIST (self), NULL);

  if (!prs_store_resolve_conversation (self->store, slug, &id, NULL, error) ||
      !prs_conversation_list_reload (self, error))
    return NULL;
  return prs_conversation_list_find (self, id, NULL);
}

static void
prs_conversation_list_finalize (GObject *object)
{
  PrsConversationList *self = PRS_CONVERSATION_LIST (object);

  g_clear_pointer (&self->items, g_ptr_array_unref);
  g_clear_object (&self->store);

  G_OBJECT_CLASS (prs_conversation_list_parent_class)->finalize (object);
}

static void
prs_conversation_list_class_init (PrsConversationListClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = prs_conversation_list_finalize;
}

static void
prs_conversation_list_init (PrsConversationList *self)
{
  self->items = g_ptr_array_new_with_free_func (g_object_unref);
}
