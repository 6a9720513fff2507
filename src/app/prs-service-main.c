/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-service-main.c: prosponsive-service, what `prosponsive --headless`
 * runs (prs-main.c executes it): the same service as the window, in a
 * plain GApplication, on the core library alone. It maps no GTK,
 * libadwaita, Pango or Cairo and needs no display (servers, autostart,
 * tests). Same options, same data folder lock, same log. */
#include "config.h"

#include <locale.h>
#include <malloc.h>
#include <stdio.h>
#include <string.h>
#include <glib/gi18n.h>
#include <glib-unix.h>
#include <sqlite3.h>

#include "prs-app-options.h"
#include "prs-control-chars.h"
#include "prs-service.h"
#include "prs-store.h"

typedef struct
{
  GApplication  *app;
  PrsAppOptions  options;
  PrsService    *service;
  int            exit_status;
  GCancellable  *migrating;     /* while an older database is migrated */
  gboolean       serving;       /* said it runs: says it stopped */
  int            logged_tenths; /* of the migration, said so far */
} Headless;

static int
headless_handle_local_options (GApplication *app,
                               GVariantDict *options,
                               Headless     *headless)
{
  return prs_app_options_read (app, options, &headless->options);
}

static void
headless_fail (Headless     *headless,
               const GError *error)
{
  g_printerr ("prosponsive: %s\n", error->message);
  headless->exit_status = EXIT_FAILURE;
  g_clear_object (&headless->service);
}

/* A message is a line of what the service does (the API listens, a
 * certificate was made, discovery failed): a person reads it as a sentence
 * among the start and stop lines, on standard output, without GLib's
 * "Prosponsive-Message: 18:01:02.123:". Warnings and worse keep GLib's
 * form on standard error (program, level, time), and a journal gets every
 * field as before. */
static GLogWriterOutput
headless_log_writer (GLogLevelFlags   log_level,
                     const GLogField *fields,
                     gsize            n_fields,
                     gpointer         user_data)
{
  if ((log_level & G_LOG_LEVEL_MASK) != G_LOG_LEVEL_MESSAGE || g_log_writer_is_journald (fileno (stderr)))
    return g_log_writer_default (log_level, fields, n_fields, user_data);

  for (gsize i = 0; i < n_fields; i++)
    {
      if (g_str_equal (fields[i].key, "MESSAGE"))
        {
          g_autofree char *text = fields[i].length < 0 ? g_strdup (fields[i].value)
                                                       : g_strndup (fields[i].value, fields[i].length);

          g_print ("%s\n", text);
          return G_LOG_WRITER_HANDLED;
        }
    }
  return g_log_writer_default (log_level, fields, n_fields, user_data);
}

/* SIGTERM and SIGINT end it cleanly (connections closed, the store's last
 * transaction done); during a migration, once its running step is undone */
static gboolean
on_terminate (gpointer user_data)
{
  Headless *headless = user_data;

  if (headless->migrating != NULL)
    g_cancellable_cancel (headless->migrating);
  else
    g_application_quit (headless->app);
  return G_SOURCE_CONTINUE;
}

/* The service starts, the API with it: only on an up-to-date database */
static gboolean
headless_serve (Headless *headless)
{
  g_autoptr(GError) error = NULL;

  if (!prs_service_start (headless->service, &error))
    {
      headless_fail (headless, error);
      return FALSE;
    }
  g_print (_("Prosponsive is running without a window (data folder %s, port %u).\n"),
           prs_service_get_data_dir (headless->service), prs_service_get_port (headless->service));
  headless->serving = TRUE;
  return TRUE;
}

/* A line every tenth of the way: a log, not a progress bar */
static void
on_migration_progress (double   fraction,
                       gpointer user_data)
{
  Headless *headless = user_data;
  int tenths = (int) (fraction * 10);

  if (tenths <= headless->logged_tenths)
    return;
  headless->logged_tenths = tenths;
  /* Translators: %d is a percentage; %% is the sign */
  g_print (_("Updating the database: %d %% done.\n"), tenths * 10);
}

static void
on_migrated (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  Headless *headless = user_data;
  g_autoptr(GError) error = NULL;

  g_clear_object (&headless->migrating);
  if (!prs_store_migrate_finish (result, &error))
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_print (_("Stopped while the database was being updated: the steps already done are kept, the rest are done at the next start.\n"));
      else
        headless_fail (headless, error);
      g_application_quit (headless->app);
    }
  else if (!headless_serve (headless))
    g_application_quit (headless->app);
}

