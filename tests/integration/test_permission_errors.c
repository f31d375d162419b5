/* SPDX-License-Identifier: GPL-2.0-only */
/* test_permission_errors.c: what a non-root user is told when a permission
 * stops ringtrace, with and without CAP_BPF and CAP_PERFMON on a copy of the
 * binary: one line on stderr naming the cause and the fix, exit 1, no libbpf
 * line; and each fix named, applied, works (tracefs opened to a group, a
 * cgroup opened, CAP_SYSLOG for kallsyms); a probe's binary and another
 * user's recording not readable.
 * Every mount option and sysctl changed is restored by the test's teardown,
 * failed or not. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_util.h"

#define TEST_USER "ringtrace-test"

/* What a test changed, put back by its teardown. */
static struct {
	char *dir;               /* the copies of the binary and the outputs */
	char tracefs[PATH_MAX];  /* tracefs's mount point */
	bool tracefs_changed;    /* remounted: restore mode, uid, gid below */
	unsigned int tracefs_mode, tracefs_uid, tracefs_gid;
	int kptr_restrict;       /* -1: untouched */
	char cgroup[PATH_MAX];   /* made by the test: removed ("" if none) */
} saved = { .kptr_restrict = -1 };

static void restore_tracefs(void)
{
	char *out = NULL;

	if (!saved.tracefs_changed)
		return;
	if (tu_sh(&out, "mount -o remount,mode=%o,uid=%u,gid=%u %s 2>&1", saved.tracefs_mode,
		  saved.tracefs_uid, saved.tracefs_gid, saved.tracefs))
		print_message("tracefs NOT restored (mode %o, uid %u, gid %u): %s\n",
			      saved.tracefs_mode, saved.tracefs_uid, saved.tracefs_gid, out);
	else
		saved.tracefs_changed = false;
	free(out);
}

static int teardown(void **state)
{
	char *out = NULL;

	(void)state;
	restore_tracefs();
	if (saved.kptr_restrict >= 0) {
		tu_sh(&out, "sysctl -q -w kernel.kptr_restrict=%d 2>&1", saved.kptr_restrict);
		free(out);
		out = NULL;
		saved.kptr_restrict = -1;
	}
	if (saved.cgroup[0]) {
		tu_sh(&out, "rmdir %s/inner %s 2>&1", saved.cgroup, saved.cgroup);
		free(out);
		out = NULL;
		saved.cgroup[0] = '\0';
	}
	if (saved.dir) {
		tu_rmtree(saved.dir);
		free(saved.dir);
		saved.dir = NULL;
	}
	return 0;
}

/* A directory everyone may enter, with copies of ringtrace in it: "plain"
 * (no capability), "bpf" (cap_bpf alone), "caps" (cap_bpf,cap_perfmon),
 * "syslog" (and cap_syslog); and "out", the test user's, for recordings. */
static void copies(void)
{
	char *out = NULL, *d;

	d = saved.dir = tu_tempdir();
	if (tu_sh(&out, "chmod 755 %s && for c in plain bpf caps syslog; do cp %s %s/$c && chmod 755 %s/$c || exit 1; done && "
			"setcap cap_bpf+ep %s/bpf && setcap cap_bpf,cap_perfmon+ep %s/caps && "
			"setcap cap_bpf,cap_perfmon,cap_syslog+ep %s/syslog && mkdir %s/out && chown %s %s/out 2>&1",
		  d, tu_ringtrace(), d, d, d, d, d, d, TEST_USER, d))
		fail_msg("copies of ringtrace not made: %s", out);
	free(out);
}

/* Runs "COPY ARGS" as the test user: its stderr alone into *err (stdout
 * dropped), and its exit status. */
static int as_user(char **err, const char *copy, const char *args)
{
	int rc = tu_sh(err, "cd /tmp && runuser -u %s -- %s/%s %s 2>&1 >/dev/null", TEST_USER,
		       saved.dir, copy, args);

	print_message("%s %s: exit %d\n%s", copy, args, rc, *err);
	return rc;
}

