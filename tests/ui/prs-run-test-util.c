/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-run-test-util.c: API posts for the ui tests of agent runs (the
 * scripted provider and webhook are tests/lib's). */
#include "config.h"

#include <string.h>

#include "prs-api-token.h"
#include "prs-json.h"
#include "prs-run-test-util.h"

guint
prs_test_api_post (PrsSecrets  *secrets,
                   const char  *data_dir,
                   guint        port,
                   const char  *path,
                   const char  *body_json,
                   JsonObject **out_answer)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *token = NULL;
  g_autofree char *url = g_strdup_printf ("https://127.0.0.1:%u%s", port, path);
  g_autofree char *bearer = NULL;
  g_autoptr(SoupMessage) msg = soup_message_new ("POST", url);
  g_autoptr(GBytes) body = g_bytes_new (body_json, strlen (body_json));
  g_autoptr(GBytes) reply = NULL;
  guint status;

  g_assert_true (prs_api_token_ensure (secrets, data_dir, &token, &error));
  g_assert_no_error (error);
  bearer = g_strdup_printf ("Bearer %s", token);
  soup_message_headers_append (soup_message_get_request_headers (msg), "Authorization", bearer);
  soup_message_set_request_body_from_bytes (msg, "application/json", body);
  status = prs_test_https_send (msg, 0, &reply, &error);
  g_assert_no_error (error);

  if (out_answer != NULL)
    {
      g_autoptr(JsonNode) node = NULL;
      gsize len = 0;
      const char *data = g_bytes_get_data (reply, &len);

      *out_answer = NULL;
      if (len > 0 && (node = prs_json_parse_bounded (data, len, 64, NULL)) != NULL &&
          JSON_NODE_HOLDS_OBJECT (node))
        *out_answer = json_object_ref (json_node_get_object (node));
    }
  return status;
}
