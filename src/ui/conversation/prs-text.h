/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-text.h: text widgets with bounded cost. A GtkLabel with a megabyte
 * of text blocks the main loop for seconds, so long text goes into a
 * non-editable GtkTextView instead. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Text up to this many bytes goes into a GtkLabel. */
#define PRS_TEXT_LABEL_MAX_BYTES 8192
/* Longer text scrolls in a text view this many pixels tall. */
#define PRS_TEXT_VIEW_HEIGHT     480

/* Pango markup for @text (escaped), with every URL whose scheme is allowed
 * made a link (http(s)://…, mailto:…, www.…). */
char      *prs_text_linkify_markup  (const char *text,
                                     gssize      len);
/* A wrapping, selectable label, or a GtkTextView above the bound. Links are
 * opened through prs_launcher_open_uri (). */
GtkWidget *prs_text_new             (const char *text,
                                     gboolean    linkify);
/* A label with markup whose links go through the launcher. */
GtkWidget *prs_text_label_new_markup (const char *markup);

/* The narrowest a wrapping block of text asks to be, in characters
 * (prs_text_label_set_min_chars) */
#define PRS_TEXT_MIN_CHARS       12

/* Gives @label, which wraps, a minimum width of PRS_TEXT_MIN_CHARS
 * characters. GtkLabel finds a wrapping label's minimum width by laying its
 * text out at its width-chars (none: 0 pixels), and at 0 Pango breaks a
 * paragraph at every character, a line each: 2.2 ms for 400 characters,
 * and every height asked of the label asks that first. A label's natural
 * width is at least its width-chars too, so when @keep_natural only a
 * label whose text is wider than twice that on one line gets it: a short
 * message's bubble stays as narrow as its text; that is decided when
 * @label is in its window, with the font it is drawn with. */
void       prs_text_label_set_min_chars (GtkLabel *label,
                                         gboolean  keep_natural);

/* Names, JSON and code break anywhere when narrow, but with no hyphen
 * added at the break (Pango adds one inside a word): "email_mov-e_to_fold-er"
 * reads as another name, "ex-ample.org" as another address. */
void       prs_text_label_no_hyphens (GtkLabel   *label);
/* The same for the whole text @view holds now. */
void       prs_text_view_no_hyphens  (GtkTextView *view);

G_END_DECLS
