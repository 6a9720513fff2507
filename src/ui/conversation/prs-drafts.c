/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-drafts.c: one composer, many conversations: switching saves the text
 * written for the conversation left and shows the one written for the
 * conversation opened (docs/conversations.md "Drafts"). Typing saves at
 * most once a SAVE_DELAY_MS, so that a crash or a power cut loses at most
 * that much of it, without a synced commit per key press. Those saves do
 * not wait while another program holds the database (they would stop the
 * window for five seconds every second): the text is kept here and tried
 * again every RETRY_DELAY_MS, and closing saves it with the usual wait. */
#include "config.h"

#include "prs-drafts.h"
#include "prs-error.h"
#include "prs-thread.h"

#define SAVE_DELAY_MS 1000
#define RETRY_DELAY_MS 2000

struct _PrsDrafts
{
  PrsStore    *store;
  PrsComposer *composer;        /* weak: the view owns both */
  char        *conversation_id; /* the one the composer writes for */
  char        *saved;           /* what the store holds for it */
  /* conversation id → text the store refused (busy, a full disk): shown
   * again when its conversation is, and saved on the next try */
  GHashTable  *unsaved;
  /* the ids of unsaved refused because another program held the
   * database: tried again by retry_id */
  GHashTable  *busy;
  gulong       changed_id;
  guint        save_id;
  guint        retry_id;
  gboolean     showing;         /* the composer's text is being set */
};

typedef enum
{
  STORED,
  REFUSED,   /* kept in unsaved: a real failure, tried at the next save */
  BUSY,      /* kept in unsaved and busy: tried again in RETRY_DELAY_MS */
} Outcome;

static gboolean retry (gpointer data);

/* @wait: for another program's write, up to the store's busy timeout */
static Outcome
store_draft (PrsDrafts  *self,
             const char *conversation_id,
             const char *text,
             gboolean    wait)
{
  g_autoptr(GError) error = NULL;
  gboolean ok, busy;

  ok = wait ? prs_store_set_draft (self->store, conversation_id, text, &error)
            : prs_store_try_set_draft (self->store, conversation_id, text, &error);
  if (ok)
    {
      g_hash_table_remove (self->unsaved, conversation_id);
      g_hash_table_remove (self->busy, conversation_id);
      return STORED;
    }

  /* Kept here instead; the composer still shows it (a conversation
   * deleted meanwhile refuses it too, and is never shown again) */
  g_hash_table_replace (self->unsaved, g_strdup (conversation_id), g_strdup (text));
  busy = g_error_matches (error, PRS_ERROR, PRS_ERROR_STORE_BUSY);
  if (!busy || wait)
    {
      g_message ("Could not save the draft: %s", error->message);
      g_hash_table_remove (self->busy, conversation_id);
      return busy ? BUSY : REFUSED;
    }
  /* Nothing for the person to do: no toast, no log line per try */
  g_debug ("Draft kept until the database is free: %s", error->message);
  g_hash_table_add (self->busy, g_strdup (conversation_id));
  if (self->retry_id == 0)
    {
      self->retry_id = g_timeout_add (RETRY_DELAY_MS, retry, self);
      g_source_set_static_name (g_main_context_find_source_by_id (NULL, self->retry_id),
                                "[prosponsive] draft retry");
    }
  return BUSY;
}

/* The shown conversation's text, from the composer */
static Outcome
save_shown (PrsDrafts *self,
            gboolean   wait)
{
  g_autofree char *text = NULL;
  Outcome outcome;

  g_clear_handle_id (&self->save_id, g_source_remove);
  if (self->conversation_id == NULL)
    return STORED;

  text = prs_composer_dup_text (self->composer);
  if (g_strcmp0 (text, self->saved != NULL ? self->saved : "") == 0)
    {
      g_hash_table_remove (self->unsaved, self->conversation_id);
      g_hash_table_remove (self->busy, self->conversation_id);
      return STORED;
    }
  outcome = store_draft (self, self->conversation_id, text, wait);
  if (outcome == STORED)
    {
      g_free (self->saved);
      self->saved = g_steal_pointer (&text);
    }
  return outcome;
}

/* The shown conversation's text, then the others' of @which (a set of
 * ids, busy or unsaved); stops at the first busy refusal, as every other
 * would meet the same lock (with @wait, each after the whole wait) */
