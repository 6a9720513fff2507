/* SPDX-License-Identifier: GPL-3.0-or-later */
/* bench-discovery-corpus.h: the workflows discovery-1000 analyses, shared
 * with the unit test that pins discovery's output on them
 * (tests/core/test-discovery-digest.c). */
#pragma once

#include <glib.h>

/* A realistic tool workflow: webhook, two Code nodes, a sticky note. */
static inline char *
bench_discovery_workflow (guint i)
{
  return g_strdup_printf (
    "{\"id\":\"wf%05u\",\"name\":\"Tool Number %u (v2)\",\"active\":true,"
    "\"createdAt\":\"2026-01-01T00:00:%02u.000Z\",\"isArchived\":false,"
    "\"settings\":{\"executionOrder\":\"v1\"},\"tags\":[],\"nodes\":["
    "{\"id\":\"n1\",\"name\":\"Webhook\",\"type\":\"n8n-nodes-base.webhook\",\"typeVersion\":2.1,"
    "\"position\":[0,0],\"webhookId\":\"b%05u\",\"parameters\":{\"httpMethod\":\"POST\","
    "\"path\":\"tool-%u\",\"responseMode\":\"lastNode\",\"options\":{}}},"
    "{\"id\":\"n2\",\"name\":\"Read Input\",\"type\":\"n8n-nodes-base.code\",\"typeVersion\":2,"
    "\"position\":[220,0],\"parameters\":{\"jsCode\":\"// Reads the tool input\\n"
    "const body = $input.first().json.body ?? {};\\nconst uid = body.uid;\\n"
    "const mailbox = body.mailbox ?? 'INBOX';\\nconst limit = parameters.limit || 25;\\n"
    "const flags = body.flags ?? [\\\"seen\\\"];\\n/* body.notThis ?? 1 */\\n"
    "const s = `template ${body.alsoNot ?? 2}`;\\nreturn [{ json: { uid, mailbox, limit, flags, s } }];\"}},"
    "{\"id\":\"n3\",\"name\":\"Shape\",\"type\":\"n8n-nodes-base.code\",\"typeVersion\":2,"
    "\"position\":[440,0],\"parameters\":{\"jsCode\":\"const verbose = parameters.verbose ?? false;\\n"
    "return items.map(i => ({ json: { ...i.json, verbose } }));\"}},"
    "{\"id\":\"n4\",\"name\":\"Sticky Note\",\"type\":\"n8n-nodes-base.stickyNote\",\"typeVersion\":1,"
    "\"position\":[-40,-220],\"parameters\":{\"content\":\"## Tool %u\\nUse this tool when you need "
    "to **move** an email to a [different](https://example.org) IMAP folder.\\n\\nMore text.\","
    "\"height\":160,\"width\":300}}],"
    "\"connections\":{\"Webhook\":{\"main\":[[{\"node\":\"Read Input\",\"type\":\"main\",\"index\":0}]]}}}",
    i, i % 700, i % 60, i, i, i);
}
