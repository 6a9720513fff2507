/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-http-request.c: one HTTP request, sent and read (prs-http-request.h).
 *
 * libsoup gets a cancellable of the request's own, to which the caller's is
 * forwarded: the deadline and an answer over the cap cancel it without
 * touching the caller's, and cancelling it mid-body makes libsoup drop the
 * connection instead of draining what is left. The body is read straight
 * into the array that keeps it, or into one buffer handed to the chunk
 * function, so no byte is copied on its way except into its parser. */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "prs-error.h"
#include "prs-http-request.h"
#include "prs-json.h"
#include "prs-thread.h"

#define READ_CHUNK_SIZE   ((gsize) 64 * 1024)
#define DEFAULT_MAX_BODY  ((gsize) 64 * 1024 * 1024)

struct _PrsHttpRequest
{
  GObject             parent_instance;

  PrsThreadOwner      owner;
  SoupSession        *session;
  SoupMessage        *msg;
  guint               deadline;
  gsize               max_body;
  gsize               max_error_body;
  PrsHttpHeadersFunc  headers_func;
  gpointer            headers_data;
  PrsHttpChunkFunc    chunk_func;
  gpointer            chunk_data;

  GInputStream       *stream;
  GByteArray         *body;          /* while the answer is read and kept */
  GBytes             *body_bytes;    /* once it is complete */
  guint8             *buffer;        /* for a streamed body */
  guint64             received;
  gboolean            started;
  gboolean            sent;          /* the request's headers went out */
  gboolean            reading;       /* past the status line and headers */
  gboolean            streaming;
  gboolean            cutting;       /* an error body, read for its message */
  gboolean            deadline_passed;
  PrsHttpFailure      failure;

  GCancellable       *internal;
  GCancellable       *outer;
  gulong              outer_handler;
  GSource            *deadline_source;
};

G_DEFINE_FINAL_TYPE (PrsHttpRequest, prs_http_request, G_TYPE_OBJECT)

SoupSession *
prs_http_session_new (guint io_timeout)
{
  return prs_http_session_new_for (io_timeout, NULL);
}

/* A loopback host: "localhost" or a 127.0.0.0/8 or ::1 literal */
static gboolean
is_loopback_url (const char *url)
{
  g_autoptr(GUri) uri = url != NULL ? g_uri_parse (url, G_URI_FLAGS_NONE, NULL) : NULL;
  g_autoptr(GInetAddress) address = NULL;
  const char *host = uri != NULL ? g_uri_get_host (uri) : NULL;

  if (host == NULL)
    return FALSE;
  if (g_ascii_strcasecmp (host, "localhost") == 0)
    return TRUE;
  address = g_inet_address_new_from_string (host);
  return address != NULL && g_inet_address_get_is_loopback (address);
}

SoupSession *
prs_http_session_new_for (guint       io_timeout,
                          const char *base_url)
{
  /* Asking the system's proxy resolver costs a thread hop and libproxy's
   * work on every connection, and no proxy setting sends loopback traffic
   * anywhere but here (GNOME's ignore-hosts default): go there directly */
  if (is_loopback_url (base_url))
    return soup_session_new_with_options ("user-agent", "Prosponsive/" PACKAGE_VERSION,
                                          "timeout", io_timeout,
                                          "proxy-resolver", NULL,
                                          NULL);
  return soup_session_new_with_options ("user-agent", "Prosponsive/" PACKAGE_VERSION,
                                        "timeout", io_timeout,
                                        NULL);
}

static void
stop_waiting (PrsHttpRequest *self)
{
  if (self->deadline_source != NULL)
    {
      g_source_destroy (self->deadline_source);
      g_clear_pointer (&self->deadline_source, g_source_unref);
    }
  if (self->outer != NULL && self->outer_handler != 0)
    g_cancellable_disconnect (self->outer, self->outer_handler);
  self->outer_handler = 0;
}

static void
prs_http_request_finalize (GObject *object)
{
  PrsHttpRequest *self = PRS_HTTP_REQUEST (object);

  stop_waiting (self);
  g_clear_object (&self->outer);
  g_clear_object (&self->internal);
  g_clear_object (&self->stream);
  g_clear_object (&self->msg);
  g_clear_object (&self->session);
  g_clear_pointer (&self->body, g_byte_array_unref);
  g_clear_pointer (&self->body_bytes, g_bytes_unref);
  g_free (self->buffer);

  G_OBJECT_CLASS (prs_http_request_parent_class)->finalize (object);
}

