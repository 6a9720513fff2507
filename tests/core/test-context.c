/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Tests for prs-context.c (openLink, field discovery, dotted lookups) and
 * for the fields the store records from inbound messages
 * (prs-store-context.c). */
#include <string.h>

#include "prs-context.h"
#include "prs-error.h"
#include "prs-json.h"
#include "prs-store.h"
#include "prs-test-util.h"

static JsonNode *
parse (const char *text)
{
  g_autoptr(GError) error = NULL;
  JsonNode *node = prs_json_parse_bounded (text, strlen (text), 2000, &error);

  g_assert_no_error (error);
  return node;
}

static gboolean
open_link (const char          *text,
           const char * const  *schemes,
           char               **url,
           char               **label)
{
  g_autoptr(JsonNode) node = parse (text);

  return prs_context_get_open_link (json_node_get_object (node), schemes, url, label);
}

static void
test_open_link_valid (void)
{
  g_autofree char *url = NULL;
  g_autofree char *label = NULL;

  g_assert_true (open_link ("{\"openLink\":{\"url\":\"message://%3Cid%40x%3E\",\"label\":\"Open in Mail\"}}",
                            NULL, &url, &label));
  g_assert_cmpstr (url, ==, "message://%3Cid%40x%3E");
  g_assert_cmpstr (label, ==, "Open in Mail");

  g_assert_true (open_link ("{\"openLink\":{\"url\":\"HTTPS://example.com/a\",\"label\":\"Jira\",\"extra\":1}}",
                            NULL, NULL, NULL));
  g_assert_true (open_link ("{\"openLink\":{\"url\":\"mailto:a@example.com\",\"label\":\"Mail\"}}",
                            NULL, NULL, NULL));
  g_assert_true (open_link ("{\"openLink\":{\"url\":\"slack://channel?id=1\",\"label\":\"S\"}}",
                            NULL, NULL, NULL));
  g_assert_true (open_link ("{\"openLink\":{\"url\":\"ms-outlook://x\",\"label\":\"O\"}}",
                            NULL, NULL, NULL));
  g_assert_cmpstr (PRS_CONTEXT_DEFAULT_LINK_SCHEMES, ==, "http https mailto message ms-outlook slack");
  g_assert_cmpuint (g_strv_length ((GStrv) prs_context_get_default_link_schemes ()), ==, 6);
}

static void
test_open_link_invalid (void)
{
  const char * const cases[] = {
    "{}",
    "{\"openLink\":null}",
    "{\"openLink\":\"https://example.com\"}",
    "{\"openLink\":[\"https://example.com\",\"x\"]}",
    "{\"openLink\":{\"url\":\"https://example.com\"}}",
    "{\"openLink\":{\"label\":\"x\"}}",
    "{\"openLink\":{\"url\":\"\",\"label\":\"x\"}}",
    "{\"openLink\":{\"url\":\"https://example.com\",\"label\":\"\"}}",
    "{\"openLink\":{\"url\":\"https://example.com\",\"label\":\"   \"}}",
    "{\"openLink\":{\"url\":42,\"label\":\"x\"}}",
    "{\"openLink\":{\"url\":\"https://example.com\",\"label\":true}}",
    "{\"openLink\":{\"url\":{\"href\":\"https://example.com\"},\"label\":\"x\"}}",
    "{\"openLink\":{\"url\":\"https://example.com\",\"label\":null}}",
    "{\"openLink\":{\"url\":\"example.com/no-scheme\",\"label\":\"x\"}}",
    "{\"openLink\":{\"url\":\"javascript:alert(1)\",\"label\":\"x\"}}",
    "{\"openLink\":{\"url\":\"file:///etc/passwd\",\"label\":\"x\"}}",
    "{\"openLink\":{\"url\":\"httpx://example.com\",\"label\":\"x\"}}",
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      char *url = (char *) "untouched";

      g_test_message ("%s", cases[i]);
      g_assert_false (open_link (cases[i], NULL, &url, NULL));
      g_assert_cmpstr (url, ==, "untouched");
    }

  g_assert_false (prs_context_get_open_link (NULL, NULL, NULL, NULL));
}

