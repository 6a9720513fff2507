/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Pins discovery's whole output (docs/workflows.md): tools, parameters,
 * descriptions, collisions and checklists, over discovery-1000's workflows
 * and a set that walks every rule, as one SHA-256. The digests below were
 * computed by the code before discovery's speed work: a change that moves
 * any byte of any result fails here, and the test prints what it got. */
#include <string.h>

#include "bench-discovery-corpus.h"
#include "prs-checklist.h"
#include "prs-discovery.h"
#include "prs-json.h"

#define BENCH_DIGEST  "f40af5b85ddf91152318d48f9dd3ca44daf4868f3a35f22ba834add7fe7ef5d7"
#define VARIED_DIGEST "166adcef8577abfd13d7839891b2cca8df9301be394cab9ba7a729c8e09e6b52"

/* Sticky notes: runs of white space, blocks, inline marks, entities,
 * reference links defined after their use, and none at all */
static const char * const stickies[] = {
  "## Title\\nUse  this\\ttool   when **bold** and _it_ and `code`.\\n\\nSecond.",
  "- item one\\n- [x] done\\n\\nAfter the list.",
  "```js\\nconst x = 1;\\n```\\nText after code with [ref][r].\\n\\n[r]: https://example.org",
  "&amp; &copy; &#169; caf\\u00e9 \\u2014 na\\u00efve \\u65e5\\u672c\\u8a9e  \\n  wrapped line",
  "",
  "   \\n\\n   ",
  "> quoted *text*\\n> more\\n\\n---\\n\\nlast",
  "<div>html</div>\\n\\nPlain text with a very long run: "
  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
};

/* Code nodes: every form and literal of docs/workflows.md, and near misses */
static const char * const codes[] = {
  "const a = parameters.alpha;\\nconst b = body?.beta ?? -3.5;\\nconst c = parameters['gamma'] || true;",
  "const d = body.delta ?? [1, \\\"x\\\", {\\\"k\\\": null, \\\"n\\\": -2}];\\n"
  "const e = body.eps ?? {\\\"a\\\": [true, false]};\\nconst f = body.phi ?? 'str\\\\u00e9';",
  "const g = parameters.gamma ?? `tmpl`;\\nconst h = body.h ?? {a: 1};\\nconst i = body.i ?? [1,];\\n"
  "const j = body.j\\n+ 1;\\nconst k = body?.[\\\"kk\\\"] ?? 12345678901234567890;",
  "/* parameters.no */ // body.no2\\nconst re = /body.x/g; const s = \\\"body.y\\\";\\n"
  "const t = `${body.z ?? 1}`; const u = body.parameters; const v = body.prosponsive;",
  "const w = body.w ?? 0x1F;\\nconst x = body.x ?? 1e3;\\nconst y = body.y ?? -0;\\n"
  "const z = body.z ?? null;\\nif (a) { const q = body.q; }\\nconst r = (body.r);",
};

static const char * const names[] = {
  "Move Email (v2)",
  "Tool Number 1",
  "  Prosponsive: n8n Workflow Adapter  ",
  "Caf\\u00e9 \\u00dcber-Tool \\u0130stanbul",
  "",
  "!!!",
  "A name that is much longer than sixty-four characters, so it is cut somewhere near the end",
  "tool number 1",
};

static char *
webhook_node (guint i)
{
  switch (i % 6)
    {
    case 0:
      return g_strdup ("{\"name\":\"Webhook\",\"type\":\"n8n-nodes-base.webhook\",\"webhookId\":\" w1 \","
                       "\"parameters\":{\"httpMethod\":\"POST\",\"path\":\"p\",\"responseMode\":\"responseNode\"}}");
    case 1:
      return g_strdup ("{\"name\":\"Hook\",\"type\":\"n8n-nodes-base.webhook\","
                       "\"parameters\":{\"httpMethod\":[\"GET\",\"POST\"],\"multipleMethods\":true,\"path\":\"q\"}}");
    case 2:
      return g_strdup ("{\"name\":\"Off\",\"type\":\"n8n-nodes-base.webhook\",\"disabled\":true,"
                       "\"parameters\":{\"httpMethod\":\"POST\",\"path\":\"r\"}}");
    case 3:
      return g_strdup ("{\"name\":\"Get\",\"type\":\"n8n-nodes-base.webhook\",\"parameters\":{\"path\":\"s\"}}");
    case 4:
      return g_strdup ("{\"name\":\"Empty\",\"type\":\"n8n-nodes-base.webhook\","
                       "\"parameters\":{\"httpMethod\":\"POST\",\"path\":\" \\t\"}}");
    default:
      return g_strdup ("{\"name\":\"Set\",\"type\":\"n8n-nodes-base.set\",\"parameters\":{}}");
    }
}

