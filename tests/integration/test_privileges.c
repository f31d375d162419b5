/* SPDX-License-Identifier: GPL-2.0-only */
/* test_privileges.c: least privilege and safe files with real runs: a non-root
 * user holding only cap_bpf,cap_perfmon on a copy of the binary records -a and
 * holds no capability once attached; without them, one line saying how to
 * grant them; export keeps none; --keep-caps keeps them; output never goes
 * through a symlink or into someone else's directory; report refuses input
 * that is not a regular file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_util.h"

#define TEST_USER "ringtrace-test"
/* CAP_SYS_PTRACE and CAP_CHECKPOINT_RESTORE: what the thread opening
 * /proc/PID/map_files keeps once the rest dropped every capability. */
#define MAPPING_OPENER_CAPS ((1LL << 19) | (1LL << 40))
/* CAP_SYS_PTRACE alone: what the threads reading other processes' memory
 * during a -g recording keep (user/record/hotspot_reader.c: the layouts of
 * JVMs started during it; user/record/v8_namer.c: Node.js processes'
 * functions' names). */
#define READER_CAPS (1LL << 19)

/* CapEff of every thread of the process whose command line starts with
 * prefix, ORed, read while it runs; -1 if it was not found. */
static long long cap_eff_of(const char *prefix, const char *workload)
{
	char *out = NULL;
	long long eff = -1;

	/* with a workload, once it runs: ringtrace starts it after it has
	 * attached and dropped its capabilities, however long its start took
	 * (the verifier's work, on a sanitized build, seconds) */
	if (!tu_sh(&out, "for i in $(seq 50); do p=$(pgrep -f '^%s' | head -1); [ -n \"$p\" ] && break; sleep 0.1; done; "
			 "w='%s'; for i in $(seq 300); do [ -z \"$w\" ] || pgrep -P $p -x \"$w\" >/dev/null && break; sleep 0.1; done; "
			 "sleep 0.5; cat /proc/$p/task/*/status | awk '/^CapEff/ {print $2}'",
		   prefix, workload ? workload : "")) {
		char *line = out;

		while (line && *line) {
			eff = (eff < 0 ? 0 : eff) | strtoll(line, NULL, 16);
			line = strchr(line, '\n');
			line = line ? line + 1 : NULL;
		}
	}
	free(out);
	return eff;
}

/* A directory everyone may enter, with a copy of ringtrace in it. */
static char *copy_binary(const char *name, bool with_caps)
{
	char *dir = tu_tempdir(), *out = NULL;

	assert_int_equal(tu_sh(&out, "chmod 755 %s && cp %s %s/%s && chmod 755 %s/%s 2>&1", dir,
			       tu_ringtrace(), dir, name, dir, name),
			 0);
	free(out);
	out = NULL;
	if (with_caps)
		assert_int_equal(tu_sh(&out, "setcap cap_bpf,cap_perfmon+ep %s/%s 2>&1", dir, name), 0);
	free(out);
	return dir;
}

static int read_sysctl(const char *name)
{
	char *out = NULL;
	int v;

	assert_int_equal(tu_sh(&out, "cat /proc/sys/kernel/%s", name), 0);
	v = atoi(out);
	free(out);
	return v;
}

/* Without CAP_SYSLOG, /proc/kallsyms hides kernel addresses when
 * kptr_restrict is above 0, or perf_event_paranoid above 1: the recording's
 * warning names the setting that hides them, with its value here. */
static void kallsyms_warning_names_settings(const char *log)
{
	int kptr = read_sysctl("kptr_restrict"), paranoid = read_sysctl("perf_event_paranoid");
	char want[96];

	if (kptr > 0)
		snprintf(want, sizeof(want), "kernel.kptr_restrict=%d", kptr);
	else if (paranoid > 1)
		snprintf(want, sizeof(want), "kernel.perf_event_paranoid=%d", paranoid);
	else
		want[0] = '\0';
	print_message("kptr_restrict %d, perf_event_paranoid %d: the warning names \"%s\"\n", kptr,
		      paranoid, want);
	if (want[0] && (!strstr(log, "hides kernel addresses") || !strstr(log, want)))
		fail_msg("no warning naming %s in:\n%s", want, log);
	if (!want[0] && strstr(log, "hides kernel addresses"))
		fail_msg("a warning though kallsyms shows addresses:\n%s", log);
}

