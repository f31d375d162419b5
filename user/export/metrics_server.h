/* SPDX-License-Identifier: GPL-2.0-only */
/* metrics_server.h: serves GET /metrics over HTTP(S) with libmicrohttpd on a
 * socket bound before the capabilities are dropped, the body rendered on each
 * scrape by the owner's callback, and no client able to keep another out. */
#ifndef RINGTRACE_METRICS_SERVER_H
#define RINGTRACE_METRICS_SERVER_H

#include <stddef.h>

#include "export/profile_requests.h"
#include "export/web_config.h"
#include "lib/byte_buffer.h"

/* The default port: 9100-9999, the range of the Prometheus project's default
 * port allocations for exporters, is all taken (9435 is ebpf_exporter's). */
#define METRICS_DEFAULT_PORT "19435"
#define METRICS_DEFAULT_LISTEN "127.0.0.1:" METRICS_DEFAULT_PORT

/* Connections served at once, at most (fewer if the descriptors allowed by
 * RLIMIT_NOFILE, raised to its hard limit, are fewer). When all but
 * METRICS_CONNECTION_SLACK of them are open, a new connection closes the one
 * that has waited longest for its request to be answered. */
#define METRICS_MAX_CONNECTIONS 1024
#define METRICS_CONNECTION_SLACK 32
/* A connection that sends nothing and is sent nothing for this long is closed. */
#define METRICS_IDLE_TIMEOUT_S 10

/* Renders the metrics into out; 0, or -errno (the scrape gets a 500). Called
 * from the server's thread. */
typedef int (*metrics_render_fn)(void *ctx, struct byte_buffer *out);

struct metrics_server;

/* Whether "ADDR:PORT" or "[ADDR6]:PORT" is a valid --listen/--metrics value. */
int metrics_listen_valid(const char *listen);
/* Creates the listening socket on "ADDR:PORT" (a port below 1024 needs root
 * or CAP_NET_BIND_SERVICE: call it before the capabilities are dropped). The
 * socket, or -errno with err set (one line: the port in use, the permission). */
int metrics_listen(const char *listen, char *err, size_t errlen);
/* Serves on listen_fd, from metrics_listen, until stopped: GET / a page
 * linking to /metrics, GET /metrics what render writes, GET /healthz "ok"
 * (for probes: without basic auth), GET /debug/pprof/profile what
 * profiles (or NULL: 404) make (export/profile_requests.h); over TLS and with basic auth (but
 * /healthz) if web (which must outlive the server) says so, or NULL. Takes
 * the socket (closed on failure too). NULL with err set. */
struct metrics_server *metrics_server_start(int listen_fd, metrics_render_fn render, void *ctx,
					    struct web_config *web,
					    const struct profile_service *profiles, char *err,
					    size_t errlen);
void metrics_server_stop(struct metrics_server *s);

#endif
