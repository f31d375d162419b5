/* SPDX-License-Identifier: GPL-2.0-only */
/* flight_sideband.h: a flight recording's side-band kept bounded: the records
 * of processes that exited before the oldest sample the recording still holds
 * are dropped, as no sample held can be theirs. */
#ifndef RINGTRACE_FLIGHT_SIDEBAND_H
#define RINGTRACE_FLIGHT_SIDEBAND_H

#include <stdint.h>

#include "lib/byte_buffer.h"

/* Side-band a CPU keeps before its gone processes' records are dropped. */
#define FLIGHT_SIDEBAND_PRUNE_BYTES (256 * 1024)
/* How long before the oldest sample held a process must have exited: samples
 * still on their way from the kernel's rings are not that much older. */
#define FLIGHT_SIDEBAND_MARGIN_NS 1000000000ULL

/* Drops from each of the nr buffers (records in ringtrace's layout,
 * RECORDING_SAMPLE_ID_TYPE trailers) every record of a process whose EXIT,
 * in any of them, came before oldest (ns): its FORK, COMM, MMAP2, EXIT and
 * other records up to that exit. Records of the kernel (pid -1), of
 * processes alive or gone after oldest, and of the parents they were forked
 * from (whose mappings theirs were until they exec'd), are kept, in their
 * order. Returns
 * the bytes dropped, or -ENOMEM (nothing dropped). */
long flight_sideband_prune(struct byte_buffer *const *bufs, unsigned int nr, uint64_t oldest);

#endif
