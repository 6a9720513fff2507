/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-js-scan.h: the Code-node parameter scanner (docs/workflows.md "Parameters").
 *
 * A small JavaScript tokenizer (not regular expressions over raw text):
 * comments, string literals, template literals and regular-expression
 * literals are skipped as whole tokens, so nothing inside them ever matches.
 */
#pragma once

#include <json-glib/json-glib.h>

#include "prs-param.h"

G_BEGIN_DECLS

/* Accumulates parameters over several Code nodes, applying the merge rules:
 * the first occurrence (node order, then text order) gives type and default;
 * a parameter is required only if no occurrence is an optional form; the
 * order is the order of first occurrence. */
typedef struct _PrsParamSet PrsParamSet;

PrsParamSet *prs_param_set_new         (void);
void         prs_param_set_free        (PrsParamSet  *self);
/* Scans one Code node's JavaScript. @len may be -1 for NUL-terminated text.
 * Returns the number of recognised forms in this text (0 when none). */
guint        prs_param_set_scan        (PrsParamSet  *self,
                                        const char   *code,
                                        gssize        len);
/* The parameters so far, in order. Elements are PrsParam*, owned by the set. */
GPtrArray   *prs_param_set_get_params  (PrsParamSet  *self);
/* TRUE when the scanned code reads more than PRS_TOOL_MAX_PARAMS
 * parameters: only the first ones were kept. */
gboolean     prs_param_set_overflowed  (PrsParamSet  *self);
/* Takes the parameters so far out of the set (which starts empty again):
 * PrsParam*, in order, freed with the array. */
GPtrArray   *prs_param_set_steal_params (PrsParamSet *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrsParamSet, prs_param_set_free)

G_END_DECLS
