/* SPDX-License-Identifier: GPL-2.0-only */
/* python_frames.bpf.h: the Python frames a native frame of CPython's evaluation loop
 * runs, read from the interpreter's frame chain and written in its place in a -g walk;
 * and the frames of CPython's perf trampolines, in no file. Included once, by
 * ehframe_unwind.bpf.c. */
#ifndef RINGTRACE_PYTHON_FRAMES_BPF_H
#define RINGTRACE_PYTHON_FRAMES_BPF_H

#include "ehframe_state.bpf.h"
#include "python_maps.h"

/* CPython processes, by tgid (written by the loader). */
struct python_processes_map {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct rt_python_process);
};
extern struct python_processes_map python_processes SEC(".maps");

/* Whether the loader has told of any CPython process (entry 0, not 0): until
 * then a walk does not look its process up (an array's value is read
 * in place, a hash lookup costs ~30-50 ns here). */
struct python_known_map {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
};
extern struct python_known_map python_known SEC(".maps");

/* Offsets by version (written by the loader at the start). */
struct python_offsets_map {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, RT_PY_MAX_OFFSETS);
	__type(key, __u32);
	__type(value, struct rt_python_offsets);
};
extern struct python_offsets_map python_offsets SEC(".maps");

/* Code objects written, for the loader to name (it deletes what it read). */
struct python_code_seen_map {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, struct rt_python_code_key);
	__type(value, struct rt_python_code_info);
};
extern struct python_code_seen_map python_code_seen SEC(".maps");
/* Bumped after each code object put in python_code_seen (the loader looks
 * in it only when the count moved). */
extern __u64 python_seen_added;

/* A thread's PyThreadState found before (pid_tgid -> its address), checked
 * by its native_thread_id before use. */
struct python_threads_map {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 8192);
	__type(key, __u64);
	__type(value, __u64);
};
extern struct python_threads_map python_threads SEC(".maps");

/* Per CPU: the frame read, and the code objects told to the loader lately
 * (a direct-mapped cache: most samples repeat the last ones' functions). */
#define PY_SEEN_BITS 8
struct python_scratch {
	__u8 frame[RT_PY_FRAME_READ];
	__u64 word;
	__u64 ident[2];  /* a code object's co_filename and the field after it */
	struct rt_python_code_key seen[1u << PY_SEEN_BITS];
	struct rt_python_code_info info; /* a code object's, being read */
};
struct python_scratch_map {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2); /* a walk's, and a walk's that interrupted it */
	__type(key, __u32);
	__type(value, struct python_scratch);
};
extern struct python_scratch_map python_scratch SEC(".maps");

/* The sampled thread's id as its process sees it (its innermost pid
 * namespace's), which is what CPython keeps as native_thread_id. */
static __always_inline __u64 py_namespace_tid(void)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct pid *pid = task->thread_pid;
	unsigned int level;
	int nr = 0;

	if (!pid)
		return 0;
	level = pid->level;
	if (level > 32)
		return 0;
	bpf_probe_read_kernel(&nr, sizeof(nr),
			      (void *)((__u64)pid + bpf_core_field_offset(struct pid, numbers) +
				       level * bpf_core_type_size(struct upid) +
				       bpf_core_field_offset(struct upid, nr)));
	return (__u64)(__u32)nr;
}

static __always_inline bool py_word(struct python_scratch *sc, __u64 addr, __u64 *out)
{
	if (bpf_probe_read_user(&sc->word, sizeof(sc->word), (const void *)addr))
		return false;
	*out = sc->word;
	return true;
}

/* A field of the frame read into sc->frame (off checked against the read). */
static __always_inline __u64 py_frame_u64(const struct python_scratch *sc, __u16 off)
{
	__u32 at = off;

	if (at > RT_PY_FRAME_READ - 8)
		return 0;
	return *(const __u64 *)&sc->frame[at];
}

/* The sampled thread's pthread_self() (glibc on x86-64: its fs base), what
 * CPython 3.10 keeps as thread_id. */
static __always_inline __u64 py_pthread_self(void)
{
#if defined(__TARGET_ARCH_x86)
	return bpf_get_current_task_btf()->thread.fsbase;
#else
	return 0;
#endif
}

