/* SPDX-License-Identifier: GPL-2.0-only */
/* symgen_names.c: a program whose time goes where perf's names are hard to get
 * right: libm through the PLT (sin, exp, logf), brk/sbrk, and the vdso's clock_gettime. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/* Inputs the compiler cannot fold. */
static volatile double din = 0.5;
static volatile float fin = 1.5f;

__attribute__((noinline)) static double libm_round(int n)
{
	double sum = 0;

	for (int i = 0; i < n; i++) {
		sum += sin(din + i);
		sum += exp(din * (i & 7));
		sum += logf(fin + (float)i);
	}
	return sum;
}

__attribute__((noinline)) static long brk_round(int n)
{
	long moved = 0;

	for (int i = 0; i < n; i++) {
		char *p = sbrk(4096);

		if (p == (void *)-1)
			break;
		moved += p[0] = 1;
		sbrk(-4096);
	}
	return moved;
}

__attribute__((noinline)) static long vdso_round(int n)
{
	struct timespec t;
	long sum = 0;

	for (int i = 0; i < n; i++) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		sum += t.tv_nsec & 1;
	}
	return sum;
}

/* CPU time, not wall time: a busy machine delays the run, it does not thin
 * the samples out. */
static double cpu_seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* argv[1]: seconds of CPU time to spend (1 by default). */
int main(int argc, char **argv)
{
	double end = cpu_seconds() + (argc > 1 ? atof(argv[1]) : 1.0);
	double sum = 0;

	while (cpu_seconds() < end) {
		sum += libm_round(20000);
		sum += (double)brk_round(2);
		sum += (double)vdso_round(3000);
	}
	printf("%d\n", sum > 0);
	return 0;
}
