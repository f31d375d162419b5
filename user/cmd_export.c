/* cmd_export.c: "ringtrace export": serves the exporter's metrics on /metrics
 * with libmicrohttpd, and/or writes them for node_exporter's textfile
 * collector, until SIGINT or SIGTERM. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <microhttpd.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_util.h"
#include "commands.h"
#include "event_spec.h"
#include "exporter.h"
#include "log.h"
#include "metrics.h"

#define DEFAULT_LISTEN "127.0.0.1:9435"
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

static enum MHD_Result answer(void *cls, struct MHD_Connection *conn, const char *url,
			      const char *method, const char *version, const char *upload_data,
			      size_t *upload_data_size, void **req_cls)
{
	struct exporter *e = cls;
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
	} else if (exporter_render(e, &body)) {
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
	struct sockaddr_storage addr;
	struct MHD_Daemon *daemon = NULL;
	struct exporter *e;
	sigset_t mask;
	bool ipv6 = false;
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
	if (listen && parse_listen(listen, &addr, &ipv6)) {
		rt_error("invalid --listen \"%s\": give ADDR:PORT, e.g. %s or [::1]:9435", listen,
			 DEFAULT_LISTEN);
		return 2;
	}
	if (textfile && check_textfile_dir(textfile))
		return 2;
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
	if (listen) {
		daemon = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | (ipv6 ? MHD_USE_IPv6 : 0), 0,
					  NULL, NULL, answer, e, MHD_OPTION_SOCK_ADDR, &addr,
					  MHD_OPTION_END);
		if (!daemon) {
			rt_error("cannot serve on %s: %s (is the port in use?)", listen, strerror(errno));
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
	if (daemon)
		MHD_stop_daemon(daemon);
	exporter_stop(e);
	close(sigfd);
	return status;
}
