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
			.code_adaptive = 0xb8,
			.code_filename = 0x70,
			.code_qualname = 0x80,
			.code_firstlineno = 0x48,
			.unicode_length = 0x10,
			.unicode_state = 0x20,
			.ascii_data = 48,
		},
		.object_type = 0x08,
		.code_filename = 0x70,
		.code_name = 0x78,
		.code_qualname = 0x80,
		.code_firstlineno = 0x48,
		.code_read = 0xb8,
		.unicode_length = 0x10,
		.unicode_state = 0x20,
		.ascii_data = 48,
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
		if (table[i].major == major && table[i].minor == minor) {
			*index = i;
			return &table[i];
		}
	return NULL;
}
