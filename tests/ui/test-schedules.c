/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-schedules.c: the Schedules page and the schedule editor with real
 * windows under a real X server: the page lists what the store holds (and
 * what another program adds), the editor's preview shows the next five
 * runs as the scheduler reckons them and follows every edit, saving stores,
 * the switch turns a schedule off, Delete asks first, Run Now makes a run
 * that the scripted model answers, and a conversation's menu opens the
 * editor on that conversation. */
#include "config.h"

#include <string.h>

#include "prs-schedule-editor.h"
#include "prs-schedules-page.h"
#include "prs-service.h"
#include "prs-ui-test-util.h"
#include "prs-window.h"

typedef struct
{
  char            *data_dir;
  PrsTestProvider *provider;
  PrsService      *service;
  PrsWindow       *window;
  char            *briefing;    /* the id of "Briefing" */
} Fixture;

static PrsScheduleRow *
row_for (const char *name,
         const char *slug,
         const char *recurrence)
{
  PrsScheduleRow *row = g_new0 (PrsScheduleRow, 1);

  row->name = g_strdup (name);
  row->conversation_slug = g_strdup (slug);
  row->agent_id = g_strdup ("prosponsive");
  row->prompt = g_strdup ("What is on today?");
  row->recurrence_json = g_strdup (recurrence);
  row->enabled = TRUE;
  row->missed = g_strdup ("run");
  row->base_at = g_get_real_time () / G_USEC_PER_SEC;
  return row;
}

/* Two schedules and the scripted model, then the window on the Schedules page */
static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsStore) store = NULL;
  g_autoptr(PrsScheduleRow) briefing = row_for ("Briefing", "Morning",
                                                "{\"kind\":\"daily\",\"time\":\"07:30\",\"days\":[\"mon\",\"tue\",\"wed\",\"thu\",\"fri\"]}");
  g_autoptr(PrsScheduleRow) report = row_for ("Report", "Reports", "{\"kind\":\"monthly\",\"day\":31,\"time\":\"09:00\"}");
  g_autofree char *url = NULL;

  f->data_dir = g_dir_make_tmp ("prs-ui-schedules-XXXXXX", &error);
  g_assert_no_error (error);
  f->provider = prs_test_provider_start ("{'kind': 'openai', 'repeat_last': true, "
                                         "'turns': [{'response': {'text': 'Three meetings today.'}}]}");
  url = prs_test_provider_base_url (f->provider, "openai");

  store = prs_store_new (f->data_dir, &error);
  g_assert_no_error (error);
  g_assert_true (prs_store_add_schedule (store, briefing, &f->briefing, &error));
  g_assert_true (prs_store_add_schedule (store, report, NULL, &error));
  g_assert_no_error (error);
  g_clear_object (&store);

  f->service = prs_service_new (f->data_dir, prs_test_free_port ());
  g_assert_true (prs_service_start (f->service, &error));
  g_assert_no_error (error);
  prs_providers_add (prs_service_get_providers (f->service), "openai", "Scripted", url, "model-a", 0,
                     "sk-test", NULL, &error);
  g_assert_no_error (error);

  f->window = prs_window_new (NULL, f->service);
  g_object_ref_sink (f->window);
  gtk_window_present (GTK_WINDOW (f->window));
  prs_test_wait_frames (GTK_WIDGET (f->window), 2);
  gtk_widget_activate_action (GTK_WIDGET (f->window), "win.show-schedules", NULL);
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
  gtk_window_destroy (GTK_WINDOW (f->window));
  g_clear_object (&f->window);
  prs_service_stop (f->service);
  g_clear_object (&f->service);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_clear_pointer (&f->provider, prs_test_provider_stop);
  prs_test_remove_tree (f->data_dir);
  g_free (f->data_dir);
  g_free (f->briefing);
}

static PrsSchedulesPage *
page (Fixture *f)
{
  return prs_window_get_schedules_page (f->window);
}

static PrsStore *
store (Fixture *f)
{
  return prs_service_get_store (f->service);
}

