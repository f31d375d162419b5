#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# export_offcpu_cost.sh: what export -g --off-cpu costs a workload that
# switches context all the time, against export -g and against no ringtrace:
# perf bench sched pipe (two processes passing a token through pipes, two
# context switches an op), both on the last CPU (placed freely, their
# wakeups across CPUs swing with idle states more than with ringtrace), run
# under each, in turn, rep by rep (the order rotated); the median
# usecs/op of each and its ratio to none's, and the offcpu_switch program's
# ns per switch (bpf_stats) under --off-cpu.
#
# usage: tools/bench/export_offcpu_cost.sh [BUILD_DIR [REPS [LOOPS]]]
#   (as root; default build, 5 reps, 200000 ops a run)
set -u
build=${1:-build}
reps=${2:-5}
loops=${3:-200000}
port=$(( 21000 + $$ % 5000 ))
out=$(mktemp -d)
was=$(sysctl -n kernel.bpf_stats_enabled)
exporter=
cleanup() {
	[ -z "$exporter" ] || { kill "$exporter" 2>/dev/null; wait "$exporter" 2>/dev/null; }
	sysctl -q -w kernel.bpf_stats_enabled="$was"
	rm -rf "$out"
}
trap cleanup EXIT
sysctl -q -w kernel.bpf_stats_enabled=1

# an exporter with the options given, ready once it serves a profile
start_exporter() {
	RUNTIME_DIRECTORY=$out "$build/ringtrace" export --listen "127.0.0.1:$port" "$@" \
		>"$out/export.log" 2>&1 &
	exporter=$!
	for _ in $(seq 60); do
		curl -sf -o /dev/null "http://127.0.0.1:$port/debug/pprof/profile?seconds=1" && return 0
		sleep 0.5
	done
	echo "the exporter never served a profile:" >&2
	cat "$out/export.log" >&2
	exit 1
}

# stopped, and its BPF programs' teardown left to finish before the next run
stop_exporter() {
	kill "$exporter"
	wait "$exporter" 2>/dev/null
	exporter=
	sleep 3
}

# usecs/op of one run of the workload
workload() {
	taskset -c "$(( $(nproc) - 1 ))" perf bench sched pipe -l "$loops" 2>/dev/null | sed -n 's/^ *\([0-9.]*\) usecs\/op.*/\1/p'
}

# offcpu_switch's runs and ns since it was loaded
offcpu_stats() {
	bpftool prog show -j | python3 -c '
import json, sys
for p in json.load(sys.stdin):
    if p.get("name") == "offcpu_switch" and "run_cnt" in p:
        print(p["run_cnt"], p["run_time_ns"])'
}

: >"$out/none" ; : >"$out/cpu" ; : >"$out/offcpu" ; : >"$out/per_switch"
order=(none cpu offcpu)
for ((i = 0; i < reps; i++)); do
	# each first, second and last in turn
	for ((j = 0; j < 3; j++)); do
		what=${order[(i + j) % 3]}
		case $what in
		none) workload >>"$out/none" ;;
		cpu) start_exporter -g; workload >>"$out/cpu"; stop_exporter ;;
		offcpu)
			start_exporter -g --off-cpu
			read -r n0 t0 < <(offcpu_stats)
			workload >>"$out/offcpu"
			read -r n1 t1 < <(offcpu_stats)
			echo "$(( (t1 - t0) / (n1 - n0 > 0 ? n1 - n0 : 1) ))" >>"$out/per_switch"
			stop_exporter ;;
		esac
	done
done
python3 - "$out" "$loops" <<'EOF'
import statistics, sys
d, loops = sys.argv[1], sys.argv[2]
def vals(name):
    return [float(x) for x in open("%s/%s" % (d, name)).read().split()]
none = vals("none")
med = statistics.median(none)
print("taskset -c LAST perf bench sched pipe -l %s, usecs/op: median (min-max) of %d runs" % (loops, len(none)))
for name, label in (("none", "no ringtrace"), ("cpu", "export -g"), ("offcpu", "export -g --off-cpu")):
    v = vals(name)
    print("%-22s %6.2f (%.2f-%.2f)  x%.2f" % (label, statistics.median(v), min(v), max(v), statistics.median(v) / med))
p = vals("per_switch")
print("offcpu_switch: %.0f ns per switch (median; %.0f-%.0f)" % (statistics.median(p), min(p), max(p)))
EOF
