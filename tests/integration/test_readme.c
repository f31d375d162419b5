/* SPDX-License-Identifier: GPL-2.0-only */
/* test_readme.c: the README's quick start run end to end, as a user would,
 * on fresh recordings: the fenced block after the "quick start" comment, each
 * line's leading "ringtrace" the binary built, "sleep N" made short, port 19435
 * a free one; then every file the block names is checked (each recording's
 * header file, each SVG, the gzipped pprof profile) and the output it prints. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_util.h"

/* Appends len bytes of src to b, or fails the test. */
static void append(struct byte_buffer *b, const void *src, size_t len)
{
	assert_non_null(byte_buffer_append(b, src, len));
}

#define QUICK_START_MARK "<!-- quick start"
#define README_PORT "19435"
#define SHORT_SLEEP "2"

/* The lines of the first fenced block after the quick start comment of
 * README.md in src, joined with newlines; NULL if there is none. */
static char *quick_start_block(const char *src)
{
	char path[PATH_MAX], line[4096];
	struct byte_buffer b = { 0 };
	int state = 0; /* 0: before the mark, 1: before the fence, 2: in the block */
	FILE *f;

	snprintf(path, sizeof(path), "%s/README.md", src);
	f = fopen(path, "r");
	if (!f)
		fail_msg("cannot read %s", path);
	while (fgets(line, sizeof(line), f)) {
		if (state == 0 && strstr(line, QUICK_START_MARK))
			state = 1;
		else if (state == 1 && !strncmp(line, "```", 3))
			state = 2;
		else if (state == 2 && !strncmp(line, "```", 3))
			break;
		else if (state == 2)
			append(&b, line, strlen(line));
	}
	fclose(f);
	if (state != 2 || !b.len) {
		byte_buffer_free(&b);
		return NULL;
	}
	append(&b, "", 1);
	return (char *)b.data;
}

/* Appends line to b as the test runs it: a leading "ringtrace" is the binary
 * built, "sleep N" sleeps SHORT_SLEEP seconds (as written if keep_sleep),
 * README_PORT is port. */
static void append_runnable(struct byte_buffer *b, const char *line, int port, bool keep_sleep)
{
	char ports[16];
	const char *p = line;

	snprintf(ports, sizeof(ports), "%d", port);
	if (!strncmp(p, "ringtrace ", 10)) {
		append(b, tu_ringtrace(), strlen(tu_ringtrace()));
		p += strlen("ringtrace");
	}
	while (*p) {
		if (!keep_sleep && !strncmp(p, "sleep ", 6) && isdigit((unsigned char)p[6])) {
			append(b, "sleep " SHORT_SLEEP, 6 + strlen(SHORT_SLEEP));
			for (p += 6; isdigit((unsigned char)*p) || *p == '.'; p++)
				;
		} else if (!strncmp(p, README_PORT, strlen(README_PORT))) {
			append(b, ports, strlen(ports));
			p += strlen(README_PORT);
		} else {
			append(b, p++, 1);
		}
	}
}

/* What a file the quick start wrote must be: a recording (option -o), an SVG
 * (--flamegraph), a gzipped pprof profile (--pprof). */
static void check_output(const char *dir, const char *option, const char *name)
{
	char path[PATH_MAX * 2], *out = NULL;
	struct stat st;

	if (!strcmp(option, "-o")) {
		snprintf(path, sizeof(path), "%s/%s/data", dir, name);
		if (stat(path, &st) || !S_ISREG(st.st_mode) || !st.st_size)
			fail_msg("the quick start's recording %s has no header file %s", name, path);
		snprintf(path, sizeof(path), "%s/%s/totals", dir, name);
		if (stat(path, &st))
			fail_msg("the quick start's recording %s never ended: no %s", name, path);
	} else if (!strcmp(option, "--flamegraph")) {
		if (tu_sh(&out, "cd %s && grep -c '<svg' %s && tail -c 16 %s | grep -c '</svg>'", dir,
			  name, name))
			fail_msg("the quick start's flame graph %s is not a whole SVG: %s", name, out);
		free(out);
	} else if (!strcmp(option, "--pprof")) {
		if (tu_sh(&out, "cd %s && test \"$(head -c 2 %s | od -An -tx1 | tr -d ' ')\" = 1f8b && "
			  "gzip -t %s && test \"$(gzip -dc %s | wc -c)\" -gt 100", dir, name, name, name))
			fail_msg("the quick start's pprof profile %s is not a gzipped profile: %s", name, out);
		free(out);
	}
}

