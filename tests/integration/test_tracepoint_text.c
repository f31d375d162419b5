/* SPDX-License-Identifier: GPL-2.0-only */
/* test_tracepoint_text.c: perf script's text for every tracepoint of this
 * kernel. Every tracepoint (sched, irq, ext4, the syscalls, kmem, net, ...;
 * 200 to a recording, under the 254 a recording takes) is recorded on every
 * CPU beside a workload that fires many of them (files, processes, signals,
 * sockets), and ringtrace script of each recording must equal perf script's,
 * line for line. README lists no difference, so any is a failure. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdbool.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_util.h"

#define EVENTS_DIR "/sys/kernel/tracing/events"

/* Files, a sync, a directory walk, a signal, a TCP exchange over loopback
 * and a UDP datagram: a script written into the test's directory. */
static const char workload[] =
	"d=$(mktemp -d)\n"
	"dd if=/dev/zero of=$d/f bs=64k count=32 conv=fsync 2>/dev/null; cat $d/f >/dev/null; sync\n"
	"ls -R /usr/share/doc >/dev/null 2>&1\n"
	"sleep 0.05 & kill -USR1 $! 2>/dev/null; wait\n"
	"python3 -c 'import socket, threading\n"
	"s = socket.socket(); s.bind((\"127.0.0.1\", 0)); s.listen(1)\n"
	"def serve():\n"
	"    c, _ = s.accept(); c.sendall(b\"x\" * 100000); c.close()\n"
	"t = threading.Thread(target=serve); t.start()\n"
	"c = socket.create_connection(s.getsockname())\n"
	"while c.recv(65536): pass\n"
	"t.join()\n"
	"socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b\"hi\", (\"127.0.0.1\", 9))'\n"
	"rm -rf $d\n";

struct sweep {
	char *dir;
	unsigned int groups, events, fired, lines, differing;
	char failures[8192];
};

/* Records the tracepoints spec names and compares the two scripts. */
static void sweep_one(struct sweep *w, const char *spec)
{
	char *out = NULL;
	int rc;

	rc = tu_sh(&out, "rm -rf %s/rec && %s record -a -q -e '%s' -o %s/rec -- sh %s/work.sh "
			 ">/dev/null 2>%s/record.err; echo $?",
		   w->dir, tu_ringtrace(), spec, w->dir, w->dir, w->dir);
	w->groups++;
	if (rc || atoi(out) != 0) {
		char *err = NULL;

		/* its errors, not the totals and losses before them */
		tu_sh(&err, "grep -v '^ringtrace: \\(recorded\\|lost\\) ' %s/record.err | head -c 600",
		      w->dir);
		snprintf(w->failures + strlen(w->failures), sizeof(w->failures) - strlen(w->failures),
			 "record failed (rc %d, %s): %s\n  of %.120s...\n", rc, out ? out : "",
			 err ? err : "", spec);
		free(err);
		free(out);
		return;
	}
	free(out);
	rc = tu_sh(&out, "cd %s && %s script -i rec > ours 2>/dev/null && "
			 "perf script -i rec > perfs 2>/dev/null; "
			 "echo $(wc -l < perfs) $(diff ours perfs | grep -c '^[<>]')",
		   w->dir, tu_ringtrace());
	{
		unsigned int lines = 0, differ = 0;

		if (rc || sscanf(out, "%u %u", &lines, &differ) != 2) {
			snprintf(w->failures + strlen(w->failures),
				 sizeof(w->failures) - strlen(w->failures),
				 "script failed (rc %d): %s\n  of %.120s...\n", rc, out ? out : "",
				 spec);
		} else if (differ) {
			char *diff = NULL;

			tu_sh(&diff, "cd %s && diff ours perfs | head -4 | cut -c1-240", w->dir);
			snprintf(w->failures + strlen(w->failures),
				 sizeof(w->failures) - strlen(w->failures),
				 "%u of %u lines differ (<: ringtrace, >: perf) of %.120s...:\n%s",
				 differ, lines, spec, diff);
			free(diff);
			w->differing++;
		}
		w->lines += lines;
		w->fired += lines > 0;
	}
	free(out);
}

/* Every tracepoint but ftrace's (the function tracer's own records, not
 * events a perf event can open), as "group:name", recorded CHUNK at a time
 * (a recording takes 254 events at most): fewer recordings, each of a few
 * groups, than one a group. */
#define CHUNK 200
struct spec {
	char *text;
	size_t len;
	unsigned int events;
};

static void add_event(struct sweep *w, struct spec *sp, const char *group, const char *name)
{
	size_t need = strlen(group) + strlen(name) + 3;

	sp->text = realloc(sp->text, sp->len + need + 1);
	assert_non_null(sp->text);
	sp->len += (size_t)sprintf(sp->text + sp->len, "%s%s:%s", sp->events ? "," : "", group,
				   name);
	w->events++;
	if (++sp->events == CHUNK) {
		sweep_one(w, sp->text);
		sp->len = 0;
		sp->events = 0;
	}
}

static void add_group(struct sweep *w, struct spec *sp, const char *group)
{
	char path[PATH_MAX];
	struct dirent **names = NULL;
	int n;

	snprintf(path, sizeof(path), EVENTS_DIR "/%s", group);
	n = scandir(path, &names, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		if (names[i]->d_type == DT_DIR && names[i]->d_name[0] != '.')
			add_event(w, sp, group, names[i]->d_name);
		free(names[i]);
	}
	free(names);
}

static void test_every_tracepoint_as_perf(void **state)
{
	struct sweep w = { 0 };
	struct spec sp = { 0 };
	struct dirent *e;
	char *out = NULL;
	DIR *d;

	(void)state;
	tu_skip_unless_possible();
	d = opendir(EVENTS_DIR);
	if (!d)
		fail_msg("SKIP would hide it: no %s (tracefs is mounted at /sys/kernel/tracing)",
			 EVENTS_DIR);
	w.dir = tu_tempdir();
	assert_int_equal(tu_sh(&out, "cat > %s/work.sh <<'EOF'\n%sEOF", w.dir, workload), 0);
	free(out);
	while ((e = readdir(d)))
		if (e->d_type == DT_DIR && e->d_name[0] != '.' && strcmp(e->d_name, "ftrace"))
			add_group(&w, &sp, e->d_name);
	closedir(d);
	if (sp.events)
		sweep_one(&w, sp.text);
	free(sp.text);
	print_message("%u recordings of %u tracepoints: %u with hits, %u lines, %u differing\n",
		      w.groups, w.events, w.fired, w.lines, w.differing);
	if (w.failures[0])
		fail_msg("ringtrace script differs from perf script:\n%s", w.failures);
	/* most recordings hold some of the workload's, or the machine's
	 * (some hold only tracepoints of hardware or file systems not here:
	 * kvm, xfs, ...) */
	assert_true(w.events > 1000);
	assert_true(w.fired * 2 >= w.groups);
	assert_true(w.lines >= 10000);
	tu_rmtree(w.dir);
	free(w.dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_tracepoint_as_perf),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
