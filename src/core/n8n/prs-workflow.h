/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-workflow.h: an n8n workflow as Prosponsive reads it: identity, state,
 * and the nodes discovery looks at. Built from untrusted JSON: every field
 * is type-checked, anything unexpected is ignored or reported. */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define PRS_NODE_WEBHOOK     "n8n-nodes-base.webhook"
#define PRS_NODE_CODE        "n8n-nodes-base.code"
#define PRS_NODE_FUNCTION    "n8n-nodes-base.function"
#define PRS_NODE_STICKY_NOTE "n8n-nodes-base.stickyNote"

/* The largest workflow read: n8n's own default request limit
 * (N8N_PAYLOAD_SIZE_MAX, 16 MiB), so no workflow saved in its editor is
 * larger. `check-workflow` refuses a bigger file; discovery skips a bigger
 * workflow with a checklist entry saying so. */
#define PRS_WORKFLOW_MAX_BYTES ((gsize) 16 * 1024 * 1024)

/* The node types the rules look at, told apart once per node (every rule
 * walks the nodes, and would otherwise compare the type strings again) */
typedef enum
{
  PRS_NODE_KIND_OTHER,
  PRS_NODE_KIND_WEBHOOK,
  PRS_NODE_KIND_CODE,
  PRS_NODE_KIND_FUNCTION,
  PRS_NODE_KIND_STICKY_NOTE,
} PrsNodeKind;

/* The strings are borrowed from @object, which the node holds a reference
 * to: a workflow's nodes are read once, right after parsing. */
typedef struct
{
  const char *name;         /* "" when absent */
  const char *type;         /* "" when absent */
  PrsNodeKind kind;         /* of @type */
  gboolean    disabled;
  char       *webhook_id;   /* NULL when absent or empty */
  JsonObject *parameters;   /* never NULL (empty when absent or not an object) */
  JsonObject *object;       /* the node's JSON */
} PrsWorkflowNode;

typedef enum
{
  PRS_ACTIVE_UNKNOWN,       /* the JSON does not say (an export without "active") */
  PRS_ACTIVE_NO,
  PRS_ACTIVE_YES,
} PrsActiveState;

typedef struct
{
  char           *id;           /* NULL when absent */
  char           *name;         /* "" when absent */
  char           *description;  /* description, settings.description or meta.description: the first non-empty after trimming, trimmed; NULL when none */
  char           *created_at;   /* NULL when absent */
  PrsActiveState  active;
  gboolean        archived;
  GArray         *nodes;        /* PrsWorkflowNode, in node order; non-object entries skipped; NULL once analysed (prs_analysis_new) */
} PrsWorkflow;

/* Fails with PRS_ERROR_INVALID_INPUT when @node is not a JSON object with a
 * "nodes" array. */
PrsWorkflow *prs_workflow_new_from_json (JsonNode     *node,
                                         GError      **error);
void         prs_workflow_free          (PrsWorkflow  *workflow);

/* The first enabled POST webhook node with a non-empty path (docs/workflows.md
 * requirement 2), or NULL. */
const PrsWorkflowNode *prs_workflow_find_entry_webhook (const PrsWorkflow *workflow);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrsWorkflow, prs_workflow_free)

G_END_DECLS
