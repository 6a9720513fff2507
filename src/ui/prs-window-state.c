/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-window-state.c: the main window's size and maximized state across
 * runs, the way GNOME Text Editor keeps its own: the size is the window's
 * default size (which follows the user's resizing while it is not
 * maximized), read back when it closes. Quit destroys windows without a
 * close request, so unrealize saves too. */
#include "config.h"

#include "prs-window-state.h"

static void
save_state (GtkWindow   *window,
            PrsSettings *settings)
{
  gboolean maximized = gtk_window_is_maximized (window);
  int width = 0;
  int height = 0;

  if (g_object_get_data (G_OBJECT (window), "prs-state-saved") != NULL)
    return;
  g_object_set_data (G_OBJECT (window), "prs-state-saved", GINT_TO_POINTER (TRUE));

  /* The size it comes back to when no longer maximized */
  g_object_set (settings, "window-maximized", maximized, NULL);
  if (maximized)
    return;
  gtk_window_get_default_size (window, &width, &height);
  if (width > 0 && height > 0)
    g_object_set (settings,
                  "window-width", MAX (width, 360),
                  "window-height", MAX (height, 294),
                  NULL);
}

static gboolean
on_close_request (GtkWindow   *window,
                  PrsSettings *settings)
{
  save_state (window, settings);
  return FALSE;
}

static void
on_unrealize (GtkWidget   *widget,
              PrsSettings *settings)
{
  save_state (GTK_WINDOW (widget), settings);
}

static void
on_map (GtkWidget *widget,
        gpointer   data)
{
  /* Shown again after a close (kept running in the background): the next
   * close saves again */
  g_object_set_data (G_OBJECT (widget), "prs-state-saved", NULL);
}

void
prs_window_state_bind (GtkWindow   *window,
                       PrsSettings *settings)
{
  int width = 0;
  int height = 0;
  gboolean maximized = FALSE;

  g_return_if_fail (GTK_IS_WINDOW (window));
  g_return_if_fail (PRS_IS_SETTINGS (settings));

  g_object_get (settings,
                "window-width", &width,
                "window-height", &height,
                "window-maximized", &maximized,
                NULL);
  gtk_window_set_default_size (window, width, height);
  if (maximized)
    gtk_window_maximize (window);

  g_signal_connect_object (window, "close-request", G_CALLBACK (on_close_request), settings, 0);
  g_signal_connect_object (window, "unrealize", G_CALLBACK (on_unrealize), settings, 0);
  g_signal_connect (window, "map", G_CALLBACK (on_map), NULL);
}
