/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-markdown-view.c: Markdown through md4c's callbacks into a column of
 * labels (one per paragraph, heading, list item or code block) and grids
 * (tables). Each label gets Pango markup built from escaped text only. */
#include "config.h"

#include <string.h>
#include <md4c.h>

#include "prs-launcher.h"
#include "prs-markdown-text.h"
#include "prs-markdown-view.h"
#include "prs-text.h"

struct _PrsMarkdownView
{
  GtkWidget  parent_instance;

  GtkWidget *box;
  gboolean   rendered;
};

G_DEFINE_FINAL_TYPE (PrsMarkdownView, prs_markdown_view, GTK_TYPE_WIDGET)

typedef enum
{
  BLOCK_NONE,
  BLOCK_PARA,
  BLOCK_HEADING,
  BLOCK_CODE,
  BLOCK_CELL,
} BlockKind;

typedef struct
{
  gboolean ordered;
  guint    next;
} ListState;

typedef struct
{
  GtkWidget *box;         /* where blocks go */
  GString   *markup;
  BlockKind  kind;
  guint      heading_level;
  guint      quote_depth;
  GArray    *lists;       /* ListState */
  char      *li_prefix;   /* the bullet of a list item not yet shown */
  GArray    *links;       /* gboolean: was this <a> opened */
  guint      image_depth;
  GtkWidget *table;
  int        table_row;
  int        table_col;
  gboolean   table_head;
  guint      n_blocks;
} Renderer;

static void
append_escaped (Renderer   *r,
                const char *text,
                gsize       len)
{
  g_autofree char *escaped = g_markup_escape_text (text, len);

  g_string_append (r->markup, escaped);
}

static void
append_entity (Renderer   *r,
               const char *text,
               gsize       len)
{
  static const struct { const char *name; const char *value; } named[] = {
    { "&amp;", "&" }, { "&lt;", "<" }, { "&gt;", ">" }, { "&quot;", "\"" },
    { "&apos;", "'" }, { "&nbsp;", "\xc2\xa0" }, { "&copy;", "©" }, { "&mdash;", "—" },
    { "&ndash;", "–" }, { "&hellip;", "…" },
  };

  if (len > 3 && text[1] == '#')
    {
      g_autofree char *digits = g_strndup (text + 2, len - 3);
      gunichar c;
      char utf8[8];
      int n;

      if (digits[0] == 'x' || digits[0] == 'X')
        c = (gunichar) g_ascii_strtoull (digits + 1, NULL, 16);
      else
        c = (gunichar) g_ascii_strtoull (digits, NULL, 10);
      if (c == 0 || !g_unichar_validate (c))
        c = 0xFFFD;
      n = g_unichar_to_utf8 (c, utf8);
      append_escaped (r, utf8, n);
      return;
    }

  for (guint i = 0; i < G_N_ELEMENTS (named); i++)
    if (strlen (named[i].name) == len && strncmp (named[i].name, text, len) == 0)
      {
        append_escaped (r, named[i].value, -1);
        return;
      }

  append_escaped (r, text, len);
}

static void
add_block_widget (Renderer  *r,
                  GtkWidget *widget)
{
  r->n_blocks++;
  if (r->quote_depth > 0)
    {
      gtk_widget_add_css_class (widget, "md-quote");
      gtk_widget_set_margin_start (widget, 12 * (r->quote_depth - 1));
    }
  gtk_box_append (GTK_BOX (r->box), widget);
}

static void
start_block (Renderer  *r,
             BlockKind  kind)
{
  r->kind = kind;
  g_string_truncate (r->markup, 0);
}

/* One block past the label bound (a long code block, a paragraph with no
 * break) is that block as plain text, not one huge GtkLabel, and the rest
 * of the reply stays laid out (docs/conversations.md, "Long replies").
 * NULL when the block fits a label. */
