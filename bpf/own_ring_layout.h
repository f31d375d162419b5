/* SPDX-License-Identifier: GPL-2.0-only */
/* own_ring_layout.h: ringtrace's own ring (--transport ring), perf's ring buffer
 * rebuilt in BPF memory: per CPU, one element of a BPF_F_MMAPABLE array
 * holding a control page (head, tail, the writer's sentinel, the reader's
 * gate) and a power-of-two data area, written by the BPF side with plain
 * stores and read by the loader through its mapping. The writer is here once,
 * for the BPF side and for the unit tests that drive it in user space. */
#ifndef RINGTRACE_OWN_RING_LAYOUT_H
#define RINGTRACE_OWN_RING_LAYOUT_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#include <stdbool.h>
#endif

/* The control page, then the data area, then room for one record past its
 * end (a record written whole where it starts, its part past the end copied
 * to the start: see rt_ring_write). */
#define RT_RING_CONTROL_BYTES 4096
/* The data area's most (the element, KMALLOC_MAX_SIZE at most, holds the
 * control page and the slack too) and least. */
#define RT_RING_MAX_DATA (2u << 20)
#define RT_RING_MIN_DATA (4u << 10)
/* Records this long or shorter are copied by plain stores a word at a time;
 * longer ones (stack copies of --call-graph dwarf) by the copy helper, which
 * the verifier cannot be shown to stay inside a masked area. */
#define RT_RING_STORE_MAX_WORDS 512
/* The pages own_rings_touch reads (sample_buffers.bpf.c): the kernel's page
 * size, and the most of them in all the CPUs' rings (bpf_loop's limit, over
 * 4096 CPUs with the largest rings). */
#define RT_RING_TOUCH_PAGE 4096
#define RT_RING_TOUCH_MAX_PAGES (1u << 23)

/*
 * The writer's fields and the reader's are on cache lines of their own: the
 * writer stores head (after the record) and busy; the reader stores tail
 * (every few KiB read) and closed (at a snapshot or the stop).
 */
struct rt_ring_control {
	__u64 head;        /* bytes written, ever: stored once the record is */
	__u64 wakeup_head; /* head when the reader was last woken */
	__u32 busy;        /* a writer of this CPU is mid-write */
	__u32 pad0;
	__u64 pad1[5];
	__u64 tail;        /* bytes read, ever: the writer may reuse up to it */
	__u32 closed;      /* no writes now: counted as lost */
	__u32 pad2;
	__u64 pad3[6];
};

/* What a write did. */
enum rt_ring_result {
	RT_RING_WRITTEN,
	RT_RING_FULL,   /* no room before tail: lost */
	RT_RING_BUSY,   /* a writer it interrupted on this CPU is mid-write: lost */
	RT_RING_CLOSED, /* the reader closed the ring: lost */
};

#ifdef __bpf__
#include <bpf/bpf_helpers.h>
/* BPF: a locked add (BPF_XADD, result unused: a lock-prefixed add on x86, a
 * full barrier, LSE's stadd on arm64 with a dmb) */
#define RT_RING_LOCKED_ADD(p, v) __sync_fetch_and_add(p, v)
#define RT_RING_BARRIER() asm volatile("" ::: "memory")
#define RT_RING_READ(x) (*(volatile typeof(x) *)&(x))
#define RT_RING_WRITE(x, v) (*(volatile typeof(x) *)&(x) = (v))
#define RT_RING_COPY(dst, len, src) bpf_probe_read_kernel(dst, len, src)
#else
#include <string.h>
#define RT_RING_LOCKED_ADD(p, v) __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST)
#define RT_RING_BARRIER() __atomic_signal_fence(__ATOMIC_SEQ_CST)
#define RT_RING_READ(x) __atomic_load_n(&(x), __ATOMIC_ACQUIRE)
#define RT_RING_WRITE(x, v) __atomic_store_n(&(x), v, __ATOMIC_RELEASE)
#define RT_RING_COPY(dst, len, src) (memcpy(dst, src, len), 0)
#endif

