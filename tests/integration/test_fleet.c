/* SPDX-License-Identifier: GPL-2.0-only */
/* test_fleet.c: ringtrace export as a fleet runs it: a landing page, the
 * process_* metrics and build info; a cgroup created, sampled and removed
 * before any scrape named by its path, then its series gone after the grace
 * period; no textfile left after SIGTERM or SIGINT; TLS and basic auth from a
 * web config (curl with a certificate made here); every query of the Grafana
 * dashboard answered by a real Prometheus scraping export and record
 * --metrics; the profile endpoints (-g, --off-cpu) read by go tool pprof.
 * Every process started here is stopped by its pid. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <crypt.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sys/cgroup.h"
#include "lib/monotonic.h"
#include "test_util.h"

/* A port for a server of this test: below the ephemeral range (32768 and
 * up), chosen by pid so that tests running at once do not collide. */
static int test_port(int salt)
{
	return 20000 + (int)((getpid() * 13 + salt * 101) % 12000);
}

/* GET url with curl's extra options until it answers 200 (up to seconds,
 * each request given request_seconds); the body, or NULL. */
static char *fetch_within(const char *curl_opts, const char *url, double seconds,
			  int request_seconds)
{
	double until = monotonic_seconds() + seconds;

	do {
		char *out = NULL;

		if (!tu_sh(&out, "curl -sf --max-time %d %s '%s'", request_seconds, curl_opts, url))
			return out;
		free(out);
		usleep(200000);
	} while (monotonic_seconds() < until);
	return NULL;
}

/* The same, each request given 3 s. */
static char *fetch(const char *curl_opts, const char *url, double seconds)
{
	return fetch_within(curl_opts, url, seconds, 3);
}

/* The value of the first line starting with series (name and labels, and a
 * space), or -1. */
static double value_of(const char *scrape, const char *series)
{
	size_t len = strlen(series);

	for (const char *p = scrape; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, series, len) && p[len] == ' ')
			return strtod(p + len + 1, NULL);
	return -1;
}

/* An exporter on port with extra options; waits until it serves. */
static pid_t start_exporter(const char *dir, int port, const char *opts)
{
	char url[128], *body;
	pid_t pid = tu_start("exec %s export --listen 127.0.0.1:%d %s >%s/export.log 2>&1",
			     tu_ringtrace(), port, opts, dir);

	snprintf(url, sizeof(url), "http://127.0.0.1:%d/", port);
	body = strstr(opts, "web-config") ? (char *)"" : fetch("", url, 15);
	if (!body) {
		char *log = NULL;

		tu_stop(pid);
		tu_sh(&log, "cat %s/export.log", dir);
		fail_msg("the exporter never served %s: %s", url, log);
	}
	if (*body)
		free(body);
	return pid;
}

static void test_landing_page_and_process_metrics(void **state)
{
	char *dir = tu_tempdir(), url[128], *page, *metrics, *out = NULL, path[PATH_MAX + 32];
	int port = test_port(1);
	double start, open_fds, max_fds, rss, cpu;
	pid_t pid;
	FILE *f;

	(void)state;
	tu_skip_unless_possible();
	pid = start_exporter(dir, port, "");
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/", port);
	page = fetch("", url, 5);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/metrics", port);
	metrics = fetch("", url, 5);
	assert_int_equal(tu_sh(&out, "curl -s -o /dev/null -w '%%{http_code} %%{content_type}' "
				     "http://127.0.0.1:%d/", port), 0);
	tu_stop(pid);
	assert_non_null(page);
	assert_non_null(metrics);
	print_message("/ -> %s\n", out);
	assert_non_null(strstr(out, "200 text/html"));
	if (!strstr(page, "<a href=\"metrics\">"))
		fail_msg("/ does not link to /metrics:\n%s", page);
	start = value_of(metrics, "process_start_time_seconds");
	open_fds = value_of(metrics, "process_open_fds");
	max_fds = value_of(metrics, "process_max_fds");
	rss = value_of(metrics, "process_resident_memory_bytes");
	cpu = value_of(metrics, "process_cpu_seconds_total");
	print_message("start %.3f, fds %.0f of %.0f, rss %.0f, cpu %.3f s\n", start, open_fds, max_fds,
		      rss, cpu);
	/* started within the last minute, by the clock of the epoch */
	assert_true(start > (double)time(NULL) - 60 && start <= (double)time(NULL) + 1);
	assert_true(open_fds >= 3 && open_fds <= max_fds);
	assert_true(rss > 1 << 20);
	assert_true(cpu >= 0 && cpu < 60);
	assert_true(value_of(metrics, "process_virtual_memory_bytes") >= rss);
	assert_non_null(strstr(metrics, "# TYPE process_cpu_seconds_total counter\n"));
	assert_non_null(strstr(metrics, "ringtrace_build_info{libbpf=\"v"));
	assert_non_null(strstr(metrics, "version=\"" RINGTRACE_VERSION "\"} 1\n"));
	assert_non_null(strstr(metrics, "revision=\""));
	snprintf(path, sizeof(path), "%s/scrape.txt", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(metrics, f);
	fclose(f);
	free(out);
	if (tu_sh(&out, "promtool check metrics < %s 2>&1", path))
		fail_msg("promtool check metrics:\n%s", out);
	free(out);
	free(page);
	free(metrics);
	tu_rmtree(dir);
	free(dir);
}

/* Stopped by sig, the exporter exits 0 and leaves no textfile behind. */
static void check_textfile_removed(int sig)
{
	char *dir = tu_tempdir(), path[PATH_MAX + 32];
	struct stat st;
	int status;
	pid_t pid = tu_start("exec %s export --textfile %s --interval 1 >%s/export.log 2>&1",
			     tu_ringtrace(), dir, dir);

	snprintf(path, sizeof(path), "%s/ringtrace.prom", dir);
	for (int i = 0; i < 100 && stat(path, &st); i++)
		usleep(100000);
	if (stat(path, &st)) {
		tu_stop(pid);
		fail_msg("no %s after 10 s", path);
	}
	kill(pid, sig);
	if (!tu_wait_gone(pid, 10))
		kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	print_message("%s: exit status %d, %s\n", strsignal(sig), WEXITSTATUS(status),
		      stat(path, &st) ? "no textfile" : "the textfile is still there");
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_not_equal(stat(path, &st), 0);
	tu_rmtree(dir);
	free(dir);
}

static void test_textfile_removed_on_exit(void **state)
{
	(void)state;
	tu_skip_unless_possible();
	check_textfile_removed(SIGTERM);
	check_textfile_removed(SIGINT);
}

#define GRACE_S 3

/* The CPU seconds the kernel charged cgroup (its cpu.stat usage_usec). */
static double cgroup_cpu_seconds(const char *cgroup)
{
	char path[PATH_MAX + 16], line[128];
	unsigned long long usec = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/cpu.stat", cgroup);
	f = fopen(path, "re");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "usage_usec %llu", &usec) == 1)
			break;
	fclose(f);
	return usec / 1e6;
}

