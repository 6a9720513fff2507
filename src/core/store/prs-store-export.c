/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-store-export.c: a conversation written out (docs/conversations.md),
 * read in one snapshot and streamed a page at a time, never whole:
 *
 * - Markdown, for people: each message under a heading, replies laid out
 *   as on screen (key-value grids become tables, text stays Markdown with
 *   its links), tool calls and results as sections, the Request Context
 *   as a JSON block (once, until it changes);
 * - JSON, for programs: every column of every row the conversation owns
 *   (the conversation, its messages, runs, tool calls and context fields),
 *   under the columns' own names. Columns holding JSON are embedded as
 *   JSON values (the value is kept; not the spacing of its text). */
#include "config.h"

#include <string.h>
#include <glib/gi18n-lib.h>

#include "prs-atomic-file.h"
#include "prs-control-chars.h"
#include "prs-json.h"
#include "prs-layout.h"
#include "prs-store-internal.h"

/* Written out whenever this much is buffered */
#define FLUSH_BYTES (64 * 1024)
#define PAGE 500

typedef struct
{
  PrsStore      *store;
  GOutputStream *out;
  GCancellable  *cancellable;
  GString       *buffer;
  GHashTable    *agent_names;     /* id → name */
  char          *last_context;    /* the Request Context last written (Markdown) */
  gboolean       blank_controls;  /* Markdown: see flush () */
} Writer;

static gboolean
flush (Writer  *w,
       gboolean force,
       GError **error)
{
  g_autofree char *blanked = NULL;

  if (w->buffer->len == 0 || (!force && w->buffer->len < FLUSH_BYTES))
    return TRUE;
  /* Markdown is read in a terminal too (`prosponsive-ctl export`): the
   * control characters a workflow stored (an escape that redraws the
   * screen, OSC 52 writing the clipboard) become spaces, lines and tabs
   * stay. JSON escapes them. The buffer holds whole appended strings, so
   * no character is split here. docs/conversations.md "Export" */
  if (w->blank_controls)
    blanked = prs_text_blank_controls (w->buffer->str, w->buffer->len, TRUE);
  if (!g_output_stream_write_all (w->out, blanked != NULL ? blanked : w->buffer->str,
                                  blanked != NULL ? strlen (blanked) : w->buffer->len,
                                  NULL, w->cancellable, error))
    return FALSE;
  g_string_truncate (w->buffer, 0);
  return TRUE;
}

/* ---- Markdown ---- */

/* A fence longer than any run of backticks in @text */
static char *
fence_for (const char *text)
{
  guint longest = 0, run = 0;

  for (const char *p = text; p != NULL && *p != '\0'; p++)
    {
      run = *p == '`' ? run + 1 : 0;
      longest = MAX (longest, run);
    }
  return g_strnfill (MAX (3, longest + 1), '`');
}

static void
append_code_block (GString    *out,
                   const char *language,
                   const char *text)
{
  g_autofree char *fence = fence_for (text);

  g_string_append_printf (out, "%s%s\n%s%s%s\n\n", fence, language, text,
                          text[0] != '\0' && text[strlen (text) - 1] != '\n' ? "\n" : "", fence);
}

static void
append_json_block (GString  *out,
                   JsonNode *node)
{
  g_autofree char *text = prs_json_to_string (node, TRUE);

  append_code_block (out, "json", text);
}

/* A table cell: one line, pipes escaped, links left as they are */
static void
append_cell (GString    *out,
             const char *text)
{
  for (const char *p = text; *p != '\0'; p++)
    {
      if (*p == '|' || *p == '\\')
        g_string_append_c (out, '\\');
      if (*p == '\n' || *p == '\r')
        g_string_append_c (out, ' ');
      else
        g_string_append_c (out, *p);
    }
}

