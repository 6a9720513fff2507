/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-application.c: the application with its window. `prosponsive
 * --headless` runs the same service without GTK (prs-app-options.c).
 * With the default data folder the application is unique on the session bus; with --data-dir (or PROSPONSIVE_DATA_DIR) it
 * runs on its own and the data folder's lock keeps it to one instance. */
#include "config.h"

#include <glib/gi18n.h>

#include "prs-app-options.h"
#include "prs-application.h"
#include "prs-first-run.h"
#include "prs-frame-trace.h"
#include "prs-json.h"
#include "prs-migration-window.h"
#include "prs-window.h"

struct _PrsApplication
{
  AdwApplication  parent_instance;

  PrsService     *service;
  PrsAppOptions   options;
  int             exit_status;
  GError         *start_error;   /* why the service did not start, shown in a dialog */
  gboolean        held;          /* keep-running-in-background */
  gboolean        keyring_held;  /* until the first frame is drawn */
  guint           keyring_release_id;
  /* An older version's database, migrated before the service starts
   * (docs/storage.md "Migrations"): the window saying so, and the
   * migration's while it runs */
  PrsMigrationWindow *migration_window;
  GCancellable   *migrating;
  /* The tool-call messages whose approval notification is up, each with
   * its conversation: withdrawn when the call is decided or expires,
   * whoever decided, or when the conversation is deleted */
  GHashTable     *notified;
  gboolean        hears_deletions;
};

/* Nothing reaches the keyring before the first frame: a keyring that must
 * be unlocked prompts over a window that already works. Started without a
 * window (D-Bus activation), it is let go after a few seconds. */
#define KEYRING_HOLD_MAX_SECONDS 5

G_DEFINE_FINAL_TYPE (PrsApplication, prs_application, ADW_TYPE_APPLICATION)

PrsApplication *
prs_application_new (void)
{
  return g_object_new (PRS_TYPE_APPLICATION,
                       "application-id", APP_ID,
                       "flags", G_APPLICATION_DEFAULT_FLAGS,
                       "resource-base-path", RESOURCE_PREFIX,
                       NULL);
}

static int
prs_application_handle_local_options (GApplication *app,
                                      GVariantDict *options)
{
  PrsApplication *self = PRS_APPLICATION (app);

  return prs_app_options_read (app, options, &self->options);
}

/* While keep-running-in-background is on, the application holds itself, so
 * closing the last window leaves the service (and the API n8n calls)
 * running; Quit (app.quit) ends it regardless. */
static void
update_hold (PrsApplication *self)
{
  gboolean keep = prs_settings_get_keep_running_in_background (prs_service_get_settings (self->service));

  if (keep && !self->held)
    g_application_hold (G_APPLICATION (self));
  else if (!keep && self->held)
    g_application_release (G_APPLICATION (self));
  self->held = keep;
}

static void
on_background_portal_reply (GObject      *source,
                            GAsyncResult *result,
                            gpointer      user_data)
{
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GError) error = NULL;

  reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, &error);
  if (reply == NULL)
    g_message ("The Background portal did not answer: %s", error->message);
}

/* In the Flatpak sandbox, ask the Background portal to let the service run
 * with no window (the desktop may otherwise stop it). */
static void
request_background (PrsApplication *self)
{
  GDBusConnection *bus = g_application_get_dbus_connection (G_APPLICATION (self));
  GVariantBuilder options;

  if (!g_file_test ("/.flatpak-info", G_FILE_TEST_EXISTS))
    return;
  if (bus == NULL)
    bus = g_bus_get_sync (G_BUS_TYPE_SESSION, NULL, NULL);
  else
    g_object_ref (bus);
  if (bus == NULL)
    return;

  g_variant_builder_init (&options, G_VARIANT_TYPE_VARDICT);
  g_variant_builder_add (&options, "{sv}", "reason",
                         g_variant_new_string (_("Keeps answering your n8n workflows while no window is open")));
  g_variant_builder_add (&options, "{sv}", "autostart", g_variant_new_boolean (FALSE));
  g_dbus_connection_call (bus, "org.freedesktop.portal.Desktop", "/org/freedesktop/portal/desktop",
                          "org.freedesktop.portal.Background", "RequestBackground",
                          g_variant_new ("(sa{sv})", "", &options), G_VARIANT_TYPE ("(o)"),
                          G_DBUS_CALL_FLAGS_NONE, -1, NULL, on_background_portal_reply, NULL);
  g_object_unref (bus);
}

