/* SPDX-License-Identifier: GPL-2.0-only */
/* hotspot_compiled.bpf.h: the Java methods a native frame of a HotSpot JVM's compiled
 * code runs (an nmethod's, and those inlined into it, from its debug information),
 * written in its place in a -g walk, and the frame's size, which its caller is found by. */
#ifndef RINGTRACE_HOTSPOT_COMPILED_BPF_H
#define RINGTRACE_HOTSPOT_COMPILED_BPF_H

#include "hotspot_frames.bpf.h"

/* The number at *at of a scope's head as HotSpot compresses it
 * (CompressedReadStream::read_int: UNSIGNED5, a byte below 192 ends it),
 * within the 16 bytes read: false past them. */
static __always_inline bool java_unsigned5(const __u8 *b, __u32 *at, __u32 *out)
{
	__u32 sum = 0, shift = 0;

	for (int i = 0; i < 5; i++, shift += 6) {
		__u32 k = *at, v;

		if (k >= 16)
			return false;
		v = b[k];
		*at = k + 1;
		sum += v << shift;
		if (v < 192) {
			*out = sum;
			return true;
		}
	}
	*out = sum;
	return true;
}

/* "nmethod" and its NUL, read as a little-endian word: a compiled method's
 * blob name; "native n", the start of a native method's wrapper's ("native
 * nmethod"), an nmethod without scopes. */
#define JAVA_NMETHOD_NAME 0x00646f6874656d6eULL
#define JAVA_NATIVE_NMETHOD_NAME 0x6e2065766974616eULL

/* The start of the blob holding jc->pc in its code heap h (from the heap's
 * segment map: a block's first segment 0, each other the number of
 * segments to step back, 0xff free): 0 if none. */
static __always_inline __u64 java_blob_of(struct hotspot_scratch *sc,
					  const struct rt_hotspot_process *jp,
					  const struct rt_hotspot_heap *h, __u64 pc)
{
	__u64 seg = (pc - h->low) >> jp->segment_shift;

	for (int hop = 0; hop < RT_JAVA_SEGMAP_HOPS; hop++) {
		if (bpf_probe_read_user(&sc->byte, 1, (const void *)(h->segmap + seg)) ||
		    sc->byte == 0xff || sc->byte > seg)
			return 0;
		if (!sc->byte)
			return h->low + (seg << jp->segment_shift);
		seg -= sc->byte;
	}
	return 0;
}

/* The callchain word of a code blob that is no compiled method's (a stub,
 * an adapter: permanent in the code cache), as a Java frame's at its
 * address, the tag a hash of its name's; its name (name_at) told once. */
static __always_inline __u64 java_blob_word(struct hotspot_scratch *sc,
					    struct rt_unwind_counters *c, __u32 tgid, __u64 blob,
					    __u64 name_at)
{
	__u32 tag = (__u32)(((name_at >> 3) * 0x9E3779B97F4A7C15ull) >> 40) % RT_PY_TAGS;
	struct rt_hotspot_method_key *e = java_new_key(sc, tgid, blob, tag);

	if (e) {
		__builtin_memset(&sc->info, 0, 24);
		sc->info.is_stub = 1;
		sc->info.name_ok =
			bpf_probe_read_user_str(sc->info.name, sizeof(sc->info.name),
						(const void *)name_at) > 0;
		java_tell(sc, c, e);
	}
	return RT_JAVA_ADDR_OF(blob, tag, 0);
}

/* The first PcDesc at or after pc_offset among the n at pcs (sorted by it):
 * its scope's decode offset, or 0 (none, or no scope). */
