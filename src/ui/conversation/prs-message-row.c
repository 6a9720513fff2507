/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-message-row.c: one message, built for its kind each time the list
 * view binds a message to the row. Every text goes through bounded widgets
 * (prs-text, prs-markdown-view), so a huge message cannot stall a frame. */
#include "config.h"

#include <string.h>
#include <adwaita.h>
#include <glib/gi18n.h>

#include "prs-context.h"
#include "prs-inbound-prompt.h"
#include "prs-kv-grid.h"
#include "prs-json.h"
#include "prs-launcher.h"
#include "prs-layout.h"
#include "prs-markdown-text.h"
#include "prs-markdown-view.h"
#include "prs-message-details.h"
#include "prs-message-row.h"
#include "prs-text.h"
#include "prs-tool-card.h"

/* Above these, the rest of a reply is shown as plain text. */
#define MAX_BLOCKS     60
#define MAX_GRID_ROWS  200
/* The Request Context shown in the expander (Copy copies all of it). */
#define CONTEXT_MAX_BYTES (256 * 1024)

struct _PrsMessageRow
{
  GtkWidget   parent_instance;

  GtkWidget  *clamp;
  PrsMessage *message;

  GtkWidget  *link_button;
  GtkWidget  *context_expander;
  GtkWidget  *tool_card;
  GtkWidget  *retry_button;
  GtkWidget  *details_button;
  GtkWidget  *actions_button;
  GPtrArray  *blocks;
  PrsMessageRowFlags flags;
};

G_DEFINE_FINAL_TYPE (PrsMessageRow, prs_message_row, GTK_TYPE_WIDGET)

enum
{
  SIGNAL_TOOL_ACTION,
  SIGNAL_MESSAGE_ACTION,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

GtkWidget *
prs_message_row_new (void)
{
  return g_object_new (PRS_TYPE_MESSAGE_ROW, NULL);
}

char *
prs_message_row_format_context (JsonNode *context,
                                gsize     max_bytes)
{
  g_autofree char *text = NULL;
  gsize len;
  const char *end;

  if (context == NULL)
    return g_strdup ("");

  text = prs_json_to_string (context, TRUE);
  len = strlen (text);
  if (len <= max_bytes)
    return g_steal_pointer (&text);

  end = g_utf8_find_prev_char (text, text + max_bytes);
  if (end == NULL)
    end = text;
  {
    g_autofree char *cut = g_strndup (text, end - text);
    return g_strconcat (cut, "\n…", NULL);
  }
}

static char *
format_time (GDateTime *time)
{
  return time != NULL ? g_date_time_format (time, "%H:%M") : g_strdup ("");
}

/* The full date as the time's tooltip, formatted when it is shown:
 * gtk_widget_set_tooltip_text () on a visible widget asks the display where
 * the pointer is (a round trip to the X server), once per row bound. */
static gboolean
on_time_query_tooltip (GtkWidget  *widget,
                       int         x,
                       int         y,
                       gboolean    keyboard_mode,
                       GtkTooltip *tooltip,
                       gpointer    user_data)
{
  const char *full = g_object_get_data (G_OBJECT (widget), "full-time");

  if (full == NULL)
    return FALSE;
  gtk_tooltip_set_text (tooltip, full);
  return TRUE;
}

static void
set_time_tooltip (GtkWidget *label,
                  GDateTime *time)
{
  char *full = g_date_time_format (time, "%c");

  if (full == NULL)
    return;
  gtk_accessible_update_property (GTK_ACCESSIBLE (label), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, full, -1);
  g_object_set_data_full (G_OBJECT (label), "full-time", full, g_free);
  g_signal_connect (label, "query-tooltip", G_CALLBACK (on_time_query_tooltip), NULL);
  gtk_widget_set_has_tooltip (label, TRUE);
}

static GtkWidget *
caption_label (const char *text)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_xalign (GTK_LABEL (label), 0.0);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
  gtk_widget_add_css_class (label, "caption");
  gtk_widget_add_css_class (label, "dim-label");
  return label;
}

static void
on_link_clicked (GtkButton *button,
                 gpointer   user_data)
{
  const char *url = g_object_get_data (G_OBJECT (button), "url");

  if (url != NULL)
    prs_launcher_open_uri (GTK_WIDGET (button), url);
}

/* The openLink icon (docs/conversations.md), or NULL when the context has no valid one. */
static GtkWidget *
make_link_button (PrsMessageRow *self)
{
  JsonObject *context = prs_message_get_context (self->message);
  g_autofree char *url = NULL;
  g_autofree char *label = NULL;
  GtkWidget *button;

  if (context == NULL ||
      !prs_context_get_open_link (context, prs_launcher_get_open_link_schemes (), &url, &label))
    return NULL;

  button = gtk_button_new_from_icon_name ("adw-external-link-symbolic");
  gtk_widget_set_tooltip_text (button, label);
  gtk_accessible_update_property (GTK_ACCESSIBLE (button),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, label, -1);
  gtk_widget_set_valign (button, GTK_ALIGN_START);
  gtk_widget_set_halign (button, GTK_ALIGN_END);
  gtk_widget_add_css_class (button, "flat");
  gtk_widget_add_css_class (button, "circular");
  gtk_widget_add_css_class (button, "open-link");
  g_object_set_data_full (G_OBJECT (button), "url", g_steal_pointer (&url), g_free);
  g_signal_connect (button, "clicked", G_CALLBACK (on_link_clicked), NULL);

  self->link_button = button;
  return button;
}

