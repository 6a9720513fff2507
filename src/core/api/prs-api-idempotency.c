/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-api-idempotency.c: duplicate keys of inference requests, scoped to
 * route, conversation and agent, and the check that a reused
 * idempotencyKey still names the same request. */
#include "config.h"

#include <string.h>

#include "prs-api-idempotency.h"
#include "prs-json.h"

static void
checksum_add_part (GChecksum  *checksum,
                   const char *part)
{
  char len_buf[24];
  gsize len = strlen (part);

  /* Each part with its length: no two different tuples hash alike */
  g_snprintf (len_buf, sizeof len_buf, "%" G_GSIZE_FORMAT ":", len);
  g_checksum_update (checksum, (const guchar *) len_buf, -1);
  g_checksum_update (checksum, (const guchar *) part, (gssize) len);
}

char *
prs_api_request_dedup_key (const PrsApiRequestIdentity *request)
{
  g_autoptr(GChecksum) checksum = NULL;
  g_autofree char *canonical = NULL;

  g_return_val_if_fail (request != NULL, NULL);
  g_return_val_if_fail (request->route != NULL && request->conversation_id != NULL &&
                        request->agent_id != NULL && request->prompt != NULL, NULL);

  if (request->idempotency_key != NULL)
    return g_strdup_printf ("idem:%s:%s:%s:%s", request->route, request->conversation_id,
                            request->agent_id, request->idempotency_key);

  /* Without execution ids there is no way to tell a retry from a new call */
  if (request->workflow_id == NULL || request->execution_id == NULL)
    return NULL;

  canonical = prs_json_to_canonical_string (request->context);
  checksum = g_checksum_new (G_CHECKSUM_SHA256);
  checksum_add_part (checksum, request->workflow_id);
  checksum_add_part (checksum, request->execution_id);
  checksum_add_part (checksum, request->prompt);
  checksum_add_part (checksum, canonical);

  return g_strdup_printf ("exec:%s:%s:%s:%s", request->route, request->conversation_id,
                          request->agent_id, g_checksum_get_string (checksum));
}

gboolean
prs_api_dedup_key_is_idempotency (const char *dedup_key)
{
  return dedup_key != NULL && g_str_has_prefix (dedup_key, "idem:");
}

gboolean
prs_api_request_matches_message (const PrsApiRequestIdentity *request,
                                 JsonNode                    *message)
{
  JsonObject *object;
  g_autofree char *stored = NULL;
  g_autofree char *presented = NULL;

  g_return_val_if_fail (request != NULL, FALSE);

  if (message == NULL || !JSON_NODE_HOLDS_OBJECT (message))
    return FALSE;
  object = json_node_get_object (message);

  if (g_strcmp0 (json_object_get_string_member_with_default (object, "content", NULL),
                 request->prompt) != 0)
    return FALSE;

  stored = prs_json_to_canonical_string (json_object_get_member (object, "context"));
  presented = prs_json_to_canonical_string (request->context);
  return strcmp (stored, presented) == 0;
}
