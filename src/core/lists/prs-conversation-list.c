/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-conversation-list.c: the conversations, newest first, kept in the
 * store's order and changed in place.
 *
 * An API client can create thousands of conversations and messages, each
 * a notification on the main thread, so nothing here may cost more than
 * the list's length per change, nor more than one change signal per main
 * loop turn: changed ids are queued, and one idle source (before GTK
 * paints) reads only those rows, merges them into the sorted array and
 * emits one items-changed for the range that really changed. A full
 * reload (start, or a batch larger than a quarter of the list) is one
 * query, with an id → item hash so it stays linear too. */
#include "config.h"

#include "prs-conversation-list.h"
#include "prs-thread.h"

/* After the main loop's pending events (G_PRIORITY_DEFAULT, where the API
 * thread's notifications arrive), before GDK's frame clock paints
 * (GDK_PRIORITY_REDRAW = G_PRIORITY_HIGH_IDLE + 20): every change of one
 * turn lands in one update, and the next frame shows it. The core does not
 * link GTK, so the number is written out. */
#define FLUSH_PRIORITY (G_PRIORITY_HIGH_IDLE + 10)

struct _PrsConversationList
{
  GObject       parent_instance;

  PrsStore     *store;
  GPtrArray    *items;     /* PrsConversation, in prs_conversation_compare order */
  GHashTable   *by_id;     /* id (the item's own string) → PrsConversation */
  GHashTable   *pending;   /* ids (owned) waiting for the flush */
  GMainContext *context;   /* where the flush runs: the creator's */
  gint64        data_version;  /* the store's when last read in full */
  GSource      *flush_source;
  gboolean      show_archived;
};

enum
{
  PROP_0,
  PROP_SHOW_ARCHIVED,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

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
  PRS_ASSERT_MAIN_THREAD ();

  return PRS_CONVERSATION_LIST (model)->items->len;
}

static gpointer
prs_conversation_list_get_item (GListModel *model,
                                guint       position)
{
  PrsConversationList *self = PRS_CONVERSATION_LIST (model);

  PRS_ASSERT_MAIN_THREAD ();

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
  PRS_ASSERT_MAIN_THREAD ();

  self = g_object_new (PRS_TYPE_CONVERSATION_LIST, NULL);
  self->store = g_object_ref (store);
  prs_conversation_list_reload (self, NULL);
  return self;
}

/* Archived conversations are items only while they are shown */
static gboolean
is_shown (PrsConversationList *self,
          PrsConversation     *row)
{
  return self->show_archived || !prs_conversation_get_archived (row);
}

/* The first index in @items whose item does not come before @conversation */
static guint
lower_bound (GPtrArray       *items,
             PrsConversation *conversation)
{
  guint lo = 0, hi = items->len;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (prs_conversation_compare (g_ptr_array_index (items, mid), conversation) < 0)
        lo = mid + 1;
      else
        hi = mid;
    }

  return lo;
}

static guint
position_of (PrsConversationList *self,
             PrsConversation     *conversation)
{
  guint position = lower_bound (self->items, conversation);

  if (position < self->items->len && g_ptr_array_index (self->items, position) == conversation)
    return position;

  /* Unreachable while the array stays sorted; never answer wrongly. */
  g_critical ("The conversation list is out of order");
  g_ptr_array_find (self->items, conversation, &position);
  return position;
}

PrsConversation *
prs_conversation_list_find (PrsConversationList *self,
                            const char          *conversation_id,
                            guint               *position)
{
  PrsConversation *conversation;

  g_return_val_if_fail (PRS_IS_CONVERSATION_LIST (self), NULL);
  PRS_ASSERT_MAIN_THREAD ();

  if (conversation_id == NULL)
    return NULL;

  conversation = g_hash_table_lookup (self->by_id, conversation_id);
  if (conversation != NULL && position != NULL)
    *position = position_of (self, conversation);
  return conversation;
}

/* Makes @fresh the items and says what changed as one signal: the range
 * between the common head and the common tail of the old and new order.
 * A conversation moving to the top is then one removed-and-added range
 * that holds it, so a selection follows it. */
