/* SPDX-License-Identifier: GPL-2.0-only */
/* usdt_multi.h: every site of a USDT probe attached as one uprobe_multi link
 * (Linux >= 6.6): one RCU grace period to attach and to detach them all,
 * where libbpf 1.1's USDT attach makes a perf event of each site, whose
 * removal waits a grace period each (minutes for thousands of sites). The
 * argument specs go into usdt.bpf.h's map, as libbpf's own attach would. */
#ifndef RINGTRACE_USDT_MULTI_H
#define RINGTRACE_USDT_MULTI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture/usdt_spec.h"

/* BPF_TRACE_UPROBE_MULTI: not in the uapi headers of Debian's Linux 6.1. */
#define USDT_MULTI_ATTACH_TYPE 48

/* The most sites of one probe attached by default: as one link (a bound on
 * the kernel's memory, ~100 bytes a site), and as perf events where the
 * kernel has no uprobe_multi (each site's removal a grace period, ~10-250 ms). */
#define USDT_SITES_DEFAULT_MULTI 65536
#define USDT_SITES_DEFAULT_PERF_EVENTS 64

/* A probe's sites in its file, as the kernel attaches them. */
struct usdt_sites {
	size_t nr;
	uint64_t *offsets;         /* each site's file offset */
	uint64_t *ref_ctr_offsets; /* its semaphore's, 0: none */
	uint32_t *spec_of;         /* its argument spec: an index of specs */
	struct usdt_spec *specs;   /* the distinct specs of the sites */
	unsigned int nr_specs;
};

void usdt_sites_free(struct usdt_sites *s);

/* Whether this kernel attaches uprobe_multi links (checked once, by a
 * program of its own and a link the kernel refuses for its path). */
bool usdt_multi_supported(void);

/* Attaches prog_fd (loaded as USDT_MULTI_ATTACH_TYPE) to every one of
 * sites in file (as opened: /proc/self/fd/N), in every process, their specs
 * written into specs_map_fd (usdt.bpf.h's __bpf_usdt_specs, spec_slots
 * entries) from *next_spec on, each with cookie. The link's fd; -errno
 * with err set. */
int usdt_multi_attach(int prog_fd, int specs_map_fd, unsigned int spec_slots,
		      unsigned int *next_spec, const char *file, const struct usdt_sites *sites,
		      uint64_t cookie, char *err, size_t errlen);

#endif
