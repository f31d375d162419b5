// SPDX-License-Identifier: GPL-2.0
/* bench_empty.bpf.c: a tracepoint program that does nothing, attached the way
 * ringtrace attaches its own: the floor of per-event cost in the benchmarks. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

SEC("tracepoint")
int do_nothing(void *ctx)
{
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