static void
on_copy_context (GtkButton *button,
                 gpointer   user_data)
{
  JsonNode *context = user_data;
  g_autofree char *text = prs_json_to_string (context, TRUE);

  gdk_clipboard_set_text (gtk_widget_get_clipboard (GTK_WIDGET (button)), text);
  gtk_widget_activate_action (GTK_WIDGET (button), "win.show-toast", "s", _("Request Context copied"));
}

static void
on_context_expanded (GtkExpander *expander,
                     GParamSpec  *pspec,
                     gpointer     user_data)
{
  JsonNode *context = g_object_get_data (G_OBJECT (expander), "context");
  g_autofree char *text = NULL;
  GtkWidget *box, *scrolled, *view, *copy;

  /* Built on first use: most contexts are never opened. */
  if (!gtk_expander_get_expanded (expander) || gtk_expander_get_child (expander) != NULL || context == NULL)
    return;

  text = prs_message_row_format_context (context, CONTEXT_MAX_BYTES);

  view = gtk_text_view_new ();
  gtk_text_buffer_set_text (gtk_text_view_get_buffer (GTK_TEXT_VIEW (view)), text, -1);
  gtk_text_view_set_editable (GTK_TEXT_VIEW (view), FALSE);
  gtk_text_view_set_cursor_visible (GTK_TEXT_VIEW (view), FALSE);
  gtk_text_view_set_monospace (GTK_TEXT_VIEW (view), TRUE);
  gtk_text_view_set_wrap_mode (GTK_TEXT_VIEW (view), GTK_WRAP_CHAR);
  prs_text_view_no_hyphens (GTK_TEXT_VIEW (view));
  gtk_text_view_set_top_margin (GTK_TEXT_VIEW (view), 8);
  gtk_text_view_set_bottom_margin (GTK_TEXT_VIEW (view), 8);
  gtk_text_view_set_left_margin (GTK_TEXT_VIEW (view), 8);
  gtk_text_view_set_right_margin (GTK_TEXT_VIEW (view), 8);
  gtk_accessible_update_property (GTK_ACCESSIBLE (view), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Request Context"), -1);
  gtk_widget_add_css_class (view, "context-json");

  scrolled = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scrolled), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_max_content_height (GTK_SCROLLED_WINDOW (scrolled), 320);
  /* A text view knows its height only after an idle validation, too late
   * for the list row's measurement: ask for the height of its lines. */
  {
    guint lines = 1;

    for (const char *p = text; *p != '\0' && lines < 20; p++)
      if (*p == '\n')
        lines++;
    gtk_scrolled_window_set_min_content_height (GTK_SCROLLED_WINDOW (scrolled), MIN (lines * 17 + 16, 320));
  }
  gtk_scrolled_window_set_propagate_natural_height (GTK_SCROLLED_WINDOW (scrolled), TRUE);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), view);
  gtk_widget_add_css_class (scrolled, "context-frame");

  copy = gtk_button_new_with_mnemonic (_("_Copy"));
  gtk_widget_set_halign (copy, GTK_ALIGN_END);
  gtk_widget_set_tooltip_text (copy, _("Copy the Request Context as JSON"));
  gtk_widget_add_css_class (copy, "flat");
  g_signal_connect_data (copy, "clicked", G_CALLBACK (on_copy_context),
                         json_node_ref (context), (GClosureNotify) json_node_unref, 0);

  box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  gtk_widget_set_margin_top (box, 6);
  gtk_box_append (GTK_BOX (box), scrolled);
  gtk_box_append (GTK_BOX (box), copy);
  gtk_expander_set_child (expander, box);
}

static GtkWidget *
make_context_expander (PrsMessageRow *self)
{
  JsonNode *context = prs_message_get_context_node (self->message);
  GtkWidget *expander;

  if (context == NULL)
    return NULL;

  expander = gtk_expander_new (_("Request Context"));
  gtk_widget_add_css_class (expander, "context-expander");
  g_object_set_data_full (G_OBJECT (expander), "context", json_node_ref (context),
                          (GDestroyNotify) json_node_unref);
  g_signal_connect (expander, "notify::expanded", G_CALLBACK (on_context_expanded), NULL);

  self->context_expander = expander;
  return expander;
}

