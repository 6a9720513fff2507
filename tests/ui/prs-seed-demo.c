/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-seed-demo.c: fills a data folder with sample conversations (an email
 * triage with context and a pending tool call, a briefing in Markdown, a
 * support queue: prs-demo-seed.c) for screenshots and manual checks. A test
 * helper, not a user command: prs-seed-demo DATA_DIR [N_HUGE] */
#include "config.h"

#include "prs-demo-seed.h"
#include "prs-ui-test-util.h"

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsStore) store = NULL;

  if (argc < 2)
    {
      g_printerr ("usage: prs-seed-demo DATA_DIR [N_HUGE]\n");
      return 2;
    }

  g_mkdir_with_parents (argv[1], 0700);
  store = prs_store_new (argv[1], &error);
  if (store == NULL)
    g_error ("%s", error->message);

  if (argc > 2)
    {
      g_autofree char *huge = NULL;

      if (!prs_store_resolve_conversation (store, "archive", &huge, NULL, &error) ||
          !prs_store_rename_conversation (store, huge, "Archive (long history)", &error))
        g_error ("%s", error->message);
      prs_test_seed_messages (prs_store_get_path (store), huge, (guint) g_ascii_strtoull (argv[2], NULL, 10));
    }

  prs_demo_seed (store);
  g_print ("seeded %s\n", argv[1]);
  return 0;
}
