/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-checklist.c: the Workflow Checklist (docs/workflows.md): for every workflow
 * seen, what holds and what to change, so an author sees why a workflow is
 * or is not a tool. */
#include "config.h"

#include <string.h>
#include <glib/gi18n-lib.h>

#include "prs-checklist.h"
#include "prs-discovery.h"
#include "prs-json.h"

typedef enum
{
  CHECK_PASS,
  CHECK_WARN,
  CHECK_FAIL,
} CheckStatus;

/* Every check a checklist can hold */
typedef enum
{
  PHRASE_ARCHIVED,
  PHRASE_PUBLISHED,
  PHRASE_NOT_PUBLISHED,
  PHRASE_PUBLISHED_UNKNOWN,
  PHRASE_TOO_LARGE,
  PHRASE_WEBHOOK,
  PHRASE_WEBHOOK_DISABLED,
  PHRASE_WEBHOOK_NO_PATH,
  PHRASE_WEBHOOK_NOT_POST,
  PHRASE_NO_WEBHOOK,
  PHRASE_ADAPTER,
  PHRASE_NOT_ADAPTER,
  PHRASE_NAME_SUFFIXED,
  PHRASE_NAME_STRIPPED,
  PHRASE_NAME,
  PHRASE_DESCRIPTION_WORKFLOW,
  PHRASE_DESCRIPTION_STICKY_NOTE,
  PHRASE_DESCRIPTION_GENERATED,
  PHRASE_TOO_MANY_PARAMS,
  PHRASE_PARAMS_FOUND,
  PHRASE_NO_PARAMS_FOUND,
  PHRASE_NO_CODE_NODES,
  PHRASE_NOTHING_TO_ANSWER_FROM,
  PHRASE_RESPONDS_IMMEDIATELY,
  PHRASE_RESPONSE_NODE,
  PHRASE_LAST_NODE,
  PHRASE_RESPONSE_MODE,
  PHRASE_NOTHING_TO_CALL,
  PHRASE_WEBHOOK_URL,
  PHRASE_NO_WEBHOOK_ID,
  N_PHRASES
} Phrase;

/* @args: the conversions its message takes, in order ('s', 'u') */
typedef struct
{
  const char  *id;
  CheckStatus  status;
  const char  *message;
  const char  *args;
} PhraseDef;

