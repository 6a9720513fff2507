/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-api-allowlist: the LAN source-address allowlist:
 * parsing of addresses and CIDR networks, IPv4/IPv6 matching, IPv4-mapped
 * IPv6 addresses, loopback always allowed. */
#include "prs-api-allowlist.h"

static gboolean
allows (PrsApiAllowlist *allowlist,
        const char      *text)
{
  g_autoptr(GInetAddress) address = g_inet_address_new_from_string (text);

  g_assert_nonnull (address);
  return prs_api_allowlist_allows (allowlist, address);
}

static void
test_empty (void)
{
  g_autoptr(PrsApiAllowlist) allowlist = prs_api_allowlist_new (NULL, NULL);

  g_assert_cmpuint (prs_api_allowlist_get_size (allowlist), ==, 0);
  g_assert_true (allows (allowlist, "127.0.0.1"));
  g_assert_true (allows (allowlist, "127.1.2.3"));
  g_assert_true (allows (allowlist, "::1"));
  g_assert_true (allows (allowlist, "::ffff:127.0.0.1"));
  g_assert_false (allows (allowlist, "192.168.1.20"));
  g_assert_false (allows (allowlist, "fd00::2"));
  g_assert_false (allows (allowlist, "0.0.0.0"));
  g_assert_false (allows (allowlist, "::"));
}

static void
test_parse (void)
{
  const char * const entries[] = {
    "192.168.1.20", " 10.0.0.0/8 ", "fd00::/64", "[fe80::1]", "172.16.5.9/12",
    "not an address", "10.0.0.0/33", "fd00::/129", "1.2.3.4/", "/8", "", "[::1",
    "1.2.3.4/-1", "1.2.3.4/ 8", "::ffff:100.64.0.0/106",
    NULL
  };
  g_auto(GStrv) invalid = NULL;
  g_autoptr(PrsApiAllowlist) allowlist = prs_api_allowlist_new (entries, &invalid);

  g_assert_cmpuint (prs_api_allowlist_get_size (allowlist), ==, 6);
  g_assert_cmpuint (g_strv_length (invalid), ==, 9);
  g_assert_cmpstr (invalid[0], ==, "not an address");
  g_assert_cmpstr (invalid[1], ==, "10.0.0.0/33");
  g_assert_cmpstr (invalid[2], ==, "fd00::/129");
}

static void
test_match_ipv4 (void)
{
  const char * const entries[] = { "192.168.1.20", "10.0.0.0/8", "172.16.5.9/12", NULL };
  g_autoptr(PrsApiAllowlist) allowlist = prs_api_allowlist_new (entries, NULL);

  g_assert_true (allows (allowlist, "192.168.1.20"));
  g_assert_false (allows (allowlist, "192.168.1.21"));
  g_assert_false (allows (allowlist, "192.168.1.2"));
  g_assert_true (allows (allowlist, "10.0.0.1"));
  g_assert_true (allows (allowlist, "10.255.255.255"));
  g_assert_false (allows (allowlist, "11.0.0.1"));
  /* host bits set in a network: the containing /12 */
  g_assert_true (allows (allowlist, "172.16.0.1"));
  g_assert_true (allows (allowlist, "172.31.255.254"));
  g_assert_false (allows (allowlist, "172.32.0.1"));
  /* an IPv4 list never matches an IPv6 address, except a mapped one */
  g_assert_false (allows (allowlist, "fd00::2"));
  g_assert_true (allows (allowlist, "::ffff:10.1.2.3"));
  g_assert_true (allows (allowlist, "::ffff:192.168.1.20"));
  g_assert_false (allows (allowlist, "::ffff:192.168.1.21"));
  /* IPv4-compatible (deprecated ::a.b.c.d) is not IPv4-mapped */
  g_assert_false (allows (allowlist, "::10.1.2.3"));
}

static void
test_match_ipv6 (void)
{
  const char * const entries[] = { "fd00::/64", "[fe80::1]", "2001:db8::5/128", NULL };
  g_autoptr(PrsApiAllowlist) allowlist = prs_api_allowlist_new (entries, NULL);

  g_assert_true (allows (allowlist, "fd00::2"));
  g_assert_true (allows (allowlist, "fd00::ffff:ffff:ffff:ffff"));
  g_assert_false (allows (allowlist, "fd00:0:0:1::2"));
  g_assert_true (allows (allowlist, "fe80::1"));
  g_assert_false (allows (allowlist, "fe80::2"));
  g_assert_true (allows (allowlist, "2001:db8::5"));
  g_assert_false (allows (allowlist, "2001:db8::6"));
  g_assert_false (allows (allowlist, "10.0.0.1"));
}

static void
test_mapped_entry (void)
{
  const char * const entries[] = { "::ffff:100.64.0.0/106", NULL };
  g_autoptr(PrsApiAllowlist) allowlist = prs_api_allowlist_new (entries, NULL);

  /* a mapped network written in IPv6 form matches mapped peers */
  g_assert_true (allows (allowlist, "::ffff:100.64.1.1"));
  g_assert_false (allows (allowlist, "::ffff:100.128.0.1"));
}

static void
test_socket_address (void)
{
  const char * const entries[] = { "192.0.2.0/24", NULL };
  g_autoptr(PrsApiAllowlist) allowlist = prs_api_allowlist_new (entries, NULL);
  g_autoptr(GSocketAddress) in = g_inet_socket_address_new_from_string ("192.0.2.7", 4000);
  g_autoptr(GSocketAddress) out = g_inet_socket_address_new_from_string ("198.51.100.7", 4000);
  g_autoptr(GSocketAddress) mapped = g_inet_socket_address_new_from_string ("::ffff:192.0.2.9", 4000);
  g_autoptr(GSocketAddress) lo6 = g_inet_socket_address_new_from_string ("::1", 4000);

  g_assert_true (prs_api_allowlist_allows_socket_address (allowlist, in));
  g_assert_false (prs_api_allowlist_allows_socket_address (allowlist, out));
  g_assert_true (prs_api_allowlist_allows_socket_address (allowlist, mapped));
  g_assert_true (prs_api_allowlist_allows_socket_address (allowlist, lo6));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/prs/api-allowlist/empty", test_empty);
  g_test_add_func ("/prs/api-allowlist/parse", test_parse);
  g_test_add_func ("/prs/api-allowlist/match-ipv4", test_match_ipv4);
  g_test_add_func ("/prs/api-allowlist/match-ipv6", test_match_ipv6);
  g_test_add_func ("/prs/api-allowlist/mapped-entry", test_mapped_entry);
  g_test_add_func ("/prs/api-allowlist/socket-address", test_socket_address);

  return g_test_run ();
}