static void test_readme_quick_start(void **state)
{
	static const char *const needed[] = { "record -a -g", "--flamegraph", "--pprof", "--off-cpu",
					      "export", "report" };
	static const char *const checked[] = { "-o", "--flamegraph", "--pprof" };
	unsigned int nr_checked[3] = { 0 };
	struct byte_buffer script = { 0 };
	const char *src = getenv("RINGTRACE_SRC");
	char *block, *dir, *out = NULL, *save = NULL, *copy, path[PATH_MAX];
	int port, rc;
	FILE *f;

	(void)state;
	tu_skip_unless_possible();
	if (!src || !*src)
		tu_skip("RINGTRACE_SRC is not set: run the test through make (make check)");
	port = tu_free_port();
	block = quick_start_block(src);
	if (!block)
		fail_msg("README.md has no fenced block after a \"%s\" comment: the quick start the "
			 "test runs", QUICK_START_MARK);
	for (size_t i = 0; i < sizeof(needed) / sizeof(needed[0]); i++)
		if (!strstr(block, needed[i]))
			fail_msg("README.md's quick start has no \"%s\":\n%s", needed[i], block);

	/* the block as one bash script, stopping at the first failing line; what
	 * it leaves running in the background is stopped at its end */
	static const char head[] = "set -e -x\ntrap 'kill $(jobs -p) 2>/dev/null || :; wait' EXIT\n";
	append(&script, head, strlen(head));
	copy = strdup(block);
	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		append_runnable(&script, line, port, false);
		append(&script, "\n", 1);
	}
	free(copy);
	dir = tu_tempdir();
	snprintf(path, sizeof(path), "%s/quick-start.sh", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fwrite(script.data, 1, script.len, f);
	fclose(f);

	rc = tu_sh(&out, "cd %s && timeout -s TERM 300 bash quick-start.sh 2>&1", dir);
	if (rc || !strstr(out, "Overhead") || !strstr(out, "ringtrace_build_info")) {
		/* cmocka cuts its messages at 4 KiB: the script and its output first */
		fprintf(stderr, "the quick start, run as:\n%.*s\nexit %d, output:\n%s\n", (int)script.len,
			(const char *)script.data, rc, out);
		fflush(stderr);
		if (rc)
			fail_msg("README.md's quick start failed (exit %d): its output above", rc);
		/* what it prints: the report's table, the exporter's metrics */
		fail_msg("README.md's quick start printed no report table (Overhead) or no metrics "
			 "(ringtrace_build_info): its output above");
	}
	free(out);

	/* every file it names, by the option naming it */
	copy = strdup(block);
	for (char *w = strtok_r(copy, " \t\n", &save), *prev = NULL; w;
	     prev = w, w = strtok_r(NULL, " \t\n", &save)) {
		for (size_t i = 0; prev && i < sizeof(checked) / sizeof(checked[0]); i++) {
			if (strcmp(prev, checked[i]))
				continue;
			check_output(dir, checked[i], w);
			nr_checked[i]++;
		}
	}
	free(copy);
	print_message("quick start: %u recordings, %u flame graphs, %u pprof profiles checked\n",
		      nr_checked[0], nr_checked[1], nr_checked[2]);
	if (nr_checked[0] < 2 || nr_checked[1] < 2 || nr_checked[2] < 1)
		fail_msg("README.md's quick start names fewer files than it should (2 recordings "
			 "with -o, 2 flame graphs, a pprof profile):\n%s", block);
	byte_buffer_free(&script);
	free(block);
	tu_rmtree(dir);
	free(dir);
}

/* A busy machine, for about seconds: short processes one after another
 * (true, sh, ls, sort, date), and CPU hogs that map many libraries
 * (python3 with ssl, sqlite3, decimal, ctypes; perl with POSIX; gzip), each
 * loop ending by itself at its deadline. */
#define BUSY_LOAD                                                                              \
	"end=$(( $(date +%%s) + %d )); "                                                       \
	"while [ $(date +%%s) -lt $end ]; do true; sh -c :; ls / >/dev/null; "                 \
	"printf 'b\\na\\n' | sort >/dev/null; done & "                                        \
	"while [ $(date +%%s) -lt $end ]; do python3 -c 'import json, ssl, sqlite3, decimal, "  \
	"ctypes, hashlib; sum(range(400000))'; done & "                                        \
	"while [ $(date +%%s) -lt $end ]; do perl -MPOSIX -MList::Util=sum -e "                 \
	"'$s = 0; $s += $_ for 1..400000'; done & "                                             \
	"while [ $(date +%%s) -lt $end ]; do gzip -c /bin/sh >/dev/null; done & wait"

#define QUIET_TRIES 3

