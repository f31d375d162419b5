/* SPDX-License-Identifier: GPL-2.0-only */
/* elf_symbols.c: a binary's symbols as perf 6.1 reads them (libelf): the .symtab
 * of its debug file or its own .symtab and .dynsym, and its PLT entries. */
#include "symbols/symbols.h"

#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/log.h"
#include "symbols/build_id.h"
#include "symbols/debuginfod.h"
#include "symbols/demangle.h"
#include "symbols/elf_open.h"
#include "symbols/symtab_cache.h"
#include "sys/safe_open.h"

#define DEBUG_DIR "/usr/lib/debug"

/* An ELF file open for its symbols. */
struct elf_file {
	int fd;
	Elf *elf;
	GElf_Ehdr ehdr;
};

/* Opens a regular ELF file read-only. The paths come from the recording: a
 * FIFO or a device named there is refused, not waited on or read. Symlinks
 * are followed: debug files under /usr/lib/debug/.build-id often are ones. */
static int elf_file_open(struct elf_file *f, const char *path)
{
	memset(f, 0, sizeof(*f));
	f->fd = safe_openat(AT_FDCWD, path, SAFE_OPEN_FOLLOW, NULL);
	if (f->fd < 0)
		return f->fd;
	f->elf = elf_open_fd(f->fd);
	if (!f->elf || !gelf_getehdr(f->elf, &f->ehdr)) {
		if (f->elf)
			elf_end(f->elf);
		close(f->fd);
		f->fd = -1;
		f->elf = NULL;
		errno = ENOEXEC;
		return -ENOEXEC;
	}
	return 0;
}

static void elf_file_close(struct elf_file *f)
{
	if (f->elf)
		elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
	f->elf = NULL;
	f->fd = -1;
}

/* The section of that name and, if it is one, that type (perf's
 * elf_section_by_name, then its type check), or NULL. */
static Elf_Scn *section_by_name(Elf *elf, const char *name, Elf64_Word type, GElf_Shdr *sh,
				size_t *index)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *s;

		if (!gelf_getshdr(scn, sh))
			continue;
		s = elf_strptr(elf, shstrndx, sh->sh_name);
		if (!s || strcmp(s, name))
			continue;
		if (sh->sh_type != type)
			return NULL;
		if (index)
			*index = elf_ndxscn(scn);
		return scn;
	}
	return NULL;
}

static const char *section_name(Elf *elf, const GElf_Shdr *sh)
{
	size_t shstrndx;
	const char *s = NULL;

	if (!elf_getshdrstrndx(elf, &shstrndx))
		s = elf_strptr(elf, shstrndx, sh->sh_name);
	return s ? s : "";
}

/* Whether perf's dso__load_sym keeps sym, and the section it lives in. perf
 * keeps functions, objects and labels (untyped symbols of a text or data
 * section, not hidden) that are defined, not absolute, in allocated sections. */
static bool perf_keeps(const struct elf_file *syms, const struct elf_file *runtime,
		       const GElf_Sym *sym, const char *name)
{
	int type = GELF_ST_TYPE(sym->st_info), vis = GELF_ST_VISIBILITY(sym->st_other);
	bool label = type == STT_NOTYPE && sym->st_name && sym->st_shndx != SHN_UNDEF &&
		     sym->st_shndx != SHN_ABS && vis != STV_HIDDEN && vis != STV_INTERNAL;
	Elf_Scn *scn;
	GElf_Shdr sh;
	Elf *names = syms->elf;
	const char *sec;

	if (!label && !(sym->st_name && sym->st_shndx != SHN_UNDEF &&
			(type == STT_FUNC || type == STT_GNU_IFUNC || type == STT_OBJECT)))
		return false;
	/* ARM mapping symbols ($a, $d, $t, $x) name no function */
	if ((syms->ehdr.e_machine == EM_ARM || syms->ehdr.e_machine == EM_AARCH64) &&
	    name[0] == '$' && name[1] && strchr("adtx", name[1]) && (!name[2] || name[2] == '.'))
		return false;
	if (sym->st_shndx == SHN_ABS || sym->st_shndx >= SHN_LORESERVE)
		return false;
	scn = elf_getscn(syms->elf, sym->st_shndx);
	if (!scn || !gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC))
		return false;
	/* a debug file's sections hold no bits: the binary's say what they are */
	if (sh.sh_type == SHT_NOBITS) {
		scn = elf_getscn(runtime->elf, sym->st_shndx);
		if (!scn || !gelf_getshdr(scn, &sh))
			return false;
		names = runtime->elf;
	}
	if (!label)
		return true;
	sec = section_name(names, &sh);
	return strstr(sec, "text") || strstr(sec, "data");
}

