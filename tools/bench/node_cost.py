# SPDX-License-Identifier: GPL-2.0-only
# node_cost.py: scenario 14 of bench.py (issue #59), what -g's JavaScript frames
# cost: the BPF time of a sample of a Node.js process's main thread spinning in
# outer -> middle -> inner (called again from the event loop by tick), interpreted
# (V8's optimizing tiers off) and optimized (inner and middle inlined into outer,
# outer into tick), beside a native program's (unwindgen chain), with the share of
# the thread's samples whose folded stack holds tick;outer;middle;inner.
"""Scenario 14 of the benchmarks: the cost of JavaScript frames in -g stacks."""

import os
import re

import interp_runs

NODE = "/usr/bin/node"
SPIN = ("function inner(n) { let s = 0; for (let i = 0; i < n; i++) s += i % 7; return s; }\n"
        "function middle(n) { return inner(n) + 1; }\n"
        "function outer(n) { return middle(n) + 1; }\n"
        "function tick() { outer(300000); setImmediate(tick); }\n"
        "tick();\n")


def run(b):
    secs = 1 if b.quick else 3
    title = "14. JavaScript frames in -g stacks"
    if not os.path.exists(NODE):
        b.section(title, "Not run: no node in %s." % NODE, ["workload"], [])
        return
    spin = os.path.join(b.tmp, "spin.js")
    with open(spin, "w") as f:
        f.write(SPIN)
    chain = interp_runs.share_of(
        "node", re.compile(r";tick \(.*;outer \(.*;middle \(.*;inner \("))
    workloads = [("unwindgen chain (native, 7 frames)", [b.unwindgen, "chain", "600"], None),
                 ("node, interpreted: 4 JavaScript frames",
                  [NODE, "--no-opt", "--no-sparkplug", "--no-maglev", spin], chain),
                 ("node, optimized: 4 frames from one inlined frame", [NODE, spin], chain)]
    # its start, and its optimizing compiles (within a second or two)
    ns, full = interp_runs.alternate(b, workloads, secs, 2.0 if b.quick else 5.0, lambda pid: pid)
    rows, note = interp_runs.rows_and_note(
        b, workloads, ns, full, "a Node.js process's thread with its JavaScript frames",
        "each V8 frame's JSFunction, its SharedFunctionInfo and script checked by their maps' "
        "instance types; an optimized frame's inlined functions one map lookup")
    notes = [note]
    b.results["node"] = {name: b.med(ns[name]) for name, _, _ in workloads if ns[name]}
    b.section(title,
              "Debian's Node.js 20 (V8 11.3) running `spin.js` (tick -> outer -> middle -> "
              "inner, inner spinning, tick called again by setImmediate) interpreted "
              "(`--no-opt --no-sparkplug --no-maglev`) and without flags (optimized: inner and "
              "middle inlined into outer, outer into tick), started before the recording, and "
              "`tools/unwindgen chain` (native, 7 frames) beside each, one at a time; the main "
              "thread and the native program recorded alone, alternating, by "
              "`ringtrace record -t TID -F 999 -g -- sleep %d`. BPF ns/sample = `run_time_ns / "
              "run_cnt` of `on_perf_event` (bpf_stats), median of %d (the native program's over "
              "the pairs); the last column is the share of the thread's samples whose folded "
              "stack holds tick;outer;middle;inner." % (secs, b.reps),
              ["workload", "BPF ns/sample (median)", "spread", "tick;outer;middle;inner"], rows,
              notes)
    b.goal_lines += notes
