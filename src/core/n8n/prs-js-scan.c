/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-js-scan.c: finds tool parameters in Code-node JavaScript (docs/workflows.md).
 *
 * Two passes, both iterative and linear in the size of the code:
 *
 * 1. A tokenizer turns the text into identifiers, numbers, strings,
 *    template literals, regular-expression literals and punctuators. Comments
 *    vanish, and a string, template (with everything inside its `${…}`) or
 *    regular expression is one opaque token, so nothing inside them can ever
 *    look like a form. Each token remembers whether a line break preceded
 *    it, because several rules depend on where a statement ends.
 *
 * 2. Brackets are matched with an explicit stack, then every `parameters` /
 *    `body` identifier is tried against the recognised forms.
 *
 * The input comes from the network (n8n workflows): unterminated literals,
 * NUL bytes, invalid UTF-8 and absurd nesting must all degrade into "no
 * match" rather than a crash or a slow scan.
 */
#include <errno.h>
#include <string.h>

#include "prs-js-scan.h"
#include "prs-json.h"

/* json-glib's parser recurses once per nesting level; deeper literals are
 * still arrays or objects, only without a default. */
#define MAX_JSON_DEPTH 64

#define NO_MATCH G_MAXUINT32

typedef enum
{
  TOK_IDENT,
  TOK_NUMBER,
  TOK_STRING,
  TOK_TEMPLATE,
  TOK_REGEX,
  TOK_PUNCT,
  TOK_OTHER,
  TOK_EOF,
} TokKind;

enum
{
  TOK_FLAG_NL_BEFORE    = 1 << 0, /* a line break separates it from the previous token */
  TOK_FLAG_SUBST        = 1 << 1, /* a template literal with a `${` */
  TOK_FLAG_UNTERMINATED = 1 << 2, /* a string or template cut by a line break or the end */
};

typedef struct
{
  guint32 start;
  guint32 end;
  guint32 match;     /* the index of the matching bracket, or NO_MATCH */
  guint32 non_json;  /* how many tokens before this one cannot appear in JSON */
  guint8  kind;
  guint8  flags;
} Token;

/* A growable array of tokens, appended to once per token. */
typedef struct
{
  Token *data;
  gsize  len;
  gsize  alloc;
} Tokens;

typedef struct
{
  const char *text;
  gsize       len;
  gsize       pos;
  Tokens     *tokens;
  GArray     *brace_depths;    /* guint32 per open `${`: braces opened inside it */
  gboolean    nl_pending;
  gboolean    regex_allowed;   /* whether a `/` here starts a regular expression */
  gsize       no_regex_until;  /* after an unterminated regex, up to the line end */
  guint32     tmpl_start;      /* the outermost template literal being read */
  gboolean    tmpl_nl;
  gboolean    tmpl_subst;
} Lexer;

struct _PrsParamSet
{
  GPtrArray  *params;   /* PrsParam*, in order of first occurrence */
  GHashTable *by_name;  /* name → PrsParam*, borrowed from params */
  gboolean    overflowed;  /* more than PRS_TOOL_MAX_PARAMS were read */
};

/* Words after which a `/` begins an expression, so a regular expression. */
static const char * const regex_keywords[] = {
  "await", "case", "delete", "do", "else", "extends", "in", "instanceof", "new", "of",
  "return", "throw", "typeof", "void", "yield",
};

/* Longest first: the tokenizer takes the first that matches. */
static const char * const punctuators[] = {
  ">>>=",
  "...", "===", "!==", "**=", "<<=", ">>=", ">>>", "&&=", "||=", "?\?=",
  "=>", "==", "!=", "<=", ">=", "&&", "||", "??", "?.", "++", "--", "+=", "-=", "*=", "/=",
  "%=", "&=", "|=", "^=", "**", "<<", ">>",
  "{", "}", "(", ")", "[", "]", ";", ",", "<", ">", "+", "-", "*", "/", "%", "&", "|", "^",
  "!", "~", "?", ":", "=", ".",
};

/* punctuators[] and regex_keywords[] by first character, in table order
 * (so punctuators stay longest first): the tokenizer only tries the few
 * entries that can match. */
typedef struct
{
  guint8 n;
  guint8 index[7];
  guint8 len[7];     /* strlen of each */
} Group;

typedef struct
{
  Group punct_groups[128];
  Group keyword_groups[26];  /* by first letter - 'a' */
} Tables;

static const Tables *
tables (void)
{
  static Tables t;
  static gsize initialised = 0;

  if (g_once_init_enter (&initialised))
    {
      for (guint i = 0; i < G_N_ELEMENTS (punctuators); i++)
        {
          Group *group = &t.punct_groups[(guchar) punctuators[i][0]];

          g_assert (group->n < G_N_ELEMENTS (group->index));
          group->len[group->n] = (guint8) strlen (punctuators[i]);
          group->index[group->n++] = (guint8) i;
        }
      for (guint i = 0; i < G_N_ELEMENTS (regex_keywords); i++)
        {
          Group *group;

          g_assert (regex_keywords[i][0] >= 'a' && regex_keywords[i][0] <= 'z');
          group = &t.keyword_groups[regex_keywords[i][0] - 'a'];
          g_assert (group->n < G_N_ELEMENTS (group->index));
          group->len[group->n] = (guint8) strlen (regex_keywords[i]);
          group->index[group->n++] = (guint8) i;
        }
      g_once_init_leave (&initialised, 1);
    }

  return &t;
}

/* Whether the identifier @s (@n bytes) is one of regex_keywords[]. */
static gboolean
is_regex_keyword (const char *s,
                  gsize       n)
{
  const Group *group;

  if (n < 2 || n > 10 || s[0] < 'a' || s[0] > 'z')
    return FALSE;

  group = &tables ()->keyword_groups[s[0] - 'a'];
  for (guint g = 0; g < group->n; g++)
    {
      if (group->len[g] == n && memcmp (regex_keywords[group->index[g]], s, n) == 0)
        return TRUE;
    }

  return FALSE;
}

/* ------------------------------------------------------------------------ */
/* Characters */

static inline gboolean
is_ident_start (guchar c)
{
  return g_ascii_isalpha (c) || c == '_' || c == '$' || c == '\\' || c >= 0x80;
}

