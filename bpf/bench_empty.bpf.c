/* SPDX-License-Identifier: GPL-2.0-only */
/* bench_empty.bpf.c: a tracepoint program that does nothing, attached the way
 * ringtrace attaches its own: the floor of per-event cost in the benchmarks. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

/* 1, as ringtrace's own programs: other users' perf events on the
 * tracepoint go on counting and sampling (0 would silence them). */
SEC("tracepoint")
int do_nothing(void *ctx)
{
	return 1;
}

char LICENSE[] SEC("license") = "GPL";
