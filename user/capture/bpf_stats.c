/* SPDX-License-Identifier: GPL-2.0-only */
/* bpf_stats.c: run counts and run times of a BPF object's programs, which the
 * kernel keeps while kernel.bpf_stats_enabled is 1. */
#include "capture/bpf_stats.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <inttypes.h>
#include <stdio.h>

#include "lib/log.h"

bool bpf_stats_enabled(void)
{
	FILE *f = fopen("/proc/sys/kernel/bpf_stats_enabled", "re");
	int v = 0;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v != 0;
}

size_t bpf_stats_read(struct bpf_object *obj, struct bpf_program_runs *out, size_t max)
{
	struct bpf_program *prog;
	size_t n = 0;

	bpf_object__for_each_program(prog, obj) {
		struct bpf_prog_info info = { 0 };
		__u32 len = sizeof(info);
		int fd = bpf_program__fd(prog);

		if (n == max)
			break;
		if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len))
			continue;
		out[n].name = bpf_program__name(prog);
		out[n].runs = info.run_cnt;
		out[n].run_ns = info.run_time_ns;
		n++;
	}
	return n;
}

void bpf_stats_print(const struct bpf_program_runs *runs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (runs[i].runs)
			rt_info("ringtrace: BPF run time (kernel.bpf_stats_enabled): %s: %" PRIu64
				" runs, %.0f ns per run",
				runs[i].name, runs[i].runs, (double)runs[i].run_ns / (double)runs[i].runs);
}
