/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-layout.c: docs/layout.md, a reply's text as key-value grids and text blocks.
 *
 * One pass over the lines, no backtracking: each line is looked at once, a
 * run of pairs is kept aside until it is known to be a grid (second pair) or
 * text (broken after one pair), and text is appended to one GString per
 * block, so the whole is linear in the input.
 *
 * The rules leave some cases open; these are the decisions.
 *
 * - Input: invalid UTF-8 and NUL bytes are replaced by U+FFFD first
 *   (g_utf8_make_valid), so every block is valid UTF-8.
 * - Lines end at "\n"; a "\r" just before it (or before the end of the
 *   text) is dropped, so text blocks always join their lines with "\n".
 *   A "\r" elsewhere in a line is kept.
 * - "Whitespace" is g_unichar_isspace () everywhere (space, tab, CR, FF,
 *   NBSP and the other Unicode spaces). A line of only whitespace is blank.
 * - Fences: a line whose text, after leading whitespace, starts with three
 *   or more backticks and has no other backtick opens a fence (an info
 *   string such as ```python is allowed); the fence is closed by a line of
 *   at least as many backticks and nothing else but whitespace (CommonMark,
 *   so the layout agrees with the Markdown renderer). An unclosed fence runs
 *   to the end. Fence lines and the lines between them are text, break any
 *   run, and are never bare keys (a "Body:" inside code does not end the
 *   key-value section). Lines are not bullet-stripped before the fence test.
 * - Bullets: one of "-", "*", "+", "•" followed by whitespace; the
 *   whitespace after the bullet is dropped too, so "-   **Key:** v" is bold.
 *   "**" at the start is bold, never a bullet.
 * - Bold: when the line starts with "**" (or "__"), the first two
 *   non-overlapping occurrences of that marker are removed; with only one
 *   occurrence, that one is removed.
 * - Delimiters: ":" followed by whitespace or the end of the line (so
 *   "Key:value" and "http://x" have none); "=", "-", "–" or "—" with
 *   whitespace right before and right after (the end of the line does not
 *   count as whitespace there, so "Key =" has no delimiter). Only the
 *   earliest delimiter is looked at: if its key is not valid the line is
 *   text, later delimiters are not tried.
 * - A " - " line is a pair like any other: "Email - Move" is {Email, Move}.
 * - A pair needs a non-empty value. With ":" an empty value and a valid key
 *   is a bare key (rule 6); with "=" or a dash an empty value (only possible
 *   as "Key = " with trailing whitespace) makes the line text.
 * - Link lines: the value of a ":" line starts with scheme:// (scheme per
 *   RFC 3986: a letter, then letters, digits, "+", "-", "."), "mailto:" or
 *   "www." (the last two in any case). Only ":" lines; "Docs = https://x"
 *   is a pair. A link line is text and breaks a run.
 * - A grid "has appeared" as soon as a run has two pairs, so in the guide's
 *   "…\nPriority: Normal\nBody:\n…" the bare key ends the section. Before
 *   that a bare key is an ordinary text line and breaks the run.
 * - A run of one pair becomes text with its original line and the blank
 *   lines after it, merged with the text around it. Blank lines after a
 *   grid's last pair fall at the edge of the next text block and are
 *   dropped.
 * - Text blocks keep the original lines (bullets and bold markers
 *   included); blank lines at their edges are dropped, blank lines inside
 *   are kept as they were (whitespace included). */
#include "prs-layout.h"

#include <string.h>

#include "prs-json.h"

#define MAX_KEY_CHARS 29

typedef struct
{
  const char *start;
  gsize       len;
} Line;

/* Consecutive lines of the input, from the start of the first to the end
 * of the last one's text (its line break excluded); NULL start when empty.
 * Blank lines waiting to be placed are always consecutive in the input, so
 * a span holds any number of them in constant space. */
typedef struct
{
  const char *start;
  const char *end;
} Span;

typedef enum
{
  LINE_TEXT,
  LINE_PAIR,
  LINE_BARE_KEY,
} LineKind;

typedef struct
{
  GPtrArray      *blocks;
  GString        *text;         /* the text block being built */
  Span            text_blanks;  /* blank lines not yet known to be inside it */
  guint           run_pairs;
  char           *first_key;    /* the run's first pair, until it has a second */
  char           *first_value;
  Line            first_line;   /* its original line */
  Span            run_blanks;   /* blank lines after it */
  PrsLayoutBlock *grid;         /* the grid the run is filling */
  gboolean        grid_seen;
  gboolean        kv_ended;
  GString        *scratch;      /* a line without its bold markers */
} Parser;

void
prs_layout_block_free (PrsLayoutBlock *block)
{
  if (block == NULL)
    return;

  g_free (block->text);
  g_clear_pointer (&block->rows, g_array_unref);
  g_clear_pointer (&block->strings, g_string_chunk_free);
  g_free (block);
}

static inline gboolean
space_at (const char *p)
{
  guchar c = (guchar) *p;

  if (c < 0x80)
    return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\n';

  return g_unichar_isspace (g_utf8_get_char (p));
}

static const char *
skip_space (const char *p,
            const char *end)
{
  while (p < end && space_at (p))
    p = g_utf8_next_char (p);

  return p;
}

static const char *
trim_end (const char *start,
          const char *end)
{
  while (end > start)
    {
      const char *prev = g_utf8_prev_char (end);

      if (!space_at (prev))
        break;
      end = prev;
    }

  return end;
}

static gboolean
line_is_blank (Line line)
{
  return skip_space (line.start, line.start + line.len) == line.start + line.len;
}

/* ---------------------------------------------------------------- fences */

static gsize
count_backticks (const char *p,
                 const char *end)
{
  const char *q = p;

  while (q < end && *q == '`')
    q++;

  return q - p;
}

