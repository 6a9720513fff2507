/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-store-messages.c: conversations and their messages: resolving a
 * slug, renaming, storing and updating messages (each in one transaction),
 * and the queries that page a conversation's messages for the window
 * (docs/storage.md: long histories are paged, never loaded whole). */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "prs-conversation.h"
#include "prs-json.h"
#include "prs-store-internal.h"

/* Steps a statement that must return one row. */
static gboolean
step_one_row (PrsStore      *self,
              sqlite3_stmt  *stmt,
              GError       **error)
{
  int row = prs_store_step_row (self, stmt, N_("Could not count the messages"), error);

  if (row == 0)
    g_set_error_literal (error, PRS_ERROR, PRS_ERROR_STORE, _("Could not count the messages"));
  return row == 1;
}

gboolean
prs_store_count_messages (PrsStore    *self,
                          const char  *conversation_id,
                          guint       *out_count,
                          gint64      *out_min_seq,
                          gint64      *out_max_seq,
                          GError     **error)
{
  g_autoptr(PrsStmt) stmt = NULL;
  gint64 count, min_seq, max_seq;

  g_return_val_if_fail (PRS_IS_STORE (self), FALSE);
  PRS_ASSERT_OWNER (&self->owner);
  g_return_val_if_fail (conversation_id != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  /* COUNT (*) walks every index entry of the conversation (and MIN and MAX
   * together in one query too): 100,000 messages take ~10 ms. MIN and MAX
   * apart are one index seek each, and the conversation's message_count is
   * kept by every insert. seq is unique per conversation, so there are at
   * most MAX - MIN + 1 messages: when message_count says exactly that, the
   * seqs have no gap. Otherwise the messages are counted. */
  stmt = prs_store_prepare_cached (self,
                        "SELECT (SELECT message_count FROM conversations WHERE id = ?1),"
                        " (SELECT MIN (seq) FROM messages WHERE conversation_id = ?1),"
                        " (SELECT MAX (seq) FROM messages WHERE conversation_id = ?1)",
                        error);
  if (stmt == NULL)
    return FALSE;

  prs_store_bind_text (stmt, 1, conversation_id);
  if (!step_one_row (self, stmt, error))
    return FALSE;

  if (sqlite3_column_type (stmt, 1) == SQLITE_NULL)
    {
      count = min_seq = max_seq = 0;
    }
  else
    {
      count = sqlite3_column_int64 (stmt, 0);
      min_seq = sqlite3_column_int64 (stmt, 1);
      max_seq = sqlite3_column_int64 (stmt, 2);
      if (sqlite3_column_type (stmt, 0) == SQLITE_NULL || count != max_seq - min_seq + 1)
        {
          g_clear_pointer (&stmt, prs_stmt_release);
          /* Answered from the (conversation_id, seq) index alone. */
          stmt = prs_store_prepare_cached (self,
                                "SELECT COUNT (*) FROM messages WHERE conversation_id = ?1",
                                error);
          if (stmt == NULL)
            return FALSE;
          prs_store_bind_text (stmt, 1, conversation_id);
          if (!step_one_row (self, stmt, error))
            return FALSE;
          count = sqlite3_column_int64 (stmt, 0);
        }
    }

  if (out_count != NULL)
    *out_count = (guint) CLAMP (count, 0, G_MAXUINT);
  if (out_min_seq != NULL)
    *out_min_seq = min_seq;
  if (out_max_seq != NULL)
    *out_max_seq = max_seq;
  return TRUE;
}

gboolean
prs_store_locate_message (PrsStore    *self,
                          const char  *message_id,
                          char       **out_conversation_id,
                          guint       *out_position,
                          GError     **error)
{
  g_autoptr(PrsStmt) stmt = NULL;
  int row;

  g_return_val_if_fail (PRS_IS_STORE (self), FALSE);
  PRS_ASSERT_OWNER (&self->owner);
  g_return_val_if_fail (message_id != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  /* Counted from the (conversation_id, seq) index alone */
  stmt = prs_store_prepare_cached (self,
                        "SELECT m.conversation_id, (SELECT COUNT (*) FROM messages o"
                        "  WHERE o.conversation_id = m.conversation_id AND o.seq < m.seq)"
                        " FROM messages m WHERE m.id = ?1",
                        error);
  if (stmt == NULL)
    return FALSE;
  prs_store_bind_text (stmt, 1, message_id);
  row = prs_store_step_row (self, stmt, N_("Could not read a message"), error);
  if (row < 0)
    return FALSE;
  if (row == 0)
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_NOT_FOUND, _("There is no message “%s”."),
                   message_id);
      return FALSE;
    }
  if (out_conversation_id != NULL)
    *out_conversation_id = g_strdup (prs_store_column_text (stmt, 0));
  if (out_position != NULL)
    *out_position = (guint) CLAMP (sqlite3_column_int64 (stmt, 1), 0, G_MAXUINT);
  return TRUE;
}

