/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Tests for prs-agent-file.c: agents as Markdown with YAML front matter. */
#include <string.h>

#include "prs-agent-file.h"
#include "prs-error.h"
#include "prs-json.h"

static const char sample_file[] =
  "---\n"
  "id: executive-assistant-email-agent\n"
  "name: Executive Assistant\n"
  "description: 'Triage: incoming mail'\n"
  "allowedTools:\n"
  "  - email_move_to_folder\n"
  "  - jira_comment\n"
  "toolParameterGuidance:\n"
  "  email_move_to_folder:\n"
  "    uid: {source: context, field: uid, ifMissing: ask}\n"
  "    mailbox: {source: context, field: mailbox, ifMissing: default}\n"
  "    destination: {source: ask}\n"
  "    flag: {source: constant, value: {colour: red, level: 2, ok: true, list: [1, 2.5, \"3\", ~]}}\n"
  "    note: {source: model}\n"
  "  retired_tool:\n"
  "    x: {source: constant, value: \"true\"}\n"
  "color: blue          # not ours: kept\n"
  "tags: [a, b]\n"
  "---\n"
  "\n"
  "You triage the user's mail.\n"
  "\n"
  "- Be brief.\n";

static PrsTool *
move_tool (void)
{
  PrsTool *tool = prs_tool_new ();
  g_autoptr(JsonNode) inbox = json_from_string ("\"INBOX\"", NULL);

  tool->name = g_strdup ("email_move_to_folder");
  tool->description = g_strdup ("Move an email to a different IMAP folder.");
  g_ptr_array_add (tool->params, prs_param_new ("uid", PRS_PARAM_NUMBER, TRUE, NULL));
  g_ptr_array_add (tool->params, prs_param_new ("mailbox", PRS_PARAM_STRING, FALSE, inbox));
  g_ptr_array_add (tool->params, prs_param_new ("destination", PRS_PARAM_STRING, TRUE, NULL));
  g_ptr_array_add (tool->params, prs_param_new ("flag", PRS_PARAM_OBJECT, FALSE, NULL));
  return tool;
}

static GPtrArray *
discovered_tools (void)
{
  GPtrArray *tools = g_ptr_array_new_with_free_func ((GDestroyNotify) prs_tool_free);

  g_ptr_array_add (tools, move_tool ());
  return tools;
}

static PrsAgent *
parse_ok (const char *text)
{
  g_autoptr(GError) error = NULL;
  PrsAgent *agent = prs_agent_file_parse (text, -1, &error);

  g_assert_no_error (error);
  g_assert_nonnull (agent);
  return agent;
}

static char *
write_ok (const PrsAgent *agent,
          GPtrArray      *tools)
{
  g_autoptr(GError) error = NULL;
  char *text = prs_agent_file_write (agent, tools, &error);

  g_assert_no_error (error);
  g_assert_nonnull (text);
  return text;
}

static void
test_parse (void)
{
  g_autoptr(PrsAgent) agent = parse_ok (sample_file);
  const PrsToolGuidance *tool;
  const PrsParamGuidance *param;
  g_autofree char *flag = NULL;

  g_assert_cmpstr (agent->id, ==, "executive-assistant-email-agent");
  g_assert_cmpstr (agent->name, ==, "Executive Assistant");
  g_assert_cmpstr (agent->description, ==, "Triage: incoming mail");
  g_assert_cmpstr (agent->system_prompt, ==, "You triage the user's mail.\n\n- Be brief.");
  g_assert_cmpuint (g_strv_length (agent->allowed_tools), ==, 2);
  g_assert_cmpstr (agent->allowed_tools[1], ==, "jira_comment");

  g_assert_cmpuint (agent->guidance->len, ==, 2);
  tool = g_ptr_array_index (agent->guidance, 0);
  g_assert_cmpuint (tool->params->len, ==, 5);
  param = prs_tool_guidance_find_param (tool, "mailbox");
  g_assert_cmpint (param->source, ==, PRS_GUIDANCE_SOURCE_CONTEXT);
  g_assert_cmpint (param->if_missing, ==, PRS_GUIDANCE_IF_MISSING_DEFAULT);
  param = prs_tool_guidance_find_param (tool, "flag");
  flag = prs_json_to_string (param->value, FALSE);
  g_assert_cmpstr (flag, ==, "{\"colour\":\"red\",\"level\":2,\"ok\":true,\"list\":[1,2.5,\"3\",null]}");
  param = prs_tool_guidance_find_param (g_ptr_array_index (agent->guidance, 1), "x");
  g_assert_cmpstr (json_node_get_string (param->value), ==, "true");

  g_assert_cmpuint (json_object_get_size (agent->extra), ==, 2);
  g_assert_cmpstr (json_object_get_string_member (agent->extra, "color"), ==, "blue");
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (agent->extra, "tags")), ==, 2);
}

