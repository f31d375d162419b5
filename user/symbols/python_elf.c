/* SPDX-License-Identifier: GPL-2.0-only */
/* python_elf.c: recognizes a CPython interpreter file (a python program or libpython)
 * by its exports, and reads where its runtime and evaluation loop are, its version,
 * and the structure offsets it publishes (_Py_DebugOffsets). */
#include "symbols/python_elf.h"

#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/elf_open.h"

bool python_elf_name_may_be(const char *name)
{
	const char *base = strrchr(name, '/');

	return strstr(base ? base + 1 : name, "python") != NULL;
}

/* "python3.11" anywhere in the name's last part. */
static bool version_of_name(const char *name, unsigned int *major, unsigned int *minor)
{
	const char *base = strrchr(name, '/'), *p;
	char *end;

	p = strstr(base ? base + 1 : name, "python");
	if (!p || p[6] < '2' || p[6] > '9' || p[7] != '.')
		return false;
	*major = (unsigned int)(p[6] - '0');
	*minor = (unsigned int)strtoul(p + 8, &end, 10);
	return end > p + 8 && *minor < 100;
}

/* _PyRuntime's _Py_DebugOffsets, when it starts with one. */
static void read_debug_offsets(Elf *elf, const GElf_Sym *runtime, struct python_interp *out)
{
	size_t n = elf_symbol_bytes(elf, runtime, out->debug_offsets, sizeof(out->debug_offsets));

	if (n >= 16 && !memcmp(out->debug_offsets, PYTHON_DEBUG_OFFSETS_COOKIE, 8))
		out->debug_offsets_len = (uint32_t)n;
}

/* What the interpreter's symbols tell: out, and Py_Version's value. */
struct scan {
	struct python_interp *out;
	uint64_t *version;
};

/* Notes sym if it is one of what out needs. */
static void note_symbol(Elf *elf, const GElf_Sym *sym, const char *n, void *ctx)
{
	struct python_interp *out = ((struct scan *)ctx)->out;
	uint64_t *version = ((struct scan *)ctx)->version;

	if (n[0] != '_' && n[0] != 'P')
		return;
	if (!strcmp(n, "_PyRuntime")) {
		out->runtime_vaddr = sym->st_value;
		read_debug_offsets(elf, sym, out);
	} else if (!strcmp(n, "_PyEval_EvalFrameDefault") && sym->st_size) {
		out->eval_vaddr = sym->st_value;
		out->eval_size = sym->st_size;
	} else if (!strcmp(n, "PyEval_EvalFrameEx") && sym->st_size && !out->eval_vaddr) {
		/* 2.7's (3.x's calls _PyEval_EvalFrameDefault, found too) */
		out->eval_vaddr = sym->st_value;
		out->eval_size = sym->st_size;
	} else if (!strcmp(n, "PyCode_Type")) {
		out->code_type_vaddr = sym->st_value;
	} else if (!strcmp(n, "Py_Version") && sym->st_size == 8 &&
		   elf_symbol_bytes(elf, sym, version, sizeof(*version)) != sizeof(*version)) {
		*version = 0;
	}
}

int python_elf_inspect(int fd, const char *name, struct python_interp *out)
{
	Elf *elf = elf_open_fd(fd);
	uint64_t version = 0;
	struct scan scan = { out, &version };
	size_t phnum;
	int ret = -ENOENT;

	memset(out, 0, sizeof(*out));
	if (!elf)
		return -errno;
	/* the dynamic symbols: what a stripped interpreter still exports */
	elf_each_dynamic_symbol(elf, note_symbol, &scan);
	/* (3.6 and 2.7 have no _PyRuntime: a version without offsets) */
	if (!out->eval_vaddr || elf_getphdrnum(elf, &phnum))
		goto out;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
			out->exec_vaddr_delta = (int64_t)(ph.p_vaddr - ph.p_offset);
			break;
		}
	}
	/* PY_VERSION_HEX: major << 24 | minor << 16 | micro << 8 | release */
	if (version >> 24 >= 2 && version >> 24 <= 9 && !(version >> 32)) {
		out->major = (unsigned int)(version >> 24);
		out->minor = (unsigned int)(version >> 16 & 0xff);
	} else if (version_of_name(name, &out->major, &out->minor)) {
		out->version_from_name = true;
	} else {
		goto out;
	}
	ret = 0;
out:
	elf_end(elf);
	return ret;
}
