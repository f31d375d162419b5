/* SPDX-License-Identifier: GPL-2.0-only */
/* v8_frames.bpf.h: the JavaScript function a native frame of a Node.js process runs,
 * read from the JSFunction its frame holds (V8 keeps frame pointers) and written in
 * its place, or after a builtin that built no frame, in a -g walk; the processes' map,
 * and the functions told to the loader for their names. */
#ifndef RINGTRACE_V8_FRAMES_BPF_H
#define RINGTRACE_V8_FRAMES_BPF_H

#include "ehframe_state.bpf.h"
#include "v8_maps.h"

/* Node.js processes, by tgid (written by the loader). */
struct v8_processes_map {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct rt_v8_process);
};
extern struct v8_processes_map v8_processes SEC(".maps");

/* Whether the loader has told of any (entry 0, not 0): until then a walk
 * does not look its process up. */
struct v8_known_map {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
};
extern struct v8_known_map v8_known SEC(".maps");

/* Functions written, for the loader to name (it deletes what it took). */
struct v8_functions_seen_map {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, struct rt_v8_function_key);
	__type(value, struct rt_v8_function_info);
};
extern struct v8_functions_seen_map v8_functions_seen SEC(".maps");
/* Bumped after each function put in v8_functions_seen. */
extern __u64 v8_seen_added;

/* The functions inlined at pcs of optimized code, by the loader. */
struct v8_inlines_map {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, struct rt_v8_pc_key);
	__type(value, struct rt_v8_inlined);
};
extern struct v8_inlines_map v8_inlines SEC(".maps");

/* Pcs of optimized code met without v8_inlines' entry, for the loader to
 * decode (it deletes what it took). */
struct v8_code_seen_map {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, struct rt_v8_pc_key);
	__type(value, struct rt_v8_pc_info);
};
extern struct v8_code_seen_map v8_code_seen SEC(".maps");
/* Bumped after each pc put in v8_code_seen. */
extern __u64 v8_code_seen_added;

/* Per CPU: what a walk reads of a frame and its objects, and the functions
 * and pcs told to the loader lately (direct-mapped caches). */
#define V8_SEEN_BITS 8
#define V8_PC_SEEN_BITS 6
struct v8_scratch {
	__u64 slots[2];       /* a frame's function and context (or marker) */
	__u8 object[RT_V8_OBJECT_READ];
	__u64 word;
	__u16 type;
	struct rt_v8_function_info info;
	struct rt_v8_function_key seen[1u << V8_SEEN_BITS];
	struct rt_v8_pc_key pc;
	struct rt_v8_pc_info pc_info;
	struct rt_v8_pc_key pcs_seen[1u << V8_PC_SEEN_BITS];
};
struct v8_scratch_map {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2); /* a walk's, and a walk's that interrupted it */
	__type(key, __u32);
	__type(value, struct v8_scratch);
};
extern struct v8_scratch_map v8_scratch SEC(".maps");

/* The instance type of the heap object at tagged pointer p (its map's), or
 * 0 if p is no heap object's or cannot be read. */
static __always_inline __u16 v8_type(struct v8_scratch *sc, const struct rt_v8_process *vp,
				     __u64 p)
{
	if ((p & 3) != 1 || p >= RT_PY_CODE_MAX ||
	    bpf_probe_read_user(&sc->word, sizeof(sc->word), (const void *)(p - 1)) ||
	    (sc->word & 3) != 1 ||
	    bpf_probe_read_user(&sc->type, sizeof(sc->type),
				(const void *)(sc->word - 1 + vp->map_instance_type)))
		return 0;
	return sc->type;
}

/* The tagged pointer at off of the object read into sc->object. */
static __always_inline __u64 v8_field(const struct v8_scratch *sc, __u16 off)
{
	__u32 at = off;

	return at <= RT_V8_OBJECT_READ - 8 ? *(const __u64 *)&sc->object[at] : 0;
}

/* Tells the loader of the function key, what the walk read of it in
 * sc->info, unless told lately (the cache skips repeats, the map those the
 * loader has not taken yet). */
