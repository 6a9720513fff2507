/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-conversation-view.c: one conversation's messages and the composer.
 *
 * GTK 4.8 has no gtk_list_view_scroll_to (): the view drives the vertical
 * adjustment. While "sticky", every change of the content's height (rows
 * measured, messages appended) moves the view to the bottom on the next
 * frame. Scrolling up ends stickiness; reaching the bottom again restores
 * it. Rows of the paged model are read only when the list view realizes
 * them, so opening a long conversation reads a page or two.
 *
 * GTK 4.8's list view keeps up to 200 rows bound around its anchor, and
 * setting a model anchors it at the top: a long conversation given to it
 * whole would bind and measure 200 rows at the top, then 200 more at the
 * bottom. So the list view is first given only the tail of the history (a
 * screenful at the rows' expected heights, PrsTailModel: a long reply is
 * many screens, so one or two rows), the view is moved to the bottom in the
 * same frame (in the frame clock's layout phase, after the window
 * allocated), and the older messages are then revealed above it a chunk a
 * frame, by count and by text (one long reply a frame: laying out 20 KiB of
 * Markdown is hundreds of milliseconds) — the rows within the list view's
 * reach are bound a few at a time, and the rest of the history is revealed
 * at once, which binds nothing.
 *
 * Opened at a message (a search hit), the same model shows a window
 * starting just above it: the list view anchors at its top, the messages
 * below are revealed a chunk a frame, then those above at once (the list
 * view keeps its anchor when rows come above it). Only the pages around
 * that message are read, also for message 1 of 100,000. */
#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "prs-composer.h"
#include "prs-control-chars.h"
#include "prs-drafts.h"
#include "prs-conversation-view.h"
#include "prs-launcher.h"
#include "prs-message-focus.h"
#include "prs-message-row.h"
#include "prs-tail-model.h"

/* How close to the bottom counts as "at the bottom", in pixels. */
#define BOTTOM_SLACK 48.0

/* The tail first shown: a screenful at the rows' expected heights, plus a
 * few rows' worth; on_clock_layout adds what a screen still lacks. A row is
 * expected this tall (about the average of a short message), and a pixel
 * more for every so many bytes of its text: fewer than a line of text holds
 * at the widest, so a long reply is not expected taller than it is and the
 * screenful is one or two rows, not ten replies of many screens each. */
#define TAIL_ROW_HEIGHT 80
#define TAIL_EXTRA_ROWS 2
#define TAIL_BYTES_PER_PIXEL 16
/* Older messages revealed per frame while the list view can still bind
 * them: at most this many, of at most this much text together (but one at
 * least), and how many there are (GTK 4.8 binds up to 200 + 2 rows before
 * its anchor); past that the rest is revealed in one go. */
#define REVEAL_CHUNK 30
#define REVEAL_BYTES 8192
#define REVEAL_REACH 210
/* Layout passes the view may add to one frame (GDK runs at most 4). */
#define MAX_LAYOUT_FIXES 2

/* ---- the view ---- */

struct _PrsConversationView
{
  GtkWidget        parent_instance;

  PrsService      *service;
  PrsConversation *conversation;
  PrsMessageList  *messages;
  PrsTailModel    *tail;          /* what the list view shows of messages */
  GHashTable      *agent_names;   /* id → name */
  PrsDrafts       *drafts;        /* the composer's text, per conversation */

  gboolean         sticky;
  guint            programmatic;
  gboolean         allocating;
  double           last_value;
  guint            tick_id;
  gboolean         laid_out;      /* the current model, at least once */
  guint            reveal_id;     /* tick: older messages a chunk a frame */
  char            *highlight_id;  /* the message opened at (a search hit) */
  char            *last_user_id;  /* the message Edit and Resend replaces */
  char            *last_answer_id; /* the reply Regenerate replaces */
  guint            last_turn_id;

  GdkFrameClock   *clock;
  gulong           layout_id;
  gint64           fixes_frame;   /* frame counter of the last layout fix */
  guint            fixes;         /* layout fixes in that frame */

  GtkWidget       *box;
  PrsComposer     *composer;
  GtkRevealer     *jump_revealer;
  GtkListView     *list_view;
  GtkScrolledWindow *scroller;
};

G_DEFINE_FINAL_TYPE (PrsConversationView, prs_conversation_view, GTK_TYPE_WIDGET)

