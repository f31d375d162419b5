/* SPDX-License-Identifier: GPL-2.0-only */
/* drain_bench.c: records per second through each transport into per-CPU files
 * (or libbpf's consumer), fed by a BPF producer BPF_PROG_TEST_RUN drives flat out. */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include "bench_producer.skel.h"
#include "capture/transport.h"
#include "record/file_sink.h"
#include "sys/cpu_list.h"
#include "sys/output_dir.h"

#define RING_BYTES (512 * 1024)
#define STAGING_BYTES (8u << 20)

struct bench {
	struct bench_producer_bpf *skel;
	int producer_cpu;
	atomic_bool stop;
	uint64_t runs;
	struct record_sink *files; /* the sink record writes its files with */
	uint64_t delivered; /* libbpf modes: records its callback saw */
	FILE *file;         /* libbpf-file mode: where its callback writes them */
};

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static void *producer(void *arg)
{
	struct bench *b = arg;
	LIBBPF_OPTS(bpf_test_run_opts, opts, .flags = BPF_F_TEST_RUN_ON_CPU,
		    .cpu = (__u32)b->producer_cpu);
	int fd = bpf_program__fd(b->skel->progs.produce);

	pin(b->producer_cpu);
	while (!atomic_load(&b->stop)) {
		if (bpf_prog_test_run_opts(fd, &opts)) {
			perror("drain_bench: BPF_PROG_TEST_RUN");
			exit(1);
		}
		b->runs++;
	}
	return NULL;
}

static int stage_record(void *ctx, int cpu, const void *rec, size_t size)
{
	struct bench *b = ctx;

	return b->files->ops->sample(b->files, cpu, rec, size);
}

static int ignore_lost(void *ctx, int cpu, uint64_t count, uint64_t time, uint32_t pid,
		       uint32_t tid)
{
	(void)ctx;
	(void)cpu;
	(void)count;
	(void)time;
	(void)pid;
	(void)tid;
	return 0;
}

