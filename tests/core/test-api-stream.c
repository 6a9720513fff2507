/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-api-stream.c: the streams of prs-api-stream.c when the client does
 * not read. The stack is the API's own (prs-api-connections.c): a real
 * socket pair (AF_UNIX, and TCP on loopback) with the smallest send and
 * receive buffers on both ends, prs_api_stream_wrap_socket under a real
 * GnuTLS server connection (glib-networking, the certificate prs-tls.c
 * makes), prs_api_stream_new over it. A driver writes answers to it the way
 * libsoup 3.2.3 does (soup-server-message-io-http1.c, io_write): a header
 * block, then the body, each by non-blocking writes retried with the same
 * bytes after WOULD_BLOCK once the stream's own source says it is writable;
 * a flush when the answer ends (closing the body stream). The peer reads
 * nothing until the driver is stuck, then reads everything: every byte
 * must come once, in order, and each answer's header block in the TLS
 * record the design promises (tests/api/HARDENING.md, "Nagle"): a final
 * answer's headers with the start of its body, headers only (HEAD) alone,
 * "100 Continue" alone. Closing the connection while the socket is full,
 * or while a block waits for the drain source, returns at once, sends
 * nothing twice and leaves nothing behind (weak references, no source left
 * on the main context). The peer's TLS connection reads the records off
 * the socket through a stream that keeps every byte, so that the records
 * can be counted. Only the streams' public GIO interfaces are used. */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "prs-api-stream.h"
#include "prs-test-util.h"
#include "prs-tls.h"

/* Linux doubles it and takes at least 4608 (send) or 2304 (receive) */
#define SMALL_BUFFER  1024
#define RECORD_MAX    16384
#define WAIT_US       (60 * G_USEC_PER_SEC)

/* ---- the peer's socket input, every byte kept ---- */

#define TEST_TYPE_TEE (test_tee_get_type ())
G_DECLARE_FINAL_TYPE (TestTee, test_tee, TEST, TEE, GInputStream)

struct _TestTee
{
  GInputStream  parent_instance;
  GInputStream *base;
  GByteArray   *wire;
};

