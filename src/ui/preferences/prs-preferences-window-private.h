/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-preferences-window-private.h: Preferences is one window over five
 * files: prs-preferences-window.c (the window, its shared row helpers, the
 * General and n8n pages, the health checks), prs-preferences-providers.c,
 * prs-preferences-mcp.c (MCP Servers), prs-preferences-api.c (Local API)
 * and prs-preferences-runs.c (Agent Runs: inference settings and approval
 * rules). */
#pragma once

#include <libsoup/soup.h>

#include "prs-mcp-server-editor.h"
#include "prs-preferences-window.h"
#include "prs-provider-editor.h"

G_BEGIN_DECLS

struct _PrsPreferencesWindow
{
  AdwPreferencesWindow  parent_instance;

  PrsService           *service;
  GCancellable         *cancellable;
  GPtrArray            *provider_rows;
  GPtrArray            *rule_rows;
  GPtrArray            *mcp_rows;
  guint                 mcp_reload_id;
  char                 *token;            /* shown; wiped in finalize */
  GTlsCertificate      *certificate;
  SoupSession          *health_session;

  /* health */
  AdwActionRow         *health_n8n;
  AdwActionRow         *health_provider;
  AdwActionRow         *health_api;
  AdwActionRow         *health_keyring;

  /* n8n */
  AdwEntryRow          *n8n_url_row;
  AdwEntryRow          *n8n_key_row;
  AdwActionRow         *discovery_row;
  GtkButton            *discovery_button;
  GtkSpinner           *discovery_spinner;

  /* api */
  AdwActionRow         *token_row;
  AdwActionRow         *credential_row;
  GtkButton            *credential_button;

  /* forms */
  PrsProviderEditor    *provider_editor;
  PrsMcpServerEditor   *mcp_editor;
  AdwComboRow          *rule_tool;
  AdwComboRow          *rule_agent;
  AdwComboRow          *rule_conversation;
  AdwComboRow          *rule_action;

  AdwPreferencesGroup  *health_group;
  AdwPreferencesGroup  *background_group;
  AdwPreferencesGroup  *links_group;
  AdwPreferencesGroup  *n8n_group;
  AdwPreferencesGroup  *discovery_group;
  AdwPreferencesGroup  *providers_group;
  AdwPreferencesGroup  *mcp_group;
  AdwPreferencesGroup  *api_group;
  AdwPreferencesGroup  *token_group;
  AdwPreferencesGroup  *cert_group;
  AdwPreferencesGroup  *lan_group;
  AdwPreferencesGroup  *origins_group;
  AdwPreferencesGroup  *rules_group;
  AdwPreferencesGroup  *inference_group;
  AdwPreferencesGroup  *timeouts_group;
};

/* prs-preferences-window.c: rows and buttons every page builds with */
void        prs_preferences_toast                  (PrsPreferencesWindow *self,
                                                    const char           *text);
GtkWidget  *prs_preferences_action_row             (const char           *title,
                                                    const char           *subtitle);
GtkWidget  *prs_preferences_suffix_button          (GtkWidget            *row,
                                                    const char           *label,
                                                    const char           *name,
                                                    GCallback             callback,
                                                    gpointer              data);
GtkWidget  *prs_preferences_icon_button            (const char           *icon,
                                                    const char           *tooltip,
                                                    const char           *name);
void        prs_preferences_copy_text              (GtkWidget            *widget,
                                                    const char           *text);
/* A row with a switch bound to a boolean settings property. */
GtkWidget  *prs_preferences_switch_row             (PrsPreferencesWindow *self,
                                                    const char           *title,
                                                    const char           *subtitle,
                                                    const char           *key);
/* A row with a spin button bound to a numeric settings property. */
GtkWidget  *prs_preferences_spin_row               (PrsPreferencesWindow *self,
                                                    const char           *title,
                                                    const char           *subtitle,
                                                    const char           *key,
                                                    double                min,
                                                    double                max,
                                                    double                step,
                                                    guint                 digits);
/* A subpage (the provider and rule forms): Back, @title, an @action button. */
GtkWidget  *prs_preferences_subpage_new            (PrsPreferencesWindow *self,
                                                    const char           *title,
                                                    const char           *action_label,
                                                    const char           *action_name,
                                                    GCallback             action,
                                                    GtkWidget            *content);
char       *prs_preferences_dup_api_url            (PrsPreferencesWindow *self);
void        prs_preferences_check_provider_health  (PrsPreferencesWindow *self);

/* prs-preferences-providers.c */
void        prs_preferences_reload_providers       (PrsPreferencesWindow *self);
void        prs_preferences_on_add_provider_clicked (PrsPreferencesWindow *self);

/* prs-preferences-api.c */
void        prs_preferences_build_api              (PrsPreferencesWindow *self);
void        prs_preferences_wipe_token             (PrsPreferencesWindow *self);

/* prs-preferences-mcp.c */
void        prs_preferences_build_mcp              (PrsPreferencesWindow *self);
void        prs_preferences_reload_mcp             (PrsPreferencesWindow *self);
void        prs_preferences_on_add_mcp_clicked     (PrsPreferencesWindow *self);

/* prs-preferences-runs.c */
void        prs_preferences_build_runs             (PrsPreferencesWindow *self);
void        prs_preferences_reload_rules           (PrsPreferencesWindow *self);
void        prs_preferences_on_add_rule_clicked    (PrsPreferencesWindow *self);

G_END_DECLS
