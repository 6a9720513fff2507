/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-window.c: the chat window with real widgets under a real X server
 * (Xvfb): a seeded store, conversations arriving through the HTTPS API,
 * replies with context and links, key-value grids, tool cards, the
 * composer, a 100,000-message conversation and a full disk. Waits are frame-clock
 * frames or main-loop conditions, never sleeps. */
#include "config.h"

#include <sqlite3.h>
#include <sys/wait.h>
#include <glib/gstdio.h>
#include <libsoup/soup.h>

#include "prs-api-token.h"
#include "prs-composer.h"
#include "prs-context.h"
#include "prs-error.h"
#include "prs-conversation-view.h"
#include "prs-kv-grid.h"
#include "prs-launcher.h"
#include "prs-message-row.h"
#include "prs-service.h"
#include "prs-tool-card.h"
#include "prs-ui-test-util.h"
#include "prs-window.h"

typedef struct
{
  char       *data_dir;
  PrsService *service;
  PrsWindow  *window;
  gboolean    mounted;    /* a tmpfs over data_dir */
} Fixture;

static char *
add_message (PrsStore   *store,
             const char *conversation_id,
             const char *kind,
             const char *content,
             const char *status,
             const char *context_json,
             const char *extra_json)
{
  g_autoptr(GError) error = NULL;
  PrsMessageInsert message = { 0 };
  char *id = NULL;

  message.conversation_id = conversation_id;
  message.kind = kind;
  message.content = content;
  message.status = status;
  message.agent_id = g_strcmp0 (kind, "assistant") == 0 ? "prosponsive" : NULL;
  message.context_json = context_json;
  message.extra_json = extra_json;
  g_assert_true (prs_store_insert_message (store, &message, &id, NULL, &error));
  g_assert_no_error (error);
  return id;
}

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  f->data_dir = g_dir_make_tmp ("prs-ui-XXXXXX", &error);
  g_assert_no_error (error);
}

/* Starts the service and shows the window (after any seeding). */
static void
fixture_open (Fixture *f)
{
  g_autoptr(GError) error = NULL;

  f->service = prs_service_new (f->data_dir, prs_test_free_port ());
  g_assert_true (prs_service_start (f->service, &error));
  g_assert_no_error (error);

  f->window = prs_window_new (NULL, f->service);
  g_object_ref_sink (f->window);
  gtk_window_present (GTK_WINDOW (f->window));
  prs_test_wait_frames (GTK_WIDGET (f->window), 2);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  if (f->window != NULL)
    {
      gtk_window_destroy (GTK_WINDOW (f->window));
      g_clear_object (&f->window);
    }
  if (f->service != NULL)
    {
      prs_service_stop (f->service);
      g_clear_object (&f->service);
    }
  while (g_main_context_iteration (NULL, FALSE))
    ;
  if (f->mounted)
    {
      const char *umount_argv[] = { "umount", "-l", f->data_dir, NULL };

      g_spawn_sync (NULL, (char **) umount_argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL, NULL);
    }
  prs_test_remove_tree (f->data_dir);
  g_free (f->data_dir);
}

static PrsStore *
open_store (Fixture *f)
{
  g_autoptr(GError) error = NULL;
  PrsStore *store = prs_store_new (f->data_dir, &error);

  g_assert_no_error (error);
  return store;
}

static gboolean
row_has_message (GtkWidget *widget,
                 gpointer   data)
{
  PrsMessage *message = prs_message_row_get_message (PRS_MESSAGE_ROW (widget));

  return message != NULL && g_strcmp0 (prs_message_get_id (message), data) == 0;
}

static PrsMessageRow *
find_message_row (Fixture    *f,
                  const char *message_id)
{
  PrsConversationView *view = prs_window_get_conversation_view (f->window);

  return (PrsMessageRow *) prs_test_find_widget (GTK_WIDGET (prs_conversation_view_get_list_view (view)),
                                                 PRS_TYPE_MESSAGE_ROW, row_has_message,
                                                 (gpointer) message_id);
}

static void
open_conversation (Fixture    *f,
                   const char *conversation_id)
{
  prs_window_select_conversation (f->window, conversation_id);
  prs_test_wait_frames (GTK_WIDGET (f->window), 4);
}

/* ---- a seeded store shows its conversations ---- */

static void
test_seeded_conversations (Fixture       *f,
                           gconstpointer  data)
{
  g_autoptr(PrsStore) store = open_store (f);
  g_autofree char *a = prs_test_resolve_conversation (store, "email-inbox");
  g_autofree char *b = prs_test_resolve_conversation (store, "daily-briefing");
  g_autofree char *c = prs_test_resolve_conversation (store, "support");
  g_autofree char *m = add_message (store, b, "user", "Hello", NULL, NULL, NULL);
  GtkListView *list;

  g_clear_object (&store);
  fixture_open (f);

  list = prs_window_get_conversation_list (f->window);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (gtk_list_view_get_model (list))), ==, 3);
  g_assert_nonnull (prs_test_find_label (GTK_WIDGET (list), "email-inbox"));
  g_assert_nonnull (prs_test_find_label (GTK_WIDGET (list), "support"));
  g_assert_nonnull (prs_test_find_label (GTK_WIDGET (list), "daily-briefing"));
  /* Its row says how many messages it has (the others have none). */
  g_assert_nonnull (prs_conversation_list_find (prs_service_get_conversations (f->service), b, NULL));
  g_assert_cmpuint (prs_conversation_get_message_count (prs_conversation_list_find (prs_service_get_conversations (f->service), b, NULL)), ==, 1);
  g_assert_nonnull (prs_test_find_label (GTK_WIDGET (list), "No messages yet"));
}

/* ---- resolve through the HTTPS API while the window is open ---- */

