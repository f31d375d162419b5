/* SPDX-License-Identifier: GPL-2.0-only */
/* symbols.c: symbol tables for addresses: the kernel's from /proc/kallsyms and
 * a binary's from its ELF .symtab and .dynsym (libelf), C++ and Rust names
 * demangled (libiberty), with lookup by address. */
#include "symbols/symbols.h"

#include <ctype.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/byte_buffer.h"
#include "symbols/build_id.h"
#include "symbols/demangle.h"
#include "sys/safe_open.h"

#define DEBUG_BUILD_ID_DIR "/usr/lib/debug/.build-id"
/* The vDSO is a few pages; anything larger is not one. */
#define VDSO_MAX_SIZE (1u << 20)
#include "lib/log.h"

/*
 * Symbols are gathered as perf 6.1 gathers them (util/symbol.c), so that an
 * address resolves to the symbol perf shows: each with its binding and the
 * order it was read in, names in one arena; then sorted by address (equal
 * addresses in read order), zero-sized symbols given the room up to the next
 * one, and of the symbols at one address only perf's choice kept.
 */
struct symbol_entry {
	uint64_t start, end;
	size_t name; /* offset into the names arena */
	size_t seq;  /* read order */
	uint8_t binding;
	bool module; /* kallsyms: a module's symbol ("\t[module]") */
};

struct builder {
	struct symbol_entry *syms;
	size_t nr, cap, seq;
	struct byte_buffer names;
};

static int builder_add(struct builder *b, uint64_t start, uint64_t size, const char *name,
		       uint8_t binding, bool module)
{
	size_t len = strlen(name) + 1;
	size_t at = b->names.len;

	if (b->nr == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 1024;
		struct symbol_entry *grown = realloc(b->syms, cap * sizeof(*grown));

		if (!grown)
			return -1;
		b->syms = grown;
		b->cap = cap;
	}
	if (!byte_buffer_append(&b->names, name, len))
		return -1;
	b->syms[b->nr++] = (struct symbol_entry){ start, start + size, at, b->seq++, binding, module };
	return 0;
}

