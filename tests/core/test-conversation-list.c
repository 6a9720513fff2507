/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Tests for prs-conversation-list.c: the list follows the store row by row,
 * with one items-changed per main loop turn for the range that changed,
 * and stays in the store's order. */
#include <string.h>
#include <glib/gstdio.h>

#include "prs-conversation-list.h"
#include "prs-error.h"
#include "prs-test-util.h"

typedef struct
{
  char                *dir;
  PrsStore            *store;
  PrsConversationList *list;
  GArray              *signals;   /* Change */
} Fixture;

typedef struct
{
  guint position;
  guint removed;
  guint added;
} Change;

static void
on_items_changed (GListModel *model,
                  guint       position,
                  guint       removed,
                  guint       added,
                  Fixture    *f)
{
  Change change = { position, removed, added };

  g_array_append_val (f->signals, change);
}

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;

  f->dir = g_dir_make_tmp ("prs-test-conversation-list-XXXXXX", &error);
  g_assert_no_error (error);
  path = g_build_filename (f->dir, "prosponsive.db", NULL);
  f->store = prs_store_new_for_path (path, &error);
  g_assert_no_error (error);
  f->signals = g_array_new (FALSE, FALSE, sizeof (Change));
}

static void
open_list (Fixture *f)
{
  f->list = prs_conversation_list_new (f->store);
  g_signal_connect (f->list, "items-changed", G_CALLBACK (on_items_changed), f);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  if (f->list != NULL)
    g_assert_finalize_object (f->list);
  g_clear_object (&f->store);
  g_array_unref (f->signals);
  prs_test_remove_tree (f->dir);
  g_free (f->dir);
}

static char *
create (Fixture    *f,
        const char *slug)
{
  return prs_test_resolve_conversation (f->store, slug);
}

static void
add_message (Fixture    *f,
             const char *conversation_id)
{
  g_autoptr(GError) error = NULL;
  PrsMessageInsert insert = { 0 };

  insert.conversation_id = conversation_id;
  insert.kind = "user";
  insert.content = "hello";
  g_assert_true (prs_store_insert_message (f->store, &insert, NULL, NULL, &error));
  g_assert_no_error (error);
}

/* Timestamps have milliseconds: what follows is strictly newer. */
static void
next_millisecond (void)
{
  g_usleep (2000);
}

/* Runs the main context until nothing is pending (the flush included). */
static void
run_turn (void)
{
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

/* The model holds the store's rows in the store's order. */
static void
assert_same_as_store (Fixture *f)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonArray) rows = prs_store_list_conversations (f->store, &error);
  GListModel *model = G_LIST_MODEL (f->list);

  g_assert_no_error (error);
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, json_array_get_length (rows));
  for (guint i = 0; i < json_array_get_length (rows); i++)
    {
      JsonObject *row = json_array_get_object_element (rows, i);
      g_autoptr(PrsConversation) item = g_list_model_get_item (model, i);
      guint position = G_MAXUINT;

      g_assert_cmpstr (prs_conversation_get_id (item), ==, json_object_get_string_member (row, "id"));
      g_assert_cmpuint (prs_conversation_get_message_count (item), ==,
                        json_object_get_int_member (row, "messageCount"));
      g_assert_true (prs_conversation_list_find (f->list, prs_conversation_get_id (item), &position) == item);
      g_assert_cmpuint (position, ==, i);
    }
}

static void
assert_signal (Fixture *f,
               guint    index,
               guint    position,
               guint    removed,
               guint    added)
{
  Change *change;

  g_assert_cmpuint (index, <, f->signals->len);
  change = &g_array_index (f->signals, Change, index);
  g_assert_cmpuint (change->position, ==, position);
  g_assert_cmpuint (change->removed, ==, removed);
  g_assert_cmpuint (change->added, ==, added);
}

/* N new conversations announced in one main loop turn: one signal that
 * adds exactly them, at the top. */
