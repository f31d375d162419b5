/* SPDX-License-Identifier: GPL-2.0-only */
/* test_util.c: what the cmocka tests share: running commands, temporary
 * directories, skipping (a failure under CI), reading and writing recordings. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_util.h"

#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "capture/perf_events.h"

int tu_run(char *const argv[], char **output)
{
	int pipefd[2];
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap);
	pid_t pid;
	int status;

	if (!buf || pipe2(pipefd, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(pipefd[1], 1);
		dup2(pipefd[1], 2);
		execvp(argv[0], argv);
		fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(pipefd[1]);
	for (;;) {
		ssize_t n;

		if (cap - len < 4096) {
			char *grown = realloc(buf, cap *= 2);

			if (!grown)
				break;
			buf = grown;
		}
		n = read(pipefd[0], buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(pipefd[0]);
	buf[len] = '\0';
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (output)
		*output = buf;
	else
		free(buf);
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
}

int tu_sh(char **output, const char *fmt, ...)
{
	char *cmd = NULL;
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&cmd, fmt, ap);
	va_end(ap);
	if (r < 0)
		return -1;
	{
		char *argv[] = { "/bin/sh", "-c", cmd, NULL };

		r = tu_run(argv, output);
	}
	free(cmd);
	return r;
}

char *tu_tempdir(void)
{
	const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char *path = NULL;

	if (asprintf(&path, "%s/ringtrace-test-XXXXXX", base) < 0)
		return NULL;
	if (!mkdtemp(path)) {
		free(path);
		return NULL;
	}
	return path;
}

int tu_tempdir_setup(void **state)
{
	*state = tu_tempdir();
	return *state ? 0 : -1;
}

int tu_tempdir_teardown(void **state)
{
	tu_rmtree(*state);
	free(*state);
	return 0;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

void tu_rmtree(const char *path)
{
	if (path)
		nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* An environment variable, NULL if unset or empty. */
static const char *env(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? v : NULL;
}

const char *tu_ringtrace(void)
{
	return env("RINGTRACE");
}

const char *tu_loadgen(void)
{
	return env("LOADGEN");
}

const char *tu_cgroup2_root(void)
{
	const char *root = getenv("CGROUP2_ROOT");

	if (root)
		return root;
	return access("/sys/fs/cgroup/unified", F_OK) ? "/sys/fs/cgroup" : "/sys/fs/cgroup/unified";
}

const char *tu_integration_skip_reason(void)
{
	if (geteuid() != 0)
		return "not root: loading BPF programs needs root or CAP_BPF+CAP_PERFMON";
	if (access("/sys/kernel/btf/vmlinux", R_OK))
		return "no kernel BTF at /sys/kernel/btf/vmlinux";
	if (!tu_ringtrace() || !tu_loadgen())
		return "RINGTRACE and LOADGEN are not set: run through make integration-test";
	return NULL;
}

const char *tu_symgen_dir(void)
{
	const char *d = env("SYMGEN_DIR");

	return d ? d : "";
}

const char *tu_symgen_skip_reason(void)
{
	const char *why = tu_integration_skip_reason();

	if (!why && !env("SYMGEN_DIR"))
		why = "SYMGEN_DIR is not set (run through make test)";
	return why;
}

int tu_online_cpus(void)
{
	return (int)sysconf(_SC_NPROCESSORS_ONLN);
}

unsigned long tu_sample_freq(unsigned long want)
{
	uint64_t limit = perf_max_sample_rate();

	return limit && limit < want ? (unsigned long)limit : want;
}

const char *tu_stack_endings(const char *log, unsigned long *bad, unsigned long *all)
{
	unsigned long outermost, ret0, past, read_failed, truncated, in_exec = 0, copied = 0;
	const char *line = strstr(log, "ringtrace: user stacks: "), *in_exec_at;

	*bad = *all = 0;
	if (!line || !(line = strstr(line, "ending: ")) ||
	    sscanf(line, "ending: %lu outermost, %lu return address 0, %lu return address past "
			 "user space, %lu read failed, %lu bad frame, %lu truncated", &outermost,
		   &ret0, &past, &read_failed, bad, &truncated) != 6)
		return NULL;
	/* (and the stacks of an image an exec replaced, since 2026-12-02) */
	in_exec_at = strstr(line, " truncated, ");
	if (in_exec_at && in_exec_at < line + strcspn(line, "\n"))
		sscanf(in_exec_at, " truncated, %lu in an exec (the old image's stack gone), %lu copied",
		       &in_exec, &copied);
	/* (and the stacks copied where a table was not loaded yet, since
	 * 2026-12-02) */
	*all = outermost + ret0 + past + read_failed + *bad + truncated + in_exec + copied;
	return line;
}