static void
prs_http_request_class_init (PrsHttpRequestClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = prs_http_request_finalize;
}

static void
prs_http_request_init (PrsHttpRequest *self)
{
  self->max_body = DEFAULT_MAX_BODY;
}

PrsHttpRequest *
prs_http_request_new (SoupSession *session,
                      const char  *method,
                      const char  *url)
{
  PrsHttpRequest *self;
  SoupMessage *msg;
  const char *scheme;

  g_return_val_if_fail (SOUP_IS_SESSION (session), NULL);
  g_return_val_if_fail (method != NULL && url != NULL, NULL);

  msg = soup_message_new (method, url);
  if (msg == NULL)
    return NULL;
  scheme = g_uri_get_scheme (soup_message_get_uri (msg));
  if (g_ascii_strcasecmp (scheme, "http") != 0 && g_ascii_strcasecmp (scheme, "https") != 0)
    {
      g_object_unref (msg);
      return NULL;
    }

  self = g_object_new (PRS_TYPE_HTTP_REQUEST, NULL);
  self->session = g_object_ref (session);
  self->msg = msg;
  soup_message_add_flags (self->msg, SOUP_MESSAGE_NO_REDIRECT);
  return self;
}

void
prs_http_request_set_header (PrsHttpRequest *self,
                             const char     *name,
                             const char     *value)
{
  g_return_if_fail (PRS_IS_HTTP_REQUEST (self));

  soup_message_headers_replace (soup_message_get_request_headers (self->msg), name, value);
}

void
prs_http_request_set_body (PrsHttpRequest *self,
                           const char     *content_type,
                           GBytes         *body)
{
  g_return_if_fail (PRS_IS_HTTP_REQUEST (self));

  soup_message_set_request_body_from_bytes (self->msg, content_type, body);
}

void
prs_http_request_set_json_body (PrsHttpRequest *self,
                                JsonNode       *body)
{
  g_autoptr(GBytes) bytes = NULL;
  char *text;

  g_return_if_fail (PRS_IS_HTTP_REQUEST (self));
  g_return_if_fail (body != NULL);

  text = prs_json_to_string (body, FALSE);
  bytes = g_bytes_new_take (text, strlen (text));
  prs_http_request_set_body (self, "application/json", bytes);
}

void
prs_http_request_set_deadline (PrsHttpRequest *self,
                               guint           seconds)
{
  g_return_if_fail (PRS_IS_HTTP_REQUEST (self));
  g_return_if_fail (!self->started);

  self->deadline = seconds;
}

void
prs_http_request_set_limits (PrsHttpRequest *self,
                             gsize           max_body,
                             gsize           max_error_body)
{
  g_return_if_fail (PRS_IS_HTTP_REQUEST (self));
  g_return_if_fail (max_body > 0);
  g_return_if_fail (self->body == NULL && self->received == 0);

  self->max_body = max_body;
  self->max_error_body = max_error_body;
}

void
prs_http_request_set_headers_func (PrsHttpRequest     *self,
                                   PrsHttpHeadersFunc  func,
                                   gpointer            user_data)
{
  g_return_if_fail (PRS_IS_HTTP_REQUEST (self));

  self->headers_func = func;
  self->headers_data = user_data;
}

void
prs_http_request_stream_body (PrsHttpRequest   *self,
                              PrsHttpChunkFunc  func,
                              gpointer          user_data)
{
  g_return_if_fail (PRS_IS_HTTP_REQUEST (self));
  g_return_if_fail (self->reading && self->body == NULL);
  g_return_if_fail (SOUP_STATUS_IS_SUCCESSFUL (soup_message_get_status (self->msg)));

  self->streaming = TRUE;
  self->chunk_func = func;
  self->chunk_data = user_data;
}

/* ---- Failures ----------------------------------------------------------- */