JsonArray *
prs_store_list_messages_at (PrsStore    *self,
                            const char  *conversation_id,
                            guint        offset,
                            guint        limit,
                            GError     **error)
{
  g_autoptr(PrsStmt) stmt = NULL;
  gint64 first_seq;
  int row;

  g_return_val_if_fail (PRS_IS_STORE (self), NULL);
  PRS_ASSERT_OWNER (&self->owner);
  g_return_val_if_fail (conversation_id != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  /* OFFSET walks the index only (it selects nothing but seq); the rows
   * themselves are then read by seq. */
  stmt = prs_store_prepare_cached (self,
                        "SELECT seq FROM messages WHERE conversation_id = ?1"
                        " ORDER BY seq LIMIT 1 OFFSET ?2",
                        error);
  if (stmt == NULL)
    return NULL;

  prs_store_bind_text (stmt, 1, conversation_id);
  sqlite3_bind_int64 (stmt, 2, offset);
  row = prs_store_step_row (self, stmt, N_("Could not read the messages"), error);
  if (row < 0)
    return NULL;
  if (row == 0)
    return json_array_new ();

  first_seq = sqlite3_column_int64 (stmt, 0);
  g_clear_pointer (&stmt, prs_stmt_release);
  return prs_store_list_messages (self, conversation_id, first_seq - 1, limit, error);
}

/* ---- Conversations and messages ------------------------------------------ */

static gboolean
lookup_conversation_by_slug (PrsStore    *self,
                             const char  *slug,
                             char       **out_id,
                             GError     **error)
{
  g_autoptr(PrsStmt) stmt = NULL;
  int row;

  /* A deleted conversation no longer answers to its slug */
  stmt = prs_store_prepare_cached (self,
                                   "SELECT id FROM conversations WHERE slug = ?1 AND deleted_at IS NULL",
                                   error);
  if (stmt == NULL)
    return FALSE;

  prs_store_bind_text (stmt, 1, slug);
  row = prs_store_step_row (self, stmt, N_("Could not look up a conversation"), error);
  if (row < 0)
    return FALSE;

  *out_id = row == 1 ? g_strdup (prs_store_column_text (stmt, 0)) : NULL;
  return TRUE;
}

gboolean
prs_store_lookup_conversation_slug (PrsStore    *self,
                                    const char  *slug,
                                    char       **out_id,
                                    GError     **error)
{
  g_return_val_if_fail (PRS_IS_STORE (self), FALSE);
  PRS_ASSERT_OWNER (&self->owner);
  g_return_val_if_fail (out_id != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  *out_id = NULL;
  if (slug == NULL)
    return TRUE;
  return lookup_conversation_by_slug (self, slug, out_id, error);
}

gboolean
prs_store_resolve_conversation (PrsStore    *self,
                                const char  *slug,
                                char       **out_id,
                                gboolean    *out_created,
                                GError     **error)
{
  g_autoptr(PrsStmt) stmt = NULL;
  g_autofree char *id = NULL;
  g_autofree char *now = NULL;

  g_return_val_if_fail (PRS_IS_STORE (self), FALSE);
  PRS_ASSERT_OWNER (&self->owner);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!prs_conversation_check_slug (slug, error))
    return FALSE;

  /* Most calls name a conversation that exists: answer those without
   * taking the write lock. */
  if (!lookup_conversation_by_slug (self, slug, &id, error))
    return FALSE;

  if (id == NULL)
    {
      if (!prs_store_begin_immediate (self, error))
        return FALSE;

      /* Under the write lock nobody can insert the same slug in between. */
      if (!lookup_conversation_by_slug (self, slug, &id, error))
        goto fail;

      if (id != NULL)
        {
          if (!prs_store_commit (self, error))
            return FALSE;
        }
      else
        {
          id = g_uuid_string_random ();
          now = prs_store_now_iso8601 ();

          stmt = prs_store_prepare_cached (self,
                                "INSERT INTO conversations (id, slug, title, created_at, updated_at)"
                                " VALUES (?1, ?2, ?2, ?3, ?3)",
                                error);
          if (stmt == NULL)
            goto fail;
          prs_store_bind_text (stmt, 1, id);
          prs_store_bind_text (stmt, 2, slug);
          prs_store_bind_text (stmt, 3, now);
          if (!prs_store_step_done (self, stmt, N_("Could not create the conversation"), error))
            goto fail;
          if (!prs_store_commit (self, error))
            return FALSE;

          if (out_created != NULL)
            *out_created = TRUE;
          if (out_id != NULL)
            *out_id = g_steal_pointer (&id);
          return TRUE;
        }
    }

  if (out_created != NULL)
    *out_created = FALSE;
  if (out_id != NULL)
    *out_id = g_steal_pointer (&id);
  return TRUE;

fail:
  prs_store_rollback (self);
  return FALSE;
}

gboolean
prs_store_has_conversation (PrsStore   *self,
                            const char *conversation_id)
{
  g_autoptr(PrsStmt) stmt = NULL;

  g_return_val_if_fail (PRS_IS_STORE (self), FALSE);
  PRS_ASSERT_OWNER (&self->owner);

  if (conversation_id == NULL)
    return FALSE;

  stmt = prs_store_prepare_cached (self,
                                   "SELECT 1 FROM conversations WHERE id = ?1 AND deleted_at IS NULL",
                                   NULL);
  if (stmt == NULL)
    return FALSE;

  prs_store_bind_text (stmt, 1, conversation_id);
  return prs_store_step_row (self, stmt, N_("Could not look up a conversation"), NULL) == 1;
}

/* A stored JSON text as a value; null when absent (or, defensively, damaged). */
static void
add_json_member (JsonBuilder *builder,
                 const char  *member,
                 const char  *json)
{
  JsonNode *node = NULL;

  if (json != NULL)
    node = json_from_string (json, NULL);

  json_builder_set_member_name (builder, member);
  if (node != NULL)
    json_builder_add_value (builder, node);
  else
    json_builder_add_null_value (builder);
}

/* Runs one UPDATE of a conversation, bound as (?1 = id, ?2 = value), in its
 * own transaction; NOT_FOUND when no row matched. */
static gboolean
update_conversation (PrsStore    *self,
                     const char  *sql,
                     const char  *conversation_id,
                     const char  *value,
                     GError     **error)
{
  g_autoptr(PrsStmt) stmt = NULL;

  if (!prs_store_begin_immediate (self, error))
    return FALSE;

  stmt = prs_store_prepare_cached (self, sql, error);
  if (stmt == NULL)
    goto fail;
  prs_store_bind_text (stmt, 1, conversation_id);
  if (value != NULL)
    prs_store_bind_text (stmt, 2, value);
  if (!prs_store_step_done (self, stmt, N_("Could not update the conversation"), error))
    goto fail;
  if (sqlite3_changes (self->db) == 0)
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_NOT_FOUND,
                   _("There is no conversation “%s”."), conversation_id);
      goto fail;
    }

  return prs_store_commit (self, error);

