/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-markdown-text.h: plain text out of Markdown, through md4c. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* md4c's flags (md4c.h) for every reading of a reply: the conversation's
 * view (prs-markdown-view.c) and the text read here, so that a search
 * snippet or a copied reply reads what the view shows. GitHub's dialect
 * (tables, strikethrough, task lists, bare URLs, www. and e-mail
 * addresses as links); no raw HTML, which shows as the text it is. */
#define PRS_MARKDOWN_FLAGS (MD_DIALECT_GITHUB | MD_FLAG_NOHTML)

/* The plain text of @markdown: emphasis markers, code ticks and link
 * syntax removed (a link keeps its text), images dropped, raw HTML kept
 * as its text, a task list item's box as "☐ " or "☑ ", a
 * table's cells apart by a space, line breaks and runs of white space
 * folded into single spaces, trimmed. */
char *prs_markdown_to_plain_text      (const char *markdown,
                                       gssize      len);

/* The text a reader of @markdown sees, laid out: paragraphs and blocks
 * apart by a blank line, lines kept, list items as "• ", "1. ", or a
 * task's "☐ " or "☑ ", table cells with " | ", a link's text followed by
 * its address in parentheses (unless the text is the address, also as a
 * bare www. or e-mail address reads), images dropped, raw HTML kept as
 * its text. For copying a reply as plain text. */
char *prs_markdown_to_text            (const char *markdown,
                                       gssize      len);

/* A Sticky Note's first paragraph (docs/workflows.md): skip leading blank lines and
 * heading lines, take the lines up to the next blank line, strip Markdown
 * and raw HTML's tags (which n8n shows as markup), join with single spaces. NULL when that leaves nothing. */
char *prs_markdown_first_paragraph    (const char *markdown);

G_END_DECLS
