/* SPDX-License-Identifier: GPL-2.0-only */
/* interrupt.c: SIGINT or SIGTERM while a command reads a recording: a flag
 * its reading loops check, and the process ended by the signal if they do
 * not stop in time, or at a second signal. */
#include "sys/interrupt.h"

#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "lib/monotonic.h"

static volatile sig_atomic_t caught, stopping;
static uint64_t caught_ns;

/* Async-signal-safe: signal, sigprocmask, raise. */
static void die_by(int sig)
{
	sigset_t set;

	signal(sig, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
}

static void on_grace_over(int sig)
{
	(void)sig;
	if (caught && !stopping)
		die_by(caught);
}

/* Async-signal-safe: clock_gettime (monotonic_ns), setitimer (a system call). */
static void on_signal(int sig)
{
	struct itimerval grace = { .it_value = { 0, INTERRUPT_GRACE_MS * 1000 } };

	if (caught) {
		if (monotonic_ns() - caught_ns >= INTERRUPT_TWIN_MS * 1000000ULL)
			die_by(sig);
		return;
	}
	caught_ns = monotonic_ns();
	caught = sig;
	setitimer(ITIMER_REAL, &grace, NULL);
}

void interrupt_catch(void)
{
	static const int sigs[] = { SIGINT, SIGTERM };
	struct sigaction sa, old;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sa.sa_handler = on_grace_over;
	sigaction(SIGALRM, &sa, NULL);
	sa.sa_handler = on_signal;
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (sigaction(sigs[i], NULL, &old) || old.sa_handler != SIG_IGN)
			sigaction(sigs[i], &sa, NULL);
}

int interrupt_pending(void)
{
	return caught;
}

const char *interrupt_name(void)
{
	return caught == SIGTERM ? "SIGTERM" : "SIGINT";
}

void interrupt_stopping(void)
{
	struct itimerval off;

	memset(&off, 0, sizeof(off));
	stopping = 1;
	setitimer(ITIMER_REAL, &off, NULL);
}

void interrupt_end(void)
{
	int sig = caught;

	if (!sig)
		return;
	die_by(sig);
	_exit(128 + sig); /* not reached: the default action of both ends the process */
}