fail:
  prs_store_rollback (self);
  return FALSE;
}

gboolean
prs_store_update_conversation (PrsStore    *self,
                               const char  *sql,
                               const char  *conversation_id,
                               const char  *value,
                               GError     **error)
{
  return update_conversation (self, sql, conversation_id, value, error);
}

gboolean
prs_store_rename_conversation (PrsStore    *self,
                               const char  *conversation_id,
                               const char  *title,
                               GError     **error)
{
  g_return_val_if_fail (PRS_IS_STORE (self), FALSE);
  PRS_ASSERT_OWNER (&self->owner);
  g_return_val_if_fail (conversation_id != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!prs_conversation_check_title (title, error))
    return FALSE;

  /* The slug stays: it is what workflows resolve. */
  return update_conversation (self, "UPDATE conversations SET title = ?2 WHERE id = ?1",
                              conversation_id, title, error);
}

gboolean
prs_store_set_conversation_default_agent (PrsStore    *self,
                                          const char  *conversation_id,
                                          const char  *agent_id,
                                          GError     **error)
{
  g_return_val_if_fail (PRS_IS_STORE (self), FALSE);
  PRS_ASSERT_OWNER (&self->owner);
  g_return_val_if_fail (conversation_id != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (agent_id == NULL)
    return update_conversation (self,
                                "UPDATE conversations SET default_agent = NULL WHERE id = ?1",
                                conversation_id, NULL, error);

  return update_conversation (self,
                              "UPDATE conversations SET default_agent = ?2 WHERE id = ?1",
                              conversation_id, agent_id, error);
}

gboolean
prs_store_adopt_conversation_agent (PrsStore    *self,
                                    const char  *conversation_id,
                                    const char  *agent_id,
                                    gboolean    *out_adopted,
                                    GError     **error)
{
  g_autoptr(PrsStmt) stmt = NULL;

  g_return_val_if_fail (PRS_IS_STORE (self), FALSE);
  PRS_ASSERT_OWNER (&self->owner);
  g_return_val_if_fail (conversation_id != NULL && agent_id != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (out_adopted != NULL)
    *out_adopted = FALSE;
  if (!prs_store_begin_immediate (self, error))
    return FALSE;
  /* One statement: two first runs at once cannot both set it */
  stmt = prs_store_prepare_cached (self, "UPDATE conversations SET default_agent = ?2"
                                         " WHERE id = ?1 AND default_agent IS NULL", error);
  if (stmt == NULL)
    goto fail;
  prs_store_bind_text (stmt, 1, conversation_id);
  prs_store_bind_text (stmt, 2, agent_id);
  if (!prs_store_step_done (self, stmt, N_("Could not update the conversation"), error))
    goto fail;
  if (out_adopted != NULL)
    *out_adopted = sqlite3_changes (self->db) > 0;
  return prs_store_commit (self, error);

fail:
  prs_store_rollback (self);
  return FALSE;
}

gboolean
prs_store_mark_conversation_read (PrsStore    *self,
                                  const char  *conversation_id,
                                  GError     **error)
{
  g_return_val_if_fail (PRS_IS_STORE (self), FALSE);
  PRS_ASSERT_OWNER (&self->owner);
  g_return_val_if_fail (conversation_id != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return update_conversation (self, "UPDATE conversations SET unread_count = 0 WHERE id = ?1",
                              conversation_id, NULL, error);
}

/* JSON text handed in for storage must parse, so reading it back cannot fail. */
static gboolean
check_json_text (const char  *json,
                 const char  *field,
                 GError     **error)
{
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(GError) local_error = NULL;

  if (json == NULL)
    return TRUE;

  node = json_from_string (json, &local_error);
  if (node == NULL && local_error == NULL)
    g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                 /* Translators: %s is a field's name, “context”, “execution” or “extra”, kept as it is */
                 _("The message’s field “%s” is empty, not JSON."), field);
  else if (node == NULL)
    g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                 /* Translators: the field's name, kept as it is, then what the JSON reader said */
                 _("The message’s field “%s” is not JSON: %s"), field, local_error->message);
  if (node == NULL)
    return FALSE;

  return TRUE;
}

static gboolean
dedup_key_exists (PrsStore    *self,
                  const char  *dedup_key,
                  gboolean    *out_exists,
                  GError     **error)
{
  g_autoptr(PrsStmt) stmt = NULL;
  int row;

  stmt = prs_store_prepare_cached (self, "SELECT 1 FROM messages WHERE dedup_key = ?1", error);
  if (stmt == NULL)
    return FALSE;

  prs_store_bind_text (stmt, 1, dedup_key);
  row = prs_store_step_row (self, stmt, N_("Could not read a message"), error);
  if (row < 0)
    return FALSE;

  *out_exists = row == 1;
  return TRUE;
}

/* Inside the caller's transaction: the conversation exists and no stored
 * message has the same duplicate key. */
static gboolean
check_message_target (PrsStore                *self,
                      const PrsMessageInsert  *message,
                      GError                 **error)
{
  gboolean exists = FALSE;

  if (!prs_store_has_conversation (self, message->conversation_id))
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_NOT_FOUND,
                   _("There is no conversation “%s”."), message->conversation_id);
      return FALSE;
    }

  if (message->dedup_key == NULL)
    return TRUE;
  if (!dedup_key_exists (self, message->dedup_key, &exists, error))
    return FALSE;
  if (exists)
    {
      g_set_error_literal (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                           _("A message with the same duplicate key is already stored."));
      return FALSE;
    }

  return TRUE;
}

