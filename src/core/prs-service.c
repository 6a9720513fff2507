/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-service.c: creates and holds every core service; the window and the
 * headless mode start the same one. */
#include "config.h"

#include <fcntl.h>
#include <sys/file.h>
#include <string.h>
#include <unistd.h>
#include <glib/gi18n-lib.h>

#include "prs-api-port.h"
#include "prs-api-server.h"
#include "prs-conversation-list.h"
#include "prs-discovery.h"
#include "prs-error.h"
#include "prs-mcp-hub.h"
#include "prs-n8n-setup.h"
#include "prs-paths.h"
#include "prs-runner.h"
#include "prs-scheduler.h"
#include "prs-service.h"
#include "prs-service-private.h"
#include "prs-settings.h"
#include "prs-thread.h"

struct _PrsService
{
  GObject        parent_instance;

  char          *data_dir;
  guint          port;
  int            lock_fd;
  gboolean       port_published;

  PrsStore      *store;
  PrsSecrets    *secrets;
  PrsDiscovery  *discovery;
  PrsApiServer  *api_server;
  PrsConversationList *conversations;
  PrsProviders  *providers;
  PrsSettings   *settings;
  PrsCallbackRegistry *registry;
  PrsRunner     *runner;
  PrsScheduler  *scheduler;
  PrsMcpHub     *mcp_hub;

  gboolean       storage_full;
  guint          storage_check_id;

  gboolean       api_optional;   /* the window runs without the API */
  gboolean       windowed;       /* a window will show the conversations */
  GError        *api_error;      /* why the API did not start */
};

G_DEFINE_FINAL_TYPE (PrsService, prs_service, G_TYPE_OBJECT)

enum
{
  SIGNAL_MESSAGE_ADDED,
  SIGNAL_MESSAGE_CHANGED,
  SIGNAL_APPROVAL_NEEDED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

enum
{
  PROP_0,
  PROP_STORAGE_FULL,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* While the disk is full, look again this often (seconds) */
#define STORAGE_CHECK_INTERVAL 5
/* …and try a write only once at least this much is free again */
#define STORAGE_FREE_MARGIN (1024 * 1024)

PrsService *
prs_service_new (const char *data_dir,
                 guint       port)
{
  PrsService *self;

  /* The window and every model it binds to live on the main thread; the
   * API thread reaches them only through signals emitted here */
  PRS_ASSERT_MAIN_THREAD ();

  self = g_object_new (PRS_TYPE_SERVICE, NULL);
  self->data_dir = prs_paths_resolve_data_dir (data_dir);
  self->settings = prs_settings_new ();
  /* --port for one run; otherwise the api-port setting (3100 by default) */
  self->port = port != 0 ? port : prs_settings_get_api_port (self->settings);

  return self;
}

/* One instance per data folder: an advisory lock held for the process's
 * life (released by the kernel even after SIGKILL). */
static gboolean
lock_data_dir (PrsService  *self,
               GError     **error)
{
  g_autofree char *path = g_build_filename (self->data_dir, PRS_INSTANCE_LOCK_FILE, NULL);
  gboolean locked;

  /* Not through a link, not another user's file (prs-paths) */
  self->lock_fd = prs_paths_open_file (path, O_RDWR | O_CREAT, error);
  if (self->lock_fd < 0)
    return FALSE;

  /* prosponsive-ctl takes the lock shared for an instant to see whether a
   * service runs (prs-api-port.h): tried again a few times before saying
   * another instance runs */
  locked = flock (self->lock_fd, LOCK_EX | LOCK_NB) == 0;
  for (guint i = 0; !locked && i < 5; i++)
    {
      g_usleep (10 * G_TIME_SPAN_MILLISECOND);
      locked = flock (self->lock_fd, LOCK_EX | LOCK_NB) == 0;
    }
  if (!locked)
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_FAILED,
                   _("Prosponsive is already running with the data folder “%s”."), self->data_dir);
      close (self->lock_fd);
      self->lock_fd = -1;
      return FALSE;
    }

  return TRUE;
}

