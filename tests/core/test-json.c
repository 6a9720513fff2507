/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Tests for prs-json.c: strict JSON, depth limits, bounded and strict
 * parsing, the writer, the canonical text, type-checked reads. */
#include <string.h>

#include "prs-error.h"
#include "prs-json.h"

static void
test_strict (void)
{
  static const struct { const char *text; gboolean strict; } cases[] = {
    { "{}", TRUE }, { "[]", TRUE }, { "0", TRUE }, { "-0.5e+3", TRUE }, { "\"s\"", TRUE },
    { " true ", TRUE }, { "null", TRUE }, { "[1,[2,[3]],{\"a\":{\"b\":[]}}]", TRUE },
    { "{\"k\":\"\\u00e9\\n\\\"\"}", TRUE }, { "[\"a]\",\"[b\"]", TRUE },
    { "", FALSE }, { "   ", FALSE }, { "[1,]", FALSE }, { "{\"a\":1,}", FALSE }, { "{a:1}", FALSE },
    { "['a']", FALSE }, { "[1] [2]", FALSE }, { "[01]", FALSE }, { "[.5]", FALSE }, { "[1.]", FALSE },
    { "[0x10]", FALSE }, { "[1 /* c */]", FALSE }, { "[\"\\x41\"]", FALSE }, { "[\"\\u12\"]", FALSE },
    { "[\"tab\there\"]", FALSE }, { "{\"a\" 1}", FALSE }, { "[}", FALSE }, { "{]", FALSE },
    { "[[[", FALSE }, { "]", FALSE }, { "tru", FALSE }, { "NaN", FALSE }, { "[-]", FALSE },
    { "{\"a\":1}}", FALSE }, { "\"unterminated", FALSE }, { "[1e]", FALSE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_test_message ("%s", cases[i].text);
      g_assert_cmpint (prs_json_text_is_strict (cases[i].text, strlen (cases[i].text)), ==, cases[i].strict);
    }
}

static void
test_strict_deep (void)
{
  gsize depth = 500000;
  g_autoptr(GString) text = g_string_new (NULL);

  for (gsize i = 0; i < depth; i++)
    g_string_append_c (text, '[');
  for (gsize i = 0; i < depth; i++)
    g_string_append_c (text, ']');

  /* No recursion: any depth is answered. */
  g_assert_true (prs_json_text_is_strict (text->str, text->len));
  g_string_truncate (text, text->len - 1);
  g_assert_false (prs_json_text_is_strict (text->str, text->len));
}

static void
test_parse_bounded (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = prs_json_parse_bounded ("[[1]]", 5, 2, &error);
  g_autoptr(JsonNode) too_deep = NULL;

  g_assert_no_error (error);
  g_assert_nonnull (node);
  too_deep = prs_json_parse_bounded ("[[[1]]]", 7, 2, &error);
  g_assert_null (too_deep);
  g_assert_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT);
}


/* Each text, what prs_json_parse_strict answers: NULL for a refusal (the
 * error names the byte), else the text written back by prs_json_to_string */
