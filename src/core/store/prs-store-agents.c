/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-store-agents.c: the store's agents (docs/agents.md): list, lookup, save,
 * rename, delete and duplicate, each write in one BEGIN IMMEDIATE
 * transaction. */
#include "config.h"

#include <string.h>
#include <glib/gi18n-lib.h>

#include "prs-json.h"
#include "prs-store-internal.h"

#define AGENT_COLUMNS \
  "id, name, description, system_prompt, allowed_tools, guidance_json, extra_json, created_at, updated_at"

/* One whole sentence per column (4 tools, 5 guidance, 6 extra keys), so
 * that each is translated as a sentence */
static JsonNode *
parse_column (sqlite3_stmt  *stmt,
              int            column,
              GError       **error)
{
  const char *text = prs_store_column_text (stmt, column);
  g_autoptr(GError) local_error = NULL;
  JsonNode *node;

  if (text == NULL)
    return NULL;

  node = prs_json_parse_bounded (text, strlen (text), PRS_JSON_DEFAULT_MAX_DEPTH, &local_error);
  if (node == NULL)
    g_set_error (error, PRS_ERROR, PRS_ERROR_STORE,
                 column == 4 ? _("The stored tool list of the agent “%s” is damaged: %s")
                 : column == 5 ? _("The stored guidance of the agent “%s” is damaged: %s")
                 : _("The stored extra keys of the agent “%s” are damaged: %s"),
                 prs_store_column_text (stmt, 0), local_error->message);
  return node;
}

static PrsAgent *
agent_from_row (sqlite3_stmt  *stmt,
                GError       **error)
{
  g_autoptr(PrsAgent) agent = prs_agent_new (prs_store_column_text (stmt, 0),
                                             prs_store_column_text (stmt, 1));
  g_autoptr(JsonNode) tools = NULL;
  g_autoptr(JsonNode) guidance = NULL;
  g_autoptr(JsonNode) extra = NULL;
  g_autoptr(GError) local_error = NULL;

  g_free (agent->description);
  agent->description = g_strdup (prs_store_column_text (stmt, 2) != NULL ? prs_store_column_text (stmt, 2) : "");
  g_free (agent->system_prompt);
  agent->system_prompt = g_strdup (prs_store_column_text (stmt, 3) != NULL ? prs_store_column_text (stmt, 3) : "");

  if (sqlite3_column_type (stmt, 4) != SQLITE_NULL)
    {
      g_autoptr(GPtrArray) names = g_ptr_array_new ();
      JsonArray *array;

      if ((tools = parse_column (stmt, 4, error)) == NULL)
        return NULL;
      if (!JSON_NODE_HOLDS_ARRAY (tools))
        {
          g_set_error (error, PRS_ERROR, PRS_ERROR_STORE,
                       _("The stored tool list of the agent “%s” is not a list."), agent->id);
          return NULL;
        }
      array = json_node_get_array (tools);
      for (guint i = 0; i < json_array_get_length (array); i++)
        {
          JsonNode *element = json_array_get_element (array, i);

          if (JSON_NODE_HOLDS_VALUE (element) && json_node_get_value_type (element) == G_TYPE_STRING)
            g_ptr_array_add (names, g_strdup (json_node_get_string (element)));
        }
      g_ptr_array_add (names, NULL);
      agent->allowed_tools = (GStrv) g_ptr_array_steal (names, NULL);
    }

  if (sqlite3_column_type (stmt, 5) != SQLITE_NULL)
    {
      GPtrArray *parsed;

      if ((guidance = parse_column (stmt, 5, error)) == NULL)
        return NULL;
      parsed = prs_guidance_new_from_json (guidance, &local_error);
      if (parsed == NULL)
        {
          g_set_error (error, PRS_ERROR, PRS_ERROR_STORE,
                       _("The stored guidance of the agent “%s” is damaged: %s"),
                       agent->id, local_error->message);
          return NULL;
        }
      g_ptr_array_unref (agent->guidance);
      agent->guidance = parsed;
    }

  if (sqlite3_column_type (stmt, 6) != SQLITE_NULL)
    {
      if ((extra = parse_column (stmt, 6, error)) == NULL)
        return NULL;
      if (JSON_NODE_HOLDS_OBJECT (extra))
        {
          json_object_unref (agent->extra);
          agent->extra = json_node_dup_object (extra);
        }
    }

  agent->created_at = g_strdup (prs_store_column_text (stmt, 7));
  agent->updated_at = g_strdup (prs_store_column_text (stmt, 8));

  return g_steal_pointer (&agent);
}

