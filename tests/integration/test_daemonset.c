/* SPDX-License-Identifier: GPL-2.0-only */
/* test_daemonset.c: ringtrace export run as deploy/kubernetes's DaemonSet
 * runs it, read from the manifest itself (tests/integration/daemonset_pod.py:
 * its namespaces, mounts, capabilities, security context and args), serves
 * profiles that name another user's process started after it (its comm), hold
 * its whole user stack with its functions' names, and name kernel functions.
 * RINGTRACE_MANIFEST runs it against another copy of the manifest. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_util.h"

/* The unprivileged user the workloads run as (a container's user). */
#define WORKLOAD_UID 65534
/* CapEff bits the sampling child may keep: CAP_DAC_READ_SEARCH (2) and
 * CAP_SYS_PTRACE (19). */
#define READ_CAPS ((1ULL << 2) | (1ULL << 19))

/* What the test started, stopped by its teardown whatever failed. */
static pid_t pod, workload, kernel_workload;
static char workdir[PATH_MAX];

static void stop_pid(pid_t *pid, int sig)
{
	if (*pid <= 0)
		return;
	kill(*pid, sig);
	if (!tu_wait_gone(*pid, 10))
		kill(*pid, SIGKILL);
	waitpid(*pid, NULL, 0);
	*pid = 0;
}

/* The exporter: the pod's process itself (hostPID: unshare execs it), or
 * the child of unshare --fork. */
static pid_t exporter_of(pid_t p)
{
	char *out = NULL;
	pid_t e = p;

	if (!tu_sh(&out, "cat /proc/%d/comm", (int)p) && strcmp(out, "ringtrace\n")) {
		free(out);
		out = NULL;
		e = tu_sh(&out, "pgrep -x -P %d ringtrace", (int)p) ? 0 : (pid_t)atoi(out);
	}
	free(out);
	return e;
}

static int stop_all(void **state)
{
	pid_t e = pod > 0 ? exporter_of(pod) : 0;

	(void)state;
	stop_pid(&workload, SIGKILL);
	stop_pid(&kernel_workload, SIGKILL);
	if (e > 0 && e != pod) {
		kill(e, SIGTERM);
		tu_wait_gone(e, 10);
	}
	stop_pid(&pod, SIGTERM);
	if (workdir[0]) {
		tu_sh(NULL, "umount -l %s/root 2>/dev/null", workdir);
		tu_rmtree(workdir);
		workdir[0] = '\0';
	}
	return 0;
}

/* CapEff of every thread of pid, ORed. */
static unsigned long long cap_eff(pid_t pid)
{
	char *out = NULL;
	unsigned long long eff = 0;

	if (tu_sh(&out, "cat /proc/%d/task/*/status | awk '/^CapEff/ {print $2}'", (int)pid) == 0)
		for (char *l = strtok(out, "\n"); l; l = strtok(NULL, "\n"))
			eff |= strtoull(l, NULL, 16);
	free(out);
	return eff;
}

/* The counts of one profile (go tool pprof -raw's text in dir/raw.txt): of
 * pid's samples, how many have no comm (":PID"), are named unwindgen, hold
 * main;uw_a;uw_b;uw_c, and of kernel_pid's, how many hold vfs_read (a kernel
 * frame named). */
struct counts {
	int total, unnamed, named, chain, kernel_total, kernel_named;
};

/* Whether frame is one of stack's functions other than its first (the root). */
static bool below_root(const char *stack, const char *frame)
{
	size_t len = strlen(frame);

	for (const char *at = strchr(stack, ';'); at; at = strchr(at + 1, ';'))
		if (!strncmp(at + 1, frame, len) && (at[1 + len] == ';' || !at[1 + len]))
			return true;
	return false;
}

static void count(const char *dir, pid_t pid, pid_t kernel_pid, struct counts *c)
{
	struct tu_raw_profile p;
	char *raw = NULL, pid_text[16], kernel_pid_text[16];

	assert_int_equal(tu_sh(&raw, "cat %s/raw.txt", dir), 0);
	snprintf(pid_text, sizeof(pid_text), "%d", (int)pid);
	snprintf(kernel_pid_text, sizeof(kernel_pid_text), "%d", (int)kernel_pid);
	memset(c, 0, sizeof(*c));
	tu_raw_parse(raw, &p);
	for (size_t i = 0; i < p.nr; i++) {
		const struct tu_raw_sample *s = &p.samples[i];
		int n = (int)s->count;

		if (tu_raw_label(s, "pid", pid_text)) {
			c->total += n;
			c->unnamed += strstr(s->labels, "comm:[:") ? n : 0;
			c->named += tu_raw_label(s, "comm", "unwindgen") ? n : 0;
			c->chain += strstr(s->stack, "main;uw_a;uw_b;uw_c") ? n : 0;
		}
		if (tu_raw_label(s, "pid", kernel_pid_text)) {
			c->kernel_total += n;
			c->kernel_named += below_root(s->stack, "vfs_read") ? n : 0;
		}
	}
	tu_raw_free(&p);
	free(raw);
}

