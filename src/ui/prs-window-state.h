/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-window-state.h: the main window's size and maximized state,
 * remembered in the window-width, window-height and window-maximized
 * settings: restored when a window opens, saved when it closes. */
#pragma once

#include <gtk/gtk.h>

#include "prs-settings.h"

G_BEGIN_DECLS

/* Gives @window (not yet shown) the remembered size and state, and saves
 * them into @settings when it closes. */
void prs_window_state_bind (GtkWindow   *window,
                            PrsSettings *settings);

G_END_DECLS
