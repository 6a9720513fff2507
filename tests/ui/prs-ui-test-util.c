/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-ui-test-util.c: helpers of the ui tests: fast seeding of huge
 * histories, and waiting for frames (never fixed sleeps). */
#include "config.h"

#include <sqlite3.h>

#include <dlfcn.h>
#include <gdk/x11/gdkx.h>
#include <X11/keysym.h>

#include <locale.h>
#include <glib/gi18n.h>
#include <adwaita.h>

#include "prs-conversation-row.h"
#include "prs-ui-test-util.h"

void
prs_test_seed_messages (const char *db_path,
                        const char *conversation_id,
                        guint       n)
{
  sqlite3 *db = NULL;
  sqlite3_stmt *stmt = NULL;
  sqlite3_int64 first = 0;

  g_assert_cmpint (sqlite3_open (db_path, &db), ==, SQLITE_OK);
  sqlite3_busy_timeout (db, 5000);
  g_assert_cmpint (sqlite3_exec (db, "BEGIN IMMEDIATE", NULL, NULL, NULL), ==, SQLITE_OK);

  g_assert_cmpint (sqlite3_prepare_v2 (db, "SELECT COALESCE (MAX (seq), 0) FROM messages WHERE conversation_id = ?1",
                                       -1, &stmt, NULL), ==, SQLITE_OK);
  sqlite3_bind_text (stmt, 1, conversation_id, -1, SQLITE_TRANSIENT);
  g_assert_cmpint (sqlite3_step (stmt), ==, SQLITE_ROW);
  first = sqlite3_column_int64 (stmt, 0);
  sqlite3_finalize (stmt);

  g_assert_cmpint (sqlite3_prepare_v2 (db,
                                       "INSERT INTO messages (id, conversation_id, seq, kind, content, agent_id, created_at)"
                                       " VALUES (?1, ?2, ?3, ?4, ?5, ?6, strftime ('%Y-%m-%dT%H:%M:%fZ', 'now'))",
                                       -1, &stmt, NULL), ==, SQLITE_OK);
  for (guint i = 1; i <= n; i++)
    {
      char id[64], content[128];

      g_snprintf (id, sizeof id, "%s-%u", conversation_id, (guint) (first + i));
      if (i % 2 == 1)
        g_snprintf (content, sizeof content, "Question number %u: what changed since the last one?", (guint) (first + i));
      else
        g_snprintf (content, sizeof content, "Status: answered\nNumber: %u\n\nNothing else changed.", (guint) (first + i));
      sqlite3_bind_text (stmt, 1, id, -1, SQLITE_TRANSIENT);
      sqlite3_bind_text (stmt, 2, conversation_id, -1, SQLITE_TRANSIENT);
      sqlite3_bind_int64 (stmt, 3, first + i);
      sqlite3_bind_text (stmt, 4, i % 2 == 1 ? "user" : "assistant", -1, SQLITE_STATIC);
      sqlite3_bind_text (stmt, 5, content, -1, SQLITE_TRANSIENT);
      if (i % 2 == 1)
        sqlite3_bind_null (stmt, 6);
      else
        sqlite3_bind_text (stmt, 6, "prosponsive", -1, SQLITE_STATIC);
      g_assert_cmpint (sqlite3_step (stmt), ==, SQLITE_DONE);
      sqlite3_reset (stmt);
    }
  sqlite3_finalize (stmt);

  g_assert_cmpint (sqlite3_prepare_v2 (db,
                                       "UPDATE conversations SET message_count = message_count + ?2,"
                                       " updated_at = strftime ('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ?1",
                                       -1, &stmt, NULL), ==, SQLITE_OK);
  sqlite3_bind_text (stmt, 1, conversation_id, -1, SQLITE_TRANSIENT);
  sqlite3_bind_int64 (stmt, 2, n);
  g_assert_cmpint (sqlite3_step (stmt), ==, SQLITE_DONE);
  sqlite3_finalize (stmt);

  g_assert_cmpint (sqlite3_exec (db, "COMMIT", NULL, NULL, NULL), ==, SQLITE_OK);
  sqlite3_close (db);
}

