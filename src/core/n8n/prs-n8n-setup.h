/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-n8n-setup.h: what setup does on the user's n8n through its public
 * API, for the first-run window and `prosponsive-ctl n8n setup`: the
 * "Prosponsive API" Header Auth credential that holds the local API's token
 * (created, reused while it holds the current token, replaced after a
 * rotation), and the example workflows (created, then published where they
 * can run). */
#pragma once

#include <gio/gio.h>

#include "prs-n8n-client.h"
#include "prs-secrets.h"
#include "prs-store.h"

G_BEGIN_DECLS

#define PRS_N8N_API_CREDENTIAL_NAME  "Prosponsive API"
#define PRS_N8N_IMAP_CREDENTIAL_NAME "IMAP account"
/* The node of the move example that holds the IMAP account (a Code node
 * cannot read n8n credentials) */
#define PRS_N8N_IMAP_ACCOUNT_NODE    "IMAP Account"

/* The n8n client for the URL in @store and the API key in the keyring;
 * fails with PRS_ERROR_NOT_CONFIGURED and @not_configured when either is
 * missing. */
PrsN8nClient *prs_n8n_setup_dup_client (PrsStore    *store,
                                        PrsSecrets  *secrets,
                                        const char  *not_configured,
                                        GError     **error);
/* The same, the key read without waiting on the keyring (the window's). */
void          prs_n8n_setup_dup_client_async  (PrsStore            *store,
                                               PrsSecrets          *secrets,
                                               const char          *not_configured,
                                               GCancellable        *cancellable,
                                               GAsyncReadyCallback  callback,
                                               gpointer             user_data);
PrsN8nClient *prs_n8n_setup_dup_client_finish (GAsyncResult        *result,
                                               GError             **error);

/* ---- the "Prosponsive API" credential ---- */

/* POST /api/v1/credentials {name: "Prosponsive API", type: "httpHeaderAuth",
 * data: {name: "Authorization", value: "Bearer TOKEN"}}; finishes with its
 * id. The caller records it with prs_n8n_setup_remember_credential. */
void       prs_n8n_setup_create_credential_async  (PrsN8nClient        *client,
                                                   const char          *token,
                                                   GCancellable        *cancellable,
                                                   GAsyncReadyCallback  callback,
                                                   gpointer             user_data);
char      *prs_n8n_setup_create_credential_finish (PrsN8nClient        *client,
                                                   GAsyncResult        *result,
                                                   GError             **error);

typedef enum
{
  PRS_CREDENTIAL_NONE,      /* Prosponsive has not created one */
  PRS_CREDENTIAL_CURRENT,   /* it holds @token */
  PRS_CREDENTIAL_STALE,     /* it holds another token (rotated since), or an unknown one */
} PrsCredentialState;

/* What @store records about the credential, compared with @token; @out_id
 * (may be NULL) gets the recorded id. */
PrsCredentialState prs_n8n_setup_credential_state    (PrsStore    *store,
                                                      const char  *token,
                                                      char       **out_id);
gboolean           prs_n8n_setup_remember_credential (PrsStore    *store,
                                                      const char  *id,
                                                      const char  *token,
                                                      GError     **error);

/* One workflow that setup changed or found. */
typedef struct
{
  char *id;
  char *name;
} PrsWorkflowRef;

/* A stale credential replaced: n8n's API cannot change a credential, so a
 * new one is created, every workflow whose nodes used the old one is
 * pointed to it (PUT), and then the old one is deleted. */
typedef struct
{
  char      *id;            /* the new credential */
  GPtrArray *repointed;     /* PrsWorkflowRef*, the workflows now using it */
  gboolean   old_deleted;
  char      *problem;       /* why a workflow kept the old one (then it is not deleted); NULL */
} PrsCredentialReplacement;

void prs_credential_replacement_free (PrsCredentialReplacement *replacement);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrsCredentialReplacement, prs_credential_replacement_free)

void                      prs_n8n_setup_replace_credential_async  (PrsN8nClient        *client,
                                                                   const char          *old_id,
                                                                   const char          *token,
                                                                   GCancellable        *cancellable,
                                                                   GAsyncReadyCallback  callback,
                                                                   gpointer             user_data);
/* Fails only when the new credential could not be created; a workflow that
 * could not be changed is the result's @problem. */
PrsCredentialReplacement *prs_n8n_setup_replace_credential_finish (PrsN8nClient        *client,
                                                                   GAsyncResult        *result,
                                                                   GError             **error);

/* ---- the example workflows ---- */

/* An IMAP account for the email examples (implicit TLS). */
typedef struct
{
  const char *host;
  guint       port;
  const char *user;
  const char *password;
} PrsImapAccount;

typedef struct
{
  const char           *api_base_url;       /* "__API_BASE__" becomes this */
  const char           *credential_id;      /* the "Prosponsive API" credential; NULL: by name, n8n resolves it */
  const char           *agent_id;           /* "__AGENT_ID__" becomes this; NULL: "prosponsive" */
  gboolean              ignore_tls_errors;  /* allowUnauthorizedCerts of the HTTP Request nodes */
  const PrsImapAccount *imap_account;       /* NULL: the user chooses one in n8n */
} PrsExampleOptions;

/* The example workflow templates (JSON text) of data/workflows/, in the
 * order setup imports them. */
GStrv       prs_n8n_setup_load_examples         (GError                  **error);

/* Turns an example workflow template into what n8n accepts: the
 * placeholders filled, the "Prosponsive API" references given the
 * credential's id, an "IMAP account" reference given @imap_credential_id
 * (when not NULL), the "IMAP Account" node given @options's account, and
 * the fields n8n refuses dropped. */
JsonObject *prs_n8n_setup_prepare_example       (const char               *template_json,
                                                 const PrsExampleOptions  *options,
                                                 const char               *imap_credential_id,
                                                 GError                  **error);
/* Whether the workflow needs an account of the user's before it can be
 * published: a node with a credential other than "Prosponsive API" that
 * has no id yet, or an "IMAP Account" node without a user or password. */
gboolean    prs_n8n_setup_needs_user_credential (JsonObject               *workflow);

/* One example workflow after the import. */
typedef struct
{
  char     *name;
  char     *id;        /* NULL when n8n refused it */
  gboolean  active;
  gboolean  existed;   /* a workflow of that name was there already: left as it is */
  gboolean  failed;    /* n8n refused to create or to publish it */
  char     *message;   /* what the user should know (why it is inactive, what to fill in); may be NULL */
} PrsExampleResult;

void prs_example_result_free (PrsExampleResult *result);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrsExampleResult, prs_example_result_free)

/* Creates each template in n8n, in order, unless a workflow of that name
 * exists, and publishes those that need no account of the user's. With an
 * IMAP account in @options, the "IMAP account" credential is created first
 * for the templates that use one. One failure does not stop the others.
 * Finishes with PrsExampleResult*, one per template; @out_imap_credential_id
 * (may be NULL) gets the IMAP credential's id when one was created. */
void       prs_n8n_setup_import_examples_async  (PrsN8nClient             *client,
                                                 const char * const       *templates,
                                                 const PrsExampleOptions  *options,
                                                 GCancellable             *cancellable,
                                                 GAsyncReadyCallback       callback,
                                                 gpointer                  user_data);
GPtrArray *prs_n8n_setup_import_examples_finish (PrsN8nClient             *client,
                                                 GAsyncResult             *result,
                                                 char                    **out_imap_credential_id,
                                                 GError                  **error);

G_END_DECLS
