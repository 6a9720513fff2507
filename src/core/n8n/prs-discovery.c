/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-discovery.c: the rules of docs/workflows.md (requirements, names, descriptions,
 * parameters), the run against n8n, and its schedule. */
#include "config.h"

#include <string.h>
#include <glib/gi18n-lib.h>

#include "prs-checklist.h"
#include "prs-discovery.h"
#include "prs-error.h"
#include "prs-js-scan.h"
#include "prs-json.h"
#include "prs-markdown-text.h"
#include "prs-n8n-client.h"
#include "prs-thread.h"

/* ---------------------------------------------------------------- names */

static char *
alnum_lower (const char *str)
{
  GString *out = g_string_new (NULL);

  for (const char *p = str != NULL ? str : ""; *p != '\0'; p++)
    {
      char c = g_ascii_tolower (*p);

      if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))
        g_string_append_c (out, c);
    }

  return g_string_free (out, FALSE);
}

/* Cuts @str (ASCII) to @max bytes. */
static void
cut_ascii (GString *str,
           gsize    max)
{
  if (str->len > max)
    g_string_truncate (str, max);
}

static gboolean
is_ascii_without_capital_i (const char *str)
{
  for (const guchar *p = (const guchar *) str; *p != '\0'; p++)
    {
      if (*p >= 0x80 || *p == 'I')
        return FALSE;
    }

  return TRUE;
}

char *
prs_discovery_tool_name (const char *workflow_name,
                         const char *workflow_id,
                         gboolean   *out_stripped)
{
  g_autofree char *valid = NULL;
  g_autofree char *lower = NULL;
  g_autoptr(GString) name = g_string_new (NULL);
  gboolean ascii;
  gboolean stripped = FALSE;
  gboolean pending_space = FALSE;
  const char *p;

  if (workflow_name == NULL)
    workflow_name = "";
  /* ASCII lowers byte by byte as it is read (g_utf8_strdown's Unicode
   * tables are most of a name's cost), but for the "I" that Turkic
   * locales lower to a dotless ı */
  ascii = is_ascii_without_capital_i (workflow_name);
  if (!ascii)
    {
      valid = g_utf8_make_valid (workflow_name, -1);
      lower = g_utf8_strdown (valid, -1);
    }

  /* Keep a-z and 0-9; everything else is removed but white space: trimmed,
   * and each run of it becomes one "_". */
  for (p = ascii ? workflow_name : lower; *p != '\0';)
    {
      gunichar c;

      if (ascii)
        c = g_ascii_tolower (*p++);
      else
        {
          c = g_utf8_get_char (p);
          p = g_utf8_next_char (p);
        }

      if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))
        {
          if (pending_space)
            g_string_append_c (name, '_');
          pending_space = FALSE;
          g_string_append_c (name, (char) c);
        }
      else if (g_unichar_isspace (c))
        pending_space = name->len > 0;
      else
        stripped = TRUE;
    }

  if (name->len > PRS_TOOL_NAME_MAX)
    {
      stripped = TRUE;
      cut_ascii (name, PRS_TOOL_NAME_MAX);
    }

  if (name->len == 0)
    {
      g_autofree char *id = alnum_lower (workflow_id);

      g_string_append (name, "workflow_");
      g_string_append (name, id);
      cut_ascii (name, PRS_TOOL_NAME_MAX);
    }

  if (out_stripped != NULL)
    *out_stripped = stripped;

  return g_string_free (g_steal_pointer (&name), FALSE);
}

char *
prs_discovery_collision_name (const char *base_name,
                              const char *workflow_id)
{
  g_autofree char *id = alnum_lower (workflow_id);
  g_autoptr(GString) name = g_string_new (base_name);
  g_autofree char *suffix = NULL;

  if (strlen (id) > 6)
    id[6] = '\0';
  suffix = g_strconcat ("_", id, NULL);

  cut_ascii (name, PRS_TOOL_NAME_MAX - strlen (suffix));
  g_string_append (name, suffix);

  return g_string_free (g_steal_pointer (&name), FALSE);
}

/* ---------------------------------------------------------------- analysis */

static char *
cut_utf8 (const char *str,
          glong       max_chars)
{
  gsize bytes = strlen (str);

  /* No shorter in characters than in bytes: most need no counting */
  if (bytes <= (gsize) max_chars || g_utf8_strlen (str, -1) <= max_chars)
    return g_memdup2 (str, bytes + 1);

  return g_utf8_substring (str, 0, max_chars);
}