static void
append_reply (GString    *out,
              const char *content)
{
  g_autoptr(GPtrArray) blocks = NULL;

  if (content == NULL || content[0] == '\0')
    return;
  /* Laid out as the window lays it out, up to the same limit */
  if (strlen (content) > PRS_LAYOUT_MAX_INPUT)
    {
      g_string_append_printf (out, "%s\n\n", content);
      return;
    }

  blocks = prs_layout_parse (content, -1);
  for (guint i = 0; i < blocks->len; i++)
    {
      PrsLayoutBlock *block = g_ptr_array_index (blocks, i);

      if (block->type == PRS_LAYOUT_BLOCK_TEXT)
        {
          g_string_append_printf (out, "%s\n\n", block->text);
          continue;
        }
      /* Translators: the header of a table of a reply's key-value pairs in an export */
      g_string_append_printf (out, "| %s | %s |\n| --- | --- |\n", _("Field"), _("Value"));
      for (guint r = 0; r < block->rows->len; r++)
        {
          PrsLayoutRow *row = &g_array_index (block->rows, PrsLayoutRow, r);

          g_string_append (out, "| **");
          append_cell (out, row->key);
          g_string_append (out, "** | ");
          append_cell (out, row->value);
          g_string_append (out, " |\n");
        }
      g_string_append_c (out, '\n');
    }
}

/* "2026-01-01T10:00:05.123Z" → "2026-01-01 10:00:05 UTC" */
static char *
format_time (const char *iso)
{
  g_autoptr(GDateTime) time = iso != NULL ? g_date_time_new_from_iso8601 (iso, NULL) : NULL;
  g_autoptr(GDateTime) utc = time != NULL ? g_date_time_to_utc (time) : NULL;

  return utc != NULL ? g_date_time_format (utc, "%Y-%m-%d %H:%M:%S UTC") : g_strdup (iso != NULL ? iso : "");
}

static const char *
author_of (Writer     *w,
           JsonObject *message)
{
  const char *kind = prs_json_object_get_string (message, "kind");
  const char *agent = prs_json_object_get_string (message, "agentId");
  const char *name = agent != NULL ? g_hash_table_lookup (w->agent_names, agent) : NULL;

  if (g_strcmp0 (kind, "user") == 0)
    /* Translators: the heading of the person's own message in an export */
    return _("You");
  if (g_strcmp0 (kind, "inbound") == 0)
    return _("From a workflow");
  if (name != NULL)
    return name;
  return agent != NULL ? agent : _("Assistant");
}

static void
append_context (Writer     *w,
                JsonObject *message)
{
  JsonNode *context = json_object_get_member (message, "context");
  g_autofree char *text = NULL;

  if (context == NULL || JSON_NODE_HOLDS_NULL (context))
    return;
  text = prs_json_to_canonical_string (context);
  /* A run's replies carry the context of its request: said once */
  if (g_strcmp0 (text, w->last_context) == 0)
    return;
  g_free (w->last_context);
  w->last_context = g_steal_pointer (&text);
  g_string_append_printf (w->buffer, "**%s**\n\n", _("Request Context"));
  append_json_block (w->buffer, context);
}

static void
append_tool (Writer     *w,
             JsonObject *message,
             gboolean    call)
{
  JsonObject *extra = prs_json_node_get_object (json_object_get_member (message, "extra"));
  const char *name = prs_json_object_get_string (extra, "name");
  const char *status = prs_json_object_get_string (message, "status");
  const char *content = prs_json_object_get_string (message, "content");
  const char *error_text = prs_json_object_get_string (extra, "error");
  JsonNode *arguments = extra != NULL ? json_object_get_member (extra, "arguments") : NULL;
  g_autoptr(JsonNode) result = NULL;
  g_autofree char *heading = NULL;

  if (name == NULL)
    name = prs_json_object_get_string (extra, "tool");
  if (name == NULL)
    name = content != NULL ? content : "";

  heading = prs_text_blank_controls (name, -1, FALSE);
  if (call)
    /* Translators: a section of an export: a tool's name and the call's status */
    g_string_append_printf (w->buffer, "### %s: %s", _("Tool call"), heading);
  else
    g_string_append_printf (w->buffer, "### %s: %s", _("Tool result"), heading);
  g_string_append_printf (w->buffer, "%s%s\n\n", status != NULL ? " · " : "", status != NULL ? status : "");

  if (call && arguments != NULL)
    {
      g_string_append_printf (w->buffer, "%s\n\n", _("Arguments:"));
      append_json_block (w->buffer, arguments);
    }
  if (error_text != NULL)
    g_string_append_printf (w->buffer, "%s %s\n\n", _("Error:"), error_text);
  if (!call && content != NULL)
    {
      result = prs_json_value_from_text (content);
      if (JSON_NODE_HOLDS_VALUE (result) && json_node_get_value_type (result) == G_TYPE_STRING)
        append_code_block (w->buffer, "", content);
      else
        append_json_block (w->buffer, result);
    }
}

