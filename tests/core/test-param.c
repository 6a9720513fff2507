/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Tests for prs-param.c: parameter wording and type names. */
#include "prs-js-scan.h"

static void
test_describe (void)
{
  static const struct { const char *key; const char *expected; } cases[] = {
    { "maxResults", "The max results" },
    { "userID", "The user id" },
    { "email_address", "The email address" },
    { "uid", "The uid" },
    { "XMLHttpRequest", "The xml http request" },
    { "getHTTPResponseCode", "The get http response code" },
    { "page2Size", "The page2 size" },
    { "snake__case_", "The snake case" },
    { "_private", "The private" },
    { "ID", "The id" },
    { "a", "The a" },
    { "$value", "The $value" },
    { "kebab-case", "The kebab case" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *got = prs_param_describe (cases[i].key);

      g_assert_cmpstr (got, ==, cases[i].expected);
    }
}

static void
test_type_names (void)
{
  PrsParamType type;

  g_assert_cmpstr (prs_param_type_to_string (PRS_PARAM_NUMBER), ==, "number");
  g_assert_true (prs_param_type_from_string ("object", &type));
  g_assert_cmpint (type, ==, PRS_PARAM_OBJECT);
  g_assert_false (prs_param_type_from_string ("integer", &type));
  g_assert_false (prs_param_type_from_string (NULL, &type));
}

static void
test_copy (void)
{
  g_autoptr(JsonNode) def = json_from_string ("[1,2]", NULL);
  g_autoptr(PrsParam) param = prs_param_new ("ids", PRS_PARAM_ARRAY, FALSE, def);
  g_autoptr(PrsParam) copy = prs_param_copy (param);

  g_assert_cmpstr (copy->name, ==, "ids");
  g_assert_false (copy->required);
  g_assert_true (json_node_equal (copy->default_value, def));
  g_assert_true (copy->default_value != param->default_value);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/prs/param/describe", test_describe);
  g_test_add_func ("/prs/param/type-names", test_type_names);
  g_test_add_func ("/prs/param/copy", test_copy);

  return g_test_run ();
}
