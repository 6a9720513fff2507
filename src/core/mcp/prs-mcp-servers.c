/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-mcp-servers.c: configured MCP servers and their secrets
 * (prs-mcp-servers.h). */
#include "config.h"

#include <string.h>
#include <glib/gi18n-lib.h>

#include "prs-error.h"
#include "prs-http-request.h"
#include "prs-mcp-http.h"
#include "prs-mcp-servers.h"
#include "prs-mcp-stdio.h"

struct _PrsMcpServers
{
  GObject     parent_instance;

  PrsStore   *store;
  PrsSecrets *secrets;
};

G_DEFINE_FINAL_TYPE (PrsMcpServers, prs_mcp_servers, G_TYPE_OBJECT)

/* Headers the transport sets itself; a user's value would break it. */
static const char * const own_headers[] = {
  "accept", "connection", "content-length", "content-type", "host", "mcp-protocol-version",
  "mcp-session-id", "transfer-encoding", NULL
};

/* The keyring item of one secret: "mcp-server/ID/header/NAME" or
 * "mcp-server/ID/env/NAME". Header names are compared ignoring case. */
static char *
secret_name (const char *server_id,
             const char *kind,
             const char *name)
{
  g_autofree char *key = g_str_equal (kind, "header") ? g_ascii_strdown (name, -1) : g_strdup (name);

  return g_strdup_printf ("mcp-server/%s/%s/%s", server_id, kind, key);
}

static gboolean
is_env_name (const char *name)
{
  if (name == NULL || !(g_ascii_isalpha (name[0]) || name[0] == '_'))
    return FALSE;
  for (const char *p = name; *p != '\0'; p++)
    {
      if (!g_ascii_isalnum (*p) && *p != '_')
        return FALSE;
    }
  return TRUE;
}

static gboolean
validate_url (const char  *url,
              GError     **error)
{
  g_autoptr(GUri) uri = g_uri_parse (url, G_URI_FLAGS_NONE, NULL);
  const char *scheme = uri != NULL ? g_uri_get_scheme (uri) : NULL;

  if (uri == NULL || (g_strcmp0 (scheme, "http") != 0 && g_strcmp0 (scheme, "https") != 0) ||
      g_uri_get_host (uri) == NULL || g_uri_get_host (uri)[0] == '\0' || g_uri_get_userinfo (uri) != NULL)
    {
      /* Translators: %s is what the user typed as an address */
      g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                   _("“%s” is not an http:// or https:// address of an MCP server."), url);
      return FALSE;
    }
  return TRUE;
}

static gboolean
validate_env (char       **entries,
              gboolean     with_value,
              GError     **error)
{
  for (guint i = 0; entries != NULL && entries[i] != NULL; i++)
    {
      const char *eq = strchr (entries[i], '=');
      g_autofree char *name = with_value && eq != NULL ? g_strndup (entries[i], eq - entries[i])
                                                       : g_strdup (entries[i]);

      if ((with_value && eq == NULL) || !is_env_name (name))
        {
          /* Translators: %s is what the user gave, such as "API KEY=x" */
          g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                       _("“%s” is not an environment variable: use NAME=value, where NAME has letters, digits "
                         "and “_” only."), entries[i]);
          return FALSE;
        }
    }
  return TRUE;
}

gboolean
prs_mcp_server_row_validate (const PrsMcpServerRow  *row,
                             GError                **error)
{
  g_return_val_if_fail (row != NULL, FALSE);

  if (g_strcmp0 (row->transport, "http") == 0)
    {
      if (row->url == NULL || !validate_url (row->url, error))
        {
          if (row->url == NULL)
            g_set_error_literal (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                                 _("An MCP server over HTTP needs an address."));
          return FALSE;
        }
      for (guint i = 0; row->header_names != NULL && row->header_names[i] != NULL; i++)
        {
          g_autofree char *lower = g_ascii_strdown (row->header_names[i], -1);

          if (!prs_http_is_header_name (row->header_names[i]) || g_strv_contains (own_headers, lower))
            {
              g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                           _("“%s” cannot be used as a header name here."), row->header_names[i]);
              return FALSE;
            }
        }
      return TRUE;
    }
  if (g_strcmp0 (row->transport, "stdio") == 0)
    return validate_env (row->env, TRUE, error) && validate_env (row->secret_env, FALSE, error);

  g_set_error_literal (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                       _("An MCP server needs either a command (stdio) or an address (HTTP)."));
  return FALSE;
}

