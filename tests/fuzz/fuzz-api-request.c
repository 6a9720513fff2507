/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz-api-request: what the API does with an untrusted request body
 * before a route acts on it (prs-api-routes.c): the nesting pre-scan, the
 * bounded json-glib parse, the strict RFC 8259 check, and the LAN
 * allowlist parser (GSettings text). The Host/Origin/token guard needs a
 * live SoupServerMessage and is covered by tests/api instead. */
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
    }

  lines = g_strsplit (text, "\n", 16);
  allowlist = prs_api_allowlist_new ((const char * const *) lines, &invalid);
  return 0;
}
