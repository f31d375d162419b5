/* SPDX-License-Identifier: GPL-2.0-only */
/* test_eh_frame_segment.c: the mapping eh_frame_segment predicts for a file's
 * .eh_frame_hdr beside its executable mapping is the one the kernel made for
 * this very process (its own program and libc, from /proc/self/maps), and it
 * holds the table's address; another segment's mapping, or a file that is
 * not ELF, predicts none. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "symbols/eh_frame_segment.h"

/* One line of /proc/self/maps. */
struct maps_line {
	uint64_t start, end, pgoff;
	char perms[8];
	char path[512];
};

static int maps_of(const char *path, struct maps_line *out, int max)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[1024];
	int n = 0;

	assert_non_null(f);
	while (n < max && fgets(line, sizeof(line), f)) {
		struct maps_line m = { 0 };
		unsigned long long start, end, pgoff;
		int consumed = 0;

		if (sscanf(line, "%llx-%llx %7s %llx %*x:%*x %*u %n", &start, &end, m.perms, &pgoff,
			   &consumed) < 4 || !consumed)
			continue;
		snprintf(m.path, sizeof(m.path), "%s", line + consumed);
		m.path[strcspn(m.path, "\n")] = '\0';
		if (strcmp(m.path, path))
			continue;
		m.start = start;
		m.end = end;
		m.pgoff = pgoff;
		out[n++] = m;
	}
	fclose(f);
	return n;
}

/* The address of the .eh_frame_hdr of the loaded object whose name ends in
 * suffix ("" for the program), from its program headers as loaded. */
struct table_of {
	const char *suffix;
	uint64_t addr;
};

static int find_table(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct table_of *t = arg;
	size_t len = strlen(info->dlpi_name), want = strlen(t->suffix);

	(void)size;
	if (want ? len < want || strcmp(info->dlpi_name + len - want, t->suffix) : len)
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_GNU_EH_FRAME)
			t->addr = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
	return 1;
}

static void predicts_the_kernels(const char *path, const char *suffix)
{
	struct maps_line maps[16];
	struct eh_frame_segment g;
	struct perf_mmap exec = { 0 }, seg;
	struct table_of t = { suffix, 0 };
	int n = maps_of(path, maps, 16), fd, found = -1;

	assert_true(n >= 2);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(eh_frame_segment_read(fd, &g), 0);
	close(fd);
	dl_iterate_phdr(find_table, &t);
	assert_true(t.addr != 0);
	for (int i = 0; i < n; i++) {
		if (maps[i].perms[2] != 'x')
			continue;
		exec.start = maps[i].start;
		exec.len = maps[i].end - maps[i].start;
		exec.pgoff = maps[i].pgoff;
		exec.prot = PROT_READ | PROT_EXEC;
		exec.filename = path;
	}
	assert_true(exec.len > 0);
	/* Debian links with -z separate-code: the table is in a read-only
	 * segment after the code */
	assert_true(g.separate);
	assert_true(eh_frame_segment_mapping(&g, &exec, &seg));
	assert_int_equal(seg.prot, PROT_READ);
	assert_string_equal(seg.filename, path);
	for (int i = 0; i < n; i++)
		if (maps[i].start == seg.start && maps[i].pgoff == seg.pgoff)
			found = i;
	if (found < 0)
		fail_msg("%s: predicted %#llx @ %#llx, not among the kernel's mappings", path,
			 (unsigned long long)seg.start, (unsigned long long)seg.pgoff);
	assert_int_equal(maps[found].perms[2], '-');
	/* the kernel's mapping may be shorter (relro splits it), never past */
	assert_true(t.addr >= seg.start && t.addr < maps[found].end);
	assert_true(maps[found].end <= seg.start + seg.len);
	/* a mapping of another segment is not the executable one */
	exec.pgoff += 4096;
	assert_false(eh_frame_segment_mapping(&g, &exec, &seg));
}

static void test_own_program(void **state)
{
	char self[512];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	(void)state;
	assert_true(n > 0);
	self[n] = '\0';
	predicts_the_kernels(self, "");
}

static void test_libc(void **state)
{
	struct maps_line maps[1];
	const char *libc = "/usr/lib/x86_64-linux-gnu/libc.so.6";

	(void)state;
	if (maps_of(libc, maps, 1) < 1)
		skip();
	predicts_the_kernels(libc, "libc.so.6");
}

static void test_not_elf(void **state)
{
	struct eh_frame_segment g;
	struct perf_mmap exec = { .start = 0x400000, .len = 4096 }, seg;
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);

	(void)state;
	assert_true(fd >= 0);
	assert_int_not_equal(eh_frame_segment_read(fd, &g), 0);
	close(fd);
	assert_false(g.separate);
	assert_false(eh_frame_segment_mapping(&g, &exec, &seg));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_own_program),
		cmocka_unit_test(test_libc),
		cmocka_unit_test(test_not_elf),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
