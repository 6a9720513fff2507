/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-secrets-private.h: what the two halves of PrsSecrets share:
 * prs-secrets.c (the object, the fallback file, what is kept in memory and
 * the stamp that says when to drop it, the hold on the keyring, the
 * synchronous calls) and prs-secrets-async.c (the asynchronous calls). */
#pragma once

#include <sys/types.h>
#include <libsecret/secret.h>

#include "prs-secrets.h"

G_BEGIN_DECLS

/* A file's identity: any write by anyone makes a new one */
typedef struct
{
  dev_t  dev;
  ino_t  ino;
  gint64 mtime_ns;
  off_t  size;
} PrsSecretsFileId;

/* The stamp file's, and the fallback file's (changed by hand, it is read
 * again too) */
typedef struct
{
  PrsSecretsFileId stamp;
  PrsSecretsFileId fallback;
} PrsSecretsStamp;

/* What a read saw when it began: its value is kept only when nothing was
 * written meanwhile */
typedef struct
{
  PrsSecretsStamp stamp;
  guint64         generation;
} PrsSecretsTicket;

struct _PrsSecrets
{
  GObject    parent_instance;

  char      *data_dir;        /* absolute: it is a keyring attribute */
  char      *fallback_path;
  char      *stamp_path;
  gboolean   forced_file;     /* PROSPONSIVE_SECRETS=file */
  /* Atomic: several threads may use the same object. It only ever turns on. */
  gint       using_fallback;

  /* Under lock: what is kept in memory, and the stamp it matches */
  GMutex     lock;
  GHashTable *cache;          /* name → value, or PRS_SECRETS_ABSENT */
  PrsSecretsStamp stamp;
  guint64    generation;      /* writes through this object */
};

/* A secret known not to exist */
extern const char prs_secrets_absent[];
#define PRS_SECRETS_ABSENT ((char *) prs_secrets_absent)

const SecretSchema *_prs_secrets_schema       (void);
gboolean    _prs_secrets_check_name           (const char        *name,
                                               GError           **error);
/* After a failed keyring call: TRUE when the fallback file is to be used
 * from now on (no Secret Service answers); else @error says the keyring
 * refused. */
gboolean    _prs_secrets_switch_to_fallback   (PrsSecrets        *self,
                                               GError           **error,
                                               GError            *keyring_error);

/* The fallback file (any thread; serialised inside) */
char       *_prs_secrets_fallback_lookup      (PrsSecrets        *self,
                                               const char        *name,
                                               GError           **error);
gboolean    _prs_secrets_fallback_store       (PrsSecrets        *self,
                                               const char        *name,
                                               const char        *value,
                                               GError           **error);
gboolean    _prs_secrets_fallback_clear       (PrsSecrets        *self,
                                               const char        *name,
                                               GError           **error);

/* Memory. TRUE with *@out_value (a copy, NULL when absent) when @name is
 * kept; else fills @ticket for the read that follows. */
gboolean    _prs_secrets_cache_get            (PrsSecrets        *self,
                                               const char        *name,
                                               char             **out_value,
                                               PrsSecretsTicket  *ticket);
/* A read begun with @ticket found @value (NULL: none): kept unless
 * something was written since. */
void        _prs_secrets_cache_put            (PrsSecrets        *self,
                                               const PrsSecretsTicket *ticket,
                                               const char        *name,
                                               const char        *value);
/* A write of @name (@value NULL: cleared) succeeded: the stamp is bumped
 * for everyone else, and this object keeps the new value. File I/O: not
 * on the main thread of the window. */
void        _prs_secrets_written              (PrsSecrets        *self,
                                               const char        *name,
                                               const char        *value);
/* Frees a value with its bytes zeroed (NULL and PRS_SECRETS_ABSENT are fine) */
void        _prs_secrets_value_free           (gpointer           value);

/* The hold on the keyring: TRUE when @task was queued, to be started by
 * @start on its own context at the release */
gboolean    _prs_secrets_queue_if_held        (GTask             *task,
                                               GSourceFunc        start);

G_END_DECLS