/* The length of the opening fence on @line, or 0. */
static gsize
fence_open_length (Line line)
{
  const char *end = line.start + line.len;
  const char *p = skip_space (line.start, end);
  gsize n = count_backticks (p, end);

  if (n < 3 || memchr (p + n, '`', end - (p + n)) != NULL)
    return 0;

  return n;
}

static gboolean
is_fence_close (Line  line,
                gsize open_length)
{
  const char *end = line.start + line.len;
  const char *p = skip_space (line.start, end);
  gsize n = count_backticks (p, end);

  return n >= open_length && skip_space (p + n, end) == end;
}

/* ---------------------------------------------------------------- one line */

static const char *
find_marker (const char *p,
             const char *end,
             const char *marker)
{
  for (; p + 1 < end; p++)
    {
      if (p[0] == marker[0] && p[1] == marker[1])
        return p;
    }

  return NULL;
}

static gboolean
is_bullet (const char  *p,
           const char  *end,
           const char **after)
{
  const char *next;

  if (p >= end)
    return FALSE;

  if (*p == '-' || *p == '*' || *p == '+')
    next = p + 1;
  else if (end - p >= 3 && memcmp (p, "•", 3) == 0)
    next = p + 3;
  else
    return FALSE;

  if (next >= end || !space_at (next))
    return FALSE;

  *after = next;
  return TRUE;
}

static inline gboolean
is_dash_at (const char *p)
{
  guchar c = (guchar) *p;

  /* U+2013 en dash and U+2014 em dash are E2 80 93 and E2 80 94; valid
   * UTF-8 guarantees the two bytes after E2 exist. */
  return c == '-' ||
         (c == 0xE2 && (guchar) p[1] == 0x80 && ((guchar) p[2] == 0x93 || (guchar) p[2] == 0x94));
}

/* The earliest delimiter of [p, end): where it starts and where the value
 * after it starts. */
static gboolean
find_delimiter (const char  *p,
                const char  *end,
                const char **delimiter,
                const char **after,
                gboolean    *is_colon)
{
  gboolean prev_space = FALSE;

  while (p < end)
    {
      const char *next = g_utf8_next_char (p);

      if (*p == ':')
        {
          if (next >= end || space_at (next))
            {
              *delimiter = p;
              *after = next;
              *is_colon = TRUE;
              return TRUE;
            }
        }
      else if (prev_space && (*p == '=' || is_dash_at (p)))
        {
          if (next < end && space_at (next))
            {
              *delimiter = p;
              *after = next;
              *is_colon = FALSE;
              return TRUE;
            }
        }

      prev_space = space_at (p);
      p = next;
    }

  return FALSE;
}

static gboolean
key_is_valid (const char *key,
              const char *end)
{
  const char *p;
  guint chars = 0;

  if (key >= end || !g_unichar_isalpha (g_utf8_get_char (key)))
    return FALSE;

  for (p = key; p < end && chars <= MAX_KEY_CHARS; p = g_utf8_next_char (p))
    chars++;

  return chars <= MAX_KEY_CHARS;
}

