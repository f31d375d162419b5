/* SPDX-License-Identifier: GPL-2.0-only */
/* test_v8_frames.c: a Node.js process (the image's node, V8 11.3), started before
 * the recording without flags, has its JavaScript functions in -g stacks, in their
 * order and in their thread, interpreted and optimized (inlined functions each a
 * frame), across await, around a builtin or the runtime that calls back into
 * JavaScript: in report --folded, in perf script of the same recording (given the
 * recording's map as perf reads a JIT's) and in the exporter's profiles; the
 * totals of the walk add up. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_util.h"

#define NODE "/usr/bin/node"

/* outer -> middle -> inner spinning, called again from the event loop
 * (setImmediate): hot functions V8 optimizes, inlining inner and middle
 * into outer, and outer into tick (no loop of tick's own to replace on
 * its stack). */
static const char spin_js[] =
	"function inner(n) { let s = 0; for (let i = 0; i < n; i++) s += i % 7; return s; }\n"
	"function middle(n) { return inner(n) + 1; }\n"
	"function outer(n) { return middle(n) + 1; }\n"
	"function tick() { outer(300000); setImmediate(tick); }\n"
	"setTimeout(() => process.exit(0), 1000 * Number(process.argv[2] || 600));\n"
	"tick();\n";

/* An async function resumed after each await, calling work. */
static const char async_js[] =
	"function work(n) { let s = 0; for (let i = 0; i < n; i++) s += i % 7; return s; }\n"
	"async function step(n) { await null; return work(n); }\n"
	"async function loop() { for (;;) await step(200000); }\n"
	"setTimeout(() => process.exit(0), 1000 * Number(process.argv[2] || 600));\n"
	"loop();\n";

/* A builtin calling back into JavaScript (Array.prototype.sort's comparator),
 * and V8's runtime doing so (JSON.parse's reviver), by argv[3]. */
static const char callback_js[] =
	"function cmp(a, b) { let s = 0; for (let i = 0; i < 2000; i++) s += i % 7;"
	" return a - b + (s & 0); }\n"
	"function sorter(arr) { return arr.slice().sort(cmp); }\n"
	"function reviver(k, v) { let s = 0; for (let i = 0; i < 2000; i++) s += i % 7; return v; }\n"
	"function parser(text) { return JSON.parse(text, reviver); }\n"
	"const arr = Array.from({ length: 2000 }, (_, i) => (i * 7919) % 2003);\n"
	"const text = JSON.stringify(arr);\n"
	"const end = Date.now() + 1000 * Number(process.argv[2] || 600);\n"
	"while (Date.now() < end) process.argv[3] === 'json' ? parser(text) : sorter(arr);\n";

/* A worker thread spinning in one function, the main thread in another. */
static const char worker_js[] =
	"const { Worker, isMainThread } = require('worker_threads');\n"
	"function workerSpin() { let s = 0; for (;;) for (let i = 0; i < 1e6; i++) s += i % 7; }\n"
	"function mainSpin() { let s = 0; for (;;) for (let i = 0; i < 1e6; i++) s += i % 3; }\n"
	"if (isMainThread) { new Worker(__filename);"
	" setTimeout(() => process.exit(0), 600000); mainSpin(); }\n"
	"else workerSpin();\n";

struct node {
	char *dir;
	pid_t pid;
};

/* Writes source into a directory of its own as name and starts node with
 * flags and args on it; waits a second and a half (its start, its first
 * functions run: interpreted; optimized ones in a second more, under load
 * more: warm seconds of it). */
static void start_node(struct node *n, const char *name, const char *source, const char *flags,
		       const char *args, int warm)
{
	if (access(NODE, X_OK))
		tu_skip("no node in " NODE " (make deps installs nodejs)");
	tu_skip_unless_possible();
	n->dir = tu_tempdir();
	tu_write_file(n->dir, name, source, strlen(source));
	n->pid = tu_start("exec " NODE " %s %s/%s %s > %s/out 2>&1", flags, n->dir, name, args,
			  n->dir);
	usleep(1500000 + warm * 1000000);
	assert_true(tu_running(n->pid));
}

static void stop_node(struct node *n)
{
	tu_stop(n->pid);
	tu_rmtree(n->dir);
	free(n->dir);
}

/* The walk's totals add up: every frame looked at written or kept native
 * for one reason; at least one process unwound. *inlined: the pcs of
 * optimized code written with inlined functions. */
