/* SPDX-License-Identifier: GPL-2.0-only */
/* test_pprof_profile.c: report --pprof of a synthetic recording, decoded again with
 * zlib and protobuf-c: types, samples, labels, mappings with build-ids, filters;
 * every string valid UTF-8 with its control bytes escaped. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "lib/utf8.h"
#include "report/profile.pb-c.h"
#include "report/pprof.h"
#include "report/report.h"
#include "test_util.h"

#define SAMPLE_ID_TYPE \
	(PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)
#define CLOCK_TYPE (SAMPLE_ID_TYPE | PERF_SAMPLE_IP | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN)
#define PID 4242
#define OTHER 4343
#define CLOCK_ID 101
#define K(off) (0xffffffff81000000ULL + (off))
#define LIB 0x7f0000000000ULL

struct fixture {
	char *dir;
	char kallsyms[PATH_MAX];
};

/* CPU 0: 3 samples of PID kfunc_leaf <- kfunc_root <- lib (user), and 1 of
 * OTHER in kfunc_root; period 1 ms each, at 1 s and 2 s. */
static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));
	struct tu_recording r;
	struct perf_event_attr *clock;
	struct perf_comm comm = { .pid = PID, .tid = PID, .comm = "worker" };
	struct perf_comm other = { .pid = OTHER, .tid = OTHER, .comm = "other" };
	struct perf_mmap m = { .pid = PID, .tid = PID, .start = LIB, .len = 0x10000, .pgoff = 0x2000,
			       .build_id_size = 20, .prot = 5, .flags = 2, .filename = "/opt/libw.so" };
	struct perf_sample_id sid = { .pid = PID, .tid = PID, .id = CLOCK_ID };
	const uint64_t deep[] = { PERF_CONTEXT_KERNEL, K(0x110), K(0x310), PERF_CONTEXT_USER,
				  LIB + 0x1234 };
	const uint64_t shallow[] = { PERF_CONTEXT_KERNEL, K(0x320) };

	for (int i = 0; i < 20; i++)
		m.build_id[i] = (uint8_t)(0xa0 + i);
	fx->dir = tu_tempdir();
	tu_recording_init(&r, 1);
	clock = tu_recording_event(&r, "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK,
				   CLOCK_TYPE, CLOCK_ID);
	clock->sample_period = 1000000;
	assert_int_equal(perf_kernel_mmap_encode(&r.side, SAMPLE_ID_TYPE, K(0), &sid), 0);
	assert_int_equal(perf_comm_encode(&r.side, SAMPLE_ID_TYPE, &comm, &sid), 0);
	assert_int_equal(perf_comm_encode(&r.side, SAMPLE_ID_TYPE, &other, &sid), 0);
	assert_int_equal(perf_mmap2_encode(&r.side, SAMPLE_ID_TYPE, &m, &sid), 0);
	for (int i = 0; i < 3; i++) {
		struct perf_sample s = { .misc = PERF_RECORD_MISC_KERNEL, .ip = deep[1], .pid = PID,
					 .tid = PID, .time = 1000000000ULL + i, .period = 1000000,
					 .nr_callchain = 5, .callchain = deep };

		tu_recording_sample(&r, 0, &s);
	}
	{
		struct perf_sample s = { .misc = PERF_RECORD_MISC_KERNEL, .ip = shallow[1], .pid = OTHER,
					 .tid = OTHER, .time = 2000000000ULL, .period = 1000000,
					 .nr_callchain = 2, .callchain = shallow };

		tu_recording_sample(&r, 0, &s);
	}
	r.kallsyms = "ffffffff81000000 T _text\nffffffff81000100 T kfunc_leaf\n"
		     "ffffffff81000300 T kfunc_root\nffffffff81000400 T kfunc_after\n";
	tu_recording_write(&r, fx->dir);
	snprintf(fx->kallsyms, sizeof(fx->kallsyms), "%s/kallsyms", fx->dir);
	tu_recording_free(&r);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	tu_rmtree(fx->dir);
	free(fx->dir);
	free(fx);
	return 0;
}

/* The profile report --pprof - prints with these options, decoded. */
/* The profile gzipped in gz (len bytes; freed). */
static Perftools__Profiles__Profile *unpack(char *gz, size_t len)
{
	size_t cap = 1 << 20;
	uint8_t *raw = malloc(cap);
	z_stream z = { 0 };
	Perftools__Profiles__Profile *p;

	assert_true(len > 2 && (uint8_t)gz[0] == 0x1f && (uint8_t)gz[1] == 0x8b);
	assert_int_equal(inflateInit2(&z, 15 + 16), Z_OK);
	z.next_in = (uint8_t *)gz;
	z.avail_in = (uInt)len;
	z.next_out = raw;
	z.avail_out = (uInt)cap;
	assert_int_equal(inflate(&z, Z_FINISH), Z_STREAM_END);
	p = perftools__profiles__profile__unpack(NULL, z.total_out, raw);
	assert_non_null(p);
	inflateEnd(&z);
	free(raw);
	free(gz);
	return p;
}

