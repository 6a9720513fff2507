/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-provider-gemini.h: the PrsProvider for Google Gemini generateContent (/v1beta).
 * Use prs_provider_new() to make one from a configuration. */
#pragma once

#include "prs-http-provider.h"

G_BEGIN_DECLS

#define PRS_TYPE_PROVIDER_GEMINI (prs_provider_gemini_get_type ())
G_DECLARE_FINAL_TYPE (PrsProviderGemini, prs_provider_gemini, PRS, PROVIDER_GEMINI, PrsHttpProvider)

/* @base_url is already validated and has no trailing slash. */
PrsProvider *prs_provider_gemini_new (const char *base_url,
                                      const char *model,
                                      const char *api_key);

G_END_DECLS
