# SPDX-License-Identifier: GPL-2.0-only
# java_cost.py: scenario 13 of bench.py (issue #58), what -g's Java frames cost: the
# BPF time of a sample of a JVM's thread spinning in outer -> middle -> inner,
# interpreted (-Xint), compiled by C2 (inner, on stack replacement) and inlined into
# one C2 compile, beside a native program's (unwindgen chain), with the share of the
# Java thread's samples whose folded stack holds main;outer;middle;inner.
"""Scenario 13 of the benchmarks: the cost of Java frames in -g stacks."""

import os
import re

import interp_runs

JAVA_HOME = "/usr/lib/jvm/java-17-openjdk-amd64"
SPIN = ("public class Spin {\n"
        "  static volatile long n;\n"
        "  static void inner() { while (true) n++; }\n"
        "  static void middle() { inner(); }\n"
        "  static void outer() { middle(); }\n"
        "  public static void main(String[] a) { outer(); }\n"
        "}\n")
INL = ("public class Inl {\n"
       "  static volatile long n;\n"
       "  static long inner(long x) { long s = x; while ((s & 0xffff) != 7)"
       " s = s * 6364136223846793005L + 1442695040888963407L; return s; }\n"
       "  static long middle(long x) { return inner(x) + 1; }\n"
       "  static long outer(long x) { return middle(x) * 3; }\n"
       "  public static void main(String[] a) { long t = 1; while (true) { t = outer(t); n = t; } }\n"
       "}\n")


def java_thread(pid):
    """The JVM's thread that runs main (named java, not the launcher's), or None."""
    for tid in sorted(os.listdir("/proc/%d/task" % pid), key=int):
        try:
            with open("/proc/%d/task/%s/comm" % (pid, tid)) as f:
                if f.read().strip() == "java" and int(tid) != pid:
                    return int(tid)
        except OSError:
            pass
    return None


def run(b):
    secs = 1 if b.quick else 3
    title = "13. Java frames in -g stacks"
    if not os.path.exists(JAVA_HOME + "/bin/javac"):
        b.section(title, "Not run: no JDK in %s." % JAVA_HOME, ["workload"], [])
        return
    for name, src in (("Spin", SPIN), ("Inl", INL)):
        with open(os.path.join(b.tmp, name + ".java"), "w") as f:
            f.write(src)
        b.must([JAVA_HOME + "/bin/javac", "-d", b.tmp, os.path.join(b.tmp, name + ".java")])

    java = JAVA_HOME + "/bin/java"

    def chain(cls):
        return interp_runs.share_of(
            "java", re.compile(r";%s\.main .*;%s\.outer .*;%s\.middle .*;%s\.inner " % ((cls,) * 4)))

    workloads = [("unwindgen chain (native, 7 frames)", [b.unwindgen, "chain", "600"], None),
                 ("java -Xint: 4 interpreted frames", [java, "-Xint", "-cp", b.tmp, "Spin"],
                  chain("Spin")),
                 ("java: inner C2-compiled, 3 interpreted", [java, "-cp", b.tmp, "Spin"],
                  chain("Spin")),
                 ("java: main;outer;middle;inner one C2 compile", [java, "-cp", b.tmp, "Inl"],
                  chain("Inl"))]
    # each JVM's start, and its JIT's compiles (C2's within seconds)
    ns, full = interp_runs.alternate(b, workloads, secs, 3.0 if b.quick else 8.0, java_thread)
    rows, note = interp_runs.rows_and_note(
        b, workloads, ns, full, "a JVM's thread with its Java frames",
        "interpreted frames read from their slots; a compiled one's blob found through its code "
        "heap's segment map, its PcDesc by a binary search, its scopes decoded")
    notes = [note]
    b.results["java"] = {name: b.med(ns[name]) for name, _, _ in workloads if ns[name]}
    b.section(title,
              "Debian's OpenJDK 17 running `Spin` (outer -> middle -> inner, inner spinning) "
              "interpreted (`-Xint`) and with C2 (inner compiled on stack replacement, its "
              "callers interpreted), and `Inl` (outer, middle and inner inlined into main's C2 "
              "compile), started before the recording, and `tools/unwindgen chain` (native, 7 "
              "frames) beside each, one JVM at a time; the JVM's main thread and the native "
              "program recorded alone, alternating, by "
              "`ringtrace record -t TID -F 999 -g -- sleep %d`. BPF ns/sample = `run_time_ns / "
              "run_cnt` of `on_perf_event` (bpf_stats), median of %d (the native program's "
              "over the three pairs); the last column is the "
              "share of the thread's samples whose folded stack holds main;outer;middle;inner "
              "(Inl's: a sample nearest a safepoint of main's loop names main alone)."
              % (secs, b.reps),
              ["workload", "BPF ns/sample (median)", "spread", "main;outer;middle;inner"], rows,
              notes)
    b.goal_lines += notes
