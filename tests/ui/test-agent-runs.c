/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-agent-runs.c: agent runs seen through the real window under a real
 * X server, driven end to end by tests/scripted-provider.py and a scripted
 * n8n webhook: a tool card approved through its action, and by keyboard
 * (Tab from the header through the reply's link to Approve, Return), an agent
 * built in the editor binding its tool's parameters from the Request
 * Context, Retry on an inbound message whose run failed
 * (docs/api.md), Send then Stop in the composer while the answer streams,
 * a Stop the database refused said in a toast (docs/storage.md),
 * and the agent a conversation remembers (docs/conversations.md). Waits are main-loop conditions, never sleeps. */
#include "config.h"

#include <string.h>

#include "prs-agent-editor.h"
#include "prs-agent-seed.h"
#include "prs-agents-page.h"
#include "prs-context-field-list.h"
#include "prs-conversation-view.h"
#include "prs-field-picker.h"
#include "prs-guidance-builder.h"
#include "prs-json.h"
#include "prs-message-row.h"
#include "prs-run-test-util.h"
#include "prs-runner.h"
#include "prs-service.h"
#include "prs-tool-card.h"
#include "prs-ui-test-util.h"
#include "prs-window.h"

#define KEY "sk-test-Zq7xW"

typedef struct
{
  char            *data_dir;
  PrsTestHook     *hook;
  PrsTestProvider *provider;
  PrsService      *service;
  PrsWindow       *window;
  char            *conversation_id;
  guint            approvals_needed;
} Fixture;

static void
on_approval_needed (PrsRunner  *runner,
                    const char *conversation_id,
                    const char *message_id,
                    const char *tool_name,
                    Fixture    *f)
{
  f->approvals_needed++;
}

/* Seeds the data folder (before the service opens it): the tools given by
 * @data ("weather": get_weather and an agent allowed to use it; "mail": the
 * agent editor's seed), a conversation, and the n8n URL of the webhook. */
static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsStore) store = NULL;
  g_autofree char *url = NULL;

  f->data_dir = g_dir_make_tmp ("prs-ui-runs-XXXXXX", &error);
  g_assert_no_error (error);
  f->hook = prs_test_hook_start (TRUE);

  store = prs_store_new (f->data_dir, &error);
  g_assert_no_error (error);
  if (g_strcmp0 (data, "mail") == 0)
    {
      g_autoptr(PrsAgent) agent = prs_agent_new ("mail-triage", "Mail Triage");

      prs_agent_seed_tools (store);
      f->conversation_id = prs_agent_seed_inbox (store);
      prs_agent_seed_agents (store);
      g_assert_true (prs_store_save_agent (store, agent, NULL, &error));
      g_assert_no_error (error);
    }
  else
    {
      prs_agent_seed_weather_agent (store);
      g_assert_true (prs_store_resolve_conversation (store, "inbox", &f->conversation_id, NULL, &error));
      g_assert_no_error (error);
    }
  url = prs_test_hook_url (f->hook);
  g_assert_true (prs_store_set_setting (store, PRS_SETTING_N8N_URL, url, &error));
  g_assert_no_error (error);
  g_clear_object (&store);

  f->service = prs_service_new (f->data_dir, prs_test_free_port ());
  g_assert_true (prs_service_start (f->service, &error));
  g_assert_no_error (error);
  g_signal_connect (prs_service_get_runner (f->service), "approval-needed",
                    G_CALLBACK (on_approval_needed), f);

  f->window = prs_window_new (NULL, f->service);
  g_object_ref_sink (f->window);
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
      g_signal_handlers_disconnect_by_data (prs_service_get_runner (f->service), f);
      prs_service_stop (f->service);
      g_clear_object (&f->service);
    }
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_clear_pointer (&f->provider, prs_test_provider_stop);
  g_clear_pointer (&f->hook, prs_test_hook_stop);
  prs_test_remove_tree (f->data_dir);
  g_free (f->data_dir);
  g_free (f->conversation_id);
}

/* The scripted provider (openai) as the only configured provider. */
static void
configure_provider (Fixture    *f,
                    const char *script)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *url = NULL;

  f->provider = prs_test_provider_start (script);
  url = prs_test_provider_base_url (f->provider, "openai");
  g_assert_true (prs_providers_add (prs_service_get_providers (f->service), "openai", "Scripted", url,
                                    "model-a", 0, KEY, NULL, &error));
  g_assert_no_error (error);
}

static PrsStore *
store_of (Fixture *f)
{
  return prs_service_get_store (f->service);
}

static const char *
message_status (Fixture    *f,
                const char *message_id,
                JsonNode  **keep)
{
  *keep = prs_store_get_message (store_of (f), message_id, NULL);
  g_assert_nonnull (*keep);
  return json_object_get_string_member_with_default (json_node_get_object (*keep), "status", NULL);
}

/* ---- rows of the conversation view ---- */

typedef struct
{
  Fixture    *f;
  const char *message_id;
  const char *kind;
  const char *content;
  const char *status;
} RowQuery;

static gboolean
row_matches (GtkWidget *widget,
             gpointer   data)
{
  RowQuery *query = data;
  PrsMessage *message = prs_message_row_get_message (PRS_MESSAGE_ROW (widget));

  if (message == NULL)
    return FALSE;
  if (query->message_id != NULL && g_strcmp0 (prs_message_get_id (message), query->message_id) != 0)
    return FALSE;
  if (query->kind != NULL && !prs_message_is_kind (message, query->kind))
    return FALSE;
  if (query->content != NULL && g_strcmp0 (prs_message_get_content (message), query->content) != 0)
    return FALSE;
  if (query->status != NULL && g_strcmp0 (prs_message_get_status (message), query->status) != 0)
    return FALSE;
  return TRUE;
}

static PrsMessageRow *
find_row (RowQuery *query)
{
  PrsConversationView *view = prs_window_get_conversation_view (query->f->window);

  return (PrsMessageRow *) prs_test_find_widget (GTK_WIDGET (prs_conversation_view_get_list_view (view)),
                                                 PRS_TYPE_MESSAGE_ROW, row_matches, query);
}

