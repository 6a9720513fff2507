/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Tests for prs-js-scan.c: the Code-node parameter scanner (docs/workflows.md). */
#include <string.h>

#include "prs-js-scan.h"

/* One expected parameter. @def is the default as compact JSON, or NULL. */
typedef struct
{
  const char   *name;
  PrsParamType  type;
  gboolean      required;
  const char   *def;
} Expected;

#define REQ TRUE
#define OPT FALSE
#define STR PRS_PARAM_STRING
#define NUM PRS_PARAM_NUMBER
#define BOOL PRS_PARAM_BOOLEAN
#define ARR PRS_PARAM_ARRAY
#define OBJ PRS_PARAM_OBJECT

typedef struct
{
  const char *code;
  guint       n_forms;        /* what prs_param_set_scan returns */
  Expected    params[4];      /* terminated by a NULL name */
} Case;

static void
assert_params (PrsParamSet    *set,
               const Expected *expected,
               const char     *context)
{
  GPtrArray *params = prs_param_set_get_params (set);
  guint n = 0;

  while (n < 4 && expected[n].name != NULL)
    n++;

  if (params->len != n)
    g_error ("%s: %u parameters, expected %u", context, params->len, n);

  for (guint i = 0; i < n; i++)
    {
      PrsParam *param = g_ptr_array_index (params, i);
      g_autofree char *def = NULL;

      if (param->default_value != NULL)
        def = json_to_string (param->default_value, FALSE);

      if (g_strcmp0 (param->name, expected[i].name) != 0 ||
          param->type != expected[i].type ||
          param->required != expected[i].required ||
          g_strcmp0 (def, expected[i].def) != 0)
        g_error ("%s: parameter %u is %s %s %s default=%s; expected %s %s %s default=%s",
                 context, i,
                 param->name, prs_param_type_to_string (param->type),
                 param->required ? "required" : "optional", def ? def : "(none)",
                 expected[i].name, prs_param_type_to_string (expected[i].type),
                 expected[i].required ? "required" : "optional",
                 expected[i].def ? expected[i].def : "(none)");
    }
}

static void
run_cases (const Case *cases,
           gsize       n_cases)
{
  for (gsize i = 0; i < n_cases; i++)
    {
      g_autoptr(PrsParamSet) set = prs_param_set_new ();
      guint found = prs_param_set_scan (set, cases[i].code, -1);

      g_test_message ("case %" G_GSIZE_FORMAT ": %s", i, cases[i].code);
      if (found != cases[i].n_forms)
        g_error ("«%s»: %u forms, expected %u", cases[i].code, found, cases[i].n_forms);
      assert_params (set, cases[i].params, cases[i].code);
    }
}

/* ------------------------------------------------------------------------ */

static void
test_spec_examples (void)
{
  static const Case cases[] = {
    { "const name = parameters.name ?? 'World';", 1, { { "name", STR, OPT, "\"World\"" } } },
    { "const maxResults = body.maxResults || 10;", 1, { { "maxResults", NUM, OPT, "10" } } },
    { "parameters.includeArchived ?? false", 1, { { "includeArchived", BOOL, OPT, "false" } } },
    { "const uid = parameters.uid;", 1, { { "uid", STR, REQ, NULL } } },
    { "const b = body.parameters || body;", 0, { { NULL } } },
    { "const p = body.parameters ?? {};", 0, { { NULL } } },
    { "const e = body.prosponsive ?? {};", 0, { { NULL } } },
    { "const e = parameters.prosponsive;", 0, { { NULL } } },
    { "const n = $input.first().json.body.name ?? 'x';", 1, { { "name", STR, OPT, "\"x\"" } } },
    { "f(req.body.x ?? 1);", 1, { { "x", NUM, OPT, "1" } } },
    { "const body = $input.first().json.body ?? {};", 0, { { NULL } } },
    { "const v = body.a.b ?? 1;", 0, { { NULL } } },
    { "const v = body.a.b;", 0, { { NULL } } },
  };

  run_cases (cases, G_N_ELEMENTS (cases));
}