static GtkWidget *
oversized_block_new (Renderer *r)
{
  g_autofree char *plain = NULL;

  if (r->markup->len <= PRS_TEXT_LABEL_MAX_BYTES)
    return NULL;
  if (!pango_parse_markup (r->markup->str, -1, 0, NULL, &plain, NULL, NULL))
    plain = g_strdup (r->markup->str);
  g_string_truncate (r->markup, 0);
  return prs_text_new (plain, TRUE);
}

/* A list item: its bullet, then its text in the rest of the width.
 *
 * Not a horizontal GtkBox: asked for its height at a width, GTK 4.8's box
 * asks each child for its width at its minimum height, and a wrapping
 * GtkLabel answers that by a binary search over widths (a dozen Pango
 * layouts of its text), again for every height it is asked at. Opening a
 * conversation of 20 KiB replies made three layouts in four for the list
 * items' few words (counted with a probe on pango_layout_set_width). The
 * bullet's width does not depend on the height, so the text's width is
 * known without asking. */
#define ITEM_SPACING 6

static GtkSizeRequestMode
item_request_mode (GtkWidget *widget)
{
  return GTK_SIZE_REQUEST_HEIGHT_FOR_WIDTH;
}

static void
item_measure (GtkWidget      *widget,
              GtkOrientation  orientation,
              int             for_size,
              int            *minimum,
              int            *natural,
              int            *minimum_baseline,
              int            *natural_baseline)
{
  GtkWidget *bullet = gtk_widget_get_first_child (widget);
  GtkWidget *text = gtk_widget_get_last_child (widget);
  int bullet_min, bullet_nat, text_min, text_nat, bullet_width;

  gtk_widget_measure (bullet, GTK_ORIENTATION_HORIZONTAL, -1, NULL, &bullet_width, NULL, NULL);
  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    {
      gtk_widget_measure (text, orientation, -1, &text_min, &text_nat, NULL, NULL);
      *minimum = bullet_width + ITEM_SPACING + text_min;
      *natural = bullet_width + ITEM_SPACING + text_nat;
      return;
    }
  gtk_widget_measure (bullet, orientation, -1, &bullet_min, &bullet_nat, NULL, NULL);
  if (for_size >= 0)
    {
      gtk_widget_measure (text, GTK_ORIENTATION_HORIZONTAL, -1, &text_min, NULL, NULL, NULL);
      for_size = MAX (for_size - bullet_width - ITEM_SPACING, text_min);
    }
  gtk_widget_measure (text, orientation, for_size, &text_min, &text_nat, NULL, NULL);
  *minimum = MAX (bullet_min, text_min);
  *natural = MAX (bullet_nat, text_nat);
}

static void
item_allocate (GtkWidget *widget,
               int        width,
               int        height,
               int        baseline)
{
  GtkWidget *bullet = gtk_widget_get_first_child (widget);
  GtkWidget *text = gtk_widget_get_last_child (widget);
  int bullet_width, bullet_height;
  int x;

  gtk_widget_measure (bullet, GTK_ORIENTATION_HORIZONTAL, -1, NULL, &bullet_width, NULL, NULL);
  gtk_widget_measure (bullet, GTK_ORIENTATION_VERTICAL, -1, NULL, &bullet_height, NULL, NULL);
  x = bullet_width + ITEM_SPACING;
  if (gtk_widget_get_direction (widget) == GTK_TEXT_DIR_RTL)
    {
      gtk_widget_allocate (bullet, bullet_width, MIN (bullet_height, height), -1,
                           gsk_transform_translate (NULL, &GRAPHENE_POINT_INIT (width - bullet_width, 0)));
      gtk_widget_allocate (text, MAX (width - x, 0), height, -1, NULL);
      return;
    }
  gtk_widget_allocate (bullet, bullet_width, MIN (bullet_height, height), -1, NULL);
  gtk_widget_allocate (text, MAX (width - x, 0), height, -1,
                       gsk_transform_translate (NULL, &GRAPHENE_POINT_INIT (x, 0)));
}

