/* SPDX-License-Identifier: GPL-2.0-only */
/* v8_elf.c: recognizes a Node.js binary by the layout V8 exports for post-mortem
 * debuggers (its v8dbg_ constants) and its version, and finds its embedded builtins:
 * the interpreter's entry trampolines and bytecode handlers among them. */
#include "symbols/v8_elf.h"

#include <errno.h>
#include <gelf.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/elf_open.h"
#include "symbols/unwind_elf.h"

/* The v8dbg_ constants read, each into its int32_t of struct v8_layout. */
static const struct constant {
	const char *name; /* less "v8dbg_" */
	size_t at;
} constants[] = {
#define C(n, f) { n, offsetof(struct v8_layout, f) }
	C("off_fp_function", fp_function),
	C("off_fp_context_or_frame_type", fp_context),
	C("class_Map__instance_type__uint16_t", map_instance_type),
	C("class_JSFunction__shared__SharedFunctionInfo", function_shared),
	C("class_SharedFunctionInfo__name_or_scope_info__Object", sfi_name),
	C("class_SharedFunctionInfo__script_or_debug_info__HeapObject", sfi_script),
	C("type_JSFunction__JS_FUNCTION_TYPE", type_function),
	C("type_SharedFunctionInfo__SHARED_FUNCTION_INFO_TYPE", type_sfi),
	C("type_Script__SCRIPT_TYPE", type_script),
	C("type_ScopeInfo__SCOPE_INFO_TYPE", type_scope_info),
	C("type_FixedArray__FIXED_ARRAY_TYPE", type_fixed_array),
	C("FirstNonstringType", first_nonstring),
	C("scopeinfo_idx_first_vars", scope_first_vars),
	C("scopeinfo_idx_ncontextlocals", scope_context_locals),
	C("class_Script__name__Object", script_name),
	C("class_Script__source__Object", script_source),
	C("class_Script__line_ends__Object", script_line_ends),
	C("class_String__length__int32_t", string_length),
	C("class_SeqOneByteString__chars__char", seq_chars),
	C("class_ConsString__first__String", cons_first),
	C("class_ConsString__second__String", cons_second),
	C("class_ThinString__actual__String", thin_actual),
	C("class_SlicedString__parent__String", sliced_parent),
	C("class_SlicedString__offset__SMI", sliced_offset),
	C("class_FixedArrayBase__length__SMI", fixed_length),
	C("class_FixedArray__data__uintptr_t", fixed_data),
	C("StringRepresentationMask", repr_mask),
	C("StringEncodingMask", encoding_mask),
	C("OneByteStringTag", one_byte_tag),
	C("SeqStringTag", seq_tag),
	C("ConsStringTag", cons_tag),
	C("SlicedStringTag", sliced_tag),
	C("ThinStringTag", thin_tag),
	C("type_Code__CODE_TYPE", type_code),
	C("class_Code__deoptimization_data__FixedArray", code_deopt_data),
	C("class_Code__source_position_table__ByteArray", code_positions),
	C("DeoptimizationDataLiteralArrayIndex", deopt_literals),
	C("DeoptimizationDataSharedFunctionInfoIndex", deopt_sfi),
	C("DeoptimizationDataInliningPositionsIndex", deopt_inlining),
	C("CodeKindFieldMask", code_kind_mask),
	C("CodeKindBaseline", code_kind_baseline),
	C("TaggedSize", tagged_size),
	C("SmiTag", smi_tag),
	C("SmiTagMask", smi_tag_mask),
	C("HeapObjectTag", heap_tag),
	C("HeapObjectTagMask", heap_tag_mask),
	C("SmiShiftSize", smi_shift_size),
#undef C
};
#define NR_CONSTANTS (sizeof(constants) / sizeof(constants[0]))

/* Builtins' symbols kept at most (Node.js 20 has 2,182). */
#define BUILTINS_MAX 8192

struct builtin {
	uint64_t start, end;
	bool handler; /* a bytecode handler's ("...Handler") */
};

struct scan {
	struct v8_elf *out;
	bool found[NR_CONSTANTS];
	int version_found;
	struct builtin *builtins;
	size_t nr_builtins;
};

bool v8_elf_name_may_be(const char *name)
{
	const char *base = strrchr(name, '/');

	return strstr(base ? base + 1 : name, "node") != NULL;
}

/* A v8dbg_ constant, or V8's version, if sym is one. */
static void note_export(Elf *elf, const GElf_Sym *sym, const char *name, void *ctx)
{
	struct scan *sc = ctx;
	int32_t v = 0;

	if (GELF_ST_TYPE(sym->st_info) != STT_OBJECT || sym->st_size != sizeof(v))
		return;
	if (!strncmp(name, "_ZN2v88internal7Version6", 24)) {
		unsigned int *to = !strcmp(name + 24, "major_E")   ? &sc->out->major
				   : !strcmp(name + 24, "minor_E") ? &sc->out->minor
				   : !strcmp(name + 24, "build_E") ? &sc->out->build
								   : NULL;

		if (to && elf_symbol_bytes(elf, sym, &v, sizeof(v)) == sizeof(v) && v >= 0) {
			*to = (unsigned int)v;
			sc->version_found++;
		}
		return;
	}
	if (strncmp(name, "v8dbg_", 6))
		return;
	for (size_t i = 0; i < NR_CONSTANTS; i++)
		if (!strcmp(name + 6, constants[i].name)) {
			/* (a .bss constant, 0, holds no bytes in the file) */
			elf_symbol_bytes(elf, sym, &v, sizeof(v));
			memcpy((char *)&sc->out->layout + constants[i].at, &v, sizeof(v));
			sc->found[i] = true;
			return;
		}
}

