/* SPDX-License-Identifier: GPL-2.0-only */
/* test_cli.c: bad command lines and unusable output paths get exactly one
 * error line naming the problem and a non-zero exit, before anything is attached. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
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
	int rc = tu_sh(&out, "%s %s 2>&1", tu_ringtrace(), args);
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
	expect_one_line_error("record -a -F", "needs a value");
	expect_one_line_error("frobnicate", "unknown command \"frobnicate\"");
	expect_one_line_error("report --sort comm,size", "unknown sort key \"size\"");
	expect_one_line_error("report /nonexistent/dir", "/nonexistent/dir");
	expect_one_line_error("report a b", "unexpected argument \"b\"");
}

/* Every command: an unknown option or a missing value is one line naming it
 * and where the help is, exit status 2. */
static void test_every_command_refuses_bad_options(void **state)
{
	static const char *const commands[] = { "record", "report", "script", "export",
						"snapshot", "list" };
	static const char *const missing_value[][2] = {
		{ "record -e", "option -e needs a value: see ringtrace record --help" },
		{ "record --output", "option --output needs a value: see ringtrace record --help" },
		{ "report --sort", "option --sort needs a value: see ringtrace report --help" },
		{ "report --flamegraph", "option --flamegraph needs a value: see ringtrace report --help" },
		{ "script -i", "option -i needs a value: see ringtrace script --help" },
		{ "export --listen", "option --listen needs a value: see ringtrace export --help" },
		{ "export -F", "option -F needs a value: see ringtrace export --help" },
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_option_errors),
		cmocka_unit_test(test_every_command_refuses_bad_options),
		cmocka_unit_test(test_every_command_has_help),
		cmocka_unit_test(test_scope_and_event_errors),
		cmocka_unit_test(test_output_directory_is_never_reused_blindly),
	};

	tu_set_skip_reason(tu_ringtrace() ? NULL
					  : "RINGTRACE is not set: run through make integration-test");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