static void
append_message (Writer     *w,
                JsonObject *message)
{
  const char *kind = prs_json_object_get_string (message, "kind");
  const char *content = prs_json_object_get_string (message, "content");
  const char *superseded = prs_json_object_get_string (message, "supersededAt");
  g_autofree char *time = format_time (prs_json_object_get_string (message, "createdAt"));

  if (g_strcmp0 (kind, "tool-call") == 0 || g_strcmp0 (kind, "tool-result") == 0)
    append_tool (w, message, g_strcmp0 (kind, "tool-call") == 0);
  else if (g_strcmp0 (kind, "notice") == 0)
    {
      g_auto(GStrv) lines = g_strsplit (content != NULL ? content : "", "\n", -1);

      for (guint i = 0; lines[i] != NULL; i++)
        g_string_append_printf (w->buffer, "> %s\n", lines[i]);
      g_string_append_c (w->buffer, '\n');
    }
  else
    {
      JsonObject *execution = prs_json_node_get_object (json_object_get_member (message, "execution"));
      const char *workflow = prs_json_object_get_string (execution, "workflowId");
      const char *run = prs_json_object_get_string (execution, "executionId");
      const char *error_text = prs_json_object_get_string (prs_json_node_get_object (json_object_get_member (message, "extra")), "error");

      g_string_append_printf (w->buffer, "## %s · %s\n\n", author_of (w, message), time);
      if (workflow != NULL)
        /* Translators: an inbound message's origin in an export: workflow id, execution id */
        g_string_append_printf (w->buffer, _("*Workflow %s · Execution %s*"), workflow, run != NULL ? run : "—");
      if (workflow != NULL)
        g_string_append (w->buffer, "\n\n");
      if (g_strcmp0 (kind, "assistant") == 0)
        append_reply (w->buffer, content);
      else if (content != NULL && content[0] != '\0')
        g_string_append_printf (w->buffer, "%s\n\n", content);
      if (g_strcmp0 (prs_json_object_get_string (message, "status"), "failed") == 0 && error_text != NULL)
        g_string_append_printf (w->buffer, "*%s %s*\n\n", _("The answer failed:"), error_text);
    }
  if (superseded != NULL)
    {
      g_autofree char *when = format_time (superseded);

      /* Translators: in an export, under a message Regenerate or Edit and Resend replaced */
      g_string_append_printf (w->buffer, _("*Replaced on %s.*"), when);
      g_string_append (w->buffer, "\n\n");
    }
  append_context (w, message);
}

static gboolean
write_markdown (Writer      *w,
                JsonObject  *conversation,
                GError     **error)
{
  const char *id = prs_json_object_get_string (conversation, "id");
  g_autoptr(GPtrArray) agents = prs_store_list_agents (w->store, error);
  g_autofree char *created = format_time (prs_json_object_get_string (conversation, "createdAt"));
  /* A heading and a list item are one line each: a slug from the API may
   * hold a line break (docs/ctl.md "Text output"), names stored before
   * titles were checked too */
  g_autofree char *title = prs_text_blank_controls (prs_json_object_get_string (conversation, "title"), -1, FALSE);
  g_autofree char *slug = prs_text_blank_controls (prs_json_object_get_string (conversation, "slug"), -1, FALSE);
  gint64 after = 0;

  if (agents == NULL)
    return FALSE;
  for (guint i = 0; i < agents->len; i++)
    {
      PrsAgent *agent = g_ptr_array_index (agents, i);

      g_hash_table_insert (w->agent_names, g_strdup (agent->id), prs_text_blank_controls (agent->name, -1, FALSE));
    }

  g_string_append_printf (w->buffer, "# %s\n\n", title);
  /* Translators: the lines under an export's title */
  g_string_append_printf (w->buffer, "- %s %s\n", _("Slug:"), slug);
  g_string_append_printf (w->buffer, "- %s %s\n", _("Conversation:"), id);
  g_string_append_printf (w->buffer, "- %s %s\n\n", _("Started:"), created);

  for (;;)
    {
      g_autoptr(JsonArray) page = prs_store_list_messages (w->store, id, after, PAGE, error);
      guint n;

      if (page == NULL)
        return FALSE;
      n = json_array_get_length (page);
      for (guint i = 0; i < n; i++)
        append_message (w, json_array_get_object_element (page, i));
      if (!flush (w, FALSE, error))
        return FALSE;
      if (n < PAGE)
        return TRUE;
      after = json_object_get_int_member (json_array_get_object_element (page, n - 1), "seq");
    }
}

