/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Tests for prs-guidance.c: the guidance block of docs/agents.md to the letter,
 * its JSON form, and run-time binding with provenance. */
#include <string.h>

#include "prs-agent.h"
#include "prs-error.h"
#include "prs-guidance.h"
#include "prs-json.h"

static JsonNode *
json (const char *text)
{
  g_autoptr(GError) error = NULL;
  JsonNode *node = prs_json_parse_bounded (text, strlen (text), 64, &error);

  g_assert_no_error (error);
  return node;
}

/* email_move_to_folder(uid: number, mailbox: string = "INBOX", destination). */
static PrsTool *
move_tool (void)
{
  PrsTool *tool = prs_tool_new ();
  g_autoptr(JsonNode) inbox = json ("\"INBOX\"");

  tool->name = g_strdup ("email_move_to_folder");
  tool->description = g_strdup ("Move an email to a different IMAP folder.");
  g_ptr_array_add (tool->params, prs_param_new ("uid", PRS_PARAM_NUMBER, TRUE, NULL));
  g_ptr_array_add (tool->params, prs_param_new ("mailbox", PRS_PARAM_STRING, FALSE, inbox));
  g_ptr_array_add (tool->params, prs_param_new ("destination", PRS_PARAM_STRING, TRUE, NULL));
  return tool;
}

static GPtrArray *
tools_of (PrsTool *tool)
{
  GPtrArray *tools = g_ptr_array_new_with_free_func ((GDestroyNotify) prs_tool_free);

  if (tool != NULL)
    g_ptr_array_add (tools, tool);
  return tools;
}

static void
test_spec_example (void)
{
  g_autoptr(GPtrArray) guidance = prs_guidance_new ();
  g_autoptr(GPtrArray) tools = tools_of (move_tool ());
  PrsToolGuidance *tool = prs_guidance_ensure_tool (guidance, "email_move_to_folder");
  g_autofree char *text = NULL;

  /* Set out of order: the tool's parameter order wins. */
  prs_tool_guidance_set_param (tool, prs_param_guidance_new_ask ("destination"));
  prs_tool_guidance_set_param (tool, prs_param_guidance_new_context ("uid", "uid", PRS_GUIDANCE_IF_MISSING_ASK));

  text = prs_guidance_build_text (guidance, tools);
  g_assert_cmpstr (text, ==,
                   "## Tool Parameter Guidance\n"
                   "When using the **email_move_to_folder** tool:\n"
                   "Purpose: Move an email to a different IMAP folder.\n"
                   "Parameter sources:\n"
                   "- **uid**: Use the \"uid\" value from the Request Context. If missing, ask the user.\n"
                   "- **destination**: Ask the user for this value before calling the tool.\n");
}

static void
test_each_source (void)
{
  g_autoptr(PrsTool) tool = move_tool ();
  const PrsParam *uid = g_ptr_array_index (tool->params, 0);
  const PrsParam *mailbox = g_ptr_array_index (tool->params, 1);
  g_autoptr(PrsParamGuidance) ctx_ask = prs_param_guidance_new_context ("uid", "uid", PRS_GUIDANCE_IF_MISSING_ASK);
  g_autoptr(PrsParamGuidance) ctx_default = prs_param_guidance_new_context ("mailbox", "mailbox", PRS_GUIDANCE_IF_MISSING_DEFAULT);
  g_autoptr(PrsParamGuidance) ctx_no_default = prs_param_guidance_new_context ("uid", "message.uid", PRS_GUIDANCE_IF_MISSING_DEFAULT);
  g_autoptr(PrsParamGuidance) ask = prs_param_guidance_new_ask ("destination");
  g_autoptr(PrsParamGuidance) model = prs_param_guidance_new_model ("destination");
  g_autofree char *l1 = prs_guidance_build_line (ctx_ask, uid);
  g_autofree char *l2 = prs_guidance_build_line (ctx_default, mailbox);
  g_autofree char *l3 = prs_guidance_build_line (ctx_no_default, uid);
  g_autofree char *l4 = prs_guidance_build_line (ctx_default, NULL);
  g_autofree char *l5 = prs_guidance_build_line (ask, NULL);
  g_autofree char *l6 = prs_guidance_build_line (model, NULL);

  g_assert_cmpstr (l1, ==, "- **uid**: Use the \"uid\" value from the Request Context. If missing, ask the user.");
  g_assert_cmpstr (l2, ==, "- **mailbox**: Use the \"mailbox\" value from the Request Context. If missing, use the default (\"INBOX\").");
  g_assert_cmpstr (l3, ==, "- **uid**: Use the \"message.uid\" value from the Request Context. If missing, leave it out.");
  g_assert_cmpstr (l4, ==, "- **mailbox**: Use the \"mailbox\" value from the Request Context. If missing, leave it out.");
  g_assert_cmpstr (l5, ==, "- **destination**: Ask the user for this value before calling the tool.");
  g_assert_null (l6);
}

