/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Tests for the store's conversations and messages (prs-store-messages.c):
 * resolving a conversation by slug (also from several threads at once),
 * messages inserted, read, updated, deduplicated by key, found unfinished
 * after a crash, and read in pages. Each test gets its own temporary
 * folder. */
#include "config.h"

#include "prs-error.h"
#include "prs-store.h"
#include "prs-test-util.h"

typedef PrsTestStoreDir Fixture;

/* ---- Conversations -------------------------------------------------------- */

static void
test_resolve_conversation (Fixture       *fixture,
                           gconstpointer  user_data)
{
  g_autoptr(PrsStore) store = prs_test_store_dir_open (fixture);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonArray) list = NULL;
  g_autofree char *id = NULL;
  g_autofree char *again = NULL;
  g_autofree char *other = NULL;
  gboolean created = FALSE;
  JsonObject *conversation;

  g_assert_true (prs_store_resolve_conversation (store, "Support Inbox", &id, &created, &error));
  g_assert_no_error (error);
  g_assert_true (created);
  g_assert_true (g_uuid_string_is_valid (id));

  g_assert_true (prs_store_resolve_conversation (store, "Support Inbox", &again, &created, &error));
  g_assert_no_error (error);
  g_assert_false (created);
  g_assert_cmpstr (again, ==, id);

  /* Matched exactly. */
  g_assert_true (prs_store_resolve_conversation (store, "support inbox", &other, &created, &error));
  g_assert_no_error (error);
  g_assert_true (created);
  g_assert_cmpstr (other, !=, id);

  g_assert_false (prs_store_resolve_conversation (store, "", NULL, NULL, &error));
  g_assert_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT);
  g_clear_error (&error);

  g_assert_true (prs_store_has_conversation (store, id));
  g_assert_false (prs_store_has_conversation (store, "no-such-id"));
  g_assert_false (prs_store_has_conversation (store, NULL));

  g_assert_true (prs_store_rename_conversation (store, id, "Customer support", &error));
  g_assert_no_error (error);
  g_assert_false (prs_store_rename_conversation (store, "no-such-id", "x", &error));
  g_assert_error (error, PRS_ERROR, PRS_ERROR_NOT_FOUND);
  g_clear_error (&error);
  g_assert_true (prs_store_set_conversation_default_agent (store, id, "agent-1", &error));
  g_assert_no_error (error);

  /* Renaming keeps the slug: resolving still finds it. */
  g_clear_pointer (&again, g_free);
  g_assert_true (prs_store_resolve_conversation (store, "Support Inbox", &again, &created, &error));
  g_assert_false (created);
  g_assert_cmpstr (again, ==, id);

  list = prs_store_list_conversations (store, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (json_array_get_length (list), ==, 2);
  for (guint i = 0; i < 2; i++)
    {
      conversation = json_array_get_object_element (list, i);
      if (g_strcmp0 (json_object_get_string_member (conversation, "id"), id) != 0)
        continue;

      g_assert_cmpstr (json_object_get_string_member (conversation, "slug"), ==, "Support Inbox");
      g_assert_cmpstr (json_object_get_string_member (conversation, "title"), ==, "Customer support");
      g_assert_cmpstr (json_object_get_string_member (conversation, "defaultAgent"), ==, "agent-1");
      g_assert_cmpint (json_object_get_int_member (conversation, "messageCount"), ==, 0);
      g_assert_cmpint (json_object_get_int_member (conversation, "unreadCount"), ==, 0);
      g_assert_true (g_str_has_suffix (json_object_get_string_member (conversation, "createdAt"), "Z"));
      {
        g_autoptr(GDateTime) when = g_date_time_new_from_iso8601 (
          json_object_get_string_member (conversation, "updatedAt"), NULL);

        g_assert_nonnull (when);
      }
    }
}

typedef struct
{
  const char *db_path;
  GMutex      mutex;
  GCond       cond;
  guint       ready;
  gboolean    go;
} ResolveRace;

