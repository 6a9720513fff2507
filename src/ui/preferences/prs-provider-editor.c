/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-provider-editor.c: one AI provider's form. "Test" asks the provider
 * for its model list with exactly what was entered, so a wrong key or URL
 * shows the provider's own reason before anything is saved, and the model
 * is then picked from that list. */
#include "config.h"

#include <string.h>
#include <glib/gi18n.h>

#include "prs-error.h"
#include "prs-provider-editor.h"

static const char * const kinds[] = { "openai", "ollama", "anthropic", "gemini", NULL };

struct _PrsProviderEditor
{
  AdwBin          parent_instance;

  PrsService     *service;
  char           *editing_id;      /* NULL for a new provider */
  int             editing_priority;
  gboolean        editing_enabled;
  char           *previous_kind;
  GCancellable   *cancellable;
  gboolean        tested_ok;

  AdwComboRow    *kind_row;
  AdwEntryRow    *name_row;
  AdwEntryRow    *url_row;
  AdwEntryRow    *key_row;
  AdwComboRow    *model_row;
  GtkStringList  *models;
  AdwActionRow   *test_row;
  GtkButton      *test_button;
  GtkSpinner     *test_spinner;
  GtkImage       *test_icon;
};

G_DEFINE_FINAL_TYPE (PrsProviderEditor, prs_provider_editor, ADW_TYPE_BIN)

enum
{
  SIGNAL_TESTED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static const char *
selected_kind (PrsProviderEditor *self)
{
  guint i = adw_combo_row_get_selected (self->kind_row);

  return i < G_N_ELEMENTS (kinds) - 1 ? kinds[i] : kinds[0];
}

static char *
entry_text (AdwEntryRow *row)
{
  return g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (row))));
}

static void
set_test_state (PrsProviderEditor *self,
                const char        *state,     /* "idle", "running", "ok", "error" */
                const char        *message)
{
  gboolean running = g_str_equal (state, "running");

  gtk_spinner_set_spinning (self->test_spinner, running);
  gtk_widget_set_visible (GTK_WIDGET (self->test_spinner), running);
  gtk_widget_set_sensitive (GTK_WIDGET (self->test_button), !running);
  gtk_widget_set_visible (GTK_WIDGET (self->test_icon), g_str_equal (state, "ok") || g_str_equal (state, "error"));
  gtk_widget_remove_css_class (GTK_WIDGET (self->test_icon), "success");
  gtk_widget_remove_css_class (GTK_WIDGET (self->test_icon), "error");
  if (g_str_equal (state, "ok"))
    {
      gtk_image_set_from_icon_name (self->test_icon, "emblem-ok-symbolic");
      gtk_widget_add_css_class (GTK_WIDGET (self->test_icon), "success");
    }
  else if (g_str_equal (state, "error"))
    {
      gtk_image_set_from_icon_name (self->test_icon, "dialog-error-symbolic");
      gtk_widget_add_css_class (GTK_WIDGET (self->test_icon), "error");
    }
  adw_action_row_set_subtitle (self->test_row, message != NULL ? message : "");
}

static void
invalidate_test (PrsProviderEditor *self)
{
  if (self->tested_ok)
    {
      self->tested_ok = FALSE;
      set_test_state (self, "idle", _("Test again to check the changed settings"));
    }
}

static void
on_field_changed (GtkEditable       *editable,
                  PrsProviderEditor *self)
{
  invalidate_test (self);
}