static char *
code_node (guint i)
{
  const char *code = codes[i % G_N_ELEMENTS (codes)];

  switch (i % 5)
    {
    case 0:
      return g_strdup_printf ("{\"name\":\"C\",\"type\":\"n8n-nodes-base.function\","
                              "\"parameters\":{\"functionCode\":\"%s\"}}", code);
    case 1:
      return g_strdup_printf ("{\"name\":\"C\",\"type\":\"n8n-nodes-base.code\","
                              "\"parameters\":{\"language\":\"python\",\"pythonCode\":\"x\",\"jsCode\":\"%s\"}}", code);
    case 2:
      return g_strdup_printf ("{\"name\":\"C\",\"type\":\"n8n-nodes-base.code\",\"disabled\":true,"
                              "\"parameters\":{\"jsCode\":\"%s\"}}", code);
    default:
      return g_strdup_printf ("{\"name\":\"C\",\"type\":\"n8n-nodes-base.code\","
                              "\"parameters\":{\"language\":\"javaScript\",\"jsCode\":\"%s\"}}", code);
    }
}

/* Past PRS_TOOL_MAX_PARAMS: too many parameters */
static char *
many_params_node (void)
{
  g_autoptr(GString) code = g_string_new (NULL);

  for (guint i = 0; i <= PRS_TOOL_MAX_PARAMS; i++)
    g_string_append_printf (code, "const p%u = body.p%u;\\n", i, i);

  return g_strdup_printf ("{\"name\":\"Many\",\"type\":\"n8n-nodes-base.code\","
                          "\"parameters\":{\"jsCode\":\"%s\"}}", code->str);
}

static char *
varied_workflow (guint i)
{
  g_autofree char *webhook = webhook_node (i);
  g_autofree char *code = i % 37 == 0 ? many_params_node () : code_node (i / 6);
  g_autofree char *code2 = code_node (i / 3 + 1);
  const char *description = (const char * const[]) {
    "\"description\":\"  Top level  \",", "\"settings\":{\"description\":\"From settings\"},",
    "\"meta\":{\"description\":\"From meta\"},", "\"description\":\"   \",", "",
  }[i % 5];
  const char *active = (const char * const[]) { "\"active\":true,", "\"active\":false,", "", "\"active\":\"yes\"," }[i % 4];
  const char *archived = i % 11 == 0 ? "\"isArchived\":true," : "";
  const char *created = (const char * const[]) {
    "\"createdAt\":\"2025-03-01T10:00:00.000Z\",", "\"createdAt\":\"2024-03-01T10:00:00.5+02:00\",",
    "", "\"createdAt\":\"not a date\",",
  }[i % 4];
  g_autofree char *id = i % 13 == 0 ? g_strdup_printf ("%u", i) : g_strdup_printf ("\"id%03u\"", i);

  return g_strdup_printf ("{\"id\":%s,\"name\":\"%s\",%s%s%s%s\"nodes\":[%s,%s,%s,"
                          "{\"name\":\"Note\",\"type\":\"n8n-nodes-base.stickyNote\",\"parameters\":{\"content\":\"%s\"}},"
                          "%s17]}",
                          id, names[i % G_N_ELEMENTS (names)], description, active, archived, created,
                          webhook, code, code2, stickies[i % G_N_ELEMENTS (stickies)],
                          i % 3 == 1 ? "{\"name\":\"Second\",\"type\":\"n8n-nodes-base.stickyNote\","
                                       "\"parameters\":{\"content\":\"Second note.\"}}," : "");
}

static void
add_string (GChecksum  *sum,
            const char *str)
{
  g_checksum_update (sum, (const guchar *) (str != NULL ? str : "(null)"), -1);
  g_checksum_update (sum, (const guchar *) "\n", 1);
}

/* Every field an analysis carries, its tool's public object, and its
 * checklist from the analysis itself */
