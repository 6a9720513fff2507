/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-run-answer.c: the answer of the inference endpoints (docs/api.md)
 * for a run, read from the store alone, so the API thread can give it for
 * a finished run without the main thread. */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "prs-run-private.h"

JsonNode *
prs_run_build_answer (PrsStore   *store_,
                      const char *trigger_message_id,
                      guint      *out_http_status)
{
  g_autoptr(PrsRunRow) row = prs_store_lookup_run_by_trigger (store_, trigger_message_id, NULL);
  g_autoptr(GPtrArray) calls = NULL;
  g_autoptr(JsonNode) transcript = NULL;
  g_autoptr(JsonBuilder) builder = NULL;
  const char *status, *content = "", *model = NULL, *provider_id = NULL, *provider_name = NULL;
  gint64 input = 0, output = 0;
  guint http_status = 200;

  if (row == NULL)
    return NULL;

  calls = prs_store_list_tool_calls (store_, row->id, NULL);
  transcript = _prs_run_parse_stored (row->transcript_json);
  if (transcript != NULL && JSON_NODE_HOLDS_ARRAY (transcript))
    {
      JsonArray *array = json_node_get_array (transcript);

      for (guint i = 0; i < json_array_get_length (array); i++)
        {
          JsonObject *entry = json_array_get_object_element (array, i);

          if (g_strcmp0 (json_object_get_string_member_with_default (entry, "role", ""), "assistant") != 0 ||
              !json_object_has_member (entry, "providerId"))
            continue;
          content = json_object_get_string_member_with_default (entry, "text", "");
          model = json_object_get_string_member_with_default (entry, "model", NULL);
          provider_id = json_object_get_string_member_with_default (entry, "providerId", NULL);
          provider_name = json_object_get_string_member_with_default (entry, "providerName", NULL);
          input += json_object_get_int_member_with_default (entry, "inputTokens", 0);
          output += json_object_get_int_member_with_default (entry, "outputTokens", 0);
        }
    }

  status = row->status;
  if (g_strcmp0 (status, PRS_RUN_CANCELLED) == 0)
    status = PRS_RUN_FAILED;
  if (g_strcmp0 (status, PRS_RUN_RUNNING) == 0)
    http_status = 202;
  else if (g_strcmp0 (status, PRS_RUN_FAILED) == 0 &&
           (g_strcmp0 (row->stop_reason, "no-provider") == 0 ||
            g_strcmp0 (row->stop_reason, "provider-error") == 0))
    http_status = 503;

  builder = json_builder_new ();
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "success");
  json_builder_add_boolean_value (builder, g_strcmp0 (status, PRS_RUN_FAILED) != 0);
  json_builder_set_member_name (builder, "messageId");
  json_builder_add_string_value (builder, trigger_message_id);
  json_builder_set_member_name (builder, "runId");
  json_builder_add_string_value (builder, row->id);
  json_builder_set_member_name (builder, "status");
  json_builder_add_string_value (builder, status);
  json_builder_set_member_name (builder, "content");
  json_builder_add_string_value (builder, content);
  json_builder_set_member_name (builder, "stopReason");
  if (row->stop_reason != NULL)
    json_builder_add_string_value (builder, row->stop_reason);
  else
    json_builder_add_null_value (builder);
  json_builder_set_member_name (builder, "usage");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "inputTokens");
  json_builder_add_int_value (builder, input);
  json_builder_set_member_name (builder, "outputTokens");
  json_builder_add_int_value (builder, output);
  json_builder_end_object (builder);
  json_builder_set_member_name (builder, "model");
  if (model != NULL)
    json_builder_add_string_value (builder, model);
  else
    json_builder_add_null_value (builder);
  json_builder_set_member_name (builder, "provider");
  if (provider_id != NULL)
    {
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "id");
      json_builder_add_string_value (builder, provider_id);
      json_builder_set_member_name (builder, "name");
      json_builder_add_string_value (builder, provider_name);
      json_builder_end_object (builder);
    }
  else
    json_builder_add_null_value (builder);
  json_builder_set_member_name (builder, "toolCalls");
  json_builder_begin_array (builder);
  for (guint i = 0; calls != NULL && i < calls->len; i++)
    {
      PrsToolCallRow *call = g_ptr_array_index (calls, i);
      g_autoptr(JsonNode) arguments = _prs_run_parse_stored (call->arguments_json);

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
  if (g_strcmp0 (status, PRS_RUN_FAILED) == 0)
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