GPtrArray *
prs_store_list_agents (PrsStore  *self,
                       GError   **error)
{
  g_autoptr(PrsStmt) stmt = NULL;

  g_return_val_if_fail (PRS_IS_STORE (self), NULL);
  PRS_ASSERT_OWNER (&self->owner);

  stmt = prs_store_prepare_cached (self,
                                   "SELECT " AGENT_COLUMNS " FROM agents"
                                   " ORDER BY id = 'prosponsive' DESC, name COLLATE NOCASE, id",
                                   error);
  if (stmt == NULL)
    return NULL;

  return prs_store_collect_rows (self, stmt, N_("Could not list the agents"),
                                 (PrsStoreReadRow) agent_from_row, (GDestroyNotify) prs_agent_free, error);
}

PrsAgent *
prs_store_lookup_agent (PrsStore    *self,
                        const char  *id,
                        GError     **error)
{
  g_autoptr(PrsStmt) stmt = NULL;
  int row;

  g_return_val_if_fail (PRS_IS_STORE (self), NULL);
  PRS_ASSERT_OWNER (&self->owner);

  stmt = prs_store_prepare_cached (self, "SELECT " AGENT_COLUMNS " FROM agents WHERE id = ?1", error);
  if (stmt == NULL)
    return NULL;

  prs_store_bind_text (stmt, 1, id);
  row = prs_store_step_row (self, stmt, N_("Could not look up the agent"), error);
  if (row < 0)
    return NULL;
  if (row == 0)
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_NOT_FOUND, _("There is no agent “%s”."),
                   id != NULL ? id : "");
      return NULL;
    }

  return agent_from_row (stmt, error);
}

/* Inside a transaction. */
static gboolean
agent_exists (PrsStore    *self,
              const char  *id,
              gboolean    *out_exists,
              GError     **error)
{
  g_autoptr(PrsStmt) stmt = prs_store_prepare_cached (self, "SELECT 1 FROM agents WHERE id = ?1", error);
  int row;

  if (stmt == NULL)
    return FALSE;

  prs_store_bind_text (stmt, 1, id);
  row = prs_store_step_row (self, stmt, N_("Could not look up the agent"), error);
  if (row < 0)
    return FALSE;

  *out_exists = row == 1;
  return TRUE;
}

static char *
json_text_or_null (JsonNode *node)
{
  return node != NULL ? prs_json_to_string (node, FALSE) : NULL;
}

static gboolean
write_agent (PrsStore        *self,
             const PrsAgent  *agent,
             GError         **error)
{
  g_autoptr(PrsStmt) stmt = NULL;
  g_autoptr(JsonNode) tools = NULL;
  g_autoptr(JsonNode) guidance = prs_guidance_to_json (agent->guidance);
  g_autoptr(JsonNode) extra = NULL;
  g_autofree char *tools_text = NULL;
  g_autofree char *guidance_text = NULL;
  g_autofree char *extra_text = NULL;
  g_autofree char *now = prs_store_now_iso8601 ();

  if (agent->allowed_tools != NULL)
    {
      JsonArray *array = json_array_new ();

      for (guint i = 0; agent->allowed_tools[i] != NULL; i++)
        json_array_add_string_element (array, agent->allowed_tools[i]);
      tools = json_node_new (JSON_NODE_ARRAY);
      json_node_take_array (tools, array);
    }
  if (agent->extra != NULL && json_object_get_size (agent->extra) > 0)
    {
      extra = json_node_new (JSON_NODE_OBJECT);
      json_node_set_object (extra, agent->extra);
    }

  tools_text = json_text_or_null (tools);
  guidance_text = json_text_or_null (guidance);
  extra_text = json_text_or_null (extra);

  stmt = prs_store_prepare_cached (self,
                                   "INSERT INTO agents (" AGENT_COLUMNS ")"
                                   " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8)"
                                   " ON CONFLICT (id) DO UPDATE SET name = excluded.name,"
                                   " description = excluded.description,"
                                   " system_prompt = excluded.system_prompt,"
                                   " allowed_tools = excluded.allowed_tools,"
                                   " guidance_json = excluded.guidance_json,"
                                   " extra_json = excluded.extra_json,"
                                   " updated_at = excluded.updated_at",
                                   error);
  if (stmt == NULL)
    return FALSE;

  prs_store_bind_text (stmt, 1, agent->id);
  prs_store_bind_text (stmt, 2, agent->name);
  prs_store_bind_text (stmt, 3, agent->description != NULL ? agent->description : "");
  prs_store_bind_text (stmt, 4, agent->system_prompt != NULL ? agent->system_prompt : "");
  prs_store_bind_text (stmt, 5, tools_text);
  prs_store_bind_text (stmt, 6, guidance_text);
  prs_store_bind_text (stmt, 7, extra_text);
  prs_store_bind_text (stmt, 8, now);

  return prs_store_step_done (self, stmt, N_("Could not save the agent"), error);
}

