/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-mcp-server-item.c: one configured MCP server as the window shows it
 * (prs-mcp-hub.h): its row, its state and the words for it. */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "prs-mcp-hub-private.h"

G_DEFINE_FINAL_TYPE (PrsMcpServerItem, prs_mcp_server_item, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_STATUS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

const PrsMcpServerRow *
prs_mcp_server_item_get_row (PrsMcpServerItem *self)
{
  g_return_val_if_fail (PRS_IS_MCP_SERVER_ITEM (self), NULL);
  return self->row;
}

const char *
prs_mcp_server_item_get_id (PrsMcpServerItem *self)
{
  g_return_val_if_fail (PRS_IS_MCP_SERVER_ITEM (self), NULL);
  return self->row->id;
}

const char *
prs_mcp_server_item_get_name (PrsMcpServerItem *self)
{
  g_return_val_if_fail (PRS_IS_MCP_SERVER_ITEM (self), NULL);
  return self->row->name;
}

PrsMcpClient *
prs_mcp_server_item_get_client (PrsMcpServerItem *self)
{
  g_return_val_if_fail (PRS_IS_MCP_SERVER_ITEM (self), NULL);
  return self->client;
}

PrsMcpServerState
prs_mcp_server_item_get_state (PrsMcpServerItem *self)
{
  g_return_val_if_fail (PRS_IS_MCP_SERVER_ITEM (self), PRS_MCP_SERVER_OFF);

  if (!self->row->enabled)
    return PRS_MCP_SERVER_OFF;
  if (self->client == NULL)
    return self->error != NULL ? PRS_MCP_SERVER_FAILED : PRS_MCP_SERVER_CONNECTING;
  switch (prs_mcp_client_get_state (self->client))
    {
    case PRS_MCP_CLIENT_READY:
      return PRS_MCP_SERVER_CONNECTED;
    case PRS_MCP_CLIENT_RESTARTING:
      return PRS_MCP_SERVER_RESTARTING;
    case PRS_MCP_CLIENT_FAILED:
      return PRS_MCP_SERVER_FAILED;
    case PRS_MCP_CLIENT_IDLE:
      /* Closed after a session ended (HTTP): the next call connects */
      return prs_mcp_client_get_last_error (self->client) != NULL ? PRS_MCP_SERVER_FAILED
                                                                 : PRS_MCP_SERVER_CONNECTING;
    case PRS_MCP_CLIENT_CONNECTING:
    default:
      return PRS_MCP_SERVER_CONNECTING;
    }
}

const char *
prs_mcp_server_item_get_error (PrsMcpServerItem *self)
{
  const GError *error;

  g_return_val_if_fail (PRS_IS_MCP_SERVER_ITEM (self), NULL);

  if (self->error != NULL)
    return self->error;
  error = self->client != NULL ? prs_mcp_client_get_last_error (self->client) : NULL;
  return error != NULL ? error->message : NULL;
}

guint
prs_mcp_server_item_get_restart_in (PrsMcpServerItem *self)
{
  gint64 left;

  g_return_val_if_fail (PRS_IS_MCP_SERVER_ITEM (self), 0);

  if (prs_mcp_server_item_get_state (self) != PRS_MCP_SERVER_RESTARTING)
    return 0;
  left = self->restart_at - g_get_monotonic_time ();
  return left > 0 ? (guint) ((left + G_USEC_PER_SEC - 1) / G_USEC_PER_SEC) : 0;
}

guint
prs_mcp_server_item_get_n_tools (PrsMcpServerItem *self)
{
  g_return_val_if_fail (PRS_IS_MCP_SERVER_ITEM (self), 0);

  if (prs_mcp_server_item_get_state (self) != PRS_MCP_SERVER_CONNECTED)
    return 0;
  return prs_mcp_client_get_tools (self->client)->len;
}

char *
prs_mcp_server_item_dup_status (PrsMcpServerItem *self)
{
  const char *error = prs_mcp_server_item_get_error (self);
  guint n;

  g_return_val_if_fail (PRS_IS_MCP_SERVER_ITEM (self), NULL);

  switch (prs_mcp_server_item_get_state (self))
    {
    case PRS_MCP_SERVER_OFF:
      return g_strdup (_("Off"));
    case PRS_MCP_SERVER_CONNECTED:
      n = prs_mcp_server_item_get_n_tools (self);
      if (prs_mcp_client_get_tools_truncated (self->client))
        /* Translators: %u is a number of tools such as 1000 */
        return g_strdup_printf (_("Connected: the first %u tools (it lists more; the rest are left out)"), n);
      return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "Connected: %u tool", "Connected: %u tools", n), n);
    case PRS_MCP_SERVER_RESTARTING:
      n = prs_mcp_server_item_get_restart_in (self);
      /* Translators: %u is a number of seconds; then why the server stopped */
      return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "Starts again in %u second. %s",
                                           "Starts again in %u seconds. %s", n),
                              n, error != NULL ? error : "");
    case PRS_MCP_SERVER_FAILED:
      return g_strdup (error != NULL ? error : _("It could not be reached."));
    case PRS_MCP_SERVER_CONNECTING:
    default:
      return g_strdup (_("Connecting…"));
    }
}

void
_prs_mcp_server_item_changed (PrsMcpServerItem *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STATUS]);
}

static void
prs_mcp_server_item_get_property (GObject    *object,
                                  guint       prop_id,
                                  GValue     *value,
                                  GParamSpec *pspec)
{
  PrsMcpServerItem *self = PRS_MCP_SERVER_ITEM (object);

  switch (prop_id)
    {
    case PROP_STATUS:
      g_value_take_string (value, prs_mcp_server_item_dup_status (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
prs_mcp_server_item_finalize (GObject *object)
{
  PrsMcpServerItem *self = PRS_MCP_SERVER_ITEM (object);

  g_assert (self->waiting == NULL);
  g_clear_pointer (&self->row, prs_mcp_server_row_free);
  g_clear_object (&self->client);
  g_clear_object (&self->cancellable);
  g_free (self->error);

  G_OBJECT_CLASS (prs_mcp_server_item_parent_class)->finalize (object);
}

static void
prs_mcp_server_item_class_init (PrsMcpServerItemClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = prs_mcp_server_item_finalize;
  object_class->get_property = prs_mcp_server_item_get_property;

  /* prs_mcp_server_item_dup_status (); notified whenever the state, the
   * tools or the countdown change */
  properties[PROP_STATUS] =
    g_param_spec_string ("status", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
prs_mcp_server_item_init (PrsMcpServerItem *self)
{
}

PrsMcpServerItem *
_prs_mcp_server_item_new (PrsMcpServerRow *row)
{
  PrsMcpServerItem *self = g_object_new (PRS_TYPE_MCP_SERVER_ITEM, NULL);

  self->row = row;
  return self;
}
