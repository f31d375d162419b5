/* SPDX-License-Identifier: GPL-2.0-only */
/* test_hostile_input.c: crafted recordings (sizes and offsets that wrap or
 * point past their file or record) are one error line naming the file and
 * the offset, never a crash or a read out of bounds (the tests run under ASan). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/perf_file.h"
#include "report/report.h"
#include "report/script.h"
#include "test_util.h"

#define SAMPLE_ID_TYPE \
	(PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)
#define CLOCK_TYPE (SAMPLE_ID_TYPE | PERF_SAMPLE_IP | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN)
#define TP_TYPE (SAMPLE_ID_TYPE | PERF_SAMPLE_IP | PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW)
#define PID 4242
#define CLOCK_ID 101
#define TP_ID 102

/* A tracepoint format whose field offset + size wraps in 32 bits: 2, inside
 * any record, to a reader that adds them as u32. */
static const char wrapping_format[] =
	"name: wrapping\nID: 77\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:long value;\toffset:4294967290;\tsize:8;\tsigned:1;\n"
	"\nprint fmt: \"value=%ld\", REC->value\n";

static const char good_format[] =
	"name: good\nID: 77\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:__data_loc char[] name;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\nprint fmt: \"name=%s\", __get_str(name)\n";

struct crafted {
	char *dir;
	char path[PATH_MAX]; /* of the file the test damages */
};

/* A recording of one cpu-clock sample with a callchain and one tracepoint
 * sample with the given format; the samples are data.cpu0's only records. */
static void write_recording_of(struct crafted *c, const char *const *formats, int nr_formats,
			       const uint8_t *raw, uint32_t raw_size)
{
	const uint64_t chain[] = { PERF_CONTEXT_KERNEL, 0xffffffff81000110ULL };
	struct perf_sample clock = { .misc = PERF_RECORD_MISC_KERNEL, .ip = chain[1], .pid = PID,
				     .tid = PID, .time = 1000, .period = 1, .nr_callchain = 2,
				     .callchain = chain };
	struct perf_sample tp = { .misc = PERF_RECORD_MISC_USER, .ip = 0x400000, .pid = PID,
				  .tid = PID, .time = 2000, .period = 1, .raw_size = raw_size,
				  .raw = raw };
	struct tu_recording r;
	struct byte_buffer td = { 0 };

	tu_tracing_data(&td, "fake", formats, nr_formats);
	c->dir = tu_tempdir();
	assert_non_null(c->dir);
	tu_recording_init(&r, 1);
	tu_recording_event(&r, "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, CLOCK_TYPE,
			   CLOCK_ID);
	tu_recording_event(&r, "fake:event", PERF_TYPE_TRACEPOINT, 77, TP_TYPE, TP_ID);
	r.header.tracing_data = td.data;
	r.header.tracing_data_size = td.len;
	tu_recording_sample(&r, 0, &clock);
	tu_recording_sample(&r, 1, &tp);
	r.kallsyms = "ffffffff81000000 T _text\nffffffff81000100 T kfunc\n";
	tu_recording_write(&r, c->dir);
	tu_recording_free(&r);
	byte_buffer_free(&td);
}

static void write_recording(struct crafted *c, const char *format, const uint8_t *raw,
			    uint32_t raw_size)
{
	write_recording_of(c, &format, 1, raw, raw_size);
}

static void crafted_free(struct crafted *c)
{
	tu_rmtree(c->dir);
	free(c->dir);
}

/* Reads len bytes at offset of DIR/name, or writes them (write). */
static void file_bytes(struct crafted *c, const char *name, uint64_t offset, void *buf,
		       size_t len, bool write)
{
	int fd;

	snprintf(c->path, sizeof(c->path), "%s/%s", c->dir, name);
	fd = open(c->path, write ? O_WRONLY : O_RDONLY);
	assert_true(fd >= 0);
	if (write)
		assert_int_equal(pwrite(fd, buf, len, (off_t)offset), (ssize_t)len);
	else
		assert_int_equal(pread(fd, buf, len, (off_t)offset), (ssize_t)len);
	close(fd);
}

/* Where in data.cpu0 each sample starts: the clock sample at 0, the
 * tracepoint sample after it. */
static uint64_t second_record(struct crafted *c)
{
	struct perf_event_header h;

	file_bytes(c, "data.cpu0", 0, &h, sizeof(h), false);
	return h.size;
}

