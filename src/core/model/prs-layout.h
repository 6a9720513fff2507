/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-layout.h: a reply's text split into display blocks, key-value grids
 * and text (SPEC §5). The window and `prosponsive-ctl layout` both use it. */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

typedef enum
{
  PRS_LAYOUT_BLOCK_TEXT,
  PRS_LAYOUT_BLOCK_GRID,
} PrsLayoutBlockType;

typedef struct
{
  char *key;
  char *value;
} PrsLayoutRow;

typedef struct
{
  PrsLayoutBlockType  type;
  /* PRS_LAYOUT_BLOCK_TEXT: the lines joined with "\n", never empty. */
  char               *text;
  /* PRS_LAYOUT_BLOCK_GRID: PrsLayoutRow, two or more. */
  GArray             *rows;
} PrsLayoutBlock;

void            prs_layout_block_free (PrsLayoutBlock *block);

/* The blocks of @text (@len bytes, or NUL-terminated when -1), in order,
 * as a GPtrArray of PrsLayoutBlock that frees them. Any bytes are accepted:
 * invalid UTF-8 and NUL bytes become U+FFFD first. Linear in @len. */
GPtrArray      *prs_layout_parse      (const char     *text,
                                       gssize          len);

/* [{"type":"grid","rows":[{"key":…,"value":…},…]},{"type":"text","text":…}]
 * with the members in that order. */
JsonNode       *prs_layout_to_json    (GPtrArray      *blocks);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrsLayoutBlock, prs_layout_block_free)

G_END_DECLS