void tu_folded_count(const char *folded_text, const char *frame, unsigned long *with,
		     unsigned long *all)
{
	size_t frame_len = strlen(frame);

	*with = *all = 0;
	for (const char *line = folded_text; line && *line;) {
		const char *end = strchr(line, '\n'), *space = NULL, *digits;
		const char *stop = end ? end : line + strlen(line);

		for (const char *p = line; p < stop; p++)
			if (*p == ' ')
				space = p;
		digits = space ? space + 1 : stop;
		/* "STACK COUNT": the count is all of what follows the last space */
		if (digits < stop && strspn(digits, "0123456789") == (size_t)(stop - digits)) {
			unsigned long count = strtoul(digits, NULL, 10);

			*all += count;
			for (const char *el = line; el < space;) {
				const char *semi = memchr(el, ';', (size_t)(space - el));
				size_t len = (size_t)((semi ? semi : space) - el);

				if (len == frame_len && !memcmp(el, frame, len)) {
					*with += count;
					break;
				}
				el = semi ? semi + 1 : space;
			}
		}
		line = end ? end + 1 : NULL;
	}
}

double tu_folded_share(const char *folded_text, const char *comm, const char *frame,
		       unsigned long *all)
{
	size_t n = strlen(comm), used = 0;
	char *own = calloc(1, strlen(folded_text) + 1);
	unsigned long with;

	assert_non_null(own);
	for (const char *line = folded_text; *line;) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) + 1 : strlen(line);

		if (!strncmp(line, comm, n) && line[n] == ';') {
			memcpy(own + used, line, len);
			used += len;
		}
		line += len;
	}
	tu_folded_count(own, frame, &with, all);
	free(own);
	return *all ? 100.0 * (double)with / (double)*all : 0;
}

/* Whether a folded line holds frames in that order. */
static bool holds_in_order(const char *line, const char *const *frames, size_t nr)
{
	const char *at = line;

	for (size_t i = 0; i < nr; i++) {
		char want[256];

		snprintf(want, sizeof(want), ";%s", frames[i]);
		at = strstr(at, want);
		if (!at)
			return false;
		at += strlen(want);
	}
	return true;
}

void tu_folded_in_order(const char *folded_text, const char *comm, const char *const *frames,
			size_t nr, unsigned long *total, unsigned long *with)
{
	size_t n = strlen(comm);

	*total = *with = 0;
	for (const char *line = folded_text; line && *line;) {
		const char *end = strchr(line, '\n');
		char *buf = strndup(line, end ? (size_t)(end - line) : strlen(line)), *space;

		assert_non_null(buf);
		space = strrchr(buf, ' ');
		if (space && !strncmp(buf, comm, n) && buf[n] == ';') {
			unsigned long count = strtoul(space + 1, NULL, 10);

			*total += count;
			if (holds_in_order(buf, frames, nr))
				*with += count;
		}
		free(buf);
		line = end ? end + 1 : NULL;
	}
}

/* The time a line of go tool pprof -traces starts with, in ms: false if none. */
static bool trace_time(const char *line, double *ms)
{
	char *unit;
	double v;

	while (*line == ' ')
		line++;
	if (*line < '0' || *line > '9')
		return false;
	v = strtod(line, &unit);
	if (!strncmp(unit, "ms", 2))
		*ms = v;
	else if (!strncmp(unit, "us", 2))
		*ms = v / 1e3;
	else if (!strncmp(unit, "ns", 2))
		*ms = v / 1e6;
	else if (*unit == 's')
		*ms = v * 1e3;
	else
		return false;
	return true;
}

char *tu_record_g(const char *dir, const char *scope, int seconds)
{
	char *log = NULL;
	int rc;

	/* seconds of sampling however long the start takes (the BPF programs'
	 * verification and the tables of a JVM or Node.js took 5 of a 6 s
	 * timeout beside make test-busy): a command timing the recording, as
	 * perf's "-- sleep N"; SIGINT bounds a start that never ends */
	rc = tu_sh(&log, "timeout -s INT %d %s record -v -g -F 999 %s -o %s/rec -- sleep %d 2>&1",
		   seconds + 120, tu_ringtrace(), scope, dir, seconds);
	tu_write_file(dir, "record.log", log, strlen(log));
	if (rc != 124 && rc != 0)
		fail_msg("record failed (%d):\n%s", rc, log);
	return log;
}

