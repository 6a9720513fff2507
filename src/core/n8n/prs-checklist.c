/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-checklist.c: the Workflow Checklist (docs/workflows.md): for every workflow
 * seen, what holds and what to change, so an author sees why a workflow is
 * or is not a tool. */
#include "config.h"

#include <string.h>
#include <glib/gi18n-lib.h>

#include "prs-checklist.h"
#include "prs-discovery.h"

typedef enum
{
  CHECK_PASS,
  CHECK_WARN,
  CHECK_FAIL,
} CheckStatus;

static void
add_check (JsonArray   *checks,
           const char  *id,
           CheckStatus  status,
           const char  *message)
{
  static const char * const names[] = { "pass", "warn", "fail" };
  JsonObject *check = json_object_new ();

  json_object_set_string_member (check, "id", id);
  json_object_set_string_member (check, "status", names[status]);
  json_object_set_string_member (check, "message", message);
  json_array_add_object_element (checks, check);
}

/* A check whose message is a constant (translated) string is the same
 * sealed node in every checklist, built once: a discovery of 1,000
 * workflows made and freed ~4,000 identical objects. Keyed by the
 * message's address (each constant belongs to one id and status). */
static void
add_fixed_check (JsonArray   *checks,
                 const char  *id,
                 CheckStatus  status,
                 const char  *message)
{
  static GMutex lock;
  static GHashTable *nodes;   /* message → sealed JsonNode, never freed */
  JsonNode *node;

  g_mutex_lock (&lock);
  if (nodes == NULL)
    nodes = g_hash_table_new (NULL, NULL);
  node = g_hash_table_lookup (nodes, message);
  if (node == NULL)
    {
      g_autoptr(JsonArray) one = json_array_new ();

      add_check (one, id, status, message);
      node = json_node_copy (json_array_get_element (one, 0));
      json_node_seal (node);
      g_hash_table_insert (nodes, (gpointer) message, node);
    }
  node = json_node_ref (node);
  g_mutex_unlock (&lock);

  json_array_add_element (checks, node);
}

