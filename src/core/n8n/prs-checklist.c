/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-checklist.c: the Workflow Checklist (docs/workflows.md): for every workflow
 * seen, what holds and what to change, so an author sees why a workflow is
 * or is not a tool. */
#include "config.h"

#include <string.h>
#include <glib/gi18n-lib.h>

#include "prs-checklist.h"
#include "prs-discovery.h"
#include "prs-json.h"

typedef enum
{
  CHECK_PASS,
  CHECK_WARN,
  CHECK_FAIL,
} CheckStatus;

/* The checks are written straight to JSON text: a discovery of 1,000
 * workflows made ~10 json-glib objects per workflow only for the store to
 * print them again. */
typedef struct
{
  GString  *out;
  gboolean  first;
} Checks;

static void
add_check (Checks      *checks,
           const char  *id,
           CheckStatus  status,
           const char  *message)
{
  static const char * const names[] = { "pass", "warn", "fail" };

  g_string_append (checks->out, checks->first ? "{\"id\":" : ",{\"id\":");
  checks->first = FALSE;
  prs_json_append_string (checks->out, id);
  g_string_append (checks->out, ",\"status\":\"");
  g_string_append (checks->out, names[status]);
  g_string_append (checks->out, "\",\"message\":");
  prs_json_append_string (checks->out, message);
  g_string_append_c (checks->out, '}');
}

static void
check_published (Checks            *checks,
                 const PrsAnalysis *analysis)
{
  const PrsWorkflow *workflow = analysis->workflow;

  if (workflow->archived)
    add_check (checks, "published", CHECK_FAIL,
               _("The workflow is archived. Restore and publish it in n8n."));
  else if (workflow->active == PRS_ACTIVE_YES)
    add_check (checks, "published", CHECK_PASS, _("The workflow is published (active)."));
  else if (workflow->active == PRS_ACTIVE_NO)
    add_check (checks, "published", CHECK_FAIL,
               _("The workflow is not published. Publish (activate) it in n8n."));
  else
    add_check (checks, "published", CHECK_WARN,
               _("The file does not say whether the workflow is published. It must be published (active) in n8n to be discovered."));
}

/* Says why no webhook qualifies, from the first Webhook node there is. */
static char *
explain_missing_webhook (const PrsAnalysis *analysis)
{
  const char *name = analysis->webhook_problem_node;

  switch (analysis->webhook_problem)
    {
    case PRS_WEBHOOK_PROBLEM_DISABLED:
      return g_strdup_printf (_("The Webhook node “%s” is disabled. Enable it."), name);
    case PRS_WEBHOOK_PROBLEM_NO_PATH:
      return g_strdup_printf (_("The Webhook node “%s” has no path. Give it one."), name);
    case PRS_WEBHOOK_PROBLEM_NOT_POST:
      return g_strdup_printf (_("The Webhook node “%s” does not accept POST. Set its HTTP method to POST."),
                              name);
    case PRS_WEBHOOK_PROBLEM_NONE:
    case PRS_WEBHOOK_PROBLEM_NO_NODE:
    default:
      return g_strdup (_("There is no Webhook trigger. Add a Webhook node with the HTTP method POST and a path."));
    }
}

static void
check_webhook (Checks            *checks,
               const PrsAnalysis *analysis)
{
  if (analysis->has_webhook)
    {
      g_autofree char *message =
        g_strdup_printf (_("The Webhook node “%s” accepts POST on the path “%s”."),
                         analysis->tool->webhook_node_name, analysis->tool->webhook_path);

      add_check (checks, "webhook", CHECK_PASS, message);
    }
  else
    {
      g_autofree char *message = explain_missing_webhook (analysis);

      add_check (checks, "webhook", CHECK_FAIL, message);
    }
}

