/* SPDX-License-Identifier: GPL-2.0-only */
/* handoff_wake.h: how a thread that hands work to another (the drain thread
 * its records to the writer) wakes it: by a byte in a pipe, whose write the
 * kernel takes as a hint that the waker will wait soon (a sync wakeup,
 * pipe_write's), so the scheduler may put the woken thread on the waker's
 * CPU, where a condition variable's futex gives no such hint and the
 * woken thread goes back to the CPU it last ran on even when a traced
 * program is running there and the waker's CPU is about to idle. */
#ifndef RINGTRACE_HANDOFF_WAKE_H
#define RINGTRACE_HANDOFF_WAKE_H

#include <stdbool.h>

struct handoff_wake {
	int rd, wr; /* the pipe's ends, both O_NONBLOCK; -1 when not open */
};

/* Opens the pipe: 0, or -errno. */
int handoff_wake_init(struct handoff_wake *w);
void handoff_wake_close(struct handoff_wake *w);

/* Wakes the thread waiting in handoff_wake_wait, or the next one to wait
 * there (a wakeup is never lost: the byte stays until it is read). */
void handoff_wake_signal(struct handoff_wake *w);

/* Waits up to timeout_ms for a wakeup and takes those given so far (up to
 * 256 at once: more wake the next wait at once): whether there was one. */
bool handoff_wake_wait(struct handoff_wake *w, int timeout_ms);

#endif