static AdwMessageDialog *
find_message_dialog (void)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWindow) window = g_list_model_get_item (toplevels, i);

      if (ADW_IS_MESSAGE_DIALOG (window) && gtk_widget_get_visible (GTK_WIDGET (window)))
        return ADW_MESSAGE_DIALOG (window);
    }
  return NULL;
}

static gboolean
is_labelled (GtkWidget *widget,
             gpointer   data)
{
  return g_strcmp0 (gtk_widget_get_tooltip_text (widget), data) == 0;
}

static void
test_page_lists (Fixture       *f,
                 gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsStore) other = NULL;
  g_autoptr(PrsScheduleRow) added = row_for ("Added elsewhere", "Inbox", "{\"kind\":\"every\",\"minutes\":90}");
  g_autofree char *added_id = NULL;
  GtkWidget *row = prs_schedules_page_get_row (page (f), f->briefing);
  const char *subtitle;

  g_assert_nonnull (row);
  g_assert_cmpstr (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row)), ==, "Briefing");
  subtitle = adw_action_row_get_subtitle (ADW_ACTION_ROW (row));
  g_assert_true (g_str_has_prefix (subtitle, "Weekdays at 07:30\nNext: "));
  g_assert_nonnull (strstr (subtitle, ", 07:30 "));
  g_assert_nonnull (strstr (subtitle, "\nIn “Morning”, by Prosponsive"));
  /* Its buttons say what they do */
  g_assert_nonnull (prs_test_find_widget (row, GTK_TYPE_BUTTON, is_labelled, (gpointer) "Run Now"));
  g_assert_nonnull (prs_test_find_widget (row, GTK_TYPE_BUTTON, is_labelled, (gpointer) "Delete"));
  g_assert_true (gtk_switch_get_active (g_object_get_data (G_OBJECT (row), "switch")));

  /* prosponsive-ctl adds one: the page shows it without being asked */
  other = prs_store_new (f->data_dir, &error);
  g_assert_true (prs_store_add_schedule (other, added, &added_id, &error));
  g_assert_no_error (error);
  prs_schedule_announce_change (other);
  for (guint i = 0; i < 100 && prs_schedules_page_get_row (page (f), added_id) == NULL; i++)
    prs_test_wait_frames (GTK_WIDGET (f->window), 2);
  g_assert_nonnull (prs_schedules_page_get_row (page (f), added_id));

  /* The switch turns it off: stored, and the row says so */
  gtk_switch_set_active (g_object_get_data (G_OBJECT (prs_schedules_page_get_row (page (f), f->briefing)), "switch"),
                         FALSE);
  {
    g_autoptr(PrsScheduleRow) stored = prs_store_lookup_schedule (store (f), f->briefing, NULL);

    g_assert_false (stored->enabled);
  }
  prs_test_wait_frames (GTK_WIDGET (f->window), 2);
  row = prs_schedules_page_get_row (page (f), f->briefing);
  g_assert_true (g_str_has_prefix (adw_action_row_get_subtitle (ADW_ACTION_ROW (row)),
                                   "Weekdays at 07:30\nOff: it runs only with Run Now\n"));
}

static gboolean
preview_has (PrsScheduleEditor *editor,
             guint              n)
{
  g_auto(GStrv) preview = prs_schedule_editor_dup_preview (editor);

  return g_strv_length (preview) == n;
}