static PrsHttpFailure
classify (const GError *error,
          gboolean      reading)
{
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return PRS_HTTP_FAILURE_CANCELLED;
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT))
    return PRS_HTTP_FAILURE_TIMEOUT;
  if (error->domain == SOUP_SESSION_ERROR)
    return PRS_HTTP_FAILURE_NOT_HTTP;
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CONNECTION_REFUSED))
    return PRS_HTTP_FAILURE_REFUSED;
  if (error->domain == G_RESOLVER_ERROR)
    return PRS_HTTP_FAILURE_DNS;
  if (error->domain == G_TLS_ERROR)
    return PRS_HTTP_FAILURE_TLS;
  if (reading)
    return PRS_HTTP_FAILURE_BROKEN;
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_HOST_UNREACHABLE) ||
      g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NETWORK_UNREACHABLE))
    return PRS_HTTP_FAILURE_UNREACHABLE;
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_HOST_NOT_FOUND) ||
      g_error_matches (error, G_IO_ERROR, G_IO_ERROR_PROXY_FAILED) ||
      g_error_matches (error, G_IO_ERROR, G_IO_ERROR_PROXY_NOT_ALLOWED))
    return PRS_HTTP_FAILURE_CONNECT;
  return PRS_HTTP_FAILURE_OTHER;
}

/* Ends the send with @error (taken) as it is. */
static void
end_with_error (GTask  *task,
                GError *error)
{
  PrsHttpRequest *self = g_task_get_source_object (task);

  stop_waiting (self);
  /* Drop the connection rather than drain what is left of the body. */
  g_cancellable_cancel (self->internal);
  g_clear_object (&self->stream);
  g_task_return_error (task, error);
}

/* Ends the send with @error (taken) from GIO or libsoup, sorted. */
static void
fail (GTask  *task,
      GError *error)
{
  PrsHttpRequest *self = g_task_get_source_object (task);

  if (self->deadline_passed)
    {
      g_clear_error (&error);
      error = g_error_new (G_IO_ERROR, G_IO_ERROR_TIMED_OUT,
                           "No complete answer within %u s", self->deadline);
      self->failure = PRS_HTTP_FAILURE_TIMEOUT;
    }
  else if (self->outer != NULL && g_cancellable_is_cancelled (self->outer))
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          g_clear_error (&error);
          error = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED, "Operation was cancelled");
        }
      self->failure = PRS_HTTP_FAILURE_CANCELLED;
    }
  else
    self->failure = classify (error, self->reading);

  end_with_error (task, error);
}

static void
fail_too_large (GTask *task)
{
  PrsHttpRequest *self = g_task_get_source_object (task);
  g_autofree char *limit = g_format_size_full (self->max_body, G_FORMAT_SIZE_IEC_UNITS);

  self->failure = PRS_HTTP_FAILURE_TOO_LARGE;
  end_with_error (task, g_error_new (G_IO_ERROR, G_IO_ERROR_MESSAGE_TOO_LARGE,
                           "The answer is larger than %s", limit));
}

/* ---- Reading ------------------------------------------------------------ */

static void
complete (GTask *task)
{
  PrsHttpRequest *self = g_task_get_source_object (task);

  stop_waiting (self);
  if (self->body != NULL)
    self->body_bytes = g_byte_array_free_to_bytes (g_steal_pointer (&self->body));
  if (self->cutting)
    g_cancellable_cancel (self->internal);   /* the rest is not read */
  g_clear_object (&self->stream);
  g_task_return_boolean (task, TRUE);
}

static void on_read (GObject      *source,
                     GAsyncResult *result,
                     gpointer      user_data);

/* Every read asks for a whole chunk: libsoup's chunked decoder reads the
 * trailer line into the caller's buffer and needs room for it, so a read
 * is never cut to what is left below a cap; what arrived is counted after. */
static void
read_next (GTask *task)
{
  PrsHttpRequest *self = g_task_get_source_object (task);
  guint8 *into;

  if (self->streaming)
    {
      if (self->buffer == NULL)
        self->buffer = g_malloc (READ_CHUNK_SIZE);
      into = self->buffer;
    }
  else
    {
      g_byte_array_set_size (self->body, self->body->len + READ_CHUNK_SIZE);
      into = self->body->data + self->body->len - READ_CHUNK_SIZE;
    }
  g_input_stream_read_async (self->stream, into, READ_CHUNK_SIZE, G_PRIORITY_DEFAULT,
                             self->internal, on_read, task);
}

