/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-ui-test-util.h: what the ui tests and the demo seeder share (with
 * tests/lib's prs-test-util.h: free ports, folder removal, …). */
#pragma once

#include <gtk/gtk.h>

#include "prs-service.h"
#include "prs-store.h"
#include "prs-test-util.h"
#include "prs-window.h"

G_BEGIN_DECLS

/* Inserts @n messages (alternating user / assistant) into @conversation_id
 * of the database at @db_path in ONE transaction through SQLite directly —
 * a test-only shortcut for huge histories — and sets the conversation's
 * message count to match. */
void       prs_test_seed_messages  (const char  *db_path,
                                    const char  *conversation_id,
                                    guint        n);
/* An agent's long report in Markdown, about @size bytes: a heading, then
 * sections of bold-led paragraphs, subheadings and lists, as a model writes
 * one (the audit's 20 KB reply). */
char      *prs_test_long_report    (gsize        size);
/* Runs the main context until @widget's frame clock has painted @n frames. */
void       prs_test_wait_frames    (GtkWidget   *widget,
                                    guint        n);
/* How long the waits below give what they wait for: only a failing test
 * waits this long, and a machine busy beside the tests took over 10 s to
 * show 1,000 rows */
#define PRS_TEST_WAIT_SECONDS 60

/* Runs the main context until *@flag is TRUE (or PRS_TEST_WAIT_SECONDS passed). */
gboolean   prs_test_wait_for       (gboolean    *flag);
/* Runs the main context until @condition returns TRUE (or PRS_TEST_WAIT_SECONDS). */
gboolean   prs_test_wait_until     (gboolean   (*condition) (gpointer data),
                                    gpointer     data);
/* The first descendant of @root (depth first) of type @type for which
 * @match returns TRUE (NULL matches anything). */
GtkWidget *prs_test_find_widget    (GtkWidget   *root,
                                    GType        type,
                                    gboolean   (*match) (GtkWidget *widget, gpointer data),
                                    gpointer     data);
/* For prs_test_find_widget () on GtkLabels: its markup holds @data (a string). */
gboolean   prs_test_label_markup_contains (GtkWidget *widget,
                                           gpointer   data);
/* Whether @label breaks its text with no hyphen added (an insert-hyphens
 * attribute, off, over the whole of it). */
gboolean   prs_test_label_adds_no_hyphens (GtkWidget *label);
/* A GtkLabel under @root whose text is @text. */
GtkWidget *prs_test_find_label     (GtkWidget   *root,
                                    const char  *text);
/* The widget under @root named @name (gtk_widget_set_name, the templates'
 * names); fails the test if there is none. */
GtkWidget *prs_test_find_named     (GtkWidget   *root,
                                    const char  *name);
/* The sidebar row of @window that shows the conversation @conversation_id,
 * or NULL (a row exists only while its item is bound). */
GtkWidget *prs_test_find_conversation_row (PrsWindow  *window,
                                           const char *conversation_id);
/* Presses and releases @accelerator ("Delete", "<Shift>F10",
 * "<Control>k") as a person does: real key events through the X server
 * (XTest), to the window of @widget, which gets the keyboard focus first.
 * Then runs the main context until GTK has handled them. */
void       prs_test_press_keys     (GtkWidget   *widget,
                                    const char  *accelerator);
/* Moves the pointer to the middle of @widget and clicks @button (1 the
 * primary, 3 the secondary) there, through the X server (XTest). */
void       prs_test_click_pointer  (GtkWidget   *widget,
                                    guint        button);
/* With PRS_SCREENSHOT_DIR set, captures the X screen as DIR/@name.png once
 * @window's transitions are over; nothing otherwise (design review). */
void       prs_test_screenshot     (GtkWidget   *window,
                                    const char  *name);
/* Emits "clicked" on @button, which must be sensitive, at once
 * (gtk_widget_activate () on a button clicks 250 ms later). */
void       prs_test_click          (GtkWidget   *button);

/* Runs @app (a PrsApplication: these tests compile its sources in) with
 * the NULL-terminated @argv, which must succeed. @after_activate runs with
 * @data once it is activated (a source of default priority, before any the
 * application makes after); the run is ended after PRS_TEST_WAIT_SECONDS.
 * TRUE when it had to be ended so. */
gboolean   prs_test_run_app        (GApplication *app,
                                    char        **argv,
                                    GSourceFunc   after_activate,
                                    gpointer      data);

/* prs_test_run_app () as a person starts it: `prosponsive --data-dir
 * @data_dir --port @port`. */
gboolean   prs_test_run_app_on     (GApplication *app,
                                    const char   *data_dir,
                                    guint         port,
                                    GSourceFunc   after_activate,
                                    gpointer      data);

/* A started service on @data_dir (*@service) and its window at @width ×
 * @height, presented and drawn: what a window test opens */
PrsWindow *prs_test_window_open      (const char   *data_dir,
                                      int           width,
                                      int           height,
                                      PrsService  **service);
/* Destroys every window (dialogs first, *@window last) and clears
 * *@window; then stops and clears *@service (either may be NULL) and runs
 * what they left queued */
void       prs_test_window_close     (PrsWindow   **window,
                                      PrsService  **service);
/* The screenshot programs' start: GTK and libadwaita in the environment's
 * language (the build's catalogues with PRS_TEST_LOCALEDIR=BUILD/po), dark
 * when @dark, the application's stylesheet and icons, a started service on
 * @data_dir (*@service) and its window at @width × @height, drawn. */
PrsWindow *prs_test_screenshot_start (const char   *data_dir,
                                      int           width,
                                      int           height,
                                      gboolean      dark,
                                      PrsService  **service);
/* Until the leaflet in @window (if any) is no longer sliding: a folded
 * window slides to the page it opens */
void       prs_test_wait_for_leaflet (GtkWidget    *window);
/* Captures @widget's toplevel (NULL: the whole screen) into the PNG file
 * @path with ImageMagick's import; the test fails when it cannot. */
void       prs_test_capture          (GtkWidget    *widget,
                                      const char   *path);

G_END_DECLS
