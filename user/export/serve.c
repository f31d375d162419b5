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
#include "export/web_config.h"
#include "lib/log.h"
#include "lib/monotonic.h"
#include "sys/privileges.h"

static int render_export(void *ctx, struct byte_buffer *out)
{
	return exporter_render(ctx, out, true);
}

/* Without process_*: node_exporter, which reads the file, serves its own. */
static void write_textfile(struct exporter *e, struct textfile *t)
{
	struct byte_buffer body = { 0 };
	char err[512];

	if (exporter_render(e, &body, false))
		rt_warn("cannot render the metrics for %s/%s", t->dir, TEXTFILE_NAME);
	else if (textfile_write(t, &body, err, sizeof(err)))
		rt_warn("%s", err);
	byte_buffer_free(&body);
}

/* Until SIGINT or SIGTERM: the textfile every interval, and new cgroups named
 * as soon as the kernel announces them. 0, or -errno after one error line. */
static int run_loop(const struct export_options *o, struct exporter *e, struct textfile *t,
		    int sigfd)
{
	double next = monotonic_seconds();

	for (;;) {
		struct pollfd p[2] = { { sigfd, POLLIN, 0 }, { exporter_new_cgroups_fd(e), POLLIN, 0 } };
		int n, timeout = -1;

		if (o->textfile) {
			double now = monotonic_seconds();

			if (now >= next) {
				write_textfile(e, t);
				next = now + o->interval;
			}
			timeout = (int)((next - now) * 1000) + 1;
		}
		n = poll(p, p[1].fd >= 0 ? 2 : 1, timeout);
		if (n < 0 && errno != EINTR) {
			rt_error("poll: %s", strerror(errno));
			return -errno;
		}
		if (n > 0 && p[0].revents)
			return 0;
		if (n > 0 && p[1].revents)
			exporter_name_new_cgroups(e);
	}
}

int export_run(const struct export_options *o)
{
	struct textfile textfile = { .dirfd = -1 };
	struct metrics_server *server = NULL;
	struct web_config web = { 0 };
	bool have_web = false;
	struct exporter *e = NULL;
	sigset_t mask;
	char err[512];
	int sigfd = -1, listen_fd = -1, status = 1;

	if (o->textfile && textfile_open(&textfile, o->textfile, err, sizeof(err))) {
		rt_error("%s", err);
		return 2;
	}
	/* read while the capabilities last (a key file only root reads) */
	if (o->web_config) {
		if (web_config_load(&web, o->web_config, err, sizeof(err))) {
			rt_error("%s", err);
			textfile_close(&textfile);
			return 2;
		}
		have_web = true;
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
		server = metrics_server_start(listen_fd, render_export, e, have_web ? &web : NULL,
					      o->profiles, err, sizeof(err));
		listen_fd = -1; /* the server's, or closed */
		if (!server) {
			rt_error("%s", err);
			goto out;
		}
		rt_info("ringtrace: serving metrics on %s://%s/metrics%s", web.cert_pem ? "https" : "http",
			o->listen, !o->profiles ? ""
				   : o->profiles->offcpu ? " and profiles on " PROFILE_PATH " and " OFFCPU_PROFILE_PATH
							 : " and profiles on " PROFILE_PATH);
	}
	if (o->textfile)
		rt_info("ringtrace: writing %s/%s every %u s", o->textfile, TEXTFILE_NAME, o->interval);
	status = run_loop(o, e, &textfile, sigfd) ? 1 : 0;
out:
	metrics_server_stop(server);
	exporter_stop(e);
	if (o->textfile)
		textfile_remove(&textfile);
	textfile_close(&textfile);
	if (have_web)
		web_config_free(&web);
	if (listen_fd >= 0)
		close(listen_fd);
	if (sigfd >= 0)
		close(sigfd);
	return status;
}