static void test_tee_pollable_init (GPollableInputStreamInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (TestTee, test_tee, G_TYPE_INPUT_STREAM,
                               G_IMPLEMENT_INTERFACE (G_TYPE_POLLABLE_INPUT_STREAM,
                                                      test_tee_pollable_init))

static gssize
test_tee_read_fn (GInputStream  *stream,
                  void          *buffer,
                  gsize          count,
                  GCancellable  *cancellable,
                  GError       **error)
{
  TestTee *self = TEST_TEE (stream);
  gssize n = g_input_stream_read (self->base, buffer, count, cancellable, error);

  if (n > 0)
    g_byte_array_append (self->wire, buffer, (guint) n);
  return n;
}

static gssize
test_tee_read_nonblocking (GPollableInputStream  *stream,
                           void                  *buffer,
                           gsize                  count,
                           GError               **error)
{
  TestTee *self = TEST_TEE (stream);
  gssize n = g_pollable_input_stream_read_nonblocking (G_POLLABLE_INPUT_STREAM (self->base),
                                                       buffer, count, NULL, error);

  if (n > 0)
    g_byte_array_append (self->wire, buffer, (guint) n);
  return n;
}

static gboolean
test_tee_is_readable (GPollableInputStream *stream)
{
  return g_pollable_input_stream_is_readable (G_POLLABLE_INPUT_STREAM (TEST_TEE (stream)->base));
}

static GSource *
test_tee_create_source (GPollableInputStream *stream,
                        GCancellable         *cancellable)
{
  return g_pollable_input_stream_create_source (G_POLLABLE_INPUT_STREAM (TEST_TEE (stream)->base),
                                                cancellable);
}

static gboolean
test_tee_close_fn (GInputStream  *stream,
                   GCancellable  *cancellable,
                   GError       **error)
{
  return TRUE;
}

static void
test_tee_finalize (GObject *object)
{
  TestTee *self = TEST_TEE (object);

  g_clear_object (&self->base);
  g_byte_array_unref (self->wire);
  G_OBJECT_CLASS (test_tee_parent_class)->finalize (object);
}

static void
test_tee_class_init (TestTeeClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = test_tee_finalize;
  G_INPUT_STREAM_CLASS (klass)->read_fn = test_tee_read_fn;
  G_INPUT_STREAM_CLASS (klass)->close_fn = test_tee_close_fn;
}

static void
test_tee_pollable_init (GPollableInputStreamInterface *iface)
{
  iface->is_readable = test_tee_is_readable;
  iface->read_nonblocking = test_tee_read_nonblocking;
  iface->create_source = test_tee_create_source;
}

static void
test_tee_init (TestTee *self)
{
  self->wire = g_byte_array_new ();
}

/* ---- the driver: libsoup's writes ---- */

typedef enum
{
  STEP_WRITE,
  STEP_FLUSH,
} StepKind;

typedef struct
{
  StepKind  kind;
  GBytes   *data;
  gboolean  head;       /* a final answer's header block */
} Step;

/* When the driver's write would block, who goes first once the socket
 * takes more: libsoup's retry (its source on the stream) or the stream's
 * own drain source; BY_SOURCE leaves it to the main loop, as in the API */
typedef enum
{
  RETRY_BY_SOURCE,
  RETRY_FIRST,
  DRAIN_FIRST,
} RetryOrder;

typedef struct
{
  GOutputStream *out;
  GArray        *steps;        /* Step */
  guint          step;
  gsize          offset;
  RetryOrder     order;
  GSource       *source;
  gboolean       blocked;
  guint          would_blocks;
  guint          heads_blocked;  /* header blocks that had to wait: only
                                  * when one before waits to be drained */
  GError        *error;
} Driver;

static void driver_run (Driver *d);

static gboolean
on_writable (GObject  *stream,
             gpointer  user_data)
{
  Driver *d = user_data;

  g_clear_pointer (&d->source, g_source_unref);
  driver_run (d);
  return G_SOURCE_REMOVE;
}

static gboolean
driver_done (Driver *d)
{
  return d->error != NULL || d->step == d->steps->len;
}

static void
driver_run (Driver *d)
{
  d->blocked = FALSE;
  while (!driver_done (d))
    {
      Step *s = &g_array_index (d->steps, Step, d->step);
      g_autoptr(GError) error = NULL;
      const guint8 *data;
      gsize size;
      gssize n;

      if (s->kind == STEP_FLUSH)
        {
          if (!g_output_stream_flush (d->out, NULL, &error))
            d->error = g_steal_pointer (&error);
          else
            d->step++;
          continue;
        }

      data = g_bytes_get_data (s->data, &size);
      n = g_pollable_stream_write (d->out, data + d->offset, size - d->offset,
                                   FALSE, NULL, &error);

      if (n < 0 && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK))
        {
          d->blocked = TRUE;
          d->would_blocks++;
          if (s->head)
            d->heads_blocked++;
          if (d->order == RETRY_BY_SOURCE && d->source == NULL)
            {
              d->source = g_pollable_output_stream_create_source (G_POLLABLE_OUTPUT_STREAM (d->out), NULL);
              g_source_set_callback (d->source, G_SOURCE_FUNC (on_writable), d, NULL);
              g_source_attach (d->source, NULL);
            }
          return;
        }
      if (n < 0)
        {
          d->error = g_steal_pointer (&error);
          return;
        }
      g_assert_cmpint (n, >, 0);
      g_assert_cmpuint ((gsize) n, <=, size - d->offset);
      d->offset += (gsize) n;
      if (d->offset == size)
        {
          d->offset = 0;
          d->step++;
        }
    }
}

static void
driver_clear (Driver *d)
{
  if (d->source != NULL)
    {
      g_source_destroy (d->source);
      g_clear_pointer (&d->source, g_source_unref);
    }
  for (guint i = 0; i < d->steps->len; i++)
    g_clear_pointer (&g_array_index (d->steps, Step, i).data, g_bytes_unref);
  g_array_unref (d->steps);
  g_clear_error (&d->error);
}

/* ---- the answers, and what the peer must get ---- */

typedef enum
{
  SHAPE_JSON,       /* a few hundred bytes of body */
  SHAPE_HEAD,       /* headers only */
  SHAPE_CONTINUE,   /* "100 Continue", then a final answer */
  SHAPE_LARGE,      /* a body of more than one record */
  N_SHAPES
} Shape;

typedef struct
{
  gsize start;      /* in what the peer reads */
  gsize first;      /* the plaintext of the record that starts there */
} Promise;

typedef struct
{
  int                fds[2];     /* the server's, the peer's */
  GTlsCertificate   *certificate;
  char              *dir;
  GIOStream         *server_conn;
  GIOStream         *reader;
  GIOStream         *server_tls;
  GIOStream         *stream;
  GIOStream         *client_conn;
  GIOStream         *client_tls;
  TestTee           *tee;
  GByteArray        *plain;      /* what the peer decrypted */
  gboolean           peer_reads;
  gboolean           peer_eof;
  gsize              overhead;   /* a record's bytes that are not plaintext */
  GByteArray        *expected;
  GArray            *promises;   /* Promise */
  Driver             driver;
  guint              answers;
  guint              first_source; /* the context's first source id of the test */
} Fixture;

/* A body that no shift, repeat or loss of a part of it leaves equal */
static GBytes *
make_body (guint answer,
           gsize size)
{
  guint8 *data = g_malloc (size);

  for (gsize i = 0; i < size; i++)
    data[i] = (guint8) ("0123456789abcdefghijklmnopqrstuv"[(i * 7 + i / 31 + answer * 13) % 32]);
  return g_bytes_new_take (data, size);
}