static const char expected_export[] =
  "---\n"
  "id: executive-assistant-email-agent\n"
  "name: Executive Assistant\n"
  "description: \"Triage: incoming mail\"\n"
  "allowedTools:\n"
  "- email_move_to_folder\n"
  "- jira_comment\n"
  "toolParameterGuidance:\n"
  "  email_move_to_folder:\n"
  "    uid:\n"
  "      source: context\n"
  "      field: uid\n"
  "      ifMissing: ask\n"
  "    mailbox:\n"
  "      source: context\n"
  "      field: mailbox\n"
  "      ifMissing: default\n"
  "    destination:\n"
  "      source: ask\n"
  "    flag:\n"
  "      source: constant\n"
  "      value:\n"
  "        colour: red\n"
  "        level: 2\n"
  "        ok: true\n"
  "        list:\n"
  "        - 1\n"
  "        - 2.5\n"
  "        - \"3\"\n"
  "        - null\n"
  "    note:\n"
  "      source: model\n"
  "  retired_tool:\n"
  "    x:\n"
  "      source: constant\n"
  "      value: \"true\"\n"
  "color: blue\n"
  "tags:\n"
  "- a\n"
  "- b\n"
  "---\n"
  "\n"
  "You triage the user's mail.\n"
  "\n"
  "- Be brief.\n"
  "\n"
  "## Tool Parameter Guidance\n"
  "When using the **email_move_to_folder** tool:\n"
  "Purpose: Move an email to a different IMAP folder.\n"
  "Parameter sources:\n"
  "- **uid**: Use the \"uid\" value from the Request Context. If missing, ask the user.\n"
  "- **mailbox**: Use the \"mailbox\" value from the Request Context. If missing, use the default (\"INBOX\").\n"
  "- **destination**: Ask the user for this value before calling the tool.\n"
  "- **flag**: Always use {\"colour\":\"red\",\"level\":2,\"ok\":true,\"list\":[1,2.5,\"3\",null]}.\n"
  "\n"
  "When using the **retired_tool** tool:\n"
  "Parameter sources:\n"
  "- **x**: Always use \"true\".\n";

static void
test_round_trip (void)
{
  g_autoptr(GPtrArray) tools = discovered_tools ();
  g_autoptr(PrsAgent) first = parse_ok (sample_file);
  g_autofree char *export1 = write_ok (first, tools);
  g_autoptr(PrsAgent) second = parse_ok (export1);
  g_autofree char *export2 = write_ok (second, tools);
  g_autoptr(PrsAgent) third = parse_ok (export2);
  g_autofree char *undiscovered = write_ok (third, NULL);
  g_autoptr(PrsAgent) fourth = parse_ok (undiscovered);
  g_autofree char *export4 = write_ok (fourth, tools);

  g_assert_cmpstr (export1, ==, expected_export);
  g_assert_cmpstr (export2, ==, export1);
  /* Without the tools, the Purpose line goes; the guidance stays. */
  g_assert_null (strstr (undiscovered, "Purpose:"));
  g_assert_nonnull (strstr (undiscovered, "When using the **email_move_to_folder** tool:\nParameter sources:\n"));
  g_assert_cmpstr (export4, ==, export1);
  g_assert_cmpstr (fourth->system_prompt, ==, first->system_prompt);
}

