/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-json.c: JSON in and out. In: untrusted text parsed with a depth
 * limit, and, where the text is a contract (the local API), checked against
 * RFC 8259 first and refused when json-glib would change what it says. Out:
 * the one writer, because json-glib 1.6's generator writes U+001F and
 * invalid UTF-8 raw, doubles with 17 digits (0.10000000000000001) and
 * infinity as "inf.0" (json-generator.c, json_strescape and dump_value). */
#include "config.h"

#include <math.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "prs-error.h"
#include "prs-json.h"

/* A number's text is quoted in an error up to this many characters */
#define MAX_QUOTED_NUMBER 40

guint
prs_json_nesting_depth (const char *data,
                        gsize       len,
                        guint       limit)
{
  guint depth = 0;
  guint max = 0;
  gboolean in_string = FALSE;

  for (gsize i = 0; i < len; i++)
    {
      char c = data[i];

      if (in_string)
        {
          if (c == '\\')
            i++;
          else if (c == '"')
            in_string = FALSE;
          continue;
        }

      switch (c)
        {
        case '"':
          in_string = TRUE;
          break;
        case '[':
        case '{':
          depth++;
          if (depth > max)
            {
              max = depth;
              if (max > limit)
                return limit + 1;
            }
          break;
        case ']':
        case '}':
          if (depth > 0)
            depth--;
          break;
        default:
          break;
        }
    }

  return max;
}

/* The commonest stored texts (an agent without tools, a run without
 * options): the node json-glib would make, without its parser and
 * scanner, ~12 k instructions each */
static JsonNode *
parse_empty (const char *data,
             gsize       len,
             gboolean    immutable)
{
  JsonNode *root;

  if (len != 2)
    return NULL;
  if (memcmp (data, "{}", 2) == 0)
    {
      root = json_node_alloc ();
      json_node_take_object (json_node_init (root, JSON_NODE_OBJECT), json_object_new ());
    }
  else if (memcmp (data, "[]", 2) == 0)
    {
      root = json_node_alloc ();
      json_node_take_array (json_node_init (root, JSON_NODE_ARRAY), json_array_new ());
    }
  else
    return NULL;
  if (immutable)
    json_node_seal (root);
  return root;
}

static JsonNode *
parse_checked (const char  *data,
               gsize        len,
               guint        max_depth,
               gboolean     immutable,
               GError     **error)
{
  g_autoptr(JsonParser) parser = NULL;
  g_autoptr(GError) local_error = NULL;
  JsonNode *root;

  if ((root = parse_empty (data, len, immutable)) != NULL)
    return root;

  if (!g_utf8_validate_len (data, len, NULL))
    {
      g_set_error_literal (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                           _("The text is not valid UTF-8."));
      return NULL;
    }

  if (prs_json_nesting_depth (data, len, max_depth) > max_depth)
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                   _("The JSON is nested more than %u levels deep."), max_depth);
      return NULL;
    }

  parser = immutable ? json_parser_new_immutable () : json_parser_new ();
  if (!json_parser_load_from_data (parser, data, (gssize) len, &local_error))
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                   _("The text is not valid JSON: %s"), local_error->message);
      return NULL;
    }

  /* Steal, not copy: a deep copy doubled the cost of every parse. */
  root = json_parser_steal_root (parser);
  if (root == NULL)
    {
      g_set_error_literal (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                           _("The text is empty, not JSON."));
      return NULL;
    }

  return root;
}

JsonNode *
prs_json_parse_bounded (const char  *data,
                        gsize        len,
                        guint        max_depth,
                        GError     **error)
{
  g_return_val_if_fail (data != NULL || len == 0, NULL);

  return parse_checked (data, len, max_depth, TRUE, error);
}

JsonNode *
prs_json_parse_mutable (const char  *data,
                        gsize        len,
                        guint        max_depth,
                        GError     **error)
{
  g_return_val_if_fail (data != NULL || len == 0, NULL);

  return parse_checked (data, len, max_depth, FALSE, error);
}

/* ---- numbers ---- */

/* The shortest of the usual precisions that reads back as @value: 0.1, not
 * 0.10000000000000001. */
static void
format_double (char   *buf,
               gsize   size,
               double  value)
{
  static const char * const formats[] = { "%.15g", "%.16g", "%.17g" };

  for (guint i = 0; i < G_N_ELEMENTS (formats); i++)
    {
      g_ascii_formatd (buf, (int) size, formats[i], value);
      if (g_ascii_strtod (buf, NULL) == value)
        return;
    }
}

