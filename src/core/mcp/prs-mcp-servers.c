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
#include "prs-thread.h"

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

char *
prs_mcp_server_row_describe (const PrsMcpServerRow *row)
{
  g_autofree char *args = NULL;

  g_return_val_if_fail (row != NULL, NULL);

  if (g_strcmp0 (row->transport, "http") == 0)
    /* Translators: how Prosponsive reaches an MCP server; %s is its address */
    return g_strdup_printf (_("Streamable HTTP · %s"), row->url);
  args = row->args != NULL ? g_strjoinv (" ", row->args) : g_strdup ("");
  /* Translators: how Prosponsive runs an MCP server: the program, then its arguments */
  return g_strdup_printf (_("Program · %s %s"), row->command, args);
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
 * @names: the value given in @given (same order; may be NULL, as may each
 * of its entries), else the keyring's. Any thread (PrsSecrets is). */
static char **
lookup_secrets (PrsSecrets         *secrets,
                const char         *server_id,
                const char         *kind,
                char              **names,
                const char * const *given,
                GError            **error)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  gboolean header = g_str_equal (kind, "header");

  for (guint i = 0; names != NULL && names[i] != NULL; i++)
    {
      g_autofree char *item = server_id != NULL ? secret_name (server_id, kind, names[i]) : NULL;
      g_autofree char *value = NULL;
      g_autofree char *entry = NULL;

      if (given != NULL && given[i] != NULL)
        value = g_strdup (given[i]);
      else if (item != NULL)
        value = prs_secrets_lookup_sync (secrets, item, NULL, error);

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

static gboolean
has_name (char       **names,
          const char  *name,
          gboolean     ignore_case)
{
  for (guint i = 0; names != NULL && names[i] != NULL; i++)
    {
      if (ignore_case ? g_ascii_strcasecmp (names[i], name) == 0 : g_str_equal (names[i], name))
        return TRUE;
    }
  return FALSE;
}

/* The new values of @names go to the keyring; a name without one keeps the
 * value it had under @old_names. */
static gboolean
update_secrets (PrsMcpServers      *self,
                const PrsMcpServerRow *row,
                const char         *kind,
                char              **names,
                char              **old_names,
                const char * const *values,
                GError            **error)
{
  gboolean header = g_str_equal (kind, "header");

  for (guint i = 0; names != NULL && names[i] != NULL; i++)
    {
      const char *value = values != NULL ? values[i] : NULL;
      const char *one[] = { value, NULL };
      char *name[] = { names[i], NULL };

      if (value != NULL)
        {
          if (!store_secrets (self, row->id, row->name, kind, name, one, error))
            return FALSE;
        }
      else if (!has_name (old_names, names[i], header))
        {
          g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT, _("“%s” has no value."), names[i]);
          return FALSE;
        }
    }
  return TRUE;
}

/* The secrets of @old_names that @names no longer lists */
static void
clear_dropped_secrets (PrsMcpServers *self,
                       const char    *server_id,
                       const char    *kind,
                       char         **old_names,
                       char         **names)
{
  gboolean header = g_str_equal (kind, "header");

  for (guint i = 0; old_names != NULL && old_names[i] != NULL; i++)
    {
      char *one[] = { old_names[i], NULL };

      if (!has_name (names, old_names[i], header))
        clear_secrets (self, server_id, kind, one);
    }
}

gboolean
prs_mcp_servers_update (PrsMcpServers          *self,
                        const PrsMcpServerRow  *row,
                        const char * const     *header_values,
                        const char * const     *secret_env_values,
                        GError                **error)
{
  g_autoptr(PrsMcpServerRow) old = NULL;
  g_auto(GStrv) no_names = g_new0 (char *, 1);
  gboolean http;

  g_return_val_if_fail (PRS_IS_MCP_SERVERS (self), FALSE);
  g_return_val_if_fail (row != NULL && row->id != NULL, FALSE);

  if (!prs_mcp_server_row_validate (row, error))
    return FALSE;
  old = prs_store_lookup_mcp_server (self->store, row->id, error);
  if (old == NULL)
    {
      if (error != NULL && *error == NULL)
        g_set_error (error, PRS_ERROR, PRS_ERROR_NOT_FOUND, _("There is no MCP server “%s”."), row->id);
      return FALSE;
    }

  /* What a server of the other transport had is not kept */
  http = g_strcmp0 (row->transport, "http") == 0;
  if (!update_secrets (self, row, "header", http ? row->header_names : no_names,
                       g_strcmp0 (old->transport, "http") == 0 ? old->header_names : no_names, header_values, error) ||
      !update_secrets (self, row, "env", http ? no_names : row->secret_env,
                       g_strcmp0 (old->transport, "http") == 0 ? no_names : old->secret_env, secret_env_values, error) ||
      !prs_store_update_mcp_server (self->store, row, error))
    return FALSE;
  clear_dropped_secrets (self, row->id, "header", old->header_names, http ? row->header_names : no_names);
  clear_dropped_secrets (self, row->id, "env", old->secret_env, http ? no_names : row->secret_env);
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

static void
wipe_strv (char **strv)
{
  for (guint i = 0; strv != NULL && strv[i] != NULL; i++)
    memset (strv[i], 0, strlen (strv[i]));
  g_strfreev (strv);
}

/* The secrets a client of @row is made with: "Name: value" header lines
 * (http) or "NAME=value" environment entries (stdio). */
static char **
lookup_row_secrets (PrsSecrets             *secrets,
                    const PrsMcpServerRow  *row,
                    const char * const     *header_values,
                    const char * const     *secret_env_values,
                    GError                **error)
{
  if (g_strcmp0 (row->transport, "http") == 0)
    return lookup_secrets (secrets, row->id, "header", row->header_names, header_values, error);
  return lookup_secrets (secrets, row->id, "env", row->secret_env, secret_env_values, error);
}

/* Takes @secrets (from lookup_row_secrets), wiping them once used. */
static PrsMcpClient *
build_client (const PrsMcpServerRow  *row,
              char                  **secrets,
              const char * const     *reserved)
{
  g_autoptr(PrsMcpTransport) transport = NULL;
  PrsMcpClient *client;

  if (g_strcmp0 (row->transport, "http") == 0)
    transport = prs_mcp_http_new (row->url, (const char * const *) secrets);
  else
    {
      g_autoptr(GStrvBuilder) env = g_strv_builder_new ();
      char **all;

      if (row->env != NULL)
        g_strv_builder_addv (env, (const char **) row->env);
      g_strv_builder_addv (env, (const char **) secrets);
      all = g_strv_builder_end (env);
      transport = prs_mcp_stdio_new (row->command, (const char * const *) row->args, (const char * const *) all);
      wipe_strv (all);
    }
  wipe_strv (secrets);

  client = prs_mcp_client_new (row->name, transport);
  prs_mcp_client_set_reserved_names (client, reserved);
  return client;
}

PrsMcpClient *
prs_mcp_servers_create_client (PrsMcpServers          *self,
                               const PrsMcpServerRow  *row,
                               const char * const     *reserved,
                               GError                **error)
{
  char **secrets;

  g_return_val_if_fail (PRS_IS_MCP_SERVERS (self), NULL);
  g_return_val_if_fail (row != NULL, NULL);

  secrets = lookup_row_secrets (self->secrets, row, NULL, NULL, error);
  if (secrets == NULL)
    return NULL;
  return build_client (row, secrets, reserved);
}

typedef struct
{
  PrsMcpServerRow *row;
  GPtrArray       *header_values;      /* char*, NULL entries kept: from the keyring */
  GPtrArray       *secret_env_values;
  char           **reserved;
  PrsSecrets      *secrets;
} Creation;

static void
wipe_free (char *value)
{
  if (value != NULL)
    memset (value, 0, strlen (value));
  g_free (value);
}

/* @values has an entry (or NULL) for each of @names; NULL when @values is */
static GPtrArray *
copy_values (char              **names,
             const char * const *values)
{
  GPtrArray *copy;

  if (values == NULL)
    return NULL;
  copy = g_ptr_array_new_with_free_func ((GDestroyNotify) wipe_free);
  for (guint i = 0; names != NULL && names[i] != NULL; i++)
    g_ptr_array_add (copy, g_strdup (values[i]));
  g_ptr_array_add (copy, NULL);
  return copy;
}

static void
creation_free (Creation *creation)
{
  prs_mcp_server_row_free (creation->row);
  g_clear_pointer (&creation->header_values, g_ptr_array_unref);
  g_clear_pointer (&creation->secret_env_values, g_ptr_array_unref);
  g_strfreev (creation->reserved);
  g_clear_object (&creation->secrets);
  g_free (creation);
}

static void
lookup_in_thread (GTask        *task,
                  gpointer      source,
                  gpointer      task_data,
                  GCancellable *cancellable)
{
  Creation *creation = task_data;
  GError *error = NULL;
  char **secrets = lookup_row_secrets (creation->secrets, creation->row,
                                       creation->header_values != NULL
                                         ? (const char * const *) creation->header_values->pdata : NULL,
                                       creation->secret_env_values != NULL
                                         ? (const char * const *) creation->secret_env_values->pdata : NULL,
                                       &error);

  if (secrets == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, secrets, (GDestroyNotify) wipe_strv);
}

void
prs_mcp_servers_create_client_async (PrsMcpServers          *self,
                                     const PrsMcpServerRow  *row,
                                     const char * const     *header_values,
                                     const char * const     *secret_env_values,
                                     const char * const     *reserved,
                                     GCancellable           *cancellable,
                                     GAsyncReadyCallback     callback,
                                     gpointer                user_data)
{
  g_autoptr(GTask) task = NULL;
  Creation *creation;

  g_return_if_fail (PRS_IS_MCP_SERVERS (self));
  g_return_if_fail (row != NULL);

  creation = g_new0 (Creation, 1);
  creation->row = prs_mcp_server_row_copy (row);
  creation->header_values = copy_values (row->header_names, header_values);
  creation->secret_env_values = copy_values (row->secret_env, secret_env_values);
  creation->reserved = g_strdupv ((char **) reserved);
  creation->secrets = g_object_ref (self->secrets);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, prs_mcp_servers_create_client_async);
  g_task_set_task_data (task, creation, (GDestroyNotify) creation_free);
  prs_task_run_in_thread (task, lookup_in_thread);
}

PrsMcpClient *
prs_mcp_servers_create_client_finish (PrsMcpServers  *self,
                                      GAsyncResult   *result,
                                      GError        **error)
{
  Creation *creation;
  char **secrets;

  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  secrets = g_task_propagate_pointer (G_TASK (result), error);
  if (secrets == NULL)
    return NULL;
  creation = g_task_get_task_data (G_TASK (result));
  return build_client (creation->row, secrets, (const char * const *) creation->reserved);
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
