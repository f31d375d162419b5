/* SPDX-License-Identifier: GPL-2.0-only */
/* test_metrics.c: the exposition text follows the rules validators miss:
 * label values escaped and valid UTF-8 (a comm with a quote, a backslash, a
 * newline and invalid bytes), their control bytes (ESC, BEL) as the text
 * "\x1b" that Prometheus's own parser reads back, one HELP/TYPE per family,
 * families not interleaved, no duplicate series, cumulative histogram, final
 * newline; time evicted from the kernel's maps is other, never dropped. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/metrics.h"
#include "export/syscall_metrics.h"
#include "test_util.h"

static char *render(const struct metrics_snapshot *m)
{
	struct byte_buffer b = { 0 };

	assert_int_equal(metrics_render(m, &b), 0);
	assert_non_null(byte_buffer_append(&b, "", 1));
	return (char *)b.data;
}

#define POD_CGROUP                                                                       \
	"/kubepods.slice/kubepods-besteffort.slice/"                                     \
	"kubepods-besteffort-podd1f6a2b4_3c5e_4f70_8a9b_0c1d2e3f4a5b.slice/"             \
	"crio-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.scope"

static const struct metrics_cpu_row cgroups[] = {
	{ "/", 10, 100000000 },
	{ "/system.slice/a \"quoted\" unit", 5, 50000000 },
	{ POD_CGROUP, 2, 20000000 },
};

static const struct metrics_cpu_row comms[] = {
	{ "a\"b\\c\nd\xff", 7, 70000000 },   /* every character that needs care */
	{ "x\xfe", 1, 1000000 },             /* these two print the same... */
	{ "x\xff", 2, 2000000 },             /* ...and become one series */
	{ "caf\xc3\xa9", 3, 3000000 },       /* valid UTF-8 stays as it is */
	{ "other", 4, 4000000 },             /* a comm named other... */
	{ "other", 6, 6000000 },             /* ...and the rest summed as other */
	{ "\xc0\xaf", 1, 1000000 },          /* an overlong encoding is invalid */
};

static const struct capture_cpu_counts cpus[] = { { 0, 100, 1, 0 }, { 1, 50, 0, 0 } };
static const struct bpf_program_runs programs[] = { { "export_sample", 10, 5000 } };
static const struct metrics_map_evictions evictions[] = { { "cgroup", 0 }, { "comm", 42 } };

static struct metrics_snapshot snapshot(void)
{
	struct metrics_snapshot m = {
		.version = "9.9.9",
		.transport = "map",
		.cgroups = cgroups,
		.nr_cgroups = sizeof(cgroups) / sizeof(cgroups[0]),
		.comms = comms,
		.nr_comms = sizeof(comms) / sizeof(comms[0]),
		.cpus = cpus,
		.nr_cpus = 2,
		.bpf_stats = true,
		.programs = programs,
		.nr_programs = 1,
		.evictions = evictions,
		.nr_evictions = 2,
	};

	m.runq_buckets[10] = 3; /* below 1.024 us */
	m.runq_buckets[20] = 2; /* below 1.05 ms */
	m.runq_buckets[METRICS_RUNQ_BUCKETS - 1] = 1; /* beyond the last bound */
	m.runq_count = 6;
	m.runq_sum_ns = 3000000000ULL;
	return m;
}

static void test_label_values_escaped_and_valid_utf8(void **state)
{
	struct metrics_snapshot m = snapshot();
	char *text = render(&m);

	(void)state;
	/* the newline is the text \n (a backslash, n), itself escaped */
	if (!strstr(text, "ringtrace_comm_cpu_seconds_total{comm=\"a\\\"b\\\\c\\\\nd\xef\xbf\xbd\"} 0.070000000\n") ||
	    !strstr(text, "ringtrace_comm_cpu_seconds_total{comm=\"x\xef\xbf\xbd\"} 0.003000000\n") ||
	    !strstr(text, "ringtrace_comm_cpu_seconds_total{comm=\"caf\xc3\xa9\"} 0.003000000\n") ||
	    !strstr(text, "ringtrace_comm_cpu_seconds_total{comm=\"other\"} 0.010000000\n") ||
	    !strstr(text, "ringtrace_comm_cpu_seconds_total{comm=\"\xef\xbf\xbd\xef\xbf\xbd\"} 0.001000000\n") ||
	    !strstr(text, "{cgroup=\"/system.slice/a \\\"quoted\\\" unit\"}"))
		fail_msg("labels not as expected:\n%s", text);
	free(text);
}