enum
{
  SIGNAL_TOOL_ACTION,
  SIGNAL_MESSAGE_ACTION,
  SIGNAL_MESSAGE_SENT,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static GtkAdjustment *
vadjustment (PrsConversationView *self)
{
  return gtk_scrolled_window_get_vadjustment (self->scroller);
}

static void
scroll_to_bottom_now (PrsConversationView *self)
{
  GtkAdjustment *adj = vadjustment (self);
  double bottom = gtk_adjustment_get_upper (adj) - gtk_adjustment_get_page_size (adj);

  self->programmatic++;
  gtk_adjustment_set_value (adj, MAX (bottom, 0));
  self->last_value = gtk_adjustment_get_value (adj);
  self->programmatic--;
}

static gboolean
stick_tick (GtkWidget     *widget,
            GdkFrameClock *frame_clock,
            gpointer       user_data)
{
  PrsConversationView *self = user_data;

  self->tick_id = 0;
  if (self->sticky)
    scroll_to_bottom_now (self);
  return G_SOURCE_REMOVE;
}

static void
queue_stick (PrsConversationView *self)
{
  if (self->tick_id == 0)
    self->tick_id = gtk_widget_add_tick_callback (GTK_WIDGET (self->list_view), stick_tick, self, NULL);
}

static void
set_sticky (PrsConversationView *self,
            gboolean             sticky)
{
  self->sticky = sticky;
  gtk_revealer_set_reveal_child (self->jump_revealer, !sticky);
}

static void
on_adjustment_changed (GtkAdjustment       *adj,
                       PrsConversationView *self)
{
  if (self->sticky)
    queue_stick (self);
}

static void
on_adjustment_value_changed (GtkAdjustment       *adj,
                             PrsConversationView *self)
{
  double value = gtk_adjustment_get_value (adj);
  double bottom = gtk_adjustment_get_upper (adj) - gtk_adjustment_get_page_size (adj);

  if (self->programmatic > 0)
    return;

  /* The list view moves the value itself while it lays out (rows measured,
   * estimates corrected): that is not the user leaving the bottom. */
  if (self->allocating)
    {
      if (self->sticky)
        queue_stick (self);
      return;
    }

  set_sticky (self, value >= bottom - BOTTOM_SLACK);
  self->last_value = value;
}

/* The frame clock's layout phase, after the window allocated (GDK lays out
 * again, in the same frame, when something asks for it here): a tail
 * shorter than the view shows more of the history, and a sticky view moves
 * to the bottom before the frame is painted, not a frame later. */
static void
on_clock_layout (GdkFrameClock       *clock,
                 PrsConversationView *self)
{
  GtkAdjustment *adj = vadjustment (self);
  gint64 frame = gdk_frame_clock_get_frame_counter (clock);
  double upper = gtk_adjustment_get_upper (adj);
  double page = gtk_adjustment_get_page_size (adj);

  if (self->tail == NULL || !gtk_widget_get_mapped (GTK_WIDGET (self->list_view)) || page <= 0)
    return;
  self->laid_out = TRUE;

  if (frame != self->fixes_frame)
    {
      self->fixes_frame = frame;
      self->fixes = 0;
    }
  if (self->fixes >= MAX_LAYOUT_FIXES)
    {
      if (self->sticky)
        queue_stick (self);
      return;
    }

  /* Not a screenful yet (the adjustment says the page then): as many rows
   * more as the missing height needs, at the rows' average height — below
   * first when opened at an older message */
  if ((self->tail->hidden > 0 || self->tail->hidden_tail > 0) && upper <= page + 1)
    {
      int content = 0;
      guint more;

      gtk_widget_measure (GTK_WIDGET (self->list_view), GTK_ORIENTATION_VERTICAL,
                          gtk_widget_get_width (GTK_WIDGET (self->list_view)), NULL, &content, NULL, NULL);
      if (content > 0 && self->tail->n_items > 0 && content < page)
        more = (guint) ((page - content) / ((double) content / self->tail->n_items)) + TAIL_EXTRA_ROWS;
      else
        more = MAX (self->tail->n_items, TAIL_EXTRA_ROWS);
      self->fixes++;
      if (self->tail->hidden_tail > 0)
        prs_tail_model_reveal_below (self->tail, more);
      else
        prs_tail_model_reveal (self->tail, more);
      return;
    }

  if (self->sticky && gtk_adjustment_get_value (adj) < upper - page - 0.5)
    {
      self->fixes++;
      scroll_to_bottom_now (self);
    }
}

/* The length of the text of the message at @position of the list */
static gsize
content_bytes (PrsConversationView *self,
               guint                position)
{
  g_autoptr(PrsMessage) message = g_list_model_get_item (G_LIST_MODEL (self->messages), position);
  const char *content = message != NULL ? prs_message_get_content (message) : NULL;

  return content != NULL ? strlen (content) : 0;
}

/* How many of the @available hidden rows next to @from (going towards
 * older ones when @step is -1) to reveal in this frame: a chunk of short
 * messages, one long reply (docs/conversations.md "Long replies") */
static guint
reveal_count (PrsConversationView *self,
              guint                from,
              int                  step,
              guint                available)
{
  gsize bytes = 0;
  guint count = 0;

  if (self->tail->n_items >= REVEAL_REACH)
    return available;
  for (; count < MIN (available, REVEAL_CHUNK); count++)
    {
      gsize len = content_bytes (self, from + step * (int) count);

      if (count > 0 && bytes + len > REVEAL_BYTES)
        break;
      bytes += len;
    }
  return count;
}

/* After the first frame, the older messages: a chunk a frame while the list
 * view binds rows above its anchor, then the rest at once. */
static gboolean
reveal_tick (GtkWidget     *widget,
             GdkFrameClock *frame_clock,
             gpointer       user_data)
{
  PrsConversationView *self = user_data;
  PrsTailModel *tail = self->tail;

  if (tail == NULL || (tail->hidden == 0 && tail->hidden_tail == 0))
    {
      self->reveal_id = 0;
      return G_SOURCE_REMOVE;
    }
  if (!self->laid_out)
    return G_SOURCE_CONTINUE;

  if (tail->hidden_tail > 0)
    prs_tail_model_reveal_below (tail, reveal_count (self, tail->hidden + tail->n_items, 1, tail->hidden_tail));
  else
    prs_tail_model_reveal (tail, reveal_count (self, tail->hidden - 1, -1, tail->hidden));
  return G_SOURCE_CONTINUE;
}

static int
screen_height (PrsConversationView *self)
{
  int height = gtk_widget_get_height (GTK_WIDGET (self->scroller));
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));

  if (height <= 0 && root != NULL)
    height = gtk_widget_get_height (GTK_WIDGET (root));
  return height > 0 ? height : 720;
}