static void
test_literals (void)
{
  static const Case cases[] = {
    { "x = body.n ?? 42;", 1, { { "n", NUM, OPT, "42" } } },
    { "x = body.n ?? -7;", 1, { { "n", NUM, OPT, "-7" } } },
    { "x = body.n ?? 2.5;", 1, { { "n", NUM, OPT, "2.5" } } },
    { "x = body.n ?? -0.25;", 1, { { "n", NUM, OPT, "-0.25" } } },
    { "x = body.n ?? 0;", 1, { { "n", NUM, OPT, "0" } } },
    { "x = body.n ?? 1e3;", 1, { { "n", STR, OPT, NULL } } },
    { "x = body.n ?? 0x10;", 1, { { "n", STR, OPT, NULL } } },
    { "x = body.n ?? .5;", 1, { { "n", STR, OPT, NULL } } },
    { "x = body.n ?? 1_000;", 1, { { "n", STR, OPT, NULL } } },
    { "x = body.n ?? 10n;", 1, { { "n", STR, OPT, NULL } } },
    { "x = body.f ?? true;", 1, { { "f", BOOL, OPT, "true" } } },
    { "x = body.f || false;", 1, { { "f", BOOL, OPT, "false" } } },
    { "x = body.s ?? \"dq\";", 1, { { "s", STR, OPT, "\"dq\"" } } },
    { "x = body.s ?? `tpl`;", 1, { { "s", STR, OPT, "\"tpl\"" } } },
    { "x = body.s ?? '';", 1, { { "s", STR, OPT, "\"\"" } } },
    { "x = body.s ?? `a${b}c`;", 1, { { "s", STR, OPT, NULL } } },
    { "x = body.s ?? `a\\${b}c`;", 1, { { "s", STR, OPT, "\"a${b}c\"" } } },
    /* Kept only when the literal is strict JSON (docs/workflows.md). */
    { "x = body.a ?? [1, 2, 'three'];", 1, { { "a", ARR, OPT, NULL } } },
    { "x = body.a ?? [1, 2, \"three\"];", 1, { { "a", ARR, OPT, "[1,2,\"three\"]" } } },
    { "x = body.a ?? [1, /* c */ 2];", 1, { { "a", ARR, OPT, NULL } } },
    { "x = body.a ?? [0x10];", 1, { { "a", ARR, OPT, NULL } } },
    { "x = body.a ?? [];", 1, { { "a", ARR, OPT, "[]" } } },
    { "x = body.a ?? [x, y];", 1, { { "a", ARR, OPT, NULL } } },
    { "x = body.a ?? [1, 2,];", 1, { { "a", ARR, OPT, NULL } } },
    { "x = body.a ?? ['a]', \"[b\"];", 1, { { "a", ARR, OPT, NULL } } },
    { "x = body.a ?? [\"a]\", \"[b\"];", 1, { { "a", ARR, OPT, "[\"a]\",\"[b\"]" } } },
    { "x = body.o ?? {\"k\": [1, {\"z\": null}]};", 1,
      { { "o", OBJ, OPT, "{\"k\":[1,{\"z\":null}]}" } } },
    { "x = body.o ?? {};", 1, { { "o", OBJ, OPT, "{}" } } },
    { "x = body.o ?? { k: 1 };", 1, { { "o", OBJ, OPT, NULL } } },
    { "x = body.o ?? { k: `}` };", 1, { { "o", OBJ, OPT, NULL } } },
    { "x = body.v ?? null;", 1, { { "v", STR, OPT, NULL } } },
    { "x = body.v ?? undefined;", 1, { { "v", STR, OPT, NULL } } },
    { "x = body.v ?? other;", 1, { { "v", STR, OPT, NULL } } },
    { "x = body.v ?? compute(1);", 1, { { "v", STR, OPT, NULL } } },
    { "x = body.v ?? 10 * 2;", 1, { { "v", STR, OPT, NULL } } },
    { "x = body.v ?? 'a' + b;", 1, { { "v", STR, OPT, NULL } } },
    { "x = body.v ?? [1] .concat([2]);", 1, { { "v", STR, OPT, NULL } } },
    { "x = body.v ?? true ? 1 : 2;", 1, { { "v", STR, OPT, NULL } } },
    { "x = body.v ?? 'unterminated", 1, { { "v", STR, OPT, NULL } } },
    { "x = body.v ?? [1, 2", 1, { { "v", STR, OPT, NULL } } },
    { "x = body.v ?? 5", 1, { { "v", NUM, OPT, "5" } } },
    /* A line break ends the literal only where JavaScript inserts a
     * semicolon: a next line that carries the expression on makes it one */
    { "x = body.v ?? 5\n+ 1", 1, { { "v", STR, OPT, NULL } } },
    { "x = body.v ?? 5\n  - 1;", 1, { { "v", STR, OPT, NULL } } },
    { "x = body.v ?? 'a'\n  .trim();", 1, { { "v", STR, OPT, NULL } } },
    { "x = body.v ?? true\n  && ok;", 1, { { "v", STR, OPT, NULL } } },
    { "x = body.v ?? [1]\n  .concat([2]);", 1, { { "v", STR, OPT, NULL } } },
    { "x = body.v ?? { \"k\": 1 }\n  [\"k\"];", 1, { { "v", STR, OPT, NULL } } },
    { "x = body.v ?? 5\n  ? 1 : 2;", 1, { { "v", STR, OPT, NULL } } },
    { "x = body.v ?? 5\n  * 2;", 1, { { "v", STR, OPT, NULL } } },
    { "x = body.v ?? 5\n  / 2;", 1, { { "v", STR, OPT, NULL } } },
    { "x = body.v ?? 'a'\n  `t`;", 1, { { "v", STR, OPT, NULL } } },
    { "x = body.v ?? 5\n  instanceof B;", 1, { { "v", STR, OPT, NULL } } },
    /* …and a next line that starts a new statement leaves the default */
    { "x = body.v ?? 5\nfoo();", 1, { { "v", NUM, OPT, "5" } } },
    { "x = body.v ?? 5\n++i;", 1, { { "v", NUM, OPT, "5" } } },
    { "x = body.v ?? 5\n!ok;", 1, { { "v", NUM, OPT, "5" } } },
    { "x = body.v ?? 'a'\n}", 1, { { "v", STR, OPT, "\"a\"" } } },
    { "x = body.v ?? 5 // note\n+ 1", 1, { { "v", STR, OPT, NULL } } },
    { "x = body.v ?? 5 // note\nconst y = 1;", 1, { { "v", NUM, OPT, "5" } } },
    { "f(body.v ?? 'a', 2)", 1, { { "v", STR, OPT, "\"a\"" } } },
    { "o = { k: body.v ?? 3 }", 1, { { "v", NUM, OPT, "3" } } },
    { "c ? body.v ?? 3 : 4", 1, { { "v", NUM, OPT, "3" } } },
    { "[body.v ?? 3]", 1, { { "v", NUM, OPT, "3" } } },
    { "x = body.v ?? - 3;", 1, { { "v", NUM, OPT, "-3" } } },
    { "x = body.v ?? +3;", 1, { { "v", STR, OPT, NULL } } },
    { "x = body.v ?? /* note */ 'c' // trailing\n", 1, { { "v", STR, OPT, "\"c\"" } } },
    { "x = body.o ?? { \"k\": 1 } // x\n", 1, { { "o", OBJ, OPT, "{\"k\":1}" } } },
  };

  g_autoptr(PrsParamSet) set = prs_param_set_new ();
  PrsParam *param;

  run_cases (cases, G_N_ELEMENTS (cases));

  /* Too big for gint64: a double, still a number. */
  g_assert_cmpuint (prs_param_set_scan (set, "x = body.n ?? 99999999999999999999;", -1), ==, 1);
  param = g_ptr_array_index (prs_param_set_get_params (set), 0);
  g_assert_cmpint (param->type, ==, PRS_PARAM_NUMBER);
  g_assert_cmpint (json_node_get_value_type (param->default_value), ==, G_TYPE_DOUBLE);
  g_assert_cmpfloat (json_node_get_double (param->default_value), ==, 1e20);
}