static void
test_queued_inserts_coalesce (Fixture       *f,
                              gconstpointer  data)
{
  g_autoptr(GPtrArray) fresh = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; i < 100; i++)
    {
      g_autofree char *slug = g_strdup_printf ("old-%u", i);
      g_autofree char *id = create (f, slug);
    }
  open_list (f);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (f->list)), ==, 100);
  next_millisecond ();

  for (guint i = 0; i < 50; i++)
    {
      g_autofree char *slug = g_strdup_printf ("new-%u", i);

      g_ptr_array_add (fresh, create (f, slug));
      prs_conversation_list_queue_update (f->list, g_ptr_array_index (fresh, i));
      /* The same id twice in a turn is one change */
      prs_conversation_list_queue_update (f->list, g_ptr_array_index (fresh, i));
    }
  /* Nothing until the main loop turns */
  g_assert_cmpuint (f->signals->len, ==, 0);
  run_turn ();

  g_assert_cmpuint (f->signals->len, ==, 1);
  assert_signal (f, 0, 0, 0, 50);
  assert_same_as_store (f);
}

/* The same N inserts a turn each: N signals, each adding one row at its
 * exact place. */
static void
test_separate_inserts (Fixture       *f,
                       gconstpointer  data)
{
  const guint n = 200;

  open_list (f);
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *slug = g_strdup_printf ("c-%u", i);
      g_autofree char *id = NULL;

      next_millisecond ();
      id = create (f, slug);
      prs_conversation_list_queue_update (f->list, id);
      run_turn ();
      g_assert_cmpuint (f->signals->len, ==, i + 1);
      assert_signal (f, i, 0, 0, 1);
    }
  assert_same_as_store (f);
}

static void
count_notify (GObject    *object,
              GParamSpec *pspec,
              guint      *count)
{
  (*count)++;
}

/* A message moves its conversation to the top: one signal over the range
 * it crossed (so a selection follows it); one in the top row changes
 * nothing but the row's own properties. */
static void
test_message_moves_one_row (Fixture       *f,
                            gconstpointer  data)
{
  g_autoptr(GPtrArray) ids = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(PrsConversation) top = NULL;
  PrsConversation *moved;
  guint notified = 0;

  for (guint i = 0; i < 30; i++)
    {
      g_autofree char *slug = g_strdup_printf ("c-%u", i);

      next_millisecond ();
      g_ptr_array_add (ids, create (f, slug));
    }
  open_list (f);
  /* Newest first: ids[0] is at the bottom, position 29; ids[20] at 9 */
  moved = prs_conversation_list_find (f->list, g_ptr_array_index (ids, 20), NULL);
  g_signal_connect (moved, "notify::message-count", G_CALLBACK (count_notify), &notified);

  next_millisecond ();
  add_message (f, g_ptr_array_index (ids, 20));
  prs_conversation_list_queue_update (f->list, g_ptr_array_index (ids, 20));
  run_turn ();
  g_assert_cmpuint (f->signals->len, ==, 1);
  assert_signal (f, 0, 0, 10, 10);
  g_assert_cmpuint (notified, ==, 1);
  top = g_list_model_get_item (G_LIST_MODEL (f->list), 0);
  g_assert_true (top == moved);
  g_assert_cmpuint (prs_conversation_get_unread_count (moved), ==, 1);
  assert_same_as_store (f);

  /* Again, now that it is on top: no signal */
  next_millisecond ();
  add_message (f, g_ptr_array_index (ids, 20));
  prs_conversation_list_queue_update (f->list, g_ptr_array_index (ids, 20));
  run_turn ();
  g_assert_cmpuint (f->signals->len, ==, 1);
  g_assert_cmpuint (prs_conversation_get_message_count (moved), ==, 2);

  /* Read: the count changes, the place does not */
  g_assert_true (prs_conversation_list_mark_read (f->list, moved, NULL));
  g_assert_cmpuint (prs_conversation_get_unread_count (moved), ==, 0);
  g_assert_cmpuint (f->signals->len, ==, 1);
  assert_same_as_store (f);
}

/* Random batches of new conversations and messages, each flushed in one
 * turn: the order is always the store's, one signal per turn at most. */
