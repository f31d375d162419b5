/* SPDX-License-Identifier: GPL-2.0-only */
/* test_hotspot_frames.c: a JVM started before the recording, unmodified and
 * without flags or agents, has its interpreted Java methods in -g stacks, in
 * their order and in their thread: in report --folded and in perf script of
 * the same recording (given the recording's map as perf reads a JIT's); the
 * sampled interpreted frame at the line it runs; a recursion deeper than a
 * stack holds is cut with a [truncated] frame; the totals of the walk add
 * up. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "java_sources.h"
#include "test_util.h"

/* Two threads, each spinning in a method of its own. */
static const char two_java[] = "public class Two {\n"
			       "  static volatile long a, b;\n"
			       "  static void spinA() { while (true) a++; }\n"
			       "  static void spinB() { while (true) b++; }\n"
			       "  public static void main(String[] x) throws Exception {\n"
			       "    Thread ta = new Thread(Two::spinA, \"spinner-a\");\n"
			       "    Thread tb = new Thread(Two::spinB, \"spinner-b\");\n"
			       "    ta.start(); tb.start(); ta.join();\n"
			       "  }\n"
			       "}\n";

/* A recursion 300 deep, spinning at its bottom. */
static const char deep_java[] = "public class Deep {\n"
				"  static volatile long n;\n"
				"  static void down(int d) { if (d == 0) while (true) n++; down(d - 1); }\n"
				"  public static void main(String[] a) { down(300); }\n"
				"}\n";

/* A chain inlined into one compiled frame: main() runs outer() -> middle() ->
 * inner(), each inlined into main's compile (C2, level 4, on stack
 * replacement); inner() loops with a safepoint poll, whose debug
 * information names the methods inlined. */
static const char inlined_java[] =
	"public class Inl {\n"
	"  static volatile long n;\n"
	"  static long inner(long x) { long s = x; while ((s & 0xffff) != 7)"
	" s = s * 6364136223846793005L + 1442695040888963407L; return s; }\n"
	"  static long middle(long x) { return inner(x) + 1; }\n"
	"  static long outer(long x) { return middle(x) * 3; }\n"
	"  public static void main(String[] a) { long t = 1; while (true) { t = outer(t); n = t; } }\n"
	"}\n";

/* A JNI call: java.util.zip.Deflater's native method, into zlib. */
static const char zip_java[] =
	"import java.util.zip.Deflater;\n"
	"public class Zip {\n"
	"  static long total;\n"
	"  static void work(byte[] in, byte[] out) {\n"
	"    Deflater d = new Deflater(9);\n"
	"    d.setInput(in); d.finish();\n"
	"    while (!d.finished()) total += d.deflate(out);\n"
	"    d.end();\n"
	"  }\n"
	"  public static void main(String[] a) {\n"
	"    byte[] in = new byte[1 << 20], out = new byte[1 << 16];\n"
	"    java.util.Random r = new java.util.Random(1);\n"
	"    for (int i = 0; i < in.length; i++) in[i] = (byte) (r.nextInt(16) + 'a');\n"
	"    while (true) work(in, out);\n"
	"  }\n"
	"}\n";

/* The JVM's thread named comm (the first such, not pid itself): its tid, or 0. */
static pid_t thread_named(pid_t pid, const char *comm)
{
	char path[300], name[64];
	struct dirent *e;
	pid_t tid = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return 0;
	while (!tid && (e = readdir(d))) {
		FILE *f;

		if (e->d_name[0] == '.' || atoi(e->d_name) == pid)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/comm", (int)pid, e->d_name);
		f = fopen(path, "r");
		if (f && fgets(name, sizeof(name), f) && !strncmp(name, comm, strlen(comm)) &&
		    name[strlen(comm)] == '\n')
			tid = atoi(e->d_name);
		if (f)
			fclose(f);
	}
	closedir(d);
	return tid;
}

struct jvm {
	char *dir;
	pid_t pid;
};

/* Compiles source (class cls) in a directory of its own and starts it with
 * flags; waits until its thread named thread runs (the JVM has started) and,
 * if compiled is not NULL, until its output (-XX:+PrintCompilation's) has a
 * line matching it (an extended regular expression: a method compiled so). */
