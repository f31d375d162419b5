/* SPDX-License-Identifier: GPL-2.0-only */
/* test_input_budget.c: root's report, script and merge read a recording
 * through a budget: a file truncated to 100 GiB (sparse) is refused in one
 * line, within 64 MiB and a few seconds; SIGINT ends a long read within 1 s. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "format/perf_file.h"
#include "lib/monotonic.h"
#include "test_util.h"

/* What reading a sparse recording may take: the target. */
#define RSS_LIMIT_KIB (64 * 1024)
/* What a long read killed by SIGINT may take before the test kills it: a
 * guard (the main code populated the whole mapping), not the point, with
 * room for the sanitized build's allocator. */
#define LONG_READ_RSS_KIB (512 * 1024)
/* What a user makes of a copied recording: truncate -s 100G FILE. */
#define SPARSE_SIZE (100ULL << 30)
/* A refusal's time, and a run's before it is killed. */
#define REFUSE_SECONDS 5.0
#define RUN_SECONDS 60.0
/* How soon SIGINT must end a command. */
#define SIGINT_SECONDS 1.0

#define SAMPLE_TYPE                                                                        \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |    \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN)
/* Where a sample's time is: after the header, identifier, ip, pid/tid. */
#define TIME_AT 32
#define CLOCK_ID 101
#define PID 4242

struct fixture {
	char *work; /* the recordings, outputs, and each run's stderr */
};

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	if (!fx || !(fx->work = tu_tempdir()))
		return -1;
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	tu_rmtree(fx->work);
	free(fx->work);
	free(fx);
	return 0;
}

/* How a command ran. */
struct run {
	int status;         /* exit status, or 128 + the signal that ended it */
	long maxrss_kib;    /* its peak resident memory (wait4's ru_maxrss) */
	double seconds;     /* from its start (or from the SIGINT) to its end */
	bool over_rss;      /* killed: its VmRSS passed the limit given */
	bool timed_out;     /* killed: it ran past the time given */
	bool ran_to_signal; /* still running when SIGINT was sent */
	char err[8192];     /* its stderr */
};

/* VmRSS of pid in KiB, or 0 once it has gone. */
static long rss_kib(pid_t pid)
{
	char path[64], line[256];
	long kib = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

/*
 * Runs ringtrace with args (NULL-terminated, args[0] "ringtrace"): stdout to
 * /dev/null, stderr kept. Its VmRSS is watched every millisecond and it is
 * killed past rss_kib_limit, as past seconds: without the fix, MAP_POPULATE
 * of 100 GiB took 16 GB in 3 s on a 23 GB machine that other tests share.
 * With sigint_cpu > 0, it runs at a slow machine's pace (1 ms in 10, by
 * SIGSTOP and SIGCONT) until it has had sigint_cpu seconds of CPU time and
 * catches SIGINT, then gets SIGINT and runs freely; r->seconds is counted
 * from the SIGINT.
 */
static void run_watched(const struct fixture *fx, char *const args[], long rss_kib_limit,
			double seconds, double sigint_cpu, struct run *r)
{
	char err_path[PATH_MAX];
	uint64_t start = monotonic_ns(), signalled = 0, now;
	struct rusage ru;
	int status = 0, fd;
	ssize_t n;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	snprintf(err_path, sizeof(err_path), "%s/stderr", fx->work);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		int out = open("/dev/null", O_WRONLY), err = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		sigset_t none;

		dup2(out, STDOUT_FILENO);
		dup2(err, STDERR_FILENO);
		/* SIGINT as a terminal's Ctrl-C delivers it, whatever this
		 * test inherited (a background job's is ignored) */
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		execv(tu_ringtrace(), args);
		_exit(127);
	}
	for (;;) {
		pid_t w = wait4(pid, &status, WNOHANG, &ru);

		now = monotonic_ns();
		if (w == pid)
			break;
		assert_int_equal(w, 0);
		if (!r->over_rss && !r->timed_out && rss_kib(pid) > rss_kib_limit) {
			r->over_rss = true;
			kill(pid, SIGKILL);
		}
		if (!r->over_rss && !r->timed_out && (double)(now - start) / 1e9 > seconds) {
			r->timed_out = true;
			kill(pid, SIGKILL);
		}
		if (sigint_cpu > 0 && !signalled) {
			kill(pid, SIGCONT);
			usleep(1000);
			kill(pid, SIGSTOP);
			if (tu_process_cpu_seconds(pid) >= sigint_cpu &&
			    /* a command catches SIGINT once started: one
			     * sooner kills it silently (ASan's start alone
			     * took more than 0.03 s of CPU) */
			    tu_signal_in(pid, "SigCgt", SIGINT)) {
				siginfo_t ended = { 0 };

				/* whether it ended meanwhile, leaving it to wait4 */
				r->ran_to_signal = !waitid(P_PID, (id_t)pid, &ended,
							   WEXITED | WNOHANG | WNOWAIT) &&
						   !ended.si_pid;
				signalled = monotonic_ns();
				kill(pid, SIGINT);
				kill(pid, SIGCONT);
				continue;
			}
			usleep(9000);
			continue;
		}
		usleep(1000);
	}
	r->seconds = (double)(now - (signalled ? signalled : start)) / 1e9;
	r->maxrss_kib = ru.ru_maxrss;
	r->status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	fd = open(err_path, O_RDONLY);
	assert_true(fd >= 0);
	n = read(fd, r->err, sizeof(r->err) - 1);
	r->err[n > 0 ? n : 0] = '\0';
	close(fd);
}