/* How many rows from @from on (towards older ones when @step is -1), of
 * the @available there, fill a screen at their expected heights */
static guint
rows_for_screen (PrsConversationView *self,
                 guint                from,
                 int                  step,
                 guint                available)
{
  gsize want = (gsize) screen_height (self) + TAIL_EXTRA_ROWS * TAIL_ROW_HEIGHT;
  gsize height = 0;
  guint count = 0;

  while (count < available && height < want)
    {
      height += TAIL_ROW_HEIGHT + content_bytes (self, from + step * (int) count) / TAIL_BYTES_PER_PIXEL;
      count++;
    }
  return count;
}

static void load (PrsConversationView *self,
                  PrsConversation     *conversation,
                  const char          *message_id);

void
prs_conversation_view_scroll_to_bottom (PrsConversationView *self)
{
  g_return_if_fail (PRS_IS_CONVERSATION_VIEW (self));

  /* Opened at an older message, the newest are not in the model yet: open
   * at the bottom, as a conversation opens */
  if (self->tail != NULL && self->tail->hidden_tail > 0)
    {
      g_autoptr(PrsConversation) conversation = g_object_ref (self->conversation);

      load (self, conversation, NULL);
      return;
    }
  set_sticky (self, TRUE);
  scroll_to_bottom_now (self);
  queue_stick (self);
}

/* Which messages Regenerate and Edit and Resend act on: the last message
 * of a person (not superseded, no workflow's message after it) and the
 * last reply after it. Looked for among the newest messages, which the
 * list has read anyway. */
static void
find_last_turn (PrsConversationView  *self,
                char                **out_user_id,
                char                **out_answer_id)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->messages));

  *out_user_id = NULL;
  *out_answer_id = NULL;
  for (guint i = n, seen = 0; i > 0 && seen < 50; i--, seen++)
    {
      g_autoptr(PrsMessage) message = g_list_model_get_item (G_LIST_MODEL (self->messages), i - 1);

      if (prs_message_get_superseded_at (message) != NULL)
        continue;
      if (prs_message_is_kind (message, PRS_MESSAGE_KIND_ASSISTANT) && *out_answer_id == NULL)
        *out_answer_id = g_strdup (prs_message_get_id (message));
      if (prs_message_is_kind (message, PRS_MESSAGE_KIND_INBOUND))
        break;
      if (prs_message_is_kind (message, PRS_MESSAGE_KIND_USER))
        {
          *out_user_id = g_strdup (prs_message_get_id (message));
          return;
        }
    }
  g_clear_pointer (out_answer_id, g_free);
}

/* The rows whose menus change are bound again */
static void
update_last_turn (PrsConversationView *self)
{
  g_autofree char *user_id = NULL;
  g_autofree char *answer_id = NULL;
  g_autofree char *old_user = NULL;
  g_autofree char *old_answer = NULL;

  if (self->messages == NULL)
    return;
  find_last_turn (self, &user_id, &answer_id);
  if (g_strcmp0 (user_id, self->last_user_id) == 0 && g_strcmp0 (answer_id, self->last_answer_id) == 0)
    return;
  old_user = g_steal_pointer (&self->last_user_id);
  old_answer = g_steal_pointer (&self->last_answer_id);
  self->last_user_id = g_steal_pointer (&user_id);
  self->last_answer_id = g_steal_pointer (&answer_id);
  if (g_strcmp0 (old_user, self->last_user_id) != 0)
    {
      if (old_user != NULL)
        prs_message_list_message_changed (self->messages, old_user);
      if (self->last_user_id != NULL)
        prs_message_list_message_changed (self->messages, self->last_user_id);
    }
  if (g_strcmp0 (old_answer, self->last_answer_id) != 0)
    {
      if (old_answer != NULL)
        prs_message_list_message_changed (self->messages, old_answer);
      if (self->last_answer_id != NULL)
        prs_message_list_message_changed (self->messages, self->last_answer_id);
    }
}

