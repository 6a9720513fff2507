/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Tests for prs-layout.c: docs/layout.md layout rules, case by case, the JSON
 * they print as, and linear time on large inputs. */
#include <string.h>
#include <time.h>

#include "prs-json.h"
#include "prs-layout.h"

/* Expected JSON is written with ' for " to keep the tables readable. */
typedef struct
{
  const char *name;
  const char *input;
  const char *expected;
} Case;

static char *
layout_json_len (const char *text,
                 gssize      len)
{
  g_autoptr(GPtrArray) blocks = prs_layout_parse (text, len);

  return prs_layout_to_json (blocks, FALSE);
}

static char *
layout_json (const char *text)
{
  return layout_json_len (text, -1);
}

static char *
unquote (const char *expected)
{
  char *s = g_strdup (expected);

  for (char *p = s; *p != '\0'; p++)
    {
      if (*p == '\'')
        *p = '"';
    }

  return s;
}

static void
check_cases (const Case *cases,
             gsize       n_cases)
{
  for (gsize i = 0; i < n_cases; i++)
    {
      g_autofree char *json = layout_json (cases[i].input);
      g_autofree char *expected = unquote (cases[i].expected);

      g_test_message ("%s", cases[i].name);
      g_assert_cmpstr (json, ==, expected);
    }
}

#define CHECK_CASES(cases) check_cases (cases, G_N_ELEMENTS (cases))

/* ---------------------------------------------------------------- the guide */

#define GUIDE_EMAIL \
  "Subject: Re: Q3 Planning\n" \
  "From: alice@example.com\n" \
  "Date: April 3, 2026\n" \
  "Status: Unread\n" \
  "Folder: INBOX\n" \
  "Priority: Normal"

#define GUIDE_GRID \
  "{'type':'grid','rows':[{'key':'Subject','value':'Re: Q3 Planning'}," \
  "{'key':'From','value':'alice@example.com'},{'key':'Date','value':'April 3, 2026'}," \
  "{'key':'Status','value':'Unread'},{'key':'Folder','value':'INBOX'}," \
  "{'key':'Priority','value':'Normal'}]}"

static void
test_guide_example (void)
{
  static const Case cases[] = {
    { "guide", GUIDE_EMAIL, "[" GUIDE_GRID "]" },
    { "guide, trailing newline", GUIDE_EMAIL "\n", "[" GUIDE_GRID "]" },
    { "guide, CRLF",
      "Subject: Re: Q3 Planning\r\nFrom: alice@example.com\r\nDate: April 3, 2026\r\n"
      "Status: Unread\r\nFolder: INBOX\r\nPriority: Normal\r\n",
      "[" GUIDE_GRID "]" },
    { "guide, with intro and body",
      "Here is the email:\n\n" GUIDE_EMAIL "\n\nBody:\nHi team,\n\nSee you.\n",
      "[{'type':'text','text':'Here is the email:'}," GUIDE_GRID ","
      "{'type':'text','text':'Body:\\nHi team,\\n\\nSee you.'}]" },
    { "guide, bullets and bold",
      "- **Subject:** Re: Q3 Planning\n- **From:** alice@example.com\n- **Date:** April 3, 2026\n"
      "- **Status:** Unread\n- **Folder:** INBOX\n- **Priority:** Normal",
      "[" GUIDE_GRID "]" },
  };
  g_autoptr(GPtrArray) blocks = prs_layout_parse (GUIDE_EMAIL, -1);
  const PrsLayoutBlock *block;

  CHECK_CASES (cases);

  /* The structure itself, as the UI reads it. */
  g_assert_cmpuint (blocks->len, ==, 1);
  block = g_ptr_array_index (blocks, 0);
  g_assert_cmpint (block->type, ==, PRS_LAYOUT_BLOCK_GRID);
  g_assert_null (block->text);
  g_assert_cmpuint (block->rows->len, ==, 6);
  g_assert_cmpstr (g_array_index (block->rows, PrsLayoutRow, 0).key, ==, "Subject");
  g_assert_cmpstr (g_array_index (block->rows, PrsLayoutRow, 0).value, ==, "Re: Q3 Planning");
  g_assert_cmpstr (g_array_index (block->rows, PrsLayoutRow, 5).key, ==, "Priority");
  g_assert_cmpstr (g_array_index (block->rows, PrsLayoutRow, 5).value, ==, "Normal");
}

/* ---------------------------------------------------------------- rule 1, 8: lines, text */

static void
test_lines_and_text (void)
{
  static const Case cases[] = {
    { "empty", "", "[]" },
    { "blank lines only", "\n\n   \n\t\n", "[]" },
    { "one line", "Hello", "[{'type':'text','text':'Hello'}]" },
    { "edge blank lines dropped", "\n\n  \nHello\nworld\n\n \n",
      "[{'type':'text','text':'Hello\\nworld'}]" },
    { "inner blank lines kept verbatim", "a\n\n  \nb",
      "[{'type':'text','text':'a\\n\\n  \\nb'}]" },
    { "CRLF joined with LF", "a\r\nb\r\n\r\nc\r\n",
      "[{'type':'text','text':'a\\nb\\n\\nc'}]" },
    { "mixed line endings", "a\nb\r\nc", "[{'type':'text','text':'a\\nb\\nc'}]" },
    { "lone CR inside a line kept", "a\rb\nc", "[{'type':'text','text':'a\\rb\\nc'}]" },
    { "CR before the end", "a\r", "[{'type':'text','text':'a'}]" },
    { "leading whitespace kept", "  indented\n\tcode", "[{'type':'text','text':'  indented\\n\\tcode'}]" },
    { "markdown untouched", "# Title\n\n*emphasis* and `code`",
      "[{'type':'text','text':'# Title\\n\\n*emphasis* and `code`'}]" },
    { "no delimiter", "Just a sentence, with commas; and semicolons.",
      "[{'type':'text','text':'Just a sentence, with commas; and semicolons.'}]" },
  };

  CHECK_CASES (cases);
}

