/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-composer.h: where the user writes: a multi-line entry (Enter sends,
 * Shift+Enter adds a line), an agent picker, and Send / Stop. It only
 * emits signals; the conversation view stores what is sent. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define PRS_TYPE_COMPOSER (prs_composer_get_type ())
G_DECLARE_FINAL_TYPE (PrsComposer, prs_composer, PRS, COMPOSER, GtkWidget)

/* @ids and @names: the agents, in order (same length). */
void        prs_composer_set_agents    (PrsComposer        *self,
                                        const char * const *ids,
                                        const char * const *names);
void        prs_composer_set_agent     (PrsComposer        *self,
                                        const char         *agent_id);
const char *prs_composer_get_agent     (PrsComposer        *self);
/* While busy (a reply streams) the Send button is a Stop button. */
void        prs_composer_set_busy      (PrsComposer        *self,
                                        gboolean            busy);
void        prs_composer_set_text      (PrsComposer        *self,
                                        const char         *text);
char       *prs_composer_dup_text      (PrsComposer        *self);
void        prs_composer_focus         (PrsComposer        *self);
/* The dim hint shown while the entry is empty. */
void        prs_composer_set_placeholder (PrsComposer      *self,
                                        const char         *text);

G_END_DECLS
