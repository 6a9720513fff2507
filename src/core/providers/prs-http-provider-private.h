/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-http-provider-private.h: what the four provider implementations
 * share (prs-http-provider.c) — their configuration (PrsProviderConfig)
 * and one exchange (PrsExchange) that sends a JSON request over
 * PrsHttpRequest, maps failures to PRS_ERROR_PROVIDER_* codes, and hands the
 * answer to the implementation as one JSON document or as a stream of
 * SSE/NDJSON events. Only the backends and prs-http-provider.c include
 * this. */
#pragma once

#include "prs-event-stream.h"
#include "prs-http-request.h"
#include "prs-provider-kinds.h"

G_BEGIN_DECLS

typedef struct
{
  SoupSession *session;
  const char  *kind;       /* static string */
  char        *base_url;   /* without a trailing slash */
  char        *model;
  char        *api_key;    /* NULL or non-empty; never logged */
  guint        timeout;
} PrsProviderConfig;

PrsProviderConfig *prs_provider_config_new         (const char        *kind,
                                                    const char        *base_url,
                                                    const char        *model,
                                                    const char        *api_key);
void               prs_provider_config_free        (PrsProviderConfig *config);
void               prs_provider_config_set_timeout (PrsProviderConfig *config,
                                                    guint              seconds);

/* A PrsHttpProvider's configuration; set once, by the subclass's _new(),
 * which hands it over. */
PrsProviderConfig *prs_http_provider_get_config    (gpointer           self);
void               prs_http_provider_set_config    (gpointer           self,
                                                    PrsProviderConfig *config);

typedef enum
{
  PRS_WIRE_JSON,     /* one JSON document */
  PRS_WIRE_SSE,
  PRS_WIRE_NDJSON,
} PrsWire;

typedef struct _PrsExchange PrsExchange;

typedef struct
{
  /* PRS_WIRE_JSON, and streams whose server answered with plain JSON. */
  gboolean (*on_json)       (PrsExchange  *ex,
                             JsonNode     *root,
                             GError      **error);
  /* Streams: one event (see PrsEventFunc). */
  gboolean (*on_event)      (PrsExchange  *ex,
                             const char   *event,
                             const char   *data,
                             gsize         len,
                             GError      **error);
  /* Streams: the end; fails when the stream stopped before its last event. */
  gboolean (*on_end)        (PrsExchange  *ex,
                             GError      **error);
  /* An error answer's body (may be NULL when it is not JSON): the
   * provider's own message, and whether it says the model or the key is the
   * problem. Returns NULL when there is no message. */
  char    *(*error_message) (JsonNode     *body,
                             gboolean     *model_not_found,
                             gboolean     *bad_key);
  /* Chat exchanges: sets up impl_data (may be NULL). */
  void     (*chat_init)     (PrsExchange  *ex);
} PrsExchangeOps;

struct _PrsExchange
{
  PrsProviderConfig    *config;   /* borrowed from the task's source object */
  const PrsExchangeOps *ops;
  GTask                *task;     /* borrowed */
  PrsWire               wire;
  gboolean              is_chat;
  char                 *model;    /* the model asked for (messages) */

  PrsHttpRequest       *request;
  PrsEventStream       *parser;   /* a streamed answer's */

  /* Built by the implementation while the answer arrives */
  PrsChatResponse      *response;
  GString              *text;
  GPtrArray            *models;   /* PrsModelInfo* */
  gboolean              complete; /* the stream's last event was seen */
  gboolean              seen_content;
  gpointer              impl_data;
  GDestroyNotify        impl_destroy;

  PrsChatDeltaFunc      delta_func;
  gpointer              delta_data;
  GDestroyNotify        delta_destroy;
  gboolean              streamed_text;
  guint                 retry_after;
};

/* Creates the exchange and the message (@path is appended to the base URL,
 * with its query), attaches it to @task as task data. @body may be NULL. */
PrsExchange *prs_exchange_new        (PrsProviderConfig    *config,
                                      GTask                *task,
                                      const PrsExchangeOps *ops,
                                      PrsWire               wire,
                                      const char           *method,
                                      const char           *path,
                                      JsonNode             *body);
/* For chat exchanges: allocate the response and remember the callback. */
void         prs_exchange_set_chat   (PrsExchange          *ex,
                                      const char           *model,
                                      PrsChatDeltaFunc      delta_func,
                                      gpointer              delta_data,
                                      GDestroyNotify        delta_destroy);
