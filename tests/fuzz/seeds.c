/* SPDX-License-Identifier: GPL-2.0-only */
/* seeds.c: writes seeds for fuzz_perf_data (make fuzz-seeds): a synthetic
 * recording of tracepoints with every kind of field, and compact copies of
 * real recordings (their attrs, tracing data and first records).
 *
 * Usage: fuzz_seeds OUT_DIR [NAME=RECORDING_DIR...]
 * A seed is what fuzz_perf_data reads: a u32 (the length of the header file,
 * the command in its top byte), the header file, then data.cpu0. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/perf_file.h"
#include "test_util.h"

#define SAMPLE_ID_TYPE \
	(PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)
#define CLOCK_TYPE (SAMPLE_ID_TYPE | PERF_SAMPLE_IP | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN)
#define TP_TYPE (SAMPLE_ID_TYPE | PERF_SAMPLE_IP | PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW)
#define PID 4242
#define K(off) (0xffffffff81000000ULL + (off))
/* A seed holds at most this many bytes of records from a real recording. */
#define MAX_RECORD_BYTES 24576
#define SAMPLES_PER_EVENT 6

static const char *out_dir;

/* The seed: header length (command 0) and the two files. */
static void write_seed(const char *name, const char *dir)
{
	char path[PATH_MAX];
	struct byte_buffer seed = { 0 };
	uint32_t head = 0;
	const char *files[] = { "data", "data.cpu0" };

	byte_buffer_append(&seed, &head, sizeof(head));
	for (int i = 0; i < 2; i++) {
		char buf[65536];
		ssize_t n;
		int fd;

		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			fail_msg("cannot open %s: %s", path, strerror(errno));
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			byte_buffer_append(&seed, buf, (size_t)n);
		close(fd);
		if (!i)
			head = (uint32_t)(seed.len - sizeof(head));
	}
	if (head > 0xffffff || seed.len > 65536)
		fail_msg("seed %s is %zu bytes: more than the fuzzer reads", name, seed.len);
	memcpy(seed.data, &head, sizeof(head));
	snprintf(path, sizeof(path), "%s/%s", out_dir, name);
	unlink(path);
	tu_write_file(out_dir, name, seed.data, seed.len);
	printf("%s: %zu bytes\n", path, seed.len);
	byte_buffer_free(&seed);
}

static const char fixed_format[] =
	"name: fixed\nID: 77\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:int value;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:char label[8];\toffset:12;\tsize:8;\tsigned:0;\n"
	"\tfield:short delta;\toffset:20;\tsize:2;\tsigned:1;\n"
	"\tfield:unsigned char flag;\toffset:22;\tsize:1;\tsigned:0;\n"
	"\tfield:void * where;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 count;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:u32 words[3];\toffset:40;\tsize:12;\tsigned:0;\n"
	"\nprint fmt: \"value=%d\", REC->value\n";

static const char dynamic_format[] =
	"name: dynamic\nID: 78\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:__data_loc char[] name;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:pid_t pid;\toffset:12;\tsize:4;\tsigned:1;\n"
	"\tfield:__rel_loc char[] note;\toffset:16;\tsize:4;\tsigned:0;\n"
	"\tfield:__data_loc unsigned long[] ips;\toffset:20;\tsize:4;\tsigned:0;\n"
	"\nprint fmt: \"name=%s\", __get_str(name)\n";

static void common_fields(uint8_t *raw, uint16_t type)
{
	int32_t pid = PID;

	memcpy(raw, &type, 2);
	memcpy(raw + 4, &pid, 4);
}

static void tp_sample(struct tu_recording *r, unsigned int event, uint32_t cpu, uint64_t time,
		      const uint8_t *raw, uint32_t size)
{
	struct perf_sample s = { .misc = PERF_RECORD_MISC_USER, .ip = 0x401000, .pid = PID,
				 .tid = PID, .time = time, .cpu = cpu, .period = 1,
				 .raw_size = size, .raw = raw };

	tu_recording_sample(r, event, &s);
}

/* cpu-clock with callchains and two tracepoints, one of fixed fields and
 * one of dynamic ones (__data_loc, __rel_loc), a LOST record, side-band. */