static void
on_keep_running_changed (PrsSettings    *settings,
                         const char     *key,
                         PrsApplication *self)
{
  update_hold (self);
  if (self->held)
    request_background (self);
}

/* ---- approvals waiting (docs/runs.md, HACKING.md) ---- */

static void hear_deletions (PrsApplication *self);

/* A call waits: the window that has the focus says so (unless it shows
 * the call's conversation); with none, the desktop does (docs/runs.md
 * "Notifications") */
static void
on_approval_needed (PrsService     *service,
                    const char     *conversation_id,
                    const char     *message_id,
                    const char     *tool_name,
                    PrsApplication *self)
{
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (self));
  g_autoptr(GNotification) notification = NULL;
  g_autofree char *body = NULL;
  g_autofree char *slug = NULL;

  if (window != NULL && gtk_window_is_active (window))
    {
      if (PRS_IS_WINDOW (window))
        prs_window_announce_approval (PRS_WINDOW (window), conversation_id, message_id, tool_name);
      return;
    }

  /* An MCP client's calls (`mcp serve`) wait in the conversation of that name */
  slug = prs_store_dup_conversation_slug (prs_service_get_store (service), conversation_id);
  if (g_strcmp0 (slug, PRS_MCP_CLIENTS_CONVERSATION) == 0)
    /* Translators: %s is a tool's name */
    body = g_strdup_printf (_("An MCP client wants to run “%s”."), tool_name);
  else
    /* Translators: %s is a tool's name */
    body = g_strdup_printf (_("The agent wants to run “%s”."), tool_name);
  notification = g_notification_new (_("A tool call is waiting for approval"));
  g_notification_set_body (notification, body);
  g_notification_set_priority (notification, G_NOTIFICATION_PRIORITY_HIGH);
  g_notification_set_default_action_and_target (notification, "app.open-conversation", "s", conversation_id);
  g_notification_add_button_with_target (notification, _("Approve"), "app.approve-tool-call", "s", message_id);
  g_notification_add_button_with_target (notification, _("Deny"), "app.deny-tool-call", "s", message_id);
  g_notification_add_button_with_target (notification, _("Open"), "app.open-conversation", "s", conversation_id);
  g_application_send_notification (G_APPLICATION (self), message_id, notification);
  g_hash_table_replace (self->notified, g_strdup (message_id), g_strdup (conversation_id));
  hear_deletions (self);
}

/* A call no longer waits (approved or denied in the window, by
 * prosponsive-ctl, the API or the notification; expired; its conversation
 * gone): its notification goes, or its Approve would fail (docs/runs.md) */
static void
on_message_changed (PrsService     *service,
                    const char     *conversation_id,
                    const char     *message_id,
                    PrsApplication *self)
{
  g_autoptr(JsonNode) message = NULL;

  if (!g_hash_table_contains (self->notified, message_id))
    return;
  message = prs_store_get_message (prs_service_get_store (service), message_id, NULL);
  if (message != NULL &&
      g_strcmp0 (prs_json_object_get_string (prs_json_node_get_object (message), "status"), "proposed") == 0)
    return;
  g_application_withdraw_notification (G_APPLICATION (self), message_id);
  g_hash_table_remove (self->notified, message_id);
}

/* A deletion takes conversations out of the list, and their messages
 * change no more: a notification of theirs goes, or its Approve would
 * fail (a deletion Undo brings back leaves its call's card in the window) */
static void
on_conversations_changed (GListModel     *model,
                          guint           position,
                          guint           removed,
                          guint           added,
                          PrsApplication *self)
{
  PrsStore *store = prs_service_get_store (self->service);
  GHashTableIter iter;
  gpointer message_id, conversation_id;

  if (removed == 0)
    return;
  g_hash_table_iter_init (&iter, self->notified);
  while (g_hash_table_iter_next (&iter, &message_id, &conversation_id))
    if (!prs_store_has_conversation (store, conversation_id))
      {
        g_application_withdraw_notification (G_APPLICATION (self), message_id);
        g_hash_table_iter_remove (&iter);
      }
}

/* From the first notification on: the list is made for the first who
 * asks (prs-service.h), which the application need not be */
static void
hear_deletions (PrsApplication *self)
{
  if (self->hears_deletions)
    return;
  self->hears_deletions = TRUE;
  g_signal_connect_object (prs_service_get_conversations (self->service), "items-changed",
                           G_CALLBACK (on_conversations_changed), self, 0);
}

