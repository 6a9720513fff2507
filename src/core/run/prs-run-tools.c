/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-run-tools.c: a run's tool round — the tools its agent may use (n8n's
 * and the MCP servers'), the calls the model proposes (bound to the agent's
 * guidance, checked for repeats and the round limit, decided by a rule or
 * left to a person), a person's decisions, running a call
 * (prs-tool-invoke.h) with its progress on the card, settling its result,
 * and the hygiene that keeps invisible characters from the model. The
 * state machine (prs-run.c) calls these and goes on; nothing here does. */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "prs-error.h"
#include "prs-guidance.h"
#include "prs-invisible.h"
#include "prs-json.h"
#include "prs-run-private.h"
#include "prs-tool-invoke.h"

/* ---- the tools of the agent ---- */

gboolean
_prs_run_is_mcp_client (PrsRun *self)
{
  return g_strcmp0 (self->row->origin, PRS_RUN_ORIGIN_MCP_CLIENT) == 0;
}

/* Why the run may not call @name, or NULL when it may: an agent's run
 * calls the agent's tools; an MCP client only what is exposed to them
 * (docs/mcp.md), whatever the default agent allows */
static char *
refusal (PrsRun     *self,
         const char *name)
{
  if (_prs_run_is_mcp_client (self))
    return prs_tool_is_exposed (self->env, name) ? NULL
           : g_strdup_printf (_("The tool “%s” is not offered to MCP clients."), name);
  if (prs_agent_allows_tool (self->agent, name))
    return NULL;
  return g_strdup_printf (_("The agent “%s” may not use the tool “%s”."), self->agent->name, name);
}

GPtrArray *
_prs_run_allowed_tools (PrsRun *self)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) all = NULL;
  GPtrArray *tools = g_ptr_array_new_with_free_func ((GDestroyNotify) prs_tool_free);

  /* An agent without tools reads none */
  if (self->agent->allowed_tools != NULL && self->agent->allowed_tools[0] == NULL)
    return tools;
  all = prs_tool_list_all (self->env, &error);
  if (all == NULL)
    {
      g_message ("Could not read the tools: %s", error->message);
      return tools;
    }
  for (guint i = 0; i < all->len && tools->len < PRS_RUN_MAX_TOOLS; i++)
    {
      PrsTool *tool = g_ptr_array_index (all, i);

      if (prs_agent_allows_tool (self->agent, tool->name))
        g_ptr_array_add (tools, g_steal_pointer (&g_ptr_array_index (all, i)));
    }
  return tools;
}

/* How many tools the agent may use beyond PRS_RUN_MAX_TOOLS */
static guint
count_left_out (PrsRun *self)
{
  g_autoptr(GPtrArray) all = NULL;
  guint n = 0;

  /* A list of at most that many names cannot allow more */
  if (self->agent->allowed_tools != NULL &&
      g_strv_length (self->agent->allowed_tools) <= PRS_RUN_MAX_TOOLS)
    return 0;
  all = prs_tool_list_all (self->env, NULL);

  for (guint i = 0; all != NULL && i < all->len; i++)
    n += prs_agent_allows_tool (self->agent, ((PrsTool *) g_ptr_array_index (all, i))->name) ? 1 : 0;
  return n > PRS_RUN_MAX_TOOLS ? n - PRS_RUN_MAX_TOOLS : 0;
}

/* An allowed tool that is not there is said, not fatal; so are tools left
 * out past the most a model is offered */
void
_prs_run_say_missing_tools (PrsRun *self)
{
  g_autoptr(GPtrArray) tools = NULL;
  guint left_out = count_left_out (self);

  if (left_out > 0)
    {
      g_autofree char *notice =
        g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                      "The agent may use more tools than a model is offered at once (%u): %u tool "
                                      "was left out. Choose the agent’s tools in its editor.",
                                      "The agent may use more tools than a model is offered at once (%u): %u tools "
                                      "were left out. Choose the agent’s tools in its editor.", left_out),
                         PRS_RUN_MAX_TOOLS, left_out);

      _prs_run_add_notice (self, notice);
    }
  if (self->agent->allowed_tools == NULL)
    return;

  tools = _prs_run_allowed_tools (self);
  for (guint i = 0; self->agent->allowed_tools[i] != NULL; i++)
    {
      const char *name = self->agent->allowed_tools[i];
      gboolean found = FALSE;
      g_autofree char *notice = NULL;

      for (guint j = 0; j < tools->len; j++)
        found = found || g_strcmp0 (((PrsTool *) g_ptr_array_index (tools, j))->name, name) == 0;
      if (found)
        continue;
      /* MCP tools' names, and no n8n tool's, hold "__" (docs/mcp.md) */
      if (strstr (name, "__") != NULL)
        notice = g_strdup_printf (_("The agent’s tool “%s” is not listed by an MCP server that is switched on; "
                                    "the agent runs without it."), name);
      else
        notice = g_strdup_printf (_("The agent’s tool “%s” is not discovered on n8n; the agent runs without it."),
                                  name);
      _prs_run_add_notice (self, notice);
    }
}

