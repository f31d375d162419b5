/* SPDX-License-Identifier: GPL-2.0-only */
/* hotspot_frames.bpf.h: the Java method a native frame of a HotSpot JVM's template
 * interpreter runs, read from the frame's slots and written in its place in a -g walk;
 * the JVMs' maps, and the methods told to the loader for their names. */
#ifndef RINGTRACE_HOTSPOT_FRAMES_BPF_H
#define RINGTRACE_HOTSPOT_FRAMES_BPF_H

#include "ehframe_state.bpf.h"
#include "hotspot_maps.h"

/* JVMs, by tgid (written by the loader). */
struct hotspot_processes_map {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct rt_hotspot_process);
};
extern struct hotspot_processes_map hotspot_processes SEC(".maps");

/* Whether the loader has told of any JVM (entry 0, not 0): until then a walk
 * does not look its process up. */
struct hotspot_known_map {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
};
extern struct hotspot_known_map hotspot_known SEC(".maps");

struct hotspot_offsets_map {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, RT_JAVA_MAX_OFFSETS);
	__type(key, __u32);
	__type(value, struct rt_hotspot_offsets);
};
extern struct hotspot_offsets_map hotspot_offsets SEC(".maps");

/* Methods written, for the loader to name (it deletes what it read). */
struct hotspot_methods_seen_map {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, struct rt_hotspot_method_key);
	__type(value, struct rt_hotspot_method_info);
};
extern struct hotspot_methods_seen_map hotspot_methods_seen SEC(".maps");
/* Bumped after each method put in hotspot_methods_seen. */
extern __u64 hotspot_seen_added;

/* Per CPU: what a walk reads of a frame and its method, and the methods
 * told to the loader lately (a direct-mapped cache). */
#define JAVA_SEEN_BITS 8
struct hotspot_scratch {
	__u64 frame[RT_JAVA_FRAME_WORDS];
	__u8 const_method[RT_JAVA_CONST_METHOD_READ];
	__u64 const_method_at; /* where const_method was read */
	__u8 pool[RT_JAVA_POOL_READ];
	__u8 blob[RT_JAVA_BLOB_READ];
	__u8 nm[RT_JAVA_NM_READ];
	__u8 stream[16]; /* a scope's head in the nmethod's scopes data */
	struct java_scope {
		__u64 scopes, metadata; /* the nmethod's scopes data and metadata */
		__u32 at, sender, index, bci; /* a scope's numbers, as they are decoded */
	} scope;
	__u64 word;
	__s32 pc_offset;
	__u8 byte;
	struct rt_hotspot_method_key seen[1u << JAVA_SEEN_BITS];
	struct rt_hotspot_method_info info; /* a method's, being read */
};
struct hotspot_scratch_map {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2); /* a walk's, and a walk's that interrupted it */
	__type(key, __u32);
	__type(value, struct hotspot_scratch);
};
extern struct hotspot_scratch_map hotspot_scratch SEC(".maps");

/* The word at addr of the process, or 0 if it cannot be read (read into the
 * scratch: no slot of the walk's stack, which the verifier bounds). */
static __always_inline __u64 java_word(struct hotspot_scratch *sc, __u64 addr)
{
	if (bpf_probe_read_user(&sc->word, sizeof(sc->word), (const void *)addr))
		return 0;
	return sc->word;
}

/* A u16 or u64 at off of a head read into buf of size bytes (0 past it). */
static __always_inline __u16 java_u16(const __u8 *buf, __u32 size, __u16 off)
{
	__u32 at = off;

	return at <= size - 2 ? *(const __u16 *)&buf[at] : 0;
}

static __always_inline __u64 java_u64(const __u8 *buf, __u32 size, __u16 off)
{
	__u32 at = off;

	return at <= size - 8 ? *(const __u64 *)&buf[at] : 0;
}

/* The Symbol at sym into out (size bytes with its NUL; its first size - 1
 * bytes if longer, *cut set): 1, or 0 if it cannot be read. */
