/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-store-search.c: finding messages (docs/conversations.md). The index is
 * SQLite's FTS5 (migration 7: message text, a tool call's name and
 * arguments, an inbound message's Request Context values, kept by triggers
 * in the transaction of every write); results are ranked by bm25 and carry
 * a snippet with the matches marked.
 *
 * What a person types is first tried as FTS5's own query syntax when it
 * uses any (quotes, OR, prefix stars, column filters…); when SQLite refuses
 * it, or it uses none, each word is searched as plain text, quoted, the
 * last one as a prefix (the word still being typed). A query is never an
 * error. A plain word the index cannot find — Chinese, Japanese, Korean,
 * emoji — is looked for in the text itself (prs-store-search-substring.c). */
#include "config.h"

#include <string.h>
#include <glib/gi18n-lib.h>

#include "prs-control-chars.h"
#include "prs-markdown-text.h"
#include "prs-store-internal.h"

/* Tokens of context around a match in a snippet */
#define SNIPPET_TOKENS 16
/* Words of a reply's snippet before its first match */
#define SNIPPET_WORDS_BEFORE 5
/* A reply longer than this is not read whole for its snippet: md4c reads
 * a window of it around the first match instead (long_reply_window) */
#define SNIPPET_MAX_MARKDOWN (64 * 1024)
/* … the most of it that window takes on each side of the match, in bytes:
 * more than a snippet's words ever need, and a bounded cost per hit */
#define SNIPPET_WINDOW 4096
/* … and the most lines of it that may be link reference definitions it
 * looks at (carried_definitions) */
#define SNIPPET_DEFINITIONS 256
/* How a reply's matches are marked while md4c reads it: U+E000, U+E001
 * (the query below names them in decimal; PRS_SEARCH_MARKDOWN_MARK_*) */
#define MARKDOWN_MARK_START 0xE000
#define MARKDOWN_MARK_END   0xE001
/* The newest matches ranked (see collect_hits) */
#define PRS_SEARCH_CANDIDATES 10000

void
prs_search_hit_free (PrsSearchHit *hit)
{
  if (hit == NULL)
    return;
  g_free (hit->conversation_id);
  g_free (hit->conversation_slug);
  g_free (hit->conversation_title);
  g_free (hit->message_id);
  g_free (hit->kind);
  g_free (hit->created_at);
  g_free (hit->snippet);
  g_free (hit);
}

static gboolean
has_word_character (const char *token)
{
  for (const char *p = token; *p != '\0'; p = g_utf8_next_char (p))
    if (g_unichar_isalnum (g_utf8_get_char (p)))
      return TRUE;
  return FALSE;
}

/* @text's words, each quoted; the last one followed by @last_suffix when
 * it is still being typed (no white space after it), or replaced by
 * @last_group when that is given */
static char *
build_plain (const char *text,
             const char *last_suffix,
             const char *last_group)
{
  g_auto(GStrv) tokens = NULL;
  g_autoptr(GString) query = g_string_new (NULL);
  gboolean typing;
  guint last = 0;

  if (!g_utf8_validate (text, -1, NULL))
    return g_strdup ("");
  tokens = g_strsplit_set (text, " \t\n\r\f\v", -1);
  /* The last word is still being typed unless white space follows it */
  typing = text[0] != '\0' && !g_ascii_isspace (text[strlen (text) - 1]);
  for (guint i = 0; tokens[i] != NULL; i++)
    if (has_word_character (tokens[i]))
      last = i;

  for (guint i = 0; tokens[i] != NULL; i++)
    {
      if (!has_word_character (tokens[i]))
        continue;
      /* FTS5 wants AND spelled out before a group in parentheses */
      if (query->len > 0)
        g_string_append (query, last_group != NULL ? " AND " : " ");
      if (typing && i == last && last_group != NULL)
        {
          g_string_append (query, last_group);
          continue;
        }
      g_string_append_c (query, '"');
      for (const char *p = tokens[i]; *p != '\0'; p++)
        {
          if (*p == '"')
            g_string_append_c (query, '"');
          g_string_append_c (query, *p);
        }
      g_string_append_c (query, '"');
      if (typing && i == last)
        g_string_append (query, last_suffix);
    }

  return g_string_free (g_steal_pointer (&query), FALSE);
}

char *
prs_search_plain_query (const char *text)
{
  g_return_val_if_fail (text != NULL, NULL);
  return build_plain (text, "*", NULL);
}

/* The last word of @text as the index keeps its words (tokenizer
 * unicode61 with remove_diacritics 2: lower case, no accents), or NULL
 * when it is more than one word there (letters and digits only) */
static char *
index_word (const char *text)
{
  const char *end = text + strlen (text);
  const char *start = end;
  g_autofree char *decomposed = NULL;
  GString *word;

  while (start > text && !g_ascii_isspace (start[-1]))
    start--;
  if (start == end)
    return NULL;
  decomposed = g_utf8_normalize (start, end - start, G_NORMALIZE_NFD);
  if (decomposed == NULL)
    return NULL;
  word = g_string_new (NULL);
  for (const char *p = decomposed; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (g_unichar_ismark (c))
        continue;
      if (!g_unichar_isalnum (c))
        {
          g_string_free (word, TRUE);
          return NULL;
        }
      g_string_append_unichar (word, g_unichar_tolower (c));
    }
  return g_string_free (word, FALSE);
}