/* The quick start's system-wide `record -a -g` (as long as it is written) on
 * a busy machine ends with the recording's summary and no line of the
 * unwinder's: with the tables of what runs in the cache (a recording before
 * compiled them), nothing went without room (--unwind-mem's default is
 * sized from the machine), and a program's first instants cost too few
 * stacks to be worth a line. */
static void test_readme_record_busy_quiet(void **state)
{
	struct byte_buffer cmd = { 0 };
	const char *src = getenv("RINGTRACE_SRC");
	char *block, *dir, *out = NULL, *line = NULL, *save = NULL, *o, output[256];
	bool quiet = false;
	pid_t load;
	int rc;

	(void)state;
	tu_skip_unless_possible();
	if (!src || !*src)
		tu_skip("RINGTRACE_SRC is not set: run the test through make (make check)");
	block = quick_start_block(src);
	if (!block)
		fail_msg("README.md has no quick start block");
	for (char *l = strtok_r(block, "\n", &save); l && !line; l = strtok_r(NULL, "\n", &save))
		if (strstr(l, "record -a -g ") && !strstr(l, "--off-cpu"))
			line = l;
	if (!line || !(o = strstr(line, " -o ")) || sscanf(o, " -o %255s", output) != 1)
		fail_msg("README.md's quick start has no system-wide `record -a -g -o DIR` line");
	if (strchr(line, '#'))
		*strchr(line, '#') = 0; /* its comment */
	append_runnable(&cmd, line, 0, true);
	append(&cmd, "", 1);
	dir = tu_tempdir();
	load = tu_start(BUSY_LOAD, 60 + 12 * QUIET_TRIES);
	sleep(1);
	/* the tables of the load's programs in the cache, as a recording before
	 * leaves them: recordings until one compiled none (a first recording
	 * compiles every table, and its stacks wait for them) */
	for (int i = 0, kept = 1; i < 4 && kept; i++) {
		const char *k;

		rc = tu_sh(&out, "cd %s && %s record -a -g -v --force -o warm.data -- sleep 2 2>&1",
			   dir, tu_ringtrace());
		if (rc)
			fail_msg("record -a -g under load failed (exit %d): %s", rc, out);
		k = strstr(out, "ringtrace: unwind tables: ");
		if (!k || !(k = strstr(k, " read from the cache ")) || !(k = strchr(k, ',')) ||
		    sscanf(k, ", %d kept there", &kept) != 1)
			kept = 0; /* (no cache) */
		free(out);
		out = NULL;
	}
	/* the machine's other work (not the test's: programs built and run
	 * beside it, a test's file without a table) may cost stacks of its
	 * own, and be named: a quiet end once in QUIET_TRIES; room never short */
	for (int i = 0; i < QUIET_TRIES && !quiet; i++) {
		free(out);
		rc = tu_sh(&out, "cd %s && rm -rf %s %s.old && %s 2>&1 >/dev/null", dir, output,
			   output, (const char *)cmd.data);
		print_message("%s\n%s", (const char *)cmd.data, out);
		if (rc)
			fail_msg("the quick start's `%s` failed under load (exit %d): %s",
				 (const char *)cmd.data, rc, out);
		if (!strstr(out, "ringtrace: recorded "))
			fail_msg("the quick start's recording printed no summary: %s", out);
		if (strstr(out, "--unwind-mem"))
			fail_msg("the quick start's recording on a busy machine ran out of "
				 "--unwind-mem:\n%s", out);
		quiet = !strstr(out, "unwind") && !strstr(out, "may be cut short") &&
			!strstr(out, "stack-copy-budget");
	}
	if (!quiet)
		fail_msg("the quick start's recording on a busy machine ended with a line of the "
			 "unwinder's, %d times in a row:\n%s", QUIET_TRIES, out);
	free(out);
	/* the load ran while it recorded: its hogs have samples */
	rc = tu_sh(&out, "cd %s && %s report %s --sort comm 2>&1", dir, tu_ringtrace(), output);
	if (rc || !strstr(out, "python3") || !strstr(out, "perl"))
		fail_msg("the recording has no samples of the load (python3, perl): %s", out);
	free(out);
	tu_stop(load);
	byte_buffer_free(&cmd);
	free(block);
	tu_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_readme_quick_start),
		cmocka_unit_test(test_readme_record_busy_quiet),
	};
	const char *why = tu_integration_skip_reason();

	if (!why && system("command -v bash curl gzip timeout python3 perl >/dev/null"))
		why = "bash, curl, gzip, timeout, python3 or perl is missing (make deps installs "
		      "them)";
	tu_set_skip_reason(why);
	return cmocka_run_group_tests(tests, NULL, tu_stop_left);
}
