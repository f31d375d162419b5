/* SPDX-License-Identifier: GPL-2.0-only */
/* python_code.h: names a CPython code object of a running process, "qualname
 * (file.py:first line)", from its memory (process_vm_readv, every size bounded). */
#ifndef RINGTRACE_PYTHON_CODE_H
#define RINGTRACE_PYTHON_CODE_H

#include <stddef.h>
#include <stdint.h>

#include "symbols/python_offsets.h"

/* Longest qualname and file name kept (longer ones are cut, "..." at the end). */
#define PYTHON_NAME_MAX 256
#define PYTHON_FILE_MAX 512

/* Names the code object at code in process pid into buf (len >= 64):
 * 0, or -errno (-ESRCH gone, -EFAULT unreadable, -EINVAL not a code object
 * of code_type, the PyCode_Type address in that process, when not 0). The
 * name holds no newline and is valid UTF-8. */
int python_code_name(uint32_t pid, uint64_t code, uint64_t code_type,
		     const struct python_version_offsets *o, char *buf, size_t len);

#endif
