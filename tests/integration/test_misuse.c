/* SPDX-License-Identifier: GPL-2.0-only */
/* test_misuse.c: what users and their mistakes cannot do to ringtrace:
 * snapshot a recording that is not a flight recorder, hang snapshot on a FIFO,
 * race two recordings into one directory, keep a directory others can write,
 * leave behind what a failed start created (or move a recording aside for a
 * command that cannot run), redirect the exporter's
 * textfile; usage errors exit 2. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_util.h"

static bool exists(const char *path)
{
	struct stat st;

	return !lstat(path, &st);
}

/* Runs ringtrace with args (a shell fragment) and returns its exit status,
 * its output in *out. */
static int ringtrace(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int ringtrace(char **out, const char *fmt, ...)
{
	char args[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	return tu_sh(out, "%s %s 2>&1 </dev/null", tu_ringtrace(), args);
}

/* A line of output that is one line. */
static void assert_one_line(const char *out)
{
	const char *nl = strchr(out, '\n');

	if (!nl || nl[1])
		fail_msg("want one line, got:\n%s", out);
}

/* snapshot asks only a flight recorder: a plain recording, by pid or by
 * directory, is refused with one line and exit 2; SIGUSR2 sent to it by
 * hand does not end it; it finishes with its totals. */
static void test_snapshot_refuses_a_plain_recording(void **state)
{
	char *dir, *out = NULL, log[4200];
	pid_t pid;
	int rc;

	(void)state;
	tu_skip_unless_possible();
	dir = tu_tempdir();
	snprintf(log, sizeof(log), "%s.log", dir);
	pid = tu_start("exec %s record --force -a -o %s -- sleep 3 >%s 2>&1", tu_ringtrace(), dir,
		       log);
	sleep(1);
	rc = ringtrace(&out, "snapshot %d", (int)pid);
	print_message("snapshot PID: %d %s", rc, out);
	assert_int_equal(rc, 2);
	assert_one_line(out);
	free(out);
	rc = ringtrace(&out, "snapshot %s", dir);
	print_message("snapshot DIR: %d %s", rc, out);
	assert_int_equal(rc, 2);
	assert_one_line(out);
	free(out);
	assert_int_equal(kill(pid, SIGUSR2), 0);
	usleep(300000);
	assert_true(tu_running(pid));
	assert_true(tu_wait_gone(pid, 10));
	assert_int_equal(tu_sh(&out, "cat %s", log), 0);
	if (!strstr(out, "ringtrace: recorded"))
		fail_msg("no totals after SIGUSR2:\n%s", out);
	free(out);
	unlink(log);
	tu_rmtree(dir);
	free(dir);
}

/* snapshot --wait works by pid as by directory. */
static void test_snapshot_wait_by_pid(void **state)
{
	char *dir, *out = NULL, path[4200];
	pid_t pid;
	int rc;

	(void)state;
	tu_skip_unless_possible();
	dir = tu_tempdir();
	pid = tu_start("exec %s record --overwrite --force -a -o %s -- sleep 4 >/dev/null 2>&1",
		       tu_ringtrace(), dir);
	snprintf(path, sizeof(path), "%s/ringtrace.pid", dir);
	for (int i = 0; i < 300 && !exists(path); i++)
		usleep(10000);
	rc = ringtrace(&out, "snapshot --wait %d", (int)pid);
	tu_print_text(out);
	assert_int_equal(rc, 0);
	free(out);
	snprintf(path, sizeof(path), "%s/snapshot-000/accounting", dir);
	assert_true(exists(path));
	rc = ringtrace(&out, "snapshot --wait %s", dir);
	assert_int_equal(rc, 0);
	free(out);
	snprintf(path, sizeof(path), "%s/snapshot-001/accounting", dir);
	assert_true(exists(path));
	assert_true(tu_wait_gone(pid, 15));
	tu_rmtree(dir);
	free(dir);
}

/* A FIFO planted where the pid file goes does not hang snapshot. */
static void test_snapshot_fifo_pid_file(void **state)
{
	char *dir, *out = NULL, fifo[4200];
	int rc;

	(void)state;
	tu_skip_unless_possible();
	dir = tu_tempdir();
	snprintf(fifo, sizeof(fifo), "%s/ringtrace.pid", dir);
	assert_int_equal(mkfifo(fifo, 0666), 0);
	rc = tu_sh(&out, "timeout 5 %s snapshot %s 2>&1", tu_ringtrace(), dir);
	print_message("%d %s", rc, out);
	assert_int_equal(rc, 2); /* not timeout's 124 */
	assert_one_line(out);
	free(out);
	tu_rmtree(dir);
	free(dir);
}

/* Two recordings with --force into one directory: the second is refused
 * with one line and exit 1, the first is not disturbed and exits 0. */
static void test_concurrent_force_is_refused(void **state)
{
	char *dir, *out = NULL, path[4200], status[4200];
	pid_t first;
	int rc;

	(void)state;
	tu_skip_unless_possible();
	dir = tu_tempdir();
	snprintf(status, sizeof(status), "%s.status", dir);
	first = tu_start("sh -c '%s record --force -a -o %s -- sleep 3 >/dev/null 2>&1; echo $? >%s'",
			 tu_ringtrace(), dir, status);
	snprintf(path, sizeof(path), "%s/data", dir);
	for (int i = 0; i < 300 && !exists(path); i++)
		usleep(10000);
	rc = ringtrace(&out, "record --force -a -o %s -- sleep 0.2", dir);
	print_message("second: %d %s", rc, out);
	assert_int_equal(rc, 1);
	assert_non_null(strstr(out, "in use"));
	assert_one_line(out);
	free(out);
	assert_true(tu_wait_gone(first, 15));
	assert_int_equal(tu_sh(&out, "cat %s", status), 0);
	assert_string_equal(out, "0\n");
	free(out);
	unlink(status);
	assert_int_equal(tu_sh(&out, "perf report -i %s --stdio >/dev/null 2>&1", dir), 0);
	free(out);
	tu_rmtree(dir);
	free(dir);
}

/* --force on a directory anyone may write into makes it again, 0700. */
static void test_force_remakes_an_open_directory(void **state)
{
	char *dir, *out = NULL;
	struct stat st;

	(void)state;
	tu_skip_unless_possible();
	dir = tu_tempdir();
	assert_int_equal(chmod(dir, 0777), 0);
	assert_int_equal(ringtrace(&out, "record --force -a -o %s -- sleep 0.2", dir), 0);
	free(out);
	assert_int_equal(stat(dir, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	tu_rmtree(dir);
	free(dir);
}

/* What a recording killed before its header leaves is no obstacle: the
 * next recording reuses the directory without --force. A complete one is
 * kept as DIR.old, as perf keeps perf.data.old. */
static void test_abandoned_directory_is_reused(void **state)
{
	char *dir, *out = NULL, path[4200];
	int rc;

	(void)state;
	tu_skip_unless_possible();
	dir = tu_tempdir();
	for (int c = 0; c < 2; c++) {
		snprintf(path, sizeof(path), "%s/data.cpu%d", dir, c);
		tu_write_file(dir, path + strlen(dir) + 1, "", 0);
	}
	rc = ringtrace(&out, "record -a -o %s -- sleep 0.2", dir);
	assert_int_equal(rc, 0);
	free(out);
	rc = ringtrace(&out, "record -a -o %s -- sleep 0.2", dir);
	print_message("%d %s", rc, out);
	assert_int_equal(rc, 0);
	free(out);
	snprintf(path, sizeof(path), "%s.old/data", dir);
	assert_int_equal(access(path, F_OK), 0);
	snprintf(path, sizeof(path), "%s.old", dir);
	tu_rmtree(path);
	tu_rmtree(dir);
	free(dir);
}

/* A port of 127.0.0.1 held by a listening socket (*fd), so that a recording
 * asked to serve metrics there fails to start. */
static int taken_port(int *fd)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);

	*fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(*fd >= 0);
	assert_int_equal(bind(*fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(*fd, 1), 0);
	assert_int_equal(getsockname(*fd, (struct sockaddr *)&a, &len), 0);
	return ntohs(a.sin_port);
}

/* A start that fails at run time (its metrics port is taken) removes the
 * directory it made; exit 1, one line. */
static void test_failed_start_leaves_nothing(void **state)
{
	char *dir, *out = NULL, path[4200];
	int rc, fd, port;

	(void)state;
	tu_skip_unless_possible();
	dir = tu_tempdir();
	snprintf(path, sizeof(path), "%s/rec", dir);
	port = taken_port(&fd);
	rc = ringtrace(&out, "record -a --metrics 127.0.0.1:%d -o %s -- true", port, path);
	print_message("%d %s", rc, out);
	close(fd);
	assert_int_equal(rc, 1);
	assert_one_line(out);
	assert_false(exists(path));
	free(out);
	tu_rmtree(dir);
	free(dir);
}

/* --force replaces a recording only once the new one starts: one that fails
 * to start (a command that cannot run; a metrics port taken) leaves the old
 * recording's files as they were, byte for byte (report's text would not do:
 * it names kernel addresses by the BPF programs loaded when it runs), and no
 * DIR/.replaced. One that starts leaves its own alone. */
static void test_force_keeps_the_recording_until_the_start(void **state)
{
	char *dir, *before = NULL, *after = NULL, *out = NULL, path[4200];
	int rc, fd, port;

	(void)state;
	tu_skip_unless_possible();
	dir = tu_tempdir();
	snprintf(path, sizeof(path), "%s/.replaced", dir);
	assert_int_equal(ringtrace(&out, "record --force -a -o %s -- sleep 0.2", dir), 0);
	free(out);
	assert_int_equal(tu_sh(&before, "cd %s && sha256sum data data.cpu*", dir), 0);
	rc = ringtrace(&out, "record --force -o %s -- /nonexistent/ringtrace-no-such-command", dir);
	print_message("%d %s", rc, out);
	assert_int_equal(rc, 1);
	assert_one_line(out);
	free(out);
	port = taken_port(&fd);
	rc = ringtrace(&out, "record --force -a --metrics 127.0.0.1:%d -o %s -- true", port, dir);
	close(fd);
	assert_int_equal(rc, 1);
	free(out);
	assert_int_equal(tu_sh(&after, "cd %s && sha256sum data data.cpu*", dir), 0);
	if (strcmp(before, after))
		fail_msg("the recording changed:\nbefore:\n%s\nafter:\n%s", before, after);
	assert_false(exists(path));
	free(after);
	after = NULL;
	assert_int_equal(ringtrace(&out, "record --force -a -o %s -- sleep 0.2", dir), 0);
	free(out);
	assert_false(exists(path));
	assert_int_equal(tu_sh(&after, "cd %s && sha256sum data data.cpu*", dir), 0);
	assert_true(strcmp(before, after) != 0); /* the new one: its own ids, samples */
	free(before);
	free(after);
	tu_rmtree(dir);
	free(dir);
}

/* A command that cannot run (not found, not executable, a directory) is
 * said in one line before anything is made or moved: the recording at -o
 * stays where it is, not moved to .old (perf moves it and leaves a stub). */
static void test_command_that_cannot_run_moves_nothing(void **state)
{
	char *dir, *before = NULL, *after = NULL, *out = NULL, rec[4200], old[4300], plain[4200];
	const char *commands[] = { "/nonexistent/ringtrace-no-such-command",
				   "ringtrace-no-such-command-in-path", plain, "/tmp" };

	(void)state;
	tu_skip_unless_possible();
	dir = tu_tempdir();
	/* a file without x bits */
	snprintf(plain, sizeof(plain), "%s/plain", dir);
	assert_int_equal(tu_sh(&out, "echo true > %s && chmod 0644 %s", plain, plain), 0);
	free(out);
	snprintf(rec, sizeof(rec), "%s/a.data", dir);
	snprintf(old, sizeof(old), "%s.old", rec);
	assert_int_equal(ringtrace(&out, "record -o %s -- sleep 0.1", rec), 0);
	free(out);
	assert_int_equal(tu_sh(&before, "cd %s && sha256sum data data.cpu*", rec), 0);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		int rc = ringtrace(&out, "record -o %s -- %s", rec, commands[i]);

		print_message("%s: %d %s", commands[i], rc, out);
		assert_int_equal(rc, 1);
		assert_one_line(out);
		assert_non_null(strstr(out, "cannot run"));
		free(out);
		assert_false(exists(old));
	}
	assert_int_equal(tu_sh(&after, "cd %s && sha256sum data data.cpu*", rec), 0);
	assert_string_equal(before, after);
	free(before);
	free(after);
	tu_rmtree(dir);
	free(dir);
}

/* export --textfile DIR keeps writing into the directory it opened: DIR
 * swapped for a symlink after the start redirects nothing. */
static void test_textfile_not_redirected(void **state)
{
	char *dir, *other, moved[4200], path[4400];
	pid_t pid;

	(void)state;
	tu_skip_unless_possible();
	dir = tu_tempdir();
	other = tu_tempdir();
	pid = tu_start("exec %s export --textfile %s --interval 1", tu_ringtrace(), dir);
	snprintf(path, sizeof(path), "%s/ringtrace.prom", dir);
	for (int i = 0; i < 500 && !exists(path); i++)
		usleep(10000);
	assert_true(exists(path));
	snprintf(moved, sizeof(moved), "%s.moved", dir);
	assert_int_equal(rename(dir, moved), 0);
	assert_int_equal(symlink(other, dir), 0);
	unlink(path + 0); /* through the link: nothing there */
	snprintf(path, sizeof(path), "%s/ringtrace.prom", moved);
	assert_int_equal(unlink(path), 0);
	for (int i = 0; i < 300 && !exists(path); i++)
		usleep(10000);
	assert_true(exists(path)); /* written again where it was opened */
	snprintf(path, sizeof(path), "%s/ringtrace.prom", other);
	assert_false(exists(path));
	kill(pid, SIGTERM);
	assert_true(tu_wait_gone(pid, 10));
	unlink(dir);
	tu_rmtree(moved);
	tu_rmtree(other);
	free(dir);
	free(other);
}

/* Usage errors: exit 2, one line, nothing created. */
static void test_usage_errors_exit_2(void **state)
{
	static const char *const cases[] = {
		"record -m 1048576 -a -o %s/x -- true",
		"record -C 0-1, -o %s/x -- true",
		"record -F 1x -o %s/x -- true",
		"record -c -5 -o %s/x -- true",
		"export --interval 99999 --textfile %s",
		"export --top -1 --textfile %s",
		"list --nosuch %s",
		"report %s/none --cpu x",
		"snapshot %s",
		"snapshot 1 # %s",
	};
	char *dir, *out = NULL, cmd[4200], path[4200];

	(void)state;
	tu_skip_unless_possible();
	dir = tu_tempdir();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc;

		snprintf(cmd, sizeof(cmd), cases[i], dir);
		rc = ringtrace(&out, "%s", cmd);
		print_message("%s -> %d: %s", cmd, rc, out);
		assert_int_equal(rc, 2);
		assert_one_line(out);
		free(out);
	}
	snprintf(path, sizeof(path), "%s/x", dir);
	assert_false(exists(path));
	tu_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_snapshot_refuses_a_plain_recording),
		cmocka_unit_test(test_snapshot_wait_by_pid),
		cmocka_unit_test(test_snapshot_fifo_pid_file),
		cmocka_unit_test(test_concurrent_force_is_refused),
		cmocka_unit_test(test_force_remakes_an_open_directory),
		cmocka_unit_test(test_abandoned_directory_is_reused),
		cmocka_unit_test(test_failed_start_leaves_nothing),
		cmocka_unit_test(test_force_keeps_the_recording_until_the_start),
		cmocka_unit_test(test_command_that_cannot_run_moves_nothing),
		cmocka_unit_test(test_textfile_not_redirected),
		cmocka_unit_test(test_usage_errors_exit_2),
	};

	tu_set_skip_reason(tu_integration_skip_reason());
	return cmocka_run_group_tests(tests, NULL, tu_stop_left);
}
