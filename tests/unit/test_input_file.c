/* SPDX-License-Identifier: GPL-2.0-only */
/* test_input_file.c: a recording's files read through a budget: a big file's
 * pages resident a few windows at a time however far it is read, a sparse
 * one refused before any of it is read, the header file's sections found. */
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

#include "format/input_file.h"
#include "format/perf_data_single.h"
#include "format/record_stream.h"
#include "test_util.h"

#define SAMPLE_TYPE                                                                        \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |    \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)
/* Where a sample's time is: after the header, identifier, ip, pid/tid. */
#define TIME_AT 32
#define CLOCK_ID 101
/* Samples of the big file: 96 MiB of 56-byte samples. */
#define BIG_SAMPLES (96u << 20) / 56
/* What the big file's reading may add to the process's resident file pages:
 * PERF_INPUT_RESIDENT_BUDGET, and a window of the check before the stream. */
#define RESIDENT_SLACK (8u << 20)

/* The resident file pages of this process (RssFile), in bytes. */
static uint64_t rss_file(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	unsigned long kib = 0;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "RssFile: %lu", &kib) == 1)
			break;
	fclose(f);
	return (uint64_t)kib << 10;
}

/* A recording in dir of nr samples on CPU 0 (written a chunk at a time, times
 * 1 apart) and one on CPU 1. */
static void write_recording(const char *dir, uint64_t nr)
{
	enum { CHUNK = 8192 };
	struct perf_sample s = { .ip = 0x400000, .pid = 7, .tid = 7, .period = 1, .id = CLOCK_ID };
	struct byte_buffer chunk = { 0 };
	struct tu_recording r;
	char path[PATH_MAX + 16];
	size_t stride;
	int fd;

	tu_recording_init(&r, 2);
	tu_recording_event(&r, "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, SAMPLE_TYPE,
			   CLOCK_ID);
	s.cpu = 1;
	s.time = 5;
	tu_recording_sample(&r, 0, &s);
	tu_recording_write(&r, dir);
	tu_recording_free(&r);
	s.cpu = 0;
	for (unsigned int i = 0; i < CHUNK; i++) {
		s.time = i + 1;
		tu_sample_encode(&chunk, SAMPLE_TYPE, &s);
	}
	stride = chunk.len / CHUNK;
	snprintf(path, sizeof(path), "%s/data.cpu0", dir);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	assert_true(fd >= 0);
	for (uint64_t done = 0; done < nr; done += CHUNK) {
		size_t len = (nr - done < CHUNK ? nr - done : CHUNK) * stride;

		for (size_t at = 0; done && at < chunk.len; at += stride) {
			uint64_t t;

			memcpy(&t, chunk.data + at + TIME_AT, sizeof(t));
			t += CHUNK;
			memcpy(chunk.data + at + TIME_AT, &t, sizeof(t));
		}
		assert_int_equal(write(fd, chunk.data, len), (ssize_t)len);
	}
	close(fd);
	byte_buffer_free(&chunk);
}

/* Streams every record of path, checking that the resident file pages never
 * grow by more than the budget; returns the records. */
static uint64_t stream_within_budget(const char *path)
{
	struct record_stream *rs;
	struct stream_record sr;
	struct perf_input in;
	uint64_t before, most = 0, n = 0;
	char err[512];
	int r;

	before = rss_file();
	assert_int_equal(perf_input_open(&in, path, err, sizeof(err)), 0);
	rs = record_stream_open(&in, err, sizeof(err));
	if (!rs)
		fail_msg("%s", err);
	while ((r = record_stream_next(rs, &sr)) == 1) {
		if (++n % 4096 == 0) {
			uint64_t now = rss_file();

			most = now > most ? now : most;
		}
	}
	assert_int_equal(r, 0);
	record_stream_close(rs);
	perf_input_close(&in);
	if (most > before + PERF_INPUT_RESIDENT_BUDGET + RESIDENT_SLACK)
		fail_msg("%s: %llu KiB of file pages resident while read, %llu before: the budget is %u KiB",
			 path, (unsigned long long)most >> 10, (unsigned long long)before >> 10,
			 (PERF_INPUT_RESIDENT_BUDGET + RESIDENT_SLACK) >> 10);
	return n;
}

/* 96 MiB of records, as a directory (data.cpu0) and as one file (the
 * header file's data section): every record read, no more than the budget
 * resident at any time (the whole file was, populated at once). */
