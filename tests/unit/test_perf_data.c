/* SPDX-License-Identifier: GPL-2.0-only */
/* test_perf_data.c: the perf.data writer and reader round-trip every record type
 * ringtrace writes; malformed or truncated input gives an error, never a crash. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/perf_data_reader.h"
#include "format/perf_data_writer.h"
#include "format/perf_file.h"
#include "format/perf_record.h"
#include "format/record_stream.h"
#include "lib/byte_buffer.h"
#include "test_util.h"

#define SAMPLE_ID_TYPE (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU)
#define SAMPLE_TYPE (PERF_SAMPLE_IP | SAMPLE_ID_TYPE | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN)

/* The recordings written here: one cpu-clock event, a header that states
 * the host and the command line, and nr_cpus CPU files. */
static void recording_init(struct tu_recording *r, unsigned int nr_cpus)
{
	static char *argv[] = { "ringtrace", "record", "-a" };
	struct perf_event_attr *a;

	tu_recording_init(r, nr_cpus);
	r->header = (struct perf_data_header){
		.hostname = "testhost", .osrelease = "6.18.0", .arch = "x86_64",
		.version = "ringtrace test", .nr_cpus_available = 2, .nr_cpus_online = 2,
		.argc = 3, .argv = argv, .clockid_res_ns = 1,
	};
	a = tu_recording_event(r, "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK,
			       SAMPLE_TYPE, 0);
	a->sample_freq = 999;
	a->freq = 1;
	a->exclude_guest = 1;
}

/* A SAMPLE laid out as the BPF sampler builds it. */
static void add_sample(struct byte_buffer *b, uint64_t ip, uint32_t pid, uint32_t tid,
		       uint64_t time, uint32_t cpu, const uint64_t *chain, size_t nr)
{
	struct perf_sample s = {
		.misc = PERF_RECORD_MISC_USER, .ip = ip, .pid = pid, .tid = tid, .time = time,
		.cpu = cpu, .period = 1001001, .nr_callchain = nr, .callchain = chain,
	};

	tu_sample_encode(b, SAMPLE_TYPE, &s);
}

