/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-settings.c: GSettings behind one object. Each key is a property of the
 * same name, bound both ways with g_settings_bind (), so a change made in
 * Preferences, by `gsettings set` or by another instance reaches every
 * reader through notify and PrsSettings::changed. */
#include "config.h"

#include "prs-settings.h"
#include "prs-thread.h"

typedef enum
{
  KIND_UINT,
  KIND_INT,
  KIND_BOOLEAN,
  KIND_DOUBLE,
  KIND_STRV,
} Kind;

typedef struct
{
  const char *key;
  Kind        kind;
  double      min;
  double      max;
  double      def;
  const char *def_strv;   /* space-separated, for KIND_STRV */
} KeyInfo;

/* The schema's keys and defaults (data/org.prosponsive.App.gschema.xml.in);
 * test-settings checks that both agree. */
static const KeyInfo keys[] = {
  { "discovery-interval",         KIND_UINT,    1,   1440,       15,   NULL },
  { "keep-running-in-background", KIND_BOOLEAN, 0,   1,          1,    NULL },
  { "api-port",                   KIND_UINT,    1,   65535,      3100, NULL },
  { "lan-listening",              KIND_BOOLEAN, 0,   1,          0,    NULL },
  { "allowed-sources",            KIND_STRV,    0,   0,          0,    "" },
  { "allowed-origins",            KIND_STRV,    0,   0,          0,    "" },
  { "open-link-schemes",          KIND_STRV,    0,   0,          0,    "http https mailto message ms-outlook slack" },
  { "max-output-tokens",          KIND_UINT,    16,  1048576,    4096, NULL },
  { "temperature",                KIND_DOUBLE,  0.0, 2.0,        0.7,  NULL },
  { "history-depth",              KIND_UINT,    0,   1000,        0,   NULL },
  { "max-tool-rounds",            KIND_UINT,    1,   100,        8,    NULL },
  { "tool-call-timeout",          KIND_UINT,    5,   3600,       120,  NULL },
  { "callback-timeout",           KIND_UINT,    10,  86400,      600,  NULL },
  { "inference-timeout",          KIND_UINT,    5,   3600,       120,  NULL },
  { "window-width",               KIND_INT,     360, 32767,      1060, NULL },
  { "window-height",              KIND_INT,     294, 32767,      720,  NULL },
  { "window-maximized",           KIND_BOOLEAN, 0,   1,          0,    NULL },
};

#define N_KEYS G_N_ELEMENTS (keys)

enum
{
  PROP_0,
  /* PROP_0 + 1 + index into keys[] */
  N_PROPS = N_KEYS + 1
};

enum
{
  SIGNAL_CHANGED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

struct _PrsSettings
{
  GObject    parent_instance;

