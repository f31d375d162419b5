/* SPDX-License-Identifier: GPL-2.0-only */
/* test_container_names.c: the cache of containers' names and its questions,
 * against a server on a unix socket made here that answers as Docker Engine
 * does (200 with inspect JSON, 404) and as CRI-O does (its ContainerInfo), or
 * never: an answer kept, "no such
 * container" kept, a silent runtime given up on at the timeout and counted,
 * nothing asked past the caller's budget or for a path that names no
 * container; and the socket checks (a socket only root's, in a directory
 * only root can change). The cache's questions need the socket to be root's:
 * run as another user, those tests skip. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "lib/monotonic.h"
#include "sys/container_names.h"
#include "test_util.h"

/* Ids the server answers by their first digit: a... named, b... 404, c...
 * never. */
#define ID_NAMED "a123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define ID_GONE "b123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define ID_SILENT "c123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define ID_LATE "d123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define UID "3f2504e0-4f89-11d3-9a0c-0305e82c3301"

struct server {
	int fd;
	pthread_t thread;
	int connections;
	char dir[PATH_MAX], path[PATH_MAX + 16];
};

static void *serve(void *arg)
{
	struct server *s = arg;
	static const char docker[] = "{\"Config\":{\"Labels\":{\"io.kubernetes.pod.namespace\":\"shop\","
				     "\"io.kubernetes.pod.name\":\"web-0\","
				     "\"io.kubernetes.container.name\":\"app\"}}}";
	static const char crio[] = "{\"name\":\"k8s_db_db-0\",\"pid\":42,\"labels\":{"
				   "\"io.kubernetes.pod.namespace\":\"data\","
				   "\"io.kubernetes.pod.name\":\"db-0\","
				   "\"io.kubernetes.container.name\":\"db\"},\"annotations\":{}}";

	for (int c; (c = accept(s->fd, NULL, NULL)) >= 0;) {
		char req[2048], answer[1024];
		size_t used = 0;
		ssize_t n;

		__atomic_add_fetch(&s->connections, 1, __ATOMIC_SEQ_CST);
		while (used < sizeof(req) - 1 && (n = read(c, req + used, sizeof(req) - 1 - used)) > 0) {
			used += (size_t)n;
			req[used] = '\0';
			if (strstr(req, "\r\n\r\n"))
				break;
		}
		req[used] = '\0';
		if (strstr(req, "GET /containers/a")) {
			/* Docker's path ends in /json, CRI-O's does not */
			const char *body = strstr(req, "/json ") ? docker : crio;

			n = snprintf(answer, sizeof(answer),
				     "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
				     "Content-Length: %zu\r\nConnection: close\r\n\r\n%s",
				     strlen(body), body);
			assert_true(write(c, answer, (size_t)n) == n);
		} else if (strstr(req, "GET /containers/b")) {
			static const char gone[] = "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n"
						   "Connection: close\r\n\r\n";

			assert_true(write(c, gone, strlen(gone)) == (ssize_t)strlen(gone));
		} else {
			/* silent: waits for the client to give up */
			while (read(c, req, sizeof(req)) > 0)
				;
		}
		close(c);
	}
	return NULL;
}

static void server_start(struct server *s)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };

	snprintf(s->dir, sizeof(s->dir), "/tmp/ringtrace-names-XXXXXX");
	assert_non_null(mkdtemp(s->dir));
	snprintf(s->path, sizeof(s->path), "%s/docker.sock", s->dir);
	s->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(s->fd >= 0);
	assert_true(strlen(s->path) < sizeof(a.sun_path));
	memcpy(a.sun_path, s->path, strlen(s->path) + 1);
	assert_int_equal(bind(s->fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(s->fd, 8), 0);
	assert_int_equal(pthread_create(&s->thread, NULL, serve, s), 0);
}

static void server_stop(struct server *s)
{
	shutdown(s->fd, SHUT_RDWR);
	pthread_join(s->thread, NULL);
	close(s->fd);
	unlink(s->path);
	rmdir(s->dir);
}

static int connections(struct server *s)
{
	return __atomic_load_n(&s->connections, __ATOMIC_SEQ_CST);
}

/* A caller's budget: a second of questions. */
static uint64_t budget = 1000000000ULL;

static uint64_t *in_a_second(void)
{
	budget = 1000000000ULL;
	return &budget;
}

