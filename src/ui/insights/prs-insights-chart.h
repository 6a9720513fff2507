/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-insights-chart.h: the Insights page's chart — model and tool calls
 * per day above, tokens in and out per day below, drawn with GtkSnapshot
 * in the style's accent colour (light and dark alike), a tooltip per day,
 * and the data in words for assistive technologies. */
#pragma once

#include <gtk/gtk.h>

#include "prs-insights.h"

G_BEGIN_DECLS

#define PRS_TYPE_INSIGHTS_CHART (prs_insights_chart_get_type ())
G_DECLARE_FINAL_TYPE (PrsInsightsChart, prs_insights_chart, PRS, INSIGHTS_CHART, GtkWidget)

GtkWidget   *prs_insights_chart_new          (void);
/* @days: PrsInsightsDay, copied; NULL or empty draws an empty chart */
void         prs_insights_chart_set_days     (PrsInsightsChart *self,
                                              GArray           *days);
/* How many bars the last snapshot drew (tests); 0 before the first */
guint        prs_insights_chart_get_n_drawn  (PrsInsightsChart *self);
/* The description given to assistive technologies */
const char  *prs_insights_chart_get_summary  (PrsInsightsChart *self);

G_END_DECLS
