/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-dialogs.h: the questions editors and pages ask the same way —
 * "Discard Changes?" when an editor with unsaved changes is closed, and
 * "Delete “X”?" before something goes — and the toasts they all show. */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

/* Saves what @editor edits; FALSE with @error (shown as a toast). */
typedef gboolean (*PrsDialogsSaveFunc) (GtkWindow  *editor,
                                        GError    **error);

/* For an editor's close-request with unsaved changes: asks "Discard
 * Changes?" with @body — Keep Editing, Discard, and (unless @save is NULL)
 * Save, the default. Discard destroys @editor; Save runs @save and then
 * destroys it, or shows why not on @toasts and keeps it. */
void              prs_dialogs_ask_discard (GtkWindow          *editor,
                                           const char         *body,
                                           PrsDialogsSaveFunc  save,
                                           AdwToastOverlay    *toasts);

/* "Cancel" (the default) and a destructive "Delete"; the caller connects
 * to ::response ("delete" or "cancel") and presents it. */
AdwMessageDialog *prs_dialogs_new_delete  (GtkWindow          *parent,
                                           const char         *heading,
                                           const char         *body);

/* A toast that shows @text as it is, whole: libadwaita 1.2 reads a
 * toast's title as Pango markup (a title with "&" or "<", a conversation's
 * name or an error naming a file, showed nothing at all) and cuts it to
 * one line (a German sentence lost the verb at its end in a narrow
 * window), so the text is a label of its own that wraps. */
AdwToast         *prs_dialogs_new_toast   (const char         *text);
/* Changes the text of a toast made by prs_dialogs_new_toast (), in place. */
void              prs_dialogs_set_toast_text (AdwToast        *toast,
                                              const char      *text);

G_END_DECLS
