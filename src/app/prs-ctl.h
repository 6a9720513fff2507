/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-ctl.h: what prosponsive-ctl's command files share. Each command is
 * `int prs_ctl_cmd_NAME (PrsCtl *ctl, int argc, char **argv)` where argv[0]
 * is the command's name; commands are listed in prs-ctl.c. */
#pragma once

#include <json-glib/json-glib.h>

#include "prs-store.h"

G_BEGIN_DECLS

#define PRS_CTL_EXIT_NEGATIVE 1
#define PRS_CTL_EXIT_USAGE    2
/* sysexits.h's EX_TEMPFAIL: another program kept the database past the
 * busy timeout; the same command may work in a moment */
#define PRS_CTL_EXIT_BUSY     75

typedef struct
{
  char *data_dir;   /* resolved, absolute */
} PrsCtl;

/* The database, for a command that reads or writes it: a database an
 * older version wrote is migrated first, and standard error says so
 * before the first step (it may take a while: docs/storage.md
 * "Migrations"). */
PrsStore *prs_ctl_open_store (PrsCtl  *ctl,
                              GError **error);
/* The same for a command that only reads, or changes only what must be
 * there already: a data folder without a database (a mistyped --data-dir)
 * is refused, naming the folder, and nothing is made (docs/ctl.md). */
PrsStore *prs_ctl_open_existing_store (PrsCtl  *ctl,
                                       GError **error);
/* Whether the data folder holds a database, for commands that need what
 * Prosponsive made there (the control key, the certificate) without
 * opening the store: the same refusal, in the same words. */
gboolean  prs_ctl_check_existing_data (PrsCtl  *ctl,
                                       GError **error);
/* Prints @node as pretty JSON on standard output. */
void prs_ctl_print_json  (JsonNode       *node);
/* The exit status for a failed operation: PRS_CTL_EXIT_BUSY when the
 * database stayed busy, PRS_CTL_EXIT_NEGATIVE otherwise. */
int  prs_ctl_exit_status (const GError   *error);
/* Prints @error's message; returns prs_ctl_exit_status (@error). */
int  prs_ctl_fail        (const GError   *error);
/* Prints @message and the command's help; returns PRS_CTL_EXIT_USAGE. */
int  prs_ctl_usage_error (GOptionContext *context,
                          const char     *message);
/* Reads all of FILE, or standard input when @path is "-" or NULL, up to
 * @max_bytes. */
gboolean prs_ctl_read_input (const char  *path,
                             gsize        max_bytes,
                             char       **out_contents,
                             gsize       *out_length,
                             GError     **error);

/* A secret (a key, a password) on standard input, at most 64 KiB, with
 * surrounding white space dropped; fails with @missing when none came. */
char    *prs_ctl_read_stdin_secret (const char  *missing,
                                    GError     **error);

int prs_ctl_cmd_layout (PrsCtl  *ctl,
                        int      argc,
                        char   **argv);

/* prs-ctl-approvals.c: approvals, approve and deny (argv[0]) */
int prs_ctl_cmd_approvals (PrsCtl  *ctl,
                           int      argc,
                           char   **argv);
/* A decision on the waiting call @call_id through the running service;
 * an exit status (`approve`, `deny`, `mcp approve|deny`) */
int prs_ctl_decide        (PrsCtl     *ctl,
                           guint       port,
                           const char *call_id,
                           gboolean    approve);
/* prs-ctl-agents.c */
int prs_ctl_cmd_agent  (PrsCtl  *ctl,
                        int      argc,
                        char   **argv);
int prs_ctl_cmd_fields (PrsCtl  *ctl,
                        int      argc,
                        char   **argv);

/* prs-ctl-insights.c */
int prs_ctl_cmd_insights (PrsCtl  *ctl,
                          int      argc,
                          char   **argv);
/* prs-ctl-conversations.c */
int prs_ctl_cmd_conversation (PrsCtl  *ctl,
                              int      argc,
                              char   **argv);
int prs_ctl_cmd_search       (PrsCtl  *ctl,
                              int      argc,
                              char   **argv);
int prs_ctl_cmd_export       (PrsCtl  *ctl,
                              int      argc,
                              char   **argv);

/* prs-ctl-mcp.c */
int prs_ctl_cmd_mcp      (PrsCtl  *ctl,
                          int      argc,
                          char   **argv);

/* prs-ctl-n8n.c */
int  prs_ctl_cmd_n8n_setup      (PrsCtl  *ctl,
                                 int      argc,
                                 char   **argv);
/* After `token --rotate`: says on standard error which n8n credential
 * still holds the old token and how to update it. */
void prs_ctl_n8n_note_rotation  (PrsCtl  *ctl);

/* prs-ctl-providers.c */
int prs_ctl_cmd_provider (PrsCtl  *ctl,
                          int      argc,
                          char   **argv);

/* prs-ctl-rules.c */
int prs_ctl_cmd_rule     (PrsCtl  *ctl,
                          int      argc,
                          char   **argv);

/* prs-ctl-schedule.c */
int prs_ctl_cmd_schedule (PrsCtl  *ctl,
                          int      argc,
                          char   **argv);

G_END_DECLS