/* dso__load_sym_internal for a user binary: the symbols of one symbol table,
 * then perf's fixups. Returns how many were added, or -ENOMEM (-E2BIG). */
static ssize_t add_symbol_table(struct symtab_builder *b, const struct elf_file *syms,
				const struct elf_file *runtime, Elf_Scn *scn, const GElf_Shdr *sh)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t count;
	ssize_t added = 0;
	int r;

	if (!data || !sh->sh_entsize)
		return 0;
	count = sh->sh_size / sh->sh_entsize;
	for (size_t i = 0; i < count && i <= INT32_MAX; i++) {
		GElf_Sym sym;
		const char *name;

		if (!gelf_getsym(data, (int)i, &sym))
			continue;
		name = elf_strptr(syms->elf, sh->sh_link, sym.st_name);
		if (!name || !perf_keeps(syms, runtime, &sym, name))
			continue;
		/* ARM: a Thumb function's address has its low bit set */
		if (syms->ehdr.e_machine == EM_ARM && GELF_ST_TYPE(sym.st_info) == STT_FUNC)
			sym.st_value &= ~(GElf_Addr)1;
		if ((r = symtab_builder_add_demangled(b, sym.st_value, sym.st_size,
						      GELF_ST_BIND(sym.st_info),
						      GELF_ST_TYPE(sym.st_info), name)))
			return r;
		added++;
	}
	if (added && (r = symtab_builder_fixup(b)))
		return r;
	return added;
}

/* dso__load_sym: the .symtab of syms, then its .dynsym, each with its fixups. */
static ssize_t add_symbols(struct symtab_builder *b, const struct elf_file *syms,
			   const struct elf_file *runtime)
{
	static const struct {
		const char *name;
		Elf64_Word type;
	} tables[] = { { ".symtab", SHT_SYMTAB }, { ".dynsym", SHT_DYNSYM } };
	ssize_t total = 0;

	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		GElf_Shdr sh;
		Elf_Scn *scn = section_by_name(syms->elf, tables[i].name, tables[i].type, &sh, NULL);
		ssize_t n = scn ? add_symbol_table(b, syms, runtime, scn, &sh) : 0;

		if (n < 0)
			return n;
		total += n;
	}
	return total;
}

/* perf's PLT header and entry sizes: per machine, else .plt's entry size. */
static void plt_sizes(const GElf_Ehdr *ehdr, const GElf_Shdr *plt, uint64_t *header,
		      uint64_t *entry)
{
	switch (ehdr->e_machine) {
	case EM_ARM:
		*header = 20, *entry = 12;
		break;
	case EM_AARCH64:
		*header = 32, *entry = 16;
		break;
	case EM_SPARC:
		*header = 48, *entry = 12;
		break;
	case EM_SPARCV9:
		*header = 128, *entry = 32;
		break;
	default:
		*header = *entry = plt->sh_entsize;
		break;
	}
}

