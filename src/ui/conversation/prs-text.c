/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-text.c: bounded text widgets and URL linking. URLs are found token by
 * token (white space separates them), not with regular expressions. */
#include "config.h"

#include <string.h>

#include "prs-launcher.h"
#include "prs-text.h"

static gboolean
on_activate_link (GtkLabel   *label,
                  const char *uri,
                  gpointer    user_data)
{
  if (prs_launcher_scheme_is_allowed (uri))
    prs_launcher_open_uri (GTK_WIDGET (label), uri);
  return TRUE;
}

/* Length of a URL starting at @p (0 when there is none). Trailing
 * punctuation that usually ends a sentence is not part of it. */
static gsize
url_length (const char *p,
            const char *end,
            char      **href)
{
  const char *q = p;
  gsize len;
  g_autofree char *candidate = NULL;

  while (q < end && !g_ascii_isspace (*q) && *q != '<' && *q != '>' && *q != '"')
    q++;
  while (q > p && strchr (".,;:!?)]}'", q[-1]) != NULL)
    q--;
  len = q - p;
  if (len < 5)
    return 0;

  candidate = g_strndup (p, len);
  if (g_ascii_strncasecmp (candidate, "www.", 4) == 0 && len > 4)
    {
      g_autofree char *https = g_strconcat ("https://", candidate, NULL);

      if (!prs_launcher_scheme_is_allowed (https))
        return 0;
      *href = g_steal_pointer (&https);
      return len;
    }
  if ((strstr (candidate, "://") != NULL || g_ascii_strncasecmp (candidate, "mailto:", 7) == 0) &&
      prs_launcher_scheme_is_allowed (candidate))
    {
      *href = g_steal_pointer (&candidate);
      return len;
    }
  return 0;
}

char *
prs_text_linkify_markup (const char *text,
                         gssize      len)
{
  GString *markup;
  const char *p, *end, *plain;

  if (text == NULL)
    return g_strdup ("");
  if (len < 0)
    len = strlen (text);

  markup = g_string_sized_new (len + 16);
  p = plain = text;
  end = text + len;
  while (p < end)
    {
      /* A URL starts a token. */
      if (p == text || g_ascii_isspace (p[-1]) || p[-1] == '(' || p[-1] == '<')
        {
          g_autofree char *href = NULL;
          gsize n = url_length (p, end, &href);

          if (n > 0)
            {
              g_autofree char *before = g_markup_escape_text (plain, p - plain);
              g_autofree char *escaped_href = g_markup_escape_text (href, -1);
              g_autofree char *shown = g_markup_escape_text (p, n);

              g_string_append (markup, before);
              g_string_append_printf (markup, "<a href=\"%s\">%s</a>", escaped_href, shown);
              p += n;
              plain = p;
              continue;
            }
        }
      p++;
    }
  if (plain < end)
    {
      g_autofree char *rest = g_markup_escape_text (plain, end - plain);
      g_string_append (markup, rest);
    }

  return g_string_free (markup, FALSE);
}

GtkWidget *
prs_text_label_new_markup (const char *markup)
{
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_markup (GTK_LABEL (label), markup);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  gtk_label_set_xalign (GTK_LABEL (label), 0.0);
  gtk_widget_set_halign (label, GTK_ALIGN_FILL);
  /* Selectable labels grab the focus on click: not focusable, a click
   * leaves it where it is. GtkLabel's focus handler reports the focus
   * taken even when the label cannot take it, which stops Tab dead: text
   * without links is out of the Tab chain altogether (can-focus); text
   * with links is made focusable while Tab passes through its message
   * (prs-message-focus.c), so that its links are reached. */
  gtk_widget_set_focusable (label, FALSE);
  if (strstr (markup, "<a ") == NULL)
    gtk_widget_set_can_focus (label, FALSE);
  g_signal_connect (label, "activate-link", G_CALLBACK (on_activate_link), NULL);
  return label;
}