static void synthetic_tracepoints(void)
{
	static const char *const formats[] = { fixed_format, dynamic_format };
	const uint64_t chain[] = { PERF_CONTEXT_KERNEL, K(0x110), K(0x210), PERF_CONTEXT_USER,
				   0x401010, 0x401200 };
	struct perf_comm comm = { .pid = PID, .tid = PID, .comm = "synthetic" };
	struct perf_mmap m = { .pid = PID, .tid = PID, .start = 0x400000, .len = 0x10000,
			       .prot = 5, .flags = 2, .filename = "/usr/bin/synthetic" };
	struct perf_task fork = { .pid = PID + 1, .ppid = PID, .tid = PID + 1, .ptid = PID };
	struct perf_sample_id sid = { .pid = PID, .tid = PID, .id = 101 };
	struct perf_lost lost = { .id = 101, .lost = 3 };
	struct byte_buffer td = { 0 };
	struct tu_recording r;
	char *dir = tu_tempdir();
	struct perf_event_attr *a;
	uint8_t raw[64];

	tu_recording_init(&r, 1);
	a = tu_recording_event(&r, "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK,
			       CLOCK_TYPE, 101);
	a->sample_period = 1000000;
	tu_recording_event(&r, "synthetic:fixed", PERF_TYPE_TRACEPOINT, 77, TP_TYPE, 102)
		->sample_period = 1;
	tu_recording_event(&r, "synthetic:dynamic", PERF_TYPE_TRACEPOINT, 78, TP_TYPE, 103)
		->sample_period = 1;
	tu_tracing_data(&td, "synthetic", formats, 2);
	r.header.tracing_data = td.data;
	r.header.tracing_data_size = td.len;
	perf_kernel_mmap_encode(&r.side, SAMPLE_ID_TYPE, K(0), &sid);
	perf_comm_encode(&r.side, SAMPLE_ID_TYPE, &comm, &sid);
	perf_mmap2_encode(&r.side, SAMPLE_ID_TYPE, &m, &sid);

	for (int i = 0; i < 3; i++) {
		struct perf_sample s = { .misc = PERF_RECORD_MISC_KERNEL, .ip = chain[1], .pid = PID,
					 .tid = PID, .time = 1000 + (uint64_t)i, .period = 1000000,
					 .nr_callchain = 6 - (uint64_t)i, .callchain = chain };

		tu_recording_sample(&r, 0, &s);
	}
	memset(raw, 0, sizeof(raw));
	common_fields(raw, 77);
	memcpy(raw + 8, &(int32_t){ -7 }, 4);
	memcpy(raw + 12, "alpha", 5);
	memcpy(raw + 20, &(int16_t){ -2 }, 2);
	raw[22] = 'x';
	memcpy(raw + 24, &(uint64_t){ 0xffff888000001000ULL }, 8);
	memcpy(raw + 32, &(uint64_t){ 1ULL << 40 }, 8);
	tp_sample(&r, 1, 0, 2000, raw, 52);

	/* name at 24 (5 bytes), note 4 bytes after its field's end, ips at 40 */
	memset(raw, 0, sizeof(raw));
	common_fields(raw, 78);
	memcpy(raw + 8, &(uint32_t){ 6u << 16 | 24 }, 4);
	memcpy(raw + 12, &(int32_t){ PID }, 4);
	memcpy(raw + 16, &(uint32_t){ 5u << 16 | 10 }, 4);
	memcpy(raw + 20, &(uint32_t){ 16u << 16 | 40 }, 4);
	memcpy(raw + 24, "exec1", 6);
	memcpy(raw + 30, "note", 5);
	memcpy(raw + 40, &(uint64_t){ K(0x110) }, 8);
	memcpy(raw + 48, &(uint64_t){ K(0x210) }, 8);
	tp_sample(&r, 2, 0, 3000, raw, 56);
	/* dynamic data past the record: shown as its length */
	memcpy(raw + 8, &(uint32_t){ 200u << 16 | 24 }, 4);
	tp_sample(&r, 2, 0, 3500, raw, 56);

	sid.time = 4000;
	perf_task_encode(&r.cpu[0], SAMPLE_ID_TYPE, PERF_RECORD_FORK, &fork, &sid);
	perf_lost_encode(&r.cpu[0], SAMPLE_ID_TYPE, PERF_RECORD_LOST_SAMPLES, &lost, &sid);
	r.kallsyms = NULL;
	tu_recording_write(&r, dir);
	write_seed("tracepoint-fields", dir);
	tu_recording_free(&r);
	byte_buffer_free(&td);
	tu_rmtree(dir);
	free(dir);
}

/* What the fuzzer found first (3 SIGSEGV in 6200 mutated recordings): a
 * field whose offset + size wraps in 32 bits, so that it seemed to lie in
 * the record and was read 4 GiB past it. */