static void
test_open_link_allowlist (void)
{
  const char * const only_https[] = { "https", NULL };
  const char * const with_file[] = { "file", NULL };

  g_assert_true (open_link ("{\"openLink\":{\"url\":\"https://example.com\",\"label\":\"x\"}}",
                            only_https, NULL, NULL));
  g_assert_false (open_link ("{\"openLink\":{\"url\":\"http://example.com\",\"label\":\"x\"}}",
                             only_https, NULL, NULL));
  g_assert_false (open_link ("{\"openLink\":{\"url\":\"message://x\",\"label\":\"x\"}}",
                             only_https, NULL, NULL));
  g_assert_true (open_link ("{\"openLink\":{\"url\":\"file:///tmp/x\",\"label\":\"x\"}}",
                            with_file, NULL, NULL));
}

/* ---- Discovery ----------------------------------------------------------- */

static GPtrArray *
discover (const char *text)
{
  g_autoptr(JsonNode) node = parse (text);

  return prs_context_discover_fields (node);
}

static const PrsContextField *
find_field (GPtrArray  *fields,
            const char *path)
{
  for (guint i = 0; i < fields->len; i++)
    {
      const PrsContextField *field = g_ptr_array_index (fields, i);

      if (g_str_equal (field->path, path))
        return field;
    }
  return NULL;
}

static void
assert_field (GPtrArray  *fields,
              const char *path,
              const char *type,
              const char *sample)
{
  const PrsContextField *field = find_field (fields, path);

  if (field == NULL)
    g_error ("no field %s", path);
  g_assert_cmpstr (field->type, ==, type);
  if (sample != NULL)
    g_assert_cmpstr (field->sample, ==, sample);
}

static char *
paths_of (GPtrArray *fields)
{
  g_autoptr(GString) out = g_string_new (NULL);

  for (guint i = 0; i < fields->len; i++)
    {
      const PrsContextField *field = g_ptr_array_index (fields, i);

      g_string_append_printf (out, "%s%s", i > 0 ? " " : "", field->path);
    }
  return g_strdup (out->str);
}

static void
test_discover_flat (void)
{
  g_autoptr(GPtrArray) fields = discover ("{\"uid\":1,\"mailbox\":\"INBOX\",\"flagged\":false,"
                                          "\"score\":0.5,\"cc\":null,\"openLink\":{\"url\":\"u\",\"label\":\"l\"}}");
  g_autofree char *paths = paths_of (fields);

  g_assert_cmpstr (paths, ==, "uid mailbox flagged score cc openLink openLink.url openLink.label");
  assert_field (fields, "uid", "number", "1");
  assert_field (fields, "mailbox", "string", "INBOX");
  assert_field (fields, "flagged", "boolean", "false");
  assert_field (fields, "score", "number", "0.5");
  assert_field (fields, "cc", "null", "null");
  assert_field (fields, "openLink", "object", "{\"url\":\"u\",\"label\":\"l\"}");
}

static void
test_discover_depth (void)
{
  g_autoptr(GPtrArray) fields = discover ("{\"a\":{\"b\":{\"c\":{\"d\":{\"e\":{\"f\":1}}},\"c2\":2}}}");
  g_autofree char *paths = paths_of (fields);

  /* Level 4 is recorded (as an object), level 5 is not. */
  g_assert_cmpstr (paths, ==, "a a.b a.b.c a.b.c.d a.b.c2");
  assert_field (fields, "a.b.c.d", "object", "{\"e\":{\"f\":1}}");
  assert_field (fields, "a.b.c2", "number", "2");

  g_clear_pointer (&fields, g_ptr_array_unref);
  fields = discover ("{\"a\":{\"b\":{\"c\":{\"d\":\"leaf\"}}}}");
  assert_field (fields, "a.b.c.d", "string", "leaf");
  g_assert_cmpuint (fields->len, ==, 4);
}

static void
test_discover_arrays_of_objects (void)
{
  g_autoptr(GPtrArray) fields = discover ("{\"items\":[{\"name\":null,\"qty\":1},"
                                          "{\"name\":\"pen\",\"tags\":[\"a\"]},"
                                          "{\"name\":\"ink\",\"box\":{\"w\":{\"x\":{\"y\":1}}}}]}");
  g_autofree char *paths = paths_of (fields);

  /* The union over the elements; [] adds no level. */
  g_assert_cmpstr (paths, ==, "items[] items[].name items[].qty items[].tags[] items[].box "
                              "items[].box.w items[].box.w.x");
  assert_field (fields, "items[]", "array", NULL);
  /* The first non-null value describes the path. */
  assert_field (fields, "items[].name", "string", "pen");
  assert_field (fields, "items[].tags[]", "array", "[\"a\"]");
  assert_field (fields, "items[].box.w.x", "object", "{\"y\":1}");
}