static void
append_blocks (PrsMessageRow *self,
               GtkWidget     *box,
               const char    *content)
{
  g_autoptr(GPtrArray) blocks = NULL;
  g_autoptr(GString) rest = NULL;

  if (content == NULL || content[0] == '\0')
    return;

  /* Nobody reads a reply that long as a layout; parsing it would cost
   * several times its size */
  if (strlen (content) > PRS_LAYOUT_MAX_INPUT)
    {
      GtkWidget *widget = prs_text_new (content, FALSE);

      g_ptr_array_add (self->blocks, widget);
      gtk_box_append (GTK_BOX (box), widget);
      return;
    }

  blocks = prs_layout_parse (content, -1);
  for (guint i = 0; i < blocks->len; i++)
    {
      PrsLayoutBlock *block = g_ptr_array_index (blocks, i);
      GtkWidget *widget;

      if (i >= MAX_BLOCKS || (block->type == PRS_LAYOUT_BLOCK_GRID && block->rows->len > MAX_GRID_ROWS))
        {
          /* Too much to lay out: the rest as plain text. */
          if (rest == NULL)
            rest = g_string_new (NULL);
          if (rest->len > 0)
            g_string_append (rest, "\n\n");
          if (block->type == PRS_LAYOUT_BLOCK_TEXT)
            g_string_append (rest, block->text);
          else
            for (guint r = 0; r < block->rows->len; r++)
              {
                PrsLayoutRow *row = &g_array_index (block->rows, PrsLayoutRow, r);
                g_string_append_printf (rest, "%s%s: %s", r > 0 ? "\n" : "", row->key, row->value);
              }
          continue;
        }

      if (block->type == PRS_LAYOUT_BLOCK_GRID)
        widget = prs_kv_grid_new (block->rows);
      else
        widget = prs_markdown_view_new (block->text);
      g_ptr_array_add (self->blocks, widget);
      gtk_box_append (GTK_BOX (box), widget);
    }

  if (rest != NULL)
    {
      GtkWidget *widget = prs_text_new (rest->str, TRUE);

      g_ptr_array_add (self->blocks, widget);
      gtk_box_append (GTK_BOX (box), widget);
    }
}

static void
on_card_approve (PrsToolCard   *card,
                 const char    *arguments,
                 PrsMessageRow *self)
{
  g_signal_emit (self, signals[SIGNAL_TOOL_ACTION], 0,
                 prs_message_get_id (self->message), "approve", arguments);
}

static void
on_card_approve_all (PrsToolCard   *card,
                     const char    *arguments,
                     PrsMessageRow *self)
{
  g_signal_emit (self, signals[SIGNAL_TOOL_ACTION], 0,
                 prs_message_get_id (self->message), "approve-all", arguments);
}

static void
on_card_deny (PrsToolCard   *card,
              PrsMessageRow *self)
{
  g_signal_emit (self, signals[SIGNAL_TOOL_ACTION], 0,
                 prs_message_get_id (self->message), "deny", NULL);
}

static void
on_card_retry (PrsToolCard   *card,
               PrsMessageRow *self)
{
  g_signal_emit (self, signals[SIGNAL_TOOL_ACTION], 0,
                 prs_message_get_id (self->message), "retry", NULL);
}

/* An inbound message whose run failed: ask again (the runner's
 * prs_runner_retry_inbound, through the tool-action signal). */
static void
retry_activated (GtkWidget  *widget,
                 const char *action_name,
                 GVariant   *parameter)
{
  PrsMessageRow *self = PRS_MESSAGE_ROW (widget);

  if (self->message == NULL || !prs_message_is_kind (self->message, PRS_MESSAGE_KIND_INBOUND) ||
      g_strcmp0 (prs_message_get_status (self->message), "failed") != 0)
    return;
  g_signal_emit (self, signals[SIGNAL_TOOL_ACTION], 0,
                 prs_message_get_id (self->message), "retry-inbound", NULL);
}

static JsonObject *
extra_object (PrsMessage *message,
              const char *member)
{
  JsonNode *extra = prs_message_get_extra (message);
  JsonNode *node;

  if (extra == NULL || !JSON_NODE_HOLDS_OBJECT (extra))
    return NULL;
  node = json_object_get_member (json_node_get_object (extra), member);
  return node != NULL && JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
}

static JsonNode *
extra_member (PrsMessage *message,
              const char *member)
{
  JsonNode *extra = prs_message_get_extra (message);

  if (extra == NULL || !JSON_NODE_HOLDS_OBJECT (extra))
    return NULL;
  return json_object_get_member (json_node_get_object (extra), member);
}