static void
on_after_paint (GdkFrameClock *clock,
                guint         *count)
{
  (*count)++;
}

void
prs_test_wait_frames (GtkWidget *widget,
                      guint      n)
{
  GdkFrameClock *clock;
  guint count = 0;
  gulong id;

  while ((clock = gtk_widget_get_frame_clock (widget)) == NULL)
    g_main_context_iteration (NULL, TRUE);

  id = g_signal_connect (clock, "after-paint", G_CALLBACK (on_after_paint), &count);
  while (count < n)
    {
      gtk_widget_queue_draw (widget);
      g_main_context_iteration (NULL, TRUE);
    }
  g_signal_handler_disconnect (clock, id);
}

static gboolean
on_timeout (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

gboolean
prs_test_wait_for (gboolean *flag)
{
  gboolean timed_out = FALSE;
  guint id = g_timeout_add_seconds (PRS_TEST_WAIT_SECONDS, on_timeout, &timed_out);

  while (!*flag && !timed_out)
    g_main_context_iteration (NULL, TRUE);
  if (!timed_out)
    g_source_remove (id);
  return *flag;
}

gboolean
prs_test_wait_until (gboolean (*condition) (gpointer data),
                     gpointer   data)
{
  gboolean timed_out = FALSE;
  guint id = g_timeout_add_seconds (PRS_TEST_WAIT_SECONDS, on_timeout, &timed_out);

  while (!condition (data) && !timed_out)
    g_main_context_iteration (NULL, TRUE);
  if (!timed_out)
    g_source_remove (id);
  return condition (data);
}

GtkWidget *
prs_test_find_widget (GtkWidget  *root,
                      GType       type,
                      gboolean  (*match) (GtkWidget *widget, gpointer data),
                      gpointer    data)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (root, type) && (match == NULL || match (root, data)))
    return root;

  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = prs_test_find_widget (child, type, match, data);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static gboolean
label_has_text (GtkWidget *widget,
                gpointer   data)
{
  return g_strcmp0 (gtk_label_get_text (GTK_LABEL (widget)), data) == 0;
}

gboolean
prs_test_label_markup_contains (GtkWidget *widget,
                                gpointer   data)
{
  return strstr (gtk_label_get_label (GTK_LABEL (widget)), data) != NULL;
}

gboolean
prs_test_label_adds_no_hyphens (GtkWidget *label)
{
  PangoAttrList *attrs = gtk_label_get_attributes (GTK_LABEL (label));
  g_autoptr(GSList) all = attrs != NULL ? pango_attr_list_get_attributes (attrs) : NULL;
  gboolean found = FALSE;

  for (GSList *l = all; l != NULL; l = l->next)
    {
      PangoAttribute *attr = l->data;

      if (attr->klass->type == PANGO_ATTR_INSERT_HYPHENS && !((PangoAttrInt *) attr)->value &&
          attr->start_index == PANGO_ATTR_INDEX_FROM_TEXT_BEGINNING &&
          attr->end_index == PANGO_ATTR_INDEX_TO_TEXT_END)
        found = TRUE;
      pango_attribute_destroy (attr);
    }
  return found;
}

static gboolean
row_has_conversation (GtkWidget *widget,
                      gpointer   data)
{
  PrsConversation *conversation = prs_conversation_row_get_conversation (PRS_CONVERSATION_ROW (widget));

  return conversation != NULL && g_strcmp0 (prs_conversation_get_id (conversation), data) == 0;
}

GtkWidget *
prs_test_find_conversation_row (PrsWindow  *window,
                                const char *conversation_id)
{
  return prs_test_find_widget (GTK_WIDGET (prs_window_get_conversation_list (window)),
                               PRS_TYPE_CONVERSATION_ROW, row_has_conversation, (gpointer) conversation_id);
}

GtkWidget *
prs_test_find_label (GtkWidget  *root,
                     const char *text)
{
  return prs_test_find_widget (root, GTK_TYPE_LABEL, label_has_text, (gpointer) text);
}

