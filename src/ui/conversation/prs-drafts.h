/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-drafts.h: what the person writes in the composer belongs to the
 * conversation it was written in, and is kept in the store until it is
 * sent (docs/conversations.md "Drafts"). */
#pragma once

#include "prs-composer.h"
#include "prs-store.h"

G_BEGIN_DECLS

typedef struct _PrsDrafts PrsDrafts;

/* Watches @composer's text; nothing is shown or saved before
 * prs_drafts_switch (). */
PrsDrafts *prs_drafts_new    (PrsStore    *store,
                              PrsComposer *composer);
/* Saves the text written for the conversation shown until now, then puts
 * @conversation_id's draft (NULL: none) in the composer. */
void       prs_drafts_switch (PrsDrafts   *self,
                              const char  *conversation_id);
/* The composer's message was stored, which forgot its draft in the same
 * transaction: nothing is left to delete. */
void       prs_drafts_sent   (PrsDrafts   *self);
/* Saves what is not saved yet, now. */
void       prs_drafts_save   (PrsDrafts   *self);
/* Saves, then lets the composer go. */
void       prs_drafts_free   (PrsDrafts   *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrsDrafts, prs_drafts_free)

G_END_DECLS
