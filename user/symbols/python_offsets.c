/* SPDX-License-Identifier: GPL-2.0-only */
/* python_offsets.c: the table of CPython's structure offsets per minor version (how each
 * was found is said at its entry). */
#include "symbols/python_offsets.h"

#include <stdbool.h>
#include <string.h>

#include "symbols/python_elf.h"

/* CPython 3.11 (x86-64). Derived from DWARF with gdb (`print
 * &((PyThreadState *)0)->native_thread_id`, `ptype /o struct _PyInterpreterFrame`,
 * `ptype /o PyCodeObject`, ...) on Debian bookworm's /usr/bin/python3.11
 * 3.11.2-6+deb12u6 (DWARF from python3.11-dbg) and pyenv's 3.11.7
 * libpython3.11.so.1.0 (its own DWARF): the same in both. Checked on live
 * processes of both (outer -> middle -> inner spinning) by reading
 * /proc/PID/mem with these offsets from _PyRuntime: the thread's
 * native_thread_id, the chain inner, middle, outer, <module> with
 * <module>'s is_entry 1, names, files and first lines as in the source. */
static const struct python_version_offsets table[] = {
	{
		.major = 3,
		.minor = 11,
		.walk = {
			.runtime_interpreters_head = 0x28,
			.interp_threads_head = 0x10,
			.tstate_next = 0x08,
			.tstate_native_thread_id = 0xa0,
			.tstate_cframe = 0x38,
			.cframe_current_frame = 0x08,
			.frame_code = 0x20,
			.frame_previous = 0x30,
			.frame_prev_instr = 0x38,
			.frame_is_entry = 0x44,
			.frame_owner = RT_PY_NONE,
			.code_adaptive = 0xb8,
			.code_filename = 0x70,
			.code_qualname = 0x80,
			.code_firstlineno = 0x48,
			.unicode_length = 0x10,
			.unicode_state = 0x20,
			.ascii_data = 48,
		},
		.object_type = 0x08,
		.code_name = 0x78,
		.code_read = 0xb8,
		.compact_data = 72,
	},
	/* CPython 3.12 (x86-64): gdb `ptype /o struct _PyInterpreterFrame`, `print
	 * &((PyThreadState *)0)->native_thread_id`, ... on pyenv's 3.12.1
	 * libpython3.12.so.1.0 (its DWARF). is_entry is gone: an evaluation call
	 * pushes a shim frame, owner FRAME_OWNED_BY_CSTACK (3), whose previous is
	 * the caller's; PyASCIIObject lost wstr (40 bytes). Checked on a live
	 * process (outer -> middle -> inner spinning) through /proc/PID/mem: its
	 * native_thread_id, the chain inner, middle, outer, <module> (owner 0), then
	 * the shim (owner 3); names, files and first lines as in the source. */
	{
		.major = 3,
		.minor = 12,
		.walk = {
			.runtime_interpreters_head = 0x28,
			.interp_threads_head = 0x48,
			.tstate_next = 0x08,
			.tstate_native_thread_id = 0x90,
			.tstate_cframe = 0x38,
			.cframe_current_frame = 0x00,
			.frame_code = 0x00,
			.frame_previous = 0x08,
			.frame_prev_instr = 0x38,
			.frame_is_entry = RT_PY_NONE,
			.frame_owner = 70,
			.code_adaptive = 0xc0,
			.code_filename = 0x70,
			.code_qualname = 0x80,
			.code_firstlineno = 0x44,
			.unicode_length = 0x10,
			.unicode_state = 0x20,
			.ascii_data = 40,
		},
		.object_type = 0x08,
		.code_name = 0x78,
		.code_read = 0xc0,
		.compact_data = 56,
	},
	/* CPython 3.13 (x86-64): the same way on pyenv's 3.13.0 libpython3.13.so.1.0,
	 * and the same values as its _PyRuntime.debug_offsets (_Py_DebugOffsets,
	 * cookie "xdebugpy"). _PyCFrame is gone: the thread state holds the current
	 * frame; f_executable (a code object but in the shim) replaces f_code,
	 * instr_ptr (the instruction being run) prev_instr. Checked on a live
	 * process as 3.12 was: the same chain, then the shim (owner 3). */
	{
		.major = 3,
		.minor = 13,
		.walk = {
			.runtime_interpreters_head = 0x278,
			.interp_threads_head = 0x1cb0,
			.tstate_next = 0x08,
			.tstate_native_thread_id = 0xa0,
			.tstate_cframe = 0x48,
			.cframe_current_frame = RT_PY_NONE,
			.frame_code = 0x00,
			.frame_previous = 0x08,
			.frame_prev_instr = 0x38,
			.frame_is_entry = RT_PY_NONE,
			.frame_owner = 70,
			.code_adaptive = 0xc8,
			.code_filename = 0x70,
			.code_qualname = 0x80,
			.code_firstlineno = 0x44,
			.unicode_length = 0x10,
			.unicode_state = 0x20,
			.ascii_data = 40,
		},
		.object_type = 0x08,
		.code_name = 0x78,
		.code_read = 0xc8,
		.compact_data = 56,
	},
	/* CPython 3.9 and 3.10 (x86-64): gdb `ptype /o struct _frame`, `ptype /o
	 * PyCodeObject`, `print &((PyThreadState *)0)->thread_id`, ... on pyenv's
	 * 3.10.13 libpython3.10.so.1.0 and 3.9.18 libpython3.9.so.1.0 (their DWARF:
	 * every offset below the same in both, and sizeof(PyCodeObject) 176). No
	 * _PyInterpreterFrame: a PyFrameObject per call (f_back, f_code) from
	 * tstate->frame, one evaluation call each; no native_thread_id: thread_id
	 * is pthread_self(); no co_qualname: co_name; f_lasti lies past the frame's
	 * read, its frames are written at instruction 0. Checked on live processes
	 * of both (test_python) and, for 3.10, through /proc/PID/mem: thread_id
	 * equal to threading.get_ident() in it, the chain inner, middle, outer,
	 * <module>, names, files and first lines as in the source. */
	{
		.major = 3,
		.minor = 9,
		.minor_last = 10,
		.walk = {
			.runtime_interpreters_head = 0x20,
			.interp_threads_head = 0x08,
			.tstate_next = 0x08,
			.tstate_native_thread_id = 0xb0,
			.tstate_cframe = 0x18,
			.cframe_current_frame = RT_PY_NONE,
			.frame_code = 0x20,
			.frame_previous = 0x18,
			.frame_prev_instr = RT_PY_NONE,
			.frame_is_entry = RT_PY_NONE,
			.frame_owner = RT_PY_NONE,
			.code_adaptive = 0,
			.code_filename = 0x68,
			.code_qualname = 0x70,
			.code_firstlineno = 0x28,
			.unicode_length = 0x10,
			.unicode_state = 0x20,
			.ascii_data = 48,
			.flags = RT_PY_FRAME_PER_CALL | RT_PY_THREAD_IS_PTHREAD,
		},
		.object_type = 0x08,
		.code_name = 0x70,
		.code_read = 0x78,
		.compact_data = 72,
	},
};