/* err is one line naming file and "offset N". */
static void expect_one_line(const char *what, const char *err, const char *file, uint64_t offset)
{
	char at[64];

	snprintf(at, sizeof(at), "offset %llu", (unsigned long long)offset);
	if (strchr(err, '\n') || !strstr(err, file) || !strstr(err, at))
		fail_msg("%s: error \"%s\" is not one line naming %s and %s", what, err, file, at);
}

/* script and report (table, --children, --folded) all fail with that error. */
static void expect_refused(struct crafted *c, const char *file, uint64_t offset, bool report_too)
{
	char kallsyms[PATH_MAX], err[1024], *text = NULL;
	struct script_options so = { .input = c->dir, .kallsyms = kallsyms };
	struct report_options o = { .input = c->dir, .pid_filter = -1, .kallsyms = kallsyms };
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	int r;

	snprintf(kallsyms, sizeof(kallsyms), "%s/kallsyms", c->dir);
	err[0] = '\0';
	assert_true(script_run(&so, out, err, sizeof(err)) < 0);
	expect_one_line("script", err, file, offset);
	assert_int_equal(report_parse_sort(&o, "comm,dso,sym", err, sizeof(err)), 0);
	for (int mode = 0; report_too && mode < 3; mode++) {
		o.children = mode == 1;
		o.output = mode == 2 ? REPORT_FOLDED : REPORT_TABLE;
		err[0] = '\0';
		r = report_run(&o, out, err, sizeof(err));
		assert_true(r < 0 && r != REPORT_BAD_REQUEST);
		expect_one_line("report", err, file, offset);
	}
	fclose(out);
	free(text);
}

/* The crash fuzzing found: the field's offset + size wrapped to 2. */
static void test_tracepoint_field_offset_wraps(void **state)
{
	uint8_t raw[20] = { 77 };
	struct crafted c;
	char data[PATH_MAX];
	struct perf_file_header h;

	(void)state;
	write_recording(&c, wrapping_format, raw, sizeof(raw));
	snprintf(data, sizeof(data), "%s/data", c.dir);
	file_bytes(&c, "data", 0, &h, sizeof(h), false);
	/* named at the line of the field, in the header file */
	{
		struct perf_input in;
		char err[512];
		const char *at;

		assert_int_equal(perf_input_open(&in, c.dir, err, sizeof(err)), 0);
		at = memmem(in.tracing_data, in.tracing_data_size, "\tfield:long value", 17);
		assert_non_null(at);
		expect_refused(&c, data,
			       in.tracing_data_offset + (uint64_t)(at - (const char *)in.tracing_data),
			       false);
		perf_input_close(&in);
	}
	crafted_free(&c);
}

/* A callchain of 2^61 ips in a record of a few words. */
static void test_huge_callchain_nr(void **state)
{
	uint8_t raw[12] = { 77 };
	struct crafted c;
	char cpu0[PATH_MAX];
	/* header, identifier, ip, tid, time, cpu, period: nr is the 7th word */
	uint64_t nr = 1ULL << 61, at = 8 + 6 * 8;

	(void)state;
	write_recording(&c, good_format, raw, sizeof(raw));
	file_bytes(&c, "data.cpu0", at, &nr, sizeof(nr), true);
	snprintf(cpu0, sizeof(cpu0), "%s/data.cpu0", c.dir);
	expect_refused(&c, cpu0, 0, true);
	crafted_free(&c);
}

/* A raw size of 4 GiB - 16 in a record of a few words. */
static void test_raw_size_past_the_record(void **state)
{
	uint8_t raw[12] = { 77 };
	struct crafted c;
	char cpu0[PATH_MAX];
	uint32_t size = 0xfffffff0u;
	uint64_t at;

	(void)state;
	write_recording(&c, good_format, raw, sizeof(raw));
	at = second_record(&c);
	/* header, identifier, ip, tid, time, cpu, period: the raw size follows */
	file_bytes(&c, "data.cpu0", at + 8 + 6 * 8, &size, sizeof(size), true);
	snprintf(cpu0, sizeof(cpu0), "%s/data.cpu0", c.dir);
	expect_refused(&c, cpu0, at, true);
	crafted_free(&c);
}