static void test_round_trip_every_record_type(void **state)
{
	struct tu_recording recording;
	struct byte_buffer *side, *cpu0;
	const uint64_t chain[] = { PERF_CONTEXT_USER, 0x401000, 0x401234 };
	struct perf_sample_id sid = { .pid = 42, .tid = 43, .time = 1000, .cpu = 0 };
	struct perf_comm comm = { .pid = 42, .tid = 43, .comm = "worker", .exec = true };
	struct perf_mmap m = { .pid = 42, .tid = 42, .start = 0x400000, .len = 0x2000,
			       .pgoff = 0x1000, .maj = 8, .min = 1, .ino = 1234,
			       .prot = PROT_READ | PROT_EXEC, .flags = MAP_PRIVATE,
			       .filename = "/usr/bin/worker" };
	struct perf_mmap mb = m;
	struct perf_task fork_rec = { .pid = 42, .ppid = 1, .tid = 43, .ptid = 42, .time = 900 };
	struct perf_lost lost = { .id = 7, .lost = 99 };
	char *dir = tu_tempdir();
	struct tu_records r;
	const struct perf_event_header *rec;
	int seen[PERF_RECORD_MAX] = { 0 };

	(void)state;
	assert_non_null(dir);
	mb.filename = "/usr/lib/libworker.so";
	mb.build_id_size = 20;
	for (int i = 0; i < 20; i++)
		mb.build_id[i] = (uint8_t)(i * 7 + 1);

	recording_init(&recording, 2); /* data.cpu1 stays empty */
	side = &recording.side;
	cpu0 = &recording.cpu[0];
	assert_int_equal(perf_kernel_mmap_encode(side, SAMPLE_ID_TYPE, 0xffffffff81000000ULL, NULL), 0);
	assert_int_equal(perf_comm_encode(side, SAMPLE_ID_TYPE, &comm, &sid), 0);
	assert_int_equal(perf_mmap2_encode(side, SAMPLE_ID_TYPE, &m, &sid), 0);
	assert_int_equal(perf_mmap2_encode(side, SAMPLE_ID_TYPE, &mb, &sid), 0);

	add_sample(cpu0, 0x401000, 42, 43, 2000, 0, chain, 3);
	assert_int_equal(perf_task_encode(cpu0, SAMPLE_ID_TYPE, PERF_RECORD_FORK, &fork_rec, &sid), 0);
	assert_int_equal(perf_task_encode(cpu0, SAMPLE_ID_TYPE, PERF_RECORD_EXIT, &fork_rec, &sid), 0);
	assert_int_equal(perf_lost_encode(cpu0, SAMPLE_ID_TYPE, PERF_RECORD_LOST, &lost, &sid), 0);
	assert_int_equal(perf_lost_encode(cpu0, SAMPLE_ID_TYPE, PERF_RECORD_LOST_SAMPLES, &lost, &sid), 0);
	tu_recording_write(&recording, dir);

	tu_records_open(&r, dir, TU_RECORDS_WHOLE);
	assert_true(r.in.is_dir);
	assert_int_equal(r.in.nr_events, 1);
	assert_string_equal(r.in.events[0].name, "cpu-clock");
	assert_int_equal(r.in.events[0].attr.size, PERF_FILE_ATTR_SIZE);
	assert_int_equal(r.in.events[0].attr.sample_type, SAMPLE_TYPE);
	assert_int_equal(r.in.events[0].attr.sample_freq, 999);
	assert_true(r.in.events[0].attr.exclude_guest);
	assert_int_equal(r.in.sample_id_type, SAMPLE_ID_TYPE);
	assert_int_equal(r.in.nr_files, 3);
	assert_true(r.in.header.features[0] & (1ULL << PERF_FEAT_DIR_FORMAT));

	while (tu_records_next(&r, &rec)) {
		struct perf_sample_id got_sid;

		assert_true(rec->type < PERF_RECORD_MAX);
		seen[rec->type]++;
		assert_int_equal(rec->size % 8, 0);
		switch (rec->type) {
		case PERF_RECORD_SAMPLE: {
			struct perf_sample s;

			assert_int_equal(perf_sample_decode(rec, SAMPLE_TYPE, &s), 0);
			assert_int_equal(s.ip, 0x401000);
			assert_int_equal(s.pid, 42);
			assert_int_equal(s.tid, 43);
			assert_int_equal(s.time, 2000);
			assert_int_equal(s.period, 1001001);
			assert_int_equal(s.nr_callchain, 3);
			assert_memory_equal(s.callchain, chain, sizeof(chain));
			break;
		}
		case PERF_RECORD_COMM: {
			struct perf_comm c;

			assert_int_equal(perf_comm_decode(rec, SAMPLE_ID_TYPE, &c), 0);
			assert_string_equal(c.comm, "worker");
			assert_true(c.exec);
			assert_int_equal(c.tid, 43);
			break;
		}
		case PERF_RECORD_MMAP: {
			struct perf_mmap k;

			assert_int_equal(perf_mmap_decode(rec, SAMPLE_ID_TYPE, &k), 0);
			assert_string_equal(k.filename, "[kernel.kallsyms]_text");
			assert_int_equal(k.pid, (uint32_t)-1);
			assert_int_equal(k.start, 0xffffffff81000000ULL);
			assert_int_equal(rec->misc & PERF_RECORD_MISC_CPUMODE_MASK,
					 PERF_RECORD_MISC_KERNEL);
			break;
		}
		case PERF_RECORD_MMAP2: {
			struct perf_mmap d;

			assert_int_equal(perf_mmap_decode(rec, SAMPLE_ID_TYPE, &d), 0);
			assert_int_equal(d.start, 0x400000);
			assert_int_equal(d.len, 0x2000);
			assert_int_equal(d.pgoff, 0x1000);
			assert_int_equal(d.prot, PROT_READ | PROT_EXEC);
			if (d.build_id_size) {
				assert_string_equal(d.filename, "/usr/lib/libworker.so");
				assert_memory_equal(d.build_id, mb.build_id, 20);
			} else {
				assert_string_equal(d.filename, "/usr/bin/worker");
				assert_int_equal(d.ino, 1234);
				assert_int_equal(d.maj, 8);
			}
			break;
		}
		case PERF_RECORD_FORK:
		case PERF_RECORD_EXIT: {
			struct perf_task t;

			assert_int_equal(perf_task_decode(rec, &t), 0);
			assert_memory_equal(&t, &fork_rec, sizeof(t));
			break;
		}
		case PERF_RECORD_LOST:
		case PERF_RECORD_LOST_SAMPLES: {
			struct perf_lost l;

			assert_int_equal(perf_lost_decode(rec, &l), 0);
			assert_int_equal(l.lost, 99);
			assert_int_equal(l.id, rec->type == PERF_RECORD_LOST ? 7 : 0);
			break;
		}
		default:
			fail_msg("unexpected record type %u", rec->type);
		}
		if (rec->type != PERF_RECORD_SAMPLE && rec->type != PERF_RECORD_MMAP) {
			assert_int_equal(perf_sample_id_decode(rec, SAMPLE_ID_TYPE, &got_sid), 0);
			assert_int_equal(got_sid.pid, 42);
			assert_int_equal(got_sid.tid, 43);
			assert_int_equal(got_sid.time, 1000);
		}
	}
	assert_int_equal(seen[PERF_RECORD_SAMPLE], 1);
	assert_int_equal(seen[PERF_RECORD_COMM], 1);
	assert_int_equal(seen[PERF_RECORD_MMAP], 1);
	assert_int_equal(seen[PERF_RECORD_MMAP2], 2);
	assert_int_equal(seen[PERF_RECORD_FORK], 1);
	assert_int_equal(seen[PERF_RECORD_EXIT], 1);
	assert_int_equal(seen[PERF_RECORD_LOST], 1);
	assert_int_equal(seen[PERF_RECORD_LOST_SAMPLES], 1);
	tu_records_close(&r);
	tu_recording_free(&recording);
	tu_rmtree(dir);
	free(dir);
}

