/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-tool-call-private.h: what prs-tool-call.c and
 * prs-tool-call-registry.c take from prs-tool-call-result.c. */
#pragma once

#include "prs-tool-call-result.h"

G_BEGIN_DECLS

/* Destroys and unrefs *@source, if any. */
void               prs_tool_call_clear_source              (GSource    **source);

PrsToolCallResult *prs_tool_call_result_new_failure_printf (int          error_code,
                                                            const char  *format,
                                                            ...) G_GNUC_PRINTF (2, 3);

/* Tells @func (when set) that its result will not be stored: the call
 * ended before it was */
void               prs_tool_call_tell_dropped              (PrsToolCallStoredFunc  func,
                                                            gpointer               data);

G_END_DECLS