char *tu_folded_of(const char *dir)
{
	char *out = NULL;

	assert_int_equal(tu_sh(&out, "%s report %s/rec --folded", tu_ringtrace(), dir), 0);
	return out;
}

char *tu_script_with_map(const char *dir, pid_t pid, const char *fields)
{
	char *out = NULL;

	assert_int_equal(tu_sh(&out,
			       "cp %s/rec/perf-%d.map /tmp/perf-%d.map && "
			       "perf script %s%s -i %s/rec 2>/dev/null; rm -f /tmp/perf-%d.map",
			       dir, (int)pid, (int)pid, fields ? "-F " : "", fields ? fields : "",
			       dir, (int)pid),
			 0);
	return out;
}

void tu_script_share(const char *out, const char *const *frames, size_t nr, unsigned long *total,
		     unsigned long *matching)
{
	bool in_sample = false;
	size_t at = 0;

	*total = *matching = 0;
	for (const char *line = out; line && *line;) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		char want[512];

		if (!len) {
			*matching += in_sample && at == nr;
			in_sample = false;
		} else if (!in_sample) {
			in_sample = true;
			at = 0;
			(*total)++;
		} else if (at < nr) {
			/* the frame's name, then its offset */
			snprintf(want, sizeof(want), " %s+0x", frames[at]);
			at = memmem(line, len, want, strlen(want)) ? at + 1 : 0;
		}
		line = end ? end + 1 : NULL;
	}
	*matching += in_sample && at == nr;
}

void tu_pprof_traces_share(const char *traces, const char *const *leaf_first, size_t nr,
			   double *total, double *named)
{
	const char *sep = "-----------+";

	*total = *named = 0;
	for (const char *b = strstr(traces, sep); b; b = strstr(b + 1, sep)) {
		const char *end = strstr(b + 1, sep), *at = b;
		double ms = 0;
		size_t i;

		if (!end)
			end = b + strlen(b);
		for (const char *l = strchr(b, '\n'); l && l < end; l = strchr(l + 1, '\n'))
			if (trace_time(l + 1, &ms))
				break;
		*total += ms;
		for (i = 0; i < nr; i++) {
			at = strstr(at, leaf_first[i]);
			if (!at || at >= end)
				break;
			at += strlen(leaf_first[i]);
		}
		if (i == nr)
			*named += ms;
	}
}

char *tu_profile_endpoint_traces(const char *dir, pid_t pid, const char *const *leaf_first,
				 size_t nr, int *code, double *total, double *named)
{
	int port = tu_free_port();
	char *out = NULL, url[256];
	pid_t exporter;

	*code = 0;
	*total = *named = 0;
	/* room for every table of the machine (the default 16M holds those of
	 * the files the child meets first: with many processes running, an
	 * interpreter's may find none, and a sample in it then stops there, by
	 * frame pointers) */
	exporter = tu_start("export RUNTIME_DIRECTORY=%s; exec %s export --listen 127.0.0.1:%d -g "
			    "--unwind-mem 64M >%s/export.log 2>&1",
			    dir, tu_ringtrace(), port, dir);
	/* 503 until the sampling child runs */
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/debug/pprof/profile?seconds=1", port);
	for (int waited = 0; waited < 60 && *code != 200; waited++) {
		free(out);
		out = NULL;
		tu_sh(&out, "curl -s -o /dev/null -w '%%{http_code}' --max-time 10 '%s'", url);
		*code = out ? atoi(out) : 0;
		if (*code != 200)
			usleep(500000);
	}
	/* again while under 80%: the child compiles the start's tables first,
	 * which under the sanitizers may outlast a profile */
	for (int attempt = 1; *code == 200 && attempt <= 3; attempt++) {
		free(out);
		out = NULL;
		tu_sh(&out, "cd %s && HOME=%s go tool pprof -timeout=60 -traces "
			    "'http://127.0.0.1:%d/debug/pprof/profile?seconds=3&pid=%d' 2>&1",
		      dir, dir, port, (int)pid);
		tu_pprof_traces_share(out ? out : "", leaf_first, nr, total, named);
		print_message("profile endpoint: %.0f ms of %.0f with the frames asked for\n", *named,
			      *total);
		if (*total > 0 && *named >= *total * 0.8)
			break;
	}
	kill(exporter, SIGTERM);
	tu_wait_gone(exporter, 10);
	if (!out)
		out = strdup("");
	assert_non_null(out);
	return out;
}

/* What tu_start started and tu_stop has not stopped (nor the test reaped):
 * tu_stop_left stops it. */
