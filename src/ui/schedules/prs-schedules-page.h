/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-schedules-page.h: the Schedules page of the main window
 * (docs/schedules.md): every scheduled prompt with when it runs next, a
 * switch to turn it on or off, Run Now, the editor, and deleting (asked
 * first). It follows PrsScheduler::changed, so what prosponsive-ctl or a
 * fire changed shows at once. */
#pragma once

#include <gtk/gtk.h>

#include "prs-schedule-editor.h"
#include "prs-service.h"

G_BEGIN_DECLS

#define PRS_TYPE_SCHEDULES_PAGE (prs_schedules_page_get_type ())
G_DECLARE_FINAL_TYPE (PrsSchedulesPage, prs_schedules_page, PRS, SCHEDULES_PAGE, GtkWidget)

void               prs_schedules_page_set_service (PrsSchedulesPage  *self,
                                                   PrsService        *service);
/* Reads the schedules again; the number shown, or -1 with @error. */
int                prs_schedules_page_reload      (PrsSchedulesPage  *self,
                                                   GError           **error);
/* Opens the editor on @schedule_id, or on a new schedule (NULL) for
 * conversation @slug and agent @agent_id (either may be NULL); returns it
 * (owned by GTK), or NULL after telling the user why not. */
PrsScheduleEditor *prs_schedules_page_edit        (PrsSchedulesPage  *self,
                                                   const char        *schedule_id,
                                                   const char        *slug,
                                                   const char        *agent_id);
/* The row of a schedule (by id), NULL when it is not listed. */
GtkWidget         *prs_schedules_page_get_row     (PrsSchedulesPage  *self,
                                                   const char        *schedule_id);

G_END_DECLS
