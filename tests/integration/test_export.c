/* SPDX-License-Identifier: GPL-2.0-only */
/* test_export.c: ringtrace export (and record --metrics) with real components:
 * a busy process in a test cgroup shows as about one CPU second per second of
 * that cgroup's path,
 * promtool accepts a live scrape, a real Prometheus scrapes it (up == 1, the
 * cgroup's CPU seconds > 0), node_exporter serves the textfile without error;
 * and what a local user does cannot stop it: held connections, endless
 * renames, a port taken. Every process started here is stopped by its pid. */
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
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sys/cgroup.h"
#include "lib/monotonic.h"
#include "test_util.h"

/* GET url until it answers (up to seconds); the body, or NULL. */
static char *fetch(const char *url, double seconds)
{
	double until = monotonic_seconds() + seconds;

	do {
		char *out = NULL;

		if (!tu_sh(&out, "curl -sf --max-time 2 '%s'", url))
			return out;
		free(out);
		usleep(200000);
	} while (monotonic_seconds() < until);
	return NULL;
}

/* The value of a series line "NAME{LABELS} VALUE" in a scrape, or -1. */
static double series_value(const char *scrape, const char *series)
{
	const char *p = strstr(scrape, series);

	return p ? strtod(p + strlen(series), NULL) : -1.0;
}

struct env {
	char *dir;
	char cgroup[PATH_MAX];
	char cgroup_label[128];
	pid_t busy;
	int port;
};

/* A test cgroup with one busy process in it. */
static void make_busy_cgroup(struct env *env)
{
	const char *mount = cgroup2_mount();

	assert_non_null(mount);
	snprintf(env->cgroup_label, sizeof(env->cgroup_label), "/ringtrace-export-%d", (int)getpid());
	snprintf(env->cgroup, sizeof(env->cgroup), "%s%s", mount, env->cgroup_label);
	if (mkdir(env->cgroup, 0755) && errno != EEXIST)
		fail_msg("cannot create %s: %s", env->cgroup, strerror(errno));
	env->busy = tu_start("exec sh -c 'echo $$ > %s/cgroup.procs && exec %s spin 30' >/dev/null 2>&1",
			     env->cgroup, tu_loadgen());
}

static void teardown_env(struct env *env)
{
	tu_stop(env->busy);
	for (int i = 0; i < 50 && rmdir(env->cgroup) && errno == EBUSY; i++)
		usleep(100000);
	tu_rmtree(env->dir);
	free(env->dir);
}

/* The busy cgroup's CPU seconds per second as the kernel charges them to its
 * one process (about 1, less on a loaded machine), within 20%; and
 * promtool's check. */
