/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Tests for prs-json.c: strict JSON, depth limits, bounded parsing. */
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

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/prs/json/strict", test_strict);
  g_test_add_func ("/prs/json/strict-deep", test_strict_deep);
  g_test_add_func ("/prs/json/parse-bounded", test_parse_bounded);

  return g_test_run ();
}
