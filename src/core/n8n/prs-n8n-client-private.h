/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-n8n-client-private.h: knobs of PrsN8nClient that only tests turn. */
#pragma once

#include "prs-n8n-client.h"

G_BEGIN_DECLS

/* The largest answer body accepted (64 MiB by default; one workflow's
 * answer at most twice PRS_WORKFLOW_MAX_BYTES); a larger one fails with
 * PRS_ERROR_TOO_LARGE. */
void prs_n8n_client_set_max_response_size (PrsN8nClient *self,
                                           gsize         max_size);

G_END_DECLS
