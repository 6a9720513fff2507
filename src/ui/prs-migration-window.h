/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-migration-window.h: what the window shows while an older version's
 * database is brought up to date on a worker (docs/storage.md
 * "Migrations"), before the service starts. */
#pragma once

#include <adwaita.h>

#include "prs-settings.h"

G_BEGIN_DECLS

#define PRS_TYPE_MIGRATION_WINDOW (prs_migration_window_get_type ())
G_DECLARE_FINAL_TYPE (PrsMigrationWindow, prs_migration_window, PRS, MIGRATION_WINDOW, AdwApplicationWindow)

/* At the main window's remembered size (@settings), since it takes the
 * page's place. Closing it quits (app.quit): the migration stops, its
 * running step is undone. */
PrsMigrationWindow *prs_migration_window_new          (GtkApplication     *application,
                                                       PrsSettings        *settings);
/* How far the migration has come, 0.0 to 1.0. */
void                prs_migration_window_set_fraction (PrsMigrationWindow *self,
                                                       double              fraction);
/* The migration failed: @error in words, and a way to quit. */
void                prs_migration_window_show_error   (PrsMigrationWindow *self,
                                                       const GError       *error);

G_END_DECLS