static gboolean
starts_with_url (const char *p,
                 const char *end)
{
  const char *q;
  gsize n = end - p;

  if ((n >= 4 && g_ascii_strncasecmp (p, "www.", 4) == 0) ||
      (n >= 7 && g_ascii_strncasecmp (p, "mailto:", 7) == 0))
    return TRUE;

  if (n == 0 || !g_ascii_isalpha (*p))
    return FALSE;

  for (q = p + 1; q < end && (g_ascii_isalnum (*q) || *q == '+' || *q == '-' || *q == '.'); q++)
    ;

  return end - q >= 3 && memcmp (q, "://", 3) == 0;
}

/* Rules 2 to 6 for one line outside fences. A pair's key and value point
 * into the line or into parser->scratch. */
static LineKind
classify_line (Parser      *parser,
               Line         line,
               const char **key,
               const char **key_end,
               const char **value,
               const char **value_end)
{
  const char *end = line.start + line.len;
  const char *p = skip_space (line.start, end);
  const char *after_bullet;
  const char *delimiter, *after;
  gboolean is_colon;

  if (is_bullet (p, end, &after_bullet))
    p = skip_space (after_bullet, end);

  if (end - p >= 2 && ((p[0] == '*' && p[1] == '*') || (p[0] == '_' && p[1] == '_')))
    {
      const char *marker = p[0] == '*' ? "**" : "__";
      const char *second = find_marker (p + 2, end, marker);

      g_string_truncate (parser->scratch, 0);
      if (second == NULL)
        g_string_append_len (parser->scratch, p + 2, end - (p + 2));
      else
        {
          g_string_append_len (parser->scratch, p + 2, second - (p + 2));
          g_string_append_len (parser->scratch, second + 2, end - (second + 2));
        }
      p = parser->scratch->str;
      end = p + parser->scratch->len;
    }

  if (!find_delimiter (p, end, &delimiter, &after, &is_colon))
    return LINE_TEXT;

  *key = skip_space (p, delimiter);
  *key_end = trim_end (*key, delimiter);
  *value = skip_space (after, end);
  *value_end = trim_end (*value, end);

  if (!key_is_valid (*key, *key_end))
    return LINE_TEXT;

  if (*value == *value_end)
    return is_colon ? LINE_BARE_KEY : LINE_TEXT;

  if (is_colon && starts_with_url (*value, *value_end))
    return LINE_TEXT;

  return LINE_PAIR;
}

/* ---------------------------------------------------------------- blocks */

static void
span_add (Span *span,
          Line  line)
{
  /* Only ever the line right after the span's last one. */
  if (span->start == NULL)
    span->start = line.start;
  span->end = line.start + line.len;
}

/* Appends each line of @span to @text after a "\n", CRLF made LF. */
static void
append_span_lines (GString *text,
                   Span     span)
{
  const char *p = span.start;

  if (p == NULL)
    return;

  for (;;)
    {
      const char *newline = memchr (p, '\n', span.end - p);
      const char *line_end = newline != NULL ? newline : span.end;

      if (line_end > p && line_end[-1] == '\r')
        line_end--;
      g_string_append_c (text, '\n');
      g_string_append_len (text, p, line_end - p);

      if (newline == NULL)
        break;
      p = newline + 1;
    }
}

static void
text_add_line (Parser *parser,
               Line    line)
{
  if (line_is_blank (line))
    {
      /* Kept only if a non-blank line follows in the same block. */
      if (parser->text->len > 0)
        span_add (&parser->text_blanks, line);
      return;
    }

  append_span_lines (parser->text, parser->text_blanks);
  parser->text_blanks = (Span) { NULL, NULL };

  if (parser->text->len > 0)
    g_string_append_c (parser->text, '\n');
  g_string_append_len (parser->text, line.start, line.len);
}

static void
flush_text (Parser *parser)
{
  PrsLayoutBlock *block;

  parser->text_blanks = (Span) { NULL, NULL };
  if (parser->text->len == 0)
    return;

  block = g_new0 (PrsLayoutBlock, 1);
  block->type = PRS_LAYOUT_BLOCK_TEXT;
  block->text = g_strndup (parser->text->str, parser->text->len);
  g_ptr_array_add (parser->blocks, block);
  g_string_truncate (parser->text, 0);
}

/* Keys and values live in the block's string chunk: a row costs its text
 * and two pointers, not two allocations (a reply of one-letter pairs
 * would otherwise take 16 times its size). */
static void
grid_add_row (PrsLayoutBlock *grid,
              const char     *key,
              gsize           key_len,
              const char     *value,
              gsize           value_len)
{
  PrsLayoutRow row;

  row.key = g_string_chunk_insert_len (grid->strings, key, key_len);
  row.value = g_string_chunk_insert_len (grid->strings, value, value_len);
  g_array_append_val (grid->rows, row);
}

