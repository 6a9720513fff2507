/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Tests for prs-paths.c and the files of the data folder: a folder the user
 * owns but others may use is made private (and the log says so); another
 * user's folder, a folder under one everyone may change, and planted links,
 * FIFOs, hard links or other users' files are refused with the path named —
 * for secrets.json, the token stamp, the TLS key and the instance lock too.
 * The cases about another user need root (chown, setuid) and skip
 * otherwise. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <glib/gstdio.h>

#include "prs-api-port.h"
#include "prs-api-token.h"
#include "prs-error.h"
#include "prs-paths.h"
#include "prs-secrets.h"
#include "prs-service.h"
#include "prs-tls.h"
#include "prs-test-util.h"

/* Who the other user is (nobody on Debian) */
#define OTHER_UID 65534
#define OTHER_GID 65534

#define CORE_LOG_DOMAIN "Prosponsive"

typedef struct
{
  char *dir;        /* a private temporary folder */
  char *data_dir;   /* DIR/data, not made yet */
} Fixture;

static void
fixture_setup (Fixture       *fixture,
               gconstpointer  user_data)
{
  g_autoptr(GError) error = NULL;

  fixture->dir = g_dir_make_tmp ("prs-test-paths-XXXXXX", &error);
  g_assert_no_error (error);
  fixture->data_dir = g_build_filename (fixture->dir, "data", NULL);
}

static void
fixture_teardown (Fixture       *fixture,
                  gconstpointer  user_data)
{
  prs_test_remove_tree (fixture->dir);
  g_free (fixture->dir);
  g_free (fixture->data_dir);
}

static gboolean
need_root (void)
{
  if (geteuid () == 0)
    return TRUE;
  g_test_skip ("making a file another user's needs root");
  return FALSE;
}

static guint
path_mode (const char *path)
{
  GStatBuf st;

  g_assert_cmpint (g_lstat (path, &st), ==, 0);
  return st.st_mode & 07777;
}

static char *
data_file (Fixture    *fixture,
           const char *name)
{
  return g_build_filename (fixture->data_dir, name, NULL);
}

static void
write_file (const char *path,
            const char *contents)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (g_file_set_contents (path, contents, -1, &error));
  g_assert_no_error (error);
}

static void
assert_unsafe (const GError *error,
               const char   *path)
{
  g_assert_error (error, PRS_ERROR, PRS_ERROR_UNSAFE_PATH);
  g_assert_nonnull (strstr (error->message, path));
}

/* Runs @code in a child process as the other user; returns its exit code
 * (0: the child could write where it should not). */
static int
as_other_user (void (*code) (const char *), const char *arg)
{
  int status = 0;
  pid_t pid = fork ();

  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    {
      if (setgid (OTHER_GID) != 0 || setuid (OTHER_UID) != 0)
        _exit (99);
      code (arg);
      _exit (0);
    }
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_assert_true (WIFEXITED (status));
  return WEXITSTATUS (status);
}

/* ---- the folder ------------------------------------------------------------ */

