/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-status-row.h: the state of a check shown on an AdwActionRow (an icon
 * or a spinner before the title, the explanation as its subtitle), as the
 * first run and Preferences show n8n, provider and health checks. */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

/* @state: "ok", "warn", "error", "busy" (a spinner) or "idle" (not checked
 * yet); kept as the row's "state" data for tests. */
void prs_status_row_set_state (AdwActionRow *row,
                               const char   *state,
                               const char   *subtitle);

G_END_DECLS