static void
test_constants (void)
{
  const struct { const char *json; const char *line; } cases[] = {
    { "\"Archive\"", "- **p**: Always use \"Archive\"." },
    { "\"say \\\"hi\\\"\\n\"", "- **p**: Always use \"say \\\"hi\\\"\\n\"." },
    { "42", "- **p**: Always use 42." },
    { "-7", "- **p**: Always use -7." },
    { "0.1", "- **p**: Always use 0.1." },
    { "1e100", "- **p**: Always use 1e+100." },
    { "true", "- **p**: Always use true." },
    { "false", "- **p**: Always use false." },
    { "null", "- **p**: Always use null." },
    { "[1,\"a\",null]", "- **p**: Always use [1,\"a\",null]." },
    { "{\"a\":{\"b\":[]}}", "- **p**: Always use {\"a\":{\"b\":[]}}." },
    { "\"Zürich ✓\"", "- **p**: Always use \"Zürich ✓\"." },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(JsonNode) value = json (cases[i].json);
      g_autoptr(PrsParamGuidance) param = prs_param_guidance_new_constant ("p", value);
      g_autofree char *line = prs_guidance_build_line (param, NULL);

      g_assert_cmpstr (line, ==, cases[i].line);
    }

  {
    g_autoptr(PrsParamGuidance) param = prs_param_guidance_new_constant ("p", NULL);
    g_autofree char *line = prs_guidance_build_line (param, NULL);

    g_assert_cmpstr (line, ==, "- **p**: Always use null.");
  }
}

static void
test_undiscovered_tool (void)
{
  g_autoptr(GPtrArray) guidance = prs_guidance_new ();
  PrsToolGuidance *tool = prs_guidance_ensure_tool (guidance, "old_tool");
  g_autofree char *text = NULL;

  prs_tool_guidance_set_param (tool, prs_param_guidance_new_ask ("b"));
  prs_tool_guidance_set_param (tool, prs_param_guidance_new_context ("a", "x", PRS_GUIDANCE_IF_MISSING_DEFAULT));

  /* No Purpose line, the guidance's own order, no default known. */
  text = prs_guidance_build_text (guidance, NULL);
  g_assert_cmpstr (text, ==,
                   "## Tool Parameter Guidance\n"
                   "When using the **old_tool** tool:\n"
                   "Parameter sources:\n"
                   "- **b**: Ask the user for this value before calling the tool.\n"
                   "- **a**: Use the \"x\" value from the Request Context. If missing, leave it out.\n");
}

