/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-markdown-text.h: plain text out of Markdown, through md4c. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The plain text of @markdown: emphasis markers, code ticks and link
 * syntax removed (a link keeps its text), images and raw HTML dropped, a
 * table's cells apart by a space, line breaks and runs of white space
 * folded into single spaces, trimmed. */
char *prs_markdown_to_plain_text      (const char *markdown,
                                       gssize      len);

/* The text a reader of @markdown sees, laid out: paragraphs and blocks
 * apart by a blank line, lines kept, list items as "• " or "1. ", table
 * cells with " | ", a link's text followed by its address in
 * parentheses (unless the text is the address), images and raw HTML
 * dropped. For copying a reply as plain text. */
char *prs_markdown_to_text            (const char *markdown,
                                       gssize      len);

/* A Sticky Note's first paragraph (docs/workflows.md): skip leading blank lines and
 * heading lines, take the lines up to the next blank line, strip Markdown,
 * join with single spaces. NULL when that leaves nothing. */
char *prs_markdown_first_paragraph    (const char *markdown);

G_END_DECLS
