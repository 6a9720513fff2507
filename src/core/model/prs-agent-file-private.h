/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-agent-file-private.h: what reading and writing agent files share. */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* The JSON value a plain (unquoted, untagged) YAML scalar reads as */
JsonNode *prs_agent_file_resolve_plain (const char *text);

G_END_DECLS
