/* SPDX-License-Identifier: GPL-2.0-only */
/* test_unwind_compile_bounds.c: compiling an unwind table costs what the CFI costs,
 * not the code: chromium in a second, lying headers refused fast and small,
 * and the budget (rows, time, cancel) answered. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dwarf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/monotonic.h"
#include "symbols/unwind_elf.h"
#include "symbols/unwind_compile.h"
#include "test_util.h"

#define CHROMIUM "/usr/lib/chromium/chromium"
#define LIBC "/lib/x86_64-linux-gnu/libc.so.6"

/* What one compile did, measured in a child process of its own (its peak
 * RSS is its own, and a hang is cut short by alarm). */
struct outcome {
	int ret;
	enum unwind_refusal why;
	size_t rows;
	double cpu_seconds;
	long rss_growth_kb;
	bool left_behind; /* a refusal that left rows in the table */
	char err[256];
	uint64_t probe_pc; /* asked before: the rule of the row there */
	int probe_cfa;     /* its enum unwind_cfa, -1 no row */
};

static double clock_seconds(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double thread_cpu_seconds(void)
{
	return clock_seconds(CLOCK_THREAD_CPUTIME_ID);
}

static long max_rss_kb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

/* Compiles path within budget (NULL: the defaults) here; no assertions (a
 * child process runs it too). */
static void compile_here(const char *path, const struct unwind_budget *budget, struct outcome *o)
{
	const struct unwind_row *probed;
	uint64_t probe_pc = o->probe_pc;
	struct unwind_table t;
	double start;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	memset(o, 0, sizeof(*o));
	o->probe_pc = probe_pc;
	start = thread_cpu_seconds();
	o->ret = unwind_table_build(fd, budget, &t, &o->why, o->err, sizeof(o->err));
	o->cpu_seconds = thread_cpu_seconds() - start;
	if (fd >= 0)
		close(fd);
	o->rows = t.nr;
	o->left_behind = o->ret && (t.rows || t.nr);
	probed = o->ret ? NULL : unwind_table_find(&t, probe_pc);
	o->probe_cfa = probed ? probed->cfa : -1;
	unwind_table_free(&t);
}

/* What every compile must be: a refusal leaves nothing behind and says why
 * in one line. */
static void check_outcome(const char *path, const struct outcome *o)
{
	print_message("%s: %s%s, %zu rows, %.1f ms CPU, peak RSS +%ld KB\n", path,
		      o->ret ? "refused: " : "built", o->ret ? o->err : "", o->rows,
		      o->cpu_seconds * 1e3, o->rss_growth_kb);
	if (o->ret) {
		assert_true(o->ret < 0);
		assert_false(o->left_behind);
		assert_true(o->why != UNWIND_BUILT);
		assert_true(o->err[0] != '\0');
		assert_null(strchr(o->err, '\n'));
	} else {
		assert_int_equal(o->why, UNWIND_BUILT);
	}
}

static void compile(const char *path, const struct unwind_budget *budget, struct outcome *o)
{
	compile_here(path, budget, o);
	check_outcome(path, o);
}

/* The same in a child process: with its peak RSS growth, killed after 20 s. */
static void compile_apart(const char *path, const struct unwind_budget *budget, struct outcome *o)
{
	int pipefd[2], status;
	pid_t pid;

	assert_int_equal(pipe(pipefd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		long before;

		close(pipefd[0]);
		alarm(20);
		before = max_rss_kb();
		compile_here(path, budget, o);
		o->rss_growth_kb = max_rss_kb() - before;
		_exit(write(pipefd[1], o, sizeof(*o)) == (ssize_t)sizeof(*o) ? 0 : 1);
	}
	close(pipefd[1]);
	assert_int_equal(read(pipefd[0], o, sizeof(*o)), (ssize_t)sizeof(*o));
	close(pipefd[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	check_outcome(path, o);
}

/* A hostile file's answer: within 100 ms of CPU and 64 MB. */
static void assert_fast_and_small(const struct outcome *o)
{
	assert_true(o->cpu_seconds <= 0.1);
	assert_true(o->rss_growth_kb <= 64 * 1024);
}

/* Removes a copy made in dir, and dir. */
static void remove_copy(char *path, char *dir)
{
	free(path);
	tu_rmtree(dir);
	free(dir);
}

/* The path of the test program name in SYMGEN_DIR (skips without it). */
static void symgen_path(char *path, size_t size, const char *name)
{
	const char *dir = getenv("SYMGEN_DIR");

	if (!dir)
		tu_skip("SYMGEN_DIR is not set: run through make check");
	snprintf(path, size, "%s/%s", dir, name);
}

/* How many FDEs readelf counts in path. */
static size_t readelf_fde_count(const char *path)
{
	char cmd[1024], line[4096];
	size_t n = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "readelf --debug-dump=frames '%s'", path);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p))
		n += strstr(line, " FDE ") != NULL;
	pclose(p);
	return n;
}

/* Chromium: 236 MB of .text, 420 KB of .eh_frame, compiled in a second. */
static void test_chromium_in_a_second(void **state)
{
	struct outcome o = { 0 };
	size_t fdes;

	(void)state;
	if (access(CHROMIUM, R_OK))
		tu_skip("no %s on this machine (apt-get install chromium)", CHROMIUM);
	compile_apart(CHROMIUM, NULL, &o);
	assert_int_equal(o.ret, 0);
	fdes = readelf_fde_count(CHROMIUM);
	print_message("%s: %zu FDEs, %zu rows\n", CHROMIUM, fdes, o.rows);
	assert_true(fdes > 1000);
	assert_true(o.rows > fdes);
	assert_true(o.cpu_seconds <= 1.0);
}

/* A copy of src in dir as name; its path. */
static char *copy_of(const char *dir, const char *name, const char *src)
{
	char *path, *cmd;

	assert_true(asprintf(&path, "%s/%s", dir, name) > 0);
	assert_true(asprintf(&cmd, "cp '%s' '%s'", src, path) > 0);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	return path;
}

/* path (a 64-bit ELF file) opened: its descriptor into *fd, its ELF
 * header into *eh. */
static Elf *open_elf(const char *path, int *fd, GElf_Ehdr *eh)
{
	Elf *elf;

	*fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(*fd >= 0);
	elf_version(EV_CURRENT);
	elf = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
	assert_non_null(elf);
	assert_non_null(gelf_getehdr(elf, eh));
	assert_int_equal(eh->e_ident[EI_CLASS], ELFCLASS64);
	return elf;
}

/* The file offset of section's header in path (a 64-bit ELF file) into
 * *header_at, and the header into *sh. */
static void find_section(const char *path, const char *section, off_t *header_at, GElf_Shdr *sh)
{
	size_t shstrndx, index = 0;
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	int fd;
	Elf *elf = open_elf(path, &fd, &eh);

	assert_int_equal(elf_getshdrstrndx(elf, &shstrndx), 0);
	while (!index && (scn = elf_nextscn(elf, scn))) {
		const char *n;

		if (gelf_getshdr(scn, sh) && (n = elf_strptr(elf, shstrndx, sh->sh_name)) &&
		    !strcmp(n, section))
			index = elf_ndxscn(scn);
	}
	elf_end(elf);
	close(fd);
	assert_true(index > 0);
	*header_at = (off_t)(eh.e_shoff + index * eh.e_shentsize);
}

/* Writes size bytes of data at offset of path. */
static void patch(const char *path, off_t offset, const void *data, size_t size)
{
	int fd = open(path, O_RDWR | O_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, data, size, offset), (ssize_t)size);
	close(fd);
}

