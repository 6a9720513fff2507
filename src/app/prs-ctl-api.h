/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-ctl-api.h: prosponsive-ctl's client of the running service's local
 * API (docs/api.md): its token, and for the routes that decide tool calls
 * the control key (docs/api.md#deciding-tool-calls), trusting only the
 * certificate of the data folder. */
#pragma once

#include <libsoup/soup.h>

#include "prs-ctl.h"
#include "prs-secrets.h"

G_BEGIN_DECLS

typedef struct
{
  SoupSession     *session;
  GTlsCertificate *certificate;
  char            *base_url;
  char            *token;
  char            *control_key;   /* NULL unless opened with it */
} PrsCtlApi;

/* An exchange's answer: its status and JSON, or an error in words */
typedef void (*PrsCtlApiDone) (guint       status,
                               JsonObject *answer,
                               GError     *error,
                               gpointer    data);

/* @port 0: the one the service running with the data folder published
 * (prs-api-port.h), else the one in the settings. FALSE after saying why
 * on standard error (the service never ran with the folder, no token, no
 * key). */
gboolean  prs_ctl_api_open     (PrsCtl      *ctl,
                                PrsCtlApi   *api,
                                guint        port,
                                gboolean     with_control_key);
void      prs_ctl_api_clear    (PrsCtlApi   *api);
/* The control key the service stored in @secrets (blocks on the keyring);
 * FALSE after saying why on standard error (not made yet, unreadable). */
gboolean  prs_ctl_api_read_control_key (PrsCtl      *ctl,
                                        PrsSecrets  *secrets,
                                        char       **out_key);
/* @method @path with @body (taken; NULL: none) */
void      prs_ctl_api_request  (PrsCtlApi     *api,
                                const char    *method,
                                const char    *path,
                                JsonObject    *body,
                                PrsCtlApiDone  done,
                                gpointer       data);
/* The same, waiting for the answer; *@out_answer is a new reference or
 * NULL. FALSE with @error when nothing usable came back. */
gboolean  prs_ctl_api_call     (PrsCtlApi   *api,
                                const char  *method,
                                const char  *path,
                                JsonObject  *body,
                                guint       *out_status,
                                JsonObject **out_answer,
                                GError     **error);
/* An answer that is no success, in words: the API's own, or the status */
char     *prs_ctl_api_describe_refusal (guint       status,
                                        JsonObject *answer,
                                        GError     *error);

G_END_DECLS
