/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-launcher.h: the one way the window opens a URL in another
 * application (openLink icons, links in replies). Tests intercept it. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

typedef void (*PrsLaunchHook) (const char *uri,
                               gpointer    user_data);

/* Opens @uri with the default application (gtk_show_uri_full on GTK 4.8, the
 * OpenURI portal inside the sandbox); when no app opens it, the window's
 * toast (win.show-toast) says so in words. When the environment variable
 * PRS_TEST_LAUNCH_LOG names a file, the URI is appended to it (one a line)
 * instead; when a hook is set, the hook gets it instead. */
void     prs_launcher_open_uri           (GtkWidget     *widget,
                                          const char    *uri);
void     prs_launcher_set_hook           (PrsLaunchHook  hook,
                                          gpointer       user_data);

/* TRUE when @uri's scheme is on the link allowlist (docs/conversations.md):
 * links with any other scheme — in Markdown, in plain text, in an openLink —
 * are shown as text and never opened. */
gboolean prs_launcher_scheme_is_allowed  (const char    *uri);

/* The allowlist: the open-link-schemes setting, which the conversation
 * view keeps here so that every reader (openLink icons, Markdown links,
 * URLs in plain text) uses the same list (NULL: the default one). Kept
 * beside the launcher, the one place that opens URLs. */
void                prs_launcher_set_open_link_schemes (const char * const *schemes);
const char * const *prs_launcher_get_open_link_schemes (void);

G_END_DECLS