static inline gboolean
is_ident_part (guchar c)
{
  return is_ident_start (c) || g_ascii_isdigit (c);
}

/* The length of the line terminator at @p (LF, CR, CRLF, U+2028, U+2029), or 0. */
static gsize
line_break_len (const char *text,
                gsize       len,
                gsize       p)
{
  guchar c = text[p];

  if (c == '\n')
    return 1;
  if (c == '\r')
    return p + 1 < len && text[p + 1] == '\n' ? 2 : 1;
  if (c == 0xE2 && p + 2 < len && (guchar) text[p + 1] == 0x80 &&
      ((guchar) text[p + 2] == 0xA8 || (guchar) text[p + 2] == 0xA9))
    return 3;

  return 0;
}

/* The length of the non-line-break white space at @p (ASCII, NBSP, BOM), or 0. */
static gsize
space_len (const char *text,
           gsize       len,
           gsize       p)
{
  guchar c = text[p];

  if (c == ' ' || c == '\t' || c == '\v' || c == '\f')
    return 1;
  if (c == 0xC2 && p + 1 < len && (guchar) text[p + 1] == 0xA0)
    return 2;
  if (c == 0xEF && p + 2 < len && (guchar) text[p + 1] == 0xBB && (guchar) text[p + 2] == 0xBF)
    return 3;

  return 0;
}

static gboolean
is_ascii_identifier (const char *s,
                     gsize       len)
{
  if (len == 0 || g_ascii_isdigit (s[0]))
    return FALSE;

  for (gsize i = 0; i < len; i++)
    {
      if (!g_ascii_isalnum (s[i]) && s[i] != '_' && s[i] != '$')
        return FALSE;
    }

  return TRUE;
}

/* ------------------------------------------------------------------------ */
/* Pass 1: tokens */

/* Appends a token, filled in place. */
static inline void
tokens_push (Tokens  *tokens,
             guint32  start,
             guint32  end,
             TokKind  kind,
             guint8   flags)
{
  Token *tok;

  if (G_UNLIKELY (tokens->len == tokens->alloc))
    {
      tokens->alloc = MAX (16, tokens->alloc * 2);
      tokens->data = g_renew (Token, tokens->data, tokens->alloc);
    }

  tok = &tokens->data[tokens->len++];
  tok->start = start;
  tok->end = end;
  tok->match = NO_MATCH;
  tok->non_json = 0;
  tok->kind = kind;
  tok->flags = flags;
}

static void
lexer_emit (Lexer   *lx,
            TokKind  kind,
            gsize    start,
            guint8   flags)
{
  if (lx->nl_pending)
    flags |= TOK_FLAG_NL_BEFORE;
  lx->nl_pending = FALSE;

  /* Inside a template's `${…}` nothing is kept: the whole template is
   * emitted as one token when it closes. */
  if (lx->brace_depths->len > 0)
    return;

  tokens_push (lx->tokens, (guint32) start, (guint32) lx->pos, kind, flags);
}

static void
lexer_emit_template (Lexer   *lx,
                     gboolean terminated)
{
  tokens_push (lx->tokens, lx->tmpl_start, (guint32) lx->pos, TOK_TEMPLATE,
               (lx->tmpl_nl ? TOK_FLAG_NL_BEFORE : 0) |
               (lx->tmpl_subst ? TOK_FLAG_SUBST : 0) |
               (terminated ? 0 : TOK_FLAG_UNTERMINATED));
  lx->nl_pending = FALSE;
}

/* Reads template characters from lx->pos up to the closing backtick or the
 * next `${`. */
static void
lexer_template_chars (Lexer *lx)
{
  while (lx->pos < lx->len)
    {
      char c = lx->text[lx->pos];

      if (c == '\\')
        {
          lx->pos = MIN (lx->pos + 2, lx->len);
        }
      else if (c == '`')
        {
          lx->pos++;
          if (lx->brace_depths->len == 0)
            lexer_emit_template (lx, TRUE);
          lx->regex_allowed = FALSE;
          return;
        }
      else if (c == '$' && lx->pos + 1 < lx->len && lx->text[lx->pos + 1] == '{')
        {
          guint32 zero = 0;

          lx->pos += 2;
          if (lx->brace_depths->len == 0)
            lx->tmpl_subst = TRUE;
          g_array_append_val (lx->brace_depths, zero);
          lx->regex_allowed = TRUE;
          lx->nl_pending = FALSE;
          return;
        }
      else
        {
          lx->pos++;
        }
    }

  /* Cut by the end of the text; inside a `${…}` lexer_run finishes it. */
  if (lx->brace_depths->len == 0)
    lexer_emit_template (lx, FALSE);
}

static void
lexer_template_start (Lexer *lx)
{
  if (lx->brace_depths->len == 0)
    {
      lx->tmpl_start = (guint32) lx->pos;
      lx->tmpl_nl = lx->nl_pending;
      lx->tmpl_subst = FALSE;
    }
  lx->nl_pending = FALSE;
  lx->pos++;
  lexer_template_chars (lx);
}

static void
lexer_string (Lexer *lx)
{
  gsize start = lx->pos;
  char quote = lx->text[lx->pos];
  guint8 flags = TOK_FLAG_UNTERMINATED;

  lx->pos++;
  while (lx->pos < lx->len)
    {
      char c = lx->text[lx->pos];

      if (c == quote)
        {
          lx->pos++;
          flags = 0;
          break;
        }
      if (c == '\\')
        {
          gsize nl;

          lx->pos++;
          if (lx->pos >= lx->len)
            break;
          nl = line_break_len (lx->text, lx->len, lx->pos);
          lx->pos += nl > 0 ? nl : 1;
          continue;
        }
      if (c == '\n' || c == '\r')
        break;
      lx->pos++;
    }

  lx->regex_allowed = FALSE;
  lexer_emit (lx, TOK_STRING, start, flags);
}