static int compare_entries(const void *a, const void *b)
{
	const struct symbol_entry *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static const char *entry_name(const struct builder *b, const struct symbol_entry *e)
{
	return (const char *)b->names.data + e->name;
}

static size_t leading_underscores(const char *s)
{
	size_t n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/* Whether perf keeps a over b, two symbols at one address (choose_best_symbol):
 * a sized one, a non-weak one, a global one, fewer leading underscores, the
 * longer name, else the first read (but never a "SyS" syscall alias). */
static bool prefer_first(const struct builder *b, const struct symbol_entry *x,
			 const struct symbol_entry *y)
{
	uint64_t sx = x->end - x->start, sy = y->end - y->start;
	const char *nx = entry_name(b, x), *ny = entry_name(b, y);
	size_t ux, uy;

	if (!sy && sx)
		return true;
	if (!sx && sy)
		return false;
	if ((x->binding == STB_WEAK) != (y->binding == STB_WEAK))
		return y->binding == STB_WEAK;
	if ((x->binding == STB_GLOBAL) != (y->binding == STB_GLOBAL))
		return x->binding == STB_GLOBAL;
	ux = leading_underscores(nx);
	uy = leading_underscores(ny);
	if (ux != uy)
		return ux < uy;
	if (strlen(nx) != strlen(ny))
		return strlen(nx) > strlen(ny);
	return strncmp(nx, "SyS", 3) && strncmp(nx, "compat_SyS", 10);
}

#define PAGE_ROUND_UP(x) (((x) + 4095) & ~(uint64_t)4095)

/* perf's symbols__fixup_end then symbols__fixup_duplicate, over everything
 * read so far: a zero-sized symbol ends where the next begins (in kallsyms,
 * a page past itself where kernel and module symbols meet; the last one a
 * page past its page), then of each run at one address one is kept. */
static void builder_fixup(struct builder *b, bool kallsyms)
{
	size_t out = 0;

	if (!b->nr)
		return;
	qsort(b->syms, b->nr, sizeof(*b->syms), compare_entries);
	for (size_t i = 0; i + 1 < b->nr; i++) {
		struct symbol_entry *prev = &b->syms[i], *cur = &b->syms[i + 1];

		if (prev->end != prev->start)
			continue;
		if (kallsyms && prev->module != cur->module)
			prev->end = PAGE_ROUND_UP(prev->end + 4096);
		else
			prev->end = cur->start;
	}
	if (b->syms[b->nr - 1].end == b->syms[b->nr - 1].start)
		b->syms[b->nr - 1].end = PAGE_ROUND_UP(b->syms[b->nr - 1].start) + 4096;
	for (size_t i = 0; i < b->nr; i++) {
		if (out && b->syms[out - 1].start == b->syms[i].start) {
			if (!prefer_first(b, &b->syms[out - 1], &b->syms[i]))
				b->syms[out - 1] = b->syms[i];
			continue;
		}
		b->syms[out++] = b->syms[i];
	}
	b->nr = out;
}

/* Hands the symbols to t, sorted, one per address (the first read: a PLT
 * entry added after the fixups never displaces a symbol). */
static int builder_finish(struct builder *b, struct symtab *t)
{
	size_t out = 0;

	if (b->nr)
		qsort(b->syms, b->nr, sizeof(*b->syms), compare_entries);
	t->syms = calloc(b->nr ? b->nr : 1, sizeof(*t->syms));
	if (!t->syms)
		return -1;
	for (size_t i = 0; i < b->nr; i++) {
		if (out && t->syms[out - 1].start == b->syms[i].start)
			continue;
		t->syms[out++] = (struct symbol){ b->syms[i].start, b->syms[i].end,
						  entry_name(b, &b->syms[i]) };
	}
	t->nr = out;
	t->names = (char *)b->names.data;
	t->names_len = b->names.len;
	free(b->syms);
	memset(b, 0, sizeof(*b));
	return 0;
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
		bool module;

		if (end == line || end[0] != ' ' || !end[1] || end[2] != ' ')
			continue;
		type = end[1];
		/* perf's kallsyms types: text, weak, data and bss */
		if (!strchr("tTwWdDbB", type) || !type)
			continue;
		name = end + 3;
		if (name[0] == '$') /* ARM mapping symbols, as perf skips them */
			continue;
		module = strchr(name, '[') != NULL;
		name[strcspn(name, "\t\n")] = '\0';
		nonzero |= addr != 0;
		if (builder_add(&b, addr, 0, name,
				type == 'W' ? STB_WEAK : isupper((unsigned char)type) ? STB_GLOBAL : STB_LOCAL,
				module)) {
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
	builder_fixup(&b, true);
	if (builder_finish(&b, t)) {
		builder_free(&b);
		rt_format(err, errlen, "out of memory reading %s", path);
		return -1;
	}
	return 0;
}

/* Adds a symbol under its demangled name when it is a C++ (_Z) or Rust
 * (_ZN...h<hash>E, _R) mangled one, as perf shows them. */
static int builder_add_demangled(struct builder *b, uint64_t start, uint64_t size,
				 const char *name, uint8_t binding)
{
	char *demangled = demangle(name);
	int r;

	r = builder_add(b, start, size, demangled ? demangled : name, binding, false);
	free(demangled);
	return r;
}

/* A file that may hold a binary's symbols, open as ELF, with the sections
 * perf takes them from (symsrc__init). */
struct symbol_source {
	int fd;
	Elf *elf;
	Elf_Scn *symtab; /* .symtab of type SHT_SYMTAB, or NULL */
	Elf_Scn *dynsym; /* .dynsym of type SHT_DYNSYM (not a debug file's NOBITS), or NULL */
	size_t dynsym_index;
	bool borrowed;   /* another source owns elf and fd */
};

/* The section called name, its header in *sh and its index in *index. */
static Elf_Scn *section_by_name(Elf *elf, const char *name, GElf_Shdr *sh, size_t *index)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, sh))
			continue;
		n = elf_strptr(elf, shstrndx, sh->sh_name);
		if (n && !strcmp(n, name)) {
			if (index)
				*index = elf_ndxscn(scn);
			return scn;
		}
	}
	return NULL;
}

/* Opens a regular file read-only. The paths come from the recording: a FIFO
 * or a device named there is refused, not waited on or read. Symlinks are
 * followed: debug files under /usr/lib/debug/.build-id often are ones. */
static int open_regular(const char *path)
{
	return safe_openat(AT_FDCWD, path, SAFE_OPEN_FOLLOW, NULL);
}

/* Opens file as a source: 0, or 1 if it is missing, not ELF, or not the
 * file with build-id want_id (when want_len). */
