/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-agent-file.h: agents as Markdown files with YAML front matter, the
 * format of the Electron product's agent files (docs/agents.md):
 *
 *   ---
 *   id: executive-assistant
 *   name: Executive Assistant
 *   description: Triage of incoming mail
 *   allowedTools:            # or: allowedTools: all
 *     - email_move_to_folder
 *   toolParameterGuidance:
 *     email_move_to_folder:
 *       uid:
 *         source: context    # context | constant | ask | model
 *         field: uid
 *         ifMissing: ask     # ask | default
 *       destination:
 *         source: ask
 *   ---
 *
 *   The system prompt, in Markdown.
 *
 *   ## Tool Parameter Guidance
 *   …generated from toolParameterGuidance…
 */
#pragma once

#include <gio/gio.h>

#include "prs-agent.h"

G_BEGIN_DECLS

/* Limits of an agent file, far above anything written by hand or
 * exported (a long prompt is a few KiB; an agent offers a model a few
 * dozen tools): a file past them is refused with a sentence naming the
 * limit, before any work proportional to its size. */
#define PRS_AGENT_FILE_MAX_BYTES ((gsize) 1024 * 1024)
#define PRS_AGENT_FILE_MAX_TOOLS 1000

/* Reads an agent file (UTF-8; CRLF or LF line ends; a BOM is skipped).
 *
 * The front matter is the source of truth: a "## Tool Parameter Guidance"
 * section of the body that reads exactly like generated guidance is dropped
 * from the system prompt. When the front matter has no
 * toolParameterGuidance, that section is read back into guidance instead
 * (files whose users pasted the block by hand). Keys the front matter may
 * have beyond id, name, description, allowedTools and toolParameterGuidance
 * land in agent->extra, in order, and are written back on export. A missing
 * name is the id; a missing allowedTools means all tools.
 *
 * Errors (PRS_ERROR_INVALID_INPUT) are one sentence naming the line: no
 * front matter, no closing "---", YAML syntax, wrong types, a bad id,
 * duplicate keys, aliases, more than PRS_AGENT_FILE_MAX_TOOLS tools (in
 * allowedTools or the guidance) or PRS_TOOL_MAX_PARAMS parameters of one
 * tool. A text over PRS_AGENT_FILE_MAX_BYTES fails with
 * PRS_ERROR_TOO_LARGE. */
PrsAgent *prs_agent_file_parse (const char      *text,
                                gssize           length,
                                GError         **error);

/* Reads and parses @file, reading no more than PRS_AGENT_FILE_MAX_BYTES
 * (a bigger file fails with PRS_ERROR_TOO_LARGE, its size named). */
PrsAgent *prs_agent_file_load  (GFile           *file,
                                GError         **error);

/* The file of @agent: front matter written with libyaml's emitter (strings
 * quoted whenever reading them back could change them), a blank line, the
 * system prompt, a blank line and the generated guidance block built
 * against @tools (discovered PrsTool*, may be NULL). LF line ends.
 * Reading the result and writing it again gives the same bytes. */
char     *prs_agent_file_write (const PrsAgent  *agent,
                                GPtrArray       *tools,
                                GError         **error);

G_END_DECLS
