/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-markdown-text.c: plain text out of Markdown, through md4c's parser
 * (never hand-written patterns): the text callbacks give exactly the text a
 * reader sees, without markers. */
#include "config.h"

#include <string.h>
#include <md4c.h>

#include "prs-markdown-text.h"

typedef struct
{
  GString *out;
  guint    image_depth;
  /* prs_markdown_to_text: blocks and lines kept */
  gboolean keep_lines;
  GArray  *lists;         /* guint: 0 for a bullet list, else the next number; keep_lines only (NULL without) */
  gboolean cell_started;
  gboolean in_code;
  gsize    link_start;    /* where the text of the link being read starts in @out */
} PlainText;

/* A task list item's box, as the conversation shows it */
static const char *
task_box (MD_BLOCK_LI_DETAIL *li)
{
  return li->task_mark == ' ' ? "☐ " : "☑ ";
}

static void
append_text (PlainText  *pt,
             const char *text,
             gsize       len);

/* Ends what came before with a blank line (a new block) or a newline */
static void
break_line (GString  *out,
            gboolean  blank)
{
  if (out->len == 0)
    return;
  if (out->str[out->len - 1] != '\n')
    g_string_append_c (out, '\n');
  if (blank && (out->len < 2 || out->str[out->len - 2] != '\n'))
    g_string_append_c (out, '\n');
}

static int
on_enter_block_lines (PlainText    *pt,
                      MD_BLOCKTYPE  type,
                      void         *detail)
{
  guint number;

  switch (type)
    {
    case MD_BLOCK_UL:
    case MD_BLOCK_OL:
      number = type == MD_BLOCK_OL ? ((MD_BLOCK_OL_DETAIL *) detail)->start : 0;
      if (pt->lists->len == 0)
        break_line (pt->out, TRUE);
      g_array_append_val (pt->lists, number);
      break;
    case MD_BLOCK_LI:
      break_line (pt->out, FALSE);
      for (guint i = 1; i < pt->lists->len; i++)
        g_string_append (pt->out, "  ");
      /* A task's box takes its number's place (prs-markdown-view.c) */
      if (((MD_BLOCK_LI_DETAIL *) detail)->is_task)
        g_string_append (pt->out, task_box (detail));
      else if (pt->lists->len > 0 && g_array_index (pt->lists, guint, pt->lists->len - 1) > 0)
        g_string_append_printf (pt->out, "%u. ", g_array_index (pt->lists, guint, pt->lists->len - 1)++);
      else
        g_string_append (pt->out, "• ");
      break;
    case MD_BLOCK_TR:
      break_line (pt->out, FALSE);
      pt->cell_started = FALSE;
      break;
    case MD_BLOCK_TH:
    case MD_BLOCK_TD:
      if (pt->cell_started)
        g_string_append (pt->out, " | ");
      pt->cell_started = TRUE;
      break;
    case MD_BLOCK_CODE:
      pt->in_code = TRUE;
      break_line (pt->out, TRUE);
      break;
    case MD_BLOCK_P:
    case MD_BLOCK_H:
    case MD_BLOCK_QUOTE:
    case MD_BLOCK_TABLE:
    case MD_BLOCK_HR:
      /* Inside a list item, a paragraph goes on the item's line */
      if (type != MD_BLOCK_P || pt->lists->len == 0)
        break_line (pt->out, TRUE);
      if (type == MD_BLOCK_HR)
        g_string_append (pt->out, "———");
      break;
    default:
      break;
    }
  return 0;
}

static void
append_folded (GString    *out,
               const char *text,
               gsize       len)
{
  for (gsize i = 0; i < len; i++)
    {
      char c = text[i];

      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v')
        {
          if (out->len > 0 && out->str[out->len - 1] != ' ')
            g_string_append_c (out, ' ');
        }
      else
        g_string_append_c (out, c);
    }
}

static int
on_enter_block (MD_BLOCKTYPE  type,
                void         *detail,
                void         *user_data)
{
  PlainText *pt = user_data;

  if (pt->keep_lines)
    return on_enter_block_lines (pt, type, detail);

  /* Blocks are separated by a space when their text is joined. */
  if (type != MD_BLOCK_DOC)
    append_folded (pt->out, " ", 1);
  if (type == MD_BLOCK_LI && ((MD_BLOCK_LI_DETAIL *) detail)->is_task)
    append_folded (pt->out, task_box (detail), strlen (task_box (detail)));

  return 0;
}

