/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-api-allowlist.c: the LAN source-address allowlist of the local API,
 * on GInetAddressMask (an exact address is a mask of its full length). */
#include "config.h"

#include <string.h>

#include "prs-api-allowlist.h"

struct _PrsApiAllowlist
{
  GPtrArray *masks;   /* GInetAddressMask* */
};

/* A network written with host bits set ("192.168.1.20/24") is common in
 * settings; GInetAddressMask refuses it, so it is read as the network that
 * contains the address. */
static GInetAddressMask *
mask_from_host_and_bits (const char *host,
                         const char *bits_text)
{
  g_autoptr(GInetAddress) address = g_inet_address_new_from_string (host);
  g_autoptr(GInetAddress) network = NULL;
  guint64 bits;
  guint8 bytes[16];
  gsize size;

  if (address == NULL || *bits_text == '\0' ||
      !g_ascii_string_to_unsigned (bits_text, 10, 0, 128, &bits, NULL))
    return NULL;

  size = g_inet_address_get_native_size (address);
  if (bits > size * 8)
    return NULL;

  memcpy (bytes, g_inet_address_to_bytes (address), size);
  for (gsize i = 0; i < size; i++)
    {
      guint64 first_bit = i * 8;
      guint keep = bits >= first_bit + 8 ? 8 : (bits > first_bit ? (guint) (bits - first_bit) : 0);

      bytes[i] &= (guint8) (0xff00 >> keep);
    }
  network = g_inet_address_new_from_bytes (bytes, g_inet_address_get_family (address));

  return g_inet_address_mask_new (network, (guint) bits, NULL);
}

static GInetAddressMask *
parse_entry (const char *entry)
{
  g_autofree char *text = g_strstrip (g_strdup (entry));
  g_autoptr(GInetAddress) address = NULL;
  g_autofree char *host = NULL;
  const char *slash;

  if (*text == '\0')
    return NULL;

  /* "[fd00::1]" is forgiven: people copy addresses from URLs */
  if (text[0] == '[')
    {
      char *end = strchr (text, ']');

      if (end == NULL || end[1] != '\0')
        return NULL;
      *end = '\0';
      memmove (text, text + 1, strlen (text + 1) + 1);
    }

  slash = strchr (text, '/');
  if (slash == NULL)
    {
      address = g_inet_address_new_from_string (text);
      if (address == NULL)
        return NULL;
      return g_inet_address_mask_new (address,
                                      (guint) g_inet_address_get_native_size (address) * 8, NULL);
    }

  host = g_strndup (text, slash - text);
  return mask_from_host_and_bits (host, slash + 1);
}

/* ::ffff:a.b.c.d → a.b.c.d; anything else → a new reference to itself */
static GInetAddress *
unmap (GInetAddress *address)
{
  static const guint8 mapped_prefix[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
  const guint8 *bytes;

  if (g_inet_address_get_family (address) != G_SOCKET_FAMILY_IPV6)
    return g_object_ref (address);

  bytes = g_inet_address_to_bytes (address);
  if (memcmp (bytes, mapped_prefix, sizeof mapped_prefix) != 0)
    return g_object_ref (address);

  return g_inet_address_new_from_bytes (bytes + 12, G_SOCKET_FAMILY_IPV4);
}

PrsApiAllowlist *
prs_api_allowlist_new (const char * const   *entries,
                       char               ***out_invalid)
{
  PrsApiAllowlist *allowlist = g_new0 (PrsApiAllowlist, 1);
  g_autoptr(GStrvBuilder) invalid = g_strv_builder_new ();

  allowlist->masks = g_ptr_array_new_with_free_func (g_object_unref);

  for (gsize i = 0; entries != NULL && entries[i] != NULL; i++)
    {
      GInetAddressMask *mask = parse_entry (entries[i]);

      if (mask != NULL)
        g_ptr_array_add (allowlist->masks, mask);
      else
        g_strv_builder_add (invalid, entries[i]);
    }

  if (out_invalid != NULL)
    *out_invalid = g_strv_builder_end (invalid);

  return allowlist;
}

void
prs_api_allowlist_free (PrsApiAllowlist *allowlist)
{
  if (allowlist == NULL)
    return;

  g_ptr_array_unref (allowlist->masks);
  g_free (allowlist);
}

guint
prs_api_allowlist_get_size (PrsApiAllowlist *allowlist)
{
  g_return_val_if_fail (allowlist != NULL, 0);

  return allowlist->masks->len;
}

static gboolean
masks_match (PrsApiAllowlist *allowlist,
             GInetAddress    *address)
{
  for (guint i = 0; i < allowlist->masks->len; i++)
    {
      GInetAddressMask *mask = g_ptr_array_index (allowlist->masks, i);

      /* g_inet_address_mask_matches () is FALSE across families */
      if (g_inet_address_mask_matches (mask, address))
        return TRUE;
    }

  return FALSE;
}

gboolean
prs_api_allowlist_allows (PrsApiAllowlist *allowlist,
                          GInetAddress    *address)
{
  g_autoptr(GInetAddress) plain = NULL;

  g_return_val_if_fail (allowlist != NULL, FALSE);
  g_return_val_if_fail (G_IS_INET_ADDRESS (address), FALSE);

  plain = unmap (address);
  if (g_inet_address_get_is_loopback (plain))
    return TRUE;

  /* Both forms: an entry may be written either way */
  return masks_match (allowlist, plain) ||
         (plain != address && masks_match (allowlist, address));
}

gboolean
prs_api_allowlist_allows_socket_address (PrsApiAllowlist *allowlist,
                                         GSocketAddress  *address)
{
  g_return_val_if_fail (allowlist != NULL, FALSE);

  if (!G_IS_INET_SOCKET_ADDRESS (address))
    return FALSE;

  return prs_api_allowlist_allows (allowlist,
                                   g_inet_socket_address_get_address (G_INET_SOCKET_ADDRESS (address)));
}
