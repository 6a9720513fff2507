/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-tools-page.h: the Tools page: every discovered tool (description,
 * parameters, workflow, a link into the n8n editor), the MCP servers with
 * their state and tools (grouped by server, with their schemas), and the
 * Workflow Checklist of every workflow seen, so an author sees why a
 * workflow is not a tool. Refresh runs a discovery with visible progress. */
#pragma once

#include <adwaita.h>

#include "prs-service.h"

G_BEGIN_DECLS

#define PRS_TYPE_TOOLS_PAGE (prs_tools_page_get_type ())
G_DECLARE_FINAL_TYPE (PrsToolsPage, prs_tools_page, PRS, TOOLS_PAGE, AdwBin)

/* Follows the service's discovery (running, finished) from now on. */
void     prs_tools_page_set_service (PrsToolsPage  *self,
                                     PrsService    *service);
/* Reads tools and checklists from the store again; returns the number of
 * tools, or -1 with @error. */
int      prs_tools_page_reload      (PrsToolsPage  *self,
                                     GError       **error);
/* Starts a discovery now (unless one runs); a toast tells the result. */
void     prs_tools_page_refresh     (PrsToolsPage  *self);

G_END_DECLS
