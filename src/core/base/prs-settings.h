/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-settings.h: the application's settings (GSettings schema APP_ID) as
 * one object with a property per key, so that no widget and no service
 * reads GSettings itself. Without the schema (an uninstalled headless run)
 * every property keeps the schema's default and changes stay in memory.
 * Main thread only (asserted in debug builds, HACKING.md "Threads"). */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define PRS_TYPE_SETTINGS (prs_settings_get_type ())
G_DECLARE_FINAL_TYPE (PrsSettings, prs_settings, PRS, SETTINGS, GObject)

PrsSettings        *prs_settings_new                        (void);
/* TRUE when the values are backed by GSettings (the schema is installed). */
gboolean            prs_settings_is_persistent              (PrsSettings        *self);

guint               prs_settings_get_discovery_interval     (PrsSettings        *self);
void                prs_settings_set_discovery_interval     (PrsSettings        *self,
                                                             guint               minutes);
gboolean            prs_settings_get_keep_running_in_background (PrsSettings    *self);
guint               prs_settings_get_api_port               (PrsSettings        *self);
gboolean            prs_settings_get_lan_listening          (PrsSettings        *self);
const char * const *prs_settings_get_allowed_sources        (PrsSettings        *self);
const char * const *prs_settings_get_allowed_origins        (PrsSettings        *self);
const char * const *prs_settings_get_open_link_schemes      (PrsSettings        *self);
guint               prs_settings_get_max_output_tokens      (PrsSettings        *self);
double              prs_settings_get_temperature            (PrsSettings        *self);
guint               prs_settings_get_history_depth          (PrsSettings        *self);
guint               prs_settings_get_max_tool_rounds        (PrsSettings        *self);
guint               prs_settings_get_tool_call_timeout      (PrsSettings        *self);
guint               prs_settings_get_callback_timeout       (PrsSettings        *self);
guint               prs_settings_get_inference_timeout      (PrsSettings        *self);

/* Every other key is reached through its property of the same name
 * (g_object_set / g_object_bind_property); "changed::KEY" is emitted after
 * any change of KEY, whoever made it. */

G_END_DECLS