static void
test_multiple_tools (void)
{
  g_autoptr(GPtrArray) guidance = prs_guidance_new ();
  PrsTool *other = prs_tool_new ();
  g_autoptr(GPtrArray) tools = tools_of (move_tool ());
  g_autoptr(JsonNode) high = json ("\"high\"");
  PrsToolGuidance *entry;
  g_autofree char *text = NULL;

  other->name = g_strdup ("jira_comment");
  other->description = g_strdup ("Comment on an issue.\nSecond line  of the note.");
  g_ptr_array_add (other->params, prs_param_new ("key", PRS_PARAM_STRING, TRUE, NULL));
  g_ptr_array_add (other->params, prs_param_new ("priority", PRS_PARAM_STRING, FALSE, NULL));
  g_ptr_array_add (tools, other);

  entry = prs_guidance_ensure_tool (guidance, "jira_comment");
  prs_tool_guidance_set_param (entry, prs_param_guidance_new_constant ("priority", high));
  prs_tool_guidance_set_param (entry, prs_param_guidance_new_context ("key", "issue.key", PRS_GUIDANCE_IF_MISSING_ASK));
  /* Only "AI decides": no paragraph. */
  entry = prs_guidance_ensure_tool (guidance, "silent_tool");
  prs_tool_guidance_set_param (entry, prs_param_guidance_new_model ("x"));
  entry = prs_guidance_ensure_tool (guidance, "email_move_to_folder");
  prs_tool_guidance_set_param (entry, prs_param_guidance_new_context ("mailbox", "mailbox", PRS_GUIDANCE_IF_MISSING_DEFAULT));
  prs_tool_guidance_set_param (entry, prs_param_guidance_new_model ("uid"));
  /* A parameter the tool no longer has follows the tool's own. */
  prs_tool_guidance_set_param (entry, prs_param_guidance_new_ask ("gone"));
  prs_tool_guidance_set_param (entry, prs_param_guidance_new_ask ("destination"));
  /* Replacing keeps the place. */
  prs_tool_guidance_set_param (entry, prs_param_guidance_new_context ("mailbox", "box", PRS_GUIDANCE_IF_MISSING_DEFAULT));

  text = prs_guidance_build_text (guidance, tools);
  g_assert_cmpstr (text, ==,
                   "## Tool Parameter Guidance\n"
                   "When using the **jira_comment** tool:\n"
                   "Purpose: Comment on an issue. Second line of the note.\n"
                   "Parameter sources:\n"
                   "- **key**: Use the \"issue.key\" value from the Request Context. If missing, ask the user.\n"
                   "- **priority**: Always use \"high\".\n"
                   "\n"
                   "When using the **email_move_to_folder** tool:\n"
                   "Purpose: Move an email to a different IMAP folder.\n"
                   "Parameter sources:\n"
                   "- **mailbox**: Use the \"box\" value from the Request Context. If missing, use the default (\"INBOX\").\n"
                   "- **destination**: Ask the user for this value before calling the tool.\n"
                   "- **gone**: Ask the user for this value before calling the tool.\n");
}

static void
test_empty (void)
{
  g_autoptr(GPtrArray) guidance = prs_guidance_new ();
  g_autofree char *none = prs_guidance_build_text (guidance, NULL);
  g_autofree char *null_guidance = prs_guidance_build_text (NULL, NULL);
  g_autofree char *only_model = NULL;

  prs_tool_guidance_set_param (prs_guidance_ensure_tool (guidance, "t"), prs_param_guidance_new_model ("p"));
  only_model = prs_guidance_build_text (guidance, NULL);
  g_assert_cmpstr (none, ==, "");
  g_assert_cmpstr (null_guidance, ==, "");
  g_assert_cmpstr (only_model, ==, "");
}

static void
test_json_round_trip (void)
{
  g_autoptr(JsonNode) in = json ("{\"t\":{\"uid\":{\"source\":\"context\",\"field\":\"a.b\"},"
                                 "\"m\":{\"source\":\"context\",\"field\":\"m\",\"ifMissing\":\"default\"},"
                                 "\"c\":{\"source\":\"constant\",\"value\":[1,{\"x\":null}]},"
                                 "\"n\":{\"source\":\"constant\",\"value\":null},"
                                 "\"a\":{\"source\":\"ask\"},\"d\":{\"source\":\"model\"}},\"u\":{}}");
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) guidance = prs_guidance_new_from_json (in, &error);
  g_autoptr(JsonNode) out = NULL;
  g_autofree char *text = NULL;
  const PrsToolGuidance *tool;

  g_assert_no_error (error);
  g_assert_cmpuint (guidance->len, ==, 2);
  tool = g_ptr_array_index (guidance, 0);
  g_assert_cmpuint (tool->params->len, ==, 6);
  g_assert_cmpint (prs_tool_guidance_find_param (tool, "uid")->if_missing, ==, PRS_GUIDANCE_IF_MISSING_ASK);

  out = prs_guidance_to_json (guidance);
  text = prs_json_to_string (out, FALSE);
  g_assert_cmpstr (text, ==,
                   "{\"t\":{\"uid\":{\"source\":\"context\",\"field\":\"a.b\",\"ifMissing\":\"ask\"},"
                   "\"m\":{\"source\":\"context\",\"field\":\"m\",\"ifMissing\":\"default\"},"
                   "\"c\":{\"source\":\"constant\",\"value\":[1,{\"x\":null}]},"
                   "\"n\":{\"source\":\"constant\",\"value\":null},"
                   "\"a\":{\"source\":\"ask\"},\"d\":{\"source\":\"model\"}},\"u\":{}}");
}