/* Inside the caller's transaction: the number of the conversation's next message. */
static gboolean
next_message_seq (PrsStore     *self,
                  const char   *conversation_id,
                  gint64       *out_seq,
                  GError      **error)
{
  g_autoptr(PrsStmt) stmt = NULL;

  stmt = prs_store_prepare_cached (self,
                            "SELECT COALESCE (MAX (seq), 0) + 1 FROM messages"
                            " WHERE conversation_id = ?1",
                            error);
  if (stmt == NULL)
    return FALSE;
  prs_store_bind_text (stmt, 1, conversation_id);
  if (prs_store_step_row (self, stmt, N_("Could not number the message"), error) != 1)
    return FALSE;

  *out_seq = sqlite3_column_int64 (stmt, 0);
  return TRUE;
}

/* Inside the caller's transaction: the message's row, and its
 * conversation's counts and time. */
static gboolean
write_message (PrsStore                *self,
               const PrsMessageInsert  *message,
               const char              *id,
               gint64                   seq,
               const char              *now,
               GError                 **error)
{
  g_autoptr(PrsStmt) insert_stmt = NULL;
  g_autoptr(PrsStmt) bump_stmt = NULL;

  insert_stmt = prs_store_prepare_cached (self,
                               "INSERT INTO messages (id, conversation_id, seq, kind, content,"
                               " status, agent_id, context_json, execution_json, dedup_key,"
                               " extra_json, created_at)"
                               " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
                               error);
  if (insert_stmt == NULL)
    return FALSE;
  prs_store_bind_text (insert_stmt, 1, id);
  prs_store_bind_text (insert_stmt, 2, message->conversation_id);
  sqlite3_bind_int64 (insert_stmt, 3, seq);
  prs_store_bind_text (insert_stmt, 4, message->kind);
  prs_store_bind_text (insert_stmt, 5, message->content);
  prs_store_bind_text (insert_stmt, 6, message->status);
  prs_store_bind_text (insert_stmt, 7, message->agent_id);
  prs_store_bind_text (insert_stmt, 8, message->context_json);
  prs_store_bind_text (insert_stmt, 9, message->execution_json);
  prs_store_bind_text (insert_stmt, 10, message->dedup_key);
  prs_store_bind_text (insert_stmt, 11, message->extra_json);
  prs_store_bind_text (insert_stmt, 12, now);
  if (!prs_store_step_done (self, insert_stmt, N_("Could not save the message"), error))
    return FALSE;

  bump_stmt = prs_store_prepare_cached (self,
                             "UPDATE conversations SET message_count = message_count + 1,"
                             " unread_count = unread_count + 1, updated_at = ?2"
                             " WHERE id = ?1",
                             error);
  if (bump_stmt == NULL)
    return FALSE;
  prs_store_bind_text (bump_stmt, 1, message->conversation_id);
  prs_store_bind_text (bump_stmt, 2, now);
  return prs_store_step_done (self, bump_stmt, N_("Could not update the conversation"), error);
}