/* ---- proposals ---- */

/* The call's name and its arguments with members sorted: the same
 * arguments in any order compare equal */
static char *
call_signature (const char *name,
                JsonObject *arguments)
{
  g_autoptr(JsonObject) none = arguments == NULL ? json_object_new () : NULL;
  g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), arguments != NULL ? arguments : none);
  GString *out = g_string_new (name);

  g_string_append_c (out, '\n');
  prs_json_append (out, node, PRS_JSON_SORTED, G_MAXSIZE);
  return g_string_free (out, FALSE);
}

JsonObject *
_prs_run_call_extra (PrsRun         *self,
                     PrsToolCallRow *call,
                     JsonObject     *provenance)
{
  JsonObject *extra = NULL;
  g_autoptr(JsonNode) message = prs_store_get_message (self->env->store, call->message_id, NULL);
  JsonNode *old = message != NULL ? json_object_get_member (json_node_get_object (message), "extra") : NULL;
  g_autoptr(JsonObject) arguments = _prs_run_parse_object (call->arguments_json);
  /* A tree of our own to change: the stored one, read again from its text */
  g_autofree char *old_text = old != NULL ? prs_json_to_string (old, FALSE) : NULL;
  g_autoptr(JsonNode) copy = old_text != NULL ? json_from_string (old_text, NULL) : NULL;

  if (copy != NULL && JSON_NODE_HOLDS_OBJECT (copy))
    extra = json_object_ref (json_node_get_object (copy));
  else
    extra = json_object_new ();

  json_object_set_string_member (extra, "name", call->name);
  json_object_set_string_member (extra, "toolCallId", call->id);
  json_object_set_int_member (extra, "round", call->round);
  json_object_set_object_member (extra, "arguments", arguments != NULL ? json_object_ref (arguments) : json_object_new ());
  if (provenance != NULL)
    json_object_set_object_member (extra, "provenance", json_object_ref (provenance));
  json_object_set_string_member (extra, "runId", self->row->id);
  return extra;
}

void
_prs_run_save_call (PrsRun         *self,
                    PrsToolCallRow *call,
                    const char     *status,
                    JsonObject     *extra)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *extra_json = NULL;

  if (_prs_run_writes_refused (self))
    return;
  extra_json = extra != NULL ? prs_json_object_to_string (extra, FALSE) : NULL;
  g_free (call->status);
  call->status = g_strdup (status);
  if (!prs_store_save_tool_call (self->env->store, call, status, extra_json, &error))
    {
      g_message ("Could not save tool call %s: %s", call->id, error->message);
      _prs_run_note_unsaved (self, error);
    }
  else
    _prs_run_emit_message_changed (self, call->message_id);
}

static void
deny_call (PrsRun         *self,
           PrsToolCallRow *call,
           const char     *why)
{
  g_autoptr(JsonObject) extra = _prs_run_call_extra (self, call, NULL);
  g_autoptr(JsonObject) result = json_object_new ();

  json_object_set_boolean_member (result, "success", FALSE);
  json_object_set_boolean_member (result, "denied", TRUE);
  json_object_set_string_member (result, "error", why);
  g_free (call->result_text);
  call->result_text = prs_json_object_to_string (result, FALSE);
  json_object_set_string_member (extra, "error", why);
  _prs_run_save_call (self, call, "denied", extra);
}

/* How often each call (name and arguments) was made in the run so far */
static GHashTable *
count_earlier_calls (PrsRun *self)
{
  g_autoptr(GPtrArray) earlier = prs_store_list_tool_calls (self->env->store, self->row->id, NULL);
  GHashTable *seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  for (guint i = 0; earlier != NULL && i < earlier->len; i++)
    {
      PrsToolCallRow *row = g_ptr_array_index (earlier, i);
      g_autoptr(JsonObject) args = _prs_run_parse_object (row->arguments_json);
      char *signature = call_signature (row->name, args);

      g_hash_table_insert (seen, signature,
                           GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (seen, signature)) + 1));
    }
  return seen;
}

