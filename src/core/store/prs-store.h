/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-store.h: the SQLite store. All SQL of the application lives in
 * prs-store.c (and its numbered migrations); one PrsStore per thread. */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "prs-agent.h"
#include "prs-conversation.h"
#include "prs-tool.h"

G_BEGIN_DECLS

#define PRS_TYPE_STORE (prs_store_get_type ())
G_DECLARE_FINAL_TYPE (PrsStore, prs_store, PRS, STORE, GObject)

/* The schema version this build migrates to. */
#define PRS_STORE_SCHEMA_VERSION prs_store_get_latest_version ()

/* SQLite's settings for the whole process: called by a program's main ()
 * before its first connection opens (SQLite ignores them after). */
void        prs_store_configure_library       (void);

/* Opens (creating if needed) DATA_DIR/prosponsive.db: WAL, synchronous=FULL,
 * foreign keys on, busy timeout, then runs every pending migration. */
PrsStore   *prs_store_new                     (const char  *data_dir,
                                               GError     **error);
/* How far a migration has come: from 0.0, before its first step, up to
 * 1.0, once its last step committed; it only grows. */
typedef void (*PrsStoreProgressFunc) (double   fraction,
                                      gpointer user_data);
/* prs_store_new (), telling @progress how far a migration has come, on
 * this thread; it is called only when a database an older version wrote
 * is migrated, not for a new one (prosponsive-ctl says that it updates
 * the database). */
PrsStore   *prs_store_new_with_progress       (const char            *data_dir,
                                               PrsStoreProgressFunc   progress,
                                               gpointer               user_data,
                                               GError               **error);
/* Whether @data_dir holds a database, by name (nothing is opened or
 * made): when DATA_DIR/prosponsive.db is missing (or DATA_DIR is), FALSE
 * with PRS_ERROR_NOT_FOUND naming the folder. */
gboolean    prs_store_check_existing          (const char            *data_dir,
                                               GError               **error);
/* prs_store_new_with_progress () for a data folder that already holds a
 * database: when DATA_DIR/prosponsive.db is missing (or DATA_DIR is), NULL
 * with PRS_ERROR_NOT_FOUND, and nothing is made, neither the folder nor
 * the file. For readers that a mistyped folder must not answer with an
 * empty list (prosponsive-ctl, docs/ctl.md). */
PrsStore   *prs_store_new_existing            (const char            *data_dir,
                                               PrsStoreProgressFunc   progress,
                                               gpointer               user_data,
                                               GError               **error);
/* prs_store_new (), unless an older version of Prosponsive wrote the
 * database (its schema version is above 0 and below this build's) and a
 * step it needs copies or scans rows: then NULL, with *@out_outdated TRUE
 * and no error, the database untouched and closed, for
 * prs_store_migrate_async (). Steps that change the schema alone are run
 * at once. Reading the version is all it costs an up-to-date database
 * (docs/storage.md "Migrations"). */
PrsStore   *prs_store_new_unless_outdated     (const char  *data_dir,
                                               gboolean    *out_outdated,
                                               GError     **error);
/* Migrates the database of @data_dir to this build's schema on a worker
 * thread, with a connection of its own that is closed before @callback
 * runs. @progress hears how far it has come on the thread-default main
 * context of the caller, @progress_notify frees @progress_data after its
 * last call. Cancelling stops it within the running step, whose
 * transaction is undone (the steps before it stay done): then
 * G_IO_ERROR_CANCELLED. Callable from any thread. */
void        prs_store_migrate_async           (const char            *data_dir,
                                               PrsStoreProgressFunc   progress,
                                               gpointer               progress_data,
                                               GDestroyNotify         progress_notify,
                                               GCancellable          *cancellable,
                                               GAsyncReadyCallback    callback,
                                               gpointer               user_data);
gboolean    prs_store_migrate_finish          (GAsyncResult          *result,
                                               GError               **error);
/* Same, for an explicit database file (tests). */
PrsStore   *prs_store_new_for_path            (const char  *db_path,
                                               GError     **error);
/* Opens without migrating past @version (migration tests only). */
PrsStore   *prs_store_new_at_version          (const char  *db_path,
                                               int          version,
                                               GError     **error);

/* Writes a consistent copy of the database to @dest_path (SQLite's online
 * backup: others may keep reading and writing meanwhile) as a new 0600
 * file renamed into place when complete and checked. Refuses a symbolic
 * link at @dest_path and the live database's own files. */
gboolean    prs_store_backup                  (PrsStore    *self,
                                               const char  *dest_path,
                                               GError     **error);

int         prs_store_get_latest_version      (void);
int         prs_store_get_schema_version      (PrsStore    *self);
const char *prs_store_get_path                (PrsStore    *self);

