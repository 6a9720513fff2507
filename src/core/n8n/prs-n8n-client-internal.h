/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-n8n-client-internal.h: the request engine of prs-n8n-client.c for
 * the writes in prs-n8n-client-write.c. */
#pragma once

#include "prs-n8n-client.h"

G_BEGIN_DECLS

#define WORKFLOWS_PATH            "/api/v1/workflows"

/* POST @body (JSON) to @path; finishes with the answer object, or an error
 * in words. @source_tag tells the public call apart. */
void        prs_n8n_client_post_async  (PrsN8nClient        *self,
                                        gpointer             source_tag,
                                        const char          *path,
                                        JsonNode            *body,
                                        GCancellable        *cancellable,
                                        GAsyncReadyCallback  callback,
                                        gpointer             user_data);
/* The same with another @method (PUT, DELETE); finishes through
 * prs_n8n_client_post_finish. */
void        prs_n8n_client_write_async (PrsN8nClient        *self,
                                        gpointer             source_tag,
                                        const char          *method,
                                        const char          *path,
                                        JsonNode            *body,
                                        GCancellable        *cancellable,
                                        GAsyncReadyCallback  callback,
                                        gpointer             user_data);
JsonObject *prs_n8n_client_post_finish (PrsN8nClient        *self,
                                        gpointer             source_tag,
                                        GAsyncResult        *result,
                                        GError             **error);

G_END_DECLS