/* dso__synthesize_plt_symbols as perf 6.1 does it: entry i of .rela.plt (or
 * .rel.plt), which must refer to .dynsym, names the i-th entry of .plt after
 * its header, "NAME@plt" (demangled; "@plt" for an IRELATIVE relocation,
 * which names no symbol). .plt.sec and .plt.got are not read, as perf 6.1
 * does not read them: their addresses keep the symbol before them. */
static int add_plt_symbols(struct symtab_builder *b, const struct elf_file *f)
{
	GElf_Shdr dynsym_sh, rel_sh, plt_sh;
	size_t dynsym_index = 0;
	Elf_Scn *dynsym = section_by_name(f->elf, ".dynsym", SHT_DYNSYM, &dynsym_sh, &dynsym_index);
	Elf_Scn *rel = section_by_name(f->elf, ".rela.plt", SHT_RELA, &rel_sh, NULL);
	Elf_Data *rels, *syms;
	uint64_t header, entry, addr;
	size_t count;

	if (!rel)
		rel = section_by_name(f->elf, ".rel.plt", SHT_REL, &rel_sh, NULL);
	if (!dynsym || !rel || rel_sh.sh_link != dynsym_index || !rel_sh.sh_entsize ||
	    !section_by_name(f->elf, ".plt", SHT_PROGBITS, &plt_sh, NULL))
		return 0;
	rels = elf_getdata(rel, NULL);
	syms = elf_getdata(dynsym, NULL);
	if (!rels || !syms)
		return 0;
	plt_sizes(&f->ehdr, &plt_sh, &header, &entry);
	count = rel_sh.sh_size / rel_sh.sh_entsize;
	addr = plt_sh.sh_addr + header;
	for (size_t i = 0; i < count && i <= INT32_MAX; i++, addr += entry) {
		GElf_Rela rela;
		GElf_Rel r;
		GElf_Sym sym;
		uint64_t info;
		const char *name = NULL;
		char *demangled, plt_name[1024];

		if (rel_sh.sh_type == SHT_RELA) {
			if (!gelf_getrela(rels, (int)i, &rela))
				break;
			info = rela.r_info;
		} else {
			if (!gelf_getrel(rels, (int)i, &r))
				break;
			info = r.r_info;
		}
		if (gelf_getsym(syms, (int)GELF_R_SYM(info), &sym))
			name = elf_strptr(f->elf, dynsym_sh.sh_link, sym.st_name);
		if (!name)
			name = "";
		demangled = demangle(name);
		snprintf(plt_name, sizeof(plt_name), "%s@plt", demangled ? demangled : name);
		free(demangled);
		if (symtab_builder_add(b, addr, entry, STB_GLOBAL, STT_FUNC, plt_name))
			return -ENOMEM;
	}
	return 0;
}

static int load_segments(Elf *elf, struct symtab *t)
{
	size_t n;

	if (elf_getphdrnum(elf, &n))
		return -EINVAL;
	t->segments = calloc(n ? n : 1, sizeof(*t->segments));
	if (!t->segments)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		t->segments[t->nr_segments++] =
			(struct elf_segment){ ph.p_offset, ph.p_vaddr, ph.p_filesz };
	}
	return 0;
}

/* Opens candidate as the file of symbols if it is an ELF file with a .symtab
 * and, when id_len, that build-id (perf refuses a debug file of another build). */
static bool try_symbols_file(struct elf_file *out, const char *candidate, const void *id,
			     ssize_t id_len)
{
	GElf_Shdr sh;

	if (elf_file_open(out, candidate))
		return false;
	if (section_by_name(out->elf, ".symtab", SHT_SYMTAB, &sh, NULL)) {
		const void *got;
		ssize_t len = dwelf_elf_gnu_build_id(out->elf, &got);

		if (id_len <= 0 || (len == id_len && !memcmp(got, id, (size_t)id_len)))
			return true;
	}
	elf_file_close(out);
	return false;
}

