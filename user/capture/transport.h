/* SPDX-License-Identifier: GPL-2.0-only */
/* transport.h: how ringtrace's BPF records reach user space: BPF ring buffers,
 * a perf event array, or ringtrace's own rings in a BPF array, read here. */
#ifndef RINGTRACE_TRANSPORT_H
#define RINGTRACE_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sys/cpu_list.h"

enum transport_kind {
	TRANSPORT_RINGBUF, /* BPF ring buffers (per CPU, or one for all) */
	TRANSPORT_PERFBUF, /* a perf event array: one perf ring per CPU, read here */
	TRANSPORT_RING,    /* ringtrace's own rings, one per CPU in a BPF array */
};

/* ring: the most data bytes of a CPU's ring (RT_RING_MAX_DATA). */
#define TRANSPORT_RING_MAX_BYTES (2u << 20)

/* The default bytes of a CPU's ring: 1 MiB, the least with which two
 * generators flat out on this project's 2-CPU machine (3.3 M getpid hits a
 * second, twice what they make under perf record) lost nothing to the own
 * ring: the drain shares the CPUs with them and waits a few ms for one, and
 * 512 KiB lost 0.8-2.3%; halved while nr_cpus rings would pass 64 MiB or a
 * 64th of phys_bytes (the machine's memory), down to 64 KiB at least. */
size_t transport_default_ring_bytes(unsigned int nr_cpus, uint64_t phys_bytes);

/* Its name, as --transport takes it. */
const char *transport_name(enum transport_kind kind);

/* Where drained records go. A non-zero return stops the drain and is
 * returned by transport_drain. */
struct transport_sink {
	/* a complete perf record (a SAMPLE, or the BPF side's LOST_SAMPLES) taken
	 * on cpu */
	int (*record)(void *ctx, int cpu, const void *rec, size_t size);
	/* the kernel's PERF_RECORD_LOST in cpu's perf ring: count samples lost,
	 * reported at time, with the pid and tid of the sample that follows it
	 * (the kernel wrote it just before that one, stamped with that task) */
	int (*kernel_lost)(void *ctx, int cpu, uint64_t count, uint64_t time, uint32_t pid,
			   uint32_t tid);
	void *ctx;
};

struct transport_config {
	enum transport_kind kind;
	const struct cpu_list *cpus; /* a ring on each */
	bool single_ring;            /* ringbuf: one ring for every CPU instead */
	size_t ring_bytes;           /* per ring, a power of two multiple of the page size */
	size_t slack_bytes;          /* ring: room past a ring's end for the largest record */
	size_t wakeup_bytes;         /* perf rings wake the reader once this much waits */
	bool overwrite;              /* perfbuf: backward rings the kernel overwrites,
				      * read only by transport_snapshot */
	bool locked_claims;          /* ring: no plain claims (transport_plain_claims) */
};

struct transport;

/* Creates the rings (ringbuf) or opens and maps the BPF-output perf events
 * (perfbuf). NULL with err set on failure. */
struct transport *transport_create(const struct transport_config *cfg,
				   const struct transport_sink *sink, char *err, size_t errlen);
/* ringbuf: a ring fd a BPF object's array of ring maps can take as its inner
 * map template before load; -1 for the others. */
int transport_inner_map_template(const struct transport *t);
/* ring: the bytes of one CPU's element of the BPF object's array of rings. */
size_t transport_ring_element_bytes(const struct transport *t);

/* The BPF object's maps a transport writes through. */
struct transport_maps {
	int ring_array_fd; /* ringbuf: the array of ring maps */
	int perf_array_fd; /* perfbuf: the perf event array */
	int own_rings_fd;  /* ring: the array of rings, one element per possible CPU */
	int wakeups_fd;    /* ring: the BPF ring its writers wake the reader by */
	unsigned int nr_possible_cpus;
};

/* After the BPF object is loaded: puts the rings into its array of ring maps
 * (indexed by CPU, or [0]), the perf rings into its perf event array, or maps
 * its own rings, and starts consuming. 0, or -errno with err set. */
int transport_install(struct transport *t, const struct transport_maps *maps, char *err,
		      size_t errlen);
/* The programs are detached: ring closes its rings, waiting for a write in
 * progress to end, so that the last drain reads all that was written and
 * every write after is counted lost. Nothing for the others. */
void transport_stop_writers(struct transport *t);
/* ring, read forward, where the kernel offers membarrier's global command:
 * the close above makes every CPU pass a barrier, and the BPF side's
 * writers no other interrupts may claim a ring with a plain store (the
 * sampler's ring_plain_claim). */
bool transport_plain_claims(const struct transport *t);
/* An fd that becomes readable when a ring passed its wakeup threshold. */
int transport_epoll_fd(const struct transport *t);
/* Drains every ring into the sink. Returns records drained or a negative error. */
long transport_drain(struct transport *t);
/* The CPU whose ring gave the last drain the most records, and how many
 * (*records), or -1 where none of a CPU gave any (the single ring of
 * per-thread mode is no CPU's); *quietest the fewest another CPU's ring gave
 * (0 where there is no other: -C of one CPU, the others recorded by none). */
int transport_busiest_cpu(const struct transport *t, uint64_t *records, uint64_t *quietest);
/* perfbuf and ring in overwrite mode: reads cpu's backward ring while its
 * writers are paused (the kernel's output, or the ring closed) and hands its
 * samples, oldest first, to sink->record (the kernel's LOST records, which
 * the ring may have overwritten, are skipped: the BPF side counts the
 * losses). Returns the samples or a negative error. */
long transport_snapshot(struct transport *t, int cpu, const struct transport_sink *sink);
/* perfbuf: samples of cpu the kernel's LOST records reported, those still
 * held (read, waiting for a following record), and the time to report held
 * ones at. 0 for ringbuf. */
uint64_t transport_kernel_lost(const struct transport *t, int cpu, uint64_t *held,
			       uint64_t *held_time);
/* How full ring i is (a BPF ring, an own ring, or a forward perf ring; the ring of CPU
 * -1 is the single ring of per-thread mode); -ENOENT past the last one. */
int transport_ring_usage(const struct transport *t, unsigned int i, int *cpu, uint64_t *used,
			 uint64_t *capacity);
void transport_free(struct transport *t);

#endif
