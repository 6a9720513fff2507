/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-agent-seed.h: the data the agent editor's tests and screenshots
 * share: discovered tools (email_move_to_folder among them), an inbound
 * message whose Request Context offers uid and mailbox, and agents. */
#pragma once

#include "prs-store.h"

G_BEGIN_DECLS

#define PRS_SEED_MOVE_DESCRIPTION "Move an email to a different IMAP folder."

/* email_move_to_folder: uid (required), mailbox (default "INBOX"),
 * destination (required). */
PrsTool *prs_agent_seed_move_tool  (void);
/* Stores email_move_to_folder, email_search and jira_create_issue as one
 * discovery. */
void     prs_agent_seed_tools      (PrsStore   *store);
/* get_weather (city required, unit optional), called at the webhook path
 * "weather" of tests/lib's scripted webhook */
PrsTool *prs_agent_seed_weather_tool (void);
/* get_weather stored as one discovery, and the agent "weather-agent"
 * (Weather Agent) allowed to use it */
void     prs_agent_seed_weather_agent (PrsStore *store);
/* The "email-inbox" conversation (titled "Email Inbox") with an inbound message carrying
 * {uid, mailbox, from, subject, receivedAt, openLink} from workflow
 * wf-email-triage; returns the conversation id. */
char    *prs_agent_seed_inbox      (PrsStore   *store);
/* An agent to edit: executive-assistant-email-agent, allowed tools
 * email_move_to_folder, email_search and calendar_lookup (not
 * discovered), guidance for slack_notify (not discovered). */
void     prs_agent_seed_agents     (PrsStore   *store);

G_END_DECLS
