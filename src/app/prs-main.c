/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-main.c: the program's entry point. */
#include "config.h"

#include <locale.h>
#include <glib/gi18n.h>

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

  app = prs_application_new ();
  status = g_application_run (G_APPLICATION (app), argc, argv);

  return status != 0 ? status : prs_application_get_exit_status (app);
}
