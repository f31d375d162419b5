/* SPDX-License-Identifier: GPL-2.0-only */
/* snapshot_trigger.c: loads the in-kernel snapshot triggers of the flight
 * recorder (a tracepoint hit, a long run-queue wait) and reads what they fire. */
#include "capture/snapshot_trigger.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/transport.h"
#include "lib/log.h"
#include "sys/privileges.h"
#include "trigger.h"
#include "trigger.skel.h"

struct snapshot_trigger {
	struct trigger_bpf *skel;
	struct bpf_link *links[4];
	unsigned int nr_links;
	struct ring_buffer *ring;
	struct snapshot_trigger_config cfg;
};

static int on_trigger(void *ctx, void *data, size_t size)
{
	struct snapshot_trigger *t = ctx;
	struct rt_trigger r;
	char comm[17] = { 0 }, reason[128];

	if (size < sizeof(r))
		return 0;
	memcpy(&r, data, sizeof(r));
	memcpy(comm, r.comm, sizeof(r.comm));
	if (r.kind == RT_TRIGGER_RUNQLAT)
		snprintf(reason, sizeof(reason), "run-queue wait of %.3f ms by pid %u (%s) on CPU %u",
			 (double)r.value / 1e6, r.pid, comm, r.cpu);
	else
		snprintf(reason, sizeof(reason), "%s hit by pid %u (%s) on CPU %u", t->cfg.event, r.pid,
			 comm, r.cpu);
	t->cfg.fired(t->cfg.ctx, reason);
	return 0;
}

static int attach(struct snapshot_trigger *t, struct bpf_link *link, const char *what, char *err,
		  size_t errlen)
{
	if (!link) {
		int e = errno;

		rt_format(err, errlen, "cannot attach the %s trigger: %s%s", what, strerror(e),
			  privileges_hint(e));
		return -e;
	}
	t->links[t->nr_links++] = link;
	return 0;
}

/* The tracepoint trigger tests hits against the sampler's own filter maps. */
static int use_scope(struct trigger_bpf *k, const struct sampler_scope_filter *f)
{
	k->rodata->filter_flags = f->flags;
	k->rodata->cgroup_exact = f->cgroup_exact;
	k->rodata->target_cgroup_id = f->cgroup_id;
	if (bpf_map__reuse_fd(k->maps.cpu_filter, f->cpu_filter_fd) ||
	    bpf_map__reuse_fd(k->maps.target_tgids, f->tgids_fd) ||
	    bpf_map__reuse_fd(k->maps.target_tids, f->tids_fd) ||
	    bpf_map__reuse_fd(k->maps.target_cgroup, f->cgroup_fd))
		return -errno;
	return 0;
}

struct snapshot_trigger *snapshot_trigger_start(const struct snapshot_trigger_config *cfg,
						char *err, size_t errlen)
{
	struct snapshot_trigger *t = calloc(1, sizeof(*t));
	char system[128], *name;

	if (!t) {
		rt_format(err, errlen, "out of memory");
		return NULL;
	}
	t->cfg = *cfg;
	t->skel = trigger_bpf__open();
	if (!t->skel) {
		rt_format(err, errlen, "cannot open the trigger programs: %s", strerror(errno));
		goto fail;
	}
	t->skel->rodata->runqlat_threshold_ns = cfg->runqlat_ns;
	if (cfg->scope && use_scope(t->skel, cfg->scope)) {
		rt_format(err, errlen, "cannot share the recording's scope with the triggers: %s",
			  strerror(errno));
		goto fail;
	}
	bpf_program__set_autoload(t->skel->progs.trigger_on_tracepoint, cfg->event != NULL);
	bpf_program__set_autoload(t->skel->progs.trigger_wakeup, cfg->runqlat_ns != 0);
	bpf_program__set_autoload(t->skel->progs.trigger_wakeup_new, cfg->runqlat_ns != 0);
	bpf_program__set_autoload(t->skel->progs.trigger_switch, cfg->runqlat_ns != 0);
	if (trigger_bpf__load(t->skel)) {
		int e = errno;

		rt_format(err, errlen, "cannot load the trigger programs: %s%s", strerror(e),
			  privileges_hint(e));
		goto fail;
	}
	if (cfg->event) {
		snprintf(system, sizeof(system), "%s", cfg->event);
		name = strchr(system, ':');
		if (!name) {
			rt_format(err, errlen, "invalid --trigger \"%s\": give SYSTEM:NAME", cfg->event);
			goto fail;
		}
		*name++ = '\0';
		if (attach(t, bpf_program__attach_tracepoint(t->skel->progs.trigger_on_tracepoint, system,
							     name),
			   cfg->event, err, errlen))
			goto fail;
	}
	if (cfg->runqlat_ns &&
	    (attach(t, bpf_program__attach(t->skel->progs.trigger_wakeup), "run-queue", err, errlen) ||
	     attach(t, bpf_program__attach(t->skel->progs.trigger_wakeup_new), "run-queue", err,
		    errlen) ||
	     attach(t, bpf_program__attach(t->skel->progs.trigger_switch), "run-queue", err, errlen)))
		goto fail;
	t->ring = ring_buffer__new(bpf_map__fd(t->skel->maps.triggers), on_trigger, t, NULL);
	if (!t->ring) {
		rt_format(err, errlen, "cannot read the trigger ring: %s", strerror(errno));
		goto fail;
	}
	return t;
fail:
	snapshot_trigger_stop(t);
	return NULL;
}

int snapshot_trigger_epoll_fd(const struct snapshot_trigger *t)
{
	return ring_buffer__epoll_fd(t->ring);
}

int snapshot_trigger_poll(struct snapshot_trigger *t)
{
	return ring_buffer__consume(t->ring);
}

void snapshot_trigger_stop(struct snapshot_trigger *t)
{
	if (!t)
		return;
	ring_buffer__free(t->ring);
	for (unsigned int i = 0; i < t->nr_links; i++)
		bpf_link__destroy(t->links[i]);
	trigger_bpf__destroy(t->skel);
	free(t);
}