static void
test_string_escapes (void)
{
  static const Case cases[] = {
    { "x = body.s ?? 'a\\nb\\tc\\rd';", 1, { { "s", STR, OPT, "\"a\\nb\\tc\\rd\"" } } },
    { "x = body.s ?? 'it\\'s \\\"q\\\" \\\\ \\`';", 1,
      { { "s", STR, OPT, "\"it's \\\"q\\\" \\\\ `\"" } } },
    { "x = body.s ?? '\\b\\f\\v';", 1, { { "s", STR, OPT, "\"\\b\\f\\u000b\"" } } },
    { "x = body.s ?? '\\x41\\x62';", 1, { { "s", STR, OPT, "\"Ab\"" } } },
    { "x = body.s ?? '\\u00e9\\u{1F600}';", 1, { { "s", STR, OPT, "\"é😀\"" } } },
    { "x = body.s ?? '\\uD83D\\uDE00';", 1, { { "s", STR, OPT, "\"😀\"" } } },
    { "x = body.s ?? '\\uD83D';", 1, { { "s", STR, OPT, "\"\xEF\xBF\xBD\"" } } },
    { "x = body.s ?? 'line\\\ncontinued';", 1, { { "s", STR, OPT, "\"linecontinued\"" } } },
    { "x = body.s ?? 'crlf\\\r\ncontinued';", 1, { { "s", STR, OPT, "\"crlfcontinued\"" } } },
    { "x = body.s ?? '\\q\\$';", 1, { { "s", STR, OPT, "\"q$\"" } } },
    { "x = body.s ?? '\\101';", 1, { { "s", STR, OPT, "\"A\"" } } },
    { "x = body.s ?? '\\xZZ';", 1, { { "s", STR, OPT, "\"xZZ\"" } } },
    { "x = body.s ?? 'é ü';", 1, { { "s", STR, OPT, "\"é ü\"" } } },
    { "x = body.s ?? `two\nlines`;", 1, { { "s", STR, OPT, "\"two\\nlines\"" } } },
    { "x = body.s ?? `cr\r\nlf`;", 1, { { "s", STR, OPT, "\"cr\\nlf\"" } } },
    { "x = body.s ?? `\\u{41}\\``;", 1, { { "s", STR, OPT, "\"A`\"" } } },
    /* U+0000 cannot live in a C string: the type stays, the default goes. */
    { "x = body.s ?? 'a\\0b';", 1, { { "s", STR, OPT, NULL } } },
    { "x = body.s ?? 'a\\x00';", 1, { { "s", STR, OPT, NULL } } },
    { "x = body.s ?? 'a\\u0000';", 1, { { "s", STR, OPT, NULL } } },
  };

  run_cases (cases, G_N_ELEMENTS (cases));
}

static void
test_accessors (void)
{
  static const Case cases[] = {
    { "x = parameters?.limit ?? 5;", 1, { { "limit", NUM, OPT, "5" } } },
    { "x = body ?. limit ?? 5;", 1, { { "limit", NUM, OPT, "5" } } },
    { "x = parameters['limit'] ?? 5;", 1, { { "limit", NUM, OPT, "5" } } },
    { "x = body[\"limit\"] || 5;", 1, { { "limit", NUM, OPT, "5" } } },
    { "x = body?.['limit'] ?? 5;", 1, { { "limit", NUM, OPT, "5" } } },
    { "x = body [ 'limit' ] ?? 5;", 1, { { "limit", NUM, OPT, "5" } } },
    { "x = body['not-an-identifier'] ?? 5;", 0, { { NULL } } },
    { "x = body['1abc'] ?? 5;", 0, { { NULL } } },
    { "x = body[''] ?? 5;", 0, { { NULL } } },
    { "x = body[`limit`] ?? 5;", 0, { { NULL } } },
    { "x = body[key] ?? 5;", 0, { { NULL } } },
    { "x = body['parameters'] ?? {};", 0, { { NULL } } },
    { "x = body.$x_1 ?? 5;", 1, { { "$x_1", NUM, OPT, "5" } } },
    { "x = body._ ?? 5;", 1, { { "_", NUM, OPT, "5" } } },
    { "x = body.héllo ?? 5;", 0, { { NULL } } },
    { "x = body.1 ?? 5;", 0, { { NULL } } },
    { "x = body.a??5", 1, { { "a", NUM, OPT, "5" } } },
    { "x=body/**/./**/a/**/?\?/**/5", 1, { { "a", NUM, OPT, "5" } } },
    { "x = body.a\n?? 5", 1, { { "a", NUM, OPT, "5" } } },
    { "x = body.a ?\?= 5;", 0, { { NULL } } },
    { "x = body.a ||= 5;", 0, { { NULL } } },
    { "x = body.a && 5;", 0, { { NULL } } },
    { "x = body.a ? 5 : 6;", 0, { { NULL } } },
    { "x = somebody.a ?? 5;", 0, { { NULL } } },
    { "x = bodyParts.a ?? 5;", 0, { { NULL } } },
    { "x = params.a ?? 5;", 0, { { NULL } } },
    { "x = body.parameters.inner ?? 5;", 1, { { "inner", NUM, OPT, "5" } } },
    { "x = $json.body?.parameters?.['inner'] ?? 'v';", 1, { { "inner", STR, OPT, "\"v\"" } } },
    { "x = body.a ?? body.b ?? 'z';", 2, { { "a", STR, OPT, NULL }, { "b", STR, OPT, "\"z\"" } } },
  };

  run_cases (cases, G_N_ELEMENTS (cases));
}

