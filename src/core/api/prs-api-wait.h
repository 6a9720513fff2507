/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-api-wait.h: one poll record per connection for all of libsoup's
 * waits on it (prs-api-wait.c). API thread only. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* TRUE when a read would not block without the socket (bytes kept above
 * it); @data is the one given to prs_api_wait_source_new() */
typedef gboolean (*PrsApiWaitBufferedFunc) (GObject *data);

/* The connection's socket in the thread-default main context, once, until
 * prs_api_wait_watch_close(); a reference to the returned source */
GSource *prs_api_wait_watch_new   (GSocket *socket);

/* Takes the socket out of the main loop: every source still waiting on
 * @watch becomes ready (a read or write then fails without blocking) */
void     prs_api_wait_watch_close (GSource *watch);

/* A pollable source for @stream, ready when the socket meets @condition
 * (G_IO_IN or G_IO_OUT), has hung up or failed, or @buffered says so; it
 * has no file descriptor of its own. Its callback is a
 * GPollableSourceFunc. */
GSource *prs_api_wait_source_new  (GSource                *watch,
                                   GObject                *stream,
                                   GIOCondition            condition,
                                   PrsApiWaitBufferedFunc  buffered,
                                   GObject                *buffered_data,
                                   GCancellable           *cancellable);

/* An input stream that reads @base (a TLS connection's) and waits on
 * @watch */
GInputStream *prs_api_wait_input_new (GInputStream           *base,
                                      GSource                *watch,
                                      PrsApiWaitBufferedFunc  buffered,
                                      GObject                *buffered_data);

G_END_DECLS