static void
test_resolve_through_api (Fixture       *f,
                          gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *token = NULL;
  g_autofree char *url = NULL;
  g_autofree char *bearer = NULL;
  g_autoptr(SoupMessage) msg = NULL;
  g_autoptr(GBytes) body = g_bytes_new_static ("{\"slug\":\"from-n8n\"}", 19);
  GtkListView *list;
  GListModel *model;
  guint status;
  gboolean shown = FALSE;

  fixture_open (f);
  list = prs_window_get_conversation_list (f->window);
  model = G_LIST_MODEL (gtk_list_view_get_model (list));
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, 0);

  g_assert_true (prs_api_token_ensure (prs_service_get_secrets (f->service), f->data_dir, &token, &error));
  g_assert_no_error (error);

  url = g_strdup_printf ("https://127.0.0.1:%u/api/conversations/resolve", prs_service_get_port (f->service));
  bearer = g_strdup_printf ("Bearer %s", token);
  msg = soup_message_new ("POST", url);
  soup_message_headers_append (soup_message_get_request_headers (msg), "Authorization", bearer);
  soup_message_set_request_body_from_bytes (msg, "application/json", body);
  status = prs_test_https_send (msg, 10, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (status, ==, 200);

  /* The server's notification reaches the main context after its reply. */
  while (g_list_model_get_n_items (model) == 0)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, 1);

  prs_test_wait_frames (GTK_WIDGET (f->window), 2);
  shown = prs_test_find_label (GTK_WIDGET (list), "from-n8n") != NULL;
  g_assert_true (shown);
}

/* ---- a flood of new conversations through the API ---- */

#define FLOOD_SLUGS   3000
#define FLOOD_CLIENTS 2
/* A frame may wait this long at most while the flood goes on: before, each
 * new conversation reloaded and compared the whole list on the main thread
 * and frames stopped for tens of seconds */
#define FLOOD_MAX_GAP_US (2 * G_USEC_PER_SEC)

typedef struct
{
  char         *url;
  char         *bearer;
  guint         first;
  volatile gint *failures;
  volatile gint *running;
} FloodClient;

static gboolean
accept_any_certificate (SoupMessage          *msg,
                        GTlsCertificate      *certificate,
                        GTlsCertificateFlags  errors,
                        gpointer              data)
{
  return TRUE;
}

/* One client on its own thread and context: resolve a new slug after the
 * other, as an n8n loop over a backlog would */
static gpointer
flood_client (gpointer data)
{
  FloodClient *client = data;
  g_autoptr(GMainContext) context = g_main_context_new ();
  g_autoptr(SoupSession) session = NULL;

  g_main_context_push_thread_default (context);
  session = soup_session_new ();
  for (guint i = client->first; i < FLOOD_SLUGS; i += FLOOD_CLIENTS)
    {
      g_autoptr(SoupMessage) msg = soup_message_new ("POST", client->url);
      char *body = g_strdup_printf ("{\"slug\":\"flood-%05u\"}", i);
      g_autoptr(GBytes) bytes = g_bytes_new_take (body, strlen (body));
      g_autoptr(GBytes) answer = NULL;

      soup_message_headers_append (soup_message_get_request_headers (msg), "Authorization", client->bearer);
      soup_message_set_request_body_from_bytes (msg, "application/json", bytes);
      g_signal_connect (msg, "accept-certificate", G_CALLBACK (accept_any_certificate), NULL);
      answer = soup_session_send_and_read (session, msg, NULL, NULL);
      if (answer == NULL || soup_message_get_status (msg) != 200)
        g_atomic_int_inc (client->failures);
    }
  g_clear_object (&session);
  g_main_context_pop_thread_default (context);
  g_atomic_int_dec_and_test (client->running);
  return NULL;
}

typedef struct
{
  gint64 last;
  gint64 max_gap;
  guint  frames;
} Ticks;

static gboolean
conversation_is (gpointer    item,
                 const char *conversation_id)
{
  return item != NULL && g_strcmp0 (prs_conversation_get_id (item), conversation_id) == 0;
}

static gboolean
on_tick (GtkWidget     *widget,
         GdkFrameClock *clock,
         gpointer       data)
{
  Ticks *ticks = data;
  gint64 now = g_get_monotonic_time ();

  if (ticks->last != 0)
    ticks->max_gap = MAX (ticks->max_gap, now - ticks->last);
  ticks->last = now;
  ticks->frames++;
  return G_SOURCE_CONTINUE;
}

/* Thousands of new conversations from API clients while the window is
 * open: the frame clock keeps ticking, the list ends with every one of
 * them, and the conversation that was selected stays selected. */
static void
test_flood_of_new_conversations (Fixture       *f,
                                 gconstpointer  data)
{
  g_autoptr(PrsStore) store = open_store (f);
  g_autofree char *kept = prs_test_resolve_conversation (store, "kept-open");
  g_autofree char *m = add_message (store, kept, "user", "Hello", NULL, NULL, NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *token = NULL;
  g_autofree char *url = NULL;
  g_autofree char *bearer = NULL;
  FloodClient clients[FLOOD_CLIENTS];
  GThread *threads[FLOOD_CLIENTS];
  volatile gint failures = 0, running = FLOOD_CLIENTS;
  Ticks ticks = { 0 };
  GtkSingleSelection *selection;
  GListModel *model;
  guint tick_id;
  gint64 started;

  g_clear_object (&store);
  /* The creation limit would stop the flood after 120: lift it */
  g_setenv ("PROSPONSIVE_NEW_CONVERSATIONS_PER_MINUTE", "1000000", TRUE);
  fixture_open (f);
  g_unsetenv ("PROSPONSIVE_NEW_CONVERSATIONS_PER_MINUTE");
  prs_window_select_conversation (f->window, kept);
  prs_test_wait_frames (GTK_WIDGET (f->window), 4);

  selection = GTK_SINGLE_SELECTION (gtk_list_view_get_model (prs_window_get_conversation_list (f->window)));
  model = G_LIST_MODEL (selection);
  g_assert_true (conversation_is (gtk_single_selection_get_selected_item (selection), kept));

  g_assert_true (prs_api_token_ensure (prs_service_get_secrets (f->service), f->data_dir, &token, &error));
  g_assert_no_error (error);
  url = g_strdup_printf ("https://127.0.0.1:%u/api/conversations/resolve", prs_service_get_port (f->service));
  bearer = g_strdup_printf ("Bearer %s", token);

  tick_id = gtk_widget_add_tick_callback (GTK_WIDGET (f->window), on_tick, &ticks, NULL);
  prs_test_wait_frames (GTK_WIDGET (f->window), 2);
  started = g_get_monotonic_time ();
  for (guint i = 0; i < FLOOD_CLIENTS; i++)
    {
      clients[i] = (FloodClient) { url, bearer, i, &failures, &running };
      threads[i] = g_thread_new ("flood-client", flood_client, &clients[i]);
    }
  while (g_atomic_int_get (&running) > 0)
    g_main_context_iteration (NULL, TRUE);
  for (guint i = 0; i < FLOOD_CLIENTS; i++)
    g_thread_join (threads[i]);
  /* The last notifications reach the main context after their answers */
  while (g_list_model_get_n_items (model) < FLOOD_SLUGS + 1)
    g_main_context_iteration (NULL, TRUE);
  prs_test_wait_frames (GTK_WIDGET (f->window), 2);
  gtk_widget_remove_tick_callback (GTK_WIDGET (f->window), tick_id);

  g_test_message ("%d new conversations in %.1f s; %u frames, the longest gap %.0f ms",
                  FLOOD_SLUGS, (g_get_monotonic_time () - started) / 1e6, ticks.frames, ticks.max_gap / 1e3);
  g_assert_cmpint (failures, ==, 0);
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, FLOOD_SLUGS + 1);
  g_assert_cmpint (ticks.max_gap, <, FLOOD_MAX_GAP_US);
  /* Newest first, and the selection followed its conversation down */
  g_assert_true (conversation_is (gtk_single_selection_get_selected_item (selection), kept));
  g_assert_cmpuint (gtk_single_selection_get_selected (selection), ==, FLOOD_SLUGS);
}

