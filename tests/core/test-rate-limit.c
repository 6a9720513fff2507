/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Tests for prs-rate-limit.c: the token bucket behind the API's limit on
 * new conversations, with the clock passed in. */
#include "prs-rate-limit.h"

#define SECOND ((gint64) G_USEC_PER_SEC)

static void
test_burst_then_rate (void)
{
  PrsRateLimit limit;
  guint retry_after = 0;
  gint64 now = 1000 * SECOND;

  prs_rate_limit_init (&limit, 120, 60, now);
  for (guint i = 0; i < 120; i++)
    g_assert_true (prs_rate_limit_take (&limit, now, NULL));
  g_assert_false (prs_rate_limit_take (&limit, now, &retry_after));
  g_assert_cmpuint (retry_after, ==, 1);

  /* One a second comes back, never more than the burst */
  g_assert_false (prs_rate_limit_take (&limit, now + SECOND / 2, &retry_after));
  g_assert_cmpuint (retry_after, ==, 1);
  g_assert_true (prs_rate_limit_take (&limit, now + SECOND, NULL));
  g_assert_false (prs_rate_limit_take (&limit, now + SECOND, NULL));

  now += 3600 * SECOND;
  for (guint i = 0; i < 120; i++)
    g_assert_true (prs_rate_limit_take (&limit, now, NULL));
  g_assert_false (prs_rate_limit_take (&limit, now, NULL));
}

static void
test_retry_after_rounds_up (void)
{
  PrsRateLimit limit;
  guint retry_after = 0;
  gint64 now = 5 * SECOND;

  /* 6 a minute: one every 10 s */
  prs_rate_limit_init (&limit, 1, 6, now);
  g_assert_true (prs_rate_limit_take (&limit, now, NULL));
  g_assert_false (prs_rate_limit_take (&limit, now + 2500000, &retry_after));
  g_assert_cmpuint (retry_after, ==, 8);
  /* Asking again after Retry-After succeeds */
  g_assert_true (prs_rate_limit_take (&limit, now + 2500000 + retry_after * SECOND, NULL));
}

static void
test_give_back (void)
{
  PrsRateLimit limit;
  gint64 now = 0;

  prs_rate_limit_init (&limit, 2, 60, now);
  g_assert_true (prs_rate_limit_take (&limit, now, NULL));
  g_assert_true (prs_rate_limit_take (&limit, now, NULL));
  g_assert_false (prs_rate_limit_take (&limit, now, NULL));
  /* What did not happen after all is not counted */
  prs_rate_limit_give_back (&limit);
  g_assert_true (prs_rate_limit_take (&limit, now, NULL));
  /* …and never beyond the burst */
  prs_rate_limit_give_back (&limit);
  prs_rate_limit_give_back (&limit);
  prs_rate_limit_give_back (&limit);
  g_assert_true (prs_rate_limit_take (&limit, now, NULL));
  g_assert_true (prs_rate_limit_take (&limit, now, NULL));
  g_assert_false (prs_rate_limit_take (&limit, now, NULL));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/rate-limit/burst-then-rate", test_burst_then_rate);
  g_test_add_func ("/rate-limit/retry-after-rounds-up", test_retry_after_rounds_up);
  g_test_add_func ("/rate-limit/give-back", test_give_back);

  return g_test_run ();
}
