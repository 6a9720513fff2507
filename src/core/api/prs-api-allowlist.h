/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-api-allowlist.h: the source addresses allowed to reach the local API
 * when LAN listening is on (GSettings `allowed-sources`): exact IPv4/IPv6
 * addresses and CIDR networks, checked when a connection is accepted. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

typedef struct _PrsApiAllowlist PrsApiAllowlist;

/* Parses @entries (NULL-terminated; NULL for none). An entry that is not an
 * address or a CIDR network is skipped and named in @out_invalid (a
 * NULL-terminated array to free with g_strfreev), never fatal. */
PrsApiAllowlist *prs_api_allowlist_new      (const char * const  *entries,
                                             char              ***out_invalid);
void             prs_api_allowlist_free     (PrsApiAllowlist     *allowlist);
guint            prs_api_allowlist_get_size (PrsApiAllowlist     *allowlist);
/* TRUE when @address is loopback or on the list. IPv4-mapped IPv6
 * addresses (::ffff:a.b.c.d) are matched as the IPv4 address they carry. */
gboolean         prs_api_allowlist_allows   (PrsApiAllowlist     *allowlist,
                                             GInetAddress        *address);
/* The same for a socket address (FALSE for anything but TCP/IP). */
gboolean         prs_api_allowlist_allows_socket_address (PrsApiAllowlist *allowlist,
                                                          GSocketAddress  *address);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrsApiAllowlist, prs_api_allowlist_free)

G_END_DECLS
