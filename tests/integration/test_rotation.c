/* SPDX-License-Identifier: GPL-2.0-only */
/* test_rotation.c: record --switch-output, --switch-max-files and --max-size:
 * every output a recording perf reads alone, no sample lost at a switch, and
 * no output stopped by names another user took first. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test_util.h"

#define GETPID_EVENT "syscalls:sys_enter_getpid"
#define MAX_OUTPUTS 512
#define NOBODY 65534

/* Whether s is n lower-case hex digits and nothing more. */
static bool all_hex(const char *s, size_t n)
{
	return strlen(s) == n && strspn(s, "0123456789abcdef") == n;
}

/* The outputs base.YYYYmmddHHMMSSCC in dir, sorted (oldest first); each name
 * is checked to be perf's: 16 digits after the base and a dot. With
 * suffixes, also those whose name was taken: .N (1 to 9) or .r and 16 hex
 * digits after the timestamp. Symlinks are not outputs (others' entries):
 * counted in *symlinks if not NULL. */
static unsigned int list_outputs_of(const char *dir, const char *base, char **names,
				    bool suffixes, unsigned int *symlinks)
{
	struct dirent **ents;
	size_t blen = strlen(base);
	unsigned int nr = 0;
	int n = scandir(dir, &ents, NULL, alphasort);

	assert_true(n >= 0);
	for (int i = 0; i < n; i++) {
		const char *name = ents[i]->d_name, *stamp = name + blen + 1;
		struct stat st;
		char path[4096];

		if (strncmp(name, base, blen) || name[blen] != '.') {
			free(ents[i]);
			continue;
		}
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		assert_int_equal(lstat(path, &st), 0);
		if (S_ISLNK(st.st_mode)) {
			if (symlinks)
				(*symlinks)++;
		} else {
			assert_true(S_ISDIR(st.st_mode));
			assert_true(strlen(stamp) >= 16);
			assert_int_equal(strspn(stamp, "0123456789"), 16);
			if (!suffixes || !stamp[16])
				assert_int_equal(strlen(stamp), 16);
			else if (!(stamp[16] == '.' && stamp[17] >= '1' && stamp[17] <= '9' && !stamp[18]) &&
				 !(stamp[16] == '.' && stamp[17] == 'r' && all_hex(stamp + 18, 16)))
				fail_msg("%s: not an output's name", name);
			assert_true(nr < MAX_OUTPUTS);
			if (asprintf(&names[nr++], "%s/%s", dir, name) < 0)
				fail();
		}
		free(ents[i]);
	}
	free(ents);
	return nr;
}

static unsigned int list_outputs(const char *dir, const char *base, char **names)
{
	return list_outputs_of(dir, base, names, false, NULL);
}

static void free_outputs(char **names, unsigned int nr)
{
	for (unsigned int i = 0; i < nr; i++)
		free(names[i]);
}

/* Lines perf script -i prints for output's samples of event (of comm, if
 * not NULL, in the same line). */
static unsigned long perf_script_count(const char *output, const char *event, const char *comm)
{
	char *out = NULL;
	unsigned long n = 0;
	int rc = tu_sh(&out, "perf script -i %s 2>/dev/null | grep -F '%s' | grep -cF '%s'", output,
		       event, comm ? comm : event);

	if (rc > 1)
		fail_msg("perf script -i %s failed (%d)", output, rc);
	n = strtoul(out, NULL, 10);
	free(out);
	return n;
}

static unsigned long ringtrace_script_count(const char *output, const char *event)
{
	char *out = NULL;
	unsigned long n;
	int rc = tu_sh(&out, "%s script %s | grep -cF '%s'", tu_ringtrace(), output, event);

	if (rc > 1)
		fail_msg("ringtrace script %s failed (%d)", output, rc);
	n = strtoul(out, NULL, 10);
	free(out);
	return n;
}

