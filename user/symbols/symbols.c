/* SPDX-License-Identifier: GPL-2.0-only */
/* symbols.c: symbol tables for addresses: the kernel's from /proc/kallsyms and
 * a binary's from its ELF .symtab and .dynsym (libelf), C++ and Rust names
 * demangled (libiberty), with lookup by address. */
#include "symbols/symbols.h"

#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/byte_buffer.h"
#include "symbols/build_id.h"
#include "symbols/debuginfod.h"
#include "symbols/demangle.h"
#include "sys/safe_open.h"

#define DEBUG_BUILD_ID_DIR "/usr/lib/debug/.build-id"
#include "lib/log.h"

/* Symbols are gathered with name offsets into an arena, then sorted. */
struct builder {
	struct symbol *syms;
	size_t nr, cap;
	struct byte_buffer names;
};

static int builder_add(struct builder *b, uint64_t start, uint64_t size, const char *name)
{
	size_t len = strlen(name) + 1;
	size_t at = b->names.len;

	if (b->nr == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 1024;
		struct symbol *grown = realloc(b->syms, cap * sizeof(*grown));

		if (!grown)
			return -1;
		b->syms = grown;
		b->cap = cap;
	}
	if (!byte_buffer_append(&b->names, name, len))
		return -1;
	/* name holds the arena offset until finish() turns it into a pointer */
	b->syms[b->nr++] = (struct symbol){ start, start + size, (const char *)(uintptr_t)at };
	return 0;
}

static int compare_symbols(const void *a, const void *b)
{
	const struct symbol *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	/* at one address prefer the sized symbol, then the longer one */
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1;
	return 0;
}

/* Sorts, drops duplicates, gives zero-sized symbols the room up to the next
 * one, trims overlaps, and hands the result to t. */
static void builder_finish(struct builder *b, struct symtab *t)
{
	size_t out = 0;

	if (b->nr)
		qsort(b->syms, b->nr, sizeof(*b->syms), compare_symbols);
	for (size_t i = 0; i < b->nr; i++) {
		if (out && b->syms[out - 1].start == b->syms[i].start)
			continue;
		b->syms[out++] = b->syms[i];
	}
	for (size_t i = 0; i < out; i++) {
		uint64_t next = i + 1 < out ? b->syms[i + 1].start : UINT64_MAX;

		if (b->syms[i].end <= b->syms[i].start || b->syms[i].end > next)
			b->syms[i].end = next;
		b->syms[i].name = (const char *)b->names.data + (uintptr_t)b->syms[i].name;
	}
	t->syms = b->syms;
	t->nr = out;
	t->names = (char *)b->names.data;
	t->names_len = b->names.len;
}

static void builder_free(struct builder *b)
{
	free(b->syms);
	byte_buffer_free(&b->names);
}

int symtab_load_kallsyms(struct symtab *t, const char *path, char *err, size_t errlen)
{
	struct builder b = { 0 };
	FILE *f = fopen(path, "re");
	char line[1024];
	int nonzero = 0;

	memset(t, 0, sizeof(*t));
	if (!f) {
		rt_format(err, errlen, "cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		char *end, *name, type;
		unsigned long long addr = strtoull(line, &end, 16);

		if (end == line || end[0] != ' ' || !end[1] || end[2] != ' ')
			continue;
		type = end[1];
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		name = end + 3;
		name[strcspn(name, "\t\n")] = '\0';
		nonzero |= addr != 0;
		if (builder_add(&b, addr, 0, name)) {
			fclose(f);
			builder_free(&b);
			rt_format(err, errlen, "out of memory reading %s", path);
			return -1;
		}
	}
	fclose(f);
	if (!nonzero) {
		builder_free(&b);
		rt_format(err, errlen, "%s shows no kernel addresses (kernel.kptr_restrict): run as root",
			  path);
		return -1;
	}
	builder_finish(&b, t);
	return 0;
}

/* Adds a symbol under its demangled name when it is a C++ (_Z) or Rust
 * (_ZN...h<hash>E, _R) mangled one, as perf shows them. */
static int builder_add_demangled(struct builder *b, uint64_t start, uint64_t size,
				 const char *name)
{
	char *demangled = demangle(name);
	int r;

	r = builder_add(b, start, size, demangled ? demangled : name);
	free(demangled);
	return r;
}

static int load_elf_symbols(Elf *elf, struct builder *b)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;
		size_t count;

		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		data = elf_getdata(scn, NULL);
		if (!data || !sh.sh_entsize)
			continue;
		count = sh.sh_size / sh.sh_entsize;
		for (size_t i = 0; i < count; i++) {
			GElf_Sym sym;
			const char *name;
			int type;

			if (!gelf_getsym(data, (int)i, &sym))
				continue;
			type = GELF_ST_TYPE(sym.st_info);
			if ((type != STT_FUNC && type != STT_GNU_IFUNC) || !sym.st_value ||
			    sym.st_shndx == SHN_UNDEF)
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (!name || !*name)
				continue;
			if (builder_add_demangled(b, sym.st_value, sym.st_size, name))
				return -1;
		}
	}
	return 0;
}