/* ---------------------------------------------------------------- rule 3: delimiters */

static void
test_delimiters (void)
{
  static const Case cases[] = {
    { "colon", "A: 1\nB: 2",
      "[{'type':'grid','rows':[{'key':'A','value':'1'},{'key':'B','value':'2'}]}]" },
    { "colon and tab", "A:\t1\nB:\t2",
      "[{'type':'grid','rows':[{'key':'A','value':'1'},{'key':'B','value':'2'}]}]" },
    { "colon with space before", "Due date : Friday\nOwner : Ann",
      "[{'type':'grid','rows':[{'key':'Due date','value':'Friday'},{'key':'Owner','value':'Ann'}]}]" },
    { "equals", "Width = 10\nHeight = 20",
      "[{'type':'grid','rows':[{'key':'Width','value':'10'},{'key':'Height','value':'20'}]}]" },
    { "hyphen", "Email - Move\nFolder - Archive",
      "[{'type':'grid','rows':[{'key':'Email','value':'Move'},{'key':'Folder','value':'Archive'}]}]" },
    { "en dash", "Email – Move\nFolder – Archive",
      "[{'type':'grid','rows':[{'key':'Email','value':'Move'},{'key':'Folder','value':'Archive'}]}]" },
    { "em dash", "Email — Move\nFolder — Archive",
      "[{'type':'grid','rows':[{'key':'Email','value':'Move'},{'key':'Folder','value':'Archive'}]}]" },
    { "all five mixed", "A: 1\nB = 2\nC - 3\nD – 4\nE — 5",
      "[{'type':'grid','rows':[{'key':'A','value':'1'},{'key':'B','value':'2'},{'key':'C','value':'3'},"
      "{'key':'D','value':'4'},{'key':'E','value':'5'}]}]" },
    { "extra spaces trimmed", "  Key   :    spaced value   \nOther   =   x  ",
      "[{'type':'grid','rows':[{'key':'Key','value':'spaced value'},{'key':'Other','value':'x'}]}]" },
    { "value keeps later delimiters", "Subject: Re: Q3 - final = yes\nTime: 10:30",
      "[{'type':'grid','rows':[{'key':'Subject','value':'Re: Q3 - final = yes'},"
      "{'key':'Time','value':'10:30'}]}]" },
    { "colon without space is none", "Key:value\nOther:thing",
      "[{'type':'text','text':'Key:value\\nOther:thing'}]" },
    { "equals without spaces is none", "a=b\nc =d\ne= f",
      "[{'type':'text','text':'a=b\\nc =d\\ne= f'}]" },
    { "hyphen in words is none", "e-mail\nwell-known -fact\nx- y",
      "[{'type':'text','text':'e-mail\\nwell-known -fact\\nx- y'}]" },
    { "dashes without spaces are none", "A–B\nC—D",
      "[{'type':'text','text':'A–B\\nC—D'}]" },
    { "hyphenated key", "Well-known - yes\nRe-sent - no",
      "[{'type':'grid','rows':[{'key':'Well-known','value':'yes'},{'key':'Re-sent','value':'no'}]}]" },
    { "NBSP counts as whitespace", "A\xc2\xa0=\xc2\xa0" "1\nB = 2",
      "[{'type':'grid','rows':[{'key':'A','value':'1'},{'key':'B','value':'2'}]}]" },
    { "= with empty value is text", "Key = \nOther = \nA = 1",
      "[{'type':'text','text':'Key = \\nOther = \\nA = 1'}]" },
    { "= at the end is no delimiter", "Key =\nOther -",
      "[{'type':'text','text':'Key =\\nOther -'}]" },
  };

  CHECK_CASES (cases);
}

static void
test_earliest_delimiter (void)
{
  static const Case cases[] = {
    { "dash before colon", "Time - 10:30 am\nRoom - B: 2nd floor",
      "[{'type':'grid','rows':[{'key':'Time','value':'10:30 am'},{'key':'Room','value':'B: 2nd floor'}]}]" },
    { "equals before colon", "Ratio = 1: 2\nMode = a - b",
      "[{'type':'grid','rows':[{'key':'Ratio','value':'1: 2'},{'key':'Mode','value':'a - b'}]}]" },
    { "colon before dash", "Note: a - b\nPlan: x = y",
      "[{'type':'grid','rows':[{'key':'Note','value':'a - b'},{'key':'Plan','value':'x = y'}]}]" },
    { "em dash before equals", "Alpha — b = c\nBeta — d",
      "[{'type':'grid','rows':[{'key':'Alpha','value':'b = c'},{'key':'Beta','value':'d'}]}]" },
    /* The earliest delimiter decides; a later one is not tried. */
    { "invalid key at the earliest, no fallback", "12 - Subject: x\nB: 2\nC: 3",
      "[{'type':'text','text':'12 - Subject: x'},"
      "{'type':'grid','rows':[{'key':'B','value':'2'},{'key':'C','value':'3'}]}]" },
    { "too long before the earliest", "This part is much longer than thirty - Key: value\nB: 2",
      "[{'type':'text','text':'This part is much longer than thirty - Key: value\\nB: 2'}]" },
    { "colon in the key text before a dash", "a:b - c\nd:e - f",
      "[{'type':'grid','rows':[{'key':'a:b','value':'c'},{'key':'d:e','value':'f'}]}]" },
  };

  CHECK_CASES (cases);
}

/* ---------------------------------------------------------------- rule 2: bullets, bold */

