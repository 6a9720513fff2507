/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-js-literal.c: the values of the LITERALs the Code-node scanner reads
 * (docs/workflows.md "Parameters"): string and template literals cooked as
 * JavaScript does, plain numbers, true/false, and strict JSON arrays and
 * objects. */
#include <errno.h>
#include <string.h>

#include "prs-js-scan-private.h"
#include "prs-json.h"

/* json-glib's parser recurses once per nesting level; deeper literals are
 * still arrays or objects, only without a default. */
#define MAX_JSON_DEPTH 64

/* Appends @cp to @out; a U+0000 is noted, since the value cannot carry it. */
static void
append_code_point (GString  *out,
                   gunichar  cp,
                   gboolean *has_nul)
{
  if (cp == 0)
    *has_nul = TRUE;
  g_string_append_unichar (out, cp);
}

static gboolean
are_xdigits (const char *s,
             guint       n)
{
  for (guint k = 0; k < n; k++)
    {
      if (!g_ascii_isxdigit (s[k]))
        return FALSE;
    }
  return TRUE;
}

/* The value of the @n hex digits at @s. */
static gunichar
hex_value (const char *s,
           guint       n)
{
  gunichar cp = 0;

  for (guint k = 0; k < n; k++)
    cp = cp * 16 + g_ascii_xdigit_value (s[k]);
  return cp;
}

/* \0, and the legacy octal escapes of sloppy-mode strings: @c is the first
 * digit, @i the index after it. Returns the index after the escape. */
static gsize
unescape_octal (const char *s,
                gsize       len,
                gsize       i,
                char        c,
                GString    *out,
                gboolean   *has_nul)
{
  guint max_digits = c <= '3' ? 3 : 2;
  guint n = 1;
  gunichar cp = c - '0';

  while (n < max_digits && i < len && s[i] >= '0' && s[i] <= '7')
    {
      cp = cp * 8 + (s[i] - '0');
      i++;
      n++;
    }
  append_code_point (out, cp, has_nul);
  return i;
}

/* \xHH, or a plain "x" without its two digits. */
static gsize
unescape_hex (const char *s,
              gsize       len,
              gsize       i,
              GString    *out,
              gboolean   *has_nul)
{
  if (i + 1 < len && are_xdigits (s + i, 2))
    {
      append_code_point (out, hex_value (s + i, 2), has_nul);
      return i + 2;
    }

  g_string_append_c (out, 'x');
  return i;
}

/* \u{X…} at @i (the brace): its code point, *@i moved past it. */
static gboolean
read_braced_code_point (const char *s,
                        gsize       len,
                        gsize      *i,
                        gunichar   *out_cp)
{
  gsize j = *i + 1;
  gunichar cp = 0;

  while (j < len && g_ascii_isxdigit (s[j]) && cp <= 0x10FFFF)
    cp = cp * 16 + g_ascii_xdigit_value (s[j++]);
  if (j == *i + 1 || j >= len || s[j] != '}' || cp > 0x10FFFF)
    return FALSE;

  *out_cp = cp;
  *i = j + 1;
  return TRUE;
}

/* \uXXXX at @i (the first digit): its code point, joined with a low
 * surrogate written as a second escape; *@i moved past them. */
static gboolean
read_four_digit_code_point (const char *s,
                            gsize       len,
                            gsize      *i,
                            gunichar   *out_cp)
{
  gsize p = *i;
  gunichar cp;

  if (p + 3 >= len || !are_xdigits (s + p, 4))
    return FALSE;
  cp = hex_value (s + p, 4);
  p += 4;

  /* A surrogate pair written as two escapes. */
  if (cp >= 0xD800 && cp <= 0xDBFF && p + 5 < len && s[p] == '\\' &&
      s[p + 1] == 'u' && are_xdigits (s + p + 2, 4))
    {
      gunichar low = hex_value (s + p + 2, 4);

      if (low >= 0xDC00 && low <= 0xDFFF)
        {
          cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          p += 6;
        }
    }

  *out_cp = cp;
  *i = p;
  return TRUE;
}

/* \u{X…} or \uXXXX, or a plain "u" when neither follows. */
static gsize
unescape_unicode (const char *s,
                  gsize       len,
                  gsize       i,
                  GString    *out,
                  gboolean   *has_nul)
{
  gunichar cp = 0;
  gboolean ok;

  if (i < len && s[i] == '{')
    ok = read_braced_code_point (s, len, &i, &cp);
  else
    ok = read_four_digit_code_point (s, len, &i, &cp);

  if (!ok)
    g_string_append_c (out, 'u');
  else if (cp >= 0xD800 && cp <= 0xDFFF)
    g_string_append_unichar (out, 0xFFFD);  /* a lone surrogate */
  else
    append_code_point (out, cp, has_nul);
  return i;
}

/* One escape sequence; @i is the index after the backslash. Returns the
 * index after the sequence. */
