/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-demo-seed.h: the sample conversations screenshots and the ui tests
 * share. */
#pragma once

#include "prs-store.h"

G_BEGIN_DECLS

/* Conversations home-automation, support-tickets, daily-briefing (read)
 * and email-inbox (a tool call waiting for approval), with their messages */
void prs_demo_seed (PrsStore *store);

G_END_DECLS