static void test_daemonset_profiles(void **state)
{
	const char *manifest = getenv("RINGTRACE_MANIFEST"), *src = getenv("RINGTRACE_SRC");
	char *dir = tu_tempdir(), path[PATH_MAX], *out = NULL;
	int port = tu_free_port(), ready = 0;
	struct counts c = { 0 };
	unsigned long long eff;
	pid_t exporter, child;

	(void)state;
	tu_skip_unless_possible();
	if (!src || !*src)
		tu_skip("RINGTRACE_SRC is not set: run the test through make (make check)");
	if (!manifest || !*manifest) {
		snprintf(path, sizeof(path), "%s/deploy/kubernetes/ringtrace-exporter.yaml", src);
		manifest = path;
	}
	snprintf(workdir, sizeof(workdir), "%s", dir);
	/* (the workload's user passes through it to its own directory) */
	assert_int_equal(chmod(dir, 0711), 0);
	print_message("the DaemonSet of %s\n", manifest);
	/* the pod, as the manifest says */
	pod = tu_start("exec /usr/bin/python3 %s/tests/integration/daemonset_pod.py %s %s %s %d "
		       ">%s/pod.log 2>&1",
		       src, manifest, tu_ringtrace(), dir, port, dir);
	for (int i = 0; i < 60 && !ready; i++) {
		sleep(1);
		ready = !tu_sh(NULL, "nsenter --net=/proc/%d/ns/net curl -sf -o /dev/null --max-time 20 "
				     "'http://127.0.0.1:%d/debug/pprof/profile?seconds=1'",
			       (int)pod, port);
	}
	if (!ready) {
		tu_sh(&out, "cat %s/pod.log", dir);
		tu_print_text(out);
		fail_msg("the DaemonSet's exporter served no profile within 60 s");
	}
	exporter = exporter_of(pod);
	assert_true(exporter > 0);
	assert_int_equal(tu_sh(&out, "pgrep -x -P %d ringtrace", (int)exporter), 0);
	child = (pid_t)atoi(out);
	free(out);
	/* attached: the exporter holds no capability, its child at most the
	 * two that read other processes' files */
	eff = cap_eff(exporter);
	print_message("CapEff: exporter %llx, sampling child %llx\n", eff, cap_eff(child));
	assert_true(eff == 0);
	assert_true((cap_eff(child) & ~READ_CAPS) == 0);
	/* a container's program: another user's, started after the exporter,
	 * in a directory only that user may read, built without frame pointers
	 * (its stack unwound from its .eh_frame, read from its file) */
	assert_int_equal(tu_sh(NULL, "mkdir %s/app && cp %s/unwindgen %s/app/ && chown -R %d:%d %s/app && "
				     "chmod 0700 %s/app %s/app/unwindgen",
			       dir, tu_symgen_dir(), dir, WORKLOAD_UID, WORKLOAD_UID, dir, dir, dir),
			 0);
	workload = tu_start("exec setpriv --reuid=%d --regid=%d --clear-groups %s/app/unwindgen chain 60",
			    WORKLOAD_UID, WORKLOAD_UID, dir);
	/* and one that spends its time in the kernel, in read(2) */
	kernel_workload = tu_start("exec setpriv --reuid=%d --regid=%d --clear-groups "
				   "dd if=/dev/zero of=/dev/null bs=64k count=100000000",
				   WORKLOAD_UID, WORKLOAD_UID);
	/* again (3 times at most) while under 80% are unwound: the new file's
	 * table is compiled in its first instants */
	/* (-timeout=60: go tool pprof waits 1.5 times seconds= for the answer
	 * by default, and a profile made under the sanitizers beside a busy
	 * machine's CI took longer) */
	for (int attempt = 1; attempt <= 3; attempt++) {
		sleep(1);
		if (tu_sh(&out, "cd %s && nsenter --net=/proc/%d/ns/net env HOME=%s go tool pprof -timeout=60 -raw "
				"'http://127.0.0.1:%d/debug/pprof/profile?seconds=4' >raw.txt 2>&1",
			  dir, (int)pod, dir, port)) {
			free(out);
			tu_sh(&out, "head -c 2000 %s/raw.txt; cat %s/pod.log", dir, dir);
			tu_print_text(out);
			fail_msg("go tool pprof could not read the DaemonSet's profile");
		}
		free(out);
		out = NULL;
		count(dir, workload, kernel_workload, &c);
		print_message("unwindgen (pid %d, uid %d): %d samples, %d without a comm, %d named "
			      "unwindgen, %d main;uw_a;uw_b;uw_c; dd: %d samples, %d with vfs_read\n",
			      (int)workload, WORKLOAD_UID, c.total, c.unnamed, c.named, c.chain,
			      c.kernel_total, c.kernel_named);
		if (c.total >= 10 && c.chain * 10 >= c.total * 8)
			break;
	}
	if (c.total < 10 || c.kernel_total < 10) {
		tu_sh(&out, "head -c 3000 %s/raw.txt; cat %s/pod.log", dir, dir);
		tu_print_text(out);
		fail_msg("the profile holds too few samples of the workloads to tell");
	}
	/* the comm from the kernel's side-band, as the sampler's pids name it
	 * (but a sample of the instant before the exec, setpriv's) */
	assert_int_equal(c.unnamed, 0);
	assert_true(c.named * 10 >= c.total * 8);
	/* the whole stack, named: the file read through the process's root */
	assert_true(c.chain * 10 >= c.total * 8);
	/* kernel functions named: kallsyms read with its addresses */
	assert_true(c.kernel_named * 2 >= c.kernel_total);
	stop_all(NULL);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_daemonset_profiles, stop_all),
	};
	const char *why = tu_integration_skip_reason();

	if (!why && system("command -v unshare nsenter setpriv chroot curl go >/dev/null && "
			   "/usr/bin/python3 -c 'import yaml' 2>/dev/null"))
		why = "unshare, nsenter, setpriv, chroot, curl, go or Debian's python3-yaml is missing "
		      "(make test-deps installs them)";
	tu_set_skip_reason(why);
	return cmocka_run_group_tests(tests, NULL, tu_stop_left);
}
