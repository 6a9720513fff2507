/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-store-context.c: the store's Request Context fields (docs/conversations.md),
 * cumulative per conversation, listed per conversation or as a union with
 * their origins for the agent editor's field picker. */
#include "config.h"

#include <string.h>
#include <glib/gi18n-lib.h>

#include "prs-context.h"
#include "prs-json.h"
#include "prs-store-internal.h"

/* The migration that created context_fields. */
#define CONTEXT_FIELDS_VERSION 3

gboolean
prs_store_record_context_fields (PrsStore    *self,
                                 const char  *conversation_id,
                                 const char  *message_id,
                                 const char  *workflow_id,
                                 GPtrArray   *fields,
                                 GError     **error)
{
  g_autoptr(PrsStmt) stmt = NULL;
  g_autofree char *now = NULL;

  g_return_val_if_fail (PRS_IS_STORE (self), FALSE);
  PRS_ASSERT_OWNER (&self->owner);
  g_return_val_if_fail (conversation_id != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (fields == NULL || fields->len == 0)
    return TRUE;

  if (!prs_store_begin_immediate (self, error))
    return FALSE;

  /* A null never hides a type seen before; anything else is the latest. */
  stmt = prs_store_prepare_cached (self,
                                   "INSERT INTO context_fields (conversation_id, path, type, sample,"
                                   " workflow_id, message_id, seen_count, first_seen, last_seen)"
                                   " VALUES (?1, ?2, ?3, ?4, ?5, ?6, 1, ?7, ?7)"
                                   " ON CONFLICT (conversation_id, path) DO UPDATE SET"
                                   " type = CASE WHEN excluded.type = 'null' THEN type ELSE excluded.type END,"
                                   " sample = CASE WHEN excluded.type = 'null' THEN sample ELSE excluded.sample END,"
                                   " workflow_id = COALESCE (excluded.workflow_id, workflow_id),"
                                   " message_id = COALESCE (excluded.message_id, message_id),"
                                   " seen_count = seen_count + 1,"
                                   " last_seen = excluded.last_seen",
                                   error);
  if (stmt == NULL)
    goto fail;

  now = prs_store_now_iso8601 ();
  for (guint i = 0; i < fields->len; i++)
    {
      const PrsContextField *field = g_ptr_array_index (fields, i);

      sqlite3_reset (stmt);
      prs_store_bind_text (stmt, 1, conversation_id);
      prs_store_bind_text (stmt, 2, field->path);
      prs_store_bind_text (stmt, 3, field->type);
      prs_store_bind_text (stmt, 4, field->sample);
      prs_store_bind_text (stmt, 5, workflow_id);
      prs_store_bind_text (stmt, 6, message_id);
      prs_store_bind_text (stmt, 7, now);
      if (!prs_store_step_done (self, stmt, N_("Could not record the Request Context fields"),
                                error))
        goto fail;
    }

  return prs_store_commit (self, error);

fail:
  prs_store_rollback (self);
  return FALSE;
}

void
prs_store_record_message_context (PrsStore   *self,
                                  const char *conversation_id,
                                  const char *message_id,
                                  const char *context_json,
                                  const char *execution_json)
{
  g_autoptr(JsonNode) context = NULL;
  g_autoptr(JsonNode) execution = NULL;
  g_autoptr(GPtrArray) fields = NULL;
  g_autoptr(GError) error = NULL;
  const char *workflow_id = NULL;

  g_return_if_fail (PRS_IS_STORE (self));
  PRS_ASSERT_OWNER (&self->owner);

  /* Databases opened at an older version (migration tests) have no table. */
  if (conversation_id == NULL || context_json == NULL ||
      prs_store_get_schema_version (self) < CONTEXT_FIELDS_VERSION)
    return;

  context = prs_json_parse_bounded (context_json, strlen (context_json),
                                    PRS_JSON_DEFAULT_MAX_DEPTH, NULL);
  if (context == NULL || !JSON_NODE_HOLDS_OBJECT (context))
    return;

  if (execution_json != NULL)
    execution = prs_json_parse_bounded (execution_json, strlen (execution_json),
                                        PRS_JSON_DEFAULT_MAX_DEPTH, NULL);
  workflow_id = prs_json_object_get_string (prs_json_node_get_object (execution), "workflowId");

  fields = prs_context_discover_fields (context);
  if (!prs_store_record_context_fields (self, conversation_id, message_id, workflow_id, fields, &error))
    g_message ("Could not record the Request Context fields of message %s: %s",
               message_id != NULL ? message_id : "?", error->message);
}

JsonArray *
prs_store_list_context_fields (PrsStore    *self,
                               const char  *conversation_id,
                               GError     **error)
{
  g_autoptr(PrsStmt) stmt = NULL;
  g_autoptr(JsonArray) result = json_array_new ();
  JsonObject *current = NULL;
  JsonArray *origins = NULL;
  int row;

  g_return_val_if_fail (PRS_IS_STORE (self), NULL);
  PRS_ASSERT_OWNER (&self->owner);

  /* Per path, the most recently seen row first: it gives type and sample.
   * Two sightings in the same millisecond are ordered by the messages'
   * insertion order (their rowid), never by an accident of titles. */
  stmt = prs_store_prepare_cached (self,
                                   "SELECT f.path, f.type, f.sample, f.conversation_id, c.title,"
                                   " f.workflow_id, f.message_id, f.seen_count, f.last_seen"
                                   " FROM context_fields f JOIN conversations c ON c.id = f.conversation_id"
                                   " LEFT JOIN messages m ON m.id = f.message_id"
                                   " WHERE ?1 IS NULL OR f.conversation_id = ?1"
                                   " ORDER BY f.path, f.last_seen DESC, m.rowid DESC, c.title, f.conversation_id",
                                   error);
  if (stmt == NULL)
    return NULL;

  prs_store_bind_text (stmt, 1, conversation_id);
  while ((row = prs_store_step_row (self, stmt, N_("Could not list the Request Context fields"),
                                    error)) == 1)
    {
      const char *path = prs_store_column_text (stmt, 0);
      JsonObject *origin;

      if (current == NULL || g_strcmp0 (json_object_get_string_member (current, "path"), path) != 0)
        {
          current = json_object_new ();
          json_object_set_string_member (current, "path", path);
          json_object_set_string_member (current, "type", prs_store_column_text (stmt, 1));
          json_object_set_string_member (current, "sample", prs_store_column_text (stmt, 2));
          json_object_set_int_member (current, "seenCount", 0);
          json_object_set_string_member (current, "lastSeen", prs_store_column_text (stmt, 8));
          origins = json_array_new ();
          json_object_set_array_member (current, "origins", origins);
          json_array_add_object_element (result, current);
        }

      json_object_set_int_member (current, "seenCount",
                                  json_object_get_int_member (current, "seenCount") +
                                  sqlite3_column_int64 (stmt, 7));

      origin = json_object_new ();
      json_object_set_string_member (origin, "conversationId", prs_store_column_text (stmt, 3));
      json_object_set_string_member (origin, "conversationTitle", prs_store_column_text (stmt, 4));
      json_object_set_string_member (origin, "workflowId", prs_store_column_text (stmt, 5));
      json_object_set_string_member (origin, "messageId", prs_store_column_text (stmt, 6));
      json_array_add_object_element (origins, origin);
    }
  if (row < 0)
    return NULL;

  return g_steal_pointer (&result);
}