static void
add_step (Fixture  *f,
          StepKind  kind,
          GBytes   *data,
          gboolean  head)
{
  Step s = { kind, data, head };

  g_array_append_val (f->driver.steps, s);
  if (data != NULL)
    {
      gsize size;
      const guint8 *bytes = g_bytes_get_data (data, &size);

      g_byte_array_append (f->expected, bytes, (guint) size);
    }
}

static void
add_promise (Fixture *f,
             gsize    start,
             gsize    first)
{
  Promise p = { start, first };

  g_array_append_val (f->promises, p);
}

/* One answer of @shape, written as libsoup writes it */
static void
add_answer (Fixture *f,
            Shape    shape,
            gsize    body_size)
{
  guint n = ++f->answers;
  gsize start = f->expected->len;
  g_autofree char *head = NULL;

  if (shape == SHAPE_CONTINUE)
    {
      static const char cont[] = "HTTP/1.1 100 Continue\r\n\r\n";

      add_step (f, STEP_WRITE, g_bytes_new_static (cont, sizeof cont - 1), FALSE);
      add_promise (f, start, sizeof cont - 1);
      start = f->expected->len;
    }

  head = g_strdup_printf ("HTTP/1.1 %s\r\nContent-Length: %" G_GSIZE_FORMAT "\r\n"
                          "Content-Type: application/json\r\nX-Answer: %u\r\n\r\n",
                          shape == SHAPE_HEAD ? "405 Method Not Allowed" : "200 OK",
                          body_size, n);
  add_step (f, STEP_WRITE, g_bytes_new (head, strlen (head)), TRUE);
  if (shape != SHAPE_HEAD)
    add_step (f, STEP_WRITE, make_body (n, body_size), FALSE);
  add_step (f, STEP_FLUSH, NULL, FALSE);

  if (shape == SHAPE_HEAD)
    add_promise (f, start, strlen (head));
  else if (strlen (head) + body_size <= RECORD_MAX)
    add_promise (f, start, strlen (head) + body_size);
  else
    add_promise (f, start, RECORD_MAX);
}

/* ---- the connection ---- */

static void
make_small (int fd)
{
  int size = SMALL_BUFFER;

  g_assert_no_errno (setsockopt (fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof size));
  g_assert_no_errno (setsockopt (fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size));
}

/* The buffers are set before connect() and listen(), so that TCP's window
 * is made for them */
static void
make_pair (gboolean  tcp,
           int       fds[2])
{
  struct sockaddr_in addr = { .sin_family = AF_INET };
  socklen_t len = sizeof addr;
  int listener;

  if (!tcp)
    {
      g_assert_no_errno (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds));
      make_small (fds[0]);
      make_small (fds[1]);
      return;
    }

  addr.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  listener = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  g_assert_cmpint (listener, >=, 0);
  make_small (listener);
  g_assert_no_errno (bind (listener, (struct sockaddr *) &addr, sizeof addr));
  g_assert_no_errno (listen (listener, 1));
  g_assert_no_errno (getsockname (listener, (struct sockaddr *) &addr, &len));
  fds[1] = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  g_assert_cmpint (fds[1], >=, 0);
  make_small (fds[1]);
  g_assert_no_errno (connect (fds[1], (struct sockaddr *) &addr, sizeof addr));
  fds[0] = accept (listener, NULL, NULL);
  g_assert_cmpint (fds[0], >=, 0);
  make_small (fds[0]);
  close (listener);
}

static GIOStream *
connection_for (int fd)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GSocket) socket = g_socket_new_from_fd (fd, &error);

  g_assert_no_error (error);
  return G_IO_STREAM (g_socket_connection_factory_create_connection (socket));
}

static gboolean
accept_any (GTlsConnection       *conn,
            GTlsCertificate      *certificate,
            GTlsCertificateFlags  errors,
            gpointer              user_data)
{
  return TRUE;
}

static void
on_handshake (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  gint *pending = user_data;
  g_autoptr(GError) error = NULL;

  g_tls_connection_handshake_finish (G_TLS_CONNECTION (source), result, &error);
  g_assert_no_error (error);
  (*pending)--;
}

/* Reads what the peer can without blocking */
static gboolean
peer_pump (Fixture *f)
{
  GInputStream *in = g_io_stream_get_input_stream (f->client_tls);
  gboolean any = FALSE;

  while (!f->peer_eof)
    {
      guint8 buffer[32 * 1024];
      g_autoptr(GError) error = NULL;
      gssize n = g_pollable_input_stream_read_nonblocking (G_POLLABLE_INPUT_STREAM (in),
                                                           buffer, sizeof buffer, NULL, &error);

      if (n < 0 && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK))
        break;
      if (n <= 0)
        {
          /* The end, or the server's connection closed under its close_notify */
          if (error != NULL)
            g_test_message ("the peer's read: %s", error->message);
          f->peer_eof = TRUE;
          break;
        }
      g_byte_array_append (f->plain, buffer, (guint) n);
      any = TRUE;
    }

  return any;
}

