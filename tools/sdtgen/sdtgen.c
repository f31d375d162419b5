/* SPDX-License-Identifier: GPL-2.0-only */
/* sdtgen.c: a program with known USDT probes (one behind a semaphore) and a
 * known function, hit a known number of times with known values, for tests. */
#define _SDT_HAS_SEMAPHORES 1
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sdt.h>

/* Raised by whoever traces the probe (the kernel, for libbpf): tick fires
 * whatever its semaphore says, guarded only when its semaphore is raised. */
unsigned short ringtrace_test_tick_semaphore __attribute__((section(".probes"), used));
unsigned short ringtrace_test_guarded_semaphore __attribute__((section(".probes"), used));

/* The uprobe target: sdtgen_add(i, 1000) returns i + 1000. */
__attribute__((noinline)) long sdtgen_add(long a, long b)
{
	__asm__ volatile("" ::: "memory");
	return a + b;
}

/* sdtgen [COUNT [wait]]: COUNT iterations (1000); with "wait", only once a
 * SIGUSR1 arrives (a recording attached meanwhile). */
int main(int argc, char **argv)
{
	long count = argc > 1 ? strtol(argv[1], NULL, 10) : 1000, sum = 0, guarded = 0;
	sigset_t usr1;
	int sig;

	if (argc > 2 && !strcmp(argv[2], "wait")) {
		sigemptyset(&usr1);
		sigaddset(&usr1, SIGUSR1);
		sigprocmask(SIG_BLOCK, &usr1, NULL);
		printf("sdtgen: waiting for SIGUSR1\n");
		fflush(stdout);
		sigwait(&usr1, &sig);
	}
	for (long i = 1; i <= count; i++) {
		/* tick: i, -i (signed), 42 */
		DTRACE_PROBE3(ringtrace_test, tick, i, -i, 42);
		if (ringtrace_test_guarded_semaphore) {
			DTRACE_PROBE2(ringtrace_test, guarded, i, i * 2);
			guarded++;
		}
		sum += sdtgen_add(i, 1000);
	}
	printf("sdtgen: %ld iterations, %ld guarded, sum %ld\n", count, guarded, sum);
	return 0;
}