static void
replace_items (PrsConversationList *self,
               GPtrArray           *fresh)
{
  g_autoptr(GPtrArray) old = g_steal_pointer (&self->items);
  guint head = 0, tail = 0;
  guint old_len = old->len, new_len = fresh->len;

  self->items = g_ptr_array_ref (fresh);

  while (head < old_len && head < new_len &&
         g_ptr_array_index (old, head) == g_ptr_array_index (fresh, head))
    head++;
  while (tail < old_len - head && tail < new_len - head &&
         g_ptr_array_index (old, old_len - 1 - tail) == g_ptr_array_index (fresh, new_len - 1 - tail))
    tail++;

  if (head < old_len || head < new_len)
    g_list_model_items_changed (G_LIST_MODEL (self), head,
                                old_len - head - tail, new_len - head - tail);
}

/* Each row read becomes a new item; a failed read then changes nothing,
 * and only afterwards do the items that exist take their new fields. */
static void
read_row (const PrsConversationFields *fields,
          gpointer                     user_data)
{
  GPtrArray *rows = user_data;
  PrsConversation *conversation = prs_conversation_new (fields);

  if (conversation != NULL)
    g_ptr_array_add (rows, conversation);
}

/* The item for @row: the one with its id, updated, or @row itself */
static PrsConversation *
take_row (PrsConversationList *self,
          PrsConversation     *row)
{
  PrsConversation *conversation = g_hash_table_lookup (self->by_id, prs_conversation_get_id (row));
  PrsConversationFields fields;

  if (conversation == NULL)
    return g_object_ref (row);
  prs_conversation_get_fields (row, &fields);
  prs_conversation_update (conversation, &fields);
  return g_object_ref (conversation);
}

gboolean
prs_conversation_list_reload (PrsConversationList  *self,
                              GError              **error)
{
  g_autoptr(GPtrArray) rows = g_ptr_array_new_full (self->items->len, g_object_unref);
  g_autoptr(GPtrArray) fresh = NULL;
  g_autoptr(GHashTable) by_id = NULL;
  gint64 data_version;

  g_return_val_if_fail (PRS_IS_CONVERSATION_LIST (self), FALSE);
  PRS_ASSERT_MAIN_THREAD ();

  /* Asked before reading: a commit of another connection in between is
   * read again by the next refresh */
  data_version = prs_store_get_data_version (self->store);
  if (!prs_store_read_conversations (self->store, NULL, read_row, rows, error))
    return FALSE;
  self->data_version = data_version;

  /* What was queued is in these rows too. */
  g_hash_table_remove_all (self->pending);

  fresh = g_ptr_array_new_full (rows->len, g_object_unref);
  by_id = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; i < rows->len; i++)
    {
      PrsConversation *row = g_ptr_array_index (rows, i);
      PrsConversation *conversation;

      if (!is_shown (self, row))
        continue;
      conversation = take_row (self, row);
      g_ptr_array_add (fresh, conversation);
      g_hash_table_insert (by_id, (gpointer) prs_conversation_get_id (conversation), conversation);
    }

  g_hash_table_unref (self->by_id);
  self->by_id = g_steal_pointer (&by_id);
  replace_items (self, fresh);
  return TRUE;
}

gboolean
prs_conversation_list_refresh (PrsConversationList  *self,
                               GError              **error)
{
  g_return_val_if_fail (PRS_IS_CONVERSATION_LIST (self), FALSE);
  PRS_ASSERT_MAIN_THREAD ();

  if (self->data_version >= 0 && prs_store_get_data_version (self->store) == self->data_version)
    return TRUE;
  return prs_conversation_list_reload (self, error);
}

static int
compare_indirect (gconstpointer a,
                  gconstpointer b)
{
  return prs_conversation_compare (*(PrsConversation **) a, *(PrsConversation **) b);
}

/* Reads the rows of @ids (a set) and merges them into the order: the
 * changed items are taken out (one pass), updated, sorted among
 * themselves, and merged back (one pass). O(n + k log k) for k ids; every
 * row is read before anything changes, so a failed read changes nothing. */
