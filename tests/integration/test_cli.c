/* SPDX-License-Identifier: GPL-2.0-only */
/* test_cli.c: bad command lines, unusable output paths and unusable input get
 * exactly one error line naming the problem and a non-zero exit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_util.h"

/* Runs "ringtrace ARGS" and checks: exit status want_rc (any but 0 if
 * want_rc is -1), exactly one line of output, containing needle. */
static void expect_one_line_status(const char *args, const char *needle, int want_rc)
{
	char *out = NULL;
	/* an error comes at once: a recording that runs instead is stopped */
	int rc = tu_sh(&out, "timeout -s INT 20 %s %s 2>&1", tu_ringtrace(), args);
	size_t len = strlen(out);

	if (rc == 0 || (want_rc >= 0 && rc != want_rc) || !len || out[len - 1] != '\n' ||
	    strchr(out, '\n') != out + len - 1 || !strstr(out, needle))
		fail_msg("ringtrace %s: exit %d, wanted one error line with \"%s\", got:\n%s", args, rc,
			 needle, out);
	free(out);
}

static void expect_one_line_error(const char *args, const char *needle)
{
	expect_one_line_status(args, needle, -1);
}

/* A bad command line: exit status 2 and one line. */
static void expect_usage_error(const char *args, const char *needle)
{
	expect_one_line_status(args, needle, 2);
}

static void test_option_errors(void **state)
{
	(void)state;
	tu_skip_unless_possible();
	expect_one_line_error("record", "pass -a");
	expect_one_line_error("record -a -F 0", "invalid value \"0\" for -F");
	expect_one_line_error("record -a -F many", "invalid value \"many\" for -F");
	expect_one_line_error("record -a -F 10000000", "for -F");
	expect_one_line_error("record -a -F 100 -c 100000", "-F and -c conflict");
	expect_one_line_error("record -a -m 3", "power of two");
	expect_one_line_error("record -a --bogus", "unknown option --bogus");
	/* "did you mean", for options, named events and tracepoints */
	expect_usage_error("report --percnt-limit 3", "did you mean --percent-limit?");
	expect_usage_error("script --hide-callgraph", "did you mean --hide-call-graph?");
	expect_one_line_error("record -a -e cpu-clok -- true", "did you mean cpu-clock?");
	expect_one_line_error("record -a -e sched:sched_swich -- true",
			      "did you mean sched:sched_switch?");
	expect_one_line_error("record -a -F", "needs a value");
	expect_usage_error("record -a -g --unwind-cache-size 0 -- true",
			   "--unwind-cache-size 0 would keep nothing: give --unwind-cache none");
	expect_usage_error("record -a -g --unwind-cache-size 64K -- true",
			   "invalid size \"64K\" for --unwind-cache-size");
	expect_usage_error("export --unwind-cache-size 64M", "give -g too");
	/* the typos: past a row of help text in record's table too */
	expect_usage_error("record -a --swich-output -- true", "did you mean --switch-output?");
	expect_usage_error("record -a --overwirte -- true", "did you mean --overwrite?");
	expect_usage_error("record -a --transprt own -- true", "did you mean --transport?");
	expect_usage_error("record -a --outptu x -- true", "did you mean --output?");
	expect_usage_error("reprot", "unknown command \"reprot\": did you mean report?");
	expect_one_line_error("frobnicate", "unknown command \"frobnicate\"");
	expect_one_line_error("report --sort comm,size", "unknown sort key \"size\"");
	expect_one_line_error("report /nonexistent/dir", "/nonexistent/dir");
	/* several outputs of one recording: each must be readable */
	expect_one_line_error("report /nonexistent/a /nonexistent/b", "/nonexistent/a: cannot open");
	expect_usage_error("report --unwind-check a b", "read one recording: name one output");
	expect_usage_error("report --inverted", "shape a flame graph: add --flamegraph FILE.svg");
	expect_usage_error("report --width 10 --flamegraph x.svg", "invalid value \"10\" for --width");
	expect_usage_error("report --diff a b", "--diff writes --folded or --flamegraph FILE");
	expect_usage_error("report --diff /nonexistent/before b --folded",
			   "cannot read /nonexistent/before: No such file or directory");
}

