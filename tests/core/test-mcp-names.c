/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-mcp-names.c: the names models see for MCP tools (prs-mcp-names.h):
 * valid for every provider, unique, stable, n8n tools keeping theirs. */
#include "config.h"

#include <string.h>

#include "prs-mcp-names.h"

static void
test_plain (void)
{
  g_autofree char *echo = prs_mcp_tool_name_build ("everything", "echo", 0);
  g_autofree char *dashed = prs_mcp_tool_name_build ("files", "read-file", 0);
  g_autofree char *digit = prs_mcp_tool_name_build ("3d", "render", 0);
  g_autofree char *underscored = prs_mcp_tool_name_build ("my_files", "read_file", 0);

  g_assert_cmpstr (echo, ==, "everything__echo");
  g_assert_cmpstr (dashed, ==, "files__read-file");
  g_assert_cmpstr (underscored, ==, "my_files__read_file");
  /* Some providers want a letter first; the prefix loses nothing */
  g_assert_cmpstr (digit, ==, "mcp_3d__render");
}

/* "__" only separates the server from the tool: a server and tool split
 * differently never meet, and an n8n tool name (never with "__") is never
 * made. */
static void
test_unambiguous (void)
{
  g_autofree char *one = prs_mcp_tool_name_build ("a_b", "c", 0);
  g_autofree char *two = prs_mcp_tool_name_build ("a", "b_c", 0);
  g_autofree char *doubled = prs_mcp_tool_name_build ("a__b", "c", 0);
  g_autofree char *edges = prs_mcp_tool_name_build ("_a_", "_b", 0);

  g_assert_cmpstr (one, ==, "a_b__c");
  g_assert_cmpstr (two, ==, "a__b_c");
  g_assert_cmpstr (one, !=, two);
  /* "__" inside a part, or "_" at its ends, would blur the border: made
   * single or dropped, which changes the name, so it gets the suffix */
  g_assert_true (g_str_has_prefix (doubled, "a_b__c_"));
  g_assert_cmpstr (doubled, !=, one);
  g_assert_true (g_str_has_prefix (edges, "a__b_"));
}

static void
test_lossy_gets_suffix (void)
{
  g_autofree char *dotted = prs_mcp_tool_name_build ("My Files", "fs.read", 0);
  g_autofree char *dotted_again = prs_mcp_tool_name_build ("My Files", "fs.read", 0);
  g_autofree char *underscored = prs_mcp_tool_name_build ("My_Files", "fs_read", 0);
  g_autofree char *unicode = prs_mcp_tool_name_build ("büro", "öffnen", 0);
  g_autofree char *empty = prs_mcp_tool_name_build ("srv", "...", 0);
  g_autofree char *long_name = NULL;
  g_autofree char *tool = g_strnfill (100, 'a');

  /* Replaced characters make a suffix from the original names: stable,
   * and different from the name that was already like that */
  g_assert_true (g_str_has_prefix (dotted, "My_Files__fs_read_"));
  g_assert_cmpuint (strlen (dotted), ==, strlen ("My_Files__fs_read_") + PRS_MCP_TOOL_NAME_SUFFIX);
  g_assert_cmpstr (dotted, ==, dotted_again);
  g_assert_cmpstr (underscored, ==, "My_Files__fs_read");
  g_assert_cmpstr (dotted, !=, underscored);
  g_assert_true (prs_mcp_tool_name_is_valid (unicode));
  g_assert_true (g_str_has_prefix (unicode, "b_ro__ffnen_"));
  g_assert_true (g_str_has_prefix (empty, "srv__x_"));

  long_name = prs_mcp_tool_name_build ("server", tool, 0);
  g_assert_cmpuint (strlen (long_name), ==, PRS_MCP_TOOL_NAME_MAX);
  g_assert_true (prs_mcp_tool_name_is_valid (long_name));
}

static void
test_is_valid (void)
{
  g_autofree char *max = g_strnfill (64, 'a');
  g_autofree char *over = g_strnfill (65, 'a');

  g_assert_true (prs_mcp_tool_name_is_valid ("a-b_C9"));
  g_assert_true (prs_mcp_tool_name_is_valid (max));
  g_assert_false (prs_mcp_tool_name_is_valid (over));
  g_assert_false (prs_mcp_tool_name_is_valid (""));
  g_assert_false (prs_mcp_tool_name_is_valid ("a.b"));
  g_assert_false (prs_mcp_tool_name_is_valid ("a b"));
  g_assert_false (prs_mcp_tool_name_is_valid (NULL));
}