/* The insert of prs_store_insert_message (), inside a transaction the
 * caller began (prs-store-internal.h) */
gboolean
prs_store_insert_message_locked (PrsStore                *self,
                                 const PrsMessageInsert  *message,
                                 char                   **out_message_id,
                                 gint64                  *out_seq,
                                 GError                 **error)
{
  g_autofree char *id = NULL;
  g_autofree char *now = NULL;
  gint64 seq;

  PRS_ASSERT_OWNER (&self->owner);

  if (message->conversation_id == NULL || message->kind == NULL || message->kind[0] == '\0')
    {
      g_set_error_literal (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                           _("A message needs a conversation and a kind."));
      return FALSE;
    }
  if (!message->json_from_writer &&
      (!check_json_text (message->context_json, "context", error) ||
       !check_json_text (message->execution_json, "execution", error) ||
       !check_json_text (message->extra_json, "extra", error)))
    return FALSE;

  id = message->id != NULL ? g_strdup (message->id) : g_uuid_string_random ();
  now = prs_store_now_iso8601 ();
  if (!check_message_target (self, message, error) ||
      !next_message_seq (self, message->conversation_id, &seq, error) ||
      !write_message (self, message, id, seq, now, error))
    return FALSE;
  /* What the person wrote is sent: its draft goes with the same commit
   * (docs/conversations.md "Drafts"), so it never comes back after a crash */
  if (g_str_equal (message->kind, "user") &&
      !prs_store_write_draft (self, message->conversation_id, NULL, error))
    return FALSE;

  if (out_message_id != NULL)
    *out_message_id = g_steal_pointer (&id);
  if (out_seq != NULL)
    *out_seq = seq;
  return TRUE;
}

gboolean
prs_store_insert_message (PrsStore                *self,
                          const PrsMessageInsert  *message,
                          char                   **out_message_id,
                          gint64                  *out_seq,
                          GError                 **error)
{
  g_autofree char *id = NULL;

  g_return_val_if_fail (PRS_IS_STORE (self), FALSE);
  g_return_val_if_fail (message != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!prs_store_begin_immediate (self, error))
    return FALSE;
  if (!prs_store_insert_message_locked (self, message, &id, out_seq, error))
    {
      prs_store_rollback (self);
      return FALSE;
    }
  if (!prs_store_commit (self, error))
    return FALSE;

  /* Field discovery (docs/conversations.md), after the commit: it never costs the message. */
  if (message->context_json != NULL)
    prs_store_record_message_context (self, message->conversation_id, id,
                                      message->context_json, message->execution_json);

  if (out_message_id != NULL)
    *out_message_id = g_steal_pointer (&id);
  return TRUE;
}