GtkWidget *
prs_text_new (const char *text,
              gboolean    linkify)
{
  g_autofree char *valid = g_utf8_make_valid (text != NULL ? text : "", -1);
  gsize len = strlen (valid);

  if (len <= PRS_TEXT_LABEL_MAX_BYTES)
    {
      GtkWidget *label;

      if (linkify)
        {
          g_autofree char *markup = prs_text_linkify_markup (valid, len);
          label = prs_text_label_new_markup (markup);
        }
      else
        {
          label = prs_text_label_new_markup ("");
          gtk_label_set_text (GTK_LABEL (label), valid);
        }
      return label;
    }
  else
    {
      GtkWidget *view = gtk_text_view_new ();
      GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (view));

      gtk_text_buffer_set_text (buffer, valid, len);
      gtk_text_view_set_editable (GTK_TEXT_VIEW (view), FALSE);
      gtk_text_view_set_cursor_visible (GTK_TEXT_VIEW (view), FALSE);
      gtk_text_view_set_wrap_mode (GTK_TEXT_VIEW (view), GTK_WRAP_WORD_CHAR);
      gtk_widget_add_css_class (view, "long-text");

      {
        /* The row keeps a sane height; the text scrolls inside it. The
         * height is fixed, not the view's natural one: a GtkTextView
         * measures its lines in idles, so its natural height at the first
         * layout is a line or two and the list kept that. Text this long
         * fills the height at any width, and the scroll bar is always drawn
         * so that the rest is seen to be there. */
        GtkWidget *scrolled = gtk_scrolled_window_new ();

        gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scrolled),
                                        GTK_POLICY_NEVER, GTK_POLICY_ALWAYS);
        gtk_scrolled_window_set_overlay_scrolling (GTK_SCROLLED_WINDOW (scrolled), FALSE);
        gtk_scrolled_window_set_min_content_height (GTK_SCROLLED_WINDOW (scrolled),
                                                    PRS_TEXT_VIEW_HEIGHT);
        gtk_scrolled_window_set_max_content_height (GTK_SCROLLED_WINDOW (scrolled),
                                                    PRS_TEXT_VIEW_HEIGHT);
        gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), view);
        return scrolled;
      }
    }
}

/* The width GtkLabel gives a character when it counts width-chars */
static int
char_pixels (PangoContext *context)
{
  PangoFontMetrics *metrics = pango_context_get_metrics (context, pango_context_get_font_description (context),
                                                         pango_context_get_language (context));
  int width = MAX (pango_font_metrics_get_approximate_char_width (metrics),
                   pango_font_metrics_get_approximate_digit_width (metrics));

  pango_font_metrics_unref (metrics);
  return width;
}

/* Whether @label's text is wider, on one line, than twice the minimum */
static gboolean
wider_than_min_chars (GtkLabel *label)
{
  g_autoptr(PangoLayout) layout = NULL;
  int width;

  /* Fewer characters than that cannot be wider; more are laid out once,
   * unwrapped, as the label does for its natural width */
  if (g_utf8_strlen (gtk_label_get_text (label), -1) <= 2 * PRS_TEXT_MIN_CHARS)
    return FALSE;
  layout = gtk_widget_create_pango_layout (GTK_WIDGET (label), gtk_label_get_text (label));
  pango_layout_get_size (layout, &width, NULL);
  return width >= 2 * PRS_TEXT_MIN_CHARS * char_pixels (pango_layout_get_context (layout));
}

/* In its window, @label has the font it is drawn with: decided then,
 * before it is first measured */
static void
on_label_rooted (GtkLabel   *label,
                 GParamSpec *pspec,
                 gpointer    user_data)
{
  if (gtk_widget_get_root (GTK_WIDGET (label)) == NULL)
    return;
  g_signal_handlers_disconnect_by_func (label, on_label_rooted, user_data);
  if (wider_than_min_chars (label))
    gtk_label_set_width_chars (label, PRS_TEXT_MIN_CHARS);
}

void
prs_text_label_set_min_chars (GtkLabel *label,
                              gboolean  keep_natural)
{
  g_return_if_fail (GTK_IS_LABEL (label));

  if (!keep_natural)
    gtk_label_set_width_chars (label, PRS_TEXT_MIN_CHARS);
  else if (gtk_widget_get_root (GTK_WIDGET (label)) == NULL)
    g_signal_connect (label, "notify::root", G_CALLBACK (on_label_rooted), NULL);
  else
    on_label_rooted (label, NULL, NULL);
}

void
prs_text_label_no_hyphens (GtkLabel *label)
{
  PangoAttrList *old = gtk_label_get_attributes (label);
  g_autoptr(PangoAttrList) attrs = old != NULL ? pango_attr_list_copy (old) : pango_attr_list_new ();

  pango_attr_list_insert (attrs, pango_attr_insert_hyphens_new (FALSE));
  gtk_label_set_attributes (label, attrs);
}

void
prs_text_view_no_hyphens (GtkTextView *view)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (view);
  GtkTextTag *tag = gtk_text_buffer_create_tag (buffer, NULL, "insert-hyphens", FALSE, NULL);
  GtkTextIter start, end;

  gtk_text_buffer_get_bounds (buffer, &start, &end);
  gtk_text_buffer_apply_tag (buffer, tag, &start, &end);
}
