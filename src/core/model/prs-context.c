/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-context.c: the Request Context (docs/conversations.md): openLink, field discovery
 * and dotted lookups. Everything here reads untrusted JSON from the network,
 * so every walk is bounded in depth, breadth and total work. */
#include "config.h"

#include <string.h>

#include "prs-context.h"
#include "prs-control-chars.h"
#include "prs-json.h"

/* Nodes looked at per context, whatever their shape: arrays of arrays of
 * objects would otherwise multiply 100 elements per level. */
#define MAX_VISITS      100000
/* Segments of a looked-up path (keys with dots make lookups backtrack). */
#define MAX_LOOKUP_SEGS 16
/* Enough bytes of a preview to hold 81 characters in any encoding. */
#define PREVIEW_BYTES   (4 * (PRS_CONTEXT_MAX_SAMPLE_CHARS + 1))

static const char * const default_link_schemes[] = {
  "http", "https", "mailto", "message", "ms-outlook", "slack", NULL
};

const char * const *
prs_context_get_default_link_schemes (void)
{
  return default_link_schemes;
}

gboolean
prs_context_get_open_link (JsonObject          *context,
                           const char * const  *allowed_schemes,
                           char               **url,
                           char               **label)
{
  JsonNode *link_node;
  JsonObject *link;
  const char *link_url;
  const char *link_label;
  g_autofree char *scheme = NULL;
  gboolean allowed = FALSE;

  if (context == NULL)
    return FALSE;

  link_node = json_object_get_member (context, "openLink");
  if (link_node == NULL || !JSON_NODE_HOLDS_OBJECT (link_node))
    return FALSE;
  link = json_node_get_object (link_node);

  link_url = prs_json_object_get_string (link, "url");
  link_label = prs_json_object_get_string (link, "label");
  if (link_url == NULL || link_label == NULL || prs_text_is_blank (link_url) || prs_text_is_blank (link_label))
    return FALSE;

  scheme = g_uri_parse_scheme (link_url);
  if (scheme == NULL)
    return FALSE;

  if (allowed_schemes == NULL)
    allowed_schemes = default_link_schemes;
  for (guint i = 0; allowed_schemes[i] != NULL && !allowed; i++)
    allowed = g_ascii_strcasecmp (scheme, allowed_schemes[i]) == 0;
  if (!allowed)
    return FALSE;

  if (url != NULL)
    *url = g_strdup (link_url);
  if (label != NULL)
    *label = g_strdup (link_label);
  return TRUE;
}

/* ---- Fields -------------------------------------------------------------- */

void
prs_context_field_free (PrsContextField *field)
{
  if (field == NULL)
    return;

  g_free (field->path);
  g_free (field->type);
  g_free (field->sample);
  g_free (field);
}

static const char *
node_type_name (JsonNode *node)
{
  switch (JSON_NODE_TYPE (node))
    {
    case JSON_NODE_OBJECT:
      return "object";
    case JSON_NODE_ARRAY:
      return "array";
    case JSON_NODE_NULL:
      return "null";
    case JSON_NODE_VALUE:
      switch (json_node_get_value_type (node))
        {
        case G_TYPE_STRING:
          return "string";
        case G_TYPE_BOOLEAN:
          return "boolean";
        default:
          return "number";
        }
    default:
      return "null";
    }
}

/* At most PRS_CONTEXT_MAX_SAMPLE_CHARS characters of @text (valid UTF-8):
 * the first 79 and “…” when it is longer. */
static char *
cut_sample (const char *text)
{
  const char *end = text;
  guint n = 0;

  while (*end != '\0' && n < PRS_CONTEXT_MAX_SAMPLE_CHARS)
    {
      end = g_utf8_next_char (end);
      n++;
    }
  if (*end == '\0')
    return g_strdup (text);

  end = g_utf8_offset_to_pointer (text, PRS_CONTEXT_MAX_SAMPLE_CHARS - 1);
  return g_strdup_printf ("%.*s…", (int) (end - text), text);
}

static char *
make_sample (JsonNode *node)
{
  g_autoptr(GString) out = g_string_new (NULL);

  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    {
      const char *s = json_node_get_string (node);
      gsize len = strlen (s);
      /* Valid already when parsed; made so when a caller built it by hand. */
      g_autofree char *head = g_utf8_make_valid (s, MIN (len, PREVIEW_BYTES + 8));

      return cut_sample (head);
    }

  prs_json_append (out, node, PRS_JSON_COMPACT, PREVIEW_BYTES);
  return cut_sample (out->str);
}

typedef struct
{
  GPtrArray  *fields;
  GHashTable *index;     /* path → PrsContextField*, borrowed */
  guint       visits;
  gboolean    stopped;
} Discovery;

static void
record (Discovery  *d,
        const char *path,
        JsonNode   *node)
{
  PrsContextField *field = g_hash_table_lookup (d->index, path);

  if (field != NULL)
    {
      /* The first non-null value describes the path. */
      if (g_str_equal (field->type, "null") && !JSON_NODE_HOLDS_NULL (node))
        {
          g_free (field->type);
          g_free (field->sample);
          field->type = g_strdup (node_type_name (node));
          field->sample = make_sample (node);
        }
      return;
    }

  if (d->fields->len >= PRS_CONTEXT_MAX_FIELDS)
    {
      d->stopped = TRUE;
      return;
    }

  field = g_new0 (PrsContextField, 1);
  field->path = g_strdup (path);
  field->type = g_strdup (node_type_name (node));
  field->sample = make_sample (node);
  g_ptr_array_add (d->fields, field);
  g_hash_table_insert (d->index, field->path, field);
}

