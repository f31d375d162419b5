/* SPDX-License-Identifier: GPL-2.0-only */
/* test_hotspot_layout.c: the layout a running OpenJDK JVM describes of itself
 * (gHotSpotVMStructs, types, constants), read from its memory, is the one
 * HotSpot's own serviceability agent (jhsdb) reads from it: every field,
 * type size and constant both have, the same. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols/hotspot_elf.h"
#include "symbols/hotspot_vmstructs.h"
#include "test_util.h"

#define JAVA_HOME "/usr/lib/jvm/java-17-openjdk-amd64"

static const char spin_java[] = "public class Spin {\n"
				"  static volatile long n;\n"
				"  public static void main(String[] a) {\n"
				"    long end = System.currentTimeMillis() + 120000;\n"
				"    while (System.currentTimeMillis() < end) n++;\n"
				"  }\n"
				"}\n";

/* libjvm.so's mapping of its first page in pid: its path and start. */
static bool find_libjvm(pid_t pid, char *path, size_t len, uint64_t *start)
{
	char maps[64], line[4096];
	bool found = false;
	FILE *f;

	snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)pid);
	f = fopen(maps, "r");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned long long lo, off;
		char file[4096];

		if (sscanf(line, "%llx-%*x %*s %llx %*s %*s %4095s", &lo, &off, file) == 3 &&
		    off == 0 && hotspot_elf_name_may_be(file)) {
			snprintf(path, len, "%s", file);
			*start = lo;
			found = true;
		}
	}
	fclose(f);
	return found;
}

/* The words of line, a "quoted string" one word (its quotes dropped): their
 * number, at most max. */
static int words(char *line, char **w, int max)
{
	int n = 0;

	while (*line && n < max) {
		while (*line == ' ')
			line++;
		if (!*line)
			break;
		if (*line == '"') {
			w[n++] = ++line;
			line += strcspn(line, "\"");
		} else {
			w[n++] = line;
			line += strcspn(line, " ");
		}
		if (*line)
			*line++ = '\0';
	}
	return n;
}

/* Checks each line of jhsdb's dump against v: "field TYPE NAME TYPESTRING
 * STATIC OFFSET ADDRESS", "type NAME SUPER OOP INT UNSIGNED SIZE",
 * "intConstant NAME VALUE", "longConstant NAME VALUE". Every value both
 * have is the same; *missing counts those the agent has and v has not (it
 * makes some types up as it reads: pointers, "volatile" ones, superclasses
 * and templates of its own). */
static void compare_with_agent(const char *dump, const struct hotspot_vmstructs *v,
			       unsigned int *same, unsigned int *missing)
{
	char *copy = strdup(dump), *save = NULL;

	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *w[8];
		bool found = true;
		uint64_t got = 0, want = 0;
		int64_t c;
		int n;

		if (!strncmp(line, "hsdb> ", 6))
			line += 6;
		n = words(line, w, 8);
		if (n == 7 && !strcmp(w[0], "field") && !strcmp(w[4], "true")) {
			found = hotspot_static_address(v, w[1], w[2], &got);
			want = strtoull(w[6], NULL, 16);
		} else if (n == 7 && !strcmp(w[0], "field")) {
			found = hotspot_field_offset(v, w[1], w[2], &got);
			want = strtoull(w[5], NULL, 10);
		} else if (n == 7 && !strcmp(w[0], "type")) {
			if (!strcmp(w[6], "-1"))
				continue; /* no size known to the agent either */
			found = hotspot_type_size(v, w[1], &got);
			want = strtoull(w[6], NULL, 10);
		} else if (n == 3 && (!strcmp(w[0], "intConstant") || !strcmp(w[0], "longConstant"))) {
			found = hotspot_constant(v, w[1], &c);
			got = (uint64_t)c;
			want = w[0][0] == 'i' ? (uint64_t)strtoll(w[2], NULL, 10) : strtoull(w[2], NULL, 10);
		} else {
			continue;
		}
		if (!found) {
			if (*missing < 10)
				print_message("not read: %s %s %s\n", w[0], w[1], n > 2 ? w[2] : "");
			(*missing)++;
			continue;
		}
		if (got != want)
			fail_msg("%s %s %s: read %" PRIu64 ", the agent says %" PRIu64, w[0], w[1], w[2],
				 got, want);
		(*same)++;
	}
	free(copy);
}