static int load_elf_segments(Elf *elf, struct symtab *t)
{
	size_t n;

	if (elf_getphdrnum(elf, &n))
		return -1;
	t->segments = calloc(n ? n : 1, sizeof(*t->segments));
	if (!t->segments)
		return -1;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		t->segments[t->nr_segments++] =
			(struct elf_segment){ ph.p_offset, ph.p_vaddr, ph.p_filesz };
	}
	return 0;
}

/* Opens a regular file read-only. The paths come from the recording: a FIFO
 * or a device named there is refused, not waited on or read. Symlinks are
 * followed: debug files under /usr/lib/debug/.build-id often are ones. */
static int open_regular(const char *path)
{
	return safe_openat(AT_FDCWD, path, SAFE_OPEN_FOLLOW, NULL);
}

/* Adds the symbols of a separate debug file, if it opens as ELF. */
static int add_debug_file_symbols(const char *debug_path, struct builder *b)
{
	int fd = open_regular(debug_path);
	Elf *elf;
	int ret = 0;

	if (fd < 0)
		return 1;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF)
		ret = load_elf_symbols(elf, b);
	else
		ret = 1;
	if (elf)
		elf_end(elf);
	close(fd);
	return ret;
}

/* Stripped binaries keep their full .symtab in a debug file, found by
 * build-id under /usr/lib/debug/.build-id or by .gnu_debuglink next to the
 * recorded path, as gdb and perf look for it (all of it under root).
 * Returns 0 if one was read, 1 if none was found. */
static int load_separate_debug_symbols(Elf *elf, const char *root, const char *path,
				       struct builder *b)
{
	const unsigned char *id;
	ssize_t id_len = dwelf_elf_gnu_build_id(elf, (const void **)&id);
	const char *link;
	GElf_Word crc;
	char debug[4096], id_path[4096];

	if (!root)
		root = "";
	if (id_len > 1) {
		build_id_path(id_path, sizeof(id_path), DEBUG_BUILD_ID_DIR, id, (size_t)id_len,
			      ".debug");
		snprintf(debug, sizeof(debug), "%s%s", root, id_path);
		if (add_debug_file_symbols(debug, b) <= 0)
			return 0;
	}
	link = dwelf_elf_gnu_debuglink(elf, &crc);
	if (link && !strchr(link, '/')) {
		char dir_copy[4096];
		const char *dir;

		snprintf(dir_copy, sizeof(dir_copy), "%s", path);
		dir = dirname(dir_copy);
		snprintf(debug, sizeof(debug), "%s%s/.debug/%s", root, dir, link);
		if (add_debug_file_symbols(debug, b) <= 0)
			return 0;
		snprintf(debug, sizeof(debug), "%s/usr/lib/debug%s/%s", root, dir, link);
		if (add_debug_file_symbols(debug, b) <= 0)
			return 0;
	}
	/* none on this machine: from debuginfod, when DEBUGINFOD_URLS names servers */
	if (id_len > 1 && debuginfod_wanted(elf) &&
	    !debuginfod_fetch_debuginfo(id, (size_t)id_len, debug, sizeof(debug)) &&
	    add_debug_file_symbols(debug, b) <= 0)
		return 0;
	return 1;
}

