/* SPDX-License-Identifier: GPL-2.0-only */
/* hotspot_walk_layout.c: what the -g walk of a running HotSpot JVM needs of it,
 * from the layout the JVM describes of itself: the offsets a frame's method is
 * named through, where its template interpreter's code is, and its interpreter
 * frames' slots, for the versions whose frame layout is known. */
#include "symbols/hotspot_walk_layout.h"

#include <errno.h>
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
static int interpreter_code(uint32_t pid, const struct hotspot_vmstructs *v, uint64_t *start,
			    uint64_t *end, char *err, size_t errlen)
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
	*start = buffer;
	*end = buffer + (uint64_t)limit;
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
	    !narrow(m->symbol_body, 0xffff, &o->symbol_body)) {
		rt_format(err, errlen, "an offset of its layout is past what the walk reads");
		return -ERANGE;
	}
	return interpreter_code(pid, v, &out->interp_start, &out->interp_end, err, errlen);
}
