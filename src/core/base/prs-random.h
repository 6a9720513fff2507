/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-random.h: secrets drawn from the system CSPRNG (GnuTLS), and their
 * comparison in constant time. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* 256 random bits as base64url without padding (43 characters): safe in a
 * header, a URL query and a shell. NULL only when no random bytes could be
 * drawn. */
char     *prs_random_token       (GError      **error);

/* Whether @presented (@presented_len bytes) equals @expected. The time
 * taken depends only on @presented_len, never on where they differ; an
 * empty or NULL @expected equals nothing. */
gboolean  prs_random_token_equal (const char   *expected,
                                  const char   *presented,
                                  gsize         presented_len);

G_END_DECLS
