/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-agents-page.h: the Agents page of the main window: the stored
 * agents, and creating, editing, duplicating, deleting (confirmed),
 * importing and exporting them as Markdown files. */
#pragma once

#include <gtk/gtk.h>

#include "prs-agent-editor.h"
#include "prs-service.h"

G_BEGIN_DECLS

#define PRS_TYPE_AGENTS_PAGE (prs_agents_page_get_type ())
G_DECLARE_FINAL_TYPE (PrsAgentsPage, prs_agents_page, PRS, AGENTS_PAGE, GtkWidget)

void            prs_agents_page_set_service  (PrsAgentsPage  *self,
                                              PrsService     *service);
/* Reads the agents again; the number shown, or -1 with @error. */
int             prs_agents_page_reload       (PrsAgentsPage  *self,
                                              GError        **error);
/* Opens the editor on @agent_id (NULL: a new agent) and returns it (owned
 * by GTK), or NULL after telling the user why not. */
PrsAgentEditor *prs_agents_page_edit         (PrsAgentsPage  *self,
                                              const char     *agent_id);
/* The row of @agent_id, NULL when it is not listed. */
GtkWidget      *prs_agents_page_get_row      (PrsAgentsPage  *self,
                                              const char     *agent_id);
/* What the Import… file chooser does with the chosen file: parse it, ask
 * before replacing an agent of the same id, store it. A file that does not
 * parse is explained in a dialog ("Line N: …"). */
void            prs_agents_page_import_file  (PrsAgentsPage  *self,
                                              GFile          *file);
/* What Export… does with the chosen file. */
gboolean        prs_agents_page_export_file  (PrsAgentsPage  *self,
                                              const char     *agent_id,
                                              GFile          *file,
                                              GError        **error);

G_END_DECLS
