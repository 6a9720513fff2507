/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-invisible.h: text hygiene for whatever reaches a model from outside
 * (a prompt, the Request Context, a tool's result or description):
 * characters a person cannot see but a model reads are removed, so that
 * nobody can hide instructions in them. Pure functions, callable from any
 * thread. */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* Removes invisible characters (tags U+E0000–E007F, U+200B–U+200D, U+2060,
 * U+FEFF) from @text; a new string (NULL for NULL; text that is not UTF-8
 * is made valid first). */
char     *prs_strip_invisible      (const char *text);
/* The same on every string (keys and values) of @node: a new tree. */
JsonNode *prs_strip_invisible_json (JsonNode   *node);

G_END_DECLS