static void
on_read (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  PrsHttpRequest *self = g_task_get_source_object (task);
  g_autoptr(GError) error = NULL;
  gssize n;

  PRS_ASSERT_OWNER (&self->owner);

  n = g_input_stream_read_finish (G_INPUT_STREAM (source), result, &error);
  if (!self->streaming)
    {
      gsize before = self->body->len - READ_CHUNK_SIZE;
      gsize keep = MAX (n, 0);

      /* An error body is kept up to its cut, and read no further. */
      if (self->cutting)
        keep = MIN (keep, self->max_error_body - before);
      g_byte_array_set_size (self->body, before + keep);
    }
  if (n < 0)
    {
      fail (task, g_steal_pointer (&error));
      return;
    }
  if (n == 0 || (self->cutting && self->body->len >= self->max_error_body))
    {
      complete (task);
      return;
    }

  self->received += n;
  if (!self->cutting && self->received > self->max_body)
    {
      fail_too_large (task);
      return;
    }
  if (self->streaming && !self->chunk_func ((const char *) self->buffer, n, self->chunk_data, &error))
    {
      end_with_error (task, g_steal_pointer (&error));
      return;
    }

  read_next (g_steal_pointer (&task));
}

static void
on_sent (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  PrsHttpRequest *self = g_task_get_source_object (task);
  g_autoptr(GError) error = NULL;
  SoupMessageHeaders *headers;
  GUri *uri;

  PRS_ASSERT_OWNER (&self->owner);

  self->stream = soup_session_send_finish (SOUP_SESSION (source), result, &error);
  if (self->stream == NULL)
    {
      fail (task, g_steal_pointer (&error));
      return;
    }
  self->reading = TRUE;

  uri = soup_message_get_uri (self->msg);
  g_debug ("%s %s://%s:%d%s → %u", soup_message_get_method (self->msg), g_uri_get_scheme (uri),
           g_uri_get_host (uri), g_uri_get_port (uri), g_uri_get_path (uri),
           soup_message_get_status (self->msg));

  if (self->headers_func != NULL)
    self->headers_func (self, self->headers_data);

  headers = soup_message_get_response_headers (self->msg);
  self->cutting = !SOUP_STATUS_IS_SUCCESSFUL (soup_message_get_status (self->msg)) &&
                  self->max_error_body > 0;
  if (!self->cutting && soup_message_headers_get_encoding (headers) == SOUP_ENCODING_CONTENT_LENGTH &&
      soup_message_headers_get_content_length (headers) > (goffset) self->max_body)
    {
      fail_too_large (task);
      return;
    }
  if (!self->streaming)
    self->body = g_byte_array_new ();

  read_next (g_steal_pointer (&task));
}

static void
on_wrote_headers (SoupMessage *msg,
                  gpointer     user_data)
{
  PrsHttpRequest *self = user_data;

  self->sent = TRUE;
}

static gboolean
on_deadline (gpointer user_data)
{
  PrsHttpRequest *self = user_data;

  self->deadline_passed = TRUE;
  g_clear_pointer (&self->deadline_source, g_source_unref);
  /* The pending send or read then fails, and fail() words it. */
  g_cancellable_cancel (self->internal);
  return G_SOURCE_REMOVE;
}

static void
on_outer_cancelled (GCancellable *outer,
                    gpointer      user_data)
{
  g_cancellable_cancel (G_CANCELLABLE (user_data));
}

void
prs_http_request_send_async (PrsHttpRequest      *self,
                             GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  GTask *task;

  g_return_if_fail (PRS_IS_HTTP_REQUEST (self));
  g_return_if_fail (!self->started);
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  prs_thread_owner_claim (&self->owner);
  self->started = TRUE;
  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, prs_http_request_send_async);
  /* fail() tells the caller's cancellation from the rest. */
  g_task_set_check_cancellable (task, FALSE);

  self->internal = g_cancellable_new ();
  if (cancellable != NULL)
    {
      self->outer = g_object_ref (cancellable);
      self->outer_handler = g_cancellable_connect (cancellable, G_CALLBACK (on_outer_cancelled),
                                                   g_object_ref (self->internal), g_object_unref);
    }
  if (self->deadline > 0)
    {
      self->deadline_source = g_timeout_source_new_seconds (self->deadline);
      g_source_set_callback (self->deadline_source, on_deadline, self, NULL);
      g_source_set_static_name (self->deadline_source, "[prosponsive] HTTP deadline");
      g_source_attach (self->deadline_source, g_task_get_context (task));
    }
  g_signal_connect_object (self->msg, "wrote-headers", G_CALLBACK (on_wrote_headers), self, 0);

  soup_session_send_async (self->session, self->msg, G_PRIORITY_DEFAULT, self->internal,
                           on_sent, task);
}