static void start_jvm(struct jvm *j, const char *cls, const char *source, const char *flags,
		      const char *thread, const char *compiled)
{
	char file[64], *out = NULL;
	int i;

	if (access(JAVA_HOME "/bin/javac", X_OK))
		tu_skip("no OpenJDK 17 JDK in " JAVA_HOME
			" (make deps installs openjdk-17-jdk-headless)");
	tu_skip_unless_possible();
	j->dir = tu_tempdir();
	snprintf(file, sizeof(file), "%s.java", cls);
	tu_write_file(j->dir, file, source, strlen(source));
	if (tu_sh(&out, "cd %s && " JAVA_HOME "/bin/javac %s 2>&1", j->dir, file))
		fail_msg("javac failed:\n%s", out);
	free(out);
	j->pid = tu_start("exec " JAVA_HOME "/bin/java %s -cp %s %s > %s/out", flags, j->dir, cls,
			  j->dir);
	for (i = 0; i < 100 && !thread_named(j->pid, thread); i++)
		usleep(100000);
	/* a JIT's compiles come in seconds (under load, more) */
	for (i = 0; compiled && i < 600; i++) {
		if (!tu_sh(NULL, "grep -qE '%s' %s/out", compiled, j->dir))
			break;
		usleep(100000);
	}
	if (compiled && i == 600)
		fail_msg("no '%s' in the JVM's compilations within 60 s", compiled);
	/* its methods running (a first second: the JVM's start, its classes loaded) */
	usleep(1000000);
	assert_true(tu_running(j->pid));
	assert_true(thread_named(j->pid, thread) > 0);
}

static void stop_jvm(struct jvm *j)
{
	tu_stop(j->pid);
	tu_rmtree(j->dir);
	free(j->dir);
}

/* The walk's totals add up: every interpreter frame written or kept native
 * for one reason, every other frame in the code cache likewise; at least
 * one JVM unwound. *compiled: the compiled frames written. */
static void java_totals_add_up(const char *log, unsigned long *compiled)
{
	unsigned long jvms, all, written, no_bci, read_failed, no_method;
	unsigned long code, java, no_scope, cut, stubs, no_blob, bad, stale;
	const char *line = strstr(log, "java: ");

	if (!line || sscanf(line, "java: %lu JVMs unwound", &jvms) != 1 ||
	    !(line = strstr(line, "interpreter frames ")) ||
	    sscanf(line, "interpreter frames %lu: %lu written as Java frames (%lu at bytecode "
			 "index 0), kept native: %lu read failed, %lu no method; code cache frames "
			 "%lu: %lu compiled written as %lu Java frames (%lu without a scope at their "
			 "pc: their method alone, %lu with inlined methods cut), %lu stubs written by "
			 "their blob's name, kept native: %lu in no blob, %lu bad nmethod, %lu in a "
			 "blob not holding their pc",
		   &all, &written, &no_bci, &read_failed, &no_method, &code, compiled, &java,
		   &no_scope, &cut, &stubs, &no_blob, &bad, &stale) != 14)
		fail_msg("no Java totals:\n%s", log);
	if (!jvms || all != written + read_failed + no_method || no_bci > written ||
	    code != *compiled + stubs + no_blob + bad + stale || java < *compiled ||
	    no_scope + cut > *compiled)
		fail_msg("the Java totals do not add up:\n%s", log);
}

/* Records scope ("-p PID", "-t TID") of j with -g for seconds into j->dir/rec:
 * record's log; *compiled, the compiled frames written. */
static char *record(const struct jvm *j, const char *scope, int seconds,
		    unsigned long *compiled)
{
	char *log = tu_record_g(j->dir, scope, seconds);

	java_totals_add_up(log, compiled);
	return log;
}

/* Spin's spinning thread, started with flags (and, if compiled, once a
 * compile matching it is done): >= 90% of its samples with
 * JavaCalls::call_helper;StubRoutines (1);Spin.main;Spin.outer;Spin.middle;
 * Spin.inner, their lines, in report --folded, and the same in perf script;
 * *compiled frames written. */
