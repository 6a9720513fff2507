/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-main.c: the program's entry point. */
#include "config.h"

#include <errno.h>
#include <locale.h>
#include <unistd.h>
#include <glib/gi18n.h>

#include "prs-app-options.h"
#include "prs-application.h"
#include "prs-store.h"

#define SERVICE_PROGRAM "prosponsive-service"

/* Beside this program in the build tree (tests, meson devenv); in
 * libexecdir once installed (/app/libexec in the Flatpak) */
static char *
find_service_program (void)
{
  g_autofree char *self = g_file_read_link ("/proc/self/exe", NULL);

  if (self != NULL)
    {
      g_autofree char *dir = g_path_get_dirname (self);
      g_autofree char *beside = g_build_filename (dir, SERVICE_PROGRAM, NULL);

      if (g_file_test (beside, G_FILE_TEST_IS_EXECUTABLE))
        return g_steal_pointer (&beside);
    }

  return g_build_filename (LIBEXECDIR, SERVICE_PROGRAM, NULL);
}

/* `--headless` runs the service without a window. This program maps GTK
 * and libadwaita at exec time, before main (), so the service is another
 * program, executed here before any UI library is initialised; it gets
 * the same arguments and environment, and two allocator settings that
 * only take effect before main () (bench/RESULTS.md, headless-rss):
 * - glibc caches up to 7 freed blocks of each small size per thread, which
 *   the service's threads filled with ~0.35 MB that no other thread could
 *   use; 2 keep the fast path (no measurable cost per API call);
 * - GLib 2.74's slice allocator keeps per-thread magazines of its own; the
 *   GLib of newer systems (2.76) always uses malloc, as G_SLICE does here.
 * A value set by the user is kept. */
static int
exec_service (char **argv)
{
  g_autofree char *program = find_service_program ();
  g_auto(GStrv) envp = g_get_environ ();
  int saved;

  envp = g_environ_setenv (envp, "GLIBC_TUNABLES", PRS_SERVICE_GLIBC_TUNABLES, FALSE);
  envp = g_environ_setenv (envp, "G_SLICE", "always-malloc", FALSE);
  execve (program, argv, envp);
  saved = errno;
  g_printerr (_("prosponsive: cannot start %s: %s\n"), program, g_strerror (saved));
  return EXIT_FAILURE;
}

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

  for (int i = 1; i < argc; i++)
    {
      if (g_str_equal (argv[i], "--"))
        break;
      if (g_str_equal (argv[i], "--headless"))
        return exec_service (argv);
    }

  /* The window's process runs the service too */
  prs_store_configure_library ();
  app = prs_application_new ();
  status = g_application_run (G_APPLICATION (app), argc, argv);

  return status != 0 ? status : prs_application_get_exit_status (app);
}
