/* SPDX-License-Identifier: GPL-2.0-only */
/* test_unwind_bounds.c: the bounds of -g's unwinder in a real recording: a local
 * user's ELF files with lying section headers cannot stall, bloat or starve root's
 * record -a -g, and copies of a system binary cannot change root's stacks of it; a
 * process forked on one CPU and exec'd on the other is unwound to main. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/monotonic.h"
#include "test_util.h"

#define NOBODY 65534
#define NOGROUP 65534
#define AS_NOBODY "setpriv --reuid=nobody --regid=nogroup --clear-groups"

static char symgen_dir[PATH_MAX];
/* The running test's directory, removed by teardown whatever the outcome
 * (the race's input is 10 MB). */
static char *work;

static int remove_work(void **state)
{
	(void)state;
	if (work)
		tu_rmtree(work);
	free(work);
	work = NULL;
	return 0;
}

/* The whole of path, in *data (caller frees), its size in *len. */
static void read_whole(const char *path, char **data, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	ssize_t n;

	if (fd < 0 || fstat(fd, &st))
		fail_msg("cannot read %s: %s", path, strerror(errno));
	*len = (size_t)st.st_size;
	*data = malloc(*len + 1);
	assert_non_null(*data);
	n = read(fd, *data, *len);
	close(fd);
	if (n != (ssize_t)*len)
		fail_msg("short read of %s", path);
	(*data)[*len] = '\0';
}

/*
 * Lying ELF files, made from a real one by writing its Elf64_Shdr fields in
 * place (libelf's elf_update would lay the file out again by the lie, and
 * try to grow it to 2^62 bytes). The image is checked before it is touched:
 * a 64-bit little-endian ELF whose section headers lie inside it.
 */
static Elf64_Shdr *section(char *image, size_t len, const char *name)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)image;
	Elf64_Shdr *sh, *strtab;

	assert_true(len >= sizeof(*eh));
	assert_memory_equal(eh->e_ident, ELFMAG, SELFMAG);
	assert_int_equal(eh->e_ident[EI_CLASS], ELFCLASS64);
	assert_int_equal(eh->e_ident[EI_DATA], ELFDATA2LSB);
	assert_int_equal(eh->e_shentsize, sizeof(Elf64_Shdr));
	assert_true(eh->e_shoff <= len && eh->e_shnum <= (len - eh->e_shoff) / sizeof(*sh));
	assert_true(eh->e_shstrndx < eh->e_shnum);
	sh = (Elf64_Shdr *)(image + eh->e_shoff);
	strtab = &sh[eh->e_shstrndx];
	assert_true(strtab->sh_offset <= len && strtab->sh_size <= len - strtab->sh_offset);
	for (unsigned int i = 1; i < eh->e_shnum; i++) {
		size_t at = sh[i].sh_name, room = strtab->sh_size;

		if (at < room && strnlen(image + strtab->sh_offset + at, room - at) < room - at &&
		    !strcmp(image + strtab->sh_offset + at, name))
			return &sh[i];
	}
	fail_msg("no section %s in the ELF file", name);
	return NULL;
}

/* A fresh random GNU build-id in place of the image's: each copy its own
 * file to -g's tables (they key files by build-id) and to the unwind cache. */
static void new_build_id(char *image, size_t len)
{
	Elf64_Shdr *sh = section(image, len, ".note.gnu.build-id");
	Elf64_Nhdr *nh = (Elf64_Nhdr *)(image + sh->sh_offset);
	size_t desc = sizeof(*nh) + ((nh->n_namesz + 3) & ~3u);

	assert_true(sh->sh_offset <= len && sh->sh_size <= len - sh->sh_offset);
	assert_true(sh->sh_size >= sizeof(*nh));
	assert_int_equal(nh->n_type, NT_GNU_BUILD_ID);
	assert_true(nh->n_descsz >= 8 && desc + nh->n_descsz <= sh->sh_size);
	assert_int_equal(getrandom(image + sh->sh_offset + desc, nh->n_descsz, 0),
			 (ssize_t)nh->n_descsz);
}

/* Writes image as dir/name, nobody's, mode 0644, then grows it to grow_to
 * bytes (a sparse tail) if that is more. */
static void write_as_nobody(const char *dir, const char *name, const char *image, size_t len,
			    off_t grow_to)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, image, len), (ssize_t)len);
	if (grow_to > (off_t)len)
		assert_int_equal(ftruncate(fd, grow_to), 0);
	assert_int_equal(fchown(fd, NOBODY, NOGROUP), 0);
	assert_int_equal(fchmod(fd, 0644), 0);
	assert_int_equal(close(fd), 0);
}

/* What one recording of the hostile-files test measured. */
struct run {
	double stop_seconds;    /* from SIGINT to its exit */
	long hwm_kb;            /* VmHWM just before SIGINT */
	long maxrss_kb;         /* its peak RSS over its life (wait4, or VmHWM if more) */
	unsigned long samples, lost, sb_lost;
	unsigned long lying;    /* files refused for a lying header */
	char *log;              /* its stdout and stderr */
};

/* Waits (up to seconds) until /proc/PID/maps names path, the mapper's last
 * file: then it has mapped them all. */
static bool wait_mapped(pid_t pid, const char *path, double seconds)
{
	char maps[64], *text = NULL;
	double until = monotonic_seconds() + seconds;
	size_t cap = 0; /* text's: getline mallocs anew, dropping text, when it is 0 */
	bool found = false;

	snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)pid);
	while (!found && monotonic_seconds() < until && tu_running(pid)) {
		FILE *f = fopen(maps, "re");

		while (f && !found && getline(&text, &cap, f) > 0)
			found = strstr(text, path) != NULL;
		if (f)
			fclose(f);
		if (!found)
			usleep(10000);
	}
	free(text);
	return found;
}

