/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-run-tools.c: a run's tool round — the calls the model proposes,
 * bound to the agent's guidance, checked for repeats, decided by a rule or
 * a person, run against n8n (waiting for a callback when the workflow
 * answers later), and their cleaned results fed back to the model. */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "prs-discovery.h"
#include "prs-error.h"
#include "prs-guidance.h"
#include "prs-json.h"
#include "prs-run-private.h"
#include "prs-tool-call.h"

/* ---- hygiene ---- */

static gboolean
is_invisible (gunichar c)
{
  return (c >= 0xE0000 && c <= 0xE007F) ||
         (c >= 0x200B && c <= 0x200D) ||
         c == 0x2060 || c == 0xFEFF;
}

char *
prs_run_strip_invisible (const char *text)
{
  GString *out;

  if (text == NULL)
    return NULL;
  if (!g_utf8_validate (text, -1, NULL))
    return g_utf8_make_valid (text, -1);

  out = g_string_sized_new (strlen (text));
  for (const char *p = text; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (!is_invisible (c))
        g_string_append_unichar (out, c);
    }
  return g_string_free (out, FALSE);
}

JsonNode *
prs_run_strip_invisible_json (JsonNode *node)
{
  if (node == NULL)
    return NULL;

  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObject *object = json_node_get_object (node);
      g_autoptr(JsonObject) cleaned = json_object_new ();
      GList *members = json_object_get_members (object);

      for (GList *l = members; l != NULL; l = l->next)
        {
          g_autofree char *key = prs_run_strip_invisible (l->data);

          json_object_set_member (cleaned, key,
                                  prs_run_strip_invisible_json (json_object_get_member (object, l->data)));
        }
      g_list_free (members);
      return json_node_init_object (json_node_alloc (), cleaned);
    }
  if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *array = json_node_get_array (node);
      g_autoptr(JsonArray) cleaned = json_array_sized_new (json_array_get_length (array));

      for (guint i = 0; i < json_array_get_length (array); i++)
        json_array_add_element (cleaned, prs_run_strip_invisible_json (json_array_get_element (array, i)));
      return json_node_init_array (json_node_alloc (), cleaned);
    }
  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    {
      g_autofree char *clean = prs_run_strip_invisible (json_node_get_string (node));

      return json_node_init_string (json_node_alloc (), clean);
    }
  return json_node_copy (node);
}

/* ---- tool calls ---- */

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
  g_autoptr(JsonNode) message = prs_store_get_message (_prs_run_store (self), call->message_id, NULL);
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
  g_autofree char *extra_json = extra != NULL ? _prs_run_object_to_string (extra) : NULL;

  if (_prs_run_detached (self))
    return;
  g_free (call->status);
  call->status = g_strdup (status);
  if (!prs_store_save_tool_call (_prs_run_store (self), call, status, extra_json, &error))
    g_message ("Could not save tool call %s: %s", call->id, error->message);
  else
    prs_runner_emit_message_changed (self->runner, self->row->conversation_id, call->message_id);
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
  call->result_text = _prs_run_object_to_string (result);
  json_object_set_string_member (extra, "error", why);
  _prs_run_save_call (self, call, "denied", extra);
}

