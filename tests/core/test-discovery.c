/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Tests for the rules of docs/workflows.md: requirements, tool names, collisions,
 * descriptions, parameters through Code nodes, schema and checklist. */
#include <string.h>

#include "prs-checklist.h"
#include "prs-discovery.h"
#include "prs-error.h"
#include "prs-json.h"
#include "prs-markdown-text.h"

/* A webhook node that qualifies, with optional overrides spliced in. */
#define WEBHOOK(extra) \
  "{\"name\":\"Webhook\",\"type\":\"n8n-nodes-base.webhook\",\"webhookId\":\"1b2c\"," \
  "\"parameters\":{\"httpMethod\":\"POST\",\"path\":\"tool-path\",\"responseMode\":\"lastNode\"" extra "}}"

static PrsAnalysis *
analyse (const char *json)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = prs_json_parse_bounded (json, strlen (json), 256, &error);
  PrsWorkflow *workflow;

  g_assert_no_error (error);
  workflow = prs_workflow_new_from_json (node, &error);
  g_assert_no_error (error);
  g_assert_nonnull (workflow);

  return prs_analysis_new (workflow);
}

static PrsAnalysis *
analyse_nodes (const char *name,
               const char *nodes)
{
  g_autofree char *json = g_strdup_printf ("{\"id\":\"AbC123xyz\",\"name\":\"%s\",\"active\":true,\"nodes\":[%s]}",
                                           name, nodes);

  return analyse (json);
}

static const char *
check_status (PrsAnalysis *analysis,
              const char  *id)
{
  static char status[8];
  g_autoptr(JsonNode) checks = prs_analysis_build_checks (analysis);
  JsonArray *array = json_node_get_array (checks);

  g_assert_cmpuint (json_array_get_length (array), ==, 8);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonObject *check = json_array_get_object_element (array, i);

      if (g_str_equal (json_object_get_string_member (check, "id"), id))
        {
          g_strlcpy (status, json_object_get_string_member (check, "status"), sizeof status);
          g_assert_nonnull (json_object_get_string_member (check, "message"));
          return status;
        }
    }

  g_assert_not_reached ();
}

/* ---------------------------------------------------------------- names */