/* No byte of text is a control byte but the newline ending each line. */
static void assert_terminal_safe(const char *text)
{
	for (const char *p = text; *p; p++)
		if (((unsigned char)*p < 0x20 && (*p != '\n' || p[1] == '\n')) || *p == 0x7f)
			fail_msg("byte 0x%02x at %zu of:\n%s", (unsigned char)*p, (size_t)(p - text),
				 text);
}

/* comms and cgroup paths a local user names with ESC and BEL (a terminal
 * title, a colour, a bell), a literal backslash, a tab: their control bytes
 * are the text a terminal is shown ("\x1b"), written "\\x1b" on the wire,
 * so curl to a terminal runs nothing, and Prometheus's own parser
 * (python3-prometheus-client) reads the text "\x1b" back. */
static void test_control_bytes_terminal_safe(void **state)
{
	static const struct metrics_cpu_row evil_comms[] = {
		{ "\x1b]0;pwned\x07", 1, 1000000 },
		{ "red\x1b[31m\x7f", 2, 2000000 },
		{ "tab\there\\", 3, 3000000 },
	};
	static const struct metrics_cpu_row evil_cgroups[] = {
		{ "/user.slice/\x1b[2J\x07.scope", 4, 4000000 },
	};
	static const struct rt_syscall_stats stats = { .count = 1, .total_ns = 1000 };
	const struct syscall_metric_row call = { 42, "sys\x1b[5m\x07", "read", &stats };
	struct metrics_snapshot m = snapshot();
	struct byte_buffer calls = { 0 };
	char *text, *dir, path[4096], *parsed = NULL;
	FILE *f;
	int rc;

	(void)state;
	m.comms = evil_comms;
	m.nr_comms = 3;
	m.cgroups = evil_cgroups;
	m.nr_cgroups = 1;
	text = render(&m);
	assert_terminal_safe(text);
	if (!strstr(text, "ringtrace_comm_cpu_seconds_total{comm=\"\\\\x1b]0;pwned\\\\x07\"} 0.001000000\n") ||
	    !strstr(text, "ringtrace_comm_cpu_seconds_total{comm=\"red\\\\x1b[31m\\\\x7f\"} 0.002000000\n") ||
	    !strstr(text, "ringtrace_comm_cpu_seconds_total{comm=\"tab\\\\there\\\\\"} 0.003000000\n") ||
	    !strstr(text, "ringtrace_cpu_seconds_total{cgroup=\"/user.slice/\\\\x1b[2J\\\\x07.scope\"} 0.004000000\n"))
		fail_msg("control bytes not escaped as expected:\n%s", text);
	assert_int_equal(syscall_metrics_render(&call, 1, &calls), 0);
	assert_non_null(byte_buffer_append(&calls, "", 1));
	assert_terminal_safe((const char *)calls.data);
	assert_non_null(strstr((const char *)calls.data,
			       "ringtrace_syscall_errors_total{comm=\"sys\\\\x1b[5m\\\\x07\",pid=\"42\",syscall=\"read\"} 0\n"));

	/* the values Prometheus's parser reads back: the escaped text */
	if (tu_sh(&parsed, "/usr/bin/python3 -c 'import prometheus_client' 2>&1")) {
		free(parsed);
		tu_skip("no prometheus_client for /usr/bin/python3 (Debian package "
			"python3-prometheus-client): run make deps");
	}
	free(parsed);
	dir = tu_tempdir();
	snprintf(path, sizeof(path), "%s/metrics", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fputs((const char *)calls.data, f);
	assert_int_equal(fclose(f), 0);
	rc = tu_sh(&parsed,
		   "/usr/bin/python3 -c 'import sys\n"
		   "from prometheus_client.parser import text_string_to_metric_families as parse\n"
		   "for fam in parse(open(sys.argv[1]).read()):\n"
		   "    for s in fam.samples:\n"
		   "        for k in (\"comm\", \"cgroup\"):\n"
		   "            if k in s.labels: print(k + \"=\" + s.labels[k] + \"|\")\n' %s 2>&1",
		   path);
	if (rc)
		fail_msg("prometheus_client cannot parse it (%d):\n%s\n%s", rc, parsed, text);
	assert_terminal_safe(parsed);
	if (!strstr(parsed, "comm=\\x1b]0;pwned\\x07|\n") || !strstr(parsed, "comm=red\\x1b[31m\\x7f|\n") ||
	    !strstr(parsed, "comm=tab\\there\\|\n") ||
	    !strstr(parsed, "cgroup=/user.slice/\\x1b[2J\\x07.scope|\n") ||
	    !strstr(parsed, "comm=sys\\x1b[5m\\x07|\n"))
		fail_msg("values parsed back are not the escaped text:\n%s", parsed);
	free(parsed);
	tu_rmtree(dir);
	free(dir);
	byte_buffer_free(&calls);
	free(text);
}

/* A cgroup path of a container far longer than a line's usual 512 bytes (a
 * user may make cgroups that deep under their own systemd slice, each
 * component up to 255 bytes, control bytes four times that once escaped):
 * its series are written whole, with the container's labels, and the scrape
 * does not fail. */
static void test_long_container_cgroup(void **state)
{
	char path[2048], line[2304];
	struct metrics_cpu_row row = { path, 1, 1000000 };
	struct metrics_snapshot m = snapshot();
	char *text;
	int at;

	(void)state;
	at = snprintf(path, sizeof(path), "/user.slice/user-1000.slice/user@1000.service/");
	for (int i = 0; i < 200; i++)
		path[at++] = '\x1b';
	snprintf(path + at, sizeof(path) - (size_t)at,
		 "/docker-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.scope");
	m.cgroups = &row;
	m.nr_cgroups = 1;
	text = render(&m);
	at = snprintf(line, sizeof(line),
		      "ringtrace_cpu_seconds_total{cgroup=\"/user.slice/user-1000.slice/user@1000.service/");
	for (int i = 0; i < 200; i++)
		at += snprintf(line + at, sizeof(line) - (size_t)at, "\\\\x1b");
	snprintf(line + at, sizeof(line) - (size_t)at,
		 "/docker-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.scope\","
		 "container_id=\"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\","
		 "container_runtime=\"docker\"} 0.001000000\n");
	if (!strstr(text, line))
		fail_msg("no series\n%s\nin:\n%s", line, text);
	free(text);
}

/* The name of the family a sample line belongs to. */
static void family_of(const char *line, char *name, size_t len)
{
	size_t n = strcspn(line, "{ ");
	static const char *const suffixes[] = { "_bucket", "_sum", "_count" };

	snprintf(name, len, "%.*s", (int)n, line);
	for (int i = 0; i < 3; i++) {
		size_t s = strlen(suffixes[i]);

		if (n > s && !strcmp(name + n - s, suffixes[i]) &&
		    !strncmp(name, "ringtrace_runqueue_latency_seconds", n - s))
			name[n - s] = '\0';
	}
}

static void test_structure(void **state)
{
	struct metrics_snapshot m = snapshot();
	char *text = render(&m), *copy, *line, *save = NULL;
	char seen_families[64][128], series[256][512], current[128] = "";
	int nr_families = 0, nr_series = 0;
	uint64_t last_bucket = 0, inf = 0, count = 0;

	(void)state;
	assert_true(strlen(text) > 0);
	assert_int_equal(text[strlen(text) - 1], '\n');
	copy = strdup(text);
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char fam[128];

		if (!strncmp(line, "# HELP ", 7) || !strncmp(line, "# TYPE ", 7)) {
			family_of(line + 7, fam, sizeof(fam));
			if (!strncmp(line, "# HELP ", 7)) {
				/* a new family: never seen before */
				for (int i = 0; i < nr_families; i++)
					if (!strcmp(seen_families[i], fam))
						fail_msg("family %s appears twice:\n%s", fam, text);
				snprintf(seen_families[nr_families++], sizeof(seen_families[0]), "%s", fam);
				snprintf(current, sizeof(current), "%s", fam);
			} else {
				assert_string_equal(fam, current); /* TYPE right after its HELP */
			}
			continue;
		}
		assert_int_not_equal(line[0], '#');
		family_of(line, fam, sizeof(fam));
		if (strcmp(fam, current))
			fail_msg("%s outside its family (in %s): interleaved\n%s", line, current, text);
		/* the series (name and labels) is unique */
		*strrchr(line, ' ') = '\0';
		for (int i = 0; i < nr_series; i++)
			if (!strcmp(series[i], line))
				fail_msg("duplicate series %s", line);
		snprintf(series[nr_series++], sizeof(series[0]), "%s", line);
		if (!strncmp(line, "ringtrace_runqueue_latency_seconds_bucket", 41)) {
			uint64_t v = strtoull(line + strlen(line) + 1, NULL, 10);

			assert_true(v >= last_bucket); /* cumulative */
			last_bucket = v;
			if (strstr(line, "le=\"+Inf\""))
				inf = v;
		}
		if (!strcmp(line, "ringtrace_runqueue_latency_seconds_count"))
			count = strtoull(line + strlen(line) + 1, NULL, 10);
	}
	assert_int_equal(inf, 6);
	assert_int_equal(count, 6);
	assert_non_null(strstr(text, "ringtrace_runqueue_latency_seconds_bucket{le=\"1.024e-06\"} 3\n"));
	assert_non_null(strstr(text, "ringtrace_runqueue_latency_seconds_sum 3.000000000\n"));
	assert_non_null(strstr(text, "ringtrace_bpf_program_runs_total{program=\"export_sample\"} 10\n"));
	assert_non_null(strstr(text, "ringtrace_build_info{version=\"9.9.9\"} 1\n"));
	/* a pod's container: what its cgroup path says, beside the path */
	assert_non_null(strstr(text, "ringtrace_cpu_seconds_total{cgroup=\"" POD_CGROUP "\","
				     "container_id=\"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\","
				     "pod_uid=\"d1f6a2b4-3c5e-4f70-8a9b-0c1d2e3f4a5b\",qos_class=\"besteffort\","
				     "container_runtime=\"cri-o\"} 0.020000000\n"));
	assert_non_null(strstr(text, "ringtrace_cpu_seconds_total{cgroup=\"/\"} 0.100000000\n"));
	free(copy);
	free(text);
}