static void check_cpu_seconds(struct env *env, const char *url)
{
	char series[256], *a, *b, path[PATH_MAX + 32], *out = NULL;
	double ta, tb, va, vb, ka, kb, rate, kernel_rate;
	FILE *f;

	snprintf(series, sizeof(series), "ringtrace_cpu_seconds_total{cgroup=\"%s\"} ", env->cgroup_label);
	sleep(1);
	a = fetch(url, 5);
	ta = monotonic_seconds();
	ka = tu_process_cpu_seconds(env->busy);
	assert_non_null(a);
	sleep(3);
	b = fetch(url, 5);
	tb = monotonic_seconds();
	kb = tu_process_cpu_seconds(env->busy);
	assert_non_null(b);
	va = series_value(a, series);
	vb = series_value(b, series);
	if (vb < 0)
		fail_msg("no %s in:\n%s", series, b);
	rate = (vb - (va < 0 ? 0 : va)) / (tb - ta);
	kernel_rate = (kb - ka) / (tb - ta);
	print_message("%s: %.3f CPU s per s, the kernel charged %.3f (one busy thread)\n",
		      env->cgroup_label, rate, kernel_rate);
	if (kernel_rate < 0.1)
		tu_skip("the busy thread got %.3f CPU s per s: the machine is too loaded to tell",
			kernel_rate);
	if (rate < 0.8 * kernel_rate || rate > 1.2 * kernel_rate)
		fail_msg("%.3f CPU seconds per second for one busy thread that the kernel charged %.3f: want them within 20%%",
			 rate, kernel_rate);
	snprintf(path, sizeof(path), "%s/scrape.txt", env->dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(b, f);
	fclose(f);
	if (tu_sh(&out, "promtool check metrics < %s 2>&1", path))
		fail_msg("promtool check metrics:\n%s", out);
	free(out);
	free(a);
	free(b);
}

/* A Prometheus server scraping the exporter every second. */
static void check_prometheus(struct env *env)
{
	char cfg[PATH_MAX + 32], data[PATH_MAX + 32], url[512], query[256], *body = NULL;
	int port = env->port + 1;
	double until;
	pid_t prom;
	FILE *f;

	snprintf(cfg, sizeof(cfg), "%s/prometheus.yml", env->dir);
	snprintf(data, sizeof(data), "%s/prometheus-data", env->dir);
	f = fopen(cfg, "w");
	assert_non_null(f);
	fprintf(f, "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
		   "scrape_configs:\n  - job_name: ringtrace\n    static_configs:\n"
		   "      - targets: ['127.0.0.1:%d']\n", env->port);
	fclose(f);
	prom = tu_start("exec prometheus --config.file=%s --storage.tsdb.path=%s --web.listen-address=127.0.0.1:%d >%s/prometheus.log 2>&1",
			cfg, data, port, env->dir);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/api/v1/query?query=up", port);
	until = monotonic_seconds() + 30;
	while (monotonic_seconds() < until) {
		free(body);
		body = fetch(url, 2);
		if (body && strstr(body, "\"1\"]"))
			break;
		sleep(1);
	}
	if (!body || !strstr(body, "\"1\"]")) {
		tu_stop(prom);
		fail_msg("Prometheus never saw up == 1: %s", body ? body : "(no answer)");
	}
	snprintf(query, sizeof(query), "ringtrace_cpu_seconds_total%%7Bcgroup%%3D%%22%s%%22%%7D",
		 env->cgroup_label);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/api/v1/query?query=%s", port, query);
	until = monotonic_seconds() + 10;
	while (monotonic_seconds() < until) {
		const char *v;

		free(body);
		body = fetch(url, 2);
		v = body ? strstr(body, "\"value\":[") : NULL;
		v = v ? strstr(v, ",\"") : NULL;
		if (v && strtod(v + 2, NULL) > 0) {
			print_message("Prometheus: %s\n", body);
			break;
		}
		sleep(1);
	}
	tu_stop(prom);
	if (!body || !strstr(body, "\"value\":["))
		fail_msg("Prometheus has no CPU seconds for %s: %s", env->cgroup_label,
			 body ? body : "(no answer)");
	free(body);
}

static void test_http_prometheus_and_promtool(void **state)
{
	struct env env = { 0 };
	char url[128];
	pid_t exporter;

	(void)state;
	tu_skip_unless_possible();
	env.dir = tu_tempdir();
	env.port = 20000 + (int)(getpid() % 20000);
	make_busy_cgroup(&env);
	exporter = tu_start("exec %s export --listen 127.0.0.1:%d >%s/export.log 2>&1", tu_ringtrace(),
			    env.port, env.dir);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/metrics", env.port);
	check_cpu_seconds(&env, url);
	check_prometheus(&env);
	tu_stop(exporter);
	teardown_env(&env);
}

/* record --metrics serves the same families from the samples it records. */
static void test_record_serves_metrics(void **state)
{
	struct env env = { 0 };
	char url[128];
	pid_t recording;

	(void)state;
	tu_skip_unless_possible();
	env.dir = tu_tempdir();
	env.port = 20000 + (int)((getpid() + 13) % 20000);
	make_busy_cgroup(&env);
	recording = tu_start("exec %s record -a --metrics 127.0.0.1:%d --force -o %s/rec -- sleep 10 >%s/record.log 2>&1",
			     tu_ringtrace(), env.port, env.dir, env.dir);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/metrics", env.port);
	check_cpu_seconds(&env, url);
	tu_stop(recording);
	teardown_env(&env);
}

/* As nobody, a busy process whose comm is an escape sequence and a bell
 * (ESC [31m evil BEL); root's record -p --metrics serves its CPU time with
 * the comm as text: no control byte in the scrape but the lines' ends, the
 * label `\\x1b[31mevil\\x07` (the text \x1b[31mevil\x07 to Prometheus). */
static void test_control_byte_comm_served_as_text(void **state)
{
	char url[128], *scrape = NULL;
	const char *want = "ringtrace_comm_cpu_seconds_total{comm=\"\\\\x1b[31mevil\\\\x07\"}";
	pid_t user, recording;
	char *dir;
	int port;

	(void)state;
	tu_skip_unless_possible();
	user = tu_start("exec setpriv --reuid=65534 --regid=65534 --clear-groups /usr/bin/python3 -c "
			"'import ctypes, time; ctypes.CDLL(None).prctl(15, b\"\\x1b[31mevil\\x07\", 0, 0, 0); "
			"t = time.time(); exec(\"while time.time() - t < 30: pass\")' >/dev/null 2>&1");
	dir = tu_tempdir();
	port = 20000 + (int)((getpid() + 29) % 20000);

	recording = tu_start("exec %s record -p %d --metrics 127.0.0.1:%d --force -o %s/rec >%s/record.log 2>&1",
			     tu_ringtrace(), (int)user, port, dir, dir);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/metrics", port);
	for (int i = 0; i < 40; i++) {
		free(scrape);
		scrape = fetch(url, 10);
		if (scrape && strstr(scrape, want))
			break;
		sleep(1);
	}
	tu_stop(recording);
	tu_stop(user);
	assert_non_null(scrape);
	for (const char *c = scrape; *c; c++)
		if (((unsigned char)*c < 0x20 && *c != '\n') || *c == 0x7f)
			fail_msg("a control byte 0x%02x in the scrape at %td:\n%s", (unsigned char)*c,
				 c - scrape, scrape);
	if (!strstr(scrape, want)) {
		char *log = NULL;

		tu_sh(&log, "cat %s/record.log", dir);
		print_message("record:\n%s\nscrape:\n%s\n", log, scrape);
		fail_msg("no %s in the scrape", want);
	}
	print_message("%.*s\n", (int)strcspn(strstr(scrape, want), "\n"), strstr(scrape, want));
	free(scrape);
	tu_rmtree(dir);
	free(dir);
}

/* The counter of name{reason="reason"} in a scrape, or -1. */
static double reason_value(const char *scrape, const char *name, const char *reason)
{
	char series[256];

	snprintf(series, sizeof(series), "%s{reason=\"%s\"} ", name, reason);
	return series_value(scrape, series);
}

/* record -g --metrics: the in-kernel unwinder's counts (what the totals
 * print at the end), the fall-backs to frame pointers and the ends of the
 * stacks each by reason; a scrape never shows more than the totals. */
static void test_record_metrics_unwind_counts(void **state)
{
	static const char *const fallbacks[] = { "no_process", "no_mapping", "no_table",
						 "expression", "stack_switch" };
	static const char *const ends[] = { "outermost",   "return_zero", "non_canonical",
					    "read_failed", "bad_frame",   "truncated", "in_exec",
					    "copied" };
	double ends_sum = 0;
	char url[128], path[PATH_MAX + 32], *dir, *body = NULL, *out = NULL;
	int port = 20000 + (int)((getpid() + 29) % 20000);
	unsigned long long total_stacks = 0, total_outermost = 0;
	double stacks = 0, outermost;
	const char *line;
	pid_t recording;

	(void)state;
	tu_skip_unless_possible();
	dir = tu_tempdir();
	recording = tu_start("exec %s record -v -g -F 499 --metrics 127.0.0.1:%d --force -o %s/rec -- %s spin 6 >%s/record.log 2>&1",
			     tu_ringtrace(), port, dir, tu_loadgen(), dir);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/metrics", port);
	/* until some stacks were unwound */
	for (int i = 0; i < 40 && stacks <= 0; i++) {
		free(body);
		body = fetch(url, 5);
		assert_non_null(body);
		stacks = series_value(body, "\nringtrace_unwind_stacks_total ");
		if (stacks <= 0)
			usleep(100000);
	}
	if (stacks <= 0)
		fail_msg("no ringtrace_unwind_stacks_total above 0 in:\n%s", body);
	for (size_t i = 0; i < sizeof(fallbacks) / sizeof(fallbacks[0]); i++)
		assert_true(reason_value(body, "ringtrace_unwind_fp_fallbacks_total", fallbacks[i]) >= 0);
	for (size_t i = 0; i < sizeof(ends) / sizeof(ends[0]); i++) {
		double v = reason_value(body, "ringtrace_unwind_stack_ends_total", ends[i]);

		assert_true(v >= 0);
		ends_sum += v;
	}
	/* a scrape sums the CPUs' counters one by one while they count: the
	 * ends may run a few stacks behind or ahead of the total */
	print_message("stacks %.0f, their ends %.0f\n", stacks, ends_sum);
	outermost = reason_value(body, "ringtrace_unwind_stack_ends_total", "outermost");
	assert_non_null(strstr(body, "# TYPE ringtrace_unwind_stack_ends_total counter\n"));
	assert_true(series_value(body, "\nringtrace_unwind_quick_frames_total ") >= 0);
	assert_non_null(strstr(body, "# TYPE ringtrace_unwind_quick_frames_total counter\n"));
	assert_true(reason_value(body, "ringtrace_unwind_stack_copies_total", "copied") >= 0);
	assert_true(reason_value(body, "ringtrace_unwind_stack_copies_total", "over_budget") >= 0);
	snprintf(path, sizeof(path), "%s/scrape.txt", dir);
	tu_write_file(dir, "scrape.txt", body, strlen(body));
	if (tu_sh(&out, "promtool check metrics < %s 2>&1", path))
		fail_msg("promtool check metrics:\n%s", out);
	free(out);
	/* the recording ends with its command: its totals count at least as much */
	assert_true(tu_wait_gone(recording, 30));
	assert_int_equal(tu_sh(&out, "cat %s/record.log", dir), 0);
	line = strstr(out, "user stacks: ");
	assert_non_null(line);
	assert_int_equal(sscanf(line, "user stacks: %llu (", &total_stacks), 1);
	line = strstr(line, "), ending: ");
	assert_non_null(line);
	assert_int_equal(sscanf(line, "), ending: %llu outermost", &total_outermost), 1);
	print_message("scraped %.0f stacks (%.0f outermost); the totals: %llu (%llu)\n", stacks,
		      outermost, total_stacks, total_outermost);
	assert_true(stacks <= (double)total_stacks);
	assert_true(outermost <= (double)total_outermost);
	assert_true(total_outermost > 0);
	free(out);
	free(body);
	tu_rmtree(dir);
	free(dir);
}

static void test_textfile_for_node_exporter(void **state)
{
	struct env env = { 0 };
	char url[128], path[PATH_MAX + 32], *body = NULL;
	pid_t exporter, node;
	struct stat st;

	(void)state;
	tu_skip_unless_possible();
	env.dir = tu_tempdir();
	env.port = 20000 + (int)((getpid() + 7) % 20000);
	make_busy_cgroup(&env);
	exporter = tu_start("exec %s export --textfile %s --interval 1 >%s/export.log 2>&1", tu_ringtrace(),
			    env.dir, env.dir);
	snprintf(path, sizeof(path), "%s/ringtrace.prom", env.dir);
	for (int i = 0; i < 50 && stat(path, &st); i++)
		usleep(100000);
	assert_int_equal(stat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	node = tu_start("exec prometheus-node-exporter --web.listen-address=127.0.0.1:%d --collector.disable-defaults --collector.textfile --collector.textfile.directory=%s >%s/node.log 2>&1",
			env.port, env.dir, env.dir);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/metrics", env.port);
	sleep(2);
	body = fetch(url, 10);
	tu_stop(node);
	tu_stop(exporter);
	if (!body || !strstr(body, "node_textfile_scrape_error 0") ||
	    !strstr(body, "ringtrace_cpu_seconds_total"))
		fail_msg("node_exporter's textfile collector:\n%s", body ? body : "(no answer)");
	free(body);
	teardown_env(&env);
}

/* Bad requests: one line, non-zero, nothing started. */
static void test_refused(void **state)
{
	static const char *const bad[] = {
		"export --listen nowhere",
		"export --listen 127.0.0.1:99999",
		"export -e cycles",
		"export --textfile /nonexistent/dir",
		"export --interval 0 --textfile /tmp",
		"export --off-cpu",
		"export -g --off-cpu-min 1ms",
		"export -g --off-cpu --off-cpu-min 5",
	};

	(void)state;
	tu_skip_unless_possible();
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *out = NULL;
		int rc = tu_sh(&out, "%s %s 2>&1", tu_ringtrace(), bad[i]);

		print_message("%s -> %d: %s", bad[i], rc, out);
		assert_int_equal(rc, 2);
		assert_ptr_equal(strchr(out, '\n'), out + strlen(out) - 1);
		free(out);
	}
}

/* A port for a server of this test: below the ephemeral range (32768 and up
 * here), where a client socket of some other test could hold it. */
static int test_port(int salt)
{
	return 20000 + (int)((getpid() * 7 + salt) % 12000);
}

/* Waits until url, served by pid, answers (up to seconds); stops pid and
 * fails the test with what pid wrote to log if it never does. */
static void wait_serving(pid_t pid, const char *url, double seconds, const char *log)
{
	char *body = fetch(url, seconds), *said = NULL;
	bool ran = tu_running(pid);

	if (!body) {
		tu_stop(pid);
		tu_sh(&said, "cat '%s'", log);
		fail_msg("%s never answered (%s): %s", url, ran ? "still running" : "it ended",
			 said ? said : "");
	}
	free(body);
}

/* A TCP connection to 127.0.0.1:port, not inherited by what the test runs. */
static int connect_local(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)))
		fail_msg("cannot connect to 127.0.0.1:%d: %s", port, strerror(errno));
	return fd;
}