void
_prs_run_propose_calls (PrsRun          *self,
                        PrsChatResponse *response)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) earlier = prs_store_list_tool_calls (_prs_run_store (self), self->row->id, &error);
  g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GPtrArray) tools = _prs_run_allowed_tools (self);
  g_autoptr(GPtrArray) rows = g_ptr_array_new_with_free_func ((GDestroyNotify) prs_tool_call_row_free);
  g_autoptr(GPtrArray) provenances = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  guint max_rounds = prs_runner_get_max_rounds (self->runner);

  if ((guint) self->row->round >= max_rounds)
    {
      g_autofree char *notice = g_strdup_printf (_("The agent stopped after %u rounds of tool calls."), max_rounds);

      _prs_run_add_notice (self, notice);
      _prs_run_finish (self, PRS_RUN_COMPLETED, "max_tool_rounds", NULL);
      return;
    }

  for (guint i = 0; earlier != NULL && i < earlier->len; i++)
    {
      PrsToolCallRow *row = g_ptr_array_index (earlier, i);
      g_autoptr(JsonObject) args = _prs_run_parse_object (row->arguments_json);
      char *signature = call_signature (row->name, args);

      g_hash_table_insert (seen, signature,
                           GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (seen, signature)) + 1));
    }

  self->row->round++;

  /* Bind first, then look for repeats: the arguments that would run count */
  for (guint i = 0; i < response->tool_calls->len; i++)
    {
      PrsToolCall *model_call = g_ptr_array_index (response->tool_calls, i);
      const PrsTool *tool = NULL;
      const PrsToolGuidance *guidance = prs_guidance_find_tool (self->agent->guidance, model_call->name);
      JsonObject *provenance = NULL;
      g_autoptr(JsonObject) arguments = NULL;
      g_autofree char *signature = NULL;
      guint count;
      PrsToolCallRow *row;

      for (guint j = 0; j < tools->len; j++)
        if (g_strcmp0 (((PrsTool *) g_ptr_array_index (tools, j))->name, model_call->name) == 0)
          tool = g_ptr_array_index (tools, j);

      arguments = prs_guidance_bind (guidance, tool, self->context, model_call->arguments, &provenance);
      signature = call_signature (model_call->name, arguments);
      count = GPOINTER_TO_UINT (g_hash_table_lookup (seen, signature)) + 1;
      g_hash_table_insert (seen, g_strdup (signature), GUINT_TO_POINTER (count));
      if (count >= PRS_RUNNER_MAX_REPEATS)
        {
          g_autofree char *notice =
            g_strdup_printf (_("The agent asked for the same call (%s with the same arguments) %u times; the run stopped."),
                             model_call->name, count);

          if (provenance != NULL)
            json_object_unref (provenance);
          _prs_run_add_notice (self, notice);
          _prs_run_finish (self, PRS_RUN_COMPLETED, "repeated_call", NULL);
          return;
        }

      row = g_new0 (PrsToolCallRow, 1);
      row->id = g_uuid_string_random ();
      row->run_id = g_strdup (self->row->id);
      row->round = self->row->round;
      row->position = (int) i;
      row->provider_call_id = g_strdup (model_call->id);
      row->name = g_strdup (model_call->name);
      row->arguments_json = _prs_run_object_to_string (arguments);
      row->status = g_strdup ("proposed");
      g_ptr_array_add (rows, row);
      g_ptr_array_add (provenances, provenance != NULL ? provenance : json_object_new ());
    }

  _prs_run_save (self);

  for (guint i = 0; i < rows->len; i++)
    {
      PrsToolCallRow *row = g_ptr_array_index (rows, i);
      g_autoptr(JsonObject) extra = json_object_new ();
      g_autoptr(JsonObject) arguments = _prs_run_parse_object (row->arguments_json);
      g_autofree char *rule = NULL;
      g_autoptr(GError) local_error = NULL;

      json_object_set_string_member (extra, "name", row->name);
      json_object_set_string_member (extra, "toolCallId", row->id);
      json_object_set_int_member (extra, "round", row->round);
      json_object_set_object_member (extra, "arguments", json_object_ref (arguments));
      json_object_set_object_member (extra, "provenance", json_object_ref (g_ptr_array_index (provenances, i)));
      row->message_id = _prs_run_insert_message (self, "tool-call", row->name, "proposed", extra);
      if (row->message_id == NULL)
        {
          _prs_run_finish (self, PRS_RUN_FAILED, "store-error", _("A tool call could not be stored."));
          return;
        }
      if (!prs_store_save_tool_call (_prs_run_store (self), row, NULL, NULL, &local_error))
        {
          g_message ("Could not store tool call %s: %s", row->id, local_error->message);
          _prs_run_finish (self, PRS_RUN_FAILED, "store-error", local_error->message);
          return;
        }

      /* Enforced here, where calls run, not in the UI */
      rule = prs_store_match_approval_rule (_prs_run_store (self), row->name, self->row->agent_id, self->slug);
      if (g_strcmp0 (rule, "approve") == 0)
        {
          g_autoptr(JsonObject) call_extra_object = _prs_run_call_extra (self, row, NULL);

          json_object_set_string_member (call_extra_object, "decidedBy", "rule");
          _prs_run_save_call (self, row, "approved", call_extra_object);
        }
      else if (g_strcmp0 (rule, "deny") == 0)
        deny_call (self, row, _("An auto-approval rule denied this tool call."));
      else
        prs_runner_emit_approval_needed (self->runner, self->row->conversation_id, row->message_id, row->name);
    }

  _prs_run_advance (self);
}

typedef struct
{
  PrsRun            *run;
  char              *call_id;
  PrsToolCallResult *result;
} CallData;

static void
call_data_free (CallData *data)
{
  g_object_unref (data->run);
  g_free (data->call_id);
  g_clear_pointer (&data->result, prs_tool_call_result_free);
  g_free (data);
}

