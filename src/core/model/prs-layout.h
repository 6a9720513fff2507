/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-layout.h: a reply's text split into display blocks, key-value grids
 * and text (docs/layout.md). The window and `prosponsive-ctl layout` both use it. */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

typedef enum
{
  PRS_LAYOUT_BLOCK_TEXT,
  PRS_LAYOUT_BLOCK_GRID,
} PrsLayoutBlockType;

/* Borrowed from the block */
typedef struct
{
  const char *key;
  const char *value;
} PrsLayoutRow;

typedef struct
{
  PrsLayoutBlockType  type;
  /* PRS_LAYOUT_BLOCK_TEXT: the lines joined with "\n", never empty. */
  char               *text;
  /* PRS_LAYOUT_BLOCK_GRID: PrsLayoutRow, two or more. */
  GArray             *rows;
  GStringChunk       *strings;  /* GRID: the rows' keys and values */
} PrsLayoutBlock;

void            prs_layout_block_free (PrsLayoutBlock *block);

/* The blocks of @text (@len bytes, or NUL-terminated when -1), in order,
 * as a GPtrArray of PrsLayoutBlock that frees them. Any bytes are accepted:
 * invalid UTF-8 and NUL bytes become U+FFFD first. Linear in @len. */
GPtrArray      *prs_layout_parse      (const char     *text,
                                       gssize          len);

/* The longest reply that is laid out. Longer text is no reply a person
 * reads: the window shows it as plain text, `prosponsive-ctl layout`
 * refuses it. Parsing and writing the JSON cost about ten times the
 * input at most (a reply of one-letter pairs). */
#define PRS_LAYOUT_MAX_INPUT ((gsize) 8 * 1024 * 1024)

/* [{"type":"grid","rows":[{"key":…,"value":…},…]},{"type":"text","text":…}]
 * with the members in that order, as json-glib writes it, compact or
 * @pretty. */
char           *prs_layout_to_json    (GPtrArray      *blocks,
                                       gboolean        pretty);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrsLayoutBlock, prs_layout_block_free)

G_END_DECLS
