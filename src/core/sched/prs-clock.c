/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-clock.c: the system, manual and scaled clocks (prs-clock.h) in one
 * type: they differ only in where "now" comes from and how an alarm
 * waits. */
#include "config.h"

#include <stdlib.h>

#include "prs-clock.h"
#include "prs-thread.h"

typedef enum
{
  CLOCK_SYSTEM,
  CLOCK_MANUAL,
  CLOCK_SCALED,
} ClockMode;

/* The wall clock may move this far against the monotonic one before it
 * counts as a jump (microseconds) */
#define DRIFT_TOLERANCE G_USEC_PER_SEC

struct _PrsClock
{
  GObject     parent_instance;

  ClockMode   mode;
  GTimeZone  *tz;
  gint64      manual_now;     /* CLOCK_MANUAL */
  gint64      origin;         /* CLOCK_SCALED: unix microseconds where both clocks agree */
  gint64      factor;         /* CLOCK_SCALED */

  gint64      alarm;          /* G_MAXINT64: none */
  guint       alarm_id;       /* the timeout that waits for it */
  guint       drift_id;       /* the coarse check while an alarm is set */
  gint64      drift_offset;   /* wall minus monotonic time at the last check */
};

G_DEFINE_FINAL_TYPE (PrsClock, prs_clock, G_TYPE_OBJECT)

