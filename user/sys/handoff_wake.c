/* SPDX-License-Identifier: GPL-2.0-only */
/* handoff_wake.c: a thread's wakeup by one that hands it work, through a pipe
 * (see handoff_wake.h). */
#include "sys/handoff_wake.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

int handoff_wake_init(struct handoff_wake *w)
{
	int fds[2];

	w->rd = w->wr = -1;
	if (pipe2(fds, O_NONBLOCK | O_CLOEXEC))
		return -errno;
	w->rd = fds[0];
	w->wr = fds[1];
	return 0;
}

void handoff_wake_close(struct handoff_wake *w)
{
	if (w->rd >= 0)
		close(w->rd);
	if (w->wr >= 0)
		close(w->wr);
	w->rd = w->wr = -1;
}

void handoff_wake_signal(struct handoff_wake *w)
{
	char b = 1;

	/* a full pipe (EAGAIN) already holds a wakeup */
	while (write(w->wr, &b, 1) < 0 && errno == EINTR)
		;
}

bool handoff_wake_wait(struct handoff_wake *w, int timeout_ms)
{
	struct pollfd p = { .fd = w->rd, .events = POLLIN };
	char buf[256];

	if (poll(&p, 1, timeout_ms) <= 0)
		return false;
	/* one read: wakeups past 256 wake it once more (a pipe holds 64 KiB) */
	return read(w->rd, buf, sizeof(buf)) > 0;
}