char *
prs_store_find_message_by_dedup_key (PrsStore   *self,
                                     const char *dedup_key)
{
  g_autoptr(PrsStmt) stmt = NULL;

  g_return_val_if_fail (PRS_IS_STORE (self), NULL);
  PRS_ASSERT_OWNER (&self->owner);

  if (dedup_key == NULL)
    return NULL;

  stmt = prs_store_prepare_cached (self, "SELECT id FROM messages WHERE dedup_key = ?1", NULL);
  if (stmt == NULL)
    return NULL;

  prs_store_bind_text (stmt, 1, dedup_key);
  if (prs_store_step_row (self, stmt, N_("Could not read a message"), NULL) != 1)
    return NULL;

  return g_strdup (prs_store_column_text (stmt, 0));
}

gboolean
prs_store_update_message (PrsStore    *self,
                          const char  *message_id,
                          const char  *status,
                          const char  *content,
                          const char  *extra_json,
                          GError     **error)
{
  g_autoptr(PrsStmt) stmt = NULL;

  g_return_val_if_fail (PRS_IS_STORE (self), FALSE);
  PRS_ASSERT_OWNER (&self->owner);
  g_return_val_if_fail (message_id != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!check_json_text (extra_json, "extra", error))
    return FALSE;

  if (!prs_store_begin_immediate (self, error))
    return FALSE;

  stmt = prs_store_prepare_cached (self,
                        "UPDATE messages SET status = COALESCE (?2, status),"
                        " content = COALESCE (?3, content),"
                        " extra_json = COALESCE (?4, extra_json)"
                        " WHERE id = ?1",
                        error);
  if (stmt == NULL)
    goto fail;
  prs_store_bind_text (stmt, 1, message_id);
  prs_store_bind_text (stmt, 2, status);
  prs_store_bind_text (stmt, 3, content);
  prs_store_bind_text (stmt, 4, extra_json);
  if (!prs_store_step_done (self, stmt, N_("Could not update the message"), error))
    goto fail;
  if (sqlite3_changes (self->db) == 0)
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_NOT_FOUND,
                   _("There is no message “%s”."), message_id);
      goto fail;
    }

  return prs_store_commit (self, error);

fail:
  prs_store_rollback (self);
  return FALSE;
}

gint
prs_store_interrupt_orphan_inbound (PrsStore    *self,
                                    const char  *answer_json,
                                    const char  *error_text,
                                    GError     **error)
{
  g_autoptr(PrsStmt) stmt = NULL;
  gint changed;

  g_return_val_if_fail (PRS_IS_STORE (self), -1);
  PRS_ASSERT_OWNER (&self->owner);
  g_return_val_if_fail (answer_json != NULL, -1);
  g_return_val_if_fail (error == NULL || *error == NULL, -1);

  if (!prs_store_begin_immediate (self, error))
    return -1;

  /* Stored, acknowledged to no one, and no run ever began for it */
  stmt = prs_store_prepare_cached (self,
                        "UPDATE messages SET status = 'failed',"
                        " extra_json = json_set (COALESCE (extra_json, '{}'),"
                        "   '$.reason', '" PRS_INBOUND_REASON_INTERRUPTED "',"
                        "   '$.httpStatus', 503,"
                        "   '$.answer', json (?1),"
                        "   '$.error', ?2)"
                        " WHERE kind = 'inbound' AND status = 'pending'"
                        " AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.trigger_message_id = messages.id)",
                        error);
  if (stmt == NULL)
    goto fail;
  prs_store_bind_text (stmt, 1, answer_json);
  prs_store_bind_text (stmt, 2, error_text);
  if (!prs_store_step_done (self, stmt, N_("Could not mark the unanswered requests"), error))
    goto fail;
  changed = sqlite3_changes (self->db);
  if (!prs_store_commit (self, error))
    return -1;
  return changed;

fail:
  prs_store_rollback (self);
  return -1;
}

#define MESSAGE_COLUMNS \
  "id, conversation_id, seq, kind, content, status, agent_id, context_json," \
  " execution_json, extra_json, created_at, superseded_at"

