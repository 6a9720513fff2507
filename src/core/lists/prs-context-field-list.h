/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-context-field-list.h: the Request Context fields discovered so far
 * (docs/conversations.md), as a GListModel of PrsContextFieldItem for the agent editor's
 * field picker: one item per path, with its type, sample and origins.
 * Main thread only (asserted in debug builds, HACKING.md "Threads"). */
#pragma once

#include <gio/gio.h>

#include "prs-store.h"

G_BEGIN_DECLS

#define PRS_TYPE_CONTEXT_FIELD_ITEM (prs_context_field_item_get_type ())
G_DECLARE_FINAL_TYPE (PrsContextFieldItem, prs_context_field_item, PRS, CONTEXT_FIELD_ITEM, GObject)

PrsContextFieldItem *prs_context_field_item_new            (const char          *path,
                                                            const char          *type,
                                                            const char          *sample);
const char          *prs_context_field_item_get_path       (PrsContextFieldItem *self);
const char          *prs_context_field_item_get_field_type (PrsContextFieldItem *self);
const char          *prs_context_field_item_get_sample     (PrsContextFieldItem *self);
/* The titles of the conversations the path was seen in, without
 * repetition, in the store's order (may be empty, never NULL). */
const char * const  *prs_context_field_item_get_conversations (PrsContextFieldItem *self);
/* The workflow ids that sent it, likewise. */
const char * const  *prs_context_field_item_get_workflows  (PrsContextFieldItem *self);

#define PRS_TYPE_CONTEXT_FIELD_LIST (prs_context_field_list_get_type ())
G_DECLARE_FINAL_TYPE (PrsContextFieldList, prs_context_field_list, PRS, CONTEXT_FIELD_LIST, GObject)

/* An empty list; fill it with prs_context_field_list_reload (). */
PrsContextFieldList *prs_context_field_list_new            (void);
/* Reads the union of the fields across conversations (@conversation_id
 * NULL) or one conversation's, ordered by path, and replaces the items with
 * one items-changed. */
gboolean             prs_context_field_list_reload         (PrsContextFieldList *self,
                                                            PrsStore            *store,
                                                            const char          *conversation_id,
                                                            GError             **error);

G_END_DECLS