/* A cgroup created, sampled and removed before any scrape: named by its path
 * at its first sample; its series gone once it has been gone GRACE_S; what
 * the exporter removed is not counted as evicted. */
static void test_removed_cgroup(void **state)
{
	char *dir = tu_tempdir(), url[128], series[256], cgroup[PATH_MAX], label[128], opts[64];
	char *body = NULL, *out = NULL, *unknown;
	int port = test_port(2);
	const char *mount = cgroup2_mount();
	double removed, seconds, until, charged;
	pid_t pid;

	(void)state;
	tu_skip_unless_possible();
	assert_non_null(mount);
	snprintf(opts, sizeof(opts), "--cgroup-grace %d", GRACE_S);
	pid = start_exporter(dir, port, opts);
	snprintf(label, sizeof(label), "/ringtrace-fleet-%d", (int)getpid());
	snprintf(cgroup, sizeof(cgroup), "%s%s", mount, label);
	if (mkdir(cgroup, 0755) && errno != EEXIST) {
		tu_stop(pid);
		fail_msg("cannot create %s: %s", cgroup, strerror(errno));
	}
	/* a second of CPU in the cgroup, then the cgroup is removed */
	if (tu_sh(&out, "sh -c 'echo $$ > %s/cgroup.procs && exec %s spin 1' 2>&1", cgroup,
		  tu_loadgen())) {
		tu_stop(pid);
		rmdir(cgroup);
		fail_msg("cannot run loadgen in %s: %s", cgroup, out);
	}
	free(out);
	/* what the kernel charged the cgroup (a busy machine gives the
	 * second's spin a share of a CPU) */
	charged = cgroup_cpu_seconds(cgroup);
	for (int i = 0; i < 50 && rmdir(cgroup) && errno == EBUSY; i++)
		usleep(100000);
	removed = monotonic_seconds();
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/metrics", port);
	snprintf(series, sizeof(series), "ringtrace_cpu_seconds_total{cgroup=\"%s\"}", label);
	body = fetch("", url, 5);
	assert_non_null(body);
	seconds = value_of(body, series);
	unknown = strstr(body, "unknown_cgroup_id:");
	print_message("%s: %.3f s after it was removed (the kernel charged it %.3f s)\n", series,
		      seconds, charged);
	/* sampled, so near the kernel's count, not equal */
	if (charged < 0.05 || seconds < charged * 0.5 || seconds > charged * 1.5 + 0.05) {
		tu_stop(pid);
		fail_msg("the removed cgroup %s has %.3f CPU s (the kernel charged it %.3f s), or no "
			 "name:\n%.*s", label, seconds, charged,
			 unknown ? (int)strcspn(unknown, "\n") : 0, unknown ? unknown : "");
	}
	free(body);
	/* gone after the grace period (and never before it) */
	until = removed + GRACE_S + 10;
	do {
		body = fetch("", url, 5);
		assert_non_null(body);
		seconds = value_of(body, series);
		if (seconds < 0)
			break;
		free(body);
		body = NULL;
		usleep(250000);
	} while (monotonic_seconds() < until);
	print_message("the series ended %.1f s after the cgroup was removed (grace %d s); cgroup "
		      "evictions %.0f\n",
		      monotonic_seconds() - removed, GRACE_S,
		      body ? value_of(body, "ringtrace_map_evictions_total{map=\"cgroup\"}") : -1);
	tu_stop(pid);
	if (seconds >= 0)
		fail_msg("%s still served %.0f s after the cgroup was removed", series, monotonic_seconds() - removed);
	assert_true(monotonic_seconds() - removed >= GRACE_S - 0.5);
	assert_true(value_of(body, "ringtrace_map_evictions_total{map=\"cgroup\"}") == 0);
	free(body);
	tu_rmtree(dir);
	free(dir);
}

