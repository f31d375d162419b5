/* SPDX-License-Identifier: GPL-2.0-only */
/* hotspot_walk_layout.c: what the -g walk of a running HotSpot JVM needs of it,
 * from the layout the JVM describes of itself: the offsets a frame's method is
 * named through, where its template interpreter's code is, and its interpreter
 * frames' slots, for the versions whose frame layout is known. */
#include "symbols/hotspot_walk_layout.h"

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "lib/log.h"
#include "sys/process_memory.h"

/* The feature versions whose x86-64 interpreter frames are known, as
 * frame_x86.hpp lays them out below the frame pointer: the sender's sp (-1,
 * exported), the last sp (-2, exported), the Method* (-3), the mirror, the
 * method data pointer, the cache, the locals, the bytecode pointer (-8).
 * Checked against this machine's OpenJDK 17 (test_hotspot_frames); another
 * version is unwound natively, never misread. */
static const int known_majors[] = { 17 };

/* An offset narrowed to the walk's u16, within limit bytes read: false past it. */
static bool narrow(uint64_t v, uint64_t limit, __u16 *out)
{
	if (v > limit || v > 0xffff)
		return false;
	*out = (__u16)v;
	return true;
}

static bool major_known(int major)
{
	for (size_t i = 0; i < sizeof(known_majors) / sizeof(known_majors[0]); i++)
		if (known_majors[i] == major)
			return true;
	return false;
}

/* The interpreter's code: AbstractInterpreter::_code, a StubQueue, its
 * _stub_buffer and _buffer_limit. */
static int interpreter_code(uint32_t pid, const struct hotspot_vmstructs *v,
			    struct rt_hotspot_process *p, char *err, size_t errlen)
{
	uint64_t code_at, queue, buffer_at, limit_at, buffer;
	int32_t limit;
	int r;

	if (!hotspot_static_address(v, "AbstractInterpreter", "_code", &code_at) ||
	    !hotspot_field_offset(v, "StubQueue", "_stub_buffer", &buffer_at) ||
	    !hotspot_field_offset(v, "StubQueue", "_buffer_limit", &limit_at)) {
		rt_format(err, errlen, "the JVM describes no AbstractInterpreter::_code or StubQueue");
		return -ENOENT;
	}
	if ((r = process_memory_u64(pid, code_at, &queue)) ||
	    (queue && ((r = process_memory_u64(pid, queue + buffer_at, &buffer)) ||
		       (r = process_memory_read(pid, queue + limit_at, &limit, sizeof(limit)))))) {
		rt_format(err, errlen, "cannot read its interpreter's code: %s", strerror(-r));
		return r;
	}
	if (!queue || !buffer || limit <= 0) {
		rt_format(err, errlen, "its interpreter is not generated yet");
		return -EAGAIN;
	}
	p->interp_start = buffer;
	p->interp_end = buffer + (uint64_t)limit;
	return 0;
}

/* The code cache: its bounds (CodeCache::_low_bound, _high_bound), and its
 * heaps (CodeCache::_heaps, a GrowableArray<CodeHeap*>), each's reserved
 * memory and segment map (VirtualSpace's _low_boundary, _high_boundary) and
 * segment size. */
static int code_cache(uint32_t pid, const struct hotspot_vmstructs *v,
		      struct rt_hotspot_process *p, char *err, size_t errlen)
{
	uint64_t low_at, high_at, heaps_at, heaps, len_at, data_at, data, memory, segmap, shift_at;
	uint64_t low_boundary, high_boundary;
	int32_t len, shift = 0;
	int r;