static __always_inline int java_symbol(struct hotspot_scratch *sc,
				       const struct rt_hotspot_offsets *off, __u64 sym, char *out,
				       __u32 size, __u8 *cut)
{
	__u16 len = 0;
	__u32 n;

	if (!sym || bpf_probe_read_user(&len, sizeof(len), (const void *)(sym + off->symbol_length)))
		return 0;
	n = len;
	if (n > size - 1) {
		n = size - 1;
		*cut = 1;
	}
	barrier_var(n);
	if (n > size - 1)
		return 0;
	if (bpf_probe_read_user(out, n, (const void *)(sym + off->symbol_body)))
		return 0;
	out[n] = '\0';
	return 1;
}

/* The UTF-8 symbol at index of the constant pool at pool (of length
 * entries, its tags at tags): its address, or 0 if the index is past the
 * pool or its entry of another kind. */
static __always_inline __u64 java_pool_utf8(struct hotspot_scratch *sc,
					    const struct rt_hotspot_offsets *off, __u64 pool,
					    __u64 tags, __s32 length, __u16 index)
{
	if (!index || index >= length || !tags ||
	    bpf_probe_read_user(&sc->byte, sizeof(sc->byte),
				(const void *)(tags + off->array_u1_data + index)) ||
	    sc->byte != off->utf8_tag)
		return 0;
	return java_word(sc, pool + off->pool_size + (__u64)index * 8);
}

/* The names the loader names method by, read into sc->info (its
 * ConstMethod's head in sc->const_method): its name from the constant pool
 * (the index within the pool and tagged UTF-8), its class's. A global
 * function: checked once, run once per method. */
__noinline int hotspot_read_method(const struct rt_hotspot_offsets *off,
				   struct hotspot_scratch *sc)
{
	__u64 pool, tags, holder, name_sym, class_sym = 0, file_sym, table;
	__u16 index, flags, code_size;
	__s32 length;

	if (!off || !sc)
		return 0;
	__builtin_memset(&sc->info, 0, 24);
	sc->info.name[0] = sc->info.klass[0] = sc->info.file[0] = '\0';
	pool = java_u64(sc->const_method, RT_JAVA_CONST_METHOD_READ, off->const_method_constants);
	index = java_u16(sc->const_method, RT_JAVA_CONST_METHOD_READ,
			 off->const_method_name_index);
	if (!pool || bpf_probe_read_user(sc->pool, sizeof(sc->pool), (const void *)pool))
		return 0;
	tags = java_u64(sc->pool, RT_JAVA_POOL_READ, off->pool_tags);
	holder = java_u64(sc->pool, RT_JAVA_POOL_READ, off->pool_holder);
	length = (__s32)(java_u64(sc->pool, RT_JAVA_POOL_READ, off->pool_length) & 0xffffffff);
	if (off->pool_length > RT_JAVA_POOL_READ - 8)
		return 0;
	name_sym = java_pool_utf8(sc, off, pool, tags, length, index);
	if (holder)
		class_sym = java_word(sc, holder + off->klass_name);
	/* its class's source file, a UTF-8 symbol of the pool */
	file_sym = java_pool_utf8(sc, off, pool, tags, length,
				  java_u16(sc->pool, RT_JAVA_POOL_READ, off->pool_source_file));
	sc->info.file_ok = java_symbol(sc, off, file_sym, sc->info.file, RT_JAVA_FILE_BYTES,
				       &sc->info.file_cut);
	/* its line number table, after its bytecodes (a longer one than the
	 * room is not copied: its lines could not be told right) */
	flags = java_u16(sc->const_method, RT_JAVA_CONST_METHOD_READ, off->const_method_flags);
	code_size = java_u16(sc->const_method, RT_JAVA_CONST_METHOD_READ,
			     off->const_method_code_size);
	table = sc->const_method_at + off->const_method_size + code_size;
	if ((flags & off->has_line_table) && sc->const_method_at &&
	    !bpf_probe_read_user(sc->info.lines, sizeof(sc->info.lines), (const void *)table))
		sc->info.lines_len = RT_JAVA_LINES_BYTES;
	sc->info.name_ok = java_symbol(sc, off, name_sym, sc->info.name, RT_JAVA_NAME_BYTES,
				       &sc->info.name_cut);
	sc->info.class_ok = java_symbol(sc, off, class_sym, sc->info.klass, RT_JAVA_CLASS_BYTES,
					&sc->info.class_cut);
	return 1;
}

