/* SPDX-License-Identifier: GPL-2.0-only */
/* bpf_sampler_state.h: the loaded BPF sampler, shared by its loading and
 * attaching (bpf_sampler_load.c, bpf_sampler.c) and the readers of what its maps count
 * (sampler_counters.c). */
#ifndef RINGTRACE_BPF_SAMPLER_STATE_H
#define RINGTRACE_BPF_SAMPLER_STATE_H

#include <stdbool.h>

#include "capture/bpf_sampler.h"
#include "capture/transport.h"
#include "sampler.skel.h"

/* One opened perf event and the program's link to it. */
struct attachment {
	int fd;
	struct bpf_link *link;
};

struct bpf_sampler {
	enum transport_kind transport_kind;
	bool backward; /* overwrite rings written backward (perfbuf, ring): never drained */
	struct sampler_bpf *skel;
	struct transport *transport;
	struct attachment *attached;
	unsigned int nr_attached, cap_attached;
	int nr_possible;
	bool unwind_ehframe;
	bool offcpu;
	bool follows_forks; /* follow_fork is attached */
	bool usdt_multi;    /* on_usdt loaded for uprobe_multi links (usdt_multi.h) */
	unsigned int usdt_specs_used; /* usdt.bpf.h's spec map entries written */
	size_t usdt_sites_max; /* --usdt-sites, or the default of the way attached */
};

/* Whether libbpf's messages are printed (bpf_sampler_set_verbose). */
bool bpf_sampler_verbose(void);

#endif
