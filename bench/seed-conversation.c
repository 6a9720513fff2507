/* SPDX-License-Identifier: GPL-3.0-or-later */
/* seed-conversation: a data folder with one conversation of N messages,
 * written through the store (its connection, schema, migrations and
 * prepared statements) in ONE transaction, so 100,000 messages take
 * seconds, not one fsync each.
 *
 *   seed-conversation N DIR [--slug SLUG] [--conversations M] [--reply-bytes B] [--question-bytes Q]
 *
 * --conversations M adds M - 1 more conversations of one message each (the
 * sidebar of idle-rss). --reply-bytes B makes each reply of SLUG a report
 * in Markdown of about B bytes (scroll-long-replies); --question-bytes Q
 * each message of the person plain text of about Q bytes, in paragraphs
 * (open-long-replies' NOTE). Prints the
 * conversation id of SLUG. */
#include <stdlib.h>

#include "prs-store.h"
#include "prs-store-internal.h"

static char *
now_text (void)
{
  g_autoptr(GDateTime) now = g_date_time_new_now_utc ();

  return g_date_time_format_iso8601 (now);
}

/* A model's long report: headings, bold-led paragraphs, lists */
static char *
long_report (gint64 seq,
             gsize  size)
{
  GString *text = g_string_new (NULL);

  g_string_append_printf (text, "## Report %" G_GINT64_FORMAT "\n\n", seq);
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
        g_string_append (text, "- Revenue grew in *every* region\n- Two teams hired\n\n");
    }
  return g_string_free (text, FALSE);
}

/* What a person pastes: paragraphs of plain text, no Markdown */
static char *
long_question (gint64 seq,
               gsize  size)
{
  GString *text = g_string_new (NULL);

  g_string_append_printf (text, "Question %" G_GINT64_FORMAT ", with the notes below.", seq);
  while (text->len < size)
    g_string_append (text, "\n\nThe customer wrote again about the delayed order: the parcel left the "
                           "warehouse on Monday, the tracking page has said \"in transit\" since, and "
                           "they would like a refund or a new date before the weekend.");
  return g_string_free (text, FALSE);
}