static const PrsTool *
find_tool (GPtrArray  *tools,
           const char *name)
{
  const PrsTool *found = NULL;

  for (guint j = 0; j < tools->len; j++)
    if (g_strcmp0 (((PrsTool *) g_ptr_array_index (tools, j))->name, name) == 0)
      found = g_ptr_array_index (tools, j);
  return found;
}

static PrsToolCallRow *
proposal_new (PrsRun      *self,
              guint        position,
              PrsToolCall *model_call,
              JsonObject  *arguments)
{
  PrsToolCallRow *row = g_new0 (PrsToolCallRow, 1);

  row->id = g_uuid_string_random ();
  row->run_id = g_strdup (self->row->id);
  row->round = self->row->round;
  row->position = (int) position;
  row->provider_call_id = g_strdup (model_call->id);
  row->name = g_strdup (model_call->name);
  row->arguments_json = prs_json_object_to_string (arguments, FALSE);
  row->status = g_strdup ("proposed");
  return row;
}

/* The model's calls bound to the agent's guidance and the Request Context,
 * added to @rows and @provenances. Bound first, then counted: the
 * arguments that would run are the ones that repeat. FALSE when a call
 * repeats too often: the run has stopped. */
static gboolean
bind_calls (PrsRun          *self,
            PrsChatResponse *response,
            GPtrArray       *rows,
            GPtrArray       *provenances)
{
  g_autoptr(GHashTable) seen = count_earlier_calls (self);
  g_autoptr(GPtrArray) tools = _prs_run_allowed_tools (self);

  for (guint i = 0; i < response->tool_calls->len; i++)
    {
      PrsToolCall *model_call = g_ptr_array_index (response->tool_calls, i);
      /* An MCP client's arguments are its own: no agent's guidance or
       * Request Context binds them */
      gboolean client = _prs_run_is_mcp_client (self);
      const PrsToolGuidance *guidance = client ? NULL : prs_guidance_find_tool (self->agent->guidance, model_call->name);
      JsonObject *provenance = NULL;
      g_autoptr(JsonObject) arguments = NULL;
      g_autofree char *signature = NULL;
      guint count;

      arguments = prs_guidance_bind (guidance, find_tool (tools, model_call->name), client ? NULL : self->context,
                                     model_call->arguments, &provenance);
      signature = call_signature (model_call->name, arguments);
      count = GPOINTER_TO_UINT (g_hash_table_lookup (seen, signature)) + 1;
      g_hash_table_insert (seen, g_strdup (signature), GUINT_TO_POINTER (count));
      if (count >= self->env->limits.max_repeats)
        {
          g_autofree char *notice =
            g_strdup_printf (_("The agent asked for the same call (%s with the same arguments) %u times; the run stopped."),
                             model_call->name, count);

          if (provenance != NULL)
            json_object_unref (provenance);
          _prs_run_add_notice (self, notice);
          _prs_run_finish (self, PRS_RUN_COMPLETED, "repeated_call", NULL);
          return FALSE;
        }

      g_ptr_array_add (rows, proposal_new (self, i, model_call, arguments));
      g_ptr_array_add (provenances, provenance != NULL ? provenance : json_object_new ());
    }
  return TRUE;
}

/* The tool-call message, then the call's row. FALSE when either could not
 * be stored: the run has failed. */
static gboolean
store_proposal (PrsRun         *self,
                PrsToolCallRow *row,
                JsonObject     *provenance,
                const PrsTool  *tool)
{
  g_autoptr(JsonObject) extra = json_object_new ();
  g_autoptr(JsonObject) arguments = _prs_run_parse_object (row->arguments_json);
  g_autoptr(GError) error = NULL;

  json_object_set_string_member (extra, "name", row->name);
  /* The card says whose tool it is */
  if (tool != NULL && prs_tool_is_mcp (tool))
    json_object_set_string_member (extra, "mcpServer", tool->mcp_server);
  json_object_set_string_member (extra, "toolCallId", row->id);
  json_object_set_int_member (extra, "round", row->round);
  json_object_set_object_member (extra, "arguments", json_object_ref (arguments));
  json_object_set_object_member (extra, "provenance", json_object_ref (provenance));
  row->message_id = _prs_run_insert_message (self, "tool-call", row->name, "proposed", extra);
  if (row->message_id == NULL)
    {
      _prs_run_finish (self, PRS_RUN_FAILED, "store-error", _("A tool call could not be stored."));
      return FALSE;
    }
  if (!prs_store_save_tool_call (self->env->store, row, NULL, NULL, &error))
    {
      g_message ("Could not store tool call %s: %s", row->id, error->message);
      _prs_run_finish (self, PRS_RUN_FAILED, "store-error", error->message);
      return FALSE;
    }
  return TRUE;
}