static int source_open(struct symbol_source *s, const char *file, const uint8_t *want_id,
		       size_t want_len)
{
	GElf_Shdr sh;

	memset(s, 0, sizeof(*s));
	s->fd = open_regular(file);
	if (s->fd < 0) {
		s->fd = -1;
		return 1;
	}
	s->elf = elf_begin(s->fd, ELF_C_READ_MMAP, NULL);
	if (!s->elf || elf_kind(s->elf) != ELF_K_ELF)
		goto unusable;
	if (want_len) {
		const void *id;
		ssize_t len = dwelf_elf_gnu_build_id(s->elf, &id);

		if (len != (ssize_t)want_len || memcmp(id, want_id, want_len))
			goto unusable;
	}
	s->symtab = section_by_name(s->elf, ".symtab", &sh, NULL);
	if (s->symtab && sh.sh_type != SHT_SYMTAB)
		s->symtab = NULL;
	s->dynsym = section_by_name(s->elf, ".dynsym", &sh, &s->dynsym_index);
	if (s->dynsym && sh.sh_type != SHT_DYNSYM)
		s->dynsym = NULL;
	return 0;
unusable:
	if (s->elf)
		elf_end(s->elf);
	close(s->fd);
	memset(s, 0, sizeof(*s));
	s->fd = -1;
	return 1;
}

static void source_close(struct symbol_source *s)
{
	if (!s->borrowed) {
		if (s->elf)
			elf_end(s->elf);
		if (s->fd >= 0)
			close(s->fd);
	}
	memset(s, 0, sizeof(*s));
	s->fd = -1;
}

/* Whether perf takes this ELF symbol (dso__load_sym): a function, an object
 * or a visible label in a text section, in an allocated section. */
static bool takes_symbol(const struct symbol_source *syms, const struct symbol_source *runtime,
			 const GElf_Sym *sym)
{
	int type = GELF_ST_TYPE(sym->st_info), vis = GELF_ST_VISIBILITY(sym->st_other);
	bool label = type == STT_NOTYPE && sym->st_name && sym->st_shndx != SHN_UNDEF &&
		     sym->st_shndx != SHN_ABS && vis != STV_HIDDEN && vis != STV_INTERNAL;
	const struct symbol_source *names = syms;
	Elf_Scn *scn;
	GElf_Shdr sh;
	size_t shstrndx;
	const char *section;

	if (!label && !((type == STT_FUNC || type == STT_GNU_IFUNC || type == STT_OBJECT) &&
			sym->st_name && sym->st_shndx != SHN_UNDEF))
		return false;
	if (sym->st_shndx == SHN_ABS || !(scn = elf_getscn(syms->elf, sym->st_shndx)) ||
	    !gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC))
		return false;
	if (sh.sh_type == SHT_NOBITS) { /* a debug file's: the binary's header says more */
		if (!(scn = elf_getscn(runtime->elf, sym->st_shndx)) || !gelf_getshdr(scn, &sh))
			return false;
		names = runtime;
	}
	if (!label)
		return true;
	section = elf_getshdrstrndx(names->elf, &shstrndx) ? NULL
							   : elf_strptr(names->elf, shstrndx, sh.sh_name);
	return section && strstr(section, "text");
}

/* One pass of perf's: the symbols of one table, then the fixups. */
static int load_symbol_table(struct builder *b, const struct symbol_source *syms,
			     const struct symbol_source *runtime, Elf_Scn *table)
{
	Elf_Data *data = elf_getdata(table, NULL);
	GElf_Shdr sh;
	size_t count;

	if (!gelf_getshdr(table, &sh) || !data || !sh.sh_entsize)
		return 0;
	count = sh.sh_size / sh.sh_entsize;
	for (size_t i = 0; i < count; i++) {
		GElf_Sym sym;
		const char *name;

		if (!gelf_getsym(data, (int)i, &sym) || !takes_symbol(syms, runtime, &sym))
			continue;
		name = elf_strptr(syms->elf, sh.sh_link, sym.st_name);
		if (!name)
			continue;
		if (builder_add_demangled(b, sym.st_value, sym.st_size, name,
					  GELF_ST_BIND(sym.st_info)))
			return -1;
	}
	builder_fixup(b, false);
	return 0;
}

/* perf's dso__synthesize_plt_symbols: "NAME@plt" for each .rela.plt (or
 * .rel.plt) entry, one .plt entry each after the .plt header. */