/* A copy of src in dir as name, with section section's sh_size set to
 * size (patched in the section header table, by offset); its path. */
static char *lying_copy(const char *dir, const char *name, const char *src, const char *section,
			uint64_t size)
{
	char *path = copy_of(dir, name, src);
	GElf_Shdr sh;
	off_t header_at;

	find_section(path, section, &header_at, &sh);
	patch(path, header_at + (off_t)offsetof(Elf64_Shdr, sh_size), &size, sizeof(size));
	return path;
}

/* A .text that claims 2^62 bytes: refused, or compiled, at once. */
static void test_huge_text_is_bounded(void **state)
{
	char src[512], *dir = tu_tempdir(), *path;
	struct outcome o = { 0 };

	(void)state;
	assert_non_null(dir);
	symgen_path(src, sizeof(src), "unwindgen");
	path = lying_copy(dir, "huge_text", src, ".text", 1ull << 62);
	compile_apart(path, NULL, &o);
	if (o.ret)
		assert_int_equal(o.why, UNWIND_LYING_HEADER);
	assert_fast_and_small(&o);
	remove_copy(path, dir);
}

/* An .eh_frame that claims 2 GiB: in a small file (a lie), and in one made
 * sparse to 2 GiB and more (true to the file's size: over the byte budget,
 * and within a budget that allows it, read through the mapping as far as
 * its entries go). Each answered within 100 ms and 64 MB. */