/* The query for snippets of a plain search: a snippet of a prefix search
 * reads every word of the prefix's messages again, per message; the words
 * the prefix stands for, named, cost nothing. NULL when there is nothing
 * to expand (the search's own query is used). */
static char *
snippet_query (PrsStore   *self,
               const char *text)
{
  g_autoptr(PrsStmt) stmt = NULL;
  g_autofree char *word = index_word (text);
  g_autofree char *above = NULL;
  g_autoptr(GString) group = NULL;
  int row;

  if (word == NULL || text[strlen (text) - 1] == ' ')
    return NULL;
  above = g_strconcat (word, "\xf4\x8f\xbf\xbf", NULL);
  stmt = prs_store_prepare_cached (self,
                        "SELECT term FROM"
                        " (SELECT term, doc FROM message_search_terms WHERE term >= ?1 AND term < ?2 LIMIT 2000)"
                        " ORDER BY doc DESC LIMIT 24",
                        NULL);
  if (stmt == NULL)
    return NULL;
  prs_store_bind_text (stmt, 1, word);
  prs_store_bind_text (stmt, 2, above);
  group = g_string_new ("(");
  while ((row = prs_store_step_row (self, stmt, N_("Could not search the messages"), NULL)) == 1)
    g_string_append_printf (group, "%s\"%s\"", group->len > 1 ? " OR " : "", prs_store_column_text (stmt, 0));
  if (row < 0 || group->len == 1)
    return NULL;
  g_string_append_c (group, ')');
  return build_plain (text, "", group->str);
}

/* Whether @text uses FTS5's own syntax (and so is tried as written first) */
static gboolean
uses_query_syntax (const char *text)
{
  static const char * const operators[] = { "AND", "OR", "NOT", "NEAR", NULL };
  g_auto(GStrv) words = NULL;

  if (strpbrk (text, "\"*():^+{}") != NULL)
    return TRUE;
  words = g_strsplit_set (text, " \t\n\r\f\v", -1);
  for (guint i = 0; words[i] != NULL; i++)
    if (g_strv_contains (operators, words[i]) || g_str_has_prefix (words[i], "NEAR("))
      return TRUE;
  return FALSE;
}

PrsSearchHit *
prs_store_search_read_hit (PrsStore     *self,
                           gint64        rowid,
                           double        score,
                           GError      **error)
{
  g_autoptr(PrsStmt) stmt = NULL;
  PrsSearchHit *hit;
  int row;

  stmt = prs_store_prepare_cached (self,
                        "SELECT m.id, m.conversation_id, c.slug, c.title, m.seq, m.kind, m.created_at"
                        " FROM messages m JOIN conversations c ON c.id = m.conversation_id AND c.deleted_at IS NULL"
                        " WHERE m.rowid = ?1",
                        error);
  if (stmt == NULL)
    return NULL;
  sqlite3_bind_int64 (stmt, 1, rowid);
  row = prs_store_step_row (self, stmt, N_("Could not search the messages"), error);
  if (row != 1)
    return NULL;

  hit = g_new0 (PrsSearchHit, 1);
  hit->message_id = g_strdup (prs_store_column_text (stmt, 0));
  hit->conversation_id = g_strdup (prs_store_column_text (stmt, 1));
  hit->conversation_slug = g_strdup (prs_store_column_text (stmt, 2));
  hit->conversation_title = g_strdup (prs_store_column_text (stmt, 3));
  hit->seq = sqlite3_column_int64 (stmt, 4);
  hit->kind = g_strdup (prs_store_column_text (stmt, 5));
  hit->created_at = g_strdup (prs_store_column_text (stmt, 6));
  hit->score = score;
  return hit;
}

gboolean
prs_store_search_collect_hits (PrsStore   *self,
                               PrsStmt    *stmt,
                               guint       limit,
                               int         rank_column,
                               GPtrArray  *hits,
                               GArray     *rowids,
                               GError    **error)
{
  int row = 0;

  while (hits->len < limit &&
         (row = prs_store_step_row (self, stmt, N_("Could not search the messages"), error)) == 1)
    {
      g_autoptr(GError) local_error = NULL;
      gint64 rowid = sqlite3_column_int64 (stmt, 0);
      double rank = rank_column >= 0 ? sqlite3_column_double (stmt, rank_column) : 0;
      PrsSearchHit *hit = prs_store_search_read_hit (self, rowid, rank, &local_error);

      if (local_error != NULL)
        {
          g_propagate_error (error, g_steal_pointer (&local_error));
          return FALSE;
        }
      if (hit == NULL)   /* in a deleted conversation */
        continue;
      g_ptr_array_add (hits, hit);
      g_array_append_val (rowids, rowid);
    }
  return row >= 0;
}

/* The words around the first match of @plain (one line, matches marked),
 * "…" where it was cut, or where @plain itself was (@cut_before,
 * @cut_after: a window of a longer text) */