static void
run_add_pair (Parser     *parser,
              Line        line,
              const char *key,
              gsize       key_len,
              const char *value,
              gsize       value_len)
{
  if (parser->run_pairs == 0)
    {
      parser->first_key = g_strndup (key, key_len);
      parser->first_value = g_strndup (value, value_len);
      parser->first_line = line;
    }
  else if (parser->run_pairs == 1)
    {
      /* Two pairs: a grid, whatever follows. */
      flush_text (parser);
      parser->grid = g_new0 (PrsLayoutBlock, 1);
      parser->grid->type = PRS_LAYOUT_BLOCK_GRID;
      parser->grid->rows = g_array_new (FALSE, FALSE, sizeof (PrsLayoutRow));
      parser->grid->strings = g_string_chunk_new (4096);
      grid_add_row (parser->grid, parser->first_key, strlen (parser->first_key),
                    parser->first_value, strlen (parser->first_value));
      g_clear_pointer (&parser->first_key, g_free);
      g_clear_pointer (&parser->first_value, g_free);
      grid_add_row (parser->grid, key, key_len, value, value_len);
      g_ptr_array_add (parser->blocks, parser->grid);
      parser->run_blanks = (Span) { NULL, NULL };
      parser->grid_seen = TRUE;
    }
  else
    grid_add_row (parser->grid, key, key_len, value, value_len);

  parser->run_pairs++;
}

static void
run_add_blank (Parser *parser,
               Line    line)
{
  /* After a grid's last pair blank lines can only end up at the edge of
   * the next text block, where they are dropped. */
  if (parser->run_pairs == 1)
    span_add (&parser->run_blanks, line);
}

static void
run_break (Parser *parser)
{
  if (parser->run_pairs == 1)
    {
      /* The pair's line is not blank, so the text is not empty after it
       * and the blank lines wait for what follows, as any would. */
      text_add_line (parser, parser->first_line);
      parser->text_blanks = parser->run_blanks;
    }

  parser->run_blanks = (Span) { NULL, NULL };
  g_clear_pointer (&parser->first_key, g_free);
  g_clear_pointer (&parser->first_value, g_free);
  parser->grid = NULL;
  parser->run_pairs = 0;
}

static void
parse_line (Parser *parser,
            Line    line,
            gsize  *fence_length)
{
  const char *key = NULL, *key_end = NULL, *value = NULL, *value_end = NULL;
  LineKind kind;

  if (parser->kv_ended)
    {
      text_add_line (parser, line);
      return;
    }

  if (*fence_length > 0)
    {
      if (is_fence_close (line, *fence_length))
        *fence_length = 0;
      text_add_line (parser, line);
      return;
    }

  if ((*fence_length = fence_open_length (line)) > 0)
    {
      run_break (parser);
      text_add_line (parser, line);
      return;
    }

  if (line_is_blank (line))
    {
      if (parser->run_pairs > 0)
        run_add_blank (parser, line);
      else
        text_add_line (parser, line);
      return;
    }

  kind = classify_line (parser, line, &key, &key_end, &value, &value_end);
  switch (kind)
    {
    case LINE_PAIR:
      run_add_pair (parser, line, key, key_end - key, value, value_end - value);
      break;

    case LINE_BARE_KEY:
      run_break (parser);
      if (parser->grid_seen)
        parser->kv_ended = TRUE;
      text_add_line (parser, line);
      break;

    case LINE_TEXT:
    default:
      run_break (parser);
      text_add_line (parser, line);
      break;
    }
}

GPtrArray *
prs_layout_parse (const char *text,
                  gssize      len)
{
  g_autofree char *valid = NULL;
  Parser parser = { 0 };
  const char *p, *end;
  gsize fence_length = 0;

  g_return_val_if_fail (text != NULL || len == 0, NULL);

  if (text == NULL)
    text = "";
  if (len < 0)
    len = strlen (text);

  if (!g_utf8_validate_len (text, len, NULL))
    {
      valid = g_utf8_make_valid (text, len);
      text = valid;
      len = strlen (valid);
    }

  parser.blocks = g_ptr_array_new_with_free_func ((GDestroyNotify) prs_layout_block_free);
  parser.text = g_string_new (NULL);
  parser.scratch = g_string_new (NULL);

  p = text;
  end = text + len;
  for (;;)
    {
      const char *newline = memchr (p, '\n', end - p);
      const char *line_end = newline != NULL ? newline : end;
      Line line;

      if (line_end > p && line_end[-1] == '\r')
        line_end--;
      line.start = p;
      line.len = line_end - p;
      parse_line (&parser, line, &fence_length);

      if (newline == NULL)
        break;
      p = newline + 1;
    }

  run_break (&parser);
  flush_text (&parser);

  g_string_free (parser.text, TRUE);
  g_string_free (parser.scratch, TRUE);

  return parser.blocks;
}

