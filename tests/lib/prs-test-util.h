/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-test-util.h: helpers every test program shares (tests/lib, no GTK):
 * the scripted AI provider (tests/scripted-provider.py, each provider's wire
 * protocol), a scripted n8n webhook (a SoupServer), what agent runs need,
 * conversations, HTTPS to the local API, free ports and removing a test's
 * folders. */
#pragma once

#include <json-glib/json-glib.h>
#include <libsoup/soup.h>

#include "prs-providers.h"
#include "prs-run-env.h"
#include "prs-runner.h"
#include "prs-secrets.h"
#include "prs-store.h"
#include "prs-tool-call-registry.h"

G_BEGIN_DECLS

/* ---- the scripted provider ---- */

/* tests/scripted-provider.py running a script on a free loopback port */
typedef struct
{
  GSubprocess *process;
  char        *dir;        /* the script and the log */
  char        *log_path;
  guint16      port;
  char        *root;       /* http://127.0.0.1:PORT */
} PrsTestProvider;

/* Starts it with @script: JSON with ' for " (the texts used contain no
 * apostrophes). It runs under the real interpreter (pyenv shims are slow)
 * and dies with the test. */
PrsTestProvider *prs_test_provider_start    (const char      *script);
void             prs_test_provider_stop     (PrsTestProvider *provider);
/* The base URL to configure for @kind ("openai": ROOT/v1); a new string. */
char            *prs_test_provider_base_url (PrsTestProvider *provider,
                                             const char      *kind);
/* Every request it received, as logged (none yet: empty); fails the test
 * if any of them broke the protocol. */
JsonArray       *prs_test_provider_requests (PrsTestProvider *provider);
/* Request @index, which must have come; fails the test if it broke the
 * protocol (the server checks each the way the real API would). */
JsonObject      *prs_test_provider_request  (PrsTestProvider *provider,
                                             guint            index);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrsTestProvider, prs_test_provider_stop)

/* ---- the scripted n8n webhook ---- */

/* Every call answers 200 with @answer, unless @hang holds it back. */
typedef struct
{
  SoupServer *soup;
  guint       port;
  gboolean    only_webhooks; /* anything but /webhook/… answers 404, unrecorded */
  GPtrArray  *bodies;        /* char*, one per call received */
  GPtrArray  *paths;
  gboolean    hang;          /* keep answers back (a long workflow) */
  GPtrArray  *held;          /* SoupServerMessage* kept paused, 500 at stop */
  char       *answer;        /* the JSON every call gets */
  char       *auth;          /* X-Prosponsive-Key of the last call, or NULL */
} PrsTestHook;

/* @only_webhooks: TRUE where a service also sends n8n's API requests (its
 * discovery) to the same URL. */
PrsTestHook *prs_test_hook_start (gboolean     only_webhooks);
void         prs_test_hook_stop  (PrsTestHook *hook);
/* http://127.0.0.1:PORT (the n8n URL setting); a new string */
char        *prs_test_hook_url   (PrsTestHook *hook);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrsTestHook, prs_test_hook_stop)

/* ---- runs ---- */

/* What agent runs need, on a new store in @dir, with the default limits
 * and @callback_url (NULL: none) for tool results: each of @store,
 * @secrets, @providers and @registry that is not NULL gets a reference of
 * its own (the environment holds one too). The test fails if the store
 * cannot be opened. */
PrsRunEnv   *prs_test_run_env_new (const char           *dir,
                                   const char           *callback_url,
                                   PrsStore            **store,
                                   PrsSecrets          **secrets,
                                   PrsProviders        **providers,
                                   PrsCallbackRegistry **registry);
/* Stores a pending inbound message with @prompt (and @context_json, may be
 * NULL) in @conversation_id and starts @runner's agent-inference run for
 * it (@agent_id NULL: the default agent), as the API does; the test fails
 * if either cannot be done. @message_id (may be NULL) gets the message's id. */
PrsRun      *prs_test_start_inference (PrsRunner   *runner,
                                       PrsStore    *store,
                                       const char  *conversation_id,
                                       const char  *agent_id,
                                       const char  *prompt,
                                       const char  *context_json,
                                       char       **message_id);
/* Runs the main context until @run rests; its answer (a JSON object, as
 * the API would send it) and, when @out_status is not NULL, the HTTP
 * status the API would answer with */
