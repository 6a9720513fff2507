/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-random.c: random tokens and their constant-time comparison, shared by
 * the local API's bearer token and the secrets of tool calls waiting for a
 * workflow's callback. */
#include "config.h"

#include <string.h>
#include <gnutls/gnutls.h>
#include <gnutls/crypto.h>

#include "prs-error.h"
#include "prs-random.h"

#define TOKEN_BYTES 32

char *
prs_random_token (GError **error)
{
  guint8 bytes[TOKEN_BYTES];
  g_autofree char *b64 = NULL;
  int ret;

  ret = gnutls_rnd (GNUTLS_RND_KEY, bytes, sizeof bytes);
  if (ret < 0)
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_FAILED,
                   "Could not draw random bytes: %s", gnutls_strerror (ret));
      return NULL;
    }

  b64 = g_base64_encode (bytes, sizeof bytes);
  gnutls_memset (bytes, 0, sizeof bytes);

  for (char *p = b64; *p != '\0'; p++)
    {
      if (*p == '+')
        *p = '-';
      else if (*p == '/')
        *p = '_';
      else if (*p == '=')
        {
          *p = '\0';
          break;
        }
    }

  return g_steal_pointer (&b64);
}

gboolean
prs_random_token_equal (const char *expected,
                        const char *presented,
                        gsize       presented_len)
{
  gsize expected_len;
  volatile guint8 diff;

  if (expected == NULL || presented == NULL)
    return FALSE;

  expected_len = strlen (expected);
  if (expected_len == 0)
    return FALSE;

  /* No early exit: every presented byte is compared, and a length mismatch
   * only sets a bit in the same accumulator. */
  diff = (expected_len != presented_len);
  for (gsize i = 0; i < presented_len; i++)
    diff |= (guint8) presented[i] ^ (guint8) expected[i % expected_len];

  return diff == 0;
}
