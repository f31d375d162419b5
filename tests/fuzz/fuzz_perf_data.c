/* SPDX-License-Identifier: GPL-2.0-only */
/* fuzz_perf_data.c: libFuzzer target for everything that reads a recording:
 * the input is a perf.data directory and the command that reads it (below),
 * run as report (table, --children, --folded, --flamegraph, --pprof, filters)
 * or script.
 * Nothing may crash, hang or leak.
 *
 * Input: a u32 whose low 24 bits are the length of the header file "data"
 * and whose high 8 bits say what reads it (FUZZ_* below), the bytes of
 * "data", then the bytes of "data.cpu0". Symbols come only from the
 * target's own directory (a kallsyms file, an empty symfs): what is fuzzed
 * is the input, never the files of the machine it runs on. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/report.h"
#include "report/script.h"

/* What reads the recording: the low 3 bits of the selector byte. */
enum {
	FUZZ_TABLE,      /* report, every sort key but cgroup */
	FUZZ_CHILDREN,   /* report --children */
	FUZZ_FOLDED,     /* report --folded */
	FUZZ_FLAMEGRAPH, /* report --flamegraph */
	FUZZ_SCRIPT,     /* script */
	FUZZ_CGROUP,     /* report --sort cgroup --cgroup / */
	FUZZ_PPROF,      /* report --pprof - */
	FUZZ_NR_COMMANDS = 7,
};
/* Filters, in the selector's high bits, for the report commands. */
#define FUZZ_FILTER_COMM 0x08u
#define FUZZ_FILTER_PID 0x10u
#define FUZZ_FILTER_CPU 0x20u
#define FUZZ_FILTER_TIME 0x40u
#define FUZZ_FILTER_EVENT 0x80u

static char dir[64];
static char kallsyms[96];
static char symfs[96];
static char svg[96];
static FILE *devnull;
static int data_fd = -1, cpu0_fd = -1;

/* Creates DIR/name once; the file is rewritten in place for every input. */
static int create_file(const char *name)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		abort();
	return fd;
}

/* Over the last input's bytes, then cut to size: the file's pages (tmpfs)
 * are written again, not freed and allocated again for every input. */
static void write_file(int fd, const uint8_t *data, size_t size)
{
	if ((size && pwrite(fd, data, size, 0) != (ssize_t)size) || ftruncate(fd, (off_t)size))
		abort();
}

static void cleanup(void)
{
	char path[128];

	for (const char *const *n = (const char *const[]){ "data", "data.cpu0", "kallsyms", NULL }; *n; n++) {
		snprintf(path, sizeof(path), "%s/%s", dir, *n);
		unlink(path);
	}
	unlink(svg);
	if (data_fd >= 0)
		close(data_fd);
	if (cpu0_fd >= 0)
		close(cpu0_fd);
	rmdir(symfs);
	rmdir(dir);
	if (devnull)
		fclose(devnull);
	devnull = NULL;
}

static void setup(void)
{
	/* in memory when it can: the disk is not what is fuzzed */
	const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR")
			  : access("/dev/shm", W_OK) ? "/tmp" : "/dev/shm";
	FILE *k;

	snprintf(dir, sizeof(dir), "%s/ringtrace-fuzz-XXXXXX", tmp);
	if (!mkdtemp(dir))
		abort();
	snprintf(kallsyms, sizeof(kallsyms), "%s/kallsyms", dir);
	snprintf(symfs, sizeof(symfs), "%s/symfs", dir);
	snprintf(svg, sizeof(svg), "%s/graph.svg", dir);
	if (mkdir(symfs, 0700))
		abort();
	k = fopen(kallsyms, "w");
	if (!k)
		abort();
	fprintf(k, "ffffffff81000000 T _text\nffffffff81000100 T kfunc_a\nffffffff81000200 t kfunc_b\n");
	fclose(k);
	data_fd = create_file("data");
	cpu0_fd = create_file("data.cpu0");
	devnull = fopen("/dev/null", "w");
	if (!devnull)
		abort();
	atexit(cleanup);
}

/* Reads the recording now in dir as selector says. */
static void run_command(unsigned int selector)
{
	struct report_options o = { .input = dir, .pid_filter = -1, .kallsyms = kallsyms,
				    .symfs = symfs };
	struct script_options so = { .input = dir, .kallsyms = kallsyms, .symfs = symfs };
	unsigned int command = (selector & 7) % FUZZ_NR_COMMANDS;
	char err[1024];

	if (command == FUZZ_SCRIPT) {
		script_run(&so, devnull, err, sizeof(err));
		return;
	}
	if (report_parse_sort(&o, command == FUZZ_CGROUP ? "cgroup,comm" : "comm,pid,tid,dso,sym,cpu",
			      err, sizeof(err)))
		abort();
	o.children = command == FUZZ_CHILDREN;
	o.output = command == FUZZ_FOLDED ? REPORT_FOLDED
		   : command == FUZZ_FLAMEGRAPH ? REPORT_FLAMEGRAPH
		   : command == FUZZ_PPROF ? REPORT_PPROF : REPORT_TABLE;
	o.flamegraph_path = svg;
	o.pprof_path = "-"; /* into devnull */
	o.cgroup_filter = command == FUZZ_CGROUP ? "/" : NULL;
	o.comm_filter = selector & FUZZ_FILTER_COMM ? "bash" : NULL;
	o.pid_filter = selector & FUZZ_FILTER_PID ? 4242 : -1;
	o.cpu_filter = selector & FUZZ_FILTER_CPU ? "0" : NULL;
	o.event_filter = selector & FUZZ_FILTER_EVENT ? "cpu-clock" : NULL;
	if ((selector & FUZZ_FILTER_TIME) && report_parse_time(&o, "0.000001,5", err, sizeof(err)))
		abort();
	report_run(&o, devnull, err, sizeof(err));
	unlink(svg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t head = 0, header_len;

	if (!devnull)
		setup();
	if (size >= 4) {
		memcpy(&head, data, 4);
		data += 4;
		size -= 4;
	}
	header_len = head & 0xffffff;
	if (header_len > size)
		header_len = (uint32_t)size;
	write_file(data_fd, data, header_len);
	write_file(cpu0_fd, data + header_len, size - header_len);
	run_command(head >> 24);
	return 0;
}
