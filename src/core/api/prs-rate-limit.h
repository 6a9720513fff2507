/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-rate-limit.h: a token bucket, for what an API client may create: at
 * most @burst at once, then @per_minute a minute. Not thread-safe: each
 * bucket belongs to one thread (the API thread's routes). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct
{
  double tokens;
  double burst;
  double per_us;   /* tokens added per microsecond */
  gint64 last_us;  /* monotonic time of the last refill */
} PrsRateLimit;

/* Full at @now_us (g_get_monotonic_time ()). */
void     prs_rate_limit_init      (PrsRateLimit *self,
                                   guint         burst,
                                   guint         per_minute,
                                   gint64        now_us);
/* Takes one token. FALSE when there is none: *@out_retry_after (may be
 * NULL) is then the whole seconds until there is one (at least 1). */
gboolean prs_rate_limit_take      (PrsRateLimit *self,
                                   gint64        now_us,
                                   guint        *out_retry_after);
/* Returns a token taken for something that did not happen after all. */
void     prs_rate_limit_give_back (PrsRateLimit *self);

G_END_DECLS
