/* SPDX-License-Identifier: GPL-2.0-only */
/* test_loss.c: every transport with real BPF: exact counts when rings overflow
 * (samples + LOST == N), perf report --stats agrees on the losses, no loss of
 * a burst the default ring holds nor at a paced rate; the own rings' pages
 * read ahead whole. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture/transport.h"
#include "test_util.h"

static const char *const transports[] = { "ringbuf", "perfbuf", "ring" };
#define NR_TRANSPORTS 3

/* What a recording's files say: samples, and samples reported lost
 * (LOST_SAMPLES, and LOST of a sampling event, not of the side-band). */
struct accounting {
	uint64_t samples;
	uint64_t lost;
	uint64_t sideband_lost;
	uint64_t sample_bytes; /* sum of sample sizes, to compare layouts */
};

static void account(const char *dir, struct accounting *a)
{
	struct tu_record_counts c;

	tu_count_records(dir, TU_RECORDS_STRICT, &c);
	a->samples = c.samples;
	a->lost = c.lost_samples + c.lost;
	a->sideband_lost = c.sideband_lost;
	a->sample_bytes = c.sample_bytes;
}

/* The "N lost" of ringtrace's summary line. */
static uint64_t summary_lost(const char *out)
{
	const char *p = strstr(out, "ringtrace: recorded");
	unsigned long long samples, lost;

	assert_non_null(p);
	p = strstr(p, ": ");
	p = p ? strstr(p + 2, ": ") : NULL;
	assert_non_null(p);
	assert_int_equal(sscanf(p, ": %llu samples, %llu lost", &samples, &lost), 2);
	return lost;
}

/* Samples perf reports lost: LOST_SAMPLES ("Total Lost Samples") and the
 * counts of the LOST records perf script shows. */
static uint64_t perf_lost_total(const char *dir)
{
	char *out = NULL, *p;
	uint64_t total = 0;

	assert_int_equal(tu_sh(&out, "perf report -i %s --stdio 2>/dev/null | grep 'Total Lost Samples'",
			       dir), 0);
	p = strstr(out, "Total Lost Samples:");
	assert_non_null(p);
	total += strtoull(p + strlen("Total Lost Samples:"), NULL, 10);
	free(out);
	assert_int_equal(tu_sh(&out, "perf script -i %s --show-lost-events 2>/dev/null | grep PERF_RECORD_LOST | awk '{s += $NF} END {print s + 0}'",
			       dir), 0);
	total += strtoull(out, NULL, 10);
	free(out);
	return total;
}

/* The samples perf report --stats counts lost, per event ("LOST_SAMPLES
 * events:" under each event's name), summed. */
static uint64_t perf_stats_lost_samples(const char *dir)
{
	char *out = NULL;
	uint64_t total;

	assert_int_equal(tu_sh(&out, "perf report --stats -i %s 2>/dev/null | "
				     "awk '/ stats:$/ && !/^Aggregated/ {ev = 1} ev && /LOST_SAMPLES events:/ {s += $3} END {print s + 0}'",
			       dir), 0);
	total = strtoull(out, NULL, 10);
	free(out);
	return total;
}

/* Whether ev is the side-band's event (the dummy one COMM, MMAP2, FORK and
 * EXIT come from), as tu_count_records tells it. */
static bool is_sideband(const struct perf_input_event *ev)
{
	return ev && ev->attr.type == PERF_TYPE_SOFTWARE && ev->attr.config == PERF_COUNT_SW_DUMMY;
}

/* Every LOST_SAMPLES record the kernel's loss became (all but each CPU's
 * last, which ringtrace writes at stop) is stamped with the task of the
 * sample after it, never pid 0: loadgen's here. Returns how many there were. */
