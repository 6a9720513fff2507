/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz-param-scan: the Code-node parameter scanner over any JavaScript. */
#include "prs-js-scan.h"

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

int
LLVMFuzzerTestOneInput (const guint8 *data,
                        size_t        size)
{
  g_autoptr(PrsParamSet) set = prs_param_set_new ();

  prs_param_set_scan (set, (const char *) data, (gssize) size);
  /* A second node: the merge rules */
  prs_param_set_scan (set, (const char *) data, (gssize) (size / 2));
  (void) prs_param_set_get_params (set);
  return 0;
}