/* A builtin's code, if sym is one ("Builtins_" and its name). */
static void note_builtin(Elf *elf, const GElf_Sym *sym, const char *name, void *ctx)
{
	struct scan *sc = ctx;
	struct v8_elf *out = sc->out;
	uint64_t start = sym->st_value, end = start + sym->st_size;
	size_t len;

	(void)elf;
	if (GELF_ST_TYPE(sym->st_info) != STT_FUNC || !sym->st_size || strncmp(name, "Builtins_", 9))
		return;
	len = strlen(name);
	if (!strncmp(name + 9, "InterpreterEntryTrampoline", 26)) {
		out->entry_start = out->entry_start && out->entry_start < start ? out->entry_start : start;
		out->entry_end = out->entry_end > end ? out->entry_end : end;
	} else if (!strncmp(name + 9, "InterpreterEnterAt", 18)) {
		out->enter_start = out->enter_start && out->enter_start < start ? out->enter_start : start;
		out->enter_end = out->enter_end > end ? out->enter_end : end;
	}
	if (sc->nr_builtins < BUILTINS_MAX)
		sc->builtins[sc->nr_builtins++] = (struct builtin){
			.start = start, .end = end,
			.handler = len > 7 && !strcmp(name + len - 7, "Handler") };
}

static int by_start(const void *a, const void *b)
{
	const struct builtin *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* The builtins' span, and their bytecode handlers': the last of them in the
 * embedded blob, after every other builtin. false if none. */
static bool builtins_span(struct scan *sc)
{
	struct v8_elf *out = sc->out;
	size_t i = sc->nr_builtins;

	if (!i)
		return false;
	qsort(sc->builtins, sc->nr_builtins, sizeof(*sc->builtins), by_start);
	out->builtins_start = sc->builtins[0].start;
	for (size_t k = 0; k < sc->nr_builtins; k++)
		if (sc->builtins[k].end > out->builtins_end)
			out->builtins_end = sc->builtins[k].end;
	while (i && sc->builtins[i - 1].handler)
		i--;
	if (i < sc->nr_builtins) {
		out->handlers_start = sc->builtins[i].start;
		out->handlers_end = out->builtins_end;
	}
	return out->entry_end && out->enter_end && out->handlers_end;
}

/* Whether the layout is one the walk reads: x86-64's tagging without
 * pointer compression, frame slots where the walk reads them, fields within
 * what it reads of an object. */
static bool layout_readable(const struct v8_layout *l)
{
	return l->tagged_size == 8 && l->smi_tag == 0 && l->smi_tag_mask == 1 &&
	       l->heap_tag == 1 && l->heap_tag_mask == 3 && l->smi_shift_size == 31 &&
	       l->fp_function == -16 && l->fp_context == -8 && l->function_shared > 0 &&
	       l->function_shared <= 40 && l->sfi_name > 0 && l->sfi_name <= 40 &&
	       l->sfi_script > 0 && l->sfi_script <= 40 && l->map_instance_type > 0 &&
	       l->type_function > 0 && l->type_function < 0xffff - 15 && l->type_sfi > 0 &&
	       l->type_script > 0;
}

int v8_elf_inspect(int fd, struct v8_elf *out)
{
	Elf *elf = elf_open_fd(fd);
	struct scan sc = { .out = out };
	int ret = -ENOENT;

	memset(out, 0, sizeof(*out));
	if (!elf)
		return -errno;
	elf_each_dynamic_symbol(elf, note_export, &sc);
	if (sc.version_found != 3)
		goto out;
	ret = -ENOTSUP;
	if (out->major != V8_KNOWN_MAJOR || out->minor != V8_KNOWN_MINOR)
		goto out;
	for (size_t i = 0; i < NR_CONSTANTS; i++)
		if (!sc.found[i])
			goto out;
	if (!layout_readable(&out->layout))
		goto out;
	/* the builtins are local symbols: the symbol table's */
	sc.builtins = malloc(BUILTINS_MAX * sizeof(*sc.builtins));
	if (!sc.builtins) {
		ret = -ENOMEM;
		goto out;
	}
	elf_each_symbol(elf, SHT_SYMTAB, note_builtin, &sc);
	if (!builtins_span(&sc))
		goto out;
	out->exec_vaddr_delta = unwind_elf_exec_vaddr_delta(elf);
	ret = 0;
out:
	free(sc.builtins);
	elf_end(elf);
	return ret;
}
