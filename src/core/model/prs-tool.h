/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-tool.h: a discovered tool: an n8n workflow that agents can call. */
#pragma once

#include <json-glib/json-glib.h>

#include "prs-param.h"

G_BEGIN_DECLS

typedef enum
{
  PRS_DESCRIPTION_WORKFLOW,
  PRS_DESCRIPTION_STICKY_NOTE,
  PRS_DESCRIPTION_GENERATED,
} PrsDescriptionSource;

typedef struct
{
  char                 *name;
  char                 *description;
  PrsDescriptionSource  description_source;

  char                 *workflow_id;
  char                 *workflow_name;
  char                 *created_at;        /* the workflow's createdAt, for name collisions */

  /* The entry point: the first enabled POST webhook node. */
  char                 *webhook_path;
  char                 *webhook_method;    /* "POST" */
  char                 *response_mode;     /* "onReceived", "lastNode", "responseNode", … */
  char                 *webhook_id;        /* the node's webhookId, NULL when absent */
  char                 *webhook_node_name;

  GPtrArray            *params;            /* PrsParam*, in order of first occurrence */

  gint64                discovered_at;     /* unix seconds, 0 when never stored */
} PrsTool;

PrsTool    *prs_tool_new                  (void);
PrsTool    *prs_tool_copy                 (const PrsTool  *tool);
void        prs_tool_free                 (PrsTool        *tool);

const char *prs_description_source_to_string   (PrsDescriptionSource  source);
gboolean    prs_description_source_from_string (const char           *str,
                                                PrsDescriptionSource *out_source);

/* {"type":"object","properties":{…},"required":[…]} */
JsonNode   *prs_tool_build_input_schema   (const PrsTool  *tool);

/* The public tool object of check-workflow, discover and tools:
 * {name, description, descriptionSource, workflowId, workflowName,
 *  webhook:{path, method, responseMode}, parameters:[…], inputSchema}. */
JsonNode   *prs_tool_to_json              (const PrsTool  *tool);

/* Reads back what prs_tool_to_json() wrote (the store keeps it). The fields
 * that the public object does not carry (webhook id and node name, creation
 * time) are set by the caller. */
PrsTool    *prs_tool_new_from_json        (JsonNode       *node,
                                           GError        **error);

/* The URL n8n serves the webhook on (docs/workflows.md). */
char       *prs_tool_dup_webhook_url      (const PrsTool  *tool,
                                           const char     *n8n_base_url);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrsTool, prs_tool_free)

G_END_DECLS