static void test_huge_eh_frame_is_bounded(void **state)
{
	const struct unwind_budget roomy = { .max_rows = UNWIND_DEFAULT_MAX_ROWS,
					     .max_cfi_bytes = 4ull << 30,
					     .max_seconds = UNWIND_DEFAULT_MAX_SECONDS };
	char src[512], *dir = tu_tempdir(), *path;
	struct outcome o = { 0 };
	int fd;

	(void)state;
	assert_non_null(dir);
	symgen_path(src, sizeof(src), "unwindgen");
	path = lying_copy(dir, "huge_eh_frame", src, ".eh_frame", 2ull << 30);
	compile_apart(path, NULL, &o);
	assert_int_equal(o.ret, -EINVAL);
	assert_int_equal(o.why, UNWIND_LYING_HEADER);
	assert_fast_and_small(&o);

	fd = open(path, O_RDWR | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)(2ull << 30) + (1 << 20)), 0);
	close(fd);
	compile_apart(path, NULL, &o);
	assert_int_equal(o.ret, -EFBIG);
	assert_int_equal(o.why, UNWIND_OVER_BYTES);
	assert_fast_and_small(&o);

	compile_apart(path, &roomy, &o);
	if (o.ret)
		assert_true(o.why == UNWIND_LYING_HEADER || o.why == UNWIND_OVER_BYTES);
	assert_fast_and_small(&o);
	remove_copy(path, dir);
}

/* The longest FDE of path's .eh_frame: its offset in the section, its
 * length and where its code starts. */
static void longest_fde(const char *path, uint64_t *offset, uint64_t *length, uint64_t *pc)
{
	char cmd[1024], line[512];
	FILE *p;

	*length = 0;
	snprintf(cmd, sizeof(cmd), "readelf --debug-dump=frames '%s'", path);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		unsigned long long off, len, lo;

		if (strstr(line, " FDE ") &&
		    sscanf(line, "%llx %llx %*x FDE cie=%*x pc=%llx", &off, &len, &lo) == 3 &&
		    len > *length) {
			*offset = off;
			*length = len;
			*pc = lo;
		}
	}
	pclose(p);
}

/* An FDE of path's .eh_frame (readelf's): where it is, its CIE, its code. */
struct fde_facts {
	uint64_t offset, length, cie, lo, hi;
};

/* The first FDE of path's .eh_frame that is not at offset skip. */
static void other_fde(const char *path, uint64_t skip, struct fde_facts *f)
{
	char cmd[1024], line[512];
	FILE *p;

	memset(f, 0, sizeof(*f));
	snprintf(cmd, sizeof(cmd), "readelf --debug-dump=frames '%s'", path);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		unsigned long long off, len, cie, lo, hi;

		if (!f->hi && strstr(line, " FDE ") &&
		    sscanf(line, "%llx %llx %*x FDE cie=%llx pc=%llx..%llx", &off, &len, &cie, &lo,
			   &hi) == 5 &&
		    off != skip)
			*f = (struct fde_facts){ off, len, cie, lo, hi };
	}
	pclose(p);
	assert_true(f->hi > f->lo);
}

static uint32_t read_u32(const char *path, off_t offset)
{
	uint32_t v;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(pread(fd, &v, sizeof(v), offset), (ssize_t)sizeof(v));
	close(fd);
	return v;
}

/* A copy of unwindgen to make lie: its longest FDE (where it is, its
 * length, its code), another FDE, and the copy's .eh_frame. */
struct unwindgen_copy {
	char *dir, *path;
	uint64_t longest, length, pc;
	struct fde_facts other;
	GElf_Shdr eh;
};

static void unwindgen_copy(const char *name, struct unwindgen_copy *c)
{
	char src[512];
	off_t header_at;

	c->dir = tu_tempdir();
	assert_non_null(c->dir);
	symgen_path(src, sizeof(src), "unwindgen");
	longest_fde(src, &c->longest, &c->length, &c->pc);
	other_fde(src, c->longest, &c->other);
	c->path = copy_of(c->dir, name, src);
	find_section(c->path, ".eh_frame", &header_at, &c->eh);
}

