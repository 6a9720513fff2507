/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-markdown-view.h: a text block of a reply rendered from Markdown with
 * md4c (docs/layout.md): paragraphs, emphasis, lists, headings, code, tables,
 * links. Remote images are never fetched: their alt text is shown. Long
 * text is shown as plain text in a bounded GtkTextView instead. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Markdown above this many bytes is shown as plain text. */
#define PRS_MARKDOWN_VIEW_MAX_BYTES  16384
/* …and so is Markdown that would need more widgets than this. */
#define PRS_MARKDOWN_VIEW_MAX_BLOCKS 300

#define PRS_TYPE_MARKDOWN_VIEW (prs_markdown_view_get_type ())
G_DECLARE_FINAL_TYPE (PrsMarkdownView, prs_markdown_view, PRS, MARKDOWN_VIEW, GtkWidget)

GtkWidget *prs_markdown_view_new         (const char      *markdown);
/* TRUE when the text was rendered as Markdown (not the plain fallback). */
gboolean   prs_markdown_view_is_rendered (PrsMarkdownView *self);

G_END_DECLS