static void test_file_capabilities_are_enough_and_dropped(void **state)
{
	char *dir, *out = NULL, prefix[PATH_MAX + 64];
	long long eff;
	int rc;

	(void)state;
	tu_skip_unless_possible();
	dir = copy_binary("ringtrace", true);
	assert_int_equal(tu_sh(&out, "mkdir %s/out && chown %s %s/out", dir, TEST_USER, dir), 0);
	free(out);
	snprintf(prefix, sizeof(prefix), "%s/ringtrace record", dir);
	assert_int_equal(tu_sh(&out, "runuser -u %s -- %s/ringtrace record -a -g -o %s/out/rec -- sleep 2 > %s/log 2>&1 &",
			       TEST_USER, dir, dir, dir),
			 0);
	free(out);
	eff = cap_eff_of(prefix, "sleep");
	print_message("CapEff of the recording, attached: %llx\n", eff);
	assert_int_equal(eff, 0);
	rc = tu_sh(&out, "while pgrep -f '^%s' >/dev/null; do sleep 0.1; done; cat %s/log; "
			 "runuser -u %s -- %s/ringtrace report %s/out/rec | head -3",
		   prefix, dir, TEST_USER, dir, dir);
	assert_int_equal(rc, 0);
	if (!strstr(out, "ringtrace: recorded") || !strstr(out, "samples, 0 lost"))
		fail_msg("the non-root recording:\n%s", out);
	kallsyms_warning_names_settings(out);
	free(out);
	tu_rmtree(dir);
	free(dir);
}

static void test_missing_capabilities_one_line(void **state)
{
	char *dir, *out = NULL;
	int rc;

	(void)state;
	tu_skip_unless_possible();
	dir = copy_binary("plain", false);
	rc = tu_sh(&out, "cd /tmp && runuser -u %s -- %s/plain record -a -o /tmp/never-%d -- true 2>&1",
		   TEST_USER, dir, (int)getpid());
	tu_print_text(out);
	assert_int_not_equal(rc, 0);
	assert_non_null(strstr(out, "cap_bpf,cap_perfmon"));
	assert_non_null(strstr(out, "setcap cap_bpf,cap_perfmon+ep"));
	assert_ptr_equal(strchr(out, '\n'), out + strlen(out) - 1);
	free(out);
	rc = tu_sh(&out, "runuser -u %s -- %s/plain export 2>&1", TEST_USER, dir);
	assert_int_not_equal(rc, 0);
	assert_non_null(strstr(out, "export needs cap_bpf,cap_perfmon"));
	free(out);
	/* list says why it shows no tracepoints, where root would see them
	 * (tracefs is root's alone, 0700, unless this machine opened it up) */
	rc = tu_sh(&out, "runuser -u %s -- %s/plain list sched_switch 2>&1", TEST_USER, dir);
	tu_print_text(out);
	assert_int_equal(rc, 0);
	if (!strstr(out, "[Tracepoint event]")) {
		assert_non_null(strstr(out, "tracepoints are not listed: "));
		assert_non_null(strstr(out, "keeps user " TEST_USER " out: run as root, or open tracefs to a group"));
	}
	free(out);
	tu_rmtree(dir);
	free(dir);
}

static void test_keep_caps_and_export(void **state)
{
	char *dir = NULL, *out = NULL, prefix[PATH_MAX + 64];
	long long eff;

	(void)state;
	tu_skip_unless_possible();
	dir = tu_tempdir();
	snprintf(prefix, sizeof(prefix), "%s record --keep-caps", tu_ringtrace());
	assert_int_equal(tu_sh(&out, "%s record --keep-caps -a -o %s/rec -- sleep 2 >/dev/null 2>&1 &",
			       tu_ringtrace(), dir),
			 0);
	free(out);
	eff = cap_eff_of(prefix, "sleep");
	print_message("--keep-caps: CapEff %llx\n", eff);
	assert_true(eff > 0);
	assert_int_equal(tu_sh(&out, "while pgrep -f '^%s' >/dev/null; do sleep 0.1; done", prefix), 0);
	free(out);
	snprintf(prefix, sizeof(prefix), "%s export --listen 127.0.0.1:%d", tu_ringtrace(),
		 30000 + (int)(getpid() % 20000));
	assert_int_equal(tu_sh(&out, "%s >/dev/null 2>&1 &", prefix), 0);
	free(out);
	eff = cap_eff_of(prefix, NULL);
	tu_sh(&out, "pkill -TERM -f '^%s'", prefix);
	free(out);
	print_message("export, attached: CapEff %llx\n", eff);
	assert_int_equal(eff, 0);
	tu_rmtree(dir);
	free(dir);
}

/* export -g from a binary with file capabilities, run by a plain user: its
 * sampling child (whose exec clears a parent-death signal set before it)
 * ends with the exporter, even one killed with SIGKILL. */
