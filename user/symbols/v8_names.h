/* SPDX-License-Identifier: GPL-2.0-only */
/* v8_names.h: a JavaScript function's name, script and line, read from a Node.js
 * process's memory from its SharedFunctionInfo, checked to be still the one the
 * walk wrote (V8's collector moves objects). */
#ifndef RINGTRACE_V8_NAMES_H
#define RINGTRACE_V8_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "symbols/v8_elf.h"
#include "symbols/v8_lines.h"

#define V8_NAME_BYTES 256
#define V8_FILE_BYTES 512

struct v8_function_name {
	char name[V8_NAME_BYTES];  /* "inner", "(anonymous)" */
	char file[V8_FILE_BYTES];  /* its script's name ("" if none known) */
	uint32_t line;             /* the line the function starts at (0: not known) */
};

/* The name of the function whose SharedFunctionInfo is at sfi (untagged) in
 * process pid, whose name-or-ScopeInfo and script pointers the walk read as
 * name and script (its line from its script's source found through lines,
 * where V8 has made no line ends; NULL: not looked for): 0 and *out;
 * -ESTALE if the SharedFunctionInfo holds
 * others now (moved, or another's since), before or after its names were
 * read; -EINVAL if what is there is not laid out as l says; -errno if it
 * cannot be read (-ESRCH gone, -EPERM not ours to read). */
int v8_function_name(uint32_t pid, const struct v8_layout *l, uint64_t sfi, uint64_t name,
		     uint64_t script, struct v8_lines *lines, struct v8_function_name *out);

/* The name-or-ScopeInfo and script pointers the SharedFunctionInfo at sfi
 * (untagged) of pid holds: 0, -ESTALE if no SharedFunctionInfo is there,
 * or -errno. */
int v8_sfi_read(uint32_t pid, const struct v8_layout *l, uint64_t sfi, uint64_t *name,
		uint64_t *script);

#endif