static gboolean
row_is_shown (gpointer data)
{
  PrsMessageRow *row = find_row (data);

  return row != NULL && gtk_widget_get_mapped (GTK_WIDGET (row));
}

/* Waits until a mapped row matches; returns it. */
static PrsMessageRow *
wait_row (RowQuery *query)
{
  g_assert_true (prs_test_wait_until (row_is_shown, query));
  return find_row (query);
}

static void
open_conversation (Fixture *f)
{
  prs_window_select_conversation (f->window, f->conversation_id);
  prs_test_wait_frames (GTK_WIDGET (f->window), 4);
}

static gboolean
card_has_status (gpointer data)
{
  RowQuery *query = data;
  PrsMessageRow *row = find_row (query);
  GtkWidget *card = row != NULL ? prs_message_row_get_tool_card (row) : NULL;

  return card != NULL && gtk_widget_get_mapped (card) &&
         g_strcmp0 (prs_tool_card_get_status (PRS_TOOL_CARD (card)), query->status) == 0;
}

static gboolean
runner_is_idle (gpointer data)
{
  return prs_runner_is_idle (data);
}

/* Runs the weather agent on "Weather in Paris?" against the provider
 * @script, in the open conversation, until its tool card shows the
 * proposal; @call then finds the card's row. */
static PrsRun *
start_until_proposed (Fixture    *f,
                      const char *script,
                      char      **trigger_id,
                      RowQuery   *call)
{
  PrsRun *run;

  configure_provider (f, script);
  open_conversation (f);
  run = prs_test_start_inference (prs_service_get_runner (f->service), store_of (f), f->conversation_id,
                                  "weather-agent", "Weather in Paris?", NULL, trigger_id);
  call->f = f;
  call->kind = PRS_MESSAGE_KIND_TOOL_CALL;
  call->status = "proposed";
  g_assert_true (prs_test_wait_until (card_has_status, call));
  return run;
}

/* ---- approving a tool card through its action runs the call ---- */

static void
test_approve_tool_card (Fixture       *f,
                        gconstpointer  data)
{
  PrsRunner *runner = prs_service_get_runner (f->service);
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsRun) run = NULL;
  g_autofree char *trigger_id = NULL;
  g_autoptr(JsonNode) trigger = NULL;
  g_autoptr(JsonArray) messages = NULL;
  const char *call_message_id = NULL;
  PrsMessageRow *row;
  GtkWidget *card;
  RowQuery call = { 0 }, answer = { 0 };

  /* The card shows the proposal, waiting for approval */
  run = start_until_proposed (f,
                              "{'kind':'openai','turns':["
                              "{'response':{'text':'Let me look.','tool_calls':["
                              "{'id':'call_1','name':'get_weather','arguments':{'city':'Paris'}}]}},"
                              "{'response':{'chunks':['It is ','sunny ','in Paris.']}}]}",
                              &trigger_id, &call);
  row = find_row (&call);
  call_message_id = prs_message_get_id (prs_message_row_get_message (row));
  call.message_id = call_message_id = g_strdup (call_message_id);
  card = prs_message_row_get_tool_card (row);
  g_assert_nonnull (prs_test_find_label (card, "get_weather"));
  g_assert_nonnull (prs_test_find_label (card, "Waiting for Approval"));
  g_assert_cmpstr (prs_run_get_status (run), ==, PRS_RUN_AWAITING_APPROVAL);
  g_assert_cmpuint (f->approvals_needed, ==, 1);
  g_assert_cmpuint (f->hook->bodies->len, ==, 0);

  /* Approve on the real card: the window routes it to the runner */
  g_assert_true (gtk_widget_activate_action (card, "tool-card.approve", NULL));

  call.status = "succeeded";
  g_assert_true (prs_test_wait_until (card_has_status, &call));
  row = find_row (&call);
  g_assert_nonnull (prs_test_find_label (prs_message_row_get_tool_card (row), "Succeeded"));

  /* The webhook received the call */
  g_assert_cmpuint (f->hook->bodies->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (f->hook->paths, 0), ==, "/webhook/weather");
  g_assert_nonnull (strstr (g_ptr_array_index (f->hook->bodies, 0), "\"city\":\"Paris\""));

  /* The final answer is in the list */
  answer.f = f;
  answer.kind = PRS_MESSAGE_KIND_ASSISTANT;
  answer.content = "It is sunny in Paris.";
  answer.status = "completed";
  wait_row (&answer);
  g_assert_true (prs_test_wait_until (runner_is_idle, runner));
  g_assert_cmpstr (prs_run_get_status (run), ==, PRS_RUN_COMPLETED);
  g_assert_cmpstr (message_status (f, trigger_id, &trigger), ==, "completed");
  g_assert_cmpuint (f->approvals_needed, ==, 1);

  messages = prs_store_list_messages (store_of (f), f->conversation_id, 0, 100, NULL);
  g_assert_cmpuint (json_array_get_length (messages), ==, 5);
  g_free ((char *) call_message_id);
}

/* ---- the keyboard reaches the card: Tab from the header, Return ---- */

static gboolean
has_action (GtkWidget *widget,
            gpointer   data)
{
  return g_strcmp0 (gtk_actionable_get_action_name (GTK_ACTIONABLE (widget)), data) == 0;
}

static gboolean
has_tooltip (GtkWidget *widget,
             gpointer   data)
{
  return g_strcmp0 (gtk_widget_get_tooltip_text (widget), data) == 0;
}

/* TRUE when @widget is wholly inside the message list's scrolled window */
static gboolean
on_screen (Fixture   *f,
           GtkWidget *widget)
{
  PrsConversationView *view = prs_window_get_conversation_view (f->window);
  GtkWidget *list = GTK_WIDGET (prs_conversation_view_get_list_view (view));
  GtkWidget *scroller = gtk_widget_get_parent (list);
  graphene_rect_t bounds;

  g_assert_true (gtk_widget_compute_bounds (widget, scroller, &bounds));
  return bounds.origin.y >= 0 && bounds.origin.y + bounds.size.height <= gtk_widget_get_height (scroller);
}

