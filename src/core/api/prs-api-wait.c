/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-api-wait.c: one poll record per connection for all of libsoup's
 * waits on it.
 *
 * libsoup 3.2.3 attaches a fresh source for every wait on a connection and
 * destroys it when it fires. Under it, the pollable sources of the streams
 * nest down to the GSocket source that carries the fd. GLib 2.74 wakes its
 * own main loop (an eventfd write) for every poll record added or removed,
 * even from the thread that runs it (gmain.c, add_poll_unlocked and
 * remove_poll_unlocked), and g_main_dispatch() removes and adds again the
 * records of every dispatched source and of all its children (block_source,
 * unblock_source). Ten eventfd writes a kept-alive call came from there
 * (bench/RESULTS.md).
 *
 * Here the socket's fd is a poll record of one source per connection, the
 * watch, attached once. It is never dispatched: its check says FALSE, and
 * its record is a g_source_add_poll() one, which, unlike
 * g_source_add_unix_fd(), does not make its source ready by itself. The
 * sources handed to libsoup have no fd: their check reads the watch's
 * revents of the same iteration (GLib sets every record's revents before it
 * calls any check), so attaching, dispatching and destroying them adds or
 * removes no record. The watch has a higher priority than any waiter, so
 * its record is polled whenever a waiter is checked.
 *
 * The watch asks only for what someone waits for, or poll() would return
 * at once, again and again, while a request nobody reads yet sits in the
 * socket: each waiter's prepare adds its condition to the record, and the
 * watch's check drops a condition that was met with nobody waiting for it.
 * Changing a record's events in prepare or check costs nothing: the poll
 * set is built from them after the prepares. A hang-up or an error cannot
 * be masked: met with nobody waiting, the record goes, and every later
 * waiter is ready at once (its read or write fails without blocking). */
#include "config.h"

#include "prs-api-wait.h"

#define ANY_FAILURE (G_IO_HUP | G_IO_ERR | G_IO_NVAL)

typedef struct
{
  GSource       source;
  GSocket      *socket;
  GPollFD       record;
  gboolean      polled;   /* the record is in the main loop */
  GIOCondition  wanted;   /* asked for by waiters since the last check */
} Watch;

static gboolean
watch_check (GSource *source)
{
  Watch *watch = (Watch *) source;
  GIOCondition met = watch->record.revents;
  GIOCondition wanted = watch->wanted;

  watch->wanted = 0;
  if (!watch->polled)
    return FALSE;

  if (((met & ANY_FAILURE) != 0 && wanted == 0) || g_socket_is_closed (watch->socket))
    {
      g_source_remove_poll (source, &watch->record);
      watch->polled = FALSE;
      return FALSE;
    }

  watch->record.events &= ~(met & ~wanted & (G_IO_IN | G_IO_OUT));
  return FALSE;
}

static void
watch_finalize (GSource *source)
{
  Watch *watch = (Watch *) source;

  g_clear_object (&watch->socket);
}

static GSourceFuncs watch_funcs = {
  .check = watch_check,
  .finalize = watch_finalize,
};

GSource *
prs_api_wait_watch_new (GSocket *socket)
{
  g_autoptr(GMainContext) context = g_main_context_ref_thread_default ();
  GSource *source = g_source_new (&watch_funcs, sizeof (Watch));
  Watch *watch = (Watch *) source;

  g_source_set_static_name (source, "PrsApiWatch");
  /* Polled whenever a waiter (libsoup's priority, the default) is checked */
  g_source_set_priority (source, G_PRIORITY_HIGH);
  watch->socket = g_object_ref (socket);
  watch->record.fd = g_socket_get_fd (socket);
  watch->record.events = G_IO_IN;
  g_source_add_poll (source, &watch->record);
  watch->polled = TRUE;
  g_source_attach (source, context);

  return source;
}

void
prs_api_wait_watch_close (GSource *source)
{
  Watch *watch = (Watch *) source;

  watch->polled = FALSE;
  g_source_destroy (source);
}

/* ---- the sources libsoup waits on ---- */

