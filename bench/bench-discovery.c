/* SPDX-License-Identifier: GPL-3.0-or-later */
/* bench-discovery: docs/workflows.md rules over 1,000 recorded workflows (no
 * network), against the baseline of parsing the same JSON alone. Prints
 * one BENCH line. */
#include <string.h>

#include "prs-checklist.h"
#include "prs-discovery.h"
#include "prs-json.h"

#define N_WORKFLOWS 1000
#define TARGET_RATIO 1.5

/* A realistic tool workflow: webhook, two Code nodes, a sticky note. */
static char *
make_workflow (guint i)
{
  return g_strdup_printf (
    "{\"id\":\"wf%05u\",\"name\":\"Tool Number %u (v2)\",\"active\":true,"
    "\"createdAt\":\"2026-01-01T00:00:%02u.000Z\",\"isArchived\":false,"
    "\"settings\":{\"executionOrder\":\"v1\"},\"tags\":[],\"nodes\":["
    "{\"id\":\"n1\",\"name\":\"Webhook\",\"type\":\"n8n-nodes-base.webhook\",\"typeVersion\":2.1,"
    "\"position\":[0,0],\"webhookId\":\"b%05u\",\"parameters\":{\"httpMethod\":\"POST\","
    "\"path\":\"tool-%u\",\"responseMode\":\"lastNode\",\"options\":{}}},"
    "{\"id\":\"n2\",\"name\":\"Read Input\",\"type\":\"n8n-nodes-base.code\",\"typeVersion\":2,"
    "\"position\":[220,0],\"parameters\":{\"jsCode\":\"// Reads the tool input\\n"
    "const body = $input.first().json.body ?? {};\\nconst uid = body.uid;\\n"
    "const mailbox = body.mailbox ?? 'INBOX';\\nconst limit = parameters.limit || 25;\\n"
    "const flags = body.flags ?? [\\\"seen\\\"];\\n/* body.notThis ?? 1 */\\n"
    "const s = `template ${body.alsoNot ?? 2}`;\\nreturn [{ json: { uid, mailbox, limit, flags, s } }];\"}},"
    "{\"id\":\"n3\",\"name\":\"Shape\",\"type\":\"n8n-nodes-base.code\",\"typeVersion\":2,"
    "\"position\":[440,0],\"parameters\":{\"jsCode\":\"const verbose = parameters.verbose ?? false;\\n"
    "return items.map(i => ({ json: { ...i.json, verbose } }));\"}},"
    "{\"id\":\"n4\",\"name\":\"Sticky Note\",\"type\":\"n8n-nodes-base.stickyNote\",\"typeVersion\":1,"
    "\"position\":[-40,-220],\"parameters\":{\"content\":\"## Tool %u\\nUse this tool when you need "
    "to **move** an email to a [different](https://example.org) IMAP folder.\\n\\nMore text.\","
    "\"height\":160,\"width\":300}}],"
    "\"connections\":{\"Webhook\":{\"main\":[[{\"node\":\"Read Input\",\"type\":\"main\",\"index\":0}]]}}}",
    i, i % 700, i % 60, i, i, i);
}

static int
compare_doubles (gconstpointer a,
                 gconstpointer b)
{
  double x = *(const double *) a;
  double y = *(const double *) b;

  return x < y ? -1 : x > y;
}

static double
median (GArray *samples)
{
  g_array_sort (samples, compare_doubles);

  return g_array_index (samples, double, samples->len / 2);
}

/* Baseline: parse every workflow's JSON (what any client must do). */
static G_GNUC_NO_INLINE double
run_baseline (GPtrArray *texts)
{
  gint64 start = g_get_monotonic_time ();

  for (guint i = 0; i < texts->len; i++)
    {
      const char *text = g_ptr_array_index (texts, i);
      g_autoptr(JsonNode) node = prs_json_parse_bounded (text, strlen (text), PRS_JSON_DEFAULT_MAX_DEPTH, NULL);

      g_assert (node != NULL);
    }

  return (g_get_monotonic_time () - start) / 1000.0;
}

/* Measured: parse, then every rule of docs/workflows.md and the checklists as
 * the store takes them (JSON text). Like a real discovery, each workflow is
 * analysed (and its checklist drafted) as soon as it is parsed and its JSON
 * dropped; the collisions then need them all. */
static G_GNUC_NO_INLINE double
run_discovery (GPtrArray *texts,
               guint     *out_tools)
{
  gint64 start = g_get_monotonic_time ();
  g_autoptr(GPtrArray) analyses = g_ptr_array_new_with_free_func ((GDestroyNotify) prs_analysis_free);
  g_autoptr(GPtrArray) tools = NULL;
  g_autoptr(PrsChecklists) checklists = NULL;
  g_autoptr(PrsChecklistDrafts) drafts = prs_checklist_drafts_new ();

  for (guint i = 0; i < texts->len; i++)
    {
      const char *text = g_ptr_array_index (texts, i);
      g_autoptr(JsonNode) node = prs_json_parse_bounded (text, strlen (text), PRS_JSON_DEFAULT_MAX_DEPTH, NULL);
      PrsAnalysis *analysis;

      g_assert (node != NULL);
      analysis = prs_discovery_analyse_workflow (json_node_get_object (node));
      if (analysis != NULL)
        {
          prs_analysis_draft_checklist (analysis, drafts);
          g_ptr_array_add (analyses, analysis);
        }
    }

  prs_discovery_resolve_collisions (analyses, &tools);
  checklists = prs_checklists_new (analyses, drafts);
  *out_tools = tools->len;

  return (g_get_monotonic_time () - start) / 1000.0;
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GPtrArray) texts = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GArray) base = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) measured = g_array_new (FALSE, FALSE, sizeof (double));
  guint rounds = argc > 1 && g_str_equal (argv[1], "--quick") ? 5 : 15;
  guint n_tools = 0;
  double b, m, ratio;

  for (guint i = 0; i < N_WORKFLOWS; i++)
    g_ptr_array_add (texts, make_workflow (i));

  for (guint r = 0; r < rounds; r++)
    {
      double t;

      t = run_baseline (texts);
      g_array_append_val (base, t);
      t = run_discovery (texts, &n_tools);
      g_array_append_val (measured, t);
    }

  g_assert (n_tools == N_WORKFLOWS);
  b = median (base);
  m = median (measured);
  ratio = m / b;
  g_print ("BENCH discovery-1000 %.2f ms baseline=%.2f ratio=%.2f target=%.1f %s\n",
           m, b, ratio, TARGET_RATIO, ratio <= TARGET_RATIO ? "PASS" : "FAIL");

  return 0;
}