static __always_inline __u32 java_scope_at(struct hotspot_scratch *sc,
					   const struct rt_hotspot_offsets *off, __u64 pcs,
					   __u32 n, __s32 pc_offset)
{
	__u32 lo = 0, hi = n, mid;

	for (int k = 0; k < 24 && lo < hi; k++) {
		mid = lo + (hi - lo) / 2;
		if (bpf_probe_read_user(&sc->pc_offset, sizeof(sc->pc_offset),
					(const void *)(pcs + (__u64)mid * off->pc_desc_size +
						       off->pc_desc_pc_offset)))
			return 0;
		if (sc->pc_offset < pc_offset)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo >= n || bpf_probe_read_user(&sc->pc_offset, sizeof(sc->pc_offset),
					   (const void *)(pcs + (__u64)lo * off->pc_desc_size +
							  off->pc_desc_scope)))
		return 0;
	return sc->pc_offset > 0 ? (__u32)sc->pc_offset : 0;
}

/* What the blob of a code cache frame is (jc->blob_kind). */
enum { JAVA_BLOB_NONE, JAVA_BLOB_STUB, JAVA_BLOB_NMETHOD, JAVA_BLOB_NATIVE };

/* A native frame at jc->pc in the JVM's code cache, outside its
 * interpreter: its code blob found (jc->blob, its head in the scratch's
 * blob, its name's address jc->blob_name, its kind jc->blob_kind), and
 * jc->row its step when the blob gives its frame's size (jc->has_row): its
 * kind, JAVA_BLOB_NONE if none (counted). A global function, checked once. */
__noinline int hotspot_blob_frame(struct java_cursor *jc, const struct rt_hotspot_process *jp,
				  struct rt_unwind_counters *c)
{
	const struct rt_hotspot_offsets *off = NULL;
	const struct rt_hotspot_heap *h = NULL;
	struct hotspot_scratch *sc;
	__s32 frame_size, complete;
	__u64 blob, code_begin, pc;

	if (!jc || !jp || !c)
		return JAVA_BLOB_NONE;
	pc = jc->pc;
	jc->blob_kind = JAVA_BLOB_NONE;
	c->hotspot.code_frames++;
	sc = java_scratch(jc, jp, &off);
	if (!off || !sc) {
		c->hotspot.no_blob++;
		return JAVA_BLOB_NONE;
	}
	for (int k = 0; k < RT_JAVA_HEAPS; k++)
		if (k < jp->nr_heaps && pc > jp->heaps[k].low && pc <= jp->heaps[k].high) {
			h = &jp->heaps[k];
			break;
		}
	/* (a return address is after its call, which may end its blob) */
	blob = h ? java_blob_of(sc, jp, h, jc->leaf ? pc : pc - 1) : 0;
	if (!blob || bpf_probe_read_user(sc->blob, sizeof(sc->blob),
					 (const void *)(blob + off->heap_block_size))) {
		c->hotspot.no_blob++;
		return JAVA_BLOB_NONE;
	}
	jc->blob = blob + off->heap_block_size;
	frame_size = (__s32)java_u64(sc->blob, RT_JAVA_BLOB_READ, off->blob_frame_size);
	complete = (__s32)java_u64(sc->blob, RT_JAVA_BLOB_READ, off->blob_frame_complete);
	code_begin = java_u64(sc->blob, RT_JAVA_BLOB_READ, off->blob_code_begin);
	/* its code holds the pc (the call's), or the blob is not the frame's:
	 * one freed, or another made in its memory, since the map was read */
	if (code_begin > (jc->leaf ? pc : pc - 1) ||
	    java_u64(sc->blob, RT_JAVA_BLOB_READ, off->blob_code_end) <= (jc->leaf ? pc : pc - 1)) {
		c->hotspot.stale++;
		return JAVA_BLOB_NONE;
	}
	/* its caller: frame_size words up, the return address and the saved
	 * rbp below it; the sampled frame may not be built yet */
	if (frame_size > 0 && frame_size < (1 << 16)) {
		if (jc->leaf && (pc < code_begin || pc - code_begin < (__u64)(__s64)complete)) {
			c->hotspot.prologue++;
		} else {
			jc->row = (struct rt_unwind_row){ .cfa = RT_CFA_RSP,
							  .cfa_offset = frame_size * 8,
							  .rbp = RT_RBP_SAVED,
							  .rbp_offset = -16,
							  .rbx = RT_RBP_SAME };
			jc->has_row = 1;
		}
	}
	jc->blob_name = java_u64(sc->blob, RT_JAVA_BLOB_READ, off->blob_name);
	switch (java_word(sc, jc->blob_name)) {
	case 0:
		c->hotspot.no_blob++;
		return JAVA_BLOB_NONE;
	case JAVA_NMETHOD_NAME:
		jc->blob_kind = JAVA_BLOB_NMETHOD;
		break;
	case JAVA_NATIVE_NMETHOD_NAME:
		jc->blob_kind = JAVA_BLOB_NATIVE;
		break;
	default:
		jc->blob_kind = JAVA_BLOB_STUB;
		break;
	}
	return jc->blob_kind;
}

