/* SPDX-License-Identifier: GPL-2.0-only */
/* syscall_summary.c: loads and attaches trace --summary's BPF program (per
 * thread sys_enter/sys_exit pairing, per process and syscall sums), reads it. */
#include "capture/syscall_summary.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/log.h"
#include "sys/privileges.h"
#include "syscall_summary.skel.h"

struct syscall_summary {
	struct syscall_summary_bpf *skel;
	int nr_possible;
};

static int add_target(struct syscall_summary *s, pid_t tgid, __u8 on, char *err, size_t errlen)
{
	__u32 key = (__u32)tgid;

	if (bpf_map_update_elem(bpf_map__fd(s->skel->maps.targets), &key, &on, BPF_ANY)) {
		rt_format(err, errlen, "cannot add process %d to the scope: %s", (int)tgid,
			  strerror(errno));
		return -errno;
	}
	return 0;
}

struct syscall_summary *syscall_summary_start(const struct syscall_summary_scope *scope,
					      char *err, size_t errlen)
{
	struct syscall_summary *s = calloc(1, sizeof(*s));
	int x;

	if (!s) {
		rt_format(err, errlen, "out of memory");
		return NULL;
	}
	s->nr_possible = libbpf_num_possible_cpus();
	s->skel = syscall_summary_bpf__open();
	if (!s->skel || s->nr_possible <= 0) {
		rt_format(err, errlen, "cannot open the syscall summary's BPF program: %s",
			  strerror(errno));
		goto fail;
	}
	s->skel->rodata->scope = scope->all ? RT_SYSCALL_SCOPE_ALL : RT_SYSCALL_SCOPE_TGIDS;
	s->skel->rodata->follow_forks = scope->follow_forks;
	s->skel->rodata->self_tgid = (__u32)getpid();
	if (syscall_summary_bpf__load(s->skel)) {
		x = errno;
		rt_format(err, errlen, "cannot load the syscall summary's BPF program: %s%s",
			  strerror(x), privileges_hint(x));
		goto fail;
	}
	for (size_t i = 0; !scope->all && i < scope->nr_tgids; i++)
		if (add_target(s, scope->tgids[i], 1, err, errlen))
			goto fail;
	if (!scope->all && scope->command > 0 && add_target(s, scope->command, 0, err, errlen))
		goto fail;
	if (syscall_summary_bpf__attach(s->skel)) {
		x = errno;
		rt_format(err, errlen,
			  "cannot attach to raw_syscalls:sys_enter/sys_exit and sched_process_fork/exec: %s%s",
			  strerror(x), privileges_hint(x));
		goto fail;
	}
	return s;
fail:
	syscall_summary_stop(s);
	return NULL;
}

/* The CPUs' values of one key added; min over the CPUs that saw a call. */
static void add_cpus(const struct rt_syscall_stats *per_cpu, int nr_cpus,
		     struct rt_syscall_stats *out)
{
	memset(out, 0, sizeof(*out));
	for (int c = 0; c < nr_cpus; c++) {
		const struct rt_syscall_stats *v = &per_cpu[c];
		__u64 lo;

		if (!v->count)
			continue;
		if (!out->count || v->min_ns < out->min_ns)
			out->min_ns = v->min_ns;
		if (v->max_ns > out->max_ns)
			out->max_ns = v->max_ns;
		out->count += v->count;
		out->errors += v->errors;
		out->total_ns += v->total_ns;
		lo = out->sumsq_lo + v->sumsq_lo;
		out->sumsq_hi += v->sumsq_hi + (lo < v->sumsq_lo);
		out->sumsq_lo = lo;
		for (int b = 0; b < RT_SYSCALL_BUCKETS; b++)
			out->buckets[b] += v->buckets[b];
	}
}

int syscall_summary_read(struct syscall_summary *s, struct syscall_summary_row **rows,
			 size_t *nr_rows, struct rt_syscall_counters *counters, char *err,
			 size_t errlen)
{
	int stats_fd = bpf_map__fd(s->skel->maps.stats), comms_fd = bpf_map__fd(s->skel->maps.comms);
	struct rt_syscall_stats *per_cpu = calloc((size_t)s->nr_possible, sizeof(*per_cpu));
	struct rt_syscall_counters *cnt = calloc((size_t)s->nr_possible, sizeof(*cnt));
	struct syscall_summary_row *out = NULL;
	struct rt_syscall_key key, next, *prev = NULL;
	size_t n = 0, cap = 0;
	__u32 zero = 0;
	int r = 0;

	if (!per_cpu || !cnt) {
		r = -ENOMEM;
		goto fail;
	}
	while (!bpf_map_get_next_key(stats_fd, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(stats_fd, &key, per_cpu))
			continue; /* gone meanwhile */
		if (n == cap) {
			struct syscall_summary_row *grown;

			cap = cap ? 2 * cap : 256;
			if (!(grown = realloc(out, cap * sizeof(*out)))) {
				r = -ENOMEM;
				goto fail;
			}
			out = grown;
		}
		memset(&out[n], 0, sizeof(out[n]));
		out[n].tgid = key.tgid;
		out[n].nr = key.nr;
		add_cpus(per_cpu, s->nr_possible, &out[n].stats);
		if (bpf_map_lookup_elem(comms_fd, &key.tgid, out[n].comm))
			strcpy(out[n].comm, ":?");
		out[n].comm[sizeof(out[n].comm) - 1] = 0;
		if (out[n].stats.count)
			n++;
	}
	memset(counters, 0, sizeof(*counters));
	if (!bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.counters), &zero, cnt))
		for (int c = 0; c < s->nr_possible; c++) {
			counters->lost_calls += cnt[c].lost_calls;
			counters->lost_starts += cnt[c].lost_starts;
			counters->follow_failed += cnt[c].follow_failed;
		}
	free(per_cpu);
	free(cnt);
	*rows = out;
	*nr_rows = n;
	return 0;
fail:
	rt_format(err, errlen, "cannot read the syscall summary: %s", strerror(-r));
	free(per_cpu);
	free(cnt);
	free(out);
	return r;
}

void syscall_summary_stop(struct syscall_summary *s)
{
	if (!s)
		return;
	syscall_summary_bpf__destroy(s->skel);
	free(s);
}
