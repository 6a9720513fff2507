/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-ctl-approvals.c: `prosponsive-ctl approvals [--json]`, `approve CALL`
 * and `deny CALL` — the tool calls that wait for a person, decided from a
 * terminal (a server without a window or notifications), through the
 * running service's API with the control key (docs/api.md#deciding-tool-calls).
 * `mcp approve|deny CALL` are the same decision. */
#include "config.h"

#include <string.h>
#include <glib/gi18n.h>

#include "prs-control-chars.h"
#include "prs-ctl.h"
#include "prs-ctl-api.h"
#include "prs-json.h"

/* How much of a call's arguments the list prints */
#define ARGUMENTS_CHARS 200

/* @member of @object blanked to one line, kept in *@out */
static const char *
one_line (JsonObject  *object,
          const char  *member,
          char       **out)
{
  const char *value = prs_json_object_get_string (object, member);

  *out = prs_text_blank_controls (value != NULL ? value : "", -1, FALSE);
  return *out;
}

static void
print_call (JsonObject *call)
{
  g_autofree char *id = NULL, *name = NULL, *slug = NULL, *agent = NULL, *created = NULL;
  JsonObject *arguments = prs_json_object_get_object (call, "arguments");
  g_autofree char *text = arguments != NULL ? prs_json_object_to_string (arguments, FALSE) : g_strdup ("{}");

  if (g_utf8_strlen (text, -1) > ARGUMENTS_CHARS)
    {
      char *shortened = g_strdup_printf ("%.*s…", (int) (g_utf8_offset_to_pointer (text, ARGUMENTS_CHARS) - text), text);

      g_free (text);
      text = shortened;
    }
  /* Each on its one line, whatever a workflow stored (docs/ctl.md "Text
   * output"): a slug that moved the cursor could redraw the lines a person
   * approves from */
  g_print ("%s  %s\n", one_line (call, "id", &id), one_line (call, "name", &name));
  /* Translators: a waiting tool call: its conversation, agent and when it was proposed */
  g_print (_("  in %s, by agent %s, since %s\n"), one_line (call, "conversationSlug", &slug),
           one_line (call, "agentId", &agent), one_line (call, "createdAt", &created));
  g_print ("  %s\n", text);
}

static int
run_list (PrsCtl   *ctl,
          guint     port,
          gboolean  json)
{
  PrsCtlApi api = { 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) answer = NULL;
  JsonArray *calls;
  guint status = 0;
  int result = 0;

  if (!prs_ctl_api_open (ctl, &api, port, TRUE))
    {
      prs_ctl_api_clear (&api);
      return PRS_CTL_EXIT_NEGATIVE;
    }
  if (!prs_ctl_api_call (&api, SOUP_METHOD_GET, "/api/tool-calls?status=proposed", NULL, &status, &answer, &error) ||
      status != SOUP_STATUS_OK ||
      (calls = prs_json_object_get_array (answer, "toolCalls")) == NULL)
    {
      g_autofree char *why = prs_ctl_api_describe_refusal (status, answer, error);

      g_printerr ("%s\n", why);
      result = PRS_CTL_EXIT_NEGATIVE;
    }
  else if (json)
    {
      g_autoptr(JsonNode) node = json_node_init_array (json_node_alloc (), calls);

      prs_ctl_print_json (node);
    }
  else if (json_array_get_length (calls) == 0)
    g_print (_("No tool call waits for approval.\n"));
  else
    for (guint i = 0; i < json_array_get_length (calls); i++)
      print_call (json_array_get_object_element (calls, i));
  prs_ctl_api_clear (&api);
  return result;
}

/* A refused decision in the user's words */
static void
say_refused (const char *call_id,
             guint       status,
             JsonObject *answer,
             GError     *error)
{
  g_autofree char *why = NULL;

  if (error == NULL && status == SOUP_STATUS_CONFLICT)
    g_printerr (_("The call %s was already decided; nothing changed.\n"), call_id);
  else if (error == NULL && status == SOUP_STATUS_NOT_FOUND)
    g_printerr (_("There is no tool call %s; “prosponsive-ctl approvals” lists the calls that wait.\n"), call_id);
  else
    {
      why = prs_ctl_api_describe_refusal (status, answer, error);
      g_printerr ("%s\n", why);
    }
}

int
prs_ctl_decide (PrsCtl     *ctl,
                guint       port,
                const char *call_id,
                gboolean    approve)
{
  PrsCtlApi api = { 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) answer = NULL;
  g_autofree char *escaped = g_uri_escape_string (call_id, NULL, FALSE);
  g_autofree char *path = g_strconcat ("/api/tool-calls/", escaped, "/decision", NULL);
  JsonObject *body;
  guint status = 0;
  int result = 0;

  if (!prs_ctl_api_open (ctl, &api, port, TRUE))
    {
      prs_ctl_api_clear (&api);
      return PRS_CTL_EXIT_NEGATIVE;
    }
  body = json_object_new ();
  json_object_set_string_member (body, "decision", approve ? "approve" : "deny");
  if (!prs_ctl_api_call (&api, SOUP_METHOD_POST, path, body, &status, &answer, &error) ||
      status != SOUP_STATUS_OK)
    {
      say_refused (call_id, status, answer, error);
      result = PRS_CTL_EXIT_NEGATIVE;
    }
  else
    g_print (approve ? _("Approved the call %s.\n") : _("Denied the call %s.\n"), call_id);
  prs_ctl_api_clear (&api);
  return result;
}

int
prs_ctl_cmd_approvals (PrsCtl  *ctl,
                       int      argc,
                       char   **argv)
{
  int port = 0;
  gboolean json = FALSE;
  GOptionEntry entries[] = {
    { "port", 0, 0, G_OPTION_ARG_INT, &port, N_("The local API's port (default: the one the running Prosponsive published, else the one in the settings)"), N_("PORT") },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("approvals: print JSON"), NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context =
    g_option_context_new (_("approvals | approve CALL | deny CALL — the tool calls that wait for a person"));
  g_autoptr(GError) error = NULL;
  gboolean list = g_str_equal (argv[0], "approvals");

  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return prs_ctl_usage_error (context, error->message);
  if (port < 0 || port > 65535)
    return prs_ctl_usage_error (context, _("--port must be between 1 and 65535."));
  if (list && argc == 1)
    return run_list (ctl, (guint) port, json);
  if (!list && argc == 2 && !json)
    return prs_ctl_decide (ctl, (guint) port, argv[1], g_str_equal (argv[0], "approve"));
  return prs_ctl_usage_error (context, _("Use “approvals [--json]”, “approve CALL” or “deny CALL”."));
}
