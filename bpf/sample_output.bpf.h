/* SPDX-License-Identifier: GPL-2.0-only */
/* sample_output.bpf.h: a PERF_RECORD_SAMPLE built in the scratch (its head, callchain,
 * user registers and stack) and written to the ring, every loss counted and
 * reported as perf's kernel reports its own */
#ifndef RINGTRACE_SAMPLE_OUTPUT_BPF_H
#define RINGTRACE_SAMPLE_OUTPUT_BPF_H

#include "ehframe_unwind.bpf.h"
#include "sample_buffers.bpf.h"

/* x86-64 pt_regs as words (its layout is ABI): where each register of
 * RT_REGS_USER_MASK is, in perf_event_x86_regs order. */
#define PT_REGS_WORDS 21
#define PT_SP 19
static const __u8 perf_reg_word[RT_REGS_USER_COUNT] = {
	10, 5, 11, 12, 13, 14, 4, 19, 16, 18, 17, 20, /* ax bx cx dx si di bp sp ip flags cs ss */
	9, 8, 7, 6, 3, 2, 1, 0,                       /* r8 .. r15 */
};

#define STACK_COPY_OVER_TOP 64

/* A sample's user regs and stack, empty, at word n: returns the new n. */
static __always_inline __u32 append_no_user_stack(struct sample_words *s, __u32 n)
{
	s->w[n] = 0;     /* PERF_SAMPLE_REGS_ABI_NONE */
	s->w[n + 1] = 0; /* no stack */
	return n + 2;
}

/* Appends PERF_SAMPLE_REGS_USER and PERF_SAMPLE_STACK_USER at word n, as the
 * kernel's perf_output_sample_regs/_ustack write them: abi 0 and size 0 for
 * a kernel thread (and under -g, a stack not copied: s->meta.copy_stack);
 * else the regs, the stack size, the bytes copied from the
 * user sp (page by page, so that an unmapped page ends the copy as it ends
 * the kernel's copy_from_user_nmi) and how many were. ctx_regs: the perf
 * event's regs when it was taken in user mode, else NULL (the task's saved
 * user regs). tail: bytes that follow (the cgroup). Returns the new n. */
static __always_inline __u32 append_user_stack(struct sample_words *s, __u32 n,
					       const __u64 *ctx_regs, __u32 tail)
{
	struct task_struct *task;
	__u64 *pt = s->regs, sp, size, done = 0, room;

	_Static_assert(PT_REGS_WORDS == SCRATCH_REGS_WORDS, "the scratch holds a pt_regs");
	if (n > RT_SAMPLE_BEFORE_STACK_WORDS - RT_REGS_MAX_WORDS - 1)
		return n;
	/* (the task taken only for a copy: -g's samples copy none but a few,
	 * and a helper's call costs ~30 ns on an AMD host) */
	if (!capture_user_stack && !s->meta.copy_stack)
		return append_no_user_stack(s, n);
	task = bpf_get_current_task_btf();
	if (task->flags & PF_KTHREAD)
		return append_no_user_stack(s, n);
	if (ctx_regs) {
#pragma unroll
		for (int i = 0; i < PT_REGS_WORDS; i++)
			pt[i] = ctx_regs[i];
	} else if (bpf_probe_read_kernel(pt, sizeof(s->regs),
						 (const void *)bpf_task_pt_regs(task))) {
		__builtin_memset(pt, 0, sizeof(s->regs));
	}
	s->w[n++] = RT_REGS_ABI_64;
#pragma unroll
	for (int i = 0; i < RT_REGS_USER_COUNT; i++)
		s->w[n + i] = pt[perf_reg_word[i]];
	n += RT_REGS_USER_COUNT;
	/* as perf_sample_ustack_size: what is asked, or what fits */
	size = stack_user_size;
	room = RT_SAMPLE_MAX_BYTES - (n + 2) * 8 - tail;
	if (size > room)
		size = room & ~7ULL;
	sp = pt[PT_SP];
	/* a copy for a table not loaded yet: the main thread's stack only to
	 * its top (where the kernel put argc at exec) and STACK_COPY_OVER_TOP
	 * bytes over it (argv's first pointers: libunwind reads there to end
	 * the walk at _start) */
	if (!capture_user_stack) {
		__u64 top = task->mm ? task->mm->start_stack : 0;

		if (sp < top && top - sp + STACK_COPY_OVER_TOP < size)
			size = (top - sp + STACK_COPY_OVER_TOP + 7) & ~7ULL;
		s->meta.copy_bytes += size;
	}
	s->w[n++] = size;
	/* (a copy for a table not loaded yet is at most
	 * RT_STACK_USER_DEFAULT: fewer pages for the verifier to walk, after
	 * the -g walk's frames) */
	for (int i = 0; i < (capture_user_stack ? RT_STACK_USER_MAX : RT_STACK_USER_DEFAULT) / 4096 + 2;
	     i++) {
		__u64 chunk = 4096 - ((sp + done) & 4095), at;

		if (done >= size)
			break;
		if (chunk > size - done)
			chunk = size - done;
		at = n * 8 + done;
		barrier_var(at);
		barrier_var(chunk);
		if (at > RT_SAMPLE_MAX_BYTES || chunk > 4096)
			break;
		if (bpf_probe_read_user((__u8 *)s->w + at, chunk, (const void *)(sp + done)))
			break;
		done += chunk;
	}
	n += size / 8;
	if (n >= RT_SAMPLE_MAX_WORDS)
		return RT_SAMPLE_MAX_WORDS; /* cannot happen: size was cut to fit */
	s->w[n++] = done;
	return n;
}