/* Enforced here, where calls run, not in the UI: a call to a tool the
 * agent may not use is denied before any rule or person sees it, so a rule
 * for that tool in general never opens it to every agent. */
static void
apply_rule (PrsRun         *self,
            PrsToolCallRow *row)
{
  g_autofree char *rule = NULL;
  g_autofree char *why = refusal (self, row->name);

  if (why != NULL)
    {
      deny_call (self, row, why);
      return;
    }

  /* An MCP client is no agent: rules for an agent do not cover it */
  rule = prs_store_match_approval_rule (self->env->store, row->name,
                                        _prs_run_is_mcp_client (self) ? NULL : self->row->agent_id, self->slug);
  if (g_strcmp0 (rule, "approve") == 0)
    {
      g_autoptr(JsonObject) extra = _prs_run_call_extra (self, row, NULL);

      json_object_set_string_member (extra, "decidedBy", "rule");
      _prs_run_save_call (self, row, "approved", extra);
    }
  else if (g_strcmp0 (rule, "deny") == 0)
    deny_call (self, row, _("An auto-approval rule denied this tool call."));
  else
    _prs_run_emit_approval_needed (self, row->message_id, row->name);
}

void
_prs_run_propose_calls (PrsRun          *self,
                        PrsChatResponse *response)
{
  g_autoptr(GPtrArray) rows = g_ptr_array_new_with_free_func ((GDestroyNotify) prs_tool_call_row_free);
  g_autoptr(GPtrArray) provenances = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  g_autoptr(GPtrArray) tools = NULL;
  guint max_rounds = self->env->limits.max_rounds;

  if ((guint) self->row->round >= max_rounds)
    {
      g_autofree char *notice = g_strdup_printf (_("The agent stopped after %u rounds of tool calls."), max_rounds);

      _prs_run_add_notice (self, notice);
      _prs_run_finish (self, PRS_RUN_COMPLETED, "max_tool_rounds", NULL);
      return;
    }

  self->row->round++;
  if (!bind_calls (self, response, rows, provenances))
    return;
  _prs_run_save (self);

  tools = _prs_run_allowed_tools (self);
  for (guint i = 0; i < rows->len; i++)
    {
      PrsToolCallRow *row = g_ptr_array_index (rows, i);

      if (!store_proposal (self, row, g_ptr_array_index (provenances, i), find_tool (tools, row->name)))
        return;
      apply_rule (self, row);
    }
}

/* ---- decisions ---- */

/* The call of this run that @message_id names, still open to a decision */
static PrsToolCallRow *
open_call (PrsRun      *self,
           const char  *message_id,
           GError     **error)
{
  PrsToolCallRow *call;

  if (self->detached)
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_FAILED, _("Prosponsive is stopping."));
      return NULL;
    }
  call = prs_store_lookup_tool_call (self->env->store, message_id, error);
  if (call == NULL)
    {
      if (error != NULL && *error == NULL)
        g_set_error (error, PRS_ERROR, PRS_ERROR_NOT_FOUND, _("There is no such tool call."));
      return NULL;
    }
  if (prs_run_is_finished (self))
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT, _("This agent run has ended."));
      prs_tool_call_row_free (call);
      return NULL;
    }
  return call;
}

static gboolean
retry_call (PrsRun          *self,
            PrsToolCallRow  *call,
            GError         **error)
{
  g_autoptr(JsonObject) extra = NULL;

  if (g_strcmp0 (call->status, "interrupted") != 0 &&
      !(g_strcmp0 (call->status, "failed") == 0 && call->round == self->row->round &&
        json_object_has_member (_prs_run_last_entry (self), "toolCalls")))
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                   _("Only an interrupted call, or a failed one whose results the agent has not seen yet, can be retried."));
      return FALSE;
    }
  extra = _prs_run_call_extra (self, call, NULL);
  json_object_remove_member (extra, "error");
  json_object_remove_member (extra, "result");
  _prs_run_save_call (self, call, "approved", extra);
  return TRUE;
}

