/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-mcp-window.c: MCP servers seen through the real window under a real
 * X server, against tests/mcp/hostile-server.py: the Tools page grouped by
 * server with each server's state (a thousand tools shown on demand
 * without freezing the window, a server that cannot start saying why), a
 * tool card showing a call's progress live (and an MCP client's call its
 * client cancelled), a 10 MB answer contained while
 * the window keeps drawing, and the MCP Servers page of Preferences: add
 * (with Test), switch off, remove. With PRS_SCREENSHOT_DIR set, each state
 * is captured there. */
#include "config.h"

#include <string.h>

#include "prs-conversation-view.h"
#include "prs-mcp-hub.h"
#include "prs-message-row.h"
#include "prs-preferences-window.h"
#include "prs-run-test-util.h"
#include "prs-runner.h"
#include "prs-service.h"
#include "prs-tool-card.h"
#include "prs-ui-test-util.h"
#include "prs-window.h"

/* The window must never stop drawing for this long (it is "frozen"): a
 * bound far above a frame, so that a busy machine does not fail it */
#define MAX_FRAME_GAP_US (2 * G_USEC_PER_SEC)

typedef struct
{
  char            *data_dir;
  PrsTestProvider *provider;
  PrsService      *service;
  PrsWindow       *window;
  char            *conversation_id;
} Fixture;

typedef struct
{
  gint64 last;
  gint64 max_gap;
  guint  id;
} Ticks;

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
  return G_SOURCE_CONTINUE;
}

static void
ticks_start (Fixture *f,
             Ticks   *ticks)
{
  *ticks = (Ticks) { 0 };
  ticks->id = gtk_widget_add_tick_callback (GTK_WIDGET (f->window), on_tick, ticks, NULL);
}

static void
ticks_check (Fixture    *f,
             Ticks      *ticks,
             const char *what)
{
  gtk_widget_remove_tick_callback (GTK_WIDGET (f->window), ticks->id);
  g_test_message ("%s: the longest gap between frames %.0f ms", what, ticks->max_gap / 1e3);
  g_assert_cmpint (ticks->max_gap, <, MAX_FRAME_GAP_US);
}

static char *
hostile_script (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "..", "mcp", "hostile-server.py", NULL);

  return g_canonicalize_filename (path, NULL);
}

/* A stdio server of hostile-server.py in @mode, added to @store */
static void
seed_server (PrsStore   *store,
             const char *name,
             const char *mode,
             gboolean    shared)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *script = hostile_script ();
  const char *args[] = { script, "--mode", mode, NULL };
  PrsMcpServerRow row = { 0 };

  row.name = (char *) name;
  row.transport = (char *) "stdio";
  row.command = (char *) "python3";
  row.args = (char **) args;
  row.enabled = TRUE;
  row.shared = shared;
  g_assert_true (prs_store_add_mcp_server (store, &row, NULL, &error));
  g_assert_no_error (error);
}

/* @servers: "NAME:MODE" pairs (or "NAME:MODE:shared"), NULL-terminated */
static void
open_window (Fixture            *f,
             const char * const *servers)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsStore) store = NULL;

  f->data_dir = g_dir_make_tmp ("prs-ui-mcp-XXXXXX", &error);
  g_assert_no_error (error);
  store = prs_store_new (f->data_dir, &error);
  g_assert_no_error (error);
  for (guint i = 0; servers != NULL && servers[i] != NULL; i++)
    {
      g_auto(GStrv) pair = g_strsplit (servers[i], ":", 3);

      seed_server (store, pair[0], pair[1], pair[2] != NULL && g_str_equal (pair[2], "shared"));
    }
  g_assert_true (prs_store_resolve_conversation (store, "inbox", &f->conversation_id, NULL, &error));
  g_clear_object (&store);

  f->service = prs_service_new (f->data_dir, prs_test_free_port ());
  g_assert_true (prs_service_start (f->service, &error));
  g_assert_no_error (error);
  f->window = prs_window_new (NULL, f->service);
  g_object_ref_sink (f->window);
  gtk_window_set_default_size (GTK_WINDOW (f->window), 1060, 760);
  gtk_window_present (GTK_WINDOW (f->window));
  prs_test_wait_frames (GTK_WIDGET (f->window), 2);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = g_list_model_get_n_items (toplevels); i > 0; i--)
    {
      g_autoptr(GtkWindow) window = g_list_model_get_item (toplevels, i - 1);

      if (window != GTK_WINDOW (f->window))
        gtk_window_destroy (window);
    }
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
  g_clear_pointer (&f->provider, prs_test_provider_stop);
  prs_test_remove_tree (f->data_dir);
  g_free (f->data_dir);
  g_free (f->conversation_id);
}

