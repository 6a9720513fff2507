/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-app-announce.c: the real PrsApplication (its sources are compiled
 * in) under Xvfb, its window with the focus, the scripted provider and
 * webhook of tests/lib. A workflow's inference call makes the agent
 * propose a tool call in "inbox" (docs/runs.md "Notifications"): with inbox
 * on the screen, its card is all; with another conversation shown, a
 * toast names inbox and the tool, goes soon after the call is decided
 * elsewhere, and its Open button shows inbox; a second call waiting
 * meanwhile (in "other") changes the one toast. Waits are main-loop
 * conditions, never sleeps. */
#include "config.h"

#include <string.h>

#include "prs-agent-seed.h"
#include "prs-application.h"
#include "prs-run-test-util.h"
#include "prs-ui-test-util.h"
#include "prs-window.h"

#define KEY "sk-test-Zq7xW"
/* The scripted provider's turns */
#define CALL "{'response':{'tool_calls':[{'id':'call_1','name':'get_weather','arguments':{'city':'Paris'}}]}}"
#define TEXT "{'response':{'text':'No weather then.'}}"
#define TOAST_TEXT "The agent in “inbox” wants to run “get_weather”."

typedef struct
{
  PrsApplication  *app;
  PrsWindow       *window;
  char            *dir;
  guint            port;
  PrsTestHook     *hook;
  PrsTestProvider *provider;
  char            *inbox_id;
  char            *notes_id;
  char            *other_id;
  const char      *where;     /* the conversation of the calls below */
  char            *call_message_id;
  char            *call_status;
  guint            answers;
  guint            expected;  /* answers once the denied call's run answered */
  gboolean         dismissed;
} Run;

/* The data folder: the tool, an agent allowed it, three conversations,
 * n8n at the scripted webhook, the scripted provider proposing a call,
 * then answering, three times; then two calls, then two answers; then a
 * call and its answer once more */
static void
prepare (Run *run)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsStore) store = NULL;
  g_autoptr(PrsSecrets) secrets = NULL;
  g_autoptr(PrsProviders) providers = NULL;
  g_autofree char *hook_url = NULL;
  g_autofree char *provider_url = NULL;
  const char *script = "{'kind':'openai','turns':[" CALL "," TEXT "," CALL "," TEXT "," CALL "," TEXT ","
                       CALL "," CALL "," TEXT "," TEXT "," CALL "," TEXT "]}";

  run->dir = g_dir_make_tmp ("prs-app-announce-XXXXXX", &error);
  g_assert_no_error (error);
  run->hook = prs_test_hook_start (TRUE);
  run->provider = prs_test_provider_start (script);
  store = prs_store_new (run->dir, &error);
  g_assert_no_error (error);
  prs_agent_seed_weather_agent (store);
  g_assert_true (prs_store_resolve_conversation (store, "inbox", &run->inbox_id, NULL, &error));
  g_assert_true (prs_store_resolve_conversation (store, "notes", &run->notes_id, NULL, &error));
  g_assert_true (prs_store_resolve_conversation (store, "other", &run->other_id, NULL, &error));
  hook_url = prs_test_hook_url (run->hook);
  g_assert_true (prs_store_set_setting (store, PRS_SETTING_N8N_URL, hook_url, &error));
  g_assert_no_error (error);
  secrets = prs_secrets_new (run->dir);
  providers = prs_providers_new (store, secrets);
  provider_url = prs_test_provider_base_url (run->provider, "openai");
  g_assert_true (prs_providers_add (providers, "openai", "Scripted", provider_url, "model-a", 0, KEY, NULL, &error));
  g_assert_no_error (error);
}

