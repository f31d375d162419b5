/* SPDX-License-Identifier: GPL-2.0-only */
/* test_sideband_scope.c: what a recording of a command or a process holds of
 * the machine: its own side-band, record for record as perf's, and nothing of
 * the processes beside it, whatever their number. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_util.h"

/* The command both recordings run: a fork and exec of each of three
 * programs, one of them sleeping while the machine beside it churns. */
#define COMMAND "sh -c '/bin/true; sleep 0.3; ls / >/dev/null'"

/* Starts sh -c script in a process group of its own. */
static pid_t spawn_group(const char *script)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (!pid) {
		setpgid(0, 0);
		execl("/bin/sh", "sh", "-c", script, (char *)NULL);
		_exit(127);
	}
	setpgid(pid, pid);
	return pid;
}

static void end_group(pid_t pid)
{
	kill(-pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* The side-band records of a recording as perf script shows them, their pids
 * and addresses left out ("PERF_RECORD_MMAP2 N/N: : r-xp /usr/bin/ls"),
 * without the kernel's mapping and the COMM of the command before its exec
 * (perf names it perf-exec, ringtrace its own name). */
static char *sideband_text(const char *input)
{
	char *out = NULL;

	assert_int_equal(tu_sh(&out,
			       "perf script -i %s --show-task-events --show-mmap-events 2>/dev/null | "
			       "grep -o 'PERF_RECORD_.*' | grep -v 'kernel.kallsyms\\|^PERF_RECORD_COMM:' | "
			       "sed -E 's/\\[[^]]*\\]//; s/[0-9]+/N/g'",
			       input),
			 0);
	return out;
}

static size_t lines_of(const char *text)
{
	size_t n = 0;

	for (const char *p = text; *p; p++)
		n += *p == '\n';
	return n;
}

/* `record -- CMD` beside a machine forking and exec'ing all the time: the
 * command's COMM, MMAP2, FORK and EXIT records, each as perf's recording of
 * the same command has it and in its order, and none of the others'. */
static void test_command_sideband_as_perf(void **state)
{
	char *dir = tu_tempdir(), *out = NULL, *ours, *perfs;
	pid_t churn;
	int rc;

	(void)state;
	tu_skip_unless_possible();
	churn = spawn_group("while :; do /bin/true; done");
	rc = tu_sh(&out, "%s record --force -o %s/rec -- " COMMAND " 2>&1", tu_ringtrace(), dir);
	if (rc) {
		end_group(churn);
		fail_msg("record: exit %d:\n%s", rc, out);
	}
	free(out);
	rc = tu_sh(&out, "perf record -q -e cpu-clock -o %s/perf.data -- " COMMAND " 2>&1", dir);
	end_group(churn);
	if (rc)
		fail_msg("perf record: exit %d:\n%s", rc, out);
	free(out);
	assert_true(asprintf(&out, "%s/rec", dir) > 0);
	ours = sideband_text(out);
	free(out);
	assert_true(asprintf(&out, "%s/perf.data", dir) > 0);
	perfs = sideband_text(out);
	free(out);
	print_message("ours (%zu records):\n%sperf's (%zu):\n%s", lines_of(ours), ours,
		      lines_of(perfs), perfs);
	/* sh, then true, sleep and ls forked, exec'd, mapped and ended */
	assert_true(lines_of(perfs) >= 16);
	assert_non_null(strstr(perfs, "PERF_RECORD_COMM exec: ls:N/N"));
	assert_string_equal(ours, perfs);
	free(ours);
	free(perfs);
	tu_rmtree(dir);
	free(dir);
}

/* Bytes and files of a recording directory. */
static void directory_size(const char *path, off_t *bytes, unsigned int *files)
{
	DIR *d = opendir(path);
	struct dirent *e;

	assert_non_null(d);
	*bytes = 0;
	*files = 0;
	while ((e = readdir(d))) {
		char p[PATH_MAX * 2];
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", path, e->d_name);
		assert_int_equal(lstat(p, &st), 0);
		if (S_ISDIR(st.st_mode)) {
			off_t b;
			unsigned int f;

			directory_size(p, &b, &f);
			*bytes += b;
			*files += f;
			continue;
		}
		*bytes += st.st_size;
		(*files)++;
	}
	closedir(d);
}

/* The header of `record -- true` (where the side-band synthesized at the
 * start goes) and its directory: the same with 200 more processes on the
 * machine as without them. */
static void test_command_recording_ignores_the_machine(void **state)
{
	char *dir = tu_tempdir(), *out = NULL, path[PATH_MAX + 16];
	off_t bytes[2];
	unsigned int files[2];
	struct stat header[2];
	pid_t crowd = 0;

	(void)state;
	tu_skip_unless_possible();
	for (int run = 0; run < 2; run++) {
		if (run) {
			crowd = spawn_group("for i in $(seq 200); do sleep 60 & done; wait");
			/* all 200 running */
			for (int i = 0; i < 100; i++) {
				free(out);
				out = NULL;
				tu_sh(&out, "pgrep -g %d -c sleep", (int)crowd);
				if (atoi(out) >= 200)
					break;
				usleep(50000);
			}
		}
		free(out);
		snprintf(path, sizeof(path), "%s/rec%d", dir, run);
		if (tu_sh(&out, "%s record --force -o %s -- true 2>&1", tu_ringtrace(), path)) {
			if (crowd)
				end_group(crowd);
			fail_msg("record: %s", out);
		}
		free(out);
		out = NULL;
		directory_size(path, &bytes[run], &files[run]);
		snprintf(path + strlen(path), sizeof(path) - strlen(path), "/data");
		assert_int_equal(stat(path, &header[run]), 0);
	}
	end_group(crowd);
	print_message("alone: header %lld bytes, %u files, %lld bytes; beside 200 processes: "
		      "header %lld bytes, %u files, %lld bytes\n",
		      (long long)header[0].st_size, files[0], (long long)bytes[0],
		      (long long)header[1].st_size, files[1], (long long)bytes[1]);
	assert_int_equal(header[1].st_size, header[0].st_size);
	assert_int_equal(files[1], files[0]);
	tu_rmtree(dir);
	free(dir);
}

/* perf script's side-band lines of DIR/rec, the kernel's mapping left out. */
static char *sideband_records(const char *dir)
{
	char *out = NULL;

	assert_int_equal(tu_sh(&out,
			       "perf script -i %s/rec --show-task-events --show-mmap-events 2>/dev/null | "
			       "grep 'PERF_RECORD_' | grep -v kernel.kallsyms",
			       dir),
			 0);
	return out;
}

/* The pid and comm of a perf script side-band line ("  comm PID [CPU] TIME: ..."). */
static int line_pid(const char *line, char comm[64])
{
	int pid;

	return sscanf(line, "%63s %d", comm, &pid) == 2 ? pid : -1;
}

/* `record -p PID` beside other processes forking: every side-band record
 * is of PID or of what it forked (as perf's inherited per-task events), or
 * of a child it forked after ringtrace started and before the side-band
 * began (followed from /proc: its records have no FORK before them), which
 * only the target's children are named: sleep. */
static void test_pid_sideband_of_its_processes(void **state)
{
	char *dir = tu_tempdir(), *out = NULL, *line, *save = NULL;
	int known[256], nr_known = 0, records = 0, forks = 0;
	pid_t churn, target;
	int rc;

	(void)state;
	tu_skip_unless_possible();
	churn = spawn_group("while :; do /bin/true; done");
	target = spawn_group("while :; do sleep 0.05; done");
	rc = tu_sh(&out, "%s record --force -o %s/rec -p %d -- sleep 1 2>&1", tu_ringtrace(), dir,
		   (int)target);
	end_group(churn);
	end_group(target);
	if (rc)
		fail_msg("record: exit %d:\n%s", rc, out);
	free(out);
	out = sideband_records(dir);
	known[nr_known++] = (int)target;
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *fork = strstr(line, "PERF_RECORD_FORK("),
			   *exit = strstr(line, "PERF_RECORD_EXIT(");
		char comm[64] = "";
		int pid = line_pid(line, comm), child, ctid, parent, ptid;
		bool ok = !strcmp(comm, "sleep");

		/* the end of a child forked before the recording, which the
		 * kernel tells its parent's events of too, as perf's */
		if (exit && sscanf(exit, "PERF_RECORD_EXIT(%d:%d):(%d:%d)", &child, &ctid, &parent,
				   &ptid) == 4)
			for (int i = 0; i < nr_known; i++)
				ok |= known[i] == parent;

		/* a FORK is the child's record: its parent must be known */
		if (fork && sscanf(fork, "PERF_RECORD_FORK(%d:%d):(%d:%d)", &child, &ctid, &parent,
				   &ptid) == 4) {
			pid = parent;
			if (nr_known < 256)
				known[nr_known++] = child;
			forks++;
		}
		for (int i = 0; i < nr_known; i++)
			ok |= known[i] == pid;
		if (!ok)
			fail_msg("a record of %d, which is not %d nor what it forked: %s", pid,
				 (int)target, line);
		records++;
	}
	print_message("%d records of %d and the %d processes it forked\n", records, (int)target,
		      forks);
	assert_true(forks >= 5);
	free(out);
	tu_rmtree(dir);
	free(dir);
}

/* `record -a -G CGROUP` beside processes forking outside it: its side-band
 * is that of the cgroup's processes (one cgroup event per CPU,
 * PERF_FLAG_PID_CGROUP), what they forked included, and nothing of the
 * others' (the churn's true, the workload's python3). */
static void test_cgroup_sideband_of_its_processes(void **state)
{
	char cg[512], rel[128], *dir = tu_tempdir(), *out = NULL, *line, *save = NULL;
	int records = 0, forks = 0, rc;
	pid_t churn, inside;

	(void)state;
	tu_skip_unless_possible();
	snprintf(rel, sizeof(rel), "ringtrace-sideband-%d", (int)getpid());
	snprintf(cg, sizeof(cg), "%s/%s", tu_cgroup2_root(), rel);
	if (mkdir(cg, 0755))
		tu_skip("cannot create cgroup %s: %s", cg, strerror(errno));
	churn = spawn_group("while :; do /bin/true; done");
	inside = spawn_group("while :; do sleep 0.05; done");
	assert_int_equal(tu_sh(&out, "echo %d > %s/cgroup.procs", (int)inside, cg), 0);
	free(out);
	rc = tu_sh(&out, "%s record --force -o %s/rec -a -G %s -- python3 -c \"import time; time.sleep(1)\" 2>&1",
		   tu_ringtrace(), dir, rel);
	end_group(churn);
	end_group(inside);
	rmdir(cg);
	if (rc)
		fail_msg("record: exit %d:\n%s", rc, out);
	free(out);
	out = sideband_records(dir);
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char comm[64] = "";
		int pid = line_pid(line, comm), child, ctid, parent, ptid;
		const char *fork = strstr(line, "PERF_RECORD_FORK("),
			   *exit = strstr(line, "PERF_RECORD_EXIT(");
		bool ours = !strcmp(comm, "sh") || !strcmp(comm, "sleep");

		/* A sleep forked before the events were open and gone before
		 * /proc was read has no name: its EXIT, told to the events of
		 * the cgroup, is all there is of it (perf's too). Its parent
		 * is the cgroup's shell. */
		if (exit && sscanf(exit, "PERF_RECORD_EXIT(%d:%d):(%d:%d)", &child, &ctid, &parent,
				   &ptid) == 4)
			ours |= parent == (int)inside;
		/* the cgroup's shell and what it runs: sh, sleep 0.05 */
		if (!ours)
			fail_msg("a record of %s (%d), not of the cgroup's processes: %s", comm, pid,
				 line);
		if (fork && sscanf(fork, "PERF_RECORD_FORK(%d:%d):(%d:%d)", &child, &ctid, &parent,
				   &ptid) == 4 && parent == (int)inside)
			forks++;
		records++;
	}
	print_message("%d records of the cgroup's processes, %d forks of its shell\n", records,
		      forks);
	assert_true(forks >= 5);
	free(out);
	tu_rmtree(dir);
	free(dir);
}

