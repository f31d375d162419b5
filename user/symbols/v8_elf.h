/* SPDX-License-Identifier: GPL-2.0-only */
/* v8_elf.h: recognizes a Node.js binary by the layout V8 exports for post-mortem
 * debuggers (its v8dbg_ constants) and its version, and finds its embedded builtins:
 * the interpreter's entry trampolines and bytecode handlers among them. */
#ifndef RINGTRACE_V8_ELF_H
#define RINGTRACE_V8_ELF_H

#include <stdbool.h>
#include <stdint.h>

/* The V8 versions whose layout the walk knows (where v8dbg_ says nothing:
 * JSFunction's instance types, a ScopeInfo's slots): 11.3 (Node.js 20). */
#define V8_KNOWN_MAJOR 11
#define V8_KNOWN_MINOR 3

/* V8's layout, each from its v8dbg_ constant (a .bss one is 0). */
struct v8_layout {
	int32_t fp_function, fp_context;       /* a frame's slots, from its frame pointer */
	int32_t map_instance_type;             /* Map::instance_type (a u16) */
	int32_t function_shared;               /* JSFunction::shared */
	int32_t sfi_name, sfi_script;          /* SharedFunctionInfo's name_or_scope_info, script */
	int32_t type_function, type_sfi, type_script, type_scope_info, type_fixed_array;
	int32_t first_nonstring;               /* instance types below it are strings' */
	int32_t scope_first_vars, scope_context_locals; /* a ScopeInfo's slots, by index */
	int32_t script_name, script_source, script_line_ends;
	int32_t string_length, seq_chars;      /* String::length, SeqString's characters */
	int32_t cons_first, cons_second, thin_actual, sliced_parent, sliced_offset;
	int32_t fixed_length, fixed_data;      /* FixedArray's length (a Smi) and slots */
	int32_t repr_mask, encoding_mask, one_byte_tag; /* a string's instance type's bits */
	int32_t seq_tag, cons_tag, sliced_tag, thin_tag;
	/* optimized code: a Code object's deoptimization data and source
	 * position table; the deoptimization data's slots (a FixedArray) of
	 * its literals, its SharedFunctionInfo and its inlining positions;
	 * a Code's kind within its flags */
	int32_t type_code, code_deopt_data, code_positions;
	int32_t deopt_literals, deopt_sfi, deopt_inlining;
	int32_t code_kind_mask, code_kind_baseline;
	/* checked to be x86-64's without pointer compression */
	int32_t tagged_size, smi_tag, smi_tag_mask, heap_tag, heap_tag_mask, smi_shift_size;
};

struct v8_elf {
	unsigned int major, minor, build;
	int64_t exec_vaddr_delta; /* its code's p_vaddr less its p_offset */
	/* file addresses: the builtins' code; the interpreter's entry
	 * trampolines and its entries at a bytecode; its bytecode handlers */
	uint64_t builtins_start, builtins_end;
	uint64_t entry_start, entry_end, enter_start, enter_end;
	uint64_t handlers_start, handlers_end;
	struct v8_layout layout;
};

/* Whether a file named name (a path; its last part is looked at) may be a
 * Node.js binary: "node" in its name. */
bool v8_elf_name_may_be(const char *name);
/* 0 and *out if the ELF file open as fd (the caller's, left open) exports
 * V8's v8dbg_ layout and version, of a version the walk knows, with its
 * builtins in its symbol table; -ENOTSUP (out's version set) for another
 * version or a layout the walk cannot read (a constant missing, pointer
 * compression, no builtins' symbols); -ENOENT if it is no V8; -errno if it
 * cannot be read. */
int v8_elf_inspect(int fd, struct v8_elf *out);

#endif