static void
headless_startup (GApplication *app,
                  Headless     *headless)
{
  g_autoptr(GError) error = NULL;
  gboolean outdated = FALSE;

  headless->service = prs_service_new (headless->options.data_dir, headless->options.port);
  if (!prs_service_open (headless->service, &outdated, &error))
    {
      headless_fail (headless, error);
      return;
    }

  /* No window will ever hold the application */
  g_application_hold (app);
  g_unix_signal_add (SIGTERM, on_terminate, headless);
  g_unix_signal_add (SIGINT, on_terminate, headless);

  /* An older version's database is migrated on a worker before the
   * service (and its API) starts, saying how far it has come
   * (docs/storage.md "Migrations") */
  if (outdated)
    {
      g_print (_("Updating the database of an older version of Prosponsive; the API answers once it is done.\n"));
      headless->migrating = g_cancellable_new ();
      prs_store_migrate_async (prs_service_get_data_dir (headless->service), on_migration_progress, headless,
                               NULL, headless->migrating, on_migrated, headless);
      return;
    }
  headless_serve (headless);
}

static void
headless_activate (GApplication *app,
                   Headless     *headless)
{
  if (headless->service == NULL)
    g_application_quit (app);
}

static void
headless_shutdown (GApplication *app,
                   Headless     *headless)
{
  if (headless->service != NULL)
    prs_service_stop (headless->service);
  /* Whoever stopped it (Ctrl+C, systemd) reads that it is done: the API's
   * connections closed and the last transaction written */
  if (headless->serving)
    g_print (_("Prosponsive has stopped.\n"));
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GApplication) app = NULL;
  Headless headless = { 0 };
  const char *tunables = g_getenv ("GLIBC_TUNABLES") != NULL ? g_getenv ("GLIBC_TUNABLES") : "";
  int status;

  /* One malloc arena for every thread. By default glibc gives threads
   * arenas of their own (up to 8 per core), and what one thread frees
   * cannot fill another's holes: the API thread's TLS and HTTP buffers,
   * the handshake threads and the store's migration peak each kept their
   * own high-water mark (bench/RESULTS.md: -0.7 to -1.2 MB of RSS after
   * 100,000 API calls). Requests are served on one thread, so they hardly
   * ever wait for the arena's lock. An arena count set in the
   * environment wins. */
  if (g_getenv ("MALLOC_ARENA_MAX") == NULL && strstr (tunables, "arena_max") == NULL)
    mallopt (M_ARENA_MAX, 1);
  /* Set for this program only (prs-main.c): not for MCP servers or
   * anything else it starts */
  if (g_str_equal (tunables, PRS_SERVICE_GLIBC_TUNABLES))
    g_unsetenv ("GLIBC_TUNABLES");
  /* Each SQLite connection (the service holds three) would take ~90 KB
   * for 20 cache pages up front; pages allocated as they are read cost
   * nothing measurable (bench/RESULTS.md). Before SQLite initializes. */
  sqlite3_config (SQLITE_CONFIG_PAGECACHE, NULL, 0, 0);
  prs_store_configure_library ();

  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);
  /* Logged as the program people start: `prosponsive --headless` */
  g_set_prgname ("prosponsive");
  g_log_set_writer_func (headless_log_writer, NULL, NULL);
  /* Its lines name what came from outside (a tool's name from n8n, a
   * schedule's, a folder's): printed with control characters blanked, as
   * prosponsive-ctl prints (docs/ctl.md "Text output"). GLib's own writer,
   * of warnings, escapes them already. */
  prs_text_blank_printed ();

  app = g_application_new (APP_ID, G_APPLICATION_DEFAULT_FLAGS);
  headless.app = app;
  prs_app_options_add (app);
  g_signal_connect (app, "handle-local-options", G_CALLBACK (headless_handle_local_options), &headless);
  g_signal_connect (app, "startup", G_CALLBACK (headless_startup), &headless);
  g_signal_connect (app, "activate", G_CALLBACK (headless_activate), &headless);
  g_signal_connect (app, "shutdown", G_CALLBACK (headless_shutdown), &headless);

  status = g_application_run (app, argc, argv);

  g_clear_object (&headless.service);
  g_clear_object (&headless.migrating);
  prs_app_options_clear (&headless.options);

  return status != 0 ? status : headless.exit_status;
}