static gboolean
has_name (GtkWidget *widget,
          gpointer   name)
{
  return g_strcmp0 (gtk_widget_get_name (widget), name) == 0;
}

GtkWidget *
prs_test_find_named (GtkWidget  *root,
                     const char *name)
{
  GtkWidget *widget = prs_test_find_widget (root, GTK_TYPE_WIDGET, has_name, (gpointer) name);

  if (widget == NULL)
    g_error ("No widget named “%s”", name);
  return widget;
}

void
prs_test_click (GtkWidget *button)
{
  g_assert_true (gtk_widget_is_sensitive (button));
  g_signal_emit_by_name (button, "clicked");
}

/* ---- the keyboard, through the X server ---- */

typedef int (*FakeKeyEvent) (Display *display, unsigned int keycode, Bool is_press, unsigned long delay);
typedef int (*FakeButtonEvent) (Display *display, unsigned int button, Bool is_press, unsigned long delay);
typedef int (*FakeMotionEvent) (Display *display, int screen, int x, int y, unsigned long delay);

/* XTest is loaded at run time: Debian ships its headers apart, and only
 * these calls are needed */
static gpointer
xtest (const char *name)
{
  static void *library;
  gpointer symbol;

  if (library == NULL)
    library = dlopen ("libXtst.so.6", RTLD_NOW | RTLD_LOCAL);
  g_assert_nonnull (library);
  symbol = dlsym (library, name);
  g_assert_nonnull (symbol);
  return symbol;
}

static FakeKeyEvent
fake_key_event (void)
{
  return (FakeKeyEvent) xtest ("XTestFakeKeyEvent");
}

static void
send_key (Display *x,
          KeySym   keysym,
          Bool     press)
{
  KeyCode code = XKeysymToKeycode (x, keysym);

  g_assert_cmpuint (code, !=, 0);
  fake_key_event () (x, code, press, CurrentTime);
}