/* ---- a reply with context: expander, link icon, launcher ---- */

#define CONTEXT_JSON \
  "{\"uid\":\"4711\",\"mailbox\":\"INBOX\"," \
  "\"openLink\":{\"url\":\"https://outlook.office.com/mail/4711\",\"label\":\"Open in Outlook\"}}"

static gboolean
file_exists (gpointer path)
{
  return g_file_test (path, G_FILE_TEST_EXISTS);
}

/* Whether a label of the row of @message_id has @text in its markup */
static gboolean
row_has (Fixture    *f,
         const char *message_id,
         const char *text)
{
  return prs_test_find_widget (GTK_WIDGET (find_message_row (f, message_id)), GTK_TYPE_LABEL,
                               prs_test_label_markup_contains, (gpointer) text) != NULL;
}

static void
on_launch (const char *uri,
           gpointer    user_data)
{
  g_ptr_array_add (user_data, g_strdup (uri));
}

#define NOTE_TEXT \
  "Noted in [the vault](obsidian://open?vault=Work), also obsidian://open?vault=Plain " \
  "and [the site](https://example.org/page)."

/* The row's Request Context opens as read-only, pretty-printed JSON in a
 * monospace view */
static void
assert_context_shown (Fixture       *f,
                      PrsMessageRow *row)
{
  GtkWidget *expander, *view;
  GtkTextBuffer *buffer;
  GtkTextIter start, end;
  g_autofree char *json = NULL;

  expander = prs_message_row_get_context_expander (row);
  g_assert_nonnull (expander);
  gtk_expander_set_expanded (GTK_EXPANDER (expander), TRUE);
  prs_test_wait_frames (GTK_WIDGET (f->window), 1);
  view = prs_test_find_widget (expander, GTK_TYPE_TEXT_VIEW, NULL, NULL);
  g_assert_nonnull (view);
  g_assert_true (gtk_text_view_get_monospace (GTK_TEXT_VIEW (view)));
  g_assert_false (gtk_text_view_get_editable (GTK_TEXT_VIEW (view)));
  buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (view));
  gtk_text_buffer_get_bounds (buffer, &start, &end);
  json = gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
  g_assert_nonnull (strstr (json, "\"openLink\""));
  g_assert_nonnull (strstr (json, "\n"));   /* pretty-printed */
  /* Its arrows are its own (they scroll it), not the list's */
  g_assert_true (gtk_widget_grab_focus (view));
  prs_test_press_keys (GTK_WIDGET (f->window), "Down");
  g_assert_true (gtk_root_get_focus (GTK_ROOT (f->window)) == view);
}

