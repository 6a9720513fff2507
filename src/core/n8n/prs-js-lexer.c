/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-js-lexer.c: the Code-node scanner's tokenizer (pass 1 of prs-js-scan.c):
 * JavaScript text into identifiers, numbers, strings, template literals,
 * regular-expression literals and punctuators, in one linear pass without
 * recursion, then brackets matched with an explicit stack. */
#include <string.h>

#include "prs-js-scan-private.h"

typedef struct
{
  const char   *text;
  gsize         len;
  gsize         pos;
  Tokens       *tokens;
  /* per open `${`: the braces opened inside it; on the lexer up to a
   * nesting few Code nodes reach (an array per scan cost more than the
   * tokens of a small Code node) */
  guint32      *depths;
  guint         n_depths;
  guint         depths_alloc;
  guint32       depths_local[8];
  gboolean      nl_pending;
  gboolean      regex_allowed;   /* whether a `/` here starts a regular expression */
  gsize         no_regex_until;  /* after an unterminated regex, up to the line end */
  guint32       tmpl_start;      /* the outermost template literal being read */
  gboolean      tmpl_nl;
  gboolean      tmpl_subst;
} Lexer;

static inline gboolean
word_is (const char *s,
         gsize       n,
         const char *word)
{
  return memcmp (s, word, n) == 0 && word[n] == '\0';
}

/* Whether the identifier @s (@n bytes) is a word after which a `/` begins
 * an expression, so a regular expression: await case delete do else
 * extends in instanceof new of return throw typeof void yield. By length,
 * as the tokenizer asks it of every identifier. */
gboolean
prs_js_is_regex_keyword (const char *s,
                         gsize       n)
{
  switch (n)
    {
    case 2:
      return word_is (s, n, "do") || word_is (s, n, "in") || word_is (s, n, "of");
    case 3:
      return word_is (s, n, "new");
    case 4:
      return word_is (s, n, "case") || word_is (s, n, "else") || word_is (s, n, "void");
    case 5:
      return word_is (s, n, "await") || word_is (s, n, "throw") || word_is (s, n, "yield");
    case 6:
      return word_is (s, n, "delete") || word_is (s, n, "return") || word_is (s, n, "typeof");
    case 7:
      return word_is (s, n, "extends");
    case 10:
      return word_is (s, n, "instanceof");
    default:
      return FALSE;
    }
}

/* The length of the longest punctuator at @p (@avail bytes), or 0:
 * >>>=  ... === !== **= <<= >>= >>> &&= ||= ??=
 * => == != <= >= && || ?? ?. ++ -- += -= *= /= %= &= |= ^= ** << >>
 * { } ( ) [ ] ; , < > + - * / % & | ^ ! ~ ? : = .
 * A switch on the first byte, then the next ones (a table of candidates
 * tried in turn cost three times as much per punctuator). */
static gsize
punct_len (const char *p,
           gsize       avail)
{
  /* No punctuator holds a NUL: it stands for "past the end" */
  char c1 = avail > 1 ? p[1] : '\0';
  char c2 = avail > 2 ? p[2] : '\0';
  char c3 = avail > 3 ? p[3] : '\0';

  switch (p[0])
    {
    case '{': case '}': case '(': case ')': case '[': case ']': case ';': case ',':
    case '~': case ':':
      return 1;
    case '.':
      return c1 == '.' && c2 == '.' ? 3 : 1;
    case '=':
      if (c1 == '=')
        return c2 == '=' ? 3 : 2;
      return c1 == '>' ? 2 : 1;
    case '!':
      if (c1 == '=')
        return c2 == '=' ? 3 : 2;
      return 1;
    case '>':
      if (c1 == '>' && c2 == '>')
        return c3 == '=' ? 4 : 3;
      if (c1 == '>')
        return c2 == '=' ? 3 : 2;
      return c1 == '=' ? 2 : 1;
    case '*': case '<': case '&': case '|': case '?':
      /* doubled, doubled with `=`, or with `=` */
      if (c1 == p[0])
        return c2 == '=' ? 3 : 2;
      /* `a?.5:1` is a conditional, not optional chaining. */
      if (p[0] == '?')
        return c1 == '.' && !g_ascii_isdigit (c2) ? 2 : 1;
      return c1 == '=' ? 2 : 1;
    case '+': case '-':
      return c1 == p[0] || c1 == '=' ? 2 : 1;
    case '/': case '%': case '^':
      return c1 == '=' ? 2 : 1;
    default:
      return 0;
    }
}

