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
        gsize nl = prs_js_line_break_len (s, len, i);

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