/* A recording of samples on two CPUs, each with a callchain of depth
 * frames, times 1000 ns apart: nr on CPU 0 (written chunk by chunk, for
 * recordings of hundreds of MiB), 4 on CPU 1. */
static void write_recording(const char *dir, uint64_t nr, unsigned int depth)
{
	enum { CHUNK = 4096 };
	uint64_t chain[PERF_MAX_STACK_DEPTH];
	struct perf_sample s = { .misc = PERF_RECORD_MISC_USER, .pid = PID, .tid = PID,
				 .period = 1, .callchain = chain };
	struct byte_buffer chunk = { 0 };
	struct tu_recording r;
	char path[PATH_MAX];
	size_t stride;
	int fd;

	assert_true(depth >= 1 && depth < PERF_MAX_STACK_DEPTH);
	chain[0] = PERF_CONTEXT_USER;
	for (unsigned int i = 1; i <= depth; i++)
		chain[i] = 0x400000 + 0x40 * i;
	s.nr_callchain = depth + 1;
	s.ip = chain[1];
	tu_recording_init(&r, 2);
	tu_recording_event(&r, "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, SAMPLE_TYPE,
			   CLOCK_ID);
	for (unsigned int i = 0; i < 4; i++) {
		s.cpu = 1;
		s.time = 1000 * (i + 1);
		tu_recording_sample(&r, 0, &s);
	}
	r.kallsyms = "ffffffff81000000 T _text\n";
	tu_recording_write(&r, dir);
	tu_recording_free(&r);

	/* CPU 0's: one chunk encoded, then written again and again with its
	 * times moved on */
	s.cpu = 0;
	s.id = CLOCK_ID;
	for (unsigned int i = 0; i < CHUNK; i++) {
		s.time = 1000 * (i + 1);
		tu_sample_encode(&chunk, SAMPLE_TYPE, &s);
	}
	stride = chunk.len / CHUNK;
	snprintf(path, sizeof(path), "%s/data.cpu0", dir);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	assert_true(fd >= 0);
	for (uint64_t done = 0; done < nr; done += CHUNK) {
		size_t len = (nr - done < CHUNK ? nr - done : CHUNK) * stride;

		for (size_t at = 0; done && at < chunk.len; at += stride) {
			uint64_t t;

			memcpy(&t, chunk.data + at + TIME_AT, sizeof(t));
			t += 1000ULL * CHUNK;
			memcpy(chunk.data + at + TIME_AT, &t, sizeof(t));
		}
		assert_int_equal(write(fd, chunk.data, len), (ssize_t)len);
	}
	close(fd);
	byte_buffer_free(&chunk);
}

/* dir/name cut or extended to size: a hole where it grew. */
static void truncate_to(const char *dir, const char *name, uint64_t size)
{
	char path[PATH_MAX + 32];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_int_equal(truncate(path, (off_t)size), 0);
}

/* report, script and merge of input each refused with exit status 1 and one
 * line naming file and saying what, soon and within RSS_LIMIT_KIB. */