static void
settle_call (PrsRun            *self,
             const char        *call_id,
             PrsToolCallResult *result)
{
  g_autoptr(PrsToolCallRow) call = prs_store_lookup_tool_call (_prs_run_store (self), call_id, NULL);
  g_autoptr(JsonObject) extra = NULL;
  g_autoptr(JsonObject) result_extra = json_object_new ();
  g_autofree char *for_model = NULL;
  g_autofree char *clean = NULL;
  gboolean ok = result->status == PRS_TOOL_CALL_SUCCEEDED;
  const char *status = ok ? "succeeded" : "failed";

  g_hash_table_remove (self->executing, call_id);
  if (call == NULL)
    return;

  for_model = prs_tool_call_result_for_model (result);
  clean = prs_run_strip_invisible (for_model);

  extra = _prs_run_call_extra (self, call, NULL);
  if (ok && result->result != NULL)
    {
      JsonNode *copy = prs_run_strip_invisible_json (result->result);

      json_object_set_member (extra, "result", json_node_copy (copy));
      json_object_set_member (result_extra, "result", copy);
    }
  if (!ok && result->error != NULL)
    {
      json_object_set_string_member (extra, "error", result->error);
      json_object_set_string_member (result_extra, "error", result->error);
    }
  json_object_remove_member (extra, "waitingForCallback");
  json_object_set_string_member (result_extra, "name", call->name);
  json_object_set_string_member (result_extra, "toolCallId", call->id);
  json_object_set_string_member (result_extra, "toolCallMessageId", call->message_id);

  g_free (call->result_message_id);
  call->result_message_id = _prs_run_insert_message (self, "tool-result", clean, status, result_extra);
  g_free (call->result_text);
  call->result_text = g_steal_pointer (&clean);
  _prs_run_save_call (self, call, status, extra);

  _prs_run_advance (self);
}

static gboolean
settle_later (gpointer user_data)
{
  CallData *data = user_data;

  if (!_prs_run_detached (data->run))
    settle_call (data->run, data->call_id, data->result);
  return G_SOURCE_REMOVE;
}

static void
on_callback_done (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  CallData *data = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsToolCallResult) call_result = NULL;

  call_result = prs_callback_registry_wait_finish (PRS_CALLBACK_REGISTRY (source), result, &error);
  if (!_prs_run_detached (data->run))
    {
      if (call_result == NULL)
        call_result = prs_tool_call_result_new_failure (PRS_ERROR_FAILED,
                                                        error != NULL ? error->message : _("The call was stopped."));
      settle_call (data->run, data->call_id, call_result);
    }
  call_data_free (data);
}

static void
on_tool_done (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  CallData *data = user_data;
  PrsRun *self = data->run;
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsToolCallResult) call_result = prs_tool_call_run_finish (result, &error);

  if (_prs_run_detached (self))
    {
      call_data_free (data);
      return;
    }

  if (call_result == NULL)
    call_result = prs_tool_call_result_new_failure (PRS_ERROR_FAILED, _("The call was stopped."));

  if (call_result->status == PRS_TOOL_CALL_WAITING_CALLBACK)
    {
      g_autoptr(PrsToolCallRow) call = prs_store_lookup_tool_call (_prs_run_store (self), data->call_id, NULL);

      if (call != NULL)
        {
          g_autoptr(JsonObject) extra = _prs_run_call_extra (self, call, NULL);

          json_object_set_boolean_member (extra, "waitingForCallback", TRUE);
          _prs_run_save_call (self, call, "running", extra);
        }
      prs_callback_registry_wait_async (prs_runner_get_registry (self->runner), data->call_id,
                                        prs_runner_get_callback_timeout (self->runner),
                                        self->cancellable, on_callback_done, data);
      return;
    }

  settle_call (self, data->call_id, call_result);
  call_data_free (data);
}

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

/* docs/workflows.md: the n8n Header Auth, when configured: the header's name in the
 * store, its value in the keyring (read only when a name is set). */
static void
set_webhook_auth (PrsRun             *self,
                  PrsToolCallRequest *request)
{
  PrsSecrets *secrets = prs_runner_get_secrets (self->runner);
  g_autofree char *name = prs_store_dup_setting (_prs_run_store (self), PRS_SETTING_WEBHOOK_AUTH_HEADER);
  g_autoptr(GError) error = NULL;
  char *value;

  if (name == NULL || name[0] == '\0' || secrets == NULL)
    return;

  value = prs_secrets_lookup_sync (secrets, PRS_SECRET_WEBHOOK_AUTH, NULL, &error);
  if (value == NULL)
    {
      g_message ("The webhook Header Auth “%s” has no value stored%s%s", name,
                 error != NULL ? ": " : "", error != NULL ? error->message : "");
      return;
    }

  request->auth_header_name = g_steal_pointer (&name);
  request->auth_header_value = value;
}