typedef struct
{
  GSource                 source;
  Watch                  *watch;
  GObject                *stream;
  GIOCondition            condition;
  PrsApiWaitBufferedFunc  buffered;
  GObject                *buffered_data;
} Waiter;

static gboolean
waiter_prepare (GSource *source,
                gint    *timeout)
{
  Waiter *waiter = (Waiter *) source;
  Watch *watch = waiter->watch;

  *timeout = -1;
  if (!watch->polled)
    return TRUE;
  if (waiter->buffered != NULL && waiter->buffered (waiter->buffered_data))
    return TRUE;

  watch->wanted |= waiter->condition;
  watch->record.events |= waiter->condition;
  return FALSE;
}

static gboolean
waiter_check (GSource *source)
{
  Waiter *waiter = (Waiter *) source;
  Watch *watch = waiter->watch;

  return !watch->polled ||
         (watch->record.revents & (waiter->condition | ANY_FAILURE)) != 0;
}

static gboolean
waiter_dispatch (GSource     *source,
                 GSourceFunc  callback,
                 gpointer     user_data)
{
  Waiter *waiter = (Waiter *) source;
  GPollableSourceFunc func = (GPollableSourceFunc) callback;

  return func != NULL ? func (waiter->stream, user_data) : G_SOURCE_REMOVE;
}

static void
waiter_finalize (GSource *source)
{
  Waiter *waiter = (Waiter *) source;

  g_source_unref ((GSource *) waiter->watch);
  g_clear_object (&waiter->stream);
  g_clear_object (&waiter->buffered_data);
}

/* What g_source_set_closure() and g_source_set_dummy_callback() need, as
 * GIO's own pollable sources have it */
static gboolean
waiter_closure_callback (GObject  *stream,
                         gpointer  data)
{
  GClosure *closure = data;
  GValue param = G_VALUE_INIT;
  GValue result = G_VALUE_INIT;
  gboolean ret;

  g_value_init (&result, G_TYPE_BOOLEAN);
  g_value_init (&param, G_TYPE_OBJECT);
  g_value_set_object (&param, stream);
  g_closure_invoke (closure, &result, 1, &param, NULL);
  ret = g_value_get_boolean (&result);
  g_value_unset (&result);
  g_value_unset (&param);

  return ret;
}

static GSourceFuncs waiter_funcs = {
  .prepare = waiter_prepare,
  .check = waiter_check,
  .dispatch = waiter_dispatch,
  .finalize = waiter_finalize,
  .closure_callback = (GSourceFunc) waiter_closure_callback,
  .closure_marshal = (GSourceDummyMarshal) g_cclosure_marshal_generic,
};

static gboolean
cancelled_callback (GCancellable *cancellable,
                    gpointer      data)
{
  return G_SOURCE_CONTINUE;
}

GSource *
prs_api_wait_source_new (GSource                *watch,
                         GObject                *stream,
                         GIOCondition            condition,
                         PrsApiWaitBufferedFunc  buffered,
                         GObject                *buffered_data,
                         GCancellable           *cancellable)
{
  GSource *source = g_source_new (&waiter_funcs, sizeof (Waiter));
  Waiter *waiter = (Waiter *) source;

  g_return_val_if_fail (condition == G_IO_IN || condition == G_IO_OUT, NULL);

  g_source_set_static_name (source, "PrsApiWait");
  waiter->watch = (Watch *) g_source_ref (watch);
  waiter->stream = g_object_ref (stream);
  waiter->condition = condition;
  waiter->buffered = buffered;
  waiter->buffered_data = buffered_data != NULL ? g_object_ref (buffered_data) : NULL;

  /* As g_pollable_source_new_full(): a cancelled wait is over */
  if (cancellable != NULL)
    {
      GSource *cancellable_source = g_cancellable_source_new (cancellable);

      g_source_set_callback (cancellable_source, G_SOURCE_FUNC (cancelled_callback), NULL, NULL);
      g_source_add_child_source (source, cancellable_source);
      g_source_unref (cancellable_source);
    }

  return source;
}

/* ---- the TLS connection's input, as libsoup reads it ---- */