/* Room for n more descriptors in this process (root may raise the hard limit). */
static void allow_fds(rlim_t n)
{
	struct rlimit rl;

	assert_int_equal(getrlimit(RLIMIT_NOFILE, &rl), 0);
	if (rl.rlim_cur >= n)
		return;
	rl.rlim_cur = n;
	if (rl.rlim_max < n)
		rl.rlim_max = n;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		tu_skip("cannot allow %lu open files: %s", (unsigned long)n, strerror(errno));
}

/* One local user holds 1200 connections open, half of them idle, half with a
 * request sent but for its end: a scraper that connects then is answered
 * within 5 s (before the fix: refused at once, the daemon at its limit). */
#define HELD_CONNECTIONS 1200

static void test_idle_connections_do_not_keep_a_scraper_out(void **state)
{
	static const char partial[] = "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n";
	char url[128], dir_log[PATH_MAX + 32], *out = NULL, *dir;
	int port = test_port(1), *held, rc;
	double t0, took;
	pid_t exporter;

	(void)state;
	tu_skip_unless_possible();
	allow_fds(HELD_CONNECTIONS + 256);
	dir = tu_tempdir();
	snprintf(dir_log, sizeof(dir_log), "%s/export.log", dir);
	exporter = tu_start("exec %s export --listen 127.0.0.1:%d >%s 2>&1", tu_ringtrace(), port, dir_log);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/metrics", port);
	wait_serving(exporter, url, 15, dir_log);
	held = calloc(HELD_CONNECTIONS, sizeof(*held));
	assert_non_null(held);
	for (int i = 0; i < HELD_CONNECTIONS; i++) {
		held[i] = connect_local(port);
		if (i % 2 && write(held[i], partial, sizeof(partial) - 1) != sizeof(partial) - 1)
			fail_msg("cannot send a partial request: %s", strerror(errno));
	}
	/* let the server take in every one of them before the scraper comes */
	usleep(500000);
	t0 = monotonic_seconds();
	rc = tu_sh(&out, "curl -sS --max-time 5 -o /dev/null -w '%%{http_code}' '%s' 2>&1", url);
	took = monotonic_seconds() - t0;
	print_message("scrape with %d connections held (half of them half-sent): %s in %.3f s\n",
		      HELD_CONNECTIONS, out, took);
	for (int i = 0; i < HELD_CONNECTIONS; i++)
		close(held[i]);
	free(held);
	tu_stop(exporter);
	if (rc || strcmp(out, "200") || took > 5)
		fail_msg("the scrape failed while %d connections were held: curl %d: %s",
			 HELD_CONNECTIONS, rc, out);
	free(out);
	tu_rmtree(dir);
	free(dir);
}