static const PhraseDef phrase_defs[N_PHRASES] = {
  [PHRASE_ARCHIVED] = { "published", CHECK_FAIL,
    N_("The workflow is archived. Restore and publish it in n8n."), "" },
  [PHRASE_PUBLISHED] = { "published", CHECK_PASS, N_("The workflow is published (active)."), "" },
  [PHRASE_NOT_PUBLISHED] = { "published", CHECK_FAIL,
    N_("The workflow is not published. Publish (activate) it in n8n."), "" },
  [PHRASE_PUBLISHED_UNKNOWN] = { "published", CHECK_WARN,
    N_("The file does not say whether the workflow is published. It must be published (active) in n8n to be discovered."), "" },
  [PHRASE_TOO_LARGE] = { "size", CHECK_FAIL,
    N_("The workflow is larger than %s, so it was not read. Move large data "
       "out of its nodes, or split it."), "s" },
  [PHRASE_WEBHOOK] = { "webhook", CHECK_PASS,
    N_("The Webhook node “%s” accepts POST on the path “%s”."), "ss" },
  [PHRASE_WEBHOOK_DISABLED] = { "webhook", CHECK_FAIL,
    N_("The Webhook node “%s” is disabled. Enable it."), "s" },
  [PHRASE_WEBHOOK_NO_PATH] = { "webhook", CHECK_FAIL,
    N_("The Webhook node “%s” has no path. Give it one."), "s" },
  [PHRASE_WEBHOOK_NOT_POST] = { "webhook", CHECK_FAIL,
    N_("The Webhook node “%s” does not accept POST. Set its HTTP method to POST."), "s" },
  [PHRASE_NO_WEBHOOK] = { "webhook", CHECK_FAIL,
    N_("There is no Webhook trigger. Add a Webhook node with the HTTP method POST and a path."), "" },
  [PHRASE_ADAPTER] = { "not-adapter", CHECK_FAIL,
    N_("This is the Prosponsive adapter workflow, which is never offered as a tool."), "" },
  [PHRASE_NOT_ADAPTER] = { "not-adapter", CHECK_PASS,
    N_("This is not the Prosponsive adapter workflow."), "" },
  [PHRASE_NAME_SUFFIXED] = { "tool-name", CHECK_WARN,
    N_("The tool is named “%s”: an older workflow already gives the name “%s”. Rename one of them."), "ss" },
  [PHRASE_NAME_STRIPPED] = { "tool-name", CHECK_WARN,
    N_("The tool is named “%s”: characters other than letters a–z, digits and spaces were removed."), "s" },
  [PHRASE_NAME] = { "tool-name", CHECK_PASS, N_("The tool is named “%s”."), "s" },
  [PHRASE_DESCRIPTION_WORKFLOW] = { "description", CHECK_PASS,
    N_("The description comes from the workflow’s description."), "" },
  [PHRASE_DESCRIPTION_STICKY_NOTE] = { "description", CHECK_PASS,
    N_("The description comes from the first paragraph of a Sticky Note."), "" },
  [PHRASE_DESCRIPTION_GENERATED] = { "description", CHECK_WARN,
    N_("There is no description, so a generic one was generated. Describe when to use the tool in the workflow’s description or in a Sticky Note."), "" },
  [PHRASE_TOO_MANY_PARAMS] = { "parameters", CHECK_FAIL,
    N_("The Code nodes read more than %u parameters; a tool takes at most %u. "
       "Pass related values as one object parameter."), "uu" },
  /* Its message has a plural form: phrases_get_params_found () */
  [PHRASE_PARAMS_FOUND] = { "parameters", CHECK_PASS, NULL, "us" },
  [PHRASE_NO_PARAMS_FOUND] = { "parameters", CHECK_WARN,
    N_("Code nodes exist, but no parameter was found in them. Read inputs as “parameters.name ?? default”, “body.name ?? default” or “const name = body.name;”."), "" },
  [PHRASE_NO_CODE_NODES] = { "parameters", CHECK_PASS,
    N_("There are no Code nodes, so the tool takes no parameters."), "" },
  [PHRASE_NOTHING_TO_ANSWER_FROM] = { "response-mode", CHECK_WARN,
    N_("There is no webhook entry point to answer from."), "" },
  [PHRASE_RESPONDS_IMMEDIATELY] = { "response-mode", CHECK_WARN,
    N_("The webhook responds immediately, so results only arrive when the workflow posts them to /api/ai/agentic-loop-result. Choose “When Last Node Finishes” or “Using ‘Respond to Webhook’ Node” to answer directly."), "" },
  [PHRASE_RESPONSE_NODE] = { "response-mode", CHECK_PASS,
    N_("The result is what the Respond to Webhook node sends."), "" },
  [PHRASE_LAST_NODE] = { "response-mode", CHECK_PASS,
    N_("The result is the output of the last node."), "" },
  [PHRASE_RESPONSE_MODE] = { "response-mode", CHECK_PASS,
    N_("The webhook responds in the mode “%s”."), "s" },
  [PHRASE_NOTHING_TO_CALL] = { "webhook-url", CHECK_WARN,
    N_("There is no webhook entry point to call."), "" },
  [PHRASE_WEBHOOK_URL] = { "webhook-url", CHECK_PASS, N_("The tool is called at /webhook/%s."), "s" },
  [PHRASE_NO_WEBHOOK_ID] = { "webhook-url", CHECK_WARN,
    N_("The Webhook node has no webhookId, so n8n serves it under the workflow id and the node’s name, which change when either does. Add the Webhook node in the n8n editor to get a stable URL."), "" },
};

/* A check as JSON text, written once per discovery: the checks of 1,000
 * workflows cost as much again as analysing them when each looked up its
 * translation, printf-formatted and escaped its message anew. The values
 * it is written with go into its holes. */
#define MAX_HOLES 8

typedef struct
{
  char    *text;
  guint32  len;
  guint32  n_holes;
  guint32  hole_at[MAX_HOLES];
  guint8   hole_arg[MAX_HOLES];  /* the argument's index */
} Compiled;

#define N_CACHED_COUNTS (PRS_TOOL_MAX_PARAMS + 1)

/* About what prs_checklists_new () adds to a draft: the tool name and its
 * check (only a size hint for the buffer) */
#define CHECKLIST_NAME_ROOM 256

/* The compiled checks of one discovery (so in one language), each the
 * first time it is needed; the parameters check by count, as its plural
 * form depends on it (N_CACHED_COUNTS of them, made with the first). */
