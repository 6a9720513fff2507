/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-app-options.h: the command line that `prosponsive` and
 * `prosponsive --headless` (prosponsive-service) share. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* glibc's allocator settings for the service, which `prosponsive
 * --headless` puts in the environment it executes the service with (the
 * dynamic loader reads them before main ()); the service takes them out
 * again for the programs it starts. Why: prs-main.c. */
#define PRS_SERVICE_GLIBC_TUNABLES "glibc.malloc.tcache_count=2"

typedef struct
{
  char     *data_dir;
  guint     port;
  gboolean  headless;
} PrsAppOptions;

void prs_app_options_add   (GApplication  *app);
/* Returns -1 to go on, or an exit status (--version, bad values). Marks
 * the application non-unique when a data folder is named: uniqueness is
 * then the data folder's lock. */
int  prs_app_options_read  (GApplication  *app,
                            GVariantDict  *options,
                            PrsAppOptions *out);
void prs_app_options_clear (PrsAppOptions *options);

G_END_DECLS
