/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-param.h: a tool parameter: its name, type, requiredness, default and
 * wording (docs/workflows.md, "Parameters"). The Code-node scanner finds
 * them; tools carry them. */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

typedef enum
{
  PRS_PARAM_STRING,
  PRS_PARAM_NUMBER,
  PRS_PARAM_BOOLEAN,
  PRS_PARAM_ARRAY,
  PRS_PARAM_OBJECT,
} PrsParamType;

/* The most parameters a tool takes. A tool that a person or a model fills
 * in has a handful; past a few hundred no model reads the schema, and a
 * Code node of millions of reads (a generated file) would otherwise cost
 * gigabytes. A workflow reading more is not discoverable, and the
 * checklist says why. */
#define PRS_TOOL_MAX_PARAMS 256

typedef struct
{
  char         *name;           /* the KEY, a JavaScript identifier */
  PrsParamType  type;
  gboolean      required;
  JsonNode     *default_value;  /* NULL when the parameter has no default */
  char         *description;    /* "The max results" */
} PrsParam;

PrsParam    *prs_param_new             (const char   *name,
                                        PrsParamType  type,
                                        gboolean      required,
                                        JsonNode     *default_value);
PrsParam    *prs_param_copy            (const PrsParam *param);
void         prs_param_free            (PrsParam     *param);
const char  *prs_param_type_to_string  (PrsParamType  type);
gboolean     prs_param_type_from_string (const char  *str,
                                        PrsParamType *out_type);
char        *prs_param_describe        (const char   *key);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrsParam, prs_param_free)

G_END_DECLS