/* Turns what was collected into a widget. */
static void
flush_block (Renderer *r)
{
  BlockKind kind = r->kind;
  GtkWidget *label;

  r->kind = BLOCK_NONE;
  if (kind == BLOCK_NONE)
    return;

  if (kind == BLOCK_CODE)
    {
      while (r->markup->len > 0 && r->markup->str[r->markup->len - 1] == '\n')
        g_string_truncate (r->markup, r->markup->len - 1);
    }

  if (kind == BLOCK_CELL)
    {
      label = oversized_block_new (r);
      if (label == NULL)
        label = prs_text_label_new_markup (r->markup->str);
      if (r->table_head)
        gtk_widget_add_css_class (label, "heading");
      gtk_widget_add_css_class (label, "md-cell");
      if (r->table != NULL)
        gtk_grid_attach (GTK_GRID (r->table), label, r->table_col, r->table_row, 1, 1);
      r->table_col++;
      g_string_truncate (r->markup, 0);
      return;
    }

  if (r->markup->len == 0 && r->li_prefix == NULL)
    return;

  if ((label = oversized_block_new (r)) != NULL)
    {
      g_clear_pointer (&r->li_prefix, g_free);
      add_block_widget (r, label);
      return;
    }

  label = prs_text_label_new_markup (r->markup->str);
  /* At least PRS_TEXT_MIN_CHARS wide: a reply's bubble takes the row's
   * whole width, which leaves a block more than that even at 360 pixels,
   * so no block is laid out differently (docs/conversations.md "Long
   * replies"). Table cells keep no minimum of their own: a table's
   * columns add theirs up. */
  prs_text_label_set_min_chars (GTK_LABEL (label), FALSE);
  g_string_truncate (r->markup, 0);

  switch (kind)
    {
    case BLOCK_HEADING:
      gtk_widget_add_css_class (label, r->heading_level <= 1 ? "title-3" :
                                       r->heading_level == 2 ? "title-4" : "heading");
      gtk_widget_add_css_class (label, "md-heading");
      break;
    case BLOCK_CODE:
      gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_CHAR);
      prs_text_label_no_hyphens (GTK_LABEL (label));
      gtk_widget_add_css_class (label, "monospace");
      gtk_widget_add_css_class (label, "md-code");
      break;
    case BLOCK_PARA:
    case BLOCK_CELL:
    case BLOCK_NONE:
    default:
      break;
    }

  if (r->lists->len > 0 && kind == BLOCK_PARA)
    {
      GtkWidget *row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
      GtkWidget *bullet = gtk_label_new (r->li_prefix != NULL ? r->li_prefix : "");

      gtk_widget_set_valign (bullet, GTK_ALIGN_START);
      gtk_label_set_xalign (GTK_LABEL (bullet), 1.0);
      gtk_widget_set_size_request (bullet, 18, -1);
      gtk_widget_add_css_class (bullet, "md-bullet");
      gtk_widget_set_margin_start (row, 18 * (r->lists->len - 1));
      gtk_widget_set_hexpand (label, TRUE);
      gtk_widget_set_layout_manager (row, gtk_custom_layout_new (item_request_mode, item_measure, item_allocate));
      gtk_box_append (GTK_BOX (row), bullet);
      gtk_box_append (GTK_BOX (row), label);
      g_clear_pointer (&r->li_prefix, g_free);
      add_block_widget (r, row);
      return;
    }

  add_block_widget (r, label);
}