static void
test_quoting (void)
{
  g_autoptr(PrsAgent) agent = prs_agent_new ("q", "true");
  const char * const strings[] = {
    "true", "null", "~", "", "123", "-1.5e3", "yes", "No", "a: b", "#hash", "x #y", "- item",
    "[list]", "{map}", "*alias", "&anchor", "!tag", "|", ">", "@at", "`tick`", "'single'",
    "\"double\"", " lead", "trail ", "multi\nline\n", "tab\there", "Zürich ✓ 😀", "%percent",
    "back\\slash", "0x1F", ".inf", "2024-01-01", "ctrl\x01", NULL
  };
  g_autoptr(JsonArray) values = json_array_new ();
  g_autoptr(JsonNode) values_node = json_node_new (JSON_NODE_ARRAY);
  g_autofree char *text = NULL;
  g_autoptr(PrsAgent) back = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  g_autofree char *text2 = NULL;
  JsonNode *extra_back;

  for (guint i = 0; strings[i] != NULL; i++)
    json_array_add_string_element (values, strings[i]);
  json_array_add_double_element (values, 2.0);
  json_array_add_double_element (values, 0.1);
  json_array_add_int_element (values, G_MAXINT64);
  json_node_set_array (values_node, values);

  g_free (agent->description);
  agent->description = g_strdup ("line one\nline two: \"quoted\"");
  g_free (agent->system_prompt);
  agent->system_prompt = g_strdup ("---\nnot front matter\n---");
  agent->allowed_tools = g_strdupv ((char *[]) { (char *) "true", (char *) "a tool", NULL });
  json_object_set_member (agent->extra, "strings", json_node_copy (values_node));
  json_object_set_string_member (agent->extra, "null", "key named null");
  prs_tool_guidance_set_param (prs_guidance_ensure_tool (agent->guidance, "123"),
                               prs_param_guidance_new_constant ("yes", values_node));

  text = write_ok (agent, NULL);
  back = parse_ok (text);
  g_assert_cmpstr (back->name, ==, "true");
  g_assert_cmpstr (back->description, ==, agent->description);
  g_assert_cmpstr (back->system_prompt, ==, agent->system_prompt);
  g_assert_cmpstr (back->allowed_tools[0], ==, "true");
  g_assert_cmpstr (back->allowed_tools[1], ==, "a tool");
  extra_back = json_object_get_member (back->extra, "strings");
  before = prs_json_to_string (values_node, FALSE);
  after = prs_json_to_string (extra_back, FALSE);
  g_assert_cmpstr (after, ==, before);
  g_assert_cmpstr (json_object_get_string_member (back->extra, "null"), ==, "key named null");
  g_assert_nonnull (prs_tool_guidance_find_param (prs_guidance_find_tool (back->guidance, "123"), "yes"));

  text2 = write_ok (back, NULL);
  g_assert_cmpstr (text2, ==, text);
}

static void
test_allowed_tools (void)
{
  g_autoptr(PrsAgent) all = parse_ok ("---\nid: a\nallowedTools: all\n---\n");
  g_autoptr(PrsAgent) missing = parse_ok ("---\nid: a\n---\nPrompt");
  g_autoptr(PrsAgent) empty = parse_ok ("---\nid: a\nallowedTools: []\n---\n");
  g_autoptr(PrsAgent) list = parse_ok ("---\nid: a\nallowedTools: [x, y, x]\n---\n");
  g_autofree char *all_text = write_ok (all, NULL);
  g_autofree char *empty_text = write_ok (empty, NULL);

  g_assert_null (all->allowed_tools);
  g_assert_null (missing->allowed_tools);
  g_assert_cmpstr (missing->name, ==, "a");
  g_assert_cmpstr (missing->system_prompt, ==, "Prompt");
  g_assert_nonnull (empty->allowed_tools);
  g_assert_cmpuint (g_strv_length (empty->allowed_tools), ==, 0);
  g_assert_cmpuint (g_strv_length (list->allowed_tools), ==, 2);
  g_assert_true (prs_agent_allows_tool (all, "anything"));
  g_assert_false (prs_agent_allows_tool (empty, "x"));
  g_assert_true (prs_agent_allows_tool (list, "y"));
  g_assert_cmpstr (all_text, ==, "---\nid: a\nname: a\nallowedTools: all\n---\n");
  g_assert_cmpstr (empty_text, ==, "---\nid: a\nname: a\nallowedTools: []\n---\n");
}