static int count_record(void *ctx, void *data, size_t size)
{
	struct bench *b = ctx;

	if (b->file && fwrite(data, size, 1, b->file) != 1)
		return -EIO;
	b->delivered++;
	return 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t total(struct bench *b, __u32 key)
{
	int n = libbpf_num_possible_cpus();
	uint64_t *v = calloc((size_t)n, sizeof(*v)), sum = 0;

	if (v && !bpf_map_lookup_elem(bpf_map__fd(b->skel->maps.totals), &key, v))
		for (int i = 0; i < n; i++)
			sum += v[i];
	free(v);
	return sum;
}

int main(int argc, char **argv)
{
	struct bench b = { 0 };
	struct cpu_list cpus = { 0 };
	struct transport *t = NULL;
	struct ring_buffer *rb = NULL;
	struct transport_sink sink = { stage_record, ignore_lost, &b };
	struct record_sink_totals totals = { 0 };
	enum transport_kind kind;
	bool libbpf_mode;
	double seconds, t0, elapsed;
	char err[512], cpu_text[16];
	pthread_t thread;
	pthread_attr_t pattr;
	struct output_dir out = { .fd = -1 };
	int dirfd, ring_fd = -1, epfd;

	if (argc != 4 || (strcmp(argv[1], "ringbuf") && strcmp(argv[1], "perfbuf") &&
			  strcmp(argv[1], "libbpf") && strcmp(argv[1], "libbpf-file"))) {
		fprintf(stderr, "usage: drain_bench ringbuf|perfbuf|libbpf|libbpf-file SECONDS OUTDIR\n"
				"  libbpf: ring_buffer__poll counting records; libbpf-file: writing\n"
				"  each one to OUTDIR/data with stdio\n");
		return 2;
	}
	libbpf_mode = !strncmp(argv[1], "libbpf", 6);
	kind = !strcmp(argv[1], "perfbuf") ? TRANSPORT_PERFBUF : TRANSPORT_RINGBUF;
	seconds = atof(argv[2]);
	b.producer_cpu = (int)sysconf(_SC_NPROCESSORS_ONLN) - 1;
	snprintf(cpu_text, sizeof(cpu_text), "%d", b.producer_cpu);
	cpu_list_parse(&cpus, cpu_text, b.producer_cpu + 1, err, sizeof(err));
	if (b.producer_cpu > 0)
		pin(0); /* the consumer on another CPU than the producer */

	b.skel = bench_producer_bpf__open();
	if (!b.skel)
		return 1;
	b.skel->rodata->use_perfbuf = kind == TRANSPORT_PERFBUF && !libbpf_mode;
	bpf_map__set_max_entries(b.skel->maps.cpu_rings, (__u32)libbpf_num_possible_cpus());
	bpf_map__set_max_entries(b.skel->maps.perf_rings, (__u32)libbpf_num_possible_cpus());
	if (libbpf_mode) {
		if (!strcmp(argv[1], "libbpf-file")) {
			char path[4096];

			dirfd = output_dir_open(&out, argv[3], true, err, sizeof(err)) ? -1 : out.fd;
			snprintf(path, sizeof(path), "%s/data", argv[3]);
			b.file = dirfd < 0 ? NULL : fopen(path, "w");
			if (!b.file) {
				fprintf(stderr, "drain_bench: cannot write %s\n", path);
				return 1;
			}
			setvbuf(b.file, NULL, _IOFBF, 256 * 1024);
		}
		ring_fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "bench_ring", 0, 0, RING_BYTES, NULL);
		bpf_map__set_inner_map_fd(b.skel->maps.cpu_rings, ring_fd);
	} else {
		struct transport_config tc = { .kind = kind, .cpus = &cpus, .ring_bytes = RING_BYTES,
					       .wakeup_bytes = RING_BYTES / 4 };

		struct file_sink_config fc = { .cpus = &cpus, .dirpath = argv[3],
					       .staging_bytes = STAGING_BYTES };

		dirfd = output_dir_open(&out, argv[3], true, err, sizeof(err)) ? -1 : out.fd;
		fc.dirfd = dirfd;
		if (dirfd < 0 || !(b.files = file_sink_create(&fc, err, sizeof(err))) ||
		    !(t = transport_create(&tc, &sink, err, sizeof(err)))) {
			fprintf(stderr, "drain_bench: %s\n", err);
			return 1;
		}
		if (transport_inner_map_template(t) >= 0)
			bpf_map__set_inner_map_fd(b.skel->maps.cpu_rings, transport_inner_map_template(t));
	}
	if (bench_producer_bpf__load(b.skel)) {
		fprintf(stderr, "drain_bench: cannot load the producer\n");
		return 1;
	}
	if (libbpf_mode) {
		__u32 key = (__u32)b.producer_cpu;

		bpf_map_update_elem(bpf_map__fd(b.skel->maps.cpu_rings), &key, &ring_fd, BPF_ANY);
		rb = ring_buffer__new(ring_fd, count_record, &b, NULL);
		epfd = -1;
	} else {
		struct transport_maps maps = {
			.ring_array_fd = bpf_map__fd(b.skel->maps.cpu_rings),
			.perf_array_fd = bpf_map__fd(b.skel->maps.perf_rings),
			.own_rings_fd = -1,
			.wakeups_fd = -1,
			.nr_possible_cpus = (unsigned int)libbpf_num_possible_cpus(),
		};

		if (transport_install(t, &maps, err, sizeof(err)) ||
		    b.files->ops->start(b.files, err, sizeof(err))) {
			fprintf(stderr, "drain_bench: %s\n", err);
			return 1;
		}
		epfd = transport_epoll_fd(t);
	}

	pthread_attr_init(&pattr);
	t0 = now_s();
	pthread_create(&thread, &pattr, producer, &b);
	while (now_s() - t0 < seconds) {
		if (libbpf_mode) {
			ring_buffer__poll(rb, 100);
		} else {
			struct epoll_event ev;

			epoll_wait(epfd, &ev, 1, 100);
			transport_drain(t);
			b.files->ops->flush(b.files, err, sizeof(err));
		}
	}
	atomic_store(&b.stop, true);
	pthread_join(thread, NULL);
	elapsed = now_s() - t0;
	if (libbpf_mode) {
		ring_buffer__consume(rb);
		if (b.file)
			fclose(b.file);
	} else {
		transport_drain(t);
		b.files->ops->finish(b.files, err, sizeof(err));
		b.files->ops->totals(b.files, b.producer_cpu, &totals);
		b.delivered = totals.samples;
	}
	printf("mode=%s seconds=%.3f produced=%llu delivered=%llu lost=%llu rate=%.0f\n", argv[1],
	       elapsed, (unsigned long long)total(&b, 0), (unsigned long long)b.delivered,
	       (unsigned long long)(total(&b, 1) + totals.lost), (double)b.delivered / elapsed);
	ring_buffer__free(rb);
	transport_free(t);
	if (b.files)
		b.files->ops->free(b.files);
	bench_producer_bpf__destroy(b.skel);
	return 0;
}