static void
test_const_form (void)
{
  static const Case cases[] = {
    { "const a = body.a;", 1, { { "a", STR, REQ, NULL } } },
    { "const a = body.a", 1, { { "a", STR, REQ, NULL } } },
    { "const a = body.a\nconst b = 1;", 1, { { "a", STR, REQ, NULL } } },
    { "const a = body.a\n\nfoo();", 1, { { "a", STR, REQ, NULL } } },
    { "const a = body.a // comment\nfoo();", 1, { { "a", STR, REQ, NULL } } },
    { "const a = body.a /* multi\nline */ foo();", 1, { { "a", STR, REQ, NULL } } },
    { "const a = body.a\n++i;", 1, { { "a", STR, REQ, NULL } } },
    { "const a = body.a\n'use strict';", 1, { { "a", STR, REQ, NULL } } },
    { "if (x) { const a = body.a }", 1, { { "a", STR, REQ, NULL } } },
    { "const a = body['a'];", 1, { { "a", STR, REQ, NULL } } },
    { "const a = body?.a;", 1, { { "a", STR, REQ, NULL } } },
    { "const a = body?.['a'];", 1, { { "a", STR, REQ, NULL } } },
    { "const a = $input.first().json.body.a;", 1, { { "a", STR, REQ, NULL } } },
    { "const a = items[0].json.body.a;", 1, { { "a", STR, REQ, NULL } } },
    { "const a = req?.body?.a;", 1, { { "a", STR, REQ, NULL } } },
    { "const a = body.parameters.a;", 1, { { "a", STR, REQ, NULL } } },
    { "const\n  a\n  =\n  parameters\n  .a\n  ;", 1, { { "a", STR, REQ, NULL } } },
    { "let a = body.a;", 0, { { NULL } } },
    { "var a = body.a;", 0, { { NULL } } },
    { "a = body.a;", 0, { { NULL } } },
    { "const a = body.a.trim();", 0, { { NULL } } },
    { "const a = body.a\n.trim();", 0, { { NULL } } },
    { "const a = body.a\n?.trim();", 0, { { NULL } } },
    { "const a = body.a\n[0];", 0, { { NULL } } },
    { "const a = body.a\n(0);", 0, { { NULL } } },
    { "const a = body.a\n&& b;", 0, { { NULL } } },
    { "const a = body.a\n+ b;", 0, { { NULL } } },
    { "const a = body.a\n? b : c;", 0, { { NULL } } },
    { "const a = body.a\ninstanceof B;", 0, { { NULL } } },
    { "const a = body.a\n`tagged`;", 0, { { NULL } } },
    { "const a = body.a, b = 2;", 0, { { NULL } } },
    { "const a = body.a + 1;", 0, { { NULL } } },
    { "const a = f(body.a);", 0, { { NULL } } },
    { "const a = await body.a;", 0, { { NULL } } },
    { "const a = !body.a;", 0, { { NULL } } },
    { "const a = x + body.a;", 0, { { NULL } } },
    { "const { a } = body;", 0, { { NULL } } },
    { "const a = body;", 0, { { NULL } } },
    { "const a = body.a = 3;", 0, { { NULL } } },
    { "const a = body.a === 3;", 0, { { NULL } } },
    { "const a = body.a ?? 3;", 1, { { "a", NUM, OPT, "3" } } },
    { "const a = parameters.parameters;", 0, { { NULL } } },
    { "const a = body.a;;", 1, { { "a", STR, REQ, NULL } } },
  };

  run_cases (cases, G_N_ELEMENTS (cases));
}