static void
update_schedule (PrsService *self)
{
  guint minutes = prs_settings_get_discovery_interval (self->settings);

  prs_discovery_set_schedule (self->discovery, MAX (minutes, 1) * 60);
}

static void
on_interval_changed (PrsSettings *settings,
                     const char  *key,
                     PrsService  *self)
{
  update_schedule (self);
}

/* The API thread stored something: the window's models follow, once per
 * main loop turn however many arrive (a flood of new conversations must
 * not cost the main thread more than the rows that changed). */
void
_prs_service_conversation_changed (PrsService *self,
                                   const char *conversation_id)
{
  if (self->conversations != NULL)
    prs_conversation_list_queue_update (self->conversations, conversation_id);
}

static void
on_api_conversation_created (PrsApiServer *server,
                             const char   *conversation_id,
                             PrsService   *self)
{
  _prs_service_conversation_changed (self, conversation_id);
}

static void
on_api_message_added (PrsApiServer *server,
                      const char   *conversation_id,
                      const char   *message_id,
                      PrsService   *self)
{
  _prs_service_conversation_changed (self, conversation_id);
  g_signal_emit (self, signals[SIGNAL_MESSAGE_ADDED], 0, conversation_id, message_id);
}

gboolean
prs_service_add_message (PrsService              *self,
                         const PrsMessageInsert  *message,
                         char                   **out_message_id,
                         GError                 **error)
{
  g_autofree char *message_id = NULL;

  g_return_val_if_fail (PRS_IS_SERVICE (self), FALSE);
  g_return_val_if_fail (self->store != NULL, FALSE);
  PRS_ASSERT_MAIN_THREAD ();

  if (!prs_store_insert_message (self->store, message, &message_id, NULL, error))
    return FALSE;

  on_api_message_added (NULL, message->conversation_id, message_id, self);
  if (out_message_id != NULL)
    *out_message_id = g_steal_pointer (&message_id);
  return TRUE;
}

PrsConversationList *
prs_service_get_conversations (PrsService *self)
{
  g_return_val_if_fail (PRS_IS_SERVICE (self), NULL);
  PRS_ASSERT_MAIN_THREAD ();

  if (self->store == NULL)
    return NULL;
  /* Made for the first who asks (the window): without a window nothing
   * reads it, and every API message would cost the main thread an update */
  if (self->conversations == NULL)
    self->conversations = prs_conversation_list_new (self->store);
  return self->conversations;
}

/* ---- agent runs ---- */

static void
read_run_limits (PrsService   *self,
                 PrsRunLimits *limits)
{
  prs_run_limits_init (limits);
  limits->max_rounds = prs_settings_get_max_tool_rounds (self->settings);
  limits->history_depth = prs_settings_get_history_depth (self->settings);
  limits->max_tokens = prs_settings_get_max_output_tokens (self->settings);
  limits->temperature = prs_settings_get_temperature (self->settings);
  limits->tool_timeout = prs_settings_get_tool_call_timeout (self->settings);
  limits->callback_timeout = prs_settings_get_callback_timeout (self->settings);
}

/* Runs that start from now on follow the settings; runs under way keep
 * the limits they started with */
static void
apply_run_settings (PrsService *self)
{
  PrsRunLimits limits;

  read_run_limits (self, &limits);
  prs_runner_set_limits (self->runner, &limits);
  prs_providers_set_timeout (self->providers, prs_settings_get_inference_timeout (self->settings));
}

static void
on_run_setting_changed (PrsSettings *settings,
                        const char  *key,
                        PrsService  *self)
{
  apply_run_settings (self);
}

static void
on_run_message_added (PrsRunner  *runner,
                      const char *conversation_id,
                      const char *message_id,
                      PrsService *self)
{
  on_api_message_added (NULL, conversation_id, message_id, self);
}

static void
on_run_message_changed (PrsRunner  *runner,
                        const char *conversation_id,
                        const char *message_id,
                        PrsService *self)
{
  g_signal_emit (self, signals[SIGNAL_MESSAGE_CHANGED], 0, conversation_id, message_id);
}

