/* SPDX-License-Identifier: GPL-2.0-only */
/* transport_sizes.c: the transports' names as --transport takes them, and the
 * default size of a CPU's kernel ring from the CPUs and memory a machine has. */
#include "capture/transport.h"

#define DEFAULT_RING_BYTES (1u << 20)
#define LEAST_RING_BYTES (64u << 10)
#define MOST_RINGS_BYTES (64ull << 20)

size_t transport_default_ring_bytes(unsigned int nr_cpus, uint64_t phys_bytes)
{
	uint64_t most = phys_bytes / 64 < MOST_RINGS_BYTES ? phys_bytes / 64 : MOST_RINGS_BYTES;
	size_t bytes = DEFAULT_RING_BYTES;

	while (bytes > LEAST_RING_BYTES && (uint64_t)bytes * (nr_cpus ? nr_cpus : 1) > most)
		bytes /= 2;
	return bytes;
}

const char *transport_name(enum transport_kind kind)
{
	return kind == TRANSPORT_PERFBUF ? "perfbuf" : kind == TRANSPORT_RING ? "ring" : "ringbuf";
}
