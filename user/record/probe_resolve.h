/* SPDX-License-Identifier: GPL-2.0-only */
/* probe_resolve.h: user-space probes made concrete before anything is attached:
 * the binary a name means, the function or SDT probe in it, its arguments. */
#ifndef RINGTRACE_PROBE_RESOLVE_H
#define RINGTRACE_PROBE_RESOLVE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "capture/event_spec.h"

struct usdt_sites;

/* Resolves the probe of ev: its binary (a path; else as mapped in process
 * pid when pid > 0; else a program in PATH, else a library ld.so knows),
 * checks that the function or SDT probe is there (an SDT probe's sites into
 * *sites, read from the same notes: usdt_sites.h), and names the event as
 * perf probe would ("uprobe_BINARY:FUNC", "usdt_PROVIDER:NAME") with the
 * format id given. 0, or -errno with err naming what is missing and what is there. */
int probe_resolve(struct event_desc *ev, int pid, uint16_t id, struct usdt_sites *sites,
		  char *err, size_t errlen);

/* "list uprobe:BINARY" (its functions) or "list usdt:BINARY" (its SDT probes
 * with their argument specs). 0, or -errno with err set. */
int probe_list_print(const char *spec, FILE *out, char *err, size_t errlen);

#endif
