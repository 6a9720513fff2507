/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-agent-editor.h: the agent editor (docs/agents.md), a modal window over the
 * main window: name, description, id, system prompt, allowed tools and the
 * Tool Parameter Guidance Builder. Save writes through
 * prs_store_save_agent () and closes; Cancel (or Escape) closes, asking
 * first when there are unsaved changes. */
#pragma once

#include <adwaita.h>

#include "prs-guidance-builder.h"
#include "prs-service.h"

G_BEGIN_DECLS

#define PRS_TYPE_AGENT_EDITOR (prs_agent_editor_get_type ())
G_DECLARE_FINAL_TYPE (PrsAgentEditor, prs_agent_editor, PRS, AGENT_EDITOR, AdwWindow)

/* Edits the stored agent @agent_id, or a new one when it is NULL. NULL
 * with @error when the agent cannot be read. Like gtk_window_new (), the
 * window belongs to GTK (transfer none): gtk_window_destroy () ends it. */
PrsAgentEditor     *prs_agent_editor_new                 (GtkWindow       *parent,
                                                          PrsService      *service,
                                                          const char      *agent_id,
                                                          GError         **error);
/* The id the agent is stored under (NULL for a new, unsaved agent). */
const char         *prs_agent_editor_get_agent_id        (PrsAgentEditor  *self);
gboolean            prs_agent_editor_get_modified        (PrsAgentEditor  *self);
/* What is wrong with the form, as shown (NULL when it can be saved). */
const char         *prs_agent_editor_get_problem         (PrsAgentEditor  *self);
/* Validates and stores the agent; on success emits ::saved and the editor
 * is unmodified (it stays open: the Save action closes it). */
gboolean            prs_agent_editor_save                (PrsAgentEditor  *self,
                                                          GError         **error);

GtkEditable        *prs_agent_editor_get_name_entry      (PrsAgentEditor  *self);
GtkEditable        *prs_agent_editor_get_id_entry        (PrsAgentEditor  *self);
GtkEditable        *prs_agent_editor_get_description_entry (PrsAgentEditor *self);
GtkTextBuffer      *prs_agent_editor_get_prompt_buffer   (PrsAgentEditor  *self);
GtkSwitch          *prs_agent_editor_get_all_tools_switch (PrsAgentEditor *self);
/* The check button of a discovered tool, NULL when there is none. */
GtkCheckButton     *prs_agent_editor_get_tool_check      (PrsAgentEditor  *self,
                                                          const char      *tool);
/* The names of allowed tools that are not discovered (shown as warnings). */
GStrv               prs_agent_editor_dup_missing_tools   (PrsAgentEditor  *self);
PrsGuidanceBuilder *prs_agent_editor_get_guidance_builder (PrsAgentEditor *self);

G_END_DECLS
