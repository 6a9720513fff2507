/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-guidance.h: Tool Parameter Guidance (docs/agents.md): where each parameter
 * of a tool comes from, the text block that tells the model, and binding the
 * mapped values into a tool call at run time. */
#pragma once

#include <json-glib/json-glib.h>

#include "prs-tool.h"

G_BEGIN_DECLS

typedef enum
{
  PRS_GUIDANCE_SOURCE_CONTEXT,   /* a Request Context field */
  PRS_GUIDANCE_SOURCE_CONSTANT,
  PRS_GUIDANCE_SOURCE_ASK,       /* ask the user */
  PRS_GUIDANCE_SOURCE_MODEL,     /* let the AI decide: no guidance line */
} PrsGuidanceSource;

typedef enum
{
  PRS_GUIDANCE_IF_MISSING_ASK,
  PRS_GUIDANCE_IF_MISSING_DEFAULT,
} PrsGuidanceIfMissing;

typedef struct
{
  char                 *param;
  PrsGuidanceSource     source;
  char                 *field;       /* CONTEXT: the field path, e.g. "uid" or "message.uid" */
  PrsGuidanceIfMissing  if_missing;  /* CONTEXT */
  JsonNode             *value;       /* CONSTANT: any JSON value, null included */
} PrsParamGuidance;

typedef struct
{
  char      *tool;
  GPtrArray *params;                 /* PrsParamGuidance*, in the order they were set */
} PrsToolGuidance;

/* An agent's guidance is a GPtrArray of PrsToolGuidance*, in the agent's
 * order: prs_guidance_new() makes an empty one that frees its elements. */

const char       *prs_guidance_source_to_string      (PrsGuidanceSource      source);
gboolean          prs_guidance_source_from_string    (const char            *str,
                                                      PrsGuidanceSource     *out_source);
const char       *prs_guidance_if_missing_to_string  (PrsGuidanceIfMissing   if_missing);
gboolean          prs_guidance_if_missing_from_string (const char           *str,
                                                      PrsGuidanceIfMissing  *out_if_missing);

PrsParamGuidance *prs_param_guidance_new_context     (const char            *param,
                                                      const char            *field,
                                                      PrsGuidanceIfMissing   if_missing);
/* @value is copied; NULL means JSON null. */
PrsParamGuidance *prs_param_guidance_new_constant    (const char            *param,
                                                      JsonNode              *value);
PrsParamGuidance *prs_param_guidance_new_ask         (const char            *param);
PrsParamGuidance *prs_param_guidance_new_model       (const char            *param);
PrsParamGuidance *prs_param_guidance_copy            (const PrsParamGuidance *guidance);
void              prs_param_guidance_free            (PrsParamGuidance      *guidance);

PrsToolGuidance  *prs_tool_guidance_new              (const char            *tool);
PrsToolGuidance  *prs_tool_guidance_copy             (const PrsToolGuidance *guidance);
void              prs_tool_guidance_free             (PrsToolGuidance       *guidance);
/* Replaces the entry of the same parameter in place, or appends; takes
 * @param. */
void              prs_tool_guidance_set_param        (PrsToolGuidance       *guidance,
                                                      PrsParamGuidance      *param);
const PrsParamGuidance *prs_tool_guidance_find_param (const PrsToolGuidance *guidance,
                                                      const char            *param);

GPtrArray        *prs_guidance_new                   (void);
GPtrArray        *prs_guidance_copy                  (GPtrArray             *guidance);
PrsToolGuidance  *prs_guidance_find_tool             (GPtrArray             *guidance,
                                                      const char            *tool);
/* The tool's entry, appended when there is none yet. */
PrsToolGuidance  *prs_guidance_ensure_tool           (GPtrArray             *guidance,
                                                      const char            *tool);

/* {tool: {param: {source, field?, ifMissing?, value?}}}, in order. The same
 * shape as the front matter's toolParameterGuidance. */
JsonNode         *prs_guidance_to_json               (GPtrArray             *guidance);
/* Reads it back, failing with PRS_ERROR_INVALID_INPUT and a sentence that
 * names the tool and parameter at fault. */
GPtrArray        *prs_guidance_new_from_json         (JsonNode              *node,
                                                      GError               **error);

/* One guidance line for @param (no newline), or NULL when there is none
 * (the AI decides). @tool_param gives the default (may be NULL). */
char             *prs_guidance_build_line            (const PrsParamGuidance *param,
                                                      const PrsParam        *tool_param);
/* The "When using the **T** tool:" paragraph of one tool, ending with a
 * newline, or NULL when it has no line. @tool is the discovered tool, or
 * NULL when it is not discovered (then no Purpose line, and the guidance's
 * own order). Parameters of the guidance that the tool no longer has follow
 * the tool's own, in the guidance's order. */
char             *prs_guidance_build_tool_text       (const PrsToolGuidance *guidance,
                                                      const PrsTool         *tool);
/* The whole block: "## Tool Parameter Guidance\n" and the paragraphs,
 * separated by blank lines, ending with a newline; "" when no tool has a
 * line. @tools are the discovered PrsTool* (may be NULL). */
char             *prs_guidance_build_text            (GPtrArray             *guidance,
                                                      GPtrArray             *tools);

#define PRS_GUIDANCE_HEADING "## Tool Parameter Guidance"

/* Run-time binding (docs/agents.md): the final arguments of a call to @tool.
 * Starting from @model_arguments (may be NULL):
 * - a context-mapped parameter whose field @context has (not null) is set
 *   from the context: provenance "context:FIELD";
 * - a constant is set: "constant";
 * - a context-mapped parameter whose field is missing, with fallback
 *   "default", that the model did not send either, gets the tool's default
 *   when it has one: "default";
 * - everything else keeps the model's value: "model".
 * @out_provenance (may be NULL) receives {param: provenance} for every
 * argument of the result. @guidance and @tool may be NULL. */
JsonObject       *prs_guidance_bind                  (const PrsToolGuidance *guidance,
                                                      const PrsTool         *tool,
                                                      JsonObject            *context,
                                                      JsonObject            *model_arguments,
                                                      JsonObject           **out_provenance);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrsParamGuidance, prs_param_guidance_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrsToolGuidance, prs_tool_guidance_free)

G_END_DECLS