/* A self-signed certificate for 127.0.0.1, a bcrypt hash, a web config. */
static void make_web_config(const char *dir, const char *user, const char *password)
{
	char *out = NULL, path[PATH_MAX + 32], *setting = crypt_gensalt_ra("$2b$", 6, NULL, 0);
	const char *hash = setting ? crypt(password, setting) : NULL;
	FILE *f;

	assert_non_null(hash);
	assert_true(hash[0] == '$');
	if (tu_sh(&out, "cd %s && openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 "
			"-nodes -keyout key.pem -out cert.pem -days 2 -subj /CN=127.0.0.1 "
			"-addext subjectAltName=IP:127.0.0.1 2>&1",
		  dir))
		fail_msg("openssl: %s", out);
	free(out);
	snprintf(path, sizeof(path), "%s/web.yml", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "tls_server_config:\n  cert_file: cert.pem\n  key_file: key.pem\n"
		   "basic_auth_users:\n  %s: %s\n", user, hash);
	fclose(f);
	free(setting);
}

static void test_tls_and_basic_auth(void **state)
{
	char *dir = tu_tempdir(), opts[PATH_MAX + 64], url[128], curl[PATH_MAX + 64], *out = NULL;
	char *body = NULL;
	int port = test_port(3);
	pid_t pid;

	(void)state;
	tu_skip_unless_possible();
	make_web_config(dir, "prometheus", "s3cret pass");
	snprintf(opts, sizeof(opts), "--web-config-file %s/web.yml", dir);
	pid = start_exporter(dir, port, opts);
	snprintf(url, sizeof(url), "https://127.0.0.1:%d/metrics", port);
	snprintf(curl, sizeof(curl), "--cacert %s/cert.pem -u 'prometheus:s3cret pass'", dir);
	body = fetch(curl, url, 15);
	if (!body) {
		tu_stop(pid);
		tu_sh(&out, "cat %s/export.log", dir);
		fail_msg("no TLS scrape with the password: %s", out);
	}
	assert_non_null(strstr(body, "ringtrace_build_info"));
	free(body);
	/* refused: no password, a wrong one, an unknown user, plain HTTP */
	tu_sh(&out, "for u in '' '-u prometheus:wrong' '-u nobody:s3cret' ; do "
		    "curl -s --max-time 5 --cacert %s/cert.pem $u -o /dev/null -w '%%{http_code} ' %s; done; "
		    "curl -s --max-time 5 -o /dev/null -w '%%{http_code}' http://127.0.0.1:%d/metrics",
	      dir, url, port);
	print_message("without the password, with a wrong one, an unknown user, over HTTP: %s\n", out);
	assert_string_equal(out, "401 401 401 000");
	free(out);
	/* the landing page asks for it too */
	tu_sh(&out, "curl -s --max-time 5 --cacert %s/cert.pem -o /dev/null -w '%%{http_code}' "
		    "https://127.0.0.1:%d/",
	      dir, port);
	assert_string_equal(out, "401");
	free(out);
	/* probes carry no password: /healthz answers them, and says nothing */
	tu_sh(&out, "curl -s --max-time 5 --cacert %s/cert.pem https://127.0.0.1:%d/healthz",
	      dir, port);
	assert_string_equal(out, "ok\n");
	free(out);
	tu_stop(pid);
	tu_rmtree(dir);
	free(dir);
}

/* Web configs refused: one line, exit 2, before anything is attached. */
static void test_web_config_refused(void **state)
{
	static const char *const bad[] = {
		"tls_server_config:\n  cert_file: missing.pem\n  key_file: missing.pem\n",
		"tls_server_config:\n  cert_file: x.pem\n",
		"tls_server_config:\n  cert_file: x.pem\n  key_file: x.pem\n  client_ca_file: ca.pem\n",
		"basic_auth_users:\n  alice: not-a-hash\n",
		"http_server_config:\n  http2: false\n",
		"basic_auth_users: [alice\n",
	};
	char *dir = tu_tempdir(), path[PATH_MAX + 32];

	(void)state;
	tu_skip_unless_possible();
	snprintf(path, sizeof(path), "%s/web.yml", dir);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *out = NULL;
		FILE *f = fopen(path, "w");
		int rc;

		assert_non_null(f);
		fputs(bad[i], f);
		fclose(f);
		rc = tu_sh(&out, "%s export --listen 127.0.0.1:1 --web-config-file %s 2>&1",
			   tu_ringtrace(), path);
		print_message("-> %d: %s", rc, out);
		assert_int_equal(rc, 2);
		assert_ptr_equal(strchr(out, '\n'), out + strlen(out) - 1);
		free(out);
	}
	tu_rmtree(dir);
	free(dir);
}

