/* SPDX-License-Identifier: GPL-2.0-only */
/* fuzz_perf_data.c: libFuzzer target for everything that reads a recording:
 * the input is a perf.data directory (u32 length of the header file "data",
 * its bytes, then the bytes of "data.cpu0"), read by report (table, children,
 * folded stacks) and script. Nothing may crash, hang or leak. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/report.h"
#include "report/script.h"

static char dir[64];
static char kallsyms[96];
static FILE *devnull;

static void write_file(const char *name, const uint8_t *data, size_t size)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (fd < 0)
		abort();
	if (size && write(fd, data, size) != (ssize_t)size)
		abort();
	close(fd);
}

static void cleanup(void)
{
	char path[128];

	for (const char *const *n = (const char *const[]){ "data", "data.cpu0", "kallsyms", NULL }; *n; n++) {
		snprintf(path, sizeof(path), "%s/%s", dir, *n);
		unlink(path);
	}
	rmdir(dir);
	if (devnull)
		fclose(devnull);
	devnull = NULL;
}

static void setup(void)
{
	const char *tmp = getenv("TMPDIR");
	FILE *k;

	snprintf(dir, sizeof(dir), "%s/ringtrace-fuzz-XXXXXX", tmp ? tmp : "/tmp");
	if (!mkdtemp(dir))
		abort();
	snprintf(kallsyms, sizeof(kallsyms), "%s/kallsyms", dir);
	k = fopen(kallsyms, "w");
	if (!k)
		abort();
	fprintf(k, "ffffffff81000000 T _text\nffffffff81000100 T kfunc_a\nffffffff81000200 t kfunc_b\n");
	fclose(k);
	devnull = fopen("/dev/null", "w");
	if (!devnull)
		abort();
	atexit(cleanup);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct report_options o = { .input = dir, .pid_filter = -1 };
	struct script_options so = { .input = dir };
	uint32_t header_len = 0;
	char err[1024];

	if (!devnull)
		setup();
	if (size >= 4) {
		memcpy(&header_len, data, 4);
		data += 4;
		size -= 4;
	}
	if (header_len > size)
		header_len = (uint32_t)size;
	write_file("data", data, header_len);
	write_file("data.cpu0", data + header_len, size - header_len);
	o.kallsyms = so.kallsyms = kallsyms;
	if (report_parse_sort(&o, "comm,pid,tid,dso,sym,cpu", err, sizeof(err)))
		abort();
	report_run(&o, devnull, err, sizeof(err));
	o.children = 1;
	report_run(&o, devnull, err, sizeof(err));
	o.children = 0;
	o.output = REPORT_FOLDED;
	report_run(&o, devnull, err, sizeof(err));
	script_run(&so, devnull, err, sizeof(err));
	return 0;
}