	if (!hotspot_static_address(v, "CodeCache", "_low_bound", &low_at) ||
	    !hotspot_static_address(v, "CodeCache", "_high_bound", &high_at) ||
	    !hotspot_static_address(v, "CodeCache", "_heaps", &heaps_at) ||
	    !hotspot_field_offset(v, "GrowableArrayBase", "_len", &len_at) ||
	    !hotspot_field_offset(v, "GrowableArray<int>", "_data", &data_at) ||
	    !hotspot_field_offset(v, "CodeHeap", "_memory", &memory) ||
	    !hotspot_field_offset(v, "CodeHeap", "_segmap", &segmap) ||
	    !hotspot_field_offset(v, "CodeHeap", "_log2_segment_size", &shift_at) ||
	    !hotspot_field_offset(v, "VirtualSpace", "_low_boundary", &low_boundary) ||
	    !hotspot_field_offset(v, "VirtualSpace", "_high_boundary", &high_boundary)) {
		rt_format(err, errlen, "the JVM describes no CodeCache, CodeHeap or VirtualSpace");
		return -ENOENT;
	}
	if ((r = process_memory_read(pid, low_at, &p->code_start, 8)) ||
	    (r = process_memory_read(pid, high_at, &p->code_end, 8)) ||
	    (r = process_memory_u64(pid, heaps_at, &heaps)) || !heaps ||
	    (r = process_memory_read(pid, heaps + len_at, &len, sizeof(len))) ||
	    (r = process_memory_u64(pid, heaps + data_at, &data)))
		goto unreadable;
	if (len <= 0 || len > RT_JAVA_HEAPS || !data || p->code_start >= p->code_end) {
		rt_format(err, errlen, "its code cache has %d heaps (at most %d known here)",
			  (int)len, RT_JAVA_HEAPS);
		return -ERANGE;
	}
	for (int i = 0; i < len; i++) {
		struct rt_hotspot_heap *h = &p->heaps[i];
		uint64_t heap;
		int32_t s;

		if ((r = process_memory_u64(pid, data + (uint64_t)i * 8, &heap)) || !heap ||
		    (r = process_memory_read(pid, heap + memory + low_boundary, &h->low, 8)) ||
		    (r = process_memory_read(pid, heap + memory + high_boundary, &h->high, 8)) ||
		    (r = process_memory_read(pid, heap + segmap + low_boundary, &h->segmap, 8)) ||
		    (r = process_memory_read(pid, heap + shift_at, &s, sizeof(s))))
			goto unreadable;
		if (s <= 0 || s > 16 || (i && s != shift) || h->low >= h->high) {
			rt_format(err, errlen, "its code heaps are not laid out as known here");
			return -ERANGE;
		}
		shift = s;
	}
	p->nr_heaps = (uint8_t)len;
	p->segment_shift = (uint8_t)shift;
	return 0;
unreadable:
	rt_format(err, errlen, "cannot read its code cache: %s", r ? strerror(-r) : "none yet");
	return r ? r : -EAGAIN;
}

/* A field's offset (or a type's size) the walk reads, narrowed within limit
 * into the offsets at at. */
struct walk_field {
	const char *type, *field;
	size_t at;   /* in struct rt_hotspot_offsets */
	uint64_t limit;
	bool size;   /* the type's size, not a field's offset */
};

/* The offsets of a compiled frame's blob and nmethod the walk reads, and of a
 * class's source file. */
static int compiled_offsets(const struct hotspot_vmstructs *v, struct rt_hotspot_offsets *o,
			    char *err, size_t errlen)
{
	static const struct walk_field fields[] = {
		{ "HeapBlock", NULL, offsetof(struct rt_hotspot_offsets, heap_block_size), 0xffff,
		  true },
		{ "CodeBlob", "_frame_complete_offset",
		  offsetof(struct rt_hotspot_offsets, blob_frame_complete), RT_JAVA_BLOB_READ - 8, false },
		{ "CodeBlob", "_frame_size", offsetof(struct rt_hotspot_offsets, blob_frame_size),
		  RT_JAVA_BLOB_READ - 8, false },
		{ "CodeBlob", "_code_begin", offsetof(struct rt_hotspot_offsets, blob_code_begin),
		  RT_JAVA_BLOB_READ - 8, false },
		{ "CodeBlob", "_code_end", offsetof(struct rt_hotspot_offsets, blob_code_end),
		  RT_JAVA_BLOB_READ - 8, false },
		{ "CodeBlob", "_name", offsetof(struct rt_hotspot_offsets, blob_name),
		  RT_JAVA_BLOB_READ - 8, false },
		{ "CompiledMethod", "_method", offsetof(struct rt_hotspot_offsets, nm_method),
		  RT_JAVA_BLOB_READ - 8, false },
		{ "CompiledMethod", "_scopes_data_begin",
		  offsetof(struct rt_hotspot_offsets, nm_scopes_data), RT_JAVA_BLOB_READ - 8, false },
		{ "nmethod", "_metadata_offset", offsetof(struct rt_hotspot_offsets, nm_metadata),
		  0xffff, false },
		{ "nmethod", "_scopes_pcs_offset", offsetof(struct rt_hotspot_offsets, nm_scopes_pcs),
		  0xffff, false },
		{ "nmethod", "_dependencies_offset",
		  offsetof(struct rt_hotspot_offsets, nm_dependencies), 0xffff, false },
		{ "PcDesc", NULL, offsetof(struct rt_hotspot_offsets, pc_desc_size), 0xffff, true },
		{ "PcDesc", "_pc_offset", offsetof(struct rt_hotspot_offsets, pc_desc_pc_offset),
		  0xffff, false },
		{ "PcDesc", "_scope_decode_offset", offsetof(struct rt_hotspot_offsets, pc_desc_scope),
		  0xffff, false },
		{ "ConstantPool", "_source_file_name_index",
		  offsetof(struct rt_hotspot_offsets, pool_source_file), RT_JAVA_POOL_READ - 2,
		  false },
	};
	__u16 *nm[] = { &o->nm_metadata, &o->nm_scopes_pcs, &o->nm_dependencies };
	int64_t entry_bci;
	__u16 first = 0xffff;

	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		const struct walk_field *f = &fields[i];
		uint64_t value;
		bool known = f->size ? hotspot_type_size(v, f->type, &value)
				     : hotspot_field_offset(v, f->type, f->field, &value);

		if (!known) {
			rt_format(err, errlen, "the JVM describes no %s%s%s", f->type,
				  f->size ? "" : "::", f->size ? "" : f->field);
			return -ENOENT;
		}
		if (!narrow(value, f->limit, (__u16 *)((char *)o + f->at))) {
			rt_format(err, errlen, "%s%s%s is past what the walk reads", f->type,
				  f->size ? "" : "::", f->size ? "" : f->field);
			return -ERANGE;
		}
	}
	/* the nmethod's offsets, read from the first of them on */
	for (size_t i = 0; i < sizeof(nm) / sizeof(nm[0]); i++)
		if (*nm[i] < first)
			first = *nm[i];
	o->nm_read_at = first & ~7;
	for (size_t i = 0; i < sizeof(nm) / sizeof(nm[0]); i++) {
		*nm[i] -= o->nm_read_at;
		if (*nm[i] > RT_JAVA_NM_READ - 8) {
			rt_format(err, errlen, "an nmethod's offsets are past what the walk reads");
			return -ERANGE;
		}
	}
	if (o->pc_desc_pc_offset > o->pc_desc_size - 4 || o->pc_desc_scope > o->pc_desc_size - 4) {
		rt_format(err, errlen, "its PcDesc is not laid out as known here");
		return -ERANGE;
	}
	/* a scope's bci is written less InvocationEntryBci, -1 */
	if (!hotspot_constant(v, "InvocationEntryBci", &entry_bci) || entry_bci != -1) {
		rt_format(err, errlen, "its InvocationEntryBci is not -1");
		return -ENOTSUP;
	}
	return 0;
}

