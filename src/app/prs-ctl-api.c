/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-ctl-api.c: prosponsive-ctl's client of the local API
 * (prs-ctl-api.h), on the one HTTP engine (prs-http-request.h). */
#include "config.h"

#include <string.h>
#include <glib/gi18n.h>

#include "prs-api-control.h"
#include "prs-api-port.h"
#include "prs-api-token.h"
#include "prs-ctl-api.h"
#include "prs-error.h"
#include "prs-http-request.h"
#include "prs-json.h"
#include "prs-secrets.h"
#include "prs-settings.h"
#include "prs-tls.h"

#define MAX_DEPTH         64
#define MAX_ANSWER        ((gsize) 16 * 1024 * 1024)
#define REQUEST_SECONDS   30

typedef struct
{
  PrsCtlApi     *api;
  PrsCtlApiDone  done;
  gpointer       data;
  char          *url;
} ApiCall;

gboolean
prs_ctl_api_read_control_key (PrsCtl      *ctl,
                              PrsSecrets  *secrets,
                              char       **out_key)
{
  g_autoptr(GError) error = NULL;

  /* A mistyped --data-dir is not a service that has yet to run */
  if (!prs_ctl_check_existing_data (ctl, &error))
    {
      g_printerr ("%s\n", error->message);
      return FALSE;
    }
  if (prs_api_control_read (secrets, out_key, &error))
    return TRUE;
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
    g_printerr (_("Prosponsive has not made the control key of the data folder %s yet: "
                  "start this version of Prosponsive first.\n"), ctl->data_dir);
  else
    g_printerr (_("Could not read the control key: %s\n"), error->message);
  return FALSE;
}

gboolean
prs_ctl_api_open (PrsCtl    *ctl,
                  PrsCtlApi *api,
                  guint      port,
                  gboolean   with_control_key)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsSecrets) secrets = NULL;
  g_autofree char *cert_path = g_build_filename (ctl->data_dir, PRS_TLS_CERT_FILE, NULL);

  /* --port, else the port the running service published, else the setting */
  if (port == 0)
    port = prs_api_port_read (ctl->data_dir);
  if (port == 0)
    {
      g_autoptr(PrsSettings) settings = prs_settings_new ();

      port = prs_settings_get_api_port (settings);
    }
  if (!prs_ctl_check_existing_data (ctl, &error))
    {
      g_printerr ("%s\n", error->message);
      return FALSE;
    }
  api->base_url = g_strdup_printf ("https://127.0.0.1:%u", port);
  api->certificate = g_tls_certificate_new_from_file (cert_path, NULL);
  if (api->certificate == NULL)
    {
      g_printerr (_("Prosponsive has not run with the data folder %s yet (it has no certificate): "
                    "start it first.\n"), ctl->data_dir);
      return FALSE;
    }
  secrets = prs_secrets_new (ctl->data_dir);
  if (with_control_key && !prs_ctl_api_read_control_key (ctl, secrets, &api->control_key))
    return FALSE;
  if (!prs_api_token_ensure (secrets, ctl->data_dir, &api->token, &error))
    {
      g_printerr (_("Could not read the local API's token: %s\n"), error->message);
      return FALSE;
    }
  api->session = prs_http_session_new (REQUEST_SECONDS);
  return TRUE;
}

void
prs_ctl_api_clear (PrsCtlApi *api)
{
  g_clear_object (&api->session);
  g_clear_object (&api->certificate);
  g_clear_pointer (&api->base_url, g_free);
  prs_secrets_wipe (&api->token);
  prs_secrets_wipe (&api->control_key);
}

/* The service's own certificate, and nothing else, is trusted */
static gboolean
on_accept_certificate (SoupMessage          *msg,
                       GTlsCertificate      *certificate,
                       GTlsCertificateFlags  errors,
                       gpointer              user_data)
{
  PrsCtlApi *api = user_data;

  return api->certificate != NULL && g_tls_certificate_is_same (certificate, api->certificate);
}