  GSettings *settings;     /* NULL without the schema */
  GValue     values[N_KEYS];
};

G_DEFINE_FINAL_TYPE (PrsSettings, prs_settings, G_TYPE_OBJECT)

static int
key_index (const char *key)
{
  for (guint i = 0; i < N_KEYS; i++)
    if (g_str_equal (keys[i].key, key))
      return (int) i;
  return -1;
}

static gboolean
values_equal (const GValue *a,
              const GValue *b)
{
  if (G_VALUE_HOLDS (a, G_TYPE_STRV))
    {
      const char * const *sa = g_value_get_boxed (a);
      const char * const *sb = g_value_get_boxed (b);

      if (sa == NULL || sb == NULL)
        return sa == sb;
      return g_strv_equal (sa, sb);
    }
  if (G_VALUE_HOLDS_DOUBLE (a))
    return g_value_get_double (a) == g_value_get_double (b);
  if (G_VALUE_HOLDS_UINT (a))
    return g_value_get_uint (a) == g_value_get_uint (b);
  if (G_VALUE_HOLDS_INT (a))
    return g_value_get_int (a) == g_value_get_int (b);
  return g_value_get_boolean (a) == g_value_get_boolean (b);
}

static void
prs_settings_get_property (GObject    *object,
                           guint       prop_id,
                           GValue     *value,
                           GParamSpec *pspec)
{
  PrsSettings *self = PRS_SETTINGS (object);

  PRS_ASSERT_MAIN_THREAD ();

  if (prop_id == PROP_0 || prop_id >= N_PROPS)
    {
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      return;
    }
  g_value_copy (&self->values[prop_id - 1], value);
}

static void
prs_settings_set_property (GObject      *object,
                           guint         prop_id,
                           const GValue *value,
                           GParamSpec   *pspec)
{
  PrsSettings *self = PRS_SETTINGS (object);
  GValue *slot;

  PRS_ASSERT_MAIN_THREAD ();

  if (prop_id == PROP_0 || prop_id >= N_PROPS)
    {
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      return;
    }

  slot = &self->values[prop_id - 1];
  if (values_equal (slot, value))
    return;
  g_value_copy (value, slot);
  g_object_notify_by_pspec (object, pspec);
  g_signal_emit (self, signals[SIGNAL_CHANGED], g_quark_from_static_string (keys[prop_id - 1].key),
                 keys[prop_id - 1].key);
}

static void
prs_settings_dispose (GObject *object)
{
  PrsSettings *self = PRS_SETTINGS (object);

  if (self->settings != NULL)
    {
      for (guint i = 0; i < N_KEYS; i++)
        g_settings_unbind (self, keys[i].key);
    }
  g_clear_object (&self->settings);

  G_OBJECT_CLASS (prs_settings_parent_class)->dispose (object);
}

static void
prs_settings_finalize (GObject *object)
{
  PrsSettings *self = PRS_SETTINGS (object);

  for (guint i = 0; i < N_KEYS; i++)
    g_value_unset (&self->values[i]);

  G_OBJECT_CLASS (prs_settings_parent_class)->finalize (object);
}

static void
prs_settings_class_init (PrsSettingsClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = prs_settings_dispose;
  object_class->finalize = prs_settings_finalize;
  object_class->get_property = prs_settings_get_property;
  object_class->set_property = prs_settings_set_property;

  for (guint i = 0; i < N_KEYS; i++)
    {
      const KeyInfo *k = &keys[i];
      GParamFlags flags = G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;

      switch (k->kind)
        {
        case KIND_UINT:
          properties[i + 1] = g_param_spec_uint (k->key, NULL, NULL, (guint) k->min, (guint) k->max,
                                                 (guint) k->def, flags);
          break;
        case KIND_INT:
          properties[i + 1] = g_param_spec_int (k->key, NULL, NULL, (int) k->min, (int) k->max,
                                                (int) k->def, flags);
          break;
        case KIND_BOOLEAN:
          properties[i + 1] = g_param_spec_boolean (k->key, NULL, NULL, k->def != 0, flags);
          break;
        case KIND_DOUBLE:
          properties[i + 1] = g_param_spec_double (k->key, NULL, NULL, k->min, k->max, k->def, flags);
          break;
        case KIND_STRV:
          properties[i + 1] = g_param_spec_boxed (k->key, NULL, NULL, G_TYPE_STRV, flags);
          break;
        default:
          g_assert_not_reached ();
        }
    }
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * PrsSettings::changed:
   * @key: the GSettings key (also the detail)
   *
   * A value changed, in this process or outside it.
   */
  signals[SIGNAL_CHANGED] =
    g_signal_new ("changed", G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST | G_SIGNAL_DETAILED,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
}

static void
prs_settings_init (PrsSettings *self)
{
  for (guint i = 0; i < N_KEYS; i++)
    {
      const KeyInfo *k = &keys[i];
      GValue *v = &self->values[i];

      switch (k->kind)
        {
        case KIND_UINT:
          g_value_init (v, G_TYPE_UINT);
          g_value_set_uint (v, (guint) k->def);
          break;
        case KIND_INT:
          g_value_init (v, G_TYPE_INT);
          g_value_set_int (v, (int) k->def);
          break;
        case KIND_BOOLEAN:
          g_value_init (v, G_TYPE_BOOLEAN);
          g_value_set_boolean (v, k->def != 0);
          break;
        case KIND_DOUBLE:
          g_value_init (v, G_TYPE_DOUBLE);
          g_value_set_double (v, k->def);
          break;
        case KIND_STRV:
          g_value_init (v, G_TYPE_STRV);
          g_value_take_boxed (v, k->def_strv[0] != '\0' ? g_strsplit (k->def_strv, " ", -1)
                                                         : g_new0 (char *, 1));
          break;
        default:
          g_assert_not_reached ();
        }
    }
}

PrsSettings *
prs_settings_new (void)
{
  PrsSettings *self;
  GSettingsSchemaSource *source = g_settings_schema_source_get_default ();
  g_autoptr(GSettingsSchema) schema = NULL;

  /* GSettings delivers changes on the creator's main context: the values
   * here are the main thread's, and so are the "changed" handlers */
  PRS_ASSERT_MAIN_THREAD ();

  self = g_object_new (PRS_TYPE_SETTINGS, NULL);
  if (source != NULL)
    schema = g_settings_schema_source_lookup (source, APP_ID, TRUE);
  if (schema == NULL)
    {
      g_message ("The GSettings schema %s is not installed; settings keep their defaults", APP_ID);
      return self;
    }

  self->settings = g_settings_new (APP_ID);
  for (guint i = 0; i < N_KEYS; i++)
    {
      if (!g_settings_schema_has_key (schema, keys[i].key))
        continue;
      g_settings_bind (self->settings, keys[i].key, self, keys[i].key, G_SETTINGS_BIND_DEFAULT);
    }
  return self;
}

gboolean
prs_settings_is_persistent (PrsSettings *self)
{
  g_return_val_if_fail (PRS_IS_SETTINGS (self), FALSE);
  PRS_ASSERT_MAIN_THREAD ();

  return self->settings != NULL;
}

static const GValue *
lookup (PrsSettings *self,
        const char  *key)
{
  int i = key_index (key);

  /* Every getter comes through here */
  PRS_ASSERT_MAIN_THREAD ();
  g_assert (i >= 0);
  return &self->values[i];
}

#define UINT_GETTER(fn, key)                                    \
  guint fn (PrsSettings *self)                                  \
  {                                                             \
    g_return_val_if_fail (PRS_IS_SETTINGS (self), 0);           \
    return g_value_get_uint (lookup (self, key));               \
  }

#define STRV_GETTER(fn, key)                                    \
  const char * const * fn (PrsSettings *self)                   \
  {                                                             \
    g_return_val_if_fail (PRS_IS_SETTINGS (self), NULL);        \
    return g_value_get_boxed (lookup (self, key));              \
  }

UINT_GETTER (prs_settings_get_discovery_interval, "discovery-interval")
UINT_GETTER (prs_settings_get_api_port, "api-port")
UINT_GETTER (prs_settings_get_max_output_tokens, "max-output-tokens")
UINT_GETTER (prs_settings_get_history_depth, "history-depth")
UINT_GETTER (prs_settings_get_max_tool_rounds, "max-tool-rounds")
UINT_GETTER (prs_settings_get_tool_call_timeout, "tool-call-timeout")
UINT_GETTER (prs_settings_get_callback_timeout, "callback-timeout")
UINT_GETTER (prs_settings_get_inference_timeout, "inference-timeout")
STRV_GETTER (prs_settings_get_allowed_sources, "allowed-sources")
STRV_GETTER (prs_settings_get_allowed_origins, "allowed-origins")
STRV_GETTER (prs_settings_get_open_link_schemes, "open-link-schemes")

gboolean
prs_settings_get_keep_running_in_background (PrsSettings *self)
{
  g_return_val_if_fail (PRS_IS_SETTINGS (self), TRUE);
  return g_value_get_boolean (lookup (self, "keep-running-in-background"));
}

gboolean
prs_settings_get_lan_listening (PrsSettings *self)
{
  g_return_val_if_fail (PRS_IS_SETTINGS (self), FALSE);
  return g_value_get_boolean (lookup (self, "lan-listening"));
}

double
prs_settings_get_temperature (PrsSettings *self)
{
  g_return_val_if_fail (PRS_IS_SETTINGS (self), 0.7);
  return g_value_get_double (lookup (self, "temperature"));
}

void
prs_settings_set_discovery_interval (PrsSettings *self,
                                     guint        minutes)
{
  g_return_if_fail (PRS_IS_SETTINGS (self));
  g_object_set (self, "discovery-interval", CLAMP (minutes, 1, 1440), NULL);
}
