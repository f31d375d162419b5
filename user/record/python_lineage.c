/* SPDX-License-Identifier: GPL-2.0-only */
/* python_lineage.c: the execs, exits and forks side-band told, remembered a while,
 * for side-band read out of time order. */
#include "record/python_lineage.h"

/* pid's exec or exit at time into its table, in pid's slot (another
 * pid's evicted). */
static void remember(struct python_pid_event *table, uint32_t pid, uint64_t time)
{
	table[pid % PYTHON_LINEAGE_KEPT] = (struct python_pid_event){ .pid = pid, .time = time };
}

/* Whether the table holds pid's exec or exit at or after time. */
static bool known_since(const struct python_pid_event *table, uint32_t pid, uint64_t time)
{
	const struct python_pid_event *e = &table[pid % PYTHON_LINEAGE_KEPT];

	return e->pid == pid && e->time >= time;
}

void python_lineage_note_exec(struct python_lineage *l, uint32_t pid, uint64_t time)
{
	remember(l->execs, pid, time);
}

bool python_lineage_execd_since(const struct python_lineage *l, uint32_t pid, uint64_t time)
{
	return known_since(l->execs, pid, time);
}

void python_lineage_note_exit(struct python_lineage *l, uint32_t pid, uint64_t time)
{
	remember(l->exits, pid, time);
}

bool python_lineage_exited_since(const struct python_lineage *l, uint32_t pid, uint64_t time)
{
	return known_since(l->exits, pid, time);
}

void python_lineage_note_fork(struct python_lineage *l, uint32_t parent,
			      const struct perf_sample_id *sid)
{
	l->forks[l->next_fork] = (struct python_fork){ .parent = parent, .sid = *sid };
	l->next_fork = (l->next_fork + 1) % PYTHON_LINEAGE_KEPT;
}

bool python_lineage_take_fork(struct python_lineage *l, uint32_t parent, uint64_t since,
			      struct python_fork *out)
{
	for (uint32_t k = 0; k < PYTHON_LINEAGE_KEPT; k++) {
		struct python_fork *f = &l->forks[(l->next_fork + k) % PYTHON_LINEAGE_KEPT];

		if (!f->sid.pid || f->parent != parent || f->sid.time < since)
			continue;
		*out = *f;
		f->sid.pid = 0;
		return true;
	}
	return false;
}
