/* SPDX-License-Identifier: GPL-2.0-only */
/* hotspot_reader.c: reads the layout of the JVMs started during a -g recording,
 * once each has set it up, on a thread of its own that keeps CAP_SYS_PTRACE (reading
 * another process's memory takes it) after the rest of ringtrace dropped every
 * capability; each JVM tried every HOTSPOT_READER_PERIOD_MS for HOTSPOT_PENDING_MS. */
#include "record/hotspot_proc.h"

#include <errno.h>
#include <string.h>
#include <time.h>

#include "lib/monotonic.h"
#include "sys/privileges.h"

static uint64_t now_ms(void)
{
	return monotonic_ns() / 1000000;
}

/* Drops pending entry i (h->base.lock held). */
static void drop_pending(struct hotspot_procs *h, uint32_t i)
{
	h->pending[i] = h->pending[--h->nr_pending];
}

int hotspot_reader_queue(struct hotspot_procs *h, uint32_t pid, const struct hotspot_file *f,
			 uint64_t bias)
{
	if (h->nr_pending >= HOTSPOT_PENDING_MAX)
		return -ENOSPC;
	h->pending[h->nr_pending++] =
		(struct hotspot_pending){ .pid = pid, .bias = bias, .file = f, .since_ms = now_ms() };
	pthread_cond_signal(&h->reader.wake);
	return 0;
}

void hotspot_reader_forget(struct hotspot_procs *h, uint32_t pid)
{
	for (uint32_t i = 0; i < h->nr_pending; i++)
		if (h->pending[i].pid == pid) {
			drop_pending(h, i);
			return;
		}
}

/* The outcome of one try of p, applied (h->base.lock held): its process
 * made a JVM for the walk, or given up, or left for the next try. */
static void apply(struct hotspot_procs *h, const struct hotspot_pending *p, int r,
		  const struct hotspot_walk_layout *l)
{
	struct hotspot_proc *pr = hash_map_get(&h->base.procs, &p->pid);
	uint64_t age = now_ms() - p->since_ms;
	bool late = age >= HOTSPOT_PENDING_MS;

	/* gone, or its pid another's since (forgotten then) */
	for (uint32_t i = 0; i < h->nr_pending; i++) {
		if (h->pending[i].pid != p->pid || h->pending[i].since_ms != p->since_ms)
			continue;
		if (!pr || !pr->pending) {
			drop_pending(h, i);
			return;
		}
		if (!r) {
			drop_pending(h, i);
			if (!hotspot_make_live(h, pr, l))
				h->read_late++;
		} else if (r == -ENOTSUP && age >= HOTSPOT_SETTLE_MS) {
			drop_pending(h, i);
			pr->pending = false;
			h->unknown_version++;
		} else if (r == -ESRCH || r == -EPERM || late) {
			/* gone, or its memory closed to us; else (a JVM starting:
			 * libjvm.so's data not mapped in place yet reads as a
			 * malformed table, or another version) tried again */
			drop_pending(h, i);
			pr->pending = false;
			h->not_read++;
			h->given_up += late;
		}
		return;
	}
}

static void *run(void *arg)
{
	struct hotspot_procs *h = arg;
	struct hotspot_pending p;
	struct hotspot_walk_layout l;

	/* (a thread keeping more than that, or what the process drops, would
	 * be a hole: it ends) */
	if (privileges_thread_keep_ptrace()) {
		pthread_mutex_lock(&h->base.lock);
		h->reader_failed = true;
		pthread_mutex_unlock(&h->base.lock);
		return NULL;
	}
	pthread_mutex_lock(&h->base.lock);
	while (!h->reader.stopping) {
		struct timespec until;
		uint64_t wake = monotonic_ns() + HOTSPOT_READER_PERIOD_MS * 1000000ull;

		until.tv_sec = (time_t)(wake / 1000000000ull);
		until.tv_nsec = (long)(wake % 1000000000ull);
		while (!h->reader.stopping && !h->nr_pending)
			pthread_cond_wait(&h->reader.wake, &h->base.lock);
		/* each pending JVM once a period, the lock let go while read */
		for (uint32_t k = 0; !h->reader.stopping && k < h->nr_pending; k++) {
			int r;

			p = h->pending[k];
			pthread_mutex_unlock(&h->base.lock);
			r = hotspot_read_layout(h, p.pid, p.file, p.bias, &l);
			pthread_mutex_lock(&h->base.lock);
			apply(h, &p, r, &l);
		}
		while (!h->reader.stopping && h->nr_pending &&
		       pthread_cond_timedwait(&h->reader.wake, &h->base.lock, &until) != ETIMEDOUT)
			;
	}
	pthread_mutex_unlock(&h->base.lock);
	return NULL;
}

int hotspot_reader_start(struct hotspot_procs *h)
{
	if (!h->base.on)
		return 0;
	return runtime_worker_start(&h->reader, run, h, "rt-jvm-reader");
}

void hotspot_reader_stop(struct hotspot_procs *h)
{
	runtime_worker_stop(&h->reader, &h->base.lock);
}