/* Exactly one line, holding each of the NULL-terminated strings, and no line
 * of libbpf's. */
static void one_line_with(const char *err, ...)
{
	const char *want;
	va_list ap;

	if (!err[0] || strchr(err, '\n') != err + strlen(err) - 1)
		fail_msg("not one line:\n%s", err);
	if (strstr(err, "libbpf"))
		fail_msg("a libbpf line:\n%s", err);
	va_start(ap, err);
	while ((want = va_arg(ap, const char *)))
		if (!strstr(err, want)) {
			va_end(ap);
			fail_msg("no \"%s\" in:\n%s", want, err);
		}
	va_end(ap);
}

/* The test user's ids as "uid gid". */
static void user_ids(unsigned int *uid, unsigned int *gid)
{
	char *out = NULL;

	assert_int_equal(tu_sh(&out, "echo $(id -u %s) $(id -g %s)", TEST_USER, TEST_USER), 0);
	assert_int_equal(sscanf(out, "%u %u", uid, gid), 2);
	free(out);
}

/* Finds tracefs and makes it root's alone (mode 0700, root's group) for the
 * test, as most machines have it; the teardown puts it back as it was. */
static void tracefs_roots_alone(void)
{
	char *out = NULL;
	struct stat st;

	if (tu_sh(&out, "awk '$3 == \"tracefs\" { print $2; exit }' /proc/mounts") || !out[0])
		tu_skip("no tracefs mounted");
	out[strcspn(out, "\n")] = '\0';
	snprintf(saved.tracefs, sizeof(saved.tracefs), "%s", out);
	free(out);
	out = NULL;
	assert_int_equal(stat(saved.tracefs, &st), 0);
	saved.tracefs_mode = st.st_mode & 07777;
	saved.tracefs_uid = st.st_uid;
	saved.tracefs_gid = st.st_gid;
	print_message("tracefs at %s: mode %o, uid %u, gid %u\n", saved.tracefs,
		      saved.tracefs_mode, saved.tracefs_uid, saved.tracefs_gid);
	if (saved.tracefs_mode == 0700 && !saved.tracefs_uid && !saved.tracefs_gid)
		return;
	saved.tracefs_changed = true;
	if (tu_sh(&out, "mount -o remount,mode=700,uid=0,gid=0 %s 2>&1", saved.tracefs))
		fail_msg("tracefs not remounted 0700: %s", out);
	free(out);
}

/* trace --summary attaches raw_syscalls' tracepoints through BTF: the two
 * capabilities are enough, tracefs root's or not; without them, or with one,
 * one line naming the missing ones and the setcap line. */
static void test_trace_summary(void **state)
{
	char *err = NULL, grant[PATH_MAX + 64], args[PATH_MAX + 64];

	(void)state;
	tu_skip_unless_possible();
	copies();
	tracefs_roots_alone();
	assert_int_equal(as_user(&err, "caps", "trace --summary -- true"), 0);
	assert_string_equal(err, "");
	free(err);
	snprintf(grant, sizeof(grant), "setcap cap_bpf,cap_perfmon+ep %s/plain", saved.dir);
	assert_int_equal(as_user(&err, "plain", "trace --summary -- true"), 1);
	one_line_with(err, "trace needs cap_bpf,cap_perfmon", "run it as root", grant, NULL);
	free(err);
	snprintf(grant, sizeof(grant), "setcap cap_bpf,cap_perfmon+ep %s/bpf", saved.dir);
	assert_int_equal(as_user(&err, "bpf", "trace --summary -- true"), 1);
	one_line_with(err, "trace needs cap_perfmon:", grant, NULL);
	free(err);
	/* record the same */
	snprintf(args, sizeof(args), "record -a -o %s/out/never -- true", saved.dir);
	assert_int_equal(as_user(&err, "bpf", args), 1);
	one_line_with(err, "record needs cap_perfmon:", grant, NULL);
	free(err);
}

