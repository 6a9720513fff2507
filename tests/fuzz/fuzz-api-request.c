/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz-api-request: what the API does with an untrusted request body
 * before a route acts on it (prs-api-routes.c): the nesting pre-scan, the
 * bounded json-glib parse, the strict parse every body goes through, the
 * writer every answer goes through, and the LAN allowlist parser
 * (GSettings text). Oracles: whatever is written is strict JSON, and what
 * the strict parse accepted is written back the same way every time. The
 * Host/Origin/token guard needs a live SoupServerMessage and is covered by
 * tests/api instead. */
#include <string.h>


#include "prs-api-allowlist.h"
#include "prs-json.h"

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

int
LLVMFuzzerTestOneInput (const guint8 *data,
                        size_t        size)
{
  g_autofree char *text = g_strndup ((const char *) data, size);
  g_autoptr(JsonNode) node = NULL;
  g_auto(GStrv) lines = NULL;
  g_auto(GStrv) invalid = NULL;
  g_autoptr(PrsApiAllowlist) allowlist = NULL;

  (void) prs_json_nesting_depth ((const char *) data, size, 32);
  (void) prs_json_text_is_strict ((const char *) data, size);
  node = prs_json_parse_bounded ((const char *) data, size, 32, NULL);
  if (node != NULL)
    {
      g_autofree char *again = prs_json_to_string (node, FALSE);

      g_assert_true (prs_json_text_is_strict (again, strlen (again)));
    }
  g_clear_pointer (&node, json_node_unref);

  node = prs_json_parse_strict ((const char *) data, size, 32, NULL);
  if (node != NULL)
    {
      g_autofree char *written = prs_json_to_string (node, FALSE);
      g_autoptr(JsonNode) back = prs_json_parse_strict (written, strlen (written), 32, NULL);
      g_autofree char *rewritten = NULL;

      g_assert_nonnull (back);
      rewritten = prs_json_to_string (back, FALSE);
      g_assert_cmpstr (rewritten, ==, written);
    }

  lines = g_strsplit (text, "\n", 16);
  allowlist = prs_api_allowlist_new ((const char * const *) lines, &invalid);
  return 0;
}