/* Each dashboard query with Grafana's variables as a dashboard of all jobs
 * "ringtrace" would set them, into file, one a line. */
static void dashboard_queries(const char *file)
{
	const char *src = getenv("RINGTRACE_SRC");
	char *out = NULL;

	if (!src || !*src)
		tu_skip("RINGTRACE_SRC is not set: run the test through make (make check)");
	if (tu_sh(&out, "python3 -c 'import json, sys\n"
			"d = json.load(open(sys.argv[1]))\n"
			"for p in d[\"panels\"]:\n"
			"    for t in p[\"targets\"]:\n"
			"        e = t[\"expr\"].replace(\"$__rate_interval\", \"20s\")\n"
			"        e = e.replace(\"$job\", \"ringtrace\").replace(\"$instance\", \".*\")\n"
			"        e = e.replace(\"$pod_uid\", \".*\").replace(\"$container_id\", \".*\")\n"
			"        print(e.replace(\"\\n\", \" \"))' %s/deploy/grafana/ringtrace-dashboard.json > %s 2>&1",
		  src, file))
		fail_msg("reading the dashboard: %s", out);
	free(out);
}

/* Waits for Prometheus at port to answer query with a non-empty vector (in
 * promtool's JSON: an empty one is "[]"); the answer, or NULL after seconds. */
static char *prometheus_query(int port, const char *query, double seconds)
{
	double until = monotonic_seconds() + seconds;
	char *out = NULL;

	do {
		free(out);
		out = NULL;
		if (!tu_sh(&out, "promtool query instant -o json http://127.0.0.1:%d '%s' 2>&1", port,
			   query) &&
		    strstr(out, "\"value\""))
			return out;
		sleep(1);
	} while (monotonic_seconds() < until);
	print_message("promtool query instant '%s': %s\n", query, out ? out : "");
	free(out);
	return NULL;
}

/* A busy process in a cgroup named as kubelet's systemd driver and
 * containerd name a container's (under a test cgroup of its own): the
 * dashboard's container panel has a row. Its pid; *base the test cgroup. */
#define POD_UID_ "d1f6a2b4_3c5e_4f70_8a9b_0c1d2e3f4a5b"
#define CONTAINER_ID "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define POD_PATH                                                                       \
	"kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" POD_UID_ ".slice/" \
	"cri-containerd-" CONTAINER_ID ".scope"

static pid_t start_pod_running(char *base, size_t len, const char *command)
{
	char *out = NULL;

	snprintf(base, len, "%s/ringtrace-fleet-%d", cgroup2_mount(), (int)getpid());
	if (tu_sh(&out, "mkdir -p %s/" POD_PATH " 2>&1", base))
		fail_msg("cannot make the pod's cgroup: %s", out);
	free(out);
	/* each shell execs the next: the pid returned is the command's */
	return tu_start("exec sh -c 'echo $$ > %s/" POD_PATH "/cgroup.procs && exec %s' >/dev/null 2>&1",
			base, command);
}

static pid_t start_pod(char *base, size_t len)
{
	char command[PATH_MAX + 32];

	snprintf(command, sizeof(command), "%s spin 120", tu_loadgen());
	return start_pod_running(base, len, command);
}

static void stop_pod(pid_t pid, const char *base)
{
	char *out = NULL;

	tu_stop(pid);
	/* the deepest first: rmdir of each cgroup of the path */
	tu_sh(&out, "d=%s/" POD_PATH "; while [ \"$d\" != %s ]; do rmdir $d; d=${d%%/*}; done; rmdir %s",
	      base, base, base);
	free(out);
}

