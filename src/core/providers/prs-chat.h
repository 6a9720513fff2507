/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-chat.h: what a chat with a model is made of, whichever provider
 * answers it: the request (system prompt, messages, tools), the response
 * (text, tool calls, a normalised stop reason, usage), the models a provider
 * offers, and the callback text deltas stream to. Plain values, so that the
 * run, failover and every backend share them without knowing each other. */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* ---- Requests ---------------------------------------------------------- */

typedef struct
{
  char       *id;         /* the provider's id, or one made up for providers without ids */
  char       *name;
  JsonObject *arguments;  /* never NULL */
} PrsToolCall;

PrsToolCall *prs_tool_call_new  (const char  *id,
                                 const char  *name,
                                 JsonObject  *arguments);   /* NULL: {}; referenced */
PrsToolCall *prs_tool_call_copy (const PrsToolCall *call);
void         prs_tool_call_free (PrsToolCall *call);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrsToolCall, prs_tool_call_free)

typedef enum
{
  PRS_CHAT_ROLE_USER,
  PRS_CHAT_ROLE_ASSISTANT,
  PRS_CHAT_ROLE_TOOL,
} PrsChatRole;

typedef struct
{
  PrsChatRole  role;
  char        *text;          /* may be NULL (an assistant turn of tool calls only) */
  GPtrArray   *tool_calls;    /* PrsToolCall*, assistant turns; never NULL */
  char        *tool_call_id;  /* tool turns: the call this is the result of */
  char        *tool_name;     /* tool turns: the tool's name (Ollama and Gemini need it) */
} PrsChatMessage;

typedef struct
{
  char     *name;
  char     *description;
  JsonNode *input_schema;     /* a JSON Schema object */
} PrsChatTool;

/* Reference-counted, so that failover can hand the same request to
 * several providers. Fill it in before the first chat call. */
typedef struct
{
  char      *model;          /* NULL: the provider's configured model */
  char      *system_prompt;  /* may be NULL */
  GPtrArray *messages;       /* PrsChatMessage* */
  GPtrArray *tools;          /* PrsChatTool* */
  guint      max_tokens;     /* 0: the default (PRS_CHAT_DEFAULT_MAX_TOKENS) */
  double     temperature;    /* < 0: the provider's default */
  gboolean   stream;
} PrsChatRequest;

#define PRS_CHAT_DEFAULT_MAX_TOKENS 4096

PrsChatRequest *prs_chat_request_new   (void);
PrsChatRequest *prs_chat_request_ref   (PrsChatRequest *request);
void            prs_chat_request_unref (PrsChatRequest *request);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrsChatRequest, prs_chat_request_unref)

void prs_chat_request_add_user        (PrsChatRequest *request,
                                       const char     *text);
/* @tool_calls: PrsToolCall*, copied; may be NULL. */
void prs_chat_request_add_assistant   (PrsChatRequest *request,
                                       const char     *text,
                                       GPtrArray      *tool_calls);
void prs_chat_request_add_tool_result (PrsChatRequest *request,
                                       const char     *tool_call_id,
                                       const char     *tool_name,
                                       const char     *text);
/* @input_schema is referenced; NULL means no parameters. */
void prs_chat_request_add_tool        (PrsChatRequest *request,
                                       const char     *name,
                                       const char     *description,
                                       JsonNode       *input_schema);

/* ---- Responses --------------------------------------------------------- */

/* Normalised stop reasons */
#define PRS_STOP_END        "end"
#define PRS_STOP_TOOL_CALLS "tool_calls"
#define PRS_STOP_MAX_TOKENS "max_tokens"
#define PRS_STOP_OTHER      "other"

typedef struct
{
  char      *text;              /* never NULL */
  GPtrArray *tool_calls;        /* PrsToolCall*; never NULL */
  char      *stop_reason;       /* one of PRS_STOP_* */
  char      *raw_stop_reason;   /* the provider's own word; may be NULL */
  gint64     input_tokens;      /* 0 when the provider did not say */
  gint64     output_tokens;
  char      *model;             /* the model that answered, as the provider named it */
  char      *provider_id;       /* set by prs_providers_chat_*; NULL otherwise */
  char      *provider_name;
} PrsChatResponse;

PrsChatResponse *prs_chat_response_new  (void);
void             prs_chat_response_free (PrsChatResponse *response);
/* The normalised stop reason of a response once it is complete, and the
 * provider's own word for it (may be NULL). */
void             prs_chat_response_set_stop (PrsChatResponse *response,
                                             const char      *normalised,
                                             const char      *raw);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrsChatResponse, prs_chat_response_free)

typedef struct
{
  char *id;     /* what goes into a request's model */
  char *name;   /* for people; the id when the provider has no other name */
} PrsModelInfo;

PrsModelInfo *prs_model_info_new  (const char   *id,
                                   const char   *name);
void          prs_model_info_free (PrsModelInfo *info);

/* Text as it streams, on the thread-default main context of the call. */
typedef void (*PrsChatDeltaFunc) (const char *text,
                                  gpointer    user_data);

G_END_DECLS
