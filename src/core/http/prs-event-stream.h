/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-event-stream.h: incremental parsers for the streaming formats of AI
 * providers: Server-Sent Events (OpenAI, Anthropic, Gemini) and
 * newline-delimited JSON (Ollama). Bytes go in as they arrive, in chunks of
 * any size; whole events come out through a callback. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The longest line (and, for SSE, the longest event's data) accepted. */
#define PRS_EVENT_STREAM_DEFAULT_MAX_LINE ((gsize) 16 * 1024 * 1024)

typedef enum
{
  PRS_EVENT_STREAM_SSE,
  PRS_EVENT_STREAM_NDJSON,
} PrsEventStreamFormat;

/* One event. For SSE, @event is the event type ("message" when the stream
 * named none), @data the data lines joined by "\n", @id the last event id
 * (or NULL). For NDJSON, @event is "line", @data one non-empty line without
 * its line break, @id NULL. @data is NUL-terminated; @data_len excludes the
 * NUL. Returning FALSE with @error set stops the stream: the error is
 * returned by prs_event_stream_feed(). */
typedef gboolean (*PrsEventFunc) (const char  *event,
                                  const char  *data,
                                  gsize        data_len,
                                  const char  *id,
                                  gpointer     user_data,
                                  GError     **error);

typedef struct _PrsEventStream PrsEventStream;

PrsEventStream *prs_event_stream_new    (PrsEventStreamFormat  format,
                                         gsize                 max_line,
                                         PrsEventFunc          func,
                                         gpointer              user_data);
void            prs_event_stream_free   (PrsEventStream       *self);

/* Feeds @len bytes. Line breaks may be CRLF, LF or CR, and may be split
 * across calls. Fails with PRS_ERROR_PROVIDER_BAD_RESPONSE when a line is
 * longer than the limit, or with the callback's error; after a failure every
 * call fails. */
gboolean        prs_event_stream_feed   (PrsEventStream       *self,
                                         const char           *data,
                                         gsize                 len,
                                         GError              **error);
/* The end of the stream. NDJSON: a last line without a line break is still
 * an event. SSE: an event not ended by an empty line is dropped, as the
 * specification says (a truncated stream must not look complete). */
gboolean        prs_event_stream_finish (PrsEventStream       *self,
                                         GError              **error);
/* Events delivered so far. */
guint           prs_event_stream_get_n_events (PrsEventStream *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrsEventStream, prs_event_stream_free)

G_END_DECLS