static void expect_spin_frames(const char *flags, const char *compiled, unsigned long *nr_compiled)
{
	/* the call stub between the JVM's native frames and Java's named too */
	static const char *const callers_first[] = {
		"JavaCalls::call_helper",  "StubRoutines (",	      "Spin.main (Spin.java:6)",
		"Spin.outer (Spin.java:5)", "Spin.middle (Spin.java:4)", "Spin.inner (Spin.java:3)"
	};
	static const char *const leaf_first[] = { "Spin.inner (Spin.java:3)",
						  "Spin.middle (Spin.java:4)",
						  "Spin.outer (Spin.java:5)", "Spin.main (Spin.java:6)",
						  "StubRoutines (1)" };
	unsigned long total, with;
	char scope[32], *log, *text;
	struct jvm j;

	start_jvm(&j, "Spin", spin_java, flags, "java", compiled);
	snprintf(scope, sizeof(scope), "-t %d", (int)thread_named(j.pid, "java"));
	log = record(&j, scope, 8, nr_compiled);
	text = tu_folded_of(j.dir);
	tu_folded_in_order(text, "java", callers_first, 6, &total, &with);
	print_message("%s: report --folded: %lu of %lu samples with call_helper;StubRoutines;main;"
		      "outer;middle;inner\n",
		      flags, with, total);
	if (total < 200 || with * 100 < total * 90)
		fail_msg("%lu of %lu samples; record's log:\n%s\nfolded:\n%.4000s", with, total, log,
			 text);
	free(text);
	text = tu_script_with_map(j.dir, j.pid, NULL);
	tu_script_share(text, leaf_first, 5, &total, &with);
	print_message("%s: perf script: %lu of %lu samples with inner, middle, outer, main, "
		      "StubRoutines\n",
		      flags, with, total);
	if (total < 200 || with * 100 < total * 90)
		fail_msg("perf script: %lu of %lu samples:\n%.4000s", with, total, text);
	free(text);
	free(log);
	stop_jvm(&j);
}

/* -Xint: every Java frame interpreted. */
static void test_interpreted_frames(void **state)
{
	unsigned long compiled;

	(void)state;
	expect_spin_frames("-Xint", NULL, &compiled);
	assert_int_equal(compiled, 0);
}

/* After warm-up: inner() compiled by C2 (level 4, on stack replacement: it
 * never returns), its callers interpreted; -XX:+PrintCompilation only to
 * know when. */
static void test_compiled_frames(void **state)
{
	unsigned long compiled;

	(void)state;
	expect_spin_frames("-XX:+PrintCompilation", "% +4 +Spin::inner", &compiled);
	if (compiled < 200)
		fail_msg("%lu compiled frames written", compiled);
}

/* Methods inlined into one compiled frame each become a frame of their own,
 * in their order, under the compiled method: main;outer;middle;inner from
 * main's compile alone (no interpreted frame), in report and perf script. */
static void test_inlined_frames(void **state)
{
	static const char *const callers_first[] = {
		"Inl.main (Inl.java:6)", "Inl.outer (Inl.java:5)", "Inl.middle (Inl.java:4)",
		"Inl.inner (Inl.java:3)"
	};
	static const char *const leaf_first[] = { "Inl.inner (Inl.java:3)", "Inl.middle (Inl.java:4)",
						  "Inl.outer (Inl.java:5)", "Inl.main (Inl.java:6)" };
	unsigned long total, with, compiled;
	char scope[32], *log, *text;
	struct jvm j;

	(void)state;
	start_jvm(&j, "Inl", inlined_java, "-XX:+PrintCompilation", "java", "% +4 +Inl::main");
	snprintf(scope, sizeof(scope), "-t %d", (int)thread_named(j.pid, "java"));
	log = record(&j, scope, 8, &compiled);
	if (!strstr(log, "interpreter frames 0:") || compiled < 200)
		fail_msg("main's compile not the one frame of Java:\n%s", log);
	text = tu_folded_of(j.dir);
	tu_folded_in_order(text, "java", callers_first, 4, &total, &with);
	print_message("report --folded: %lu of %lu samples with main;outer;middle;inner\n", with,
		      total);
	/* a sample whose pc is nearest a safepoint of main's loop names main
	 * alone (HotSpot keeps no debug information between safepoints): about
	 * half of them do (3334 of 6650, 3341 of 6669, 3337 of 6681 in three
	 * runs), a share of the loop's code, not of the walk; the rest name the
	 * inlined methods */
	if (total < 200 || with * 100 < total * 40)
		fail_msg("%lu of %lu samples:\n%s\n%.4000s", with, total, log, text);
	free(text);
	text = tu_script_with_map(j.dir, j.pid, NULL);
	tu_script_share(text, leaf_first, 4, &total, &with);
	print_message("perf script: %lu of %lu samples with inner, middle, outer, main\n", with,
		      total);
	if (total < 200 || with * 100 < total * 40)
		fail_msg("perf script: %lu of %lu samples:\n%.4000s", with, total, text);
	free(text);
	free(log);
	stop_jvm(&j);
}