/* Runs the main context, the peer (when it reads) and the driver in its
 * order until @done or the deadline */
static gboolean
run_until (Fixture  *f,
           gboolean (*done) (Fixture *f))
{
  gint64 deadline = g_get_monotonic_time () + WAIT_US;

  while (!done (f) && g_get_monotonic_time () < deadline)
    {
      gboolean busy = FALSE;

      if (f->peer_reads)
        busy |= peer_pump (f);
      if (f->driver.order == RETRY_FIRST && f->driver.blocked)
        driver_run (&f->driver);
      busy |= g_main_context_iteration (NULL, FALSE);
      if (f->driver.order == DRAIN_FIRST && f->driver.blocked)
        driver_run (&f->driver);
      if (!busy)
        g_usleep (500);
    }

  return done (f);
}

static gboolean
all_read (Fixture *f)
{
  return driver_done (&f->driver) && f->plain->len >= f->expected->len;
}

static gboolean
sync_read (Fixture *f)
{
  return f->plain->len >= 4;
}

/* A complete TLS record at @pos of the wire: its length, or 0 */
static gsize
record_at (GByteArray *wire,
           gsize       pos)
{
  gsize len;

  if (pos + 5 > wire->len)
    return 0;
  len = ((gsize) wire->data[pos + 3] << 8) | wire->data[pos + 4];
  return pos + 5 + len <= wire->len ? 5 + len : 0;
}

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  gboolean tcp = GPOINTER_TO_INT (data) & 1;
  g_autoptr(GError) error = NULL;
  g_autoptr(GInputStream) tee = NULL;
  g_autoptr(GIOStream) client_base = NULL;
  gint pending = 2;
  gsize pos, last = 0;

  f->first_source = g_idle_add (G_SOURCE_FUNC (g_source_remove), NULL);
  g_source_remove (f->first_source);
  f->dir = g_dir_make_tmp ("prs-api-stream-XXXXXX", &error);
  g_assert_no_error (error);
  f->certificate = prs_tls_ensure_certificate (f->dir, &error);
  g_assert_no_error (error);
  make_pair (tcp, f->fds);

  /* The server's side, as prs-api-connections.c makes it */
  f->server_conn = connection_for (f->fds[0]);
  f->reader = prs_api_stream_wrap_socket (f->server_conn);
  f->server_tls = g_initable_new (g_tls_backend_get_server_connection_type (g_tls_backend_get_default ()),
                                  NULL, &error,
                                  "base-io-stream", f->reader,
                                  "certificate", f->certificate,
                                  "database", NULL,
                                  "authentication-mode", G_TLS_AUTHENTICATION_NONE,
                                  "require-close-notify", FALSE,
                                  NULL);
  g_assert_no_error (error);

  /* The peer's, every byte it reads kept */
  f->client_conn = connection_for (f->fds[1]);
  tee = g_object_new (TEST_TYPE_TEE, NULL);
  f->tee = TEST_TEE (tee);
  f->tee->base = g_object_ref (g_io_stream_get_input_stream (f->client_conn));
  client_base = g_simple_io_stream_new (tee, g_io_stream_get_output_stream (f->client_conn));
  f->client_tls = g_tls_client_connection_new (client_base, NULL, &error);
  g_assert_no_error (error);
  g_signal_connect (f->client_tls, "accept-certificate", G_CALLBACK (accept_any), NULL);

  g_tls_connection_handshake_async (G_TLS_CONNECTION (f->server_tls), G_PRIORITY_DEFAULT,
                                    NULL, on_handshake, &pending);
  g_tls_connection_handshake_async (G_TLS_CONNECTION (f->client_tls), G_PRIORITY_DEFAULT,
                                    NULL, on_handshake, &pending);
  while (pending > 0)
    g_main_context_iteration (NULL, TRUE);

  f->stream = prs_api_stream_new (f->server_tls);
  f->plain = g_byte_array_new ();
  f->expected = g_byte_array_new ();
  f->promises = g_array_new (FALSE, FALSE, sizeof (Promise));
  f->driver.out = g_io_stream_get_output_stream (f->stream);
  f->driver.steps = g_array_new (FALSE, TRUE, sizeof (Step));
  f->driver.order = (RetryOrder) (GPOINTER_TO_INT (data) >> 1);

  /* Four bytes through: what TLS 1.3 sends after the handshake (session
   * tickets) is read with them, and the record that carried them tells
   * what a record adds to its plaintext */
  g_assert_cmpint (g_pollable_output_stream_write_nonblocking (G_POLLABLE_OUTPUT_STREAM (f->driver.out),
                                                               "sync", 4, NULL, &error), ==, 4);
  g_assert_no_error (error);
  f->peer_reads = TRUE;
  g_assert_true (run_until (f, sync_read));
  f->peer_reads = FALSE;
  g_assert_cmpmem (f->plain->data, f->plain->len, "sync", 4);
  for (pos = 0; record_at (f->tee->wire, pos) > 0; pos += record_at (f->tee->wire, pos))
    last = pos;
  g_assert_cmpuint (pos, ==, f->tee->wire->len);
  f->overhead = record_at (f->tee->wire, last) - 5 - 4;
  g_byte_array_set_size (f->tee->wire, 0);
  g_byte_array_set_size (f->plain, 0);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  gpointer weak_stream = f->stream, weak_out, weak_tls = f->server_tls;
  gpointer weak_reader = f->reader, weak_conn = f->server_conn;
  guint last_source;
  gint64 deadline;

  driver_clear (&f->driver);
  weak_out = g_io_stream_get_output_stream (f->stream);
  g_object_add_weak_pointer (weak_stream, &weak_stream);
  g_object_add_weak_pointer (weak_out, &weak_out);
  g_object_add_weak_pointer (weak_tls, &weak_tls);
  g_object_add_weak_pointer (weak_reader, &weak_reader);
  g_object_add_weak_pointer (weak_conn, &weak_conn);

  /* As libsoup's connection ends: the stream closed, then let go */
  g_io_stream_close (f->stream, NULL, NULL);
  g_clear_object (&f->stream);
  g_clear_object (&f->server_tls);
  g_clear_object (&f->reader);
  g_clear_object (&f->server_conn);
  /* glib-networking's handshake thread lets go of its task (and of the
   * connection, the task's source object) after the task's callback has
   * run here: on a busy machine, a moment later. A real leak never lets go */
  deadline = g_get_monotonic_time () + WAIT_US;
  while ((weak_stream != NULL || weak_out != NULL || weak_tls != NULL || weak_reader != NULL ||
          weak_conn != NULL) && g_get_monotonic_time () < deadline)
    if (!g_main_context_iteration (NULL, FALSE))
      g_usleep (1000);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  /* Nothing kept alive: no source left holding the TLS connection */
  g_assert_null (weak_stream);
  g_assert_null (weak_out);
  g_assert_null (weak_tls);
  g_assert_null (weak_reader);
  g_assert_null (weak_conn);
  /* and no source of the test left attached (a drain source that outlived
   * its stream would call it once its socket stirs) */
  last_source = g_idle_add (G_SOURCE_FUNC (g_source_remove), NULL);
  g_source_remove (last_source);
  for (guint id = f->first_source + 1; id < last_source; id++)
    g_assert_null (g_main_context_find_source_by_id (NULL, id));

  g_io_stream_close (f->client_tls, NULL, NULL);
  g_clear_object (&f->client_tls);
  g_clear_object (&f->client_conn);
  g_clear_object (&f->certificate);
  g_byte_array_unref (f->plain);
  g_byte_array_unref (f->expected);
  g_array_unref (f->promises);
  prs_test_remove_tree (f->dir);
  g_free (f->dir);
}

