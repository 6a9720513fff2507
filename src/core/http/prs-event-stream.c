/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-event-stream.c: Server-Sent Events (WHATWG HTML, "event stream
 * interpretation") and NDJSON, parsed incrementally.
 *
 * Both formats are lines first: the splitter below accepts CRLF, LF and a
 * lone CR, also when a CRLF is split across two chunks, and refuses lines
 * over a limit instead of growing without bound (a provider that never sends
 * a line break must not exhaust memory). */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "prs-error.h"
#include "prs-event-stream.h"

struct _PrsEventStream
{
  PrsEventStreamFormat format;
  gsize                max_line;
  PrsEventFunc         func;
  gpointer             user_data;

  GString             *line;
  gboolean             after_cr;     /* the last byte seen was a CR */
  gboolean             started;      /* past a possible byte order mark */
  gboolean             failed;
  guint                n_events;

  /* SSE state of the event being assembled */
  GString             *data;
  gboolean             has_data;
  char                *event_type;
  char                *last_id;
};

PrsEventStream *
prs_event_stream_new (PrsEventStreamFormat  format,
                      gsize                 max_line,
                      PrsEventFunc          func,
                      gpointer              user_data)
{
  PrsEventStream *self;

  g_return_val_if_fail (func != NULL, NULL);

  self = g_new0 (PrsEventStream, 1);
  self->format = format;
  self->max_line = max_line > 0 ? max_line : PRS_EVENT_STREAM_DEFAULT_MAX_LINE;
  self->func = func;
  self->user_data = user_data;
  self->line = g_string_new (NULL);
  self->data = g_string_new (NULL);

  return self;
}

void
prs_event_stream_free (PrsEventStream *self)
{
  if (self == NULL)
    return;

  g_string_free (self->line, TRUE);
  g_string_free (self->data, TRUE);
  g_free (self->event_type);
  g_free (self->last_id);
  g_free (self);
}

guint
prs_event_stream_get_n_events (PrsEventStream *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->n_events;
}

static gboolean
too_long (PrsEventStream  *self,
          GError         **error)
{
  g_autofree char *limit = g_format_size (self->max_line);

  self->failed = TRUE;
  g_set_error (error, PRS_ERROR, PRS_ERROR_PROVIDER_BAD_RESPONSE,
               _("The stream contains a line or event longer than %s."), limit);
  return FALSE;
}

static gboolean
emit (PrsEventStream  *self,
      const char      *event,
      const char      *data,
      gsize            len,
      const char      *id,
      GError         **error)
{
  self->n_events++;
  if (!self->func (event, data, len, id, self->user_data, error))
    {
      self->failed = TRUE;
      /* A callback that fails must say why. */
      if (error != NULL && *error == NULL)
        g_set_error_literal (error, PRS_ERROR, PRS_ERROR_PROVIDER_BAD_RESPONSE,
                             _("The stream could not be read."));
      return FALSE;
    }
  return TRUE;
}

static void
sse_reset_event (PrsEventStream *self)
{
  g_string_truncate (self->data, 0);
  self->has_data = FALSE;
  g_clear_pointer (&self->event_type, g_free);
}

static gboolean
sse_dispatch (PrsEventStream  *self,
              GError         **error)
{
  gboolean ok = TRUE;

  if (self->has_data)
    {
      /* Every data line appended a "\n"; the last one is not part of it. */
      if (self->data->len > 0 && self->data->str[self->data->len - 1] == '\n')
        g_string_truncate (self->data, self->data->len - 1);
      ok = emit (self,
                 self->event_type != NULL && self->event_type[0] != '\0' ? self->event_type : "message",
                 self->data->str, self->data->len, self->last_id, error);
    }

  sse_reset_event (self);
  return ok;
}

static gboolean
sse_line (PrsEventStream  *self,
          const char      *line,
          gsize            len,
          GError         **error)
{
  const char *colon;
  g_autofree char *field = NULL;
  const char *value;
  gsize value_len;

  if (len == 0)
    return sse_dispatch (self, error);

  if (line[0] == ':')
    return TRUE;  /* a comment, e.g. a keep-alive */

  colon = memchr (line, ':', len);
  if (colon != NULL)
    {
      field = g_strndup (line, colon - line);
      value = colon + 1;
      value_len = len - (value - line);
      if (value_len > 0 && value[0] == ' ')
        {
          value++;
          value_len--;
        }
    }
  else
    {
      field = g_strndup (line, len);
      value = "";
      value_len = 0;
    }

  if (g_str_equal (field, "data"))
    {
      if (self->data->len + value_len + 1 > self->max_line)
        return too_long (self, error);
      g_string_append_len (self->data, value, value_len);
      g_string_append_c (self->data, '\n');
      self->has_data = TRUE;
    }
  else if (g_str_equal (field, "event"))
    {
      g_free (self->event_type);
      self->event_type = g_strndup (value, value_len);
    }
  else if (g_str_equal (field, "id"))
    {
      if (memchr (value, '\0', value_len) == NULL)
        {
          g_free (self->last_id);
          self->last_id = g_strndup (value, value_len);
        }
    }
  /* "retry" and unknown fields are ignored, as the specification says. */

  return TRUE;
}

static gboolean
ndjson_line (PrsEventStream  *self,
             const char      *line,
             gsize            len,
             GError         **error)
{
  gsize start = 0;
  gsize end = len;

  while (start < end && g_ascii_isspace (line[start]))
    start++;
  while (end > start && g_ascii_isspace (line[end - 1]))
    end--;
  if (start == end)
    return TRUE;

  /* emit() wants a NUL-terminated string: the line buffer always is one,
   * and trailing spaces can be cut in place. */
  if (end < len)
    ((char *) line)[end] = '\0';

  return emit (self, "line", line + start, end - start, NULL, error);
}

static gboolean
end_line (PrsEventStream  *self,
          GError         **error)
{
  gboolean ok;

  /* A UTF-8 byte order mark may open the stream; it is not data. */
  if (!self->started)
    {
      self->started = TRUE;
      if (self->line->len >= 3 && memcmp (self->line->str, "\xEF\xBB\xBF", 3) == 0)
        g_string_erase (self->line, 0, 3);
    }

  if (self->format == PRS_EVENT_STREAM_SSE)
    ok = sse_line (self, self->line->str, self->line->len, error);
  else
    ok = ndjson_line (self, self->line->str, self->line->len, error);

  g_string_truncate (self->line, 0);
  return ok;
}

gboolean
prs_event_stream_feed (PrsEventStream  *self,
                       const char      *data,
                       gsize            len,
                       GError         **error)
{
  gsize i = 0;

  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (data != NULL || len == 0, FALSE);

  if (self->failed)
    {
      g_set_error_literal (error, PRS_ERROR, PRS_ERROR_PROVIDER_BAD_RESPONSE,
                           _("The stream could not be read."));
      return FALSE;
    }

  while (i < len)
    {
      gsize start = i;

      if (self->after_cr)
        {
          self->after_cr = FALSE;
          if (data[i] == '\n')
            {
              i++;
              continue;
            }
        }

      while (i < len && data[i] != '\n' && data[i] != '\r')
        i++;

      if (self->line->len + (i - start) > self->max_line)
        return too_long (self, error);
      g_string_append_len (self->line, data + start, i - start);

      if (i < len)
        {
          if (data[i] == '\r')
            self->after_cr = TRUE;
          i++;
          if (!end_line (self, error))
            {
              self->failed = TRUE;
              return FALSE;
            }
        }
    }

  return TRUE;
}

gboolean
prs_event_stream_finish (PrsEventStream  *self,
                         GError         **error)
{
  g_return_val_if_fail (self != NULL, FALSE);

  if (self->failed)
    {
      g_set_error_literal (error, PRS_ERROR, PRS_ERROR_PROVIDER_BAD_RESPONSE,
                           _("The stream could not be read."));
      return FALSE;
    }

  if (self->format == PRS_EVENT_STREAM_NDJSON && self->line->len > 0)
    {
      if (!end_line (self, error))
        {
          self->failed = TRUE;
          return FALSE;
        }
    }
  else
    {
      g_string_truncate (self->line, 0);
      sse_reset_event (self);
    }

  return TRUE;
}