_Static_assert(sizeof(table) / sizeof(table[0]) <= RT_PY_MAX_OFFSETS, "the BPF map holds the table");

uint32_t python_offsets_count(void)
{
	return sizeof(table) / sizeof(table[0]);
}

const struct python_version_offsets *python_offsets_at(uint32_t i)
{
	return i < python_offsets_count() ? &table[i] : NULL;
}

/* 3.13's _Py_DebugOffsets: where it holds each offset read here (gdb `ptype /o
 * struct _Py_DebugOffsets` on pyenv's 3.13.0 libpython3.13.so.1.0; 584 bytes,
 * each field a u64). Its values there equal the table's 3.13 entry
 * (test_python_elf). */
#define DEBUG_VERSION 8
#define DEBUG_313_BYTES 584
#define DEBUG_313_INTERPRETERS_HEAD 40
#define DEBUG_313_THREADS_HEAD 72
#define DEBUG_313_TSTATE_NEXT 168
#define DEBUG_313_TSTATE_CURRENT_FRAME 184
#define DEBUG_313_TSTATE_NATIVE_THREAD_ID 200
#define DEBUG_313_FRAME_PREVIOUS 232
#define DEBUG_313_FRAME_EXECUTABLE 240
#define DEBUG_313_FRAME_INSTR_PTR 248
#define DEBUG_313_FRAME_OWNER 264
#define DEBUG_313_CODE_FILENAME 280
#define DEBUG_313_CODE_NAME 288
#define DEBUG_313_CODE_QUALNAME 296
#define DEBUG_313_CODE_FIRSTLINENO 312
#define DEBUG_313_CODE_ADAPTIVE 344
#define DEBUG_313_PYOBJECT_OB_TYPE 360
#define DEBUG_313_UNICODE_STATE 544
#define DEBUG_313_UNICODE_LENGTH 552
#define DEBUG_313_UNICODE_ASCII_SIZE 560