static void discover_node (Discovery  *d,
                           GString    *path,
                           JsonNode   *node,
                           guint       level,
                           guint       brackets);

/* The members of @object, each one level below @level. */
static void
discover_members (Discovery  *d,
                  GString    *path,
                  JsonObject *object,
                  guint       level,
                  guint       brackets)
{
  g_autoptr(GList) members = NULL;
  gsize base_len = path->len;

  if (level >= PRS_CONTEXT_MAX_LEVELS)
    return;

  members = json_object_get_members (object);
  for (GList *l = members; l != NULL && !d->stopped; l = l->next)
    {
      if (base_len > 0)
        g_string_append_c (path, '.');
      g_string_append (path, l->data);
      discover_node (d, path, json_object_get_member (object, l->data), level + 1, brackets);
      g_string_truncate (path, base_len);
    }
}

/* @path names @node, which sits at @level (1 for the context's members),
 * under @brackets array levels. The recursion depth is bounded by
 * PRS_CONTEXT_MAX_LEVELS + PRS_CONTEXT_MAX_ARRAY_NESTING. */
static void
discover_node (Discovery  *d,
               GString    *path,
               JsonNode   *node,
               guint       level,
               guint       brackets)
{
  if (d->stopped || ++d->visits > MAX_VISITS)
    {
      d->stopped = TRUE;
      return;
    }

  if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *array = json_node_get_array (node);
      guint len = MIN (json_array_get_length (array), PRS_CONTEXT_MAX_ELEMENTS);
      gsize base_len = path->len;

      if (brackets >= PRS_CONTEXT_MAX_ARRAY_NESTING)
        return;

      g_string_append (path, "[]");
      record (d, path->str, node);
      for (guint i = 0; i < len && !d->stopped; i++)
        {
          JsonNode *element = json_array_get_element (array, i);

          if (JSON_NODE_HOLDS_OBJECT (element))
            discover_members (d, path, json_node_get_object (element), level, brackets + 1);
          else if (JSON_NODE_HOLDS_ARRAY (element))
            discover_node (d, path, element, level, brackets + 1);
        }
      g_string_truncate (path, base_len);
      return;
    }

  record (d, path->str, node);
  if (JSON_NODE_HOLDS_OBJECT (node))
    discover_members (d, path, json_node_get_object (node), level, brackets);
}

GPtrArray *
prs_context_discover_fields (JsonNode *context)
{
  g_autoptr(GHashTable) index = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GString) path = g_string_new (NULL);
  Discovery d = { 0 };

  d.fields = g_ptr_array_new_with_free_func ((GDestroyNotify) prs_context_field_free);
  d.index = index;

  if (context != NULL && JSON_NODE_HOLDS_OBJECT (context))
    discover_members (&d, path, json_node_get_object (context), 0, 0);

  return d.fields;
}

JsonNode *
prs_context_fields_to_json (GPtrArray *fields)
{
  g_autoptr(JsonArray) array = json_array_new ();
  JsonNode *node = json_node_new (JSON_NODE_ARRAY);

  for (guint i = 0; fields != NULL && i < fields->len; i++)
    {
      const PrsContextField *field = g_ptr_array_index (fields, i);
      JsonObject *object = json_object_new ();

      json_object_set_string_member (object, "path", field->path);
      json_object_set_string_member (object, "type", field->type);
      json_object_set_string_member (object, "sample", field->sample);
      json_array_add_object_element (array, object);
    }

  json_node_set_array (node, array);
  return node;
}

/* ---- Lookup -------------------------------------------------------------- */

static JsonNode *
lookup_from (JsonObject  *object,
             char       **segments,
             guint        start,
             guint        n)
{
  /* The longest key first, so "a.b" as one key beats "a" → "b" only when
   * both exist; otherwise whichever exists. */
  for (guint end = n; end > start; end--)
    {
      g_autoptr(GString) key = g_string_new (segments[start]);
      gboolean last = end == n;
      JsonNode *node;

      for (guint i = start + 1; i < end; i++)
        {
          g_string_append_c (key, '.');
          g_string_append (key, segments[i]);
        }

      node = json_object_get_member (object, key->str);
      if (node == NULL && last && key->len > 2 && g_str_has_suffix (key->str, "[]"))
        {
          g_autofree char *base = g_strndup (key->str, key->len - 2);
          JsonNode *array = json_object_get_member (object, base);

          if (array != NULL && JSON_NODE_HOLDS_ARRAY (array))
            return array;
        }
      if (node == NULL)
        continue;

      if (last)
        {
          if (JSON_NODE_HOLDS_NULL (node))
            continue;
          return node;
        }

      if (JSON_NODE_HOLDS_OBJECT (node))
        {
          JsonNode *found = lookup_from (json_node_get_object (node), segments, end, n);

          if (found != NULL)
            return found;
        }
    }

  return NULL;
}

JsonNode *
prs_context_lookup (JsonObject *context,
                    const char *path)
{
  g_auto(GStrv) segments = NULL;
  guint n;

  if (context == NULL || path == NULL || path[0] == '\0')
    return NULL;

  segments = g_strsplit (path, ".", MAX_LOOKUP_SEGS + 1);
  n = g_strv_length (segments);
  if (n > MAX_LOOKUP_SEGS)
    return NULL;

  return lookup_from (context, segments, 0, n);
}