/* Every byte once, in order; each promise kept: a record starts where the
 * answer (or its "100 Continue") starts, and its plaintext is that long */
static void
check_wire (Fixture *f)
{
  g_autoptr(GHashTable) starts = g_hash_table_new (g_direct_hash, g_direct_equal);
  gsize pos, plain = 0;

  g_assert_cmpmem (f->plain->data, f->plain->len, f->expected->data, f->expected->len);
  for (pos = 0; record_at (f->tee->wire, pos) > 0 && plain < f->plain->len;
       pos += record_at (f->tee->wire, pos))
    {
      gsize size = record_at (f->tee->wire, pos) - 5 - f->overhead;

      g_assert_cmpuint (f->tee->wire->data[pos], ==, 23);   /* application data */
      g_hash_table_insert (starts, GSIZE_TO_POINTER (plain + 1), GSIZE_TO_POINTER (size));
      plain += size;
    }
  if (plain != f->plain->len)
    g_test_message ("records end at %zu of %u wire bytes, overhead %zu, next %02x %02x %02x %02x %02x",
                    pos, f->tee->wire->len, f->overhead, f->tee->wire->data[pos], f->tee->wire->data[pos+1],
                    f->tee->wire->data[pos+2], f->tee->wire->data[pos+3], f->tee->wire->data[pos+4]);
  g_assert_cmpuint (plain, ==, f->plain->len);
  /* After the data, at most the server's close_notify (an alert: two bytes) */
  if (record_at (f->tee->wire, pos) > 0)
    g_assert_cmpuint (record_at (f->tee->wire, pos) - 5 - f->overhead, <=, 2);

  for (guint i = 0; i < f->promises->len; i++)
    {
      Promise *p = &g_array_index (f->promises, Promise, i);
      gpointer size;

      if (!g_hash_table_lookup_extended (starts, GSIZE_TO_POINTER (p->start + 1), NULL, &size))
        g_error ("No TLS record starts where answer %u starts (byte %" G_GSIZE_FORMAT ")", i, p->start);
      g_assert_cmpuint (GPOINTER_TO_SIZE (size), ==, p->first);
    }
}