typedef struct
{
  char     *id;
  gboolean  created;
} ResolveResult;

#define N_RESOLVE_THREADS 8

static gpointer
resolve_thread (gpointer data)
{
  ResolveRace *race = data;
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsStore) store = prs_store_new_for_path (race->db_path, &error);
  ResolveResult *result = g_new0 (ResolveResult, 1);

  g_assert_no_error (error);

  /* Start all together, each with its own connection already open. */
  g_mutex_lock (&race->mutex);
  race->ready++;
  g_cond_broadcast (&race->cond);
  while (!race->go)
    g_cond_wait (&race->cond, &race->mutex);
  g_mutex_unlock (&race->mutex);

  g_assert_true (prs_store_resolve_conversation (store, "shared", &result->id,
                                                 &result->created, &error));
  g_assert_no_error (error);

  return result;
}

static void
test_resolve_concurrent (Fixture       *fixture,
                         gconstpointer  user_data)
{
  ResolveRace race = { fixture->db_path, };
  GThread *threads[N_RESOLVE_THREADS];
  g_autoptr(PrsStore) store = NULL;
  g_autoptr(JsonArray) list = NULL;
  g_autofree char *first_id = NULL;
  guint n_created = 0;

  g_mutex_init (&race.mutex);
  g_cond_init (&race.cond);

  for (guint i = 0; i < N_RESOLVE_THREADS; i++)
    threads[i] = g_thread_new ("resolve", resolve_thread, &race);

  g_mutex_lock (&race.mutex);
  while (race.ready < N_RESOLVE_THREADS)
    g_cond_wait (&race.cond, &race.mutex);
  race.go = TRUE;
  g_cond_broadcast (&race.cond);
  g_mutex_unlock (&race.mutex);

  for (guint i = 0; i < N_RESOLVE_THREADS; i++)
    {
      ResolveResult *result = g_thread_join (threads[i]);

      if (result->created)
        n_created++;
      if (first_id == NULL)
        first_id = g_strdup (result->id);
      g_assert_cmpstr (result->id, ==, first_id);

      g_free (result->id);
      g_free (result);
    }

  g_assert_cmpuint (n_created, ==, 1);

  /* The threads also raced to create and migrate the file. */
  store = prs_test_store_dir_open (fixture);
  g_assert_cmpint (prs_store_get_schema_version (store), ==, prs_store_get_latest_version ());
  list = prs_store_list_conversations (store, NULL);
  g_assert_cmpuint (json_array_get_length (list), ==, 1);

  g_mutex_clear (&race.mutex);
  g_cond_clear (&race.cond);
}

/* ---- Messages ------------------------------------------------------------- */

static JsonObject *
find_conversation (JsonArray  *list,
                   const char *id)
{
  for (guint i = 0; i < json_array_get_length (list); i++)
    {
      JsonObject *object = json_array_get_object_element (list, i);

      if (g_strcmp0 (json_object_get_string_member (object, "id"), id) == 0)
        return object;
    }

  g_assert_not_reached ();
  return NULL;
}

