/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-run-test-util.h: what the ui tests of agent runs need to drive runs
 * end to end: the scripted provider (tests/scripted-provider.py) and a
 * scripted n8n webhook (a SoupServer) from tests/lib, plus a POST to the
 * local HTTPS API with the token. */
#pragma once

#include <json-glib/json-glib.h>

#include "prs-secrets.h"
#include "prs-test-util.h"

G_BEGIN_DECLS

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