/* The sum of the values of the series of one family (lines "NAME{..." ). */
static double family_sum(const char *scrape, const char *name)
{
	size_t len = strlen(name);
	double sum = 0;

	for (const char *p = scrape; (p = strstr(p, name)); p += len) {
		const char *value = strchr(p, ' ');

		if ((p == scrape || p[-1] == '\n') && p[len] == '{') {
			if (!value)
				fail_msg("a series of %s without a value:\n%s", name, scrape);
			sum += strtod(value + 1, NULL);
		}
	}
	return sum;
}

/* A process renames itself to 20000 distinct comms while it burns CPU (each
 * name sampled, at 10 kHz): more than the comm map holds. A comm that comes
 * after still shows, the evictions are counted, the evicted time is other
 * (the comms add up to the cgroups), and a scrape stays fast. */
static void test_renames_do_not_fill_the_comm_map(void **state)
{
	char url[128], series[64], fresh[16], log[PATH_MAX + 16], *dir, *out = NULL, *body = NULL;
	int port = test_port(2), cpus = tu_online_cpus(), rc;
	double t0, took, comm_s, cgroup_s, evictions;
	pid_t exporter;

	(void)state;
	tu_skip_unless_possible();
	dir = tu_tempdir();
	snprintf(log, sizeof(log), "%s/export.log", dir);
	exporter = tu_start("exec %s export -F %lu --top 1000 --listen 127.0.0.1:%d >%s 2>&1",
			    tu_ringtrace(), tu_sample_freq(10000), port, log);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/metrics", port);
	wait_serving(exporter, url, 15, log);
	t0 = monotonic_seconds();
	if (cpus >= 2 ? tu_sh(&out, "%s --cpu 0 rename 10000 & %s --cpu 1 rename 10000; wait",
			      tu_loadgen(), tu_loadgen())
		      : tu_sh(&out, "%s rename 20000", tu_loadgen())) {
		tu_stop(exporter);
		fail_msg("loadgen rename: %s", out);
	}
	free(out);
	print_message("20000 renames in %.1f s\n", monotonic_seconds() - t0);
	snprintf(fresh, sizeof(fresh), "rtfresh%d", (int)(getpid() % 10000000));
	rc = tu_sh(&out, "%s --name %s spin 2", tu_loadgen(), fresh);
	free(out);
	t0 = monotonic_seconds();
	rc = rc ? rc : tu_sh(&body, "curl -sf --max-time 10 '%s'", url);
	took = monotonic_seconds() - t0;
	tu_stop(exporter);
	if (rc)
		fail_msg("no scrape after the renames (%d): %s", rc, body ? body : "");
	snprintf(series, sizeof(series), "ringtrace_comm_cpu_seconds_total{comm=\"%s\"} ", fresh);
	evictions = series_value(body, "ringtrace_map_evictions_total{map=\"comm\"} ");
	comm_s = family_sum(body, "ringtrace_comm_cpu_seconds_total");
	cgroup_s = family_sum(body, "ringtrace_cpu_seconds_total");
	print_message("scrape %.3f s; %s %.3f CPU s; %.0f comms evicted; comms %.3f s, cgroups %.3f s\n",
		      took, fresh, series_value(body, series), evictions, comm_s, cgroup_s);
	if (series_value(body, series) <= 0)
		fail_msg("%s does not show after the renames", fresh);
	if (evictions <= 0)
		fail_msg("no eviction counted after 20000 renames");
	if (took >= 1)
		fail_msg("a scrape took %.3f s", took);
	/* samples land between the reads of the two maps: a little slack */
	if (comm_s < cgroup_s * 0.98 - 0.05 || comm_s > cgroup_s * 1.02 + 0.05)
		fail_msg("comms add up to %.3f CPU s, cgroups to %.3f: evicted time vanished",
			 comm_s, cgroup_s);
	free(body);
	tu_rmtree(dir);
	free(dir);
}