static void
test_skipped_text (void)
{
  static const Case cases[] = {
    { "// const a = body.a;\nconst b = body.b;", 1, { { "b", STR, REQ, NULL } } },
    { "/* body.a ?? 1 */ body.b ?? 2", 1, { { "b", NUM, OPT, "2" } } },
    { "x = 'body.a ?? 1'; y = \"parameters.b ?? 2\";", 0, { { NULL } } },
    { "x = 'it\\'s body.a ?? 1';", 0, { { NULL } } },
    { "x = `body.a ?? 1`;", 0, { { NULL } } },
    { "x = `${body.a ?? 1}`;", 0, { { NULL } } },
    { "x = `${ { k: body.a ?? 1 } }`; body.b ?? 2", 1, { { "b", NUM, OPT, "2" } } },
    { "x = `a${`b${body.a ?? 1}`}c`; body.b ?? 2", 1, { { "b", NUM, OPT, "2" } } },
    { "x = `${'`'} body.a ?? 1`; body.b ?? 2", 1, { { "b", NUM, OPT, "2" } } },
    { "x = `${ /* } */ 1} body.a ?? 1`; body.b ?? 2", 1, { { "b", NUM, OPT, "2" } } },
    { "x = `${ /}`/.test(s) } body.a ?? 1`; body.b ?? 2", 1, { { "b", NUM, OPT, "2" } } },
    { "r = /body.a ?? 1/; body.b ?? 2", 1, { { "b", NUM, OPT, "2" } } },
    { "r = /[/]body.a ?? 1/g; body.b ?? 2", 1, { { "b", NUM, OPT, "2" } } },
    { "r = /\\/body.a ?? 1/; body.b ?? 2", 1, { { "b", NUM, OPT, "2" } } },
    { "if (/'/.test(s)) body.b ?? 2; 'x'", 1, { { "b", NUM, OPT, "2" } } },
    { "return /\"/.test(s) ? body.b ?? 2 : 0", 1, { { "b", NUM, OPT, "2" } } },
    { "x = typeof /`/; body.b ?? 2", 1, { { "b", NUM, OPT, "2" } } },
    { "x = a / 2; y = body.b ?? 3 / 4", 1, { { "b", STR, OPT, NULL } } },
    { "x = a / body.b ?? 2 / 1", 1, { { "b", STR, OPT, NULL } } },
    { "x = (a) / 2 / body.b ?? 5;", 1, { { "b", NUM, OPT, "5" } } },
    { "x = a[0] / 2; z = 'q'; body.b ?? 5;", 1, { { "b", NUM, OPT, "5" } } },
    { "x = 10 / 2; z = '/'; body.b ?? 5;", 1, { { "b", NUM, OPT, "5" } } },
    { "x = i++ / 2; z = '/'; body.b ?? 5;", 1, { { "b", NUM, OPT, "5" } } },
    { "x = 1 /* '*/; body.b ?? 5;", 1, { { "b", NUM, OPT, "5" } } },
    { "x = '/*'; body.b ?? 5; // */", 1, { { "b", NUM, OPT, "5" } } },
    { "x = a\n/body.a ?? 1/ 2; body.b ?? 5;", 2,
      { { "a", STR, OPT, NULL }, { "b", NUM, OPT, "5" } } },
    { "function f() {} /'/.test(s); body.b ?? 5;", 1, { { "b", NUM, OPT, "5" } } },
    { "x = s.split(/,/g).map(v => v + '/'); body.b ?? 5;", 1, { { "b", NUM, OPT, "5" } } },
    { "x = `a${'}'}b`; body.b ?? 5;", 1, { { "b", NUM, OPT, "5" } } },
    { "x = `${a}${b}` ?? 1; body.b ?? `${c}`;", 1, { { "b", STR, OPT, NULL } } },
  };

  run_cases (cases, G_N_ELEMENTS (cases));
}

static void
test_merge (void)
{
  g_autoptr(PrsParamSet) set = prs_param_set_new ();
  static const Expected after_first[] = {
    { "uid", STR, REQ, NULL },
    { "limit", NUM, OPT, "10" },
    { NULL },
  };
  static const Expected after_all[] = {
    { "uid", STR, OPT, NULL },
    { "limit", NUM, OPT, "10" },
    { "folder", STR, REQ, NULL },
    { "flag", BOOL, OPT, "true" },
  };

  g_assert_cmpuint (prs_param_set_scan (set, "const uid = body.uid;\n"
                                             "const limit = body.limit ?? 10;\n"
                                             "const again = body.uid;\n", -1), ==, 3);
  assert_params (set, after_first, "first node");

  /* Later occurrences change neither type nor default; an optional one
   * makes a required parameter optional. */
  g_assert_cmpuint (prs_param_set_scan (set, "const folder = body.folder;\n"
                                             "x = body.limit ?? 'ten';\n"
                                             "y = body.uid ?? 5;\n"
                                             "z = body.flag ?? true;\n", -1), ==, 4);
  g_assert_cmpuint (prs_param_set_scan (set, "const folder = parameters.folder\n"
                                             "const flag = body.flag;", -1), ==, 2);
  g_assert_cmpuint (prs_param_set_scan (set, "", -1), ==, 0);
  g_assert_cmpuint (prs_param_set_scan (set, "nothing here", -1), ==, 0);
  g_assert_cmpuint (prs_param_set_scan (set, NULL, 0), ==, 0);
  assert_params (set, after_all, "all nodes");
}

static void
test_merge_first_type_wins (void)
{
  g_autoptr(PrsParamSet) set = prs_param_set_new ();
  static const Expected expected[] = {
    { "n", NUM, OPT, "1" },
    { "s", STR, OPT, NULL },
    { NULL },
  };

  g_assert_cmpuint (prs_param_set_scan (set, "a = body.n ?? 1; b = body.n ?? 'x';", -1), ==, 2);
  g_assert_cmpuint (prs_param_set_scan (set, "const s = body.s; c = body.s ?? 'x';", -1), ==, 2);
  assert_params (set, expected, "first type wins");
}

static void
test_description (void)
{
  g_autoptr(PrsParamSet) set = prs_param_set_new ();
  GPtrArray *params;

  prs_param_set_scan (set, "x = body.maxResults ?? 10; const u = body.userID;", -1);
  params = prs_param_set_get_params (set);
  g_assert_cmpuint (params->len, ==, 2);
  g_assert_cmpstr (((PrsParam *) params->pdata[0])->description, ==, "The max results");
  g_assert_cmpstr (((PrsParam *) params->pdata[1])->description, ==, "The user id");
}

/* The lines of /work/shared/reference/imap-chain/move-email.code.js that
 * matter, plus enough of the rest to exercise strings, templates and a
 * regular expression with quotes in it. */