/* Where the instructions of an FDE of unwindgen's start: after its length,
 * CIE pointer, pc_begin and pc_range ("zR", sdata4: 4 bytes each) and its
 * augmentation length 0. */
#define FDE_INSTRUCTIONS (4 + 4 + 4 + 4 + 1)

/* An FDE whose first instruction makes register 2^27 - 1 undefined: libdw
 * would grow a frame of 2 GB for it, for each of its rows. The FDE is left
 * out (a gap: frame pointers), within 100 ms and 64 MB. */
static void test_hostile_register_is_bounded(void **state)
{
	static const uint8_t undefined_huge_register[] = { DW_CFA_undefined, 0xff, 0xff, 0xff,
							   0x3f };
	struct outcome o = { 0 };
	struct unwindgen_copy c;

	(void)state;
	unwindgen_copy("huge_register", &c);
	assert_true(c.length + 4 >= FDE_INSTRUCTIONS + sizeof(undefined_huge_register));
	patch(c.path, (off_t)(c.eh.sh_offset + c.longest + FDE_INSTRUCTIONS),
	      undefined_huge_register, sizeof(undefined_huge_register));
	o.probe_pc = c.pc;
	compile_apart(c.path, NULL, &o);
	assert_int_equal(o.ret, 0);
	assert_int_equal(o.probe_cfa, UNWIND_CFA_NONE);
	assert_fast_and_small(&o);
	remove_copy(c.path, c.dir);
}

/* A CFA instruction that makes register 2^23 undefined: libdw grows a
 * frame of 128 MB for it, for each row. */
static const uint8_t undefined_big_register[] = { DW_CFA_undefined, 0x80, 0x80, 0x80, 0x04 };

/* libdw runs the FDE .eh_frame_hdr's table names for a pc, where the table
 * says it starts. An entry that names, for another FDE's code, an FDE
 * written inside the longest one's instructions (never read by the walk
 * from the section's start) that makes register 2^23 undefined (a 128 MB
 * frame for each row): the table lies, and the file is refused so, within
 * 100 ms and 64 MB. */
static void test_lying_table_is_refused(void **state)
{
	/* length (the rest: 18 bytes), CIE pointer, pc_begin (pcrel sdata4),
	 * pc_range, augmentation length 0, DW_CFA_undefined 2^23 */
	uint8_t fake[22] = { 18, 0, 0, 0 };
	struct outcome o = { 0 };
	struct unwindgen_copy c;
	uint64_t cie, fake_at;
	bool patched = false;
	off_t header_at;
	uint32_t count;
	GElf_Shdr hdr;
	int32_t v;

	(void)state;
	unwindgen_copy("lying_table", &c);
	assert_true(c.length + 4 >= 20 + sizeof(fake));
	find_section(c.path, ".eh_frame_hdr", &header_at, &hdr);

	/* the fake FDE, 20 bytes into the longest one, under its CIE */
	fake_at = c.longest + 20;
	cie = c.longest + 4 - read_u32(c.path, (off_t)(c.eh.sh_offset + c.longest + 4));
	v = (int32_t)(fake_at + 4 - cie);
	memcpy(fake + 4, &v, 4);
	v = (int32_t)(c.other.lo - (c.eh.sh_addr + fake_at + 8));
	memcpy(fake + 8, &v, 4);
	v = (int32_t)(c.other.hi - c.other.lo);
	memcpy(fake + 12, &v, 4);
	fake[16] = 0;
	memcpy(fake + 17, undefined_big_register, sizeof(undefined_big_register));
	patch(c.path, (off_t)(c.eh.sh_offset + fake_at), fake, sizeof(fake));

	/* the other FDE's entry (datarel sdata4 pairs after 12 bytes) names it */
	assert_int_equal(read_u32(c.path, (off_t)hdr.sh_offset), 0x3b031b01);
	count = read_u32(c.path, (off_t)hdr.sh_offset + 8);
	for (uint32_t i = 0; i < count; i++) {
		off_t entry = (off_t)(hdr.sh_offset + 12 + i * 8);

		if (hdr.sh_addr + (uint64_t)(int64_t)(int32_t)read_u32(c.path, entry) != c.other.lo)
			continue;
		v = (int32_t)(c.eh.sh_addr + fake_at - hdr.sh_addr);
		patch(c.path, entry + 4, &v, 4);
		patched = true;
	}
	assert_true(patched);

	o.probe_pc = c.other.lo;
	compile_apart(c.path, NULL, &o);
	assert_int_equal(o.ret, -EINVAL);
	assert_int_equal(o.why, UNWIND_LYING_HEADER);
	assert_non_null(strstr(o.err, "where no FDE starts"));
	assert_fast_and_small(&o);
	remove_copy(c.path, c.dir);
}