static gboolean
done_waiting (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

/* Until GTK has handled what the X server sends back */
static void
settle (GtkWidget *widget,
        Display   *x)
{
  gboolean waited = FALSE;

  GtkWidget *native = GTK_WIDGET (gtk_widget_get_native (widget));

  XSync (x, False);
  g_timeout_add (150, done_waiting, &waited);
  while (!waited)
    g_main_context_iteration (NULL, TRUE);
  /* A key may have closed the window (Escape): it paints no more frames */
  if (gtk_widget_get_mapped (native))
    prs_test_wait_frames (native, 2);
}

void
prs_test_click_pointer (GtkWidget *widget,
                        guint      button)
{
  GtkNative *native = gtk_widget_get_native (widget);
  GdkSurface *surface = gtk_native_get_surface (native);
  Display *x = gdk_x11_display_get_xdisplay (gtk_widget_get_display (widget));
  graphene_point_t point;
  double nx, ny;
  int root_x, root_y;
  Window child;

  g_assert_true (gtk_widget_compute_point (widget, GTK_WIDGET (native),
                                           &GRAPHENE_POINT_INIT (gtk_widget_get_width (widget) / 2.0,
                                                                 gtk_widget_get_height (widget) / 2.0),
                                           &point));
  gtk_native_get_surface_transform (native, &nx, &ny);
  XTranslateCoordinates (x, gdk_x11_surface_get_xid (surface), DefaultRootWindow (x),
                         (int) (point.x + nx), (int) (point.y + ny), &root_x, &root_y, &child);
  XSetInputFocus (x, gdk_x11_surface_get_xid (surface), RevertToParent, CurrentTime);
  ((FakeMotionEvent) xtest ("XTestFakeMotionEvent")) (x, -1, root_x, root_y, CurrentTime);
  ((FakeButtonEvent) xtest ("XTestFakeButtonEvent")) (x, button, True, CurrentTime);
  ((FakeButtonEvent) xtest ("XTestFakeButtonEvent")) (x, button, False, CurrentTime);
  settle (widget, x);
}

void
prs_test_press_keys (GtkWidget  *widget,
                     const char *accelerator)
{
  GtkNative *native = gtk_widget_get_native (widget);
  GdkDisplay *display = gtk_widget_get_display (widget);
  guint keyval = 0;
  GdkModifierType modifiers = 0;
  Display *x;

  g_assert_true (GDK_IS_X11_DISPLAY (display));
  g_assert_true (gtk_accelerator_parse (accelerator, &keyval, &modifiers));
  x = gdk_x11_display_get_xdisplay (display);

  g_object_ref (native);
  XSetInputFocus (x, gdk_x11_surface_get_xid (gtk_native_get_surface (native)), RevertToParent, CurrentTime);
  if (modifiers & GDK_CONTROL_MASK)
    send_key (x, XK_Control_L, True);
  if (modifiers & GDK_SHIFT_MASK)
    send_key (x, XK_Shift_L, True);
  if (modifiers & GDK_ALT_MASK)
    send_key (x, XK_Alt_L, True);
  send_key (x, keyval, True);
  send_key (x, keyval, False);
  if (modifiers & GDK_ALT_MASK)
    send_key (x, XK_Alt_L, False);
  if (modifiers & GDK_SHIFT_MASK)
    send_key (x, XK_Shift_L, False);
  if (modifiers & GDK_CONTROL_MASK)
    send_key (x, XK_Control_L, False);
  /* The events come back through GDK's X source; the window is kept alive
   * until then, should the key close it */
  settle (GTK_WIDGET (native), x);
  g_object_unref (native);
}

typedef struct
{
  GApplication *app;
  gboolean      timed_out;
} AppRun;

static gboolean
give_up_app (gpointer data)
{
  AppRun *run = data;

  run->timed_out = TRUE;
  g_application_quit (run->app);
  return G_SOURCE_REMOVE;
}

gboolean
prs_test_run_app (GApplication *app,
                  char        **argv,
                  GSourceFunc   after_activate,
                  gpointer      data)
{
  AppRun run = { app, FALSE };
  guint timeout = g_timeout_add_seconds (PRS_TEST_WAIT_SECONDS, give_up_app, &run);

  g_idle_add_full (G_PRIORITY_DEFAULT, after_activate, data, NULL);
  g_assert_cmpint (g_application_run (app, (int) g_strv_length (argv), argv), ==, 0);
  if (!run.timed_out)
    g_source_remove (timeout);
  return run.timed_out;
}

gboolean
prs_test_run_app_on (GApplication *app,
                     const char   *data_dir,
                     guint         port,
                     GSourceFunc   after_activate,
                     gpointer      data)
{
  g_autofree char *port_text = g_strdup_printf ("%u", port);
  char *argv[] = { (char *) "prosponsive", (char *) "--data-dir", (char *) data_dir, (char *) "--port", port_text, NULL };

  return prs_test_run_app (app, argv, after_activate, data);
}

void
prs_test_screenshot (GtkWidget  *window,
                     const char *name)
{
  const char *dir = g_getenv ("PRS_SCREENSHOT_DIR");
  g_autofree char *path = NULL;
  gboolean done = FALSE;

  if (dir == NULL)
    return;
  /* Let transitions (view switcher, expanders) finish. */
  g_timeout_add (600, done_waiting, &done);
  while (!done)
    g_main_context_iteration (NULL, TRUE);
  prs_test_wait_frames (window, 2);
  path = g_strdup_printf ("%s/%s.png", dir, name);
  prs_test_capture (NULL, path);
}

PrsWindow *
prs_test_window_open (const char  *data_dir,
                      int          width,
                      int          height,
                      PrsService **service)
{
  g_autoptr(GError) error = NULL;
  PrsWindow *window;

  *service = prs_service_new (data_dir, prs_test_free_port ());
  g_assert_true (prs_service_start (*service, &error));
  g_assert_no_error (error);
  window = prs_window_new (NULL, *service);
  g_object_ref_sink (window);
  gtk_window_set_default_size (GTK_WINDOW (window), width, height);
  gtk_window_present (GTK_WINDOW (window));
  prs_test_wait_frames (GTK_WIDGET (window), 3);
  return window;
}

void
prs_test_window_close (PrsWindow  **window,
                       PrsService **service)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = g_list_model_get_n_items (toplevels); i > 0; i--)
    {
      g_autoptr(GtkWindow) toplevel = g_list_model_get_item (toplevels, i - 1);

      if (toplevel != GTK_WINDOW (*window))
        gtk_window_destroy (toplevel);
    }
  if (*window != NULL)
    {
      gtk_window_destroy (GTK_WINDOW (*window));
      g_clear_object (window);
    }
  if (service != NULL && *service != NULL)
    {
      prs_service_stop (*service);
      g_clear_object (service);
    }
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

