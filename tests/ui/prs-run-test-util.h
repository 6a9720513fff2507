/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-run-test-util.h: what the ui tests of agent runs need to drive runs
 * end to end (copied from tests/core/test-runs.c): the scripted provider
 * (tests/scripted-provider.py) and a scripted n8n webhook (a SoupServer),
 * plus a POST to the local HTTPS API with the token. */
#pragma once

#include <json-glib/json-glib.h>
#include <libsoup/soup.h>

#include "prs-secrets.h"

G_BEGIN_DECLS

/* tests/scripted-provider.py, running with a script */
typedef struct
{
  GSubprocess *process;
  char        *dir;
  char        *log_path;
  char        *root;       /* http://127.0.0.1:PORT */
} PrsTestProvider;

/* @script: the script's JSON, with ' for " */
PrsTestProvider *prs_test_provider_start    (const char      *script);
void             prs_test_provider_stop     (PrsTestProvider *provider);
/* The base URL to configure for @kind ("openai": ROOT/v1); a new string. */
char            *prs_test_provider_base_url (PrsTestProvider *provider,
                                             const char      *kind);
/* The requests it received (fails the test on a protocol violation). */
JsonArray       *prs_test_provider_requests (PrsTestProvider *provider);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrsTestProvider, prs_test_provider_stop)

/* A scripted n8n: POST /webhook/… answers @answer; anything else 404. */
typedef struct
{
  SoupServer *soup;
  guint       port;
  GPtrArray  *bodies;    /* char*, one per webhook call */
  GPtrArray  *paths;
  char       *answer;
} PrsTestHook;

PrsTestHook *prs_test_hook_start (void);
void         prs_test_hook_stop  (PrsTestHook *hook);
/* http://127.0.0.1:PORT (the n8n URL setting); a new string */
char        *prs_test_hook_url   (PrsTestHook *hook);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrsTestHook, prs_test_hook_stop)

/* POSTs @body_json to https://127.0.0.1:@port@path with the API token of
 * @data_dir (made if missing, through @secrets), running the main context
 * until the answer comes. Returns the HTTP status; *@out_answer the body
 * parsed (may be NULL). */
guint        prs_test_api_post   (PrsSecrets  *secrets,
                                  const char  *data_dir,
                                  guint        port,
                                  const char  *path,
                                  const char  *body_json,
                                  JsonObject **out_answer);

G_END_DECLS