static pid_t started[256];
static unsigned int nr_started;

/* Whether pid is a child of ours not yet reaped (it may have ended: a
 * zombie); a pid the test reaped itself is no longer ours to stop. */
static bool ours_unreaped(pid_t pid)
{
	siginfo_t info;

	return !waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT) || errno != ECHILD;
}

static void forget_started(pid_t pid)
{
	for (unsigned int i = 0; i < nr_started; i++)
		if (started[i] == pid) {
			started[i] = started[--nr_started];
			return;
		}
}

static void remember_started(pid_t pid)
{
	/* full: room made of those the test reaped itself */
	if (nr_started == sizeof(started) / sizeof(started[0]))
		for (unsigned int i = nr_started; i-- > 0;)
			if (!ours_unreaped(started[i]))
				started[i] = started[--nr_started];
	if (nr_started == sizeof(started) / sizeof(started[0])) {
		kill(-pid, SIGKILL);
		waitpid(pid, NULL, 0);
		fail_msg("more than %u processes started and not stopped: tu_stop them",
			 nr_started);
	}
	started[nr_started++] = pid;
}

int tu_stop(pid_t pid)
{
	int status = -1;

	if (pid <= 0)
		return -1;
	forget_started(pid);
	/* the group tu_start made, then pid itself (started otherwise) */
	kill(-pid, SIGTERM);
	kill(pid, SIGTERM);
	if (!tu_wait_gone(pid, 5)) {
		kill(-pid, SIGKILL);
		kill(pid, SIGKILL);
	}
	waitpid(pid, &status, 0);
	/* what of the group outlived its shell (a loop between two commands) */
	kill(-pid, SIGKILL);
	return status;
}

int tu_stop_left(void **state)
{
	(void)state;
	while (nr_started) {
		pid_t pid = started[nr_started - 1];

		if (ours_unreaped(pid))
			tu_stop(pid);
		else
			forget_started(pid);
	}
	return 0;
}

/* go tool pprof -raw's text */

/* Whether line (len bytes) is a sample's "  N N: ID ID ...": its values in
 * *count and *value, ids where its location ids start. */
static bool raw_sample_line(const char *line, size_t len, uint64_t *count, uint64_t *value,
			    const char **ids)
{
	const char *p = line, *end = line + len;
	uint64_t v[2];

	for (int i = 0; i < 2; i++) {
		char *after;

		if (p == end || (*p != ' ' && *p != '\t'))
			return false;
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (p == end || *p < '0' || *p > '9')
			return false;
		v[i] = strtoull(p, &after, 10);
		p = after;
	}
	/* ": " and the ids, none for a sample without a stack */
	if (end - p < 2 || p[0] != ':' || p[1] != ' ' ||
	    strspn(p + 2, "0123456789 ") < (size_t)(end - p - 2))
		return false;
	*count = v[0];
	*value = v[1];
	*ids = p + 2;
	return true;
}

static void raw_append(char **s, const char *sep, const char *text, size_t len)
{
	size_t have = *s ? strlen(*s) : 0, sep_len = have ? strlen(sep) : 0;

	*s = realloc(*s, have + sep_len + len + 1);
	assert_non_null(*s);
	memcpy(*s + have, sep, sep_len);
	memcpy(*s + have + sep_len, text, len);
	(*s)[have + sep_len + len] = '\0';
}

