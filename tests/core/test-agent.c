/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Tests for prs-agent.c and the store's agents (prs-store-agents.c). */
#include <string.h>

#include "prs-agent.h"
#include "prs-error.h"
#include "prs-json.h"
#include "prs-store.h"
#include "prs-test-util.h"

typedef struct
{
  char     *dir;
  PrsStore *store;
} Fixture;

static void
fixture_setup (Fixture       *fixture,
               gconstpointer  user_data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *db = NULL;

  fixture->dir = g_dir_make_tmp ("prs-test-agent-XXXXXX", &error);
  g_assert_no_error (error);
  db = g_build_filename (fixture->dir, "prosponsive.db", NULL);
  fixture->store = prs_store_new_for_path (db, &error);
  g_assert_no_error (error);
}

static void
fixture_teardown (Fixture       *fixture,
                  gconstpointer  user_data)
{
  g_assert_finalize_object (fixture->store);
  prs_test_remove_tree (fixture->dir);
  g_free (fixture->dir);
}

static void
test_ids (void)
{
  g_autofree char *made = prs_agent_make_id ("Executive Assistant — Zürich!");
  g_autofree char *nothing = prs_agent_make_id ("!!!");
  g_autofree char *long_id = NULL;
  g_autoptr(GString) long_name = g_string_new (NULL);

  g_assert_true (prs_agent_id_is_valid ("prosponsive"));
  g_assert_true (prs_agent_id_is_valid ("a"));
  g_assert_true (prs_agent_id_is_valid ("executive-assistant-email-agent"));
  g_assert_true (prs_agent_id_is_valid ("0-a"));
  g_assert_false (prs_agent_id_is_valid (NULL));
  g_assert_false (prs_agent_id_is_valid (""));
  g_assert_false (prs_agent_id_is_valid ("-a"));
  g_assert_false (prs_agent_id_is_valid ("A"));
  g_assert_false (prs_agent_id_is_valid ("a_b"));
  g_assert_false (prs_agent_id_is_valid ("a b"));
  g_assert_false (prs_agent_id_is_valid ("é"));
  g_assert_true (prs_agent_id_is_valid ("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"));
  g_assert_false (prs_agent_id_is_valid ("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"));

  g_assert_cmpstr (made, ==, "executive-assistant-zurich");
  g_assert_cmpstr (nothing, ==, "agent");
  for (guint i = 0; i < 30; i++)
    g_string_append (long_name, "word ");
  long_id = prs_agent_make_id (long_name->str);
  g_assert_true (prs_agent_id_is_valid (long_id));
}

static PrsAgent *
make_agent (const char *id)
{
  PrsAgent *agent = prs_agent_new (id, "Mail Agent");
  g_autoptr(JsonNode) value = json_from_string ("[1,{\"a\":null}]", NULL);
  PrsToolGuidance *tool;

  g_free (agent->description);
  agent->description = g_strdup ("Triage");
  g_free (agent->system_prompt);
  agent->system_prompt = g_strdup ("Be brief.");
  agent->allowed_tools = g_strdupv ((char *[]) { (char *) "email_move_to_folder", NULL });
  tool = prs_guidance_ensure_tool (agent->guidance, "email_move_to_folder");
  prs_tool_guidance_set_param (tool, prs_param_guidance_new_context ("uid", "uid", PRS_GUIDANCE_IF_MISSING_ASK));
  prs_tool_guidance_set_param (tool, prs_param_guidance_new_constant ("flags", value));
  json_object_set_string_member (agent->extra, "color", "blue");
  return agent;
}

static void
test_default_agent (Fixture       *fixture,
                    gconstpointer  user_data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) agents = prs_store_list_agents (fixture->store, &error);
  g_autoptr(PrsAgent) agent = NULL;

  g_assert_no_error (error);
  g_assert_cmpuint (agents->len, ==, 1);
  agent = prs_store_lookup_agent (fixture->store, PRS_AGENT_DEFAULT_ID, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (agent->name, ==, "Prosponsive");
  g_assert_null (agent->allowed_tools);
  g_assert_cmpuint (agent->guidance->len, ==, 0);
  g_assert_nonnull (agent->created_at);

  g_assert_false (prs_store_delete_agent (fixture->store, PRS_AGENT_DEFAULT_ID, &error));
  g_assert_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT);
  g_assert_nonnull (strstr (error->message, "cannot be deleted"));
  g_clear_error (&error);

  g_clear_pointer (&agent, prs_agent_free);
  agent = prs_store_lookup_agent (fixture->store, "nobody", &error);
  g_assert_null (agent);
  g_assert_error (error, PRS_ERROR, PRS_ERROR_NOT_FOUND);
}