static void expect_refused(const struct fixture *fx, const char *input, const char *file,
			   const char *what, const char *also)
{
	char kallsyms[PATH_MAX], merged[PATH_MAX], needle[PATH_MAX + 16];
	char *const commands[][7] = {
		{ "ringtrace", "report", "--stdio", "--kallsyms", kallsyms, (char *)input, NULL },
		{ "ringtrace", "script", "--kallsyms", kallsyms, (char *)input, NULL },
		{ "ringtrace", "merge", (char *)input, merged, NULL },
	};
	struct stat st;
	struct run r;

	snprintf(kallsyms, sizeof(kallsyms), "%s/rec/kallsyms", fx->work);
	snprintf(merged, sizeof(merged), "%s/merged.data", fx->work);
	snprintf(needle, sizeof(needle), "ringtrace: %s: ", file);
	for (size_t c = 0; c < sizeof(commands) / sizeof(commands[0]); c++) {
		run_watched(fx, commands[c], RSS_LIMIT_KIB, RUN_SECONDS, 0, &r);
		if (r.over_rss || r.timed_out)
			fail_msg("%s of %s: killed %s (status %d)", commands[c][1], input,
				 r.over_rss ? "past 64 MiB" : "running too long", r.status);
		if (r.status != 1 || strncmp(r.err, needle, strlen(needle)) || !strstr(r.err, what) ||
		    !strstr(r.err, also) || strchr(r.err, '\n') != r.err + strlen(r.err) - 1)
			fail_msg("%s of %s: status %d, stderr \"%s\": want 1 and one line \"%s...%s...%s\"",
				 commands[c][1], input, r.status, r.err, needle, what, also);
		if (r.seconds > REFUSE_SECONDS || r.maxrss_kib > RSS_LIMIT_KIB)
			fail_msg("%s of %s: refused after %.2f s, at most %ld KiB resident: want %.0f s, %d KiB",
				 commands[c][1], input, r.seconds, r.maxrss_kib, REFUSE_SECONDS,
				 RSS_LIMIT_KIB);
		assert_int_equal(stat(merged, &st), -1);
	}
}

/* The attack: a copy of a recording, then truncate -s 100G
 * DIR/data.cpu0. Mapped with MAP_POPULATE, report took 16.2 GB in 3 s,
 * script 4.9, merge 12.7; now each refuses it, having read none of it. */
static void test_sparse_data_file_refused(void **state)
{
	struct fixture *fx = *state;
	char rec[PATH_MAX], file[PATH_MAX + 16];

	tu_skip_unless_possible();
	snprintf(rec, sizeof(rec), "%s/rec", fx->work);
	assert_int_equal(mkdir(rec, 0700), 0);
	write_recording(rec, 100, 4);
	truncate_to(rec, "data.cpu0", SPARSE_SIZE);
	snprintf(file, sizeof(file), "%s/data.cpu0", rec);
	expect_refused(fx, rec, file, "100 GiB declared but only ", "on disk (a sparse file");
}

/* The header file truncated to 100 GiB: the 100 GiB past its data section
 * (where its features are) is more than a header takes. */
static void test_sparse_header_file_refused(void **state)
{
	struct fixture *fx = *state;
	char rec[PATH_MAX], file[PATH_MAX + 16];

	tu_skip_unless_possible();
	snprintf(rec, sizeof(rec), "%s/rec", fx->work);
	assert_int_equal(mkdir(rec, 0700), 0);
	write_recording(rec, 100, 4);
	truncate_to(rec, "data", SPARSE_SIZE);
	snprintf(file, sizeof(file), "%s/data", rec);
	expect_refused(fx, rec, file, "100 GiB outside its data section", ": not read");
}

/* A single perf.data file (merge's) whose header declares a data section of
 * 100 GiB, the features moved past it: a hole where the data would be. */
