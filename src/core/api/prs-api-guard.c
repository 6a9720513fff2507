/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-api-guard.c: Host, Origin, token and size checks (docs/api.md), run from
 * the early handler so that a rejected request's body is never kept. */
#include "config.h"

#include <string.h>

#include "prs-api-control.h"
#include "prs-api-guard.h"
#include "prs-api-routes.h"
#include "prs-random.h"
#include "prs-thread.h"

/* Mutable (the token watch reloads a rotated token), and the API thread's:
 * the thread that makes a guard owns it */
struct _PrsApiGuard
{
  PrsThreadOwner    owner;
  guint             port;
  PrsApiTokenWatch *token_watch;
  GStrv             origins;
  GStrv             hosts;       /* "name:port", compared without case */
  gboolean          lan;         /* also the address the client connected to */
  char             *control_key; /* prs-api-control.h; NULL: not read */
};

static const char * const host_names[] = {
  "localhost",
  "127.0.0.1",
  "[::1]",
  "host.containers.internal",
  "host.docker.internal",
};

PrsApiGuard *
prs_api_guard_new (guint             port,
                   PrsApiTokenWatch *token_watch)
{
  PrsApiGuard *guard = g_new0 (PrsApiGuard, 1);
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  prs_thread_owner_claim (&guard->owner);
  guard->port = port;
  guard->token_watch = token_watch;

  for (gsize i = 0; i < G_N_ELEMENTS (host_names); i++)
    {
      g_autofree char *host = g_strdup_printf ("%s:%u", host_names[i], port);

      g_strv_builder_add (builder, host);
    }
  guard->hosts = g_strv_builder_end (builder);

  return guard;
}

void
prs_api_guard_free (PrsApiGuard *guard)
{
  if (guard == NULL)
    return;

  g_clear_pointer (&guard->token_watch, prs_api_token_watch_free);
  if (guard->control_key != NULL)
    memset (guard->control_key, 0, strlen (guard->control_key));
  g_free (guard->control_key);
  g_strfreev (guard->origins);
  g_strfreev (guard->hosts);
  g_free (guard);
}

void
prs_api_guard_set_token_watch (PrsApiGuard      *guard,
                               PrsApiTokenWatch *token_watch)
{
  PRS_ASSERT_OWNER (&guard->owner);
  g_clear_pointer (&guard->token_watch, prs_api_token_watch_free);
  guard->token_watch = token_watch;
}

gboolean
prs_api_guard_has_token (PrsApiGuard *guard)
{
  PRS_ASSERT_OWNER (&guard->owner);
  return guard->token_watch != NULL;
}

char *
prs_api_guard_normalize_origin (const char *text)
{
  g_autoptr(GUri) uri = NULL;
  g_autofree char *trimmed = NULL;
  const char *scheme, *host, *path;
  int port;

  if (text == NULL)
    return NULL;
  trimmed = g_strstrip (g_strdup (text));
  uri = g_uri_parse (trimmed, G_URI_FLAGS_NONE, NULL);
  if (uri == NULL)
    return NULL;
  scheme = g_uri_get_scheme (uri);
  host = g_uri_get_host (uri);
  path = g_uri_get_path (uri);
  port = g_uri_get_port (uri);
  /* An origin is a scheme, a host and a port: nothing else */
  if ((g_ascii_strcasecmp (scheme, "http") != 0 && g_ascii_strcasecmp (scheme, "https") != 0) ||
      host == NULL || host[0] == '\0' || g_uri_get_userinfo (uri) != NULL ||
      (path[0] != '\0' && strcmp (path, "/") != 0) ||
      g_uri_get_query (uri) != NULL || g_uri_get_fragment (uri) != NULL)
    return NULL;

  {
    g_autofree char *lower_scheme = g_ascii_strdown (scheme, -1);
    g_autofree char *lower_host = g_ascii_strdown (host, -1);
    gboolean default_port = port == -1 ||
                            (port == 443 && strcmp (lower_scheme, "https") == 0) ||
                            (port == 80 && strcmp (lower_scheme, "http") == 0);
    gboolean literal6 = strchr (lower_host, ':') != NULL;

    /* Browsers send the default port of the scheme as nothing */
    if (default_port)
      return g_strdup_printf ("%s://%s%s%s", lower_scheme, literal6 ? "[" : "", lower_host, literal6 ? "]" : "");
    return g_strdup_printf ("%s://%s%s%s:%d", lower_scheme, literal6 ? "[" : "", lower_host, literal6 ? "]" : "", port);
  }
}