static unsigned int replayed_losses_name_the_task(const char *dir)
{
	const struct perf_event_header *rec;
	struct tu_records r;
	unsigned int stamped = 0, unstamped = 0;

	tu_records_open(&r, dir, TU_RECORDS_STRICT);
	while (tu_records_next(&r, &rec)) {
		struct perf_sample_id sid;

		/* the side-band's own losses (its dummy event's) are LOST
		 * records, as perf writes them */
		if (rec->type == PERF_RECORD_LOST && !is_sideband(perf_input_event_of(&r.in, rec)))
			fail_msg("a PERF_RECORD_LOST in %s: sample losses are LOST_SAMPLES",
				 r.in.files[r.file].path);
		if (rec->type != PERF_RECORD_LOST_SAMPLES)
			continue;
		assert_int_equal(perf_sample_id_decode(rec, r.in.sample_id_type, &sid), 0);
		if (sid.pid)
			stamped++;
		else
			unstamped++;
	}
	tu_records_close(&r);
	print_message("LOST_SAMPLES with a task: %u, without (written at stop): %u\n", stamped,
		      unstamped);
	assert_true(unstamped <= (unsigned int)tu_online_cpus());
	return stamped;
}

/* The calls the generator says it made ("loadgen: calls=N" in out). */
static uint64_t generator_calls(const char *out)
{
	const char *calls = strstr(out, "loadgen: calls=");

	if (!calls)
		fail_msg("the generator did not say how many calls it made:\n%s", out);
	return strtoull(calls + strlen("loadgen: calls="), NULL, 10);
}

/*
 * The generator paces its getpid calls (EXACT_RATE a second for
 * EXACT_SECONDS): the recording then spans the same second on any host, ten
 * of --debug-drain-delay-ms 100's held-back drains, whatever a getpid costs
 * there (a generator flat out made 200 000 calls in 24 ms on a host of
 * 120 ns getpid, all before the first drain: every loss the kernel counted
 * became the one record written at stop). Each drain then finds its ring
 * overflowed, and the losses the next sample reports are stamped with its task.
 */
#define EXACT_RATE "200000"
#define EXACT_SECONDS "1"

static void exact_count(const char *transport, const char *knobs, bool staging_losses)
{
	char *dir = tu_tempdir(), *out = NULL;
	struct accounting a;
	uint64_t ours, n;
	int rc;

	rc = tu_sh(&out, "%s record --force -o %s --transport %s %s -e syscalls:sys_enter_getpid -- %s getpid-rate " EXACT_RATE " " EXACT_SECONDS " 2>&1",
		   tu_ringtrace(), dir, transport, knobs, tu_loadgen());
	if (rc)
		fail_msg("record failed:\n%s", out);
	n = generator_calls(out);
	account(dir, &a);
	ours = summary_lost(out);
	print_message("%s %s: %" PRIu64 " samples + %" PRIu64 " lost = %" PRIu64
		      " (N = %" PRIu64 "); summary says %" PRIu64 " lost; %" PRIu64
		      " side-band records lost\n",
		      transport, knobs, a.samples, a.lost, a.samples + a.lost, n, ours,
		      a.sideband_lost);
	assert_true(n > 0);
	assert_int_equal(a.samples + a.lost, n);
	if (a.lost * 10 <= n)
		fail_msg("only %" PRIu64 " of %" PRIu64 " lost: the test needs over 10%% to mean anything",
			 a.lost, n);
	assert_int_equal(ours, a.lost);
	/* perf counts the side-band's LOST records too: other work on the
	 * machine (processes started, files mapped) overflows its ring while
	 * the drain is held back */
	if (!staging_losses || !a.sideband_lost)
		assert_int_equal(perf_lost_total(dir), a.lost + a.sideband_lost);
	/* samples lost are LOST_SAMPLES on both transports: perf report
	 * --stats totals them as ringtrace's summary does */
	assert_int_equal(perf_stats_lost_samples(dir), ours);
	if (!staging_losses && !strcmp(transport, "perfbuf"))
		assert_true(replayed_losses_name_the_task(dir) > 0);
	free(out);
	tu_rmtree(dir);
	free(dir);
}