static void
check_tool_name (Checks            *checks,
                 const PrsAnalysis *analysis)
{
  g_autofree char *message = NULL;

  if (analysis->name_suffixed)
    {
      message = g_strdup_printf (_("The tool is named “%s”: an older workflow already gives the name “%s”. Rename one of them."),
                                 analysis->tool->name, analysis->base_name);
      add_check (checks, "tool-name", CHECK_WARN, message);
    }
  else if (analysis->name_stripped)
    {
      message = g_strdup_printf (_("The tool is named “%s”: characters other than letters a–z, digits and spaces were removed."),
                                 analysis->tool->name);
      add_check (checks, "tool-name", CHECK_WARN, message);
    }
  else
    {
      message = g_strdup_printf (_("The tool is named “%s”."), analysis->tool->name);
      add_check (checks, "tool-name", CHECK_PASS, message);
    }
}

static void
check_description (Checks            *checks,
                   const PrsAnalysis *analysis)
{
  switch (analysis->tool->description_source)
    {
    case PRS_DESCRIPTION_WORKFLOW:
      add_check (checks, "description", CHECK_PASS,
                 _("The description comes from the workflow’s description."));
      break;
    case PRS_DESCRIPTION_STICKY_NOTE:
      add_check (checks, "description", CHECK_PASS,
                 _("The description comes from the first paragraph of a Sticky Note."));
      break;
    case PRS_DESCRIPTION_GENERATED:
    default:
      add_check (checks, "description", CHECK_WARN,
                 _("There is no description, so a generic one was generated. Describe when to use the tool in the workflow’s description or in a Sticky Note."));
      break;
    }
}

static void
check_parameters (Checks            *checks,
                  const PrsAnalysis *analysis)
{
  GPtrArray *params = analysis->tool->params;

  if (analysis->too_many_params)
    {
      g_autofree char *message =
        g_strdup_printf (_("The Code nodes read more than %u parameters; a tool takes at most %u. "
                           "Pass related values as one object parameter."),
                         PRS_TOOL_MAX_PARAMS, PRS_TOOL_MAX_PARAMS);

      add_check (checks, "parameters", CHECK_FAIL, message);
    }
  else if (params->len > 0)
    {
      g_autoptr(GString) names = g_string_new (NULL);
      g_autofree char *message = NULL;

      for (guint i = 0; i < params->len; i++)
        {
          const PrsParam *param = g_ptr_array_index (params, i);

          if (i > 0)
            g_string_append (names, ", ");
          g_string_append (names, param->name);
        }

      message = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u parameter found: %s.",
                                              "%u parameters found: %s.", params->len),
                                 params->len, names->str);
      add_check (checks, "parameters", CHECK_PASS, message);
    }
  else if (analysis->n_code_nodes > 0)
    add_check (checks, "parameters", CHECK_WARN,
               _("Code nodes exist, but no parameter was found in them. Read inputs as “parameters.name ?? default”, “body.name ?? default” or “const name = body.name;”."));
  else
    add_check (checks, "parameters", CHECK_PASS,
               _("There are no Code nodes, so the tool takes no parameters."));
}

static void
check_response_mode (Checks            *checks,
                     const PrsAnalysis *analysis)
{
  const char *mode = analysis->tool->response_mode;

  if (!analysis->has_webhook)
    add_check (checks, "response-mode", CHECK_WARN,
               _("There is no webhook entry point to answer from."));
  else if (g_strcmp0 (mode, "onReceived") == 0)
    add_check (checks, "response-mode", CHECK_WARN,
               _("The webhook responds immediately, so results only arrive when the workflow posts them to /api/ai/agentic-loop-result. Choose “When Last Node Finishes” or “Using ‘Respond to Webhook’ Node” to answer directly."));
  else if (g_strcmp0 (mode, "responseNode") == 0)
    add_check (checks, "response-mode", CHECK_PASS,
               _("The result is what the Respond to Webhook node sends."));
  else if (g_strcmp0 (mode, "lastNode") == 0)
    add_check (checks, "response-mode", CHECK_PASS,
               _("The result is the output of the last node."));
  else
    {
      g_autofree char *message = g_strdup_printf (_("The webhook responds in the mode “%s”."), mode);

      add_check (checks, "response-mode", CHECK_PASS, message);
    }
}