static char *
cut_around_match (const char *plain,
                  gboolean    cut_before,
                  gboolean    cut_after)
{
  g_auto(GStrv) words = g_strsplit (plain, " ", -1);
  g_autoptr(GString) out = g_string_new (NULL);
  guint n = g_strv_length (words), first = 0, start, end;

  while (first < n && strstr (words[first], PRS_SEARCH_MARK_START) == NULL)
    first++;
  if (first == n)
    return NULL;
  start = first > SNIPPET_WORDS_BEFORE ? first - SNIPPET_WORDS_BEFORE : 0;
  end = MIN (n, start + SNIPPET_TOKENS);
  if (start > 0 || cut_before)
    g_string_append (out, "…");
  for (guint i = start; i < end; i++)
    g_string_append_printf (out, "%s%s", i > start ? " " : "", words[i]);
  if (end < n || cut_after)
    g_string_append (out, "…");
  return g_string_free (g_steal_pointer (&out), FALSE);
}

/* @text with the marks of prs_search_reply_snippet's Markdown made the snippet's */
static char *
swap_marks (const char *text)
{
  g_autoptr(GString) out = g_string_sized_new (strlen (text));

  for (const char *p = text; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (c == MARKDOWN_MARK_START)
        g_string_append (out, PRS_SEARCH_MARK_START);
      else if (c == MARKDOWN_MARK_END)
        g_string_append (out, PRS_SEARCH_MARK_END);
      else
        g_string_append_unichar (out, c);
    }
  return g_string_free (g_steal_pointer (&out), FALSE);
}

static gboolean
is_blank (const char *line,
          const char *end)
{
  for (; line < end; line++)
    if (*line != ' ' && *line != '\t' && *line != '\r' && *line != '\n')
      return FALSE;
  return TRUE;
}

/* The columns of @line's indentation (a tab to the next multiple of
 * four, CommonMark 2.2); *@text: where the rest of it starts */
static guint
indent_of (const char  *line,
           const char  *end,
           const char **text)
{
  guint columns = 0;

  for (; line < end && (*line == ' ' || *line == '\t'); line++)
    columns = *line == '\t' ? columns + 4 - columns % 4 : columns + 1;
  *text = line;
  return columns;
}

static guint
run_of (const char *text,
        const char *end,
        char        c)
{
  guint n = 0;

  while (text + n < end && text[n] == c)
    n++;
  return n;
}

/* Whether @text (past a line's indentation) opens a fenced code block —
 * three or more ` or ~, a backtick fence's info string without a
 * backtick (CommonMark 4.5) — and *@c, *@length: its fence */
static gboolean
opens_fence (const char *text,
             const char *end,
             char       *c,
             guint      *length)
{
  guint n;

  if (text >= end || (*text != '`' && *text != '~'))
    return FALSE;
  n = run_of (text, end, *text);
  if (n < 3 || (*text == '`' && memchr (text + n, '`', end - text - n) != NULL))
    return FALSE;
  *c = *text;
  *length = n;
  return TRUE;
}

/* Whether @text (past a line's indentation, less than code's) closes the
 * fenced code block of @c, @length: a fence of its character at least as
 * long, nothing after it but spaces */
static gboolean
closes_fence (const char *text,
              const char *end,
              char        c,
              guint       length)
{
  guint n = run_of (text, end, c);

  return n >= length && is_blank (text + n, end);
}

/* A line alone a block: an ATX heading, or a thematic break (---, * * *) */
static gboolean
is_line_block (const char *text,
               const char *end)
{
  guint hashes = run_of (text, end, '#'), marks = 0;

  if (hashes >= 1 && hashes <= 6)
    return text + hashes == end || text[hashes] == ' ' || text[hashes] == '\t' || text[hashes] == '\r';
  if (text >= end || (*text != '-' && *text != '*' && *text != '_'))
    return FALSE;
  for (const char *p = text; p < end; p++)
    {
      if (*p == *text)
        marks++;
      else if (*p != ' ' && *p != '\t' && *p != '\r')
        return FALSE;
    }
  return marks >= 3;
}

/* The column where the content of the list item @text (at column @indent)
 * starts (CommonMark 5.2), 0 when @text starts none */
static guint
list_item_content (const char *text,
                   const char *end,
                   guint       indent)
{
  const char *p = text;
  guint spaces;

  if (p < end && (*p == '-' || *p == '+' || *p == '*'))
    p++;
  else
    {
      while (p < end && p - text < 9 && g_ascii_isdigit (*p))
        p++;
      if (p == text || p >= end || (*p != '.' && *p != ')'))
        return 0;
      p++;
    }
  if (p < end && *p != ' ' && *p != '\t' && *p != '\r')
    return 0;
  spaces = run_of (p, end, ' ');
  if (spaces == 0 || spaces > 4 || is_blank (p, end))
    spaces = 1;
  return indent + (p - text) + spaces;
}

/* Whether @text (past a line's indentation) may be a link reference
 * definition, "[label]: destination": md4c decides (carried_definitions) */
static gboolean
may_define (const char *text,
            const char *end)
{
  const char *close = text < end && *text == '[' ? memchr (text, ']', end - text) : NULL;

  return close != NULL && close + 1 < end && close[1] == ':';
}