/* Down from the call's card reaches the reply below it, Up comes back: the
 * tool's answer between them has no row to show (its result is on the
 * card) and is no stop for the arrows */
static void
arrows_pass_the_hidden_answer (Fixture  *f,
                               RowQuery *call,
                               RowQuery *answer)
{
  GtkWidget *call_row = GTK_WIDGET (find_row (call));
  GtkWidget *answer_row = GTK_WIDGET (find_row (answer));
  GtkWidget *focus;

  g_assert_nonnull (call_row);
  g_assert_nonnull (answer_row);
  g_assert_true (gtk_widget_child_focus (call_row, GTK_DIR_TAB_FORWARD));
  prs_test_press_keys (GTK_WIDGET (f->window), "Down");
  focus = gtk_root_get_focus (GTK_ROOT (f->window));
  g_assert_nonnull (focus);
  g_assert_true (gtk_widget_is_ancestor (focus, answer_row));
  g_assert_true (on_screen (f, focus));
  prs_test_screenshot (GTK_WIDGET (f->window), "down-to-the-reply");
  prs_test_press_keys (GTK_WIDGET (f->window), "Up");
  focus = gtk_root_get_focus (GTK_ROOT (f->window));
  g_assert_nonnull (focus);
  g_assert_true (gtk_widget_is_ancestor (focus, call_row));
}

static void
test_approve_by_keyboard (Fixture       *f,
                          gconstpointer  data)
{
  PrsRunner *runner = prs_service_get_runner (f->service);
  g_autoptr(PrsRun) run = NULL;
  g_autofree char *trigger_id = NULL;
  GtkWidget *list = GTK_WIDGET (prs_conversation_view_get_list_view (prs_window_get_conversation_view (f->window)));
  GtkWidget *header_menu, *approve, *focus = NULL;
  g_autofree char *call_id = NULL;
  RowQuery call = { 0 }, answer = { 0 };
  GtkWidget *link_text = NULL;
  guint presses;

  run = start_until_proposed (f,
                              "{'kind':'openai','turns':["
                              "{'response':{'text':'Let me look at [the forecast](https://example.org/paris).',"
                              "'tool_calls':[{'id':'call_1','name':'get_weather','arguments':{'city':'Paris'}}]}},"
                              "{'response':{'text':'It is sunny in Paris.'}}]}",
                              &trigger_id, &call);
  prs_test_wait_frames (GTK_WIDGET (f->window), 4);
  approve = prs_test_find_widget (prs_message_row_get_tool_card (find_row (&call)), GTK_TYPE_BUTTON,
                                  has_action, (gpointer) "tool-card.approve");
  g_assert_nonnull (approve);
  call_id = g_strdup (prs_message_get_id (prs_message_row_get_message (find_row (&call))));

  /* From the header's menu button, Tab walks the messages' controls in
   * order — each on screen, the focus drawn — to Approve */
  header_menu = prs_test_find_widget (GTK_WIDGET (f->window), GTK_TYPE_MENU_BUTTON,
                                      has_tooltip, (gpointer) "Conversation Menu");
  g_assert_true (gtk_widget_grab_focus (header_menu));
  for (presses = 0; presses < 20 && focus != approve; presses++)
    {
      prs_test_press_keys (GTK_WIDGET (f->window), "Tab");
      focus = gtk_root_get_focus (GTK_ROOT (f->window));
      g_assert_nonnull (focus);
      g_assert_true (gtk_widget_get_mapped (focus));
      if (gtk_widget_is_ancestor (focus, list))
        g_assert_true (on_screen (f, focus));
      /* the reply's link is a stop: on the link, not its text selected whole */
      if (GTK_IS_LABEL (focus))
        {
          g_assert_nonnull (strstr (gtk_label_get_label (GTK_LABEL (focus)), "the forecast"));
          g_assert_false (gtk_label_get_selection_bounds (GTK_LABEL (focus), NULL, NULL));
          g_assert_cmpstr (gtk_label_get_current_uri (GTK_LABEL (focus)), ==, "https://example.org/paris");
          prs_test_screenshot (GTK_WIDGET (f->window), "link-by-keyboard");
          link_text = focus;
        }
    }
  g_assert_nonnull (link_text);
  g_assert_true (focus == approve);
  /* The text is not focusable once Tab has left it: a click on text
   * leaves the focus where it is */
  g_assert_false (gtk_widget_get_focusable (link_text));
  g_assert_true (on_screen (f, approve));
  g_assert_true (gtk_window_get_focus_visible (GTK_WINDOW (f->window)));
  prs_test_screenshot (GTK_WIDGET (f->window), "approve-by-keyboard");

  /* Shift+Tab goes back the same way, to the link, and Tab forward again */
  for (presses = 0; presses < 6 && focus != link_text; presses++)
    {
      prs_test_press_keys (GTK_WIDGET (f->window), "<Shift>Tab");
      focus = gtk_root_get_focus (GTK_ROOT (f->window));
    }
  g_assert_true (focus == link_text);
  g_assert_cmpstr (gtk_label_get_current_uri (GTK_LABEL (link_text)), ==, "https://example.org/paris");
  for (guint i = 0; i < presses; i++)
    prs_test_press_keys (GTK_WIDGET (f->window), "Tab");
  g_assert_true (gtk_root_get_focus (GTK_ROOT (f->window)) == approve);

  /* Return on it approves: the run goes on to the answer */
  prs_test_press_keys (GTK_WIDGET (f->window), "Return");
  call.message_id = call_id;
  call.status = "succeeded";
  g_assert_true (prs_test_wait_until (card_has_status, &call));
  answer.f = f;
  answer.kind = PRS_MESSAGE_KIND_ASSISTANT;
  answer.content = "It is sunny in Paris.";
  wait_row (&answer);
  g_assert_true (prs_test_wait_until (runner_is_idle, runner));
  g_assert_cmpstr (prs_run_get_status (run), ==, PRS_RUN_COMPLETED);
  arrows_pass_the_hidden_answer (f, &call, &answer);
}