/* ------------------------------------------------------------------------ */
/* Characters */

/* What each byte can be in an identifier: a table, as the tokenizer asks
 * it of nearly every byte it reads. */
enum
{
  IDENT_PART  = 1 << 0,
  IDENT_START = 1 << 1,
};

static const guint8 ident_class[256] = {
  ['0' ... '9'] = IDENT_PART,
  ['A' ... 'Z'] = IDENT_PART | IDENT_START,
  ['a' ... 'z'] = IDENT_PART | IDENT_START,
  ['_'] = IDENT_PART | IDENT_START,
  ['$'] = IDENT_PART | IDENT_START,
  ['\\'] = IDENT_PART | IDENT_START,
  [0x80 ... 0xFF] = IDENT_PART | IDENT_START,
};

static inline gboolean
is_ident_start (guchar c)
{
  return ident_class[c] & IDENT_START;
}

static inline gboolean
is_ident_part (guchar c)
{
  return ident_class[c] & IDENT_PART;
}

/* The length of the line terminator at @p (LF, CR, CRLF, U+2028, U+2029), or 0. */
gsize
prs_js_line_break_len (const char *text,
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

/* How many template `${…}` are open */
static inline guint
substs_open (const Lexer *lx)
{
  return lx->n_depths;
}

static void
substs_push (Lexer *lx)
{
  if (G_UNLIKELY (lx->n_depths == lx->depths_alloc))
    {
      guint32 *bigger = g_new (guint32, lx->depths_alloc * 2);

      memcpy (bigger, lx->depths, lx->n_depths * sizeof *bigger);
      if (lx->depths != lx->depths_local)
        g_free (lx->depths);
      lx->depths = bigger;
      lx->depths_alloc *= 2;
    }
  lx->depths[lx->n_depths++] = 0;
}

static inline void
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
  if (substs_open (lx) > 0)
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
          if (substs_open (lx) == 0)
            lexer_emit_template (lx, TRUE);
          lx->regex_allowed = FALSE;
          return;
        }
      else if (c == '$' && lx->pos + 1 < lx->len && lx->text[lx->pos + 1] == '{')
        {
          lx->pos += 2;
          if (substs_open (lx) == 0)
            lx->tmpl_subst = TRUE;
          substs_push (lx);
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
  if (substs_open (lx) == 0)
    lexer_emit_template (lx, FALSE);
}

