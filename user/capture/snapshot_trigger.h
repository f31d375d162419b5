/* SPDX-License-Identifier: GPL-2.0-only */
/* snapshot_trigger.h: loads the in-kernel snapshot triggers of the flight
 * recorder (a tracepoint hit, a long run-queue wait) and reads what they fire. */
#ifndef RINGTRACE_SNAPSHOT_TRIGGER_H
#define RINGTRACE_SNAPSHOT_TRIGGER_H

#include <stddef.h>
#include <stdint.h>

#include "capture/bpf_sampler.h"

struct snapshot_trigger_config {
	const char *event;      /* SYSTEM:NAME, or NULL */
	uint64_t runqlat_ns;    /* 0: none */
	/* the recording's scope: the tracepoint trigger fires only for hits in
	 * it, as the sampler samples them (NULL: the whole machine) */
	const struct sampler_scope_filter *scope;
	/* called with a description of each trigger, e.g. "run-queue wait
	 * of 12.3 ms by pid 42 (stress)" */
	void (*fired)(void *ctx, const char *reason);
	void *ctx;
};

struct snapshot_trigger;

/* Loads and attaches the triggers asked for. NULL with err set. */
struct snapshot_trigger *snapshot_trigger_start(const struct snapshot_trigger_config *cfg,
						char *err, size_t errlen);
/* Readable when a trigger fired. */
int snapshot_trigger_epoll_fd(const struct snapshot_trigger *t);
/* Hands every trigger fired to cfg->fired. Returns their number or -errno. */
int snapshot_trigger_poll(struct snapshot_trigger *t);
void snapshot_trigger_stop(struct snapshot_trigger *t);

#endif
