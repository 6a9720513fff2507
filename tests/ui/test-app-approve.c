/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-app-approve.c: the real PrsApplication (its sources are compiled in)
 * under Xvfb, with the scripted provider and webhook of tests/lib. A
 * workflow's inference call makes the agent propose a tool call; the
 * approval notification's Approve button activates app.approve-tool-call
 * with the tool-call message's id (prs-application.c), and activating that
 * action runs the call: the webhook gets it and the run goes on to the
 * answer. Waits are main-loop conditions, never sleeps. */
#include "config.h"

#include <string.h>

#include "prs-agent-seed.h"
#include "prs-application.h"
#include "prs-run-test-util.h"
#include "prs-ui-test-util.h"

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
  g_autoptr(GPtrArray) tools = g_ptr_array_new_with_free_func ((GDestroyNotify) prs_tool_free);
  g_autoptr(PrsAgent) agent = prs_agent_new ("weather-agent", "Weather Agent");
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
  g_ptr_array_add (tools, prs_agent_seed_weather_tool ());
  g_assert_true (prs_store_save_discovery (store, tools, NULL, 1000, &error));
  agent->allowed_tools = g_strsplit ("get_weather", ",", -1);
  g_assert_true (prs_store_save_agent (store, agent, NULL, &error));
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
  g_autofree char *port = NULL;

  prepare (&run);
  run.port = prs_test_free_port ();
  port = g_strdup_printf ("%u", run.port);
  {
    char *argv[] = { (char *) "prosponsive", (char *) "--data-dir", run.dir, (char *) "--port", port, NULL };

    run.app = prs_application_new ();
    g_assert_false (prs_test_run_app (G_APPLICATION (run.app), argv, drive, &run));
  }
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

/* A desktop's notification server (org.gtk.Notifications, what GApplication's
 * "gtk" backend talks to) on a session bus of the test's own: what the
 * application shows and withdraws */
typedef struct
{
  Run        run;
  GPtrArray *shown;      /* "id\ttitle\tbody" */
  GPtrArray *withdrawn;  /* ids */
  GSubprocess *ctl;
  gboolean    ctl_exited;
  GtkWidget  *elsewhere;  /* not the application's */
} Desk;

static const char notifications_xml[] =
  "<node><interface name='org.gtk.Notifications'>"
  "<method name='AddNotification'><arg type='s' direction='in'/><arg type='s' direction='in'/>"
  "<arg type='a{sv}' direction='in'/></method>"
  "<method name='RemoveNotification'><arg type='s' direction='in'/><arg type='s' direction='in'/></method>"
  "</interface></node>";

static void
on_notifications_call (GDBusConnection       *connection,
                       const char            *sender,
                       const char            *path,
                       const char            *interface,
                       const char            *method,
                       GVariant              *parameters,
                       GDBusMethodInvocation *invocation,
                       gpointer               data)
{
  Desk *desk = data;
  const char *id = NULL;

  if (g_str_equal (method, "AddNotification"))
    {
      g_autoptr(GVariant) notification = NULL;
      const char *title = "", *body = "";

      g_variant_get (parameters, "(&s&s@a{sv})", NULL, &id, &notification);
      g_variant_lookup (notification, "title", "&s", &title);
      g_variant_lookup (notification, "body", "&s", &body);
      g_ptr_array_add (desk->shown, g_strdup_printf ("%s\t%s\t%s", id, title, body));
    }
  else
    {
      g_variant_get (parameters, "(&s&s)", NULL, &id);
      g_ptr_array_add (desk->withdrawn, g_strdup (id));
    }
  g_dbus_method_invocation_return_value (invocation, NULL);
}

static gboolean
has_entry (GPtrArray  *entries,
           const char *prefix)
{
  for (guint i = 0; i < entries->len; i++)
    if (g_str_has_prefix (g_ptr_array_index (entries, i), prefix))
      return TRUE;
  return FALSE;
}

static gboolean
call_shown (gpointer data)
{
  Desk *desk = data;

  return read_call (&desk->run) && has_entry (desk->shown, desk->run.call_message_id);
}

