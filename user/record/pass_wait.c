/* SPDX-License-Identifier: GPL-2.0-only */
/* pass_wait.c: when the record loop's next pass over the rings comes: at
 * once, soon (side-band held for ordering, a table waiting for room), or
 * after DRAIN_INTERVAL_MS unless a ring wakes it. */
#include "record/pass_wait.h"

#include <errno.h>
#include <time.h>

#include "lib/monotonic.h"
#include "record/unwind_tables.h"

/* epoll_wait for ns nanoseconds (a millisecond before Linux 5.11). */
static int wait_ns(int epfd, struct epoll_event *evs, int max, uint64_t ns)
{
	struct timespec t = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };
	int n = epoll_pwait2(epfd, evs, max, &t, NULL);

	return n < 0 && errno == ENOSYS ? epoll_wait(epfd, evs, max, 1) : n;
}

/* The loop's wait for its next pass: none while the start's tables are
 * built a slice at a time; while side-band is held for ordering, until a
 * pass would track the oldest held, and two sample periods more
 * (track_delay_ns: a churn of processes wakes the loop a few times a
 * period, not at each of their records); none once that time has come, as
 * it has when this pass took longer (a sleep of a quarter of a millisecond
 * after each pass that held some cost two context switches, tens of
 * microseconds on a VM, a third of the drain's under churn); else
 * DRAIN_INTERVAL_MS. */
int record_wait_for_pass(struct session *s, struct epoll_event *evs, int max, bool unwind_now)
{
	uint64_t release, now;

	if (unwind_now)
		return epoll_wait(s->epfd, evs, max, 0);
	if (!unwind_tables_holding(&s->unwind, &release))
		return epoll_wait(s->epfd, evs, max, DRAIN_INTERVAL_MS);
	if (!release)
		return wait_ns(s->epfd, evs, max, 250000); /* a quarter of a millisecond */
	now = monotonic_ns();
	return release <= now ? epoll_wait(s->epfd, evs, max, 0)
			      : wait_ns(s->epfd, evs, max, release - now);
}