/* A JNI call's native frames (the JDK's libzip, zlib) below the Java
 * method that called them: of the samples in zlib's deflate, >= 90% with
 * Zip.work;...;Deflater.deflateBytesBytes;Java_java_util_zip_Deflater_deflateBytesBytes;deflate. */
static void test_jni_native_frames(void **state)
{
	static const char *const chain[] = { "Zip.work", "java.util.zip.Deflater.deflateBytesBytes",
					     "Java_java_util_zip_Deflater_deflateBytesBytes",
					     "deflate" };
	unsigned long total, with, in_zlib, compiled;
	char scope[32], *log, *text;
	struct jvm j;

	(void)state;
	start_jvm(&j, "Zip", zip_java, "", "java", NULL);
	snprintf(scope, sizeof(scope), "-t %d", (int)thread_named(j.pid, "java"));
	log = record(&j, scope, 8, &compiled);
	text = tu_folded_of(j.dir);
	tu_folded_in_order(text, "java", &chain[3], 1, &total, &in_zlib);
	tu_folded_in_order(text, "java", chain, 4, &total, &with);
	print_message("report --folded: %lu of %lu samples in deflate with the Java caller and its "
		      "native method above (%lu samples)\n",
		      with, in_zlib, total);
	if (in_zlib < 200 || with * 100 < in_zlib * 90)
		fail_msg("%lu of %lu:\n%s\n%.4000s", with, in_zlib, log, text);
	free(text);
	free(log);
	stop_jvm(&j);
}

/* Two threads in two methods: each thread's samples show its own, never the
 * other's. */
static void test_two_threads(void **state)
{
	unsigned long total, with, avoided, compiled;
	const char *spin_a = "Two.spinA", *spin_b = "Two.spinB";
	char scope[32], *log, *text;
	struct jvm j;

	(void)state;
	start_jvm(&j, "Two", two_java, "-Xint", "spinner-b", NULL);
	snprintf(scope, sizeof(scope), "-p %d", (int)j.pid);
	log = record(&j, scope, 8, &compiled);
	text = tu_folded_of(j.dir);
	tu_folded_in_order(text, "spinner-a", &spin_a, 1, &total, &with);
	tu_folded_in_order(text, "spinner-a", &spin_b, 1, &total, &avoided);
	print_message("spinner-a: %lu of %lu samples in spinA, %lu in spinB\n", with, total,
		      avoided);
	if (total < 100 || with * 100 < total * 90 || avoided)
		fail_msg("spinner-a: %lu of %lu, %lu in spinB:\n%s\n%.4000s", with, total, avoided,
			 log, text);
	tu_folded_in_order(text, "spinner-b", &spin_b, 1, &total, &with);
	tu_folded_in_order(text, "spinner-b", &spin_a, 1, &total, &avoided);
	print_message("spinner-b: %lu of %lu samples in spinB, %lu in spinA\n", with, total,
		      avoided);
	if (total < 100 || with * 100 < total * 90 || avoided)
		fail_msg("spinner-b: %lu of %lu, %lu in spinA:\n%s\n%.4000s", with, total, avoided,
			 log, text);
	free(text);
	free(log);
	stop_jvm(&j);
}

/* A loop over four lines (the for's on line 4, its body's on 5-7), run by
 * the interpreter without a call: the sampled frame's bytecode pointer is
 * only in r13 (the frame's slot is written at calls, so holds the entry's,
 * line 3). */