typedef struct
{
  Compiled  checks[N_PHRASES];
  Compiled *params;
  GString  *scratch;
} Phrases;

struct _PrsChecklistDrafts
{
  GString *text;
  Phrases  phrases;
};

static void
phrases_clear (Phrases *phrases)
{
  for (guint i = 0; i < G_N_ELEMENTS (phrases->checks); i++)
    g_free (phrases->checks[i].text);
  for (guint i = 0; phrases->params != NULL && i < N_CACHED_COUNTS; i++)
    g_free (phrases->params[i].text);
  g_free (phrases->params);
  if (phrases->scratch != NULL)
    g_string_free (phrases->scratch, TRUE);
}

/* Appends the inside of a JSON string holding @raw, and empties it */
static void
flush_escaped (GString *out,
               GString *raw)
{
  prs_json_append_escaped (out, raw->str);
  g_string_truncate (raw, 0);
}

/* Appends @format's text escaped for a JSON string, with each conversion
 * as the byte 1 + its argument's index (JSON text holds no raw control
 * bytes), or the value in @fixed when it has one. Understands what a
 * translation may write: %s, %u (as @types says), %N$s, %N$u, %%; FALSE
 * on anything else. Split by hand: printf cannot leave holes to fill
 * later, and a translated format is compiled once per discovery. */
static gboolean
append_format (GString            *out,
               const char         *format,
               const char         *types,
               const char * const *fixed)
{
  g_autoptr(GString) raw = g_string_new (NULL);
  gsize n_types = strlen (types);
  guint next_arg = 0;

  for (const char *p = format; *p != '\0'; p++)
    {
      guint index = next_arg;

      if (*p != '%')
        {
          g_string_append_c (raw, *p);
          continue;
        }
      p++;
      if (*p == '%')
        {
          g_string_append_c (raw, '%');
          continue;
        }
      if (*p >= '1' && *p <= '9' && p[1] == '$')
        {
          index = *p - '1';
          p += 2;
        }
      else
        next_arg++;
      if (index >= n_types || *p != types[index])
        return FALSE;

      if (fixed != NULL && fixed[index] != NULL)
        {
          g_string_append (raw, fixed[index]);
          continue;
        }
      flush_escaped (out, raw);
      g_string_append_c (out, (char) (1 + index));
    }
  flush_escaped (out, raw);

  return TRUE;
}

/* @fallback: the untranslated format */
static void
compile_check (Compiled           *compiled,
               Phrase              phrase,
               const char         *format,
               const char         *fallback,
               const char * const *fixed)
{
  static const char * const status_names[] = { "pass", "warn", "fail" };
  const PhraseDef *def = &phrase_defs[phrase];
  GString *out = g_string_new ("{\"id\":\"");
  gsize message_at;

  g_string_append (out, def->id);
  g_string_append (out, "\",\"status\":\"");
  g_string_append (out, status_names[def->status]);
  g_string_append (out, "\",\"message\":\"");
  message_at = out->len;
  /* A translation whose format does not match: the message as written */
  if (!append_format (out, format, def->args, fixed))
    {
      g_string_truncate (out, message_at);
      append_format (out, fallback, def->args, fixed);
    }
  g_string_append (out, "\"}");

  /* The markers out, where they were kept as holes */
  compiled->n_holes = 0;
  for (gsize i = message_at; i < out->len; i++)
    {
      if ((guchar) out->str[i] >= 0x20)
        continue;
      /* (A translation repeating its values this often is not worth a
       * hole each: the message as written) */
      if (compiled->n_holes == MAX_HOLES && format != fallback)
        {
          g_string_free (out, TRUE);
          compile_check (compiled, phrase, fallback, fallback, fixed);
          return;
        }
      g_assert (compiled->n_holes < MAX_HOLES);
      compiled->hole_at[compiled->n_holes] = i;
      compiled->hole_arg[compiled->n_holes++] = out->str[i] - 1;
      g_string_erase (out, i--, 1);
    }
  compiled->len = out->len;
  compiled->text = g_string_free (out, FALSE);
}

static const Compiled *
phrases_get (Phrases *phrases,
             Phrase   phrase)
{
  Compiled *compiled = &phrases->checks[phrase];

  if (compiled->text == NULL)
    compile_check (compiled, phrase, _(phrase_defs[phrase].message),
                   phrase_defs[phrase].message, NULL);

  return compiled;
}

