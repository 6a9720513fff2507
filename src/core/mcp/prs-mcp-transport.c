/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-mcp-transport.c: the base of the MCP transports (prs-mcp-transport.h). */
#include "config.h"

#include <string.h>
#include <glib/gi18n-lib.h>

#include "prs-error.h"
#include "prs-json.h"
#include "prs-mcp-transport.h"

/* Tool schemas nest, but not this deep. */
#define MAX_DEPTH 128
/* A batch longer than this is not a server being helpful. */
#define MAX_BATCH 1024
/* How much of a message that is not JSON an error quotes. */
#define QUOTE_CHARS 60

typedef struct
{
  char  *protocol_version;
  gsize  max_message;
} PrsMcpTransportPrivate;

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (PrsMcpTransport, prs_mcp_transport, G_TYPE_OBJECT)

enum
{
  SIGNAL_MESSAGE,
  SIGNAL_CLOSED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
prs_mcp_transport_finalize (GObject *object)
{
  PrsMcpTransportPrivate *priv = prs_mcp_transport_get_instance_private (PRS_MCP_TRANSPORT (object));

  g_free (priv->protocol_version);

  G_OBJECT_CLASS (prs_mcp_transport_parent_class)->finalize (object);
}

static void
prs_mcp_transport_class_init (PrsMcpTransportClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = prs_mcp_transport_finalize;

  /**
   * PrsMcpTransport::message:
   * @message: (type Json.Node): one JSON-RPC object from the server
   */
  signals[SIGNAL_MESSAGE] =
    g_signal_new ("message", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, JSON_TYPE_NODE | G_SIGNAL_TYPE_STATIC_SCOPE);
  /**
   * PrsMcpTransport::closed:
   * @error: why the connection ended
   */
  signals[SIGNAL_CLOSED] =
    g_signal_new ("closed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_ERROR | G_SIGNAL_TYPE_STATIC_SCOPE);
}

static void
prs_mcp_transport_init (PrsMcpTransport *self)
{
  PrsMcpTransportPrivate *priv = prs_mcp_transport_get_instance_private (self);

  priv->max_message = PRS_MCP_DEFAULT_MAX_MESSAGE;
}

void
prs_mcp_transport_open_async (PrsMcpTransport     *self,
                              GCancellable        *cancellable,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  g_return_if_fail (PRS_IS_MCP_TRANSPORT (self));

  PRS_MCP_TRANSPORT_GET_CLASS (self)->open_async (self, cancellable, callback, user_data);
}

gboolean
prs_mcp_transport_open_finish (PrsMcpTransport  *self,
                               GAsyncResult     *result,
                               GError          **error)
{
  g_return_val_if_fail (PRS_IS_MCP_TRANSPORT (self), FALSE);

  return PRS_MCP_TRANSPORT_GET_CLASS (self)->open_finish (self, result, error);
}

void
prs_mcp_transport_send_async (PrsMcpTransport     *self,
                              GBytes              *message,
                              GCancellable        *cancellable,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  g_return_if_fail (PRS_IS_MCP_TRANSPORT (self));
  g_return_if_fail (message != NULL);

  PRS_MCP_TRANSPORT_GET_CLASS (self)->send_async (self, message, cancellable, callback, user_data);
}

gboolean
prs_mcp_transport_send_finish (PrsMcpTransport  *self,
                               GAsyncResult     *result,
                               GError          **error)
{
  g_return_val_if_fail (PRS_IS_MCP_TRANSPORT (self), FALSE);

  return PRS_MCP_TRANSPORT_GET_CLASS (self)->send_finish (self, result, error);
}

void
prs_mcp_transport_listen (PrsMcpTransport *self)
{
  g_return_if_fail (PRS_IS_MCP_TRANSPORT (self));

  if (PRS_MCP_TRANSPORT_GET_CLASS (self)->listen != NULL)
    PRS_MCP_TRANSPORT_GET_CLASS (self)->listen (self);
}

void
prs_mcp_transport_close (PrsMcpTransport *self)
{
  g_return_if_fail (PRS_IS_MCP_TRANSPORT (self));

  PRS_MCP_TRANSPORT_GET_CLASS (self)->close (self);
}

char *
prs_mcp_transport_dup_diagnostics (PrsMcpTransport *self)
{
  g_return_val_if_fail (PRS_IS_MCP_TRANSPORT (self), NULL);

  if (PRS_MCP_TRANSPORT_GET_CLASS (self)->dup_diagnostics == NULL)
    return NULL;
  return PRS_MCP_TRANSPORT_GET_CLASS (self)->dup_diagnostics (self);
}

gboolean
prs_mcp_transport_answers_inline (PrsMcpTransport *self)
{
  g_return_val_if_fail (PRS_IS_MCP_TRANSPORT (self), FALSE);

  return PRS_MCP_TRANSPORT_GET_CLASS (self)->answers_inline;
}

void
prs_mcp_transport_set_protocol_version (PrsMcpTransport *self,
                                        const char      *version)
{
  PrsMcpTransportPrivate *priv = prs_mcp_transport_get_instance_private (self);

  g_return_if_fail (PRS_IS_MCP_TRANSPORT (self));

  g_free (priv->protocol_version);
  priv->protocol_version = g_strdup (version);
}

const char *
prs_mcp_transport_get_protocol_version (PrsMcpTransport *self)
{
  PrsMcpTransportPrivate *priv = prs_mcp_transport_get_instance_private (self);

  g_return_val_if_fail (PRS_IS_MCP_TRANSPORT (self), NULL);

  return priv->protocol_version;
}

gsize
prs_mcp_transport_get_max_message (PrsMcpTransport *self)
{
  PrsMcpTransportPrivate *priv = prs_mcp_transport_get_instance_private (self);

  g_return_val_if_fail (PRS_IS_MCP_TRANSPORT (self), 0);

  return priv->max_message;
}

void
prs_mcp_transport_set_max_message (PrsMcpTransport *self,
                                   gsize            max_bytes)
{
  PrsMcpTransportPrivate *priv = prs_mcp_transport_get_instance_private (self);

  g_return_if_fail (PRS_IS_MCP_TRANSPORT (self));
  g_return_if_fail (max_bytes > 0);

  priv->max_message = max_bytes;
}

char *
prs_mcp_transport_describe_limit (PrsMcpTransport *self)
{
  g_autofree char *size = g_format_size_full (prs_mcp_transport_get_max_message (self),
                                              G_FORMAT_SIZE_IEC_UNITS);

  /* Translators: %s is a size such as "4.0 MiB" */
  return g_strdup_printf (_("The server sent a message larger than %s, the most Prosponsive accepts."),
                          size);
}

void
prs_mcp_transport_word_stream_error (PrsMcpTransport  *self,
                                     GError          **error)
{
  g_autofree char *message = NULL;

  if (error == NULL || !g_error_matches (*error, PRS_ERROR, PRS_ERROR_PROVIDER_BAD_RESPONSE))
    return;
  message = prs_mcp_transport_describe_limit (self);
  g_clear_error (error);
  g_set_error_literal (error, PRS_ERROR, PRS_ERROR_MCP_PROTOCOL, message);
}

static void
set_not_json (const char  *data,
              gsize        len,
              GError     **error)
{
  g_autofree char *valid = g_utf8_make_valid (data, MIN (len, QUOTE_CHARS * 4));
  g_autofree char *quote = g_utf8_substring (valid, 0, MIN (g_utf8_strlen (valid, -1), QUOTE_CHARS));

  for (char *p = quote; *p != '\0'; p++)
    {
      if ((guchar) *p < 0x20)
        *p = ' ';
    }
  /* Translators: %s is the start of what the server sent */
  g_set_error (error, PRS_ERROR, PRS_ERROR_MCP_PROTOCOL,
               _("The server sent something that is not valid JSON: “%s”."), quote);
}

static gboolean
emit_object (PrsMcpTransport  *self,
             JsonNode         *node,
             GError          **error)
{
  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error_literal (error, PRS_ERROR, PRS_ERROR_MCP_PROTOCOL,
                           _("The server sent JSON that is not a JSON-RPC message."));
      return FALSE;
    }
  g_signal_emit (self, signals[SIGNAL_MESSAGE], 0, node);
  return TRUE;
}

gboolean
prs_mcp_transport_deliver (PrsMcpTransport  *self,
                           const char       *data,
                           gsize             len,
                           GError          **error)
{
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GError) local_error = NULL;
  /* A handler may drop the last other reference to the transport */
  g_autoptr(PrsMcpTransport) hold = NULL;