void
prs_api_guard_set_origins (PrsApiGuard        *guard,
                           const char * const *origins)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  PRS_ASSERT_OWNER (&guard->owner);
  for (guint i = 0; origins != NULL && origins[i] != NULL; i++)
    {
      g_autofree char *origin = prs_api_guard_normalize_origin (origins[i]);

      if (origin != NULL)
        g_strv_builder_add (builder, origin);
      else
        g_message ("Ignoring “%s” in allowed-origins: not an origin (https://host[:port])", origins[i]);
    }
  g_strfreev (guard->origins);
  guard->origins = g_strv_builder_end (builder);
}

static gboolean
host_is_allowed (PrsApiGuard *guard,
                 const char  *host)
{
  if (host == NULL)
    return FALSE;

  for (guint i = 0; guard->hosts[i] != NULL; i++)
    if (g_ascii_strcasecmp (host, guard->hosts[i]) == 0)
      return TRUE;

  return FALSE;
}

void
prs_api_guard_set_lan (PrsApiGuard *guard,
                       gboolean     lan)
{
  PRS_ASSERT_OWNER (&guard->owner);
  guard->lan = lan;
}

/* With LAN listening on, a client on the network names this computer by
 * the address it connected to ("192.168.1.5:3100", "[fd00::2]:3100"): that
 * literal, and no other name, is accepted too. A DNS-rebinding page cannot
 * use it: its Host is a name, never the raw address. */
static gboolean
host_is_local_address (PrsApiGuard       *guard,
                       SoupServerMessage *msg,
                       const char        *host)
{
  GSocketAddress *local = soup_server_message_get_local_address (msg);
  GInetAddress *inet;
  g_autofree char *text = NULL;
  g_autofree char *expected = NULL;

  if (host == NULL || local == NULL || !G_IS_INET_SOCKET_ADDRESS (local))
    return FALSE;

  inet = g_inet_socket_address_get_address (G_INET_SOCKET_ADDRESS (local));
  text = g_inet_address_to_string (inet);
  if (g_inet_address_get_family (inet) == G_SOCKET_FAMILY_IPV6)
    expected = g_strdup_printf ("[%s]:%u", text, guard->port);
  else
    expected = g_strdup_printf ("%s:%u", text, guard->port);

  return g_ascii_strcasecmp (host, expected) == 0;
}

static gboolean
origin_is_allowed (PrsApiGuard *guard,
                   const char  *origin)
{
  g_autofree char *normalized = NULL;

  if (guard->origins == NULL || guard->origins[0] == NULL)
    return FALSE;

  normalized = prs_api_guard_normalize_origin (origin);
  if (normalized == NULL)
    return FALSE;
  for (guint i = 0; guard->origins[i] != NULL; i++)
    if (strcmp (normalized, guard->origins[i]) == 0)
      return TRUE;

  return FALSE;
}

static gboolean
token_is_valid (PrsApiGuard *guard,
                const char  *authorization)
{
  const char *p = authorization;
  gsize len;

  if (p == NULL)
    return FALSE;

  while (*p == ' ' || *p == '\t')
    p++;
  if (g_ascii_strncasecmp (p, "Bearer", 6) != 0 || (p[6] != ' ' && p[6] != '\t'))
    return FALSE;
  p += 6;
  while (*p == ' ' || *p == '\t')
    p++;

  len = strlen (p);
  while (len > 0 && (p[len - 1] == ' ' || p[len - 1] == '\t'))
    len--;

  return prs_api_token_watch_check (guard->token_watch, p, len);
}

void
prs_api_guard_set_control_key (PrsApiGuard *guard,
                               const char  *key)
{
  PRS_ASSERT_OWNER (&guard->owner);
  g_free (guard->control_key);
  guard->control_key = g_strdup (key);
}