static uint64_t debug_u64(const uint8_t *block, size_t at)
{
	uint64_t v;

	memcpy(&v, block + at, sizeof(v));
	return v;
}

/* *field = the block's u64 at at, if it fits below limit (a u16 field). */
static bool take(uint16_t *field, const uint8_t *block, size_t at, uint64_t limit)
{
	uint64_t v = debug_u64(block, at);

	if (v >= limit || v >= RT_PY_NONE)
		return false;
	*field = (uint16_t)v;
	return true;
}

int python_offsets_from_debug(const uint8_t *block, size_t len,
			      const struct python_version_offsets *base,
			      struct python_version_offsets *out)
{
	struct rt_python_offsets *w = &out->walk;
	const uint64_t frame_word = RT_PY_FRAME_READ - 7; /* an 8-byte field read of a frame */
	bool ok;

	*out = *base;
	if (len < DEBUG_VERSION + 8 || memcmp(block, PYTHON_DEBUG_OFFSETS_COOKIE, 8) ||
	    debug_u64(block, DEBUG_VERSION) >> 16 != 0x030d || len < DEBUG_313_BYTES)
		return 0;
	ok = take(&w->runtime_interpreters_head, block, DEBUG_313_INTERPRETERS_HEAD, RT_PY_NONE) &&
	     take(&w->interp_threads_head, block, DEBUG_313_THREADS_HEAD, RT_PY_NONE) &&
	     take(&w->tstate_next, block, DEBUG_313_TSTATE_NEXT, RT_PY_NONE) &&
	     take(&w->tstate_cframe, block, DEBUG_313_TSTATE_CURRENT_FRAME, RT_PY_NONE) &&
	     take(&w->tstate_native_thread_id, block, DEBUG_313_TSTATE_NATIVE_THREAD_ID,
		  RT_PY_NONE) &&
	     take(&w->frame_previous, block, DEBUG_313_FRAME_PREVIOUS, frame_word) &&
	     take(&w->frame_code, block, DEBUG_313_FRAME_EXECUTABLE, frame_word) &&
	     take(&w->frame_prev_instr, block, DEBUG_313_FRAME_INSTR_PTR, frame_word) &&
	     take(&w->frame_owner, block, DEBUG_313_FRAME_OWNER, RT_PY_FRAME_READ) &&
	     take(&w->code_adaptive, block, DEBUG_313_CODE_ADAPTIVE, RT_PY_NONE) &&
	     take(&w->code_filename, block, DEBUG_313_CODE_FILENAME, out->code_read - 7u) &&
	     take(&out->code_name, block, DEBUG_313_CODE_NAME, out->code_read - 7u) &&
	     take(&w->code_qualname, block, DEBUG_313_CODE_QUALNAME, out->code_read - 7u) &&
	     take(&w->code_firstlineno, block, DEBUG_313_CODE_FIRSTLINENO, out->code_read - 3u) &&
	     take(&out->object_type, block, DEBUG_313_PYOBJECT_OB_TYPE, out->code_read - 7u) &&
	     take(&w->unicode_state, block, DEBUG_313_UNICODE_STATE, base->walk.ascii_data) &&
	     take(&w->unicode_length, block, DEBUG_313_UNICODE_LENGTH, base->walk.ascii_data) &&
	     take(&w->ascii_data, block, DEBUG_313_UNICODE_ASCII_SIZE, base->compact_data);
	return ok ? 1 : -1;
}

const struct python_version_offsets *python_offsets_for(unsigned int major, unsigned int minor,
							 uint32_t *index)
{
	for (uint32_t i = 0; i < python_offsets_count(); i++)
		if (table[i].major == major && table[i].minor <= minor &&
		    minor <= (table[i].minor_last ? table[i].minor_last : table[i].minor)) {
			*index = i;
			return &table[i];
		}
	return NULL;
}
