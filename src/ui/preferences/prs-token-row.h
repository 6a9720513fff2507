/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-token-row.h: the API token on an AdwActionRow, hidden until the
 * person asks to see it (a shared screen or a look over the shoulder would
 * otherwise give away the key to the local API), as the first run and
 * Preferences show it. Copying it needs no reveal. */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

/* A row titled @title, named @name, with a "Show Token" toggle named
 * "@name-reveal" as its first suffix. */
GtkWidget *prs_token_row_new  (const char   *title,
                               const char   *name);

/* Shows @token, hidden unless the toggle is on; NULL shows @status
 * instead ("Reading the keyring…") and makes the toggle insensitive. The
 * row keeps a copy of @token, wiped when it changes or the row goes. */
void       prs_token_row_set  (AdwActionRow *row,
                               const char   *token,
                               const char   *status);

G_END_DECLS