/* --top 2: the two busiest comms by name, every other one summed as
 * "other", merged with a comm of that name. */
static void test_top_comms(void **state)
{
	struct metrics_snapshot m = snapshot();
	char *text, *p;
	int series = 0;

	(void)state;
	m.top_comms = 2;
	text = render(&m);
	for (p = text; (p = strstr(p, "ringtrace_comm_cpu_seconds_total{")); p++)
		series++;
	/* the two busiest are the one with every odd character (0.07 s) and
	 * "other" itself (0.01 s); the rest, 0.003 + 0.003 + 0.001 s, join
	 * that "other": two series */
	assert_int_equal(series, 2);
	if (!strstr(text, "ringtrace_comm_cpu_seconds_total{comm=\"other\"} 0.017000000\n"))
		fail_msg("other is not the sum of the rest:\n%s", text);
	free(text);
}

/* The CPU time of keys evicted from the kernel's maps: added to the comms'
 * "other" (after the top N are chosen: it never takes one of their places),
 * and to a cgroup "other"; the evictions counted per map. */
static void test_evicted_time_is_other(void **state)
{
	struct metrics_snapshot m = snapshot();
	char *text, *p;
	int series = 0;

	(void)state;
	m.top_comms = 2;
	m.comms_evicted = (struct metrics_cpu_row){ NULL, 50, 500000000 };
	m.cgroups_evicted = (struct metrics_cpu_row){ NULL, 3, 30000000 };
	text = render(&m);
	for (p = text; (p = strstr(p, "ringtrace_comm_cpu_seconds_total{")); p++)
		series++;
	/* 0.5 s evicted is more than the busiest comm, which keeps its place */
	assert_int_equal(series, 2);
	if (!strstr(text, "ringtrace_comm_cpu_seconds_total{comm=\"a\\\"b") ||
	    !strstr(text, "ringtrace_comm_cpu_seconds_total{comm=\"other\"} 0.517000000\n") ||
	    !strstr(text, "ringtrace_cpu_samples_total{cgroup=\"other\"} 3\n") ||
	    !strstr(text, "ringtrace_cpu_seconds_total{cgroup=\"other\"} 0.030000000\n") ||
	    !strstr(text, "# TYPE ringtrace_map_evictions_total counter\n") ||
	    !strstr(text, "ringtrace_map_evictions_total{map=\"cgroup\"} 0\n") ||
	    !strstr(text, "ringtrace_map_evictions_total{map=\"comm\"} 42\n"))
		fail_msg("evicted time or evictions not as expected:\n%s", text);
	free(text);
	/* every comm by name: other is the comm named so plus what was evicted */
	m.top_comms = 0;
	text = render(&m);
	if (!strstr(text, "ringtrace_comm_cpu_seconds_total{comm=\"other\"} 0.510000000\n"))
		fail_msg("evicted time not merged into other:\n%s", text);
	free(text);
	/* nothing evicted, no maps (record --metrics): no other, no family */
	m = snapshot();
	m.nr_comms = 4;
	m.nr_evictions = 0;
	text = render(&m);
	assert_null(strstr(text, "\"other\""));
	assert_null(strstr(text, "ringtrace_map_evictions_total"));
	free(text);
}

/* Without kernel.bpf_stats_enabled, no program families at all. */
static void test_program_stats_only_when_enabled(void **state)
{
	struct metrics_snapshot m = snapshot();
	char *text;

	(void)state;
	m.bpf_stats = false;
	text = render(&m);
	assert_null(strstr(text, "ringtrace_bpf_program"));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_label_values_escaped_and_valid_utf8),
		cmocka_unit_test(test_control_bytes_terminal_safe),
		cmocka_unit_test(test_long_container_cgroup),
		cmocka_unit_test(test_structure),
		cmocka_unit_test(test_top_comms),
		cmocka_unit_test(test_evicted_time_is_other),
		cmocka_unit_test(test_program_stats_only_when_enabled),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