static __always_inline void v8_tell(struct v8_scratch *sc, struct rt_unwind_counters *c,
				    __u32 tgid, __u64 sfi, __u32 tag)
{
	__u32 slot = ((__u32)(sfi >> 4) * 0x9E3779B1u ^ tgid ^ tag) >> (32 - V8_SEEN_BITS);
	struct rt_v8_function_key *e = &sc->seen[slot & ((1u << V8_SEEN_BITS) - 1)];

	if (e->sfi == sfi && e->tgid == tgid && e->tag == tag)
		return;
	e->sfi = sfi;
	e->tgid = tgid;
	e->tag = tag;
	if (bpf_map_lookup_elem(&v8_functions_seen, e))
		return;
	sc->info.time = bpf_ktime_get_ns();
	if (bpf_map_update_elem(&v8_functions_seen, e, &sc->info, BPF_NOEXIST) == -7 /* E2BIG */)
		c->v8.seen_full++;
	v8_seen_added++;
}

/* Tells the loader of sc->pc, a pc of optimized code of the function at
 * function (tagged), unless told lately. */
static __always_inline void v8_tell_pc(struct v8_scratch *sc, __u64 function)
{
	__u32 slot = ((__u32)(sc->pc.ip >> 2) * 0x9E3779B1u ^ sc->pc.tgid) >> (32 - V8_PC_SEEN_BITS);
	struct rt_v8_pc_key *e = &sc->pcs_seen[slot & ((1u << V8_PC_SEEN_BITS) - 1)];

	if (e->ip == sc->pc.ip && e->sfi == sc->pc.sfi && e->tgid == sc->pc.tgid &&
	    e->exact == sc->pc.exact)
		return;
	*e = sc->pc;
	sc->pc_info.time = bpf_ktime_get_ns();
	sc->pc_info.function = function;
	if (!bpf_map_update_elem(&v8_code_seen, &sc->pc, &sc->pc_info, BPF_NOEXIST))
		v8_code_seen_added++;
}

/* How the walk looks at a frame of a Node.js process at pc, by where pc is:
 * among V8's builtins, elsewhere in the binary's code (not), or outside it
 * (V8's code, or another library's). */
static __always_inline __u32 v8_kind(const struct rt_v8_process *vp, __u64 pc)
{
	__u64 off;

	if (pc - vp->blob[0] < vp->blob_size)
		off = pc - vp->blob[0];
	else if (vp->blob[1] && pc - vp->blob[1] < vp->blob_size)
		off = pc - vp->blob[1];
	else
		return pc >= vp->text_start && pc < vp->text_end ? RT_V8_NONE : RT_V8_JIT;
	if (off >= vp->handlers_start || (off >= vp->entry_start && off < vp->entry_end) ||
	    (off >= vp->enter_start && off < vp->enter_end))
		return RT_V8_REPLACE;
	return RT_V8_AFTER;
}

/* Frame k of the walk of g (its words from word n of s, k + 1 of them),
 * written as one of its process's JavaScript frames: with as many more
 * words and frames as it takes past the native frame's (counted as the
 * Python and Java frames' are). */
static __always_inline void v8_took(struct walk_guesses *g, __u32 more)
{
	g->extra_words += more;
	g->walk.frames += more;
}

/* The frame the walk of g is at (its pc the walk's ip, its frame pointer
 * the walk's rbp), of a Node.js process (g->v8), where pc is says how it is
 * looked at (v8_kind): the JavaScript function its frame holds (a
 * JSFunction two words below the frame pointer, under a context where V8's
 * own frames keep a marker, a small integer), written in place of the
 * native frame (the walk's last word; in optimized code, with the functions
 * inlined at its pc before it, innermost first, where the loader decoded
 * them), or after it. A global function, checked once. */
__noinline int v8_frame(struct sample_words *s, struct walk_guesses *g,
			struct rt_unwind_counters *c)
{
	__u32 kind, room, at, tag, k, n, done;
	const struct rt_v8_inlined *in;
	const struct rt_v8_process *vp;
	struct v8_scratch *sc;
	__u64 fp, function, sfi, name, script, pc;
	__u16 type;