static void
test_names (void)
{
  static const struct { const char *name; const char *expected; gboolean stripped; } cases[] = {
    { "Email Move To Folder", "email_move_to_folder", FALSE },
    { "Search Jira Issues (v2)", "search_jira_issues_v2", TRUE },
    { "Prosponsive: IMAP New Email", "prosponsive_imap_new_email", TRUE },
    { "Email - Move", "email_move", TRUE },
    { "  padded   name  ", "padded_name", FALSE },
    { "tabs\tand\nnewlines", "tabs_and_newlines", FALSE },
    { "Version 2 Tool 10", "version_2_tool_10", FALSE },
    { "Crème brûlée", "crme_brle", TRUE },
    { "Ünïcödé Ñame", "ncd_ame", TRUE },
    { "already_snake_case", "alreadysnakecase", TRUE },
    { "a-b-c", "abc", TRUE },
    { "Tool!!!  ???  Name", "tool_name", TRUE },
    { "UPPER", "upper", FALSE },
    { "x", "x", FALSE },
    { "2fa check", "2fa_check", FALSE },
    { "emoji 🚀 tool", "emoji_tool", TRUE },
    { "non\u00a0breaking", "non_breaking", FALSE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      gboolean stripped = !cases[i].stripped;
      g_autofree char *name = prs_discovery_tool_name (cases[i].name, "id1", &stripped);

      g_assert_cmpstr (name, ==, cases[i].expected);
      g_assert_cmpint (stripped, ==, cases[i].stripped);
    }
}

static void
test_names_empty (void)
{
  g_autofree char *a = prs_discovery_tool_name ("", "AbC-123", NULL);
  g_autofree char *b = prs_discovery_tool_name ("!!! ???", "X_y.Z", NULL);
  g_autofree char *c = prs_discovery_tool_name ("   ", NULL, NULL);
  g_autofree char *d = prs_discovery_tool_name ("日本語", "7", NULL);

  g_assert_cmpstr (a, ==, "workflow_abc123");
  g_assert_cmpstr (b, ==, "workflow_xyz");
  g_assert_cmpstr (c, ==, "workflow_");
  g_assert_cmpstr (d, ==, "workflow_7");
}

static void
test_names_long (void)
{
  g_autoptr(GString) long_name = g_string_new (NULL);
  g_autofree char *name = NULL;
  gboolean stripped = FALSE;

  for (guint i = 0; i < 20; i++)
    g_string_append (long_name, "word ");
  name = prs_discovery_tool_name (long_name->str, "id", &stripped);

  g_assert_cmpuint (strlen (name), ==, 64);
  g_assert_true (g_str_has_prefix (name, "word_word_"));
  g_assert_true (stripped);
}

static void
test_collision_name (void)
{
  g_autofree char *a = prs_discovery_collision_name ("email_move", "XyZ-98765abc");
  g_autofree char *b = NULL;
  g_autofree char *c = prs_discovery_collision_name ("short", "ab");
  char base[65];

  g_assert_cmpstr (a, ==, "email_move_xyz987");
  memset (base, 'a', 64);
  base[64] = '\0';
  b = prs_discovery_collision_name (base, "QWERTYUIOP");
  g_assert_cmpuint (strlen (b), ==, 64);
  g_assert_true (g_str_has_suffix (b, "_qwerty"));
  g_assert_cmpstr (c, ==, "short_ab");
}

static GPtrArray *
workflows_from_json (const char *json)
{
  g_autoptr(JsonNode) root = prs_json_parse_bounded (json, strlen (json), 256, NULL);
  GPtrArray *workflows = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  JsonArray *array;

  g_assert_nonnull (root);
  array = json_node_get_array (root);
  for (guint i = 0; i < json_array_get_length (array); i++)
    g_ptr_array_add (workflows, json_object_ref (json_array_get_object_element (array, i)));

  return workflows;
}

static void
test_collisions (void)
{
  g_autoptr(GPtrArray) workflows = workflows_from_json (
    "["
    "{\"id\":\"ZZZ999\",\"name\":\"Email - Move\",\"active\":true,\"createdAt\":\"2026-03-02T10:00:00.000Z\",\"nodes\":[" WEBHOOK ("") "]},"
    "{\"id\":\"AAA111\",\"name\":\"Email Move\",\"active\":true,\"createdAt\":\"2026-03-01T10:00:00.000Z\",\"nodes\":[" WEBHOOK ("") "]},"
    "{\"id\":\"MMM-555x\",\"name\":\"email move!\",\"active\":true,\"createdAt\":\"2026-03-02T10:00:00.000Z\",\"nodes\":[" WEBHOOK ("") "]},"
    "{\"id\":\"QQQ\",\"name\":\"Email Move\",\"active\":true,\"createdAt\":\"2026-01-01T00:00:00.000Z\",\"nodes\":[]},"
    "{\"id\":\"ARCH\",\"name\":\"Email Move\",\"active\":true,\"isArchived\":true,\"createdAt\":\"2020-01-01T00:00:00.000Z\",\"nodes\":[" WEBHOOK ("") "]},"
    "{\"id\":\"OFF\",\"name\":\"Email Move\",\"active\":false,\"createdAt\":\"2020-01-01T00:00:00.000Z\",\"nodes\":[" WEBHOOK ("") "]}"
    "]");
  g_autoptr(GPtrArray) tools = NULL;
  g_autoptr(GPtrArray) analyses = prs_discovery_analyse_all (workflows, &tools);
  g_autoptr(GHashTable) by_id = g_hash_table_new (g_str_hash, g_str_equal);

  /* Archived and inactive ones are skipped; the one without a webhook is
   * analysed (it gets a checklist) but claims no name. */
  g_assert_cmpuint (analyses->len, ==, 4);
  g_assert_cmpuint (tools->len, ==, 3);

  for (guint i = 0; i < tools->len; i++)
    {
      PrsTool *tool = g_ptr_array_index (tools, i);

      g_hash_table_insert (by_id, tool->workflow_id, tool->name);
    }

  /* The oldest keeps the name; same creation time → by id. */
  g_assert_cmpstr (g_hash_table_lookup (by_id, "AAA111"), ==, "email_move");
  g_assert_cmpstr (g_hash_table_lookup (by_id, "MMM-555x"), ==, "email_move_mmm555");
  g_assert_cmpstr (g_hash_table_lookup (by_id, "ZZZ999"), ==, "email_move_zzz999");

  for (guint i = 0; i < analyses->len; i++)
    {
      PrsAnalysis *analysis = g_ptr_array_index (analyses, i);

      if (g_str_equal (analysis->workflow->id, "ZZZ999"))
        g_assert_cmpstr (check_status (analysis, "tool-name"), ==, "warn");
      if (g_str_equal (analysis->workflow->id, "QQQ"))
        g_assert_false (analysis->discoverable);
    }
}

static void
test_collisions_missing_created_at (void)
{
  g_autoptr(GPtrArray) workflows = workflows_from_json (
    "["
    "{\"id\":\"b1\",\"name\":\"Same\",\"active\":true,\"nodes\":[" WEBHOOK ("") "]},"
    "{\"id\":\"a1\",\"name\":\"Same\",\"active\":true,\"createdAt\":\"not a date\",\"nodes\":[" WEBHOOK ("") "]},"
    "{\"id\":\"c1\",\"name\":\"Same\",\"active\":true,\"createdAt\":\"2026-01-01T00:00:00Z\",\"nodes\":[" WEBHOOK ("") "]}"
    "]");
  g_autoptr(GPtrArray) tools = NULL;
  g_autoptr(GPtrArray) analyses = prs_discovery_analyse_all (workflows, &tools);

  g_assert_cmpuint (tools->len, ==, 3);
  for (guint i = 0; i < tools->len; i++)
    {
      PrsTool *tool = g_ptr_array_index (tools, i);

      if (g_str_equal (tool->workflow_id, "c1"))
        g_assert_cmpstr (tool->name, ==, "same");
      else if (g_str_equal (tool->workflow_id, "a1"))
        g_assert_cmpstr (tool->name, ==, "same_a1");
      else
        g_assert_cmpstr (tool->name, ==, "same_b1");
    }
}

/* A discovery drafts each checklist as its workflow arrives, before the
 * collisions rename anything: the checklists written from the drafts are
 * the ones written from the analyses, byte for byte. */
static void
test_checklist_drafts (void)
{
  g_autoptr(GPtrArray) workflows = workflows_from_json (
    "["
    "{\"id\":\"ZZZ999\",\"name\":\"Email - Move\",\"active\":true,\"createdAt\":\"2026-03-02T10:00:00.000Z\",\"nodes\":[" WEBHOOK ("") "]},"
    "{\"id\":\"AAA111\",\"name\":\"Email Move\",\"active\":true,\"createdAt\":\"2026-03-01T10:00:00.000Z\",\"nodes\":[" WEBHOOK ("") "]},"
    "{\"id\":\"QQQ\",\"name\":\"Email Move\",\"active\":true,\"nodes\":[]},"
    "{\"id\":\"P1\",\"name\":\"Prosponsive Adapter\",\"active\":true,\"nodes\":[" WEBHOOK ("") "]},"
    "{\"id\":\"U1\",\"name\":\"Größe \\\"prüfen\\\"\",\"description\":\"Line\\nbreak\",\"nodes\":[" WEBHOOK ("") ","
    "{\"name\":\"Code\",\"type\":\"n8n-nodes-base.code\",\"parameters\":{\"jsCode\":\"const a = body.a ?? 1;\"}}]}"
    "]");
  g_autoptr(GPtrArray) analyses = g_ptr_array_new_with_free_func ((GDestroyNotify) prs_analysis_free);
  g_autoptr(PrsChecklistDrafts) drafts = prs_checklist_drafts_new ();
  g_autoptr(GPtrArray) tools = NULL;
  g_autoptr(PrsChecklists) drafted = NULL;
  g_autoptr(PrsChecklists) fresh = NULL;
  gboolean suffixed = FALSE;

  for (guint i = 0; i < workflows->len; i++)
    {
      PrsAnalysis *analysis = prs_discovery_analyse_workflow (g_ptr_array_index (workflows, i));

      g_assert_nonnull (analysis);
      prs_analysis_draft_checklist (analysis, drafts);
      g_ptr_array_add (analyses, analysis);
    }
  prs_discovery_resolve_collisions (analyses, &tools);

  drafted = prs_checklists_new (analyses, drafts);
  fresh = prs_checklists_new (analyses, NULL);
  g_assert_cmpuint (drafted->rows->len, ==, analyses->len);
  g_assert_cmpuint (drafted->text->len, ==, fresh->text->len);
  g_assert_cmpmem (drafted->text->str, drafted->text->len, fresh->text->str, fresh->text->len);
  for (guint i = 0; i < drafted->rows->len; i++)
    {
      const char *json = g_array_index (drafted->rows, PrsChecklistInsert, i).json;

      g_assert_cmpstr (json, ==, g_array_index (fresh->rows, PrsChecklistInsert, i).json);
      suffixed |= strstr (json, "\"toolName\":\"email_move_zzz999\"") != NULL;
    }
  /* The collision renamed one after its draft was written */
  g_assert_true (suffixed);
}

/* ---------------------------------------------------------------- requirements */

static void
test_requirements (void)
{
  static const struct { const char *json; gboolean discoverable; const char *failing; } cases[] = {
    { "{\"name\":\"ok\",\"active\":true,\"nodes\":[" WEBHOOK ("") "]}", TRUE, NULL },
    { "{\"name\":\"inactive\",\"active\":false,\"nodes\":[" WEBHOOK ("") "]}", FALSE, "published" },
    { "{\"name\":\"unknown\",\"nodes\":[" WEBHOOK ("") "]}", TRUE, "published=warn" },
    { "{\"name\":\"archived\",\"active\":true,\"isArchived\":true,\"nodes\":[" WEBHOOK ("") "]}", FALSE, "published" },
    { "{\"name\":\"active is a string\",\"active\":\"true\",\"nodes\":[" WEBHOOK ("") "]}", TRUE, "published=warn" },
    { "{\"name\":\"active is null\",\"active\":null,\"nodes\":[" WEBHOOK ("") "]}", TRUE, "published=warn" },
    { "{\"name\":\"get\",\"active\":true,\"nodes\":[{\"type\":\"n8n-nodes-base.webhook\",\"parameters\":{\"httpMethod\":\"GET\",\"path\":\"p\"}}]}", FALSE, "webhook" },
    { "{\"name\":\"absent method\",\"active\":true,\"nodes\":[{\"type\":\"n8n-nodes-base.webhook\",\"parameters\":{\"path\":\"p\"}}]}", FALSE, "webhook" },
    { "{\"name\":\"lower post\",\"active\":true,\"nodes\":[{\"type\":\"n8n-nodes-base.webhook\",\"parameters\":{\"httpMethod\":\"post\",\"path\":\"p\"}}]}", FALSE, "webhook" },
    { "{\"name\":\"multi\",\"active\":true,\"nodes\":[{\"type\":\"n8n-nodes-base.webhook\",\"parameters\":{\"multipleMethods\":true,\"httpMethod\":[\"GET\",\"POST\"],\"path\":\"p\"}}]}", TRUE, NULL },
    { "{\"name\":\"array without multi\",\"active\":true,\"nodes\":[{\"type\":\"n8n-nodes-base.webhook\",\"parameters\":{\"httpMethod\":[\"POST\"],\"path\":\"p\"}}]}", FALSE, "webhook" },
    { "{\"name\":\"multi without post\",\"active\":true,\"nodes\":[{\"type\":\"n8n-nodes-base.webhook\",\"parameters\":{\"multipleMethods\":true,\"httpMethod\":[\"GET\",\"PUT\"],\"path\":\"p\"}}]}", FALSE, "webhook" },
    { "{\"name\":\"disabled\",\"active\":true,\"nodes\":[{\"type\":\"n8n-nodes-base.webhook\",\"disabled\":true,\"parameters\":{\"httpMethod\":\"POST\",\"path\":\"p\"}}]}", FALSE, "webhook" },
    { "{\"name\":\"empty path\",\"active\":true,\"nodes\":[{\"type\":\"n8n-nodes-base.webhook\",\"parameters\":{\"httpMethod\":\"POST\",\"path\":\"  \"}}]}", FALSE, "webhook" },
    { "{\"name\":\"path number\",\"active\":true,\"nodes\":[{\"type\":\"n8n-nodes-base.webhook\",\"parameters\":{\"httpMethod\":\"POST\",\"path\":5}}]}", FALSE, "webhook" },
    { "{\"name\":\"other type\",\"active\":true,\"nodes\":[{\"type\":\"n8n-nodes-base.formTrigger\",\"parameters\":{\"httpMethod\":\"POST\",\"path\":\"p\"}}]}", FALSE, "webhook" },
    { "{\"name\":\"no nodes\",\"active\":true,\"nodes\":[]}", FALSE, "webhook" },
    { "{\"name\":\"Prosponsive: n8n Workflow Adapter\",\"active\":true,\"nodes\":[" WEBHOOK ("") "]}", FALSE, "not-adapter" },
    { "{\"name\":\"  Prosponsive: n8n Workflow Adapter \\t\",\"active\":true,\"nodes\":[" WEBHOOK ("") "]}", FALSE, "not-adapter" },
    { "{\"name\":\"Prosponsive: n8n Workflow Adapter v2\",\"active\":true,\"nodes\":[" WEBHOOK ("") "]}", TRUE, NULL },
    { "{\"name\":\"junk nodes\",\"active\":true,\"nodes\":[1,\"x\",null,[]," WEBHOOK ("") "]}", TRUE, NULL },
    { "{\"name\":\"disabled first\",\"active\":true,\"nodes\":[{\"name\":\"A\",\"type\":\"n8n-nodes-base.webhook\",\"disabled\":true,\"parameters\":{\"httpMethod\":\"POST\",\"path\":\"a\"}}," WEBHOOK ("") "]}", TRUE, NULL },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(PrsAnalysis) analysis = analyse (cases[i].json);

      g_test_message ("case %u: %s", i, analysis->workflow->name);
      g_assert_cmpint (analysis->discoverable, ==, cases[i].discoverable);
      if (cases[i].failing != NULL && g_str_has_suffix (cases[i].failing, "=warn"))
        g_assert_cmpstr (check_status (analysis, "published"), ==, "warn");
      else if (cases[i].failing != NULL)
        g_assert_cmpstr (check_status (analysis, cases[i].failing), ==, "fail");
      else
        {
          g_assert_cmpstr (check_status (analysis, "published"), ==, "pass");
          g_assert_cmpstr (check_status (analysis, "webhook"), ==, "pass");
          g_assert_cmpstr (check_status (analysis, "not-adapter"), ==, "pass");
        }
    }
}

static void
test_entry_webhook (void)
{
  g_autoptr(PrsAnalysis) analysis = analyse (
    "{\"id\":\"W1\",\"name\":\"two hooks\",\"active\":true,\"nodes\":["
    "{\"name\":\"Get Hook\",\"type\":\"n8n-nodes-base.webhook\",\"parameters\":{\"httpMethod\":\"GET\",\"path\":\"g\"}},"
    "{\"name\":\"First Post\",\"type\":\"n8n-nodes-base.webhook\",\"parameters\":{\"httpMethod\":\"POST\",\"path\":\"first\"}},"
    "{\"name\":\"Second Post\",\"type\":\"n8n-nodes-base.webhook\",\"webhookId\":\"abc\",\"parameters\":{\"httpMethod\":\"POST\",\"path\":\"second\",\"responseMode\":\"responseNode\"}}"
    "]}");
  g_autofree char *url = NULL;

  g_assert_cmpstr (analysis->tool->webhook_path, ==, "first");
  g_assert_cmpstr (analysis->tool->webhook_node_name, ==, "First Post");
  g_assert_null (analysis->tool->webhook_id);
  /* Absent responseMode is n8n's default, Respond Immediately. */
  g_assert_cmpstr (analysis->tool->response_mode, ==, "onReceived");
  g_assert_cmpstr (check_status (analysis, "response-mode"), ==, "warn");
  g_assert_cmpstr (check_status (analysis, "webhook-url"), ==, "warn");

  url = prs_tool_dup_webhook_url (analysis->tool, "http://n8n:5678/");
  g_assert_cmpstr (url, ==, "http://n8n:5678/webhook/W1/first%2520post/first");
}

static void
test_webhook_url (void)
{
  g_autoptr(PrsAnalysis) analysis = analyse_nodes ("url", WEBHOOK (""));
  g_autofree char *url = prs_tool_dup_webhook_url (analysis->tool, "https://n8n.example.org");

  g_assert_cmpstr (url, ==, "https://n8n.example.org/webhook/tool-path");
  g_assert_cmpstr (check_status (analysis, "webhook-url"), ==, "pass");
  g_assert_cmpstr (check_status (analysis, "response-mode"), ==, "pass");
}

/* ---------------------------------------------------------------- descriptions */

static void
test_description_order (void)
{
  static const struct { const char *json; const char *expected; const char *source; } cases[] = {
    { "{\"name\":\"n\",\"description\":\"  Top level.  \",\"settings\":{\"description\":\"settings\"},\"nodes\":[]}",
      "Top level.", "workflow" },
    { "{\"name\":\"n\",\"description\":\"   \",\"settings\":{\"description\":\"From settings\"},\"nodes\":[]}",
      "From settings", "workflow" },
    { "{\"name\":\"n\",\"description\":null,\"meta\":{\"description\":\"From meta\"},\"nodes\":[]}",
      "From meta", "workflow" },
    { "{\"name\":\"n\",\"description\":42,\"settings\":[],\"meta\":\"x\",\"nodes\":[{\"type\":\"n8n-nodes-base.stickyNote\",\"parameters\":{\"content\":\"Sticky text\"}}]}",
      "Sticky text", "sticky-note" },
    { "{\"name\":\"n\",\"nodes\":[{\"type\":\"n8n-nodes-base.stickyNote\",\"parameters\":{\"content\":\"## Heading\\n\\n\"}},"
      "{\"type\":\"n8n-nodes-base.stickyNote\",\"parameters\":{\"content\":\"Second note\"}}]}",
      "Second note", "sticky-note" },
    { "{\"name\":\"My Flow\",\"nodes\":[{\"type\":\"n8n-nodes-base.stickyNote\",\"parameters\":{\"content\":\"  \\n# Only a heading\"}}]}",
      "Runs the n8n workflow \"My Flow\".", "generated" },
    { "{\"name\":\"Quote \\\"q\\\"\",\"nodes\":[]}",
      "Runs the n8n workflow \"Quote \"q\"\".", "generated" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(PrsAnalysis) analysis = analyse (cases[i].json);

      g_assert_cmpstr (analysis->tool->description, ==, cases[i].expected);
      g_assert_cmpstr (prs_description_source_to_string (analysis->tool->description_source), ==,
                       cases[i].source);
      g_assert_cmpstr (check_status (analysis, "description"), ==,
                       g_str_equal (cases[i].source, "generated") ? "warn" : "pass");
    }
}

static void
test_sticky_markdown (void)
{
  static const struct { const char *markdown; const char *expected; } cases[] = {
    { "## Echo tool\nEchoes `x` (default `d`) in upper case.", "Echoes x (default d) in upper case." },
    { "\n\n# Title\n## Sub\n\nUse **this** tool\nwhen _needed_.\n\nSecond paragraph.", "Use this tool when needed." },
    { "See [the docs](https://example.org) now", "See the docs now" },
    { "![logo](https://example.org/x.png) Moves *emails*", "Moves emails" },
    { "![only an image](x.png)", NULL },
    { "keep snake_case_names intact", "keep snake_case_names intact" },
    { "~~old~~ new", "old new" },
    { "  indented line\n    more indented", "indented line more indented" },
    { "line one\r\nline two\r\n\r\nnext", "line one line two" },
    { "Tom &amp; Jerry &#x263A;", "Tom & Jerry ☺" },
    { "a <b>bold</b> tag", "a bold tag" },
    { "   \n\t\n", NULL },
    { "", NULL },
    { "#hashtag at start", NULL },
    { "Multiple     spaces\tand tabs", "Multiple spaces and tabs" },
    { "***both***", "both" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *got = prs_markdown_first_paragraph (cases[i].markdown);

      g_test_message ("markdown case %u", i);
      g_assert_cmpstr (got, ==, cases[i].expected);
    }
}

static void
test_description_cut (void)
{
  g_autoptr(GString) json = g_string_new ("{\"name\":\"n\",\"description\":\"");
  g_autoptr(PrsAnalysis) analysis = NULL;

  for (guint i = 0; i < 600; i++)
    g_string_append (json, "é ");
  g_string_append (json, "\",\"nodes\":[]}");

  analysis = analyse (json->str);
  g_assert_cmpint (g_utf8_strlen (analysis->tool->description, -1), ==, 1024);
  g_assert_true (g_utf8_validate (analysis->tool->description, -1, NULL));
}

/* ---------------------------------------------------------------- parameters */

static void
test_parameters (void)
{
  g_autoptr(PrsAnalysis) analysis = analyse_nodes ("Email Move To Folder",
    WEBHOOK ("") ","
    "{\"name\":\"Code\",\"type\":\"n8n-nodes-base.code\",\"parameters\":{\"jsCode\":"
      "\"const body = $input.first().json.body ?? {};\\nconst uid = body.uid;\\nconst mailbox = body.mailbox ?? 'INBOX';\\n// body.ignored ?? 1\"}},"
    "{\"name\":\"Off\",\"type\":\"n8n-nodes-base.code\",\"disabled\":true,\"parameters\":{\"jsCode\":\"const x = body.disabledParam ?? 1;\"}},"
    "{\"name\":\"Py\",\"type\":\"n8n-nodes-base.code\",\"parameters\":{\"language\":\"python\",\"pythonCode\":\"x = 1\",\"jsCode\":\"body.pythonParam ?? 2\"}},"
    "{\"name\":\"Legacy\",\"type\":\"n8n-nodes-base.function\",\"parameters\":{\"functionCode\":\"const limit = parameters.limit || 25;\"}},"
    "{\"name\":\"Bad\",\"type\":\"n8n-nodes-base.code\",\"parameters\":{\"jsCode\":42}}");
  GPtrArray *params = analysis->tool->params;
  g_autoptr(JsonNode) schema = prs_tool_build_input_schema (analysis->tool);
  g_autofree char *schema_text = prs_json_to_string (schema, FALSE);
  const PrsParam *p;

  g_assert_cmpuint (params->len, ==, 3);
  p = g_ptr_array_index (params, 0);
  g_assert_cmpstr (p->name, ==, "uid");
  g_assert_true (p->required);
  g_assert_null (p->default_value);
  p = g_ptr_array_index (params, 1);
  g_assert_cmpstr (p->name, ==, "mailbox");
  g_assert_false (p->required);
  g_assert_cmpstr (json_node_get_string (p->default_value), ==, "INBOX");
  p = g_ptr_array_index (params, 2);
  g_assert_cmpstr (p->name, ==, "limit");
  g_assert_cmpint (p->type, ==, PRS_PARAM_NUMBER);
  g_assert_cmpint (json_node_get_int (p->default_value), ==, 25);

  g_assert_cmpstr (schema_text, ==,
                   "{\"type\":\"object\",\"properties\":{"
                   "\"uid\":{\"type\":\"string\",\"description\":\"The uid\"},"
                   "\"mailbox\":{\"type\":\"string\",\"description\":\"The mailbox\",\"default\":\"INBOX\"},"
                   "\"limit\":{\"type\":\"number\",\"description\":\"The limit\",\"default\":25}},"
                   "\"required\":[\"uid\"]}");
  g_assert_cmpstr (check_status (analysis, "parameters"), ==, "pass");
}

static void
test_parameters_none (void)
{
  g_autoptr(PrsAnalysis) with_code = analyse_nodes ("n",
    WEBHOOK ("") ",{\"type\":\"n8n-nodes-base.code\",\"parameters\":{\"jsCode\":\"return [];\"}}");
  g_autoptr(PrsAnalysis) without_code = analyse_nodes ("n", WEBHOOK (""));
  g_autoptr(JsonNode) schema = prs_tool_build_input_schema (without_code->tool);
  g_autofree char *schema_text = prs_json_to_string (schema, FALSE);

  g_assert_cmpstr (check_status (with_code, "parameters"), ==, "warn");
  g_assert_cmpstr (check_status (without_code, "parameters"), ==, "pass");
  g_assert_cmpstr (schema_text, ==, "{\"type\":\"object\",\"properties\":{},\"required\":[]}");
}

static void
test_array_schema (void)
{
  g_autoptr(PrsAnalysis) analysis = analyse_nodes ("n",
    WEBHOOK ("") ",{\"type\":\"n8n-nodes-base.code\",\"parameters\":{\"jsCode\":\"const ids = body.ids ?? [1, 2];\"}}");
  g_autoptr(JsonNode) json = prs_tool_to_json (analysis->tool);
  g_autofree char *text = prs_json_to_string (json, FALSE);

  g_assert_nonnull (strstr (text, "\"ids\":{\"type\":\"array\",\"description\":\"The ids\",\"default\":[1,2],\"items\":{}}"));
  g_assert_nonnull (strstr (text, "\"parameters\":[{\"name\":\"ids\",\"type\":\"array\",\"required\":false,\"description\":\"The ids\",\"default\":[1,2]}]"));
  g_assert_nonnull (strstr (text, "\"webhook\":{\"path\":\"tool-path\",\"method\":\"POST\",\"responseMode\":\"lastNode\"}"));
}

static void
test_tool_json_round_trip (void)
{
  g_autoptr(PrsAnalysis) analysis = analyse_nodes ("Round Trip",
    WEBHOOK ("") ",{\"type\":\"n8n-nodes-base.code\",\"parameters\":{\"jsCode\":\"const a = body.a ?? {\\\"k\\\": [true]};\\nconst b = parameters.b;\"}}");
  g_autoptr(JsonNode) json = prs_tool_to_json (analysis->tool);
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsTool) back = prs_tool_new_from_json (json, &error);
  g_autoptr(JsonNode) json2 = NULL;

  g_assert_no_error (error);
  json2 = prs_tool_to_json (back);
  g_assert_true (json_node_equal (json, json2));
}

/* ---------------------------------------------------------------- hostile input */

static void
test_not_workflows (void)
{
  static const char * const inputs[] = {
    "[]", "42", "\"text\"", "null", "{}", "{\"nodes\":{}}", "{\"nodes\":\"x\"}", "{\"nodes\":null}",
  };

  for (guint i = 0; i < G_N_ELEMENTS (inputs); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(JsonNode) node = prs_json_parse_bounded (inputs[i], strlen (inputs[i]), 256, &error);
      g_autoptr(PrsWorkflow) workflow = NULL;

      g_assert_no_error (error);
      workflow = prs_workflow_new_from_json (node, &error);
      g_assert_null (workflow);
      g_assert_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT);
      g_assert_nonnull (strstr (error->message, "not an n8n workflow"));
    }
}

static void
test_wrong_types (void)
{
  g_autoptr(PrsAnalysis) analysis = analyse (
    "{\"id\":[1],\"name\":{\"x\":1},\"active\":1,\"createdAt\":5,\"description\":[],"
    "\"nodes\":[{\"name\":7,\"type\":[],\"parameters\":\"p\",\"webhookId\":3,\"disabled\":\"yes\"},"
    "{\"type\":\"n8n-nodes-base.webhook\",\"parameters\":{\"httpMethod\":{\"a\":1},\"path\":[\"x\"]}},"
    "{\"type\":\"n8n-nodes-base.stickyNote\",\"parameters\":{\"content\":[\"x\"]}},"
    "{\"type\":\"n8n-nodes-base.code\",\"parameters\":{\"jsCode\":null,\"language\":5}}]}");

  g_assert_false (analysis->discoverable);
  g_assert_null (analysis->workflow->id);
  g_assert_cmpstr (analysis->workflow->name, ==, "");
  g_assert_cmpstr (analysis->tool->name, ==, "workflow_");
  g_assert_cmpint (analysis->tool->description_source, ==, PRS_DESCRIPTION_GENERATED);
}

static void
test_invalid_json (void)
{
  static const char * const inputs[] = { "", "{", "{\"a\":}", "nul", "\xff\xfe{}", "{\"a\":\"\xc3\x28\"}" };

  for (guint i = 0; i < G_N_ELEMENTS (inputs); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(JsonNode) node = prs_json_parse_bounded (inputs[i], strlen (inputs[i]), 256, &error);

      g_assert_null (node);
      g_assert_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT);
    }
}

