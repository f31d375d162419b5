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

/* A native frame at jc->pc in the JVM's code cache, outside its
 * interpreter: a compiled method's (an nmethod's) is written at word jc->n
 * of s as its Java frames, the innermost inlined method first (at most
 * jc->room): their number; 0 keeps the native frame (a stub's, or one not
 * readable). Either way jc->row is the frame's step when its blob gives its
 * size (jc->has_row). A global function, checked once. */
__noinline int hotspot_compiled_frame(struct sample_words *s, struct java_cursor *jc,
				      const struct rt_hotspot_process *jp,
				      struct rt_unwind_counters *c)
{
	const struct rt_hotspot_offsets *off = NULL;
	const struct rt_hotspot_heap *h = NULL;
	struct hotspot_scratch *sc;
	__u64 blob, code_begin, name, name_at, method, const_method, pcs, metadata, scopes, pc;
	__s32 frame_size, complete, pcs_at, deps_at, metadata_at;
	__u32 decode, written = 0, n, nr_pcs;

	if (!s || !jc || !jp || !c || jc->n >= SCRATCH_WORDS)
		return 0;
	n = jc->n;
	pc = jc->pc;
	c->hotspot.code_frames++;
	sc = java_scratch(jc, jp, &off);
	if (!off || !sc) {
		c->hotspot.no_blob++;
		return 0;
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
		return 0;
	}
	blob += off->heap_block_size;
	frame_size = (__s32)java_u64(sc->blob, RT_JAVA_BLOB_READ, off->blob_frame_size);
	complete = (__s32)java_u64(sc->blob, RT_JAVA_BLOB_READ, off->blob_frame_complete);
	code_begin = java_u64(sc->blob, RT_JAVA_BLOB_READ, off->blob_code_begin);
	name = java_u64(sc->blob, RT_JAVA_BLOB_READ, off->blob_name);
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
	name_at = name;
	if (!java_word(sc, name_at, &name)) {
		c->hotspot.no_blob++;
		return 0;
	}
	if (name != JAVA_NMETHOD_NAME && name != JAVA_NATIVE_NMETHOD_NAME) {
		/* a stub, an adapter: written as its blob, named by its name */
		c->hotspot.stubs++;
		s->w[n] = java_blob_word(sc, c, jc->tgid, blob, name_at);
		return 1;
	}
	method = java_u64(sc->blob, RT_JAVA_BLOB_READ, off->nm_method);
	scopes = java_u64(sc->blob, RT_JAVA_BLOB_READ, off->nm_scopes_data);
	if (bpf_probe_read_user(sc->nm, sizeof(sc->nm), (const void *)(blob + off->nm_read_at))) {
		c->hotspot.bad_nmethod++;
		return 0;
	}
	metadata_at = (__s32)java_u64(sc->nm, RT_JAVA_NM_READ, off->nm_metadata);
	pcs_at = (__s32)java_u64(sc->nm, RT_JAVA_NM_READ, off->nm_scopes_pcs);
	deps_at = (__s32)java_u64(sc->nm, RT_JAVA_NM_READ, off->nm_dependencies);
	pcs = blob + pcs_at;
	metadata = blob + metadata_at;
	nr_pcs = deps_at > pcs_at && off->pc_desc_size ? (__u32)(deps_at - pcs_at) / off->pc_desc_size
						       : 0;
	decode = name == JAVA_NMETHOD_NAME && nr_pcs < (1u << 20) && pc >= code_begin
			 ? java_scope_at(sc, off, pcs, nr_pcs, (__s32)(pc - code_begin))
			 : 0;
	if (!decode) {
		/* no debug information at this pc (or a native method's
		 * wrapper): the method alone */
		c->hotspot.no_scope++;
		const_method = java_const_method(sc, off, method);
		if (!const_method) {
			c->hotspot.bad_nmethod++;
			return 0;
		}
		s->w[n] = java_frame_word(sc, c, off, jc->tgid, method, const_method, 0);
		c->hotspot.compiled++;
		c->hotspot.compiled_java++;
		return 1;
	}
	/* each scope: its sender's decode offset, its method's index in the
	 * nmethod's metadata (from 1), its bci + 1 (InvocationEntryBci, -1) */
	for (int k = 0; k < RT_JAVA_MAX_INLINE && decode; k++) {
		__u32 at = 0, sender, index, bci;
		__u64 word, m;

		if (written >= jc->room || n + written >= SCRATCH_WORDS)
			break;
		if (bpf_probe_read_user(sc->stream, sizeof(sc->stream),
					(const void *)(scopes + decode)) ||
		    !java_unsigned5(sc->stream, &at, &sender) ||
		    !java_unsigned5(sc->stream, &at, &index) ||
		    !java_unsigned5(sc->stream, &at, &bci) || !index ||
		    !java_word(sc, metadata + ((__u64)index - 1) * 8, &m))
			break;
		const_method = java_const_method(sc, off, m);
		if (!const_method)
			break;
		word = java_frame_word(sc, c, off, jc->tgid, m, const_method, bci ? bci - 1 : 0);
		if (n + written < SCRATCH_WORDS)
			s->w[n + written] = word;
		written++;
		decode = sender;
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

#endif