void tu_raw_parse(const char *raw, struct tu_raw_profile *p)
{
	char **names = NULL, **ids = NULL; /* names[location id]; each sample's ids */
	size_t nr_names = 0;
	enum { OTHER, SAMPLES, LOCATIONS } part = OTHER;

	memset(p, 0, sizeof(*p));
	for (const char *line = raw; line && *line;) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		const char *rest;
		uint64_t count, value, id;
		char *after;

		if (!strncmp(line, "Samples:", 8) || !strncmp(line, "Locations", 9) ||
		    !strncmp(line, "Mappings", 8)) {
			part = line[0] == 'S' ? SAMPLES : line[0] == 'L' ? LOCATIONS : OTHER;
		} else if (part == SAMPLES && raw_sample_line(line, len, &count, &value, &rest)) {
			p->samples = realloc(p->samples, (p->nr + 1) * sizeof(*p->samples));
			ids = realloc(ids, (p->nr + 1) * sizeof(*ids));
			assert_true(p->samples && ids);
			p->samples[p->nr] = (struct tu_raw_sample){ .count = count, .value = value };
			ids[p->nr] = strndup(rest, (size_t)(line + len - rest));
			assert_non_null(ids[p->nr]);
			p->nr++;
		} else if (part == SAMPLES && p->nr && memmem(line, len, ":[", 2)) {
			raw_append(&p->samples[p->nr - 1].labels, " ", line, len);
		} else if (part == LOCATIONS && (id = strtoull(line, &after, 10)) && after > line &&
			   !strncmp(after, ": 0x", 4) && id < 1000000) {
			/* "ID: 0xADDR M=N NAME ..." */
			const char *m = after + 4 + strspn(after + 4, "0123456789abcdef");
			const char *name;

			if (strncmp(m, " M=", 3) || !strchr("0123456789", m[3]) || !m[3])
				goto next;
			name = m + 3 + strspn(m + 3, "0123456789");
			if (*name != ' ' || name[1] == ' ' || name[1] == '\n' || !name[1])
				goto next;
			name++;
			if (id >= nr_names) {
				names = realloc(names, (id + 1) * sizeof(*names));
				assert_non_null(names);
				memset(names + nr_names, 0, (id + 1 - nr_names) * sizeof(*names));
				nr_names = id + 1;
			}
			free(names[id]);
			names[id] = strndup(name, strcspn(name, " \t\n"));
		}
next:
		line = end ? end + 1 : NULL;
	}
	/* the stacks, root first: the ids are leaf first */
	for (size_t i = 0; i < p->nr; i++) {
		const char *s = ids[i] + strlen(ids[i]);

		while (s > ids[i]) {
			const char *start, *name;
			uint64_t id;

			while (s > ids[i] && s[-1] == ' ')
				s--;
			start = s;
			while (start > ids[i] && start[-1] != ' ')
				start--;
			if (start == s)
				break;
			id = strtoull(start, NULL, 10);
			name = id < nr_names && names[id] ? names[id] : "?";
			raw_append(&p->samples[i].stack, ";", name, strlen(name));
			s = start;
		}
		if (!p->samples[i].stack)
			raw_append(&p->samples[i].stack, "", "", 0);
		if (!p->samples[i].labels)
			raw_append(&p->samples[i].labels, "", "", 0);
		free(ids[i]);
	}
	for (size_t i = 0; i < nr_names; i++)
		free(names[i]);
	free(names);
	free(ids);
}

void tu_raw_free(struct tu_raw_profile *p)
{
	for (size_t i = 0; i < p->nr; i++) {
		free(p->samples[i].stack);
		free(p->samples[i].labels);
	}
	free(p->samples);
	memset(p, 0, sizeof(*p));
}

bool tu_raw_label(const struct tu_raw_sample *s, const char *key, const char *value)
{
	char want[256];

	snprintf(want, sizeof(want), "%s:[%s]", key, value);
	return strstr(s->labels, want) != NULL;
}

bool tu_raw_frame(const struct tu_raw_sample *s, const char *frame)
{
	size_t len = strlen(frame);

	for (const char *el = s->stack; *el;) {
		size_t el_len = strcspn(el, ";");

		if (el_len == len && !memcmp(el, frame, len))
			return true;
		el += el_len;
		if (*el)
			el++;
	}
	return false;
}

/* Skipping */

static const char *skip_reason;

bool tu_skip_is_failure(void)
{
	const char *required = env("REQUIRE_INTEGRATION");

	return (required && strcmp(required, "0")) || env("CI");
}

