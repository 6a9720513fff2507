/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-mcp-names.c: MCP tool names as models see them (prs-mcp-names.h). */
#include "config.h"

#include <string.h>
#include <glib/gi18n-lib.h>

#include "prs-mcp-names.h"

static gboolean
is_name_char (gunichar c)
{
  return c < 128 && (g_ascii_isalnum (c) || c == '_' || c == '-');
}

/* Appends @text (UTF-8) as one part of a name: every character outside
 * the allowed set made "_", runs of "_" made one, none at either end (so
 * "__" only ever separates the server from the tool), "x" when nothing is
 * left; returns TRUE when that changed anything. */
static gboolean
append_part (GString    *out,
             const char *text)
{
  gsize start = out->len;

  for (const char *p = text; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);
      char ch = is_name_char (c) ? (char) c : '_';

      if (ch == '_' && (out->len == start || out->str[out->len - 1] == '_'))
        continue;
      g_string_append_c (out, ch);
    }
  if (out->len > start && out->str[out->len - 1] == '_')
    g_string_truncate (out, out->len - 1);
  if (out->len == start)
    g_string_append_c (out, 'x');
  return strlen (text) != out->len - start || strncmp (text, out->str + start, out->len - start) != 0;
}

char *
prs_mcp_tool_name_build (const char *server_name,
                         const char *tool_name,
                         guint       suffix_digits)
{
  g_autoptr(GString) name = g_string_new (NULL);
  g_autoptr(GString) identity = g_string_new (NULL);
  g_autofree char *hash = NULL;
  gboolean lossy;
  gsize keep;

  g_return_val_if_fail (server_name != NULL && g_utf8_validate (server_name, -1, NULL), NULL);
  g_return_val_if_fail (tool_name != NULL && g_utf8_validate (tool_name, -1, NULL), NULL);

  lossy = append_part (name, server_name);
  g_string_append (name, "__");
  lossy = append_part (name, tool_name) || lossy;
  if (!g_ascii_isalpha (name->str[0]))
    g_string_prepend (name, "mcp_");
  lossy = lossy || name->len > PRS_MCP_TOOL_NAME_MAX;

  if (!lossy && suffix_digits == 0)
    return g_string_free (g_steal_pointer (&name), FALSE);

  suffix_digits = CLAMP (MAX (suffix_digits, PRS_MCP_TOOL_NAME_SUFFIX), PRS_MCP_TOOL_NAME_SUFFIX, 32);
  g_string_append (identity, server_name);
  g_string_append_len (identity, "", 1);
  g_string_append (identity, tool_name);
  hash = g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guchar *) identity->str, identity->len);

  keep = PRS_MCP_TOOL_NAME_MAX - 1 - suffix_digits;
  if (name->len > keep)
    g_string_truncate (name, keep);
  g_string_append_c (name, '_');
  g_string_append_len (name, hash, suffix_digits);
  return g_string_free (g_steal_pointer (&name), FALSE);
}

gboolean
prs_mcp_tool_name_is_valid (const char *name)
{
  gsize len;

  if (name == NULL)
    return FALSE;
  len = strlen (name);
  if (len == 0 || len > PRS_MCP_TOOL_NAME_MAX)
    return FALSE;
  for (gsize i = 0; i < len; i++)
    {
      if (!is_name_char ((guchar) name[i]))
        return FALSE;
    }
  return TRUE;
}

PrsMcpNameEntry *
prs_mcp_name_entry_new (const char *server_name,
                        const char *tool_name)
{
  PrsMcpNameEntry *entry = g_new0 (PrsMcpNameEntry, 1);

  entry->server_name = g_strdup (server_name);
  entry->tool_name = g_strdup (tool_name);
  return entry;
}

void
prs_mcp_name_entry_free (PrsMcpNameEntry *entry)
{
  if (entry == NULL)
    return;
  g_free (entry->server_name);
  g_free (entry->tool_name);
  g_free (entry->exposed_name);
  g_free (entry->note);
  g_free (entry);
}

static void
count_name (GHashTable *counts,
            const char *name)
{
  char *key = g_ascii_strdown (name, -1);
  guint n = GPOINTER_TO_UINT (g_hash_table_lookup (counts, key));

  g_hash_table_replace (counts, key, GUINT_TO_POINTER (n + 1));
}

static guint
name_count (GHashTable *counts,
            const char *name)
{
  g_autofree char *key = g_ascii_strdown (name, -1);

  return GPOINTER_TO_UINT (g_hash_table_lookup (counts, key));
}

/* Counts the entries' current names, and the reserved ones once more
 * than any entry could make them unique. */
static GHashTable *
count_names (GPtrArray          *entries,
             const char * const *reserved)
{
  GHashTable *counts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  for (guint i = 0; reserved != NULL && reserved[i] != NULL; i++)
    {
      count_name (counts, reserved[i]);
      count_name (counts, reserved[i]);
    }
  for (guint i = 0; i < entries->len; i++)
    count_name (counts, ((PrsMcpNameEntry *) g_ptr_array_index (entries, i))->exposed_name);
  return counts;
}

static gboolean
is_reserved (const char * const *reserved,
             const char         *name)
{
  for (guint i = 0; reserved != NULL && reserved[i] != NULL; i++)
    {
      if (g_ascii_strcasecmp (reserved[i], name) == 0)
        return TRUE;
    }
  return FALSE;
}

/* Whether the exposed name is the server and tool names joined as they are. */
static gboolean
name_is_plain (const PrsMcpNameEntry *entry)
{
  g_autofree char *joined = g_strconcat (entry->server_name, "__", entry->tool_name, NULL);
  const char *name = entry->exposed_name;

  if (g_str_has_prefix (name, "mcp_") && !g_str_has_prefix (joined, "mcp_"))
    name += strlen ("mcp_");
  return g_str_equal (name, joined);
}

void
prs_mcp_assign_tool_names (GPtrArray          *entries,
                           const char * const *reserved)
{
  g_return_if_fail (entries != NULL);

  for (guint i = 0; i < entries->len; i++)
    {
      PrsMcpNameEntry *entry = g_ptr_array_index (entries, i);

      g_free (entry->exposed_name);
      g_clear_pointer (&entry->note, g_free);
      entry->exposed_name = prs_mcp_tool_name_build (entry->server_name, entry->tool_name, 0);
      if (!name_is_plain (entry))
        entry->note = g_strdup (_("characters other than letters, digits, “_” and “-” were replaced, "
                                  "or the name was cut to 64 characters"));
    }

  /* Each round gives every entry whose name is shared a longer suffix; a
   * second round is only needed when two suffixed names still meet. */
  for (guint digits = PRS_MCP_TOOL_NAME_SUFFIX; digits <= 32; digits += 6)
    {
      g_autoptr(GHashTable) counts = count_names (entries, reserved);
      gboolean changed = FALSE;

      for (guint i = 0; i < entries->len; i++)
        {
          PrsMcpNameEntry *entry = g_ptr_array_index (entries, i);
          g_autofree char *plain = NULL;

          if (name_count (counts, entry->exposed_name) < 2)
            continue;

          plain = g_steal_pointer (&entry->exposed_name);
          entry->exposed_name = prs_mcp_tool_name_build (entry->server_name, entry->tool_name, digits);
          if (entry->note == NULL)
            entry->note = is_reserved (reserved, plain)
              /* Translators: %s is a tool name */
              ? g_strdup_printf (_("“%s” is the name of an n8n tool, which keeps it"), plain)
              : g_strdup_printf (_("“%s” is also the name of another MCP tool"), plain);
          changed = TRUE;
        }
      if (!changed)
        break;
    }
}