static void
on_kind_changed (AdwComboRow       *row,
                 GParamSpec        *pspec,
                 PrsProviderEditor *self)
{
  const char *kind = selected_kind (self);
  g_autofree char *url = entry_text (self->url_row);
  g_autofree char *name = entry_text (self->name_row);
  const char *old_default = self->previous_kind != NULL ? prs_provider_kind_default_base_url (self->previous_kind) : NULL;
  const char *old_label = self->previous_kind != NULL ? prs_provider_kind_get_label (self->previous_kind) : NULL;

  /* Follow the kind while the user has not typed their own values. */
  if (url[0] == '\0' || g_strcmp0 (url, old_default) == 0)
    gtk_editable_set_text (GTK_EDITABLE (self->url_row), prs_provider_kind_default_base_url (kind));
  if (name[0] == '\0' || g_strcmp0 (name, old_label) == 0)
    gtk_editable_set_text (GTK_EDITABLE (self->name_row), prs_provider_kind_get_label (kind));

  g_free (self->previous_kind);
  self->previous_kind = g_strdup (kind);
  invalidate_test (self);
}

static void
set_models (PrsProviderEditor *self,
            GPtrArray         *models,      /* PrsModelInfo*, may be NULL */
            const char        *keep)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->models));
  guint select = GTK_INVALID_LIST_POSITION;
  g_autoptr(GPtrArray) ids = g_ptr_array_new ();

  for (guint i = 0; models != NULL && i < models->len; i++)
    {
      PrsModelInfo *info = g_ptr_array_index (models, i);

      g_ptr_array_add (ids, info->id);
      if (g_strcmp0 (info->id, keep) == 0)
        select = i;
    }
  if (models == NULL && keep != NULL && keep[0] != '\0')
    {
      g_ptr_array_add (ids, (char *) keep);
      select = 0;
    }
  g_ptr_array_add (ids, NULL);

  gtk_string_list_splice (self->models, 0, n, (const char * const *) ids->pdata);
  if (select == GTK_INVALID_LIST_POSITION && ids->len > 1)
    select = 0;
  adw_combo_row_set_selected (self->model_row, select);
  gtk_widget_set_sensitive (GTK_WIDGET (self->model_row), ids->len > 1);
}

static char *
selected_model (PrsProviderEditor *self)
{
  GtkStringObject *item = adw_combo_row_get_selected_item (self->model_row);

  return item != NULL ? g_strdup (gtk_string_object_get_string (item)) : NULL;
}

static void
on_models (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  PrsProviderEditor *self;
  g_autoptr(GPtrArray) models = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *message = NULL;
  g_autofree char *keep = NULL;

  models = prs_provider_list_models_finish (PRS_PROVIDER (source), result, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  self = PRS_PROVIDER_EDITOR (user_data);

  if (models == NULL)
    {
      self->tested_ok = FALSE;
      set_test_state (self, "error", error->message);
      g_signal_emit (self, signals[SIGNAL_TESTED], 0, FALSE, error->message);
      return;
    }

  keep = selected_model (self);
  set_models (self, models, keep);
  self->tested_ok = TRUE;
  message = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "Connected: %u model available",
                                          "Connected: %u models available", models->len),
                             models->len);
  set_test_state (self, "ok", message);
  g_signal_emit (self, signals[SIGNAL_TESTED], 0, TRUE, message);
}

/* Asks the provider for its models with the entered values and @key */
static void
test_with_key (PrsProviderEditor *self,
               char              *key)
{
  g_autoptr(PrsProvider) provider = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *url = entry_text (self->url_row);

  provider = prs_provider_new (selected_kind (self), url, NULL, key, &error);
  if (key != NULL)
    memset (key, 0, strlen (key));
  if (provider == NULL)
    {
      self->tested_ok = FALSE;
      set_test_state (self, "error", error->message);
      g_signal_emit (self, signals[SIGNAL_TESTED], 0, FALSE, error->message);
      return;
    }

  prs_provider_set_timeout (provider, 30);
  set_test_state (self, "running", _("Asking the provider for its models…"));
  /* The callback only touches the editor when not cancelled (dispose
   * cancels), so no reference is held. */
  prs_provider_list_models_async (provider, self->cancellable, on_models, self);
}

