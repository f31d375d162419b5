/* SPDX-License-Identifier: GPL-2.0-only */
/* sideband_order.h: side-band records drained one CPU at a time, kept
 * decoded until every CPU has passed their time, then given back in time
 * order. */
#ifndef RINGTRACE_SIDEBAND_ORDER_H
#define RINGTRACE_SIDEBAND_ORDER_H

#include <stddef.h>
#include <stdint.h>

#include "format/perf_record.h"
#include "lib/byte_buffer.h"

/* A record kept: the order it came in (ties), the record, where the copy of
 * its string (an MMAP2's filename, a COMM's name) is. */
struct sideband_kept {
	uint64_t seq;
	struct perf_sideband rec;
	size_t str_off;
};

struct sideband_order {
	struct byte_buffer strings; /* the records' strings, one after another */
	struct sideband_kept *kept;
	size_t nr, cap;
	uint64_t seq;
	size_t max_bytes;     /* what may be kept at once, records and strings */
	uint64_t early;       /* records given back at once: no room to keep them */
};

typedef void (*sideband_apply_fn)(void *ctx, const struct perf_sideband *rec);

void sideband_order_init(struct sideband_order *o, size_t max_bytes);
/* Keeps a copy of rec (with its string), stamped rec->sid.time. When
 * max_bytes are kept already (or memory runs out) the oldest kept records
 * are given to apply first, then rec itself: out of order, but never lost
 * (counted in early). */
void sideband_order_add(struct sideband_order *o, const struct perf_sideband *rec,
			sideband_apply_fn apply, void *ctx);
/* Gives apply every kept record stamped at or before until, oldest first
 * (in arrival order among equal times), and forgets them. */
void sideband_order_release(struct sideband_order *o, uint64_t until, sideband_apply_fn apply,
			    void *ctx);
/* The time stamp of the oldest record kept (UINT64_MAX: none). */
uint64_t sideband_order_oldest(const struct sideband_order *o);
void sideband_order_free(struct sideband_order *o);

#endif