static void
lexer_number (Lexer *lx)
{
  gsize start = lx->pos;
  const char *t = lx->text;
  gboolean prefixed = FALSE;
  gboolean seen_dot = FALSE;

  if (t[lx->pos] == '0' && lx->pos + 1 < lx->len)
    {
      char x = g_ascii_tolower (t[lx->pos + 1]);

      prefixed = x == 'x' || x == 'b' || x == 'o';
    }

  while (lx->pos < lx->len)
    {
      char c = t[lx->pos];

      if (g_ascii_isalnum (c) || c == '_')
        {
          lx->pos++;
          if (!prefixed && (c == 'e' || c == 'E') && lx->pos < lx->len &&
              (t[lx->pos] == '+' || t[lx->pos] == '-'))
            lx->pos++;
        }
      else if (c == '.' && !prefixed && !seen_dot)
        {
          seen_dot = TRUE;
          lx->pos++;
        }
      else
        {
          break;
        }
    }

  lx->regex_allowed = FALSE;
  lexer_emit (lx, TOK_NUMBER, start, 0);
}

static void
lexer_ident (Lexer *lx)
{
  gsize start = lx->pos;
  gsize n;

  while (lx->pos < lx->len && is_ident_part ((guchar) lx->text[lx->pos]))
    {
      if ((guchar) lx->text[lx->pos] >= 0x80 &&
          (space_len (lx->text, lx->len, lx->pos) > 0 ||
           line_break_len (lx->text, lx->len, lx->pos) > 0))
        break;
      lx->pos++;
    }

  n = lx->pos - start;
  lx->regex_allowed = is_regex_keyword (lx->text + start, n);

  lexer_emit (lx, TOK_IDENT, start, 0);
}

/* Tries to read a regular-expression literal at lx->pos (a `/`). A literal
 * cannot span lines: when none closes on this line the `/` is taken for a
 * division, and so is every other `/` up to the line end, which keeps a
 * line full of slashes linear. */
static gboolean
lexer_regex (Lexer *lx)
{
  gsize p = lx->pos + 1;
  gboolean in_class = FALSE;
  gsize start = lx->pos;

  while (p < lx->len)
    {
      char c = lx->text[p];

      if (line_break_len (lx->text, lx->len, p) > 0)
        break;
      if (c == '\\')
        {
          p++;
          if (p >= lx->len || line_break_len (lx->text, lx->len, p) > 0)
            break;
          p++;
          continue;
        }
      if (c == '[')
        {
          in_class = TRUE;
        }
      else if (c == ']')
        {
          in_class = FALSE;
        }
      else if (c == '/' && !in_class)
        {
          lx->pos = p + 1;
          while (lx->pos < lx->len && is_ident_part ((guchar) lx->text[lx->pos]))
            lx->pos++;
          lx->regex_allowed = FALSE;
          lexer_emit (lx, TOK_REGEX, start, 0);
          return TRUE;
        }
      p++;
    }

  lx->no_regex_until = p;
  return FALSE;
}

static void
lexer_punct (Lexer *lx)
{
  gsize start = lx->pos;
  const char *p = lx->text + lx->pos;
  gsize avail = lx->len - lx->pos;
  gsize n = 0;
  const Group *group = (guchar) p[0] < 128 ? &tables ()->punct_groups[(guchar) p[0]] : NULL;

  for (guint g = 0; group != NULL && g < group->n; g++)
    {
      const char *punct = punctuators[group->index[g]];
      gsize plen = group->len[g];

      if (plen <= avail && memcmp (punct, p, plen) == 0)
        {
          /* `a?.5:1` is a conditional, not optional chaining. */
          if (plen == 2 && p[0] == '?' && p[1] == '.' && avail > 2 && g_ascii_isdigit (p[2]))
            continue;
          n = plen;
          break;
        }
    }

  if (n == 0)
    {
      lx->pos++;
      lx->regex_allowed = TRUE;
      lexer_emit (lx, TOK_OTHER, start, 0);
      return;
    }

  lx->pos += n;

  if (lx->brace_depths->len > 0 && n == 1 && (p[0] == '{' || p[0] == '}'))
    {
      guint32 *depth = &g_array_index (lx->brace_depths, guint32, lx->brace_depths->len - 1);

      if (p[0] == '{')
        (*depth)++;
      else
        (*depth)--;
    }

  /* After `)`, `]`, and a postfix `++`/`--`, a `/` divides. */
  lx->regex_allowed = !((n == 1 && (p[0] == ')' || p[0] == ']')) ||
                        (n == 2 && (p[0] == '+' || p[0] == '-') && p[1] == p[0]));

  lexer_emit (lx, TOK_PUNCT, start, 0);
}

static void
lexer_run (Lexer *lx)
{
  while (lx->pos < lx->len)
    {
      const char *t = lx->text;
      guchar c = t[lx->pos];
      char next = lx->pos + 1 < lx->len ? t[lx->pos + 1] : '\0';
      gsize n;

      /* The commonest characters first: the branches below would take
       * them the same way. */
      if (c == ' ')
        {
          lx->pos++;
        }
      else if (g_ascii_isalpha (c) || c == '_' || c == '$')
        {
          lexer_ident (lx);
        }
      else if ((n = line_break_len (t, lx->len, lx->pos)) > 0)
        {
          lx->nl_pending = TRUE;
          lx->pos += n;
        }
      else if ((n = space_len (t, lx->len, lx->pos)) > 0)
        {
          lx->pos += n;
        }
      else if (c == '/' && next == '/')
        {
          while (lx->pos < lx->len && line_break_len (t, lx->len, lx->pos) == 0)
            lx->pos++;
        }
      else if (c == '/' && next == '*')
        {
          gsize p = lx->pos + 2;
          gsize end = lx->len;

          for (; p < lx->len; p++)
            {
              if (t[p] == '*' && p + 1 < lx->len && t[p + 1] == '/')
                {
                  end = p + 2;
                  break;
                }
              if (line_break_len (t, lx->len, p) > 0)
                lx->nl_pending = TRUE;
            }
          lx->pos = end;
        }
      else if (c == '\'' || c == '"')
        {
          lexer_string (lx);
        }
      else if (c == '`')
        {
          lexer_template_start (lx);
        }
      else if (g_ascii_isdigit (c) || (c == '.' && g_ascii_isdigit (next)))
        {
          lexer_number (lx);
        }
      else if (is_ident_start (c))
        {
          lexer_ident (lx);
        }
      else if (c == '}' && lx->brace_depths->len > 0 &&
               g_array_index (lx->brace_depths, guint32, lx->brace_depths->len - 1) == 0)
        {
          g_array_set_size (lx->brace_depths, lx->brace_depths->len - 1);
          lx->pos++;
          lexer_template_chars (lx);
        }
      else if (c == '/' && lx->regex_allowed && lx->pos >= lx->no_regex_until && lexer_regex (lx))
        {
          /* read as a regular expression */
        }
      else
        {
          lexer_punct (lx);
        }
    }

  /* The end came inside a template literal's `${…}`. */
  if (lx->brace_depths->len > 0)
    {
      g_array_set_size (lx->brace_depths, 0);
      lexer_emit_template (lx, FALSE);
    }

  tokens_push (lx->tokens, (guint32) lx->len, (guint32) lx->len, TOK_EOF,
               lx->nl_pending ? TOK_FLAG_NL_BEFORE : 0);
}