static Perftools__Profiles__Profile *profile_of(struct fixture *fx, struct report_options *o)
{
	char *gz = NULL, err[512];
	size_t len = 0;
	FILE *out = open_memstream(&gz, &len);

	o->input = fx->dir;
	o->kallsyms = fx->kallsyms;
	o->output = REPORT_PPROF;
	o->pprof_path = "-";
	if (report_run(o, out, err, sizeof(err)))
		fail_msg("report: %s", err);
	fclose(out);
	return unpack(gz, len);
}

static const char *str(const Perftools__Profiles__Profile *p, int64_t i)
{
	assert_true(i >= 0 && (size_t)i < p->n_string_table);
	return p->string_table[i];
}

static const Perftools__Profiles__Location *location(const Perftools__Profiles__Profile *p,
						     uint64_t id)
{
	for (size_t i = 0; i < p->n_location; i++)
		if (p->location[i]->id == id)
			return p->location[i];
	fail_msg("no location %llu", (unsigned long long)id);
	return NULL;
}

static const char *function_name(const Perftools__Profiles__Profile *p, uint64_t location_id)
{
	const Perftools__Profiles__Location *l = location(p, location_id);

	assert_int_equal(l->n_line, 1);
	for (size_t i = 0; i < p->n_function; i++)
		if (p->function[i]->id == l->line[0]->function_id)
			return str(p, p->function[i]->name);
	fail_msg("no function for location %llu", (unsigned long long)location_id);
	return NULL;
}

static const char *label_str(const Perftools__Profiles__Profile *p,
			     const Perftools__Profiles__Sample *s, const char *key)
{
	for (size_t i = 0; i < s->n_label; i++)
		if (!strcmp(str(p, s->label[i]->key), key))
			return s->label[i]->str ? str(p, s->label[i]->str) : NULL;
	return NULL;
}

/* The number label key of s (its unit set), or -1. */
static int64_t label_num(const Perftools__Profiles__Profile *p, const Perftools__Profiles__Sample *s,
			 const char *key)
{
	for (size_t i = 0; i < s->n_label; i++)
		if (!strcmp(str(p, s->label[i]->key), key) && !s->label[i]->str && s->label[i]->num_unit)
			return s->label[i]->num;
	return -1;
}

/* Types, period, duration; one sample per stack and labels, leaf first;
 * the library's mapping with its build-id and offset. */
static void test_profile_contents(void **state)
{
	struct fixture *fx = *state;
	struct report_options o = { .pid_filter = -1 };
	Perftools__Profiles__Profile *p = profile_of(fx, &o);
	const Perftools__Profiles__Sample *deep = NULL;
	bool lib_seen = false;

	assert_string_equal(str(p, 0), "");
	assert_int_equal(p->n_sample_type, 2);
	assert_string_equal(str(p, p->sample_type[0]->type), "samples");
	assert_string_equal(str(p, p->sample_type[0]->unit), "count");
	assert_string_equal(str(p, p->sample_type[1]->type), "cpu");
	assert_string_equal(str(p, p->sample_type[1]->unit), "nanoseconds");
	assert_int_equal(p->period, 1000000);
	assert_int_equal(p->duration_nanos, 1000000000);
	assert_true(p->time_nanos > 0);
	assert_int_equal(p->n_sample, 2);
	for (size_t i = 0; i < p->n_sample; i++)
		if (p->sample[i]->n_location_id == 3)
			deep = p->sample[i];
	assert_non_null(deep);
	assert_int_equal(deep->value[0], 3);
	assert_int_equal(deep->value[1], 3000000);
	assert_string_equal(function_name(p, deep->location_id[0]), "kfunc_leaf");
	assert_string_equal(function_name(p, deep->location_id[1]), "kfunc_root");
	assert_string_equal(function_name(p, deep->location_id[2]), "[libw.so]");
	assert_string_equal(label_str(p, deep, "comm"), "worker");
	/* ids as strings (Pyroscope's and Parca's labels) */
	assert_string_equal(label_str(p, deep, "pid"), "4242");
	assert_string_equal(label_str(p, deep, "tid"), "4242");
	assert_string_equal(label_str(p, deep, "cpu"), "0");
	/* and as numbers with a unit (go tool pprof's exact -tagfocus=pid=N;
	 * it drops a number whose value and unit are both 0) */
	assert_int_equal(label_num(p, deep, "pid"), 4242);
	assert_int_equal(label_num(p, deep, "tid"), 4242);
	assert_int_equal(label_num(p, deep, "cpu"), 0);
	for (size_t i = 0; i < deep->n_label; i++)
		if (!deep->label[i]->str)
			assert_string_equal(str(p, deep->label[i]->num_unit),
					    str(p, deep->label[i]->key));
		else
			assert_int_equal(deep->label[i]->num, 0);
	for (size_t i = 0; i < p->n_mapping; i++) {
		const Perftools__Profiles__Mapping *m = p->mapping[i];

		if (strcmp(str(p, m->filename), "/opt/libw.so"))
			continue;
		lib_seen = true;
		assert_int_equal(m->memory_start, LIB);
		assert_int_equal(m->memory_limit, LIB + 0x10000);
		assert_int_equal(m->file_offset, 0x2000);
		assert_string_equal(str(p, m->build_id), "a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3");
		assert_int_equal(location(p, deep->location_id[2])->mapping_id, m->id);
		assert_int_equal(location(p, deep->location_id[2])->address, LIB + 0x1234);
	}
	assert_true(lib_seen);
	/* mapping[0], which pprof takes for the main binary, is a file, not the
	 * kernel met first */
	assert_string_equal(str(p, p->mapping[0]->filename), "/opt/libw.so");
	perftools__profiles__profile__free_unpacked(p, NULL);
}