static const char move_email_code[] =
  "// Email Move To Folder: moves one message, by IMAP UID, from `mailbox` to `destination`.\n"
  "// Input (webhook JSON body): {uid, mailbox, destination} at the top level and/or under \"parameters\"\n"
  "// (Prosponsive sends both). Output: {success:true, ...} or {success:false, error}.\n"
  "const body = $input.first().json.body ?? {};\n"
  "const parameters = { ...body, ...(body.parameters ?? {}) };\n"
  "const uid = parameters.uid;\n"
  "const mailbox = parameters.mailbox ?? 'INBOX';\n"
  "const destination = parameters.destination;\n"
  "\n"
  "const IMAP_ACCOUNT = {\n"
  "  host: '__IMAP_HOST__',\n"
  "  port: Number('__IMAP_PORT__'),\n"
  "  tls: '__IMAP_SECURE__' === 'true',\n"
  "};\n"
  "\n"
  "const fail = (error) => [{ json: { success: false, error, uid: uid ?? null, mailbox, destination: destination ?? null } }];\n"
  "const uidText = String(uid ?? '').trim();\n"
  "if (!/^[1-9][0-9]*$/.test(uidText)) return fail(`uid must be a positive integer IMAP UID, got ${JSON.stringify(uid ?? null)}`);\n"
  "if (typeof destination !== 'string' || destination.trim() === '') return fail('destination (the target folder) is required');\n"
  "if (destination === mailbox) return fail('destination is the same folder as mailbox');\n"
  "  return [{ json: {\n"
  "    success: true, uid: Number(uidText), mailbox, destination,\n"
  "    subject: (headers.subject ?? [''])[0], from: (headers.from ?? [''])[0], messageId: (headers['message-id'] ?? [''])[0],\n"
  "  } }];\n"
  "} catch (e) {\n"
  "  return fail(`IMAP error: ${e.message}`);\n"
  "} finally {\n"
  "  try { imap.end(); } catch (e) { /* already closed */ }\n"
  "}\n";

static void
test_move_email (void)
{
  g_autoptr(PrsParamSet) set = prs_param_set_new ();
  static const Expected expected[] = {
    { "uid", STR, REQ, NULL },
    { "mailbox", STR, OPT, "\"INBOX\"" },
    { "destination", STR, REQ, NULL },
    { NULL },
  };

  g_assert_cmpuint (prs_param_set_scan (set, move_email_code, -1), ==, 3);
  assert_params (set, expected, "move-email.code.js");
}

static void
test_move_email_file (void)
{
  const char *path = "/work/shared/reference/imap-chain/move-email.code.js";
  g_autoptr(PrsParamSet) set = prs_param_set_new ();
  g_autofree char *code = NULL;
  gsize len;
  static const Expected expected[] = {
    { "uid", STR, REQ, NULL },
    { "mailbox", STR, OPT, "\"INBOX\"" },
    { "destination", STR, REQ, NULL },
    { NULL },
  };

  if (!g_file_get_contents (path, &code, &len, NULL))
    {
      g_test_skip ("the reference file is not available here");
      return;
    }

  g_assert_cmpuint (prs_param_set_scan (set, code, len), ==, 3);
  assert_params (set, expected, path);
}

/* ------------------------------------------------------------------------ */
/* Hostile input */

static void
test_unterminated (void)
{
  static const char * const texts[] = {
    "x = body.a ?? 1; 'never closed",
    "x = body.a ?? 1; \"never closed",
    "x = body.a ?? 1; `never closed",
    "x = body.a ?? 1; `a ${ never closed",
    "x = body.a ?? 1; `a ${ `b ${ 'c",
    "x = body.a ?? 1; /* never closed",
    "x = body.a ?? 1; x = /never closed",
    "x = body.a ?? 1; x = /[never/ closed",
    "x = body.a ?? 1; x = /never\\",
    "x = body.a ?? 1; ((([[[{{{",
    "x = body.a ?? 1; )))]]]}}}",
    "x = body.a ?? 1; body.",
    "x = body.a ?? 1; body[",
    "x = body.a ?? 1; body['b'",
    "x = body.a ?? 1; body.b ??",
    "x = body.a ?? 1; body.b ?? -",
    "x = body.a ?? 1; body.b ?? '\\",
    "x = body.a ?? 1; const",
    "x = body.a ?? 1; 'a\\",
    "x = body.a ?? 1; `\\",
    "x = body.a ?? 1; \\",
  };

  for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
    {
      g_autoptr(PrsParamSet) set = prs_param_set_new ();
      GPtrArray *params;

      g_test_message ("%s", texts[i]);
      g_assert_cmpuint (prs_param_set_scan (set, texts[i], -1), >=, 1);
      params = prs_param_set_get_params (set);
      g_assert_cmpuint (params->len, >=, 1);
      g_assert_cmpstr (((PrsParam *) params->pdata[0])->name, ==, "a");
    }
}

static void
test_unterminated_hides_rest (void)
{
  static const Case cases[] = {
    /* An unterminated string stops at the line end; the next line counts. */
    { "x = 'open\nbody.b ?? 2", 1, { { "b", NUM, OPT, "2" } } },
    /* A template or comment runs to the end of the text. */
    { "x = `open\nbody.b ?? 2", 0, { { NULL } } },
    { "x = /* open\nbody.b ?? 2", 0, { { NULL } } },
    /* A regular expression cannot span lines: the `/` divides instead. */
    { "x = (/ 2\nbody.b ?? 2", 1, { { "b", NUM, OPT, "2" } } },
  };

  run_cases (cases, G_N_ELEMENTS (cases));
}