/* Tracepoints need tracefs: as it is on most machines, root's alone, one
 * line naming it, its mode and the remount that opens it to a group; exit 1
 * (an unknown tracepoint, as root, stays a usage error: 2). The remount, done,
 * lets the user with the two capabilities record the tracepoint. */
static void test_tracepoint_tracefs(void **state)
{
	char *err = NULL, *out = NULL, args[PATH_MAX + 128], where[PATH_MAX + 64];
	const char *copy[] = { "caps", "plain" };
	unsigned int uid, gid;

	(void)state;
	tu_skip_unless_possible();
	copies();
	tracefs_roots_alone();
	snprintf(where, sizeof(where), "%s (mode 0700, owner root", saved.tracefs);
	for (int i = 0; i < 2; i++) {
		snprintf(args, sizeof(args), "record -e sched:sched_switch -o %s/out/tp -- true",
			 saved.dir);
		assert_int_equal(as_user(&err, copy[i], args), 1);
		one_line_with(err, "cannot read tracepoint sched:sched_switch", where,
			      "keeps user " TEST_USER " out", "run as root",
			      "mount -o remount,mode=750,gid=GROUP", NULL);
		free(err);
		snprintf(args, sizeof(args), "record -e 'sched:sched_sw*' -o %s/out/tp -- true",
			 saved.dir);
		assert_int_equal(as_user(&err, copy[i], args), 1);
		one_line_with(err, "cannot list the tracepoints for \"sched:sched_sw*\"", where,
			      "mount -o remount,mode=750,gid=GROUP", NULL);
		free(err);
	}
	assert_int_equal(tu_sh(&out, "%s record -e sched:no_such_event -o %s/never -- true 2>&1",
			       tu_ringtrace(), saved.dir),
			 2);
	assert_non_null(strstr(out, "unknown tracepoint sched:no_such_event"));
	free(out);
	out = NULL;
	/* the fix, as the line says it, with the test user's group */
	user_ids(&uid, &gid);
	saved.tracefs_changed = true;
	assert_int_equal(tu_sh(&out, "mount -o remount,mode=750,gid=%u %s 2>&1", gid, saved.tracefs), 0);
	free(out);
	out = NULL;
	snprintf(args, sizeof(args), "record -e sched:sched_switch -o %s/out/tp -- sleep 0.2",
		 saved.dir);
	assert_int_equal(as_user(&err, "caps", args), 0);
	free(err);
	restore_tracefs();
	/* its samples: the sleep switched out at least once */
	assert_int_equal(tu_sh(&out, "%s script -i %s/out/tp | grep -c 'sched:sched_switch:'",
			       tu_ringtrace(), saved.dir),
			 0);
	print_message("sched_switch samples of the user's recording: %s", out);
	assert_true(atoi(out) >= 1);
	free(out);
}

/* -G on a cgroup the user may not enter or read: one line naming the
 * directory that keeps it out and how to let it in, exit 1; one that does not
 * exist stays a usage error (2); let in, the recording runs. */