#define PRS_TYPE_API_WAIT_INPUT (prs_api_wait_input_get_type ())
G_DECLARE_FINAL_TYPE (PrsApiWaitInput, prs_api_wait_input, PRS, API_WAIT_INPUT, GInputStream)

struct _PrsApiWaitInput
{
  GInputStream            parent_instance;
  GInputStream           *base;
  GSource                *watch;
  PrsApiWaitBufferedFunc  buffered;
  GObject                *buffered_data;
};

static void prs_api_wait_input_pollable_init (GPollableInputStreamInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (PrsApiWaitInput, prs_api_wait_input, G_TYPE_INPUT_STREAM,
                               G_IMPLEMENT_INTERFACE (G_TYPE_POLLABLE_INPUT_STREAM,
                                                      prs_api_wait_input_pollable_init))

static gssize
prs_api_wait_input_read_fn (GInputStream  *stream,
                            void          *buffer,
                            gsize          count,
                            GCancellable  *cancellable,
                            GError       **error)
{
  return g_input_stream_read (PRS_API_WAIT_INPUT (stream)->base, buffer, count, cancellable, error);
}

static gboolean
prs_api_wait_input_close_fn (GInputStream  *stream,
                             GCancellable  *cancellable,
                             GError       **error)
{
  return g_input_stream_close (PRS_API_WAIT_INPUT (stream)->base, cancellable, error);
}

static gssize
prs_api_wait_input_read_nonblocking (GPollableInputStream  *stream,
                                     void                  *buffer,
                                     gsize                  count,
                                     GError               **error)
{
  PrsApiWaitInput *self = PRS_API_WAIT_INPUT (stream);

  return g_pollable_input_stream_read_nonblocking (G_POLLABLE_INPUT_STREAM (self->base),
                                                   buffer, count, NULL, error);
}

static gboolean
prs_api_wait_input_is_readable (GPollableInputStream *stream)
{
  PrsApiWaitInput *self = PRS_API_WAIT_INPUT (stream);

  return g_pollable_input_stream_is_readable (G_POLLABLE_INPUT_STREAM (self->base));
}

static GSource *
prs_api_wait_input_create_source (GPollableInputStream *stream,
                                  GCancellable         *cancellable)
{
  PrsApiWaitInput *self = PRS_API_WAIT_INPUT (stream);

  return prs_api_wait_source_new (self->watch, G_OBJECT (stream), G_IO_IN,
                                  self->buffered, self->buffered_data, cancellable);
}

static void
prs_api_wait_input_finalize (GObject *object)
{
  PrsApiWaitInput *self = PRS_API_WAIT_INPUT (object);

  g_clear_object (&self->base);
  g_clear_object (&self->buffered_data);
  g_clear_pointer (&self->watch, g_source_unref);

  G_OBJECT_CLASS (prs_api_wait_input_parent_class)->finalize (object);
}

static void
prs_api_wait_input_class_init (PrsApiWaitInputClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GInputStreamClass *stream_class = G_INPUT_STREAM_CLASS (klass);

  object_class->finalize = prs_api_wait_input_finalize;
  stream_class->read_fn = prs_api_wait_input_read_fn;
  stream_class->close_fn = prs_api_wait_input_close_fn;
}

static void
prs_api_wait_input_pollable_init (GPollableInputStreamInterface *iface)
{
  iface->is_readable = prs_api_wait_input_is_readable;
  iface->read_nonblocking = prs_api_wait_input_read_nonblocking;
  iface->create_source = prs_api_wait_input_create_source;
}

static void
prs_api_wait_input_init (PrsApiWaitInput *self)
{
}

GInputStream *
prs_api_wait_input_new (GInputStream           *base,
                        GSource                *watch,
                        PrsApiWaitBufferedFunc  buffered,
                        GObject                *buffered_data)
{
  PrsApiWaitInput *self = g_object_new (PRS_TYPE_API_WAIT_INPUT, NULL);

  self->base = g_object_ref (base);
  self->watch = g_source_ref (watch);
  self->buffered = buffered;
  self->buffered_data = buffered_data != NULL ? g_object_ref (buffered_data) : NULL;

  return G_INPUT_STREAM (self);
}