/* Every command: an unknown option or a missing value is one line naming it
 * and where the help is, exit status 2. */
static void test_every_command_refuses_bad_options(void **state)
{
	static const char *const commands[] = { "record", "report", "script", "export",
						"snapshot", "list", "trace" };
	static const char *const missing_value[][2] = {
		{ "record -e", "option -e needs a value: see ringtrace record --help" },
		{ "record --output", "option --output needs a value: see ringtrace record --help" },
		{ "report --sort", "option --sort needs a value: see ringtrace report --help" },
		{ "report --flamegraph", "option --flamegraph needs a value: see ringtrace report --help" },
		{ "script -i", "option -i needs a value: see ringtrace script --help" },
		{ "export --listen", "option --listen needs a value: see ringtrace export --help" },
		{ "export -F", "option -F needs a value: see ringtrace export --help" },
		{ "trace -s -p", "option -p needs a value: see ringtrace trace --help" },
	};
	char args[128], needle[160];

	(void)state;
	tu_skip_unless_possible();
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		snprintf(args, sizeof(args), "%s --bogus", commands[i]);
		snprintf(needle, sizeof(needle), "ringtrace: unknown option --bogus: see ringtrace %s --help",
			 commands[i]);
		expect_usage_error(args, needle);
		snprintf(args, sizeof(args), "%s -Z", commands[i]);
		snprintf(needle, sizeof(needle), "ringtrace: unknown option -Z: see ringtrace %s --help",
			 commands[i]);
		expect_usage_error(args, needle);
	}
	for (size_t i = 0; i < sizeof(missing_value) / sizeof(missing_value[0]); i++)
		expect_usage_error(missing_value[i][0], missing_value[i][1]);
	expect_usage_error("record --force=1", "unknown option --force=1");
	expect_usage_error("snapshot", "snapshot needs one recording directory or pid");
	expect_usage_error("export extra", "unexpected argument \"extra\"");
}

/* Every command's --help (and -h) goes to stdout, exit status 0, and lists
 * its options. */
static void test_every_command_has_help(void **state)
{
	static const struct {
		const char *command;
		const char *lines[4];
	} helps[] = {
		{ "record", { "  -e, --event EVENTS", "      --overwrite", "  -- CMD ARGS",
			      "      --metrics ADDR:PORT" } },
		{ "report", { "      --flamegraph FILE.svg", "  -s, --sort KEYS", "filters:",
			      "      --time START,END" } },
		{ "script", { "  -i, --input DIR", "      --kallsyms FILE" } },
		{ "export", { "      --listen ADDR:PORT", "      --textfile DIR", "  -F, --freq HZ",
			      "      --top N" } },
		{ "snapshot", { "  -w, --wait" } },
		{ "list", { "usage: ringtrace list" } },
		{ "trace", { "  -s, --summary", "  -p, --pid PID", "      --histogram",
			     "      --metrics FILE" } },
	};
	static const char *const flags[] = { "--help", "-h" };

	(void)state;
	tu_skip_unless_possible();
	for (size_t i = 0; i < sizeof(helps) / sizeof(helps[0]); i++)
		for (size_t f = 0; f < 2; f++) {
			char *out = NULL, *err = NULL, usage[64];
			int rc = tu_sh(&out, "%s %s %s 2>/dev/null", tu_ringtrace(), helps[i].command,
				       flags[f]);
			int err_rc = tu_sh(&err, "%s %s %s >/dev/null", tu_ringtrace(),
					   helps[i].command, flags[f]);

			snprintf(usage, sizeof(usage), "usage: ringtrace %s", helps[i].command);
			if (rc != 0 || err_rc != 0 || strncmp(out, usage, strlen(usage)) ||
			    !strstr(out, "  -h, --help ") || err[0])
				fail_msg("ringtrace %s %s: exit %d, stderr \"%s\", stdout:\n%s",
					 helps[i].command, flags[f], rc, err, out);
			for (size_t l = 0; l < 4 && helps[i].lines[l]; l++)
				if (!strstr(out, helps[i].lines[l]))
					fail_msg("ringtrace %s %s does not list \"%s\":\n%s",
						 helps[i].command, flags[f], helps[i].lines[l], out);
			free(out);
			free(err);
		}
}