static void
on_run_approval_needed (PrsRunner  *runner,
                        const char *conversation_id,
                        const char *message_id,
                        const char *tool_name,
                        PrsService *self)
{
  g_signal_emit (self, signals[SIGNAL_APPROVAL_NEEDED], 0, conversation_id, message_id, tool_name);
}

/* ---- MCP servers ---- */

/* No MCP tool takes an n8n tool's name: the names after each discovery */
static void
update_n8n_names (PrsService *self)
{
  g_autoptr(GPtrArray) tools = prs_store_list_tools (self->store, NULL);
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_auto(GStrv) names = NULL;

  for (guint i = 0; tools != NULL && i < tools->len; i++)
    g_strv_builder_add (builder, ((PrsTool *) g_ptr_array_index (tools, i))->name);
  names = g_strv_builder_end (builder);
  prs_mcp_hub_set_n8n_names (self->mcp_hub, (const char * const *) names);
}

static void
on_discovery_finished (PrsDiscovery *discovery,
                       const GError *error,
                       PrsService   *self)
{
  update_n8n_names (self);
  /* Servers added with prosponsive-ctl meanwhile connect now */
  prs_mcp_hub_reload (self->mcp_hub);
}

static void
start_mcp (PrsService *self)
{
  g_autoptr(PrsMcpServers) servers = prs_mcp_servers_new (self->store, self->secrets);

  self->mcp_hub = prs_mcp_hub_new (servers, self->store);
  update_n8n_names (self);
  g_signal_connect_object (self->discovery, "finished", G_CALLBACK (on_discovery_finished), self, 0);
  /* In the background: the keyring is read on a worker thread, servers
   * connect asynchronously */
  prs_mcp_hub_start (self->mcp_hub);
}

PrsMcpHub *
prs_service_get_mcp_hub (PrsService *self)
{
  g_return_val_if_fail (PRS_IS_SERVICE (self), NULL);
  PRS_ASSERT_MAIN_THREAD ();

  return self->mcp_hub;
}

/* A tool's webhook answered 404: discovery drops it now rather than at
 * the next scheduled run (debounced in PrsDiscovery) */
static void
on_workflow_gone (PrsRunner  *runner,
                  const char *tool_name,
                  PrsService *self)
{
  if (prs_discovery_request_rediscovery (self->discovery))
    g_message ("The webhook of the tool “%s” is gone (404): looking for tools again", tool_name);
  else
    g_debug ("The webhook of the tool “%s” is gone (404): a discovery was just asked for", tool_name);
}

static void
start_runner (PrsService *self)
{
  g_autofree char *callback_url = NULL;
  g_autoptr(PrsRunEnv) env = NULL;
  PrsRunLimits limits;

  self->registry = prs_callback_registry_new ();
  callback_url = g_strdup_printf ("https://127.0.0.1:%u/api/ai/agentic-loop-result", self->port);
  read_run_limits (self, &limits);
  env = prs_run_env_new (self->store, self->providers, self->secrets, self->registry, callback_url, &limits);
  prs_run_env_set_mcp_hub (env, self->mcp_hub);
  self->runner = prs_runner_new (env);
  prs_providers_set_timeout (self->providers, prs_settings_get_inference_timeout (self->settings));
  g_signal_connect_object (self->settings, "changed", G_CALLBACK (on_run_setting_changed), self, 0);
  g_signal_connect_object (self->runner, "message-added", G_CALLBACK (on_run_message_added), self, 0);
  g_signal_connect_object (self->runner, "message-changed", G_CALLBACK (on_run_message_changed), self, 0);
  g_signal_connect_object (self->runner, "approval-needed", G_CALLBACK (on_run_approval_needed), self, 0);
  g_signal_connect_object (self->runner, "workflow-gone", G_CALLBACK (on_workflow_gone), self, 0);
}

/* Scheduled prompts (docs/schedules.md): their messages are announced like
 * the API's and the runs' */