static void
on_api_answer (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  ApiCall *call = user_data;
  PrsHttpRequest *request = PRS_HTTP_REQUEST (source);
  g_autoptr(GError) cause = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) root = NULL;
  GBytes *body;

  if (!prs_http_request_send_finish (request, result, &cause))
    {
      if (prs_http_request_get_failure (request) == PRS_HTTP_FAILURE_REFUSED)
        error = g_error_new (PRS_ERROR, PRS_ERROR_FAILED,
                             _("Prosponsive is not running (nothing answers at %s). Start Prosponsive, "
                               "or “prosponsive --headless”, and try again."), call->api->base_url);
      else
        error = prs_http_request_describe_failure (request, cause, _("Prosponsive"), call->api->base_url,
                                                   PRS_ERROR_FAILED, PRS_ERROR_FAILED);
    }
  else if ((body = prs_http_request_get_body (request)) == NULL ||
           (root = prs_json_parse_strict (g_bytes_get_data (body, NULL), g_bytes_get_size (body),
                                          MAX_DEPTH, NULL)) == NULL ||
           !JSON_NODE_HOLDS_OBJECT (root))
    error = g_error_new (PRS_ERROR, PRS_ERROR_FAILED, _("Prosponsive answered %u without JSON."),
                         prs_http_request_get_status (request));

  call->done (prs_http_request_get_status (request),
              root != NULL && error == NULL ? json_node_get_object (root) : NULL, error, call->data);
  g_object_unref (request);
  g_free (call->url);
  g_free (call);
}

void
prs_ctl_api_request (PrsCtlApi     *api,
                     const char    *method,
                     const char    *path,
                     JsonObject    *body,
                     PrsCtlApiDone  done,
                     gpointer       data)
{
  ApiCall *call = g_new0 (ApiCall, 1);
  g_autofree char *bearer = g_strdup_printf ("Bearer %s", api->token);
  PrsHttpRequest *request;

  call->api = api;
  call->done = done;
  call->data = data;
  call->url = g_strconcat (api->base_url, path, NULL);
  request = prs_http_request_new (api->session, method, call->url);
  prs_http_request_set_header (request, "Authorization", bearer);
  if (api->control_key != NULL)
    prs_http_request_set_header (request, PRS_API_CONTROL_HEADER, api->control_key);
  prs_http_request_set_deadline (request, REQUEST_SECONDS);
  prs_http_request_set_limits (request, MAX_ANSWER, 0);
  if (body != NULL)
    {
      g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), body);

      prs_http_request_set_json_body (request, node);
      json_object_unref (body);
    }
  g_signal_connect (prs_http_request_get_message (request), "accept-certificate",
                    G_CALLBACK (on_accept_certificate), api);
  prs_http_request_send_async (request, NULL, on_api_answer, call);
  memset (bearer, 0, strlen (bearer));
}

typedef struct
{
  GMainLoop   *loop;
  guint        status;
  JsonObject  *answer;
  GError      *error;
} Waited;

static void
on_waited (guint       status,
           JsonObject *answer,
           GError     *error,
           gpointer    data)
{
  Waited *waited = data;

  waited->status = status;
  waited->answer = answer != NULL ? json_object_ref (answer) : NULL;
  waited->error = error != NULL ? g_error_copy (error) : NULL;
  g_main_loop_quit (waited->loop);
}

gboolean
prs_ctl_api_call (PrsCtlApi   *api,
                  const char  *method,
                  const char  *path,
                  JsonObject  *body,
                  guint       *out_status,
                  JsonObject **out_answer,
                  GError     **error)
{
  Waited waited = { g_main_loop_new (NULL, FALSE), 0, NULL, NULL };

  prs_ctl_api_request (api, method, path, body, on_waited, &waited);
  g_main_loop_run (waited.loop);
  g_main_loop_unref (waited.loop);
  *out_status = waited.status;
  *out_answer = waited.answer;
  if (waited.error != NULL)
    {
      g_propagate_error (error, waited.error);
      return FALSE;
    }
  return TRUE;
}

char *
prs_ctl_api_describe_refusal (guint       status,
                              JsonObject *answer,
                              GError     *error)
{
  const char *said = answer != NULL ? prs_json_object_get_string (answer, "error") : NULL;

  if (error != NULL)
    return g_strdup (error->message);
  if (status == SOUP_STATUS_UNAUTHORIZED)
    return g_strdup (_("Prosponsive refused the API token; was it rotated meanwhile? Run the command again (and start a running “mcp serve” again)."));
  if (said != NULL)
    return prs_http_clean_text (said, 1000);
  return g_strdup_printf (_("Prosponsive answered %u."), status);
}