static void
test_nul_and_invalid_utf8 (void)
{
  static const char code[] = "x = body.a ?? 'n\0l'; \0 y = body.b ?? 2;\0 body.c ?? [\0];";
  static const char bad[] = "x = body.\xff\xfe ?? 1; y = body.s ?? '\xc3\x28\xff';"
                            " body['\xe9'] ?? 2; body.ok ?? \"\xf0\x9f\x98\x80\";"
                            " \xff\xff body.z ?? 1 \xc0";
  g_autoptr(PrsParamSet) set = prs_param_set_new ();
  g_autoptr(PrsParamSet) set2 = prs_param_set_new ();
  GPtrArray *params;
  PrsParam *s;

  g_assert_cmpuint (prs_param_set_scan (set, code, sizeof code - 1), ==, 3);
  params = prs_param_set_get_params (set);
  g_assert_cmpuint (params->len, ==, 3);
  /* 'n\0l' holds a NUL byte: a string without a default. */
  g_assert_cmpstr (((PrsParam *) params->pdata[0])->name, ==, "a");
  g_assert_null (((PrsParam *) params->pdata[0])->default_value);
  g_assert_cmpstr (((PrsParam *) params->pdata[1])->name, ==, "b");
  g_assert_cmpint (json_node_get_int (((PrsParam *) params->pdata[1])->default_value), ==, 2);
  g_assert_cmpstr (((PrsParam *) params->pdata[2])->name, ==, "c");
  g_assert_cmpint (((PrsParam *) params->pdata[2])->type, ==, PRS_PARAM_ARRAY);
  g_assert_null (((PrsParam *) params->pdata[2])->default_value);

  g_assert_cmpuint (prs_param_set_scan (set2, bad, -1), ==, 3);
  params = prs_param_set_get_params (set2);
  g_assert_cmpuint (params->len, ==, 3);
  s = params->pdata[0];
  g_assert_cmpstr (s->name, ==, "s");
  g_assert_true (g_utf8_validate (json_node_get_string (s->default_value), -1, NULL));
  g_assert_cmpstr (((PrsParam *) params->pdata[1])->name, ==, "ok");
  g_assert_cmpstr (json_node_get_string (((PrsParam *) params->pdata[1])->default_value), ==,
                   "\xf0\x9f\x98\x80");
  g_assert_cmpstr (((PrsParam *) params->pdata[2])->name, ==, "z");
}

static void
test_json_limits (void)
{
  g_autoptr(GString) at_limit = g_string_new ("x = body.ok ?? ");
  g_autoptr(GString) over_limit = g_string_new ("x = body.over ?? ");
  g_autoptr(PrsParamSet) set = prs_param_set_new ();
  GPtrArray *params;

  for (guint i = 0; i < 64; i++)
    g_string_append (at_limit, "[");
  for (guint i = 0; i < 64; i++)
    g_string_append (at_limit, "]");
  for (guint i = 0; i < 65; i++)
    g_string_append (over_limit, "[");
  for (guint i = 0; i < 65; i++)
    g_string_append (over_limit, "]");

  g_assert_cmpuint (prs_param_set_scan (set, at_limit->str, -1), ==, 1);
  g_assert_cmpuint (prs_param_set_scan (set, over_limit->str, -1), ==, 1);
  /* Invalid UTF-8 inside a JSON string: json-glib refuses it. */
  g_assert_cmpuint (prs_param_set_scan (set, "x = body.bad ?? [\"\xff\"];", -1), ==, 1);

  params = prs_param_set_get_params (set);
  g_assert_cmpuint (params->len, ==, 3);
  g_assert_nonnull (((PrsParam *) params->pdata[0])->default_value);
  g_assert_cmpint (((PrsParam *) params->pdata[1])->type, ==, PRS_PARAM_ARRAY);
  g_assert_null (((PrsParam *) params->pdata[1])->default_value);
  g_assert_cmpint (((PrsParam *) params->pdata[2])->type, ==, PRS_PARAM_ARRAY);
  g_assert_null (((PrsParam *) params->pdata[2])->default_value);
}

static void
test_deep_nesting (void)
{
  const guint depth = 200000;
  g_autoptr(GString) code = g_string_new ("x = body.deep ?? ");
  g_autoptr(GString) code2 = g_string_new ("x = body.open ?? ");
  g_autoptr(GString) code3 = g_string_new ("x = `");
  g_autoptr(PrsParamSet) set = prs_param_set_new ();
  GPtrArray *params;

  for (guint i = 0; i < depth; i++)
    g_string_append_c (code, '[');
  for (guint i = 0; i < depth; i++)
    g_string_append_c (code, ']');
  g_string_append (code, ";\nx = body.shallow ?? [[[[[[[[1]]]]]]]];\n");

  for (guint i = 0; i < depth; i++)
    g_string_append (code2, "({[");

  for (guint i = 0; i < depth; i++)
    g_string_append (code3, "${`");
  g_string_append (code3, "body.hidden ?? 1");
  for (guint i = 0; i < depth; i++)
    g_string_append (code3, "`}");
  g_string_append (code3, "`; body.after ?? 1");

  g_assert_cmpuint (prs_param_set_scan (set, code->str, code->len), ==, 2);
  g_assert_cmpuint (prs_param_set_scan (set, code2->str, code2->len), ==, 1);
  g_assert_cmpuint (prs_param_set_scan (set, code3->str, code3->len), ==, 1);

  params = prs_param_set_get_params (set);
  g_assert_cmpuint (params->len, ==, 4);
  g_assert_cmpstr (((PrsParam *) params->pdata[0])->name, ==, "deep");
  g_assert_cmpint (((PrsParam *) params->pdata[0])->type, ==, PRS_PARAM_ARRAY);
  /* Too deep for a default, not for a type. */
  g_assert_null (((PrsParam *) params->pdata[0])->default_value);
  g_assert_cmpstr (((PrsParam *) params->pdata[1])->name, ==, "shallow");
  g_assert_nonnull (((PrsParam *) params->pdata[1])->default_value);
  g_assert_cmpstr (((PrsParam *) params->pdata[2])->name, ==, "open");
  g_assert_cmpint (((PrsParam *) params->pdata[2])->type, ==, PRS_PARAM_STRING);
  g_assert_cmpstr (((PrsParam *) params->pdata[3])->name, ==, "after");
}