static void
test_generated_section (void)
{
  /* A hand-edited generated section is dropped: the front matter wins. */
  g_autoptr(PrsAgent) dropped = parse_ok (
    "---\nid: a\ntoolParameterGuidance:\n  t:\n    p: {source: ask}\n---\n\nPrompt.\n\n"
    "## Tool Parameter Guidance\n"
    "When using the **t** tool:\n"
    "Purpose: Whatever it was.\n"
    "Parameter sources:\n"
    "- **p**: Use the \"f\" value from the Request Context. If missing, ask the user.\n"
    "\n## After\nkept\n");
  /* Without guidance in the front matter, the section is read back. */
  g_autoptr(PrsAgent) pasted = parse_ok (
    "---\nid: a\n---\nPrompt.\n\n"
    "## Tool Parameter Guidance\n"
    "When using the **email_move_to_folder** tool:\n"
    "Purpose: Move an email to a different IMAP folder.\n"
    "Parameter sources:\n"
    "- **uid**: Use the \"uid\" value from the Request Context. If missing, ask the user.\n"
    "- **mailbox**: Use the \"mailbox\" value from the Request Context. If missing, use the default (\"INBOX\").\n"
    "- **folder**: Use the \"a.b\" value from the Request Context. If missing, leave it out.\n"
    "- **flag**: Always use {\"x\":[1,null]}.\n"
    "- **destination**: Ask the user for this value before calling the tool.\n");
  /* A section that does not read like generated guidance is the user's. */
  g_autoptr(PrsAgent) own = parse_ok (
    "---\nid: a\n---\nPrompt.\n\n## Tool Parameter Guidance\nAlways double-check the folder.\n");
  const PrsToolGuidance *tool;

  g_assert_cmpstr (dropped->system_prompt, ==, "Prompt.\n\n## After\nkept");
  g_assert_cmpint (prs_tool_guidance_find_param (g_ptr_array_index (dropped->guidance, 0), "p")->source,
                   ==, PRS_GUIDANCE_SOURCE_ASK);

  g_assert_cmpstr (pasted->system_prompt, ==, "Prompt.");
  g_assert_cmpuint (pasted->guidance->len, ==, 1);
  tool = g_ptr_array_index (pasted->guidance, 0);
  g_assert_cmpuint (tool->params->len, ==, 5);
  g_assert_cmpstr (prs_tool_guidance_find_param (tool, "folder")->field, ==, "a.b");
  g_assert_cmpint (prs_tool_guidance_find_param (tool, "mailbox")->if_missing, ==, PRS_GUIDANCE_IF_MISSING_DEFAULT);
  g_assert_cmpint (prs_tool_guidance_find_param (tool, "flag")->source, ==, PRS_GUIDANCE_SOURCE_CONSTANT);
  g_assert_cmpint (prs_tool_guidance_find_param (tool, "destination")->source, ==, PRS_GUIDANCE_SOURCE_ASK);

  g_assert_cmpstr (own->system_prompt, ==, "Prompt.\n\n## Tool Parameter Guidance\nAlways double-check the folder.");
  g_assert_cmpuint (own->guidance->len, ==, 0);
}

static void
test_crlf (void)
{
  g_autoptr(GString) crlf = g_string_new ("\xEF\xBB\xBF");
  g_autoptr(PrsAgent) agent = NULL;
  g_autoptr(PrsAgent) lf = parse_ok (sample_file);
  g_autoptr(GPtrArray) tools = discovered_tools ();
  g_autofree char *from_crlf = NULL;
  g_autofree char *from_lf = NULL;

  g_string_append (crlf, sample_file);
  g_string_replace (crlf, "\n", "\r\n", 0);
  agent = parse_ok (crlf->str);
  g_assert_cmpstr (agent->system_prompt, ==, "You triage the user's mail.\n\n- Be brief.");
  g_assert_null (strchr (agent->description, '\r'));
  from_crlf = write_ok (agent, tools);
  from_lf = write_ok (lf, tools);
  g_assert_cmpstr (from_crlf, ==, from_lf);
}

