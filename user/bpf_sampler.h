/* bpf_sampler.h: loads the BPF sampler, attaches it to one cpu-clock event
 * per CPU, and drains its per-CPU BPF ring buffers into a record callback. */
#ifndef RINGTRACE_BPF_SAMPLER_H
#define RINGTRACE_BPF_SAMPLER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sample_record.h"
#include "cpu_list.h"
#include "perf_events.h"

struct bpf_sampler_config {
	const struct cpu_list *cpus; /* CPUs to sample */
	struct sample_rate rate;
	bool callchain;
	size_t ring_bytes;   /* per CPU, a power of two multiple of the page size */
	size_t wakeup_bytes; /* wake the reader once this much waits in a ring */
};

/* Receives each record (a complete perf record) drained from CPU cpu's ring.
 * A non-zero return stops the drain and is returned by bpf_sampler_drain. */
typedef int (*bpf_sampler_record_fn)(void *ctx, int cpu, const void *rec, size_t size);

struct bpf_sampler;

/* Loads, creates the rings, opens the events and attaches: sampling has begun
 * when this returns. NULL with err set on failure. */
struct bpf_sampler *bpf_sampler_start(const struct bpf_sampler_config *cfg,
				      bpf_sampler_record_fn fn, void *ctx, char *err,
				      size_t errlen);
/* An fd that becomes readable when a ring passed its wakeup threshold. */
int bpf_sampler_epoll_fd(const struct bpf_sampler *s);
/* Drains every ring. Returns records drained or a negative error. */
long bpf_sampler_drain(struct bpf_sampler *s);
/* Detaches the program from every event: no sample is produced after this. */
void bpf_sampler_stop(struct bpf_sampler *s);
/* The counters of one CPU. */
int bpf_sampler_counters(const struct bpf_sampler *s, int cpu, struct rt_cpu_counters *out);
void bpf_sampler_close(struct bpf_sampler *s);

/* Routes libbpf's messages to stderr only when verbose. */
void bpf_sampler_set_verbose(bool verbose);

#endif
