/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-ctl-conversations.c: `prosponsive-ctl conversation list|rename|
 * delete|archive|unarchive|pin|unpin`, `search QUERY` and `export SLUG`
 * (docs/ctl.md). A conversation is named by its slug, as `resolve` stored
 * it (trimmed, then matched exactly). */
#include "config.h"

#include <stdio.h>
#include <glib/gi18n.h>
#include <gio/gunixoutputstream.h>

#include "prs-control-chars.h"
#include "prs-conversation.h"
#include "prs-ctl.h"
#include "prs-error.h"
#include "prs-json.h"
#include "prs-store.h"

/* The id of the conversation @slug names, or NULL with @error */
static char *
find_conversation (PrsStore    *store,
                   const char  *slug,
                   GError     **error)
{
  g_autofree char *trimmed = g_strstrip (g_strdup (slug));
  char *id = NULL;

  if (!prs_store_lookup_conversation_slug (store, trimmed, &id, error))
    return NULL;
  if (id == NULL)
    g_set_error (error, PRS_ERROR, PRS_ERROR_NOT_FOUND,
                 _("There is no conversation “%s” (see “conversation list”)."), trimmed);
  return id;
}

/* [{id, slug, title, agentId, messageCount, pinned, archived, updatedAt}] */
static JsonNode *
conversations_json (JsonArray *rows)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();

  json_builder_begin_array (builder);
  for (guint i = 0; i < json_array_get_length (rows); i++)
    {
      JsonObject *row = json_array_get_object_element (rows, i);

      json_builder_begin_object (builder);
      prs_json_builder_add_string_member (builder, "id", prs_json_object_get_string (row, "id"));
      prs_json_builder_add_string_member (builder, "slug", prs_json_object_get_string (row, "slug"));
      prs_json_builder_add_string_member (builder, "title", prs_json_object_get_string (row, "title"));
      prs_json_builder_add_string_member (builder, "agentId", prs_json_object_get_string (row, "defaultAgent"));
      json_builder_set_member_name (builder, "messageCount");
      json_builder_add_int_value (builder, prs_json_object_get_int (row, "messageCount", 0));
      json_builder_set_member_name (builder, "pinned");
      json_builder_add_boolean_value (builder, prs_json_object_get_bool (row, "pinned", FALSE));
      json_builder_set_member_name (builder, "archived");
      json_builder_add_boolean_value (builder, prs_json_object_get_bool (row, "archived", FALSE));
      prs_json_builder_add_string_member (builder, "updatedAt", prs_json_object_get_string (row, "updatedAt"));
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);
  return json_builder_get_root (builder);
}

static int
conversation_list (PrsStore *store,
                   gboolean  json)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonArray) rows = prs_store_list_conversations (store, &error);

  if (rows == NULL)
    return prs_ctl_fail (error);
  if (json)
    {
      g_autoptr(JsonNode) node = conversations_json (rows);

      prs_ctl_print_json (node);
      return EXIT_SUCCESS;
    }

  if (json_array_get_length (rows) == 0)
    g_print ("%s\n", _("No conversations."));
  for (guint i = 0; i < json_array_get_length (rows); i++)
    {
      JsonObject *row = json_array_get_object_element (rows, i);
      /* One line each, whatever an older version stored: docs/ctl.md "Text output" */
      g_autofree char *slug = prs_text_blank_controls (prs_json_object_get_string (row, "slug"), -1, FALSE);
      g_autofree char *title = prs_text_blank_controls (prs_json_object_get_string (row, "title"), -1, FALSE);
      gint64 count = prs_json_object_get_int (row, "messageCount", 0);
      g_autofree char *messages = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u message", "%u messages",
                                                                (gulong) count), (guint) count);

      g_print ("%s", slug);
      if (g_strcmp0 (slug, title) != 0)
        g_print (" — %s", title);
      g_print (" (%s)", messages);
      if (prs_json_object_get_bool (row, "pinned", FALSE))
        /* Translators: after a conversation in `conversation list` */
        g_print (" [%s]", _("pinned"));
      if (prs_json_object_get_bool (row, "archived", FALSE))
        g_print (" [%s]", _("archived"));
      g_print ("\n");
    }
  return EXIT_SUCCESS;
}