/* The inbound message test_messages () stored, read back field by field */
static void
assert_inbound_read_back (PrsStore   *store,
                          const char *inbound_id,
                          const char *conversation_id)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) expected_context = json_from_string ("{\"openLink\":{\"url\":\"https://x\",\"label\":\"X\"},\"n\":[1,2]}", NULL);
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(GDateTime) created_at = NULL;
  JsonObject *object;

  node = prs_store_get_message (store, inbound_id, &error);
  g_assert_no_error (error);
  object = json_node_get_object (node);
  g_assert_cmpstr (json_object_get_string_member (object, "id"), ==, inbound_id);
  g_assert_cmpstr (json_object_get_string_member (object, "conversationId"), ==, conversation_id);
  g_assert_cmpint (json_object_get_int_member (object, "seq"), ==, 2);
  g_assert_cmpstr (json_object_get_string_member (object, "kind"), ==, "inbound");
  g_assert_cmpstr (json_object_get_string_member (object, "content"), ==, "Summarise this mail");
  g_assert_cmpstr (json_object_get_string_member (object, "status"), ==, "pending");
  g_assert_cmpstr (json_object_get_string_member (object, "agentId"), ==, "agent-1");
  g_assert_true (json_node_equal (json_object_get_member (object, "context"), expected_context));
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (object, "execution"),
                                                  "executionId"), ==, "42");
  g_assert_true (json_object_get_null_member (object, "extra"));
  created_at = g_date_time_new_from_iso8601 (json_object_get_string_member (object, "createdAt"), NULL);
  g_assert_nonnull (created_at);
}

static void
test_messages (Fixture       *fixture,
               gconstpointer  user_data)
{
  g_autoptr(PrsStore) store = prs_test_store_dir_open (fixture);
  g_autofree char *conversation_id = prs_test_resolve_conversation (store, "inbox");
  g_autofree char *other_id = prs_test_resolve_conversation (store, "other");
  g_autofree char *user_id = NULL;
  g_autofree char *inbound_id = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(JsonArray) list = NULL;
  g_autoptr(JsonArray) conversations = NULL;
  JsonObject *object;
  gint64 seq = 0;
  PrsMessageInsert user = {
    .conversation_id = conversation_id,
    .kind = "user",
    .content = "Hello",
  };
  PrsMessageInsert inbound = {
    .conversation_id = conversation_id,
    .kind = "inbound",
    .content = "Summarise this mail",
    .status = "pending",
    .agent_id = "agent-1",
    .context_json = "{\"openLink\":{\"url\":\"https://x\",\"label\":\"X\"},\"n\":[1,2]}",
    .execution_json = "{\"workflowId\":\"wf1\",\"executionId\":\"42\"}",
    .dedup_key = "exec:wf1:42:abc",
  };
  PrsMessageInsert other = { .conversation_id = other_id, .kind = "notice", .content = "x" };

  g_assert_true (prs_store_insert_message (store, &user, &user_id, &seq, &error));
  g_assert_no_error (error);
  g_assert_cmpint (seq, ==, 1);
  g_assert_true (g_uuid_string_is_valid (user_id));

  /* Sequence numbers are per conversation. */
  g_assert_true (prs_store_insert_message (store, &other, NULL, &seq, &error));
  g_assert_no_error (error);
  g_assert_cmpint (seq, ==, 1);

  /* Times have millisecond resolution: make "most recent" unambiguous. */
  g_usleep (3 * 1000);
  g_assert_true (prs_store_insert_message (store, &inbound, &inbound_id, &seq, &error));
  g_assert_no_error (error);
  g_assert_cmpint (seq, ==, 2);

  assert_inbound_read_back (store, inbound_id, conversation_id);

  /* A message without optional fields reads back with nulls. */
  node = prs_store_get_message (store, user_id, &error);
  g_assert_no_error (error);
  object = json_node_get_object (node);
  g_assert_true (json_object_get_null_member (object, "status"));
  g_assert_true (json_object_get_null_member (object, "context"));
  g_assert_true (json_object_get_null_member (object, "agentId"));
  g_clear_pointer (&node, json_node_unref);

  /* Update keeps what is passed as NULL. */
  g_assert_true (prs_store_update_message (store, inbound_id, "completed", NULL,
                                           "{\"usage\":{\"inputTokens\":3}}", &error));
  g_assert_no_error (error);
  node = prs_store_get_message (store, inbound_id, &error);
  object = json_node_get_object (node);
  g_assert_cmpstr (json_object_get_string_member (object, "status"), ==, "completed");
  g_assert_cmpstr (json_object_get_string_member (object, "content"), ==, "Summarise this mail");
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (
    json_object_get_object_member (object, "extra"), "usage"), "inputTokens"), ==, 3);
  g_clear_pointer (&node, json_node_unref);

  g_assert_false (prs_store_update_message (store, inbound_id, NULL, NULL, "{not json", &error));
  g_assert_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT);
  g_clear_error (&error);

  /* Counts and order. */
  conversations = prs_store_list_conversations (store, &error);
  g_assert_no_error (error);
  object = find_conversation (conversations, conversation_id);
  g_assert_cmpint (json_object_get_int_member (object, "messageCount"), ==, 2);
  g_assert_cmpint (json_object_get_int_member (object, "unreadCount"), ==, 2);
  /* The most recently written conversation comes first. */
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (conversations, 0), "id"),
                   ==, conversation_id);
  g_clear_pointer (&conversations, json_array_unref);

  g_assert_true (prs_store_mark_conversation_read (store, conversation_id, &error));
  g_assert_no_error (error);
  conversations = prs_store_list_conversations (store, &error);
  object = find_conversation (conversations, conversation_id);
  g_assert_cmpint (json_object_get_int_member (object, "unreadCount"), ==, 0);
  g_assert_cmpint (json_object_get_int_member (object, "messageCount"), ==, 2);

  list = prs_store_list_messages (store, conversation_id, 0, 100, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (json_array_get_length (list), ==, 2);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (list, 0), "id"), ==, user_id);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (list, 1), "id"), ==, inbound_id);
}

