/* SPDX-License-Identifier: GPL-3.0-or-later */
/* bench-thread-clock.h: what the calling thread did in a stretch of wall
 * time, for the benchmarks' NOTE lines: its CPU time, and its time on a
 * run queue (runnable, but another task had the core). */
#pragma once

#include <glib.h>

/* The calling thread's CPU time, µs */
gint64 bench_thread_cpu_us  (void);

/* The calling thread's time on a run queue, µs (the second field of
 * /proc/thread-self/schedstat, ns) */
gint64 bench_thread_wait_us (void);