static const char *
code_of_node (const PrsWorkflowNode *node)
{
  if (node->disabled)
    return NULL;

  if (node->kind == PRS_NODE_KIND_CODE)
    {
      const char *language = prs_json_object_get_string (node->parameters, "language");

      /* Python Code nodes have no JavaScript to scan. */
      if (language != NULL && g_strcmp0 (language, "javaScript") != 0)
        return NULL;

      return prs_json_object_get_string (node->parameters, "jsCode");
    }

  if (node->kind == PRS_NODE_KIND_FUNCTION)
    return prs_json_object_get_string (node->parameters, "functionCode");

  return NULL;
}

static void
analyse_description (PrsAnalysis *self)
{
  PrsWorkflow *workflow = self->workflow;
  PrsTool *tool = self->tool;

  if (workflow->description != NULL)
    {
      tool->description = cut_utf8 (workflow->description, PRS_TOOL_DESCRIPTION_MAX);
      tool->description_source = PRS_DESCRIPTION_WORKFLOW;
      return;
    }

  for (guint i = 0; i < workflow->nodes->len; i++)
    {
      const PrsWorkflowNode *node = &g_array_index (workflow->nodes, PrsWorkflowNode, i);
      g_autofree char *paragraph = NULL;

      if (node->kind != PRS_NODE_KIND_STICKY_NOTE)
        continue;

      paragraph = prs_markdown_first_paragraph (
        prs_json_object_get_string (node->parameters, "content"));
      if (paragraph != NULL)
        {
          tool->description = cut_utf8 (paragraph, PRS_TOOL_DESCRIPTION_MAX);
          tool->description_source = PRS_DESCRIPTION_STICKY_NOTE;
          return;
        }
    }

  {
    g_autofree char *generated = g_strdup_printf ("Runs the n8n workflow \"%s\".", workflow->name);

    tool->description = cut_utf8 (generated, PRS_TOOL_DESCRIPTION_MAX);
    tool->description_source = PRS_DESCRIPTION_GENERATED;
  }
}

static void
analyse_parameters (PrsAnalysis *self)
{
  g_autoptr(PrsParamSet) set = prs_param_set_new ();
  g_autoptr(GPtrArray) params = NULL;

  for (guint i = 0; i < self->workflow->nodes->len; i++)
    {
      const PrsWorkflowNode *node = &g_array_index (self->workflow->nodes, PrsWorkflowNode, i);
      const char *code = code_of_node (node);

      if (code == NULL)
        continue;

      self->n_code_nodes++;
      self->n_code_matches += prs_param_set_scan (set, code, -1);
    }

  self->too_many_params = prs_param_set_overflowed (set);
  params = prs_param_set_steal_params (set);
  g_ptr_array_extend_and_steal (self->tool->params, g_steal_pointer (&params));
}

/* Says why no webhook qualifies, from the first Webhook node there is. */
static void
analyse_webhook_problem (PrsAnalysis *self)
{
  const PrsWorkflow *workflow = self->workflow;

  self->webhook_problem = PRS_WEBHOOK_PROBLEM_NO_NODE;
  for (guint i = 0; i < workflow->nodes->len; i++)
    {
      const PrsWorkflowNode *node = &g_array_index (workflow->nodes, PrsWorkflowNode, i);
      const char *path;

      if (node->kind != PRS_NODE_KIND_WEBHOOK)
        continue;

      self->webhook_problem_node = g_strdup (node->name);
      path = prs_json_object_get_string (node->parameters, "path");
      if (node->disabled)
        self->webhook_problem = PRS_WEBHOOK_PROBLEM_DISABLED;
      else if (path == NULL || path[strspn (path, " \t\r\n")] == '\0')
        self->webhook_problem = PRS_WEBHOOK_PROBLEM_NO_PATH;
      else
        self->webhook_problem = PRS_WEBHOOK_PROBLEM_NOT_POST;
      return;
    }
}

/* The name, without its leading and trailing white space (as g_strstrip
 * takes it), is the adapter's: compared in place, not copied to be
 * compared */
