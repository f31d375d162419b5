/* SPDX-License-Identifier: GPL-2.0-only */
/* test_proc_stat.c: this process's stat line read whole whatever its comm
 * holds (spaces, parentheses: the fields are read after the last ')'), a
 * process that is gone named as gone. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "sys/proc_stat.h"

static void test_self_with_hostile_comm(void **state)
{
	static const char *const comms[] = { "plain", "a) b (c", ") R 1 2 3 )", " " };
	struct proc_stat self, again;

	(void)state;
	for (size_t i = 0; i < sizeof(comms) / sizeof(comms[0]); i++) {
		assert_int_equal(prctl(PR_SET_NAME, comms[i], 0, 0, 0), 0);
		assert_int_equal(proc_stat_read(0, &self), 0);
		assert_int_equal(proc_stat_read((uint32_t)getpid(), &again), 0);
		assert_int_equal(self.state, 'R');
		assert_int_equal(self.ppid, (uint32_t)getppid());
		assert_int_equal(again.ppid, self.ppid);
		assert_true(self.start_ticks > 0);
		assert_int_equal(again.start_ticks, self.start_ticks);
		assert_true(self.vsize > 0);
		assert_true(self.rss > 0);
	}
}

static void test_gone_process(void **state)
{
	struct proc_stat st;
	int r;

	(void)state;
	errno = 0;
	/* above the kernel's PID_MAX_LIMIT (4M): no process has it */
	r = proc_stat_read(4194304 + 7, &st);
	assert_true(r == -ENOENT || r == -ESRCH);
	assert_int_equal(errno, -r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_self_with_hostile_comm),
		cmocka_unit_test(test_gone_process),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