/* Whether dir's per-CPU files hold records yet: the recording is live. */
static bool recording_live(const char *dir)
{
	char path[PATH_MAX];
	struct stat st;

	for (int cpu = 0; cpu < 64; cpu++) {
		snprintf(path, sizeof(path), "%s/data.cpu%d", dir, cpu);
		if (stat(path, &st))
			return false;
		if (st.st_size > 0)
			return true;
	}
	return false;
}

static void kill_and_reap(pid_t pid)
{
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
}

/* n in "... N what ..." of line (up to its end), the count just before what;
 * 0 if what is not there. */
static unsigned long count_before(const char *line, const char *what)
{
	const char *end = strchr(line, '\n'), *p = strstr(line, what);

	if (!p || (end && p > end))
		return 0;
	while (p > line && p[-1] == ' ')
		p--;
	while (p > line && p[-1] >= '0' && p[-1] <= '9')
		p--;
	return strtoul(p, NULL, 10);
}

/* Reads the totals record prints at its end into r. */
static void parse_totals(struct run *r)
{
	const char *all = strstr(r->log, "\n   all ");
	const char *rec = strstr(r->log, "ringtrace: recorded ");
	const char *tables = strstr(r->log, "ringtrace: unwind tables: ");

	if (!all || !rec || !tables)
		fail_msg("record printed no totals:\n%s", r->log);
	assert_int_equal(sscanf(all, " all %*u %*u %*u %*u %*u %lu", &r->sb_lost), 1);
	r->samples = count_before(rec, " samples, ");
	rec = strstr(rec, " samples, ");
	assert_non_null(rec);
	r->lost = strtoul(rec + strlen(" samples, "), NULL, 10);
	r->lying = count_before(tables, " lying header");
}

/*
 * One record -a -g while nobody maps files (a space-separated list, the last
 * one looked for in the mappers' maps): one mapper from before the start (its
 * files reach the tables through /proc/PID/maps at the start), one started
 * once the recording is live (through MMAP2 records). Two seconds later,
 * SIGINT; it must be gone within 20 s (else SIGKILL and the test fails).
 */
static void record_beside_mappers(const char *work, const char *name, const char *files,
				  const char *last, struct run *r)
{
	char dir[PATH_MAX], log[PATH_MAX + 8], status_path[64], line[256];
	const char *tables;
	pid_t before, live = -1, rec, gone;
	struct rusage ru;
	double t0, until;
	int status = 0;
	size_t len;
	FILE *f;

	memset(r, 0, sizeof(*r));
	snprintf(dir, sizeof(dir), "%s/%s", work, name);
	snprintf(log, sizeof(log), "%s.log", dir);
	before = tu_start("exec " AS_NOBODY " %s/loadgen map-exec 12 %s", work, files);
	if (!wait_mapped(before, last, 10)) {
		kill_and_reap(before);
		fail_msg("loadgen map-exec, as nobody, did not map %s", last);
	}
	rec = tu_start("exec %s record -v -a -g --force -o %s >%s 2>&1", tu_ringtrace(), dir, log);
	until = monotonic_seconds() + 30;
	while (!recording_live(dir) && tu_running(rec) && monotonic_seconds() < until)
		usleep(10000);
	if (recording_live(dir)) {
		live = tu_start("exec " AS_NOBODY " %s/loadgen map-exec 8 %s", work, files);
		if (!wait_mapped(live, last, 10))
			kill_and_reap(live), live = -1;
	}
	if (live < 0) {
		kill_and_reap(rec);
		kill_and_reap(before);
		read_whole(log, &r->log, &len);
		fail_msg("the recording did not start, or the second mapper failed:\n%s", r->log);
	}
	usleep(2000000);
	snprintf(status_path, sizeof(status_path), "/proc/%d/status", (int)rec);
	f = fopen(status_path, "re");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmHWM:", 6))
			r->hwm_kb = strtol(line + 6, NULL, 10);
	if (f)
		fclose(f);
	memset(&ru, 0, sizeof(ru));
	t0 = monotonic_seconds();
	kill(rec, SIGINT);
	while ((gone = wait4(rec, &status, WNOHANG, &ru)) == 0 && monotonic_seconds() < t0 + 20)
		usleep(2000);
	r->stop_seconds = monotonic_seconds() - t0;
	if (gone != rec) {
		kill(rec, SIGKILL);
		wait4(rec, &status, 0, &ru);
	}
	kill_and_reap(live);
	kill_and_reap(before);
	/* the kernel's two counts of the peak differ by a few pages: the larger */
	r->maxrss_kb = ru.ru_maxrss > r->hwm_kb ? ru.ru_maxrss : r->hwm_kb;
	read_whole(log, &r->log, &len);
	if (gone != rec)
		fail_msg("%s: record -a -g was not gone 20 s after SIGINT (killed):\n%s", name,
			 r->log);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		fail_msg("%s: record -a -g failed (status %#x):\n%s", name, status, r->log);
	parse_totals(r);
	tables = strstr(r->log, "ringtrace: unwind tables"); /* parse_totals found it */
	print_message("%s: gone %.3f s after SIGINT; VmHWM %ld KiB before it, peak RSS %ld KiB; "
		      "%lu samples, %lu lost, %lu side-band lost; %lu files refused as lying\n"
		      "%.*s\n",
		      name, r->stop_seconds, r->hwm_kb, r->maxrss_kb, r->samples, r->lost,
		      r->sb_lost, r->lying, (int)strcspn(tables, "\n"), tables);
}

