/* SPDX-License-Identifier: GPL-2.0-only */
/* serve.c: ringtrace export's run: aggregate in the kernel, serve the metrics
 * over HTTP and/or write them as a textfile, until SIGINT or SIGTERM. */
#include "export/serve.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "export/metrics_server.h"
#include "export/textfile.h"
#include "lib/log.h"
#include "sys/privileges.h"

static int render_export(void *ctx, struct byte_buffer *out)
{
	return exporter_render(ctx, out);
}

static void write_textfile(struct exporter *e, struct textfile *t)
{
	struct byte_buffer body = { 0 };
	char err[512];

	if (exporter_render(e, &body))
		rt_warn("cannot render the metrics for %s/%s", t->dir, TEXTFILE_NAME);
	else if (textfile_write(t, &body, err, sizeof(err)))
		rt_warn("%s", err);
	byte_buffer_free(&body);
}

int export_run(const struct export_options *o)
{
	struct textfile textfile = { .dirfd = -1 };
	struct metrics_server *server = NULL;
	struct exporter *e = NULL;
	sigset_t mask;
	char err[512];
	int sigfd = -1, listen_fd = -1, status = 1;

	if (o->textfile && textfile_open(&textfile, o->textfile, err, sizeof(err))) {
		rt_error("%s", err);
		return 2;
	}
	if (privileges_check("export", err, sizeof(err))) {
		rt_error("%s", err);
		goto out;
	}
	/* bound before anything is attached (a port in use costs nothing) and
	 * while the capabilities last (a port below 1024) */
	if (o->listen) {
		listen_fd = metrics_listen(o->listen, err, sizeof(err));
		if (listen_fd < 0) {
			rt_error("%s", err);
			goto out;
		}
	}
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	sigfd = signalfd(-1, &mask, SFD_CLOEXEC);
	/* a snapshot request (ringtrace snapshot) is not for the exporter:
	 * blocked, it cannot end it */
	sigemptyset(&mask);
	sigaddset(&mask, SIGUSR2);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	if (sigfd < 0) {
		rt_error("signalfd: %s", strerror(errno));
		goto out;
	}
	e = exporter_start(&o->exporter, err, sizeof(err));
	if (!e) {
		rt_error("%s", err);
		goto out;
	}
	/* attached: the exporter keeps no capability, its HTTP thread none */
	if (privileges_drop_all(err, sizeof(err))) {
		rt_error("%s", err);
		goto out;
	}
	if (o->listen) {
		server = metrics_server_start(listen_fd, render_export, e, err, sizeof(err));
		listen_fd = -1; /* the server's, or closed */
		if (!server) {
			rt_error("%s", err);
			goto out;
		}
		rt_info("ringtrace: serving metrics on http://%s/metrics", o->listen);
	}
	if (o->textfile)
		rt_info("ringtrace: writing %s/%s every %u s", o->textfile, TEXTFILE_NAME, o->interval);
	for (;;) {
		struct pollfd p = { sigfd, POLLIN, 0 };
		int n;

		if (o->textfile)
			write_textfile(e, &textfile);
		n = poll(&p, 1, o->textfile ? (int)o->interval * 1000 : -1);
		if (n > 0)
			break;
		if (n < 0 && errno != EINTR) {
			rt_error("poll: %s", strerror(errno));
			goto out;
		}
	}
	status = 0;
out:
	metrics_server_stop(server);
	exporter_stop(e);
	textfile_close(&textfile);
	if (listen_fd >= 0)
		close(listen_fd);
	if (sigfd >= 0)
		close(sigfd);
	return status;
}
