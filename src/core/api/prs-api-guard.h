/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-api-guard.h: the checks every request passes after its headers and
 * before its body is read: Host, Origin, bearer token, control key,
 * declared size. */
#pragma once

#include <libsoup/soup.h>

#include "prs-api-token.h"

G_BEGIN_DECLS

#define PRS_API_MAX_BODY (1024 * 1024)

typedef struct _PrsApiGuard PrsApiGuard;

typedef struct
{
  guint       status;
  const char *code;
  const char *message;
} PrsApiRejection;

/* Takes ownership of @token_watch, which may be NULL until the keyring
 * answered: meanwhile every request that needs the token gets 503. */
PrsApiGuard *prs_api_guard_new            (guint               port,
                                           PrsApiTokenWatch   *token_watch);
void         prs_api_guard_free           (PrsApiGuard        *guard);
/* Takes ownership of @token_watch. */
void         prs_api_guard_set_token_watch (PrsApiGuard       *guard,
                                           PrsApiTokenWatch   *token_watch);
gboolean     prs_api_guard_has_token      (PrsApiGuard        *guard);
/* The control key (prs-api-control.h); until it is set the routes that
 * need it answer 503. */
void         prs_api_guard_set_control_key (PrsApiGuard       *guard,
                                           const char         *key);
/* @origins: allowed Origin values (the allowed-origins setting),
 * NULL-terminated; NULL for none. Each is compared as
 * prs_api_guard_normalize_origin () makes it; one that is no origin is
 * skipped with a message. */
void         prs_api_guard_set_origins    (PrsApiGuard        *guard,
                                           const char * const *origins);
/* "scheme://host[:port]" as a browser sends it in Origin (lower case,
 * no default port, no path), or NULL when @text is not an http(s) origin. */
char        *prs_api_guard_normalize_origin (const char       *text);
/* LAN listening on: the Host header may also be the address literal (and
 * port) the client connected to. */
void         prs_api_guard_set_lan        (PrsApiGuard        *guard,
                                           gboolean            lan);
/* TRUE to let the request through; else fills @rejection. */
gboolean     prs_api_guard_check          (PrsApiGuard        *guard,
                                           SoupServerMessage  *msg,
                                           const char         *path,
                                           PrsApiRejection    *rejection);

/* Answers @msg with @rejection's JSON error and Connection: close, and
 * stops libsoup keeping the body it still reads. */
void         prs_api_guard_reject         (SoupServerMessage  *msg,
                                           const PrsApiRejection *rejection);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrsApiGuard, prs_api_guard_free)

G_END_DECLS