static void
check_webhook_url (Checks            *checks,
                   const PrsAnalysis *analysis)
{
  if (!analysis->has_webhook)
    add_check (checks, "webhook-url", CHECK_WARN,
               _("There is no webhook entry point to call."));
  else if (analysis->tool->webhook_id != NULL)
    {
      g_autofree char *message = g_strdup_printf (_("The tool is called at /webhook/%s."),
                                                  analysis->tool->webhook_path);

      add_check (checks, "webhook-url", CHECK_PASS, message);
    }
  else
    add_check (checks, "webhook-url", CHECK_WARN,
               _("The Webhook node has no webhookId, so n8n serves it under the workflow id and the node’s name, which change when either does. Add the Webhook node in the n8n editor to get a stable URL."));
}

/* The checks before "tool-name" (the first three, or all of a workflow too
 * large to read), without the array's brackets. */
static void
append_checks_before_name (Checks            *checks,
                           const PrsAnalysis *analysis)
{
  check_published (checks, analysis);
  if (analysis->too_large)
    {
      g_autofree char *size = g_format_size_full (PRS_WORKFLOW_MAX_BYTES, G_FORMAT_SIZE_IEC_UNITS);
      g_autofree char *message =
        g_strdup_printf (_("The workflow is larger than %s, so it was not read. Move large data "
                           "out of its nodes, or split it."), size);

      /* Nothing else is known of it */
      add_check (checks, "size", CHECK_FAIL, message);
      return;
    }
  check_webhook (checks, analysis);
  if (analysis->is_adapter)
    add_check (checks, "not-adapter", CHECK_FAIL,
               _("This is the Prosponsive adapter workflow, which is never offered as a tool."));
  else
    add_check (checks, "not-adapter", CHECK_PASS, _("This is not the Prosponsive adapter workflow."));
}

/* The checks after "tool-name" */
static void
append_checks_after_name (Checks            *checks,
                          const PrsAnalysis *analysis)
{
  check_description (checks, analysis);
  check_parameters (checks, analysis);
  check_response_mode (checks, analysis);
  check_webhook_url (checks, analysis);
}

/* Appends the checks array */
static void
append_checks (GString           *out,
               const PrsAnalysis *analysis)
{
  Checks checks = { out, TRUE };

  g_string_append_c (out, '[');
  append_checks_before_name (&checks, analysis);
  if (!analysis->too_large)
    {
      check_tool_name (&checks, analysis);
      append_checks_after_name (&checks, analysis);
    }
  g_string_append_c (out, ']');
}

static void
append_nullable_string (GString    *out,
                        const char *value)
{
  if (value != NULL)
    prs_json_append_string (out, value);
  else
    g_string_append (out, "null");
}

/* Up to the tool name's value, which the collisions may yet change */
static void
append_checklist_head (GString           *out,
                       const PrsAnalysis *analysis)
{
  g_string_append (out, "{\"workflowId\":");
  append_nullable_string (out, analysis->workflow->id);
  g_string_append (out, ",\"workflowName\":");
  prs_json_append_string (out, analysis->workflow->name);
  g_string_append (out, analysis->discoverable ? ",\"discoverable\":true,\"toolName\":"
                                               : ",\"discoverable\":false,\"toolName\":");
}

void
prs_analysis_append_checklist (GString           *out,
                               const PrsAnalysis *analysis)
{
  g_return_if_fail (out != NULL);
  g_return_if_fail (analysis != NULL);

  append_checklist_head (out, analysis);
  append_nullable_string (out, analysis->discoverable ? analysis->tool->name : NULL);
  g_string_append (out, ",\"checks\":");
  append_checks (out, analysis);
  g_string_append_c (out, '}');
}

void
prs_analysis_draft_checklist (PrsAnalysis *analysis,
                              GString     *drafts)
{
  Checks checks = { drafts, TRUE };

  g_return_if_fail (analysis != NULL);
  g_return_if_fail (drafts != NULL);

  /* A workflow too large to read has no tool name to wait for */
  if (analysis->too_large)
    return;

  /* Into the discovery's one buffer: a buffer each would cost a malloc of
   * nearly 1 KiB per workflow, which glibc serves only after sorting every
   * block the previous workflow's JSON tree freed. */
  analysis->drafted = TRUE;
  analysis->draft_at = drafts->len;
  append_checklist_head (drafts, analysis);
  analysis->draft_name_at = drafts->len;
  g_string_append (drafts, ",\"checks\":[");
  append_checks_before_name (&checks, analysis);
  analysis->draft_tail_at = drafts->len;
  append_checks_after_name (&checks, analysis);
  g_string_append (drafts, "]}");
  analysis->draft_end = drafts->len;
}