/* The index entry of the first feature (tracing data), at data.offset + data.size. */
static uint64_t first_feature(struct crafted *c, struct perf_file_section *sec)
{
	struct perf_file_header h;
	uint64_t at;

	file_bytes(c, "data", 0, &h, sizeof(h), false);
	assert_true(h.features[0] & (1ULL << PERF_FEAT_TRACING_DATA));
	at = h.data.offset + h.data.size;
	file_bytes(c, "data", at, sec, sizeof(*sec), false);
	return at;
}

/* A feature section that starts past the end of the file. */
static void test_feature_offset_past_the_file(void **state)
{
	uint8_t raw[12] = { 77 };
	struct perf_file_section sec;
	struct crafted c;
	char data[PATH_MAX];
	struct stat st;
	uint64_t at;

	(void)state;
	write_recording(&c, good_format, raw, sizeof(raw));
	at = first_feature(&c, &sec);
	assert_int_equal(stat(c.path, &st), 0);
	sec.offset = (uint64_t)st.st_size + 4096;
	file_bytes(&c, "data", at, &sec, sizeof(sec), true);
	snprintf(data, sizeof(data), "%s/data", c.dir);
	expect_refused(&c, data, at, true);
	crafted_free(&c);
}

/* A feature section whose offset + size wraps to a small number. */
static void test_feature_size_wraps(void **state)
{
	uint8_t raw[12] = { 77 };
	struct perf_file_section sec;
	struct crafted c;
	char data[PATH_MAX];
	uint64_t at;

	(void)state;
	write_recording(&c, good_format, raw, sizeof(raw));
	at = first_feature(&c, &sec);
	sec.size = UINT64_MAX - sec.offset + 17; /* offset + size == 16 */
	file_bytes(&c, "data", at, &sec, sizeof(sec), true);
	snprintf(data, sizeof(data), "%s/data", c.dir);
	expect_refused(&c, data, at, true);
	crafted_free(&c);
}

/* The data section past the end of the file, and an attr's ids whose
 * offset + size wraps. */
static void test_sections_past_the_file(void **state)
{
	uint8_t raw[12] = { 77 };
	struct perf_file_header h;
	struct perf_file_section ids;
	struct crafted c;
	char data[PATH_MAX];
	uint64_t ids_at;

	(void)state;
	write_recording(&c, good_format, raw, sizeof(raw));
	snprintf(data, sizeof(data), "%s/data", c.dir);
	file_bytes(&c, "data", 0, &h, sizeof(h), false);
	h.data.offset += 1ULL << 40;
	file_bytes(&c, "data", 0, &h, sizeof(h), true);
	expect_refused(&c, data, 40, true);
	h.data.offset -= 1ULL << 40;
	file_bytes(&c, "data", 0, &h, sizeof(h), true);

	ids_at = h.attrs.offset + h.attr_size - sizeof(ids); /* attr 0's ids */
	file_bytes(&c, "data", ids_at, &ids, sizeof(ids), false);
	ids.size = UINT64_MAX - ids.offset + 9; /* offset + size == 8 */
	file_bytes(&c, "data", ids_at, &ids, sizeof(ids), true);
	expect_refused(&c, data, ids_at, true);
	crafted_free(&c);
}

/* script of c's recording holds line (a line of its output, whole). */
static void expect_script_line(struct crafted *c, const char *line)
{
	char kallsyms[PATH_MAX], err[512], *text = NULL;
	struct script_options so = { .input = c->dir, .kallsyms = kallsyms };
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	snprintf(kallsyms, sizeof(kallsyms), "%s/kallsyms", c->dir);
	assert_int_equal(script_run(&so, out, err, sizeof(err)), 0);
	fclose(out);
	if (!strstr(text, line))
		fail_msg("no line \"%s\" in script's output:\n%s", line, text);
	free(text);
}

/* A __data_loc pointing past the record reads nothing past it. */
static void test_data_loc_past_the_record(void **state)
{
	uint8_t raw[16] = { 77 };
	uint32_t loc = 0xfff0u << 16 | 0xfff0u;
	struct crafted c;

	(void)state;
	memcpy(raw + 8, &loc, sizeof(loc));
	write_recording(&c, good_format, raw, sizeof(raw));
	/* the string lies past the record: read as nothing, never past it */
	expect_script_line(&c, "fake:event: name=\n");
	crafted_free(&c);
}

/* Array indexes in a print fmt: a constant within a fixed array field
 * (raw_syscalls:sys_enter's REC->args[0]) is printed as perf prints it; an
 * index past the array, or one the record gives, would have libtraceevent
 * read where it says: the fields are printed by name instead. */
