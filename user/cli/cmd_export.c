/* cmd_export.c: "ringtrace export": serves the exporter's metrics on /metrics
 * with libmicrohttpd, and/or writes them for node_exporter's textfile
 * collector, until SIGINT or SIGTERM. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli_util.h"
#include "cli/commands.h"
#include "capture/event_spec.h"
#include "export/exporter.h"
#include "lib/log.h"
#include "export/metrics.h"
#include "export/metrics_server.h"
#include "sys/privileges.h"

#define DEFAULT_LISTEN METRICS_DEFAULT_LISTEN
#define DEFAULT_FREQ 99
#define DEFAULT_TOP_COMMS 20
#define DEFAULT_INTERVAL_S 15
#define TEXTFILE_NAME "ringtrace.prom"

enum { OPT_LISTEN = 256, OPT_TEXTFILE, OPT_INTERVAL, OPT_TOP };

static const struct option long_options[] = {
	{ "listen", required_argument, NULL, OPT_LISTEN },
	{ "textfile", required_argument, NULL, OPT_TEXTFILE },
	{ "interval", required_argument, NULL, OPT_INTERVAL },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "event", required_argument, NULL, 'e' },
	{ "freq", required_argument, NULL, 'F' },
	{ "cgroup", required_argument, NULL, 'G' },
	{ "help", no_argument, NULL, 'h' },
	{ 0 },
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: ringtrace export [--listen ADDR:PORT] [--textfile DIR [--interval S]]\n"
		"                        [-e cpu-clock|task-clock] [-F HZ] [-G CGROUP] [--top N]\n"
		"\n"
		"Samples every CPU continuously, aggregates in BPF maps and serves Prometheus\n"
		"metrics (text format 0.0.4) on http://ADDR:PORT/metrics, until SIGINT/SIGTERM.\n"
		"\n"
		"      --listen ADDR:PORT  where to serve (default %s; a non-loopback\n"
		"                          address only if given here; [::1]:PORT for IPv6)\n"
		"      --textfile DIR      write DIR/%s every interval for node_exporter's\n"
		"                          textfile collector (without --listen: no HTTP)\n"
		"      --interval S        seconds between textfile writes (default %d)\n"
		"  -e, --event EVENT       the sampling event: cpu-clock (default) or task-clock\n"
		"  -F, --freq HZ           samples per second per CPU (default %d)\n"
		"  -G, --cgroup PATH       only tasks in this cgroup v2 directory and below\n"
		"      --top N             comms named in ringtrace_comm_cpu_seconds_total; the\n"
		"                          rest are summed as \"other\" (default %d)\n",
		DEFAULT_LISTEN, TEXTFILE_NAME, DEFAULT_INTERVAL_S, DEFAULT_FREQ, DEFAULT_TOP_COMMS);
}

/* DIR/ringtrace.prom replaced whole: written to a temporary file in DIR
 * (never through a symlink), then renamed over it. */
static int write_textfile(struct exporter *e, const char *dir)
{
	struct byte_buffer body = { 0 };
	char tmp[4096], final[4096];
	int fd, ret = -1;

	if (snprintf(tmp, sizeof(tmp), "%s/.%s.XXXXXX", dir, TEXTFILE_NAME) >= (int)sizeof(tmp))
		return -1;
	snprintf(final, sizeof(final), "%s/%s", dir, TEXTFILE_NAME);
	if (exporter_render(e, &body))
		goto out;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		goto out;
	/* node_exporter runs as its own user: the file is world-readable */
	if (fchmod(fd, 0644) || write(fd, body.data, body.len) != (ssize_t)body.len) {
		close(fd);
		unlink(tmp);
		goto out;
	}
	if (close(fd) || rename(tmp, final)) {
		unlink(tmp);
		goto out;
	}
	ret = 0;
out:
	if (ret)
		rt_warn("cannot write %s: %s", final, strerror(errno));
	byte_buffer_free(&body);
	return ret;
}

static int render_export(void *ctx, struct byte_buffer *out)
{
	return exporter_render(ctx, out);
}

