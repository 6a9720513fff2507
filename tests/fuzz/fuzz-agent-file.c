/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz-agent-file: the agent Markdown reader (front matter through libyaml,
 * prompt, guidance); what it reads, it writes back and reads again. */
#include "prs-agent-file.h"

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

int
LLVMFuzzerTestOneInput (const guint8 *data,
                        size_t        size)
{
  g_autoptr(PrsAgent) agent = prs_agent_file_parse ((const char *) data, (gssize) size, NULL);

  if (agent != NULL)
    {
      g_autofree char *text = prs_agent_file_write (agent, NULL, NULL);

      if (text != NULL)
        {
          g_autoptr(PrsAgent) again = prs_agent_file_parse (text, -1, NULL);

          g_assert (again != NULL);
        }
    }
  return 0;
}