/*
 * Claims the ring for a write, or says why not. One writer at a time per CPU:
 * a program that interrupts another mid-write on its CPU (a perf-event sample
 * in a uprobe's program) finds busy set and counts its record lost, never
 * writing over the other's. busy counts the claims made and not released:
 * a writer whose add does not make it 1 (another came between its check and
 * its add, as a preempted uprobe program may let one) backs off, so two never
 * write at once. The locked add orders busy before the load of closed, as the
 * reader's fence orders closed before its load of busy: either the writer
 * sees closed, or the reader sees busy and waits for the write to end
 * (Dekker's pattern; a plain store could pass the load on x86).
 *
 * plain: a writer no other can run in the middle of (a tracepoint's or a perf
 * event's program: preemption off, one that interrupts it ends first) sets
 * busy by a plain store, where its check cannot be raced but by a writer
 * that ends before it goes on; and loads closed with no fence between (a
 * locked add is ~5 ns of a hit). Only for a ring whose reader, between its
 * store of closed and its load of busy, makes every CPU pass a full barrier
 * and every BPF program running end (membarrier's global command: a grace
 * period of RCU, which each program runs within): a write begun before it is
 * over, its busy seen; one after sees closed. Two things the kernel does
 * not promise in its documentation, but does: that command is
 * synchronize_rcu() (kernel/sched/membarrier.c; its man page speaks of user
 * threads alone), and those programs run with preemption off (not on a
 * PREEMPT_RT kernel: the loader keeps the locked add there).
 */
static __always_inline int rt_ring_claim(struct rt_ring_control *c, bool plain)
{
	if (RT_RING_READ(c->busy))
		return RT_RING_BUSY;
	if (plain) {
		RT_RING_WRITE(c->busy, 1);
		RT_RING_BARRIER();
		if (RT_RING_READ(c->closed)) {
			RT_RING_WRITE(c->busy, 0);
			return RT_RING_CLOSED;
		}
		return RT_RING_WRITTEN;
	}
	RT_RING_LOCKED_ADD(&c->busy, 1);
	if (RT_RING_READ(c->busy) != 1) {
		RT_RING_LOCKED_ADD(&c->busy, -1);
		return RT_RING_BUSY;
	}
	if (RT_RING_READ(c->closed)) {
		RT_RING_LOCKED_ADD(&c->busy, -1);
		return RT_RING_CLOSED;
	}
	return RT_RING_WRITTEN;
}

/*
 * Ends a claim. interruptible: the writer is a program that another of its
 * CPU may run in the middle of (a uprobe's, preemptible), whose claim is
 * counted with the others' in busy: it takes its one off with a locked add.
 * One that is not (a perf event's, a tracepoint's) holds busy at exactly 1
 * from its claim to here, as whatever interrupts it finds busy set and leaves
 * it as it was: it stores 0, after the record's stores as head's store is
 * (x86 keeps stores in order), and does not wait as a locked add would for
 * the record's cold lines to be written (~70 ns a sample on a host that
 * evicts them between samples).
 */
static __always_inline void rt_ring_release(struct rt_ring_control *c, bool interruptible)
{
	RT_RING_BARRIER();
	if (!interruptible) {
		RT_RING_WRITE(c->busy, 0);
		return;
	}
	RT_RING_LOCKED_ADD(&c->busy, -1);
}

/* Copies rec (bytes, a multiple of 8) to offset at of the data area, which
 * holds data_bytes (a power of two) and slack bytes after them: a word at a
 * time into the masked area; a record longer than RT_RING_STORE_MAX_WORDS
 * words, and at most slack bytes, whole where it starts (into the slack past
 * the end), then its part past the end from there to the start.
 * RT_RING_FULL if it cannot. */
