/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-provider-kinds.h: the four kinds of provider (one per wire protocol)
 * and what people see of each. Facts only, below the backends (whose
 * messages name their kind); the factory that makes a provider of a kind
 * lives with the configured set (prs-providers.h). */
#pragma once

#include "prs-provider.h"

G_BEGIN_DECLS

gboolean         prs_provider_kind_is_valid     (const char           *kind);
const char      *prs_provider_kind_default_base_url (const char       *kind);
/* "OpenAI-compatible", "Ollama", "Anthropic", "Google Gemini" */
const char      *prs_provider_kind_get_label    (const char           *kind);
/* Whether the kind cannot work without an API key (Ollama can). */
gboolean         prs_provider_kind_needs_key    (const char           *kind);
/* How many tokens (prompt and reply) @model of @kind takes, as far as it is
 * known from its name; a conservative PRS_PROVIDER_DEFAULT_CONTEXT when it
 * is not. Ollama answers with the context its server was started with
 * (often 4096 or 8192) unless told otherwise, whatever the model could do. */
#define PRS_PROVIDER_DEFAULT_CONTEXT 32768
guint            prs_provider_kind_context_window (const char         *kind,
                                                   const char         *model);
/* TRUE when @base_url's host is loopback (localhost, 127.0.0.0/8, ::1). */
gboolean         prs_provider_url_is_local      (const char           *base_url);

G_END_DECLS