static gboolean
call_withdrawn (gpointer data)
{
  Desk *desk = data;

  return read_call (&desk->run) && g_strcmp0 (desk->run.call_status, "denied") == 0 &&
         has_entry (desk->withdrawn, desk->run.call_message_id);
}

static gboolean
failure_shown (gpointer data)
{
  return has_entry (((Desk *) data)->shown, "tool-call-decision-failed\tThe tool call could not be approved\t");
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

  gtk_window_destroy (GTK_WINDOW (desk->elsewhere));
  g_action_group_activate_action (G_ACTION_GROUP (run->app), "quit", NULL);
  return G_SOURCE_REMOVE;
}

static void
test_notification_withdrawn (void)
{
  GTestDBus *bus;
  g_autoptr(GDBusConnection) connection = NULL;
  g_autoptr(GDBusNodeInfo) node = g_dbus_node_info_new_for_xml (notifications_xml, NULL);
  GDBusInterfaceVTable vtable = { on_notifications_call, NULL, NULL, { 0 } };
  Desk desk = { { 0 } };
  g_autofree char *port = NULL;
  g_autofree char *display = NULL;
  guint owner, object;

  if (g_getenv ("PRS_TEST_CTL") == NULL)
    {
      g_test_skip ("prosponsive-ctl is not built");
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
  desk.shown = g_ptr_array_new_with_free_func (g_free);
  desk.withdrawn = g_ptr_array_new_with_free_func (g_free);
  /* GTestDBus unsets DISPLAY: the window still needs Xvfb's */
  display = g_strdup (g_getenv ("DISPLAY"));
  g_test_dbus_up (bus);
  if (display != NULL)
    g_setenv ("DISPLAY", display, TRUE);
  g_setenv ("GNOTIFICATION_BACKEND", "gtk", TRUE);
  connection = g_bus_get_sync (G_BUS_TYPE_SESSION, NULL, NULL);
  g_assert_nonnull (connection);
  object = g_dbus_connection_register_object (connection, "/org/gtk/Notifications", node->interfaces[0],
                                              &vtable, &desk, NULL, NULL);
  owner = g_bus_own_name_on_connection (connection, "org.gtk.Notifications", G_BUS_NAME_OWNER_FLAGS_NONE,
                                        NULL, NULL, NULL, NULL);
  prepare (&desk.run);
  desk.run.port = prs_test_free_port ();
  port = g_strdup_printf ("%u", desk.run.port);
  {
    char *argv[] = { (char *) "prosponsive", (char *) "--data-dir", desk.run.dir, (char *) "--port", port, NULL };

    desk.run.app = prs_application_new ();
    g_assert_false (prs_test_run_app (G_APPLICATION (desk.run.app), argv, drive_desk, &desk));
  }
  g_clear_object (&desk.run.app);
  g_assert_cmpuint (desk.run.inference_status, ==, 200);
  /* Denied: the tool never ran */
  g_assert_cmpuint (desk.run.hook->bodies->len, ==, 0);

  g_bus_unown_name (owner);
  g_dbus_connection_unregister_object (connection, object);
  /* GTK and libadwaita keep the bus for good (their portal proxies): the
   * bus is stopped without waiting for its connection to be freed, and
   * @bus kept (freeing it would wait) until this process ends */
  g_dbus_connection_set_exit_on_close (connection, FALSE);
  g_clear_object (&connection);
  g_clear_object (&desk.ctl);
  g_test_dbus_stop (bus);
  prs_test_hook_stop (desk.run.hook);
  prs_test_provider_stop (desk.run.provider);
  prs_test_remove_tree (desk.run.dir);
  g_free (desk.run.dir);
  g_free (desk.run.conversation_id);
  g_free (desk.run.call_message_id);
  g_free (desk.run.call_status);
  g_free (desk.run.answer);
  g_ptr_array_unref (desk.shown);
  g_ptr_array_unref (desk.withdrawn);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ui/app/notification-approve", test_notification_approve);
  g_test_add_func ("/ui/app/notification-withdrawn", test_notification_withdrawn);
  return g_test_run ();
}