/* Messages that cannot be stored are refused in words, and nothing is
 * stored; a message that is not there is neither updated nor found */
static void
test_messages_refused (Fixture       *fixture,
                       gconstpointer  user_data)
{
  g_autoptr(PrsStore) store = prs_test_store_dir_open (fixture);
  g_autofree char *conversation_id = prs_test_resolve_conversation (store, "inbox");
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonArray) list = NULL;
  PrsMessageInsert bad;

  bad = (PrsMessageInsert) { .conversation_id = "no-such-conversation", .kind = "user" };
  g_assert_false (prs_store_insert_message (store, &bad, NULL, NULL, &error));
  g_assert_error (error, PRS_ERROR, PRS_ERROR_NOT_FOUND);
  g_clear_error (&error);

  bad = (PrsMessageInsert) { .conversation_id = conversation_id, .kind = "inbound",
                             .context_json = "{\"a\":" };
  g_assert_false (prs_store_insert_message (store, &bad, NULL, NULL, &error));
  g_assert_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT);
  g_clear_error (&error);

  bad = (PrsMessageInsert) { .conversation_id = conversation_id, .kind = NULL };
  g_assert_false (prs_store_insert_message (store, &bad, NULL, NULL, &error));
  g_assert_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT);
  g_clear_error (&error);

  g_assert_false (prs_store_update_message (store, "no-such-message", "failed", NULL, NULL, &error));
  g_assert_error (error, PRS_ERROR, PRS_ERROR_NOT_FOUND);
  g_clear_error (&error);

  g_assert_null (prs_store_get_message (store, "no-such-message", &error));
  g_assert_no_error (error);
  g_assert_null (prs_store_get_message (store, NULL, &error));

  list = prs_store_list_messages (store, conversation_id, 0, 100, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (json_array_get_length (list), ==, 0);
}

/* After a crash: inbound requests stored but never begun are marked
 * interrupted; those with a run, and other kinds, are left alone. */