static int
on_leave_block (MD_BLOCKTYPE  type,
                void         *detail,
                void         *user_data)
{
  PlainText *pt = user_data;

  if (pt->keep_lines && (type == MD_BLOCK_UL || type == MD_BLOCK_OL) && pt->lists->len > 0)
    g_array_set_size (pt->lists, pt->lists->len - 1);
  if (type == MD_BLOCK_CODE)
    pt->in_code = FALSE;
  return 0;
}

static int
on_enter_span (MD_SPANTYPE  type,
               void        *detail,
               void        *user_data)
{
  PlainText *pt = user_data;

  if (type == MD_SPAN_IMG)
    pt->image_depth++;
  else if (type == MD_SPAN_A)
    pt->link_start = pt->out->len;

  return 0;
}

static int
on_leave_span (MD_SPANTYPE  type,
               void        *detail,
               void        *user_data)
{
  PlainText *pt = user_data;

  if (type == MD_SPAN_IMG && pt->image_depth > 0)
    pt->image_depth--;

  /* A link keeps where it goes, unless its text says it already: also
   * a bare "www." or e-mail address, whose link md4c makes with
   * "http://" or "mailto:" before it */
  if (type == MD_SPAN_A && pt->keep_lines && pt->image_depth == 0)
    {
      MD_SPAN_A_DETAIL *a = detail;
      g_autofree char *href = g_strndup (a->href.text, a->href.size);
      const char *shown = pt->out->str + MIN (pt->link_start, pt->out->len);
      const char *bare = g_str_has_prefix (href, "http://") ? href + strlen ("http://")
                         : g_str_has_prefix (href, "mailto:") ? href + strlen ("mailto:") : NULL;

      if (href[0] != '\0' && !g_str_has_suffix (pt->out->str, href) &&
          (bare == NULL || strcmp (bare, shown) != 0))
        g_string_append_printf (pt->out, " (%s)", href);
    }

  return 0;
}

static void
append_entity (GString    *out,
               const char *text,
               gsize       len)
{
  static const struct { const char *name; const char *text; } named[] = {
    { "&amp;", "&" }, { "&lt;", "<" }, { "&gt;", ">" }, { "&quot;", "\"" },
    { "&apos;", "'" }, { "&nbsp;", " " },
  };
  g_autofree char *entity = g_strndup (text, len);

  for (guint i = 0; i < G_N_ELEMENTS (named); i++)
    {
      if (strcmp (entity, named[i].name) == 0)
        {
          append_folded (out, named[i].text, strlen (named[i].text));
          return;
        }
    }

  if (len > 3 && entity[1] == '#')
    {
      gboolean hex = entity[2] == 'x' || entity[2] == 'X';
      guint64 cp = g_ascii_strtoull (entity + (hex ? 3 : 2), NULL, hex ? 16 : 10);

      if (cp > 0 && cp <= 0x10FFFF && g_unichar_validate ((gunichar) cp))
        {
          char buf[8];
          int n = g_unichar_to_utf8 ((gunichar) cp, buf);

          append_folded (out, buf, n);
          return;
        }
    }

  append_folded (out, text, len);
}

static int
on_text (MD_TEXTTYPE    type,
         const MD_CHAR *text,
         MD_SIZE        size,
         void          *user_data)
{
  PlainText *pt = user_data;

  if (pt->image_depth > 0)
    return 0;

  switch (type)
    {
    case MD_TEXT_HTML:
      /* Only a Sticky Note's, which n8n shows as markup: a reply's reads
       * as text (PRS_MARKDOWN_FLAGS) */
      break;
    case MD_TEXT_BR:
    case MD_TEXT_SOFTBR:
      append_text (pt, pt->keep_lines ? "\n" : " ", 1);
      break;
    case MD_TEXT_NULLCHAR:
      break;
    case MD_TEXT_ENTITY:
      append_entity (pt->out, text, size);
      break;
    case MD_TEXT_NORMAL:
    case MD_TEXT_CODE:
    case MD_TEXT_LATEXMATH:
    default:
      append_text (pt, text, size);
      break;
    }

  return 0;
}

static void
append_text (PlainText  *pt,
             const char *text,
             gsize       len)
{
  if (pt->keep_lines)
    {
      /* Outside code, no space where a line starts or after another
       * (what is left of a dropped image) */
      if (!pt->in_code)
        while (len > 0 && text[0] == ' ' &&
               (pt->out->len == 0 || pt->out->str[pt->out->len - 1] == ' ' ||
                pt->out->str[pt->out->len - 1] == '\n'))
          {
            text++;
            len--;
          }
      g_string_append_len (pt->out, text, len);
    }
  else
    append_folded (pt->out, text, len);
}

