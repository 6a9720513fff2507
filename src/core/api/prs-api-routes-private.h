/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-api-routes-private.h: what the route handlers share (answers, body
 * and field checks, pausing a message for the main thread), for
 * prs-api-routes.c, prs-api-inference.c, prs-api-mcp.c and
 * prs-api-approvals.c. All on the API thread. */
#pragma once

#include "prs-api-routes.h"

G_BEGIN_DECLS

#define PRS_API_MAX_ID_CHARS        256
#define PRS_API_MAX_CONTEXT_DEPTH   32
#define PRS_API_RETRY_AFTER_SECONDS "5"

/* {"success": false, "error": @message, "code": @code} */
JsonObject *prs_api_error_object       (const char         *code,
                                        const char         *message);
/* 400 invalid-field: "The field “@field” @requirement."; returns FALSE */
gboolean    prs_api_field_error        (SoupServerMessage  *msg,
                                        const char         *field,
                                        const char         *requirement);
/* 507 when the disk is full, else 500; the error goes to the log only */
void        prs_api_internal_error     (SoupServerMessage  *msg,
                                        GError             *error);
/* After a read, before answering with what it found: every commit of this
 * process is on the disk (prs_store_sync ()). FALSE after answering 5xx. */
gboolean    prs_api_sync_read          (PrsApiRoutes       *routes,
                                        SoupServerMessage  *msg);
/* Whether @error is a write to the database that failed (busy, full, or
 * else): what it was to store is not stored */
gboolean    prs_api_is_store_error     (const GError       *error);

/* The request body's top-level object, or NULL after answering 415/413/400.
 * Every route's body comes through here: strict JSON only (prs-json.h). */
JsonNode   *prs_api_parse_body         (SoupServerMessage  *msg);
/* An optional or required string member; NULL in *@out when absent.
 * FALSE after answering 400 naming @display_name. */
gboolean    prs_api_get_string         (SoupServerMessage  *msg,
                                        JsonObject         *object,
                                        const char         *name,
                                        const char         *display_name,
                                        gboolean            required,
                                        gboolean            non_empty,
                                        guint               max_chars,
                                        const char        **out);
gboolean    prs_api_get_object         (SoupServerMessage  *msg,
                                        JsonObject         *object,
                                        const char         *name,
                                        const char         *display_name,
                                        gboolean            required,
                                        JsonNode          **out);

/* Pauses @msg and returns a GTask whose result (given with
 * prs_api_task_return_answer, from any thread) answers it; an error
 * returned with g_task_return_error () answers as prs_api_internal_error ().
 * The task's cancellable is cancelled when the message's connection ends
 * first (libsoup's "disconnected"): an answer is no longer wanted. */
GTask      *prs_api_defer              (PrsApiRoutes       *routes,
                                        SoupServerMessage  *msg);
/* The same for an inference request whose inbound message is
 * @message_id, stored by commit @commit (prs_store_get_last_commit () of any
 * store of this process on the database), or, with @commit 0, stored
 * later by the main thread, whose answer then names that commit
 * (prs_api_task_return_answer_after ()): no answer leaves before that commit
 * is on the disk (prs_store_sync ()). With @wait_seconds > 0 the wait ends
 * then with the stored state of its run (202 while it runs). */
GTask      *prs_api_defer_run          (PrsApiRoutes       *routes,
                                        SoupServerMessage  *msg,
                                        const char         *message_id,
                                        guint64             commit,
                                        guint               wait_seconds);
/* Takes @node */
void        prs_api_task_return_answer (GTask              *task,
                                        guint               status,
                                        JsonNode           *node);
/* The same for an answer that tells of a message stored by commit @commit
 * (or before it) of a store of this process: it leaves once that commit is
 * on the disk */
void        prs_api_task_return_answer_after (GTask        *task,
                                        guint               status,
                                        JsonNode           *node,
                                        guint64             commit);

/* 405 with Allow: @allowed */
void        prs_api_method_not_allowed (SoupServerMessage  *msg,
                                        const char         *allowed);

/* POST /api/ai/agent-inference and /api/ai/inference (prs-api-inference.c) */
void        prs_api_handle_inference   (PrsApiRoutes       *routes,
                                        SoupServerMessage  *msg,
                                        gboolean            with_history);

/* /api/mcp/… (prs-api-mcp.c): FALSE when @path is none of them */
gboolean    prs_api_handle_mcp         (PrsApiRoutes       *routes,
                                        SoupServerMessage  *msg,
                                        const char         *path,
                                        GHashTable         *query);

/* /api/tool-calls… (prs-api-approvals.c): FALSE when @path is none of them */
gboolean    prs_api_handle_tool_calls  (PrsApiRoutes       *routes,
                                        SoupServerMessage  *msg,
                                        const char         *path,
                                        GHashTable         *query);
/* A person's decision on the call @id (its id, its tool-call message's id
 * or an MCP client's callId): 404, 409 when it waits no more, else 200
 * once the runner took it */
void        prs_api_decide_tool_call   (PrsApiRoutes       *routes,
                                        SoupServerMessage  *msg,
                                        const char         *id,
                                        gboolean            approve);

G_END_DECLS
