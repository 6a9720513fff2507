/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-guidance-builder.h: the Tool Parameter Guidance Builder (docs/agents.md) at
 * the bottom of the agent editor: for one tool at a time, where each of its
 * parameters comes from, and a live preview of the guidance block exactly
 * as prs_guidance_build_text () writes it. It edits the agent's guidance
 * array in place and emits PrsGuidanceBuilder::changed. */
#pragma once

#include <gtk/gtk.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define PRS_TYPE_GUIDANCE_BUILDER (prs_guidance_builder_get_type ())
G_DECLARE_FINAL_TYPE (PrsGuidanceBuilder, prs_guidance_builder, PRS, GUIDANCE_BUILDER, GtkWidget)

/* The order of the source drop-down's items: PrsGuidanceSource's. */

/* @tools: the discovered PrsTool* (kept, not copied; may be NULL);
 * @fields: a GListModel of PrsContextFieldItem for the field picker;
 * @guidance: the agent's PrsToolGuidance* array, edited in place;
 * @allowed_tools: the agent's allowed tools, NULL for all. */
void        prs_guidance_builder_setup            (PrsGuidanceBuilder  *self,
                                                   GPtrArray           *tools,
                                                   GListModel          *fields,
                                                   GPtrArray           *guidance,
                                                   const char * const  *allowed_tools);
/* The tools to choose from follow the agent's allowed tools. */
void        prs_guidance_builder_set_allowed_tools (PrsGuidanceBuilder *self,
                                                   const char * const  *allowed_tools);
/* Shows @tool's parameters; FALSE when it is not among the choices. */
gboolean    prs_guidance_builder_select_tool      (PrsGuidanceBuilder  *self,
                                                   const char          *tool);
const char *prs_guidance_builder_get_selected_tool (PrsGuidanceBuilder *self);
/* The guidance block as the preview shows it ("" when there is none). */
const char *prs_guidance_builder_get_preview_text (PrsGuidanceBuilder  *self);

/* The widgets of one parameter's row, for tests and accessibility checks
 * (NULL when the selected tool has no such parameter). */
GtkDropDown   *prs_guidance_builder_get_source_drop_down  (PrsGuidanceBuilder *self,
                                                           const char         *param);
GtkMenuButton *prs_guidance_builder_get_field_button      (PrsGuidanceBuilder *self,
                                                           const char         *param);
GtkDropDown   *prs_guidance_builder_get_if_missing_drop_down (PrsGuidanceBuilder *self,
                                                           const char         *param);
GtkEditable   *prs_guidance_builder_get_constant_entry    (PrsGuidanceBuilder *self,
                                                           const char         *param);

/* A constant as the user typed it: JSON when @text parses as one JSON
 * value (42, true, null, "quoted", [1, 2], {"a": 1}), else the text itself
 * as a string. NULL for empty text. */
JsonNode   *prs_guidance_builder_parse_constant   (const char          *text);
/* The text that reads back as @value through parse_constant. */
char       *prs_guidance_builder_format_constant  (JsonNode            *value);

G_END_DECLS