/* The feature index sits at data.offset + data.size; DIR_FORMAT holds u64 1. */
static void test_dir_format_feature_placement(void **state)
{
	struct tu_recording recording;
	struct perf_comm comm = { .pid = 1, .tid = 1, .comm = "init" };
	char *dir = tu_tempdir(), path[4096];
	struct perf_file_header h;
	struct perf_file_section sec;
	uint64_t version = 0, at;
	int fd, bits_before = 0;

	(void)state;
	recording_init(&recording, 0);
	assert_int_equal(perf_comm_encode(&recording.side, SAMPLE_ID_TYPE, &comm, NULL), 0);
	tu_recording_write(&recording, dir);
	snprintf(path, sizeof(path), "%s/data", dir);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, &h, sizeof(h), 0), sizeof(h));
	assert_int_equal(h.magic, PERF_FILE_MAGIC);
	assert_int_equal(h.size, 104);
	assert_int_equal(h.attr_size, PERF_FILE_ATTR_SIZE + 16);
	assert_int_equal(h.data.size, recording.side.len);
	for (int b = 0; b < PERF_FEAT_DIR_FORMAT; b++)
		bits_before += !!(h.features[0] & (1ULL << b));
	at = h.data.offset + h.data.size + (uint64_t)bits_before * sizeof(sec);
	assert_int_equal(pread(fd, &sec, sizeof(sec), (off_t)at), sizeof(sec));
	assert_int_equal(sec.size, 8);
	assert_int_equal(pread(fd, &version, 8, (off_t)sec.offset), 8);
	assert_int_equal(version, PERF_DIR_FORMAT_VERSION);
	close(fd);
	tu_recording_free(&recording);
	tu_rmtree(dir);
	free(dir);
}

/* A directory whose data file is replaced by the given bytes. */
static char *dir_with_header_bytes(const void *bytes, size_t len)
{
	char *dir = tu_tempdir();

	assert_non_null(dir);
	tu_write_file(dir, "data", bytes, len);
	return dir;
}

static void expect_open_error(const char *dir, const char *needle)
{
	struct perf_input in;
	char err[512] = "";

	assert_true(perf_input_open(&in, dir, err, sizeof(err)) < 0);
	if (!strstr(err, needle))
		fail_msg("error \"%s\" does not mention \"%s\"", err, needle);
	if (!strstr(err, "/data"))
		fail_msg("error \"%s\" does not name the file", err);
}

