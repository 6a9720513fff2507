/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-ctl-mcp-serve.h: `prosponsive-ctl mcp serve|approve|deny`
 * (prs-ctl-mcp-serve.c). */
#pragma once

#include "prs-ctl.h"

G_BEGIN_DECLS

/* argv[0] is "mcp"; argv[1] is serve, approve or deny */
int prs_ctl_cmd_mcp_serve (PrsCtl  *ctl,
                           int      argc,
                           char   **argv);

G_END_DECLS