static void
check_published (JsonArray         *checks,
                 const PrsAnalysis *analysis)
{
  const PrsWorkflow *workflow = analysis->workflow;

  if (workflow->archived)
    add_fixed_check (checks, "published", CHECK_FAIL,
               _("The workflow is archived. Restore and publish it in n8n."));
  else if (workflow->active == PRS_ACTIVE_YES)
    add_fixed_check (checks, "published", CHECK_PASS, _("The workflow is published (active)."));
  else if (workflow->active == PRS_ACTIVE_NO)
    add_fixed_check (checks, "published", CHECK_FAIL,
               _("The workflow is not published. Publish (activate) it in n8n."));
  else
    add_fixed_check (checks, "published", CHECK_WARN,
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
check_webhook (JsonArray         *checks,
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
check_tool_name (JsonArray         *checks,
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
check_description (JsonArray         *checks,
                   const PrsAnalysis *analysis)
{
  switch (analysis->tool->description_source)
    {
    case PRS_DESCRIPTION_WORKFLOW:
      add_fixed_check (checks, "description", CHECK_PASS,
                 _("The description comes from the workflow’s description."));
      break;
    case PRS_DESCRIPTION_STICKY_NOTE:
      add_fixed_check (checks, "description", CHECK_PASS,
                 _("The description comes from the first paragraph of a Sticky Note."));
      break;
    case PRS_DESCRIPTION_GENERATED:
    default:
      add_fixed_check (checks, "description", CHECK_WARN,
                 _("There is no description, so a generic one was generated. Describe when to use the tool in the workflow’s description or in a Sticky Note."));
      break;
    }
}

static void
check_parameters (JsonArray         *checks,
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
    add_fixed_check (checks, "parameters", CHECK_WARN,
               _("Code nodes exist, but no parameter was found in them. Read inputs as “parameters.name ?? default”, “body.name ?? default” or “const name = body.name;”."));
  else
    add_fixed_check (checks, "parameters", CHECK_PASS,
               _("There are no Code nodes, so the tool takes no parameters."));
}

static void
check_response_mode (JsonArray         *checks,
                     const PrsAnalysis *analysis)
{
  const char *mode = analysis->tool->response_mode;

  if (!analysis->has_webhook)
    add_fixed_check (checks, "response-mode", CHECK_WARN,
               _("There is no webhook entry point to answer from."));
  else if (g_strcmp0 (mode, "onReceived") == 0)
    add_fixed_check (checks, "response-mode", CHECK_WARN,
               _("The webhook responds immediately, so results only arrive when the workflow posts them to /api/ai/agentic-loop-result. Choose “When Last Node Finishes” or “Using ‘Respond to Webhook’ Node” to answer directly."));
  else if (g_strcmp0 (mode, "responseNode") == 0)
    add_fixed_check (checks, "response-mode", CHECK_PASS,
               _("The result is what the Respond to Webhook node sends."));
  else if (g_strcmp0 (mode, "lastNode") == 0)
    add_fixed_check (checks, "response-mode", CHECK_PASS,
               _("The result is the output of the last node."));
  else
    {
      g_autofree char *message = g_strdup_printf (_("The webhook responds in the mode “%s”."), mode);

      add_check (checks, "response-mode", CHECK_PASS, message);
    }
}

static void
check_webhook_url (JsonArray         *checks,
                   const PrsAnalysis *analysis)
{
  if (!analysis->has_webhook)
    add_fixed_check (checks, "webhook-url", CHECK_WARN,
               _("There is no webhook entry point to call."));
  else if (analysis->tool->webhook_id != NULL)
    {
      g_autofree char *message = g_strdup_printf (_("The tool is called at /webhook/%s."),
                                                  analysis->tool->webhook_path);

      add_check (checks, "webhook-url", CHECK_PASS, message);
    }
  else
    add_fixed_check (checks, "webhook-url", CHECK_WARN,
               _("The Webhook node has no webhookId, so n8n serves it under the workflow id and the node’s name, which change when either does. Add the Webhook node in the n8n editor to get a stable URL."));
}

static JsonArray *
build_checks (const PrsAnalysis *analysis)
{
  JsonArray *checks = json_array_sized_new (8);

  check_published (checks, analysis);
  if (analysis->too_large)
    {
      g_autofree char *size = g_format_size_full (PRS_WORKFLOW_MAX_BYTES, G_FORMAT_SIZE_IEC_UNITS);
      g_autofree char *message =
        g_strdup_printf (_("The workflow is larger than %s, so it was not read. Move large data "
                           "out of its nodes, or split it."), size);

      /* Nothing else is known of it */
      add_check (checks, "size", CHECK_FAIL, message);
      return checks;
    }
  check_webhook (checks, analysis);
  if (analysis->is_adapter)
    add_fixed_check (checks, "not-adapter", CHECK_FAIL,
               _("This is the Prosponsive adapter workflow, which is never offered as a tool."));
  else
    add_fixed_check (checks, "not-adapter", CHECK_PASS, _("This is not the Prosponsive adapter workflow."));
  check_tool_name (checks, analysis);
  check_description (checks, analysis);
  check_parameters (checks, analysis);
  check_response_mode (checks, analysis);
  check_webhook_url (checks, analysis);

  return checks;
}

/* Built directly rather than through JsonBuilder: the same tree, without
 * the builder's state and copies (a discovery makes one per workflow). */
JsonNode *
prs_analysis_build_checks (const PrsAnalysis *analysis)
{
  JsonNode *node;

  g_return_val_if_fail (analysis != NULL, NULL);

  node = json_node_init (json_node_alloc (), JSON_NODE_ARRAY);
  json_node_take_array (node, build_checks (analysis));

  return node;
}

JsonNode *
prs_analysis_to_checklist (const PrsAnalysis *analysis)
{
  JsonObject *checklist;
  JsonNode *node;

  g_return_val_if_fail (analysis != NULL, NULL);

  checklist = json_object_new ();
  if (analysis->workflow->id != NULL)
    json_object_set_string_member (checklist, "workflowId", analysis->workflow->id);
  else
    json_object_set_null_member (checklist, "workflowId");
  json_object_set_string_member (checklist, "workflowName", analysis->workflow->name);
  json_object_set_boolean_member (checklist, "discoverable", analysis->discoverable);
  if (analysis->discoverable)
    json_object_set_string_member (checklist, "toolName", analysis->tool->name);
  else
    json_object_set_null_member (checklist, "toolName");
  json_object_set_array_member (checklist, "checks", build_checks (analysis));

  node = json_node_init (json_node_alloc (), JSON_NODE_OBJECT);
  json_node_take_object (node, checklist);

  return node;
}
