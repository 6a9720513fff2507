/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-conversation.c: one conversation as the window shows it. The store is
 * the truth; PrsConversationList refreshes these objects in place. */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "prs-control-chars.h"
#include "prs-conversation.h"
#include "prs-error.h"

struct _PrsConversation
{
  GObject    parent_instance;

  char      *id;
  char      *slug;
  char      *title;
  char      *default_agent;
  guint      unread_count;
  guint      message_count;
  gboolean   pinned;
  gboolean   archived;
  GDateTime *updated_at;       /* updated_key in local time, once asked for */
  gboolean   updated_at_parsed;
  /* The store's text of created_at and updated_at: the list's order */
  char      *created_key;
  char      *updated_key;
};

G_DEFINE_FINAL_TYPE (PrsConversation, prs_conversation, G_TYPE_OBJECT)

/* A slug is the workflow's name for the conversation and keeps the API's
 * rules alone (docs/api.md): whatever it holds is blanked where it is
 * shown. */
gboolean
prs_conversation_check_slug (const char  *slug,
                             GError     **error)
{
  if (slug == NULL || slug[0] == '\0')
    {
      g_set_error_literal (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                           _("A conversation’s slug must not be empty."));
      return FALSE;
    }
  if (g_utf8_strlen (slug, -1) > PRS_CONVERSATION_MAX_NAME_CHARS || g_str_has_prefix (slug, "slug:"))
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                   /* Translators: %d is a number of characters such as 200 */
                   _("A conversation’s slug must have at most %d characters and must not start with "
                     "“slug:”."), PRS_CONVERSATION_MAX_NAME_CHARS);
      return FALSE;
    }
  return TRUE;
}

gboolean
prs_conversation_check_title (const char  *title,
                              GError     **error)
{
  if (title == NULL || title[0] == '\0')
    {
      g_set_error_literal (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                           _("A conversation’s title must not be empty."));
      return FALSE;
    }
  /* What `conversation list`, `approvals` and the sidebar show on one
   * line, the line a person approves from: control characters there could
   * redraw it (docs/conversations.md) */
  if (!prs_text_is_one_line (title) || g_utf8_strlen (title, -1) > PRS_CONVERSATION_MAX_NAME_CHARS)
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                   /* Translators: %d is a number of characters such as 200 */
                   _("A conversation’s title must be one line of at most %d characters, without control "
                     "characters."), PRS_CONVERSATION_MAX_NAME_CHARS);
      return FALSE;
    }
  return TRUE;
}

enum
{
  PROP_0,
  PROP_ID,
  PROP_SLUG,
  PROP_TITLE,
  PROP_DEFAULT_AGENT,
  PROP_UNREAD_COUNT,
  PROP_MESSAGE_COUNT,
  PROP_PINNED,
  PROP_ARCHIVED,
  PROP_UPDATED_AT,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static guint
clamp_count (gint64 value)
{
  return (guint) CLAMP (value, 0, G_MAXUINT);
}

static void
set_string (PrsConversation  *self,
            char            **field,
            const char       *value,
            int               prop)
{
  if (g_strcmp0 (*field, value) == 0)
    return;
  g_free (*field);
  *field = g_strdup (value);
  g_object_notify_by_pspec (G_OBJECT (self), properties[prop]);
}

static void
set_flag (PrsConversation *self,
          gboolean        *field,
          gboolean         value,
          int              prop)
{
  value = !!value;
  if (*field == value)
    return;
  *field = value;
  g_object_notify_by_pspec (G_OBJECT (self), properties[prop]);
}

static void
set_count (PrsConversation *self,
           guint           *field,
           guint            value,
           int              prop)
{
  if (*field == value)
    return;
  *field = value;
  g_object_notify_by_pspec (G_OBJECT (self), properties[prop]);
}

void
prs_conversation_update (PrsConversation             *self,
                         const PrsConversationFields *fields)
{
  g_return_if_fail (PRS_IS_CONVERSATION (self));
  g_return_if_fail (fields != NULL);

  g_object_freeze_notify (G_OBJECT (self));

  set_string (self, &self->slug, fields->slug, PROP_SLUG);
  set_string (self, &self->title, fields->title, PROP_TITLE);
  set_string (self, &self->default_agent, fields->default_agent, PROP_DEFAULT_AGENT);
  set_count (self, &self->unread_count, clamp_count (fields->unread_count), PROP_UNREAD_COUNT);
  set_count (self, &self->message_count, clamp_count (fields->message_count), PROP_MESSAGE_COUNT);
  set_flag (self, &self->pinned, fields->pinned, PROP_PINNED);
  set_flag (self, &self->archived, fields->archived, PROP_ARCHIVED);
  if (self->created_key == NULL)
    self->created_key = g_strdup (fields->created_at);
  /* The local time is parsed when first asked for (prs_conversation_get_updated_at) */
  if (g_strcmp0 (self->updated_key, fields->updated_at) != 0)
    {
      g_free (self->updated_key);
      self->updated_key = g_strdup (fields->updated_at);
      g_clear_pointer (&self->updated_at, g_date_time_unref);
      self->updated_at_parsed = FALSE;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_UPDATED_AT]);
    }

  g_object_thaw_notify (G_OBJECT (self));
}