/* Patterns that would make a naive scanner quadratic. */
static void
test_linear_worst_cases (void)
{
  const gsize size = 2 * 1024 * 1024;
  static const char * const units[] = {
    "x = (/ ",          /* failed regex attempts on one long line */
    "body.a ?? [",      /* nested forms inside unterminated literals */
    "body.a ?? [1, ",   /* nested candidate JSON literals */
    "a.b.c.",           /* long member chains */
    "f(a).",
    "const a = x.",
  };

  for (guint u = 0; u < G_N_ELEMENTS (units); u++)
    {
      g_autoptr(GString) code = g_string_sized_new (size + 64);
      g_autoptr(PrsParamSet) set = prs_param_set_new ();
      gint64 start;
      gint64 elapsed;

      while (code->len < size)
        g_string_append (code, units[u]);
      if (u == 1 || u == 2)
        {
          gsize n = code->len / strlen (units[u]);

          for (gsize i = 0; i < n; i++)
            g_string_append_c (code, ']');
        }
      else
        {
          g_string_append (code, "body.z;");
        }

      start = g_get_monotonic_time ();
      prs_param_set_scan (set, code->str, code->len);
      elapsed = g_get_monotonic_time () - start;
      g_test_message ("pattern %u: %" G_GINT64_FORMAT " µs", u, elapsed);
      g_assert_cmpint (elapsed, <, 2 * G_USEC_PER_SEC);
    }
}

static void
test_five_megabytes (void)
{
  const gsize size = 5 * 1024 * 1024;
  g_autoptr(GString) code = g_string_sized_new (size + 4096);
  g_autoptr(PrsParamSet) set = prs_param_set_new ();
  GPtrArray *params;
  gint64 start;
  gint64 elapsed;
  guint found;
  guint n = 0;

  while (code->len < size)
    {
      g_string_append_printf (code,
                              "// step %u: body.commented ?? 1\n"
                              "const v%u = parameters.key%u ?? %u;\n"
                              "const s%u = `template ${body.inside ?? 'x'} %u`;\n"
                              "if (/[/'\"]body.rx ?? 2/.test(s%u)) {\n"
                              "  out.push({ n: v%u / 2, t: 'str \\' body.q ?? 3' });\n"
                              "}\n",
                              n, n, n % 100, n, n, n, n, n);
      n++;
    }
  g_string_append (code, "const last = body.last;\n");

  start = g_get_monotonic_time ();
  found = prs_param_set_scan (set, code->str, code->len);
  elapsed = g_get_monotonic_time () - start;
  g_test_message ("5 MB: %u forms in %" G_GINT64_FORMAT " µs", found, elapsed);

  g_assert_cmpuint (found, ==, n + 1);
  params = prs_param_set_get_params (set);
  g_assert_cmpuint (params->len, ==, 101);
  g_assert_cmpstr (((PrsParam *) params->pdata[0])->name, ==, "key0");
  g_assert_cmpstr (((PrsParam *) params->pdata[100])->name, ==, "last");
  g_assert_true (((PrsParam *) params->pdata[100])->required);
  g_assert_cmpint (elapsed, <, G_USEC_PER_SEC);
}

/* Every prefix of a tricky text: whatever the cut, no crash, no leak. */
static void
test_every_prefix (void)
{
  for (gsize len = 0; len <= strlen (move_email_code); len++)
    {
      g_autoptr(PrsParamSet) set = prs_param_set_new ();

      prs_param_set_scan (set, move_email_code, len);
    }
}

static void
test_random_bytes (void)
{
  static const char alphabet[] =
    "/*`'\"\\${}()[]\n\r.?|;=, abcbody parameters const 0123456789-\0\xff\xe2";
  g_autoptr(GRand) rand = g_rand_new_with_seed (20240601);

  for (guint round = 0; round < 2000; round++)
    {
      g_autoptr(PrsParamSet) set = prs_param_set_new ();
      char buf[256];
      gsize len = g_rand_int_range (rand, 0, sizeof buf);

      for (gsize i = 0; i < len; i++)
        buf[i] = alphabet[g_rand_int_range (rand, 0, sizeof alphabet - 1)];
      prs_param_set_scan (set, buf, len);
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/prs/js-scan/spec-examples", test_spec_examples);
  g_test_add_func ("/prs/js-scan/literals", test_literals);
  g_test_add_func ("/prs/js-scan/string-escapes", test_string_escapes);
  g_test_add_func ("/prs/js-scan/accessors", test_accessors);
  g_test_add_func ("/prs/js-scan/const-form", test_const_form);
  g_test_add_func ("/prs/js-scan/skipped-text", test_skipped_text);
  g_test_add_func ("/prs/js-scan/merge", test_merge);
  g_test_add_func ("/prs/js-scan/merge-first-type-wins", test_merge_first_type_wins);
  g_test_add_func ("/prs/js-scan/description", test_description);
  g_test_add_func ("/prs/js-scan/move-email", test_move_email);
  g_test_add_func ("/prs/js-scan/move-email-file", test_move_email_file);
  g_test_add_func ("/prs/js-scan/unterminated", test_unterminated);
  g_test_add_func ("/prs/js-scan/unterminated-hides-rest", test_unterminated_hides_rest);
  g_test_add_func ("/prs/js-scan/nul-and-invalid-utf8", test_nul_and_invalid_utf8);
  g_test_add_func ("/prs/js-scan/json-limits", test_json_limits);
  g_test_add_func ("/prs/js-scan/deep-nesting", test_deep_nesting);
  g_test_add_func ("/prs/js-scan/linear-worst-cases", test_linear_worst_cases);
  g_test_add_func ("/prs/js-scan/five-megabytes", test_five_megabytes);
  g_test_add_func ("/prs/js-scan/every-prefix", test_every_prefix);
  g_test_add_func ("/prs/js-scan/random-bytes", test_random_bytes);

  return g_test_run ();
}