static void
test_save_and_lookup (Fixture       *fixture,
                      gconstpointer  user_data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsAgent) agent = make_agent ("mail");
  g_autoptr(PrsAgent) back = NULL;
  g_autoptr(PrsAgent) updated = NULL;
  g_autoptr(GPtrArray) agents = NULL;
  g_autoptr(JsonNode) a = NULL;
  g_autoptr(JsonNode) b = NULL;
  g_autofree char *a_text = NULL;
  g_autofree char *b_text = NULL;
  g_autofree char *created = NULL;
  PrsAgent *zeta;

  g_assert_true (prs_store_save_agent (fixture->store, agent, NULL, &error));
  g_assert_no_error (error);
  back = prs_store_lookup_agent (fixture->store, "mail", &error);
  g_assert_no_error (error);

  a = prs_agent_to_json (agent);
  b = prs_agent_to_json (back);
  json_object_remove_member (json_node_get_object (b), "createdAt");
  json_object_remove_member (json_node_get_object (b), "updatedAt");
  a_text = prs_json_to_string (a, FALSE);
  b_text = prs_json_to_string (b, FALSE);
  g_assert_cmpstr (b_text, ==, a_text);

  /* Updating keeps the creation time. */
  created = g_strdup (back->created_at);
  g_free (back->name);
  back->name = g_strdup ("Renamed");
  g_clear_pointer (&back->allowed_tools, g_strfreev);
  g_assert_true (prs_store_save_agent (fixture->store, back, NULL, &error));
  updated = prs_store_lookup_agent (fixture->store, "mail", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (updated->name, ==, "Renamed");
  g_assert_null (updated->allowed_tools);
  g_assert_cmpstr (updated->created_at, ==, created);

  zeta = make_agent ("zeta");
  g_free (zeta->name);
  zeta->name = g_strdup ("Alpha");
  g_assert_true (prs_store_save_agent (fixture->store, zeta, NULL, &error));
  prs_agent_free (zeta);

  /* The default first, then by name. */
  agents = prs_store_list_agents (fixture->store, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (agents->len, ==, 3);
  g_assert_cmpstr (((PrsAgent *) g_ptr_array_index (agents, 0))->id, ==, "prosponsive");
  g_assert_cmpstr (((PrsAgent *) g_ptr_array_index (agents, 1))->id, ==, "zeta");
  g_assert_cmpstr (((PrsAgent *) g_ptr_array_index (agents, 2))->id, ==, "mail");
}

static void
test_invalid (Fixture       *fixture,
              gconstpointer  user_data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsAgent) bad_id = make_agent ("Bad Id");
  g_autoptr(PrsAgent) no_name = make_agent ("ok");

  g_assert_false (prs_store_save_agent (fixture->store, bad_id, NULL, &error));
  g_assert_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT);
  g_clear_error (&error);

  g_free (no_name->name);
  no_name->name = g_strdup ("  ");
  g_assert_false (prs_store_save_agent (fixture->store, no_name, NULL, &error));
  g_assert_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT);
}