static gboolean
update_last_turn_idle (gpointer data)
{
  PrsConversationView *self = data;

  self->last_turn_id = 0;
  update_last_turn (self);
  return G_SOURCE_REMOVE;
}

static void
on_items_changed (GListModel          *model,
                  guint                position,
                  guint                removed,
                  guint                added,
                  PrsConversationView *self)
{
  if (self->sticky)
    queue_stick (self);
  /* Changes at the end decide the last turn; rebinding rows from inside
   * the list's own signal would nest items-changed */
  if (position + MAX (removed, added) + 50 >= g_list_model_get_n_items (model) && self->last_turn_id == 0)
    self->last_turn_id = g_idle_add_full (G_PRIORITY_HIGH_IDLE, update_last_turn_idle, self, NULL);
}

static void
on_message_added (PrsService          *service,
                  const char          *conversation_id,
                  const char          *message_id,
                  PrsConversationView *self)
{
  if (self->messages != NULL &&
      g_strcmp0 (prs_message_list_get_conversation_id (self->messages), conversation_id) == 0)
    prs_message_list_refresh (self->messages);
}

static void
on_row_tool_action (PrsMessageRow       *row,
                    const char          *message_id,
                    const char          *action,
                    const char          *arguments,
                    PrsConversationView *self)
{
  g_signal_emit (self, signals[SIGNAL_TOOL_ACTION], 0, message_id, action, arguments);
}

static void
on_row_message_action (PrsMessageRow       *row,
                       const char          *message_id,
                       const char          *action,
                       PrsConversationView *self)
{
  g_signal_emit (self, signals[SIGNAL_MESSAGE_ACTION], 0, message_id, action);
}

static void
setup_row (GtkSignalListItemFactory *factory,
           GtkListItem              *item,
           PrsConversationView      *self)
{
  GtkWidget *row = prs_message_row_new ();

  gtk_list_item_set_activatable (item, FALSE);
  gtk_list_item_set_selectable (item, FALSE);
  g_signal_connect_object (row, "tool-action", G_CALLBACK (on_row_tool_action), self, 0);
  g_signal_connect_object (row, "message-action", G_CALLBACK (on_row_message_action), self, 0);
  gtk_list_item_set_child (item, row);
}

/* GTK 4.8 unbinds and binds every row again when its position changes
 * (older messages revealed above it): the row keeps what it built for the
 * same message, so that costs nothing. There is no unbind handler: a row
 * the list view no longer needs is destroyed, with what it built. */
/* What a row of @message offers: Edit and Resend on the person's last
 * message, Regenerate on the last reply */
static PrsMessageRowFlags
row_flags (PrsConversationView *self,
           PrsMessage          *message)
{
  const char *id = prs_message_get_id (message);
  PrsMessageRowFlags flags = 0;

  if (id != NULL && g_strcmp0 (id, self->last_user_id) == 0)
    flags |= PRS_MESSAGE_ROW_CAN_EDIT;
  if (id != NULL && g_strcmp0 (id, self->last_answer_id) == 0)
    flags |= PRS_MESSAGE_ROW_CAN_REGENERATE;
  return flags;
}

static void
bind_row (GtkSignalListItemFactory *factory,
          GtkListItem              *item,
          PrsConversationView      *self)
{
  PrsMessage *message = gtk_list_item_get_item (item);
  PrsMessageRow *row = PRS_MESSAGE_ROW (gtk_list_item_get_child (item));
  const char *agent = prs_message_get_agent_id (message);
  const char *id = prs_message_get_id (message);

  prs_message_row_set_message (row, message,
                               agent != NULL ? g_hash_table_lookup (self->agent_names, agent) : NULL,
                               row_flags (self, message));
  prs_message_row_set_highlighted (row, id != NULL && g_strcmp0 (id, self->highlight_id) == 0);
}

static void
on_composer_send (PrsComposer         *composer,
                  const char          *text,
                  const char          *agent_id,
                  PrsConversationView *self)
{
  g_autoptr(GError) error = NULL;
  PrsMessageInsert message = { 0 };

  if (self->service == NULL || self->conversation == NULL)
    return;

  message.conversation_id = prs_conversation_get_id (self->conversation);
  message.kind = "user";
  message.content = text;
  message.agent_id = agent_id;

  set_sticky (self, TRUE);
  if (!prs_service_add_message (self->service, &message, NULL, &error))
    {
      gtk_widget_activate_action (GTK_WIDGET (self), "win.show-toast", "s", error->message);
      prs_composer_set_text (composer, text);
      return;
    }
  if (self->drafts != NULL)
    prs_drafts_sent (self->drafts);
  /* Only a stored message is answered: a run started after a refused
   * insert would answer an older question, or say there is none */
  g_signal_emit (self, signals[SIGNAL_MESSAGE_SENT], 0, agent_id);
}