/* A list reads every conversation at start: a new item takes its fields
 * without notifications (nobody can be connected yet) */
PrsConversation *
prs_conversation_new (const PrsConversationFields *fields)
{
  PrsConversation *self;

  g_return_val_if_fail (fields != NULL, NULL);

  if (fields->id == NULL)
    return NULL;

  self = g_object_new (PRS_TYPE_CONVERSATION, NULL);
  self->id = g_strdup (fields->id);
  self->slug = g_strdup (fields->slug);
  self->title = g_strdup (fields->title);
  self->default_agent = g_strdup (fields->default_agent);
  self->unread_count = clamp_count (fields->unread_count);
  self->message_count = clamp_count (fields->message_count);
  self->pinned = !!fields->pinned;
  self->archived = !!fields->archived;
  self->created_key = g_strdup (fields->created_at);
  self->updated_key = g_strdup (fields->updated_at);
  return self;
}

void
prs_conversation_get_fields (PrsConversation       *self,
                             PrsConversationFields *fields)
{
  g_return_if_fail (PRS_IS_CONVERSATION (self));
  g_return_if_fail (fields != NULL);

  fields->id = self->id;
  fields->slug = self->slug;
  fields->title = self->title;
  fields->default_agent = self->default_agent;
  fields->created_at = self->created_key;
  fields->updated_at = self->updated_key;
  fields->message_count = self->message_count;
  fields->unread_count = self->unread_count;
  fields->pinned = self->pinned;
  fields->archived = self->archived;
}

int
prs_conversation_compare (PrsConversation *a,
                          PrsConversation *b)
{
  int cmp;

  g_return_val_if_fail (PRS_IS_CONVERSATION (a), 0);
  g_return_val_if_fail (PRS_IS_CONVERSATION (b), 0);

  /* The store's ORDER BY pinned DESC, archived, updated_at DESC,
   * created_at DESC, id: the same byte-wise text comparison (NULL before
   * any text, as in SQLite). */
  if (a->pinned != b->pinned)
    return a->pinned ? -1 : 1;
  if (a->archived != b->archived)
    return a->archived ? 1 : -1;
  if ((cmp = g_strcmp0 (b->updated_key, a->updated_key)) != 0)
    return cmp;
  if ((cmp = g_strcmp0 (b->created_key, a->created_key)) != 0)
    return cmp;
  return g_strcmp0 (a->id, b->id);
}

const char *
prs_conversation_get_id (PrsConversation *self)
{
  g_return_val_if_fail (PRS_IS_CONVERSATION (self), NULL);
  return self->id;
}

const char *
prs_conversation_get_slug (PrsConversation *self)
{
  g_return_val_if_fail (PRS_IS_CONVERSATION (self), NULL);
  return self->slug;
}

const char *
prs_conversation_get_title (PrsConversation *self)
{
  g_return_val_if_fail (PRS_IS_CONVERSATION (self), NULL);
  return self->title != NULL ? self->title : self->slug;
}

