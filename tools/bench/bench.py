#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
# bench.py: runs ringtrace, perf record and bpftrace on the same workloads in one
# run, alternating the tools run by run, and writes docs/BENCHMARKS.md.
"""ringtrace benchmarks: per-event overhead, lossless rate, sampling cost, drain
throughput, report speed, the cost of stacks (in-kernel .eh_frame, frame
pointers, DWARF), the stacks of a real C build, the exporter as an
always-on profiling agent, filters, syscall summaries, Python frames, the
report of a real recording and Java frames, each
tool against the
others on the same machine in the same run. Medians and spreads (min-max) over
REPS repetitions."""

import argparse
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import agent_cost
import bench_doc
import build_stacks
import java_cost
import node_cost
import python_cost
import report_real
import tracing_cost

REPS = 5

TRACEPOINT = "syscalls:sys_enter_getpid"


class Bench:
    def __init__(self, build, reps, quick):
        self.build = os.path.abspath(build)
        self.ringtrace = os.path.join(self.build, "ringtrace")
        self.loadgen = os.path.join(self.build, "loadgen")
        self.unwindgen = os.path.join(self.build, "unwindgen")
        self.tools = os.path.join(self.build, "bench")
        self.reps = reps
        self.sample_rate_before, self.sample_rate_raised = None, False
        self.quick = quick
        self.tmp = tempfile.mkdtemp(prefix="ringtrace-bench-")
        self.sections = []
        self.results = {}
        self.timings = []
        self.goal_lines = []
        self.machine = []
        self.host_kind = "unknown"
        self.commit = bench_doc.commit(os.path.dirname(os.path.dirname(os.path.dirname(
            os.path.abspath(__file__)))))
        self.last_section = bench_doc.now()  # a section's start: when the one before ended

    # -- running things -------------------------------------------------

    def run(self, argv, stdin=subprocess.DEVNULL, env=None):
        """Runs argv to completion; returns (status, stdout, stderr, usage, wall), usage
        being (CPU seconds, peak RSS in KiB) of argv and the children it waited for.
        GNU time measures them: a child forked from this (large) Python process would
        inherit its RSS high-water mark through exec and pay for unmapping its memory."""
        out = tempfile.TemporaryFile(dir=self.tmp)
        err = tempfile.TemporaryFile(dir=self.tmp)
        usage_path = os.path.join(self.tmp, "usage")
        t0 = time.monotonic()
        p = subprocess.Popen(["/usr/bin/time", "-q", "-f", "%U %S %M", "-o", usage_path] + argv,
                             stdin=stdin, stdout=out, stderr=err, env=env)
        p.wait()
        wall = time.monotonic() - t0
        with open(usage_path) as f:
            fields = f.read().split()
        usage = (float(fields[-3]) + float(fields[-2]), int(fields[-1]))
        out.seek(0)
        err.seek(0)
        o, e = out.read().decode(errors="replace"), err.read().decode(errors="replace")
        out.close()
        err.close()
        return p.returncode, o, e, usage, wall

    def timed(self, argv):
        """(wall s, CPU s) of argv run to completion, stdout to a file: the child's own
        rusage by wait4, to the microsecond (GNU time prints hundredths: 0.14 s is
        0.135-0.145, too coarse for a goal of 5x on a report of a tenth of a second)."""
        with open(os.path.join(self.tmp, "timed.out"), "w") as out:
            t0 = time.monotonic()
            p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.DEVNULL)
            _, status, ru = os.wait4(p.pid, 0)
            wall = time.monotonic() - t0
        p.returncode = os.waitstatus_to_exitcode(status)
        if p.returncode:
            sys.exit("bench: %s failed (%d)" % (" ".join(argv), p.returncode))
        return wall, ru.ru_utime + ru.ru_stime

    def timed_in_turn(self, tools):
        """Each (name, argv) of tools timed by timed() reps times, their order
        rotated rep by rep; ({name: [wall s]}, {name: [CPU s]})."""
        wall = {name: [] for name, _ in tools}
        cpu = {name: [] for name, _ in tools}
        for rep in range(self.reps):
            for name, argv in self.rotated(tools, rep):
                w, c = self.timed(argv)
                wall[name].append(w)
                cpu[name].append(c)
        return wall, cpu

    def under_empty_program(self, argv):
        """Runs argv with an empty BPF program on TRACEPOINT (the floor of every
        tracer's cost); its stderr."""
        p = subprocess.Popen([os.path.join(self.tools, "empty_tracepoint"), TRACEPOINT],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        if p.stdout.readline().strip() != b"ready":
            sys.exit("bench: empty_tracepoint did not attach")
        _, e, _, _ = self.must(argv)
        p.stdin.close()
        p.wait()
        return e

    def must(self, argv, **kw):
        rc, o, e, ru, wall = self.run(argv, **kw)
        if rc != 0:
            sys.exit("bench: %s failed (%d):\n%s%s" % (" ".join(argv), rc, o[-2000:], e[-2000:]))
        return o, e, ru, wall

    def fresh(self, name):
        path = os.path.join(self.tmp, name)
        if os.path.isdir(path):
            shutil.rmtree(path)
        elif os.path.exists(path):
            os.unlink(path)
        return path

    @staticmethod
    def size_of(path):
        if os.path.isdir(path):
            return sum(os.path.getsize(os.path.join(path, f)) for f in os.listdir(path))
        return os.path.getsize(path)

    @staticmethod
    def ns_per_call(text):
        m = re.search(r"ns_per_call=([0-9.]+)", text)
        if not m:
            sys.exit("bench: the generator did not report its time:\n" + text[-2000:])
        return float(m.group(1))

    @staticmethod
    def calls(text):
        return sum(int(x) for x in re.findall(r"calls=(\d+)", text))

    @staticmethod
    def ringtrace_totals(text):
        m = re.search(r"recorded [0-9.]+ s into .*: (\d+) samples, (\d+) lost", text)
        if not m:
            sys.exit("bench: no ringtrace summary:\n" + text[-2000:])
        return int(m.group(1)), int(m.group(2))

    def perf_count(self, path, comm="loadgen"):
        """Samples of comm in a perf recording, and the losses perf reports."""
        o, _, _, _ = self.must(["perf", "script", "-i", path, "-F", "comm", "--show-lost-events"])
        samples = sum(1 for line in o.splitlines() if line.strip() == comm)
        lost = sum(int(x) for x in re.findall(r"PERF_RECORD_LOST lost (\d+)", o))
        return samples, lost

    # -- statistics and tables ------------------------------------------

    @staticmethod
    def med(values):
        return statistics.median(values) if values else float("nan")

    @staticmethod
    def spread(values, fmt="%.0f"):
        if not values:
            return "-"
        return (fmt + "-" + fmt) % (min(values), max(values))

    @staticmethod
    def verdict(what, value, goal, ok):
        """One line of a scenario's notes: a measured figure, its goal, PASS or FAIL."""
        return "- %s: %s (goal %s): %s" % (what, value, goal, "PASS" if ok else "FAIL")

    def rotated(self, items, rep):
        k = rep % len(items)
        return items[k:] + items[:k]

    def section(self, title, intro, header, rows, notes=()):
        """A scenario's output: title "N. ...", its intro, a table and notes under it
        (verdict lines "- ...: PASS" or "FAIL" among them), kept for the document."""
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
        lines.append("")
        lines += list(notes)
        # every goal's verdict printed again at the end of the run
        for note in notes:
            line = "bench: " + note[2:]
            if note.endswith((": PASS", ": FAIL")) and line not in self.goal_lines:
                self.goal_lines.append(line)
        finished = bench_doc.now()
        self.sections.append(bench_doc.Section(title, intro, "\n".join(lines), self.last_section, finished))
        self.last_section = finished
        print("\n".join(["## " + title, "", intro, ""] + lines), flush=True)

    # -- 1: per-event overhead ------------------------------------------

    def per_event_overhead(self):
        n = 20000 if self.quick else 200000
        cpu = str(os.cpu_count() - 1)
        gen = [self.loadgen, "--cpu", cpu, "--time", "getpid", str(n)]
        bt_print = 'tracepoint:syscalls:sys_enter_getpid /pid == cpid/ { printf("%d\\n", pid); }'
        bt_count = 'tracepoint:syscalls:sys_enter_getpid /pid == cpid/ { @n = count(); }'

        def none():
            _, e, _, _ = self.must(gen)
            return self.ns_per_call(e), 0

        def floor():
            return self.ns_per_call(self.under_empty_program(gen)), 0

        def ringtrace(transport):
            def f():
                d = self.fresh("s1.rt")
                _, e, _, _ = self.must([self.ringtrace, "record", "-a", "-e", TRACEPOINT,
                                        "--transport", transport, "--force", "-o", d, "--"] + gen)
                return self.ns_per_call(e), self.ringtrace_totals(e)[1]
            return f

        def perf():
            f = self.fresh("s1.perf")
            _, e, _, _ = self.must(["perf", "record", "-q", "-e", TRACEPOINT, "-a", "-o", f, "--"] + gen)
            samples, _ = self.perf_count(f)
            return self.ns_per_call(e), max(0, n - samples)

        def bpftrace_print():
            o, e, _, _ = self.must(["bpftrace", "-e", bt_print, "-c", " ".join(gen)])
            lines = sum(1 for line in o.splitlines() if line.strip().isdigit())
            return self.ns_per_call(e), max(0, n - lines)

        def bpftrace_count():
            o, e, _, _ = self.must(["bpftrace", "-e", bt_count, "-c", " ".join(gen)])
            m = re.search(r"@n: (\d+)", o)
            return self.ns_per_call(e), max(0, n - int(m.group(1))) if m else n

        tools = [("no tracer", none), ("empty BPF program (floor)", floor),
                 ("ringtrace ringbuf", ringtrace("ringbuf")), ("ringtrace perfbuf", ringtrace("perfbuf")),
                 ("ringtrace ring", ringtrace("ring")),
                 ("perf record -a", perf), ("bpftrace, a line per event", bpftrace_print),
                 ("bpftrace, count in a map", bpftrace_count)]
        ns = {name: [] for name, _ in tools}
        lost = {name: [] for name, _ in tools}
        for rep in range(self.reps):
            for name, fn in self.rotated(tools, rep):
                t, l = fn()
                ns[name].append(t)
                lost[name].append(l)
        base = self.med(ns["no tracer"])
        floor_add = self.med(ns["empty BPF program (floor)"]) - base
        perf_add = self.med(ns["perf record -a"]) - base
        rows = []
        for name, _ in tools:
            add = self.med(ns[name]) - base
            rows.append([name, "%.0f" % self.med(ns[name]), self.spread(ns[name]),
                         "%.0f" % add if name != "no tracer" else "-",
                         "%.2f" % (add / floor_add) if name != "no tracer" and floor_add > 0 else "-",
                         "%.2f" % (add / perf_add) if name != "no tracer" and perf_add > 0 else "-",
                         "%.0f" % self.med(lost[name])])
        self.results["overhead"] = {name: self.med(ns[name]) - base for name, _ in tools}
        notes = []
        # the goals: the BPF rings' of the first issues; ringtrace's own ring's of
        # #57, by host kind (perf's in-kernel path costs an Intel host less
        # against a BPF program than an AMD one: 0.6x there, 0.45x here)
        ring_goal = 0.45 if self.cpuinfo("vendor_id") == "AuthenticAMD" else 0.60
        for name, of_perf, of_floor in (("ringtrace ringbuf", 0.60, 1.30), ("ringtrace perfbuf", 0.60, 1.30),
                                        ("ringtrace ring", ring_goal, 1.50)):
            add = self.med(ns[name]) - base
            if perf_add > 0:
                notes.append(self.verdict("%s, added cost against perf record's" % name,
                                          "%.2fx" % (add / perf_add), "<= %.2fx" % of_perf,
                                          add <= of_perf * perf_add))
            if floor_add > 0:
                notes.append(self.verdict("%s, added cost against the empty program's" % name,
                                          "%.2fx" % (add / floor_add), "<= %.2fx" % of_floor,
                                          add <= of_floor * floor_add))
        self.section(
            "1. Per-event overhead on a tracepoint stream",
            "A generator pinned to the last CPU makes %d getpid calls (`loadgen --cpu %s --time "
            "getpid %d`), each a hit of `%s`; it times its own loop. Added cost = its ns per call "
            "under the tool minus without one. ringtrace and perf record every process's hits "
            "(`-a`); bpftrace filters on the generator's pid in the kernel." % (n, cpu, n, TRACEPOINT),
            ["tool", "ns/call (median)", "spread", "added ns/call", "x floor", "x perf record", "events lost"],
            rows, notes)

    # -- 2: highest lossless rate ----------------------------------------

    def lossless_rate(self):
        secs = "0.3" if self.quick else "0.5"
        ladder = [100000, 200000, 400000, 800000, 1600000, 3200000]
        bt = 'tracepoint:syscalls:sys_enter_getpid /comm == "loadgen"/ { printf("%d\\n", pid); }'

        def workload(total_rate):
            """A script running both generators (bpftrace -c splits on spaces only)."""
            per = total_rate // 2
            path = os.path.join(self.tmp, "s2-%d.sh" % total_rate)
            with open(path, "w") as f:
                f.write("%s --cpu 0 getpid-rate %d %s &\n%s --cpu %d getpid-rate %d %s &\nwait\n"
                        % (self.loadgen, per, secs, self.loadgen, os.cpu_count() - 1, per, secs))
            return path

        def ringtrace(transport):
            def f(rate):
                d = self.fresh("s2.rt")
                _, e, _, _ = self.must([self.ringtrace, "record", "-a", "-e", TRACEPOINT,
                                        "--transport", transport, "--force", "-o", d,
                                        "--", "/bin/sh", workload(rate)])
                calls = self.calls(e)
                _, lost = self.ringtrace_totals(e)
                return calls, lost
            return f

        def perf(rate):
            f = self.fresh("s2.perf")
            _, e, _, _ = self.must(["perf", "record", "-q", "-e", TRACEPOINT, "-a", "-o", f,
                                    "--", "/bin/sh", workload(rate)])
            calls = self.calls(e)
            samples, _ = self.perf_count(f)
            return calls, max(0, calls - samples)

        def bpftrace(rate):
            o, e, _, _ = self.must(["bpftrace", "-e", bt, "-c", "/bin/sh " + workload(rate)])
            calls = self.calls(e)
            lines = sum(1 for line in o.splitlines() if line.strip().isdigit())
            return calls, max(0, calls - lines)

        tools = [("ringtrace ringbuf", ringtrace("ringbuf")), ("ringtrace perfbuf", ringtrace("perfbuf")),
                 ("ringtrace ring", ringtrace("ring")),
                 ("perf record -a", perf), ("bpftrace, a line per event", bpftrace)]
        top = {name: [] for name, _ in tools}
        rate = {name: [] for name, _ in tools}
        for rep in range(self.reps):
            for name, fn in self.rotated(tools, rep):
                calls, lost = fn(0)
                top[name].append(100.0 * lost / calls if calls else 0.0)
                rate[name].append(calls / float(secs))
        # a tool that lost nothing in any flat-out run keeps up at every lower rate;
        # the others climb the ladder until they lose
        best = {}
        for name, fn in tools:
            if not max(top[name]):
                best[name] = None
                continue
            best[name] = 0
            for step in ladder:
                if step >= self.med(rate[name]):
                    break
                calls, lost = fn(step)
                if lost:
                    break
                best[name] = step

        def shown(name):
            if best[name] is None:
                return "flat out (%.0f)" % self.med(rate[name])
            if not best[name]:
                return "< %d" % ladder[0]
            return "%d" % best[name]

        rows = [[name, shown(name),
                 "%.0f" % self.med(rate[name]), "%.1f%%" % self.med(top[name]),
                 self.spread(top[name], "%.1f")] for name, _ in tools]
        self.results["lossless"] = {name: shown(name) for name, _ in tools}
        notes = [self.verdict("%s, lost at the generators' top rate" % name,
                              "%.1f%% (most %.1f%%)" % (self.med(top[name]), max(top[name])),
                              "nothing lost in any run", best[name] is None)
                 for name in ("ringtrace ringbuf", "ringtrace perfbuf", "ringtrace ring")]
        self.section(
            "2. Highest lossless rate",
            "Two generators, one pinned to each CPU, make getpid calls at a set total rate for %s s "
            "(`loadgen --cpu N getpid-rate R %s`); each tool records `%s` with its default buffer "
"sizes. First the generators run flat out (`getpid-rate 0`) %d times and the lost "
            "fraction is measured; a tool that lost nothing keeps up at the generators' top speed. "
            "For the others, the highest lossless rate is the highest step of %s (calls/s, both "
            "CPUs) below that speed at which the tool recorded every call (one run per step)."
            % (secs, secs, TRACEPOINT, self.reps, ladder),
            ["tool", "highest lossless rate (calls/s)", "flat-out rate (calls/s, median)",
             "lost at flat out (median)", "spread"],
            rows, notes)

    # -- 3: sampling profiler ---------------------------------------------

    def sampling(self):
        secs = 2 if self.quick else 10
        rows = []
        self.results["sampling"] = {}
        for hz in (999, 9999):
            self.allow_sample_rate(hz)

            def ringtrace(transport, call_graph):
                def f():
                    d = self.fresh("s3.rt")
                    _, e, usage, _ = self.must([self.ringtrace, "record", "-a", "--call-graph", call_graph,
                                             "-F", str(hz), "--transport", transport, "--force", "-o", d,
                                             "--", "sleep", str(secs)])
                    samples, lost = self.ringtrace_totals(e)
                    return usage, samples, lost, self.size_of(d)
                return f

            def perf():
                f = self.fresh("s3.perf")
                _, e, usage, _ = self.must(["perf", "record", "-a", "-g", "-F", str(hz), "-o", f, "--",
                                         "sleep", str(secs)])
                m = re.search(r"\((\d+) samples\)", e)
                samples = int(m.group(1)) if m else 0
                _, lost = self.perf_count(f)
                return usage, samples, lost, self.size_of(f)

            def bpftrace():
                o, e, usage, _ = self.must(["bpftrace", "-e",
                                         "profile:hz:%d { @[kstack, ustack, comm] = count(); }" % hz,
                                         "-c", "/bin/sleep %d" % secs])
                samples = sum(int(x) for x in re.findall(r"\]: (\d+)$", o, re.M))
                lost = sum(int(x) for x in re.findall(r"Lost (\d+) events", e))
                return usage, samples, lost, len(o.encode())

            # fp against perf's -g (frame pointers too); ehframe (ringtrace's -g)
            # also compiles unwind tables for every process at the start
            tools = [("ringtrace ringbuf", ringtrace("ringbuf", "fp")),
                     ("ringtrace perfbuf", ringtrace("perfbuf", "fp")),
                     ("ringtrace ring", ringtrace("ring", "fp")),
                     ("ringtrace ringbuf -g (ehframe)", ringtrace("ringbuf", "ehframe")),
                     ("ringtrace ring -g (ehframe)", ringtrace("ring", "ehframe")),
                     ("perf record -a -g", perf), ("bpftrace profile:hz", bpftrace)]
            m = {name: {"cpu": [], "rss": [], "bps": [], "samples": [], "lost": []} for name, _ in tools}
            busy = subprocess.Popen([self.loadgen, "--threads", "2", "spin",
                                     str(self.reps * len(tools) * (secs + 5))])
            time.sleep(0.3)
            for rep in range(self.reps):
                for name, fn in self.rotated(tools, rep):
                    self.allow_sample_rate(hz)  # lowered again by a slow run
                    usage, samples, lost, size = fn()
                    m[name]["cpu"].append(usage[0])
                    m[name]["rss"].append(usage[1] / 1024.0)
                    m[name]["bps"].append(size / samples if samples else 0)
                    m[name]["samples"].append(samples)
                    m[name]["lost"].append(lost)
            busy.kill()
            busy.wait()
            perf_cpu = self.med(m["perf record -a -g"]["cpu"])
            perf_rss = self.med(m["perf record -a -g"]["rss"])
            for name, _ in tools:
                r = m[name]
                rows.append(["%d Hz" % hz, name, "%.3f" % self.med(r["cpu"]), self.spread(r["cpu"], "%.3f"),
                             "%.2f" % (self.med(r["cpu"]) / perf_cpu) if perf_cpu else "-",
                             "%.1f" % self.med(r["rss"]),
                             "%.2f" % (self.med(r["rss"]) / perf_rss) if perf_rss else "-",
                             "%.0f" % self.med(r["bps"]), "%.0f" % self.med(r["samples"]),
                             "%.0f" % self.med(r["lost"])])
                self.results["sampling"][(hz, name)] = (self.med(r["cpu"]), self.med(r["rss"]))
        self.section(
            "3. Sampling profiler",
            "Two threads spin (`loadgen --threads 2 spin`); each tool samples every CPU with "
            "callchains for %d s (`record -a --call-graph fp -F HZ -- sleep %d`, as perf's `-g`, "
            "and ringtrace's own `-g`, which unwinds user stacks in the kernel from .eh_frame "
            "tables it compiles for every process at the start; bpftrace `profile:hz:HZ` "
            "counting stacks in a map). CPU = user + system seconds of the tracer process and "
            "its children, RSS = its peak, both from GNU time; bytes per sample = output size over samples "
            "(bpftrace prints its aggregated map). ringtrace `-g`'s RSS holds its BPF array of unwind rows "
            "(`--unwind-mem`, sized from the machine's code for a recording of every process, 64 MiB at "
            "least: kernel memory the map takes whether it is mapped or not) only through the window "
            "each table's rows are written through, mapped for that write and unmapped after it."
            % (secs, secs),
            ["rate", "tool", "CPU s (median)", "spread", "x perf", "peak RSS MiB", "x perf",
             "bytes/sample", "samples", "lost"],
            rows, self.ring_sampling_notes())

    def ring_sampling_notes(self):
        """#32's goal: -a -g at the highest rate, the own ring's CPU and RSS not above
        the BPF ring's."""
        s, notes = self.results["sampling"], []
        # #57: the -g recorder no bigger than perf record -a -g, at each rate
        for rate in sorted({h for h, _ in s}):
            ring, perf = s.get((rate, "ringtrace ring -g (ehframe)")), s.get((rate, "perf record -a -g"))
            if ring and perf:
                notes.append(self.verdict("ringtrace ring -g at %d Hz, peak RSS against perf record -a -g's" % rate,
                                          "%.1f MiB against %.1f" % (ring[1], perf[1]), "not above",
                                          ring[1] <= perf[1]))
        hz = max(h for h, _ in s)
        ring, ringbuf = s.get((hz, "ringtrace ring -g (ehframe)")), s.get((hz, "ringtrace ringbuf -g (ehframe)"))
        if ring and ringbuf:
            # GNU time's CPU seconds come in hundredths: equal medians compare equal
            notes.append(self.verdict("ringtrace ring -g at %d Hz, CPU against ringbuf's" % hz,
                                      "%.3f s against %.3f" % (ring[0], ringbuf[0]), "not above",
                                      round(ring[0], 3) <= round(ringbuf[0], 3)))
            notes.append(self.verdict("ringtrace ring -g at %d Hz, peak RSS against ringbuf's" % hz,
                                      "%.1f MiB against %.1f" % (ring[1], ringbuf[1]), "not above",
                                      ring[1] <= ringbuf[1]))
        return notes

    # -- 4: drain throughput --------------------------------------------

    def drain(self):
        secs = "0.3" if self.quick else "0.5"
        modes = [("ringtrace ringbuf drain into files", "ringbuf"),
                 ("ringtrace perfbuf drain into files", "perfbuf"),
                 ("libbpf ring_buffer__poll, writing each record (stdio)", "libbpf-file"),
                 ("libbpf ring_buffer__poll, counting only", "libbpf")]
        rate = {m: [] for _, m in modes}
        lost = {m: [] for _, m in modes}
        produced = {m: [] for _, m in modes}
        for rep in range(self.reps):
            for _, mode in self.rotated(modes, rep):
                d = self.fresh("s4")
                o, _, _, _ = self.must([os.path.join(self.tools, "drain_bench"), mode, secs, d])
                f = dict(kv.split("=") for kv in o.split())
                rate[mode].append(float(f["rate"]))
                lost[mode].append(100.0 * int(f["lost"]) / max(1, int(f["produced"])))
                produced[mode].append(int(f["produced"]) / float(f["seconds"]))
                shutil.rmtree(d, ignore_errors=True)
        base = self.med(rate["libbpf"])
        rows = [[label, "%.2f M" % (self.med(rate[m]) / 1e6), self.spread([x / 1e6 for x in rate[m]], "%.2f"),
                 "%.2f" % (self.med(rate[m]) / base) if base else "-",
                 "%.2f M" % (self.med(produced[m]) / 1e6), "%.1f%%" % self.med(lost[m])]
                for label, m in modes]
        self.results["drain"] = {m: self.med(rate[m]) for _, m in modes}
        ring, perf = self.med(rate["ringbuf"]), self.med(rate["perfbuf"])
        notes = [self.verdict("perf-array drain against the ring-buffer drain",
                              "%.2fx" % (perf / ring) if ring else "-", ">= 1.00x", ring and perf >= ring)]
        self.section(
            "4. Drain throughput",
            "A BPF program run by `BPF_PROG_TEST_RUN` on one CPU writes 96-byte sample records "
            "(1024 per run, `bpf_loop`) into a 512 KiB ring as fast as the kernel goes, for %s s; "
            "the drain runs on the other CPU. ringtrace's path is the one `record` uses "
            "(transport -> staging ring -> writer thread -> per-CPU file); libbpf's consumer on the "
            "same ring writes each record with fwrite, or only counts (the ceiling). Records "
            "delivered per second (`tools/bench/drain_bench`)." % secs,
            ["path", "records/s delivered (median)", "spread (M)", "x libbpf counting", "produced/s",
             "lost (median)"],
            rows, notes)

    # -- 5: report speed -------------------------------------------------

    def report_speed(self):
        n = 100000 if self.quick else 1000000
        d = self.fresh("s5.data")
        self.must([os.path.join(self.tools, "make_recording"), d, str(n), self.loadgen])
        self.must([self.ringtrace, "report", d])  # the kernel's table kept for the boot
        tools = [("ringtrace report", [self.ringtrace, "report", d]),
                 ("perf report --stdio", ["perf", "report", "-i", d, "--stdio"]),
                 ("perf report --stdio --no-children -g none", ["perf", "report", "-i", d, "--stdio",
                                                                "--no-children", "-g", "none"]),
                 ("ringtrace script", [self.ringtrace, "script", d]),
                 ("perf script", ["perf", "script", "-i", d])]
        wall, cpu = self.timed_in_turn(tools)
        rows = [[name, "%.3f" % self.med(wall[name]), self.spread(wall[name], "%.3f"),
                 "%.3f" % self.med(cpu[name]), self.spread(cpu[name], "%.3f")] for name, _ in tools]
        # issue 19: each of perf's against ringtrace's, with its goal
        goals = [("perf report --stdio", "ringtrace report", 20),
                 ("perf report --stdio --no-children -g none", "ringtrace report", 5),
                 ("perf script", "ringtrace script", 10)]
        verdicts = []
        for theirs, ours, goal in goals:
            xw = self.med(wall[theirs]) / self.med(wall[ours]) if self.med(wall[ours]) else 0
            xc = self.med(cpu[theirs]) / self.med(cpu[ours]) if self.med(cpu[ours]) else 0
            verdict = "PASS" if xw >= goal and xc >= goal else "FAIL"
            verdicts.append([ours + " vs " + theirs, ">= %dx" % goal, "%.1f" % xw, "%.1f" % xc, verdict])
            self.goal_lines.append("bench: %s vs %s: %.1fx wall, %.1fx CPU (goal >= %dx): %s"
                                   % (ours, theirs, xw, xc, goal, verdict))
            print(self.goal_lines[-1], flush=True)
        self.results["report"] = {name: (self.med(wall[name]), self.med(cpu[name])) for name, _ in tools}
        self.results["report_goals"] = verdicts
        self.section(
            "5. Report speed",
            "A recording of %d cpu-clock samples with callchains (kernel and user frames through "
            "the load generator's functions), written by `tools/bench/make_recording`, read by each "
            "tool to stdout, which goes to a file. `ringtrace report` prints top symbols by "
            "comm,dso,sym like `perf report --no-children -g none`; plain `perf report --stdio` "
            "also builds and prints the callchain trees; `ringtrace script` prints every sample "
            "and its callchain line for line as `perf script` does; both read the kernel's symbols "
            "from the table a report before them kept for the boot (`--kallsyms-cache`, "
            "docs/reports.md; scenario 12 times a report without it). Wall = elapsed seconds; CPU = "
            "user + system seconds of the process (its rusage, by wait4). A goal is met (PASS) when perf's "
            "median over ringtrace's reaches it in wall time and in CPU time." % n,
            ["tool", "wall s (median)", "spread", "CPU s (median)", "spread"],
            rows,
            ["| goal (issue 19) | wanted | x wall | x CPU | result |", "|---|---|---|---|---|"] +
            ["| " + " | ".join(v) + " |" for v in verdicts])

    # -- 6: stacks: in-kernel .eh_frame, frame pointers, DWARF ----------

    BPF_STATS = "/proc/sys/kernel/bpf_stats_enabled"
    PARCA_NS = 285  # Parca's published P50 per stack of over 90 frames (bare metal)

    def stacks(self):
        secs = 1 if self.quick else 3
        deep_needle = ";main" + ";uw_deep" * 40 + ";uw_c"
        workloads = [("chain", ";main;uw_a;uw_b;uw_c"), ("deep", deep_needle)]
        modes = [("ehframe", ["-g"]), ("fp", ["--call-graph", "fp"]),
                 ("dwarf", ["--call-graph", "dwarf"])]

        def sample_bytes(path):
            """The mean size of the recording's SAMPLE records, as perf script -D lists them."""
            p = subprocess.run("perf script -D -i %s 2>/dev/null | grep -o '\\[0x[0-9a-f]*\\]: PERF_RECORD_SAMPLE'"
                               % path, shell=True, capture_output=True, text=True)
            sizes = [int(x[1:].split("]")[0], 16) for x in p.stdout.split()
                     if x.startswith("[")]
            return sum(sizes) / len(sizes) if sizes else 0.0

        def full_path(folded, needle):
            total = full = 0
            for line in folded.splitlines():
                if line.startswith("unwindgen;"):
                    n = int(line.rsplit(" ", 1)[1])
                    total += n
                    full += n if needle in line else 0
            return 100.0 * full / total if total else 0.0

        def ringtrace(args, needle):
            def f(pid):
                d = self.fresh("s6.rt")
                # -v: the BPF programs' run times (bpf_stats) are printed only with it
                _, e, usage, _ = self.must([self.ringtrace, "record", "-v", "--per-thread", "-p", str(pid),
                                            "-F", "999"] + args + ["--force", "-o", d, "--", "sleep",
                                                                   str(secs)])
                samples, lost = self.ringtrace_totals(e)
                m = re.search(r"on_perf_event: (\d+) runs, (\d+) ns per run", e)
                bpf_ns = float(m.group(2)) if m else None
                _, _, _, wall = self.must([self.ringtrace, "report", d, "--children"])
                folded, _, _, _ = self.must([self.ringtrace, "report", d, "--folded"])
                _, _, _, perf_wall = self.must(["perf", "report", "-i", d, "--stdio", "--no-inline"])
                return (usage[0], samples, lost, self.size_of(d), sample_bytes(d), wall, perf_wall,
                        full_path(folded, needle), bpf_ns)
            return f

        def perf(args, needle):
            def f(pid):
                p = self.fresh("s6.perf")
                _, e, usage, _ = self.must(["perf", "record", "-p", str(pid), "-F", "999"] + args +
                                           ["-o", p, "--", "sleep", str(secs)])
                m = re.search(r"\((\d+) samples\)", e)
                samples = int(m.group(1)) if m else 0
                _, lost = self.perf_count(p, comm="unwindgen")
                _, _, _, wall = self.must(["perf", "report", "-i", p, "--stdio", "--no-inline"])
                return (usage[0], samples, lost, self.size_of(p), sample_bytes(p), None, wall, None,
                        None)
            return f

        tools = []
        for mode, args in modes:
            tools.append(("ringtrace record %s" % " ".join(args), mode, ringtrace))
        tools.append(("perf record --call-graph fp", "fp", perf))
        tools.append(("perf record --call-graph dwarf", "dwarf", perf))
        keys = ("cpu", "samples", "lost", "bps", "sample", "ours", "perf", "full", "bpf")
        with open(self.BPF_STATS) as f:
            stats_before = f.read().strip()
        rows, goals = [], []
        self.results["stacks"] = {}
        try:
            with open(self.BPF_STATS, "w") as f:
                f.write("1")
            for wl, needle in workloads:
                m = {name: {k: [] for k in keys} for name, _, _ in tools}
                busy = subprocess.Popen([self.unwindgen, wl, str(self.reps * len(tools) * (secs + 20))])
                time.sleep(0.3)
                for rep_ in range(self.reps):
                    for name, mode, make in self.rotated(tools, rep_):
                        args = ["-g"] if name.endswith("-g") else ["--call-graph", mode]
                        fn = make(args, needle)
                        cpu, samples, lost, size, sample, ours, theirs, full, bpf_ns = fn(busy.pid)
                        r = m[name]
                        r["sample"].append(sample)
                        r["cpu"].append(cpu)
                        r["samples"].append(samples)
                        r["lost"].append(lost)
                        r["bps"].append(size / samples if samples else 0)
                        r["perf"].append(theirs)
                        if ours is not None:
                            r["ours"].append(ours)
                            r["full"].append(full)
                        if bpf_ns is not None:
                            r["bpf"].append(bpf_ns)
                busy.kill()
                busy.wait()
                for name, mode, _ in tools:
                    r = m[name]
                    rows.append([wl, name,
                                 "%.0f" % self.med(r["bpf"]) if r["bpf"] else "-",
                                 self.spread(r["bpf"]) if r["bpf"] else "-",
                                 "%.0f" % self.med(r["sample"]),
                                 "%.0f" % self.med(r["bps"]), "%.0f" % self.med(r["samples"]),
                                 "%.0f" % self.med(r["lost"]), "%.3f" % self.med(r["cpu"]),
                                 "%.2f" % self.med(r["ours"]) if r["ours"] else "-",
                                 "%.2f" % self.med(r["perf"]), self.spread(r["perf"], "%.2f"),
                                 "%.1f%%" % self.med(r["full"]) if r["full"] else "-"])
                    self.results["stacks"][(wl, name)] = {k: self.med(v) for k, v in r.items() if v}
                    if mode == "ehframe" and r["bpf"]:
                        goal = self.STACK_BPF_NS_GOAL[self.cpuinfo("vendor_id") == "GenuineIntel"][wl]
                        line = self.verdict("ringtrace record -g, %s (%d user frames), BPF ns per sample"
                                            % (wl, 7 if wl == "chain" else 47),
                                            "%.0f ns" % self.med(r["bpf"]), "<= %d ns" % goal,
                                            self.med(r["bpf"]) <= goal)
                        goals.append(line)
                        self.goal_lines.append("bench: " + line[2:])
                        print(self.goal_lines[-1], flush=True)
        finally:
            with open(self.BPF_STATS, "w") as f:
                f.write(stats_before)
        self.section(
            "6. Stacks: in-kernel .eh_frame against frame pointers and DWARF",
            "`tools/unwindgen chain` (main -> uw_a -> uw_b -> uw_c: 7 user frames with libc's "
            "start and `_start`) and `tools/unwindgen deep` (40 more uw_deep frames: 47), built `-O2 "
            "-fomit-frame-pointer` as Debian builds, spin on one CPU; each tool records that "
            "process at 999 Hz for %d s (`ringtrace record --per-thread -p PID -F 999 MODE -- sleep "
            "%d`, `perf record -p PID -F 999 MODE -- sleep %d`) with `-g` (ringtrace: user stacks "
            "unwound in the kernel from .eh_frame tables), `--call-graph fp` and `--call-graph "
            "dwarf` (8 KiB of user stack per sample). BPF ns/sample = `run_time_ns / run_cnt` of "
            "ringtrace's `on_perf_event` from the kernel's bpf_stats (`kernel.bpf_stats_enabled` "
            "set to 1 for the scenario, restored after), the kernel callchain and the record's "
            "output included; Parca publishes P50 %d ns for stacks over 90 frames (bare metal). "
            "Sample bytes = the mean size of a SAMPLE record (`perf script -D`); file bytes per "
            "sample = output size over samples (side-band records included: the machine's "
            "processes at the start, and what they mapped and ran meanwhile); record CPU = user + system seconds of "
            "the recorder (GNU time); report = wall seconds of `ringtrace report --children` "
            "(every frame resolved, dwarf's user stacks unwound with libdw) and of `perf report "
            "--stdio --no-inline` on the same recording (for ringtrace's rows, perf reading "
            "ringtrace's recording); full path = unwindgen's samples whose folded stack (ringtrace "
            "report) holds main and every frame under it." % (secs, secs, secs, self.PARCA_NS),
            ["stack", "recorder", "BPF ns/sample (median)", "spread", "sample bytes",
             "file bytes/sample", "samples",
             "lost", "record CPU s", "ringtrace report s", "perf report s", "spread", "full path"],
            rows, goals)

    # -- the document ----------------------------------------------------

    # scenario 6's goals for -g's in-kernel walk, per sample (issue #52)
    # by host kind: #57's on an Intel host (where it was set); #41's elsewhere
    # (an AMD host's safe RET, its SRSO mitigation, sends every return of the
    # walk's functions and helpers through a thunk)
    STACK_BPF_NS_GOAL = {True: {"chain": 400, "deep": 800}, False: {"chain": 1000, "deep": 3000}}

    SAMPLE_RATE = "/proc/sys/kernel/perf_event_max_sample_rate"

    def allow_sample_rate(self, hz):
        """Raises kernel.perf_event_max_sample_rate to hz when the kernel has
        lowered it below (it does when samples take long: perf_cpu_time_max_percent),
        as both perf and ringtrace refuse a higher -F; main() restores it."""
        with open(self.SAMPLE_RATE) as f:
            now = int(f.read())
        if self.sample_rate_before is None:
            self.sample_rate_before = now
        if now < hz:
            with open(self.SAMPLE_RATE, "w") as f:
                f.write(str(hz))
            self.sample_rate_raised = True

    @staticmethod
    def cpuinfo(field):
        """The first value of field in /proc/cpuinfo (model name; vendor_id:
        GenuineIntel, AuthenticAMD, ...), or "unknown"."""
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.split(":", 1)[0].strip() == field:
                    return line.split(":", 1)[1].strip()
        return "unknown"

    def versions(self):
        def first_line(argv):
            try:
                return subprocess.run(argv, capture_output=True, text=True).stdout.splitlines()[0]
            except (OSError, IndexError):
                return "not found"
        cpu = self.cpuinfo("model name")
        try:
            with open("/sys/devices/system/clocksource/clocksource0/current_clocksource") as f:
                clock = f.read().strip()
        except OSError:
            clock = "unknown"
        # the subsections this run's tables go under (bench_doc)
        self.host_kind = bench_doc.host_kind(cpu, clock)
        gen = [self.loadgen, "--cpu", str(os.cpu_count() - 1), "--time", "getpid", "200000"]
        bare = self.med([self.ns_per_call(self.must(gen)[1]) for _ in range(3)])
        return [("machine", "%s, %d CPUs, %.0f GiB" % (cpu, os.cpu_count(),
                 os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30)),
                ("bare syscall", "getpid %.0f ns (`%s`, median of 3, when the run began)"
                 % (bare, " ".join(["loadgen"] + gen[1:]))),
                ("clocksource", clock),
                ("kernel", platform.release()),
                ("ringtrace", first_line([self.ringtrace, "--version"])),
                ("perf", first_line(["perf", "--version"])),
                ("bpftrace", first_line(["bpftrace", "--version"]))]

    def headline(self):
        """Each scenario's summary for the headline of its host kind: {number: text}."""
        r = self.results
        lines = {}
        o = r.get("overhead")
        if o:
            lines[1] = ("per-event added cost: ringtrace ringbuf %.0f ns, perfbuf %.0f ns, ring %.0f ns, "
                        "perf record %.0f ns, the empty-program floor %.0f ns: ring %.2fx perf record's, "
                        "%.2fx the floor"
                        % (o["ringtrace ringbuf"], o["ringtrace perfbuf"], o["ringtrace ring"],
                           o["perf record -a"], o["empty BPF program (floor)"],
                           o["ringtrace ring"] / o["perf record -a"],
                           o["ringtrace ring"] / o["empty BPF program (floor)"]))
        if r.get("lossless"):
            b = r["lossless"]
            lines[2] = ("highest lossless rate (calls/s): ringtrace ringbuf %s, perfbuf %s, ring %s, "
                        "perf record %s, bpftrace %s"
                        % (b["ringtrace ringbuf"], b["ringtrace perfbuf"], b["ringtrace ring"],
                           b["perf record -a"], b["bpftrace, a line per event"]))
        if r.get("sampling"):
            s = r["sampling"]
            rates = []
            for hz in (999, 9999):
                ours, perf = s[(hz, "ringtrace ringbuf")], s[(hz, "perf record -a -g")]
                eh = s[(hz, "ringtrace ringbuf -g (ehframe)")]
                rates.append("at %d Hz with frame pointers: ringtrace ringbuf uses %.2fx perf record's CPU and %.2fx its peak RSS; "
                             "with -g (ehframe, tables compiled at start) %.2fx and %.2fx"
                             % (hz, ours[0] / perf[0] if perf[0] else 0, ours[1] / perf[1] if perf[1] else 0,
                                eh[0] / perf[0] if perf[0] else 0, eh[1] / perf[1] if perf[1] else 0))
            lines[3] = "sampling " + "; ".join(rates)
        if r.get("drain"):
            d = r["drain"]
            lines[4] = ("drain into files: ringtrace ringbuf %.2fx, perfbuf %.2fx libbpf's consumer writing "
                        "each record; %.2fx, %.2fx its counting-only ceiling"
                        % (d["ringbuf"] / d["libbpf-file"], d["perfbuf"] / d["libbpf-file"],
                           d["ringbuf"] / d["libbpf"], d["perfbuf"] / d["libbpf"]))
        if r.get("report"):
            p = r["report"]

            def x(theirs, ours, i):
                return p[theirs][i] / p[ours][i] if p[ours][i] else 0
            lines[5] = ("1M samples, wall (CPU): ringtrace report %.1fx (%.1fx) faster than perf report --stdio "
                        "(goal 20x), %.1fx (%.1fx) than perf report --no-children -g none (goal 5x); "
                        "ringtrace script %.1fx (%.1fx) faster than perf script (goal 10x)"
                        % (x("perf report --stdio", "ringtrace report", 0),
                           x("perf report --stdio", "ringtrace report", 1),
                           x("perf report --stdio --no-children -g none", "ringtrace report", 0),
                           x("perf report --stdio --no-children -g none", "ringtrace report", 1),
                           x("perf script", "ringtrace script", 0), x("perf script", "ringtrace script", 1)))
        for line in build_stacks.headline(r):
            lines[7] = line[2:]
        for line in report_real.headline(r):
            lines[12] = line[2:]
        return lines

    def document(self, path, command):
        """Merges this run's scenarios into the document at path (docs/BENCHMARKS.md:
        bench_doc.py says its shape) under this machine's host kind."""
        doc = bench_doc.Document()
        if os.path.exists(path):
            with open(path) as f:
                doc = bench_doc.parse(f.read())
        run = bench_doc.Run(self.host_kind, command, self.commit, bench_doc.machine_line(self.machine))
        bench_doc.merge(doc, run, self.sections, self.headline())
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        with open(path, "w") as f:
            f.write(bench_doc.render(doc))


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--build", default="build")
    ap.add_argument("--out", default="docs/BENCHMARKS.md")
    ap.add_argument("--reps", type=int, default=REPS)
    ap.add_argument("--quick", action="store_true", help="small sizes, for trying the harness")
    ap.add_argument("--only", default="", help="comma-separated scenario numbers")
    args = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("bench: run as root (the tracers load BPF programs)")
    b = Bench(args.build, args.reps, args.quick)
    scenarios = [b.per_event_overhead, b.lossless_rate, b.sampling, b.drain, b.report_speed,
                 b.stacks, lambda: build_stacks.run(b), lambda: agent_cost.run(b),
                 lambda: tracing_cost.filtered_out(b), lambda: tracing_cost.summary(b),
                 lambda: python_cost.run(b), lambda: report_real.run(b),
                 lambda: java_cost.run(b), lambda: node_cost.run(b)]
    only = {int(x) for x in args.only.split(",") if x}
    t0 = time.monotonic()
    b.machine = b.versions()  # the bare syscall timed before the scenarios load the machine
    try:
        for i, s in enumerate(scenarios, 1):
            if not only or i in only:
                t = time.monotonic()
                s()
                b.timings.append("%d: %.0f s" % (i, time.monotonic() - t))
    finally:
        shutil.rmtree(b.tmp, ignore_errors=True)
        if b.sample_rate_raised:
            b.machine.append(("kernel.perf_event_max_sample_rate",
                              "%d, raised to 9999 for the 9999 Hz runs and restored after"
                              % b.sample_rate_before))
            with open(b.SAMPLE_RATE, "w") as f:
                f.write(str(b.sample_rate_before))
    command = "make bench" if not (args.quick or only or args.reps != REPS) else " ".join(sys.argv)
    b.document(args.out, command)
    for line in b.goal_lines:
        print(line)
    print("bench: wrote %s in %.0f s" % (args.out, time.monotonic() - t0))


if __name__ == "__main__":
    main()