/* Tiny kernel rings and the drain held back: the kernel side overflows. */
static void test_kernel_ring_losses_are_exact(void **state)
{
	(void)state;
	tu_skip_unless_possible();
	for (int i = 0; i < NR_TRANSPORTS; i++)
		exact_count(transports[i], "-m 1 --debug-drain-delay-ms 100", false);
	/* the own ring's claim by a locked add, as where the kernel offers no
	 * global membarrier (a plain store's otherwise, from a tracepoint) */
	exact_count("ring", "-m 1 --debug-drain-delay-ms 100 --debug-locked-claims", false);
}

/* A tiny staging ring and a slow disk: the staging ring overflows. */
static void test_staging_ring_losses_are_exact(void **state)
{
	(void)state;
	tu_skip_unless_possible();
	for (int i = 0; i < NR_TRANSPORTS; i++)
		exact_count(transports[i], "-m 512 --staging-size 64K --debug-writer-delay-ms 50",
			    true);
}

/*
 * A sustained rate, an idle disk: getpid at 100 000 a second for 2.5 s on one
 * CPU (a rate any tracer keeps up with, where a generator flat out would only
 * measure the host's speed), nothing lost; all transports write the same
 * records. -m 512 (2 MiB a CPU, the most the own rings take) holds ~260 ms of
 * these samples: the drain may wait that long for a CPU beside other work
 * (load 8 on 2 CPUs lost samples from the default 512 KiB ring, ~65 ms of
 * them, even at this rate) and still lose nothing; a drain that falls behind
 * the rate loses more than any ring holds. Whatever is lost is exactly
 * counted, and such a run is tried again, up to 3 times, and says so.
 */
static void test_sustained_rate_loses_nothing(void **state)
{
	struct accounting a[NR_TRANSPORTS];

	(void)state;
	tu_skip_unless_possible();
	for (int i = 0; i < NR_TRANSPORTS; i++) {
		for (int attempt = 1;; attempt++) {
			char *dir = tu_tempdir(), *out = NULL;
			uint64_t n;
			int rc = tu_sh(&out, "%s record --force -o %s --transport %s -m 512 -e syscalls:sys_enter_getpid -- %s --cpu %d getpid-rate 100000 2.5 2>&1",
				       tu_ringtrace(), dir, transports[i], tu_loadgen(),
				       tu_online_cpus() - 1);

			if (rc)
				fail_msg("record failed:\n%s", out);
			n = generator_calls(out);
			account(dir, &a[i]);
			/* fewer than 250 000 where the generator's CPU is shared
			 * (a busy host): what it made is all accounted for, and
			 * nothing may be lost */
			print_message("%s: %" PRIu64 " samples, %" PRIu64 " lost of %" PRIu64 " calls\n",
				      transports[i], a[i].samples, a[i].lost, n);
			assert_true(n > 0);
			/* whatever was lost, every call is accounted for */
			assert_int_equal(a[i].samples + a[i].lost, n);
			assert_int_equal(summary_lost(out), a[i].lost);
			free(out);
			tu_rmtree(dir);
			free(dir);
			if (!a[i].lost)
				break;
			if (attempt == 3)
				fail_msg("%s lost events in 3 runs in a row: the drain does not keep up",
					 transports[i]);
			print_message("%s: a stall of the drain lost %" PRIu64 " (counted); again\n",
				      transports[i], a[i].lost);
		}
	}
	/* the same layout: the same bytes per sample */
	for (int i = 1; i < NR_TRANSPORTS; i++)
		assert_int_equal(a[0].sample_bytes * a[i].samples, a[i].sample_bytes * a[0].samples);
}

/*
 * Default sizes, a burst the default ring holds alone: 3/4 of a CPU's
 * default ring (transport_default_ring_bytes, as record sizes it) in getpid
 * hits of at most BURST_RING_BYTES_A_SAMPLE each, made flat out on one CPU
 * while the drain is held back (--debug-drain-delay-ms): nothing lost on any
 * transport, whatever the host's speed or load, as no drain is needed in
 * time. A ring half the default, or one not sized by default, or a
 * transport wasting a ring's room, overflows: that fails, as does any hit
 * not accounted for (kept + lost = calls; the recording follows the
 * generator alone, where other work on the machine makes getpid calls too).
 * A million hits flat out instead (~1.3 M/s where the default was measured)
 * raced the drain against the generator: a host of 120 ns getpid, or a busy
 * one, lost some in every run.
 */