/* A CIE augmentation of a letter this compile does not know ("zQ" for
 * "zR"): libdw skips the letter and reads the FDEs' addresses as absolute
 * 8 bytes, where the walk could only guess; refused as unknown, not read
 * otherwise than libdw reads it. */
static void test_unknown_augmentation_is_refused(void **state)
{
	struct outcome o = { 0 };
	struct unwindgen_copy c;
	char aug[3];
	int fd;

	(void)state;
	unwindgen_copy("unknown_augmentation", &c);
	/* length, CIE id, version: the augmentation string after */
	fd = open(c.path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, aug, 3, (off_t)(c.eh.sh_offset + c.other.cie + 9)), 3);
	close(fd);
	assert_memory_equal(aug, "zR", 3);
	patch(c.path, (off_t)(c.eh.sh_offset + c.other.cie + 10), "Q", 1);
	compile_apart(c.path, NULL, &o);
	assert_int_equal(o.ret, -EPROTO);
	assert_int_equal(o.why, UNWIND_UNKNOWN_CFI);
	assert_true(o.cpu_seconds <= 0.1);
	remove_copy(c.path, c.dir);
}

/* An FDE overlapping one that is left out (the longest, made to undefine
 * register 2^23: 128 MB a row) is left out too: for a pc both cover,
 * libdw's search by .eh_frame_hdr's table finds the entry before the pc,
 * the longest's, and would run it. Another FDE moved 16 bytes into the
 * longest's code: both a gap there, within 100 ms and 64 MB. */
static void test_overlapping_fde_is_left_out(void **state)
{
	struct outcome o = { 0 };
	struct unwindgen_copy c;
	int32_t v;

	(void)state;
	unwindgen_copy("overlapping", &c);
	patch(c.path, (off_t)(c.eh.sh_offset + c.longest + FDE_INSTRUCTIONS),
	      undefined_big_register, sizeof(undefined_big_register));
	/* the other's pc_begin (pcrel sdata4) and range: 32 bytes at pc + 16 */
	v = (int32_t)(c.pc + 16 - (c.eh.sh_addr + c.other.offset + 8));
	patch(c.path, (off_t)(c.eh.sh_offset + c.other.offset + 8), &v, 4);
	v = 32;
	patch(c.path, (off_t)(c.eh.sh_offset + c.other.offset + 12), &v, 4);
	o.probe_pc = c.pc + 24;
	compile_apart(c.path, NULL, &o);
	assert_int_equal(o.ret, 0);
	assert_int_equal(o.probe_cfa, UNWIND_CFA_NONE);
	assert_fast_and_small(&o);
	remove_copy(c.path, c.dir);
}

/* The offset in path of the program header of type type. */
static off_t program_header(const char *path, uint32_t type)
{
	off_t at = -1;
	GElf_Ehdr eh;
	int fd;
	Elf *elf = open_elf(path, &fd, &eh);

	for (size_t i = 0; at < 0 && i < eh.e_phnum; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == type)
			at = (off_t)(eh.e_phoff + i * eh.e_phentsize);
	}
	elf_end(elf);
	close(fd);
	assert_true(at >= 0);
	return at;
}

/* Without section headers, PT_GNU_EH_FRAME's header finds .eh_frame: libdw
 * reads it at the header segment's file offset, the walk where PT_LOAD
 * maps its address. Stripped of its section headers, unwindgen compiles
 * (the table checked); with PT_GNU_EH_FRAME's address moved 4 KB back from its
 * offset, the two disagree: a lying header. */
