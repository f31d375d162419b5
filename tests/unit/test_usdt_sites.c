/* SPDX-License-Identifier: GPL-2.0-only */
/* test_usdt_sites.c: where sdt_notes puts a USDT probe's sites and semaphore
 * in the file, checked on this very test's own probe (the site's byte is
 * the nop <sys/sdt.h> wrote; the semaphore's offset is where the kernel
 * mapped the variable from, by /proc/self/maps), and usdt_args' reading of
 * argument specs into usdt.bpf.h's layout. */
#define _SDT_HAS_SEMAPHORES 1
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <asm/ptrace.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sdt.h>
#include <unistd.h>

#include "symbols/sdt_notes.h"
#include "capture/usdt_spec.h"

unsigned short ringtrace_unit_here_semaphore __attribute__((section(".probes"), used));

__attribute__((noinline)) static long fire(long a, long b)
{
	DTRACE_PROBE2(ringtrace_unit, here, a, b);
	return a + b;
}

/* The file offset addr was mapped from, in /proc/self/maps; 0 if none. */
static uint64_t mapped_offset(uintptr_t addr)
{
	FILE *f = fopen("/proc/self/maps", "r");
	unsigned long long start, end, pgoff;
	char line[1024];
	uint64_t off = 0;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx-%llx %*s %llx", &start, &end, &pgoff) == 3 && addr >= start &&
		    addr < end && strstr(line, "test_usdt_sites"))
			off = addr - start + pgoff;
	fclose(f);
	return off;
}

static void test_own_probe_placed(void **state)
{
	struct sdt_probe *probes, *p = NULL;
	char err[256], path[64];
	uint8_t byte = 0;
	size_t nr;
	int fd;

	(void)state;
	assert_int_equal(fire(1, 2), 3);
	snprintf(path, sizeof(path), "/proc/%d/exe", getpid());
	assert_int_equal(sdt_notes_read(path, &probes, &nr, err, sizeof(err)), 0);
	for (size_t i = 0; i < nr; i++)
		if (!strcmp(probes[i].provider, "ringtrace_unit") && !strcmp(probes[i].name, "here"))
			p = &probes[i];
	assert_non_null(p);
	assert_int_equal(p->nr_args, 2);
	assert_true(p->has_semaphore);
	/* the site: the nop <sys/sdt.h> put there */
	assert_true(p->offset > 0);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, &byte, 1, (off_t)p->offset), 1);
	close(fd);
	assert_int_equal(byte, 0x90);
	/* the semaphore: where the kernel mapped the variable from */
	assert_int_equal(p->semaphore_offset,
			 mapped_offset((uintptr_t)&ringtrace_unit_here_semaphore));
	free(probes);
}

static void test_specs_read(void **state)
{
	struct usdt_spec s;
	char err[256];

	(void)state;
	assert_int_equal(usdt_spec_parse("-4@%esi 8@-8(%rbp) 4@$5 1@%r9b 2@(%rax)", 7, &s, err,
					 sizeof(err)),
			 0);
	assert_int_equal(s.arg_cnt, 5);
	assert_int_equal(s.usdt_cookie, 7);
	assert_int_equal(s.args[0].arg_type, USDT_ARG_REG);
	assert_int_equal(s.args[0].reg_off, offsetof(struct pt_regs, rsi));
	assert_true(s.args[0].arg_signed);
	assert_int_equal(s.args[0].arg_bitshift, 32);
	assert_int_equal(s.args[1].arg_type, USDT_ARG_REG_DEREF);
	assert_int_equal(s.args[1].reg_off, offsetof(struct pt_regs, rbp));
	assert_int_equal((int64_t)s.args[1].val_off, -8);
	assert_false(s.args[1].arg_signed);
	assert_int_equal(s.args[1].arg_bitshift, 0);
	assert_int_equal(s.args[2].arg_type, USDT_ARG_CONST);
	assert_int_equal(s.args[2].val_off, 5);
	assert_int_equal(s.args[3].reg_off, offsetof(struct pt_regs, r9));
	assert_int_equal(s.args[3].arg_bitshift, 56);
	assert_int_equal(s.args[4].arg_type, USDT_ARG_REG_DEREF);
	assert_int_equal(s.args[4].val_off, 0);
	assert_int_equal(usdt_spec_parse("", 0, &s, err, sizeof(err)), 0);
	assert_int_equal(s.arg_cnt, 0);
}

static void test_bad_specs_refused(void **state)
{
	static const char *const bad[] = {
		"8@%xyz", "3@%rax", "8@foo", "8@%rax)", "8@-8(%rbp", "@%rax",
		"8@%rax 8@%rax 8@%rax 8@%rax 8@%rax 8@%rax 8@%rax 8@%rax 8@%rax 8@%rax 8@%rax "
		"8@%rax 8@%rax",
	};
	struct usdt_spec s;
	char err[256];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_equal(usdt_spec_parse(bad[i], 0, &s, err, sizeof(err)), -EINVAL);
		assert_non_null(strstr(err, "USDT spec"));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_own_probe_placed),
		cmocka_unit_test(test_specs_read),
		cmocka_unit_test(test_bad_specs_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