static void
assert_rejected (const char *text,
                 const char *expected)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsAgent) agent = prs_agent_file_parse (text, -1, &error);

  g_assert_null (agent);
  g_assert_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT);
  g_test_message ("%s", error->message);
  if (strstr (error->message, expected) == NULL)
    g_error ("“%s” does not contain “%s”", error->message, expected);
}

static void
test_malformed (void)
{
  assert_rejected ("id: a\n", "Line 1: an agent file starts with YAML front matter");
  assert_rejected ("", "Line 1:");
  assert_rejected ("---\nid: a\nname: A\n\nPrompt\n", "never closed");
  assert_rejected ("---\nid: a\nname: [unclosed\n---\n", "Line 4: the front matter is not valid YAML");
  assert_rejected ("---\nid: a\n  name: bad indent\n---\n", "Line 3: the front matter is not valid YAML");
  assert_rejected ("---\n---\nPrompt\n", "the front matter is empty");
  assert_rejected ("---\n- a\n- b\n---\n", "Line 2: the front matter must be a mapping");
  assert_rejected ("---\nname: A\n---\n", "has no “id”");
  assert_rejected ("---\nid: Not_A_Slug\n---\n", "Line 2: “Not_A_Slug” is not a valid agent id");
  assert_rejected ("---\nid: -lead\n---\n", "is not a valid agent id");
  assert_rejected ("---\nid: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n---\n",
                   "is not a valid agent id");
  assert_rejected ("---\nid: a\nname:\n  - x\n---\n", "Line 4: “name” must be text, not a list");
  assert_rejected ("---\nid: a\nname: \"  \"\n---\n", "Line 3: “name” is empty");
  assert_rejected ("---\nid: {x: 1}\n---\n", "Line 2: “id” must be text, not a mapping");
  assert_rejected ("---\nid: a\nallowedTools: some\n---\n", "Line 3: “allowedTools” must be a list");
  assert_rejected ("---\nid: a\nallowedTools:\n  - [x]\n---\n", "Line 4: every entry of “allowedTools”");
  assert_rejected ("---\nid: a\ntoolParameterGuidance: [x]\n---\n", "Line 3: “toolParameterGuidance” must map");
  assert_rejected ("---\nid: a\ntoolParameterGuidance:\n  t: ask\n---\n", "Line 4: the guidance for the tool “t”");
  assert_rejected ("---\nid: a\ntoolParameterGuidance:\n  t:\n    p: ask\n---\n",
                   "Line 5: the guidance for “p” of “t” must be a mapping");
  assert_rejected ("---\nid: a\ntoolParameterGuidance:\n  t:\n    p:\n      source: guess\n---\n",
                   "Line 6: The source for “p” of “t” must be");
  assert_rejected ("---\nid: a\ntoolParameterGuidance:\n  t:\n    p: {source: context}\n---\n",
                   "Line 5: “p” of “t” comes from the Request Context but names no field");
  assert_rejected ("---\nid: a\ntoolParameterGuidance:\n  t:\n    p: {source: context, field: f, ifMissing: later}\n---\n",
                   "ifMissing for “p” of “t” must be ask or default");
  assert_rejected ("---\nid: a\ntoolParameterGuidance:\n  t:\n    p: {source: constant}\n---\n",
                   "is a constant but has no value");
  assert_rejected ("---\nid: a\nid: b\n---\n", "Line 3: the key “id” appears twice");
  assert_rejected ("---\nid: a\nx: {k: 1, k: 2}\n---\n", "Line 3: the key “k” appears twice");
  assert_rejected ("---\nid: a\nbase: &b {k: 1}\nother: *b\n---\n", "Line 4: YAML aliases (*b) are not supported");
  assert_rejected ("---\nid: a\n? [complex]\n: key\n---\n", "Line 3: a key must be a single value");
  assert_rejected ("---\nid: a\n---\n\xff\n", "not UTF-8");
}