static gboolean
move_conversation_defaults (PrsStore    *self,
                            const char  *from_id,
                            const char  *to_id,
                            GError     **error)
{
  g_autoptr(PrsStmt) stmt = prs_store_prepare_cached (self,
                                                      "UPDATE conversations SET default_agent = ?2"
                                                      " WHERE default_agent = ?1",
                                                      error);

  if (stmt == NULL)
    return FALSE;

  prs_store_bind_text (stmt, 1, from_id);
  prs_store_bind_text (stmt, 2, to_id);
  return prs_store_step_done (self, stmt, N_("Could not update the conversations' agents"), error);
}

/* A schedule names its agent by id: a renamed agent takes its schedules
 * along, or they would be turned off at their next time as if it had been
 * deleted (docs/schedules.md) */
static gboolean
move_schedules (PrsStore    *self,
                const char  *from_id,
                const char  *to_id,
                GError     **error)
{
  g_autoptr(PrsStmt) stmt = prs_store_prepare_cached (self,
                                                      "UPDATE schedules SET agent_id = ?2"
                                                      " WHERE agent_id = ?1",
                                                      error);

  if (stmt == NULL)
    return FALSE;

  prs_store_bind_text (stmt, 1, from_id);
  prs_store_bind_text (stmt, 2, to_id);
  return prs_store_step_done (self, stmt, N_("Could not update the schedules' agents"), error);
}

static gboolean
delete_agent_row (PrsStore    *self,
                  const char  *id,
                  GError     **error)
{
  g_autoptr(PrsStmt) stmt = prs_store_prepare_cached (self, "DELETE FROM agents WHERE id = ?1", error);

  if (stmt == NULL)
    return FALSE;

  prs_store_bind_text (stmt, 1, id);
  return prs_store_step_done (self, stmt, N_("Could not delete the agent"), error);
}

gboolean
prs_store_save_agent (PrsStore        *self,
                      const PrsAgent  *agent,
                      const char      *previous_id,
                      GError         **error)
{
  gboolean renaming;
  gboolean exists = FALSE;

  g_return_val_if_fail (PRS_IS_STORE (self), FALSE);
  PRS_ASSERT_OWNER (&self->owner);
  g_return_val_if_fail (agent != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!prs_agent_validate (agent, error))
    return FALSE;

  renaming = previous_id != NULL && g_strcmp0 (previous_id, agent->id) != 0;
  if (renaming && g_str_equal (previous_id, PRS_AGENT_DEFAULT_ID))
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                   _("The id of the default agent “%s” cannot be changed."), PRS_AGENT_DEFAULT_ID);
      return FALSE;
    }

  if (!prs_store_begin_immediate (self, error))
    return FALSE;

  if (renaming)
    {
      if (!agent_exists (self, agent->id, &exists, error))
        goto fail;
      if (exists)
        {
          g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                       _("Another agent already has the id “%s”."), agent->id);
          goto fail;
        }
    }

  if (!write_agent (self, agent, error))
    goto fail;

  if (renaming &&
      (!move_conversation_defaults (self, previous_id, agent->id, error) ||
       !move_schedules (self, previous_id, agent->id, error) ||
       !delete_agent_row (self, previous_id, error)))
    goto fail;

  return prs_store_commit (self, error);