static void js_totals_add_up(const char *log, unsigned long *inlined)
{
	unsigned long procs, all, replaced, after, typed, no_function, no_script;
	const char *line = strstr(log, "javascript: ");

	if (!line || sscanf(line, "javascript: %lu Node.js processes unwound", &procs) != 1 ||
	    !(line = strstr(line, "frames looked at ")) ||
	    sscanf(line, "frames looked at %lu: %lu written as their JavaScript function, %lu "
			 "builtins kept with their caller's function after, kept native: %lu V8's "
			 "own, %lu no function, %lu of no script",
		   &all, &replaced, &after, &typed, &no_function, &no_script) != 6 ||
	    !(line = strstr(line, "pcs of optimized code ")) ||
	    sscanf(line, "pcs of optimized code %lu written with inlined functions", inlined) != 1)
		fail_msg("no JavaScript totals:\n%s", log);
	if (!procs || !replaced || all != replaced + after + typed + no_function + no_script)
		fail_msg("the JavaScript totals do not add up:\n%s", log);
}

/* Records scope of n with -g for seconds into n->dir/rec: record's log;
 * *inlined as js_totals_add_up's. */
static char *record(const struct node *n, const char *scope, int seconds, unsigned long *inlined)
{
	char *log = tu_record_g(n->dir, scope, seconds);

	js_totals_add_up(log, inlined);
	return log;
}

/* "name (DIR/file:line)", as the recording names a function of n. */
static char *js_frame(const struct node *n, const char *name, const char *file, int line)
{
	char *s = NULL;

	assert_true(asprintf(&s, "%s (%s/%s:%d)", name, n->dir, file, line) > 0);
	return s;
}

/* spin.js run with flags: of the main thread's samples, >= 90% with
 * tick;outer;middle;inner and their lines in report --folded, and inner,
 * middle, outer (leaf first, one after another) in perf script; *inlined
 * as js_totals_add_up's. */
static void expect_spin_frames(const char *flags, int warm, unsigned long *inlined)
{
	unsigned long total, with;
	char scope[32], *log, *text;
	const char *callers_first[4], *leaf_first[3];
	struct node n;

	start_node(&n, "spin.js", spin_js, flags, "", warm);
	callers_first[0] = js_frame(&n, "tick", "spin.js", 4);
	callers_first[1] = leaf_first[2] = js_frame(&n, "outer", "spin.js", 3);
	callers_first[2] = leaf_first[1] = js_frame(&n, "middle", "spin.js", 2);
	callers_first[3] = leaf_first[0] = js_frame(&n, "inner", "spin.js", 1);
	snprintf(scope, sizeof(scope), "-t %d", (int)n.pid);
	log = record(&n, scope, 8, inlined);
	text = tu_folded_of(n.dir);
	tu_folded_in_order(text, "node", callers_first, 4, &total, &with);
	print_message("%s: report --folded: %lu of %lu samples with tick;outer;middle;inner\n",
		      flags[0] ? flags : "(no flags)", with, total);
	if (total < 200 || with * 100 < total * 90)
		fail_msg("%lu of %lu samples; record's log:\n%s\nfolded:\n%.4000s", with, total, log,
			 text);
	free(text);
	text = tu_script_with_map(n.dir, n.pid, "tid,ip,sym,symoff");
	tu_script_share(text, leaf_first, 3, &total, &with);
	print_message("perf script: %lu of %lu samples with inner, middle, outer\n", with, total);
	if (total < 200 || with * 100 < total * 90)
		fail_msg("perf script: %lu of %lu samples:\n%.4000s", with, total, text);
	free(text);
	free(log);
	for (int i = 0; i < 4; i++)
		free((char *)callers_first[i]);
	stop_node(&n);
}

/* Cold: every function interpreted (V8's optimizing tiers off, as a cold
 * function runs; the flags only to keep it so). */
static void test_interpreted_frames(void **state)
{
	unsigned long inlined;

	(void)state;
	expect_spin_frames("--no-opt --no-sparkplug --no-maglev", 0, &inlined);
	assert_int_equal(inlined, 0);
}

/* After warm-up, no flags: optimized, inner and middle inlined into outer
 * and outer into tick, each their own frame again. */
static void test_optimized_frames(void **state)
{
	unsigned long inlined;

	(void)state;
	expect_spin_frames("", 2, &inlined);
	if (!inlined)
		fail_msg("no pc of optimized code written with inlined functions");
}

/* Across await: the function resumed and what it calls, under the
 * microtask queue's builtins that resumed it. */