/* A port another process listens on: one line, exit 1, before anything is
 * created or attached (record leaves no output directory). */
static void test_port_in_use(void **state)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), rc;
	char *dir, *out = NULL, path[PATH_MAX + 32];
	double t0, took;
	struct stat st;

	(void)state;
	tu_skip_unless_possible();
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(fd, 8), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	dir = tu_tempdir();
	t0 = monotonic_seconds();
	rc = tu_sh(&out, "%s export --listen 127.0.0.1:%d 2>&1", tu_ringtrace(), ntohs(a.sin_port));
	took = monotonic_seconds() - t0;
	print_message("export on a port in use -> %d in %.3f s: %s", rc, took, out);
	assert_int_equal(rc, 1);
	assert_ptr_equal(strchr(out, '\n'), out + strlen(out) - 1);
	assert_non_null(strstr(out, "in use"));
	assert_true(took < 2);
	free(out);
	snprintf(path, sizeof(path), "%s/rec", dir);
	rc = tu_sh(&out, "%s record -a --metrics 127.0.0.1:%d -o %s -- true 2>&1", tu_ringtrace(),
		   ntohs(a.sin_port), path);
	print_message("record --metrics on a port in use -> %d: %s", rc, out);
	assert_int_equal(rc, 1);
	assert_ptr_equal(strchr(out, '\n'), out + strlen(out) - 1);
	assert_non_null(strstr(out, "in use"));
	if (!stat(path, &st))
		fail_msg("record created %s before it found the port in use", path);
	free(out);
	close(fd);
	tu_rmtree(dir);
	free(dir);
}

