/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Tests for prs-secrets.c. The same program runs twice: with
 * PROSPONSIVE_SECRETS=file (the unit environment: the fallback file), and
 * without it under tests/run-with-keyring.sh, where it must really use the
 * keyring and never write the file. */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <libsecret/secret.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "prs-error.h"
#include "prs-secrets.h"
#include "prs-test-util.h"

typedef struct
{
  char *dir;       /* a temporary folder holding the data folders */
  char *data_dir;
  char *other_dir;
} Fixture;

static gboolean
keyring_expected (void)
{
  return g_strcmp0 (g_getenv ("PROSPONSIVE_SECRETS"), "file") != 0;
}

static void
fixture_setup (Fixture       *fixture,
               gconstpointer  user_data)
{
  g_autoptr(GError) error = NULL;

  fixture->dir = g_dir_make_tmp ("prs-test-secrets-XXXXXX", &error);
  g_assert_no_error (error);
  fixture->data_dir = g_build_filename (fixture->dir, "data", NULL);
  fixture->other_dir = g_build_filename (fixture->dir, "other", NULL);
  g_assert_cmpint (g_mkdir (fixture->data_dir, 0700), ==, 0);
  g_assert_cmpint (g_mkdir (fixture->other_dir, 0700), ==, 0);
}

static void
fixture_teardown (Fixture       *fixture,
                  gconstpointer  user_data)
{
  prs_test_remove_tree (fixture->dir);
  g_free (fixture->dir);
  g_free (fixture->data_dir);
  g_free (fixture->other_dir);
}

static char *
dup_fallback_path (const char *data_dir)
{
  return g_build_filename (data_dir, "secrets.json", NULL);
}

/* In keyring mode, the keyring must have been used and the file never written. */
static void
assert_backend (PrsSecrets *secrets,
                const char *data_dir)
{
  g_autofree char *path = dup_fallback_path (data_dir);

  if (keyring_expected ())
    {
      g_assert_false (prs_secrets_is_using_fallback (secrets));
      g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
    }
  else
    g_assert_true (prs_secrets_is_using_fallback (secrets));
}

