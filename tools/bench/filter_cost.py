# SPDX-License-Identifier: GPL-2.0-only
# filter_cost.py: scenario 9 of bench.py (issue #35), what a tracepoint hit that a
# filter leaves out costs: ringtrace record --filter against perf record --filter
# and bpftrace's predicate on the same generator, beside the unfiltered recording.
"""Scenario 9 of the benchmarks: the cost of a hit a filter leaves out."""

import os
import re
import subprocess
import sys

TRACEPOINT = "syscalls:sys_enter_getpid"
# no process is pid 1's getpid caller here: every hit is left out
FILTER = "common_pid == 1"


def run(b):
    n = 20000 if b.quick else 200000
    cpu = str(os.cpu_count() - 1)
    gen = [b.loadgen, "--cpu", cpu, "--time", "getpid", str(n)]

    def none():
        _, e, _, _ = b.must(gen)
        return b.ns_per_call(e), ""

    def floor():
        p = subprocess.Popen([os.path.join(b.tools, "empty_tracepoint"), TRACEPOINT],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        if p.stdout.readline().strip() != b"ready":
            sys.exit("bench: empty_tracepoint did not attach")
        _, e, _, _ = b.must(gen)
        p.stdin.close()
        p.wait()
        return b.ns_per_call(e), ""

    def ringtrace(filtered):
        def f():
            d = b.fresh("s9.rt")
            _, e, _, _ = b.must([b.ringtrace, "record", "-a", "-e", TRACEPOINT] +
                                (["--filter", FILTER] if filtered else []) +
                                ["--force", "-o", d, "--"] + gen)
            samples, _ = b.ringtrace_totals(e)
            m = re.search(r"--filter left out (\d+)", e)
            return b.ns_per_call(e), "%d kept, %s left out" % (samples, m.group(1) if m else "-")
        return f

    def perf(filtered):
        def f():
            path = b.fresh("s9.perf")
            _, e, _, _ = b.must(["perf", "record", "-q", "-e", TRACEPOINT] +
                                (["--filter", FILTER] if filtered else []) +
                                ["-a", "-o", path, "--"] + gen)
            samples, _ = b.perf_count(path)
            return b.ns_per_call(e), "%d kept" % samples
        return f

    def bpftrace():
        o, e, _, _ = b.must(["bpftrace", "-e",
                             "tracepoint:%s /pid == 1/ { @n = count(); }" % TRACEPOINT,
                             "-c", " ".join(gen)])
        return b.ns_per_call(e), "%d kept" % sum(int(x) for x in re.findall(r"@n: (\d+)", o))

    tools = [("no tracer", none), ("empty BPF program (floor)", floor),
             ("ringtrace, every hit written", ringtrace(False)),
             ("ringtrace --filter, every hit left out", ringtrace(True)),
             ("perf record, every hit written", perf(False)),
             ("perf record --filter, every hit left out", perf(True)),
             ("bpftrace /pid == 1/, every hit left out", bpftrace)]
    ns = {name: [] for name, _ in tools}
    kept = {name: "" for name, _ in tools}
    for rep in range(b.reps):
        for name, fn in b.rotated(tools, rep):
            t, k = fn()
            ns[name].append(t)
            kept[name] = k
    base = b.med(ns["no tracer"])
    add = {name: b.med(ns[name]) - base for name, _ in tools}
    ours, perfs = add["ringtrace --filter, every hit left out"], add["perf record --filter, every hit left out"]
    rows = [[name, "%.0f" % b.med(ns[name]), b.spread(ns[name]),
             "%.0f" % add[name] if name != "no tracer" else "-",
             "%.2f" % (add[name] / perfs) if name != "no tracer" and perfs > 0 else "-",
             kept[name] or "-"] for name, _ in tools]
    notes = ["- a hit ringtrace's filter leaves out adds %.0f ns against perf record --filter's %.0f "
             "(%.2fx) and the empty program's %.0f; a hit it writes adds %.0f"
             % (ours, perfs, ours / perfs if perfs > 0 else float("nan"),
                add["empty BPF program (floor)"], add["ringtrace, every hit written"]),
             "- perf's filter runs in the kernel's perf_tp_event after the BPF program; "
             "ringtrace's in its own program, before anything is reserved (docs/recording.md, Filters)"]
    b.results["filter"] = add
    b.section("9. A tracepoint hit a filter leaves out",
              "The generator of scenario 1 (`loadgen --cpu %s --time getpid %d`), each tool recording "
              "`%s` system-wide with the filter `%s`, which no hit passes, beside the same "
              "recordings without it; bpftrace with the predicate `/pid == 1/`. Added ns per call "
              "against no tracer, median of %d, tools alternating." % (cpu, n, TRACEPOINT, FILTER, b.reps),
              ["tool", "ns/call (median)", "spread", "added ns/call", "x perf --filter", "hits"],
              rows, notes)
    b.goal_lines += notes[:1]
