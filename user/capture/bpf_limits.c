/* SPDX-License-Identifier: GPL-2.0-only */
/* bpf_limits.c: what the verifier says of each program of a BPF object it
 * loads: the instructions it processed and the deepest chain of stack frames. */
#include "capture/bpf_limits.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdbool.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PROGRAMS 32
/* The verifier's BPF_LOG_STATS (include/linux/bpf_verifier.h, not uapi) */
#define LOG_LEVEL_STATS 4

struct bpf_limits_logs {
	size_t nr;
	const struct bpf_program *progs[MAX_PROGRAMS];
	char *logs[MAX_PROGRAMS]; /* each of log_bytes */
};

struct bpf_limits_logs *bpf_limits_ask(struct bpf_object *obj, size_t log_bytes)
{
	struct bpf_limits_logs *l = calloc(1, sizeof(*l));
	struct bpf_program *prog;

	if (!l)
		return NULL;
	bpf_object__for_each_program(prog, obj) {
		if (!bpf_program__autoload(prog))
			continue;
		if (l->nr == MAX_PROGRAMS) {
			errno = E2BIG;
			goto fail;
		}
		l->logs[l->nr] = calloc(1, log_bytes);
		if (!l->logs[l->nr])
			goto fail;
		l->progs[l->nr] = prog;
		if (bpf_program__set_log_level(prog, LOG_LEVEL_STATS) ||
		    bpf_program__set_log_buf(prog, l->logs[l->nr], log_bytes)) {
			l->nr++;
			goto fail;
		}
		l->nr++;
	}
	return l;
fail:
	bpf_limits_free(l);
	return NULL;
}

void bpf_limits_free(struct bpf_limits_logs *logs)
{
	int e = errno;

	for (size_t i = 0; logs && i < logs->nr; i++)
		free(logs->logs[i]);
	free(logs);
	errno = e;
}

int bpf_limits_parse_log(const char *log, struct bpf_program_limits *l)
{
	const char *p = strstr(log, "stack depth "), *q = strstr(log, "processed ");
	unsigned long v;
	char *end;

	if (!p || !q || sscanf(q, "processed %u insns", &l->insns_processed) != 1)
		return -EINVAL;
	l->nr_funcs = 0;
	p += strlen("stack depth ");
	for (;;) {
		v = strtoul(p, &end, 10);
		if (end == p || l->nr_funcs == BPF_LIMITS_MAX_FUNCS)
			return -EINVAL;
		l->stack[l->nr_funcs++] = (uint32_t)v;
		if (*end != '+')
			break;
		p = end + 1;
	}
	return 0;
}

/* A frame as the verifier adds it up where a JIT runs the program (every
 * x86-64 kernel ringtrace supports): rounded up to 16 bytes. Its depth as
 * the verifier prints it, which includes the slots it adds for each
 * bpf_loop it inlines (after its check of the chain): a little more than
 * it adds up, never less. */
static uint32_t frame_bytes(uint32_t depth)
{
	return (depth + 15) & ~15u;
}

/* The bytes of the deepest chain of calls from function f; *callee, if
 * given, the function f calls on it (-1: none). */
static uint32_t deepest(const struct bpf_program_limits *l, const uint8_t *calls, uint32_t f,
			uint32_t depth, int *callee)
{
	uint32_t best = 0, n = l->nr_funcs;

	if (callee)
		*callee = -1;
	if (depth > n) /* a cycle: the verifier refuses recursion */
		return 0;
	for (uint32_t g = 0; g < n; g++) {
		uint32_t b = calls[f * n + g] ? deepest(l, calls, g, depth + 1, NULL) : 0;

		if (b > best) {
			best = b;
			if (callee)
				*callee = (int)g;
		}
	}
	return frame_bytes(l->stack[f]) + best;
}

void bpf_limits_combine(struct bpf_program_limits *l, const uint8_t *calls,
			const char *const *names)
{
	int f = l->nr_funcs ? 0 : -1;
	size_t at = 0;

	l->stack_combined = f < 0 ? 0 : deepest(l, calls, 0, 0, NULL);
	l->chain[0] = '\0';
	for (uint32_t steps = 0; f >= 0 && steps < l->nr_funcs; steps++) {
		int w = snprintf(l->chain + at, sizeof(l->chain) - at, "%s%s %u", at ? " > " : "",
				 names[f] ? names[f] : "?", l->stack[f]);

		if (w < 0 || (size_t)w >= sizeof(l->chain) - at)
			break;
		at += (size_t)w;
		deepest(l, calls, (uint32_t)f, 0, &f);
	}
}

/* Which of the program's functions starts at or before insn: func_info is
 * sorted by insn_off. */