static gboolean
apply_changes (PrsConversationList  *self,
               GHashTable           *ids,
               GError              **error)
{
  g_autoptr(GPtrArray) rows = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GPtrArray) moved = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GHashTable) taken = g_hash_table_new (NULL, NULL);
  g_autoptr(GPtrArray) fresh = NULL;
  GHashTableIter iter;
  gpointer key;
  guint i = 0, j = 0;

  g_hash_table_iter_init (&iter, ids);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    {
      PrsConversation *conversation = g_hash_table_lookup (self->by_id, key);
      guint before = rows->len;

      if (!prs_store_read_conversations (self->store, key, read_row, rows, error))
        return FALSE;
      if (conversation != NULL)
        g_hash_table_add (taken, conversation);
      /* Otherwise gone (or archived and hidden): taken out and not merged back */
      if (rows->len > before && !is_shown (self, g_ptr_array_index (rows, before)))
        g_ptr_array_remove_index_fast (rows, before);
    }

  /* Taken out of the order already, so changing their keys is safe */
  for (guint k = 0; k < rows->len; k++)
    g_ptr_array_add (moved, take_row (self, g_ptr_array_index (rows, k)));

  if (g_hash_table_size (taken) == 0 && moved->len == 0)
    return TRUE;

  g_ptr_array_sort (moved, compare_indirect);

  fresh = g_ptr_array_new_full (self->items->len + moved->len, g_object_unref);
  while (i < self->items->len || j < moved->len)
    {
      PrsConversation *next;

      if (i < self->items->len && g_hash_table_contains (taken, g_ptr_array_index (self->items, i)))
        {
          i++;
          continue;
        }
      if (j < moved->len &&
          (i >= self->items->len ||
           prs_conversation_compare (g_ptr_array_index (moved, j), g_ptr_array_index (self->items, i)) < 0))
        next = g_ptr_array_index (moved, j++);
      else
        next = g_ptr_array_index (self->items, i++);
      g_ptr_array_add (fresh, g_object_ref (next));
    }

  g_hash_table_iter_init (&iter, taken);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    g_hash_table_remove (self->by_id, prs_conversation_get_id (key));
  for (guint k = 0; k < moved->len; k++)
    {
      PrsConversation *conversation = g_ptr_array_index (moved, k);

      g_hash_table_insert (self->by_id, (gpointer) prs_conversation_get_id (conversation), conversation);
    }

  replace_items (self, fresh);
  return TRUE;
}

gboolean
prs_conversation_list_flush (PrsConversationList  *self,
                             GError              **error)
{
  g_autoptr(GHashTable) ids = NULL;

  g_return_val_if_fail (PRS_IS_CONVERSATION_LIST (self), FALSE);
  PRS_ASSERT_MAIN_THREAD ();

  if (self->flush_source != NULL)
    {
      g_source_destroy (self->flush_source);
      g_clear_pointer (&self->flush_source, g_source_unref);
    }
  if (g_hash_table_size (self->pending) == 0)
    return TRUE;

  /* Many rows at once (a start, a flood): one query beats k */
  if (g_hash_table_size (self->pending) > MAX (64, self->items->len / 4))
    return prs_conversation_list_reload (self, error);

  ids = g_steal_pointer (&self->pending);
  self->pending = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  return apply_changes (self, ids, error);
}

static gboolean
flush_cb (gpointer data)
{
  PrsConversationList *self = data;
  g_autoptr(GError) error = NULL;

  g_clear_pointer (&self->flush_source, g_source_unref);
  if (!prs_conversation_list_flush (self, &error))
    g_message ("Could not read the conversations: %s", error->message);
  return G_SOURCE_REMOVE;
}

void
prs_conversation_list_queue_update (PrsConversationList *self,
                                    const char          *conversation_id)
{
  g_return_if_fail (PRS_IS_CONVERSATION_LIST (self));
  PRS_ASSERT_MAIN_THREAD ();

  if (conversation_id == NULL)
    return;

  g_hash_table_add (self->pending, g_strdup (conversation_id));
  if (self->flush_source != NULL)
    return;

  self->flush_source = g_idle_source_new ();
  g_source_set_priority (self->flush_source, FLUSH_PRIORITY);
  g_source_set_name (self->flush_source, "[prosponsive] conversation list flush");
  /* The source holds no reference: finalize destroys it. */
  g_source_set_callback (self->flush_source, flush_cb, self, NULL);
  g_source_attach (self->flush_source, self->context);
}