/* Bad requests are refused before anything is created or attached: the
 * output directory does not appear. */
static void expect_refused(const char *args, const char *needle)
{
	char *dir = tu_tempdir(), out_dir[4200], full[8192];
	struct stat st;

	snprintf(out_dir, sizeof(out_dir), "%s/out", dir);
	snprintf(full, sizeof(full), "record -o %s %s", out_dir, args);
	expect_one_line_error(full, needle);
	if (!stat(out_dir, &st))
		fail_msg("ringtrace record %s created %s before refusing", args, out_dir);
	tu_rmtree(dir);
	free(dir);
}

static void test_scope_and_event_errors(void **state)
{
	(void)state;
	tu_skip_unless_possible();
	expect_refused("-a -e bogus-event", "unknown event \"bogus-event\"");
	expect_refused("-a -e cpu-clock:x", "unknown modifier 'x'");
	expect_refused("-a -e cpu-clock,cpu-clock", "given twice");
	expect_refused("-a -e nosuchsys:nosuchevent", "unknown tracepoint nosuchsys:nosuchevent");
	expect_refused("-a -C 0-", "malformed CPU list");
	expect_refused("-a -C 1,x", "malformed CPU list");
	expect_refused("-a -C 4095", "does not exist");
	expect_refused("-p 4194000", "no process with id 4194000");
	expect_refused("-p 12ab", "malformed process list");
	expect_refused("-t 4194000", "no thread with id 4194000");
	expect_refused("-a -p 1", "-a and -p conflict");
	expect_refused("-p 1 -t 1", "-p and -t conflict");
	expect_refused("--per-thread -a", "--per-thread needs tasks");
	expect_refused("-p 1 -G /", "-G needs -a or -C");
	expect_refused("-a --cgroup-exact", "--cgroup-exact needs -G");
	expect_refused("-a -G no-such-cgroup-here", "not found");
	expect_refused("-a -e cpu-clock -c 10", "too short a period");
	if (access("/sys/bus/event_source/devices/cpu", F_OK)) /* no hardware PMU here */
		expect_refused("-a -e cycles", "no hardware PMU");
}

static void test_output_directory_is_never_reused_blindly(void **state)
{
	char *dir, args[8192], target[4096];

	(void)state;
	tu_skip_unless_possible();
	dir = tu_tempdir();
	snprintf(args, sizeof(args), "record -a -o %s", dir);
	expect_one_line_error(args, "already exists");
	/* --force refuses a symlink, even to a directory of ours */
	snprintf(target, sizeof(target), "%s/link", dir);
	assert_int_equal(symlink(dir, target), 0);
	snprintf(args, sizeof(args), "record -a --force -o %s", target);
	expect_one_line_error(args, "not a real directory");
	/* and a file */
	snprintf(target, sizeof(target), "%s/file", dir);
	fclose(fopen(target, "w"));
	snprintf(args, sizeof(args), "record -a --force -o %s", target);
	expect_one_line_error(args, "not a real directory");
	/* report refuses a data file that is a symlink */
	snprintf(target, sizeof(target), "%s/data", dir);
	assert_int_equal(symlink("/etc/passwd", target), 0);
	snprintf(args, sizeof(args), "report %s", dir);
	expect_one_line_error(args, "symbolic link");
	tu_rmtree(dir);
	free(dir);
}

/* The inode of path (0 if it does not exist). */
static ino_t inode_of(const char *path)
{
	struct stat st;

	return lstat(path, &st) ? 0 : st.st_ino;
}

/* Records `-- true` into out; fails the test unless it succeeds. */
static void record_true(const char *out_dir)
{
	char *out = NULL;
	int rc = tu_sh(&out, "%s record -a -o %s -- true 2>&1", tu_ringtrace(), out_dir);

	if (rc)
		fail_msg("record -o %s failed (%d): %s", out_dir, rc, out);
	free(out);
}

