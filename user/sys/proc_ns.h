/* SPDX-License-Identifier: GPL-2.0-only */
/* proc_ns.h: a process's namespaces, each as the (device, inode) of its
 * /proc/PID/ns link, in the order perf's NAMESPACES record gives them. */
#ifndef RINGTRACE_PROC_NS_H
#define RINGTRACE_PROC_NS_H

#include <linux/perf_event.h>
#include <stdint.h>

/* The inode of the mount namespace of process pid (0: this one): 0, or
 * -errno (ENOENT: it has gone). */
int proc_mnt_ns(uint32_t pid, uint64_t *ino);
/* Its namespaces by NET_NS_INDEX .. CGROUP_NS_INDEX (one the kernel has not:
 * 0, 0): 0, or -errno when its mount namespace cannot be read. */
int proc_namespaces(uint32_t pid, struct perf_ns_link_info ns[NR_NAMESPACES]);

#endif