/* The checks are written straight to JSON text: a discovery of 1,000
 * workflows made ~10 json-glib objects per workflow only for the store to
 * print them again. */
typedef struct
{
  GString  *out;
  Phrases  *phrases;
  gboolean  first;
} Checks;

/* Appends a compiled check, its arguments (@args[i] for the byte 1 + i)
 * escaped into its holes. NULL arguments are written as printf writes
 * them. */
static void
append_compiled (Checks             *checks,
                 const Compiled     *compiled,
                 const char * const *args)
{
  gsize at = 0;

  if (!checks->first)
    g_string_append_c (checks->out, ',');
  checks->first = FALSE;

  for (guint i = 0; i < compiled->n_holes; i++)
    {
      const char *arg = args[compiled->hole_arg[i]];

      g_string_append_len (checks->out, compiled->text + at, compiled->hole_at[i] - at);
      prs_json_append_escaped (checks->out, arg != NULL ? arg : "(null)");
      at = compiled->hole_at[i];
    }
  g_string_append_len (checks->out, compiled->text + at, compiled->len - at);
}

static void
add_check (Checks *checks,
           Phrase  phrase)
{
  append_compiled (checks, phrases_get (checks->phrases, phrase), NULL);
}

static void
add_check_with (Checks     *checks,
                Phrase      phrase,
                const char *arg0,
                const char *arg1)
{
  const char *args[] = { arg0, arg1 };

  append_compiled (checks, phrases_get (checks->phrases, phrase), args);
}

static void
check_published (Checks            *checks,
                 const PrsAnalysis *analysis)
{
  const PrsWorkflow *workflow = analysis->workflow;

  if (workflow->archived)
    add_check (checks, PHRASE_ARCHIVED);
  else if (workflow->active == PRS_ACTIVE_YES)
    add_check (checks, PHRASE_PUBLISHED);
  else if (workflow->active == PRS_ACTIVE_NO)
    add_check (checks, PHRASE_NOT_PUBLISHED);
  else
    add_check (checks, PHRASE_PUBLISHED_UNKNOWN);
}

/* Says why no webhook qualifies, from the first Webhook node there is. */
static void
check_missing_webhook (Checks            *checks,
                       const PrsAnalysis *analysis)
{
  const char *name = analysis->webhook_problem_node;

  switch (analysis->webhook_problem)
    {
    case PRS_WEBHOOK_PROBLEM_DISABLED:
      add_check_with (checks, PHRASE_WEBHOOK_DISABLED, name, NULL);
      break;
    case PRS_WEBHOOK_PROBLEM_NO_PATH:
      add_check_with (checks, PHRASE_WEBHOOK_NO_PATH, name, NULL);
      break;
    case PRS_WEBHOOK_PROBLEM_NOT_POST:
      add_check_with (checks, PHRASE_WEBHOOK_NOT_POST, name, NULL);
      break;
    case PRS_WEBHOOK_PROBLEM_NONE:
    case PRS_WEBHOOK_PROBLEM_NO_NODE:
    default:
      add_check (checks, PHRASE_NO_WEBHOOK);
      break;
    }
}

static void
check_webhook (Checks            *checks,
               const PrsAnalysis *analysis)
{
  if (analysis->has_webhook)
    add_check_with (checks, PHRASE_WEBHOOK, analysis->tool->webhook_node_name,
                    analysis->tool->webhook_path);
  else
    check_missing_webhook (checks, analysis);
}

static void
check_tool_name (Checks            *checks,
                 const PrsAnalysis *analysis)
{
  if (analysis->name_suffixed)
    add_check_with (checks, PHRASE_NAME_SUFFIXED, analysis->tool->name, analysis->base_name);
  else if (analysis->name_stripped)
    add_check_with (checks, PHRASE_NAME_STRIPPED, analysis->tool->name, NULL);
  else
    add_check_with (checks, PHRASE_NAME, analysis->tool->name, NULL);
}

static void
check_description (Checks            *checks,
                   const PrsAnalysis *analysis)
{
  switch (analysis->tool->description_source)
    {
    case PRS_DESCRIPTION_WORKFLOW:
      add_check (checks, PHRASE_DESCRIPTION_WORKFLOW);
      break;
    case PRS_DESCRIPTION_STICKY_NOTE:
      add_check (checks, PHRASE_DESCRIPTION_STICKY_NOTE);
      break;
    case PRS_DESCRIPTION_GENERATED:
    default:
      add_check (checks, PHRASE_DESCRIPTION_GENERATED);
      break;
    }
}