static void
test_discover_arrays_of_arrays (void)
{
  g_autoptr(GPtrArray) fields = discover ("{\"m\":[[1,2],[[{\"k\":true}]]],"
                                          "\"deep\":[[[[[[1]]]]]],\"scalars\":[1,\"two\",null]}");
  g_autofree char *paths = paths_of (fields);

  /* At most four bracket pairs. */
  g_assert_cmpstr (paths, ==, "m[] m[][] m[][][] m[][][].k "
                              "deep[] deep[][] deep[][][] deep[][][][] scalars[]");
  assert_field (fields, "m[][]", "array", "[1,2]");
  assert_field (fields, "m[][][].k", "boolean", "true");
  assert_field (fields, "scalars[]", "array", "[1,\"two\",null]");
}

static void
test_discover_empty_and_null (void)
{
  g_autoptr(GPtrArray) fields = discover ("{\"o\":{},\"a\":[],\"n\":null,\"ao\":[{},{}],\"an\":[null]}");
  g_autofree char *paths = paths_of (fields);
  g_autoptr(GPtrArray) none = discover ("{}");
  g_autoptr(GPtrArray) not_object = discover ("[{\"a\":1}]");
  g_autoptr(GPtrArray) null_root = prs_context_discover_fields (NULL);

  g_assert_cmpstr (paths, ==, "o a[] n ao[] an[]");
  assert_field (fields, "o", "object", "{}");
  assert_field (fields, "a[]", "array", "[]");
  assert_field (fields, "n", "null", "null");
  g_assert_cmpuint (none->len, ==, 0);
  g_assert_cmpuint (not_object->len, ==, 0);
  g_assert_cmpuint (null_root->len, ==, 0);
}

static void
test_discover_odd_keys (void)
{
  g_autoptr(GPtrArray) fields = discover ("{\"a.b\":{\"c\":1},\"x[]\":2,\"\":3}");
  g_autofree char *paths = paths_of (fields);

  /* Kept as they are. */
  g_assert_cmpstr (paths, ==, "a.b a.b.c x[] ");
}

static void
test_discover_samples (void)
{
  g_autoptr(GString) long_text = g_string_new (NULL);
  g_autoptr(GString) json = g_string_new (NULL);
  g_autoptr(GPtrArray) fields = NULL;
  const PrsContextField *field;

  for (guint i = 0; i < 200; i++)
    g_string_append (long_text, i % 2 ? "é" : "😀");

  g_string_append_printf (json, "{\"long\":\"%s\",\"exact\":\"%s\",\"obj\":{\"k\":\"%s\"},"
                          "\"esc\":\"a\\\"b\\nc\"}",
                          long_text->str,
                          "12345678901234567890123456789012345678901234567890123456789012345678901234567890",
                          long_text->str);
  fields = discover (json->str);

  field = find_field (fields, "long");
  g_assert_true (g_utf8_validate (field->sample, -1, NULL));
  g_assert_cmpint (g_utf8_strlen (field->sample, -1), ==, 80);
  g_assert_true (g_str_has_suffix (field->sample, "…"));
  g_assert_true (g_str_has_prefix (field->sample, "😀é😀é"));

  field = find_field (fields, "exact");
  g_assert_cmpint (g_utf8_strlen (field->sample, -1), ==, 80);
  g_assert_false (g_str_has_suffix (field->sample, "…"));

  field = find_field (fields, "obj");
  g_assert_true (g_utf8_validate (field->sample, -1, NULL));
  g_assert_cmpint (g_utf8_strlen (field->sample, -1), ==, 80);
  g_assert_true (g_str_has_prefix (field->sample, "{\"k\":\"😀é"));

  assert_field (fields, "esc", "string", "a\"b\nc");
}

