/* SPDX-License-Identifier: GPL-2.0-only */
/* test_go_stacks.c: -g stacks of a Go program (tools/gogen) where Go's
 * runtime switches stacks (systemstack, mcall, its signal handler on the
 * gsignal stack), against perf's frame-pointer stacks of the same program:
 * ringtrace's reach the program's own code, and the goroutine's or
 * thread's first frame, as often as perf's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

static char symgen_dir[PATH_MAX];

/* Of one program's samples in `perf script -F comm,ip,sym` text (ringtrace's
 * script prints the same): all of them; those through the stack switch;
 * those of them reaching the program's code; those whose last frame is where
 * a goroutine's or thread's stack begins. */
struct go_counts {
	unsigned long samples, switched, switched_reaching, rooted;
};

/* The last frame's symbol of a script block's frame lines. */
static bool rooted(const char *block)
{
	static const char *const roots[] = { " runtime.goexit", " runtime.mstart",
					     " runtime.rt0_go" };
	const char *last = strrchr(block, '\n');

	last = last ? last : block;
	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++)
		if (strstr(last, roots[i]))
			return true;
	return false;
}

static void count_blocks(const char *script, const char *through, const char *reaching,
			 struct go_counts *c)
{
	memset(c, 0, sizeof(*c));
	for (const char *block = script; block && *block;) {
		const char *end = strstr(block, "\n\n");
		char *b = strndup(block, end ? (size_t)(end - block) : strlen(block));

		assert_non_null(b);
		if (!strncmp(b + strspn(b, "\n "), "gogen", 5)) {
			c->samples++;
			c->rooted += rooted(b);
			if (strstr(b, through)) {
				c->switched++;
				c->switched_reaching += strstr(b, reaching) != NULL;
			}
		}
		free(b);
		block = end ? end + 2 : NULL;
	}
}

/* gogen MODE for ms, recorded by ringtrace -g (*ours) and perf -g (*perf's). */
static void record_both(const char *mode, int ms, const char *through, const char *reaching,
			struct go_counts *ours, struct go_counts *perfs)
{
	char *dir = tu_tempdir(), *out = NULL;
	int rc;

	rc = tu_sh(&out, "%s record -g --force -o %s/rt -- %s/gogen %s %d 2>&1 && "
			 "%s script -i %s/rt -F comm,ip,sym",
		   tu_ringtrace(), dir, symgen_dir, mode, ms, tu_ringtrace(), dir);
	if (rc)
		fail_msg("ringtrace record -g -- gogen %s failed:\n%s", mode, out);
	count_blocks(out, through, reaching, ours);
	free(out);
	rc = tu_sh(&out, "perf record -q -g -o %s/perf.data -- %s/gogen %s %d 2>&1 && "
			 "perf script -i %s/perf.data -F comm,ip,sym 2>/dev/null",
		   dir, symgen_dir, mode, ms, dir);
	if (rc)
		fail_msg("perf record -g -- gogen %s failed:\n%s", mode, out);
	count_blocks(out, through, reaching, perfs);
	free(out);
	tu_rmtree(dir);
	free(dir);
	print_message("%s %d ms: ringtrace %lu of %lu samples through %s reach %s, %lu of %lu "
		      "rooted; perf %lu of %lu, %lu of %lu\n",
		      mode, ms, ours->switched_reaching, ours->switched, through, reaching,
		      ours->rooted, ours->samples, perfs->switched_reaching, perfs->switched,
		      perfs->rooted, perfs->samples);
}

/* At least 95%, and no more than 3 points under perf's share. */
static void expect_share(unsigned long part, unsigned long all, unsigned long perf_part,
			 unsigned long perf_all, const char *what)
{
	if (part * 100 < all * 95 || (perf_all && part * 100 * perf_all + 3 * all * perf_all <
							   perf_part * 100 * all))
		fail_msg("%s: %lu of %lu (perf: %lu of %lu)", what, part, all, perf_part, perf_all);
}

static void check_mode(const char *mode, const char *through, const char *reaching)
{
	struct go_counts ours, perfs;

	tu_skip_unless_possible();
	/* the share needs samples through the switch: 30 at least, the run
	 * made three times longer until there are (the signal mode's share
	 * in the handler went from a quarter of the samples on one host to
	 * 0.2% on another, beside load) */
	for (int ms = 1500;; ms *= 3) {
		record_both(mode, ms, through, reaching, &ours, &perfs);
		if (ours.switched >= 30 || ms >= 13500)
			break;
	}
	if (ours.switched < 30)
		fail_msg("%s: %lu samples through %s in 13.5 s: too few for a share", mode,
			 ours.switched, through);
	expect_share(ours.switched_reaching, ours.switched, perfs.switched_reaching,
		     perfs.switched, "samples through the switch reaching the program's code");
	expect_share(ours.rooted, ours.samples, perfs.rooted, perfs.samples,
		     "samples ending where a stack begins");
}

/* runtime.ReadMemStats's work runs on the thread's g0 stack through
 * runtime.systemstack: its stacks go on to main.main on the goroutine's
 * (before: every one ended at runtime.systemstack). */
static void test_go_systemstack(void **state)
{
	(void)state;
	check_mode("systemstack", " runtime.systemstack", " main.main");
}

/* A goroutine parking goes to the scheduler through runtime.mcall. */
static void test_go_mcall(void **state)
{
	(void)state;
	check_mode("mcall", " runtime.mcall", " main.");
}

/* The runtime's signal handler runs on the gsignal stack, from
 * runtime.sigtramp; its return address is runtime.sigreturn's, a signal
 * frame under it (before: the walk ended at the handler). The program's
 * code it reaches: main.main, or the goroutine sending the signals
 * (main.spin.func1, under runtime.goexit), whose thread the runtime
 * signals too. */
static void test_go_signal_handler(void **state)
{
	(void)state;
	check_mode("signal", " runtime.sigtramp", " main.");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_go_systemstack),
		cmocka_unit_test(test_go_mcall),
		cmocka_unit_test(test_go_signal_handler),
	};

	tu_set_skip_reason(tu_symgen_skip_reason());
	snprintf(symgen_dir, sizeof(symgen_dir), "%s", tu_symgen_dir());
	return cmocka_run_group_tests(tests, NULL, NULL);
}
