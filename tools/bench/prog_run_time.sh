#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# prog_run_time.sh: the kernel's run time per run (bpf_stats) of the program a
# tracer attaches to syscalls:sys_enter_getpid while loadgen calls getpid.
#
# usage: prog_run_time.sh BUILD ringbuf|perfbuf|floor [REPS [CALLS]] [RINGTRACE]
#   ringbuf/perfbuf: RINGTRACE (default BUILD/ringtrace) records -a with that
#   transport, its on_tracepoint measured; floor: BUILD/bench/empty_tracepoint,
#   its do_nothing measured. Each rep: run_time_ns and run_cnt before and after
#   `loadgen --cpu LAST --time getpid CALLS`. Prints every rep's ns/run, then
#   min and median. Needs root and kernel.bpf_stats_enabled=1 (turned on for the
#   run and back off after, if it was off).
set -eu
build=$1 mode=$2 reps=${3:-7} calls=${4:-300000} ringtrace=${5:-$1/ringtrace}
cpu=$(( $(nproc) - 1 ))
tmp=$(mktemp -d)
was=$(sysctl -n kernel.bpf_stats_enabled)
cleanup() { [ "$was" = 1 ] || sysctl -q kernel.bpf_stats_enabled=0; rm -rf "$tmp"; }
trap cleanup EXIT
sysctl -q kernel.bpf_stats_enabled=1

prog_stats() { # NAME PID -> "run_time_ns run_cnt" of PID's program NAME (its fds' fdinfo)
	python3 - "$1" "$2" <<'PY'
import json, os, subprocess, sys
name, pid = sys.argv[1], sys.argv[2]
ids = set()
for fd in os.listdir("/proc/%s/fdinfo" % pid):
    try:
        info = dict(l.split(":", 1) for l in open("/proc/%s/fdinfo/%s" % (pid, fd)) if ":" in l)
    except OSError:
        continue
    if "prog_id" in info:
        ids.add(int(info["prog_id"]))
t = c = 0
for i in ids:
    p = json.loads(subprocess.run(["bpftool", "prog", "show", "id", str(i), "-j"],
                                  capture_output=True, text=True).stdout or "{}")
    if p.get("name") == name:
        t, c = t + p.get("run_time_ns", 0), c + p.get("run_cnt", 0)
print(t, c) if c else None
PY
}

results=()
for _ in $(seq "$reps"); do
	if [ "$mode" = floor ]; then
		prog=do_nothing
		mkfifo "$tmp/in"
		"$build/bench/empty_tracepoint" syscalls:sys_enter_getpid < "$tmp/in" > "$tmp/out" &
		pid=$!
		exec 3> "$tmp/in"
		until grep -q ready "$tmp/out" 2>/dev/null; do sleep 0.05; done
	else
		prog=on_tracepoint
		"$ringtrace" record -q -a -e syscalls:sys_enter_getpid --transport "$mode" --force \
			-o "$tmp/rec" -- sleep 600 2> "$tmp/err" &
		pid=$!
		until [ -n "$(prog_stats $prog $pid 2>/dev/null | awk '$2 != "" {print}')" ] &&
		      [ -s "$tmp/rec/data" ]; do sleep 0.05; done
		sleep 0.3 # attached just after load
	fi
	read -r t0 c0 < <(prog_stats $prog $pid)
	"$build/loadgen" --cpu "$cpu" --time getpid "$calls" 2> /dev/null
	read -r t1 c1 < <(prog_stats $prog $pid)
	if [ "$mode" = floor ]; then exec 3>&-; rm -f "$tmp/in"; else kill -INT $pid; fi
	wait $pid || true
	results+=($(( (t1 - t0) / (c1 - c0) )))
done
printf '%s ns/run:' "$mode"; printf ' %s' "${results[@]}"; echo
printf '%s\n' "${results[@]}" | sort -n | awk '{a[NR] = $1} END {printf "min %d median %d\n", a[1], a[int((NR + 1) / 2)]}'