static gsize
unescape_one (const char *s,
              gsize       len,
              gsize       i,
              GString    *out,
              gboolean   *has_nul)
{
  char c = s[i];
  gsize nl = prs_js_line_break_len (s, len, i);

  /* A line continuation stands for nothing. */
  if (nl > 0)
    return i + nl;
  i++;

  switch (c)
    {
    case 'n':
      g_string_append_c (out, '\n');
      return i;
    case 't':
      g_string_append_c (out, '\t');
      return i;
    case 'r':
      g_string_append_c (out, '\r');
      return i;
    case 'b':
      g_string_append_c (out, '\b');
      return i;
    case 'f':
      g_string_append_c (out, '\f');
      return i;
    case 'v':
      g_string_append_c (out, '\v');
      return i;
    case '0': case '1': case '2': case '3':
    case '4': case '5': case '6': case '7':
      return unescape_octal (s, len, i, c, out, has_nul);
    case 'x':
      return unescape_hex (s, len, i, out, has_nul);
    case 'u':
      return unescape_unicode (s, len, i, out, has_nul);
    default:
      /* \\ \' \" \` \$ and every other character stand for themselves. */
      g_string_append_c (out, c);
      return i;
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

      i = unescape_one (s, len, i + 1, out, &has_nul);
    }

  if (has_nul)
    return NULL;

  if (!g_utf8_validate (out->str, out->len, NULL))
    return g_utf8_make_valid (out->str, out->len);

  return g_string_free (g_steal_pointer (&out), FALSE);
}

