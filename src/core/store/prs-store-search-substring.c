/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-store-search-substring.c: the words of a search that the index
 * cannot find (docs/conversations.md "Search", docs/storage.md "The
 * search index"). The index's tokenizer, unicode61, ends a word at a space
 * or punctuation and drops emoji: a Chinese or Japanese sentence, written
 * without spaces, is one word there ("明日東京に行きます"), a Korean word
 * keeps its particle ("서울에서"), and "🚀" is no word at all. So a typed
 * word with such characters is looked for as a part of the text, in the
 * messages themselves, newest first; the other words of the same search
 * still go through the index and narrow it. A bigram or trigram index
 * was measured instead and not kept (bench/RESULTS.md): most words in
 * those scripts are one or two characters, which a trigram index cannot
 * look up, and a bigram tokenizer of our own would have to be registered
 * on every connection that writes a message, the sqlite3 shell's too. */
#include "config.h"

#include <string.h>
#include <glib/gi18n-lib.h>

#include "prs-store-internal.h"

/* Words looked for as parts of the text, at most (the statement's
 * parameters); the others of a longer search are left out */
#define SUBSTRING_TERMS 4
/* … as many as prs_store_search_substrings's statement has */
G_STATIC_ASSERT (SUBSTRING_TERMS == 4);
/* A hit's snippet: characters before the first match, and in all */
#define SNIPPET_CHARS_BEFORE 24
#define SNIPPET_CHARS 96

/* Characters of scripts written without spaces between words (or, for
 * Hangul, with a word's particles joined to it), and symbols (emoji), which
 * unicode61 reads as separators */
static gboolean
is_substring_char (gunichar c)
{
  switch (g_unichar_get_script (c))
    {
    case G_UNICODE_SCRIPT_HAN:
    case G_UNICODE_SCRIPT_HIRAGANA:
    case G_UNICODE_SCRIPT_KATAKANA:
    case G_UNICODE_SCRIPT_HANGUL:
    case G_UNICODE_SCRIPT_BOPOMOFO:
    case G_UNICODE_SCRIPT_THAI:
    case G_UNICODE_SCRIPT_LAO:
    case G_UNICODE_SCRIPT_KHMER:
    case G_UNICODE_SCRIPT_MYANMAR:
      return TRUE;
    default:
      return g_unichar_type (c) == G_UNICODE_OTHER_SYMBOL;
    }
}

static gboolean
is_substring_word (const char *word)
{
  for (const char *p = word; *p != '\0'; p = g_utf8_next_char (p))
    if (is_substring_char (g_utf8_get_char (p)))
      return TRUE;
  return FALSE;
}

GPtrArray *
prs_search_split_substrings (const char  *text,
                             char       **out_words)
{
  g_auto(GStrv) words = NULL;
  g_autoptr(GPtrArray) terms = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GString) rest = g_string_new (NULL);
  gboolean last_is_term = FALSE;

  if (!g_utf8_validate (text, -1, NULL))
    return NULL;
  words = g_strsplit_set (text, " \t\n\r\f\v", -1);
  for (guint i = 0; words[i] != NULL; i++)
    {
      if (words[i][0] == '\0')
        continue;
      last_is_term = is_substring_word (words[i]);
      if (!last_is_term)
        g_string_append_printf (rest, "%s%s", rest->len > 0 ? " " : "", words[i]);
      else if (terms->len < SUBSTRING_TERMS)
        g_ptr_array_add (terms, g_strdup (words[i]));
    }
  if (terms->len == 0)
    return NULL;
  /* The index's last word is still being typed only when it ends the
   * search (prs_search_plain_query) */
  if (last_is_term || g_ascii_isspace (text[strlen (text) - 1]))
    g_string_append_c (rest, ' ');
  *out_words = g_string_free (g_steal_pointer (&rest), FALSE);
  return g_steal_pointer (&terms);
}

/* @text with every occurrence of @terms between @start and @end */
static char *
mark_terms (const char *text,
            GPtrArray  *terms,
            const char *start,
            const char *end)
{
  g_autoptr(GString) out = g_string_sized_new (strlen (text) + 16);
  const char *p = text;

  while (*p != '\0')
    {
      gsize length = 0;

      for (guint i = 0; i < terms->len; i++)
        {
          const char *term = g_ptr_array_index (terms, i);
          gsize n = strlen (term);

          if (n > length && strncmp (p, term, n) == 0)
            length = n;
        }
      if (length > 0)
        {
          g_string_append_printf (out, "%s%.*s%s", start, (int) length, p, end);
          p += length;
          continue;
        }
      g_string_append_len (out, p, g_utf8_next_char (p) - p);
      p = g_utf8_next_char (p);
    }
  return g_string_free (g_steal_pointer (&out), FALSE);
}

/* The characters around the first match of @snippet: words written
 * without spaces cannot be counted as FTS5's snippets count them */
