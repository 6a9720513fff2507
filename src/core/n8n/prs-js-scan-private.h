/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-js-scan-private.h: what the parts of the Code-node scanner share: the
 * tokens the tokenizer (prs-js-lexer.c) makes, and the view of them that the
 * literal readers (prs-js-literal.c) and the forms (prs-js-scan.c) walk. */
#pragma once

#include <string.h>

#include "prs-js-scan.h"

G_BEGIN_DECLS

#define NO_MATCH G_MAXUINT32

typedef enum
{
  TOK_IDENT,
  TOK_NUMBER,
  TOK_STRING,
  TOK_TEMPLATE,
  TOK_REGEX,
  TOK_PUNCT,
  TOK_OTHER,
  TOK_EOF,
} TokKind;

enum
{
  TOK_FLAG_NL_BEFORE    = 1 << 0, /* a line break separates it from the previous token */
  TOK_FLAG_SUBST        = 1 << 1, /* a template literal with a `${` */
  TOK_FLAG_UNTERMINATED = 1 << 2, /* a string or template cut by a line break or the end */
};

typedef struct
{
  guint32 start;
  guint32 end;
  guint32 match;     /* the index of the matching bracket, or NO_MATCH */
  guint32 non_json;  /* how many tokens before this one cannot appear in JSON */
  guint8  kind;
  guint8  flags;
} Token;

/* A growable array of tokens, appended to once per token. */
typedef struct
{
  Token *data;
  gsize  len;
  gsize  alloc;
} Tokens;

typedef struct
{
  const char  *text;
  const Token *toks;
  guint        n_toks;  /* including the final TOK_EOF */
} Scan;

/* Past the end is the end. */
static inline const Token *
scan_tok (const Scan *sc,
          gsize       i)
{
  return &sc->toks[MIN (i, (gsize) sc->n_toks - 1)];
}

static inline gboolean
tok_is (const Scan  *sc,
        const Token *tok,
        TokKind      kind,
        const char  *str)
{
  gsize n;

  if (tok->kind != kind)
    return FALSE;
  if (str == NULL)
    return TRUE;

  n = strlen (str);
  return tok->end - tok->start == n && memcmp (sc->text + tok->start, str, n) == 0;
}

static inline gboolean
tok_punct (const Scan  *sc,
           const Token *tok,
           const char  *str)
{
  return tok_is (sc, tok, TOK_PUNCT, str);
}

/* The scanner's files call each other's functions in its hottest loops:
 * hidden, so that the compiler may inline them as it did when they were
 * one file (-fPIC otherwise lets another library interpose them). */

/* Pass 1: the tokens of @code (@len bytes) into @tokens (its data owned by
 * the caller, g_free), ending with TOK_EOF, brackets matched. */
G_GNUC_INTERNAL
void        prs_js_tokenize           (const char   *code,
                                       gsize         len,
                                       Tokens       *tokens);
/* Whether the identifier @s (@n bytes) is a word after which a `/` starts a
 * regular expression. */
G_GNUC_INTERNAL
gboolean    prs_js_is_regex_keyword   (const char   *s,
                                       gsize         n);
/* The length of the line terminator at @p (LF, CR, CRLF, U+2028, U+2029), or 0. */
G_GNUC_INTERNAL
gsize       prs_js_line_break_len     (const char   *text,
                                       gsize         len,
                                       gsize         p);

/* Whether token @i, at the start of a new line, carries on the expression
 * before it (so no semicolon is inserted there). */
G_GNUC_INTERNAL
gboolean    prs_js_continues_expression (const Scan *sc,
                                         gsize       i);
/* The value of a string literal token, or NULL if it is not a complete one. */
G_GNUC_INTERNAL
char       *prs_js_tok_string_value   (const Scan   *sc,
                                       const Token  *tok);
/* Reads the LITERAL of an optional form at token @i: its type, and its
 * default (NULL for none). */
G_GNUC_INTERNAL
void        prs_js_read_literal       (const Scan    *sc,
                                       gsize          i,
                                       PrsParamType  *out_type,
                                       JsonNode     **out_default);

G_END_DECLS
