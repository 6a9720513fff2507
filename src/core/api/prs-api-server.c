/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-api-server.c: the local HTTPS API on its own thread (HACKING.md, docs/api.md):
 * the object the main thread holds, the thread's start (its own store,
 * certificate, secrets, guard and routes; then the connections of
 * prs-api-connections.c) and stop, and the notifications the routes send
 * back to the main context. */
/* SCHED_BATCH is a Linux extension */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "prs-api-control.h"
#include "prs-api-server-private.h"
#include "prs-api-token.h"
#include "prs-error.h"
#include "prs-thread.h"
#include "prs-tls.h"

/* The object belongs to the thread that made it (the main thread, through
 * PrsService); the API thread has its own state in ApiThread. What both
 * read is grouped by who may touch it, as GNOME Calendar's
 * gcal-calendar-monitor.c does: */
struct _PrsApiServer
{
  GObject       parent_instance;

  /* Written by the owner before the API thread starts and read-only while
   * it runs: g_thread_new () orders these writes before the thread's
   * reads, so no lock is needed */
  struct
  {
    char            *data_dir;
    guint            port;
    GMainContext    *main_context;   /* the owner's: signals are emitted there */
    gboolean         lan;
    PrsApiAllowlist *allowlist;
    PrsRunner       *runner;         /* the owner's; the API thread calls only its thread-safe functions */
    PrsProviders    *providers;      /* the owner's: reached through g_main_context_invoke only */
    PrsCallbackRegistry *registry;   /* thread-safe */
    guint            wait_seconds;
    guint            new_conversations_burst;
    guint            new_conversations_per_minute;
    GStrv            origins;        /* allowed-origins at start; changes travel by invoke */
    GMainContext    *thread_context; /* made by start (), iterated by the API thread alone */
    GMainLoop       *thread_loop;
    GCancellable    *cancellable;    /* stop () cancels the thread's wait on the keyring */
  } config;

  /* The API thread's alone: set when it starts, read by callbacks that
   * run on its context */
  struct
  {
    ApiThread       *state;
  } api_thread;

  /* The owner's thread only */
  struct
  {
    PrsThreadOwner   owner;
    PrsSecrets      *secrets;        /* the owner's: the API thread makes its own */
    GThread         *thread;
    gboolean         started;        /* start () said so */
  } main_thread;

  /* Either thread: the API thread's id once it runs, and whether it gives
   * way to a window (see prs_api_server_give_way) */
  struct
  {
    gint             tid;
    gint             give_way;
  } atomic;

  /* Under shared.lock: the API thread reports how its start went */
  struct
  {
    GMutex           lock;
    GCond            cond;
    gboolean         start_done;
    GError          *start_error;
  } shared;
};

G_DEFINE_FINAL_TYPE (PrsApiServer, prs_api_server, G_TYPE_OBJECT)

enum
{
  CONVERSATION_CREATED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* ---- notifications to the main context ---- */

typedef struct
{
  PrsApiServer *server;
  guint         signal_id;
  char         *argument;
} Notification;

static void
notification_free (gpointer data)
{
  Notification *n = data;

  g_object_unref (n->server);
  g_free (n->argument);
  g_free (n);
}

static gboolean
emit_notification (gpointer data)
{
  Notification *n = data;

  g_signal_emit (n->server, n->signal_id, 0, n->argument);
  return G_SOURCE_REMOVE;
}

static void
notify_main (PrsApiServer *server,
             guint         signal_id,
             const char   *argument)
{
  Notification *n = g_new0 (Notification, 1);

  n->server = g_object_ref (server);
  n->signal_id = signal_id;
  n->argument = g_strdup (argument);
  g_main_context_invoke_full (server->config.main_context, G_PRIORITY_DEFAULT,
                              emit_notification, n, notification_free);
}

static void
on_conversation_created (gpointer    data,
                         const char *conversation_id)
{
  ApiThread *t = data;

  notify_main (t->server, signals[CONVERSATION_CREATED], conversation_id);
}

/* ---- the thread ---- */

/* Made on the first start (or moved from an older version's file), in the
 * keyring the token was just read from; without it only the routes that
 * decide tool calls are closed (503), the rest of the API works */
static void
set_control_key (ApiThread *t)
{
  PrsApiServer *self = t->server;
  g_autoptr(GError) error = NULL;
  g_autofree char *key = NULL;

  if (!prs_api_control_ensure (t->secrets, self->config.data_dir, &key,
                               self->config.cancellable, &error))
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_message ("The control key could not be made or read; tool calls cannot be decided "
                   "through the API: %s", error->message);
      return;
    }
  prs_api_guard_set_control_key (t->guard, key);
  memset (key, 0, strlen (key));
}