/* perf's habit: a recording at -o moves to DIR.old (the one there before
 * removed), never anything that is not a recording of ours, never through
 * a symlink. */
static void test_existing_recording_moved_to_old(void **state)
{
	char *dir, rec[2048], old[2048], data[4096], old_data[4096], args[8192];
	ino_t first, second;
	char *out = NULL;

	(void)state;
	tu_skip_unless_possible();
	dir = tu_tempdir();
	snprintf(rec, sizeof(rec), "%s/rec", dir);
	snprintf(old, sizeof(old), "%s/rec.old", dir);
	snprintf(data, sizeof(data), "%s/data", rec);
	snprintf(old_data, sizeof(old_data), "%s/data", old);
	record_true(rec);
	first = inode_of(data);
	assert_true(first != 0);
	record_true(rec);
	second = inode_of(data);
	assert_true(second != 0 && second != first);
	assert_int_equal(inode_of(old_data), first);
	/* again, with a trailing slash: the .old before is removed */
	snprintf(args, sizeof(args), "%s/", rec);
	record_true(args);
	assert_int_equal(inode_of(old_data), second);
	/* a .old that is not a recording is left alone, and so is the recording */
	second = inode_of(data);
	assert_int_equal(tu_sh(&out, "rm -rf %s && mkdir %s && touch %s/mine", old, old, old), 0);
	free(out);
	snprintf(args, sizeof(args), "record -a -o %s", rec);
	expect_one_line_error(args, "not a recording of yours");
	assert_int_equal(inode_of(data), second);
	snprintf(args, sizeof(args), "%s/mine", old);
	assert_true(inode_of(args) != 0);
	/* nor is one that is a symlink, to a recording or not */
	assert_int_equal(tu_sh(&out, "rm -rf %s && ln -s %s %s", old, rec, old), 0);
	free(out);
	snprintf(args, sizeof(args), "record -a -o %s", rec);
	expect_one_line_error(args, "not a real directory");
	assert_int_equal(inode_of(data), second);
	tu_rmtree(dir);
	free(dir);
}

/* The first non-empty data.cpuN of dir, into name; -1 if none. */
static int first_cpu_file(const char *dir, char *name, size_t len)
{
	for (int cpu = 0; cpu < tu_online_cpus(); cpu++) {
		char path[4096];
		struct stat st;

		snprintf(path, sizeof(path), "%s/data.cpu%d", dir, cpu);
		if (!stat(path, &st) && st.st_size > 0) {
			snprintf(name, len, "data.cpu%d", cpu);
			return 0;
		}
	}
	return -1;
}

/* Each recording's sample ids are its own: a data.cpuN file copied from
 * another recording is refused, with one line naming it, exit status 1. */
static void test_foreign_cpu_file_is_refused(void **state)
{
	char *a = tu_tempdir(), *b = tu_tempdir(), *out = NULL, name[64], args[8192];
	struct tu_records ra, rb;
	int rc;

	(void)state;
	tu_skip_unless_possible();
	for (int i = 0; i < 2; i++) {
		rc = tu_sh(&out, "%s record -a --force -o %s -- sh -c 'for i in 1 2 3; do ls / >/dev/null; done' 2>&1",
			   tu_ringtrace(), i ? b : a);
		if (rc)
			fail_msg("ringtrace record failed (%d):\n%s", rc, out);
		free(out);
	}
	tu_records_open(&ra, a, 0);
	tu_records_open(&rb, b, 0);
	assert_true(ra.in.events[0].nr_ids == 1 && rb.in.events[0].nr_ids == 1);
	if (ra.in.events[0].ids[0] == rb.in.events[0].ids[0])
		fail_msg("two recordings share the sample id %#llx",
			 (unsigned long long)ra.in.events[0].ids[0]);
	tu_records_close(&ra);
	tu_records_close(&rb);
	/* both read; then b with a's file in place of its own */
	snprintf(args, sizeof(args), "report %s >/dev/null", b);
	rc = tu_sh(&out, "%s %s 2>&1", tu_ringtrace(), args);
	if (rc)
		fail_msg("ringtrace %s: exit %d:\n%s", args, rc, out);
	free(out);
	assert_int_equal(first_cpu_file(a, name, sizeof(name)), 0);
	assert_int_equal(tu_sh(NULL, "cp %s/%s %s/%s", a, name, b, name), 0);
	snprintf(args, sizeof(args), "%s/%s: offset 0: a record of sample id", b, name);
	{
		char cmd[8192];

		snprintf(cmd, sizeof(cmd), "report %s", b);
		expect_one_line_status(cmd, args, 1);
		snprintf(cmd, sizeof(cmd), "script %s", b);
		expect_one_line_status(cmd, args, 1);
		snprintf(cmd, sizeof(cmd), "report --folded %s", b);
		expect_one_line_status(cmd, "belongs to another recording", 1);
	}
	tu_rmtree(a);
	tu_rmtree(b);
	free(a);
	free(b);
}