static void
test_bullets (void)
{
  static const Case cases[] = {
    { "hyphen bullet", "- A: 1\n- B: 2",
      "[{'type':'grid','rows':[{'key':'A','value':'1'},{'key':'B','value':'2'}]}]" },
    { "star bullet", "* A: 1\n* B: 2",
      "[{'type':'grid','rows':[{'key':'A','value':'1'},{'key':'B','value':'2'}]}]" },
    { "plus bullet", "+ A: 1\n+ B: 2",
      "[{'type':'grid','rows':[{'key':'A','value':'1'},{'key':'B','value':'2'}]}]" },
    { "round bullet", "• A: 1\n• B: 2",
      "[{'type':'grid','rows':[{'key':'A','value':'1'},{'key':'B','value':'2'}]}]" },
    { "indented and mixed bullets", "   - A: 1\n\t* B = 2\n  + C - 3\n    • D: 4",
      "[{'type':'grid','rows':[{'key':'A','value':'1'},{'key':'B','value':'2'},{'key':'C','value':'3'},"
      "{'key':'D','value':'4'}]}]" },
    { "hyphen bullet with dash delimiter", "- Email - Move\n- Folder - Archive",
      "[{'type':'grid','rows':[{'key':'Email','value':'Move'},{'key':'Folder','value':'Archive'}]}]" },
    { "bullet without space is no bullet", "-A: 1\n-B: 2",
      "[{'type':'text','text':'-A: 1\\n-B: 2'}]" },
    { "only one bullet dropped", "- - A: 1\n- - B: 2",
      "[{'type':'text','text':'- - A: 1\\n- - B: 2'}]" },
    { "numbered list is no bullet", "1. A: 1\n2. B: 2",
      "[{'type':'text','text':'1. A: 1\\n2. B: 2'}]" },
    { "plain list stays text", "- apples\n- pears",
      "[{'type':'text','text':'- apples\\n- pears'}]" },
    { "single pair keeps its bullet", "- Only: one",
      "[{'type':'text','text':'- Only: one'}]" },
  };

  CHECK_CASES (cases);
}

static void
test_bold (void)
{
  static const Case cases[] = {
    { "colon inside bold", "**Subject:** Hi\n**From:** Bob",
      "[{'type':'grid','rows':[{'key':'Subject','value':'Hi'},{'key':'From','value':'Bob'}]}]" },
    { "colon after bold", "**Subject**: Hi\n**From**: Bob",
      "[{'type':'grid','rows':[{'key':'Subject','value':'Hi'},{'key':'From','value':'Bob'}]}]" },
    { "underscores", "__Subject:__ Hi\n__From__: Bob",
      "[{'type':'grid','rows':[{'key':'Subject','value':'Hi'},{'key':'From','value':'Bob'}]}]" },
    { "bullet then bold", "- **Subject:** Hi\n* **From**: Bob\n+ __To:__ Ann\n• **Cc**: Dan",
      "[{'type':'grid','rows':[{'key':'Subject','value':'Hi'},{'key':'From','value':'Bob'},"
      "{'key':'To','value':'Ann'},{'key':'Cc','value':'Dan'}]}]" },
    { "bold with other delimiters", "**Width** = 10\n**Mode** – fast",
      "[{'type':'grid','rows':[{'key':'Width','value':'10'},{'key':'Mode','value':'fast'}]}]" },
    { "only the first two markers go", "**A:** **bold** value\n**B:** x",
      "[{'type':'grid','rows':[{'key':'A','value':'**bold** value'},{'key':'B','value':'x'}]}]" },
    { "bold not at the start stays", "Key **x**: y\nOther: z",
      "[{'type':'grid','rows':[{'key':'Key **x**','value':'y'},{'key':'Other','value':'z'}]}]" },
    { "single marker removed", "**A: 1\n**B: 2",
      "[{'type':'grid','rows':[{'key':'A','value':'1'},{'key':'B','value':'2'}]}]" },
    { "text keeps the original bold line", "**Only:** one",
      "[{'type':'text','text':'**Only:** one'}]" },
    { "bold heading is text", "**Summary**\nAll good.",
      "[{'type':'text','text':'**Summary**\\nAll good.'}]" },
    { "bold bare key ends after a grid", "A: 1\nB: 2\n**Body:**\nC: 3\nD: 4",
      "[{'type':'grid','rows':[{'key':'A','value':'1'},{'key':'B','value':'2'}]},"
      "{'type':'text','text':'**Body:**\\nC: 3\\nD: 4'}]" },
  };

  CHECK_CASES (cases);
}

/* ---------------------------------------------------------------- rule 4: keys */