/* Several writes that belong together (a run's reply and its state) as one
 * transaction: between prs_store_batch_begin () and prs_store_batch_end ()
 * each write is a savepoint of the batch (a failed one undoes itself
 * alone) and nothing is committed before the end; batches nest. With
 * PRS_STORE_SYNC_LATER the batch is committed without waiting for the disk
 * (synchronous=NORMAL for it): for what nobody has been told is done; the
 * next synced commit on the database takes it to the disk with it, and
 * after a power cut the database is as it was at some commit (docs/storage.md). */
typedef enum
{
  PRS_STORE_SYNC_NOW,
  PRS_STORE_SYNC_LATER,
} PrsStoreSync;

gboolean    prs_store_batch_begin             (PrsStore     *self,
                                               PrsStoreSync  sync,
                                               GError      **error);
gboolean    prs_store_batch_end               (PrsStore     *self,
                                               GError      **error);
/* Ends the outermost batch without committing any of its writes: for
 * writes that are worth nothing unless all of them are stored */
void        prs_store_batch_abandon           (PrsStore     *self);

/* Each commit is numbered, in the order the database got them from every
 * store of this process on the same file; prs_store_get_last_commit () is
 * the number of this store's last successful one (0: none yet).
 * prs_store_sync () returns once commit @commit (PRS_STORE_ALL_COMMITS: every
 * one made so far, and any that another thread is making, whose changes this
 * store may see already) is on the disk with every commit before it: at once when
 * a synced commit since took it there, or after syncing the WAL itself;
 * @out_synced says whether it had to. For an answer that follows a
 * PRS_STORE_SYNC_LATER commit (docs/storage.md). */
#define PRS_STORE_ALL_COMMITS G_MAXUINT64

guint64     prs_store_get_last_commit         (PrsStore     *self);
gboolean    prs_store_sync                    (PrsStore     *self,
                                               guint64       commit,
                                               gboolean     *out_synced,
                                               GError      **error);

/* SQLite's PRAGMA data_version of this connection: it changes when another
 * connection (another program, another thread) commits; -1 when it could
 * not be read. */
gint64      prs_store_get_data_version        (PrsStore     *self);

/* Whether the last write of any store in this process failed because the
 * disk is full (PRS_ERROR_STORE_FULL); a later successful commit clears
 * it. @func runs on @context (in an idle source holding a reference to
 * @data) after each change; one handler per process, removed with the same
 * @data. */
gboolean    prs_store_is_storage_full         (void);
void        prs_store_set_storage_full_handler (GMainContext *context,
                                               GSourceFunc   func,
                                               GObject      *data);
void        prs_store_clear_storage_full_handler (GObject    *data);

/* @real_us (g_get_real_time ()) as the store writes times: ISO 8601 UTC
 * with milliseconds */
char       *prs_store_time_iso8601            (gint64       real_us);

/* Settings: small key → value strings (the n8n URL, …). Never secrets.
 * The keys: */
/* The n8n instance's base URL, as prs_n8n_client_normalize_base_url writes it. */
#define PRS_SETTING_N8N_URL             "n8n-url"
/* The id n8n gave the "Prosponsive API" credential Prosponsive created. */
#define PRS_SETTING_N8N_CREDENTIAL_ID   "n8n-api-credential-id"
/* A SHA-256 of the token that credential holds, so that a rotation is
 * noticed (n8n never gives a credential's data back). */
#define PRS_SETTING_N8N_CREDENTIAL_TOKEN "n8n-api-credential-token-sha256"
/* The header name of the n8n Header Auth sent to tool webhooks; its value
 * is the secret PRS_SECRET_WEBHOOK_AUTH */
#define PRS_SETTING_WEBHOOK_AUTH_HEADER "n8n-webhook-auth-header"
/* The kind of the last discovery's failure (PrsDiscoveryFailure by name;
 * absent after a success), written with discovery_state */
#define PRS_SETTING_DISCOVERY_FAILURE   "n8n-discovery-failure"

char       *prs_store_dup_setting             (PrsStore    *self,
                                               const char  *key);
gboolean    prs_store_set_setting             (PrsStore    *self,
                                               const char  *key,
                                               const char  *value,    /* NULL deletes */
                                               GError     **error);

/* One workflow's checklist as discovery stores it: the columns the Tools
 * page reads, and the whole Workflow Checklist object ({workflowId,
 * workflowName, discoverable, toolName|null, checks:[{id,status,message}]})
 * as JSON text. The strings are borrowed. */
typedef struct
{
  const char *workflow_id;     /* NULL: the whole set is refused */
  const char *workflow_name;
  const char *tool_name;       /* NULL when not discoverable */
  gboolean    discoverable;
  const char *json;
} PrsChecklistInsert;

/* Discovery results. @tools are PrsTool*; @checklists are
 * PrsChecklistInsert (may be NULL). Both sets are replaced in one BEGIN
 * IMMEDIATE transaction, and the attempt is recorded as a success. */