/* A decimal as 0.DIGITS × 10^exponent, DIGITS without leading or trailing
 * zeros (none for zero): two texts of one value compare equal. */
typedef struct
{
  gboolean  negative;
  GString  *digits;
  gint64    exponent;
} Decimal;

/* @text is a JSON number (grammar already checked). FALSE when its
 * exponent is beyond any double's. */
static gboolean
decimal_parse (const char *text,
               gsize       len,
               Decimal    *out)
{
  gsize i = 0, lead = 0;
  gint64 point = 0;
  gint64 exponent = 0;

  out->negative = text[0] == '-';
  out->digits = g_string_new (NULL);
  if (out->negative)
    i++;

  for (; i < len && g_ascii_isdigit (text[i]); i++, point++)
    g_string_append_c (out->digits, text[i]);
  if (i < len && text[i] == '.')
    for (i++; i < len && g_ascii_isdigit (text[i]); i++)
      g_string_append_c (out->digits, text[i]);
  if (i < len && (text[i] == 'e' || text[i] == 'E'))
    {
      gboolean negative_exponent = FALSE;
      guint exponent_digits = 0;

      i++;
      if (text[i] == '+' || text[i] == '-')
        negative_exponent = text[i++] == '-';
      for (; i < len && g_ascii_isdigit (text[i]); i++)
        {
          if (exponent == 0 && text[i] == '0')
            continue;
          /* 10^±1,000,000,000 and beyond: nothing a double holds */
          if (++exponent_digits > 9)
            return FALSE;
          exponent = exponent * 10 + (text[i] - '0');
        }
      if (negative_exponent)
        exponent = -exponent;
    }

  while (lead < out->digits->len && out->digits->str[lead] == '0')
    lead++;
  g_string_erase (out->digits, 0, (gssize) lead);
  point -= (gint64) lead;
  while (out->digits->len > 0 && out->digits->str[out->digits->len - 1] == '0')
    g_string_truncate (out->digits, out->digits->len - 1);

  out->exponent = out->digits->len > 0 ? point + exponent : 0;
  return TRUE;
}

static gboolean
decimal_equal (const Decimal *a,
               const Decimal *b)
{
  /* -0 and 0 are one value */
  if (a->digits->len == 0 || b->digits->len == 0)
    return a->digits->len == b->digits->len;

  return a->negative == b->negative && a->exponent == b->exponent &&
         g_string_equal (a->digits, b->digits);
}

/* An integer literal json-glib reads exactly (it reads others as garbage:
 * 123456789012345678901234567890 became -1). */
static gboolean
is_int64_literal (const char *text,
                  gsize       len)
{
  gboolean negative = text[0] == '-';
  const char *digits = text + (negative ? 1 : 0);
  gsize n = len - (negative ? 1 : 0);

  if (memchr (text, '.', len) != NULL || memchr (text, 'e', len) != NULL ||
      memchr (text, 'E', len) != NULL)
    return FALSE;
  if (n != 19)
    return n < 19;

  return memcmp (digits, negative ? "9223372036854775808" : "9223372036854775807", 19) <= 0;
}

/* TRUE when the double nearest to @text, written back, is @text's value:
 * 0.1 and 1e300 are kept, 0.12345678901234567891 and 1e999 are not. */
static gboolean
double_keeps_value (const char *text,
                    gsize       len)
{
  g_autofree char *copy = g_strndup (text, len);
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  Decimal in = { 0 }, back = { 0 };
  double value;
  gboolean same;

  value = g_ascii_strtod (copy, NULL);
  if (!isfinite (value))
    return FALSE;
  format_double (buf, sizeof buf, value);

  same = decimal_parse (text, len, &in) && decimal_parse (buf, strlen (buf), &back) &&
         decimal_equal (&in, &back);
  if (in.digits != NULL)
    g_string_free (in.digits, TRUE);
  if (back.digits != NULL)
    g_string_free (back.digits, TRUE);
  return same;
}

/* ---- the RFC 8259 check ---- */

typedef struct
{
  const char *s;
  gsize       n;
  gboolean    values;     /* also U+0000, lone surrogates and numbers */
  char       *problem;    /* the first one found, a sentence fragment */
  gsize       offset;
  GArray     *widen;      /* gsize: ends of integer literals to read as doubles */
} Check;