static void test_malformed_headers_are_errors(void **state)
{
	struct tu_recording recording;
	char *good = tu_tempdir(), path[4096];
	uint8_t *bytes;
	struct stat st;
	int fd;
	char *dir;

	(void)state;
	recording_init(&recording, 0);
	tu_recording_write(&recording, good);
	tu_recording_free(&recording);
	snprintf(path, sizeof(path), "%s/data", good);
	fd = open(path, O_RDONLY);
	assert_int_equal(fstat(fd, &st), 0);
	bytes = malloc((size_t)st.st_size);
	assert_int_equal(read(fd, bytes, (size_t)st.st_size), st.st_size);
	close(fd);

	dir = dir_with_header_bytes(bytes, 50); /* shorter than the header */
	expect_open_error(dir, "too short");
	tu_rmtree(dir);
	free(dir);

	bytes[0] ^= 0xff; /* bad magic */
	dir = dir_with_header_bytes(bytes, (size_t)st.st_size);
	expect_open_error(dir, "bad magic");
	tu_rmtree(dir);
	free(dir);
	bytes[0] ^= 0xff;

	{ /* attrs beyond the end of the file */
		struct perf_file_header h;

		memcpy(&h, bytes, sizeof(h));
		h.attrs.offset = (uint64_t)st.st_size + 4096;
		memcpy(bytes, &h, sizeof(h));
		dir = dir_with_header_bytes(bytes, (size_t)st.st_size);
		expect_open_error(dir, "attrs section");
		tu_rmtree(dir);
		free(dir);
		memcpy(&h, bytes, sizeof(h));
		h.attrs.offset = 104;
		h.data.size = 1ULL << 40; /* data section beyond the end */
		memcpy(bytes, &h, sizeof(h));
		dir = dir_with_header_bytes(bytes, (size_t)st.st_size);
		expect_open_error(dir, "data section");
		tu_rmtree(dir);
		free(dir);
	}
	free(bytes);
	tu_rmtree(good);
	free(good);
}

static void test_bad_and_truncated_records(void **state)
{
	struct tu_recording recording;
	struct byte_buffer cpu = { 0 };
	struct perf_comm comm = { .pid = 5, .tid = 5, .comm = "x" };
	struct perf_event_header zero_size = { PERF_RECORD_COMM, 0, 0 };
	char *dir = tu_tempdir();
	struct perf_input in;
	struct perf_record_iter it;
	const struct perf_event_header *rec;
	char err[512];
	size_t one;

	(void)state;
	recording_init(&recording, 0); /* the CPU files are written by hand */
	tu_recording_write(&recording, dir);
	tu_recording_free(&recording);
	assert_int_equal(perf_comm_encode(&cpu, SAMPLE_ID_TYPE, &comm, NULL), 0);
	one = cpu.len;
	assert_int_equal(perf_comm_encode(&cpu, SAMPLE_ID_TYPE, &comm, NULL), 0);
	/* data.cpu0: one whole record, then half of the next: truncated, not an error */
	tu_write_file(dir, "data.cpu0", cpu.data, one + one / 2);
	/* data.cpu1: a record claiming size 0: an error naming file and offset */
	byte_buffer_reset(&cpu);
	assert_int_equal(perf_comm_encode(&cpu, SAMPLE_ID_TYPE, &comm, NULL), 0);
	assert_non_null(byte_buffer_append(&cpu, &zero_size, sizeof(zero_size)));
	tu_write_file(dir, "data.cpu1", cpu.data, cpu.len);

	assert_int_equal(perf_input_open(&in, dir, err, sizeof(err)), 0);
	assert_int_equal(in.nr_files, 3);
	perf_record_iter_init(&it, &in.files[1]);
	assert_int_equal(perf_record_next(&it, &rec, err, sizeof(err)), 1);
	assert_int_equal(perf_record_next(&it, &rec, err, sizeof(err)), 0);
	assert_true(it.truncated);

	perf_record_iter_init(&it, &in.files[2]);
	assert_int_equal(perf_record_next(&it, &rec, err, sizeof(err)), 1);
	assert_int_equal(perf_record_next(&it, &rec, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "data.cpu1"));
	{
		char offset[64];

		snprintf(offset, sizeof(offset), "offset %zu", one);
		assert_non_null(strstr(err, offset));
	}
	perf_input_close(&in);
	byte_buffer_free(&cpu);
	tu_rmtree(dir);
	free(dir);
}

