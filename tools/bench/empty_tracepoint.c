/* SPDX-License-Identifier: GPL-2.0-only */
/* empty_tracepoint.c: attaches an empty BPF program to a tracepoint, as
 * ringtrace attaches its own, prints "ready", and holds until stdin closes. */
#include <bpf/libbpf.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bench_empty.skel.h"
#include "capture/perf_events.h"
#include "sys/tracefs.h"

int main(int argc, char **argv)
{
	struct perf_event_attr attr = { .size = sizeof(attr), .type = PERF_TYPE_TRACEPOINT,
					.disabled = 1 }; /* counting, as ringtrace's own */
	struct tracepoint_format fmt;
	struct bench_empty_bpf *skel;
	struct bpf_link *link;
	char err[256], c, *colon;
	int fd;

	if (argc != 2 || !(colon = strchr(argv[1], ':'))) {
		fprintf(stderr, "usage: empty_tracepoint SYSTEM:NAME\n");
		return 2;
	}
	*colon = '\0';
	if (tracefs_read_format(argv[1], colon + 1, &fmt, err, sizeof(err))) {
		fprintf(stderr, "empty_tracepoint: %s\n", err);
		return 1;
	}
	attr.config = fmt.id;
	skel = bench_empty_bpf__open_and_load();
	fd = perf_event_open_fd(&attr, -1, 0, -1, 0);
	if (!skel || fd < 0) {
		fprintf(stderr, "empty_tracepoint: cannot load or open the tracepoint\n");
		return 1;
	}
	link = bpf_program__attach_perf_event(skel->progs.do_nothing, fd);
	if (!link) {
		fprintf(stderr, "empty_tracepoint: cannot attach\n");
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	while (read(0, &c, 1) > 0)
		;
	bpf_link__destroy(link);
	close(fd);
	bench_empty_bpf__destroy(skel);
	return 0;
}
