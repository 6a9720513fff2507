/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-schedule.c: checking a scheduled prompt before it is stored, and
 * when it is due next (prs-schedule.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <glib/gi18n-lib.h>

#include "prs-control-chars.h"
#include "prs-error.h"
#include "prs-json.h"
#include "prs-paths.h"
#include "prs-schedule.h"

/* Trims *@field in place; FALSE when it is then empty or not UTF-8 */
static gboolean
trim_field (char **field)
{
  if (*field == NULL || !g_utf8_validate (*field, -1, NULL))
    return FALSE;
  g_strstrip (*field);
  return (*field)[0] != '\0';
}

static gboolean
check_name_and_slug (PrsScheduleRow  *row,
                     GError         **error)
{
  if (!trim_field (&row->name) || !prs_text_is_one_line (row->name) ||
      g_utf8_strlen (row->name, -1) > PRS_SCHEDULE_MAX_NAME_CHARS)
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                   /* Translators: %d is a number of characters such as 100 */
                   _("A schedule needs a name of 1 to %d characters on one line."), PRS_SCHEDULE_MAX_NAME_CHARS);
      return FALSE;
    }
  /* The rules of POST /api/conversations/resolve (docs/api.md), and one
   * line: the schedule editor and `schedule list` show it as a name */
  if (!trim_field (&row->conversation_slug) || !prs_text_is_one_line (row->conversation_slug) ||
      g_utf8_strlen (row->conversation_slug, -1) > PRS_SCHEDULE_MAX_SLUG_CHARS ||
      g_str_has_prefix (row->conversation_slug, "slug:"))
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                   /* Translators: %d is a number of characters such as 200 */
                   _("A schedule needs the name of its conversation: 1 to %d characters on one line, "
                     "not starting with “slug:”."), PRS_SCHEDULE_MAX_SLUG_CHARS);
      return FALSE;
    }
  return TRUE;
}

static gboolean
check_prompt (const char  *prompt,
              GError     **error)
{
  g_autofree char *trimmed = NULL;

  if (prompt == NULL || !g_utf8_validate (prompt, -1, NULL) ||
      (trimmed = g_strstrip (g_strdup (prompt)))[0] == '\0')
    {
      g_set_error_literal (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT, _("A schedule needs a prompt."));
      return FALSE;
    }
  if (strlen (prompt) > PRS_SCHEDULE_MAX_PROMPT_BYTES)
    {
      g_autofree char *size = g_format_size_full (PRS_SCHEDULE_MAX_PROMPT_BYTES, G_FORMAT_SIZE_IEC_UNITS);

      /* Translators: %s is a size such as "256.0 KiB" */
      g_set_error (error, PRS_ERROR, PRS_ERROR_TOO_LARGE, _("The prompt is longer than %s."), size);
      return FALSE;
    }
  return TRUE;
}

gboolean
prs_schedule_check_context (const char  *text,
                            char       **out_json,
                            GError     **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autoptr(JsonNode) node = NULL;
  gsize length;

  g_return_val_if_fail (out_json != NULL, FALSE);

  *out_json = NULL;
  length = text != NULL ? strlen (text) : 0;
  if (length == 0 || strspn (text, " \t\r\n") == length)
    return TRUE;
  if (length > PRS_SCHEDULE_MAX_CONTEXT_BYTES)
    {
      g_autofree char *size = g_format_size_full (PRS_SCHEDULE_MAX_CONTEXT_BYTES, G_FORMAT_SIZE_IEC_UNITS);

      /* Translators: %s is a size such as "64.0 KiB" */
      g_set_error (error, PRS_ERROR, PRS_ERROR_TOO_LARGE, _("The Request Context is larger than %s."), size);
      return FALSE;
    }
  node = prs_json_parse_strict (text, length, PRS_JSON_DEFAULT_MAX_DEPTH, &local_error);
  if (node == NULL)
    {
      /* Translators: %s says what is wrong with the JSON, in English */
      g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT, _("The Request Context is not valid JSON: %s"),
                   local_error->message);
      return FALSE;
    }
  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error_literal (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                           _("The Request Context must be a JSON object ({…})."));
      return FALSE;
    }
  *out_json = prs_json_to_string (node, FALSE);
  return TRUE;
}

/* @fresh: a new recurrence, or one turned on again */
static gboolean
check_recurrence (const char  *json,
                  gboolean     fresh,
                  gint64       now,
                  GError     **error)
{
  PrsRecurrence recurrence;

  if (!prs_recurrence_parse (json, &recurrence, error))
    return FALSE;
  /* A time that passed can stay as it is (the rest is edited); a new one
   * must be to come */
  if (recurrence.kind == PRS_RECURRENCE_ONCE && recurrence.at <= now && fresh)
    {
      g_set_error_literal (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                           _("The time to run has passed; choose a time to come."));
      return FALSE;
    }
  return TRUE;
}

