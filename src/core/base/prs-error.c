/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-error.c: the project's error domain. */
#include "prs-error.h"

G_DEFINE_QUARK (prs-error-quark, prs_error)
