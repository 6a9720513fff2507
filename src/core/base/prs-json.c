/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-json.c: parsing untrusted JSON with a depth limit. */
#include "config.h"

#include <string.h>
#include <glib/gi18n-lib.h>

#include "prs-error.h"
#include "prs-json.h"

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

JsonNode *
prs_json_parse_bounded (const char  *data,
                        gsize        len,
                        guint        max_depth,
                        GError     **error)
{
  g_autoptr(JsonParser) parser = NULL;
  g_autoptr(GError) local_error = NULL;
  JsonNode *root;

  g_return_val_if_fail (data != NULL || len == 0, NULL);

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

  parser = json_parser_new_immutable ();
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

char *
prs_json_to_string (JsonNode *node,
                    gboolean  pretty)
{
  g_autoptr(JsonGenerator) generator = json_generator_new ();

  g_return_val_if_fail (node != NULL, NULL);

  json_generator_set_root (generator, node);
  json_generator_set_pretty (generator, pretty);
  json_generator_set_indent (generator, 2);

  return json_generator_to_data (generator, NULL);
}

static gboolean
skip_string (const char *s,
             gsize       n,
             gsize      *i)
{
  /* s[*i] is the opening quote */
  for ((*i)++; *i < n; (*i)++)
    {
      guchar c = (guchar) s[*i];

      if (c == '"')
        {
          (*i)++;
          return TRUE;
        }
      if (c < 0x20)
        return FALSE;
      if (c == '\\')
        {
          if (++(*i) >= n)
            return FALSE;
          c = (guchar) s[*i];
          if (c == 'u')
            {
              for (guint k = 0; k < 4; k++)
                if (++(*i) >= n || !g_ascii_isxdigit (s[*i]))
                  return FALSE;
            }
          else if (strchr ("\"\\/bfnrt", c) == NULL || c == '\0')
            return FALSE;
        }
    }

  return FALSE;
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
skip_number (const char *s,
             gsize       n,
             gsize      *i)
{
  if (s[*i] == '-')
    (*i)++;
  if (*i < n && s[*i] == '0')
    (*i)++;
  else if (!skip_digits (s, n, i))
    return FALSE;
  if (*i < n && s[*i] == '.')
    {
      (*i)++;
      if (!skip_digits (s, n, i))
        return FALSE;
    }
  if (*i < n && (s[*i] == 'e' || s[*i] == 'E'))
    {
      (*i)++;
      if (*i < n && (s[*i] == '+' || s[*i] == '-'))
        (*i)++;
      if (!skip_digits (s, n, i))
        return FALSE;
    }

  return TRUE;
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

/* RFC 8259's grammar, iteratively (any depth, no recursion). json-glib's
 * parser is lenient (single quotes, bare keys, comments, hex numbers), so
 * places where "parses as JSON" must mean exactly that ask here first. */
gboolean
prs_json_text_is_strict (const char *s,
                         gsize       n)
{
  enum { VALUE, VALUE_OR_CLOSE, KEY, KEY_OR_CLOSE, COLON, AFTER } state = VALUE;
  g_autoptr(GByteArray) stack = g_byte_array_new ();
  gsize i = 0;

  g_return_val_if_fail (s != NULL || n == 0, FALSE);

  for (;;)
    {
      char c;

      while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
        i++;
      if (i == n)
        return state == AFTER && stack->len == 0;

      c = s[i];
      switch (state)
        {
        case VALUE_OR_CLOSE:
          if (c == ']')
            {
              g_byte_array_set_size (stack, stack->len - 1);
              i++;
              state = AFTER;
              break;
            }
          G_GNUC_FALLTHROUGH;
        case VALUE:
          if (c == '{' || c == '[')
            {
              g_byte_array_append (stack, (const guint8 *) &c, 1);
              i++;
              state = c == '{' ? KEY_OR_CLOSE : VALUE_OR_CLOSE;
            }
          else if (c == '"')
            {
              if (!skip_string (s, n, &i))
                return FALSE;
              state = AFTER;
            }
          else if (c == '-' || g_ascii_isdigit (c))
            {
              if (!skip_number (s, n, &i))
                return FALSE;
              state = AFTER;
            }
          else if (skip_word (s, n, &i, "true") || skip_word (s, n, &i, "false") ||
                   skip_word (s, n, &i, "null"))
            state = AFTER;
          else
            return FALSE;
          break;

        case KEY_OR_CLOSE:
          if (c == '}')
            {
              g_byte_array_set_size (stack, stack->len - 1);
              i++;
              state = AFTER;
              break;
            }
          G_GNUC_FALLTHROUGH;
        case KEY:
          if (c != '"' || !skip_string (s, n, &i))
            return FALSE;
          state = COLON;
          break;

        case COLON:
          if (c != ':')
            return FALSE;
          i++;
          state = VALUE;
          break;

        case AFTER:
        default:
          if (stack->len == 0)
            return FALSE;
          if (c == ',')
            state = stack->data[stack->len - 1] == '{' ? KEY : VALUE;
          else if ((c == ']' && stack->data[stack->len - 1] == '[') ||
                   (c == '}' && stack->data[stack->len - 1] == '{'))
            {
              g_byte_array_set_size (stack, stack->len - 1);
              state = AFTER;
            }
          else
            return FALSE;
          i++;
          break;
        }
    }
}