fail:
  prs_store_rollback (self);
  return FALSE;
}

gboolean
prs_store_import_agent (PrsStore        *self,
                        const PrsAgent  *agent,
                        gboolean         replace,
                        gboolean        *out_replaced,
                        GError         **error)
{
  gboolean exists = FALSE;

  g_return_val_if_fail (PRS_IS_STORE (self), FALSE);
  PRS_ASSERT_OWNER (&self->owner);
  g_return_val_if_fail (agent != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!prs_agent_validate (agent, error))
    return FALSE;
  if (!prs_store_begin_immediate (self, error))
    return FALSE;

  if (!agent_exists (self, agent->id, &exists, error))
    goto fail;
  if (exists && !replace)
    {
      /* Translators: %s is an agent id */
      g_set_error (error, PRS_ERROR, PRS_ERROR_EXISTS, _("An agent with the id “%s” already exists."),
                   agent->id);
      goto fail;
    }
  if (!write_agent (self, agent, error))
    goto fail;
  if (!prs_store_commit (self, error))
    return FALSE;

  if (out_replaced != NULL)
    *out_replaced = exists;
  return TRUE;

fail:
  prs_store_rollback (self);
  return FALSE;
}

gboolean
prs_store_delete_agent (PrsStore    *self,
                        const char  *id,
                        GError     **error)
{
  gboolean exists = FALSE;

  g_return_val_if_fail (PRS_IS_STORE (self), FALSE);
  PRS_ASSERT_OWNER (&self->owner);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (g_strcmp0 (id, PRS_AGENT_DEFAULT_ID) == 0)
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                   _("The default agent “%s” cannot be deleted."), PRS_AGENT_DEFAULT_ID);
      return FALSE;
    }

  if (!prs_store_begin_immediate (self, error))
    return FALSE;

  if (!agent_exists (self, id, &exists, error))
    goto fail;
  if (!exists)
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_NOT_FOUND, _("There is no agent “%s”."),
                   id != NULL ? id : "");
      goto fail;
    }

  /* Conversations that used it fall back to the default agent. */
  if (!move_conversation_defaults (self, id, NULL, error) ||
      !delete_agent_row (self, id, error))
    goto fail;

  return prs_store_commit (self, error);

fail:
  prs_store_rollback (self);
  return FALSE;
}

/* ID-copy, ID-copy-2, …, cut so that it stays within 64 characters. */
static char *
copy_id (const char *id,
         guint       n)
{
  g_autofree char *suffix = n < 2 ? g_strdup ("-copy") : g_strdup_printf ("-copy-%u", n);
  gsize room = PRS_AGENT_ID_MAX_LEN - strlen (suffix);
  g_autofree char *base = g_strndup (id, room);
  gsize len = strlen (base);

  while (len > 0 && base[len - 1] == '-')
    base[--len] = '\0';
  return g_strconcat (base, suffix, NULL);
}

char *
prs_store_duplicate_agent (PrsStore    *self,
                           const char  *id,
                           GError     **error)
{
  g_autoptr(PrsAgent) agent = NULL;
  g_autofree char *new_id = NULL;
  char *name;

  g_return_val_if_fail (PRS_IS_STORE (self), NULL);
  PRS_ASSERT_OWNER (&self->owner);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!prs_store_begin_immediate (self, error))
    return NULL;

  agent = prs_store_lookup_agent (self, id, error);
  if (agent == NULL)
    goto fail;

  for (guint n = 1; new_id == NULL; n++)
    {
      g_autofree char *candidate = copy_id (agent->id, n);
      gboolean exists = FALSE;

      if (!agent_exists (self, candidate, &exists, error))
        goto fail;
      if (!exists)
        new_id = g_steal_pointer (&candidate);
    }

  g_free (agent->id);
  agent->id = g_strdup (new_id);
  /* Translators: the name of a duplicated agent; %s is the original's name. */
  name = g_strdup_printf (_("%s (copy)"), agent->name);
  g_free (agent->name);
  agent->name = name;

  if (!write_agent (self, agent, error))
    goto fail;
  if (!prs_store_commit (self, error))
    return NULL;

  return g_steal_pointer (&new_id);

fail:
  prs_store_rollback (self);
  return NULL;
}