static JsonNode *
message_from_row (sqlite3_stmt *stmt)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();

  json_builder_begin_object (builder);
  prs_json_builder_add_string_member (builder, "id", prs_store_column_text (stmt, 0));
  prs_json_builder_add_string_member (builder, "conversationId", prs_store_column_text (stmt, 1));
  json_builder_set_member_name (builder, "seq");
  json_builder_add_int_value (builder, sqlite3_column_int64 (stmt, 2));
  prs_json_builder_add_string_member (builder, "kind", prs_store_column_text (stmt, 3));
  prs_json_builder_add_string_member (builder, "content", prs_store_column_text (stmt, 4));
  prs_json_builder_add_string_member (builder, "status", prs_store_column_text (stmt, 5));
  prs_json_builder_add_string_member (builder, "agentId", prs_store_column_text (stmt, 6));
  add_json_member (builder, "context", prs_store_column_text (stmt, 7));
  add_json_member (builder, "execution", prs_store_column_text (stmt, 8));
  add_json_member (builder, "extra", prs_store_column_text (stmt, 9));
  prs_json_builder_add_string_member (builder, "createdAt", prs_store_column_text (stmt, 10));
  prs_json_builder_add_string_member (builder, "supersededAt", prs_store_column_text (stmt, 11));
  json_builder_end_object (builder);

  return json_builder_get_root (builder);
}

JsonNode *
prs_store_get_message (PrsStore    *self,
                       const char  *message_id,
                       GError     **error)
{
  g_autoptr(PrsStmt) stmt = NULL;

  g_return_val_if_fail (PRS_IS_STORE (self), NULL);
  PRS_ASSERT_OWNER (&self->owner);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (message_id == NULL)
    return NULL;

  stmt = prs_store_prepare_cached (self, "SELECT " MESSAGE_COLUMNS " FROM messages WHERE id = ?1", error);
  if (stmt == NULL)
    return NULL;

  prs_store_bind_text (stmt, 1, message_id);
  if (prs_store_step_row (self, stmt, N_("Could not read a message"), error) != 1)
    return NULL;

  return message_from_row (stmt);
}

