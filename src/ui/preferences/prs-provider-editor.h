/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-provider-editor.h: the form of one AI provider (kind, name, base URL,
 * API key, model from the provider's own list, Test), shared by Preferences
 * and the first-run setup. */
#pragma once

#include <adwaita.h>

#include "prs-service.h"

G_BEGIN_DECLS

#define PRS_TYPE_PROVIDER_EDITOR (prs_provider_editor_get_type ())
G_DECLARE_FINAL_TYPE (PrsProviderEditor, prs_provider_editor, PRS, PROVIDER_EDITOR, AdwBin)

GtkWidget  *prs_provider_editor_new      (PrsService        *service);
/* Fills the form from @row (editing it), or empties it for a new provider
 * (@row NULL). */
void        prs_provider_editor_load     (PrsProviderEditor *self,
                                          const PrsProviderRow *row);
/* Runs the Test: the provider's model list with the entered values. The
 * result shows in the form; PrsProviderEditor::tested reports it. */
void        prs_provider_editor_test     (PrsProviderEditor *self);
gboolean    prs_provider_editor_get_tested_ok (PrsProviderEditor *self);
/* Adds or updates the provider (the key goes to the keyring, without
 * waiting on it); finishes with the provider's id, or the form's or the
 * store's error. */
void        prs_provider_editor_save_async  (PrsProviderEditor   *self,
                                             GCancellable        *cancellable,
                                             GAsyncReadyCallback  callback,
                                             gpointer             user_data);
char       *prs_provider_editor_save_finish (PrsProviderEditor   *self,
                                             GAsyncResult        *result,
                                             GError             **error);

G_END_DECLS