#define MAX_LIST_DEPTH 8

typedef enum
{
  BLOCK_NONE,        /* between blocks: the next line starts one */
  BLOCK_PARAGRAPH,
  BLOCK_FENCED,
  BLOCK_INDENTED,
  BLOCK_QUOTE,       /* a block quote, whatever it holds: the window's block */
} BlockKind;

/* What the window needs of a long reply's blocks, read a line at a time:
 * where the block each line is in starts, as md4c reads it with our flags
 * (CommonMark: fenced and indented code, paragraphs, headings, list items,
 * block quotes — read as one block, with the fences and paragraphs inside
 * them that decide where they end; no HTML blocks — MD_FLAG_NOHTML in
 * PRS_MARKDOWN_FLAGS, as the conversation reads it — so HTML is a
 * paragraph's text and ends where a paragraph does) */
typedef struct
{
  BlockKind   kind;           /* of the last line read */
  const char *start;          /* where its block starts */
  guint       container;      /* the column its block's lines start at (a list item's content) */
  char        fence;          /* an open fenced code block's character … */
  guint       fence_length;   /* … and length */
  guint       lists[MAX_LIST_DEPTH];   /* the content columns of the list items open */
  guint       depth;
  GArray     *definitions;    /* const char *: lines that may be link reference definitions */
  /* In a block quote: its last line leaves a paragraph open (a line
   * without ">" goes on with it: a lazy continuation line, CommonMark
   * 5.1), … */
  gboolean    quote_lazy;
  char        quote_fence;          /* … a fenced code block in it is open … */
  guint       quote_fence_length;
  const char *quote_fence_line;     /* … from this line */
} Blocks;

/* Past the ">" markers @text starts with (each with up to three spaces
 * before it and one after it, CommonMark 5.1), NULL when it starts with
 * none */
static const char *
quote_content (const char *text,
               const char *end)
{
  const char *content = NULL;

  for (const char *p = text; p < end;)
    {
      guint spaces = run_of (p, end, ' ');

      if (spaces > 3 || p + spaces >= end || p[spaces] != '>')
        break;
      p += spaces + 1;
      if (p < end && (*p == ' ' || *p == '\t'))
        p++;
      content = p;
    }
  return content;
}

/* A line that is no paragraph's continuation ends the list items it is
 * not indented into */
static guint
close_lists (Blocks *blocks,
             guint   indent)
{
  while (blocks->depth > 0 && indent < blocks->lists[blocks->depth - 1])
    blocks->depth--;
  return blocks->depth > 0 ? blocks->lists[blocks->depth - 1] : 0;
}

static void
start_block (Blocks     *blocks,
             const char *line,
             BlockKind   kind,
             guint       container)
{
  blocks->start = line;
  blocks->kind = kind;
  blocks->container = container;
}

/* Reads the line @line (@text past its @indent) of the block quote
 * @blocks is in; FALSE when the line ends the quote: no ">" and no lazy
 * continuation of its paragraph */
static gboolean
quote_read (Blocks     *blocks,
            const char *line,
            const char *text,
            const char *end,
            guint       indent)
{
  const char *content = indent < blocks->container + 4 ? quote_content (text, end) : NULL;
  char fence;
  guint length;

  if (content == NULL)
    /* Lazy: text that starts no block of its own (indented code does not
     * break a paragraph) */
    return blocks->quote_lazy && !is_blank (text, end) &&
           (indent >= blocks->container + 4 ||
            (!opens_fence (text, end, &fence, &length) && !is_line_block (text, end) &&
             list_item_content (text, end, indent) == 0));

  indent = indent_of (content, end, &text);
  if (blocks->quote_fence != 0)
    {
      if (indent < 4 && closes_fence (text, end, blocks->quote_fence, blocks->quote_fence_length))
        blocks->quote_fence = 0;
    }
  else if (is_blank (text, end))
    blocks->quote_lazy = FALSE;
  else if (indent >= 4)
    ; /* a paragraph's next line, or indented code: no paragraph */
  else if (opens_fence (text, end, &blocks->quote_fence, &blocks->quote_fence_length))
    {
      blocks->quote_fence_line = line;
      blocks->quote_lazy = FALSE;
    }
  else
    blocks->quote_lazy = !is_line_block (text, end);
  return TRUE;
}