static int
on_enter_block (MD_BLOCKTYPE  type,
                void         *detail,
                void         *user_data)
{
  Renderer *r = user_data;

  if (r->n_blocks > PRS_MARKDOWN_VIEW_MAX_BLOCKS)
    return 1;

  switch (type)
    {
    case MD_BLOCK_P:
      /* The first paragraph of a loose list item carries its bullet. */
      if (r->kind == BLOCK_PARA && r->markup->len == 0)
        break;
      flush_block (r);
      start_block (r, BLOCK_PARA);
      break;
    case MD_BLOCK_H:
      flush_block (r);
      r->heading_level = ((MD_BLOCK_H_DETAIL *) detail)->level;
      start_block (r, BLOCK_HEADING);
      break;
    case MD_BLOCK_CODE:
      flush_block (r);
      start_block (r, BLOCK_CODE);
      break;
    case MD_BLOCK_QUOTE:
      flush_block (r);
      r->quote_depth++;
      break;
    case MD_BLOCK_UL:
    case MD_BLOCK_OL:
      {
        ListState state = { type == MD_BLOCK_OL, 1 };

        if (type == MD_BLOCK_OL)
          state.next = ((MD_BLOCK_OL_DETAIL *) detail)->start;
        flush_block (r);
        g_array_append_val (r->lists, state);
      }
      break;
    case MD_BLOCK_LI:
      {
        MD_BLOCK_LI_DETAIL *li = detail;
        ListState *state = &g_array_index (r->lists, ListState, r->lists->len - 1);

        flush_block (r);
        g_free (r->li_prefix);
        if (li->is_task)
          r->li_prefix = g_strdup (li->task_mark == ' ' ? "☐" : "☑");
        else if (state->ordered)
          r->li_prefix = g_strdup_printf ("%u.", state->next++);
        else
          r->li_prefix = g_strdup ("•");
        start_block (r, BLOCK_PARA);
      }
      break;
    case MD_BLOCK_HR:
      flush_block (r);
      add_block_widget (r, gtk_separator_new (GTK_ORIENTATION_HORIZONTAL));
      break;
    case MD_BLOCK_TABLE:
      flush_block (r);
      r->table = gtk_grid_new ();
      gtk_grid_set_column_spacing (GTK_GRID (r->table), 18);
      gtk_grid_set_row_spacing (GTK_GRID (r->table), 6);
      gtk_widget_add_css_class (r->table, "md-table");
      r->table_row = -1;
      add_block_widget (r, r->table);
      break;
    case MD_BLOCK_THEAD:
      r->table_head = TRUE;
      break;
    case MD_BLOCK_TBODY:
      r->table_head = FALSE;
      break;
    case MD_BLOCK_TR:
      r->table_row++;
      r->table_col = 0;
      break;
    case MD_BLOCK_TH:
    case MD_BLOCK_TD:
      start_block (r, BLOCK_CELL);
      r->n_blocks++;
      break;
    case MD_BLOCK_HTML:
      flush_block (r);
      start_block (r, BLOCK_CODE);
      break;
    case MD_BLOCK_DOC:
    default:
      break;
    }

  return 0;
}

static int
on_leave_block (MD_BLOCKTYPE  type,
                void         *detail,
                void         *user_data)
{
  Renderer *r = user_data;

  switch (type)
    {
    case MD_BLOCK_P:
    case MD_BLOCK_H:
    case MD_BLOCK_CODE:
    case MD_BLOCK_HTML:
    case MD_BLOCK_LI:
    case MD_BLOCK_TH:
    case MD_BLOCK_TD:
      flush_block (r);
      break;
    case MD_BLOCK_QUOTE:
      flush_block (r);
      if (r->quote_depth > 0)
        r->quote_depth--;
      break;
    case MD_BLOCK_UL:
    case MD_BLOCK_OL:
      flush_block (r);
      if (r->lists->len > 0)
        g_array_set_size (r->lists, r->lists->len - 1);
      break;
    case MD_BLOCK_TABLE:
      r->table = NULL;
      break;
    case MD_BLOCK_DOC:
    case MD_BLOCK_HR:
    case MD_BLOCK_THEAD:
    case MD_BLOCK_TBODY:
    case MD_BLOCK_TR:
    default:
      break;
    }

  return 0;
}

static void
ensure_block (Renderer *r)
{
  /* Text outside any block md4c reported (defensive): a paragraph. */
  if (r->kind == BLOCK_NONE)
    start_block (r, BLOCK_PARA);
}

