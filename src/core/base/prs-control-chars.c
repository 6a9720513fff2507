/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-control-chars.c: control characters found and blanked
 * (prs-control-chars.h). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "prs-control-chars.h"

gboolean
prs_unichar_is_control (gunichar c)
{
  return g_unichar_iscntrl (c);
}

gboolean
prs_text_is_one_line (const char *text)
{
  g_return_val_if_fail (text != NULL, FALSE);

  if (!g_utf8_validate (text, -1, NULL))
    return FALSE;
  for (const char *p = text; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (prs_unichar_is_control (c) || c == 0x2028 || c == 0x2029)
        return FALSE;
    }
  return TRUE;
}

gboolean
prs_text_is_blank (const char *text)
{
  g_return_val_if_fail (text != NULL, TRUE);

  for (const char *p = text; *p != '\0'; p++)
    {
      if (!g_ascii_isspace (*p))
        return FALSE;
    }
  return TRUE;
}

char *
prs_text_blank_controls (const char *text,
                         gssize      length,
                         gboolean    keep_lines)
{
  g_autofree char *valid = NULL;
  GString *out;

  g_return_val_if_fail (text != NULL, NULL);

  valid = g_utf8_make_valid (text, length);
  out = g_string_sized_new (strlen (valid));
  for (const char *p = valid; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (prs_unichar_is_control (c) && !(keep_lines && (c == '\n' || c == '\t')))
        g_string_append_c (out, ' ');
      else
        g_string_append_len (out, p, g_utf8_next_char (p) - p);
    }
  return g_string_free (out, FALSE);
}

static void
print_blanked (FILE       *stream,
               const char *string)
{
  g_autofree char *text = prs_text_blank_controls (string, -1, TRUE);
  g_autofree char *local = NULL;
  const char *charset;

  /* As g_print () does: the console's charset, when it is not UTF-8 */
  if (!g_get_console_charset (&charset))
    local = g_convert_with_fallback (text, -1, charset, "UTF-8", "?", NULL, NULL, NULL);
  fputs (local != NULL ? local : text, stream);
  fflush (stream);
}

static void
print_out (const char *string)
{
  print_blanked (stdout, string);
}

static void
print_err (const char *string)
{
  print_blanked (stderr, string);
}

void
prs_text_blank_printed (void)
{
  g_set_print_handler (print_out);
  g_set_printerr_handler (print_err);
}
