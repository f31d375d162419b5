/* SPDX-License-Identifier: GPL-2.0-only */
/* sideband_history.h: the side-band a rotating recording has written so far,
 * per CPU, so each new output starts with what its samples need (the comms and
 * mappings of live processes); that of processes long gone is dropped. */
#ifndef RINGTRACE_SIDEBAND_HISTORY_H
#define RINGTRACE_SIDEBAND_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/byte_buffer.h"

/* Per CPU slot: what the drain thread added since the last cut (recent), what
 * it handed over at that cut (taken) and what the outputs before had (kept).
 * The drain thread owns recent, and taken until it cuts; the writer owns
 * taken after the cut and kept; the cut is handed over by the caller's
 * release/acquire (file_sink's switch_pending), so nothing here locks. */
struct sideband_history {
	unsigned int nr;
	struct byte_buffer *recent;
	struct byte_buffer *taken;
	struct byte_buffer *kept;
	uint64_t newest; /* the time of the newest record added (drain thread) */
	uint64_t cut_newest; /* ...at the last cut */
	uint64_t dropped; /* records not kept: out of memory (drain thread) */
};

/* 0 or -ENOMEM. */
int sideband_history_init(struct sideband_history *h, unsigned int nr);
void sideband_history_free(struct sideband_history *h);

/* Drain thread: a side-band record staged for slot's file. LOST records are
 * not kept (their counts belong to the output they were written into). */
void sideband_history_add(struct sideband_history *h, unsigned int slot, const void *rec,
			  size_t size);

/* Drain thread, at a switch: what was added so far goes to the next output
 * (no copy: the buffers change hands). Only after the writer has taken the
 * previous cut. */
void sideband_history_cut(struct sideband_history *h);

/* Writer, after a cut: adds what was taken to what is kept, then drops the
 * records of processes that exited over a second before the newest record
 * of the cut. 0, or -ENOMEM (all of it kept). */
int sideband_history_take(struct sideband_history *h);

/* Writer: what slot's file of the next output starts with. */
const struct byte_buffer *sideband_history_kept(const struct sideband_history *h,
						unsigned int slot);

#endif