static char *
to_text (const char *markdown,
         gssize      len,
         gboolean    keep_lines,
         unsigned    flags)
{
  PlainText pt = { 0 };
  MD_PARSER parser = {
    .abi_version = 0,
    .flags = flags,
    .enter_block = on_enter_block,
    .leave_block = on_leave_block,
    .enter_span = on_enter_span,
    .leave_span = on_leave_span,
    .text = on_text,
  };

  if (len < 0)
    len = strlen (markdown);
  pt.out = g_string_sized_new (len);
  pt.keep_lines = keep_lines;
  /* Folded text needs no list numbers (a discovery folds every sticky note) */
  pt.lists = keep_lines ? g_array_new (FALSE, FALSE, sizeof (guint)) : NULL;
  if (md_parse (markdown, (MD_SIZE) len, &parser, &pt) != 0)
    g_string_truncate (pt.out, 0);
  g_clear_pointer (&pt.lists, g_array_unref);

  if (keep_lines)
    {
      while (pt.out->len > 0 && pt.out->str[pt.out->len - 1] == '\n')
        g_string_truncate (pt.out, pt.out->len - 1);
      return g_string_free (pt.out, FALSE);
    }

  /* Folding left at most one space at either edge. */
  if (pt.out->len > 0 && pt.out->str[pt.out->len - 1] == ' ')
    g_string_truncate (pt.out, pt.out->len - 1);
  if (pt.out->len > 0 && pt.out->str[0] == ' ')
    g_string_erase (pt.out, 0, 1);

  return g_string_free (pt.out, FALSE);
}

char *
prs_markdown_to_plain_text (const char *markdown,
                            gssize      len)
{
  g_return_val_if_fail (markdown != NULL, NULL);
  /* As the conversation reads it, also when folded: a search snippet
   * reads a table's cells, not its pipes, and raw HTML as the text the
   * view shows */
  return to_text (markdown, len, FALSE, PRS_MARKDOWN_FLAGS);
}

char *
prs_markdown_to_text (const char *markdown,
                      gssize      len)
{
  g_return_val_if_fail (markdown != NULL, NULL);
  return to_text (markdown, len, TRUE, PRS_MARKDOWN_FLAGS);
}

/* The line of @text at @start: its length without the line break, and
 * where the next one starts (@text's end when there is none) */
static gsize
line_at (const char *text,
         gsize       start,
         gsize      *next)
{
  const char *nl = strchr (text + start, '\n');
  gsize len = nl != NULL ? (gsize) (nl - (text + start)) : strlen (text + start);

  *next = nl != NULL ? start + len + 1 : start + len;
  return len;
}

static gboolean
line_is_blank (const char *line,
               gsize       len)
{
  gsize i = 0;

  while (i < len && strchr (" \t\r\f\v", line[i]) != NULL)
    i++;
  return i == len;
}

static gboolean
line_is_heading (const char *line,
                 gsize       len)
{
  gsize i = 0;

  while (i < len && (line[i] == ' ' || line[i] == '\t'))
    i++;
  return i < len && line[i] == '#';
}

char *
prs_markdown_first_paragraph (const char *markdown)
{
  g_autoptr(GString) paragraph = NULL;
  g_autofree char *text = NULL;
  gsize start = 0;
  gsize next;
  gsize len;

  if (markdown == NULL)
    return NULL;

  /* Read in place, line by line (a sticky note per workflow of a discovery) */
  for (;;)
    {
      len = line_at (markdown, start, &next);
      if (next == start || !(line_is_blank (markdown + start, len) ||
                             line_is_heading (markdown + start, len)))
        break;
      start = next;
    }

  paragraph = g_string_new (NULL);
  for (; next > start && !line_is_blank (markdown + start, len);
       start = next, len = line_at (markdown, start, &next))
    {
      /* Leading indentation would turn the line into a code block. */
      const char *line = markdown + start;
      gsize indent = 0;

      while (indent < len && (line[indent] == ' ' || line[indent] == '\t'))
        indent++;
      line += indent;
      len -= indent;
      if (len > 0 && line[len - 1] == '\r')
        len--;
      g_string_append_len (paragraph, line, len);
      g_string_append_c (paragraph, '\n');
    }

  /* Written in n8n, whose Sticky Notes show raw HTML as markup (its
   * tags unseen), not as the conversation shows a reply's */
  text = to_text (paragraph->str, paragraph->len, FALSE, PRS_MARKDOWN_FLAGS & ~MD_FLAG_NOHTMLSPANS);
  if (text[0] == '\0')
    return NULL;

  return g_steal_pointer (&text);
}