void         prs_exchange_set_header (PrsExchange          *ex,
                                      const char           *name,
                                      const char           *value);
/* Authorization: Bearer KEY, when the configuration has a key. */
void        prs_exchange_set_bearer (PrsExchange  *ex);
/* Sends; the task returns the response (chat) or the model list. */
void         prs_exchange_send       (PrsExchange          *ex);

/* Appends streamed text and passes it to the delta callback. */
void         prs_exchange_add_text   (PrsExchange          *ex,
                                      const char           *text);
/* Adds a model to the exchange's model list (made by the first): leaves out
 * an id that could not be used, an empty or missing one included. */
void         prs_exchange_add_model  (PrsExchange          *ex,
                                      const char           *id,
                                      const char           *name);
/* Fails with PRS_ERROR_PROVIDER_BAD_RESPONSE: "… sent an answer Prosponsive
 * cannot read: @what". */
gboolean     prs_exchange_bad_response (PrsExchange        *ex,
                                      GError              **error,
                                      const char           *what);
/* An error the provider reported inside a 200 answer or a stream. */
gboolean     prs_exchange_stream_error (PrsExchange        *ex,
                                      GError              **error,
                                      const char           *type,
                                      const char           *message);
/* Parses one JSON event's data; fails with a bad-response error. */
JsonNode    *prs_exchange_parse      (PrsExchange          *ex,
                                      const char           *data,
                                      gsize                 len,
                                      GError              **error);

/* An exchange without a socket, for the tests and the fuzz target: a chat
 * exchange whose answer the caller hands over. Streams (@wire SSE or
 * NDJSON) are fed in chunks of any size, then finished; a JSON answer is
 * given whole to prs_exchange_finish() with its content type @type (may be
 * NULL); @body and @type are ignored for streams. With @model NULL it is a
 * model list's exchange instead (@wire JSON, a models ops), finished with
 * prs_exchange_finish_models(). */
PrsExchange     *prs_exchange_new_detached (PrsProviderConfig    *config,
                                            const PrsExchangeOps *ops,
                                            PrsWire               wire,
                                            const char           *model,
                                            PrsChatDeltaFunc      delta_func,
                                            gpointer              delta_data);
gboolean         prs_exchange_feed         (PrsExchange          *ex,
                                            const char           *data,
                                            gsize                 len,
                                            GError              **error);
PrsChatResponse *prs_exchange_finish       (PrsExchange          *ex,
                                            const char           *body,
                                            gsize                 len,
                                            const char           *type,
                                            GError              **error);
GPtrArray       *prs_exchange_finish_models (PrsExchange         *ex,
                                             const char          *body,
                                             gsize                len,
                                             const char          *type,
                                             GError             **error);
/* The error for a failed @status whose body is @body (may be NULL). */
GError          *prs_exchange_status_error (PrsExchange          *ex,
                                            guint                 status,
                                            const char           *body,
                                            gsize                 len);
void             prs_exchange_free         (PrsExchange          *ex);

/* Each backend's chat ops, for the same callers. */
const PrsExchangeOps *prs_provider_openai_get_chat_ops    (void);
const PrsExchangeOps *prs_provider_anthropic_get_chat_ops (void);
const PrsExchangeOps *prs_provider_gemini_get_chat_ops    (void);
const PrsExchangeOps *prs_provider_ollama_get_chat_ops    (void);
/* … and their model lists' ops. */
const PrsExchangeOps *prs_provider_openai_get_models_ops    (void);
const PrsExchangeOps *prs_provider_anthropic_get_models_ops (void);
const PrsExchangeOps *prs_provider_gemini_get_models_ops    (void);
const PrsExchangeOps *prs_provider_ollama_get_models_ops    (void);

/* A tool call id for providers that send none. */
char        *prs_provider_make_call_id (void);
/* [{type: "function", function: {name, description, parameters}}], the
 * tools format of OpenAI and Ollama. */
void         prs_json_builder_add_function_tools (JsonBuilder *b,
                                      GPtrArray   *tools);
/* The tool's input schema, or an empty object schema when it has none. */
JsonNode    *prs_chat_tool_dup_schema (PrsChatTool *tool);

G_END_DECLS