/* The JSON of the member names and type values, written once per call */
typedef struct
{
  char *type, *grid, *text, *rows, *key, *value;
} Names;

static char *
json_string (const char *text)
{
  GString *out = g_string_new (NULL);

  prs_json_append_string (out, text);
  return g_string_free (out, FALSE);
}

static void
names_clear (Names *names)
{
  g_free (names->type);
  g_free (names->grid);
  g_free (names->text);
  g_free (names->rows);
  g_free (names->key);
  g_free (names->value);
}

/* "name" : as json-glib writes members: pretty on its own line, indented
 * two spaces a level, " : " between; compact with ":" only. */
static void
append_member (GString    *out,
               gboolean    pretty,
               guint       level,
               gboolean    first,
               const char *name_json)
{
  if (!first)
    g_string_append_c (out, ',');
  if (pretty)
    {
      g_string_append_c (out, '\n');
      g_string_append_printf (out, "%*s", (int) (2 * level), "");
    }
  g_string_append (out, name_json);
  g_string_append (out, pretty ? " : " : ":");
}

/* The start of an element of an array at @level */
static void
open_element (GString  *out,
              gboolean  pretty,
              guint     level,
              gboolean  first,
              char      bracket)
{
  if (!first)
    g_string_append_c (out, ',');
  if (pretty)
    {
      g_string_append_c (out, '\n');
      g_string_append_printf (out, "%*s", (int) (2 * level), "");
    }
  g_string_append_c (out, bracket);
}

static void
close_container (GString  *out,
                 gboolean  pretty,
                 guint     level,
                 char      bracket)
{
  if (pretty)
    {
      g_string_append_c (out, '\n');
      g_string_append_printf (out, "%*s", (int) (2 * level), "");
    }
  g_string_append_c (out, bracket);
}

static void
append_grid (GString              *out,
             gboolean              pretty,
             const Names          *names,
             const PrsLayoutBlock *block)
{
  append_member (out, pretty, 2, TRUE, names->type);
  g_string_append (out, names->grid);
  append_member (out, pretty, 2, FALSE, names->rows);
  g_string_append_c (out, '[');
  for (guint j = 0; j < block->rows->len; j++)
    {
      const PrsLayoutRow *row = &g_array_index (block->rows, PrsLayoutRow, j);

      open_element (out, pretty, 3, j == 0, '{');
      append_member (out, pretty, 4, TRUE, names->key);
      prs_json_append_string (out, row->key);
      append_member (out, pretty, 4, FALSE, names->value);
      prs_json_append_string (out, row->value);
      close_container (out, pretty, 3, '}');
    }
  close_container (out, pretty, 2, ']');
}

char *
prs_layout_to_json (GPtrArray *blocks,
                    gboolean   pretty)
{
  Names names = {
    json_string ("type"), json_string ("grid"), json_string ("text"),
    json_string ("rows"), json_string ("key"), json_string ("value"),
  };
  GString *out;

  g_return_val_if_fail (blocks != NULL, NULL);

  /* Written block by block instead of through a JsonNode tree: json-glib
   * spends a hash table and nodes on every object, ~700 bytes a row,
   * which made a 64 MB reply cost 11.8 GB. The layout of json-glib's
   * generator is kept byte for byte (tests/core/test-layout.c compares). */
  out = g_string_new ("[");
  for (guint i = 0; i < blocks->len; i++)
    {
      const PrsLayoutBlock *block = g_ptr_array_index (blocks, i);

      open_element (out, pretty, 1, i == 0, '{');
      if (block->type == PRS_LAYOUT_BLOCK_GRID)
        append_grid (out, pretty, &names, block);
      else
        {
          append_member (out, pretty, 2, TRUE, names.type);
          g_string_append (out, names.text);
          append_member (out, pretty, 2, FALSE, names.text);
          prs_json_append_string (out, block->text);
        }
      close_container (out, pretty, 1, '}');
    }
  /* json-glib writes an empty array as [] even when pretty */
  close_container (out, pretty && blocks->len > 0, 0, ']');
  names_clear (&names);

  return g_string_free (out, FALSE);
}