/* The frame whose blob hotspot_blob_frame found: a compiled method's (an
 * nmethod's) written at word jc->n of s as its Java frames, the innermost
 * inlined method first (at most jc->room); a stub's as its blob: their
 * number; 0 keeps the native frame (one not readable, counted). A global
 * function, checked once. */
__noinline int hotspot_compiled_frame(struct sample_words *s, struct java_cursor *jc,
				      const struct rt_hotspot_process *jp,
				      struct rt_unwind_counters *c)
{
	const struct rt_hotspot_offsets *off = NULL;
	struct hotspot_scratch *sc;
	struct java_scope *sd;
	__u64 method, const_method, code_begin;
	__u32 decode = 0, written = 0, n, nr_pcs;
	__s32 pcs_at, deps_at;

	if (!s || !jc || !jp || !c)
		return 0;
	n = jc->n;
	sc = java_scratch(jc, jp, &off);
	if (!off || !sc || n >= SCRATCH_WORDS) {
		c->hotspot.bad_nmethod++;
		return 0;
	}
	if (jc->blob_kind == JAVA_BLOB_STUB) {
		/* a stub, an adapter: written as its blob, named by its name */
		c->hotspot.stubs++;
		s->w[n] = java_blob_word(sc, c, jc->tgid, jc->blob, jc->blob_name);
		return 1;
	}
	/* (the nmethod's sections in the scratch: values kept in registers
	 * across the loop's calls would deepen this function's stack) */
	sd = &sc->scope;
	method = java_u64(sc->blob, RT_JAVA_BLOB_READ, off->nm_method);
	sd->scopes = java_u64(sc->blob, RT_JAVA_BLOB_READ, off->nm_scopes_data);
	code_begin = java_u64(sc->blob, RT_JAVA_BLOB_READ, off->blob_code_begin);
	if (bpf_probe_read_user(sc->nm, sizeof(sc->nm), (const void *)(jc->blob + off->nm_read_at))) {
		c->hotspot.bad_nmethod++;
		return 0;
	}
	sd->metadata = jc->blob + (__s32)java_u64(sc->nm, RT_JAVA_NM_READ, off->nm_metadata);
	pcs_at = (__s32)java_u64(sc->nm, RT_JAVA_NM_READ, off->nm_scopes_pcs);
	deps_at = (__s32)java_u64(sc->nm, RT_JAVA_NM_READ, off->nm_dependencies);
	nr_pcs = deps_at > pcs_at && off->pc_desc_size ? (__u32)(deps_at - pcs_at) / off->pc_desc_size
						       : 0;
	if (jc->blob_kind == JAVA_BLOB_NMETHOD && nr_pcs < (1u << 20) && jc->pc >= code_begin)
		decode = java_scope_at(sc, off, jc->blob + pcs_at, nr_pcs,
				       (__s32)(jc->pc - code_begin));
	if (!decode) {
		/* no debug information at this pc (or a native method's
		 * wrapper): the method alone */
		c->hotspot.no_scope++;
		const_method = java_const_method(sc, off, method);
		if (!const_method) {
			c->hotspot.bad_nmethod++;
			return 0;
		}
		s->w[n] = java_frame_word(sc, jc, method, const_method, 0);
		c->hotspot.compiled++;
		c->hotspot.compiled_java++;
		return 1;
	}
	/* each scope: its sender's decode offset, its method's index in the
	 * nmethod's metadata (from 1), its bci + 1 (InvocationEntryBci, -1) */
	for (int k = 0; k < RT_JAVA_MAX_INLINE && decode; k++) {
		if (written >= jc->room || n + written >= SCRATCH_WORDS)
			break;
		sd->at = 0;
		if (bpf_probe_read_user(sc->stream, sizeof(sc->stream),
					(const void *)(sd->scopes + decode)) ||
		    !java_unsigned5(sc->stream, &sd->at, &sd->sender) ||
		    !java_unsigned5(sc->stream, &sd->at, &sd->index) ||
		    !java_unsigned5(sc->stream, &sd->at, &sd->bci) || !sd->index ||
		    !(method = java_word(sc, sd->metadata + ((__u64)sd->index - 1) * 8)))
			break;
		const_method = java_const_method(sc, off, method);
		if (!const_method)
			break;
		s->w[n + written] =
			java_frame_word(sc, jc, method, const_method, sd->bci ? sd->bci - 1 : 0);
		written++;
		decode = sd->sender;
	}
	if (!written) {
		c->hotspot.bad_nmethod++;
		return 0;
	}
	if (decode)
		c->hotspot.inlined_cut++;
	c->hotspot.compiled++;
	c->hotspot.compiled_java += written;
	return written;
}