/* A tracepoint format whose field's offset + size wraps in 32 bits crashed
 * script (SIGSEGV): now one line naming the file and offset, exit status 1. */
static void test_crafted_format_is_one_line(void **state)
{
	static const char format[] =
		"name: wrapping\nID: 77\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:long value;\toffset:4294967290;\tsize:8;\tsigned:1;\n"
		"\nprint fmt: \"value=%ld\", REC->value\n";
	uint8_t raw[20] = { 77 };
	struct perf_sample s = { .ip = 0x400000, .pid = 1, .tid = 1, .time = 1, .period = 1,
				 .raw_size = sizeof(raw), .raw = raw };
	char *dir = tu_tempdir(), cmd[8192], needle[4200];
	struct tu_recording r;
	struct byte_buffer td = { 0 };

	(void)state;
	tu_skip_unless_possible();
	tu_recording_init(&r, 1);
	tu_recording_event(&r, "fake:wrapping", PERF_TYPE_TRACEPOINT, 77,
			   PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				   PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW,
			   102);
	tu_tracing_data(&td, "fake", (const char *const[]){ format }, 1);
	r.header.tracing_data = td.data;
	r.header.tracing_data_size = td.len;
	tu_recording_sample(&r, 0, &s);
	tu_recording_write(&r, dir);
	tu_recording_free(&r);
	byte_buffer_free(&td);
	snprintf(cmd, sizeof(cmd), "script %s", dir);
	snprintf(needle, sizeof(needle), "%s/data: offset ", dir);
	expect_one_line_status(cmd, needle, 1);
	tu_rmtree(dir);
	free(dir);
}

/* The lines of a list of the events ringtrace records: where the machine
 * has a PMU, perf lists its own events too (in sections headed "cache:",
 * "memory:"... with descriptions), which ringtrace does not record. */
#define RECORDABLE_EVENTS "grep -E '\\[(Software|Tracepoint) event\\]$'"

/* ringtrace list PATTERN filters as perf list PATTERN: the same lines in the
 * same order for tracepoint globs, event names and words; for a class, the
 * events ringtrace takes among perf's (perf lists more software events). */
static void test_list_filters_as_perf(void **state)
{
	static const char *const same[] = { "sched:*", "sched_switch", "sys*:*_getpid",
					     "clock", "cs", "sched:sched_s*", "page" };
	char *ours = NULL, *theirs = NULL, *dir;

	(void)state;
	tu_skip_unless_possible();
	dir = tu_tempdir();
	for (size_t i = 0; i < sizeof(same) / sizeof(same[0]); i++) {
		assert_int_equal(tu_sh(&ours, "%s list '%s' 2>&1", tu_ringtrace(), same[i]), 0);
		free(ours);
		assert_int_equal(tu_sh(&ours, "%s list '%s' 2>&1 | %s", tu_ringtrace(), same[i],
				       RECORDABLE_EVENTS),
				 0);
		assert_int_equal(tu_sh(&theirs, "perf list '%s' 2>&1 | %s", same[i], RECORDABLE_EVENTS),
				 0);
		print_message("ringtrace list '%s' as perf's:\n%s", same[i], ours);
		if (!ours[0] || strcmp(ours, theirs))
			fail_msg("ringtrace list '%s':\n%s\nperf list '%s':\n%s", same[i], ours,
				 same[i], theirs);
		free(ours);
		free(theirs);
	}
	/* a class: every line of ours is one of perf's, in perf's order */
	assert_int_equal(tu_sh(&ours, "perf list sw > %s/perf && %s list sw > %s/ours && "
				     "grep -vxF -f %s/perf %s/ours | wc -l",
			       dir, tu_ringtrace(), dir, dir, dir),
			 0);
	assert_int_equal(atoi(ours), 0);
	free(ours);
	assert_int_equal(tu_sh(&ours, "wc -l < %s/ours", dir), 0);
	assert_true(atoi(ours) >= 9);
	free(ours);
	tu_rmtree(dir);
	free(dir);
}

