/* SPDX-License-Identifier: GPL-2.0-only */
/* filter_program.h: a --filter expression as the BPF side runs it, comparisons
 * over a tracepoint's record joined by jumps, and the steps that evaluate
 * them, here once for the sampler and for the unit tests that drive them. */
#ifndef RINGTRACE_FILTER_PROGRAM_H
#define RINGTRACE_FILTER_PROGRAM_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* Comparisons in one filter, and a string's pattern, its NUL included. */
#define RT_FILTER_MAX_PREDS 16
#define RT_FILTER_PATTERN_BYTES 64
/* A string is compared on its first RT_FILTER_STRING_BYTES - 1 bytes (a
 * power of two: the BPF side bounds its indices with a mask). */
#define RT_FILTER_STRING_BYTES 256
/* The record copied for the filter, at most (sample_record.h's RT_MAX_RAW). */
#define RT_FILTER_RECORD_BYTES 4096
/* Steps one evaluation may take (a comparison of numbers is one, of strings
 * one per character compared); past them the hit is kept and counted. */
#define RT_FILTER_MAX_STEPS 16384
/* Where a comparison's jumps may go besides the next comparisons. */
#define RT_FILTER_ACCEPT 0xfe
#define RT_FILTER_REJECT 0xff

/* What a comparison reads. */
enum rt_filter_operand {
	RT_FILTER_UNSIGNED,      /* a number of size 1, 2, 4 or 8 bytes at offset */
	RT_FILTER_SIGNED,        /* ...sign-extended */
	RT_FILTER_ON_CPU,           /* the CPU of the hit (ftrace's cpu, CPU) */
	RT_FILTER_CHARS,         /* a char array of size bytes at offset */
	RT_FILTER_DATA_LOC,      /* a __data_loc char[] field: its u32 at offset */
	RT_FILTER_REL_LOC,       /* a __rel_loc char[] field */
	RT_FILTER_KERNEL_STRING, /* a char * at offset, read as a kernel string */
	RT_FILTER_USER_STRING,   /* ...as a user string (FIELD.ustring) */
	RT_FILTER_COMM,          /* the current task's comm (ftrace's comm, COMM) */
};

/* How it compares; strings take EQ (a match) and NE (no match) alone. */
enum rt_filter_cmp {
	RT_FILTER_EQ,
	RT_FILTER_NE,
	RT_FILTER_LT,
	RT_FILTER_LE,
	RT_FILTER_GT,
	RT_FILTER_GE,
	RT_FILTER_BAND, /* (field & value) != 0 */
};

struct rt_filter_pred {
	__u64 value;    /* numbers: the value compared with; strings: bit i set
			   when the pattern's byte i is a wildcard ('*' or '?') */
	__u16 offset;   /* in the record */
	__u16 size;     /* numbers: 1, 2, 4, 8; char arrays: their bytes */
	__u8 operand;   /* enum rt_filter_operand */
	__u8 cmp;       /* enum rt_filter_cmp */
	__u8 on_true;   /* the next comparison, RT_FILTER_ACCEPT or _REJECT */
	__u8 on_false;
	__u8 pattern_len; /* strings: bytes of pattern[] of the same index */
	__u8 suffix;      /* strings: the pattern is '*' then no wildcard: only the
			     string's end is compared (one pass, not a glob's
			     backing up at every byte) */
	__u8 pad[6];
};

struct rt_filter {
	__u32 nr_preds;
	__u32 pad;
	struct rt_filter_pred pred[RT_FILTER_MAX_PREDS];
	char pattern[RT_FILTER_MAX_PREDS][RT_FILTER_PATTERN_BYTES];
};

static inline int rt_filter_is_string(__u8 operand)
{
	return operand >= RT_FILTER_CHARS;
}

/* The number a comparison reads from rec (rec_size bytes, a buffer of
 * RT_FILTER_RECORD_BYTES), as a u64 (sign-extended when signed); 0 past the
 * record's end. */
static inline __u64 rt_filter_number(const struct rt_filter_pred *p, const __u8 *rec,
				     __u32 rec_size)
{
	__u32 off = p->offset;
	__u64 v = 0;

	if (off > RT_FILTER_RECORD_BYTES - 8 || off + p->size > rec_size)
		return 0;
	switch (p->size) {
	case 1: {
		__u8 x = rec[off];

		v = p->operand == RT_FILTER_SIGNED ? (__u64)(__s64)(__s8)x : x;
		break;
	}
	case 2: {
		__u16 x;

		__builtin_memcpy(&x, rec + off, 2);
		v = p->operand == RT_FILTER_SIGNED ? (__u64)(__s64)(__s16)x : x;
		break;
	}
	case 4: {
		__u32 x;

		__builtin_memcpy(&x, rec + off, 4);
		v = p->operand == RT_FILTER_SIGNED ? (__u64)(__s64)(__s32)x : x;
		break;
	}
	default:
		__builtin_memcpy(&v, rec + off, 8);
	}
	return v;
}