/* The notification's buttons: approve or deny the call (prs-runner.h) */
static void
decide_tool_call (PrsApplication *self,
                  GVariant       *parameter,
                  const char     *action)
{
  g_autoptr(GError) error = NULL;
  const char *message_id = g_variant_get_string (parameter, NULL);

  if (self->service == NULL || prs_service_get_runner (self->service) == NULL)
    return;
  g_application_withdraw_notification (G_APPLICATION (self), message_id);
  g_hash_table_remove (self->notified, message_id);
  if (!prs_runner_tool_action (prs_service_get_runner (self->service), message_id, action, NULL, &error))
    {
      /* Pressed on the desktop, so said there: the window may be closed */
      g_autoptr(GNotification) failed = g_notification_new (g_str_equal (action, "approve")
                                                             ? _("The tool call could not be approved")
                                                             : _("The tool call could not be denied"));

      g_message ("Could not %s the tool call: %s", action, error->message);
      g_notification_set_body (failed, error->message);
      g_application_send_notification (G_APPLICATION (self), "tool-call-decision-failed", failed);
    }
}

static void
approve_tool_call_activated (GSimpleAction *action,
                             GVariant      *parameter,
                             gpointer       user_data)
{
  decide_tool_call (user_data, parameter, "approve");
}

static void
deny_tool_call_activated (GSimpleAction *action,
                          GVariant      *parameter,
                          gpointer       user_data)
{
  decide_tool_call (user_data, parameter, "deny");
}

static void
open_conversation_activated (GSimpleAction *action,
                             GVariant      *parameter,
                             gpointer       user_data)
{
  PrsApplication *self = user_data;
  GtkWindow *window;

  if (self->service == NULL)
    return;
  g_application_activate (G_APPLICATION (self));
  window = gtk_application_get_active_window (GTK_APPLICATION (self));
  if (PRS_IS_WINDOW (window))
    prs_window_select_conversation (PRS_WINDOW (window), g_variant_get_string (parameter, NULL));
}

static void
release_keyring (PrsApplication *self)
{
  g_clear_handle_id (&self->keyring_release_id, g_source_remove);
  if (!self->keyring_held)
    return;
  self->keyring_held = FALSE;
  prs_secrets_release_keyring ();
}

static gboolean
on_keyring_hold_timeout (gpointer data)
{
  PrsApplication *self = data;

  self->keyring_release_id = 0;
  release_keyring (self);
  return G_SOURCE_REMOVE;
}

static void
on_first_paint (GdkFrameClock  *clock,
                PrsApplication *self)
{
  g_signal_handlers_disconnect_by_func (clock, on_first_paint, self);
  release_keyring (self);
}

/* The keyring is let go once @window has drawn its first frame */
static void
release_keyring_after_paint (PrsApplication *self,
                             GtkWindow      *window)
{
  GdkFrameClock *clock = gtk_widget_get_frame_clock (GTK_WIDGET (window));

  if (!self->keyring_held)
    return;
  if (clock == NULL)
    {
      release_keyring (self);
      return;
    }
  g_signal_connect_object (clock, "after-paint", G_CALLBACK (on_first_paint), self, 0);
  gtk_widget_queue_draw (GTK_WIDGET (window));
}

/* The service's start failed: said in a dialog on activation */
static void
keep_start_error (PrsApplication *self,
                  GError         *error)
{
  g_printerr ("prosponsive: %s\n", error->message);
  self->exit_status = EXIT_FAILURE;
  self->start_error = error;
  g_clear_object (&self->service);
}

/* On an up-to-date database: at once in startup, as before any migration
 * existed; after one, when it is done */
static gboolean
start_service (PrsApplication *self)
{
  g_autoptr(GError) error = NULL;

  if (!prs_service_start (self->service, &error))
    {
      keep_start_error (self, g_steal_pointer (&error));
      return FALSE;
    }

  g_signal_connect_object (prs_service_get_settings (self->service), "changed::keep-running-in-background",
                           G_CALLBACK (on_keep_running_changed), self, 0);
  g_signal_connect_object (self->service, "approval-needed",
                           G_CALLBACK (on_approval_needed), self, 0);
  g_signal_connect_object (self->service, "message-changed",
                           G_CALLBACK (on_message_changed), self, 0);
  update_hold (self);
  if (self->held)
    request_background (self);
  return TRUE;
}