gboolean    prs_store_save_discovery          (PrsStore    *self,
                                               GPtrArray   *tools,
                                               GArray      *checklists,
                                               gint64       when,
                                               GError     **error);
/* What kind of failure the last discovery was, kept beside its message so
 * that each place that shows it can give the one fix that fits
 * (docs/storage.md "Settings") */
typedef enum
{
  PRS_DISCOVERY_FAILURE_OTHER,       /* none of these, or no failure */
  PRS_DISCOVERY_FAILURE_NOT_SET_UP,  /* no n8n URL */
  PRS_DISCOVERY_FAILURE_NO_KEY,      /* no n8n API key stored */
  PRS_DISCOVERY_FAILURE_KEY_REFUSED, /* n8n answered 401 or 403 */
  PRS_DISCOVERY_FAILURE_UNREACHABLE, /* no connection, TLS, DNS, no answer in time */
  PRS_DISCOVERY_FAILURE_BAD_ANSWER,  /* n8n answered what Prosponsive cannot read */
} PrsDiscoveryFailure;

/* Records a failed discovery and its @kind; the stored tools stay as they
 * are. */
gboolean    prs_store_record_discovery_failure (PrsStore   *self,
                                               PrsDiscoveryFailure kind,
                                               const char  *message,
                                               gint64       when,
                                               GError     **error);
/* PrsTool*, ordered by name, with discovered_at set. */
GPtrArray  *prs_store_list_tools              (PrsStore    *self,
                                               GError     **error);
PrsTool    *prs_store_lookup_tool             (PrsStore    *self,
                                               const char  *name,
                                               GError     **error);
JsonArray  *prs_store_list_workflow_checks    (PrsStore    *self,
                                               GError     **error);
/* Any out argument may be NULL. Times are unix seconds, 0 for never. */
void        prs_store_get_discovery_status    (PrsStore    *self,
                                               gint64      *last_attempt,
                                               gint64      *last_success,
                                               char       **last_error);
/* The kind of the last discovery's failure: OTHER after a success. */
PrsDiscoveryFailure prs_store_get_discovery_failure (PrsStore *self);

/* ---- Conversations and messages (docs/conversations.md, docs/api.md) ---- */

/* Finds the conversation whose slug equals @slug exactly, or creates it (title
 * = slug, a new UUID id) in one BEGIN IMMEDIATE transaction: idempotent, also
 * when several threads or processes call it at once. */
gboolean    prs_store_resolve_conversation    (PrsStore    *self,
                                               const char  *slug,
                                               char       **out_id,
                                               gboolean    *out_created,
                                               GError     **error);
/* Only finds: *@out_id is the id of the conversation named @slug, or NULL
 * when there is none (FALSE only when the store fails). */
gboolean    prs_store_lookup_conversation_slug (PrsStore    *self,
                                               const char  *slug,
                                               char       **out_id,
                                               GError     **error);
/* NULL-safe lookups; FALSE / NULL when there is no such conversation. */
gboolean    prs_store_has_conversation        (PrsStore    *self,
                                               const char  *conversation_id);
/* [{id, slug, title, messageCount, unreadCount, defaultAgent, createdAt,
 *   updatedAt, pinned, archived}]: pinned first, archived last, else by
 * updatedAt, newest first. Times are ISO 8601 UTC. Deleted conversations
 * (below) are in no answer of the store but the functions that restore
 * or purge them. */
JsonArray  *prs_store_list_conversations      (PrsStore    *self,
                                               GError     **error);
/* One element of prs_store_list_conversations (), or NULL: with @error set
 * when the store failed, without when there is no such conversation. */
JsonObject *prs_store_get_conversation        (PrsStore    *self,
                                               const char  *conversation_id,
                                               GError     **error);
typedef void (*PrsConversationFunc)            (const PrsConversationFields *fields,
                                               gpointer                     user_data);
/* The rows of prs_store_list_conversations () (or only @conversation_id's,
 * if it is not NULL and not deleted), in its order, each handed to @func;
 * FALSE with @error set when the store failed. */
gboolean    prs_store_read_conversations      (PrsStore             *self,
                                               const char           *conversation_id,
                                               PrsConversationFunc   func,
                                               gpointer              user_data,
                                               GError              **error);
gboolean    prs_store_rename_conversation     (PrsStore    *self,
                                               const char  *conversation_id,
                                               const char  *title,
                                               GError     **error);
/* NULL clears it. */
gboolean    prs_store_set_conversation_default_agent (PrsStore    *self,
                                               const char  *conversation_id,
                                               const char  *agent_id,
                                               GError     **error);
/* Sets the default agent only when the conversation has none yet (the
 * first inbound run, resolve with an agentId): *@out_adopted says whether
 * it did. */
gboolean    prs_store_adopt_conversation_agent (PrsStore    *self,
                                               const char  *conversation_id,
                                               const char  *agent_id,
                                               gboolean    *out_adopted,
                                               GError     **error);
