/* SPDX-License-Identifier: GPL-2.0-only */
/* cpu_list.h: CPU lists in the kernel's "0,2-3" syntax: parsing user input
 * and reading the online CPUs from sysfs. */
#ifndef RINGTRACE_CPU_LIST_H
#define RINGTRACE_CPU_LIST_H

#include <stddef.h>

struct cpu_list {
	int *cpus; /* ascending, no duplicates */
	unsigned int nr;
};

/* Parses "0,2-3"; CPUs must be below limit. Returns 0, or -EINVAL with err naming
 * the offending part. */
int cpu_list_parse(struct cpu_list *out, const char *text, int limit, char *err, size_t errlen);
/* The CPUs in /sys/devices/system/cpu/online. */
int cpu_list_online(struct cpu_list *out, char *err, size_t errlen);
/* Highest CPU number the kernel can ever use, plus one; or -errno. */
int cpu_list_possible_count(void);
int cpu_list_contains(const struct cpu_list *l, int cpu);
/* A copy of src in dst; 0, or -ENOMEM if memory ran out. */
int cpu_list_copy(struct cpu_list *dst, const struct cpu_list *src);
void cpu_list_free(struct cpu_list *l);

#endif
