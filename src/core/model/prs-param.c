/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-param.c: a tool parameter: name, type, requiredness, default, wording. */
#include <string.h>

#include "prs-param.h"

PrsParam *
prs_param_new (const char   *name,
               PrsParamType  type,
               gboolean      required,
               JsonNode     *default_value)
{
  PrsParam *param;

  g_return_val_if_fail (name != NULL, NULL);

  param = g_new0 (PrsParam, 1);
  param->name = g_strdup (name);
  param->type = type;
  param->required = !!required;
  param->default_value = default_value != NULL ? json_node_copy (default_value) : NULL;
  param->description = prs_param_describe (name);

  return param;
}

PrsParam *
prs_param_copy (const PrsParam *param)
{
  PrsParam *copy;

  g_return_val_if_fail (param != NULL, NULL);

  copy = g_new0 (PrsParam, 1);
  copy->name = g_strdup (param->name);
  copy->type = param->type;
  copy->required = param->required;
  copy->default_value = param->default_value != NULL ? json_node_copy (param->default_value) : NULL;
  copy->description = g_strdup (param->description);

  return copy;
}

void
prs_param_free (PrsParam *param)
{
  if (param == NULL)
    return;

  g_free (param->name);
  g_clear_pointer (&param->default_value, json_node_unref);
  g_free (param->description);
  g_free (param);
}

static const char * const type_names[] = {
  [PRS_PARAM_STRING] = "string",
  [PRS_PARAM_NUMBER] = "number",
  [PRS_PARAM_BOOLEAN] = "boolean",
  [PRS_PARAM_ARRAY] = "array",
  [PRS_PARAM_OBJECT] = "object",
};

const char *
prs_param_type_to_string (PrsParamType type)
{
  g_return_val_if_fail (type <= PRS_PARAM_OBJECT, "string");

  return type_names[type];
}

gboolean
prs_param_type_from_string (const char   *str,
                            PrsParamType *out_type)
{
  g_return_val_if_fail (out_type != NULL, FALSE);

  if (str == NULL)
    return FALSE;

  for (guint i = 0; i < G_N_ELEMENTS (type_names); i++)
    {
      if (g_strcmp0 (str, type_names[i]) == 0)
        {
          *out_type = (PrsParamType) i;
          return TRUE;
        }
    }

  return FALSE;
}

/* "The " + the words of KEY in lower case. Words break at "_" and "-", at a
 * lower-case letter or digit followed by an upper-case one (maxResults), and
 * at the last capital of an acronym followed by a lower-case letter
 * (XMLHttp → xml http, userID → user id). */
char *
prs_param_describe (const char *key)
{
  char *out;
  char *o;
  gboolean need_space = FALSE;
  gboolean any = FALSE;
  gsize len;

  g_return_val_if_fail (key != NULL, NULL);

  len = strlen (key);
  /* "The", then at most a space before each character: written straight
   * into one block (every parameter a discovery finds is described) */
  out = g_malloc (3 + 2 * len + 1);
  memcpy (out, "The", 3);
  o = out + 3;

  for (gsize i = 0; i < len; i++)
    {
      char c = key[i];
      gboolean boundary = FALSE;

      if (c == '_' || c == '-' || g_ascii_isspace (c))
        {
          need_space = any;
          continue;
        }

      if (i > 0 && g_ascii_isupper (c))
        {
          char prev = key[i - 1];
          char next = i + 1 < len ? key[i + 1] : '\0';

          if (g_ascii_islower (prev) || g_ascii_isdigit (prev))
            boundary = TRUE;
          else if (g_ascii_isupper (prev) && g_ascii_islower (next))
            boundary = TRUE;
        }

      if (boundary && any)
        need_space = TRUE;

      if (need_space || !any)
        *o++ = ' ';
      need_space = FALSE;
      any = TRUE;

      *o++ = g_ascii_tolower (c);
    }
  *o = '\0';

  return out;
}