/* Reads the line @line..@end (without its line break) into @blocks */
static void
blocks_read (Blocks     *blocks,
             const char *line,
             const char *end)
{
  const char *text;
  guint indent = indent_of (line, end, &text), container, item;
  gboolean continues;

  if (blocks->kind == BLOCK_QUOTE)
    {
      if (quote_read (blocks, line, text, end, indent))
        return;
      blocks->kind = BLOCK_NONE;
    }
  continues = blocks->kind == BLOCK_PARAGRAPH;

  if (blocks->kind == BLOCK_FENCED)
    {
      if (indent < blocks->container + 4 && closes_fence (text, end, blocks->fence, blocks->fence_length))
        blocks->kind = BLOCK_NONE;
      return;
    }
  if (is_blank (text, end))
    {
      /* Blank lines end a paragraph; indented code goes on past them */
      if (continues)
        blocks->kind = BLOCK_NONE;
      return;
    }
  container = continues ? blocks->container : close_lists (blocks, indent);
  if (indent >= container + 4)
    {
      /* Indented code, unless it is a paragraph's next line */
      if (!continues && blocks->kind != BLOCK_INDENTED)
        start_block (blocks, line, BLOCK_INDENTED, container);
      return;
    }
  if (quote_content (text, end) != NULL)
    {
      /* A quote breaks a paragraph, and is in the list items it is
       * indented into */
      start_block (blocks, line, BLOCK_QUOTE, close_lists (blocks, indent));
      blocks->quote_fence = 0;
      blocks->quote_lazy = FALSE;
      quote_read (blocks, line, text, end, indent);
    }
  else if (opens_fence (text, end, &blocks->fence, &blocks->fence_length))
    start_block (blocks, line, BLOCK_FENCED, container);
  else if (is_line_block (text, end))
    start_block (blocks, line, BLOCK_NONE, container);
  else if ((item = list_item_content (text, end, indent)) > 0)
    {
      start_block (blocks, line, BLOCK_PARAGRAPH, close_lists (blocks, indent));
      if (blocks->depth < MAX_LIST_DEPTH)
        blocks->lists[blocks->depth++] = item;
    }
  else if (!continues && may_define (text, end))
    {
      /* A definition is no paragraph: another may follow it */
      start_block (blocks, line, BLOCK_NONE, container);
      if (blocks->definitions != NULL && blocks->definitions->len < SNIPPET_DEFINITIONS)
        g_array_append_val (blocks->definitions, line);
    }
  else if (!continues)
    start_block (blocks, line, BLOCK_PARAGRAPH, container);
}

/* @p moved back (@step -1) or on (+1) to the nearest white space within
 * @min..@max, else to a character's start: a window's edge cuts between
 * words where it can */
static const char *
word_edge (const char *p,
           const char *min,
           const char *max,
           int         step)
{
  for (const char *q = p; q > min && q < max; q += step)
    if (*q == ' ' || *q == '\n')
      return q;
  while (p > min && p < max && (*p & 0xC0) == 0x80)
    p += step;
  return p;
}

static const char *
line_end (const char *line,
          const char *end)
{
  const char *eol = memchr (line, '\n', end - line);

  return eol != NULL ? eol : end;
}

/* @from..@to appended to @out with @columns of each line's indentation
 * taken off: lines in a list item read alone as they read in it */
static void
append_dedented (GString    *out,
                 const char *from,
                 const char *to,
                 guint       columns)
{
  for (const char *line = from, *eol; line < to; line = eol + 1)
    {
      guint column = 0;

      eol = line_end (line, to);
      for (; line < eol && column < columns && (*line == ' ' || *line == '\t'); line++)
        column = *line == '\t' ? column + 4 - column % 4 : column + 1;
      /* A tab past the columns leaves the rest of its width */
      for (; column > columns; column--)
        g_string_append_c (out, ' ');
      g_string_append_len (out, line, eol - line);
      if (eol < to)
        g_string_append_c (out, '\n');
    }
}

/* The reply's link reference definitions a window's references need
 * (@definitions: lines outside @start..@stop that may be one), as Markdown
 * to read before the window: a reference whose definition is outside it
 * would otherwise read as its brackets, not as the link's text the
 * conversation shows. md4c decides what a definition is and what it
 * defines: a line is carried when md4c reads it (or it with the next
 * line, where a destination or title may be) as nothing but definitions,
 * and when the window holds its label in brackets (a cheap guess at the
 * references md4c will match, ignoring case as labels do); at most
 * SNIPPET_WINDOW bytes of them. */
static GString *
carried_definitions (GArray     *definitions,
                     const char *start,
                     const char *stop,
                     const char *end)
{
  g_autofree char *folded = NULL;
  GString *carried = g_string_new (NULL);

  if (definitions->len == 0 || memchr (start, ']', stop - start) == NULL)
    return carried;
  folded = g_utf8_casefold (start, stop - start);
  for (guint i = 0; i < definitions->len; i++)
    {
      const char *line = g_array_index (definitions, const char *, i);
      const char *eol = line_end (line, end), *label_start = strchr (line, '['), *label_end;
      g_autofree char *label = NULL;

      if (line >= start && line < stop)
        continue;
      label_end = memchr (label_start, ']', eol - label_start);
      label = g_utf8_casefold (label_start, label_end + 1 - label_start);
      if (strstr (folded, label) == NULL)
        continue;
      for (guint lines = 0; lines < 2; lines++)
        {
          g_autofree char *plain = prs_markdown_to_plain_text (line, eol - line);

          if (plain[0] == '\0')
            {
              if (carried->len + (eol - line) + 1 <= SNIPPET_WINDOW)
                g_string_append_printf (carried, "%.*s\n", (int) (eol - line), line);
              break;
            }
          if (eol == end)
            break;
          eol = line_end (eol + 1, end);
        }
    }
  if (carried->len > 0)
    g_string_append_c (carried, '\n');
  return carried;
}