static void test_segments_that_disagree_are_refused(void **state)
{
	static const uint8_t no_sections[14] = { 0 }; /* e_shoff .. e_shstrndx */
	char src[512], *dir = tu_tempdir(), *path;
	struct outcome o = { 0 };
	uint64_t vaddr;
	off_t at;
	int fd;

	(void)state;
	assert_non_null(dir);
	symgen_path(src, sizeof(src), "unwindgen");
	path = copy_of(dir, "no_sections", src);
	at = program_header(path, PT_GNU_EH_FRAME);
	patch(path, (off_t)offsetof(Elf64_Ehdr, e_shoff), no_sections, 8);
	patch(path, (off_t)offsetof(Elf64_Ehdr, e_shnum), no_sections, 4);
	compile_apart(path, NULL, &o);
	assert_int_equal(o.ret, 0);
	assert_true(o.rows > 10);

	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, &vaddr, 8, at + (off_t)offsetof(Elf64_Phdr, p_vaddr)), 8);
	close(fd);
	vaddr -= 4096;
	patch(path, at + (off_t)offsetof(Elf64_Phdr, p_vaddr), &vaddr, 8);
	compile_apart(path, NULL, &o);
	assert_int_equal(o.ret, -EINVAL);
	assert_int_equal(o.why, UNWIND_LYING_HEADER);
	assert_non_null(strstr(o.err, "PT_GNU_EH_FRAME"));
	remove_copy(path, dir);
}

/* The first FDE of path's .debug_frame that covers code: where it starts. */
static uint64_t first_debug_frame_pc(const char *path)
{
	char cmd[1024], line[512];
	unsigned long long lo = 0, hi;
	bool in_debug_frame = false;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "readelf --debug-dump=frames '%s'", path);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		const char *pc = strstr(line, " pc=");

		if (strstr(line, "Contents of the "))
			in_debug_frame = strstr(line, ".debug_frame") != NULL;
		if (!lo && in_debug_frame && pc && sscanf(pc, " pc=%llx..%llx", &lo, &hi) == 2 &&
		    lo >= hi)
			lo = 0;
	}
	pclose(p);
	return lo;
}

/* The bytes libdw inflates in path's debug sections beside .debug_frame. */
static uint64_t inflated_beside_debug_frame(const char *path)
{
	uint64_t bytes;
	GElf_Ehdr eh;
	int fd;
	Elf *elf = open_elf(path, &fd, &eh);

	bytes = unwind_elf_inflated_bytes(elf, unwind_elf_section(elf, ".debug_frame"));
	elf_end(elf);
	close(fd);
	return bytes;
}

/* libdw inflates every compressed debug section when .debug_frame is
 * opened: those bytes count. Within the budget with them, .debug_frame's
 * rows are there; past it, they are not (and .eh_frame's still are). */
static void test_compressed_dwarf_counts(void **state)
{
	char src[512], cmd[2048], *dir = tu_tempdir(), *path, *renamed;
	uint64_t inflated;
	struct unwind_budget budget = { .max_rows = UNWIND_DEFAULT_MAX_ROWS,
					.max_seconds = UNWIND_DEFAULT_MAX_SECONDS };
	struct outcome o = { 0 };
	Elf *elf;
	int fd;

	(void)state;
	assert_non_null(dir);
	symgen_path(src, sizeof(src), "unwindgen_debugframe");
	assert_true(asprintf(&path, "%s/compressed", dir) > 0);
	snprintf(cmd, sizeof(cmd), "objcopy --compress-debug-sections=zlib-gabi '%s' '%s'", src,
		 path);
	assert_int_equal(system(cmd), 0);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	assert_non_null(elf);
	budget.max_cfi_bytes = unwind_elf_section_bytes(unwind_elf_section(elf, ".eh_frame")) +
			       unwind_elf_section_bytes(unwind_elf_section(elf, ".debug_frame"));
	assert_true(unwind_elf_inflated_bytes(elf, unwind_elf_section(elf, ".debug_frame")) > 0);
	elf_end(elf);
	close(fd);
	o.probe_pc = first_debug_frame_pc(src);
	assert_true(o.probe_pc > 0);
	compile(path, NULL, &o);
	assert_int_equal(o.ret, 0);
	assert_int_not_equal(o.probe_cfa, UNWIND_CFA_NONE);
	compile(path, &budget, &o);
	assert_int_equal(o.ret, 0);
	assert_int_equal(o.probe_cfa, UNWIND_CFA_NONE);

	/* a .zdebug_ name on a section compressed as SHF_COMPRESSED: libdw
	 * inflates it all the same (elf_compress), so it counts the same */
	assert_true(asprintf(&renamed, "%s.z", path) > 0);
	snprintf(cmd, sizeof(cmd), "objcopy --rename-section .debug_info=.zdebug_info '%s' '%s'",
		 path, renamed);
	assert_int_equal(system(cmd), 0);
	inflated = inflated_beside_debug_frame(path);
	print_message("inflated beside .debug_frame: %" PRIu64 " bytes, as .zdebug_info %" PRIu64
		      "\n",
		      inflated, inflated_beside_debug_frame(renamed));
	assert_int_equal(inflated_beside_debug_frame(renamed), inflated);
	free(renamed);
	remove_copy(path, dir);
}