/* Loads file's symbols and segments (file is what was recorded as path:
 * itself under root, or a copy); with want_len, only if its build-id is
 * want_id (1 if it is another). */
static int load_elf_file(struct symtab *t, const char *root, const char *file, const char *path,
			 const uint8_t *want_id, size_t want_len, char *err, size_t errlen)
{
	struct builder b = { 0 };
	Elf *elf = NULL;
	int fd, ret = -1;

	memset(t, 0, sizeof(*t));
	elf_version(EV_CURRENT);
	fd = open_regular(file);
	if (fd < 0) {
		rt_format(err, errlen, "cannot open %s: %s", file, strerror(errno));
		return -1;
	}
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		rt_format(err, errlen, "%s: not an ELF file", file);
		goto out;
	}
	if (want_len) {
		const void *id;
		ssize_t len = dwelf_elf_gnu_build_id(elf, &id);

		if (len != (ssize_t)want_len || memcmp(id, want_id, want_len)) {
			rt_format(err, errlen, "%s: not the file that was recorded (its build-id differs)",
				  file);
			ret = 1;
			goto out;
		}
	}
	if (load_elf_segments(elf, t) || load_elf_symbols(elf, &b) ||
	    load_separate_debug_symbols(elf, root, path, &b) < 0) {
		rt_format(err, errlen, "%s: cannot read its symbols: %s", file, elf_errmsg(-1));
		goto out;
	}
	builder_finish(&b, t);
	memset(&b, 0, sizeof(b));
	ret = 0;
out:
	if (ret)
		symtab_free(t);
	builder_free(&b);
	if (elf)
		elf_end(elf);
	close(fd);
	return ret;
}

int symtab_load_elf(struct symtab *t, const char *path, char *err, size_t errlen)
{
	return load_elf_file(t, NULL, path, path, NULL, 0, err, errlen) ? -1 : 0;
}

int symtab_load_elf_build_id(struct symtab *t, const char *root, const char *path,
			     const uint8_t *build_id, size_t len, const char *const *dirs,
			     char *err, size_t errlen)
{
	char file[4096], id_path[4096];

	if (!root)
		root = "";
	snprintf(file, sizeof(file), "%s%s", root, path);
	if (!len)
		return load_elf_file(t, root, file, path, NULL, 0, err, errlen) ? -1 : 0;
	if (!load_elf_file(t, root, file, path, build_id, len, err, errlen))
		return 0;
	/* a copy the recording kept (a container's binary) */
	for (; dirs && *dirs; dirs++) {
		build_id_path(file, sizeof(file), *dirs, build_id, len, "");
		if (!load_elf_file(t, root, file, path, build_id, len, NULL, 0))
			return 0;
	}
	/* replaced since, or not on this machine (a container's): its debug
	 * file, which carries the same build-id, segments and symbols */
	build_id_path(id_path, sizeof(id_path), DEBUG_BUILD_ID_DIR, build_id, len, ".debug");
	snprintf(file, sizeof(file), "%s%s", root, id_path);
	return load_elf_file(t, root, file, path, build_id, len, NULL, 0) ? -1 : 0;
}

const struct symbol *symtab_find(const struct symtab *t, uint64_t addr)
{
	size_t lo = 0, hi = t->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->syms[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr >= t->syms[lo - 1].end)
		return NULL;
	return &t->syms[lo - 1];
}

int symtab_offset_to_vaddr(const struct symtab *t, uint64_t offset, uint64_t *vaddr)
{
	for (size_t i = 0; i < t->nr_segments; i++) {
		const struct elf_segment *s = &t->segments[i];

		if (offset >= s->offset && offset - s->offset < s->size) { /* no wrap */
			*vaddr = offset - s->offset + s->vaddr;
			return 0;
		}
	}
	return -1;
}

void symtab_free(struct symtab *t)
{
	free(t->syms);
	free(t->names);
	free(t->segments);
	memset(t, 0, sizeof(*t));
}
