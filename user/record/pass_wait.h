/* SPDX-License-Identifier: GPL-2.0-only */
/* pass_wait.h: when the record loop's next pass over the rings comes. */
#ifndef RINGTRACE_PASS_WAIT_H
#define RINGTRACE_PASS_WAIT_H

#include <stdbool.h>
#include <sys/epoll.h>

#include "record/session.h"

/* A pass at least this often, whatever wakes the loop. */
#define DRAIN_INTERVAL_MS 100

/* Waits for the next pass of s's loop, as epoll_wait does (events into evs,
 * at most max; their number, or -1 with errno set): none while the start's
 * tables are built a slice at a time (unwind_now); while side-band is held
 * for ordering, until a pass would track the oldest held; else up to
 * DRAIN_INTERVAL_MS. */
int record_wait_for_pass(struct session *s, struct epoll_event *evs, int max, bool unwind_now);

#endif
