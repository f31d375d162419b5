#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# paired_run_time.sh: the BPF run time per sample (bpf_stats) of two ringtrace
# builds recording the same spinning unwindgen at the same time, rep by rep:
# a change of tens of ns is seen in the difference, where this VM's host moves
# the run time of either by hundreds from one run to the next.
#
# usage: paired_run_time.sh BUILD RINGTRACE_A RINGTRACE_B [REPS [WORKLOAD [SECS [ARGS]]]]
#   WORKLOAD: unwindgen's (chain, deep; default chain); ARGS: the recording's
#   (default -g). Each rep: both builds `record -v --per-thread -p PID -F 999 ARGS`
#   for SECS (default 2) at once, their on_perf_event ns per run read from the
#   totals. Prints every rep's A, B and A - B, then the median of A - B. Run
#   it again with A and B swapped: a difference that keeps its sign is the
#   builds', one that follows the order is the pairing's. Needs root.
set -eu
build=$1 a=$2 b=$3 reps=${4:-8} workload=${5:-chain} secs=${6:-2} args=${7:--g}
tmp=$(mktemp -d)
was=$(sysctl -n kernel.bpf_stats_enabled)
busy=
cleanup() {
	[ -z "$busy" ] || kill "$busy" 2>/dev/null || true
	[ "$was" = 1 ] || sysctl -q kernel.bpf_stats_enabled=0
	rm -rf "$tmp"
}
trap cleanup EXIT
sysctl -q kernel.bpf_stats_enabled=1
"$build/unwindgen" "$workload" $(( reps * (secs + 10) + 10 )) &
busy=$!
sleep 0.3

ns_per_run() { # TOTALS -> on_perf_event's ns per run
	sed -n 's/.*on_perf_event: [0-9]* runs, \([0-9]*\) ns per run.*/\1/p' "$1"
}

diffs=()
for ((i = 0; i < reps; i++)); do
	# shellcheck disable=SC2086 # ARGS is words
	timeout $(( secs + 30 )) "$a" record -v --per-thread -p "$busy" -F 999 $args --force \
		-o "$tmp/a" -- sleep "$secs" >"$tmp/a.err" 2>&1 &
	pa=$!
	# shellcheck disable=SC2086
	timeout $(( secs + 30 )) "$b" record -v --per-thread -p "$busy" -F 999 $args --force \
		-o "$tmp/b" -- sleep "$secs" >"$tmp/b.err" 2>&1 || true
	wait "$pa" || true
	na=$(ns_per_run "$tmp/a.err") nb=$(ns_per_run "$tmp/b.err")
	if [ -z "$na" ] || [ -z "$nb" ]; then
		echo "rep $i: no run time read (see $tmp/a.err, $tmp/b.err)" >&2
		continue
	fi
	diffs+=($(( na - nb )))
	echo "rep $i: A $na B $nb A-B $(( na - nb ))"
done
[ ${#diffs[@]} -gt 0 ] || { echo "no rep measured" >&2; exit 1; }
printf '%s\n' "${diffs[@]}" | sort -n |
	awk '{ d[NR] = $1 } END { printf "median A-B %d ns over %d reps\n", d[int((NR + 1) / 2)], NR }'
