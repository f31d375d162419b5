/* SPDX-License-Identifier: GPL-2.0-only */
/* process_tree.c: the machine's processes with their parents and start times,
 * from /proc/PID/stat. */
#include "sys/process_tree.h"

#include <errno.h>
#include <stdlib.h>

#include "sys/proc_ids.h"
#include "sys/proc_stat.h"

bool process_exited(uint32_t id)
{
	struct proc_stat st;

	if (proc_stat_read(id, &st))
		return errno == ENOENT || errno == ESRCH;
	return st.state == 'Z' || st.state == 'X';
}

int process_start_ticks(uint32_t pid, uint64_t *ticks)
{
	struct proc_stat st;

	if (proc_stat_read(pid, &st))
		return -1;
	*ticks = st.start_ticks;
	return 0;
}

/* The processes read so far. */
struct process_list {
	struct process_node *all;
	size_t n, cap;
};

static int add_process(uint32_t pid, void *arg)
{
	struct process_list *l = arg;
	struct proc_stat st;

	if (proc_stat_read(pid, &st))
		return 0; /* ended meanwhile */
	if (l->n == l->cap) {
		size_t grown_cap = l->cap ? l->cap * 2 : 256;
		struct process_node *grown = realloc(l->all, grown_cap * sizeof(*grown));

		if (!grown)
			return 1;
		l->all = grown;
		l->cap = grown_cap;
	}
	l->all[l->n++] = (struct process_node){ pid, st.ppid, st.start_ticks };
	return 0;
}

int process_tree_read(struct process_node **nodes, size_t *nr)
{
	struct process_list l = { 0 };
	int r = proc_each_id(0, add_process, &l);

	if (r) {
		free(l.all);
		errno = r > 0 ? ENOMEM : -r;
		return -1;
	}
	*nodes = l.all;
	*nr = l.n;
	return 0;
}