static void test_big_file_read_in_windows(void **state)
{
	char *dir = tu_tempdir(), single[PATH_MAX + 16], err[512];
	struct perf_data_single_totals totals;
	struct perf_input in;
	int fd;

	(void)state;
	write_recording(dir, BIG_SAMPLES);
	assert_int_equal(stream_within_budget(dir), BIG_SAMPLES + 1);

	snprintf(single, sizeof(single), "%s/single.data", dir);
	assert_int_equal(perf_input_open(&in, dir, err, sizeof(err)), 0);
	fd = open(single, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	if (perf_data_write_single(&in, fd, &totals, err, sizeof(err)))
		fail_msg("%s", err);
	close(fd);
	perf_input_close(&in);
	assert_int_equal(totals.records, BIG_SAMPLES + 1);
	assert_int_equal(stream_within_budget(single), BIG_SAMPLES + 1);
	tu_rmtree(dir);
	free(dir);
}

/* A file truncated to 100 GiB after its records, or its header file: refused
 * in one line naming it, nothing mapped. */
static void test_sparse_files_refused(void **state)
{
	static const struct {
		const char *name, *what;
	} cases[] = {
		{ "data.cpu0", "100 GiB declared but only " },
		{ "data", "100 GiB outside its data section, over the 32 MiB its attrs and features may take: not read" },
	};

	(void)state;
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		char *dir = tu_tempdir(), path[PATH_MAX + 16], err[PATH_MAX + 256];
		struct perf_input in;

		write_recording(dir, 100);
		snprintf(path, sizeof(path), "%s/%s", dir, cases[c].name);
		assert_int_equal(truncate(path, (off_t)(100ULL << 30)), 0);
		assert_true(perf_input_open(&in, dir, err, sizeof(err)) < 0);
		if (strncmp(err, path, strlen(path)) || !strstr(err, cases[c].what) || strchr(err, '\n'))
			fail_msg("%s: \"%s\": want one line \"%s: ...%s...\"", cases[c].name, err, path,
				 cases[c].what);
		tu_rmtree(dir);
		free(dir);
	}
}

/* What the header file's sections are looked up in: the whole file when
 * small; else the data section mapped and the bytes before and after it,
 * never a section across the data section's edge. */
static void test_header_sections_found(void **state)
{
	char *dir = tu_tempdir(), err[512], path[PATH_MAX + 8];
	struct perf_input_file f;
	uint64_t budget = PERF_INPUT_WHOLE_BUDGET, size = 3u << 20, start = 4096, end = size - 100;
	uint8_t *bytes = malloc(size);
	const uint8_t *p;

	(void)state;
	assert_non_null(bytes);
	for (uint64_t i = 0; i < size; i++)
		bytes[i] = (uint8_t)(i * 7);
	tu_write_file(dir, "big", bytes, size);
	snprintf(path, sizeof(path), "%s/big", dir);
	assert_int_equal(perf_input_file_open(-1, path, "big", &f, err, sizeof(err)), 0);
	assert_int_equal(f.size, size);
	assert_int_equal(perf_input_file_place(&f, start, end, true, &budget, err, sizeof(err)), 0);
	assert_int_equal(budget, PERF_INPUT_WHOLE_BUDGET); /* over 1 MiB: mapped, not read */
	assert_non_null(f.mapping);
	assert_false(f.fd_open);
	/* inside the data section, before it, after it */
	p = perf_input_file_bytes(&f, start, end - start);
	assert_non_null(p);
	assert_memory_equal(p, bytes + start, end - start);
	p = perf_input_file_bytes(&f, 8, start - 8);
	assert_non_null(p);
	assert_memory_equal(p, bytes + 8, start - 8);
	p = perf_input_file_bytes(&f, end, size - end);
	assert_non_null(p);
	assert_memory_equal(p, bytes + end, size - end);
	/* across an edge, past the end, wrapping */
	assert_null(perf_input_file_bytes(&f, start - 8, 16));
	assert_null(perf_input_file_bytes(&f, end - 8, 16));
	assert_null(perf_input_file_bytes(&f, size - 8, 16));
	assert_null(perf_input_file_bytes(&f, size + 8, 0));
	assert_null(perf_input_file_bytes(&f, 16, UINT64_MAX));
	assert_non_null(perf_input_file_bytes(&f, size, 0));
	perf_input_file_unmap(&f);
	free(bytes);
	tu_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_big_file_read_in_windows),
		cmocka_unit_test(test_sparse_files_refused),
		cmocka_unit_test(test_header_sections_found),
	};

	tu_set_skip_reason(NULL);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