static gboolean
is_adapter_name (const char *name)
{
  const char *start = name;
  const char *end = name + strlen (name);
  gsize len = strlen (PRS_ADAPTER_WORKFLOW_NAME);

  while (g_ascii_isspace (*start))
    start++;
  while (end > start && g_ascii_isspace (end[-1]))
    end--;

  return (gsize) (end - start) == len && memcmp (start, PRS_ADAPTER_WORKFLOW_NAME, len) == 0;
}

PrsAnalysis *
prs_analysis_new (PrsWorkflow *workflow)
{
  PrsAnalysis *self;
  const PrsWorkflowNode *webhook;

  g_return_val_if_fail (workflow != NULL, NULL);

  self = g_new0 (PrsAnalysis, 1);
  self->workflow = workflow;
  self->tool = prs_tool_new ();

  /* An exported file that does not record "active" is taken as published:
   * the checklist warns that it must be, and the live list only ever holds
   * active workflows. */
  self->published = workflow->active != PRS_ACTIVE_NO && !workflow->archived;

  webhook = prs_workflow_find_entry_webhook (workflow);
  self->has_webhook = webhook != NULL;

  self->is_adapter = is_adapter_name (workflow->name);

  self->discoverable = self->published && self->has_webhook && !self->is_adapter;

  self->base_name = prs_discovery_tool_name (workflow->name, workflow->id, &self->name_stripped);
  self->tool->name = g_strdup (self->base_name);
  self->tool->workflow_id = g_strdup (workflow->id);
  self->tool->workflow_name = g_strdup (workflow->name);
  self->tool->created_at = g_strdup (workflow->created_at);

  g_clear_pointer (&self->tool->webhook_method, g_free);
  if (webhook != NULL)
    {
      const char *mode = prs_json_object_get_string (webhook->parameters, "responseMode");

      self->tool->webhook_path = g_strdup (prs_json_object_get_string (webhook->parameters, "path"));
      self->tool->webhook_method = g_strdup ("POST");
      self->tool->response_mode = g_strdup (mode != NULL ? mode : "onReceived");
      self->tool->webhook_id = g_strdup (webhook->webhook_id);
      self->tool->webhook_node_name = g_strdup (webhook->name);
    }
  else
    analyse_webhook_problem (self);

  analyse_description (self);
  analyse_parameters (self);
  if (self->too_many_params)
    self->discoverable = FALSE;

  /* Nothing reads the nodes from here on: drop them, and with them the
   * references into the workflow's JSON (the analyses of a whole discovery
   * stay alive until it is stored: the less each keeps, the better). */
  g_clear_pointer (&workflow->nodes, g_array_unref);

  return self;
}

void
prs_analysis_free (PrsAnalysis *analysis)
{
  if (analysis == NULL)
    return;

  g_clear_pointer (&analysis->workflow, prs_workflow_free);
  g_clear_pointer (&analysis->tool, prs_tool_free);
  g_free (analysis->base_name);
  g_free (analysis->webhook_problem_node);
  g_free (analysis);
}

/* ---------------------------------------------------------------- collisions */

static gint64
created_at_usec (const char *created_at)
{
  g_autoptr(GDateTime) dt = NULL;

  if (created_at != NULL)
    {
      g_autoptr(GTimeZone) utc = g_time_zone_new_utc ();

      dt = g_date_time_new_from_iso8601 (created_at, utc);
    }

  /* Unknown creation times sort after every known one. */
  return dt != NULL ? g_date_time_to_unix (dt) * G_USEC_PER_SEC + g_date_time_get_microsecond (dt)
                    : G_MAXINT64;
}

/* A group's member and its creation time, read once for the sort */
typedef struct
{
  PrsAnalysis *analysis;
  gint64       created;
} Dated;

static int
compare_by_creation (gconstpointer a,
                     gconstpointer b)
{
  const Dated *x = a;
  const Dated *y = b;

  if (x->created != y->created)
    return x->created < y->created ? -1 : 1;

  return g_strcmp0 (x->analysis->workflow->id, y->analysis->workflow->id);
}

/* The oldest keeps the name; every other one gets a suffix */
static void
suffix_group (GPtrArray *group)
{
  g_autoptr(GArray) dated = g_array_sized_new (FALSE, FALSE, sizeof (Dated), group->len);

  for (guint i = 0; i < group->len; i++)
    {
      PrsAnalysis *analysis = g_ptr_array_index (group, i);
      Dated d = { analysis, created_at_usec (analysis->workflow->created_at) };

      g_array_append_val (dated, d);
    }
  g_array_sort (dated, compare_by_creation);

  for (guint i = 1; i < dated->len; i++)
    {
      PrsAnalysis *analysis = g_array_index (dated, Dated, i).analysis;

      g_free (analysis->tool->name);
      analysis->tool->name = prs_discovery_collision_name (analysis->base_name,
                                                           analysis->workflow->id);
      analysis->name_suffixed = TRUE;
    }
}

