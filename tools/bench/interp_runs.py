# SPDX-License-Identifier: GPL-2.0-only
# interp_runs.py: what scenarios 13 and 14 of bench.py share: an interpreter's
# thread (a JVM's, a Node.js process's) recorded with -g alternating with a native
# program's beside it, one interpreter at a time, each recording's BPF time per
# sample (bpf_stats) and the share of its samples holding the frames asked for.
"""The -g cost of an interpreter's frames against a native program's, run in pairs."""

import re
import subprocess
import time


def record(b, tid, secs, share):
    """BPF ns per sample of `record -g -t TID` for secs, and share(folded) (None: not asked)."""
    d = b.fresh("interp.rt")
    # -v: the BPF programs' run times (bpf_stats) are printed only with it
    _, e, _, _ = b.must([b.ringtrace, "record", "-v", "-t", str(tid), "-F", "999", "-g",
                         "--force", "-o", d, "--", "sleep", str(secs)])
    m = re.search(r"on_perf_event: (\d+) runs, (\d+) ns per run", e)
    folded, _, _, _ = b.must([b.ringtrace, "report", d, "--folded"])
    return (float(m.group(2)) if m else None), (share(folded) if share else None)


def alternate(b, workloads, secs, warm, thread_of):
    """workloads: (name, argv, share) with the native program's first (share None).
    Each other one started (warm seconds given to start and compile) beside the
    native one and recorded alternating with it, b.reps pairs; its thread the
    one thread_of(pid) names. ns and share medians' inputs by name."""
    with open(b.BPF_STATS) as f:
        stats_before = f.read().strip()
    ns = {name: [] for name, _, _ in workloads}
    full = {name: [] for name, _, _ in workloads}
    native_name, native_argv, _ = workloads[0]
    procs = []
    try:
        with open(b.BPF_STATS, "w") as f:
            f.write("1")
        native = subprocess.Popen(native_argv, stdout=subprocess.DEVNULL)
        procs.append(native)
        # one at a time beside the native program (each spins a CPU of the
        # two; more would share them)
        for name, argv, share in workloads[1:]:
            proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL)
            procs.append(proc)
            time.sleep(warm)
            tid = thread_of(proc.pid)
            pair = [(native_name, native.pid, None), (name, tid, share)]
            for rep in range(b.reps):
                for who, t_id, s_fn in b.rotated(pair, rep):
                    if not t_id:
                        continue
                    t, s = record(b, t_id, secs, s_fn)
                    if t is not None:
                        ns[who].append(t)
                    if s is not None:
                        full[who].append(s)
            proc.kill()
            proc.wait()
    finally:
        for p in procs:
            p.kill()
            p.wait()
        with open(b.BPF_STATS, "w") as f:
            f.write(stats_before)
    return ns, full


def share_of(comm, want):
    """A share function: of comm's samples in folded, the percentage whose
    stack matches the regular expression want."""
    def share(folded):
        total = full = 0
        for line in folded.splitlines():
            stack, n = line.rsplit(" ", 1)
            if not stack.startswith(comm + ";"):
                continue
            total += int(n)
            full += int(n) if want.search(stack + " ") else 0
        return 100.0 * full / total if total else 0.0
    return share


def rows_and_note(b, workloads, ns, full, what, how):
    """The scenario's table rows (median BPF ns, spread, share) and its note:
    what's samples against the native program's, and how they are found."""
    rows = [[name, "%.0f" % b.med(ns[name]) if ns[name] else "-", b.spread(ns[name]),
             "%.1f%%" % b.med(full[name]) if full[name] else "-"]
            for name, _, _ in workloads]
    native = b.med(ns[workloads[0][0]]) if ns[workloads[0][0]] else 0
    note = "- a -g sample of %s takes %s ns of BPF, a native 7-frame one %.0f: %s" % (
        what, " / ".join("%.0f" % b.med(ns[n]) if ns[n] else "-" for n, _, c in workloads if c),
        native, how)
    return rows, note