enum
{
  SIGNAL_ALARM,
  SIGNAL_JUMPED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

PrsClock *
prs_clock_new_system (void)
{
  PrsClock *self = g_object_new (PRS_TYPE_CLOCK, NULL);

  self->mode = CLOCK_SYSTEM;
  self->tz = g_time_zone_new_local ();
  return self;
}

PrsClock *
prs_clock_new_manual (GTimeZone *tz,
                      gint64     now)
{
  PrsClock *self;

  g_return_val_if_fail (tz != NULL, NULL);

  self = g_object_new (PRS_TYPE_CLOCK, NULL);
  self->mode = CLOCK_MANUAL;
  self->tz = g_time_zone_ref (tz);
  self->manual_now = now;
  return self;
}

PrsClock *
prs_clock_new_from_environment (void)
{
#if PRS_ENABLE_TEST_HOOKS
  /* Debug builds only (every test build is one): a release never reads
   * its time from the environment */
  const char *value = g_getenv (PRS_CLOCK_TEST_ENV);
  g_auto(GStrv) parts = NULL;
  gint64 origin, factor;
  char *end = NULL;

  if (value == NULL || value[0] == '\0')
    return prs_clock_new_system ();

  parts = g_strsplit (value, ":", 3);
  if (g_strv_length (parts) == 2)
    {
      origin = g_ascii_strtoll (parts[0], &end, 10);
      if (end != NULL && *end == '\0' && origin > 0)
        {
          factor = g_ascii_strtoll (parts[1], &end, 10);
          if (end != NULL && *end == '\0' && factor >= 1 && factor <= 3600)
            {
              PrsClock *self = prs_clock_new_system ();

              self->mode = CLOCK_SCALED;
              self->origin = origin * G_USEC_PER_SEC;
              self->factor = factor;
              g_message ("Schedules use the test clock: %" G_GINT64_FORMAT " times faster since %" G_GINT64_FORMAT,
                         factor, origin);
              return self;
            }
        }
    }
  g_message ("%s is not ORIGIN:FACTOR; schedules use the system clock", PRS_CLOCK_TEST_ENV);
#endif
  return prs_clock_new_system ();
}

gint64
prs_clock_get_now (PrsClock *self)
{
  g_return_val_if_fail (PRS_IS_CLOCK (self), 0);

  switch (self->mode)
    {
    case CLOCK_MANUAL:
      return self->manual_now;
    case CLOCK_SCALED:
      return self->origin + (g_get_real_time () - self->origin) * self->factor;
    case CLOCK_SYSTEM:
    default:
      return g_get_real_time ();
    }
}

gint64
prs_clock_get_now_seconds (PrsClock *self)
{
  gint64 now = prs_clock_get_now (self);

  /* Floor, also before 1970 */
  return now >= 0 ? now / G_USEC_PER_SEC : -((-now + G_USEC_PER_SEC - 1) / G_USEC_PER_SEC);
}

GTimeZone *
prs_clock_get_timezone (PrsClock *self)
{
  g_return_val_if_fail (PRS_IS_CLOCK (self), NULL);
  return self->tz;
}

gint64
prs_clock_get_alarm (PrsClock *self)
{
  g_return_val_if_fail (PRS_IS_CLOCK (self), G_MAXINT64);
  return self->alarm;
}

/* ---- waiting on the real clock ---- */

static gboolean on_alarm_timeout (gpointer user_data);

/* How long the real clock must run until this clock shows @at */
static guint
real_delay_ms (PrsClock *self,
               gint64    at)
{
  gint64 wait = at - prs_clock_get_now (self);

  if (wait <= 0)
    return 0;
  if (self->mode == CLOCK_SCALED)
    wait = (wait + self->factor - 1) / self->factor;
  /* Rounded up: an alarm never goes off before its time */
  wait = (wait + 999) / 1000;
  return (guint) MIN (wait, (gint64) G_MAXUINT);
}

static void
arm_timeout (PrsClock *self)
{
  g_clear_handle_id (&self->alarm_id, g_source_remove);
  if (self->alarm == G_MAXINT64 || self->mode == CLOCK_MANUAL)
    return;
  self->alarm_id = g_timeout_add_full (G_PRIORITY_DEFAULT, real_delay_ms (self, self->alarm),
                                       on_alarm_timeout, self, NULL);
}

static void
ring (PrsClock *self)
{
  g_autoptr(PrsClock) keep = g_object_ref (self);

  self->alarm = G_MAXINT64;
  g_clear_handle_id (&self->drift_id, g_source_remove);
  g_signal_emit (self, signals[SIGNAL_ALARM], 0);
}

static gboolean
on_alarm_timeout (gpointer user_data)
{
  PrsClock *self = user_data;

  self->alarm_id = 0;
  /* A wall clock set back meanwhile: not yet (the drift check says so too) */
  if (prs_clock_get_now (self) < self->alarm)
    arm_timeout (self);
  else
    ring (self);
  return G_SOURCE_REMOVE;
}

static gint64
drift_offset (void)
{
  return g_get_real_time () - g_get_monotonic_time ();
}

static gboolean
on_drift_check (gpointer user_data)
{
  PrsClock *self = user_data;
  gint64 offset = drift_offset ();

  if (ABS (offset - self->drift_offset) > DRIFT_TOLERANCE)
    {
      g_debug ("The wall clock moved by %" G_GINT64_FORMAT " ms against the monotonic one",
               (offset - self->drift_offset) / 1000);
      self->drift_offset = offset;
      /* The alarm is reckoned again from the wall clock */
      arm_timeout (self);
      g_signal_emit (self, signals[SIGNAL_JUMPED], 0);
    }
  return G_SOURCE_CONTINUE;
}

void
prs_clock_set_alarm (PrsClock *self,
                     gint64    at)
{
  g_return_if_fail (PRS_IS_CLOCK (self));
  PRS_ASSERT_MAIN_THREAD ();

  self->alarm = at > 0 ? at : G_MAXINT64;
  arm_timeout (self);

  if (self->alarm == G_MAXINT64 || self->mode == CLOCK_MANUAL)
    g_clear_handle_id (&self->drift_id, g_source_remove);
  else if (self->drift_id == 0)
    {
      self->drift_offset = drift_offset ();
      self->drift_id = g_timeout_add_seconds (PRS_CLOCK_DRIFT_CHECK_SECONDS, on_drift_check, self);
    }
}

/* ---- manual clocks ---- */

void
prs_clock_advance (PrsClock *self,
                   gint64    delta)
{
  gint64 end;

  g_return_if_fail (PRS_IS_CLOCK (self));
  g_return_if_fail (self->mode == CLOCK_MANUAL);
  g_return_if_fail (delta >= 0);
  PRS_ASSERT_MAIN_THREAD ();

  end = self->manual_now + delta;
  /* Each alarm on the way rings at its time; its handlers may set the next */
  while (self->alarm <= end)
    {
      self->manual_now = MAX (self->manual_now, self->alarm);
      ring (self);
    }
  self->manual_now = end;
}

void
prs_clock_jump (PrsClock *self,
                gint64    now)
{
  g_return_if_fail (PRS_IS_CLOCK (self));
  g_return_if_fail (self->mode == CLOCK_MANUAL);
  PRS_ASSERT_MAIN_THREAD ();

  self->manual_now = now;
  g_signal_emit (self, signals[SIGNAL_JUMPED], 0);
}

/* ---- GObject ---- */

static void
prs_clock_dispose (GObject *object)
{
  PrsClock *self = PRS_CLOCK (object);

  g_clear_handle_id (&self->alarm_id, g_source_remove);
  g_clear_handle_id (&self->drift_id, g_source_remove);

  G_OBJECT_CLASS (prs_clock_parent_class)->dispose (object);
}

static void
prs_clock_finalize (GObject *object)
{
  PrsClock *self = PRS_CLOCK (object);

  g_clear_pointer (&self->tz, g_time_zone_unref);

  G_OBJECT_CLASS (prs_clock_parent_class)->finalize (object);
}

static void
prs_clock_class_init (PrsClockClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = prs_clock_dispose;
  object_class->finalize = prs_clock_finalize;

  /**
   * PrsClock::alarm:
   *
   * The clock reached the time of prs_clock_set_alarm (); the alarm is
   * cleared before this is emitted.
   */
  signals[SIGNAL_ALARM] =
    g_signal_new ("alarm", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  /**
   * PrsClock::jumped:
   *
   * The wall clock moved against the time that passed (it was set, or the
   * computer slept); what is due must be reckoned again.
   */
  signals[SIGNAL_JUMPED] =
    g_signal_new ("jumped", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
prs_clock_init (PrsClock *self)
{
  self->alarm = G_MAXINT64;
}