/* Copies src to dst, mode 0755: a program nobody may run wherever the build is. */
static void copy_program(const char *src, const char *dst)
{
	char *image;
	size_t len;
	int fd;

	read_whole(src, &image, &len);
	fd = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, image, len), (ssize_t)len);
	assert_int_equal(fchmod(fd, 0755), 0);
	assert_int_equal(close(fd), 0);
	free(image);
}

/*
 * A local user's lying files cannot stall root's recording: nobody maps
 * (PROT_EXEC, so -g compiles a table for each) copies of unwindgen whose
 * section headers lie: .text claims 2^62 bytes, .eh_frame 2 GiB of a file
 * grown by a sparse 20 KiB only (28 KiB of unwindgen's). Beside the same recording of a
 * truthful copy alone (the control), record -a -g must still answer SIGINT
 * within a second, peak at most 64 MiB above the control's RSS, lose no more
 * samples than it (but a slack of 10 and 1% of the samples), and name both
 * files in its totals as refused for a lying header.
 */
static void test_lying_files_cannot_stall_recording(void **state)
{
	char src[PATH_MAX + 16], path[PATH_MAX + 32], *image, *out = NULL;
	char files[3 * PATH_MAX + 128], plain[PATH_MAX + 32];
	struct run control = { 0 }, lying = { 0 };
	unsigned long slack = 0;
	bool loss_ok = false;
	size_t len;

	(void)state;
	tu_skip_unless_possible();
	if (access("/usr/bin/setpriv", X_OK))
		tu_skip("no setpriv (util-linux) to map the files as nobody");
	work = tu_tempdir();
	assert_int_equal(chmod(work, 0755), 0);
	snprintf(path, sizeof(path), "%s/loadgen", work);
	copy_program(tu_loadgen(), path);
	snprintf(src, sizeof(src), "%s/unwindgen", symgen_dir);
	read_whole(src, &image, &len);
	new_build_id(image, len);
	write_as_nobody(work, "plain.elf", image, len, 0);
	new_build_id(image, len);
	section(image, len, ".text")->sh_size = 1ull << 62;
	write_as_nobody(work, "text-2e62.elf", image, len, 0);
	free(image);
	read_whole(src, &image, &len);
	new_build_id(image, len);
	section(image, len, ".eh_frame")->sh_size = 2ull << 30;
	write_as_nobody(work, "ehframe-2g.elf", image, len, (off_t)len + 20 * 1024);
	free(image);
	snprintf(plain, sizeof(plain), "%s/plain.elf", work);
	snprintf(path, sizeof(path), "%s/ehframe-2g.elf", work);
	snprintf(files, sizeof(files), "%s %s/text-2e62.elf %s", plain, work, path);
	if (tu_sh(&out, AS_NOBODY " %s/loadgen map-exec 0.1 %s 2>&1", work, files))
		tu_skip("nobody cannot map the files in %s (a TMPDIR others may not enter?): %s",
			work, out);
	free(out);

	/* the loss of a recording is the machine's too (a burst of other work
	 * on 2 CPUs fills a ring in either run): a pair whose only fault is
	 * the loss is recorded again once; a lie that starves the drain loses
	 * in every pair */
	for (int attempt = 0; attempt < 2 && !loss_ok; attempt++) {
		free(control.log);
		free(lying.log);
		record_beside_mappers(work, "control", plain, plain, &control);
		record_beside_mappers(work, "lying", files, path, &lying);
		/* stop is answered within a second, whatever the files */
		assert_true(control.stop_seconds <= 1.0);
		if (lying.stop_seconds > 1.0)
			fail_msg("record -a -g took %.3f s from SIGINT to its exit beside "
				 "the lying files (the control: %.3f s):\n%s",
				 lying.stop_seconds, control.stop_seconds, lying.log);
		if (lying.maxrss_kb > control.maxrss_kb + 64 * 1024)
			fail_msg("record -a -g peaked at %ld KiB beside the lying files, "
				 "the control at %ld KiB:\n%s",
				 lying.maxrss_kb, control.maxrss_kb, lying.log);
		if (lying.lying < control.lying + 2)
			fail_msg("%lu files refused for a lying header (the control: %lu), "
				 "expected the 2 lying ones more:\n%s",
				 lying.lying, control.lying, lying.log);
		slack = 10 + lying.samples / 100;
		loss_ok = lying.lost <= control.lost + slack;
		if (!loss_ok)
			print_message("lost %lu beside the lying files, %lu in the control (slack "
				      "%lu)%s\n", lying.lost, control.lost, slack,
				      attempt ? "" : ": recording the pair again");
	}
	if (!loss_ok)
		fail_msg("record -a -g lost %lu samples beside the lying files, the control %lu "
			 "(slack %lu), twice:\n%s", lying.lost, control.lost, slack, lying.log);
	free(control.log);
	free(lying.log);
}

/* gzip's CIEs' first rule, "CFA = rsp + 8, return address at CFA - 8", made
 * "CFA = rbp + 8": a valid .eh_frame (every FDE's offsets keep the register)
 * that lies about the CFA of every row. */
