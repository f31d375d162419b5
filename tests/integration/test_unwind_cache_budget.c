/* SPDX-License-Identifier: GPL-2.0-only */
/* test_unwind_cache_budget.c: the unwind cache stays within
 * --unwind-cache-size when a user's process maps many distinct copies of a
 * library (each a table of its own, keyed by inode), recording after
 * recording, touched in between for new keys: root's record -g -p of it
 * evicts the least recently used entries, keeps at most its share of the
 * user's tables, and counts both in its totals. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_util.h"

/* The attack's: 80 copies of libc (~430 KiB of table each, 35 MB in all). */
#define COPIES 80
#define BUDGET_TEXT "8M"
#define BUDGET (8ull << 20)
/* Entries of an earlier recording, root's (by build-id), filling most of the
 * budget, least recently used of all. */
#define OLD_ENTRIES 7
#define OLD_ENTRY_BYTES 1000000

/* The user the copies and the process mapping them belong to. */
#define USER_ID 65534

/* The test's directory and the user's process: removed and killed by the
 * teardown, whether the test passed or not (the copies take 150 MB). */
static char *work;
static pid_t mapper;

static int teardown(void **state)
{
	(void)state;
	if (mapper > 0) {
		kill(mapper, SIGKILL);
		tu_wait_gone(mapper, 5);
		mapper = 0;
	}
	if (work) {
		tu_rmtree(work);
		free(work);
		work = NULL;
	}
	return 0;
}

/* What record's totals say of the cache. */
struct cache_totals {
	unsigned long read, kept, evicted, over_share, no_room;
	double evicted_mib;
};

static void cache_totals_of(const char *out, struct cache_totals *t)
{
	const char *line = strstr(out, "ringtrace: unwind tables: ");
	const char *at = line ? strstr(line, " read from the cache ") : NULL;

	if (!at)
		fail_msg("no totals of the tables:\n%s", out);
	while (at > line && at[-1] != '(')
		at--;
	t->read = strtoul(at, NULL, 10);
	at = strchr(strstr(at, " read from the cache "), ',');
	if (!at || sscanf(at, ", %lu kept there, %lu evicted from it (%lf MiB: least recently used, "
			  "for room within --unwind-cache-size), %lu not kept (over the cache's share "
			  "for users' files), %lu not kept (no room)",
			  &t->kept, &t->evicted, &t->evicted_mib, &t->over_share, &t->no_room) != 5)
		fail_msg("no counts of the cache in the totals:\n%s", line);
}

/* Bytes the cache's files in dir take on the disk (du's): its entries and
 * temporary files (not the foreign file the test puts there). */
static unsigned long long disk_bytes(const char *dir)
{
	char *out = NULL;
	unsigned long long bytes;

	assert_int_equal(tu_sh(&out, "cd %s && find . -mindepth 1 -maxdepth 1 -type f \\( -name 'b-*' -o "
				     "-name 'i-*' -o -name '.tmp-*' \\) -printf '%%b\\n' | "
				     "awk '{ s += $1 * 512 } END { printf \"%%d\\n\", s }'", dir), 0);
	bytes = strtoull(out, NULL, 10);
	free(out);
	return bytes;
}

/* Records pid with -g, the cache in cache within BUDGET_TEXT, for seconds. */
static char *record_pid(const char *cache, pid_t pid, const char *seconds)
{
	char *out = NULL;
	int rc = tu_sh(&out, "%s record -v -g -F 99 --unwind-cache %s --unwind-cache-size "
			     BUDGET_TEXT " -p %d --force -o %s/rec -- sleep %s 2>&1",
		       tu_ringtrace(), cache, (int)pid, work, seconds);

	if (rc)
		fail_msg("record failed (%d):\n%s", rc, out);
	return out;
}

