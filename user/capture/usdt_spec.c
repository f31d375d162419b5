/* SPDX-License-Identifier: GPL-2.0-only */
/* usdt_spec.c: a USDT site's argument spec ("-4@%esi 8@-8(%rbp) 4@$5"), as
 * libbpf's usdt.bpf.h reads it in BPF (bpf_usdt_arg): where each argument is
 * (a constant, a register, memory at a register plus an offset), its size
 * and sign. x86-64 only, as the sampler. */
#include "capture/usdt_spec.h"

#include <asm/ptrace.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"

_Static_assert(sizeof(struct usdt_arg) == 16, "usdt.bpf.h's struct __bpf_usdt_arg_spec");
_Static_assert(sizeof(struct usdt_spec) == 208, "usdt.bpf.h's struct __bpf_usdt_spec");

/* Each register by every name of its parts (64, 32, 16 and low 8 bits). */
static const struct {
	const char *names[4];
	short off;
} registers[] = {
	{ { "rip", "eip", NULL, NULL }, offsetof(struct pt_regs, rip) },
	{ { "rax", "eax", "ax", "al" }, offsetof(struct pt_regs, rax) },
	{ { "rbx", "ebx", "bx", "bl" }, offsetof(struct pt_regs, rbx) },
	{ { "rcx", "ecx", "cx", "cl" }, offsetof(struct pt_regs, rcx) },
	{ { "rdx", "edx", "dx", "dl" }, offsetof(struct pt_regs, rdx) },
	{ { "rsi", "esi", "si", "sil" }, offsetof(struct pt_regs, rsi) },
	{ { "rdi", "edi", "di", "dil" }, offsetof(struct pt_regs, rdi) },
	{ { "rbp", "ebp", "bp", "bpl" }, offsetof(struct pt_regs, rbp) },
	{ { "rsp", "esp", "sp", "spl" }, offsetof(struct pt_regs, rsp) },
	{ { "r8", "r8d", "r8w", "r8b" }, offsetof(struct pt_regs, r8) },
	{ { "r9", "r9d", "r9w", "r9b" }, offsetof(struct pt_regs, r9) },
	{ { "r10", "r10d", "r10w", "r10b" }, offsetof(struct pt_regs, r10) },
	{ { "r11", "r11d", "r11w", "r11b" }, offsetof(struct pt_regs, r11) },
	{ { "r12", "r12d", "r12w", "r12b" }, offsetof(struct pt_regs, r12) },
	{ { "r13", "r13d", "r13w", "r13b" }, offsetof(struct pt_regs, r13) },
	{ { "r14", "r14d", "r14w", "r14b" }, offsetof(struct pt_regs, r14) },
	{ { "r15", "r15d", "r15w", "r15b" }, offsetof(struct pt_regs, r15) },
};

/* name's offset in struct pt_regs; -1 if it names no register. */
static short register_offset(const char *name)
{
	for (size_t i = 0; i < sizeof(registers) / sizeof(registers[0]); i++)
		for (int j = 0; j < 4; j++)
			if (registers[i].names[j] && !strcmp(registers[i].names[j], name))
				return registers[i].off;
	return -1;
}

/* One "SIZE@LOCATION" word into *a. 0, or -EINVAL. */
static int parse_arg(const char *word, struct usdt_arg *a)
{
	char reg[16];
	long long off;
	int size, used = 0;
	short r;

	memset(a, 0, sizeof(*a));
	if (sscanf(word, "%d@$%lld%n", &size, &off, &used) == 2 && !word[used]) {
		a->arg_type = USDT_ARG_CONST;
		a->val_off = (uint64_t)off;
	} else if (sscanf(word, "%d@%lld(%%%15[^)])%n", &size, &off, reg, &used) == 3 &&
		   !word[used]) {
		a->arg_type = USDT_ARG_REG_DEREF;
		a->val_off = (uint64_t)off;
	} else if (sscanf(word, "%d@(%%%15[^)])%n", &size, reg, &used) == 2 && !word[used]) {
		a->arg_type = USDT_ARG_REG_DEREF;
	} else if (sscanf(word, "%d@%%%15s%n", &size, reg, &used) == 2 && !word[used]) {
		a->arg_type = USDT_ARG_REG;
	} else {
		return -EINVAL;
	}
	if (a->arg_type != USDT_ARG_CONST) {
		if ((r = register_offset(reg)) < 0)
			return -EINVAL;
		a->reg_off = r;
	}
	if (size != 1 && size != -1 && size != 2 && size != -2 && size != 4 && size != -4 &&
	    size != 8 && size != -8)
		return -EINVAL;
	a->arg_signed = size < 0;
	a->arg_bitshift = (char)(64 - abs(size) * 8);
	return 0;
}

int usdt_spec_parse(const char *spec, uint64_t cookie, struct usdt_spec *out, char *err,
		    size_t errlen)
{
	const char *s = spec;

	memset(out, 0, sizeof(*out));
	out->usdt_cookie = cookie;
	for (;;) {
		char word[64];
		size_t n;

		s += strspn(s, " ");
		if (!*s)
			return 0;
		n = strcspn(s, " ");
		if (out->arg_cnt == USDT_MAX_ARGS) {
			rt_format(err, errlen, "USDT spec \"%s\": more than %d arguments", spec,
				  USDT_MAX_ARGS);
			return -EINVAL;
		}
		if (n >= sizeof(word) || (snprintf(word, sizeof(word), "%.*s", (int)n, s),
					  parse_arg(word, &out->args[out->arg_cnt]))) {
			rt_format(err, errlen, "USDT spec \"%s\": cannot read argument %d (\"%.*s\")",
				  spec, out->arg_cnt + 1, (int)(n > 40 ? 40 : n), s);
			return -EINVAL;
		}
		out->arg_cnt++;
		s += n;
	}
}