static __always_inline int rt_ring_copy(__u64 *data, __u64 data_bytes, __u64 slack, __u64 at,
					const __u64 *rec, __u32 bytes)
{
	__u64 words = bytes / 8, i;

	if (words <= RT_RING_STORE_MAX_WORDS) {
		__u64 mask = data_bytes / 8 - 1, first = at / 8;

		for (i = 0; i < RT_RING_STORE_MAX_WORDS; i++) {
			if (i >= words)
				break;
			data[(first + i) & mask] = rec[i];
		}
	} else {
		__u64 past;

		if (bytes > slack || RT_RING_COPY((__u8 *)data + at, bytes, rec))
			return RT_RING_FULL;
		past = at + bytes > data_bytes ? at + bytes - data_bytes : 0;
		if (past > slack)
			return RT_RING_FULL; /* cannot be: for the verifier */
		if (past && RT_RING_COPY(data, past, (const __u8 *)data + data_bytes))
			return RT_RING_FULL;
	}
	return RT_RING_WRITTEN;
}

/*
 * Publishes what was written before head: the reader loads head with acquire
 * and reads what is before it. On x86 a store is never made visible before an
 * earlier one (TSO), so a compiler barrier is all it takes; arm64 needs a
 * store-release (BPF_STORE_REL: Linux 6.15 and LLVM 20, which Debian 12's
 * clang is not).
 */
static __always_inline void rt_ring_publish(struct rt_ring_control *c, __u64 head)
{
	RT_RING_BARRIER();
	RT_RING_WRITE(c->head, head);
}

/* Whether bytes more fit before tail. A ring claimed by rt_ring_claim only. */
static __always_inline bool rt_ring_fits(const struct rt_ring_control *c, __u64 data_bytes,
					 __u32 bytes)
{
	return c->head + bytes - RT_RING_READ(c->tail) <= data_bytes;
}

/* Writes rec at head and publishes it. A ring claimed by rt_ring_claim only. */
static __always_inline int rt_ring_write(struct rt_ring_control *c, __u64 *data, __u64 data_bytes,
					 __u64 slack, const __u64 *rec, __u32 bytes)
{
	__u64 head = c->head;

	if (!rt_ring_fits(c, data_bytes, bytes))
		return RT_RING_FULL;
	if (rt_ring_copy(data, data_bytes, slack, head & (data_bytes - 1), rec, bytes))
		return RT_RING_FULL;
	rt_ring_publish(c, head + bytes);
	return RT_RING_WRITTEN;
}

/*
 * Where a record of bytes may be built in place at head, to be published by
 * rt_ring_publish(c, head + bytes): its offset in the data area, or -1 where
 * it would not fit before tail, or would pass the data area's end (a record
 * that wraps is built elsewhere and written by rt_ring_write). A ring claimed
 * by rt_ring_claim only.
 */
static __always_inline long rt_ring_slot(const struct rt_ring_control *c, __u64 data_bytes,
					 __u32 bytes)
{
	__u64 at = c->head & (data_bytes - 1);

	if (at + bytes > data_bytes || !rt_ring_fits(c, data_bytes, bytes))
		return -1;
	return (long)at;
}

/*
 * --overwrite: writes rec just below head and moves head down to it, over
 * the oldest records, as perf's write_backward: the newest record starts at
 * head, older ones follow it. Nothing is ever full; the reader reads what is
 * held only with the ring closed (a snapshot), from head up to a ring's
 * worth, the oldest record partly written over left out.
 */
static __always_inline int rt_ring_write_backward(struct rt_ring_control *c, __u64 *data,
						  __u64 data_bytes, __u64 slack,
						  const __u64 *rec, __u32 bytes)
{
	__u64 head = c->head - bytes;

	if (bytes > data_bytes ||
	    rt_ring_copy(data, data_bytes, slack, head & (data_bytes - 1), rec, bytes))
		return RT_RING_FULL;
	rt_ring_publish(c, head);
	return RT_RING_WRITTEN;
}

#endif
