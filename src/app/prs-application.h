/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-application.h: the AdwApplication: command line, service, windows. */
#pragma once

#include <adwaita.h>

#include "prs-service.h"

G_BEGIN_DECLS

#define PRS_TYPE_APPLICATION (prs_application_get_type ())
G_DECLARE_FINAL_TYPE (PrsApplication, prs_application, PRS, APPLICATION, AdwApplication)

PrsApplication *prs_application_new         (void);
/* Non-zero when the service could not start. */
int             prs_application_get_exit_status (PrsApplication *self);

G_END_DECLS