static int check_textfile_dir(const char *dir)
{
	struct stat st;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st)) {
		rt_error("--textfile %s: %s", dir,
			 errno == ELOOP || errno == ENOTDIR ? "not a real directory" : strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

int cmd_export(int argc, char **argv)
{
	struct exporter_config cfg = { .event_type = PERF_TYPE_SOFTWARE,
				       .event_config = PERF_COUNT_SW_CPU_CLOCK,
				       .rate = { .freq = DEFAULT_FREQ },
				       .top_comms = DEFAULT_TOP_COMMS };
	const char *listen = NULL, *textfile = NULL;
	unsigned int interval = DEFAULT_INTERVAL_S;
	struct metrics_server *server = NULL;
	struct exporter *e;
	sigset_t mask;
	char err[512];
	uint64_t v;
	int c, sigfd, status = 1;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":e:F:G:h", long_options, NULL)) != -1) {
		switch (c) {
		case OPT_LISTEN:
			listen = optarg;
			break;
		case OPT_TEXTFILE:
			textfile = optarg;
			break;
		case OPT_INTERVAL:
			if (cli_parse_u64("--interval", optarg, 1, 3600, &v))
				return 2;
			interval = (unsigned int)v;
			break;
		case OPT_TOP:
			if (cli_parse_u64("--top", optarg, 1, 1000, &v))
				return 2;
			cfg.top_comms = (unsigned int)v;
			break;
		case 'e':
			if (!strcmp(optarg, "cpu-clock")) {
				cfg.event_config = PERF_COUNT_SW_CPU_CLOCK;
			} else if (!strcmp(optarg, "task-clock")) {
				cfg.event_config = PERF_COUNT_SW_TASK_CLOCK;
			} else {
				rt_error("export samples cpu-clock or task-clock, not \"%s\"", optarg);
				return 2;
			}
			break;
		case 'F':
			if (cli_parse_u64("-F", optarg, 1, 100000, &v))
				return 2;
			cfg.rate.freq = v;
			break;
		case 'G':
			cfg.cgroup = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case ':':
			rt_error("option %s needs a value: see ringtrace export --help",
				 cli_rejected_option(argv));
			return 2;
		default:
			rt_error("unknown option %s: see ringtrace export --help",
				 cli_rejected_option(argv));
			return 2;
		}
	}
	if (optind < argc) {
		rt_error("unexpected argument \"%s\": see ringtrace export --help", argv[optind]);
		return 2;
	}
	if (!listen && !textfile)
		listen = DEFAULT_LISTEN;
	if (listen && !metrics_listen_valid(listen)) {
		rt_error("invalid --listen \"%s\": give ADDR:PORT, e.g. %s or [::1]:9435", listen,
			 DEFAULT_LISTEN);
		return 2;
	}
	if (textfile && check_textfile_dir(textfile))
		return 2;
	if (privileges_check("export", err, sizeof(err))) {
		rt_error("%s", err);
		return 1;
	}
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	sigfd = signalfd(-1, &mask, SFD_CLOEXEC);
	e = exporter_start(&cfg, err, sizeof(err));
	if (!e) {
		rt_error("%s", err);
		close(sigfd);
		return 1;
	}
	/* attached: the exporter keeps no capability, its HTTP thread none */
	if (privileges_drop_all(err, sizeof(err))) {
		rt_error("%s", err);
		goto out;
	}
	if (listen) {
		server = metrics_server_start(listen, render_export, e, err, sizeof(err));
		if (!server) {
			rt_error("%s", err);
			goto out;
		}
		rt_info("ringtrace: serving metrics on http://%s/metrics", listen);
	}
	if (textfile)
		rt_info("ringtrace: writing %s/%s every %u s", textfile, TEXTFILE_NAME, interval);
	for (;;) {
		struct pollfd p = { sigfd, POLLIN, 0 };
		int n;

		if (textfile)
			write_textfile(e, textfile);
		n = poll(&p, 1, textfile ? (int)interval * 1000 : -1);
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
	close(sigfd);
	return status;
}
