/* report.h: reads a recording in time order, resolves each sample's symbol,
 * and prints, per event, the rows of the chosen sort keys by overhead. */
#ifndef RINGTRACE_REPORT_H
#define RINGTRACE_REPORT_H

#include <stdint.h>
#include <stdio.h>

enum report_key {
	REPORT_KEY_COMM,
	REPORT_KEY_PID,
	REPORT_KEY_TID,
	REPORT_KEY_DSO,
	REPORT_KEY_SYM,
	REPORT_KEY_CPU,
	REPORT_KEY_CGROUP,
};

#define REPORT_MAX_KEYS 8

struct report_options {
	const char *input;
	enum report_key keys[REPORT_MAX_KEYS];
	unsigned int nr_keys;
	const char *comm_filter; /* only samples of this comm, or NULL */
	int64_t pid_filter;      /* only samples of this pid, or -1 */
	const char *kallsyms;    /* kernel symbols, normally /proc/kallsyms */
};

/* Parses "comm,dso,sym" into o->keys (comm, pid, tid, dso, sym, cpu, cgroup).
 * 0, or -1 with err naming the bad key. */
int report_parse_sort(struct report_options *o, const char *text, char *err, size_t errlen);

/* Prints the report to out. 0, or -1 with err set (unreadable or malformed
 * input: the file and offset are named). */
int report_run(const struct report_options *o, FILE *out, char *err, size_t errlen);

#endif