/* The driver writes until it is stuck, the peer reading nothing: several
 * passes of the main context without progress */
static void
run_until_stuck (Fixture *f)
{
  gsize last_step = G_MAXSIZE, last_offset = 0;
  guint still = 0;

  driver_run (&f->driver);
  while (still < 20 && !driver_done (&f->driver))
    {
      while (g_main_context_iteration (NULL, FALSE))
        ;
      if (f->driver.order != RETRY_BY_SOURCE && f->driver.blocked)
        driver_run (&f->driver);
      if (f->driver.step == last_step && f->driver.offset == last_offset)
        still++;
      else
        still = 0;
      last_step = f->driver.step;
      last_offset = f->driver.offset;
      g_usleep (1000);
    }
}

/* Answers of every shape back to back on one kept-alive connection, far
 * more than the socket takes: the driver must get stuck (WOULD_BLOCK), and
 * a header block can only be refused while one before it waits for the
 * drain source (a HEAD answer flushed into a full socket); then the peer
 * reads, and everything comes */
static void
test_kept_alive (Fixture       *f,
                 gconstpointer  data)
{
  for (guint i = 0; i < 240; i++)
    {
      Shape shape = i % N_SHAPES;

      add_answer (f, shape, shape == SHAPE_LARGE ? 20000 + i : shape == SHAPE_HEAD ? 0 : 300 + 7 * i);
      /* HEAD answers in a row: one of them fills the socket on its flush */
      if (shape == SHAPE_HEAD)
        for (guint j = 0; j < 40; j++)
          add_answer (f, SHAPE_HEAD, 0);
    }

  run_until_stuck (f);
  g_assert_false (driver_done (&f->driver));
  g_assert_cmpuint (f->driver.would_blocks, >, 0);
  g_test_message ("stuck at step %u of %u", f->driver.step, f->driver.steps->len);

  f->peer_reads = TRUE;
  g_assert_true (run_until (f, all_read));
  g_assert_no_error (f->driver.error);
  g_test_message ("%u writes would block, %u of them header blocks",
                  f->driver.would_blocks, f->driver.heads_blocked);
  /* A held HEAD answer waited for the drain at least once: the 40 in a
   * row fill the socket with nothing but header blocks */
  g_assert_cmpuint (f->driver.heads_blocked, >, 0);
  check_wire (f);
}

/* One answer far larger than both buffers, then a small one */
static void
test_large (Fixture       *f,
            gconstpointer  data)
{
  add_answer (f, SHAPE_LARGE, 1024 * 1024 + 3);
  add_answer (f, SHAPE_JSON, 500);

  run_until_stuck (f);
  g_assert_false (driver_done (&f->driver));
  f->peer_reads = TRUE;
  g_assert_true (run_until (f, all_read));
  g_assert_no_error (f->driver.error);
  check_wire (f);
}

static gboolean
driver_failed (Fixture *f)
{
  return f->driver.error != NULL;
}

/* HEAD answers until one waits for the drain source (the next header block
 * is refused); then the peer goes away: the writer gets the error, nothing
 * crashes, and the teardown finds everything finalised */
static void
test_peer_closes (Fixture       *f,
                  gconstpointer  data)
{
  for (guint i = 0; i < 2000; i++)
    add_answer (f, SHAPE_HEAD, 0);

  run_until_stuck (f);
  g_assert_false (driver_done (&f->driver));
  g_assert_cmpuint (f->driver.heads_blocked, >, 0);

  g_io_stream_close (f->client_conn, NULL, NULL);
  g_assert_true (run_until (f, driver_failed));
  g_assert_false (g_error_matches (f->driver.error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK));
  g_test_message ("the writer's error: %s", f->driver.error->message);
  /* and the drain source has let go: nothing is left to dispatch */
  for (guint i = 0; i < 10; i++)
    g_main_context_iteration (NULL, FALSE);
  g_assert_false (g_main_context_pending (NULL));
}

static gboolean
peer_at_eof (Fixture *f)
{
  return f->peer_eof;
}

/* The connection closes while libsoup's write of an answer's header block
 * and body start waits (the socket full, then read empty: GnuTLS sends the
 * record it made for that write, whatever comes next): the peer gets the
 * answers before it, that header block and that start of the body, each
 * once */
