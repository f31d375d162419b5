/* SPDX-License-Identifier: GPL-2.0-only */
/* test_runtime_names.c: Kubernetes names from real container runtimes,
 * Debian's containerd (1.6, with ctr) and Docker Engine (docker.io 20.10),
 * each daemon started here with its own root, state and socket in a
 * temporary directory; two containers (a static busybox as their root: ctr
 * --rootfs, or an image docker imports from a tarball made here; no network)
 * under kubelet's cgroupfs layout and with the labels kubelet sets, each
 * burning CPU; ringtrace export -g asks the runtime for them by id: the
 * profile's samples of each container carry its namespace, pod, container
 * and pod_uid, namespace=/pod=/container_name= select exactly them, and the
 * metrics carry them too. Every process started here is stopped by its pid;
 * the containers are deleted through the runtime. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/monotonic.h"
#include "sys/container_names.h"
#include "test_util.h"

/* Debian's binaries, by path: /usr/local/bin may hold others of the names. */
#define CONTAINERD "/usr/bin/containerd"
#define CTR "/usr/bin/ctr"
#define RUNC "/usr/sbin/runc"
#define BUSYBOX "/bin/busybox"
#define DOCKERD "/usr/sbin/dockerd"
#define DOCKER "/usr/bin/docker"
#define DOCKER_IMAGE "ringtrace-test-busybox:1"

/* One container of the test: its id, its pod's uid and the names kubelet
 * would give it. */
struct test_container {
	char id[65];
	char pod_uid[37];
	const char *ns, *pod, *name;
	bool created;
};

/* The runtime under test. */
enum runtime { CONTAINERD_RUNTIME, DOCKER_RUNTIME };

static enum runtime runtime;
static char *dir;
static pid_t daemon_pid, exporter;
static struct test_container containers[2] = {
	{ .ns = "shop", .pod = "web-0", .name = "app" },
	{ .ns = "shop", .pod = "web-1", .name = "sidecar" },
};

static void random_hex(char *out, size_t digits)
{
	unsigned char bytes[32];
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0 && digits <= 64);
	assert_int_equal(read(fd, bytes, sizeof(bytes)), (ssize_t)sizeof(bytes));
	close(fd);
	for (size_t i = 0; i < digits; i++)
		out[i] = "0123456789abcdef"[(bytes[i / 2] >> (i % 2 ? 0 : 4)) & 15];
	out[digits] = '\0';
}

/* The pod's cgroup as kubelet's cgroupfs driver names it (no leading '/'). */
static void pod_cgroup(const struct test_container *c, char *out, size_t len)
{
	snprintf(out, len, "kubepods/besteffort/pod%s", c->pod_uid);
}

/* Deletes what the test made: the containers (through containerd), the
 * exporter, containerd, the pods' cgroups, the directory. */
static int teardown(void **state)
{
	(void)state;
	tu_stop(exporter);
	exporter = 0;
	for (int i = 0; i < 2; i++) {
		struct test_container *c = &containers[i];
		char cg[128];

		if (!c->created)
			continue;
		if (runtime == DOCKER_RUNTIME)
			tu_sh(NULL, DOCKER " -H unix://%s/docker.sock rm -f %s >/dev/null 2>&1", dir,
			      c->id);
		else
			tu_sh(NULL, CTR " -a %s/containerd.sock -n k8s.io task kill -s KILL %s >/dev/null 2>&1; "
				    "sleep 0.5; " CTR " -a %s/containerd.sock -n k8s.io task rm -f %s >/dev/null 2>&1; "
				    CTR " -a %s/containerd.sock -n k8s.io container rm %s >/dev/null 2>&1",
			      dir, c->id, dir, c->id, dir, c->id);
		pod_cgroup(c, cg, sizeof(cg));
		/* in every hierarchy runc made it (v2, and v1's on a hybrid host) */
		tu_sh(NULL, "for m in $(awk '$3 ~ /^cgroup/ {print $2}' /proc/mounts); do "
			    "rmdir $m/%s/%s $m/%s 2>/dev/null; rmdir $m/kubepods/besteffort $m/kubepods 2>/dev/null; "
			    "done; true", cg, c->id, cg);
		c->created = false;
	}
	/* dockerd stops the containerd it started */
	tu_stop(daemon_pid);
	daemon_pid = 0;
	if (dir) {
		tu_rmtree(dir);
		free(dir);
		dir = NULL;
	}
	return 0;
}