static void lie_about_cfa(char *image, size_t len)
{
	static const char cie_rule[] = { 0x0c, 0x07, 0x08, (char)0x90, 0x01 };
	Elf64_Shdr *sh = section(image, len, ".eh_frame");
	unsigned int patched = 0;

	assert_true(sh->sh_offset <= len && sh->sh_size <= len - sh->sh_offset);
	for (char *p = image + sh->sh_offset, *end = p + sh->sh_size - sizeof(cie_rule); p <= end;
	     p++)
		if (!memcmp(p, cie_rule, sizeof(cie_rule))) {
			p[1] = 0x06; /* rbp */
			patched++;
		}
	assert_true(patched > 0);
}

/* The share of root's gzip -9 of input whose samples reach libc's call of
 * main, in one record -a -g (the cache in cache) during which nobody maps
 * copy (NULL: none) from before the start (at_start) or from once it is
 * live: root's file has a table of its own whatever the copy says (and the
 * cache keeps for the build-id they share). */
static void roots_gzip_beside(const char *name, const char *copy, bool at_start,
			      const char *input, const char *cache)
{
	char dir[PATH_MAX], log[PATH_MAX + 8], *out = NULL, *text = NULL;
	pid_t mapper = -1, rec, gzip;
	unsigned long with, all;
	double until;
	int status;
	size_t len;

	snprintf(dir, sizeof(dir), "%s/%s", work, name);
	snprintf(log, sizeof(log), "%s.log", dir);
	if (copy && at_start) {
		mapper = tu_start("exec " AS_NOBODY " %s/loadgen map-exec 60 %s", work, copy);
		if (!wait_mapped(mapper, copy, 10)) {
			kill_and_reap(mapper);
			fail_msg("nobody did not map %s", copy);
		}
	}
	rec = tu_start("exec %s record -v -a -g --unwind-cache %s --force -o %s >%s 2>&1",
		       tu_ringtrace(), cache, dir, log);
	until = monotonic_seconds() + 30;
	while (!recording_live(dir) && tu_running(rec) && monotonic_seconds() < until)
		usleep(10000);
	if (copy && !at_start) {
		mapper = tu_start("exec " AS_NOBODY " %s/loadgen map-exec 60 %s", work, copy);
		if (!wait_mapped(mapper, copy, 10)) {
			kill_and_reap(mapper);
			kill_and_reap(rec);
			fail_msg("nobody did not map %s", copy);
		}
	}
	/* the copy's table built first (its compile takes milliseconds) */
	usleep(500000);
	gzip = tu_start("exec gzip -9 -c %s >/dev/null", input);
	assert_int_equal(waitpid(gzip, &status, 0), gzip);
	kill(rec, SIGINT);
	assert_int_equal(waitpid(rec, &status, 0), rec);
	kill_and_reap(mapper);
	read_whole(log, &text, &len);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		fail_msg("%s: record -a -g failed (status %#x):\n%s", name, status, text);
	if (tu_sh(&out, "%s report -i %s --folded --comm gzip --pid %d", tu_ringtrace(), dir,
		  (int)gzip))
		fail_msg("%s: report failed:\n%s", name, out);
	tu_folded_count(out, "__libc_start_call_main", &with, &all);
	print_message("%s: %lu of root's gzip's %lu samples through __libc_start_call_main "
		      "(%.1f%%)\n", name, with, all, all ? 100.0 * (double)with / (double)all : 0.0);
	assert_true(all >= 300); /* gzip -9 of 10 MB runs for a second or more at 999 Hz */
	if (with * 100 < all * 95)
		fail_msg("%s: only %lu of root's gzip's %lu samples reach main:\n%s\n%s", name,
			 with, all, out, text);
	free(out);
	free(text);
}

/*
 * Nobody's copies of /usr/bin/gzip, the same build-id, change nothing of
 * root's stacks of gzip in the same record -a -g: one whose .text claims
 * 2^62 bytes (refused: no table) mapped from before the start, one whose
 * .eh_frame lies about the CFA mapped once the recording is live. And a
 * copy root owns (as a container image's files are), whose table the cache
 * keeps under the build-id they share, gives gzip nothing: a kept table is
 * read only for the file it was compiled from.
 */
static void test_copies_cannot_change_roots_stacks(void **state)
{
	char path[PATH_MAX + 32], input[PATH_MAX + 16], cache[PATH_MAX + 16], *image, *out = NULL;
	size_t len;

	(void)state;
	tu_skip_unless_possible();
	if (access("/usr/bin/setpriv", X_OK))
		tu_skip("no setpriv (util-linux) to map the copies as nobody");
	work = tu_tempdir();
	assert_int_equal(chmod(work, 0755), 0);
	snprintf(path, sizeof(path), "%s/loadgen", work);
	copy_program(tu_loadgen(), path);
	snprintf(input, sizeof(input), "%s/input", work);
	snprintf(cache, sizeof(cache), "%s/cache", work);
	/* ~10 MB that gzip -9 works on for a second or more: machine code */
	if (tu_sh(&out, "cat /usr/bin/python3.11 /usr/bin/perl >%s 2>&1",
		  input))
		tu_skip("cannot make the input from python3.11 and perl: %s", out);
	free(out);
	read_whole("/usr/bin/gzip", &image, &len);
	section(image, len, ".text")->sh_size = 1ull << 62;
	write_as_nobody(work, "gzip-text-2e62", image, len, 0);
	free(image);
	read_whole("/usr/bin/gzip", &image, &len);
	lie_about_cfa(image, len);
	write_as_nobody(work, "gzip-cfa-rbp", image, len, 0);
	snprintf(path, sizeof(path), "%s/gzip-root-cfa-rbp", work);
	write_as_nobody(work, "gzip-root-cfa-rbp", image, len, 0);
	assert_int_equal(chown(path, 0, 0), 0);
	free(image);
	if (tu_sh(&out, AS_NOBODY " %s/loadgen map-exec 0.1 %s/gzip-cfa-rbp 2>&1", work, work))
		tu_skip("nobody cannot map the copies in %s (a TMPDIR others may not enter?): %s",
			work, out);
	free(out);

	snprintf(path, sizeof(path), "%s/gzip-text-2e62", work);
	roots_gzip_beside("text-2e62-at-start", path, true, input, "none");
	snprintf(path, sizeof(path), "%s/gzip-cfa-rbp", work);
	roots_gzip_beside("cfa-rbp-live", path, false, input, "none");
	/* the cache: the root-owned copy's table kept under the build-id
	 * before gzip looks for its own there */
	snprintf(path, sizeof(path), "%s/gzip-root-cfa-rbp", work);
	roots_gzip_beside("root-copy-cached", path, true, input, cache);
}