int hotspot_walk_layout_read(uint32_t pid, const struct hotspot_vmstructs *v,
			     struct hotspot_walk_layout *out, char *err, size_t errlen)
{
	const struct hotspot_method_layout *m = &out->method;
	struct rt_hotspot_offsets *o = &out->offsets;
	uint64_t major_at;
	int64_t last_sp;
	int32_t major;
	int r;

	memset(out, 0, sizeof(*out));
	if (!hotspot_static_address(v, "Abstract_VM_Version", "_vm_major_version", &major_at)) {
		rt_format(err, errlen, "the JVM describes no Abstract_VM_Version::_vm_major_version");
		return -ENOENT;
	}
	if ((r = process_memory_read(pid, major_at, &major, sizeof(major)))) {
		rt_format(err, errlen, "cannot read its version: %s", strerror(-r));
		return r;
	}
	out->major = major;
	if (!major_known(major) ||
	    !hotspot_constant(v, "frame::interpreter_frame_last_sp_offset", &last_sp) ||
	    last_sp != -2) {
		rt_format(err, errlen, "its version (%d) has interpreter frames not known here",
			  (int)major);
		return -ENOTSUP;
	}
	if ((r = hotspot_method_layout_of(v, &out->method, err, errlen)))
		return r;
	o->frame_method_word = (__u16)(-(last_sp - 1));
	o->frame_bcp_word = (__u16)(-(last_sp - 6));
	o->utf8_tag = m->utf8_tag;
	if (!narrow(m->method_const_method, 0xffff, &o->method_const_method) ||
	    !narrow(m->const_method_constants, RT_JAVA_CONST_METHOD_READ - 8,
		    &o->const_method_constants) ||
	    !narrow(m->const_method_code_size, RT_JAVA_CONST_METHOD_READ - 2,
		    &o->const_method_code_size) ||
	    !narrow(m->const_method_name_index, RT_JAVA_CONST_METHOD_READ - 2,
		    &o->const_method_name_index) ||
	    !narrow(m->const_method_size, 0xffff, &o->const_method_size) ||
	    !narrow(m->pool_size, 0xffff, &o->pool_size) ||
	    !narrow(m->pool_tags, RT_JAVA_POOL_READ - 8, &o->pool_tags) ||
	    !narrow(m->pool_holder, RT_JAVA_POOL_READ - 8, &o->pool_holder) ||
	    !narrow(m->pool_length, RT_JAVA_POOL_READ - 8, &o->pool_length) ||
	    !narrow(m->array_u1_data, 0xffff, &o->array_u1_data) ||
	    !narrow(m->klass_name, 0xffff, &o->klass_name) ||
	    !narrow(m->symbol_length, 0xffff, &o->symbol_length) ||
	    !narrow(m->symbol_body, 0xffff, &o->symbol_body) ||
	    !narrow(m->const_method_flags, RT_JAVA_CONST_METHOD_READ - 2,
		    &o->const_method_flags) ||
	    !narrow(m->has_line_table, 0xffff, &o->has_line_table)) {
		rt_format(err, errlen, "an offset of its layout is past what the walk reads");
		return -ERANGE;
	}
	if ((r = compiled_offsets(v, o, err, errlen)) ||
	    (r = interpreter_code(pid, v, &out->process, err, errlen)))
		return r;
	return code_cache(pid, v, &out->process, err, errlen);
}