/* record -p A,B: A exits first, then its task-tracking events hang up.
 * The loop stops polling them (as perf drops such an fd) and sleeps: it spun
 * on their EPOLLHUP, a CPU's worth until B exited. */
static void test_pid_sideband_after_one_exits(void **state)
{
	char *dir = tu_tempdir(), out[PATH_MAX + 16], a_s[16], b_s[16], list[40];
	pid_t a, b, rec;
	struct rusage ru;
	double cpu;
	int status;

	(void)state;
	tu_skip_unless_possible();
	a = spawn_group("exec sleep 1.5");
	b = spawn_group("exec sleep 4");
	snprintf(a_s, sizeof(a_s), "%d", (int)a);
	snprintf(b_s, sizeof(b_s), "%d", (int)b);
	snprintf(list, sizeof(list), "%s,%s", a_s, b_s);
	snprintf(out, sizeof(out), "%s/rec", dir);
	rec = fork();
	assert_true(rec >= 0);
	if (!rec) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
		execl(tu_ringtrace(), "ringtrace", "record", "--force", "-o", out, "-p", list,
		      (char *)NULL);
		_exit(127);
	}
	waitpid(a, NULL, 0);
	waitpid(b, NULL, 0);
	assert_int_equal(wait4(rec, &status, 0, &ru), rec);
	cpu = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	      (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
	print_message("record -p A,B over 4 s, A gone after 1.5 s: %.2f s of CPU\n", cpu);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* the start (a BPF load: more, sanitized) and a drain each 100 ms */
	assert_true(cpu < 2.0);
	tu_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_command_sideband_as_perf),
		cmocka_unit_test(test_command_recording_ignores_the_machine),
		cmocka_unit_test(test_pid_sideband_of_its_processes),
		cmocka_unit_test(test_pid_sideband_after_one_exits),
		cmocka_unit_test(test_cgroup_sideband_of_its_processes),
	};

	tu_set_skip_reason(tu_integration_skip_reason());
	return cmocka_run_group_tests(tests, NULL, NULL);
}
