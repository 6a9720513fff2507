/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-provider-anthropic.h: the PrsProvider for Anthropic Messages (/v1/messages).
 * Use prs_provider_new() to make one from a configuration. */
#pragma once

#include "prs-http-provider.h"

G_BEGIN_DECLS

#define PRS_TYPE_PROVIDER_ANTHROPIC (prs_provider_anthropic_get_type ())
G_DECLARE_FINAL_TYPE (PrsProviderAnthropic, prs_provider_anthropic, PRS, PROVIDER_ANTHROPIC, PrsHttpProvider)

/* @base_url is already validated and has no trailing slash. */
PrsProvider *prs_provider_anthropic_new (const char *base_url,
                                         const char *model,
                                         const char *api_key);

G_END_DECLS