static gboolean
check_fail (Check      *check,
            gsize       offset,
            const char *format,
            ...) G_GNUC_PRINTF (3, 4);

static gboolean
check_fail (Check      *check,
            gsize       offset,
            const char *format,
            ...)
{
  va_list args;

  if (check->problem == NULL)
    {
      va_start (args, format);
      check->problem = g_strdup_vprintf (format, args);
      va_end (args);
      check->offset = offset;
    }
  return FALSE;
}

static gboolean
read_hex4 (Check  *check,
           gsize   at,
           guint  *out)
{
  guint value = 0;

  for (guint k = 0; k < 4; k++)
    {
      if (at + k >= check->n || !g_ascii_isxdigit (check->s[at + k]))
        return check_fail (check, at, "a \\u escape needs four hexadecimal digits");
      value = value * 16 + (guint) g_ascii_xdigit_value (check->s[at + k]);
    }
  *out = value;
  return TRUE;
}

/* A \u escape at @i (the 'u'); leaves @i on its last digit. */
static gboolean
check_unicode_escape (Check *check,
                      gsize *i)
{
  gsize start = *i - 1;
  guint unit, low;

  if (!read_hex4 (check, *i + 1, &unit))
    return FALSE;
  *i += 4;
  if (!check->values)
    return TRUE;

  if (unit == 0)
    return check_fail (check, start, "a string holds U+0000 (\\u0000), which cannot be kept");
  if (unit >= 0xDC00 && unit <= 0xDFFF)
    return check_fail (check, start, "a string holds a lone low surrogate (\\u%04X), which is not a character", unit);
  if (unit >= 0xD800 && unit <= 0xDBFF)
    {
      if (*i + 2 >= check->n || check->s[*i + 1] != '\\' || check->s[*i + 2] != 'u' ||
          !read_hex4 (check, *i + 3, &low) || low < 0xDC00 || low > 0xDFFF)
        return check_fail (check, start,
                           "a string holds a lone high surrogate (\\u%04X), which is not a character", unit);
      *i += 6;
    }
  return TRUE;
}

static gboolean
skip_string (Check *check,
             gsize *i)
{
  const char *s = check->s;
  gsize start = *i;

  /* s[*i] is the opening quote */
  for ((*i)++; *i < check->n; (*i)++)
    {
      guchar c = (guchar) s[*i];

      if (c == '"')
        {
          (*i)++;
          return TRUE;
        }
      if (c < 0x20)
        return check_fail (check, *i, "a control character (U+%04X) must be escaped in a string", c);
      if (c == '\\')
        {
          if (++(*i) >= check->n)
            break;
          c = (guchar) s[*i];
          if (c == 'u')
            {
              if (!check_unicode_escape (check, i))
                return FALSE;
            }
          else if (c == '\0' || strchr ("\"\\/bfnrt", c) == NULL)
            return check_fail (check, *i - 1, "“\\%c” is not a JSON escape", g_ascii_isprint (c) ? c : '?');
        }
    }

  return check_fail (check, start, "a string is not closed");
}

static gboolean
skip_digits (const char *s,
             gsize       n,
             gsize      *i)
{
  gsize start = *i;

  while (*i < n && g_ascii_isdigit (s[*i]))
    (*i)++;

  return *i > start;
}

static gboolean
check_number_value (Check *check,
                    gsize  start,
                    gsize  end)
{
  const char *text = check->s + start;
  gsize len = end - start;
  g_autofree char *quoted = NULL;

  if (!check->values || is_int64_literal (text, len))
    return TRUE;

  if (double_keeps_value (text, len))
    {
      /* An integer beyond 64 bits that a double holds exactly (JavaScript
       * writes 2^64 as 18446744073709552000): json-glib must read it as a
       * double, so the text gets a ".0" */
      if (memchr (text, '.', len) == NULL && memchr (text, 'e', len) == NULL &&
          memchr (text, 'E', len) == NULL)
        g_array_append_val (check->widen, end);
      return TRUE;
    }

  quoted = len > MAX_QUOTED_NUMBER ? g_strdup_printf ("%.*s…", MAX_QUOTED_NUMBER, text)
                                   : g_strndup (text, len);
  return check_fail (check, start,
                     "the number %s cannot be kept exactly (whole numbers from -9223372036854775808 "
                     "to 9223372036854775807 and decimals of up to 17 significant digits within "
                     "±1.7976931348623157e308 are; send others as strings)", quoted);
}