static gboolean
insert_messages (PrsStore    *store,
                 const char  *conversation_id,
                 gint64       first_seq,
                 guint        n,
                 gsize        reply_bytes,
                 gsize        question_bytes,
                 const char  *now,
                 GError     **error)
{
  g_autoptr(PrsStmt) stmt = NULL;
  g_autoptr(PrsStmt) bump = NULL;

  for (guint i = 0; i < n; i++)
    {
      gint64 seq = first_seq + i;
      char id[96], content[160];
      g_autofree char *report = NULL;

      stmt = prs_store_prepare_cached (store,
                                       "INSERT INTO messages (id, conversation_id, seq, kind, content,"
                                       " agent_id, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                                       error);
      if (stmt == NULL)
        return FALSE;
      g_snprintf (id, sizeof id, "%s-%" G_GINT64_FORMAT, conversation_id, seq);
      if (seq % 2 == 1)
        g_snprintf (content, sizeof content,
                    "Question number %" G_GINT64_FORMAT ": what changed since the last one?", seq);
      else
        g_snprintf (content, sizeof content,
                    "Status: answered\nNumber: %" G_GINT64_FORMAT "\n\nNothing else changed.", seq);
      prs_store_bind_text (stmt, 1, id);
      prs_store_bind_text (stmt, 2, conversation_id);
      sqlite3_bind_int64 (stmt, 3, seq);
      prs_store_bind_text (stmt, 4, seq % 2 == 1 ? "user" : "assistant");
      if (seq % 2 == 0 && reply_bytes > 0)
        report = long_report (seq, reply_bytes);
      else if (seq % 2 == 1 && question_bytes > 0)
        report = long_question (seq, question_bytes);
      prs_store_bind_text (stmt, 5, report != NULL ? report : content);
      prs_store_bind_text (stmt, 6, seq % 2 == 1 ? NULL : "prosponsive");
      prs_store_bind_text (stmt, 7, now);
      if (!prs_store_step_done (store, stmt, "Could not insert a message", error))
        return FALSE;
      g_clear_pointer (&stmt, prs_stmt_release);
    }

  bump = prs_store_prepare_cached (store,
                                   "UPDATE conversations SET message_count = message_count + ?2,"
                                   " updated_at = ?3 WHERE id = ?1", error);
  if (bump == NULL)
    return FALSE;
  prs_store_bind_text (bump, 1, conversation_id);
  sqlite3_bind_int64 (bump, 2, n);
  prs_store_bind_text (bump, 3, now);
  return prs_store_step_done (store, bump, "Could not update the conversation", error);
}

static gboolean
add_conversation (PrsStore    *store,
                  const char  *slug,
                  const char  *now,
                  char       **out_id,
                  GError     **error)
{
  g_autoptr(PrsStmt) stmt = NULL;
  g_autofree char *id = g_uuid_string_random ();

  stmt = prs_store_prepare_cached (store,
                                   "INSERT INTO conversations (id, slug, title, created_at, updated_at)"
                                   " VALUES (?1, ?2, ?2, ?3, ?3)", error);
  if (stmt == NULL)
    return FALSE;
  prs_store_bind_text (stmt, 1, id);
  prs_store_bind_text (stmt, 2, slug);
  prs_store_bind_text (stmt, 3, now);
  if (!prs_store_step_done (store, stmt, "Could not create a conversation", error))
    return FALSE;
  *out_id = g_steal_pointer (&id);
  return TRUE;
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsStore) store = NULL;
  g_autofree char *slug = g_strdup ("huge");
  g_autofree char *id = NULL;
  g_autofree char *now = now_text ();
  int n_conversations = 1;
  int reply_bytes = 0;
  int question_bytes = 0;
  guint64 n;
  GOptionEntry entries[] = {
    { "slug", 0, 0, G_OPTION_ARG_STRING, &slug, "Slug of the conversation", "SLUG" },
    { "conversations", 0, 0, G_OPTION_ARG_INT, &n_conversations, "Conversations in all", "M" },
    { "reply-bytes", 0, 0, G_OPTION_ARG_INT, &reply_bytes, "Each reply a Markdown report of B bytes", "B" },
    { "question-bytes", 0, 0, G_OPTION_ARG_INT, &question_bytes, "Each message of the person Q bytes of text", "Q" },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("N DIR");
  gint64 started = g_get_monotonic_time ();

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error) || argc != 3 ||
      !g_ascii_string_to_unsigned (argv[1], 10, 0, 10000000, &n, NULL) || reply_bytes < 0 ||
      question_bytes < 0)
    {
      g_printerr ("usage: seed-conversation N DIR [--slug SLUG] [--conversations M] [--reply-bytes B] [--question-bytes Q]%s%s\n",
                  error != NULL ? ": " : "", error != NULL ? error->message : "");
      return 2;
    }

  if (g_mkdir_with_parents (argv[2], 0700) != 0)
    {
      g_printerr ("seed-conversation: cannot create %s\n", argv[2]);
      return 1;
    }

  store = prs_store_new (argv[2], &error);
  if (store == NULL || !prs_store_begin_immediate (store, &error))
    goto fail;

  if (!add_conversation (store, slug, now, &id, &error) ||
      !insert_messages (store, id, 1, (guint) n, (gsize) reply_bytes, (gsize) question_bytes, now, &error))
    goto rollback;

  for (int i = 1; i < n_conversations; i++)
    {
      g_autofree char *other_slug = g_strdup_printf ("conversation-%05d", i);
      g_autofree char *other_id = NULL;

      if (!add_conversation (store, other_slug, now, &other_id, &error) ||
          !insert_messages (store, other_id, 1, 1, 0, 0, now, &error))
        goto rollback;
    }

  if (!prs_store_commit (store, &error))
    goto fail;

  g_printerr ("seed-conversation: %" G_GUINT64_FORMAT " messages, %d conversations in %.2f s\n",
              n, n_conversations, (g_get_monotonic_time () - started) / 1e6);
  g_print ("%s\n", id);
  return 0;

rollback:
  prs_store_rollback (store);
fail:
  g_printerr ("seed-conversation: %s\n", error->message);
  return 1;
}