static PrsMcpServerItem *
server (Fixture    *f,
        const char *name)
{
  PrsMcpServerItem *item = prs_mcp_hub_find_server (prs_service_get_mcp_hub (f->service), name);

  g_assert_nonnull (item);
  return item;
}

static gboolean
is_connected (gpointer item)
{
  return prs_mcp_server_item_get_state (item) == PRS_MCP_SERVER_CONNECTED;
}

static gboolean
is_restarting (gpointer item)
{
  return prs_mcp_server_item_get_state (item) == PRS_MCP_SERVER_RESTARTING;
}

static gboolean
is_off (gpointer item)
{
  return prs_mcp_server_item_get_state (item) == PRS_MCP_SERVER_OFF;
}

static gboolean
named (GtkWidget *widget,
       gpointer   name)
{
  return g_strcmp0 (gtk_widget_get_name (widget), name) == 0;
}

/* How many widgets named @name are under @root */
static guint
count_named (GtkWidget  *root,
             const char *name)
{
  guint n = named (root, (gpointer) name) ? 1 : 0;

  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL; child = gtk_widget_get_next_sibling (child))
    n += count_named (child, name);
  return n;
}

typedef struct
{
  GtkWidget  *root;
  const char *name;
  guint       count;
} Count;

static gboolean
has_count (gpointer data)
{
  Count *count = data;

  return count_named (count->root, count->name) >= count->count;
}

/* ---- The Tools page ---- */

static void
test_tools_page (Fixture       *f,
                 gconstpointer  data)
{
  const char *servers[] = { "mail:slow-progress", "many:many-tools", "broken:exit-at-start", NULL };
  GtkWidget *page;
  Count count;
  Ticks ticks;

  open_window (f, servers);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.show-tools", NULL));
  g_assert_true (prs_test_wait_until (is_connected, server (f, "mail")));
  g_assert_true (prs_test_wait_until (is_connected, server (f, "many")));
  g_assert_true (prs_test_wait_until (is_restarting, server (f, "broken")));
  prs_test_wait_frames (GTK_WIDGET (f->window), 4);
  page = prs_test_find_named (GTK_WIDGET (f->window), "tools-status");
  page = gtk_widget_get_ancestor (page, GTK_TYPE_SCROLLED_WINDOW);

  /* A group per server, its state, its tools */
  g_assert_nonnull (prs_test_find_label (page, "MCP Server “mail”"));
  g_assert_nonnull (prs_test_find_label (page, "Connected: 2 tools"));
  g_assert_nonnull (prs_test_find_label (page, "mail__echo"));
  g_assert_nonnull (prs_test_find_label (page, "Connected: 1000 tools"));
  /* The one that cannot start says why, and when it tries again */
  g_assert_nonnull (prs_test_find_label (page, "MCP Server “broken”"));
  prs_test_screenshot (GTK_WIDGET (f->window), "mcp-tools-page");

  /* A thousand tools: fifty at first, the rest on demand, the window
   * drawing all along */
  g_assert_cmpuint (count_named (page, "mcp-tool-row"), ==, 52);
  g_assert_nonnull (prs_test_find_label (page, "950 more tools"));
  ticks_start (f, &ticks);
  prs_test_click (prs_test_find_named (page, "mcp-show-all-tools"));
  count = (Count) { page, "mcp-tool-row", 1002 };
  g_assert_true (prs_test_wait_until (has_count, &count));
  prs_test_wait_frames (GTK_WIDGET (f->window), 2);
  ticks_check (f, &ticks, "1,000 tools shown");
}