static void
load_agents (PrsConversationView *self)
{
  g_autoptr(GPtrArray) agents = NULL;
  g_autoptr(GPtrArray) ids = g_ptr_array_new ();
  g_autoptr(GPtrArray) names = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;

  g_hash_table_remove_all (self->agent_names);
  agents = prs_store_list_agents (prs_service_get_store (self->service), &error);
  if (agents == NULL)
    g_message ("Could not read the agents: %s", error->message);

  for (guint i = 0; agents != NULL && i < agents->len; i++)
    {
      PrsAgent *agent = g_ptr_array_index (agents, i);

      g_hash_table_insert (self->agent_names, g_strdup (agent->id), g_strdup (agent->name));
      g_ptr_array_add (ids, agent->id);
      g_ptr_array_add (names, agent->name);
    }
  if (ids->len == 0)
    {
      g_ptr_array_add (ids, (gpointer) PRS_AGENT_DEFAULT_ID);
      g_ptr_array_add (names, (gpointer) "Prosponsive");
    }
  g_ptr_array_add (ids, NULL);
  g_ptr_array_add (names, NULL);

  prs_composer_set_agents (self->composer, (const char * const *) ids->pdata,
                           (const char * const *) names->pdata);
}

/* Builds every message row on screen again (the rows the list view keeps
 * are its children's children) */
static void
rebuild_rows (GtkWidget           *widget,
              PrsConversationView *self)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      if (PRS_IS_MESSAGE_ROW (child))
        {
          g_autoptr(PrsMessage) message = NULL;
          const char *agent;

          if (prs_message_row_get_message (PRS_MESSAGE_ROW (child)) == NULL)
            continue;
          message = g_object_ref (prs_message_row_get_message (PRS_MESSAGE_ROW (child)));
          agent = prs_message_get_agent_id (message);
          prs_message_row_set_message (PRS_MESSAGE_ROW (child), NULL, NULL, 0);
          prs_message_row_set_message (PRS_MESSAGE_ROW (child), message,
                                       agent != NULL ? g_hash_table_lookup (self->agent_names, agent) : NULL,
                                       row_flags (self, message));
        }
      else
        rebuild_rows (child, self);
    }
}

/* The link allowlist follows Preferences: every reader (openLink icons,
 * Markdown links, URLs in text) uses it, on the rows shown now too */
static void
on_link_schemes_changed (PrsSettings         *settings,
                         const char          *key,
                         PrsConversationView *self)
{
  prs_launcher_set_open_link_schemes (prs_settings_get_open_link_schemes (settings));
  rebuild_rows (GTK_WIDGET (self->list_view), self);
}

void
prs_conversation_view_set_service (PrsConversationView *self,
                                   PrsService          *service)
{
  PrsSettings *settings;

  g_return_if_fail (PRS_IS_CONVERSATION_VIEW (self));
  g_return_if_fail (PRS_IS_SERVICE (service));

  if (self->service != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->service, self);
      g_signal_handlers_disconnect_by_data (prs_service_get_settings (self->service), self);
    }
  g_set_object (&self->service, service);
  g_clear_pointer (&self->drafts, prs_drafts_free);
  if (prs_service_get_store (service) != NULL)
    self->drafts = prs_drafts_new (prs_service_get_store (service), self->composer);
  g_signal_connect_object (service, "message-added", G_CALLBACK (on_message_added), self, 0);
  settings = prs_service_get_settings (service);
  g_signal_connect_object (settings, "changed::open-link-schemes", G_CALLBACK (on_link_schemes_changed), self, 0);
  on_link_schemes_changed (settings, "open-link-schemes", self);
  load_agents (self);
}

/* The composer offers the conversation's agent; one made after the list
 * was read (Agents page, prosponsive-ctl) makes it read the list again */
static void
offer_agent (PrsConversationView *self,
             PrsConversation     *conversation)
{
  const char *agent = prs_conversation_get_default_agent (conversation);

  if (agent != NULL && !g_hash_table_contains (self->agent_names, agent))
    load_agents (self);
  prs_composer_set_agent (self->composer, agent);
}

static void
on_default_agent_changed (PrsConversation     *conversation,
                          GParamSpec          *pspec,
                          PrsConversationView *self)
{
  offer_agent (self, conversation);
}

/* Where @message_id is in the conversation just loaded, or G_MAXUINT */
static guint
position_of (PrsConversationView *self,
             const char          *message_id)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *conversation_id = NULL;
  guint position = 0;

  if (message_id == NULL)
    return G_MAXUINT;
  if (!prs_store_locate_message (prs_service_get_store (self->service), message_id,
                                 &conversation_id, &position, &error))
    {
      g_message ("Could not find message %s: %s", message_id, error->message);
      return G_MAXUINT;
    }
  if (g_strcmp0 (conversation_id, prs_conversation_get_id (self->conversation)) != 0)
    return G_MAXUINT;
  return position;
}

/* Rows of context above a message opened at */
#define OPEN_AT_CONTEXT 2