static void test_array_index_in_print_fmt(void **state)
{
	static const char head[] =
		"ID: 77\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		"\tfield:long id;\toffset:8;\tsize:8;\tsigned:1;\n"
		"\tfield:unsigned long args[2];\toffset:16;\tsize:16;\tsigned:0;\n";
	static const char *const fmts[][2] = {
		{ "\"NR %ld (%lx, %lx)\", REC->id, REC->args[0], REC->args[1]", "fake:event: NR 7 (2a, ff)\n" },
		{ "\"NR %ld (%lx)\", REC->id, REC->args[2]", "fake:event: [FAILED TO PARSE] id=7 args=ARRAY[2a, " },
		{ "\"NR %ld (%lx)\", REC->id, REC->args[REC->id]", "fake:event: [FAILED TO PARSE] id=7 args=ARRAY[2a, " },
	};
	uint8_t raw[32] = { 77 };
	uint64_t v[3] = { 7, 0x2a, 0xff };
	char format[2048];
	const char *formats[1] = { format };
	struct crafted c;

	(void)state;
	memcpy(raw + 8, v, sizeof(v));
	for (size_t i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
		snprintf(format, sizeof(format), "name: event\n%s\nprint fmt: %s\n", head, fmts[i][0]);
		write_recording_of(&c, formats, 1, raw, sizeof(raw));
		expect_script_line(&c, fmts[i][1]);
		crafted_free(&c);
	}
}

/* A raw tab inside a print fmt's string (maple_tree:ma_read's "%s\tNode:"),
 * which libtraceevent 1.7 fails to parse and perf's parser takes, prints as
 * perf prints it: a tab. One outside the string is only space. */
static void test_tab_in_print_fmt(void **state)
{
	static const char format[] =
		"name: event\nID: 77\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		"\tfield:long id;\toffset:8;\tsize:8;\tsigned:1;\n"
		"\nprint fmt: \"id\t%ld \\\"q\t\\\"\",\tREC->id\n";
	uint8_t raw[16] = { 77 };
	uint64_t id = 7;
	const char *formats[1] = { format };
	struct crafted c;

	(void)state;
	memcpy(raw + 8, &id, sizeof(id));
	write_recording_of(&c, formats, 1, raw, sizeof(raw));
	expect_script_line(&c, "fake:event: id\t7 \"q\t\"\n");
	crafted_free(&c);
}

/* Formats harmless alone: libtraceevent (1.7) keeps a static flag set by
 * the first (__print_flags of no field) and, parsing a field that does not
 * exist (the second's, the third's), dereferences NULL. The checker of
 * formats tried the second after the first and died (unsafe); its successor
 * tried the third with the flag clear (safe); the reader, its flag set by
 * the first, crashed on the third (fuzz_perf_data, after 9 M inputs); the
 * same with __print_symbolic's flag (the fourth, then the fifth). Each parse
 * now starts with the flags clear, in the reader as in the checkers. */
static void test_parser_state_left_by_a_format(void **state)
{
	static const char *const formats[] = {
		"name: event\nID: 77\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		"\tfield:int value;\toffset:8;\tsize:4;\tsigned:1;\n"
		"\nprint fmt: \"flags=%s\", __print_flags(1, \"|\", { 1, \"ONE\" })\n",
		"name: other\nID: 78\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		"\tfield:int value;\toffset:8;\tsize:4;\tsigned:1;\n"
		"\nprint fmt: \"value=%d\", REC->nosuch\n",
		"name: third\nID: 79\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		"\tfield:int value;\toffset:8;\tsize:4;\tsigned:1;\n"
		"\nprint fmt: \"value=%d\", REC->nosuch_either\n",
		"name: symbolic\nID: 80\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		"\tfield:int value;\toffset:8;\tsize:4;\tsigned:1;\n"
		"\nprint fmt: \"sym=%s\", __print_symbolic(1, { 1, \"ONE\" })\n",
		"name: fifth\nID: 81\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		"\tfield:int value;\toffset:8;\tsize:4;\tsigned:1;\n"
		"\nprint fmt: \"value=%d\", REC->nosuch_at_all\n",
	};
	uint8_t raw[16] = { 77, 0, 0, 0, 0, 0, 0, 0, 5 };
	struct crafted c;

	(void)state;
	write_recording_of(&c, formats, 5, raw, sizeof(raw));
	for (int run = 0; run < 2; run++) /* the flags left by the run before, too */
		expect_script_line(&c, "fake:event: flags=ONE\n");
	crafted_free(&c);
}

