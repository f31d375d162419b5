/* SPDX-License-Identifier: GPL-2.0-only */
/* unwind_bpf_rows.c: a compiled unwind table in the rows' layout the BPF
 * walk reads (bpf/unwind_maps.h), and the parts of one compile so laid out
 * joined into the one table's. */
#include "record/unwind_bpf_rows.h"

#include <stdlib.h>
#include <string.h>

struct rt_unwind_row *unwind_bpf_rows_of(const struct unwind_table *t)
{
	struct rt_unwind_row *rows;

	if (!t->nr || t->nr > RT_UNWIND_MAX_ROWS)
		return NULL;
	rows = calloc(t->nr, sizeof(*rows));
	for (size_t i = 0; rows && i < t->nr; i++) {
		const struct unwind_row *r = &t->rows[i];

		if (r->pc > UINT32_MAX) {
			free(rows);
			return NULL;
		}
		rows[i] = (struct rt_unwind_row){ .pc = (uint32_t)r->pc,
						  .cfa_offset = r->cfa_offset,
						  .rbp_offset = r->rbp_offset,
						  .rbx_offset = r->rbx_offset,
						  .cfa = r->cfa,
						  .rbp = r->rbp,
						  .rbx = r->rbx,
						  .cfa_reg = (uint8_t)(r->cfa_reg |
						      (r->debug_frame ? RT_ROW_DEBUG_FRAME : 0)) };
	}
	return rows;
}

struct rt_unwind_row *unwind_bpf_rows_join(const struct unwind_table *tables,
					   struct rt_unwind_row *const *rows_of, unsigned int n,
					   uint32_t *nr)
{
	const struct unwind_row *last = NULL; /* the row of rows[out - 1] */
	struct rt_unwind_row *rows;
	size_t total = 0, out = 0;

	for (unsigned int p = 0; p < n; p++) {
		if (tables[p].nr && !rows_of[p])
			return NULL;
		total += tables[p].nr;
	}
	if (!total || total > RT_UNWIND_MAX_ROWS || !(rows = malloc(total * sizeof(*rows))))
		return NULL;
	for (unsigned int p = 0; p < n; p++) {
		size_t from = 0, k = tables[p].nr;

		if (!k)
			continue;
		if (last) {
			switch (unwind_row_seam(last, &tables[p].rows[0])) {
			case UNWIND_SEAM_COVERED:
				from = 1;
				break;
			case UNWIND_SEAM_REPLACES:
				out--;
				break;
			case UNWIND_SEAM_FOLLOWS:
				break;
			}
		}
		memcpy(rows + out, rows_of[p] + from, (k - from) * sizeof(*rows));
		out += k - from;
		if (k > from) /* else the row before stays the last */
			last = &tables[p].rows[k - 1];
	}
	*nr = (uint32_t)out;
	return rows;
}
