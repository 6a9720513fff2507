/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-message-list.c: a conversation's messages, paged from SQLite with a
 * small LRU cache of pages. A list view asks only for the rows around its
 * viewport, so only those pages are read. */
#include "config.h"

#include "prs-message-list.h"
#include "prs-thread.h"

typedef struct
{
  GPtrArray *items;      /* PrsMessage */
  guint64    last_used;
} Page;

struct _PrsMessageList
{
  GObject     parent_instance;

  PrsStore   *store;
  char       *conversation_id;

  guint       n_items;
  gint64      min_seq;
  gboolean    contiguous;   /* seq = min_seq + position: read by seq, not OFFSET */

  GHashTable *pages;        /* page index → Page */
  guint64     clock;
  guint       n_page_loads;
};

static void prs_message_list_model_init (GListModelInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (PrsMessageList, prs_message_list, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL,
                                                      prs_message_list_model_init))

static void
page_free (gpointer data)
{
  Page *page = data;

  g_ptr_array_unref (page->items);
  g_free (page);
}

static void
evict_least_recently_used (PrsMessageList *self)
{
  while (g_hash_table_size (self->pages) > PRS_MESSAGE_LIST_MAX_PAGES)
    {
      GHashTableIter iter;
      gpointer key, value;
      gpointer oldest_key = NULL;
      guint64 oldest = G_MAXUINT64;

      g_hash_table_iter_init (&iter, self->pages);
      while (g_hash_table_iter_next (&iter, &key, &value))
        {
          Page *page = value;

          if (page->last_used < oldest)
            {
              oldest = page->last_used;
              oldest_key = key;
            }
        }
      g_hash_table_remove (self->pages, oldest_key);
    }
}

/* A row that could not be read still needs an item at its position. */
static PrsMessage *
placeholder_message (const char *text)
{
  g_autoptr(JsonObject) object = json_object_new ();

  json_object_set_string_member (object, "kind", PRS_MESSAGE_KIND_NOTICE);
  json_object_set_string_member (object, "content", text);
  return prs_message_new_from_json (object);
}

static Page *
load_page (PrsMessageList *self,
           guint           index)
{
  g_autoptr(JsonArray) rows = NULL;
  g_autoptr(GError) error = NULL;
  guint offset = index * PRS_MESSAGE_LIST_PAGE_SIZE;
  Page *page;

  if (self->contiguous)
    rows = prs_store_list_messages (self->store, self->conversation_id,
                                    self->min_seq - 1 + offset,
                                    PRS_MESSAGE_LIST_PAGE_SIZE, &error);
  else
    rows = prs_store_list_messages_at (self->store, self->conversation_id, offset,
                                       PRS_MESSAGE_LIST_PAGE_SIZE, &error);
  if (rows == NULL)
    g_message ("Could not read messages of %s: %s", self->conversation_id, error->message);

  page = g_new0 (Page, 1);
  page->items = g_ptr_array_new_full (PRS_MESSAGE_LIST_PAGE_SIZE, g_object_unref);
  for (guint i = 0; rows != NULL && i < json_array_get_length (rows); i++)
    {
      JsonObject *object = json_array_get_object_element (rows, i);

      if (object != NULL)
        g_ptr_array_add (page->items, prs_message_new_from_json (object));
    }

  self->n_page_loads++;
  /* Newest first, so that eviction never drops the page just read. */
  page->last_used = ++self->clock;
  g_hash_table_insert (self->pages, GUINT_TO_POINTER (index), page);
  evict_least_recently_used (self);
  return page;
}

static GType
prs_message_list_get_item_type (GListModel *model)
{
  return PRS_TYPE_MESSAGE;
}

static guint
prs_message_list_get_n_items (GListModel *model)
{
  PRS_ASSERT_MAIN_THREAD ();

  return PRS_MESSAGE_LIST (model)->n_items;
}

static gpointer
prs_message_list_get_item (GListModel *model,
                           guint       position)
{
  PrsMessageList *self = PRS_MESSAGE_LIST (model);
  guint index = position / PRS_MESSAGE_LIST_PAGE_SIZE;
  guint within = position % PRS_MESSAGE_LIST_PAGE_SIZE;
  Page *page;

  PRS_ASSERT_MAIN_THREAD ();

  if (position >= self->n_items)
    return NULL;

  page = g_hash_table_lookup (self->pages, GUINT_TO_POINTER (index));
  if (page == NULL)
    page = load_page (self, index);
  page->last_used = ++self->clock;

  if (within >= page->items->len)
    return placeholder_message ("…");
  return g_object_ref (g_ptr_array_index (page->items, within));
}