/* ------------------------------------------------------------------------ */
/* Pass 2: brackets, then the forms */

typedef struct
{
  const char  *text;
  const Token *toks;
  guint        n_toks;  /* including the final TOK_EOF */
} Scan;

/* Past the end is the end. */
static inline const Token *
scan_tok (const Scan *sc,
          gsize       i)
{
  return &sc->toks[MIN (i, (gsize) sc->n_toks - 1)];
}

static inline gboolean
tok_is (const Scan  *sc,
        const Token *tok,
        TokKind      kind,
        const char  *str)
{
  gsize n;

  if (tok->kind != kind)
    return FALSE;
  if (str == NULL)
    return TRUE;

  n = strlen (str);
  return tok->end - tok->start == n && memcmp (sc->text + tok->start, str, n) == 0;
}

static inline gboolean
tok_punct (const Scan  *sc,
           const Token *tok,
           const char  *str)
{
  return tok_is (sc, tok, TOK_PUNCT, str);
}

static gboolean
tok_json_ok (const Scan  *sc,
             const Token *tok)
{
  switch ((TokKind) tok->kind)
    {
    case TOK_STRING:
    case TOK_NUMBER:
      return TRUE;
    case TOK_IDENT:
      return tok_is (sc, tok, TOK_IDENT, "true") || tok_is (sc, tok, TOK_IDENT, "false") ||
             tok_is (sc, tok, TOK_IDENT, "null");
    case TOK_PUNCT:
      if (tok->end - tok->start != 1)
        return FALSE;
      switch (sc->text[tok->start])
        {
        case '[': case ']': case '{': case '}': case ',': case ':': case '-':
          return TRUE;
        default:
          return FALSE;
        }
    case TOK_TEMPLATE:
    case TOK_REGEX:
    case TOK_OTHER:
    case TOK_EOF:
    default:
      return FALSE;
    }
}

/* Fills in Token.match and Token.non_json. A closer that does not match the
 * innermost opener stays unmatched and leaves the stack alone. */
static void
match_brackets (const char *text,
                Tokens     *tokens)
{
  g_autoptr(GArray) stack = g_array_new (FALSE, FALSE, sizeof (guint32));
  Scan sc = { text, tokens->data, (guint) tokens->len };
  guint32 non_json = 0;

  for (guint32 i = 0; i < tokens->len; i++)
    {
      Token *tok = &tokens->data[i];
      char c;

      tok->non_json = non_json;
      if (!tok_json_ok (&sc, tok))
        non_json++;

      if (tok->kind != TOK_PUNCT || tok->end - tok->start != 1)
        continue;

      c = text[tok->start];
      if (c == '(' || c == '[' || c == '{')
        {
          g_array_append_val (stack, i);
        }
      else if ((c == ')' || c == ']' || c == '}') && stack->len > 0)
        {
          guint32 open = g_array_index (stack, guint32, stack->len - 1);
          char oc = text[tokens->data[open].start];

          if ((c == ')' && oc == '(') || (c == ']' && oc == '[') || (c == '}' && oc == '{'))
            {
              g_array_set_size (stack, stack->len - 1);
              tok->match = open;
              tokens->data[open].match = i;
            }
        }
    }
}

/* The cooked value of a string or template literal body (without quotes).
 * Returns NULL when the value holds U+0000, which a C string cannot carry. */