static void test_dashboard_queries(void **state)
{
	char *dir = tu_tempdir(), path[PATH_MAX + 32], query[4096], *out = NULL;
	int export_port = test_port(4), record_port = test_port(5), prom_port = test_port(6);
	int failures = 0, nr = 0;
	pid_t exporter, recording, prom;
	FILE *f;

	char base[PATH_MAX];
	pid_t pod;

	(void)state;
	tu_skip_unless_possible();
	pod = start_pod(base, sizeof(base));
	exporter = start_exporter(dir, export_port, "");
	recording = tu_start("exec %s record -a --metrics 127.0.0.1:%d -o %s/rec "
			     ">%s/record.log 2>&1",
			     tu_ringtrace(), record_port, dir, dir);
	snprintf(path, sizeof(path), "%s/prometheus.yml", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
		   "scrape_configs:\n  - job_name: ringtrace\n    static_configs:\n"
		   "      - targets: ['127.0.0.1:%d', '127.0.0.1:%d']\n",
		export_port, record_port);
	fclose(f);
	prom = tu_start("exec prometheus --config.file=%s --storage.tsdb.path=%s/data "
			"--web.listen-address=127.0.0.1:%d >%s/prometheus.log 2>&1",
			path, dir, prom_port, dir);
	/* both targets up, and rates over a few scrapes */
	out = prometheus_query(prom_port, "count(up{job=\"ringtrace\"} == 1) == 2", 20);
	if (out) {
		free(out);
		out = prometheus_query(prom_port,
				       "count(rate(ringtrace_cpu_seconds_total[20s])) > 0", 15);
	}
	if (!out) {
		tu_stop(prom);
		tu_stop(recording);
		tu_stop(exporter);
		stop_pod(pod, base);
		fail_msg("Prometheus never scraped both exporters");
	}
	free(out);
	snprintf(path, sizeof(path), "%s/queries.txt", dir);
	dashboard_queries(path);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(query, sizeof(query), f)) {
		query[strcspn(query, "\n")] = '\0';
		nr++;
		out = prometheus_query(prom_port, query, 10);
		if (!out) {
			print_message("no answer to %s\n", query);
			failures++;
			continue;
		}
		print_message("%s:\n  %.*s\n", query, (int)strcspn(out, "\n"), out);
		free(out);
	}
	fclose(f);
	/* the variables' own queries: label_values(ringtrace_build_info, job) */
	tu_sh(&out, "curl -s 'http://127.0.0.1:%d/api/v1/label/job/values?match%%5B%%5D=ringtrace_build_info'",
	      prom_port);
	tu_stop(prom);
	tu_stop(recording);
	tu_stop(exporter);
	stop_pod(pod, base);
	print_message("%d queries, %d without an answer; job values: %s\n", nr, failures, out);
	assert_true(nr >= 10);
	assert_int_equal(failures, 0);
	assert_non_null(strstr(out, "\"ringtrace\""));
	free(out);
	tu_rmtree(dir);
	free(dir);
}

/* Of the samples of unwindgen process pid in `go tool pprof -raw` output raw
 * (another unwindgen of the machine's is not counted): how many, how many
 * with the stack uw_a;uw_b;uw_c (leaf last), how many of those
 * labelled with the pod's container id and uid. */
static void count_profile(const char *raw, pid_t pid, int *total, int *chain, int *labelled)
{
	struct tu_raw_profile p;
	char pid_text[16];

	snprintf(pid_text, sizeof(pid_text), "%d", (int)pid);
	*total = *chain = *labelled = 0;
	tu_raw_parse(raw, &p);
	for (size_t i = 0; i < p.nr; i++) {
		const struct tu_raw_sample *s = &p.samples[i];

		if (!tu_raw_label(s, "comm", "unwindgen") || !tu_raw_label(s, "pid", pid_text))
			continue;
		*total += s->count;
		if (!strstr(s->stack, "uw_a;uw_b;uw_c"))
			continue;
		*chain += s->count;
		if (tu_raw_label(s, "container_id", CONTAINER_ID) &&
		    tu_raw_label(s, "pod_uid", "d1f6a2b4-3c5e-4f70-8a9b-0c1d2e3f4a5b"))
			*labelled += s->count;
	}
	tu_raw_free(&p);
}

/* The HTTP status of GET url. */
static int status_of(const char *url)
{
	char *out = NULL;
	int code = 0;

	tu_sh(&out, "curl -s -o /dev/null -w '%%{http_code}' --max-time 70 '%s'", url);
	if (out)
		code = atoi(out);
	free(out);
	return code;
}

/* What test_profile_endpoint started, stopped by its teardown when a failed
 * check ended it early (an exporter sampling every CPU, left running, made
 * the next runs fail on a busy machine). */
static pid_t endpoint_exporter, endpoint_pod, endpoint_sleeper;
static char endpoint_base[PATH_MAX];

static int stop_endpoint_processes(void **state)
{
	(void)state;
	if (endpoint_exporter > 0)
		tu_stop(endpoint_exporter);
	if (endpoint_pod > 0)
		stop_pod(endpoint_pod, endpoint_base);
	if (endpoint_sleeper > 0)
		tu_stop(endpoint_sleeper);
	endpoint_exporter = endpoint_pod = endpoint_sleeper = 0;
	return 0;
}

/* Starts export -g (and options) in dir for the endpoint tests, as
 * endpoint_exporter; its pid once /debug/pprof/endpoint?seconds=1 answers
 * (the sampling child has started: 503 until then). No what (a profile)
 * within 120 s fails the test: the child's start (its programs verified,
 * the tables of every process running compiled) and a first profile of
 * the machine took more than 30 s under the sanitizers beside make
 * test-busy, each request more than 3. */