static void
test_round_trip (Fixture       *fixture,
                 gconstpointer  user_data)
{
  g_autoptr(PrsSecrets) secrets = prs_secrets_new (fixture->data_dir);
  g_autoptr(PrsSecrets) again = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *value = NULL;

  g_assert_true (prs_secrets_store_sync (secrets, PRS_SECRET_N8N_API_KEY,
                                         "Prosponsive: n8n API key", "key-1 ✓ \"quoted\"",
                                         NULL, &error));
  g_assert_no_error (error);

  value = prs_secrets_lookup_sync (secrets, PRS_SECRET_N8N_API_KEY, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (value, ==, "key-1 ✓ \"quoted\"");
  g_clear_pointer (&value, g_free);

  /* Storing again replaces. */
  g_assert_true (prs_secrets_store_sync (secrets, PRS_SECRET_N8N_API_KEY, NULL, "key-2",
                                         NULL, &error));
  g_assert_no_error (error);
  value = prs_secrets_lookup_sync (secrets, PRS_SECRET_N8N_API_KEY, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (value, ==, "key-2");
  g_clear_pointer (&value, g_free);

  /* Another object on the same folder (a new run of the app) sees it. */
  again = prs_secrets_new (fixture->data_dir);
  value = prs_secrets_lookup_sync (again, PRS_SECRET_N8N_API_KEY, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (value, ==, "key-2");
  g_clear_pointer (&value, g_free);

  /* Names do not mix. */
  g_assert_true (prs_secrets_store_sync (secrets, PRS_SECRET_API_TOKEN, NULL, "token",
                                         NULL, &error));
  g_assert_no_error (error);

  g_assert_true (prs_secrets_clear_sync (secrets, PRS_SECRET_N8N_API_KEY, NULL, &error));
  g_assert_no_error (error);
  value = prs_secrets_lookup_sync (secrets, PRS_SECRET_N8N_API_KEY, NULL, &error);
  g_assert_no_error (error);
  g_assert_null (value);

  value = prs_secrets_lookup_sync (secrets, PRS_SECRET_API_TOKEN, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (value, ==, "token");
  g_clear_pointer (&value, g_free);

  /* Clearing what is not there succeeds. */
  g_assert_true (prs_secrets_clear_sync (secrets, PRS_SECRET_N8N_API_KEY, NULL, &error));
  g_assert_no_error (error);

  g_assert_true (prs_secrets_clear_sync (secrets, PRS_SECRET_API_TOKEN, NULL, &error));
  g_assert_no_error (error);

  assert_backend (secrets, fixture->data_dir);
  assert_backend (again, fixture->data_dir);
}

/* ---- the asynchronous calls ---- */

typedef struct
{
  GAsyncResult *result;
} Wait;

static void
on_done (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  Wait *wait = user_data;

  wait->result = g_object_ref (result);
}

static GAsyncResult *
wait_result (Wait *wait)
{
  while (wait->result == NULL)
    g_main_context_iteration (NULL, TRUE);
  return wait->result;
}

static char *
lookup_async (PrsSecrets  *secrets,
              const char  *name,
              GError     **error)
{
  Wait wait = { NULL };
  char *value;

  prs_secrets_lookup_async (secrets, name, NULL, on_done, &wait);
  value = prs_secrets_lookup_finish (secrets, wait_result (&wait), error);
  g_object_unref (wait.result);
  return value;
}

static void
test_async_round_trip (Fixture       *fixture,
                       gconstpointer  user_data)
{
  g_autoptr(PrsSecrets) secrets = prs_secrets_new (fixture->data_dir);
  g_autoptr(GError) error = NULL;
  g_autofree char *value = NULL;
  Wait wait = { NULL };

  prs_secrets_store_async (secrets, PRS_SECRET_WEBHOOK_AUTH, NULL, "hook ✓", NULL, on_done, &wait);
  g_assert_true (prs_secrets_store_finish (secrets, wait_result (&wait), &error));
  g_assert_no_error (error);
  g_clear_object (&wait.result);

  value = lookup_async (secrets, PRS_SECRET_WEBHOOK_AUTH, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (value, ==, "hook ✓");
  g_clear_pointer (&value, g_free);

  prs_secrets_clear_async (secrets, PRS_SECRET_WEBHOOK_AUTH, NULL, on_done, &wait);
  g_assert_true (prs_secrets_clear_finish (secrets, wait_result (&wait), &error));
  g_assert_no_error (error);
  g_clear_object (&wait.result);
  value = lookup_async (secrets, PRS_SECRET_WEBHOOK_AUTH, &error);
  g_assert_no_error (error);
  g_assert_null (value);

  /* A name is required, as for the synchronous calls */
  value = lookup_async (secrets, "", &error);
  g_assert_null (value);
  g_assert_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT);
  assert_backend (secrets, fixture->data_dir);
}

/* Read once, a secret is kept in memory; any write through any object
 * (another process: prosponsive-ctl) drops what every object kept */
static void
test_kept_until_changed (Fixture       *fixture,
                         gconstpointer  user_data)
{
  g_autoptr(PrsSecrets) app = prs_secrets_new (fixture->data_dir);
  g_autoptr(PrsSecrets) ctl = prs_secrets_new (fixture->data_dir);
  g_autoptr(GError) error = NULL;
  g_autofree char *value = NULL;

  g_assert_true (prs_secrets_store_sync (ctl, PRS_SECRET_N8N_API_KEY, NULL, "first", NULL, &error));
  g_assert_no_error (error);
  value = lookup_async (app, PRS_SECRET_N8N_API_KEY, &error);
  g_assert_cmpstr (value, ==, "first");
  g_clear_pointer (&value, g_free);

  /* Removed behind its back (not through PrsSecrets: no stamp), the
   * value kept in memory is still what it answers: it did not ask again */
  if (keyring_expected ())
    secret_password_clear_sync (&(const SecretSchema) {
                                  "org.prosponsive.App.Secret", SECRET_SCHEMA_NONE,
                                  { { "name", SECRET_SCHEMA_ATTRIBUTE_STRING },
                                    { "data-dir", SECRET_SCHEMA_ATTRIBUTE_STRING },
                                    { NULL, 0 } } },
                                NULL, &error, "name", PRS_SECRET_N8N_API_KEY,
                                "data-dir", fixture->data_dir, NULL);
  else
    {
      g_autofree char *path = dup_fallback_path (fixture->data_dir);
      g_autofree char *contents = NULL;
      struct stat st;
      struct timespec times[2];
      gsize length;
      char *at;
      int fd;

      g_assert_cmpint (g_stat (path, &st), ==, 0);
      times[0] = st.st_atim;
      times[1] = st.st_mtim;

      /* Rewritten in place: the same file, the same size, the same times */
      g_assert_true (g_file_get_contents (path, &contents, &length, NULL));
      at = strstr (contents, "first");
      g_assert_nonnull (at);
      memcpy (at, "other", 5);
      fd = open (path, O_WRONLY);
      g_assert_cmpint (fd, >=, 0);
      g_assert_cmpint (write (fd, contents, length), ==, (gssize) length);
      close (fd);
      g_assert_cmpint (utimensat (AT_FDCWD, path, times, 0), ==, 0);
    }
  g_assert_no_error (error);
  value = lookup_async (app, PRS_SECRET_N8N_API_KEY, &error);
  g_assert_cmpstr (value, ==, "first");
  g_clear_pointer (&value, g_free);

  /* Any write (another secret, another object) drops it: read again */
  g_assert_true (prs_secrets_store_sync (ctl, PRS_SECRET_WEBHOOK_AUTH, NULL, "x", NULL, &error));
  g_assert_no_error (error);
  value = prs_secrets_lookup_sync (app, PRS_SECRET_N8N_API_KEY, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (value, ==, keyring_expected () ? NULL : "other");
  g_clear_pointer (&value, g_free);

  /* A change through the object itself is kept at once */
  g_assert_true (prs_secrets_store_sync (app, PRS_SECRET_N8N_API_KEY, NULL, "second", NULL, &error));
  value = lookup_async (ctl, PRS_SECRET_N8N_API_KEY, &error);
  g_assert_cmpstr (value, ==, "second");
}

static gboolean
set_flag (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

static gpointer
lookup_in_thread (gpointer data)
{
  PrsSecrets *secrets = data;

  return prs_secrets_lookup_sync (secrets, PRS_SECRET_API_TOKEN, NULL, NULL);
}

/* Held (the window before its first frame), nothing reaches the keyring;
 * at the release everything waiting goes on */
static void
test_hold (Fixture       *fixture,
           gconstpointer  user_data)
{
  g_autoptr(PrsSecrets) writer = prs_secrets_new (fixture->data_dir);
  g_autoptr(PrsSecrets) secrets = prs_secrets_new (fixture->data_dir);
  g_autoptr(GError) error = NULL;
  g_autofree char *value = NULL;
  g_autofree char *from_thread = NULL;
  gboolean later = FALSE;
  GThread *thread;
  Wait wait = { NULL };

  g_assert_true (prs_secrets_store_sync (writer, PRS_SECRET_API_TOKEN, NULL, "held", NULL, &error));
  g_assert_no_error (error);

  prs_secrets_hold_keyring ();
  prs_secrets_hold_keyring ();   /* calls nest */
  prs_secrets_lookup_async (secrets, PRS_SECRET_API_TOKEN, NULL, on_done, &wait);
  thread = g_thread_new ("lookup", lookup_in_thread, secrets);
  g_timeout_add (300, set_flag, &later);
  while (!later)
    g_main_context_iteration (NULL, TRUE);
  g_assert_null (wait.result);
  prs_secrets_release_keyring ();
  later = FALSE;
  g_timeout_add (100, set_flag, &later);
  while (!later)
    g_main_context_iteration (NULL, TRUE);
  g_assert_null (wait.result);

  prs_secrets_release_keyring ();
  value = prs_secrets_lookup_finish (secrets, wait_result (&wait), &error);
  g_assert_no_error (error);
  g_assert_cmpstr (value, ==, "held");
  g_clear_object (&wait.result);
  from_thread = g_thread_join (thread);
  g_assert_cmpstr (from_thread, ==, "held");
}

static void
test_missing (Fixture       *fixture,
              gconstpointer  user_data)
{
  g_autoptr(PrsSecrets) secrets = prs_secrets_new (fixture->data_dir);
  g_autoptr(GError) error = NULL;
  g_autofree char *value = NULL;

  value = prs_secrets_lookup_sync (secrets, "never-stored", NULL, &error);
  g_assert_no_error (error);
  g_assert_null (value);

  g_assert_null (prs_secrets_lookup_sync (secrets, "", NULL, &error));
  g_assert_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT);
  g_clear_error (&error);

  assert_backend (secrets, fixture->data_dir);
}

static void
test_data_dirs_do_not_share (Fixture       *fixture,
                             gconstpointer  user_data)
{
  g_autoptr(PrsSecrets) one = prs_secrets_new (fixture->data_dir);
  g_autoptr(PrsSecrets) two = prs_secrets_new (fixture->other_dir);
  g_autoptr(GError) error = NULL;
  g_autofree char *value = NULL;

  g_assert_true (prs_secrets_store_sync (one, PRS_SECRET_API_TOKEN, NULL, "token-one", NULL, &error));
  g_assert_no_error (error);

  value = prs_secrets_lookup_sync (two, PRS_SECRET_API_TOKEN, NULL, &error);
  g_assert_no_error (error);
  g_assert_null (value);

  g_assert_true (prs_secrets_store_sync (two, PRS_SECRET_API_TOKEN, NULL, "token-two", NULL, &error));
  g_assert_no_error (error);

  value = prs_secrets_lookup_sync (one, PRS_SECRET_API_TOKEN, NULL, &error);
  g_assert_cmpstr (value, ==, "token-one");
  g_clear_pointer (&value, g_free);
  value = prs_secrets_lookup_sync (two, PRS_SECRET_API_TOKEN, NULL, &error);
  g_assert_cmpstr (value, ==, "token-two");
  g_clear_pointer (&value, g_free);

  g_assert_true (prs_secrets_clear_sync (two, PRS_SECRET_API_TOKEN, NULL, &error));
  g_assert_no_error (error);
  value = prs_secrets_lookup_sync (one, PRS_SECRET_API_TOKEN, NULL, &error);
  g_assert_cmpstr (value, ==, "token-one");
  g_clear_pointer (&value, g_free);

  g_assert_true (prs_secrets_clear_sync (one, PRS_SECRET_API_TOKEN, NULL, &error));
  g_assert_no_error (error);

  assert_backend (one, fixture->data_dir);
  assert_backend (two, fixture->other_dir);
}

/* Runs @func with PROSPONSIVE_SECRETS set to @value (NULL: unset). */
static void
with_secrets_env (const char *value,
                  void      (*func) (Fixture *),
                  Fixture    *fixture)
{
  g_autofree char *saved = g_strdup (g_getenv ("PROSPONSIVE_SECRETS"));

  if (value != NULL)
    g_setenv ("PROSPONSIVE_SECRETS", value, TRUE);
  else
    g_unsetenv ("PROSPONSIVE_SECRETS");

  func (fixture);

  if (saved != NULL)
    g_setenv ("PROSPONSIVE_SECRETS", saved, TRUE);
  else
    g_unsetenv ("PROSPONSIVE_SECRETS");
}

static void
check_fallback_file (Fixture *fixture)
{
  g_autofree char *data_dir = g_build_filename (fixture->dir, "fresh", "data", NULL);
  g_autofree char *path = dup_fallback_path (data_dir);
  g_autoptr(PrsSecrets) secrets = prs_secrets_new (data_dir);
  g_autoptr(PrsSecrets) reader = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *contents = NULL;
  g_autofree char *value = NULL;
  GStatBuf st;
  JsonObject *object;

  g_assert_true (prs_secrets_is_using_fallback (secrets));

  /* The folder does not exist yet: storing makes it, 0700. */
  g_assert_true (prs_secrets_store_sync (secrets, PRS_SECRET_N8N_API_KEY, NULL, "n8n-key",
                                         NULL, &error));
  g_assert_no_error (error);
  g_assert_true (prs_secrets_store_sync (secrets, PRS_SECRET_API_TOKEN, NULL, "api-token",
                                         NULL, &error));
  g_assert_no_error (error);

  g_assert_cmpint (g_stat (data_dir, &st), ==, 0);
  g_assert_cmpuint (st.st_mode & 0777, ==, 0700);
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_assert_cmpuint (st.st_mode & 0777, ==, 0600);

  g_assert_true (g_file_get_contents (path, &contents, NULL, &error));
  root = json_from_string (contents, &error);
  g_assert_no_error (error);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (root));
  object = json_node_get_object (root);
  g_assert_cmpuint (json_object_get_size (object), ==, 2);
  g_assert_cmpstr (json_object_get_string_member (object, PRS_SECRET_N8N_API_KEY), ==, "n8n-key");
  g_assert_cmpstr (json_object_get_string_member (object, PRS_SECRET_API_TOKEN), ==, "api-token");

  /* A new object reads the file back. */
  reader = prs_secrets_new (data_dir);
  value = prs_secrets_lookup_sync (reader, PRS_SECRET_API_TOKEN, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (value, ==, "api-token");
  g_clear_pointer (&value, g_free);

  g_assert_true (prs_secrets_clear_sync (reader, PRS_SECRET_API_TOKEN, NULL, &error));
  g_assert_no_error (error);
  value = prs_secrets_lookup_sync (secrets, PRS_SECRET_API_TOKEN, NULL, &error);
  g_assert_no_error (error);
  g_assert_null (value);
  value = prs_secrets_lookup_sync (secrets, PRS_SECRET_N8N_API_KEY, NULL, &error);
  g_assert_cmpstr (value, ==, "n8n-key");
  g_clear_pointer (&value, g_free);

  /* Rewritten files stay 0600 and no temporary file is left behind. */
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_assert_cmpuint (st.st_mode & 0777, ==, 0600);
  {
    g_autoptr(GDir) dir = g_dir_open (data_dir, 0, NULL);
    const char *name;
    guint n = 0;

    /* The file, and the stamp that tells others a secret changed */
    while ((name = g_dir_read_name (dir)) != NULL)
      if (!g_str_equal (name, PRS_SECRETS_STAMP_FILE))
        n++;
    g_assert_cmpuint (n, ==, 1);
  }

  /* A damaged file is an error, never a crash, and quotes no content. */
  g_assert_true (g_file_set_contents (path, "{\"api-token\": \"sec", -1, NULL));
  value = prs_secrets_lookup_sync (reader, PRS_SECRET_API_TOKEN, NULL, &error);
  g_assert_null (value);
  g_assert_error (error, PRS_ERROR, PRS_ERROR_SECRETS);
  g_assert_null (strstr (error->message, "sec\""));
}

/* The fallback file, in both runs (forced with PROSPONSIVE_SECRETS=file). */
static void
test_fallback_file (Fixture       *fixture,
                    gconstpointer  user_data)
{
  with_secrets_env ("file", check_fallback_file, fixture);
}

static void
count_messages (const char     *log_domain,
                GLogLevelFlags  log_level,
                const char     *message,
                gpointer        user_data)
{
  guint *count = user_data;

  if (strstr (message, "No Secret Service answered") != NULL)
    (*count)++;
}

static void
check_no_service (Fixture *fixture)
{
  g_autoptr(PrsSecrets) secrets = prs_secrets_new (fixture->data_dir);
  g_autoptr(GError) error = NULL;
  g_autofree char *path = dup_fallback_path (fixture->data_dir);
  g_autofree char *value = NULL;
  guint count = 0;
  guint handler;

  g_assert_false (prs_secrets_is_using_fallback (secrets));

  handler = g_log_set_handler ("Prosponsive", G_LOG_LEVEL_MESSAGE, count_messages, &count);

  g_assert_true (prs_secrets_store_sync (secrets, PRS_SECRET_API_TOKEN, NULL, "t0ken",
                                         NULL, &error));
  g_assert_no_error (error);
  g_assert_true (prs_secrets_is_using_fallback (secrets));

  value = prs_secrets_lookup_sync (secrets, PRS_SECRET_API_TOKEN, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (value, ==, "t0ken");
  g_assert_true (prs_secrets_clear_sync (secrets, PRS_SECRET_API_TOKEN, NULL, &error));
  g_assert_no_error (error);

  g_log_remove_handler ("Prosponsive", handler);

  /* One notice per object, however many calls. */
  g_assert_cmpuint (count, ==, 1);
  g_assert_true (g_file_test (path, G_FILE_TEST_EXISTS));
}

/* No session bus at all: the keyring calls fail and the file takes over.
 * Only in the file run: there the process has not yet connected to any bus. */
static void
test_no_secret_service (Fixture       *fixture,
                        gconstpointer  user_data)
{
  g_autofree char *saved_bus = g_strdup (g_getenv ("DBUS_SESSION_BUS_ADDRESS"));
  g_autofree char *bus = g_strdup_printf ("unix:path=%s/no-such-bus", fixture->dir);

  if (keyring_expected ())
    {
      g_test_skip ("The keyring run has a session bus");
      return;
    }

  g_setenv ("DBUS_SESSION_BUS_ADDRESS", bus, TRUE);
  with_secrets_env (NULL, check_no_service, fixture);

  if (saved_bus != NULL)
    g_setenv ("DBUS_SESSION_BUS_ADDRESS", saved_bus, TRUE);
  else
    g_unsetenv ("DBUS_SESSION_BUS_ADDRESS");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_message ("Backend under test: %s",
                  keyring_expected () ? "the keyring (Secret Service)" : "the fallback file");

#define ADD(path, func) \
  g_test_add ("/prs/secrets/" path, Fixture, NULL, fixture_setup, func, fixture_teardown)

  ADD ("round-trip", test_round_trip);
  ADD ("missing", test_missing);
  ADD ("data-dirs-do-not-share", test_data_dirs_do_not_share);
  ADD ("fallback-file", test_fallback_file);
  ADD ("no-secret-service", test_no_secret_service);
  ADD ("async-round-trip", test_async_round_trip);
  ADD ("kept-until-changed", test_kept_until_changed);
  ADD ("hold", test_hold);

#undef ADD

  return g_test_run ();
}