/* ---- JSON ---- */

/* One row of @stmt as an object under its columns' names, its members
 * indented by @depth levels */
static void
append_row (GString      *out,
            sqlite3_stmt *stmt,
            guint         depth)
{
  int n = sqlite3_column_count (stmt);

  gboolean first = TRUE;

  g_string_append_c (out, '{');
  for (int i = 0; i < n; i++)
    {
      const char *name = sqlite3_column_name (stmt, i);

      /* The search index's key: this database's own, meaningless elsewhere */
      if (g_str_equal (name, "rowid"))
        continue;
      if (!first)
        g_string_append_c (out, ',');
      first = FALSE;
      g_string_append_c (out, '\n');
      for (guint d = 0; d < depth; d++)
        g_string_append (out, "  ");
      prs_json_append_string (out, name);
      g_string_append (out, ": ");
      switch (sqlite3_column_type (stmt, i))
        {
        case SQLITE_INTEGER:
          g_string_append_printf (out, "%" G_GINT64_FORMAT, (gint64) sqlite3_column_int64 (stmt, i));
          break;
        case SQLITE_FLOAT:
          {
            g_autoptr(JsonNode) number = json_node_init_double (json_node_alloc (), sqlite3_column_double (stmt, i));

            prs_json_append (out, number, PRS_JSON_COMPACT, G_MAXSIZE);
          }
          break;
        case SQLITE_NULL:
          g_string_append (out, "null");
          break;
        default:
          {
            const char *text = (const char *) sqlite3_column_text (stmt, i);
            g_autoptr(JsonNode) value = NULL;

            /* Columns that hold JSON, as values, when they are JSON */
            if (g_str_has_suffix (name, "_json"))
              value = prs_json_parse_strict (text, strlen (text), PRS_JSON_DEFAULT_MAX_DEPTH, NULL);
            if (value != NULL)
              prs_json_append (out, value, PRS_JSON_COMPACT, G_MAXSIZE);
            else
              prs_json_append_string (out, text);
          }
        }
    }
  g_string_append_c (out, '\n');
  for (guint d = 1; d < depth; d++)
    g_string_append (out, "  ");
  g_string_append_c (out, '}');
}

/* "NAME": [rows of @sql bound to @id] */
static gboolean
append_rows (Writer      *w,
             const char  *member,
             const char  *sql,
             const char  *id,
             gboolean     last,
             GError     **error)
{
  g_autoptr(PrsStmt) stmt = prs_store_prepare_cached (w->store, sql, error);
  gboolean first = TRUE;
  int row;

  if (stmt == NULL)
    return FALSE;
  prs_store_bind_text (stmt, 1, id);
  g_string_append_printf (w->buffer, "  \"%s\": [", member);
  while ((row = prs_store_step_row (w->store, stmt, N_("Could not read the conversation"),
                                    error)) == 1)
    {
      g_string_append (w->buffer, first ? "\n    " : ",\n    ");
      first = FALSE;
      append_row (w->buffer, stmt, 3);
      if (!flush (w, FALSE, error))
        return FALSE;
    }
  if (row < 0)
    return FALSE;
  g_string_append_printf (w->buffer, "%s]%s\n", first ? "" : "\n  ", last ? "" : ",");
  return TRUE;
}

