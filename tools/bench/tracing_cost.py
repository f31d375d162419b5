# SPDX-License-Identifier: GPL-2.0-only
# tracing_cost.py: scenarios 9 and 10 of bench.py (issue #35): what a tracepoint hit
# that a filter leaves out costs (ringtrace record --filter against perf record
# --filter and bpftrace's predicate, beside the unfiltered recordings), and what a
# syscall summary costs a call (ringtrace trace --summary against perf trace -s and
# bcc's syscount where it runs), on the same generator.
"""Scenarios 9 and 10 of the benchmarks: filtered-out hits, syscall summaries."""

import os
import re
import shutil
import signal
import subprocess
import time

TRACEPOINT = "syscalls:sys_enter_getpid"
# no process is pid 1's getpid caller here: every hit is left out
FILTER = "common_pid == 1"


def filtered_out(b):
    n = 20000 if b.quick else 200000
    cpu = str(os.cpu_count() - 1)
    gen = [b.loadgen, "--cpu", cpu, "--time", "getpid", str(n)]

    def none():
        _, e, _, _ = b.must(gen)
        return b.ns_per_call(e), ""

    def floor():
        return b.ns_per_call(b.under_empty_program(gen)), ""

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


def summary(b):
    n = 20000 if b.quick else 200000
    cpu = str(os.cpu_count() - 1)
    gen = [b.loadgen, "--cpu", cpu, "--time", "getpid", str(n)]

    def getpid_calls(text):
        """The generator's getpid calls: the row under its process's header
        (with -a, other processes' come too)."""
        m = re.search(r"^ loadgen \(\d+\).*?^\s+getpid\s+(\d+)\s", text, re.M | re.S)
        return int(m.group(1)) if m else -1

    def none():
        _, e, _, _ = b.must(gen)
        return b.ns_per_call(e), "-"

    def ringtrace(scope):
        def f():
            o, e, _, _ = b.must([b.ringtrace, "trace", "--summary"] + scope + ["--"] + gen)
            return b.ns_per_call(e), "%d getpid" % getpid_calls(o + e)
        return f

    def perf_trace():
        _, e, _, _ = b.must(["perf", "trace", "-s", "--"] + gen)
        return b.ns_per_call(e), "%d getpid" % getpid_calls(e)

    def syscount():
        """bcc's syscount, system-wide, where it compiles its program (it needs
        the kernel's headers): None when it cannot run here."""
        if not shutil.which("syscount-bpfcc"):
            return None
        p = subprocess.Popen(["syscount-bpfcc", "-i", "3600"], stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT)
        time.sleep(8)  # it compiles with LLVM before it attaches
        if p.poll() is not None:
            return None
        _, e, _, _ = b.must(gen)
        p.send_signal(signal.SIGINT)
        out = p.communicate()[0].decode(errors="replace")
        m = re.search(r"^getpid\s+(\d+)", out, re.M)
        return b.ns_per_call(e), "%s getpid" % (m.group(1) if m else "?")

    tools = [("no tracer", none), ("ringtrace trace --summary -- CMD", ringtrace([])),
             ("ringtrace trace --summary -a", ringtrace(["-a"])),
             ("perf trace -s -- CMD", perf_trace), ("bcc syscount (system-wide)", syscount)]
    ns = {name: [] for name, _ in tools}
    counted = {name: "-" for name, _ in tools}
    skipped = set()
    for rep in range(b.reps):
        for name, fn in b.rotated(tools, rep):
            if name in skipped:
                continue
            r = fn()
            if r is None:
                skipped.add(name)
                continue
            ns[name].append(r[0])
            counted[name] = r[1]
    base = b.med(ns["no tracer"])
    add = {name: b.med(ns[name]) - base for name, _ in tools if ns[name]}
    perfs = add.get("perf trace -s -- CMD", 0)
    rows = [[name, "%.0f" % b.med(ns[name]), b.spread(ns[name]),
             "%.0f" % add[name] if name != "no tracer" else "-",
             "%.3f" % (add[name] / perfs) if name != "no tracer" and perfs > 0 else "-",
             counted[name]] for name, _ in tools if ns[name]]
    rows += [[name, "not run: it cannot compile its program here (bcc needs the kernel's headers)"
              if shutil.which("syscount-bpfcc") else "not installed", "-", "-", "-", "-"]
             for name in sorted(skipped)]
    ours = add["ringtrace trace --summary -- CMD"]
    notes = ["- a getpid counted by ringtrace trace --summary adds %.0f ns, perf trace -s %.0f "
             "(%.3fx): ringtrace pairs entry and exit in BPF and keeps only sums, perf trace "
             "writes both events through its ring and reads them in user space (and may lose "
             "some: see its count)" % (ours, perfs, ours / perfs if perfs > 0 else float("nan"))]
    b.results["summary"] = add
    b.section("10. A syscall summary",
              "The generator of scenario 1 (`loadgen --cpu %s --time getpid %d`) under each tool's "
              "summary of syscalls per process: `ringtrace trace --summary` (of the command, and "
              "system-wide), `perf trace -s`, and bcc's `syscount` where it runs. Added ns per call "
              "against no tracer, median of %d, tools alternating; the last column is each "
              "tool's count of getpid." % (cpu, n, b.reps),
              ["tool", "ns/call (median)", "spread", "added ns/call", "x perf trace -s", "counted"],
              rows, notes)
    b.goal_lines += notes
