/* SPDX-License-Identifier: GPL-2.0-only */
/* symgen_stripped.c: a program stripped of its .symtab whose hot function is
 * exported (-rdynamic), so only .dynsym names it: for the symbol tests. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

__attribute__((noinline, visibility("default"))) unsigned long symgen_exported_spin(int rounds)
{
	volatile unsigned long x = 0;

	for (int i = 0; i < rounds; i++)
		x = x + (unsigned long)i * 7;
	return x;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double end = now() + (argc > 1 ? atof(argv[1]) : 1.0);
	unsigned long sum = 0;

	while (now() < end)
		sum += symgen_exported_spin(100000);
	printf("%lu\n", sum & 1);
	return 0;
}