#define TOKEN_RETRY_SECONDS 10

/* The token, from the keyring, then the control key: this thread waits for
 * them (the window's main loop never does), before the first connection
 * is served. Until the token is read, requests that need it get 503, and
 * it is tried again. */
static gboolean
load_token (gpointer data)
{
  ApiThread *t = data;
  PrsApiServer *self = t->server;
  g_autoptr(GError) error = NULL;
  PrsApiTokenWatch *watch;

  PRS_ASSERT_OWNER (&t->owner);
  watch = prs_api_token_watch_new (t->secrets, self->config.data_dir, self->config.cancellable, &error);
  if (watch != NULL)
    {
      prs_api_guard_set_token_watch (t->guard, watch);
      set_control_key (t);
      t->token_retry_id = 0;
      return G_SOURCE_REMOVE;
    }
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      t->token_retry_id = 0;
      return G_SOURCE_REMOVE;
    }
  g_message ("The local API cannot check requests yet: %s (trying again in %d s)",
             error->message, TOKEN_RETRY_SECONDS);
  if (t->token_retry_id == 0)
    {
      GSource *source = g_timeout_source_new_seconds (TOKEN_RETRY_SECONDS);

      g_source_set_callback (source, load_token, t, NULL);
      t->token_retry_id = g_source_attach (source, t->context);
      g_source_unref (source);
    }
  return G_SOURCE_CONTINUE;
}

static gboolean
thread_setup (ApiThread  *t,
              GError    **error)
{
  PrsApiServer *self = t->server;

  t->store = prs_store_new (self->config.data_dir, error);
  if (t->store == NULL)
    return FALSE;

  t->certificate = prs_tls_ensure_certificate (self->config.data_dir, error);
  if (t->certificate == NULL)
    return FALSE;

  /* This thread's own secrets object: PrsSecrets is not shared across
   * threads. The token and the control key are read once the start is
   * reported (load_token) */
  t->secrets = prs_secrets_new (self->config.data_dir);
  t->guard = prs_api_guard_new (self->config.port, NULL);
  prs_api_guard_set_lan (t->guard, self->config.lan);
  prs_api_guard_set_origins (t->guard, (const char * const *) self->config.origins);

  /* The routes and their store are this thread's */
  prs_thread_owner_claim (&t->routes.owner);
  t->routes.store = t->store;
  t->routes.conversation_created = on_conversation_created;
  t->routes.notify_data = t;
  t->routes.runner = self->config.runner;
  t->routes.providers = self->config.providers;
  t->routes.registry = self->config.registry;
  t->routes.main_context = self->config.main_context;
  t->routes.wait_seconds = self->config.wait_seconds;
  prs_rate_limit_init (&t->routes.new_conversations, self->config.new_conversations_burst,
                       self->config.new_conversations_per_minute, g_get_monotonic_time ());

  return prs_api_connections_start (t, self->config.port, error);
}

static void
thread_teardown (ApiThread *t)
{
  if (t->token_retry_id != 0)
    {
      GSource *source = g_main_context_find_source_by_id (t->context, t->token_retry_id);

      if (source != NULL)
        g_source_destroy (source);
      t->token_retry_id = 0;
    }
  prs_api_connections_stop (t);
  g_clear_pointer (&t->guard, prs_api_guard_free);
  g_clear_object (&t->secrets);
  g_clear_object (&t->certificate);
  g_clear_object (&t->store);
}

/* SCHED_BATCH: the API thread keeps its share of the cores (a flood of
 * requests is served as fast as before), but its wake-ups no longer
 * preempt the window's thread in the middle of a frame; a frame's wake-up
 * still preempts it. */
static void
lower_priority (PrsApiServer *self)
{
  struct sched_param param = { 0 };
  gint tid = g_atomic_int_get (&self->atomic.tid);

  if (tid != 0 && sched_setscheduler ((pid_t) tid, SCHED_BATCH, &param) != 0)
    g_debug ("The API thread keeps its scheduling: %s", g_strerror (errno));
}

