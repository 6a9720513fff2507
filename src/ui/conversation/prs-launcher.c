/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-launcher.c: opening URLs in other applications, through one function
 * so that tests can watch it. */
#include "config.h"

#include <errno.h>
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
  gtk_show_uri (GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL, uri, GDK_CURRENT_TIME);
}