static void
test_json_errors (void)
{
  const char * const cases[] = {
    "[]",
    "{\"t\":[]}",
    "{\"t\":{\"p\":\"ask\"}}",
    "{\"t\":{\"p\":{}}}",
    "{\"t\":{\"p\":{\"source\":\"guess\"}}}",
    "{\"t\":{\"p\":{\"source\":\"context\"}}}",
    "{\"t\":{\"p\":{\"source\":\"context\",\"field\":\"\"}}}",
    "{\"t\":{\"p\":{\"source\":\"context\",\"field\":\"f\",\"ifMissing\":\"never\"}}}",
    "{\"t\":{\"p\":{\"source\":\"constant\"}}}",
    "{\"t\":{\"p\":{\"source\":\"ask\",\"colour\":\"red\"}}}",
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(JsonNode) node = json (cases[i]);
      g_autoptr(GError) error = NULL;
      g_autoptr(GPtrArray) guidance = prs_guidance_new_from_json (node, &error);

      g_test_message ("%s → %s", cases[i], error != NULL ? error->message : "(accepted)");
      g_assert_null (guidance);
      g_assert_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT);
    }
}

static JsonObject *
object (const char *text)
{
  g_autoptr(JsonNode) node = json (text);

  return json_node_dup_object (node);
}

static void
test_bind (void)
{
  g_autoptr(PrsTool) tool = move_tool ();
  g_autoptr(PrsToolGuidance) guidance = prs_tool_guidance_new ("email_move_to_folder");
  g_autoptr(JsonNode) archive = json ("\"Archive\"");
  g_autoptr(JsonObject) context = object ("{\"uid\":12345,\"msg\":{\"box\":\"Work\"},\"empty\":null}");
  g_autoptr(JsonObject) model = object ("{\"uid\":1,\"mailbox\":\"Spam\",\"destination\":\"Trash\",\"extra\":true}");
  g_autoptr(JsonObject) provenance = NULL;
  g_autoptr(JsonObject) arguments = NULL;
  g_autoptr(JsonNode) args_node = json_node_new (JSON_NODE_OBJECT);
  g_autoptr(JsonNode) prov_node = json_node_new (JSON_NODE_OBJECT);
  g_autofree char *args_text = NULL;
  g_autofree char *prov_text = NULL;

  prs_tool_guidance_set_param (guidance, prs_param_guidance_new_context ("uid", "uid", PRS_GUIDANCE_IF_MISSING_ASK));
  prs_tool_guidance_set_param (guidance, prs_param_guidance_new_context ("mailbox", "msg.box", PRS_GUIDANCE_IF_MISSING_DEFAULT));
  prs_tool_guidance_set_param (guidance, prs_param_guidance_new_constant ("destination", archive));

  /* Context and constant win over whatever the model sent. */
  arguments = prs_guidance_bind (guidance, tool, context, model, &provenance);
  json_node_set_object (args_node, arguments);
  json_node_set_object (prov_node, provenance);
  args_text = prs_json_to_string (args_node, FALSE);
  prov_text = prs_json_to_string (prov_node, FALSE);
  g_assert_cmpstr (args_text, ==, "{\"uid\":12345,\"mailbox\":\"Work\",\"destination\":\"Archive\",\"extra\":true}");
  g_assert_cmpstr (prov_text, ==, "{\"uid\":\"context:uid\",\"mailbox\":\"context:msg.box\","
                                  "\"destination\":\"constant\",\"extra\":\"model\"}");
}