/* A person's edits: the arguments that run, and "user" as the provenance
 * of every value that changed */
static void
apply_edits (PrsToolCallRow *call,
             JsonObject     *extra,
             JsonObject     *edited)
{
  g_autoptr(JsonObject) before = _prs_run_parse_object (call->arguments_json);
  JsonObject *provenance = json_object_has_member (extra, "provenance")
                           ? json_object_get_object_member (extra, "provenance") : NULL;
  GList *members = json_object_get_members (edited);

  for (GList *l = members; l != NULL; l = l->next)
    {
      JsonNode *old_value = before != NULL ? json_object_get_member (before, l->data) : NULL;
      JsonNode *new_value = json_object_get_member (edited, l->data);

      if (provenance != NULL && (old_value == NULL || !json_node_equal (old_value, new_value)))
        json_object_set_string_member (provenance, l->data, "user");
    }
  g_list_free (members);
  g_free (call->arguments_json);
  call->arguments_json = prs_json_object_to_string (edited, FALSE);
  json_object_set_object_member (extra, "arguments", json_object_ref (edited));
}

/* Approves @call (with @edited, when given), and with @whole_turn every
 * proposed call of its round */
static gboolean
approve_calls (PrsRun          *self,
               PrsToolCallRow  *call,
               JsonObject      *edited,
               gboolean         whole_turn,
               GError         **error)
{
  g_autoptr(GPtrArray) all = prs_store_list_tool_calls (self->env->store, self->row->id, error);

  if (all == NULL)
    return FALSE;
  for (guint i = 0; i < all->len; i++)
    {
      PrsToolCallRow *other = g_ptr_array_index (all, i);
      g_autoptr(JsonObject) extra = NULL;
      gboolean this_one = g_strcmp0 (other->id, call->id) == 0;

      if (!this_one && (!whole_turn || other->round != call->round ||
                        g_strcmp0 (other->status, "proposed") != 0))
        continue;

      extra = _prs_run_call_extra (self, other, NULL);
      if (this_one && edited != NULL)
        apply_edits (other, extra, edited);
      json_object_set_string_member (extra, "decidedBy", "user");
      _prs_run_save_call (self, other, "approved", extra);
    }
  return TRUE;
}

gboolean
_prs_run_decide_call (PrsRun      *self,
                      const char  *message_id,
                      const char  *action,
                      const char  *arguments_json,
                      gboolean     whole_turn,
                      GError     **error)
{
  g_autoptr(PrsToolCallRow) call = open_call (self, message_id, error);
  g_autoptr(JsonObject) edited = NULL;

  if (call == NULL)
    return FALSE;

  if (arguments_json != NULL && arguments_json[0] != '\0')
    {
      edited = _prs_run_parse_object (arguments_json);
      if (edited == NULL)
        {
          g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                       _("The edited arguments must be a JSON object."));
          return FALSE;
        }
    }

  if (strcmp (action, "retry") == 0)
    return retry_call (self, call, error);

  if (g_strcmp0 (call->status, "proposed") != 0)
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                   _("This tool call was already decided (%s)."), call->status);
      return FALSE;
    }

  if (strcmp (action, "deny") == 0)
    {
      deny_call (self, call, _("The user denied this tool call."));
      return TRUE;
    }
  if (strcmp (action, "approve") == 0)
    return approve_calls (self, call, edited, whole_turn, error);

  g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT, _("Unknown action “%s”."), action);
  return FALSE;
}

/* A call that waits for a person ends without a decision: denied with
 * @why, and @flag set in its extra, so that the card and the API tell it
 * from a person's No */
static gboolean
end_waiting_call (PrsRun      *self,
                  const char  *message_id,
                  const char  *why,
                  const char  *flag,
                  GError     **error)
{
  g_autoptr(PrsToolCallRow) call = open_call (self, message_id, error);
  g_autoptr(JsonObject) extra = NULL;

  if (call == NULL)
    return FALSE;
  if (g_strcmp0 (call->status, "proposed") != 0)
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                   _("This tool call was already decided (%s)."), call->status);
      return FALSE;
    }
  deny_call (self, call, why);
  extra = _prs_run_call_extra (self, call, NULL);
  json_object_set_boolean_member (extra, flag, TRUE);
  _prs_run_save_call (self, call, "denied", extra);
  return TRUE;
}

