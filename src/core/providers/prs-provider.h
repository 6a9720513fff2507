/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-provider.h: one AI provider (docs/providers.md) behind one interface. A chat
 * request goes in (system prompt, messages, tools); a response comes out
 * (text, tool calls, a normalised stop reason, usage), with text deltas
 * delivered as they stream. Errors are PRS_ERROR_PROVIDER_* codes whose
 * messages say what went wrong in words a person understands; the codes
 * are what failover (prs-providers.h) decides on. */
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

/* ---- The interface ----------------------------------------------------- */

#define PRS_PROVIDER_DEFAULT_TIMEOUT 120  /* seconds: connect and idle */

#define PRS_TYPE_PROVIDER (prs_provider_get_type ())
G_DECLARE_INTERFACE (PrsProvider, prs_provider, PRS, PROVIDER, GObject)

struct _PrsProviderInterface
{
  GTypeInterface parent_iface;

  const char      *(*get_kind)          (PrsProvider          *self);
  const char      *(*get_base_url)      (PrsProvider          *self);
  const char      *(*get_model)         (PrsProvider          *self);
  void             (*set_timeout)       (PrsProvider          *self,
                                         guint                 seconds);
  void             (*chat_async)        (PrsProvider          *self,
                                         PrsChatRequest       *request,
                                         PrsChatDeltaFunc      delta_func,
                                         gpointer              delta_data,
                                         GDestroyNotify        delta_destroy,
                                         GCancellable         *cancellable,
                                         GAsyncReadyCallback   callback,
                                         gpointer              user_data);
  PrsChatResponse *(*chat_finish)       (PrsProvider          *self,
                                         GAsyncResult         *result,
                                         GError              **error);
  void             (*list_models_async) (PrsProvider          *self,
                                         GCancellable         *cancellable,
                                         GAsyncReadyCallback   callback,
                                         gpointer              user_data);
  GPtrArray       *(*list_models_finish) (PrsProvider         *self,
                                         GAsyncResult         *result,
                                         GError              **error);
};

/* "openai", "ollama", "anthropic" or "gemini". */
const char      *prs_provider_get_kind          (PrsProvider          *self);
/* The base URL (normalised, no trailing slash) and the configured model;
 * the API key is given to prs_provider_new() and never read back. The
 * timeout (seconds, PRS_PROVIDER_DEFAULT_TIMEOUT) bounds connecting and
 * every wait for the next bytes, so slow streams live as long as they move. */
const char      *prs_provider_get_base_url      (PrsProvider          *self);
const char      *prs_provider_get_model         (PrsProvider          *self);
void             prs_provider_set_timeout       (PrsProvider          *self,
                                                 guint                 seconds);

void             prs_provider_chat_async        (PrsProvider          *self,
                                                 PrsChatRequest       *request,
                                                 PrsChatDeltaFunc      delta_func,
                                                 gpointer              delta_data,
                                                 GDestroyNotify        delta_destroy,
                                                 GCancellable         *cancellable,
                                                 GAsyncReadyCallback   callback,
                                                 gpointer              user_data);
PrsChatResponse *prs_provider_chat_finish       (PrsProvider          *self,
                                                 GAsyncResult         *result,
                                                 GError              **error);
/* PrsModelInfo*, in the provider's order. */
void             prs_provider_list_models_async (PrsProvider          *self,
                                                 GCancellable         *cancellable,
                                                 GAsyncReadyCallback   callback,
                                                 gpointer              user_data);
GPtrArray       *prs_provider_list_models_finish (PrsProvider         *self,
                                                 GAsyncResult         *result,
                                                 GError              **error);

/* After a chat or model list failed with PRS_ERROR_PROVIDER_RATE_LIMITED:
 * the seconds the provider asked to wait (Retry-After), 0 when it did not
 * say. Call it with the same @result as the _finish function. */
guint            prs_provider_get_retry_after   (GAsyncResult         *result);
/* TRUE when text deltas of the call were delivered before it failed
 * (failover must not start over once the user saw part of an answer). */
gboolean         prs_provider_get_streamed_text (GAsyncResult         *result);

/* Makes a provider of @kind. @base_url NULL or "" means the kind's default
 * (prs_provider_kind_default_base_url). Fails with PRS_ERROR_INVALID_INPUT
 * for an unknown kind or a URL that is not http(s). */
PrsProvider     *prs_provider_new               (const char           *kind,
                                                 const char           *base_url,
                                                 const char           *model,
                                                 const char           *api_key,
                                                 GError              **error);

gboolean         prs_provider_kind_is_valid     (const char           *kind);
const char      *prs_provider_kind_default_base_url (const char       *kind);
/* "OpenAI-compatible", "Ollama", "Anthropic", "Google Gemini" */
const char      *prs_provider_kind_get_label    (const char           *kind);
/* Whether the kind cannot work without an API key (Ollama can). */
gboolean         prs_provider_kind_needs_key    (const char           *kind);
/* TRUE when @base_url's host is loopback (localhost, 127.0.0.0/8, ::1). */
gboolean         prs_provider_url_is_local      (const char           *base_url);

G_END_DECLS
