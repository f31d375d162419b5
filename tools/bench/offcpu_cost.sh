#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# offcpu_cost.sh: what record --off-cpu's sched_switch program costs per context
# switch, from bpf_stats (run_time_ns / run_cnt of offcpu_switch), in three scopes.
#
# usage: tools/bench/offcpu_cost.sh [BUILD_DIR [RUNS]]   (as root; default build, 3)
# Each run: loadgen sleeps 1 ms 3000 times in the background, ringtrace records
# "-- sleep 4" with --off-cpu in the scope given, bpftool reads the program's
# counters after 3.5 s. kernel.bpf_stats_enabled is set to 1 while it runs and
# put back as it was.
set -u
build=${1:-build}
runs=${2:-3}
out=$(mktemp -d)
was=$(sysctl -n kernel.bpf_stats_enabled)
sysctl -q -w kernel.bpf_stats_enabled=1
restore() { sysctl -q -w kernel.bpf_stats_enabled="$was"; rm -rf "$out"; }
trap restore EXIT

measure() {
	local label=$1; shift
	"$build/loadgen" sleep 3000 1 >/dev/null 2>&1 &
	local lg=$!
	local args=("$@")
	"$build/ringtrace" record -q "${args[@]}" -o "$out/rec" --force -- sleep 4 >"$out/log" 2>&1 &
	local rt=$!
	sleep 3.5
	bpftool prog show -j | python3 -c '
import json, sys
for p in json.load(sys.stdin):
    if p.get("name") == "offcpu_switch" and "run_cnt" in p:
        n = max(p["run_cnt"], 1)
        print("%-22s %8d switches %12d ns  %6.0f ns per switch" % (sys.argv[1], p["run_cnt"], p["run_time_ns"], p["run_time_ns"] / n))
' "$label"
	wait "$rt"
	kill "$lg" 2>/dev/null
	wait "$lg" 2>/dev/null
}

for ((i = 0; i < runs; i++)); do
	measure "-p (another process)" -p 1 --off-cpu
	measure "-a -g" -a -g --off-cpu
	measure "-a --call-graph fp" -a --call-graph fp --off-cpu
done
