/* SPDX-License-Identifier: GPL-2.0-only */
/* symgen_inline.c: one function inlined into two callers, each of which runs
 * it for half the time: perf's --children keeps a row "mix (inlined)" per
 * function it is inlined in (while the two callers' ranges do not touch:
 * apart() lies between them). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long seed = 7;

static inline __attribute__((always_inline)) unsigned long mix(unsigned long x, long n)
{
	for (long i = 0; i < n; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul + (x >> 29);
	return x;
}

__attribute__((noinline)) static unsigned long first(long n)
{
	return mix(seed, n) ^ 1;
}

/* Keeps first and second apart in the file (clang lays the static
 * functions out in the order main calls them): perf merges the rows of a
 * function inlined into two whose ranges meet. */
__attribute__((noinline)) static unsigned long apart(unsigned long x)
{
	return x * 3;
}

__attribute__((noinline)) static unsigned long second(long n)
{
	return mix(seed + 1, n) ^ 2;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* argv[1]: seconds (default 1), spent in first and second by turns. */
int main(int argc, char **argv)
{
	double end = now() + (argc > 1 ? atof(argv[1]) : 1.0);
	unsigned long sum = 0;

	while (now() < end) {
		sum += first(1000000);
		sum = apart(sum);
		sum += second(1000000);
	}
	printf("%lu\n", sum & 1);
	return 0;
}