static void test_profiler_child_ends_with_exporter(void **state)
{
	char *dir, *out = NULL, prefix[PATH_MAX + 64];
	pid_t exporter = 0, child = 0;
	int port = 30000 + (int)((getpid() + 7) % 20000);

	(void)state;
	tu_skip_unless_possible();
	dir = copy_binary("ringtrace", true);
	assert_int_equal(tu_sh(&out, "mkdir %s/run && chown %s %s/run", dir, TEST_USER, dir), 0);
	free(out);
	snprintf(prefix, sizeof(prefix), "%s/ringtrace export", dir);
	assert_int_equal(tu_sh(&out, "RUNTIME_DIRECTORY=%s/run runuser -u %s -- %s --listen 127.0.0.1:%d -g "
				     ">%s/log 2>&1 &", dir, TEST_USER, prefix, port, dir), 0);
	free(out);
	/* the exporter, and its child once started */
	for (int i = 0; i < 100 && !child; i++, usleep(100000)) {
		tu_sh(&out, "pgrep -o -f '^%s'", prefix);
		exporter = out ? atoi(out) : 0;
		free(out);
		out = NULL;
		if (exporter > 0) {
			tu_sh(&out, "pgrep -P %d -f 'ringtrace record'", (int)exporter);
			child = out ? atoi(out) : 0;
			free(out);
			out = NULL;
		}
	}
	if (!child) {
		tu_sh(&out, "pkill -KILL -f '^%s'; cat %s/log", prefix, dir);
		fail_msg("no sampling child of export -g:\n%s", out);
	}
	kill(exporter, SIGKILL);
	assert_true(tu_wait_gone(child, 5));
	print_message("export -g (pid %d) killed: its child %d ended\n", (int)exporter, (int)child);
	tu_rmtree(dir);
	free(dir);
}

/* Output never through a symlink nor into a directory someone else owns;
 * files 0600 in a 0700 directory; report reads regular files only. */
static void test_safe_files(void **state)
{
	char *dir, *out = NULL, path[PATH_MAX + 32];
	struct stat st;
	int rc;

	(void)state;
	tu_skip_unless_possible();
	dir = tu_tempdir();
	/* a planted symlink is not followed, even with --force */
	assert_int_equal(tu_sh(&out, "mkdir %s/target && ln -s %s/target %s/link", dir, dir, dir), 0);
	free(out);
	rc = tu_sh(&out, "%s record --force -a -o %s/link -- true 2>&1", tu_ringtrace(), dir);
	assert_int_not_equal(rc, 0);
	assert_non_null(strstr(out, "not a real directory"));
	free(out);
	/* someone else's directory, even with --force */
	assert_int_equal(tu_sh(&out, "mkdir %s/theirs && chown %s %s/theirs", dir, TEST_USER, dir), 0);
	free(out);
	rc = tu_sh(&out, "%s record --force -a -o %s/theirs -- true 2>&1", tu_ringtrace(), dir);
	assert_int_not_equal(rc, 0);
	assert_non_null(strstr(out, "not a directory owned by you"));
	free(out);
	/* an existing one without --force */
	rc = tu_sh(&out, "%s record -a -o %s/target -- true 2>&1", tu_ringtrace(), dir);
	assert_int_not_equal(rc, 0);
	assert_non_null(strstr(out, "already exists"));
	free(out);
	/* modes */
	assert_int_equal(tu_sh(&out, "%s record -a -o %s/rec -- true 2>&1", tu_ringtrace(), dir), 0);
	free(out);
	snprintf(path, sizeof(path), "%s/rec", dir);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	snprintf(path, sizeof(path), "%s/rec/data", dir);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	/* a FIFO in place of a data file: refused, not read */
	assert_int_equal(tu_sh(&out, "rm %s/rec/data.cpu0 && mkfifo %s/rec/data.cpu0", dir, dir), 0);
	free(out);
	rc = tu_sh(&out, "timeout 10 %s report %s/rec 2>&1", tu_ringtrace(), dir);
	tu_print_text(out);
	assert_int_equal(rc, 1);
	assert_non_null(strstr(out, "data.cpu0"));
	free(out);
	tu_rmtree(dir);
	free(dir);
}

/* Of every thread of the recording whose output is dir/rec (started in the
 * background), once its workload sleep runs: how many run at nice boost,
 * the lowest nice value of them, and their CapEff and CapPrm ORed but for
 * those of the thread opening mapped files (their lines in *openers) and of
 * the two reading processes' memory (*readers). */