static char *
js_unescape (const char *s,
             gsize       len,
             gboolean    template)
{
  g_autoptr(GString) out = g_string_sized_new (len);
  gboolean has_nul = FALSE;
  gsize i = 0;

  while (i < len)
    {
      char c = s[i];
      gunichar cp;

      if (c == '\r' && template)
        {
          /* Template literals normalise raw CRLF and CR to LF. */
          g_string_append_c (out, '\n');
          i += i + 1 < len && s[i + 1] == '\n' ? 2 : 1;
          continue;
        }
      if (c == '\0')
        has_nul = TRUE;
      if (c != '\\' || i + 1 >= len)
        {
          g_string_append_c (out, c);
          i++;
          continue;
        }

      i++;
      c = s[i];
      {
        gsize nl = line_break_len (s, len, i);

        if (nl > 0)
          {
            i += nl;
            continue;
          }
      }
      i++;

      switch (c)
        {
        case 'n':
          g_string_append_c (out, '\n');
          break;
        case 't':
          g_string_append_c (out, '\t');
          break;
        case 'r':
          g_string_append_c (out, '\r');
          break;
        case 'b':
          g_string_append_c (out, '\b');
          break;
        case 'f':
          g_string_append_c (out, '\f');
          break;
        case 'v':
          g_string_append_c (out, '\v');
          break;

        case '0': case '1': case '2': case '3':
        case '4': case '5': case '6': case '7':
          {
            /* \0, and the legacy octal escapes of sloppy-mode strings. */
            guint max_digits = c <= '3' ? 3 : 2;
            guint n = 1;

            cp = c - '0';
            while (n < max_digits && i < len && s[i] >= '0' && s[i] <= '7')
              {
                cp = cp * 8 + (s[i] - '0');
                i++;
                n++;
              }
            if (cp == 0)
              has_nul = TRUE;
            g_string_append_unichar (out, cp);
          }
          break;

        case 'x':
          if (i + 1 < len && g_ascii_isxdigit (s[i]) && g_ascii_isxdigit (s[i + 1]))
            {
              cp = g_ascii_xdigit_value (s[i]) * 16 + g_ascii_xdigit_value (s[i + 1]);
              i += 2;
              if (cp == 0)
                has_nul = TRUE;
              g_string_append_unichar (out, cp);
            }
          else
            {
              g_string_append_c (out, 'x');
            }
          break;

        case 'u':
          {
            gboolean ok = FALSE;

            cp = 0;
            if (i < len && s[i] == '{')
              {
                gsize j = i + 1;

                while (j < len && g_ascii_isxdigit (s[j]) && cp <= 0x10FFFF)
                  cp = cp * 16 + g_ascii_xdigit_value (s[j++]);
                if (j > i + 1 && j < len && s[j] == '}' && cp <= 0x10FFFF)
                  {
                    ok = TRUE;
                    i = j + 1;
                  }
              }
            else if (i + 3 < len && g_ascii_isxdigit (s[i]) && g_ascii_isxdigit (s[i + 1]) &&
                     g_ascii_isxdigit (s[i + 2]) && g_ascii_isxdigit (s[i + 3]))
              {
                for (guint k = 0; k < 4; k++)
                  cp = cp * 16 + g_ascii_xdigit_value (s[i + k]);
                i += 4;
                ok = TRUE;

                /* A surrogate pair written as two escapes. */
                if (cp >= 0xD800 && cp <= 0xDBFF && i + 5 < len && s[i] == '\\' &&
                    s[i + 1] == 'u' && g_ascii_isxdigit (s[i + 2]) &&
                    g_ascii_isxdigit (s[i + 3]) && g_ascii_isxdigit (s[i + 4]) &&
                    g_ascii_isxdigit (s[i + 5]))
                  {
                    gunichar low = 0;

                    for (guint k = 2; k < 6; k++)
                      low = low * 16 + g_ascii_xdigit_value (s[i + k]);
                    if (low >= 0xDC00 && low <= 0xDFFF)
                      {
                        cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                        i += 6;
                      }
                  }
              }

            if (!ok)
              g_string_append_c (out, 'u');
            else if (cp >= 0xD800 && cp <= 0xDFFF)
              g_string_append_unichar (out, 0xFFFD);  /* a lone surrogate */
            else
              {
                if (cp == 0)
                  has_nul = TRUE;
                g_string_append_unichar (out, cp);
              }
          }
          break;

        default:
          /* \\ \' \" \` \$ and every other character stand for themselves. */
          g_string_append_c (out, c);
          break;
        }
    }

  if (has_nul)
    return NULL;

  if (!g_utf8_validate (out->str, out->len, NULL))
    return g_utf8_make_valid (out->str, out->len);

  return g_string_free (g_steal_pointer (&out), FALSE);
}

/* The value of a string literal token, or NULL if it is not a complete one. */
static char *
tok_string_value (const Scan  *sc,
                  const Token *tok)
{
  if (tok->flags & TOK_FLAG_UNTERMINATED)
    return NULL;
  if (tok->kind == TOK_TEMPLATE && (tok->flags & TOK_FLAG_SUBST))
    return NULL;
  if (tok->kind != TOK_STRING && tok->kind != TOK_TEMPLATE)
    return NULL;

  return js_unescape (sc->text + tok->start + 1, tok->end - tok->start - 2,
                      tok->kind == TOK_TEMPLATE);
}

/* `digits` or `digits.digits` */
static gboolean
tok_is_plain_number (const Scan  *sc,
                     const Token *tok,
                     gboolean    *out_decimal)
{
  const char *s = sc->text + tok->start;
  gsize len = tok->end - tok->start;
  gsize i = 0;

  if (tok->kind != TOK_NUMBER)
    return FALSE;

  while (i < len && g_ascii_isdigit (s[i]))
    i++;
  if (i == 0)
    return FALSE;
  *out_decimal = FALSE;
  if (i == len)
    return TRUE;
  if (s[i] != '.' || i + 1 == len)
    return FALSE;
  for (i++; i < len; i++)
    {
      if (!g_ascii_isdigit (s[i]))
        return FALSE;
    }
  *out_decimal = TRUE;

  return TRUE;
}

/* Whether the literal that ends just before token @i ends the expression. */
static gboolean
ends_literal (const Scan *sc,
              gsize       i)
{
  const Token *tok = scan_tok (sc, i);

  if (tok->kind == TOK_EOF || (tok->flags & TOK_FLAG_NL_BEFORE))
    return TRUE;

  if (tok->kind != TOK_PUNCT || tok->end - tok->start != 1)
    return FALSE;

  switch (sc->text[tok->start])
    {
    case ';': case ',': case ')': case ']': case '}': case ':':
      return TRUE;
    default:
      return FALSE;
    }
}

/* The tree of the strict JSON literal in tokens @first to @last when it
 * holds nothing but brackets, ASCII strings without escapes, integers of at
 * most 18 digits, true, false and null: built straight from the tokens,
 * exactly as json-glib's parser would (its integers are 64-bit, so these
 * cannot overflow). NULL for anything else, which json-glib then parses. */