void tu_skip_at(const char *file, int line, const char *fmt, ...)
{
	char reason[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	if (tu_skip_is_failure()) {
		/* fail_msg, at the caller's line */
		print_error("ERROR: cannot run here: %s (REQUIRE_INTEGRATION or CI is set: "
			    "a skip is a failure)\n", reason);
		_fail(file, line);
	} else {
		print_message("SKIP: %s\n", reason);
		_skip(file, line);
	}
	abort(); /* not reached: cmocka leaves the test */
}

void tu_set_skip_reason(const char *reason)
{
	skip_reason = reason;
	/* TEST_FILTER=PATTERN: only the tests whose names match (cmocka's * and ?) */
	if (getenv("TEST_FILTER"))
		cmocka_set_test_filter(getenv("TEST_FILTER"));
}

void tu_skip_unless_possible_at(const char *file, int line)
{
	if (skip_reason)
		tu_skip_at(file, line, "%s", skip_reason);
}

/* Reading a recording */

void tu_records_open(struct tu_records *r, const char *dir, unsigned int flags)
{
	memset(r, 0, sizeof(*r));
	r->flags = flags;
	if (perf_input_open(&r->in, dir, r->err, sizeof(r->err)))
		fail_msg("%s", r->err);
	if (r->in.nr_files)
		perf_record_iter_init(&r->it, &r->in.files[0]);
}

int tu_records_next(struct tu_records *r, const struct perf_event_header **rec)
{
	while (r->file < r->in.nr_files) {
		int n = perf_record_next(&r->it, rec, r->err, sizeof(r->err));

		if (n == 1)
			return 1;
		if (n < 0 && (r->flags & TU_RECORDS_STRICT))
			fail_msg("%s", r->err);
		if (n == 0 && r->it.truncated && (r->flags & TU_RECORDS_WHOLE))
			fail_msg("%s: the last record is cut short", r->in.files[r->file].path);
		if (++r->file < r->in.nr_files)
			perf_record_iter_init(&r->it, &r->in.files[r->file]);
	}
	return 0;
}

void tu_records_close(struct tu_records *r)
{
	perf_input_close(&r->in);
}

static bool is_tracking(const struct perf_input_event *ev)
{
	return ev && ev->attr.type == PERF_TYPE_SOFTWARE && ev->attr.config == PERF_COUNT_SW_DUMMY;
}

void tu_count_records(const char *dir, unsigned int flags, struct tu_record_counts *c)
{
	const struct perf_event_header *rec;
	struct tu_records r;

	memset(c, 0, sizeof(*c));
	tu_records_open(&r, dir, flags);
	while (tu_records_next(&r, &rec)) {
		struct perf_lost l;

		if (rec->type == PERF_RECORD_SAMPLE) {
			c->samples++;
			c->sample_bytes += rec->size;
			continue;
		}
		if (rec->type != PERF_RECORD_LOST && rec->type != PERF_RECORD_LOST_SAMPLES)
			continue;
		if (perf_lost_decode(rec, &l)) {
			if (flags & TU_RECORDS_STRICT)
				fail_msg("%s: a %s record that does not decode", r.in.files[r.file].path,
					 perf_record_type_name(rec->type));
			continue;
		}
		if (rec->type == PERF_RECORD_LOST_SAMPLES)
			c->lost_samples += l.lost;
		else if (is_tracking(perf_input_event_of(&r.in, rec)))
			c->sideband_lost += l.lost;
		else
			c->lost += l.lost;
	}
	tu_records_close(&r);
}

/* Writing a synthetic recording */

void tu_write_file(const char *dir, const char *name, const void *data, size_t len)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		fail_msg("cannot create %s: %s", path, strerror(errno));
	if (len && write(fd, data, len) != (ssize_t)len)
		fail_msg("cannot write %s: %s", path, strerror(errno));
	close(fd);
}

static void append(struct byte_buffer *b, const void *p, size_t len)
{
	if (!byte_buffer_append(b, p, len))
		fail_msg("out of memory");
}

static void append_u64(struct byte_buffer *b, uint64_t v)
{
	append(b, &v, sizeof(v));
}

#define TU_SAMPLE_ENCODABLE                                                                  \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |       \
	 PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |        \
	 PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW | PERF_SAMPLE_CGROUP)

void tu_sample_encode(struct byte_buffer *b, uint64_t sample_type, const struct perf_sample *s)
{
	struct perf_event_header h = { PERF_RECORD_SAMPLE, s->misc, 0 };
	size_t start = b->len;

	if (sample_type & ~(uint64_t)TU_SAMPLE_ENCODABLE)
		fail_msg("tu_sample_encode cannot lay out sample_type %#llx",
			 (unsigned long long)(sample_type & ~(uint64_t)TU_SAMPLE_ENCODABLE));
	append(b, &h, sizeof(h));
	if (sample_type & PERF_SAMPLE_IDENTIFIER)
		append_u64(b, s->id);
	if (sample_type & PERF_SAMPLE_IP)
		append_u64(b, s->ip);
	if (sample_type & PERF_SAMPLE_TID)
		append_u64(b, s->pid | (uint64_t)s->tid << 32);
	if (sample_type & PERF_SAMPLE_TIME)
		append_u64(b, s->time);
	if (sample_type & PERF_SAMPLE_ADDR)
		append_u64(b, s->addr);
	if (sample_type & PERF_SAMPLE_ID)
		append_u64(b, s->id);
	if (sample_type & PERF_SAMPLE_STREAM_ID)
		append_u64(b, s->stream_id);
	if (sample_type & PERF_SAMPLE_CPU)
		append_u64(b, s->cpu); /* u32 cpu, u32 reserved */
	if (sample_type & PERF_SAMPLE_PERIOD)
		append_u64(b, s->period);
	if (sample_type & PERF_SAMPLE_CALLCHAIN) {
		append_u64(b, s->nr_callchain);
		if (s->nr_callchain)
			append(b, s->callchain, s->nr_callchain * sizeof(uint64_t));
	}
	if (sample_type & PERF_SAMPLE_RAW) {
		append(b, &s->raw_size, sizeof(s->raw_size));
		if (s->raw_size)
			append(b, s->raw, s->raw_size);
		append(b, NULL, (8 - (sizeof(s->raw_size) + s->raw_size) % 8) % 8);
	}
	if (sample_type & PERF_SAMPLE_CGROUP)
		append_u64(b, s->cgroup);
	if (b->len - start > PERF_RECORD_MAX_SIZE)
		fail_msg("a sample of %zu bytes does not fit a record", b->len - start);
	h.size = (uint16_t)(b->len - start);
	memcpy(b->data + start, &h, sizeof(h));
}