gboolean
_prs_run_expire_call (PrsRun      *self,
                      const char  *message_id,
                      guint        seconds,
                      GError     **error)
{
  g_autofree char *why = NULL;

  why = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                      "Nobody approved or denied this tool call within %u second: it timed out.",
                                      "Nobody approved or denied this tool call within %u seconds: it timed out.",
                                      seconds), seconds);
  return end_waiting_call (self, message_id, why, "timedOut", error);
}

gboolean
_prs_run_withdraw_call (PrsRun      *self,
                        const char  *message_id,
                        GError     **error)
{
  return end_waiting_call (self, message_id,
                           _("The MCP client cancelled this call before anyone approved it."),
                           "cancelledByClient", error);
}

/* After a restart: a call that was running (or about to) may have acted,
 * so it is never run again unasked */
void
_prs_run_interrupt_calls (PrsRun *self)
{
  g_autoptr(GPtrArray) calls = prs_store_list_tool_calls (self->env->store, self->row->id, NULL);

  for (guint i = 0; calls != NULL && i < calls->len; i++)
    {
      PrsToolCallRow *call = g_ptr_array_index (calls, i);

      if (g_strcmp0 (call->status, "running") == 0 || g_strcmp0 (call->status, "approved") == 0)
        {
          g_autoptr(JsonObject) extra = _prs_run_call_extra (self, call, NULL);

          json_object_remove_member (extra, "waitingForCallback");
          json_object_set_string_member (extra, "error", _("Prosponsive stopped while this call ran; it may or may not have acted."));
          _prs_run_save_call (self, call, "interrupted", extra);
        }
    }
}

/* ---- running a call ---- */

static char *
execution_id (PrsRun *self)
{
  g_autoptr(JsonObject) execution = _prs_run_parse_object (self->row->execution_json);
  JsonNode *node = execution != NULL ? json_object_get_member (execution, "executionId") : NULL;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return NULL;
  if (json_node_get_value_type (node) == G_TYPE_STRING)
    return g_strdup (json_node_get_string (node));
  return g_strdup_printf ("%" G_GINT64_FORMAT, json_node_get_int (node));
}

/* A call's progress on its tool-call message, written at most every
 * PROGRESS_INTERVAL_MS (a server may send hundreds a second) and once more
 * after the last */
typedef struct
{
  PrsRun     *run;
  char       *call_id;
  JsonObject *pending;      /* not written yet */
  gint64      last_write;
  guint       timeout_id;
} Progress;

#define PROGRESS_INTERVAL_MS 250

static void
progress_free (Progress *progress)
{
  g_clear_handle_id (&progress->timeout_id, g_source_remove);
  g_clear_pointer (&progress->pending, json_object_unref);
  g_object_unref (progress->run);
  g_free (progress->call_id);
  g_free (progress);
}

static void
write_progress (Progress *progress)
{
  PrsRun *self = progress->run;
  g_autoptr(PrsToolCallRow) call = NULL;
  g_autoptr(JsonObject) extra = NULL;
  g_autoptr(JsonObject) pending = g_steal_pointer (&progress->pending);

  progress->last_write = g_get_monotonic_time ();
  if (self->detached || pending == NULL ||
      (call = prs_store_lookup_tool_call (self->env->store, progress->call_id, NULL)) == NULL ||
      g_strcmp0 (call->status, "running") != 0)
    return;
  extra = _prs_run_call_extra (self, call, NULL);
  json_object_set_object_member (extra, "progress", g_steal_pointer (&pending));
  _prs_run_update_message (self, call->message_id, NULL, NULL, extra);
}

static gboolean
on_progress_timeout (gpointer data)
{
  Progress *progress = data;

  progress->timeout_id = 0;
  write_progress (progress);
  return G_SOURCE_REMOVE;
}