/* The key of method (with its tag) of tgid if the loader has not been told
 * of it (the cache skips repeats, the map those the loader has not taken
 * yet), else NULL. */
static __always_inline struct rt_hotspot_method_key *java_new_key(struct hotspot_scratch *sc,
								  __u32 tgid, __u64 method,
								  __u32 tag)
{
	__u32 slot = ((__u32)(method >> 4) * 0x9E3779B1u ^ tgid ^ tag) >> (32 - JAVA_SEEN_BITS);
	struct rt_hotspot_method_key *e = &sc->seen[slot & ((1u << JAVA_SEEN_BITS) - 1)];

	if (e->method == method && e->tgid == tgid && e->tag == tag)
		return NULL;
	e->method = method;
	e->tgid = tgid;
	e->tag = tag;
	return bpf_map_lookup_elem(&hotspot_methods_seen, e) ? NULL : e;
}

/* Tells the loader of e with what sc->info holds of it. */
static __always_inline void java_tell(struct hotspot_scratch *sc, struct rt_unwind_counters *c,
				      const struct rt_hotspot_method_key *e)
{
	sc->info.time = bpf_ktime_get_ns();
	if (bpf_map_update_elem(&hotspot_methods_seen, e, &sc->info, BPF_NOEXIST) == -7 /* E2BIG */)
		c->hotspot.seen_full++;
	hotspot_seen_added++;
}

/* method's ConstMethod head into sc->const_method: its address, or 0. */
static __always_inline __u64 java_const_method(struct hotspot_scratch *sc,
					       const struct rt_hotspot_offsets *off, __u64 method)
{
	__u64 const_method;

	sc->const_method_at = 0;
	if (!method || method >= RT_PY_CODE_MAX || (method & 7) ||
	    !(const_method = java_word(sc, method + off->method_const_method)) ||
	    bpf_probe_read_user(sc->const_method, sizeof(sc->const_method),
				(const void *)const_method))
		return 0;
	sc->const_method_at = const_method;
	return const_method;
}

/* The callchain word of method (its ConstMethod at const_method) at bci; a
 * method the loader has not been told of queued in jc->to_name, to be
 * named after the frame (hotspot_name_methods). */
static __always_inline __u64 java_frame_word(struct hotspot_scratch *sc, struct java_cursor *jc,
					     __u64 method, __u64 const_method, __u64 bci)
{
	__u32 tag = (__u32)(((const_method >> 3) * 0x9E3779B97F4A7C15ull) >> 40) % RT_PY_TAGS;
	__u32 k = jc->nr_to_name;

	if (bci >= RT_PY_CODE_SPAN)
		bci = RT_PY_CODE_SPAN - 1;
	/* (a frame writes RT_JAVA_MAX_INLINE methods at most: room for each) */
	if (k < RT_JAVA_MAX_INLINE && java_new_key(sc, jc->tgid, method, tag)) {
		jc->to_name[k] = (struct rt_hotspot_method_key){ .tgid = jc->tgid, .tag = tag,
								 .method = method };
		jc->nr_to_name = k + 1;
	}
	return RT_JAVA_ADDR_OF(method, tag, bci);
}

/* The scratch of jc's walk and its JVM's offsets. */
static __always_inline struct hotspot_scratch *java_scratch(const struct java_cursor *jc,
							    const struct rt_hotspot_process *jp,
							    const struct rt_hotspot_offsets **off)
{
	__u32 at = jc->nested ? 1 : 0;

	*off = bpf_map_lookup_elem(&hotspot_offsets, &jp->offsets);
	return *off ? bpf_map_lookup_elem(&hotspot_scratch, &at) : NULL;
}