static void
test_bind_missing (void)
{
  g_autoptr(PrsTool) tool = move_tool ();
  g_autoptr(PrsToolGuidance) guidance = prs_tool_guidance_new ("email_move_to_folder");
  g_autoptr(JsonObject) context = object ("{\"other\":1,\"uid\":null}");
  g_autoptr(JsonObject) model = object ("{\"uid\":\"asked\"}");
  g_autoptr(JsonObject) provenance = NULL;
  g_autoptr(JsonObject) arguments = NULL;
  g_autoptr(JsonObject) provenance2 = NULL;
  g_autoptr(JsonObject) arguments2 = NULL;

  prs_tool_guidance_set_param (guidance, prs_param_guidance_new_context ("uid", "uid", PRS_GUIDANCE_IF_MISSING_ASK));
  prs_tool_guidance_set_param (guidance, prs_param_guidance_new_context ("mailbox", "mailbox", PRS_GUIDANCE_IF_MISSING_DEFAULT));
  prs_tool_guidance_set_param (guidance, prs_param_guidance_new_context ("destination", "dest", PRS_GUIDANCE_IF_MISSING_DEFAULT));
  prs_tool_guidance_set_param (guidance, prs_param_guidance_new_ask ("note"));

  /* A null field is missing: the model's (the user's) value stays; a missing
   * field with fallback default gets the tool's default; without a default
   * the argument is left out. */
  arguments = prs_guidance_bind (guidance, tool, context, model, &provenance);
  g_assert_cmpuint (json_object_get_size (arguments), ==, 2);
  g_assert_cmpstr (json_object_get_string_member (arguments, "uid"), ==, "asked");
  g_assert_cmpstr (json_object_get_string_member (provenance, "uid"), ==, "model");
  g_assert_cmpstr (json_object_get_string_member (arguments, "mailbox"), ==, "INBOX");
  g_assert_cmpstr (json_object_get_string_member (provenance, "mailbox"), ==, "default");
  g_assert_false (json_object_has_member (arguments, "destination"));

  /* No context, no guidance, no tool: the model's arguments as they are. */
  arguments2 = prs_guidance_bind (NULL, NULL, NULL, model, &provenance2);
  g_assert_cmpuint (json_object_get_size (arguments2), ==, 1);
  g_assert_cmpstr (json_object_get_string_member (provenance2, "uid"), ==, "model");
  json_object_unref (prs_guidance_bind (guidance, tool, NULL, NULL, NULL));
}

static void
test_effective_prompt (void)
{
  g_autoptr(PrsAgent) agent = prs_agent_new ("a", "A");
  g_autoptr(GPtrArray) tools = tools_of (move_tool ());
  g_autofree char *plain = NULL;
  g_autofree char *with_guidance = NULL;

  g_free (agent->system_prompt);
  agent->system_prompt = g_strdup ("Be brief.");
  plain = prs_agent_build_effective_prompt (agent, tools);
  g_assert_cmpstr (plain, ==, "Be brief.");

  prs_tool_guidance_set_param (prs_guidance_ensure_tool (agent->guidance, "email_move_to_folder"),
                               prs_param_guidance_new_ask ("destination"));
  with_guidance = prs_agent_build_effective_prompt (agent, tools);
  g_assert_cmpstr (with_guidance, ==,
                   "Be brief.\n\n"
                   "## Tool Parameter Guidance\n"
                   "When using the **email_move_to_folder** tool:\n"
                   "Purpose: Move an email to a different IMAP folder.\n"
                   "Parameter sources:\n"
                   "- **destination**: Ask the user for this value before calling the tool.\n");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/prs/guidance/spec-example", test_spec_example);
  g_test_add_func ("/prs/guidance/each-source", test_each_source);
  g_test_add_func ("/prs/guidance/constants", test_constants);
  g_test_add_func ("/prs/guidance/undiscovered-tool", test_undiscovered_tool);
  g_test_add_func ("/prs/guidance/multiple-tools", test_multiple_tools);
  g_test_add_func ("/prs/guidance/empty", test_empty);
  g_test_add_func ("/prs/guidance/json-round-trip", test_json_round_trip);
  g_test_add_func ("/prs/guidance/json-errors", test_json_errors);
  g_test_add_func ("/prs/guidance/bind", test_bind);
  g_test_add_func ("/prs/guidance/bind-missing", test_bind_missing);
  g_test_add_func ("/prs/guidance/effective-prompt", test_effective_prompt);

  return g_test_run ();
}