static void
test_discover_huge (void)
{
  g_autoptr(JsonObject) object = json_object_new ();
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
  g_autoptr(GPtrArray) fields = NULL;
  gint64 start;

  for (guint i = 0; i < 100000; i++)
    {
      char key[32];

      g_snprintf (key, sizeof key, "key%u", i);
      json_object_set_int_member (object, key, i);
    }
  json_node_set_object (node, object);

  start = g_get_monotonic_time ();
  fields = prs_context_discover_fields (node);
  g_assert_cmpuint (fields->len, ==, PRS_CONTEXT_MAX_FIELDS);
  assert_field (fields, "key0", "number", "0");
  assert_field (fields, "key1999", "number", "1999");
  g_assert_null (find_field (fields, "key2000"));
  g_assert_cmpint (g_get_monotonic_time () - start, <, 5 * G_USEC_PER_SEC);
}

static void
test_discover_wide_arrays (void)
{
  /* 1000 × 1000 objects: only the first 100 elements of each are looked at. */
  g_autoptr(JsonArray) outer = json_array_new ();
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(JsonObject) root = json_object_new ();
  g_autoptr(GPtrArray) fields = NULL;

  for (guint i = 0; i < 1000; i++)
    {
      JsonArray *inner = json_array_new ();

      for (guint j = 0; j < 1000; j++)
        {
          JsonObject *element = json_object_new ();
          char key[32];

          g_snprintf (key, sizeof key, "k%u", j);
          json_object_set_int_member (element, key, j);
          json_array_add_object_element (inner, element);
        }
      json_array_add_array_element (outer, inner);
    }
  json_object_set_array_member (root, "rows", json_array_ref (outer));
  node = json_node_new (JSON_NODE_OBJECT);
  json_node_set_object (node, root);

  fields = prs_context_discover_fields (node);
  g_assert_nonnull (find_field (fields, "rows[][].k99"));
  g_assert_null (find_field (fields, "rows[][].k100"));
  g_assert_cmpuint (fields->len, ==, 102);
}

/* Built bottom-up without recursion: {"k":{"k":…}} and [[…]]. */
static JsonNode *
build_deep (guint    levels,
            gboolean arrays)
{
  JsonNode *node = json_node_new (JSON_NODE_VALUE);

  json_node_set_int (node, 1);
  for (guint i = 0; i < levels; i++)
    {
      JsonNode *parent;

      if (arrays)
        {
          JsonArray *array = json_array_new ();

          json_array_add_element (array, node);
          parent = json_node_new (JSON_NODE_ARRAY);
          json_node_take_array (parent, array);
        }
      else
        {
          JsonObject *object = json_object_new ();

          json_object_set_member (object, "k", node);
          parent = json_node_new (JSON_NODE_OBJECT);
          json_node_take_object (parent, object);
        }
      node = parent;
    }
  return node;
}

static void
test_discover_deep (void)
{
  g_autoptr(JsonNode) deep_object = build_deep (10000, FALSE);
  g_autoptr(JsonNode) deep_array = build_deep (10000, TRUE);
  g_autoptr(JsonObject) root = json_object_new ();
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
  g_autoptr(GPtrArray) fields = NULL;
  g_autoptr(GPtrArray) parsed_fields = NULL;
  g_autoptr(GString) text = g_string_new ("{\"p\":");
  g_autoptr(JsonNode) parsed = NULL;
  g_autofree char *paths = NULL;

  json_object_set_member (root, "o", json_node_ref (deep_object));
  json_object_set_member (root, "a", json_node_ref (deep_array));
  json_node_set_object (node, root);

  fields = prs_context_discover_fields (node);
  paths = paths_of (fields);
  g_assert_cmpstr (paths, ==, "o o.k o.k.k o.k.k.k a[] a[][] a[][][] a[][][][]");
  g_assert_cmpint (g_utf8_strlen (find_field (fields, "o")->sample, -1), ==, 80);

  /* A parsed one, as deep as the JSON parser is allowed to go here. */
  for (guint i = 0; i < 999; i++)
    g_string_append (text, "{\"k\":");
  g_string_append (text, "1");
  for (guint i = 0; i < 1000; i++)
    g_string_append_c (text, '}');
  parsed = parse (text->str);
  parsed_fields = prs_context_discover_fields (parsed);
  g_assert_cmpuint (parsed_fields->len, ==, 4);
}

static void
test_fields_to_json (void)
{
  g_autoptr(GPtrArray) fields = discover ("{\"uid\":\"1\",\"tags\":[\"a\"]}");
  g_autoptr(JsonNode) json = prs_context_fields_to_json (fields);
  g_autofree char *text = prs_json_to_string (json, FALSE);

  g_assert_cmpstr (text, ==, "[{\"path\":\"uid\",\"type\":\"string\",\"sample\":\"1\"},"
                             "{\"path\":\"tags[]\",\"type\":\"array\",\"sample\":\"[\\\"a\\\"]\"}]");
}

