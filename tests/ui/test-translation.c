/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The window follows the session language: started with LANGUAGE=de (and a
 * German locale), the real window shows German strings from the build's
 * own catalogue. */
#include "config.h"

#include <locale.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "prs-ui-test-util.h"
#include "prs-window.h"

static void
test_german_window (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *data_dir = g_dir_make_tmp ("prs-test-l10n-XXXXXX", &error);
  g_autoptr(PrsService) service = NULL;
  PrsWindow *window;
  const char *english = "No Conversations";
  const char *german = g_dgettext (GETTEXT_PACKAGE, english);

  g_assert_no_error (error);

  /* The catalogue really translates this string… */
  g_test_message ("“%s” → “%s”", english, german);
  g_assert_cmpstr (german, !=, english);

  /* …and the window shows the translation. */
  service = prs_service_new (data_dir, prs_test_free_port ());
  g_assert_true (prs_service_start (service, &error));
  g_assert_no_error (error);

  window = prs_window_new (NULL, service);
  gtk_window_present (GTK_WINDOW (window));
  prs_test_wait_frames (GTK_WIDGET (window), 2);

  g_assert_nonnull (prs_test_find_label (GTK_WIDGET (window), german));
  g_assert_null (prs_test_find_label (GTK_WIDGET (window), english));

  gtk_window_destroy (GTK_WINDOW (window));
  prs_service_stop (service);
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

int
main (int   argc,
      char *argv[])
{
  const char *localedir = g_getenv ("PRS_TEST_LOCALEDIR");

  /* The test's environment names a German locale; without it installed
   * (build-aux/install-deps.sh generates it) this cannot show German. */
  if (setlocale (LC_ALL, "") == NULL)
    g_error ("The locale %s is not installed: run build-aux/install-deps.sh", g_getenv ("LC_ALL"));

  bindtextdomain (GETTEXT_PACKAGE, localedir != NULL ? localedir : LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  g_test_init (&argc, &argv, NULL);
  gtk_init ();
  adw_init ();

  g_test_add_func ("/ui/translation/german-window", test_german_window);

  return g_test_run ();
}