static void
test_deep_nesting (void)
{
  gsize depth = 1000000;
  g_autoptr(GString) deep = g_string_sized_new (depth * 2 + 64);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = NULL;

  g_string_append (deep, "{\"nodes\":[],\"x\":");
  for (gsize i = 0; i < depth; i++)
    g_string_append_c (deep, '[');
  for (gsize i = 0; i < depth; i++)
    g_string_append_c (deep, ']');
  g_string_append_c (deep, '}');

  node = prs_json_parse_bounded (deep->str, deep->len, 256, &error);
  g_assert_null (node);
  g_assert_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT);
  g_assert_nonnull (strstr (error->message, "nested"));

  /* Brackets inside strings do not count. */
  g_assert_cmpuint (prs_json_nesting_depth ("{\"a\":\"[[[[\\\"[[\"}", 15, 10), ==, 1);
}

static void
test_huge_code_node (void)
{
  g_autoptr(GString) code = g_string_new ("const a = body.first ?? 1;\n");
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(PrsWorkflow) workflow = NULL;
  g_autoptr(PrsAnalysis) analysis = NULL;
  gint64 start;

  while (code->len < 5 * 1024 * 1024)
    g_string_append (code, "/* body.commented ?? 2 */ const s = 'parameters.inString ?? 3'; x = y + z * (w - 1);\n");
  g_string_append (code, "const last = parameters.last ?? true;\n");

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "name");
  json_builder_add_string_value (builder, "Huge");
  json_builder_set_member_name (builder, "active");
  json_builder_add_boolean_value (builder, TRUE);
  json_builder_set_member_name (builder, "nodes");
  json_builder_begin_array (builder);
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "type");
  json_builder_add_string_value (builder, "n8n-nodes-base.code");
  json_builder_set_member_name (builder, "parameters");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "jsCode");
  json_builder_add_string_value (builder, code->str);
  json_builder_end_object (builder);
  json_builder_end_object (builder);
  json_builder_end_array (builder);
  json_builder_end_object (builder);
  root = json_builder_get_root (builder);

  start = g_get_monotonic_time ();
  workflow = prs_workflow_new_from_json (root, NULL);
  analysis = prs_analysis_new (g_steal_pointer (&workflow));
  g_test_message ("5 MiB Code node analysed in %" G_GINT64_FORMAT " ms",
                  (g_get_monotonic_time () - start) / 1000);

  g_assert_cmpuint (analysis->tool->params->len, ==, 2);
  g_assert_cmpstr (((PrsParam *) g_ptr_array_index (analysis->tool->params, 0))->name, ==, "first");
  g_assert_cmpstr (((PrsParam *) g_ptr_array_index (analysis->tool->params, 1))->name, ==, "last");
  g_assert_false (analysis->discoverable);
}

