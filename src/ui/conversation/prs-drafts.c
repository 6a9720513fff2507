/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-drafts.c: one composer, many conversations: switching saves the text
 * written for the conversation left and shows the one written for the
 * conversation opened (docs/conversations.md "Drafts"). Typing saves at
 * most once a SAVE_DELAY_MS, so that a crash or a power cut loses at most
 * that much of it, without a synced commit per key press. */
#include "config.h"

#include "prs-drafts.h"
#include "prs-thread.h"

#define SAVE_DELAY_MS 1000

struct _PrsDrafts
{
  PrsStore    *store;
  PrsComposer *composer;        /* weak: the view owns both */
  char        *conversation_id; /* the one the composer writes for */
  char        *saved;           /* what the store holds for it */
  /* conversation id → text the store refused (busy, a full disk): shown
   * again when its conversation is, and saved on the next try */
  GHashTable  *unsaved;
  gulong       changed_id;
  guint        save_id;
  gboolean     showing;         /* the composer's text is being set */
};

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
  self->changed_id = g_signal_connect (composer, "changed", G_CALLBACK (on_changed), self);
  return self;
}

void
prs_drafts_save (PrsDrafts *self)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  g_return_if_fail (self != NULL);
  PRS_ASSERT_MAIN_THREAD ();

  g_clear_handle_id (&self->save_id, g_source_remove);
  if (self->conversation_id == NULL)
    return;

  text = prs_composer_dup_text (self->composer);
  if (g_strcmp0 (text, self->saved != NULL ? self->saved : "") == 0)
    {
      g_hash_table_remove (self->unsaved, self->conversation_id);
      return;
    }
  if (!prs_store_set_draft (self->store, self->conversation_id, text, &error))
    {
      /* Kept here instead; the composer still shows it (a conversation
       * deleted meanwhile refuses it too, and is never shown again) */
      g_message ("Could not save the draft: %s", error->message);
      g_hash_table_replace (self->unsaved, g_strdup (self->conversation_id), g_steal_pointer (&text));
      return;
    }
  g_hash_table_remove (self->unsaved, self->conversation_id);
  g_free (self->saved);
  self->saved = g_steal_pointer (&text);
}

void
prs_drafts_sent (PrsDrafts *self)
{
  g_return_if_fail (self != NULL);

  /* The emptied composer then matches what the store holds: no second
   * (synced) commit deletes the draft again */
  g_clear_pointer (&self->saved, g_free);
  if (self->conversation_id != NULL)
    g_hash_table_remove (self->unsaved, self->conversation_id);
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

  prs_drafts_save (self);
  g_clear_signal_handler (&self->changed_id, self->composer);
  g_clear_object (&self->store);
  g_hash_table_unref (self->unsaved);
  g_free (self->conversation_id);
  g_free (self->saved);
  g_free (self);
}
