/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-json.h: JSON in and out. Parsing untrusted JSON safely (json-glib's
 * parser recurses once per nesting level, so depth is checked before it
 * runs; it is also lenient and lossy, so contracts check strictly first),
 * and the one writer of JSON text. */
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
 * UTF-8, or nested deeper than @max_depth. The nodes are sealed
 * (immutable): cheap to keep and share. */
JsonNode *prs_json_parse_bounded  (const char  *data,
                                   gsize        len,
                                   guint        max_depth,
                                   GError     **error);

/* prs_json_parse_bounded for a tree the caller changes afterwards (json-glib
 * refuses to change a sealed node): the secrets file, values a person
 * edits. */
JsonNode *prs_json_parse_mutable  (const char  *data,
                                   gsize        len,
                                   guint        max_depth,
                                   GError     **error);

/* TRUE when @s is exactly one JSON text per RFC 8259 (no comments, single
 * quotes, bare keys or trailing commas, which json-glib tolerates). */
gboolean  prs_json_text_is_strict (const char  *s,
                                   gsize        n);

/* Parses @data only when it is one strict JSON text (RFC 8259), valid
 * UTF-8, nested at most @max_depth deep, and json-glib can hold everything
 * it says: no U+0000 in a string (json-glib's strings end there), no lone
 * surrogate escape, and every number kept exactly — integers within 64
 * bits, and any other number whose nearest double writes back as the same
 * value (0.1, 1e300, 18446744073709552000; not 1e999 or 30-digit
 * integers). Otherwise fails with PRS_ERROR_INVALID_INPUT and an English
 * sentence fragment for an API answer, naming the problem and its byte. */
JsonNode *prs_json_parse_strict   (const char  *data,
                                   gsize        len,
                                   guint        max_depth,
                                   GError     **error);

typedef enum
{
  PRS_JSON_COMPACT = 0,
  PRS_JSON_PRETTY  = 1 << 0,   /* two-space indent, "name" : value */
  PRS_JSON_SORTED  = 1 << 1,   /* members by name: a canonical text for comparing */
} PrsJsonFormat;

/* Appends the JSON text of @node to @out, stopping soon after @out reaches
 * @limit bytes (G_MAXSIZE: the whole text). Every control character, DEL,
 * U+2028 and U+2029 is escaped, bytes that are not UTF-8 become U+FFFD,
 * numbers are written in their shortest exact form (0.1), and a double
 * that is not finite becomes null. Recursion: one level per nesting level
 * of @node. */
void      prs_json_append         (GString       *out,
                                   JsonNode      *node,
                                   PrsJsonFormat  format,
                                   gsize          limit);

/* Compact or pretty text of @node (prs_json_append, whole); "null" for
 * NULL. */
char     *prs_json_to_string      (JsonNode    *node,
                                   gboolean     pretty);

/* The canonical text of @node, for comparing and hashing: members sorted
 * by name, no white space, numbers in their shortest exact form, "null"
 * for NULL. Two trees that differ only in member order give one text. */
char     *prs_json_to_canonical_string (JsonNode *node);

/* What a person reads for @node: a string's own text (no quotes, no
 * escapes), anything else as its JSON (pretty or compact), "null" for
 * NULL. */
char     *prs_json_to_display_string (JsonNode *node,
                                      gboolean  pretty);

/* Appends @text as a JSON string, quoted and escaped as prs_json_append
 * writes strings (for writers that build JSON text row by row). */
void      prs_json_append_string  (GString     *out,
                                   const char  *text);
/* The same without the quotes: the inside of a JSON string (the
 * escaping of a concatenation is the concatenation of the escapings, when
 * each piece is whole UTF-8 characters) */
void      prs_json_append_escaped (GString     *out,
                                   const char  *text);

/* ---- Reading and building trees ---- */

/* Type-checked reads of untrusted objects: @object's member @member when it
 * has the type asked for; otherwise (absent, another type, or @object
 * NULL) NULL or @default_value. json-glib's own *_with_default getters
 * convert between types and warn on arrays and objects. */
const char  *prs_json_object_get_string (JsonObject *object,
                                         const char *member);
gboolean     prs_json_object_get_bool   (JsonObject *object,
                                         const char *member,
                                         gboolean    default_value);
JsonObject  *prs_json_object_get_object (JsonObject *object,
                                         const char *member);
JsonArray   *prs_json_object_get_array  (JsonObject *object,
                                         const char *member);
/* An integer member; a double with an integral value in range counts too
 * (some peers write counts as 12.0). */
gint64       prs_json_object_get_int    (JsonObject *object,
                                         const char *member,
                                         gint64      default_value);
/* @node's object, or NULL when @node is NULL or holds something else. */
JsonObject  *prs_json_node_get_object   (JsonNode   *node);

/* The object parsed from @text (bounded depth), or NULL when @text is not
 * a JSON object. */
JsonObject  *prs_json_object_from_text  (const char *text,
                                         gsize       len);
/* @text as JSON when it parses (bounded depth), else as a JSON string: a
 * tool's answer for peers that want a value. */
JsonNode    *prs_json_value_from_text   (const char *text);
/* prs_json_to_string of an object. */
char        *prs_json_object_to_string  (JsonObject *object,
                                         gboolean    pretty);

/* Sets @member of the object @builder is building to @value, or to null
 * when @value is NULL. */
void         prs_json_builder_add_string_member (JsonBuilder *builder,
                                                 const char  *member,
                                                 const char  *value);

G_END_DECLS