static void test_layout_is_the_agents(void **state)
{
	char *dir, *out = NULL, path[4096];
	struct hotspot_vmstructs v;
	struct hotspot_elf e;
	unsigned int same = 0, missing = 0;
	uint64_t start = 0, size, offset;
	char err[256];
	pid_t java;
	int fd, r = -EAGAIN;
	int64_t c;

	(void)state;
	if (access(JAVA_HOME "/bin/javac", X_OK) || access(JAVA_HOME "/bin/jhsdb", X_OK))
		tu_skip("no OpenJDK 17 JDK in " JAVA_HOME " (make deps installs openjdk-17-jdk-headless)");
	tu_skip_unless_possible();
	dir = tu_tempdir();
	tu_write_file(dir, "Spin.java", spin_java, sizeof(spin_java) - 1);
	if (tu_sh(&out, "cd %s && " JAVA_HOME "/bin/javac Spin.java 2>&1", dir))
		fail_msg("javac failed:\n%s", out);
	free(out);
	out = NULL;
	java = tu_start("exec " JAVA_HOME "/bin/java -cp %s Spin", dir);
	/* the JVM sets its tables up as it starts */
	for (int i = 0; i < 200 && r == -EAGAIN; i++) {
		usleep(50000);
		if (!start && !find_libjvm(java, path, sizeof(path), &start))
			continue;
		fd = open(path, O_RDONLY | O_CLOEXEC);
		assert_true(fd >= 0);
		assert_int_equal(hotspot_elf_inspect(fd, &e), 0);
		close(fd);
		r = hotspot_vmstructs_read((uint32_t)java, &e, start - e.first_load_vaddr, &v, err,
					   sizeof(err));
	}
	if (r)
		fail_msg("the JVM's layout: %s", err);
	print_message("read %u fields, %u types, %u constants (%u names too long)\n", v.nr_fields,
		      v.nr_types, v.nr_constants, v.skipped);
	/* what a Java frame walk needs */
	assert_true(hotspot_type_size(&v, "Method", &size) && size >= 32);
	assert_true(hotspot_field_offset(&v, "Method", "_constMethod", &offset) && offset < size);
	assert_true(hotspot_field_offset(&v, "ConstMethod", "_constants", &offset));
	assert_true(hotspot_field_offset(&v, "Symbol", "_body", &offset));
	assert_true(hotspot_static_address(&v, "CodeCache", "_heaps", &offset) && offset);
	assert_true(hotspot_constant(&v, "frame::interpreter_frame_sender_sp_offset", &c) && c < 0);
	/* HotSpot's own reader of the same process says the same */
	if (tu_sh(&out, "printf 'vmstructsdump\\nintConstant\\nlongConstant\\nquit\\n' | " JAVA_HOME "/bin/jhsdb clhsdb --pid %d 2>&1",
		  (int)java))
		fail_msg("jhsdb failed:\n%s", out);
	compare_with_agent(out, &v, &same, &missing);
	print_message("jhsdb agrees on %u values; %u it has were not read\n", same, missing);
	assert_true(same > 1500);
	if (missing * 20 > same)
		fail_msg("%u of jhsdb's values were not read", missing);
	free(out);
	hotspot_vmstructs_free(&v);
	tu_stop(java);
	tu_rmtree(dir);
	free(dir);
}

/* A process that is no JVM: its memory is not read as one. */
static void test_not_a_jvm(void **state)
{
	struct hotspot_elf e;
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(hotspot_elf_inspect(fd, &e), -ENOENT);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout_is_the_agents),
		cmocka_unit_test(test_not_a_jvm),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
