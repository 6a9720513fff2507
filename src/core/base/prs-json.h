/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-json.h: parsing untrusted JSON safely. json-glib's parser recurses
 * once per nesting level, so depth is checked before it runs. */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define PRS_JSON_DEFAULT_MAX_DEPTH 256

/* The deepest nesting of arrays and objects in @data, strings skipped;
 * stops counting past @limit (returns @limit + 1). */
guint     prs_json_nesting_depth  (const char  *data,
                                   gsize        len,
                                   guint        limit);

/* Parses @data (UTF-8 checked) into a node, failing with
 * PRS_ERROR_INVALID_INPUT and a sentence when it is not valid JSON, not
 * UTF-8, or nested deeper than @max_depth. */
JsonNode *prs_json_parse_bounded  (const char  *data,
                                   gsize        len,
                                   guint        max_depth,
                                   GError     **error);

/* TRUE when @s is exactly one JSON text per RFC 8259 (no comments, single
 * quotes, bare keys or trailing commas, which json-glib tolerates). */
gboolean  prs_json_text_is_strict (const char  *s,
                                   gsize        n);

/* Compact or pretty text of @node. */
char     *prs_json_to_string      (JsonNode    *node,
                                   gboolean     pretty);

G_END_DECLS