static void test_copies_of_a_library_within_budget(void **state)
{
	char cache[4096 + 16], *out = NULL;
	struct cache_totals first, again;
	unsigned long kept = 0, evicted = 0, over_share;
	unsigned long long held;
	int ready = 0;

	(void)state;
	tu_skip_unless_possible();
	work = tu_tempdir();
	snprintf(cache, sizeof(cache), "%s/cache", work);
	/* the user's copies (a table each, keyed by inode: not root's), and
	 * root's cache as an earlier recording left it */
	if (tu_sh(&out, "cd %s && chmod 755 . && mkdir u && for i in $(seq %d); do "
			"cp /lib/x86_64-linux-gnu/libc.so.6 u/libc-$i.so; done && chown -R %d:%d u && "
			"mkdir -m 700 cache && for i in $(seq %d); do "
			"head -c %d /dev/zero > cache/b-01d0000$i; done && "
			"touch -d '2020-01-01' cache/b-01d* && "
			"echo notes > cache/notes && ln -s ../u/libc-1.so cache/b-aa 2>&1",
		  work, COPIES, USER_ID, USER_ID, OLD_ENTRIES, OLD_ENTRY_BYTES))
		fail_msg("cannot set up the copies: %s", out);
	free(out);
	held = disk_bytes(cache);
	print_message("before: %llu bytes in the cache\n", held);
	assert_true(held < BUDGET);
	/* the user's process maps every copy executable and waits */
	mapper = tu_start("cd %s/u && exec setpriv --reuid=%d --regid=%d --clear-groups "
			  "/usr/bin/python3 -c '"
			  "import mmap, sys, time\n"
			  "files = [open(p, \"rb\") for p in sys.argv[1:]]\n"
			  "maps = [mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ | mmap.PROT_EXEC)"
			  " for f in files]\n"
			  "open(\"ready\", \"w\").close()\n"
			  "time.sleep(120)' $(ls libc-*.so)",
			  work, USER_ID, USER_ID);
	for (int i = 0; i < 100 && !ready; i++) {
		char path[4096 + 16];

		snprintf(path, sizeof(path), "%s/u/ready", work);
		ready = !access(path, F_OK);
		if (!ready)
			usleep(100 * 1000);
	}
	assert_true(ready);

	out = record_pid(cache, mapper, "4");
	held = disk_bytes(cache);
	print_message("first recording: %llu bytes in the cache\n", held);
	assert_true(held <= BUDGET);
	cache_totals_of(out, &first);
	print_message("first recording: %lu kept, %lu evicted (%.1f MiB), %lu not kept (users' "
		      "share), %lu not kept (no room)\n",
		      first.kept, first.evicted, first.evicted_mib, first.over_share, first.no_room);
	free(out);
	assert_true(first.kept >= 1);
	/* the earlier recording's entries, least recently used, made room */
	assert_true(first.evicted >= 1);
	over_share = first.over_share;

	/* touched: every copy a new key, again, recording after recording;
	 * once the cache is full, each makes its room */
	for (int run = 0; run < 3; run++) {
		assert_int_equal(tu_sh(&out, "touch %s/u/libc-*.so", work), 0);
		free(out);
		out = record_pid(cache, mapper, "4");
		held = disk_bytes(cache);
		print_message("after touch %d: %llu bytes in the cache\n", run + 1, held);
		assert_true(held <= BUDGET);
		cache_totals_of(out, &again);
		print_message("after touch %d: %lu kept, %lu evicted (%.1f MiB), %lu not kept (users' "
			      "share), %lu not kept (no room)\n",
			      run + 1, again.kept, again.evicted, again.evicted_mib, again.over_share,
			      again.no_room);
		free(out);
		over_share += again.over_share;
		kept += again.kept;
		evicted += again.evicted;
	}
	assert_true(kept >= 3);
	assert_true(evicted >= 1);
	/* what a recording keeps of the user's tables: a quarter of the budget
	 * (the 80 tables take 35 MB; a slow run compiles fewer in its time) */
	assert_true(over_share >= 4);
	/* what is not the cache's own is left alone */
	assert_int_equal(tu_sh(&out, "cd %s/cache && test -f notes && test -L b-aa && "
				     "cmp -s /lib/x86_64-linux-gnu/libc.so.6 ../u/libc-1.so", work), 0);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_copies_of_a_library_within_budget, teardown),
	};

	if (system("command -v setpriv >/dev/null && test -x /usr/bin/python3"))
		tu_set_skip_reason("setpriv or /usr/bin/python3 is missing (make deps)");
	return cmocka_run_group_tests(tests, NULL, tu_stop_left);
}
