/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-api-stream.c: the streams between a connection's socket and libsoup:
 * one TLS record per answer, and a record read in one recv().
 *
 * libsoup 3.2.3 writes an answer's header block and then its body as two
 * writes (soup-server-message-io-http1.c, io_write), and glib-networking
 * makes each write a TLS record and a sendto(). Here the header block of a
 * final answer is held, and goes out in one write with what libsoup writes
 * next: the body, or nothing, when libsoup closes the body's stream, which
 * flushes this one (SoupBodyOutputStream is a GFilterOutputStream that
 * does not close its base). Everything else passes straight through: 1xx
 * answers (a client waiting for "100 Continue" gets it at once), the rest
 * of a body, reads.
 *
 * Writing stays non-blocking and pollable as GIO requires: a combined write
 * that would block keeps the held block and fails with WOULD_BLOCK, and
 * libsoup, which keeps its buffer, tries the same write again when the TLS
 * stream is writable (GnuTLS then sends the record it already made). A
 * flush that would block leaves the block to a source of its own that
 * writes it once the socket takes it; libsoup's next write waits for it.
 *
 * The wrapper is a GTlsConnection (its properties are the wrapped one's)
 * because libsoup calls a connection HTTPS only when its stream is one
 * (soup-server-connection.c, soup_server_connection_is_ssl), and the
 * framing checks rely on that. What libsoup waits on (the input's and the
 * output's sources) has no fd of its own: prs-api-wait.c. Measured:
 * bench/RESULTS.md. */
#include "config.h"

#include <string.h>

#include "prs-api-stream.h"
#include "prs-api-wait.h"

/* An answer's headers are a few hundred bytes; the largest plaintext of a
 * TLS record is 16 KiB */
#define HOLD_MAX     8192
#define RECORD_MAX   16384

#define PRS_TYPE_API_OUTPUT (prs_api_output_get_type ())
G_DECLARE_FINAL_TYPE (PrsApiOutput, prs_api_output, PRS, API_OUTPUT, GOutputStream)

struct _PrsApiOutput
{
  GOutputStream  parent_instance;
  GOutputStream *base;    /* the TLS connection's */
  GByteArray    *held;    /* a header block waiting for its body */
  GSource       *drain;   /* writes what a flush could not */
  GSource       *watch;   /* the socket's (prs-api-wait.c) */
  gboolean       refused; /* the last write would have blocked */
};

static void prs_api_output_pollable_init (GPollableOutputStreamInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (PrsApiOutput, prs_api_output, G_TYPE_OUTPUT_STREAM,
                               G_IMPLEMENT_INTERFACE (G_TYPE_POLLABLE_OUTPUT_STREAM,
                                                      prs_api_output_pollable_init))

/* The complete header block of a final answer, as libsoup writes it in one
 * piece: "HTTP/1.x NNN …\r\n … \r\n\r\n", NNN not 1xx */
static gboolean
is_answer_head (const guint8 *data,
                gsize         count)
{
  return count >= 16 && count <= HOLD_MAX &&
         memcmp (data, "HTTP/1.", 7) == 0 && data[8] == ' ' &&
         data[9] >= '2' && data[9] <= '5' &&
         memcmp (data + count - 4, "\r\n\r\n", 4) == 0;
}

static void
set_would_block (GError **error)
{
  g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK,
                       "The connection cannot take more now");
}

/* Every write to the TLS stream: whether the socket refused the last one
 * (GnuTLS may then hold part of a record) decides how the connection
 * closes (prs_api_stream_close_fn) */
static gssize
write_base (PrsApiOutput  *self,
            const void    *buffer,
            gsize          count,
            GError       **error)
{
  GError *local_error = NULL;
  gssize n = g_pollable_output_stream_write_nonblocking (G_POLLABLE_OUTPUT_STREAM (self->base),
                                                         buffer, count, NULL, &local_error);

  self->refused = g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK);
  if (local_error != NULL)
    g_propagate_error (error, local_error);
  return n;
}

/* Writes what is held, without blocking: TRUE when nothing is left */
static gboolean
write_held (PrsApiOutput  *self,
            GError       **error)
{
  gssize n = write_base (self, self->held->data, self->held->len, error);

  if (n < 0)
    return FALSE;

  /* GnuTLS, asked again after a write that would block, sends the record
   * it made then and reports that write's length, whatever it is given now
   * (gnutls_record_send). When libsoup's combined write of the block and a
   * body's start was refused and the connection closes before libsoup
   * retries it, this flush sends both and reports more than is held: the
   * block is gone, and must not go a second time
   * (tests/core/test-api-stream.c, close-while-write-waits) */
  g_byte_array_remove_range (self->held, 0, MIN ((guint) n, self->held->len));
  if (self->held->len > 0)
    {
      set_would_block (error);
      return FALSE;
    }

  return TRUE;
}

static void
stop_drain (PrsApiOutput *self)
{
  if (self->drain != NULL)
    {
      g_source_destroy (self->drain);
      g_clear_pointer (&self->drain, g_source_unref);
    }
}

static gboolean
on_drain (GObject  *base,
          gpointer  user_data)
{
  PrsApiOutput *self = user_data;
  g_autoptr(GError) error = NULL;

  if (!write_held (self, &error))
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK))
        return G_SOURCE_CONTINUE;
      /* The connection is broken: libsoup learns it on its next read */
      g_byte_array_set_size (self->held, 0);
    }

  g_clear_pointer (&self->drain, g_source_unref);
  return G_SOURCE_REMOVE;
}