/* A free port below 1024 on 127.0.0.1 (root binds it), or 0. */
static int free_privileged_port(int from)
{
	for (int port = from; port < 1024; port++) {
		struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1, ok;

		a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		ok = !bind(fd, (struct sockaddr *)&a, sizeof(a)) && !listen(fd, 1);
		close(fd);
		if (ok)
			return port;
	}
	return 0;
}

/* The value of "Name:\t<hex>" in /proc/PID/status, or ~0. */
static uint64_t status_hex(pid_t pid, const char *name)
{
	char path[64], line[256];
	uint64_t v = ~0ULL;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return v;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, name, strlen(name)) && line[strlen(name)] == ':')
			v = strtoull(line + strlen(name) + 1, NULL, 16);
	fclose(f);
	return v;
}

/* Whether url, served by pid, answers while pid holds no capability; stops
 * pid either way and fails the test if not. */
static void check_serves_without_caps(pid_t pid, const char *url)
{
	char *body = fetch(url, 15), path[64], comm[32] = "";
	uint64_t caps = status_hex(pid, "CapEff");
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	f = fopen(path, "r");
	if (f) {
		if (!fgets(comm, sizeof(comm), f))
			comm[0] = '\0';
		fclose(f);
	}
	tu_stop(pid);
	print_message("%s served by pid %d (%.*s), CapEff %016llx\n", url, (int)pid,
		      (int)strcspn(comm, "\n"), comm, (unsigned long long)caps);
	if (!body || !strstr(body, "ringtrace_build_info"))
		fail_msg("%s does not serve the metrics: %s", url, body ? body : "(no answer)");
	assert_string_equal(comm, "ringtrace\n");
	assert_int_equal(caps, 0);
	free(body);
}