static int add_plt_symbols(struct builder *b, const struct symbol_source *runtime)
{
	GElf_Shdr rel_sh, plt_sh, dyn_sh;
	Elf_Scn *rel = section_by_name(runtime->elf, ".rela.plt", &rel_sh, NULL);
	Elf_Data *rel_data, *syms;
	uint64_t addr, count;

	if (!runtime->dynsym || !gelf_getshdr(runtime->dynsym, &dyn_sh))
		return 0;
	if (!rel)
		rel = section_by_name(runtime->elf, ".rel.plt", &rel_sh, NULL);
	if (!rel || rel_sh.sh_link != runtime->dynsym_index || !rel_sh.sh_entsize ||
	    !section_by_name(runtime->elf, ".plt", &plt_sh, NULL) ||
	    !(rel_data = elf_getdata(rel, NULL)) || !(syms = elf_getdata(runtime->dynsym, NULL)))
		return 0;
	count = rel_sh.sh_size / rel_sh.sh_entsize;
	addr = plt_sh.sh_addr + plt_sh.sh_entsize;
	for (uint64_t i = 0; i < count; i++, addr += plt_sh.sh_entsize) {
		GElf_Sym sym = { 0 };
		GElf_Rela rela;
		GElf_Rel rel_entry;
		uint64_t info;
		const char *name = NULL;
		char plt_name[1024];
		char *demangled;

		if (rel_sh.sh_type == SHT_RELA) {
			if (!gelf_getrela(rel_data, (int)i, &rela))
				continue;
			info = rela.r_info;
		} else {
			if (!gelf_getrel(rel_data, (int)i, &rel_entry))
				continue;
			info = rel_entry.r_info;
		}
		if (gelf_getsym(syms, (int)GELF_R_SYM(info), &sym))
			name = elf_strptr(runtime->elf, dyn_sh.sh_link, sym.st_name);
		demangled = name ? demangle(name) : NULL;
		snprintf(plt_name, sizeof(plt_name), "%s@plt",
			 demangled ? demangled : name ? name : "");
		free(demangled);
		if (builder_add(b, addr, plt_sh.sh_entsize, plt_name, STB_GLOBAL, false))
			return -1;
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

/* The symbols of syms (its .symtab, then its .dynsym, as two passes) and
 * runtime's PLT entries, with runtime's segments. */
static int load_from_sources(struct symtab *t, const struct symbol_source *syms,
			     const struct symbol_source *runtime)
{
	struct builder b = { 0 };

	if (load_elf_segments(runtime->elf, t) ||
	    (syms->symtab && load_symbol_table(&b, syms, runtime, syms->symtab)) ||
	    (syms->dynsym && load_symbol_table(&b, syms, runtime, syms->dynsym)) ||
	    add_plt_symbols(&b, runtime) || builder_finish(&b, t)) {
		builder_free(&b);
		symtab_free(t);
		return -1;
	}
	return 0;
}

/* Tries file as the next candidate: it becomes *syms if it is the first with
 * a .symtab, *runtime if the first with a .dynsym. Whether both are found. */
static bool try_source(const char *file, const uint8_t *id, size_t len,
		       struct symbol_source *syms, struct symbol_source *runtime)
{
	struct symbol_source s;
	bool used = false;

	if (source_open(&s, file, id, len))
		return false;
	if (!syms->elf && s.symtab) {
		*syms = s;
		used = true;
	}
	if (!runtime->elf && s.dynsym) {
		if (used) { /* one file serves both: only syms closes it */
			*runtime = s;
			runtime->borrowed = true;
		} else {
			*runtime = s;
			used = true;
		}
	}
	if (!used)
		source_close(&s);
	return syms->elf && runtime->elf;
}

/* The files perf 6.1 looks in for a binary's symbols, in its order (dso__load:
 * debuglink, build-id cache, build-id debuginfo, the file itself): the file
 * named by .gnu_debuglink beside file, in its .debug, or under
 * /usr/lib/debug; the copies kept in dirs (the recording's .build-id, where
 * perf has its cache); root/usr/lib/debug/.build-id/xx/yyyy.debug; file. */
static void find_sources(const char *root, const char *file, const char *path, const uint8_t *id,
			 size_t len, const char *const *dirs, struct symbol_source *syms,
			 struct symbol_source *runtime)
{
	struct symbol_source self;
	char candidate[4096], id_path[4096], dir[4096];

	if (!source_open(&self, file, id, len)) {
		GElf_Word crc;
		const char *link = dwelf_elf_gnu_debuglink(self.elf, &crc);

		snprintf(dir, sizeof(dir), "%s", file);
		*strrchr(dir, '/') = '\0'; /* file always has root + an absolute path */
		if (link && !strchr(link, '/')) {
			static const char *const formats[] = { "%s/%s", "%s/.debug/%s",
								"/usr/lib/debug%s/%s" };

			for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
				int n;

				if (i == 2) {
					snprintf(dir, sizeof(dir), "%s", path);
					*strrchr(dir, '/') = '\0';
					n = snprintf(candidate, sizeof(candidate), "%s/usr/lib/debug%s/%s",
						     root, dir, link);
				} else {
					n = snprintf(candidate, sizeof(candidate), formats[i], dir, link);
				}
				if (n < 0 || (size_t)n >= sizeof(candidate) || access(candidate, F_OK))
					continue;
				if (try_source(candidate, id, len, syms, runtime))
					goto out;
				break; /* perf tries the first that exists */
			}
		}
	}
	for (; len && dirs && *dirs; dirs++) {
		build_id_path(candidate, sizeof(candidate), *dirs, id, len, "");
		if (try_source(candidate, id, len, syms, runtime))
			goto out;
	}
	if (len) {
		build_id_path(id_path, sizeof(id_path), DEBUG_BUILD_ID_DIR, id, len, ".debug");
		int n = snprintf(candidate, sizeof(candidate), "%s%s", root, id_path);

		if (n > 0 && (size_t)n < sizeof(candidate) && try_source(candidate, id, len, syms, runtime))
			goto out;
	}
	try_source(file, id, len, syms, runtime);
out:
	source_close(&self);
}

int symtab_load_elf_build_id(struct symtab *t, const char *root, const char *path,
			     const uint8_t *build_id, size_t len, const char *const *dirs,
			     char *err, size_t errlen)
{
	struct symbol_source syms = { .fd = -1 }, runtime = { .fd = -1 };
	uint8_t own_id[BUILD_ID_MAX];
	char file[4096];
	int ret;

	memset(t, 0, sizeof(*t));
	elf_version(EV_CURRENT);
	if (!root)
		root = "";
	snprintf(file, sizeof(file), "%s%s", root, path);
	if (!len) { /* as perf: the build-id of the file at path, if it has one */
		int fd = open_regular(file);
		ssize_t n = fd >= 0 ? build_id_read(fd, own_id) : -1;

		if (fd >= 0)
			close(fd);
		if (n > 0) {
			build_id = own_id;
			len = (size_t)n;
		}
	}
	if (path[0] != '/') {
		rt_format(err, errlen, "%s: not an absolute path", path);
		return -1;
	}
	find_sources(root, file, path, build_id, len, dirs, &syms, &runtime);
	if (!syms.elf && !runtime.elf) {
		rt_format(err, errlen, "%s: no file with its symbols%s", file,
			  len ? " and its build-id" : "");
		return -1;
	}
	ret = load_from_sources(t, syms.elf ? &syms : &runtime, runtime.elf ? &runtime : &syms);
	if (ret)
		rt_format(err, errlen, "%s: cannot read its symbols: %s", file, elf_errmsg(-1));
	source_close(&syms);
	source_close(&runtime);
	return ret;
}

int symtab_load_elf(struct symtab *t, const char *path, char *err, size_t errlen)
{
	return symtab_load_elf_build_id(t, NULL, path, NULL, 0, NULL, err, errlen);
}

static int load_elf_memory(struct symtab *t, void *image, size_t size)
{
	struct symbol_source s = { .fd = -1 };
	GElf_Shdr sh;
	int ret;

	memset(t, 0, sizeof(*t));
	elf_version(EV_CURRENT);
	s.elf = elf_memory(image, size);
	if (!s.elf || elf_kind(s.elf) != ELF_K_ELF) {
		if (s.elf)
			elf_end(s.elf);
		return -1;
	}
	s.symtab = section_by_name(s.elf, ".symtab", &sh, NULL);
	if (s.symtab && sh.sh_type != SHT_SYMTAB)
		s.symtab = NULL;
	s.dynsym = section_by_name(s.elf, ".dynsym", &sh, &s.dynsym_index);
	if (s.dynsym && sh.sh_type != SHT_DYNSYM)
		s.dynsym = NULL;
	ret = load_from_sources(t, &s, &s);
	elf_end(s.elf);
	return ret;
}

int symtab_load_vdso(struct symtab *t)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)getauxval(AT_SYSINFO_EHDR);
	uint64_t size;
	void *copy;
	int ret;

	memset(t, 0, sizeof(*t));
	if (!eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64)
		return -1;
	/* the image ends with its section headers */
	size = eh->e_shoff + (uint64_t)eh->e_shnum * eh->e_shentsize;
	if (size > VDSO_MAX_SIZE || (copy = malloc(size)) == NULL)
		return -1;
	memcpy(copy, eh, size);
	ret = load_elf_memory(t, copy, size);
	free(copy);
	return ret;
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