static void test_async_frames(void **state)
{
	unsigned long total, with, inlined;
	const char *chain[3];
	char scope[32], *log, *text;
	struct node n;

	(void)state;
	start_node(&n, "async.js", async_js, "", "", 1);
	chain[0] = "Builtins_AsyncFunctionAwaitResolveClosure";
	chain[1] = js_frame(&n, "step", "async.js", 2);
	chain[2] = js_frame(&n, "work", "async.js", 1);
	snprintf(scope, sizeof(scope), "-t %d", (int)n.pid);
	log = record(&n, scope, 6, &inlined);
	text = tu_folded_of(n.dir);
	tu_folded_in_order(text, "node", chain, 3, &total, &with);
	print_message("report --folded: %lu of %lu samples with the await's resume;step;work\n",
		      with, total);
	if (total < 200 || with * 100 < total * 90)
		fail_msg("%lu of %lu samples:\n%s\n%.4000s", with, total, log, text);
	free(text);
	free(log);
	free((char *)chain[1]);
	free((char *)chain[2]);
	stop_node(&n);
}

/* A JavaScript callback of a builtin or of the runtime: of the samples in
 * the callback, >= 90% with its caller, the builtin (or runtime function)
 * between, and the callback, in that order. */
static void expect_callback(const char *mode, const char *caller, int caller_line,
			    const char *between, const char *callback, int callback_line)
{
	unsigned long total, in_callback, with, inlined;
	const char *chain[3];
	char scope[32], args[32], *log, *text;
	struct node n;

	snprintf(args, sizeof(args), "600 %s", mode);
	start_node(&n, "callback.js", callback_js, "", args, 1);
	chain[0] = js_frame(&n, caller, "callback.js", caller_line);
	chain[1] = between;
	chain[2] = js_frame(&n, callback, "callback.js", callback_line);
	snprintf(scope, sizeof(scope), "-t %d", (int)n.pid);
	log = record(&n, scope, 6, &inlined);
	text = tu_folded_of(n.dir);
	tu_folded_in_order(text, "node", &chain[2], 1, &total, &in_callback);
	tu_folded_in_order(text, "node", chain, 3, &total, &with);
	print_message("%s: report --folded: %lu of %lu samples in %s with %s;%s before it (%lu "
		      "samples)\n",
		      mode, with, in_callback, callback, caller, between, total);
	if (in_callback < 200 || with * 100 < in_callback * 90)
		fail_msg("%lu of %lu:\n%s\n%.4000s", with, in_callback, log, text);
	free(text);
	free(log);
	free((char *)chain[0]);
	free((char *)chain[2]);
	stop_node(&n);
}

static void test_builtin_between(void **state)
{
	(void)state;
	expect_callback("sort", "sorter", 2, "Builtins_ArrayPrototypeSort", "cmp", 1);
}

static void test_runtime_between(void **state)
{
	(void)state;
	expect_callback("json", "parser", 4, "v8::internal::Builtin_JsonParse", "reviver", 3);
}

/* A worker thread's samples show its own function, the main thread's
 * theirs, never the other's (perf script's samples, by thread). */
static void test_worker_thread(void **state)
{
	unsigned long in_worker = 0, in_main = 0, crossed = 0;
	char *log, *text, *worker_fn, *main_fn;
	unsigned long inlined;
	char scope[32];
	struct node n;

	(void)state;
	start_node(&n, "worker.js", worker_js, "", "", 1);
	worker_fn = js_frame(&n, "workerSpin", "worker.js", 2);
	main_fn = js_frame(&n, "mainSpin", "worker.js", 3);
	snprintf(scope, sizeof(scope), "-p %d", (int)n.pid);
	log = record(&n, scope, 6, &inlined);
	text = tu_script_with_map(n.dir, n.pid, "tid,ip,sym,symoff");
	/* each sample: its tid's line, then its frames */
	for (char *sample = text; sample && *sample;) {
		char *end = strstr(sample, "\n\n");
		int tid = atoi(sample);
		bool w, m;

		if (end)
			*end = '\0';
		w = strstr(sample, worker_fn) != NULL;
		m = strstr(sample, main_fn) != NULL;
		in_worker += w && tid != n.pid;
		in_main += m && tid == n.pid;
		crossed += (w && tid == n.pid) || (m && tid != n.pid) || (w && m);
		sample = end ? end + 2 : NULL;
	}
	print_message("perf script: %lu samples in workerSpin on the worker's thread, %lu in "
		      "mainSpin on the main thread, %lu on the other's\n",
		      in_worker, in_main, crossed);
	if (in_worker < 200 || in_main < 200 || crossed)
		fail_msg("%lu, %lu, %lu crossed:\n%s", in_worker, in_main, crossed, log);
	free(text);
	free(log);
	free(worker_fn);
	free(main_fn);
	stop_node(&n);
}