static void test_cache(void **state)
{
	struct container_runtime_sockets sockets = { { NULL } };
	struct container_names_counts c;
	struct container_names *cn;
	struct kube_names n;
	struct server s = { 0 };
	uint64_t start;

	(void)state;
	if (geteuid() != 0)
		skip(); /* the runtime's socket must be root's */
	server_start(&s);
	sockets.path[RUNTIME_DOCKER] = s.path;
	cn = container_names_create(&sockets);
	assert_non_null(cn);
	/* named: asked once, then from the cache */
	assert_true(container_names_of_cgroup(cn, "/system.slice/docker-" ID_NAMED ".scope",
					      in_a_second(), &n));
	assert_string_equal(n.namespace_, "shop");
	assert_string_equal(n.pod, "web-0");
	assert_string_equal(n.container, "app");
	assert_string_equal(n.pod_uid, "");
	assert_true(container_names_of_cgroup(cn, "/system.slice/docker-" ID_NAMED ".scope",
					      in_a_second(), &n));
	assert_int_equal(connections(&s), 1);
	/* a cgroupfs path names no runtime (each configured is asked); its pod
	 * uid comes from the path when the labels lack it; the id is the
	 * cache's key, so the same container needs no new question */
	assert_true(container_names_of_cgroup(cn, "/kubepods/besteffort/pod" UID "/" ID_NAMED,
					      in_a_second(), &n));
	assert_string_equal(n.pod, "web-0");
	assert_int_equal(connections(&s), 1);
	/* no such container: remembered */
	assert_false(container_names_of_cgroup(cn, "/docker/" ID_GONE, in_a_second(), &n));
	assert_false(container_names_of_cgroup(cn, "/docker/" ID_GONE, in_a_second(), &n));
	assert_int_equal(connections(&s), 2);
	/* a runtime that never answers: given up at the timeout, counted, the
	 * time it took taken from the caller's budget */
	start = monotonic_ns();
	assert_false(container_names_of_cgroup(cn, "/docker/" ID_SILENT, in_a_second(), &n));
	assert_true(monotonic_ns() - start < (CONTAINER_NAMES_TIMEOUT_MS + 300) * 1000000ULL);
	assert_true(budget <= 1000000000ULL - CONTAINER_NAMES_TIMEOUT_MS * 1000000ULL);
	assert_false(container_names_of_cgroup(cn, "/docker/" ID_SILENT, in_a_second(), &n));
	assert_int_equal(connections(&s), 3);
	/* the caller's budget spent: not asked, not remembered */
	budget = 0;
	assert_false(container_names_of_cgroup(cn, "/docker/" ID_LATE, &budget, &n));
	/* no container in the path, or a forged id: never asked */
	assert_false(container_names_of_cgroup(cn, "/system.slice/cron.service", in_a_second(), &n));
	assert_false(container_names_of_cgroup(cn, "/docker/../../" ID_NAMED "x", in_a_second(), &n));
	assert_false(container_names_of_cgroup(cn, "/docker/A123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF",
					       in_a_second(), &n));
	assert_int_equal(connections(&s), 3);
	container_names_counts(cn, &c);
	assert_int_equal(c.asked[RUNTIME_DOCKER], 3);
	assert_int_equal(c.found[RUNTIME_DOCKER], 1);
	assert_int_equal(c.not_found[RUNTIME_DOCKER], 1);
	assert_int_equal(c.failed[RUNTIME_DOCKER], 1);
	assert_int_equal(c.asked[RUNTIME_CONTAINERD] + c.asked[RUNTIME_CRIO], 0);
	assert_int_equal(c.hits, 4);
	assert_int_equal(c.skipped, 1);
	assert_int_equal(c.entries, 3);
	container_names_free(cn);
	server_stop(&s);
}

/* CRI-O's info endpoint, for a cgroup CRI-O names: its answer's labels. */
static void test_crio_answer(void **state)
{
	struct container_runtime_sockets sockets = { { NULL } };
	struct container_names_counts c;
	struct container_names *cn;
	struct kube_names n;
	struct server s = { 0 };

	(void)state;
	if (geteuid() != 0)
		skip();
	server_start(&s);
	sockets.path[RUNTIME_CRIO] = s.path;
	cn = container_names_create(&sockets);
	assert_non_null(cn);
	assert_true(container_names_of_cgroup(
		cn, "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod3f2504e0_4f89_11d3_9a0c_0305e82c3301.slice/crio-" ID_NAMED ".scope",
		in_a_second(), &n));
	assert_string_equal(n.namespace_, "data");
	assert_string_equal(n.pod, "db-0");
	assert_string_equal(n.container, "db");
	assert_string_equal(n.pod_uid, UID);
	/* a Docker cgroup: Docker is not configured, nothing asked */
	assert_false(container_names_of_cgroup(cn, "/system.slice/docker-" ID_GONE ".scope",
					       in_a_second(), &n));
	container_names_counts(cn, &c);
	assert_int_equal(c.asked[RUNTIME_CRIO], 1);
	assert_int_equal(c.found[RUNTIME_CRIO], 1);
	assert_int_equal(c.asked[RUNTIME_DOCKER], 0);
	assert_int_equal(connections(&s), 1);
	container_names_free(cn);
	server_stop(&s);
}

/* A socket another user could replace, or a file that is not one, is not
 * asked. */
static void test_socket_checks(void **state)
{
	struct server s = { 0 };
	char file[PATH_MAX + 16];
	struct kube_names n;

	(void)state;
	if (geteuid() != 0)
		skip();
	server_start(&s);
	assert_int_equal(runtime_socket_check(s.path), 0);
	assert_int_equal(runtime_socket_check("/nonexistent/docker.sock"), -ENOENT);
	snprintf(file, sizeof(file), "%s/file", s.dir);
	tu_write_file(s.dir, "file", "x", 1);
	assert_int_equal(runtime_socket_check(file), -EPERM);
	assert_int_equal(runtime_ask(RUNTIME_DOCKER, file, ID_NAMED, 200, &n), -EPERM);
	/* the directory writable by others: refused */
	assert_int_equal(chmod(s.dir, 0777), 0);
	assert_int_equal(runtime_socket_check(s.path), -EPERM);
	assert_int_equal(runtime_ask(RUNTIME_DOCKER, s.path, ID_NAMED, 200, &n), -EPERM);
	/* the socket someone else's */
	assert_int_equal(chmod(s.dir, 0700), 0);
	assert_int_equal(chown(s.path, 65534, 65534), 0);
	assert_int_equal(runtime_socket_check(s.path), -EPERM);
	assert_int_equal(connections(&s), 0);
	/* an id that is not 64 hex digits is never sent */
	assert_int_equal(chown(s.path, 0, 0), 0);
	assert_int_equal(runtime_ask(RUNTIME_DOCKER, s.path, "../../info", 200, &n), -EINVAL);
	assert_int_equal(connections(&s), 0);
	unlink(file);
	server_stop(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cache),
		cmocka_unit_test(test_crio_answer),
		cmocka_unit_test(test_socket_checks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