/* ---------------------------------------------------------------- checklist */

static void
test_checklist_object (void)
{
  g_autoptr(PrsAnalysis) analysis = analyse_nodes ("Check Me", WEBHOOK (""));
  g_autoptr(JsonNode) checklist = prs_analysis_to_checklist (analysis);
  JsonObject *object = json_node_get_object (checklist);
  JsonArray *checks = json_object_get_array_member (object, "checks");
  static const char * const ids[] = {
    "published", "webhook", "not-adapter", "tool-name", "description", "parameters",
    "response-mode", "webhook-url",
  };

  g_assert_cmpstr (json_object_get_string_member (object, "workflowId"), ==, "AbC123xyz");
  g_assert_cmpstr (json_object_get_string_member (object, "workflowName"), ==, "Check Me");
  g_assert_true (json_object_get_boolean_member (object, "discoverable"));
  g_assert_cmpstr (json_object_get_string_member (object, "toolName"), ==, "check_me");
  g_assert_cmpuint (json_array_get_length (checks), ==, G_N_ELEMENTS (ids));
  for (guint i = 0; i < G_N_ELEMENTS (ids); i++)
    g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (checks, i), "id"),
                     ==, ids[i]);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/prs/discovery/names", test_names);
  g_test_add_func ("/prs/discovery/names-empty", test_names_empty);
  g_test_add_func ("/prs/discovery/names-long", test_names_long);
  g_test_add_func ("/prs/discovery/collision-name", test_collision_name);
  g_test_add_func ("/prs/discovery/collisions", test_collisions);
  g_test_add_func ("/prs/discovery/collisions-missing-created-at", test_collisions_missing_created_at);
  g_test_add_func ("/prs/discovery/checklist-drafts", test_checklist_drafts);
  g_test_add_func ("/prs/discovery/requirements", test_requirements);
  g_test_add_func ("/prs/discovery/entry-webhook", test_entry_webhook);
  g_test_add_func ("/prs/discovery/webhook-url", test_webhook_url);
  g_test_add_func ("/prs/discovery/description-order", test_description_order);
  g_test_add_func ("/prs/discovery/sticky-markdown", test_sticky_markdown);
  g_test_add_func ("/prs/discovery/description-cut", test_description_cut);
  g_test_add_func ("/prs/discovery/parameters", test_parameters);
  g_test_add_func ("/prs/discovery/parameters-none", test_parameters_none);
  g_test_add_func ("/prs/discovery/array-schema", test_array_schema);
  g_test_add_func ("/prs/discovery/tool-json-round-trip", test_tool_json_round_trip);
  g_test_add_func ("/prs/discovery/not-workflows", test_not_workflows);
  g_test_add_func ("/prs/discovery/wrong-types", test_wrong_types);
  g_test_add_func ("/prs/discovery/invalid-json", test_invalid_json);
  g_test_add_func ("/prs/discovery/deep-nesting", test_deep_nesting);
  g_test_add_func ("/prs/discovery/huge-code-node", test_huge_code_node);
  g_test_add_func ("/prs/discovery/checklist-object", test_checklist_object);

  return g_test_run ();
}