/* The sampled thread's PyThreadState: the one found before if it is still
 * this thread's, else the interpreter's thread list searched (bounded). */
static __always_inline __u64 py_thread_state(struct python_scratch *sc,
					     const struct rt_python_process *pp,
					     const struct rt_python_offsets *off)
{
	__u64 key = bpf_get_current_pid_tgid(), ts = 0, id, *known, tid;

	tid = off->flags & RT_PY_THREAD_IS_PTHREAD ? py_pthread_self() : py_namespace_tid();
	if (!tid)
		return 0;

	known = bpf_map_lookup_elem(&python_threads, &key);
	if (known && py_word(sc, *known + off->tstate_native_thread_id, &id) && id == tid)
		return *known;
	if (!py_word(sc, pp->runtime + off->runtime_interpreters_head, &ts) || !ts ||
	    !py_word(sc, ts + off->interp_threads_head, &ts))
		return 0;
	for (int i = 0; i < RT_PY_MAX_THREADS && ts; i++) {
		if (!py_word(sc, ts + off->tstate_native_thread_id, &id))
			return 0;
		if (id == tid) {
			bpf_map_update_elem(&python_threads, &key, &ts, BPF_ANY);
			return ts;
		}
		if (!py_word(sc, ts + off->tstate_next, &ts))
			return 0;
	}
	return 0;
}

#define PY_STR_HEAD 40
_Static_assert(PY_STR_HEAD <= RT_PY_FRAME_READ, "a str's head is read where a frame is");

/* The compact ASCII str at obj into out (size bytes with its NUL; its last
 * size - 1 bytes if tail, else its first): 1, or 0 (another kind of str,
 * or unreadable). *cut: it was longer. */
static __always_inline int py_read_str(struct python_scratch *sc,
				       const struct rt_python_offsets *off, __u64 obj, char *out,
				       __u32 size, bool tail, __u8 *cut)
{
	__u32 state, at = off->unicode_state;
	__u64 len, skip = 0;

	/* the head: length and state (both within PY_STR_HEAD bytes) */
	if (!obj || at > PY_STR_HEAD - 4 ||
	    bpf_probe_read_user(sc->frame, PY_STR_HEAD, (const void *)obj))
		return 0;
	len = py_frame_u64(sc, off->unicode_length);
	state = *(const __u32 *)&sc->frame[at];
	if ((state & 0x60) != 0x60 || len > (1u << 30))
		return 0;
	if (len > size - 1) {
		*cut = 1;
		if (tail)
			skip = len - (size - 1);
	}
	return bpf_probe_read_user_str(out, size, (const void *)(obj + off->ascii_data + skip)) > 0;
}

/* What the loader names code by, read into sc->info: its qualname, file and
 * first line. A global function: checked once, run once per code object. */
__noinline int python_read_code(__u64 code, const struct rt_python_offsets *off,
				struct python_scratch *sc)
{
	__u64 name, file;
	__s32 line = 0;

	if (!sc || !off)
		return 0;
	__builtin_memset(&sc->info, 0, sizeof(sc->info.time) + 8);
	sc->info.name[0] = sc->info.file[0] = '\0';
	if (!py_word(sc, code + off->code_qualname, &name) ||
	    !py_word(sc, code + off->code_filename, &file) ||
	    bpf_probe_read_user(&line, sizeof(line), (const void *)(code + off->code_firstlineno)))
		return 0;
	sc->info.firstlineno = line;
	sc->info.name_ok = py_read_str(sc, off, name, sc->info.name, RT_PY_NAME_BYTES, false,
				       &sc->info.pad);
	sc->info.file_ok = py_read_str(sc, off, file, sc->info.file, RT_PY_FILE_BYTES, true,
				       &sc->info.file_cut);
	return 1;
}

/* The tag of code (RT_PY_ADDR_OF): a hash of its co_filename and co_name,
 * which no code object changes in its life; 0 if they cannot be read. */
