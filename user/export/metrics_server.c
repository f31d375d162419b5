/* SPDX-License-Identifier: GPL-2.0-only */
/* metrics_server.c: serves GET /metrics over HTTP with libmicrohttpd, the
 * body rendered on each scrape by the owner's callback. */
#include "export/metrics_server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/metrics.h"
#include "lib/log.h"

struct metrics_server {
	struct MHD_Daemon *daemon;
	metrics_render_fn render;
	void *ctx;
};

static enum MHD_Result answer(void *cls, struct MHD_Connection *conn, const char *url,
			      const char *method, const char *version, const char *upload_data,
			      size_t *upload_data_size, void **req_cls)
{
	struct metrics_server *server = cls;
	struct byte_buffer body = { 0 };
	struct MHD_Response *resp;
	unsigned int status = MHD_HTTP_OK;
	const char *type = METRICS_CONTENT_TYPE;
	enum MHD_Result r;

	(void)version;
	(void)upload_data;
	(void)upload_data_size;
	(void)req_cls;
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD)) {
		status = MHD_HTTP_METHOD_NOT_ALLOWED;
		type = "text/plain; charset=utf-8";
		byte_buffer_append(&body, "only GET /metrics\n", 18);
	} else if (strcmp(url, "/metrics")) {
		status = MHD_HTTP_NOT_FOUND;
		type = "text/plain; charset=utf-8";
		byte_buffer_append(&body, "ringtrace serves /metrics\n", 26);
	} else if (server->render(server->ctx, &body)) {
		status = MHD_HTTP_INTERNAL_SERVER_ERROR;
		type = "text/plain; charset=utf-8";
		body.len = 0;
		byte_buffer_append(&body, "cannot read the metrics\n", 24);
	}
	resp = MHD_create_response_from_buffer(body.len, body.data, MHD_RESPMEM_MUST_COPY);
	byte_buffer_free(&body);
	if (!resp)
		return MHD_NO;
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	r = MHD_queue_response(conn, status, resp);
	MHD_destroy_response(resp);
	return r;
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
			return -1;
		snprintf(host, sizeof(host), "%.*s", (int)(close - text - 1), text + 1);
		colon = close + 1;
		*ipv6 = true;
	} else {
		colon = strrchr(text, ':');
		if (!colon || (size_t)(colon - text) >= sizeof(host))
			return -1;
		snprintf(host, sizeof(host), "%.*s", (int)(colon - text), text);
		*ipv6 = false;
	}
	port = strtoull(colon + 1, &end, 10);
	if (!colon[1] || *end || !port || port > 65535)
		return -1;
	if (*ipv6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;

		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)port);
		return inet_pton(AF_INET6, host, &a->sin6_addr) == 1 ? 0 : -1;
	}
	struct sockaddr_in *a = (struct sockaddr_in *)ss;

	a->sin_family = AF_INET;
	a->sin_port = htons((uint16_t)port);
	return inet_pton(AF_INET, host, &a->sin_addr) == 1 ? 0 : -1;
}

int metrics_listen_valid(const char *listen)
{
	struct sockaddr_storage addr;
	bool ipv6;

	return parse_listen(listen, &addr, &ipv6) == 0;
}

struct metrics_server *metrics_server_start(const char *listen, metrics_render_fn render,
					    void *ctx, char *err, size_t errlen)
{
	struct metrics_server *s = calloc(1, sizeof(*s));
	struct sockaddr_storage addr;
	bool ipv6 = false;

	if (!s) {
		rt_format(err, errlen, "out of memory");
		return NULL;
	}
	if (parse_listen(listen, &addr, &ipv6)) {
		rt_format(err, errlen, "invalid listen address \"%s\": give ADDR:PORT, e.g. %s or [::1]:9435",
			  listen, METRICS_DEFAULT_LISTEN);
		free(s);
		return NULL;
	}
	s->render = render;
	s->ctx = ctx;
	s->daemon = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | (ipv6 ? MHD_USE_IPv6 : 0), 0,
				     NULL, NULL, answer, s, MHD_OPTION_SOCK_ADDR, &addr,
				     MHD_OPTION_END);
	if (!s->daemon) {
		rt_format(err, errlen, "cannot serve on %s: %s (is the port in use?)", listen,
			  strerror(errno));
		free(s);
		return NULL;
	}
	return s;
}

void metrics_server_stop(struct metrics_server *s)
{
	if (!s)
		return;
	MHD_stop_daemon(s->daemon);
	free(s);
}
