/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-screenshot-agents.c: shows the real window's Agents page, and the
 * agent editor in a given state, on a seeded data folder (prs-seed-agents)
 * and captures it with ImageMagick's `import` (data/screenshots, design
 * review; not a user command):
 *
 *   prs-screenshot-agents DATA_DIR OUT.png [--edit ID | --new-id ID] [--map] [--picker PARAM]
 *                         [--search TEXT] [--scroll FRACTION] [--only-editor]
 *                         [--import FILE.md] [--width W] [--height H] [--editor-width W]
 *                         [--editor-height H] [--dark]
 */
#include "config.h"


#include "prs-agent-editor.h"
#include "prs-agents-page.h"
#include "prs-field-picker.h"
#include "prs-ui-test-util.h"
#include "prs-window.h"

static char *edit_id;
static char *new_id;
static gboolean map_move;
static char *picker_param;
static char *search_text;
static double scroll = 0;
static gboolean only_editor;
static int width = 1060;
static int height = 720;
static int editor_width = 760;
static int editor_height = 0;
static gboolean dark;
static char *import_path;

static const GOptionEntry entries[] = {
  { "edit", 0, 0, G_OPTION_ARG_STRING, &edit_id, "Open the editor on this agent", "ID" },
  { "new-id", 0, 0, G_OPTION_ARG_STRING, &new_id, "Open a new agent named Mail Triage with this id", "ID" },
  { "map", 0, 0, G_OPTION_ARG_NONE, &map_move, "Map email_move_to_folder's parameters", NULL },
  { "picker", 0, 0, G_OPTION_ARG_STRING, &picker_param, "Open the field picker of this parameter", "PARAM" },
  { "search", 0, 0, G_OPTION_ARG_STRING, &search_text, "Type this into the picker's search", "TEXT" },
  { "scroll", 0, 0, G_OPTION_ARG_DOUBLE, &scroll, "Scroll the editor (0 top … 1 bottom)", "FRACTION" },
  { "only-editor", 0, 0, G_OPTION_ARG_NONE, &only_editor, "Capture only the editor window", NULL },
  { "width", 0, 0, G_OPTION_ARG_INT, &width, "Window width", "W" },
  { "height", 0, 0, G_OPTION_ARG_INT, &height, "Window height", "H" },
  { "editor-width", 0, 0, G_OPTION_ARG_INT, &editor_width, "Editor width (a phone: 360)", "W" },
  { "editor-height", 0, 0, G_OPTION_ARG_INT, &editor_height, "Editor height", "H" },
  { "dark", 0, 0, G_OPTION_ARG_NONE, &dark, "Dark style", NULL },
  { "import", 0, 0, G_OPTION_ARG_FILENAME, &import_path, "Import this agent file (its question, if any)", "FILE.md" },
  { NULL }
};

static PrsFieldPicker *
open_picker (PrsGuidanceBuilder *builder,
             const char         *param)
{
  GtkMenuButton *button = prs_guidance_builder_get_field_button (builder, param);

  gtk_menu_button_popup (button);
  return PRS_FIELD_PICKER (gtk_menu_button_get_popover (button));
}

static void
pick (GtkWidget          *window,
      PrsGuidanceBuilder *builder,
      const char         *param,
      const char         *search)
{
  PrsFieldPicker *picker;

  gtk_drop_down_set_selected (prs_guidance_builder_get_source_drop_down (builder, param), 0);
  prs_test_wait_frames (window, 3);
  picker = open_picker (builder, param);
  prs_test_wait_frames (window, 2);
  gtk_editable_set_text (prs_field_picker_get_search_entry (picker), search);
  prs_test_wait_frames (window, 2);
  gtk_widget_activate_action (GTK_WIDGET (prs_field_picker_get_list_view (picker)), "list.activate-item", "u", 0);
  prs_test_wait_frames (window, 2);
}

/* Imports @path as Import… does, and lets its question (if any) appear */
static void
import_file (PrsWindow  *window,
             const char *path)
{
  g_autoptr(GFile) file = g_file_new_for_commandline_arg (path);

  prs_agents_page_import_file (prs_window_get_agents_page (window), file);
  prs_test_wait_frames (GTK_WIDGET (window), 12);
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GOptionContext) context = g_option_context_new ("DATA_DIR OUT.png");
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsService) service = NULL;
  PrsWindow *window;
  PrsAgentEditor *editor = NULL;
  GtkWidget *shot;

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error) || argc != 3)
    {
      g_printerr ("usage: prs-screenshot-agents DATA_DIR OUT.png [options]\n");
      return 2;
    }

  window = prs_test_screenshot_start (argv[1], width, height, dark, &service);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.show-agents", NULL);
  prs_test_wait_frames (GTK_WIDGET (window), 4);
  shot = GTK_WIDGET (window);

  if (edit_id != NULL || new_id != NULL)
    {
      PrsGuidanceBuilder *builder;

      editor = prs_agents_page_edit (prs_window_get_agents_page (window), edit_id);
      if (editor == NULL)
        g_error ("no agent %s", edit_id);
      if (new_id != NULL)
        {
          gtk_editable_set_text (prs_agent_editor_get_name_entry (editor), "Mail Triage");
          gtk_editable_set_text (prs_agent_editor_get_id_entry (editor), new_id);
        }
      if (editor_height > 0 || editor_width != 760)
        gtk_window_set_default_size (GTK_WINDOW (editor), editor_width, editor_height > 0 ? editor_height : height);
      prs_test_wait_frames (GTK_WIDGET (editor), 4);
      builder = prs_agent_editor_get_guidance_builder (editor);
      if (map_move)
        {
          prs_guidance_builder_select_tool (builder, "email_move_to_folder");
          prs_test_wait_frames (GTK_WIDGET (editor), 2);
          pick (GTK_WIDGET (editor), builder, "uid", "uid");
          pick (GTK_WIDGET (editor), builder, "mailbox", "mailbox");
          gtk_drop_down_set_selected (prs_guidance_builder_get_source_drop_down (builder, "destination"), 2);
          prs_test_wait_frames (GTK_WIDGET (editor), 3);
        }
      if (scroll > 0)
        {
          GtkWidget *scroller = prs_test_find_widget (GTK_WIDGET (editor), GTK_TYPE_SCROLLED_WINDOW, NULL, NULL);
          GtkAdjustment *adj = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scroller));

          prs_test_wait_frames (GTK_WIDGET (editor), 4);
          gtk_adjustment_set_value (adj, scroll * (gtk_adjustment_get_upper (adj) - gtk_adjustment_get_page_size (adj)));
          prs_test_wait_frames (GTK_WIDGET (editor), 4);
        }
      if (picker_param != NULL)
        {
          PrsFieldPicker *picker = open_picker (builder, picker_param);

          prs_test_wait_frames (GTK_WIDGET (editor), 3);
          if (search_text != NULL)
            gtk_editable_set_text (prs_field_picker_get_search_entry (picker), search_text);
        }
      prs_test_wait_frames (GTK_WIDGET (editor), 8);
      if (only_editor)
        shot = GTK_WIDGET (editor);
    }
  if (import_path != NULL)
    import_file (window, import_path);
  prs_test_wait_frames (GTK_WIDGET (window), 4);

  prs_test_wait_for_leaflet (GTK_WIDGET (window));
  prs_test_capture (shot != GTK_WIDGET (window) ? shot : NULL, argv[2]);

  if (editor != NULL)
    gtk_window_destroy (GTK_WINDOW (editor));
  gtk_window_destroy (GTK_WINDOW (window));
  prs_service_stop (service);
  return 0;
}
