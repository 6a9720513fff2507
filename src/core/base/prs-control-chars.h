/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-control-chars.h: control characters in text that came from outside
 * (a workflow, a file, a command line). A name a person approves from is
 * refused when it has any (it must be one line); text printed to a
 * terminal has them blanked, so that nobody can redraw, recolour or write
 * the clipboard through it (docs/ctl.md "Text output"); text of white
 * space alone says nothing. Pure functions, callable from any thread. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* A Unicode control character (category Cc: C0, DEL and C1, which
 * terminals read as escapes) */
gboolean  prs_unichar_is_control  (gunichar    c);
/* TRUE when @text is UTF-8 with no control character and no line or
 * paragraph separator (U+2028, U+2029): it shows as one line. */
gboolean  prs_text_is_one_line    (const char *text);
/* TRUE when @text is empty once trimmed as g_strstrip () trims (ASCII
 * white space): a blank prompt or link label (docs/api.md). */
gboolean  prs_text_is_blank       (const char *text);
/* @text (@length bytes, or -1) with each control character replaced by a
 * space; with @keep_lines, tab and line feed stay. Text that is not UTF-8
 * is made valid first. A new string. */
char     *prs_text_blank_controls (const char *text,
                                   gssize      length,
                                   gboolean    keep_lines);

/* This program's g_print () and g_printerr () print with each control
 * character blanked (tab and line feed stay), in the console's charset:
 * what a command-line program prints of a workflow's or a file's text
 * cannot redraw a terminal (docs/ctl.md "Text output"). Once, in main (). */
void      prs_text_blank_printed  (void);

G_END_DECLS
