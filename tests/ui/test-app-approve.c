/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-app-approve.c: the real PrsApplication (its sources are compiled in)
 * under Xvfb, with the scripted provider and webhook of tests/lib. A
 * workflow's inference call makes the agent propose a tool call; the
 * approval notification's Approve button activates app.approve-tool-call
 * with the tool-call message's id (prs-application.c), and activating that
 * action runs the call: the webhook gets it and the run goes on to the
 * answer. Under dunst, a real notification daemon: the notification goes
 * once the call is decided elsewhere, and an Approve pressed too late is
 * said in another; a conversation deleted in the window takes its call's
 * notification with it. Waits are main-loop conditions, never sleeps. */
#include "config.h"

#include <string.h>

#include "prs-agent-seed.h"
#include "prs-application.h"
#include "prs-run-test-util.h"
#include "prs-ui-test-util.h"
#include "prs-window.h"

#define KEY "sk-test-Zq7xW"

typedef struct
{
  PrsApplication  *app;
  char            *dir;
  guint            port;
  PrsTestHook     *hook;
  PrsTestProvider *provider;
  char            *conversation_id;
  char            *call_message_id;
  char            *call_status;
  char            *answer;
  guint            inference_status;
} Run;

/* The data folder the application opens: the tool, an agent allowed it,
 * the conversation, n8n at the scripted webhook, the scripted provider */
static void
prepare (Run *run)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsStore) store = NULL;
  g_autoptr(PrsSecrets) secrets = NULL;
  g_autoptr(PrsProviders) providers = NULL;
  g_autofree char *hook_url = NULL;
  g_autofree char *provider_url = NULL;

  run->dir = g_dir_make_tmp ("prs-app-approve-XXXXXX", &error);
  g_assert_no_error (error);
  run->hook = prs_test_hook_start (TRUE);
  run->provider = prs_test_provider_start ("{'kind':'openai','turns':["
                                           "{'response':{'tool_calls':["
                                           "{'id':'call_1','name':'get_weather','arguments':{'city':'Paris'}}]}},"
                                           "{'response':{'text':'It is sunny in Paris.'}}]}");
  store = prs_store_new (run->dir, &error);
  g_assert_no_error (error);
  prs_agent_seed_weather_agent (store);
  g_assert_true (prs_store_resolve_conversation (store, "inbox", &run->conversation_id, NULL, &error));
  hook_url = prs_test_hook_url (run->hook);
  g_assert_true (prs_store_set_setting (store, PRS_SETTING_N8N_URL, hook_url, &error));
  g_assert_no_error (error);
  secrets = prs_secrets_new (run->dir);
  providers = prs_providers_new (store, secrets);
  provider_url = prs_test_provider_base_url (run->provider, "openai");
  g_assert_true (prs_providers_add (providers, "openai", "Scripted", provider_url, "model-a", 0, KEY, NULL, &error));
  g_assert_no_error (error);
}

/* The tool-call message of the conversation: its id and status */
static gboolean
read_call (Run *run)
{
  g_autoptr(PrsStore) store = prs_store_new (run->dir, NULL);
  g_autoptr(JsonArray) messages = store != NULL ? prs_store_list_messages (store, run->conversation_id, 0, 100, NULL) : NULL;

  for (guint i = 0; messages != NULL && i < json_array_get_length (messages); i++)
    {
      JsonObject *message = json_array_get_object_element (messages, i);
      const char *kind = json_object_get_string_member_with_default (message, "kind", "");

      if (g_str_equal (kind, "tool-call"))
        {
          g_free (run->call_message_id);
          run->call_message_id = g_strdup (json_object_get_string_member (message, "id"));
          g_free (run->call_status);
          run->call_status = g_strdup (json_object_get_string_member_with_default (message, "status", ""));
        }
      else if (g_str_equal (kind, "assistant") &&
               g_strcmp0 (json_object_get_string_member_with_default (message, "status", ""), "completed") == 0)
        {
          g_free (run->answer);
          run->answer = g_strdup (json_object_get_string_member_with_default (message, "content", ""));
        }
    }
  return run->call_message_id != NULL;
}

static gboolean
call_ran (gpointer data)
{
  Run *run = data;

  return read_call (run) && run->hook->bodies->len == 1 &&
         g_strcmp0 (run->call_status, "succeeded") == 0 && run->answer != NULL;
}

