/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-window.h: the main window. */
#pragma once

#include <adwaita.h>

#include "prs-service.h"

G_BEGIN_DECLS

#define PRS_TYPE_WINDOW (prs_window_get_type ())
G_DECLARE_FINAL_TYPE (PrsWindow, prs_window, PRS, WINDOW, AdwApplicationWindow)

PrsWindow *prs_window_new (gpointer    application,
                           PrsService *service);

G_END_DECLS
