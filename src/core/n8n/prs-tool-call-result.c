/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-tool-call-result.c: the outcome of a tool call and what the model
 * reads of it (prs-tool-call-result.h). */
#include "config.h"

#include <string.h>

#include "prs-error.h"
#include "prs-json.h"
#include "prs-tool-call-private.h"

PrsToolCallResult *
prs_tool_call_result_new_success (JsonNode *result)
{
  PrsToolCallResult *res = g_new0 (PrsToolCallResult, 1);

  res->status = PRS_TOOL_CALL_SUCCEEDED;
  res->result = result != NULL ? json_node_ref (result) : json_node_new (JSON_NODE_NULL);
  return res;
}

PrsToolCallResult *
prs_tool_call_result_new_failure (int         error_code,
                                  const char *error)
{
  PrsToolCallResult *res = g_new0 (PrsToolCallResult, 1);

  res->status = PRS_TOOL_CALL_FAILED;
  res->error_code = error_code;
  res->error = g_strdup (error != NULL && *error != '\0' ? error : "the tool call failed");
  return res;
}

PrsToolCallResult *
prs_tool_call_result_new_failure_printf (int         error_code,
                                         const char *format,
                                         ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);

  return prs_tool_call_result_new_failure (error_code, message);
}

PrsToolCallResult *
prs_tool_call_result_copy (const PrsToolCallResult *result)
{
  PrsToolCallResult *copy;

  g_return_val_if_fail (result != NULL, NULL);

  copy = g_new0 (PrsToolCallResult, 1);
  *copy = *result;
  copy->result = result->result != NULL ? json_node_ref (result->result) : NULL;
  copy->error = g_strdup (result->error);
  copy->url = g_strdup (result->url);
  /* One sender, told once: by the original */
  copy->stored_func = NULL;
  copy->stored_data = NULL;
  return copy;
}

void
prs_tool_call_tell_dropped (PrsToolCallStoredFunc func,
                            gpointer              data)
{
  g_autoptr(GError) dropped = NULL;

  if (func == NULL)
    return;
  dropped = g_error_new_literal (PRS_ERROR, PRS_ERROR_NOT_FOUND, "The tool call ended before its result was stored.");
  func (dropped, 0, data);
}

void
prs_tool_call_result_stored (PrsToolCallResult *result,
                             const GError      *error,
                             guint64            commit)
{
  PrsToolCallStoredFunc func;

  g_return_if_fail (result != NULL);

  func = g_steal_pointer (&result->stored_func);
  if (func != NULL)
    func (error, commit, g_steal_pointer (&result->stored_data));
}

gboolean
prs_tool_call_result_waits_again (const GError *error)
{
  return error != NULL && !g_error_matches (error, PRS_ERROR, PRS_ERROR_NOT_FOUND);
}

void
prs_tool_call_result_free (PrsToolCallResult *result)
{
  if (result == NULL)
    return;

  prs_tool_call_tell_dropped (g_steal_pointer (&result->stored_func), g_steal_pointer (&result->stored_data));

  g_clear_pointer (&result->result, json_node_unref);
  g_free (result->error);
  g_free (result->url);
  g_free (result);
}

const char *
prs_tool_call_status_to_string (PrsToolCallStatus status)
{
  switch (status)
    {
    case PRS_TOOL_CALL_SUCCEEDED:
      return "succeeded";
    case PRS_TOOL_CALL_FAILED:
      return "failed";
    case PRS_TOOL_CALL_WAITING_CALLBACK:
      return "waiting-callback";
    default:
      g_assert_not_reached ();
    }
}

char *
prs_tool_call_cut_for_model (const char *text,
                             gsize       max_bytes)
{
  gsize len;
  gsize end;

  g_return_val_if_fail (text != NULL, NULL);

  len = strlen (text);
  if (len <= max_bytes)
    return g_strdup (text);

  /* Back up to the first byte of a character, so that the kept part ends
   * with a whole one. */
  end = max_bytes;
  while (end > 0 && ((guchar) text[end] & 0xC0) == 0x80)
    end--;

  return g_strdup_printf ("%.*s\n[result truncated: %" G_GSIZE_FORMAT " bytes, showing the first %"
                          G_GSIZE_FORMAT "]", (int) end, text, len, end);
}

char *
prs_tool_call_result_for_model (const PrsToolCallResult *result)
{
  g_autofree char *text = NULL;

  g_return_val_if_fail (result != NULL, NULL);

  switch (result->status)
    {
    case PRS_TOOL_CALL_SUCCEEDED:
      {
        g_autoptr(JsonNode) null_node = json_node_new (JSON_NODE_NULL);

        text = prs_json_to_string (result->result != NULL ? result->result : null_node, FALSE);
      }
      break;

    case PRS_TOOL_CALL_FAILED:
      {
        g_autoptr(JsonBuilder) builder = json_builder_new ();
        g_autoptr(JsonNode) root = NULL;

        json_builder_begin_object (builder);
        json_builder_set_member_name (builder, "success");
        json_builder_add_boolean_value (builder, FALSE);
        json_builder_set_member_name (builder, "error");
        json_builder_add_string_value (builder, result->error != NULL ? result->error : "the tool call failed");
        json_builder_end_object (builder);
        root = json_builder_get_root (builder);
        text = prs_json_to_string (root, FALSE);
      }
      break;

    case PRS_TOOL_CALL_WAITING_CALLBACK:
      text = g_strdup ("{\"status\":\"running\",\"message\":\"The workflow was started; "
                       "its result has not arrived yet.\"}");
      break;

    default:
      g_assert_not_reached ();
    }

  return prs_tool_call_cut_for_model (text, PRS_TOOL_CALL_MAX_MODEL_BYTES);
}

void
prs_tool_call_clear_source (GSource **source)
{
  if (*source != NULL)
    {
      g_source_destroy (*source);
      g_clear_pointer (source, g_source_unref);
    }
}