static int
on_enter_span (MD_SPANTYPE  type,
               void        *detail,
               void        *user_data)
{
  Renderer *r = user_data;

  ensure_block (r);
  switch (type)
    {
    case MD_SPAN_EM:
      g_string_append (r->markup, "<i>");
      break;
    case MD_SPAN_STRONG:
      g_string_append (r->markup, "<b>");
      break;
    case MD_SPAN_CODE:
      g_string_append (r->markup, "<tt>");
      break;
    case MD_SPAN_DEL:
      g_string_append (r->markup, "<s>");
      break;
    case MD_SPAN_U:
      g_string_append (r->markup, "<u>");
      break;
    case MD_SPAN_A:
      {
        MD_SPAN_A_DETAIL *a = detail;
        g_autofree char *href = g_strndup (a->href.text, a->href.size);
        gboolean open = r->image_depth == 0 && prs_launcher_scheme_is_allowed (href) &&
                        g_utf8_validate (href, -1, NULL);

        if (open)
          {
            g_autofree char *escaped = g_markup_escape_text (href, -1);
            g_string_append_printf (r->markup, "<a href=\"%s\">", escaped);
          }
        g_array_append_val (r->links, open);
      }
      break;
    case MD_SPAN_IMG:
      /* Never fetched: the alt text stands in for it. */
      if (r->image_depth++ == 0)
        g_string_append (r->markup, "<i>[");
      break;
    case MD_SPAN_LATEXMATH:
    case MD_SPAN_LATEXMATH_DISPLAY:
    case MD_SPAN_WIKILINK:
    default:
      break;
    }

  return 0;
}

static int
on_leave_span (MD_SPANTYPE  type,
               void        *detail,
               void        *user_data)
{
  Renderer *r = user_data;

  switch (type)
    {
    case MD_SPAN_EM:
      g_string_append (r->markup, "</i>");
      break;
    case MD_SPAN_STRONG:
      g_string_append (r->markup, "</b>");
      break;
    case MD_SPAN_CODE:
      g_string_append (r->markup, "</tt>");
      break;
    case MD_SPAN_DEL:
      g_string_append (r->markup, "</s>");
      break;
    case MD_SPAN_U:
      g_string_append (r->markup, "</u>");
      break;
    case MD_SPAN_A:
      if (r->links->len > 0)
        {
          if (g_array_index (r->links, gboolean, r->links->len - 1))
            g_string_append (r->markup, "</a>");
          g_array_set_size (r->links, r->links->len - 1);
        }
      break;
    case MD_SPAN_IMG:
      if (r->image_depth > 0 && --r->image_depth == 0)
        g_string_append (r->markup, "]</i>");
      break;
    case MD_SPAN_LATEXMATH:
    case MD_SPAN_LATEXMATH_DISPLAY:
    case MD_SPAN_WIKILINK:
    default:
      break;
    }

  return 0;
}

static int
on_text (MD_TEXTTYPE    type,
         const MD_CHAR *text,
         MD_SIZE        size,
         void          *user_data)
{
  Renderer *r = user_data;

  ensure_block (r);
  switch (type)
    {
    case MD_TEXT_NULLCHAR:
      g_string_append (r->markup, "\xef\xbf\xbd");
      break;
    case MD_TEXT_BR:
      g_string_append_c (r->markup, '\n');
      break;
    case MD_TEXT_SOFTBR:
      g_string_append_c (r->markup, r->kind == BLOCK_CODE ? '\n' : ' ');
      break;
    case MD_TEXT_ENTITY:
      append_entity (r, text, size);
      break;
    case MD_TEXT_NORMAL:
      /* URLs md4c does not link itself (any scheme on the allowlist, not
       * just http and ftp), outside links and code */
      if (r->links->len == 0 && r->image_depth == 0 && r->kind != BLOCK_CODE)
        {
          g_autofree char *linked = prs_text_linkify_markup (text, size);

          g_string_append (r->markup, linked);
          break;
        }
      append_escaped (r, text, size);
      break;
    case MD_TEXT_CODE:
    case MD_TEXT_HTML:
    case MD_TEXT_LATEXMATH:
    default:
      append_escaped (r, text, size);
      break;
    }

  return 0;
}

static void
show_plain (PrsMarkdownView *self,
            const char      *text)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (self->box)) != NULL)
    gtk_box_remove (GTK_BOX (self->box), child);
  gtk_box_append (GTK_BOX (self->box), prs_text_new (text, TRUE));
  self->rendered = FALSE;
}