static void
on_call_progress (const PrsToolProgress *event,
                  gpointer               data)
{
  Progress *progress = data;
  PrsRun *self = progress->run;
  g_autoptr(PrsToolCallRow) call = NULL;

  if (self->detached)
    return;
  if (event->waiting)
    {
      call = prs_store_lookup_tool_call (self->env->store, progress->call_id, NULL);
      if (call != NULL)
        {
          g_autoptr(JsonObject) extra = _prs_run_call_extra (self, call, NULL);

          json_object_set_boolean_member (extra, "waitingForCallback", TRUE);
          _prs_run_save_call (self, call, "running", extra);
        }
      return;
    }

  g_clear_pointer (&progress->pending, json_object_unref);
  progress->pending = json_object_new ();
  json_object_set_double_member (progress->pending, "progress", event->progress);
  if (event->total >= 0)
    json_object_set_double_member (progress->pending, "total", event->total);
  if (event->message != NULL)
    {
      g_autofree char *clean = prs_strip_invisible (event->message);

      json_object_set_string_member (progress->pending, "message", clean);
    }
  if (g_get_monotonic_time () - progress->last_write >= PROGRESS_INTERVAL_MS * 1000)
    write_progress (progress);
  else if (progress->timeout_id == 0)
    progress->timeout_id = g_timeout_add (PROGRESS_INTERVAL_MS, on_progress_timeout, progress);
}

static void
on_invoked (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  PrsRun *self = g_task_get_source_object (task);
  g_autoptr(PrsToolCallResult) call_result = prs_tool_invoke_finish (result);

  if (self->detached)
    g_task_return_pointer (task, NULL, NULL);
  else
    g_task_return_pointer (task, g_steal_pointer (&call_result), (GDestroyNotify) prs_tool_call_result_free);
}

void
_prs_run_call_tool_async (PrsRun              *self,
                          PrsToolCallRow      *call,
                          GAsyncReadyCallback  callback,
                          gpointer             user_data)
{
  g_autoptr(JsonObject) extra = NULL;
  g_autoptr(JsonObject) arguments = NULL;
  g_autoptr(GTask) task = NULL;
  g_autofree char *execution = NULL;
  g_autofree char *why = NULL;
  PrsToolInvocation invocation = { 0 };
  Progress *progress;

  if (g_hash_table_contains (self->executing, call->id))
    return;
  g_hash_table_add (self->executing, g_strdup (call->id));
  _prs_run_set_working (self);

  task = g_task_new (self, NULL, callback, user_data);
  g_task_set_source_tag (task, _prs_run_call_tool_async);
  g_task_set_task_data (task, g_strdup (call->id), g_free);

  /* Checked again where the call runs, whatever approved it */
  why = refusal (self, call->name);
  if (why != NULL)
    {
      /* GTask answers from the main loop, not from inside the caller's
       * loop over the round's calls */
      g_task_return_pointer (task, prs_tool_call_result_new_failure (PRS_ERROR_NOT_FOUND, why),
                             (GDestroyNotify) prs_tool_call_result_free);
      return;
    }

  extra = _prs_run_call_extra (self, call, NULL);
  json_object_remove_member (extra, "progress");
  _prs_run_save_call (self, call, "running", extra);

  if (self->cancellable == NULL || g_cancellable_is_cancelled (self->cancellable))
    {
      g_clear_object (&self->cancellable);
      self->cancellable = g_cancellable_new ();
    }

  arguments = _prs_run_parse_object (call->arguments_json);
  execution = execution_id (self);
  invocation.tool_name = call->name;
  invocation.arguments = arguments;
  invocation.tool_call_id = call->id;
  invocation.conversation_id = self->row->conversation_id;
  /* An MCP client's call is no agent's: the workflow hears none */
  invocation.agent_id = _prs_run_is_mcp_client (self) ? NULL : self->row->agent_id;
  invocation.execution_id = execution;
  progress = g_new0 (Progress, 1);
  progress->run = g_object_ref (self);
  progress->call_id = g_strdup (call->id);
  prs_tool_invoke_async (self->env, &invocation, on_call_progress, progress, (GDestroyNotify) progress_free,
                         self->cancellable, on_invoked, g_steal_pointer (&task));
}

void
_prs_run_await_result_async (PrsRun              *self,
                             const char          *call_id,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (self, NULL, callback, user_data);

  g_task_set_source_tag (task, _prs_run_call_tool_async);
  g_task_set_task_data (task, g_strdup (call_id), g_free);
  g_hash_table_add (self->executing, g_strdup (call_id));
  prs_tool_invoke_await_result_async (self->env, call_id, self->cancellable, on_invoked, g_steal_pointer (&task));
}

PrsToolCallResult *
_prs_run_call_tool_finish (PrsRun        *self,
                           GAsyncResult  *result,
                           char         **out_call_id)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  if (out_call_id != NULL)
    *out_call_id = g_strdup (g_task_get_task_data (G_TASK (result)));
  return g_task_propagate_pointer (G_TASK (result), NULL);
}

