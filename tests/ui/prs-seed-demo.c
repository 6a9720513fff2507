/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-seed-demo.c: fills a data folder with sample conversations (an email
 * triage with context and a pending tool call, a briefing in Markdown, a
 * support queue: prs-demo-seed.c) for screenshots and manual checks. A test
 * helper, not a user command: prs-seed-demo DATA_DIR [N_HUGE] [--long-reply]
 * (--long-reply: the briefing ends with a 20 KB report in Markdown). */
#include "config.h"

#include "prs-demo-seed.h"
#include "prs-ui-test-util.h"

/* A 20 KB report at the end of the briefing, read like the rest */
static void
add_long_reply (PrsStore *store)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *briefing = NULL;
  g_autofree char *report = prs_test_long_report (20 * 1024);
  PrsMessageInsert m = { 0 };

  if (!prs_store_resolve_conversation (store, "daily-briefing", &briefing, NULL, &error))
    g_error ("%s", error->message);
  m.conversation_id = briefing;
  m.kind = "assistant";
  m.agent_id = "prosponsive";
  m.content = report;
  m.status = "completed";
  if (!prs_store_insert_message (store, &m, NULL, NULL, &error))
    g_error ("%s", error->message);
  prs_store_mark_conversation_read (store, briefing, NULL);
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsStore) store = NULL;
  const char *n_huge = NULL;
  gboolean long_reply = FALSE;

  /* An option is no folder (the data folder comes first) */
  if (argc < 2 || argv[1][0] == '-')
    {
      g_printerr ("usage: prs-seed-demo DATA_DIR [N_HUGE] [--long-reply]\n");
      return 2;
    }
  for (int i = 2; i < argc; i++)
    if (g_strcmp0 (argv[i], "--long-reply") == 0)
      long_reply = TRUE;
    else
      n_huge = argv[i];

  g_mkdir_with_parents (argv[1], 0700);
  store = prs_store_new (argv[1], &error);
  if (store == NULL)
    g_error ("%s", error->message);

  if (n_huge != NULL)
    {
      g_autofree char *huge = NULL;

      if (!prs_store_resolve_conversation (store, "archive", &huge, NULL, &error) ||
          !prs_store_rename_conversation (store, huge, "Archive (long history)", &error))
        g_error ("%s", error->message);
      prs_test_seed_messages (prs_store_get_path (store), huge, (guint) g_ascii_strtoull (n_huge, NULL, 10));
    }

  prs_demo_seed (store);
  if (long_reply)
    add_long_reply (store);
  g_print ("seeded %s\n", argv[1]);
  return 0;
}