/* Appends the user callchain unwound in the kernel at word n, from the
 * sample's user regs (pt_regs words) or, NULL, the task's saved ones; or
 * none, with the stack to be copied (may_copy: the caller appends the copy,
 * append_user_stack). */
static __always_inline __u32 append_user_callchain(struct sample_words *s, __u32 n,
						   const __u64 *user_regs, __u32 tgid,
						   bool may_copy)
{
	/* in the scratch, not on this program's stack: the walk's frames
	 * are deep */
	struct unwind_start *start = (struct unwind_start *)s->walk_start;
	__u64 end;

	s->meta.may_copy = may_copy;
	if (user_regs) {
		unwind_start_of(start, user_regs);
		end = append_unwound_user_stack(s, n, start, tgid);
	} else {
		end = append_unwound_user_stack(s, n, NULL, tgid);
	}
	/* a global function's result is a number the verifier knows nothing
	 * of: bounded here, above and below, as a word count the callers
	 * index by (all 64 bits of it: clang would test a 32-bit result's low
	 * half in a copy and go on with the register the verifier knows
	 * nothing of; one test of both bounds, clang folds into a subtraction
	 * the verifier cannot follow) */
	barrier_var(end);
	if (end > RT_SAMPLE_FIXED_WORDS + RT_CALLCHAIN_MAX_WORDS)
		return n;
	barrier_var(end);
	if (end < n)
		return n;
	return end;
}

/* A sample's head but its header and seq (close_sample_head). */
static __always_inline void fill_sample_head(struct rt_sample_head *h, const struct rt_event *ev,
					     __u64 ip, __u64 pid_tgid, __u32 cpu, __u64 now,
					     __u64 period)
{
	h->id = ev->id;
	h->ip = ip;
	h->pid = pid_tgid >> 32;
	h->tid = (__u32)pid_tgid;
	h->time = now;
	h->cpu = cpu;
	h->period = period;
}

/* The rest of a sample's head, once its size is known: its header (taken in
 * user mode or not) and its sequence number. */
static __always_inline void close_sample_head(struct rt_sample_head *h, __u32 size, bool user,
					      __u32 seq)
{
	h->seq = seq;
	h->header.type = PERF_RECORD_SAMPLE;
	h->header.misc = user ? RT_MISC_USER : RT_MISC_KERNEL;
	h->header.size = size;
}

/* Fills the head but its header and seq, and the callchain; returns the
 * word count so far. */
static __always_inline __u32 begin_sample(void *ctx, struct sample_words *s,
					  const struct rt_event *ev, __u64 ip, bool user,
					  const __u64 *user_regs, __u64 pid_tgid, __u32 cpu,
					  __u64 now, __u64 period)
{
	__u32 n = RT_SAMPLE_FIXED_WORDS;

	fill_sample_head((struct rt_sample_head *)s->w, ev, ip, pid_tgid, cpu, now, period);
	s->meta.copy_stack = false;
	if (capture_callchain) {
		n++; /* word 7 is nr */
		if (!user)
			n = append_stack(ctx, s, n, PERF_CONTEXT_KERNEL, 0);
		if ((pid_tgid >> 32) && unwind_ehframe)
			n = append_user_callchain(s, n, user_regs, pid_tgid >> 32, true);
		else if ((pid_tgid >> 32) && !capture_user_stack)
			n = append_stack(ctx, s, n, PERF_CONTEXT_USER, BPF_F_USER_STACK);
		s->w[RT_SAMPLE_FIXED_WORDS] = n - RT_SAMPLE_FIXED_WORDS - 1;
	}
	return n;
}

