/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz-layout: the reply layout (docs/layout.md) takes any bytes. */
#include "prs-layout.h"

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

int
LLVMFuzzerTestOneInput (const guint8 *data,
                        size_t        size)
{
  g_autoptr(GPtrArray) blocks = prs_layout_parse ((const char *) data, (gssize) size);
  g_autofree char *json = prs_layout_to_json (blocks, size % 2 == 0);

  return 0;
}