/* Past max_rows the table is refused, whether the FDEs or the rows pass it. */
static void test_row_budget(void **state)
{
	struct unwind_budget budget = { .max_rows = 5,
					.max_cfi_bytes = UNWIND_DEFAULT_MAX_CFI_BYTES,
					.max_seconds = UNWIND_DEFAULT_MAX_SECONDS };
	char path[512];
	struct outcome o = { 0 };

	(void)state;
	symgen_path(path, sizeof(path), "unwindgen");
	compile(path, &budget, &o);
	assert_int_equal(o.ret, -E2BIG);
	assert_int_equal(o.why, UNWIND_OVER_ROWS);
	budget.max_rows = 1000;
	if (access(LIBC, R_OK))
		tu_skip("no %s on this machine", LIBC);
	compile(LIBC, &budget, &o);
	assert_int_equal(o.ret, -E2BIG);
	assert_int_equal(o.why, UNWIND_OVER_ROWS);
	budget.max_rows = 20;
	budget.max_cfi_bytes = 1000;
	compile(LIBC, &budget, &o);
	assert_int_equal(o.why, UNWIND_OVER_BYTES);
}

/* No CPU time to spend: refused after the first few hundred steps. */
static void test_time_budget(void **state)
{
	const struct unwind_budget budget = { .max_rows = UNWIND_DEFAULT_MAX_ROWS,
					      .max_cfi_bytes = UNWIND_DEFAULT_MAX_CFI_BYTES,
					      .max_seconds = 0 };
	struct outcome o = { 0 };

	(void)state;
	if (access(LIBC, R_OK))
		tu_skip("no %s on this machine", LIBC);
	compile(LIBC, &budget, &o);
	assert_int_equal(o.ret, -ETIME);
	assert_int_equal(o.why, UNWIND_OVER_TIME);
	assert_true(o.cpu_seconds <= 0.05);
}

struct canceller {
	_Atomic bool *cancel;
	clockid_t compiler_cpu; /* the CPU clock of the thread compiling */
	double at;              /* when it was set (monotonic_seconds) */
	double cpu_at;          /* the compiling thread's CPU time then */
};

static void *cancel_soon(void *arg)
{
	struct canceller *c = arg;
	const struct timespec wait = { .tv_nsec = 20 * 1000 * 1000 };

	nanosleep(&wait, NULL);
	c->at = monotonic_seconds();
	c->cpu_at = clock_seconds(c->compiler_cpu);
	atomic_store(c->cancel, true);
	return NULL;
}

/* Cancelled before it starts: refused at once; cancelled by another thread
 * while compiling chromium: answered within milliseconds of the compile's
 * CPU time (of the clock, what a loaded machine gives it: within the
 * second SIGINT has to end anything). */
static void test_cancel(void **state)
{
	static _Atomic bool cancel = true;
	const struct unwind_budget budget = { .max_rows = UNWIND_DEFAULT_MAX_ROWS,
					      .max_cfi_bytes = UNWIND_DEFAULT_MAX_CFI_BYTES,
					      .max_seconds = 60,
					      .cancel = &cancel };
	struct canceller c = { .cancel = &cancel };
	double done, cpu_done;
	char path[512];
	struct outcome o = { 0 };
	pthread_t thread;
	double latency, cpu_latency;

	(void)state;
	symgen_path(path, sizeof(path), "unwindgen");
	compile(path, &budget, &o);
	assert_int_equal(o.ret, -ECANCELED);
	assert_int_equal(o.why, UNWIND_CANCELLED);
	assert_true(o.cpu_seconds <= 0.01);
	if (access(CHROMIUM, R_OK))
		tu_skip("no %s on this machine (apt-get install chromium)", CHROMIUM);
	atomic_store(&cancel, false);
	assert_int_equal(pthread_getcpuclockid(pthread_self(), &c.compiler_cpu), 0);
	assert_int_equal(pthread_create(&thread, NULL, cancel_soon, &c), 0);
	compile(CHROMIUM, &budget, &o);
	done = monotonic_seconds();
	cpu_done = thread_cpu_seconds();
	pthread_join(thread, NULL);
	if (o.ret == 0) /* done before the cancel came: nothing to answer */
		return;
	assert_int_equal(o.why, UNWIND_CANCELLED);
	latency = done - c.at;
	cpu_latency = cpu_done - c.cpu_at;
	print_message("%s: cancel answered in %.3f ms, %.3f ms of the compile's CPU\n", CHROMIUM,
		      latency * 1e3, cpu_latency * 1e3);
	assert_true(cpu_latency <= 0.05);
	assert_true(latency <= 1.0);
}