static void
test_lookup (void)
{
  g_autoptr(JsonNode) node = parse ("{\"uid\":7,\"message\":{\"uid\":\"m1\",\"to\":{\"addr\":\"x@y\"}},"
                                    "\"a.b\":{\"c\":\"dotted\"},\"n\":null,\"tags\":[\"t\"],"
                                    "\"items\":[{\"name\":\"x\"}]}");
  JsonObject *context = json_node_get_object (node);

  g_assert_cmpint (json_node_get_int (prs_context_lookup (context, "uid")), ==, 7);
  g_assert_cmpstr (json_node_get_string (prs_context_lookup (context, "message.uid")), ==, "m1");
  g_assert_cmpstr (json_node_get_string (prs_context_lookup (context, "message.to.addr")), ==, "x@y");
  g_assert_true (JSON_NODE_HOLDS_OBJECT (prs_context_lookup (context, "message.to")));
  g_assert_cmpstr (json_node_get_string (prs_context_lookup (context, "a.b.c")), ==, "dotted");
  g_assert_true (JSON_NODE_HOLDS_ARRAY (prs_context_lookup (context, "tags[]")));
  g_assert_true (JSON_NODE_HOLDS_ARRAY (prs_context_lookup (context, "tags")));
  g_assert_null (prs_context_lookup (context, "items[].name"));
  g_assert_null (prs_context_lookup (context, "n"));
  g_assert_null (prs_context_lookup (context, "missing"));
  g_assert_null (prs_context_lookup (context, "uid.more"));
  g_assert_null (prs_context_lookup (context, "message.missing"));
  g_assert_null (prs_context_lookup (context, ""));
  g_assert_null (prs_context_lookup (context, NULL));
  g_assert_null (prs_context_lookup (NULL, "uid"));
}

/* ---- Persisted fields ---------------------------------------------------- */

static char *
insert_inbound (PrsStore   *store,
                const char *conversation_id,
                const char *context,
                const char *workflow_id)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *execution = workflow_id != NULL
                               ? g_strdup_printf ("{\"workflowId\":\"%s\",\"executionId\":\"1\"}", workflow_id)
                               : NULL;
  PrsMessageInsert message = {
    .conversation_id = conversation_id,
    .kind = "inbound",
    .content = "New email",
    .context_json = context,
    .execution_json = execution,
  };
  char *id = NULL;

  g_assert_true (prs_store_insert_message (store, &message, &id, NULL, &error));
  g_assert_no_error (error);
  return id;
}

static JsonObject *
find_entry (JsonArray  *array,
            const char *path)
{
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonObject *entry = json_array_get_object_element (array, i);

      if (g_str_equal (json_object_get_string_member (entry, "path"), path))
        return entry;
    }
  return NULL;
}