/*
 * Fork on one CPU, exec on the other: sh, pinned to CPU 1, forks (its FORK
 * record in CPU 1's ring); the child pins itself to CPU 0 and execs gzip
 * there (COMM and MMAP2 in CPU 0's ring); with the drain slowed to 50 ms the
 * two rings are read far apart. gzip's stacks must still unwind through
 * libc's start into its main: at least 95% of its samples hold
 * __libc_start_call_main (gzip is stripped: its main has no name). $! names
 * gzip (taskset execs it), so that under -a another gzip of the machine is
 * not counted. With and without -a, with no unwind cache and with a warm one.
 */
static void fork_exec_race(const char *work, const char *input, bool all_cpus,
			   const char *cache)
{
	char dir[PATH_MAX], pidfile[PATH_MAX + 8], *out = NULL, *text;
	unsigned long with, all;
	size_t len;
	int rc;

	snprintf(dir, sizeof(dir), "%s/race%s-%s", work, all_cpus ? "-a" : "",
		 strcmp(cache, "none") ? "warm" : "cold");
	snprintf(pidfile, sizeof(pidfile), "%s.pid", dir);
	rc = tu_sh(&out, "%s record%s -g --unwind-cache %s --debug-drain-delay-ms 50 --force -o %s -- "
			 "taskset -c 1 sh -c 'taskset -c 0 gzip -9 -c %s >/dev/null & "
			 "echo $! >%s; wait $!; true' 2>&1 >/dev/null",
		   tu_ringtrace(), all_cpus ? " -a" : "", cache, dir, input, pidfile);
	if (rc)
		fail_msg("record failed (%d):\n%s", rc, out);
	free(out);
	read_whole(pidfile, &text, &len);
	rc = tu_sh(&out, "%s report -i %s --folded --comm gzip --pid %d", tu_ringtrace(), dir,
		   atoi(text));
	free(text);
	if (rc)
		fail_msg("report failed (%d):\n%s", rc, out);
	tu_folded_count(out, "__libc_start_call_main", &with, &all);
	print_message("record%s -g, %s cache: %lu of gzip's %lu samples through "
		      "__libc_start_call_main (%.1f%%)\n", all_cpus ? " -a" : "",
		      strcmp(cache, "none") ? "warm" : "cold", with, all,
		      all ? 100.0 * (double)with / (double)all : 0.0);
	assert_true(all >= 300); /* gzip -9 of 20 MB runs for seconds at 999 Hz */
	if (with * 100 < all * 95)
		fail_msg("only %lu of gzip's %lu samples reach main; its stacks:\n%s", with, all,
			 out);
	free(out);
}

static void test_fork_and_exec_on_two_cpus(void **state)
{
	char input[PATH_MAX + 16], cache[PATH_MAX + 16], *out = NULL;

	(void)state;
	tu_skip_unless_possible();
	if (tu_online_cpus() < 2)
		tu_skip("%d online CPU: the race needs CPUs 0 and 1", tu_online_cpus());
	work = tu_tempdir();
	snprintf(input, sizeof(input), "%s/input", work);
	/* ~20 MB that gzip -9 works on for several seconds: machine code.
	 * What misses main is gzip's first ~100 ms (one frame: the drain is
	 * held 50 ms, then its table is built or read), a time of its own: on
	 * 10 MB, 2100-2700 samples in CI, it was 4-5% (94.8% once) */
	if (tu_sh(&out, "cat /usr/bin/python3.11 /usr/bin/perl /usr/bin/python3.11 /usr/bin/perl "
			">%s 2>&1",
		  input))
		tu_skip("cannot make the input from python3.11 and perl: %s", out);
	free(out);
	/* cold (no cache), then warm (a cache that gzip, libc and ld.so's
	 * tables were kept in first) */
	snprintf(cache, sizeof(cache), "%s/cache", work);
	fork_exec_race(work, input, false, "none");
	fork_exec_race(work, input, true, "none");
	if (tu_sh(&out, "%s record -g --unwind-cache %s --force -o %s/warming -- gzip -c /dev/null "
			"2>&1 >/dev/null", tu_ringtrace(), cache, work))
		fail_msg("cannot fill the cache: %s", out);
	free(out);
	fork_exec_race(work, input, false, cache);
	fork_exec_race(work, input, true, cache);
}

/* The frames of each sample of a script's output, one string a sample ("ip
 * sym (dso)" lines, leaf first), in order. Returns how many. */