/* Sets the unread count back to 0 (the conversation was shown). */
gboolean    prs_store_mark_conversation_read  (PrsStore    *self,
                                               const char  *conversation_id,
                                               GError     **error);

/* ---- Drafts (docs/conversations.md; prs-store-drafts.c) ---- */

/* The text written in @conversation_id's composer and not sent, or NULL. */
char       *prs_store_dup_draft               (PrsStore    *self,
                                               const char  *conversation_id);
/* Keeps @text as @conversation_id's draft; NULL or "" forgets it. A
 * person's message (kind "user") forgets it in its own transaction. */
gboolean    prs_store_set_draft               (PrsStore    *self,
                                               const char  *conversation_id,
                                               const char  *text,
                                               GError     **error);
/* prs_store_set_draft () that does not wait while another program holds
 * the database: PRS_ERROR_STORE_BUSY at once, where every other write
 * waits up to five seconds first. For the composer, which saves every
 * second while a person types and tries again later. */
gboolean    prs_store_try_set_draft           (PrsStore    *self,
                                               const char  *conversation_id,
                                               const char  *text,
                                               GError     **error);

/* ---- Keeping conversations in order (prs-store-conversations.c) ---- */

/* Pinning unarchives; archiving unpins. NOT_FOUND for no such conversation. */
gboolean    prs_store_set_conversation_pinned (PrsStore    *self,
                                               const char  *conversation_id,
                                               gboolean     pinned,
                                               GError     **error);
gboolean    prs_store_set_conversation_archived (PrsStore  *self,
                                               const char  *conversation_id,
                                               gboolean     archived,
                                               GError     **error);
/* Deletes the conversation now, with its messages, search entries, runs,
 * tool calls and context fields (ON DELETE CASCADE): prosponsive-ctl. */
gboolean    prs_store_delete_conversation     (PrsStore    *self,
                                               const char  *conversation_id,
                                               GError     **error);
/* A deletion that can be undone, in steps (each one transaction): marked
 * (gone for every reader, every row kept), then confirmed once Undo is no
 * longer offered, then purged. */
gboolean    prs_store_mark_conversation_deleted (PrsStore  *self,
                                               const char  *conversation_id,
                                               GError     **error);
/* Undo: the marked conversation is back. When a workflow resolved its slug
 * meanwhile, the conversation that started is merged into it (messages
 * numbered on after its own) and *@out_merged_id (may be NULL) names it. */
gboolean    prs_store_restore_conversation    (PrsStore    *self,
                                               const char  *conversation_id,
                                               char       **out_merged_id,
                                               GError     **error);
gboolean    prs_store_confirm_conversation_deletion (PrsStore *self,
                                               const char  *conversation_id,
                                               GError     **error);
/* Deletes every confirmed conversation (as prs_store_delete_conversation);
 * how many, or -1. */
gint        prs_store_purge_deleted_conversations (PrsStore *self,
                                               GError     **error);
/* At start: marks that were never confirmed (Prosponsive stopped while
 * Undo was offered) are undone; the ids restored, or NULL with @error. */
GPtrArray  *prs_store_recover_deletions       (PrsStore    *self,
                                               GError     **error);

/* ---- Search (prs-store-search.c) ---- */

/* Around each match of a hit's snippet */
#define PRS_SEARCH_MARK_START "\002"
#define PRS_SEARCH_MARK_END   "\003"

typedef struct
{
  char   *conversation_id;
  char   *conversation_slug;
  char   *conversation_title;
  char   *message_id;
  gint64  seq;
  char   *kind;
  char   *created_at;
  char   *snippet;      /* the best part of the message, matches marked */
  double  score;        /* bm25: lower is better */
} PrsSearchHit;

void        prs_search_hit_free               (PrsSearchHit *hit);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrsSearchHit, prs_search_hit_free)

/* The messages of conversations not deleted that match @text (FTS5 syntax
 * when it parses, else plain words), best first (newest first when a word
 * is found as a part of the text: Chinese, Japanese, Korean, emoji), at most @limit
 * PrsSearchHit*. @cancellable stops a long search (G_IO_ERROR_CANCELLED).
 * Any thread, with that thread's store. */
GPtrArray  *prs_store_search                  (PrsStore      *self,
                                               const char    *text,
                                               guint          limit,
                                               GCancellable  *cancellable,
                                               GError       **error);
/* @text as plain words for FTS5: each quoted, the last a prefix unless
 * white space follows it; "" when no word is left. */
char       *prs_search_plain_query            (const char    *text);

typedef struct
{
  glong start;   /* characters */
  glong end;
} PrsSearchRange;

/* A snippet as plain text (white space folded) and where its matches are
 * (PrsSearchRange, in characters); @out_ranges may be NULL. */
char       *prs_search_snippet_to_text        (const char    *snippet,
                                               GArray       **out_ranges);
