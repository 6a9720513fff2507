/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-provider.c: the provider interface (prs-provider.h); each call goes
 * to the implementation. */
#include "config.h"

#include "prs-provider.h"

G_DEFINE_INTERFACE (PrsProvider, prs_provider, G_TYPE_OBJECT)

static void
prs_provider_default_init (PrsProviderInterface *iface)
{
}

const char *
prs_provider_get_kind (PrsProvider *self)
{
  g_return_val_if_fail (PRS_IS_PROVIDER (self), NULL);

  return PRS_PROVIDER_GET_IFACE (self)->get_kind (self);
}

const char *
prs_provider_get_base_url (PrsProvider *self)
{
  g_return_val_if_fail (PRS_IS_PROVIDER (self), NULL);

  return PRS_PROVIDER_GET_IFACE (self)->get_base_url (self);
}

const char *
prs_provider_get_model (PrsProvider *self)
{
  g_return_val_if_fail (PRS_IS_PROVIDER (self), NULL);

  return PRS_PROVIDER_GET_IFACE (self)->get_model (self);
}

void
prs_provider_set_timeout (PrsProvider *self,
                          guint        seconds)
{
  g_return_if_fail (PRS_IS_PROVIDER (self));
  g_return_if_fail (seconds > 0);

  PRS_PROVIDER_GET_IFACE (self)->set_timeout (self, seconds);
}

void
prs_provider_chat_async (PrsProvider         *self,
                         PrsChatRequest      *request,
                         PrsChatDeltaFunc     delta_func,
                         gpointer             delta_data,
                         GDestroyNotify       delta_destroy,
                         GCancellable        *cancellable,
                         GAsyncReadyCallback  callback,
                         gpointer             user_data)
{
  g_return_if_fail (PRS_IS_PROVIDER (self));
  g_return_if_fail (request != NULL);
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  PRS_PROVIDER_GET_IFACE (self)->chat_async (self, request, delta_func, delta_data, delta_destroy,
                                             cancellable, callback, user_data);
}

PrsChatResponse *
prs_provider_chat_finish (PrsProvider   *self,
                          GAsyncResult  *result,
                          GError       **error)
{
  g_return_val_if_fail (PRS_IS_PROVIDER (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return PRS_PROVIDER_GET_IFACE (self)->chat_finish (self, result, error);
}

void
prs_provider_list_models_async (PrsProvider         *self,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data)
{
  g_return_if_fail (PRS_IS_PROVIDER (self));
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  PRS_PROVIDER_GET_IFACE (self)->list_models_async (self, cancellable, callback, user_data);
}

GPtrArray *
prs_provider_list_models_finish (PrsProvider   *self,
                                 GAsyncResult  *result,
                                 GError       **error)
{
  g_return_val_if_fail (PRS_IS_PROVIDER (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return PRS_PROVIDER_GET_IFACE (self)->list_models_finish (self, result, error);
}

guint
prs_provider_get_retry_after (GAsyncResult *result)
{
  g_autoptr(GObject) source = NULL;

  g_return_val_if_fail (G_IS_ASYNC_RESULT (result), 0);

  source = g_async_result_get_source_object (result);
  if (!PRS_IS_PROVIDER (source) || PRS_PROVIDER_GET_IFACE (source)->get_retry_after == NULL)
    return 0;
  return PRS_PROVIDER_GET_IFACE (source)->get_retry_after (PRS_PROVIDER (source), result);
}

gboolean
prs_provider_get_streamed_text (GAsyncResult *result)
{
  g_autoptr(GObject) source = NULL;

  g_return_val_if_fail (G_IS_ASYNC_RESULT (result), FALSE);

  source = g_async_result_get_source_object (result);
  if (!PRS_IS_PROVIDER (source) || PRS_PROVIDER_GET_IFACE (source)->get_streamed_text == NULL)
    return FALSE;
  return PRS_PROVIDER_GET_IFACE (source)->get_streamed_text (PRS_PROVIDER (source), result);
}