static void
on_stored_key (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  PrsProviderEditor *self;
  g_autoptr(GError) error = NULL;
  g_autofree char *key = prs_secrets_lookup_finish (PRS_SECRETS (source), result, &error);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  self = PRS_PROVIDER_EDITOR (user_data);
  test_with_key (self, key);
}

void
prs_provider_editor_test (PrsProviderEditor *self)
{
  g_autofree char *typed = NULL;
  PrsProviders *providers;

  g_return_if_fail (PRS_IS_PROVIDER_EDITOR (self));

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->cancellable = g_cancellable_new ();

  /* The key typed in, else the stored one of the provider being edited,
   * read without waiting on the keyring */
  typed = entry_text (self->key_row);
  providers = prs_service_get_providers (self->service);
  if (typed[0] != '\0' || self->editing_id == NULL || providers == NULL)
    {
      test_with_key (self, typed);
      return;
    }
  set_test_state (self, "running", _("Reading the keyring…"));
  prs_providers_dup_key_async (providers, self->editing_id, self->cancellable, on_stored_key, self);
}

gboolean
prs_provider_editor_get_tested_ok (PrsProviderEditor *self)
{
  g_return_val_if_fail (PRS_IS_PROVIDER_EDITOR (self), FALSE);

  return self->tested_ok;
}

static void
on_test_clicked (GtkButton         *button,
                 PrsProviderEditor *self)
{
  prs_provider_editor_test (self);
}

void
prs_provider_editor_load (PrsProviderEditor    *self,
                          const PrsProviderRow *row)
{
  guint kind_index = 0;

  g_return_if_fail (PRS_IS_PROVIDER_EDITOR (self));

  g_cancellable_cancel (self->cancellable);
  g_clear_pointer (&self->editing_id, g_free);
  self->editing_priority = -1;
  self->editing_enabled = TRUE;
  g_clear_pointer (&self->previous_kind, g_free);

  if (row != NULL)
    {
      self->editing_id = g_strdup (row->id);
      self->editing_priority = row->priority;
      self->editing_enabled = row->enabled;
      for (guint i = 0; kinds[i] != NULL; i++)
        if (g_strcmp0 (kinds[i], row->kind) == 0)
          kind_index = i;
    }

  /* Set the kind first: its handler fills in defaults, overwritten below. */
  g_signal_handlers_block_by_func (self->kind_row, on_kind_changed, self);
  adw_combo_row_set_selected (self->kind_row, kind_index);
  g_signal_handlers_unblock_by_func (self->kind_row, on_kind_changed, self);
  self->previous_kind = g_strdup (kinds[kind_index]);

  gtk_editable_set_text (GTK_EDITABLE (self->name_row),
                         row != NULL ? row->name : prs_provider_kind_get_label (kinds[kind_index]));
  gtk_editable_set_text (GTK_EDITABLE (self->url_row),
                         row != NULL && row->base_url != NULL ? row->base_url
                                                              : prs_provider_kind_default_base_url (kinds[kind_index]));
  gtk_editable_set_text (GTK_EDITABLE (self->key_row), "");
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->key_row),
                                 row != NULL ? _("API Key (leave empty to keep the stored one)") : _("API Key"));
  set_models (self, NULL, row != NULL ? row->model : NULL);
  self->tested_ok = FALSE;
  set_test_state (self, "idle", _("Checks the URL and key, and loads the provider’s models"));
}

static void
on_saved (GObject      *source,
          GAsyncResult *result,
          gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  PrsProviderEditor *self = g_task_get_source_object (task);
  GError *error = NULL;
  char *id = prs_providers_write_finish (PRS_PROVIDERS (source), result, &error);

  if (id == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  gtk_editable_set_text (GTK_EDITABLE (self->key_row), "");
  g_task_return_pointer (task, id, g_free);
}

/* What Save stores is complete: a name, a model, a key when one is needed */
static gboolean
check_form (PrsProviderEditor  *self,
            const char         *kind,
            const char         *name,
            const char         *key,
            const char         *model,
            GError            **error)
{
  if (name[0] == '\0')
    {
      g_set_error_literal (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT, _("Enter a name for the provider."));
      return FALSE;
    }
  if (model == NULL || model[0] == '\0')
    {
      g_set_error_literal (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                           _("Pick a model: press Test to load the provider’s list of models."));
      return FALSE;
    }
  if (self->editing_id == NULL && key[0] == '\0' && prs_provider_kind_needs_key (kind))
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                   _("%s needs an API key."), prs_provider_kind_get_label (kind));
      return FALSE;
    }
  return TRUE;
}