static const char lines_java[] = "public class Lines {\n"
				 "  static long inner(long n) {\n"
				 "    long x = 1;\n"
				 "    for (long i = 0; i < n; i++) {\n"
				 "      x = x * 31 + i;\n"
				 "      x ^= x >>> 7;\n"
				 "      x += x << 3;\n"
				 "    }\n"
				 "    return x;\n"
				 "  }\n"
				 "  public static void main(String[] a) {\n"
				 "    long s = 0;\n"
				 "    while (true) s += inner(1000000000L);\n"
				 "  }\n"
				 "}\n";

/* -Xint, the sampled frame's line: from the bytecode pointer the interpreter
 * keeps in r13, for samples taken in user mode (nearly all here) as for
 * those taken in the kernel. The loop's four lines each hold at least 5% of
 * the samples, where the frame's slot would put them all on line 3. */
static void test_sampled_frame_lines(void **state)
{
	unsigned long total, with, lines = 0, compiled;
	char scope[32], frame[64], *log, *text;
	const char *f = frame;
	struct jvm j;

	(void)state;
	start_jvm(&j, "Lines", lines_java, "-Xint", "java", NULL);
	snprintf(scope, sizeof(scope), "-t %d", (int)thread_named(j.pid, "java"));
	log = record(&j, scope, 6, &compiled);
	text = tu_folded_of(j.dir);
	for (int line = 3; line <= 7; line++) {
		snprintf(frame, sizeof(frame), "Lines.inner (Lines.java:%d)", line);
		tu_folded_in_order(text, "java", &f, 1, &total, &with);
		print_message("line %d: %lu of %lu samples\n", line, with, total);
		if (line >= 4 && with * 100 >= total * 5)
			lines++;
	}
	if (total < 200 || lines < 4)
		fail_msg("%lu of the loop's 4 lines with 5%% of %lu samples:\n%s\n%.4000s", lines,
			 total, log, text);
	free(text);
	free(log);
	stop_jvm(&j);
}

/* A recursion 300 deep, more than a stack holds: cut, its last frame
 * [truncated], in report and in perf script; never a stack that looks whole. */
static void test_deep_recursion_cut(void **state)
{
	static const char *const callers_first[] = { "[truncated]", "Deep.down" };
	const char *deep_main = "Deep.main";
	unsigned long total, with, avoided, compiled;
	char scope[32], *log, *text;
	struct jvm j;

	(void)state;
	start_jvm(&j, "Deep", deep_java, "-Xint", "java", NULL);
	snprintf(scope, sizeof(scope), "-t %d", (int)thread_named(j.pid, "java"));
	log = record(&j, scope, 6, &compiled);
	text = tu_folded_of(j.dir);
	/* callers first: the marker is the outermost, then down()s */
	tu_folded_in_order(text, "java", callers_first, 2, &total, &with);
	tu_folded_in_order(text, "java", &deep_main, 1, &total, &avoided);
	print_message("report --folded: %lu of %lu samples cut with [truncated], %lu reaching "
		      "Deep.main\n",
		      with, total, avoided);
	if (total < 100 || with * 100 < total * 90 || avoided)
		fail_msg("%lu of %lu cut, %lu whole:\n%s\n%.4000s", with, total, avoided, log, text);
	free(text);
	text = tu_script_with_map(j.dir, j.pid, NULL);
	if (!strstr(text, " [truncated]+0x0 (/tmp/perf-"))
		fail_msg("no [truncated] frame in perf script:\n%.4000s", text);
	free(text);
	free(log);
	stop_jvm(&j);
}

/* A JVM the recording starts (its command): its layout read by the reader's
 * thread once the JVM set it up, after ringtrace dropped its capabilities;
 * of its Java thread's samples (those under JavaCalls::call_helper), >= 90%
 * with main;outer;middle;inner and their lines. */
