#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
# soak.py: make soak: a flight recording of a tracepoint hit as fast as one CPU
# makes them, for SECONDS, with a snapshot every minute: RSS, open files and
# the accounting sampled as it runs; the result goes into docs/BENCHMARKS.md.
"""ringtrace soak: is memory flat, are file descriptors constant, and does every
event stay accounted for (produced = held + overwritten + lost) over a long run?"""

import argparse
import datetime
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time

TRACEPOINT = "syscalls:sys_enter_getpid"
SECTION = "## Soak"


def rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def open_fds(pid):
    return len(os.listdir("/proc/%d/fd" % pid))


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--build", default="build")
    ap.add_argument("--seconds", type=int, default=600)
    ap.add_argument("--out", default="docs/BENCHMARKS.md")
    args = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("soak: run as root (ringtrace loads BPF programs)")
    ringtrace = os.path.abspath(os.path.join(args.build, "ringtrace"))
    loadgen = os.path.abspath(os.path.join(args.build, "loadgen"))
    work = tempfile.mkdtemp(prefix="ringtrace-soak-")
    out_dir = os.path.join(work, "rec")
    log = open(os.path.join(work, "log"), "w+")
    cpu = os.cpu_count() - 1
    rec = subprocess.Popen([ringtrace, "record", "--overwrite", "-e", TRACEPOINT, "-o", out_dir,
                            "--", loadgen, "--cpu", str(cpu), "getpid-rate", "0", str(args.seconds)],
                           stdout=log, stderr=subprocess.STDOUT)
    samples = []  # (seconds, rss KiB, fds)
    t0 = time.monotonic()
    next_snapshot = 60
    first_snapshot = None
    time.sleep(2)
    while rec.poll() is None:
        t = time.monotonic() - t0
        try:
            samples.append((t, rss_kib(rec.pid), open_fds(rec.pid)))
        except OSError:
            break
        if t >= next_snapshot:
            rec.send_signal(signal.SIGUSR2)
            if first_snapshot is None:
                first_snapshot = t
            next_snapshot += 60
        time.sleep(5)
    rec.wait()
    log.seek(0)
    text = log.read()
    if rec.returncode != 0:
        sys.exit("soak: the recording failed (%d):\n%s" % (rec.returncode, text[-3000:]))
    m = re.search(r"calls=(\d+)", text)
    calls = int(m.group(1)) if m else 0
    m = re.search(r"(\d+) snapshots? in .*?: (\d+) samples produced = (\d+) held \+ (\d+) overwritten \+ (\d+) lost",
                  text)
    if not m:
        sys.exit("soak: no totals in the output:\n" + text[-3000:])
    snaps, produced, held, over, lost = (int(x) for x in m.groups())
    # the first minute fills the rings; the first snapshot allocates its copy
    # buffers once: the steady state starts 10 s after it
    settled = (first_snapshot or 0) + 10
    warm = [s for s in samples if s[0] < settled] or samples
    steady = [s for s in samples if s[0] >= settled] or samples
    rss = [s[1] for s in steady]
    fds = [s[2] for s in samples]
    ok = produced == held + over + lost == calls
    lines = [SECTION, "",
             "Written by `make soak` on %s: `ringtrace record --overwrite -e %s` of a generator "
             "making getpid calls as fast as one CPU goes for %d s, a snapshot (SIGUSR2) every "
             "minute; the recording's RSS and open file descriptors sampled every 5 s from /proc. "
             "The first minute fills the rings and the first snapshot allocates its copy buffers; "
             "the steady state starts 10 s after that snapshot."
             % (datetime.date.today().isoformat(), TRACEPOINT, args.seconds), "",
             "| | |", "|---|---|",
             "| events (generator's count) | %d (%.0f/s) |" % (calls, calls / float(args.seconds)),
             "| snapshots | %d |" % snaps,
             "| produced = held + overwritten + lost | %d = %d + %d + %d: %s |"
             % (produced, held, over, lost, "exact, and equal to the generator's count" if ok
                else "MISMATCH"),
             "| RSS until 10 s after the first snapshot, KiB: min / max | %d / %d |"
             % (min(s[1] for s in warm), max(s[1] for s in warm)),
             "| RSS from then on (%d samples), KiB: min / median / max | %d / %d / %d |"
             % (len(rss), min(rss), statistics.median(rss), max(rss)),
             "| RSS growth from then on, first to last sample | %+d KiB |" % (rss[-1] - rss[0]),
             "| open file descriptors: min / max | %d / %d |" % (min(fds), max(fds)),
             ""]
    section = "\n".join(lines)
    print(section)
    doc = open(args.out).read() if os.path.exists(args.out) else "# ringtrace benchmarks\n"
    if SECTION in doc:
        doc = doc[:doc.index(SECTION)].rstrip("\n") + "\n"
    with open(args.out, "w") as f:
        f.write(doc.rstrip("\n") + "\n\n" + section)
    subprocess.run(["rm", "-rf", work])
    if not ok or min(fds) != max(fds):
        sys.exit("soak: accounting or file descriptors did not hold")


if __name__ == "__main__":
    main()