static GtkWidget *
build_tool (PrsMessageRow *self)
{
  PrsMessage *message = self->message;
  const char *name = prs_message_get_extra_string (message, "name");
  JsonNode *result = extra_member (message, "result");
  const char *status = prs_message_get_status (message);
  GtkWidget *card = prs_tool_card_new ();
  JsonObject *progress;
  JsonNode *cancelled;

  if (name == NULL)
    name = prs_message_get_extra_string (message, "tool");
  /* An MCP client's call its client cancelled before anyone decided it is
   * no person's No */
  if (g_strcmp0 (status, "denied") == 0 && (cancelled = extra_member (message, "cancelledByClient")) != NULL &&
      JSON_NODE_HOLDS_VALUE (cancelled) && json_node_get_value_type (cancelled) == G_TYPE_BOOLEAN &&
      json_node_get_boolean (cancelled))
    status = "cancelled";

  prs_tool_card_set_call (PRS_TOOL_CARD (card), name,
                          extra_object (message, "arguments"),
                          extra_object (message, "provenance"),
                          status, result,
                          prs_message_get_extra_string (message, "error"));
  prs_tool_card_set_server (PRS_TOOL_CARD (card), prs_message_get_extra_string (message, "mcpServer"));
  progress = extra_object (message, "progress");
  if (progress != NULL)
    prs_tool_card_set_progress (PRS_TOOL_CARD (card),
                                json_object_get_double_member_with_default (progress, "progress", -1),
                                json_object_get_double_member_with_default (progress, "total", -1),
                                json_object_get_string_member_with_default (progress, "message", NULL));
  gtk_widget_add_css_class (card, "message-tool");
  g_signal_connect_object (card, "approve", G_CALLBACK (on_card_approve), self, 0);
  g_signal_connect_object (card, "approve-all", G_CALLBACK (on_card_approve_all), self, 0);
  g_signal_connect_object (card, "deny", G_CALLBACK (on_card_deny), self, 0);
  g_signal_connect_object (card, "retry", G_CALLBACK (on_card_retry), self, 0);

  self->tool_card = card;
  return card;
}

static GtkWidget *
build_notice (PrsMessageRow *self)
{
  GtkWidget *label = prs_text_new (prs_message_get_content (self->message), TRUE);

  if (GTK_IS_LABEL (label))
    {
      gtk_label_set_xalign (GTK_LABEL (label), 0.5);
      gtk_label_set_justify (GTK_LABEL (label), GTK_JUSTIFY_CENTER);
    }
  gtk_widget_set_halign (label, GTK_ALIGN_CENTER);
  gtk_widget_add_css_class (label, "notice");
  gtk_widget_add_css_class (label, "caption");
  if (g_strcmp0 (prs_message_get_status (self->message), "failed") == 0)
    gtk_widget_add_css_class (label, "error");
  else
    gtk_widget_add_css_class (label, "dim-label");
  return label;
}

static GtkWidget *
build_inbound (PrsMessageRow *self)
{
  PrsMessage *message = self->message;
  const char *workflow = prs_message_get_execution_string (message, "workflowId");
  const char *execution = prs_message_get_execution_string (message, "executionId");
  /* A scheduled prompt (docs/schedules.md) names its schedule where a
   * workflow's request names the workflow */
  gboolean scheduled = g_strcmp0 (prs_message_get_extra_string (message, "origin"), "schedule") == 0;
  g_autofree char *time = format_time (prs_message_get_created_at (message));
  g_autofree char *origin = NULL;
  g_autofree char *prompt = g_strdup (prs_message_get_content (message));
  GtkWidget *box, *header, *icon, *label, *link, *expander;

  if (scheduled)
    /* Translators: an inbound message's origin: a schedule's name */
    origin = g_strdup_printf (_("Schedule “%s”"), prs_message_get_extra_string (message, "scheduleName") != NULL
                                                   ? prs_message_get_extra_string (message, "scheduleName") : "");
  else if (workflow != NULL && execution != NULL)
    /* Translators: an inbound message's origin: workflow id, execution id */
    origin = g_strdup_printf (_("Workflow %s · Execution %s"), workflow, execution);
  else if (workflow != NULL)
    origin = g_strdup_printf (_("Workflow %s"), workflow);
  else
    origin = g_strdup (_("From a workflow"));

  box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);
  gtk_widget_add_css_class (box, "inbound");
  gtk_widget_set_hexpand (box, TRUE);

  header = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  icon = gtk_image_new_from_icon_name (scheduled ? "alarm-symbolic" : "network-transmit-receive-symbolic");
  gtk_widget_add_css_class (icon, "dim-label");
  gtk_box_append (GTK_BOX (header), icon);
  label = caption_label (origin);
  gtk_widget_set_tooltip_text (label, origin);
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  gtk_widget_set_can_focus (label, FALSE);
  gtk_box_append (GTK_BOX (header), label);
  label = caption_label (time);
  gtk_widget_set_hexpand (label, TRUE);
  gtk_box_append (GTK_BOX (header), label);
  if ((link = make_link_button (self)) != NULL)
    gtk_box_append (GTK_BOX (header), link);
  /* Copy Text copies the whole prompt, however much of it shows */
  self->actions_button = prs_message_actions_button_new (FALSE, FALSE);
  gtk_widget_set_valign (self->actions_button, GTK_ALIGN_CENTER);
  gtk_box_append (GTK_BOX (header), self->actions_button);
  gtk_box_append (GTK_BOX (box), header);

  if (prompt != NULL && prompt[0] != '\0')
    gtk_box_append (GTK_BOX (box), prs_inbound_prompt_new (prompt));

  if (g_strcmp0 (prs_message_get_status (message), "failed") == 0)
    {
      GtkWidget *failed_row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
      GtkWidget *retry;

      label = caption_label (_("No AI provider answered; the request is kept."));
      gtk_widget_remove_css_class (label, "dim-label");
      gtk_widget_add_css_class (label, "error");
      gtk_widget_set_hexpand (label, TRUE);
      gtk_box_append (GTK_BOX (failed_row), label);

      /* docs/api.md: the kept request is retryable from here */
      retry = gtk_button_new_with_mnemonic (_("_Retry"));
      gtk_widget_set_tooltip_text (retry, _("Ask the agent again"));
      gtk_accessible_update_property (GTK_ACCESSIBLE (retry), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                      _("Retry"), -1);
      gtk_actionable_set_action_name (GTK_ACTIONABLE (retry), "message-row.retry");
      gtk_widget_set_valign (retry, GTK_ALIGN_CENTER);
      gtk_widget_add_css_class (retry, "pill");
      gtk_widget_add_css_class (retry, "small");
      gtk_box_append (GTK_BOX (failed_row), retry);
      self->retry_button = retry;

      gtk_box_append (GTK_BOX (box), failed_row);
    }

  if ((expander = make_context_expander (self)) != NULL)
    gtk_box_append (GTK_BOX (box), expander);
  return box;
}

