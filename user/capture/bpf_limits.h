/* SPDX-License-Identifier: GPL-2.0-only */
/* bpf_limits.h: what the verifier says of each program of a BPF object it
 * loads: the instructions it processed and the deepest chain of stack frames. */
#ifndef RINGTRACE_BPF_LIMITS_H
#define RINGTRACE_BPF_LIMITS_H

#include <stddef.h>
#include <stdint.h>

struct bpf_object;

/* The verifier's own limits (kernel/bpf/verifier.c: MAX_BPF_STACK and
 * BPF_COMPLEXITY_LIMIT_INSNS). */
#define BPF_LIMIT_STACK_BYTES 512u
#define BPF_LIMIT_INSNS_PROCESSED 1000000u

#define BPF_LIMITS_MAX_FUNCS 64

struct bpf_program_limits {
	char name[64];             /* the program's, as the object names it */
	uint32_t insns_processed;  /* "processed N insns" */
	uint32_t nr_funcs;         /* the program and the functions it calls */
	uint32_t stack[BPF_LIMITS_MAX_FUNCS]; /* each one's frame, as the verifier counts it */
	uint32_t stack_combined;   /* the deepest chain of calls: its frames added up,
				    * each rounded as the verifier rounds them */
	char chain[256];           /* that chain, "prog BYTES > func BYTES > ..." */
};

/* Log buffers of log_bytes each that collect the verifier's statistics of
 * each program of obj that is to be loaded (call after open, before load).
 * The kernel refuses the load with ENOSPC where a program's log grew past
 * log_bytes on the way, even if what it holds at the end (a few lines of
 * statistics) is short: a verifier may write lines it takes back (seen on
 * Linux 6.18.44: 166 bytes at the end, over 64 KiB on the way). NULL with
 * errno set on failure. */
struct bpf_limits_logs;
struct bpf_limits_logs *bpf_limits_ask(struct bpf_object *obj, size_t log_bytes);

/* After the load: one entry for each program loaded (at most max); returns
 * how many. A program the verifier refused gets no entry (why:
 * libbpf_messages_refusal, from the log libbpf prints of it). */
size_t bpf_limits_read(const struct bpf_limits_logs *logs, struct bpf_program_limits *out,
		       size_t max);
void bpf_limits_free(struct bpf_limits_logs *logs);

/* Parses the verifier's statistics ("stack depth A+B+C", "processed N insns")
 * out of log into l's insns_processed, nr_funcs and stack; 0, or -EINVAL. */
int bpf_limits_parse_log(const char *log, struct bpf_program_limits *l);
/* The deepest chain of frames of the functions of a program: calls[i * n +
 * j] is nonzero where function i calls j; l's stack and nr_funcs given, fills
 * stack_combined and chain (with names[i] the name of function i). */
void bpf_limits_combine(struct bpf_program_limits *l, const uint8_t *calls,
			const char *const *names);

#endif