static void
test_keys (void)
{
  static const Case cases[] = {
    { "29 characters", "Abcdefghijklmnopqrstuvwxyzabc: 1\nB: 2",
      "[{'type':'grid','rows':[{'key':'Abcdefghijklmnopqrstuvwxyzabc','value':'1'},{'key':'B','value':'2'}]}]" },
    { "30 characters", "Abcdefghijklmnopqrstuvwxyzabcd: 1\nB: 2",
      "[{'type':'text','text':'Abcdefghijklmnopqrstuvwxyzabcd: 1\\nB: 2'}]" },
    { "29 with inner spaces", "The quick brown fox jumps ove: 1\nB: 2",
      "[{'type':'grid','rows':[{'key':'The quick brown fox jumps ove','value':'1'},{'key':'B','value':'2'}]}]" },
    { "surrounding spaces do not count", "    Abcdefghijklmnopqrstuvwxyzabc    : 1\nB: 2",
      "[{'type':'grid','rows':[{'key':'Abcdefghijklmnopqrstuvwxyzabc','value':'1'},{'key':'B','value':'2'}]}]" },
    { "one character", "A: 1\nB: 2",
      "[{'type':'grid','rows':[{'key':'A','value':'1'},{'key':'B','value':'2'}]}]" },
    { "empty key", ": 1\n: 2", "[{'type':'text','text':': 1\\n: 2'}]" },
    { "digit first", "1st: gold\n2nd: silver", "[{'type':'text','text':'1st: gold\\n2nd: silver'}]" },
    { "digit later", "Q3: planning\nH2: review",
      "[{'type':'grid','rows':[{'key':'Q3','value':'planning'},{'key':'H2','value':'review'}]}]" },
    { "symbol first", "_id: 1\n#tag: 2\n(a): 3", "[{'type':'text','text':'_id: 1\\n#tag: 2\\n(a): 3'}]" },
    { "Cyrillic", "Тема: Привет\nОт: Иван",
      "[{'type':'grid','rows':[{'key':'Тема','value':'Привет'},{'key':'От','value':'Иван'}]}]" },
    { "CJK", "件名: 会議\n差出人: 太郎",
      "[{'type':'grid','rows':[{'key':'件名','value':'会議'},{'key':'差出人','value':'太郎'}]}]" },
    { "Greek", "Θέμα: Γεια\nΑπό = Νίκος",
      "[{'type':'grid','rows':[{'key':'Θέμα','value':'Γεια'},{'key':'Από','value':'Νίκος'}]}]" },
    { "accented Latin", "Été: chaud\nÅr: 2026",
      "[{'type':'grid','rows':[{'key':'Été','value':'chaud'},{'key':'År','value':'2026'}]}]" },
    /* 29 and 30 Cyrillic letters: 58 and 60 bytes; characters count. */
    { "29 Cyrillic characters", "Ааааааааааааааааааааааааааааа: 1\nБ: 2",
      "[{'type':'grid','rows':[{'key':'Ааааааааааааааааааааааааааааа','value':'1'},{'key':'Б','value':'2'}]}]" },
    { "30 Cyrillic characters", "Аааааааааааааааааааааааааааааа: 1\nБ: 2",
      "[{'type':'text','text':'Аааааааааааааааааааааааааааааа: 1\\nБ: 2'}]" },
    { "29 CJK characters", "会会会会会会会会会会会会会会会会会会会会会会会会会会会会会: 1\nB: 2",
      "[{'type':'grid','rows':[{'key':'会会会会会会会会会会会会会会会会会会会会会会会会会会会会会','value':'1'},"
      "{'key':'B','value':'2'}]}]" },
    { "emoji first", "🙂: 1\n🙃: 2", "[{'type':'text','text':'🙂: 1\\n🙃: 2'}]" },
  };

  CHECK_CASES (cases);
}

/* ---------------------------------------------------------------- rule 5: links */

static void
test_link_lines (void)
{
  static const Case cases[] = {
    { "http and https", "Link: https://example.com/a\nDocs: http://example.org",
      "[{'type':'text','text':'Link: https://example.com/a\\nDocs: http://example.org'}]" },
    { "mailto", "Mail: mailto:alice@example.com\nB: 2",
      "[{'type':'text','text':'Mail: mailto:alice@example.com\\nB: 2'}]" },
    { "www", "Web: www.example.com\nB: 2",
      "[{'type':'text','text':'Web: www.example.com\\nB: 2'}]" },
    { "www in capitals", "Web: WWW.Example.com\nB: 2",
      "[{'type':'text','text':'Web: WWW.Example.com\\nB: 2'}]" },
    { "custom schemes", "Open: message://%3Cabc@example.com%3E\nSlack: slack://channel?id=1\n"
      "Outlook: ms-outlook://mail",
      "[{'type':'text','text':'Open: message://%3Cabc@example.com%3E\\nSlack: slack://channel?id=1\\n"
      "Outlook: ms-outlook://mail'}]" },
    { "link line breaks a run", "A: 1\nLink: https://x.org\nB: 2",
      "[{'type':'text','text':'A: 1\\nLink: https://x.org\\nB: 2'}]" },
    { "link line between grids", "A: 1\nB: 2\nLink: https://x.org\nC: 3\nD: 4",
      "[{'type':'grid','rows':[{'key':'A','value':'1'},{'key':'B','value':'2'}]},"
      "{'type':'text','text':'Link: https://x.org'},"
      "{'type':'grid','rows':[{'key':'C','value':'3'},{'key':'D','value':'4'}]}]" },
    { "bold link line", "**Link:** https://x.org\n**Docs**: https://y.org",
      "[{'type':'text','text':'**Link:** https://x.org\\n**Docs**: https://y.org'}]" },
    { "URL later in the value is a pair", "Ref: see https://x.org\nB: 2",
      "[{'type':'grid','rows':[{'key':'Ref','value':'see https://x.org'},{'key':'B','value':'2'}]}]" },
    { "domain without scheme is a pair", "Site: example.com\nMail: alice@example.com",
      "[{'type':'grid','rows':[{'key':'Site','value':'example.com'},{'key':'Mail','value':'alice@example.com'}]}]" },
    { "scheme without slashes is a pair", "Proto: http\nNote: urn:isbn:1",
      "[{'type':'grid','rows':[{'key':'Proto','value':'http'},{'key':'Note','value':'urn:isbn:1'}]}]" },
    { "only colon lines are link lines", "Docs = https://x.org\nHome - www.example.com",
      "[{'type':'grid','rows':[{'key':'Docs','value':'https://x.org'},{'key':'Home','value':'www.example.com'}]}]" },
    { "bare URL line is text", "https://example.com\nA: 1",
      "[{'type':'text','text':'https://example.com\\nA: 1'}]" },
  };

  CHECK_CASES (cases);
}

/* ---------------------------------------------------------------- rule 6: bare keys */