static void
test_context_and_link (Fixture       *f,
                       gconstpointer  data)
{
  g_autoptr(PrsStore) store = open_store (f);
  g_autofree char *conversation = prs_test_resolve_conversation (store, "email-inbox");
  g_autofree char *reply_id = add_message (store, conversation, "assistant",
                                           "Subject: Re: Q3 Planning\nFrom: Ann Example\n\nShe agrees.",
                                           "completed", CONTEXT_JSON, NULL);
  g_autofree char *bad_id = add_message (store, conversation, "assistant", "No link here.", "completed",
                                         "{\"openLink\":{\"url\":\"javascript:alert(1)\",\"label\":\"Bad\"}}", NULL);
  g_autofree char *note_id = add_message (store, conversation, "assistant", NOTE_TEXT, "completed",
                                          "{\"openLink\":{\"url\":\"obsidian://open?vault=Work\",\"label\":\"Open Note\"}}",
                                          NULL);
  const char *schemes[] = { "obsidian", "mailto", NULL };
  g_autoptr(GPtrArray) launched = g_ptr_array_new_with_free_func (g_free);
  GtkWidget *label;
  g_autofree char *log_path = g_build_filename (f->data_dir, "launch.log", NULL);
  g_autofree char *logged = NULL;
  PrsMessageRow *row;
  GtkWidget *link;

  g_clear_object (&store);
  fixture_open (f);
  open_conversation (f, conversation);

  row = find_message_row (f, reply_id);
  g_assert_nonnull (row);

  link = prs_message_row_get_link_button (row);
  g_assert_nonnull (link);
  g_assert_true (gtk_widget_get_mapped (link));
  g_assert_cmpstr (gtk_widget_get_tooltip_text (link), ==, "Open in Outlook");

  assert_context_shown (f, row);

  /* Activating the icon goes through the launcher. */
  g_setenv ("PRS_TEST_LAUNCH_LOG", log_path, TRUE);
  gtk_widget_activate (link);
  /* A button emits "clicked" once its activation flash ends. */
  g_assert_true (prs_test_wait_until (file_exists, log_path));
  g_unsetenv ("PRS_TEST_LAUNCH_LOG");
  g_assert_true (g_file_get_contents (log_path, &logged, NULL, NULL));
  g_assert_cmpstr (logged, ==, "https://outlook.office.com/mail/4711\n");

  /* A scheme off the allowlist: no icon, silently. */
  row = find_message_row (f, bad_id);
  g_assert_nonnull (row);
  g_assert_null (prs_message_row_get_link_button (row));
  g_assert_nonnull (prs_message_row_get_context_expander (row));
  row = find_message_row (f, note_id);
  g_assert_nonnull (row);
  g_assert_null (prs_message_row_get_link_button (row));
  /* …nor a link in its text, Markdown or plain; https is one */
  g_assert_false (row_has (f, note_id, "href=\"obsidian:"));
  g_assert_true (row_has (f, note_id, "<a href=\"https://example.org/page\">"));

  /* The allowlist is the open-link-schemes setting (Preferences), for
   * every reader and on the rows shown now: a scheme added gets its icon
   * and its links, one removed loses them */
  g_object_set (prs_service_get_settings (f->service), "open-link-schemes", schemes, NULL);
  prs_test_wait_frames (GTK_WIDGET (f->window), 2);
  row = find_message_row (f, note_id);
  g_assert_nonnull (row);
  link = prs_message_row_get_link_button (row);
  g_assert_nonnull (link);
  g_assert_cmpstr (gtk_widget_get_tooltip_text (link), ==, "Open Note");
  g_assert_true (row_has (f, note_id, "<a href=\"obsidian://open?vault=Work\">"));
  g_assert_true (row_has (f, note_id, "<a href=\"obsidian://open?vault=Plain\">"));
  g_assert_false (row_has (f, note_id, "href=\"https:"));
  row = find_message_row (f, reply_id);
  g_assert_nonnull (row);
  g_assert_null (prs_message_row_get_link_button (row));

  /* Activating a link goes through the allowlist too: an obsidian link
   * opens, an https one (as an older label may hold it) does not */
  prs_launcher_set_hook (on_launch, launched);
  label = prs_test_find_widget (GTK_WIDGET (find_message_row (f, note_id)), GTK_TYPE_LABEL,
                                prs_test_label_markup_contains, (gpointer) "obsidian://open?vault=Work");
  g_assert_nonnull (label);
  {
    gboolean handled = FALSE;

    g_signal_emit_by_name (label, "activate-link", "obsidian://open?vault=Work", &handled);
    g_signal_emit_by_name (label, "activate-link", "https://example.org/page", &handled);
  }
  prs_launcher_set_hook (NULL, NULL);
  g_assert_cmpuint (launched->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (launched, 0), ==, "obsidian://open?vault=Work");

  /* The memory settings backend outlives this test: back to the default,
   * which takes the obsidian links away again */
  g_object_set (prs_service_get_settings (f->service), "open-link-schemes",
                prs_context_get_default_link_schemes (), NULL);
  prs_test_wait_frames (GTK_WIDGET (f->window), 2);
  g_assert_null (prs_message_row_get_link_button (find_message_row (f, note_id)));
  g_assert_false (row_has (f, note_id, "href=\"obsidian:"));
}

/* ---- a key-value reply builds a grid with bold keys ---- */

static void
test_kv_grid (Fixture       *f,
              gconstpointer  data)
{
  g_autoptr(PrsStore) store = open_store (f);
  g_autofree char *conversation = prs_test_resolve_conversation (store, "email-inbox");
  g_autofree char *reply_id = add_message (store, conversation, "assistant",
                                           "Here is the email:\n\n"
                                           "**Subject:** Re: Q3 Planning\n"
                                           "- From: Ann Example\n"
                                           "Tracker = https://example.org/issues/7\n\n"
                                           "Body:\nThe rest is *text*.",
                                           "completed", NULL, NULL);
  PrsMessageRow *row;
  GPtrArray *blocks;
  PrsKvGrid *grid = NULL;

  g_clear_object (&store);
  fixture_open (f);
  open_conversation (f, conversation);

  row = find_message_row (f, reply_id);
  g_assert_nonnull (row);
  blocks = prs_message_row_get_blocks (row);
  for (guint i = 0; i < blocks->len; i++)
    if (PRS_IS_KV_GRID (g_ptr_array_index (blocks, i)))
      grid = g_ptr_array_index (blocks, i);
  g_assert_nonnull (grid);
  g_assert_cmpuint (prs_kv_grid_get_n_rows (grid), ==, 3);

  for (guint i = 0; i < 3; i++)
    {
      GtkWidget *key = prs_kv_grid_get_key_label (grid, i);

      g_assert_true (GTK_IS_LABEL (key));
      g_assert_true (prs_kv_grid_label_is_bold (GTK_LABEL (key)));
      g_assert_true (gtk_widget_has_css_class (key, "kv-key"));
      g_assert_false (gtk_label_get_use_markup (GTK_LABEL (key)));
    }
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (prs_kv_grid_get_key_label (grid, 0))), ==, "Subject");
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (prs_kv_grid_get_value_widget (grid, 0))), ==, "Re: Q3 Planning");
  g_assert_true (gtk_label_get_selectable (GTK_LABEL (prs_kv_grid_get_value_widget (grid, 0))));
  g_assert_true (gtk_label_get_wrap (GTK_LABEL (prs_kv_grid_get_value_widget (grid, 0))));
  /* The URL in a value is a link. */
  g_assert_nonnull (strstr (gtk_label_get_label (GTK_LABEL (prs_kv_grid_get_value_widget (grid, 2))),
                            "<a href=\"https://example.org/issues/7\">"));
  /* The keys are not bold only by style: their text is laid out bold. */
  g_assert_false (prs_kv_grid_label_is_bold (GTK_LABEL (prs_kv_grid_get_value_widget (grid, 0))));
}

/* ---- tool cards: approving through the action ---- */

typedef struct
{
  char *message_id;
  char *action;
  char *arguments;
} ToolAction;

