/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-provider-ollama.h: the PrsProvider for Ollama's native /api/chat.
 * Use prs_provider_new() to make one from a configuration. */
#pragma once

#include "prs-http-provider.h"

G_BEGIN_DECLS

#define PRS_TYPE_PROVIDER_OLLAMA (prs_provider_ollama_get_type ())
G_DECLARE_FINAL_TYPE (PrsProviderOllama, prs_provider_ollama, PRS, PROVIDER_OLLAMA, PrsHttpProvider)

/* @base_url is already validated and has no trailing slash. */
PrsProvider *prs_provider_ollama_new (const char *base_url,
                                      const char *model,
                                      const char *api_key);

G_END_DECLS
