/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-preferences-window.h: Preferences: health at a glance, n8n, AI
 * providers, MCP servers, the local API (port, LAN, token, certificate), agent runs
 * (inference settings, tool approval rules), links, background. */
#pragma once

#include <adwaita.h>

#include "prs-service.h"

G_BEGIN_DECLS

#define PRS_TYPE_PREFERENCES_WINDOW (prs_preferences_window_get_type ())
G_DECLARE_FINAL_TYPE (PrsPreferencesWindow, prs_preferences_window, PRS, PREFERENCES_WINDOW, AdwPreferencesWindow)

PrsPreferencesWindow *prs_preferences_window_new          (GtkWindow            *parent,
                                                           PrsService           *service);
/* Runs the health checks again (also done when the window opens). */
void                  prs_preferences_window_check_health (PrsPreferencesWindow *self);
/* Opens the provider form for a new provider (or @provider_id). */
void                  prs_preferences_window_edit_provider (PrsPreferencesWindow *self,
                                                            const char           *provider_id);
/* Opens the MCP server form for a new server (or @server_id). */
void                  prs_preferences_window_edit_mcp_server (PrsPreferencesWindow *self,
                                                              const char           *server_id);

G_END_DECLS