static size_t script_stacks(char *text, char **stacks, size_t max)
{
	size_t n = 0;
	char *save = NULL;

	for (char *block = strtok_r(text, "\n", &save); block; block = strtok_r(NULL, "\n", &save)) {
		if (block[0] != ' ' && block[0] != '\t') {
			/* a sample's header line: its frames follow */
			if (n == max)
				break;
			stacks[n++] = NULL;
			continue;
		}
		if (!n)
			continue;
		while (*block == ' ' || *block == '\t')
			block++;
		if (!stacks[n - 1]) {
			stacks[n - 1] = strdup(block);
		} else {
			size_t len = strlen(stacks[n - 1]) + strlen(block) + 2;
			char *both = malloc(len);

			assert_non_null(both);
			snprintf(both, len, "%s\n%s", stacks[n - 1], block);
			free(stacks[n - 1]);
			stacks[n - 1] = both;
		}
		assert_non_null(stacks[n - 1]);
	}
	return n;
}

#define MAX_STACKS 20000

/* The frames of a script's stack ("ADDR SYM (DSO)" lines, leaf first): their
 * addresses, a frame's lines of inlined functions (perf's, all of one
 * address) one frame; and each frame's first line. Returns how many. */
static size_t frames_of(const char *stack, uint64_t *at, const char **line, size_t max)
{
	size_t n = 0;

	for (const char *l = stack; *l && n < max;) {
		size_t len = strcspn(l, "\n");
		uint64_t a = strtoull(l, NULL, 16);

		if (!n || at[n - 1] != a) {
			at[n] = a;
			line[n++] = l;
		}
		l += len + (l[len] == '\n');
	}
	return n;
}

/* Whether a script's line (up to its newline) holds what. */
static bool line_has(const char *line, const char *what)
{
	const char *at = strstr(line, what);

	return at && (size_t)(at - line) < strcspn(line, "\n");
}

/* Whether the frames of a copied stack as ringtrace script gives them (a
 * callchain's: return addresses) are those perf script gives (perf's
 * unwinding: a caller's return address less one, with lines of the
 * functions inlined there): 1 the same frames, 2 perf's a head of ours
 * ending in libc or the dynamic linker (where perf 6.1's libunwind stops in
 * a process that is not the first it unwound that library for, at times
 * after one more frame it cannot name, read where the library's table was
 * not: a sample in ld.so's lazy binding, CI 2026-12-05), 0 not. */
static int copy_frames_as_perf(const char *ours, const char *perf)
{
	uint64_t a[256], b[256];
	const char *la[256], *lb[256];
	size_t na = frames_of(ours, a, la, 256), nb = frames_of(perf, b, lb, 256), user = 0;
	bool unnamed_last = false;

	if (nb > na || !nb)
		return 0;
	if (nb >= 2 && line_has(lb[nb - 1], "[unknown] ([unknown])")) {
		unnamed_last = true;
		nb--;
	}
	for (size_t i = 0; i < nb; i++) {
		bool kernel = b[i] >= 0xffff800000000000ULL;

		/* the first user frame is the registers' ip, each after it
		 * a caller's return address (perf's less one) */
		if (a[i] != b[i] + (!kernel && user++ ? 1 : 0))
			return 0;
	}
	if (nb == na && !unnamed_last)
		return 1;
	/* (ours names the file of perf's last frame: perf's may be inlined
	 * lines alone) */
	return nb < na && (line_has(la[nb - 1], "/libc.so.6)") ||
			   line_has(la[nb - 1], "/ld-linux-x86-64.so.2)"))
		       ? 2
		       : 0;
}

/* gzip -9 of ~30 MB, exec'd on CPU 0 while its fork was on CPU 1, under
 * record -v -a -g --unwind-cache none with the drain held 300 ms (gzip's
 * table comes after its first ~300 ms of samples) and extra options, into
 * dir (work/rt). Its copies and those over the budget from the totals, out
 * the record's output (the caller frees it). */
static void record_held_gzip(const char *extra, char *dir, size_t dirlen, char **out,
			     unsigned long *copied, unsigned long *over)
{
	char input[PATH_MAX + 8];
	const char *line;
	int rc;

	tu_skip_unless_possible();
	if (tu_online_cpus() < 2)
		tu_skip("%d online CPU: the race needs CPUs 0 and 1", tu_online_cpus());
	work = tu_tempdir();
	snprintf(dir, dirlen, "%s/rt", work);
	snprintf(input, sizeof(input), "%s/input", work);
	if (tu_sh(out, "cat /usr/bin/python3.11 /usr/bin/perl >%s 2>&1", input))
		tu_skip("cannot make the input from python3.11 and perl: %s", *out);
	free(*out);
	rc = tu_sh(out, "%s record -v -a -g %s --unwind-cache none --debug-drain-delay-ms 300 "
			"--force -o %s -- taskset -c 1 sh -c 'taskset -c 0 gzip -9 -c %s >/dev/null & "
			"wait $!; true' 2>&1 >/dev/null",
		   tu_ringtrace(), extra, dir, input);
	if (rc)
		fail_msg("record failed (%d):\n%s", rc, *out);
	line = strstr(*out, "whose table was not loaded yet: ");
	if (!line || sscanf(line, "whose table was not loaded yet: %lu copied (unwound when read, "
				  "as dwarf's), %lu walked",
			    copied, over) != 2)
		fail_msg("no count of stacks copied in the totals:\n%s", *out);
}

/*
 * A stack whose file's table is not loaded yet is copied (regs and stack, as
 * --call-graph dwarf) and unwound when read. gzip exec'd on CPU 0 while its
 * fork was on CPU 1, the drain held 300 ms: its table comes after its first
 * ~300 ms of samples. Checked: the totals' copies are the recording's
 * (every sample with a copy's registers, counted by perf report -D); at least 99%
 * of gzip's samples reach __libc_start_call_main; and perf script unwinds
 * the same copies to the same frames (ringtrace gives a copy's as it gives
 * a callchain's, perf as its dwarf mode's), or to a head of them ending at a
 * frame in libc or ld.so (perhaps with one frame perf cannot name after it):
 * perf 6.1's libunwind unwinds through a library only in the first
 * process it unwinds that library for (here ringtrace's own threads, or
 * taskset, come first), as in its own --call-graph dwarf recordings.
 */
