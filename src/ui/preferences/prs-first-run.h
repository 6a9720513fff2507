/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-first-run.h: the guided setup shown when neither n8n nor an AI
 * provider is configured: connect n8n (Test runs a discovery), add an AI
 * provider (Test loads its models), then the local API's details and two
 * actions on the user's n8n: the "Prosponsive API" credential and the
 * example workflows. */
#pragma once

#include <adwaita.h>

#include "prs-service.h"

G_BEGIN_DECLS

#define PRS_TYPE_FIRST_RUN (prs_first_run_get_type ())
G_DECLARE_FINAL_TYPE (PrsFirstRun, prs_first_run, PRS, FIRST_RUN, AdwWindow)

/* TRUE when neither an n8n URL nor any provider is stored. */
gboolean     prs_first_run_is_needed (PrsService  *service);
PrsFirstRun *prs_first_run_new       (GtkWindow   *parent,
                                      PrsService  *service);
/* "n8n", "provider" or "api". */
const char  *prs_first_run_get_step  (PrsFirstRun *self);

G_END_DECLS