gboolean
prs_conversation_list_update (PrsConversationList  *self,
                              const char           *conversation_id,
                              GError              **error)
{
  g_autoptr(GHashTable) ids = NULL;

  g_return_val_if_fail (PRS_IS_CONVERSATION_LIST (self), FALSE);
  PRS_ASSERT_MAIN_THREAD ();

  if (conversation_id == NULL)
    return TRUE;

  ids = g_hash_table_new (g_str_hash, g_str_equal);
  g_hash_table_add (ids, (gpointer) conversation_id);
  g_hash_table_remove (self->pending, conversation_id);
  return apply_changes (self, ids, error);
}

gboolean
prs_conversation_list_rename (PrsConversationList  *self,
                              PrsConversation      *conversation,
                              const char           *title,
                              GError              **error)
{
  g_return_val_if_fail (PRS_IS_CONVERSATION_LIST (self), FALSE);
  g_return_val_if_fail (PRS_IS_CONVERSATION (conversation), FALSE);
  PRS_ASSERT_MAIN_THREAD ();

  if (!prs_store_rename_conversation (self->store, prs_conversation_get_id (conversation), title, error))
    return FALSE;
  return prs_conversation_list_update (self, prs_conversation_get_id (conversation), error);
}

gboolean
prs_conversation_list_set_pinned (PrsConversationList  *self,
                                  PrsConversation      *conversation,
                                  gboolean              pinned,
                                  GError              **error)
{
  g_return_val_if_fail (PRS_IS_CONVERSATION_LIST (self), FALSE);
  g_return_val_if_fail (PRS_IS_CONVERSATION (conversation), FALSE);
  PRS_ASSERT_MAIN_THREAD ();

  if (!prs_store_set_conversation_pinned (self->store, prs_conversation_get_id (conversation), pinned, error))
    return FALSE;
  return prs_conversation_list_update (self, prs_conversation_get_id (conversation), error);
}

gboolean
prs_conversation_list_set_archived (PrsConversationList  *self,
                                    PrsConversation      *conversation,
                                    gboolean              archived,
                                    GError              **error)
{
  g_return_val_if_fail (PRS_IS_CONVERSATION_LIST (self), FALSE);
  g_return_val_if_fail (PRS_IS_CONVERSATION (conversation), FALSE);
  PRS_ASSERT_MAIN_THREAD ();

  if (!prs_store_set_conversation_archived (self->store, prs_conversation_get_id (conversation), archived, error))
    return FALSE;
  return prs_conversation_list_update (self, prs_conversation_get_id (conversation), error);
}

gboolean
prs_conversation_list_delete (PrsConversationList  *self,
                              const char * const   *ids,
                              GError              **error)
{
  g_autoptr(GHashTable) changed = g_hash_table_new (g_str_hash, g_str_equal);

  g_return_val_if_fail (PRS_IS_CONVERSATION_LIST (self), FALSE);
  g_return_val_if_fail (ids != NULL, FALSE);
  PRS_ASSERT_MAIN_THREAD ();

  /* Each mark is its own transaction: one that fails leaves the others
   * marked, and the list shows what the store holds */
  for (guint i = 0; ids[i] != NULL; i++)
    {
      if (!prs_store_mark_conversation_deleted (self->store, ids[i], error))
        break;
      g_hash_table_add (changed, (gpointer) ids[i]);
    }
  if (g_hash_table_size (changed) > 0)
    {
      GHashTableIter iter;
      gpointer key;

      g_hash_table_iter_init (&iter, changed);
      while (g_hash_table_iter_next (&iter, &key, NULL))
        g_hash_table_remove (self->pending, key);
      if (!apply_changes (self, changed, error != NULL && *error == NULL ? error : NULL))
        return FALSE;
    }
  return error == NULL || *error == NULL;
}

