/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Tests for prs-api-idempotency.c: duplicate keys scoped to route,
 * conversation and agent; a reused idempotencyKey's request compared. */
#include <string.h>

#include "prs-api-idempotency.h"
#include "prs-json.h"

static JsonNode *
parse (const char *text)
{
  g_autoptr(GError) error = NULL;
  JsonNode *node = prs_json_parse_strict (text, strlen (text), 64, &error);

  g_assert_no_error (error);
  return node;
}

static void
test_scoped_keys (void)
{
  g_autoptr(JsonNode) context = parse ("{\"b\":1,\"a\":[0.1,\"x\"]}");
  g_autoptr(JsonNode) reordered = parse ("{\"a\":[0.1,\"x\"],\"b\":1}");
  PrsApiRequestIdentity request = {
    "agent-inference", "c-1", "prosponsive", "<m1@example>", "wf", "7", "Hello", context,
  };
  PrsApiRequestIdentity other;
  g_autofree char *key = prs_api_request_dedup_key (&request);
  g_autofree char *k2 = NULL;
  g_autofree char *k3 = NULL;
  g_autofree char *k4 = NULL;
  g_autofree char *exec_key = NULL;
  g_autofree char *same_exec_key = NULL;
  g_autofree char *new_run_key = NULL;

  g_assert_cmpstr (key, ==, "idem:agent-inference:c-1:prosponsive:<m1@example>");
  g_assert_true (prs_api_dedup_key_is_idempotency (key));

  /* Every part of the scope changes the key */
  other = request;
  other.conversation_id = "c-2";
  k2 = prs_api_request_dedup_key (&other);
  other = request;
  other.agent_id = "mail-agent";
  k3 = prs_api_request_dedup_key (&other);
  other = request;
  other.route = "inference";
  k4 = prs_api_request_dedup_key (&other);
  g_assert_cmpstr (k2, !=, key);
  g_assert_cmpstr (k3, !=, key);
  g_assert_cmpstr (k4, !=, key);

  /* Without a key: the execution ids, prompt and context decide */
  request.idempotency_key = NULL;
  exec_key = prs_api_request_dedup_key (&request);
  g_assert_true (g_str_has_prefix (exec_key, "exec:agent-inference:c-1:prosponsive:"));
  g_assert_false (prs_api_dedup_key_is_idempotency (exec_key));
  request.context = reordered;
  same_exec_key = prs_api_request_dedup_key (&request);
  g_assert_cmpstr (same_exec_key, ==, exec_key);
  request.execution_id = "8";
  new_run_key = prs_api_request_dedup_key (&request);
  g_assert_cmpstr (new_run_key, !=, exec_key);
  request.execution_id = NULL;
  g_assert_null (prs_api_request_dedup_key (&request));
}

static void
test_matches_message (void)
{
  g_autoptr(JsonNode) message = parse ("{\"content\":\"Hello\",\"context\":{\"b\":1,\"a\":[0.1]},"
                                       "\"execution\":{\"workflowId\":\"wf\",\"executionId\":\"1\"}}");
  g_autoptr(JsonNode) same = parse ("{\"a\":[0.1],\"b\":1}");
  g_autoptr(JsonNode) other = parse ("{\"a\":[0.2],\"b\":1}");
  g_autoptr(JsonNode) no_context = parse ("{\"content\":\"Hello\",\"context\":null}");
  PrsApiRequestIdentity request = {
    "agent-inference", "c-1", "prosponsive", "k", "wf", "99", "Hello", same,
  };

  /* Another execution id is a retry */
  g_assert_true (prs_api_request_matches_message (&request, message));
  request.context = other;
  g_assert_false (prs_api_request_matches_message (&request, message));
  request.context = same;
  request.prompt = "Hello!";
  g_assert_false (prs_api_request_matches_message (&request, message));
  request.prompt = "Hello";
  request.context = NULL;
  g_assert_false (prs_api_request_matches_message (&request, message));
  g_assert_true (prs_api_request_matches_message (&request, no_context));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/prs/api-idempotency/scoped-keys", test_scoped_keys);
  g_test_add_func ("/prs/api-idempotency/matches-message", test_matches_message);

  return g_test_run ();
}