/* Whether number v passes comparison p. */
static inline int rt_filter_compare(const struct rt_filter_pred *p, __u64 v)
{
	__s64 sv = (__s64)v, sw = (__s64)p->value;
	int s = p->operand == RT_FILTER_SIGNED;

	switch (p->cmp) {
	case RT_FILTER_EQ:
		return v == p->value;
	case RT_FILTER_NE:
		return v != p->value;
	case RT_FILTER_LT:
		return s ? sv < sw : v < p->value;
	case RT_FILTER_LE:
		return s ? sv <= sw : v <= p->value;
	case RT_FILTER_GT:
		return s ? sv > sw : v > p->value;
	case RT_FILTER_GE:
		return s ? sv >= sw : v >= p->value;
	default:
		return (v & p->value) != 0;
	}
}

/* Where a string field of the record is: start and the bytes it may have
 * (its NUL, if any, ends it sooner). 0, or -1 if it is not in the record. */
static inline int rt_filter_string_at(const struct rt_filter_pred *p, const __u8 *rec,
				      __u32 rec_size, __u32 *start, __u32 *max)
{
	__u32 off = p->offset, loc;

	if (p->operand == RT_FILTER_CHARS) {
		*start = off;
		*max = p->size;
	} else {
		if (off > RT_FILTER_RECORD_BYTES - 4 || off + 4 > rec_size)
			return -1;
		__builtin_memcpy(&loc, rec + off, 4);
		*start = (loc & 0xffff) + (p->operand == RT_FILTER_REL_LOC ? off + 4 : 0);
		*max = loc >> 16;
	}
	if (*start >= rec_size)
		return -1;
	if (*max > rec_size - *start)
		*max = rec_size - *start;
	return 0;
}

/* A string being matched against a pattern: lib/glob.c's matcher, one
 * character a step, with one place to back up to ('*'). */
struct rt_filter_glob {
	__u32 si, pi;           /* next byte of the string, of the pattern */
	__u32 back_si, back_pi; /* where the last '*' let the match resume */
	__u32 slen;             /* the string's bytes, its NUL not counted */
	__u32 backed;           /* a '*' was seen */
};

static inline void rt_filter_glob_start(struct rt_filter_glob *g, const struct rt_filter_pred *p,
					__u32 slen)
{
	__u32 literal = p->pattern_len ? p->pattern_len - 1u : 0;

	g->si = g->pi = g->back_si = g->back_pi = g->backed = 0;
	g->slen = slen;
	if (p->suffix) { /* past the '*', at the string's last literal bytes */
		g->pi = 1;
		g->si = slen >= literal ? slen - literal : slen;
	}
}

/* One step of matching s (RT_FILTER_STRING_BYTES, slen bytes) with p's
 * pattern: 1 matched, 0 did not, -1 not decided yet. */
static inline int rt_filter_glob_step(struct rt_filter_glob *g, const struct rt_filter_pred *p,
				      const char *s, const char *pattern)
{
	__u32 si = g->si & (RT_FILTER_STRING_BYTES - 1), pi = g->pi & (RT_FILTER_PATTERN_BYTES - 1);
	unsigned char c = g->si < g->slen ? (unsigned char)s[si] : 0;
	unsigned char d = g->pi < p->pattern_len ? (unsigned char)pattern[pi] : 0;
	int wild = g->pi < p->pattern_len && ((p->value >> pi) & 1);

	if (wild && d == '*') {
		g->pi++;
		if (g->pi >= p->pattern_len)
			return 1;
		g->backed = 1;
		g->back_pi = g->pi;
		g->back_si = g->si;
		return -1;
	}
	if (wild ? c != 0 : c == d) {
		if (!c)
			return 1; /* both ended */
		g->si++;
		g->pi++;
		return -1;
	}
	if (!c || !g->backed)
		return 0;
	g->pi = g->back_pi;
	g->si = ++g->back_si;
	return -1;
}

/* Where a comparison that held (or not) goes next. */
static inline __u8 rt_filter_next(const struct rt_filter_pred *p, int holds)
{
	return holds ? p->on_true : p->on_false;
}

#endif