static void
load (PrsConversationView *self,
      PrsConversation     *conversation,
      const char          *message_id)
{
  g_autoptr(GtkNoSelection) selection = NULL;
  gboolean at_message = FALSE;

  if (self->messages != NULL)
    g_signal_handlers_disconnect_by_data (self->messages, self);
  if (self->conversation != NULL)
    g_signal_handlers_disconnect_by_func (self->conversation, on_default_agent_changed, self);
  if (self->reveal_id != 0)
    {
      gtk_widget_remove_tick_callback (GTK_WIDGET (self->list_view), self->reveal_id);
      self->reveal_id = 0;
    }
  g_clear_object (&self->tail);
  g_clear_object (&self->messages);
  g_set_object (&self->conversation, conversation);
  if (self->drafts != NULL)
    prs_drafts_switch (self->drafts, conversation != NULL ? prs_conversation_get_id (conversation) : NULL);
  self->laid_out = FALSE;
  g_clear_pointer (&self->highlight_id, g_free);
  g_clear_pointer (&self->last_user_id, g_free);
  g_clear_pointer (&self->last_answer_id, g_free);
  g_clear_handle_id (&self->last_turn_id, g_source_remove);

  if (conversation != NULL)
    {
      guint position = G_MAXUINT, first = G_MAXUINT;
      guint n, screen, shown;

      self->messages = prs_message_list_new (prs_service_get_store (self->service),
                                             prs_conversation_get_id (conversation));
      g_signal_connect_object (self->messages, "items-changed", G_CALLBACK (on_items_changed), self, 0);
      n = g_list_model_get_n_items (G_LIST_MODEL (self->messages));
      if (message_id != NULL)
        {
          g_autoptr(PrsMessage) hit = NULL;

          position = position_of (self, message_id);
          hit = position != G_MAXUINT ? g_list_model_get_item (G_LIST_MODEL (self->messages), position) : NULL;
          /* A tool's answer is shown on its call's card: opened there */
          if (hit != NULL && g_strcmp0 (prs_message_get_shown_id (hit), message_id) != 0)
            position = position_of (self, prs_message_get_shown_id (hit));
          self->highlight_id = g_strdup (hit != NULL ? prs_message_get_shown_id (hit) : message_id);
        }
      /* Within the last screenful, it opens at the bottom as usual */
      screen = n > 0 ? rows_for_screen (self, n - 1, -1, n) : 0;
      shown = screen;
      at_message = position != G_MAXUINT && position + screen < n;
      if (at_message)
        {
          first = position > OPEN_AT_CONTEXT ? position - OPEN_AT_CONTEXT : 0;
          shown = rows_for_screen (self, first, 1, n - first);
        }
      self->tail = prs_tail_model_new (G_LIST_MODEL (self->messages), first, shown);
      update_last_turn (self);
      if (self->tail->hidden > 0 || self->tail->hidden_tail > 0)
        self->reveal_id = gtk_widget_add_tick_callback (GTK_WIDGET (self->list_view), reveal_tick, self, NULL);
      selection = gtk_no_selection_new (g_object_ref (G_LIST_MODEL (self->tail)));
      offer_agent (self, conversation);
      /* Its agent, set by a first inbound run or from the conversation's
       * menu, is the one the composer offers */
      g_signal_connect_object (conversation, "notify::default-agent",
                               G_CALLBACK (on_default_agent_changed), self, 0);
      {
        /* On one line, as the sidebar shows the title: it starts as the
         * slug, which may hold control characters (docs/conversations.md) */
        g_autofree char *title = prs_text_blank_controls (prs_conversation_get_title (conversation), -1, FALSE);
        /* Translators: the hint in the empty message entry; %s is the conversation */
        g_autofree char *hint = g_strdup_printf (_("Message %s"), title);
        prs_composer_set_placeholder (self->composer, hint);
      }
    }

  gtk_list_view_set_model (self->list_view, GTK_SELECTION_MODEL (selection));
  set_sticky (self, !at_message);
  self->last_value = 0;
  /* No tick before the layout: the list view has not measured the new
   * rows yet. on_clock_layout moves to the bottom once it has. */
  if (self->tick_id != 0)
    {
      gtk_widget_remove_tick_callback (GTK_WIDGET (self->list_view), self->tick_id);
      self->tick_id = 0;
    }
  gtk_widget_queue_allocate (GTK_WIDGET (self->list_view));
}

void
prs_conversation_view_set_conversation (PrsConversationView *self,
                                        PrsConversation     *conversation)
{
  g_return_if_fail (PRS_IS_CONVERSATION_VIEW (self));
  g_return_if_fail (self->service != NULL);

  if (conversation == self->conversation)
    return;
  load (self, conversation, NULL);
}

void
prs_conversation_view_open_at (PrsConversationView *self,
                               PrsConversation     *conversation,
                               const char          *message_id)
{
  g_return_if_fail (PRS_IS_CONVERSATION_VIEW (self));
  g_return_if_fail (PRS_IS_CONVERSATION (conversation));
  g_return_if_fail (self->service != NULL);

  load (self, conversation, message_id);
}

const char *
prs_conversation_view_get_highlighted (PrsConversationView *self)
{
  g_return_val_if_fail (PRS_IS_CONVERSATION_VIEW (self), NULL);
  return self->highlight_id;
}

