/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-context.h: the Request Context of an inbound message (docs/conversations.md): its
 * openLink, the field paths it offers for parameter mapping, and looking a
 * mapped field up again at run time. */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* The URL schemes an openLink may use unless the setting says otherwise,
 * space-separated as the setting stores them. */
#define PRS_CONTEXT_DEFAULT_LINK_SCHEMES "http https mailto message ms-outlook slack"

/* Field discovery bounds (docs/conversations.md and hostile input). */
#define PRS_CONTEXT_MAX_LEVELS         4     /* a.b.c.d */
#define PRS_CONTEXT_MAX_ARRAY_NESTING  4     /* m[][][][] */
#define PRS_CONTEXT_MAX_ELEMENTS       100   /* elements of one array examined */
#define PRS_CONTEXT_MAX_FIELDS         2000  /* paths per context */
#define PRS_CONTEXT_MAX_SAMPLE_CHARS   80

/* The default allowlist as a NULL-terminated vector (static, do not free). */
const char * const *prs_context_get_default_link_schemes (void);

/* TRUE when context.openLink is an object whose "url" and "label" are both
 * strings that are not empty (nor only white space) and the URL's scheme is
 * in @allowed_schemes (NULL: the default list; compared case-insensitively).
 * Otherwise FALSE, silently, and the out arguments are left alone. */
gboolean   prs_context_get_open_link   (JsonObject          *context,
                                        const char * const  *allowed_schemes,
                                        char               **url,
                                        char               **label);

typedef struct
{
  char *path;    /* "a.b", "items[].name", "m[][]" */
  char *type;    /* "string", "number", "boolean", "object", "array", "null" */
  char *sample;  /* ≤ 80 characters: the text of a string, the JSON of anything else */
} PrsContextField;

void             prs_context_field_free  (PrsContextField *field);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrsContextField, prs_context_field_free)

/* The field paths of @context (an object; anything else has none), in the
 * order they first appear, as PrsContextField*:
 *
 * - `a` is level 1, `a.b` level 2, … `a.b.c.d` level 4; deeper members are
 *   not recorded (an object at level 4 is, without its members).
 * - An array is recorded as `items[]` (type "array", its JSON as sample);
 *   objects inside continue as `items[].name` and arrays inside as
 *   `items[][]`: the brackets add no level. At most 4 bracket pairs in a
 *   path; deeper arrays of arrays are not recorded.
 * - The paths under an array are the union over its first 100 elements; when
 *   elements disagree, the first non-null value gives the type and sample.
 * - Keys are kept as they are, also when they contain dots or brackets (the
 *   path is then ambiguous to read, but nothing is lost or invented).
 * - At most 2,000 paths per context; the rest are not recorded.
 *
 * Samples are cut at 80 characters (79 and “…”), never inside a UTF-8
 * sequence. */
GPtrArray  *prs_context_discover_fields (JsonNode     *context);

/* The discovered fields as [{path, type, sample}]. */
JsonNode   *prs_context_fields_to_json  (GPtrArray    *fields);

/* The value at @path in @context, or NULL when it is missing or JSON null.
 * @path is dotted (`a.b.c`); a key that itself contains dots is found too
 * (the longest key that matches wins). A last segment `items[]` names the
 * array itself; brackets elsewhere match nothing, since they stand for every
 * element rather than one value. Borrowed from @context. */
JsonNode   *prs_context_lookup          (JsonObject   *context,
                                         const char   *path);

G_END_DECLS
