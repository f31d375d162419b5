/* SPDX-License-Identifier: GPL-2.0-only */
/* metrics_server.c: serves GET /metrics over HTTP(S) with libmicrohttpd on a
 * socket bound before the capabilities are dropped, the body rendered on each
 * scrape by the owner's callback, and no client able to keep another out. */
#include "export/metrics_server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export/metrics.h"
#include "export/profile_requests.h"
#include "lib/log.h"
#include "sys/process_stats.h"

/* Descriptors kept for the rest of the process beyond twice those it has open
 * when the server starts (a snapshot opens a file per CPU, for one). */
#define FD_RESERVE 128

/* A connection as the eviction policy sees it. */
struct tracked_conn {
	struct tracked_conn *prev, *next;
	int fd;
	bool evicted; /* shut down by the policy, not yet closed by the daemon */
};

/* GnuTLS priorities: TLS 1.2 and 1.3 only, as the Prometheus exporters' default. */
#define TLS_PRIORITIES "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2"
#define REALM "ringtrace"

static const char landing_page[] =
	"<!DOCTYPE html>\n<html lang=\"en\">\n<head><meta charset=\"utf-8\"><title>ringtrace exporter</title></head>\n"
	"<body>\n<h1>ringtrace exporter</h1>\n"
	"<p>CPU time per cgroup and comm, run-queue latency and what ringtrace's BPF programs count, "
	"for Prometheus.</p>\n<ul><li><a href=\"metrics\">Metrics</a></li></ul>\n"
	"<p>ringtrace " RINGTRACE_VERSION "</p>\n</body>\n</html>\n";

struct metrics_server {
	struct MHD_Daemon *daemon;
	metrics_render_fn render;
	void *ctx;
	struct web_config *web;
	struct profile_requests *profiles; /* GET /debug/pprof/profile, or NULL: 404 */
	/* Open connections, the one waiting longest for an answer first (since
	 * it connected, or since its last request was answered). Only the
	 * daemon's one thread touches them: no lock. */
	struct tracked_conn *head, *tail;
	unsigned int nr_tracked, max_tracked;
};

static void unlink_conn(struct metrics_server *s, struct tracked_conn *t)
{
	if (t->prev)
		t->prev->next = t->next;
	else
		s->head = t->next;
	if (t->next)
		t->next->prev = t->prev;
	else
		s->tail = t->prev;
	t->prev = t->next = NULL;
	s->nr_tracked--;
}

static void append_conn(struct metrics_server *s, struct tracked_conn *t)
{
	t->prev = s->tail;
	t->next = NULL;
	if (s->tail)
		s->tail->next = t;
	else
		s->head = t;
	s->tail = t;
	s->nr_tracked++;
}

/* The daemon opens and closes connections: a new one beyond max_tracked
 * shuts the oldest down (the daemon sees it end and closes it), so that idle
 * or half-sent connections never fill the daemon's limit and a scraper that
 * connects is always accepted and answered. */
static void on_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
			  enum MHD_ConnectionNotificationCode code)
{
	struct metrics_server *s = cls;
	struct tracked_conn *t = *socket_context;
	const union MHD_ConnectionInfo *info;

	if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
		if (t && !t->evicted)
			unlink_conn(s, t);
		free(t);
		*socket_context = NULL;
		return;
	}
	if (code != MHD_CONNECTION_NOTIFY_STARTED)
		return;
	info = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
	t = info ? calloc(1, sizeof(*t)) : NULL;
	if (!t)
		return; /* not tracked: never evicted, still limited by the daemon */
	t->fd = info->connect_fd;
	*socket_context = t;
	append_conn(s, t);
	while (s->nr_tracked > s->max_tracked) {
		struct tracked_conn *oldest = s->head;

		unlink_conn(s, oldest);
		oldest->evicted = true;
		shutdown(oldest->fd, SHUT_RDWR);
	}
}

/* A request arrived whole on conn: it is the last to be evicted now. */
static void note_answered(struct metrics_server *s, struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *info =
		MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	struct tracked_conn *t = info ? info->socket_context : NULL;

	if (!t || t->evicted)
		return;
	unlink_conn(s, t);
	append_conn(s, t);
}

/* Queues body with status and type; MHD_NO if that failed. A 401 asks for
 * basic auth. */
