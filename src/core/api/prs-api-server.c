/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-api-server.c: the local HTTPS API on its own thread (HACKING.md, docs/api.md):
 * the object the main thread holds, the thread's start (its own store,
 * certificate, secrets, guard and routes; then the connections of
 * prs-api-connections.c) and stop, and the notifications the routes send
 * back to the main context. */
#include "config.h"

#include "prs-api-server-private.h"
#include "prs-api-token.h"
#include "prs-error.h"
#include "prs-tls.h"

struct _PrsApiServer
{
  GObject       parent_instance;

  char         *data_dir;
  PrsSecrets   *secrets;
  guint         port;
  GMainContext *main_context;
  gboolean      lan;            /* set before start; read-only afterwards */
  PrsApiAllowlist *allowlist;
  PrsRunner    *runner;         /* the main thread's; see prs_api_server_set_runner */
  guint         wait_seconds;
  guint         new_conversations_burst;
  guint         new_conversations_per_minute;

  GThread      *thread;
  GMainContext *thread_context;
  GMainLoop    *thread_loop;
  GMutex        lock;
  GCond         cond;
  gboolean      start_done;
  GError       *start_error;
};

G_DEFINE_FINAL_TYPE (PrsApiServer, prs_api_server, G_TYPE_OBJECT)

