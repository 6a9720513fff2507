/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-search-list.c: see prs-search-list.h. */
#include "config.h"

#include "prs-search-list.h"
#include "prs-thread.h"

/* ---- PrsSearchItem ---- */

struct _PrsSearchItem
{
  GObject       parent_instance;
  PrsSearchHit *hit;
};

G_DEFINE_FINAL_TYPE (PrsSearchItem, prs_search_item, G_TYPE_OBJECT)

static void
prs_search_item_finalize (GObject *object)
{
  g_clear_pointer (&PRS_SEARCH_ITEM (object)->hit, prs_search_hit_free);
  G_OBJECT_CLASS (prs_search_item_parent_class)->finalize (object);
}

static void
prs_search_item_class_init (PrsSearchItemClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = prs_search_item_finalize;
}

static void
prs_search_item_init (PrsSearchItem *self)
{
}

const PrsSearchHit *
prs_search_item_get_hit (PrsSearchItem *self)
{
  g_return_val_if_fail (PRS_IS_SEARCH_ITEM (self), NULL);
  return self->hit;
}

/* ---- PrsSearchList ---- */

struct _PrsSearchList
{
  GObject       parent_instance;

  char         *db_path;
  char         *query;       /* what was asked last */
  char         *answered;    /* what the items answer */
  GPtrArray    *items;       /* PrsSearchItem */
  GCancellable *cancellable; /* the lookup under way */
  guint         delay_id;
};

enum
{
  PROP_0,
  PROP_SEARCHING,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void prs_search_list_model_init (GListModelInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (PrsSearchList, prs_search_list, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL, prs_search_list_model_init))

static GType
prs_search_list_get_item_type (GListModel *model)
{
  return PRS_TYPE_SEARCH_ITEM;
}

static guint
prs_search_list_get_n_items (GListModel *model)
{
  PRS_ASSERT_MAIN_THREAD ();
  return PRS_SEARCH_LIST (model)->items->len;
}

static gpointer
prs_search_list_get_item (GListModel *model,
                          guint       position)
{
  PrsSearchList *self = PRS_SEARCH_LIST (model);

  PRS_ASSERT_MAIN_THREAD ();
  if (position >= self->items->len)
    return NULL;
  return g_object_ref (g_ptr_array_index (self->items, position));
}

static void
prs_search_list_model_init (GListModelInterface *iface)
{
  iface->get_item_type = prs_search_list_get_item_type;
  iface->get_n_items = prs_search_list_get_n_items;
  iface->get_item = prs_search_list_get_item;
}

static void
set_items (PrsSearchList *self,
           GPtrArray     *hits,
           const char    *answered)
{
  guint removed = self->items->len;

  g_ptr_array_set_size (self->items, 0);
  for (guint i = 0; hits != NULL && i < hits->len; i++)
    {
      PrsSearchItem *item = g_object_new (PRS_TYPE_SEARCH_ITEM, NULL);

      item->hit = g_steal_pointer (&g_ptr_array_index (hits, i));
      g_ptr_array_add (self->items, item);
    }
  g_free (self->answered);
  self->answered = g_strdup (answered);
  if (removed > 0 || self->items->len > 0)
    g_list_model_items_changed (G_LIST_MODEL (self), 0, removed, self->items->len);
}

/* In the worker thread: a connection of its own */
static void
search_thread (GTask        *task,
               gpointer      source,
               gpointer      task_data,
               GCancellable *cancellable)
{
  char **args = task_data;   /* db path, text */
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsStore) store = prs_store_new_for_path (args[0], &error);
  GPtrArray *hits = NULL;

  if (store != NULL)
    hits = prs_store_search (store, args[1], PRS_SEARCH_LIST_LIMIT, cancellable, &error);
  if (hits == NULL)
    g_task_return_error (task, g_steal_pointer (&error));
  else
    g_task_return_pointer (task, hits, (GDestroyNotify) g_ptr_array_unref);
}

static void
on_search_done (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  PrsSearchList *self = PRS_SEARCH_LIST (source);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) hits = g_task_propagate_pointer (G_TASK (result), &error);
  char **args = g_task_get_task_data (G_TASK (result));

  /* A newer query replaced this one */
  if (g_task_get_cancellable (G_TASK (result)) != self->cancellable ||
      g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  if (hits == NULL)
    g_message ("Could not search: %s", error->message);
  set_items (self, hits, args[1]);
  g_clear_object (&self->cancellable);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SEARCHING]);
}