void
prs_discovery_resolve_collisions (GPtrArray  *analyses,
                                  GPtrArray **out_tools)
{
  /* base name → the first analysis with it; a group only once a second
   * one comes (most names are unique: no array each) */
  g_autoptr(GHashTable) first = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GHashTable) groups = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                                        (GDestroyNotify) g_ptr_array_unref);
  GHashTableIter iter;
  GPtrArray *group;

  g_return_if_fail (analyses != NULL);

  for (guint i = 0; i < analyses->len; i++)
    {
      PrsAnalysis *analysis = g_ptr_array_index (analyses, i);
      PrsAnalysis *other;

      if (!analysis->discoverable)
        continue;

      other = g_hash_table_lookup (first, analysis->base_name);
      if (other == NULL)
        {
          g_hash_table_insert (first, analysis->base_name, analysis);
          continue;
        }

      group = g_hash_table_lookup (groups, analysis->base_name);
      if (group == NULL)
        {
          group = g_ptr_array_new ();
          g_ptr_array_add (group, other);
          g_hash_table_insert (groups, analysis->base_name, group);
        }
      g_ptr_array_add (group, analysis);
    }

  g_hash_table_iter_init (&iter, groups);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &group))
    suffix_group (group);

  if (out_tools != NULL)
    {
      *out_tools = g_ptr_array_new ();
      for (guint i = 0; i < analyses->len; i++)
        {
          PrsAnalysis *analysis = g_ptr_array_index (analyses, i);

          if (analysis->discoverable)
            g_ptr_array_add (*out_tools, analysis->tool);
        }
    }
}

PrsAnalysis *
prs_discovery_analyse_workflow (JsonObject *object)
{
  g_autoptr(JsonNode) node = NULL;
  PrsWorkflow *workflow;

  g_return_val_if_fail (object != NULL, NULL);

  node = json_node_init_object (json_node_alloc (), object);
  workflow = prs_workflow_new_from_json (node, NULL);
  if (workflow == NULL)
    return NULL;

  /* docs/workflows.md: skip archived workflows. The list was asked for active
   * ones, so an answer that does not say is taken as active. */
  if (workflow->archived || workflow->active == PRS_ACTIVE_NO)
    {
      prs_workflow_free (workflow);
      return NULL;
    }
  if (workflow->active == PRS_ACTIVE_UNKNOWN)
    workflow->active = PRS_ACTIVE_YES;

  return prs_analysis_new (workflow);
}

GPtrArray *
prs_discovery_analyse_all (GPtrArray  *workflows,
                           GPtrArray **out_tools)
{
  g_autoptr(GPtrArray) analyses = g_ptr_array_new_with_free_func ((GDestroyNotify) prs_analysis_free);

  g_return_val_if_fail (workflows != NULL, NULL);

  for (guint i = 0; i < workflows->len; i++)
    {
      PrsAnalysis *analysis = prs_discovery_analyse_workflow (g_ptr_array_index (workflows, i));

      if (analysis != NULL)
        g_ptr_array_add (analyses, analysis);
    }

  prs_discovery_resolve_collisions (analyses, out_tools);

  return g_steal_pointer (&analyses);
}

/* ---------------------------------------------------------------- the run */

#define MAX_GETS_IN_FLIGHT 4

struct _PrsDiscovery
{
  GObject       parent_instance;

  PrsStore     *store;
  PrsSecrets   *secrets;

  guint         schedule_id;
  guint         interval;
  guint         n_runs;
  gboolean      running;

  /* Rediscovery asked for by a tool call that met a 404 */
  gint64        rediscover_window_us;
  gint64        last_rediscover;       /* monotonic; 0: never */
  gboolean      rediscover_after_run;  /* asked while a run was under way */
  guint         rediscover_id;
};

G_DEFINE_FINAL_TYPE (PrsDiscovery, prs_discovery, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_RUNNING,
  N_PROPS
};

