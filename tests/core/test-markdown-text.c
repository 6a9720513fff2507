/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-markdown-text.c: plain text out of Markdown (prs-markdown-text.c),
 * laid out, as a reply is copied as text. */
#include "config.h"

#include "prs-markdown-text.h"

static void
test_to_text (void)
{
  const struct { const char *markdown; const char *text; } cases[] = {
    { "**Subject:** Re: Q3\n**From:** alice", "Subject: Re: Q3\nFrom: alice" },
    { "# Title\n\nA *para*graph\nwith two lines.\n\nNext.", "Title\n\nA paragraph\nwith two lines.\n\nNext." },
    { "See [the agenda](https://example.com/a) or https://example.com/b.",
      "See the agenda (https://example.com/a) or https://example.com/b." },
    { "[https://x.org](https://x.org)", "https://x.org" },
    { "Items:\n\n- one\n- two\n  - deeper\n\n1. first\n2. second", "Items:\n\n• one\n• two\n  • deeper\n\n1. first\n2. second" },
    { "```\ncode *kept*\n  indented\n```", "code *kept*\n  indented" },
    { "| a | b |\n| --- | --- |\n| 1 | 2 |", "a | b\n1 | 2" },
    /* Raw HTML reads as the conversation shows it: as its text */
    { "![image](http://remote/x.png) &amp; <b>html</b>", "& <b>html</b>" },
    /* Bare addresses are links whose text says where they go */
    { "Write to a@b.io or see www.example.com.", "Write to a@b.io or see www.example.com." },
    /* Task items show their box, in a numbered list too */
    { "- [ ] todo\n- [x] done\n\n1. [ ] first", "☐ todo\n☑ done\n\n☐ first" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text = prs_markdown_to_text (cases[i].markdown, -1);

      g_assert_cmpstr (text, ==, cases[i].text);
    }
}

/* Folded, as search snippets show a reply: the reader's words, no markers */
static void
test_to_plain_text (void)
{
  const struct { const char *markdown; const char *text; } cases[] = {
    { "**Subject:** Re: Q3\n**From:** alice", "Subject: Re: Q3 From: alice" },
    { "| Time | Event |\n| --- | --- |\n| 13:00 | Q3 planning |\n| 16:00 | Call |",
      "Time Event 13:00 Q3 planning 16:00 Call" },
    { "See [the agenda](https://example.com/a).", "See the agenda." },
    { "Use <b>bold</b> or <span class=\"x\">this</span>.", "Use <b>bold</b> or <span class=\"x\">this</span>." },
    { "<div>\nblock\n</div>", "<div> block </div>" },
    { "- [ ] todo\n- [x] done", "☐ todo ☑ done" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text = prs_markdown_to_plain_text (cases[i].markdown, -1);

      g_assert_cmpstr (text, ==, cases[i].text);
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/prs/markdown-text/to-text", test_to_text);
  g_test_add_func ("/prs/markdown-text/to-plain-text", test_to_plain_text);
  return g_test_run ();
}