static gboolean
write_json (Writer      *w,
            const char  *id,
            GError     **error)
{
  g_autoptr(PrsStmt) stmt = NULL;

  g_string_append_printf (w->buffer, "{\n  \"format\": \"prosponsive-conversation\",\n  \"version\": 1,\n"
                          "  \"schemaVersion\": %d,\n  \"conversation\": ",
                          prs_store_get_schema_version (w->store));
  stmt = prs_store_prepare_cached (w->store, "SELECT * FROM conversations WHERE id = ?1", error);
  if (stmt == NULL)
    return FALSE;
  prs_store_bind_text (stmt, 1, id);
  if (prs_store_step_row (w->store, stmt, N_("Could not read the conversation"), error) != 1)
    return FALSE;
  append_row (w->buffer, stmt, 2);
  g_clear_pointer (&stmt, prs_stmt_release);
  g_string_append (w->buffer, ",\n");

  return append_rows (w, "messages", "SELECT * FROM messages WHERE conversation_id = ?1 ORDER BY seq",
                      id, FALSE, error) &&
         append_rows (w, "runs", "SELECT * FROM runs WHERE conversation_id = ?1 ORDER BY created_at, id",
                      id, FALSE, error) &&
         append_rows (w, "toolCalls",
                      "SELECT t.* FROM tool_calls t JOIN runs r ON r.id = t.run_id"
                      " WHERE r.conversation_id = ?1 ORDER BY r.created_at, r.id, t.round, t.position, t.id",
                      id, FALSE, error) &&
         append_rows (w, "contextFields", "SELECT * FROM context_fields WHERE conversation_id = ?1 ORDER BY path",
                      id, TRUE, error) &&
         (g_string_append (w->buffer, "}\n"), TRUE);
}

/* ---- both ---- */

gboolean
prs_store_export_conversation (PrsStore         *self,
                               const char       *conversation_id,
                               PrsExportFormat   format,
                               GOutputStream    *out,
                               GCancellable     *cancellable,
                               GError          **error)
{
  g_autoptr(JsonObject) conversation = NULL;
  Writer w = { 0 };
  gboolean ok;

  g_return_val_if_fail (PRS_IS_STORE (self), FALSE);
  PRS_ASSERT_OWNER (&self->owner);
  g_return_val_if_fail (conversation_id != NULL, FALSE);
  g_return_val_if_fail (G_IS_OUTPUT_STREAM (out), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  /* One snapshot: what is written arriving meanwhile is not half in it */
  if (!prs_store_exec_cached (self, "BEGIN", N_("Could not read the conversation"), error))
    return FALSE;

  conversation = prs_store_get_conversation (self, conversation_id, error);
  if (conversation == NULL)
    {
      if (error != NULL && *error == NULL)
        g_set_error (error, PRS_ERROR, PRS_ERROR_NOT_FOUND,
                     _("There is no conversation “%s”."), conversation_id);
      prs_store_rollback (self);
      return FALSE;
    }

  w.store = self;
  w.out = out;
  w.cancellable = cancellable;
  w.buffer = g_string_sized_new (FLUSH_BYTES + 4096);
  w.agent_names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  w.blank_controls = format == PRS_EXPORT_MARKDOWN;
  ok = format == PRS_EXPORT_JSON ? write_json (&w, conversation_id, error)
                                 : write_markdown (&w, conversation, error);
  ok = ok && flush (&w, TRUE, error);

  g_string_free (w.buffer, TRUE);
  g_hash_table_unref (w.agent_names);
  g_free (w.last_context);
  prs_store_rollback (self);
  return ok;
}

gboolean
prs_store_export_conversation_to_file (PrsStore         *self,
                                       const char       *conversation_id,
                                       PrsExportFormat   format,
                                       const char       *path,
                                       GCancellable     *cancellable,
                                       GError          **error)
{
  g_autoptr(PrsAtomicFile) file = NULL;

  g_return_val_if_fail (PRS_IS_STORE (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  file = prs_atomic_file_new (path, error);
  return file != NULL &&
         prs_store_export_conversation (self, conversation_id, format, prs_atomic_file_get_stream (file),
                                        cancellable, error) &&
         prs_atomic_file_commit (file, error);
}
