/* SPDX-License-Identifier: GPL-2.0-only */
/* sigbus_guard.c: runs a function that reads a file through a mapping, and
 * turns the SIGBUS of that file shrinking meanwhile into an error return. */
#include "sys/sigbus_guard.h"

#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>

/* The calling thread's way out, while it runs a guarded function. */
static __thread sigjmp_buf *escape;
static struct sigaction before; /* the action a SIGBUS had before ours */
static pthread_once_t installed = PTHREAD_ONCE_INIT;

static void on_sigbus(int sig, siginfo_t *info, void *uc)
{
	(void)info;
	(void)uc;
	if (escape)
		siglongjmp(*escape, 1);
	/* not ours: the action before (or the default) takes the same fault
	 * again when the instruction is retried */
	sigaction(sig, &before, NULL);
}

static void install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigbus;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, &before);
}

int sigbus_guard_run(sigbus_guarded_fn fn, void *arg)
{
	sigjmp_buf here, *outer = escape;
	volatile int ret;

	pthread_once(&installed, install);
	if (sigsetjmp(here, 1)) {
		escape = outer;
		return SIGBUS_GUARD_FAULT;
	}
	escape = &here;
	ret = fn(arg);
	escape = outer;
	return ret;
}