/* The file perf takes symbols from, in dso__load's order: a debug file
 * (.gnu_debuglink beside the binary, in its .debug/ or under /usr/lib/debug;
 * /usr/lib/debug/PATH.debug or PATH; by build-id) with a .symtab, else the
 * binary itself if it has one, else the debug files perf tries after it.
 * 1 with *out open (0: the binary itself), or 0 if none has a .symtab. */
static int find_symbols_file(struct elf_file *out, const struct elf_file *runtime,
			     const char *root, const char *path)
{
	const void *id;
	ssize_t id_len = dwelf_elf_gnu_build_id(runtime->elf, &id);
	GElf_Word crc;
	const char *link = dwelf_elf_gnu_debuglink(runtime->elf, &crc);
	const char *slash = strrchr(path, '/');
	int dir_len = slash ? (int)(slash - path) : 0;
	char file[4096], id_path[4096];
	GElf_Shdr sh;

	if (link && !strchr(link, '/')) {
		static const char *const debuglink[] = { "%s%.*s/%s", "%s%.*s/.debug/%s",
							 "%s" DEBUG_DIR "%.*s/%s" };

		for (size_t i = 0; i < sizeof(debuglink) / sizeof(debuglink[0]); i++) {
			snprintf(file, sizeof(file), debuglink[i], root, dir_len, path, link);
			if (try_symbols_file(out, file, id, id_len))
				return 1;
		}
	}
	snprintf(file, sizeof(file), "%s" DEBUG_DIR "%s.debug", root, path);
	if (try_symbols_file(out, file, id, id_len))
		return 1;
	snprintf(file, sizeof(file), "%s" DEBUG_DIR "%s", root, path);
	if (try_symbols_file(out, file, id, id_len))
		return 1;
	if (id_len > 1) {
		build_id_path(id_path, sizeof(id_path), DEBUG_DIR "/.build-id", id, (size_t)id_len,
			      ".debug");
		snprintf(file, sizeof(file), "%s%s", root, id_path);
		if (try_symbols_file(out, file, id, id_len))
			return 1;
	}
	if (section_by_name(runtime->elf, ".symtab", SHT_SYMTAB, &sh, NULL))
		return 0;
	snprintf(file, sizeof(file), "%s%.*s/.debug/%s", root, dir_len, path, slash ? slash + 1 : path);
	if (try_symbols_file(out, file, id, id_len))
		return 1;
	if (!strncmp(path, "/usr/lib/", 9)) {
		snprintf(file, sizeof(file), "%s" DEBUG_DIR "%s", root, path + 4);
		if (try_symbols_file(out, file, id, id_len))
			return 1;
	}
	/* none on this machine: from debuginfod, when DEBUGINFOD_URLS names servers */
	if (id_len > 1 && debuginfod_wanted(runtime->elf) &&
	    !debuginfod_fetch_debuginfo(id, (size_t)id_len, file, sizeof(file)) &&
	    try_symbols_file(out, file, id, id_len))
		return 1;
	return 0;
}

/* Symbols and segments of runtime, the file that was mapped (or a copy). */
static int load_runtime(struct symtab *t, const struct elf_file *runtime, const char *root,
			const char *path)
{
	struct symtab_builder b;
	struct elf_file debug;
	int has_debug = root && path ? find_symbols_file(&debug, runtime, root, path) : 0;
	int r = -EINVAL;
	ssize_t n;

	symtab_builder_init(&b, false);
	n = add_symbols(&b, has_debug ? &debug : runtime, runtime);
	if (has_debug)
		elf_file_close(&debug);
	if (n < 0 || (n > 0 && (r = add_plt_symbols(&b, runtime))) ||
	    (r = symtab_builder_finish(&b, t)) || (r = load_segments(runtime->elf, t))) {
		symtab_builder_free(&b);
		symtab_free(t);
		return n < 0 ? (int)n : r;
	}
	return 0;
}

/* Loads file's symbols and segments (file is what was recorded as path:
 * itself under root, or a copy); with want_len, only if its build-id is
 * want_id (1 if it is another). */