static void
start_scheduler (PrsService *self)
{
  g_autoptr(PrsClock) clock = prs_clock_new_from_environment ();

  self->scheduler = prs_scheduler_new (self->store, self->runner, clock);
  g_signal_connect_object (self->scheduler, "message-added", G_CALLBACK (on_api_message_added), self, 0);
  g_signal_connect_object (self->scheduler, "message-changed", G_CALLBACK (on_run_message_changed), self, 0);
  prs_scheduler_start (self->scheduler);
}

PrsScheduler *
prs_service_get_scheduler (PrsService *self)
{
  g_return_val_if_fail (PRS_IS_SERVICE (self), NULL);

  return self->scheduler;
}

PrsRunner *
prs_service_get_runner (PrsService *self)
{
  g_return_val_if_fail (PRS_IS_SERVICE (self), NULL);
  PRS_ASSERT_MAIN_THREAD ();

  return self->runner;
}

static gboolean on_storage_check (gpointer user_data);

/* Follows prs_store_is_storage_full (): the property for the window, and
 * a look every few seconds while it is full. */
static void
update_storage_full (PrsService *self)
{
  gboolean full = prs_store_is_storage_full ();

  if (full && self->storage_check_id == 0 && self->store != NULL)
    self->storage_check_id = g_timeout_add_seconds (STORAGE_CHECK_INTERVAL, on_storage_check, self);
  else if (!full)
    g_clear_handle_id (&self->storage_check_id, g_source_remove);

  if (full != self->storage_full)
    {
      self->storage_full = full;
      if (full)
        g_message ("The disk holding %s is full: new messages cannot be saved until space is freed",
                   self->data_dir);
      else
        g_message ("There is room on the disk again: saving works");
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STORAGE_FULL]);
    }
}

static gboolean
on_storage_full_changed (gpointer user_data)
{
  PrsService *self = user_data;

  if (self->store != NULL)
    update_storage_full (self);
  return G_SOURCE_REMOVE;
}

gboolean
prs_service_check_storage (PrsService *self)
{
  g_autoptr(GFile) folder = NULL;
  g_autoptr(GFileInfo) info = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GDateTime) now = NULL;
  g_autofree char *stamp = NULL;

  g_return_val_if_fail (PRS_IS_SERVICE (self), FALSE);
  PRS_ASSERT_MAIN_THREAD ();

  if (self->store == NULL || !prs_store_is_storage_full ())
    return TRUE;

  folder = g_file_new_for_path (self->data_dir);
  info = g_file_query_filesystem_info (folder, G_FILE_ATTRIBUTE_FILESYSTEM_FREE, NULL, NULL);
  if (info != NULL && g_file_info_has_attribute (info, G_FILE_ATTRIBUTE_FILESYSTEM_FREE) &&
      g_file_info_get_attribute_uint64 (info, G_FILE_ATTRIBUTE_FILESYSTEM_FREE) < STORAGE_FREE_MARGIN)
    return FALSE;

  /* A small real write: it succeeds only if SQLite can write again, and its
   * commit clears the state for every store */
  now = g_date_time_new_now_utc ();
  stamp = g_date_time_format_iso8601 (now);
  prs_store_set_setting (self->store, "storage-checked-at", stamp, &error);
  update_storage_full (self);
  return !self->storage_full;
}

static gboolean
on_storage_check (gpointer user_data)
{
  PrsService *self = user_data;

  prs_service_check_storage (self);
  if (self->storage_full)
    return G_SOURCE_CONTINUE;
  self->storage_check_id = 0;
  return G_SOURCE_REMOVE;
}

void
prs_service_dup_n8n_client_async (PrsService          *self,
                                  const char          *not_configured,
                                  GCancellable        *cancellable,
                                  GAsyncReadyCallback  callback,
                                  gpointer             user_data)
{
  g_return_if_fail (PRS_IS_SERVICE (self));
  g_return_if_fail (not_configured != NULL);
  PRS_ASSERT_MAIN_THREAD ();

  prs_n8n_setup_dup_client_async (self->store, self->secrets, not_configured, cancellable, callback, user_data);
}