static void
test_parse_strict (void)
{
  static const struct { const char *text; const char *back; const char *problem; } cases[] = {
    { "{\"a\":0.1}", "{\"a\":0.1}", NULL },
    { "{\"a\":[1,-2,1.5e3,-0.0,1e300,1E-7]}", "{\"a\":[1,-2,1500,0,1e+300,1e-07]}", NULL },
    { "[9223372036854775807,-9223372036854775808]", "[9223372036854775807,-9223372036854775808]", NULL },
    { "[0,-0,7,-7,10,-10,100,1000000007]", "[0,0,7,-7,10,-10,100,1000000007]", NULL },
    /* JavaScript's way of writing 2^64: a double, kept as one */
    { "[18446744073709552000]", "[1.8446744073709552e+19]", NULL },
    { "[0.30000000000000004]", "[0.30000000000000004]", NULL },
    { "[\"\\ud83d\\ude00 \\u00e9\"]", "[\"😀 é\"]", NULL },
    { "{\"a\":123456789012345678901234567890}", NULL, "the number 123456789012345678901234567890 cannot be kept exactly" },
    { "[9223372036854775808]", NULL, "the number 9223372036854775808" },
    { "[1e999]", NULL, "the number 1e999" },
    { "[-1e999]", NULL, "the number -1e999" },
    { "[1e-999]", NULL, "the number 1e-999" },
    { "[0.12345678901234567891]", NULL, "the number 0.12345678901234567891" },
    { "[1e99999999999999999999]", NULL, "cannot be kept exactly" },
    { "{\"a\":\"ab\\u0000cd\"}", NULL, "U+0000 (\\u0000), which cannot be kept (at byte 8)" },
    { "[\"\\ud800\"]", NULL, "lone high surrogate (\\uD800)" },
    { "[\"\\ud800x\"]", NULL, "lone high surrogate" },
    { "[\"\\ud800\\u0041\"]", NULL, "lone high surrogate" },
    { "[\"\\udc00\"]", NULL, "lone low surrogate (\\uDC00)" },
    { "{'a':1}", NULL, "a member name must be a string in double quotes (at byte 1)" },
    { "{\"a\":1}{\"b\":2}", NULL, "more text follows the JSON value (at byte 7)" },
    { "{\"a\":1} x", NULL, "more text follows the JSON value (at byte 8)" },
    { "[0x10]", NULL, "(at byte 2)" },
    { "[01]", NULL, "a number must not start with 0 (at byte 1)" },
    { "[1,]", NULL, "“]” was not expected here (at byte 3)" },
    { "{\"a\":1 // c\n}", NULL, "“/” was not expected here" },
    { "[\"a\tb\"]", NULL, "a control character (U+0009) must be escaped" },
    { "", NULL, "a value is missing (at byte 0)" },
    { "[1", NULL, "the text ends too early (at byte 2)" },
    { "[\"\xff\"]", NULL, "not valid UTF-8 (at byte 2)" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(JsonNode) node = NULL;

      g_test_message ("%s", cases[i].text);
      node = prs_json_parse_strict (cases[i].text, strlen (cases[i].text), 64, &error);
      if (cases[i].back != NULL)
        {
          g_autofree char *back = NULL;

          g_assert_no_error (error);
          back = prs_json_to_string (node, FALSE);
          g_assert_cmpstr (back, ==, cases[i].back);
        }
      else
        {
          g_assert_null (node);
          g_assert_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT);
          g_assert_nonnull (strstr (error->message, cases[i].problem));
        }
    }
}

/* json-glib 1.6's generator writes U+001F and bytes that are not UTF-8 raw,
 * 0.1 as 0.10000000000000001 and infinity as "inf.0": this writer never. */
static void
test_write (void)
{
  g_autoptr(JsonObject) object = json_object_new ();
  g_autoptr(JsonNode) node = NULL;
  g_autofree char *text = NULL;
  g_autofree char *pretty = NULL;
  g_autoptr(JsonArray) sorted_members = json_array_new ();
  g_autoptr(GString) sorted = g_string_new (NULL);
  g_autoptr(GString) cut = g_string_new (NULL);

  /* U+009B, a C1 control, is CSI to a terminal: escaped like ESC */
  json_object_set_string_member (object, "z\x1f", "a\x01\x1f\x7f\b\f\n\r\t\"\\/é\xe2\x80\xa8\xc2\x9b\xc2\xa0");
  json_object_set_string_member (object, "bad", "a\xff\xed\xa0\x80z");
  json_object_set_double_member (object, "d", 0.1);
  json_object_set_double_member (object, "inf", 1.0 / 0.0);
  json_object_set_int_member (object, "i", G_MININT64);
  json_object_set_array_member (object, "e", json_array_new ());
  json_object_set_object_member (object, "o", json_object_new ());
  node = json_node_init_object (json_node_alloc (), object);

  text = prs_json_to_string (node, FALSE);
  g_assert_cmpstr (text, ==,
                   "{\"z\\u001f\":\"a\\u0001\\u001f\\u007f\\b\\f\\n\\r\\t\\\"\\\\/é\\u2028\\u009b\xc2\xa0\","
                   "\"bad\":\"a\\ufffd\\ufffd\\ufffd\\ufffdz\",\"d\":0.1,\"inf\":null,"
                   "\"i\":-9223372036854775808,\"e\":[],\"o\":{}}");
  /* What it wrote reads back strictly */
  g_assert_true (prs_json_text_is_strict (text, strlen (text)));
  g_assert_true (g_utf8_validate (text, -1, NULL));

  json_array_add_int_element (sorted_members, 1);
  json_object_set_array_member (object, "a", json_array_ref (sorted_members));
  prs_json_append (sorted, node, PRS_JSON_SORTED, G_MAXSIZE);
  g_assert_true (g_str_has_prefix (sorted->str, "{\"a\":[1],\"bad\":"));

  pretty = prs_json_to_string (json_object_get_member (object, "a"), TRUE);
  g_assert_cmpstr (pretty, ==, "[\n  1\n]");

  /* A limit stops soon after it */
  prs_json_append (cut, node, PRS_JSON_COMPACT, 10);
  g_assert_cmpuint (cut->len, <, 60);
}