/* rename, delete, archive, unarchive, pin, unpin of @slug */
static int
conversation_change (PrsStore    *store,
                     const char  *verb,
                     const char  *slug,
                     const char  *title)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *id = find_conversation (store, slug, &error);
  gboolean ok;

  if (id == NULL)
    return prs_ctl_fail (error);

  if (g_str_equal (verb, "rename"))
    ok = prs_store_rename_conversation (store, id, title, &error);
  else if (g_str_equal (verb, "delete"))
    ok = prs_store_delete_conversation (store, id, &error);
  else if (g_str_equal (verb, "archive") || g_str_equal (verb, "unarchive"))
    ok = prs_store_set_conversation_archived (store, id, g_str_equal (verb, "archive"), &error);
  else
    ok = prs_store_set_conversation_pinned (store, id, g_str_equal (verb, "pin"), &error);
  if (!ok)
    return prs_ctl_fail (error);

  if (g_str_equal (verb, "rename"))
    /* Translators: the slug, then the new title */
    g_print (_("“%s” is now called “%s”; workflows still find it as “%s”.\n"), slug, title, slug);
  else if (g_str_equal (verb, "delete"))
    g_print (_("Deleted “%s” and its messages. A workflow that resolves it again starts a new conversation.\n"),
             slug);
  else if (g_str_equal (verb, "archive"))
    g_print (_("Archived “%s”.\n"), slug);
  else if (g_str_equal (verb, "unarchive"))
    g_print (_("“%s” is no longer archived.\n"), slug);
  else if (g_str_equal (verb, "pin"))
    g_print (_("Pinned “%s”.\n"), slug);
  else
    g_print (_("Unpinned “%s”.\n"), slug);
  return EXIT_SUCCESS;
}

int
prs_ctl_cmd_conversation (PrsCtl  *ctl,
                          int      argc,
                          char   **argv)
{
  static const char * const one_slug[] = { "delete", "archive", "unarchive", "pin", "unpin", NULL };
  gboolean json = FALSE;
  GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("list: print JSON"), NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context =
    g_option_context_new (_("list|rename SLUG NEW|delete SLUG|archive SLUG|unarchive SLUG|pin SLUG|unpin SLUG"
                            " — the conversations"));
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsStore) store = NULL;

  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_option_context_set_description (context,
    _("SLUG is the name workflows resolve. “delete” removes the conversation at once with its "
      "messages, runs, tool calls and Request Context fields; there is no undo. Archived "
      "conversations still receive messages."));
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return prs_ctl_usage_error (context, error->message);

  if (!((argc == 2 && g_strcmp0 (argv[1], "list") == 0) ||
        (argc == 4 && g_strcmp0 (argv[1], "rename") == 0) ||
        (argc == 3 && g_strv_contains (one_slug, argv[1]))))
    return prs_ctl_usage_error (context, _("Use “conversation list [--json]”, “conversation rename SLUG NEW” "
                                           "or “conversation delete|archive|unarchive|pin|unpin SLUG”."));

  /* A title that would be refused is input the command does not take
   * (exit 2, docs/ctl.md), empty, too long or with a tab alike; checked as
   * it will be stored, trimmed */
  if (argc == 4)
    {
      g_autofree char *trimmed = g_strstrip (g_strdup (argv[3]));

      if (!prs_conversation_check_title (trimmed, &error))
        {
          g_printerr ("%s\n", error->message);
          return PRS_CTL_EXIT_USAGE;
        }
    }

  store = prs_ctl_open_existing_store (ctl, &error);
  if (store == NULL)
    return prs_ctl_fail (error);
  if (argc == 2)
    return conversation_list (store, json);
  if (argc == 4)
    {
      /* What is stored, and so printed: the title trimmed */
      g_autofree char *title = g_strstrip (g_strdup (argv[3]));

      return conversation_change (store, argv[1], argv[2], title);
    }
  return conversation_change (store, argv[1], argv[2], NULL);
}

/* ---------------------------------------------------------------- search */

static JsonNode *
hit_json (PrsSearchHit *hit)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(GArray) ranges = NULL;
  g_autofree char *snippet = prs_search_snippet_to_text (hit->snippet, &ranges);

  json_builder_begin_object (builder);
  prs_json_builder_add_string_member (builder, "conversationId", hit->conversation_id);
  prs_json_builder_add_string_member (builder, "slug", hit->conversation_slug);
  prs_json_builder_add_string_member (builder, "title", hit->conversation_title);
  prs_json_builder_add_string_member (builder, "messageId", hit->message_id);
  json_builder_set_member_name (builder, "seq");
  json_builder_add_int_value (builder, hit->seq);
  prs_json_builder_add_string_member (builder, "kind", hit->kind);
  prs_json_builder_add_string_member (builder, "createdAt", hit->created_at);
  prs_json_builder_add_string_member (builder, "snippet", snippet);
  /* Where the matches are in the snippet, in characters: [start, end) */
  json_builder_set_member_name (builder, "highlights");
  json_builder_begin_array (builder);
  for (guint i = 0; i < ranges->len; i++)
    {
      PrsSearchRange *range = &g_array_index (ranges, PrsSearchRange, i);

      json_builder_begin_array (builder);
      json_builder_add_int_value (builder, range->start);
      json_builder_add_int_value (builder, range->end);
      json_builder_end_array (builder);
    }
  json_builder_end_array (builder);
  json_builder_end_object (builder);
  return json_builder_get_root (builder);
}

