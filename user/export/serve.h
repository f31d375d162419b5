/* SPDX-License-Identifier: GPL-2.0-only */
/* serve.h: ringtrace export's run: aggregate in the kernel, serve the metrics
 * over HTTP and/or write them as a textfile, until SIGINT or SIGTERM. */
#ifndef RINGTRACE_SERVE_H
#define RINGTRACE_SERVE_H

#include "export/exporter.h"
#include "export/profile_requests.h"

#define EXPORT_DEFAULT_INTERVAL_S 15
#define EXPORT_DEFAULT_CGROUP_GRACE_S 300

struct export_options {
	struct exporter_config exporter;
	const char *listen;     /* ADDR:PORT, or NULL for no HTTP */
	const char *textfile;   /* a directory, or NULL */
	unsigned int interval;  /* seconds between textfile writes */
	const char *web_config; /* TLS and basic auth (--web-config-file), or NULL */
	const struct profile_service *profiles; /* GET /debug/pprof/profile (-g), or NULL */
};

/* Runs until SIGINT or SIGTERM, then removes the textfile (no stale metrics
 * for node_exporter to serve). Returns the exit status: 0, 1 after one error
 * line, 2 for a --textfile that is not a real directory or a web config
 * that cannot be used. */
int export_run(const struct export_options *o);

#endif