/* The frame the walk of g is at, in its JVM's code cache (g->jvm): as the
 * interpreter's (a pc in its code: the call's, a return address less one)
 * or a blob's, written at word g->java.n of s as the Java frames it runs,
 * else as its pc; g->java.row how to step from it, if has_row. Returns the
 * words written. A global function, checked once. */
__noinline long hotspot_walk_frame(struct sample_words *s, struct walk_guesses *g,
				   struct rt_unwind_counters *c)
{
	struct java_cursor *jc;
	long java = 0;
	__u64 call;

	if (!s || !g || !c || g->java.n >= SCRATCH_WORDS)
		return 0;
	jc = &g->java;
	jc->leaf = g->walk.r.exact_ip;
	jc->first = jc->room == RT_MAX_STACK_DEPTH;
	jc->pc = g->walk.r.ip;
	jc->sp = g->walk.r.sp;
	jc->fp = g->walk.r.bp;
	jc->has_row = 0;
	jc->nr_to_name = 0;
	/* the sp an interpreted callee left (the frame before's), for this one */
	jc->callee_sender_sp = jc->sender_sp;
	jc->sender_sp = 0;
	call = jc->leaf ? jc->pc : jc->pc - 1;
	if (call >= g->jvm.interp_start && call < g->jvm.interp_end)
		java = hotspot_frame(s, jc, &g->jvm, c);
	else if (hotspot_blob_frame(jc, &g->jvm, c) != JAVA_BLOB_NONE)
		java = hotspot_compiled_frame(s, jc, &g->jvm, c);
	/* a compiled frame below an interpreted one: its frame from the sp
	 * its callee left */
	if (jc->has_row && jc->callee_sender_sp >= jc->sp &&
	    jc->callee_sender_sp - jc->sp < STACK_PAGE)
		jc->row.cfa_offset += (__s32)(jc->callee_sender_sp - jc->sp);
	if (java <= 0 && jc->n < SCRATCH_WORDS)
		s->w[jc->n] = jc->pc;
	/* the methods it was written with that are new, named */
	if (jc->nr_to_name)
		hotspot_name_methods(jc, &g->jvm, c);
	return java > 0 ? java : 1;
}

#endif