/* A Node.js process the recording starts (its command), exiting before
 * the recording ends: its map handed over at its exit, its functions named
 * in >= 90% of the samples under tick. */
static void test_started_during_recording(void **state)
{
	unsigned long total, ticks, with, inlined;
	const char *chain[3];
	char *log = NULL, *text;
	struct node n;
	int rc;

	(void)state;
	if (access(NODE, X_OK))
		tu_skip("no node in " NODE " (make deps installs nodejs)");
	tu_skip_unless_possible();
	n.dir = tu_tempdir();
	n.pid = 0;
	tu_write_file(n.dir, "spin.js", spin_js, strlen(spin_js));
	/* (node ends in 5 s; the timeout bounds a start that never ends) */
	rc = tu_sh(&log, "timeout -s INT 120 %s record -v -g -F 999 -o %s/rec -- " NODE
			 " %s/spin.js 5 2>&1",
		   tu_ringtrace(), n.dir, n.dir);
	tu_write_file(n.dir, "record.log", log, strlen(log));
	if (rc != 0)
		fail_msg("record failed (%d):\n%s", rc, log);
	js_totals_add_up(log, &inlined);
	chain[0] = js_frame(&n, "tick", "spin.js", 4);
	chain[1] = js_frame(&n, "outer", "spin.js", 3);
	chain[2] = js_frame(&n, "inner", "spin.js", 1);
	text = tu_folded_of(n.dir);
	tu_folded_in_order(text, "node", chain, 1, &total, &ticks);
	tu_folded_in_order(text, "node", chain, 3, &total, &with);
	print_message("report --folded: %lu of %lu samples under tick with outer and inner (%lu "
		      "samples)\n",
		      with, ticks, total);
	if (ticks < 200 || with * 100 < ticks * 90)
		fail_msg("%lu of %lu:\n%s\n%.4000s", with, ticks, log, text);
	free(text);
	free(log);
	for (int i = 0; i < 3; i++)
		free((char *)chain[i]);
	tu_rmtree(n.dir);
	free(n.dir);
}

/* export -g's profile endpoint names JavaScript frames as record does: the
 * process's stacks in go tool pprof, >= 80% with inner, middle and outer and
 * their lines (the sampling child's snapshot carries the process's map). */
static void test_profile_endpoint_names(void **state)
{
	double total = 0, named = 0;
	const char *leaf_first[3];
	char *want[3];
	int code = 0;
	struct node n;
	char *out;

	(void)state;
	if (system("command -v go >/dev/null"))
		tu_skip("go tool pprof is not installed (make test-deps installs golang-go)");
	start_node(&n, "spin.js", spin_js, "", "", 1);
	/* go tool pprof -traces indents each frame's name */
	assert_true(asprintf(&want[0], "   inner (%s/spin.js:1)", n.dir) > 0);
	assert_true(asprintf(&want[1], " middle (%s/spin.js:2)", n.dir) > 0);
	assert_true(asprintf(&want[2], " outer (%s/spin.js:3)", n.dir) > 0);
	for (int i = 0; i < 3; i++)
		leaf_first[i] = want[i];
	out = tu_profile_endpoint_traces(n.dir, n.pid, leaf_first, 3, &code, &total, &named);
	if (code != 200)
		fail_msg("the profile endpoint never answered 200 (last %d)", code);
	if (total < 500 || named < total * 0.8)
		fail_msg("%.0f ms of %.0f named inner;middle;outer:\n%.3000s", named, total,
			 out ? out : "");
	free(out);
	for (int i = 0; i < 3; i++)
		free(want[i]);
	stop_node(&n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_interpreted_frames),
		cmocka_unit_test(test_optimized_frames),
		cmocka_unit_test(test_async_frames),
		cmocka_unit_test(test_builtin_between),
		cmocka_unit_test(test_runtime_between),
		cmocka_unit_test(test_worker_thread),
		cmocka_unit_test(test_started_during_recording),
		cmocka_unit_test(test_profile_endpoint_names),
	};

	return cmocka_run_group_tests(tests, NULL, tu_stop_left);
}