/* ---- Tool cards ---- */

static PrsRun *
start_run (Fixture    *f,
           const char *tool)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *url = NULL;
  g_autofree char *script = NULL;
  PrsStore *store = prs_service_get_store (f->service);

  script = g_strdup_printf ("{'kind':'openai','turns':["
                            "{'response':{'text':'Looking.','tool_calls':[{'id':'c1','name':'%s',"
                            "'arguments':{'text':'inbox'}}]}},"
                            "{'when':'tool-result','response':{'text':'Done.'}}]}", tool);
  f->provider = prs_test_provider_start (script);
  url = prs_test_provider_base_url (f->provider, "openai");
  g_assert_true (prs_providers_add (prs_service_get_providers (f->service), "openai", "Scripted", url,
                                    "model-a", 0, "sk-test", NULL, &error));
  g_assert_true (prs_store_add_approval_rule (store, tool, NULL, NULL, "approve", NULL, &error));
  prs_window_select_conversation (f->window, f->conversation_id);
  return prs_test_start_inference (prs_service_get_runner (f->service), store, f->conversation_id, NULL,
                                   "Read the inbox.", NULL, NULL);
}

static GtkWidget *
tool_card (Fixture *f)
{
  PrsConversationView *view = prs_window_get_conversation_view (f->window);

  return prs_test_find_widget (GTK_WIDGET (prs_conversation_view_get_list_view (view)), PRS_TYPE_TOOL_CARD,
                               NULL, NULL);
}

static gboolean
card_shows_progress (gpointer data)
{
  GtkWidget *card = tool_card (data);
  GtkWidget *bar = card != NULL ? prs_test_find_widget (card, GTK_TYPE_PROGRESS_BAR, NULL, NULL) : NULL;

  return bar != NULL && gtk_widget_get_mapped (bar) &&
         gtk_progress_bar_get_fraction (GTK_PROGRESS_BAR (bar)) >= 0.2;
}

typedef struct
{
  Fixture    *f;
  const char *status;
} CardStatus;

static gboolean
card_has_status (gpointer data)
{
  CardStatus *query = data;
  GtkWidget *card = tool_card (query->f);

  return card != NULL && g_strcmp0 (prs_tool_card_get_status (PRS_TOOL_CARD (card)), query->status) == 0;
}

/* An MCP client's call its client cancelled while it waited: the card says
 * so, in words */
static void
test_client_cancelled (Fixture       *f,
                       gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsRun) run = NULL;
  g_autoptr(GPtrArray) calls = NULL;
  PrsRunner *runner;
  PrsRunOptions options = { 0 };
  CardStatus proposed = { f, "proposed" }, cancelled = { f, "cancelled" };
  /* Shared: only a shared server's tools are offered to MCP clients */
  const char *servers[] = { "mail:slow-progress:shared", NULL };
  GtkWidget *card;
  GtkWidget *label;

  open_window (f, servers);
  g_assert_true (prs_test_wait_until (is_connected, server (f, "mail")));
  runner = prs_service_get_runner (f->service);
  options.origin = PRS_RUN_ORIGIN_MCP_CLIENT;
  options.conversation_id = f->conversation_id;
  options.temperature = -1;
  options.tool_name = "mail__echo";
  prs_window_select_conversation (f->window, f->conversation_id);
  run = prs_runner_start (runner, &options, FALSE, &error);
  g_assert_no_error (error);
  g_assert_true (prs_test_wait_until (card_has_status, &proposed));

  calls = prs_store_list_tool_calls (prs_service_get_store (f->service), prs_run_get_id (run), &error);
  g_assert_cmpuint (calls->len, ==, 1);
  g_assert_true (prs_runner_withdraw_call (runner, ((PrsToolCallRow *) g_ptr_array_index (calls, 0))->id, &error));
  g_assert_no_error (error);
  g_assert_true (prs_test_wait_until (card_has_status, &cancelled));
  card = tool_card (f);
  g_assert_nonnull (prs_test_find_label (card, "Cancelled"));
  label = prs_test_find_label (card, "The MCP client cancelled this call before anyone approved it.");
  g_assert_nonnull (label);
  /* Withdrawn, not gone wrong: the reason is a note, not a failure's red */
  g_assert_true (gtk_widget_has_css_class (label, "dim-label"));
  g_assert_false (gtk_widget_has_css_class (label, "error"));
  prs_test_screenshot (GTK_WIDGET (f->window), "mcp-client-cancelled");
}