static void
test_bare_keys (void)
{
  static const Case cases[] = {
    { "after a grid ends the section", "A: 1\nB: 2\nBody:\nC: 3\nD: 4\n\nE: 5",
      "[{'type':'grid','rows':[{'key':'A','value':'1'},{'key':'B','value':'2'}]},"
      "{'type':'text','text':'Body:\\nC: 3\\nD: 4\\n\\nE: 5'}]" },
    { "after a grid, blank lines before", "A: 1\nB: 2\n\n\nBody:\n\nHi,\n\n",
      "[{'type':'grid','rows':[{'key':'A','value':'1'},{'key':'B','value':'2'}]},"
      "{'type':'text','text':'Body:\\n\\nHi,'}]" },
    { "after a grid and text", "A: 1\nB: 2\nSome text\nC: 3\nNotes:\nD: 4\nE: 5",
      "[{'type':'grid','rows':[{'key':'A','value':'1'},{'key':'B','value':'2'}]},"
      "{'type':'text','text':'Some text\\nC: 3\\nNotes:\\nD: 4\\nE: 5'}]" },
    { "before any grid is text", "Body:\nA: 1\nB: 2",
      "[{'type':'text','text':'Body:'},"
      "{'type':'grid','rows':[{'key':'A','value':'1'},{'key':'B','value':'2'}]}]" },
    { "before any grid breaks a run", "A: 1\nNotes:\nB: 2\nC: 3\nBody:\nD: 4\nE: 5",
      "[{'type':'text','text':'A: 1\\nNotes:'},"
      "{'type':'grid','rows':[{'key':'B','value':'2'},{'key':'C','value':'3'}]},"
      "{'type':'text','text':'Body:\\nD: 4\\nE: 5'}]" },
    { "bare key with trailing whitespace", "A: 1\nB: 2\nBody:   \t\nC: 3\nD: 4",
      "[{'type':'grid','rows':[{'key':'A','value':'1'},{'key':'B','value':'2'}]},"
      "{'type':'text','text':'Body:   \\t\\nC: 3\\nD: 4'}]" },
    { "bare key with a bullet", "A: 1\nB: 2\n- Body:\nC: 3\nD: 4",
      "[{'type':'grid','rows':[{'key':'A','value':'1'},{'key':'B','value':'2'}]},"
      "{'type':'text','text':'- Body:\\nC: 3\\nD: 4'}]" },
    { "bare key with bold after", "A: 1\nB: 2\n**Body**:\nC: 3\nD: 4",
      "[{'type':'grid','rows':[{'key':'A','value':'1'},{'key':'B','value':'2'}]},"
      "{'type':'text','text':'**Body**:\\nC: 3\\nD: 4'}]" },
    { "invalid key with a colon is no bare key", "A: 1\nB: 2\nHere is what the whole message says:\nC: 3\nD: 4",
      "[{'type':'grid','rows':[{'key':'A','value':'1'},{'key':'B','value':'2'}]},"
      "{'type':'text','text':'Here is what the whole message says:'},"
      "{'type':'grid','rows':[{'key':'C','value':'3'},{'key':'D','value':'4'}]}]" },
    { "digit key with a colon is no bare key", "A: 1\nB: 2\n2026:\nC: 3\nD: 4",
      "[{'type':'grid','rows':[{'key':'A','value':'1'},{'key':'B','value':'2'}]},"
      "{'type':'text','text':'2026:'},"
      "{'type':'grid','rows':[{'key':'C','value':'3'},{'key':'D','value':'4'}]}]" },
    { "empty value with = is no bare key", "A: 1\nB: 2\nBody = \nC: 3\nD: 4",
      "[{'type':'grid','rows':[{'key':'A','value':'1'},{'key':'B','value':'2'}]},"
      "{'type':'text','text':'Body = '},"
      "{'type':'grid','rows':[{'key':'C','value':'3'},{'key':'D','value':'4'}]}]" },
    { "bare key in a fence does not end", "A: 1\nB: 2\n```\nBody:\n```\nC: 3\nD: 4",
      "[{'type':'grid','rows':[{'key':'A','value':'1'},{'key':'B','value':'2'}]},"
      "{'type':'text','text':'```\\nBody:\\n```'},"
      "{'type':'grid','rows':[{'key':'C','value':'3'},{'key':'D','value':'4'}]}]" },
    { "after the end, fences and all are text", "A: 1\nB: 2\nBody:\n```\nx\n```\n\nC: 3\nD: 4",
      "[{'type':'grid','rows':[{'key':'A','value':'1'},{'key':'B','value':'2'}]},"
      "{'type':'text','text':'Body:\\n```\\nx\\n```\\n\\nC: 3\\nD: 4'}]" },
    { "a single pair before a bare key after a grid", "A: 1\nB: 2\n\nText\nC: 3\n\nBody:\nx",
      "[{'type':'grid','rows':[{'key':'A','value':'1'},{'key':'B','value':'2'}]},"
      "{'type':'text','text':'Text\\nC: 3\\n\\nBody:\\nx'}]" },
  };

  CHECK_CASES (cases);
}

/* ---------------------------------------------------------------- rule 7: runs */