enum {
  FINISHED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

typedef struct
{
  char         *url;
  char         *api_key;
  PrsN8nClient *client;
  GPtrArray    *listed;      /* JsonObject* from the list */
  GPtrArray    *analyses;    /* PrsAnalysis* of each GET, in list order; NULL where skipped */
  PrsChecklistDrafts *drafts; /* their checklists, prs_analysis_draft_checklist () */
  guint         next;
  guint         in_flight;
  GError       *error;       /* the first failure */
} RunData;

static void
run_data_free (RunData *data)
{
  g_free (data->url);
  if (data->api_key != NULL)
    memset (data->api_key, 0, strlen (data->api_key));
  g_free (data->api_key);
  g_clear_object (&data->client);
  g_clear_pointer (&data->listed, g_ptr_array_unref);
  g_clear_pointer (&data->analyses, g_ptr_array_unref);
  g_clear_pointer (&data->drafts, prs_checklist_drafts_free);
  g_clear_error (&data->error);
  g_free (data);
}

static void
analysis_free_nullable (gpointer analysis)
{
  if (analysis != NULL)
    prs_analysis_free (analysis);
}

static void
set_running (PrsDiscovery *self,
             gboolean      running)
{
  if (self->running == running)
    return;

  self->running = running;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RUNNING]);
}

static void rediscover_if_asked (PrsDiscovery *self);

/* The kind of failure @error is, as the store keeps it for the fix each
 * place shows (prs-n8n-client.c gives each failure its code) */
static PrsDiscoveryFailure
failure_of (const GError *error)
{
  if (error->domain != PRS_ERROR)
    return PRS_DISCOVERY_FAILURE_OTHER;
  switch (error->code)
    {
    case PRS_ERROR_NOT_CONFIGURED:
      return PRS_DISCOVERY_FAILURE_NOT_SET_UP;
    case PRS_ERROR_N8N_UNAUTHORIZED:
      return PRS_DISCOVERY_FAILURE_KEY_REFUSED;
    case PRS_ERROR_N8N_UNREACHABLE:
    case PRS_ERROR_TIMEOUT:
      return PRS_DISCOVERY_FAILURE_UNREACHABLE;
    case PRS_ERROR_N8N_NOT_FOUND:
    case PRS_ERROR_N8N_BAD_RESPONSE:
    case PRS_ERROR_N8N_HTTP:
    case PRS_ERROR_TOO_LARGE:
      return PRS_DISCOVERY_FAILURE_BAD_ANSWER;
    default:
      return PRS_DISCOVERY_FAILURE_OTHER;
    }
}

static void
run_fail_as (GTask               *task,
             PrsDiscoveryFailure  kind,
             GError              *error)
{
  PrsDiscovery *self = g_task_get_source_object (task);
  g_autoptr(GError) store_error = NULL;

  if (!prs_store_record_discovery_failure (self->store, kind, error->message,
                                           g_get_real_time () / G_USEC_PER_SEC, &store_error))
    g_message ("Could not record the failed discovery: %s", store_error->message);

  /* "finished" reaches the window's handlers: on the main thread only */
  PRS_ASSERT_MAIN_THREAD ();
  set_running (self, FALSE);
  g_signal_emit (self, signals[FINISHED], 0, error);
  g_task_return_error (task, error);
  rediscover_if_asked (self);
}

static void
run_fail (GTask  *task,
          GError *error)
{
  run_fail_as (task, failure_of (error), error);
}

static void
run_complete (GTask *task)
{
  PrsDiscovery *self = g_task_get_source_object (task);
  RunData *data = g_task_get_task_data (task);
  g_autoptr(GPtrArray) analyses = g_ptr_array_new_with_free_func ((GDestroyNotify) prs_analysis_free);
  g_autoptr(GPtrArray) tools = NULL;
  g_autoptr(GPtrArray) result = g_ptr_array_new_with_free_func ((GDestroyNotify) prs_tool_free);
  g_autoptr(PrsChecklists) checklists = NULL;
  GError *error = NULL;

  /* Each workflow was analysed as it arrived (its JSON dropped there);
   * collisions need them all. */
  for (guint i = 0; i < data->analyses->len; i++)
    {
      PrsAnalysis *analysis = g_ptr_array_index (data->analyses, i);

      if (analysis != NULL)
        g_ptr_array_add (analyses, g_steal_pointer (&g_ptr_array_index (data->analyses, i)));
    }

  prs_discovery_resolve_collisions (analyses, &tools);
  checklists = prs_checklists_new (analyses, data->drafts);

  if (!prs_store_save_discovery (self->store, tools, checklists->rows,
                                 g_get_real_time () / G_USEC_PER_SEC, &error))
    {
      run_fail (task, error);
      return;
    }

  for (guint i = 0; i < tools->len; i++)
    g_ptr_array_add (result, prs_tool_copy (g_ptr_array_index (tools, i)));

  PRS_ASSERT_MAIN_THREAD ();
  set_running (self, FALSE);
  g_signal_emit (self, signals[FINISHED], 0, NULL);
  g_task_return_pointer (task, g_steal_pointer (&result), (GDestroyNotify) g_ptr_array_unref);
  rediscover_if_asked (self);
}