static void
on_tool_action (PrsConversationView *view,
                const char          *message_id,
                const char          *action,
                const char          *arguments,
                ToolAction          *got)
{
  g_free (got->message_id);
  g_free (got->action);
  g_free (got->arguments);
  got->message_id = g_strdup (message_id);
  got->action = g_strdup (action);
  got->arguments = g_strdup (arguments);
}

static void
test_tool_card_approve (Fixture       *f,
                        gconstpointer  data)
{
  g_autoptr(PrsStore) store = open_store (f);
  g_autofree char *conversation = prs_test_resolve_conversation (store, "email-inbox");
  g_autofree char *call_id = add_message (store, conversation, "tool-call", NULL, "proposed", NULL,
                                          "{\"name\":\"email_move_to_folder\","
                                          "\"arguments\":{\"uid\":\"4711\",\"destination\":\"Archive\",\"limit\":3},"
                                          "\"provenance\":{\"uid\":\"context:uid\",\"limit\":\"default\"}}");
  g_autofree char *approved_id = add_message (store, conversation, "tool-call", NULL, "approved", NULL,
                                              "{\"name\":\"email_search\",\"arguments\":{\"q\":\"Q4\"}}");
  g_autofree char *done_id = add_message (store, conversation, "tool-call", NULL, "succeeded", NULL,
                                          "{\"name\":\"email_search\",\"arguments\":{\"q\":\"Q3\"},"
                                          "\"result\":{\"count\":2}}");
  ToolAction got = { 0 };
  PrsMessageRow *row;
  GtkWidget *card;
  GtkWidget *entry;

  g_clear_object (&store);
  fixture_open (f);
  g_signal_connect (prs_window_get_conversation_view (f->window), "tool-action",
                    G_CALLBACK (on_tool_action), &got);
  open_conversation (f, conversation);

  row = find_message_row (f, call_id);
  g_assert_nonnull (row);
  card = prs_message_row_get_tool_card (row);
  g_assert_nonnull (card);
  g_assert_cmpstr (prs_tool_card_get_status (PRS_TOOL_CARD (card)), ==, "proposed");
  /* A narrow window breaks the name anywhere, but adds no hyphen to it */
  g_assert_true (prs_test_label_adds_no_hyphens (prs_test_find_label (card, "email_move_to_folder")));
  g_assert_nonnull (prs_test_find_label (card, "email_move_to_folder"));
  g_assert_nonnull (prs_test_find_label (card, "from Request Context “uid”"));
  g_assert_nonnull (prs_test_find_label (card, "the tool’s default"));
  g_assert_nonnull (prs_test_find_label (card, "from the model"));
  g_assert_nonnull (prs_test_find_label (card, "Waiting for Approval"));

  g_assert_true (gtk_widget_activate_action (card, "tool-card.approve", NULL));
  g_assert_cmpstr (got.action, ==, "approve");
  g_assert_cmpstr (got.message_id, ==, call_id);
  g_assert_cmpstr (got.arguments, ==, "{\"uid\":\"4711\",\"destination\":\"Archive\",\"limit\":3}");

  /* Edited arguments keep their types. */
  g_assert_true (gtk_widget_activate_action (card, "tool-card.edit", NULL));
  entry = prs_test_find_widget (card, GTK_TYPE_ENTRY, NULL, NULL);
  g_assert_nonnull (entry);
  gtk_editable_set_text (GTK_EDITABLE (entry), "4712");
  g_assert_true (gtk_widget_activate_action (card, "tool-card.approve-all", NULL));
  g_assert_cmpstr (got.action, ==, "approve-all");
  g_assert_cmpstr (got.arguments, ==, "{\"uid\":\"4712\",\"destination\":\"Archive\",\"limit\":3}");

  g_assert_true (gtk_widget_activate_action (card, "tool-card.deny", NULL));
  g_assert_cmpstr (got.action, ==, "deny");
  g_assert_null (got.arguments);

  /* A settled call offers no approval. */
  row = find_message_row (f, done_id);
  g_assert_nonnull (row);
  card = prs_message_row_get_tool_card (row);
  g_free (got.action);
  got.action = NULL;
  gtk_widget_activate_action (card, "tool-card.approve", NULL);
  g_assert_null (got.action);
  g_assert_nonnull (prs_test_find_label (card, "Succeeded"));

  /* The moment between approval and running has its word too */
  row = find_message_row (f, approved_id);
  g_assert_nonnull (row);
  g_assert_nonnull (prs_test_find_label (prs_message_row_get_tool_card (row), "Approved"));

  g_free (got.message_id);
  g_free (got.arguments);
}

/* ---- the composer stores a user message that shows at once ---- */

static void
test_composer_sends (Fixture       *f,
                     gconstpointer  data)
{
  g_autoptr(PrsStore) store = open_store (f);
  g_autofree char *conversation = prs_test_resolve_conversation (store, "chat");
  g_autofree char *first = add_message (store, conversation, "assistant", "Hello! How can I help?", "completed", NULL, NULL);
  PrsConversationView *view;
  PrsComposer *composer;
  PrsMessageList *messages;
  g_autoptr(PrsMessage) last = NULL;
  g_autofree char *left = NULL;

  g_clear_object (&store);
  fixture_open (f);
  open_conversation (f, conversation);

  view = prs_window_get_conversation_view (f->window);
  composer = prs_conversation_view_get_composer (view);
  messages = prs_conversation_view_get_messages (view);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (messages)), ==, 1);

  /* Empty text does not send. */
  prs_composer_set_text (composer, "   \n");
  gtk_widget_activate_action (GTK_WIDGET (composer), "composer.send", NULL);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (messages)), ==, 1);

  prs_composer_set_text (composer, "Move the Q3 email\nto Archive, please.");
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (composer), "composer.send", NULL));
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (messages)), ==, 2);
  last = g_list_model_get_item (G_LIST_MODEL (messages), 1);
  g_assert_cmpstr (prs_message_get_kind (last), ==, "user");
  g_assert_cmpstr (prs_message_get_content (last), ==, "Move the Q3 email\nto Archive, please.");
  g_assert_cmpstr (prs_message_get_agent_id (last), ==, "prosponsive");
  left = prs_composer_dup_text (composer);
  g_assert_cmpstr (left, ==, "");

  prs_test_wait_frames (GTK_WIDGET (f->window), 3);
  g_assert_nonnull (find_message_row (f, prs_message_get_id (last)));

  /* Ctrl+F, which the main menu shows beside Search Everything, works
   * from the composer too, not only in the sidebar */
  prs_test_press_keys (prs_test_find_widget (GTK_WIDGET (composer), GTK_TYPE_TEXT_VIEW, NULL, NULL), "<Control>f");
  prs_test_wait_frames (GTK_WIDGET (f->window), 2);
  g_assert_true (gtk_search_bar_get_search_mode (GTK_SEARCH_BAR (
    prs_test_find_widget (GTK_WIDGET (f->window), GTK_TYPE_SEARCH_BAR, NULL, NULL))));
}

