# SPDX-License-Identifier: GPL-2.0-only
# python_cost.py: scenario 11 of bench.py (issue #36), what -g's Python frames cost:
# the BPF time of a sample of a CPython 3.11 process spinning in outer -> middle ->
# inner, beside a native program's (unwindgen chain), with the share of the Python
# samples whose folded stack holds outer;middle;inner.
"""Scenario 11 of the benchmarks: the cost of Python frames in -g stacks."""

import os
import re
import subprocess
import time

PYTHON = "/usr/bin/python3.11"
SPIN = ("def inner():\n    while True:\n        pass\n"
        "def middle():\n    inner()\n"
        "def outer():\n    middle()\n"
        "outer()\n")


def run(b):
    secs = 1 if b.quick else 3
    if not os.path.exists(PYTHON):
        b.section("11. Python frames in -g stacks", "Not run: %s is not installed." % PYTHON,
                  ["workload"], [])
        return
    script = os.path.join(b.tmp, "spin.py")
    with open(script, "w") as f:
        f.write(SPIN)

    def share(folded):
        total = full = 0
        for line in folded.splitlines():
            stack, n = line.rsplit(" ", 1)
            if not stack.startswith("python3"):
                continue
            total += int(n)
            full += int(n) if re.search(r";outer \(.*;middle \(.*;inner \(", stack) else 0
        return 100.0 * full / total if total else 0.0

    def record(pid):
        d = b.fresh("s11.rt")
        # -v: the BPF programs' run times (bpf_stats) are printed only with it
        _, e, _, _ = b.must([b.ringtrace, "record", "-v", "--per-thread", "-p", str(pid), "-F", "999",
                             "-g", "--force", "-o", d, "--", "sleep", str(secs)])
        m = re.search(r"on_perf_event: (\d+) runs, (\d+) ns per run", e)
        folded, _, _, _ = b.must([b.ringtrace, "report", d, "--folded"])
        return (float(m.group(2)) if m else None), share(folded)

    workloads = [("unwindgen chain (native, 7 frames)", [b.unwindgen, "chain", "600"]),
                 ("python3.11 outer;middle;inner", [PYTHON, script])]
    with open(b.BPF_STATS) as f:
        stats_before = f.read().strip()
    ns = {name: [] for name, _ in workloads}
    full = {name: [] for name, _ in workloads}
    try:
        with open(b.BPF_STATS, "w") as f:
            f.write("1")
        procs = {name: subprocess.Popen(argv) for name, argv in workloads}
        time.sleep(1.0)  # python's start, its first frames
        for rep in range(b.reps):
            for name, _ in b.rotated(workloads, rep):
                t, s = record(procs[name].pid)
                if t is not None:
                    ns[name].append(t)
                full[name].append(s)
    finally:
        for p in procs.values():
            p.kill()
            p.wait()
        with open(b.BPF_STATS, "w") as f:
            f.write(stats_before)
    rows = [[name, "%.0f" % b.med(ns[name]) if ns[name] else "-", b.spread(ns[name]),
             "%.1f%%" % b.med(full[name]) if name.startswith("python") else "-"]
            for name, _ in workloads]
    native, py = (b.med(ns[name]) for name, _ in workloads)
    notes = ["- a -g sample of python3.11 with its Python frames takes %.0f ns of BPF, a native "
             "7-frame one %.0f (%.2fx): the thread state found (cached per thread), the frame "
             "chain read and each code object's name read once" % (py, native, py / native)]
    b.results["python"] = {name: b.med(ns[name]) for name, _ in workloads}
    b.section("11. Python frames in -g stacks",
              "A CPython 3.11 process (Debian's `%s`) spinning in outer -> middle -> inner, "
              "started before the recording, and `tools/unwindgen chain` (native, 7 frames) "
              "spinning beside it; each recorded alone, alternating, by `ringtrace record "
              "--per-thread -p PID -F 999 -g -- sleep %d`. BPF ns/sample = `run_time_ns / "
              "run_cnt` of `on_perf_event` (bpf_stats), median of %d; the last column is the "
              "share of the Python process's samples whose folded stack holds "
              "`outer;middle;inner`." % (PYTHON, secs, b.reps),
              ["workload", "BPF ns/sample (median)", "spread", "outer;middle;inner"], rows, notes)
    b.goal_lines += notes