static gboolean
skip_number (Check *check,
             gsize *i)
{
  const char *s = check->s;
  gsize n = check->n;
  gsize start = *i;

  if (s[*i] == '-')
    (*i)++;
  if (*i < n && s[*i] == '0')
    (*i)++;
  else if (!skip_digits (s, n, i))
    return check_fail (check, start, "a number needs digits");
  if (*i < n && g_ascii_isdigit (s[*i]))
    return check_fail (check, start, "a number must not start with 0");
  if (*i < n && s[*i] == '.')
    {
      (*i)++;
      if (!skip_digits (s, n, i))
        return check_fail (check, start, "a number needs digits after its decimal point");
    }
  if (*i < n && (s[*i] == 'e' || s[*i] == 'E'))
    {
      (*i)++;
      if (*i < n && (s[*i] == '+' || s[*i] == '-'))
        (*i)++;
      if (!skip_digits (s, n, i))
        return check_fail (check, start, "a number needs digits in its exponent");
    }

  return check_number_value (check, start, *i);
}

static gboolean
skip_word (const char *s,
           gsize       n,
           gsize      *i,
           const char *word)
{
  gsize len = strlen (word);

  if (n - *i < len || memcmp (s + *i, word, len) != 0)
    return FALSE;
  *i += len;

  return TRUE;
}

static gboolean
unexpected (Check *check,
            gsize  i)
{
  guchar c = (guchar) check->s[i];

  if (g_ascii_isprint (c))
    return check_fail (check, i, "“%c” was not expected here", c);
  return check_fail (check, i, "byte 0x%02X was not expected here", c);
}

typedef enum { VALUE, VALUE_OR_CLOSE, KEY, KEY_OR_CLOSE, COLON, AFTER } CheckState;

/* The open brackets, innermost last: in place up to a depth most texts
 * stay within (a discovery checks every JSON default a Code node gives,
 * and an array made for each cost more than checking `["seen"]`), on
 * the heap past it */
typedef struct
{
  guint8 *data;
  gsize   len;
  gsize   alloc;
  guint8  local[64];
} Brackets;

static void
brackets_push (Brackets *b,
               char      c)
{
  if (G_UNLIKELY (b->len == b->alloc))
    {
      guint8 *bigger = g_malloc (b->alloc * 2);

      memcpy (bigger, b->data, b->len);
      if (b->data != b->local)
        g_free (b->data);
      b->data = bigger;
      b->alloc *= 2;
    }
  b->data[b->len++] = (guint8) c;
}

/* One step from @state at s[*i] (not whitespace); FALSE on a problem. */
static gboolean
check_step (Check      *check,
            Brackets   *stack,
            CheckState *state,
            gsize      *i)
{
  const char *s = check->s;
  char c = s[*i];
  char top = stack->len > 0 ? (char) stack->data[stack->len - 1] : '\0';

  switch (*state)
    {
    case VALUE_OR_CLOSE:
    case VALUE:
      if (*state == VALUE_OR_CLOSE && c == ']')
        {
          stack->len--;
          (*i)++;
          *state = AFTER;
        }
      else if (c == '{' || c == '[')
        {
          brackets_push (stack, c);
          (*i)++;
          *state = c == '{' ? KEY_OR_CLOSE : VALUE_OR_CLOSE;
        }
      else if (c == '"')
        {
          *state = AFTER;
          return skip_string (check, i);
        }
      else if (c == '-' || g_ascii_isdigit (c))
        {
          *state = AFTER;
          return skip_number (check, i);
        }
      else if (skip_word (s, check->n, i, "true") || skip_word (s, check->n, i, "false") ||
               skip_word (s, check->n, i, "null"))
        *state = AFTER;
      else
        return unexpected (check, *i);
      return TRUE;

    case KEY_OR_CLOSE:
    case KEY:
      if (*state == KEY_OR_CLOSE && c == '}')
        {
          stack->len--;
          (*i)++;
          *state = AFTER;
          return TRUE;
        }
      if (c != '"')
        return check_fail (check, *i, "a member name must be a string in double quotes");
      *state = COLON;
      return skip_string (check, i);

    case COLON:
      if (c != ':')
        return check_fail (check, *i, "a “:” must follow a member name");
      (*i)++;
      *state = VALUE;
      return TRUE;

    case AFTER:
    default:
      if (stack->len == 0)
        return check_fail (check, *i, "more text follows the JSON value");
      if (c == ',')
        *state = top == '{' ? KEY : VALUE;
      else if ((c == ']' && top == '[') || (c == '}' && top == '{'))
        {
          stack->len--;
          *state = AFTER;
        }
      else
        return unexpected (check, *i);
      (*i)++;
      return TRUE;
    }
}