static void
on_migration_progress (double   fraction,
                       gpointer user_data)
{
  PrsApplication *self = user_data;

  if (self->migration_window != NULL)
    prs_migration_window_set_fraction (self->migration_window, fraction);
}

static void present_main_window (PrsApplication *self);
static void show_start_error    (PrsApplication *self);

static void
on_migrated (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(PrsApplication) self = user_data;
  g_autoptr(GError) error = NULL;
  gboolean done = prs_store_migrate_finish (result, &error);
  GtkWindow *page = GTK_WINDOW (self->migration_window);

  g_clear_object (&self->migrating);
  g_application_release (G_APPLICATION (self));
  /* Quit during the migration: its running step was undone */
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_application_quit (G_APPLICATION (self));
      return;
    }
  if (!done)
    {
      /* Said on the page, which stays until Quit */
      g_printerr ("prosponsive: %s\n", error->message);
      self->exit_status = EXIT_FAILURE;
      if (self->migration_window != NULL)
        prs_migration_window_show_error (self->migration_window, error);
      g_clear_object (&self->service);
      return;
    }

  /* The normal window replaces the page, or the dialog saying why the
   * service did not start does */
  if (start_service (self))
    present_main_window (self);
  else
    show_start_error (self);
  if (page != NULL)
    gtk_window_destroy (page);
}

static void
prs_application_startup (GApplication *app)
{
  PrsApplication *self = PRS_APPLICATION (app);
  g_autoptr(GError) error = NULL;
  gboolean outdated = FALSE;

  G_APPLICATION_CLASS (prs_application_parent_class)->startup (app);

  /* The window never waits on the keyring (prs-secrets.h), and nothing
   * asks it before the first frame */
  prs_secrets_set_main_thread_may_block (FALSE);
  prs_secrets_hold_keyring ();
  self->keyring_held = TRUE;
  self->keyring_release_id = g_timeout_add_seconds (KEYRING_HOLD_MAX_SECONDS, on_keyring_hold_timeout, self);

  self->service = prs_service_new (self->options.data_dir, self->options.port);
  /* Another program on the API's port: the window still opens, and
   * Preferences says so (and where to change the port) */
  prs_service_set_api_optional (self->service, TRUE);
  prs_service_set_windowed (self->service, TRUE);
  if (!prs_service_open (self->service, &outdated, &error))
    {
      keep_start_error (self, g_steal_pointer (&error));
      return;
    }
  if (!outdated)
    {
      start_service (self);
      return;
    }

  /* A database an older version wrote: migrated on a worker while the
   * window shows how far it has come (activate presents it); the service
   * starts once it is done */
  self->migrating = g_cancellable_new ();
  g_application_hold (app);
  prs_store_migrate_async (prs_service_get_data_dir (self->service),
                           on_migration_progress, g_object_ref (self), g_object_unref,
                           self->migrating, on_migrated, g_object_ref (self));
}

/* Started from the desktop, stderr is seen by nobody: say why in a window
 * (a data folder that is not the user's own, a planted link, another
 * instance on the same folder…) and quit when it is dismissed. */