/* ---- long histories ---- */

static gboolean
adjustment_at_bottom (GtkAdjustment *adj)
{
  return gtk_adjustment_get_value (adj) >=
         gtk_adjustment_get_upper (adj) - gtk_adjustment_get_page_size (adj) - 2.0;
}

static GtkAdjustment *
message_adjustment (Fixture *f)
{
  PrsConversationView *view = prs_window_get_conversation_view (f->window);

  return gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (prs_conversation_view_get_list_view (view)));
}

static void
test_huge_conversation (Fixture       *f,
                        gconstpointer  data)
{
  g_autoptr(PrsStore) store = open_store (f);
  g_autofree char *small = prs_test_resolve_conversation (store, "small");
  g_autofree char *huge = prs_test_resolve_conversation (store, "huge");
  g_autofree char *db_path = g_strdup (prs_store_get_path (store));
  g_autofree char *last_id = g_strdup_printf ("%s-%u", huge, 100000);
  g_autofree char *first_id = g_strdup_printf ("%s-%u", huge, 1);
  PrsConversationView *view;
  PrsMessageList *messages;
  gint64 started, elapsed;

  add_message (store, small, "user", "Hi", NULL, NULL, NULL);
  g_clear_object (&store);
  prs_test_seed_messages (db_path, huge, 100000);
  fixture_open (f);
  view = prs_window_get_conversation_view (f->window);

  started = g_get_monotonic_time ();
  prs_window_select_conversation (f->window, huge);
  prs_test_wait_frames (GTK_WIDGET (f->window), 1);
  elapsed = g_get_monotonic_time () - started;
  g_test_message ("100,000 messages: first frame after %.1f ms", elapsed / 1000.0);
  g_assert_cmpint (elapsed, <, 500 * 1000);

  messages = prs_conversation_view_get_messages (view);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (messages)), ==, 100000);

  /* It settles at the bottom, with the newest message realized. */
  prs_test_wait_frames (GTK_WIDGET (f->window), 8);
  g_assert_true (adjustment_at_bottom (message_adjustment (f)));
  g_assert_nonnull (find_message_row (f, last_id));
  g_assert_cmpuint (prs_message_list_get_n_cached (messages), <=,
                    PRS_MESSAGE_LIST_PAGE_SIZE * PRS_MESSAGE_LIST_MAX_PAGES);
  g_test_message ("pages read: %u", prs_message_list_get_n_page_loads (messages));

  /* Scrolling through the whole history keeps the cache bounded. */
  for (double fraction = 0.9; fraction >= 0; fraction -= 0.1)
    {
      GtkAdjustment *adj = message_adjustment (f);

      gtk_adjustment_set_value (adj, gtk_adjustment_get_upper (adj) * fraction);
      prs_test_wait_frames (GTK_WIDGET (f->window), 2);
      g_assert_cmpuint (prs_message_list_get_n_cached (messages), <=,
                        PRS_MESSAGE_LIST_PAGE_SIZE * PRS_MESSAGE_LIST_MAX_PAGES);
    }
  gtk_adjustment_set_value (message_adjustment (f), 0);
  prs_test_wait_frames (GTK_WIDGET (f->window), 3);
  g_assert_nonnull (find_message_row (f, first_id));
  g_assert_false (prs_conversation_view_get_sticky (view));
}

/* The message id of the topmost row whose top is on screen, and its y. */
static char *
first_visible_row (Fixture *f,
                   double  *y)
{
  GtkWidget *list = GTK_WIDGET (prs_conversation_view_get_list_view (prs_window_get_conversation_view (f->window)));
  char *best = NULL;
  double best_y = G_MAXDOUBLE;

  for (GtkWidget *item = gtk_widget_get_first_child (list); item != NULL; item = gtk_widget_get_next_sibling (item))
    {
      GtkWidget *row = prs_test_find_widget (item, PRS_TYPE_MESSAGE_ROW, NULL, NULL);
      graphene_point_t point;

      if (row == NULL || prs_message_row_get_message (PRS_MESSAGE_ROW (row)) == NULL ||
          !gtk_widget_get_mapped (row) ||
          !gtk_widget_compute_point (row, list, &GRAPHENE_POINT_INIT (0, 0), &point))
        continue;
      if (point.y >= 0 && point.y < best_y)
        {
          best_y = point.y;
          g_free (best);
          best = g_strdup (prs_message_get_id (prs_message_row_get_message (PRS_MESSAGE_ROW (row))));
        }
    }
  *y = best_y;
  return best;
}

