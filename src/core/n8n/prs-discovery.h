/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-discovery.h: n8n workflows becoming tools (docs/workflows.md): the rules, the
 * run against an n8n instance, and its schedule. */
#pragma once

#include <gio/gio.h>

#include "prs-secrets.h"
#include "prs-store.h"
#include "prs-tool.h"
#include "prs-workflow.h"

G_BEGIN_DECLS

#define PRS_ADAPTER_WORKFLOW_NAME "Prosponsive: n8n Workflow Adapter"
#define PRS_TOOL_NAME_MAX 64
#define PRS_TOOL_DESCRIPTION_MAX 1024

/* Why no webhook qualifies, from the first Webhook node there is. */
typedef enum
{
  PRS_WEBHOOK_PROBLEM_NONE,        /* an entry webhook was found */
  PRS_WEBHOOK_PROBLEM_NO_NODE,     /* there is no Webhook node at all */
  PRS_WEBHOOK_PROBLEM_DISABLED,
  PRS_WEBHOOK_PROBLEM_NO_PATH,
  PRS_WEBHOOK_PROBLEM_NOT_POST,
} PrsWebhookProblem;

/* What the rules found out about one workflow; the checklist is made from
 * it. The workflow's nodes are released once analysed (their parameters
 * are the bulk of its JSON): everything the collision pass and the
 * checklist need is kept here or in the workflow's other fields. */
typedef struct
{
  PrsWorkflow *workflow;            /* without nodes */
  gboolean     published;
  gboolean     has_webhook;
  gboolean     is_adapter;
  gboolean     discoverable;
  gboolean     name_stripped;       /* characters were removed or cut from the name */
  gboolean     name_suffixed;       /* a collision suffix was added */
  char        *base_name;           /* the tool name before any collision suffix */
  guint        n_code_nodes;        /* enabled Code and Function nodes */
  guint        n_code_matches;
  gboolean     too_many_params;     /* the Code nodes read more than PRS_TOOL_MAX_PARAMS */
  gboolean     too_large;           /* n8n's answer was over PRS_WORKFLOW_MAX_BYTES: not read */
  PrsWebhookProblem webhook_problem;
  char        *webhook_problem_node; /* the first Webhook node's name when it is the problem */
  PrsTool     *tool;                /* always set; webhook fields NULL without a webhook */
  /* prs_analysis_draft_checklist (): where in the drafts its checklist
   * starts, the tool name's value goes, the "tool-name" check goes, and
   * it ends */
  gboolean     drafted;
  gsize        draft_at;
  gsize        draft_name_at;
  gsize        draft_tail_at;
  gsize        draft_end;
} PrsAnalysis;

char        *prs_discovery_tool_name        (const char         *workflow_name,
                                             const char         *workflow_id,
                                             gboolean           *out_stripped);
char        *prs_discovery_collision_name   (const char         *base_name,
                                             const char         *workflow_id);

/* Analyses one workflow (takes ownership of @workflow, and releases its
 * nodes). */
PrsAnalysis *prs_analysis_new               (PrsWorkflow        *workflow);
void         prs_analysis_free              (PrsAnalysis        *analysis);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrsAnalysis, prs_analysis_free)

/* Analyses a whole set of workflows (JsonObject*, as n8n returns them) and
 * resolves name collisions. Archived and inactive workflows are skipped.
 * Returns PrsAnalysis* in input order; @out_tools gets the discoverable
 * tools (PrsTool*, owned by the analyses). The same as
 * prs_discovery_analyse_workflow () on each, then
 * prs_discovery_resolve_collisions (). */
GPtrArray   *prs_discovery_analyse_all      (GPtrArray          *workflows,
                                             GPtrArray         **out_tools);
/* The first half, one workflow at a time, so that its JSON can be dropped
 * right after: NULL when @workflow is skipped (not a workflow, archived or
 * inactive). The analysis keeps no reference to @workflow. */
PrsAnalysis *prs_discovery_analyse_workflow (JsonObject         *workflow);
/* The second half, over all the analyses (PrsAnalysis*) of one discovery:
 * name collisions. @out_tools as in prs_discovery_analyse_all (). */
void         prs_discovery_resolve_collisions (GPtrArray        *analyses,
                                               GPtrArray       **out_tools);

#define PRS_TYPE_DISCOVERY (prs_discovery_get_type ())
G_DECLARE_FINAL_TYPE (PrsDiscovery, prs_discovery, PRS, DISCOVERY, GObject)

PrsDiscovery *prs_discovery_new              (PrsStore           *store,
                                              PrsSecrets         *secrets);

/* One discovery against the n8n configured in the store: list, get each,
 * analyse, store. A failure records why and keeps the previous tools.
 * Finishes with the discovered tools (PrsTool*). */
void          prs_discovery_run_async        (PrsDiscovery       *self,
                                              GCancellable       *cancellable,
                                              GAsyncReadyCallback callback,
                                              gpointer            user_data);
GPtrArray    *prs_discovery_run_finish       (PrsDiscovery       *self,
                                              GAsyncResult       *result,
                                              GError            **error);

/* Runs discovery now and then every @interval_seconds (0 stops the
 * schedule). A run still in progress is never started twice. */
void          prs_discovery_set_schedule     (PrsDiscovery       *self,
                                              guint               interval_seconds);
/* A tool's webhook answered 404 (docs/workflows.md, "Answers"): discovery
 * runs now, so the tool stops being offered. Asked again within
 * PRS_DISCOVERY_REDISCOVER_WINDOW_MS of the last time, it does nothing and
 * returns FALSE: the calls of one turn to a workflow that is gone make one
 * discovery. Asked while a discovery runs, one more follows it. */
#define PRS_DISCOVERY_REDISCOVER_WINDOW_MS 5000
gboolean      prs_discovery_request_rediscovery (PrsDiscovery    *self);
/* Tests shorten the window. */
void          prs_discovery_set_rediscover_window (PrsDiscovery  *self,
                                                   guint          milliseconds);
gboolean      prs_discovery_get_running      (PrsDiscovery       *self);
guint         prs_discovery_get_n_runs       (PrsDiscovery       *self);

G_END_DECLS
