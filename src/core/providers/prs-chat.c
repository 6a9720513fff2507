/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-chat.c: the values a chat call takes and gives (prs-chat.h). */
#include "config.h"

#include "prs-chat.h"

PrsToolCall *
prs_tool_call_new (const char *id,
                   const char *name,
                   JsonObject *arguments)
{
  PrsToolCall *call = g_new0 (PrsToolCall, 1);

  call->id = g_strdup (id);
  call->name = g_strdup (name);
  call->arguments = arguments != NULL ? json_object_ref (arguments) : json_object_new ();
  return call;
}

PrsToolCall *
prs_tool_call_copy (const PrsToolCall *call)
{
  g_return_val_if_fail (call != NULL, NULL);

  return prs_tool_call_new (call->id, call->name, call->arguments);
}

void
prs_tool_call_free (PrsToolCall *call)
{
  if (call == NULL)
    return;

  g_free (call->id);
  g_free (call->name);
  g_clear_pointer (&call->arguments, json_object_unref);
  g_free (call);
}

static void
chat_message_free (gpointer data)
{
  PrsChatMessage *message = data;

  g_free (message->text);
  g_ptr_array_unref (message->tool_calls);
  g_free (message->tool_call_id);
  g_free (message->tool_name);
  g_free (message);
}

static void
chat_tool_free (gpointer data)
{
  PrsChatTool *tool = data;

  g_free (tool->name);
  g_free (tool->description);
  g_clear_pointer (&tool->input_schema, json_node_unref);
  g_free (tool);
}

static void
chat_request_clear (gpointer data)
{
  PrsChatRequest *request = data;

  g_free (request->model);
  g_free (request->system_prompt);
  g_ptr_array_unref (request->messages);
  g_ptr_array_unref (request->tools);
}

PrsChatRequest *
prs_chat_request_new (void)
{
  PrsChatRequest *request = g_atomic_rc_box_new0 (PrsChatRequest);

  request->messages = g_ptr_array_new_with_free_func (chat_message_free);
  request->tools = g_ptr_array_new_with_free_func (chat_tool_free);
  request->temperature = -1;
  return request;
}

PrsChatRequest *
prs_chat_request_ref (PrsChatRequest *request)
{
  g_return_val_if_fail (request != NULL, NULL);

  return g_atomic_rc_box_acquire (request);
}

void
prs_chat_request_unref (PrsChatRequest *request)
{
  if (request != NULL)
    g_atomic_rc_box_release_full (request, chat_request_clear);
}

static PrsChatMessage *
add_message (PrsChatRequest *request,
             PrsChatRole     role,
             const char     *text)
{
  PrsChatMessage *message = g_new0 (PrsChatMessage, 1);

  message->role = role;
  message->text = g_strdup (text);
  message->tool_calls = g_ptr_array_new_with_free_func ((GDestroyNotify) prs_tool_call_free);
  g_ptr_array_add (request->messages, message);
  return message;
}

void
prs_chat_request_add_user (PrsChatRequest *request,
                           const char     *text)
{
  g_return_if_fail (request != NULL);

  add_message (request, PRS_CHAT_ROLE_USER, text);
}

void
prs_chat_request_add_assistant (PrsChatRequest *request,
                                const char     *text,
                                GPtrArray      *tool_calls)
{
  PrsChatMessage *message;

  g_return_if_fail (request != NULL);

  message = add_message (request, PRS_CHAT_ROLE_ASSISTANT, text);
  for (guint i = 0; tool_calls != NULL && i < tool_calls->len; i++)
    g_ptr_array_add (message->tool_calls, prs_tool_call_copy (g_ptr_array_index (tool_calls, i)));
}

void
prs_chat_request_add_tool_result (PrsChatRequest *request,
                                  const char     *tool_call_id,
                                  const char     *tool_name,
                                  const char     *text)
{
  PrsChatMessage *message;

  g_return_if_fail (request != NULL);
  g_return_if_fail (tool_call_id != NULL);

  message = add_message (request, PRS_CHAT_ROLE_TOOL, text);
  message->tool_call_id = g_strdup (tool_call_id);
  message->tool_name = g_strdup (tool_name);
}

void
prs_chat_request_add_tool (PrsChatRequest *request,
                           const char     *name,
                           const char     *description,
                           JsonNode       *input_schema)
{
  PrsChatTool *tool;

  g_return_if_fail (request != NULL);
  g_return_if_fail (name != NULL);

  tool = g_new0 (PrsChatTool, 1);
  tool->name = g_strdup (name);
  tool->description = g_strdup (description != NULL ? description : "");
  if (input_schema != NULL)
    tool->input_schema = json_node_ref (input_schema);
  g_ptr_array_add (request->tools, tool);
}

PrsChatResponse *
prs_chat_response_new (void)
{
  PrsChatResponse *response = g_new0 (PrsChatResponse, 1);

  response->text = g_strdup ("");
  response->tool_calls = g_ptr_array_new_with_free_func ((GDestroyNotify) prs_tool_call_free);
  return response;
}

void
prs_chat_response_free (PrsChatResponse *response)
{
  if (response == NULL)
    return;

  g_free (response->text);
  g_ptr_array_unref (response->tool_calls);
  g_free (response->stop_reason);
  g_free (response->raw_stop_reason);
  g_free (response->model);
  g_free (response->provider_id);
  g_free (response->provider_name);
  g_free (response);
}

void
prs_chat_response_set_stop (PrsChatResponse *response,
                            const char      *normalised,
                            const char      *raw)
{
  g_free (response->stop_reason);
  response->stop_reason = g_strdup (normalised);
  g_free (response->raw_stop_reason);
  response->raw_stop_reason = g_strdup (raw);
}

PrsModelInfo *
prs_model_info_new (const char *id,
                    const char *name)
{
  PrsModelInfo *info = g_new0 (PrsModelInfo, 1);

  info->id = g_strdup (id);
  info->name = g_strdup (name != NULL && name[0] != '\0' ? name : id);
  return info;
}

void
prs_model_info_free (PrsModelInfo *info)
{
  if (info == NULL)
    return;

  g_free (info->id);
  g_free (info->name);
  g_free (info);
}