static void test_stacks_before_their_table_are_copied(void **state)
{
	char dir[PATH_MAX], *out = NULL, *rt = NULL, *pf = NULL;
	static char *ours[MAX_STACKS], *perfs[MAX_STACKS];
	unsigned long with, all, totals, over, in_file, n_lost;
	size_t n_ours, n_perf, heads = 0, differ = 0, reach = 0;
	const char *lost;
	int rc;

	(void)state;
	/* (a budget of copies for the 300 ms held: 1M a second, the default,
	 * is spent in them here) */
	record_held_gzip("-m 512 --stack-copy-budget 8M", dir, sizeof(dir), &out, &totals, &over);
	lost = strstr(out, " samples, ");
	if (!lost || sscanf(lost, " samples, %lu lost", &n_lost) != 1)
		fail_msg("no count of samples lost in the totals:\n%s", out);
	free(out);
	/* a copy is a sample with user registers (its stack may have read
	 * nothing: a process tearing its address space down) */
	rc = tu_sh(&out, "perf report -D -i %s 2>/dev/null | grep -c 'user regs: mask'", dir);
	in_file = strtoul(out, NULL, 10);
	free(out);
	print_message("stacks copied: %lu in the totals, %lu in the files, %lu samples lost\n",
		      totals, in_file, n_lost);
	/* a copy lost in a ring (a machine too busy for the drain) is counted
	 * among the lost samples, never in the files */
	assert_true(in_file <= totals);
	assert_true(totals - in_file <= n_lost);
	assert_true(totals >= 50); /* gzip's first 300 ms at 999 Hz, and more */

	rc = tu_sh(&out, "%s report -i %s --folded --comm gzip", tu_ringtrace(), dir);
	if (rc)
		fail_msg("report failed (%d):\n%s", rc, out);
	tu_folded_count(out, "__libc_start_call_main", &with, &all);
	print_message("%lu of gzip's %lu samples through __libc_start_call_main\n", with, all);
	assert_true(all >= 300);
	if (with * 100 < all * 99)
		fail_msg("only %lu of gzip's %lu samples reach main:\n%s", with, all, out);
	free(out);

	if (tu_sh(&rt, "%s script -i %s --comm gzip", tu_ringtrace(), dir) ||
	    tu_sh(&pf, "perf script -i %s --comm gzip 2>/dev/null", dir))
		fail_msg("script failed:\n%s\n%s", rt, pf);
	n_ours = script_stacks(rt, ours, MAX_STACKS);
	n_perf = script_stacks(pf, perfs, MAX_STACKS);
	assert_int_equal(n_ours, n_perf);
	for (size_t i = 0; i < n_ours; i++) {
		const char *a = ours[i] ? ours[i] : "", *b = perfs[i] ? perfs[i] : "";

		reach += strstr(a, "__libc_start_call_main") != NULL;
		if (!strcmp(a, b))
			continue;
		differ++;
		switch (copy_frames_as_perf(a, b)) {
		case 1:
			break;
		case 2:
			heads++;
			break;
		default:
			fail_msg("sample %zu: ours\n%s\nperf's\n%s", i, a, b);
		}
	}
	print_message("%zu samples, %zu with perf's lines, %zu more with perf's frames, %zu "
		      "perf's a head of ours (ending in libc or ld.so); %zu reach __libc_start_call_main\n",
		      n_ours, n_ours - differ, differ - heads, heads, reach);
	for (size_t i = 0; i < n_ours; i++)
		free(ours[i]);
	for (size_t i = 0; i < n_perf; i++)
		free(perfs[i]);
	free(rt);
	free(pf);
}

/* The copies of one CPU stay within --stack-copy-budget, counted in windows
 * of 2^27 ns (134 ms) that each take an eighth of it (the last copy of a
 * window may pass it: by 8 KiB at most); those left out are counted. */
static void test_stack_copies_within_their_budget(void **state)
{
	char dir[PATH_MAX], *out = NULL, *copied;
	unsigned long totals, over, in_file, bytes, windows, allowed;
	double seconds;
	int rc;

	(void)state;
	record_held_gzip("--stack-copy-budget 16K", dir, sizeof(dir), &out, &totals, &over);
	copied = strstr(out, "recorded ");
	if (!copied || sscanf(copied, "recorded %lf s", &seconds) != 1)
		fail_msg("no duration in the totals:\n%s", out);
	free(out);
	rc = tu_sh(&out, "perf report -D -i %s 2>/dev/null | grep -o 'ustack: size [1-9][0-9]*' | "
			 "awk '{n++; b += $3} END {print n + 0, b + 0}'", dir);
	if (rc || sscanf(out, "%lu %lu", &in_file, &bytes) != 2)
		fail_msg("perf report -D failed (%d):\n%s", rc, out);
	free(out);
	/* the windows each CPU's budget was counted in: the recording's, and
	 * one more for where it began */
	windows = ((unsigned long)(seconds * 1e9) >> 27) + 2;
	allowed = windows * (unsigned long)tu_online_cpus() * (16384 / 8 + 8192);
	print_message("%lu copied (%lu bytes in the files, %lu allowed), %lu over the budget\n",
		      totals, bytes, allowed, over);
	assert_true(over > 0);
	assert_true(in_file <= totals); /* (some may be lost with the ring full) */
	assert_true(bytes <= allowed);
}

