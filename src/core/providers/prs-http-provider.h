/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-http-provider.h: the base of the four HTTP providers. It implements
 * PrsProvider's common part (kind, base URL, model, timeout, the _finish
 * halves) over one PrsProviderConfig configuration; a subclass only says how to chat
 * and how to list models on its wire protocol. */
#pragma once

#include "prs-provider.h"

G_BEGIN_DECLS

#define PRS_TYPE_HTTP_PROVIDER (prs_http_provider_get_type ())
G_DECLARE_DERIVABLE_TYPE (PrsHttpProvider, prs_http_provider, PRS, HTTP_PROVIDER, GObject)

struct _PrsHttpProviderClass
{
  GObjectClass parent_class;

  /* Both finish with a GTask whose source object is the provider and whose
   * pointer is the PrsChatResponse / the GPtrArray of models. */
  void (*chat_async)        (PrsProvider         *self,
                             PrsChatRequest      *request,
                             PrsChatDeltaFunc     delta_func,
                             gpointer             delta_data,
                             GDestroyNotify       delta_destroy,
                             GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data);
  void (*list_models_async) (PrsProvider         *self,
                             GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data);
};

G_END_DECLS
