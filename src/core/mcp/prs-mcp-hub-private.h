/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-mcp-hub-private.h: what the hub's two files share:
 * prs-mcp-server-item.c (one server's state in words) and prs-mcp-hub.c
 * (connecting, following changes, calling). */
#pragma once

#include "prs-mcp-hub.h"

G_BEGIN_DECLS

struct _PrsMcpServerItem
{
  GObject           parent_instance;

  PrsMcpServerRow  *row;
  PrsMcpClient     *client;         /* while on, once its secrets were read */
  GCancellable     *cancellable;    /* making and connecting the client */
  GList            *waiting;        /* GTask* of calls made before the client was */
  char             *error;          /* why it could not be made (the keyring) */
  gint64            restart_at;     /* monotonic µs, while restarting */
};

/* prs-mcp-server-item.c */
PrsMcpServerItem *_prs_mcp_server_item_new     (PrsMcpServerRow  *row);
/* Says (notify::status) that its state may have changed. */
void              _prs_mcp_server_item_changed (PrsMcpServerItem *self);

G_END_DECLS
