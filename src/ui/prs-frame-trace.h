/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-frame-trace.h: first-paint timing from the app itself. With
 * PROSPONSIVE_TRACE_FRAMES=1 in the environment, an action marked with
 * prs_frame_trace_begin() prints `TRACE <what> <ms>` on stdout once the
 * widget's frame clock has painted the first frame after it. Off: nothing
 * is connected and nothing is printed. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

gboolean prs_frame_trace_enabled (void);
/* @what: a static string naming the action ("first-frame" after selecting
 * a conversation, "window-first-frame" after presenting the window). */
void     prs_frame_trace_begin   (GtkWidget  *widget,
                                  const char *what);

G_END_DECLS