/* "%u parameters found: %s." with the count in place: its plural form
 * depends on it. A count past the cache is compiled into @uncached. */
static const Compiled *
phrases_get_params_found (Phrases  *phrases,
                          guint     n,
                          Compiled *uncached)
{
  Compiled *compiled = uncached;
  char count[16];
  const char *fixed[] = { count, NULL };

  if (n < N_CACHED_COUNTS)
    {
      if (phrases->params == NULL)
        phrases->params = g_new0 (Compiled, N_CACHED_COUNTS);
      compiled = &phrases->params[n];
    }
  if (compiled->text == NULL)
    {
      g_snprintf (count, sizeof count, "%u", n);
      compile_check (compiled, PHRASE_PARAMS_FOUND,
                     g_dngettext (GETTEXT_PACKAGE, "%u parameter found: %s.",
                                  "%u parameters found: %s.", n),
                     n == 1 ? "%u parameter found: %s." : "%u parameters found: %s.", fixed);
    }

  return compiled;
}

static void
check_parameters (Checks            *checks,
                  const PrsAnalysis *analysis)
{
  GPtrArray *params = analysis->tool->params;

  if (analysis->too_many_params)
    {
      char max[16];

      g_snprintf (max, sizeof max, "%u", PRS_TOOL_MAX_PARAMS);
      add_check_with (checks, PHRASE_TOO_MANY_PARAMS, max, max);
    }
  else if (params->len > 0)
    {
      Compiled uncached = { NULL, };
      const Compiled *compiled = phrases_get_params_found (checks->phrases, params->len, &uncached);
      GString *names = checks->phrases->scratch;
      const char *args[] = { NULL, NULL };

      if (names == NULL)
        names = checks->phrases->scratch = g_string_new (NULL);
      g_string_truncate (names, 0);
      for (guint i = 0; i < params->len; i++)
        {
          const PrsParam *param = g_ptr_array_index (params, i);

          if (i > 0)
            g_string_append (names, ", ");
          g_string_append (names, param->name);
        }
      args[1] = names->str;
      append_compiled (checks, compiled, args);
      g_free (uncached.text);
    }
  else if (analysis->n_code_nodes > 0)
    add_check (checks, PHRASE_NO_PARAMS_FOUND);
  else
    add_check (checks, PHRASE_NO_CODE_NODES);
}

/* n8n's response mode, as the checklist and the Tools page say it */
static Phrase
response_mode_phrase (const char *mode)
{
  if (g_strcmp0 (mode, "onReceived") == 0)
    return PHRASE_RESPONDS_IMMEDIATELY;
  if (g_strcmp0 (mode, "responseNode") == 0)
    return PHRASE_RESPONSE_NODE;
  if (g_strcmp0 (mode, "lastNode") == 0)
    return PHRASE_LAST_NODE;
  return PHRASE_RESPONSE_MODE;
}

char *
prs_checklist_describe_response_mode (const char *mode)
{
  Phrase phrase = response_mode_phrase (mode);

  g_return_val_if_fail (mode != NULL, NULL);

  if (phrase == PHRASE_RESPONSE_MODE)
    return g_strdup_printf (_("The webhook responds in the mode “%s”."), mode);
  return g_strdup (_(phrase_defs[phrase].message));
}

static void
check_response_mode (Checks            *checks,
                     const PrsAnalysis *analysis)
{
  const char *mode = analysis->tool->response_mode;
  Phrase phrase = response_mode_phrase (mode);

  if (!analysis->has_webhook)
    add_check (checks, PHRASE_NOTHING_TO_ANSWER_FROM);
  else if (phrase == PHRASE_RESPONSE_MODE)
    add_check_with (checks, phrase, mode, NULL);
  else
    add_check (checks, phrase);
}

static void
check_webhook_url (Checks            *checks,
                   const PrsAnalysis *analysis)
{
  if (!analysis->has_webhook)
    add_check (checks, PHRASE_NOTHING_TO_CALL);
  else if (analysis->tool->webhook_id != NULL)
    add_check_with (checks, PHRASE_WEBHOOK_URL, analysis->tool->webhook_path, NULL);
  else
    add_check (checks, PHRASE_NO_WEBHOOK_ID);
}

