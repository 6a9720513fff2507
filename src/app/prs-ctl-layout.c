/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-ctl-layout.c: `prosponsive-ctl layout [FILE|-]`, the display blocks
 * of a reply's text (docs/layout.md) as JSON, from the same function the window
 * renders with. */
#include "config.h"

#include <stdlib.h>
#include <glib/gi18n.h>

#include "prs-ctl.h"
#include "prs-layout.h"

int
prs_ctl_cmd_layout (PrsCtl  *ctl,
                    int      argc,
                    char   **argv)
{
  gboolean pretty = FALSE;
  GOptionEntry entries[] = {
    { "pretty", 0, 0, G_OPTION_ARG_NONE, &pretty, N_("Indent the JSON over several lines"), NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new (_("[FILE|-] — print the display blocks of a reply text as JSON"));
  g_autoptr(GError) error = NULL;
  g_autofree char *contents = NULL;
  gsize length = 0;
  const char *path;
  g_autoptr(GPtrArray) blocks = NULL;
  g_autofree char *json = NULL;

  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return prs_ctl_usage_error (context, error->message);
  if (argc > 2)
    return prs_ctl_usage_error (context, _("layout takes at most one file."));

  path = argc == 2 ? argv[1] : NULL;
  if (!prs_ctl_read_input (path, PRS_LAYOUT_MAX_INPUT, &contents, &length, &error))
    {
      g_printerr (_("Could not read “%s”: %s\n"), path != NULL ? path : "-", error->message);
      return PRS_CTL_EXIT_USAGE;
    }

  blocks = prs_layout_parse (contents, length);
  g_clear_pointer (&contents, g_free);
  /* One compact line by default: exactly the form docs/layout.md shows. */
  json = prs_layout_to_json (blocks, pretty);
  g_clear_pointer (&blocks, g_ptr_array_unref);
  g_print ("%s\n", json);

  return EXIT_SUCCESS;
}