static gpointer
thread_main (gpointer data)
{
  PrsApiServer *self = data;
  g_autofree ApiThread *t = g_new0 (ApiThread, 1);
  GError *error = NULL;
  gboolean ok;

  prs_thread_owner_claim (&t->owner);
  g_atomic_int_set (&self->atomic.tid, (gint) syscall (SYS_gettid));
  if (g_atomic_int_get (&self->atomic.give_way))
    lower_priority (self);
  t->server = self;
  t->lan = self->config.lan;
  t->allowlist = self->config.allowlist;
  t->context = self->config.thread_context;
  t->loop = self->config.thread_loop;

  g_main_context_push_thread_default (t->context);

  ok = thread_setup (t, &error);
  if (ok)
    self->api_thread.state = t;

  g_mutex_lock (&self->shared.lock);
  self->shared.start_done = TRUE;
  self->shared.start_error = error;
  g_cond_signal (&self->shared.cond);
  g_mutex_unlock (&self->shared.lock);

  if (ok)
    {
      /* The owner went on: waiting on the keyring here costs it nothing */
      load_token (t);
      g_main_loop_run (t->loop);
    }

  self->api_thread.state = NULL;
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

  g_clear_pointer (&self->config.data_dir, g_free);
  g_clear_pointer (&self->config.origins, g_strfreev);
  g_clear_pointer (&self->config.allowlist, prs_api_allowlist_free);
  g_clear_object (&self->main_thread.secrets);
  g_clear_object (&self->config.runner);
  g_clear_object (&self->config.providers);
  g_clear_object (&self->config.registry);
  g_clear_pointer (&self->config.main_context, g_main_context_unref);
  g_clear_error (&self->shared.start_error);
  g_mutex_clear (&self->shared.lock);
  g_cond_clear (&self->shared.cond);

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
}

static void
prs_api_server_init (PrsApiServer *self)
{
  g_mutex_init (&self->shared.lock);
  g_cond_init (&self->shared.cond);
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
  prs_thread_owner_claim (&self->main_thread.owner);
  self->config.data_dir = g_strdup (data_dir);
  self->main_thread.secrets = g_object_ref (secrets);
  self->config.port = port != 0 ? port : PRS_API_SERVER_DEFAULT_PORT;
  self->config.main_context = g_main_context_ref_thread_default ();
  /* Tests that flood the API with new slugs lift both to the same number */
  self->config.new_conversations_per_minute = env_uint ("PROSPONSIVE_NEW_CONVERSATIONS_PER_MINUTE",
                                                 PRS_API_NEW_CONVERSATIONS_PER_MINUTE, G_MAXINT);
  self->config.new_conversations_burst = MAX (self->config.new_conversations_per_minute, PRS_API_NEW_CONVERSATIONS_BURST);
  return self;
}

void
prs_api_server_set_lan (PrsApiServer       *self,
                        gboolean            enabled,
                        const char * const *allowed_sources)
{
  g_auto(GStrv) invalid = NULL;

  g_return_if_fail (PRS_IS_API_SERVER (self));
  g_return_if_fail (self->main_thread.thread == NULL);
  PRS_ASSERT_OWNER (&self->main_thread.owner);

  g_clear_pointer (&self->config.allowlist, prs_api_allowlist_free);
  self->config.lan = enabled;
  self->config.allowlist = prs_api_allowlist_new (allowed_sources, &invalid);
  for (guint i = 0; invalid[i] != NULL; i++)
    g_message ("Ignoring “%s” in allowed-sources: not an IP address or CIDR network", invalid[i]);
}

void
prs_api_server_give_way (PrsApiServer *self)
{
  g_return_if_fail (PRS_IS_API_SERVER (self));
  PRS_ASSERT_OWNER (&self->main_thread.owner);

  /* Whichever comes second applies it: this, or the thread's start */
  g_atomic_int_set (&self->atomic.give_way, TRUE);
  lower_priority (self);
}

void
prs_api_server_launch (PrsApiServer *self)
{
  g_return_if_fail (PRS_IS_API_SERVER (self));
  g_return_if_fail (self->main_thread.thread == NULL);
  g_return_if_fail (self->config.runner != NULL);
  PRS_ASSERT_OWNER (&self->main_thread.owner);

  /* The token is the API thread's to read (or make), after start () returns:
   * the caller never waits on the keyring */
  self->config.cancellable = g_cancellable_new ();
  self->config.thread_context = g_main_context_new ();
  self->config.thread_loop = g_main_loop_new (self->config.thread_context, FALSE);
  self->shared.start_done = FALSE;
  self->main_thread.thread = g_thread_new ("prs-api", thread_main, self);
}

