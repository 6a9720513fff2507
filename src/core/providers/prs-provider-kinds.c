/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-provider-kinds.c: the kinds of provider (prs-provider-kinds.h). */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "prs-provider-kinds.h"

typedef struct
{
  const char *kind;
  const char *label;
  const char *default_base_url;
  gboolean    needs_key;
} KindInfo;

static const KindInfo kinds[] = {
  { "openai", N_("OpenAI-compatible"), "https://api.openai.com/v1", TRUE },
  { "ollama", N_("Ollama"), "http://localhost:11434", FALSE },
  { "anthropic", N_("Anthropic"), "https://api.anthropic.com", TRUE },
  { "gemini", N_("Google Gemini"), "https://generativelanguage.googleapis.com", TRUE },
};

static const KindInfo *
lookup_kind (const char *kind)
{
  for (guint i = 0; kind != NULL && i < G_N_ELEMENTS (kinds); i++)
    {
      if (g_str_equal (kinds[i].kind, kind))
        return &kinds[i];
    }
  return NULL;
}

gboolean
prs_provider_kind_is_valid (const char *kind)
{
  return lookup_kind (kind) != NULL;
}

const char *
prs_provider_kind_default_base_url (const char *kind)
{
  const KindInfo *info = lookup_kind (kind);

  return info != NULL ? info->default_base_url : NULL;
}

const char *
prs_provider_kind_get_label (const char *kind)
{
  const KindInfo *info = lookup_kind (kind);

  return info != NULL ? _(info->label) : kind;
}

gboolean
prs_provider_kind_needs_key (const char *kind)
{
  const KindInfo *info = lookup_kind (kind);

  return info != NULL && info->needs_key;
}

/* Published context windows of the model families people run; the most
 * specific prefix first */
static const struct
{
  const char *prefix;
  guint       tokens;
} context_windows[] = {
  { "claude", 200000 },
  { "gpt-4.1", 1047576 },
  { "gpt-4o", 128000 },
  { "gpt-4-turbo", 128000 },
  { "gpt-5", 400000 },
  { "gpt-3.5", 16385 },
  { "o1", 128000 },
  { "o3", 200000 },
  { "o4", 200000 },
  { "gemini", 1048576 },
  { "mistral-large", 128000 },
  { "deepseek", 64000 },
};

guint
prs_provider_kind_context_window (const char *kind,
                                  const char *model)
{
  g_autofree char *name = NULL;
  const char *slash;

  /* Ollama's server, not the model, decides how much it reads */
  if (g_strcmp0 (kind, "ollama") == 0)
    return 8192;
  if (model == NULL)
    return PRS_PROVIDER_DEFAULT_CONTEXT;
  /* "anthropic/claude-…" through a router names the family after a slash */
  slash = strrchr (model, '/');
  name = g_ascii_strdown (slash != NULL ? slash + 1 : model, -1);
  for (guint i = 0; i < G_N_ELEMENTS (context_windows); i++)
    if (g_str_has_prefix (name, context_windows[i].prefix))
      return context_windows[i].tokens;
  return PRS_PROVIDER_DEFAULT_CONTEXT;
}

gboolean
prs_provider_url_is_local (const char *base_url)
{
  g_autoptr(GUri) uri = NULL;
  g_autoptr(GInetAddress) address = NULL;
  g_autofree char *host = NULL;

  if (base_url == NULL)
    return FALSE;
  uri = g_uri_parse (base_url, G_URI_FLAGS_NONE, NULL);
  if (uri == NULL || g_uri_get_host (uri) == NULL)
    return FALSE;

  host = g_ascii_strdown (g_uri_get_host (uri), -1);
  if (g_str_equal (host, "localhost") || g_str_has_suffix (host, ".localhost"))
    return TRUE;

  address = g_inet_address_new_from_string (host);
  return address != NULL && g_inet_address_get_is_loopback (address);
}