/* Tool cards drawn (mapped) under @root */
static guint
count_cards (GtkWidget *root)
{
  guint n = PRS_IS_TOOL_CARD (root) && gtk_widget_get_mapped (root) ? 1 : 0;

  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL; child = gtk_widget_get_next_sibling (child))
    n += count_cards (child);
  return n;
}

/* Message rows hidden whose list row is no taller than nothing */
static guint
count_empty_rows (GtkWidget *root)
{
  guint n = 0;

  if (PRS_IS_MESSAGE_ROW (root) && !gtk_widget_get_visible (root))
    {
      graphene_rect_t bounds;

      /* Its border box: padding included */
      g_assert_true (gtk_widget_compute_bounds (gtk_widget_get_parent (root), gtk_widget_get_parent (root), &bounds));
      g_assert_cmpfloat (bounds.size.height, ==, 0);
      return 1;
    }
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL; child = gtk_widget_get_next_sibling (child))
    n += count_empty_rows (child);
  return n;
}

static void
test_progress_card (Fixture       *f,
                    gconstpointer  data)
{
  const char *servers[] = { "mail:slow-progress", NULL };
  g_autoptr(PrsRun) run = NULL;
  CardStatus done = { f, "succeeded" };
  GtkWidget *card, *bar;
  const char *text;

  open_window (f, servers);
  g_assert_true (prs_test_wait_until (is_connected, server (f, "mail")));
  run = start_run (f, "mail__echo");
  g_assert_true (prs_test_wait_until (card_shows_progress, f));

  card = tool_card (f);
  bar = prs_test_find_widget (card, GTK_TYPE_PROGRESS_BAR, NULL, NULL);
  text = gtk_progress_bar_get_text (GTK_PROGRESS_BAR (bar));
  /* The server's words; the bar shows how far */
  g_assert_true (g_str_has_prefix (text, "Reading mailbox "));
  g_assert_true (g_str_has_suffix (text, " of 20"));
  g_assert_nonnull (prs_test_find_label (card, "A tool of the MCP server “mail”"));
  g_assert_cmpstr (prs_tool_card_get_status (PRS_TOOL_CARD (card)), ==, "running");
  prs_test_screenshot (GTK_WIDGET (f->window), "mcp-progress-card");

  /* Done: the result, and no progress left */
  g_assert_true (prs_test_wait_until (card_has_status, &done));
  bar = prs_test_find_widget (tool_card (f), GTK_TYPE_PROGRESS_BAR, NULL, NULL);
  g_assert_false (gtk_widget_get_visible (bar));

  /* One call, one card: its answer (a tool-result message) is on the card,
   * and the answer's own row shows nothing and takes no height */
  g_assert_true (prs_test_wait_until ((gboolean (*) (gpointer)) prs_run_is_finished, run));
  prs_test_wait_frames (GTK_WIDGET (f->window), 4);
  g_assert_nonnull (prs_test_find_label (tool_card (f), "Result"));
  g_assert_cmpuint (count_cards (GTK_WIDGET (prs_conversation_view_get_list_view (
                      prs_window_get_conversation_view (f->window)))), ==, 1);
  g_assert_cmpuint (count_empty_rows (GTK_WIDGET (prs_conversation_view_get_list_view (
                      prs_window_get_conversation_view (f->window)))), ==, 1);
  prs_test_screenshot (GTK_WIDGET (f->window), "mcp-one-card");

  /* Opened at the answer (a search hit of its text): the call's card */
  {
    g_autoptr(JsonArray) messages = prs_store_list_messages (prs_service_get_store (f->service),
                                                             f->conversation_id, 0, 100, NULL);
    const char *call_id = NULL, *result_id = NULL;

    for (guint i = 0; messages != NULL && i < json_array_get_length (messages); i++)
      {
        JsonObject *message = json_array_get_object_element (messages, i);
        const char *kind = json_object_get_string_member (message, "kind");

        if (g_str_equal (kind, "tool-call"))
          call_id = json_object_get_string_member (message, "id");
        else if (g_str_equal (kind, "tool-result"))
          result_id = json_object_get_string_member (message, "id");
      }
    g_assert_nonnull (result_id);
    prs_window_open_conversation_at (f->window, f->conversation_id, result_id);
    g_assert_cmpstr (prs_conversation_view_get_highlighted (prs_window_get_conversation_view (f->window)), ==,
                     call_id);
  }
}