#define BURST_RING_BYTES_A_SAMPLE 100u /* 72 bytes a sample, perfbuf's ring 88 with its header */

static void test_burst_at_default_sizes_loses_nothing(void **state)
{
	size_t ring = transport_default_ring_bytes(
		(unsigned int)sysconf(_SC_NPROCESSORS_CONF),
		(uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE));
	uint64_t burst = ring / 4 * 3 / BURST_RING_BYTES_A_SAMPLE;

	(void)state;
	tu_skip_unless_possible();
	for (int i = 0; i < NR_TRANSPORTS; i++) {
		char *dir = tu_tempdir(), *out = NULL;
		struct accounting a;
		int rc = tu_sh(&out, "%s record --force -o %s --transport %s --debug-drain-delay-ms 200 -e syscalls:sys_enter_getpid -- %s --cpu %d getpid %" PRIu64 " 2>&1",
			       tu_ringtrace(), dir, transports[i], tu_loadgen(),
			       tu_online_cpus() - 1, burst);

		if (rc)
			fail_msg("record failed:\n%s", out);
		account(dir, &a);
		print_message("%s: a burst of %" PRIu64 " into a ring of %zu KiB: %" PRIu64
			      " samples (%" PRIu64 " bytes each), %" PRIu64 " lost\n",
			      transports[i], burst, ring >> 10, a.samples,
			      a.samples ? a.sample_bytes / a.samples : 0, a.lost);
		assert_int_equal(summary_lost(out), a.lost);
		assert_int_equal(a.samples + a.lost, burst);
		/* the burst is the share of the ring this test means */
		assert_true(a.sample_bytes <= a.samples * (BURST_RING_BYTES_A_SAMPLE - 16));
		if (a.lost)
			fail_msg("%s lost %" PRIu64 " of a burst of %" PRIu64
				 " that 3/4 of its default ring holds",
				 transports[i], a.lost, burst);
		free(out);
		tu_rmtree(dir);
		free(dir);
	}
}

/* A start the verifier is slow over (--debug-start-delay-ms holds the
 * sampler's load back two seconds) while processes start by the hundred
 * loses no side-band: the side-band's rings run only once the sampler is
 * verified, and are drained from then on (before 2026-12-02 they ran
 * unread through the load: a launch storm filled them). */
static void test_slow_start_loses_no_sideband(void **state)
{
	char *dir = tu_tempdir(), *out = NULL;
	unsigned long sideband = 0, lost = 0;
	const char *all;
	pid_t storm[2];
	int rc;

	(void)state;
	tu_skip_unless_possible();
	for (int i = 0; i < 2; i++)
		storm[i] = tu_start("exec sh -c 'while :; do /bin/true; done'");
	rc = tu_sh(&out, "%s record -a -g -v --debug-start-delay-ms 2000 --force -o %s -- sleep 0.5 2>&1",
		   tu_ringtrace(), dir);
	for (int i = 0; i < 2; i++) {
		kill(storm[i], SIGKILL);
		tu_wait_gone(storm[i], 5);
	}
	if (rc)
		fail_msg("record failed:\n%s", out);
	all = strstr(out, "\n   all ");
	if (!all || sscanf(all, " all %*u %*u %*u %*u %lu %lu", &sideband, &lost) != 2)
		fail_msg("no totals:\n%s", out);
	print_message("%lu side-band records, %lu lost\n", sideband, lost);
	assert_true(sideband > 0);
	if (lost)
		fail_msg("%lu side-band records lost through a slow start:\n%s", lost, out);
	free(out);
	tu_rmtree(dir);
	free(dir);
}

