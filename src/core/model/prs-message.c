/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-message.c: one stored message. */
#include "config.h"

#include "prs-json.h"
#include "prs-message.h"

struct _PrsMessage
{
  GObject    parent_instance;

  char      *id;
  char      *conversation_id;
  gint64     seq;
  char      *kind;
  char      *content;
  char      *status;
  char      *agent_id;
  JsonNode  *context;
  JsonNode  *execution;
  JsonNode  *extra;
  GDateTime *created_at;
  GDateTime *superseded_at;
};

G_DEFINE_FINAL_TYPE (PrsMessage, prs_message, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_ID,
  PROP_SEQ,
  PROP_KIND,
  PROP_CONTENT,
  PROP_STATUS,
  PROP_AGENT_ID,
  PROP_CONTEXT,
  PROP_EXECUTION,
  PROP_EXTRA,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static JsonNode *
dup_member_node (JsonObject *object,
                 const char *member)
{
  JsonNode *node = json_object_get_member (object, member);

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return NULL;
  return json_node_copy (node);
}

PrsMessage *
prs_message_new_from_json (JsonObject *object)
{
  PrsMessage *self;
  g_autofree char *created = NULL;
  g_autoptr(GDateTime) utc = NULL;

  g_return_val_if_fail (object != NULL, NULL);

  self = g_object_new (PRS_TYPE_MESSAGE, NULL);
  self->id = g_strdup (prs_json_object_get_string (object, "id"));
  self->conversation_id = g_strdup (prs_json_object_get_string (object, "conversationId"));
  self->seq = json_object_get_int_member_with_default (object, "seq", 0);
  self->kind = g_strdup (prs_json_object_get_string (object, "kind"));
  self->content = g_strdup (prs_json_object_get_string (object, "content"));
  self->status = g_strdup (prs_json_object_get_string (object, "status"));
  self->agent_id = g_strdup (prs_json_object_get_string (object, "agentId"));
  self->context = dup_member_node (object, "context");
  self->execution = dup_member_node (object, "execution");
  self->extra = dup_member_node (object, "extra");

  created = g_strdup (prs_json_object_get_string (object, "createdAt"));
  if (created != NULL)
    utc = g_date_time_new_from_iso8601 (created, NULL);
  if (utc != NULL)
    self->created_at = g_date_time_to_local (utc);
  g_clear_pointer (&utc, g_date_time_unref);
  if (prs_json_object_get_string (object, "supersededAt") != NULL)
    utc = g_date_time_new_from_iso8601 (prs_json_object_get_string (object, "supersededAt"), NULL);
  if (utc != NULL)
    self->superseded_at = g_date_time_to_local (utc);

  return self;
}

GDateTime *
prs_message_get_superseded_at (PrsMessage *self)
{
  g_return_val_if_fail (PRS_IS_MESSAGE (self), NULL);
  return self->superseded_at;
}

const char *
prs_message_get_id (PrsMessage *self)
{
  g_return_val_if_fail (PRS_IS_MESSAGE (self), NULL);
  return self->id;
}

const char *
prs_message_get_conversation_id (PrsMessage *self)
{
  g_return_val_if_fail (PRS_IS_MESSAGE (self), NULL);
  return self->conversation_id;
}

gint64
prs_message_get_seq (PrsMessage *self)
{
  g_return_val_if_fail (PRS_IS_MESSAGE (self), 0);
  return self->seq;
}

const char *
prs_message_get_kind (PrsMessage *self)
{
  g_return_val_if_fail (PRS_IS_MESSAGE (self), NULL);
  return self->kind;
}

gboolean
prs_message_is_kind (PrsMessage *self,
                     const char *kind)
{
  g_return_val_if_fail (PRS_IS_MESSAGE (self), FALSE);
  return g_strcmp0 (self->kind, kind) == 0;
}

const char *
prs_message_get_content (PrsMessage *self)
{
  g_return_val_if_fail (PRS_IS_MESSAGE (self), NULL);
  return self->content;
}

const char *
prs_message_get_status (PrsMessage *self)
{
  g_return_val_if_fail (PRS_IS_MESSAGE (self), NULL);
  return self->status;
}

const char *
prs_message_get_agent_id (PrsMessage *self)
{
  g_return_val_if_fail (PRS_IS_MESSAGE (self), NULL);
  return self->agent_id;
}

JsonObject *
prs_message_get_context (PrsMessage *self)
{
  g_return_val_if_fail (PRS_IS_MESSAGE (self), NULL);

  if (self->context == NULL || !JSON_NODE_HOLDS_OBJECT (self->context))
    return NULL;
  return json_node_get_object (self->context);
}

JsonNode *
prs_message_get_context_node (PrsMessage *self)
{
  g_return_val_if_fail (PRS_IS_MESSAGE (self), NULL);
  return self->context;
}

JsonNode *
prs_message_get_execution (PrsMessage *self)
{
  g_return_val_if_fail (PRS_IS_MESSAGE (self), NULL);
  return self->execution;
}

JsonNode *
prs_message_get_extra (PrsMessage *self)
{
  g_return_val_if_fail (PRS_IS_MESSAGE (self), NULL);
  return self->extra;
}

const char *
prs_message_get_execution_string (PrsMessage *self,
                                  const char *member)
{
  g_return_val_if_fail (PRS_IS_MESSAGE (self), NULL);
  return prs_json_object_get_string (prs_json_node_get_object (self->execution), member);
}

const char *
prs_message_get_extra_string (PrsMessage *self,
                              const char *member)
{
  g_return_val_if_fail (PRS_IS_MESSAGE (self), NULL);
  return prs_json_object_get_string (prs_json_node_get_object (self->extra), member);
}

const char *
prs_message_get_shown_id (PrsMessage *self)
{
  const char *call;

  g_return_val_if_fail (PRS_IS_MESSAGE (self), NULL);
  call = prs_message_is_kind (self, PRS_MESSAGE_KIND_TOOL_RESULT)
           ? prs_message_get_extra_string (self, "toolCallMessageId") : NULL;
  return call != NULL ? call : self->id;
}

GDateTime *
prs_message_get_created_at (PrsMessage *self)
{
  g_return_val_if_fail (PRS_IS_MESSAGE (self), NULL);
  return self->created_at;
}

static void
prs_message_get_property (GObject    *object,
                          guint       prop_id,
                          GValue     *value,
                          GParamSpec *pspec)
{
  PrsMessage *self = PRS_MESSAGE (object);

  switch (prop_id)
    {
    case PROP_ID:
      g_value_set_string (value, self->id);
      break;
    case PROP_SEQ:
      g_value_set_int64 (value, self->seq);
      break;
    case PROP_KIND:
      g_value_set_string (value, self->kind);
      break;
    case PROP_CONTENT:
      g_value_set_string (value, self->content);
      break;
    case PROP_STATUS:
      g_value_set_string (value, self->status);
      break;
    case PROP_AGENT_ID:
      g_value_set_string (value, self->agent_id);
      break;
    case PROP_CONTEXT:
      g_value_set_boxed (value, self->context);
      break;
    case PROP_EXECUTION:
      g_value_set_boxed (value, self->execution);
      break;
    case PROP_EXTRA:
      g_value_set_boxed (value, self->extra);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
prs_message_finalize (GObject *object)
{
  PrsMessage *self = PRS_MESSAGE (object);

  g_free (self->id);
  g_free (self->conversation_id);
  g_free (self->kind);
  g_free (self->content);
  g_free (self->status);
  g_free (self->agent_id);
  g_clear_pointer (&self->context, json_node_unref);
  g_clear_pointer (&self->execution, json_node_unref);
  g_clear_pointer (&self->extra, json_node_unref);
  g_clear_pointer (&self->created_at, g_date_time_unref);
  g_clear_pointer (&self->superseded_at, g_date_time_unref);

  G_OBJECT_CLASS (prs_message_parent_class)->finalize (object);
}

static void
prs_message_class_init (PrsMessageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = prs_message_finalize;
  object_class->get_property = prs_message_get_property;

  properties[PROP_ID] =
    g_param_spec_string ("id", NULL, NULL, NULL, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_SEQ] =
    g_param_spec_int64 ("seq", NULL, NULL, 0, G_MAXINT64, 0, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_KIND] =
    g_param_spec_string ("kind", NULL, NULL, NULL, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_CONTENT] =
    g_param_spec_string ("content", NULL, NULL, NULL, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_STATUS] =
    g_param_spec_string ("status", NULL, NULL, NULL, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_AGENT_ID] =
    g_param_spec_string ("agent-id", NULL, NULL, NULL, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_CONTEXT] =
    g_param_spec_boxed ("context", NULL, NULL, JSON_TYPE_NODE, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_EXECUTION] =
    g_param_spec_boxed ("execution", NULL, NULL, JSON_TYPE_NODE, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_EXTRA] =
    g_param_spec_boxed ("extra", NULL, NULL, JSON_TYPE_NODE, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
prs_message_init (PrsMessage *self)
{
}