PrsConversation *
prs_conversation_view_get_conversation (PrsConversationView *self)
{
  g_return_val_if_fail (PRS_IS_CONVERSATION_VIEW (self), NULL);
  return self->conversation;
}

PrsMessageList *
prs_conversation_view_get_messages (PrsConversationView *self)
{
  g_return_val_if_fail (PRS_IS_CONVERSATION_VIEW (self), NULL);
  return self->messages;
}

GtkListView *
prs_conversation_view_get_list_view (PrsConversationView *self)
{
  g_return_val_if_fail (PRS_IS_CONVERSATION_VIEW (self), NULL);
  return self->list_view;
}

PrsComposer *
prs_conversation_view_get_composer (PrsConversationView *self)
{
  g_return_val_if_fail (PRS_IS_CONVERSATION_VIEW (self), NULL);
  return self->composer;
}

gboolean
prs_conversation_view_get_sticky (PrsConversationView *self)
{
  g_return_val_if_fail (PRS_IS_CONVERSATION_VIEW (self), FALSE);
  return self->sticky;
}

static void
scroll_to_bottom_activated (GtkWidget  *widget,
                            const char *action_name,
                            GVariant   *parameter)
{
  prs_conversation_view_scroll_to_bottom (PRS_CONVERSATION_VIEW (widget));
}

static void
focus_composer_activated (GtkWidget  *widget,
                          const char *action_name,
                          GVariant   *parameter)
{
  prs_composer_focus (PRS_CONVERSATION_VIEW (widget)->composer);
}

static void
prs_conversation_view_measure (GtkWidget      *widget,
                               GtkOrientation  orientation,
                               int             for_size,
                               int            *minimum,
                               int            *natural,
                               int            *minimum_baseline,
                               int            *natural_baseline)
{
  gtk_widget_measure (PRS_CONVERSATION_VIEW (widget)->box, orientation, for_size,
                      minimum, natural, minimum_baseline, natural_baseline);
}

static void
prs_conversation_view_size_allocate (GtkWidget *widget,
                                     int        width,
                                     int        height,
                                     int        baseline)
{
  PrsConversationView *self = PRS_CONVERSATION_VIEW (widget);

  self->allocating = TRUE;
  gtk_widget_allocate (self->box, width, height, baseline, NULL);
  self->allocating = FALSE;
}

/* Tab: every control of the messages on screen, the jump button, then the
 * composer (prs-message-focus.c says why the list view cannot); arrows and
 * the rest as GTK moves them */
static gboolean
prs_conversation_view_focus (GtkWidget        *widget,
                             GtkDirectionType  direction)
{
  PrsConversationView *self = PRS_CONVERSATION_VIEW (widget);
  GtkWidget *parts[] = {
    GTK_WIDGET (self->list_view),
    gtk_revealer_get_child (self->jump_revealer),
    GTK_WIDGET (self->composer),
  };

  GtkAdjustment *adj = vadjustment (self);

  if (direction != GTK_DIR_TAB_FORWARD && direction != GTK_DIR_TAB_BACKWARD)
    return GTK_WIDGET_CLASS (prs_conversation_view_parent_class)->focus (widget, direction);
  if (!prs_message_focus_move (parts, G_N_ELEMENTS (parts), direction))
    return FALSE;
  /* A control scrolled into view a little above the bottom (within
   * BOTTOM_SLACK) is where the keyboard is: the view no longer follows
   * the bottom, which would scroll it away again */
  if (self->sticky && gtk_adjustment_get_value (adj) < gtk_adjustment_get_upper (adj) - gtk_adjustment_get_page_size (adj) - 0.5)
    set_sticky (self, FALSE);
  return TRUE;
}

static void
prs_conversation_view_realize (GtkWidget *widget)
{
  PrsConversationView *self = PRS_CONVERSATION_VIEW (widget);

  GTK_WIDGET_CLASS (prs_conversation_view_parent_class)->realize (widget);

  /* After the window's own handler, which allocates */
  self->clock = g_object_ref (gtk_widget_get_frame_clock (widget));
  self->layout_id = g_signal_connect_after (self->clock, "layout", G_CALLBACK (on_clock_layout), self);
}

static void
prs_conversation_view_unrealize (GtkWidget *widget)
{
  PrsConversationView *self = PRS_CONVERSATION_VIEW (widget);

  if (self->clock != NULL)
    {
      g_clear_signal_handler (&self->layout_id, self->clock);
      g_clear_object (&self->clock);
    }

  GTK_WIDGET_CLASS (prs_conversation_view_parent_class)->unrealize (widget);
}