static __always_inline __u32 py_code_tag(struct python_scratch *sc,
					 const struct rt_python_offsets *off, __u64 code)
{
	__u64 h;

	if (bpf_probe_read_user(sc->ident, sizeof(sc->ident),
				(const void *)(code + off->code_filename)))
		return 0;
	h = (sc->ident[0] * 0x9E3779B97F4A7C15ull ^ sc->ident[1]) * 0x9E3779B97F4A7C15ull;
	return (__u32)((h >> 32) % RT_PY_TAGS);
}

/* Tells the loader of code (with its tag), read once (the cache skips
 * repeats, the map those the loader has not taken yet). */
static __always_inline void py_note_code(struct python_scratch *sc, struct rt_unwind_counters *c,
					 const struct rt_python_offsets *off, __u32 tgid, __u64 code,
					 __u32 tag)
{
	__u32 slot = ((__u32)(code >> 4) * 0x9E3779B1u ^ tgid ^ tag) >> (32 - PY_SEEN_BITS);
	struct rt_python_code_key *e = &sc->seen[slot & ((1u << PY_SEEN_BITS) - 1)];

	if (e->code == code && e->tgid == tgid && e->tag == tag)
		return;
	e->code = code;
	e->tgid = tgid;
	e->tag = tag;
	/* the entry is the key (no padding in it): off the BPF stack, which
	 * the walk's frames add to */
	if (bpf_map_lookup_elem(&python_code_seen, e))
		return;
	python_read_code(code, off, sc);
	sc->info.time = bpf_ktime_get_ns();
	if (bpf_map_update_elem(&python_code_seen, e, &sc->info, BPF_NOEXIST) == -7 /* E2BIG */)
		c->python.seen_full++;
	/* after the update (a failed one too: one look in vain, and a value
	 * fewer kept across the call for the verifier's stack) */
	python_seen_added++;
}

/* Why a walk of an evaluation frame stopped short. */
enum { PY_CUT_NONE, PY_CUT_NO_ROOM, PY_CUT_READ_FAILED, PY_CUT_BAD_CODE };

/* Writes the Python frames the evaluation loop's native frame runs at word
 * cur->n of s (at most cur->room): from the thread's current frame (the
 * first such native frame of a walk) or where the last one stopped, up to
 * and including the frame its call entered with (3.11: is_entry; 3.10: the
 * one frame each call runs), or up to
 * the shim frame it pushed (3.12+: owned by the C stack). Returns the
 * words written; 0: keep the native frame (cur->state PY_ENDED when no
 * further one is to be tried). A global function, checked once. */