static gboolean
says_too_large (GtkWidget *label,
                gpointer   data)
{
  /* The size is written with a no-break space */
  return g_str_has_prefix (gtk_label_get_text (GTK_LABEL (label)),
                           "MCP server “huge”: The server sent a message larger than 4.0") &&
         g_str_has_suffix (gtk_label_get_text (GTK_LABEL (label)), "MiB, the most Prosponsive accepts.");
}

static gboolean
shows_huge_error (gpointer data)
{
  Fixture *f = data;

  return prs_test_find_widget (GTK_WIDGET (f->window), GTK_TYPE_LABEL, says_too_large, NULL) != NULL;
}

/* A 10 MB answer: a clear failure on the card, the window drawing while
 * it arrives, and the run goes on */
static void
test_huge_answer (Fixture       *f,
                  gconstpointer  data)
{
  const char *servers[] = { "huge:huge", NULL };
  g_autoptr(PrsRun) run = NULL;
  CardStatus failed = { f, "failed" };
  Ticks ticks;

  open_window (f, servers);
  g_assert_true (prs_test_wait_until (is_connected, server (f, "huge")));
  ticks_start (f, &ticks);
  run = start_run (f, "huge__echo");
  g_assert_true (prs_test_wait_until (card_has_status, &failed));
  g_assert_true (prs_test_wait_until ((gboolean (*) (gpointer)) prs_run_is_finished, run));
  ticks_check (f, &ticks, "a 10 MB answer");
  g_assert_true (prs_test_wait_until (shows_huge_error, f));
  prs_test_screenshot (GTK_WIDGET (f->window), "mcp-huge-answer");
  g_assert_cmpstr (prs_run_get_status (run), ==, "completed");
}

/* ---- Preferences ---- */

static PrsPreferencesWindow *
open_preferences (Fixture *f)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.preferences-page", "s", "mcp"));
  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWindow) window = g_list_model_get_item (toplevels, i);

      if (PRS_IS_PREFERENCES_WINDOW (window))
        {
          prs_test_wait_frames (GTK_WIDGET (window), 4);
          return PRS_PREFERENCES_WINDOW (window);
        }
    }
  g_assert_not_reached ();
}

static gboolean
test_row_says_connected (gpointer row)
{
  const char *subtitle = adw_action_row_get_subtitle (ADW_ACTION_ROW (row));

  return subtitle != NULL && g_str_has_prefix (subtitle, "Connected to hostile-ok 0.1");
}

/* The odd-info server's name, shown as it is written (not as markup) */
static gboolean
test_row_says_odd (gpointer row)
{
  const char *subtitle = adw_action_row_get_subtitle (ADW_ACTION_ROW (row));

  return subtitle != NULL && strstr (subtitle, "server & <b>co</b>") != NULL && strstr (subtitle, "(MCP revision") != NULL;
}