  g_return_val_if_fail (PRS_IS_MCP_TRANSPORT (self), FALSE);

  if (len > prs_mcp_transport_get_max_message (self))
    {
      g_autofree char *message = prs_mcp_transport_describe_limit (self);

      g_set_error_literal (error, PRS_ERROR, PRS_ERROR_MCP_PROTOCOL, message);
      return FALSE;
    }
  root = prs_json_parse_strict (data, len, MAX_DEPTH, &local_error);
  if (root == NULL)
    {
      set_not_json (data, len, error);
      return FALSE;
    }

  hold = g_object_ref (self);
  if (JSON_NODE_HOLDS_ARRAY (root))
    {
      JsonArray *batch = json_node_get_array (root);

      for (guint i = 0; i < json_array_get_length (batch) && i < MAX_BATCH; i++)
        {
          if (!emit_object (self, json_array_get_element (batch, i), error))
            return FALSE;
        }
      return TRUE;
    }
  return emit_object (self, root, error);
}

gboolean
prs_mcp_transport_line_is_message (const char *line)
{
  const char *p = line;

  while (*p == ' ' || *p == '\t')
    p++;
  /* A line that starts like JSON but is not is a broken message: it is
   * delivered, and its parse fails */
  return *p == '{' || *p == '[';
}

gboolean
prs_mcp_transport_deliver_event (const char  *event,
                                 const char  *data,
                                 gsize        len,
                                 const char  *id,
                                 gpointer     user_data,
                                 GError     **error)
{
  PrsMcpTransport *self = user_data;

  /* Events without data only prime a reconnection */
  if (len == 0 || (g_strcmp0 (event, "message") != 0 && event != NULL))
    return TRUE;
  return prs_mcp_transport_deliver (self, data, len, error);
}

void
prs_mcp_transport_emit_closed (PrsMcpTransport *self,
                               const GError    *error)
{
  g_return_if_fail (PRS_IS_MCP_TRANSPORT (self));
  g_return_if_fail (error != NULL);

  g_signal_emit (self, signals[SIGNAL_CLOSED], 0, error);
}