/* ---- an agent built in the editor binds from the Request Context ---- */

static PrsAgentEditor *
open_editor (Fixture    *f,
             const char *agent_id)
{
  PrsAgentsPage *page = prs_window_get_agents_page (f->window);
  GtkWidget *row = prs_agents_page_get_row (page, agent_id);
  PrsAgentEditor *editor;

  g_assert_nonnull (row);
  g_assert_true (gtk_widget_activate (row));
  editor = prs_agents_page_edit (page, agent_id);
  g_assert_nonnull (editor);
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (editor)));
  prs_test_wait_frames (GTK_WIDGET (editor), 3);
  return editor;
}

static gboolean
widget_is_visible (gpointer data)
{
  return gtk_widget_get_visible (data);
}

/* As in test-agent-editor.c: the source drop-down, the picker's search
 * entry and its list item. */
static void
map_through_picker (PrsAgentEditor *editor,
                    const char     *param,
                    const char     *search)
{
  PrsGuidanceBuilder *builder = prs_agent_editor_get_guidance_builder (editor);
  GtkMenuButton *button = prs_guidance_builder_get_field_button (builder, param);
  PrsFieldPicker *picker = PRS_FIELD_PICKER (gtk_menu_button_get_popover (button));
  GtkListView *list = prs_field_picker_get_list_view (picker);
  GListModel *shown = G_LIST_MODEL (gtk_list_view_get_model (list));
  g_autoptr(GObject) first = NULL;

  gtk_drop_down_set_selected (prs_guidance_builder_get_source_drop_down (builder, param),
                              PRS_GUIDANCE_SOURCE_CONTEXT);
  g_assert_true (prs_test_wait_until (widget_is_visible, picker));
  prs_test_wait_frames (GTK_WIDGET (editor), 2);
  gtk_editable_set_text (prs_field_picker_get_search_entry (picker), search);
  prs_test_wait_frames (GTK_WIDGET (editor), 2);
  g_assert_cmpuint (g_list_model_get_n_items (shown), >=, 1);
  first = g_list_model_get_item (shown, 0);
  g_assert_cmpstr (prs_context_field_item_get_path (PRS_CONTEXT_FIELD_ITEM (first)), ==, search);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (list), "list.activate-item", "u", 0));
  prs_test_wait_frames (GTK_WIDGET (editor), 2);
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (picker)));
  g_assert_cmpstr (gtk_menu_button_get_label (button), ==, search);
}

static void
on_destroyed (gpointer  data,
              GObject  *where_the_object_was)
{
  *(gboolean *) data = TRUE;
}

static void
test_editor_agent_binds_context (Fixture       *f,
                                 gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) answer = NULL;
  g_autoptr(PrsToolCallRow) call = NULL;
  g_autoptr(JsonNode) message = NULL;
  g_autofree char *body = NULL;
  PrsAgentEditor *editor;
  PrsGuidanceBuilder *builder;
  JsonArray *calls;
  JsonObject *provenance;
  const char *hook_body;
  gboolean destroyed = FALSE;
  guint status;
  RowQuery card_query = { 0 };
  PrsMessageRow *row;

  /* The agent, built in the editor */
  gtk_widget_activate_action (GTK_WIDGET (f->window), "win.show-agents", NULL);
  prs_test_wait_frames (GTK_WIDGET (f->window), 2);
  editor = open_editor (f, "mail-triage");
  builder = prs_agent_editor_get_guidance_builder (editor);
  g_assert_true (prs_guidance_builder_select_tool (builder, "email_move_to_folder"));
  prs_test_wait_frames (GTK_WIDGET (editor), 2);
  map_through_picker (editor, "uid", "uid");
  map_through_picker (editor, "mailbox", "mailbox");
  gtk_drop_down_set_selected (prs_guidance_builder_get_source_drop_down (builder, "destination"),
                              PRS_GUIDANCE_SOURCE_CONSTANT);
  gtk_editable_set_text (prs_guidance_builder_get_constant_entry (builder, "destination"), "Archive");
  prs_test_wait_frames (GTK_WIDGET (editor), 2);
  g_assert_nonnull (strstr (prs_guidance_builder_get_preview_text (builder),
                            "- **uid**: Use the \"uid\" value from the Request Context."));
  g_assert_true (prs_agent_editor_get_modified (editor));
  g_object_weak_ref (G_OBJECT (editor), on_destroyed, &destroyed);
  gtk_widget_activate_action (GTK_WIDGET (editor), "editor.save", NULL);
  g_assert_true (prs_test_wait_for (&destroyed));

  /* An auto-approval rule for the tool; the scripted model proposes other values */
  g_assert_true (prs_store_add_approval_rule (store_of (f), "email_move_to_folder", "mail-triage", NULL,
                                              "approve", NULL, &error));
  g_assert_no_error (error);
  configure_provider (f,
                      "{'kind':'openai','turns':["
                      "{'response':{'tool_calls':[{'id':'call_1','name':'email_move_to_folder','arguments':"
                      "{'uid':'1','mailbox':'Wrong','destination':'Trash'}}]}},"
                      "{'response':{'text':'Filed it in Archive.'}}]}");

  /* The inbound message, through the real API, with uid and mailbox in its context */
  body = g_strdup_printf ("{\"prompt\":\"File the new mail.\",\"conversationId\":\"%s\","
                          "\"agentId\":\"mail-triage\","
                          "\"context\":{\"uid\":\"9001\",\"mailbox\":\"Projects\",\"subject\":\"Q4\"}}",
                          f->conversation_id);
  status = prs_test_api_post (prs_service_get_secrets (f->service), f->data_dir,
                              prs_service_get_port (f->service), "/api/ai/agent-inference", body, &answer);
  g_assert_cmpuint (status, ==, 200);
  g_assert_nonnull (answer);
  g_assert_cmpstr (json_object_get_string_member (answer, "status"), ==, "completed");
  g_assert_cmpstr (json_object_get_string_member (answer, "content"), ==, "Filed it in Archive.");
  calls = json_object_get_array_member (answer, "toolCalls");
  g_assert_cmpuint (json_array_get_length (calls), ==, 1);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (calls, 0), "status"),
                   ==, "succeeded");

  /* Without asking, with the context's values bound */
  g_assert_cmpuint (f->approvals_needed, ==, 0);
  g_assert_cmpuint (f->hook->bodies->len, ==, 1);
  g_assert_true (g_str_has_suffix (g_ptr_array_index (f->hook->paths, 0), "/email_move_to_folder"));
  hook_body = g_ptr_array_index (f->hook->bodies, 0);
  g_assert_nonnull (strstr (hook_body, "\"uid\":\"9001\""));
  g_assert_nonnull (strstr (hook_body, "\"mailbox\":\"Projects\""));
  g_assert_nonnull (strstr (hook_body, "\"destination\":\"Archive\""));
  g_assert_null (strstr (hook_body, "Wrong"));
  g_assert_null (strstr (hook_body, "Trash"));

  /* The tool-call message records where each value came from */
  call = prs_store_lookup_tool_call (store_of (f),
                                     json_object_get_string_member (json_array_get_object_element (calls, 0), "id"),
                                     NULL);
  g_assert_nonnull (call);
  message = prs_store_get_message (store_of (f), call->message_id, NULL);
  provenance = json_object_get_object_member (json_object_get_object_member (json_node_get_object (message), "extra"),
                                              "provenance");
  g_assert_nonnull (provenance);
  g_assert_cmpstr (json_object_get_string_member (provenance, "uid"), ==, "context:uid");
  g_assert_cmpstr (json_object_get_string_member (provenance, "mailbox"), ==, "context:mailbox");

  /* …and its card says so */
  open_conversation (f);
  card_query.f = f;
  card_query.message_id = call->message_id;
  card_query.status = "succeeded";
  g_assert_true (prs_test_wait_until (card_has_status, &card_query));
  row = find_row (&card_query);
  g_assert_nonnull (prs_test_find_label (prs_message_row_get_tool_card (row), "from Request Context “uid”"));
}