static enum MHD_Result reply(struct MHD_Connection *conn, unsigned int status, const char *type,
			     struct byte_buffer *body)
{
	struct MHD_Response *resp =
		MHD_create_response_from_buffer(body->len, body->data, MHD_RESPMEM_MUST_COPY);
	enum MHD_Result r;

	byte_buffer_free(body);
	if (!resp)
		return MHD_NO;
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (status == MHD_HTTP_UNAUTHORIZED)
		r = MHD_queue_basic_auth_fail_response(conn, REALM, resp);
	else
		r = MHD_queue_response(conn, status, resp);
	MHD_destroy_response(resp);
	return r;
}

/* Whether the request carries a user and password of the web config. */
static bool authorized(struct metrics_server *s, struct MHD_Connection *conn)
{
	char *password = NULL, *user;
	bool ok;

	if (!s->web || !s->web->nr_users)
		return true;
	user = MHD_basic_auth_get_username_password(conn, &password);
	ok = web_config_authorized(s->web, user, password);
	if (password) {
		explicit_bzero(password, strlen(password));
		MHD_free(password);
	}
	if (user)
		MHD_free(user);
	return ok;
}

static enum MHD_Result answer(void *cls, struct MHD_Connection *conn, const char *url,
			      const char *method, const char *version, const char *upload_data,
			      size_t *upload_data_size, void **req_cls)
{
	struct metrics_server *server = cls;
	struct byte_buffer body = { 0 };
	const char *text = "text/plain; charset=utf-8";

	(void)version;
	(void)upload_data;
	(void)upload_data_size;
	note_answered(server, conn);
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD)) {
		static const char only[] = "only GET /, /metrics, /healthz, " PROFILE_PATH " and " OFFCPU_PROFILE_PATH "\n";

		byte_buffer_append(&body, only, sizeof(only) - 1);
		return reply(conn, MHD_HTTP_METHOD_NOT_ALLOWED, text, &body);
	}
	/* for liveness and readiness probes, which carry no password: says
	 * nothing but that the server answers, and with -g that profiles can be
	 * made (a probe that fails restarts a pod whose sampling child died) */
	if (!strcmp(url, "/healthz")) {
		char why[256];

		if (server->profiles && !profile_requests_healthy(server->profiles, why, sizeof(why))) {
			byte_buffer_append(&body, why, strlen(why));
			byte_buffer_append(&body, "\n", 1);
			return reply(conn, MHD_HTTP_SERVICE_UNAVAILABLE, text, &body);
		}
		byte_buffer_append(&body, "ok\n", 3);
		return reply(conn, MHD_HTTP_OK, text, &body);
	}
	if (!authorized(server, conn)) {
		byte_buffer_append(&body, "Unauthorized\n", 13);
		return reply(conn, MHD_HTTP_UNAUTHORIZED, text, &body);
	}
	if (!strcmp(url, "/")) {
		byte_buffer_append(&body, landing_page, sizeof(landing_page) - 1);
		return reply(conn, MHD_HTTP_OK, "text/html; charset=utf-8", &body);
	}
	if (!strcmp(url, PROFILE_PATH) || !strcmp(url, OFFCPU_PROFILE_PATH)) {
		static const char off[] = "no profiles here: ringtrace export serves them with -g\n";

		if (server->profiles)
			return profile_requests_answer(server->profiles, conn,
						       strcmp(url, PROFILE_PATH) ? PROFILE_OFFCPU : PROFILE_CPU,
						       req_cls);
		byte_buffer_append(&body, off, sizeof(off) - 1);
		return reply(conn, MHD_HTTP_NOT_FOUND, text, &body);
	}
	if (strcmp(url, "/metrics")) {
		static const char known[] = "ringtrace serves /, /metrics, /healthz, " PROFILE_PATH " and " OFFCPU_PROFILE_PATH "\n";

		byte_buffer_append(&body, known, sizeof(known) - 1);
		return reply(conn, MHD_HTTP_NOT_FOUND, text, &body);
	}
	if (server->render(server->ctx, &body)) {
		body.len = 0;
		byte_buffer_append(&body, "cannot read the metrics\n", 24);
		return reply(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, text, &body);
	}
	return reply(conn, MHD_HTTP_OK, METRICS_CONTENT_TYPE, &body);
}

