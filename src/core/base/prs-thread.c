/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-thread.c: the main thread, recorded before main () runs, so that
 * every program and test links the same check without calling anything. */
#include "prs-thread.h"

static GThread *main_thread;

/* Constructors run on the thread that loads the program, before main () */
__attribute__ ((constructor)) static void
record_main_thread (void)
{
  main_thread = g_thread_self ();
}

GThread *
prs_thread_get_main (void)
{
  return main_thread;
}