static void test_sparse_data_section_refused(void **state)
{
	struct fixture *fx = *state;
	char rec[PATH_MAX], single[PATH_MAX], *out = NULL;
	struct perf_file_header h;
	struct perf_file_section table[PERF_FILE_FEATURE_BITS];
	uint64_t tail_at, tail_len, grow;
	unsigned int nr = 0;
	uint8_t *tail;
	int fd;

	tu_skip_unless_possible();
	snprintf(rec, sizeof(rec), "%s/rec", fx->work);
	snprintf(single, sizeof(single), "%s/single.data", fx->work);
	assert_int_equal(mkdir(rec, 0700), 0);
	write_recording(rec, 100, 4);
	if (tu_sh(&out, "%s merge %s %s 2>&1", tu_ringtrace(), rec, single))
		fail_msg("merge: %s", out);
	free(out);

	fd = open(single, O_RDWR | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, &h, sizeof(h), 0), (ssize_t)sizeof(h));
	tail_at = h.data.offset + h.data.size;
	tail_len = (uint64_t)lseek(fd, 0, SEEK_END) - tail_at;
	tail = malloc(tail_len);
	assert_non_null(tail);
	assert_int_equal(pread(fd, tail, tail_len, (off_t)tail_at), (ssize_t)tail_len);
	for (unsigned int b = 0; b < PERF_FILE_FEATURE_BITS; b++)
		nr += (unsigned int)(h.features[b / 64] >> (b % 64) & 1);
	assert_true(nr > 0 && nr * sizeof(table[0]) <= tail_len);
	/* the data section grown to 100 GiB, what followed it moved along */
	grow = (SPARSE_SIZE - h.data.offset) / 8 * 8 - h.data.size;
	memcpy(table, tail, nr * sizeof(table[0]));
	for (unsigned int i = 0; i < nr; i++)
		table[i].offset += grow;
	memcpy(tail, table, nr * sizeof(table[0]));
	h.data.size += grow;
	assert_int_equal(ftruncate(fd, (off_t)tail_at), 0);
	assert_int_equal(pwrite(fd, tail, tail_len, (off_t)(tail_at + grow)), (ssize_t)tail_len);
	assert_int_equal(pwrite(fd, &h, sizeof(h), 0), (ssize_t)sizeof(h));
	close(fd);
	free(tail);
	expect_refused(fx, single, single, "100 GiB declared but only ", "on disk (a sparse file");
}

/* SIGINT while report (--children: every frame of every sample counted),
 * script or merge read a recording of 123 MiB ends them within a second:
 * one line saying so, killed by SIGINT as the shell expects (status 130),
 * merge's output removed. */
static void test_sigint_ends_a_long_read(void **state)
{
	struct fixture *fx = *state;
	char rec[PATH_MAX], kallsyms[PATH_MAX + 16], merged[PATH_MAX], needle[PATH_MAX + 64];
	char *const commands[][8] = {
		{ "ringtrace", "report", "--stdio", "--children", "--kallsyms", kallsyms, rec, NULL },
		{ "ringtrace", "script", "--kallsyms", kallsyms, rec, NULL },
		{ "ringtrace", "merge", rec, merged, NULL },
	};
	struct stat st;
	struct run r;

	tu_skip_unless_possible();
	snprintf(rec, sizeof(rec), "%s/rec", fx->work);
	snprintf(kallsyms, sizeof(kallsyms), "%s/kallsyms", rec);
	snprintf(merged, sizeof(merged), "%s/merged.data", fx->work);
	assert_int_equal(mkdir(rec, 0700), 0);
	/* 384Ki samples of 32 frames: on the project's machine (2026-12-02),
	 * 0.16 s of CPU time for merge, 0.4 for script, 8 for report --children */
	write_recording(rec, 384u << 10, 32);
	for (size_t c = 0; c < sizeof(commands) / sizeof(commands[0]); c++) {
		/* SIGINT once it reads (0.03 s of CPU time: past its start) */
		run_watched(fx, commands[c], LONG_READ_RSS_KIB, RUN_SECONDS, 0.03, &r);
		snprintf(needle, sizeof(needle), "ringtrace: %s of %s interrupted (SIGINT)",
			 commands[c][1], rec);
		if (r.over_rss || r.timed_out || !r.ran_to_signal)
			fail_msg("%s: %s (status %d, stderr \"%s\")", commands[c][1],
				 r.over_rss    ? "killed past 512 MiB resident"
				 : r.timed_out ? "still running a minute after SIGINT"
					       : "ended before SIGINT: make the recording bigger",
				 r.status, r.err);
		if (r.status != 128 + SIGINT || !strstr(r.err, needle) || r.seconds > SIGINT_SECONDS)
			fail_msg("%s: status %d %.2f s after SIGINT, stderr \"%s\": want %d within %.0f s, \"%s\"",
				 commands[c][1], r.status, r.seconds, r.err, 128 + SIGINT,
				 SIGINT_SECONDS, needle);
		assert_int_equal(stat(merged, &st), -1);
		printf("%s: ended %.3f s after SIGINT, at most %ld KiB resident\n", commands[c][1],
		       r.seconds, r.maxrss_kib);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_sparse_data_file_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sparse_header_file_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sparse_data_section_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sigint_ends_a_long_read, setup, teardown),
	};

	tu_set_skip_reason(tu_integration_skip_reason());
	return cmocka_run_group_tests(tests, NULL, NULL);
}
