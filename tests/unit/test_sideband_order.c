/* SPDX-License-Identifier: GPL-2.0-only */
/* test_sideband_order.c: side-band records added out of order (as CPUs are
 * drained one at a time) come back in time order, none lost, when full too. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/sideband_order.h"

/* What a record given back says: its time and a tag (an EXIT's pid), or
 * for a COMM the name it was added with (a tag-numbered name). */
struct fake_record {
	uint64_t time;
	uint32_t tag;
};

struct applied {
	struct fake_record recs[4096];
	size_t nr;
};

static void apply(void *ctx, const struct perf_sideband *rec)
{
	struct applied *a = ctx;
	uint32_t tag = rec->task.pid;

	assert_true(a->nr < 4096);
	if (rec->type == PERF_RECORD_COMM) {
		char name[16];

		tag = rec->comm.pid;
		snprintf(name, sizeof(name), "c%u", tag);
		assert_string_equal(rec->comm.comm, name);
	}
	a->recs[a->nr++] = (struct fake_record){ rec->sid.time, tag };
}

/* Odd tags as COMMs (their name copied and given back), even as EXITs. */
static void add(struct sideband_order *o, struct applied *a, uint64_t time, uint32_t tag)
{
	struct perf_sideband r = { .has_sid = true, .sid.time = time };
	char name[16];

	snprintf(name, sizeof(name), "c%u", tag);
	if (tag % 2) {
		r.type = PERF_RECORD_COMM;
		r.comm.pid = tag;
		r.comm.comm = name;
	} else {
		r.type = PERF_RECORD_EXIT;
		r.task.pid = tag;
	}
	sideband_order_add(o, &r, apply, a);
	memset(name, 'x', sizeof(name) - 1); /* the order kept its own copy */
}

/* Two CPUs drained one after the other: CPU 1's fork at 10 is read after
 * CPU 0's exec at 20 and mmap at 30; released up to 25, then the rest. */
static void test_released_in_time_order(void **state)
{
	struct sideband_order o;
	struct applied *a = calloc(1, sizeof(*a));

	(void)state;
	sideband_order_init(&o, 1 << 20);
	add(&o, a, 20, 1);
	add(&o, a, 30, 2);
	add(&o, a, 10, 3);
	add(&o, a, 20, 4); /* the same time as tag 1, after it */
	assert_int_equal(a->nr, 0);
	sideband_order_release(&o, 25, apply, a);
	assert_int_equal(a->nr, 3);
	assert_int_equal(a->recs[0].tag, 3);
	assert_int_equal(a->recs[1].tag, 1);
	assert_int_equal(a->recs[2].tag, 4);
	add(&o, a, 27, 5);
	sideband_order_release(&o, UINT64_MAX, apply, a);
	assert_int_equal(a->nr, 5);
	assert_int_equal(a->recs[3].tag, 5);
	assert_int_equal(a->recs[4].tag, 2);
	assert_int_equal(o.early, 0);
	sideband_order_release(&o, UINT64_MAX, apply, a);
	assert_int_equal(a->nr, 5);
	sideband_order_free(&o);
	free(a);
}

/* Full: the oldest half goes back early (counted), in order; nothing lost. */
static void test_full_gives_back_oldest(void **state)
{
	struct sideband_order o;
	struct applied *a = calloc(1, sizeof(*a));
	static unsigned int seen[1000];
	uint64_t last = 0;
	size_t kept;

	(void)state;
	sideband_order_init(&o, 64 * (sizeof(struct sideband_kept) + 4));
	for (uint32_t i = 0; i < 1000; i++)
		add(&o, a, (i * 7919u) % 1000 + 1, i);
	assert_true(a->nr > 0);
	assert_true(o.early >= a->nr);
	kept = o.nr;
	assert_true(kept > 0 && kept <= 64);
	sideband_order_release(&o, UINT64_MAX, apply, a);
	assert_int_equal(a->nr, 1000);
	/* what was kept came back sorted */
	for (size_t i = a->nr - kept; i < a->nr; i++) {
		assert_true(a->recs[i].time >= last);
		last = a->recs[i].time;
	}
	/* each time once */
	for (size_t i = 0; i < a->nr; i++)
		seen[a->recs[i].tag]++;
	for (size_t i = 0; i < 1000; i++)
		assert_int_equal(seen[i], 1);
	sideband_order_free(&o);
	free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_released_in_time_order),
		cmocka_unit_test(test_full_gives_back_oldest),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