static void test_cgroup_not_readable(void **state)
{
	char *err = NULL, *out = NULL, args[PATH_MAX + 128], where[PATH_MAX + 64];
	const char *root = tu_cgroup2_root();

	(void)state;
	tu_skip_unless_possible();
	copies();
	snprintf(saved.cgroup, sizeof(saved.cgroup), "%s/rt-perm-%d", root, (int)getpid());
	if (tu_sh(&out, "mkdir -p %s/inner && chmod 700 %s 2>&1", saved.cgroup, saved.cgroup)) {
		saved.cgroup[0] = '\0';
		tu_skip("cannot make a cgroup under %s: %s", root, out);
	}
	free(out);
	out = NULL;
	snprintf(where, sizeof(where), "%s (mode 0700, owner root", saved.cgroup);
	for (int inner = 0; inner <= 1; inner++) {
		snprintf(args, sizeof(args), "record -a -G %s%s -o %s/out/cg -- true",
			 saved.cgroup + strlen(root) + 1, inner ? "/inner" : "", saved.dir);
		assert_int_equal(as_user(&err, "caps", args), 1);
		one_line_with(err, "cannot read cgroup", where, "keeps user " TEST_USER " out",
			      "run as root", "chmod o+rx", NULL);
		free(err);
	}
	snprintf(args, sizeof(args), "record -a -G rt-perm-none-%d -o %s/out/cg -- true",
		 (int)getpid(), saved.dir);
	assert_int_equal(as_user(&err, "caps", args), 2);
	one_line_with(err, "not found", NULL);
	free(err);
	/* the fix */
	assert_int_equal(tu_sh(&out, "chmod o+rx %s", saved.cgroup), 0);
	free(out);
	snprintf(args, sizeof(args), "record -a -G %s/inner -o %s/out/cg -- true",
		 saved.cgroup + strlen(root) + 1, saved.dir);
	assert_int_equal(as_user(&err, "caps", args), 0);
	free(err);
}

/* kernel.kptr_restrict=1 hides kallsyms from a user without CAP_SYSLOG (and
 * not from root, whose other tests run beside this one): the recording goes
 * on with kernel frames [unknown] (exit 0), and one line names the setting
 * and the fixes; a copy with cap_syslog as well sees them. */
static void test_kallsyms_hidden(void **state)
{
	char *err = NULL, *out = NULL, args[PATH_MAX + 128], *line;

	(void)state;
	tu_skip_unless_possible();
	copies();
	assert_int_equal(tu_sh(&out, "cat /proc/sys/kernel/kptr_restrict"), 0);
	saved.kptr_restrict = atoi(out);
	free(out);
	out = NULL;
	if (saved.kptr_restrict >= 2)
		tu_skip("kernel.kptr_restrict is %d: root's tests need 1 at most", saved.kptr_restrict);
	assert_int_equal(tu_sh(&out, "sysctl -q -w kernel.kptr_restrict=1 2>&1"), 0);
	free(out);
	snprintf(args, sizeof(args), "record -a -o %s/out/k1 -- true", saved.dir);
	assert_int_equal(as_user(&err, "caps", args), 0);
	/* of its lines (the summary, and on a busy machine maybe the kernel's
	 * skips of the sampler), one says kernel addresses are hidden */
	assert_null(strstr(err, "libbpf"));
	line = strstr(err, "hides kernel addresses");
	assert_non_null(line);
	assert_null(strstr(line + 1, "hides kernel addresses"));
	while (line > err && line[-1] != '\n')
		line--;
	if (line[strcspn(line, "\n")])
		line[strcspn(line, "\n") + 1] = '\0';
	one_line_with(line, "/proc/kallsyms hides kernel addresses", "kernel.kptr_restrict=1",
		      "run as root", "setcap cap_bpf,cap_perfmon,cap_syslog+ep",
		      "kernel frames will show as [unknown]", NULL);
	free(err);
	snprintf(args, sizeof(args), "record -a -o %s/out/k2 -- true", saved.dir);
	assert_int_equal(as_user(&err, "syslog", args), 0);
	if (strstr(err, "kallsyms"))
		fail_msg("with cap_syslog, still hidden:\n%s", err);
	free(err);
	/* with CAP_SYSLOG the copy reads addresses the kernel hides from the
	 * user: report keeps no table of them in a directory of the user's */
	snprintf(args, sizeof(args), "report -i %s/out/k2 --stdio --kallsyms-cache %s/out/kcache",
		 saved.dir, saved.dir);
	assert_int_equal(as_user(&err, "syslog", args), 0);
	assert_non_null(strstr(err, "--kallsyms-cache"));
	assert_non_null(strstr(err, "a user other than root keeps kernel addresses only where"));
	free(err);
	assert_int_equal(tu_sh(&out, "test -e %s/out/kcache", saved.dir) != 0, 1);
	free(out);
}

