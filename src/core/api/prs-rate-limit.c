/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-rate-limit.c: a token bucket (see prs-rate-limit.h). */
#include "config.h"

#include "prs-rate-limit.h"

void
prs_rate_limit_init (PrsRateLimit *self,
                     guint         burst,
                     guint         per_minute,
                     gint64        now_us)
{
  g_return_if_fail (self != NULL);

  self->burst = MAX (burst, 1);
  self->tokens = self->burst;
  self->per_us = (double) MAX (per_minute, 1) / (60.0 * G_USEC_PER_SEC);
  self->last_us = now_us;
}

static void
refill (PrsRateLimit *self,
        gint64        now_us)
{
  if (now_us > self->last_us)
    {
      self->tokens = MIN (self->burst, self->tokens + (double) (now_us - self->last_us) * self->per_us);
      self->last_us = now_us;
    }
}

gboolean
prs_rate_limit_take (PrsRateLimit *self,
                     gint64        now_us,
                     guint        *out_retry_after)
{
  g_return_val_if_fail (self != NULL, FALSE);

  refill (self, now_us);
  if (self->tokens >= 1.0)
    {
      self->tokens -= 1.0;
      return TRUE;
    }

  if (out_retry_after != NULL)
    {
      double seconds = (1.0 - self->tokens) / self->per_us / G_USEC_PER_SEC;
      guint whole = (guint) MIN (seconds, (double) G_MAXUINT - 1);

      /* Rounded up: asking again after it always succeeds */
      if ((double) whole < seconds)
        whole++;
      *out_retry_after = MAX (whole, 1);
    }
  return FALSE;
}

void
prs_rate_limit_give_back (PrsRateLimit *self)
{
  g_return_if_fail (self != NULL);

  self->tokens = MIN (self->burst, self->tokens + 1.0);
}