/* The bash completion (ringtrace __completion, from the option tables)
 * offers the values of options: event names from ringtrace list (the last
 * item of a comma-separated list; after a ':' what follows it, as bash
 * replaces only that), call-graph modes, transports, sort keys, --opt=value;
 * options after a dash. Run in bash with the words a user typed, split as
 * bash splits them (at spaces, ':' and '='). */
static void test_completion_offers_values(void **state)
{
	static const char *const cases[][2] = {
		{ "record --call-graph e", "ehframe ehframe+dwarf" },
		{ "record -e cpu-cl", "cpu-clock" },
		{ "record -e task-clock,cpu-cl", "task-clock,cpu-clock" },
		{ "record -e sched:sched_swi", "sched_switch" },
		{ "record -e cpu-clock,sched:sched_swi", "sched_switch" },
		{ "record --event=task-cl", "task-clock" },
		{ "record --transport p", "perfbuf" },
		{ "report --sort comm,d", "comm,dso" },
		{ "report -s c", "comm cpu cgroup" },
		{ "export -e t", "task-clock" },
		{ "report --chi", "--children" },
	};
	static const char driver[] =
		"source \"$1\"; shift; line=\"ringtrace $*\"; COMP_LINE=$line; COMP_POINT=${#line}\n"
		"split=${line//:/ : }; split=${split//=/ = }; read -ra COMP_WORDS <<< \"$split\"\n"
		"COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); COMP_WORDS[0]=\"$RT\"\n"
		"_ringtrace; echo \"${COMPREPLY[*]}\"\n";
	char *dir = tu_tempdir(), *out = NULL, path[PATH_MAX];
	FILE *f;

	(void)state;
	assert_non_null(dir);
	assert_int_equal(tu_sh(NULL, "%s __completion > %s/ringtrace.bash", tu_ringtrace(), dir), 0);
	/* and clean by shellcheck, where it is installed */
	if (tu_sh(&out, "! command -v shellcheck >/dev/null || shellcheck %s/ringtrace.bash", dir))
		fail_msg("shellcheck of the completion:\n%s", out);
	free(out);
	snprintf(path, sizeof(path), "%s/complete.sh", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(driver, f);
	fclose(f);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(tu_sh(&out, "RT=%s bash %s/complete.sh %s/ringtrace.bash %s",
				       tu_ringtrace(), dir, dir, cases[i][0]),
				 0);
		out[strcspn(out, "\n")] = '\0';
		if (strcmp(out, cases[i][1]))
			fail_msg("completing '%s': '%s', expected '%s'", cases[i][0], out, cases[i][1]);
		free(out);
	}
	tu_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_option_errors),
		cmocka_unit_test(test_every_command_refuses_bad_options),
		cmocka_unit_test(test_every_command_has_help),
		cmocka_unit_test(test_list_filters_as_perf),
		cmocka_unit_test(test_scope_and_event_errors),
		cmocka_unit_test(test_output_directory_is_never_reused_blindly),
		cmocka_unit_test(test_existing_recording_moved_to_old),
		cmocka_unit_test(test_foreign_cpu_file_is_refused),
		cmocka_unit_test(test_crafted_format_is_one_line),
		cmocka_unit_test(test_completion_offers_values),
	};

	tu_set_skip_reason(tu_ringtrace() ? NULL
					  : "RINGTRACE is not set: run through make integration-test");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