gboolean
prs_schedule_prepare (PrsScheduleRow        *row,
                      const PrsScheduleRow  *stored,
                      PrsStore              *store,
                      gint64                 now,
                      GError               **error)
{
  g_autoptr(PrsAgent) agent = NULL;
  g_autofree char *context = NULL;
  g_autofree char *conversation_id = NULL;
  gboolean turned_on, fresh;

  g_return_val_if_fail (row != NULL, FALSE);
  g_return_val_if_fail (PRS_IS_STORE (store), FALSE);

  turned_on = row->enabled && (stored == NULL || !stored->enabled);
  fresh = turned_on || stored == NULL || g_strcmp0 (stored->recurrence_json, row->recurrence_json) != 0;
  if (!check_name_and_slug (row, error) || !check_prompt (row->prompt, error) ||
      !prs_schedule_check_context (row->context_json, &context, error) ||
      !check_recurrence (row->recurrence_json, fresh, now, error))
    return FALSE;
  if (g_strcmp0 (row->missed, PRS_SCHEDULE_MISSED_RUN) != 0 && g_strcmp0 (row->missed, PRS_SCHEDULE_MISSED_SKIP) != 0)
    {
      g_set_error_literal (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                           _("A run missed while Prosponsive was not running is either run or skipped."));
      return FALSE;
    }
  if (row->agent_id == NULL || (agent = prs_store_lookup_agent (store, row->agent_id, NULL)) == NULL)
    {
      /* Translators: %s is an agent's id */
      g_set_error (error, PRS_ERROR, PRS_ERROR_NOT_FOUND, _("There is no agent “%s”."),
                   row->agent_id != NULL ? row->agent_id : "");
      return FALSE;
    }
  g_free (row->context_json);
  row->context_json = g_steal_pointer (&context);

  /* The conversation, once it exists, is the one it names: a deleted one is
   * not silently made again */
  if (stored != NULL && g_strcmp0 (stored->conversation_slug, row->conversation_slug) == 0)
    conversation_id = g_strdup (stored->conversation_id);
  if (conversation_id == NULL && !prs_store_lookup_conversation_slug (store, row->conversation_slug,
                                                                      &conversation_id, error))
    return FALSE;
  g_free (row->conversation_id);
  row->conversation_id = g_steal_pointer (&conversation_id);

  if (fresh)
    row->base_at = now;
  else
    row->base_at = stored->base_at;
  if (row->enabled)
    g_clear_pointer (&row->problem, g_free);
  return TRUE;
}

gboolean
prs_schedule_turn_on (PrsStore              *store,
                      const PrsScheduleRow  *stored,
                      gint64                 now,
                      GError               **error)
{
  g_autoptr(PrsScheduleRow) row = NULL;

  g_return_val_if_fail (PRS_IS_STORE (store), FALSE);
  g_return_val_if_fail (stored != NULL, FALSE);

  row = prs_schedule_row_copy (stored);
  row->enabled = TRUE;
  return prs_schedule_prepare (row, stored, store, now, error) && prs_store_update_schedule (store, row, error);
}

gboolean
prs_schedule_next_due (const PrsScheduleRow *row,
                       GTimeZone            *tz,
                       gint64               *out)
{
  PrsRecurrence recurrence;

  g_return_val_if_fail (row != NULL && tz != NULL && out != NULL, FALSE);

  if (!prs_recurrence_parse (row->recurrence_json, &recurrence, NULL))
    return FALSE;
  return prs_recurrence_next (&recurrence, row->base_at, MAX (row->base_at, row->last_fired_at), tz, out);
}

guint
prs_schedule_preview (const PrsRecurrence *recurrence,
                      gint64               anchor,
                      gint64               after,
                      GTimeZone           *tz,
                      gint64              *out,
                      guint                n)
{
  guint found = 0;

  g_return_val_if_fail (recurrence != NULL && tz != NULL && (out != NULL || n == 0), 0);

  while (found < n && prs_recurrence_next (recurrence, anchor, after, tz, &out[found]))
    after = out[found++];
  return found;
}

char *
prs_schedule_format_time (gint64     t,
                          GTimeZone *tz)
{
  g_autoptr(GDateTime) utc = g_date_time_new_from_unix_utc (t);
  g_autoptr(GDateTime) local = NULL;

  g_return_val_if_fail (tz != NULL, NULL);

  if (utc == NULL)
    return g_strdup ("?");
  local = g_date_time_to_timezone (utc, tz);
  /* Translators: g_date_time_format () form with the zone, as in "Mon 2 Mar 2026, 07:30 CET" */
  return g_date_time_format (local, _("%a %-d %b %Y, %H:%M %Z"));
}

char *
prs_schedule_changes_path (PrsStore  *store,
                           gboolean   ensure_folder,
                           GError   **error)
{
  g_autofree char *folder = NULL;
  g_autofree char *changes = NULL;

  g_return_val_if_fail (PRS_IS_STORE (store), NULL);

  folder = g_path_get_dirname (prs_store_get_path (store));
  changes = g_build_filename (folder, PRS_SCHEDULE_CHANGES_DIR, NULL);
  if (ensure_folder && !prs_paths_ensure_data_dir (changes, error))
    return NULL;
  return g_build_filename (changes, PRS_SCHEDULE_CHANGES_FILE, NULL);
}

void
prs_schedule_announce_change (PrsStore *store)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;
  g_autofree char *text = NULL;
  int fd;

  g_return_if_fail (PRS_IS_STORE (store));

  path = prs_schedule_changes_path (store, TRUE, &error);
  /* Written in place: the watch hears the write and the close at once */
  fd = path != NULL ? prs_paths_open_file (path, O_WRONLY | O_CREAT | O_TRUNC, &error) : -1;
  if (fd < 0)
    {
      g_message ("A running Prosponsive sees the changed schedules when it looks next: %s", error->message);
      return;
    }
  text = g_strdup_printf ("%" G_GINT64_FORMAT "\n", g_get_real_time ());
  if (write (fd, text, strlen (text)) < 0)
    g_message ("A running Prosponsive sees the changed schedules when it looks next: %s", g_strerror (errno));
  close (fd);
}