static gboolean
drive (gpointer data)
{
  Run *run = data;
  g_autoptr(PrsSecrets) secrets = prs_secrets_new (run->dir);
  g_autofree char *body = g_strdup_printf ("{\"prompt\":\"Weather in Paris?\",\"conversationId\":\"%s\","
                                           "\"agentId\":\"weather-agent\"}", run->conversation_id);

  /* A workflow asks; the agent proposes the call and the run rests */
  run->inference_status = prs_test_api_post (secrets, run->dir, run->port, "/api/ai/agent-inference", body, NULL);
  g_assert_true (read_call (run));
  g_assert_cmpstr (run->call_status, ==, "proposed");
  g_assert_cmpuint (run->hook->bodies->len, ==, 0);

  /* What the notification's Approve button does */
  g_assert_true (g_action_group_has_action (G_ACTION_GROUP (run->app), "approve-tool-call"));
  g_action_group_activate_action (G_ACTION_GROUP (run->app), "approve-tool-call",
                                  g_variant_new_string (run->call_message_id));
  g_assert_true (prs_test_wait_until (call_ran, run));

  g_action_group_activate_action (G_ACTION_GROUP (run->app), "quit", NULL);
  return G_SOURCE_REMOVE;
}

static void
test_notification_approve (void)
{
  Run run = { 0 };

  prepare (&run);
  run.port = prs_test_free_port ();
  run.app = prs_application_new ();
  g_assert_false (prs_test_run_app_on (G_APPLICATION (run.app), run.dir, run.port, drive, &run));
  g_clear_object (&run.app);

  g_assert_cmpuint (run.inference_status, ==, 200);
  g_assert_cmpstr (run.call_status, ==, "succeeded");
  g_assert_nonnull (strstr (g_ptr_array_index (run.hook->bodies, 0), "\"city\":\"Paris\""));
  g_assert_cmpstr (run.answer, ==, "It is sunny in Paris.");

  prs_test_hook_stop (run.hook);
  prs_test_provider_stop (run.provider);
  prs_test_remove_tree (run.dir);
  g_free (run.dir);
  g_free (run.conversation_id);
  g_free (run.call_message_id);
  g_free (run.call_status);
  g_free (run.answer);
}

/* ---- the notification withdrawn, whoever decides ---- */

/* dunst, a real notification daemon (org.freedesktop.Notifications, what
 * GApplication's "freedesktop" backend talks to), on a session bus of the
 * test's own under Xvfb, asked through dunstctl what it shows and what it
 * closed (its history), as tests/email's chain does */
typedef struct
{
  Run          run;
  GSubprocess *dunst;
  GSubprocess *ctl;
  gboolean     ctl_exited;
  GtkWidget   *elsewhere;  /* not the application's */
} Desk;

/* dunstctl's answer to @command (and @arg), or NULL when it failed */
static char *
dunstctl (const char *command,
          const char *arg)
{
  const char *argv[] = { "dunstctl", command, arg, NULL };
  g_autofree char *out = NULL;
  int status = 0;

  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDERR_TO_DEV_NULL,
                     NULL, NULL, &out, NULL, &status, NULL) ||
      !g_spawn_check_wait_status (status, NULL))
    return NULL;
  return g_strstrip (g_steal_pointer (&out));
}

/* dunst's state changes with no event in this process: the main loop is
 * woken this often while a wait asks it */
static gboolean
wake (gpointer data)
{
  return G_SOURCE_CONTINUE;
}

static gboolean
dunst_answers (gpointer data)
{
  g_autofree char *paused = dunstctl ("is-paused", NULL);

  return paused != NULL;
}

static guint
displayed (void)
{
  g_autofree char *count = dunstctl ("count", "displayed");

  return count != NULL ? (guint) g_ascii_strtoull (count, NULL, 10) : 0;
}

/* A notification with @summary was closed (withdrawn, or closed here) */
static gboolean
closed_with (const char *summary)
{
  g_autofree char *history = dunstctl ("history", NULL);
  g_autofree char *quoted = g_strdup_printf ("\"%s\"", summary);

  return history != NULL && strstr (history, quoted) != NULL;
}

static gboolean
call_shown (gpointer data)
{
  Desk *desk = data;

  return read_call (&desk->run) && displayed () == 1;
}

static gboolean
call_withdrawn (gpointer data)
{
  Desk *desk = data;

  return read_call (&desk->run) && g_strcmp0 (desk->run.call_status, "denied") == 0 &&
         displayed () == 0 && closed_with ("A tool call is waiting for approval");
}

static gboolean
failure_shown (gpointer data)
{
  return displayed () == 1;
}

static gboolean
failure_said (gpointer data)
{
  return displayed () == 0 && closed_with ("The tool call could not be approved");
}

static void
on_ctl_exited (GObject      *source,
               GAsyncResult *result,
               gpointer      data)
{
  Desk *desk = data;

  g_assert_true (g_subprocess_wait_finish (G_SUBPROCESS (source), result, NULL));
  desk->ctl_exited = TRUE;
}

