/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-seed-demo.c: fills a data folder with sample conversations (an email
 * triage with context and a pending tool call, a briefing in Markdown, a
 * support queue) for screenshots and manual checks. A test helper, not a
 * user command: prs-seed-demo DATA_DIR [N_HUGE] [--long-reply]
 * (--long-reply: the briefing ends with a 20 KB report in Markdown). */
#include "config.h"

#include "prs-store.h"
#include "prs-ui-test-util.h"

static char *
conversation (PrsStore   *store,
              const char *slug,
              const char *title)
{
  g_autoptr(GError) error = NULL;
  char *id = NULL;

  if (!prs_store_resolve_conversation (store, slug, &id, NULL, &error) ||
      (title != NULL && !prs_store_rename_conversation (store, id, title, &error)))
    g_error ("%s", error->message);
  return id;
}

static void
message (PrsStore   *store,
         const char *conversation_id,
         const char *kind,
         const char *agent_id,
         const char *content,
         const char *status,
         const char *context_json,
         const char *execution_json,
         const char *extra_json)
{
  g_autoptr(GError) error = NULL;
  PrsMessageInsert m = { 0 };

  m.conversation_id = conversation_id;
  m.kind = kind;
  m.agent_id = agent_id;
  m.content = content;
  m.status = status;
  m.context_json = context_json;
  m.execution_json = execution_json;
  m.extra_json = extra_json;
  if (!prs_store_insert_message (store, &m, NULL, NULL, &error))
    g_error ("%s", error->message);
}

#define EMAIL_CONTEXT \
  "{\"uid\":\"4711\",\"mailbox\":\"INBOX\",\"from\":\"Ann Example <ann@example.org>\"," \
  "\"subject\":\"Re: Q3 Planning\",\"receivedAt\":\"2024-09-12T09:41:00Z\"," \
  "\"openLink\":{\"url\":\"https://outlook.office.com/mail/inbox/id/AAMkAGI2\",\"label\":\"Open in Outlook\"}}"

/* A briefing in Markdown; with @long_reply, a 20 KB report after it */
static void
seed_briefing (PrsStore *store,
               gboolean  long_reply)
{
  g_autofree char *briefing = conversation (store, "daily-briefing", "Daily Briefing");

  message (store, briefing, "user", NULL, "What is on my plate today?", NULL, NULL, NULL, NULL);
  message (store, briefing, "assistant", "prosponsive",
           "## Today, Thursday\n\n"
           "You have **three meetings** and one deadline:\n\n"
           "| Time | What | Where |\n|---|---|---|\n"
           "| 09:30 | Stand-up | Room 2 |\n| 13:00 | Q3 planning | Video call |\n| 16:00 | 1:1 with Ann | Café |\n\n"
           "- The *budget sheet* is due at 17:00\n"
           "- Two pull requests wait for your review\n\n"
           "To rebuild the report locally, run:\n\n"
           "```\nmeson compile -C _build report\n```\n\n"
           "More in the [team calendar](https://calendar.example.org/team).",
           "completed", NULL, NULL, NULL);
  if (long_reply)
    {
      g_autofree char *report = prs_test_long_report (20 * 1024);

      message (store, briefing, "assistant", "prosponsive", report, "completed", NULL, NULL, NULL);
    }
  prs_store_mark_conversation_read (store, briefing, NULL);
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsStore) store = NULL;
  g_autofree char *support = NULL;
  g_autofree char *home = NULL;
  g_autofree char *inbox = NULL;
  const char *n_huge = NULL;
  gboolean long_reply = FALSE;

  if (argc < 2)
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
      g_autofree char *huge = conversation (store, "archive", "Archive (long history)");

      prs_test_seed_messages (prs_store_get_path (store), huge, (guint) g_ascii_strtoull (n_huge, NULL, 10));
    }

  home = conversation (store, "home-automation", "Home Automation");
  message (store, home, "inbound", NULL, "The front door was left open for 10 minutes.", "completed", NULL,
           "{\"workflowId\":\"wf-home-alerts\",\"executionId\":\"9921\"}", NULL);
  message (store, home, "notice", NULL, "No AI provider is set up yet: add one in Preferences to get answers.",
           "failed", NULL, NULL, NULL);

  support = conversation (store, "support-tickets", "Support Tickets");
  message (store, support, "inbound", NULL,
           "Ticket #2291 from Bob: the export button does nothing in Firefox.",
           "completed",
           "{\"ticket\":2291,\"customer\":\"Bob Builder\",\"priority\":\"normal\","
           "\"openLink\":{\"url\":\"https://support.example.org/tickets/2291\",\"label\":\"Open ticket #2291\"}}",
           "{\"workflowId\":\"wf-support\",\"executionId\":\"31877\"}", NULL);
  message (store, support, "tool-call", NULL, NULL, "succeeded", NULL, NULL,
           "{\"name\":\"ticket_search\",\"arguments\":{\"query\":\"export button firefox\",\"limit\":5},"
           "\"provenance\":{\"query\":\"model\",\"limit\":\"constant\"},"
           "\"result\":{\"matches\":[{\"id\":2107,\"title\":\"Export broken in Firefox 128\",\"status\":\"fixed in 4.2\"}]}}");
  message (store, support, "assistant", "prosponsive",
           "This looks like a known issue.\n\n"
           "Ticket: #2107\nStatus: fixed in 4.2\nWorkaround: use Chromium or update to 4.2\n\n"
           "I suggest replying to Bob with the workaround and linking https://status.example.org/2107.",
           "completed",
           "{\"ticket\":2291,\"customer\":\"Bob Builder\",\"priority\":\"normal\","
           "\"openLink\":{\"url\":\"https://support.example.org/tickets/2291\",\"label\":\"Open ticket #2291\"}}",
           NULL, "{\"provider\":\"Ollama\",\"model\":\"llama3.1\"}");

  seed_briefing (store, long_reply);

  inbox = conversation (store, "email-inbox", "Email Inbox");
  message (store, inbox, "inbound", NULL,
           "New email from Ann Example <ann@example.org> — “Re: Q3 Planning”. Summarise it and propose where to file it.",
           "completed", EMAIL_CONTEXT,
           "{\"workflowId\":\"wf-email-triage\",\"executionId\":\"48213\"}", NULL);
  message (store, inbox, "assistant", "prosponsive",
           "I read the new email. Here is what matters:\n\n"
           "**From:** Ann Example <ann@example.org>\n"
           "**Subject:** Re: Q3 Planning\n"
           "**Received:** Today, 09:41\n"
           "**Priority:** High\n"
           "**Thread:** https://outlook.office.com/mail/inbox/id/AAMkAGI2\n\n"
           "Ann confirms the **Q3 planning** meeting and asks for two things:\n\n"
           "1. The updated budget sheet by *Thursday*\n"
           "2. A short summary of the hiring plan\n\n"
           "I propose filing it in *Planning*.",
           "completed", EMAIL_CONTEXT, NULL, "{\"provider\":\"Ollama\",\"model\":\"llama3.1\"}");
  message (store, inbox, "tool-call", NULL, NULL, "proposed", NULL, NULL,
           "{\"name\":\"email_move_to_folder\",\"arguments\":{\"uid\":\"4711\",\"destination\":\"Planning\"},"
           "\"provenance\":{\"uid\":\"context:uid\",\"destination\":\"model\"}}");

  g_print ("seeded %s\n", argv[1]);
  return 0;
}