/* Who (for a reply), when, the link, the details and the menu */
static GtkWidget *
build_bubble_header (PrsMessageRow *self,
                     const char    *agent_name)
{
  PrsMessage *message = self->message;
  gboolean user = prs_message_is_kind (message, PRS_MESSAGE_KIND_USER);
  g_autofree char *time = format_time (prs_message_get_created_at (message));
  const char *status = prs_message_get_status (message);
  GtkWidget *header, *label, *link;

  header = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  if (!user)
    {
      label = gtk_label_new (agent_name != NULL ? agent_name :
                             prs_message_get_agent_id (message) != NULL ?
                             prs_message_get_agent_id (message) : _("Assistant"));
      gtk_label_set_xalign (GTK_LABEL (label), 0.0);
      gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
      gtk_widget_add_css_class (label, "caption-heading");
      gtk_widget_add_css_class (label, "bubble-author");
      gtk_box_append (GTK_BOX (header), label);

      if (g_strcmp0 (status, "streaming") == 0 || g_strcmp0 (status, "pending") == 0)
        {
          GtkWidget *spinner = gtk_spinner_new ();

          gtk_spinner_start (GTK_SPINNER (spinner));
          gtk_accessible_update_property (GTK_ACCESSIBLE (spinner), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                          _("Answering…"), -1);
          gtk_box_append (GTK_BOX (header), spinner);
        }
    }
  label = gtk_label_new (time);
  gtk_widget_add_css_class (label, "caption");
  gtk_widget_add_css_class (label, "bubble-time");
  gtk_label_set_xalign (GTK_LABEL (label), user ? 1.0 : 0.0);
  gtk_widget_set_hexpand (label, TRUE);
  if (prs_message_get_created_at (message) != NULL)
    set_time_tooltip (label, prs_message_get_created_at (message));
  gtk_box_append (GTK_BOX (header), label);
  if ((link = make_link_button (self)) != NULL)
    gtk_box_append (GTK_BOX (header), link);
  /* A finished reply tells who gave it and how */
  if (!user && g_strcmp0 (status, "streaming") != 0 && g_strcmp0 (status, "pending") != 0)
    {
      self->details_button = prs_message_details_button_new (message);
      gtk_box_append (GTK_BOX (header), self->details_button);
    }
  self->actions_button = prs_message_actions_button_new (!user && (self->flags & PRS_MESSAGE_ROW_CAN_REGENERATE),
                                                         user && (self->flags & PRS_MESSAGE_ROW_CAN_EDIT));
  gtk_box_append (GTK_BOX (header), self->actions_button);
  return header;
}

/* The column a bubble sits in: a reply (which expands) the whole width, a
 * person's message at the end of the line, as narrow as its lines allow.
 *
 * Not a horizontal GtkBox: asked for its height at a width, GTK 4.8's box
 * first asks each child for its width at the child's minimum height, and a
 * vertical box (the bubble) answers a width for a height by measuring all
 * its children at doubling, then halving widths until their heights fit it:
 * a 20 KiB reply's hundred labels laid out some twenty times each, about
 * 1,900 Pango layouts in the frame that showed it, and the box's allocation
 * asked again (counted with gdb on gtk_widget_measure and
 * pango_layout_set_width; bench/RESULTS.md, docs/conversations.md "Long
 * replies"). A reply's width never depends on its height here; a person's
 * message still gets its width for the height it is given, as in the box,
 * so that its bubble is no wider than its lines. */
static GtkSizeRequestMode
column_request_mode (GtkWidget *widget)
{
  return GTK_SIZE_REQUEST_HEIGHT_FOR_WIDTH;
}

/* The width @bubble gets in a column @width wide and @height tall (-1:
 * not known yet) */