static JsonNode *
json_literal_simple (const Scan *sc,
                     gsize       first,
                     gsize       last)
{
  g_autoptr(GPtrArray) stack = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  /* per open container: the key it goes under in its parent (NULL in an array) */
  g_autoptr(GPtrArray) keys = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *key = NULL;  /* the current object's member waiting for its value */
  g_autoptr(JsonNode) root = NULL;
  gboolean negative = FALSE;

  for (gsize i = first; i <= last; i++)
    {
      const Token *tok = &sc->toks[i];
      const char *s = sc->text + tok->start;
      gsize len = tok->end - tok->start;
      JsonNode *parent = stack->len > 0 ? g_ptr_array_index (stack, stack->len - 1) : NULL;
      JsonNode *value = NULL;

      if (negative && tok->kind != TOK_NUMBER)
        return NULL;

      switch ((TokKind) tok->kind)
        {
        case TOK_PUNCT:
          if (len != 1)
            return NULL;
          if (s[0] == '[' || s[0] == '{')
            {
              JsonNode *container = json_node_alloc ();

              if (s[0] == '[')
                json_node_take_array (json_node_init (container, JSON_NODE_ARRAY), json_array_new ());
              else
                json_node_take_object (json_node_init (container, JSON_NODE_OBJECT), json_object_new ());
              if (parent != NULL && !JSON_NODE_HOLDS_ARRAY (parent) && key == NULL)
                {
                  json_node_unref (container);
                  return NULL;
                }
              g_ptr_array_add (stack, container);
              g_ptr_array_add (keys, g_steal_pointer (&key));
              continue;
            }
          if (s[0] == ']' || s[0] == '}')
            {
              if (parent == NULL || key != NULL ||
                  JSON_NODE_HOLDS_ARRAY (parent) != (s[0] == ']'))
                return NULL;
              value = g_ptr_array_steal_index (stack, stack->len - 1);
              key = g_ptr_array_steal_index (keys, keys->len - 1);
              parent = stack->len > 0 ? g_ptr_array_index (stack, stack->len - 1) : NULL;
              break;
            }
          if (s[0] == '-')
            {
              negative = TRUE;
              continue;
            }
          if (s[0] == ',' || s[0] == ':')
            continue;
          return NULL;

        case TOK_STRING:
          if (len < 2 || s[0] != '"' || s[len - 1] != '"')
            return NULL;
          for (gsize j = 1; j + 1 < len; j++)
            {
              guchar c = s[j];

              if (c < 0x20 || c > 0x7E || c == '\\' || c == '"')
                return NULL;
            }
          if (parent != NULL && JSON_NODE_HOLDS_OBJECT (parent) && key == NULL)
            {
              key = g_strndup (s + 1, len - 2);
              continue;
            }
          {
            char buffer[64];
            g_autofree char *heap = NULL;
            char *str = len - 2 < sizeof buffer ? buffer : (heap = g_malloc (len - 1));

            memcpy (str, s + 1, len - 2);
            str[len - 2] = '\0';
            value = json_node_init_string (json_node_alloc (), str);
          }
          break;

        case TOK_NUMBER:
          {
            gint64 n = 0;

            if (len > 18)
              return NULL;
            for (gsize j = 0; j < len; j++)
              {
                if (!g_ascii_isdigit (s[j]))
                  return NULL;
                n = n * 10 + (s[j] - '0');
              }
            value = json_node_init_int (json_node_alloc (), negative ? -n : n);
            negative = FALSE;
          }
          break;

        case TOK_IDENT:
          if (len == 4 && memcmp (s, "true", 4) == 0)
            value = json_node_init_boolean (json_node_alloc (), TRUE);
          else if (len == 5 && memcmp (s, "false", 5) == 0)
            value = json_node_init_boolean (json_node_alloc (), FALSE);
          else if (len == 4 && memcmp (s, "null", 4) == 0)
            value = json_node_init_null (json_node_alloc ());
          else
            return NULL;
          break;

        case TOK_TEMPLATE:
        case TOK_REGEX:
        case TOK_OTHER:
        case TOK_EOF:
        default:
          return NULL;
        }

      if (parent == NULL)
        {
          if (root != NULL)
            {
              json_node_unref (value);
              return NULL;
            }
          root = value;
        }
      else if (JSON_NODE_HOLDS_ARRAY (parent))
        {
          json_node_set_parent (value, parent);
          json_array_add_element (json_node_get_array (parent), value);
        }
      else if (key != NULL)
        {
          json_node_set_parent (value, parent);
          json_object_set_member (json_node_get_object (parent), key, value);
          g_clear_pointer (&key, g_free);
        }
      else
        {
          json_node_unref (value);
          return NULL;
        }
    }

  if (stack->len > 0 || key != NULL || negative)
    return NULL;

  return g_steal_pointer (&root);
}

static JsonNode *
json_literal (const Scan *sc,
              gsize       first,
              gsize       last)
{
  g_autofree char *text = NULL;
  const char *start;
  gsize len;
  JsonNode *node;
  guint depth = 0;

  /* Fast refusal, which also keeps nested forms from re-parsing each other. */
  if (scan_tok (sc, last + 1)->non_json != sc->toks[first].non_json)
    return NULL;

  for (gsize i = first; i <= last; i++)
    {
      const Token *tok = &sc->toks[i];

      if (tok->kind != TOK_PUNCT)
        continue;
      if (tok_punct (sc, tok, "[") || tok_punct (sc, tok, "{"))
        {
          if (++depth > MAX_JSON_DEPTH)
            return NULL;
        }
      else if (tok_punct (sc, tok, "]") || tok_punct (sc, tok, "}"))
        {
          depth--;
        }
    }

  /* As a C string: up to a NUL byte, if the code holds one. */
  start = sc->text + sc->toks[first].start;
  len = strnlen (start, sc->toks[last].end - sc->toks[first].start);

  /* docs/workflows.md: kept when it parses as JSON, strictly: JavaScript's single
   * quotes, bare keys and trailing commas do not. */
  if (!prs_json_text_is_strict (start, len))
    return NULL;

  /* The tokens are the JSON text's tokens only when the whole text is. */
  if (len == sc->toks[last].end - sc->toks[first].start &&
      (node = json_literal_simple (sc, first, last)) != NULL)
    return node;

  text = g_strndup (start, len);

  return json_from_string (text, NULL);
}

/* Reads the LITERAL of an optional form at token @i: its type, and its
 * default (NULL for none). */