gboolean
prs_api_server_start (PrsApiServer  *self,
                      GError       **error)
{
  GError *start_error;

  g_return_val_if_fail (PRS_IS_API_SERVER (self), FALSE);
  g_return_val_if_fail (!self->main_thread.started, FALSE);
  g_return_val_if_fail (self->config.runner != NULL, FALSE);
  PRS_ASSERT_OWNER (&self->main_thread.owner);

  if (self->main_thread.thread == NULL)
    prs_api_server_launch (self);

  g_mutex_lock (&self->shared.lock);
  while (!self->shared.start_done)
    g_cond_wait (&self->shared.cond, &self->shared.lock);
  start_error = g_steal_pointer (&self->shared.start_error);
  g_mutex_unlock (&self->shared.lock);

  if (start_error != NULL)
    {
      g_thread_join (g_steal_pointer (&self->main_thread.thread));
      g_clear_pointer (&self->config.thread_loop, g_main_loop_unref);
      g_clear_pointer (&self->config.thread_context, g_main_context_unref);
      g_clear_object (&self->config.cancellable);
      g_propagate_error (error, start_error);
      return FALSE;
    }

  self->main_thread.started = TRUE;
  if (self->config.lan)
    g_message ("Local API listening on https://127.0.0.1:%u and the local network "
               "(%u allowed sources)", self->config.port, prs_api_allowlist_get_size (self->config.allowlist));
  else
    g_message ("Local API listening on https://127.0.0.1:%u", self->config.port);
  return TRUE;
}

void
prs_api_server_set_runner (PrsApiServer        *self,
                           PrsRunner           *runner,
                           PrsProviders        *providers,
                           PrsCallbackRegistry *registry)
{
  g_return_if_fail (PRS_IS_API_SERVER (self));
  g_return_if_fail (PRS_IS_RUNNER (runner));
  g_return_if_fail (PRS_IS_PROVIDERS (providers));
  g_return_if_fail (PRS_IS_CALLBACK_REGISTRY (registry));
  g_return_if_fail (self->main_thread.thread == NULL);
  PRS_ASSERT_OWNER (&self->main_thread.owner);

  g_set_object (&self->config.runner, runner);
  g_set_object (&self->config.providers, providers);
  g_set_object (&self->config.registry, registry);
  /* Tests shorten the 110 s wait */
  self->config.wait_seconds = env_uint ("PROSPONSIVE_INFERENCE_WAIT_SECONDS", PRS_API_INFERENCE_WAIT_SECONDS, 3600);
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
  PRS_ASSERT_OWNER (&self->main_thread.owner);

  self->main_thread.started = FALSE;
  if (self->main_thread.thread == NULL)
    return;
  g_atomic_int_set (&self->atomic.tid, 0);

  /* The thread may still wait on the keyring for the token */
  g_cancellable_cancel (self->config.cancellable);
  g_main_context_invoke (self->config.thread_context, quit_loop, self->config.thread_loop);
  g_thread_join (g_steal_pointer (&self->main_thread.thread));
  /* Launched, and stopped before start () asked how it went */
  g_clear_error (&self->shared.start_error);
  g_clear_pointer (&self->config.thread_loop, g_main_loop_unref);
  g_clear_pointer (&self->config.thread_context, g_main_context_unref);
  g_clear_object (&self->config.cancellable);
}

typedef struct
{
  PrsApiServer *server;
  GStrv         origins;
} OriginsChange;

static void
origins_change_free (gpointer data)
{
  OriginsChange *change = data;

  g_object_unref (change->server);
  g_strfreev (change->origins);
  g_free (change);
}

static gboolean
apply_origins (gpointer data)
{
  OriginsChange *change = data;
  ApiThread *t = change->server->api_thread.state;

  if (t != NULL)
    prs_api_guard_set_origins (t->guard, (const char * const *) change->origins);
  return G_SOURCE_REMOVE;
}

void
prs_api_server_set_origins (PrsApiServer       *self,
                            const char * const *origins)
{
  OriginsChange *change;

  g_return_if_fail (PRS_IS_API_SERVER (self));
  PRS_ASSERT_OWNER (&self->main_thread.owner);

  if (self->main_thread.thread == NULL)
    {
      g_strfreev (self->config.origins);
      self->config.origins = origins != NULL ? g_strdupv ((char **) origins) : NULL;
      return;
    }

  /* Running: the guard is the API thread's, so the change goes there */
  change = g_new0 (OriginsChange, 1);
  change->server = g_object_ref (self);
  change->origins = origins != NULL ? g_strdupv ((char **) origins) : NULL;
  g_main_context_invoke_full (self->config.thread_context, G_PRIORITY_DEFAULT, apply_origins,
                              change, origins_change_free);
}