GtkWidget *
prs_markdown_view_new (const char *markdown)
{
  PrsMarkdownView *self = g_object_new (PRS_TYPE_MARKDOWN_VIEW, NULL);
  g_autofree char *text = g_utf8_make_valid (markdown != NULL ? markdown : "", -1);
  gsize len = strlen (text);
  MD_PARSER parser = {
    .abi_version = 0,
    .flags = PRS_MARKDOWN_FLAGS,
    .enter_block = on_enter_block,
    .leave_block = on_leave_block,
    .enter_span = on_enter_span,
    .leave_span = on_leave_span,
    .text = on_text,
  };
  Renderer r = { 0 };
  int status;

  if (len > PRS_MARKDOWN_VIEW_MAX_BYTES)
    {
      show_plain (self, text);
      return GTK_WIDGET (self);
    }

  r.box = self->box;
  r.markup = g_string_new (NULL);
  r.lists = g_array_new (FALSE, FALSE, sizeof (ListState));
  r.links = g_array_new (FALSE, FALSE, sizeof (gboolean));

  status = md_parse (text, len, &parser, &r);
  if (status == 0)
    flush_block (&r);

  g_string_free (r.markup, TRUE);
  g_array_unref (r.lists);
  g_array_unref (r.links);
  g_free (r.li_prefix);

  if (status != 0)
    show_plain (self, text);
  else
    self->rendered = TRUE;

  return GTK_WIDGET (self);
}

gboolean
prs_markdown_view_is_rendered (PrsMarkdownView *self)
{
  g_return_val_if_fail (PRS_IS_MARKDOWN_VIEW (self), FALSE);
  return self->rendered;
}

static void
prs_markdown_view_dispose (GObject *object)
{
  PrsMarkdownView *self = PRS_MARKDOWN_VIEW (object);

  g_clear_pointer (&self->box, gtk_widget_unparent);

  G_OBJECT_CLASS (prs_markdown_view_parent_class)->dispose (object);
}

static GtkSizeRequestMode
prs_markdown_view_get_request_mode (GtkWidget *widget)
{
  return GTK_SIZE_REQUEST_HEIGHT_FOR_WIDTH;
}

/* Its width is never asked for a height. In the conversation's list a
 * reply is asked for its width at given heights, and a wrapping GtkLabel
 * answers that by a binary search over widths, laying out its whole text a
 * dozen times each time: opening a conversation with one 20 KiB reply made
 * about 10,900 Pango layouts for its 115 paragraphs (the halving widths
 * seen with a probe on pango_layout_set_width), 5,700 without. The width a
 * reply needs does not depend on its height. */
static void
prs_markdown_view_measure (GtkWidget      *widget,
                           GtkOrientation  orientation,
                           int             for_size,
                           int            *minimum,
                           int            *natural,
                           int            *minimum_baseline,
                           int            *natural_baseline)
{
  PrsMarkdownView *self = PRS_MARKDOWN_VIEW (widget);

  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    for_size = -1;
  gtk_widget_measure (self->box, orientation, for_size, minimum, natural,
                      minimum_baseline, natural_baseline);
}

static void
prs_markdown_view_size_allocate (GtkWidget *widget,
                                 int        width,
                                 int        height,
                                 int        baseline)
{
  PrsMarkdownView *self = PRS_MARKDOWN_VIEW (widget);

  gtk_widget_allocate (self->box, width, height, baseline, NULL);
}

static void
prs_markdown_view_class_init (PrsMarkdownViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = prs_markdown_view_dispose;

  widget_class->get_request_mode = prs_markdown_view_get_request_mode;
  widget_class->measure = prs_markdown_view_measure;
  widget_class->size_allocate = prs_markdown_view_size_allocate;

  gtk_widget_class_set_css_name (widget_class, "markdown");
}

static void
prs_markdown_view_init (PrsMarkdownView *self)
{
  self->box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 8);
  gtk_widget_set_parent (self->box, GTK_WIDGET (self));
}