/* The report's filters choose the samples. */
static void test_filters_apply(void **state)
{
	struct fixture *fx = *state;
	struct report_options o = { .pid_filter = OTHER };
	Perftools__Profiles__Profile *p = profile_of(fx, &o);

	assert_int_equal(p->n_sample, 1);
	assert_string_equal(label_str(p, p->sample[0], "comm"), "other");
	assert_int_equal(p->sample[0]->value[0], 1);
	assert_string_equal(function_name(p, p->sample[0]->location_id[0]), "kfunc_root");
	perftools__profiles__profile__free_unpacked(p, NULL);
}

/* A sample of a Kubernetes container's cgroup carries what its path says:
 * container id, pod uid, QoS class, runtime; a sample of another cgroup none
 * of these. */
static void test_container_labels(void **state)
{
	static const char pod[] =
		"/kubepods.slice/kubepods-burstable.slice/"
		"kubepods-burstable-podd1f6a2b4_3c5e_4f70_8a9b_0c1d2e3f4a5b.slice/"
		"cri-containerd-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.scope";
	struct pprof_sample_labels in = { .comm = "app", .pid = 7, .tid = 8, .cpu = 1, .cgroup = pod };
	struct pprof_frame frame = { .ip = 0x1000, .function = "main", .dso = "/app" };
	struct pprof_header h = { .value_type = "cpu", .value_unit = "nanoseconds" };
	struct pprof_builder b;
	Perftools__Profiles__Profile *p;
	char *gz = NULL, err[256];
	size_t len = 0;
	FILE *out = open_memstream(&gz, &len);

	(void)state;
	pprof_builder_init(&b);
	assert_int_equal(pprof_add_sample(&b, &in, &frame, 1, 1000), 0);
	in.cgroup = "/system.slice/ssh.service";
	in.pid = 9;
	assert_int_equal(pprof_add_sample(&b, &in, &frame, 1, 1000), 0);
	assert_int_equal(pprof_write(&b, &h, out, err, sizeof(err)), 0);
	fclose(out);
	pprof_builder_free(&b);
	p = unpack(gz, len);
	assert_int_equal(p->n_sample, 2);
	for (size_t i = 0; i < 2; i++) {
		const Perftools__Profiles__Sample *s = p->sample[i];

		if (!strcmp(label_str(p, s, "pid"), "7")) {
			assert_string_equal(label_str(p, s, "cgroup"), pod);
			assert_string_equal(label_str(p, s, "container_id"),
					    "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef");
			assert_string_equal(label_str(p, s, "pod_uid"), "d1f6a2b4-3c5e-4f70-8a9b-0c1d2e3f4a5b");
			assert_string_equal(label_str(p, s, "qos_class"), "burstable");
			assert_string_equal(label_str(p, s, "container_runtime"), "containerd");
		} else {
			assert_string_equal(label_str(p, s, "cgroup"), "/system.slice/ssh.service");
			assert_null(label_str(p, s, "container_id"));
			assert_null(label_str(p, s, "pod_uid"));
		}
	}
	perftools__profiles__profile__free_unpacked(p, NULL);
}

/* A comm, a function, a file and a cgroup named with ESC, BEL, a newline and
 * invalid UTF-8 (a local user's, as the exporter's profile endpoint and
 * report --pprof take them): every string of the profile is valid UTF-8,
 * as protobuf's string fields must be (Go's readers refuse others), with no
 * control byte, the names as report and script print them. */
