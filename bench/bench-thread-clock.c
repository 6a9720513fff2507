/* SPDX-License-Identifier: GPL-3.0-or-later */
/* bench-thread-clock.c: see bench-thread-clock.h */
#include <time.h>

#include "bench-thread-clock.h"

gint64
bench_thread_cpu_us (void)
{
  struct timespec now;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &now);
  return now.tv_sec * G_USEC_PER_SEC + now.tv_nsec / 1000;
}

gint64
bench_thread_wait_us (void)
{
  g_autofree char *stat = NULL;
  char *end = NULL;

  if (!g_file_get_contents ("/proc/thread-self/schedstat", &stat, NULL, NULL))
    return 0;
  g_ascii_strtoull (stat, &end, 10);
  return (gint64) (g_ascii_strtoull (end, NULL, 10) / 1000);
}