static void
test_runs (void)
{
  static const Case cases[] = {
    { "one pair is text", "Subject: Hi", "[{'type':'text','text':'Subject: Hi'}]" },
    { "blank lines inside a run", "A: 1\n\n\nB: 2\n  \t\nC: 3",
      "[{'type':'grid','rows':[{'key':'A','value':'1'},{'key':'B','value':'2'},{'key':'C','value':'3'}]}]" },
    { "CRLF blank lines inside a run", "A: 1\r\n\r\nB: 2\r\n",
      "[{'type':'grid','rows':[{'key':'A','value':'1'},{'key':'B','value':'2'}]}]" },
    { "text breaks a run of one", "A: 1\n\nhello\n\nB: 2\nC: 3",
      "[{'type':'text','text':'A: 1\\n\\nhello'},"
      "{'type':'grid','rows':[{'key':'B','value':'2'},{'key':'C','value':'3'}]}]" },
    { "text grid text", "Intro line\nA: 1\nB: 2\nOutro line",
      "[{'type':'text','text':'Intro line'},"
      "{'type':'grid','rows':[{'key':'A','value':'1'},{'key':'B','value':'2'}]},"
      "{'type':'text','text':'Outro line'}]" },
    { "text grid text with blank lines", "\nIntro\n\n\nA: 1\n\nB: 2\n\n\nOutro\n\nEnd\n",
      "[{'type':'text','text':'Intro'},"
      "{'type':'grid','rows':[{'key':'A','value':'1'},{'key':'B','value':'2'}]},"
      "{'type':'text','text':'Outro\\n\\nEnd'}]" },
    { "grid text grid", "A: 1\nB: 2\nbetween\nC: 3\nD: 4",
      "[{'type':'grid','rows':[{'key':'A','value':'1'},{'key':'B','value':'2'}]},"
      "{'type':'text','text':'between'},"
      "{'type':'grid','rows':[{'key':'C','value':'3'},{'key':'D','value':'4'}]}]" },
    { "single pairs between text merge", "x\nA: 1\ny\nB: 2\nz",
      "[{'type':'text','text':'x\\nA: 1\\ny\\nB: 2\\nz'}]" },
    { "a single pair then blank lines at the end", "Intro\n\nA: 1\n\n\n",
      "[{'type':'text','text':'Intro\\n\\nA: 1'}]" },
    { "two grids need a breaking line", "A: 1\nB: 2\n\nC: 3\nD: 4",
      "[{'type':'grid','rows':[{'key':'A','value':'1'},{'key':'B','value':'2'},"
      "{'key':'C','value':'3'},{'key':'D','value':'4'}]}]" },
    { "heading between grids", "A: 1\nB: 2\n## Next\nC: 3\nD: 4",
      "[{'type':'grid','rows':[{'key':'A','value':'1'},{'key':'B','value':'2'}]},"
      "{'type':'text','text':'## Next'},"
      "{'type':'grid','rows':[{'key':'C','value':'3'},{'key':'D','value':'4'}]}]" },
    { "duplicate keys are kept", "A: 1\nA: 2",
      "[{'type':'grid','rows':[{'key':'A','value':'1'},{'key':'A','value':'2'}]}]" },
  };

  CHECK_CASES (cases);
}

/* ---------------------------------------------------------------- rule 1: fences */

static void
test_fences (void)
{
  static const Case cases[] = {
    { "pairs inside a fence", "```\nA: 1\nB: 2\n```",
      "[{'type':'text','text':'```\\nA: 1\\nB: 2\\n```'}]" },
    { "fence with a language", "```json\nA: 1\nB: 2\n```\nC: 3\nD: 4",
      "[{'type':'text','text':'```json\\nA: 1\\nB: 2\\n```'},"
      "{'type':'grid','rows':[{'key':'C','value':'3'},{'key':'D','value':'4'}]}]" },
    { "fence breaks a run", "A: 1\nB: 2\n```\ncode\n```\nC: 3\nD: 4",
      "[{'type':'grid','rows':[{'key':'A','value':'1'},{'key':'B','value':'2'}]},"
      "{'type':'text','text':'```\\ncode\\n```'},"
      "{'type':'grid','rows':[{'key':'C','value':'3'},{'key':'D','value':'4'}]}]" },
    { "fence breaks a run of one", "A: 1\n```\nx\n```\nB: 2",
      "[{'type':'text','text':'A: 1\\n```\\nx\\n```\\nB: 2'}]" },
    { "unclosed fence", "Intro\n```\nA: 1\nB: 2\n\n",
      "[{'type':'text','text':'Intro\\n```\\nA: 1\\nB: 2'}]" },
    { "indented fence", "  ```\nA: 1\nB: 2\n  ```",
      "[{'type':'text','text':'  ```\\nA: 1\\nB: 2\\n  ```'}]" },
    { "blank lines inside a fence kept", "```\n\n\nx\n\n```",
      "[{'type':'text','text':'```\\n\\n\\nx\\n\\n```'}]" },
    { "CRLF fence", "```\r\nA: 1\r\nB: 2\r\n```\r\n",
      "[{'type':'text','text':'```\\nA: 1\\nB: 2\\n```'}]" },
    { "a fence line with a language does not close", "```\nA: 1\n```js\nB: 2\nC: 3",
      "[{'type':'text','text':'```\\nA: 1\\n```js\\nB: 2\\nC: 3'}]" },
    { "a longer fence needs a longer close", "````\n```\nA: 1\nB: 2\n````\nC: 3\nD: 4",
      "[{'type':'text','text':'````\\n```\\nA: 1\\nB: 2\\n````'},"
      "{'type':'grid','rows':[{'key':'C','value':'3'},{'key':'D','value':'4'}]}]" },
    { "inline code is no fence", "```x``` A: 1\nB: 2\nC: 3",
      "[{'type':'text','text':'```x``` A: 1'},"
      "{'type':'grid','rows':[{'key':'B','value':'2'},{'key':'C','value':'3'}]}]" },
    { "two backticks are no fence", "``\nA: 1\nB: 2",
      "[{'type':'text','text':'``'},"
      "{'type':'grid','rows':[{'key':'A','value':'1'},{'key':'B','value':'2'}]}]" },
  };

  CHECK_CASES (cases);
}

/* ---------------------------------------------------------------- JSON */

/* The same blocks through a JsonNode tree and json-glib's generator: the
 * streamed writer must give the same bytes. */