static void
test_messages_orphans (Fixture       *fixture,
                       gconstpointer  user_data)
{
  g_autoptr(PrsStore) store = prs_test_store_dir_open (fixture);
  g_autofree char *conversation_id = prs_test_resolve_conversation (store, "inbox");
  g_autofree char *orphan_id = NULL;
  g_autofree char *started_id = NULL;
  g_autofree char *user_id = NULL;
  g_autoptr(JsonNode) orphan = NULL;
  g_autoptr(JsonNode) started = NULL;
  g_autoptr(JsonNode) user = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *extra;
  PrsRunRow run = { 0 };
  PrsMessageInsert message = {
    .conversation_id = conversation_id,
    .kind = "inbound",
    .content = "Hi",
    .status = "pending",
    .extra_json = "{\"route\":\"inference\",\"httpStatus\":202}",
  };

  g_assert_true (prs_store_insert_message (store, &message, &orphan_id, NULL, &error));
  g_assert_true (prs_store_insert_message (store, &message, &started_id, NULL, &error));
  message.kind = "user";
  g_assert_true (prs_store_insert_message (store, &message, &user_id, NULL, &error));
  g_assert_no_error (error);

  run.id = (char *) "run-1";
  run.conversation_id = conversation_id;
  run.agent_id = (char *) "prosponsive";
  run.origin = (char *) "inference";
  run.status = (char *) "running";
  run.trigger_message_id = started_id;
  run.transcript_json = (char *) "[]";
  g_assert_true (prs_store_save_run (store, &run, &error));

  g_assert_cmpint (prs_store_interrupt_orphan_inbound (store, "{\"code\":\"interrupted\"}", "Stopped", &error), ==, 1);
  g_assert_no_error (error);
  /* A second start finds nothing more to mark */
  g_assert_cmpint (prs_store_interrupt_orphan_inbound (store, "{}", "Stopped", &error), ==, 0);

  orphan = prs_store_get_message (store, orphan_id, &error);
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (orphan), "status"), ==, "failed");
  extra = json_object_get_object_member (json_node_get_object (orphan), "extra");
  g_assert_cmpstr (json_object_get_string_member (extra, "reason"), ==, PRS_INBOUND_REASON_INTERRUPTED);
  g_assert_cmpstr (json_object_get_string_member (extra, "route"), ==, "inference");
  g_assert_cmpstr (json_object_get_string_member (extra, "error"), ==, "Stopped");
  g_assert_cmpint (json_object_get_int_member (extra, "httpStatus"), ==, 503);
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (extra, "answer"), "code"),
                   ==, "interrupted");

  started = prs_store_get_message (store, started_id, &error);
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (started), "status"), ==, "pending");
  user = prs_store_get_message (store, user_id, &error);
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (user), "status"), ==, "pending");
}

static void
test_messages_dedup (Fixture       *fixture,
                     gconstpointer  user_data)
{
  g_autoptr(PrsStore) store = prs_test_store_dir_open (fixture);
  g_autofree char *conversation_id = prs_test_resolve_conversation (store, "inbox");
  g_autofree char *other_id = prs_test_resolve_conversation (store, "other");
  g_autofree char *first_id = NULL;
  g_autofree char *found = NULL;
  g_autofree char *second_id = NULL;
  g_autoptr(JsonArray) conversations = NULL;
  g_autoptr(JsonArray) list = NULL;
  g_autoptr(GError) error = NULL;
  gint64 seq = 0;
  PrsMessageInsert message = {
    .conversation_id = conversation_id,
    .kind = "inbound",
    .content = "Hi",
    .dedup_key = "idem:<msg-1@example.com>",
  };

  g_assert_null (prs_store_find_message_by_dedup_key (store, "idem:<msg-1@example.com>"));
  g_assert_null (prs_store_find_message_by_dedup_key (store, NULL));

  g_assert_true (prs_store_insert_message (store, &message, &first_id, &seq, &error));
  g_assert_no_error (error);

  found = prs_store_find_message_by_dedup_key (store, "idem:<msg-1@example.com>");
  g_assert_cmpstr (found, ==, first_id);

  /* The same key, even in another conversation, is refused and changes nothing. */
  g_assert_false (prs_store_insert_message (store, &message, &second_id, &seq, &error));
  g_assert_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT);
  g_clear_error (&error);
  g_assert_null (second_id);
  message.conversation_id = other_id;
  g_assert_false (prs_store_insert_message (store, &message, &second_id, &seq, &error));
  g_assert_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT);
  g_clear_error (&error);

  conversations = prs_store_list_conversations (store, &error);
  g_assert_cmpint (json_object_get_int_member (find_conversation (conversations, conversation_id),
                                               "messageCount"), ==, 1);
  g_assert_cmpint (json_object_get_int_member (find_conversation (conversations, other_id),
                                               "messageCount"), ==, 0);
  list = prs_store_list_messages (store, other_id, 0, 10, &error);
  g_assert_cmpuint (json_array_get_length (list), ==, 0);

  /* Messages without a key never collide. */
  message.dedup_key = NULL;
  g_assert_true (prs_store_insert_message (store, &message, NULL, &seq, &error));
  g_assert_true (prs_store_insert_message (store, &message, NULL, &seq, &error));
  g_assert_no_error (error);
  g_assert_cmpint (seq, ==, 2);
}

