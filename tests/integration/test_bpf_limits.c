/* SPDX-License-Identifier: GPL-2.0-only */
/* test_bpf_limits.c: every combination of the sampler's programs (stack modes
 * × events × transports × scope) loads on this kernel, each within a budget
 * of the verifier's limits, printed program by program. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "capture/bpf_limits.h"
#include "capture/bpf_sampler.h"
#include "sys/cpu_list.h"
#include "test_util.h"

/* What a change may use of the verifier's limits before this test fails:
 * the rest is headroom for another kernel, another clang, another host.
 * The stack is counted as a kernel without private BPF stacks counts it
 * (every frame of the deepest chain of calls, added up): 6.13 gave kprobe,
 * tracepoint and perf event programs private stacks, and later 6.18
 * releases took them from kprobe programs (uprobes, USDT), where -g's
 * combined stack of 592 bytes, accepted before, was refused. */
#define STACK_BUDGET (BPF_LIMIT_STACK_BYTES - 64)
#define INSNS_BUDGET (BPF_LIMIT_INSNS_PROCESSED / 2)

enum stack_mode { STACK_NONE, STACK_FP, STACK_EHFRAME, STACK_DWARF };
static const char *const stack_names[] = { "no callchain", "--call-graph fp", "-g",
					   "--call-graph dwarf" };
static const char *const transport_names[] = { [TRANSPORT_RINGBUF] = "ringbuf",
					       [TRANSPORT_PERFBUF] = "perfbuf",
					       [TRANSPORT_RING] = "ring" };

/* One event of each kind a program runs for: cpu-clock, a tracepoint, a
 * uprobe, a uretprobe, a USDT probe, off-CPU time. */
static struct tracepoint_format format = { .id = 1, .fixed_size = 16 };
static struct user_probe probe = { .nr_args = 6 };

#define NR_EVENTS 6

static void fill_events(struct sampler_event *ev)
{
	memset(ev, 0, NR_EVENTS * sizeof(*ev));
	ev[0] = (struct sampler_event){ .type = PERF_TYPE_SOFTWARE, .id = 1 };
	ev[1] = (struct sampler_event){ .type = PERF_TYPE_TRACEPOINT, .format = &format, .id = 2 };
	ev[2] = (struct sampler_event){ .format = &format, .probe = &probe,
					.probe_flags = RT_EVENT_UPROBE, .id = 3 };
	ev[3] = (struct sampler_event){ .format = &format, .probe = &probe,
					.probe_flags = RT_EVENT_URETPROBE, .id = 4 };
	ev[4] = (struct sampler_event){ .format = &format, .probe = &probe,
					.probe_flags = RT_EVENT_USDT, .id = 5 };
	ev[5] = (struct sampler_event){ .type = PERF_TYPE_SOFTWARE, .offcpu = true, .id = 6 };
}

static unsigned int checked, worst_stack, worst_insns;
/* What is over budget or refused, in the test running: reported at its end */
static char over_text[4096];
static size_t over;

#define note_over(...)                                                                    \
	do {                                                                              \
		if (over < sizeof(over_text))                                             \
			over += (size_t)snprintf(over_text + over, sizeof(over_text) - over, \
						 "\n" __VA_ARGS__);                       \
	} while (0)

/* Loads one combination; every program within budget. everything: every
 * part of the scope filter, the cgroup field, overwrite rings, following
 * forks and the command's exec, and (-g) the tables of the files walks meet
 * (--unwind-tables sampled). */