/* "ADDR:PORT" or "[ADDR6]:PORT" into a socket address. */
static int parse_listen(const char *text, struct sockaddr_storage *ss, bool *ipv6)
{
	char host[128];
	const char *colon;
	uint64_t port;
	char *end;

	memset(ss, 0, sizeof(*ss));
	if (text[0] == '[') {
		const char *close = strchr(text, ']');

		if (!close || close[1] != ':' || (size_t)(close - text - 1) >= sizeof(host))
			return -EINVAL;
		snprintf(host, sizeof(host), "%.*s", (int)(close - text - 1), text + 1);
		colon = close + 1;
		*ipv6 = true;
	} else {
		colon = strrchr(text, ':');
		if (!colon || (size_t)(colon - text) >= sizeof(host))
			return -EINVAL;
		snprintf(host, sizeof(host), "%.*s", (int)(colon - text), text);
		*ipv6 = false;
	}
	port = strtoull(colon + 1, &end, 10);
	if (!colon[1] || *end || !port || port > 65535)
		return -EINVAL;
	if (*ipv6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;

		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)port);
		return inet_pton(AF_INET6, host, &a->sin6_addr) == 1 ? 0 : -EINVAL;
	}
	struct sockaddr_in *a = (struct sockaddr_in *)ss;

	a->sin_family = AF_INET;
	a->sin_port = htons((uint16_t)port);
	return inet_pton(AF_INET, host, &a->sin_addr) == 1 ? 0 : -EINVAL;
}

int metrics_listen_valid(const char *listen)
{
	struct sockaddr_storage addr;
	bool ipv6;

	return parse_listen(listen, &addr, &ipv6) == 0;
}

/* What a failed bind or listen means, as the fix to append to the error line. */
static const char *listen_hint(int err)
{
	switch (err) {
	case EADDRINUSE:
		return ": another process holds that port; stop it or give another ADDR:PORT";
	case EACCES:
		return ": a port below 1024 needs root or CAP_NET_BIND_SERVICE";
	case EADDRNOTAVAIL:
		return ": no interface of this machine has that address";
	default:
		return "";
	}
}

int metrics_listen(const char *where, char *err, size_t errlen)
{
	struct sockaddr_storage addr;
	const int on = 1;
	bool ipv6 = false;
	int fd, x;

	if ((x = parse_listen(where, &addr, &ipv6))) {
		rt_format(err, errlen, "invalid listen address \"%s\": give ADDR:PORT, e.g. %s or [::1]:%s",
			  where, METRICS_DEFAULT_LISTEN, METRICS_DEFAULT_PORT);
		return x;
	}
	fd = socket(ipv6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		rt_format(err, errlen, "cannot create a socket for %s: %s", where, strerror(errno));
		return -errno;
	}
	/* as libmicrohttpd sets its own: a restart binds despite connections
	 * in TIME_WAIT; an IPv6 address serves IPv6 only */
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
	if (ipv6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &on, sizeof(on));
	if (bind(fd, (struct sockaddr *)&addr,
		 ipv6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in)) ||
	    listen(fd, SOMAXCONN)) {
		x = errno;
		close(fd);
		rt_format(err, errlen, "cannot listen on %s: %s%s", where, strerror(x), listen_hint(x));
		return -x;
	}
	return fd;
}

/* How many connections the descriptors allow, up to METRICS_MAX_CONNECTIONS:
 * RLIMIT_NOFILE's soft limit is raised (up to the hard one) to have room for
 * them beside twice the descriptors open now and FD_RESERVE. */
static unsigned int connection_limit(void)
{
	unsigned long used = 2 * (unsigned long)process_open_fds() + FD_RESERVE, avail;
	uint64_t limit = process_raise_fd_limit(used + METRICS_MAX_CONNECTIONS);

	avail = limit > used + METRICS_MAX_CONNECTIONS ? METRICS_MAX_CONNECTIONS
		: limit > used				 ? (unsigned long)(limit - used)
							 : 0;
	return avail < 2 * METRICS_CONNECTION_SLACK ? 2 * METRICS_CONNECTION_SLACK
						    : (unsigned int)avail;
}

/* Closes fd if it is still the socket whose inode st names: libmicrohttpd
 * closes the socket it was given on some of its failures, not on others. */
static void close_if_same(int fd, const struct stat *st)
{
	struct stat now;

	if (!fstat(fd, &now) && now.st_dev == st->st_dev && now.st_ino == st->st_ino)
		close(fd);
}