static uint32_t func_of(const struct bpf_func_info *fi, uint32_t nr, uint32_t insn)
{
	uint32_t f = 0;

	for (uint32_t i = 0; i < nr; i++)
		if (fi[i].insn_off <= insn)
			f = i;
	return f;
}

/* The calls between a loaded program's functions, from the instructions
 * the kernel holds: a call names its callee's index (jit_subprogs), a
 * callback handed to a helper (bpf_loop) its JITed address. Names from the
 * program's BTF. 0, or -errno. */
static int read_calls(int fd, struct bpf_program_limits *l, uint8_t *calls, const char **names,
		      struct btf **btf)
{
	struct bpf_prog_info info = { 0 };
	__u32 len = sizeof(info), n = l->nr_funcs, nr_insns;
	struct bpf_func_info fi[BPF_LIMITS_MAX_FUNCS];
	__u64 ksyms[BPF_LIMITS_MAX_FUNCS];
	struct bpf_insn *insns;
	int r = 0;

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	if (info.nr_func_info != n || info.nr_jited_ksyms > BPF_LIMITS_MAX_FUNCS)
		return -EINVAL;
	nr_insns = info.xlated_prog_len / sizeof(*insns);
	insns = calloc(nr_insns ? nr_insns : 1, sizeof(*insns));
	if (!insns)
		return -ENOMEM;
	{
		struct bpf_prog_info more = {
			.xlated_prog_len = nr_insns * (__u32)sizeof(*insns),
			.xlated_prog_insns = (__u64)(unsigned long)insns,
			.nr_func_info = n,
			.func_info_rec_size = sizeof(fi[0]),
			.func_info = (__u64)(unsigned long)fi,
			.nr_jited_ksyms = info.nr_jited_ksyms,
			.jited_ksyms = (__u64)(unsigned long)ksyms,
		};

		len = sizeof(more);
		if (bpf_obj_get_info_by_fd(fd, &more, &len)) {
			r = -errno;
			goto out;
		}
		*btf = btf__load_from_kernel_by_id(info.btf_id);
		for (__u32 i = 0; i < n; i++) {
			const struct btf_type *t = *btf ? btf__type_by_id(*btf, fi[i].type_id) : NULL;

			names[i] = t ? btf__name_by_offset(*btf, t->name_off) : NULL;
		}
		for (__u32 i = 0; i < nr_insns; i++) {
			const struct bpf_insn *in = &insns[i];
			uint32_t from = func_of(fi, n, i), to = n;

			if (in->code == (BPF_JMP | BPF_CALL) && in->src_reg == BPF_PSEUDO_CALL) {
				uint32_t target = (uint32_t)((int64_t)i + in->off + 1);

				for (uint32_t f = 0; f < n; f++)
					if (fi[f].insn_off == target)
						to = f;
				if (to == n && (uint32_t)in->imm < n)
					to = (uint32_t)in->imm;
			} else if (in->code == (BPF_LD | BPF_IMM | BPF_DW) &&
				   in->src_reg == BPF_PSEUDO_FUNC && i + 1 < nr_insns) {
				__u64 addr = (__u32)in->imm | (__u64)(__u32)in[1].imm << 32;

				for (uint32_t f = 0; f < more.nr_jited_ksyms && f < n; f++)
					if (ksyms[f] == addr)
						to = f;
			}
			if (to < n)
				calls[from * n + to] = 1;
			if (in->code == (BPF_LD | BPF_IMM | BPF_DW))
				i++;
		}
	}
out:
	free(insns);
	return r;
}

size_t bpf_limits_read(const struct bpf_limits_logs *logs, struct bpf_program_limits *out,
		       size_t max)
{
	size_t nr = 0;

	for (size_t i = 0; i < logs->nr && nr < max; i++) {
		struct bpf_program_limits *l = &out[nr];
		const char *names[BPF_LIMITS_MAX_FUNCS] = { 0 };
		uint8_t calls[BPF_LIMITS_MAX_FUNCS * BPF_LIMITS_MAX_FUNCS] = { 0 };
		int fd = bpf_program__fd(logs->progs[i]);
		struct btf *btf = NULL;

		memset(l, 0, sizeof(*l));
		if (fd < 0 || bpf_limits_parse_log(logs->logs[i], l))
			continue;
		snprintf(l->name, sizeof(l->name), "%s", bpf_program__name(logs->progs[i]));
		if (read_calls(fd, l, calls, names, &btf) == 0) {
			names[0] = l->name;
			bpf_limits_combine(l, calls, names);
		} else {
			/* no call graph: every frame on one chain, an upper bound */
			for (uint32_t f = 0; f < l->nr_funcs; f++)
				l->stack_combined += frame_bytes(l->stack[f]);
			snprintf(l->chain, sizeof(l->chain), "%s and every function it has",
				 l->name);
		}
		btf__free(btf);
		nr++;
	}
	return nr;
}
