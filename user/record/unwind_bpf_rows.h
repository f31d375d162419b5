/* SPDX-License-Identifier: GPL-2.0-only */
/* unwind_bpf_rows.h: a compiled unwind table in the rows' layout the BPF walk
 * reads, and the parts of one compile so laid out joined. */
#ifndef RINGTRACE_UNWIND_BPF_ROWS_H
#define RINGTRACE_UNWIND_BPF_ROWS_H

#include <stdint.h>

#include "symbols/unwind_compile.h"
#include "unwind_maps.h"

/* t's rows in the BPF layout (the caller frees them); NULL if there are none,
 * more than RT_UNWIND_MAX_ROWS, a pc past 32 bits, or no memory. */
struct rt_unwind_row *unwind_bpf_rows_of(const struct unwind_table *t);
/* The n parts of one compile (tables[p], each's rows in the BPF layout
 * rows_of[p]) as the one table's rows, *nr of them, joined where they meet
 * as unwind_table_join joins the tables (unwind_row_seam). NULL if a part's
 * rows are not in the BPF layout, there are none, or no memory. */
struct rt_unwind_row *unwind_bpf_rows_join(const struct unwind_table *tables,
					   struct rt_unwind_row *const *rows_of, unsigned int n,
					   uint32_t *nr);

#endif
