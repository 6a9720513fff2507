/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-schedule-editor.h: a modal window over one scheduled prompt
 * (docs/schedules.md): name, conversation, agent, prompt, Request Context,
 * when it runs and what a missed run becomes, with a live preview of the
 * next five runs. Save goes through PrsScheduler (the same checks as
 * prosponsive-ctl); Cancel asks before unsaved changes go.
 *
 * Signals:
 *   saved (id)   the schedule was stored
 */
#pragma once

#include <adwaita.h>

#include "prs-service.h"

G_BEGIN_DECLS

#define PRS_SCHEDULE_EDITOR_PREVIEW 5

#define PRS_TYPE_SCHEDULE_EDITOR (prs_schedule_editor_get_type ())
G_DECLARE_FINAL_TYPE (PrsScheduleEditor, prs_schedule_editor, PRS, SCHEDULE_EDITOR, AdwWindow)

/* Edits @schedule_id, or a new schedule (NULL) whose conversation and
 * agent start as @slug and @agent_id (either may be NULL). */
PrsScheduleEditor *prs_schedule_editor_new           (GtkWindow          *parent,
                                                      PrsService         *service,
                                                      const char         *schedule_id,
                                                      const char         *slug,
                                                      const char         *agent_id,
                                                      GError            **error);
gboolean           prs_schedule_editor_save          (PrsScheduleEditor  *self,
                                                      GError            **error);
/* Why it cannot be saved as it is, or NULL. */
const char        *prs_schedule_editor_get_problem   (PrsScheduleEditor  *self);
gboolean           prs_schedule_editor_get_modified  (PrsScheduleEditor  *self);
/* The runs the preview shows, as it shows them. */
GStrv              prs_schedule_editor_dup_preview   (PrsScheduleEditor  *self);

/* For tests: the editing widgets */
GtkEditable       *prs_schedule_editor_get_name_entry         (PrsScheduleEditor *self);
GtkEditable       *prs_schedule_editor_get_conversation_entry (PrsScheduleEditor *self);
GtkEditable       *prs_schedule_editor_get_time_entry         (PrsScheduleEditor *self);
GtkEditable       *prs_schedule_editor_get_at_entry           (PrsScheduleEditor *self);
GtkTextBuffer     *prs_schedule_editor_get_prompt_buffer      (PrsScheduleEditor *self);
GtkTextBuffer     *prs_schedule_editor_get_context_buffer     (PrsScheduleEditor *self);
AdwComboRow       *prs_schedule_editor_get_kind_row           (PrsScheduleEditor *self);
AdwComboRow       *prs_schedule_editor_get_agent_row          (PrsScheduleEditor *self);
GtkSpinButton     *prs_schedule_editor_get_every_spin         (PrsScheduleEditor *self);
/* Monday is 0 */
GtkToggleButton   *prs_schedule_editor_get_day_button         (PrsScheduleEditor *self,
                                                               guint              weekday);

G_END_DECLS