static char *
reference_json (GPtrArray *blocks,
                gboolean   pretty)
{
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_ARRAY);
  JsonArray *array = json_array_new ();

  for (guint i = 0; i < blocks->len; i++)
    {
      const PrsLayoutBlock *block = g_ptr_array_index (blocks, i);
      JsonObject *object = json_object_new ();

      if (block->type == PRS_LAYOUT_BLOCK_GRID)
        {
          JsonArray *rows = json_array_new ();

          for (guint j = 0; j < block->rows->len; j++)
            {
              const PrsLayoutRow *row = &g_array_index (block->rows, PrsLayoutRow, j);
              JsonObject *pair = json_object_new ();

              json_object_set_string_member (pair, "key", row->key);
              json_object_set_string_member (pair, "value", row->value);
              json_array_add_object_element (rows, pair);
            }
          json_object_set_string_member (object, "type", "grid");
          json_object_set_array_member (object, "rows", rows);
        }
      else
        {
          json_object_set_string_member (object, "type", "text");
          json_object_set_string_member (object, "text", block->text);
        }
      json_array_add_object_element (array, object);
    }
  json_node_take_array (node, array);
  return prs_json_to_string (node, pretty);
}

static void
test_json_format (void)
{
  static const char *samples[] = {
    "",
    "one line",
    "a\nb",
    "Subject: Re: Q3 Planning\nFrom: alice@example.com\n\nThanks!",
    "Intro\n\nKey: v\nOther = w\n- **Bold:** x\nBody:\nrest \"quoted\" \\ and \t tab\x01\x1f",
    "Ünïcødé: ✓\nEmoji: 🎉\n\n```\nA: b\nC: d\n```\nTail: one",
    "Just: one pair",
  };
  g_autofree char *grid = layout_json ("Subject: Re: Q3 Planning\nFrom: alice@example.com\n\nThanks!");
  g_autofree char *escaped = layout_json ("Say \"hi\"\\ \ttab\nQuote: \"q\"\nPath = C:\\x");
  g_autofree char *empty = layout_json ("");

  g_assert_cmpstr (grid, ==,
                   "[{\"type\":\"grid\",\"rows\":[{\"key\":\"Subject\",\"value\":\"Re: Q3 Planning\"},"
                   "{\"key\":\"From\",\"value\":\"alice@example.com\"}]},{\"type\":\"text\",\"text\":\"Thanks!\"}]");
  g_assert_cmpstr (escaped, ==,
                   "[{\"type\":\"text\",\"text\":\"Say \\\"hi\\\"\\\\ \\ttab\"},"
                   "{\"type\":\"grid\",\"rows\":[{\"key\":\"Quote\",\"value\":\"\\\"q\\\"\"},"
                   "{\"key\":\"Path\",\"value\":\"C:\\\\x\"}]}]");
  g_assert_cmpstr (empty, ==, "[]");

  for (guint i = 0; i < G_N_ELEMENTS (samples); i++)
    for (guint pretty = 0; pretty < 2; pretty++)
      {
        g_autoptr(GPtrArray) blocks = prs_layout_parse (samples[i], -1);
        g_autofree char *streamed = prs_layout_to_json (blocks, pretty);
        g_autofree char *reference = reference_json (blocks, pretty);

        g_assert_cmpstr (streamed, ==, reference);
      }
}

/* ---------------------------------------------------------------- hostile input */

static void
test_invalid_utf8_and_nul (void)
{
  static const char with_nul[] = "A: x\0y\nB: 2\n\0\0";
  g_autofree char *invalid = layout_json ("A: \xff\xfe\nB: ok\n\xc3(\n\xe2\x80");
  g_autofree char *nul = layout_json_len (with_nul, sizeof with_nul - 1);
  g_autofree char *only_nul = layout_json_len ("\0", 1);
  g_autoptr(GPtrArray) blocks = prs_layout_parse (NULL, 0);

  g_assert_cmpstr (invalid, ==,
                   "[{\"type\":\"grid\",\"rows\":[{\"key\":\"A\",\"value\":\"\xef\xbf\xbd\xef\xbf\xbd\"},"
                   "{\"key\":\"B\",\"value\":\"ok\"}]},"
                   "{\"type\":\"text\",\"text\":\"\xef\xbf\xbd(\\n\xef\xbf\xbd\xef\xbf\xbd\"}]");
  g_assert_cmpstr (nul, ==,
                   "[{\"type\":\"grid\",\"rows\":[{\"key\":\"A\",\"value\":\"x\xef\xbf\xbdy\"},"
                   "{\"key\":\"B\",\"value\":\"2\"}]},"
                   "{\"type\":\"text\",\"text\":\"\xef\xbf\xbd\xef\xbf\xbd\"}]");
  g_assert_cmpstr (only_nul, ==, "[{\"type\":\"text\",\"text\":\"\xef\xbf\xbd\"}]");
  g_assert_cmpuint (blocks->len, ==, 0);
}

static double
thread_cpu_seconds (void)
{
  struct timespec ts;

  g_assert_cmpint (clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts), ==, 0);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* CPU time of this thread, not wall time: another process sharing the
 * cores must not decide the outcome. */
static double
seconds_to_parse (const char *text,
                  gsize       len)
{
  double start = thread_cpu_seconds ();
  g_autoptr(GPtrArray) blocks = prs_layout_parse (text, len);

  g_assert_cmpuint (blocks->len, >, 0);
  return thread_cpu_seconds () - start;
}

static GString *
build_mixed (gsize size)
{
  static const char *const pieces[] = {
    "Subject: Re: Q3 Planning\n",
    "From: alice@example.com\n",
    "\n",
    "- **Status:** Unread\n",
    "Some text that is not a pair, with a colon:in it and a - dash\n",
    "Link: https://example.com/some/path\n",
    "```\ncode: 1\n```\n",
    "Folder = INBOX\n",
    "Priority — Normal\r\n",
  };
  GString *text = g_string_sized_new (size + 128);

  for (guint i = 0; text->len < size; i++)
    g_string_append (text, pieces[i % G_N_ELEMENTS (pieces)]);

  return text;
}