static void
read_literal (const Scan    *sc,
              gsize          i,
              PrsParamType  *out_type,
              JsonNode     **out_default)
{
  const Token *tok = scan_tok (sc, i);
  const Token *num = NULL;
  gboolean decimal = FALSE;
  gsize last = i;

  *out_type = PRS_PARAM_STRING;
  *out_default = NULL;

  if (tok_punct (sc, tok, "-") && tok_is_plain_number (sc, scan_tok (sc, i + 1), &decimal))
    {
      num = scan_tok (sc, i + 1);
      last = i + 1;
    }
  else if (tok_is_plain_number (sc, tok, &decimal))
    {
      num = tok;
    }

  if (num != NULL)
    {
      g_autofree char *text = NULL;
      gsize sign = num == tok ? 0 : 1;
      gsize digits = num->end - num->start;
      JsonNode *node;
      gint64 value;

      if (!ends_literal (sc, last + 1))
        return;

      /* "-" and the digits (a comment may separate them in the code) */
      text = g_malloc (sign + digits + 1);
      text[0] = '-';
      memcpy (text + sign, sc->text + num->start, digits);
      text[sign + digits] = '\0';
      node = json_node_new (JSON_NODE_VALUE);
      errno = 0;
      value = g_ascii_strtoll (text, NULL, 10);
      if (!decimal && errno == 0)
        json_node_set_int (node, value);
      else
        json_node_set_double (node, g_ascii_strtod (text, NULL));
      *out_type = PRS_PARAM_NUMBER;
      *out_default = node;
      return;
    }

  if (tok_is (sc, tok, TOK_IDENT, "true") || tok_is (sc, tok, TOK_IDENT, "false"))
    {
      if (ends_literal (sc, i + 1))
        {
          *out_type = PRS_PARAM_BOOLEAN;
          *out_default = json_node_init_boolean (json_node_alloc (),
                                                 sc->text[tok->start] == 't');
        }
      return;
    }

  if ((tok_punct (sc, tok, "[") || tok_punct (sc, tok, "{")) && tok->match != NO_MATCH)
    {
      g_autoptr(JsonNode) node = NULL;
      gboolean array = sc->text[tok->start] == '[';

      if (!ends_literal (sc, tok->match + 1))
        return;

      *out_type = array ? PRS_PARAM_ARRAY : PRS_PARAM_OBJECT;
      node = json_literal (sc, i, tok->match);
      if (node != NULL &&
          JSON_NODE_TYPE (node) == (array ? JSON_NODE_ARRAY : JSON_NODE_OBJECT))
        *out_default = g_steal_pointer (&node);
      return;
    }

  if (tok->kind == TOK_STRING || tok->kind == TOK_TEMPLATE)
    {
      g_autofree char *value = NULL;

      if ((tok->flags & (TOK_FLAG_UNTERMINATED | TOK_FLAG_SUBST)) || !ends_literal (sc, i + 1))
        return;

      value = tok_string_value (sc, tok);
      if (value != NULL)
        *out_default = json_node_init_string (json_node_alloc (), value);
      return;
    }
}

static inline gboolean
tok_is_regex_keyword (const Scan  *sc,
                      const Token *tok)
{
  return tok->kind == TOK_IDENT && is_regex_keyword (sc->text + tok->start, tok->end - tok->start);
}

/* Whether token @i, at the start of a new line, carries on the expression
 * before it (so no semicolon is inserted there). */
static gboolean
continues_expression (const Scan *sc,
                      gsize       i)
{
  const Token *tok = scan_tok (sc, i);

  switch ((TokKind) tok->kind)
    {
    case TOK_PUNCT:
      return !(tok_punct (sc, tok, "{") || tok_punct (sc, tok, "}") ||
               tok_punct (sc, tok, ")") || tok_punct (sc, tok, "]") ||
               tok_punct (sc, tok, ";") || tok_punct (sc, tok, "++") ||
               tok_punct (sc, tok, "--") || tok_punct (sc, tok, "!") ||
               tok_punct (sc, tok, "~") || tok_punct (sc, tok, "..."));
    case TOK_TEMPLATE:
      return TRUE;  /* a tagged template */
    case TOK_IDENT:
      return tok_is (sc, tok, TOK_IDENT, "in") || tok_is (sc, tok, TOK_IDENT, "instanceof");
    case TOK_NUMBER:
    case TOK_STRING:
    case TOK_REGEX:
    case TOK_OTHER:
    case TOK_EOF:
    default:
      return FALSE;
    }
}

/* Whether the statement ends right after token @i - 1. */
static gboolean
ends_statement (const Scan *sc,
                gsize       i)
{
  const Token *tok = scan_tok (sc, i);

  if (tok->kind == TOK_EOF || tok_punct (sc, tok, ";") || tok_punct (sc, tok, "}"))
    return TRUE;

  return (tok->flags & TOK_FLAG_NL_BEFORE) && !continues_expression (sc, i);
}

/* A token that can end the object of a member access or call. */
static gboolean
ends_operand (const Scan  *sc,
              const Token *tok)
{
  if (tok->kind == TOK_IDENT)
    return !tok_is_regex_keyword (sc, tok);

  return (tok_punct (sc, tok, ")") || tok_punct (sc, tok, "]")) && tok->match != NO_MATCH;
}

/* Whether the member chain ending with `parameters`/`body` at token @i is
 * the whole initialiser of `const NAME = …`. Walks backwards over `.x`,
 * `?.x`, `(…)`, `[…]`, `?.(…)`, `?.[…]`, jumping over brackets, so a walk
 * never visits a token twice across the whole scan. */
static gboolean
is_const_initialiser (const Scan *sc,
                      gsize       i)
{
  for (;;)
    {
      const Token *tok = &sc->toks[i];
      const Token *prev;

      if (i == 0)
        return FALSE;
      prev = &sc->toks[i - 1];

      if ((tok_punct (sc, tok, "(") || tok_punct (sc, tok, "[")) && ends_operand (sc, prev))
        {
          i = prev->kind == TOK_IDENT ? i - 1 : prev->match;
          continue;
        }
      if ((tok_punct (sc, prev, ".") || tok_punct (sc, prev, "?.")) && i >= 2 &&
          ends_operand (sc, &sc->toks[i - 2]))
        {
          const Token *obj = &sc->toks[i - 2];

          i = obj->kind == TOK_IDENT ? i - 2 : obj->match;
          continue;
        }
      break;
    }

  return i >= 3 &&
         tok_punct (sc, &sc->toks[i - 1], "=") &&
         sc->toks[i - 2].kind == TOK_IDENT &&
         tok_is (sc, &sc->toks[i - 3], TOK_IDENT, "const");
}