/* The part of a long reply (@text, @length bytes, its matches marked) its
 * snippet reads with md4c, NULL when no match is marked: FTS5's own
 * snippet is a window of tokens whose cut Markdown shows (a lone "**", a
 * backtick, half a link), and reading the whole reply for every hit is
 * what SNIPPET_MAX_MARKDOWN spares. The window is the block that holds
 * the first match (blocks_read: a paragraph, a list item, fenced or
 * indented code — whose code reads as code), each edge at most
 * SNIPPET_WINDOW from the match: past that, at the first line's start
 * within it (or a word's edge in a line that long), where an emphasis or
 * link open across the cut may still show. Lines in a list item lose the
 * item's indentation, and the definitions of its link references come
 * with it (carried_definitions). One pass over the lines, no parse. */
static char *
long_reply_window (const char *text,
                   gsize       length,
                   gboolean   *cut_before,
                   gboolean   *cut_after)
{
  const char *end = text + length;
  const char *mark = strstr (text, PRS_SEARCH_MARKDOWN_MARK_START_UTF8);
  const char *line = text, *eol, *near = NULL, *start, *stop;
  g_autoptr(GArray) definitions = g_array_new (FALSE, FALSE, sizeof (const char *));
  Blocks blocks = { BLOCK_NONE, text, .definitions = definitions }, held;
  g_autoptr(GString) window = NULL;

  if (mark == NULL)
    return NULL;
  for (; (eol = memchr (line, '\n', mark - line)) != NULL; line = eol + 1)
    {
      if (near == NULL && mark - line <= SNIPPET_WINDOW)
        near = line;
      blocks_read (&blocks, line, eol);
    }
  /* @line: the match's own line, which may start its block */
  stop = line_end (line, end);
  blocks_read (&blocks, line, stop);
  held = blocks;
  start = held.start;
  if (mark - start > SNIPPET_WINDOW)
    start = near != NULL ? near
            : mark - line > SNIPPET_WINDOW ? word_edge (mark - SNIPPET_WINDOW, line, mark, 1) : line;

  /* The block ends where the next starts, at a blank line after a
   * paragraph, or with its closing fence */
  for (line = stop < end ? stop + 1 : end; line < end && stop - mark <= SNIPPET_WINDOW;)
    {
      eol = line_end (line, end);
      blocks_read (&blocks, line, eol);
      line = eol + 1;
      if (blocks.start != held.start || (blocks.kind == BLOCK_NONE && held.kind != BLOCK_FENCED))
        break;
      stop = eol;
      if (blocks.kind == BLOCK_NONE)
        break;
    }
  if (stop - mark > SNIPPET_WINDOW)
    stop = word_edge (mark + SNIPPET_WINDOW, mark, end, -1);
  /* The definitions after it */
  if (memchr (start, ']', stop - start) != NULL)
    for (; line < end; line = eol + 1)
      blocks_read (&blocks, line, eol = line_end (line, end));

  *cut_before = start > text;
  /* (What is left after a reply's last block is white space) */
  *cut_after = !is_blank (stop, end);
  window = carried_definitions (definitions, start, stop, end);
  /* A fence far above the match still makes its lines code */
  if (held.kind == BLOCK_FENCED && start != held.start)
    append_dedented (window, held.start, line_end (held.start, end) + 1, held.container);
  else if (held.kind == BLOCK_QUOTE && held.quote_fence != 0 && held.quote_fence_line < start)
    append_dedented (window, held.quote_fence_line, line_end (held.quote_fence_line, end) + 1,
                     held.container);
  /* A paragraph's line alone would be code if indented as much */
  if ((held.kind == BLOCK_PARAGRAPH || held.kind == BLOCK_QUOTE) && start != held.start)
    while (start < stop && (*start == ' ' || *start == '\t'))
      start++;
  append_dedented (window, start, stop, held.container);
  return g_string_free (g_steal_pointer (&window), FALSE);
}

/* A reply's snippet as a reader sees its text: its Markdown read by md4c
 * (a long reply's window of it), then cut around the first match.
 * @highlighted is the whole text with its matches marked by characters of
 * the private use area, which Markdown reads as letters (control
 * characters would end a link's address and leave the link unread);
 * @snippet is FTS5's snippet. */
char *
prs_search_reply_snippet (const char *highlighted,
                          const char *snippet)
{
  g_autofree char *window = NULL;
  g_autofree char *plain = NULL;
  g_autofree char *marked = NULL;
  gsize length = highlighted != NULL ? strlen (highlighted) : 0;
  gboolean cut_before = FALSE, cut_after = FALSE;
  char *cut;

  if (length > SNIPPET_MAX_MARKDOWN)
    window = long_reply_window (highlighted, length, &cut_before, &cut_after);
  if (window != NULL || (highlighted != NULL && length <= SNIPPET_MAX_MARKDOWN))
    {
      marked = prs_markdown_to_plain_text (window != NULL ? window : highlighted, -1);
      plain = swap_marks (marked);
      /* A match only in what a reader does not see (an image's text, raw
       * HTML) keeps FTS5's snippet, Markdown stripped */
      if ((cut = cut_around_match (plain, cut_before, cut_after)) != NULL)
        return cut;
    }
  return prs_markdown_to_plain_text (snippet, -1);
}