/* The editor scrolled to its end, where the Test row is */
static void
screenshot_test_row (PrsPreferencesWindow *prefs,
                     GtkWidget            *editor,
                     const char           *name)
{
  GtkScrolledWindow *scrolled = GTK_SCROLLED_WINDOW (gtk_widget_get_ancestor (editor, GTK_TYPE_SCROLLED_WINDOW));
  GtkAdjustment *adjustment = gtk_scrolled_window_get_vadjustment (scrolled);

  gtk_adjustment_set_value (adjustment, gtk_adjustment_get_upper (adjustment));
  prs_test_screenshot (GTK_WIDGET (prefs), name);
}

/* The Preferences rows name the hub's servers, in the hub's order. The
 * page rebuilds them from the main loop after the hub's items-changed
 * (prs-preferences-mcp.c), so a wait on the hub alone (a server
 * connected) may end while the page still shows its old rows. */
static gboolean
rows_follow_hub (gpointer data)
{
  Fixture *f = ((gpointer *) data)[0];
  GtkWidget *prefs = ((gpointer *) data)[1];
  GListModel *servers = prs_mcp_hub_get_servers (prs_service_get_mcp_hub (f->service));
  GtkWidget *row = prs_test_find_named (prefs, "mcp-server-row");
  guint n = g_list_model_get_n_items (servers);

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(PrsMcpServerItem) item = g_list_model_get_item (servers, i);

      while (row != NULL && !named (row, (gpointer) "mcp-server-row"))
        row = gtk_widget_get_next_sibling (row);
      if (row == NULL || g_strcmp0 (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row)),
                                    prs_mcp_server_item_get_row (item)->name) != 0)
        return FALSE;
      row = gtk_widget_get_next_sibling (row);
    }
  for (; row != NULL; row = gtk_widget_get_next_sibling (row))
    if (named (row, (gpointer) "mcp-server-row"))
      return FALSE;
  return TRUE;
}