static gboolean
ctl_done (gpointer data)
{
  return ((Desk *) data)->ctl_exited;
}

static gboolean
is_inactive (gpointer window)
{
  return !gtk_window_is_active (window);
}

static gboolean
drive_desk (gpointer data)
{
  Desk *desk = data;
  Run *run = &desk->run;
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsSecrets) secrets = prs_secrets_new (run->dir);
  g_autofree char *port = g_strdup_printf ("%u", run->port);
  g_autofree char *body = g_strdup_printf ("{\"prompt\":\"Weather in Paris?\",\"conversationId\":\"%s\","
                                           "\"agentId\":\"weather-agent\"}", run->conversation_id);
  GList *windows = gtk_application_get_windows (GTK_APPLICATION (run->app));

  /* Another program's window has the focus: the call waiting is said on
   * the desktop */
  desk->elsewhere = gtk_window_new ();
  gtk_window_present (GTK_WINDOW (desk->elsewhere));
  g_assert_true (prs_test_wait_until (is_inactive, windows->data));
  run->inference_status = prs_test_api_post (secrets, run->dir, run->port, "/api/ai/agent-inference", body, NULL);
  g_assert_true (prs_test_wait_until (call_shown, desk));

  /* Decided elsewhere (prosponsive-ctl in a terminal): the notification goes */
  desk->ctl = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_SILENCE, &error, g_getenv ("PRS_TEST_CTL"),
                                "--data-dir", run->dir, "deny", run->call_message_id, "--port", port, NULL);
  g_assert_no_error (error);
  g_subprocess_wait_async (desk->ctl, NULL, on_ctl_exited, desk);
  g_assert_true (prs_test_wait_until (ctl_done, desk));
  g_assert_cmpint (g_subprocess_get_exit_status (desk->ctl), ==, 0);
  g_assert_true (prs_test_wait_until (call_withdrawn, desk));

  /* Its Approve pressed late (a notification a desktop kept) fails: said in words */
  g_action_group_activate_action (G_ACTION_GROUP (run->app), "approve-tool-call",
                                  g_variant_new_string (run->call_message_id));
  g_assert_true (prs_test_wait_until (failure_shown, desk));
  g_free (dunstctl ("close-all", NULL));
  g_assert_true (prs_test_wait_until (failure_said, desk));

  gtk_window_destroy (GTK_WINDOW (desk->elsewhere));
  g_action_group_activate_action (G_ACTION_GROUP (run->app), "quit", NULL);
  return G_SOURCE_REMOVE;
}

/* A conversation deleted in the window (with Undo offered, as a person
 * deletes) takes its call's notification with it: its messages change no
 * more, and its Approve would fail */
static gboolean
notification_gone (gpointer data)
{
  Desk *desk = data;

  return read_call (&desk->run) && g_strcmp0 (desk->run.call_status, "proposed") == 0 &&
         displayed () == 0 && closed_with ("A tool call is waiting for approval");
}

static gboolean
drive_delete (gpointer data)
{
  Desk *desk = data;
  Run *run = &desk->run;
  g_autoptr(PrsSecrets) secrets = prs_secrets_new (run->dir);
  g_autofree char *body = g_strdup_printf ("{\"prompt\":\"Weather in Paris?\",\"conversationId\":\"%s\","
                                           "\"agentId\":\"weather-agent\"}", run->conversation_id);
  GtkWidget *window = gtk_application_get_windows (GTK_APPLICATION (run->app))->data;

  desk->elsewhere = gtk_window_new ();
  gtk_window_present (GTK_WINDOW (desk->elsewhere));
  g_assert_true (prs_test_wait_until (is_inactive, window));
  run->inference_status = prs_test_api_post (secrets, run->dir, run->port, "/api/ai/agent-inference", body, NULL);
  g_assert_true (prs_test_wait_until (call_shown, desk));

  gtk_window_destroy (GTK_WINDOW (desk->elsewhere));
  prs_window_select_conversation (PRS_WINDOW (window), run->conversation_id);
  g_assert_true (gtk_widget_activate_action (window, "win.delete-conversation", NULL));
  g_assert_true (prs_test_wait_until (notification_gone, desk));

  g_action_group_activate_action (G_ACTION_GROUP (run->app), "quit", NULL);
  return G_SOURCE_REMOVE;
}