static __always_inline void count_loss(struct rt_cpu_counters *cnt, __u64 now, bool pending)
{
	__sync_fetch_and_add(&cnt->lost, 1);
	cnt->last_lost_time = now;
	if (pending) {
		if (!cnt->pending_lost)
			cnt->pending_time = now;
		/* locked: a program that interrupts this one may write the
		 * pending count out and take it off meanwhile */
		__sync_fetch_and_add(&cnt->pending_lost, 1);
	}
}

/* The LOST_SAMPLES record of pending losses, timed at the first, stamped
 * with the task whose record follows it. */
static __always_inline struct rt_lost_samples lost_samples_record(const struct rt_cpu_counters *cnt,
								  __u64 pending,
								  const struct rt_event *ev,
								  __u64 pid_tgid, __u32 cpu)
{
	return (struct rt_lost_samples){
		.header = { .type = PERF_RECORD_LOST_SAMPLES, .misc = 0,
			    .size = sizeof(struct rt_lost_samples) },
		.lost = pending,
		.pid = pid_tgid >> 32,
		.tid = (__u32)pid_tgid,
		.time = cnt->pending_time,
		.cpu = cpu,
		.res = 0,
		.id = ev->id,
	};
}

/* Losses not yet reported go into the ring first, as perf's kernel does with
 * PERF_RECORD_LOST: a LOST_SAMPLES record carrying the count, timed at the
 * first loss. Returns false if even that did not fit. */
static __always_inline bool report_pending_loss(void *ring, struct rt_cpu_counters *cnt,
						const struct rt_event *ev, __u64 pid_tgid,
						__u32 cpu)
{
	struct rt_lost_samples *l;

	if (!cnt->pending_lost)
		return true;
	l = bpf_ringbuf_reserve(ring, sizeof(*l), 0);
	if (!l)
		return false;
	*l = lost_samples_record(cnt, cnt->pending_lost, ev, pid_tgid, cpu);
	bpf_ringbuf_submit(l, BPF_RB_NO_WAKEUP);
	cnt->pending_lost = 0;
	cnt->pending_time = 0;
	return true;
}

/* Adds one to a counter of this CPU's. Only the user-space probe programs
 * can be interrupted, by the perf event program, in the middle of a
 * read-modify-write: theirs is one locked instruction. The perf event and
 * tracepoint programs never interrupt each other on a CPU (the kernel's
 * bpf_prog_active) and nothing runs them in the middle of a probe's: a
 * plain add, without the lock's cost on every sample. */
static __always_inline __u64 count_one(__u64 *counter, bool interruptible)
{
	if (interruptible)
		return __sync_fetch_and_add(counter, 1) + 1;
	return ++*counter;
}

/* --transport ring, read forward: the reader of ring ring_cpu (its control
 * c) woken once wakeup_bytes passed since it last was. */
static __always_inline void own_ring_wake(struct rt_ring_control *c, __u32 ring_cpu)
{
	if (c->head - c->wakeup_head >= wakeup_bytes) {
		c->wakeup_head = c->head;
		bpf_ringbuf_output(&ring_wakeups, &ring_cpu, sizeof(ring_cpu), BPF_RB_FORCE_WAKEUP);
	}
}

/* --transport ring, read forward: the losses not yet reported written first
 * (a LOST_SAMPLES record, as report_pending_loss), then the sample; the
 * reader woken once wakeup_bytes passed since it last was. On a ring
 * claimed. */
static __always_inline int own_ring_write_forward(struct rt_ring_control *c, __u64 *data,
						  struct sample_words *s, __u32 size,
						  struct rt_cpu_counters *cnt,
						  const struct rt_event *ev, __u64 pid_tgid,
						  __u32 cpu, __u32 ring_cpu)
{
	__u64 pending = cnt->pending_lost;

	if (pending) {
		/* built beside the sample, off the BPF stack; the barrier keeps
		 * the stores of its fields before the ring's copy loads its words
		 * (strict aliasing lets the compiler order them the other way: a
		 * copy once read zeros) */
		*(struct rt_lost_samples *)s->lost = lost_samples_record(cnt, pending, ev, pid_tgid,
									 cpu);
		asm volatile("" ::: "memory");
		if (rt_ring_write(c, data, ring_data_bytes, ring_slack_bytes, s->lost,
				  sizeof(s->lost)) != RT_RING_WRITTEN)
			return RT_RING_FULL;
		/* less what it reported: a program that interrupted this one
		 * may have counted one more meanwhile */
		__sync_fetch_and_add(&cnt->pending_lost, -pending);
	}
	if (rt_ring_write(c, data, ring_data_bytes, ring_slack_bytes, s->w, size) != RT_RING_WRITTEN)
		return RT_RING_FULL;
	own_ring_wake(c, ring_cpu);
	return RT_RING_WRITTEN;
}