/* The same as Pango markup: the text escaped, the matches in <b>. */
char       *prs_search_snippet_to_markup      (const char    *snippet);

/* ---- Export (prs-store-export.c) ---- */

typedef enum
{
  PRS_EXPORT_MARKDOWN,   /* for people: headings, tables, sections, the Request Context as JSON */
  PRS_EXPORT_JSON,       /* for programs: every column of every row the conversation owns */
} PrsExportFormat;

/* Writes the conversation (one snapshot, a page of messages at a time) to
 * @out. NOT_FOUND for no such conversation. */
gboolean    prs_store_export_conversation     (PrsStore         *self,
                                               const char       *conversation_id,
                                               PrsExportFormat   format,
                                               GOutputStream    *out,
                                               GCancellable     *cancellable,
                                               GError          **error);
/* The same into the file @path, whole or not at all (prs-atomic-file.h:
 * a new private file renamed over it; never through a link). */
gboolean    prs_store_export_conversation_to_file (PrsStore     *self,
                                               const char       *conversation_id,
                                               PrsExportFormat   format,
                                               const char       *path,
                                               GCancellable     *cancellable,
                                               GError          **error);

typedef struct
{
  const char *conversation_id;
  const char *kind;            /* "user", "assistant", "inbound", "tool-call", "tool-result", "notice" */
  const char *content;         /* the text; may be NULL */
  const char *status;          /* e.g. "pending", "completed", "failed"; may be NULL */
  const char *agent_id;        /* may be NULL */
  const char *context_json;    /* the Request Context, serialized; may be NULL */
  const char *execution_json;  /* {workflowId, executionId}, serialized; may be NULL */
  const char *dedup_key;       /* duplicate detection key (docs/api.md); may be NULL, unique when set */
  const char *extra_json;      /* kind-specific data (provider, model, usage, tool call); may be NULL */
  /* TRUE when every *_json text above was written by prs_json_to_string ()
   * from a node: valid by construction, so the store does not parse it
   * again (on an inference call's path, each check cost as much as the
   * rest of the insert's C code). Text from anywhere else stays checked. */
  gboolean    json_from_writer;
  /* Its id, made by the caller with g_uuid_string_random () (an API call
   * names its message before the thread that stores it has it); NULL: a
   * new one */
  const char *id;
} PrsMessageInsert;

/* Inserts one message (a new UUID id unless it has one, the next sequence
 * number of its conversation) and bumps the conversation's updatedAt, unread count and
 * message count, in one BEGIN IMMEDIATE transaction that is committed (with
 * synchronous=FULL) before it returns. A dedup_key that already exists fails
 * with PRS_ERROR_INVALID_INPUT and changes nothing. */
gboolean    prs_store_insert_message          (PrsStore              *self,
                                               const PrsMessageInsert *message,
                                               char                 **out_message_id,
                                               gint64                *out_seq,
                                               GError               **error);
/* The message id that carries @dedup_key, or NULL. */
char       *prs_store_find_message_by_dedup_key (PrsStore  *self,
                                               const char  *dedup_key);
/* extra.reason of an inbound message whose run never began because
 * Prosponsive stopped first; a retried request with its key answers it. */
#define PRS_INBOUND_REASON_INTERRUPTED "interrupted"
/* At start: every inbound message still "pending" with no run becomes
 * "failed" with extra {reason: interrupted, httpStatus: 503, answer, error}.
 * Returns how many, or -1 with @error. */
gint        prs_store_interrupt_orphan_inbound (PrsStore    *self,
                                               const char  *answer_json,
                                               const char  *error_text,
                                               GError     **error);
gboolean    prs_store_update_message          (PrsStore    *self,
                                               const char  *message_id,
                                               const char  *status,      /* NULL keeps it */
                                               const char  *content,     /* NULL keeps it */
                                               const char  *extra_json,  /* NULL keeps it */
                                               GError     **error);
/* One message as {id, conversationId, seq, kind, content, status, agentId,
 * context, execution, extra, createdAt, supersededAt} (context, execution
 * and extra as JSON values, null when absent), or NULL. */
JsonNode   *prs_store_get_message             (PrsStore    *self,
                                               const char  *message_id,
                                               GError     **error);
/* Messages of a conversation in order, with seq > @after_seq, at most @limit. */
JsonArray  *prs_store_list_messages           (PrsStore    *self,
                                               const char  *conversation_id,
                                               gint64       after_seq,
                                               guint        limit,
                                               GError     **error);

/* Regenerate: every message after the conversation's last turn — its
 * answer, tool calls, results, notices — is marked superseded (kept, shown
 * folded, out of every history a model is given), in one transaction. The
 * turn must be the person's own message (PRS_ERROR_INVALID_INPUT otherwise,
 * or when it has no answer yet); *@out_trigger_id names it and
 * *@out_superseded (char*) the messages marked. Either may be NULL. */