static pid_t start_endpoint_exporter(const char *dir, int port, const char *options,
				     const char *endpoint, const char *what)
{
	char url[256], log[2048], *out;

	endpoint_exporter = tu_start("export RUNTIME_DIRECTORY=%s; exec %s export --listen 127.0.0.1:%d -g%s "
				     ">%s/export.log 2>&1",
				     dir, tu_ringtrace(), port, options, dir);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/debug/pprof/%s?seconds=1", port, endpoint);
	out = fetch_within("-o /dev/null", url, 120, 60);
	if (!out) {
		tu_sh(&out, "tail -c 1500 %s/export.log", dir);
		snprintf(log, sizeof(log), "%s", out ? out : "");
		free(out);
		stop_endpoint_processes(NULL);
		fail_msg("no %s within 120 s: %s", what, log);
	}
	free(out);
	return endpoint_exporter;
}

/* export -g serves /debug/pprof/profile as Go's net/http/pprof: go tool pprof
 * reads a workload's stacks with its pod's labels from it; filters, bad
 * seconds=, unknown parameters and one request too many are answered as they
 * should be, and summed up in the log, not a line each. */
static void test_profile_endpoint(void **state)
{
	char *dir = tu_tempdir(), base[PATH_MAX], command[PATH_MAX + 32], url[256], *out = NULL;
	int port = test_port(7), total, chain, labelled, codes[5] = { 0 }, too_many = 0, ok = 0;
	double expected;
	pid_t exporter, pod;

	(void)state;
	tu_skip_unless_possible();
	if (system("command -v go >/dev/null"))
		tu_skip("go tool pprof is not installed (make test-deps installs golang-go)");
	snprintf(command, sizeof(command), "%s/unwindgen chain 60", tu_symgen_dir());
	endpoint_pod = pod = start_pod_running(base, sizeof(base), command);
	snprintf(endpoint_base, sizeof(endpoint_base), "%s", base);
	/* the sampling child's directory in the test's own (as systemd's
	 * RuntimeDirectory gives it) */
	exporter = start_endpoint_exporter(dir, port, "", "profile", "profile");
	/* the real client; again (up to 3 times) while under 80% of the
	 * samples are unwound: the child compiles the tables of every process
	 * running at its start, which on a busy machine under the sanitizers
	 * takes longer than the first profile (CI: 256 of 500 once) */
	for (int attempt = 1;; attempt++) {
		double cpu = tu_process_cpu_seconds(pod);

		assert_int_equal(tu_sh(&out, "cd %s && HOME=%s go tool pprof -timeout=60 -raw "
					     "'http://127.0.0.1:%d/debug/pprof/profile?seconds=3' 2>&1",
				       dir, dir, port), 0);
		/* the samples the kernel's charge of unwindgen's CPU over the
		 * profile gives at 99 Hz (a busy machine gives it a share) */
		expected = (tu_process_cpu_seconds(pod) - cpu) * 99;
		count_profile(out, pod, &total, &chain, &labelled);
		print_message("unwindgen: %d samples (%.0f expected of its CPU time), %d "
			      "uw_a;uw_b;uw_c, %d of them with the pod's labels\n",
			      total, expected, chain, labelled);
		free(out);
		if ((chain * 10 >= total * 8 && total >= 10) || attempt == 3)
			break;
		print_message("under 80%% unwound: the start's tables may still be compiling; again\n");
	}
	/* (the profile's 3 s and the CPU time read around the request differ
	 * by the request's own time: a margin) */
	assert_true(total >= 10 && total >= expected * 0.5);
	assert_true(chain * 10 >= total * 8);
	assert_int_equal(labelled, chain);
	/* another container's profile has none of them */
	assert_int_equal(tu_sh(&out, "cd %s && HOME=%s go tool pprof -timeout=60 -raw "
				     "'http://127.0.0.1:%d/debug/pprof/profile?seconds=1&container=%s' 2>&1",
			       dir, dir, port, "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210"), 0);
	count_profile(out, pod, &total, &chain, &labelled);
	free(out);
	assert_int_equal(total, 0);
	/* bad seconds=, one line each: 400 */
	for (const char *const *q = (const char *const[]){ "seconds=0", "seconds=abc", "seconds=61",
							     "seconds=99999999999999999999", "pid=x",
							     "container=xyz", NULL };
	     *q; q++) {
		snprintf(url, sizeof(url), "http://127.0.0.1:%d/debug/pprof/profile?%s", port, *q);
		if (status_of(url) != 400)
			fail_msg("%s was not answered 400", *q);
	}
	/* a parameter the endpoint does not take (a filter the client would
	 * believe applied): 400 naming it, not the whole node's profile */
	for (const char *const *q = (const char *const[]){ "pods=web-0", "node=default",
							     "container_id=app", "seconds=1&Pid=1", NULL };
	     *q; q++) {
		char want[64];

		snprintf(url, sizeof(url), "http://127.0.0.1:%d/debug/pprof/profile?%s", port, *q);
		if (status_of(url) != 400)
			fail_msg("%s was not answered 400", *q);
		assert_int_equal(tu_sh(&out, "curl -s --max-time 5 '%s'", url), 0);
		snprintf(want, sizeof(want), "unknown parameter %.*s=", (int)strcspn(strrchr(*q, '&') ? strrchr(*q, '&') + 1 : *q, "="),
			 strrchr(*q, '&') ? strrchr(*q, '&') + 1 : *q);
		if (strncmp(out, want, strlen(want)) || strchr(out, '\n') != out + strlen(out) - 1)
			fail_msg("%s: not one line naming it: %s", *q, out);
		free(out);
	}
	/* off-CPU profiles need --off-cpu */
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/debug/pprof/offcpu?seconds=1", port);
	assert_int_equal(status_of(url), 404);
	/* five at once: four are made, each of its own 3 s whole (their
	 * windows overlap), the fifth is told to come back */
	tu_sh(&out, "cd %s && for i in 0 1 2 3 4; do curl -s -o p$i -w \"$i %%{http_code}\\n\" --max-time 30 "
		    "'http://127.0.0.1:%d/debug/pprof/profile?seconds=3' & done; wait", dir, port);
	/* "I CODE" lines, in the order the requests ended */
	for (const char *line = out; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		int i, code;

		if (sscanf(line, "%d %d", &i, &code) == 2 && i >= 0 && i < 5)
			codes[i] = code;
	}
	free(out);
	for (int i = 0; i < 5; i++) {
		ok += codes[i] == 200;
		too_many += codes[i] == 429;
		if (codes[i] != 200)
			continue;
		tu_sh(&out, "cd %s && HOME=%s go tool pprof -timeout=60 -raw p%d 2>&1", dir, dir, i);
		count_profile(out, pod, &total, &chain, &labelled);
		print_message("profile %d of the five: %d unwindgen samples\n", i, total);
		free(out);
		if (total < 50)
			fail_msg("profile %d of five made at once holds %d samples of the workload", i, total);
	}
	/* the sampling child killed (as the OOM killer would): /healthz fails,
	 * so that the pod's liveness probe restarts it, and profiles get 503 */
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/healthz", port);
	assert_int_equal(status_of(url), 200);
	/* the child's unwind rows: export's default */
	assert_int_equal(tu_sh(&out, "pgrep -a -P %d -f 'ringtrace record'", (int)exporter), 0);
	if (!strstr(out, "--unwind-mem 16M"))
		fail_msg("the sampling child is not given --unwind-mem 16M: %s", out);
	free(out);
	assert_int_equal(tu_sh(NULL, "pkill -KILL -P %d -f 'ringtrace record'", (int)exporter), 0);
	for (int i = 0; i < 50 && status_of(url) != 503; i++)
		usleep(100000);
	assert_int_equal(status_of(url), 503);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/debug/pprof/profile?seconds=1", port);
	assert_int_equal(status_of(url), 503);
	tu_stop(exporter);
	stop_pod(pod, base);
	endpoint_exporter = endpoint_pod = 0;
	assert_int_equal(ok, 4);
	assert_int_equal(too_many, 1);
	/* the sampling child and its directory are gone with the exporter */
	assert_int_equal(tu_sh(&out, "ls -A %s | grep ringtrace-export- | wc -l", dir), 0);
	assert_int_equal(atoi(out), 0);
	free(out);
	/* the requests in the log: summed up a minute at a time (and at the
	 * end), not a line each: the 14 answered 400 (6 bad values, 4 unknown
	 * parameters asked twice), the 429 and the 404; the sampling child's
	 * losses, if any, at most once a minute too */
	assert_int_equal(tu_sh(&out, "cat %s/export.log", dir), 0);
	print_message("export's log:\n%s", out);
	free(out);
	assert_int_equal(tu_sh(&out, "grep -c 'profile requests in the last' %s/export.log; "
				     "grep -o '[0-9]* x 400' %s/export.log | awk '{n += $1} END {print n + 0}'; "
				     "grep -o '[0-9]* x 429' %s/export.log | awk '{n += $1} END {print n + 0}'; "
				     "grep -o '[0-9]* x 404' %s/export.log | awk '{n += $1} END {print n + 0}'; "
				     "wc -l < %s/export.log",
			       dir, dir, dir, dir, dir), 0);
	{
		int summaries = 0, refused = 0, too_many_said = 0, not_found = 0, lines = 0;

		assert_int_equal(sscanf(out, "%d %d %d %d %d", &summaries, &refused, &too_many_said,
					&not_found, &lines), 5);
		if (summaries < 1 || refused != 14 || too_many_said != 1 || not_found != 1 ||
		    lines > summaries + 4)
			fail_msg("the log's summaries: %d lines, %d x 400, %d x 429, %d x 404; %d lines in all",
				 summaries, refused, too_many_said, not_found, lines);
	}
	free(out);
	tu_rmtree(dir);
	free(dir);
}