static void
test_stick_to_bottom (Fixture       *f,
                      gconstpointer  data)
{
  g_autoptr(PrsStore) store = open_store (f);
  g_autofree char *conversation = prs_test_resolve_conversation (store, "busy");
  g_autofree char *db_path = g_strdup (prs_store_get_path (store));
  PrsMessageInsert message = { 0 };
  g_autoptr(GError) error = NULL;
  g_autofree char *new_id = NULL;
  g_autofree char *newer_id = NULL;
  g_autofree char *top_id = NULL;
  GtkAdjustment *adj;
  double top_y = 0;

  g_clear_object (&store);
  prs_test_seed_messages (db_path, conversation, 300);
  fixture_open (f);
  open_conversation (f, conversation);
  prs_test_wait_frames (GTK_WIDGET (f->window), 4);
  adj = message_adjustment (f);
  g_assert_true (adjustment_at_bottom (adj));

  /* At the bottom, a new message scrolls into view. */
  message.conversation_id = conversation;
  message.kind = "assistant";
  message.content = "Status: new\nNumber: 301";
  g_assert_true (prs_service_add_message (f->service, &message, &new_id, &error));
  g_assert_no_error (error);
  prs_test_wait_frames (GTK_WIDGET (f->window), 4);
  g_assert_true (adjustment_at_bottom (adj));
  g_assert_nonnull (find_message_row (f, new_id));

  /* Scrolled up, a new message does not move the view. */
  gtk_adjustment_set_value (adj, gtk_adjustment_get_value (adj) - 2000);
  prs_test_wait_frames (GTK_WIDGET (f->window), 3);
  g_assert_false (prs_conversation_view_get_sticky (prs_window_get_conversation_view (f->window)));
  top_id = first_visible_row (f, &top_y);
  g_assert_nonnull (top_id);
  message.content = "Status: newer\nNumber: 302";
  g_assert_true (prs_service_add_message (f->service, &message, &newer_id, &error));
  prs_test_wait_frames (GTK_WIDGET (f->window), 4);
  /* The row at the top stays where it was on screen. */
  {
    PrsMessageRow *row = find_message_row (f, top_id);
    graphene_point_t point;

    g_assert_nonnull (row);
    g_assert_true (gtk_widget_compute_point (GTK_WIDGET (row),
                                             GTK_WIDGET (prs_conversation_view_get_list_view (prs_window_get_conversation_view (f->window))),
                                             &GRAPHENE_POINT_INIT (0, 0), &point));
    g_assert_cmpfloat_with_epsilon (point.y, top_y, 1.0);
  }
  g_assert_false (prs_conversation_view_get_sticky (prs_window_get_conversation_view (f->window)));

  /* The jump button's action goes back down. */
  gtk_widget_activate_action (GTK_WIDGET (prs_window_get_conversation_view (f->window)),
                              "conversation.scroll-to-bottom", NULL);
  prs_test_wait_frames (GTK_WIDGET (f->window), 4);
  g_assert_true (adjustment_at_bottom (adj));
  g_assert_nonnull (find_message_row (f, newer_id));
}

/* ---- the disk fills up: a banner, and back when there is room ---- */

static gboolean
is_storage_banner (GtkWidget *widget,
                   gpointer   data)
{
  GtkWidget *child = gtk_revealer_get_child (GTK_REVEALER (widget));

  return child != NULL && gtk_widget_has_css_class (child, "storage-banner");
}

static gboolean
banner_shown (gpointer data)
{
  return gtk_revealer_get_reveal_child (data) && gtk_revealer_get_child_revealed (data);
}

static gboolean
banner_hidden (gpointer data)
{
  return !gtk_revealer_get_reveal_child (data) && !gtk_widget_get_mapped (gtk_revealer_get_child (data));
}

static void
test_storage_full (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *filler = g_build_filename (f->data_dir, "filler", NULL);
  g_autofree char *conversation_id = NULL;
  g_autofree char *big = g_strnfill (100 * 1024, 'x');
  g_autoptr(GError) error = NULL;
  const char *mount_argv[] = { "mount", "-t", "tmpfs", "-o", "size=2m,mode=0700", "tmpfs", f->data_dir, NULL };
  GtkRevealer *banner;
  PrsMessageInsert message = { 0 };
  int status = -1;
  FILE *file;
  guint attempts = 0;

  /* A real full disk: a 2 MiB tmpfs over the data folder (root only) */
  if (!g_spawn_sync (NULL, (char **) mount_argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL |
                     G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, NULL, NULL, &status, NULL) ||
      !g_spawn_check_wait_status (status, NULL))
    {
      g_test_skip ("mount -t tmpfs is not permitted here");
      return;
    }
  f->mounted = TRUE;

  fixture_open (f);
  banner = GTK_REVEALER (prs_test_find_widget (GTK_WIDGET (f->window), GTK_TYPE_REVEALER,
                                               is_storage_banner, NULL));
  g_assert_nonnull (banner);
  g_assert_false (gtk_revealer_get_reveal_child (banner));
  g_assert_true (prs_store_resolve_conversation (prs_service_get_store (f->service), "inbox",
                                                 &conversation_id, NULL, &error));
  g_assert_no_error (error);

  /* Fill it, then save until SQLite runs out of room */
  file = g_fopen (filler, "wb");
  g_assert_nonnull (file);
  while (fwrite (big, 1, 64 * 1024, file) == 64 * 1024 && fflush (file) == 0)
    ;
  fclose (file);

  message.conversation_id = conversation_id;
  message.kind = "user";
  message.content = big;
  while (prs_service_add_message (f->service, &message, NULL, &error))
    g_assert_cmpuint (++attempts, <, 100);
  g_assert_error (error, PRS_ERROR, PRS_ERROR_STORE_FULL);
  /* Said as what to do, not as SQLite's words */
  g_assert_true (g_str_has_prefix (error->message, "The disk that holds Prosponsive’s data ("));
  g_assert_true (g_str_has_suffix (error->message, ") is full. Free some space, then try again."));
  g_clear_error (&error);

  /* A start on the full disk says the same (the "Cannot Start" dialog) */
  {
    g_autofree char *other = g_build_filename (f->data_dir, "other", NULL);
    g_autoptr(PrsStore) refused = NULL;

    g_assert_cmpint (g_mkdir (other, 0700), ==, 0);
    refused = prs_store_new (other, &error);
    g_assert_null (refused);
    g_assert_error (error, PRS_ERROR, PRS_ERROR_STORE_FULL);
    g_assert_true (g_str_has_suffix (error->message, ") is full. Free some space, then try again."));
    g_clear_error (&error);
  }

  g_assert_true (prs_test_wait_until (banner_shown, banner));
  g_assert_true (prs_service_get_storage_full (f->service));
  g_assert_true (gtk_widget_get_mapped (gtk_revealer_get_child (banner)));

  /* "Check Again" while still full changes nothing */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.check-storage", NULL));
  g_assert_true (gtk_revealer_get_reveal_child (banner));

  /* Room again: the check clears it, and saving works */
  g_assert_cmpint (g_unlink (filler), ==, 0);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.check-storage", NULL));
  g_assert_true (prs_test_wait_until (banner_hidden, banner));
  g_assert_false (prs_service_get_storage_full (f->service));
  message.content = "There is room again";
  g_assert_true (prs_service_add_message (f->service, &message, NULL, &error));
  g_assert_no_error (error);
}