/* The snippet with each match in [brackets] */
static char *
bracketed (const char *snippet)
{
  g_autoptr(GArray) ranges = NULL;
  g_autofree char *text = prs_search_snippet_to_text (snippet, &ranges);
  GString *out = g_string_new (NULL);
  glong at = 0;

  for (guint i = 0; i < ranges->len; i++)
    {
      PrsSearchRange *range = &g_array_index (ranges, PrsSearchRange, i);
      g_autofree char *before = g_utf8_substring (text, at, range->start);
      g_autofree char *match = g_utf8_substring (text, range->start, range->end);

      g_string_append_printf (out, "%s[%s]", before, match);
      at = range->end;
    }
  {
    g_autofree char *rest = g_utf8_substring (text, at, g_utf8_strlen (text, -1));

    g_string_append (out, rest);
  }
  return g_string_free (out, FALSE);
}

int
prs_ctl_cmd_search (PrsCtl  *ctl,
                    int      argc,
                    char   **argv)
{
  gboolean json = FALSE;
  int limit = 50;
  GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print the hits as JSON"), NULL },
    { "limit", 0, 0, G_OPTION_ARG_INT, &limit, N_("At most N hits (default 50)"), N_("N") },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new (_("QUERY — find messages in every conversation"));
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsStore) store = NULL;
  g_autoptr(GPtrArray) hits = NULL;

  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_option_context_set_description (context,
    _("Finds message text, tool names and arguments, and Request Context values, best match first. "
      "Words are matched whole, the last one also as the start of a word; FTS5 query syntax "
      "(\"a phrase\", OR, NOT, prefix*) is used when the query is written in it."));
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return prs_ctl_usage_error (context, error->message);
  if (argc != 2)
    return prs_ctl_usage_error (context, _("search takes one query (quote it when it has spaces)."));
  if (limit < 1 || limit > 1000)
    return prs_ctl_usage_error (context, _("--limit is a number from 1 to 1000."));

  store = prs_ctl_open_existing_store (ctl, &error);
  if (store == NULL || (hits = prs_store_search (store, argv[1], (guint) limit, NULL, &error)) == NULL)
    return prs_ctl_fail (error);

  if (json)
    {
      g_autoptr(JsonArray) array = json_array_new ();
      g_autoptr(JsonNode) node = json_node_new (JSON_NODE_ARRAY);

      for (guint i = 0; i < hits->len; i++)
        json_array_add_element (array, hit_json (g_ptr_array_index (hits, i)));
      json_node_set_array (node, array);
      prs_ctl_print_json (node);
      return EXIT_SUCCESS;
    }

  if (hits->len == 0)
    g_print ("%s\n", _("Nothing found."));
  for (guint i = 0; i < hits->len; i++)
    {
      PrsSearchHit *hit = g_ptr_array_index (hits, i);
      g_autofree char *text = bracketed (hit->snippet);

      g_print ("%s #%" G_GINT64_FORMAT ": %s\n", hit->conversation_slug, hit->seq, text);
    }
  return EXIT_SUCCESS;
}

/* ---------------------------------------------------------------- export */

int
prs_ctl_cmd_export (PrsCtl  *ctl,
                    int      argc,
                    char   **argv)
{
  g_autofree char *format = NULL;
  g_autofree char *output = NULL;
  GOptionEntry entries[] = {
    { "format", 0, 0, G_OPTION_ARG_STRING, &format, N_("md (default) or json"), N_("FORMAT") },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, N_("Write to FILE instead of standard output"), N_("FILE") },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new (_("SLUG — a conversation as Markdown or JSON"));
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsStore) store = NULL;
  g_autofree char *id = NULL;
  PrsExportFormat kind;

  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_option_context_set_description (context,
    _("Markdown is for reading: replies laid out as in the window (key-value grids as tables), tool "
      "calls and results as sections, the Request Context as a JSON block. JSON holds everything "
      "stored about the conversation: its messages, runs, tool calls and Request Context fields. "
      "FILE is written whole or not at all, readable only by you; a symbolic link is refused."));
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return prs_ctl_usage_error (context, error->message);
  if (argc != 2)
    return prs_ctl_usage_error (context, _("export takes one conversation's slug."));
  if (format == NULL || g_str_equal (format, "md") || g_str_equal (format, "markdown"))
    kind = PRS_EXPORT_MARKDOWN;
  else if (g_str_equal (format, "json"))
    kind = PRS_EXPORT_JSON;
  else
    return prs_ctl_usage_error (context, _("--format is md or json."));

  store = prs_ctl_open_existing_store (ctl, &error);
  if (store == NULL || (id = find_conversation (store, argv[1], &error)) == NULL)
    return prs_ctl_fail (error);

  if (output != NULL)
    {
      if (!prs_store_export_conversation_to_file (store, id, kind, output, NULL, &error))
        return prs_ctl_fail (error);
    }
  else
    {
      g_autoptr(GOutputStream) out = g_unix_output_stream_new (1, FALSE);

      if (!prs_store_export_conversation (store, id, kind, out, NULL, &error))
        return prs_ctl_fail (error);
    }
  return EXIT_SUCCESS;
}