static void
test_preferences (Fixture       *f,
                  gconstpointer  data)
{
  const char *servers[] = { "mail:slow-progress", NULL };
  g_autofree char *script = hostile_script ();
  PrsPreferencesWindow *prefs;
  GtkWidget *editor, *test_row, *row, *sw, *mode_arg = NULL;
  GListModel *toplevels = gtk_window_get_toplevels ();
  const char *args[] = { script, "--mode", "odd-info" };

  open_window (f, servers);
  g_assert_true (prs_test_wait_until (is_connected, server (f, "mail")));
  prefs = open_preferences (f);
  g_assert_cmpstr (adw_preferences_window_get_visible_page_name (ADW_PREFERENCES_WINDOW (prefs)), ==, "mcp");
  row = prs_test_find_named (GTK_WIDGET (prefs), "mcp-server-row");
  g_assert_cmpstr (adw_expander_row_get_subtitle (ADW_EXPANDER_ROW (row)), ==, "Connected: 2 tools");
  adw_expander_row_set_expanded (ADW_EXPANDER_ROW (row), TRUE);
  prs_test_screenshot (GTK_WIDGET (prefs), "mcp-preferences");

  /* Add: a program with its arguments, tried before it is saved */
  prs_test_click (prs_test_find_named (GTK_WIDGET (prefs), "mcp-add"));
  prs_test_wait_frames (GTK_WIDGET (prefs), 4);
  editor = prs_test_find_named (GTK_WIDGET (prefs), "mcp-name");
  editor = gtk_widget_get_ancestor (editor, ADW_TYPE_BIN);
  gtk_editable_set_text (GTK_EDITABLE (prs_test_find_named (editor, "mcp-name")), "files");
  gtk_editable_set_text (GTK_EDITABLE (prs_test_find_named (editor, "mcp-command")), "python3");
  for (guint i = 0; i < G_N_ELEMENTS (args); i++)
    prs_test_click (prs_test_find_named (editor, "mcp-add-argument"));
  for (guint i = 0; i < G_N_ELEMENTS (args); i++)
    {
      GtkWidget *arg = prs_test_find_named (editor, "mcp-argument");

      for (guint j = 0; j < i; j++)
        {
          do
            arg = gtk_widget_get_next_sibling (arg);
          while (!named (arg, (gpointer) "mcp-argument"));
        }
      gtk_editable_set_text (GTK_EDITABLE (arg), args[i]);
      mode_arg = arg;
    }
  prs_test_click (prs_test_find_named (editor, "mcp-add-variable"));
  /* A server whose name has "&" and tags: what it says is text, never
   * markup (which would fail to parse, or style the row) */
  prs_test_click (prs_test_find_named (editor, "mcp-test-button"));
  test_row = prs_test_find_named (editor, "mcp-test");
  g_assert_true (prs_test_wait_until (test_row_says_odd, test_row));
  /* Its version is no text, so it has none: no gap where it would be */
  g_assert_nonnull (strstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (test_row)), "<b>co</b> (MCP revision"));
  screenshot_test_row (prefs, editor, "mcp-server-editor-no-version");
  g_assert_false (adw_preferences_row_get_use_markup (ADW_PREFERENCES_ROW (test_row)));
  prs_test_wait_frames (GTK_WIDGET (prefs), 2);
  gtk_editable_set_text (GTK_EDITABLE (mode_arg), "ok");
  prs_test_click (prs_test_find_named (editor, "mcp-test-button"));
  g_assert_true (prs_test_wait_until (test_row_says_connected, test_row));
  prs_test_screenshot (GTK_WIDGET (prefs), "mcp-server-editor");
  screenshot_test_row (prefs, editor, "mcp-server-editor-test");
  prs_test_click (prs_test_find_named (GTK_WIDGET (prefs), "mcp-save"));
  g_assert_true (prs_test_wait_until (is_connected, server (f, "files")));
  g_assert_cmpuint (prs_mcp_server_item_get_n_tools (server (f, "files")), ==, 2);
  /* The page shows the saved server among the others, by name */
  g_assert_true (prs_test_wait_until (rows_follow_hub, (gpointer[]) { f, prefs }));

  /* Off, from its row */
  row = prs_test_find_named (GTK_WIDGET (prefs), "mcp-server-row");
  g_assert_cmpstr (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row)), ==, "files");
  sw = prs_test_find_widget (row, GTK_TYPE_SWITCH, NULL, NULL);
  gtk_switch_set_active (GTK_SWITCH (sw), FALSE);
  g_assert_true (prs_test_wait_until (is_off, server (f, "files")));
  g_assert_cmpstr (adw_expander_row_get_subtitle (ADW_EXPANDER_ROW (prs_test_find_named (GTK_WIDGET (prefs),
                                                                                      "mcp-server-row"))),
                   ==, "Off");

  /* Removed, once confirmed */
  row = prs_test_find_named (GTK_WIDGET (prefs), "mcp-server-row");
  prs_test_click (prs_test_find_named (row, "mcp-server-remove"));
  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWindow) window = g_list_model_get_item (toplevels, i);

      if (ADW_IS_MESSAGE_DIALOG (window))
        adw_message_dialog_response (ADW_MESSAGE_DIALOG (window), "remove");
    }
  g_assert_null (prs_mcp_hub_find_server (prs_service_get_mcp_hub (f->service), "files"));
  g_assert_nonnull (prs_mcp_hub_find_server (prs_service_get_mcp_hub (f->service), "mail"));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  gtk_init ();
  adw_init ();
  {
    /* The application's style sheet: a tool's answer takes no height with it */
    g_autoptr(GtkCssProvider) css = gtk_css_provider_new ();

    gtk_css_provider_load_from_resource (css, RESOURCE_PREFIX "/style.css");
    gtk_style_context_add_provider_for_display (gdk_display_get_default (), GTK_STYLE_PROVIDER (css),
                                                GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
  }

#define ADD(path, func) \
  g_test_add ("/ui/mcp/" path, Fixture, NULL, NULL, func, fixture_teardown)

  ADD ("tools-page", test_tools_page);
  ADD ("progress-card", test_progress_card);
  ADD ("client-cancelled", test_client_cancelled);
  ADD ("huge-answer", test_huge_answer);
  ADD ("preferences", test_preferences);

#undef ADD
  return g_test_run ();
}