static void threads_of(const char *dir, int boost, int *boosted, int *lowest, long long *caps,
		       int *openers, int *readers)
{
	char *out = NULL;

	*openers = 0;
	*readers = 0;
	*boosted = 0;
	*lowest = 20;
	*caps = -1;
	if (tu_sh(&out, "for i in $(seq 50); do p=$(pgrep -f '^%s record .*-o %s/rec' | head -1); "
			"[ -n \"$p\" ] && break; sleep 0.1; done; "
			"for i in $(seq 300); do pgrep -P $p -x sleep >/dev/null && break; sleep 0.1; done; "
			"sleep 0.5; for t in /proc/$p/task/*; do echo \"n $(awk '{print $19}' $t/stat)\"; "
			"awk '/^Cap(Eff|Prm)/ {print \"c\", $2}' $t/status; done",
		  tu_ringtrace(), dir))
		fail_msg("the recording's threads not read: %s", out ? out : "");
	for (char *line = out; line && *line;) {
		if (line[0] == 'n') {
			int nice = atoi(line + 2);

			*boosted += nice == boost;
			*lowest = nice < *lowest ? nice : *lowest;
		} else if (line[0] == 'c') {
			long long c = strtoll(line + 2, NULL, 16);

			/* the thread that opens /proc/PID/map_files keeps those
			 * two (user/sys/mapping_opener.c): counted apart */
			if (c == MAPPING_OPENER_CAPS)
				(*openers)++;
			else if (c == READER_CAPS)
				(*readers)++;
			else
				*caps = (*caps < 0 ? 0 : *caps) | c;
		}
		line = strchr(line, '\n');
		line = line ? line + 1 : NULL;
	}
	free(out);
}

/* -g for a workload: the two threads compiling its tables run 10 below the
 * recording's nice value (they were started with CAP_SYS_NICE, before the
 * drop) and hold no capability, as no other thread does (but the one opening
 * /proc/PID/map_files, which keeps two, and the two reading JVMs and naming
 * JavaScript functions, which keep CAP_SYS_PTRACE); under -a none runs
 * below the recording's own nice value. */
static void test_target_tables_compiled_ahead(void **state)
{
	char *dir = tu_tempdir(), *out = NULL;
	int boosted, lowest, own, boost, openers, readers;
	long long caps;

	(void)state;
	tu_skip_unless_possible();
	errno = 0;
	own = getpriority(PRIO_PROCESS, 0);
	assert_int_equal(errno, 0);
	boost = own - 10 < -20 ? -20 : own - 10;
	for (int system_wide = 0; system_wide <= 1; system_wide++) {
		tu_rmtree(dir);
		free(dir);
		dir = tu_tempdir();
		assert_int_equal(tu_sh(&out, "%s record -g %s -o %s/rec -- sleep 2 > %s/log 2>&1 &",
				       tu_ringtrace(), system_wide ? "-a" : "", dir, dir),
				 0);
		free(out);
		out = NULL;
		threads_of(dir, boost, &boosted, &lowest, &caps, &openers, &readers);
		tu_sh(&out, "while pgrep -f '^%s record .*-o %s/rec' >/dev/null; do sleep 0.1; done",
		      tu_ringtrace(), dir);
		free(out);
		out = NULL;
		print_message("record -g%s: %d threads at nice %d, lowest %d, CapEff|CapPrm %llx "
			      "(but the map_files opener's: %d lines of %llx; the readers': %d "
			      "lines of %llx)\n",
			      system_wide ? " -a" : "", boosted, boost, lowest, caps, openers,
			      MAPPING_OPENER_CAPS, readers, READER_CAPS);
		assert_int_equal(caps, 0);
		/* one thread, its CapEff and CapPrm: those two alone; and one
		 * (-g) reading JVMs and one naming JavaScript functions:
		 * CAP_SYS_PTRACE alone, each its CapEff and CapPrm */
		assert_int_equal(openers, 2);
		assert_int_equal(readers, 4);
		if (system_wide) {
			assert_int_equal(boosted, 0);
			assert_int_equal(lowest, own);
		} else {
			assert_int_equal(boosted, 2);
		}
	}
	tu_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_file_capabilities_are_enough_and_dropped),
		cmocka_unit_test(test_missing_capabilities_one_line),
		cmocka_unit_test(test_keep_caps_and_export),
		cmocka_unit_test(test_profiler_child_ends_with_exporter),
		cmocka_unit_test(test_safe_files),
		cmocka_unit_test(test_target_tables_compiled_ahead),
	};

	const char *why = tu_integration_skip_reason();

	if (!why &&
	    system("id " TEST_USER " >/dev/null 2>&1 || useradd -M -r -s /usr/sbin/nologin " TEST_USER))
		why = "cannot create the test user " TEST_USER " (useradd)";
	if (!why && system("command -v setcap runuser >/dev/null"))
		why = "setcap or runuser is missing (libcap2-bin, util-linux)";
	tu_set_skip_reason(why);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