/* Headers libelf would pay for without bound, refused before it does:
 * extended section numbering (e_shnum 0: the count in section 0's header,
 * which lets a sparse file claim millions, 256 bytes each), a string table
 * not ending with NUL (elf_strptr scans from a name to its end at each
 * call), one compressed (elf_strptr inflates it, 1000 times its size). */
static void test_headers_libelf_pays_for(void **state)
{
	static const char not_nul = 'A';
	const uint64_t compressed = SHF_COMPRESSED;
	const uint16_t zero = 0;
	struct outcome o = { 0 };
	struct unwindgen_copy c;
	off_t header_at;
	GElf_Shdr sh;

	(void)state;
	for (int lie = 0; lie < 3; lie++) {
		unwindgen_copy("libelf_pays", &c);
		find_section(c.path, ".shstrtab", &header_at, &sh);
		if (lie == 0)
			patch(c.path, (off_t)offsetof(Elf64_Ehdr, e_shnum), &zero, sizeof(zero));
		else if (lie == 1)
			patch(c.path, (off_t)(sh.sh_offset + sh.sh_size - 1), &not_nul, 1);
		else
			patch(c.path, header_at + (off_t)offsetof(Elf64_Shdr, sh_flags), &compressed,
			      sizeof(compressed));
		compile(c.path, NULL, &o);
		assert_int_equal(o.ret, -EINVAL);
		assert_int_equal(o.why, UNWIND_LYING_HEADER);
		assert_non_null(strstr(o.err, "libelf would pay"));
		remove_copy(c.path, c.dir);
	}
}

/* Not ELF: refused, and said so. */
static void test_not_elf(void **state)
{
	struct outcome o = { 0 };

	(void)state;
	compile("/etc/passwd", NULL, &o);
	assert_int_equal(o.ret, -ENOEXEC);
	assert_int_equal(o.why, UNWIND_NOT_ELF);
}

/* Not x86-64's: unwindgen said to be AArch64's, or big-endian, is refused
 * (the walk unwinds x86-64 code alone; libdw reads some of a big-endian
 * file's CFI in the host's byte order). */
static void test_not_x86_64(void **state)
{
	const uint16_t aarch64 = EM_AARCH64;
	const uint8_t msb = ELFDATA2MSB;
	struct outcome o = { 0 };
	struct unwindgen_copy c;

	(void)state;
	unwindgen_copy("aarch64", &c);
	patch(c.path, (off_t)offsetof(Elf64_Ehdr, e_machine), &aarch64, sizeof(aarch64));
	compile(c.path, NULL, &o);
	assert_int_equal(o.why, UNWIND_NOT_ELF);
	assert_non_null(strstr(o.err, "not an x86-64 ELF file"));
	remove_copy(c.path, c.dir);

	unwindgen_copy("big_endian", &c);
	patch(c.path, EI_DATA, &msb, 1);
	compile(c.path, NULL, &o);
	assert_int_equal(o.why, UNWIND_NOT_ELF);
	remove_copy(c.path, c.dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_chromium_in_a_second),
		cmocka_unit_test(test_huge_text_is_bounded),
		cmocka_unit_test(test_huge_eh_frame_is_bounded),
		cmocka_unit_test(test_hostile_register_is_bounded),
		cmocka_unit_test(test_overlapping_fde_is_left_out),
		cmocka_unit_test(test_lying_table_is_refused),
		cmocka_unit_test(test_unknown_augmentation_is_refused),
		cmocka_unit_test(test_segments_that_disagree_are_refused),
		cmocka_unit_test(test_compressed_dwarf_counts),
		cmocka_unit_test(test_row_budget),
		cmocka_unit_test(test_time_budget),
		cmocka_unit_test(test_cancel),
		cmocka_unit_test(test_headers_libelf_pays_for),
		cmocka_unit_test(test_not_elf),
		cmocka_unit_test(test_not_x86_64),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