static void
prs_message_list_model_init (GListModelInterface *iface)
{
  iface->get_item_type = prs_message_list_get_item_type;
  iface->get_n_items = prs_message_list_get_n_items;
  iface->get_item = prs_message_list_get_item;
}

static void
count (PrsMessageList *self)
{
  g_autoptr(GError) error = NULL;
  guint n = 0;
  gint64 min_seq = 0, max_seq = 0;

  if (!prs_store_count_messages (self->store, self->conversation_id, &n, &min_seq, &max_seq, &error))
    {
      g_message ("Could not count messages of %s: %s", self->conversation_id, error->message);
      return;
    }

  self->n_items = n;
  self->min_seq = min_seq;
  self->contiguous = n == 0 || max_seq - min_seq + 1 == (gint64) n;
}

PrsMessageList *
prs_message_list_new (PrsStore   *store,
                      const char *conversation_id)
{
  PrsMessageList *self;

  g_return_val_if_fail (PRS_IS_STORE (store), NULL);
  g_return_val_if_fail (conversation_id != NULL, NULL);
  PRS_ASSERT_MAIN_THREAD ();

  self = g_object_new (PRS_TYPE_MESSAGE_LIST, NULL);
  self->store = g_object_ref (store);
  self->conversation_id = g_strdup (conversation_id);
  count (self);
  return self;
}

const char *
prs_message_list_get_conversation_id (PrsMessageList *self)
{
  g_return_val_if_fail (PRS_IS_MESSAGE_LIST (self), NULL);
  PRS_ASSERT_MAIN_THREAD ();
  return self->conversation_id;
}

void
prs_message_list_refresh (PrsMessageList *self)
{
  guint old_n;

  g_return_if_fail (PRS_IS_MESSAGE_LIST (self));
  PRS_ASSERT_MAIN_THREAD ();

  old_n = self->n_items;
  count (self);
  if (self->n_items == old_n)
    return;

  /* Pages are read again: the last one was partial, and when the count
   * shrank (never today) everything may have moved. */
  g_hash_table_remove_all (self->pages);

  if (self->n_items > old_n)
    g_list_model_items_changed (G_LIST_MODEL (self), old_n, 0, self->n_items - old_n);
  else
    g_list_model_items_changed (G_LIST_MODEL (self), 0, old_n, self->n_items);
}

void
prs_message_list_message_changed (PrsMessageList *self,
                                  const char     *message_id)
{
  GHashTableIter iter;
  gpointer key, value;

  g_return_if_fail (PRS_IS_MESSAGE_LIST (self));
  PRS_ASSERT_MAIN_THREAD ();

  g_hash_table_iter_init (&iter, self->pages);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      Page *page = value;

      for (guint i = 0; i < page->items->len; i++)
        {
          PrsMessage *message = g_ptr_array_index (page->items, i);
          guint position;

          if (g_strcmp0 (prs_message_get_id (message), message_id) != 0)
            continue;

          position = GPOINTER_TO_UINT (key) * PRS_MESSAGE_LIST_PAGE_SIZE + i;
          g_hash_table_iter_remove (&iter);
          g_list_model_items_changed (G_LIST_MODEL (self), position, 1, 1);
          return;
        }
    }
}

guint
prs_message_list_get_n_cached (PrsMessageList *self)
{
  GHashTableIter iter;
  gpointer value;
  guint n = 0;

  g_return_val_if_fail (PRS_IS_MESSAGE_LIST (self), 0);
  PRS_ASSERT_MAIN_THREAD ();

  g_hash_table_iter_init (&iter, self->pages);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    n += ((Page *) value)->items->len;
  return n;
}

guint
prs_message_list_get_n_page_loads (PrsMessageList *self)
{
  g_return_val_if_fail (PRS_IS_MESSAGE_LIST (self), 0);
  PRS_ASSERT_MAIN_THREAD ();
  return self->n_page_loads;
}

static void
prs_message_list_finalize (GObject *object)
{
  PrsMessageList *self = PRS_MESSAGE_LIST (object);

  g_clear_pointer (&self->pages, g_hash_table_unref);
  g_clear_object (&self->store);
  g_free (self->conversation_id);

  G_OBJECT_CLASS (prs_message_list_parent_class)->finalize (object);
}

static void
prs_message_list_class_init (PrsMessageListClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = prs_message_list_finalize;
}

static void
prs_message_list_init (PrsMessageList *self)
{
  self->pages = g_hash_table_new_full (NULL, NULL, NULL, page_free);
}