gboolean
_prs_run_settle_call (PrsRun            *self,
                      const char        *call_id,
                      PrsToolCallResult *result)
{
  g_autoptr(PrsToolCallRow) call = prs_store_lookup_tool_call (self->env->store, call_id, NULL);
  g_autoptr(JsonObject) extra = NULL;
  g_autoptr(JsonObject) result_extra = json_object_new ();
  g_autofree char *for_model = NULL;
  g_autofree char *clean = NULL;
  gboolean ok = result->status == PRS_TOOL_CALL_SUCCEEDED;
  /* A call the run's Stop cut short did not fail: it ends cancelled, in
   * the same words whichever tool it was (an n8n workflow still waited
   * for has its own) */
  gboolean stopped = !ok && self->cancel_requested;
  const char *status = ok ? "succeeded" : stopped ? "cancelled" : "failed";
  const char *error = stopped ? _("The call was stopped.") : result->error;

  g_hash_table_remove (self->executing, call_id);
  if (call == NULL)
    return FALSE;

  for_model = prs_tool_call_result_for_model (result);
  clean = prs_strip_invisible (for_model);

  extra = _prs_run_call_extra (self, call, NULL);
  if (ok && result->result != NULL)
    {
      JsonNode *copy = prs_strip_invisible_json (result->result);

      json_object_set_member (extra, "result", json_node_copy (copy));
      json_object_set_member (result_extra, "result", copy);
    }
  if (!ok && result->rediscover)
    {
      /* The model reads n8n's case (docs/workflows.md); the card says it
       * in words, and discovery drops the tool */
      const char *gone = _("The workflow is gone: n8n does not know its webhook any more "
                           "(it is not published, or its path changed). Prosponsive is "
                           "looking for tools again.");

      json_object_set_string_member (extra, "error", gone);
      json_object_set_boolean_member (extra, "workflowGone", TRUE);
      json_object_set_string_member (result_extra, "error", gone);
      json_object_set_boolean_member (result_extra, "workflowGone", TRUE);
    }
  else if (!ok && error != NULL)
    {
      json_object_set_string_member (extra, "error", error);
      json_object_set_string_member (result_extra, "error", error);
    }
  json_object_remove_member (extra, "waitingForCallback");
  json_object_remove_member (extra, "progress");
  json_object_set_string_member (result_extra, "name", call->name);
  json_object_set_string_member (result_extra, "toolCallId", call->id);
  json_object_set_string_member (result_extra, "toolCallMessageId", call->message_id);

  g_free (call->result_message_id);
  call->result_message_id = _prs_run_insert_message (self, "tool-result", clean, status, result_extra);
  g_free (call->result_text);
  call->result_text = g_steal_pointer (&clean);
  _prs_run_save_call (self, call, status, extra);
  if (!ok && result->rediscover)
    _prs_run_emit_workflow_gone (self, call->name);
  return TRUE;
}

/* ---- results for the model ---- */

void
_prs_run_feed_results (PrsRun    *self,
                       GPtrArray *calls)
{
  JsonObject *assistant = _prs_run_last_entry (self);
  JsonArray *model_calls = json_object_get_array_member (assistant, "toolCalls");

  for (guint i = 0; i < calls->len; i++)
    {
      PrsToolCallRow *call = g_ptr_array_index (calls, i);
      JsonObject *entry = json_object_new ();

      /* The model sees the arguments that ran (bound, edited) */
      for (guint j = 0; j < json_array_get_length (model_calls); j++)
        {
          JsonObject *model_call = json_array_get_object_element (model_calls, j);
          JsonObject *arguments = _prs_run_parse_object (call->arguments_json);

          if (g_strcmp0 (json_object_get_string_member_with_default (model_call, "id", NULL),
                         call->provider_call_id) == 0 && arguments != NULL)
            json_object_set_object_member (model_call, "arguments", arguments);
          else if (arguments != NULL)
            json_object_unref (arguments);
        }

      json_object_set_string_member (entry, "role", "tool");
      json_object_set_string_member (entry, "toolCallId", call->provider_call_id);
      json_object_set_string_member (entry, "toolName", call->name);
      json_object_set_string_member (entry, "text", call->result_text != NULL ? call->result_text : "{}");
      json_array_add_object_element (self->transcript, entry);
    }
  _prs_run_save (self);
}