static void
start_search (PrsSearchList *self)
{
  g_autoptr(GTask) task = NULL;
  char **args;

  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);

  if (self->query[0] == '\0')
    {
      set_items (self, NULL, "");
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SEARCHING]);
      return;
    }

  self->cancellable = g_cancellable_new ();
  task = g_task_new (self, self->cancellable, on_search_done, NULL);
  g_task_set_source_tag (task, start_search);
  args = g_new0 (char *, 3);
  args[0] = g_strdup (self->db_path);
  args[1] = g_strdup (self->query);
  g_task_set_task_data (task, args, (GDestroyNotify) g_strfreev);
  prs_task_run_in_thread (task, search_thread);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SEARCHING]);
}

static gboolean
on_delay (gpointer data)
{
  PrsSearchList *self = data;

  self->delay_id = 0;
  start_search (self);
  return G_SOURCE_REMOVE;
}

void
prs_search_list_set_query (PrsSearchList *self,
                           const char    *text,
                           guint          delay_ms)
{
  g_return_if_fail (PRS_IS_SEARCH_LIST (self));
  PRS_ASSERT_MAIN_THREAD ();

  if (text == NULL)
    text = "";
  if (g_strcmp0 (self->query, text) == 0 && (self->delay_id != 0 || self->cancellable != NULL ||
                                              g_strcmp0 (self->answered, text) == 0))
    return;
  g_free (self->query);
  self->query = g_strdup (text);
  g_clear_handle_id (&self->delay_id, g_source_remove);
  if (delay_ms == 0 || text[0] == '\0')
    start_search (self);
  else
    {
      self->delay_id = g_timeout_add (delay_ms, on_delay, self);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SEARCHING]);
    }
}

const char *
prs_search_list_get_query (PrsSearchList *self)
{
  g_return_val_if_fail (PRS_IS_SEARCH_LIST (self), NULL);
  return self->query;
}

gboolean
prs_search_list_get_searching (PrsSearchList *self)
{
  g_return_val_if_fail (PRS_IS_SEARCH_LIST (self), FALSE);
  return self->delay_id != 0 || self->cancellable != NULL;
}

const char *
prs_search_list_get_answered (PrsSearchList *self)
{
  g_return_val_if_fail (PRS_IS_SEARCH_LIST (self), NULL);
  return self->answered;
}

PrsSearchList *
prs_search_list_new (const char *db_path)
{
  PrsSearchList *self;

  g_return_val_if_fail (db_path != NULL, NULL);
  PRS_ASSERT_MAIN_THREAD ();

  self = g_object_new (PRS_TYPE_SEARCH_LIST, NULL);
  self->db_path = g_strdup (db_path);
  return self;
}

static void
prs_search_list_dispose (GObject *object)
{
  PrsSearchList *self = PRS_SEARCH_LIST (object);

  g_clear_handle_id (&self->delay_id, g_source_remove);
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);

  G_OBJECT_CLASS (prs_search_list_parent_class)->dispose (object);
}

static void
prs_search_list_finalize (GObject *object)
{
  PrsSearchList *self = PRS_SEARCH_LIST (object);

  g_clear_pointer (&self->items, g_ptr_array_unref);
  g_free (self->db_path);
  g_free (self->query);
  g_free (self->answered);

  G_OBJECT_CLASS (prs_search_list_parent_class)->finalize (object);
}

static void
prs_search_list_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  switch (prop_id)
    {
    case PROP_SEARCHING:
      g_value_set_boolean (value, prs_search_list_get_searching (PRS_SEARCH_LIST (object)));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
prs_search_list_class_init (PrsSearchListClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = prs_search_list_dispose;
  object_class->finalize = prs_search_list_finalize;
  object_class->get_property = prs_search_list_get_property;

  properties[PROP_SEARCHING] =
    g_param_spec_boolean ("searching", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
prs_search_list_init (PrsSearchList *self)
{
  self->items = g_ptr_array_new_with_free_func (g_object_unref);
  self->query = g_strdup ("");
  self->answered = g_strdup ("");
}
