/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz-discovery: field and tool discovery over an untrusted workflow
 * (docs/workflows.md): parse, every rule, collisions (the workflow twice), the
 * Workflow Checklist (drafted and not). */
#include <string.h>

#include "prs-checklist.h"
#include "prs-discovery.h"
#include "prs-json.h"

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

int
LLVMFuzzerTestOneInput (const guint8 *data,
                        size_t        size)
{
  g_autoptr(JsonNode) node = prs_json_parse_bounded ((const char *) data, size,
                                                     PRS_JSON_DEFAULT_MAX_DEPTH, NULL);
  g_autoptr(GPtrArray) analyses = g_ptr_array_new_with_free_func ((GDestroyNotify) prs_analysis_free);
  g_autoptr(GPtrArray) tools = NULL;
  g_autoptr(PrsChecklistDrafts) drafts = prs_checklist_drafts_new ();
  g_autoptr(PrsChecklists) checklists = NULL;
  g_autoptr(PrsChecklists) fresh = NULL;

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return 0;

  /* The workflow twice, as a discovery reads it: each analysed and its
   * checklist drafted, then the collisions */
  for (guint i = 0; i < 2; i++)
    {
      PrsAnalysis *analysis = prs_discovery_analyse_workflow (json_node_get_object (node));

      if (analysis == NULL)
        continue;
      prs_analysis_draft_checklist (analysis, drafts);
      g_ptr_array_add (analyses, analysis);
    }
  prs_discovery_resolve_collisions (analyses, &tools);
  checklists = prs_checklists_new (analyses, drafts);
  /* The drafts change nothing in what is written */
  fresh = prs_checklists_new (analyses, NULL);
  g_assert (g_string_equal (checklists->text, fresh->text));
  /* What the store keeps must read back as one JSON object each */
  for (guint i = 0; i < checklists->rows->len; i++)
    {
      const char *json = g_array_index (checklists->rows, PrsChecklistInsert, i).json;
      g_autoptr(JsonNode) checklist = prs_json_parse_strict (json, strlen (json),
                                                             PRS_JSON_DEFAULT_MAX_DEPTH, NULL);

      g_assert (checklist != NULL && JSON_NODE_HOLDS_OBJECT (checklist));
    }
  g_clear_pointer (&tools, g_ptr_array_unref);
  return 0;
}