static void test_strings_terminal_safe(void **state)
{
	struct pprof_sample_labels in = { .comm = "\x1b]0;pwned\x07", .pid = 7, .tid = 7,
					  .cpu = 0, .cgroup = "/user.slice/\x1b[2J.scope" };
	struct pprof_frame frames[] = {
		{ .ip = 0x1000, .function = "leaf\x1b[31m\xff", .dso = "/tmp/lib\nx\x07.so",
		  .mapped = true, .map_start = 0x1000, .map_end = 0x2000 },
		{ .ip = 0x1100, .function = "caf\xc3\xa9 \xc3", .dso = "/tmp/lib\nx\x07.so",
		  .mapped = true, .map_start = 0x1000, .map_end = 0x2000 },
	};
	struct pprof_header h = { .value_type = "ev\x7f", .value_unit = "count" };
	const Perftools__Profiles__Sample *s;
	struct pprof_builder b;
	Perftools__Profiles__Profile *p;
	char *gz = NULL, err[256];
	size_t len = 0;
	FILE *out = open_memstream(&gz, &len);

	(void)state;
	pprof_builder_init(&b);
	assert_int_equal(pprof_add_sample(&b, &in, frames, 2, 1), 0);
	assert_int_equal(pprof_write(&b, &h, out, err, sizeof(err)), 0);
	fclose(out);
	pprof_builder_free(&b);
	p = unpack(gz, len);
	for (size_t i = 0; i < p->n_string_table; i++) {
		const uint8_t *t = (const uint8_t *)p->string_table[i];
		size_t n = strlen(p->string_table[i]);

		for (size_t at = 0, k; at < n; at += k)
			if (!(k = utf8_sequence(t + at, n - at)) || (k == 1 && (t[at] < 0x20 || t[at] == 0x7f)))
				fail_msg("string %zu, byte %zu: 0x%02x (invalid UTF-8 or a control byte)", i, at,
					 t[at]);
	}
	assert_int_equal(p->n_sample, 1);
	s = p->sample[0];
	assert_string_equal(label_str(p, s, "comm"), "\\x1b]0;pwned\\x07");
	assert_string_equal(label_str(p, s, "cgroup"), "/user.slice/\\x1b[2J.scope");
	assert_string_equal(function_name(p, s->location_id[0]), "leaf\\x1b[31m\xef\xbf\xbd");
	assert_string_equal(function_name(p, s->location_id[1]), "caf\xc3\xa9 \xef\xbf\xbd");
	assert_int_equal(p->n_mapping, 1);
	assert_string_equal(str(p, p->mapping[0]->filename), "/tmp/lib\\nx\\x07.so");
	assert_string_equal(str(p, p->sample_type[1]->type), "ev\\x7f");
	perftools__profiles__profile__free_unpacked(p, NULL);
}

/* Frames met again are found again (their location remembered by their
 * fields and name pointers), and a name pointer reused for other text, or
 * the same text at another pointer, is never taken for the remembered one. */
static void test_frames_met_again(void **state)
{
	struct pprof_builder b;
	struct pprof_sample_labels labels = { .comm = "w", .pid = 1, .tid = 1 };
	char name[32] = "alpha", other[32] = "alpha";
	struct pprof_frame f = { .ip = 0x1234, .function = name, .dso = "/opt/libw.so",
				 .mapped = true, .map_start = 0x1000, .map_end = 0x9000 };
	uint64_t first;

	(void)state;
	pprof_builder_init(&b);
	assert_int_equal(pprof_add_sample(&b, &labels, &f, 1, 1), 0);
	first = b.stack[0];
	assert_int_equal(pprof_add_sample(&b, &labels, &f, 1, 1), 0);
	assert_int_equal(b.stack[0], first);
	assert_int_equal(b.nr_locations, 1);
	/* the same pointer, other text: a function and location of its own */
	strcpy(name, "beta");
	assert_int_equal(pprof_add_sample(&b, &labels, &f, 1, 1), 0);
	assert_int_not_equal(b.stack[0], first);
	assert_int_equal(b.nr_locations, 2);
	assert_int_equal(b.nr_functions, 2);
	/* the first text again at another pointer: the first location */
	f.function = other;
	assert_int_equal(pprof_add_sample(&b, &labels, &f, 1, 1), 0);
	assert_int_equal(b.stack[0], first);
	/* another mapping of it: a location of its own */
	f.map_end = 0xa000;
	assert_int_equal(pprof_add_sample(&b, &labels, &f, 1, 1), 0);
	assert_int_equal(b.nr_locations, 3);
	pprof_builder_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_profile_contents, setup, teardown),
		cmocka_unit_test(test_container_labels),
		cmocka_unit_test(test_strings_terminal_safe),
		cmocka_unit_test(test_frames_met_again),
		cmocka_unit_test_setup_teardown(test_filters_apply, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
