/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-markdown-view.h: a text block of a reply rendered from Markdown with
 * md4c (docs/layout.md): paragraphs, emphasis, lists, headings, code, tables,
 * links. Remote images are never fetched: their alt text is shown. Text
 * past the bounds below is shown as plain text in a GtkTextView instead. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Markdown above this many bytes is shown as plain text. Each block is its
 * own label (none over PRS_TEXT_LABEL_MAX_BYTES), but opening a conversation
 * still lays out every bound row's text: a 20 KiB reply costs half a second
 * to a second of the main thread on the 2-core machine (docs/conversations.md,
 * "Long replies"; bench/run --only scroll-long-replies). */
#define PRS_MARKDOWN_VIEW_MAX_BYTES  (32 * 1024)
/* …and so is Markdown that would need more widgets than this. */
#define PRS_MARKDOWN_VIEW_MAX_BLOCKS 300

#define PRS_TYPE_MARKDOWN_VIEW (prs_markdown_view_get_type ())
G_DECLARE_FINAL_TYPE (PrsMarkdownView, prs_markdown_view, PRS, MARKDOWN_VIEW, GtkWidget)

GtkWidget *prs_markdown_view_new         (const char      *markdown);
/* TRUE when the text was rendered as Markdown (not the plain fallback). */
gboolean   prs_markdown_view_is_rendered (PrsMarkdownView *self);

G_END_DECLS