/* RFC 8259's grammar, iteratively (any depth, no recursion). */
static gboolean
check_text (Check *check)
{
  Brackets stack;
  CheckState state = VALUE;
  gsize i = 0;
  gboolean ok;

  stack.data = stack.local;
  stack.len = 0;
  stack.alloc = sizeof stack.local;
  for (;;)
    {
      const char *s = check->s;

      while (i < check->n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
        i++;
      if (i == check->n)
        {
          if (state == AFTER && stack.len == 0)
            ok = TRUE;
          else
            ok = check_fail (check, i, i == 0 || state == VALUE ? "a value is missing"
                                                                : "the text ends too early");
          break;
        }
      if (!check_step (check, &stack, &state, &i))
        {
          ok = FALSE;
          break;
        }
    }

  if (stack.data != stack.local)
    g_free (stack.data);
  return ok;
}

/* json-glib's parser is lenient (single quotes, bare keys, comments, hex
 * numbers), so places where "parses as JSON" must mean exactly that ask
 * here first. */
gboolean
prs_json_text_is_strict (const char *s,
                         gsize       n)
{
  Check check = { s, n, FALSE, NULL, 0, NULL };
  gboolean strict;

  g_return_val_if_fail (s != NULL || n == 0, FALSE);

  strict = check_text (&check);
  g_free (check.problem);
  return strict;
}

JsonNode *
prs_json_parse_strict (const char  *data,
                       gsize        len,
                       guint        max_depth,
                       GError     **error)
{
  Check check = { data, len, TRUE, NULL, 0, NULL };
  g_autoptr(JsonParser) parser = NULL;
  g_autoptr(GString) widened = NULL;
  g_autoptr(GError) local_error = NULL;
  const char *end = NULL;

  g_return_val_if_fail (data != NULL || len == 0, NULL);

  if (!g_utf8_validate_len (data, len, &end))
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                   "it is not valid UTF-8 (at byte %" G_GSIZE_FORMAT ")", (gsize) (end - data));
      return NULL;
    }
  if (prs_json_nesting_depth (data, len, max_depth) > max_depth)
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                   "it is nested more than %u levels deep", max_depth);
      return NULL;
    }

  check.widen = g_array_new (FALSE, FALSE, sizeof (gsize));
  if (!check_text (&check))
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT, "%s (at byte %" G_GSIZE_FORMAT ")",
                   check.problem, check.offset);
      g_free (check.problem);
      g_array_unref (check.widen);
      return NULL;
    }

  if (check.widen->len > 0)
    {
      gsize from = 0;

      widened = g_string_sized_new (len + 2 * check.widen->len);
      for (guint k = 0; k < check.widen->len; k++)
        {
          gsize at = g_array_index (check.widen, gsize, k);

          g_string_append_len (widened, data + from, (gssize) (at - from));
          g_string_append (widened, ".0");
          from = at;
        }
      g_string_append_len (widened, data + from, (gssize) (len - from));
      data = widened->str;
      len = widened->len;
    }
  g_array_unref (check.widen);

  parser = json_parser_new_immutable ();
  if (!json_parser_load_from_data (parser, data, (gssize) len, &local_error))
    {
      /* Strict JSON that json-glib refuses: should not happen */
      g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT, "%s", local_error->message);
      return NULL;
    }

  return json_parser_steal_root (parser);
}

/* ---- the writer ---- */

/* The bytes a JSON string holds as they are: printable ASCII but the quote
 * and the backslash. A table, as the writer asks it of every byte. */
static const guint8 plain_in_string[256] = {
  [0x20 ... 0x21] = 1,  /* then '"' */
  [0x23 ... 0x5b] = 1,  /* then '\\' */
  [0x5d ... 0x7e] = 1,
};