/* containerd on a socket of the test's directory, its own root and state,
 * the CRI plugin off (no kubelet here): up within 15 s. */
static void start_containerd(void)
{
	FILE *f;
	char path[PATH_MAX], *log = NULL;
	struct stat st;

	snprintf(path, sizeof(path), "%s/config.toml", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "version = 2\nroot = \"%s/root\"\nstate = \"%s/state\"\n"
		   "disabled_plugins = [\"io.containerd.grpc.v1.cri\"]\n"
		   "[grpc]\n  address = \"%s/containerd.sock\"\n"
		   "[ttrpc]\n  address = \"%s/containerd.sock.ttrpc\"\n",
		dir, dir, dir, dir);
	fclose(f);
	daemon_pid = tu_start("exec " CONTAINERD " --config %s/config.toml >%s/containerd.log 2>&1",
			      dir, dir);
	snprintf(path, sizeof(path), "%s/containerd.sock", dir);
	for (double until = monotonic_seconds() + 15; monotonic_seconds() < until; usleep(100000))
		if (!stat(path, &st) && !tu_sh(NULL, CTR " -a %s version >/dev/null 2>&1", path))
			return;
	tu_sh(&log, "tail -5 %s/containerd.log", dir);
	tu_skip("containerd did not start here within 15 s: %s", log ? log : "");
}

/* dockerd on a socket of the test's directory, its own data and exec roots,
 * no network of its own (no bridge, no iptables); the busybox rootfs
 * imported as an image. Up within 30 s. */
static void start_docker(void)
{
	char path[PATH_MAX], *log = NULL;

	daemon_pid = tu_start("exec " DOCKERD " --data-root %s/docker-data --exec-root %s/docker-exec "
			      "--pidfile %s/docker.pid -H unix://%s/docker.sock --bridge=none "
			      "--iptables=false --ip6tables=false --ip-masq=false --userland-proxy=false "
			      ">%s/dockerd.log 2>&1",
			      dir, dir, dir, dir, dir);
	snprintf(path, sizeof(path), "%s/docker.sock", dir);
	for (double until = monotonic_seconds() + 30; monotonic_seconds() < until; usleep(200000))
		if (!tu_sh(NULL, DOCKER " -H unix://%s version >/dev/null 2>&1", path)) {
			if (tu_sh(&log, "tar -C %s/rootfs -c . | " DOCKER " -H unix://%s import - "
					DOCKER_IMAGE " 2>&1", dir, path))
				fail_msg("docker import of a busybox rootfs failed: %s", log);
			free(log);
			return;
		}
	tu_sh(&log, "tail -5 %s/dockerd.log", dir);
	tu_skip("dockerd did not start here within 30 s: %s", log ? log : "");
}

/* c created and started with docker run: as start_container does. */
static void start_docker_container(struct test_container *c, const char *cg)
{
	char *out = NULL;

	if (tu_sh(&out, "timeout 30 " DOCKER " -H unix://%s/docker.sock run -d --network none "
			"--cgroup-parent /%s --label io.kubernetes.pod.namespace=%s "
			"--label io.kubernetes.pod.name=%s --label io.kubernetes.container.name=%s "
			"--label io.kubernetes.pod.uid=%s " DOCKER_IMAGE " /bin/busybox sh -c "
			"'while :; do :; done' 2>&1",
		  dir, cg, c->ns, c->pod, c->name, c->pod_uid) ||
	    strlen(out) < 64) {
		print_message("docker run: %s\n", out ? out : "");
		fail_msg("docker could not start a container on the test's dockerd");
	}
	memcpy(c->id, out, 64);
	c->id[64] = '\0';
	free(out);
}

