/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-js-scan.c: finds tool parameters in Code-node JavaScript (docs/workflows.md).
 *
 * Two passes, both iterative and linear in the size of the code (the
 * tokenizer is prs-js-lexer.c, the LITERALs' values prs-js-literal.c, the
 * recognised forms and the merge rules are here):
 *
 * 1. A tokenizer turns the text into identifiers, numbers, strings,
 *    template literals, regular-expression literals and punctuators. Comments
 *    vanish, and a string, template (with everything inside its `${…}`) or
 *    regular expression is one opaque token, so nothing inside them can ever
 *    look like a form. Each token remembers whether a line break preceded
 *    it, because several rules depend on where a statement ends.
 *
 * 2. Brackets are matched with an explicit stack, then every `parameters` /
 *    `body` identifier is tried against the recognised forms.
 *
 * The input comes from the network (n8n workflows): unterminated literals,
 * NUL bytes, invalid UTF-8 and absurd nesting must all degrade into "no
 * match" rather than a crash or a slow scan.
 */
#include <string.h>

#include "prs-js-scan-private.h"

/* Up to this many parameters are looked up by name one after another:
 * cheaper than a hash table for the few a Code node reads (a discovery
 * makes a set per workflow), and still bounded past it. */
#define FEW_PARAMS 16

struct _PrsParamSet
{
  GPtrArray  *params;   /* PrsParam*, in order of first occurrence */
  GHashTable *by_name;  /* name → PrsParam*, borrowed from params; past FEW_PARAMS */
  gboolean    overflowed;  /* more than PRS_TOOL_MAX_PARAMS were read */
};

static PrsParam *
param_set_find (PrsParamSet *self,
                const char  *name)
{
  if (self->by_name != NULL)
    return g_hash_table_lookup (self->by_name, name);

  for (guint i = 0; i < self->params->len; i++)
    {
      PrsParam *param = g_ptr_array_index (self->params, i);

      if (strcmp (param->name, name) == 0)
        return param;
    }

  return NULL;
}

static gboolean
is_ascii_identifier (const char *s,
                     gsize       len)
{
  if (len == 0 || g_ascii_isdigit (s[0]))
    return FALSE;

  for (gsize i = 0; i < len; i++)
    {
      if (!g_ascii_isalnum (s[i]) && s[i] != '_' && s[i] != '$')
        return FALSE;
    }

  return TRUE;
}

static inline gboolean
tok_is_regex_keyword (const Scan  *sc,
                      const Token *tok)
{
  return tok->kind == TOK_IDENT && prs_js_is_regex_keyword (sc->text + tok->start, tok->end - tok->start);
}

/* Whether the statement ends right after token @i - 1. */
static gboolean
ends_statement (const Scan *sc,
                gsize       i)
{
  const Token *tok = scan_tok (sc, i);

  if (tok->kind == TOK_EOF || tok_punct (sc, tok, ";") || tok_punct (sc, tok, "}"))
    return TRUE;

  return (tok->flags & TOK_FLAG_NL_BEFORE) && !prs_js_continues_expression (sc, i);
}

/* A token that can end the object of a member access or call. */
static gboolean
ends_operand (const Scan  *sc,
              const Token *tok)
{
  if (tok->kind == TOK_IDENT)
    return !tok_is_regex_keyword (sc, tok);

  return (tok_punct (sc, tok, ")") || tok_punct (sc, tok, "]")) && tok->match != NO_MATCH;
}

/* Whether the member chain ending with `parameters`/`body` at token @i is
 * the whole initialiser of `const NAME = …`. Walks backwards over `.x`,
 * `?.x`, `(…)`, `[…]`, `?.(…)`, `?.[…]`, jumping over brackets, so a walk
 * never visits a token twice across the whole scan. */
static gboolean
is_const_initialiser (const Scan *sc,
                      gsize       i)
{
  for (;;)
    {
      const Token *tok = &sc->toks[i];
      const Token *prev;

      if (i == 0)
        return FALSE;
      prev = &sc->toks[i - 1];

      if ((tok_punct (sc, tok, "(") || tok_punct (sc, tok, "[")) && ends_operand (sc, prev))
        {
          i = prev->kind == TOK_IDENT ? i - 1 : prev->match;
          continue;
        }
      if ((tok_punct (sc, prev, ".") || tok_punct (sc, prev, "?.")) && i >= 2 &&
          ends_operand (sc, &sc->toks[i - 2]))
        {
          const Token *obj = &sc->toks[i - 2];

          i = obj->kind == TOK_IDENT ? i - 2 : obj->match;
          continue;
        }
      break;
    }

  return i >= 3 &&
         tok_punct (sc, &sc->toks[i - 1], "=") &&
         sc->toks[i - 2].kind == TOK_IDENT &&
         tok_is (sc, &sc->toks[i - 3], TOK_IDENT, "const");
}

