/* SPDX-License-Identifier: GPL-2.0-only */
/* transport_stop.c: a transport's writers stopped or paused: the own rings
 * closed at the stop (with a barrier on every CPU where their writers claim
 * them by a plain store), and a CPU's backward ring read for a snapshot. */
#include <errno.h>
#include <string.h>

#include "capture/transport_state.h"
#include "lib/log.h"
#include "sample_record.h"
#include "sys/membarrier.h"

/* A write takes microseconds; a program preempted mid-write (a uprobe's)
 * holds its ring until it runs again. */
#define STOP_WAIT_US 100000

bool transport_plain_claims(const struct transport *t)
{
	return t->plain_claims;
}

void transport_stop_writers(struct transport *t)
{
	bool any = false;
	int err;

	if (t->writers_stopped)
		return;
	t->writers_stopped = true;
	for (unsigned int i = 0; i < t->nr_owns; i++)
		if (t->owns[i].ring.ctl) {
			own_ring_shut(&t->owns[i].ring);
			any = true;
		}
	if (!any)
		return;
	/* closed before busy is read: a locked add orders a writer's busy
	 * before its read of closed, as this fence orders them here; a plain
	 * store does not, and the barrier on every CPU makes a write begun
	 * before it seen (see rt_ring_claim) */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (t->plain_claims && (err = membarrier_global()))
		rt_warn("cannot close the rings with a barrier on every CPU (membarrier: %s): a "
			"write racing the stop may be missing from the recording", strerror(-err));
	for (unsigned int i = 0; i < t->nr_owns; i++)
		if (t->owns[i].ring.ctl && !own_ring_wait_writer(&t->owns[i].ring, STOP_WAIT_US))
			rt_warn("a write into the ring of CPU %d did not end within %d ms: it may be "
				"missing from the recording", t->owns[i].cpu, STOP_WAIT_US / 1000);
}

struct snapshot_reader {
	struct transport *t;
	const struct transport_sink *sink;
	int cpu;
	long samples;
};

static int on_backward_record(void *ctx, const struct perf_event_header *rec)
{
	struct snapshot_reader *rd = ctx;
	struct perf_event_header inner;
	int r;

	if (rec->type == PERF_RECORD_LOST)
		return 0;
	r = transport_unwrap_sample(rd->t, rec, &inner);
	if (!r)
		r = rd->sink->record(rd->sink->ctx, rd->cpu, rd->t->bounce, inner.size);
	if (!r)
		rd->samples++;
	return r;
}

/* A sample of a backward own ring, to the snapshot's sink. */
static int on_own_backward_record(void *ctx, const void *rec, size_t size)
{
	struct snapshot_reader *rd = ctx;
	const struct perf_event_header *h = rec;
	int r;

	if (h->type != PERF_RECORD_SAMPLE || size < sizeof(struct rt_sample_head))
		return 0; /* the BPF side counts the losses */
	r = rd->sink->record(rd->sink->ctx, rd->cpu, rec, size);
	if (!r)
		rd->samples++;
	return r;
}

long transport_snapshot(struct transport *t, int cpu, const struct transport_sink *sink)
{
	struct snapshot_reader rd = { t, sink, cpu, 0 };

	for (unsigned int i = 0; i < t->nr_owns; i++)
		if (t->owns[i].cpu == cpu) {
			long n = own_ring_read_backward(&t->owns[i].ring, STOP_WAIT_US,
							on_own_backward_record, &rd);

			return n < 0 ? n : rd.samples;
		}
	for (unsigned int i = 0; i < t->nr_outputs; i++)
		if (t->outputs[i].cpu == cpu) {
			long n = perf_ring_read_backward(&t->outputs[i].ring, on_backward_record, &rd);

			return n < 0 ? n : rd.samples;
		}
	return -ENOENT;
}