/* c created and started with ctr (or docker): kubelet's labels, its pod's cgroup as
 * kubelet's cgroupfs driver lays it out, busybox burning CPU. */
static void start_container(struct test_container *c)
{
	char cg[128], *out = NULL;

	random_hex(c->id, 64);
	random_hex(c->pod_uid, 32);
	/* 8-4-4-4-12 */
	memmove(c->pod_uid + 24, c->pod_uid + 20, 12);
	memmove(c->pod_uid + 19, c->pod_uid + 16, 4);
	memmove(c->pod_uid + 14, c->pod_uid + 12, 4);
	memmove(c->pod_uid + 9, c->pod_uid + 8, 4);
	c->pod_uid[8] = c->pod_uid[13] = c->pod_uid[18] = c->pod_uid[23] = '-';
	c->pod_uid[36] = '\0';
	pod_cgroup(c, cg, sizeof(cg));
	c->created = true;
	if (runtime == DOCKER_RUNTIME) {
		start_docker_container(c, cg);
		return;
	}
	if (tu_sh(&out, "timeout 30 " CTR " -a %s/containerd.sock -n k8s.io run -d --rootfs "
			"--cgroup /%s/%s --label io.kubernetes.pod.namespace=%s "
			"--label io.kubernetes.pod.name=%s --label io.kubernetes.container.name=%s "
			"--label io.kubernetes.pod.uid=%s %s/rootfs %s /bin/busybox sh -c "
			"'while :; do :; done' 2>&1",
		  dir, cg, c->id, c->ns, c->pod, c->name, c->pod_uid, dir, c->id)) {
		print_message("ctr run: %s\n", out ? out : "");
		fail_msg("ctr could not start a container on the test's containerd");
	}
	free(out);
}

/* Of `go tool pprof -raw` output raw: container c's samples, those of them
 * with all four names right, the samples of the test's other container, and
 * all samples. */
static void count_samples(const char *raw, const struct test_container *c, int *total, int *named,
			  int *others, int *all)
{
	struct tu_raw_profile p;

	*total = *named = *others = *all = 0;
	tu_raw_parse(raw, &p);
	for (size_t i = 0; i < p.nr; i++) {
		const struct tu_raw_sample *s = &p.samples[i];
		int n = (int)s->count;

		*all += n;
		if (tu_raw_label(s, "container_id", c->id)) {
			*total += n;
			if (tu_raw_label(s, "namespace", c->ns) && tu_raw_label(s, "pod", c->pod) &&
			    tu_raw_label(s, "container", c->name) && tu_raw_label(s, "pod_uid", c->pod_uid))
				*named += n;
		} else if (tu_raw_label(s, "container_id", containers[0].id) ||
			   tu_raw_label(s, "container_id", containers[1].id)) {
			*others += n;
		}
	}
	tu_raw_free(&p);
}

/* A profile of seconds with the query's filters, through go tool pprof -raw. */
static char *profile(int port, int seconds, const char *filters)
{
	char *out = NULL;

	if (tu_sh(&out, "cd %s && HOME=%s go tool pprof -timeout=60 -raw "
			"'http://127.0.0.1:%d/debug/pprof/profile?seconds=%d%s' 2>&1",
		  dir, dir, port, seconds, filters)) {
		print_message("go tool pprof of ?seconds=%d%s failed:\n%s\n", seconds, filters,
			      out ? out : "");
		fail();
	}
	return out;
}

/* A profile of seconds with filters holds container c's samples alone: at
 * least least of them, each with all four names right. */