/* The checks before "tool-name" (the first three, or all of a workflow too
 * large to read), without the array's brackets. */
static void
append_checks_before_name (Checks            *checks,
                           const PrsAnalysis *analysis)
{
  check_published (checks, analysis);
  if (analysis->too_large)
    {
      g_autofree char *size = g_format_size_full (PRS_WORKFLOW_MAX_BYTES, G_FORMAT_SIZE_IEC_UNITS);

      /* Nothing else is known of it */
      add_check_with (checks, PHRASE_TOO_LARGE, size, NULL);
      return;
    }
  check_webhook (checks, analysis);
  if (analysis->is_adapter)
    add_check (checks, PHRASE_ADAPTER);
  else
    add_check (checks, PHRASE_NOT_ADAPTER);
}

/* The checks after "tool-name" */
static void
append_checks_after_name (Checks            *checks,
                          const PrsAnalysis *analysis)
{
  check_description (checks, analysis);
  check_parameters (checks, analysis);
  check_response_mode (checks, analysis);
  check_webhook_url (checks, analysis);
}

/* Appends the checks array */
static void
append_checks (GString           *out,
               Phrases           *phrases,
               const PrsAnalysis *analysis)
{
  Checks checks = { out, phrases, TRUE };

  g_string_append_c (out, '[');
  append_checks_before_name (&checks, analysis);
  if (!analysis->too_large)
    {
      check_tool_name (&checks, analysis);
      append_checks_after_name (&checks, analysis);
    }
  g_string_append_c (out, ']');
}

static void
append_nullable_string (GString    *out,
                        const char *value)
{
  if (value != NULL)
    prs_json_append_string (out, value);
  else
    g_string_append (out, "null");
}

/* Up to the tool name's value, which the collisions may yet change */
static void
append_checklist_head (GString           *out,
                       const PrsAnalysis *analysis)
{
  g_string_append (out, "{\"workflowId\":");
  append_nullable_string (out, analysis->workflow->id);
  g_string_append (out, ",\"workflowName\":");
  prs_json_append_string (out, analysis->workflow->name);
  g_string_append (out, analysis->discoverable ? ",\"discoverable\":true,\"toolName\":"
                                               : ",\"discoverable\":false,\"toolName\":");
}

static void
append_checklist (GString           *out,
                  Phrases           *phrases,
                  const PrsAnalysis *analysis)
{
  append_checklist_head (out, analysis);
  append_nullable_string (out, analysis->discoverable ? analysis->tool->name : NULL);
  g_string_append (out, ",\"checks\":");
  append_checks (out, phrases, analysis);
  g_string_append_c (out, '}');
}

void
prs_analysis_append_checklist (GString           *out,
                               const PrsAnalysis *analysis)
{
  Phrases phrases = { 0, };

  g_return_if_fail (out != NULL);
  g_return_if_fail (analysis != NULL);

  append_checklist (out, &phrases, analysis);
  phrases_clear (&phrases);
}

PrsChecklistDrafts *
prs_checklist_drafts_new (void)
{
  PrsChecklistDrafts *self = g_new0 (PrsChecklistDrafts, 1);

  self->text = g_string_new (NULL);

  return self;
}

void
prs_checklist_drafts_free (PrsChecklistDrafts *self)
{
  if (self == NULL)
    return;

  g_string_free (self->text, TRUE);
  phrases_clear (&self->phrases);
  g_free (self);
}

void
prs_analysis_draft_checklist (PrsAnalysis        *analysis,
                              PrsChecklistDrafts *drafts)
{
  GString *text;
  Checks checks;

  g_return_if_fail (analysis != NULL);
  g_return_if_fail (drafts != NULL);

  /* A workflow too large to read has no tool name to wait for */
  if (analysis->too_large)
    return;

  /* Into the discovery's one buffer: a buffer each would cost a malloc of
   * nearly 1 KiB per workflow, which glibc serves only after sorting every
   * block the previous workflow's JSON tree freed. */
  text = drafts->text;
  checks = (Checks) { text, &drafts->phrases, TRUE };
  analysis->drafted = TRUE;
  analysis->draft_at = text->len;
  append_checklist_head (text, analysis);
  analysis->draft_name_at = text->len;
  g_string_append (text, ",\"checks\":[");
  append_checks_before_name (&checks, analysis);
  analysis->draft_tail_at = text->len;
  append_checks_after_name (&checks, analysis);
  g_string_append (text, "]}");
  analysis->draft_end = text->len;
}