/* --transport ring: the sample written into this CPU's ring, claimed for the
 * write; what cannot be written is counted, its LOST record written with a
 * later one. Backward (--overwrite): the BPF side's counts are the losses, as
 * a backward perf ring's; no LOST record in the ring, no reader to wake. */
static __always_inline void own_ring_submit(struct sample_words *s, __u32 size,
					    struct rt_cpu_counters *cnt, const struct rt_event *ev,
					    __u64 pid_tgid, __u32 cpu, __u64 now, bool interruptible)
{
	__u32 ring_cpu = bpf_get_smp_processor_id();
	void *ring = bpf_map_lookup_elem(&own_rings, &ring_cpu);
	struct rt_ring_control *c = ring;
	__u64 *data = ring + RT_RING_CONTROL_BYTES;
	int r;

	if (!ring || rt_ring_claim(c, ring_plain_claim && !interruptible) != RT_RING_WRITTEN) {
		count_loss(cnt, now, !ring_backward);
		return;
	}
	if (ring_backward)
		r = rt_ring_write_backward(c, data, ring_data_bytes, ring_slack_bytes, s->w, size);
	else
		r = own_ring_write_forward(c, data, s, size, cnt, ev, pid_tgid, cpu, ring_cpu);
	rt_ring_release(c, interruptible);
	if (r != RT_RING_WRITTEN)
		count_loss(cnt, now, !ring_backward);
	else
		count_one(&cnt->written, interruptible);
}

/* --transport ring, forward, from a program nothing of ours interrupts (a
 * tracepoint's): a slot of size bytes at the head of this CPU's ring for a
 * sample built in place, where building it in the scratch would copy each
 * word twice. The ring claimed and the slot's words returned, *cp its
 * control (the sample published by own_ring_commit); or NULL: *lost where
 * the sample cannot be written at all (the ring busy or closed, or no room
 * for it and the LOST record owed before it: the caller counts it lost, as
 * write_sample would after building it), else where it cannot be had that
 * way (losses to report first, the slot past the data area's end): the
 * caller then builds the sample in the scratch and writes it as every other
 * (write_sample). */
static __always_inline __u64 *own_ring_reserve(struct rt_ring_control **cp, __u32 size,
					       const struct rt_cpu_counters *cnt, bool *lost)
{
	__u32 ring_cpu = bpf_get_smp_processor_id();
	struct rt_ring_control *c;
	void *ring;
	long at;

	*lost = false;
	if (!use_own_ring || ring_backward)
		return NULL;
	ring = bpf_map_lookup_elem(&own_rings, &ring_cpu);
	if (!ring)
		return NULL;
	c = ring;
	if (rt_ring_claim(c, ring_plain_claim) != RT_RING_WRITTEN) {
		*lost = true;
		return NULL;
	}
	if (!rt_ring_fits(c, ring_data_bytes,
			  size + (cnt->pending_lost ? sizeof(struct rt_lost_samples) : 0))) {
		rt_ring_release(c, false);
		*lost = true;
		return NULL;
	}
	at = cnt->pending_lost ? -1 : rt_ring_slot(c, ring_data_bytes, size);
	if (at < 0) {
		rt_ring_release(c, false);
		return NULL;
	}
	*cp = c;
	return (__u64 *)(ring + RT_RING_CONTROL_BYTES + at);
}

/* Publishes the sample of size bytes built in the slot own_ring_reserve gave
 * (c its ring's control), wakes the reader when it is due, and ends the
 * claim. */
static __always_inline void own_ring_commit(struct rt_ring_control *c, __u32 size,
					    struct rt_cpu_counters *cnt)
{
	rt_ring_publish(c, c->head + size);
	own_ring_wake(c, bpf_get_smp_processor_id());
	rt_ring_release(c, false);
	count_one(&cnt->written, false);
}

/* Ends the sample at word n (cgroup_id, header) and writes it out, what
 * the sample is of in s->meta. interruptible: called by a program that
 * another of ours may interrupt on its CPU (see count_one). A function of
 * its own: the spills of the ring's write are in its frame, not in the
 * sampling program's, which the -g walk's frames add to. */