static void
show_start_error (PrsApplication *self)
{
  GtkWidget *dialog = adw_message_dialog_new (NULL, _("Prosponsive Cannot Start"),
                                              self->start_error->message);

  adw_message_dialog_add_response (ADW_MESSAGE_DIALOG (dialog), "quit", _("_Quit"));
  /* Its name in the shell's window list: there is no main window to be over */
  gtk_window_set_title (GTK_WINDOW (dialog), _("Prosponsive"));
  gtk_window_set_application (GTK_WINDOW (dialog), GTK_APPLICATION (self));
  g_signal_connect_object (dialog, "response", G_CALLBACK (g_application_quit), self, G_CONNECT_SWAPPED);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
present_main_window (PrsApplication *self)
{
  GtkWindow *window = GTK_WINDOW (prs_window_new (self, self->service));

  prs_frame_trace_begin (GTK_WIDGET (window), "window-first-frame");
  gtk_window_present (window);
  release_keyring_after_paint (self, window);
  /* Nothing set up yet: the guided setup, over the window. */
  if (prs_first_run_is_needed (self->service))
    gtk_window_present (GTK_WINDOW (prs_first_run_new (window, self->service)));
}

static void
prs_application_activate (GApplication *app)
{
  PrsApplication *self = PRS_APPLICATION (app);
  GtkWindow *window;

  if (self->migrating != NULL || self->migration_window != NULL)
    {
      if (self->migration_window == NULL)
        {
          self->migration_window = prs_migration_window_new (GTK_APPLICATION (self),
                                                             prs_service_get_settings (self->service));
          g_object_add_weak_pointer (G_OBJECT (self->migration_window), (gpointer *) &self->migration_window);
        }
      gtk_window_present (GTK_WINDOW (self->migration_window));
      return;
    }

  if (self->service == NULL)
    {
      window = gtk_application_get_active_window (GTK_APPLICATION (app));
      release_keyring (self);
      if (window != NULL)
        gtk_window_present (window);
      else if (self->start_error != NULL)
        show_start_error (self);
      else
        g_application_quit (app);
      return;
    }

  window = gtk_application_get_active_window (GTK_APPLICATION (app));
  if (window == NULL)
    {
      present_main_window (self);
      return;
    }

  gtk_window_present (window);
}

static void
prs_application_shutdown (GApplication *app)
{
  PrsApplication *self = PRS_APPLICATION (app);

  release_keyring (self);
  /* The worker stops within its step, which is undone */
  if (self->migrating != NULL)
    g_cancellable_cancel (self->migrating);
  if (self->service != NULL)
    prs_service_stop (self->service);

  G_APPLICATION_CLASS (prs_application_parent_class)->shutdown (app);
}

static void
quit_activated (GSimpleAction *action,
                GVariant      *parameter,
                gpointer       user_data)
{
  PrsApplication *self = user_data;

  /* A migration stops first (its running step undone): on_migrated quits */
  if (self->migrating != NULL)
    g_cancellable_cancel (self->migrating);
  else
    g_application_quit (G_APPLICATION (self));
}

static void
about_activated (GSimpleAction *action,
                 GVariant      *parameter,
                 gpointer       user_data)
{
  GtkApplication *app = GTK_APPLICATION (user_data);
  const char *developers[] = { _("The Prosponsive contributors"), NULL };
  GtkWidget *about;

  about = g_object_new (ADW_TYPE_ABOUT_WINDOW,
                        "transient-for", gtk_application_get_active_window (app),
                        "application-name", _("Prosponsive"),
                        "application-icon", APP_ID,
                        "version", PACKAGE_VERSION,
                        "comments", _("Chat with AI agents that use your n8n workflows as tools"),
                        "developers", developers,
                        "license-type", GTK_LICENSE_GPL_3_0,
                        /* Translators: put your names here, one a line */
                        "translator-credits", _("translator-credits"),
                        NULL);
  gtk_window_present (GTK_WINDOW (about));
}

static const GActionEntry app_actions[] = {
  { "quit", quit_activated },
  { "about", about_activated },
  { "approve-tool-call", approve_tool_call_activated, "s" },
  { "deny-tool-call", deny_tool_call_activated, "s" },
  { "open-conversation", open_conversation_activated, "s" },
};

static void
prs_application_finalize (GObject *object)
{
  PrsApplication *self = PRS_APPLICATION (object);

  g_clear_object (&self->service);
  g_clear_object (&self->migrating);
  g_clear_error (&self->start_error);
  g_clear_pointer (&self->notified, g_hash_table_unref);
  prs_app_options_clear (&self->options);

  G_OBJECT_CLASS (prs_application_parent_class)->finalize (object);
}

static void
prs_application_class_init (PrsApplicationClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);

  object_class->finalize = prs_application_finalize;

  app_class->handle_local_options = prs_application_handle_local_options;
  app_class->startup = prs_application_startup;
  app_class->activate = prs_application_activate;
  app_class->shutdown = prs_application_shutdown;
}

static void
prs_application_init (PrsApplication *self)
{
  static const char *quit_accels[] = { "<Control>q", NULL };

  self->notified = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  prs_app_options_add (G_APPLICATION (self));
  g_action_map_add_action_entries (G_ACTION_MAP (self), app_actions, G_N_ELEMENTS (app_actions), self);
  gtk_application_set_accels_for_action (GTK_APPLICATION (self), "app.quit", quit_accels);
}

int
prs_application_get_exit_status (PrsApplication *self)
{
  g_return_val_if_fail (PRS_IS_APPLICATION (self), EXIT_FAILURE);

  return self->exit_status;
}