PrsN8nClient *
prs_service_dup_n8n_client_finish (PrsService    *self,
                                   GAsyncResult  *result,
                                   GError       **error)
{
  g_return_val_if_fail (PRS_IS_SERVICE (self), NULL);
  PRS_ASSERT_MAIN_THREAD ();

  return prs_n8n_setup_dup_client_finish (result, error);
}

gboolean
prs_service_get_storage_full (PrsService *self)
{
  g_return_val_if_fail (PRS_IS_SERVICE (self), FALSE);
  PRS_ASSERT_MAIN_THREAD ();

  return self->storage_full;
}

static void
on_origins_changed (PrsSettings *settings,
                    const char  *key,
                    PrsService  *self)
{
  prs_api_server_set_origins (self->api_server, prs_settings_get_allowed_origins (settings));
}

/* prosponsive-ctl finds the API of a service started with --port here */
static void
publish_port (PrsService *self)
{
  g_autoptr(GError) local_error = NULL;

  if (self->api_error != NULL)
    return;
  if (prs_api_port_publish (self->data_dir, self->port, &local_error))
    self->port_published = TRUE;
  else
    g_message ("Could not publish the API's port: %s", local_error->message);
}

/* A port another program holds keeps the headless service from starting
 * (it is there for the API); the window starts without the API, so that
 * Preferences can say so and the port can be changed there */
static gboolean
start_api (PrsService  *self,
           GError     **error)
{
  g_autoptr(GError) local_error = NULL;

  if (prs_api_server_start (self->api_server, &local_error))
    return TRUE;
  if (!self->api_optional)
    {
      g_propagate_error (error, g_steal_pointer (&local_error));
      return FALSE;
    }
  g_message ("The local API did not start: %s", local_error->message);
  self->api_error = g_steal_pointer (&local_error);
  return TRUE;
}

void
prs_service_set_api_optional (PrsService *self,
                              gboolean    optional)
{
  g_return_if_fail (PRS_IS_SERVICE (self));
  g_return_if_fail (self->store == NULL);
  PRS_ASSERT_MAIN_THREAD ();

  self->api_optional = optional;
}

void
prs_service_set_windowed (PrsService *self,
                          gboolean    windowed)
{
  g_return_if_fail (PRS_IS_SERVICE (self));
  g_return_if_fail (self->store == NULL);
  PRS_ASSERT_MAIN_THREAD ();

  self->windowed = windowed;
}

void
prs_service_give_way_to_window (PrsService *self)
{
  g_return_if_fail (PRS_IS_SERVICE (self));
  g_return_if_fail (self->api_server != NULL);
  PRS_ASSERT_MAIN_THREAD ();

  prs_api_server_give_way (self->api_server);
  prs_thread_request_short_slice ();
}

const GError *
prs_service_get_api_error (PrsService *self)
{
  g_return_val_if_fail (PRS_IS_SERVICE (self), NULL);
  PRS_ASSERT_MAIN_THREAD ();

  return self->api_error;
}

gboolean
prs_service_open (PrsService  *self,
                  gboolean    *out_outdated,
                  GError     **error)
{
  g_return_val_if_fail (PRS_IS_SERVICE (self), FALSE);
  g_return_val_if_fail (self->lock_fd < 0, FALSE);
  PRS_ASSERT_MAIN_THREAD ();

  if (!prs_paths_ensure_data_dir (self->data_dir, error) ||
      !lock_data_dir (self, error))
    return FALSE;

  prs_store_set_storage_full_handler (g_main_context_get_thread_default (),
                                      on_storage_full_changed, G_OBJECT (self));
  if (out_outdated == NULL)
    self->store = prs_store_new (self->data_dir, error);
  else
    self->store = prs_store_new_unless_outdated (self->data_dir, out_outdated, error);
  return self->store != NULL || (out_outdated != NULL && *out_outdated);
}