static gboolean
control_is_valid (PrsApiGuard *guard,
                  const char  *presented)
{
  return presented != NULL &&
         prs_random_token_equal (guard->control_key, presented, strlen (presented));
}

static gboolean
reject (PrsApiRejection *rejection,
        guint            status,
        const char      *code,
        const char      *message)
{
  rejection->status = status;
  rejection->code = code;
  rejection->message = message;
  return FALSE;
}

gboolean
prs_api_guard_check (PrsApiGuard       *guard,
                     SoupServerMessage *msg,
                     const char        *path,
                     PrsApiRejection   *rejection)
{
  SoupMessageHeaders *headers = soup_server_message_get_request_headers (msg);
  const char *origin;
  goffset declared;

  g_return_val_if_fail (guard != NULL, FALSE);
  g_return_val_if_fail (rejection != NULL, FALSE);
  PRS_ASSERT_OWNER (&guard->owner);

  if (!host_is_allowed (guard, soup_message_headers_get_one (headers, "Host")) &&
      !(guard->lan && host_is_local_address (guard, msg, soup_message_headers_get_one (headers, "Host"))))
    return reject (rejection, SOUP_STATUS_FORBIDDEN, "forbidden-host",
                   "The Host header does not name this computer.");

  origin = soup_message_headers_get_one (headers, "Origin");
  if (origin != NULL && !origin_is_allowed (guard, origin))
    return reject (rejection, SOUP_STATUS_FORBIDDEN, "forbidden-origin",
                   "Requests from this origin are not allowed.");

  /* The only route without a token */
  if (!(g_strcmp0 (path, "/api/health") == 0 &&
        strcmp (soup_server_message_get_method (msg), SOUP_METHOD_GET) == 0))
    {
      /* The keyring has not answered yet (or refused): nobody can be let in */
      if (guard->token_watch == NULL)
        return reject (rejection, SOUP_STATUS_SERVICE_UNAVAILABLE, "token-unavailable",
                       "The API token could not be read from the keyring yet; try again soon.");
      if (!token_is_valid (guard, soup_message_headers_get_one (headers, "Authorization")))
        return reject (rejection, SOUP_STATUS_UNAUTHORIZED, "unauthorized",
                       "Authentication required.");
    }

  /* Deciding tool calls takes more than the token n8n holds */
  if (prs_api_control_required (path))
    {
      if (guard->control_key == NULL)
        return reject (rejection, SOUP_STATUS_SERVICE_UNAVAILABLE, "control-unavailable",
                       "The control key could not be made or read in the keyring.");
      if (!control_is_valid (guard, soup_message_headers_get_one (headers, PRS_API_CONTROL_HEADER)))
        return reject (rejection, SOUP_STATUS_FORBIDDEN, "control-key-required",
                       "Deciding tool calls needs the control key of this computer's user "
                       "(header " PRS_API_CONTROL_HEADER "): use prosponsive-ctl approvals, approve or deny.");
    }

  if (soup_message_headers_get_encoding (headers) == SOUP_ENCODING_CONTENT_LENGTH)
    {
      declared = soup_message_headers_get_content_length (headers);
      if (declared > PRS_API_MAX_BODY)
        return reject (rejection, SOUP_STATUS_REQUEST_ENTITY_TOO_LARGE, "body-too-large",
                       "The request body is larger than 1 MiB.");
    }

  return TRUE;
}

void
prs_api_guard_reject (SoupServerMessage     *msg,
                      const PrsApiRejection *rejection)
{
  SoupMessageBody *body = soup_server_message_get_request_body (msg);

  g_return_if_fail (rejection != NULL);

  /* libsoup reads the body anyway (3.2.3): at least never keep it */
  soup_message_body_set_accumulate (body, FALSE);
  soup_message_body_truncate (body);
  soup_message_headers_replace (soup_server_message_get_response_headers (msg),
                                "Connection", "close");
  prs_api_respond_error (msg, rejection->status, rejection->code, rejection->message);
}
