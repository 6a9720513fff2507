/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-agent.h: an agent (docs/agents.md): who answers, with which tools, and where
 * the tools' parameters come from. A plain struct like PrsTool; the store
 * keeps them (prs_store_*_agent) and prs-agent-file reads and writes them
 * as Markdown. */
#pragma once

#include <json-glib/json-glib.h>

#include "prs-guidance.h"

G_BEGIN_DECLS

/* The default agent, created by the first migration; it cannot be deleted. */
#define PRS_AGENT_DEFAULT_ID "prosponsive"
#define PRS_AGENT_ID_MAX_LEN 64

typedef struct
{
  char       *id;              /* slug: [a-z0-9][a-z0-9-]{0,63} */
  char       *name;
  char       *description;     /* never NULL; may be "" */
  char       *system_prompt;   /* never NULL; may be "" */
  GStrv       allowed_tools;   /* tool names; NULL means every tool */
  GPtrArray  *guidance;        /* PrsToolGuidance*, never NULL */
  JsonObject *extra;           /* front matter keys this version does not know; never NULL */
  char       *created_at;      /* ISO 8601, set by the store; NULL before */
  char       *updated_at;
} PrsAgent;

PrsAgent   *prs_agent_new                 (const char      *id,
                                           const char      *name);
PrsAgent   *prs_agent_copy                (const PrsAgent  *agent);
void        prs_agent_free                (PrsAgent        *agent);

/* 1–64 characters of a-z, 0-9 and '-', starting with a letter or digit. */
gboolean    prs_agent_id_is_valid         (const char      *id);
/* A valid id made from @name ("Executive Assistant" → "executive-assistant");
 * "agent" when nothing is left. */
char       *prs_agent_make_id             (const char      *name);
/* The longest name an agent may have, in characters (docs/agents.md) */
#define PRS_AGENT_MAX_NAME_CHARS 200

/* The id, the name (not blank; one line of at most PRS_AGENT_MAX_NAME_CHARS
 * characters without control characters) and the tool names (not empty):
 * what the store checks before saving, so every way in (import, the editor,
 * prosponsive-ctl) refuses the same. PRS_ERROR_INVALID_INPUT with a sentence. */
gboolean    prs_agent_validate            (const PrsAgent  *agent,
                                           GError         **error);

gboolean    prs_agent_allows_tool         (const PrsAgent  *agent,
                                           const char      *tool);
/* The prompt a run uses: the system prompt, then the guidance block
 * (docs/agents.md) built against @tools (the discovered PrsTool*, may be
 * NULL). */
char       *prs_agent_build_effective_prompt (const PrsAgent *agent,
                                           GPtrArray       *tools);

/* {id, name, description, systemPrompt, allowedTools: [..]|"all",
 *  toolParameterGuidance, extra, createdAt, updatedAt} */
JsonNode   *prs_agent_to_json             (const PrsAgent  *agent);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrsAgent, prs_agent_free)

G_END_DECLS