static const char wrapping_format[] =
	"name: wrapping\nID: 77\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:int value;\toffset:4294967290;\tsize:8;\tsigned:1;\n"
	"\nprint fmt: \"value=%d\", REC->value\n";

static void regression_field_offset_wraps(void)
{
	static const char *const formats[] = { wrapping_format };
	struct byte_buffer td = { 0 };
	struct tu_recording r;
	char *dir = tu_tempdir();
	uint8_t raw[20] = { 0 };

	tu_recording_init(&r, 1);
	tu_recording_event(&r, "synthetic:wrapping", PERF_TYPE_TRACEPOINT, 77, TP_TYPE, 102)
		->sample_period = 1;
	tu_tracing_data(&td, "synthetic", formats, 1);
	r.header.tracing_data = td.data;
	r.header.tracing_data_size = td.len;
	common_fields(raw, 77);
	tp_sample(&r, 0, 0, 2000, raw, sizeof(raw));
	tu_recording_write(&r, dir);
	write_seed("regression-field-offset-wraps", dir);
	tu_recording_free(&r);
	byte_buffer_free(&td);
	tu_rmtree(dir);
	free(dir);
}

/* A real recording made small: its events, tracing data and names, and
 * its first records across its files, in one data.cpu0. */
static void compact(const char *name, const char *recording)
{
	struct perf_data_event events[TU_RECORDING_MAX_EVENTS];
	struct perf_data_header h = { .events = events };
	const struct perf_event_header *rec;
	struct byte_buffer cpu0 = { 0 };
	unsigned int samples[TU_RECORDING_MAX_EVENTS] = { 0 };
	struct tu_records r;
	char *dir = tu_tempdir(), path[PATH_MAX], err[512];
	int fd;

	tu_records_open(&r, recording, TU_RECORDS_STRICT);
	if (r.in.nr_events > TU_RECORDING_MAX_EVENTS)
		fail_msg("%s: more than %d events", recording, TU_RECORDING_MAX_EVENTS);
	for (unsigned int i = 0; i < r.in.nr_events; i++) {
		memset(&events[i], 0, sizeof(events[i]));
		events[i].attr = r.in.events[i].attr;
		events[i].name = r.in.events[i].name;
		events[i].ids = r.in.events[i].ids;
		events[i].nr_ids = r.in.events[i].nr_ids;
	}
	h.nr_events = r.in.nr_events;
	h.tracing_data = r.in.tracing_data;
	h.tracing_data_size = r.in.tracing_data_size;
	/* the side-band of the header file is left out, but for COMMs and the
	 * kernel's MMAP; of every file after it, its side-band and a few
	 * samples of each event, while they fit */
	while (tu_records_next(&r, &rec)) {
		const struct perf_input_event *ev = perf_input_event_of(&r.in, rec);
		unsigned int e = ev ? (unsigned int)(ev - r.in.events) : 0;

		if (r.file == 0 && rec->type != PERF_RECORD_COMM && rec->type != PERF_RECORD_MMAP)
			continue;
		if (rec->type == PERF_RECORD_SAMPLE && (!ev || samples[e]++ >= SAMPLES_PER_EVENT))
			continue;
		if (cpu0.len + rec->size > MAX_RECORD_BYTES)
			break;
		byte_buffer_append(&cpu0, rec, rec->size);
	}
	snprintf(path, sizeof(path), "%s/data", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (fd < 0 || perf_data_write_header(fd, &h, NULL, 0, err, sizeof(err)))
		fail_msg("cannot write %s: %s", path, err);
	close(fd);
	tu_write_file(dir, "data.cpu0", cpu0.data, cpu0.len);
	write_seed(name, dir);
	tu_records_close(&r);
	byte_buffer_free(&cpu0);
	tu_rmtree(dir);
	free(dir);
}

static int argc_;
static char **argv_;

static void write_seeds(void **state)
{
	(void)state;
	synthetic_tracepoints();
	regression_field_offset_wraps();
	for (int i = 2; i < argc_; i++) {
		char *eq = strchr(argv_[i], '=');

		if (!eq)
			fail_msg("give NAME=RECORDING_DIR, not %s", argv_[i]);
		*eq = '\0';
		compact(argv_[i], eq + 1);
	}
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(write_seeds) };

	if (argc < 2) {
		fprintf(stderr, "usage: %s OUT_DIR [NAME=RECORDING_DIR...]\n", argv[0]);
		return 2;
	}
	out_dir = argv[1];
	argc_ = argc;
	argv_ = argv;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