void tu_recording_init(struct tu_recording *r, unsigned int nr_cpus)
{
	memset(r, 0, sizeof(*r));
	if (nr_cpus > TU_RECORDING_MAX_CPUS)
		fail_msg("%u CPU files: at most %d", nr_cpus, TU_RECORDING_MAX_CPUS);
	r->nr_cpus = nr_cpus;
}

struct perf_event_attr *tu_recording_event(struct tu_recording *r, const char *name, uint32_t type,
					   uint64_t config, uint64_t sample_type, uint64_t id)
{
	struct perf_data_event *ev;

	if (r->nr_events == TU_RECORDING_MAX_EVENTS)
		fail_msg("more than %d events", TU_RECORDING_MAX_EVENTS);
	ev = &r->events[r->nr_events];
	r->ids[r->nr_events++] = id;
	ev->name = name;
	ev->attr.type = type;
	ev->attr.config = config;
	ev->attr.sample_type = sample_type;
	ev->attr.sample_id_all = 1;
	return &ev->attr;
}

void tu_recording_sample(struct tu_recording *r, unsigned int event, const struct perf_sample *s)
{
	struct perf_sample copy = *s;

	if (event >= r->nr_events)
		fail_msg("no event %u", event);
	if (s->cpu >= r->nr_cpus)
		fail_msg("a sample on CPU %u of a recording of %u CPU files", s->cpu, r->nr_cpus);
	if (r->ids[event])
		copy.id = r->ids[event];
	tu_sample_encode(&r->cpu[s->cpu], r->events[event].attr.sample_type, &copy);
}

void tu_recording_write(const struct tu_recording *r, const char *dir)
{
	struct perf_data_event events[TU_RECORDING_MAX_EVENTS];
	struct perf_data_header h = r->header;
	char path[PATH_MAX], err[512];
	int fd;

	memcpy(events, r->events, sizeof(events));
	for (unsigned int i = 0; i < r->nr_events; i++)
		if (r->ids[i]) {
			events[i].ids = &r->ids[i];
			events[i].nr_ids = 1;
		}
	h.events = events;
	h.nr_events = r->nr_events;
	snprintf(path, sizeof(path), "%s/data", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		fail_msg("cannot create %s: %s", path, strerror(errno));
	if (perf_data_write_header(fd, &h, r->side.data, r->side.len, err, sizeof(err)))
		fail_msg("%s: %s", path, err);
	close(fd);
	for (unsigned int c = 0; c < r->nr_cpus; c++) {
		char name[32];

		snprintf(name, sizeof(name), "data.cpu%u", c);
		tu_write_file(dir, name, r->cpu[c].data, r->cpu[c].len);
	}
	if (r->kallsyms)
		tu_write_file(dir, "kallsyms", r->kallsyms, strlen(r->kallsyms));
}

void tu_recording_free(struct tu_recording *r)
{
	byte_buffer_free(&r->side);
	for (unsigned int c = 0; c < TU_RECORDING_MAX_CPUS; c++)
		byte_buffer_free(&r->cpu[c]);
}

void tu_print_text(const char *text)
{
	enum { PIECE = 1000 }; /* (under print_message's 1023 bytes) */

	while (text && *text) {
		size_t len = strcspn(text, "\n");

		if (len > PIECE)
			len = PIECE;
		else if (text[len] == '\n')
			len++;
		print_message("%.*s", (int)len, text);
		text += len;
	}
}

pid_t tu_start(const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;
	pid_t pid;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	pid = fork();
	if (pid < 0)
		fail_msg("cannot start %s: %s", cmd, strerror(errno));
	if (!pid) {
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);

		/* a process group of its own, which tu_stop ends whole: the
		 * background loops of "a & b & wait" with the shell */
		setpgid(0, 0);
		/* nothing of the test's own: no output it would wait for */
		if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 || dup2(null, 2) < 0)
			_exit(127);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	setpgid(pid, pid); /* before the child has: a tu_stop at once finds the group */
	remember_started(pid);
	return pid;
}