/* The checklist from its draft: the same text as
 * prs_analysis_append_checklist () writes */
static void
append_from_draft (GString           *out,
                   const PrsAnalysis *analysis,
                   const GString     *drafts)
{
  const char *draft = drafts->str;
  Checks checks = { out, FALSE };

  g_string_append_len (out, draft + analysis->draft_at,
                       analysis->draft_name_at - analysis->draft_at);
  append_nullable_string (out, analysis->discoverable ? analysis->tool->name : NULL);
  g_string_append_len (out, draft + analysis->draft_name_at,
                       analysis->draft_tail_at - analysis->draft_name_at);
  check_tool_name (&checks, analysis);
  g_string_append_len (out, draft + analysis->draft_tail_at,
                       analysis->draft_end - analysis->draft_tail_at);
}

/* The trees are read back from the text: one writer, so the checklist a
 * discovery stores and the one `check-workflow` prints cannot differ. */
static JsonNode *
parse_written (GString *text)
{
  g_autoptr(GError) error = NULL;
  JsonNode *node = prs_json_parse_bounded (text->str, text->len, PRS_JSON_DEFAULT_MAX_DEPTH, &error);

  if (node == NULL)
    g_error ("The checklist writer wrote invalid JSON: %s", error->message);

  return node;
}

JsonNode *
prs_analysis_build_checks (const PrsAnalysis *analysis)
{
  g_autoptr(GString) text = g_string_new (NULL);

  g_return_val_if_fail (analysis != NULL, NULL);

  append_checks (text, analysis);
  return parse_written (text);
}

JsonNode *
prs_analysis_to_checklist (const PrsAnalysis *analysis)
{
  g_autoptr(GString) text = g_string_new (NULL);

  g_return_val_if_fail (analysis != NULL, NULL);

  prs_analysis_append_checklist (text, analysis);
  return parse_written (text);
}

PrsChecklists *
prs_checklists_new (GPtrArray     *analyses,
                    const GString *drafts)
{
  PrsChecklists *self;
  g_autoptr(GArray) offsets = NULL;

  g_return_val_if_fail (analyses != NULL, NULL);

  offsets = g_array_sized_new (FALSE, FALSE, sizeof (gsize), analyses->len);
  self = g_new0 (PrsChecklists, 1);
  /* One buffer for all, freed at once */
  self->text = g_string_new (NULL);
  self->rows = g_array_sized_new (FALSE, FALSE, sizeof (PrsChecklistInsert), analyses->len);
  for (guint i = 0; i < analyses->len; i++)
    {
      const PrsAnalysis *analysis = g_ptr_array_index (analyses, i);
      gsize offset = self->text->len;
      PrsChecklistInsert row = {
        .workflow_id = analysis->workflow->id,
        .workflow_name = analysis->workflow->name,
        .discoverable = analysis->discoverable,
        .tool_name = analysis->discoverable ? analysis->tool->name : NULL,
      };

      if (drafts != NULL && analysis->drafted && analysis->draft_end <= drafts->len)
        append_from_draft (self->text, analysis, drafts);
      else
        prs_analysis_append_checklist (self->text, analysis);
      g_string_append_c (self->text, '\0');
      g_array_append_val (offsets, offset);
      g_array_append_val (self->rows, row);
    }

  /* The buffer moved as it grew: point into it once it is written */
  for (guint i = 0; i < self->rows->len; i++)
    g_array_index (self->rows, PrsChecklistInsert, i).json =
      self->text->str + g_array_index (offsets, gsize, i);

  return self;
}

void
prs_checklists_free (PrsChecklists *self)
{
  if (self == NULL)
    return;

  g_string_free (self->text, TRUE);
  g_array_unref (self->rows);
  g_free (self);
}