static void get_next (GTask *task);

/* The checklist entry of a workflow whose answer was too large to read:
 * what the list said of it, no nodes. */
static PrsAnalysis *
analysis_new_too_large (JsonObject *listed)
{
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
  JsonObject *object = json_object_new ();
  const char *members[] = { "id", "name", "createdAt" };
  PrsWorkflow *workflow;
  PrsAnalysis *analysis;

  for (guint i = 0; i < G_N_ELEMENTS (members); i++)
    {
      const char *value = prs_json_object_get_string (listed, members[i]);

      if (value != NULL)
        json_object_set_string_member (object, members[i], value);
    }
  json_object_set_array_member (object, "nodes", json_array_new ());
  json_node_take_object (node, object);
  workflow = prs_workflow_new_from_json (node, NULL);
  if (workflow == NULL)
    return NULL;

  /* Listed as active */
  workflow->active = PRS_ACTIVE_YES;
  analysis = prs_analysis_new (workflow);
  analysis->too_large = TRUE;
  analysis->discoverable = FALSE;
  return analysis;
}

typedef struct
{
  GTask *task;
  guint  index;
} GetClosure;

static void
get_workflow_cb (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  GetClosure *closure = user_data;
  g_autoptr(GTask) task = closure->task;
  RunData *data = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  JsonObject *object;

  object = prs_n8n_client_get_workflow_finish (PRS_N8N_CLIENT (source), result, &error);
  data->in_flight--;

  if (object != NULL)
    {
      PrsAnalysis *analysis = prs_discovery_analyse_workflow (object);

      if (analysis != NULL)
        prs_analysis_draft_checklist (analysis, data->drafts);
      g_ptr_array_index (data->analyses, closure->index) = analysis;
      json_object_unref (object);
    }
  else if (g_error_matches (error, PRS_ERROR, PRS_ERROR_N8N_NOT_FOUND))
    ; /* deleted since it was listed: not a failure */
  else if (g_error_matches (error, PRS_ERROR, PRS_ERROR_TOO_LARGE))
    {
      /* One huge workflow must not cost the others their discovery */
      g_message ("Skipping a workflow: %s", error->message);
      g_ptr_array_index (data->analyses, closure->index) =
        analysis_new_too_large (g_ptr_array_index (data->listed, closure->index));
    }
  else if (data->error == NULL)
    data->error = g_steal_pointer (&error);

  g_free (closure);
  get_next (task);
}

static void
get_next (GTask *task)
{
  RunData *data = g_task_get_task_data (task);

  if (data->error != NULL)
    {
      if (data->in_flight == 0)
        run_fail (task, g_steal_pointer (&data->error));
      return;
    }

  while (data->in_flight < MAX_GETS_IN_FLIGHT && data->next < data->listed->len)
    {
      JsonObject *listed = g_ptr_array_index (data->listed, data->next);
      const char *id = prs_json_object_get_string (listed, "id");
      GetClosure *closure;

      if (id == NULL || prs_json_object_get_bool (listed, "isArchived", FALSE))
        {
          data->next++;
          continue;
        }

      closure = g_new0 (GetClosure, 1);
      closure->task = g_object_ref (task);
      closure->index = data->next++;
      data->in_flight++;
      prs_n8n_client_get_workflow_async (data->client, id, g_task_get_cancellable (task),
                                         get_workflow_cb, closure);
    }

  if (data->in_flight == 0 && data->next >= data->listed->len)
    run_complete (task);
}