static void
append_escaped_ascii (GString *out,
                      guchar   c)
{
  switch (c)
    {
    case '"':
      g_string_append (out, "\\\"");
      break;
    case '\\':
      g_string_append (out, "\\\\");
      break;
    case '\b':
      g_string_append (out, "\\b");
      break;
    case '\f':
      g_string_append (out, "\\f");
      break;
    case '\n':
      g_string_append (out, "\\n");
      break;
    case '\r':
      g_string_append (out, "\\r");
      break;
    case '\t':
      g_string_append (out, "\\t");
      break;
    default:
      /* The other controls, and DEL */
      g_string_append_printf (out, "\\u%04x", c);
      break;
    }
}

/* The inside of a JSON string */
static void
append_string_content (GString    *out,
                       const char *s,
                       gsize       limit)
{
  const guchar *p = (const guchar *) s;

  while (*p != '\0' && out->len <= limit)
    {
      const guchar *run = p;
      gunichar c;

      /* Printable ASCII goes as it is, a run at a time */
      while (plain_in_string[*p])
        p++;
      if (p > run)
        g_string_append_len (out, (const char *) run, p - run);
      if (*p == '\0')
        break;
      if (*p < 0x80)
        {
          append_escaped_ascii (out, *p++);
          continue;
        }

      c = g_utf8_get_char_validated ((const char *) p, -1);
      if (c == (gunichar) -1 || c == (gunichar) -2)
        {
          /* Not UTF-8 (a string built in code, or json-glib's reading of
           * an escaped lone surrogate): one replacement character per byte */
          g_string_append (out, "\\ufffd");
          p++;
        }
      else if (c == 0x2028 || c == 0x2029 || (c >= 0x80 && c <= 0x9f))
        {
          /* Line separators that JavaScript source (not JSON.parse) chokes
           * on, and the C1 controls, which a terminal reads as escapes
           * (U+009B starts a sequence as ESC [ does): docs/api.md */
          g_string_append_printf (out, "\\u%04x", c);
          p += g_utf8_skip[*p];
        }
      else
        {
          int len = g_utf8_skip[*p];

          g_string_append_len (out, (const char *) p, len);
          p += len;
        }
    }
}

static void
append_string (GString    *out,
               const char *s,
               gsize       limit)
{
  g_string_append_c (out, '"');
  append_string_content (out, s, limit);
  g_string_append_c (out, '"');
}

/* The decimal text of @value, as "%" G_GINT64_FORMAT writes it, without
 * printf: a stored row's and an answer's counts are most of the numbers
 * written, and printf's parsing of the format cost ~20 times the digits
 * (bench/RESULTS.md) */
static void
append_int (GString *out,
            gint64   value)
{
  char buf[24];
  char *p = buf + sizeof buf;
  /* Negated as unsigned: -G_MININT64 does not fit in a gint64 */
  guint64 magnitude = value < 0 ? 0 - (guint64) value : (guint64) value;

  do
    {
      *--p = (char) ('0' + magnitude % 10);
      magnitude /= 10;
    }
  while (magnitude != 0);
  if (value < 0)
    *--p = '-';
  g_string_append_len (out, p, buf + sizeof buf - p);
}

static void
append_value (GString  *out,
              JsonNode *node,
              gsize     limit)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  double value;

  switch (json_node_get_value_type (node))
    {
    case G_TYPE_STRING:
      append_string (out, json_node_get_string (node), limit);
      break;
    case G_TYPE_BOOLEAN:
      g_string_append (out, json_node_get_boolean (node) ? "true" : "false");
      break;
    case G_TYPE_INT64:
      append_int (out, json_node_get_int (node));
      break;
    case G_TYPE_DOUBLE:
      value = json_node_get_double (node);
      /* JSON has no infinity or NaN; only code can make them. -0 is
       * written as JavaScript writes it, 0 (read back, "-0" is an integer) */
      if (!isfinite (value))
        g_string_append (out, "null");
      else if (value == 0)
        g_string_append_c (out, '0');
      else
        {
          format_double (buf, sizeof buf, value);
          g_string_append (out, buf);
        }
      break;
    default:
      g_string_append (out, "null");
      break;
    }
}

static void
append_indent (GString       *out,
               PrsJsonFormat  format,
               guint          level)
{
  if (format & PRS_JSON_PRETTY)
    for (guint i = 0; i < level; i++)
      g_string_append (out, "  ");
}

static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

static void append_node (GString       *out,
                         JsonNode      *node,
                         PrsJsonFormat  format,
                         guint          level,
                         gsize          limit);

