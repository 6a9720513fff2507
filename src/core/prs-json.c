/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-json.c: parsing untrusted JSON with a depth limit. */
#include "config.h"

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

  root = json_parser_get_root (parser);
  if (root == NULL)
    {
      g_set_error_literal (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                           _("The text is empty, not JSON."));
      return NULL;
    }

  return json_node_copy (root);
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
