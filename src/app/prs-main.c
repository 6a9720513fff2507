/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-main.c: the program's entry point. */
#include "config.h"

#include <locale.h>
#include <glib/gi18n.h>

#include "prs-app-options.h"
#include "prs-application.h"

int
main (int   argc,
      char *argv[])
{
  g_autoptr(PrsApplication) app = NULL;
  int status;

  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  /* Headless mode never touches GTK, so it runs where there is no display. */
  for (int i = 1; i < argc; i++)
    {
      if (g_str_equal (argv[i], "--"))
        break;
      if (g_str_equal (argv[i], "--headless"))
        return prs_headless_run (argc, argv);
    }

  app = prs_application_new ();
  status = g_application_run (G_APPLICATION (app), argc, argv);

  return status != 0 ? status : prs_application_get_exit_status (app);
}