/* Member order and spacing do not change the canonical text; NULL and a
 * null node write null; a string is escaped as everywhere else. */
static void
test_canonical (void)
{
  const char *text_one = "{\"b\":[1,{\"y\":2,\"x\":0.1}],\"a\":null}";
  const char *text_two = "{ \"a\" : null, \"b\" : [ 1, { \"x\" : 0.1, \"y\" : 2 } ] }";
  g_autoptr(JsonNode) a = prs_json_parse_bounded (text_one, strlen (text_one), 8, NULL);
  g_autoptr(JsonNode) b = prs_json_parse_bounded (text_two, strlen (text_two), 8, NULL);
  g_autoptr(JsonNode) null_node = json_node_new (JSON_NODE_NULL);
  g_autofree char *text_a = prs_json_to_canonical_string (a);
  g_autofree char *text_b = prs_json_to_canonical_string (b);
  g_autofree char *text_null = prs_json_to_canonical_string (NULL);
  g_autofree char *text_null_node = prs_json_to_canonical_string (null_node);
  g_autofree char *compact_null = prs_json_to_string (NULL, FALSE);
  g_autoptr(GString) out = g_string_new ("x");

  g_assert_nonnull (a);
  g_assert_nonnull (b);
  g_assert_cmpstr (text_a, ==, "{\"a\":null,\"b\":[1,{\"x\":0.1,\"y\":2}]}");
  g_assert_cmpstr (text_a, ==, text_b);
  g_assert_cmpstr (text_null, ==, "null");
  g_assert_cmpstr (text_null_node, ==, "null");
  g_assert_cmpstr (compact_null, ==, "null");

  prs_json_append_string (out, "a\"\x01\xe2\x80\xa8");
  g_assert_cmpstr (out->str, ==, "x\"a\\\"\\u0001\\u2028\"");
}

/* Reads that never convert, never warn, and take NULL for "nothing here". */
static void
test_members (void)
{
  const char *text = "{\"s\":\"x\",\"i\":1,\"b\":true,\"n\":null,\"o\":{\"s\":\"y\"},\"a\":[]}";
  g_autoptr(JsonNode) root = prs_json_parse_bounded (text, strlen (text), 8, NULL);
  JsonObject *object = prs_json_node_get_object (root);
  static const char * const not_strings[] = { "i", "b", "n", "o", "a", "missing" };
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) built = NULL;
  g_autofree char *built_text = NULL;

  g_assert_nonnull (object);
  g_assert_cmpstr (prs_json_object_get_string (object, "s"), ==, "x");
  for (guint i = 0; i < G_N_ELEMENTS (not_strings); i++)
    g_assert_null (prs_json_object_get_string (object, not_strings[i]));
  g_assert_null (prs_json_object_get_string (NULL, "s"));
  g_assert_true (prs_json_object_get_bool (object, "b", FALSE));
  g_assert_false (prs_json_object_get_bool (object, "i", FALSE));
  g_assert_cmpstr (prs_json_object_get_string (prs_json_object_get_object (object, "o"), "s"), ==, "y");
  g_assert_null (prs_json_object_get_object (object, "a"));
  g_assert_null (prs_json_node_get_object (json_object_get_member (object, "a")));
  g_assert_null (prs_json_node_get_object (NULL));

  {
    g_autofree char *shown_string = prs_json_to_display_string (json_object_get_member (object, "s"), FALSE);
    g_autofree char *shown_object = prs_json_to_display_string (json_object_get_member (object, "o"), FALSE);
    g_autofree char *shown_null = prs_json_to_display_string (NULL, FALSE);

    g_assert_cmpstr (shown_string, ==, "x");
    g_assert_cmpstr (shown_object, ==, "{\"s\":\"y\"}");
    g_assert_cmpstr (shown_null, ==, "null");
  }

  json_builder_begin_object (builder);
  prs_json_builder_add_string_member (builder, "set", "v");
  prs_json_builder_add_string_member (builder, "unset", NULL);
  json_builder_end_object (builder);
  built = json_builder_get_root (builder);
  built_text = prs_json_to_string (built, FALSE);
  g_assert_cmpstr (built_text, ==, "{\"set\":\"v\",\"unset\":null}");
}