/* The latest tool-call message of @run->where, and how many answers it has */
static void
read_calls (Run *run)
{
  g_autoptr(PrsStore) store = prs_store_new (run->dir, NULL);
  g_autoptr(JsonArray) messages = store != NULL ? prs_store_list_messages (store, run->where, 0, 100, NULL) : NULL;

  run->answers = 0;
  for (guint i = 0; messages != NULL && i < json_array_get_length (messages); i++)
    {
      JsonObject *message = json_array_get_object_element (messages, i);
      const char *kind = json_object_get_string_member_with_default (message, "kind", "");
      const char *status = json_object_get_string_member_with_default (message, "status", "");

      if (g_str_equal (kind, "tool-call"))
        {
          g_free (run->call_message_id);
          run->call_message_id = g_strdup (json_object_get_string_member (message, "id"));
          g_free (run->call_status);
          run->call_status = g_strdup (status);
        }
      else if (g_str_equal (kind, "assistant") && g_str_equal (status, "completed"))
        run->answers++;
    }
}

static gboolean
is_active (gpointer window)
{
  return gtk_window_is_active (window);
}

/* A workflow asks in @run->where; the agent proposes the call and the run rests */
static void
propose_call (Run *run)
{
  g_autoptr(PrsSecrets) secrets = prs_secrets_new (run->dir);
  g_autofree char *body = g_strdup_printf ("{\"prompt\":\"Weather in Paris?\",\"conversationId\":\"%s\","
                                           "\"agentId\":\"weather-agent\"}", run->where);

  g_assert_cmpuint (prs_test_api_post (secrets, run->dir, run->port, "/api/ai/agent-inference", body, NULL), ==, 200);
  read_calls (run);
  g_assert_cmpstr (run->call_status, ==, "proposed");
}

static gboolean
answered (gpointer data)
{
  Run *run = data;

  read_calls (run);
  return run->answers >= run->expected;
}

/* Denied elsewhere (what a notification's Deny does), and the run answers */
static void
deny_call (Run *run)
{
  read_calls (run);
  run->expected = run->answers + 1;
  g_action_group_activate_action (G_ACTION_GROUP (run->app), "deny-tool-call",
                                  g_variant_new_string (run->call_message_id));
}

static void
wait_answered (Run *run)
{
  g_assert_true (prs_test_wait_until (answered, run));
}

/* The toast saying the call waits, or NULL */
static GtkWidget *
find_toast (Run *run)
{
  GtkWidget *label = prs_test_find_widget (GTK_WIDGET (run->window), GTK_TYPE_LABEL,
                                           prs_test_label_markup_contains, (gpointer) "wants to run");

  return label != NULL ? gtk_widget_get_ancestor (label, g_type_from_name ("AdwToastWidget")) : NULL;
}

static void
on_dismissed (AdwToast *toast,
              Run      *run)
{
  run->dismissed = TRUE;
}

static gboolean
is_open_button (GtkWidget *widget,
                gpointer   data)
{
  return g_strcmp0 (gtk_button_get_label (GTK_BUTTON (widget)), "_Open") == 0;
}

static gboolean
has_toast (gpointer data)
{
  return find_toast (data) != NULL;
}

static gboolean
has_no_toast (gpointer data)
{
  return find_toast (data) == NULL;
}