/* A probe's binary the user may not read: one line naming it and whose it
 * is, exit 1. */
static void test_probe_binary_not_readable(void **state)
{
	char *err = NULL, *out = NULL, args[PATH_MAX + 128], where[PATH_MAX + 64];

	(void)state;
	tu_skip_unless_possible();
	copies();
	assert_int_equal(tu_sh(&out, "cp /bin/true %s/private && chmod 700 %s/private", saved.dir,
			       saved.dir),
			 0);
	free(out);
	snprintf(where, sizeof(where), "%s/private (mode 0700, owner root", saved.dir);
	snprintf(args, sizeof(args), "record -e uprobe:%s/private:main -o %s/out/u -- true",
		 saved.dir, saved.dir);
	assert_int_equal(as_user(&err, "caps", args), 1);
	one_line_with(err, "probe binary", where, "keeps user " TEST_USER " out", "run as root",
		      NULL);
	free(err);
}

/* Someone else's recording (root's, 0700): report and script say whose it is
 * and whom to read it as, exit 1. */
static void test_recording_of_another_user(void **state)
{
	char *err = NULL, *out = NULL, args[PATH_MAX + 64], where[PATH_MAX + 64];
	const char *command[] = { "report", "script" };

	(void)state;
	tu_skip_unless_possible();
	copies();
	assert_int_equal(tu_sh(&out, "%s record -a -o %s/roots -- true 2>&1", tu_ringtrace(),
			       saved.dir),
			 0);
	free(out);
	snprintf(where, sizeof(where), "%s/roots (mode 0700, owner root", saved.dir);
	for (int i = 0; i < 2; i++) {
		snprintf(args, sizeof(args), "%s -i %s/roots", command[i], saved.dir);
		assert_int_equal(as_user(&err, "plain", args), 1);
		one_line_with(err, "cannot open", where, "keeps user " TEST_USER " out",
			      "read it as its owner or as root", NULL);
		free(err);
	}
}

/* libbpf's own messages: none without -vv, and -vv shows them. */
static void test_libbpf_only_at_vv(void **state)
{
	char *out = NULL;

	(void)state;
	tu_skip_unless_possible();
	copies();
	assert_int_equal(tu_sh(&out, "%s record -a -o %s/q -- true 2>&1", tu_ringtrace(), saved.dir), 0);
	assert_null(strstr(out, "libbpf"));
	free(out);
	assert_int_equal(tu_sh(&out, "%s record -vv -a -o %s/vv -- true 2>&1 | grep -c '^libbpf: '",
			       tu_ringtrace(), saved.dir),
			 0);
	print_message("-vv: %d libbpf lines\n", atoi(out));
	assert_true(atoi(out) > 0);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_trace_summary, teardown),
		cmocka_unit_test_teardown(test_tracepoint_tracefs, teardown),
		cmocka_unit_test_teardown(test_cgroup_not_readable, teardown),
		cmocka_unit_test_teardown(test_kallsyms_hidden, teardown),
		cmocka_unit_test_teardown(test_probe_binary_not_readable, teardown),
		cmocka_unit_test_teardown(test_recording_of_another_user, teardown),
		cmocka_unit_test_teardown(test_libbpf_only_at_vv, teardown),
	};
	const char *why = tu_integration_skip_reason();

	if (!why &&
	    system("id " TEST_USER " >/dev/null 2>&1 || useradd -M -r -s /usr/sbin/nologin " TEST_USER))
		why = "cannot create the test user " TEST_USER " (useradd)";
	if (!why && system("command -v setcap runuser sysctl >/dev/null"))
		why = "setcap, runuser or sysctl is missing (libcap2-bin, util-linux, procps)";
	tu_set_skip_reason(why);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
