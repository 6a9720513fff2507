/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-clock.h: the time schedules are reckoned in, and one alarm, behind an
 * object that tests control (docs/schedules.md, "Time").
 *
 * The system clock reads the wall clock and the local time zone. Its alarm
 * is one GLib timeout, which runs on the monotonic clock: it does not see
 * the wall clock being set, nor time spent in suspend (CLOCK_MONOTONIC
 * stops then). So a coarse timer (every PRS_CLOCK_DRIFT_CHECK_SECONDS)
 * compares the wall clock with the monotonic one and says "jumped" when
 * they moved apart by more than a second; the scheduler then looks again.
 * This was chosen over logind's PrepareForSleep because it also covers a
 * clock set by hand or stepped by NTP, needs no system bus (the Flatpak
 * sandbox has none by default), and costs one wake-up a minute.
 *
 * A manual clock stands still until a test moves it. A scaled clock (debug
 * builds only, PROSPONSIVE_TEST_CLOCK) runs FACTOR times faster than the
 * real one, so that the reliability suite can see minutes pass in seconds
 * across restarts of the program.
 *
 * Signals (main thread):
 *   alarm ()    the time set with prs_clock_set_alarm () was reached
 *   jumped ()   the wall clock moved against the time that passed
 */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

#define PRS_CLOCK_DRIFT_CHECK_SECONDS 60
/* PROSPONSIVE_TEST_CLOCK=ORIGIN:FACTOR (unix seconds, 1…3600) */
#define PRS_CLOCK_TEST_ENV "PROSPONSIVE_TEST_CLOCK"

#define PRS_TYPE_CLOCK (prs_clock_get_type ())
G_DECLARE_FINAL_TYPE (PrsClock, prs_clock, PRS, CLOCK, GObject)

/* The computer's clock in its local time zone. */
PrsClock   *prs_clock_new_system       (void);
/* A clock that shows @now (unix microseconds) in @tz until it is moved. */
PrsClock   *prs_clock_new_manual       (GTimeZone  *tz,
                                        gint64      now);
/* The scaled test clock when PROSPONSIVE_TEST_CLOCK is set and this is a
 * debug build; the system clock otherwise. */
PrsClock   *prs_clock_new_from_environment (void);

/* Now, in unix microseconds. */
gint64      prs_clock_get_now          (PrsClock   *self);
/* Now in seconds (what schedules count in). */
gint64      prs_clock_get_now_seconds  (PrsClock   *self);
GTimeZone  *prs_clock_get_timezone     (PrsClock   *self);

/* Emits PrsClock::alarm once the clock reaches @at (unix microseconds);
 * replaces the alarm set before. G_MAXINT64 (or 0) clears it. */
void        prs_clock_set_alarm        (PrsClock   *self,
                                        gint64      at);
/* The alarm set, or G_MAXINT64. */
gint64      prs_clock_get_alarm        (PrsClock   *self);

/* Manual clocks: time passes by @delta microseconds. An alarm on the way
 * goes off at its own time (the clock shows that time while its handlers
 * run), then the clock goes on to the end. */
void        prs_clock_advance          (PrsClock   *self,
                                        gint64      delta);
/* Manual clocks: the wall clock is set to @now (a suspend ended, NTP
 * stepped it, a person set it); emits PrsClock::jumped, and no alarm. */
void        prs_clock_jump             (PrsClock   *self,
                                        gint64      now);

G_END_DECLS
