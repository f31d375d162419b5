# SPDX-License-Identifier: GPL-2.0-only
# report_real.py: scenario 12 of bench.py (issue #57), report speed on a real
# recording: a make -j2 C build (build_stacks.py's generated sources) recorded by
# ringtrace record -a -g at its default rate, then read by ringtrace report and by
# perf report (-g none and its default), alternating, each to a file.
"""Scenario 12 of the benchmarks: report of a real recording (a C build, -a -g)."""

import build_stacks

FILES = 15  # ~10k samples at the default 999 Hz on 2 CPUs (12 gave 8k, 20 gave 15k)
QUICK_FILES = 6
GOAL = 3  # issue #57: ringtrace report >= 3x perf report --no-children -g none


def run(b):
    """Scenario 12, on the Bench b of bench.py."""
    files = QUICK_FILES if b.quick else FILES
    src = b.fresh("s12.src")
    lines = build_stacks.write_tree(src, files)
    build = ["make", "-s", "-j2", "-C", src]
    b.must(build)  # the page cache holds gcc, its libraries and the sources from here on
    b.must(["make", "-s", "-C", src, "clean"])
    d = b.fresh("s12.rt")
    _, e, _, _ = b.must([b.ringtrace, "record", "-a", "-g", "-o", d, "--"] + build)
    samples, lost = b.ringtrace_totals(e)
    # the kernel's table kept for the boot (docs/reports.md), as any report
    # before this one left it; the row without it is the first report of a boot
    b.must([b.ringtrace, "report", "-i", d, "--stdio"])
    tools = [("ringtrace report", [b.ringtrace, "report", "-i", d]),
             ("ringtrace report --kallsyms-cache none",
              [b.ringtrace, "report", "-i", d, "--kallsyms-cache", "none"]),
             ("perf report --stdio --no-children -g none",
              ["perf", "report", "-i", d, "--stdio", "--no-children", "-g", "none"]),
             ("perf report --stdio", ["perf", "report", "-i", d, "--stdio"])]
    wall, cpu = b.timed_in_turn(tools)
    rows = [[name, "%.3f" % b.med(wall[name]), b.spread(wall[name], "%.3f"),
             "%.3f" % b.med(cpu[name]), b.spread(cpu[name], "%.3f")] for name, _ in tools]
    ours, theirs = "ringtrace report", "perf report --stdio --no-children -g none"
    xw = b.med(wall[theirs]) / b.med(wall[ours]) if b.med(wall[ours]) else 0
    xc = b.med(cpu[theirs]) / b.med(cpu[ours]) if b.med(cpu[ours]) else 0
    notes = [b.verdict("%s vs %s, wall" % (ours, theirs), "%.1fx" % xw, ">= %dx" % GOAL, xw >= GOAL),
             b.verdict("%s vs %s, CPU" % (ours, theirs), "%.1fx" % xc, ">= %dx" % GOAL, xc >= GOAL)]
    for line in notes:
        print("bench: " + line[2:], flush=True)
    b.results["report_real"] = {name: (b.med(wall[name]), b.med(cpu[name])) for name, _ in tools}
    machine = dict(b.machine)
    b.section(
        "12. Report of a real recording",
        "%d generated C files (`tools/bench/build_stacks.py`'s, %d lines) and a main built by "
        "`make -j2` (`gcc -O2 -c`) under `ringtrace record -a -g -o D -- make -j2` (the default "
        "999 Hz on every CPU: %d samples, %d lost, kernel and user stacks of cc1, as, ld, make, "
        "the shell and whatever else ran), the page cache filled by one build before; then, on "
        "that one recording, `ringtrace report -i D`, `perf report -i D --stdio --no-children "
        "-g none` and `perf report -i D --stdio`, in turn (the order rotated rep by rep), %d "
        "times each, stdout to a file. On a recording this small start-up is most of a "
        "report: the process and its libraries, /proc/kallsyms, the ELF files of the "
        "programs sampled. ringtrace report reads the kernel's symbols from the table a "
        "report before it kept for the boot (`--kallsyms-cache`, docs/reports.md); with "
        "`--kallsyms-cache none` it reads /proc/kallsyms, as the first report of a boot "
        "does (and perf's every report). Wall = elapsed seconds; CPU = user + system seconds of the process "
        "(its rusage, by wait4). A goal is met (PASS) when perf's median over ringtrace's reaches it. "
        "Machine: %s; clocksource %s; bare %s."
        % (files, lines, samples, lost, b.reps, machine.get("machine", "unknown"),
           machine.get("clocksource", "unknown"), machine.get("bare syscall", "unknown")),
        ["tool", "wall s (median)", "spread", "CPU s (median)", "spread"],
        rows, notes)
    for name in ("s12.src", "s12.rt"):
        b.fresh(name)


def headline(results):
    r = results.get("report_real")
    if not r:
        return []
    ours, theirs = r["ringtrace report"], r["perf report --stdio --no-children -g none"]
    return ["- report of a real -a -g recording (a C build), wall (CPU): ringtrace report %.1fx "
            "(%.1fx) faster than perf report --no-children -g none (goal 3x)"
            % (theirs[0] / ours[0] if ours[0] else 0, theirs[1] / ours[1] if ours[1] else 0)]