static void test_sample_decode_rejects_overlong_callchain(void **state)
{
	struct byte_buffer b = { 0 };
	const uint64_t chain[] = { PERF_CONTEXT_USER, 1, 2 };
	struct perf_sample s;
	uint64_t *words;

	(void)state;
	add_sample(&b, 1, 2, 3, 4, 0, chain, 3);
	words = (uint64_t *)b.data;
	assert_int_equal(perf_sample_decode((void *)words, SAMPLE_TYPE, &s), 0);
	words[6] = 1000; /* nr beyond the record */
	assert_int_equal(perf_sample_decode((void *)words, SAMPLE_TYPE, &s), -EINVAL);
	words[6] = UINT64_MAX / 4;
	assert_int_equal(perf_sample_decode((void *)words, SAMPLE_TYPE, &s), -EINVAL);
	words[6] = 3;
	/* a record cut before its period */
	{
		struct perf_event_header h;

		memcpy(&h, words, sizeof(h));
		h.size = 5 * 8;
		memcpy(words, &h, sizeof(h));
	}
	assert_int_equal(perf_sample_decode((void *)words, SAMPLE_TYPE, &s), -EINVAL);
	byte_buffer_free(&b);
}

/* --call-graph dwarf samples: the registers the mask names, the stack copy
 * and its dyn_size, each size checked. */
static void test_sample_decode_user_regs_and_stack(void **state)
{
	const uint64_t type = PERF_SAMPLE_IP | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	uint64_t w[1 + 1 + 1 + 3 + 1 + 4 + 1], reg;
	struct perf_event_header h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, sizeof(w) };
	struct perf_sample s;

	(void)state;
	memcpy(&w[0], &h, sizeof(h));
	w[1] = 0x1234;           /* ip */
	w[2] = 2;                /* abi 64 */
	w[3] = 10, w[4] = 20, w[5] = 30; /* regs of mask bits 0, 7, 8 */
	w[6] = 32;               /* stack size */
	w[7] = 0xa, w[8] = 0xb, w[9] = 0xc, w[10] = 0xd;
	w[11] = 24;              /* dyn_size */
	assert_int_equal(perf_sample_decode_regs((void *)w, type, 0x181, &s), 0);
	assert_int_equal(s.regs_abi, 2);
	assert_int_equal(perf_sample_user_reg(&s, 7, &reg), 0);
	assert_int_equal(reg, 20);
	assert_int_equal(perf_sample_user_reg(&s, 8, &reg), 0);
	assert_int_equal(reg, 30);
	assert_int_equal(perf_sample_user_reg(&s, 1, &reg), -ENOENT);
	assert_int_equal(s.stack_size, 32);
	assert_int_equal(s.stack_dyn_size, 24);
	assert_memory_equal(s.stack_user, &w[7], 32);
	/* a mask naming more registers than the record holds */
	assert_int_equal(perf_sample_decode_regs((void *)w, type, ~0ULL, &s), -EINVAL);
	/* dyn_size beyond the copy, a size not a multiple of 8, past the end */
	w[11] = 40;
	assert_int_equal(perf_sample_decode_regs((void *)w, type, 0x181, &s), -EINVAL);
	w[11] = 24;
	w[6] = 31;
	assert_int_equal(perf_sample_decode_regs((void *)w, type, 0x181, &s), -EINVAL);
	w[6] = 1ULL << 40;
	assert_int_equal(perf_sample_decode_regs((void *)w, type, 0x181, &s), -EINVAL);
	/* a kernel thread: abi 0, size 0, nothing else */
	w[2] = 0;
	w[3] = 0;
	h.size = 4 * 8;
	memcpy(&w[0], &h, sizeof(h));
	assert_int_equal(perf_sample_decode_regs((void *)w, type, 0x181, &s), 0);
	assert_int_equal(s.regs_abi, 0);
	assert_int_equal(s.stack_size, 0);
	assert_int_equal(perf_sample_user_reg(&s, 7, &reg), -ENOENT);
}

static void test_strings_must_be_terminated(void **state)
{
	struct byte_buffer b = { 0 };
	struct perf_comm comm = { .pid = 1, .tid = 1, .comm = "abcdefg" };
	struct perf_comm out;

	(void)state;
	assert_int_equal(perf_comm_encode(&b, SAMPLE_ID_TYPE, &comm, NULL), 0);
	assert_int_equal(perf_comm_decode((void *)b.data, SAMPLE_ID_TYPE, &out), 0);
	/* "abcdefg\0" fills 8 bytes exactly: overwrite the NUL */
	b.data[8 + 8 + 7] = 'h';
	assert_int_equal(perf_comm_decode((void *)b.data, SAMPLE_ID_TYPE, &out), -EINVAL);
	byte_buffer_free(&b);
}

/* perf_next_mmap2 finds each MMAP2 among other records, decoded, and stops
 * at the end or at the first record whose size is wrong. */