/* Ports below 1024 as root: bound before the capabilities are dropped, served
 * after, by export and by record --metrics. */
static void test_privileged_port(void **state)
{
	char url[128], *dir;
	int port;
	pid_t pid;

	(void)state;
	tu_skip_unless_possible();
	port = free_privileged_port(900 + (int)(getpid() % 60));
	if (!port)
		fail_msg("no free port below 1024 on 127.0.0.1");
	dir = tu_tempdir();
	pid = tu_start("exec %s export --listen 127.0.0.1:%d >%s/export.log 2>&1", tu_ringtrace(), port, dir);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/metrics", port);
	check_serves_without_caps(pid, url);
	port = free_privileged_port(port + 1);
	if (!port)
		fail_msg("no free port below 1024 on 127.0.0.1");
	pid = tu_start("exec %s record -a --metrics 127.0.0.1:%d -o %s/rec -- sleep 10 >%s/record.log 2>&1",
		       tu_ringtrace(), port, dir, dir);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/metrics", port);
	check_serves_without_caps(pid, url);
	tu_rmtree(dir);
	free(dir);
}

/* The child's counts (its DIR/counts, written over each second) as served:
 * they appear, and as a CPU is kept busy the samples produced grow while
 * the losses stay a part of them. */
static void check_sampler_counts(const char *url, char **scrape)
{
	double produced[2], lost[2], side_lost;
	char *out = NULL, *later = NULL;

	for (int i = 0; i < 50 && !strstr(*scrape, "\nringtrace_sampler_samples_total "); i++) {
		free(*scrape);
		usleep(200000);
		*scrape = fetch(url, 5);
		assert_non_null(*scrape);
	}
	produced[0] = series_value(*scrape, "\nringtrace_sampler_samples_total ");
	lost[0] = series_value(*scrape, "\nringtrace_sampler_samples_lost_total ");
	side_lost = series_value(*scrape, "\nringtrace_sampler_sideband_lost_total ");
	/* two seconds of a busy CPU: 99 Hz of samples at least twice over */
	assert_int_equal(tu_sh(&out, "timeout 2.5 sh -c 'while :; do :; done'; true"), 0);
	free(out);
	later = fetch(url, 5);
	assert_non_null(later);
	produced[1] = series_value(later, "\nringtrace_sampler_samples_total ");
	lost[1] = series_value(later, "\nringtrace_sampler_samples_lost_total ");
	print_message("sampler: %.0f samples produced, %.0f lost, then %.0f and %.0f; %.0f side-band "
		      "records lost\n", produced[0], lost[0], produced[1], lost[1], side_lost);
	assert_true(produced[0] >= 0 && lost[0] >= 0 && side_lost >= 0);
	assert_true(produced[1] >= produced[0] + 99);
	assert_true(lost[1] >= lost[0] && lost[1] <= produced[1]);
	free(later);
}

/* Two profiles of a busy shell: the second finds the tables the first read
 * (sh's, libc's: the same inodes) kept, and the series say so. */
static void check_symbol_tables_kept(const char *url, int port)
{
	char *out = NULL, *scrape;
	double kept, read, bytes, budget;

	for (int i = 0; i < 2; i++) {
		assert_int_equal(tu_sh(&out, "(timeout 3 sh -c 'while :; do :; done' &); "
					     "curl -sf -o /dev/null 'http://127.0.0.1:%d/debug/pprof/profile?seconds=1'",
				       port), 0);
		free(out);
	}
	scrape = fetch(url, 5);
	assert_non_null(scrape);
	kept = series_value(scrape, "\nringtrace_profile_symbol_table_loads_total{source=\"kept\"} ");
	read = series_value(scrape, "\nringtrace_profile_symbol_table_loads_total{source=\"read\"} ");
	bytes = series_value(scrape, "\nringtrace_profile_symbol_table_bytes ");
	budget = series_value(scrape, "\nringtrace_profile_symbol_table_budget_bytes ");
	print_message("symbol tables: %.0f kept from a profile before, %.0f read; %.0f bytes kept "
		      "of a budget of %.0f\n", kept, read, bytes, budget);
	assert_true(read >= 1 && kept >= 1);
	/* within the budget (what the machine runs decides how close: a busy
	 * machine's JVM, Node.js and CPython took it to 23.9 of 24 MiB) */
	assert_true(bytes > 0 && budget > 0 && bytes <= budget);
	free(scrape);
}