static void
append_object (GString       *out,
               JsonObject    *object,
               PrsJsonFormat  format,
               guint          level,
               gsize          limit)
{
  g_autoptr(GPtrArray) names = g_ptr_array_new ();
  gboolean pretty = (format & PRS_JSON_PRETTY) != 0;
  JsonObjectIter iter;
  const char *name;

  /* In insertion order, as json-glib writes them */
  json_object_iter_init_ordered (&iter, object);
  while (json_object_iter_next_ordered (&iter, &name, NULL))
    g_ptr_array_add (names, (gpointer) name);
  if (format & PRS_JSON_SORTED)
    g_ptr_array_sort (names, compare_names);

  g_string_append_c (out, '{');
  for (guint i = 0; i < names->len && out->len <= limit; i++)
    {
      g_string_append (out, i > 0 ? (pretty ? ",\n" : ",") : (pretty ? "\n" : ""));
      append_indent (out, format, level + 1);
      append_string (out, names->pdata[i], limit);
      g_string_append (out, pretty ? " : " : ":");
      append_node (out, json_object_get_member (object, names->pdata[i]), format, level + 1, limit);
    }
  if (pretty && names->len > 0)
    {
      g_string_append_c (out, '\n');
      append_indent (out, format, level);
    }
  g_string_append_c (out, '}');
}

static void
append_array (GString       *out,
              JsonArray     *array,
              PrsJsonFormat  format,
              guint          level,
              gsize          limit)
{
  gboolean pretty = (format & PRS_JSON_PRETTY) != 0;
  guint len = json_array_get_length (array);

  g_string_append_c (out, '[');
  for (guint i = 0; i < len && out->len <= limit; i++)
    {
      g_string_append (out, i > 0 ? (pretty ? ",\n" : ",") : (pretty ? "\n" : ""));
      append_indent (out, format, level + 1);
      append_node (out, json_array_get_element (array, i), format, level + 1, limit);
    }
  if (pretty && len > 0)
    {
      g_string_append_c (out, '\n');
      append_indent (out, format, level);
    }
  g_string_append_c (out, ']');
}

static void
append_node (GString       *out,
             JsonNode      *node,
             PrsJsonFormat  format,
             guint          level,
             gsize          limit)
{
  if (out->len > limit)
    return;

  switch (JSON_NODE_TYPE (node))
    {
    case JSON_NODE_OBJECT:
      append_object (out, json_node_get_object (node), format, level, limit);
      break;
    case JSON_NODE_ARRAY:
      append_array (out, json_node_get_array (node), format, level, limit);
      break;
    case JSON_NODE_VALUE:
      append_value (out, node, limit);
      break;
    case JSON_NODE_NULL:
    default:
      g_string_append (out, "null");
      break;
    }
}

void
prs_json_append (GString       *out,
                 JsonNode      *node,
                 PrsJsonFormat  format,
                 gsize          limit)
{
  g_return_if_fail (out != NULL);
  g_return_if_fail (node != NULL);

  append_node (out, node, format, 0, limit);
}

char *
prs_json_to_string (JsonNode *node,
                    gboolean  pretty)
{
  GString *out = g_string_new (NULL);

  if (node == NULL)
    g_string_append (out, "null");
  else
    append_node (out, node, pretty ? PRS_JSON_PRETTY : PRS_JSON_COMPACT, 0, G_MAXSIZE);
  return g_string_free (out, FALSE);
}

char *
prs_json_to_canonical_string (JsonNode *node)
{
  GString *out = g_string_new (NULL);

  if (node == NULL)
    g_string_append (out, "null");
  else
    append_node (out, node, PRS_JSON_SORTED, 0, G_MAXSIZE);
  return g_string_free (out, FALSE);
}

char *
prs_json_to_display_string (JsonNode *node,
                            gboolean  pretty)
{
  if (node != NULL && JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    return g_strdup (json_node_get_string (node));

  return prs_json_to_string (node, pretty);
}

void
prs_json_append_string (GString    *out,
                        const char *text)
{
  g_return_if_fail (out != NULL);
  g_return_if_fail (text != NULL);

  append_string (out, text, G_MAXSIZE);
}

void
prs_json_append_escaped (GString    *out,
                         const char *text)
{
  g_return_if_fail (out != NULL);
  g_return_if_fail (text != NULL);

  append_string_content (out, text, G_MAXSIZE);
}