static void
test_random_batches (Fixture       *f,
                     gconstpointer  data)
{
  g_autoptr(GPtrArray) ids = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GRand) rand = g_rand_new_with_seed (12);
  guint created = 0;

  for (guint i = 0; i < 40; i++)
    {
      g_autofree char *slug = g_strdup_printf ("seed-%u", i);

      g_ptr_array_add (ids, create (f, slug));
    }
  open_list (f);

  for (guint round = 0; round < 40; round++)
    {
      guint before = f->signals->len;
      guint n = g_rand_int_range (rand, 1, 8);

      for (guint k = 0; k < n; k++)
        {
          if (g_rand_boolean (rand))
            {
              g_autofree char *slug = g_strdup_printf ("new-%u", created++);

              g_ptr_array_add (ids, create (f, slug));
              prs_conversation_list_queue_update (f->list, g_ptr_array_index (ids, ids->len - 1));
            }
          else
            {
              const char *id = g_ptr_array_index (ids, g_rand_int_range (rand, 0, ids->len));

              add_message (f, id);
              prs_conversation_list_queue_update (f->list, id);
            }
        }
      run_turn ();
      g_assert_cmpuint (f->signals->len - before, <=, 1);
      assert_same_as_store (f);
    }
}

/* The window's own changes apply at once (rename, resolve). */
static void
test_direct_updates (Fixture       *f,
                     gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  PrsConversation *conversation;

  open_list (f);
  conversation = prs_conversation_list_resolve (f->list, "typed-in-the-window", &error);
  g_assert_no_error (error);
  g_assert_nonnull (conversation);
  g_assert_cmpuint (f->signals->len, ==, 1);
  assert_signal (f, 0, 0, 0, 1);

  g_assert_true (prs_conversation_list_rename (f->list, conversation, "Renamed", &error));
  g_assert_no_error (error);
  g_assert_cmpstr (prs_conversation_get_title (conversation), ==, "Renamed");
  /* Resolving it again finds the same object */
  g_assert_true (prs_conversation_list_resolve (f->list, "typed-in-the-window", NULL) == conversation);
  assert_same_as_store (f);
}

static PrsConversation *
item_at (Fixture *f,
         guint    position)
{
  g_autoptr(PrsConversation) item = g_list_model_get_item (G_LIST_MODEL (f->list), position);

  return item;  /* the list keeps it */
}

static const char *
slug_at (Fixture *f,
         guint    position)
{
  return prs_conversation_get_slug (item_at (f, position));
}

/* Pin, archive, show archived, delete, undo: each one items-changed for
 * the range that changed, and the order stays the store's */