static int
column_bubble_width (GtkWidget *bubble,
                     int        width,
                     int        height)
{
  int minimum, natural;

  if (gtk_widget_compute_expand (bubble, GTK_ORIENTATION_HORIZONTAL))
    return width;
  gtk_widget_measure (bubble, GTK_ORIENTATION_HORIZONTAL, height, &minimum, &natural, NULL, NULL);
  return MAX (MIN (natural, width), minimum);
}

static void
column_measure (GtkWidget      *widget,
                GtkOrientation  orientation,
                int             for_size,
                int            *minimum,
                int            *natural,
                int            *minimum_baseline,
                int            *natural_baseline)
{
  GtkWidget *bubble = gtk_widget_get_first_child (widget);

  *minimum = *natural = 0;
  if (bubble == NULL || !gtk_widget_should_layout (bubble))
    return;
  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    for_size = -1;
  else if (for_size >= 0)
    for_size = column_bubble_width (bubble, for_size, -1);
  gtk_widget_measure (bubble, orientation, for_size, minimum, natural, NULL, NULL);
}

static void
column_allocate (GtkWidget *widget,
                 int        width,
                 int        height,
                 int        baseline)
{
  GtkWidget *bubble = gtk_widget_get_first_child (widget);
  int bubble_width, x;

  if (bubble == NULL || !gtk_widget_should_layout (bubble))
    return;
  bubble_width = column_bubble_width (bubble, width, height);
  x = gtk_widget_get_direction (widget) == GTK_TEXT_DIR_RTL ? 0 : width - bubble_width;
  gtk_widget_allocate (bubble, bubble_width, height, -1,
                       gsk_transform_translate (NULL, &GRAPHENE_POINT_INIT (x, 0)));
}

static GtkWidget *
build_bubble (PrsMessageRow *self,
              const char    *agent_name)
{
  PrsMessage *message = self->message;
  gboolean user = prs_message_is_kind (message, PRS_MESSAGE_KIND_USER);
  GtkWidget *column, *bubble, *label, *expander;
  const char *status = prs_message_get_status (message);

  /* The bubble's column, rather than halign END: it measures the bubble's
   * height at the width it really gets (wrapping labels under a non-FILL
   * alignment are measured at the full width and overflow). It expands as
   * the box with a spacer before it did. */
  column = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
  gtk_widget_set_layout_manager (column, gtk_custom_layout_new (column_request_mode, column_measure,
                                                                column_allocate));
  gtk_widget_set_hexpand (column, TRUE);
  gtk_widget_add_css_class (column, user ? "from-user" : "from-assistant");

  bubble = gtk_box_new (GTK_ORIENTATION_VERTICAL, 8);
  gtk_widget_add_css_class (bubble, "bubble");
  gtk_widget_add_css_class (bubble, user ? "user" : "assistant");

  gtk_box_append (GTK_BOX (bubble), build_bubble_header (self, agent_name));

  if (!user && (expander = prs_message_failover_notice_new (message)) != NULL)
    gtk_box_append (GTK_BOX (bubble), expander);

  if (user)
    {
      GtkWidget *text = prs_text_new (prs_message_get_content (message), TRUE);

      /* Its minimum width found at a dozen characters, not at 0 pixels,
       * as a reply's blocks (docs/conversations.md "Long replies"); its
       * bubble no wider than before */
      if (GTK_IS_LABEL (text))
        prs_text_label_set_min_chars (GTK_LABEL (text), TRUE);
      g_ptr_array_add (self->blocks, text);
      gtk_box_append (GTK_BOX (bubble), text);
    }
  else
    append_blocks (self, bubble, prs_message_get_content (message));

  if (g_strcmp0 (status, "failed") == 0)
    {
      const char *error = prs_message_get_extra_string (message, "error");

      label = caption_label (error != NULL ? error : _("The answer failed."));
      gtk_widget_remove_css_class (label, "dim-label");
      gtk_widget_add_css_class (label, "error");
      gtk_label_set_wrap (GTK_LABEL (label), TRUE);
      gtk_box_append (GTK_BOX (bubble), label);
    }

  if ((expander = make_context_expander (self)) != NULL)
    gtk_box_append (GTK_BOX (bubble), expander);

  /* Replies use the whole width: grids and tables read better. */
  gtk_widget_set_hexpand (bubble, !user);
  gtk_box_append (GTK_BOX (column), bubble);
  return column;
}

static GtkWidget *
build_content (PrsMessageRow *self,
               const char    *agent_name)
{
  const char *kind = prs_message_get_kind (self->message);

  if (g_strcmp0 (kind, PRS_MESSAGE_KIND_USER) == 0 ||
      g_strcmp0 (kind, PRS_MESSAGE_KIND_ASSISTANT) == 0)
    return build_bubble (self, agent_name);
  if (g_strcmp0 (kind, PRS_MESSAGE_KIND_INBOUND) == 0)
    return build_inbound (self);
  if (g_strcmp0 (kind, PRS_MESSAGE_KIND_TOOL_CALL) == 0)
    return build_tool (self);
  return build_notice (self);
}

