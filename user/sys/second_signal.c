/* SPDX-License-Identifier: GPL-2.0-only */
/* second_signal.c: once a first SIGINT or SIGTERM is being handled (a clean
 * stop), a second one ends the process at once, unless it is the first's twin. */
#include "sys/second_signal.h"

#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>

#include "lib/monotonic.h"

static volatile sig_atomic_t armed;
static uint64_t armed_ns;

/* Async-signal-safe: clock_gettime (monotonic_ns), signal, raise. */
static void on_second(int sig)
{
	if (armed && monotonic_ns() - armed_ns < SECOND_SIGNAL_GRACE_NS)
		return;
	signal(sig, SIG_DFL);
	raise(sig); /* delivered as the handler returns: the default action */
}

void second_signal_arm(void)
{
	struct sigaction sa;
	sigset_t both;

	armed_ns = monotonic_ns();
	armed = 1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_second;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigemptyset(&both);
	sigaddset(&both, SIGINT);
	sigaddset(&both, SIGTERM);
	pthread_sigmask(SIG_UNBLOCK, &both, NULL);
}
