/* SPDX-License-Identifier: GPL-2.0-only */
/* python_offsets.c: the table of CPython's structure offsets per minor version (how each
 * was found is said at its entry). */
#include "symbols/python_offsets.h"

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

const struct python_version_offsets *python_offsets_at(uint32_t i)
{
	return i < sizeof(table) / sizeof(table[0]) ? &table[i] : NULL;
}

const struct python_version_offsets *python_offsets_for(unsigned int major, unsigned int minor,
							 uint32_t *index)
{
	for (uint32_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (table[i].major == major && table[i].minor <= minor &&
		    minor <= (table[i].minor_last ? table[i].minor_last : table[i].minor)) {
			*index = i;
			return &table[i];
		}
	return NULL;
}
