/* SPDX-License-Identifier: GPL-2.0-only */
/* test_copies_touched.c: a recording of some processes keeps copies of the
 * containers' binaries its samples touch, as perf's build-id pass keeps the
 * binaries its samples hit, and not the others they map; -a keeps all of
 * them, as it did. The container: a binary and a library (a copy of libz,
 * preloaded: mapped, never run) on a tmpfs only its mount namespace sees. */
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
#include <unistd.h>

#include "test_util.h"

#define LIBZ "/usr/lib/x86_64-linux-gnu/libz.so.1"

static char symgen_dir[PATH_MAX];

struct container {
	char *work;
	int pid;
	char binary_id[64], library_id[64]; /* their build-ids, hex */
};

static void build_id_of(const char *path, char *id, size_t len)
{
	char *out = NULL;

	assert_int_equal(tu_sh(&out, "readelf -n %s | sed -n 's/.*Build ID: //p'", path), 0);
	out[strcspn(out, "\n")] = '\0';
	assert_true(strlen(out) > 8);
	snprintf(id, len, "%s", out);
	free(out);
}

/* The container's process spins in its binary for 30 s at most. */
static void start_container(struct container *c)
{
	char *out = NULL, path[PATH_MAX + 16];

	c->work = tu_tempdir();
	snprintf(path, sizeof(path), "%s/symgen_stripped", symgen_dir);
	build_id_of(path, c->binary_id, sizeof(c->binary_id));
	build_id_of(LIBZ, c->library_id, sizeof(c->library_id));
	assert_int_equal(tu_sh(&out, "mkdir %s/ct && (unshare -m --propagation private sh -c "
				     "'mount -t tmpfs none %s/ct && cp %s %s/ct/contained && cp %s %s/ct/libz.so.1 && "
				     "LD_PRELOAD=%s/ct/libz.so.1 exec %s/ct/contained 30' >/dev/null 2>&1 &) && "
				     "for i in $(seq 50); do p=$(pgrep -f '^%s/ct/contained') && "
				     "grep -q libz /proc/$p/maps && break; sleep 0.1; done; echo $p",
			       c->work, c->work, path, c->work, LIBZ, c->work, c->work, c->work, c->work),
			 0);
	c->pid = atoi(out);
	free(out);
	assert_true(c->pid > 0);
}

static void stop_container(struct container *c)
{
	char *out = NULL;

	tu_sh(&out, "pkill -f '^%s/ct/contained'; sleep 0.2", c->work);
	free(out);
	tu_rmtree(c->work);
	free(c->work);
}

/* Records 1 s with options; then whether DIR keeps a copy under each build-id. */
static void record_copies(const struct container *c, const char *options, bool *binary,
			  bool *library)
{
	char *dir = tu_tempdir(), *out = NULL;

	assert_int_equal(tu_sh(&out, "%s record %s -o %s/rec -- sleep 1 2>&1 && "
				     "find %s/rec/.build-id %s/rec/.build-id-ns -type f 2>/dev/null | tr / ' '",
			       tu_ringtrace(), options, dir, dir, dir),
			 0);
	*binary = strstr(out, c->binary_id + 2) != NULL;
	*library = strstr(out, c->library_id + 2) != NULL;
	print_message("record %s: binary %s, library %s\n", options, *binary ? "kept" : "not kept",
		      *library ? "kept" : "not kept");
	free(out);
	tu_rmtree(dir);
	free(dir);
}

static void test_pid_keeps_what_samples_touch(void **state)
{
	struct container c;
	char options[64];
	bool binary, library;

	(void)state;
	tu_skip_unless_possible();
	start_container(&c);
	snprintf(options, sizeof(options), "-p %d", c.pid);
	record_copies(&c, options, &binary, &library);
	assert_true(binary && !library);
	snprintf(options, sizeof(options), "-g -p %d", c.pid);
	record_copies(&c, options, &binary, &library);
	assert_true(binary && !library);
	/* the machine's recording: every binary mapped, as before */
	record_copies(&c, "-a", &binary, &library);
	assert_true(binary && library);
	stop_container(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pid_keeps_what_samples_touch),
	};

	tu_set_skip_reason(tu_symgen_skip_reason());
	snprintf(symgen_dir, sizeof(symgen_dir), "%s", tu_symgen_dir());
	return cmocka_run_group_tests(tests, NULL, NULL);
}
