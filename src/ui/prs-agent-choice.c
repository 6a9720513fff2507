/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-agent-choice.c: the Agent submenu of the conversation menu. A
 * stateful action whose state is the conversation's agent id (the default
 * agent's when it has none, the one its composer offers and a run takes:
 * docs/conversations.md#its-agent), so the menu shows the current one checked; the list is read
 * again each time the menu opens, since agents come and go on the Agents
 * page and through prosponsive-ctl. */
#include "config.h"

#include <glib/gi18n.h>

#include "prs-agent-choice.h"
#include "prs-thread.h"

struct _PrsAgentChoice
{
  GObject             parent_instance;

  GtkWidget          *window;        /* weak: it owns this object */
  GMenu              *submenu;
  PrsService         *service;
  PrsConversation    *conversation;
  GSimpleActionGroup *group;
  GSimpleAction      *action;
};

G_DEFINE_FINAL_TYPE (PrsAgentChoice, prs_agent_choice, G_TYPE_OBJECT)

static void
update_state (PrsAgentChoice *self)
{
  const char *agent = self->conversation != NULL ? prs_conversation_get_default_agent (self->conversation) : NULL;

  g_simple_action_set_state (self->action, g_variant_new_string (agent != NULL ? agent : PRS_AGENT_DEFAULT_ID));
  g_simple_action_set_enabled (self->action, self->conversation != NULL);
}

static void
on_default_agent (PrsConversation *conversation,
                  GParamSpec      *pspec,
                  PrsAgentChoice  *self)
{
  update_state (self);
}

static void
on_set (GSimpleAction  *action,
        GVariant       *parameter,
        PrsAgentChoice *self)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsAgent) agent = NULL;
  const char *agent_id = g_variant_get_string (parameter, NULL);
  const char *conversation_id;
  g_autofree char *toast = NULL;

  if (self->conversation == NULL ||
      g_strcmp0 (agent_id, prs_conversation_get_default_agent (self->conversation)) == 0)
    return;

  conversation_id = prs_conversation_get_id (self->conversation);
  agent = prs_store_lookup_agent (prs_service_get_store (self->service), agent_id, NULL);
  if (agent == NULL ||
      !prs_store_set_conversation_default_agent (prs_service_get_store (self->service), conversation_id,
                                                 agent_id, &error))
    {
      gtk_widget_activate_action (self->window, "win.show-toast", "s",
                                  error != NULL ? error->message : _("That agent was removed meanwhile."));
      prs_agent_choice_refresh (self);
      return;
    }
  /* The state follows at once; the conversation (and the composer) when
   * the list reads the row again, before the next frame */
  g_simple_action_set_state (action, parameter);
  prs_conversation_list_queue_update (prs_service_get_conversations (self->service), conversation_id);
  /* Translators: %s is an agent's name */
  toast = g_strdup_printf (_("This conversation now answers with “%s”"), agent->name);
  gtk_widget_activate_action (self->window, "win.show-toast", "s", toast);
}

/* A menu label shows "_" as a mnemonic: agent names keep theirs */
static char *
menu_label (const char *name)
{
  g_auto(GStrv) parts = g_strsplit (name, "_", -1);

  return g_strjoinv ("__", parts);
}

void
prs_agent_choice_refresh (PrsAgentChoice *self)
{
  g_autoptr(GPtrArray) agents = NULL;
  g_autoptr(GError) error = NULL;

  g_return_if_fail (PRS_IS_AGENT_CHOICE (self));
  PRS_ASSERT_MAIN_THREAD ();

  agents = prs_store_list_agents (prs_service_get_store (self->service), &error);
  if (agents == NULL)
    {
      g_message ("Could not read the agents: %s", error->message);
      return;
    }
  g_menu_remove_all (self->submenu);
  for (guint i = 0; i < agents->len; i++)
    {
      PrsAgent *agent = g_ptr_array_index (agents, i);
      g_autofree char *label = menu_label (agent->name != NULL && agent->name[0] != '\0' ? agent->name : agent->id);
      g_autoptr(GMenuItem) item = g_menu_item_new (label, NULL);

      g_menu_item_set_action_and_target_value (item, "conversation-agent.set", g_variant_new_string (agent->id));
      g_menu_append_item (self->submenu, item);
    }
  update_state (self);
}

void
prs_agent_choice_set_conversation (PrsAgentChoice  *self,
                                   PrsConversation *conversation)
{
  g_return_if_fail (PRS_IS_AGENT_CHOICE (self));
  PRS_ASSERT_MAIN_THREAD ();

  if (self->conversation == conversation)
    return;
  if (self->conversation != NULL)
    g_signal_handlers_disconnect_by_func (self->conversation, on_default_agent, self);
  g_set_object (&self->conversation, conversation);
  if (conversation != NULL)
    g_signal_connect_object (conversation, "notify::default-agent", G_CALLBACK (on_default_agent), self, 0);
  update_state (self);
}

GActionGroup *
prs_agent_choice_get_action_group (PrsAgentChoice *self)
{
  g_return_val_if_fail (PRS_IS_AGENT_CHOICE (self), NULL);

  return G_ACTION_GROUP (self->group);
}

static void
prs_agent_choice_dispose (GObject *object)
{
  PrsAgentChoice *self = PRS_AGENT_CHOICE (object);

  if (self->conversation != NULL)
    g_signal_handlers_disconnect_by_func (self->conversation, on_default_agent, self);
  g_clear_object (&self->conversation);
  g_clear_object (&self->action);
  g_clear_object (&self->group);
  g_clear_object (&self->submenu);
  g_clear_object (&self->service);
  if (self->window != NULL)
    g_object_remove_weak_pointer (G_OBJECT (self->window), (gpointer *) &self->window);
  self->window = NULL;

  G_OBJECT_CLASS (prs_agent_choice_parent_class)->dispose (object);
}

static void
prs_agent_choice_class_init (PrsAgentChoiceClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = prs_agent_choice_dispose;
}

static void
prs_agent_choice_init (PrsAgentChoice *self)
{
}

PrsAgentChoice *
prs_agent_choice_new (GtkWidget  *window,
                      GMenu      *submenu,
                      PrsService *service)
{
  PrsAgentChoice *self;

  g_return_val_if_fail (GTK_IS_WIDGET (window), NULL);
  g_return_val_if_fail (G_IS_MENU (submenu), NULL);
  g_return_val_if_fail (PRS_IS_SERVICE (service), NULL);
  PRS_ASSERT_MAIN_THREAD ();

  self = g_object_new (PRS_TYPE_AGENT_CHOICE, NULL);
  self->window = window;
  g_object_add_weak_pointer (G_OBJECT (window), (gpointer *) &self->window);
  self->submenu = g_object_ref (submenu);
  self->service = g_object_ref (service);
  self->group = g_simple_action_group_new ();
  self->action = g_simple_action_new_stateful ("set", G_VARIANT_TYPE_STRING, g_variant_new_string (""));
  g_signal_connect_object (self->action, "activate", G_CALLBACK (on_set), self, 0);
  g_action_map_add_action (G_ACTION_MAP (self->group), G_ACTION (self->action));
  gtk_widget_insert_action_group (window, "conversation-agent", G_ACTION_GROUP (self->group));
  prs_agent_choice_refresh (self);
  return self;
}
