/* SPDX-License-Identifier: GPL-2.0-only */
/* kallsyms_access.h: why /proc/kallsyms hides kernel addresses from us, from
 * kernel.kptr_restrict, kernel.perf_event_paranoid and CAP_SYSLOG as they are. */
#ifndef RINGTRACE_KALLSYMS_ACCESS_H
#define RINGTRACE_KALLSYMS_ACCESS_H

#include <stdbool.h>
#include <stddef.h>

/* The kernel shows kallsyms addresses (kallsyms_show_value) when
 * kptr_restrict is 0 and perf_event_paranoid at most 1, or kptr_restrict is
 * at most 1 and the reader holds CAP_SYSLOG. Writes into buf the settings as
 * they are on this machine and the fix, e.g. "kernel.kptr_restrict=2 hides
 * them from everyone: set it to 0 (sysctl kernel.kptr_restrict=0)". */
void kallsyms_hidden_cause(char *buf, size_t len);

/* Whether /proc/kallsyms shows this process the kernel's addresses now: a
 * line of its first 4 KiB has an address other than zero (the kernel
 * formats only those lines for the read). */
bool kallsyms_addresses_shown(void);

/* A setting from /proc/sys (path below it, "kernel/kptr_restrict"), or
 * fallback if it cannot be read. */
int kallsyms_read_sysctl(const char *name, int fallback);

#endif