/* ---- docs/api.md: a failed inbound message is retryable from the UI ---- */

static gboolean
retry_shown (gpointer data)
{
  PrsMessageRow *row = find_row (data);
  GtkWidget *button = row != NULL ? prs_message_row_get_retry_button (row) : NULL;

  return button != NULL && gtk_widget_get_mapped (button);
}

static void
test_retry_inbound (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(JsonObject) answer = NULL;
  g_autoptr(JsonNode) inbound = NULL;
  g_autofree char *body = NULL;
  g_autofree char *inbound_id = NULL;
  PrsMessageRow *row;
  GtkWidget *button;
  guint status;
  RowQuery query = { 0 }, reply = { 0 };
  const char *label;

  open_conversation (f);

  /* No provider: 503, the inbound message is kept, marked failed */
  body = g_strdup_printf ("{\"prompt\":\"Weather in Paris?\",\"conversationId\":\"%s\","
                          "\"agentId\":\"weather-agent\",\"context\":{\"city\":\"Paris\"}}",
                          f->conversation_id);
  status = prs_test_api_post (prs_service_get_secrets (f->service), f->data_dir,
                              prs_service_get_port (f->service), "/api/ai/agent-inference", body, &answer);
  g_assert_cmpuint (status, ==, 503);
  g_assert_nonnull (answer);
  inbound_id = g_strdup (json_object_get_string_member (answer, "messageId"));
  g_assert_nonnull (inbound_id);
  g_assert_cmpstr (message_status (f, inbound_id, &inbound), ==, "failed");
  g_clear_pointer (&inbound, json_node_unref);

  /* Its row offers Retry */
  query.f = f;
  query.message_id = inbound_id;
  g_assert_true (prs_test_wait_until (retry_shown, &query));
  row = find_row (&query);
  button = prs_message_row_get_retry_button (row);
  g_assert_cmpstr (gtk_button_get_label (GTK_BUTTON (button)), ==, "_Retry");
  g_assert_cmpstr (gtk_widget_get_tooltip_text (button), ==, "Ask the agent again");
  label = gtk_actionable_get_action_name (GTK_ACTIONABLE (button));
  g_assert_cmpstr (label, ==, "message-row.retry");
  g_assert_true (gtk_widget_is_sensitive (button));

  /* A provider now; Retry answers the same request */
  configure_provider (f,
                      "{'kind':'openai','turns':[{'response':{'text':'Sunny on the second try.'}}]}");
  g_assert_true (gtk_widget_activate (button));

  reply.f = f;
  reply.kind = PRS_MESSAGE_KIND_ASSISTANT;
  reply.content = "Sunny on the second try.";
  reply.status = "completed";
  wait_row (&reply);
  g_assert_true (prs_test_wait_until (runner_is_idle, prs_service_get_runner (f->service)));

  g_assert_cmpstr (message_status (f, inbound_id, &inbound), ==, "completed");
  g_clear_pointer (&inbound, json_node_unref);
  /* The row updated in place: no Retry any more */
  query.status = "completed";
  row = wait_row (&query);
  g_assert_null (prs_message_row_get_retry_button (row));

  /* The same agent and context as stored */
  {
    g_autoptr(JsonArray) requests = prs_test_provider_requests (f->provider);
    g_autofree char *sent = NULL;

    g_assert_cmpuint (json_array_get_length (requests), ==, 1);
    sent = prs_json_to_string (json_object_get_member (json_array_get_object_element (requests, 0), "body"), FALSE);
    g_assert_nonnull (strstr (sent, "Weather in Paris?"));
    g_assert_nonnull (strstr (sent, "get_weather"));
  }
  {
    g_autoptr(PrsRunRow) run = prs_store_lookup_run_by_trigger (store_of (f), inbound_id, NULL);

    g_assert_nonnull (run);
    g_assert_cmpstr (run->status, ==, PRS_RUN_COMPLETED);
    g_assert_cmpstr (run->agent_id, ==, "weather-agent");
    g_assert_cmpstr (run->conversation_id, ==, f->conversation_id);
    g_assert_nonnull (strstr (run->context_json, "\"city\":\"Paris\""));
  }
}