static void
start_drain (PrsApiOutput *self)
{
  g_autoptr(GMainContext) context = g_main_context_ref_thread_default ();

  if (self->drain != NULL)
    return;

  self->drain = g_pollable_output_stream_create_source (G_POLLABLE_OUTPUT_STREAM (self->base), NULL);
  g_source_set_callback (self->drain, G_SOURCE_FUNC (on_drain), self, NULL);
  g_source_attach (self->drain, context);
}

static gssize
prs_api_output_write_nonblocking (GPollableOutputStream  *stream,
                                  const void             *buffer,
                                  gsize                   count,
                                  GError                **error)
{
  PrsApiOutput *self = PRS_API_OUTPUT (stream);
  guint held_len = self->held->len;
  gsize taken;
  gssize n;

  if (held_len == 0)
    {
      if (is_answer_head (buffer, count))
        {
          g_byte_array_append (self->held, buffer, (guint) count);
          return (gssize) count;
        }
      return write_base (self, buffer, count, error);
    }

  /* The held block and the start of this write, as one record; the
   * appended copy is dropped again whatever happens, since libsoup keeps
   * its buffer and offers what was not taken once more */
  taken = MIN (count, (gsize) (RECORD_MAX - MIN (held_len, RECORD_MAX)));
  g_byte_array_append (self->held, buffer, (guint) taken);
  n = write_base (self, self->held->data, self->held->len, error);
  g_byte_array_set_size (self->held, held_len);
  if (n < 0)
    return -1;

  if ((gsize) n < held_len)
    {
      g_byte_array_remove_range (self->held, 0, (guint) n);
      set_would_block (error);
      return -1;
    }

  g_byte_array_set_size (self->held, 0);
  stop_drain (self);
  if ((gsize) n == held_len)
    {
      set_would_block (error);
      return -1;
    }

  return n - (gssize) held_len;
}

static gboolean
prs_api_output_is_writable (GPollableOutputStream *stream)
{
  PrsApiOutput *self = PRS_API_OUTPUT (stream);

  return g_pollable_output_stream_is_writable (G_POLLABLE_OUTPUT_STREAM (self->base));
}

static GSource *
prs_api_output_create_source (GPollableOutputStream *stream,
                              GCancellable          *cancellable)
{
  PrsApiOutput *self = PRS_API_OUTPUT (stream);

  return prs_api_wait_source_new (self->watch, G_OBJECT (stream), G_IO_OUT, NULL, NULL, cancellable);
}

/* Blocking writes (the framing checks' 400, prs-api-framing.c) go after
 * anything held, in order, and do not block either: a client that filled
 * the socket with answers it does not read would hold the API thread
 * (tests/api/HARDENING.md, "Nagle"). They join what is held, which goes
 * now or with the drain source (tests/core/test-api-stream.c,
 * reject-while-full) */
static gssize
prs_api_output_write_fn (GOutputStream  *stream,
                         const void     *buffer,
                         gsize           count,
                         GCancellable   *cancellable,
                         GError        **error)
{
  PrsApiOutput *self = PRS_API_OUTPUT (stream);
  g_autoptr(GError) local_error = NULL;

  g_byte_array_append (self->held, buffer, (guint) count);
  if (self->drain != NULL || write_held (self, &local_error))
    return (gssize) count;

  if (!g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK))
    {
      g_byte_array_set_size (self->held, 0);
      g_propagate_error (error, g_steal_pointer (&local_error));
      return -1;
    }

  start_drain (self);
  return (gssize) count;
}