/* export -g --off-cpu serves /debug/pprof/offcpu: go tool pprof -timeout=60 -raw of a
 * process sleeping 50 ms at a time in sleep_in_known_function (loadgen
 * sleep), by its pid= as CPU profiles take it, holds that stack with nearly
 * all of the process's time off CPU, in off_cpu/nanoseconds about the
 * window's length; type=offcpu on the profile path is the same, and the CPU
 * profile beside it is still of CPU time. */
static void test_offcpu_endpoint(void **state)
{
	char *dir = tu_tempdir(), *out = NULL;
	int port = test_port(8);
	double total_ns = -1, known_ns = -1;
	pid_t sleeper;

	(void)state;
	tu_skip_unless_possible();
	if (system("command -v go >/dev/null"))
		tu_skip("go tool pprof is not installed (make test-deps installs golang-go)");
	start_endpoint_exporter(dir, port, " --off-cpu", "offcpu", "off-CPU profile");
	/* 10 s of 50 ms sleeps */
	endpoint_sleeper = sleeper = tu_start("exec %s sleep 200 50 >/dev/null 2>&1", tu_loadgen());
	usleep(300000);
	for (const char *const *q = (const char *const[]){ "offcpu?seconds=3&pid=%d",
							     "profile?type=offcpu&seconds=3&pid=%d", NULL };
	     *q; q++) {
		char query[64];

		snprintf(query, sizeof(query), *q, (int)sleeper);
		assert_int_equal(tu_sh(&out, "cd %s && HOME=%s go tool pprof -timeout=60 -raw "
					     "'http://127.0.0.1:%d/debug/pprof/%s' 2>&1",
				       dir, dir, port, query), 0);
		if (!strstr(out, "samples/count off_cpu/nanoseconds[dflt]")) {
			stop_endpoint_processes(NULL);
			fail_msg("not an off_cpu/nanoseconds profile:\n%s", out);
		}
		/* the off-CPU time of the process (all its samples: pid= kept
		 * them), and of those whose stack has main;run_sleep;
		 * sleep_in_known_function (root first) */
		{
			struct tu_raw_profile p;
			char pid_text[16];
			double other = 0;

			snprintf(pid_text, sizeof(pid_text), "%d", (int)sleeper);
			total_ns = known_ns = 0;
			tu_raw_parse(out, &p);
			for (size_t i = 0; i < p.nr; i++) {
				const struct tu_raw_sample *s = &p.samples[i];

				if (!tu_raw_label(s, "pid", pid_text)) {
					other += s->value;
					continue;
				}
				total_ns += s->value;
				if (strstr(s->stack, "main;run_sleep;sleep_in_known_function"))
					known_ns += s->value;
			}
			tu_raw_free(&p);
			print_message("%s: %.3f s off CPU, %.3f s in sleep_in_known_function; other pids %.3f s\n",
				      query, total_ns / 1e9, known_ns / 1e9, other / 1e9);
			if (total_ns < 2.0e9 || total_ns > 3.5e9 || known_ns < total_ns * 0.9 || other != 0) {
				stop_endpoint_processes(NULL);
				fail_msg("%s: the sleeper's off-CPU time %.3f s (of a 3 s window), %.3f s of it in "
					 "sleep_in_known_function, other pids' %.3f s",
					 query, total_ns / 1e9, known_ns / 1e9, other / 1e9);
			}
		}
		free(out);
	}
	/* the CPU profile beside it: CPU time */
	assert_int_equal(tu_sh(&out, "cd %s && HOME=%s go tool pprof -timeout=60 -raw "
				     "'http://127.0.0.1:%d/debug/pprof/profile?seconds=1' 2>&1 | head -20",
			       dir, dir, port), 0);
	if (!strstr(out, "samples/count cpu/nanoseconds[dflt]"))
		fail_msg("the CPU profile is not of cpu/nanoseconds:\n%s", out);
	free(out);
	/* the child records --off-cpu, its blocks of 1 ms and more */
	assert_int_equal(tu_sh(&out, "pgrep -a -P %d -f 'ringtrace record'", (int)endpoint_exporter), 0);
	if (!strstr(out, "--off-cpu --off-cpu-min 1ms"))
		fail_msg("the sampling child is not given --off-cpu --off-cpu-min 1ms: %s", out);
	free(out);
	stop_endpoint_processes(NULL);
	tu_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_landing_page_and_process_metrics),
		cmocka_unit_test(test_textfile_removed_on_exit),
		cmocka_unit_test(test_removed_cgroup),
		cmocka_unit_test(test_tls_and_basic_auth),
		cmocka_unit_test(test_web_config_refused),
		cmocka_unit_test(test_dashboard_queries),
		cmocka_unit_test_teardown(test_profile_endpoint, stop_endpoint_processes),
		cmocka_unit_test_teardown(test_offcpu_endpoint, stop_endpoint_processes),
	};
	const char *why = tu_integration_skip_reason();

	if (!why && system("command -v promtool prometheus curl openssl python3 >/dev/null"))
		why = "promtool, prometheus, curl, openssl or python3 is missing (make deps installs them)";
	tu_set_skip_reason(why);
	return cmocka_run_group_tests(tests, NULL, tu_stop_left);
}