/* A recording whose cpu-clock samples carry id, on CPU 0, with side-band
 * of its tracking event (tracking_id) in data.cpu0. */
static char *recording_with_ids(uint64_t id, uint64_t tracking_id)
{
	struct perf_sample s = { .misc = PERF_RECORD_MISC_USER, .ip = 0x400000, .pid = PID,
				 .tid = PID, .time = 1000, .period = 1 };
	struct perf_comm comm = { .pid = PID, .tid = PID, .comm = "worker" };
	struct perf_sample_id sid = { .pid = PID, .tid = PID, .time = 500, .id = tracking_id };
	struct tu_recording r;
	struct perf_event_attr *dummy;
	char *dir = tu_tempdir();

	tu_recording_init(&r, 1);
	tu_recording_event(&r, "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK,
			   SAMPLE_ID_TYPE | PERF_SAMPLE_IP | PERF_SAMPLE_PERIOD, id);
	dummy = tu_recording_event(&r, "dummy:HG", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY,
				   SAMPLE_ID_TYPE | PERF_SAMPLE_IP | PERF_SAMPLE_PERIOD, tracking_id);
	dummy->comm = dummy->mmap2 = dummy->task = 1;
	assert_int_equal(perf_comm_encode(&r.cpu[0], SAMPLE_ID_TYPE, &comm, &sid), 0);
	for (int i = 0; i < 3; i++) {
		tu_recording_sample(&r, 0, &s);
		s.time++;
	}
	tu_recording_write(&r, dir);
	tu_recording_free(&r);
	return dir;
}

static void expect_foreign(const char *dir, const char *file, uint64_t offset)
{
	struct crafted c = { .dir = (char *)dir };
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	expect_refused(&c, path, offset, true);
}

/* A data.cpuN is a stream of records with no header: its records' sample
 * ids (a sample's identifier, a side-band record's sample_id trailer) say
 * which recording it belongs to. */
static void test_foreign_cpu_file(void **state)
{
	char *a = recording_with_ids(0x5254000011110001ULL, 7);
	char *b = recording_with_ids(0x5254000022220001ULL, 9);
	char from[PATH_MAX], to[PATH_MAX], *text = NULL, err[512];
	struct script_options so = { .input = b };
	struct perf_event_header h;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	int fd;

	(void)state;
	/* b reads as it is */
	assert_int_equal(script_run(&so, out, err, sizeof(err)), 0);
	fclose(out);
	free(text);

	/* a's side-band record in b: its tracking id (7) is not b's (9) */
	snprintf(from, sizeof(from), "%s/data.cpu0", a);
	snprintf(to, sizeof(to), "%s/data.cpu0", b);
	assert_int_equal(rename(from, to), 0);
	expect_foreign(b, "data.cpu0", 0);

	/* b's side-band, then a sample of a: named at its offset */
	fd = open(to, O_RDWR);
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, &h, sizeof(h), 0), (ssize_t)sizeof(h));
	{
		struct perf_comm comm = { .pid = PID, .tid = PID, .comm = "worker" };
		struct perf_sample_id sid = { .pid = PID, .tid = PID, .time = 500, .id = 9 };
		struct byte_buffer own = { 0 };

		assert_int_equal(perf_comm_encode(&own, SAMPLE_ID_TYPE, &comm, &sid), 0);
		assert_int_equal(own.len, h.size);
		assert_int_equal(pwrite(fd, own.data, own.len, 0), (ssize_t)own.len);
		byte_buffer_free(&own);
	}
	close(fd);
	expect_foreign(b, "data.cpu0", h.size);

	tu_rmtree(a);
	tu_rmtree(b);
	free(a);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tracepoint_field_offset_wraps),
		cmocka_unit_test(test_huge_callchain_nr),
		cmocka_unit_test(test_raw_size_past_the_record),
		cmocka_unit_test(test_feature_offset_past_the_file),
		cmocka_unit_test(test_feature_size_wraps),
		cmocka_unit_test(test_sections_past_the_file),
		cmocka_unit_test(test_data_loc_past_the_record),
		cmocka_unit_test(test_array_index_in_print_fmt),
		cmocka_unit_test(test_tab_in_print_fmt),
		cmocka_unit_test(test_parser_state_left_by_a_format),
		cmocka_unit_test(test_foreign_cpu_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