/* ---- Secrets ---- */

static gboolean
store_secrets (PrsMcpServers      *self,
               const char         *server_id,
               const char         *server_name,
               const char         *kind,
               char              **names,
               const char * const *values,
               GError            **error)
{
  for (guint i = 0; names != NULL && names[i] != NULL; i++)
    {
      g_autofree char *item = secret_name (server_id, kind, names[i]);
      /* Translators: %s is the name of an MCP server, the second %s a header or variable name */
      g_autofree char *label = g_strdup_printf (_("Prosponsive: MCP server “%s”, %s"), server_name, names[i]);

      if (values == NULL || values[i] == NULL)
        {
          g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT, _("“%s” has no value."), names[i]);
          return FALSE;
        }
      if (!prs_secrets_store_sync (self->secrets, item, label, values[i], NULL, error))
        return FALSE;
    }
  return TRUE;
}

static void
clear_secrets (PrsMcpServers *self,
               const char    *server_id,
               const char    *kind,
               char         **names)
{
  for (guint i = 0; names != NULL && names[i] != NULL; i++)
    {
      g_autofree char *item = secret_name (server_id, kind, names[i]);
      g_autoptr(GError) error = NULL;

      if (!prs_secrets_clear_sync (self->secrets, item, NULL, &error))
        g_message ("Could not remove the secret %s: %s", item, error->message);
    }
}

/* "Name: value" (headers) or "NAME=value" (environment) for each of
 * @names, the values from the keyring. */
static char **
lookup_secrets (PrsMcpServers  *self,
                const char     *server_id,
                const char     *kind,
                char          **names,
                GError        **error)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  gboolean header = g_str_equal (kind, "header");

  for (guint i = 0; names != NULL && names[i] != NULL; i++)
    {
      g_autofree char *item = secret_name (server_id, kind, names[i]);
      g_autofree char *value = prs_secrets_lookup_sync (self->secrets, item, NULL, error);
      g_autofree char *entry = NULL;

      if (value == NULL)
        {
          if (error != NULL && *error == NULL)
            /* Translators: %s is a header or environment variable name */
            g_set_error (error, PRS_ERROR, PRS_ERROR_NOT_CONFIGURED,
                         _("The keyring has no value for “%s”; add the server again."), names[i]);
          return NULL;
        }
      entry = g_strconcat (names[i], header ? ": " : "=", value, NULL);
      g_strv_builder_add (builder, entry);
      memset (value, 0, strlen (value));
      memset (entry, 0, strlen (entry));
    }
  return g_strv_builder_end (builder);
}

/* ---- The servers ---- */

gboolean
prs_mcp_servers_add (PrsMcpServers          *self,
                     const PrsMcpServerRow  *row,
                     const char * const     *header_values,
                     const char * const     *secret_env_values,
                     char                  **out_id,
                     GError                **error)
{
  g_autofree char *id = NULL;
  PrsMcpServerRow copy;

  g_return_val_if_fail (PRS_IS_MCP_SERVERS (self), FALSE);
  g_return_val_if_fail (row != NULL, FALSE);

  if (!prs_mcp_server_row_validate (row, error))
    return FALSE;

  /* The secrets first, under the id the row will have: a row whose
   * secrets are missing would fail at every start */
  copy = *row;
  id = copy.id != NULL ? g_strdup (copy.id) : g_uuid_string_random ();
  copy.id = id;
  if (!store_secrets (self, id, row->name, "header", row->header_names, header_values, error) ||
      !store_secrets (self, id, row->name, "env", row->secret_env, secret_env_values, error) ||
      !prs_store_add_mcp_server (self->store, &copy, NULL, error))
    {
      clear_secrets (self, id, "header", row->header_names);
      clear_secrets (self, id, "env", row->secret_env);
      return FALSE;
    }
  if (out_id != NULL)
    *out_id = g_steal_pointer (&id);
  return TRUE;
}

