/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-context-private.h: shared by prs-context.c and prs-guidance.c. */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* Appends the compact JSON of @node to @out, stopping soon after @out
 * reaches @limit bytes (G_MAXSIZE: the whole text). Unlike json-glib's
 * generator, numbers are written in their shortest exact form (0.1, not
 * 0.10000000000000001). Recursion: one level per nesting level of @node. */
void prs_json_append_compact (GString  *out,
                              JsonNode *node,
                              gsize     limit);

G_END_DECLS
