/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-run-answer.c: the answer of the inference endpoints (docs/api.md)
 * for a run: read from the store alone, so the API thread can give it for
 * a finished run without the main thread, or, when the run rests, from
 * what the run holds (the same row and transcript it just committed) for
 * whoever waited for that rest (prs_run_wait_rest_async ()). */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "prs-error.h"
#include "prs-json.h"
#include "prs-run-private.h"
#include "prs-thread.h"

/* What the model said over the whole run: its last reply, who gave it,
 * and the tokens of every reply */
typedef struct
{
  const char *content;        /* borrowed from the transcript */
  const char *model;
  const char *provider_id;
  const char *provider_name;
  gint64      input_tokens;
  gint64      output_tokens;
} Replies;

static void
read_replies (Replies   *replies,
              JsonArray *array)
{
  replies->content = "";
  if (array == NULL)
    return;

  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonObject *entry = json_array_get_object_element (array, i);

      if (g_strcmp0 (json_object_get_string_member_with_default (entry, "role", ""), "assistant") != 0 ||
          !json_object_has_member (entry, "providerId"))
        continue;
      replies->content = json_object_get_string_member_with_default (entry, "text", "");
      replies->model = json_object_get_string_member_with_default (entry, "model", NULL);
      replies->provider_id = json_object_get_string_member_with_default (entry, "providerId", NULL);
      replies->provider_name = json_object_get_string_member_with_default (entry, "providerName", NULL);
      replies->input_tokens += json_object_get_int_member_with_default (entry, "inputTokens", 0);
      replies->output_tokens += json_object_get_int_member_with_default (entry, "outputTokens", 0);
    }
}

/* @value as a JSON string, or null */
static JsonNode *
string_or_null (const char *value)
{
  return value != NULL ? json_node_init_string (json_node_alloc (), value) : json_node_new (JSON_NODE_NULL);
}

static void
add_replies (JsonBuilder   *builder,
             const Replies *replies,
             const char    *stop_reason)
{
  json_builder_set_member_name (builder, "content");
  json_builder_add_string_value (builder, replies->content);
  json_builder_set_member_name (builder, "stopReason");
  json_builder_add_value (builder, string_or_null (stop_reason));
  json_builder_set_member_name (builder, "usage");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "inputTokens");
  json_builder_add_int_value (builder, replies->input_tokens);
  json_builder_set_member_name (builder, "outputTokens");
  json_builder_add_int_value (builder, replies->output_tokens);
  json_builder_end_object (builder);
  json_builder_set_member_name (builder, "model");
  json_builder_add_value (builder, string_or_null (replies->model));
  json_builder_set_member_name (builder, "provider");
  if (replies->provider_id != NULL)
    {
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "id");
      json_builder_add_string_value (builder, replies->provider_id);
      json_builder_set_member_name (builder, "name");
      json_builder_add_string_value (builder, replies->provider_name);
      json_builder_end_object (builder);
    }
  else
    json_builder_add_null_value (builder);
}

static void
add_tool_calls (JsonBuilder *builder,
                GPtrArray   *calls)
{
  json_builder_set_member_name (builder, "toolCalls");
  json_builder_begin_array (builder);
  for (guint i = 0; calls != NULL && i < calls->len; i++)
    {
      PrsToolCallRow *call = g_ptr_array_index (calls, i);
      g_autoptr(JsonNode) arguments = prs_json_parse_bounded (call->arguments_json, strlen (call->arguments_json),
                                                              PRS_JSON_DEFAULT_MAX_DEPTH, NULL);

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "id");
      json_builder_add_string_value (builder, call->id);
      json_builder_set_member_name (builder, "name");
      json_builder_add_string_value (builder, call->name);
      json_builder_set_member_name (builder, "arguments");
      json_builder_add_value (builder, arguments != NULL ? json_node_ref (arguments) : json_node_new (JSON_NODE_NULL));
      json_builder_set_member_name (builder, "status");
      json_builder_add_string_value (builder, call->status);
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);
}

/* The API's words for the run's status, and the HTTP status that goes
 * with them */
static const char *
answer_status (PrsRunRow *row,
               guint     *out_http_status)
{
  const char *status = row->status;

  *out_http_status = 200;
  if (g_strcmp0 (status, PRS_RUN_CANCELLED) == 0)
    status = PRS_RUN_FAILED;
  if (g_strcmp0 (status, PRS_RUN_RUNNING) == 0)
    *out_http_status = 202;
  else if (g_strcmp0 (status, PRS_RUN_FAILED) == 0 &&
           (g_strcmp0 (row->stop_reason, "no-provider") == 0 ||
            g_strcmp0 (row->stop_reason, "provider-error") == 0))
    *out_http_status = 503;
  return status;
}