static void
test_store_fields (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("prs-test-context-XXXXXX", &error);
  g_autofree char *db = g_build_filename (dir, "prosponsive.db", NULL);
  g_autoptr(PrsStore) store = prs_store_new_for_path (db, &error);
  g_autofree char *conv_a = NULL;
  g_autofree char *conv_b = NULL;
  g_autofree char *m1 = NULL;
  g_autofree char *m2 = NULL;
  g_autofree char *m3 = NULL;
  g_autofree char *m4 = NULL;
  g_autoptr(JsonArray) a_fields = NULL;
  g_autoptr(JsonArray) union_fields = NULL;
  g_autoptr(JsonArray) none = NULL;
  JsonObject *entry;
  JsonArray *origins;

  g_assert_no_error (error);
  g_assert_true (prs_store_resolve_conversation (store, "mail", &conv_a, NULL, &error));
  g_assert_true (prs_store_resolve_conversation (store, "jira", &conv_b, NULL, &error));
  g_assert_true (prs_store_rename_conversation (store, conv_a, "Mail", &error));
  g_assert_no_error (error);

  m1 = insert_inbound (store, conv_a, "{\"uid\":1,\"mailbox\":\"INBOX\",\"cc\":null}", "wf-mail");
  /* Cumulative: a later message adds fields; a null never hides a type. */
  m2 = insert_inbound (store, conv_a, "{\"uid\":2,\"subject\":\"Hi\",\"mailbox\":null}", "wf-mail");
  m3 = insert_inbound (store, conv_b, "{\"issue\":{\"key\":\"PRJ-1\"},\"uid\":\"u-9\"}", "wf-jira");
  /* Not an object, and no context at all: nothing recorded, nothing fails. */
  m4 = insert_inbound (store, conv_b, "[1,2]", NULL);
  g_free (insert_inbound (store, conv_b, NULL, NULL));

  a_fields = prs_store_list_context_fields (store, conv_a, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (json_array_get_length (a_fields), ==, 4);   /* cc mailbox subject uid */
  entry = find_entry (a_fields, "uid");
  g_assert_cmpstr (json_object_get_string_member (entry, "type"), ==, "number");
  g_assert_cmpstr (json_object_get_string_member (entry, "sample"), ==, "2");
  g_assert_cmpint (json_object_get_int_member (entry, "seenCount"), ==, 2);
  entry = find_entry (a_fields, "mailbox");
  g_assert_cmpstr (json_object_get_string_member (entry, "type"), ==, "string");
  g_assert_cmpstr (json_object_get_string_member (entry, "sample"), ==, "INBOX");
  origins = json_object_get_array_member (entry, "origins");
  g_assert_cmpuint (json_array_get_length (origins), ==, 1);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (origins, 0), "conversationId"), ==, conv_a);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (origins, 0), "conversationTitle"), ==, "Mail");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (origins, 0), "workflowId"), ==, "wf-mail");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (origins, 0), "messageId"), ==, m2);
  g_assert_cmpstr (json_object_get_string_member (find_entry (a_fields, "cc"), "type"), ==, "null");

  union_fields = prs_store_list_context_fields (store, NULL, &error);
  g_assert_no_error (error);
  /* cc issue issue.key mailbox subject uid, ordered by path */
  g_assert_cmpuint (json_array_get_length (union_fields), ==, 6);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (union_fields, 0), "path"), ==, "cc");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (union_fields, 2), "path"), ==, "issue.key");
  entry = find_entry (union_fields, "uid");
  origins = json_object_get_array_member (entry, "origins");
  g_assert_cmpuint (json_array_get_length (origins), ==, 2);
  /* The latest sighting first: it also gives type and sample. */
  g_assert_cmpstr (json_object_get_string_member (entry, "type"), ==, "string");
  g_assert_cmpstr (json_object_get_string_member (entry, "sample"), ==, "u-9");
  g_assert_cmpint (json_object_get_int_member (entry, "seenCount"), ==, 3);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (origins, 0), "conversationTitle"), ==, "jira");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (origins, 0), "workflowId"), ==, "wf-jira");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (origins, 0), "messageId"), ==, m3);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (origins, 1), "conversationId"), ==, conv_a);

  none = prs_store_list_context_fields (store, "no-such-conversation", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (json_array_get_length (none), ==, 0);

  g_clear_object (&store);
  prs_test_remove_tree (dir);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/prs/context/open-link/valid", test_open_link_valid);
  g_test_add_func ("/prs/context/open-link/invalid", test_open_link_invalid);
  g_test_add_func ("/prs/context/open-link/allowlist", test_open_link_allowlist);
  g_test_add_func ("/prs/context/discover/flat", test_discover_flat);
  g_test_add_func ("/prs/context/discover/depth", test_discover_depth);
  g_test_add_func ("/prs/context/discover/arrays-of-objects", test_discover_arrays_of_objects);
  g_test_add_func ("/prs/context/discover/arrays-of-arrays", test_discover_arrays_of_arrays);
  g_test_add_func ("/prs/context/discover/empty-and-null", test_discover_empty_and_null);
  g_test_add_func ("/prs/context/discover/odd-keys", test_discover_odd_keys);
  g_test_add_func ("/prs/context/discover/samples", test_discover_samples);
  g_test_add_func ("/prs/context/discover/huge", test_discover_huge);
  g_test_add_func ("/prs/context/discover/wide-arrays", test_discover_wide_arrays);
  g_test_add_func ("/prs/context/discover/deep", test_discover_deep);
  g_test_add_func ("/prs/context/fields-to-json", test_fields_to_json);
  g_test_add_func ("/prs/context/lookup", test_lookup);
  g_test_add_func ("/prs/context/store/fields", test_store_fields);

  return g_test_run ();
}
