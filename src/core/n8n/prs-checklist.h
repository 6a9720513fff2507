/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-checklist.h: the Workflow Checklist (docs/workflows.md): what the
 * discovery rules found out about a workflow (a PrsAnalysis), in words an
 * author acts on. */
#pragma once

#include <json-glib/json-glib.h>

#include "prs-discovery.h"

G_BEGIN_DECLS

/* The Workflow Checklist object: {workflowId, workflowName, discoverable,
 * toolName, checks:[{id, status, message}]}, as JSON text appended to
 * @out (compact, written as prs_json_append () writes). */
void         prs_analysis_append_checklist  (GString            *out,
                                             const PrsAnalysis  *analysis);
/* The checklists of one discovery, drafted as each workflow is analysed,
 * and the checks' words, translated and escaped once per discovery. */
typedef struct _PrsChecklistDrafts PrsChecklistDrafts;

PrsChecklistDrafts *prs_checklist_drafts_new  (void);
void         prs_checklist_drafts_free      (PrsChecklistDrafts *drafts);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrsChecklistDrafts, prs_checklist_drafts_free)

/* Appends to @drafts @analysis's checklist but for what the name
 * collisions decide, while the analysis is fresh in the cache (a discovery
 * writes the checklists only once every workflow is read):
 * prs_checklists_new () with the same @drafts then adds the tool name, and
 * the text is the same as without. */
void         prs_analysis_draft_checklist   (PrsAnalysis        *analysis,
                                             PrsChecklistDrafts *drafts);
/* The same object as a tree. */
JsonNode    *prs_analysis_to_checklist      (const PrsAnalysis  *analysis);
/* Just the checks array, as a tree. */
JsonNode    *prs_analysis_build_checks      (const PrsAnalysis  *analysis);

/* The checklists of one discovery as the store takes them: @rows are
 * PrsChecklistInsert, one per analysis in order, their JSON in @text (one
 * buffer) and their other strings borrowed from the analyses, which must
 * outlive them. */
typedef struct
{
  GString *text;
  GArray  *rows;
} PrsChecklists;

/* @drafts: where prs_analysis_draft_checklist () wrote the analyses'
 * drafts, or NULL (every checklist written from its analysis) */
PrsChecklists *prs_checklists_new           (GPtrArray          *analyses,
                                             PrsChecklistDrafts *drafts);
void           prs_checklists_free          (PrsChecklists      *checklists);

/* What n8n's response mode @mode ("lastNode", …) means for a tool's
 * result, in the checklist's words. */
char          *prs_checklist_describe_response_mode (const char *mode);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrsChecklists, prs_checklists_free)

G_END_DECLS
