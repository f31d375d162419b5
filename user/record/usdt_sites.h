/* SPDX-License-Identifier: GPL-2.0-only */
/* usdt_sites.h: a USDT probe's sites in its file, read from its notes, as
 * the sampler attaches them: file offsets, semaphores, argument specs. */
#ifndef RINGTRACE_USDT_SITES_H
#define RINGTRACE_USDT_SITES_H

#include <stddef.h>

#include "capture/usdt_multi.h"

struct sdt_probe;
struct user_probe;

/* The most distinct argument specs of one probe's sites (usdt.bpf.h's map
 * holds 256 for a recording). */
#define USDT_SITES_MAX_SPECS 256

/* p's sites (provider:probe) among the nr notes of its file into *out; 0,
 * or -errno with err set (none, a site in no executable segment, a spec
 * that cannot be read, too many specs). */
int usdt_sites_of(const struct user_probe *p, const struct sdt_probe *notes, size_t nr_notes,
		  struct usdt_sites *out, char *err, size_t errlen);

#endif