static void
add_analysis (GChecksum         *sum,
              const PrsAnalysis *a)
{
  g_autofree char *flags = g_strdup_printf ("%d %d %d %d %d %d %u %u %d %d %d %d",
                                            a->published, a->has_webhook, a->is_adapter, a->discoverable,
                                            a->name_stripped, a->name_suffixed, a->n_code_nodes,
                                            a->n_code_matches, a->too_many_params, a->too_large,
                                            a->webhook_problem, a->tool->description_source);
  g_autoptr(JsonNode) tool = prs_tool_to_json (a->tool);
  g_autoptr(JsonNode) checklist = prs_analysis_to_checklist (a);
  g_autofree char *tool_text = prs_json_to_string (tool, FALSE);
  g_autofree char *checklist_text = prs_json_to_string (checklist, FALSE);

  add_string (sum, flags);
  add_string (sum, a->base_name);
  add_string (sum, a->webhook_problem_node);
  add_string (sum, a->tool->webhook_id);
  add_string (sum, a->tool->webhook_node_name);
  add_string (sum, a->tool->created_at);
  add_string (sum, tool_text);
  add_string (sum, checklist_text);
}

/* As the bench and a discovery run it: each workflow analysed and drafted
 * as it is parsed, then the collisions, then the checklists */
static char *
digest_of (char *(*make) (guint),
           guint  n)
{
  g_autoptr(GPtrArray) analyses = g_ptr_array_new_with_free_func ((GDestroyNotify) prs_analysis_free);
  g_autoptr(PrsChecklistDrafts) drafts = prs_checklist_drafts_new ();
  g_autoptr(GPtrArray) tools = NULL;
  g_autoptr(PrsChecklists) checklists = NULL;
  g_autoptr(GChecksum) sum = g_checksum_new (G_CHECKSUM_SHA256);
  guint counts[7] = { 0, };

  for (guint i = 0; i < n; i++)
    {
      g_autofree char *text = make (i);
      g_autoptr(GError) error = NULL;
      g_autoptr(JsonNode) node = prs_json_parse_bounded (text, strlen (text), PRS_JSON_DEFAULT_MAX_DEPTH, &error);
      PrsAnalysis *analysis;

      g_assert_no_error (error);
      analysis = prs_discovery_analyse_workflow (json_node_get_object (node));
      add_string (sum, analysis != NULL ? "analysed" : "skipped");
      if (analysis != NULL)
        {
          prs_analysis_draft_checklist (analysis, drafts);
          g_ptr_array_add (analyses, analysis);
        }
    }

  prs_discovery_resolve_collisions (analyses, &tools);
  for (guint i = 0; i < analyses->len; i++)
    {
      const PrsAnalysis *a = g_ptr_array_index (analyses, i);

      counts[0] += a->discoverable;
      counts[1] += a->name_suffixed;
      counts[2] += a->too_many_params;
      counts[3] += a->tool->params->len;
      counts[4 + a->tool->description_source]++;
    }
  g_test_message ("%u workflows, %u analysed, %u tools, %u suffixed, %u with too many parameters, "
                  "%u parameters, descriptions %u/%u/%u (workflow/sticky note/generated)",
                  n, analyses->len, counts[0], counts[1], counts[2], counts[3], counts[4], counts[5], counts[6]);
  checklists = prs_checklists_new (analyses, drafts);
  g_assert_cmpuint (checklists->rows->len, ==, analyses->len);
  for (guint i = 0; i < analyses->len; i++)
    {
      const PrsChecklistInsert *row = &g_array_index (checklists->rows, PrsChecklistInsert, i);

      add_analysis (sum, g_ptr_array_index (analyses, i));
      add_string (sum, row->json);
      add_string (sum, row->tool_name);
    }
  for (guint i = 0; i < tools->len; i++)
    add_string (sum, ((PrsTool *) g_ptr_array_index (tools, i))->name);

  return g_strdup (g_checksum_get_string (sum));
}

static void
test_bench_corpus (void)
{
  g_autofree char *digest = digest_of (bench_discovery_workflow, 1000);

  g_test_message ("discovery-1000's workflows: %s", digest);
  g_assert_cmpstr (digest, ==, BENCH_DIGEST);
}

static void
test_varied (void)
{
  g_autofree char *digest = digest_of (varied_workflow, 400);

  g_test_message ("varied workflows: %s", digest);
  g_assert_cmpstr (digest, ==, VARIED_DIGEST);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/discovery-digest/bench-corpus", test_bench_corpus);
  g_test_add_func ("/discovery-digest/varied", test_varied);

  return g_test_run ();
}