static void
lexer_template_start (Lexer *lx)
{
  if (substs_open (lx) == 0)
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
          nl = prs_js_line_break_len (lx->text, lx->len, lx->pos);
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

/* Inlined into the tokenizer's loop, as its commonest tokens: the call
 * cost about a tenth of a token */
G_ALWAYS_INLINE static inline void
lexer_ident (Lexer *lx)
{
  const char *text = lx->text;
  gsize len = lx->len;
  gsize start = lx->pos;
  gsize pos = start;

  /* In locals: a store through lx could alias the text (char), so the
   * compiler would reload every field per byte */
  while (pos < len && is_ident_part ((guchar) text[pos]))
    {
      if (G_UNLIKELY ((guchar) text[pos] >= 0x80) &&
          (space_len (text, len, pos) > 0 || prs_js_line_break_len (text, len, pos) > 0))
        break;
      pos++;
    }

  lx->pos = pos;
  lx->regex_allowed = prs_js_is_regex_keyword (text + start, pos - start);

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

      if (prs_js_line_break_len (lx->text, lx->len, p) > 0)
        break;
      if (c == '\\')
        {
          p++;
          if (p >= lx->len || prs_js_line_break_len (lx->text, lx->len, p) > 0)
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

G_ALWAYS_INLINE static inline void
lexer_punct (Lexer *lx)
{
  gsize start = lx->pos;
  const char *p = lx->text + lx->pos;
  gsize n = punct_len (p, lx->len - lx->pos);

  if (n == 0)
    {
      lx->pos++;
      lx->regex_allowed = TRUE;
      lexer_emit (lx, TOK_OTHER, start, 0);
      return;
    }

  lx->pos += n;

  if (substs_open (lx) > 0 && n == 1 && (p[0] == '{' || p[0] == '}'))
    {
      guint32 *depth = &lx->depths[lx->n_depths - 1];

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

/* Reads what is at lx->pos (a token, white space or a comment) the general
 * way: each rule in turn. */
static void
lexer_step (Lexer *lx)
{
  const char *t = lx->text;
  guchar c = t[lx->pos];
  char next = lx->pos + 1 < lx->len ? t[lx->pos + 1] : '\0';
  gsize n;

  /* (The commonest bytes never come here: lexer_run () takes them
   * straight to their one rule, which is among these.) */
  if ((n = prs_js_line_break_len (t, lx->len, lx->pos)) > 0)
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
      while (lx->pos < lx->len && prs_js_line_break_len (t, lx->len, lx->pos) == 0)
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
          if (prs_js_line_break_len (t, lx->len, p) > 0)
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
  else if (c == '}' && substs_open (lx) > 0 &&
           lx->depths[lx->n_depths - 1] == 0)
    {
      lx->n_depths--;
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

static void
lexer_run (Lexer *lx)
{
  while (lx->pos < lx->len)
    {
      /* The commonest bytes, where only one rule can apply, straight to it;
       * the rest through every rule in turn */
      switch (lx->text[lx->pos])
        {
        case ' ': case '\t': case '\v': case '\f':
          lx->pos++;
          break;
        case '\n':
          lx->nl_pending = TRUE;
          lx->pos++;
          break;
        case 'a' ... 'z': case 'A' ... 'Z': case '_': case '$':
          lexer_ident (lx);
          break;
        case '0' ... '9':
          lexer_number (lx);
          break;
        case '\'': case '"':
          lexer_string (lx);
          break;
        case '(': case ')': case '[': case ']': case '{': case ';': case ',': case ':':
        case '=': case '<': case '>': case '+': case '-': case '*': case '%': case '&':
        case '|': case '^': case '!': case '~': case '?':
          lexer_punct (lx);
          break;
        default:
          lexer_step (lx);
          break;
        }
    }

  /* The end came inside a template literal's `${…}`. */
  if (substs_open (lx) > 0)
    {
      lx->n_depths = 0;
      lexer_emit_template (lx, FALSE);
    }

  tokens_push (lx->tokens, (guint32) lx->len, (guint32) lx->len, TOK_EOF,
               lx->nl_pending ? TOK_FLAG_NL_BEFORE : 0);
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
  /* The open brackets: on this stack up to a depth few Code nodes reach */
  guint32 local[64];
  guint32 *stack = local;
  gsize depth = 0;
  gsize alloc = G_N_ELEMENTS (local);
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
          if (G_UNLIKELY (depth == alloc))
            {
              guint32 *bigger = g_new (guint32, alloc * 2);

              memcpy (bigger, stack, alloc * sizeof *stack);
              if (stack != local)
                g_free (stack);
              stack = bigger;
              alloc *= 2;
            }
          stack[depth++] = i;
        }
      else if ((c == ')' || c == ']' || c == '}') && depth > 0)
        {
          guint32 open = stack[depth - 1];
          char oc = text[tokens->data[open].start];

          if ((c == ')' && oc == '(') || (c == ']' && oc == '[') || (c == '}' && oc == '{'))
            {
              depth--;
              tok->match = open;
              tokens->data[open].match = i;
            }
        }
    }

  if (stack != local)
    g_free (stack);
}

void
prs_js_tokenize (const char *code,
                 gsize       len,
                 Tokens     *tokens)
{
  Lexer lx = { 0, };

  tokens->len = 0;
  tokens->alloc = len / 4 + 16;
  tokens->data = g_new (Token, tokens->alloc);

  lx.text = code;
  lx.len = len;
  lx.tokens = tokens;
  lx.regex_allowed = TRUE;
  lx.depths = lx.depths_local;
  lx.depths_alloc = G_N_ELEMENTS (lx.depths_local);
  lexer_run (&lx);
  if (lx.depths != lx.depths_local)
    g_free (lx.depths);

  match_brackets (code, tokens);
}