__noinline long python_frames(struct sample_words *s, struct py_cursor *cur,
			      const struct rt_python_process *pp, struct rt_unwind_counters *c)
{
	const struct rt_python_offsets *off;
	struct python_scratch *sc;
	__u32 scratch_at, k, written = 0, cut;
	__u64 frame, ts;

	if (!s || !cur || !pp || !c || cur->state == PY_ENDED)
		return 0;
	c->python.eval_frames++;
	off = bpf_map_lookup_elem(&python_offsets, &pp->offsets);
	scratch_at = cur->nested ? 1 : 0;
	sc = bpf_map_lookup_elem(&python_scratch, &scratch_at);
	if (!off || !sc) {
		cur->state = PY_ENDED;
		c->python.no_frame++;
		return 0;
	}
	if (cur->state == PY_NOT_STARTED) {
		cur->state = PY_ENDED;
		ts = py_thread_state(sc, pp, off);
		if (!ts) {
			c->python.no_thread++;
			return 0;
		}
		if (!py_word(sc, ts + off->tstate_cframe, &frame) ||
		    (off->cframe_current_frame != RT_PY_NONE &&
		     (!frame || !py_word(sc, frame + off->cframe_current_frame, &frame)))) {
			c->python.read_failed++;
			return 0;
		}
		cur->frame = frame;
		cur->state = PY_WALKING;
	}
	frame = cur->frame;
	cur->state = PY_ENDED;
	/* why the walk stopped before its chain's end or an entry frame */
	cut = PY_CUT_NONE;
	for (k = 0; k < RT_PY_MAX_FRAMES; k++) {
		__u64 code, prev_instr, instr = 0;
		__u32 at = cur->n + k, tag;
		bool entry;

		if (!frame)
			break; /* the chain ended: the native frames go on */
		if (k >= cur->room || at >= SCRATCH_WORDS) {
			cut = PY_CUT_NO_ROOM;
			break;
		}
		if (bpf_probe_read_user(sc->frame, sizeof(sc->frame), (const void *)frame)) {
			cut = PY_CUT_READ_FAILED;
			break;
		}
		frame = py_frame_u64(sc, off->frame_previous);
		if (off->frame_owner < RT_PY_FRAME_READ &&
		    sc->frame[off->frame_owner] == RT_PY_OWNED_BY_CSTACK) {
			/* 3.12+: the shim this evaluation call entered with */
			cur->frame = frame;
			cur->state = PY_WALKING;
			break;
		}
		code = py_frame_u64(sc, off->frame_code);
		prev_instr = py_frame_u64(sc, off->frame_prev_instr);
		entry = (off->flags & RT_PY_FRAME_PER_CALL) ||
			(off->frame_is_entry < RT_PY_FRAME_READ && sc->frame[off->frame_is_entry]);
		if (!code || code >= RT_PY_CODE_MAX || (code & 7)) {
			cut = PY_CUT_BAD_CODE;
			break;
		}
		if (prev_instr >= code + off->code_adaptive)
			instr = (prev_instr - code - off->code_adaptive) / 2;
		if (instr >= RT_PY_CODE_SPAN)
			instr = RT_PY_CODE_SPAN - 1;
		tag = py_code_tag(sc, off, code);
		s->w[at] = RT_PY_ADDR_OF(code, tag, instr);
		written = k + 1;
		py_note_code(sc, c, off, cur->tgid, code, tag);
		if (entry) {
			/* the next evaluation frame up the stack runs from its caller */
			cur->frame = frame;
			cur->state = PY_WALKING;
			break;
		}
	}
	if (cur->state == PY_ENDED && k == RT_PY_MAX_FRAMES)
		cut = PY_CUT_NO_ROOM;
	/* one outcome each */
	if (written) {
		c->python.replaced++;
		c->python.frames += written;
		if (cut != PY_CUT_NONE) {
			__u32 at = cur->n + written;

			c->python.cut++;
			/* its callers left out, marked where there is room: never
			 * hung silently under the native frames outside its loop */
			if (written < cur->room && at < SCRATCH_WORDS) {
				s->w[at] = RT_PY_TRUNCATED;
				written++;
			}
		}
	} else if (cut == PY_CUT_NO_ROOM) {
		c->python.no_room++;
	} else if (cut == PY_CUT_READ_FAILED) {
		c->python.read_failed++;
	} else if (cut == PY_CUT_BAD_CODE) {
		c->python.bad_code++;
	} else {
		c->python.no_frame++;
	}
	return written;
}

/* CPython 3.12's perf trampoline (-X perf), copied into executable memory of
 * its own (no file, no table) for each code object: "sub $8, %rsp; call
 * *%rcx" just before a return address into it, so its frame's CFA is rsp +
 * 16, rbp and rbx unchanged (3.13's keeps frame pointers). Writable data,
 * not .rodata: the walk's step takes a row it may write. */
struct rt_unwind_row python_trampoline_row = {
	.cfa = RT_CFA_RSP, .cfa_offset = 16, .rbp = RT_RBP_SAME, .rbx = RT_RBP_SAME,
};
/* Those 6 bytes, read as the top of the 8 before the return address. */
#define PY_TRAMPOLINE_CALL 0xd1ff08ec8348ULL

/* Whether the frame at a return address in no mapping of a CPython process
 * is in a perf trampoline. */
static __noinline bool in_python_trampoline(struct unwind_walk *w)
{
	struct walk_state *ws = &w->guesses->walk;

	if (!w->py || ws->r.exact_ip || ws->r.ip < 8 ||
	    bpf_probe_read_user(&w->guesses->code, sizeof(w->guesses->code),
				(const void *)(ws->r.ip - 8)))
		return false;
	return w->guesses->code >> 16 == PY_TRAMPOLINE_CALL;
}

#endif