gboolean
prs_conversation_list_restore (PrsConversationList  *self,
                               const char * const   *ids,
                               GError              **error)
{
  g_autoptr(GHashTable) changed = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  gboolean ok = TRUE;

  g_return_val_if_fail (PRS_IS_CONVERSATION_LIST (self), FALSE);
  g_return_val_if_fail (ids != NULL, FALSE);
  PRS_ASSERT_MAIN_THREAD ();

  for (guint i = 0; ids[i] != NULL && ok; i++)
    {
      char *merged = NULL;

      ok = prs_store_restore_conversation (self->store, ids[i], &merged, error);
      if (ok)
        g_hash_table_add (changed, g_strdup (ids[i]));
      if (merged != NULL)
        g_hash_table_add (changed, merged);
    }
  if (g_hash_table_size (changed) > 0 &&
      !apply_changes (self, changed, ok ? error : NULL))
    return FALSE;
  return ok;
}

gboolean
prs_conversation_list_set_show_archived (PrsConversationList  *self,
                                         gboolean              show,
                                         GError              **error)
{
  g_return_val_if_fail (PRS_IS_CONVERSATION_LIST (self), FALSE);
  PRS_ASSERT_MAIN_THREAD ();

  show = !!show;
  if (self->show_archived == show)
    return TRUE;
  self->show_archived = show;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SHOW_ARCHIVED]);
  /* Archived conversations sort last: one items-changed at the end */
  return prs_conversation_list_reload (self, error);
}

gboolean
prs_conversation_list_get_show_archived (PrsConversationList *self)
{
  g_return_val_if_fail (PRS_IS_CONVERSATION_LIST (self), FALSE);
  return self->show_archived;
}

gboolean
prs_conversation_list_mark_read (PrsConversationList  *self,
                                 PrsConversation      *conversation,
                                 GError              **error)
{
  g_return_val_if_fail (PRS_IS_CONVERSATION_LIST (self), FALSE);
  g_return_val_if_fail (PRS_IS_CONVERSATION (conversation), FALSE);
  PRS_ASSERT_MAIN_THREAD ();

  if (prs_conversation_get_unread_count (conversation) == 0)
    return TRUE;
  if (!prs_store_mark_conversation_read (self->store, prs_conversation_get_id (conversation), error))
    return FALSE;
  return prs_conversation_list_update (self, prs_conversation_get_id (conversation), error);
}

PrsConversation *
prs_conversation_list_resolve (PrsConversationList  *self,
                               const char           *slug,
                               GError              **error)
{
  g_autofree char *id = NULL;

  g_return_val_if_fail (PRS_IS_CONVERSATION_LIST (self), NULL);
  PRS_ASSERT_MAIN_THREAD ();

  if (!prs_store_resolve_conversation (self->store, slug, &id, NULL, error) ||
      !prs_conversation_list_update (self, id, error))
    return NULL;
  return prs_conversation_list_find (self, id, NULL);
}

static void
prs_conversation_list_finalize (GObject *object)
{
  PrsConversationList *self = PRS_CONVERSATION_LIST (object);

  if (self->flush_source != NULL)
    g_source_destroy (self->flush_source);
  g_clear_pointer (&self->flush_source, g_source_unref);
  g_clear_pointer (&self->pending, g_hash_table_unref);
  g_clear_pointer (&self->by_id, g_hash_table_unref);
  g_clear_pointer (&self->items, g_ptr_array_unref);
  g_clear_pointer (&self->context, g_main_context_unref);
  g_clear_object (&self->store);

  G_OBJECT_CLASS (prs_conversation_list_parent_class)->finalize (object);
}

static void
prs_conversation_list_get_property (GObject    *object,
                                    guint       prop_id,
                                    GValue     *value,
                                    GParamSpec *pspec)
{
  switch (prop_id)
    {
    case PROP_SHOW_ARCHIVED:
      g_value_set_boolean (value, PRS_CONVERSATION_LIST (object)->show_archived);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
prs_conversation_list_class_init (PrsConversationListClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = prs_conversation_list_finalize;
  object_class->get_property = prs_conversation_list_get_property;

  properties[PROP_SHOW_ARCHIVED] =
    g_param_spec_boolean ("show-archived", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
prs_conversation_list_init (PrsConversationList *self)
{
  self->items = g_ptr_array_new_with_free_func (g_object_unref);
  self->by_id = g_hash_table_new (g_str_hash, g_str_equal);
  self->pending = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->context = g_main_context_ref_thread_default ();
  self->data_version = -1;
}
