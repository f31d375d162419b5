/* SPDX-License-Identifier: GPL-2.0-only */
/* usdt_spec.h: a USDT site's argument spec ("-4@%esi 8@-8(%rbp) 4@$5"), as
 * libbpf's usdt.bpf.h reads it in BPF (bpf_usdt_arg): where each argument is
 * (a constant, a register, memory at a register plus an offset), its size
 * and sign. x86-64 only, as the sampler. */
#ifndef RINGTRACE_USDT_SPEC_H
#define RINGTRACE_USDT_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The layout of usdt.bpf.h's struct __bpf_usdt_spec (a BPF map's value, which
 * userspace fills: libbpf's own USDT attach keeps its copy private). */
enum usdt_arg_type {
	USDT_ARG_CONST,
	USDT_ARG_REG,
	USDT_ARG_REG_DEREF,
};

struct usdt_arg {
	uint64_t val_off;        /* the constant, or the offset from the register */
	enum usdt_arg_type arg_type;
	short reg_off;           /* the register's offset in struct pt_regs */
	bool arg_signed;
	char arg_bitshift;       /* 64 - the argument's bits */
};

#define USDT_MAX_ARGS 12 /* usdt.bpf.h's BPF_USDT_MAX_ARG_CNT */

struct usdt_spec {
	struct usdt_arg args[USDT_MAX_ARGS];
	uint64_t usdt_cookie;
	short arg_cnt;
};

/* Parses spec into *out, with cookie. 0; -EINVAL with err set naming the
 * argument it cannot read. */
int usdt_spec_parse(const char *spec, uint64_t cookie, struct usdt_spec *out, char *err,
		    size_t errlen);

#endif
