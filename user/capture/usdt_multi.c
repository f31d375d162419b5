/* SPDX-License-Identifier: GPL-2.0-only */
/* usdt_multi.c: every site of a USDT probe attached as one uprobe_multi link
 * (Linux >= 6.6): one RCU grace period to attach and to detach them all,
 * where libbpf 1.1's USDT attach makes a perf event of each site, whose
 * removal waits a grace period each (minutes for thousands of sites). The
 * argument specs go into usdt.bpf.h's map, as libbpf's own attach would. */
#include "capture/usdt_multi.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <linux/bpf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/log.h"

/* BPF_LINK_CREATE's attributes for a uprobe_multi link (Linux 6.6's union
 * bpf_attr; libbpf 1.1's bpf_link_create has no such options). */
struct link_create_uprobe_multi {
	uint32_t prog_fd;
	uint32_t target_fd;
	uint32_t attach_type;
	uint32_t flags;
	uint64_t path;
	uint64_t offsets;
	uint64_t ref_ctr_offsets;
	uint64_t cookies;
	uint32_t cnt;
	uint32_t multi_flags;
	uint32_t pid;
};

static int link_create(int prog_fd, const char *path, const uint64_t *offsets,
		       const uint64_t *ref_ctr_offsets, const uint64_t *cookies, uint32_t cnt)
{
	struct link_create_uprobe_multi attr;

	memset(&attr, 0, sizeof(attr));
	attr.prog_fd = (uint32_t)prog_fd;
	attr.attach_type = USDT_MULTI_ATTACH_TYPE;
	attr.path = (uint64_t)(uintptr_t)path;
	attr.offsets = (uint64_t)(uintptr_t)offsets;
	attr.ref_ctr_offsets = (uint64_t)(uintptr_t)ref_ctr_offsets;
	attr.cookies = (uint64_t)(uintptr_t)cookies;
	attr.cnt = cnt;
	return (int)syscall(__NR_bpf, BPF_LINK_CREATE, &attr, sizeof(attr));
}

/* A program of the link's type, linked to "/": a kernel with uprobe_multi
 * refuses the path (EBADF, not a regular file), one without the type (EINVAL). */
static bool probe_support(void)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = USDT_MULTI_ATTACH_TYPE);
	uint64_t offset = 0;
	int prog, link, e;

	prog = bpf_prog_load(BPF_PROG_TYPE_KPROBE, NULL, "GPL", insns, 2, &opts);
	if (prog < 0)
		return false;
	link = link_create(prog, "/", &offset, NULL, NULL, 1);
	e = errno;
	if (link >= 0)
		close(link);
	close(prog);
	return link < 0 && e == EBADF;
}

bool usdt_multi_supported(void)
{
	static int supported = -1;

	if (supported < 0)
		supported = probe_support();
	return supported;
}

void usdt_sites_free(struct usdt_sites *s)
{
	free(s->offsets);
	free(s->ref_ctr_offsets);
	free(s->spec_of);
	free(s->specs);
	memset(s, 0, sizeof(*s));
}

int usdt_multi_attach(int prog_fd, int specs_map_fd, unsigned int spec_slots,
		      unsigned int *next_spec, const char *file, const struct usdt_sites *sites,
		      uint64_t cookie, char *err, size_t errlen)
{
	uint64_t *cookies;
	int fd, e;

	if (sites->nr_specs > spec_slots - *next_spec) {
		rt_format(err, errlen, "more than %u distinct USDT argument specs in a recording "
			  "(usdt.bpf.h's map)", spec_slots);
		return -E2BIG;
	}
	if (!(cookies = calloc(sites->nr, sizeof(*cookies)))) {
		rt_format(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (unsigned int i = 0; i < sites->nr_specs; i++) {
		struct usdt_spec spec = sites->specs[i];
		int key = (int)(*next_spec + i);

		spec.usdt_cookie = cookie;
		if (bpf_map_update_elem(specs_map_fd, &key, &spec, BPF_ANY)) {
			e = errno;
			free(cookies);
			rt_format(err, errlen, "cannot write a USDT argument spec: %s", strerror(e));
			return -e;
		}
	}
	/* a site's cookie: its spec's key (bpf_usdt_arg's __bpf_usdt_spec_id) */
	for (size_t i = 0; i < sites->nr; i++)
		cookies[i] = *next_spec + sites->spec_of[i];
	fd = link_create(prog_fd, file, sites->offsets, sites->ref_ctr_offsets, cookies,
			 (uint32_t)sites->nr);
	e = errno;
	free(cookies);
	if (fd < 0) {
		rt_format(err, errlen, "cannot attach a uprobe_multi link to %zu sites: %s",
			  sites->nr, strerror(e));
		return -e;
	}
	*next_spec += sites->nr_specs;
	return fd;
}
