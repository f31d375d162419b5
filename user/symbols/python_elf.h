/* SPDX-License-Identifier: GPL-2.0-only */
/* python_elf.h: recognizes a CPython interpreter file (a python program or libpython)
 * by its exports, and reads where its runtime and evaluation loop are, and its version. */
#ifndef RINGTRACE_PYTHON_ELF_H
#define RINGTRACE_PYTHON_ELF_H

#include <stdbool.h>
#include <stdint.h>

/* The most bytes of _Py_DebugOffsets read (3.13's are 584). */
#define PYTHON_DEBUG_OFFSETS_MAX 1024
#define PYTHON_DEBUG_OFFSETS_COOKIE "xdebugpy"

struct python_interp {
	unsigned int major, minor;
	bool version_from_name; /* no Py_Version: taken from the file's name */
	uint64_t runtime_vaddr;  /* _PyRuntime */
	uint64_t eval_vaddr, eval_size; /* _PyEval_EvalFrameDefault */
	uint64_t code_type_vaddr; /* PyCode_Type (0 if not exported) */
	int64_t exec_vaddr_delta; /* its executable segment's p_vaddr - p_offset */
	/* 3.13 on: the _Py_DebugOffsets that _PyRuntime starts with (cookie
	 * "xdebugpy"), as the file initializes it (the process never changes
	 * it); debug_offsets_len 0 where there is none */
	uint8_t debug_offsets[PYTHON_DEBUG_OFFSETS_MAX];
	uint32_t debug_offsets_len;
};

/* Whether a file named name (a path; its last part is looked at) may be a
 * CPython interpreter: "python" in its name (what is opened and read). */
bool python_elf_name_may_be(const char *name);
/* 0 and *out if the ELF file open as fd (the caller's, left open) exports
 * _PyEval_EvalFrameDefault (2.7: PyEval_EvalFrameEx), and _PyRuntime from
 * 3.7 on (runtime_vaddr 0 before), its version from Py_Version's value in
 * the file, else from name ("python3.11", "libpython2.7.so.1.0"); -ENOENT if
 * it is no CPython, -errno if it cannot be read. */
int python_elf_inspect(int fd, const char *name, struct python_interp *out);

#endif