static void
on_superseded_expanded (GtkExpander   *expander,
                        GParamSpec    *pspec,
                        PrsMessageRow *self)
{
  /* Built when first opened, as it was */
  if (gtk_expander_get_expanded (expander) && gtk_expander_get_child (expander) == NULL)
    gtk_expander_set_child (expander, build_content (self, g_object_get_data (G_OBJECT (expander), "agent-name")));
}

/* A message Regenerate or Edit and Resend replaced: kept, folded */
static GtkWidget *
build_superseded (PrsMessageRow *self,
                  const char    *agent_name)
{
  g_autofree char *time = format_time (prs_message_get_created_at (self->message));
  g_autofree char *title = NULL;
  GtkWidget *expander;

  if (prs_message_is_kind (self->message, PRS_MESSAGE_KIND_USER))
    /* Translators: a folded message of the person, replaced by an edited one; %s is its time */
    title = g_strdup_printf (_("Earlier message · %s"), time);
  else if (prs_message_is_kind (self->message, PRS_MESSAGE_KIND_ASSISTANT))
    /* Translators: a folded reply, replaced by a regenerated one; %s is its time */
    title = g_strdup_printf (_("Earlier answer · %s"), time);
  else
    /* Translators: a folded tool call or notice of a replaced answer; %s is its time */
    title = g_strdup_printf (_("Part of an earlier answer · %s"), time);

  expander = gtk_expander_new (title);
  gtk_widget_add_css_class (expander, "superseded");
  g_object_set_data_full (G_OBJECT (expander), "agent-name", g_strdup (agent_name), g_free);
  g_signal_connect_object (expander, "notify::expanded", G_CALLBACK (on_superseded_expanded), self, 0);
  return expander;
}

void
prs_message_row_set_message (PrsMessageRow      *self,
                             PrsMessage         *message,
                             const char         *agent_name,
                             PrsMessageRowFlags  flags)
{
  GtkWidget *content = NULL;
  static const char * const kinds[] = { "user", "assistant", "inbound", "notice", "tool", NULL };

  g_return_if_fail (PRS_IS_MESSAGE_ROW (self));
  g_return_if_fail (message == NULL || PRS_IS_MESSAGE (message));

  if (message == self->message && message != NULL && flags == self->flags)
    return;

  g_set_object (&self->message, message);
  self->flags = flags;
  self->link_button = NULL;
  self->context_expander = NULL;
  self->tool_card = NULL;
  self->retry_button = NULL;
  self->details_button = NULL;
  self->actions_button = NULL;
  g_ptr_array_set_size (self->blocks, 0);
  for (guint i = 0; kinds[i] != NULL; i++)
    gtk_widget_remove_css_class (GTK_WIDGET (self), kinds[i]);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "message-row.regenerate",
                                 flags & PRS_MESSAGE_ROW_CAN_REGENERATE);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "message-row.edit", flags & PRS_MESSAGE_ROW_CAN_EDIT);

  /* A tool's answer is already on its call's card (docs/conversations.md#messages):
   * its row shows nothing, and with no margin of its own (style.css) the list
   * row it sits in is no taller than nothing */
  gtk_widget_set_visible (GTK_WIDGET (self),
                          message == NULL || !prs_message_is_kind (message, PRS_MESSAGE_KIND_TOOL_RESULT));
  if (message != NULL && gtk_widget_get_visible (GTK_WIDGET (self)))
    {
      const char *kind = prs_message_get_kind (message);

      if (prs_message_get_superseded_at (message) != NULL)
        content = build_superseded (self, agent_name);
      else
        content = build_content (self, agent_name);

      if (g_str_has_prefix (kind != NULL ? kind : "", "tool"))
        gtk_widget_add_css_class (GTK_WIDGET (self), "tool");
      else if (kind != NULL && g_strv_contains ((const char * const *) kinds, kind))
        gtk_widget_add_css_class (GTK_WIDGET (self), kind);
      else
        gtk_widget_add_css_class (GTK_WIDGET (self), "notice");
    }

  adw_clamp_set_child (ADW_CLAMP (self->clamp), content);
}

void
prs_message_row_set_highlighted (PrsMessageRow *self,
                                 gboolean       highlighted)
{
  g_return_if_fail (PRS_IS_MESSAGE_ROW (self));

  if (highlighted)
    gtk_widget_add_css_class (GTK_WIDGET (self), "highlighted");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (self), "highlighted");
}

GtkWidget *
prs_message_row_get_details_button (PrsMessageRow *self)
{
  g_return_val_if_fail (PRS_IS_MESSAGE_ROW (self), NULL);
  return self->details_button;
}

GtkWidget *
prs_message_row_get_actions_button (PrsMessageRow *self)
{
  g_return_val_if_fail (PRS_IS_MESSAGE_ROW (self), NULL);
  return self->actions_button;
}

char *
prs_message_row_dup_text (PrsMessage *message,
                          gboolean    markdown)
{
  const char *content;

  g_return_val_if_fail (PRS_IS_MESSAGE (message), NULL);

  content = prs_message_get_content (message);
  if (content == NULL)
    return g_strdup ("");
  /* A reply is Markdown; what a person or a workflow wrote is their text */
  if (markdown || !prs_message_is_kind (message, PRS_MESSAGE_KIND_ASSISTANT))
    return g_strdup (content);
  return prs_markdown_to_text (content, -1);
}