/* The Java frame the interpreter's native frame at jc->fp (its frame
 * pointer) runs, written at word jc->n of s in place of the native pc: 1;
 * 0 to keep the native frame (counted why). jc->sender_sp: its caller's sp
 * (where a compiled caller's frame is found from). A global function,
 * checked once. */
__noinline int hotspot_frame(struct sample_words *s, struct java_cursor *jc,
			     const struct rt_hotspot_process *jp, struct rt_unwind_counters *c)
{
	const struct rt_hotspot_offsets *off = NULL;
	struct hotspot_scratch *sc;
	__u64 method, bcp, const_method, code, fp, bci = 0;
	__u32 method_at, bcp_at, n;
	__u16 code_size;

	if (!s || !jc || !jp || !c || jc->n >= SCRATCH_WORDS)
		return 0;
	n = jc->n;
	fp = jc->fp;
	c->hotspot.interp_frames++;
	sc = java_scratch(jc, jp, &off);
	if (!off || !sc || fp < RT_JAVA_FRAME_WORDS * 8 || (fp & 7) ||
	    bpf_probe_read_user(sc->frame, sizeof(sc->frame),
				(const void *)(fp - RT_JAVA_FRAME_WORDS * 8))) {
		c->hotspot.read_failed++;
		return 0;
	}
	/* word i of the frame read is RT_JAVA_FRAME_WORDS - i below fp; the
	 * caller's sp one below it */
	jc->sender_sp = sc->frame[RT_JAVA_FRAME_WORDS - 1];
	method_at = RT_JAVA_FRAME_WORDS - off->frame_method_word;
	bcp_at = RT_JAVA_FRAME_WORDS - off->frame_bcp_word;
	if (method_at >= RT_JAVA_FRAME_WORDS || bcp_at >= RT_JAVA_FRAME_WORDS) {
		c->hotspot.read_failed++;
		return 0;
	}
	method = sc->frame[method_at];
	bcp = sc->frame[bcp_at];
	if (!method || method >= RT_PY_CODE_MAX || (method & 7)) {
		c->hotspot.bad_method++;
		return 0;
	}
	const_method = java_const_method(sc, off, method);
	if (!const_method) {
		c->hotspot.read_failed++;
		return 0;
	}
	code = const_method + off->const_method_size;
	code_size = java_u16(sc->const_method, RT_JAVA_CONST_METHOD_READ,
			     off->const_method_code_size);
	/* the sampled frame's bytecode pointer is in r13 (the template
	 * interpreter's), its slot written only at calls */
	if (jc->first && jc->bcp_reg >= code && jc->bcp_reg < code + code_size)
		bcp = jc->bcp_reg;
	if (bcp >= code && bcp < code + code_size)
		bci = bcp - code;
	else
		c->hotspot.no_bci++;
	s->w[n] = java_frame_word(sc, jc, method, const_method, bci);
	c->hotspot.written++;
	return 1;
}

/* Tells the loader of the methods queued in jc->to_name by the frame just
 * written, each with its names (read here, in the process's context). A
 * global function, checked once. */
__noinline int hotspot_name_methods(struct java_cursor *jc, const struct rt_hotspot_process *jp,
				    struct rt_unwind_counters *c)
{
	const struct rt_hotspot_offsets *off = NULL;
	struct hotspot_scratch *sc;

	if (!jc || !jp || !c)
		return 0;
	sc = java_scratch(jc, jp, &off);
	if (!off || !sc) {
		jc->nr_to_name = 0;
		return 0;
	}
	for (__u32 k = 0; k < RT_JAVA_MAX_INLINE && k < jc->nr_to_name; k++) {
		if (java_const_method(sc, off, jc->to_name[k].method))
			hotspot_read_method(off, sc);
		else
			__builtin_memset(&sc->info, 0, 24);
		if (!sc->info.name_ok || !sc->info.class_ok)
			c->hotspot.names_unread++;
		java_tell(sc, c, &jc->to_name[k]);
	}
	jc->nr_to_name = 0;
	return 0;
}

#endif