gboolean
prs_http_request_send_finish (PrsHttpRequest  *self,
                              GAsyncResult    *result,
                              GError         **error)
{
  g_return_val_if_fail (PRS_IS_HTTP_REQUEST (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/* ---- The answer --------------------------------------------------------- */

SoupMessage *
prs_http_request_get_message (PrsHttpRequest *self)
{
  g_return_val_if_fail (PRS_IS_HTTP_REQUEST (self), NULL);

  return self->msg;
}

PrsHttpFailure
prs_http_request_get_failure (PrsHttpRequest *self)
{
  g_return_val_if_fail (PRS_IS_HTTP_REQUEST (self), PRS_HTTP_FAILURE_NONE);

  return self->failure;
}

gboolean
prs_http_request_get_sent (PrsHttpRequest *self)
{
  g_return_val_if_fail (PRS_IS_HTTP_REQUEST (self), FALSE);

  return self->sent;
}

guint
prs_http_request_get_timeout (PrsHttpRequest *self)
{
  g_return_val_if_fail (PRS_IS_HTTP_REQUEST (self), 0);

  return self->deadline_passed ? self->deadline : soup_session_get_timeout (self->session);
}

guint
prs_http_request_get_status (PrsHttpRequest *self)
{
  g_return_val_if_fail (PRS_IS_HTTP_REQUEST (self), 0);

  return soup_message_get_status (self->msg);
}

gboolean
prs_http_has_control_chars (const char *text)
{
  for (const char *p = text; *p != '\0'; p++)
    {
      if ((guchar) *p < 0x20 || (guchar) *p == 0x7f)
        return TRUE;
    }
  return FALSE;
}

const char *
prs_http_request_get_reason (PrsHttpRequest *self)
{
  const char *reason;

  g_return_val_if_fail (PRS_IS_HTTP_REQUEST (self), "");

  reason = soup_message_get_reason_phrase (self->msg);
  if (reason == NULL || reason[0] == '\0' || prs_http_has_control_chars (reason))
    reason = soup_status_get_phrase (soup_message_get_status (self->msg));
  return reason != NULL ? reason : "";
}

const char *
prs_http_request_get_content_type (PrsHttpRequest *self)
{
  const char *type;

  g_return_val_if_fail (PRS_IS_HTTP_REQUEST (self), NULL);

  type = soup_message_headers_get_content_type (soup_message_get_response_headers (self->msg), NULL);
  return type != NULL && !prs_http_has_control_chars (type) ? type : NULL;
}

gboolean
prs_http_request_has_content_type (PrsHttpRequest *self,
                                   const char     *type)
{
  const char *content_type = prs_http_request_get_content_type (self);

  return content_type != NULL && g_ascii_strcasecmp (content_type, type) == 0;
}

const char *
prs_http_request_get_response_header (PrsHttpRequest *self,
                                      const char     *name)
{
  const char *value;

  g_return_val_if_fail (PRS_IS_HTTP_REQUEST (self), NULL);

  value = soup_message_headers_get_one (soup_message_get_response_headers (self->msg), name);
  return value != NULL && !prs_http_has_control_chars (value) ? value : NULL;
}

guint
prs_http_request_get_retry_after (PrsHttpRequest *self,
                                  guint           max)
{
  return prs_http_parse_retry_after (prs_http_request_get_response_header (self, "Retry-After"), max);
}

guint
prs_http_parse_retry_after (const char *value,
                            guint       max)
{
  g_autoptr(GDateTime) when = NULL;
  g_autoptr(GDateTime) now = NULL;
  GTimeSpan span;
  guint64 seconds;
  char *end = NULL;

  if (value == NULL)
    return 0;

  while (g_ascii_isspace (*value))
    value++;
  if (g_ascii_isdigit (*value))
    {
      seconds = g_ascii_strtoull (value, &end, 10);
      /* Some send fractions ("1.5"): round up. */
      if (end != NULL && *end == '.' && g_ascii_isdigit (end[1]))
        seconds++;
      return (guint) MIN (seconds, max);
    }

  when = soup_date_time_new_from_http_string (value);
  if (when == NULL)
    return 0;
  now = g_date_time_new_now_utc ();
  span = g_date_time_difference (when, now);
  seconds = span > 0 ? (span + G_TIME_SPAN_SECOND - 1) / G_TIME_SPAN_SECOND : 0;
  return (guint) MIN (seconds, max);
}

GBytes *
prs_http_request_get_body (PrsHttpRequest *self)
{
  g_return_val_if_fail (PRS_IS_HTTP_REQUEST (self), NULL);

  return self->body_bytes;
}

/* ---- Words -------------------------------------------------------------- */

GError *
prs_http_request_describe_failure (PrsHttpRequest *self,
                                   const GError   *cause,
                                   const char     *name,
                                   const char     *url,
                                   int             unreachable,
                                   int             bad_response)
{
  guint seconds;

  g_return_val_if_fail (PRS_IS_HTTP_REQUEST (self), NULL);
  g_return_val_if_fail (cause != NULL, NULL);

  switch (self->failure)
    {
    case PRS_HTTP_FAILURE_TIMEOUT:
      seconds = prs_http_request_get_timeout (self);
      return g_error_new (PRS_ERROR, unreachable,
                          g_dngettext (GETTEXT_PACKAGE,
                                       "%s at %s did not answer within %u second. "
                                       "Is it running, and is it not overloaded?",
                                       "%s at %s did not answer within %u seconds. "
                                       "Is it running, and is it not overloaded?",
                                       seconds),
                          name, url, seconds);

    case PRS_HTTP_FAILURE_NOT_HTTP:
      return g_error_new (PRS_ERROR, bad_response,
                          _("%s at %s sent an answer that is not valid HTTP (%s). "
                            "Check the base URL."), name, url, cause->message);

    case PRS_HTTP_FAILURE_REFUSED:
      return g_error_new (PRS_ERROR, unreachable,
                          _("Could not connect to %s at %s: connection refused. Is it running?"),
                          name, url);

    case PRS_HTTP_FAILURE_DNS:
      return g_error_new (PRS_ERROR, unreachable,
                          _("Could not connect to %s at %s: the host name could not be "
                            "resolved (%s). Check the base URL and the network."),
                          name, url, cause->message);

    case PRS_HTTP_FAILURE_TLS:
      return g_error_new (PRS_ERROR, unreachable,
                          _("Could not connect to %s at %s: the secure (TLS) connection "
                            "failed (%s)."), name, url, cause->message);

    case PRS_HTTP_FAILURE_BROKEN:
      return g_error_new (PRS_ERROR, unreachable,
                          _("The connection to %s at %s broke off during the answer (%s)."),
                          name, url, cause->message);

    case PRS_HTTP_FAILURE_UNREACHABLE:
    case PRS_HTTP_FAILURE_CONNECT:
    case PRS_HTTP_FAILURE_OTHER:
      return g_error_new (PRS_ERROR, unreachable, _("Could not connect to %s at %s: %s."),
                          name, url, cause->message);

    case PRS_HTTP_FAILURE_NONE:
    case PRS_HTTP_FAILURE_CANCELLED:
    case PRS_HTTP_FAILURE_TOO_LARGE:
    default:
      return g_error_copy (cause);
    }
}

/* One cleaning for both: control characters become spaces, except tab
 * and line feed when @keep_lines. */
static char *
clean_text (const char *text,
            guint       max_chars,
            gboolean    keep_lines)
{
  GString *out;
  const char *p;
  guint chars = 0;

  if (text == NULL || !g_utf8_validate (text, -1, NULL))
    return NULL;

  out = g_string_new (NULL);
  for (p = text; *p != '\0' && chars < max_chars; p = g_utf8_next_char (p), chars++)
    {
      gunichar c = g_utf8_get_char (p);

      if (g_unichar_iscntrl (c) && !(keep_lines && (c == '\n' || c == '\t')))
        c = ' ';
      g_string_append_unichar (out, c);
    }
  if (*p != '\0')
    g_string_append (out, "…");
  g_strstrip (out->str);
  if (out->str[0] == '\0')
    {
      g_string_free (out, TRUE);
      return NULL;
    }
  return g_string_free (out, FALSE);
}

char *
prs_http_clean_text (const char *text,
                     guint       max_chars)
{
  return clean_text (text, max_chars, FALSE);
}

char *
prs_http_clean_lines (const char *text,
                      guint       max_chars)
{
  return clean_text (text, max_chars, TRUE);
}

gboolean
prs_http_is_header_name (const char *name)
{
  if (name == NULL || *name == '\0')
    return FALSE;
  for (const char *p = name; *p != '\0'; p++)
    {
      /* RFC 9110 token characters */
      if (!g_ascii_isalnum (*p) && strchr ("!#$%&'*+-.^_`|~", *p) == NULL)
        return FALSE;
    }
  return TRUE;
}