/* export -g's sampling child counts in an agent's budget: its resident
 * memory and CPU time are served as ringtrace_sampler_*, and agree with
 * what the kernel says of the child (process_* are the exporter's alone);
 * its samples and losses too. */
static void test_sampler_child_in_metrics(void **state)
{
	char *dir = tu_tempdir(), url[128], log[PATH_MAX], *scrape = NULL, *out = NULL;
	int port = test_port(11);
	double rss, cpu, own_rss;
	long child_kb = 0;
	pid_t pid, child = 0;

	(void)state;
	tu_skip_unless_possible();
	snprintf(log, sizeof(log), "%s/export.log", dir);
	pid = tu_start("export RUNTIME_DIRECTORY=%s; exec %s export -g --listen 127.0.0.1:%d >%s 2>&1", dir,
		       tu_ringtrace(), port, log);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/metrics", port);
	wait_serving(pid, url, 30, log);
	/* the child once it is up: its series appear with it (within 120 s:
	 * its start, under the sanitizers beside load, takes tens of them) */
	for (int i = 0; i < 600 && (!scrape || !strstr(scrape, "\nringtrace_sampler_resident_memory_bytes ")); i++) {
		free(scrape);
		usleep(200000);
		scrape = fetch(url, 5);
		assert_non_null(scrape);
	}
	assert_int_equal(tu_sh(&out, "cat /proc/%d/task/%d/children", (int)pid, (int)pid), 0);
	child = (pid_t)atoi(out);
	free(out);
	assert_true(child > 0);
	assert_int_equal(tu_sh(&out, "awk '/^VmRSS:/ {print $2}' /proc/%d/status", (int)child), 0);
	child_kb = atol(out);
	free(out);
	rss = series_value(scrape, "\nringtrace_sampler_resident_memory_bytes ");
	cpu = series_value(scrape, "\nringtrace_sampler_cpu_seconds_total ");
	own_rss = series_value(scrape, "\nprocess_resident_memory_bytes ");
	print_message("sampler: %.0f bytes resident (the kernel: %ld KiB a moment later), %.2f s of "
		      "CPU; the exporter: %.0f bytes\n", rss, child_kb, cpu, own_rss);
	check_sampler_counts(url, &scrape);
	check_symbol_tables_kept(url, port);
	tu_stop(pid);
	/* the child's memory, not the exporter's: the child maps its rings and
	 * the unwinder's rows (tens of MiB), the exporter a few */
	assert_true(rss > 4 * 1048576.0);
	assert_true(rss >= child_kb * 1024.0 * 0.5 && rss <= child_kb * 1024.0 * 2);
	assert_true(rss != own_rss);
	assert_true(cpu > 0);
	free(scrape);
	tu_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_http_prometheus_and_promtool, tu_stop_left),
		cmocka_unit_test_teardown(test_record_serves_metrics, tu_stop_left),
		cmocka_unit_test_teardown(test_control_byte_comm_served_as_text, tu_stop_left),
		cmocka_unit_test_teardown(test_record_metrics_unwind_counts, tu_stop_left),
		cmocka_unit_test_teardown(test_textfile_for_node_exporter, tu_stop_left),
		cmocka_unit_test_teardown(test_refused, tu_stop_left),
		cmocka_unit_test_teardown(test_idle_connections_do_not_keep_a_scraper_out, tu_stop_left),
		cmocka_unit_test_teardown(test_renames_do_not_fill_the_comm_map, tu_stop_left),
		cmocka_unit_test_teardown(test_port_in_use, tu_stop_left),
		cmocka_unit_test_teardown(test_privileged_port, tu_stop_left),
		cmocka_unit_test_teardown(test_sampler_child_in_metrics, tu_stop_left),
	};

	const char *why = tu_integration_skip_reason();

	if (!why && system("command -v promtool prometheus prometheus-node-exporter curl >/dev/null"))
		why = "promtool, prometheus, prometheus-node-exporter or curl is missing (make deps installs them)";
	tu_set_skip_reason(why);
	return cmocka_run_group_tests(tests, NULL, tu_stop_left);
}