static gboolean
drive (gpointer data)
{
  Run *run = data;
  GtkWidget *toast_widget;
  AdwToast *toast = NULL;
  PrsConversation *shown;
  gint64 denied_at, opened_at;

  run->window = PRS_WINDOW (gtk_application_get_windows (GTK_APPLICATION (run->app))->data);
  g_assert_true (prs_test_wait_until (is_active, run->window));
  run->where = run->inbox_id;

  /* inbox on the screen: its card says it, no toast */
  prs_window_select_conversation (run->window, run->inbox_id);
  propose_call (run);
  prs_test_wait_frames (GTK_WIDGET (run->window), 2);
  g_assert_null (find_toast (run));
  deny_call (run);
  wait_answered (run);

  /* notes on the screen: a toast names inbox and the tool; decided
   * elsewhere, it goes soon after (not when its time is up) */
  prs_window_select_conversation (run->window, run->notes_id);
  propose_call (run);
  toast_widget = find_toast (run);
  g_assert_nonnull (toast_widget);
  g_assert_nonnull (prs_test_find_widget (toast_widget, GTK_TYPE_LABEL, prs_test_label_markup_contains,
                                          (gpointer) TOAST_TEXT));
  g_object_get (toast_widget, "toast", &toast, NULL);
  g_signal_connect (toast, "dismissed", G_CALLBACK (on_dismissed), run);
  denied_at = g_get_monotonic_time ();
  deny_call (run);
  g_assert_true (prs_test_wait_for (&run->dismissed));
  /* Its own time (5 s) was not what ended it: after the call's decision,
   * only the wait that keeps off the end of its showing (600 ms) */
  g_assert_cmpint (g_get_monotonic_time () - denied_at, <, 3 * G_USEC_PER_SEC);
  g_signal_handlers_disconnect_by_func (toast, on_dismissed, run);
  g_clear_object (&toast);
  wait_answered (run);

  /* Its Open button shows inbox */
  g_assert_true (prs_test_wait_until (has_no_toast, run));
  propose_call (run);
  g_assert_true (prs_test_wait_until (has_toast, run));
  prs_test_click (prs_test_find_widget (find_toast (run), GTK_TYPE_BUTTON, is_open_button, NULL));
  shown = prs_conversation_view_get_conversation (prs_window_get_conversation_view (run->window));
  g_assert_nonnull (shown);
  g_assert_cmpstr (prs_conversation_get_id (shown), ==, run->inbox_id);
  deny_call (run);
  wait_answered (run);

  /* Calls arriving together: the toast changes in place (none queued
   * behind it), Open going to the latest; the rest when one is decided */
  g_assert_true (prs_test_wait_until (has_no_toast, run));
  prs_window_select_conversation (run->window, run->notes_id);
  propose_call (run);
  run->where = run->other_id;
  propose_call (run);
  g_assert_nonnull (prs_test_find_label (GTK_WIDGET (run->window), "2 tool calls are waiting for approval."));
  run->where = run->inbox_id;
  deny_call (run);
  g_assert_nonnull (prs_test_find_label (GTK_WIDGET (run->window),
                                         "The agent in “other” wants to run “get_weather”."));
  wait_answered (run);
  run->where = run->other_id;
  deny_call (run);
  wait_answered (run);

  /* Its conversation opened by hand shows the card: the toast goes then,
   * not when its time (5 s from now) is up */
  g_assert_true (prs_test_wait_until (has_no_toast, run));
  prs_window_select_conversation (run->window, run->notes_id);
  run->where = run->inbox_id;
  propose_call (run);
  g_assert_true (prs_test_wait_until (has_toast, run));
  g_object_get (find_toast (run), "toast", &toast, NULL);
  run->dismissed = FALSE;
  g_signal_connect (toast, "dismissed", G_CALLBACK (on_dismissed), run);
  opened_at = g_get_monotonic_time ();
  prs_window_select_conversation (run->window, run->inbox_id);
  g_assert_true (prs_test_wait_for (&run->dismissed));
  g_assert_cmpint (g_get_monotonic_time () - opened_at, <, 3 * G_USEC_PER_SEC);
  g_signal_handlers_disconnect_by_func (toast, on_dismissed, run);
  g_clear_object (&toast);
  deny_call (run);
  wait_answered (run);

  g_action_group_activate_action (G_ACTION_GROUP (run->app), "quit", NULL);
  return G_SOURCE_REMOVE;
}

static void
test_approval_toast (void)
{
  Run run = { 0 };

  prepare (&run);
  run.port = prs_test_free_port ();
  run.app = prs_application_new ();
  g_assert_false (prs_test_run_app_on (G_APPLICATION (run.app), run.dir, run.port, drive, &run));
  g_clear_object (&run.app);
  /* Every call denied: the tool never ran */
  g_assert_cmpuint (run.hook->bodies->len, ==, 0);

  prs_test_hook_stop (run.hook);
  prs_test_provider_stop (run.provider);
  prs_test_remove_tree (run.dir);
  g_free (run.dir);
  g_free (run.inbox_id);
  g_free (run.notes_id);
  g_free (run.other_id);
  g_free (run.call_message_id);
  g_free (run.call_status);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ui/app/approval-toast", test_approval_toast);
  return g_test_run ();
}