const char *
prs_conversation_get_default_agent (PrsConversation *self)
{
  g_return_val_if_fail (PRS_IS_CONVERSATION (self), NULL);
  return self->default_agent;
}

guint
prs_conversation_get_unread_count (PrsConversation *self)
{
  g_return_val_if_fail (PRS_IS_CONVERSATION (self), 0);
  return self->unread_count;
}

guint
prs_conversation_get_message_count (PrsConversation *self)
{
  g_return_val_if_fail (PRS_IS_CONVERSATION (self), 0);
  return self->message_count;
}

gboolean
prs_conversation_get_pinned (PrsConversation *self)
{
  g_return_val_if_fail (PRS_IS_CONVERSATION (self), FALSE);
  return self->pinned;
}

gboolean
prs_conversation_get_archived (PrsConversation *self)
{
  g_return_val_if_fail (PRS_IS_CONVERSATION (self), FALSE);
  return self->archived;
}

GDateTime *
prs_conversation_get_updated_at (PrsConversation *self)
{
  g_autoptr(GDateTime) utc = NULL;

  g_return_val_if_fail (PRS_IS_CONVERSATION (self), NULL);

  if (!self->updated_at_parsed)
    {
      self->updated_at_parsed = TRUE;
      if (self->updated_key != NULL)
        utc = g_date_time_new_from_iso8601 (self->updated_key, NULL);
      if (utc != NULL)
        self->updated_at = g_date_time_to_local (utc);
    }
  return self->updated_at;
}

static void
prs_conversation_get_property (GObject    *object,
                               guint       prop_id,
                               GValue     *value,
                               GParamSpec *pspec)
{
  PrsConversation *self = PRS_CONVERSATION (object);

  switch (prop_id)
    {
    case PROP_ID:
      g_value_set_string (value, self->id);
      break;
    case PROP_SLUG:
      g_value_set_string (value, self->slug);
      break;
    case PROP_TITLE:
      g_value_set_string (value, prs_conversation_get_title (self));
      break;
    case PROP_DEFAULT_AGENT:
      g_value_set_string (value, self->default_agent);
      break;
    case PROP_UNREAD_COUNT:
      g_value_set_uint (value, self->unread_count);
      break;
    case PROP_MESSAGE_COUNT:
      g_value_set_uint (value, self->message_count);
      break;
    case PROP_PINNED:
      g_value_set_boolean (value, self->pinned);
      break;
    case PROP_ARCHIVED:
      g_value_set_boolean (value, self->archived);
      break;
    case PROP_UPDATED_AT:
      g_value_set_boxed (value, prs_conversation_get_updated_at (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
prs_conversation_finalize (GObject *object)
{
  PrsConversation *self = PRS_CONVERSATION (object);

  g_free (self->id);
  g_free (self->slug);
  g_free (self->title);
  g_free (self->default_agent);
  g_free (self->created_key);
  g_free (self->updated_key);
  g_clear_pointer (&self->updated_at, g_date_time_unref);

  G_OBJECT_CLASS (prs_conversation_parent_class)->finalize (object);
}

static void
prs_conversation_class_init (PrsConversationClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = prs_conversation_finalize;
  object_class->get_property = prs_conversation_get_property;

  properties[PROP_ID] =
    g_param_spec_string ("id", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_SLUG] =
    g_param_spec_string ("slug", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_TITLE] =
    g_param_spec_string ("title", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_DEFAULT_AGENT] =
    g_param_spec_string ("default-agent", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_UNREAD_COUNT] =
    g_param_spec_uint ("unread-count", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_MESSAGE_COUNT] =
    g_param_spec_uint ("message-count", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_PINNED] =
    g_param_spec_boolean ("pinned", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_ARCHIVED] =
    g_param_spec_boolean ("archived", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_UPDATED_AT] =
    g_param_spec_boxed ("updated-at", NULL, NULL, G_TYPE_DATE_TIME,
                        G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
prs_conversation_init (PrsConversation *self)
{
}