static void
test_editor_preview (Fixture       *f,
                     gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  PrsScheduleEditor *editor = prs_schedules_page_edit (page (f), NULL, NULL, NULL);
  g_auto(GStrv) preview = NULL;
  g_autoptr(GPtrArray) rows = NULL;

  g_assert_nonnull (editor);
  prs_test_wait_frames (GTK_WIDGET (editor), 2);
  gtk_editable_set_text (prs_schedule_editor_get_name_entry (editor), "Standup notes");
  gtk_editable_set_text (prs_schedule_editor_get_conversation_entry (editor), "Standups");
  gtk_text_buffer_set_text (prs_schedule_editor_get_prompt_buffer (editor), "Collect yesterday's notes.", -1);

  /* Daily at 09:15 on Monday, Wednesday, Friday: five runs, each one */
  adw_combo_row_set_selected (prs_schedule_editor_get_kind_row (editor), PRS_RECURRENCE_DAILY);
  gtk_editable_set_text (prs_schedule_editor_get_time_entry (editor), "09:15");
  for (guint d = 0; d < 7; d++)
    gtk_toggle_button_set_active (prs_schedule_editor_get_day_button (editor, d), d == 0 || d == 2 || d == 4);
  preview = prs_schedule_editor_dup_preview (editor);
  g_assert_cmpuint (g_strv_length (preview), ==, 5);
  for (guint i = 0; i < 5; i++)
    {
      g_assert_nonnull (strstr (preview[i], ", 09:15 "));
      g_assert_true (g_str_has_prefix (preview[i], "Mon ") || g_str_has_prefix (preview[i], "Wed ") ||
                     g_str_has_prefix (preview[i], "Fri "));
    }
  g_assert_null (prs_schedule_editor_get_problem (editor));

  /* Each edit shows at once: a bad time empties it and says why */
  gtk_editable_set_text (prs_schedule_editor_get_time_entry (editor), "9:75");
  g_assert_true (preview_has (editor, 0));
  g_assert_nonnull (strstr (prs_schedule_editor_get_problem (editor), "is not a time of day"));
  gtk_editable_set_text (prs_schedule_editor_get_time_entry (editor), "09:15");
  /* Once: one run */
  adw_combo_row_set_selected (prs_schedule_editor_get_kind_row (editor), PRS_RECURRENCE_ONCE);
  gtk_editable_set_text (prs_schedule_editor_get_at_entry (editor), "2030-01-07 09:00");
  g_clear_pointer (&preview, g_strfreev);
  preview = prs_schedule_editor_dup_preview (editor);
  g_assert_cmpuint (g_strv_length (preview), ==, 1);
  g_assert_true (g_str_has_prefix (preview[0], "Mon 7 Jan 2030, 09:00 "));
  /* Every 45 minutes: five */
  adw_combo_row_set_selected (prs_schedule_editor_get_kind_row (editor), PRS_RECURRENCE_EVERY);
  gtk_spin_button_set_value (prs_schedule_editor_get_every_spin (editor), 45);
  g_assert_true (preview_has (editor, 5));

  /* An invalid Request Context cannot be saved */
  gtk_text_buffer_set_text (prs_schedule_editor_get_context_buffer (editor), "{\"team\": ops}", -1);
  g_assert_nonnull (strstr (prs_schedule_editor_get_problem (editor), "not valid JSON"));
  gtk_text_buffer_set_text (prs_schedule_editor_get_context_buffer (editor), "{\"team\": \"ops\"}", -1);
  g_assert_null (prs_schedule_editor_get_problem (editor));

  g_assert_true (prs_schedule_editor_save (editor, &error));
  g_assert_no_error (error);
  rows = prs_store_list_schedules (store (f), NULL);
  g_assert_cmpuint (rows->len, ==, 3);
  prs_test_wait_frames (GTK_WIDGET (f->window), 2);
  {
    g_autoptr(PrsScheduleRow) saved = prs_store_lookup_schedule (store (f), "Standup notes", NULL);

    g_assert_cmpstr (saved->recurrence_json, ==, "{\"kind\":\"every\",\"minutes\":45}");
    g_assert_cmpstr (saved->context_json, ==, "{\"team\":\"ops\"}");
    g_assert_cmpstr (saved->conversation_slug, ==, "Standups");
    g_assert_nonnull (prs_schedules_page_get_row (page (f), saved->id));
  }
}