static void profile_of_one(int port, int seconds, const char *filters,
			   const struct test_container *c, int least)
{
	char *raw = profile(port, seconds, filters);
	int total, named, others, all;

	count_samples(raw, c, &total, &named, &others, &all);
	print_message("%s: %d samples of %s, %d of the other\n", filters, total, c->pod, others);
	assert_true(total >= least);
	assert_int_equal(named, total);
	assert_int_equal(others, 0);
	assert_int_equal(all, total);
	free(raw);
}

/* The runtime's daemon, its two containers, and an exporter asking it
 * (only it: the other runtimes' sockets none); the runtime's name as the
 * metrics count it into counted. */
static int start_all(enum runtime which, const char **counted)
{
	char path[PATH_MAX], socket[PATH_MAX];
	int port = 20000 + (int)((getpid() * 13 + (5 + (int)which) * 101) % 12000);

	tu_skip_unless_possible();
	if (access(BUSYBOX, X_OK) || system("file -L " BUSYBOX " | grep -q 'statically linked'"))
		tu_skip("a static busybox (" BUSYBOX ") is not installed: make test-deps installs "
			"busybox-static");
	if (system("command -v go >/dev/null"))
		tu_skip("go tool pprof is not installed (make test-deps installs golang-go)");
	runtime = which;
	dir = tu_tempdir();
	/* the rootfs: busybox alone */
	snprintf(path, sizeof(path), "%s/rootfs/bin", dir);
	assert_int_equal(tu_sh(NULL, "mkdir -p %s && cp " BUSYBOX " %s/", path, path), 0);
	if (which == DOCKER_RUNTIME)
		start_docker();
	else
		start_containerd();
	start_container(&containers[0]);
	start_container(&containers[1]);
	*counted = which == DOCKER_RUNTIME ? "docker" : "containerd";
	snprintf(socket, sizeof(socket), "%s/%s.sock", dir, *counted);
	exporter = tu_start("export RUNTIME_DIRECTORY=%s; exec %s export --listen 127.0.0.1:%d -g "
			    "--containerd-socket %s --docker-socket %s --crio-socket none "
			    ">%s/export.log 2>&1",
			    dir, tu_ringtrace(), port, which == CONTAINERD_RUNTIME ? socket : "none",
			    which == DOCKER_RUNTIME ? socket : "none", dir);
	return port;
}

/* What one question to the runtime costs, asked as the exporter asks it
 * (a new connection each): QUESTIONS of them, the mean and the slowest
 * printed; each well within the exporter's timeout. */
#define QUESTIONS 50

static void time_questions(const char *counted)
{
	enum runtime_kind kind = runtime == DOCKER_RUNTIME ? RUNTIME_DOCKER : RUNTIME_CONTAINERD;
	char socket[PATH_MAX];
	double sum = 0, slowest = 0;

	snprintf(socket, sizeof(socket), "%s/%s.sock", dir, counted);
	for (int i = 0; i < QUESTIONS; i++) {
		struct kube_names n;
		double start = monotonic_seconds(), took;

		assert_int_equal(runtime_ask(kind, socket, containers[0].id, 1000, &n), 0);
		assert_string_equal(n.pod, containers[0].pod);
		took = monotonic_seconds() - start;
		sum += took;
		slowest = took > slowest ? took : slowest;
	}
	print_message("%d questions to %s: %.2f ms each on average, %.2f ms the slowest\n",
		      QUESTIONS, counted, sum / QUESTIONS * 1e3, slowest * 1e3);
	assert_true(slowest * 1e3 < CONTAINER_NAMES_TIMEOUT_MS);
}

