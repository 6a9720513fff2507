/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-launcher.c: opening URLs in other applications, through one function
 * so that tests can watch it. */
#include "config.h"

#include <errno.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "prs-context.h"
#include "prs-launcher.h"

static PrsLaunchHook launch_hook;
static gpointer      launch_hook_data;
static GStrv         open_link_schemes;

void
prs_launcher_set_hook (PrsLaunchHook hook,
                       gpointer      user_data)
{
  launch_hook = hook;
  launch_hook_data = user_data;
}

gboolean
prs_launcher_scheme_is_allowed (const char *uri)
{
  g_autofree char *scheme = NULL;
  const char * const *allowed = prs_launcher_get_open_link_schemes ();

  if (uri == NULL)
    return FALSE;

  scheme = g_uri_parse_scheme (uri);
  if (scheme == NULL)
    return FALSE;

  for (guint i = 0; allowed[i] != NULL; i++)
    if (g_ascii_strcasecmp (allowed[i], scheme) == 0)
      return TRUE;
  return FALSE;
}

void
prs_launcher_set_open_link_schemes (const char * const *schemes)
{
  g_strfreev (open_link_schemes);
  open_link_schemes = schemes != NULL ? g_strdupv ((char **) schemes) : NULL;
}

const char * const *
prs_launcher_get_open_link_schemes (void)
{
  return open_link_schemes != NULL ? (const char * const *) open_link_schemes
                                   : prs_context_get_default_link_schemes ();
}

static void
append_to_log (const char *path,
               const char *uri)
{
  FILE *file = g_fopen (path, "a");

  if (file == NULL)
    {
      g_message ("Could not open %s: %s", path, g_strerror (errno));
      return;
    }
  fprintf (file, "%s\n", uri);
  fclose (file);
}

typedef struct
{
  GtkWidget *window;   /* may be NULL */
  char      *uri;
} Shown;

static Shown *
shown_new (GtkWidget  *window,
           const char *uri)
{
  Shown *shown = g_new0 (Shown, 1);

  shown->window = window != NULL ? g_object_ref (window) : NULL;
  shown->uri = g_strdup (uri);
  return shown;
}

/* A link no app opens is said in the window, in words naming its kind,
 * not GTK's dialog ("Could not show link — Operation not supported") */
static void
on_shown (GObject      *source,
          GAsyncResult *result,
          gpointer      data)
{
  Shown *shown = data;
  g_autoptr(GError) error = NULL;

  if (!gtk_show_uri_full_finish (GTK_WINDOW (source), result, &error) &&
      !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_autofree char *scheme = g_uri_parse_scheme (shown->uri);
      g_autofree char *text = NULL;

      g_message ("Could not open a link: %s", error->message);
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED) ||
          g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
        /* Translators: %s is a link's scheme, as “mailto” or “ms-outlook” */
        text = g_strdup_printf (_("No app is set up to open “%s:” links."), scheme != NULL ? scheme : "");
      else
        /* Translators: the first %s is a link's scheme, the second why it failed */
        text = g_strdup_printf (_("The “%s:” link could not be opened: %s"), scheme != NULL ? scheme : "",
                                error->message);
      if (shown->window != NULL)
        gtk_widget_activate_action (shown->window, "win.show-toast", "s", text);
    }
  g_clear_object (&shown->window);
  g_free (shown->uri);
  g_free (shown);
}

void
prs_launcher_open_uri (GtkWidget  *widget,
                       const char *uri)
{
  const char *log_path;
  GtkRoot *root;

  g_return_if_fail (uri != NULL);

  if (launch_hook != NULL)
    {
      launch_hook (uri, launch_hook_data);
      return;
    }

  log_path = g_getenv ("PRS_TEST_LAUNCH_LOG");
  if (log_path != NULL && log_path[0] != '\0')
    {
      append_to_log (log_path, uri);
      return;
    }

  root = widget != NULL ? gtk_widget_get_root (widget) : NULL;
  gtk_show_uri_full (GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL, uri, GDK_CURRENT_TIME, NULL, on_shown,
                     shown_new (GTK_IS_WINDOW (root) ? GTK_WIDGET (root) : NULL, uri));
}