static void verify(enum transport_kind transport, enum stack_mode mode, bool everything)
{
	struct cpu_list online = { 0 };
	struct sampler_event all[NR_EVENTS];
	static const uint32_t tgids[] = { 1 }, tids[] = { 1 };
	struct bpf_program_limits limits[16];
	struct bpf_sampler_config cfg = {
		.transport = transport,
		.events = all,
		.nr_events = NR_EVENTS,
		.callchain = mode != STACK_NONE,
		.stack_user = mode == STACK_DWARF ? 8192 : 0,
		.unwind_ehframe = mode == STACK_EHFRAME,
		/* as -g records: copies of stacks whose table is still to come */
		.stack_copy_budget = mode == STACK_EHFRAME ? 1 << 20 : 0,
		/* and with every part, as export -g's: the files walks meet told */
		.unwind_tables_sampled = mode == STACK_EHFRAME && everything,
		.unwind_rows = 4096,
		.unwind_processes = 64,
		.ring_bytes = 64 * 4096,
		.wakeup_bytes = 16 * 4096,
		.offcpu_max_sleepers = 64,
		.scope = { .cgroup_fd = -1 },
	};
	char err[4096] = "";
	size_t nr;

	if (cpu_list_online(&online, err, sizeof(err)))
		fail_msg("%s", err);
	cfg.online = cfg.scope.cpus = &online;
	fill_events(all);
	if (everything) {
		cfg.cgroup_field = true;
		cfg.overwrite = transport != TRANSPORT_RINGBUF;
		cfg.scope.only_these_cpus = true;
		cfg.scope.tgids = tgids;
		cfg.scope.nr_tgids = 1;
		cfg.scope.tids = tids;
		cfg.scope.nr_tids = 1;
		cfg.scope.follow_forks = true;
		cfg.scope.exec_pending = 1;
		cfg.scope.cgroup_fd = STDIN_FILENO; /* only its being set is read */
		cfg.scope.cgroup_id = 1;
	}
	nr = bpf_sampler_verify(&cfg, limits, 16, err, sizeof(err));
	cpu_list_free(&online);
	if (!nr)
		note_over("%s, %s%s: %s", transport_names[transport], stack_names[mode],
			  everything ? ", every filter" : "", err);
	for (size_t i = 0; i < nr; i++) {
		const struct bpf_program_limits *l = &limits[i];

		printf("  %-8s %-19s %-13s %-22s %7u insns  stack %3u: %s\n",
		       transport_names[transport], stack_names[mode],
		       everything ? "every filter" : "", l->name, l->insns_processed,
		       l->stack_combined, l->chain);
		if (l->stack_combined > worst_stack)
			worst_stack = l->stack_combined;
		if (l->insns_processed > worst_insns)
			worst_insns = l->insns_processed;
		if (l->stack_combined > STACK_BUDGET)
			note_over("%s (%s, %s): a combined stack of %u bytes, over the budget of %u (the verifier's limit: %u): %s",
				 l->name, transport_names[transport], stack_names[mode],
				 l->stack_combined, STACK_BUDGET, BPF_LIMIT_STACK_BYTES, l->chain);
		if (l->insns_processed > INSNS_BUDGET)
			note_over("%s (%s, %s): %u instructions processed, over the budget of %u (the verifier's limit: %u)",
				 l->name, transport_names[transport], stack_names[mode],
				 l->insns_processed, INSNS_BUDGET, BPF_LIMIT_INSNS_PROCESSED);
		checked++;
	}
}

static void verify_all_filters(enum transport_kind transport)
{
	over = 0;
	over_text[0] = '\0';
	for (enum stack_mode m = STACK_NONE; m <= STACK_DWARF; m++) {
		verify(transport, m, false);
		verify(transport, m, true);
	}
	if (over)
		fail_msg("%s:%s", transport_names[transport], over_text);
}

static void test_ring(void **state)
{
	(void)state;
	tu_skip_unless_possible();
	verify_all_filters(TRANSPORT_RING);
}

static void test_ringbuf(void **state)
{
	(void)state;
	tu_skip_unless_possible();
	verify_all_filters(TRANSPORT_RINGBUF);
}

static void test_perfbuf(void **state)
{
	(void)state;
	tu_skip_unless_possible();
	verify_all_filters(TRANSPORT_PERFBUF);
}

/* The parsing of the verifier's statistics and the chain of frames, on
 * known text and a known call graph. */
static void test_statistics_parsed(void **state)
{
	struct bpf_program_limits l = { 0 };
	/* main calls a and b; a calls c: main+a+c = 16+208+48 against
	 * main+b = 16+288 */
	const uint8_t calls[] = {
		0, 1, 1, 0, /* main */
		0, 0, 0, 1, /* a */
		0, 0, 0, 0, /* b */
		0, 0, 0, 0, /* c */
	};
	const char *const names[] = { "main", "a", "b", "c" };

	(void)state;
	assert_int_equal(bpf_limits_parse_log("verification time 10 usec\nstack depth 8+200+288+40\n"
					      "processed 1234 insns (limit 1000000) max_states_per_insn 1\n",
					      &l),
			 0);
	assert_int_equal(l.insns_processed, 1234);
	assert_int_equal(l.nr_funcs, 4);
	assert_int_equal(l.stack[1], 200);
	bpf_limits_combine(&l, calls, names);
	assert_int_equal(l.stack_combined, 16 + 288);
	assert_string_equal(l.chain, "main 8 > b 288");
	assert_int_equal(bpf_limits_parse_log("no statistics", &l), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_statistics_parsed),
		cmocka_unit_test(test_ring),
		cmocka_unit_test(test_ringbuf),
		cmocka_unit_test(test_perfbuf),
	};
	int r;

	tu_set_skip_reason(tu_integration_skip_reason());
	bpf_sampler_set_verbose(false); /* libbpf's messages: the refusals print their line */
	r = cmocka_run_group_tests(tests, NULL, NULL);
	printf("%u programs loaded; deepest stack %u bytes (budget %u, limit %u), most instructions processed %u (budget %u, limit %u)\n",
	       checked, worst_stack, STACK_BUDGET, BPF_LIMIT_STACK_BYTES, worst_insns, INSNS_BUDGET,
	       BPF_LIMIT_INSNS_PROCESSED);
	return r;
}