/* Linear, not timed: speed is the benchmarks' business (bench/run,
 * layout-throughput). Here only the growth is checked, with CPU time, and
 * with room for noise: eight times the input may cost up to 32 times the
 * time, where a quadratic parser costs 64 times. */
static void
test_linear_time (void)
{
  g_autoptr(GString) big = build_mixed (10 * 1024 * 1024);
  g_autoptr(GString) one = build_mixed (1024 * 1024);
  g_autoptr(GString) eight = build_mixed (8 * 1024 * 1024);
  g_autoptr(GPtrArray) blocks = prs_layout_parse (big->str, big->len);
  g_autofree char *json = NULL;
  double t1 = G_MAXDOUBLE, t8 = G_MAXDOUBLE;

  g_assert_cmpuint (blocks->len, >, 1000);
  json = prs_layout_to_json (blocks, FALSE);
  g_assert_nonnull (json);

  for (guint i = 0; i < 3; i++)
    {
      t1 = MIN (t1, seconds_to_parse (one->str, one->len));
      t8 = MIN (t8, seconds_to_parse (eight->str, eight->len));
    }
  g_test_message ("1 MiB %.4f s, 8 MiB %.4f s of CPU, ratio %.2f", t1, t8, t8 / MAX (t1, 1e-6));
  g_assert_cmpfloat (t8, <, 32 * MAX (t1, 0.001));
}

/* Inputs that would be quadratic with per-line rescans or string
 * rebuilding: one huge grid, one pair followed by endless blank lines, one
 * 10 MiB line full of near-delimiters, bold markers, fences, invalid bytes. */
static void
test_linear_time_hostile (void)
{
  gsize size = 10 * 1024 * 1024;
  g_autoptr(GString) grid = g_string_sized_new (size);
  g_autoptr(GString) blanks = g_string_new ("A: 1\n");
  g_autoptr(GString) long_line = g_string_sized_new (size);
  g_autoptr(GString) bold = g_string_sized_new (size);
  g_autoptr(GString) fences = g_string_sized_new (size);
  g_autoptr(GString) garbage = g_string_sized_new (size);
  g_autoptr(GPtrArray) blocks = NULL;
  const PrsLayoutBlock *block;
  double seconds;

  while (grid->len < size)
    g_string_append (grid, "Key: value\n");
  while (blanks->len < size)
    g_string_append (blanks, "  \n");
  while (long_line->len < size)
    g_string_append (long_line, "a-b =c :d –e http://x ");
  while (bold->len < size)
    g_string_append (bold, "**");
  g_string_append (bold, ": x\n");
  while (fences->len < size)
    g_string_append (fences, "```\nA: 1\n");
  while (garbage->len < size)
    g_string_append_len (garbage, "\xff\0:\xe2\x80 ", 6);

  seconds = seconds_to_parse (grid->str, grid->len);
  g_test_message ("one big grid: %.3f s", seconds);
  g_assert_cmpfloat (seconds, <, 2.0);
  blocks = prs_layout_parse (grid->str, grid->len);
  g_assert_cmpuint (blocks->len, ==, 1);
  block = g_ptr_array_index (blocks, 0);
  g_assert_cmpuint (block->rows->len, ==, grid->len / strlen ("Key: value\n"));
  g_clear_pointer (&blocks, g_ptr_array_unref);

  seconds = seconds_to_parse (blanks->str, blanks->len);
  g_test_message ("one pair and blank lines: %.3f s", seconds);
  g_assert_cmpfloat (seconds, <, 2.0);
  blocks = prs_layout_parse (blanks->str, blanks->len);
  g_assert_cmpuint (blocks->len, ==, 1);
  block = g_ptr_array_index (blocks, 0);
  g_assert_cmpstr (block->text, ==, "A: 1");
  g_clear_pointer (&blocks, g_ptr_array_unref);

  seconds = seconds_to_parse (long_line->str, long_line->len);
  g_test_message ("one long line: %.3f s", seconds);
  g_assert_cmpfloat (seconds, <, 2.0);

  seconds = seconds_to_parse (bold->str, bold->len);
  g_test_message ("bold markers: %.3f s", seconds);
  g_assert_cmpfloat (seconds, <, 2.0);

  seconds = seconds_to_parse (fences->str, fences->len);
  g_test_message ("fences: %.3f s", seconds);
  g_assert_cmpfloat (seconds, <, 2.0);

  seconds = seconds_to_parse (garbage->str, garbage->len);
  g_test_message ("invalid bytes: %.3f s", seconds);
  g_assert_cmpfloat (seconds, <, 2.0);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/prs/layout/guide-example", test_guide_example);
  g_test_add_func ("/prs/layout/lines-and-text", test_lines_and_text);
  g_test_add_func ("/prs/layout/delimiters", test_delimiters);
  g_test_add_func ("/prs/layout/earliest-delimiter", test_earliest_delimiter);
  g_test_add_func ("/prs/layout/bullets", test_bullets);
  g_test_add_func ("/prs/layout/bold", test_bold);
  g_test_add_func ("/prs/layout/keys", test_keys);
  g_test_add_func ("/prs/layout/link-lines", test_link_lines);
  g_test_add_func ("/prs/layout/bare-keys", test_bare_keys);
  g_test_add_func ("/prs/layout/runs", test_runs);
  g_test_add_func ("/prs/layout/fences", test_fences);
  g_test_add_func ("/prs/layout/json-format", test_json_format);
  g_test_add_func ("/prs/layout/invalid-utf8-and-nul", test_invalid_utf8_and_nul);
  g_test_add_func ("/prs/layout/linear-time", test_linear_time);
  g_test_add_func ("/prs/layout/linear-time-hostile", test_linear_time_hostile);

  return g_test_run ();
}