/* The checklist from its draft: the same text as append_checklist ()
 * writes */
static void
append_from_draft (GString            *out,
                   const PrsAnalysis  *analysis,
                   PrsChecklistDrafts *drafts)
{
  const char *draft = drafts->text->str;
  Checks checks = { out, &drafts->phrases, FALSE };

  g_string_append_len (out, draft + analysis->draft_at,
                       analysis->draft_name_at - analysis->draft_at);
  append_nullable_string (out, analysis->discoverable ? analysis->tool->name : NULL);
  g_string_append_len (out, draft + analysis->draft_name_at,
                       analysis->draft_tail_at - analysis->draft_name_at);
  check_tool_name (&checks, analysis);
  g_string_append_len (out, draft + analysis->draft_tail_at,
                       analysis->draft_end - analysis->draft_tail_at);
}

/* The trees are read back from the text: one writer, so the checklist a
 * discovery stores and the one `check-workflow` prints cannot differ. */
static JsonNode *
parse_written (GString *text)
{
  g_autoptr(GError) error = NULL;
  JsonNode *node = prs_json_parse_bounded (text->str, text->len, PRS_JSON_DEFAULT_MAX_DEPTH, &error);

  if (node == NULL)
    g_error ("The checklist writer wrote invalid JSON: %s", error->message);

  return node;
}

JsonNode *
prs_analysis_build_checks (const PrsAnalysis *analysis)
{
  g_autoptr(GString) text = g_string_new (NULL);
  Phrases phrases = { 0, };

  g_return_val_if_fail (analysis != NULL, NULL);

  append_checks (text, &phrases, analysis);
  phrases_clear (&phrases);
  return parse_written (text);
}

JsonNode *
prs_analysis_to_checklist (const PrsAnalysis *analysis)
{
  g_autoptr(GString) text = g_string_new (NULL);

  g_return_val_if_fail (analysis != NULL, NULL);

  prs_analysis_append_checklist (text, analysis);
  return parse_written (text);
}

PrsChecklists *
prs_checklists_new (GPtrArray          *analyses,
                    PrsChecklistDrafts *drafts)
{
  PrsChecklists *self;
  g_autoptr(GArray) offsets = NULL;
  Phrases own = { 0, };

  g_return_val_if_fail (analyses != NULL, NULL);

  offsets = g_array_sized_new (FALSE, FALSE, sizeof (gsize), analyses->len);
  self = g_new0 (PrsChecklists, 1);
  /* One buffer for all, freed at once; from drafts, sized for them and
   * their tool names at once (grown by doubling, it was copied a
   * megabyte at a time) */
  self->text = g_string_sized_new (drafts != NULL ? drafts->text->len + analyses->len * CHECKLIST_NAME_ROOM : 0);
  self->rows = g_array_sized_new (FALSE, FALSE, sizeof (PrsChecklistInsert), analyses->len);
  for (guint i = 0; i < analyses->len; i++)
    {
      const PrsAnalysis *analysis = g_ptr_array_index (analyses, i);
      gsize offset = self->text->len;
      PrsChecklistInsert row = {
        .workflow_id = analysis->workflow->id,
        .workflow_name = analysis->workflow->name,
        .discoverable = analysis->discoverable,
        .tool_name = analysis->discoverable ? analysis->tool->name : NULL,
      };

      if (drafts != NULL && analysis->drafted && analysis->draft_end <= drafts->text->len)
        append_from_draft (self->text, analysis, drafts);
      else
        append_checklist (self->text, drafts != NULL ? &drafts->phrases : &own, analysis);
      g_string_append_c (self->text, '\0');
      g_array_append_val (offsets, offset);
      g_array_append_val (self->rows, row);
    }
  phrases_clear (&own);

  /* The buffer moved as it grew: point into it once it is written */
  for (guint i = 0; i < self->rows->len; i++)
    g_array_index (self->rows, PrsChecklistInsert, i).json =
      self->text->str + g_array_index (offsets, gsize, i);

  return self;
}

void
prs_checklists_free (PrsChecklists *self)
{
  if (self == NULL)
    return;

  g_string_free (self->text, TRUE);
  g_array_unref (self->rows);
  g_free (self);
}
