/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-providers-private.h: what the two files of PrsProviders share:
 * prs-providers.c (making providers, failover, model lists, provider-info)
 * and prs-providers-config.c (adding, changing and removing providers, with
 * their keys). */
#pragma once

#include "prs-providers.h"

G_BEGIN_DECLS

typedef struct
{
  gboolean   used;
  GError    *last_error;
  GPtrArray *models;     /* PrsModelInfo*, or NULL when never listed */
} ProviderState;

/* A provider object kept between chats, with what it was made from: its
 * SoupSession keeps the connection to the provider open */
typedef struct
{
  PrsProvider *provider;
  char        *kind;
  char        *base_url;
  char        *model;
  char        *key_digest;   /* SHA-256 of the key, never the key; NULL: none */
  guint        timeout;
} CachedProvider;

struct _PrsProviders
{
  GObject     parent_instance;

  PrsStore   *store;
  PrsSecrets *secrets;
  guint       timeout;
  GHashTable *states;    /* id → ProviderState */
  GHashTable *cached;    /* id → CachedProvider (main thread) */
};

ProviderState  *_prs_providers_get_state   (PrsProviders  *self,
                                            const char    *id);
/* The keyring item's name of a provider's key */
char           *_prs_providers_secret_name (const char    *id);
/* By id or name; PRS_ERROR_NOT_FOUND naming it when there is none */
PrsProviderRow *_prs_providers_lookup      (PrsProviders  *self,
                                            const char    *id_or_name,
                                            GError       **error);

G_END_DECLS