/* libsoup closes an answer's body stream when the answer is complete,
 * which flushes this one: whatever is held goes now, or, if the socket
 * cannot take it, as soon as it can */
static gboolean
prs_api_output_flush (GOutputStream  *stream,
                      GCancellable   *cancellable,
                      GError        **error)
{
  PrsApiOutput *self = PRS_API_OUTPUT (stream);
  g_autoptr(GError) local_error = NULL;

  if (self->held->len == 0)
    return g_output_stream_flush (self->base, cancellable, error);

  if (self->drain != NULL)
    return TRUE;

  if (write_held (self, &local_error))
    return g_output_stream_flush (self->base, cancellable, error);

  if (!g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK))
    {
      g_propagate_error (error, g_steal_pointer (&local_error));
      return FALSE;
    }

  start_drain (self);
  return TRUE;
}

/* The connection closes: what is held goes if the socket takes it now
 * (a client that does not read its answers gets no more) */
static gboolean
prs_api_output_close_fn (GOutputStream  *stream,
                         GCancellable   *cancellable,
                         GError        **error)
{
  PrsApiOutput *self = PRS_API_OUTPUT (stream);

  stop_drain (self);
  if (self->held->len > 0)
    write_held (self, NULL);
  g_byte_array_set_size (self->held, 0);

  return TRUE;
}

static void
prs_api_output_finalize (GObject *object)
{
  PrsApiOutput *self = PRS_API_OUTPUT (object);

  stop_drain (self);
  g_byte_array_unref (self->held);
  g_clear_object (&self->base);
  g_clear_pointer (&self->watch, g_source_unref);

  G_OBJECT_CLASS (prs_api_output_parent_class)->finalize (object);
}

static void
prs_api_output_class_init (PrsApiOutputClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GOutputStreamClass *stream_class = G_OUTPUT_STREAM_CLASS (klass);

  object_class->finalize = prs_api_output_finalize;
  stream_class->write_fn = prs_api_output_write_fn;
  stream_class->flush = prs_api_output_flush;
  stream_class->close_fn = prs_api_output_close_fn;
}

static void
prs_api_output_pollable_init (GPollableOutputStreamInterface *iface)
{
  iface->is_writable = prs_api_output_is_writable;
  iface->write_nonblocking = prs_api_output_write_nonblocking;
  iface->create_source = prs_api_output_create_source;
}

static void
prs_api_output_init (PrsApiOutput *self)
{
  self->held = g_byte_array_sized_new (512);
}

/* ---- the connection ---- */

struct _PrsApiStream
{
  GTlsConnection  parent_instance;
  GIOStream      *tls;
  GInputStream   *input;
  GOutputStream  *output;
  GSource        *watch;   /* the socket's (prs-api-wait.c) */
};

G_DEFINE_FINAL_TYPE (PrsApiStream, prs_api_stream, G_TYPE_TLS_CONNECTION)

static GInputStream *
prs_api_stream_get_input_stream (GIOStream *stream)
{
  return PRS_API_STREAM (stream)->input;
}

static GOutputStream *
prs_api_stream_get_output_stream (GIOStream *stream)
{
  return PRS_API_STREAM (stream)->output;
}

/* Closing the TLS connection sends its close_notify with a blocking write
 * (gnutls_bye, under glib-networking's close), after whatever part of a
 * record GnuTLS still holds: on a socket filled by a client that does not
 * read, that would wait until the client reads or goes, and the API thread
 * with it (tests/api/HARDENING.md, "Nagle": the API thread never blocks).
 * So when the last write was refused or the socket cannot take more now,
 * the socket is closed first and the close_notify fails at once; the
 * client still gets every byte the socket took, then the end
 * (tests/core/test-api-stream.c, close-while-full) */
static gboolean
prs_api_stream_close_fn (GIOStream     *stream,
                         GCancellable  *cancellable,
                         GError       **error)
{
  PrsApiStream *self = PRS_API_STREAM (stream);
  PrsApiOutput *output = PRS_API_OUTPUT (self->output);
  g_autoptr(GIOStream) base = NULL;

  prs_api_wait_watch_close (self->watch);
  g_output_stream_close (self->output, cancellable, NULL);
  if (!output->refused &&
      g_pollable_output_stream_is_writable (G_POLLABLE_OUTPUT_STREAM (output->base)))
    return g_io_stream_close (self->tls, cancellable, error);

  g_object_get (self->tls, "base-io-stream", &base, NULL);
  g_io_stream_close (base, NULL, NULL);
  g_io_stream_close (self->tls, NULL, NULL);
  return TRUE;
}