void
_prs_run_call_tool (PrsRun         *self,
                    PrsToolCallRow *call)
{
  g_autoptr(PrsTool) tool = NULL;
  g_autofree char *n8n_url = NULL;
  g_autoptr(PrsToolCallRequest) request = NULL;
  g_autoptr(JsonObject) extra = NULL;
  CallData *data;

  if (g_hash_table_contains (self->executing, call->id))
    return;
  g_hash_table_add (self->executing, g_strdup (call->id));
  _prs_run_set_working (self);

  tool = prs_store_lookup_tool (_prs_run_store (self), call->name, NULL);
  n8n_url = prs_store_dup_setting (_prs_run_store (self), PRS_SETTING_N8N_URL);
  if (tool == NULL || n8n_url == NULL)
    {
      g_autoptr(PrsToolCallResult) failure = NULL;
      g_autofree char *message = tool == NULL
        ? g_strdup_printf (_("There is no tool “%s” (it is not discovered on n8n)."), call->name)
        : g_strdup (_("n8n is not set up, so no tool can run."));

      failure = prs_tool_call_result_new_failure (PRS_ERROR_NOT_FOUND, message);
      /* Settled from the main loop: _prs_run_advance () is iterating the calls now */
      data = g_new0 (CallData, 1);
      data->run = g_object_ref (self);
      data->call_id = g_strdup (call->id);
      data->result = g_steal_pointer (&failure);
      g_idle_add_full (G_PRIORITY_DEFAULT, settle_later, data, (GDestroyNotify) call_data_free);
      return;
    }

  extra = _prs_run_call_extra (self, call, NULL);
  _prs_run_save_call (self, call, "running", extra);

  request = prs_tool_call_request_new (tool, n8n_url);
  g_clear_pointer (&request->arguments, json_object_unref);
  request->arguments = _prs_run_parse_object (call->arguments_json);
  g_free (request->tool_call_id);
  request->tool_call_id = g_strdup (call->id);
  request->conversation_id = g_strdup (self->row->conversation_id);
  request->agent_id = g_strdup (self->row->agent_id);
  request->callback_url = g_strdup (prs_runner_get_callback_url (self->runner));
  request->execution = execution_id (self);
  request->timeout_seconds = prs_runner_get_tool_timeout (self->runner);
  request->callback_registry = g_object_ref (prs_runner_get_registry (self->runner));
  set_webhook_auth (self, request);

  if (self->cancellable == NULL || g_cancellable_is_cancelled (self->cancellable))
    {
      g_clear_object (&self->cancellable);
      self->cancellable = g_cancellable_new ();
    }

  data = g_new0 (CallData, 1);
  data->run = g_object_ref (self);
  data->call_id = g_strdup (call->id);
  prs_tool_call_run_async (request, self->cancellable, on_tool_done, data);
}

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

/* ---- decisions ---- */

gboolean
prs_run_decide (PrsRun      *self,
                const char  *message_id,
                const char  *action,
                const char  *arguments_json,
                gboolean     whole_turn,
                GError     **error)
{
  g_autoptr(PrsToolCallRow) call = NULL;
  g_autoptr(JsonObject) edited = NULL;
  g_autoptr(GPtrArray) all = NULL;

  g_return_val_if_fail (PRS_IS_RUN (self), FALSE);

  if (_prs_run_detached (self))
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_FAILED, _("Prosponsive is stopping."));
      return FALSE;
    }
  call = prs_store_lookup_tool_call (_prs_run_store (self), message_id, error);
  if (call == NULL)
    {
      if (error != NULL && *error == NULL)
        g_set_error (error, PRS_ERROR, PRS_ERROR_NOT_FOUND, _("There is no such tool call."));
      return FALSE;
    }
  if (prs_run_is_finished (self))
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT, _("This agent run has ended."));
      return FALSE;
    }

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
      _prs_run_advance (self);
      return TRUE;
    }

  if (g_strcmp0 (call->status, "proposed") != 0)
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                   _("This tool call was already decided (%s)."), call->status);
      return FALSE;
    }

  if (strcmp (action, "deny") == 0)
    {
      deny_call (self, call, _("The user denied this tool call."));
      _prs_run_advance (self);
      return TRUE;
    }

  if (strcmp (action, "approve") != 0)
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT, _("Unknown action “%s”."), action);
      return FALSE;
    }

  /* Approve this one (with edits), and with whole_turn every proposed one of its round */
  all = prs_store_list_tool_calls (_prs_run_store (self), self->row->id, error);
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
        {
          g_autoptr(JsonObject) before = _prs_run_parse_object (other->arguments_json);
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
          g_free (other->arguments_json);
          other->arguments_json = _prs_run_object_to_string (edited);
          json_object_set_object_member (extra, "arguments", json_object_ref (edited));
        }
      json_object_set_string_member (extra, "decidedBy", "user");
      _prs_run_save_call (self, other, "approved", extra);
    }

  _prs_run_advance (self);
  return TRUE;
}