JsonObject  *prs_test_wait_rest       (PrsRun      *run,
                                       guint       *out_status);

/* ---- the store ---- */

/* The store tests' fixture: a new temporary folder (named after the test
 * program) and the path a database in it has */
typedef struct
{
  char *dir;
  char *db_path;
} PrsTestStoreDir;

void         prs_test_store_dir_setup      (PrsTestStoreDir *fixture,
                                            gconstpointer    data);
void         prs_test_store_dir_teardown   (PrsTestStoreDir *fixture,
                                            gconstpointer    data);
/* Opens the database at @fixture's db_path (made when missing); the test
 * fails if it cannot */
PrsStore    *prs_test_store_dir_open       (PrsTestStoreDir *fixture);

/* The id of conversation @slug, made if missing; a new string. */
char        *prs_test_resolve_conversation (PrsStore   *store,
                                            const char *slug);
/* Runs @sql (statements, no rows) on @store's own connection, as the app's
 * writes would (its triggers fire); the test fails with SQLite's message */
void         prs_test_store_exec           (PrsStore   *store,
                                            const char *sql);

/* Rows in a database at an older schema version, as that version wrote
 * them: SQL on a connection of its own (the store's functions speak the
 * latest schema). Any version from 2 on. */
char        *prs_test_sql_conversation     (const char *db_path,
                                            const char *slug);
/* The message's id; @seq numbers it in its conversation. */
char        *prs_test_sql_message          (const char *db_path,
                                            const PrsMessageInsert *message,
                                            gint64      seq);
/* A database at @db_path at schema @version (13 or earlier, from 2 on)
 * with @n messages of a few hundred bytes in conversation @slug,
 * alternating user and assistant, written in one transaction and indexed
 * for search by that version's triggers: what a migration of a large
 * history copies. Returns the conversation's id. */
char        *prs_test_sql_old_history      (const char *db_path,
                                            int         version,
                                            const char *slug,
                                            guint       n);
/* @n runs in conversation @conversation_id of a database at schema
 * version 4 to 13, each with a transcript of a question and an answer by
 * a model (what migration 8 made model calls of) and a tool call. */
void         prs_test_sql_old_runs         (const char *db_path,
                                            const char *conversation_id,
                                            guint       n);
/* The first column of the first row of @sql, or NULL. */
char        *prs_test_sql_query            (const char *db_path,
                                            const char *sql);

/* Another program holds the database's write lock (BEGIN IMMEDIATE)
 * for @ms milliseconds from now, then lets go: a thread, returned once the
 * lock is held; join it. */
GThread     *prs_test_sql_hold             (const char *db_path,
                                            guint       ms);

/* Another process (python3's sqlite3) holds the database's write lock
 * (BEGIN IMMEDIATE), returned once it does; it lets go when
 * prs_test_sql_release_process () is called, or after @ms milliseconds
 * (0: only then). */
GSubprocess *prs_test_sql_hold_process     (const char  *db_path,
                                            guint        ms);
/* Lets go (if @holder still holds the lock), waits for the process to
 * end, checks that it committed, and drops @holder. */
void         prs_test_sql_release_process  (GSubprocess *holder);

/* ---- HTTPS, ports, folders ---- */

/* Sends @msg on a new session, accepting any certificate (the local API's
 * is self-signed), and runs the main context until the answer came: the
 * test fails if that takes more than @timeout_s seconds (0: no limit).
 * Returns the HTTP status; *@out_body the body (NULL on an error). */
guint        prs_test_https_send    (SoupMessage  *msg,
                                     guint         timeout_s,
                                     GBytes      **out_body,
                                     GError      **error);
/* A TCP socket bound to a free loopback port (IPv4); *@out_port the port. */
GSocket     *prs_test_bind_loopback (guint        *out_port);
/* A loopback TCP port nobody listens on now (bound a moment, closed again). */
guint        prs_test_free_port     (void);
/* Removes @path and, if it is a folder, everything under it (symbolic links
 * are removed, never followed). */
void         prs_test_remove_tree   (const char   *path);
/* The calling thread's time slice in ns (/proc/thread-self/sched, Linux ≥
 * 6.12), or 0 where the kernel keeps no slice per thread. */
guint64      prs_test_thread_slice_ns (void);

G_END_DECLS