void
prs_provider_editor_save_async (PrsProviderEditor   *self,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  PrsProviders *providers;
  g_autofree char *name = NULL;
  g_autofree char *url = NULL;
  g_autofree char *key = NULL;
  g_autofree char *model = NULL;
  const char *kind;
  GError *error = NULL;

  g_return_if_fail (PRS_IS_PROVIDER_EDITOR (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, prs_provider_editor_save_async);
  providers = prs_service_get_providers (self->service);
  g_return_if_fail (providers != NULL);

  kind = selected_kind (self);
  name = entry_text (self->name_row);
  url = entry_text (self->url_row);
  key = entry_text (self->key_row);
  model = selected_model (self);

  if (!check_form (self, kind, name, key, model, &error))
    g_task_return_error (task, error);
  else if (self->editing_id == NULL)
    prs_providers_add_async (providers, kind, name, url, model, -1, key, cancellable,
                             on_saved, g_steal_pointer (&task));
  else
    {
      PrsProviderRow row = { 0 };

      row.id = self->editing_id;
      row.name = name;
      row.kind = (char *) kind;
      row.base_url = url;
      row.model = model;
      row.enabled = self->editing_enabled;
      row.priority = self->editing_priority;
      prs_providers_update_async (providers, &row, key, cancellable, on_saved, g_steal_pointer (&task));
    }
  memset (key, 0, strlen (key));
}

char *
prs_provider_editor_save_finish (PrsProviderEditor  *self,
                                 GAsyncResult       *result,
                                 GError            **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* ---- life ---- */

static void
prs_provider_editor_dispose (GObject *object)
{
  PrsProviderEditor *self = PRS_PROVIDER_EDITOR (object);

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->service);

  G_OBJECT_CLASS (prs_provider_editor_parent_class)->dispose (object);
}

static void
prs_provider_editor_finalize (GObject *object)
{
  PrsProviderEditor *self = PRS_PROVIDER_EDITOR (object);

  g_free (self->editing_id);
  g_free (self->previous_kind);

  G_OBJECT_CLASS (prs_provider_editor_parent_class)->finalize (object);
}

static void
prs_provider_editor_class_init (PrsProviderEditorClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = prs_provider_editor_dispose;
  object_class->finalize = prs_provider_editor_finalize;

  /**
   * PrsProviderEditor::tested:
   * @ok: whether the provider answered
   * @message: what the form shows (the provider's reason on failure)
   */
  signals[SIGNAL_TESTED] =
    g_signal_new ("tested", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2, G_TYPE_BOOLEAN, G_TYPE_STRING);
}

static GtkWidget *
entry_row (const char *title,
           const char *name,
           gboolean    password)
{
  GtkWidget *row = password ? adw_password_entry_row_new () : adw_entry_row_new ();

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  gtk_widget_set_name (row, name);
  return row;
}

static void
prs_provider_editor_init (PrsProviderEditor *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 24);
  GtkWidget *group = adw_preferences_group_new ();
  GtkWidget *model_group = adw_preferences_group_new ();
  g_autoptr(GtkStringList) kind_labels = gtk_string_list_new (NULL);
  GtkWidget *suffix;

  self->editing_priority = -1;
  self->editing_enabled = TRUE;

  for (guint i = 0; kinds[i] != NULL; i++)
    gtk_string_list_append (kind_labels, prs_provider_kind_get_label (kinds[i]));

  self->kind_row = ADW_COMBO_ROW (adw_combo_row_new ());
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->kind_row), _("Kind"));
  adw_action_row_set_subtitle (ADW_ACTION_ROW (self->kind_row),
                               _("OpenAI-compatible covers OpenAI, Groq, Mistral, OpenRouter, LM Studio, vLLM and llama.cpp"));
  adw_combo_row_set_model (self->kind_row, G_LIST_MODEL (kind_labels));
  gtk_widget_set_name (GTK_WIDGET (self->kind_row), "provider-kind");
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), GTK_WIDGET (self->kind_row));

  self->name_row = ADW_ENTRY_ROW (entry_row (_("Name"), "provider-name", FALSE));
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), GTK_WIDGET (self->name_row));
  self->url_row = ADW_ENTRY_ROW (entry_row (_("Base URL"), "provider-url", FALSE));
  adw_entry_row_set_input_purpose (self->url_row, GTK_INPUT_PURPOSE_URL);
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), GTK_WIDGET (self->url_row));
  self->key_row = ADW_ENTRY_ROW (entry_row (_("API Key"), "provider-key", TRUE));
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), GTK_WIDGET (self->key_row));
  adw_preferences_group_set_description (ADW_PREFERENCES_GROUP (group),
                                         _("The key is kept in the keyring, never in Prosponsive’s files."));

  adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (model_group), _("Model"));
  self->test_row = ADW_ACTION_ROW (adw_action_row_new ());
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->test_row), _("Connection"));
  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (self->test_row), FALSE);
  gtk_widget_set_name (GTK_WIDGET (self->test_row), "provider-test-result");
  self->test_icon = GTK_IMAGE (gtk_image_new ());
  adw_action_row_add_prefix (self->test_row, GTK_WIDGET (self->test_icon));
  self->test_spinner = GTK_SPINNER (gtk_spinner_new ());
  adw_action_row_add_suffix (self->test_row, GTK_WIDGET (self->test_spinner));
  suffix = gtk_button_new_with_mnemonic (_("_Test"));
  gtk_widget_set_valign (suffix, GTK_ALIGN_CENTER);
  gtk_widget_set_name (suffix, "provider-test");
  self->test_button = GTK_BUTTON (suffix);
  g_signal_connect (suffix, "clicked", G_CALLBACK (on_test_clicked), self);
  adw_action_row_add_suffix (self->test_row, suffix);
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (model_group), GTK_WIDGET (self->test_row));

  self->models = gtk_string_list_new (NULL);
  self->model_row = ADW_COMBO_ROW (adw_combo_row_new ());
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->model_row), _("Model"));
  adw_combo_row_set_model (self->model_row, G_LIST_MODEL (self->models));
  g_object_unref (self->models);   /* the row holds it */
  gtk_widget_set_name (GTK_WIDGET (self->model_row), "provider-model");
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (model_group), GTK_WIDGET (self->model_row));

  gtk_box_append (GTK_BOX (box), group);
  gtk_box_append (GTK_BOX (box), model_group);
  adw_bin_set_child (ADW_BIN (self), box);

  g_signal_connect (self->kind_row, "notify::selected", G_CALLBACK (on_kind_changed), self);
  g_signal_connect (self->url_row, "changed", G_CALLBACK (on_field_changed), self);
  g_signal_connect (self->key_row, "changed", G_CALLBACK (on_field_changed), self);

  prs_provider_editor_load (self, NULL);
}

GtkWidget *
prs_provider_editor_new (PrsService *service)
{
  PrsProviderEditor *self;

  g_return_val_if_fail (PRS_IS_SERVICE (service), NULL);

  self = g_object_new (PRS_TYPE_PROVIDER_EDITOR, NULL);
  self->service = g_object_ref (service);
  return GTK_WIDGET (self);
}
