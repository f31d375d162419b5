/* SPDX-License-Identifier: GPL-2.0-only */
/* make_recording.c: writes a perf.data directory of N cpu-clock samples with
 * callchains through a real binary's functions and real kernel symbols. */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "format/perf_data_writer.h"
#include "format/perf_record.h"
#include "lib/byte_buffer.h"
#include "sample_record.h"
#include "symbols/kallsyms.h"
#include "symbols/symbols.h"
#include "sys/output_dir.h"

#define SAMPLE_ID_TYPE (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)
#define SAMPLE_TYPE \
	(SAMPLE_ID_TYPE | PERF_SAMPLE_IP | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN)
#define EVENT_ID 0x5254000000000001ULL
#define BASE 0x555555554000ULL
#define NR_PROCS 8
#define FIRST_PID 50001

static uint64_t rng = 88172645463325252ULL;

static uint64_t next_random(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* The runtime address of a function of the binary, a few bytes in. */
static uint64_t user_ip(const struct symtab *t, const char *name)
{
	for (size_t i = 0; i < t->nr; i++)
		if (!strcmp(t->syms[i].name, name))
			return BASE + t->syms[i].start + 4;
	fprintf(stderr, "make_recording: no function %s in the binary\n", name);
	exit(1);
}

int main(int argc, char **argv)
{
	struct symtab bin, kernel;
	struct byte_buffer side = { 0 }, cpu[2] = { { 0 }, { 0 } };
	struct perf_data_event ev = { .name = "cpu-clock", .ids = (uint64_t[]){ EVENT_ID }, .nr_ids = 1 };
	struct perf_data_header h = { .events = &ev, .nr_events = 1, .nr_cpus_available = 2,
				      .nr_cpus_online = 2 };
	static const char *const leaves[] = { "loadgen_hot_loop", "loadgen_mix_16", "loadgen_mix_8",
					      "loadgen_mix_4",    "loadgen_mix_2",  "loadgen_mix_1" };
	static const unsigned int weights[] = { 40, 25, 15, 10, 6, 4 };
	uint64_t leaf_ip[6], caller_ip[2], main_ip, kernel_ips[64], text = 0;
	unsigned long n;
	char err[512], binary[PATH_MAX];
	struct utsname u;
	struct output_dir out = { .fd = -1 };
	int dirfd, fd, nr_kernel = 0;

	if (argc != 4 || !realpath(argv[3], binary)) {
		fprintf(stderr, "usage: make_recording OUTDIR SAMPLES BINARY (a loadgen build)\n");
		return 2;
	}
	uname(&u);
	h.hostname = u.nodename;
	h.osrelease = u.release;
	h.arch = u.machine;
	h.version = "ringtrace make_recording";
	n = strtoul(argv[2], NULL, 10);
	if (symtab_load_elf(&bin, binary, err, sizeof(err)) ||
	    symtab_load_kallsyms(&kernel, "/proc/kallsyms", err, sizeof(err))) {
		fprintf(stderr, "make_recording: %s\n", err);
		return 1;
	}
	for (int i = 0; i < 6; i++)
		leaf_ip[i] = user_ip(&bin, leaves[i]);
	caller_ip[0] = user_ip(&bin, "spin_thread");
	caller_ip[1] = user_ip(&bin, "mix_thread");
	main_ip = user_ip(&bin, "main");
	for (size_t i = 0; i < kernel.nr; i++)
		if (!strcmp(kernel.syms[i].name, "_text"))
			text = kernel.syms[i].start;
	/* 64 real kernel functions spread over its text (not the __pfx padding) */
	for (size_t i = kernel.nr / 4; i < kernel.nr && nr_kernel < 64; i += kernel.nr / 2 / 64)
		for (size_t j = i; j < kernel.nr && j < i + 16; j++)
			if (strncmp(kernel.syms[j].name, "__pfx_", 6) &&
			    kernel.syms[j].end - kernel.syms[j].start > 16) {
				kernel_ips[nr_kernel++] = kernel.syms[j].start + 8;
				break;
			}
	while (nr_kernel < 64)
		kernel_ips[nr_kernel] = kernel_ips[nr_kernel % 8], nr_kernel++;

	/* side-band: the kernel, and NR_PROCS processes of the binary */
	{
		struct perf_sample_id sid = { .id = EVENT_ID };
		const struct elf_segment *exec = NULL;

		perf_kernel_mmap_encode(&side, SAMPLE_ID_TYPE, text, &sid);
		for (size_t s = 0; s < bin.nr_segments; s++)
			if (bin.segments[s].offset && !exec)
				exec = &bin.segments[s];
		for (int p = 0; p < NR_PROCS; p++) {
			uint32_t pid = FIRST_PID + (uint32_t)p;
			struct perf_comm c = { pid, pid, "loadgen", false };
			struct perf_mmap m = { .pid = pid, .tid = pid,
					       .start = BASE + (exec->vaddr & ~0xfffULL),
					       .len = (exec->size + 0xfff) & ~0xfffULL,
					       .pgoff = exec->offset & ~0xfffULL, .prot = 5,
					       .flags = 2, .filename = binary };

			sid.pid = sid.tid = pid;
			perf_comm_encode(&side, SAMPLE_ID_TYPE, &c, &sid);
			perf_mmap2_encode(&side, SAMPLE_ID_TYPE, &m, &sid);
		}
	}
	/* samples: a weighted leaf, its caller, main; a third in the kernel */
	for (unsigned long i = 0; i < n; i++) {
		uint64_t w[64], r = next_random(), pick = r % 100, leaf = 0;
		uint32_t pid = FIRST_PID + (uint32_t)(r >> 8) % NR_PROCS, c = (uint32_t)(i & 1);
		bool in_kernel = (r >> 20) % 3 == 0;
		struct rt_sample_head head = {
			.header = { PERF_RECORD_SAMPLE,
				    in_kernel ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER, 0 },
			.id = EVENT_ID,
			.pid = pid,
			.tid = pid,
			.time = 1000000 + i * 500000,
			.cpu = c,
			.period = 1001001,
		};
		size_t k = RT_SAMPLE_FIXED_WORDS, nr_at = k++;

		for (unsigned int acc = 0; leaf < 6 && pick >= acc + weights[leaf]; acc += weights[leaf++])
			;
		head.ip = in_kernel ? kernel_ips[(r >> 24) % 64] : leaf_ip[leaf];
		/* the callchain after the head: nr, then its frames */
		if (in_kernel) {
			w[k++] = PERF_CONTEXT_KERNEL;
			for (int d = 0; d < 4; d++)
				w[k++] = kernel_ips[(r >> (24 + d * 6)) % 64];
		}
		w[k++] = PERF_CONTEXT_USER;
		w[k++] = leaf_ip[leaf];
		w[k++] = caller_ip[leaf != 0];
		w[k++] = main_ip;
		w[nr_at] = k - nr_at - 1;
		head.header.size = (uint16_t)(k * 8);
		memcpy(w, &head, sizeof(head));
		byte_buffer_append(&cpu[c], w, k * 8);
	}

	dirfd = output_dir_open(&out, argv[1], true, err, sizeof(err)) ? -1 : out.fd;
	if (dirfd < 0) {
		fprintf(stderr, "make_recording: %s\n", err);
		return 1;
	}
	ev.attr.type = PERF_TYPE_SOFTWARE;
	ev.attr.config = PERF_COUNT_SW_CPU_CLOCK;
	ev.attr.sample_period = 1001001;
	ev.attr.sample_type = SAMPLE_TYPE;
	ev.attr.sample_id_all = 1;
	ev.attr.exclude_guest = 1;
	fd = output_file_create(dirfd, argv[1], "data", err, sizeof(err));
	if (fd < 0 || perf_data_write_header(fd, &h, side.data, side.len, err, sizeof(err))) {
		fprintf(stderr, "make_recording: %s\n", err);
		return 1;
	}
	close(fd);
	for (int c = 0; c < 2; c++) {
		char name[32];

		snprintf(name, sizeof(name), "data.cpu%d", c);
		fd = output_file_create(dirfd, argv[1], name, err, sizeof(err));
		if (fd < 0 || write(fd, cpu[c].data, cpu[c].len) != (ssize_t)cpu[c].len) {
			fprintf(stderr, "make_recording: cannot write %s\n", name);
			return 1;
		}
		close(fd);
	}
	printf("%lu samples written to %s\n", n, argv[1]);
	return 0;
}