/* ---- prosponsive-ctl beside the open window ---- */

/* Runs PRS_TEST_CTL (the built prosponsive-ctl) on the fixture's data
 * folder, as a person would in a terminal beside the window; its exit
 * status. */
static int
run_ctl (Fixture *f,
         ...)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *err = NULL;
  const char *arg;
  va_list args;
  int status = -1;

  g_ptr_array_add (argv, (gpointer) g_getenv ("PRS_TEST_CTL"));
  g_ptr_array_add (argv, (gpointer) "--data-dir");
  g_ptr_array_add (argv, f->data_dir);
  va_start (args, f);
  while ((arg = va_arg (args, const char *)) != NULL)
    g_ptr_array_add (argv, (gpointer) arg);
  va_end (args);
  g_ptr_array_add (argv, NULL);

  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL,
                               NULL, &err, &status, &error));
  g_assert_no_error (error);
  if (!g_spawn_check_wait_status (status, NULL))
    g_test_message ("prosponsive-ctl %s: %s", (const char *) argv->pdata[3], err);
  return WIFEXITED (status) ? WEXITSTATUS (status) : -1;
}

static guint
count_messages_in (const char *db_path,
                   const char *content)
{
  sqlite3 *db = NULL;
  sqlite3_stmt *stmt = NULL;
  guint count = 0;

  g_assert_cmpint (sqlite3_open_v2 (db_path, &db, SQLITE_OPEN_READONLY, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_prepare_v2 (db, "SELECT count(*) FROM messages WHERE content = ?1", -1, &stmt, NULL),
                   ==, SQLITE_OK);
  sqlite3_bind_text (stmt, 1, content, -1, SQLITE_STATIC);
  if (sqlite3_step (stmt) == SQLITE_ROW)
    count = sqlite3_column_int (stmt, 0);
  sqlite3_finalize (stmt);
  sqlite3_close (db);
  return count;
}

/* The window and its API thread hold the database open while ctl verbs
 * that read and write it come and go: the WAL keeps its name, what the
 * window writes afterwards is what another process reads, and the window
 * shows what the ctl wrote. */
static void
test_ctl_beside (Fixture       *f,
                 gconstpointer  data)
{
  g_autoptr(PrsStore) store = open_store (f);
  g_autofree char *conversation = prs_test_resolve_conversation (store, "chat");
  g_autofree char *db_path = g_build_filename (f->data_dir, "prosponsive.db", NULL);
  g_autofree char *wal = g_strconcat (db_path, "-wal", NULL);
  g_autofree char *shm = g_strconcat (db_path, "-shm", NULL);
  g_autofree char *agent_path = g_build_filename (f->data_dir, "beside.md", NULL);
  g_autofree char *backup_path = g_build_filename (f->data_dir, "backup.db", NULL);
  const char *text = "Written by the window after the ctl verbs";
  PrsComposer *composer;

  if (g_getenv ("PRS_TEST_CTL") == NULL)
    {
      g_test_skip ("PRS_TEST_CTL (the prosponsive-ctl to run) is not set");
      return;
    }
  g_clear_object (&store);
  fixture_open (f);
  open_conversation (f, conversation);

  g_assert_true (g_file_set_contents (agent_path, "---\nid: beside\nname: Imported Beside\n"
                                      "allowedTools: []\n---\nAnswer briefly.\n", -1, NULL));
  g_assert_cmpint (run_ctl (f, "rule", "add", "--tool", "send_email", "--action", "deny", NULL), ==, 0);
  g_assert_cmpint (run_ctl (f, "agent", "import", agent_path, NULL), ==, 0);
  /* No n8n is set up: it fails, having opened and closed the store */
  g_assert_cmpint (run_ctl (f, "discover", NULL), ==, 1);
  g_assert_cmpint (run_ctl (f, "tools", NULL), ==, 0);
  g_assert_true (g_file_test (wal, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (shm, G_FILE_TEST_EXISTS));

  composer = prs_conversation_view_get_composer (prs_window_get_conversation_view (f->window));
  prs_composer_set_text (composer, text);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (composer), "composer.send", NULL));

  /* Another process reads the live database: the backup holds it */
  g_assert_cmpint (run_ctl (f, "backup", backup_path, NULL), ==, 0);
  g_assert_cmpuint (count_messages_in (backup_path, text), ==, 1);

  /* The window uses what the ctl committed */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.show-agents", NULL));
  prs_test_wait_frames (GTK_WIDGET (f->window), 3);
  g_assert_nonnull (prs_test_find_label (GTK_WIDGET (prs_window_get_agents_page (f->window)), "Imported Beside"));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  gtk_init ();
  adw_init ();

  /* The window's templates and style come from the app's resources. */
  {
    g_autoptr(GtkCssProvider) css = gtk_css_provider_new ();

    gtk_css_provider_load_from_resource (css, RESOURCE_PREFIX "/style.css");
    gtk_style_context_add_provider_for_display (gdk_display_get_default (), GTK_STYLE_PROVIDER (css),
                                                GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
  }

#define ADD(path, func) g_test_add (path, Fixture, NULL, fixture_setup, func, fixture_teardown)
  ADD ("/ui/window/seeded-conversations", test_seeded_conversations);
  ADD ("/ui/window/resolve-through-api", test_resolve_through_api);
  ADD ("/ui/window/flood-of-new-conversations", test_flood_of_new_conversations);
  ADD ("/ui/window/context-and-link", test_context_and_link);
  ADD ("/ui/window/kv-grid", test_kv_grid);
  ADD ("/ui/window/tool-card-approve", test_tool_card_approve);
  ADD ("/ui/window/composer-sends", test_composer_sends);
  ADD ("/ui/window/huge-conversation", test_huge_conversation);
  ADD ("/ui/window/stick-to-bottom", test_stick_to_bottom);
  ADD ("/ui/window/storage-full", test_storage_full);
  ADD ("/ui/window/ctl-beside", test_ctl_beside);
#undef ADD

  return g_test_run ();
}