static void
test_rename_and_delete (Fixture       *fixture,
                        gconstpointer  user_data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsAgent) agent = make_agent ("mail");
  g_autoptr(PrsAgent) other = make_agent ("other");
  g_autoptr(PrsAgent) gone = NULL;
  g_autoptr(PrsAgent) def = NULL;
  g_autoptr(JsonArray) conversations = NULL;
  g_autofree char *conversation = NULL;

  g_assert_true (prs_store_save_agent (fixture->store, agent, NULL, &error));
  g_assert_true (prs_store_save_agent (fixture->store, other, NULL, &error));
  g_assert_true (prs_store_resolve_conversation (fixture->store, "inbox", &conversation, NULL, &error));
  g_assert_true (prs_store_set_conversation_default_agent (fixture->store, conversation, "mail", &error));
  g_assert_no_error (error);

  /* Renaming onto a taken id fails and changes nothing. */
  g_free (agent->id);
  agent->id = g_strdup ("other");
  g_assert_false (prs_store_save_agent (fixture->store, agent, "mail", &error));
  g_assert_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT);
  g_clear_error (&error);

  g_free (agent->id);
  agent->id = g_strdup ("mail-2");
  g_assert_true (prs_store_save_agent (fixture->store, agent, "mail", &error));
  g_assert_no_error (error);
  gone = prs_store_lookup_agent (fixture->store, "mail", &error);
  g_assert_null (gone);
  g_clear_error (&error);
  conversations = prs_store_list_conversations (fixture->store, &error);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (conversations, 0), "defaultAgent"),
                   ==, "mail-2");
  g_clear_pointer (&conversations, json_array_unref);

  def = prs_store_lookup_agent (fixture->store, "prosponsive", &error);
  g_free (def->id);
  def->id = g_strdup ("renamed-default");
  g_assert_false (prs_store_save_agent (fixture->store, def, "prosponsive", &error));
  g_assert_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT);
  g_clear_error (&error);

  g_assert_true (prs_store_delete_agent (fixture->store, "mail-2", &error));
  g_assert_no_error (error);
  conversations = prs_store_list_conversations (fixture->store, &error);
  g_assert_true (json_object_get_null_member (json_array_get_object_element (conversations, 0), "defaultAgent"));
  g_assert_false (prs_store_delete_agent (fixture->store, "mail-2", &error));
  g_assert_error (error, PRS_ERROR, PRS_ERROR_NOT_FOUND);
}

static void
test_duplicate (Fixture       *fixture,
                gconstpointer  user_data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsAgent) agent = make_agent ("mail");
  g_autoptr(PrsAgent) copy = NULL;
  g_autoptr(PrsAgent) long_agent = make_agent ("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;
  g_autofree char *third = NULL;
  g_autofree char *long_copy = NULL;
  g_autofree char *long_copy2 = NULL;
  g_autofree char *default_copy = NULL;

  g_assert_true (prs_store_save_agent (fixture->store, agent, NULL, &error));
  first = prs_store_duplicate_agent (fixture->store, "mail", &error);
  second = prs_store_duplicate_agent (fixture->store, "mail", &error);
  third = prs_store_duplicate_agent (fixture->store, "mail", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (first, ==, "mail-copy");
  g_assert_cmpstr (second, ==, "mail-copy-2");
  g_assert_cmpstr (third, ==, "mail-copy-3");

  copy = prs_store_lookup_agent (fixture->store, "mail-copy", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (copy->name, ==, "Mail Agent (copy)");
  g_assert_cmpstr (copy->system_prompt, ==, "Be brief.");
  g_assert_cmpuint (copy->guidance->len, ==, 1);
  g_assert_cmpstr (json_object_get_string_member (copy->extra, "color"), ==, "blue");

  g_assert_true (prs_store_save_agent (fixture->store, long_agent, NULL, &error));
  long_copy = prs_store_duplicate_agent (fixture->store, long_agent->id, &error);
  long_copy2 = prs_store_duplicate_agent (fixture->store, long_agent->id, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (strlen (long_copy), ==, 64);
  g_assert_true (g_str_has_suffix (long_copy, "-copy"));
  g_assert_true (g_str_has_suffix (long_copy2, "-copy-2"));
  g_assert_true (prs_agent_id_is_valid (long_copy2));

  default_copy = prs_store_duplicate_agent (fixture->store, "prosponsive", &error);
  g_assert_cmpstr (default_copy, ==, "prosponsive-copy");

  g_assert_null (prs_store_duplicate_agent (fixture->store, "nobody", &error));
  g_assert_error (error, PRS_ERROR, PRS_ERROR_NOT_FOUND);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/prs/agent/ids", test_ids);
  g_test_add ("/prs/agent/store/default", Fixture, NULL, fixture_setup, test_default_agent, fixture_teardown);
  g_test_add ("/prs/agent/store/save-and-lookup", Fixture, NULL, fixture_setup, test_save_and_lookup, fixture_teardown);
  g_test_add ("/prs/agent/store/invalid", Fixture, NULL, fixture_setup, test_invalid, fixture_teardown);
  g_test_add ("/prs/agent/store/rename-and-delete", Fixture, NULL, fixture_setup, test_rename_and_delete, fixture_teardown);
  g_test_add ("/prs/agent/store/duplicate", Fixture, NULL, fixture_setup, test_duplicate, fixture_teardown);

  return g_test_run ();
}