static int load_elf_file(struct symtab *t, const char *root, const char *file, const char *path,
			 const uint8_t *want_id, size_t want_len, char *err, size_t errlen)
{
	struct elf_file f;
	struct stat st;
	int ret;

	memset(t, 0, sizeof(*t));
	if ((ret = elf_file_open(&f, file))) {
		rt_format(err, errlen, "cannot open %s: %s", file,
			  errno == ENOEXEC ? "not an ELF file" : safe_open_strerror(errno));
		return ret;
	}
	if (want_len) {
		const void *id;
		ssize_t len = dwelf_elf_gnu_build_id(f.elf, &id);

		if (len != (ssize_t)want_len || memcmp(id, want_id, want_len)) {
			rt_format(err, errlen, "%s: not the file that was recorded (its build-id differs)",
				  file);
			elf_file_close(&f);
			return 1;
		}
	}
	/* read before, from this very inode (a report before this one) */
	if (fstat(f.fd, &st))
		st.st_ino = 0;
	if (st.st_ino && symtab_cache_find(&st, root ? root : "", path, t)) {
		elf_file_close(&f);
		return 0;
	}
	if ((ret = load_runtime(t, &f, root ? root : "", path)))
		rt_format(err, errlen, "%s: cannot read its symbols: %s", file, elf_errmsg(-1));
	else if (st.st_ino)
		symtab_cache_keep(&st, root ? root : "", path, t);
	elf_file_close(&f);
	return ret;
}

int symtab_load_elf(struct symtab *t, const char *path, char *err, size_t errlen)
{
	return load_elf_file(t, NULL, path, path, NULL, 0, err, errlen);
}

int symtab_load_elf_build_id(struct symtab *t, const char *root, const char *path,
			     const uint8_t *build_id, size_t len, const char *const *dirs,
			     char *err, size_t errlen)
{
	char file[4096], id_path[4096];
	int ret;

	if (!root)
		root = "";
	snprintf(file, sizeof(file), "%s%s", root, path);
	if (!len)
		return load_elf_file(t, root, file, path, NULL, 0, err, errlen);
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
	build_id_path(id_path, sizeof(id_path), DEBUG_DIR "/.build-id", build_id, len, ".debug");
	snprintf(file, sizeof(file), "%s%s", root, id_path);
	ret = load_elf_file(t, root, file, path, build_id, len, NULL, 0);
	return ret > 0 ? -ESTALE : ret;
}

int symtab_load_elf_image(struct symtab *t, const void *image, size_t len,
			  const uint8_t *want_id, size_t want_len, char *err, size_t errlen)
{
	struct elf_file f = { .fd = -1 };
	char *copy = malloc(len ? len : 1);
	int ret = -ENOEXEC;

	memset(t, 0, sizeof(*t));
	if (!copy) {
		rt_format(err, errlen, "out of memory");
		return -ENOMEM;
	}
	memcpy(copy, image, len);
	elf_version(EV_CURRENT);
	f.elf = elf_memory(copy, len);
	if (!f.elf || elf_kind(f.elf) != ELF_K_ELF || !gelf_getehdr(f.elf, &f.ehdr)) {
		rt_format(err, errlen, "not an ELF image");
	} else if (want_len) {
		const void *id;
		ssize_t n = dwelf_elf_gnu_build_id(f.elf, &id);

		ret = n != (ssize_t)want_len || memcmp(id, want_id, want_len) ? -ESTALE : 0;
		if (ret)
			rt_format(err, errlen, "not the image that was recorded (its build-id differs)");
	} else {
		ret = 0;
	}
	if (!ret && (ret = load_runtime(t, &f, NULL, NULL)))
		rt_format(err, errlen, "cannot read its symbols: %s", elf_errmsg(-1));
	elf_file_close(&f);
	free(copy);
	return ret;
}