/* Records "unwindgen MODE 2.5; unwindgen MODE 1.5" under -g with every
 * drain held back a second: the second's samples of its first second are
 * taken before ringtrace reads its side-band. Returns the second's folded
 * stacks. */
static char *second_run_folded(const char *mode)
{
	char dir[PATH_MAX], pidfile[PATH_MAX + 8], *out = NULL, *text;
	size_t len;
	int rc;

	work = tu_tempdir();
	snprintf(dir, sizeof(dir), "%s/rt", work);
	snprintf(pidfile, sizeof(pidfile), "%s.pid", dir);
	rc = tu_sh(&out, "%s record -g -F 999 --debug-drain-delay-ms 1000 --force -o %s -- "
			 "sh -c '%s/unwindgen %s 2.5; %s/unwindgen %s 1.5 & echo $! >%s; wait' "
			 "2>&1 >/dev/null",
		   tu_ringtrace(), dir, symgen_dir, mode, symgen_dir, mode, pidfile);
	if (rc)
		fail_msg("record failed (%d):\n%s", rc, out);
	free(out);
	read_whole(pidfile, &text, &len);
	rc = tu_sh(&out, "%s report -i %s --folded --pid %d", tu_ringtrace(), dir, atoi(text));
	free(text);
	if (rc)
		fail_msg("report failed (%d):\n%s", rc, out);
	return out;
}

/* A process that execs a program whose table is loaded unwinds from its
 * first sample, before the loader has read its side-band: the kernel side
 * maps the program and the dynamic loader at the exec. The first unwindgen
 * has its table loaded. */
static void test_exec_unwinds_before_the_loader_knows(void **state)
{
	unsigned long with, all;
	char *out;

	(void)state;
	tu_skip_unless_possible();
	out = second_run_folded("chain");
	tu_folded_count(out, "uw_a", &with, &all);
	print_message("the second unwindgen: %lu of %lu samples through main and uw_a (%.1f%%)\n",
		      with, all, all ? 100.0 * (double)with / (double)all : 0.0);
	assert_true(all >= 500);
	if (with * 100 < all * 90)
		fail_msg("only %lu of %lu samples reach uw_a; the stacks:\n%s", with, all, out);
	free(out);
}

/* A library a process maps after its exec (the C library, mapped by ld.so,
 * and zlib, dlopen'd) unwinds from the samples after the first that meets
 * it, before the loader has read the MMAP2s: the walk puts the VMA in by
 * file, and uses the file's table loaded for the first unwindgen. Each
 * sample of the second must reach __libc_start_call_main, through zlib's
 * frames (no frame pointers) and the C library's. */
static void test_library_mapped_after_exec_unwinds_at_once(void **state)
{
	unsigned long with, all, in_zlib, in_zlib_all;
	char *out;

	(void)state;
	tu_skip_unless_possible();
	if (access("/lib/x86_64-linux-gnu/libz.so.1", R_OK))
		tu_skip("no libz.so.1 (zlib1g) to dlopen");
	out = second_run_folded("dlopen");
	tu_folded_count(out, "__libc_start_call_main", &with, &all);
	tu_folded_count(out, "compress2", &in_zlib, &in_zlib_all);
	print_message("the second unwindgen: %lu of %lu samples through __libc_start_call_main "
		      "(%.1f%%), %lu through compress2\n",
		      with, all, all ? 100.0 * (double)with / (double)all : 0.0, in_zlib);
	assert_true(all >= 500);
	if (with * 100 < all * 95 || in_zlib * 100 < all * 80)
		fail_msg("only %lu (%lu through zlib) of %lu samples reach the C library's start; "
			 "the stacks:\n%s", with, in_zlib, all, out);
	free(out);
}

/* tu_folded_count on known lines: whole frames only, counts summed. */
static void test_folded_count(void **state)
{
	static const char folded[] = "gzip;_start;__libc_start_call_main;main;deflate 7\n"
				     "gzip;[gzip] 3\n"
				     "gzip;main_loop 2\n"
				     "gzip;main 5\n"
				     "no count here\n"
				     "gzip;x;main;y 11";
	unsigned long with, all;

	(void)state;
	tu_folded_count(folded, "main", &with, &all);
	assert_int_equal(all, 28);
	assert_int_equal(with, 23);
	tu_folded_count(folded, "__libc_start_call_main", &with, &all);
	assert_int_equal(with, 7);
	tu_folded_count("", "main", &with, &all);
	assert_int_equal(all, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_folded_count),
		cmocka_unit_test_teardown(test_lying_files_cannot_stall_recording, remove_work),
		cmocka_unit_test_teardown(test_copies_cannot_change_roots_stacks, remove_work),
		cmocka_unit_test_teardown(test_fork_and_exec_on_two_cpus, remove_work),
		cmocka_unit_test_teardown(test_stacks_before_their_table_are_copied, remove_work),
		cmocka_unit_test_teardown(test_stack_copies_within_their_budget, remove_work),
		cmocka_unit_test_teardown(test_exec_unwinds_before_the_loader_knows, remove_work),
		cmocka_unit_test_teardown(test_library_mapped_after_exec_unwinds_at_once, remove_work),
	};
	tu_set_skip_reason(tu_symgen_skip_reason());
	snprintf(symgen_dir, sizeof(symgen_dir), "%s", tu_symgen_dir());
	return cmocka_run_group_tests(tests, NULL, tu_stop_left);
}