bool tu_running(pid_t pid)
{
	char path[64], state = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	if (fscanf(f, "%*d (%*[^)]) %c", &state) != 1)
		state = 0;
	fclose(f);
	return state && state != 'Z' && state != 'X';
}

bool tu_wait_gone(pid_t pid, double seconds)
{
	for (int i = 0; i < (int)(seconds * 100) && tu_running(pid); i++)
		usleep(10000);
	return !tu_running(pid);
}

double tu_process_cpu_seconds(pid_t pid)
{
	char path[64], text[1024], *p;
	unsigned long long utime, stime;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	assert_non_null(f);
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	/* after "(comm)": state ppid pgrp session tty tpgid flags minflt
	 * cminflt majflt cmajflt utime stime */
	p = strrchr(text, ')');
	assert_non_null(p);
	assert_int_equal(sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
				&utime, &stime), 2);
	return (double)(utime + stime) / (double)sysconf(_SC_CLK_TCK);
}

bool tu_signal_in(pid_t pid, const char *mask, int sig)
{
	char path[64], line[256], key[32];
	unsigned long long bits = 0;
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	snprintf(key, sizeof(key), "%s: %%llx", mask);
	f = fopen(path, "re");
	while (f && !found && fgets(line, sizeof(line), f))
		found = sscanf(line, key, &bits) == 1;
	if (f)
		fclose(f);
	return found && (bits & 1ULL << (sig - 1));
}

/* HEADER_TRACING_DATA as perf writes it (trace-cmd 0.6), from format texts. */
static void put_tracing_file(struct byte_buffer *b, const char *text, int size_bytes)
{
	uint64_t len = strlen(text);

	byte_buffer_append(b, &len, (size_t)size_bytes);
	byte_buffer_append(b, text, len);
}

void tu_tracing_data(struct byte_buffer *b, const char *system, const char *const *formats,
			 uint32_t nr)
{
	static const char magic[] = { 23, 8, 68, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	uint8_t little_endian = 0, long_size = 8;
	uint32_t page_size = 4096, zero = 0, one = 1;
	uint64_t no_cmdlines = 0;

	byte_buffer_append(b, magic, sizeof(magic));
	byte_buffer_append(b, "0.6", 4);
	byte_buffer_append(b, &little_endian, 1);
	byte_buffer_append(b, &long_size, 1);
	byte_buffer_append(b, &page_size, 4);
	byte_buffer_append(b, "header_page", 12);
	put_tracing_file(b, "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
		    "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
		    "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
		    "\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n", 8);
	byte_buffer_append(b, "header_event", 13);
	put_tracing_file(b, "# compressed entry header\n\ttype_len    :    5 bits\n"
		    "\ttime_delta  :   27 bits\n\tarray       :   32 bits\n\n"
		    "\tpadding     : type == 29\n\ttime_extend : type == 30\n"
		    "\ttime_stamp : type == 31\n\tdata max type_len  == 28\n", 8);
	byte_buffer_append(b, &zero, 4); /* no ftrace formats */
	byte_buffer_append(b, &one, 4);  /* one system */
	byte_buffer_append(b, system, strlen(system) + 1);
	byte_buffer_append(b, &nr, 4);
	for (uint32_t i = 0; i < nr; i++)
		put_tracing_file(b, formats[i], 8);
	byte_buffer_append(b, &zero, 4); /* no kallsyms */
	byte_buffer_append(b, &zero, 4); /* no printk formats */
	byte_buffer_append(b, &no_cmdlines, 8);
}

void tu_unique_build_id(const char *path)
{
	char *out = NULL;

	if (tu_sh(&out, "n=$(mktemp) && { printf '\\004\\000\\000\\000\\024\\000\\000\\000\\003\\000\\000\\000GNU\\000'; "
			"head -c 20 /dev/urandom; } > $n && objcopy --update-section .note.gnu.build-id=$n '%s' 2>&1; "
			"r=$?; rm -f $n; exit $r",
		  path))
		fail_msg("cannot give %s a build-id of its own (objcopy):\n%s", path, out);
	free(out);
}

int tu_free_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), port;

	assert_true(fd >= 0);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	port = ntohs(a.sin_port);
	close(fd);
	return port;
}