gboolean
prs_mcp_servers_remove (PrsMcpServers  *self,
                        const char     *id_or_name,
                        GError        **error)
{
  g_autoptr(PrsMcpServerRow) row = NULL;

  g_return_val_if_fail (PRS_IS_MCP_SERVERS (self), FALSE);

  row = prs_store_lookup_mcp_server (self->store, id_or_name, error);
  if (row == NULL)
    {
      if (error != NULL && *error == NULL)
        /* Translators: %s is what the user named */
        g_set_error (error, PRS_ERROR, PRS_ERROR_NOT_FOUND, _("There is no MCP server “%s”."), id_or_name);
      return FALSE;
    }
  if (!prs_store_remove_mcp_server (self->store, row->id, error))
    return FALSE;
  clear_secrets (self, row->id, "header", row->header_names);
  clear_secrets (self, row->id, "env", row->secret_env);
  return TRUE;
}

PrsMcpClient *
prs_mcp_servers_create_client (PrsMcpServers          *self,
                               const PrsMcpServerRow  *row,
                               const char * const     *reserved,
                               GError                **error)
{
  g_autoptr(PrsMcpTransport) transport = NULL;
  PrsMcpClient *client;

  g_return_val_if_fail (PRS_IS_MCP_SERVERS (self), NULL);
  g_return_val_if_fail (row != NULL, NULL);

  if (g_strcmp0 (row->transport, "http") == 0)
    {
      g_auto(GStrv) headers = lookup_secrets (self, row->id, "header", row->header_names, error);

      if (headers == NULL)
        return NULL;
      transport = prs_mcp_http_new (row->url, (const char * const *) headers);
      for (guint i = 0; headers[i] != NULL; i++)
        memset (headers[i], 0, strlen (headers[i]));
    }
  else
    {
      g_auto(GStrv) secret_env = lookup_secrets (self, row->id, "env", row->secret_env, error);
      g_autoptr(GStrvBuilder) env = g_strv_builder_new ();
      g_auto(GStrv) all = NULL;

      if (secret_env == NULL)
        return NULL;
      g_strv_builder_addv (env, (const char **) row->env);
      g_strv_builder_addv (env, (const char **) secret_env);
      all = g_strv_builder_end (env);
      transport = prs_mcp_stdio_new (row->command, (const char * const *) row->args, (const char * const *) all);
      for (guint i = 0; secret_env[i] != NULL; i++)
        memset (secret_env[i], 0, strlen (secret_env[i]));
    }

  client = prs_mcp_client_new (row->name, transport);
  prs_mcp_client_set_reserved_names (client, reserved);
  return client;
}

static void
prs_mcp_servers_dispose (GObject *object)
{
  PrsMcpServers *self = PRS_MCP_SERVERS (object);

  g_clear_object (&self->store);
  g_clear_object (&self->secrets);

  G_OBJECT_CLASS (prs_mcp_servers_parent_class)->dispose (object);
}

static void
prs_mcp_servers_class_init (PrsMcpServersClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = prs_mcp_servers_dispose;
}

static void
prs_mcp_servers_init (PrsMcpServers *self)
{
}

PrsMcpServers *
prs_mcp_servers_new (PrsStore   *store,
                     PrsSecrets *secrets)
{
  PrsMcpServers *self;

  g_return_val_if_fail (PRS_IS_STORE (store), NULL);
  g_return_val_if_fail (PRS_IS_SECRETS (secrets), NULL);

  self = g_object_new (PRS_TYPE_MCP_SERVERS, NULL);
  self->store = g_object_ref (store);
  self->secrets = g_object_ref (secrets);
  return self;
}