static gboolean
has_answer (gpointer data)
{
  Fixture *f = data;
  g_autofree char *conversation = NULL;
  g_autoptr(JsonArray) messages = NULL;

  if (!prs_store_lookup_conversation_slug (store (f), "Morning", &conversation, NULL) || conversation == NULL)
    return FALSE;
  messages = prs_store_list_messages (store (f), conversation, 0, 100, NULL);
  for (guint i = 0; messages != NULL && i < json_array_get_length (messages); i++)
    if (g_strcmp0 (json_object_get_string_member (json_array_get_object_element (messages, i), "kind"), "assistant") == 0)
      return TRUE;
  return FALSE;
}

static void
test_run_now (Fixture       *f,
              gconstpointer  data)
{
  g_autofree char *conversation = NULL;

  /* The Run Now button's action */
  gtk_widget_activate_action (GTK_WIDGET (page (f)), "schedules.run", "s", f->briefing);
  g_assert_true (prs_test_wait_until (has_answer, f));

  /* The conversation shows the prompt as coming from the schedule */
  g_assert_true (prs_store_lookup_conversation_slug (store (f), "Morning", &conversation, NULL));
  prs_window_select_conversation (f->window, conversation);
  prs_test_wait_frames (GTK_WIDGET (f->window), 4);
  g_assert_nonnull (prs_test_find_label (GTK_WIDGET (f->window), "Schedule “Briefing”"));
  g_assert_nonnull (prs_test_find_label (GTK_WIDGET (f->window), "What is on today?"));

  /* And its menu schedules another prompt there */
  gtk_widget_activate_action (GTK_WIDGET (f->window), "win.schedule-here", NULL);
  {
    PrsScheduleEditor *editor = prs_schedules_page_edit (page (f), NULL, NULL, NULL);

    g_assert_nonnull (editor);
    g_assert_cmpstr (gtk_editable_get_text (prs_schedule_editor_get_conversation_entry (editor)), ==, "Morning");
    g_assert_true (prs_schedule_editor_get_modified (editor) == FALSE);
  }
}

static gboolean
is_save_button (GtkWidget *widget,
                gpointer   data)
{
  return g_strcmp0 (gtk_actionable_get_action_name (GTK_ACTIONABLE (widget)), "editor.save") == 0;
}

/* Save is offered once something changed; a schedule whose agent is gone
 * says so where the agent is chosen, and choosing another one fixes it */
static void
test_editor_save_needs_change (Fixture       *f,
                               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsScheduleRow) orphan = row_for ("Old digest", "Digests", "{\"kind\":\"every\",\"minutes\":60}");
  g_autofree char *orphan_id = NULL;
  PrsScheduleEditor *editor = prs_schedules_page_edit (page (f), f->briefing, NULL, NULL);
  GtkWidget *save = prs_test_find_widget (GTK_WIDGET (editor), GTK_TYPE_BUTTON, is_save_button, NULL);
  const char *gone = "The agent “digest-writer” no longer exists. Choose another agent.";

  g_assert_nonnull (save);
  prs_test_wait_frames (GTK_WIDGET (editor), 2);
  g_assert_null (prs_schedule_editor_get_problem (editor));
  g_assert_false (gtk_widget_is_sensitive (save));
  gtk_editable_set_text (prs_schedule_editor_get_name_entry (editor), "Renamed briefing");
  g_assert_true (gtk_widget_is_sensitive (save));
  gtk_editable_set_text (prs_schedule_editor_get_name_entry (editor), "Briefing");
  g_assert_false (gtk_widget_is_sensitive (save));
  gtk_window_destroy (GTK_WINDOW (editor));

  g_free (orphan->agent_id);
  orphan->agent_id = g_strdup ("digest-writer");
  g_assert_true (prs_store_add_schedule (store (f), orphan, &orphan_id, &error));
  g_assert_no_error (error);
  editor = prs_schedules_page_edit (page (f), orphan_id, NULL, NULL);
  save = prs_test_find_widget (GTK_WIDGET (editor), GTK_TYPE_BUTTON, is_save_button, NULL);
  prs_test_wait_frames (GTK_WIDGET (editor), 2);
  g_assert_cmpstr (prs_schedule_editor_get_problem (editor), ==, gone);
  g_assert_nonnull (prs_test_find_label (GTK_WIDGET (editor), gone));
  g_assert_false (gtk_widget_is_sensitive (save));
  adw_combo_row_set_selected (prs_schedule_editor_get_agent_row (editor), 0);
  g_assert_null (prs_schedule_editor_get_problem (editor));
  g_assert_null (prs_test_find_label (GTK_WIDGET (editor), gone));
  g_assert_true (gtk_widget_is_sensitive (save));
  gtk_window_destroy (GTK_WINDOW (editor));
}

