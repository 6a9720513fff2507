/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-slow-secret-service.c: a slow Secret Service for the ui tests.
 *
 *   prs-slow-secret-service UPSTREAM_BUS_ADDRESS DELAY_MS
 *
 * Owns org.freedesktop.secrets on the session bus it is started on and
 * hands every method call, unchanged, to the real Secret Service
 * (gnome-keyring-daemon) on UPSTREAM_BUS_ADDRESS, DELAY_MS after it came;
 * the answer goes back as soon as the keyring gave it. The keyring's signals
 * are passed on at once. So the client speaks the real protocol to a real
 * keyring that is merely slow (with DELAY_MS 0, not even that). Prints
 * "ready" on standard output once the name is owned. */
#include <stdio.h>
#include <stdlib.h>
#include <gio/gio.h>

#define SECRETS_NAME "org.freedesktop.secrets"

static GDBusConnection *front;    /* the bus the client is on */
static GDBusConnection *upstream; /* the bus the keyring is on */
static guint            delay_ms;

typedef struct
{
  GDBusMessage *call;  /* as the client sent it */
} Pending;

static void
pending_free (Pending *pending)
{
  g_object_unref (pending->call);
  g_free (pending);
}

static void
send_front (GDBusMessage *message)
{
  g_autoptr(GError) error = NULL;

  if (!g_dbus_connection_send_message (front, message, G_DBUS_SEND_MESSAGE_FLAGS_NONE, NULL, &error))
    g_printerr ("prs-slow-secret-service: %s\n", error->message);
}

static void
on_upstream_reply (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  Pending *pending = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GDBusMessage) reply = NULL;
  g_autoptr(GDBusMessage) out = NULL;

  reply = g_dbus_connection_send_message_with_reply_finish (G_DBUS_CONNECTION (source), result, &error);
  if (reply == NULL)
    out = g_dbus_message_new_method_error_literal (pending->call, "org.freedesktop.DBus.Error.Failed",
                                                    error->message);
  else
    {
      /* The keyring's answer (a return or an error), as an answer to the
       * client's call */
      out = g_dbus_message_copy (reply, &error);
      g_assert_no_error (error);
      g_dbus_message_set_sender (out, NULL);
      g_dbus_message_set_destination (out, g_dbus_message_get_sender (pending->call));
      g_dbus_message_set_reply_serial (out, g_dbus_message_get_serial (pending->call));
    }
  if ((g_dbus_message_get_flags (pending->call) & G_DBUS_MESSAGE_FLAGS_NO_REPLY_EXPECTED) == 0)
    send_front (out);
  pending_free (pending);
}

static gboolean
forward_call (gpointer user_data)
{
  Pending *pending = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GDBusMessage) call = g_dbus_message_copy (pending->call, &error);

  g_assert_no_error (error);
  g_dbus_message_set_sender (call, NULL);
  g_dbus_message_set_destination (call, SECRETS_NAME);
  /* The keyring's own answer time stays its own: no timeout of ours */
  g_dbus_connection_send_message_with_reply (upstream, call, G_DBUS_SEND_MESSAGE_FLAGS_NONE, G_MAXINT,
                                             NULL, NULL, on_upstream_reply, pending);
  return G_SOURCE_REMOVE;
}

/* On GDBus's worker thread: every call to us is held DELAY_MS on the main
 * context, then forwarded; everything else goes on as usual. */
static GDBusMessage *
filter (GDBusConnection *connection,
        GDBusMessage    *message,
        gboolean         incoming,
        gpointer         user_data)
{
  Pending *pending;

  if (!incoming || g_dbus_message_get_message_type (message) != G_DBUS_MESSAGE_TYPE_METHOD_CALL)
    return message;
  pending = g_new0 (Pending, 1);
  pending->call = message;  /* the filter owns @message: kept, not passed on */
  g_timeout_add_full (G_PRIORITY_DEFAULT, delay_ms, forward_call, pending, NULL);
  return NULL;
}

static void
on_keyring_signal (GDBusConnection *connection,
                   const char      *sender,
                   const char      *path,
                   const char      *interface,
                   const char      *member,
                   GVariant        *parameters,
                   gpointer         user_data)
{
  g_autoptr(GError) error = NULL;

  if (!g_dbus_connection_emit_signal (front, NULL, path, interface, member, parameters, &error))
    g_printerr ("prs-slow-secret-service: %s\n", error->message);
}

static void
on_name_acquired (GDBusConnection *connection,
                  const char      *name,
                  gpointer         user_data)
{
  g_print ("ready\n");
  fflush (stdout);
}

static void
on_name_lost (GDBusConnection *connection,
              const char      *name,
              gpointer         user_data)
{
  g_printerr ("prs-slow-secret-service: could not own %s\n", name);
  exit (EXIT_FAILURE);
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GMainLoop) loop = NULL;

  if (argc != 3)
    {
      g_printerr ("Usage: prs-slow-secret-service UPSTREAM_BUS_ADDRESS DELAY_MS\n");
      return EXIT_FAILURE;
    }
  delay_ms = (guint) g_ascii_strtoull (argv[2], NULL, 10);

  upstream = g_dbus_connection_new_for_address_sync (argv[1],
                                                     G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT
                                                     | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION,
                                                     NULL, NULL, &error);
  if (upstream == NULL || (front = g_bus_get_sync (G_BUS_TYPE_SESSION, NULL, &error)) == NULL)
    {
      g_printerr ("prs-slow-secret-service: %s\n", error->message);
      return EXIT_FAILURE;
    }
  g_dbus_connection_signal_subscribe (upstream, SECRETS_NAME, NULL, NULL, NULL, NULL,
                                      G_DBUS_SIGNAL_FLAGS_NONE, on_keyring_signal, NULL, NULL);
  g_dbus_connection_add_filter (front, filter, NULL, NULL);
  g_bus_own_name_on_connection (front, SECRETS_NAME, G_BUS_NAME_OWNER_FLAGS_DO_NOT_QUEUE,
                                on_name_acquired, on_name_lost, NULL, NULL);

  loop = g_main_loop_new (NULL, FALSE);
  g_main_loop_run (loop);
  return EXIT_SUCCESS;
}