static void test_started_during_recording(void **state)
{
	static const char *const callers_first[] = {
		"Spin.main (Spin.java:6)", "Spin.outer (Spin.java:5)", "Spin.middle (Spin.java:4)",
		"Spin.inner (Spin.java:3)"
	};
	static const char *const in_java[] = { "JavaCalls::call_helper" };
	unsigned long total, java, with, compiled;
	char *log = NULL, *text;
	struct jvm j;
	int rc;

	(void)state;
	if (access(JAVA_HOME "/bin/javac", X_OK))
		tu_skip("no OpenJDK 17 JDK in " JAVA_HOME
			" (make deps installs openjdk-17-jdk-headless)");
	tu_skip_unless_possible();
	j.dir = tu_tempdir();
	j.pid = 0;
	tu_write_file(j.dir, "Spin.java", spin_java, strlen(spin_java));
	if (tu_sh(&log, "cd %s && " JAVA_HOME "/bin/javac Spin.java 2>&1", j.dir))
		fail_msg("javac failed:\n%s", log);
	free(log);
	/* the JVM runs 6 s from when the recording has started (the
	 * recording ends with it); the outer timeout bounds a start that
	 * never ends */
	rc = tu_sh(&log, "timeout -s INT 120 %s record -v -g -F 999 -o %s/rec -- timeout -s INT 6 "
			 JAVA_HOME "/bin/java -Xint -cp %s Spin 2>&1",
		   tu_ringtrace(), j.dir, j.dir);
	tu_write_file(j.dir, "record.log", log, strlen(log));
	if (rc != 124 && rc != 0 && rc != 130)
		fail_msg("record failed (%d):\n%s", rc, log);
	java_totals_add_up(log, &compiled);
	if (!strstr(log, "(1 started during the recording)"))
		fail_msg("the JVM was not read as started during the recording:\n%s", log);
	text = tu_folded_of(j.dir);
	tu_folded_in_order(text, "java", in_java, 1, &total, &java);
	tu_folded_in_order(text, "java", callers_first, 4, &total, &with);
	print_message("report --folded: %lu of %lu samples in Java code with main;outer;middle;"
		      "inner (%lu samples)\n",
		      with, java, total);
	if (java < 200 || with * 100 < java * 90)
		fail_msg("%lu of %lu:\n%s\n%.4000s", with, java, log, text);
	free(text);
	free(log);
	tu_rmtree(j.dir);
	free(j.dir);
}

/* export -g's profile endpoint names Java frames as record does: the
 * spinning thread's stacks in go tool pprof, >= 80% with inner, middle and
 * outer and their lines (the sampling child's snapshot carries the JVM's map). */
static void test_profile_endpoint_names(void **state)
{
	static const char *const leaf_first[] = { "   Spin.inner (Spin.java:3)",
						  " Spin.middle (Spin.java:4)",
						  " Spin.outer (Spin.java:5)" };
	double total = 0, named = 0;
	int code = 0;
	struct jvm j;
	char *out;

	(void)state;
	if (system("command -v go >/dev/null"))
		tu_skip("go tool pprof is not installed (make test-deps installs golang-go)");
	start_jvm(&j, "Spin", spin_java, "-Xint", "java", NULL);
	out = tu_profile_endpoint_traces(j.dir, j.pid, leaf_first, 3, &code, &total, &named);
	if (code != 200)
		fail_msg("the profile endpoint never answered 200 (last %d)", code);
	if (total < 500 || named < total * 0.8)
		fail_msg("%.0f ms of %.0f named inner;middle;outer:\n%.3000s", named, total,
			 out ? out : "");
	free(out);
	stop_jvm(&j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_interpreted_frames, tu_stop_left),
		cmocka_unit_test_teardown(test_sampled_frame_lines, tu_stop_left),
		cmocka_unit_test_teardown(test_compiled_frames, tu_stop_left),
		cmocka_unit_test_teardown(test_inlined_frames, tu_stop_left),
		cmocka_unit_test_teardown(test_jni_native_frames, tu_stop_left),
		cmocka_unit_test_teardown(test_two_threads, tu_stop_left),
		cmocka_unit_test_teardown(test_deep_recursion_cut, tu_stop_left),
		cmocka_unit_test_teardown(test_started_during_recording, tu_stop_left),
		cmocka_unit_test_teardown(test_profile_endpoint_names, tu_stop_left),
	};

	return cmocka_run_group_tests(tests, NULL, tu_stop_left);
}