static void
copy_activated (GtkWidget  *widget,
                const char *action_name,
                GVariant   *parameter)
{
  PrsMessageRow *self = PRS_MESSAGE_ROW (widget);
  gboolean markdown = g_str_equal (action_name, "message-row.copy-markdown");
  g_autofree char *text = NULL;

  if (self->message == NULL)
    return;
  text = prs_message_row_dup_text (self->message, markdown);
  gdk_clipboard_set_text (gtk_widget_get_clipboard (widget), text);
  gtk_widget_activate_action (widget, "win.show-toast", "s",
                              markdown ? _("Copied as Markdown") : _("Copied as text"));
}

static void
again_activated (GtkWidget  *widget,
                 const char *action_name,
                 GVariant   *parameter)
{
  PrsMessageRow *self = PRS_MESSAGE_ROW (widget);

  if (self->message == NULL)
    return;
  g_signal_emit (self, signals[SIGNAL_MESSAGE_ACTION], 0, prs_message_get_id (self->message),
                 g_str_equal (action_name, "message-row.regenerate") ? "regenerate" : "edit");
}

PrsMessage *
prs_message_row_get_message (PrsMessageRow *self)
{
  g_return_val_if_fail (PRS_IS_MESSAGE_ROW (self), NULL);
  return self->message;
}

GtkWidget *
prs_message_row_get_link_button (PrsMessageRow *self)
{
  g_return_val_if_fail (PRS_IS_MESSAGE_ROW (self), NULL);
  return self->link_button;
}

GtkWidget *
prs_message_row_get_context_expander (PrsMessageRow *self)
{
  g_return_val_if_fail (PRS_IS_MESSAGE_ROW (self), NULL);
  return self->context_expander;
}

GtkWidget *
prs_message_row_get_retry_button (PrsMessageRow *self)
{
  g_return_val_if_fail (PRS_IS_MESSAGE_ROW (self), NULL);
  return self->retry_button;
}

GtkWidget *
prs_message_row_get_tool_card (PrsMessageRow *self)
{
  g_return_val_if_fail (PRS_IS_MESSAGE_ROW (self), NULL);
  return self->tool_card;
}

GPtrArray *
prs_message_row_get_blocks (PrsMessageRow *self)
{
  g_return_val_if_fail (PRS_IS_MESSAGE_ROW (self), NULL);
  return self->blocks;
}

static void
prs_message_row_dispose (GObject *object)
{
  PrsMessageRow *self = PRS_MESSAGE_ROW (object);

  g_clear_pointer (&self->clamp, gtk_widget_unparent);
  g_clear_object (&self->message);

  G_OBJECT_CLASS (prs_message_row_parent_class)->dispose (object);
}

static void
prs_message_row_finalize (GObject *object)
{
  PrsMessageRow *self = PRS_MESSAGE_ROW (object);

  g_clear_pointer (&self->blocks, g_ptr_array_unref);

  G_OBJECT_CLASS (prs_message_row_parent_class)->finalize (object);
}

static void
prs_message_row_class_init (PrsMessageRowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = prs_message_row_dispose;
  object_class->finalize = prs_message_row_finalize;

  /**
   * PrsMessageRow::tool-action:
   * @message_id: the tool call's message (the inbound message for
   *   "retry-inbound")
   * @action: "approve", "approve-all", "deny", "retry" or "retry-inbound"
   * @arguments: (nullable): the arguments to run with (JSON), for approvals
   */
  signals[SIGNAL_TOOL_ACTION] =
    g_signal_new ("tool-action", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 3,
                  G_TYPE_STRING, G_TYPE_STRING, G_TYPE_STRING);

  /**
   * PrsMessageRow::message-action:
   * @message_id: the message
   * @action: "regenerate" or "edit"
   */
  signals[SIGNAL_MESSAGE_ACTION] =
    g_signal_new ("message-action", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_STRING);

  gtk_widget_class_install_action (widget_class, "message-row.retry", NULL, retry_activated);
  gtk_widget_class_install_action (widget_class, "message-row.copy-text", NULL, copy_activated);
  gtk_widget_class_install_action (widget_class, "message-row.copy-markdown", NULL, copy_activated);
  gtk_widget_class_install_action (widget_class, "message-row.regenerate", NULL, again_activated);
  gtk_widget_class_install_action (widget_class, "message-row.edit", NULL, again_activated);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "messagerow");
}

static void
prs_message_row_init (PrsMessageRow *self)
{
  self->blocks = g_ptr_array_new ();
  self->clamp = adw_clamp_new ();
  adw_clamp_set_maximum_size (ADW_CLAMP (self->clamp), 820);
  adw_clamp_set_tightening_threshold (ADW_CLAMP (self->clamp), 600);
  gtk_widget_set_parent (self->clamp, GTK_WIDGET (self));
}