static void
test_folder_created_private (Fixture       *fixture,
                             gconstpointer  user_data)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (prs_paths_ensure_data_dir (fixture->data_dir, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (path_mode (fixture->data_dir), ==, 0700);
}

static void
test_folder_too_open_tightened (Fixture       *fixture,
                                gconstpointer  user_data)
{
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (g_mkdir (fixture->data_dir, 0700), ==, 0);
  g_assert_cmpint (g_chmod (fixture->data_dir, 0777), ==, 0);

  g_test_expect_message (CORE_LOG_DOMAIN, G_LOG_LEVEL_MESSAGE, "*data folder*open to other users*0700*");
  g_assert_true (prs_paths_ensure_data_dir (fixture->data_dir, &error));
  g_test_assert_expected_messages ();
  g_assert_no_error (error);
  g_assert_cmpuint (path_mode (fixture->data_dir), ==, 0700);
}

static void
try_plant_file (const char *data_dir)
{
  g_autofree char *path = g_build_filename (data_dir, "secrets.json", NULL);
  int fd = open (path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

  _exit (fd >= 0 ? 0 : 1);
}

/* The red team's way in: another local user wrote into a 0777 data folder */
static void
test_folder_other_user_locked_out (Fixture       *fixture,
                                   gconstpointer  user_data)
{
  g_autoptr(GError) error = NULL;

  if (!need_root ())
    return;

  g_assert_cmpint (g_mkdir (fixture->data_dir, 0777), ==, 0);
  g_assert_cmpint (g_chmod (fixture->data_dir, 0777), ==, 0);
  g_assert_cmpint (g_chmod (fixture->dir, 0755), ==, 0);
  g_test_expect_message (CORE_LOG_DOMAIN, G_LOG_LEVEL_MESSAGE, "*open to other users*");
  g_assert_true (prs_paths_ensure_data_dir (fixture->data_dir, &error));
  g_test_assert_expected_messages ();
  g_assert_no_error (error);

  g_assert_cmpint (as_other_user (try_plant_file, fixture->data_dir), ==, 1);
}

static void
test_folder_of_another_user (Fixture       *fixture,
                             gconstpointer  user_data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsStore) store = NULL;

  if (!need_root ())
    return;

  g_assert_cmpint (g_mkdir (fixture->data_dir, 0700), ==, 0);
  g_assert_cmpint (chown (fixture->data_dir, OTHER_UID, OTHER_GID), ==, 0);

  g_assert_false (prs_paths_ensure_data_dir (fixture->data_dir, &error));
  assert_unsafe (error, fixture->data_dir);
  g_assert_nonnull (strstr (error->message, "another user"));
  g_clear_error (&error);

  /* Every way in checks it: the store, for one */
  store = prs_store_new (fixture->data_dir, &error);
  g_assert_null (store);
  assert_unsafe (error, fixture->data_dir);
  g_assert_cmpuint (path_mode (fixture->data_dir), ==, 0700);
}

static void
test_folder_under_world_writable (Fixture       *fixture,
                                  gconstpointer  user_data)
{
  g_autofree char *shared = g_build_filename (fixture->dir, "shared", NULL);
  g_autofree char *data_dir = g_build_filename (shared, "data", NULL);
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (g_mkdir (shared, 0700), ==, 0);
  g_assert_cmpint (g_chmod (shared, 0777), ==, 0);
  g_assert_false (prs_paths_ensure_data_dir (data_dir, &error));
  assert_unsafe (error, shared);
  g_clear_error (&error);
  /* Refused before anything is made: no empty folder left behind */
  g_assert_false (g_file_test (data_dir, G_FILE_TEST_EXISTS));

  /* Sticky, as /tmp is: nobody can rename another's entry */
  g_assert_cmpint (g_chmod (shared, 01777), ==, 0);
  g_assert_true (prs_paths_ensure_data_dir (data_dir, &error));
  g_assert_no_error (error);
}

/* ---- files ----------------------------------------------------------------- */

static void
test_file_symlink_refused (Fixture       *fixture,
                           gconstpointer  user_data)
{
  g_autofree char *target = g_build_filename (fixture->dir, "elsewhere", NULL);
  g_autofree char *link = NULL;
  g_autoptr(GError) error = NULL;
  int fd;

  g_assert_true (prs_paths_ensure_data_dir (fixture->data_dir, NULL));
  link = data_file (fixture, "secrets.json");
  write_file (target, "{}");
  g_assert_cmpint (g_chmod (target, 0644), ==, 0);
  g_assert_cmpint (symlink (target, link), ==, 0);

  g_assert_false (prs_paths_check_file (link, &error));
  assert_unsafe (error, link);
  g_clear_error (&error);

  fd = prs_paths_open_file (link, O_RDONLY, &error);
  g_assert_cmpint (fd, ==, -1);
  assert_unsafe (error, link);
  g_assert_nonnull (strstr (error->message, "symbolic link"));
  g_clear_error (&error);

  /* Not even created through a dangling one */
  g_assert_cmpint (g_unlink (target), ==, 0);
  fd = prs_paths_open_file (link, O_RDWR | O_CREAT, &error);
  g_assert_cmpint (fd, ==, -1);
  assert_unsafe (error, link);
  g_assert_false (g_file_test (target, G_FILE_TEST_EXISTS));
}

static void
test_file_of_another_user_refused (Fixture       *fixture,
                                   gconstpointer  user_data)
{
  g_autofree char *path = data_file (fixture, "secrets.json");
  g_autoptr(GError) error = NULL;
  char *contents = NULL;

  if (!need_root ())
    return;

  g_assert_true (prs_paths_ensure_data_dir (fixture->data_dir, NULL));
  write_file (path, "{}");
  g_assert_cmpint (chown (path, OTHER_UID, OTHER_GID), ==, 0);

  g_assert_false (prs_paths_check_file (path, &error));
  assert_unsafe (error, path);
  g_clear_error (&error);
  g_assert_false (prs_paths_read_file (path, 1024, &contents, NULL, &error));
  assert_unsafe (error, path);
  g_assert_nonnull (strstr (error->message, "another user"));
}

static void
test_file_fifo_and_links_refused (Fixture       *fixture,
                                  gconstpointer  user_data)
{
  g_autofree char *fifo = NULL;
  g_autofree char *file = NULL;
  g_autofree char *other_name = g_build_filename (fixture->dir, "other-name", NULL);
  g_autoptr(GError) error = NULL;

  g_assert_true (prs_paths_ensure_data_dir (fixture->data_dir, NULL));
  fifo = data_file (fixture, "api-token.stamp");
  file = data_file (fixture, "tls-key.pem");

  /* A FIFO would hang a plain open(); it must be refused at once */
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  g_assert_cmpint (prs_paths_open_file (fifo, O_RDONLY, &error), ==, -1);
  assert_unsafe (error, fifo);
  g_clear_error (&error);

  write_file (file, "key");
  g_assert_cmpint (link (file, other_name), ==, 0);
  g_assert_false (prs_paths_check_file (file, &error));
  assert_unsafe (error, file);
  g_assert_nonnull (strstr (error->message, "hard links"));
}

static void
test_file_too_open_tightened (Fixture       *fixture,
                              gconstpointer  user_data)
{
  g_autofree char *path = NULL;
  g_autofree char *contents = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_true (prs_paths_ensure_data_dir (fixture->data_dir, NULL));
  path = data_file (fixture, "tls-cert.pem");
  write_file (path, "certificate");
  g_assert_cmpint (g_chmod (path, 0664), ==, 0);

  g_test_expect_message (CORE_LOG_DOMAIN, G_LOG_LEVEL_MESSAGE, "*tls-cert.pem*open to other users*0600*");
  g_assert_true (prs_paths_read_file (path, 1024, &contents, NULL, &error));
  g_test_assert_expected_messages ();
  g_assert_no_error (error);
  g_assert_cmpstr (contents, ==, "certificate");
  g_assert_cmpuint (path_mode (path), ==, 0600);

  /* A file too large for what it should be is not read whole */
  g_clear_pointer (&contents, g_free);
  g_assert_false (prs_paths_read_file (path, 4, &contents, NULL, &error));
  assert_unsafe (error, path);
}

/* ---- what uses them -------------------------------------------------------- */

static void
replace_secrets (const char *data_dir)
{
  g_autofree char *path = g_build_filename (data_dir, "secrets.json", NULL);
  g_autofree char *stamp = g_build_filename (data_dir, "api-token.stamp", NULL);

  if (!g_file_set_contents (path, "{\"api-token\":\"attacker\"}", -1, NULL) ||
      !g_file_set_contents (stamp, "99\n", -1, NULL))
    _exit (1);
  _exit (0);
}

/* The red team's finding, end to end on the core: the folder was 0777, the
 * other user replaced secrets.json and the stamp, and the next request's
 * token check accepted their token. */
static void
test_token_not_replaceable (Fixture       *fixture,
                            gconstpointer  user_data)
{
  g_autoptr(PrsSecrets) secrets = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *token = NULL;
  PrsApiTokenWatch *watch;

  if (!need_root ())
    return;

  g_assert_cmpint (g_mkdir (fixture->data_dir, 0700), ==, 0);
  g_assert_cmpint (g_chmod (fixture->data_dir, 0777), ==, 0);
  g_assert_cmpint (g_chmod (fixture->dir, 0755), ==, 0);

  /* What the service does at start */
  g_test_expect_message (CORE_LOG_DOMAIN, G_LOG_LEVEL_MESSAGE, "*open to other users*");
  g_assert_true (prs_paths_ensure_data_dir (fixture->data_dir, &error));
  g_test_assert_expected_messages ();
  secrets = prs_secrets_new (fixture->data_dir);
  watch = prs_api_token_watch_new (secrets, fixture->data_dir, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (prs_api_token_ensure (secrets, fixture->data_dir, &token, &error));

  g_assert_cmpint (as_other_user (replace_secrets, fixture->data_dir), !=, 0);
  g_assert_false (prs_api_token_watch_check (watch, "attacker", strlen ("attacker")));
  g_assert_true (prs_api_token_watch_check (watch, token, strlen (token)));
  prs_api_token_watch_free (watch);
}

/* Planted before the app ever ran: refused, never used */
static void
test_planted_secrets_refused (Fixture       *fixture,
                              gconstpointer  user_data)
{
  g_autofree char *path = data_file (fixture, "secrets.json");
  g_autoptr(PrsSecrets) secrets = NULL;
  g_autoptr(GError) error = NULL;
  PrsApiTokenWatch *watch;

  if (!need_root ())
    return;

  g_assert_true (prs_paths_ensure_data_dir (fixture->data_dir, NULL));
  write_file (path, "{\"api-token\":\"attacker\"}");
  g_assert_cmpint (chown (path, OTHER_UID, OTHER_GID), ==, 0);

  secrets = prs_secrets_new (fixture->data_dir);
  watch = prs_api_token_watch_new (secrets, fixture->data_dir, NULL, &error);
  g_assert_null (watch);
  assert_unsafe (error, path);
}

static void
test_stamp_link_refused (Fixture       *fixture,
                         gconstpointer  user_data)
{
  g_autofree char *stamp = NULL;
  g_autoptr(PrsSecrets) secrets = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_true (prs_paths_ensure_data_dir (fixture->data_dir, NULL));
  stamp = data_file (fixture, "api-token.stamp");
  /* Read through the link, /dev/zero would never end */
  g_assert_cmpint (symlink ("/dev/zero", stamp), ==, 0);

  secrets = prs_secrets_new (fixture->data_dir);
  g_assert_false (prs_api_token_rotate (secrets, fixture->data_dir, NULL, &error));
  assert_unsafe (error, stamp);
}

static void
test_tls_key_link_refused (Fixture       *fixture,
                           gconstpointer  user_data)
{
  g_autofree char *target = g_build_filename (fixture->dir, "my-key.pem", NULL);
  g_autofree char *key = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GTlsCertificate) certificate = NULL;

  g_assert_true (prs_paths_ensure_data_dir (fixture->data_dir, NULL));
  key = data_file (fixture, PRS_TLS_KEY_FILE);
  write_file (target, "not ours to read");
  g_assert_cmpint (g_chmod (target, 0644), ==, 0);
  g_assert_cmpint (symlink (target, key), ==, 0);

  certificate = prs_tls_ensure_certificate (fixture->data_dir, &error);
  g_assert_null (certificate);
  assert_unsafe (error, key);
  /* The link's target was neither read into a key nor made 0600 */
  g_assert_cmpuint (path_mode (target), ==, 0644);
}

static void
test_instance_lock_link_refused (Fixture       *fixture,
                                 gconstpointer  user_data)
{
  g_autofree char *target = g_build_filename (fixture->dir, "important", NULL);
  g_autofree char *lock = NULL;
  g_autoptr(PrsService) service = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_true (prs_paths_ensure_data_dir (fixture->data_dir, NULL));
  lock = data_file (fixture, "instance.lock");
  g_assert_cmpint (symlink (target, lock), ==, 0);

  service = prs_service_new (fixture->data_dir, prs_test_free_port ());
  g_assert_false (prs_service_start (service, &error));
  assert_unsafe (error, lock);
  g_assert_false (g_file_test (target, G_FILE_TEST_EXISTS));
  prs_service_stop (service);
}

/* The published API port: private, whole, and believed only while a
 * service holds the instance lock */
static void
test_api_port_published (Fixture       *fixture,
                         gconstpointer  user_data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL, *lock = NULL, *contents = NULL, *target = NULL;
  int fd;

  g_assert_true (prs_paths_ensure_data_dir (fixture->data_dir, NULL));
  path = data_file (fixture, PRS_API_PORT_FILE);
  lock = data_file (fixture, PRS_INSTANCE_LOCK_FILE);
  g_assert_cmpuint (prs_api_port_read (fixture->data_dir), ==, 0);

  g_assert_true (prs_api_port_publish (fixture->data_dir, 43117, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (path_mode (path), ==, 0600);
  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "43117\n");

  /* Nobody holds the lock (a crash left the file): not believed */
  g_assert_cmpuint (prs_api_port_read (fixture->data_dir), ==, 0);
  fd = prs_paths_open_file (lock, O_RDWR | O_CREAT, &error);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpuint (prs_api_port_read (fixture->data_dir), ==, 0);

  /* A service holds it: the port is read, and the lock stays the service's */
  g_assert_cmpint (flock (fd, LOCK_EX | LOCK_NB), ==, 0);
  g_assert_cmpuint (prs_api_port_read (fixture->data_dir), ==, 43117);
  g_assert_cmpint (flock (fd, LOCK_EX | LOCK_NB), ==, 0);

  /* What is not a port, or not a private file of the folder, is ignored */
  write_file (path, "99999\n");
  g_assert_cmpuint (prs_api_port_read (fixture->data_dir), ==, 0);
  write_file (path, "80 443\n");
  g_assert_cmpuint (prs_api_port_read (fixture->data_dir), ==, 0);
  g_assert_cmpint (g_unlink (path), ==, 0);
  target = g_build_filename (fixture->dir, "elsewhere", NULL);
  write_file (target, "8080\n");
  g_assert_cmpint (g_chmod (target, 0600), ==, 0);
  g_assert_cmpint (symlink (target, path), ==, 0);
  g_assert_cmpuint (prs_api_port_read (fixture->data_dir), ==, 0);
  /* Never written through a link: the link itself is replaced */
  g_assert_true (prs_api_port_publish (fixture->data_dir, 43118, &error));
  g_assert_no_error (error);
  g_clear_pointer (&contents, g_free);
  g_assert_true (g_file_get_contents (target, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "8080\n");
  g_assert_cmpuint (path_mode (path), ==, 0600);
  g_assert_cmpuint (prs_api_port_read (fixture->data_dir), ==, 43118);

  /* Withdrawn: nothing left to read */
  prs_api_port_withdraw (fixture->data_dir);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS | G_FILE_TEST_IS_SYMLINK));
  g_assert_cmpuint (prs_api_port_read (fixture->data_dir), ==, 0);
  close (fd);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add ("/prs/paths/" path, Fixture, NULL, fixture_setup, func, fixture_teardown)

  ADD ("folder/created-private", test_folder_created_private);
  ADD ("folder/too-open-tightened", test_folder_too_open_tightened);
  ADD ("folder/other-user-locked-out", test_folder_other_user_locked_out);
  ADD ("folder/of-another-user", test_folder_of_another_user);
  ADD ("folder/under-world-writable", test_folder_under_world_writable);
  ADD ("file/symlink-refused", test_file_symlink_refused);
  ADD ("file/of-another-user-refused", test_file_of_another_user_refused);
  ADD ("file/fifo-and-links-refused", test_file_fifo_and_links_refused);
  ADD ("file/too-open-tightened", test_file_too_open_tightened);
  ADD ("token/not-replaceable", test_token_not_replaceable);
  ADD ("token/planted-secrets-refused", test_planted_secrets_refused);
  ADD ("token/stamp-link-refused", test_stamp_link_refused);
  ADD ("tls/key-link-refused", test_tls_key_link_refused);
  ADD ("service/instance-lock-link-refused", test_instance_lock_link_refused);
  ADD ("service/api-port-published", test_api_port_published);

#undef ADD

  return g_test_run ();
}
