/* SPDX-License-Identifier: GPL-3.0-or-later */
/* bench-bare-window: the idle-rss and startup baseline, a bare GTK 4 +
 * libadwaita window (header bar, a label) of the same size; prints
 * "FIRST-FRAME <monotonic µs>" at its first painted frame and "RSS <kB>"
 * after its first frames. */
#include <stdlib.h>

#include <adwaita.h>

static gint64 first_frame;

static void
on_after_paint (GdkFrameClock *clock,
                guint         *count)
{
  if ((*count)++ == 0)
    first_frame = g_get_monotonic_time ();
}

int
main (void)
{
  g_autofree char *status = NULL;
  GtkWidget *window, *box, *label;
  GdkFrameClock *clock;
  const char *line;
  guint count = 0;

  gtk_init ();
  adw_init ();

  window = adw_application_window_new (NULL);
  box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  label = gtk_label_new ("Bare window");
  gtk_widget_set_vexpand (label, TRUE);
  gtk_box_append (GTK_BOX (box), adw_header_bar_new ());
  gtk_box_append (GTK_BOX (box), label);
  adw_application_window_set_content (ADW_APPLICATION_WINDOW (window), box);
  gtk_window_set_default_size (GTK_WINDOW (window), 1000, 700);
  gtk_window_present (GTK_WINDOW (window));

  while ((clock = gtk_widget_get_frame_clock (window)) == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_signal_connect (clock, "after-paint", G_CALLBACK (on_after_paint), &count);
  while (count < 5)
    {
      gtk_widget_queue_draw (window);
      g_main_context_iteration (NULL, TRUE);
    }

  if (!g_file_get_contents ("/proc/self/status", &status, NULL, NULL) ||
      (line = strstr (status, "VmRSS:")) == NULL)
    return 1;
  g_print ("FIRST-FRAME %" G_GINT64_FORMAT "\n", first_frame);
  g_print ("RSS %ld\n", strtol (line + 6, NULL, 10));
  return 0;
}