static __noinline int write_sample(void *ctx, struct sample_words *s, __u32 n,
				   const struct rt_event *ev, bool interruptible)
{
	bool user = s->meta.user;
	__u64 pid_tgid = s->meta.pid_tgid, now = s->meta.now, cgroup_id = s->meta.cgroup_id;
	__u32 cpu = s->meta.cpu, zero = 0, ring_key = single_ring ? 0 : cpu, size, seq;
	struct rt_cpu_counters *cnt = bpf_map_lookup_elem(&counters, &zero);
	struct rt_sample_head *h = (struct rt_sample_head *)s->w;
	__u64 wakeup = BPF_RB_NO_WAKEUP;
	void *ring;

	if (!cnt)
		return 0;
	/* the reserved half of the cpu word carries the sample's sequence
	 * number: what this CPU produced so far, this sample included, which
	 * is how a flight-recorder snapshot accounts for every sample */
	seq = (__u32)count_one(&cnt->produced, interruptible);
	if (capture_cgroup) {
		if (n >= RT_SAMPLE_MAX_WORDS || n >= SCRATCH_WORDS) {
			count_loss(cnt, now, !use_perfbuf);
			return 0;
		}
		s->w[n++] = cgroup_id;
	}
	if (n > RT_SAMPLE_MAX_WORDS) {
		count_loss(cnt, now, !use_perfbuf);
		return 0;
	}
	size = n * sizeof(__u64);
	close_sample_head(h, size, user, seq);
	if (use_own_ring) {
		barrier_var(size);
		if (size > sizeof(*s)) {
			count_loss(cnt, now, true);
			return 0;
		}
		own_ring_submit(s, size, cnt, ev, pid_tgid, cpu, now, interruptible);
		return 0;
	}
	if (use_perfbuf) {
		/* the kernel counts what does not fit and writes PERF_RECORD_LOST
		 * itself; the count here lets the loader report the losses it
		 * never got to write */
		if (bpf_perf_event_output(ctx, &perf_rings, BPF_F_CURRENT_CPU, s, size))
			count_loss(cnt, now, false);
		else
			count_one(&cnt->written, interruptible);
		return 0;
	}
	ring = bpf_map_lookup_elem(&cpu_rings, &ring_key);
	if (!ring) {
		count_loss(cnt, now, true);
		return 0;
	}
	if (!report_pending_loss(ring, cnt, ev, pid_tgid, cpu)) {
		count_loss(cnt, now, true);
		return 0;
	}
	/* the reader is woken every wakeup_bytes written, as a perf ring's
	 * watermark does: a local count, where asking the ring how full it is
	 * would read the consumer's cache line on every sample */
	cnt->unwoken_bytes += size;
	if (cnt->unwoken_bytes >= wakeup_bytes) {
		wakeup = BPF_RB_FORCE_WAKEUP;
		cnt->unwoken_bytes = 0;
	}
	/* reserve, copy and submit in one helper call: the record was built in
	 * scratch space because its size is known only now */
	barrier_var(size);
	if (size > sizeof(*s)) {
		count_loss(cnt, now, true);
		return 0;
	}
	if (bpf_ringbuf_output(ring, s, size, wakeup)) {
		count_loss(cnt, now, true);
		return 0;
	}
	count_one(&cnt->written, interruptible);
	return 0;
}

/* Ends the sample at word n and writes it out (see write_sample): a sample
 * of pid_tgid on cpu at now, taken in user mode or not, of cgroup_id. */
static __always_inline int submit_sample_of(void *ctx, struct sample_words *s, __u32 n,
					    const struct rt_event *ev, bool user, __u64 pid_tgid,
					    __u32 cpu, __u64 now, __u64 cgroup_id, bool interruptible)
{
	s->meta.pid_tgid = pid_tgid;
	s->meta.now = now;
	s->meta.cgroup_id = cgroup_id;
	s->meta.cpu = cpu;
	s->meta.user = user;
	return write_sample(ctx, s, n, ev, interruptible);
}

/* A sample of the current task. */
static __always_inline int submit_sample(void *ctx, struct sample_words *s, __u32 n,
					 const struct rt_event *ev, bool user, __u64 pid_tgid,
					 __u32 cpu, __u64 now, bool interruptible)
{
	return submit_sample_of(ctx, s, n, ev, user, pid_tgid, cpu, now,
				capture_cgroup ? bpf_get_current_cgroup_id() : 0, interruptible);
}

static __always_inline bool sampled_in_user_mode(struct bpf_perf_event_data *ctx)
{
#if defined(__TARGET_ARCH_x86)
	/* The verifier allows only 8-byte loads of the regs, and cs is a u16 in
	 * newer kernels: load word 17 of x86-64's stable pt_regs layout (cs),
	 * whose low two bits are the privilege level the CPU was in. */
	const __u64 *words = (const __u64 *)&ctx->regs;

	return (words[17] & 3) != 0;
#else
#error "ringtrace's sampler only knows how to tell user mode on x86"
#endif
}

#endif