gboolean
prs_service_start (PrsService  *self,
                   GError     **error)
{
  g_return_val_if_fail (PRS_IS_SERVICE (self), FALSE);
  PRS_ASSERT_MAIN_THREAD ();

  if (self->lock_fd < 0 && !prs_service_open (self, NULL, error))
    return FALSE;
  /* Opened outdated, then migrated on a worker (docs/storage.md "Migrations") */
  if (self->store == NULL && (self->store = prs_store_new (self->data_dir, error)) == NULL)
    return FALSE;

  self->secrets = prs_secrets_new (self->data_dir);
  if (!prs_secrets_check_file (self->secrets, error))
    return FALSE;
  self->discovery = prs_discovery_new (self->store, self->secrets);
  self->providers = prs_providers_new (self->store, self->secrets);
  start_mcp (self);
  start_runner (self);

  self->api_server = prs_api_server_new (self->data_dir, self->secrets, self->port);
  /* Before the API answers anything: a deletion left undoable is undone */
  _prs_service_recover_deletions (self);
  /* Its notifications arrive through this thread's main loop, which runs
   * only after this returns */
  g_signal_connect_object (self->api_server, "conversation-created",
                           G_CALLBACK (on_api_conversation_created), self, 0);

  /* LAN listening is read once, at start: a change applies on restart */
  prs_api_server_set_lan (self->api_server,
                          prs_settings_get_lan_listening (self->settings),
                          prs_settings_get_allowed_sources (self->settings));
  /* Allowed origins apply at once, also while the API runs */
  prs_api_server_set_origins (self->api_server, prs_settings_get_allowed_origins (self->settings));
  g_signal_connect_object (self->settings, "changed::allowed-origins",
                           G_CALLBACK (on_origins_changed), self, 0);

  prs_api_server_set_runner (self->api_server, self->runner, self->providers, self->registry);
  /* What a crash left names no port; the one listened on is published */
  prs_api_port_withdraw (self->data_dir);
  /* The API thread opens its store and certificate and binds while this
   * one reads the conversations for a window (its first frame waits for
   * both); without a window the list is made only if someone asks */
  prs_api_server_launch (self->api_server);
  if (self->windowed)
    self->conversations = prs_conversation_list_new (self->store);
  if (!start_api (self, error))
    return FALSE;
  publish_port (self);
  /* Scheduled prompts first: those fired before a stop whose run never
   * began start now, before resuming would mark them interrupted */
  start_scheduler (self);
  /* Pending approvals come back; calls that were running are interrupted */
  prs_runner_resume (self->runner);

  /* Discovery runs at startup and then every discovery-interval minutes
   * (15 when the schema is not installed: PrsSettings keeps defaults). */
  g_signal_connect_object (self->settings, "changed::discovery-interval",
                           G_CALLBACK (on_interval_changed), self, 0);
  update_schedule (self);

  return TRUE;
}

void
prs_service_stop (PrsService *self)
{
  g_return_if_fail (PRS_IS_SERVICE (self));
  PRS_ASSERT_MAIN_THREAD ();

  if (self->discovery != NULL)
    prs_discovery_set_schedule (self->discovery, 0);
  if (self->scheduler != NULL)
    prs_scheduler_stop (self->scheduler);
  if (self->port_published)
    prs_api_port_withdraw (self->data_dir);
  self->port_published = FALSE;
  if (self->api_server != NULL)
    prs_api_server_stop (self->api_server);
  /* stdio servers stop with the service */
  if (self->mcp_hub != NULL)
    prs_mcp_hub_stop (self->mcp_hub);
}

const char *
prs_service_get_data_dir (PrsService *self)
{
  g_return_val_if_fail (PRS_IS_SERVICE (self), NULL);
  PRS_ASSERT_MAIN_THREAD ();

  return self->data_dir;
}

guint
prs_service_get_port (PrsService *self)
{
  g_return_val_if_fail (PRS_IS_SERVICE (self), 0);
  PRS_ASSERT_MAIN_THREAD ();

  return self->port;
}

PrsStore *
prs_service_get_store (PrsService *self)
{
  g_return_val_if_fail (PRS_IS_SERVICE (self), NULL);
  PRS_ASSERT_MAIN_THREAD ();

  return self->store;
}

PrsSecrets *
prs_service_get_secrets (PrsService *self)
{
  g_return_val_if_fail (PRS_IS_SERVICE (self), NULL);
  PRS_ASSERT_MAIN_THREAD ();

  return self->secrets;
}