/* The daemon is done with a request: a profile's slot can be taken again. */
static void on_completed(void *cls, struct MHD_Connection *conn, void **req_cls,
			 enum MHD_RequestTerminationCode code)
{
	struct metrics_server *s = cls;

	(void)conn;
	(void)code;
	if (*req_cls)
		profile_requests_completed(s->profiles, *req_cls);
	*req_cls = NULL;
}

struct metrics_server *metrics_server_start(int listen_fd, metrics_render_fn render, void *ctx,
					    struct web_config *web,
					    const struct profile_service *profiles, char *err,
					    size_t errlen)
{
	struct metrics_server *s = calloc(1, sizeof(*s));
	unsigned int flags = (MHD_is_feature_supported(MHD_FEATURE_EPOLL) == MHD_YES
				      ? MHD_USE_EPOLL_INTERNAL_THREAD
				      : MHD_USE_POLL_INTERNAL_THREAD) |
			     (profiles ? MHD_ALLOW_SUSPEND_RESUME : 0);
	bool tls = web && web->cert_pem;
	unsigned int limit = connection_limit();
	struct stat st;
	int given;

	if (fstat(listen_fd, &st) || !s) {
		rt_format(err, errlen, "%s", s ? strerror(errno) : "out of memory");
		close(listen_fd);
		free(s);
		return NULL;
	}
	if (tls && MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
		rt_format(err, errlen, "this libmicrohttpd was built without TLS: install one built with GnuTLS (Debian's is)");
		close(listen_fd);
		free(s);
		return NULL;
	}
	if (profiles && !(s->profiles = profile_requests_create(profiles))) {
		rt_format(err, errlen, "out of memory");
		close(listen_fd);
		free(s);
		return NULL;
	}
	s->render = render;
	s->ctx = ctx;
	s->web = web;
	s->max_tracked = limit - METRICS_CONNECTION_SLACK;
	/* the daemon gets a copy of the socket: whatever it does with it when
	 * it fails, ours is closed here */
	given = fcntl(listen_fd, F_DUPFD_CLOEXEC, 0);
	if (given >= 0 && tls)
		s->daemon = MHD_start_daemon(flags | MHD_USE_TLS, 0, NULL, NULL, answer, s,
					     MHD_OPTION_LISTEN_SOCKET, (MHD_socket)given,
					     MHD_OPTION_CONNECTION_LIMIT, limit,
					     MHD_OPTION_CONNECTION_TIMEOUT,
					     (unsigned int)METRICS_IDLE_TIMEOUT_S,
					     MHD_OPTION_NOTIFY_CONNECTION, on_connection, s,
					     MHD_OPTION_NOTIFY_COMPLETED, on_completed, s,
					     MHD_OPTION_HTTPS_MEM_CERT, web->cert_pem,
					     MHD_OPTION_HTTPS_MEM_KEY, web->key_pem,
					     MHD_OPTION_HTTPS_PRIORITIES, TLS_PRIORITIES,
					     MHD_OPTION_END);
	else if (given >= 0)
		s->daemon = MHD_start_daemon(flags, 0, NULL, NULL, answer, s,
					     MHD_OPTION_LISTEN_SOCKET, (MHD_socket)given,
					     MHD_OPTION_CONNECTION_LIMIT, limit,
					     MHD_OPTION_CONNECTION_TIMEOUT,
					     (unsigned int)METRICS_IDLE_TIMEOUT_S,
					     MHD_OPTION_NOTIFY_CONNECTION, on_connection, s,
					     MHD_OPTION_NOTIFY_COMPLETED, on_completed, s,
					     MHD_OPTION_END);
	if (!s->daemon) {
		int x = errno;

		if (given >= 0)
			close_if_same(given, &st);
		close(listen_fd);
		rt_format(err, errlen, "cannot start the HTTP server: %s", strerror(x));
		profile_requests_free(s->profiles);
		free(s);
		return NULL;
	}
	close(listen_fd);
	return s;
}

void metrics_server_stop(struct metrics_server *s)
{
	if (!s)
		return;
	/* profiles waiting are answered 503 and resumed first: the daemon
	 * stops with no connection suspended */
	profile_requests_stop(s->profiles);
	/* closes every connection (each notified) and the listening socket */
	MHD_stop_daemon(s->daemon);
	profile_requests_free(s->profiles);
	free(s);
}
