/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-error.h: the project's error domain and codes. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define PRS_ERROR (prs_error_quark ())

typedef enum
{
  PRS_ERROR_FAILED,
  PRS_ERROR_INVALID_INPUT,     /* bad JSON, wrong types, not a workflow */
  PRS_ERROR_NOT_FOUND,
  PRS_ERROR_STORE,             /* SQLite failure */
  PRS_ERROR_SECRETS,           /* neither the keyring nor the fallback file worked */
  PRS_ERROR_N8N_UNREACHABLE,   /* connection refused, DNS, TLS */
  PRS_ERROR_N8N_UNAUTHORIZED,  /* 401/403: the API key */
  PRS_ERROR_N8N_NOT_FOUND,     /* 404 */
  PRS_ERROR_N8N_BAD_RESPONSE,  /* not JSON, or not the expected shape */
  PRS_ERROR_N8N_HTTP,          /* any other status */
  PRS_ERROR_TIMEOUT,
  PRS_ERROR_NOT_CONFIGURED,
  /* AI providers (prs-provider.h). Failover decides on these codes. */
  PRS_ERROR_PROVIDER_AUTH,           /* 401/403: the API key */
  PRS_ERROR_PROVIDER_RATE_LIMITED,   /* 429 (Retry-After kept, see prs_provider_get_retry_after) */
  PRS_ERROR_PROVIDER_SERVER,         /* 5xx, or an error event inside a stream */
  PRS_ERROR_PROVIDER_UNREACHABLE,    /* connection refused, DNS, TLS, timeout */
  PRS_ERROR_PROVIDER_UNKNOWN_MODEL,  /* 404 or the provider's "model not found" */
  PRS_ERROR_PROVIDER_BAD_RESPONSE,   /* malformed JSON, chunks or stream */
  PRS_ERROR_PROVIDER_REJECTED,       /* any other 4xx: the request itself was refused */
  PRS_ERROR_STORE_FULL,              /* SQLite: the disk (or its quota) is full */
  PRS_ERROR_STORE_BUSY,              /* SQLite: another program held the database past the busy timeout (or at all, for a write that does not wait: prs-store-busy.c) */
  PRS_ERROR_UNSAFE_PATH,             /* the data folder or a file in it is another user's, a link, or open to others */
  PRS_ERROR_TOO_LARGE,               /* input beyond a documented limit: not read */
  PRS_ERROR_EXISTS,                  /* creating what exists, without being told to replace it */
  /* MCP servers (src/core/mcp/). */
  PRS_ERROR_MCP_UNAVAILABLE,         /* could not start or reach the server, or it stopped */
  PRS_ERROR_MCP_PROTOCOL,            /* not JSON-RPC, not JSON, too large, unsupported revision */
  PRS_ERROR_MCP_SERVER,              /* the server answered a request with a JSON-RPC error or an HTTP error status */
  PRS_ERROR_MCP_TOOL_FAILED,         /* a tools/call result with isError: the message is the server's text */
} PrsError;

GQuark prs_error_quark (void);

G_END_DECLS