static void test_next_mmap2_walks_records(void **state)
{
	struct byte_buffer b = { 0 };
	struct perf_comm comm = { .pid = 1, .tid = 1, .comm = "sh" };
	struct perf_mmap m = { .pid = 7, .tid = 7, .start = 0x1000, .len = 0x1000,
			       .prot = PROT_READ | PROT_EXEC, .filename = "/bin/a" };
	struct perf_mmap out;
	const void *at, *end;
	size_t second;

	(void)state;
	assert_int_equal(perf_comm_encode(&b, SAMPLE_ID_TYPE, &comm, NULL), 0);
	assert_int_equal(perf_mmap2_encode(&b, SAMPLE_ID_TYPE, &m, NULL), 0);
	assert_int_equal(perf_comm_encode(&b, SAMPLE_ID_TYPE, &comm, NULL), 0);
	second = b.len;
	m.filename = "/bin/b";
	assert_int_equal(perf_mmap2_encode(&b, SAMPLE_ID_TYPE, &m, NULL), 0);
	at = b.data;
	end = b.data + b.len;
	assert_int_equal(perf_next_mmap2(&at, end, SAMPLE_ID_TYPE, &out), 1);
	assert_string_equal(out.filename, "/bin/a");
	assert_int_equal(perf_next_mmap2(&at, end, SAMPLE_ID_TYPE, &out), 1);
	assert_string_equal(out.filename, "/bin/b");
	assert_int_equal(perf_next_mmap2(&at, end, SAMPLE_ID_TYPE, &out), 0);
	assert_ptr_equal(at, end);
	/* a record claiming more than is left ends the walk before it */
	((struct perf_event_header *)(b.data + second))->size = (uint16_t)(b.len - second + 8);
	at = b.data;
	assert_int_equal(perf_next_mmap2(&at, end, SAMPLE_ID_TYPE, &out), 1);
	assert_string_equal(out.filename, "/bin/a");
	assert_int_equal(perf_next_mmap2(&at, end, SAMPLE_ID_TYPE, &out), 0);
	byte_buffer_free(&b);
}

/* NAMESPACES as perf writes it: every namespace perf knows, read back; a
 * count of namespaces past the record's end is refused. */
static void test_namespaces_round_trip(void **state)
{
	struct byte_buffer b = { 0 };
	struct perf_sample_id sid = { .pid = 9, .tid = 9, .time = 77 };
	struct perf_namespaces n = { .pid = 9, .tid = 9 }, out;
	struct perf_sample_id got;

	(void)state;
	for (int i = 0; i < NR_NAMESPACES; i++)
		n.ns[i] = (struct perf_ns_link_info){ .dev = 4, .ino = 4026531835u + (unsigned int)i };
	assert_int_equal(perf_namespaces_encode(&b, SAMPLE_ID_TYPE, &n, &sid), 0);
	assert_int_equal(perf_namespaces_decode((void *)b.data, &out), 0);
	assert_memory_equal(&out, &n, sizeof(n));
	assert_int_equal(perf_sample_id_decode((void *)b.data, SAMPLE_ID_TYPE, &got), 0);
	assert_int_equal(got.time, 77);
	/* nr_namespaces (after pid and tid) claiming more than the record holds */
	memcpy(b.data + 8 + 8, &(uint64_t){ 1000 }, 8);
	assert_int_equal(perf_namespaces_decode((void *)b.data, &out), -EINVAL);
	byte_buffer_free(&b);
}

/* Where the directory lists name among its entries (perf reads a recording's
 * data files in that order). */
static int listed_rank(const char *dir, const char *name)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int rank = 0;

	assert_non_null(d);
	while ((de = readdir(d)) && strcmp(de->d_name, name))
		rank++;
	assert_non_null(de);
	closedir(d);
	return rank;
}

/* Reads the stream of the recording in dir: each record's ip, in order, into
 * ips (room for max); the times non-decreasing, each record from its CPU's
 * file. Returns how many. */
static size_t stream_ips(const char *dir, uint64_t *ips, size_t max)
{
	struct record_stream *rs;
	struct stream_record sr;
	struct perf_input in;
	uint64_t last = 0;
	char err[512];
	size_t n = 0;

	assert_int_equal(perf_input_open(&in, dir, err, sizeof(err)), 0);
	rs = record_stream_open(&in, err, sizeof(err));
	assert_non_null(rs);
	while (record_stream_next(rs, &sr) == 1) {
		struct perf_sample s;

		assert_int_equal(sr.rec->type, PERF_RECORD_SAMPLE);
		assert_int_equal(perf_sample_decode(sr.rec, SAMPLE_TYPE, &s), 0);
		assert_true(n < max);
		assert_int_equal(sr.time, s.time);
		assert_true(s.time >= last);
		assert_int_equal(sr.file, 1 + s.cpu); /* files[0] is the header file */
		last = s.time;
		ips[n++] = s.ip;
	}
	record_stream_close(rs);
	perf_input_close(&in);
	return n;
}