static void
test_keeping_in_order (Fixture       *f,
                       gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *c0 = NULL, *c1 = NULL, *c2 = NULL, *c3 = NULL, *c4 = NULL;
  const char *gone[3] = { NULL, NULL, NULL };

  c0 = create (f, "c0"); next_millisecond ();
  c1 = create (f, "c1"); next_millisecond ();
  c2 = create (f, "c2"); next_millisecond ();
  c3 = create (f, "c3"); next_millisecond ();
  c4 = create (f, "c4");
  open_list (f);
  g_assert_cmpstr (slug_at (f, 0), ==, "c4");

  /* Pinned: to the top, one change over the range it moved across */
  g_assert_true (prs_conversation_list_set_pinned (f->list, item_at (f, 2), TRUE, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (f->signals->len, ==, 1);
  assert_signal (f, 0, 0, 3, 3);
  g_assert_cmpstr (slug_at (f, 0), ==, "c2");
  g_assert_true (prs_conversation_get_pinned (item_at (f, 0)));
  assert_same_as_store (f);

  /* A rename moves nothing: no items-changed, the item notifies */
  g_assert_true (prs_conversation_list_rename (f->list, item_at (f, 0), "Pinned one", &error));
  g_assert_cmpuint (f->signals->len, ==, 1);

  /* Archived: out of the list */
  g_assert_true (prs_conversation_list_set_archived (f->list, item_at (f, 2), TRUE, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (f->signals->len, ==, 2);
  assert_signal (f, 1, 2, 1, 0);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (f->list)), ==, 4);

  /* Shown again, last */
  g_assert_true (prs_conversation_list_set_show_archived (f->list, TRUE, &error));
  g_assert_cmpuint (f->signals->len, ==, 3);
  assert_signal (f, 2, 4, 0, 1);
  g_assert_cmpstr (slug_at (f, 4), ==, "c3");
  g_assert_true (prs_conversation_get_archived (item_at (f, 4)));
  assert_same_as_store (f);

  /* Two deleted at once: one change */
  gone[0] = c4;
  gone[1] = c1;
  g_assert_true (prs_conversation_list_delete (f->list, gone, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (f->signals->len, ==, 4);
  assert_signal (f, 3, 1, 2, 0);
  assert_same_as_store (f);
  g_assert_null (prs_conversation_list_find (f->list, c4, NULL));

  /* Undo: back where they were */
  g_assert_true (prs_conversation_list_restore (f->list, gone, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (f->signals->len, ==, 5);
  assert_signal (f, 4, 1, 0, 2);
  g_assert_cmpstr (slug_at (f, 1), ==, "c4");
  assert_same_as_store (f);

  /* Unpinned: back among the others by time */
  g_assert_true (prs_conversation_list_set_pinned (f->list, item_at (f, 0), FALSE, &error));
  g_assert_cmpstr (slug_at (f, 0), ==, "c4");
  g_assert_cmpstr (slug_at (f, 1), ==, "c2");
  assert_same_as_store (f);
}

/* Activation's refresh reads the store again only when another connection
 * (prosponsive-ctl, the API thread) wrote since the list was read */
static void
test_refresh_after_other_connection (Fixture       *f,
                                     gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *a = create (f, "a");
  g_autofree char *b = create (f, "b");
  g_autofree char *path = g_build_filename (f->dir, "prosponsive.db", NULL);
  g_autoptr(PrsStore) other = NULL;
  PrsConversation *item;

  open_list (f);
  item = prs_conversation_list_find (f->list, a, NULL);
  g_assert_nonnull (item);

  /* Nothing written: nothing read, nothing announced */
  g_assert_true (prs_conversation_list_refresh (f->list, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (f->signals->len, ==, 0);

  /* Its own connection's writes are announced to it (queue_update), not
   * looked for */
  g_assert_true (prs_store_rename_conversation (f->store, b, "Renamed here", &error));
  g_assert_no_error (error);
  g_assert_true (prs_conversation_list_refresh (f->list, &error));
  g_assert_cmpstr (prs_conversation_get_title (prs_conversation_list_find (f->list, b, NULL)), ==, "b");

  /* Another connection renames: the refresh reads it, in place */
  other = prs_store_new_for_path (path, &error);
  g_assert_no_error (error);
  g_assert_true (prs_store_rename_conversation (other, a, "Renamed elsewhere", &error));
  g_assert_no_error (error);
  g_assert_true (prs_conversation_list_refresh (f->list, &error));
  g_assert_no_error (error);
  g_assert_true (prs_conversation_list_find (f->list, a, NULL) == item);
  g_assert_cmpstr (prs_conversation_get_title (item), ==, "Renamed elsewhere");
  g_assert_cmpstr (prs_conversation_get_title (prs_conversation_list_find (f->list, b, NULL)), ==, "Renamed here");
  assert_same_as_store (f);

  /* And once read, not again */
  g_array_set_size (f->signals, 0);
  g_assert_true (prs_conversation_list_refresh (f->list, &error));
  g_assert_cmpuint (f->signals->len, ==, 0);
}

/* What the window's Rename sends: one line of at most 200 characters
 * (docs/conversations.md), refused in words otherwise, nothing changed.
 * New Conversation keeps the API's rules for a slug (docs/api.md): any
 * character, 200 at most. */
static void
test_names_checked (Fixture       *f,
                    gconstpointer  data)
{
  static const char * const bad[] = { "Evil\x1b[2J", "two\nlines", "c1\xc2\x9b", "tab\there",
                                      "sep\xe2\x80\xa8x", NULL };
  g_autofree char *a = create (f, "a");
  g_autofree char *long_name = g_strnfill (201, 'n');
  g_autofree char *longest = g_strnfill (199, 'n');
  g_autofree char *longest_title = g_strconcat ("ü", longest, NULL);
  PrsConversation *item;

  open_list (f);
  item = prs_conversation_list_find (f->list, a, NULL);
  for (guint i = 0; i <= g_strv_length ((char **) bad); i++)
    {
      const char *name = bad[i] != NULL ? bad[i] : long_name;
      g_autoptr(GError) rename_error = NULL;
      g_autoptr(GError) resolve_error = NULL;

      g_assert_false (prs_conversation_list_rename (f->list, item, name, &rename_error));
      g_assert_error (rename_error, PRS_ERROR, PRS_ERROR_INVALID_INPUT);
      g_assert_nonnull (strstr (rename_error->message, "one line of at most 200 characters"));
      if (bad[i] == NULL)
        {
          g_assert_null (prs_conversation_list_resolve (f->list, name, &resolve_error));
          g_assert_error (resolve_error, PRS_ERROR, PRS_ERROR_INVALID_INPUT);
          g_assert_nonnull (strstr (resolve_error->message, "at most 200 characters"));
        }
    }
  g_assert_cmpstr (prs_conversation_get_title (item), ==, "a");
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (f->list)), ==, 1);
  {
    g_autoptr(GError) error = NULL;
    PrsConversation *tabbed = prs_conversation_list_resolve (f->list, "Re: Q3\tPlanning", &error);

    g_assert_no_error (error);
    g_assert_nonnull (tabbed);
    g_assert_cmpstr (prs_conversation_get_slug (tabbed), ==, "Re: Q3\tPlanning");
  }
  {
    g_autoptr(GError) error = NULL;

    g_assert_true (prs_conversation_list_rename (f->list, item, longest_title, &error));
    g_assert_no_error (error);
    g_assert_cmpstr (prs_conversation_get_title (item), ==, longest_title);
  }
}

/* The time of the last change is the store's, in local time, read when
 * first asked for; a newer one replaces it and is announced */
static void
test_updated_at (Fixture       *f,
                 gconstpointer  data)
{
  g_autofree char *a = create (f, "a");
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) row = NULL;
  g_autoptr(GDateTime) utc = NULL;
  g_autoptr(GDateTime) local = NULL;
  PrsConversation *item;
  GDateTime *first;

  open_list (f);
  item = prs_conversation_list_find (f->list, a, NULL);
  row = prs_store_get_conversation (f->store, a, &error);
  g_assert_no_error (error);
  utc = g_date_time_new_from_iso8601 (json_object_get_string_member (row, "updatedAt"), NULL);
  first = prs_conversation_get_updated_at (item);
  g_assert_nonnull (first);
  g_assert_true (g_date_time_equal (first, utc));
  local = g_date_time_to_local (utc);
  g_assert_cmpint (g_date_time_get_utc_offset (first), ==, g_date_time_get_utc_offset (local));
  g_assert_true (prs_conversation_get_updated_at (item) == first);
  g_signal_connect_swapped (item, "notify::updated-at", G_CALLBACK (g_nullify_pointer), &first);

  next_millisecond ();
  add_message (f, a);
  g_assert_true (prs_conversation_list_update (f->list, a, &error));
  g_assert_no_error (error);
  g_assert_null (first);
  g_assert_true (g_date_time_compare (prs_conversation_get_updated_at (item), utc) > 0);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) g_test_add (path, Fixture, NULL, fixture_setup, func, fixture_teardown)
  ADD ("/conversation-list/queued-inserts-coalesce", test_queued_inserts_coalesce);
  ADD ("/conversation-list/separate-inserts", test_separate_inserts);
  ADD ("/conversation-list/message-moves-one-row", test_message_moves_one_row);
  ADD ("/conversation-list/random-batches", test_random_batches);
  ADD ("/conversation-list/direct-updates", test_direct_updates);
  ADD ("/conversation-list/keeping-in-order", test_keeping_in_order);
  ADD ("/conversation-list/refresh-after-other-connection", test_refresh_after_other_connection);
  ADD ("/conversation-list/updated-at", test_updated_at);
  ADD ("/conversation-list/names-checked", test_names_checked);
#undef ADD

  return g_test_run ();
}