/* Each output: a whole recording (header, per-CPU files, totals; 0700 and
 * 0600) whose samples perf script and ringtrace script print alike, every
 * one named by its comm (the side-band carried into it). Returns the samples
 * and adds the lost ones to *lost. */
static uint64_t check_output(const char *output, const char *comm, uint64_t *lost)
{
	struct tu_record_counts c;
	struct stat st;
	unsigned long perf_n, ours, named;
	char path[4096];

	assert_int_equal(stat(output, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	snprintf(path, sizeof(path), "%s/data", output);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	snprintf(path, sizeof(path), "%s/totals", output);
	assert_int_equal(stat(path, &st), 0);
	tu_count_records(output, TU_RECORDS_STRICT | TU_RECORDS_WHOLE, &c);
	perf_n = perf_script_count(output, GETPID_EVENT, NULL);
	named = perf_script_count(output, GETPID_EVENT, comm);
	ours = ringtrace_script_count(output, GETPID_EVENT);
	print_message("%s: %llu samples (perf script %lu, named %s %lu, ringtrace script %lu), %llu lost\n",
		      output, (unsigned long long)c.samples, perf_n, comm, named, ours,
		      (unsigned long long)c.lost_samples);
	assert_int_equal(perf_n, c.samples);
	assert_int_equal(ours, c.samples);
	assert_int_equal(named, c.samples);
	*lost += c.lost_samples + c.lost;
	return c.samples;
}

/* --switch-output=1M over the getpid calls of a generator paced at 50 000 a
 * second for 4 s (~16 MB of samples): several outputs, each read alone, and
 * over all of them every call made a sample, none lost. The pace gives the
 * drain what a switch needs on any host: the default ring holds ~130 ms of
 * these calls, where a generator flat out (8 M/s on a host of 120 ns getpid)
 * overflowed it at every switch and measured only the host's speed. */
static void test_switch_output_size_loses_nothing(void **state)
{
	char *dir, *out = NULL, *names[MAX_OUTPUTS], *calls_line, base[4096];
	uint64_t samples = 0, lost = 0;
	unsigned long calls;
	unsigned int nr;
	int rc;

	(void)state;
	tu_skip_unless_possible();
	dir = tu_tempdir();
	assert_non_null(dir);
	rc = tu_sh(&out, "cd %s && %s record -e " GETPID_EVENT " --switch-output=1M -o r.data -- %s getpid-rate 50000 4 2>&1",
		   dir, tu_ringtrace(), tu_loadgen());
	if (rc != 0)
		fail_msg("record --switch-output=1M failed (%d):\n%s", rc, out);
	calls_line = strstr(out, "loadgen: calls=");
	assert_non_null(calls_line);
	calls = strtoul(calls_line + strlen("loadgen: calls="), NULL, 10);
	nr = list_outputs(dir, "r.data", names);
	print_message("%u outputs:\n%s", nr, out);
	if (nr < 3)
		fail_msg("%lu getpid samples (~80 bytes each) in outputs of 1M: %u outputs", calls, nr);
	for (unsigned int i = 0; i < nr; i++)
		samples += check_output(names[i], "loadgen", &lost);
	/* the last line names the outputs, not r.data, which is none of them */
	snprintf(base, sizeof(base), "into %u outputs, %s to %s: ", nr, strrchr(names[0], '/') + 1,
		 strrchr(names[nr - 1], '/') + 1);
	if (!strstr(out, base))
		fail_msg("the last line does not name the outputs (\"%s\"):\n%s", base, out);
	/* the outputs alone: no r.data beside them (dir's, not the test's cwd's) */
	snprintf(base, sizeof(base), "%s/r.data", dir);
	assert_int_equal(access(base, F_OK) == 0 ? 1 : 0, 0);
	assert_int_equal(samples + lost, calls);
	assert_int_equal(lost, 0);
	free_outputs(names, nr);
	free(out);
	tu_rmtree(dir);
	free(dir);
}

/* --switch-output=signal: each SIGUSR2 ends an output, and what the
 * generator made is all there. */
static void test_switch_output_on_sigusr2(void **state)
{
	char *dir, *out = NULL, *names[MAX_OUTPUTS], *calls_line;
	uint64_t samples = 0, lost = 0;
	unsigned long calls;
	unsigned int nr;
	int rc;

	(void)state;
	tu_skip_unless_possible();
	dir = tu_tempdir();
	assert_non_null(dir);
	/* the generator (20000 calls/s for 4 s) is the recording's command; the
	 * first SIGUSR2 once samples reach the files (a start of 3 s beside
	 * load took both signals while starting, merged into one) */
	rc = tu_sh(&out,
		   "cd %s && { %s record -e " GETPID_EVENT " --switch-output=signal -o r.data -- "
		   "%s getpid-rate 20000 4 2>&1 & R=$!; i=0; while [ $i -lt 300 ] && "
		   "[ \"$(cat r.data/data.cpu* 2>/dev/null | wc -c)\" -eq 0 ]; do sleep 0.1; "
		   "i=$((i+1)); done; sleep 0.3; kill -USR2 $R; sleep 1; kill -USR2 $R; wait $R; }",
		   dir, tu_ringtrace(), tu_loadgen());
	if (rc != 0)
		fail_msg("record --switch-output=signal did not end with status 0 (%d):\n%s", rc, out);
	tu_print_text(out);
	calls_line = strstr(out, "loadgen: calls=");
	assert_non_null(calls_line);
	calls = strtoul(calls_line + strlen("loadgen: calls="), NULL, 10);
	assert_true(calls > 0);
	nr = list_outputs(dir, "r.data", names);
	assert_int_equal(nr, 3);
	for (unsigned int i = 0; i < nr; i++) {
		uint64_t n = check_output(names[i], "loadgen", &lost);

		/* the generator ran across all three */
		assert_true(n > 0);
		samples += n;
	}
	assert_int_equal(samples + lost, calls);
	free_outputs(names, nr);
	free(out);
	tu_rmtree(dir);
	free(dir);
}

/* SIGINT ends a recording that switches outputs every 100K under a
 * generator flat out within a second, the outputs all whole. */
static void test_sigint_while_switching(void **state)
{
	char *dir, *out = NULL, *names[MAX_OUTPUTS];
	struct tu_record_counts c;
	unsigned int nr;
	int rc, ms;

	(void)state;
	tu_skip_unless_possible();
	dir = tu_tempdir();
	assert_non_null(dir);
	rc = tu_sh(&out,
		   "cd %s && { %s getpid-rate 0 30 2>/dev/null & L=$!; %s record -a -e " GETPID_EVENT
		   " --switch-output=100K -q -o r.data 2>&1 & R=$!; "
		   /* 2 s once it records (its start takes seconds on a busy machine) */
		   "for i in $(seq 300); do [ -e r.data/data ] && break; sleep 0.1; done; "
		   "sleep 2; t0=$(date +%%s%%N); "
		   "kill -INT $R; wait $R; s=$?; echo \"stopped in $((($(date +%%s%%N) - t0) / 1000000)) ms\"; "
		   "kill $L; wait $L 2>/dev/null; exit $s; }",
		   dir, tu_loadgen(), tu_ringtrace());
	if (rc != 0)
		fail_msg("record --switch-output=100K did not end with status 0 on SIGINT (%d):\n%s", rc,
			 out);
	ms = atoi(strstr(out, "stopped in ") + strlen("stopped in "));
	nr = list_outputs(dir, "r.data", names);
	print_message("%u outputs, stopped %d ms after SIGINT\n", nr, ms);
	assert_true(nr > 2);
	assert_true(ms < 1000);
	for (unsigned int i = 0; i < nr; i++)
		tu_count_records(names[i], TU_RECORDS_STRICT | TU_RECORDS_WHOLE, &c);
	free_outputs(names, nr);
	free(out);
	tu_rmtree(dir);
	free(dir);
}

/* --switch-max-files 2 keeps the newest two outputs, as perf does. */
static void test_switch_max_files_keeps_newest(void **state)
{
	char *dir, *out = NULL, *names[MAX_OUTPUTS], *last;
	unsigned int nr, made = 0;
	uint64_t lost = 0;
	int rc;

	(void)state;
	tu_skip_unless_possible();
	dir = tu_tempdir();
	assert_non_null(dir);
	/* 100000 calls over 2 s, not flat out: on a busy machine a burst of
	 * 10 ms may all be drained in the pass or two the drain gets, into
	 * the one or two outputs those passes switch to */
	rc = tu_sh(&out, "cd %s && %s record -e " GETPID_EVENT " --switch-output=100K --switch-max-files 2 -o r.data -- %s getpid-rate 50000 2 2>&1",
		   dir, tu_ringtrace(), tu_loadgen());
	if (rc != 0)
		fail_msg("record --switch-max-files 2 failed (%d):\n%s", rc, out);
	for (const char *p = out; (p = strstr(p, "ringtrace: output ")); p++)
		made++;
	nr = list_outputs(dir, "r.data", names);
	print_message("%u outputs made, %u kept\n", made, nr);
	assert_true(made > 2);
	assert_int_equal(nr, 2);
	/* the newest: the last the recording named */
	last = strrchr(names[1], '/') + 1;
	assert_non_null(strstr(out, last));
	for (unsigned int i = 0; i < nr; i++)
		check_output(names[i], "loadgen", &lost);
	free_outputs(names, nr);
	free(out);
	tu_rmtree(dir);
	free(dir);
}

/* --max-size ends the recording as SIGINT would: status 0, the totals
 * printed and in DIR/totals, exactly what the files hold. */
static void test_max_size_stops_cleanly(void **state)
{
	char *dir, *out = NULL, *line;
	struct tu_record_counts c;
	unsigned long long printed_samples, printed_lost;
	struct stat st;
	char path[4096];
	uint64_t bytes = 0;
	int rc;

	(void)state;
	tu_skip_unless_possible();
	dir = tu_tempdir();
	assert_non_null(dir);
	rc = tu_sh(&out, "%s getpid-rate 0 30 2>/dev/null & L=$!; "
		   "timeout 20 %s record -a -e " GETPID_EVENT " --max-size 1M --force -o %s 2>&1; s=$?; "
		   "kill $L; wait $L 2>/dev/null; exit $s",
		   tu_loadgen(), tu_ringtrace(), dir);
	if (rc != 0)
		fail_msg("record --max-size 1M did not end by itself with status 0 (%d):\n%s", rc, out);
	tu_print_text(out);
	assert_non_null(strstr(out, "reached --max-size"));
	line = strstr(out, "ringtrace: recorded ");
	assert_non_null(line);
	assert_int_equal(sscanf(strstr(line + strlen("ringtrace: "), ": ") + 2, "%llu samples, %llu lost", &printed_samples,
				&printed_lost), 2);
	tu_count_records(dir, TU_RECORDS_STRICT | TU_RECORDS_WHOLE, &c);
	assert_int_equal(c.samples, printed_samples);
	assert_int_equal(c.lost_samples + c.lost, printed_lost);
	for (int cpu = 0; cpu < tu_online_cpus(); cpu++) {
		snprintf(path, sizeof(path), "%s/data.cpu%d", dir, cpu);
		if (!stat(path, &st))
			bytes += (uint64_t)st.st_size;
	}
	assert_true(bytes >= (1 << 20));
	snprintf(path, sizeof(path), "%s/totals", dir);
	assert_int_equal(stat(path, &st), 0);
	free(out);
	tu_rmtree(dir);
	free(dir);
}

/* base.YYYYmmddHHMMSSCC for the time t, then suffix: the names a switch at
 * t would try. */
static void output_name_at(char *buf, size_t len, const char *base, const struct timespec *t,
			   const char *suffix)
{
	struct tm tm;
	char stamp[32];

	assert_non_null(localtime_r(&t->tv_sec, &tm));
	assert_true(strftime(stamp, sizeof(stamp), "%Y%m%d%H%M%S", &tm) > 0);
	snprintf(buf, len, "%s.%s%02ld%s", base, stamp, t->tv_nsec / 10000000L, suffix);
}

/* As nobody, in the sticky world-writable dir: a symlink to victim at every
 * base.YYYYmmddHHMMSSCC of the next seconds, and in the odd seconds at
 * .1 to .9 after it too. The number planted. */
static unsigned int plant_symlinks(const char *dir, const char *base, const char *victim,
				   unsigned int seconds)
{
	int status, fds[2];
	unsigned int planted = 0;
	pid_t pid;

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct timespec now;
		char name[4096];

		if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY) || chdir(dir))
			_exit(1);
		clock_gettime(CLOCK_REALTIME, &now);
		now.tv_nsec -= now.tv_nsec % 10000000L;
		for (unsigned int i = 0; i < seconds * 100; i++) {
			output_name_at(name, sizeof(name), base, &now, "");
			planted += !symlink(victim, name);
			for (int k = 1; k <= 9 && now.tv_sec % 2; k++) {
				char suffix[4];

				snprintf(suffix, sizeof(suffix), ".%d", k);
				output_name_at(name, sizeof(name), base, &now, suffix);
				planted += !symlink(victim, name);
			}
			now.tv_nsec += 10000000L;
			if (now.tv_nsec >= 1000000000L) {
				now.tv_sec++;
				now.tv_nsec = 0;
			}
		}
		_exit(write(fds[1], &planted, sizeof(planted)) == sizeof(planted) ? 0 : 1);
	}
	close(fds[1]);
	assert_int_equal(read(fds[0], &planted, sizeof(planted)), sizeof(planted));
	close(fds[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	return planted;
}

/* Issue #53: an unprivileged user who plants symlinks at every name the
 * outputs of the next seconds would take (perf's, and .1 to .9 after half
 * of them) in a sticky world-writable directory pre-empts none: root's
 * --switch-output=1s goes on, each output under a name of its own (a line
 * says so, and its totals count the names taken), every output with its
 * totals, the symlinks and what they point at untouched, and every getpid
 * call a sample or a loss. */
static void test_switch_output_names_taken_by_others(void **state)
{
	static const char precious[] = "root's file, which nobody may make root write\n";
	char *dir, *out = NULL, *names[MAX_OUTPUTS], *calls_line, shared[4096], victim[4096];
	char path[8192], buf[256];
	unsigned int planted, nr, symlinks = 0, renamed = 0;
	uint64_t samples = 0, lost = 0;
	unsigned long calls, taken_lines = 0;
	struct stat st;
	int rc, fd;
	ssize_t n;

	(void)state;
	tu_skip_unless_possible();
	dir = tu_tempdir();
	assert_non_null(dir);
	assert_int_equal(chmod(dir, 0711), 0);
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	tu_write_file(dir, "victim", precious, strlen(precious));
	assert_int_equal(chmod(victim, 0644), 0);
	snprintf(shared, sizeof(shared), "%s/shared", dir);
	assert_int_equal(mkdir(shared, 0700), 0);
	assert_int_equal(chmod(shared, 01777), 0);
	planted = plant_symlinks(shared, "r.data", victim, 20);
	print_message("nobody planted %u symlinks to %s\n", planted, victim);
	assert_true(planted > 2000);
	rc = tu_sh(&out, "cd %s && %s record -e " GETPID_EVENT " --switch-output=1s -o r.data -- %s getpid-rate 5000 6 2>&1",
		   shared, tu_ringtrace(), tu_loadgen());
	/* whole: print_message cuts at 1 KiB */
	fputs(out, stdout);
	fflush(stdout);
	if (rc != 0)
		fail_msg("record --switch-output=1s among others' symlinks failed (%d):\n%s", rc, out);
	calls_line = strstr(out, "loadgen: calls=");
	assert_non_null(calls_line);
	calls = strtoul(calls_line + strlen("loadgen: calls="), NULL, 10);
	for (const char *p = out; (p = strstr(p, "is taken")); p++)
		taken_lines++;
	/* the outputs under names of their own; every symlink still there */
	nr = list_outputs_of(shared, "r.data", names, true, &symlinks);
	print_message("%u outputs, %lu lines of names taken, %u symlinks left\n", nr, taken_lines,
		      symlinks);
	assert_int_equal(symlinks, planted);
	assert_true(nr >= 4);
	snprintf(path, sizeof(path), "%s/r.data", shared);
	assert_int_equal(lstat(path, &st) == 0 ? 1 : 0, 0);
	for (unsigned int i = 0; i < nr; i++) {
		const char *name = strrchr(names[i], '/') + 1, *all;
		unsigned long long t_samples, t_lost, t_unwritten;
		uint64_t n, lost_before = lost;
		char *totals = NULL;

		assert_int_equal(lstat(names[i], &st), 0);
		assert_true(S_ISDIR(st.st_mode));
		assert_int_equal(st.st_uid, 0);
		n = check_output(names[i], "loadgen", &lost);
		samples += n;
		/* its totals: what its files hold */
		assert_int_equal(tu_sh(&totals, "cat %s/totals", names[i]), 0);
		all = strstr(totals, "\n   all ");
		if (!all || sscanf(all, " all %llu %llu %llu", &t_samples, &t_lost, &t_unwritten) != 3)
			fail_msg("%s/totals has no line of all CPUs:\n%s", names[i], totals);
		assert_int_equal(t_samples, n);
		assert_int_equal(t_lost + t_unwritten, lost - lost_before);
		/* one taken: its line names it, its totals count the names taken */
		if (strlen(name) > strlen("r.data.") + 16) {
			renamed++;
			assert_non_null(strstr(out, name));
			if (!strstr(totals, "names taken"))
				fail_msg("%s/totals does not count the names taken:\n%s", names[i], totals);
		}
		free(totals);
	}
	/* every switch within the planted seconds found its name taken */
	assert_true(renamed >= 4);
	assert_int_equal(taken_lines, renamed);
	/* the symlinks' target as it was */
	fd = open(victim, O_RDONLY);
	assert_true(fd >= 0);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	assert_true(n >= 0);
	buf[n] = '\0';
	assert_string_equal(buf, precious);
	/* nothing lost: every call is a sample in one of the outputs */
	assert_int_equal(samples + lost, calls);
	free_outputs(names, nr);
	free(out);
	tu_rmtree(dir);
	free(dir);
}

/* Bad values: one line naming the cause and the fix, exit status 2. */
static void test_bad_values_exit_2(void **state)
{
	static const char *const bad[] = {
		"--switch-output=1X", "--switch-output=10", "--switch-output=0s",
		"--switch-output=100", "--max-size 1T", "--max-size=", "--switch-max-files 2",
		"--switch-output=1M --switch-max-files 0", "--switch-output=1M --overwrite",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *out = NULL;
		int rc = tu_sh(&out, "%s record %s -o /nonexistent/x -- true 2>&1", tu_ringtrace(),
			       bad[i]);

		if (rc != 2 || strchr(out, '\n') != out + strlen(out) - 1)
			fail_msg("record %s: status %d, wanted 2 and one line:\n%s", bad[i], rc, out);
		free(out);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_switch_output_size_loses_nothing),
		cmocka_unit_test(test_switch_output_on_sigusr2),
		cmocka_unit_test(test_sigint_while_switching),
		cmocka_unit_test(test_switch_max_files_keeps_newest),
		cmocka_unit_test(test_max_size_stops_cleanly),
		cmocka_unit_test(test_switch_output_names_taken_by_others),
		cmocka_unit_test(test_bad_values_exit_2),
	};

	tu_set_skip_reason(tu_integration_skip_reason());
	return cmocka_run_group_tests(tests, NULL, NULL);
}