/* ---- Send → run → Stop from the composer ---- */

typedef struct
{
  Fixture    *f;
  const char *status;   /* the assistant message's, or NULL: any */
  const char *prefix;   /* its text starts so */
} AnswerQuery;

/* The conversation's assistant message, when it has one */
static JsonObject *
assistant_message (Fixture *f)
{
  g_autoptr(JsonArray) messages = prs_store_list_messages (store_of (f), f->conversation_id, 0, 100, NULL);

  for (guint i = 0; messages != NULL && i < json_array_get_length (messages); i++)
    {
      JsonObject *message = json_array_get_object_element (messages, i);

      if (g_strcmp0 (json_object_get_string_member_with_default (message, "kind", ""), "assistant") == 0)
        return json_object_ref (message);
    }
  return NULL;
}

static gboolean
answer_is (gpointer data)
{
  AnswerQuery *query = data;
  g_autoptr(JsonObject) message = assistant_message (query->f);

  return message != NULL &&
         (query->status == NULL ||
          g_strcmp0 (json_object_get_string_member_with_default (message, "status", ""), query->status) == 0) &&
         g_str_has_prefix (json_object_get_string_member_with_default (message, "content", ""), query->prefix);
}

static gboolean
is_send_stop (GtkWidget *widget,
              gpointer   data)
{
  return gtk_stack_get_child_by_name (GTK_STACK (widget), "stop") != NULL;
}

/* "send" or "stop": the button the composer shows */
static const char *
composer_button (PrsComposer *composer)
{
  GtkWidget *stack = prs_test_find_widget (GTK_WIDGET (composer), GTK_TYPE_STACK, is_send_stop, NULL);

  g_assert_nonnull (stack);
  return gtk_stack_get_visible_child_name (GTK_STACK (stack));
}

static gboolean
composer_shows_stop (gpointer data)
{
  return g_strcmp0 (composer_button (data), "stop") == 0;
}

static void
set_flag (gpointer data)
{
  *(gboolean *) data = TRUE;
}

static void
test_send_stop (Fixture       *f,
                gconstpointer  data)
{
  PrsConversationView *view;
  PrsComposer *composer;
  g_autoptr(JsonObject) answer = NULL;
  AnswerQuery streaming = { f, "streaming", "One " };
  RowQuery user = { f, NULL, "user", "Count to ten, slowly.", NULL };
  gboolean later = FALSE;

  configure_provider (f,
                      "{'kind':'openai','turns':[{'response':{'chunks':"
                      "['One ','two ','three ','four ','five ','six ','seven ','eight ','nine ','ten.'],"
                      "'delay':0.5}}]}");
  open_conversation (f);
  view = prs_window_get_conversation_view (f->window);
  composer = prs_conversation_view_get_composer (view);
  g_assert_cmpstr (composer_button (composer), ==, "send");

  /* Send: the message is shown, the run streams, Send became Stop */
  prs_composer_set_text (composer, "Count to ten, slowly.");
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (composer), "composer.send", NULL));
  wait_row (&user);
  g_assert_true (prs_test_wait_until (answer_is, &streaming));
  g_assert_true (prs_test_wait_until (composer_shows_stop, composer));
  g_assert_false (prs_runner_is_idle (prs_service_get_runner (f->service)));

  /* Stop: the run ends at once, what came stays, nothing more comes */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (composer), "composer.stop", NULL));
  g_assert_true (prs_test_wait_until (runner_is_idle, prs_service_get_runner (f->service)));
  g_assert_cmpstr (composer_button (composer), ==, "send");
  answer = assistant_message (f);
  g_assert_cmpstr (json_object_get_string_member (answer, "status"), !=, "completed");
  g_assert_cmpstr (json_object_get_string_member (answer, "status"), !=, "streaming");
  g_assert_true (g_str_has_prefix (json_object_get_string_member (answer, "content"), "One "));
  g_assert_null (strstr (json_object_get_string_member (answer, "content"), "ten."));
  /* Two more chunks' time later (the main loop running), still nothing more */
  g_timeout_add_once (1100, set_flag, &later);
  g_assert_true (prs_test_wait_for (&later));
  g_clear_pointer (&answer, json_object_unref);
  answer = assistant_message (f);
  g_assert_null (strstr (json_object_get_string_member (answer, "content"), "ten."));
}

/* ---- a Stop the database refused ---- */

#define NOT_STOPPED "Could not stop the run: the database is busy. Try again."
/* The busy timeout (5 s) and a margin: Stop, pressed at once, waits for
 * the database that long and is refused */
#define HOLD_MS 8000

static gboolean
is_stop_button (GtkWidget *widget,
                gpointer   data)
{
  return g_strcmp0 (gtk_actionable_get_action_name (GTK_ACTIONABLE (widget)), "composer.stop") == 0;
}

static gboolean
toast_shown (gpointer data)
{
  return prs_test_find_label (data, NOT_STOPPED) != NULL;
}

/* The run was not stopped: it waits for its slot as stored */
static void
assert_still_waits (Fixture *f,
                    PrsRun  *run)
{
  g_autoptr(PrsRunRow) row = prs_store_lookup_run (store_of (f), prs_run_get_id (run), NULL);

  g_assert_cmpstr (prs_run_get_status (run), ==, "running");
  g_assert_nonnull (row);
  g_assert_cmpstr (row->status, ==, "running");
}

/* Four runs work elsewhere, so the one Send starts waits for a slot; Stop,
 * pressed while another program holds the database past the busy
 * timeout, cannot store the run's end: the run waits on as stored, the
 * composer still offers Stop, and a toast says why. Pressed again once the
 * database is free, Stop stops it (docs/storage.md) */
