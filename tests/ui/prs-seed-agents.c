/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-seed-agents.c: adds the agent editor's sample data (tools, an inbox
 * with Request Context, an agent) to a data folder, for screenshots and
 * manual checks. A test helper, not a user command:
 * prs-seed-agents DATA_DIR */
#include "config.h"

#include "prs-agent-seed.h"

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsStore) store = NULL;
  g_autofree char *inbox = NULL;

  /* An option is no folder: "--help" once made a data folder of that name */
  if (argc != 2 || argv[1][0] == '-')
    {
      g_printerr ("usage: prs-seed-agents DATA_DIR\n");
      return 2;
    }

  store = prs_store_new (argv[1], &error);
  if (store == NULL)
    g_error ("%s", error->message);
  prs_agent_seed_tools (store);
  inbox = prs_agent_seed_inbox (store);
  prs_agent_seed_agents (store);
  g_print ("seeded %s\n", argv[1]);
  return 0;
}
