/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-checklist.h: the Workflow Checklist (docs/workflows.md): what the
 * discovery rules found out about a workflow (a PrsAnalysis), in words an
 * author acts on. */
#pragma once

#include <json-glib/json-glib.h>

#include "prs-discovery.h"

G_BEGIN_DECLS

/* The Workflow Checklist object: {workflowId, workflowName, discoverable,
 * toolName, checks:[{id, status, message}]}. */
JsonNode    *prs_analysis_to_checklist      (const PrsAnalysis  *analysis);
/* Just the checks array. */
JsonNode    *prs_analysis_build_checks      (const PrsAnalysis  *analysis);

G_END_DECLS