/* The bounded parser's trees are sealed; the mutable one's can change. */
static void
test_parse_mutable (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) sealed = prs_json_parse_bounded ("{\"a\":1}", 7, 8, NULL);
  g_autoptr(JsonNode) mutable = prs_json_parse_mutable ("{\"a\":1}", 7, 8, NULL);
  g_autoptr(JsonNode) deep = prs_json_parse_mutable ("[[[1]]]", 7, 2, &error);
  g_autofree char *text = NULL;

  g_assert_true (json_node_is_immutable (sealed));
  g_assert_false (json_node_is_immutable (mutable));
  json_object_set_int_member (json_node_get_object (mutable), "b", 2);
  text = prs_json_to_string (mutable, FALSE);
  g_assert_cmpstr (text, ==, "{\"a\":1,\"b\":2}");

  g_assert_null (deep);
  g_assert_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT);
}

/* "{}" and "[]" skip json-glib's parser: the same nodes as the parser's
 * (compared with the same texts in spaces, which go through it), sealed
 * only from the bounded parser, and the mutable ones can be written to. */
static void
test_parse_empty (void)
{
  const char *texts[] = { "{}", "[]" };
  const char *spaced[] = { " {} ", " [] " };

  for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
    {
      g_autoptr(JsonNode) sealed = prs_json_parse_bounded (texts[i], 2, 8, NULL);
      g_autoptr(JsonNode) mutable = prs_json_parse_mutable (texts[i], 2, 8, NULL);
      g_autoptr(JsonNode) parsed = prs_json_parse_bounded (spaced[i], 4, 8, NULL);
      g_autoptr(JsonNode) parsed_mutable = prs_json_parse_mutable (spaced[i], 4, 8, NULL);
      g_autofree char *text = NULL;

      g_assert_nonnull (sealed);
      g_assert_nonnull (parsed);
      g_assert_cmpint (json_node_get_node_type (sealed), ==, json_node_get_node_type (parsed));
      g_assert_true (json_node_equal (sealed, parsed));
      g_assert_true (json_node_equal (mutable, parsed_mutable));
      g_assert_true (json_node_is_immutable (sealed) == json_node_is_immutable (parsed));
      g_assert_true (json_node_is_immutable (mutable) == json_node_is_immutable (parsed_mutable));
      g_assert_true (json_node_is_immutable (sealed));
      g_assert_false (json_node_is_immutable (mutable));

      if (JSON_NODE_HOLDS_OBJECT (mutable))
        {
          g_assert_cmpuint (json_object_get_size (json_node_get_object (sealed)), ==, 0);
          json_object_set_int_member (json_node_get_object (mutable), "b", 2);
        }
      else
        {
          g_assert_true (JSON_NODE_HOLDS_ARRAY (mutable));
          g_assert_cmpuint (json_array_get_length (json_node_get_array (sealed)), ==, 0);
          json_array_add_int_element (json_node_get_array (mutable), 2);
        }
      text = prs_json_to_string (mutable, FALSE);
      g_assert_cmpstr (text, ==, i == 0 ? "{\"b\":2}" : "[2]");
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/prs/json/strict", test_strict);
  g_test_add_func ("/prs/json/strict-deep", test_strict_deep);
  g_test_add_func ("/prs/json/parse-bounded", test_parse_bounded);
  g_test_add_func ("/prs/json/parse-strict", test_parse_strict);
  g_test_add_func ("/prs/json/write", test_write);
  g_test_add_func ("/prs/json/canonical", test_canonical);
  g_test_add_func ("/prs/json/members", test_members);
  g_test_add_func ("/prs/json/parse-mutable", test_parse_mutable);
  g_test_add_func ("/prs/json/parse-empty", test_parse_empty);

  return g_test_run ();
}
