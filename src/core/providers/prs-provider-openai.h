/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-provider-openai.h: the PrsProvider for OpenAI-compatible Chat Completions (/v1/chat/completions).
 * Use prs_provider_new() to make one from a configuration. */
#pragma once

#include "prs-http-provider.h"

G_BEGIN_DECLS

#define PRS_TYPE_PROVIDER_OPENAI (prs_provider_openai_get_type ())
G_DECLARE_FINAL_TYPE (PrsProviderOpenai, prs_provider_openai, PRS, PROVIDER_OPENAI, PrsHttpProvider)

/* @base_url is already validated and has no trailing slash. */
PrsProvider *prs_provider_openai_new (const char *base_url,
                                      const char *model,
                                      const char *api_key);

G_END_DECLS