static void
list_cb (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  RunData *data = g_task_get_task_data (task);
  GError *error = NULL;

  data->listed = prs_n8n_client_list_workflows_finish (PRS_N8N_CLIENT (source), result, &error);
  if (data->listed == NULL)
    {
      run_fail (task, error);
      return;
    }

  data->analyses = g_ptr_array_new_with_free_func (analysis_free_nullable);
  g_ptr_array_set_size (data->analyses, data->listed->len);
  data->drafts = prs_checklist_drafts_new ();

  get_next (task);
}

static void
lookup_key_thread (GTask        *task,
                   gpointer      source_object,
                   gpointer      task_data,
                   GCancellable *cancellable)
{
  PrsDiscovery *self = source_object;
  GError *error = NULL;
  char *key = prs_secrets_lookup_sync (self->secrets, PRS_SECRET_N8N_API_KEY, cancellable, &error);

  if (error != NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, key, g_free);
}

static void
key_cb (GObject      *source,
        GAsyncResult *result,
        gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  RunData *data = g_task_get_task_data (task);
  GError *error = NULL;

  data->api_key = g_task_propagate_pointer (G_TASK (result), &error);
  if (error != NULL)
    {
      run_fail (task, error);
      return;
    }
  if (data->api_key == NULL || data->api_key[0] == '\0')
    {
      run_fail_as (task, PRS_DISCOVERY_FAILURE_NO_KEY,
                   g_error_new_literal (PRS_ERROR, PRS_ERROR_NOT_CONFIGURED,
                                        _("No n8n API key is stored. Add the key in Preferences or with “prosponsive-ctl n8n set”.")));
      return;
    }

  data->client = prs_n8n_client_new (data->url, data->api_key);
  prs_n8n_client_list_workflows_async (data->client, TRUE, g_task_get_cancellable (task),
                                       list_cb, g_object_ref (task));
}

void
prs_discovery_run_async (PrsDiscovery        *self,
                         GCancellable        *cancellable,
                         GAsyncReadyCallback  callback,
                         gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GTask) key_task = NULL;
  RunData *data;

  g_return_if_fail (PRS_IS_DISCOVERY (self));
  PRS_ASSERT_MAIN_THREAD ();

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, prs_discovery_run_async);
  data = g_new0 (RunData, 1);
  g_task_set_task_data (task, data, (GDestroyNotify) run_data_free);

  self->n_runs++;
  set_running (self, TRUE);

  data->url = prs_store_dup_setting (self->store, PRS_SETTING_N8N_URL);
  if (data->url == NULL || data->url[0] == '\0')
    {
      run_fail (task, g_error_new_literal (PRS_ERROR, PRS_ERROR_NOT_CONFIGURED,
                                           _("n8n is not set up yet. Enter its URL and an API key in Preferences or with “prosponsive-ctl n8n set”.")));
      return;
    }

  /* libsecret's synchronous calls block on D-Bus: keep them off this loop. */
  key_task = g_task_new (self, cancellable, key_cb, g_object_ref (task));
  prs_task_run_in_thread (key_task, lookup_key_thread);
}