static void
save_kept (PrsDrafts  *self,
           GHashTable *which,
           gboolean    wait)
{
  g_autoptr(GPtrArray) ids = g_ptr_array_new_with_free_func (g_free);
  GHashTableIter iter;
  gpointer id;

  if (save_shown (self, wait) == BUSY)
    return;

  g_hash_table_iter_init (&iter, which);
  while (g_hash_table_iter_next (&iter, &id, NULL))
    if (g_strcmp0 (id, self->conversation_id) != 0)
      g_ptr_array_add (ids, g_strdup (id));
  for (guint i = 0; i < ids->len; i++)
    {
      const char *conversation_id = g_ptr_array_index (ids, i);
      g_autofree char *text = g_strdup (g_hash_table_lookup (self->unsaved, conversation_id));

      if (text != NULL && store_draft (self, conversation_id, text, wait) == BUSY)
        return;
    }
}

static gboolean
retry (gpointer data)
{
  PrsDrafts *self = data;

  self->retry_id = 0;
  save_kept (self, self->busy, FALSE);
  return G_SOURCE_REMOVE;
}

static gboolean
save_later (gpointer data)
{
  PrsDrafts *self = data;

  self->save_id = 0;
  prs_drafts_save (self);
  return G_SOURCE_REMOVE;
}

static void
on_changed (PrsComposer *composer,
            PrsDrafts   *self)
{
  if (self->showing || self->conversation_id == NULL || self->save_id != 0)
    return;
  self->save_id = g_timeout_add (SAVE_DELAY_MS, save_later, self);
  g_source_set_static_name (g_main_context_find_source_by_id (NULL, self->save_id),
                            "[prosponsive] draft save");
}

PrsDrafts *
prs_drafts_new (PrsStore    *store,
                PrsComposer *composer)
{
  PrsDrafts *self = g_new0 (PrsDrafts, 1);

  g_return_val_if_fail (PRS_IS_STORE (store), NULL);
  g_return_val_if_fail (PRS_IS_COMPOSER (composer), NULL);
  PRS_ASSERT_MAIN_THREAD ();

  self->store = g_object_ref (store);
  self->composer = composer;
  self->unsaved = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->busy = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->changed_id = g_signal_connect (composer, "changed", G_CALLBACK (on_changed), self);
  return self;
}

void
prs_drafts_save (PrsDrafts *self)
{
  g_return_if_fail (self != NULL);
  PRS_ASSERT_MAIN_THREAD ();

  save_shown (self, FALSE);
}

void
prs_drafts_sent (PrsDrafts *self)
{
  g_return_if_fail (self != NULL);

  /* The emptied composer then matches what the store holds: no second
   * (synced) commit deletes the draft again */
  g_clear_pointer (&self->saved, g_free);
  if (self->conversation_id != NULL)
    {
      g_hash_table_remove (self->unsaved, self->conversation_id);
      g_hash_table_remove (self->busy, self->conversation_id);
    }
}

void
prs_drafts_switch (PrsDrafts  *self,
                   const char *conversation_id)
{
  const char *unsaved;

  g_return_if_fail (self != NULL);

  if (g_strcmp0 (conversation_id, self->conversation_id) == 0)
    return;
  prs_drafts_save (self);

  g_free (self->conversation_id);
  self->conversation_id = g_strdup (conversation_id);
  g_clear_pointer (&self->saved, g_free);
  if (conversation_id != NULL)
    self->saved = prs_store_dup_draft (self->store, conversation_id);

  unsaved = conversation_id != NULL ? g_hash_table_lookup (self->unsaved, conversation_id) : NULL;
  self->showing = TRUE;
  prs_composer_set_text (self->composer, unsaved != NULL ? unsaved : self->saved);
  self->showing = FALSE;
}

void
prs_drafts_free (PrsDrafts *self)
{
  if (self == NULL)
    return;

  /* Every text still kept, with the usual wait: the lock another program
   * holds a moment loses nothing; one held past the wait loses what was
   * not saved, after one wait, not one per conversation */
  save_kept (self, self->unsaved, TRUE);
  g_clear_handle_id (&self->retry_id, g_source_remove);
  g_clear_signal_handler (&self->changed_id, self->composer);
  g_clear_object (&self->store);
  g_hash_table_unref (self->unsaved);
  g_hash_table_unref (self->busy);
  g_free (self->conversation_id);
  g_free (self->saved);
  g_free (self);
}