PrsDiscovery *
prs_service_get_discovery (PrsService *self)
{
  g_return_val_if_fail (PRS_IS_SERVICE (self), NULL);
  PRS_ASSERT_MAIN_THREAD ();

  return self->discovery;
}

PrsSettings *
prs_service_get_settings (PrsService *self)
{
  g_return_val_if_fail (PRS_IS_SERVICE (self), NULL);
  PRS_ASSERT_MAIN_THREAD ();

  return self->settings;
}

PrsProviders *
prs_service_get_providers (PrsService *self)
{
  g_return_val_if_fail (PRS_IS_SERVICE (self), NULL);
  PRS_ASSERT_MAIN_THREAD ();

  return self->providers;
}

static void
prs_service_dispose (GObject *object)
{
  PrsService *self = PRS_SERVICE (object);

  prs_service_stop (self);
  prs_store_clear_storage_full_handler (G_OBJECT (self));
  g_clear_handle_id (&self->storage_check_id, g_source_remove);
  g_clear_object (&self->settings);
  g_clear_object (&self->api_server);
  g_clear_object (&self->conversations);
  g_clear_object (&self->discovery);
  g_clear_object (&self->scheduler);
  g_clear_object (&self->runner);
  g_clear_object (&self->mcp_hub);
  g_clear_object (&self->registry);
  g_clear_object (&self->providers);
  g_clear_object (&self->secrets);
  g_clear_object (&self->store);

  G_OBJECT_CLASS (prs_service_parent_class)->dispose (object);
}

static void
prs_service_finalize (GObject *object)
{
  PrsService *self = PRS_SERVICE (object);

  /* Not stopped (an error at start): the port is withdrawn all the same */
  if (self->port_published)
    prs_api_port_withdraw (self->data_dir);
  if (self->lock_fd >= 0)
    close (self->lock_fd);
  g_clear_error (&self->api_error);
  g_free (self->data_dir);

  G_OBJECT_CLASS (prs_service_parent_class)->finalize (object);
}

static void
prs_service_get_property (GObject    *object,
                          guint       prop_id,
                          GValue     *value,
                          GParamSpec *pspec)
{
  PrsService *self = PRS_SERVICE (object);

  switch (prop_id)
    {
    case PROP_STORAGE_FULL:
      g_value_set_boolean (value, self->storage_full);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
prs_service_class_init (PrsServiceClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = prs_service_dispose;
  object_class->finalize = prs_service_finalize;
  object_class->get_property = prs_service_get_property;

  /**
   * PrsService:storage-full:
   *
   * Whether the disk holding the data folder is full: the last write
   * failed for lack of space (the API answers 507 meanwhile). Checked again
   * every few seconds and by prs_service_check_storage (); cleared by the
   * first write that succeeds.
   */
  properties[PROP_STORAGE_FULL] =
    g_param_spec_boolean ("storage-full", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * PrsService::message-added:
   * @conversation_id: the conversation
   * @message_id: the new message
   *
   * A message was stored (through the API or prs_service_add_message ()),
   * after the conversation list was refreshed. Emitted on the main context.
   */
  /**
   * PrsService::message-changed:
   * @conversation_id: the conversation
   * @message_id: a stored message whose status, text or extra data changed
   *
   * An agent run changed a message (streamed text, a tool call's status);
   * views re-read it in place (prs_message_list_message_changed ()).
   */
  signals[SIGNAL_MESSAGE_CHANGED] =
    g_signal_new ("message-changed",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_STRING);

  /**
   * PrsService::approval-needed:
   * @conversation_id: the conversation
   * @message_id: the tool-call message waiting for a decision
   * @tool_name: the tool
   */
  signals[SIGNAL_APPROVAL_NEEDED] =
    g_signal_new ("approval-needed",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 3, G_TYPE_STRING, G_TYPE_STRING, G_TYPE_STRING);

  signals[SIGNAL_MESSAGE_ADDED] =
    g_signal_new ("message-added",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_STRING);
}

static void
prs_service_init (PrsService *self)
{
  self->lock_fd = -1;
}
