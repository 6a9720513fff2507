/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-context-field-list.c: the discovered Request Context fields as a
 * GListModel, read from prs_store_list_context_fields (). */
#include "config.h"

#include "prs-context-field-list.h"
#include "prs-json.h"
#include "prs-thread.h"

struct _PrsContextFieldItem
{
  GObject  parent_instance;

  char    *path;
  char    *type;
  char    *sample;
  GStrv    conversations;
  GStrv    workflows;
};

G_DEFINE_FINAL_TYPE (PrsContextFieldItem, prs_context_field_item, G_TYPE_OBJECT)

enum {
  ITEM_PROP_0,
  ITEM_PROP_PATH,
  ITEM_PROP_FIELD_TYPE,
  ITEM_PROP_SAMPLE,
  N_ITEM_PROPS
};

static GParamSpec *item_properties[N_ITEM_PROPS];

static void
prs_context_field_item_finalize (GObject *object)
{
  PrsContextFieldItem *self = PRS_CONTEXT_FIELD_ITEM (object);

  g_free (self->path);
  g_free (self->type);
  g_free (self->sample);
  g_strfreev (self->conversations);
  g_strfreev (self->workflows);

  G_OBJECT_CLASS (prs_context_field_item_parent_class)->finalize (object);
}

static void
prs_context_field_item_get_property (GObject    *object,
                                     guint       prop_id,
                                     GValue     *value,
                                     GParamSpec *pspec)
{
  PrsContextFieldItem *self = PRS_CONTEXT_FIELD_ITEM (object);

  switch (prop_id)
    {
    case ITEM_PROP_PATH:
      g_value_set_string (value, self->path);
      break;
    case ITEM_PROP_FIELD_TYPE:
      g_value_set_string (value, self->type);
      break;
    case ITEM_PROP_SAMPLE:
      g_value_set_string (value, self->sample);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
prs_context_field_item_class_init (PrsContextFieldItemClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = prs_context_field_item_finalize;
  object_class->get_property = prs_context_field_item_get_property;

  item_properties[ITEM_PROP_PATH] =
    g_param_spec_string ("path", NULL, NULL, NULL, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  item_properties[ITEM_PROP_FIELD_TYPE] =
    g_param_spec_string ("field-type", NULL, NULL, NULL, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  item_properties[ITEM_PROP_SAMPLE] =
    g_param_spec_string ("sample", NULL, NULL, NULL, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_ITEM_PROPS, item_properties);
}

static void
prs_context_field_item_init (PrsContextFieldItem *self)
{
}

static GStrv
strv_new_empty (void)
{
  return g_new0 (char *, 1);
}

PrsContextFieldItem *
prs_context_field_item_new (const char *path,
                            const char *type,
                            const char *sample)
{
  PrsContextFieldItem *self;

  g_return_val_if_fail (path != NULL, NULL);

  self = g_object_new (PRS_TYPE_CONTEXT_FIELD_ITEM, NULL);
  self->path = g_strdup (path);
  self->type = g_strdup (type != NULL ? type : "string");
  self->sample = g_strdup (sample != NULL ? sample : "");
  self->conversations = strv_new_empty ();
  self->workflows = strv_new_empty ();
  return self;
}

const char *
prs_context_field_item_get_path (PrsContextFieldItem *self)
{
  g_return_val_if_fail (PRS_IS_CONTEXT_FIELD_ITEM (self), NULL);
  return self->path;
}

const char *
prs_context_field_item_get_field_type (PrsContextFieldItem *self)
{
  g_return_val_if_fail (PRS_IS_CONTEXT_FIELD_ITEM (self), NULL);
  return self->type;
}

const char *
prs_context_field_item_get_sample (PrsContextFieldItem *self)
{
  g_return_val_if_fail (PRS_IS_CONTEXT_FIELD_ITEM (self), NULL);
  return self->sample;
}

const char * const *
prs_context_field_item_get_conversations (PrsContextFieldItem *self)
{
  g_return_val_if_fail (PRS_IS_CONTEXT_FIELD_ITEM (self), NULL);
  return (const char * const *) self->conversations;
}

const char * const *
prs_context_field_item_get_workflows (PrsContextFieldItem *self)
{
  g_return_val_if_fail (PRS_IS_CONTEXT_FIELD_ITEM (self), NULL);
  return (const char * const *) self->workflows;
}

/* ---- the list ---- */

struct _PrsContextFieldList
{
  GObject    parent_instance;

  GPtrArray *items;   /* PrsContextFieldItem* */
};

static void prs_context_field_list_model_init (GListModelInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (PrsContextFieldList, prs_context_field_list, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL, prs_context_field_list_model_init))

static GType
prs_context_field_list_get_item_type (GListModel *model)
{
  return PRS_TYPE_CONTEXT_FIELD_ITEM;
}

static guint
prs_context_field_list_get_n_items (GListModel *model)
{
  PRS_ASSERT_MAIN_THREAD ();

  return PRS_CONTEXT_FIELD_LIST (model)->items->len;
}

static gpointer
prs_context_field_list_get_item (GListModel *model,
                                 guint       position)
{
  PrsContextFieldList *self = PRS_CONTEXT_FIELD_LIST (model);

  PRS_ASSERT_MAIN_THREAD ();

  if (position >= self->items->len)
    return NULL;
  return g_object_ref (g_ptr_array_index (self->items, position));
}

static void
prs_context_field_list_model_init (GListModelInterface *iface)
{
  iface->get_item_type = prs_context_field_list_get_item_type;
  iface->get_n_items = prs_context_field_list_get_n_items;
  iface->get_item = prs_context_field_list_get_item;
}

static void
prs_context_field_list_finalize (GObject *object)
{
  PrsContextFieldList *self = PRS_CONTEXT_FIELD_LIST (object);

  g_clear_pointer (&self->items, g_ptr_array_unref);

  G_OBJECT_CLASS (prs_context_field_list_parent_class)->finalize (object);
}

static void
prs_context_field_list_class_init (PrsContextFieldListClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = prs_context_field_list_finalize;
}

static void
prs_context_field_list_init (PrsContextFieldList *self)
{
  self->items = g_ptr_array_new_with_free_func (g_object_unref);
}

PrsContextFieldList *
prs_context_field_list_new (void)
{
  PRS_ASSERT_MAIN_THREAD ();

  return g_object_new (PRS_TYPE_CONTEXT_FIELD_LIST, NULL);
}

static void
add_unique (GPtrArray  *strings,
            const char *value)
{
  if (value == NULL || value[0] == '\0')
    return;
  for (guint i = 0; i < strings->len; i++)
    if (g_strcmp0 (g_ptr_array_index (strings, i), value) == 0)
      return;
  g_ptr_array_add (strings, g_strdup (value));
}

static GStrv
steal_strv (GPtrArray *strings)
{
  g_ptr_array_add (strings, NULL);
  return (GStrv) g_ptr_array_free (strings, FALSE);
}

static PrsContextFieldItem *
item_from_json (JsonObject *object)
{
  const char *path = prs_json_object_get_string (object, "path");
  PrsContextFieldItem *item;
  JsonNode *origins;
  GPtrArray *conversations, *workflows;

  if (path == NULL)
    return NULL;

  item = prs_context_field_item_new (path, prs_json_object_get_string (object, "type"), prs_json_object_get_string (object, "sample"));

  conversations = g_ptr_array_new ();
  workflows = g_ptr_array_new ();
  origins = json_object_get_member (object, "origins");
  if (origins != NULL && JSON_NODE_HOLDS_ARRAY (origins))
    {
      JsonArray *array = json_node_get_array (origins);

      for (guint i = 0; i < json_array_get_length (array); i++)
        {
          JsonNode *origin = json_array_get_element (array, i);

          if (!JSON_NODE_HOLDS_OBJECT (origin))
            continue;
          add_unique (conversations, prs_json_object_get_string (json_node_get_object (origin), "conversationTitle"));
          add_unique (workflows, prs_json_object_get_string (json_node_get_object (origin), "workflowId"));
        }
    }
  g_strfreev (item->conversations);
  g_strfreev (item->workflows);
  item->conversations = steal_strv (conversations);
  item->workflows = steal_strv (workflows);
  return item;
}

gboolean
prs_context_field_list_reload (PrsContextFieldList  *self,
                               PrsStore             *store,
                               const char           *conversation_id,
                               GError              **error)
{
  g_autoptr(JsonArray) fields = NULL;
  g_autoptr(GPtrArray) items = NULL;
  guint removed;

  g_return_val_if_fail (PRS_IS_CONTEXT_FIELD_LIST (self), FALSE);
  g_return_val_if_fail (store != NULL, FALSE);
  PRS_ASSERT_MAIN_THREAD ();

  fields = prs_store_list_context_fields (store, conversation_id, error);
  if (fields == NULL)
    return FALSE;

  items = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = 0; i < json_array_get_length (fields); i++)
    {
      JsonNode *node = json_array_get_element (fields, i);
      PrsContextFieldItem *item;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        continue;
      item = item_from_json (json_node_get_object (node));
      if (item != NULL)
        g_ptr_array_add (items, item);
    }

  removed = self->items->len;
  g_ptr_array_unref (self->items);
  self->items = g_steal_pointer (&items);
  if (removed > 0 || self->items->len > 0)
    g_list_model_items_changed (G_LIST_MODEL (self), 0, removed, self->items->len);
  return TRUE;
}