static GPtrArray *
entries_of (const char * const *pairs)
{
  GPtrArray *entries = g_ptr_array_new_with_free_func ((GDestroyNotify) prs_mcp_name_entry_free);

  for (guint i = 0; pairs[i] != NULL; i += 2)
    g_ptr_array_add (entries, prs_mcp_name_entry_new (pairs[i], pairs[i + 1]));
  return entries;
}

static const PrsMcpNameEntry *
entry_for (GPtrArray  *entries,
           const char *server,
           const char *tool)
{
  for (guint i = 0; i < entries->len; i++)
    {
      const PrsMcpNameEntry *entry = g_ptr_array_index (entries, i);

      if (g_str_equal (entry->server_name, server) && g_str_equal (entry->tool_name, tool))
        return entry;
    }
  g_assert_not_reached ();
}

static void
test_collisions (void)
{
  const char *pairs[] = {
    "tools", "Echo",   /* one server, two names that differ only in case */
    "tools", "echo",
    "mail", "send",    /* an n8n tool is called mail__send (as if n8n named it so) */
    "Mail2", "Move",   /* mail2__move, ignoring case, too */
    "files", "read",   /* unique */
    NULL
  };
  const char *reserved[] = { "mail__send", "MAIL2__MOVE", NULL };
  g_autoptr(GPtrArray) entries = entries_of (pairs);
  g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  prs_mcp_assign_tool_names (entries, reserved);
  for (guint i = 0; i < entries->len; i++)
    {
      const PrsMcpNameEntry *entry = g_ptr_array_index (entries, i);

      g_assert_true (prs_mcp_tool_name_is_valid (entry->exposed_name));
      g_assert_true (g_hash_table_add (seen, g_ascii_strdown (entry->exposed_name, -1)));
    }
  g_assert_false (g_hash_table_contains (seen, "mail__send"));
  g_assert_false (g_hash_table_contains (seen, "mail2__move"));

  /* Every party to a collision gets the suffix, so no one depends on order */
  g_assert_true (g_str_has_prefix (entry_for (entries, "tools", "Echo")->exposed_name, "tools__Echo_"));
  g_assert_true (g_str_has_prefix (entry_for (entries, "tools", "echo")->exposed_name, "tools__echo_"));
  g_assert_nonnull (strstr (entry_for (entries, "tools", "echo")->note, "another MCP tool"));
  g_assert_nonnull (strstr (entry_for (entries, "mail", "send")->note, "n8n tool"));
  g_assert_cmpstr (entry_for (entries, "files", "read")->exposed_name, ==, "files__read");
  g_assert_null (entry_for (entries, "files", "read")->note);
}

static void
test_stable_across_order (void)
{
  const char *pairs[] = { "s", "Echo", "s", "echo", "x", "y", "srv", "t.1", NULL };
  const char *reversed[] = { "srv", "t.1", "x", "y", "s", "echo", "s", "Echo", NULL };
  g_autoptr(GPtrArray) first = entries_of (pairs);
  g_autoptr(GPtrArray) second = entries_of (reversed);

  prs_mcp_assign_tool_names (first, NULL);
  prs_mcp_assign_tool_names (second, NULL);
  for (guint i = 0; i < first->len; i++)
    {
      const PrsMcpNameEntry *entry = g_ptr_array_index (first, i);

      g_assert_cmpstr (entry->exposed_name, ==,
                       entry_for (second, entry->server_name, entry->tool_name)->exposed_name);
    }
  g_assert_nonnull (entry_for (first, "srv", "t.1")->note);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/mcp/names/plain", test_plain);
  g_test_add_func ("/mcp/names/unambiguous", test_unambiguous);
  g_test_add_func ("/mcp/names/lossy-gets-suffix", test_lossy_gets_suffix);
  g_test_add_func ("/mcp/names/is-valid", test_is_valid);
  g_test_add_func ("/mcp/names/collisions", test_collisions);
  g_test_add_func ("/mcp/names/stable-across-order", test_stable_across_order);

  return g_test_run ();
}
