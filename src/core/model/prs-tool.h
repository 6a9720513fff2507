/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-tool.h: a tool agents can call: an n8n workflow found by discovery,
 * or a tool an MCP server lists (docs/mcp.md), which is offered, approved,
 * guided and bound the same way. */
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

  /* An MCP server's tool (the workflow and webhook fields are NULL) */
  char                 *mcp_server;        /* the server's name; NULL for an n8n tool */
  char                 *mcp_server_id;
  char                 *mcp_tool;          /* the server's own name for it */
  char                 *mcp_name_note;     /* why its name has a suffix (a collision); may be NULL */
  JsonNode             *input_schema;      /* its JSON Schema as the server gave it */
} PrsTool;

PrsTool    *prs_tool_new                  (void);
PrsTool    *prs_tool_copy                 (const PrsTool  *tool);
void        prs_tool_free                 (PrsTool        *tool);

const char *prs_description_source_to_string   (PrsDescriptionSource  source);
gboolean    prs_description_source_from_string (const char           *str,
                                                PrsDescriptionSource *out_source);

/* {"type":"object","properties":{…},"required":[…]}; an MCP tool's own
 * schema as it is. */
JsonNode   *prs_tool_build_input_schema   (const PrsTool  *tool);

/* TRUE for a tool an MCP server lists. */
gboolean    prs_tool_is_mcp               (const PrsTool  *tool);
/* Makes @schema (an object; copied) the tool's schema and reads its
 * parameters from its top-level "properties" (type, description, default,
 * "required"), so that guidance and binding see them as they see a
 * workflow's: "integer" reads as a number, anything else not one of the
 * five types as a string; at most PRS_TOOL_MAX_PARAMS. */
void        prs_tool_set_input_schema     (PrsTool        *tool,
                                           JsonNode       *schema);

/* The public tool object of check-workflow, discover and tools:
 * {name, description, descriptionSource, workflowId, workflowName,
 *  webhook:{path, method, responseMode}, parameters:[…], inputSchema};
 * an MCP tool's: {name, description, mcpServer, mcpTool, parameters,
 *  inputSchema}. */
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