/* Takes @name and @default_value. */
static void
param_set_add (PrsParamSet  *self,
               char         *name,
               PrsParamType  type,
               gboolean      optional,
               JsonNode     *default_value)
{
  PrsParam *param = g_hash_table_lookup (self->by_name, name);

  if (param != NULL)
    {
      if (optional)
        param->required = FALSE;
      g_free (name);
      g_clear_pointer (&default_value, json_node_unref);
      return;
    }

  /* Past the limit nothing more is kept: a Code node of millions of
   * reads costs its tokens, not a parameter each */
  if (self->params->len >= PRS_TOOL_MAX_PARAMS)
    {
      self->overflowed = TRUE;
      g_free (name);
      g_clear_pointer (&default_value, json_node_unref);
      return;
    }

  /* prs_param_new () without its copies */
  param = g_new0 (PrsParam, 1);
  param->name = name;
  param->type = type;
  param->required = !optional;
  param->default_value = default_value;
  param->description = prs_param_describe (name);
  g_ptr_array_add (self->params, param);
  g_hash_table_insert (self->by_name, param->name, param);
}

/* Tries the forms at the `parameters`/`body` token @i. */
static gboolean
scan_form (PrsParamSet *self,
           const Scan  *sc,
           gsize        i)
{
  const Token *next = scan_tok (sc, i + 1);
  g_autofree char *key = NULL;
  gsize key_end = 0;  /* the last token of the KEY access */

  if (tok_punct (sc, next, ".") || tok_punct (sc, next, "?."))
    {
      const Token *name = scan_tok (sc, i + 2);

      if (name->kind == TOK_IDENT)
        {
          key = g_strndup (sc->text + name->start, name->end - name->start);
          key_end = i + 2;
        }
      else if (tok_punct (sc, next, "?.") && tok_punct (sc, name, "["))
        {
          i++;  /* `?.[…]` reads like `[…]` */
        }
    }

  if (key == NULL)
    {
      const Token *str = scan_tok (sc, i + 2);

      if (!tok_punct (sc, scan_tok (sc, i + 1), "[") || str->kind != TOK_STRING ||
          !tok_punct (sc, scan_tok (sc, i + 3), "]"))
        return FALSE;

      key = tok_string_value (sc, str);
      key_end = i + 3;
    }

  if (key == NULL || !is_ascii_identifier (key, strlen (key)) ||
      g_str_equal (key, "parameters") || g_str_equal (key, "prosponsive"))
    return FALSE;

  next = scan_tok (sc, key_end + 1);
  if (tok_punct (sc, next, "??") || tok_punct (sc, next, "||"))
    {
      g_autoptr(JsonNode) default_value = NULL;
      PrsParamType type;

      read_literal (sc, key_end + 2, &type, &default_value);
      param_set_add (self, g_steal_pointer (&key), type, TRUE, g_steal_pointer (&default_value));
      return TRUE;
    }

  if (ends_statement (sc, key_end + 1))
    {
      /* back over `?.` to the `parameters`/`body` token itself */
      gsize obj = tok_punct (sc, &sc->toks[i], "?.") ? i - 1 : i;

      if (is_const_initialiser (sc, obj))
        {
          param_set_add (self, g_steal_pointer (&key), PRS_PARAM_STRING, FALSE, NULL);
          return TRUE;
        }
    }

  return FALSE;
}

/* ------------------------------------------------------------------------ */
/* Public API */

PrsParamSet *
prs_param_set_new (void)
{
  PrsParamSet *self = g_new0 (PrsParamSet, 1);

  self->params = g_ptr_array_new_with_free_func ((GDestroyNotify) prs_param_free);
  self->by_name = g_hash_table_new (g_str_hash, g_str_equal);

  return self;
}

void
prs_param_set_free (PrsParamSet *self)
{
  if (self == NULL)
    return;

  g_hash_table_unref (self->by_name);
  g_ptr_array_unref (self->params);
  g_free (self);
}

guint
prs_param_set_scan (PrsParamSet *self,
                    const char  *code,
                    gssize       len)
{
  Tokens tokens = { NULL, 0, 0 };
  g_autoptr(GArray) brace_depths = NULL;
  Lexer lx = { 0, };
  Scan sc;
  guint found = 0;

  g_return_val_if_fail (self != NULL, 0);
  g_return_val_if_fail (code != NULL || len == 0, 0);

  if (code == NULL)
    return 0;
  if (len < 0)
    len = strlen (code);

  /* Token offsets are 32-bit; no Code node comes anywhere near 4 GiB. */
  if ((gsize) len >= G_MAXUINT32)
    {
      g_debug ("Not scanning a Code node of %" G_GSSIZE_FORMAT " bytes", len);
      return 0;
    }

  tokens.alloc = len / 4 + 16;
  tokens.data = g_new (Token, tokens.alloc);
  brace_depths = g_array_new (FALSE, FALSE, sizeof (guint32));

  lx.text = code;
  lx.len = len;
  lx.tokens = &tokens;
  lx.brace_depths = brace_depths;
  lx.regex_allowed = TRUE;
  lexer_run (&lx);

  match_brackets (code, &tokens);

  sc.text = code;
  sc.toks = tokens.data;
  sc.n_toks = (guint) tokens.len;

  for (gsize i = 0; i + 1 < sc.n_toks; i++)
    {
      const Token *tok = &sc.toks[i];

      if ((tok_is (&sc, tok, TOK_IDENT, "parameters") || tok_is (&sc, tok, TOK_IDENT, "body")) &&
          scan_form (self, &sc, i))
        found++;
    }

  g_free (tokens.data);

  return found;
}

GPtrArray *
prs_param_set_get_params (PrsParamSet *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return self->params;
}

gboolean
prs_param_set_overflowed (PrsParamSet *self)
{
  g_return_val_if_fail (self != NULL, FALSE);

  return self->overflowed;
}

GPtrArray *
prs_param_set_steal_params (PrsParamSet *self)
{
  GPtrArray *params;

  g_return_val_if_fail (self != NULL, NULL);

  params = g_steal_pointer (&self->params);
  self->params = g_ptr_array_new_with_free_func ((GDestroyNotify) prs_param_free);
  g_hash_table_remove_all (self->by_name);
  self->overflowed = FALSE;

  return params;
}