PrsWindow *
prs_test_screenshot_start (const char  *data_dir,
                           int          width,
                           int          height,
                           gboolean     dark,
                           PrsService **service)
{
  g_autoptr(GtkCssProvider) css = NULL;
  g_autoptr(GError) error = NULL;
  const char *localedir = g_getenv ("PRS_TEST_LOCALEDIR");
  PrsWindow *window;

  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, localedir != NULL ? localedir : LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);
  gtk_init ();
  adw_init ();
  if (dark)
    adw_style_manager_set_color_scheme (adw_style_manager_get_default (), ADW_COLOR_SCHEME_FORCE_DARK);
  css = gtk_css_provider_new ();
  gtk_css_provider_load_from_resource (css, RESOURCE_PREFIX "/style.css");
  gtk_style_context_add_provider_for_display (gdk_display_get_default (), GTK_STYLE_PROVIDER (css),
                                              GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
  /* The resource's icons, as the application's resource-base-path adds them */
  gtk_icon_theme_add_resource_path (gtk_icon_theme_get_for_display (gdk_display_get_default ()),
                                    RESOURCE_PREFIX "/icons");

  *service = prs_service_new (data_dir, prs_test_free_port ());
  if (!prs_service_start (*service, &error))
    g_error ("%s", error->message);
  window = prs_window_new (NULL, *service);
  gtk_window_set_default_size (GTK_WINDOW (window), width, height);
  gtk_window_present (GTK_WINDOW (window));
  prs_test_wait_frames (GTK_WIDGET (window), 3);
  return window;
}

static gboolean
leaflet_still (gpointer leaflet)
{
  return !adw_leaflet_get_child_transition_running (leaflet);
}

void
prs_test_wait_for_leaflet (GtkWidget *window)
{
  GtkWidget *leaflet = prs_test_find_widget (window, ADW_TYPE_LEAFLET, NULL, NULL);

  if (leaflet != NULL)
    prs_test_wait_until (leaflet_still, leaflet);
  prs_test_wait_frames (window, 2);
}

void
prs_test_capture (GtkWidget  *widget,
                  const char *path)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *xid = NULL;
  const char *argv[] = { "import", "-window", "root", path, NULL };
  int status = 0;

  if (widget != NULL)
    {
      GdkSurface *surface = gtk_native_get_surface (gtk_widget_get_native (widget));

      xid = g_strdup_printf ("0x%lx", (unsigned long) gdk_x11_surface_get_xid (surface));
      argv[2] = xid;
    }
  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, &status, &error);
  g_assert_no_error (error);
  g_spawn_check_wait_status (status, &error);
  g_assert_no_error (error);
}

char *
prs_test_long_report (gsize size)
{
  GString *text = g_string_new ("## Long report\n\n");

  for (guint i = 0; text->len < size; i++)
    {
      if (i % 6 == 5)
        g_string_append_printf (text, "### Part %u\n\n", i / 6 + 1);
      g_string_append_printf (text, "**Section %u.** ", i);
      for (guint s = 0; s < 3; s++)
        g_string_append (text, "The quarterly report covers revenue, hiring and the product roadmap "
                               "in detail, with numbers per region and what changed since spring. ");
      g_string_append (text, "\n\n");
      if (i % 4 == 3)
        g_string_append (text, "- Revenue grew in *every* region\n- Two teams hired\n"
                               "- The roadmap moved `export` to the next release\n\n");
    }
  return g_string_free (text, FALSE);
}