/* The snippets of the hits (@rowids, in the same order), in one pass over
 * the matches from the oldest hit on: a query per hit would read a prefix
 * term's list of messages once per hit */
static gboolean
read_snippets (PrsStore    *self,
               const char  *match,
               GArray      *rowids,
               GPtrArray   *hits,
               GError     **error)
{
  g_autoptr(PrsStmt) stmt = NULL;
  g_autoptr(GHashTable) index = g_hash_table_new (g_int64_hash, g_int64_equal);
  g_autoptr(GString) list = g_string_new ("[");
  gint64 oldest = G_MAXINT64;
  int row;

  for (guint i = 0; i < rowids->len; i++)
    {
      gint64 *rowid = &g_array_index (rowids, gint64, i);
      PrsSearchHit *hit = g_ptr_array_index (hits, i);

      if (hit->snippet != NULL)
        continue;
      g_string_append_printf (list, "%s%" G_GINT64_FORMAT, g_hash_table_size (index) > 0 ? "," : "", *rowid);
      g_hash_table_insert (index, rowid, hit);
      oldest = MIN (oldest, *rowid);
    }
  g_string_append_c (list, ']');
  if (g_hash_table_size (index) == 0)
    return TRUE;

  stmt = prs_store_prepare_cached (self,
                        "SELECT rowid, snippet (message_search, -1, char (2), char (3), '…', "
                        G_STRINGIFY (SNIPPET_TOKENS) "), highlight (message_search, 0, char (57344), char (57345))"
                        " FROM message_search"
                        " WHERE message_search MATCH ?1 AND rowid >= ?2"
                        " AND rowid IN (SELECT value FROM json_each (?3))",
                        error);
  if (stmt == NULL)
    return FALSE;
  prs_store_bind_text (stmt, 1, match);
  sqlite3_bind_int64 (stmt, 2, oldest);
  prs_store_bind_text (stmt, 3, list->str);
  while ((row = prs_store_step_row (self, stmt, N_("Could not search the messages"), error)) == 1)
    {
      gint64 rowid = sqlite3_column_int64 (stmt, 0);
      PrsSearchHit *hit = g_hash_table_lookup (index, &rowid);

      if (hit == NULL || hit->snippet != NULL)
        continue;
      /* Only a reply's text is Markdown (the window shows it laid out) */
      if (g_strcmp0 (hit->kind, "assistant") == 0)
        hit->snippet = prs_search_reply_snippet ((const char *) sqlite3_column_text (stmt, 2), prs_store_column_text (stmt, 1));
      else
        hit->snippet = g_strdup (prs_store_column_text (stmt, 1));
    }
  return row == 0;
}

static int
on_progress (void *data)
{
  /* Non-zero interrupts the statement */
  return g_cancellable_is_cancelled (data);
}

/* The best hits among the newest PRS_SEARCH_CANDIDATES matches: bm25 costs
 * a little for every message it ranks, and a word in half of a million
 * messages would cost a second; then each hit's row and snippet. */
static GPtrArray *
collect_hits (PrsStore     *self,
              const char   *match,
              const char   *snippet_match,
              guint         limit,
              GError      **error)
{
  g_autoptr(PrsStmt) stmt = NULL;
  g_autoptr(GPtrArray) hits = g_ptr_array_new_with_free_func ((GDestroyNotify) prs_search_hit_free);
  g_autoptr(GArray) rowids = g_array_new (FALSE, FALSE, sizeof (gint64));

  stmt = prs_store_prepare_cached (self,
                        "SELECT s.rowid, s.rank FROM"
                        " (SELECT rowid, rank FROM message_search WHERE message_search MATCH ?1"
                        "  ORDER BY rowid DESC LIMIT ?2) AS s"
                        " ORDER BY s.rank",
                        error);
  if (stmt == NULL)
    return NULL;
  prs_store_bind_text (stmt, 1, match);
  sqlite3_bind_int64 (stmt, 2, PRS_SEARCH_CANDIDATES);
  if (!prs_store_search_collect_hits (self, stmt, limit, 1, hits, rowids, error))
    return NULL;
  g_clear_pointer (&stmt, prs_stmt_release);
  if (snippet_match != NULL && !read_snippets (self, snippet_match, rowids, hits, error))
    return NULL;
  /* What the named words missed (rare), with the search's own query */
  if (!read_snippets (self, match, rowids, hits, error))
    return NULL;
  for (guint i = 0; i < hits->len; i++)
    if (((PrsSearchHit *) g_ptr_array_index (hits, i))->snippet == NULL)
      ((PrsSearchHit *) g_ptr_array_index (hits, i))->snippet = g_strdup ("");
  return g_steal_pointer (&hits);
}

/* One query (with @terms, the messages that hold them too:
 * prs_store_search_substrings); *@out_syntax_error says SQLite refused
 * @match itself */