/* Takes @name and @default_value. */
static void
param_set_add (PrsParamSet  *self,
               char         *name,
               PrsParamType  type,
               gboolean      optional,
               JsonNode     *default_value)
{
  PrsParam *param = param_set_find (self, name);

  if (param != NULL)
    {
      if (optional)
        param->required = FALSE;
      g_free (name);
      g_clear_pointer (&default_value, json_node_unref);
      return;
    }

  /* Past the limit nothing more is kept: a Code node of millions of
   * reads costs its tokens, not a parameter each */
  if (self->params->len >= PRS_TOOL_MAX_PARAMS)
    {
      self->overflowed = TRUE;
      g_free (name);
      g_clear_pointer (&default_value, json_node_unref);
      return;
    }

  /* prs_param_new () without its copies */
  param = g_new0 (PrsParam, 1);
  param->name = name;
  param->type = type;
  param->required = !optional;
  param->default_value = default_value;
  param->description = prs_param_describe (name);
  g_ptr_array_add (self->params, param);
  if (self->by_name != NULL)
    g_hash_table_insert (self->by_name, param->name, param);
  else if (self->params->len > FEW_PARAMS)
    {
      self->by_name = g_hash_table_new (g_str_hash, g_str_equal);
      for (guint i = 0; i < self->params->len; i++)
        {
          PrsParam *known = g_ptr_array_index (self->params, i);

          g_hash_table_insert (self->by_name, known->name, known);
        }
    }
}

/* Tries the forms at the `parameters`/`body` token @i. */
static gboolean
scan_form (PrsParamSet *self,
           const Scan  *sc,
           gsize        i)
{
  const Token *next = scan_tok (sc, i + 1);
  g_autofree char *key = NULL;
  gsize key_end = 0;  /* the last token of the KEY access */

  if (tok_punct (sc, next, ".") || tok_punct (sc, next, "?."))
    {
      const Token *name = scan_tok (sc, i + 2);

      if (name->kind == TOK_IDENT)
        {
          key = g_strndup (sc->text + name->start, name->end - name->start);
          key_end = i + 2;
        }
      else if (tok_punct (sc, next, "?.") && tok_punct (sc, name, "["))
        {
          i++;  /* `?.[…]` reads like `[…]` */
        }
    }

  if (key == NULL)
    {
      const Token *str = scan_tok (sc, i + 2);

      if (!tok_punct (sc, scan_tok (sc, i + 1), "[") || str->kind != TOK_STRING ||
          !tok_punct (sc, scan_tok (sc, i + 3), "]"))
        return FALSE;

      key = prs_js_tok_string_value (sc, str);
      key_end = i + 3;
    }

  if (key == NULL || !is_ascii_identifier (key, strlen (key)) ||
      g_str_equal (key, "parameters") || g_str_equal (key, "prosponsive"))
    return FALSE;

  next = scan_tok (sc, key_end + 1);
  if (tok_punct (sc, next, "??") || tok_punct (sc, next, "||"))
    {
      g_autoptr(JsonNode) default_value = NULL;
      PrsParamType type;

      prs_js_read_literal (sc, key_end + 2, &type, &default_value);
      param_set_add (self, g_steal_pointer (&key), type, TRUE, g_steal_pointer (&default_value));
      return TRUE;
    }

  if (ends_statement (sc, key_end + 1))
    {
      /* back over `?.` to the `parameters`/`body` token itself */
      gsize obj = tok_punct (sc, &sc->toks[i], "?.") ? i - 1 : i;

      if (is_const_initialiser (sc, obj))
        {
          param_set_add (self, g_steal_pointer (&key), PRS_PARAM_STRING, FALSE, NULL);
          return TRUE;
        }
    }

  return FALSE;
}

/* ------------------------------------------------------------------------ */
/* Public API */

PrsParamSet *
prs_param_set_new (void)
{
  PrsParamSet *self = g_new0 (PrsParamSet, 1);

  self->params = g_ptr_array_new_with_free_func ((GDestroyNotify) prs_param_free);

  return self;
}

void
prs_param_set_free (PrsParamSet *self)
{
  if (self == NULL)
    return;

  g_clear_pointer (&self->by_name, g_hash_table_unref);
  g_ptr_array_unref (self->params);
  g_free (self);
}

guint
prs_param_set_scan (PrsParamSet *self,
                    const char  *code,
                    gssize       len)
{
  Tokens tokens = { NULL, 0, 0 };
  Scan sc;
  guint found = 0;

  g_return_val_if_fail (self != NULL, 0);
  g_return_val_if_fail (code != NULL || len == 0, 0);

  if (code == NULL)
    return 0;
  if (len < 0)
    len = strlen (code);

  /* Token offsets are 32-bit; no Code node comes anywhere near 4 GiB. */
  if ((gsize) len >= G_MAXUINT32)
    {
      g_debug ("Not scanning a Code node of %" G_GSSIZE_FORMAT " bytes", len);
      return 0;
    }

  prs_js_tokenize (code, len, &tokens);

  sc.text = code;
  sc.toks = tokens.data;
  sc.n_toks = (guint) tokens.len;

  for (gsize i = 0; i + 1 < sc.n_toks; i++)
    {
      const Token *tok = &sc.toks[i];

      if ((tok_is (&sc, tok, TOK_IDENT, "parameters") || tok_is (&sc, tok, TOK_IDENT, "body")) &&
          scan_form (self, &sc, i))
        found++;
    }

  g_free (tokens.data);

  return found;
}

GPtrArray *
prs_param_set_get_params (PrsParamSet *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return self->params;
}

gboolean
prs_param_set_overflowed (PrsParamSet *self)
{
  g_return_val_if_fail (self != NULL, FALSE);

  return self->overflowed;
}

GPtrArray *
prs_param_set_steal_params (PrsParamSet *self)
{
  GPtrArray *params;

  g_return_val_if_fail (self != NULL, NULL);

  params = g_steal_pointer (&self->params);
  self->params = g_ptr_array_new_with_free_func ((GDestroyNotify) prs_param_free);
  g_clear_pointer (&self->by_name, g_hash_table_unref);
  self->overflowed = FALSE;

  return params;
}
