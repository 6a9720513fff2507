/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-dialogs.c: prs-dialogs' toasts in a real window under a real X
 * server: the text is shown as it is ("&" and "<" included: libadwaita
 * reads a title as markup), and whole in a narrow window, on more lines
 * in a toast as tall as they are, since a sentence can end in its verb
 * (German) or in the name that matters. */
#include "config.h"

#include <adwaita.h>

#include "prs-dialogs.h"
#include "prs-ui-test-util.h"

#define LONG_TEXT "Der Agent in „R&D <Q3> Eingang“ möchte „email_move_to_folder“ ausführen."

static void
test_toast_whole (void)
{
  GtkWidget *window = gtk_window_new ();
  GtkWidget *overlay = adw_toast_overlay_new ();
  AdwToast *toast = prs_dialogs_new_toast ("first");
  GtkWidget *label;

  g_object_ref_sink (window);
  adw_toast_overlay_set_child (ADW_TOAST_OVERLAY (overlay), gtk_label_new (""));
  gtk_window_set_child (GTK_WINDOW (window), overlay);
  gtk_window_set_default_size (GTK_WINDOW (window), 400, 300);
  gtk_window_present (GTK_WINDOW (window));
  prs_test_wait_frames (window, 3);

  /* Changed in place, as a toast that counts waiting calls is */
  adw_toast_overlay_add_toast (ADW_TOAST_OVERLAY (overlay), toast);
  prs_dialogs_set_toast_text (toast, LONG_TEXT);
  prs_test_wait_frames (window, 20);

  label = prs_test_find_label (overlay, LONG_TEXT);
  g_assert_nonnull (label);
  g_assert_true (gtk_widget_get_mapped (label));
  g_assert_false (pango_layout_is_ellipsized (gtk_label_get_layout (GTK_LABEL (label))));
  g_assert_cmpint (pango_layout_get_line_count (gtk_label_get_layout (GTK_LABEL (label))), >, 1);
  g_assert_cmpint (gtk_widget_get_width (label), <=, 400);
  /* …and drawn in the height those lines need, not in less (libadwaita
   * sizes a toast for its title's natural width) */
  {
    int needed = 0;

    gtk_widget_measure (label, GTK_ORIENTATION_VERTICAL, gtk_widget_get_width (label), &needed, NULL, NULL, NULL);
    g_assert_cmpint (gtk_widget_get_height (label), >=, needed);
  }

  gtk_window_destroy (GTK_WINDOW (window));
  g_object_unref (window);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  gtk_init ();
  adw_init ();

  g_test_add_func ("/ui/dialogs/toast-whole", test_toast_whole);

  return g_test_run ();
}