/* The answer for @row, whose transcript is @transcript and tool calls
 * @calls (may be NULL: none) */
static JsonNode *
build_answer (PrsRunRow  *row,
              JsonArray  *transcript,
              GPtrArray  *calls,
              guint      *out_http_status)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  Replies replies = { 0 };
  const char *status;
  guint http_status;
  gboolean failed;

  read_replies (&replies, transcript);
  status = answer_status (row, &http_status);
  failed = g_strcmp0 (status, PRS_RUN_FAILED) == 0;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "success");
  json_builder_add_boolean_value (builder, !failed);
  json_builder_set_member_name (builder, "messageId");
  json_builder_add_string_value (builder, row->trigger_message_id);
  json_builder_set_member_name (builder, "runId");
  json_builder_add_string_value (builder, row->id);
  json_builder_set_member_name (builder, "status");
  json_builder_add_string_value (builder, status);
  add_replies (builder, &replies, row->stop_reason);
  add_tool_calls (builder, calls);
  if (failed)
    {
      json_builder_set_member_name (builder, "error");
      json_builder_add_string_value (builder, row->error != NULL ? row->error : _("The agent run failed."));
      json_builder_set_member_name (builder, "code");
      json_builder_add_string_value (builder, row->stop_reason != NULL ? row->stop_reason : "failed");
    }
  json_builder_end_object (builder);

  if (out_http_status != NULL)
    *out_http_status = http_status;
  return json_builder_get_root (builder);
}

JsonNode *
prs_run_build_answer (PrsStore   *store,
                      const char *trigger_message_id,
                      guint      *out_http_status)
{
  g_autoptr(PrsRunRow) row = prs_store_lookup_run_by_trigger (store, trigger_message_id, NULL);
  g_autoptr(GPtrArray) calls = NULL;
  g_autoptr(JsonNode) transcript = NULL;

  if (row == NULL)
    return NULL;

  calls = prs_store_list_tool_calls (store, row->id, NULL);
  /* The store reads a missing transcript as [] */
  transcript = prs_json_parse_bounded (row->transcript_json, strlen (row->transcript_json),
                                       PRS_JSON_DEFAULT_MAX_DEPTH, NULL);
  return build_answer (row, transcript != NULL && JSON_NODE_HOLDS_ARRAY (transcript)
                              ? json_node_get_array (transcript) : NULL,
                       calls, out_http_status);
}

/* From what a resting run holds: the same as prs_run_build_answer () would
 * read back */
static JsonNode *
build_run_answer (PrsRun *self,
                  guint  *out_http_status)
{
  g_autoptr(GPtrArray) calls = NULL;

  /* Tool calls only where the model proposed some: none to read otherwise */
  for (guint i = 0; i < json_array_get_length (self->transcript) && calls == NULL; i++)
    if (json_object_has_member (json_array_get_object_element (self->transcript, i), "toolCalls"))
      calls = prs_store_list_tool_calls (self->env->store, self->row->id, NULL);
  return build_answer (self->row, self->transcript, calls, out_http_status);
}

/* ---- waiting for a rest ---- */

void
prs_run_wait_rest_async (PrsRun              *self,
                         GCancellable        *cancellable,
                         GAsyncReadyCallback  callback,
                         gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (PRS_IS_RUN (self));
  PRS_ASSERT_MAIN_THREAD ();

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, prs_run_wait_rest_async);
  if (prs_run_is_resting (self) || self->detached)
    {
      g_task_return_boolean (task, TRUE);
      return;
    }
  self->waiters = g_list_append (self->waiters, g_steal_pointer (&task));
}

JsonNode *
prs_run_wait_rest_finish (PrsRun        *self,
                          GAsyncResult  *result,
                          guint         *out_http_status,
                          GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  PRS_ASSERT_MAIN_THREAD ();

  if (!g_task_propagate_boolean (G_TASK (result), error))
    return NULL;
  if (self->detached)
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_FAILED, _("Prosponsive is stopping."));
      return NULL;
    }
  /* An answer says what is stored: a rest that could not be says that */
  if (self->rest_unsaved != NULL)
    {
      g_propagate_error (error, g_error_copy (self->rest_unsaved));
      return NULL;
    }
  return build_run_answer (self, out_http_status);
}
