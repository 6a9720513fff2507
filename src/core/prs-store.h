/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-store.h: the SQLite store. All SQL of the application lives in
 * prs-store.c (and its numbered migrations); one PrsStore per thread. */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "prs-tool.h"

G_BEGIN_DECLS

#define PRS_TYPE_STORE (prs_store_get_type ())
G_DECLARE_FINAL_TYPE (PrsStore, prs_store, PRS, STORE, GObject)

/* The schema version this build migrates to. */
#define PRS_STORE_SCHEMA_VERSION prs_store_get_latest_version ()

/* Opens (creating if needed) DATA_DIR/prosponsive.db: WAL, synchronous=FULL,
 * foreign keys on, busy timeout, then runs every pending migration. */
PrsStore   *prs_store_new                     (const char  *data_dir,
                                               GError     **error);
/* Same, for an explicit database file (tests). */
PrsStore   *prs_store_new_for_path            (const char  *db_path,
                                               GError     **error);
/* Opens without migrating past @version (migration tests only). */
PrsStore   *prs_store_new_at_version          (const char  *db_path,
                                               int          version,
                                               GError     **error);

int         prs_store_get_latest_version      (void);
int         prs_store_get_schema_version      (PrsStore    *self);
const char *prs_store_get_path                (PrsStore    *self);

/* Settings: small key → value strings (the n8n URL, …). Never secrets. */
char       *prs_store_dup_setting             (PrsStore    *self,
                                               const char  *key);
gboolean    prs_store_set_setting             (PrsStore    *self,
                                               const char  *key,
                                               const char  *value,    /* NULL deletes */
                                               GError     **error);

/* Discovery results. @tools are PrsTool*; @checklists is an array of
 * workflow checklist objects ({workflowId, workflowName, discoverable,
 * toolName|null, checks:[{id,status,message}]}). Both sets are replaced in one
 * BEGIN IMMEDIATE transaction, and the attempt is recorded as a success. */
gboolean    prs_store_save_discovery          (PrsStore    *self,
                                               GPtrArray   *tools,
                                               JsonArray   *checklists,
                                               gint64       when,
                                               GError     **error);
/* Records a failed discovery; the stored tools stay as they are. */
gboolean    prs_store_record_discovery_failure (PrsStore   *self,
                                               const char  *message,
                                               gint64       when,
                                               GError     **error);
/* PrsTool*, ordered by name, with discovered_at set. */
GPtrArray  *prs_store_list_tools              (PrsStore    *self,
                                               GError     **error);
PrsTool    *prs_store_lookup_tool             (PrsStore    *self,
                                               const char  *name,
                                               GError     **error);
JsonArray  *prs_store_list_workflow_checks    (PrsStore    *self,
                                               GError     **error);
/* Any out argument may be NULL. Times are unix seconds, 0 for never. */
void        prs_store_get_discovery_status    (PrsStore    *self,
                                               gint64      *last_attempt,
                                               gint64      *last_success,
                                               char       **last_error);

G_END_DECLS
