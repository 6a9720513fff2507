/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-service-private.h: what the service's files share. */
#pragma once

#include "prs-service.h"

G_BEGIN_DECLS

/* At start (prs-service-conversations.c): deletions Undo could still
 * reverse when Prosponsive stopped are undone; confirmed ones purged. */
void _prs_service_recover_deletions (PrsService *self);
/* The conversation list follows a change of @conversation_id, when anyone
 * asked for the list (prs-service.c) */
void _prs_service_conversation_changed (PrsService *self,
                                        const char *conversation_id);

G_END_DECLS