static void
test_close_while_blocked (Fixture       *f,
                          gconstpointer  data)
{
  gsize head_len, body_start;
  gint64 deadline;
  Step *s;

  for (guint i = 0; i < 400; i++)
    add_answer (f, SHAPE_JSON, 900);

  /* Stuck on a body's first write: the header block before it is held */
  driver_run (&f->driver);
  for (guint i = 0; i < 400 && !driver_done (&f->driver); i++)
    {
      s = &g_array_index (f->driver.steps, Step, f->driver.step);
      if (f->driver.blocked && s->kind == STEP_WRITE && !s->head && f->driver.offset == 0)
        break;
      /* Stuck elsewhere: let the peer take a little, and go on */
      f->peer_reads = TRUE;
      peer_pump (f);
      f->peer_reads = FALSE;
      g_main_context_iteration (NULL, FALSE);
      driver_run (&f->driver);
    }
  s = &g_array_index (f->driver.steps, Step, f->driver.step);
  g_assert_true (f->driver.blocked && s->kind == STEP_WRITE && !s->head && f->driver.offset == 0);

  /* What the peer will get: every step before, then the held header block
   * and the start of the body that went with it in one record */
  body_start = 0;
  for (guint i = 0; i < f->driver.step; i++)
    {
      Step *t = &g_array_index (f->driver.steps, Step, i);

      if (t->data != NULL)
        body_start += g_bytes_get_size (t->data);
    }
  head_len = g_bytes_get_size (g_array_index (f->driver.steps, Step, f->driver.step - 1).data);
  g_byte_array_set_size (f->expected, (guint) (body_start + MIN (g_bytes_get_size (s->data),
                                                                 RECORD_MAX - head_len)));
  while (f->promises->len > 0 &&
         g_array_index (f->promises, Promise, f->promises->len - 1).start >= body_start - head_len)
    g_array_set_size (f->promises, f->promises->len - 1);
  add_promise (f, body_start - head_len, f->expected->len - (body_start - head_len));

  /* The peer reads every answer before it, so the socket has room for
   * the held record; libsoup does not retry before the connection is
   * closed (its deadline, the server stopping). Read to that point, not for
   * a fixed time: on a busy machine the socket may still be full after one */
  f->peer_reads = TRUE;
  deadline = g_get_monotonic_time () + WAIT_US;
  while (f->plain->len < body_start - head_len && g_get_monotonic_time () < deadline)
    if (!peer_pump (f))
      g_usleep (1000);
  g_assert_cmpuint (f->plain->len, >=, body_start - head_len);
  alarm (30);
  g_io_stream_close (f->stream, NULL, NULL);
  alarm (0);
  g_assert_true (run_until (f, peer_at_eof));
  check_wire (f);
}

/* The connection closes (libsoup disconnects it; prs_api_stream_close_async
 * closes at once on the API thread) while the socket is full and nobody
 * reads: the close returns at once, and the peer, reading later, gets what
 * the socket took, in order, nothing twice, then the end (an error where a
 * record was cut: the rest of it was still GnuTLS's) */
static void
test_close_while_full (Fixture       *f,
                       gconstpointer  data)
{
  gint64 start;

  for (guint i = 0; i < 400; i++)
    add_answer (f, i % 2 ? SHAPE_JSON : SHAPE_LARGE, i % 2 ? 900 : 30000);
  run_until_stuck (f);
  g_assert_false (driver_done (&f->driver));

  /* A close that blocks would wait for ever: the alarm ends the test */
  start = g_get_monotonic_time ();
  alarm (30);
  g_io_stream_close (f->stream, NULL, NULL);
  alarm (0);
  g_assert_cmpint (g_get_monotonic_time () - start, <, G_USEC_PER_SEC);

  f->peer_reads = TRUE;
  g_assert_true (run_until (f, peer_at_eof));
  g_assert_cmpuint (f->plain->len, <=, f->expected->len);
  g_assert_cmpmem (f->plain->data, f->plain->len, f->expected->data, f->plain->len);
}

/* HEAD answers one at a time until a header block is refused: the answer
 * before it was flushed into a full socket and waits for the drain source.
 * libsoup then writes nothing more (the refused answer is dropped) */
static void
head_until_drain (Fixture *f)
{
  gsize head_len;

  for (guint i = 0; i < 5000 && f->driver.heads_blocked == 0; i++)
    {
      add_answer (f, SHAPE_HEAD, 0);
      driver_run (&f->driver);
    }
  g_assert_cmpuint (f->driver.heads_blocked, >, 0);
  g_assert_cmpuint (f->driver.step, ==, f->driver.steps->len - 2);

  head_len = g_bytes_get_size (g_array_index (f->driver.steps, Step, f->driver.step).data);
  for (guint i = f->driver.step; i < f->driver.steps->len; i++)
    g_clear_pointer (&g_array_index (f->driver.steps, Step, i).data, g_bytes_unref);
  g_array_set_size (f->driver.steps, f->driver.step);
  g_byte_array_set_size (f->expected, f->expected->len - (guint) head_len);
  g_array_set_size (f->promises, f->promises->len - 1);
  f->driver.blocked = FALSE;
}