/* Every transport gives files with the same content for the same events. */
static void test_transports_write_the_same_records(void **state)
{
	char *dirs[NR_TRANSPORTS], *scripts[NR_TRANSPORTS];

	(void)state;
	tu_skip_unless_possible();
	for (int i = 0; i < NR_TRANSPORTS; i++) {
		char *out = NULL;

		dirs[i] = tu_tempdir();
		/* frame pointers: the same callchain for every sample, where -g's
		 * in-kernel unwinder falls back for the few samples taken before
		 * the side-band of the exec is read; -m 512: each CPU's ring (2 MiB)
		 * holds the whole burst (about 800 KB) unread, as a drain starved
		 * by a busy machine leaves it (CI: the default 512 KiB lost 631) */
		assert_int_equal(tu_sh(&out, "%s record --force -m 512 -o %s --transport %s --call-graph fp -e syscalls:sys_enter_getpid -- %s getpid 5000 2>&1",
				       tu_ringtrace(), dirs[i], transports[i], tu_loadgen()), 0);
		free(out);
		/* everything but the times and pids, which differ run to run */
		assert_int_equal(tu_sh(&scripts[i], "perf script -i %s -F comm,event,trace,ip,sym 2>&1 | sort | uniq -c",
				       dirs[i]), 0);
	}
	for (int i = 1; i < NR_TRANSPORTS; i++)
		if (strcmp(scripts[0], scripts[i]))
			fail_msg("ringbuf and %s recordings differ:\n--- ringbuf\n%s\n--- %s\n%s",
				 transports[i], scripts[0], transports[i], scripts[i]);
	if (!strstr(scripts[0], "5000 "))
		fail_msg("expected 5000 identical samples:\n%s", scripts[0]);
	for (int i = 0; i < NR_TRANSPORTS; i++) {
		free(scripts[i]);
		tu_rmtree(dirs[i]);
		free(dirs[i]);
	}
}

/* The pages of every CPU's own ring read once from the kernel before the first
 * sample (own_rings_touch): as -vv tells it, -m 8's four pages a CPU more
 * than -m 4's, every CPU's ring whole (its control page, data and slack). */
static unsigned int ring_pages_read(const char *pages)
{
	char *dir = tu_tempdir(), *out = NULL;
	const char *line;
	unsigned int n = 0;

	assert_int_equal(tu_sh(&out, "%s record -v -v --force -o %s --transport ring -m %s -e syscalls:sys_enter_getpid -- %s getpid 10 2>&1",
			       tu_ringtrace(), dir, pages, tu_loadgen()), 0);
	line = strstr(out, "read the rings' ");
	if (!line || sscanf(line, "read the rings' %u pages ahead", &n) != 1)
		fail_msg("-m %s: no count of the rings' pages read ahead:\n%s", pages, out);
	free(out);
	tu_rmtree(dir);
	free(dir);
	return n;
}

static void test_own_rings_read_ahead_whole(void **state)
{
	unsigned int four, eight, cpus;

	(void)state;
	tu_skip_unless_possible();
	four = ring_pages_read("4");
	eight = ring_pages_read("8");
	print_message("pages read ahead: %u (-m 4), %u (-m 8)\n", four, eight);
	assert_true(eight > four && (eight - four) % 4 == 0);
	cpus = (eight - four) / 4;
	assert_int_equal(four % cpus, 0);
	assert_true(four / cpus >= 1 + 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kernel_ring_losses_are_exact),
		cmocka_unit_test(test_staging_ring_losses_are_exact),
		cmocka_unit_test(test_sustained_rate_loses_nothing),
		cmocka_unit_test(test_burst_at_default_sizes_loses_nothing),
		cmocka_unit_test(test_slow_start_loses_no_sideband),
		cmocka_unit_test(test_transports_write_the_same_records),
		cmocka_unit_test(test_own_rings_read_ahead_whole),
	};

	tu_set_skip_reason(tu_integration_skip_reason());
	return cmocka_run_group_tests(tests, NULL, tu_stop_left);
}