gboolean    prs_store_supersede_last_answer   (PrsStore    *self,
                                               const char  *conversation_id,
                                               char       **out_trigger_id,
                                               GPtrArray  **out_superseded,
                                               GError     **error);
/* Edit and Resend: the last turn's message (the person's own) and all
 * after it are superseded and @text is stored as a new user message, with
 * @agent_id or else the old message's agent, in one transaction. */
gboolean    prs_store_replace_last_user_message (PrsStore  *self,
                                               const char  *conversation_id,
                                               const char  *text,
                                               const char  *agent_id,
                                               char       **out_message_id,
                                               GPtrArray  **out_superseded,
                                               GError     **error);

/* prs-store-messages.c: paging a conversation for the window. Any out
 * argument may be NULL; min/max are 0 when there are no messages. */
gboolean    prs_store_count_messages          (PrsStore    *self,
                                               const char  *conversation_id,
                                               guint       *out_count,
                                               gint64      *out_min_seq,
                                               gint64      *out_max_seq,
                                               GError     **error);
/* Where a message is: its conversation and its position there (0-based,
 * as prs_store_list_messages_at counts). NOT_FOUND for no such message. */
gboolean    prs_store_locate_message          (PrsStore    *self,
                                               const char  *message_id,
                                               char       **out_conversation_id,
                                               guint       *out_position,
                                               GError     **error);
/* Messages of a conversation in order, starting at the @offset-th (0-based),
 * at most @limit. */
JsonArray  *prs_store_list_messages_at        (PrsStore    *self,
                                               const char  *conversation_id,
                                               guint        offset,
                                               guint        limit,
                                               GError     **error);

/* ---- Agents (docs/agents.md; prs-store-agents.c) ---- */

/* PrsAgent*, the default agent first, then by name. */
GPtrArray  *prs_store_list_agents             (PrsStore    *self,
                                               GError     **error);
/* PRS_ERROR_NOT_FOUND when there is no such agent. */
PrsAgent   *prs_store_lookup_agent            (PrsStore    *self,
                                               const char  *id,
                                               GError     **error);
/* Inserts or updates @agent (validated first). With @previous_id set and
 * different from agent->id, the agent is renamed: the new id must be free,
 * the old row goes and conversations follow; the default agent keeps its id. */
gboolean    prs_store_save_agent              (PrsStore       *self,
                                               const PrsAgent *agent,
                                               const char     *previous_id,
                                               GError        **error);
/* Saves an imported @agent: a new id is inserted; an id that exists fails
 * with PRS_ERROR_EXISTS unless @replace, in one transaction (so nothing
 * can appear between the check and the write). Replacing keeps the id,
 * so conversations that use the agent keep it; the default agent is
 * replaced in place like any other and can still never be deleted.
 * *@out_replaced (may be NULL) says whether one was replaced. */
gboolean    prs_store_import_agent            (PrsStore       *self,
                                               const PrsAgent *agent,
                                               gboolean        replace,
                                               gboolean       *out_replaced,
                                               GError        **error);
/* The default agent cannot be deleted (PRS_ERROR_INVALID_INPUT); the
 * conversations that used the agent fall back to the default. */
gboolean    prs_store_delete_agent            (PrsStore    *self,
                                               const char  *id,
                                               GError     **error);
/* Saves a copy named "NAME (copy)" under the first free id of ID-copy,
 * ID-copy-2, …; returns that id. */
char       *prs_store_duplicate_agent         (PrsStore    *self,
                                               const char  *id,
                                               GError     **error);

/* ---- Request Context fields (docs/conversations.md; prs-store-context.c) ---- */

/* Adds @fields (PrsContextField*) to the conversation's fields: new paths
 * are inserted; known ones get the latest type and sample (a null never
 * hides an earlier type), origin, last_seen, and seen_count + 1. */
gboolean    prs_store_record_context_fields   (PrsStore    *self,
                                               const char  *conversation_id,
                                               const char  *message_id,
                                               const char  *workflow_id,
                                               GPtrArray   *fields,
                                               GError     **error);
/* What prs_store_insert_message() runs after its commit for a message with
 * context: discovery, then recording, the workflow id taken from
 * execution.workflowId. Failures are logged, never returned: the message is
 * already stored. */
void        prs_store_record_message_context  (PrsStore    *self,
                                               const char  *conversation_id,
                                               const char  *message_id,
                                               const char  *context_json,
                                               const char  *execution_json);
/* [{path, type, sample, seenCount, lastSeen, origins: [{conversationId,
 *   conversationTitle, workflowId, messageId}]}] ordered by path; one entry
 * per path, type and sample from where it was seen last. @conversation_id
 * NULL gives the union across conversations. */
JsonArray  *prs_store_list_context_fields     (PrsStore    *self,
                                               const char  *conversation_id,
                                               GError     **error);

/* ---- AI providers (docs/providers.md; prs-store-providers.c) ---- */