/* Only the drain source can send that last answer: it must come */
static void
test_drain_alone (Fixture       *f,
                  gconstpointer  data)
{
  head_until_drain (f);
  f->peer_reads = TRUE;
  g_assert_true (run_until (f, all_read));
  check_wire (f);
}

/* The connection closes while that answer waits for the drain: the source
 * goes with it (the teardown finds everything finalised), the peer gets a
 * part of what was written, in order */
static void
test_close_while_held (Fixture       *f,
                       gconstpointer  data)
{
  head_until_drain (f);
  alarm (30);
  g_io_stream_close (f->stream, NULL, NULL);
  alarm (0);
  f->peer_reads = TRUE;
  g_assert_true (run_until (f, peer_at_eof));
  g_assert_cmpuint (f->plain->len, <=, f->expected->len);
  g_assert_cmpmem (f->plain->data, f->plain->len, f->expected->data, f->plain->len);
}

/* The framing checks answer a badly framed request with a blocking write
 * and a flush of their own (prs-api-framing.c), between two answers; on a
 * socket the client filled without reading, that must return at once, and
 * the answer come after the others once the client reads */
static void
test_reject_while_full (Fixture       *f,
                        gconstpointer  data)
{
  static const char reject[] = "HTTP/1.1 400 Bad Request\r\nConnection: close\r\n"
                               "Content-Length: 2\r\n\r\n{}";
  g_autoptr(GError) error = NULL;
  gboolean written;

  head_until_drain (f);
  alarm (30);
  written = g_output_stream_write_all (f->driver.out, reject, sizeof reject - 1, NULL, NULL, &error) &&
            g_output_stream_flush (f->driver.out, NULL, &error);
  alarm (0);
  g_assert_no_error (error);
  g_assert_true (written);
  g_byte_array_append (f->expected, (const guint8 *) reject, sizeof reject - 1);

  f->peer_reads = TRUE;
  g_assert_true (run_until (f, all_read));
  g_assert_cmpmem (f->plain->data, f->plain->len, f->expected->data, f->expected->len);
}

static void
add_tests (const char *transport,
           gint        tcp)
{
  static const struct { const char *name; RetryOrder order; } orders[] = {
    { "by-source", RETRY_BY_SOURCE },
    { "retry-first", RETRY_FIRST },
    { "drain-first", DRAIN_FIRST },
  };

  for (guint i = 0; i < G_N_ELEMENTS (orders); i++)
    {
      g_autofree char *path = g_strdup_printf ("/api-stream/%s/kept-alive/%s", transport, orders[i].name);

      g_test_add (path, Fixture, GINT_TO_POINTER (tcp | orders[i].order << 1),
                  fixture_setup, test_kept_alive, fixture_teardown);
    }
  {
    g_autofree char *large = g_strdup_printf ("/api-stream/%s/large", transport);
    g_autofree char *closes = g_strdup_printf ("/api-stream/%s/peer-closes-while-held", transport);
    g_autofree char *blocked = g_strdup_printf ("/api-stream/%s/close-while-write-waits", transport);
    g_autofree char *full = g_strdup_printf ("/api-stream/%s/close-while-full", transport);
    g_autofree char *drain = g_strdup_printf ("/api-stream/%s/drain-alone", transport);
    g_autofree char *held = g_strdup_printf ("/api-stream/%s/close-while-held", transport);
    g_autofree char *reject = g_strdup_printf ("/api-stream/%s/reject-while-full", transport);

    g_test_add (large, Fixture, GINT_TO_POINTER (tcp), fixture_setup, test_large, fixture_teardown);
    g_test_add (closes, Fixture, GINT_TO_POINTER (tcp), fixture_setup, test_peer_closes, fixture_teardown);
    g_test_add (blocked, Fixture, GINT_TO_POINTER (tcp | RETRY_FIRST << 1),
                fixture_setup, test_close_while_blocked, fixture_teardown);
    g_test_add (full, Fixture, GINT_TO_POINTER (tcp), fixture_setup, test_close_while_full, fixture_teardown);
    g_test_add (drain, Fixture, GINT_TO_POINTER (tcp | RETRY_FIRST << 1),
                fixture_setup, test_drain_alone, fixture_teardown);
    g_test_add (held, Fixture, GINT_TO_POINTER (tcp | RETRY_FIRST << 1),
                fixture_setup, test_close_while_held, fixture_teardown);
    g_test_add (reject, Fixture, GINT_TO_POINTER (tcp | RETRY_FIRST << 1),
                fixture_setup, test_reject_while_full, fixture_teardown);
  }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  add_tests ("unix", 0);
  add_tests ("tcp", 1);

  return g_test_run ();
}