static void
test_stop_refused (Fixture       *f,
                   gconstpointer  data)
{
  PrsRunner *runner = prs_service_get_runner (f->service);
  g_autofree char *db_path = g_build_filename (f->data_dir, "prosponsive.db", NULL);
  PrsComposer *composer;
  GtkWidget *stop;
  GThread *holder;
  g_autoptr(PrsRun) run = NULL;
  guint reserved = 0;

  configure_provider (f, "{'kind':'openai','turns':[{'response':{'text':'Hello.'}}]}");
  open_conversation (f);
  composer = prs_conversation_view_get_composer (prs_window_get_conversation_view (f->window));
  while (prs_runner_try_reserve (runner))
    reserved++;
  prs_composer_set_text (composer, "Hello?");
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (composer), "composer.send", NULL));
  g_assert_true (prs_test_wait_until (composer_shows_stop, composer));
  run = g_object_ref (prs_runner_get_conversation_run (runner, f->conversation_id));
  prs_test_wait_frames (GTK_WIDGET (f->window), 2);
  stop = prs_test_find_widget (GTK_WIDGET (composer), GTK_TYPE_BUTTON, is_stop_button, NULL);
  g_assert_nonnull (stop);

  holder = prs_test_sql_hold (db_path, HOLD_MS);
  prs_test_click_pointer (stop, 1);
  g_assert_true (prs_test_wait_until (toast_shown, f->window));
  g_thread_join (holder);
  assert_still_waits (f, run);
  g_assert_true (prs_runner_lookup_run (runner, prs_run_get_id (run)) == run);
  g_assert_cmpstr (composer_button (composer), ==, "stop");
  prs_test_screenshot (GTK_WIDGET (f->window), "stop-refused");

  prs_test_click_pointer (stop, 1);
  g_assert_true (prs_test_wait_until (runner_is_idle, runner));
  g_assert_cmpstr (composer_button (composer), ==, "send");
  g_assert_cmpstr (prs_run_get_status (run), ==, "cancelled");
  while (reserved-- > 0)
    prs_runner_release_reservation (runner);
}

/* ---- a message the database refused is not answered ---- */

#define NOT_SAVED_HOLD_MS 6500

/* The conversation holds an earlier question; Send, while another program
 * holds the database past the busy timeout, cannot store the new one: the
 * text goes back to the composer, and no run starts — not one that would
 * answer the earlier question once the database is free, nor one that
 * says there is nothing to answer */
static void
test_send_refused (Fixture       *f,
                   gconstpointer  data)
{
  PrsRunner *runner = prs_service_get_runner (f->service);
  g_autofree char *db_path = g_build_filename (f->data_dir, "prosponsive.db", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) answer = NULL;
  g_autofree char *text = NULL;
  PrsMessageInsert earlier = { 0 };
  PrsComposer *composer;
  GThread *holder;
  gboolean later = FALSE;

  configure_provider (f, "{'kind':'openai','turns':[{'response':{'text':'Hello.'}}]}");
  earlier.conversation_id = f->conversation_id;
  earlier.kind = "user";
  earlier.content = "An earlier question";
  g_assert_true (prs_service_add_message (f->service, &earlier, NULL, &error));
  g_assert_no_error (error);
  open_conversation (f);
  composer = prs_conversation_view_get_composer (prs_window_get_conversation_view (f->window));

  holder = prs_test_sql_hold (db_path, NOT_SAVED_HOLD_MS);
  prs_composer_set_text (composer, "Hello?");
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (composer), "composer.send", NULL));
  g_thread_join (holder);

  /* The run a wrong Send would start had its second and more to show */
  g_timeout_add_once (1500, set_flag, &later);
  g_assert_true (prs_test_wait_for (&later));
  g_assert_true (prs_runner_is_idle (runner));
  g_assert_null (prs_runner_get_conversation_run (runner, f->conversation_id));
  answer = assistant_message (f);
  g_assert_null (answer);
  text = prs_composer_dup_text (composer);
  g_assert_cmpstr (text, ==, "Hello?");
  g_assert_cmpstr (composer_button (composer), ==, "send");
}

/* ---- a conversation remembers its agent ---- */

static gboolean
composer_agent_is (gpointer data)
{
  Fixture *f = data;
  PrsComposer *composer = prs_conversation_view_get_composer (prs_window_get_conversation_view (f->window));

  return g_strcmp0 (prs_composer_get_agent (composer), g_object_get_data (G_OBJECT (f->window), "expected")) == 0;
}

static gboolean
is_menu_button (GtkWidget *widget,
                gpointer   data)
{
  return g_strcmp0 (gtk_widget_get_tooltip_text (widget), data) == 0;
}

/* The Agent submenu of the conversation's menu, opened as a person would
 * (it reads the agents then): one item per agent */
static GMenuModel *
agent_submenu (Fixture *f)
{
  GtkWidget *button = prs_test_find_widget (GTK_WIDGET (f->window), GTK_TYPE_MENU_BUTTON,
                                            is_menu_button, (gpointer) "Conversation Menu");
  GMenuModel *menu;

  g_assert_nonnull (button);
  gtk_menu_button_popup (GTK_MENU_BUTTON (button));
  prs_test_wait_frames (GTK_WIDGET (f->window), 2);
  gtk_menu_button_popdown (GTK_MENU_BUTTON (button));
  menu = gtk_menu_button_get_menu_model (GTK_MENU_BUTTON (button));
  for (int i = 0; i < g_menu_model_get_n_items (menu); i++)
    {
      g_autoptr(GMenuModel) section = g_menu_model_get_item_link (menu, i, G_MENU_LINK_SECTION);

      for (int j = 0; section != NULL && j < g_menu_model_get_n_items (section); j++)
        {
          GMenuModel *submenu = g_menu_model_get_item_link (section, j, G_MENU_LINK_SUBMENU);

          if (submenu != NULL)
            return submenu;
        }
    }
  return NULL;
}