/* A misspelt allowedTools would be kept as an unknown key and leave the
 * agent every tool: refused, naming the right key (docs/agents.md) */
static void
test_allowed_tools_near_miss (void)
{
  static const char * const misses[] = { "allowed_tools", "allowed-tools", "AllowedTools", "allowedtools",
                                         "ALLOWED_TOOLS", "allowed tools", "tools", "Tools", "allowTools",
                                         "alowedTools", "allowedTool", "allowed_tool", "allowdTols",
                                         "tools_allowed", NULL };
  static const char * const kept[] = { "color", "toolbox", "allowed", "toolsets", "disallowedTools",
                                       "allowedToolsNote", "model", NULL };

  for (guint i = 0; misses[i] != NULL; i++)
    {
      g_autofree char *text = g_strdup_printf ("---\nid: a\n%s: [email_search]\n---\nPrompt\n", misses[i]);
      g_autofree char *expected = g_strdup_printf ("Line 3: “%s” is not a key Prosponsive reads; the tools "
                                                   "an agent may use are listed under “allowedTools”", misses[i]);

      assert_rejected (text, expected);
    }
  for (guint i = 0; kept[i] != NULL; i++)
    {
      g_autofree char *text = g_strdup_printf ("---\nid: a\n%s: [email_search]\n---\nPrompt\n", kept[i]);
      g_autoptr(PrsAgent) agent = parse_ok (text);

      g_assert_true (json_object_has_member (agent->extra, kept[i]));
    }
  {
    /* Beside the real key, a look-alike is only a key kept as it is */
    g_autoptr(PrsAgent) both = parse_ok ("---\nid: a\nallowed_tools: x\nallowedTools: [y]\n---\n");

    g_assert_cmpuint (g_strv_length (both->allowed_tools), ==, 1);
    g_assert_true (json_object_has_member (both->extra, "allowed_tools"));
  }
}

static void
test_deep_front_matter (void)
{
  g_autoptr(GString) text = g_string_new ("---\nid: a\nx: ");

  for (guint i = 0; i < 10000; i++)
    g_string_append_c (text, '[');
  for (guint i = 0; i < 10000; i++)
    g_string_append_c (text, ']');
  g_string_append (text, "\n---\n");
  assert_rejected (text->str, "Line 3: the front matter is nested more than 32 levels deep");
}

/* A constant in the generated guidance section nested far deeper than any
 * value (an agent file may be 1 MiB): not a constant, so the section is
 * the user's text, and reading it costs no recursion per level. */
static void
test_deep_guidance_constant (void)
{
  g_autoptr(GString) text = g_string_new ("---\nid: a\n---\nPrompt.\n\n## Tool Parameter Guidance\n"
                                          "When using the **t** tool:\nParameter sources:\n- **p**: Always use ");
  g_autoptr(PrsAgent) agent = NULL;

  for (guint i = 0; i < 400000; i++)
    g_string_append_c (text, '[');
  for (guint i = 0; i < 400000; i++)
    g_string_append_c (text, ']');
  g_string_append (text, ".\n");

  agent = parse_ok (text->str);
  g_assert_cmpuint (agent->guidance->len, ==, 0);
  g_assert_true (g_str_has_prefix (agent->system_prompt, "Prompt.\n\n## Tool Parameter Guidance\nWhen using"));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/prs/agent-file/parse", test_parse);
  g_test_add_func ("/prs/agent-file/round-trip", test_round_trip);
  g_test_add_func ("/prs/agent-file/quoting", test_quoting);
  g_test_add_func ("/prs/agent-file/allowed-tools", test_allowed_tools);
  g_test_add_func ("/prs/agent-file/generated-section", test_generated_section);
  g_test_add_func ("/prs/agent-file/crlf", test_crlf);
  g_test_add_func ("/prs/agent-file/malformed", test_malformed);
  g_test_add_func ("/prs/agent-file/allowed-tools-near-miss", test_allowed_tools_near_miss);
  g_test_add_func ("/prs/agent-file/deep-front-matter", test_deep_front_matter);
  g_test_add_func ("/prs/agent-file/deep-guidance-constant", test_deep_guidance_constant);

  return g_test_run ();
}