/* Closed at once on the calling thread: the default would run close_fn in
 * a worker thread, beside the API thread that owns the connection */
static void
prs_api_stream_close_async (GIOStream           *stream,
                            int                  io_priority,
                            GCancellable        *cancellable,
                            GAsyncReadyCallback  callback,
                            gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (stream, cancellable, callback, user_data);
  GError *error = NULL;

  g_task_set_source_tag (task, prs_api_stream_close_async);
  if (prs_api_stream_close_fn (stream, cancellable, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

static gboolean
prs_api_stream_close_finish (GIOStream     *stream,
                             GAsyncResult  *result,
                             GError       **error)
{
  return g_task_propagate_boolean (G_TASK (result), error);
}

/* GTlsConnection's properties are its implementation's to store: each is
 * the wrapped connection's; the defaults set at construction are ignored */
static void
prs_api_stream_get_property (GObject    *object,
                             guint       prop_id,
                             GValue     *value,
                             GParamSpec *pspec)
{
  PrsApiStream *self = PRS_API_STREAM (object);

  if (self->tls != NULL)
    g_object_get_property (G_OBJECT (self->tls), pspec->name, value);
}

static void
prs_api_stream_set_property (GObject      *object,
                             guint         prop_id,
                             const GValue *value,
                             GParamSpec   *pspec)
{
}

static void
prs_api_stream_finalize (GObject *object)
{
  PrsApiStream *self = PRS_API_STREAM (object);

  if (self->watch != NULL)
    prs_api_wait_watch_close (self->watch);
  g_clear_pointer (&self->watch, g_source_unref);
  g_clear_object (&self->input);
  g_clear_object (&self->output);
  g_clear_object (&self->tls);

  G_OBJECT_CLASS (prs_api_stream_parent_class)->finalize (object);
}

static void
prs_api_stream_class_init (PrsApiStreamClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GIOStreamClass *stream_class = G_IO_STREAM_CLASS (klass);
  g_autofree GParamSpec **specs = NULL;
  guint n_specs, id = 1;

  object_class->finalize = prs_api_stream_finalize;
  object_class->get_property = prs_api_stream_get_property;
  object_class->set_property = prs_api_stream_set_property;
  stream_class->get_input_stream = prs_api_stream_get_input_stream;
  stream_class->get_output_stream = prs_api_stream_get_output_stream;
  stream_class->close_fn = prs_api_stream_close_fn;
  stream_class->close_async = prs_api_stream_close_async;
  stream_class->close_finish = prs_api_stream_close_finish;

  specs = g_object_class_list_properties (G_OBJECT_CLASS (prs_api_stream_parent_class), &n_specs);
  for (guint i = 0; i < n_specs; i++)
    {
      if (specs[i]->owner_type == G_TYPE_TLS_CONNECTION)
        g_object_class_override_property (object_class, id++, specs[i]->name);
    }
}

static void
prs_api_stream_init (PrsApiStream *self)
{
}

/* ---- the socket under TLS: a record in one read ---- */

/* GnuTLS reads a record's 5-byte header, then the rest: two recv() for
 * every record. Under it, one recv() takes what the socket has (a whole
 * record, usually) and keeps what was not asked for yet. Written here, not
 * a GBufferedInputStream: that one is not pollable, and glib-networking
 * needs a TLS connection's base streams to be. */
#define READ_AHEAD (16 * 1024 + 512)

#define PRS_TYPE_API_INPUT (prs_api_input_get_type ())
G_DECLARE_FINAL_TYPE (PrsApiInput, prs_api_input, PRS, API_INPUT, GInputStream)

struct _PrsApiInput
{
  GInputStream  parent_instance;
  GInputStream *base;       /* the socket's */
  guint8       *ahead;      /* read from the socket, not asked for yet */
  gsize         ahead_pos;
  gsize         ahead_len;
};

static void prs_api_input_pollable_init (GPollableInputStreamInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (PrsApiInput, prs_api_input, G_TYPE_INPUT_STREAM,
                               G_IMPLEMENT_INTERFACE (G_TYPE_POLLABLE_INPUT_STREAM,
                                                      prs_api_input_pollable_init))

static gsize
take_ahead (PrsApiInput *self,
            void        *buffer,
            gsize        count)
{
  gsize n = MIN (count, self->ahead_len - self->ahead_pos);

  memcpy (buffer, self->ahead + self->ahead_pos, n);
  self->ahead_pos += n;
  if (self->ahead_pos == self->ahead_len)
    {
      g_clear_pointer (&self->ahead, g_free);
      self->ahead_pos = self->ahead_len = 0;
    }

  return n;
}

static gssize
prs_api_input_read_nonblocking (GPollableInputStream  *stream,
                                void                  *buffer,
                                gsize                  count,
                                GError               **error)
{
  PrsApiInput *self = PRS_API_INPUT (stream);
  guint8 chunk[READ_AHEAD];
  gssize n;

  if (self->ahead != NULL)
    return (gssize) take_ahead (self, buffer, count);

  if (count >= sizeof chunk)
    return g_pollable_input_stream_read_nonblocking (G_POLLABLE_INPUT_STREAM (self->base),
                                                     buffer, count, NULL, error);

  n = g_pollable_input_stream_read_nonblocking (G_POLLABLE_INPUT_STREAM (self->base),
                                                chunk, sizeof chunk, NULL, error);
  if (n <= 0)
    return n;

  if ((gsize) n > count)
    {
      /* An idle connection keeps nothing: the rest is usually the same
       * record's body, asked for next */
      self->ahead = g_memdup2 (chunk + count, (gsize) n - count);
      self->ahead_len = (gsize) n - count;
      n = (gssize) count;
    }
  memcpy (buffer, chunk, (gsize) n);

  return n;
}

/* Blocking reads (glib-networking's handshake, in its own thread, while
 * nothing else uses the connection) read only what is asked */
static gssize
prs_api_input_read_fn (GInputStream  *stream,
                       void          *buffer,
                       gsize          count,
                       GCancellable  *cancellable,
                       GError       **error)
{
  PrsApiInput *self = PRS_API_INPUT (stream);

  if (self->ahead != NULL)
    return (gssize) take_ahead (self, buffer, count);

  return g_input_stream_read (self->base, buffer, count, cancellable, error);
}

static gboolean
prs_api_input_is_readable (GPollableInputStream *stream)
{
  PrsApiInput *self = PRS_API_INPUT (stream);

  return self->ahead != NULL ||
         g_pollable_input_stream_is_readable (G_POLLABLE_INPUT_STREAM (self->base));
}

/* A read would block only with nothing kept: then the socket's own source
 * is the one to wait on. It is returned as it is, not as a child of one
 * more source: its only user is glib-networking, which waits on it as a
 * child with a callback of its own, and each level of nested sources costs
 * GLib 2.74 a wake-up write at every dispatch (bench/RESULTS.md) */
static GSource *
prs_api_input_create_source (GPollableInputStream *stream,
                             GCancellable         *cancellable)
{
  PrsApiInput *self = PRS_API_INPUT (stream);
  GSource *base_source, *source;

  if (self->ahead == NULL)
    return g_pollable_input_stream_create_source (G_POLLABLE_INPUT_STREAM (self->base), cancellable);

  base_source = g_timeout_source_new (0);
  g_source_set_dummy_callback (base_source);
  source = g_pollable_source_new (G_OBJECT (stream));
  g_source_add_child_source (source, base_source);
  g_source_unref (base_source);

  return source;
}

/* Bytes kept for GnuTLS: a read of the TLS connection would not block */
static gboolean
prs_api_input_has_ahead (GObject *input)
{
  return PRS_API_INPUT (input)->ahead != NULL;
}

static gboolean
prs_api_input_close_fn (GInputStream  *stream,
                        GCancellable  *cancellable,
                        GError       **error)
{
  PrsApiInput *self = PRS_API_INPUT (stream);

  g_clear_pointer (&self->ahead, g_free);
  self->ahead_pos = self->ahead_len = 0;

  return TRUE;
}

static void
prs_api_input_finalize (GObject *object)
{
  PrsApiInput *self = PRS_API_INPUT (object);

  g_free (self->ahead);
  g_clear_object (&self->base);

  G_OBJECT_CLASS (prs_api_input_parent_class)->finalize (object);
}

static void
prs_api_input_class_init (PrsApiInputClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GInputStreamClass *stream_class = G_INPUT_STREAM_CLASS (klass);

  object_class->finalize = prs_api_input_finalize;
  stream_class->read_fn = prs_api_input_read_fn;
  stream_class->close_fn = prs_api_input_close_fn;
}

static void
prs_api_input_pollable_init (GPollableInputStreamInterface *iface)
{
  iface->is_readable = prs_api_input_is_readable;
  iface->read_nonblocking = prs_api_input_read_nonblocking;
  iface->create_source = prs_api_input_create_source;
}

static void
prs_api_input_init (PrsApiInput *self)
{
}

/* The socket connection with that input; closing it closes the socket */
#define PRS_TYPE_API_SOCKET_STREAM (prs_api_socket_stream_get_type ())
G_DECLARE_FINAL_TYPE (PrsApiSocketStream, prs_api_socket_stream, PRS, API_SOCKET_STREAM, GIOStream)

struct _PrsApiSocketStream
{
  GIOStream     parent_instance;
  GIOStream    *connection;
  GInputStream *input;
};

G_DEFINE_FINAL_TYPE (PrsApiSocketStream, prs_api_socket_stream, G_TYPE_IO_STREAM)

static GInputStream *
prs_api_socket_stream_get_input_stream (GIOStream *stream)
{
  return PRS_API_SOCKET_STREAM (stream)->input;
}

static GOutputStream *
prs_api_socket_stream_get_output_stream (GIOStream *stream)
{
  return g_io_stream_get_output_stream (PRS_API_SOCKET_STREAM (stream)->connection);
}

static gboolean
prs_api_socket_stream_close_fn (GIOStream     *stream,
                                GCancellable  *cancellable,
                                GError       **error)
{
  PrsApiSocketStream *self = PRS_API_SOCKET_STREAM (stream);

  g_input_stream_close (self->input, cancellable, NULL);
  return g_io_stream_close (self->connection, cancellable, error);
}

static void
prs_api_socket_stream_finalize (GObject *object)
{
  PrsApiSocketStream *self = PRS_API_SOCKET_STREAM (object);

  g_clear_object (&self->input);
  g_clear_object (&self->connection);

  G_OBJECT_CLASS (prs_api_socket_stream_parent_class)->finalize (object);
}

static void
prs_api_socket_stream_class_init (PrsApiSocketStreamClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GIOStreamClass *stream_class = G_IO_STREAM_CLASS (klass);

  object_class->finalize = prs_api_socket_stream_finalize;
  stream_class->get_input_stream = prs_api_socket_stream_get_input_stream;
  stream_class->get_output_stream = prs_api_socket_stream_get_output_stream;
  stream_class->close_fn = prs_api_socket_stream_close_fn;
}

static void
prs_api_socket_stream_init (PrsApiSocketStream *self)
{
}

GIOStream *
prs_api_stream_wrap_socket (GIOStream *connection)
{
  PrsApiSocketStream *self;
  PrsApiInput *input;

  g_return_val_if_fail (G_IS_IO_STREAM (connection), NULL);

  self = g_object_new (PRS_TYPE_API_SOCKET_STREAM, NULL);
  self->connection = g_object_ref (connection);
  input = g_object_new (PRS_TYPE_API_INPUT, NULL);
  input->base = g_object_ref (g_io_stream_get_input_stream (connection));
  self->input = G_INPUT_STREAM (input);

  return G_IO_STREAM (self);
}

GIOStream *
prs_api_stream_new (GIOStream *tls)
{
  PrsApiStream *self;
  PrsApiOutput *output;
  g_autoptr(GIOStream) base = NULL;
  GInputStream *tls_input = g_io_stream_get_input_stream (tls);
  PrsApiSocketStream *socket_stream;
  GSocket *socket;

  g_return_val_if_fail (G_IS_TLS_CONNECTION (tls), NULL);
  g_object_get (tls, "base-io-stream", &base, NULL);
  g_return_val_if_fail (PRS_IS_API_SOCKET_STREAM (base), NULL);

  self = g_object_new (PRS_TYPE_API_STREAM, NULL);
  self->tls = g_object_ref (tls);
  output = g_object_new (PRS_TYPE_API_OUTPUT, NULL);
  output->base = g_object_ref (g_io_stream_get_output_stream (tls));
  self->output = G_OUTPUT_STREAM (output);

  /* libsoup's waits on the connection wait on its socket's one record */
  socket_stream = PRS_API_SOCKET_STREAM (base);
  socket = g_socket_connection_get_socket (G_SOCKET_CONNECTION (socket_stream->connection));
  self->watch = prs_api_wait_watch_new (socket);
  output->watch = g_source_ref (self->watch);
  self->input = prs_api_wait_input_new (tls_input, self->watch, prs_api_input_has_ahead,
                                        G_OBJECT (socket_stream->input));

  return G_IO_STREAM (self);
}