static void
prs_conversation_view_dispose (GObject *object)
{
  PrsConversationView *self = PRS_CONVERSATION_VIEW (object);
  GtkWidget *child;

  if (self->tick_id != 0)
    {
      gtk_widget_remove_tick_callback (GTK_WIDGET (self->list_view), self->tick_id);
      self->tick_id = 0;
    }
  if (self->reveal_id != 0)
    {
      gtk_widget_remove_tick_callback (GTK_WIDGET (self->list_view), self->reveal_id);
      self->reveal_id = 0;
    }
  g_clear_handle_id (&self->last_turn_id, g_source_remove);
  if (self->list_view != NULL)
    gtk_list_view_set_model (self->list_view, NULL);
  /* Saves what was written, while the composer is still there */
  g_clear_pointer (&self->drafts, prs_drafts_free);
  gtk_widget_dispose_template (GTK_WIDGET (self), PRS_TYPE_CONVERSATION_VIEW);
  /* The template's unnamed top child too. */
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  g_clear_object (&self->tail);
  g_clear_object (&self->messages);
  g_clear_object (&self->conversation);
  g_clear_object (&self->service);

  G_OBJECT_CLASS (prs_conversation_view_parent_class)->dispose (object);
}

static void
prs_conversation_view_finalize (GObject *object)
{
  PrsConversationView *self = PRS_CONVERSATION_VIEW (object);

  g_clear_pointer (&self->agent_names, g_hash_table_unref);
  g_free (self->highlight_id);
  g_free (self->last_user_id);
  g_free (self->last_answer_id);

  G_OBJECT_CLASS (prs_conversation_view_parent_class)->finalize (object);
}

static void
prs_conversation_view_class_init (PrsConversationViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = prs_conversation_view_dispose;
  object_class->finalize = prs_conversation_view_finalize;

  widget_class->measure = prs_conversation_view_measure;
  widget_class->size_allocate = prs_conversation_view_size_allocate;
  widget_class->focus = prs_conversation_view_focus;
  widget_class->realize = prs_conversation_view_realize;
  widget_class->unrealize = prs_conversation_view_unrealize;

  /**
   * PrsConversationView::tool-action:
   * @message_id: the tool call's message (the inbound message for
   *   "retry-inbound")
   * @action: "approve", "approve-all", "deny", "retry" or "retry-inbound"
   * @arguments: (nullable): the arguments to run with (JSON), for approvals
   *
   * A tool card's action (or a failed inbound message's Retry) was
   * activated. The run engine connects here.
   */
  signals[SIGNAL_TOOL_ACTION] =
    g_signal_new ("tool-action", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 3,
                  G_TYPE_STRING, G_TYPE_STRING, G_TYPE_STRING);
  /**
   * PrsConversationView::message-action:
   * @message_id: the message
   * @action: "regenerate" (the last reply) or "edit" (the last message of
   *   the person, whose text the composer now holds)
   */
  signals[SIGNAL_MESSAGE_ACTION] =
    g_signal_new ("message-action", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_STRING);
  /**
   * PrsConversationView::message-sent:
   * @agent_id: (nullable): the agent the composer chose
   *
   * The person's message from the composer was stored; the window starts
   * the run that answers it.
   */
  signals[SIGNAL_MESSAGE_SENT] =
    g_signal_new ("message-sent", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);

  gtk_widget_class_set_template_from_resource (widget_class, RESOURCE_PREFIX "/ui/prs-conversation-view.ui");
  gtk_widget_class_bind_template_child (widget_class, PrsConversationView, box);
  gtk_widget_class_bind_template_child (widget_class, PrsConversationView, composer);
  gtk_widget_class_bind_template_child (widget_class, PrsConversationView, jump_revealer);
  gtk_widget_class_bind_template_child (widget_class, PrsConversationView, list_view);
  gtk_widget_class_bind_template_child (widget_class, PrsConversationView, scroller);

  gtk_widget_class_install_action (widget_class, "conversation.scroll-to-bottom", NULL, scroll_to_bottom_activated);
  gtk_widget_class_install_action (widget_class, "conversation.focus-composer", NULL, focus_composer_activated);

  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_l, GDK_CONTROL_MASK, "conversation.focus-composer", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_End, GDK_CONTROL_MASK, "conversation.scroll-to-bottom", NULL);

  gtk_widget_class_set_css_name (widget_class, "conversationview");

  g_type_ensure (PRS_TYPE_COMPOSER);
}

static void
prs_conversation_view_init (PrsConversationView *self)
{
  GtkListItemFactory *factory;
  GtkAdjustment *adj;

  gtk_widget_init_template (GTK_WIDGET (self));
  self->agent_names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->sticky = TRUE;

  factory = gtk_signal_list_item_factory_new ();
  g_signal_connect (factory, "setup", G_CALLBACK (setup_row), self);
  g_signal_connect (factory, "bind", G_CALLBACK (bind_row), self);
  gtk_list_view_set_factory (self->list_view, factory);
  g_object_unref (factory);
  prs_message_focus_add_arrows (self->list_view);

  g_signal_connect_object (self->composer, "send", G_CALLBACK (on_composer_send), self, 0);

  adj = vadjustment (self);
  g_signal_connect_object (adj, "changed", G_CALLBACK (on_adjustment_changed), self, 0);
  g_signal_connect_object (adj, "value-changed", G_CALLBACK (on_adjustment_value_changed), self, 0);
}
