/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-store-private.h: store internals that tests look at. */
#pragma once

#include "prs-store.h"

G_BEGIN_DECLS

/* The value of one connection setting, as SQLite reports it: @name is one of
 * "journal_mode", "synchronous", "foreign_keys", "busy_timeout",
 * "user_version", "temp_store". Lets tests check what the connection really runs with. */
char *prs_store_dup_pragma (PrsStore    *self,
                            const char  *name,
                            GError     **error);

G_END_DECLS