/* The stream merges the files by time, a tie going as perf's reader queues
 * it (it reads the data files in the order their directory lists them, 2
 * MiB of records of each in turn): files in time order are read as they
 * lie, a file out of order is sorted first. */
static void test_stream_merges_files_in_time_order(void **state)
{
	static const struct {
		uint32_t cpu;
		uint64_t time;
	} written[] = {
		{ 0, 10 }, { 0, 30 }, { 0, 50 },            /* data.cpu0: in order */
		{ 1, 40 }, { 1, 20 }, { 1, 60 }, { 1, 20 }, /* data.cpu1: out of order */
		{ 2, 20 }, { 2, 30 },                       /* data.cpu2: in order */
	};
	enum { N = sizeof(written) / sizeof(written[0]) };
	unsigned int placed[3] = { 0 };
	uint64_t got[N + 1], expected[N], ip[N];
	size_t order[N];
	struct tu_recording recording;
	char *dir = tu_tempdir();
	int rank[3];

	(void)state;
	recording_init(&recording, 3);
	for (size_t i = 0; i < N; i++) {
		struct perf_sample s = {
			.misc = PERF_RECORD_MISC_USER, .ip = 100 * written[i].cpu + placed[written[i].cpu]++,
			.pid = 7, .tid = 7, .time = written[i].time, .cpu = written[i].cpu, .period = 1,
		};

		ip[i] = s.ip;
		tu_recording_sample(&recording, 0, &s);
	}
	tu_recording_write(&recording, dir);
	tu_recording_free(&recording);
	for (int c = 0; c < 3; c++) {
		char name[16];

		snprintf(name, sizeof(name), "data.cpu%d", c);
		rank[c] = listed_rank(dir, name);
	}
	/* the ips in the order expected: by time, then the file listed first,
	 * then the place in the file (at 20: cpu1's second and fourth records
	 * and cpu2's first; at 30: the second records of cpu0 and cpu2) */
	for (size_t i = 0; i < N; i++) {
		size_t j = i;

		for (; j > 0 && (written[order[j - 1]].time > written[i].time ||
				 (written[order[j - 1]].time == written[i].time &&
				  rank[written[order[j - 1]].cpu] > rank[written[i].cpu]));
		     j--)
			order[j] = order[j - 1];
		order[j] = i;
	}
	for (size_t i = 0; i < N; i++)
		expected[i] = ip[order[i]];
	assert_int_equal(stream_ips(dir, got, N + 1), N);
	assert_memory_equal(got, expected, sizeof(expected));
	tu_rmtree(dir);
	free(dir);
}

/* A file's records past its first 2 MiB are read in perf's second turn:
 * at one time, after a record of the other file's first turn, even of a
 * file listed after it. */
static void test_stream_ties_by_reading_turn(void **state)
{
	enum { FILLER = (2 << 20) / 48 + 1 }; /* a sample is 48 bytes here */
	static uint64_t got[FILLER + 4];
	struct tu_recording recording;
	char *dir = tu_tempdir();
	uint32_t first, second;
	struct perf_sample s = { .misc = PERF_RECORD_MISC_USER, .pid = 7, .tid = 7, .period = 1 };

	(void)state;
	/* which data file the directory lists first: its name's place is its own */
	recording_init(&recording, 2);
	tu_recording_write(&recording, dir);
	tu_recording_free(&recording);
	first = listed_rank(dir, "data.cpu0") < listed_rank(dir, "data.cpu1") ? 0 : 1;
	second = 1 - first;
	tu_rmtree(dir);
	free(dir);
	dir = tu_tempdir();
	recording_init(&recording, 2);
	/* the first listed: a record at 3, 2 MiB of records at 4, one at 5;
	 * the other: one at 3, one at 5 */
	s.cpu = first;
	s.time = 3;
	s.ip = 1;
	tu_recording_sample(&recording, 0, &s);
	s.time = 4;
	for (size_t i = 0; i < FILLER; i++)
		tu_recording_sample(&recording, 0, &s);
	s.time = 5;
	s.ip = 2;
	tu_recording_sample(&recording, 0, &s);
	s.cpu = second;
	s.time = 3;
	s.ip = 11;
	tu_recording_sample(&recording, 0, &s);
	s.time = 5;
	s.ip = 12;
	tu_recording_sample(&recording, 0, &s);
	assert_true(recording.cpu[first].len >= (2 << 20) + 48);
	tu_recording_write(&recording, dir);
	tu_recording_free(&recording);
	assert_int_equal(stream_ips(dir, got, FILLER + 4), FILLER + 4);
	assert_int_equal(got[0], 1);  /* at 3: both in the first turn, the first listed first */
	assert_int_equal(got[1], 11);
	assert_int_equal(got[FILLER + 2], 12); /* at 5: the first turn's first */
	assert_int_equal(got[FILLER + 3], 2);
	tu_rmtree(dir);
	free(dir);
}