static char *
cut_chars_around (const char *snippet)
{
  const char *mark = strstr (snippet, PRS_SEARCH_MARK_START);
  const char *start = mark != NULL ? mark : snippet;
  const char *end;

  for (guint i = 0; i < SNIPPET_CHARS_BEFORE && start > snippet; i++)
    start = g_utf8_prev_char (start);
  end = start;
  for (guint i = 0; i < SNIPPET_CHARS && *end != '\0'; i++)
    end = g_utf8_next_char (end);
  return g_strdup_printf ("%s%.*s%s", start > snippet && !g_str_has_prefix (start, "…") ? "…" : "",
                          (int) (end - start), start, *end != '\0' ? "…" : "");
}

/* The snippet of the hit @hit, at @rowid: the first of its text, tool
 * call and context that holds the first term, its terms marked */
static gboolean
substring_snippet (PrsStore      *self,
                   gint64         rowid,
                   GPtrArray     *terms,
                   PrsSearchHit  *hit,
                   GError       **error)
{
  g_autoptr(PrsStmt) stmt = NULL;
  g_autofree char *marked = NULL;
  const char *text = NULL;
  int found = -1, row;

  stmt = prs_store_prepare_cached (self,
                        "SELECT body, tools, context FROM message_search_source WHERE message_rowid = ?1",
                        error);
  if (stmt == NULL)
    return FALSE;
  sqlite3_bind_int64 (stmt, 1, rowid);
  row = prs_store_step_row (self, stmt, N_("Could not search the messages"), error);
  if (row < 0)
    return FALSE;
  for (int column = 0; row == 1 && column < 3 && text == NULL; column++)
    {
      const char *value = prs_store_column_text (stmt, column);

      if (value != NULL && strstr (value, g_ptr_array_index (terms, 0)) != NULL)
        {
          text = value;
          found = column;
        }
    }
  if (text == NULL)
    {
      hit->snippet = g_strdup ("");
      return TRUE;
    }
  marked = mark_terms (text, terms, PRS_SEARCH_MARK_START, PRS_SEARCH_MARK_END);
  /* A reply's text is Markdown: read as a reader sees it, as the index's
   * snippets are (prs_search_reply_snippet) */
  if (found == 0 && g_strcmp0 (hit->kind, "assistant") == 0)
    {
      g_autofree char *highlighted = mark_terms (text, terms, PRS_SEARCH_MARKDOWN_MARK_START_UTF8,
                                                 PRS_SEARCH_MARKDOWN_MARK_END_UTF8);
      g_autofree char *plain = prs_search_reply_snippet (highlighted, marked);

      hit->snippet = cut_chars_around (plain);
    }
  else
    hit->snippet = cut_chars_around (marked);
  return TRUE;
}

GPtrArray *
prs_store_search_substrings (PrsStore    *self,
                             const char  *match,
                             GPtrArray   *terms,
                             guint        limit,
                             GError     **error)
{
  g_autoptr(PrsStmt) stmt = NULL;
  g_autoptr(GPtrArray) hits = g_ptr_array_new_with_free_func ((GDestroyNotify) prs_search_hit_free);
  g_autoptr(GArray) rowids = g_array_new (FALSE, FALSE, sizeof (gint64));

  /* The messages newest first, read whole; with other words (?1), only
   * those the index finds by them: far fewer for most words, and for a
   * word in half of a million messages still less than a scan that looks
   * each message up in the index's matches (bench/RESULTS.md) */
#define HOLDS(n) " AND (?" #n " IS NULL OR instr (s.body, ?" #n ") OR instr (s.tools, ?" #n ")" \
                 " OR instr (s.context, ?" #n "))"
  if (match != NULL)
    stmt = prs_store_prepare_cached (self,
                          "SELECT f.rowid FROM message_search f"
                          " JOIN message_search_source s ON s.message_rowid = f.rowid"
                          " WHERE message_search MATCH ?1"
                          HOLDS (2) HOLDS (3) HOLDS (4) HOLDS (5)
                          " ORDER BY f.rowid DESC",
                          error);
  else
    stmt = prs_store_prepare_cached (self,
                          "SELECT s.message_rowid FROM message_search_source s WHERE ?1 IS NULL"
                          HOLDS (2) HOLDS (3) HOLDS (4) HOLDS (5)
                          " ORDER BY s.message_rowid DESC",
                          error);
#undef HOLDS
  if (stmt == NULL)
    return NULL;
  prs_store_bind_text (stmt, 1, match);
  for (guint i = 0; i < terms->len; i++)
    prs_store_bind_text (stmt, 2 + i, g_ptr_array_index (terms, i));
  if (!prs_store_search_collect_hits (self, stmt, limit, -1, hits, rowids, error))
    return NULL;
  g_clear_pointer (&stmt, prs_stmt_release);
  for (guint i = 0; i < hits->len; i++)
    if (!substring_snippet (self, g_array_index (rowids, gint64, i), terms,
                            g_ptr_array_index (hits, i), error))
      return NULL;
  return g_steal_pointer (&hits);
}
