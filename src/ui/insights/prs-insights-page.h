/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-insights-page.h: the Insights page (win.show-insights, Ctrl+I): for
 * a period (today, 7 days, 30 days, all time), calls and tokens per day as
 * a chart, and tables per provider and model, agent and tool whose numbers
 * can be selected or copied (docs/insights.md). The figures are read in a
 * worker thread, and again when a run changes while the page shows. */
#pragma once

#include <adwaita.h>

#include "prs-insights.h"
#include "prs-service.h"

G_BEGIN_DECLS

#define PRS_TYPE_INSIGHTS_PAGE (prs_insights_page_get_type ())
G_DECLARE_FINAL_TYPE (PrsInsightsPage, prs_insights_page, PRS, INSIGHTS_PAGE, AdwBin)

void              prs_insights_page_set_service (PrsInsightsPage   *self,
                                                 PrsService        *service);
/* Reads the figures of the chosen period again */
void              prs_insights_page_reload      (PrsInsightsPage   *self);
void              prs_insights_page_set_period  (PrsInsightsPage   *self,
                                                 PrsInsightsPeriod  period);
PrsInsightsPeriod prs_insights_page_get_period  (PrsInsightsPage   *self);
/* TRUE while a read is under way (tests wait for FALSE) */
gboolean          prs_insights_page_is_loading  (PrsInsightsPage   *self);
/* The tables as tab-separated text, as Copy puts them on the clipboard:
 * "models", "agents" or "tools" (tests) */
char             *prs_insights_page_dup_table   (PrsInsightsPage   *self,
                                                 const char        *name);

G_END_DECLS