GPtrArray *
prs_discovery_run_finish (PrsDiscovery  *self,
                          GAsyncResult  *result,
                          GError       **error)
{
  g_return_val_if_fail (PRS_IS_DISCOVERY (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  PRS_ASSERT_MAIN_THREAD ();

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* ---------------------------------------------------------------- schedule */

static void
scheduled_run_cb (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  PrsDiscovery *self = PRS_DISCOVERY (source);
  g_autoptr(GPtrArray) tools = NULL;
  g_autoptr(GError) error = NULL;

  tools = prs_discovery_run_finish (self, result, &error);
  if (tools == NULL)
    g_message ("Tool discovery failed: %s", error->message);
  else
    g_debug ("Tool discovery found %u tools", tools->len);
}

static gboolean
schedule_tick (gpointer user_data)
{
  PrsDiscovery *self = user_data;

  if (!self->running)
    prs_discovery_run_async (self, NULL, scheduled_run_cb, NULL);

  return G_SOURCE_CONTINUE;
}

void
prs_discovery_set_schedule (PrsDiscovery *self,
                            guint         interval_seconds)
{
  g_return_if_fail (PRS_IS_DISCOVERY (self));
  PRS_ASSERT_MAIN_THREAD ();

  g_clear_handle_id (&self->schedule_id, g_source_remove);
  self->interval = interval_seconds;

  if (interval_seconds == 0)
    return;

  schedule_tick (self);
  self->schedule_id = g_timeout_add_seconds (interval_seconds, schedule_tick, self);
}

static gboolean
on_rediscover_idle (gpointer user_data)
{
  PrsDiscovery *self = user_data;

  self->rediscover_id = 0;
  if (!self->running)
    prs_discovery_run_async (self, NULL, scheduled_run_cb, NULL);
  return G_SOURCE_REMOVE;
}

/* A run ended while a rediscovery waited for it: the run may have listed
 * the workflows before the one that answered 404 was unpublished */
static void
rediscover_if_asked (PrsDiscovery *self)
{
  if (!self->rediscover_after_run || self->rediscover_id != 0)
    return;
  self->rediscover_after_run = FALSE;
  /* From the main loop: the run's own callbacks come first */
  self->rediscover_id = g_idle_add (on_rediscover_idle, self);
}

gboolean
prs_discovery_request_rediscovery (PrsDiscovery *self)
{
  gint64 now;

  g_return_val_if_fail (PRS_IS_DISCOVERY (self), FALSE);
  PRS_ASSERT_MAIN_THREAD ();

  now = g_get_monotonic_time ();
  if (self->last_rediscover != 0 && now - self->last_rediscover < self->rediscover_window_us)
    return FALSE;
  self->last_rediscover = now;

  if (self->running)
    self->rediscover_after_run = TRUE;
  else
    prs_discovery_run_async (self, NULL, scheduled_run_cb, NULL);
  return TRUE;
}

void
prs_discovery_set_rediscover_window (PrsDiscovery *self,
                                     guint         milliseconds)
{
  g_return_if_fail (PRS_IS_DISCOVERY (self));
  PRS_ASSERT_MAIN_THREAD ();

  self->rediscover_window_us = (gint64) milliseconds * 1000;
}

gboolean
prs_discovery_get_running (PrsDiscovery *self)
{
  g_return_val_if_fail (PRS_IS_DISCOVERY (self), FALSE);
  PRS_ASSERT_MAIN_THREAD ();

  return self->running;
}

guint
prs_discovery_get_n_runs (PrsDiscovery *self)
{
  g_return_val_if_fail (PRS_IS_DISCOVERY (self), 0);
  PRS_ASSERT_MAIN_THREAD ();

  return self->n_runs;
}

/* ---------------------------------------------------------------- object */

PrsDiscovery *
prs_discovery_new (PrsStore   *store,
                   PrsSecrets *secrets)
{
  PrsDiscovery *self;

  g_return_val_if_fail (PRS_IS_STORE (store), NULL);
  g_return_val_if_fail (PRS_IS_SECRETS (secrets), NULL);
  PRS_ASSERT_MAIN_THREAD ();

  self = g_object_new (PRS_TYPE_DISCOVERY, NULL);
  self->store = g_object_ref (store);
  self->secrets = g_object_ref (secrets);

  return self;
}

static void
prs_discovery_dispose (GObject *object)
{
  PrsDiscovery *self = PRS_DISCOVERY (object);

  g_clear_handle_id (&self->schedule_id, g_source_remove);
  g_clear_handle_id (&self->rediscover_id, g_source_remove);
  g_clear_object (&self->store);
  g_clear_object (&self->secrets);

  G_OBJECT_CLASS (prs_discovery_parent_class)->dispose (object);
}

static void
prs_discovery_get_property (GObject    *object,
                            guint       prop_id,
                            GValue     *value,
                            GParamSpec *pspec)
{
  PrsDiscovery *self = PRS_DISCOVERY (object);

  switch (prop_id)
    {
    case PROP_RUNNING:
      g_value_set_boolean (value, self->running);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
prs_discovery_class_init (PrsDiscoveryClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = prs_discovery_dispose;
  object_class->get_property = prs_discovery_get_property;

  properties[PROP_RUNNING] =
    g_param_spec_boolean ("running", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /* Emitted after every run, with the error (NULL on success). */
  signals[FINISHED] =
    g_signal_new ("finished", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_ERROR);
}

static void
prs_discovery_init (PrsDiscovery *self)
{
  self->rediscover_window_us = (gint64) PRS_DISCOVERY_REDISCOVER_WINDOW_MS * 1000;
}