/* One configured provider. Keys are never here: they live in PrsSecrets
 * (prs-providers.h). Lower priority numbers are tried first. */
typedef struct
{
  char     *id;
  char     *name;
  char     *kind;        /* "openai", "ollama", "anthropic", "gemini" */
  char     *base_url;    /* NULL: the kind's default */
  char     *model;
  gboolean  enabled;
  int       priority;
  char     *created_at;  /* ISO 8601 UTC */
} PrsProviderRow;

void            prs_provider_row_free         (PrsProviderRow *row);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrsProviderRow, prs_provider_row_free)

/* PrsProviderRow*, by priority, then by creation. */
GPtrArray      *prs_store_list_providers      (PrsStore    *self,
                                               GError     **error);
/* By id, or else by name; NULL (without an error) when there is none. */
PrsProviderRow *prs_store_lookup_provider     (PrsStore    *self,
                                               const char  *id_or_name,
                                               GError     **error);
/* Inserts @row (a new UUID id unless row->id is set; created_at now);
 * a name in use fails with PRS_ERROR_INVALID_INPUT. A @row->priority < 0
 * places it after every other provider. */
gboolean        prs_store_add_provider        (PrsStore    *self,
                                               const PrsProviderRow *row,
                                               char       **out_id,
                                               GError     **error);
/* Updates name, kind, base URL, model, enabled and priority of row->id. */
gboolean        prs_store_update_provider     (PrsStore    *self,
                                               const PrsProviderRow *row,
                                               GError     **error);
/* PRS_ERROR_NOT_FOUND when there is no such provider. */
gboolean        prs_store_remove_provider     (PrsStore    *self,
                                               const char  *id,
                                               GError     **error);

/* ---- MCP servers (prs-store-mcp.c) ---- */

/* One MCP server the user added. Secrets are never here: the values of
 * @header_names and @secret_env live in the keyring (prs-mcp-servers.h). */
typedef struct
{
  char      *id;
  char      *name;
  char      *transport;     /* "stdio" or "http" */
  char      *command;       /* stdio */
  char     **args;          /* stdio; never NULL once read */
  char     **env;           /* stdio: "NAME=value", not secret; never NULL once read */
  char     **secret_env;    /* stdio: names of variables whose values are secret; never NULL once read */
  char      *url;           /* http */
  char     **header_names;  /* http: headers sent, values secret; never NULL once read */
  gboolean   enabled;
  gboolean   shared;        /* offered to other MCP clients by `mcp serve` */
  char      *created_at;
} PrsMcpServerRow;

PrsMcpServerRow *prs_mcp_server_row_copy      (const PrsMcpServerRow *row);
void             prs_mcp_server_row_free      (PrsMcpServerRow *row);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrsMcpServerRow, prs_mcp_server_row_free)

/* PrsMcpServerRow*, by name. */
GPtrArray       *prs_store_list_mcp_servers   (PrsStore    *self,
                                               GError     **error);
/* By id, or else by name; NULL (without an error) when there is none. */
PrsMcpServerRow *prs_store_lookup_mcp_server  (PrsStore    *self,
                                               const char  *id_or_name,
                                               GError     **error);
/* Inserts @row (a new UUID id unless row->id is set; created_at now); a
 * name in use fails with PRS_ERROR_INVALID_INPUT. */
gboolean         prs_store_add_mcp_server     (PrsStore               *self,
                                               const PrsMcpServerRow  *row,
                                               char                  **out_id,
                                               GError                **error);
/* Replaces every column of row->id but created_at. */
gboolean         prs_store_update_mcp_server  (PrsStore               *self,
                                               const PrsMcpServerRow  *row,
                                               GError                **error);
/* PRS_ERROR_NOT_FOUND when there is no such server. */
gboolean         prs_store_remove_mcp_server  (PrsStore    *self,
                                               const char  *id,
                                               GError     **error);
/* The tools a server listed last, kept so that they can be offered and
 * listed while it is not connected: @tools holds prs_mcp_tool_to_json ()
 * objects (name and exposedName required), which replace the server's in
 * one transaction, with @when (unix seconds) as the time of listing. A
 * server that no longer exists keeps none. */
gboolean         prs_store_save_mcp_tools     (PrsStore    *self,
                                               const char  *server_id,
                                               JsonArray   *tools,
                                               gint64       when,
                                               GError     **error);
/* [{serverId, serverName, enabled, shared, listedAt, tool}] by server name,
 * then in the server's order; @server_id NULL: every server's. */
JsonArray       *prs_store_list_mcp_tools     (PrsStore    *self,
                                               const char  *server_id,
                                               GError     **error);

/* ---- Agent runs, tool calls, approval rules (docs/runs.md; prs-store-runs.c) ---- */

/* One agent run (prs-run.h). The transcript is what the model has seen and
 * said in this run (history, prompt, assistant turns, tool results) as a JSON
 * array, so a run can go on after a restart. */