/* A stream's records of at most a page cross no page boundary of its file,
 * the room before one a PERF_RECORD_FILL: a write cut short by SIGKILL (at
 * a page boundary) leaves whole records, which perf reads (a record cut
 * there faults perf's reader). The stream of the recording skips the fills. */
static void test_stream_records_cross_no_page(void **state)
{
	enum { N = 3000 };
	static uint64_t chain[128], got[N + 1];
	struct byte_buffer rec = { 0 };
	struct perf_data_stream out;
	struct tu_recording recording;
	char *dir = tu_tempdir(), path[4096];
	size_t fills = 0, samples = 0;
	uint8_t *file;
	struct stat st;
	int fd;

	(void)state;
	recording_init(&recording, 1);
	tu_recording_write(&recording, dir);
	tu_recording_free(&recording);
	snprintf(path, sizeof(path), "%s/data.cpu0", dir);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(perf_data_stream_init(&out, fd, 0), 0);
	for (uint64_t i = 0; i < N; i++) {
		byte_buffer_reset(&rec);
		/* 56 to 824 bytes: the boundaries fall anywhere in them */
		add_sample(&rec, 1000 + i, 7, 7, 10 + i, 0, chain, (size_t)(i * 37 % 97));
		assert_int_equal(perf_data_stream_append(&out, rec.data, rec.len), 0);
	}
	assert_int_equal(perf_data_stream_close(&out), 0);
	byte_buffer_free(&rec);

	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	file = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	assert_true(file != MAP_FAILED);
	close(fd);
	for (size_t at = 0; at < (size_t)st.st_size;) {
		struct perf_event_header h;

		memcpy(&h, file + at, sizeof(h));
		assert_true(h.size >= sizeof(h) && at + h.size <= (size_t)st.st_size);
		if (h.type == PERF_RECORD_FILL) {
			/* only up to the next boundary, and only where needed */
			assert_int_equal((at + h.size) % PERF_DATA_PAGE, 0);
			fills++;
		} else {
			assert_int_equal(h.type, PERF_RECORD_SAMPLE);
			assert_true(at % PERF_DATA_PAGE + h.size <= PERF_DATA_PAGE);
			samples++;
		}
		at += h.size;
	}
	munmap(file, (size_t)st.st_size);
	assert_int_equal(samples, N);
	assert_true(fills > 0);
	/* the fills cost at most a record each page */
	assert_true((uint64_t)st.st_size / PERF_DATA_PAGE + 1 >= fills);
	assert_int_equal(stream_ips(dir, got, N + 1), N);
	for (size_t i = 0; i < N; i++)
		assert_int_equal(got[i], 1000 + i);
	tu_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip_every_record_type),
		cmocka_unit_test(test_dir_format_feature_placement),
		cmocka_unit_test(test_malformed_headers_are_errors),
		cmocka_unit_test(test_bad_and_truncated_records),
		cmocka_unit_test(test_sample_decode_rejects_overlong_callchain),
		cmocka_unit_test(test_sample_decode_user_regs_and_stack),
		cmocka_unit_test(test_strings_must_be_terminated),
		cmocka_unit_test(test_next_mmap2_walks_records),
		cmocka_unit_test(test_namespaces_round_trip),
		cmocka_unit_test(test_stream_merges_files_in_time_order),
		cmocka_unit_test(test_stream_ties_by_reading_turn),
		cmocka_unit_test(test_stream_records_cross_no_page),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
