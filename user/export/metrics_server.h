/* SPDX-License-Identifier: GPL-2.0-only */
/* metrics_server.h: serves GET /metrics over HTTP with libmicrohttpd on a
 * socket bound before the capabilities are dropped, the body rendered on each
 * scrape by the owner's callback. */
#ifndef RINGTRACE_METRICS_SERVER_H
#define RINGTRACE_METRICS_SERVER_H

#include <stddef.h>

#include "lib/byte_buffer.h"

#define METRICS_DEFAULT_LISTEN "127.0.0.1:9435"

/* Renders the metrics into out; 0, or -1 (the scrape gets a 500). Called
 * from the server's thread. */
typedef int (*metrics_render_fn)(void *ctx, struct byte_buffer *out);

struct metrics_server;

/* Whether "ADDR:PORT" or "[ADDR6]:PORT" is a valid --listen/--metrics value. */
int metrics_listen_valid(const char *listen);
/* Creates the listening socket on "ADDR:PORT" (a port below 1024 needs root
 * or CAP_NET_BIND_SERVICE: call it before the capabilities are dropped). The
 * socket, or -1 with err set (one line: the port in use, the permission). */
int metrics_listen(const char *listen, char *err, size_t errlen);
/* Serves on listen_fd, from metrics_listen, until stopped; takes the socket
 * (closed on failure too). NULL with err set. */
struct metrics_server *metrics_server_start(int listen_fd, metrics_render_fn render, void *ctx,
					    char *err, size_t errlen);
void metrics_server_stop(struct metrics_server *s);

#endif