typedef struct
{
  char   *id;
  char   *conversation_id;
  char   *agent_id;
  char   *origin;              /* "chat", "inference", "agent-inference" */
  char   *trigger_message_id;  /* the user or inbound message; may be NULL */
  char   *status;              /* running, awaiting_approval, completed, failed, cancelled */
  char   *context_json;        /* may be NULL */
  char   *execution_json;      /* may be NULL */
  char   *options_json;        /* {temperature, maxTokens, systemPrompt}; may be NULL */
  char   *transcript_json;     /* never NULL after load */
  char   *assistant_message_id;
  char   *stop_reason;
  char   *error;
  int     round;               /* tool rounds made */
  char   *created_at;
  char   *updated_at;
} PrsRunRow;

void        prs_run_row_free                  (PrsRunRow   *row);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrsRunRow, prs_run_row_free)

/* Inserts, or replaces every mutable column of, row->id. */
gboolean    prs_store_save_run                (PrsStore        *self,
                                               const PrsRunRow *row,
                                               GError         **error);
/* The same, and in the same transaction the status of the run's trigger
 * message (when @trigger_status and row->trigger_message_id are set). */
gboolean    prs_store_save_run_and_trigger    (PrsStore        *self,
                                               const PrsRunRow *row,
                                               const char      *trigger_status,
                                               GError         **error);
/* NULL without an error when there is none. */
PrsRunRow  *prs_store_lookup_run              (PrsStore    *self,
                                               const char  *run_id,
                                               GError     **error);
PrsRunRow  *prs_store_lookup_run_by_trigger   (PrsStore    *self,
                                               const char  *message_id,
                                               GError     **error);
/* PrsRunRow* whose status is running or awaiting_approval, oldest first. */
GPtrArray  *prs_store_list_unfinished_runs    (PrsStore    *self,
                                               GError     **error);

/* One tool call of a run; message_id is its tool-call message. */
typedef struct
{
  char   *id;                  /* the toolCallId sent to n8n */
  char   *run_id;
  char   *message_id;
  char   *result_message_id;   /* may be NULL */
  int     round;
  int     position;
  char   *provider_call_id;    /* the model's id for the call */
  char   *name;
  char   *arguments_json;      /* the arguments that run (bound, edited) */
  char   *status;              /* proposed, approved, denied, running, succeeded, failed, interrupted */
  char   *result_text;         /* what the model receives; may be NULL */
} PrsToolCallRow;

void            prs_tool_call_row_free        (PrsToolCallRow *row);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrsToolCallRow, prs_tool_call_row_free)

/* Inserts or replaces row->id. With @message_status set, the tool-call
 * message's status (and @message_extra_json when set) change in the same
 * transaction. */
gboolean        prs_store_save_tool_call      (PrsStore             *self,
                                               const PrsToolCallRow *row,
                                               const char           *message_status,
                                               const char           *message_extra_json,
                                               GError              **error);
/* PrsToolCallRow* of a run by round and position. */
GPtrArray      *prs_store_list_tool_calls     (PrsStore    *self,
                                               const char  *run_id,
                                               GError     **error);
/* By its id or its tool-call message's id; NULL without an error when none. */
PrsToolCallRow *prs_store_lookup_tool_call    (PrsStore    *self,
                                               const char  *id_or_message_id,
                                               GError     **error);
/* The calls that wait for a person, oldest first: [{id, messageId, runId,
 * name, arguments, conversationId, conversationSlug, conversationTitle,
 * agentId, origin, createdAt}] (docs/api.md#deciding-tool-calls). */
JsonArray      *prs_store_list_waiting_tool_calls (PrsStore  *self,
                                                   GError   **error);

/* Auto-approval rules: NULL matches anything. */
gboolean    prs_store_add_approval_rule       (PrsStore    *self,
                                               const char  *tool,
                                               const char  *agent_id,
                                               const char  *conversation_slug,
                                               const char  *action,     /* "approve" or "deny" */
                                               gint64      *out_id,
                                               GError     **error);
/* [{id, tool, agentId, conversationSlug, action, createdAt}] by id. */
JsonArray  *prs_store_list_approval_rules     (PrsStore    *self,
                                               GError     **error);
/* PRS_ERROR_NOT_FOUND when there is no such rule. */
gboolean    prs_store_remove_approval_rule    (PrsStore    *self,
                                               gint64       id,
                                               GError     **error);
/* The action of the rule that matches: the most specific one (most fields
 * set); on a tie deny wins. NULL when none matches. */
char       *prs_store_match_approval_rule     (PrsStore    *self,
                                               const char  *tool,
                                               const char  *agent_id,
                                               const char  *conversation_slug);
/* The slug of a conversation, or NULL. */
char       *prs_store_dup_conversation_slug   (PrsStore    *self,
                                               const char  *conversation_id);

G_END_DECLS