static GPtrArray *
run_query (PrsStore      *self,
           const char    *match,
           const char    *snippet_match,
           GPtrArray     *terms,
           guint          limit,
           GCancellable  *cancellable,
           gboolean      *out_syntax_error,
           GError       **error)
{
  g_autoptr(GError) local_error = NULL;
  GPtrArray *hits;

  *out_syntax_error = FALSE;
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;

  if (cancellable != NULL)
    sqlite3_progress_handler (self->db, 1000, on_progress, cancellable);
  if (terms != NULL)
    hits = prs_store_search_substrings (self, match, terms, limit, &local_error);
  else
    hits = collect_hits (self, match, snippet_match, limit, &local_error);
  if (cancellable != NULL)
    sqlite3_progress_handler (self->db, 0, NULL, NULL);

  if (hits != NULL)
    return hits;
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;
  /* A query SQLite cannot read is SQLITE_ERROR itself; busy, full and
   * broken files have codes of their own */
  *out_syntax_error = (sqlite3_extended_errcode (self->db) & 0xff) == SQLITE_ERROR;
  g_propagate_error (error, g_steal_pointer (&local_error));
  return NULL;
}

GPtrArray *
prs_store_search (PrsStore      *self,
                  const char    *text,
                  guint          limit,
                  GCancellable  *cancellable,
                  GError       **error)
{
  g_autofree char *plain = NULL;
  g_autofree char *snippets = NULL;
  g_autofree char *words = NULL;
  g_autoptr(GPtrArray) terms = NULL;
  gboolean syntax_error = FALSE;

  g_return_val_if_fail (PRS_IS_STORE (self), NULL);
  PRS_ASSERT_OWNER (&self->owner);
  g_return_val_if_fail (text != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (g_utf8_validate (text, -1, NULL) && uses_query_syntax (text))
    {
      g_autoptr(GError) local_error = NULL;
      GPtrArray *hits = run_query (self, text, NULL, NULL, limit, cancellable, &syntax_error, &local_error);

      if (hits != NULL)
        return hits;
      if (!syntax_error)
        {
          g_propagate_error (error, g_steal_pointer (&local_error));
          return NULL;
        }
    }

  /* Words in scripts written without spaces, and emoji, are found as
   * parts of the text (prs-store-search-substring.c) */
  terms = prs_search_split_substrings (text, &words);
  if (terms != NULL)
    {
      plain = prs_search_plain_query (words);
      return run_query (self, plain[0] != '\0' ? plain : NULL, NULL, terms, limit, cancellable,
                        &syntax_error, error);
    }
  plain = prs_search_plain_query (text);
  if (plain[0] == '\0')
    return g_ptr_array_new_with_free_func ((GDestroyNotify) prs_search_hit_free);
  snippets = snippet_query (self, text);
  return run_query (self, plain, snippets, NULL, limit, cancellable, &syntax_error, error);
}

/* ---- snippets ---- */

char *
prs_search_snippet_to_text (const char  *snippet,
                            GArray     **out_ranges)
{
  GString *text = g_string_new (NULL);
  g_autoptr(GArray) ranges = g_array_new (FALSE, FALSE, sizeof (PrsSearchRange));
  PrsSearchRange open = { -1, -1 };
  glong chars = 0;

  g_return_val_if_fail (snippet != NULL, NULL);

  for (const char *p = snippet; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (c == 2 && open.start < 0)
        open.start = chars;
      else if (c == 3 && open.start >= 0)
        {
          open.end = chars;
          g_array_append_val (ranges, open);
          open.start = -1;
        }
      else if (prs_unichar_is_control (c) || g_unichar_isspace (c))
        {
          /* White space and control characters fold into one space */
          if (text->len > 0 && text->str[text->len - 1] != ' ')
            {
              g_string_append_c (text, ' ');
              chars++;
            }
        }
      else
        {
          g_string_append_unichar (text, c);
          chars++;
        }
    }
  if (open.start >= 0)
    {
      open.end = chars;
      g_array_append_val (ranges, open);
    }

  if (out_ranges != NULL)
    *out_ranges = g_steal_pointer (&ranges);
  return g_string_free (text, FALSE);
}

char *
prs_search_snippet_to_markup (const char *snippet)
{
  g_autoptr(GArray) ranges = NULL;
  g_autofree char *text = NULL;
  GString *markup = g_string_new (NULL);
  const char *p;
  glong at = 0;

  g_return_val_if_fail (snippet != NULL, NULL);

  text = prs_search_snippet_to_text (snippet, &ranges);
  p = text;
  for (guint i = 0; i <= ranges->len; i++)
    {
      glong start = i < ranges->len ? g_array_index (ranges, PrsSearchRange, i).start : g_utf8_strlen (text, -1);
      glong end = i < ranges->len ? g_array_index (ranges, PrsSearchRange, i).end : start;
      const char *start_p = g_utf8_offset_to_pointer (p, start - at);
      const char *end_p = g_utf8_offset_to_pointer (start_p, end - start);
      g_autofree char *before = g_markup_escape_text (p, start_p - p);
      g_autofree char *match = g_markup_escape_text (start_p, end_p - start_p);

      g_string_append (markup, before);
      if (end > start)
        g_string_append_printf (markup, "<b>%s</b>", match);
      p = end_p;
      at = end;
    }

  return g_string_free (markup, FALSE);
}