/* The value of a string literal token, or NULL if it is not a complete one. */
char *
prs_js_tok_string_value (const Scan  *sc,
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

/* Whether token @i, at the start of a new line, carries on the expression
 * before it (so no semicolon is inserted there). */
gboolean
prs_js_continues_expression (const Scan *sc,
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

/* Whether the literal that ends just before token @i ends the expression:
 * a line break ends it only where JavaScript would insert a semicolon, so
 * `?? 5` followed by a line `+ 1` is an expression, not the default 5. */
static gboolean
ends_literal (const Scan *sc,
              gsize       i)
{
  const Token *tok = scan_tok (sc, i);

  if (tok->kind == TOK_EOF)
    return TRUE;

  if (tok->kind == TOK_PUNCT && tok->end - tok->start == 1)
    {
      switch (sc->text[tok->start])
        {
        case ';': case ',': case ')': case ']': case '}': case ':':
          return TRUE;
        default:
          break;
        }
    }

  return (tok->flags & TOK_FLAG_NL_BEFORE) && !prs_js_continues_expression (sc, i);
}

/* json_literal_simple's tree under construction. Its stacks are arrays of
 * the depth json_literal () allows: no allocation for them (a discovery
 * reads a literal for nearly every optional parameter). */
typedef struct
{
  JsonNode  *stack[MAX_JSON_DEPTH];  /* the open containers, innermost last */
  /* per open container: the key it goes under in its parent (NULL in an array) */
  char      *keys[MAX_JSON_DEPTH];
  guint      depth;
  char      *key;       /* the current object's member waiting for its value */
  JsonNode  *root;
  gboolean   negative;  /* a `-` waits for its number */
} SimpleTree;

static void
simple_tree_clear (SimpleTree *tree)
{
  for (guint i = 0; i < tree->depth; i++)
    {
      json_node_unref (tree->stack[i]);
      g_free (tree->keys[i]);
    }
  tree->depth = 0;
  g_clear_pointer (&tree->key, g_free);
  g_clear_pointer (&tree->root, json_node_unref);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (SimpleTree, simple_tree_clear)

static JsonNode *
simple_tree_parent (SimpleTree *tree)
{
  return tree->depth > 0 ? tree->stack[tree->depth - 1] : NULL;
}

/* Puts @value (taken) where it goes: the root, the next element of an
 * array, or the member waiting for it. FALSE where no value may stand. */
static gboolean
simple_tree_add (SimpleTree *tree,
                 JsonNode   *value)
{
  JsonNode *parent = simple_tree_parent (tree);

  if (parent == NULL)
    {
      if (tree->root != NULL)
        {
          json_node_unref (value);
          return FALSE;
        }
      tree->root = value;
    }
  else if (JSON_NODE_HOLDS_ARRAY (parent))
    {
      json_node_set_parent (value, parent);
      json_array_add_element (json_node_get_array (parent), value);
    }
  else if (tree->key != NULL)
    {
      json_node_set_parent (value, parent);
      json_object_set_member (json_node_get_object (parent), tree->key, value);
      g_clear_pointer (&tree->key, g_free);
    }
  else
    {
      json_node_unref (value);
      return FALSE;
    }

  return TRUE;
}

/* `[` or `{`: a new container, where a value may stand. */
static gboolean
simple_tree_open (SimpleTree *tree,
                  gboolean    array)
{
  JsonNode *parent = simple_tree_parent (tree);
  JsonNode *container;

  if ((parent != NULL && !JSON_NODE_HOLDS_ARRAY (parent) && tree->key == NULL) ||
      tree->depth == MAX_JSON_DEPTH)
    return FALSE;

  container = json_node_alloc ();
  if (array)
    json_node_take_array (json_node_init (container, JSON_NODE_ARRAY), json_array_new ());
  else
    json_node_take_object (json_node_init (container, JSON_NODE_OBJECT), json_object_new ());
  tree->stack[tree->depth] = container;
  tree->keys[tree->depth++] = g_steal_pointer (&tree->key);
  return TRUE;
}

/* `]` or `}`: the innermost container, finished, goes into its parent. */
static gboolean
simple_tree_close (SimpleTree *tree,
                   gboolean    array)
{
  JsonNode *parent = simple_tree_parent (tree);

  if (parent == NULL || tree->key != NULL || JSON_NODE_HOLDS_ARRAY (parent) != array)
    return FALSE;

  tree->depth--;
  tree->key = tree->keys[tree->depth];
  return simple_tree_add (tree, tree->stack[tree->depth]);
}

static gboolean
simple_tree_punct (SimpleTree *tree,
                   const char *s,
                   gsize       len)
{
  if (len != 1)
    return FALSE;

  switch (s[0])
    {
    case '[': case '{':
      return simple_tree_open (tree, s[0] == '[');
    case ']': case '}':
      return simple_tree_close (tree, s[0] == ']');
    case '-':
      tree->negative = TRUE;
      return TRUE;
    case ',': case ':':
      return TRUE;
    default:
      return FALSE;
    }
}

/* A string in double quotes of printable ASCII without escapes: its text is
 * its value. A member name, or a value. */
static gboolean
simple_tree_string (SimpleTree *tree,
                    const char *s,
                    gsize       len)
{
  JsonNode *parent = simple_tree_parent (tree);
  char buffer[64];
  g_autofree char *heap = NULL;
  char *str;

  if (len < 2 || s[0] != '"' || s[len - 1] != '"')
    return FALSE;
  for (gsize j = 1; j + 1 < len; j++)
    {
      guchar c = s[j];

      if (c < 0x20 || c > 0x7E || c == '\\' || c == '"')
        return FALSE;
    }

  if (parent != NULL && JSON_NODE_HOLDS_OBJECT (parent) && tree->key == NULL)
    {
      tree->key = g_strndup (s + 1, len - 2);
      return TRUE;
    }

  str = len - 2 < sizeof buffer ? buffer : (heap = g_malloc (len - 1));
  memcpy (str, s + 1, len - 2);
  str[len - 2] = '\0';
  return simple_tree_add (tree, json_node_init_string (json_node_alloc (), str));
}

/* An integer of at most 18 digits, after a waiting `-` if any. */
static gboolean
simple_tree_number (SimpleTree *tree,
                    const char *s,
                    gsize       len)
{
  gint64 n = 0;

  if (len > 18)
    return FALSE;
  for (gsize j = 0; j < len; j++)
    {
      if (!g_ascii_isdigit (s[j]))
        return FALSE;
      n = n * 10 + (s[j] - '0');
    }

  n = tree->negative ? -n : n;
  tree->negative = FALSE;
  return simple_tree_add (tree, json_node_init_int (json_node_alloc (), n));
}

/* true, false or null. */
static gboolean
simple_tree_word (SimpleTree *tree,
                  const char *s,
                  gsize       len)
{
  JsonNode *value;

  if (len == 4 && memcmp (s, "true", 4) == 0)
    value = json_node_init_boolean (json_node_alloc (), TRUE);
  else if (len == 5 && memcmp (s, "false", 5) == 0)
    value = json_node_init_boolean (json_node_alloc (), FALSE);
  else if (len == 4 && memcmp (s, "null", 4) == 0)
    value = json_node_init_null (json_node_alloc ());
  else
    return FALSE;

  return simple_tree_add (tree, value);
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
  g_auto(SimpleTree) tree = { { NULL, }, };

  for (gsize i = first; i <= last; i++)
    {
      const Token *tok = &sc->toks[i];
      const char *s = sc->text + tok->start;
      gsize len = tok->end - tok->start;
      gboolean ok;

      if (tree.negative && tok->kind != TOK_NUMBER)
        return NULL;

      switch ((TokKind) tok->kind)
        {
        case TOK_PUNCT:
          ok = simple_tree_punct (&tree, s, len);
          break;
        case TOK_STRING:
          ok = simple_tree_string (&tree, s, len);
          break;
        case TOK_NUMBER:
          ok = simple_tree_number (&tree, s, len);
          break;
        case TOK_IDENT:
          ok = simple_tree_word (&tree, s, len);
          break;
        case TOK_TEMPLATE:
        case TOK_REGEX:
        case TOK_OTHER:
        case TOK_EOF:
        default:
          ok = FALSE;
          break;
        }
      if (!ok)
        return NULL;
    }

  if (tree.depth > 0 || tree.key != NULL || tree.negative)
    return NULL;

  return g_steal_pointer (&tree.root);
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
void
prs_js_read_literal (const Scan    *sc,
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

      value = prs_js_tok_string_value (sc, tok);
      if (value != NULL)
        *out_default = json_node_init_string (json_node_alloc (), value);
      return;
    }
}