static const char *
stored_agent (Fixture    *f,
              const char *conversation_id,
              JsonObject **keep)
{
  *keep = prs_store_get_conversation (store_of (f), conversation_id, NULL);
  g_assert_nonnull (*keep);
  return prs_json_object_get_string (*keep, "defaultAgent");
}

/* The first inbound run gives the conversation its agent, the composer
 * follows; the conversation menu's Agent submenu lists every agent with
 * the current one checked and changes it; a later run does not undo it */
static void
test_conversation_agent (Fixture       *f,
                         gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsAgent) mail = prs_agent_new ("mail-agent", "Mail_Agent");
  g_autofree char *other = NULL;
  g_autoptr(JsonObject) resolved = NULL;
  g_autofree char *body = NULL;
  g_autoptr(GMenuModel) submenu = NULL;
  g_autoptr(JsonObject) row = NULL;
  g_autoptr(GVariant) state = NULL;
  g_autofree char *label = NULL;
  g_autofree char *target = NULL;
  GActionGroup *group;

  g_free (mail->system_prompt);
  mail->system_prompt = g_strdup ("You file mail.");
  g_assert_true (prs_store_save_agent (store_of (f), mail, NULL, &error));
  g_assert_no_error (error);
  open_conversation (f);

  /* No agent yet: the composer offers the first one */
  g_assert_null (stored_agent (f, f->conversation_id, &row));
  g_object_set_data (G_OBJECT (f->window), "expected", (gpointer) "prosponsive");
  g_assert_true (prs_test_wait_until (composer_agent_is, f));

  /* The first inbound run names one (no provider: the run fails, the agent stays) */
  body = g_strdup_printf ("{\"prompt\":\"New mail\",\"conversationId\":\"%s\",\"agentId\":\"mail-agent\"}",
                          f->conversation_id);
  g_assert_cmpuint (prs_test_api_post (prs_service_get_secrets (f->service), f->data_dir,
                                       prs_service_get_port (f->service), "/api/ai/agent-inference", body, NULL),
                    ==, 503);
  g_object_set_data (G_OBJECT (f->window), "expected", (gpointer) "mail-agent");
  g_assert_true (prs_test_wait_until (composer_agent_is, f));

  /* The conversation's menu lists every agent, the current one checked */
  submenu = agent_submenu (f);
  g_assert_nonnull (submenu);
  g_assert_cmpint (g_menu_model_get_n_items (submenu), ==, 3);
  g_assert_true (g_menu_model_get_item_attribute (submenu, 0, G_MENU_ATTRIBUTE_TARGET, "s", &target));
  g_assert_cmpstr (target, ==, "prosponsive");
  /* An underscore in a name is shown, not taken as a mnemonic */
  for (int i = 0; i < 3; i++)
    {
      g_clear_pointer (&label, g_free);
      g_assert_true (g_menu_model_get_item_attribute (submenu, i, G_MENU_ATTRIBUTE_LABEL, "s", &label));
      if (g_str_has_prefix (label, "Mail"))
        break;
    }
  g_assert_cmpstr (label, ==, "Mail__Agent");
  group = prs_agent_choice_get_action_group (prs_window_get_agent_choice (f->window));
  state = g_action_group_get_action_state (group, "set");
  g_assert_cmpstr (g_variant_get_string (state, NULL), ==, "mail-agent");
  g_clear_pointer (&state, g_variant_unref);

  /* Choosing another: stored, checked, and the composer follows */
  g_action_group_activate_action (group, "set", g_variant_new_string ("weather-agent"));
  g_object_set_data (G_OBJECT (f->window), "expected", (gpointer) "weather-agent");
  g_assert_true (prs_test_wait_until (composer_agent_is, f));
  g_clear_pointer (&row, json_object_unref);
  g_assert_cmpstr (stored_agent (f, f->conversation_id, &row), ==, "weather-agent");
  state = g_action_group_get_action_state (group, "set");
  g_assert_cmpstr (g_variant_get_string (state, NULL), ==, "weather-agent");
  g_clear_pointer (&state, g_variant_unref);

  /* A later inbound run with another agent does not undo the person's choice */
  g_assert_cmpuint (prs_test_api_post (prs_service_get_secrets (f->service), f->data_dir,
                                       prs_service_get_port (f->service), "/api/ai/agent-inference", body, NULL),
                    ==, 503);
  g_clear_pointer (&row, json_object_unref);
  g_assert_cmpstr (stored_agent (f, f->conversation_id, &row), ==, "weather-agent");

  /* Another conversation, without an agent: the default agent checked, the
   * one its composer offers */
  g_assert_cmpuint (prs_test_api_post (prs_service_get_secrets (f->service), f->data_dir,
                                       prs_service_get_port (f->service), "/api/conversations/resolve",
                                       "{\"slug\":\"Notes\"}", &resolved), ==, 200);
  other = g_strdup (json_object_get_string_member (resolved, "conversationId"));
  prs_window_select_conversation (f->window, other);
  prs_test_wait_frames (GTK_WIDGET (f->window), 4);
  state = g_action_group_get_action_state (group, "set");
  g_assert_cmpstr (g_variant_get_string (state, NULL), ==, PRS_AGENT_DEFAULT_ID);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  gtk_init ();
  adw_init ();

#define ADD(path, func, data) g_test_add (path, Fixture, data, fixture_setup, func, fixture_teardown)
  ADD ("/ui/agent-runs/approve-tool-card", test_approve_tool_card, "weather");
  ADD ("/ui/agent-runs/approve-by-keyboard", test_approve_by_keyboard, "weather");
  ADD ("/ui/agent-runs/editor-agent-binds-context", test_editor_agent_binds_context, "mail");
  ADD ("/ui/agent-runs/retry-inbound", test_retry_inbound, "weather");
  ADD ("/ui/agent-runs/send-stop", test_send_stop, "weather");
  ADD ("/ui/agent-runs/stop-refused", test_stop_refused, "weather");
  ADD ("/ui/agent-runs/send-refused", test_send_refused, "weather");
  ADD ("/ui/agent-runs/conversation-agent", test_conversation_agent, "weather");
#undef ADD

  return g_test_run ();
}
