/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-provider.h: one AI provider (docs/providers.md) behind one interface. A chat
 * request goes in (prs-chat.h); a response comes out, with text deltas
 * delivered as they stream. Errors are PRS_ERROR_PROVIDER_* codes whose
 * messages say what went wrong in words a person understands; the codes
 * are what failover (prs-providers.h) decides on. The backends implement it
 * through PrsHttpProvider; prs-provider-kinds.h makes one. */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "prs-chat.h"

G_BEGIN_DECLS

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
  guint            (*get_retry_after)   (PrsProvider          *self,
                                         GAsyncResult         *result);
  gboolean         (*get_streamed_text) (PrsProvider          *self,
                                         GAsyncResult         *result);
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

G_END_DECLS
