/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-runner-inbound.c: an API call's inbound message stored by the
 * runner (prs_runner_add_inbound) on the runs' own connection: with the
 * id the API thread made, its conversation's agent adopted, in one commit
 * that does not wait for the disk, announced once; a key already stored
 * is refused with nothing written or announced; another connection (the
 * API thread's) sees it at once. */
#include "config.h"

#include <string.h>

#include "prs-error.h"
#include "prs-runner.h"
#include "prs-test-util.h"

typedef struct
{
  char         *dir;
  PrsStore     *store;
  PrsSecrets   *secrets;
  PrsProviders *providers;
  PrsRunner    *runner;
  char         *conversation_id;
  GPtrArray    *added;   /* "conversation|message" of each message-added */
} Fixture;

static void
on_message_added (PrsRunner  *runner,
                  const char *conversation_id,
                  const char *message_id,
                  Fixture    *fixture)
{
  g_ptr_array_add (fixture->added, g_strdup_printf ("%s|%s", conversation_id, message_id));
}

static void
fixture_setup (Fixture       *fixture,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsRunEnv) env = NULL;

  fixture->dir = g_dir_make_tmp ("prs-test-inbound-XXXXXX", &error);
  g_assert_no_error (error);
  env = prs_test_run_env_new (fixture->dir, NULL, &fixture->store, &fixture->secrets, &fixture->providers, NULL);
  fixture->runner = prs_runner_new (env);
  fixture->added = g_ptr_array_new_with_free_func (g_free);
  g_signal_connect (fixture->runner, "message-added", G_CALLBACK (on_message_added), fixture);
  g_assert_true (prs_store_resolve_conversation (fixture->store, "inbox", &fixture->conversation_id, NULL,
                                                 &error));
  g_assert_no_error (error);
}

static void
fixture_teardown (Fixture       *fixture,
                  gconstpointer  data)
{
  g_clear_object (&fixture->runner);
  g_clear_object (&fixture->providers);
  g_clear_object (&fixture->secrets);
  g_clear_object (&fixture->store);
  g_clear_pointer (&fixture->added, g_ptr_array_unref);
  prs_test_remove_tree (fixture->dir);
  g_free (fixture->dir);
  g_free (fixture->conversation_id);
}

/* A pending inbound message for the default agent, as the API makes one */
static void
inbound_insert (Fixture          *fixture,
                PrsMessageInsert *insert,
                const char       *content,
                const char       *dedup_key)
{
  memset (insert, 0, sizeof *insert);
  insert->conversation_id = fixture->conversation_id;
  insert->kind = "inbound";
  insert->content = content;
  insert->status = "pending";
  insert->agent_id = PRS_AGENT_DEFAULT_ID;
  insert->dedup_key = dedup_key;
}

static void
test_stored (Fixture       *fixture,
             gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsStore) api_store = prs_store_new (fixture->dir, &error);
  g_autofree char *id = g_uuid_string_random ();
  g_autofree char *heard = NULL;
  g_autofree char *agent = NULL;
  g_autoptr(JsonNode) message = NULL;
  g_autoptr(JsonObject) conversation = NULL;
  PrsMessageInsert insert;
  JsonObject *object;
  guint64 commit = 0;
  gboolean synced = FALSE;

  g_assert_no_error (error);
  inbound_insert (fixture, &insert, "New email from alice", "idem:agent-inference:c:prosponsive:<m1@example>");
  insert.id = id;
  insert.context_json = "{\"uid\":\"12345\"}";
  insert.extra_json = "{\"httpStatus\":202}";

  g_assert_true (prs_runner_add_inbound (fixture->runner, &insert, &commit, &error));
  g_assert_no_error (error);

  /* Its own commit, announced once with the id it was given */
  g_assert_cmpuint (commit, >, 0);
  g_assert_cmpuint (commit, ==, prs_store_get_last_commit (fixture->store));
  heard = g_strdup_printf ("%s|%s", fixture->conversation_id, id);
  g_assert_cmpuint (fixture->added->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (fixture->added, 0), ==, heard);

  /* The other connection sees it at once, with the conversation's agent */
  message = prs_store_get_message (api_store, id, &error);
  g_assert_no_error (error);
  g_assert_nonnull (message);
  object = json_node_get_object (message);
  g_assert_cmpstr (json_object_get_string_member (object, "content"), ==, "New email from alice");
  g_assert_cmpstr (json_object_get_string_member (object, "status"), ==, "pending");
  g_assert_cmpstr (json_object_get_string_member (object, "kind"), ==, "inbound");
  agent = prs_store_find_message_by_dedup_key (api_store, insert.dedup_key);
  g_assert_cmpstr (agent, ==, id);
  conversation = prs_store_get_conversation (api_store, fixture->conversation_id, &error);
  g_assert_no_error (error);
  g_assert_nonnull (conversation);
  g_assert_cmpstr (json_object_get_string_member (conversation, "defaultAgent"), ==, PRS_AGENT_DEFAULT_ID);

  /* Not waited for: the answer's sync is the one that takes it to the disk */
  g_assert_true (prs_store_sync (api_store, commit, &synced, &error));
  g_assert_no_error (error);
  g_assert_true (synced);
}

static void
test_key_refused (Fixture       *fixture,
                  gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonArray) messages = NULL;
  g_autofree char *first_id = g_uuid_string_random ();
  g_autofree char *second_id = g_uuid_string_random ();
  PrsMessageInsert insert;
  guint64 commit = 0;
  guint64 second_commit = 0;

  inbound_insert (fixture, &insert, "Digest", "exec:agent-inference:c:prosponsive:abc");
  insert.id = first_id;
  g_assert_true (prs_runner_add_inbound (fixture->runner, &insert, &commit, &error));
  g_assert_no_error (error);

  /* The same key again (a request that passed the look before the first
   * was stored): refused, nothing written, nothing announced */
  insert.id = second_id;
  g_assert_false (prs_runner_add_inbound (fixture->runner, &insert, &second_commit, &error));
  g_assert_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT);
  g_assert_cmpuint (fixture->added->len, ==, 1);
  messages = prs_store_list_messages (fixture->store, fixture->conversation_id, 0, 100, NULL);
  g_assert_cmpuint (json_array_get_length (messages), ==, 1);
  g_assert_null (prs_store_get_message (fixture->store, second_id, NULL));
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add ("/prs/runner-inbound/stored", Fixture, NULL, fixture_setup, test_stored, fixture_teardown);
  g_test_add ("/prs/runner-inbound/key-refused", Fixture, NULL, fixture_setup, test_key_refused,
              fixture_teardown);
  return g_test_run ();
}