	if (!s || !g || !c)
		return 0;
	at = g->v8_nested;
	vp = &g->v8;
	pc = g->walk.r.exact_ip ? g->walk.r.ip : g->walk.r.ip - 1;
	kind = v8_kind(vp, pc);
	/* the frame's word, and the words left from it */
	done = g->walk.frames - 1;
	n = g->walk.first + done;
	if (kind == RT_V8_NONE || done >= RT_MAX_STACK_DEPTH || n >= SCRATCH_WORDS - 1)
		return 0;
	room = RT_MAX_STACK_DEPTH - done;
	sc = bpf_map_lookup_elem(&v8_scratch, &at);
	if (!sc)
		return 0;
	c->v8.frames++;
	fp = g->walk.r.bp;
	if (!fp || (fp & 7) || fp >= RT_PY_CODE_MAX ||
	    bpf_probe_read_user(sc->slots, sizeof(sc->slots), (const void *)(fp - 16))) {
		c->v8.no_function++;
		return 0;
	}
	/* V8's own frames (entry, exit, stubs) keep a marker, a small integer */
	if (!(sc->slots[1] & 1)) {
		c->v8.typed++;
		return 0;
	}
	function = sc->slots[0];
	type = v8_type(sc, vp, function);
	if (!type || type < vp->type_function_first || type > vp->type_function_last ||
	    bpf_probe_read_user(sc->object, sizeof(sc->object), (const void *)(function - 1))) {
		c->v8.no_function++;
		return 0;
	}
	sfi = v8_field(sc, vp->function_shared);
	if (v8_type(sc, vp, sfi) != vp->type_sfi ||
	    bpf_probe_read_user(sc->object, sizeof(sc->object), (const void *)(sfi - 1))) {
		c->v8.no_function++;
		return 0;
	}
	name = v8_field(sc, vp->sfi_name);
	script = v8_field(sc, vp->sfi_script);
	/* a builtin's function (Array.prototype.sort's) has no script: its
	 * native frame names it */
	if (v8_type(sc, vp, script) != vp->type_script) {
		c->v8.no_script++;
		return 0;
	}
	tag = RT_V8_TAG_OF(name);
	sc->info.name = name;
	sc->info.script = script;
	v8_tell(sc, c, g->walk.tgid, sfi - 1, tag);
	/* (n checked again where it is used: the verifier lost its bound) */
	barrier_var(n);
	if (n >= SCRATCH_WORDS - 1)
		return 0;
	if (kind != RT_V8_AFTER)
		c->v8.replaced++;
	if (kind == RT_V8_JIT) {
		/* the functions inlined at its pc, as the loader decoded them */
		c->v8.jit++;
		sc->pc.tgid = g->walk.tgid;
		sc->pc.exact = g->walk.r.exact_ip;
		sc->pc.ip = g->walk.r.ip;
		sc->pc.sfi = sfi - 1;
		in = bpf_map_lookup_elem(&v8_inlines, &sc->pc);
		if (!in) {
			c->v8.undecoded++;
			v8_tell_pc(sc, function);
		} else if (in->nr > 1) {
			for (k = 0; k < RT_V8_MAX_INLINE; k++) {
				if (k >= in->nr || k >= room || n + k >= SCRATCH_WORDS)
					break;
				s->w[n + k] = in->frame[k];
			}
			if (k) {
				c->v8.inlined++;
				c->v8.inlined_frames += k;
				v8_took(g, k - 1);
				return 0;
			}
		}
	}
	if (kind != RT_V8_AFTER) {
		s->w[n] = RT_V8_ADDR_OF(sfi - 1, tag);
		return 0;
	}
	if (room < 2) {
		c->v8.no_function++; /* (no room: the stack is cut there anyway) */
		return 0;
	}
	s->w[n + 1] = RT_V8_ADDR_OF(sfi - 1, tag);
	c->v8.after++;
	v8_took(g, 1);
	return 0;
}

#endif