/* Closing with unsaved changes asks first: Discard leaves the store as it
 * was, Save stores them; the editor goes either way */
static void
test_editor_discard (Fixture       *f,
                     gconstpointer  data)
{
  const char *responses[] = { "discard", "save" };

  for (guint i = 0; i < G_N_ELEMENTS (responses); i++)
    {
      PrsScheduleEditor *editor = prs_schedules_page_edit (page (f), f->briefing, NULL, NULL);
      g_autoptr(PrsScheduleRow) stored = NULL;
      AdwMessageDialog *dialog;

      g_object_add_weak_pointer (G_OBJECT (editor), (gpointer *) &editor);
      g_assert_false (prs_schedule_editor_get_modified (editor));
      gtk_editable_set_text (prs_schedule_editor_get_name_entry (editor), "Renamed briefing");
      g_assert_true (prs_schedule_editor_get_modified (editor));
      gtk_window_close (GTK_WINDOW (editor));
      dialog = find_message_dialog ();
      g_assert_nonnull (dialog);
      g_assert_cmpstr (adw_message_dialog_get_heading (dialog), ==, "Discard Changes?");
      adw_message_dialog_response (dialog, responses[i]);
      gtk_window_destroy (GTK_WINDOW (dialog));
      for (guint n = 0; n < 50 && editor != NULL; n++)
        prs_test_wait_frames (GTK_WIDGET (f->window), 1);
      g_assert_null (editor);
      stored = prs_store_lookup_schedule (store (f), f->briefing, NULL);
      g_assert_cmpstr (stored->name, ==, i == 0 ? "Briefing" : "Renamed briefing");
    }
}

static void
test_delete_asks (Fixture       *f,
                  gconstpointer  data)
{
  AdwMessageDialog *dialog;
  g_autoptr(PrsScheduleRow) gone = NULL;

  gtk_widget_activate_action (GTK_WIDGET (page (f)), "schedules.delete", "s", f->briefing);
  dialog = find_message_dialog ();
  g_assert_nonnull (dialog);
  g_assert_cmpstr (adw_message_dialog_get_heading (dialog), ==, "Delete “Briefing”?");
  /* Cancel keeps it */
  adw_message_dialog_response (dialog, "cancel");
  gtk_window_destroy (GTK_WINDOW (dialog));
  g_assert_nonnull (prs_schedules_page_get_row (page (f), f->briefing));

  gtk_widget_activate_action (GTK_WIDGET (page (f)), "schedules.delete", "s", f->briefing);
  dialog = find_message_dialog ();
  adw_message_dialog_response (dialog, "delete");
  gtk_window_destroy (GTK_WINDOW (dialog));
  gone = prs_store_lookup_schedule (store (f), f->briefing, NULL);
  g_assert_null (gone);
  prs_test_wait_frames (GTK_WIDGET (f->window), 2);
  g_assert_null (prs_schedules_page_get_row (page (f), f->briefing));
}

int
main (int   argc,
      char *argv[])
{
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

#define ADD(path, func) \
  g_test_add ("/prs/ui/schedules/" path, Fixture, NULL, fixture_setup, func, fixture_teardown)

  ADD ("page-lists", test_page_lists);
  ADD ("editor-preview", test_editor_preview);
  ADD ("run-now", test_run_now);
  ADD ("editor-discard", test_editor_discard);
  ADD ("editor-save-needs-change", test_editor_save_needs_change);
  ADD ("delete-asks", test_delete_asks);

#undef ADD

  return g_test_run ();
}
