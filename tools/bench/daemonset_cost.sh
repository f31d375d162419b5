#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# daemonset_cost.sh: the exporter's cost as the DaemonSet runs it (the pod's
# view built from deploy/kubernetes/ringtrace-exporter.yaml by
# tests/integration/daemonset_pod.py), under churn: short processes (true,
# sleep), a short python3 every second, a binary copied anew and run every 2 s,
# a busy loop; a 10 s profile pulled every 15 s (as Parca and Alloy do). Prints
# the exporter's and its sampling child's RSS (sum, peak) and CPU.
#
# usage: tools/bench/daemonset_cost.sh SECONDS [BUILD]   (as root; BUILD: build)
set -u
seconds=${1:-240}
build=$(realpath "${2:-build}")
src=$(dirname "$(realpath "$0")")/../..
work=$(mktemp -d /tmp/ringtrace-daemonset-cost.XXXXXX)
port=29435
/usr/bin/python3 "$src/tests/integration/daemonset_pod.py" "$src/deploy/kubernetes/ringtrace-exporter.yaml" \
	"$build/ringtrace" "$work" "$port" >"$work/export.log" 2>&1 &
pod=$!
for _ in $(seq 60); do
	sleep 1
	nsenter --net=/proc/$pod/ns/net curl -sf -o /dev/null "http://127.0.0.1:$port/healthz" && break
done
exporter=$pod
[ "$(cat /proc/$pod/comm)" = ringtrace ] || exporter=$(pgrep -x -P "$pod" ringtrace)
child=$(pgrep -x -P "$exporter" ringtrace)
# the churn, stopped by pid at the end
"$build/unwindgen" chain $((seconds + 30)) >/dev/null 2>&1 &
busy=$!
(
	i=0
	while :; do
		true; sleep 0.01; /bin/true
		i=$((i + 1))
		if [ $((i % 50)) = 0 ]; then /usr/bin/python3 -c 'sum(range(100000))'; fi
		if [ $((i % 100)) = 0 ]; then
			cp "$build/unwindgen" "$work/bin-$i" && "$work/bin-$i" chain 0.05 >/dev/null 2>&1
			rm -f "$work/bin-$i"
		fi
	done
) >/dev/null 2>&1 &
churn=$!
(
	while :; do
		sleep 5
		nsenter --net=/proc/$pod/ns/net curl -s -o /dev/null \
			"http://127.0.0.1:$port/debug/pprof/profile?seconds=10"
	done
) >/dev/null 2>&1 &
puller=$!
ticks=$(getconf CLK_TCK)
cpu_of() { awk -v t="$ticks" '{ print ($14 + $15 + $16 + $17) / t }' "/proc/$1/stat"; }
cpu0=$(echo "$(cpu_of "$exporter") + $(cpu_of "$child")" | bc -l)
peak=0
start=$(date +%s.%N)
end=$(( $(date +%s) + seconds ))
while [ "$(date +%s)" -lt "$end" ]; do
	rss=$(( $(awk '/^VmRSS/ {print $2}' /proc/$exporter/status) + $(awk '/^VmRSS/ {print $2}' /proc/$child/status) ))
	[ "$rss" -gt "$peak" ] && peak=$rss
	echo "$(date +%s) rss_kib=$rss" >>"$work/rss.log"
	sleep 2
done
cpu1=$(echo "$(cpu_of "$exporter") + $(cpu_of "$child")" | bc -l)
elapsed=$(echo "$(date +%s.%N) - $start" | bc -l)
last=$(tail -1 "$work/rss.log")
echo "exporter+child over ${seconds} s: CPU $(echo "100 * ($cpu1 - $cpu0) / $elapsed" | bc -l | cut -c1-5)% of one CPU, RSS peak $((peak / 1024)) MiB, last ${last#* rss_kib=} KiB"
echo "exporter alone now: $(awk '/^VmRSS/ {print $2}' /proc/$exporter/status) KiB, child: $(awk '/^VmRSS/ {print $2}' /proc/$child/status) KiB, run volume: $(du -sh "$work/volume-run" | cut -f1)"
kill "$puller" "$churn" "$busy"
kill "$exporter"
wait "$pod" 2>/dev/null
wait
echo "log: $work/export.log"
