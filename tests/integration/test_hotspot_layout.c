/* SPDX-License-Identifier: GPL-2.0-only */
/* test_hotspot_layout.c: the layout a running OpenJDK JVM describes of itself
 * (gHotSpotVMStructs, types, constants), read from its memory, is the one
 * HotSpot's own serviceability agent (jhsdb) reads from it: every field,
 * type size and constant both have, the same; the methods on its threads'
 * stacks are named, and their lines found, as the agent names and finds them. */
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
#include "symbols/hotspot_method.h"
#include "symbols/hotspot_vmstructs.h"
#include "java_sources.h"
#include "test_util.h"

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

/* One JVM for the tests: Spin, started before them, its layout read. */
static struct {
	pid_t pid;
	char *dir;
	struct hotspot_vmstructs v;
	bool read;
} jvm;

static int start_jvm(void **state)
{
	char *out = NULL, path[4096], err[256];
	struct hotspot_elf e;
	uint64_t start = 0;
	int fd, r = -EAGAIN;

	(void)state;
	if (access(JAVA_HOME "/bin/javac", X_OK) || access(JAVA_HOME "/bin/jhsdb", X_OK))
		return 0; /* each test says SKIP */
	jvm.dir = tu_tempdir();
	tu_write_file(jvm.dir, "Spin.java", spin_java, sizeof(spin_java) - 1);
	if (tu_sh(&out, "cd %s && " JAVA_HOME "/bin/javac Spin.java 2>&1", jvm.dir)) {
		fprintf(stderr, "javac failed:\n%s", out);
		free(out);
		return -1;
	}
	free(out);
	jvm.pid = tu_start("exec " JAVA_HOME "/bin/java -cp %s Spin", jvm.dir);
	/* the JVM sets its tables up as it starts */
	for (int i = 0; i < 200 && r == -EAGAIN; i++) {
		usleep(50000);
		if (!start && !find_libjvm(jvm.pid, path, sizeof(path), &start))
			continue;
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || hotspot_elf_inspect(fd, &e)) {
			fprintf(stderr, "%s: not read as libjvm.so\n", path);
			return -1;
		}
		close(fd);
		r = hotspot_vmstructs_read((uint32_t)jvm.pid, &e, start - e.first_load_vaddr, &jvm.v,
					   err, sizeof(err));
	}
	if (r) {
		fprintf(stderr, "the JVM's layout: %s\n", r == -EAGAIN ? "not set up in 10 s" : err);
		return -1;
	}
	jvm.read = true;
	return 0;
}

static int stop_jvm(void **state)
{
	(void)state;
	if (jvm.read)
		hotspot_vmstructs_free(&jvm.v);
	tu_stop(jvm.pid);
	if (jvm.dir)
		tu_rmtree(jvm.dir);
	free(jvm.dir);
	return 0;
}

static void skip_without_jvm(void)
{
	if (!jvm.read)
		tu_skip("no OpenJDK 17 JDK in " JAVA_HOME " (make deps installs openjdk-17-jdk-headless)");
	tu_skip_unless_possible();
}

/* jhsdb clhsdb's answer to commands (each followed by a newline). */
static char *agent(const char *commands)
{
	char *out = NULL;

	if (tu_sh(&out, "printf '%s' | " JAVA_HOME "/bin/jhsdb clhsdb --pid %d 2>&1", commands,
		  (int)jvm.pid))
		fail_msg("jhsdb failed:\n%s", out);
	return out;
}

static void test_layout_is_the_agents(void **state)
{
	const struct hotspot_vmstructs *v = &jvm.v;
	unsigned int same = 0, missing = 0;
	uint64_t size, offset;
	char *out;
	int64_t c;

	(void)state;
	skip_without_jvm();
	print_message("read %u fields, %u types, %u constants (%u names too long)\n", v->nr_fields,
		      v->nr_types, v->nr_constants, v->skipped);
	/* what a Java frame walk needs */
	assert_true(hotspot_type_size(v, "Method", &size) && size >= 32);
	assert_true(hotspot_field_offset(v, "Method", "_constMethod", &offset) && offset < size);
	assert_true(hotspot_field_offset(v, "ConstMethod", "_constants", &offset));
	assert_true(hotspot_field_offset(v, "Symbol", "_body", &offset));
	assert_true(hotspot_static_address(v, "CodeCache", "_heaps", &offset) && offset);
	assert_true(hotspot_constant(v, "frame::interpreter_frame_sender_sp_offset", &c) && c < 0);
	/* HotSpot's own reader of the same process says the same */
	out = agent("vmstructsdump\\nintConstant\\nlongConstant\\nquit\\n");
	compare_with_agent(out, v, &same, &missing);
	print_message("jhsdb agrees on %u values; %u it has were not read\n", same, missing);
	assert_true(same > 1500);
	if (missing * 20 > same)
		fail_msg("%u of jhsdb's values were not read", missing);
	free(out);
}

/* Each Method* of the threads' stacks, as jhsdb's jstack -v gives them
 * ("- Spin.inner() @bci=..., line=..., Method*=0x..."), is named as jhsdb
 * names it, and its bytecode index's line is the one jhsdb gives. */
static void test_methods_named_as_the_agent(void **state)
{
	struct hotspot_method_layout l;
	char err[256], name[512], *out, *save = NULL;
	unsigned int named = 0, spin = 0, lines = 0;

	(void)state;
	skip_without_jvm();
	if (hotspot_method_layout_of(&jvm.v, &l, err, sizeof(err)))
		fail_msg("%s", err);
	out = agent("jstack -v\\nquit\\n");
	for (char *line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *dash = strstr(line, " - "), *m = strstr(line, "Method*=0x"), *bci, *at_line;
		char want[512];
		int r;

		if (!dash || !m || !strchr(dash, '('))
			continue;
		snprintf(want, sizeof(want), "%.*s", (int)(strchr(dash, '(') - dash - 3), dash + 3);
		r = hotspot_method_name((uint32_t)jvm.pid, &l, strtoull(m + 10, NULL, 16), name,
					sizeof(name));
		if (r)
			fail_msg("%s: not named: %s", line, strerror(-r));
		if (strcmp(name, want))
			fail_msg("%s: named %s", line, name);
		named++;
		spin += !strncmp(name, "Spin.", 5);
		/* "@bci=N, line=M": its line, from its line number table */
		if ((bci = strstr(line, "@bci=")) && (at_line = strstr(line, "line=")) &&
		    strtol(at_line + 5, NULL, 10) > 0) {
			uint32_t got;

			r = hotspot_method_line((uint32_t)jvm.pid, &l, strtoull(m + 10, NULL, 16),
						(uint32_t)strtoul(bci + 5, NULL, 10), &got);
			if (r)
				fail_msg("%s: no line: %s", line, strerror(-r));
			if (got != strtoul(at_line + 5, NULL, 10))
				fail_msg("%s: line %u", line, got);
			lines++;
		}
	}
	print_message("%u methods named as jhsdb names them, %u of Spin; %u lines the same\n",
		      named, spin, lines);
	assert_true(named >= 4 && spin >= 3 && lines >= 4);
	free(out);
	/* what is no Method* is refused, not named */
	assert_true(hotspot_method_name((uint32_t)jvm.pid, &l, 8, name, sizeof(name)) < 0);
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
		cmocka_unit_test(test_methods_named_as_the_agent),
		cmocka_unit_test(test_not_a_jvm),
	};

	return cmocka_run_group_tests(tests, start_jvm, stop_jvm);
}