/* @drive runs with dunst on a bus of the test's own */
static void
run_desk (GSourceFunc drive_func)
{
  GTestDBus *bus;
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GError) error = NULL;
  Desk desk = { { 0 } };
  g_autofree char *display = NULL;
  g_autofree char *config_dir = NULL;
  g_autofree char *config = NULL;
  g_autofree char *dunst_path = NULL, *dunstctl_path = NULL;
  g_autoptr(GDBusConnection) connection = NULL;
  guint waker;

  if (g_getenv ("PRS_TEST_CTL") == NULL)
    {
      g_test_skip ("prosponsive-ctl is not built");
      return;
    }
  dunst_path = g_find_program_in_path ("dunst");
  dunstctl_path = g_find_program_in_path ("dunstctl");
  if (dunst_path == NULL || dunstctl_path == NULL)
    {
      g_test_skip ("dunst is not installed (build-aux/install-deps.sh installs it)");
      return;
    }
  /* A process of its own: the session bus GLib connected to before (a
   * test of this program ran first) is kept for good, so the test's own
   * bus is the first this process connects to */
  if (!g_test_subprocess ())
    {
      g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDOUT | G_TEST_SUBPROCESS_INHERIT_STDERR);
      g_test_trap_assert_passed ();
      return;
    }
  bus = g_test_dbus_new (G_TEST_DBUS_NONE);
  /* GTestDBus unsets DISPLAY: the window and dunst still need Xvfb's */
  display = g_strdup (g_getenv ("DISPLAY"));
  g_test_dbus_up (bus);
  if (display != NULL)
    g_setenv ("DISPLAY", display, TRUE);
  g_setenv ("GNOTIFICATION_BACKEND", "freedesktop", TRUE);

  config_dir = g_dir_make_tmp ("prs-dunst-XXXXXX", &error);
  g_assert_no_error (error);
  config = g_build_filename (config_dir, "dunstrc", NULL);
  /* Nothing expires by itself: only a withdrawal or the test closes one */
  g_assert_true (g_file_set_contents (config,
                                      "[global]\n    browser = /bin/false\n"
                                      "[urgency_low]\n    timeout = 0\n"
                                      "[urgency_normal]\n    timeout = 0\n"
                                      "[urgency_critical]\n    timeout = 0\n", -1, NULL));
  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_SILENCE | G_SUBPROCESS_FLAGS_STDERR_SILENCE);
  /* dunst is not ours: our tests' fatal warnings are not for it */
  g_subprocess_launcher_unsetenv (launcher, "G_DEBUG");
  desk.dunst = g_subprocess_launcher_spawn (launcher, &error, "dunst", "-config", config, NULL);
  g_assert_no_error (error);
  waker = g_timeout_add (20, wake, NULL);
  g_assert_true (prs_test_wait_until (dunst_answers, NULL));

  prepare (&desk.run);
  desk.run.port = prs_test_free_port ();
  desk.run.app = prs_application_new ();
  g_assert_false (prs_test_run_app_on (G_APPLICATION (desk.run.app), desk.run.dir, desk.run.port, drive_func, &desk));
  g_clear_object (&desk.run.app);
  g_source_remove (waker);
  g_assert_cmpuint (desk.run.inference_status, ==, 200);
  /* Denied or deleted: the tool never ran */
  g_assert_cmpuint (desk.run.hook->bodies->len, ==, 0);

  g_subprocess_force_exit (desk.dunst);
  g_assert_true (g_subprocess_wait (desk.dunst, NULL, NULL));
  g_clear_object (&desk.dunst);
  g_clear_object (&desk.ctl);
  /* GTK and libadwaita keep the bus for good (their portal proxies): the
   * bus is stopped without waiting for its connection to be freed, and
   * @bus kept (freeing it would wait) until this process ends */
  connection = g_bus_get_sync (G_BUS_TYPE_SESSION, NULL, NULL);
  if (connection != NULL)
    g_dbus_connection_set_exit_on_close (connection, FALSE);
  g_clear_object (&connection);
  g_test_dbus_stop (bus);
  prs_test_hook_stop (desk.run.hook);
  prs_test_provider_stop (desk.run.provider);
  prs_test_remove_tree (desk.run.dir);
  prs_test_remove_tree (config_dir);
  g_free (desk.run.dir);
  g_free (desk.run.conversation_id);
  g_free (desk.run.call_message_id);
  g_free (desk.run.call_status);
  g_free (desk.run.answer);
}

static void
test_notification_withdrawn (void)
{
  run_desk (drive_desk);
}

static void
test_notification_deleted (void)
{
  run_desk (drive_delete);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ui/app/notification-approve", test_notification_approve);
  g_test_add_func ("/ui/app/notification-withdrawn", test_notification_withdrawn);
  g_test_add_func ("/ui/app/notification-deleted", test_notification_deleted);
  return g_test_run ();
}