static void
test_messages_paging (Fixture       *fixture,
                      gconstpointer  user_data)
{
  const guint n_messages = 1000;
  const guint page_size = 64;
  g_autoptr(PrsStore) store = prs_test_store_dir_open (fixture);
  g_autofree char *conversation_id = prs_test_resolve_conversation (store, "long");
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonArray) conversations = NULL;
  gint64 after = 0;
  guint seen = 0;
  guint pages = 0;

  for (guint i = 0; i < n_messages; i++)
    {
      g_autofree char *content = g_strdup_printf ("message %u", i + 1);
      PrsMessageInsert message = {
        .conversation_id = conversation_id,
        .kind = i % 2 == 0 ? "user" : "assistant",
        .content = content,
      };
      gint64 seq;

      g_assert_true (prs_store_insert_message (store, &message, NULL, &seq, &error));
      g_assert_no_error (error);
      g_assert_cmpint (seq, ==, i + 1);
    }

  for (;;)
    {
      g_autoptr(JsonArray) page = prs_store_list_messages (store, conversation_id, after,
                                                           page_size, &error);
      guint len;

      g_assert_no_error (error);
      len = json_array_get_length (page);
      if (len == 0)
        break;
      g_assert_cmpuint (len, <=, page_size);
      pages++;

      for (guint i = 0; i < len; i++)
        {
          JsonObject *message = json_array_get_object_element (page, i);
          g_autofree char *expected = g_strdup_printf ("message %u", seen + 1);

          g_assert_cmpint (json_object_get_int_member (message, "seq"), ==, after + 1);
          g_assert_cmpstr (json_object_get_string_member (message, "content"), ==, expected);
          after = json_object_get_int_member (message, "seq");
          seen++;
        }
    }

  g_assert_cmpuint (seen, ==, n_messages);
  g_assert_cmpuint (pages, ==, (n_messages + page_size - 1) / page_size);

  {
    g_autoptr(JsonArray) tail = prs_store_list_messages (store, conversation_id, 990, 50, &error);

    g_assert_cmpuint (json_array_get_length (tail), ==, 10);
  }

  conversations = prs_store_list_conversations (store, &error);
  g_assert_cmpint (json_object_get_int_member (json_array_get_object_element (conversations, 0),
                                               "messageCount"), ==, n_messages);
}


int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add ("/prs/store/" path, Fixture, NULL, prs_test_store_dir_setup, func, prs_test_store_dir_teardown)

  ADD ("conversations/resolve", test_resolve_conversation);
  ADD ("conversations/resolve-concurrent", test_resolve_concurrent);
  ADD ("messages/insert-get-update", test_messages);
  ADD ("messages/refused", test_messages_refused);
  ADD ("messages/dedup-key", test_messages_dedup);
  ADD ("messages/orphans-after-crash", test_messages_orphans);
  ADD ("messages/paging", test_messages_paging);

#undef ADD

  return g_test_run ();
}