JsonArray *
prs_store_list_messages (PrsStore    *self,
                         const char  *conversation_id,
                         gint64       after_seq,
                         guint        limit,
                         GError     **error)
{
  g_autoptr(PrsStmt) stmt = NULL;
  g_autoptr(JsonArray) messages = NULL;
  int row;

  g_return_val_if_fail (PRS_IS_STORE (self), NULL);
  PRS_ASSERT_OWNER (&self->owner);
  g_return_val_if_fail (conversation_id != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  stmt = prs_store_prepare_cached (self,
                        "SELECT " MESSAGE_COLUMNS " FROM messages"
                        " WHERE conversation_id = ?1 AND seq > ?2"
                        " ORDER BY seq LIMIT ?3",
                        error);
  if (stmt == NULL)
    return NULL;

  prs_store_bind_text (stmt, 1, conversation_id);
  sqlite3_bind_int64 (stmt, 2, after_seq);
  sqlite3_bind_int64 (stmt, 3, limit);

  messages = json_array_new ();
  while ((row = prs_store_step_row (self, stmt, N_("Could not read the messages"), error)) == 1)
    json_array_add_element (messages, message_from_row (stmt));
  if (row < 0)
    return NULL;

  return g_steal_pointer (&messages);
}

/* ---- Regenerate, Edit and Resend ----------------------------------------- */

/* Inside the caller's transaction: the last message of the conversation
 * that starts a turn (a person's or a workflow's), not superseded. It
 * must be a person's: what came from a workflow is not asked again from
 * here. *@out_id and *@out_agent_id are new strings. */
static gboolean
last_user_turn (PrsStore    *self,
                const char  *conversation_id,
                char       **out_id,
                gint64      *out_seq,
                char       **out_agent_id,
                GError     **error)
{
  g_autoptr(PrsStmt) stmt = NULL;
  int row;

  stmt = prs_store_prepare_cached (self,
                        "SELECT id, seq, kind, agent_id FROM messages"
                        " WHERE conversation_id = ?1 AND kind IN ('user', 'inbound')"
                        " AND superseded_at IS NULL ORDER BY seq DESC LIMIT 1",
                        error);
  if (stmt == NULL)
    return FALSE;
  prs_store_bind_text (stmt, 1, conversation_id);
  row = prs_store_step_row (self, stmt, N_("Could not read the messages"), error);
  if (row < 0)
    return FALSE;
  if (row == 0 || g_strcmp0 (prs_store_column_text (stmt, 2), "user") != 0)
    {
      g_set_error_literal (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                           row == 0 ? _("There is no message of yours to answer again.")
                                    : _("The last message came from a workflow; only your own messages "
                                        "are asked again from here."));
      return FALSE;
    }

  *out_id = g_strdup (prs_store_column_text (stmt, 0));
  *out_seq = sqlite3_column_int64 (stmt, 1);
  if (out_agent_id != NULL)
    *out_agent_id = g_strdup (prs_store_column_text (stmt, 3));
  return TRUE;
}

/* Inside the caller's transaction: marks the messages from @first_seq on
 * superseded; their ids are added to @ids. */
static gboolean
supersede_from (PrsStore    *self,
                const char  *conversation_id,
                gint64       first_seq,
                const char  *now,
                GPtrArray   *ids,
                GError     **error)
{
  g_autoptr(PrsStmt) stmt = NULL;
  int row;

  stmt = prs_store_prepare_cached (self,
                        "UPDATE messages SET superseded_at = ?3"
                        " WHERE conversation_id = ?1 AND seq >= ?2 AND superseded_at IS NULL"
                        " RETURNING id",
                        error);
  if (stmt == NULL)
    return FALSE;
  prs_store_bind_text (stmt, 1, conversation_id);
  sqlite3_bind_int64 (stmt, 2, first_seq);
  prs_store_bind_text (stmt, 3, now);
  while ((row = prs_store_step_row (self, stmt, N_("Could not keep the earlier answer"),
                                    error)) == 1)
    g_ptr_array_add (ids, g_strdup (prs_store_column_text (stmt, 0)));
  return row == 0;
}

gboolean
prs_store_supersede_last_answer (PrsStore    *self,
                                 const char  *conversation_id,
                                 char       **out_trigger_id,
                                 GPtrArray  **out_superseded,
                                 GError     **error)
{
  g_autoptr(GPtrArray) ids = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *trigger = NULL;
  g_autofree char *now = prs_store_now_iso8601 ();
  gint64 seq = 0;

  g_return_val_if_fail (PRS_IS_STORE (self), FALSE);
  PRS_ASSERT_OWNER (&self->owner);
  g_return_val_if_fail (conversation_id != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!prs_store_begin_immediate (self, error))
    return FALSE;
  if (!last_user_turn (self, conversation_id, &trigger, &seq, NULL, error) ||
      !supersede_from (self, conversation_id, seq + 1, now, ids, error))
    goto fail;
  if (ids->len == 0)
    {
      g_set_error_literal (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                           _("Your last message has no answer yet."));
      goto fail;
    }
  if (!prs_store_commit (self, error))
    return FALSE;

  if (out_trigger_id != NULL)
    *out_trigger_id = g_steal_pointer (&trigger);
  if (out_superseded != NULL)
    *out_superseded = g_steal_pointer (&ids);
  return TRUE;

fail:
  prs_store_rollback (self);
  return FALSE;
}

gboolean
prs_store_replace_last_user_message (PrsStore    *self,
                                     const char  *conversation_id,
                                     const char  *text,
                                     const char  *agent_id,
                                     char       **out_message_id,
                                     GPtrArray  **out_superseded,
                                     GError     **error)
{
  g_autoptr(GPtrArray) ids = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *old_id = NULL;
  g_autofree char *old_agent = NULL;
  g_autofree char *id = g_uuid_string_random ();
  g_autofree char *now = prs_store_now_iso8601 ();
  PrsMessageInsert message = { 0 };
  gint64 seq = 0, new_seq = 0;

  g_return_val_if_fail (PRS_IS_STORE (self), FALSE);
  PRS_ASSERT_OWNER (&self->owner);
  g_return_val_if_fail (conversation_id != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  while (text != NULL && g_ascii_isspace (*text))
    text++;
  if (text == NULL || *text == '\0')
    {
      g_set_error_literal (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT, _("The message is empty."));
      return FALSE;
    }

  if (!prs_store_begin_immediate (self, error))
    return FALSE;
  if (!last_user_turn (self, conversation_id, &old_id, &seq, &old_agent, error) ||
      !supersede_from (self, conversation_id, seq, now, ids, error) ||
      !next_message_seq (self, conversation_id, &new_seq, error))
    goto fail;

  message.conversation_id = conversation_id;
  message.kind = "user";
  message.content = text;
  message.agent_id = agent_id != NULL ? agent_id : old_agent;
  if (!write_message (self, &message, id, new_seq, now, error))
    goto fail;
  if (!prs_store_commit (self, error))
    return FALSE;

  if (out_message_id != NULL)
    *out_message_id = g_steal_pointer (&id);
  if (out_superseded != NULL)
    *out_superseded = g_steal_pointer (&ids);
  return TRUE;

fail:
  prs_store_rollback (self);
  return FALSE;
}
