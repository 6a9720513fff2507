/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-tools-page-private.h: what the Tools page's two files share:
 * prs-tools-page.c (discovery, n8n's tools, the Workflow Checklist) and
 * prs-tools-page-mcp.c (the MCP servers, their state and tools). */
#pragma once

#include "prs-tools-page.h"

G_BEGIN_DECLS

struct _PrsToolsPage
{
  AdwBin               parent_instance;

  PrsService          *service;
  GPtrArray           *rows;            /* (widget, group) pairs to remove */
  gboolean             refresh_requested;
  guint                n_tools;
  guint                n_workflows;
  GPtrArray           *mcp_groups;      /* AdwPreferencesGroup* of the MCP servers */
  GPtrArray           *mcp_items;       /* PrsMcpServerItem* whose status is followed */
  guint                mcp_rebuild_id;

  AdwActionRow        *status_row;
  GtkImage            *status_icon;
  GtkStack            *status_icon_stack;
  GtkSpinner          *status_spinner;
  GtkButton           *refresh_button;
  GtkBox              *mcp_box;
  AdwPreferencesGroup *tools_group;
  AdwPreferencesGroup *workflows_group;
};

/* prs-tools-page.c */
void       prs_tools_page_add_row        (PrsToolsPage        *self,
                                          AdwPreferencesGroup *group,
                                          GtkWidget           *row);
GtkWidget *prs_tools_page_text_row       (const char          *title,
                                          const char          *subtitle);
char      *prs_tools_page_describe_param (const PrsParam      *param);

/* prs-tools-page-mcp.c */
void       prs_tools_page_follow_mcp     (PrsToolsPage        *self);
void       prs_tools_page_reload_mcp     (PrsToolsPage        *self);
void       prs_tools_page_clear_mcp      (PrsToolsPage        *self);

G_END_DECLS
