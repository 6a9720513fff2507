/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-mcp-tool.h: one tool an MCP server lists, read out of untrusted
 * JSON, and what its tools/call results become. A tool's description is
 * data from the server: it is kept as text (control characters removed,
 * length bounded) and never becomes instructions. */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* Longest name accepted from a server (the spec asks for 1–128). */
#define PRS_MCP_TOOL_SERVER_NAME_MAX 128
/* Descriptions longer than this are cut, with an ellipsis. */
#define PRS_MCP_TOOL_DESCRIPTION_MAX 4096

typedef struct
{
  char     *name;           /* the server's own name for it */
  char     *title;          /* may be NULL */
  char     *description;    /* never NULL; may be empty */
  JsonNode *input_schema;   /* a JSON Schema object */
  JsonNode *output_schema;  /* may be NULL */
  JsonNode *annotations;    /* may be NULL */
  char     *exposed_name;   /* the name models see (prs-mcp-names.h); NULL until named */
  char     *name_note;      /* why exposed_name has a suffix; may be NULL */
} PrsMcpTool;

/* Reads one element of a tools/list answer. Fails with
 * PRS_ERROR_MCP_PROTOCOL when it has no usable name. */
PrsMcpTool *prs_mcp_tool_new_from_json (JsonObject        *object,
                                        GError           **error);
PrsMcpTool *prs_mcp_tool_copy          (const PrsMcpTool  *tool);
void        prs_mcp_tool_free          (PrsMcpTool        *tool);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrsMcpTool, prs_mcp_tool_free)

/* {name, exposedName, title?, description, inputSchema, outputSchema?,
 *  annotations?, nameNote?} */
JsonNode   *prs_mcp_tool_to_json       (const PrsMcpTool  *tool);

/* A tools/call result as one JSON object for the model and the tool card:
 * {"text": the text blocks joined by blank lines (left out when it only
 * repeats structuredContent), "structured": structuredContent,
 * "attachments": [{type, mimeType?, uri?, name?, text?, bytes?}] for
 * images, audio and resources (never their base64 data)}; members only when
 * present. A result with isError fails with PRS_ERROR_MCP_TOOL_FAILED and
 * the server's text as the message. */
JsonNode   *prs_mcp_call_result_to_json (JsonObject       *result,
                                         GError          **error);

G_END_DECLS