/* The profiles and metrics of the exporter on port, of the containers. */
static void check_names(int port, const char *counted)
{
	char url[256], series[512], *out = NULL, *raw;
	int total, named, others, all;

	/* ready once the sampling child has started: 503 until then */
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/debug/pprof/profile?seconds=1", port);
	for (double until = monotonic_seconds() + 30;; usleep(300000)) {
		if (!tu_sh(NULL, "curl -sf -o /dev/null --max-time 5 '%s'", url))
			break;
		if (monotonic_seconds() > until) {
			tu_sh(&out, "cat %s/export.log", dir);
			fail_msg("no profile within 30 s: %s", out);
		}
	}
	/* every sample of each container carries the names containerd has */
	raw = profile(port, 3, "");
	for (int i = 0; i < 2; i++) {
		count_samples(raw, &containers[i], &total, &named, &others, &all);
		print_message("container %s/%s/%s: %d samples, %d with its four names\n",
			      containers[i].ns, containers[i].pod, containers[i].name, total, named);
		assert_true(total >= 10);
		assert_int_equal(named, total);
	}
	free(raw);
	/* namespace= and pod= select exactly the first container's */
	profile_of_one(port, 3, "&namespace=shop&pod=web-0", &containers[0], 10);
	/* container_name= the second's */
	profile_of_one(port, 2, "&container_name=sidecar", &containers[1], 5);
	/* a name no container has: no sample */
	raw = profile(port, 1, "&namespace=shop&pod=web-2");
	count_samples(raw, &containers[0], &total, &named, &others, &all);
	assert_int_equal(all, 0);
	free(raw);
	/* the metrics: each container's cgroup series with its names; the
	 * questions counted */
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/metrics", port);
	assert_int_equal(tu_sh(&out, "curl -sf --max-time 5 '%s'", url), 0);
	for (int i = 0; i < 2; i++) {
		snprintf(series, sizeof(series),
			 "container_id=\"%s\",pod_uid=\"%s\",namespace=\"%s\",pod=\"%s\",container=\"%s\"",
			 containers[i].id, containers[i].pod_uid, containers[i].ns, containers[i].pod,
			 containers[i].name);
		if (!strstr(out, series)) {
			print_message("%s\n", out);
			fail_msg("no series with %s", series);
		}
	}
	snprintf(series, sizeof(series),
		 "ringtrace_container_runtime_requests_total{runtime=\"%s\",result=\"found\"} ", counted);
	if (!strstr(out, series) || strtod(strstr(out, series) + strlen(series), NULL) < 2)
		fail_msg("the questions to %s are not counted", counted);
	free(out);
}

/* The exporter stopped as the DaemonSet stops it: it exits 0 (under the
 * sanitizers, with nothing leaked). */
static void stop_exporter(void)
{
	int status = tu_stop(exporter);
	char *log = NULL;

	exporter = 0;
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		tu_sh(&log, "tail -30 %s/export.log", dir);
		print_message("%s\n", log ? log : "");
		fail_msg("the exporter did not exit 0 on SIGTERM (status 0x%x)", status);
	}
}

static void test_names_from_containerd(void **state)
{
	const char *counted;
	int port;

	(void)state;
	if (access(CONTAINERD, X_OK) || access(CTR, X_OK) || access(RUNC, X_OK))
		tu_skip("Debian's containerd (" CONTAINERD ", " CTR ") or runc is not installed "
			"(make test-deps installs containerd)");
	port = start_all(CONTAINERD_RUNTIME, &counted);
	check_names(port, counted);
	time_questions(counted);
	stop_exporter();
	teardown(NULL);
}

static void test_names_from_docker(void **state)
{
	const char *counted;
	int port;

	(void)state;
	if (access(DOCKERD, X_OK) || access(DOCKER, X_OK))
		tu_skip("Debian's Docker Engine (" DOCKERD ", " DOCKER ") is not installed "
			"(make test-deps installs docker.io)");
	port = start_all(DOCKER_RUNTIME, &counted);
	check_names(port, counted);
	time_questions(counted);
	stop_exporter();
	teardown(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_names_from_containerd, teardown),
		cmocka_unit_test_teardown(test_names_from_docker, teardown),
	};
	const char *why = tu_integration_skip_reason();

	if (!why && system("command -v curl >/dev/null"))
		why = "curl is missing (make deps installs it)";
	tu_set_skip_reason(why);
	return cmocka_run_group_tests(tests, NULL, tu_stop_left);
}