enum
{
  CONVERSATION_CREATED,
  MESSAGE_ADDED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* ---- notifications to the main context ---- */

typedef struct
{
  PrsApiServer *server;
  guint         signal_id;
  char         *first;
  char         *second;
} Notification;

static void
notification_free (gpointer data)
{
  Notification *n = data;

  g_object_unref (n->server);
  g_free (n->first);
  g_free (n->second);
  g_free (n);
}

static gboolean
emit_notification (gpointer data)
{
  Notification *n = data;

  if (n->second != NULL)
    g_signal_emit (n->server, n->signal_id, 0, n->first, n->second);
  else
    g_signal_emit (n->server, n->signal_id, 0, n->first);

  return G_SOURCE_REMOVE;
}

static void
notify_main (PrsApiServer *server,
             guint         signal_id,
             const char   *first,
             const char   *second)
{
  Notification *n = g_new0 (Notification, 1);

  n->server = g_object_ref (server);
  n->signal_id = signal_id;
  n->first = g_strdup (first);
  n->second = g_strdup (second);
  g_main_context_invoke_full (server->main_context, G_PRIORITY_DEFAULT,
                              emit_notification, n, notification_free);
}

static void
on_conversation_created (gpointer    data,
                         const char *conversation_id)
{
  ApiThread *t = data;

  notify_main (t->server, signals[CONVERSATION_CREATED], conversation_id, NULL);
}

static void
on_message_added (gpointer    data,
                  const char *conversation_id,
                  const char *message_id)
{
  ApiThread *t = data;

  notify_main (t->server, signals[MESSAGE_ADDED], conversation_id, message_id);
}

/* ---- the thread ---- */

static gboolean
thread_setup (ApiThread  *t,
              GError    **error)
{
  PrsApiServer *self = t->server;
  PrsApiTokenWatch *watch;

  t->store = prs_store_new (self->data_dir, error);
  if (t->store == NULL)
    return FALSE;

  t->certificate = prs_tls_ensure_certificate (self->data_dir, error);
  if (t->certificate == NULL)
    return FALSE;

  /* This thread's own secrets object: PrsSecrets is not shared across threads */
  t->secrets = prs_secrets_new (self->data_dir);
  watch = prs_api_token_watch_new (t->secrets, self->data_dir, error);
  if (watch == NULL)
    return FALSE;
  t->guard = prs_api_guard_new (self->port, watch);
  prs_api_guard_set_lan (t->guard, self->lan);

  t->routes.store = t->store;
  t->routes.conversation_created = on_conversation_created;
  t->routes.message_added = on_message_added;
  t->routes.notify_data = t;
  t->routes.runner = self->runner;
  t->routes.registry = prs_runner_get_registry (self->runner);
  t->routes.main_context = self->main_context;
  t->routes.wait_seconds = self->wait_seconds;
  prs_rate_limit_init (&t->routes.new_conversations, self->new_conversations_burst,
                       self->new_conversations_per_minute, g_get_monotonic_time ());

  return prs_api_connections_start (t, self->port, error);
}

static void
thread_teardown (ApiThread *t)
{
  prs_api_connections_stop (t);
  g_clear_pointer (&t->guard, prs_api_guard_free);
  g_clear_object (&t->secrets);
  g_clear_object (&t->certificate);
  g_clear_object (&t->store);
}

static gpointer
thread_main (gpointer data)
{
  PrsApiServer *self = data;
  g_autofree ApiThread *t = g_new0 (ApiThread, 1);
  GError *error = NULL;
  gboolean ok;

  t->server = self;
  t->lan = self->lan;
  t->allowlist = self->allowlist;
  t->context = self->thread_context;
  t->loop = self->thread_loop;

  g_main_context_push_thread_default (t->context);

  ok = thread_setup (t, &error);

  g_mutex_lock (&self->lock);
  self->start_done = TRUE;
  self->start_error = error;
  g_cond_signal (&self->cond);
  g_mutex_unlock (&self->lock);

  if (ok)
    g_main_loop_run (t->loop);

  thread_teardown (t);
  g_main_context_pop_thread_default (t->context);
  return NULL;
}

/* ---- the object ---- */

static void
prs_api_server_finalize (GObject *object)
{
  PrsApiServer *self = PRS_API_SERVER (object);

  prs_api_server_stop (self);

  g_clear_pointer (&self->data_dir, g_free);
  g_clear_pointer (&self->allowlist, prs_api_allowlist_free);
  g_clear_object (&self->secrets);
  g_clear_object (&self->runner);
  g_clear_pointer (&self->main_context, g_main_context_unref);
  g_clear_error (&self->start_error);
  g_mutex_clear (&self->lock);
  g_cond_clear (&self->cond);

  G_OBJECT_CLASS (prs_api_server_parent_class)->finalize (object);
}

static void
prs_api_server_class_init (PrsApiServerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = prs_api_server_finalize;

  /**
   * PrsApiServer::conversation-created:
   * @conversation_id: the new conversation's id
   *
   * A `resolve` call created a conversation. Emitted on the main context.
   */
  signals[CONVERSATION_CREATED] =
    g_signal_new ("conversation-created",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_STRING);

  /**
   * PrsApiServer::message-added:
   * @conversation_id: the conversation
   * @message_id: the new message
   *
   * An API call stored a message. Emitted on the main context.
   */
  signals[MESSAGE_ADDED] =
    g_signal_new ("message-added",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_STRING);
}

static void
prs_api_server_init (PrsApiServer *self)
{
  g_mutex_init (&self->lock);
  g_cond_init (&self->cond);
}

/* A number from the environment, where tests shorten waits and lift
 * limits; @fallback when unset */
static guint
env_uint (const char *name,
          guint       fallback,
          guint       max)
{
  guint64 value = g_getenv (name) != NULL ? g_ascii_strtoull (g_getenv (name), NULL, 10) : 0;

  return value > 0 ? (guint) MIN (value, max) : fallback;
}

PrsApiServer *
prs_api_server_new (const char *data_dir,
                    PrsSecrets *secrets,
                    guint       port)
{
  PrsApiServer *self;

  g_return_val_if_fail (data_dir != NULL, NULL);
  g_return_val_if_fail (PRS_IS_SECRETS (secrets), NULL);
  g_return_val_if_fail (port < 65536, NULL);

  self = g_object_new (PRS_TYPE_API_SERVER, NULL);
  self->data_dir = g_strdup (data_dir);
  self->secrets = g_object_ref (secrets);
  self->port = port != 0 ? port : PRS_API_SERVER_DEFAULT_PORT;
  self->main_context = g_main_context_ref_thread_default ();
  /* Tests that flood the API with new slugs lift both to the same number */
  self->new_conversations_per_minute = env_uint ("PROSPONSIVE_NEW_CONVERSATIONS_PER_MINUTE",
                                                 PRS_API_NEW_CONVERSATIONS_PER_MINUTE, G_MAXINT);
  self->new_conversations_burst = MAX (self->new_conversations_per_minute, PRS_API_NEW_CONVERSATIONS_BURST);
  return self;
}

void
prs_api_server_set_lan (PrsApiServer       *self,
                        gboolean            enabled,
                        const char * const *allowed_sources)
{
  g_auto(GStrv) invalid = NULL;

  g_return_if_fail (PRS_IS_API_SERVER (self));
  g_return_if_fail (self->thread == NULL);

  g_clear_pointer (&self->allowlist, prs_api_allowlist_free);
  self->lan = enabled;
  self->allowlist = prs_api_allowlist_new (allowed_sources, &invalid);
  for (guint i = 0; invalid[i] != NULL; i++)
    g_message ("Ignoring “%s” in allowed-sources: not an IP address or CIDR network", invalid[i]);
}

gboolean
prs_api_server_start (PrsApiServer  *self,
                      GError       **error)
{
  GError *start_error;

  g_return_val_if_fail (PRS_IS_API_SERVER (self), FALSE);
  g_return_val_if_fail (self->thread == NULL, FALSE);
  g_return_val_if_fail (self->runner != NULL, FALSE);

  /* Made here, on the caller's thread, so a first run's token exists before
   * anything (prosponsive-ctl, Preferences) asks for it */
  if (!prs_api_token_ensure (self->secrets, self->data_dir, NULL, error))
    return FALSE;

  self->thread_context = g_main_context_new ();
  self->thread_loop = g_main_loop_new (self->thread_context, FALSE);
  self->start_done = FALSE;
  self->thread = g_thread_new ("prs-api", thread_main, self);

  g_mutex_lock (&self->lock);
  while (!self->start_done)
    g_cond_wait (&self->cond, &self->lock);
  start_error = g_steal_pointer (&self->start_error);
  g_mutex_unlock (&self->lock);

  if (start_error != NULL)
    {
      g_thread_join (g_steal_pointer (&self->thread));
      g_clear_pointer (&self->thread_loop, g_main_loop_unref);
      g_clear_pointer (&self->thread_context, g_main_context_unref);
      g_propagate_error (error, start_error);
      return FALSE;
    }

  if (self->lan)
    g_message ("Local API listening on https://127.0.0.1:%u and the local network "
               "(%u allowed sources)", self->port, prs_api_allowlist_get_size (self->allowlist));
  else
    g_message ("Local API listening on https://127.0.0.1:%u", self->port);
  return TRUE;
}

void
prs_api_server_set_runner (PrsApiServer *self,
                           PrsRunner    *runner)
{
  g_return_if_fail (PRS_IS_API_SERVER (self));
  g_return_if_fail (self->thread == NULL);

  g_set_object (&self->runner, runner);
  /* Tests shorten the 110 s wait */
  self->wait_seconds = env_uint ("PROSPONSIVE_INFERENCE_WAIT_SECONDS", PRS_API_INFERENCE_WAIT_SECONDS, 3600);
}

static gboolean
quit_loop (gpointer data)
{
  g_main_loop_quit (data);
  return G_SOURCE_REMOVE;
}

void
prs_api_server_stop (PrsApiServer *self)
{
  g_return_if_fail (PRS_IS_API_SERVER (self));

  if (self->thread == NULL)
    return;

  g_main_context_invoke (self->thread_context, quit_loop, self->thread_loop);
  g_thread_join (g_steal_pointer (&self->thread));
  g_clear_pointer (&self->thread_loop, g_main_loop_unref);
  g_clear_pointer (&self->thread_context, g_main_context_unref);
}
